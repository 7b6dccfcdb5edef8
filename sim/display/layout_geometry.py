"""A round's layout on a grid of slots: where every placement lies, read from the record alone.

Every placement takes one square *slot* of the grid (:data:`SLOT` tile widths a side; a tile
is 2 x 1, the rest of the slot is room for its label, the open-end marks and the connectors).
A child lies in a slot next to its parent's, in the direction its connection faces: the line
runs both ways from the opening, a double lies crosswise to the direction it was played in,
and a spinner's arms leave its two long sides once both line sides are taken. When the
natural slot is taken, or the line would run out of a box sized for the round, the child
of a non-double turns (a bend; a spinner's children never do: its line goes straight on and
its arms leave its long sides); a search with backtracking places the whole round so that
no two placements share a slot. Positions are computed for the whole round once, so the layout after move k is
the full layout's first k tiles: a replay never moves a tile.

Which connection a tile took comes from the record (ruling 4 and the record format): a line
child of the opening non-double joins the half equal to its joined value; the first two line
children of an opening double take its east then its west line side; a spinner's arms take
its long sides, the better free one first (the search's costs decide; on a tie, south or east
before north or west). The open ends and the scoring total after any
prefix of the round are computed here from the same bookkeeping, and every placement is
replayed on :class:`sim.reference.Layout`: an illegal placement, or ``points`` that disagree
with the rules, raises ValueError.

Coordinates: a slot is ``(column, row)``, rows grow downward (as in SVG); the opening lies
in slot ``(0, 0)``; directions are unit steps ``(dx, dy)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim.reference import ARM, LINE, Layout, Placement, award
from core.tiles import N_VALUES

Direction = tuple[int, int]
Cell = tuple[int, int]

EAST: Direction = (1, 0)
SOUTH: Direction = (0, 1)
WEST: Direction = (-1, 0)
NORTH: Direction = (0, -1)
DIRECTIONS = (EAST, SOUTH, WEST, NORTH)
"""The four steps, in the order ties between equally good slots are broken."""

SLOT = 3.0
"""Side of a slot in tile widths (a tile is :data:`TILE_LENGTH` x :data:`TILE_WIDTH`)."""
TILE_LENGTH = 2.0
TILE_WIDTH = 1.0

BEND_COST = 2.0
"""Search cost of a child that does not lie in its connection's natural direction."""
OUTSIDE_COST = 4.0
"""Search cost per slot a child lies further beyond the round's target box than its parent:
long lines turn at the box's edge rather than run on (and then follow the edge)."""
RESERVED_COST = 3.0
"""Search cost of taking the natural slot of another placed tile's later child."""
CROWD_COST = 0.5
"""Search cost per occupied neighbour slot (other than the parent): keeps room around tiles."""
SEARCH_BUDGET = 20_000
"""Slots tried by the backtracking search before it settles for the greedy layout."""
BOX_WIDTH_PER_ROOT = 1.1
BOX_HEIGHT_PER_ROOT = 0.6
"""The target box's half-width and half-height in slots, per square root of the placements:
about 13 x 9 slots for a full round of 28 (landscape, as pages and screens are)."""


@dataclass(frozen=True)
class TilePlay:
    """One placement of the round as its record states it (:class:`PlayedTile` before it is
    given a slot, :class:`PlacedTile` after).

    Attributes
    ----------
    move : int
        Placement index in the round (0 is the opening), the play order.
    action : int
        Index of its play action in the round's ``actions``.
    seat : int
        The seat that played it.
    joined, open : int
        The record's ``tile``: the half joined to the parent and the half left open (for the
        opening, its two halves as written).
    parent : int or None
        The placement it joins (None for the opening).
    side : str or None
        ``"line"`` or ``"arm"`` (None for the opening).
    points : int
        The record's ``points``: the raw total it scored (0 when none).
    """

    move: int
    action: int
    seat: int
    joined: int
    open: int
    parent: int | None
    side: str | None
    points: int

    @property
    def is_double(self) -> bool:
        return self.joined == self.open


@dataclass(frozen=True)
class PlacedTile(TilePlay):
    """One placement of the round, where it lies and how.

    The attributes of :class:`TilePlay`, then:

    Attributes
    ----------
    cell : (int, int)
        Its slot ``(column, row)``.
    heading : (int, int)
        The direction it was played in (the step from its parent's slot; the opening: east).
        A non-double lies along it, its joined half at the back; a double lies across it.
    port : int or None
        Which half of a non-double parent it joins (0: the west/top half, 1: the east/bottom
        half); None when the parent is a double (the child meets the double's edge).
    jumped : bool
        True when no slot next to its parent was free: it lies in the nearest free slot and
        the drawing links it with a long connector (rare; see :func:`round_geometry`).
    """

    cell: Cell
    heading: Direction
    port: int | None
    jumped: bool = False

    @property
    def vertical(self) -> bool:
        """True when its long side runs top to bottom (doubles lie across their heading)."""
        along_column = self.heading in (NORTH, SOUTH)
        return along_column != self.is_double

    @property
    def halves(self) -> tuple[int, int]:
        """The values of its west/top half and its east/bottom half."""
        if self.parent is None or self.is_double:
            return self.joined, self.open
        # A non-double lies along its heading with the joined half toward its parent.
        if self.heading in (EAST, SOUTH):
            return self.joined, self.open
        return self.open, self.joined


@dataclass(frozen=True)
class OpenEnd:
    """A free connection after the shown placements, and what it adds to the total.

    Attributes
    ----------
    move : int
        The placement that offers it.
    direction : (int, int)
        The way it faces (where a tile joined there would lie).
    half : int or None
        The half of a non-double it belongs to (0: west/top, 1: east/bottom); None: a double.
    value : int
        The value a tile must match there.
    scores : int
        Its part of the scoring total (ruling 3): a non-double's open half counts its value,
        a terminal double ``2v`` once (on one of its free line sides), a spinner's arm 0.
    side : str
        ``"line"`` or ``"arm"``.
    """

    move: int
    direction: Direction
    half: int | None
    value: int
    scores: int
    side: str


@dataclass(frozen=True)
class RoundGeometry:
    """A round's layout: every placement's slot, and the open ends after the first ``shown``.

    Attributes
    ----------
    tiles : tuple of PlacedTile
        Every placement of the round, in play order (all of them, whatever ``shown``).
    shown : int
        How many placements (0..shown-1) the open ends and the total are after.
    open_ends : tuple of OpenEnd
        The free connections after those placements.
    total : int
        The scoring total after them: the sum of the open ends' ``scores`` (ruling 3).
    """

    tiles: tuple[PlacedTile, ...]
    shown: int
    open_ends: tuple[OpenEnd, ...]
    total: int

    @property
    def award(self) -> int:
        """Raw points the last shown placement scored (the total when a positive multiple of 5)."""
        return award(self.total)


@dataclass(frozen=True)
class PlayedTile(TilePlay):
    """A play action of the round, checked, before it is given a slot (the attributes of
    :class:`TilePlay`, then ``port``)."""

    port: int | None
    """Which connection of the parent it took: the half of the opening non-double (0, 1), the
    line side of the opening double (0: east, 1: west); None otherwise."""


def round_plays(round_record: dict) -> list[PlayedTile]:
    """The round's play actions, replayed on :class:`sim.reference.Layout` and checked.

    Raises
    ------
    ValueError
        One line: a malformed play, an illegal placement, or ``points`` that disagree with the
        scoring total the rules give.
    """
    actions = round_record.get("actions") if isinstance(round_record, dict) else None
    if not isinstance(actions, list):
        raise ValueError("the round has no list of actions")  # noqa: TRY004 - bad input, one line
    layout = Layout()
    plays: list[PlayedTile] = []
    line_children: dict[int, int] = {}
    for index, action in enumerate(actions):
        if not isinstance(action, dict) or action.get("type") != "play":
            continue
        where = f"action {index}"
        tile = action.get("tile")
        if (not isinstance(tile, list) or len(tile) != 2
                or not all(_is_value(v) for v in tile)):
            raise ValueError(f"{where}: expected a tile [a, b] with halves 0..6, found {tile!r}")
        joined, open_half = tile
        parent, side, points = action.get("parent"), action.get("side"), action.get("points")
        if not plays:
            if parent is not None or side is not None:
                raise ValueError(f"{where}: the opening has parent null and side null")
        elif not (_is_int(parent) and 0 <= parent < len(plays)) or side not in (LINE, ARM):
            raise ValueError(f"{where}: expected a parent placement 0..{len(plays) - 1} and side "
                             f"line or arm, found parent {parent!r}, side {side!r}")
        if not _is_int(points):
            raise ValueError(f"{where}: points must be an integer, found {points!r}")
        placement = Placement((joined, open_half), parent, side)
        if not layout.is_legal(placement):
            raise ValueError(f"{where}: {joined}-{open_half} on placement {parent} ({side}) "
                             "is not a legal placement")
        port = None
        if parent is not None and side == LINE and plays[parent].parent is None:
            opening = plays[parent]
            if opening.is_double:
                port = line_children.get(parent, 0)  # 0: east first, 1: west second
            else:
                # The opening's free half of the joined value (the reference checked one is free).
                taken = {p.port for p in plays if p.parent == parent and p.side == LINE}
                port = 0 if joined == opening.joined and 0 not in taken else 1
            line_children[parent] = line_children.get(parent, 0) + 1
        layout.place(placement)
        expected = award(layout.total())
        if points != expected:
            raise ValueError(f"{where}: points {points} disagree with the scoring total "
                             f"{layout.total()} (expected points {expected})")
        seat = action.get("seat")
        plays.append(PlayedTile(len(plays), index, seat if _is_int(seat) else -1, joined,
                                open_half, parent, side, points, port))
    if not plays:
        raise ValueError("the round has no placement")
    return plays


def round_geometry(round_record: dict, upto: int | None = None) -> RoundGeometry:
    """Lay out a record round and find its open ends and total after ``upto`` placements.

    Parameters
    ----------
    round_record : dict
        One Round object of an exact61-record/1 record (only its ``actions`` are read).
    upto : int, optional
        Open ends and total after placements ``0..upto-1`` (default: all of them). The tiles
        are always the whole round's, laid out once.

    Returns
    -------
    RoundGeometry

    Raises
    ------
    ValueError
        Bad or illegal plays (:func:`round_plays`), or ``upto`` out of range.
    """
    plays = round_plays(round_record)
    shown = len(plays) if upto is None else upto
    if not _is_int(shown) or not 0 <= shown <= len(plays):
        raise ValueError(f"upto must be 0..{len(plays)}, found {upto!r}")
    tiles = place_tiles(plays)
    ends = open_ends(tiles, shown)
    return RoundGeometry(tuple(tiles), shown, tuple(ends), sum(end.scores for end in ends))


# ---------------------------------------------------------------------------
# Where each connection points
# ---------------------------------------------------------------------------


def perpendiculars(direction: Direction) -> tuple[Direction, Direction]:
    """The two directions at right angles to ``direction`` (left, then right of it)."""
    dx, dy = direction
    return (dy, -dx), (-dy, dx)


def natural_directions(play: PlayedTile, parent: PlayedTile, parent_heading: Direction
                       ) -> tuple[Direction, ...]:
    """The direction(s) a child lies in when nothing is in the way."""
    if parent.parent is None:  # the opening lies east-west
        if parent.is_double:
            return (NORTH, SOUTH) if play.side == ARM else ((EAST, WEST)[play.port],)
        return ((WEST, EAST)[play.port],)
    if play.side == ARM:
        return perpendiculars(parent_heading)
    return (parent_heading,)


def half_of(tile: PlacedTile, port_or_open: int | None) -> int | None:
    """The half a child of ``tile`` joins: the opening non-double's ``port``, another
    non-double's open half; None for a double."""
    if tile.is_double:
        return None
    if tile.parent is None:
        return port_or_open
    return 1 if tile.heading in (EAST, SOUTH) else 0


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------


class SearchExhausted(Exception):
    """The backtracking search tried :data:`SEARCH_BUDGET` slots without completing."""


def target_box(placements: int) -> tuple[int, int]:
    """Half-width and half-height, in slots, of the box a round of ``placements`` should fit."""
    root = math.sqrt(placements)
    return (max(2, math.ceil(BOX_WIDTH_PER_ROOT * root)),
            max(1, math.ceil(BOX_HEIGHT_PER_ROOT * root)))


def place_tiles(plays: list[PlayedTile]) -> list[PlacedTile]:
    """Give every play a slot: backtracking search, else greedy with jumps (see module doc)."""
    search = SlotSearch(plays)
    try:
        search.backtrack()
    except SearchExhausted:
        search = SlotSearch(plays)
        search.greedy()
    return search.tiles()


class SlotSearch:
    """The state of one layout search: which slot each play has, which slots are taken."""

    def __init__(self, plays: list[PlayedTile]) -> None:
        self.plays = plays
        self.children: dict[int, list[int]] = {}
        for play in plays:
            if play.parent is not None:
                self.children.setdefault(play.parent, []).append(play.move)
        self.half_width, self.half_height = target_box(len(plays))
        self.cells: list[Cell | None] = [None] * len(plays)
        self.headings: list[Direction | None] = [None] * len(plays)
        self.jumped = [False] * len(plays)
        self.occupied: dict[Cell, int] = {}
        self.budget = SEARCH_BUDGET

    # -- costs ---------------------------------------------------------

    def natural_cells(self, move: int) -> list[Cell]:
        """The slots ``move`` would take if nothing were in the way (its parent placed)."""
        play = self.plays[move]
        parent = self.plays[play.parent]
        px, py = self.cells[play.parent]
        return [(px + dx, py + dy)
                for dx, dy in natural_directions(play, parent, self.headings[play.parent])]

    def reserved_cells(self, move: int) -> set[Cell]:
        """Natural slots of later children of tiles placed before ``move``."""
        reserved: set[Cell] = set()
        for later in range(move + 1, len(self.plays)):
            parent = self.plays[later].parent
            if parent is not None and parent < move:
                reserved.update(self.natural_cells(later))
        return reserved

    def outside(self, cell: Cell) -> int:
        """Slots by which ``cell`` lies beyond the target box."""
        return (max(0, abs(cell[0]) - self.half_width)
                + max(0, abs(cell[1]) - self.half_height))

    def inward(self, move: int) -> Direction | None:
        """The direction a child may not lie in: from the half of a non-double parent it joins
        toward that tile's other half (its connector would cross the tile)."""
        play = self.plays[move]
        parent = self.plays[play.parent]
        if parent.is_double:
            return None
        heading = self.headings[play.parent]
        half = play.port if parent.parent is None else (1 if heading in (EAST, SOUTH) else 0)
        vertical = heading in (NORTH, SOUTH)
        outward = (SOUTH if vertical else EAST) if half == 1 else (NORTH if vertical else WEST)
        return -outward[0], -outward[1]

    def candidates(self, move: int) -> list[tuple[Cell, Direction]]:
        """Free slots next to the parent's, best first."""
        play = self.plays[move]
        if play.parent is None:
            return [((0, 0), EAST)]
        px, py = self.cells[play.parent]
        naturals = natural_directions(play, self.plays[play.parent], self.headings[play.parent])
        reserved = self.reserved_cells(move)
        inward = self.inward(move)
        # A spinner's children never bend: a line child off the line would lie where an arm
        # belongs, and an arm on the line would look like the line going on.
        fixed = self.plays[play.parent].is_double
        ranked = []
        for order, (dx, dy) in enumerate(DIRECTIONS):
            cell = (px + dx, py + dy)
            if cell in self.occupied or (dx, dy) == inward or (fixed and (dx, dy) not in naturals):
                continue
            crowd = sum((cell[0] + ex, cell[1] + ey) in self.occupied for ex, ey in DIRECTIONS) - 1
            cost = ((0.0 if (dx, dy) in naturals else BEND_COST)
                    + OUTSIDE_COST * max(0, self.outside(cell) - self.outside((px, py)))
                    + (RESERVED_COST if cell in reserved else 0.0)
                    + CROWD_COST * crowd)
            ranked.append((cost, order, cell, (dx, dy)))
        ranked.sort()
        return [(cell, direction) for _, _, cell, direction in ranked]

    # -- moves ---------------------------------------------------------

    def put(self, move: int, cell: Cell, heading: Direction, jumped: bool = False) -> None:
        self.cells[move], self.headings[move], self.jumped[move] = cell, heading, jumped
        self.occupied[cell] = move

    def take_back(self, move: int) -> None:
        del self.occupied[self.cells[move]]
        self.cells[move] = self.headings[move] = None

    def backtrack(self, move: int = 0) -> bool:
        """Place ``move`` and every later play, backtracking; raises SearchExhausted."""
        if move == len(self.plays):
            return True
        for cell, heading in self.candidates(move):
            self.budget -= 1
            if self.budget < 0:
                raise SearchExhausted
            self.put(move, cell, heading)
            if self.backtrack(move + 1):
                return True
            self.take_back(move)
        return False

    def greedy(self) -> None:
        """Each play in its best free neighbour slot, or (none free) the nearest free slot."""
        for move in range(len(self.plays)):
            choices = self.candidates(move)
            if choices:
                self.put(move, *choices[0])
            else:
                self.put(move, *self.nearest_free(self.cells[self.plays[move].parent]), True)

    def nearest_free(self, start: Cell) -> tuple[Cell, Direction]:
        """The free slot closest to ``start`` (rings of growing radius), and the step toward it."""
        sx, sy = start
        radius = 2
        while True:
            ring = [(sx + dx, sy + dy) for dx in range(-radius, radius + 1)
                    for dy in range(-radius, radius + 1) if max(abs(dx), abs(dy)) == radius]
            free = [cell for cell in ring if cell not in self.occupied]
            if free:
                cell = min(free, key=lambda c: (abs(c[0] - sx) + abs(c[1] - sy), self.outside(c)))
                dx, dy = cell[0] - sx, cell[1] - sy
                heading = ((1 if dx > 0 else -1), 0) if abs(dx) >= abs(dy) else (0, 1 if dy > 0 else -1)
                return cell, heading
            radius += 1

    def tiles(self) -> list[PlacedTile]:
        placed: list[PlacedTile] = []
        for play in self.plays:
            port = None
            if play.parent is not None:
                parent = placed[play.parent]
                port = half_of(parent, play.port)
            placed.append(PlacedTile(play.move, play.action, play.seat, play.joined, play.open,
                                     play.parent, play.side, play.points, self.cells[play.move],
                                     self.headings[play.move], port, self.jumped[play.move]))
        return placed


# ---------------------------------------------------------------------------
# Open ends and the total
# ---------------------------------------------------------------------------


def step(source: Cell, target: Cell) -> Direction:
    """The unit direction from ``source`` toward ``target`` along the longer axis."""
    dx, dy = target[0] - source[0], target[1] - source[1]
    if abs(dx) >= abs(dy):
        return (1 if dx > 0 else -1), 0
    return 0, (1 if dy > 0 else -1)


def open_ends(tiles: list[PlacedTile], shown: int) -> list[OpenEnd]:
    """The free connections after placements ``0..shown-1`` (ruling 3 gives their scores)."""
    ends: list[OpenEnd] = []
    for tile in tiles[:shown]:
        children = [t for t in tiles[tile.move + 1:shown] if t.parent == tile.move]
        line = [t for t in children if t.side == LINE]
        arms = [t for t in children if t.side == ARM]
        v = tile.open
        if not tile.is_double:
            if tile.parent is None:
                taken = {t.port for t in line}
                for half, direction in ((0, WEST), (1, EAST)):
                    if half not in taken:
                        value = tile.halves[half]
                        ends.append(OpenEnd(tile.move, direction, half, value, value, LINE))
            elif not line:
                ends.append(OpenEnd(tile.move, tile.heading, half_of(tile, None), v, v, LINE))
            continue
        if tile.parent is None:
            line_sides = (EAST, WEST)[len(line):]
            arm_sides = (NORTH, SOUTH)
        else:
            line_sides = () if line else (tile.heading,)
            arm_sides = perpendiculars(tile.heading)
        if line_sides:
            # A double with a free line side is a terminal end: 2v, counted once (ruling 3).
            for index, direction in enumerate(line_sides):
                ends.append(OpenEnd(tile.move, direction, None, v, 2 * v if index == 0 else 0, LINE))
            continue
        used = {step(tile.cell, t.cell) for t in arms}
        free = [d for d in arm_sides if d not in used][:2 - len(arms)]
        ends.extend(OpenEnd(tile.move, d, None, v, 0, ARM) for d in free)
    return ends


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------


def slot_center(cell: Cell) -> tuple[float, float]:
    """The centre of a slot in layout units (tile widths)."""
    return cell[0] * SLOT, cell[1] * SLOT


def tile_box(tile: PlacedTile) -> tuple[float, float, float, float]:
    """The tile's rectangle ``(x0, y0, x1, y1)`` in layout units."""
    cx, cy = slot_center(tile.cell)
    half_w, half_h = ((TILE_WIDTH / 2, TILE_LENGTH / 2) if tile.vertical
                      else (TILE_LENGTH / 2, TILE_WIDTH / 2))
    return cx - half_w, cy - half_h, cx + half_w, cy + half_h


def boxes_overlap(a, b) -> bool:
    """True when two ``(x0, y0, x1, y1)`` rectangles share some area (touching is not overlap)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlaps(geometry: RoundGeometry) -> list[tuple[int, int]]:
    """Pairs of placements whose slots or tile rectangles coincide (none, for a good layout)."""
    found = []
    tiles = geometry.tiles
    for i, first in enumerate(tiles):
        for second in tiles[i + 1:]:
            if first.cell == second.cell or boxes_overlap(tile_box(first), tile_box(second)):
                found.append((first.move, second.move))
    return found


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_value(value) -> bool:
    return _is_int(value) and 0 <= value < N_VALUES
