"""Lookahead support for strategies: a private layout copy, determinized worlds, quiet playouts.

Not a strategy. The engine's cache check follows the compiled functions a strategy
calls into this module (:func:`strategies.identity.function_digest`); the public
face of these helpers for strategy authors is :mod:`strategies.toolkit`.

Everything here works on a *scratch* :class:`core.state.Workspace` that the
strategy allocates for one decision (:func:`new_scratch`), never on the
engine's own workspace, and reads the game only through the
:class:`core.state.PlayerView`. The rule primitives are the engine's own
(:func:`core.rules.open_layout`, :func:`~core.rules.place_tile`,
:func:`~core.rules.list_placements`, :func:`~core.rules.list_openings`,
:func:`~core.rules.placement_points`, :func:`~core.rules.round5`), so a
lookahead cannot drift from the rules of placement and scoring.

Pieces
------
:func:`load_layout`
    Copy the public layout of a view into the scratch workspace (then
    :func:`place_candidate` tries a placement on the copy).
:func:`unseen_tiles`, :func:`holdable_tiles`
    Tiles the deciding seat cannot see (28 minus its hand minus the layout),
    and those a given seat may hold (minus every tile carrying a value that
    seat is known to lack).
:func:`sample_world`
    One determinization: every hidden hand and the boneyard order drawn from
    the decision stream, consistent with the hand sizes, the boneyard size,
    the layout, the deciding hand and the known lacking values.
:func:`continue_round`
    A quiet round loop from the current scratch state to the round's end,
    every seat playing ``greedy`` (or its doubles variant). It drives the
    engine's own turn driver (:mod:`core.turns`: draws, passes, placements
    with their score events and domino settlement, the blocked settlement) with
    an empty trace (:func:`~core.step.quiet_trace`), so score events, overshoot discards,
    domino and blocked settlement are the engine's (rulings 5, 6 and 8-12); the
    scratch keeps no public history (its ``BOARD_KEEP_HISTORY`` is 0).
    ``tests/strategies/test_lookahead.py`` checks it reproduces the engine
    round by round.

Scratch allocation
------------------
The engine's kernels are compiled without Numba's reference counting and
cannot allocate. A lookahead strategy's ``choose`` (a ``hot_kernel``) calls a
function compiled with ``njit(cache=True, _nrt=True)`` (:data:`allocating`)
that allocates the scratch with :func:`new_scratch` (about 35 kB, a few
microseconds) and hands it to a non-allocating :data:`core.jit.kernel` that does
the work. The scratch holds nothing from earlier decisions that the strategy
reads: every field a lookahead uses is written from the view first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.jit import ALLOCATING_OPTIONS, KERNEL_OPTIONS, hot_kernel, kernel
from core.state import (BOARD_DECISION_COUNT, BOARD_ERROR, BOARD_NODES, BOARD_OPEN_NODES,
    BOARD_OPEN_VALUES, BOARD_PLAYED, BOARD_TOTAL, BOARD_TURN_SEAT, CAND_JOINED, CAND_PARENT, CAND_POINTS, CAND_SIDE, CAND_TILE,
    END_BLOCKED, END_DOMINO, END_NONE, END_TARGET, ENTITY_OF_SEAT, NODE_FIELDS, NO_PARENT,
    N_ENTITIES, TILES_MATCHING, TILE_IS_DOUBLE, TILE_PIPS, PlayerView, new_workspace)
from core.bits import bit_count, lowest_bit_index
from core.rules import open_layout, place_tile
from core.rng import next_below
from core.step import quiet_trace
from core.turns import advance, set_turn, start_turns
from core.tiles import N_TILES, N_VALUES, TARGET_RAW
from strategies.greedy import greedy as greedy_strategy

greedy_choose = greedy_strategy.choose
"""``greedy``'s compiled function (the playout policy)."""

ALL_TILES = (1 << N_TILES) - 1
"""Tile bitmask of the whole set."""

PLAYOUT_PARAMS = np.zeros(0)
"""float64[0]: the ``params`` of the playout policy's probe view (``greedy`` reads none)."""

PLAYOUT_RNG = np.zeros(2, dtype=np.uint64)
"""uint64[2]: the ``rng`` of the playout policy's probe view (``greedy`` draws nothing)."""

allocating = njit(**ALLOCATING_OPTIONS)
"""Decorator for the one function per decision that allocates scratch arrays.

``_nrt=True`` must be explicit: a function called from the engine's
reference-count-free kernels otherwise inherits ``_nrt=False`` and cannot
allocate."""

assert KERNEL_OPTIONS["_nrt"] is False  # the engine kernels stay allocation-free

@njit(cache=True, _nrt=True)
def new_scratch():
    """A fresh :class:`core.state.Workspace` for one decision's lookahead."""
    return new_workspace()


# ---------------------------------------------------------------------------
# Bits
# ---------------------------------------------------------------------------
@hot_kernel
def nth_bit(mask, n):
    """Index of the ``n``-th (0-based) set bit of ``mask`` (``n < bit_count(mask)``)."""
    rest = mask
    for _ in range(n):
        rest &= rest - 1
    return lowest_bit_index(rest)


@hot_kernel
def unseen_tiles(view):
    """Tiles the deciding seat cannot see: not in its hand and not on the layout."""
    return ALL_TILES & ~view.hand & ~view.played


@hot_kernel
def holdable_tiles(view, seat, unseen):
    """Tiles of ``unseen`` that ``seat`` may hold: none carries a value it is known to lack."""
    return unseen & ~TILES_MATCHING[view.lacking[seat]]


# ---------------------------------------------------------------------------
# Greedy order (the common tie-break)
# ---------------------------------------------------------------------------
@hot_kernel
def prefers_in(cands, score, a, b):
    """True if row ``a`` of the candidate array ``cands`` comes before row ``b`` in ``greedy``'s
    order (see :func:`greedy_prefers`); for a view's or a scratch workspace's candidates."""
    points_a = cands[a, CAND_POINTS]
    points_b = cands[b, CAND_POINTS]
    award_a = points_a if score + points_a <= TARGET_RAW else 0
    award_b = points_b if score + points_b <= TARGET_RAW else 0
    if award_a != award_b:
        return award_a > award_b
    tile_a = cands[a, CAND_TILE]
    tile_b = cands[b, CAND_TILE]
    if TILE_PIPS[tile_a] != TILE_PIPS[tile_b]:
        return TILE_PIPS[tile_a] > TILE_PIPS[tile_b]
    if tile_a != tile_b:
        return tile_a < tile_b
    if cands[a, CAND_PARENT] != cands[b, CAND_PARENT]:
        return cands[a, CAND_PARENT] < cands[b, CAND_PARENT]
    return cands[a, CAND_SIDE] < cands[b, CAND_SIDE]


@hot_kernel
def greedy_prefers(view, score, a, b):
    """True if candidate row ``a`` comes before row ``b`` in ``greedy``'s order.

    The order: larger accepted award (points, 0 if ``score`` plus points would
    pass 305), heavier tile, lower tile index, lower parent, line before arm.
    It is total on distinct candidates, so strategies use it to break ties of
    their own values deterministically.
    """
    return prefers_in(view.cands, score, a, b)


@hot_kernel
def best_row(view, values):
    """Row with the largest ``values[row]``; exact ties by :func:`greedy_prefers`."""
    score = view.scores[view.entity_of_seat[view.seat]]
    best = 0
    for row in range(1, view.n_candidates):
        if values[row] > values[best] or (
            values[row] == values[best] and greedy_prefers(view, score, row, best)
        ):
            best = row
    return best


# ---------------------------------------------------------------------------
# Layout copy
# ---------------------------------------------------------------------------
@hot_kernel
def load_layout(ws, view):
    """Copy the view's layout (nodes, open connections, total, played set) into ``ws``."""
    nodes = ws.nodes
    for node in range(view.n_nodes):
        for field in range(NODE_FIELDS):
            nodes[node, field] = view.nodes[node, field]
    for value in range(N_VALUES):
        ws.open_count[value] = view.open_count[value]
    for position in range(view.n_open_nodes):
        ws.open_nodes[position] = view.open_nodes[position]
    board = ws.board
    board[BOARD_NODES] = view.n_nodes
    board[BOARD_TOTAL] = view.total
    board[BOARD_OPEN_VALUES] = view.open_values
    board[BOARD_PLAYED] = view.played
    board[BOARD_ERROR] = 0
    board[BOARD_OPEN_NODES] = view.n_open_nodes


@hot_kernel
def place_candidate(ws, tile, parent, side, joined):
    """Place a candidate on the scratch layout (opening or not); return the new total."""
    if parent == NO_PARENT:
        return open_layout(ws, tile)
    return place_tile(ws, tile, parent, side, joined)


# ---------------------------------------------------------------------------
# Determinization
# ---------------------------------------------------------------------------
@hot_kernel
def draw_hand(allowed, remaining, need, rng):
    """Draw ``need`` tiles uniformly from the tile set ``allowed`` (fewer if it runs out), one
    decision-stream word each; returns ``(hand, remaining)``, the drawn tiles and the
    ``remaining`` tile set without them."""
    hand = 0
    for _ in range(need):
        available = bit_count(allowed)
        if available == 0:
            break
        tile = nth_bit(allowed, next_below(rng, available))
        hand |= 1 << tile
        allowed &= ~(1 << tile)
        remaining &= ~(1 << tile)
    return hand, remaining


@hot_kernel
def deal_boneyard(ws, remaining, rng):
    """Put the tiles of ``remaining`` (a tile set) at the end of ``ws.deal`` in a uniformly
    random order (Fisher-Yates on ``rng``); return the index of the first (the draw pointer)."""
    count = bit_count(remaining)
    start = N_TILES - count
    position = start
    rest = remaining
    while rest != 0:
        ws.deal[position] = lowest_bit_index(rest)
        rest &= rest - 1
        position += 1
    for step in range(count - 1):
        top = N_TILES - 1 - step
        other = start + next_below(rng, top - start + 1)
        swap = ws.deal[top]
        ws.deal[top] = ws.deal[other]
        ws.deal[other] = swap
    return start


@hot_kernel
def start_world(ws, view):
    """Start a sampled world in ``ws``: every seat's hand size from the view, the deciding
    seat's own hand, the other hands empty; return the tiles left to deal (the unseen ones:
    :func:`sample_world` and :func:`strategies.inference.sample_grouped_world` deal them)."""
    for seat in range(view.players):
        ws.hand_sizes[seat] = view.hand_sizes[seat]
        ws.hands[seat] = 0
    ws.hands[view.seat] = view.hand
    return unseen_tiles(view)


@hot_kernel
def sample_world(ws, view, rng):
    """Draw one consistent assignment of the hidden tiles into ``ws``.

    Writes every seat's hand and hand size (the deciding seat's own hand as
    it is) and the boneyard, in a uniformly random order, to
    ``ws.deal[N_TILES - boneyard_size:]``.

    Method: the unseen tiles are dealt to the other seats one seat at a time,
    the most constrained seat first (fewest tiles it may hold relative to its
    hand size). Each seat receives a uniformly random subset of the remaining
    tiles that carry no value it is known to lack; whatever is left is the
    boneyard. If the constraints cannot be met (they always can for the
    engine's views; a later seat might still be squeezed by an earlier
    one's draw), the seat takes any remaining tiles. This is the usual
    sequential approximation of the uniform distribution over consistent
    deals, not the exact one.

    Returns
    -------
    int64
        Index of the first boneyard tile in ``ws.deal`` (the draw pointer).
    """
    players = view.players
    me = view.seat
    remaining = start_world(ws, view)
    done = 1 << me
    for _ in range(players - 1):
        # Most constrained seat first: smallest slack (holdable - hand size).
        pick = -1
        pick_slack = N_TILES + 1
        for seat in range(players):
            if done >> seat & 1:
                continue
            slack = bit_count(holdable_tiles(view, seat, remaining)) - view.hand_sizes[seat]
            if slack < pick_slack:
                pick = seat
                pick_slack = slack
        done |= 1 << pick
        need = view.hand_sizes[pick]
        allowed = holdable_tiles(view, pick, remaining)
        if bit_count(allowed) < need:
            allowed = remaining
        hand, remaining = draw_hand(allowed, remaining, need, rng)
        ws.hands[pick] = hand
    return deal_boneyard(ws, remaining, rng)


# ---------------------------------------------------------------------------
# Quiet round loop (greedy everywhere)
# ---------------------------------------------------------------------------
@hot_kernel
def playout_end(ws, players, end):
    """The end of a playout as its callers know it: ``end`` (a step's end code), or
    ``END_TARGET`` when a domino or blocked settlement put an entity at exactly 305.

    The core's settlements return ``END_DOMINO`` / ``END_BLOCKED`` whatever their events did
    (an entity at 305 in ``ws.scores`` has won); a playout's callers read ``END_TARGET`` as
    "the match ended". No entity is at 305 when a playout starts (the match would be over).
    """
    if end == END_DOMINO or end == END_BLOCKED:
        for entity in range(N_ENTITIES[players]):
            if ws.scores[entity] == TARGET_RAW:
                return END_TARGET
    return end


@hot_kernel
def greedy_row(ws, players, seat, count):
    """Row of ``ws.cands`` that ``greedy`` picks for ``seat`` (its own kernel, reused).

    The probe view's table is ``ENTITY_OF_SEAT[players]`` (every view's) and its ``params`` and
    ``rng`` are :data:`PLAYOUT_PARAMS` and :data:`PLAYOUT_RNG`, which ``greedy`` never reads:
    the probe's type is then the same whoever plays the playout.
    """
    probe = PlayerView(
        seat,
        players,
        ws.hands[seat],
        ENTITY_OF_SEAT[players, :players],
        ws.scores,
        ws.hand_sizes,
        ws.lacking,
        0,
        ws.board[BOARD_PLAYED],
        ws.board[BOARD_TOTAL],
        ws.board[BOARD_OPEN_VALUES],
        ws.board[BOARD_NODES],
        ws.nodes,
        ws.open_count,
        ws.board[BOARD_OPEN_NODES],
        ws.open_nodes,
        count,
        ws.cands,
        PLAYOUT_PARAMS,
        PLAYOUT_RNG,
        0,
        ws.history[:0],
        ws.hands[:0],
        ws.deal[:0],
    )
    if count == 1:
        return 0
    return greedy_choose(probe)


@hot_kernel
def playout_row(ws, players, seat, count, double_bonus):
    """Row of ``ws.cands`` the playout policy picks for ``seat``.

    ``double_bonus`` 0: ``greedy`` (its own kernel). Otherwise the largest
    accepted award plus ``double_bonus`` raw points for a double, ties in
    greedy's order: the policy of the worked example ``doubles``
    (``examples/doubles.py``), which beats ``greedy`` about 61% at 8 raw
    points and costs a table lookup more.
    """
    if count == 1 or double_bonus == 0.0:
        return greedy_row(ws, players, seat, count)
    score = ws.scores[ENTITY_OF_SEAT[players, seat]]
    cands = ws.cands
    best = 0
    best_value = -1.0
    for row in range(count):
        points = cands[row, CAND_POINTS]
        award = points if score + points <= TARGET_RAW else 0
        value = award + double_bonus * TILE_IS_DOUBLE[cands[row, CAND_TILE]]
        if value > best_value:
            best = row
            best_value = value
        elif value == best_value and prefers_in(cands, score, row, best):
            best = row
    return best


@hot_kernel
def continue_round(ws, view, seat, next_draw, tie_seat, first_row, double_bonus):
    """Play the round in ``ws`` to its end with the playout policy at every seat (``greedy``,
    or with ``double_bonus`` its doubles variant: :func:`playout_row`), ``seat`` to act first.

    Inlined into its caller, it reads the table size and the forced first candidate off the
    view and hands them, with the scratch, to :func:`finish_round`: that kernel's arguments
    have the same types whatever view the caller holds (the engine's, a Python seat's, one
    built inside a kernel), so it is compiled once per process, not once per view type.

    Parameters
    ----------
    ws : Workspace
        Scratch state: hands, hand sizes, scores, layout (an empty layout
        means ``seat`` opens), boneyard in ``ws.deal[next_draw:]``.
    view : PlayerView
        The table (``players``; every view's ``entity_of_seat`` is
        ``ENTITY_OF_SEAT[players]``) and, with ``first_row``, the candidate to play first.
    seat : int64
        Seat to act first.
    next_draw : int64
        Draw pointer into ``ws.deal``.
    tie_seat : int64
        Blocked-settlement ties are broken clockwise from this seat (the core's
        ``tie_seat``). The engine breaks them clockwise from the round's leader,
        which a player view does not name; playouts pass the deciding seat. It
        only matters when two equal hands both earn a credit and the first
        reaches 305.
    first_row : int64
        If >= 0, ``seat``'s first action is ``view.cands[first_row]`` (a
        rollout's candidate) instead of greedy's choice.
    double_bonus : float64
        Raw points the playout policy adds for a double (0.0: ``greedy``).

    Returns
    -------
    int64
        END_DOMINO, END_BLOCKED or END_TARGET (any event that put an entity at
        305, settlements included: :func:`playout_end`); ``ws.scores`` holds the result.
    """
    tile = np.int64(-1)
    parent = np.int64(0)
    side = np.int64(0)
    joined = np.int64(0)
    if first_row >= 0:
        tile = np.int64(view.cands[first_row, CAND_TILE])
        parent = np.int64(view.cands[first_row, CAND_PARENT])
        side = np.int64(view.cands[first_row, CAND_SIDE])
        joined = np.int64(view.cands[first_row, CAND_JOINED])
    return finish_round(ws, np.int64(view.players), np.int64(seat), np.int64(next_draw),
                        np.int64(tie_seat), tile, parent, side, joined, np.float64(double_bonus))


@kernel
def finish_round(ws, players, seat, next_draw, tie_seat, tile, parent, side, joined, double_bonus):
    """:func:`continue_round`'s loop: the round in ``ws`` played to its end, ``seat`` first.

    Parameters
    ----------
    ws : Workspace
    players, seat, next_draw, tie_seat : int64
        As :func:`continue_round`'s.
    tile, parent, side, joined : int64
        With ``tile`` >= 0, ``seat``'s first placement (a candidate row's ``CAND_TILE``,
        ``CAND_PARENT``, ``CAND_SIDE``, ``CAND_JOINED``); -1: greedy's choice.
    double_bonus : float64

    Returns
    -------
    int64
        As :func:`continue_round`.

    Notes
    -----
    The round is carried by the core's turn driver (:mod:`core.turns`), as the engine's is:
    one decision site here, the playout policy's.
    """
    entity_of_seat = ENTITY_OF_SEAT[players, :players]
    trace = quiet_trace(ws)
    if tile >= 0:
        # the forced first placement as the decision in hand (the scratch's candidate rows)
        set_turn(ws, seat, next_draw, tie_seat, 0)
        ws.cands[0, CAND_TILE] = tile
        ws.cands[0, CAND_PARENT] = parent
        ws.cands[0, CAND_SIDE] = side
        ws.cands[0, CAND_JOINED] = joined
        end = advance(ws, trace, players, entity_of_seat, 0)
    else:
        end = start_turns(ws, trace, players, entity_of_seat, seat, next_draw, tie_seat, 0)
    board = ws.board
    while end == END_NONE:
        row = playout_row(ws, players, board[BOARD_TURN_SEAT], board[BOARD_DECISION_COUNT],
                          double_bonus)
        end = advance(ws, trace, players, entity_of_seat, row)
    return playout_end(ws, players, end)


@allocating
def replay_round_greedy(deal, players, leader, scores):
    """Play one dealt round with ``greedy`` everywhere (test helper for :func:`finish_round`,
    the loop of :func:`continue_round`).

    Parameters
    ----------
    deal : int64[28]
        Hands of 5 then the boneyard in draw order, as the engine deals.
    players, leader : int
    scores : int64[4]
        Entity scores before the round (not modified).

    Returns
    -------
    (int64[4], int64)
        Entity scores after the round and the end kind.
    """
    ws = new_workspace()
    for k in range(N_TILES):
        ws.deal[k] = deal[k]
    for seat in range(players):
        hand = 0
        for k in range(5):
            hand |= 1 << deal[seat * 5 + k]
        ws.hands[seat] = hand
        ws.hand_sizes[seat] = 5
    for entity in range(4):
        ws.scores[entity] = scores[entity]
    end = finish_round(ws, np.int64(players), np.int64(leader), np.int64(players * 5),
                       np.int64(leader), np.int64(-1), np.int64(0), np.int64(0), np.int64(0), 0.0)
    return ws.scores.copy(), end


__all__ = [
    "ALL_TILES",
    "allocating",
    "new_scratch",
    "nth_bit",
    "prefers_in",
    "greedy_prefers",
    "best_row",
    "unseen_tiles",
    "holdable_tiles",
    "load_layout",
    "place_candidate",
    "deal_boneyard",
    "sample_world",
    "playout_end",
    "greedy_row",
    "playout_row",
    "PLAYOUT_PARAMS",
    "PLAYOUT_RNG",
    "continue_round",
    "finish_round",
    "replay_round_greedy",
    "END_BLOCKED",
    "END_DOMINO",
    "END_NONE",
    "END_TARGET",
]
