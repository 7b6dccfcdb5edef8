"""A perfect-information round solver: the value of every placement of one world, searched to the
round's end.

Not a strategy: the search that ``pimc`` runs on each sampled world, that ``cheater`` runs on the
true one, and that an analysis of a record can run on the worlds a seat could have been in.

The game it solves
------------------
A *world* is a full deal of the round in play: every hand, the boneyard in draw order, the
layout and the scores. In a world every forced draw is known (the next tile of the boneyard), so
the rest of the round is a deterministic game of perfect information whose only moves are the
choices among two or more legal placements (a single legal placement, a draw and a pass are no
branch). The solver drives the engine's turn driver (:mod:`core.turns`: a turn's draws or
pass, :func:`~core.turns.take_turn`; the blocked end, :func:`~core.turns.blocked_now`)
and step core (:func:`~core.step.place`, with :func:`~core.step.quiet_trace`), and takes
placements back with the core's inverse (:func:`~core.step.take_back`), so score events,
exact-61 discards, the domino and the blocked settlements are the engine's own (rulings 5-13),
in the engine's turn order: after every turn a domino or an exact 305 ends the round, and with
the boneyard empty and no hand able to play it is blocked at once.

Values
------
A round's end is valued for the *deciding side* (the entity of ``view.seat``) exactly as
``matchplay`` values a playout's end (:func:`strategies.matchplay.outcome_value`): the
probability of winning the match from the scores and the next leader by the shipped win table
(2 players and partnerships; 1 or 0 when an event reached exactly 305), plus ``raw_weight``
times the round's raw differential; at 3 players, where no table ships, the raw differential
per 305 raw. A seat of the deciding side maximises, every other seat minimises: with 2 players
and in 4-player partnerships the game is zero-sum between two sides; with 3 players the search
is *paranoid* (the two other seats are taken to play against the deciding one).

Search
------
Alpha-beta (fail-soft) by iterative deepening over *choice depth* (the number of further
choices expanded below a root placement; forced plies are free), with

* **move ordering**: the transposition table's last best move first, then ``greedy``'s order
  (larger accepted award, heavier tile);
* **a transposition table** keyed by everything that decides the rest of the round in the
  world: the four hands, the draw pointer, the seat to act, the entity scores (packed exactly)
  and a Zobrist hash of the placements made since the root, each as a (tile, parent *tile*,
  side) triple (the root's layout is common to every state searched), so two orders of play
  that leave the same layout meet. Only the layout hash is not exact; the table
  stores values, bounds and an ordering *hint*, and a hint is used only when it names one of the
  node's own legal placements: a collision can never produce an illegal move. The table lives
  for one call (a generation counter retires the previous call's entries without clearing);
* **a node limit**: an iteration that would pass ``node_limit`` nodes is abandoned and the
  values of the last finished iteration stand (the first one, one playout per root placement,
  always finishes). A choice node at depth 0 is valued by a *playout* to the round's end
  (:func:`strategies.lookahead.continue_round` with the doubles policy, as ``matchplay``'s),
  so every value is defined. The result is *exact* when an iteration finished without any
  playout leaf: then each value equals plain minimax to the round's end (the tests check it
  against brute-force enumeration).

Undo is by saving the little state a ply changes (hands, hand sizes, scores, the layout's
board fields, open counts and open-node list, and the parent node's two open fields) rather
than copying the 35 kB workspace.

API
---
:func:`new_solver_scratch` (allocating; once per decision) returns a :data:`SolverScratch`;
:func:`load_world` copies a view's public state (layout, scores, hand sizes) into a world's
workspace; :func:`solve_world` fills ``values[row]`` for every row of ``view.cands`` and returns
whether the values are exact; :func:`solver_settings` builds the :data:`SolveSettings`;
``scratch.counters[COUNT_NODES]`` and ``[COUNT_DEPTH]`` tell how far it searched.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from core.jit import hot_kernel, kernel
from core.rng import mix64
from core.state import (BOARD_KEEP_HISTORY, BOARD_NODES, BOARD_OPEN_NODES, BOARD_OPEN_VALUES,
    BOARD_PLAYED, BOARD_TOTAL, CAND_FIELDS, CAND_JOINED, CAND_PARENT, CAND_POINTS, CAND_SIDE,
    CAND_TILE, END_NONE, MAX_ACTIONS_PER_ROUND, MAX_CANDIDATES, MAX_ENTITIES,
    MAX_PLAYERS, NODE_ARMS_OPEN, NODE_FIELDS, NODE_LINE_OPEN, NODE_TILE, NO_PARENT, TILE_PIPS,
    new_workspace)
from core.step import (KEPT_FIELDS, KEPT_HANDS, KEPT_SCORES, copy_position, keep_hands,
    keep_position, place, quiet_trace, restore_hands, take_back)
from core.turns import blocked_now, take_turn
from core.tiles import N_TILES, N_VALUES, TARGET_RAW
from strategies.lookahead import allocating, continue_round
from strategies.matchplay import outcome_value

SolveSettings = namedtuple(
    "SolveSettings", ["node_limit", "depth_limit", "playout_doubles", "match_value", "raw_weight"]
)
SolveSettings.__doc__ = """What one :func:`solve_world` call may spend and how it values a round's end.

Fields
------
node_limit : int64
    Nodes (turns entered) the search may visit; the iteration that would pass it is abandoned
    and the last finished one stands (the first iteration always finishes).
depth_limit : int64
    Deepest iteration (choices expanded below a root placement); ``NO_DEPTH_LIMIT``: none.
playout_doubles : float64
    Raw points the leaf playouts' policy adds for a double (0: ``greedy`` playouts).
match_value : float64
    1: value round ends by the win table; 0: by the raw differential (always at 3 players).
raw_weight : float64
    Weight of the round's raw differential per 305 raw added to the win probability.
"""

SolverScratch = namedtuple(
    "SolverScratch", ["playout", "moves", "saved", "keys", "frames", "bounds", "layout_keys",
                      "tt_keys", "tt_values", "tt_meta", "counters", "current"]
)
SolverScratch.__doc__ = """The solver's working memory (:func:`new_solver_scratch`), reused for every world of a decision.

Fields
------
playout : Workspace
    Where leaf playouts run (the search's own workspace is never disturbed by them).
moves : int64[MOVE_STACK, MOVE_FIELDS]
    The legal placements of every node on the current path, a stack: ``CAND_*`` columns and
    ``MOVE_ORDER`` (the ordering key).
saved : int64[SAVED_ROWS, KEPT_FIELDS]
    The root's state (row 0), then per frame the state its turn started from and the state
    after its draws (snapshot rows of :func:`core.step.keep_position`, ``KEPT_*`` columns).
keys : uint64[MAX_FRAMES, KEY_WORDS]
    Per frame, the key of its state (:func:`state_words`).
frames : int64[MAX_FRAMES, FRAME_FIELDS]; bounds : float64[MAX_FRAMES, BOUND_FIELDS]
    The search's explicit stack, one frame per turn on the path (``F_*``, ``B_*`` columns).
layout_keys : uint64[MAX_FRAMES]
    Per frame, the Zobrist hash of the placements since the root.
tt_keys : uint64[TT_SIZE, KEY_WORDS]; tt_values : float64[TT_SIZE]; tt_meta : int64[TT_SIZE]
    The transposition table: the state's key words, the value or bound, and the packed
    generation, bound kind, depth and best-move hint (``META_*`` shifts).
counters : int64[COUNTERS]
    ``COUNT_NODES`` turns entered in the last call (all iterations), ``COUNT_LEAVES`` values
    of the iteration in progress that are not exact (playout leaves, inexact table entries),
    ``COUNT_DEPTH`` the depth of the iteration whose values were returned, ``COUNT_EXACT`` 1
    when they are exact, ``COUNT_GENERATION`` the table's generation (one per call),
    ``COUNT_ABORT`` 1 while an iteration is being abandoned, ``COUNT_ABORTABLE`` 1 once the
    first iteration finished, ``COUNT_LIMIT`` the call's node limit.
current : float64[MAX_ROOT_ROWS]
    The root values of the iteration in progress.
"""

NO_DEPTH_LIMIT = -1
"""``SolveSettings.depth_limit``: iterate until exact or out of nodes."""

DEFAULT_NODE_LIMIT = 2000
"""A node limit for callers without a budget of their own (a millisecond or so)."""

# Move stack columns: the candidate's own, then the ordering key.
MOVE_ORDER = CAND_FIELDS
MOVE_FIELDS = CAND_FIELDS + 1
MOVE_STACK = 4096
"""Rows of the move stack. A node whose placements would not fit is valued by a playout (never
met in practice: a path holds at most 28 nodes of a few placements each)."""

MAX_FRAMES = MAX_ACTIONS_PER_ROUND + 1
"""Deepest path: one frame per turn (placement or pass) of a round."""
ROOT_ROWS = 1
"""``saved`` rows of the root: its state."""
PLY_ROWS = 2
"""``saved`` rows per frame: the state its turn started from, and the state after its draws."""
SAVED_ROWS = ROOT_ROWS + PLY_ROWS * MAX_FRAMES

MAX_ROOT_ROWS = MAX_CANDIDATES
"""Bound on a root's placements."""

# counters[...]
COUNT_NODES = 0
COUNT_LEAVES = 1
COUNT_DEPTH = 2
COUNT_EXACT = 3
COUNT_GENERATION = 4
COUNT_ABORT = 5
COUNT_ABORTABLE = 6
COUNT_LIMIT = 7
COUNTERS = 8

# Transposition table
TT_BITS = 12
"""log2 of the table's entries (4,096 x 48 bytes)."""
TT_SIZE = 1 << TT_BITS
KEY_WORDS = 4
"""Key words of a state: two of packed hands (with the seat and the draw pointer), one of packed
scores, one the Zobrist hash of the placements since the root."""
HAND_BITS = N_TILES
"""Bits of one packed hand."""
SEAT_SHIFT = 2 * HAND_BITS
DRAW_SHIFT = SEAT_SHIFT + 2
SCORE_BITS = 20
"""Bits of one packed score, offset by ``SCORE_OFFSET`` (a partnership's may be negative,
ruling 10; 1,000 rounds of partner debits stay far above -2**19)."""
SCORE_OFFSET = 1 << (SCORE_BITS - 1)
PACKED_SCORES = 3
"""Entities whose scores are packed (three at most)."""
PARENT_CODES = N_TILES + 1
"""Codes of a placement's parent tile: ``NO_PARENT`` (the opening) and the 28 tiles."""
SIDE_CODES = 3
"""``SIDE_NONE``, ``SIDE_LINE``, ``SIDE_ARM``."""
ZOBRIST_SALT = np.uint64(0x2545F4914F6CDD1D)
"""Spreads a placement's code over the word before mixing (the layout's Zobrist words)."""

# tt_meta packing, low bits first: bound | depth | hint | generation
BOUND_EXACT = 1
BOUND_LOWER = 2
BOUND_UPPER = 3
BOUND_BITS = 2
DEPTH_BITS = 8
DEPTH_COMPLETE = (1 << DEPTH_BITS) - 1
"""Stored depth of an entry whose subtree reached every end of the round (valid at any depth)."""
HINT_BITS = 16
META_DEPTH_SHIFT = BOUND_BITS
META_HINT_SHIFT = META_DEPTH_SHIFT + DEPTH_BITS
META_GENERATION_SHIFT = META_HINT_SHIFT + HINT_BITS
HINT_MASK = (1 << HINT_BITS) - 1
BOUND_MASK = (1 << BOUND_BITS) - 1
NO_HINT = 0
NO_ENTRY = -1
"""Table index of a node that is not stored (forced or a pass)."""

INFINITE = 1.0e300
"""Beyond any value (win probabilities and raw differentials per 305 are small)."""
NOT_ENDED = -2.0e300
""":func:`round_end_value` of a round that goes on (below every value and bound)."""

# frames[frame, ...]: one turn on the search's path
F_SEAT = 0
"""Seat to act."""
F_DRAW = 1
"""Draw pointer (after the turn's draws, once entered)."""
F_DEPTH = 2
"""Choices still expanded from this turn."""
F_TOP = 3
"""First row of its placements in ``moves``."""
F_KIND = 4
"""``KIND_CHOICE`` (one or more placements) or ``KIND_PASS``."""
F_COUNT = 5
"""Its placements."""
F_NEXT = 6
"""Row of ``moves`` of the placement being searched."""
F_INDEX = 7
"""Its table index, ``NO_ENTRY`` if not stored (a single placement)."""
F_CHILD_DEPTH = 8
"""Depth of the turns after its placements."""
F_LEAVES = 9
"""``COUNT_LEAVES`` when its placements began (its subtree is exact if it has not grown)."""
F_MAXIMISING = 10
"""1 if the seat is of the deciding side."""
F_BEST_CODE = 11
""":func:`move_code` of its best placement so far (the table's hint)."""
F_PARENT = 12
"""The current placement's parent node, and that node's two open fields before it:"""
F_LINE_OPEN = 13
F_ARMS_OPEN = 14
F_CODE = 15
"""The current placement's :func:`move_code`."""
F_PLACED = 16
"""1 while its current placement is on the layout."""
FRAME_FIELDS = 17
KIND_CHOICE = 0
KIND_PASS = 1

# bounds[frame, ...]
B_ALPHA = 0
B_BETA = 1
B_BEST = 2
B_ALPHA_IN = 3
"""The window the turn was entered with (which bound a stored value is)."""
B_BETA_IN = 4
BOUND_FIELDS = 5

# What the search loop does next
MODE_ENTER = 0
"""A turn begins (the frame's seat, draw pointer, depth, window and key are set)."""
MODE_PLACE = 1
"""Place the frame's next placement."""
MODE_RESULT = 2
"""``value`` is the frame's current placement's."""
MODE_RETURN = 3
"""``value`` is the frame's own: hand it to the frame before."""


ORDER_AWARD = 64
"""Ordering key = accepted award x ORDER_AWARD + pips (pips < ORDER_AWARD): award first."""
ORDER_HINT = 1 << 40
"""Added to the ordering key of the table's hinted move: it goes first."""


def solver_settings(node_limit=DEFAULT_NODE_LIMIT, depth_limit=NO_DEPTH_LIMIT, playout_doubles=8.0,
                    match_value=1.0, raw_weight=0.0):
    """A :data:`SolveSettings` with the types compiled code expects (for Python callers and tests)."""
    return SolveSettings(np.int64(node_limit), np.int64(depth_limit), np.float64(playout_doubles),
                         np.float64(match_value), np.float64(raw_weight))


@allocating
def new_solver_scratch():
    """A fresh :data:`SolverScratch` (about 400 kB; allocate once per decision, reuse per world)."""
    return SolverScratch(
        new_workspace(),
        np.zeros((MOVE_STACK, MOVE_FIELDS), dtype=np.int64),
        np.zeros((SAVED_ROWS, KEPT_FIELDS), dtype=np.int64),
        np.zeros((MAX_FRAMES, KEY_WORDS), dtype=np.uint64),
        np.zeros((MAX_FRAMES, FRAME_FIELDS), dtype=np.int64),
        np.zeros((MAX_FRAMES, BOUND_FIELDS), dtype=np.float64),
        np.zeros(MAX_FRAMES, dtype=np.uint64),
        np.zeros((TT_SIZE, KEY_WORDS), dtype=np.uint64),
        np.zeros(TT_SIZE, dtype=np.float64),
        np.zeros(TT_SIZE, dtype=np.int64),
        np.zeros(COUNTERS, dtype=np.int64),
        np.zeros(MAX_ROOT_ROWS, dtype=np.float64),
    )


# ---------------------------------------------------------------------------
# World set-up
# ---------------------------------------------------------------------------
@kernel
def load_world(ws, view):
    """Copy the public state of ``view`` into the world ``ws``: the layout, the scores and the
    hand sizes (its hands and boneyard are the caller's: sampled, or the true ones), with the
    history off (``BOARD_KEEP_HISTORY`` 0: a search writes no history)."""
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
    board[BOARD_OPEN_NODES] = view.n_open_nodes
    board[BOARD_KEEP_HISTORY] = 0
    for entity in range(MAX_ENTITIES):
        ws.scores[entity] = view.scores[entity]
    for seat in range(MAX_PLAYERS):
        ws.hand_sizes[seat] = view.hand_sizes[seat]


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------
@hot_kernel
def move_code(ws, tile, parent, side):
    """A placement on the layout in ``ws`` as a small positive code: its tile, its parent's
    *tile* (not the node index, which depends on the order of play) and its side."""
    parent_code = 0
    if parent != NO_PARENT:
        parent_code = ws.nodes[parent, NODE_TILE] + 1
    return (tile * PARENT_CODES + parent_code) * SIDE_CODES + side + 1


@hot_kernel
def zobrist(code):
    """The layout hash word of the placement ``code`` (:func:`move_code`)."""
    return mix64(np.uint64(code) * ZOBRIST_SALT)


@hot_kernel
def state_words(row, seat, next_draw, layout_key, words):
    """Fill ``words`` (uint64[KEY_WORDS]) with the key of the turn whose hands and scores
    :func:`save_hands` kept in ``row``; return its table index."""
    words[0] = np.uint64(row[KEPT_HANDS] | (row[KEPT_HANDS + 1] << HAND_BITS)
                         | (seat << SEAT_SHIFT) | (next_draw << DRAW_SHIFT))
    words[1] = np.uint64(row[KEPT_HANDS + 2] | (row[KEPT_HANDS + 3] << HAND_BITS))
    packed = 0
    for entity in range(PACKED_SCORES):
        packed |= (row[KEPT_SCORES + entity] + SCORE_OFFSET) << (entity * SCORE_BITS)
    words[2] = np.uint64(packed)
    words[3] = layout_key
    index = mix64(words[0] ^ mix64(words[1] ^ mix64(words[2] ^ layout_key)))
    return np.int64(index & np.uint64(TT_SIZE - 1))


@hot_kernel
def store_entry(scratch, index, words, value, bound, depth, hint):
    """Write one table entry (always replacing: the newest search is the likeliest to return)."""
    for word in range(KEY_WORDS):
        scratch.tt_keys[index, word] = words[word]
    scratch.tt_values[index] = value
    scratch.tt_meta[index] = ((scratch.counters[COUNT_GENERATION] << META_GENERATION_SHIFT)
                              | (hint << META_HINT_SHIFT) | (depth << META_DEPTH_SHIFT) | bound)


# ---------------------------------------------------------------------------
# Leaves and ends
# ---------------------------------------------------------------------------
@kernel
def playout_leaf(ws, view, scratch, settings, seat, next_draw, tie_seat):
    """Value of ``seat``'s turn in ``ws`` by one playout to the round's end, run on
    ``scratch.playout`` (whose boneyard :func:`solve_world` loaded); ``ws`` is not touched."""
    pw = scratch.playout
    copy_position(ws, pw)
    end = continue_round(pw, view, seat, next_draw, tie_seat, -1, settings.playout_doubles)
    return outcome_value(pw, view, end, settings.match_value, settings.raw_weight)


@hot_kernel
def order_moves(moves, first, count, score, hint_row):
    """Sort ``moves[first:first+count]`` by descending ordering key: ``hint_row`` first, then
    greedy's order (accepted award, then pips), listing order among equals."""
    for k in range(first, first + count):
        points = moves[k, CAND_POINTS]
        award = points if score + points <= TARGET_RAW else 0
        moves[k, MOVE_ORDER] = award * ORDER_AWARD + TILE_PIPS[moves[k, CAND_TILE]]
        if k == hint_row:
            moves[k, MOVE_ORDER] += ORDER_HINT
    for k in range(first + 1, first + count):  # insertion sort: a handful of rows
        j = k
        while j > first and moves[j - 1, MOVE_ORDER] < moves[j, MOVE_ORDER]:
            for field in range(MOVE_FIELDS):
                swap = moves[j, field]
                moves[j, field] = moves[j - 1, field]
                moves[j - 1, field] = swap
            j -= 1


@hot_kernel
def round_end_value(ws, view, settings, end, next_draw, tie_seat):
    """After a placement whose step returned ``end``: the value of the round's end if it ended
    (a domino, an exact 305) or is blocked now (ruling 6: the boneyard empty and no hand able
    to play; settled here), else ``NOT_ENDED``."""
    if end == END_NONE:
        end = blocked_now(ws, quiet_trace(ws), view.players, view.entity_of_seat, next_draw, tie_seat)
    if end == END_NONE:
        return NOT_ENDED
    return outcome_value(ws, view, end, settings.match_value, settings.raw_weight)


@hot_kernel
def start_row(frame):
    """Row of ``scratch.saved`` with the state ``frame``'s turn started from (the next row: the
    state after its draws)."""
    return ROOT_ROWS + PLY_ROWS * frame


@hot_kernel
def undo_placement(ws, scratch, frame):
    """Take ``frame``'s current placement back: the state after its draws, and the parent node's
    two open fields."""
    frames = scratch.frames
    take_back(ws, scratch.saved[start_row(frame) + 1], frames[frame, F_PARENT],
              frames[frame, F_LINE_OPEN], frames[frame, F_ARMS_OPEN])
    frames[frame, F_PLACED] = 0


@hot_kernel
def unwind(ws, scratch, frame):
    """Undo every turn on the path from ``frame`` down to the first (an abandoned iteration)."""
    frames = scratch.frames
    for level in range(frame, -1, -1):
        if frames[level, F_KIND] == KIND_CHOICE and frames[level, F_PLACED] != 0:
            undo_placement(ws, scratch, level)
        restore_hands(ws, scratch.saved[start_row(level)])


@hot_kernel
def push_turn(scratch, frame, seat, next_draw, depth, top, layout_key):
    """Set up frame ``frame + 1``: the next turn, ``seat`` to act, with ``frame``'s window."""
    frames = scratch.frames
    bounds = scratch.bounds
    child = frame + 1
    frames[child, F_SEAT] = seat
    frames[child, F_DRAW] = next_draw
    frames[child, F_DEPTH] = depth
    frames[child, F_TOP] = top
    bounds[child, B_ALPHA] = bounds[frame, B_ALPHA]
    bounds[child, B_BETA] = bounds[frame, B_BETA]
    scratch.layout_keys[child] = layout_key
    return child


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------
@kernel
def turn_value(ws, view, scratch, settings, seat, next_draw, tie_seat, depth, layout_key, top):
    """Minimax value (alpha-beta, fail-soft, full window) of ``seat``'s turn in the world ``ws``.

    An explicit stack of frames, one per turn on the path (``scratch.frames``, ``.bounds``,
    ``.layout_keys``), rather than recursion: a recursive function loaded from Numba's disk
    cache crashed.

    Parameters
    ----------
    ws : Workspace
        The world at the start of ``seat``'s turn; restored on return.
    view : PlayerView
        The deciding seat (its side maximises) and the scores before the decision.
    scratch : SolverScratch
    settings : SolveSettings
    seat, next_draw, tie_seat : int64
        Seat to act, draw pointer into ``ws.deal``, the blocked settlement's first seat.
    depth : int64
        Choices still expanded; a choice node at depth 0 is a playout leaf.
    layout_key : uint64
        Zobrist hash of the placements since the root.
    top : int64
        First free row of ``scratch.moves``.

    Returns
    -------
    float64
        The value for the deciding side (0.0, meaningless, once the iteration is abandoned:
        ``scratch.counters[COUNT_ABORT]``).
    """
    counters = scratch.counters
    frames = scratch.frames
    bounds = scratch.bounds
    moves = scratch.moves
    players = view.players
    entity_of_seat = view.entity_of_seat
    me = entity_of_seat[view.seat]
    trace = quiet_trace(ws)
    frame = 0
    frames[0, F_SEAT] = seat
    frames[0, F_DRAW] = next_draw
    frames[0, F_DEPTH] = depth
    frames[0, F_TOP] = top
    bounds[0, B_ALPHA] = -INFINITE
    bounds[0, B_BETA] = INFINITE
    scratch.layout_keys[0] = layout_key
    mode = MODE_ENTER
    value = 0.0
    while True:
        if mode == MODE_ENTER:
            # A turn begins: its draws, its placements, then the table, a leaf, or a pass.
            counters[COUNT_NODES] += 1
            if counters[COUNT_ABORTABLE] != 0 and counters[COUNT_NODES] > counters[COUNT_LIMIT]:
                counters[COUNT_ABORT] = 1
                unwind(ws, scratch, frame - 1)
                return 0.0
            seat = frames[frame, F_SEAT]
            next_draw = frames[frame, F_DRAW]
            start = scratch.saved[start_row(frame)]
            keep_hands(ws, start)  # the state the turn starts from: its key; what draws change
            start_draw = next_draw
            # ruling 5: draw until a playable tile (known in a world), or pass
            count, next_draw = take_turn(ws, trace, seat, next_draw)
            frames[frame, F_DRAW] = next_draw
            frames[frame, F_PLACED] = 0
            if count == 0:  # a pass: the boneyard is empty
                blocked = blocked_now(ws, trace, players, entity_of_seat, next_draw, tie_seat)
                if blocked != END_NONE:
                    value = outcome_value(ws, view, blocked, settings.match_value,
                                          settings.raw_weight)
                    restore_hands(ws, start)
                    mode = MODE_RETURN
                    continue
                frames[frame, F_KIND] = KIND_PASS
                frame = push_turn(scratch, frame, (seat + 1) % players, next_draw,
                                  frames[frame, F_DEPTH], frames[frame, F_TOP],
                                  scratch.layout_keys[frame])
                continue
            frames[frame, F_KIND] = KIND_CHOICE
            depth = frames[frame, F_DEPTH]
            top = frames[frame, F_TOP]
            words = scratch.keys[frame]
            index = NO_ENTRY
            hint = NO_HINT
            child_depth = depth
            if count >= 2:  # a choice: the table, then the depth
                index = state_words(start, seat, start_draw, scratch.layout_keys[frame], words)
                meta = scratch.tt_meta[index]
                stored = scratch.tt_keys[index]
                if meta >> META_GENERATION_SHIFT == counters[COUNT_GENERATION] \
                        and stored[0] == words[0] and stored[1] == words[1] \
                        and stored[2] == words[2] and stored[3] == words[3]:
                    hint = (meta >> META_HINT_SHIFT) & HINT_MASK
                    stored_depth = (meta >> META_DEPTH_SHIFT) & DEPTH_COMPLETE
                    if stored_depth >= depth:
                        bound = meta & BOUND_MASK
                        stored_value = scratch.tt_values[index]
                        if bound == BOUND_EXACT \
                                or (bound == BOUND_LOWER and stored_value >= bounds[frame, B_BETA]) \
                                or (bound == BOUND_UPPER and stored_value <= bounds[frame, B_ALPHA]):
                            if stored_depth != DEPTH_COMPLETE:
                                counters[COUNT_LEAVES] += 1  # a value that rests on playouts
                            value = stored_value
                            restore_hands(ws, start)
                            mode = MODE_RETURN
                            continue
                child_depth = depth - 1
            if (count >= 2 and depth <= 0) or top + count > MOVE_STACK:
                counters[COUNT_LEAVES] += 1
                value = playout_leaf(ws, view, scratch, settings, seat, next_draw, tie_seat)
                restore_hands(ws, start)
                if index != NO_ENTRY:
                    store_entry(scratch, index, words, value, BOUND_EXACT, 0, NO_HINT)
                mode = MODE_RETURN
                continue
            hint_row = -1
            for k in range(count):
                for field in range(CAND_FIELDS):
                    moves[top + k, field] = ws.cands[k, field]
                if hint != NO_HINT and move_code(ws, ws.cands[k, CAND_TILE], ws.cands[k, CAND_PARENT],
                                                 ws.cands[k, CAND_SIDE]) == hint:
                    hint_row = top + k
            if count >= 2:
                order_moves(moves, top, count, ws.scores[entity_of_seat[seat]], hint_row)
            keep_position(ws, scratch.saved[start_row(frame) + 1])  # what every placement starts from
            frames[frame, F_COUNT] = count
            frames[frame, F_NEXT] = top
            frames[frame, F_INDEX] = index
            frames[frame, F_CHILD_DEPTH] = child_depth
            frames[frame, F_LEAVES] = counters[COUNT_LEAVES]
            frames[frame, F_MAXIMISING] = 1 if entity_of_seat[seat] == me else 0
            frames[frame, F_BEST_CODE] = NO_HINT
            bounds[frame, B_ALPHA_IN] = bounds[frame, B_ALPHA]
            bounds[frame, B_BETA_IN] = bounds[frame, B_BETA]
            bounds[frame, B_BEST] = -INFINITE if frames[frame, F_MAXIMISING] != 0 else INFINITE
            mode = MODE_PLACE
        elif mode == MODE_PLACE:
            # Place the frame's next placement: a round's end is valued at once, else next turn.
            k = frames[frame, F_NEXT]
            seat = frames[frame, F_SEAT]
            tile = moves[k, CAND_TILE]
            parent = moves[k, CAND_PARENT]
            side = moves[k, CAND_SIDE]
            frames[frame, F_PARENT] = parent
            if parent != NO_PARENT:
                frames[frame, F_LINE_OPEN] = ws.nodes[parent, NODE_LINE_OPEN]
                frames[frame, F_ARMS_OPEN] = ws.nodes[parent, NODE_ARMS_OPEN]
            code = move_code(ws, tile, parent, side)
            frames[frame, F_CODE] = code
            frames[frame, F_PLACED] = 1
            end = place(ws, trace, players, entity_of_seat, seat, tile, parent, side,
                        moves[k, CAND_JOINED])
            next_draw = frames[frame, F_DRAW]
            value = round_end_value(ws, view, settings, end, next_draw, tie_seat)
            if value != NOT_ENDED:
                mode = MODE_RESULT
                continue
            frame = push_turn(scratch, frame, (seat + 1) % players, next_draw,
                              frames[frame, F_CHILD_DEPTH], frames[frame, F_TOP] + frames[frame, F_COUNT],
                              scratch.layout_keys[frame] ^ zobrist(code))
            mode = MODE_ENTER
        elif mode == MODE_RESULT:
            # ``value`` is the frame's current placement's: take it back, keep the best, go on.
            undo_placement(ws, scratch, frame)
            k = frames[frame, F_NEXT]
            if frames[frame, F_MAXIMISING] != 0:
                if value > bounds[frame, B_BEST]:
                    bounds[frame, B_BEST] = value
                    frames[frame, F_BEST_CODE] = frames[frame, F_CODE]
                if value > bounds[frame, B_ALPHA]:
                    bounds[frame, B_ALPHA] = value
            else:
                if value < bounds[frame, B_BEST]:
                    bounds[frame, B_BEST] = value
                    frames[frame, F_BEST_CODE] = frames[frame, F_CODE]
                if value < bounds[frame, B_BETA]:
                    bounds[frame, B_BETA] = value
            last = k + 1 == frames[frame, F_TOP] + frames[frame, F_COUNT]
            if bounds[frame, B_ALPHA] < bounds[frame, B_BETA] and not last:
                frames[frame, F_NEXT] = k + 1
                mode = MODE_PLACE
                continue
            best = bounds[frame, B_BEST]
            restore_hands(ws, scratch.saved[start_row(frame)])
            index = frames[frame, F_INDEX]
            if index != NO_ENTRY:
                bound = BOUND_EXACT
                if best <= bounds[frame, B_ALPHA_IN]:
                    bound = BOUND_UPPER
                elif best >= bounds[frame, B_BETA_IN]:
                    bound = BOUND_LOWER
                stored_depth = frames[frame, F_DEPTH]
                if counters[COUNT_LEAVES] == frames[frame, F_LEAVES]:
                    stored_depth = DEPTH_COMPLETE
                store_entry(scratch, index, scratch.keys[frame], best, bound, stored_depth,
                            frames[frame, F_BEST_CODE])
            value = best
            mode = MODE_RETURN
        else:
            # MODE_RETURN: ``value`` is the frame's own; hand it to the turn before.
            if frame == 0:
                return value
            frame -= 1
            if frames[frame, F_KIND] == KIND_PASS:
                restore_hands(ws, scratch.saved[start_row(frame)])
                continue  # still returning: a pass's value is its next turn's
            mode = MODE_RESULT


@kernel
def root_values(ws, view, scratch, settings, next_draw, tie_seat, depth, values):
    """One iteration: every root placement (the first ``view.n_candidates`` rows of
    ``scratch.moves``) searched with the full window to ``depth``, into ``values``."""
    players = view.players
    seat = view.seat
    root = scratch.saved[0]
    keep_position(ws, root)
    moves = scratch.moves
    trace = quiet_trace(ws)
    n = view.n_candidates
    for row in range(n):
        tile = moves[row, CAND_TILE]
        parent = moves[row, CAND_PARENT]
        side = moves[row, CAND_SIDE]
        line_open = 0
        arms_open = 0
        if parent != NO_PARENT:
            line_open = ws.nodes[parent, NODE_LINE_OPEN]
            arms_open = ws.nodes[parent, NODE_ARMS_OPEN]
        # The root's layout hashes as 0: every state searched shares it.
        layout_key = zobrist(move_code(ws, tile, parent, side))
        end = place(ws, trace, players, view.entity_of_seat, seat, tile, parent, side,
                    moves[row, CAND_JOINED])
        value = round_end_value(ws, view, settings, end, next_draw, tie_seat)
        if value == NOT_ENDED:
            value = turn_value(ws, view, scratch, settings, (seat + 1) % players, next_draw,
                               tie_seat, depth, layout_key, n)
        values[row] = value
        take_back(ws, root, parent, line_open, arms_open)
        if scratch.counters[COUNT_ABORT] != 0:
            break


@kernel
def solve_world(ws, view, scratch, settings, next_draw, tie_seat, values):
    """The value of every placement of ``view.seat`` in the world ``ws``.

    Parameters
    ----------
    ws : Workspace
        The world: every hand (``ws.hands``, ``ws.hand_sizes``), the boneyard in draw order
        ``ws.deal[next_draw:]``, and the layout and scores of ``view`` (:func:`load_world`).
        Unchanged on return. Its arrays must be its own: none of ``view``'s may point into
        them (``view.scores`` are the scores before the decision while ``ws.scores`` move).
    view : PlayerView
        The decision: ``view.seat`` acts and its side is the deciding side; ``view.cands``
        (rows ``0..n_candidates-1``) are its legal placements in ``ws``; ``view.scores`` the
        scores now; ``view.players`` and ``view.entity_of_seat`` the table.
    scratch : SolverScratch
        :func:`new_solver_scratch`, reused from call to call (entries of earlier calls are
        retired by a generation count, never read).
    settings : SolveSettings
        Node limit, depth limit and valuation (:func:`solver_settings`).
    next_draw : int64
        Draw pointer: the boneyard is ``ws.deal[next_draw:]``.
    tie_seat : int64
        First seat of the blocked settlement's clockwise tie order (the engine's is the
        round's leader, which a view does not name; strategies pass the deciding seat, as
        playouts do).
    values : float64[>= view.n_candidates]
        Filled: ``values[row]`` is the value of ``view.cands[row]`` for the deciding side.

    Returns
    -------
    int64
        1 if every value is exact (minimax to the round's end), 0 if some rest on playouts.
        ``scratch.counters[COUNT_NODES]`` holds the turns visited and ``[COUNT_DEPTH]`` the
        depth of the iteration whose values were returned.
    """
    counters = scratch.counters
    counters[COUNT_GENERATION] += 1
    counters[COUNT_NODES] = 0
    counters[COUNT_ABORT] = 0
    counters[COUNT_ABORTABLE] = 0
    counters[COUNT_LIMIT] = settings.node_limit
    counters[COUNT_EXACT] = 0
    counters[COUNT_DEPTH] = 0
    ws.board[BOARD_KEEP_HISTORY] = 0
    pw = scratch.playout
    pw.board[BOARD_KEEP_HISTORY] = 0
    for k in range(next_draw, N_TILES):
        pw.deal[k] = ws.deal[k]
    for row in range(view.n_candidates):  # the root's moves, apart from ws.cands (the search's)
        for field in range(CAND_FIELDS):
            scratch.moves[row, field] = view.cands[row, field]
    current = scratch.current
    # int64, not the literal 0: a call typed with Literal[int](0) first would compile
    # root_values and turn_value (most of the solver's compile) a second time.
    depth = np.int64(0)
    while True:
        counters[COUNT_LEAVES] = 0
        root_values(ws, view, scratch, settings, next_draw, tie_seat, depth, current)
        if counters[COUNT_ABORT] != 0:
            break  # the last finished iteration's values stand
        for row in range(view.n_candidates):
            values[row] = current[row]
        counters[COUNT_DEPTH] = depth
        counters[COUNT_ABORTABLE] = 1
        if counters[COUNT_LEAVES] == 0:
            counters[COUNT_EXACT] = 1
            break
        if depth == settings.depth_limit or counters[COUNT_NODES] >= settings.node_limit:
            break
        depth += 1
    return counters[COUNT_EXACT]


__all__ = [
    "SolveSettings", "SolverScratch", "NO_DEPTH_LIMIT", "DEFAULT_NODE_LIMIT", "COUNT_NODES",
    "COUNT_LEAVES", "COUNT_DEPTH", "COUNT_EXACT", "solver_settings", "new_solver_scratch",
    "load_world", "solve_world",
]
