"""The head-to-head figure of the studies with mixed tables (:mod:`experiments.mixed_tables`).

One figure per study (``head_to_head.png``): a row per quantity (:class:`Panel`), a column per
player count; along x the configurations (self-play first, then each table), one marker per
strategy in its colour (:func:`experiments.reporting.figures.strategy_colour`, the same in every
figure), with its 95% interval (:func:`experiments.reporting.figures.estimates`). Every marker
is a filled circle: the x category says whether it is self-play or which table, so the legend
names strategies only, each drawn. Rates are drawn from 0 (a dashed line at chance where the
panel names a ``fair`` column); a difference (an effect, a contrast: ``centred``) on an axis
symmetric about 0 with a line at 0, so no axis exaggerates a difference; every figure is a page
wide in the house style and carries the run's footer (sample sizes, players, seed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.mixed_tables import SELF_PLAY
from experiments.reporting.figures import (
    estimates,
    house_style,
    new_figure,
    reference_line,
    run_footer,
    save_png,
    stamp,
    strategy_colour,
)

LEGEND_COLUMNS = 8
"""Strategies per legend line."""


@dataclass(frozen=True)
class Panel:
    """One row of the figure: ``value`` with interval columns ``low``, ``high`` and a y label.

    Attributes
    ----------
    value, low, high : str
        Columns of the rows.
    ylabel : str
        What is plotted, in which unit.
    rate : bool
        A share: the axis stops at 1 at most.
    fair : str, optional
        A column holding a reference level (dotted line).
    full : bool
        Drawn on 0..1 (win rates).
    scale : float
        Values are multiplied by it before drawing (100: a share shown in percentage points).
    centred : bool
        A difference (an edge, a paired contrast): the axis is symmetric about 0, with a line
        at 0. Otherwise every axis starts at 0.
    """

    value: str
    low: str
    high: str
    ylabel: str
    rate: bool = False
    fair: str | None = None
    full: bool = False
    scale: float = 1.0
    centred: bool = False


def table_footer(settings: dict) -> str:
    """The footer of a figure with mixed tables: both sample sizes (the strong strategies'
    own count too), the players and the seed."""
    sample = f"{settings['matches']:,} matches per self-play configuration"
    if settings.get("strong"):
        sample += f" ({', '.join(settings['strong'])}: {settings['strong_matches']:,} each)"
    sample += (f", {settings.get('table_matches', settings['matches']):,} per table rotation "
               "(duplicate deals)")
    return run_footer(settings, sample=sample)


def configurations(rows: pd.DataFrame) -> list[str]:
    """The x categories of the figure: self-play first (when present), then each table in the
    rows' order."""
    labels = list(dict.fromkeys(rows["table"]))
    if SELF_PLAY in labels:
        labels.remove(SELF_PLAY)
        labels.insert(0, SELF_PLAY)
    return labels


def _offsets(rows: pd.DataFrame, label: str, players: int) -> dict:
    """x offsets of the strategies within one category, centred (each category holds only the
    strategies it has, so no gap is left for absent ones; more strategies spread wider, up to
    0.8 of the category)."""
    names = list(dict.fromkeys(rows.loc[(rows["table"] == label)
                                        & (rows["players"] == players), "strategy"]))
    spread = min(0.8, 0.14 + 0.16 * (len(names) - 1))
    step = spread / max(1, len(names) - 1) if len(names) > 1 else 0.0
    return {name: (k - (len(names) - 1) / 2) * step for k, name in enumerate(names)}


def visible_ticks(ax, axis: str = "y") -> None:
    """Fix the ``axis`` ticks of ``ax`` (and of the axes sharing it) to those inside its limits:
    a locator also places labels just outside the view, which are not drawn but would still sit
    on the figure as texts (and overlap another panel's in a text check)."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    low, high = ax.get_ylim() if axis == "y" else ax.get_xlim()
    ticks = [t for t in target.get_major_locator().tick_values(low, high)
             if min(low, high) <= t <= max(low, high)]
    if axis == "y":
        ax.set_yticks(ticks)
        ax.set_ylim(low, high)
    else:
        ax.set_xticks(ticks)
        ax.set_xlim(low, high)


@house_style()
def head_to_head_figure(rows: pd.DataFrame, panels, settings: dict, title: str | None = None):
    """The figure (see the module docstring) from rows with ``table``, ``players``,
    ``strategy`` and every panel's columns; a missing or nan value is not drawn. ``title`` is
    not drawn (the summary's caption says what the figure shows); it is kept for callers."""
    players = sorted(rows["players"].unique())
    labels = configurations(rows)
    fig, axes = new_figure(len(panels), len(players), width="page",
                           height=1.2 + 1.9 * len(panels), squeeze=False, sharey="row")
    extent = [0.0] * len(panels)  # rows share y: one limit per row, from all its panels
    for j, count in enumerate(players):
        for i, panel in enumerate(panels):
            ax = axes[i, j]
            if panel.centred:
                reference_line(ax, 0.0)
            fair = rows.loc[rows["players"] == count, panel.fair] if panel.fair else None
            if fair is not None and len(fair):
                reference_line(ax, panel.scale * float(fair.iloc[0]))
            for table in labels:
                offsets = _offsets(rows, table, count)
                for name, shift in offsets.items():
                    sel = rows[(rows.players == count) & (rows.strategy == name)
                               & (rows.table == table)]
                    if sel.empty or panel.value not in sel:
                        continue
                    value = panel.scale * float(sel[panel.value].iloc[0])
                    if not np.isfinite(value):
                        continue
                    low = panel.scale * float(sel[panel.low].iloc[0])
                    high = panel.scale * float(sel[panel.high].iloc[0])
                    estimates(ax, [labels.index(table) + shift], [value], [low], [high],
                              color=strategy_colour(name), label=name, markersize=3.2)
                    bound = max(abs(b) for b in (value, low, high) if np.isfinite(b))
                    extent[i] = max(extent[i], bound if panel.centred else
                                    (high if np.isfinite(high) else value))
            ax.set_xticks(range(len(labels)), labels, rotation=90)
            ax.set_xlim(-0.6, len(labels) - 0.4)
            if j == 0:
                ax.set_ylabel(panel.ylabel)
        axes[0, j].set_title(f"{count} players")
    for i, panel in enumerate(panels):
        if panel.full:
            axes[i, 0].set_ylim(0, panel.scale)
        elif panel.centred:
            top = 1.15 * extent[i] if extent[i] > 0 else 1.0
            axes[i, 0].set_ylim(-top, top)
        elif extent[i] > 0:
            axes[i, 0].set_ylim(0, min(panel.scale, 1.15 * extent[i]) if panel.rate
                                else 1.2 * extent[i])
        visible_ticks(axes[i, 0])
    # the legend from the drawn artists: one per strategy shown, nothing else
    handles = {}
    for ax in axes.ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    fig.legend(list(handles.values()), list(handles), loc="outside upper center",
               ncol=max(1, min(len(handles), LEGEND_COLUMNS)))
    stamp(fig, table_footer(settings) + "; at 3 players a two-strategy table is A vs B, B")
    return fig


@house_style()
def plot_head_to_head(rows: pd.DataFrame, panels, path, settings: dict, title: str = "") -> None:
    """Write :func:`head_to_head_figure` as PNG."""
    save_png(head_to_head_figure(rows, panels, settings, title), path)
