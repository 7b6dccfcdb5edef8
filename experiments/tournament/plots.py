"""Figures of a tournament: the pairwise win-rate matrix and the strength ranking (PNG files)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.figures import new_figure, save_png

DPI = 120
"""Resolution of the tournament's figures."""


def _save(fig, path) -> None:
    save_png(fig, path, DPI)


def plot_pairwise(grid: pd.DataFrame, path) -> None:
    """Heatmap of the row strategy's win rate against the column strategy."""
    names = list(grid.columns)
    values = grid.to_numpy(dtype=float)
    fig, ax = new_figure(figsize=(1.2 * len(names) + 2.5, 1.0 * len(names) + 1.8))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), list(grid.index))
    for i in range(len(names)):
        for j in range(len(names)):
            if np.isfinite(values[i, j]):
                ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    ax.set_title("Win rate, row vs column")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    _save(fig, path)


def plot_ranking(table: pd.DataFrame, path) -> None:
    """Log-strengths with 95% intervals, strongest at the top."""
    table = table.iloc[::-1]
    finite = np.isfinite(table["log_strength"].to_numpy(dtype=float))
    fig, ax = new_figure(figsize=(6.5, 0.5 * len(table) + 1.5))
    y = np.arange(len(table))
    centre = table["log_strength"].to_numpy(dtype=float)
    low = table["low"].to_numpy(dtype=float)
    high = table["high"].to_numpy(dtype=float)
    err = np.vstack([centre - low, high - centre])
    err = np.where(np.isfinite(err), err, 0.0)
    ax.errorbar(centre[finite], y[finite], xerr=err[:, finite], fmt="o", capsize=4)
    ax.set_yticks(y, table["strategy"])
    ax.axvline(0.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("log strength (Bradley-Terry / Luce), 95% interval")
    ax.set_title("Strategy ranking")
    _save(fig, path)
