"""Figures of a tournament (PNG files): the pairwise win-rate matrix, the strength ranking, the
interval half-width against the number of matches, and a sequential run's confidence sequence.

Every figure carries its provenance line (:func:`experiments.reporting.figures.stamp`): matches or
duplicate deals per seating, the number of seatings, players and seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.reporting import figures
from experiments.reporting.figures import (band, estimates, new_figure, no_intervals,
                                           reference_line, save_png, stamp, strategy_colour)

CELL_INCHES = 0.62
"""Height of one row of the pairwise heatmap (two lines of 7 pt text with room)."""
KIND_GREY = "0.35"
"""The legend's entries for the kinds of interval (colour is the strategy's)."""
WIDE_FIELD = 3
"""A field of more strategies than this takes the page's width (the heatmap's cells)."""


def _save(fig, path, footer: str | None) -> None:
    if footer:
        stamp(fig, footer)
    save_png(fig, path)


SLANTED_NAME = 8
"""The longest strategy name the pairwise figure's column labels show slanted (longer: upright)."""


@figures.house_style()
def plot_pairwise(grid: pd.DataFrame, path, footer: str | None = None,
                  intervals: pd.DataFrame | None = None) -> None:
    """Heatmap of the row strategy's share of the matches either of the two won against the column
    strategy; ``intervals`` (:func:`~experiments.tools.tournament.tables.pairwise_intervals`) adds each
    cell's 95% interval under its share; ``footer`` is the provenance line
    (:func:`experiments.reporting.figures.run_footer`). One column wide for a field of up to
    :data:`WIDE_FIELD` strategies, the page's width beyond."""
    names = list(grid.columns)
    values = grid.to_numpy(dtype=float)
    bounds = {}
    if intervals is not None and {"low", "high"} <= set(intervals.columns):
        bounds = {(r.strategy, r.opponent): (r.low, r.high)
                  for r in intervals.itertuples(index=False)}
    wide = len(names) > WIDE_FIELD
    fig, ax = new_figure(width="page" if wide else "column",
                         height=1.6 + CELL_INCHES * len(names))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=0.0, vmax=1.0,
                      aspect="auto")
    # long names stand upright: slanted, their (axis-aligned) boxes overprint their neighbours'
    upright = max(len(n) for n in names) > SLANTED_NAME
    ax.set_xticks(range(len(names)), names, rotation=90 if upright else 30,
                  ha="center" if upright else "right")
    ax.set_yticks(range(len(names)), list(grid.index))
    ax.grid(False)
    rows = list(grid.index)
    for i in range(len(rows)):
        for j in range(len(names)):
            if np.isfinite(values[i, j]):
                text = f"{values[i, j]:.2f}"
                low, high = bounds.get((rows[i], names[j]), (np.nan, np.nan))
                if np.isfinite(low) and np.isfinite(high):
                    text += f"\n[{low:.2f}, {high:.2f}]"
                # dark text on the light middle of the colour map, white on its dark ends
                dark = abs(values[i, j] - 0.5) < 0.3
                ax.text(j, i, text, ha="center", va="center", fontsize=7,
                        color="black" if dark else "white")
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    ax.set_title("Head-to-head share, row vs column" + (" (95% interval)" if bounds else ""))
    bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.03)
    bar.set_label("row's share of the matches either won")
    _save(fig, path, footer)


@figures.house_style()
def plot_ranking(table: pd.DataFrame, path, footer: str | None = None,
                 unit: str = "deals as clusters") -> None:
    """Log-strengths with 95% intervals, strongest at the top, each strategy in its colour
    (:func:`experiments.reporting.figures.strategy_colour`), its simultaneous rank interval in its
    label where the table has one; ``unit`` names what the intervals count as independent."""
    table = table.iloc[::-1]
    fig, ax = new_figure(width="column", height=1.2 + 0.22 * len(table))
    y = np.arange(len(table))
    for k, row in enumerate(table.itertuples(index=False)):
        centre = float(row.log_strength)
        if not np.isfinite(centre):
            continue
        estimates(ax, [centre], [y[k]], [row.low], [row.high],
                  color=strategy_colour(row.strategy), horizontal=True)
    if "rank_low" in table:
        labels = [f"{r.strategy} [{r.rank_low}, {r.rank_high}]" for r in table.itertuples()]
    else:
        labels = list(table["strategy"])
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.6, len(table) - 0.4)
    reference_line(ax, 0.0, axis="x")
    ax.set_xlabel("log strength (Bradley-Terry/Luce, field mean 0)")
    ax.set_title("Ranking" + (" [simultaneous 95% rank interval]" if "rank_low" in table
                              else "") + f"\nbars: 95%, {unit}")
    _save(fig, path, footer)


@figures.house_style()
def plot_interval_width(widths: pd.DataFrame, path, footer: str | None = None,
                        sequence: pd.DataFrame | None = None) -> None:
    """Half-width of each strategy's 95% win-rate interval against matches per seating,
    log-log, paired (deals as clusters, solid) and Wilson (matches independent, dashed), with
    the ``1/sqrt(n)`` reference.

    A strategy whose widths equal an earlier one's at every n (the two of a two-strategy field:
    their win rates are complements) is drawn once, the title naming the pair, so no series
    hides under another.

    Parameters
    ----------
    widths : DataFrame
        :func:`experiments.tools.tournament.tables.interval_widths`.
    sequence : DataFrame, optional
        A sequential run's ``deals`` and ``cs_radius`` (the confidence sequence's
        half-width on the mean per-deal score): drawn for comparison.
    """
    fig, ax = new_figure(width="page", height=3.6)
    no_intervals(ax, "each point is an interval's half-width, not an estimate")
    if widths.empty:
        ax.text(0.5, 0.5, "fewer than 2 matches per seating: no interval", ha="center",
                va="center", transform=ax.transAxes)
        ax.set_axis_off()
        _save(fig, path, footer)
        return
    paired = bool(widths["paired_half_width"].notna().any())
    names = list(dict.fromkeys(widths["strategy"]))
    drawn, mirrors = [], []
    columns = ["paired_half_width", "wilson_half_width"]
    for name in names:
        own = widths[widths["strategy"] == name][columns].to_numpy(dtype=float)
        twin = next((d for d in drawn if np.allclose(
            widths[widths["strategy"] == d][columns].to_numpy(dtype=float), own,
            rtol=1e-9, atol=1e-12, equal_nan=True)), None)
        if twin is not None:
            mirrors.append((name, twin))
            continue
        drawn.append(name)
        rows = widths[widths["strategy"] == name]
        colour = strategy_colour(name)
        # the legend names each strategy once (its colour); the two kinds are grey entries
        if paired:
            ax.plot(rows["matches_per_seating"], rows["paired_half_width"], marker="o",
                    color=colour, label=name)
        ax.plot(rows["matches_per_seating"], rows["wilson_half_width"], marker="s",
                mfc="none", ls="--" if paired else "-", color=colour,
                label="_nolegend_" if paired else name)
    # The reference goes through the mean width at the largest sample: 1/sqrt(n)
    # is what an interval of independent (or deal-clustered) outcomes does.
    n = np.unique(widths["matches_per_seating"].to_numpy(dtype=float))
    last = widths[widths["matches_per_seating"] == n[-1]][columns[0] if paired
                                                          else columns[1]].mean()
    if np.isfinite(last) and last > 0:
        ax.plot(n, last * np.sqrt(n[-1] / n), color="black", ls=":",
                label=r"$\propto 1/\sqrt{n}$ (through the mean at the largest $n$)")
    values = [widths[c].to_numpy(dtype=float) for c in columns]
    if sequence is not None and len(sequence):
        # At the same prefixes as the intervals: the price of looking after every deal.
        at = sequence[sequence["deals"].isin(n)]
        ax.plot(at["deals"], at["cs_radius"], color="black", ls="-.", marker=".",
                label="confidence sequence half-width\n(anytime-valid, per-deal score)")
        values.append(at["cs_radius"].to_numpy(dtype=float))
    ax.set_xscale("log")
    ax.set_yscale("log")
    # Every point inside the axes: limits from the positive finite values, a margin each side.
    every = np.concatenate(values)
    every = every[np.isfinite(every) & (every > 0)]
    if every.size:
        ax.set_ylim(every.min() / 1.3, every.max() * 1.3)
    ax.set_xlim(n[0] / 1.2, n[-1] * 1.2)
    log_ticks(ax.xaxis, *ax.get_xlim(), "{:,.0f}")
    log_ticks(ax.yaxis, *ax.get_ylim(), "{:.3g}")
    ax.set_xlabel("deals per seating (the first n of each seating; log scale)"
                  if paired else
                  "matches per seating (the first n of each seating; log scale)")
    ax.set_ylabel("half-width of the 95% win-rate\ninterval (0.01 = 1 pp; log scale)")
    title = "Interval width against sample size"
    if mirrors:
        title += ("\n(" + "; ".join(f"{m}'s widths equal {t}'s: drawn once"
                                    for m, t in mirrors) + ")")
    ax.set_title(title)
    ax.grid(True, which="both")
    handles, _ = ax.get_legend_handles_labels()
    if paired:
        from matplotlib.lines import Line2D

        handles += [Line2D([], [], color=KIND_GREY, marker="o", label="paired (deals as clusters)"),
                    Line2D([], [], color=KIND_GREY, marker="s", mfc="none", ls="--",
                           label="Wilson (matches independent)")]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    _save(fig, path, footer)


def log_ticks(axis, low: float, high: float, form: str) -> None:
    """Ticks 1, 2, 3, 5 x 10^k (1, 2, 5 beyond two decades; 1 beyond four) inside ``[low, high]``
    on a log ``axis``, written with ``form``, no
    minor tick labels: every tick label sits beside the axes (matplotlib's log locator keeps
    labels of ticks outside the limits, which overprint the footer)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    powers = np.arange(np.floor(np.log10(low)), np.ceil(np.log10(high)) + 1)
    decades = np.log10(high / low)
    # fewer ticks per decade as the axis spans more: "2,000" and "3,000" collide across 3 decades
    mantissas = (1, 2, 3, 5) if decades <= 2 else (1, 2, 5) if decades <= 4 else (1,)
    ticks = [m * 10.0 ** k for k in powers for m in mantissas]
    ticks = [t for t in ticks if low <= t <= high]
    if len(ticks) < 2:  # a narrow range: its ends
        ticks = [low, high]
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda value, _: form.format(value)))
    axis.set_minor_formatter(NullFormatter())


@figures.house_style()
def plot_sequence(sequence: pd.DataFrame, names: tuple, stop: int | None, path,
                  footer: str | None = None) -> None:
    """A sequential run: strategy A's running mean per-deal score with its confidence sequence
    (a band), the line 1/2 the test must exclude, and the stopping deal.

    Parameters
    ----------
    sequence : DataFrame
        ``deals``, ``mean``, ``cs_low``, ``cs_high`` per deal played (in order).
    names : (str, str)
        Strategies A and B.
    stop : int or None
        The deal at which the sequence first excluded 1/2 (None: not separated).
    """
    fig, ax = new_figure(width="column", height=2.6)
    deals = sequence["deals"].to_numpy()
    band(ax, deals, sequence["mean"], sequence["cs_low"], sequence["cs_high"],
         color=strategy_colour(names[0]), label=names[0])
    reference_line(ax, 0.5)
    if stop is not None:
        ax.axvline(stop, color="0.35", lw=0.8, ls="-.", label=f"stop: deal {stop:,}")
    ax.set_ylim(0.0, 1.0)
    ax.set_xlim(0, 1.04 * max(int(deals[-1]), 2))
    ax.set_xlabel("deals played (each in both seatings)")
    ax.set_ylabel(f"{names[0]}'s mean per-deal score")
    ax.set_title(f"{names[0]} vs {names[1]}: running mean,\nconfidence sequence (band), 1/2 dashed")
    ax.legend(loc="lower right" if sequence["mean"].iloc[-1] > 0.5 else "upper right")
    _save(fig, path, footer)
