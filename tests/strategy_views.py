"""Hand-built game states and player views for strategy tests.

A :class:`Table` holds a whole state (layout, every hand, boneyard, scores,
lacking values) in a :class:`sim._kernels.Workspace` built with the engine's
own primitives; :meth:`Table.view` builds the :class:`sim._kernels.PlayerView`
field for field as the engine's ``_decide`` does, so a strategy's ``choose``
can be called on it from Python.
"""

from __future__ import annotations

import numpy as np

from sim import _kernels as K
from sim import rng as R
from sim.tiles import HAND_SIZE, N_TILES, TILES, tile_index


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
            K.open_layout(ws, tile_index(*opening))
            used.add(tile_index(*opening))
            self.placements.append((tile_index(*opening), K.NO_PARENT, K.SIDE_NONE, min(opening)))
        for play in plays:
            tile = tile_index(*play[0])
            joined = play[1]
            parent = play[2] if len(play) > 2 else None
            count = K.list_placements(ws, np.int64(1 << tile))
            rows = [r for r in range(count) if ws.cands[r, K.CAND_JOINED] == joined
                    and (parent is None or ws.cands[r, K.CAND_PARENT] == parent)]
            assert rows, f"{play} cannot be placed"
            r = rows[0]
            K.place_tile(ws, tile, ws.cands[r, K.CAND_PARENT], ws.cands[r, K.CAND_SIDE], joined)
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
            return K.list_openings(ws, np.int64(ws.hands[seat]))
        playable = ws.hands[seat] & K.TILES_MATCHING[ws.board[K.BOARD_OPEN_VALUES]]
        return K.list_placements(ws, np.int64(playable))

    def view(self, seat: int, params=None, stream=(1, 2)):
        """The seat's PlayerView (candidates listed), as the engine builds it."""
        ws = self.ws
        count = self.candidates(seat)
        board = ws.board
        entity_of_seat = K.ENTITY_OF_SEAT[self.players, : self.players].copy()
        if params is None:
            params = np.zeros(1)
        return K.PlayerView(
            np.int64(seat),
            np.int64(self.players),
            np.int64(ws.hands[seat]),
            entity_of_seat,
            ws.scores,
            ws.hand_sizes,
            ws.lacking,
            np.int64(len(self.boneyard)),
            np.int64(board[K.BOARD_PLAYED]),
            np.int64(board[K.BOARD_TOTAL]),
            np.int64(board[K.BOARD_OPEN_VALUES]),
            np.int64(board[K.BOARD_NODES]),
            ws.nodes,
            ws.open_count,
            np.int64(board[K.BOARD_OPEN_NODES]),
            ws.open_nodes,
            np.int64(count),
            ws.cands,
            np.asarray(params, dtype=np.float64),
            R.decision_state(*stream),
        )

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


def params_for(name: str, **overrides) -> np.ndarray:
    """Default parameter row of a strategy, with overrides by name (at least 1 wide)."""
    import strategies

    info = strategies.get(name)
    row = info.default_params()
    names = [p.name for p in info.parameters]
    for key, value in overrides.items():
        row[names.index(key)] = value
    return row if row.size else np.zeros(1)


def choice(name: str, table: Table, seat: int = 0, **overrides) -> tuple:
    """(tile, joined, points) that strategy ``name`` picks for ``seat``."""
    import strategies

    view = table.view(seat, params_for(name, **overrides))
    row = strategies.get(name).choose(view)
    assert 0 <= row < view.n_candidates
    return table.describe(row)


def random_state(generator, players, placed):
    """(opening, plays, hands, boneyard) of a random legal mid-round layout."""
    order = [int(t) for t in generator.permutation(N_TILES)]
    ws = K.new_workspace()
    K.open_layout(ws, order[0])
    opening = TILES[order[0]]
    plays = []
    rest = order[1:]
    while len(plays) < placed:
        mask = sum(1 << t for t in rest)
        count = K.list_placements(ws, np.int64(mask))
        if count == 0:
            break
        row = int(generator.integers(count))
        c = ws.cands[row]
        tile = int(c[K.CAND_TILE])
        K.place_tile(ws, tile, c[K.CAND_PARENT], c[K.CAND_SIDE], c[K.CAND_JOINED])
        plays.append((TILES[tile], int(c[K.CAND_JOINED]), int(c[K.CAND_PARENT])))
        rest.remove(tile)
    sizes = [int(generator.integers(1, 7)) for _ in range(players)]
    hands = []
    for size in sizes:
        hands.append([TILES[t] for t in rest[:size]])
        rest = rest[size:]
    return opening, plays, hands, [TILES[t] for t in rest]


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


__all__ = [
    "HAND_SIZE", "Table", "choice", "mask", "params_for", "random_state", "redeal",
    "reference_placement", "value_set",
]
