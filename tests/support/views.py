"""Hand-built game states and player views for strategy tests.

A :class:`Table` holds a whole state (layout, every hand, boneyard, scores,
lacking values) in a :class:`core.state.Workspace` built with the engine's
own primitives; :meth:`Table.view` builds the sealed
:class:`core.state.PlayerView` field for field as the engine's ``_decide``
does (layout, open-node and candidate arrays cut to their rows in play, the
seat's own decision stream), so a strategy's ``choose`` can be called on it
from Python.

Test strategies (those defined here have this file as their code digest, so
editing it recompiles the kernel sets that hold them):

``DOUBLES``
    The worked user strategy ``doubles`` of ``examples/doubles.py`` (award plus
    ``double_bonus`` raw points for a double, ties in greedy's order).
``SPY``
    Folds every word of every field and array of its view into a hash and
    picks ``hash % n_candidates``: any hidden word it were handed would show
    in its choices (``tests/strategies/test_sealed.py``).
``STALE_CHECK``
    Greedy's choice, but returns an invalid row unless every array it is
    handed holds only rows in play (shapes equal the counts, every candidate
    tile in its hand, every node tile played, unused seats and entities 0).
``COUNTER_CHECK``
    Greedy's choice, but returns an invalid row unless its decision-stream
    counter is 0 (it never draws, so only another seat's draws could move it).
"""

from __future__ import annotations

import numpy as np

import strategies
from strategies import toolkit as tk
from tests.support.paths import EXAMPLES
from core import state as K
from core.bits import bit_count
from core import rules
from core import rng as R
from core.tiles import HAND_SIZE, N_TILES, TILES, tile_index


def read_only_view(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (the same memory: the table's later changes show through)."""
    sealed = array.view()
    sealed.flags.writeable = False
    return sealed


def mask(tiles) -> int:
    """Bitmask of (a, b) tiles."""
    result = 0
    for tile in tiles:
        result |= 1 << tile_index(*tile)
    return result


def value_set(values) -> int:
    result = 0
    for value in values:
        result |= 1 << value
    return result


class Table:
    """A hand-built state.

    Parameters
    ----------
    players : int
    opening : (a, b) or None
        Opening tile; None for an empty layout (the seat opens).
    plays : list of (tile, joined) or (tile, joined, parent)
        Later placements in order: ``tile`` joins value ``joined`` (at node
        ``parent`` if given, else the first node offering that value).
    hands : list of lists of tiles, one per seat
    boneyard : list of tiles (draw order); default: every other tile
    scores : raw score per entity
    lacking : list of value lists per seat
    """

    def __init__(self, players, opening, plays, hands, boneyard=None, scores=None, lacking=None):
        self.players = players
        ws = K.new_workspace()
        used = set()
        self.placements = []  # (tile, parent, side, joined) in play order
        if opening is not None:
            rules.open_layout(ws, tile_index(*opening))
            used.add(tile_index(*opening))
            self.placements.append((tile_index(*opening), K.NO_PARENT, K.SIDE_NONE, min(opening)))
        for play in plays:
            tile = tile_index(*play[0])
            joined = play[1]
            parent = play[2] if len(play) > 2 else None
            count = rules.list_placements(ws, np.int64(1 << tile))
            rows = [r for r in range(count) if ws.cands[r, K.CAND_JOINED] == joined
                    and (parent is None or ws.cands[r, K.CAND_PARENT] == parent)]
            assert rows, f"{play} cannot be placed"
            r = rows[0]
            rules.place_tile(ws, tile, ws.cands[r, K.CAND_PARENT], ws.cands[r, K.CAND_SIDE], joined)
            self.placements.append((tile, int(ws.cands[r, K.CAND_PARENT]), int(ws.cands[r, K.CAND_SIDE]), joined))
            used.add(tile)
        for seat, hand in enumerate(hands):
            ws.hands[seat] = mask(hand)
            ws.hand_sizes[seat] = len(hand)
            used |= {tile_index(*t) for t in hand}
        if boneyard is None:
            boneyard = [TILES[t] for t in range(N_TILES) if t not in used]
        self.boneyard = [tile_index(*t) for t in boneyard]
        start = N_TILES - len(self.boneyard)
        ws.deal[start:] = self.boneyard
        assert len(used) + len(self.boneyard) == N_TILES, "every tile must be somewhere exactly once"
        for entity, score in enumerate(scores or []):
            ws.scores[entity] = score
        for seat, values in enumerate(lacking or []):
            ws.lacking[seat] = value_set(values)
        self.ws = ws
        self.hands = [list(hand) for hand in hands]
        self.lacking = [set(values) for values in (lacking or [[]] * players)]
        self.lacking += [set()] * (players - len(self.lacking))

    def reference_layout(self):
        """The same layout as a :class:`sim.reference.Layout`."""
        from sim import reference

        layout = reference.Layout()
        for tile, parent, side, joined in self.placements:
            layout.place(reference_placement(tile, parent, side, joined))
        return layout

    def candidates(self, seat: int) -> int:
        """List the seat's candidates into ``ws.cands``; return how many."""
        ws = self.ws
        if ws.board[K.BOARD_NODES] == 0:
            return rules.list_openings(ws, np.int64(ws.hands[seat]))
        playable = ws.hands[seat] & K.TILES_MATCHING[ws.board[K.BOARD_OPEN_VALUES]]
        return rules.list_placements(ws, np.int64(playable))

    def view(self, seat: int, params=None, stream=(1, 2)):
        """The seat's sealed PlayerView (candidates listed), as the engine's ``_decide`` builds it.

        ``stream`` is ``(seed, match)``: the seat's decision stream is
        :func:`core.rng.decision_state` ``(seed, match, seat)``.
        """
        ws = self.ws
        count = self.candidates(seat)
        board = ws.board
        entity_of_seat = K.ENTITY_OF_SEAT[self.players, : self.players].copy()
        if params is None:
            params = np.zeros(1)
        # Read-only as in the engine (sim.engine.play.seat_view), all but the seat's stream: the
        # same Numba type, so a strategy called here runs the helpers compiled (and cached) for
        # the engine's views, and a write to its view fails here as it would there.
        return K.PlayerView(
            np.int64(seat),
            np.int64(self.players),
            np.int64(ws.hands[seat]),
            read_only_view(entity_of_seat),
            read_only_view(ws.scores),
            read_only_view(ws.hand_sizes),
            read_only_view(ws.lacking),
            np.int64(len(self.boneyard)),
            np.int64(board[K.BOARD_PLAYED]),
            np.int64(board[K.BOARD_TOTAL]),
            np.int64(board[K.BOARD_OPEN_VALUES]),
            np.int64(board[K.BOARD_NODES]),
            read_only_view(ws.nodes[: board[K.BOARD_NODES]]),
            read_only_view(ws.open_count),
            np.int64(board[K.BOARD_OPEN_NODES]),
            read_only_view(ws.open_nodes[: board[K.BOARD_OPEN_NODES]]),
            np.int64(count),
            read_only_view(ws.cands[:count]),
            read_only_view(np.asarray(params, dtype=np.float64)),
            R.decision_state(stream[0], stream[1], seat),
            np.int64(0),  # a scripted table has a layout but no action history
            read_only_view(ws.history[:0]),
            read_only_view(ws.hands[:0]),
            read_only_view(ws.deal[:0]),
        )

    def unsealed_view(self, seat: int, params=None, stream=(1, 2)):
        """The view as the engine built it before it was sealed: whole arrays (rows past the
        counts hold earlier decisions' data). Only for showing that a check detects that leak."""
        view = self.view(seat, params, stream)
        ws = self.ws
        return view._replace(nodes=ws.nodes, open_nodes=ws.open_nodes, cands=ws.cands)

    def describe(self, row: int) -> tuple:
        """(tile, joined, points) of candidate ``row``."""
        c = self.ws.cands[row]
        return TILES[c[K.CAND_TILE]], int(c[K.CAND_JOINED]), int(c[K.CAND_POINTS])


def reference_placement(tile, parent, side, joined):
    """The :class:`sim.reference.Placement` of an engine candidate."""
    from sim import reference

    low, high = TILES[tile]
    if parent == K.NO_PARENT:
        return reference.Placement((low, high), None, None)
    other = low + high - joined
    return reference.Placement((joined, other), int(parent), "line" if side == K.SIDE_LINE else "arm")


def strategy_named(name: str):
    """The :class:`strategies.Strategy` of a built-in name or of a test strategy of this module
    (``doubles``, ``spy``, ``stale_check``, ``counter_check``)."""
    mine = {s.name: s for s in (DOUBLES, SPY, STALE_CHECK, COUNTER_CHECK)}
    return mine[name] if name in mine else strategies.resolve(name)


def params_for(name: str, **overrides) -> np.ndarray:
    """Default parameter row of a strategy, with overrides by name (at least 1 wide)."""
    info = strategy_named(name)
    row = info.default_params()
    names = [p.name for p in info.parameters]
    for key, value in overrides.items():
        row[names.index(key)] = value
    return row if row.size else np.zeros(1)


def choice(name: str, table: Table, seat: int = 0, **overrides) -> tuple:
    """(tile, joined, points) that strategy ``name`` picks for ``seat``."""
    view = table.view(seat, params_for(name, **overrides))
    row = strategy_named(name).choose(view)
    assert 0 <= row < view.n_candidates
    return table.describe(row)


def random_state(generator, players, placed):
    """(opening, plays, hands, boneyard) of a random legal mid-round layout."""
    order = [int(t) for t in generator.permutation(N_TILES)]
    ws = K.new_workspace()
    rules.open_layout(ws, order[0])
    opening = TILES[order[0]]
    plays = []
    rest = order[1:]
    while len(plays) < placed:
        mask = sum(1 << t for t in rest)
        count = rules.list_placements(ws, np.int64(mask))
        if count == 0:
            break
        row = int(generator.integers(count))
        c = ws.cands[row]
        tile = int(c[K.CAND_TILE])
        rules.place_tile(ws, tile, c[K.CAND_PARENT], c[K.CAND_SIDE], c[K.CAND_JOINED])
        plays.append((TILES[tile], int(c[K.CAND_JOINED]), int(c[K.CAND_PARENT])))
        rest.remove(tile)
    sizes = [int(generator.integers(1, 7)) for _ in range(players)]
    hands = []
    for size in sizes:
        hands.append([TILES[t] for t in rest[:size]])
        rest = rest[size:]
    return opening, plays, hands, [TILES[t] for t in rest]



def random_tables(generator, cases: int):
    """Yield ``(case, table, state)`` for ``cases`` random mid-round states: 2, 3, 4 players in
    turn, 0-8 tiles placed, every entity at a random multiple of 5 below 310. ``state`` holds
    the :class:`Table` arguments (``Table(**state)`` is ``table``), to rebuild it re-dealt."""
    for case in range(cases):
        players = 2 + case % 3
        opening, plays, hands, boneyard = random_state(generator, players, int(generator.integers(0, 9)))
        scores = [int(generator.integers(0, 62)) * 5 for _ in range(K.N_ENTITIES[players])]
        state = {"players": players, "opening": opening, "plays": plays, "hands": hands,
                 "boneyard": boneyard, "scores": scores}
        yield case, Table(**state), state

def redeal(generator, hands, boneyard, seat):
    """Other hands and boneyard re-dealt from the same tiles with the same sizes."""
    hidden = [t for s, hand in enumerate(hands) if s != seat for t in hand] + list(boneyard)
    hidden = [hidden[i] for i in generator.permutation(len(hidden))]
    new_hands = []
    for s, hand in enumerate(hands):
        if s == seat:
            new_hands.append(list(hand))
        else:
            new_hands.append(hidden[: len(hand)])
            hidden = hidden[len(hand):]
    return new_hands, hidden


# ---------------------------------------------------------------------------
# Test strategies
# ---------------------------------------------------------------------------
DOUBLES = strategies.resolve(f"{EXAMPLES / 'doubles.py'}:doubles")
"""The worked user strategy of ``examples/doubles.py``."""

DOUBLES_FIELD = [DOUBLES, "weighted", "defensive", "greedy"]
"""``doubles`` and the built-ins it is played against in the tests, compiled together (one
kernel set for test_legal's and test_examples' runs): a slot that no seat uses changes nothing."""


@tk.helper
def _fold(state, word):
    """One step of the spy's hash (uint64)."""
    return R.mix64(state ^ np.uint64(word)) + R.GOLDEN_GAMMA


@tk.helper
def _fold_array_1d(state, array):
    state = _fold(state, array.shape[0])
    for i in range(array.shape[0]):
        state = _fold(state, array[i])
    return state


@tk.helper
def _fold_array_2d(state, array):
    state = _fold(state, array.shape[0])
    state = _fold(state, array.shape[1])
    for i in range(array.shape[0]):
        for j in range(array.shape[1]):
            state = _fold(state, array[i, j])
    return state


@strategies.strategy(name="spy", description="Hashes every word of its view; picks hash % n_candidates.")
def spy(view):
    """Row ``hash(every field, every element) % n_candidates``."""
    h = np.uint64(0x243F6A8885A308D3)
    h = _fold(h, view.seat)
    h = _fold(h, view.players)
    h = _fold(h, view.hand)
    h = _fold_array_1d(h, view.entity_of_seat)
    h = _fold_array_1d(h, view.scores)
    h = _fold_array_1d(h, view.hand_sizes)
    h = _fold_array_1d(h, view.lacking)
    h = _fold(h, view.boneyard_size)
    h = _fold(h, view.played)
    h = _fold(h, view.total)
    h = _fold(h, view.open_values)
    h = _fold(h, view.n_nodes)
    h = _fold_array_2d(h, view.nodes)
    h = _fold_array_1d(h, view.open_count)
    h = _fold(h, view.n_open_nodes)
    h = _fold_array_1d(h, view.open_nodes)
    h = _fold(h, view.n_candidates)
    h = _fold_array_2d(h, view.cands)
    h = _fold(h, view.params.shape[0])
    for i in range(view.params.shape[0]):
        h = _fold(h, np.int64(view.params[i] * 65536.0))
    h = _fold_array_1d(h, view.rng)
    h = _fold(h, view.n_history)
    h = _fold_array_2d(h, view.history)
    h = _fold_array_1d(h, view.hidden_hands)
    h = _fold_array_1d(h, view.hidden_boneyard)
    return np.int64(R.mix64(h) % np.uint64(view.n_candidates))


SPY = spy

_GREEDY = strategies.resolve("greedy").choose


@strategies.strategy(name="stale_check", description="Greedy; an invalid row if its view holds rows not in play.")
def stale_check(view):
    """Greedy's row, or ``n_candidates`` (out of range) if any array holds a row not in play."""
    bad = view.n_candidates
    if view.cands.shape[0] != view.n_candidates or view.nodes.shape[0] != view.n_nodes \
            or view.open_nodes.shape[0] != view.n_open_nodes \
            or view.entity_of_seat.shape[0] != view.players \
            or view.history.shape[0] != view.n_history \
            or view.hidden_hands.shape[0] != 0 or view.hidden_boneyard.shape[0] != 0:
        return bad
    for row in range(view.cands.shape[0]):
        if ((view.hand >> view.cands[row, K.CAND_TILE]) & 1) == 0:
            return bad  # a candidate not of this hand: a stale row
    for node in range(view.nodes.shape[0]):
        if ((view.played >> view.nodes[node, K.NODE_TILE]) & 1) == 0:
            return bad  # a node not in the layout: a stale row
    for k in range(view.open_nodes.shape[0]):
        if view.open_nodes[k] < 0 or view.open_nodes[k] >= view.n_nodes:
            return bad
    for seat in range(view.players, view.hand_sizes.shape[0]):
        if view.hand_sizes[seat] != 0 or view.lacking[seat] != 0:
            return bad
    for entity in range(K.N_ENTITIES[view.players], view.scores.shape[0]):
        if view.scores[entity] != 0:
            return bad
    return _GREEDY(view)


STALE_CHECK = stale_check


@strategies.strategy(name="counter_check", description="Greedy; an invalid row if its stream counter moved.")
def counter_check(view):
    """Greedy's row, or ``n_candidates`` (out of range) if ``view.rng[1] != 0``."""
    if view.rng[1] != np.uint64(0):
        return view.n_candidates
    return _GREEDY(view)


COUNTER_CHECK = counter_check

ALL_TILES_MASK = (1 << 28) - 1


@strategies.strategy(name="hidden_probe", sees_hidden=True,
                     description="Greedy's first row; an invalid row unless its hidden arrays are the truth.")
def hidden_probe(view):
    """Row 0, or ``n_candidates`` (invalid) if the hidden arrays contradict the public state."""
    bad = view.n_candidates
    if view.hidden_hands.shape[0] != view.players or view.hidden_boneyard.shape[0] != view.boneyard_size:
        return bad
    if view.hidden_hands[view.seat] != view.hand:
        return bad
    union = view.played
    for seat in range(view.players):
        if bit_count(view.hidden_hands[seat]) != view.hand_sizes[seat] or union & view.hidden_hands[seat]:
            return bad
        union |= view.hidden_hands[seat]
    for k in range(view.boneyard_size):
        tile = view.hidden_boneyard[k]
        if union >> tile & 1:
            return bad
        union |= 1 << tile
    if union != ALL_TILES_MASK:
        return bad
    return 0


PROBE_FIELD = [STALE_CHECK, COUNTER_CHECK, SPY, hidden_probe, "random", "greedy"]
"""The view probes compiled together, one kernel set for the engine runs of test_sealed and
test_cheater (a compile is about half a minute): a slot that no seat uses changes nothing."""


__all__ = [
    "COUNTER_CHECK", "DOUBLES", "DOUBLES_FIELD", "HAND_SIZE", "PROBE_FIELD", "SPY", "STALE_CHECK", "Table", "choice", "mask",
    "hidden_probe", "params_for", "random_state", "redeal", "reference_placement", "strategy_named", "value_set",
]
