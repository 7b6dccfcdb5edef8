"""Figures of a tournament (PNG files): the pairwise win-rate matrix, the strength ranking, the
interval half-width against the number of matches, and a sequential run's confidence sequence.

Every figure carries its provenance line (:func:`experiments.figures.stamp`): matches or
duplicate deals per seating, the number of seatings, players and seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.figures import color_cycle, new_figure, save_png, stamp

DPI = 120
"""Resolution of the tournament's figures."""


def _save(fig, path, footer: str | None) -> None:
    if footer:
        stamp(fig, footer)
    save_png(fig, path, DPI)


def plot_pairwise(grid: pd.DataFrame, path, footer: str | None = None) -> None:
    """Heatmap of the row strategy's win rate against the column strategy; ``footer`` is the
    provenance line (:func:`experiments.figures.run_footer`)."""
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
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    ax.set_title("Win rate, row vs column")
    bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    bar.set_label("row's share of the matches either of the two won (0 to 1)")
    _save(fig, path, footer)


def plot_ranking(table: pd.DataFrame, path, footer: str | None = None) -> None:
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
    ax.set_xlabel("log strength (Bradley-Terry / Luce, natural log, field mean 0), 95% interval\n"
                  "a difference d: odds exp(d) of winning head to head")
    ax.set_title("Strategy ranking")
    _save(fig, path, footer)


def plot_interval_width(widths: pd.DataFrame, path, footer: str | None = None,
                        sequence: pd.DataFrame | None = None) -> None:
    """Half-width of each strategy's 95% win-rate interval against matches per seating,
    log-log, with the ``1/sqrt(n)`` reference.

    Parameters
    ----------
    widths : DataFrame
        :func:`experiments.tournament.tables.interval_widths`.
    sequence : DataFrame, optional
        A sequential run's ``deals`` and ``cs_radius`` (the confidence sequence's
        half-width on the mean per-deal score): drawn for comparison.
    """
    fig, ax = new_figure(figsize=(7.5, 4.8))
    if widths.empty:
        ax.text(0.5, 0.5, "fewer than 2 matches per seating: no interval", ha="center",
                va="center", transform=ax.transAxes)
        ax.set_axis_off()
        _save(fig, path, footer)
        return
    colours = color_cycle()
    markers = "osv^DPX<>"
    names = list(dict.fromkeys(widths["strategy"]))
    for i, name in enumerate(names):
        own = widths[widths["strategy"] == name]
        # Hollow markers of different shapes: lines that coincide (the two strategies of a
        # two-strategy run have the same width) stay visible.
        ax.plot(own["matches_per_seating"], own["half_width"], marker=markers[i % len(markers)],
                ms=6, mfc="none", lw=1.2, color=colours[i % len(colours)], label=name)
    # The reference goes through the field's mean width at the largest sample: 1/sqrt(n)
    # is what an interval of independent (or deal-clustered) outcomes does.
    n = np.unique(widths["matches_per_seating"].to_numpy(dtype=float))
    last = widths[widths["matches_per_seating"] == n[-1]]["half_width"].mean()
    if np.isfinite(last) and last > 0:
        ax.plot(n, last * np.sqrt(n[-1] / n), color="black", ls="--", lw=1.0,
                label=r"$\propto 1/\sqrt{n}$ (through the mean at the largest $n$)")
    if sequence is not None and len(sequence):
        # At the same prefixes as the intervals: the price of looking after every deal.
        at = sequence[sequence["deals"].isin(n)]
        ax.plot(at["deals"], at["cs_radius"], color="0.45", ls=":", marker=".", lw=1.4,
                label="confidence sequence half-width\n(anytime-valid, per-deal score)")
    kind = widths["interval"].iloc[0]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("deals per seating (duplicate deals, the first n of each seating; log scale)"
                  if kind == "paired" else
                  "matches per seating (the first n of each seating; log scale)")
    ax.set_ylabel("half-width of the 95% win-rate interval\n(win rate, 0.01 = 1 percentage "
                  "point; log scale)")
    ax.set_title("Interval width against sample size ("
                 + ("paired, deals as clusters" if kind == "paired" else "Wilson") + ")")
    ax.grid(True, which="both", color="0.9", lw=0.6)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    _save(fig, path, footer)


def plot_sequence(sequence: pd.DataFrame, names: tuple, stop: int | None, path,
                  footer: str | None = None) -> None:
    """A sequential run: strategy A's running mean per-deal score with its confidence sequence,
    the line 1/2 the test must exclude, and the stopping deal.

    Parameters
    ----------
    sequence : DataFrame
        ``deals``, ``mean``, ``cs_low``, ``cs_high`` per deal played (in order).
    names : (str, str)
        Strategies A and B.
    stop : int or None
        The deal at which the sequence first excluded 1/2 (None: not separated).
    """
    fig, ax = new_figure(figsize=(7.5, 4.2))
    deals = sequence["deals"].to_numpy()
    ax.fill_between(deals, sequence["cs_low"], sequence["cs_high"], color="C0", alpha=0.25,
                    lw=0, label="confidence sequence (anytime-valid)")
    ax.plot(deals, sequence["mean"], color="C0", lw=1.2, label=f"{names[0]}'s mean per-deal score")
    ax.axhline(0.5, color="black", lw=0.8, ls="--", label="1/2: the two equal")
    if stop is not None:
        ax.axvline(stop, color="C3", lw=1.0, label=f"stopped at deal {stop:,}")
    ax.set_ylim(0.0, 1.0)
    ax.set_xlim(0, 1.04 * max(int(deals[-1]), 2))
    ax.set_xlabel("deals played (each in both seatings)")
    ax.set_ylabel(f"{names[0]}'s share of the deal's seatings won\n(unfinished = 1/2; "
                  f"1 = {names[0]} won both)")
    ax.set_title(f"Sequential test: {names[0]} vs {names[1]}")
    ax.legend(fontsize=8, loc="lower right" if sequence["mean"].iloc[-1] > 0.5 else "upper right")
    _save(fig, path, footer)
