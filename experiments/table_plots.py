"""The head-to-head figure of the studies with mixed tables (:mod:`experiments.mixed_tables`).

One figure per study (``head_to_head.png``): a row per figure (:class:`Panel`), a column per
player count; along x the configurations (self-play first, then each table), one marker per
strategy (its colour), with the 95% interval. Self-play markers are open squares, a table's
filled circles. Rates are drawn on 0..1 and counts from 0, so no axis exaggerates a
difference; every figure carries the run's footer (sample sizes, players, seed).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.figures import color_cycle, new_figure, run_footer, save_png, stamp
from experiments.mixed_tables import SELF_PLAY

DPI = 110


@dataclass(frozen=True)
class Panel:
    """One row of the figure: ``value`` with interval columns ``low``, ``high`` and a y label;
    ``rate``: a share (the axis stops at 1 at most); ``full``: drawn on 0..1 (win rates);
    ``fair``: a column holding a reference level (dotted line). Every axis starts at 0."""

    value: str
    low: str
    high: str
    ylabel: str
    rate: bool = False
    fair: str | None = None
    full: bool = False


def table_footer(settings: dict) -> str:
    """The footer of a figure with mixed tables: both sample sizes, the players and the seed."""
    sample = (f"{settings['matches']:,} matches per self-play configuration, "
              f"{settings.get('table_matches', settings['matches']):,} per table rotation "
              "(duplicate deals)")
    return run_footer(settings, sample=sample)


def head_to_head_figure(rows: pd.DataFrame, panels, settings: dict, title: str):
    """The figure (see the module docstring) from rows with ``table``, ``players``,
    ``strategy`` and every panel's columns; a missing or nan value is not drawn."""
    players = sorted(rows["players"].unique())
    labels = list(dict.fromkeys(rows["table"]))
    if SELF_PLAY in labels:
        labels.remove(SELF_PLAY)
        labels.insert(0, SELF_PLAY)
    strategies = list(dict.fromkeys(rows["strategy"]))
    colors = color_cycle()
    step = 0.5 / max(1, len(strategies) - 1) if len(strategies) > 1 else 0.0
    offset = {name: (k - (len(strategies) - 1) / 2) * step for k, name in enumerate(strategies)}
    width = max(4.2, 1.25 * len(labels) + 1.5)
    fig, axes = new_figure(len(panels), len(players), figsize=(width * len(players),
                                                                2.9 * len(panels) + 0.8),
                           squeeze=False, sharey="row")
    tops = [0.0] * len(panels)  # the rows share y: one limit per row, from all its panels
    for j, count in enumerate(players):
        for i, panel in enumerate(panels):
            ax = axes[i, j]
            top = 0.0
            for k, name in enumerate(strategies):
                for table in labels:
                    sel = rows[(rows.players == count) & (rows.strategy == name)
                               & (rows.table == table)]
                    if sel.empty or panel.value not in sel:
                        continue
                    value = float(sel[panel.value].iloc[0])
                    if not np.isfinite(value):
                        continue
                    low, high = float(sel[panel.low].iloc[0]), float(sel[panel.high].iloc[0])
                    err = np.array([[max(0.0, value - low)], [max(0.0, high - value)]])
                    err = np.where(np.isfinite(err), err, 0.0)
                    own = table == SELF_PLAY
                    ax.errorbar([labels.index(table) + offset[name]], [value], yerr=err,
                                fmt="s" if own else "o", ms=6, capsize=3, lw=1.2,
                                color=colors[k % len(colors)],
                                mfc="white" if own else colors[k % len(colors)])
                    top = max(top, high if np.isfinite(high) else value)
                    if panel.fair is not None and panel.fair in sel:
                        ax.axhline(float(sel[panel.fair].iloc[0]), color="grey", lw=0.8, ls=":")
            ax.set_xticks(range(len(labels)), [textwrap.fill(t, 14) for t in labels],
                          fontsize=8)
            ax.set_xlim(-0.6, len(labels) - 0.4)
            ax.grid(alpha=0.3, axis="y")
            tops[i] = max(tops[i], top)
            if j == 0:
                ax.set_ylabel(panel.ylabel, fontsize=9)
        axes[0, j].set_title(f"{count} players")
    for i, panel in enumerate(panels):
        if panel.full:
            axes[i, 0].set_ylim(0, 1)
        elif tops[i] > 0:
            axes[i, 0].set_ylim(0, min(1.0, 1.25 * tops[i]) if panel.rate else 1.2 * tops[i])
    # the legend from empty artists: one per strategy, whatever panel shows it
    handles = [axes[0, 0].errorbar([], [], fmt="o", color=colors[k % len(colors)], label=name)
               for k, name in enumerate(strategies)]
    handles.append(axes[0, 0].errorbar([], [], fmt="s", color="black", mfc="white",
                                       label="open square: self-play"))
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), frameon=False,
               bbox_to_anchor=(0.5, 0.955), fontsize=9)
    fig.suptitle(title + "\n(95% intervals; tables: every rotation on the same deals; at 3 "
                 "players a two-strategy table is A vs B, B)", y=1.0)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    stamp(fig, table_footer(settings))
    return fig


def plot_head_to_head(rows: pd.DataFrame, panels, path, settings: dict, title: str) -> None:
    """Write :func:`head_to_head_figure` as PNG."""
    save_png(head_to_head_figure(rows, panels, settings, title), path, DPI)
