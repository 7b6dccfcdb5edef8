"""The vocabulary of :class:`sim.bridges.match_state.MatchState`: node kinds, phases, action codes.

Shared by the state machine (:mod:`sim.bridges.match_state`), its observer
(:mod:`sim.bridges.match_observer`) and the bridges (OpenSpiel, PettingZoo, the human seat).

Action codes
------------
Player actions are the distinct legal placements of ruling 4, encoded by
:func:`encode_action` (:data:`NUM_ACTIONS` = 3164 codes):

* the opening: ``action = tile`` (0..27);
* otherwise ``OPENING_ACTIONS + ((parent * 2 + (side - SIDE_LINE)) * N_TILES + tile) * 2 + h``
  with ``parent`` the layout node played on, ``side`` ``SIDE_LINE`` or ``SIDE_ARM``, and
  ``h = 1`` when the joined value is the tile's high half of a non-double, else 0.

Chance outcomes are a leading seat (a lot) or a tile index (a deal or a draw).
"""

from __future__ import annotations

from enum import IntEnum

from core import state as K
from core.tiles import N_TILES, tile_name

CHANCE = -1
"""``current_player()`` at a chance node (OpenSpiel's ``PlayerId.CHANCE``)."""

TERMINAL = -4
"""``current_player()`` once the game is over (OpenSpiel's ``PlayerId.TERMINAL``)."""

MAX_CHANCE_OUTCOMES = N_TILES
"""A deal or a draw has at most 28 outcomes (tile indices); a lot has ``players``."""

OPENING_ACTIONS = N_TILES
"""Codes 0..27: open with that tile."""

SIDES_PER_PARENT = 2
"""``SIDE_LINE`` and ``SIDE_ARM``: the sides a non-opening placement can take."""

JOINED_HALVES = 2
"""Which half of a non-double joins the connection: the low one (0) or the high one (1)."""

NUM_ACTIONS = OPENING_ACTIONS + K.MAX_NODES * SIDES_PER_PARENT * N_TILES * JOINED_HALVES
"""Distinct player action codes: 28 + 28 * 2 * 28 * 2 = 3164."""

MAX_MOVES_PER_ROUND = 1 + N_TILES + N_TILES
"""Applied actions of one round at most: a lot, 28 deals and draws, 28 placements."""

ALL_TILES = (1 << N_TILES) - 1
"""Tile set of the whole double-six."""

TILE_NAMES = tuple(tile_name(t) for t in range(N_TILES))
"""``"a-b"`` of each tile index."""


class Phase(IntEnum):
    """What the state waits for."""

    LOT = 0
    """A chance node: the leader of the next round."""
    DEAL = 1
    """A chance node: the next dealt tile."""
    PLAY = 2
    """A decision: the seat to move places a tile."""
    DRAW = 3
    """A chance node: the tile the seat to move draws."""
    OVER = 4
    """Terminal."""


N_PHASES = len(Phase)


def encode_action(tile: int, parent: int, side: int, joined: int) -> int:
    """The action code of a placement (engine values; module docstring).

    Parameters
    ----------
    tile : int
        Tile index 0..27.
    parent : int
        Layout node played on, ``NO_PARENT`` for the opening.
    side : int
        ``SIDE_NONE`` (opening), ``SIDE_LINE`` or ``SIDE_ARM``.
    joined : int
        The pip value joined (the low half for the opening).
    """
    if parent == K.NO_PARENT:
        return tile
    high = int(joined == K.TILE_HIGH[tile] and not K.TILE_IS_DOUBLE[tile])
    return OPENING_ACTIONS + ((parent * SIDES_PER_PARENT + (side - K.SIDE_LINE)) * N_TILES
                              + tile) * JOINED_HALVES + high


def decode_action(action: int) -> tuple[int, int, int, int]:
    """``(tile, parent, side, joined)`` of an action code (the inverse of :func:`encode_action`)."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is not in 0..{NUM_ACTIONS - 1}")
    if action < OPENING_ACTIONS:
        return action, K.NO_PARENT, K.SIDE_NONE, int(K.TILE_LOW[action])
    rest, high = divmod(action - OPENING_ACTIONS, JOINED_HALVES)
    rest, tile = divmod(rest, N_TILES)
    parent, side = divmod(rest, SIDES_PER_PARENT)
    joined = K.TILE_HIGH[tile] if high else K.TILE_LOW[tile]
    return tile, parent, side + K.SIDE_LINE, int(joined)


def tiles_of(mask: int) -> list[int]:
    """Tile indices of a tile set, ascending."""
    tiles = []
    while mask:
        low = mask & -mask
        tiles.append(low.bit_length() - 1)
        mask ^= low
    return tiles


def hand_text(mask: int) -> str:
    """The tiles of a tile set, ascending (``"-"`` for none)."""
    return " ".join(TILE_NAMES[t] for t in tiles_of(mask)) or "-"


__all__ = [
    "ALL_TILES",
    "CHANCE",
    "JOINED_HALVES",
    "MAX_CHANCE_OUTCOMES",
    "MAX_MOVES_PER_ROUND",
    "NUM_ACTIONS",
    "N_PHASES",
    "OPENING_ACTIONS",
    "SIDES_PER_PARENT",
    "TERMINAL",
    "TILE_NAMES",
    "Phase",
    "decode_action",
    "encode_action",
    "hand_text",
    "tiles_of",
]
