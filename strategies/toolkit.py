"""Helpers for writing strategies: the public toolkit.

Everything a built-in strategy uses to read its view, score a placement,
reason about hidden tiles, look ahead and draw random numbers, in one
import::

    import strategies
    from strategies import toolkit as tk

    @strategies.strategy(name="edge", parameters={"bonus": (8.0, "raw points per double")})
    def edge(view):
        best, best_value = 0, -1.0
        for row in range(view.n_candidates):
            tile = view.cands[row, tk.CAND_TILE]
            value = tk.award(view, row) + view.params[0] * tk.TILE_IS_DOUBLE[tile]
            if value > best_value:
                best, best_value = row, value
        return best

Nothing here is new logic: the functions are the ones the engine and the
built-ins run (:mod:`core.state`, :mod:`core.rules`, :mod:`core.rng`,
:mod:`strategies.lookahead`, :mod:`strategies.linear`), re-exported or
wrapped in a line or two, so a strategy written with them cannot drift from
the rules the engine applies.

Where each helper runs
----------------------
*both*
    A Numba function that a compiled strategy calls (it is inlined or called
    without allocating) and that a Python strategy (``compiled=False``) may
    call too, with its :class:`strategies.python_view.PythonView` (the first
    call from Python compiles it for that argument type, a few seconds;
    Numba caches it on disk).
*allocating*
    Allocates arrays: call it from Python, or from a function of your own
    decorated with :data:`allocating`, never directly in a compiled
    strategy's body (the engine kernel has no reference counting, so it
    cannot allocate or receive arrays).
*Python*
    A plain Python function or constant for module-level code and Python
    strategies.

Conventions
-----------
Tiles are indices 0..27 into :data:`TILES` (``(low, high)`` pairs,
``(0, 0), (0, 1), ..., (6, 6)``); a *tile set* (``hand``, ``played``, a
result of :func:`unseen_tiles`) is an int64 bitmask, bit ``t`` for tile
``t``; a *value set* (``open_values``, ``lacking[seat]``) is an int64
bitmask over the pip values 0..6. Points are *raw* (5 raw = 1 displayed
point; the target is :data:`TARGET_RAW` = 305). Scores are per entity:
``view.scores[view.entity_of_seat[seat]]``.

Candidates: ``view.cands`` is int64[n_candidates, CAND_FIELDS], one row per
distinct legal placement, columns ``CAND_TILE`` (tile index),
``CAND_PARENT`` (layout node it joins, ``NO_PARENT`` for an opening),
``CAND_SIDE`` (``SIDE_NONE`` opening, ``SIDE_LINE``, ``SIDE_ARM`` spinner
arm), ``CAND_JOINED`` (pip value joined; the low half for an opening) and
``CAND_POINTS`` (raw points the placement scores, before the 305 test).
``view.nodes`` is int64[n_nodes, NODE_FIELDS] (``NODE_TILE``,
``NODE_LINE_OPEN``, ``NODE_VALUE_A``, ``NODE_VALUE_B``, ``NODE_ARMS_OPEN``;
see :mod:`core.state`).

Tables: ``TILE_LOW``, ``TILE_HIGH``, ``TILE_PIPS``, ``TILE_IS_DOUBLE`` are
int64[28] by tile index; ``VALUE_TILES`` int64[7] is the tile set carrying
each value; ``TILES_MATCHING`` int64[128] maps a value set to the tile set
carrying any of its values (``TILES_MATCHING[view.open_values]``: the tiles
playable on the layout); ``N_ENTITIES`` int64[5] the entities at a table of
``players`` seats (2, 3, 2 for 2, 3, 4 players).

Contents
--------
Tables and constants (*both*; plain NumPy arrays and ints)
    :data:`TILE_LOW`, :data:`TILE_HIGH`, :data:`TILE_PIPS`,
    :data:`TILE_IS_DOUBLE`, :data:`VALUE_TILES`, :data:`TILES_MATCHING`,
    :data:`N_ENTITIES`, ``CAND_*``, ``NODE_*``, ``SIDE_*``,
    :data:`NO_PARENT`, :data:`N_TILES`, :data:`N_VALUES`,
    :data:`TARGET_RAW`, :data:`HAND_SIZE`, :data:`ALL_TILES`; *Python*:
    :data:`TILES`, :func:`tile_index`, :func:`tile_name`.
Bits (*both*)
    :func:`bit_count`, :func:`lowest_bit`, :func:`nth_bit`,
    :func:`tile_bit`, :func:`has_tile`, :func:`hand_pips`.
Score arithmetic (*both*)
    :func:`own_score`, :func:`gap`, :func:`award`, :func:`accepted`,
    :func:`discarded`, :func:`hits_target`.
Choosing (*both*)
    :func:`best_row` (argmax with greedy's tie-break),
    :func:`greedy_prefers`, :func:`greedy_choice`.
Hidden tiles (*both*)
    :func:`unseen_tiles`, :func:`holdable_tiles`, :func:`playable`.
The round's public history (*both*)
    ``view.history`` rows ``H_SEAT``, ``H_KIND`` (``ACTION_PLAY`` /
    ``ACTION_DRAW`` / ``ACTION_PASS``), ``H_TILE``, ``H_OPEN``;
    :func:`hand_groups` (what draws and passes revealed about a seat's
    hand, tile by tile, :mod:`strategies.inference`) and
    :func:`sample_grouped_world` (a world consistent with every group).
Lookahead
    :func:`new_scratch` (*allocating*), :func:`sample_world` (*both*),
    :func:`playout` (*both*), :func:`advantage` (*both*),
    :func:`sample_hidden` (*allocating*), :func:`load_layout` and
    :func:`place_candidate` (*both*, on a scratch workspace).
Move features (the ``weighted`` strategy's)
    :data:`FEATURE_NAMES`, :data:`N_FEATURES`, :func:`move_features`
    (*allocating*), :func:`candidate_features` (*both*, fills your array).
Random draws (*both*; the seat's own decision stream ``view.rng``)
    :func:`next_below`, :func:`next_unit`.
Decorators (*Python*)
    :data:`helper` for your own functions called from a compiled strategy,
    :data:`allocating` for your function that allocates scratch arrays.

A whole determinized Monte Carlo strategy (sample worlds, play each
candidate out with greedy, keep the best mean) is about twenty lines:
``examples/mini_rollout.py`` is one, ready to copy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core import bits
from core.jit import ALLOCATING_OPTIONS, hot_kernel, kernel, strategy_kernel
from core.state import (CAND_FIELDS, CAND_JOINED, CAND_PARENT, CAND_POINTS, CAND_SIDE,
    CAND_TILE, END_BLOCKED, END_DOMINO, END_NONE, END_TARGET, NODE_ARMS_OPEN, NODE_FIELDS,
    NODE_LINE_OPEN, NODE_TILE, NODE_VALUE_A, NODE_VALUE_B, NO_PARENT, N_ENTITIES, SIDE_ARM,
    SIDE_LINE, SIDE_NONE, TILES_MATCHING, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS,
    VALUE_TILES)
from core.rules import hand_pips
from core.rng import next_below, next_unit
from core.tiles import HAND_SIZE, N_TILES, N_VALUES, TARGET_RAW, TILES, tile_index, tile_name
from core.state import (ACTION_DRAW, ACTION_PASS, ACTION_PLAY, HISTORY_FIELDS, H_KIND, H_OPEN,
    H_SEAT, H_TILE)
from strategies import linear, lookahead
from strategies.inference import MAX_GROUPS, hand_groups, sample_grouped_world
from strategies.greedy import greedy as greedy_strategy
from strategies.linear import FEATURE_NAMES, N_FEATURES, candidate_features
from strategies.lookahead import (ALL_TILES, best_row, greedy_prefers, holdable_tiles, load_layout,
    new_scratch, nth_bit, place_candidate, unseen_tiles)

# ---------------------------------------------------------------------------
# Decorators
# ---------------------------------------------------------------------------
helper = strategy_kernel
"""Decorator for your own functions that a compiled strategy calls (*Python*).

The same compilation as a compiled strategy's body (Numba nopython,
inlined, bounds-checked, no reference counting, no on-disk cache so it also
works in a notebook cell): such a function must not allocate arrays. Use
:data:`allocating` for the one function that does."""

allocating = njit(boundscheck=True, **ALLOCATING_OPTIONS)
"""Decorator for the one function of your compiled strategy that allocates scratch arrays
(*Python*).

``njit`` with reference counting (so it may allocate), the disk cache and bounds
checking: it is handed your view, so an index past an end raises instead of
reading the engine's memory (the engine refuses a helper of yours that is
compiled apart without bounds checking). It should return a number (a row),
not an array. The built-ins use :data:`strategies.lookahead.allocating`, the
same without bounds checking."""

# ---------------------------------------------------------------------------
# Bits
# ---------------------------------------------------------------------------
@hot_kernel
def bit_count(mask):
    """Number of set bits of a tile or value set (*both*).

    Parameters
    ----------
    mask : int64

    Returns
    -------
    int64
    """
    return bits.bit_count(np.int64(mask))


@hot_kernel
def lowest_bit(mask):
    """Index of the lowest set bit of a nonzero ``mask`` (*both*): the lowest tile of a set.

    Iterate over a tile set with::

        rest = tiles
        while rest != 0:
            tile = lowest_bit(rest)
            rest &= rest - 1
    """
    return bits.lowest_bit_index(np.int64(mask))


@hot_kernel
def tile_bit(tile):
    """int64 bitmask holding tile ``tile`` only (*both*)."""
    return np.int64(1) << np.int64(tile)


@hot_kernel
def has_tile(tiles, tile):
    """True if tile set ``tiles`` holds tile ``tile`` (*both*)."""
    return ((np.int64(tiles) >> np.int64(tile)) & 1) == 1


# nth_bit(mask, n): index of the n-th (0-based) set bit (re-exported, *both*).
# hand_pips(tiles): pip total of a tile set (re-exported from core.rules, *both*).


# ---------------------------------------------------------------------------
# Score arithmetic
# ---------------------------------------------------------------------------
@hot_kernel
def own_score(view):
    """Raw score of the deciding seat's entity (*both*)."""
    return view.scores[view.entity_of_seat[view.seat]]


@hot_kernel
def gap(view):
    """Raw points the deciding entity still needs to land exactly on 305 (*both*)."""
    return TARGET_RAW - view.scores[view.entity_of_seat[view.seat]]


@hot_kernel
def accepted(view, row):
    """True if candidate ``row`` scores and its event would be accepted (*both*).

    A placement makes a score event when it scores (``cands[row, CAND_POINTS]
    > 0``, ruling 3); the event is accepted if the entity's score plus the
    points is at most 305 and discarded otherwise (ruling 8). For the final
    tile of a hand, the domino event adds settlement that the view cannot
    know (the other hands' pips); this judges the placement points alone.
    """
    points = view.cands[row, CAND_POINTS]
    return points > 0 and view.scores[view.entity_of_seat[view.seat]] + points <= TARGET_RAW


@hot_kernel
def discarded(view, row):
    """True if candidate ``row`` scores but the event would pass 305 and be discarded (*both*)."""
    points = view.cands[row, CAND_POINTS]
    return points > 0 and view.scores[view.entity_of_seat[view.seat]] + points > TARGET_RAW


@hot_kernel
def award(view, row):
    """Raw points candidate ``row`` would add to the deciding entity's score (*both*).

    Returns
    -------
    int64
        ``cands[row, CAND_POINTS]`` if the event would be accepted (see
        :func:`accepted`), else 0 (nothing scored, or discarded). This is the
        value ``greedy`` maximises.
    """
    points = view.cands[row, CAND_POINTS]
    if view.scores[view.entity_of_seat[view.seat]] + points <= TARGET_RAW:
        return points
    return 0


@hot_kernel
def hits_target(view, row):
    """True if candidate ``row`` lands the deciding entity exactly on 305 (wins the match) (*both*)."""
    points = view.cands[row, CAND_POINTS]
    return points > 0 and view.scores[view.entity_of_seat[view.seat]] + points == TARGET_RAW


# ---------------------------------------------------------------------------
# Choosing
# ---------------------------------------------------------------------------
# best_row(view, values): row with the largest values[row] (float64[n_candidates]), exact ties
#   in greedy's order (re-exported, *both*).
# greedy_prefers(view, score, a, b): True if row a comes before row b in greedy's order
#   (larger accepted award at entity score ``score``, heavier tile, lower tile index, lower
#   parent, line before arm) (re-exported, *both*).

greedy_choice = greedy_strategy.choose
"""``greedy_choice(view)``: the row the built-in ``greedy`` plays (*both*)."""


# ---------------------------------------------------------------------------
# Hidden tiles
# ---------------------------------------------------------------------------
# unseen_tiles(view): tile set the deciding seat cannot see: 28 tiles minus its hand minus
#   the layout (re-exported, *both*). The other hands and the boneyard share them.
# holdable_tiles(view, seat, unseen): the tiles of ``unseen`` that ``seat`` may hold: none
#   carries a value in view.lacking[seat] (re-exported, *both*).


@hot_kernel
def playable(view, tiles):
    """Tiles of set ``tiles`` that match an open connection of the view's layout (*both*).

    Every tile is playable on an empty layout (the opening).
    """
    if view.n_nodes == 0:
        return np.int64(tiles)
    return np.int64(tiles) & TILES_MATCHING[view.open_values]


# ---------------------------------------------------------------------------
# Lookahead: sampled worlds and greedy playouts
# ---------------------------------------------------------------------------
# new_scratch(): a fresh Workspace (about 35 kB) for one decision's lookahead (re-exported,
#   *allocating*). Its ``hands``, ``hand_sizes``, ``scores`` and ``deal`` hold a sampled world.
# load_layout(ws, view), place_candidate(ws, tile, parent, side, joined): copy the view's layout
#   into a scratch workspace, try a placement on the copy (returns the new total)
#   (re-exported, *both*).


@hot_kernel
def sample_world(ws, view):
    """Draw one hidden world consistent with everything the seat knows (*both*).

    The unseen tiles are dealt to the other seats' hands (with their public
    sizes, none carrying a value the seat is known to lack) and the rest is
    the boneyard in a random order (:func:`strategies.lookahead.sample_world`;
    random numbers from ``view.rng``, the seat's own stream).

    Parameters
    ----------
    ws : Workspace
        Scratch from :func:`new_scratch` (or a Python-side one); written.
    view : PlayerView or PythonView

    Returns
    -------
    tuple of 5 int64
        The *world*: ``(first_draw, hand_0, hand_1, hand_2, hand_3)``: the
        draw pointer (the boneyard is ``ws.deal[first_draw:]`` in draw order,
        ``28 - boneyard_size``) and every seat's hand as a tile set (the
        deciding seat's own as it is, 0 past the last seat). Pass it to
        :func:`playout` as many times as you like: ``ws.deal`` is only read.
    """
    first_draw = lookahead.sample_world(ws, view, view.rng)
    return first_draw, ws.hands[0], ws.hands[1], ws.hands[2], ws.hands[3]


@kernel
def playout(ws, view, world, row):
    """Play candidate ``row`` in ``world``, then the rest of the round with greedy at every seat (*both*).

    Loads the world's hands, the public hand sizes and scores and the layout
    into ``ws``, plays ``view.cands[row]`` for the deciding seat (``row = -1``:
    greedy's choice) and continues with
    :func:`strategies.lookahead.continue_round`: draws, passes, score events
    target-tested (discarded past 305), an exact 305 ending the playout,
    domino and blocked settlement as the engine does them. Blocked ties are
    broken clockwise from the deciding seat (the view does not name the
    round's leader).

    Parameters
    ----------
    ws : Workspace
        The scratch the world was sampled into (its ``deal`` holds the boneyard).
    view : PlayerView or PythonView
    world : tuple of 5 int64
        From :func:`sample_world` (or built by hand: ``(first_draw, hand_0, ..., hand_3)``).
    row : int64
        Candidate to play first, or -1.

    Returns
    -------
    tuple of 4 int64
        Accepted raw points each entity gained by the end of the round
        (index by entity; 0 past the last entity). ``ws.scores`` holds the
        scores after it: an entity at :data:`TARGET_RAW` won the match.

    Raises
    ------
    IndexError
        ``row`` is not -1 or a candidate row, or ``world`` has no valid draw pointer
        (this kernel is compiled apart, so it checks what it is handed itself).
    """
    if row < -1 or row >= view.n_candidates:
        raise IndexError("playout: row is not -1 or a row of view.cands")
    if world[0] < 0 or world[0] > N_TILES:
        raise IndexError("playout: the world's draw pointer is outside 0..28")
    ws.hands[0] = world[1]
    ws.hands[1] = world[2]
    ws.hands[2] = world[3]
    ws.hands[3] = world[4]
    for seat in range(4):
        ws.hand_sizes[seat] = view.hand_sizes[seat]
        ws.scores[seat] = view.scores[seat]
    load_layout(ws, view)
    lookahead.continue_round(ws, view, view.seat, world[0], view.seat, row, 0.0)
    return (
        ws.scores[0] - view.scores[0],
        ws.scores[1] - view.scores[1],
        ws.scores[2] - view.scores[2],
        ws.scores[3] - view.scores[3],
    )


@hot_kernel
def advantage(view, gains):
    """The deciding entity's gain minus the mean gain of the other entities (*both*).

    The round score the built-in ``rollout`` averages (without its
    ``win_bonus``). ``gains`` is a :func:`playout` result (4 numbers by entity).

    Returns
    -------
    float64
    """
    me = view.entity_of_seat[view.seat]
    n_entities = N_ENTITIES[view.players]
    others = 0.0
    for entity in range(n_entities):
        if entity != me:
            others += gains[entity]
    return gains[me] - others / (n_entities - 1)


@allocating
def sample_hidden(view):
    """One sampled world as arrays (*allocating*: Python strategies and tests).

    Returns
    -------
    hands : int64[4]
        Tile set of every seat's hand (the deciding seat's own as it is).
    boneyard : int64[boneyard_size]
        Tile indices in draw order.
    """
    ws = new_scratch()
    world = sample_world(ws, view)
    return ws.hands.copy(), ws.deal[world[0]:].copy()


# ---------------------------------------------------------------------------
# Move features
# ---------------------------------------------------------------------------
@allocating
def move_features(view, weights):
    """The ``weighted`` strategy's move features of every candidate (*allocating*).

    Parameters
    ----------
    view : PlayerView or PythonView
    weights : float64[N_FEATURES]
        Features 9-12 (reply, opp_exact, open_unseen, own_playable) are
        computed only where their weight is nonzero (they cost a layout copy
        per candidate); pass ``np.ones(N_FEATURES)`` for all.

    Returns
    -------
    float64[n_candidates, N_FEATURES]
        Columns in :data:`FEATURE_NAMES` order (see :mod:`strategies.linear`).
    """
    return linear.features_of(view, weights)


# candidate_features(view, weights, ws, features): the same into your float64[n, N_FEATURES]
#   array, with a scratch workspace (re-exported, *both*).


__all__ = [
    # constants and tables
    "ALL_TILES", "CAND_FIELDS", "CAND_JOINED", "CAND_PARENT", "CAND_POINTS", "CAND_SIDE", "CAND_TILE",
    "END_BLOCKED", "END_DOMINO", "END_NONE", "END_TARGET", "FEATURE_NAMES", "HAND_SIZE", "N_ENTITIES",
    "N_FEATURES", "N_TILES", "N_VALUES", "NODE_ARMS_OPEN", "NODE_FIELDS", "NODE_LINE_OPEN", "NODE_TILE",
    "NODE_VALUE_A", "NODE_VALUE_B", "NO_PARENT", "SIDE_ARM", "SIDE_LINE", "SIDE_NONE", "TARGET_RAW",
    "TILES", "TILES_MATCHING", "TILE_HIGH", "TILE_IS_DOUBLE", "TILE_LOW", "TILE_PIPS", "VALUE_TILES",
    "tile_index", "tile_name",
    # bits
    "bit_count", "hand_pips", "has_tile", "lowest_bit", "nth_bit", "tile_bit",
    # scores
    "accepted", "award", "discarded", "gap", "hits_target", "own_score",
    # choosing
    "best_row", "greedy_choice", "greedy_prefers",
    # hidden tiles
    "holdable_tiles", "playable", "unseen_tiles",
    # the round's public history and what it reveals
    "ACTION_DRAW", "ACTION_PASS", "ACTION_PLAY", "HISTORY_FIELDS", "H_KIND", "H_OPEN", "H_SEAT",
    "H_TILE", "MAX_GROUPS", "hand_groups", "sample_grouped_world",
    # lookahead
    "advantage", "load_layout", "new_scratch", "place_candidate", "playout", "sample_hidden",
    "sample_world",
    # features
    "candidate_features", "move_features",
    # random draws
    "next_below", "next_unit",
    # decorators
    "allocating", "helper",
]
