"""The state contract of the Numba engine: every array, its dtype, shape and meaning.

The engine's whole mutable state is NumPy arrays and integers; no Python
object crosses into compiled code. This module names every constant, table
and array field; :mod:`core.rules` holds the rule primitives that read and
write them, :mod:`sim.engine.play` the round and match loops that drive those
primitives, and strategies (package ``strategies``) read the
:class:`PlayerView` defined here. Like all of :mod:`core` it imports
nothing above it, so strategies may import it freely.

Integer conventions
-------------------
All scratch state is ``int64``. Tile sets are ``int64`` bitmasks over the 28
tiles (bit ``t`` set = tile ``t`` of :data:`core.tiles.TILES`); value sets are
``int64`` bitmasks over the pip values 0..6. ``int64`` rather than ``uint32``
because Numba promotes a mix of signed and unsigned integers to ``float64``;
keeping one signed type avoids silent float arithmetic in bit operations.

Tables (module constants, frozen into compiled code)
-----------------------------------------------------
``TILE_LOW``, ``TILE_HIGH``, ``TILE_PIPS`` : int64[28]
    Halves (low <= high) and pip total of each tile.
``TILE_IS_DOUBLE`` : int64[28]
    1 for the seven doubles.
``VALUE_TILES`` : int64[7]
    Bitmask of the tiles carrying value ``v`` on at least one half.
``TILES_MATCHING`` : int64[128]
    ``TILES_MATCHING[m]`` = bitmask of tiles carrying any value of value set ``m``:
    with ``m`` the layout's open values this is the set of playable tiles.
``ENTITY_OF_SEAT`` : int64[5, 4]
    Row ``players``: the scoring entity of each seat (ruling 7), -1 past the
    last seat. ``N_ENTITIES[players]`` entities.

Workspace (per thread, reused from match to match)
--------------------------------------------------
A :class:`Workspace` named tuple holds every mutable array of a match in play.

``deal`` : int64[28]
    The round's shuffled tiles: seat ``s`` was dealt ``deal[5s:5s+5]``; the
    boneyard, in draw order, is ``deal[5*players:]``.
``hands`` : int64[4]
    Tile bitmask of each seat's current hand.
``hand_sizes`` : int64[4]
    Tiles in each hand (public).
``lacking`` : int64[4]
    Per seat, the value set it is publicly known to lack: a draw sets it to
    the values open at that moment (its unseen drawn tiles may carry values it
    lacked before, so the old knowledge is replaced); a pass adds the values
    open at that moment. Reset each round.
``scores`` : int64[4]
    Raw score of each entity (index by entity, not seat).
``nodes`` : int64[28, NODE_FIELDS]
    The layout, one row per placement of the round in play order (row ``k`` is
    the ``k``-th play action, the ``parent`` index of the record format):
    ``NODE_TILE``
        tile index.
    ``NODE_LINE_OPEN``
        bitmask of open line sides: ``LINE_A`` | ``LINE_B``. A placed tile's
        side A faces its parent (occupied from the start) and side B is its
        open half; the opening has both sides open (A = low half, B = high).
    ``NODE_VALUE_A``, ``NODE_VALUE_B``
        pip value of line side A / B (both ``v`` for a double ``v-v``).
    ``NODE_ARMS_OPEN``
        open spinner arms, 0..2. A double's arms open (2) the moment its
        second line side is occupied (ruling 2); each arm play closes one.
``open_count`` : int64[7]
    Number of open connections (line sides and arms) of each value.
``open_nodes`` : int64[28]
    Rows ``0..board[BOARD_OPEN_NODES]-1``: the nodes that still have an open
    line side or arm, in increasing node order. Listing placements walks only
    these (a handful) rather than the whole layout: profiling showed the full
    node scan was the engine's hottest loop.
``board`` : int64[BOARD_FIELDS]
    Layout scalars: ``BOARD_NODES`` placements so far, ``BOARD_TOTAL`` the
    scoring total (kept incrementally, ruling 3), ``BOARD_OPEN_VALUES`` value
    set with ``open_count > 0``, ``BOARD_PLAYED`` tile bitmask of the layout,
    ``BOARD_ERROR`` nonzero if a strategy returned an invalid choice (its
    slot + 1), ``BOARD_OPEN_NODES`` length of ``open_nodes``; the decision
    in hand: ``BOARD_DECISION_SEAT``, ``BOARD_DECISION_COUNT`` (candidates),
    ``BOARD_DECISION_BONEYARD`` (tiles left to draw); ``BOARD_SUSPENDED`` 1
    when the match stopped at a Python seat's decision with no recorded
    answer (:mod:`sim.engine.python_seats`); ``BOARD_HISTORY`` rows of
    ``history`` written this round; ``BOARD_DECIDING`` 1 while a strategy
    runs (``BOARD_DECISION_SEAT`` is its seat: an exception it raises is
    reported for that seat); ``BOARD_ERROR_ROW``, ``BOARD_ERROR_SEAT`` and
    ``BOARD_ERROR_COUNT`` the row returned, the seat and the number of
    candidates of the match's first choice that was not one of its candidates;
    ``BOARD_KEEP_HISTORY`` 1 while the steps write ``history`` (0: it stays
    empty, no seated strategy reads it); ``BOARD_ROUND`` and ``BOARD_LEADER``, the
    round; ``BOARD_TURN_SEAT``, ``BOARD_NEXT_DRAW``, ``BOARD_TIE_SEAT`` and
    ``BOARD_DRAW_STOPS``, the turn driver's position (:mod:`core.turns`: where a
    round goes on from, a suspended match's too).
``history`` : int64[MAX_ACTIONS_PER_ROUND, HISTORY_FIELDS]
    The round's public actions in order, rows ``0..board[BOARD_HISTORY]-1``:
    ``H_SEAT``, ``H_KIND`` (play, draw, pass), ``H_TILE`` (the placed tile;
    ``NO_TILE`` for a draw, whose tile only the drawer sees, and a pass),
    ``H_OPEN`` (the open values when the action was taken), and for a play
    ``H_PARENT``, ``H_SIDE``, ``H_JOINED`` (where it went, as in ``cands``)
    and ``H_POINTS`` (what it scored). The ``k``-th play of the history is
    layout node ``k``, so the layout at any earlier moment can be rebuilt. Everything in it was seen by
    every player; strategies read it to keep what draws and passes revealed
    about each tile (``lacking`` keeps only the latest draw's knowledge).
``cands`` : int64[MAX_CANDIDATES, CAND_FIELDS]
    The distinct legal placements of the decision in hand (ruling 4), rows
    ``0..n-1``: ``CAND_TILE``, ``CAND_PARENT`` (node row, ``NO_PARENT`` for an
    opening), ``CAND_SIDE`` (``SIDE_NONE`` / ``SIDE_LINE`` / ``SIDE_ARM``),
    ``CAND_JOINED`` (value joined; the low half for an opening),
    ``CAND_POINTS`` (raw points the placement would score, ruling 3).
``rng`` : uint64[MAX_PLAYERS, 2]
    Row ``s``: seat ``s``'s own decision stream ``[key, counter]``
    (:func:`core.rng.decision_key`; one-way from the match key, so a strategy
    can compute neither the deal stream nor another seat's draws from it).
``round_stats`` : int64[ROUND_FIELDS]
    Figures of the round in play (``R_*`` indices below).
``match_totals`` : int64[MATCH_FIELDS]
    Figures of the match in play (``M_*`` indices below).
``seat_scratch`` : int64[2, 4]
    Settlement scratch: pip totals and ranking order of the hands.
``cursor`` : int64[4]
    Rows written so far to the trace arrays: rounds, actions, events; and
    the answers of Python seats read so far (``CURSOR_ANSWERS``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, types

from core.jit import hot_kernel
from core.tiles import N_TILES, N_VALUES, TILES

# ---------------------------------------------------------------------------
# Game-size constants
# ---------------------------------------------------------------------------
MAX_PLAYERS = 4
"""Largest table."""

MAX_ENTITIES = 4
"""Width of per-entity arrays (3 entities used at most)."""

MAX_NODES = N_TILES
"""A round can place at most every tile."""

MAX_CANDIDATES = N_TILES * N_TILES
"""Upper bound on distinct (tile, node) placements of one decision."""

MAX_ACTIONS_PER_ROUND = N_TILES + N_TILES + (MAX_PLAYERS - 1) * (N_TILES + 1)
"""Bound on actions of one round: plays, draws, and at most players-1 passes in
a row before someone plays (otherwise the round is blocked at once)."""

MAX_EVENTS_PER_ROUND = N_TILES + MAX_PLAYERS
"""Bound on events of one round: placements plus one settlement per hand."""

NO_ENTITY = -1
"""Winner code for an unfinished match or a round without a winner."""

NO_SEAT = -1
"""Seat code for 'none' (e.g. no dominoer)."""

NO_PARENT = -1
"""Parent of an opening placement."""

NO_TILE = -1
"""Tile code for 'none'."""

# Layout: line sides of a node and the side of a placement
LINE_A = 1
"""Line side A: faces the parent, or the low half of the opening."""
LINE_B = 2
"""Line side B: a placed tile's open half, or the high half of the opening."""
ARMS_PER_SPINNER = 2
"""Arms of a double, open once both its line sides are occupied."""

SIDE_NONE = 0
"""Side of an opening placement (record: null)."""
SIDE_LINE = 1
"""Placement on a line side (record: "line")."""
SIDE_ARM = 2
"""Placement on a spinner arm (record: "arm")."""

# Action kinds (trace and record)
ACTION_PLAY = 0
ACTION_DRAW = 1
ACTION_PASS = 2

# Round end kinds
END_NONE = -1
END_DOMINO = 0
END_BLOCKED = 1
END_TARGET = 2
END_SUSPENDED = 3
"""Not an end: the match stopped at a Python seat's decision (:mod:`sim.engine.python_seats`)."""

# Event kinds
EVENT_PLACEMENT = 0
EVENT_DOMINO = 1
EVENT_BLOCKED = 2

# Event outcomes (:func:`core.step.apply_event`, ruling 8)
OUTCOME_DISCARDED = 0
"""The event would have passed 305: score unchanged."""
OUTCOME_ACCEPTED = 1
"""The event was applied."""
OUTCOME_HIT_TARGET = 2
"""The event was applied and its entity now has exactly 305: the match ends."""

ROUND_TO = 5
"""round5 granularity (ruling 12)."""

# nodes[k, ...]
NODE_TILE = 0
NODE_LINE_OPEN = 1
NODE_VALUE_A = 2
NODE_VALUE_B = 3
NODE_ARMS_OPEN = 4
NODE_FIELDS = 5

# board[...]
BOARD_NODES = 0
BOARD_TOTAL = 1
BOARD_OPEN_VALUES = 2
BOARD_PLAYED = 3
BOARD_ERROR = 4
BOARD_OPEN_NODES = 5
BOARD_DECISION_SEAT = 6
BOARD_DECISION_COUNT = 7
BOARD_DECISION_BONEYARD = 8
BOARD_SUSPENDED = 9
BOARD_HISTORY = 10
BOARD_DECIDING = 11
BOARD_ERROR_ROW = 12
BOARD_ERROR_SEAT = 13
BOARD_ERROR_COUNT = 14
BOARD_KEEP_HISTORY = 15
"""1: the steps write the public ``history`` (a seated strategy reads it, or a driver shows
it); 0: they do not (:mod:`core.step`)."""
BOARD_ROUND = 16
"""The round index (where a suspended match resumes: :func:`sim.engine.play.resume_match`)."""
BOARD_LEADER = 17
"""The round's leader."""
BOARD_TURN_SEAT = 18
"""The turn driver (:mod:`core.turns`): the seat in turn (at a decision, the deciding seat;
waiting for a draw, the seat that draws)."""
BOARD_NEXT_DRAW = 19
"""The turn driver: the draw pointer into ``deal`` (the boneyard is ``deal[next_draw:]``)."""
BOARD_TIE_SEAT = 20
"""The turn driver: the first seat of the blocked settlement's clockwise tie order (the engine's:
the round's leader; a playout's or a solver's: the deciding seat, whom a view names)."""
BOARD_DRAW_STOPS = 21
"""The turn driver: 1, it stops before every draw (draws as explicit chance nodes:
:class:`sim.bridges.match_state.MatchState`); 0, it draws from ``deal`` at once."""
BOARD_FIELDS = 22

# cands[c, ...]
CAND_TILE = 0
CAND_PARENT = 1
CAND_SIDE = 2
CAND_JOINED = 3
CAND_POINTS = 4
CAND_FIELDS = 5

# history[k, ...]: the round's public actions (what every player saw happen)
H_SEAT = 0
"""Seat that acted."""
H_KIND = 1
"""``ACTION_PLAY``, ``ACTION_DRAW`` or ``ACTION_PASS``."""
H_TILE = 2
"""Tile placed (``ACTION_PLAY``); ``NO_TILE`` for a draw (the drawn tile is unseen) or a pass."""
H_OPEN = 3
"""Value set of the open connections when the action was taken (before a placement)."""
H_PARENT = 4
"""A play's parent node (``NO_PARENT`` for the opening, a draw or a pass)."""
H_SIDE = 5
"""A play's side (``SIDE_NONE`` / ``SIDE_LINE`` / ``SIDE_ARM``)."""
H_JOINED = 6
"""A play's joined value (the low half for an opening; 0 for a draw or a pass)."""
H_POINTS = 7
"""Raw points the placement scored, before the 305 test (0 for a draw or a pass)."""
HISTORY_FIELDS = 8

# seat_scratch rows
SCRATCH_PIPS = 0
SCRATCH_ORDER = 1

# cursor[...]
CURSOR_ROUNDS = 0
CURSOR_ACTIONS = 1
CURSOR_EVENTS = 2
CURSOR_ANSWERS = 3
CURSOR_FIELDS = 4

# answers[k, ...]: the choices of Python seats fed into a match (sim.engine.python_seats)
ANSWER_CHOICE = 0
"""Row of ``cands`` the Python seat chose."""
ANSWER_RNG_COUNTER = 1
"""The seat's decision-stream counter after its choice (a Python strategy may draw)."""
ANSWER_FIELDS = 2

EXTERNAL_SEAT = -1
"""``seat_strategy`` code of a seat whose choices come from Python (the answers array)."""

SEES_HIDDEN_KEY = ":sees-hidden"
"""Suffix of the code key of a strategy declared ``sees_hidden``: such a strategy gets a
slot of its own, whose views carry every hand and the boneyard (``PlayerView.hidden_*``)."""

READS_HISTORY_KEY = ":reads-history"
"""In the code key of a strategy that reads the public history (``PlayerView.history``, declared
or found in its code): the engine writes the history only while such a seat is at the table
(``BOARD_KEEP_HISTORY``)."""

INVALID_CHOICE = -1
"""What the strategy dispatch returns for a slot it does not know."""

# round_stats[...] (also the columns of the per-round trace rows)
R_LEADER = 0
R_OPENING_TILE = 1
R_OPENING_POINTS = 2
R_END = 3
R_WINNER = 4
R_DOMINOER = 5
R_PLACEMENTS = 6
R_DRAWS = 7
R_PASSES = 8
R_ACTIONS = 9
R_EVENTS = 10
R_EVENTS_ACCEPTED = 11
R_EVENTS_DISCARDED = 12
R_RAW_DISCARDED = 13
R_PLACEMENT_RAW = 14
"""Accepted raw of ordinary placement events."""
R_DOMINO_PLACEMENT = 15
"""Domino event components (whether accepted or not; see R_DOMINO_ACCEPTED)."""
R_DOMINO_CREDIT = 16
R_DOMINO_DEBIT = 17
R_DOMINO_ACCEPTED = 18
"""1 accepted, 0 discarded, -1 no domino this round."""
R_BLOCKED_CREDIT = 19
"""Accepted raw of blocked-settlement events."""
R_BLOCKED_EVENTS = 20
R_GAIN = 21
"""R_GAIN + e: accepted raw gained by entity e this round."""
R_SCORE = R_GAIN + MAX_ENTITIES
"""R_SCORE + e: entity e's score after the round."""
R_PIPS = R_SCORE + MAX_ENTITIES
"""R_PIPS + s: pips left in seat s's hand when the round ended."""
R_DISCARDED_BY = R_PIPS + MAX_PLAYERS
"""R_DISCARDED_BY + e: events of entity e discarded for overshoot this round."""
R_SETTLED_BY = R_DISCARDED_BY + MAX_ENTITIES
"""R_SETTLED_BY + e: accepted settlement raw of entity e this round (domino
credit minus debit, plus blocked credits)."""
ROUND_FIELDS = R_SETTLED_BY + MAX_ENTITIES

# match_totals[...]
M_WINNER = 0
M_ROUNDS = 1
M_PLACEMENTS = 2
M_DRAWS = 3
M_PASSES = 4
M_DOMINO_ROUNDS = 5
M_BLOCKED_ROUNDS = 6
M_EVENTS_ACCEPTED = 7
M_EVENTS_DISCARDED = 8
M_RAW_DISCARDED = 9
M_PLACEMENT_RAW = 10
"""Accepted placement raw: ordinary events plus accepted dominoes' final
placement, so that sum(scores) = placement_raw + domino_credit - domino_debit
+ blocked_credit."""
M_DOMINO_CREDIT = 11
M_DOMINO_DEBIT = 12
M_BLOCKED_CREDIT = 13
M_FIRST_LEADER = 14
M_FIRST_OPENING = 15
M_ACTIONS = 16
M_EVENTS = 17
M_ERROR = 18
M_DISCARDED_BY = 19
"""M_DISCARDED_BY + e: events of entity e discarded for overshoot."""
M_SETTLED_BY = M_DISCARDED_BY + MAX_ENTITIES
"""M_SETTLED_BY + e: accepted settlement raw of entity e."""
MATCH_FIELDS = M_SETTLED_BY + MAX_ENTITIES

# Trace rows
A_SEAT = 0
A_KIND = 1
A_TILE = 2
A_JOINED = 3
A_PARENT = 4
A_SIDE = 5
A_POINTS = 6
ACTION_FIELDS = 7

E_ENTITY = 0
E_KIND = 1
E_ACTION = 2
"""Index of the play within the round's actions (placement events)."""
E_SEAT = 3
E_PLACEMENT = 4
E_CREDIT = 5
E_DEBIT = 6
E_RAW = 7
E_ACCEPTED = 8
EVENT_FIELDS = 9

# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------
TILE_LOW = np.array([low for low, _ in TILES], dtype=np.int64)
TILE_HIGH = np.array([high for _, high in TILES], dtype=np.int64)
TILE_PIPS = TILE_LOW + TILE_HIGH
TILE_IS_DOUBLE = (TILE_LOW == TILE_HIGH).astype(np.int64)
VALUE_TILES = np.array(
    [sum(1 << t for t, (lo, hi) in enumerate(TILES) if v in (lo, hi)) for v in range(N_VALUES)],
    dtype=np.int64,
)
TILES_MATCHING = np.array(
    [
        int(np.bitwise_or.reduce([VALUE_TILES[v] for v in range(N_VALUES) if m >> v & 1] or [0]))
        for m in range(1 << N_VALUES)
    ],
    dtype=np.int64,
)
ENTITY_OF_SEAT = np.array(
    [[-1] * 4, [-1] * 4, [0, 1, -1, -1], [0, 1, 2, -1], [0, 1, 0, 1]], dtype=np.int64
)
N_ENTITIES = np.array([0, 0, 2, 3, 2], dtype=np.int64)

# ---------------------------------------------------------------------------
# Named tuples
# ---------------------------------------------------------------------------
Workspace = namedtuple(
    "Workspace",
    [
        "deal",
        "hands",
        "hand_sizes",
        "lacking",
        "scores",
        "nodes",
        "open_count",
        "open_nodes",
        "board",
        "cands",
        "rng",
        "round_stats",
        "match_totals",
        "seat_scratch",
        "cursor",
        "history",
    ],
)
Workspace.__doc__ = "Per-thread mutable match state; see the module docstring."

Trace = namedtuple("Trace", ["round_rows", "round_deals", "actions", "events", "answers"])
Trace.__doc__ = """Where a match's steps are written (any array may have no rows: nothing is written).

round_rows : int32[R, ROUND_FIELDS]; round_deals : int8[R, 28];
actions : int16[A, ACTION_FIELDS]; events : int32[E, EVENT_FIELDS];
answers : int64[D, ANSWER_FIELDS], the Python seats' recorded choices (input).
"""

DecisionBatch = namedtuple(
    "DecisionBatch",
    ["decisions", "scores", "hand_sizes", "lacking", "open_count", "nodes", "open_nodes", "cands",
     "history", "rng", "status", "totals", "final_scores"],
)
DecisionBatch.__doc__ = """Many matches in flight at once (:func:`new_decision_batch`, filled by
:func:`sim.engine.play.resume_matches`): the Python seats' decisions they wait on, one row per
decision in slot order (rows ``0 .. n - 1`` of the first ten arrays, ``n`` the call's return),
each with the fields of its seat's view as :class:`PlayerView`'s; and per slot what it waits on.

decisions : int64[W, DECISION_FIELDS]
    ``DECISION_SLOT`` (the slot whose match waits), ``DECISION_SEAT``, ``DECISION_HAND``,
    ``DECISION_BONEYARD``, ``DECISION_PLAYED``, ``DECISION_TOTAL``, ``DECISION_OPEN_VALUES``,
    ``DECISION_NODES``, ``DECISION_OPEN_NODES``, ``DECISION_CANDIDATES`` and
    ``DECISION_HISTORY`` (the view's scalars and row counts).
scores, hand_sizes, lacking : int64[W, 4]; open_count : int64[W, 7]
nodes : int64[W, MAX_NODES, NODE_FIELDS]; open_nodes : int64[W, MAX_NODES]
cands : int64[W, MAX_CANDIDATES, CAND_FIELDS]
history : int64[W, MAX_ACTIONS_PER_ROUND, HISTORY_FIELDS]
    Only the rows a decision counts are its own (the rest are stale); ``history`` is written only
    for seats whose strategies read it.
rng : uint64[W, 2]
    The deciding seat's stream ``[key, counter]`` (its counter after the decision is the answer's).
status : int64[W]
    Per slot: ``SLOT_IDLE``, ``SLOT_DECIDING`` or ``SLOT_FINISHED``.
totals : int64[W, MATCH_FIELDS]; final_scores : int64[W, MAX_ENTITIES]
    Per slot, a finished match's figures (``M_*``) and raw scores.
"""

DECISION_SLOT = 0
DECISION_SEAT = 1
DECISION_HAND = 2
DECISION_BONEYARD = 3
DECISION_PLAYED = 4
DECISION_TOTAL = 5
DECISION_OPEN_VALUES = 6
DECISION_NODES = 7
DECISION_OPEN_NODES = 8
DECISION_CANDIDATES = 9
DECISION_HISTORY = 10
DECISION_FIELDS = 11

SLOT_IDLE = 0
"""The slot holds no match."""
SLOT_DECIDING = 1
"""The slot's match waits for a Python seat's decision (a row of the batch's decisions)."""
SLOT_FINISHED = 2
"""The slot's match ended (its figures are in ``totals`` and ``final_scores``)."""

EXPORT_VIEW = 0
"""How :func:`sim.engine.play.resume_matches` exports a seat's waiting decision (its
``seat_export`` entry): the view's scalars and arrays, without the history."""
EXPORT_HISTORY = 1
"""The view with the round's public history."""
EXPORT_SEAT = 2
"""Only the slot, the seat and its stream (a caller that reads the workspaces itself:
:class:`sim.bridges.vector_env.FiveUpVectorEnv`). The view's arrays are the bulk of a step's
memory traffic with a thousand matches in flight."""


PlayerView = namedtuple(
    "PlayerView",
    [
        "seat",
        "players",
        "hand",
        "entity_of_seat",
        "scores",
        "hand_sizes",
        "lacking",
        "boneyard_size",
        "played",
        "total",
        "open_values",
        "n_nodes",
        "nodes",
        "open_count",
        "n_open_nodes",
        "open_nodes",
        "n_candidates",
        "cands",
        "params",
        "rng",
        "n_history",
        "history",
        "hidden_hands",
        "hidden_boneyard",
    ],
)
PlayerView.__doc__ = """What a strategy may know when it chooses a placement.

Sealed:

* every array but ``rng`` is read-only (:func:`core.sealed.read_only`): a
  write is a typing error when the strategy is compiled, never a change to
  the match;
* the layout, open-node, candidate and history arrays are cut to the rows in
  play (no stale rows of an earlier decision, round or match); the per-seat
  and per-entity arrays have 4 entries, those past the table always 0;
  ``params`` has exactly the strategy's own parameters;
* the decision stream is the seat's own, derived one-way from the match key
  (and keyed by the run secret under ``--sealed``);
* a strategy that is not built in is compiled apart with bounds checking
  (:mod:`sim.engine.checked_strategies`): an index past any end, negative
  or not, is an error naming the strategy, the match and the seat, never a
  read of the engine's memory beside the view.

Reading every word of every field reveals nothing beyond what the seat's
player may know.

Fields
------
seat, players : int64
    The deciding seat and the table size.
hand : int64
    Tile bitmask of the deciding seat's own hand (the only hand it sees).
entity_of_seat : int64[players]
    Scoring entity of each seat.
scores : int64[4]
    Raw score of each entity (index by entity; 0 past the last entity).
hand_sizes : int64[4]
    Tiles in each seat's hand (0 past the last seat).
lacking : int64[4]
    Per seat (0 past the last seat), the value set it is known to lack: the values open when it last
    drew, plus those open at its passes since.
boneyard_size : int64
    Tiles left to draw.
played : int64
    Tile bitmask of the layout.
total : int64
    Current scoring total of the layout.
open_values : int64
    Value set of the open connections.
n_nodes : int64
    Placements so far this round (0 when choosing the opening).
nodes : int64[n_nodes, NODE_FIELDS]
    The layout in play order, see the module docstring.
open_count : int64[7]
    Open connections per value.
n_open_nodes : int64
    Nodes with an open line side or arm.
open_nodes : int64[n_open_nodes]
    Those nodes, in increasing order.
n_candidates : int64
    Number of distinct legal placements to choose from (always >= 2: a
    single legal placement is played without asking).
cands : int64[n_candidates, CAND_FIELDS]
    The candidates, in node order then tile order (:func:`core.rules.list_placements`).
params : float64[P]
    This seat's strategy parameters, ``P`` = the strategy's own count, in its order.
rng : uint64[2]
    The seat's own decision stream; draw with :func:`core.rng.next_below` /
    ``next_unit``.
n_history : int64
    Public actions of the round so far.
history : int64[n_history, HISTORY_FIELDS]
    Those actions in order (seat, kind, placed tile or ``NO_TILE``, open
    values at the time, and a play's parent, side, joined value and points;
    see the module docstring).
hidden_hands : int64[0] or int64[players]
    Empty for every fair strategy. Only a strategy declared
    ``sees_hidden=True`` (an audit strategy such as ``cheater``, refused
    unless the run passes ``allow_hidden=True``) receives every seat's hand.
hidden_boneyard : int64[0] or int64[boneyard_size]
    Empty for every fair strategy; for ``sees_hidden`` strategies the
    boneyard's tiles in draw order.

A strategy returns the row index of its choice in ``cands``; it may advance
``rng`` (its own stream) and nothing else.
"""


def player_view_type():
    """The Numba type of the :class:`PlayerView` the engine hands a compiled strategy.

    Every array C-contiguous and read-only except ``rng`` (see the fields above);
    every number ``int64``. :mod:`sim.engine.checked_strategies` compiles a user's
    strategy for exactly this type before the engine (so its errors name the
    strategy, not the engine); ``tests/engine/test_kernel_sets.py`` checks it is
    the type ``_decide`` builds.
    """
    integer = types.int64

    def frozen(dtype, ndim):
        return types.Array(dtype, ndim, "C", readonly=True)

    fields = {
        "entity_of_seat": frozen(types.int64, 1), "scores": frozen(types.int64, 1),
        "hand_sizes": frozen(types.int64, 1), "lacking": frozen(types.int64, 1),
        "nodes": frozen(types.int64, 2), "open_count": frozen(types.int64, 1),
        "open_nodes": frozen(types.int64, 1), "cands": frozen(types.int64, 2),
        "params": frozen(types.float64, 1), "rng": types.Array(types.uint64, 1, "C"),
        "history": frozen(types.int64, 2), "hidden_hands": frozen(types.int64, 1),
        "hidden_boneyard": frozen(types.int64, 1),
    }
    return types.NamedTuple([fields.get(name, integer) for name in PlayerView._fields], PlayerView)


def new_decision_batch(slots: int) -> DecisionBatch:
    """A :class:`DecisionBatch` of ``slots`` rows, allocated once and refilled by every kernel call."""
    return DecisionBatch(
        np.zeros((slots, DECISION_FIELDS), dtype=np.int64),
        np.zeros((slots, MAX_ENTITIES), dtype=np.int64),
        np.zeros((slots, MAX_PLAYERS), dtype=np.int64),
        np.zeros((slots, MAX_PLAYERS), dtype=np.int64),
        np.zeros((slots, N_VALUES), dtype=np.int64),
        np.zeros((slots, MAX_NODES, NODE_FIELDS), dtype=np.int64),
        np.zeros((slots, MAX_NODES), dtype=np.int64),
        np.zeros((slots, MAX_CANDIDATES, CAND_FIELDS), dtype=np.int64),
        np.zeros((slots, MAX_ACTIONS_PER_ROUND, HISTORY_FIELDS), dtype=np.int64),
        np.zeros((slots, 2), dtype=np.uint64),
        np.zeros(slots, dtype=np.int64),
        np.zeros((slots, MATCH_FIELDS), dtype=np.int64),
        np.zeros((slots, MAX_ENTITIES), dtype=np.int64),
    )


# ---------------------------------------------------------------------------
# Workspace
# ---------------------------------------------------------------------------
@njit(cache=True)
def new_workspace():
    """Allocate one thread's :class:`Workspace` (see the module docstring)."""
    return Workspace(
        np.zeros(N_TILES, dtype=np.int64),
        np.zeros(MAX_PLAYERS, dtype=np.int64),
        np.zeros(MAX_PLAYERS, dtype=np.int64),
        np.zeros(MAX_PLAYERS, dtype=np.int64),
        np.zeros(MAX_ENTITIES, dtype=np.int64),
        np.zeros((MAX_NODES, NODE_FIELDS), dtype=np.int64),
        np.zeros(N_VALUES, dtype=np.int64),
        np.zeros(MAX_NODES, dtype=np.int64),
        np.zeros(BOARD_FIELDS, dtype=np.int64),
        np.zeros((MAX_CANDIDATES, CAND_FIELDS), dtype=np.int64),
        np.zeros((MAX_PLAYERS, 2), dtype=np.uint64),
        np.zeros(ROUND_FIELDS, dtype=np.int64),
        np.zeros(MATCH_FIELDS, dtype=np.int64),
        np.zeros((2, MAX_PLAYERS), dtype=np.int64),
        np.zeros(CURSOR_FIELDS, dtype=np.int64),
        np.zeros((MAX_ACTIONS_PER_ROUND, HISTORY_FIELDS), dtype=np.int64),
    )



def new_workspace_stack(count: int) -> Workspace:
    """``count`` workspaces as one :class:`Workspace` whose arrays have a leading axis of ``count``
    (the slots of matches in flight; :func:`workspace_of` gives slot ``k``'s)."""
    one = new_workspace()
    return Workspace(*[np.zeros((count,) + array.shape, dtype=array.dtype) for array in one])


@hot_kernel
def workspace_of(stack, slot):
    """Slot ``slot``'s :class:`Workspace` of a stack (:func:`new_workspace_stack`): views, no copy."""
    return Workspace(stack.deal[slot], stack.hands[slot], stack.hand_sizes[slot], stack.lacking[slot],
                     stack.scores[slot], stack.nodes[slot], stack.open_count[slot],
                     stack.open_nodes[slot], stack.board[slot], stack.cands[slot], stack.rng[slot],
                     stack.round_stats[slot], stack.match_totals[slot], stack.seat_scratch[slot],
                     stack.cursor[slot], stack.history[slot])
