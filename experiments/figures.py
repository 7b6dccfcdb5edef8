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
