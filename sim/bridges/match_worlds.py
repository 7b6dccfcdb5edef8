"""Worlds for search: the hidden tiles of a :class:`sim.bridges.match_state.MatchState` redrawn.

:meth:`~sim.bridges.match_state.MatchState.resample_from_infostate` and
:meth:`~sim.bridges.match_state.MatchState.from_view` build states a seat cannot tell from
the true one; the pieces they share are here.

:func:`infostate_view`
    The seat's sealed view of a state, whoever is to move.
:func:`deal_hidden`
    Redraws every other hand and the pool still to deal or draw with
    :func:`strategies.inference.hand_groups` and
    :func:`strategies.inference.sample_grouped_world`, consistently with what every draw and
    pass revealed; the seat's own tiles are kept.
:func:`consistent_deal`
    A deal order consistent with the hands, the layout and the round's history (each seat's
    tiles split into five dealt ones and its draws, every drawn tile that was placed at once
    the one drawn last): the past chance outcomes of a state built from a view.

Such a world plays on exactly like a real one, but its recorded past chance outcomes are not
rewritten to match the new hands: it is a world for search (ISMCTS), not for a record.
"""

from __future__ import annotations

import numpy as np

from sim.bridges.match_codes import ALL_TILES, tiles_of
from core import state as K
from sim.engine.python_seats import seat_view
from core.tiles import HAND_SIZE, N_TILES
from strategies.inference import MAX_GROUPS, hand_groups, sample_grouped_world

NO_PARAMS = np.zeros((K.MAX_PLAYERS, 1), dtype=np.float64)
"""The parameters a view needs; inference reads none."""


def infostate_view(ws, players: int, seat: int, boneyard: int):
    """``seat``'s sealed view of the workspace ``ws`` (``boneyard`` tiles left to draw), as if
    it were to move; the decision fields of ``ws.board`` are left as they were."""
    board = ws.board
    saved = board[K.BOARD_DECISION_SEAT:K.BOARD_DECISION_BONEYARD + 1].copy()
    board[K.BOARD_DECISION_SEAT] = seat
    board[K.BOARD_DECISION_COUNT] = 0
    board[K.BOARD_DECISION_BONEYARD] = boneyard
    view = seat_view(ws, players, NO_PARAMS)
    board[K.BOARD_DECISION_SEAT:K.BOARD_DECISION_BONEYARD + 1] = saved
    return view


def deal_hidden(ws, view, players: int, seat: int, rng: np.random.Generator) -> int:
    """Redraw every hand but ``seat``'s into ``ws``, consistently with ``view`` (``seat``'s
    view of it); return the pool still to deal or draw (a tile set)."""
    counts = np.zeros((K.MAX_PLAYERS, MAX_GROUPS), dtype=np.int64)
    lacks = np.zeros((K.MAX_PLAYERS, MAX_GROUPS), dtype=np.int64)
    n_groups = np.zeros(K.MAX_PLAYERS, dtype=np.int64)
    for s in range(players):
        if s != seat:
            n_groups[s] = hand_groups(view, s, counts[s], lacks[s])
    stream = np.array([rng.integers(0, np.iinfo(np.int64).max), 0], dtype=np.uint64)
    sample_grouped_world(ws, view, stream, counts, lacks, n_groups)
    held = 0
    for s in range(players):
        held |= int(ws.hands[s])
    return ALL_TILES & ~held & ~int(ws.board[K.BOARD_PLAYED])


def consistent_deal(ws, players: int, rows: list, pool: int) -> list[int] | None:
    """A full deal order (28 tile indices) consistent with the hands of ``ws``, the history
    ``rows`` and the undrawn ``pool`` (module docstring), or None if there is none of this
    form; the pool's tiles follow in tile order."""
    tiles_of_seat = [int(ws.hands[s]) for s in range(players)]
    for row in rows:
        if row[K.H_KIND] == K.ACTION_PLAY:
            tiles_of_seat[row[K.H_SEAT]] |= 1 << row[K.H_TILE]
    draws = [(index, row[K.H_SEAT]) for index, row in enumerate(rows)
             if row[K.H_KIND] == K.ACTION_DRAW]
    drawn = {}
    for index, seat in draws:
        following = rows[index + 1] if index + 1 < len(rows) else None
        if following is not None and following[K.H_KIND] == K.ACTION_PLAY \
                and following[K.H_SEAT] == seat:
            drawn[index] = following[K.H_TILE]  # placed at once: the tile drawn last
            tiles_of_seat[seat] &= ~(1 << following[K.H_TILE])
    for index, seat in draws:
        if index not in drawn:
            # a kept draw: a tile of the hand if any is left, else one placed later
            hand = int(ws.hands[seat]) & tiles_of_seat[seat]
            tile = tiles_of(hand or tiles_of_seat[seat])[0]
            drawn[index] = tile
            tiles_of_seat[seat] &= ~(1 << tile)
    order = []
    for seat in range(players):
        order += tiles_of(tiles_of_seat[seat])[:HAND_SIZE]
    order += [drawn[index] for index, _ in draws]
    order += tiles_of(pool)
    if len(order) == N_TILES and len(set(order)) == N_TILES:
        return order
    return None


__all__ = ["NO_PARAMS", "consistent_deal", "deal_hidden", "infostate_view"]
