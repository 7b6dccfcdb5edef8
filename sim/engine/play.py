"""Round, match and batch loops of the Numba engine.

The state these loops mutate is described in :mod:`sim.core.state` (the state
contract); this module applies the turn, settlement and event rules to it and
fills the caller's preallocated result arrays.

Strategies are handed in, never imported
----------------------------------------
This module is a *template*: its kernels reach strategies only through
:func:`choose_placement` (``slot``, :class:`sim.core.state.PlayerView`), a
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
    Row ``i`` = match ``first_match + i``; columns ``M_*`` of :mod:`sim.core.state`.
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

from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.jit import hot_kernel, kernel
from sim.core.state import (ACTION_DRAW, ACTION_FIELDS, ACTION_PASS, ACTION_PLAY, ANSWER_CHOICE,
    ANSWER_RNG_COUNTER, A_JOINED, A_KIND, A_PARENT, A_POINTS, A_SEAT, A_SIDE, A_TILE,
    BOARD_DECIDING, BOARD_DECISION_BONEYARD, BOARD_DECISION_COUNT, BOARD_DECISION_SEAT, BOARD_ERROR,
    BOARD_ERROR_COUNT, BOARD_ERROR_ROW, BOARD_ERROR_SEAT, BOARD_NODES,
    BOARD_HISTORY, BOARD_OPEN_NODES, BOARD_OPEN_VALUES, BOARD_PLAYED, BOARD_SUSPENDED, BOARD_TOTAL, CAND_JOINED,
    CAND_PARENT, CAND_SIDE, CAND_TILE, CURSOR_ACTIONS, CURSOR_ANSWERS, CURSOR_EVENTS,
    CURSOR_ROUNDS, END_BLOCKED, END_DOMINO, END_NONE, END_SUSPENDED, END_TARGET, ENTITY_OF_SEAT,
    EVENT_BLOCKED, EVENT_DOMINO, EVENT_FIELDS, EVENT_PLACEMENT, EXTERNAL_SEAT, E_ACCEPTED,
    E_ACTION, E_CREDIT, E_DEBIT, E_ENTITY, E_KIND, E_PLACEMENT, E_RAW, E_SEAT, H_JOINED, H_KIND,
    H_OPEN, H_PARENT, H_POINTS, H_SEAT, H_SIDE, H_TILE, INVALID_CHOICE,
    MATCH_FIELDS, MAX_ENTITIES, M_ACTIONS, M_BLOCKED_CREDIT, M_BLOCKED_ROUNDS, M_DISCARDED_BY,
    M_DOMINO_CREDIT, M_DOMINO_DEBIT, M_DOMINO_ROUNDS, M_DRAWS, M_ERROR, M_EVENTS,
    M_EVENTS_ACCEPTED, M_EVENTS_DISCARDED, M_FIRST_LEADER, M_FIRST_OPENING, M_PASSES, M_PLACEMENTS,
    M_PLACEMENT_RAW, M_RAW_DISCARDED, M_ROUNDS, M_SETTLED_BY, M_WINNER, NO_ENTITY, NO_PARENT,
    NO_SEAT, NO_TILE, N_ENTITIES, ROUND_FIELDS, R_ACTIONS, R_BLOCKED_CREDIT, R_BLOCKED_EVENTS,
    R_DISCARDED_BY, R_DOMINOER, R_DOMINO_ACCEPTED, R_DOMINO_CREDIT, R_DOMINO_DEBIT,
    R_DOMINO_PLACEMENT, R_DRAWS, R_END, R_EVENTS, R_EVENTS_ACCEPTED, R_EVENTS_DISCARDED, R_GAIN,
    R_LEADER, R_OPENING_POINTS, R_OPENING_TILE, R_PASSES, R_PIPS, R_PLACEMENTS, R_PLACEMENT_RAW,
    R_RAW_DISCARDED, R_SCORE, R_SETTLED_BY, R_WINNER, SCRATCH_ORDER, SCRATCH_PIPS, SIDE_NONE,
    PlayerView, new_workspace)
from sim.core.rules import (blocked_credit, domino_parts, hand_pips, list_openings,
    list_placements, no_hand_can_play, open_layout, place_tile, placement_points, playable_tiles,
    rank_blocked_hands)
from sim.core.rng import (DEAL_WORDS_PER_ROUND, LOT_WORD, SEAT_SALT, STREAM_DEAL, below,
    match_decision_key, one_way, seat_decision_key, secret_key, shuffle_round_deal, stream_key,
    word_at)
from sim.core.sealed import read_only
from sim.tiles import HAND_SIZE, N_TILES, N_VALUES, TARGET_RAW

Trace = namedtuple("Trace", ["round_rows", "round_deals", "actions", "events", "answers"])
Trace.__doc__ = """One match's trace arrays (possibly empty: nothing is written).

round_rows : int32[R, ROUND_FIELDS]; round_deals : int8[R, 28];
actions : int16[A, ACTION_FIELDS]; events : int32[E, EVENT_FIELDS];
answers : int64[D, ANSWER_FIELDS], the Python seats' recorded choices (input).
"""


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
    "_decide",
    "play_dealt_round",
    "play_round",
    "play_match",
    "simulate_batch",
    "resume_match",
)
"""The kernels that reach a strategy: :mod:`sim.engine.kernel_sets` compiles a copy of
them per set of strategies."""

OUTCOME_DISCARDED = 0
"""The event would have passed 305: score unchanged."""
OUTCOME_ACCEPTED = 1
"""The event was applied."""
OUTCOME_HIT_TARGET = 2
"""The event was applied and its entity now has exactly 305: the match ends."""


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


@hot_kernel
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


@hot_kernel
def seat_view(ws, seat, players, entity_of_seat, params, n_candidates, boneyard_size, shown_hands,
              shown_boneyard):
    """The sealed :class:`PlayerView` of ``seat``'s decision in hand (see its docstring).

    Every array is read-only (:func:`sim.core.sealed.read_only`) except the
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
    board[BOARD_DECISION_SEAT] = seat
    if strategy == EXTERNAL_SEAT:
        board[BOARD_DECISION_COUNT] = n_candidates
        board[BOARD_DECISION_BONEYARD] = boneyard_size
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


@hot_kernel
def start_seat_streams(ws, players, key, secret):
    """Give every seat its own decision stream derived one-way from ``key`` keyed by the run
    ``secret`` (uint64[2], 0: none) (study kernels, whose streams are not a match's;
    :func:`play_match` uses :func:`sim.core.rng.sealed_decision_key`)."""
    keyed = secret_key(key, secret)
    for seat in range(players):
        ws.rng[seat, 0] = one_way(keyed, np.uint64(seat + 1) * SEAT_SALT)
        ws.rng[seat, 1] = 0


# ---------------------------------------------------------------------------
# Trace and events
# ---------------------------------------------------------------------------
@hot_kernel
def _trace_action(ws, trace, seat, kind, tile, joined, parent, side, points, open_before):
    """Count one action of the round, add it to the public history (``open_before``: the
    open values when it was taken) and write it to the trace if it has room."""
    ws.round_stats[R_ACTIONS] += 1
    entry = ws.board[BOARD_HISTORY]
    history = ws.history
    history[entry, H_SEAT] = seat
    history[entry, H_KIND] = kind
    history[entry, H_TILE] = tile if kind == ACTION_PLAY else NO_TILE
    history[entry, H_OPEN] = open_before
    history[entry, H_PARENT] = parent
    history[entry, H_SIDE] = side
    history[entry, H_JOINED] = joined
    history[entry, H_POINTS] = points
    ws.board[BOARD_HISTORY] = entry + 1
    row = ws.cursor[CURSOR_ACTIONS]
    actions = trace.actions
    if row < actions.shape[0]:
        actions[row, A_SEAT] = seat
        actions[row, A_KIND] = kind
        actions[row, A_TILE] = tile
        actions[row, A_JOINED] = joined
        actions[row, A_PARENT] = parent
        actions[row, A_SIDE] = side
        actions[row, A_POINTS] = points
        ws.cursor[CURSOR_ACTIONS] = row + 1


@hot_kernel
def _apply_event(ws, trace, entity, kind, action, seat, placement, credit, debit, raw):
    """Target-test one score event, apply it if accepted, count and trace it (ruling 8).

    Returns
    -------
    int64
        ``OUTCOME_DISCARDED``, ``OUTCOME_ACCEPTED`` or ``OUTCOME_HIT_TARGET``.
    """
    scores = ws.scores
    stats = ws.round_stats
    accepted = scores[entity] + raw <= TARGET_RAW
    if accepted:
        scores[entity] += raw
        stats[R_EVENTS_ACCEPTED] += 1
        stats[R_GAIN + entity] += raw
        if kind == EVENT_DOMINO:
            stats[R_SETTLED_BY + entity] += credit - debit
        elif kind == EVENT_BLOCKED:
            stats[R_SETTLED_BY + entity] += raw
    else:
        stats[R_EVENTS_DISCARDED] += 1
        stats[R_RAW_DISCARDED] += raw
        stats[R_DISCARDED_BY + entity] += 1
    stats[R_EVENTS] += 1
    row = ws.cursor[CURSOR_EVENTS]
    events = trace.events
    if row < events.shape[0]:
        events[row, E_ENTITY] = entity
        events[row, E_KIND] = kind
        events[row, E_ACTION] = action
        events[row, E_SEAT] = seat
        events[row, E_PLACEMENT] = placement
        events[row, E_CREDIT] = credit
        events[row, E_DEBIT] = debit
        events[row, E_RAW] = raw
        events[row, E_ACCEPTED] = 1 if accepted else 0
        ws.cursor[CURSOR_EVENTS] = row + 1
    if not accepted:
        return OUTCOME_DISCARDED
    if scores[entity] == TARGET_RAW:
        return OUTCOME_HIT_TARGET
    return OUTCOME_ACCEPTED


# ---------------------------------------------------------------------------
# Settlements
# ---------------------------------------------------------------------------
@kernel
def _settle_domino(ws, trace, players, entity_of_seat, seat, points):
    """Domino event (ruling 10): final placement + round5(opponents) - round5(partner)."""
    entity = entity_of_seat[seat]
    credit, debit = domino_parts(ws, players, entity_of_seat, seat)
    outcome = _apply_event(
        ws, trace, entity, EVENT_DOMINO, -1, seat, points, credit, debit, points + credit - debit
    )
    stats = ws.round_stats
    stats[R_DOMINO_PLACEMENT] = points
    stats[R_DOMINO_CREDIT] = credit
    stats[R_DOMINO_DEBIT] = debit
    stats[R_DOMINO_ACCEPTED] = 0 if outcome == OUTCOME_DISCARDED else 1
    stats[R_END] = END_DOMINO
    stats[R_WINNER] = entity
    stats[R_DOMINOER] = seat
    return END_DOMINO


@kernel
def _settle_blocked(ws, trace, players, entity_of_seat, leader):
    """Blocked settlement (rulings 11 and 13).

    Hands are ranked by pip total, ties clockwise from the leader; each earns
    round5 of its differences to heavier opposing hands, one event per hand
    with a nonzero credit, stopping at the first event that reaches 305.
    """
    pips = ws.seat_scratch[SCRATCH_PIPS]
    order = ws.seat_scratch[SCRATCH_ORDER]
    rank_blocked_hands(ws, players, leader, pips, order)
    stats = ws.round_stats
    for rank in range(players):
        seat = order[rank]
        entity = entity_of_seat[seat]
        credit = blocked_credit(players, entity_of_seat, pips, seat)
        if credit == 0:
            continue
        outcome = _apply_event(ws, trace, entity, EVENT_BLOCKED, -1, seat, 0, credit, 0, credit)
        stats[R_BLOCKED_EVENTS] += 1
        if outcome != OUTCOME_DISCARDED:
            stats[R_BLOCKED_CREDIT] += credit
        if outcome == OUTCOME_HIT_TARGET:
            break
    lightest = order[0]
    winner = entity_of_seat[lightest]
    for seat in range(players):
        if pips[seat] == pips[lightest] and entity_of_seat[seat] != winner:
            winner = NO_ENTITY  # lightest total shared across opposing entities
    stats[R_END] = END_BLOCKED
    stats[R_WINNER] = winner
    return END_BLOCKED


# ---------------------------------------------------------------------------
# Turns and rounds
# ---------------------------------------------------------------------------
@hot_kernel
def _play_candidate(ws, trace, players, entity_of_seat, seat, choice):
    """Place candidate ``choice`` for ``seat`` and apply what follows (rulings 6, 9, 10).

    Returns
    -------
    int64
        ``END_DOMINO`` if it was the seat's last tile, ``END_TARGET`` if its
        placement event reached 305, else ``END_NONE``.
    """
    cands = ws.cands
    tile = cands[choice, CAND_TILE]
    parent = cands[choice, CAND_PARENT]
    side = cands[choice, CAND_SIDE]
    joined = cands[choice, CAND_JOINED]
    open_before = ws.board[BOARD_OPEN_VALUES]
    if parent == NO_PARENT:
        total = open_layout(ws, tile)
    else:
        total = place_tile(ws, tile, parent, side, joined)
    points = placement_points(total)
    ws.hands[seat] &= ~(1 << tile)
    ws.hand_sizes[seat] -= 1
    stats = ws.round_stats
    stats[R_PLACEMENTS] += 1
    action_index = stats[R_ACTIONS]
    _trace_action(ws, trace, seat, ACTION_PLAY, tile, joined, parent, side, points, open_before)
    if ws.hands[seat] == 0:
        return _settle_domino(ws, trace, players, entity_of_seat, seat, points)
    if points > 0:
        outcome = _apply_event(
            ws, trace, entity_of_seat[seat], EVENT_PLACEMENT, action_index, seat, points, 0, 0, points
        )
        if outcome != OUTCOME_DISCARDED:
            stats[R_PLACEMENT_RAW] += points
        if outcome == OUTCOME_HIT_TARGET:
            stats[R_END] = END_TARGET
            stats[R_WINNER] = NO_ENTITY
            return END_TARGET
    return END_NONE


@kernel
def play_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params, deal_key, round_index, leader):
    """Deal and play one round to its end; ``ws.round_stats`` holds its figures.

    Parameters
    ----------
    ws : Workspace
    trace : Trace
    players : int64
    entity_of_seat : int64[players]
    seat_strategy : int64[players]
        Strategy slot per seat (``EXTERNAL_SEAT`` for a Python seat).
    seat_params : float64[players, P]
        Strategy parameters per seat.
    deal_key : uint64
        The match's deal-stream key.
    round_index : int64
        0-based; selects the deal-stream counters of this round.
    leader : int64
        Seat that opens.

    Returns
    -------
    int64
        End kind: ``END_DOMINO``, ``END_BLOCKED`` or ``END_TARGET``
        (``END_SUSPENDED``: stopped at a Python seat's unanswered decision).
    """
    deal = ws.deal
    shuffle_round_deal(deal_key, round_index, deal)
    deal_row = ws.cursor[CURSOR_ROUNDS]
    if deal_row < trace.round_deals.shape[0]:
        for k in range(N_TILES):
            trace.round_deals[deal_row, k] = deal[k]
    end = play_dealt_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params, leader,
                           NO_TILE)
    if end == END_SUSPENDED:
        return end
    row = ws.cursor[CURSOR_ROUNDS]
    if row < trace.round_rows.shape[0]:
        stats = ws.round_stats
        for field in range(ROUND_FIELDS):
            trace.round_rows[row, field] = stats[field]
        ws.cursor[CURSOR_ROUNDS] = row + 1
    return end


@kernel
def play_dealt_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params, leader,
                     forced_tile):
    """Play one round from the deal in ``ws.deal`` (seat ``s``'s hand at ``[5s:5s+5]``, then
    the boneyard in draw order) to its end: the one turn loop of the engine.

    :func:`play_round` shuffles and calls it; the study kernels
    (:mod:`sim.engine.playouts`) call it with deals of their own and, for
    forced openings, ``forced_tile``. ``ws.scores`` and the decision stream
    ``ws.rng`` are used as they are.

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
    stats = ws.round_stats
    stats[:] = 0
    stats[R_LEADER] = leader
    stats[R_END] = END_NONE
    stats[R_WINNER] = NO_ENTITY
    stats[R_DOMINOER] = NO_SEAT
    stats[R_DOMINO_ACCEPTED] = -1
    stats[R_OPENING_TILE] = NO_TILE

    deal = ws.deal
    for seat in range(players):
        hand = 0
        for k in range(HAND_SIZE):
            hand |= 1 << deal[seat * HAND_SIZE + k]
        ws.hands[seat] = hand
        ws.hand_sizes[seat] = HAND_SIZE
        ws.lacking[seat] = 0
    # An empty layout for the opening decision: the view must not show the
    # previous round's (or match's) layout, total or played tiles.
    board = ws.board
    board[BOARD_NODES] = 0
    board[BOARD_TOTAL] = 0
    board[BOARD_OPEN_VALUES] = 0
    board[BOARD_PLAYED] = 0
    board[BOARD_OPEN_NODES] = 0
    board[BOARD_HISTORY] = 0
    for value in range(N_VALUES):
        ws.open_count[value] = 0
    next_draw = players * HAND_SIZE

    # One turn per iteration; every placement (opening, play, drawn tile) goes
    # through the single decision site below, which keeps the compiled round
    # small: strategies are inlined once, not once per kind of turn.
    seat = leader
    end = END_NONE
    opening = True
    while True:
        if opening:
            # The leader opens with any tile of the hand (its strategy chooses).
            count = list_openings(ws, ws.hands[seat])
        else:
            playable = ws.hands[seat] & playable_tiles(ws)
            if playable != 0:
                count = list_placements(ws, playable)
            else:
                count = 0
                # Ruling 5: draw until a playable tile, then place it; pass if none.
                open_values = ws.board[BOARD_OPEN_VALUES]
                if next_draw < N_TILES:
                    # Public knowledge: a seat that draws lacks every open value.
                    # Its drawn tiles stay unseen and may carry values it lacked
                    # before, so a draw replaces the old knowledge (as the
                    # reference does).
                    ws.lacking[seat] = open_values
                else:
                    # A pass adds no tile: what the seat lacked before it still lacks.
                    ws.lacking[seat] |= open_values
                while next_draw < N_TILES:
                    tile = deal[next_draw]
                    next_draw += 1
                    ws.hands[seat] |= 1 << tile
                    ws.hand_sizes[seat] += 1
                    stats[R_DRAWS] += 1
                    _trace_action(ws, trace, seat, ACTION_DRAW, tile, 0, NO_PARENT, SIDE_NONE, 0,
                                  open_values)
                    if (1 << tile) & playable_tiles(ws):
                        count = list_placements(ws, 1 << tile)
                        break
                if count == 0:
                    stats[R_PASSES] += 1
                    _trace_action(ws, trace, seat, ACTION_PASS, NO_TILE, 0, NO_PARENT, SIDE_NONE, 0,
                                  open_values)
        if count > 0:
            if opening and forced_tile >= 0:
                # A study forces the opening tile (list_openings gives one row per tile).
                choice = 0
                for c in range(count):
                    if ws.cands[c, CAND_TILE] == forced_tile:
                        choice = c
            else:
                choice = _decide(
                    ws, trace, seat, players, entity_of_seat, seat_strategy, seat_params, count,
                    N_TILES - next_draw,
                )
                if ws.board[BOARD_SUSPENDED] != 0:
                    return END_SUSPENDED  # a Python seat must choose: Python takes over
            end = _play_candidate(ws, trace, players, entity_of_seat, seat, choice)
            if opening:
                stats[R_OPENING_TILE] = ws.cands[choice, CAND_TILE]
                stats[R_OPENING_POINTS] = placement_points(ws.board[BOARD_TOTAL])
                opening = False
        if end != END_NONE:
            break
        # Ruling 6: with the boneyard empty and nobody able to play, block at once.
        if next_draw == N_TILES and no_hand_can_play(ws, players):
            end = _settle_blocked(ws, trace, players, entity_of_seat, leader)
            break
        seat = (seat + 1) % players

    for entity in range(N_ENTITIES[players]):
        stats[R_SCORE + entity] = ws.scores[entity]
    for seat in range(players):
        stats[R_PIPS + seat] = hand_pips(ws.hands[seat])
    return end


@kernel
def play_match(ws, trace, seed, match, players, seat_strategy, seat_params, max_rounds, secret):
    """Play match ``match`` of ``seed`` to 305 or ``max_rounds``; figures in ``ws.match_totals``.

    The match depends only on ``(seed, match)``, the run ``secret`` (uint64[2];
    0 without ``--sealed``) and the strategies: the deal and lot of round ``r``
    come from deal-stream words reserved for ``r`` (the seed alone), and
    decisions from each seat's own decision stream (keyed by the secret).
    Stops early, with ``BOARD_SUSPENDED`` set, at a Python seat's decision
    that ``trace.answers`` does not answer.
    """
    entity_of_seat = ENTITY_OF_SEAT[players, :players]
    totals = ws.match_totals
    totals[:] = 0
    totals[M_WINNER] = NO_ENTITY
    ws.scores[:] = 0
    ws.cursor[:] = 0
    ws.board[BOARD_ERROR] = 0
    ws.board[BOARD_SUSPENDED] = 0
    ws.board[BOARD_DECIDING] = 0
    deal_key = stream_key(seed, match, STREAM_DEAL)
    match_key = match_decision_key(seed, match, secret)
    for seat in range(players):
        ws.rng[seat, 0] = seat_decision_key(match_key, seat)  # = sealed_decision_key(seed, match, seat, secret)
        ws.rng[seat, 1] = 0
    stats = ws.round_stats
    end = END_BLOCKED
    leader = 0
    for round_index in range(max_rounds):
        if end == END_BLOCKED:
            # Ruling 14: first leader and leader after a block by uniform lot.
            leader = below(word_at(deal_key, round_index * DEAL_WORDS_PER_ROUND + LOT_WORD), players)
        else:
            leader = stats[R_DOMINOER]
        end = play_round(
            ws, trace, players, entity_of_seat, seat_strategy, seat_params, deal_key, round_index, leader
        )
        if end == END_SUSPENDED:
            return
        if round_index == 0:
            totals[M_FIRST_LEADER] = leader
            totals[M_FIRST_OPENING] = stats[R_OPENING_TILE]
        totals[M_ROUNDS] += 1
        totals[M_PLACEMENTS] += stats[R_PLACEMENTS]
        totals[M_DRAWS] += stats[R_DRAWS]
        totals[M_PASSES] += stats[R_PASSES]
        totals[M_ACTIONS] += stats[R_ACTIONS]
        totals[M_EVENTS] += stats[R_EVENTS]
        totals[M_EVENTS_ACCEPTED] += stats[R_EVENTS_ACCEPTED]
        totals[M_EVENTS_DISCARDED] += stats[R_EVENTS_DISCARDED]
        totals[M_RAW_DISCARDED] += stats[R_RAW_DISCARDED]
        totals[M_PLACEMENT_RAW] += stats[R_PLACEMENT_RAW]
        totals[M_BLOCKED_CREDIT] += stats[R_BLOCKED_CREDIT]
        if end == END_DOMINO:
            totals[M_DOMINO_ROUNDS] += 1
            if stats[R_DOMINO_ACCEPTED] == 1:
                totals[M_PLACEMENT_RAW] += stats[R_DOMINO_PLACEMENT]
                totals[M_DOMINO_CREDIT] += stats[R_DOMINO_CREDIT]
                totals[M_DOMINO_DEBIT] += stats[R_DOMINO_DEBIT]
        elif end == END_BLOCKED:
            totals[M_BLOCKED_ROUNDS] += 1
        for entity in range(MAX_ENTITIES):
            totals[M_DISCARDED_BY + entity] += stats[R_DISCARDED_BY + entity]
            totals[M_SETTLED_BY + entity] += stats[R_SETTLED_BY + entity]
        for entity in range(N_ENTITIES[players]):
            if ws.scores[entity] == TARGET_RAW:
                totals[M_WINNER] = entity
        if totals[M_WINNER] != NO_ENTITY:
            break
    totals[M_ERROR] = ws.board[BOARD_ERROR]


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
        The run secret keying the decision streams (:data:`sim.core.rng.NO_SECRET`: none).

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
                   secret)
        for field in range(MATCH_FIELDS):
            match_stats[row, field] = ws.match_totals[field]
        if ws.board[BOARD_SUSPENDED] != 0:
            match_stats[row, M_ERROR] = UNANSWERED_ERROR
        for entity in range(match_scores.shape[1]):
            match_scores[row, entity] = ws.scores[entity]


@njit(cache=True)
def resume_match(ws, answers, seed, match, players, seat_strategy, seat_params, max_rounds, secret):
    """Replay match ``match`` with the Python seats' ``answers`` until it ends or needs another.

    Parameters
    ----------
    ws : Workspace
        Allocated by the caller (:func:`sim.core.state.new_workspace`); read
        after the call: the match's figures, or the decision in hand.
    answers : int64[D, ANSWER_FIELDS]
        The Python seats' choices so far, in the order they were asked.
    seed, match, players, seat_strategy, seat_params, max_rounds, secret
        As :func:`play_match`.

    Returns
    -------
    bool
        True when the match stopped at a Python seat's decision: ``ws``
        holds that decision (``BOARD_DECISION_*``, ``cands``, the layout and
        the seat's stream).
    """
    play_match(ws, untraced(answers), seed, match, players, seat_strategy, seat_params, max_rounds,
               secret)
    return ws.board[BOARD_SUSPENDED] != 0
