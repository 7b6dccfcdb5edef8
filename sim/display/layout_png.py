"""A round's layout as PNG: the same scene as the SVG, drawn with matplotlib.

matplotlib is imported inside :func:`scene_png` only (its import takes a while and nothing
else in :mod:`sim.display` needs it). The figure is one pixel per scene unit (dpi
:data:`DPI`), the axes fill it, y runs downward as in the scene, and the PNG carries no
software version, so the same record gives the same bytes.
"""

from __future__ import annotations

from sim.display.layout_scene import Circle, Line, Rect, Scene, Text, round_scene
from sim.files import atomic_write

DPI = 100
"""Pixels per inch of the figure; a scene pixel is one image pixel."""
POINTS_PER_INCH = 72
FONT_FAMILY = "DejaVu Sans"
ALIGNMENTS = {"start": "left", "middle": "center", "end": "right"}
DASHES = (0, (6, 4))


def scene_png(scene: Scene, path) -> None:
    """Draw ``scene`` and write it to ``path`` as PNG, atomically."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle as CirclePatch
    from matplotlib.patches import FancyBboxPatch

    figure = Figure(figsize=(scene.width / DPI, scene.height / DPI), dpi=DPI)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(0, scene.width)
    axes.set_ylim(scene.height, 0)
    axes.axis("off")
    pixels_to_points = POINTS_PER_INCH / DPI  # line widths and font sizes are in points
    for order, shape in enumerate(scene.shapes + scene.end_shapes):
        if isinstance(shape, Rect):
            style = f"round,pad=0,rounding_size={shape.corner}" if shape.corner else "square,pad=0"
            axes.add_patch(FancyBboxPatch(
                (shape.x, shape.y), shape.width, shape.height, boxstyle=style,
                facecolor=shape.fill, edgecolor=shape.stroke or "none",
                linewidth=shape.stroke_width * pixels_to_points if shape.stroke else 0,
                zorder=order))
        elif isinstance(shape, Line):
            xs, ys = zip(*shape.points)
            axes.plot(xs, ys, color=shape.stroke, linewidth=shape.stroke_width * pixels_to_points,
                      linestyle=DASHES if shape.dashed else "-", solid_capstyle="round",
                      zorder=order)
        elif isinstance(shape, Circle):
            axes.add_patch(CirclePatch(
                (shape.x, shape.y), shape.radius, facecolor=shape.fill or "none",
                edgecolor=shape.stroke or "none",
                linewidth=shape.stroke_width * pixels_to_points if shape.stroke else 0,
                zorder=order))
        elif isinstance(shape, Text):
            axes.text(shape.x, shape.y, shape.text, fontsize=shape.size * pixels_to_points,
                      color=shape.fill, ha=ALIGNMENTS.get(shape.anchor, "center"), va="center",
                      fontweight="bold" if shape.bold else "normal", family=FONT_FAMILY,
                      zorder=order)

    def write(temporary) -> None:
        figure.savefig(temporary, format="png", dpi=DPI, metadata={"Software": None})

    atomic_write(path, write)


def write_round_png(record: dict, round_index: int, path, upto: int | None = None, *,
                    scores_strip: bool = True) -> None:
    """Write one round's picture (layout, and the score strip unless told not to) as PNG.

    Arguments as :func:`sim.display.layout_svg.round_svg`; raises ValueError on bad rounds.
    """
    scene_png(round_scene(record, round_index, upto, scores_strip=scores_strip), path)
