"""A round's layout as SVG text, written directly from the scene's shapes.

:func:`round_svg` is the entry point (the replay page embeds it). Every placement's shapes
(its connector, tile, numbers and label) are one ``<g class="tile" id="move-K"
data-move="K">`` group, in play order, so a page can show the tiles up to any move by
toggling those groups; nothing else carries ``data-move``. The open-end marks and the
total's caption after the last drawn placement are one ``<g class="open-ends"
data-after="N">`` group (N = placements drawn); with ``every_step`` there is one such group
per prefix, the others hidden. A text with a role (:class:`~sim.display.layout_scene.Text`)
carries it as its ``class``: ``class="half"`` marks a tile's numbers, ``class="end-value"`` an
open end's value. All record text is escaped.
"""

from __future__ import annotations

from html import escape

from sim.display.layout_scene import Circle, Line, Rect, Scene, Text, round_scene
from sim.files import atomic_write

FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"
ANCHORS = {"start", "middle", "end"}


def number(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def shape_svg(shape) -> str:
    """One shape as an SVG element."""
    if isinstance(shape, Rect):
        stroke = (f' stroke="{shape.stroke}" stroke-width="{number(shape.stroke_width)}"'
                  if shape.stroke else "")
        corner = f' rx="{number(shape.corner)}"' if shape.corner else ""
        return (f'<rect x="{number(shape.x)}" y="{number(shape.y)}" width="{number(shape.width)}" '
                f'height="{number(shape.height)}"{corner} fill="{shape.fill}"{stroke}/>')
    if isinstance(shape, Line):
        points = " ".join(f"{number(x)},{number(y)}" for x, y in shape.points)
        dash = ' stroke-dasharray="6 4"' if shape.dashed else ""
        return (f'<polyline points="{points}" fill="none" stroke="{shape.stroke}" '
                f'stroke-width="{number(shape.stroke_width)}" stroke-linecap="round"{dash}/>')
    if isinstance(shape, Circle):
        fill = shape.fill or "none"
        stroke = (f' stroke="{shape.stroke}" stroke-width="{number(shape.stroke_width)}"'
                  if shape.stroke else "")
        return (f'<circle cx="{number(shape.x)}" cy="{number(shape.y)}" r="{number(shape.radius)}" '
                f'fill="{fill}"{stroke}/>')
    if isinstance(shape, Text):
        anchor = shape.anchor if shape.anchor in ANCHORS else "middle"
        weight = ' font-weight="bold"' if shape.bold else ""
        role = f' class="{escape(shape.role)}"' if shape.role else ""
        return (f'<text{role} x="{number(shape.x)}" y="{number(shape.y)}" font-size="{number(shape.size)}" '
                f'text-anchor="{anchor}" dominant-baseline="central" fill="{shape.fill}"{weight}>'
                f"{escape(shape.text)}</text>")
    raise TypeError(f"not a scene shape: {shape!r}")


def scene_svg(scene: Scene, title: str = "") -> str:
    """The whole scene as one standalone ``<svg>`` document (no XML declaration, so it can
    also be inlined in HTML)."""
    size = f'width="{number(scene.width)}" height="{number(scene.height)}"'
    view = f'viewBox="0 0 {number(scene.width)} {number(scene.height)}"'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" {size} {view} font-family="{FONT_FAMILY}">']
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    parts.append(f'<rect width="{number(scene.width)}" height="{number(scene.height)}" fill="#ffffff"/>')
    groups: dict[int, list[str]] = {}
    for shape in scene.shapes:
        if shape.move is None:
            parts.append(shape_svg(shape))
        else:
            groups.setdefault(shape.move, []).append(shape_svg(shape))
    for move in sorted(groups):
        parts.append(f'<g class="tile" id="move-{move}" data-move="{move}">')
        parts.extend(groups[move])
        parts.append("</g>")
    if scene.steps:
        for after, shapes in enumerate(scene.steps):
            hidden = "" if after == scene.shown else ' display="none"'
            parts.append(f'<g class="open-ends" data-after="{after}"{hidden}>')
            parts.extend(shape_svg(shape) for shape in shapes)
            parts.append("</g>")
    else:
        parts.append(f'<g class="open-ends" data-after="{scene.shown}">')
        parts.extend(shape_svg(shape) for shape in scene.end_shapes)
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def round_svg(record: dict, round_index: int, upto: int | None = None, *,
              scores_strip: bool = False, every_step: bool = False) -> str:
    """SVG text of one round's layout.

    Parameters
    ----------
    record, round_index, upto
        The round and how many of its placements to draw, as for
        :func:`~sim.display.layout_scene.round_scene`.
    scores_strip : bool
        Add the strip of the entities' scores through the match below (``five-up show``
        does; the replay page has its own score table).
    every_step : bool
        Write the open-end marks and the total's caption after every prefix of the round:
        one ``<g class="open-ends" data-after="K">`` per K = 0..placements, all but the one
        after the drawn placements with ``display="none"``, so that a page stepping through
        the round shows the group whose ``data-after`` is the number of tiles it shows.

    Returns
    -------
    str
        An ``<svg>`` element: every placement a ``<g data-move="K">`` group (see module doc).

    Raises
    ------
    ValueError
        No such round, or plays the rules do not allow (one line).
    """
    scene = round_scene(record, round_index, upto, scores_strip=scores_strip,
                        every_step=every_step)
    return scene_svg(scene, f"round {round_index + 1} layout")


def write_svg(path, text: str) -> None:
    """Write SVG text to ``path`` atomically (:func:`sim.files.atomic_write`)."""
    def write(temporary) -> None:
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text)

    atomic_write(path, write)
