"""Round, match and batch loops of the Numba engine.

The state these loops mutate is described in :mod:`core.state` (the state
contract); this module applies the turn, settlement and event rules to it and
fills the caller's preallocated result arrays.

Strategies are handed in, never imported
----------------------------------------
This module is a *template*: its kernels reach strategies only through
:func:`choose_placement` (``slot``, :class:`core.state.PlayerView`), a
placeholder here. :mod:`sim.engine.kernel_sets` compiles a copy of the kernels for
each set of strategy functions, with ``choose_placement`` calling those
functions by slot (``seat_strategy[seat]`` is the seat's slot), and caches it
on disk. A seat whose slot is ``EXTERNAL_SEAT`` is a Python seat: its choices
are read from the match's ``answers`` rows, and when they run out the match
stops at that decision (``BOARD_SUSPENDED``) so that Python can make it
(:mod:`sim.engine.python_seats`).

Result arrays (filled by :func:`simulate_batch`)
------------------------------------------------
``match_stats`` : int32[n, MATCH_FIELDS]
    Row ``i`` = match ``first_match + i``; columns ``M_*`` of :mod:`core.state`.
``match_scores`` : int32[n, MAX_ENTITIES]
    Final raw score per entity (unused entities 0).
``round_offsets`` : int64[n + 1] or int64[0]
    When given, match ``i`` writes its rounds to rows
    ``round_offsets[i]:round_offsets[i+1]`` of ``round_rows`` (int32[R,
    ROUND_FIELDS], columns ``R_*``) and ``round_deals`` (int8[R, 28], the
    shuffled tiles: hands then boneyard). The offsets come from a first pass
    that counted ``M_ROUNDS``: the batch is deterministic, so the second pass
    plays the very same matches.
``action_offsets``, ``actions`` : int64[n + 1], int16[A, ACTION_FIELDS]
``event_offsets``, ``events`` : int64[n + 1], int32[E, EVENT_FIELDS]
    Likewise for the record trace (counts ``M_ACTIONS`` / ``M_EVENTS``).
``answer_offsets``, ``answers`` : int64[n + 1] or int64[0], int64[D, ANSWER_FIELDS]
    The recorded choices of Python seats, match ``i``'s in rows
    ``answer_offsets[i]:answer_offsets[i+1]`` (empty offsets: no Python seat).

Tracing never changes play: the same code runs with empty trace arrays, and
writes are skipped when a trace array has no room left.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.jit import hot_kernel, kernel, linked_kernel
from core.linked_steps import begin_round, close_round, count_round, reset_match
from core.rng import (DEAL_WORDS_PER_ROUND, LOT_WORD, SEAT_SALT, STREAM_DEAL, below,
    match_decision_key, one_way, seat_decision_key, secret_key, shuffle_round_deal, stream_key,
    word_at)
from core.sealed import read_only
from core.turns import advance, start_turns
from core.state import (ACTION_FIELDS, ANSWER_CHOICE, ANSWER_RNG_COUNTER, BOARD_DECIDING,
    BOARD_DECISION_BONEYARD, BOARD_DECISION_COUNT, BOARD_DECISION_SEAT, BOARD_ERROR, BOARD_ERROR_COUNT, BOARD_ERROR_ROW,
    BOARD_ERROR_SEAT, BOARD_HISTORY, BOARD_KEEP_HISTORY, BOARD_LEADER, BOARD_NEXT_DRAW, BOARD_NODES,
    BOARD_OPEN_NODES, BOARD_OPEN_VALUES, BOARD_PLAYED, BOARD_ROUND, BOARD_SUSPENDED, BOARD_TOTAL,
    BOARD_TURN_SEAT, CAND_TILE, CURSOR_ANSWERS, CURSOR_ROUNDS, END_BLOCKED, END_NONE,
    END_SUSPENDED, ENTITY_OF_SEAT, EVENT_FIELDS, EXTERNAL_SEAT, INVALID_CHOICE, MATCH_FIELDS,
    M_ERROR, NO_ENTITY, NO_TILE, PlayerView, ROUND_FIELDS, R_DOMINOER, DECISION_BONEYARD,
    DECISION_CANDIDATES, DECISION_HAND, DECISION_HISTORY, DECISION_NODES, DECISION_OPEN_NODES,
    DECISION_OPEN_VALUES, DECISION_PLAYED, DECISION_SEAT, DECISION_SLOT, DECISION_TOTAL,
    EXPORT_HISTORY, EXPORT_SEAT,
    SLOT_DECIDING, SLOT_FINISHED, SLOT_IDLE, Trace, new_workspace, workspace_of)
from core.tiles import HAND_SIZE, N_TILES


@njit(cache=True)
def untraced(answers):
    """A :class:`Trace` that records nothing (every trace array empty), feeding ``answers``
    (int64[D, ANSWER_FIELDS]) to the Python seats."""
    return Trace(np.zeros((0, ROUND_FIELDS), dtype=np.int32), np.zeros((0, N_TILES), dtype=np.int8),
                 np.zeros((0, ACTION_FIELDS), dtype=np.int16),
                 np.zeros((0, EVENT_FIELDS), dtype=np.int32), answers)


UNANSWERED_ERROR = -1
"""``M_ERROR`` of a match that needed a Python seat's choice it was not given."""

RAISED_ERROR = -2
"""``M_ERROR`` left on a match whose kernel call raised (a strategy raised or indexed its view
out of bounds): :func:`simulate_batch` marks each match so before playing it, and the mark
stays when the exception leaves the kernel (:mod:`sim.engine.batch` names the match)."""

STRATEGY_DEPENDENT = (
    "choose_placement",
    "slot_sees_hidden",
    "slot_parameters",
    "slot_reads_history",
    "_decide",
    "seats_read_history",
    "play_dealt_round",
    "play_round_from",
    "play_match",
    "simulate_batch",
    "resume_match",
    "resume_matches",
)
"""The kernels that reach a strategy: :mod:`sim.engine.kernel_sets` compiles a copy of
them per set of strategies."""

# ---------------------------------------------------------------------------
# Decisions
# ---------------------------------------------------------------------------
@hot_kernel
def choose_placement(slot, view):
    """Placeholder of the strategy dispatch (see the module docstring).

    :mod:`sim.engine.kernel_sets` replaces it, in each compiled copy of these
    kernels, by a function that calls the strategy of ``slot`` with ``view``.
    """
    return INVALID_CHOICE


@hot_kernel
def slot_sees_hidden(slot):
    """Placeholder: True if the strategy of ``slot`` is declared ``sees_hidden`` (an audit
    strategy given every hand and the boneyard order). :mod:`sim.engine.kernel_sets`
    replaces it like :func:`choose_placement`; here no slot sees hidden information."""
    return False


@hot_kernel
def slot_parameters(slot):
    """Placeholder: how many parameters the strategy of ``slot`` has (its ``view.params`` is
    cut to them). :mod:`sim.engine.kernel_sets` replaces it like :func:`choose_placement`."""
    return 0


@linked_kernel
def _external_choice(ws, trace, seat):
    """A Python seat's choice: its next recorded answer, or suspend the match.

    Replaying an answer also restores the seat's decision-stream counter to
    where the Python strategy left it.
    """
    row = ws.cursor[CURSOR_ANSWERS]
    if row < trace.answers.shape[0]:
        ws.cursor[CURSOR_ANSWERS] = row + 1
        ws.rng[seat, 1] = np.uint64(trace.answers[row, ANSWER_RNG_COUNTER])
        return trace.answers[row, ANSWER_CHOICE]
    ws.board[BOARD_SUSPENDED] = 1
    return 0


@linked_kernel
def seat_view(ws, seat, players, entity_of_seat, params, n_candidates, boneyard_size, shown_hands,
              shown_boneyard):
    """The sealed :class:`PlayerView` of ``seat``'s decision in hand (see its docstring).

    Every array is read-only (:func:`core.sealed.read_only`) except the
    seat's own stream ``ws.rng[seat]``; the layout, open-node, candidate and
    history arrays are cut to their rows in play (rows past them hold earlier
    decisions', rounds' or matches' data); ``params`` is the seat's own row,
    already cut to its strategy's parameters. ``shown_hands`` and
    ``shown_boneyard`` are 0 except for a ``sees_hidden`` audit strategy.
    """
    board = ws.board
    return PlayerView(
        seat,
        players,
        ws.hands[seat],
        read_only(entity_of_seat),
        read_only(ws.scores),
        read_only(ws.hand_sizes),
        read_only(ws.lacking),
        boneyard_size,
        board[BOARD_PLAYED],
        board[BOARD_TOTAL],
        board[BOARD_OPEN_VALUES],
        board[BOARD_NODES],
        read_only(ws.nodes[: board[BOARD_NODES]]),
        read_only(ws.open_count),
        board[BOARD_OPEN_NODES],
        read_only(ws.open_nodes[: board[BOARD_OPEN_NODES]]),
        n_candidates,
        read_only(ws.cands[:n_candidates]),
        read_only(params),
        ws.rng[seat],
        board[BOARD_HISTORY],
        read_only(ws.history[: board[BOARD_HISTORY]]),
        read_only(ws.hands[:shown_hands]),
        read_only(ws.deal[N_TILES - shown_boneyard:]),
    )


@hot_kernel
def _decide(ws, trace, seat, players, entity_of_seat, seat_strategy, seat_params, n_candidates,
            boneyard_size):
    """Row of ``ws.cands`` chosen by the seat's strategy (0 if only one).

    Hands the strategy its sealed view (:func:`seat_view`). ``BOARD_DECIDING``
    is 1 while the strategy runs, with ``BOARD_DECISION_SEAT`` its seat, so
    that an exception it raises can be reported for that seat. An out-of-range
    answer is flagged in ``BOARD_ERROR`` (slot + 1; the match's first one also
    in ``BOARD_ERROR_ROW``, ``BOARD_ERROR_SEAT`` and ``BOARD_ERROR_COUNT``) and
    replaced by 0 so the batch can finish and report it.
    """
    if n_candidates == 1:
        return 0
    board = ws.board
    strategy = seat_strategy[seat]
    if strategy == EXTERNAL_SEAT:
        choice = _external_choice(ws, trace, seat)
    else:
        # Fair strategies get empty hidden arrays (same type, nothing to read).
        shown_hands = 0
        shown_boneyard = 0
        if slot_sees_hidden(strategy):
            shown_hands = players
            shown_boneyard = boneyard_size
        view = seat_view(ws, seat, players, entity_of_seat,
                         seat_params[seat, : slot_parameters(strategy)], n_candidates,
                         boneyard_size, shown_hands, shown_boneyard)
        board[BOARD_DECIDING] = 1
        choice = choose_placement(strategy, view)
        board[BOARD_DECIDING] = 0
    if choice < 0 or choice >= n_candidates:
        if strategy >= 0:  # a Python seat's answers were checked in Python
            if board[BOARD_ERROR] == 0:
                board[BOARD_ERROR_ROW] = choice
                board[BOARD_ERROR_SEAT] = seat
                board[BOARD_ERROR_COUNT] = n_candidates
            board[BOARD_ERROR] = strategy + 1
        return 0
    return choice


@linked_kernel
def start_seat_streams(ws, players, key, secret):
    """Give every seat its own decision stream derived one-way from ``key`` keyed by the run
    ``secret`` (uint64[2], 0: none) (study kernels, whose streams are not a match's;
    :func:`play_match` uses :func:`core.rng.sealed_decision_key`)."""
    keyed = secret_key(key, secret)
    for seat in range(players):
        ws.rng[seat, 0] = one_way(keyed, np.uint64(seat + 1) * SEAT_SALT)
        ws.rng[seat, 1] = 0


@hot_kernel
def slot_reads_history(slot):
    """Placeholder: True if the strategy of ``slot`` reads the public history
    (``view.history``; declared or found in its code, :mod:`strategies.definition`).
    :mod:`sim.engine.kernel_sets` replaces it like :func:`choose_placement`; here every slot
    reads it (the safe side: the history is kept)."""
    return True


@hot_kernel
def seats_read_history(players, seat_strategy):
    """1 if a seat's strategy reads the public history (a Python seat always may), else 0:
    the value of ``BOARD_KEEP_HISTORY`` for a round (:mod:`core.step`)."""
    for seat in range(players):
        slot = seat_strategy[seat]
        if slot == EXTERNAL_SEAT or slot_reads_history(slot):
            return 1
    return 0


@linked_kernel
def trace_round(ws, trace):
    """Write the finished round's figures (``ws.round_stats``) to the trace if it has room."""
    row = ws.cursor[CURSOR_ROUNDS]
    if row < trace.round_rows.shape[0]:
        stats = ws.round_stats
        for field in range(ROUND_FIELDS):
            trace.round_rows[row, field] = stats[field]
        ws.cursor[CURSOR_ROUNDS] = row + 1


@hot_kernel
def play_dealt_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params, leader,
                     forced_tile):
    """Play one round from the deal in ``ws.deal`` (seat ``s``'s hand at ``[5s:5s+5]``, then
    the boneyard in draw order) to its end.

    :func:`play_match` shuffles and plays its rounds so; the study kernels call it with deals of
    their own and, for forced openings, ``forced_tile``. ``ws.scores`` and the decision
    stream ``ws.rng`` are used as they are.

    Parameters
    ----------
    ws : Workspace
    trace : Trace
        Actions and events are appended while it has room.
    players : int64
    entity_of_seat : int64[players]
    seat_strategy : int64[players]
    seat_params : float64[players, P]
    leader : int64
        Seat that opens.
    forced_tile : int64
        ``NO_TILE`` (-1): the leader's strategy chooses the opening; a tile of
        the leader's hand: the leader opens with it.

    Returns
    -------
    int64
        End kind; ``ws.round_stats`` holds the round's figures (scores after
        it, hand pips left).
    """
    # np.int64(...): every caller reaches the round loop with one signature (see play_match)
    return play_round_from(ws, trace, players, entity_of_seat, seat_strategy, seat_params,
                           np.int64(leader), np.int64(forced_tile), np.int64(1))


@kernel
def play_round_from(ws, trace, players, entity_of_seat, seat_strategy, seat_params, leader,
                    forced_tile, fresh):
    """The engine's round: the turn driver (:mod:`core.turns`) from decision to decision, each
    decision made by the seat's strategy at the single decision site below (strategies are
    inlined once, not once per kind of turn).

    Parameters
    ----------
    ws, trace, players, entity_of_seat, seat_strategy, seat_params, leader, forced_tile
        As :func:`play_dealt_round`.
    fresh : int64
        1: the round starts (its figures cleared, the hands dealt from ``ws.deal``); 0: it
        goes on from the decision the driver holds in ``ws`` (a suspended match resumed:
        :func:`resume_match`).

    Returns
    -------
    int64
        End kind (``END_SUSPENDED``: stopped at a Python seat's unanswered decision, which
        the driver keeps in ``ws.board``).
    """
    board = ws.board
    if fresh:
        begin_round(ws, leader)
        board[BOARD_KEEP_HISTORY] = seats_read_history(players, seat_strategy)
        deal = ws.deal
        for hand_seat in range(players):
            hand = 0
            for k in range(HAND_SIZE):
                hand |= 1 << deal[hand_seat * HAND_SIZE + k]
            ws.hands[hand_seat] = hand
            ws.hand_sizes[hand_seat] = HAND_SIZE
        end = start_turns(ws, trace, players, entity_of_seat, leader, np.int64(players * HAND_SIZE),
                          leader, np.int64(0))
    else:
        end = END_NONE
    while end == END_NONE:
        if forced_tile >= 0 and board[BOARD_NODES] == 0:
            # A study forces the opening tile (list_openings gives one row per tile).
            choice = 0
            for c in range(board[BOARD_DECISION_COUNT]):
                if ws.cands[c, CAND_TILE] == forced_tile:
                    choice = c
        else:
            choice = _decide(ws, trace, board[BOARD_TURN_SEAT], players, entity_of_seat,
                             seat_strategy, seat_params, board[BOARD_DECISION_COUNT],
                             N_TILES - board[BOARD_NEXT_DRAW])
            if board[BOARD_SUSPENDED] != 0:
                return END_SUSPENDED  # a Python seat must choose: Python resumes here
        end = advance(ws, trace, players, entity_of_seat, choice)
    close_round(ws, players)
    return end


@kernel
def play_match(ws, trace, seed, match, players, seat_strategy, seat_params, max_rounds, secret,
               resume):
    """Play match ``match`` of ``seed`` to 305 or ``max_rounds``; figures in ``ws.match_totals``.

    The match depends only on ``(seed, match)``, the run ``secret`` (uint64[2];
    0 without ``--sealed``) and the strategies: the deal and lot of round ``r``
    come from deal-stream words reserved for ``r`` (the seed alone), and
    decisions from each seat's own decision stream (keyed by the secret).
    Stops early, with ``BOARD_SUSPENDED`` set, at a Python seat's decision
    that ``trace.answers`` does not answer; called again with ``resume`` true
    (and that decision's answer first in ``trace.answers``) it goes on from there.
    """
    entity_of_seat = ENTITY_OF_SEAT[players, :players]
    board = ws.board
    deal_key = stream_key(seed, match, STREAM_DEAL)
    first_round = 0
    if resume:
        first_round = board[BOARD_ROUND]
        ws.cursor[CURSOR_ANSWERS] = 0
        board[BOARD_SUSPENDED] = 0
    else:
        reset_match(ws)
        board[BOARD_ERROR] = 0
        board[BOARD_SUSPENDED] = 0
        board[BOARD_DECIDING] = 0
        match_key = match_decision_key(seed, match, secret)
        for seat in range(players):
            ws.rng[seat, 0] = seat_decision_key(match_key, seat)  # = sealed_decision_key(seed, match, seat, secret)
            ws.rng[seat, 1] = 0
    stats = ws.round_stats
    end = END_BLOCKED
    for round_index in range(first_round, max_rounds):
        if resume and round_index == first_round:
            # Go on from the Python seat's decision the match stopped at.
            fresh = 0
            leader = board[BOARD_LEADER]
        else:
            if end == END_BLOCKED:
                # Ruling 14: first leader and leader after a block by uniform lot.
                leader = below(word_at(deal_key, round_index * DEAL_WORDS_PER_ROUND + LOT_WORD), players)
            else:
                leader = stats[R_DOMINOER]
            board[BOARD_ROUND] = round_index
            board[BOARD_LEADER] = leader
            shuffle_round_deal(deal_key, round_index, ws.deal)
            deal_row = ws.cursor[CURSOR_ROUNDS]
            if deal_row < trace.round_deals.shape[0]:
                for k in range(N_TILES):
                    trace.round_deals[deal_row, k] = ws.deal[k]
            fresh = 1
        # One call site, and one signature for every caller: the round loop (and the strategies
        # inlined in it) is compiled once per set. A constant argument would be typed as its
        # literal value (Literal[int](-1)), and each caller's mix of literals and int64 compiled
        # the loop again (four times for a set with study kernels); np.int64 makes it plain int64.
        end = play_round_from(ws, trace, players, entity_of_seat, seat_strategy, seat_params,
                              np.int64(leader), np.int64(NO_TILE), np.int64(fresh))
        if end == END_SUSPENDED:
            return
        trace_round(ws, trace)
        if count_round(ws, players, end, round_index, leader) != NO_ENTITY:
            break
    ws.match_totals[M_ERROR] = board[BOARD_ERROR]


@njit(nogil=True, cache=True)
def simulate_batch(
    seed,
    first_match,
    players,
    seat_strategy,
    seat_params,
    max_rounds,
    row_start,
    row_stop,
    match_stats,
    match_scores,
    round_offsets,
    round_rows,
    round_deals,
    action_offsets,
    actions,
    event_offsets,
    events,
    answer_offsets,
    answers,
    secret,
):
    """Play rows ``row_start .. row_stop - 1`` (match ``first_match + row``) into the arrays.

    Serial and GIL-free: :func:`sim.engine.batch.run_blocks` runs disjoint row
    ranges of one set of arrays on several Python threads at once. (Not a
    ``prange``: Numba's parallel lowering re-optimises the whole inlined
    engine once more, about 12 s of a 75 s cold compile, for the same
    throughput.)

    Parameters
    ----------
    seed : int64
    first_match : int64
        Global index of row 0.
    players : int64
    seat_strategy : int64[players]
    seat_params : float64[players, P]
    max_rounds : int64
    row_start, row_stop : int64
        The rows to play; one workspace is allocated per call. Results do not
        depend on how the rows are split.
    match_stats, match_scores, round_offsets, round_rows, round_deals,
    action_offsets, actions, event_offsets, events
        See the module docstring; pass ``int64[0]`` offsets to skip a trace.
    answer_offsets, answers
        The Python seats' choices (``int64[0]`` offsets when there is none).
        A match that needs a choice they do not hold gets ``M_ERROR`` =
        ``UNANSWERED_ERROR``.
    secret : uint64[2]
        The run secret keying the decision streams (:data:`core.rng.NO_SECRET`: none).

    Raises
    ------
    Exception
        What a strategy raised (an ``IndexError`` when a bounds-checked
        strategy indexed its view out of range); the match it was playing
        keeps ``M_ERROR`` = ``RAISED_ERROR`` in ``match_stats``.
    """
    ws = new_workspace()
    for row in range(row_start, row_stop):
        if round_offsets.shape[0] > 0:
            rounds_of_match = round_rows[round_offsets[row] : round_offsets[row + 1]]
            deals_of_match = round_deals[round_offsets[row] : round_offsets[row + 1]]
        else:
            rounds_of_match = round_rows[0:0]
            deals_of_match = round_deals[0:0]
        if action_offsets.shape[0] > 0:
            actions_of_match = actions[action_offsets[row] : action_offsets[row + 1]]
        else:
            actions_of_match = actions[0:0]
        if event_offsets.shape[0] > 0:
            events_of_match = events[event_offsets[row] : event_offsets[row + 1]]
        else:
            events_of_match = events[0:0]
        if answer_offsets.shape[0] > 0:
            answers_of_match = answers[answer_offsets[row] : answer_offsets[row + 1]]
        else:
            answers_of_match = answers[0:0]
        trace = Trace(rounds_of_match, deals_of_match, actions_of_match, events_of_match,
                      answers_of_match)
        match_stats[row, M_ERROR] = RAISED_ERROR  # stays if a strategy raises in this match
        play_match(ws, trace, seed, first_match + row, players, seat_strategy, seat_params, max_rounds,
                   secret, np.bool_(False))  # a plain bool, as resume_match passes: one compile
        for field in range(MATCH_FIELDS):
            match_stats[row, field] = ws.match_totals[field]
        if ws.board[BOARD_SUSPENDED] != 0:
            match_stats[row, M_ERROR] = UNANSWERED_ERROR
        for entity in range(match_scores.shape[1]):
            match_scores[row, entity] = ws.scores[entity]


@njit(cache=True)
def resume_match(ws, answers, seed, match, players, seat_strategy, seat_params, max_rounds, secret,
                 resume):
    """Play match ``match`` until it ends or a Python seat must choose, one decision at a time.

    Parameters
    ----------
    ws : Workspace
        Allocated by the caller (:func:`core.state.new_workspace`) and kept from call to
        call of one match; read after the call: the match's figures, or the decision in hand.
    answers : int64[D, ANSWER_FIELDS]
        With ``resume`` false: the Python seats' choices known from the match's start (none
        for a new match). With ``resume`` true: the answer to the decision ``ws`` stopped at
        (and any after it).
    seed, match, players, seat_strategy, seat_params, max_rounds, secret
        As :func:`play_match`.
    resume : bool
        False: start the match; True: go on from the decision in ``ws``.

    Returns
    -------
    bool
        True when the match stopped at a Python seat's decision: ``ws``
        holds that decision (``BOARD_DECISION_*``, ``cands``, the layout and
        the seat's stream).
    """
    play_match(ws, untraced(answers), seed, match, players, seat_strategy, seat_params, max_rounds,
               secret, resume)
    return ws.board[BOARD_SUSPENDED] != 0


@linked_kernel
def export_decision(ws, batch, row, slot, with_history):
    """Write the decision ``ws`` stopped at (a Python seat's, the match of slot ``slot``) into
    row ``row`` of ``batch`` (:class:`core.state.DecisionBatch`): its view's scalars and the
    rows of its arrays in use (``history`` only if ``with_history``)."""
    board = ws.board
    fields = batch.decisions[row]
    seat = board[BOARD_DECISION_SEAT]
    n_nodes = board[BOARD_NODES]
    n_open = board[BOARD_OPEN_NODES]
    count = board[BOARD_DECISION_COUNT]
    n_history = board[BOARD_HISTORY]
    fields[DECISION_SLOT] = slot
    fields[DECISION_SEAT] = seat
    fields[DECISION_HAND] = ws.hands[seat]
    fields[DECISION_BONEYARD] = board[BOARD_DECISION_BONEYARD]
    fields[DECISION_PLAYED] = board[BOARD_PLAYED]
    fields[DECISION_TOTAL] = board[BOARD_TOTAL]
    fields[DECISION_OPEN_VALUES] = board[BOARD_OPEN_VALUES]
    fields[DECISION_NODES] = n_nodes
    fields[DECISION_OPEN_NODES] = n_open
    fields[DECISION_CANDIDATES] = count
    fields[DECISION_HISTORY] = n_history
    # element by element: a slice assignment may copy its source, which needs the allocator
    for k in range(ws.scores.shape[0]):
        batch.scores[row, k] = ws.scores[k]
    for k in range(ws.hand_sizes.shape[0]):
        batch.hand_sizes[row, k] = ws.hand_sizes[k]
        batch.lacking[row, k] = ws.lacking[k]
    for k in range(ws.open_count.shape[0]):
        batch.open_count[row, k] = ws.open_count[k]
    copy_rows(ws.nodes, batch.nodes[row], n_nodes)
    for k in range(n_open):
        batch.open_nodes[row, k] = ws.open_nodes[k]
    copy_rows(ws.cands, batch.cands[row], count)
    if with_history:
        copy_rows(ws.history, batch.history[row], n_history)
    batch.rng[row, 0] = ws.rng[seat, 0]
    batch.rng[row, 1] = ws.rng[seat, 1]


@hot_kernel
def copy_rows(source, target, rows):
    """``target[:rows] = source[:rows]`` (2-D), element by element."""
    for row in range(rows):
        for field in range(source.shape[1]):
            target[row, field] = source[row, field]


@kernel
def resume_matches(workspaces, slot_match, slot_resume, answers, seed, players, seat_strategy,
                   seat_params, max_rounds, secret, seat_export, empty, batch):
    """Advance every match in flight to its next Python decision or its end: many matches, one
    call (:mod:`sim.engine.python_seats`).

    Parameters
    ----------
    workspaces : Workspace
        A stack of one workspace per slot (:func:`core.state.new_workspace_stack`), kept from
        call to call.
    slot_match : int64[W]
        The match each slot plays (-1: none).
    slot_resume : int64[W]
        0: start the slot's match; 1: go on from its decision with ``answers[slot]``.
    answers : int64[W, ANSWER_FIELDS]
        Row ``slot``: the answer to the slot's decision (read when it resumes).
    seed, players, seat_strategy, seat_params, max_rounds, secret
        As :func:`play_match`.
    seat_export : int64[players]
        What a waiting decision of each seat exports into ``batch``: ``EXPORT_VIEW``,
        ``EXPORT_HISTORY`` (the view and the history) or ``EXPORT_SEAT`` (the slot, seat and
        stream only).
    empty : Trace
        A trace with no rows (:func:`untraced`): its ``answers`` are replaced by each slot's.
    batch : DecisionBatch
        Filled: the waiting decisions in slot order, each slot's status and a finished match's
        figures. Each match plays exactly as :func:`resume_match` plays it.

    Returns
    -------
    int64
        How many decisions wait (rows of ``batch.decisions``).
    """
    waiting = 0
    for slot in range(slot_match.shape[0]):
        match = slot_match[slot]
        if match < 0:
            batch.status[slot] = SLOT_IDLE
            continue
        ws = workspace_of(workspaces, slot)
        resume = slot_resume[slot] != 0
        given = answers[slot:slot + 1] if resume else answers[slot:slot]  # a new match: none yet
        trace = Trace(empty.round_rows, empty.round_deals, empty.actions, empty.events, given)
        play_match(ws, trace, seed, match, players, seat_strategy, seat_params, max_rounds, secret,
                   resume)
        if ws.board[BOARD_SUSPENDED] != 0:
            batch.status[slot] = SLOT_DECIDING
            seat = ws.board[BOARD_DECISION_SEAT]
            export = seat_export[seat]
            if export == EXPORT_SEAT:
                batch.decisions[waiting, DECISION_SLOT] = slot
                batch.decisions[waiting, DECISION_SEAT] = seat
                batch.rng[waiting, 0] = ws.rng[seat, 0]
                batch.rng[waiting, 1] = ws.rng[seat, 1]
            else:
                export_decision(ws, batch, waiting, slot, export == EXPORT_HISTORY)
            waiting += 1
        else:
            batch.status[slot] = SLOT_FINISHED
            for field in range(ws.match_totals.shape[0]):
                batch.totals[slot, field] = ws.match_totals[field]
            for entity in range(ws.scores.shape[0]):
                batch.final_scores[slot, entity] = ws.scores[entity]
    return waiting
