"""A round's layout as shapes: tiles, connectors, labels, open-end marks and the score strip.

:func:`round_scene` turns a record round (through :func:`sim.display.layout_geometry.round_geometry`)
into a :class:`Scene`: a list of primitive shapes (:class:`Rect`, :class:`Line`,
:class:`Circle`, :class:`Text`) in pixels, each tagged with the placement it belongs to
(``move``; None for everything else). The SVG and PNG backends only translate shapes, so
both pictures are the same drawing.

What is drawn:

- every tile with its two halves as numbers (``6|3``), tinted by the seat that played it;
  doubles lie across the line;
- a connector from the half (or the double's edge) a tile joined to the tile itself;
- beside each tile its move number and, when it scored, the raw points (``#7 +15``), in a
  spot that no tile, connector, mark or other label touches;
- after the last shown placement, a mark at every open end with what it adds to the total
  (an orange disc with the value; a hollow ring for a spinner's free arm, or the second
  side of a lone opening double, which add nothing) and a caption with the scoring total
  (``total 25 raw = 5 displayed``);
- a strip of every entity's score through the match (raw, with the displayed score = raw/5
  on the right and the target 305 raw = 61), the shown round shaded.

A page stepping through a round (``every_step``) also gets, after every prefix of the round,
its open-end marks, its :class:`~sim.display.layout_geometry.RoundGeometry` and the box
around what that prefix draws (:attr:`Scene.views`), so it can zoom to the tiles placed so
far.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.display.layout_geometry import (
    ARM,
    EAST,
    LINE,
    NORTH,
    SOUTH,
    TILE_LENGTH,
    WEST,
    OpenEnd,
    PlacedTile,
    RoundGeometry,
    boxes_overlap,
    open_ends,
    perpendiculars,
    round_geometry,
    slot_center,
    step,
    tile_box,
)
from sim.display.layout_geometry import SLOT as SLOT_UNITS
from core.tiles import RAW_PER_DISPLAYED, TARGET_RAW
from sim.wording import counted

Box = tuple[float, float, float, float]
Point = tuple[float, float]

SCALE = 26.0
"""Pixels per layout unit (a tile's width; a tile is 52 x 26 px)."""
MARGIN = 18.0
"""Pixels of blank border around every part of the picture."""

PIP_SIZE = 18.0
LABEL_SIZE = 11.0
CAPTION_SIZE = 13.0
TITLE_SIZE = 15.0
AXIS_SIZE = 10.0
"""Font sizes in pixels."""
CHARACTER_WIDTH = 0.62
"""Width of a character as a share of its font size (labels are placed with this estimate)."""
LINE_GAP = 4.0
"""Pixels between lines of text."""

MARK_RADIUS = 0.34
MARK_GAP = 0.3
MARK_ASIDE = 0.42
"""Open-end marks: radius, distance from the tile's edge, and how far a mark facing an
occupied slot moves aside (two facing marks then pass each other), in layout units."""
LABEL_GAP = 0.12
LABEL_PAD = 0.1
"""Distance of a label from its tile, and blank kept left and right of its text, in layout
units."""
VIEW_PAD = 6.0
"""Pixels of blank kept around what a prefix draws in its view box (:attr:`Scene.views`): room
for the glow a page puts around the last tile."""
CONNECTOR_WIDTH = 3.0

SEAT_FILLS = ("#cfe2f3", "#fde0c5", "#d4edd0", "#ead5ef")
SEAT_COLORS = ("#1f5f99", "#c25e00", "#2b7a28", "#7b3f8c")
"""Tile tints and line colours by seat (entity e uses the colour of its first seat)."""
TILE_STROKE = "#333333"
CONNECTOR_COLOR = "#9a9a9a"
POINTS_COLOR = "#b00020"
MARK_FILL = "#ff9f1c"
MARK_STROKE = "#8a5000"
RING_STROKE = "#8c8c8c"
TEXT_COLOR = "#222222"
MUTED_COLOR = "#666666"
GRID_COLOR = "#dddddd"
SHADE_COLOR = "#fff3c4"

STRIP_HEIGHT = 150.0
STRIP_MIN_WIDTH = 560.0
STRIP_AXIS_WIDTH = 44.0
"""The score strip: plot height, smallest width, room for each axis' numbers (pixels)."""
STRIP_TICKS = (0, 100, 200, TARGET_RAW)


@dataclass(frozen=True)
class Rect:
    """A rectangle: top-left corner ``(x, y)``, ``width`` and ``height`` in pixels, ``corner`` its
    rounding radius; no outline when ``stroke`` is None. ``move``, on every shape: the placement
    it draws (grouped under it in the SVG), None for the rest of the picture."""

    x: float
    y: float
    width: float
    height: float
    fill: str
    stroke: str | None = None
    stroke_width: float = 1.0
    corner: float = 0.0
    move: int | None = None


@dataclass(frozen=True)
class Line:
    """A polyline through ``points`` (pixels), round-capped, ``dashed`` or solid; ``move`` as
    on :class:`Rect`."""

    points: tuple[Point, ...]
    stroke: str
    stroke_width: float = 1.0
    dashed: bool = False
    move: int | None = None


@dataclass(frozen=True)
class Circle:
    """A circle of ``radius`` around ``(x, y)`` in pixels; unfilled when ``fill`` is None, no
    outline when ``stroke`` is None; ``move`` as on :class:`Rect`."""

    x: float
    y: float
    radius: float
    fill: str | None
    stroke: str | None = None
    stroke_width: float = 1.0
    move: int | None = None


@dataclass(frozen=True)
class Text:
    """Text centred vertically on ``y``; ``anchor`` is start, middle or end of the line at ``x``.

    ``role`` names what the text is, for a page that reads or styles it (the SVG's ``class``):
    ``"half"`` a tile's number, ``"end-value"`` an open end's value, ``"caption"`` the total's
    caption, ``"title"`` a header line; None for the rest.
    """

    x: float
    y: float
    text: str
    size: float
    fill: str = TEXT_COLOR
    anchor: str = "middle"
    bold: bool = False
    move: int | None = None
    role: str | None = None


Shape = Rect | Line | Circle | Text


@dataclass
class Scene:
    """A picture as shapes, in pixels (origin top left, y down).

    Attributes
    ----------
    width, height : float
    shapes : list of Shape
        In drawing order: the background and strip (``move`` None), then each placement's
        connector, tile and label (``move`` = its placement index, in play order), then the
        open-end marks (``move`` None, in :attr:`end_shapes`).
    end_shapes : list of Shape
        The open-end marks and the total's caption, after :attr:`shown` placements.
    shown : int
        How many placements are drawn (0..shown-1).
    steps : list of list of Shape
        With ``every_step``: ``steps[k]`` is :attr:`end_shapes` as they would be after
        placements ``0..k-1``, for every k from 0 to the round's placements (else empty).
    step_geometry : list of RoundGeometry
        With ``every_step``: the open ends and the total after placements ``0..k-1``, for
        every k (else empty).
    views : list of Box
        With ``every_step``: ``views[k]`` is the box (pixels) around the tiles and labels of
        placements ``0..k-1`` and the marks after them, :data:`VIEW_PAD` wider on every side
        (k = 0: around the opening's place); else empty.
    boxes : list of (str, int or None, Box)
        ``(kind, move, box)`` of every tile (``"tile"``), move label (``"label"``) and mark
        (``"end"``) in pixels: what :func:`scene_overlaps` checks.
    """

    width: float
    height: float
    shapes: list = field(default_factory=list)
    end_shapes: list = field(default_factory=list)
    shown: int = 0
    steps: list = field(default_factory=list)
    step_geometry: list = field(default_factory=list)
    views: list = field(default_factory=list)
    boxes: list = field(default_factory=list)


def is_disc(end: OpenEnd) -> bool:
    """True when an open end's mark is a disc with its value (a line end that scores, even one
    worth 0: a 0 half or a 0-0); False for a hollow ring (a spinner's free arm, the lone
    opening double's second side), which adds nothing."""
    return end.side == LINE and (end.scores > 0 or end.value == 0)


def enclosing_box(boxes) -> Box:
    """The smallest box holding every one of ``boxes`` (at least one)."""
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def text_width(text: str, size: float) -> float:
    """Estimated width in pixels of one line of ``text`` at font ``size``."""
    return len(text) * CHARACTER_WIDTH * size


def scene_overlaps(scene: Scene) -> list[tuple[tuple, tuple]]:
    """Pairs of tiles, labels and marks that share area (none, for a readable picture)."""
    found = []
    boxes = scene.boxes
    for i, (kind, move, box) in enumerate(boxes):
        for other_kind, other_move, other in boxes[i + 1:]:
            if boxes_overlap(box, other):
                found.append(((kind, move), (other_kind, other_move)))
    return found


# ---------------------------------------------------------------------------
# Layout units (tile widths, slot centres at multiples of SLOT) to pixels
# ---------------------------------------------------------------------------


def half_center(tile: PlacedTile, half: int) -> Point:
    """Centre of a tile's half (0: west/top, 1: east/bottom) in layout units."""
    cx, cy = slot_center(tile.cell)
    offset = (TILE_LENGTH / 4) * (1 if half == 1 else -1)
    return (cx, cy + offset) if tile.vertical else (cx + offset, cy)


def edge_point(tile: PlacedTile, direction, half: int | None) -> Point:
    """Where the tile's edge (that half's, or the whole tile's) meets a line leaving it in
    ``direction``, in layout units."""
    x0, y0, x1, y1 = tile_box(tile)
    if half is None or tile.is_double:
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    else:
        cx, cy = half_center(tile, half)
    dx, dy = direction
    x = x1 if dx > 0 else x0 if dx < 0 else cx
    y = y1 if dy > 0 else y0 if dy < 0 else cy
    return x, y


def mark_center(tile: PlacedTile, direction, half: int | None, occupied) -> Point:
    """Centre of an open-end mark beside that edge, in layout units.

    When the slot it faces holds a tile (``occupied``: the round's slots), that tile's own
    mark may face this one across the gap: the mark moves aside, to the left of
    ``direction``, so two facing marks pass each other.
    """
    x, y = edge_point(tile, direction, half)
    reach = MARK_GAP + MARK_RADIUS
    x, y = x + direction[0] * reach, y + direction[1] * reach
    if (tile.cell[0] + direction[0], tile.cell[1] + direction[1]) in occupied:
        aside_x, aside_y = perpendiculars(direction)[0]
        x, y = x + aside_x * MARK_ASIDE, y + aside_y * MARK_ASIDE
    return x, y


def possible_ends(tile: PlacedTile) -> list[tuple[tuple[int, int], int | None]]:
    """Every (direction, half) where an open-end mark of ``tile`` may ever be drawn."""
    if not tile.is_double:
        if tile.parent is None:
            return [(WEST, 0), (EAST, 1)]
        return [(tile.heading, 1 if tile.heading in (EAST, SOUTH) else 0)]
    if tile.parent is None:
        return [(EAST, None), (WEST, None), (NORTH, None), (SOUTH, None)]
    return [(tile.heading, None)] + [(d, None) for d in perpendiculars(tile.heading)]


def segment_hits_box(start: Point, end: Point, box: Box, samples: int = 24) -> bool:
    """True when the segment passes through the box's inside (sampled finely)."""
    x0, y0, x1, y1 = box
    for i in range(samples + 1):
        t = i / samples
        x = start[0] + (end[0] - start[0]) * t
        y = start[1] + (end[1] - start[1]) * t
        if x0 < x < x1 and y0 < y < y1:
            return True
    return False


def label_lines(tile: PlacedTile) -> list[list[str]]:
    """A tile's label as one line, then as two lines: ``#7 +15`` / ``#7``, ``+15``."""
    number = f"#{tile.move}"
    if tile.points <= 0:
        return [[number]]
    return [[f"{number} +{tile.points}"], [number, f"+{tile.points}"]]


def label_candidates(tile: PlacedTile, width: float, height: float) -> list[Point]:
    """Centres (layout units) to try for a label box of ``width`` x ``height`` units, best first."""
    x0, y0, x1, y1 = tile_box(tile)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    above = y0 - LABEL_GAP - height / 2
    below = y1 + LABEL_GAP + height / 2
    right = x1 + LABEL_GAP + width / 2
    left = x0 - LABEL_GAP - width / 2
    corners = [(right, above), (left, above), (right, below), (left, below)]
    if tile.vertical:
        return [(right, y0 + height / 2), (left, y0 + height / 2), (right, y1 - height / 2),
                (left, y1 - height / 2), (cx, above), (cx, below), (right, cy), (left, cy),
                *corners]
    return [(cx, above), (cx, below), (x0 + width / 2, above), (x1 - width / 2, above),
            (x0 + width / 2, below), (x1 - width / 2, below), (right, cy), (left, cy), *corners]


# ---------------------------------------------------------------------------
# The scene
# ---------------------------------------------------------------------------


def seat_fill(seat: int) -> str:
    return SEAT_FILLS[seat % len(SEAT_FILLS)] if seat >= 0 else "#eeeeee"


def seat_color(seat: int) -> str:
    return SEAT_COLORS[seat % len(SEAT_COLORS)] if seat >= 0 else TEXT_COLOR


def entity_seats(record: dict) -> dict[int, list[int]]:
    """Entity -> its seats, from the record's ``entities`` (one entity per seat if absent)."""
    entities = record.get("entities")
    if not isinstance(entities, list):
        entities = list(range(int(record.get("players", 2))))
    seats: dict[int, list[int]] = {}
    for seat, entity in enumerate(entities):
        seats.setdefault(entity, []).append(seat)
    return seats


def round_scene(record: dict, round_index: int, upto: int | None = None, *,
                scores_strip: bool = True, every_step: bool = False) -> Scene:
    """The picture of one round of a record: its layout and, below, the score strip.

    Parameters
    ----------
    record : dict
        An exact61-record/1 match object.
    round_index : int
        Which round (0-based).
    upto : int, optional
        Draw placements ``0..upto-1`` only, with the open ends and the total after them
        (default: every placement). Tiles keep the places they have in the whole round.
    scores_strip : bool
        Draw the strip of every entity's score through the match below the layout.
    every_step : bool
        Also give the open-end marks and caption after every prefix (:attr:`Scene.steps`),
        for a page that steps through the round.

    Raises
    ------
    ValueError
        No such round, or a round whose plays are bad (:func:`round_plays`).
    """
    rounds = record.get("rounds") if isinstance(record, dict) else None
    if not isinstance(rounds, list) or not isinstance(round_index, int) \
            or not 0 <= round_index < len(rounds):
        count = len(rounds) if isinstance(rounds, list) else 0
        raise ValueError(f"no round {round_index}: the match has {count} rounds (0..{count - 1})")
    geometry = round_geometry(rounds[round_index], upto)
    plays = geometry.tiles

    # Layout units -> pixels: slot bounds of the whole round, so a replay never shifts.
    columns = [t.cell[0] for t in plays]
    rows = [t.cell[1] for t in plays]
    left_units = (min(columns) - 0.5) * SLOT_UNITS
    top_units = (min(rows) - 0.5) * SLOT_UNITS
    layout_width = (max(columns) - min(columns) + 1) * SLOT_UNITS * SCALE
    layout_height = (max(rows) - min(rows) + 1) * SLOT_UNITS * SCALE
    header = MARGIN + 2 * (TITLE_SIZE + LINE_GAP) + LINE_GAP

    def px(point: Point) -> Point:
        return (MARGIN + (point[0] - left_units) * SCALE, header + (point[1] - top_units) * SCALE)

    def px_box(box: Box) -> Box:
        (ax, ay), (bx, by) = px((box[0], box[1])), px((box[2], box[3]))
        return ax, ay, bx, by

    scene = Scene(0.0, 0.0, shown=geometry.shown)
    occupied = {tile.cell for tile in plays}
    obstacles: list[Box] = []
    segments: list[tuple[Point, Point]] = []
    for tile in plays:
        obstacles.append(tile_box(tile))
        for direction, half in possible_ends(tile):
            mx, my = mark_center(tile, direction, half, occupied)
            obstacles.append((mx - MARK_RADIUS, my - MARK_RADIUS, mx + MARK_RADIUS, my + MARK_RADIUS))
        if tile.parent is not None:
            segments.append(connector(plays[tile.parent], tile))

    # Every tile's label is placed, shown or not, so that a prefix of the round draws its
    # tiles and labels exactly where the whole round does, in a picture of the same size.
    extent: list[Box] = [px_box(box) for box in obstacles]
    tile_shapes: list[list] = []
    drawn: list[list[Box]] = []  # per placement: its tile's and its label's boxes in pixels
    for tile in plays:
        label_box, label_shapes = place_label(tile, obstacles, segments, px)
        obstacles.append(label_box)
        extent.append(px_box(label_box))
        drawn.append([px_box(tile_box(tile)), px_box(label_box)])
        if tile.move >= geometry.shown:
            continue
        shapes = []
        if tile.parent is not None:
            start, end = connector(plays[tile.parent], tile)
            shapes.append(Line((px(start), px(end)), CONNECTOR_COLOR, CONNECTOR_WIDTH,
                               dashed=tile.jumped, move=tile.move))
        shapes.extend(tile_drawing(tile, px_box(tile_box(tile))))
        shapes.extend(label_shapes)
        scene.boxes.append(("tile", tile.move, px_box(tile_box(tile))))
        scene.boxes.append(("label", tile.move, px_box(label_box)))
        tile_shapes.append(shapes)

    def end_marks(ends) -> list:
        shapes = []
        for end in ends:
            tile = plays[end.move]
            center = px(mark_center(tile, end.direction, end.half, occupied))
            radius = MARK_RADIUS * SCALE
            if is_disc(end):
                shapes.append(Circle(*center, radius, MARK_FILL, MARK_STROKE, 1.2))
                shapes.append(Text(*center, str(end.scores), LABEL_SIZE, bold=True,
                                   role="end-value"))
            else:
                shapes.append(Circle(*center, radius * 0.7, "#ffffff", RING_STROKE, 1.5))
        return shapes

    def end_box(end: OpenEnd) -> Box:
        center = px(mark_center(plays[end.move], end.direction, end.half, occupied))
        radius = MARK_RADIUS * SCALE
        return center[0] - radius, center[1] - radius, center[0] + radius, center[1] + radius

    scene.end_shapes = end_marks(geometry.open_ends)
    for end in geometry.open_ends:
        scene.boxes.append(("end", end.move, end_box(end)))

    # Tiles and marks lie inside the layout's slots, labels possibly beyond them: measure the
    # extent of everything the whole round may draw, then put the caption and the strip under
    # it. Nothing here depends on upto, so every prefix gets the same picture size.
    left, _, far_right, far_bottom = enclosing_box(extent)
    right = max(MARGIN + layout_width, far_right)
    bottom = max(header + layout_height, far_bottom)
    shift = max(0.0, MARGIN - left)
    y = bottom + LINE_GAP * 2

    def caption(step_geometry: RoundGeometry) -> Text:
        return Text(MARGIN, y + CAPTION_SIZE / 2, total_caption(step_geometry), CAPTION_SIZE,
                    anchor="start", bold=True, role="caption")

    scene.end_shapes.append(caption(geometry))
    if every_step:
        tiles = list(plays)
        for k in range(len(plays) + 1):
            ends = open_ends(tiles, k)
            step_geometry = RoundGeometry(plays, k, tuple(ends), sum(e.scores for e in ends))
            scene.steps.append(end_marks(ends) + [caption(step_geometry)])
            scene.step_geometry.append(step_geometry)
            # Before the opening nothing is drawn: the view is the opening's place.
            parts = [box for boxes in drawn[:k] for box in boxes] + [end_box(e) for e in ends]
            x0, y0, x1, y1 = enclosing_box(parts or drawn[0][:1])
            scene.views.append((x0 - VIEW_PAD, y0 - VIEW_PAD, x1 + VIEW_PAD, y1 + VIEW_PAD))
    y += CAPTION_SIZE + LINE_GAP * 2
    title = title_shapes(record, round_index, geometry)
    width = max(right + MARGIN, STRIP_MIN_WIDTH + 2 * MARGIN,
                *(MARGIN * 2 + text_width(t.text, t.size) for t in title))
    legend, y, legend_right = seat_legend(record, y, width)
    width = max(width, legend_right + MARGIN)
    base = title + legend
    if scores_strip:
        strip, y = score_strip(record, round_index, y + LINE_GAP * 2, width)
        base += strip
    scene.width, scene.height = width + shift, y + MARGIN
    scene.shapes = base + [shape for shapes in tile_shapes for shape in shapes]
    if shift:
        move_scene(scene, shift)
    return scene


def move_scene(scene: Scene, dx: float) -> None:
    """Shift every shape right by ``dx`` pixels (a label reached past the left margin)."""
    def moved(shape):
        if isinstance(shape, Line):
            return Line(tuple((x + dx, y) for x, y in shape.points), shape.stroke,
                        shape.stroke_width, shape.dashed, shape.move)
        return type(shape)(**{**shape.__dict__, "x": shape.x + dx})
    scene.shapes = [moved(s) for s in scene.shapes]
    scene.end_shapes = [moved(s) for s in scene.end_shapes]
    scene.steps = [[moved(s) for s in shapes] for shapes in scene.steps]
    scene.views = [(b[0] + dx, b[1], b[2] + dx, b[3]) for b in scene.views]
    scene.boxes = [(k, m, (b[0] + dx, b[1], b[2] + dx, b[3])) for k, m, b in scene.boxes]


def connector(parent: PlacedTile, child: PlacedTile) -> tuple[Point, Point]:
    """The segment (layout units) from the half or edge ``child`` joined to ``child``'s own edge."""
    direction = step(parent.cell, child.cell)
    start = edge_point(parent, direction, child.port)
    end = edge_point(child, (-direction[0], -direction[1]), None)
    return start, end


def tile_drawing(tile: PlacedTile, box: Box) -> list:
    """A tile's body, the line between its halves and its two numbers (pixels)."""
    x0, y0, x1, y1 = box
    stroke_width = 2.0 if tile.is_double else 1.2
    shapes: list = [Rect(x0, y0, x1 - x0, y1 - y0, seat_fill(tile.seat), TILE_STROKE,
                         stroke_width, corner=4.0, move=tile.move)]
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    first, second = tile.halves
    inset = 4.0
    if tile.vertical:
        shapes.append(Line(((x0 + inset, cy), (x1 - inset, cy)), TILE_STROKE, 1.0, move=tile.move))
        centers = ((cx, (y0 + cy) / 2), (cx, (cy + y1) / 2))
    else:
        shapes.append(Line(((cx, y0 + inset), (cx, y1 - inset)), TILE_STROKE, 1.0, move=tile.move))
        centers = (((x0 + cx) / 2, cy), ((cx + x1) / 2, cy))
    for (x, y), value in zip(centers, (first, second)):
        shapes.append(Text(x, y, str(value), PIP_SIZE, bold=True, move=tile.move, role="half"))
    return shapes


def place_label(tile: PlacedTile, obstacles: list[Box], segments, px) -> tuple[Box, list]:
    """The tile's ``#k +p`` label in the first free spot beside it.

    Returns
    -------
    (box, shapes)
        The label's box in layout units and its text shapes in pixels.
    """
    line_units = (LABEL_SIZE + LINE_GAP / 2) / SCALE
    choices = []
    for lines in label_lines(tile):
        width = max(text_width(text, LABEL_SIZE) for text in lines) / SCALE + 0.1
        height = line_units * len(lines)
        for center in label_candidates(tile, width, height):
            box = (center[0] - width / 2 - LABEL_PAD, center[1] - height / 2,
                   center[0] + width / 2 + LABEL_PAD, center[1] + height / 2)
            choices.append((box, lines))
    chosen = next(((box, lines) for box, lines in choices
                   if not any(boxes_overlap(box, other) for other in obstacles)
                   and not any(segment_hits_box(a, b, box) for a, b in segments)), None)
    if chosen is None:
        chosen = next(((box, lines) for box, lines in choices
                       if not any(boxes_overlap(box, other) for other in obstacles)), choices[0])
    box, lines = chosen
    shapes = []
    cx = (box[0] + box[2]) / 2
    for row, text in enumerate(lines):
        y = box[1] + line_units * (row + 0.5)
        color = POINTS_COLOR if text.startswith("+") or " +" in text else MUTED_COLOR
        shapes.append(Text(*px((cx, y)), text, LABEL_SIZE, fill=color, bold=tile.points > 0,
                           move=tile.move))
    return box, shapes


def total_caption(geometry: RoundGeometry) -> str:
    """``after #12 (seat 1): total 25 raw = 5 displayed, scores +25`` and the like (short
    enough for the narrowest picture)."""
    if geometry.shown == 0:
        return "before the opening: no tile on the table"
    last = geometry.tiles[geometry.shown - 1]
    total = geometry.total
    if total > 0 and total % RAW_PER_DISPLAYED == 0:
        value = f"total {total} raw = {total // RAW_PER_DISPLAYED} displayed, scores +{total}"
    else:
        value = f"total {total}, scores nothing (not a positive multiple of 5)"
    return f"after #{last.move} (seat {last.seat}): {value}"


def legend_items(record: dict) -> list[tuple[str, int | None, str]]:
    """What a legend of the layout explains: ``(kind, seat, text)`` with kind ``"seat"`` (a
    seat's tint: its strategy and team), ``"end"`` (the disc of an open end) or ``"ring"`` (a
    ring that adds nothing); seat is None for the marks."""
    strategies = record.get("strategies") if isinstance(record.get("strategies"), list) else []
    items: list[tuple[str, int | None, str]] = []
    for _, seats in sorted(entity_seats(record).items()):
        for seat in seats:
            name = strategies[seat] if seat < len(strategies) and isinstance(strategies[seat], str) else ""
            team = f", team {'+'.join(map(str, seats))}" if len(seats) > 1 else ""
            items.append(("seat", seat, f"seat {seat} {name}{team}".replace("  ", " ")))
    items.append(("end", None, "open end: what it adds to the total"))
    items.append(("ring", None, "free spinner arm or spare side: adds 0"))
    return items


def seat_legend(record: dict, y: float, width: float) -> tuple[list, float, float]:
    """One swatch per seat (its tint, strategy and team), then the marks' meaning, in rows
    no wider than ``width`` pixels (at least one item a row).

    Returns
    -------
    (shapes, bottom, right)
        The legend's shapes, the y just below it and its rightmost x (pixels).
    """
    swatch = LABEL_SIZE + 2
    radius = MARK_RADIUS * SCALE
    shapes: list = []
    x, right = MARGIN, MARGIN
    for kind, seat, text in legend_items(record):
        key = swatch * 1.6 if kind == "seat" else 2 * radius
        item_width = key + 4 + text_width(text, LABEL_SIZE)
        if x > MARGIN and x + item_width > width - MARGIN:
            x, y = MARGIN, y + swatch + LINE_GAP * 2
        middle = y + swatch / 2
        if kind == "seat":
            shapes.append(Rect(x, y, key, swatch, seat_fill(seat), TILE_STROKE, 1.0, 2.0))
        elif kind == "end":
            shapes.append(Circle(x + radius, middle, radius, MARK_FILL, MARK_STROKE, 1.2))
        else:
            shapes.append(Circle(x + radius, middle, radius * 0.7, "#ffffff", RING_STROKE, 1.5))
        shapes.append(Text(x + key + 4, middle, text, LABEL_SIZE, anchor="start"))
        right = max(right, x + item_width)
        x += item_width + 16
    return shapes, y + swatch + LINE_GAP, right


def title_shapes(record: dict, round_index: int, geometry: RoundGeometry) -> list:
    """The two header lines: which match and round, and how the round went."""
    rounds = record["rounds"]
    rnd = rounds[round_index]
    players = record.get("players", "?")
    match = record.get("match", "?")
    end = rnd.get("end", "?")
    winner = rnd.get("winner")
    placements = len(geometry.tiles)
    spinners = sum(t.is_double for t in geometry.tiles)
    arms = sum(t.side == ARM for t in geometry.tiles)
    first = (f"match {match}, round {round_index + 1} of {len(rounds)} ({players} players): "
             f"{counted(placements, 'placement')}, {counted(spinners, 'spinner')}, "
             f"{counted(arms, 'tile')} on {'an arm' if arms == 1 else 'arms'}")
    outcome = f"ended {end}" + (f", entity {winner} won the round" if winner is not None else "")
    second = f"leader seat {rnd.get('leader', '?')}, {outcome}"
    return [Text(MARGIN, MARGIN + TITLE_SIZE / 2, first, TITLE_SIZE, anchor="start", bold=True,
                 role="title"),
            Text(MARGIN, MARGIN + TITLE_SIZE + LINE_GAP + CAPTION_SIZE / 2, second, CAPTION_SIZE,
                 fill=MUTED_COLOR, anchor="start", role="title")]


def score_strip(record: dict, round_index: int, top: float, width: float) -> tuple[list, float]:
    """Every entity's raw score after each round, the shown round shaded.

    Returns
    -------
    (shapes, bottom)
        The strip's shapes and the y (pixels) just below it.
    """
    rounds = record["rounds"]
    seats_of = entity_seats(record)
    entities = sorted(seats_of)
    paths = {e: [0] for e in entities}
    for rnd in rounds:
        scores = rnd.get("scores") if isinstance(rnd.get("scores"), list) else []
        for e in entities:
            paths[e].append(scores[e] if e < len(scores) else paths[e][-1])
    shapes: list = [Text(MARGIN, top + CAPTION_SIZE / 2,
                         "score through the match: raw points (left), displayed = raw / 5 (right), "
                         f"target {TARGET_RAW} raw = {TARGET_RAW // RAW_PER_DISPLAYED}",
                         CAPTION_SIZE, anchor="start", bold=True)]
    top += CAPTION_SIZE + LINE_GAP * 2
    x0, x1 = MARGIN + STRIP_AXIS_WIDTH, width - MARGIN - STRIP_AXIS_WIDTH
    y0, y1 = top, top + STRIP_HEIGHT
    low = min(0, *(min(p) for p in paths.values()))
    high = max(TARGET_RAW, *(max(p) for p in paths.values()))

    def sx(i: float) -> float:
        return x0 + (x1 - x0) * i / max(1, len(rounds))

    def sy(raw: float) -> float:
        return y1 - (y1 - y0) * (raw - low) / (high - low)

    shapes.append(Rect(sx(round_index), y0, sx(round_index + 1) - sx(round_index), y1 - y0,
                       SHADE_COLOR))
    for tick in STRIP_TICKS:
        dashed = tick == TARGET_RAW
        shapes.append(Line(((x0, sy(tick)), (x1, sy(tick))),
                           POINTS_COLOR if dashed else GRID_COLOR, 1.0, dashed=dashed))
        shapes.append(Text(x0 - 4, sy(tick), str(tick), AXIS_SIZE, fill=MUTED_COLOR, anchor="end"))
        shapes.append(Text(x1 + 4, sy(tick), str(tick // RAW_PER_DISPLAYED), AXIS_SIZE,
                           fill=MUTED_COLOR, anchor="start"))
    shapes.append(Line(((x0, y1), (x1, y1)), MUTED_COLOR, 1.0))
    every = max(1, len(rounds) // 12)
    for i in range(0, len(rounds) + 1, every):
        shapes.append(Text(sx(i), y1 + AXIS_SIZE, str(i), AXIS_SIZE, fill=MUTED_COLOR))
    shapes.append(Text((x0 + x1) / 2, y1 + 2.4 * AXIS_SIZE,
                       f"rounds played (round {round_index + 1} shaded)", AXIS_SIZE,
                       fill=MUTED_COLOR))
    legend_y = y1 + 4 * AXIS_SIZE
    x = x0
    for e in entities:
        color = seat_color(seats_of[e][0])
        points = tuple((sx(i), sy(raw)) for i, raw in enumerate(paths[e]))
        shapes.append(Line(points, color, 2.0))
        for point in points:
            shapes.append(Circle(*point, 2.2, color))
        final = paths[e][-1]
        seats = "+".join(map(str, seats_of[e]))
        text = (f"entity {e} (seat{'s' if len(seats_of[e]) > 1 else ''} {seats}): "
                f"{final} raw = {final / RAW_PER_DISPLAYED:g}")
        shapes.append(Line(((x, legend_y), (x + 18, legend_y)), color, 2.0))
        shapes.append(Text(x + 22, legend_y, text, LABEL_SIZE, anchor="start"))
        x += 22 + text_width(text, LABEL_SIZE) + 16
    return shapes, legend_y + LABEL_SIZE

