"""Figures of the research experiments (PNG files only, no display).

Every ``plot_*`` function takes the experiment's frames, a path and the run's
settings, and writes one PNG with deterministic metadata (same data, same
bytes) that carries the run's sample size, player counts and seed
(:func:`experiments.reporting.figures.run_footer`). The matching ``*_figure`` function
builds the figure without writing it (for tests and notebooks).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from experiments.reporting import figures
from experiments.settings import matches_clause

DPI = 110
"""Resolution of the studies' figures."""


def self_play_footer(settings: dict) -> str:
    """The footer of a self-play study's figure: the run's
    (:func:`experiments.reporting.figures.run_footer`), with the strong strategies' own match
    count when there are some (:func:`experiments.settings.matches_clause`)."""
    return figures.run_footer(settings, sample=matches_clause(settings))


def _finish(fig, footer: str, title: str | None = None, rect=None, **title_options):
    """``fig`` laid out, its ``title`` above the axes (``title_options``: ``suptitle``
    keywords) and ``footer`` stamped below them; ``rect`` bounds the layout (room for a legend
    above the axes)."""
    if title is not None:
        fig.suptitle(title, **title_options)
    fig.tight_layout(rect=rect)  # labels inside the figure, the footer below them
    figures.stamp(fig, footer)
    return fig


SCORE_UNITS = "1 displayed = 5 raw; 61 displayed = 305 raw"
"""The points convention, written on every axis that shows points."""


def _panels(count: int, width: float = 5.0, height: float = 3.6, sharey: bool = True):
    fig, axes = figures.new_figure(1, count, figsize=(width * count, height), sharey=sharey,
                                   squeeze=False)
    return fig, axes[0]


def _color(strategies: list[str], name: str) -> str:
    colors = figures.color_cycle()
    return colors[strategies.index(name) % len(colors)]


# ---------------------------------------------------------------------------
# Overshoot
# ---------------------------------------------------------------------------
ZOOM_FROM = 45
"""First displayed score of the discard plot's linear panels (discards are rare below)."""
FIRST_POSSIBLE = 28
"""No event can be discarded below displayed 28 (see :mod:`experiments.studies.overshoot`)."""


def _offsets(strategies: list[str], spread: float = 0.36) -> dict[str, float]:
    """Small x offsets that keep the strategies' error bars apart."""
    step = spread / max(1, len(strategies) - 1) if len(strategies) > 1 else 0.0
    return {name: (k - (len(strategies) - 1) / 2) * step for k, name in enumerate(strategies)}


def discard_probability_figure(by_score: pd.DataFrame, settings: dict):
    """P(discard) against the displayed score before the event, one column per player count.

    Top row: linear scale, displayed 45..60, where discards happen; bottom
    row: log scale over every score where a discard is possible (28..60; a
    zero rate has no place on a log axis and is left out). Error bars are the
    match-clustered 95% intervals of ``by_score`` (``low``, ``high``).
    """
    players = sorted(by_score["players"].unique())
    strategies = list(dict.fromkeys(by_score["strategy"]))
    offsets = _offsets(strategies)
    fig, axes = figures.new_figure(2, len(players), figsize=(4.8 * len(players), 7.0), sharey="row",
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
                rate = sel["p_discard"].to_numpy(dtype=float)
                err = np.vstack([rate - sel["low"].to_numpy(dtype=float),
                                 sel["high"].to_numpy(dtype=float) - rate])
                err = np.clip(np.where(np.isfinite(err), err, 0.0), 0.0, None)
                x = sel["displayed_before"].to_numpy(dtype=float) + offsets[name]
                # no lines on the log row: they would bridge scores whose zero rate is not drawn
                ax.errorbar(x, rate, yerr=err, fmt="o-" if scale == "linear" else "o", ms=3,
                            lw=1.0, elinewidth=1.2, capsize=2, label=name,
                            color=figures.strategy_colour(name))
            ax.set_xlim(low_x - 0.6, high_x + 0.6)
            ax.set_yscale(scale)
            if scale == "linear":
                ax.set_ylim(0, 1)
            ax.grid(alpha=0.3, which="both" if scale == "log" else "major")
            ax.set_xlabel(f"entity's displayed score before the event\n({SCORE_UNITS})")
        axes[0, j].set_title(f"{count} players: displayed {ZOOM_FROM}..60")
        axes[1, j].set_title(f"{count} players: displayed {FIRST_POSSIBLE}..60 "
                             "(first possible discard), log scale", fontsize=10)
    axes[0, 0].set_ylabel("P(event discarded)\n(linear scale, 95% interval)")
    axes[1, 0].set_ylabel("P(event discarded)\n(log scale; zero rates not drawn)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, title="self-play", loc="upper center", ncol=len(strategies),
               bbox_to_anchor=(0.5, 0.965), frameon=False)
    return _finish(fig, self_play_footer(settings),
                   "Overshoot: chance a score event is thrown away (95% intervals clustered by "
                   "match)", rect=(0, 0, 1, 0.92), y=1.0)


def plot_discard_probability(by_score: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`discard_probability_figure` as PNG."""
    figures.save_png(discard_probability_figure(by_score, settings), path, DPI)


def zone_turns_figure(zone: pd.DataFrame, settings: dict):
    """Cumulative distribution of the winner's own turns begun within 10 points of 61."""
    players = sorted(zone["players"].unique())
    strategies = list(dict.fromkeys(zone["strategy"]))
    fig, axes = _panels(len(players))
    for ax, count in zip(axes, players):
        for name in strategies:
            sel = zone[(zone.players == count) & (zone.strategy == name)].sort_values(
                "zone10_turns")
            if sel.empty:
                continue
            share = sel["winners"].cumsum() / sel["winners"].sum()
            ax.step(sel["zone10_turns"], share, where="post", label=name,
                    color=figures.strategy_colour(name))
        ax.set_title(f"{count} players")
        ax.set_xlabel("winner's own turns begun at displayed 51..60\n(within 10 points of 61)")
        ax.set_xlim(left=0, right=max(5, float(zone[zone.players == count]
                                                 .zone10_turns.quantile(0.99)) + 1))
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of winners (cumulative)")
    axes[-1].legend(title="self-play", loc="lower right")
    return _finish(fig, self_play_footer(settings), "How long the winner waited near 61", y=1.02)


def plot_zone_turns(zone: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`zone_turns_figure` as PNG."""
    figures.save_png(zone_turns_figure(zone, settings), path, DPI)


# ---------------------------------------------------------------------------
# Settlement
# ---------------------------------------------------------------------------
DOMINO_PARTS = ("placement", "credit", "debit", "net", "blocked")
"""The panels of :func:`domino_parts_figure`: the domino event's parts and the blocked credit."""
PART_TITLES = {
    "placement": "final placement\n(the domino's last tile)",
    "credit": "credit\n(opponents' pips, round5)",
    "debit": "partner debit\n(4 players only)",
    "net": "net = placement\n+ credit - debit",
    "blocked": "blocked-round credit\n(per blocked event)",
}


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
    offsets = _offsets(strategies, spread=0.7)
    shown = [part for part in DOMINO_PARTS if (parts["part"] == part).any()]
    fig, axes = figures.new_figure(1, len(shown), figsize=(3.4 * len(shown) + 0.8, 4.4),
                                   squeeze=False)
    labelled = set()
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
                ax.vlines(x, r.p10, r.p90, color=colour, lw=1.0)
                ax.vlines(x, r.p25, r.p75, color=colour, lw=5.0, alpha=0.45)
                err = np.array([[max(0.0, r["mean"] - r.low)], [max(0.0, r.high - r["mean"])]])
                ax.errorbar([x], [r["mean"]], yerr=np.where(np.isfinite(err), err, 0.0),
                            fmt="o", ms=4, capsize=2, color=colour, mec="black", mew=0.5,
                            label=None if name in labelled else name)
                labelled.add(name)
        ax.set_xticks(range(len(counts)), [f"{c} players" for c in counts])
        ax.set_xlim(-0.6, len(counts) - 0.4)
        ax.axhline(0, color="black", lw=0.6)
        ax.set_title(PART_TITLES[part], fontsize=10)
        ax.grid(alpha=0.3, axis="y")
    axes[0, 0].set_ylabel(f"raw points per event\n({SCORE_UNITS})")
    handles, labels = [], []
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.append(handle)
            labels.append(label)
    fig.legend(handles, labels, title="self-play: mean (95%), box 25-75%, line 10-90%",
               loc="upper center", ncol=min(len(labels), 6), bbox_to_anchor=(0.5, 0.93),
               frameon=False, fontsize=9, title_fontsize=9)
    return _finish(fig, self_play_footer(settings),
                   "The domino event: final placement + credit - debit = net; and the blocked "
                   "credit", rect=(0, 0, 1, 0.78), y=1.0)


def plot_domino_parts(parts: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`domino_parts_figure` as PNG."""
    figures.save_png(domino_parts_figure(parts, settings), path, DPI)


POINT_SEGMENTS = (
    ("placement_raw_per_match", "placements (incl. the domino's final tile)"),
    ("domino_credit_per_match", "domino credit (opponents' pips)"),
    ("blocked_credit_per_match", "blocked-round credit"),
)
"""The positive parts of accepted points per match: column, legend label."""


def point_sources_figure(share: pd.DataFrame, settings: dict):
    """Accepted points per match by source, one bar per (strategy, players).

    Above zero the credits of accepted events, stacked: placements, domino
    credit, blocked credit; below zero the partner debit (4 players) as its own
    segment; a black mark at the net, the accepted points per match (the
    stack minus the debit), labelled with the settlement share of it, net of the partner
    debit and gross (before it; the same at 2 and 3 players). Bars are grouped by player count.
    """
    share = share.sort_values("players", kind="stable")
    labels = [f"{r.strategy}\n{r.players}p" for r in share.itertuples()]
    groups = share["players"].to_numpy()
    # a gap of one bar between player counts
    x = np.arange(len(share)) + np.concatenate([[0], np.cumsum(groups[1:] != groups[:-1])])
    colors = figures.color_cycle()
    fig, ax = figures.new_figure(figsize=(0.95 * len(share) + 4.5, 5.0))
    bottom = np.zeros(len(share))
    for k, (column, label) in enumerate(POINT_SEGMENTS):
        value = share[column].to_numpy(dtype=float) / 5
        ax.bar(x, value, bottom=bottom, label=label, color=colors[k])
        bottom = bottom + value
    debit = share["domino_debit_per_match"].to_numpy(dtype=float) / 5
    ax.bar(x, -debit, label="partner debit (4 players), subtracted", color=colors[3],
           hatch="//", edgecolor="white")
    net = bottom - debit
    ax.plot(x, net, ls="none", marker="_", ms=22, mew=2.5, color="black",
            label="accepted total per match = stack - debit")
    for xi, top, value, net_share, gross_share, count in zip(
            x, bottom, net, share["settlement_share_net"], share["settlement_share_gross"],
            share["players"]):
        text = (f"{value:.0f}\nnet {100 * net_share:.0f}%\ngross {100 * gross_share:.0f}%"
                if count == 4 else f"{value:.0f}\nsettl.\n{100 * net_share:.0f}%")
        ax.text(xi, top + 2, text, ha="center", va="bottom", fontsize=7)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, labels)
    ax.set_xlim(-0.6, float(x.max()) + 0.6 if len(share) else 0.4)
    ax.set_ylim(min(-5.0, float(-debit.max()) * 1.3) if len(share) else -5.0,
                float(bottom.max()) * 1.3 if len(share) else 1.0)
    ax.set_ylabel("displayed points per match\n(all entities, accepted events)\n"
                  f"{SCORE_UNITS}", fontsize=9)
    ax.set_title("Where the accepted points come from\n(label: accepted total per match and "
                 "the settlement share of it; 4 players: net of the partner debit and gross)",
                 fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _finish(fig, self_play_footer(settings))


def plot_point_sources(share: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`point_sources_figure` as PNG."""
    figures.save_png(point_sources_figure(share, settings), path, DPI)


# ---------------------------------------------------------------------------
# Head to head (overshoot, settlement): paired contrasts
# ---------------------------------------------------------------------------
def contrasts_figure(contrasts: pd.DataFrame, settings: dict, title: str):
    """The paired contrasts ``A - B`` of mixed tables, with their 95% intervals over deals.

    One row of panels per quantity (``contrasts["quantity"]``, its text the y label), one column
    per player count; along x the tables' strategy pairs (``"exact - greedy"``), one marker per
    pair in A's colour (:func:`experiments.reporting.figures.strategy_colour`); a line at 0 (no
    difference). A filled marker: the interval excludes 0 (a finding); an open one: no
    detectable difference. Each row's y axis is symmetric about 0, so that neither sign looks
    larger. ``contrasts``: :func:`experiments.mixed_tables.table_contrasts` rows.
    """
    players = sorted(contrasts["players"].unique())
    quantities = list(dict.fromkeys(contrasts["quantity"]))
    pairs = list(dict.fromkeys(f"{r.a} - {r.b}" for r in contrasts.itertuples(index=False)))
    fig, axes = figures.new_figure(len(quantities), len(players),
                                   figsize=(max(3.4, 1.1 * len(pairs) + 1.6) * len(players) + 1.2,
                                            2.5 * len(quantities) + 1.2),
                                   squeeze=False, sharey="row")
    for i, quantity in enumerate(quantities):
        rows = contrasts[contrasts["quantity"] == quantity]
        finite = rows[["low", "high"]].to_numpy(dtype=float)
        finite = finite[np.isfinite(finite)]
        extent = float(np.abs(finite).max()) if finite.size else 1.0
        pct = rows["words"].str.contains(" pp ").any()
        scale = 100.0 if pct else 1.0
        for j, count in enumerate(players):
            ax = axes[i, j]
            for k, pair in enumerate(pairs):
                sel = rows[(rows.players == count)
                           & ((rows.a + " - " + rows.b) == pair)]
                if sel.empty or not np.isfinite(float(sel["difference"].iloc[0])):
                    continue
                r = sel.iloc[0]
                err = scale * np.array([[max(0.0, r.difference - r.low)],
                                        [max(0.0, r.high - r.difference)]])
                colour = figures.strategy_colour(r.a)
                ax.errorbar([k], [scale * r.difference], yerr=np.where(np.isfinite(err), err, 0),
                            fmt="o", ms=6, capsize=4, color=colour,
                            mfc=colour if r.detected else "white")
            ax.axhline(0, color="black", lw=0.8)
            ax.set_xticks(range(len(pairs)), [p.replace(" - ", " -\n") for p in pairs],
                          fontsize=8)
            ax.set_xlim(-0.6, len(pairs) - 0.4)
            ax.grid(alpha=0.3, axis="y")
            if i == 0:
                ax.set_title(f"{count} players")
        top = 1.2 * scale * extent if extent > 0 else 1.0
        axes[i, 0].set_ylim(-top, top)
        unit = "percentage points" if pct else "A - B"
        axes[i, 0].set_ylabel(f"{_wrap(quantity)}\n({unit}, 95%)", fontsize=8)
    return _finish(fig, _table_sample(settings),
                   title + "\n(filled: the interval excludes 0; open: no detectable difference; "
                   "colour: strategy A)", fontsize=10, y=1.0)


def _wrap(text: str, width: int = 28) -> str:
    return "\n".join(textwrap.wrap(text, width))


def _table_sample(settings: dict) -> str:
    """The footer of a head-to-head figure: deals per table rotation, players and seed."""
    deals = settings.get("table_matches", settings["matches"])
    return figures.run_footer(settings, sample=f"{deals:,} deals per table rotation (every "
                                               "rotation on the same deals)")


def plot_contrasts(contrasts: pd.DataFrame, path, settings: dict, title: str) -> None:
    """Write :func:`contrasts_figure` as PNG."""
    figures.save_png(contrasts_figure(contrasts, settings, title), path, DPI)


# ---------------------------------------------------------------------------
# Seats
# ---------------------------------------------------------------------------
def seat_sides(positions: pd.DataFrame) -> pd.DataFrame:
    """The seats plot's data: one row per side and configuration, with the match win rate's
    deviation from the fair share in percentage points (``deviation``, ``dev_low``,
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
        return ("leader's partnership\n(seats 0, 2)" if position == 0
                else "other partnership\n(seats 1, 3)")
    return "lot winner" if position == 0 else f"+{position}"


def seats_figure(positions: pd.DataFrame, settings: dict):
    """Match win rate by side relative to the first leader, as the deviation from the fair share
    in percentage points with 95% intervals, on one y scale symmetric about 0 for every panel."""
    sides = seat_sides(positions)
    players = sorted(sides["players"].unique())
    strategies = list(dict.fromkeys(sides["strategy"]))
    offsets = _offsets(strategies, spread=0.4)
    widths = [max(2, count if count != 4 else 2) for count in players]
    fig, axes = figures.new_figure(1, len(players), figsize=(1.5 * sum(widths) + 2.0, 4.0),
                                   sharey=True, squeeze=False,
                                   gridspec_kw={"width_ratios": widths})
    axes = axes[0]
    extent = float(np.nanmax(np.abs(sides[["dev_low", "dev_high"]].to_numpy(dtype=float))))
    top = max(2.0, 1.15 * extent if np.isfinite(extent) else 2.0)
    for ax, count in zip(axes, players):
        sel_count = sides[sides.players == count]
        positions_shown = sorted(sel_count["position"].unique())
        for name in strategies:
            sel = sel_count[sel_count.strategy == name].sort_values("position")
            dev = sel["deviation"].to_numpy(dtype=float)
            err = np.vstack([dev - sel["dev_low"].to_numpy(dtype=float),
                             sel["dev_high"].to_numpy(dtype=float) - dev])
            ax.errorbar(sel["position"].to_numpy(dtype=float) + offsets[name], dev, yerr=err,
                        fmt="o", ms=5, capsize=3, label=name, color=figures.strategy_colour(name))
        ax.axhline(0, color="black", lw=0.9)
        ax.set_xticks(positions_shown, [_side_label(count, p) for p in positions_shown])
        ax.set_xlim(-0.5, len(positions_shown) - 0.5)
        ax.set_xlabel("partnership, from the first leader" if count == 4
                      else "seat, clockwise from the first leader")
        fair = 1 / (2 if count == 4 else count)
        ax.set_title(f"{count} players (fair share {100 * fair:.1f}%)")
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylim(-top, top)
    axes[0].set_ylabel("match win rate minus fair share\n(percentage points, 95% interval)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, title="self-play", loc="center left", bbox_to_anchor=(1.0, 0.5),
               frameon=False)
    return _finish(fig, self_play_footer(settings),
                   "Seat effects: the value of winning the first lot", y=1.02)


def plot_seats(positions: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`seats_figure` as PNG."""
    figures.save_png(seats_figure(positions, settings), path, DPI)
