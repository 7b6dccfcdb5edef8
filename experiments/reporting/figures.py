"""Figures as files: matplotlib's object API (no pyplot state, no backend to choose), PNG bytes
that depend on the data only.
"""

from __future__ import annotations

import hashlib

import matplotlib
from matplotlib.figure import Figure


def new_figure(rows: int = 1, cols: int = 1, *, figsize, **subplots):
    """A figure and its axes (``Figure.subplots`` arguments; a single Axes for 1 x 1 unless
    ``squeeze=False``)."""
    figure = Figure(figsize=figsize)
    return figure, figure.subplots(rows, cols, **subplots)


FOOTER_GID = "run-footer"
"""The ``gid`` of the provenance line :func:`stamp` writes (placed below everything else)."""


def renderer_of(figure: Figure):
    """The Agg renderer of ``figure``, after a layout pass so that every text sits where it will
    be saved (attaching an Agg canvas to a bare figure). The pass lays out without painting
    pixels: only the positions are read, and ``savefig`` paints."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = figure.canvas
    if not isinstance(canvas, FigureCanvasAgg):
        canvas = FigureCanvasAgg(figure)
    figure.draw_without_rendering()
    return canvas.get_renderer()


def place_footer(figure: Figure) -> None:
    """Move the figure's provenance line (:func:`stamp`) just below the lowest of its other
    artists (x-axis labels, legends below the axes), so that it never overprints them."""
    footers = [t for t in figure.texts if t.get_gid() == FOOTER_GID]
    if not footers:
        return
    renderer = renderer_of(figure)
    for footer in footers:
        footer.set_visible(False)
    box = figure.get_tightbbox(renderer)  # inches, without the footer
    width, height = figure.get_size_inches()
    for footer in footers:
        footer.set_visible(True)
        footer.set_position((box.x0 / width, (box.y0 - 0.06) / height))


def save_png(figure: Figure, path, dpi: int) -> None:
    """Write ``figure`` as PNG, its footer below everything else (:func:`place_footer`). The
    metadata carries no software version: same data, same bytes."""
    place_footer(figure)
    figure.savefig(path, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})


def text_overlaps(figure: Figure) -> list[tuple[str, str]]:
    """Pairs of visible texts of ``figure`` whose boxes overlap (titles, axis and tick labels,
    legend entries, annotations, the footer), and texts outside the axes that overprint an axes'
    plotting area; each as ``(text, text)``. Empty for a figure a reader can read. Call after
    :func:`place_footer` (``save_png`` does both)."""
    from matplotlib.text import Text

    renderer = renderer_of(figure)
    undrawn = set()  # tick labels of ticks outside the view: laid out, never drawn
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = (high - low) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - span <= tick.get_loc() <= high + span:
                    undrawn.update({id(tick.label1), id(tick.label2)})
    texts = [t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip()
             and t.get_alpha() != 0 and id(t) not in undrawn]
    boxes = []
    for t in texts:
        try:
            box = t.get_window_extent(renderer)
        except (RuntimeError, ValueError):
            continue
        if box.width > 0 and box.height > 0:
            boxes.append((t, box.padded(-0.5)))
    # an x and a y tick label of one axes may touch at its corner: matplotlib's own layout
    corner = {}
    for ax in figure.axes:
        corner.update({id(t): (id(ax), "x") for t in ax.get_xticklabels()})
        corner.update({id(t): (id(ax), "y") for t in ax.get_yticklabels()})
    found = []
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            ka, kb = corner.get(id(a)), corner.get(id(b))
            if ka and kb and ka[0] == kb[0] and ka[1] != kb[1]:
                continue
            if box_a.overlaps(box_b):
                found.append((a.get_text(), b.get_text()))
    for number, ax in enumerate(figure.axes):
        area = ax.get_window_extent(renderer).padded(-1.0)
        for t, box in boxes:
            if t.axes is ax:  # its own labels, ticks, legend and annotations
                continue
            if box.overlaps(area):
                found.append((t.get_text(), f"the plotting area of axes {number} "
                                            f"{ax.get_title()!r}"))
    return found


def color_cycle() -> list[str]:
    """The colours of matplotlib's default property cycle, in order (for series that are not
    strategies: player counts, tables, rounds)."""
    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


STRATEGY_COLOURS = {
    "greedy": "#1f77b4", "random": "#7f7f7f", "exact": "#ff7f0e", "heavy": "#8c564b",
    "defensive": "#9467bd", "weighted": "#2ca02c", "rollout": "#d62728", "matchplay": "#e377c2",
    "cheater": "#17becf", "pimc": "#bcbd22",
}
"""One colour per built-in strategy, the same in every figure of every study."""

_OTHER_COLOURS = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
                  "#31a354", "#756bb1", "#636363")


def strategy_colour(name: str) -> str:
    """The colour of strategy ``name`` in every figure: :data:`STRATEGY_COLOURS` for a built-in
    (a variant ``weighted[...]`` or ``weighted_tuned`` takes its base's); any other name (a
    user's strategy, an OpenSpiel bot) a colour of its own chosen by a stable digest of the
    name, so it is the same in every figure and every run."""
    base = name.split("[", 1)[0].strip()
    if base in STRATEGY_COLOURS:
        return STRATEGY_COLOURS[base]
    for known, colour in STRATEGY_COLOURS.items():
        if base.startswith(known + "_"):
            return colour
    digest = hashlib.sha256(name.encode()).digest()
    return _OTHER_COLOURS[digest[0] % len(_OTHER_COLOURS)]


def run_footer(settings: dict, sample: str | None = None) -> str:
    """The provenance line every figure carries: ``"N matches per configuration, players 2, 3, 4,
    seed S"`` from a run's settings (``matches``, ``players``, ``seed`` where present), or
    ``sample`` in place of the matches clause (``"3,000 duplicate deals per pairing"``)."""
    parts = []
    if sample is not None:
        parts.append(sample)
    elif "matches" in settings:
        parts.append(f"{settings['matches']:,} matches per configuration")
    players = settings.get("players")
    if players is not None:
        counts = players if isinstance(players, (list, tuple)) else [players]
        parts.append("players " + ", ".join(map(str, counts)))
    if "seed" in settings:
        parts.append(f"seed {settings['seed']}")
    return ", ".join(parts)


def stamp(figure: Figure, text: str) -> None:
    """Write ``text`` (sample size, player counts, seed: :func:`run_footer`) in small type at the
    figure's bottom left, below the axes, so no figure leaves the page without its provenance."""
    figure.text(0.0, -0.02, text, ha="left", va="top", fontsize=8, color="0.3", gid=FOOTER_GID)
