"""The double-six set as data: the one table both the reference and the engine read.

Tiles are numbered 0..27 in a fixed order: ``(0,0), (0,1), ..., (0,6), (1,1), ...,
(6,6)``, i.e. pairs ``(low, high)`` sorted lexicographically. This module holds
facts about the set only (no rules), so that sharing it keeps the reference and
the engine independent implementations of the game.
"""

from __future__ import annotations

N_VALUES = 7
"""Pip values 0..6 on each half."""

N_TILES = 28
"""Tiles in a double-six set."""

HAND_SIZE = 5
"""Tiles dealt to every player."""

TARGET_RAW = 305
"""The exact target in raw points (61 displayed points times 5)."""

RAW_PER_DISPLAYED = 5
"""Five raw points equal one displayed point."""

DEFAULT_MAX_ROUNDS = 1000
"""Ruling 15: a match still running after this many rounds stops unfinished."""

TILES: tuple[tuple[int, int], ...] = tuple(
    (low, high) for low in range(N_VALUES) for high in range(low, N_VALUES)
)
"""``TILES[i]`` is ``(low, high)`` for tile index ``i``."""

TILE_INDEX: dict[tuple[int, int], int] = {}
for _i, (_a, _b) in enumerate(TILES):
    TILE_INDEX[(_a, _b)] = _i
    TILE_INDEX[(_b, _a)] = _i
del _i, _a, _b


def tile_index(a: int, b: int) -> int:
    """Index 0..27 of the tile with halves ``a`` and ``b`` (either order)."""
    return TILE_INDEX[(a, b)]


def tile_name(index: int) -> str:
    """``"a-b"`` with the low half first, e.g. ``tile_name(27) == "6-6"``."""
    low, high = TILES[index]
    return f"{low}-{high}"


def entities_for(players: int) -> tuple[int, ...]:
    """Ruling 7: the scoring entity of each seat (partners opposite at four)."""
    if players == 4:
        return (0, 1, 0, 1)
    return tuple(range(players))


def entity_count(players: int) -> int:
    """Ruling 7: scoring entities at a table of ``players`` (two partnerships at four)."""
    return 2 if players == 4 else players
