"""Figures as files for print: matplotlib's object API (no pyplot state, no backend to choose), one
house style, PNG bytes that depend on the data only.

Every figure is one column (:data:`COLUMN_WIDTH`, 3.5 in) or two (:data:`PAGE_WIDTH`, 7.2 in)
wide and saved at :data:`PRINT_DPI` (300), so that a reader sees it at the size it was laid out
for; the house style (``house.mplstyle`` beside this module, :func:`house_style`) keeps every
text at or above :data:`MIN_FONT_PT` (7 pt). Estimates are drawn with their intervals
(:func:`estimates`, :func:`band`): interval bars with caps, above their markers. Strategies take
their colour from :func:`strategy_colour`; any other category (player counts, tables, sources)
from :func:`category_colours`, which shares no colour with the strategies. :func:`print_problems`
checks a figure against these rules; :func:`save_png` runs it, and raises where the environment
variable ``FIVE_UP_FIGURE_AUDIT`` is ``strict`` (the tests set it).
"""

from __future__ import annotations

import hashlib
import os
import re
import textwrap
from contextlib import contextmanager
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.figure import Figure

COLUMN_WIDTH = 3.5
"""One-column figure width, inches."""
PAGE_WIDTH = 7.2
"""Two-column (full page) figure width, inches."""
WIDTHS = {"column": COLUMN_WIDTH, "page": PAGE_WIDTH}
PRINT_DPI = 300
"""Resolution of every saved figure."""
MIN_FONT_PT = 7.0
"""The smallest text size allowed at print size."""
FOOTER_PT = 7.0
"""The provenance line's size."""
STYLE_FILE = Path(__file__).with_name("house.mplstyle")
"""The house style's matplotlib style file."""
AUDIT_ENV = "FIVE_UP_FIGURE_AUDIT"
"""``strict``: :func:`save_png` raises on a figure that breaks the print rules."""


@contextmanager
def house_style():
    """The house style's rc parameters for what is built and drawn inside (a context manager,
    and a decorator: ``@figures.house_style()`` on a function that builds or saves a figure)."""
    with matplotlib.rc_context(fname=str(STYLE_FILE)):
        yield


def new_figure(rows: int = 1, cols: int = 1, *, width="page", height: float = 2.6,
               **subplots):
    """A figure of print width and its axes (``Figure.subplots`` arguments; a single Axes for
    1 x 1 unless ``squeeze=False``), laid out by matplotlib's constrained layout.

    Parameters
    ----------
    width : {"column", "page"} or float
        One column (3.5 in) or the page (7.2 in); a number must be one of those two.
    height : float
        Inches.
    """
    inches = WIDTHS.get(width, width)
    if inches not in WIDTHS.values():
        raise ValueError(f"a figure is {COLUMN_WIDTH} or {PAGE_WIDTH} inches wide, not {width!r}")
    with house_style():
        figure = Figure(figsize=(inches, height), layout="constrained")
        axes = figure.subplots(rows, cols, **subplots)
    return figure, axes


def category_colours(count: int) -> list[str]:
    """``count`` colours for categories that are not strategies (player counts, tables, point
    sources, leads), from the house palette, which shares no colour with
    :func:`strategy_colour` (repeats after 9)."""
    palette = [c if c.startswith("#") else f"#{c}"
               for c in _house_rc()["axes.prop_cycle"].by_key()["color"]]
    return [palette[k % len(palette)] for k in range(count)]


def _house_rc() -> dict:
    return matplotlib.rc_params_from_file(str(STYLE_FILE), use_default_template=False)


def estimates(ax, x, y, low, high, *, color, label=None, marker="o", line: bool = False,
              horizontal: bool = False, **options):
    """Point estimates with their intervals: markers (joined by a line with ``line``) and
    interval bars with caps drawn above them. ``low``, ``high``: the interval's ends (nan: no
    bar). ``horizontal``: the estimates lie along x (a forest plot: ``x`` are the estimates,
    ``y`` the rows). Returns the ErrorbarContainer."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    centre = x if horizontal else y
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    err = np.vstack([centre - low, high - centre])
    err = np.clip(np.where(np.isfinite(err), err, 0.0), 0.0, None)
    keys = {"xerr": err} if horizontal else {"yerr": err}
    container = ax.errorbar(x, y, **keys, fmt=marker + ("-" if line else ""), color=color,
                            label=label, capsize=options.pop("capsize", 2),
                            elinewidth=options.pop("elinewidth", 0.8),
                            capthick=options.pop("capthick", 0.8), zorder=2, **options)
    data_line, caps, bars = container.lines
    data_line.set_zorder(2)
    for artist in (*caps, *bars):
        artist.set_zorder(3)  # the interval above its marker: never hidden by it
    return container


def band(ax, x, y, low, high, *, color, label=None, alpha: float = 0.25, **options):
    """A curve of estimates and its interval as a shaded band (for dense x, where bars would
    touch). Returns the curve."""
    (curve,) = ax.plot(x, y, color=color, label=label, zorder=2, **options)
    ax.fill_between(x, low, high, color=color, alpha=alpha, linewidth=0, zorder=1,
                    gid=INTERVAL_BAND_GID)
    return curve


INTERVAL_BAND_GID = "interval-band"
"""The ``gid`` of :func:`band`'s shaded interval."""
NO_INTERVAL_GID = "no-interval"
"""An axes whose ``gid`` starts with this plots no estimates (:func:`no_intervals`)."""


def no_intervals(ax, why: str) -> None:
    """Mark ``ax`` as plotting no estimates that need an interval (counts of a histogram, a
    distribution's quantiles, a layout), saying why; :func:`print_problems` then does not ask
    its lines for intervals."""
    ax.set_gid(f"{NO_INTERVAL_GID}: {why}")


def reference_line(ax, value: float, *, axis: str = "y", **options):
    """A reference line across ``ax`` (0, chance, a target) in grey, below the data."""
    style = {"color": "0.45", "linewidth": 0.7, "linestyle": "--", "zorder": 0.5, **options}
    return ax.axhline(value, **style) if axis == "y" else ax.axvline(value, **style)


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


def save_png(figure: Figure, path, dpi: int = PRINT_DPI) -> None:
    """Write ``figure`` as PNG at print size (:data:`PRINT_DPI`; the figure's own width, no
    cropping). The metadata carries no software version: same data, same bytes. Under
    ``FIVE_UP_FIGURE_AUDIT=strict`` a figure that breaks the print rules
    (:func:`print_problems`) raises ValueError naming them instead."""
    with house_style():
        if os.environ.get(AUDIT_ENV) == "strict":
            problems = print_problems(figure)
            if problems:
                raise ValueError(f"{Path(path).name}: " + "; ".join(problems))
        figure.savefig(path, format="png", dpi=dpi, metadata={"Software": None})


def drawn_texts(figure: Figure, renderer) -> list:
    """``(text, box)`` of every text ``figure`` draws (visible, not empty, not the label of a
    tick outside its axis's view, which is laid out but never drawn), box in pixels."""
    from matplotlib.text import Text

    undrawn = set()
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = (high - low) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - span <= tick.get_loc() <= high + span:
                    undrawn.update({id(tick.label1), id(tick.label2)})
    found = []
    for t in figure.findobj(Text):
        if not (t.get_visible() and t.get_text().strip()) or t.get_alpha() == 0 \
                or id(t) in undrawn:
            continue
        try:
            box = t.get_window_extent(renderer)
        except (RuntimeError, ValueError):
            continue
        if box.width > 0 and box.height > 0:
            found.append((t, box))
    return found


def text_overlaps(figure: Figure) -> list[tuple[str, str]]:
    """Pairs of visible texts of ``figure`` whose boxes overlap (titles, axis and tick labels,
    legend entries, annotations, the footer), and texts outside the axes that overprint an axes'
    plotting area; each as ``(text, text)``. Empty for a figure a reader can read."""
    renderer = renderer_of(figure)
    boxes = [(t, box.padded(-0.5)) for t, box in drawn_texts(figure, renderer)]
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
    """The house palette, in order (for series that are not strategies: player counts, tables,
    rounds): :func:`category_colours` of its nine colours."""
    return category_colours(9)


STRATEGY_COLOURS = {
    "greedy": "#1f77b4", "random": "#7f7f7f", "exact": "#ff7f0e", "heavy": "#8c564b",
    "defensive": "#9467bd", "weighted": "#2ca02c", "rollout": "#d62728", "matchplay": "#e377c2",
    "cheater": "#17becf", "pimc": "#bcbd22",
}
"""One colour per built-in strategy, the same in every figure of every study."""

_OTHER_COLOURS = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
                  "#31a354", "#756bb1", "#636363")


VARIANT_SHADES = (-0.45, 0.4, -0.65, 0.6)
"""How far a variant's colour moves from its base's: towards black (negative) or white."""


def strategy_colour(name: str) -> str:
    """The colour of strategy ``name`` in every figure: :data:`STRATEGY_COLOURS` for a built-in;
    a variant (``weighted[...]``, ``weighted_tuned``) a shade of its base's colour, darker or
    lighter by a stable digest of its name (the family shows, and a figure holding both tells
    them apart); any other name (a user's strategy, an OpenSpiel bot) a colour of its own
    chosen by a stable digest of the name, so it is the same in every figure and every run."""
    from matplotlib.colors import to_hex, to_rgb

    base = name.split("[", 1)[0].strip()
    family = STRATEGY_COLOURS.get(base)
    if family is None:
        family = next((c for k, c in STRATEGY_COLOURS.items() if base.startswith(k + "_")), None)
    digest = hashlib.sha256(name.encode()).digest()
    if family is None:
        return _OTHER_COLOURS[digest[0] % len(_OTHER_COLOURS)]
    if name.strip() in STRATEGY_COLOURS:
        return family
    shade = VARIANT_SHADES[digest[0] % len(VARIANT_SHADES)]
    target = 0.0 if shade < 0 else 1.0
    rgb = [c + abs(shade) * (target - c) for c in to_rgb(family)]
    return to_hex(rgb)


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
    figure's bottom left, wrapped to its width, in a strip the layout keeps free for it, so no
    figure leaves the page without its provenance."""
    chars = max(20, int(figure.get_figwidth() * 72 / (0.56 * FOOTER_PT)))
    wrapped = textwrap.fill(text, chars)
    lines = wrapped.count("\n") + 1
    strip = (lines * FOOTER_PT * 1.3 + 5) / 72 / figure.get_figheight()
    engine = figure.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):
        try:
            engine.set(rect=(0, strip, 1, 1 - strip))
        except (TypeError, NotImplementedError):  # an engine without a rect: leave the layout
            pass
    figure.text(0.004, 0.004, wrapped, ha="left", va="bottom", fontsize=FOOTER_PT, color="0.3",
                gid=FOOTER_GID, linespacing=1.15)


# ---------------------------------------------------------------------------
# The print rules, checked
# ---------------------------------------------------------------------------
STRATEGY_LABEL = re.compile(r"^[A-Za-z_][\w.:]*(\[[^\]]*\])?$")
"""A legend label that is a strategy spec (``greedy``, ``pimc[worlds=64]``)."""


def _names_strategy(label: str) -> bool:
    """Whether a legend label names a built-in strategy (or a variant of one)."""
    if not STRATEGY_LABEL.match(label):
        return False
    base = label.split("[", 1)[0]
    return base in STRATEGY_COLOURS or any(base.startswith(k + "_") for k in STRATEGY_COLOURS)


def _colour_of(artist):
    """An artist's main colour as an RGBA tuple (rounded), or None."""
    from matplotlib.colors import to_rgba

    for getter in ("get_color", "get_facecolor", "get_edgecolor"):
        if hasattr(artist, getter):
            value = getattr(artist, getter)()
            try:
                if isinstance(value, np.ndarray) and value.ndim == 2:
                    if len(value) == 0:
                        continue
                    value = value[0]
                return tuple(round(float(c), 3) for c in to_rgba(value))
            except (ValueError, TypeError):
                continue
    return None


def _style_of(artist) -> tuple:
    """What a legend handle looks like: colour, marker, line style, hatch."""
    marker = artist.get_marker() if hasattr(artist, "get_marker") else None
    line = artist.get_linestyle() if hasattr(artist, "get_linestyle") else None
    hatch = artist.get_hatch() if hasattr(artist, "get_hatch") else None
    return (_colour_of(artist), str(marker), str(line), str(hatch))


def _palette_rgba(colours) -> set:
    from matplotlib.colors import to_rgba

    return {tuple(round(float(c), 3) for c in to_rgba(colour)) for colour in colours}


def _legend_problems(figure: Figure) -> list[str]:
    from matplotlib.colors import to_rgba

    legends = list(figure.legends) + [ax.get_legend() for ax in figure.axes
                                      if ax.get_legend() is not None]
    problems, seen = [], {}
    # a user's strategy takes a digest colour and cannot be told from a category by its label:
    # only the built-ins' colours are reserved
    strategy_palette = _palette_rgba(STRATEGY_COLOURS.values())
    for legend in legends:
        labels = [t.get_text() for t in legend.get_texts()]
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            problems.append(f"legend entry {twice[0]!r} appears twice")
        for label, handle in zip(labels, legend.legend_handles):
            if handle is None:
                continue
            style = _style_of(handle)
            colour = style[0]
            if _names_strategy(label):
                expected = tuple(round(float(c), 3) for c in to_rgba(strategy_colour(label)))
                if colour is not None and colour != expected:
                    problems.append(f"legend entry {label!r} is a strategy drawn in another "
                                    "colour than its own")
            elif colour in strategy_palette:
                problems.append(f"legend entry {label!r} is not a strategy but takes a strategy "
                                "colour (use category_colours)")
            seen.setdefault(style, set()).add(label)
    for style, labels in seen.items():
        if len(labels) > 1:
            problems.append("legend entries " + " and ".join(repr(x) for x in sorted(labels))
                            + " look the same")
    return problems


def _is_reference(line, ax) -> bool:
    """A line drawn across the axes (axhline, axvline) or marked as a reference."""
    return line.get_transform() != ax.transData or line.get_gid() == "reference"


def _axes_problems(ax, number: int) -> list[str]:
    from matplotlib.collections import PolyCollection
    from matplotlib.container import BarContainer, ErrorbarContainer
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D

    name = f"panel {number} {ax.get_title()!r}" if ax.get_title() else f"panel {number}"
    lines = [ln for ln in ax.get_lines() if ln.get_visible() and not _is_reference(ln, ax)
             and len(ln.get_xdata()) > 0]
    collections = [c for c in ax.collections if c.get_visible()]
    images = [i for i in ax.get_images() if i.get_visible()]
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    patches = [p for p in ax.patches if p.get_visible()]
    if not (lines or collections or images or bars or patches):
        return [f"{name} is empty"]
    gid = ax.get_gid() or ""
    if gid.startswith(NO_INTERVAL_GID):
        return []
    if images or any(type(c).__name__ == "QuadMesh" for c in collections):
        return []  # a map: its uncertainty is its own panel's
    problems = []
    errorbars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    with_bars = set()
    for container in errorbars:
        data_line, caps, bar_lines = container.lines
        if data_line is not None:
            with_bars.add(id(data_line))
        if not caps:
            problems.append(f"{name}: interval bars without caps")
        if data_line is not None and any(b.get_zorder() < data_line.get_zorder()
                                         for b in bar_lines):
            problems.append(f"{name}: interval bars drawn under their markers")
        for cap in caps:
            with_bars.add(id(cap))
    has_band = any(isinstance(c, PolyCollection) for c in collections)
    for line in lines:
        if id(line) in with_bars or not isinstance(line, Line2D):
            continue
        marker = line.get_marker()
        if marker not in (None, "", "None", " ") and not has_band:
            problems.append(f"{name}: estimates {line.get_label()!r} drawn without intervals")
        elif marker in (None, "", "None", " ") and not has_band:
            problems.append(f"{name}: curve {line.get_label()!r} drawn without an interval band")
    for container in bars:
        if getattr(container, "errorbar", None) is None:
            problems.append(f"{name}: bars drawn without intervals")
    for collection in collections:
        if type(collection).__name__ == "PathCollection":
            problems.append(f"{name}: scattered points drawn without intervals")
    return problems


def print_problems(figure: Figure) -> list[str]:
    """What keeps ``figure`` from print: a width other than one column or the page, text under
    :data:`MIN_FONT_PT`, text outside the figure or over other text (:func:`text_overlaps`), a
    legend entry twice or two entries alike, a category in a strategy's colour, an empty panel,
    estimates without intervals (markers, curves or bars not drawn by :func:`estimates`,
    :func:`band` or with error bars; an axes marked by :func:`no_intervals` or showing a map is
    exempt), interval bars without caps or under their markers. Empty for a printable figure.
    """
    problems = []
    width = figure.get_figwidth()
    if not any(abs(width - w) < 0.01 for w in WIDTHS.values()):
        problems.append(f"width {width:.2f} in is neither one column ({COLUMN_WIDTH} in) nor the "
                        f"page ({PAGE_WIDTH} in)")
    renderer = renderer_of(figure)
    frame = figure.bbox.padded(1.0)
    for text, box in drawn_texts(figure, renderer):
        if text.get_fontsize() < MIN_FONT_PT - 1e-6:
            problems.append(f"text {text.get_text()[:40]!r} is {text.get_fontsize():.1f} pt")
        if not (frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0
                and box.y1 <= frame.y1):
            problems.append(f"text {text.get_text()[:40]!r} runs off the figure")
    problems += [f"text {a[:40]!r} overlaps {b[:60]!r}" for a, b in text_overlaps(figure)]
    problems += _legend_problems(figure)
    for number, ax in enumerate(figure.axes):
        if ax.get_visible() and ax.get_label() != "<colorbar>":
            problems += _axes_problems(ax, number)
    return list(dict.fromkeys(problems))
