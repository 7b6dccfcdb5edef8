"""Figures of the research experiments (PNG files only, no display), in the house style for print.

Every ``plot_*`` function takes the experiment's frames, a path and the run's settings, and
writes one PNG at print size (:func:`experiments.reporting.figures.save_png`: one column or the
page wide, 300 dpi, text >= 7 pt) with deterministic metadata (same data, same bytes) that
carries the run's sample size, player counts and seed
(:func:`experiments.reporting.figures.run_footer`). The matching ``*_figure`` function builds
the figure without writing it (for tests and notebooks). Strategies take their own colours
(:func:`experiments.reporting.figures.strategy_colour`); anything else (point sources, kinds of
share) the house's categorical palette (:func:`experiments.reporting.figures.category_colours`).
Every estimate is drawn with its interval (:func:`experiments.reporting.figures.estimates`); a
panel of counts or quantiles says so (:func:`experiments.reporting.figures.no_intervals`).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from experiments.comparisons import VERDICTS
from experiments.reporting import figures
from experiments.settings import matches_clause


def self_play_footer(settings: dict) -> str:
    """The footer of a self-play study's figure: the run's
    (:func:`experiments.reporting.figures.run_footer`), with the strong strategies' own match
    count when there are some (:func:`experiments.settings.matches_clause`)."""
    return figures.run_footer(settings, sample=matches_clause(settings))


SCORE_UNITS = "1 displayed = 5 raw; 61 displayed = 305 raw"
"""The points convention, written on every axis that shows points."""


def _offsets(strategies: list[str], spread: float = 0.36) -> dict[str, float]:
    """Small offsets that keep the strategies' interval bars apart."""
    step = spread / max(1, len(strategies) - 1) if len(strategies) > 1 else 0.0
    return {name: (k - (len(strategies) - 1) / 2) * step for k, name in enumerate(strategies)}


def _legend_above(fig, axes, **options) -> None:
    """One legend above the panels, from the first axes' labelled artists (each once)."""
    handles, labels = {}, []
    for ax in np.ravel(axes):
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = handle
                labels.append(label)
    if handles:
        fig.legend([handles[label] for label in labels], labels, loc="outside upper center",
                   ncol=options.pop("ncol", min(len(labels), 6)), **options)


# ---------------------------------------------------------------------------
# Overshoot
# ---------------------------------------------------------------------------
ZOOM_FROM = 45
"""First displayed score of the discard plot's linear panels (discards are rare below)."""
FIRST_POSSIBLE = 28
"""No event can be discarded below displayed 28 (see :mod:`experiments.studies.overshoot`)."""


@figures.house_style()
def discard_probability_figure(by_score: pd.DataFrame, settings: dict):
    """P(discard) against the displayed score before the event, one column per player count.

    Top row: linear scale, displayed 45..60, where discards happen; bottom row: log scale over
    every score where a discard is possible (28..60; a zero rate has no place on a log axis and
    is left out). Bars: the match-clustered 95% intervals of ``by_score`` (``low``, ``high``).
    """
    players = sorted(by_score["players"].unique())
    strategies = list(dict.fromkeys(by_score["strategy"]))
    offsets = _offsets(strategies)
    fig, axes = figures.new_figure(2, len(players), width="page", height=4.6, sharey="row",
                                   squeeze=False)
    ranges = ((ZOOM_FROM, 60, "linear"), (FIRST_POSSIBLE, 60, "log"))
    for j, count in enumerate(players):
        for i, (low_x, high_x, scale) in enumerate(ranges):
            ax = axes[i, j]
            for name in strategies:
                sel = by_score[(by_score.players == count) & (by_score.strategy == name)
                               & by_score.displayed_before.between(low_x, high_x)]
                if scale == "log":
                    sel = sel[sel.p_discard > 0]
                if sel.empty:
                    continue
                # no lines on the log row: they would bridge scores whose zero rate is not drawn
                figures.estimates(ax, sel["displayed_before"].to_numpy(dtype=float)
                                  + offsets[name], sel["p_discard"], sel["low"], sel["high"],
                                  color=figures.strategy_colour(name), label=name,
                                  line=scale == "linear", markersize=2.2, capsize=1.2)
            ax.set_xlim(low_x - 0.6, high_x + 0.6)
            ax.set_yscale(scale)
            if scale == "linear":
                ax.set_ylim(0, 1)
            ax.set_title(f"{count} players" + (", log scale" if scale == "log" else ""))
        axes[1, j].set_xlabel("displayed score before the event")
    axes[0, 0].set_ylabel("P(event discarded)\n(95% interval)")
    axes[1, 0].set_ylabel("P(event discarded), log\n(zero rates not drawn)")
    _legend_above(fig, axes, title="self-play", ncol=min(len(strategies), 8))
    figures.stamp(fig, self_play_footer(settings))
    return fig


@figures.house_style()
def plot_discard_probability(by_score: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`discard_probability_figure` as PNG."""
    figures.save_png(discard_probability_figure(by_score, settings), path)


@figures.house_style()
def zone_turns_figure(zone: pd.DataFrame, settings: dict):
    """Cumulative distribution of the winner's own turns begun within 10 points of 61."""
    players = sorted(zone["players"].unique())
    strategies = list(dict.fromkeys(zone["strategy"]))
    fig, axes = figures.new_figure(1, len(players), width="page", height=2.5, sharey=True,
                                   squeeze=False)
    for ax, count in zip(axes[0], players):
        for name in strategies:
            sel = zone[(zone.players == count) & (zone.strategy == name)].sort_values(
                "zone10_turns")
            if sel.empty:
                continue
            share = sel["winners"].cumsum() / sel["winners"].sum()
            ax.step(sel["zone10_turns"], share, where="post", label=name,
                    color=figures.strategy_colour(name))
        figures.no_intervals(ax, "empirical distributions of every winner")
        ax.set_title(f"{count} players")
        ax.set_xlabel("winner's own turns at displayed 51..60")
        ax.set_xlim(left=0, right=max(5, float(zone[zone.players == count]
                                                 .zone10_turns.quantile(0.99)) + 1))
        ax.set_ylim(0, 1)
    axes[0, 0].set_ylabel("share of winners\n(cumulative)")
    _legend_above(fig, axes, title="self-play", ncol=min(len(strategies), 8))
    figures.stamp(fig, self_play_footer(settings))
    return fig


@figures.house_style()
def plot_zone_turns(zone: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`zone_turns_figure` as PNG."""
    figures.save_png(zone_turns_figure(zone, settings), path)


# ---------------------------------------------------------------------------
# Settlement
# ---------------------------------------------------------------------------
DOMINO_PARTS = ("placement", "credit", "debit", "net", "blocked")
"""The panels of :func:`domino_parts_figure`: the domino event's parts and the blocked credit."""
PART_TITLES = {
    "placement": "final placement",
    "credit": "credit (opponents)",
    "debit": "partner debit",
    "net": "net",
    "blocked": "blocked credit",
}


@figures.house_style()
def domino_parts_figure(parts: pd.DataFrame, settings: dict):
    """The domino event's parts and the blocked credit, per strategy (self-play) and player count.

    One panel per part (:data:`DOMINO_PARTS`); along x the player counts, the strategies side by
    side within each (every series visible, none hidden under another): a thick bar from the
    25th to the 75th percentile, a thin line from the 10th to the 90th, and a marker at the mean
    with its match-clustered 95% interval (``domino_parts``: ``p10`` .. ``p90``, ``mean``,
    ``low``, ``high``). The debit panel shows 4 players only (no debit with 2 or 3).
    """
    players = sorted(parts["players"].unique())
    strategies = list(dict.fromkeys(parts["strategy"]))
    offsets = _offsets(strategies, spread=0.5)
    shown = [part for part in DOMINO_PARTS if (parts["part"] == part).any()]
    fig, axes = figures.new_figure(1, len(shown), width="page", height=2.9, squeeze=False)
    for ax, part in zip(axes[0], shown):
        counts = [c for c in players if ((parts["part"] == part) & (parts["players"] == c)).any()]
        for j, count in enumerate(counts):
            for name in strategies:
                sel = parts[(parts.players == count) & (parts.strategy == name)
                            & (parts.part == part)]
                if sel.empty or not np.isfinite(float(sel["mean"].iloc[0])):
                    continue
                r = sel.iloc[0]
                x = j + offsets[name]
                colour = figures.strategy_colour(name)
                ax.vlines(x, r.p10, r.p90, color=colour, lw=0.6)
                ax.vlines(x, r.p25, r.p75, color=colour, lw=3.0, alpha=0.4)
                figures.estimates(ax, [x], [r["mean"]], [r.low], [r.high], color=colour,
                                  label=name, markersize=2.5, markeredgecolor="black",
                                  markeredgewidth=0.3)
        ax.set_xticks(range(len(counts)), [f"{c}p" for c in counts])
        ax.set_xlim(-0.6, len(counts) - 0.4)
        figures.reference_line(ax, 0.0)
        ax.set_title(PART_TITLES[part])
    axes[0, 0].set_ylabel("raw points per event\n(5 raw = 1 displayed point)")
    _legend_above(fig, axes, title="self-play: mean (95%), box 25-75%, line 10-90%",
                  ncol=min(len(strategies), 8))
    figures.stamp(fig, self_play_footer(settings))
    return fig


@figures.house_style()
def plot_domino_parts(parts: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`domino_parts_figure` as PNG."""
    figures.save_png(domino_parts_figure(parts, settings), path)


POINT_SOURCES = (
    ("placement_raw_per_match", "placements (with a domino's last tile)"),
    ("domino_credit_per_match", "domino credit (opponents' pips)"),
    ("blocked_credit_per_match", "blocked-round credit"),
    ("domino_debit_per_match", "partner debit (4 players, subtracted)"),
)
"""The sources of accepted points per match: column (``*_low``, ``*_high`` its interval),
legend label."""
SHARES = (
    ("settlement_share_net", "settlement share, net of the partner debit"),
    ("settlement_share_gross", "settlement share, gross (4 players)"),
)
"""The settlement shares of :func:`point_sources_figure`'s bottom row: column, legend label."""


@figures.house_style()
def point_sources_figure(share: pd.DataFrame, settings: dict):
    """Where accepted points come from, per strategy (rows) and player count (columns).

    Top row: accepted displayed points per match by source (:data:`POINT_SOURCES`: placements,
    domino credit, blocked credit, and the partner debit that is subtracted at 4 players), each
    mean with its 95% interval (the match is the unit); bottom row: the settlement share of
    accepted points, net of the partner debit and (4 players, where it differs) gross, with its
    95% ratio interval. Sources and shares are categories, in the house palette.
    """
    players = sorted(share["players"].unique())
    strategies = list(dict.fromkeys(share["strategy"]))
    colours = figures.category_colours(len(POINT_SOURCES) + len(SHARES))
    rows = np.arange(len(strategies))[::-1]
    fig, axes = figures.new_figure(2, len(players), width="page",
                                   height=2.0 + 0.42 * len(strategies), sharey=True,
                                   squeeze=False)
    source_offsets = _offsets([c for c, _ in POINT_SOURCES], spread=0.6)
    share_offsets = _offsets([c for c, _ in SHARES], spread=0.3)
    for j, count in enumerate(players):
        sel = share[share.players == count].set_index("strategy").reindex(strategies)
        for k, (column, label) in enumerate(POINT_SOURCES):
            if column == "domino_debit_per_match" and count != 4:
                continue
            figures.estimates(axes[0, j], sel[column] / 5, rows + source_offsets[column],
                              sel[f"{column}_low"] / 5, sel[f"{column}_high"] / 5,
                              color=colours[k], label=label, horizontal=True, markersize=2.5)
        for k, (column, label) in enumerate(SHARES):
            if column == "settlement_share_gross" and count != 4:
                continue
            figures.estimates(axes[1, j], 100 * sel[column], rows + share_offsets[column],
                              100 * sel[f"{column}_low"], 100 * sel[f"{column}_high"],
                              color=colours[len(POINT_SOURCES) + k], label=label,
                              horizontal=True, markersize=2.5)
        axes[0, j].set_title(f"{count} players")
        axes[0, j].set_xlim(left=0)
        axes[0, j].set_xlabel("displayed points per match\n(1 displayed = 5 raw)")
        axes[1, j].set_xlim(left=0)
        axes[1, j].set_xlabel("% of accepted raw points")
    axes[0, 0].set_yticks(rows, strategies)
    axes[0, 0].set_ylim(-0.6, len(strategies) - 0.4)
    _legend_above(fig, axes, ncol=3)
    figures.stamp(fig, self_play_footer(settings))
    return fig


@figures.house_style()
def plot_point_sources(share: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`point_sources_figure` as PNG."""
    figures.save_png(point_sources_figure(share, settings), path)


# ---------------------------------------------------------------------------
# Head to head (overshoot, settlement, lengths): the tables' comparisons
# ---------------------------------------------------------------------------
def _pair_colour(name: str) -> str:
    """A comparison's colour: strategy A's own, or (A a table, a seat) the first category
    colour."""
    if " " in name:
        return figures.category_colours(1)[0]
    return figures.strategy_colour(name)


@figures.house_style()
def contrasts_figure(comparisons: pd.DataFrame, settings: dict, plan, quantities=None):
    """The mixed tables' comparisons ``A - B`` with their adjusted intervals.

    One row of panels per quantity (``quantities``, plan quantity names; default every quantity
    in ``comparisons``), one column per player count; along x the pairs compared, one marker per
    pair in A's colour (a table's, when A is a table, the first category colour); a line at 0
    and a grey band for the smallest effect of interest (``+-sesoi``): an interval inside it is
    an equivalence. A filled marker: a finding (the adjusted interval excludes 0); an open one:
    no finding. Each row's y axis is symmetric about 0, so that neither sign looks larger.
    ``comparisons``: the rows of a run's ``comparisons`` frame; ``plan``: its
    :class:`experiments.comparisons.ComparisonPlan` (the quantities' words and units).
    """
    players = sorted(comparisons["players"].unique())
    names = quantities or list(dict.fromkeys(comparisons["quantity"]))
    names = [q for q in names if (comparisons["quantity"] == q).any()]
    # room for each row's tick labels when they stand on end (more than two pairs)
    ticks = max(len(max(comparisons["a"], key=len)), 6) * 0.055
    fig, axes = figures.new_figure(len(names), len(players), width="page",
                                   height=0.9 + (1.45 + ticks) * len(names), squeeze=False,
                                   sharey="row")
    for i, name in enumerate(names):
        quantity = plan.quantity(name)
        rows = comparisons[comparisons["quantity"] == name]
        scale = 100.0 if quantity.pct else 1.0
        same_b = rows["b"].nunique() == 1
        pairs = list(dict.fromkeys(zip(rows["a"], rows["b"])))
        ticks = [a if same_b else f"{a} -\n{b}" for a, b in pairs]
        bounds = rows[["adj_low", "adj_high"]].to_numpy(dtype=float)
        bounds = bounds[np.isfinite(bounds)]
        extent = max(float(np.abs(bounds).max()) if bounds.size else 0.0, quantity.sesoi)
        for j, count in enumerate(players):
            ax = axes[i, j]
            ax.axhspan(-scale * quantity.sesoi, scale * quantity.sesoi, color="0.88", lw=0,
                       zorder=0)
            figures.reference_line(ax, 0.0)
            for k, (a, b) in enumerate(pairs):
                sel = rows[(rows.players == count) & (rows.a == a) & (rows.b == b)]
                if sel.empty or not np.isfinite(float(sel["difference"].iloc[0])):
                    continue
                r = sel.iloc[0]
                colour = _pair_colour(a)
                figures.estimates(ax, [k], [scale * r.difference], [scale * r.adj_low],
                                  [scale * r.adj_high], color=colour, markersize=4,
                                  markerfacecolor=colour if r.verdict == VERDICTS.finding
                                  else "white")
            ax.set_xticks(range(len(pairs)), ticks, rotation=90 if len(pairs) > 2 else 0)
            ax.set_xlim(-0.6, len(pairs) - 0.4)
            if i == 0:
                ax.set_title(f"{count} players")
        top = 1.15 * scale * extent if extent > 0 else 1.0
        axes[i, 0].set_ylim(-top, top)
        unit = "pp" if quantity.pct else ("A - B" if not same_b else f"A - {rows['b'].iloc[0]}")
        axes[i, 0].set_ylabel(f"{_wrap(quantity.words, 26)}\n({unit}, adjusted)")
    figures.stamp(fig, _table_sample(settings) + "; filled: finding; open: none; grey: "
                  "smallest effect of interest")
    return fig


def _wrap(text: str, width: int = 28) -> str:
    return "\n".join(textwrap.wrap(text, width))


def _table_sample(settings: dict) -> str:
    """The footer of a head-to-head figure: deals per table rotation, players and seed."""
    deals = settings.get("table_matches", settings["matches"])
    return figures.run_footer(settings, sample=f"{deals:,} deals per table rotation (every "
                                               "rotation on the same deals)")


@figures.house_style()
def plot_contrasts(comparisons: pd.DataFrame, path, settings: dict, plan,
                   quantities=None) -> None:
    """Write :func:`contrasts_figure` as PNG."""
    figures.save_png(contrasts_figure(comparisons, settings, plan, quantities), path)


# ---------------------------------------------------------------------------
# Seats
# ---------------------------------------------------------------------------
def seat_sides(positions: pd.DataFrame) -> pd.DataFrame:
    """The seats plot's data: one row per side and configuration, with the match win rate's
    deviation from chance (1/n for n sides) in percentage points (``deviation``, ``dev_low``,
    ``dev_high``).

    A side is a seat counted clockwise from the first leader, except with 4
    players where it is a partnership: positions 0 and 2 are the leader's,
    1 and 3 the other (positions 2 and 3 repeat 0 and 1 and are dropped).
    """
    four = positions["players"] == 4
    sides = positions[~four | (positions["position"] < 2)].copy()
    fair = 1 / np.where(sides["players"] == 4, 2, sides["players"])
    sides["fair_share"] = fair
    for column, source in (("deviation", "win_rate"), ("dev_low", "win_low"),
                           ("dev_high", "win_high")):
        sides[column] = 100 * (sides[source] - fair)
    return sides.reset_index(drop=True)


def _side_label(players: int, position: int) -> str:
    if players == 4:
        return ("leader's\npartnership" if position == 0 else "other\npartnership")
    return "lot winner" if position == 0 else f"+{position}"


@figures.house_style()
def seats_figure(positions: pd.DataFrame, settings: dict):
    """Match win rate by side relative to the first leader, as the deviation from chance in
    percentage points with 95% intervals, on one y scale symmetric about 0 for every panel."""
    sides = seat_sides(positions)
    players = sorted(sides["players"].unique())
    strategies = list(dict.fromkeys(sides["strategy"]))
    offsets = _offsets(strategies, spread=0.5)
    widths = [max(2, count if count != 4 else 2) for count in players]
    fig, axes = figures.new_figure(1, len(players), width="page", height=2.7, sharey=True,
                                   squeeze=False, gridspec_kw={"width_ratios": widths})
    axes = axes[0]
    extent = float(np.nanmax(np.abs(sides[["dev_low", "dev_high"]].to_numpy(dtype=float))))
    top = max(2.0, 1.15 * extent if np.isfinite(extent) else 2.0)
    for ax, count in zip(axes, players):
        sel_count = sides[sides.players == count]
        positions_shown = sorted(sel_count["position"].unique())
        figures.reference_line(ax, 0.0)
        for name in strategies:
            sel = sel_count[sel_count.strategy == name].sort_values("position")
            figures.estimates(ax, sel["position"].to_numpy(dtype=float) + offsets[name],
                              sel["deviation"], sel["dev_low"], sel["dev_high"],
                              color=figures.strategy_colour(name), label=name, markersize=3)
        ax.set_xticks(positions_shown, [_side_label(count, p) for p in positions_shown])
        ax.set_xlim(-0.5, len(positions_shown) - 0.5)
        ax.set_xlabel("partnership, from the first leader" if count == 4
                      else "seat, clockwise from the first leader")
        fair = 1 / (2 if count == 4 else count)
        ax.set_title(f"{count} players (chance {100 * fair:.1f}%)")
    axes[0].set_ylim(-top, top)
    axes[0].set_ylabel("match win rate minus chance\n(percentage points, 95%)")
    _legend_above(fig, axes, title="self-play", ncol=min(len(strategies), 8))
    figures.stamp(fig, self_play_footer(settings))
    return fig


@figures.house_style()
def plot_seats(positions: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`seats_figure` as PNG."""
    figures.save_png(seats_figure(positions, settings), path)
