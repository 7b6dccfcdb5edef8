"""Figures as files: matplotlib's object API (no pyplot state, no backend to choose), PNG bytes
that depend on the data only.
"""

from __future__ import annotations

import matplotlib
from matplotlib.figure import Figure


def new_figure(rows: int = 1, cols: int = 1, *, figsize, **subplots):
    """A figure and its axes (``Figure.subplots`` arguments; a single Axes for 1 x 1 unless
    ``squeeze=False``)."""
    figure = Figure(figsize=figsize)
    return figure, figure.subplots(rows, cols, **subplots)


def save_png(figure: Figure, path, dpi: int) -> None:
    """Write ``figure`` as PNG. The metadata carries no software version: same data, same bytes."""
    figure.savefig(path, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})


def color_cycle() -> list[str]:
    """The colours of matplotlib's default property cycle, in order."""
    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


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
    figure.text(0.0, -0.02, text, ha="left", va="top", fontsize=8, color="0.3")
