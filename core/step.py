"""The one step core: every state change of a round, written once.

Each function here applies one kind of step of a round to a
:class:`core.state.Workspace` and, when the caller gives room, writes it to a
:class:`core.state.Trace`: a draw, a pass, a placement (with its score event
and, on the last tile, the domino settlement), the blocked settlement, and the
round's close and count. Three drivers call them in the order of the rules
(rulings 5-15):

* the engine's round and match loops (:mod:`sim.engine.play`), with the batch's trace;
* the playouts of lookahead strategies (:mod:`strategies.lookahead`), on a scratch
  workspace with an empty trace (:func:`quiet_trace`): nothing is written;
* :class:`sim.bridges.match_state.MatchState` (OpenSpiel, PettingZoo, the human seat),
  one action at a time from Python.

The rules reference (:mod:`sim.reference`) stays apart on purpose: it is the
independent oracle these steps are checked against.

What a step writes
------------------
``ws.round_stats`` (the round's figures, ``R_*``), ``ws.scores``, the hands and the
layout; the public history ``ws.history`` only while ``ws.board[BOARD_KEEP_HISTORY]``
is 1 (a seated strategy reads it, or a driver shows it: most strategies do not, and
writing it costs every action eight stores); ``trace.actions`` and ``trace.events``
while they have room (``ws.cursor`` counts the rows written).

Event outcomes are :data:`core.state.OUTCOME_DISCARDED`,
:data:`~core.state.OUTCOME_ACCEPTED` and :data:`~core.state.OUTCOME_HIT_TARGET`;
round ends are the ``END_*`` codes of :mod:`core.state`.
"""

from __future__ import annotations

import numpy as np

from core.jit import hot_kernel
from core.rules import (blocked_credit, domino_parts, hand_pips, open_layout, place_tile,
    placement_points, rank_blocked_hands)
from core.state import (ACTION_DRAW, ACTION_PASS, ACTION_PLAY, A_JOINED, A_KIND, A_PARENT,
    A_POINTS, A_SEAT, A_SIDE, A_TILE, BOARD_HISTORY, BOARD_KEEP_HISTORY, BOARD_NODES,
    BOARD_OPEN_NODES, BOARD_OPEN_VALUES, BOARD_PLAYED, BOARD_TOTAL, CURSOR_ACTIONS, CURSOR_EVENTS,
    END_BLOCKED, END_DOMINO, END_NONE, END_TARGET, EVENT_BLOCKED, EVENT_DOMINO, EVENT_PLACEMENT,
    E_ACCEPTED, E_ACTION, E_CREDIT, E_DEBIT, E_ENTITY, E_KIND, E_PLACEMENT, E_RAW, E_SEAT,
    H_JOINED, H_KIND, H_OPEN, H_PARENT, H_POINTS, H_SEAT, H_SIDE, H_TILE, MATCH_FIELDS,
    MAX_ENTITIES, MAX_NODES, MAX_PLAYERS, M_ACTIONS, M_BLOCKED_CREDIT, M_BLOCKED_ROUNDS, M_DISCARDED_BY, M_DOMINO_CREDIT,
    M_DOMINO_DEBIT, M_DOMINO_ROUNDS, M_DRAWS, M_EVENTS, M_EVENTS_ACCEPTED, M_EVENTS_DISCARDED,
    M_FIRST_LEADER, M_FIRST_OPENING, M_PASSES, M_PLACEMENTS, M_PLACEMENT_RAW, M_RAW_DISCARDED,
    M_ROUNDS, M_SETTLED_BY, M_WINNER, NODE_ARMS_OPEN, NODE_LINE_OPEN, NO_ENTITY, NO_PARENT, NO_SEAT, NO_TILE, N_ENTITIES,
    OUTCOME_ACCEPTED, OUTCOME_DISCARDED, OUTCOME_HIT_TARGET, R_ACTIONS, R_BLOCKED_CREDIT,
    R_BLOCKED_EVENTS, R_DISCARDED_BY, R_DOMINOER, R_DOMINO_ACCEPTED, R_DOMINO_CREDIT,
    R_DOMINO_DEBIT, R_DOMINO_PLACEMENT, R_DRAWS, R_END, R_EVENTS, R_EVENTS_ACCEPTED,
    R_EVENTS_DISCARDED, R_GAIN, R_LEADER, R_OPENING_POINTS, R_OPENING_TILE, R_PASSES, R_PIPS,
    R_PLACEMENTS, R_PLACEMENT_RAW, R_RAW_DISCARDED, R_SCORE, R_SETTLED_BY, R_WINNER,
    SCRATCH_ORDER, SCRATCH_PIPS, SIDE_NONE, Trace)
from core.tiles import N_VALUES, TARGET_RAW


@hot_kernel
def quiet_trace(ws):
    """A :class:`core.state.Trace` with no room (zero-row views of ``ws.cands``, no
    allocation): the steps write nothing but the workspace (a playout's trace).

    For compiled callers only: returned to Python, a view made without reference counting
    boxes as its parent, ``ws.cands`` itself, which the steps would then write into."""
    empty = ws.cands[:0]
    return Trace(empty, empty, empty, empty, empty)


# ---------------------------------------------------------------------------
# Round start and close
# ---------------------------------------------------------------------------
@hot_kernel
def begin_round(ws, leader):
    """Clear the round's figures, hands and layout before the deal (``leader`` opens).

    The layout is emptied for the opening decision: no view may show the
    previous round's (or match's) layout, total, played tiles or history.
    """
    stats = ws.round_stats
    stats[:] = 0
    stats[R_LEADER] = leader
    stats[R_END] = END_NONE
    stats[R_WINNER] = NO_ENTITY
    stats[R_DOMINOER] = NO_SEAT
    stats[R_DOMINO_ACCEPTED] = -1
    stats[R_OPENING_TILE] = NO_TILE
    ws.hands[:] = 0
    ws.hand_sizes[:] = 0
    ws.lacking[:] = 0
    board = ws.board
    board[BOARD_NODES] = 0
    board[BOARD_TOTAL] = 0
    board[BOARD_OPEN_VALUES] = 0
    board[BOARD_PLAYED] = 0
    board[BOARD_OPEN_NODES] = 0
    board[BOARD_HISTORY] = 0
    for value in range(N_VALUES):
        ws.open_count[value] = 0


@hot_kernel
def close_round(ws, players):
    """Write the scores after the round and each hand's pips left into ``ws.round_stats``."""
    stats = ws.round_stats
    for entity in range(N_ENTITIES[players]):
        stats[R_SCORE + entity] = ws.scores[entity]
    for seat in range(players):
        stats[R_PIPS + seat] = hand_pips(ws.hands[seat])


@hot_kernel
def count_round(ws, players, end, round_index, leader):
    """Add the closed round (``ws.round_stats``, end kind ``end``) to ``ws.match_totals``.

    Returns
    -------
    int64
        The entity at exactly 305 raw (it won the match), or ``NO_ENTITY``.
    """
    stats = ws.round_stats
    totals = ws.match_totals
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
    return totals[M_WINNER]


@hot_kernel
def reset_match(ws):
    """Zero the match's totals and scores (``M_WINNER`` = ``NO_ENTITY``) and the trace cursors."""
    totals = ws.match_totals
    for field in range(MATCH_FIELDS):
        totals[field] = 0
    totals[M_WINNER] = NO_ENTITY
    ws.scores[:] = 0
    ws.cursor[:] = 0


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------
@hot_kernel
def trace_action(ws, trace, seat, kind, tile, joined, parent, side, points, open_before):
    """Count one action of the round, add it to the public history (when kept; ``open_before``:
    the open values when it was taken) and write it to the trace if it has room."""
    ws.round_stats[R_ACTIONS] += 1
    board = ws.board
    if board[BOARD_KEEP_HISTORY] != 0:
        entry = board[BOARD_HISTORY]
        history = ws.history
        history[entry, H_SEAT] = seat
        history[entry, H_KIND] = kind
        history[entry, H_TILE] = tile if kind == ACTION_PLAY else NO_TILE
        history[entry, H_OPEN] = open_before
        history[entry, H_PARENT] = parent
        history[entry, H_SIDE] = side
        history[entry, H_JOINED] = joined
        history[entry, H_POINTS] = points
        board[BOARD_HISTORY] = entry + 1
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
def note_lacking(ws, seat, boneyard_left):
    """Public knowledge of a seat that cannot play (ruling 5): it lacks every open value.

    A seat that draws (``boneyard_left`` > 0) may draw tiles carrying values it lacked
    before, so a draw replaces the old knowledge; a pass adds no tile, so what it
    lacked before it still lacks.
    """
    open_values = ws.board[BOARD_OPEN_VALUES]
    if boneyard_left > 0:
        ws.lacking[seat] = open_values
    else:
        ws.lacking[seat] |= open_values


@hot_kernel
def draw_tile(ws, trace, seat, tile):
    """``seat`` draws ``tile`` from the boneyard (ruling 5; the drawn tile is not public)."""
    ws.hands[seat] |= 1 << tile
    ws.hand_sizes[seat] += 1
    ws.round_stats[R_DRAWS] += 1
    trace_action(ws, trace, seat, ACTION_DRAW, tile, 0, NO_PARENT, SIDE_NONE, 0,
                 ws.board[BOARD_OPEN_VALUES])


@hot_kernel
def pass_turn(ws, trace, seat):
    """``seat`` passes: it cannot play and the boneyard is empty (ruling 5)."""
    ws.round_stats[R_PASSES] += 1
    trace_action(ws, trace, seat, ACTION_PASS, NO_TILE, 0, NO_PARENT, SIDE_NONE, 0,
                 ws.board[BOARD_OPEN_VALUES])


# ---------------------------------------------------------------------------
# Score events and settlements
# ---------------------------------------------------------------------------
@hot_kernel
def apply_event(ws, trace, entity, kind, action, seat, placement, credit, debit, raw):
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


@hot_kernel
def settle_domino(ws, trace, players, entity_of_seat, seat, points):
    """Domino event (ruling 10): final placement + round5(opponents) - round5(partner).

    Returns
    -------
    int64
        ``END_DOMINO`` (whether the event was accepted is ``R_DOMINO_ACCEPTED``; an
        entity at 305 after it has won the match).
    """
    entity = entity_of_seat[seat]
    credit, debit = domino_parts(ws, players, entity_of_seat, seat)
    outcome = apply_event(
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


@hot_kernel
def settle_blocked(ws, trace, players, entity_of_seat, tie_seat):
    """Blocked settlement (rulings 11 and 13).

    Hands are ranked by pip total, ties clockwise from ``tie_seat`` (the round's
    leader in the engine); each earns round5 of its differences to heavier opposing
    hands, one event per hand with a nonzero credit, stopping at the first event
    that reaches 305.

    Returns
    -------
    int64
        ``END_BLOCKED`` (an entity at 305 after it has won the match).
    """
    pips = ws.seat_scratch[SCRATCH_PIPS]
    order = ws.seat_scratch[SCRATCH_ORDER]
    rank_blocked_hands(ws, players, tie_seat, pips, order)
    stats = ws.round_stats
    for rank in range(players):
        seat = order[rank]
        entity = entity_of_seat[seat]
        credit = blocked_credit(players, entity_of_seat, pips, seat)
        if credit == 0:
            continue
        outcome = apply_event(ws, trace, entity, EVENT_BLOCKED, -1, seat, 0, credit, 0, credit)
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


@hot_kernel
def place(ws, trace, players, entity_of_seat, seat, tile, parent, side, joined):
    """``seat`` places ``tile`` (on node ``parent``'s ``side`` at value ``joined``; ``parent``
    ``NO_PARENT``: the opening) and what follows (rulings 6, 9, 10).

    Returns
    -------
    int64
        ``END_DOMINO`` if it was the seat's last tile (settled), ``END_TARGET`` if its
        placement event reached 305, else ``END_NONE``.
    """
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
    if parent == NO_PARENT:
        stats[R_OPENING_TILE] = tile
        stats[R_OPENING_POINTS] = points
    action_index = stats[R_ACTIONS]
    trace_action(ws, trace, seat, ACTION_PLAY, tile, joined, parent, side, points, open_before)
    if ws.hands[seat] == 0:
        return settle_domino(ws, trace, players, entity_of_seat, seat, points)
    if points > 0:
        outcome = apply_event(
            ws, trace, entity_of_seat[seat], EVENT_PLACEMENT, action_index, seat, points, 0, 0, points
        )
        if outcome != OUTCOME_DISCARDED:
            stats[R_PLACEMENT_RAW] += points
        if outcome == OUTCOME_HIT_TARGET:
            stats[R_END] = END_TARGET
            stats[R_WINNER] = NO_ENTITY
            return END_TARGET
    return END_NONE


# ---------------------------------------------------------------------------
# Undo: the inverse of the steps, for searches that play and take back
# ---------------------------------------------------------------------------
# kept[...]: a snapshot row (int64[KEPT_FIELDS]) of what the steps change
KEPT_HANDS = 0
KEPT_SIZES = KEPT_HANDS + MAX_PLAYERS
KEPT_SCORES = KEPT_SIZES + MAX_PLAYERS
KEPT_BOARD = KEPT_SCORES + MAX_ENTITIES
LAYOUT_BOARD = np.array([BOARD_NODES, BOARD_OPEN_NODES, BOARD_OPEN_VALUES, BOARD_PLAYED, BOARD_TOTAL],
                        dtype=np.int64)
"""The board fields a placement writes (:func:`place`: :func:`core.rules.place_tile`,
:func:`core.rules.open_layout`)."""
KEPT_OPEN_COUNT = KEPT_BOARD + LAYOUT_BOARD.shape[0]
KEPT_OPEN_NODES = KEPT_OPEN_COUNT + N_VALUES
KEPT_FIELDS = KEPT_OPEN_NODES + MAX_NODES
"""Words of a snapshot row."""


@hot_kernel
def keep_hands(ws, kept):
    """Keep in ``kept`` the hands, hand sizes and scores: what draws and a settlement change."""
    for seat in range(MAX_PLAYERS):
        kept[KEPT_HANDS + seat] = ws.hands[seat]
        kept[KEPT_SIZES + seat] = ws.hand_sizes[seat]
    for entity in range(MAX_ENTITIES):
        kept[KEPT_SCORES + entity] = ws.scores[entity]


@hot_kernel
def restore_hands(ws, kept):
    """Undo what :func:`keep_hands` kept."""
    for seat in range(MAX_PLAYERS):
        ws.hands[seat] = kept[KEPT_HANDS + seat]
        ws.hand_sizes[seat] = kept[KEPT_SIZES + seat]
    for entity in range(MAX_ENTITIES):
        ws.scores[entity] = kept[KEPT_SCORES + entity]


@hot_kernel
def keep_position(ws, kept):
    """Keep in ``kept`` what a placement may change besides node rows: :func:`keep_hands`'s,
    the layout's board fields (:data:`LAYOUT_BOARD`), the open counts and the open-node list.
    A placement writes one node row past the layout and its parent's two open fields:
    :func:`take_back` restores those from what the caller read before it."""
    keep_hands(ws, kept)
    for k in range(LAYOUT_BOARD.shape[0]):
        kept[KEPT_BOARD + k] = ws.board[LAYOUT_BOARD[k]]
    for value in range(N_VALUES):
        kept[KEPT_OPEN_COUNT + value] = ws.open_count[value]
    for position in range(ws.board[BOARD_OPEN_NODES]):
        kept[KEPT_OPEN_NODES + position] = ws.open_nodes[position]


@hot_kernel
def restore_position(ws, kept):
    """Undo what :func:`keep_position` kept (not the parent's open fields: :func:`take_back`)."""
    restore_hands(ws, kept)
    for k in range(LAYOUT_BOARD.shape[0]):
        ws.board[LAYOUT_BOARD[k]] = kept[KEPT_BOARD + k]
    for value in range(N_VALUES):
        ws.open_count[value] = kept[KEPT_OPEN_COUNT + value]
    for position in range(ws.board[BOARD_OPEN_NODES]):
        ws.open_nodes[position] = kept[KEPT_OPEN_NODES + position]


@hot_kernel
def take_back(ws, kept, parent, line_open, arms_open):
    """Take back a placement on ``parent``: the position ``kept`` before it
    (:func:`keep_position`), and the parent node's ``NODE_LINE_OPEN`` and ``NODE_ARMS_OPEN`` as
    they were (``parent`` ``NO_PARENT``: the opening, which has no parent)."""
    restore_position(ws, kept)
    if parent != NO_PARENT:
        ws.nodes[parent, NODE_LINE_OPEN] = line_open
        ws.nodes[parent, NODE_ARMS_OPEN] = arms_open


@hot_kernel
def copy_position(source, target):
    """Copy the position of workspace ``source`` into ``target``: hands, hand sizes, scores and
    the layout (node rows, open counts, open nodes, :data:`LAYOUT_BOARD`) (a playout's start)."""
    for seat in range(MAX_PLAYERS):
        target.hands[seat] = source.hands[seat]
        target.hand_sizes[seat] = source.hand_sizes[seat]
    for entity in range(MAX_ENTITIES):
        target.scores[entity] = source.scores[entity]
    for node in range(source.board[BOARD_NODES]):
        for field in range(source.nodes.shape[1]):
            target.nodes[node, field] = source.nodes[node, field]
    for value in range(N_VALUES):
        target.open_count[value] = source.open_count[value]
    for position in range(source.board[BOARD_OPEN_NODES]):
        target.open_nodes[position] = source.open_nodes[position]
    for k in range(LAYOUT_BOARD.shape[0]):
        target.board[LAYOUT_BOARD[k]] = source.board[LAYOUT_BOARD[k]]
