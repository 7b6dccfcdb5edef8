"""Figures of a tournament (PNG files): the pairwise win-rate matrix, the strength ranking, the
interval half-width against the number of matches, and a sequential run's confidence sequence.

Every figure carries its provenance line (:func:`experiments.reporting.figures.stamp`): matches or
duplicate deals per seating, the number of seatings, players and seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.reporting.figures import new_figure, save_png, stamp, strategy_colour

DPI = 120
"""Resolution of the tournament's figures."""


def _save(fig, path, footer: str | None) -> None:
    if footer:
        stamp(fig, footer)
    save_png(fig, path, DPI)


def plot_pairwise(grid: pd.DataFrame, path, footer: str | None = None,
                  intervals: pd.DataFrame | None = None) -> None:
    """Heatmap of the row strategy's share of the matches either of the two won against the column
    strategy; ``intervals`` (:func:`~experiments.tools.tournament.tables.pairwise_intervals`) adds each
    cell's 95% interval under its share; ``footer`` is the provenance line
    (:func:`experiments.reporting.figures.run_footer`)."""
    names = list(grid.columns)
    values = grid.to_numpy(dtype=float)
    bounds = {}
    if intervals is not None and {"low", "high"} <= set(intervals.columns):
        bounds = {(r.strategy, r.opponent): (r.low, r.high)
                  for r in intervals.itertuples(index=False)}
    fig, ax = new_figure(figsize=(1.3 * len(names) + 2.8, 1.0 * len(names) + 2.0))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), list(grid.index))
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
                ax.text(j, i, text, ha="center", va="center", fontsize=7 if bounds else 9,
                        color="black" if dark else "white")
    ax.set_xlabel("opponent (column strategy)")
    ax.set_ylabel("strategy (row)")
    ax.set_title("Head-to-head share, row vs column\n(95% interval in brackets)" if bounds
                 else "Head-to-head share, row vs column")
    bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    bar.set_label("row's share of the matches\neither of the two won (0 to 1)")
    _save(fig, path, footer)


def plot_ranking(table: pd.DataFrame, path, footer: str | None = None,
                 unit: str = "deals as clusters") -> None:
    """Log-strengths with 95% intervals, strongest at the top, each strategy in its colour
    (:func:`experiments.reporting.figures.strategy_colour`); ``unit`` names what the intervals count as
    independent."""
    table = table.iloc[::-1]
    fig, ax = new_figure(figsize=(6.5, 0.5 * len(table) + 1.8))
    y = np.arange(len(table))
    for k, row in enumerate(table.itertuples(index=False)):
        centre = float(row.log_strength)
        if not np.isfinite(centre):
            continue
        err = np.array([[centre - row.low], [row.high - centre]], dtype=float)
        err = np.where(np.isfinite(err), err, 0.0)
        ax.errorbar([centre], [y[k]], xerr=err, fmt="o", capsize=4,
                    color=strategy_colour(row.strategy))
    ax.set_yticks(y, table["strategy"])
    ax.axvline(0.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("log strength (Bradley-Terry / Luce, natural log, field mean 0)\n"
                  "a difference d: odds exp(d) of winning head to head")
    ax.set_title(f"Strategy ranking (95% intervals, {unit})")
    _save(fig, path, footer)


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
    fig, ax = new_figure(figsize=(7.5, 4.8))
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
        if paired:
            ax.plot(rows["matches_per_seating"], rows["paired_half_width"], marker="o", ms=5,
                    lw=1.4, color=colour, label=f"{name}: paired (deals as clusters)")
        ax.plot(rows["matches_per_seating"], rows["wilson_half_width"], marker="s", ms=5,
                mfc="none", lw=1.0, ls="--" if paired else "-", color=colour,
                label=f"{name}: Wilson (matches independent)")
    # The reference goes through the mean width at the largest sample: 1/sqrt(n)
    # is what an interval of independent (or deal-clustered) outcomes does.
    n = np.unique(widths["matches_per_seating"].to_numpy(dtype=float))
    last = widths[widths["matches_per_seating"] == n[-1]][columns[0] if paired
                                                          else columns[1]].mean()
    if np.isfinite(last) and last > 0:
        ax.plot(n, last * np.sqrt(n[-1] / n), color="black", ls=":", lw=1.0,
                label=r"$\propto 1/\sqrt{n}$ (through the mean at the largest $n$)")
    values = [widths[c].to_numpy(dtype=float) for c in columns]
    if sequence is not None and len(sequence):
        # At the same prefixes as the intervals: the price of looking after every deal.
        at = sequence[sequence["deals"].isin(n)]
        ax.plot(at["deals"], at["cs_radius"], color="black", ls="-.", marker=".", lw=1.4,
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
    ax.set_xlabel("deals per seating (duplicate deals, the first n of each seating; log scale)"
                  if paired else
                  "matches per seating (the first n of each seating; log scale)")
    ax.set_ylabel("half-width of the 95% win-rate interval\n(win rate, 0.01 = 1 percentage "
                  "point; log scale)")
    title = "Interval width against sample size"
    if mirrors:
        title += ("\n(" + "; ".join(f"{m}'s widths equal {t}'s: drawn once"
                                    for m, t in mirrors) + ")")
    ax.set_title(title)
    ax.grid(True, which="both", color="0.9", lw=0.6)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
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
    colour = strategy_colour(names[0])
    ax.fill_between(deals, sequence["cs_low"], sequence["cs_high"], color=colour, alpha=0.25,
                    lw=0, label="confidence sequence (anytime-valid)")
    ax.plot(deals, sequence["mean"], color=colour, lw=1.2, label=f"{names[0]}'s mean per-deal score")
    ax.axhline(0.5, color="black", lw=0.8, ls="--", label="1/2: the two equal")
    if stop is not None:
        ax.axvline(stop, color="0.35", lw=1.0, ls="-.", label=f"stopped at deal {stop:,}")
    ax.set_ylim(0.0, 1.0)
    ax.set_xlim(0, 1.04 * max(int(deals[-1]), 2))
    ax.set_xlabel("deals played (each in both seatings)")
    ax.set_ylabel(f"{names[0]}'s share of the deal's seatings won\n(unfinished = 1/2; "
                  f"1 = {names[0]} won both)")
    ax.set_title(f"Sequential test: {names[0]} vs {names[1]}")
    ax.legend(fontsize=8, loc="lower right" if sequence["mean"].iloc[-1] > 0.5 else "upper right")
    _save(fig, path, footer)
