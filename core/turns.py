"""The one turn driver: a round carried from one decision to the next, written once.

Every consumer of the rules drives rounds with these functions and never calls a turn's
steps itself: the engine's round loop (:mod:`sim.engine.play`), the playouts of lookahead
strategies (:mod:`strategies.lookahead`), the perfect-information solver
(:mod:`strategies.perfect_solver`, which takes its placements back with the step core's
inverse, :func:`core.step.take_back`), and :class:`sim.bridges.match_state.MatchState` (OpenSpiel, PettingZoo,
the human game). The rules reference (:mod:`sim.reference`) and the verifier stay apart on
purpose: they are the independent oracle.

The driver's position lives in the workspace's board (:mod:`core.state`):

``BOARD_TURN_SEAT``
    The seat in turn: at a decision, the deciding seat; waiting for a draw, the seat that draws.
``BOARD_NEXT_DRAW``
    The draw pointer: the boneyard is ``ws.deal[next_draw:]`` in draw order.
``BOARD_TIE_SEAT``
    The blocked settlement's first seat (ruling 13).
``BOARD_DRAW_STOPS``
    1: stop before each draw (the caller fixes the drawn tile at ``ws.deal[next_draw]``, a
    chance outcome, then calls :func:`advance_draw`); 0: draw from ``ws.deal`` at once.
``BOARD_DECISION_SEAT``, ``BOARD_DECISION_COUNT``, ``BOARD_DECISION_BONEYARD``
    At a decision: its seat, its candidates (rows of ``ws.cands``) and the tiles left to draw.
    ``BOARD_DECISION_COUNT`` is 0 while a draw is awaited.

The compiled entries (:func:`advance`, the one the engine's round loop calls; :func:`advance_draw`,
:func:`take_turn`, :func:`blocked_now`) are linked kernels (:mod:`core.jit`), and so is
each step they take (:mod:`core.linked_steps`): typed and compiled once, inlined by LLVM into
their callers' machine code, so the engine's kernel sets, the playouts and the solver share one
compile of the driver. The helpers between them are inlined at Numba-IR level: a chain of
linked functions would be optimised again at each level.

Each entry point returns the round's end kind: ``END_NONE`` while the round waits (a decision,
or with draw stops a draw), else ``END_DOMINO``, ``END_BLOCKED`` or ``END_TARGET`` (scored and
settled: :mod:`core.step`).
"""

from __future__ import annotations

from core.jit import hot_kernel, linked_kernel
from core.linked_steps import (draw_tile, list_openings, list_placements, no_hand_can_play,
    note_lacking, pass_turn, place, settle_blocked)
from core.rules import playable_tiles
from core.state import (BOARD_DECISION_BONEYARD, BOARD_DECISION_COUNT, BOARD_DECISION_SEAT,
    BOARD_DRAW_STOPS, BOARD_NEXT_DRAW, BOARD_NODES, BOARD_TIE_SEAT, BOARD_TURN_SEAT, CAND_JOINED,
    CAND_PARENT, CAND_SIDE, CAND_TILE, END_NONE)
from core.tiles import N_TILES

TURN_STARTS = 0
"""A turn begins: the seat lists its placements (its opening on an empty layout)."""
TURN_DRAWS = 1
"""The seat in turn has no placement: it draws (ruling 5), or passes with the boneyard empty."""
TURN_OVER = 2
"""The seat's turn ended without ending the round: ruling 6, then the next seat."""

START_TURN = -1
""":func:`advance`'s ``row`` that starts the turn of the seat in turn instead of placing."""


# ---------------------------------------------------------------------------
# One turn's parts
# ---------------------------------------------------------------------------
@hot_kernel
def list_turn(ws, seat):
    """List ``seat``'s placements into ``ws.cands`` without drawing: its openings on an empty
    layout, else the placements of its playable tiles. Returns their count (0: it must draw
    or pass)."""
    if ws.board[BOARD_NODES] == 0:
        return list_openings(ws, ws.hands[seat])
    playable = ws.hands[seat] & playable_tiles(ws)
    if playable == 0:
        return 0
    return list_placements(ws, playable)


@hot_kernel
def draw_one(ws, trace, seat, next_draw):
    """``seat``, without a placement, draws ``ws.deal[next_draw]`` (ruling 5; the boneyard is not
    empty). Its lack of every open value is public first (:func:`core.step.note_lacking`;
    each draw of a turn notes the same values). Returns the count of the drawn tile's
    placements listed into ``ws.cands`` (0: it draws again, or passes)."""
    note_lacking(ws, seat, N_TILES - next_draw)
    tile = ws.deal[next_draw]
    draw_tile(ws, trace, seat, tile)
    if (1 << tile) & playable_tiles(ws):
        return list_placements(ws, 1 << tile)
    return 0


@hot_kernel
def draw_or_pass(ws, trace, seat, next_draw):
    """``seat``, without a placement, draws from ``ws.deal`` until a playable tile, or passes
    when the boneyard runs out (ruling 5).

    Returns
    -------
    (int64, int64)
        The count of the drawn tile's placements listed into ``ws.cands`` (0: the seat passed)
        and the draw pointer after its draws.
    """
    count = 0
    while count == 0 and next_draw < N_TILES:
        count = draw_one(ws, trace, seat, next_draw)
        next_draw += 1
    if count == 0:
        note_lacking(ws, seat, 0)  # after draws a no-op: the same open values
        pass_turn(ws, trace, seat)
    return count, next_draw


@linked_kernel
def take_turn(ws, trace, seat, next_draw):
    """``seat``'s whole turn up to its placement: list, else draw or pass (:func:`draw_or_pass`).

    Returns
    -------
    (int64, int64)
        The count of placements listed into ``ws.cands`` (0: the seat passed) and the draw
        pointer after its draws.
    """
    count = list_turn(ws, seat)
    if count == 0:
        return draw_or_pass(ws, trace, seat, next_draw)
    return count, next_draw


@hot_kernel
def settle_if_blocked(ws, trace, players, entity_of_seat, next_draw, tie_seat):
    """Ruling 6 after a turn that did not end the round: with the boneyard empty and no hand able
    to play, the round is blocked and settled at once (rulings 11, 13). Returns ``END_BLOCKED``
    or ``END_NONE``."""
    if next_draw == N_TILES and no_hand_can_play(ws, players):
        return settle_blocked(ws, trace, players, entity_of_seat, tie_seat)
    return END_NONE


@linked_kernel
def blocked_now(ws, trace, players, entity_of_seat, next_draw, tie_seat):
    """:func:`settle_if_blocked`, for a search that drives its turns itself (the round solver)."""
    return settle_if_blocked(ws, trace, players, entity_of_seat, next_draw, tie_seat)


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------
@hot_kernel
def wait_decision(ws, seat, next_draw, count):
    """Stop the driver at ``seat``'s decision over ``ws.cands[:count]`` with the boneyard
    ``ws.deal[next_draw:]``. Returns ``END_NONE``."""
    board = ws.board
    board[BOARD_TURN_SEAT] = seat
    board[BOARD_NEXT_DRAW] = next_draw
    board[BOARD_DECISION_SEAT] = seat
    board[BOARD_DECISION_COUNT] = count
    board[BOARD_DECISION_BONEYARD] = N_TILES - next_draw
    return END_NONE


@hot_kernel
def run_turns(ws, trace, players, entity_of_seat, seat, next_draw, phase):
    """Carry the round from ``seat``'s turn at ``phase`` (``TURN_*``) to its next stop: a
    decision, a draw (with draw stops) or the round's end. Returns the end kind."""
    board = ws.board
    tie_seat = board[BOARD_TIE_SEAT]
    while True:
        count = 0
        if phase == TURN_STARTS:
            count = list_turn(ws, seat)
            if count == 0:
                phase = TURN_DRAWS
        if phase == TURN_DRAWS:
            if next_draw < N_TILES and board[BOARD_DRAW_STOPS] != 0:
                board[BOARD_TURN_SEAT] = seat
                board[BOARD_NEXT_DRAW] = next_draw
                board[BOARD_DECISION_COUNT] = 0
                return END_NONE
            count, next_draw = draw_or_pass(ws, trace, seat, next_draw)
        if count > 0:
            return wait_decision(ws, seat, next_draw, count)
        end = settle_if_blocked(ws, trace, players, entity_of_seat, next_draw, tie_seat)
        if end != END_NONE:
            board[BOARD_DECISION_COUNT] = 0
            return end
        seat = (seat + 1) % players
        phase = TURN_STARTS


@hot_kernel
def set_turn(ws, seat, next_draw, tie_seat, draw_stops):
    """Put the driver at ``seat``'s turn with the boneyard ``ws.deal[next_draw:]``, the blocked
    settlement's first seat ``tie_seat`` and ``draw_stops`` (see the module docstring), without
    starting the turn (a search then plays a placement of its own: :func:`advance`)."""
    board = ws.board
    board[BOARD_TURN_SEAT] = seat
    board[BOARD_NEXT_DRAW] = next_draw
    board[BOARD_TIE_SEAT] = tie_seat
    board[BOARD_DRAW_STOPS] = draw_stops


@hot_kernel
def start_turns(ws, trace, players, entity_of_seat, seat, next_draw, tie_seat, draw_stops):
    """Set the driver at the start of ``seat``'s turn (its opening on an empty layout) with the
    boneyard ``ws.deal[next_draw:]``, and carry the round to its first stop.

    Parameters
    ----------
    ws : Workspace
        Hands, hand sizes, scores and layout as the turn finds them (a dealt round:
        :func:`core.step.begin_round`, then the hands).
    trace : Trace
    players : int64
    entity_of_seat : int64[players]
    seat, next_draw, tie_seat : int64
        The seat to act, the draw pointer and the blocked settlement's first seat.
    draw_stops : int64
        1: stop before each draw (:func:`advance_draw`); 0: draw at once.

    Returns
    -------
    int64
        The end kind (``END_NONE``: waiting).
    """
    set_turn(ws, seat, next_draw, tie_seat, draw_stops)
    return advance(ws, trace, players, entity_of_seat, START_TURN)


@linked_kernel
def advance(ws, trace, players, entity_of_seat, row):
    """At a decision: the deciding seat plays ``ws.cands[row]``, and the round goes on to its
    next stop (a decision, a draw with draw stops, or its end); with ``row`` ``START_TURN``: the
    turn of the seat in turn starts (:func:`start_turns`). Returns the end kind.

    The one compiled entry of the engine's round loop: every turn the driver takes runs here.
    """
    board = ws.board
    seat = board[BOARD_TURN_SEAT]
    phase = TURN_STARTS
    if row != START_TURN:
        board[BOARD_DECISION_COUNT] = 0
        cands = ws.cands
        end = place(ws, trace, players, entity_of_seat, seat, cands[row, CAND_TILE],
                    cands[row, CAND_PARENT], cands[row, CAND_SIDE], cands[row, CAND_JOINED])
        if end != END_NONE:
            return end
        phase = TURN_OVER
    # one call site: the turn loop is compiled (inlined) once
    return run_turns(ws, trace, players, entity_of_seat, seat, board[BOARD_NEXT_DRAW], phase)


@linked_kernel
def advance_draw(ws, trace, players, entity_of_seat):
    """While a draw is awaited (draw stops): the seat in turn draws ``ws.deal[next_draw]`` (the
    caller has fixed it there), and the round goes on to its next stop. Returns the end kind."""
    board = ws.board
    seat = board[BOARD_TURN_SEAT]
    next_draw = board[BOARD_NEXT_DRAW]
    count = draw_one(ws, trace, seat, next_draw)
    next_draw += 1
    if count > 0:
        return wait_decision(ws, seat, next_draw, count)
    return run_turns(ws, trace, players, entity_of_seat, seat, next_draw, TURN_DRAWS)

