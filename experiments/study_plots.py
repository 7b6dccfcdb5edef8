"""Figures of the research experiments (PNG files only, no display).

Every ``plot_*`` function takes the experiment's frames, a path and the run's
settings, and writes one PNG with deterministic metadata (same data, same
bytes) that carries the run's sample size, player counts and seed
(:func:`experiments.figures.run_footer`). The matching ``*_figure`` function
builds the figure without writing it (for tests and notebooks).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.figures import color_cycle, new_figure, run_footer, save_png, stamp

DPI = 110
"""Resolution of the studies' figures."""


def _save(fig, path, settings: dict | None = None) -> None:
    """Write ``fig``; with ``settings``, stamp the run's footer on it first."""
    if settings is not None:
        stamp(fig, run_footer(settings))
    save_png(fig, path, DPI)


SCORE_UNITS = "1 displayed = 5 raw; 61 displayed = 305 raw"
"""The points convention, written on every axis that shows points."""


def _panels(count: int, width: float = 5.0, height: float = 3.6, sharey: bool = True):
    fig, axes = new_figure(1, count, figsize=(width * count, height), sharey=sharey,
                             squeeze=False)
    return fig, axes[0]


def _color(strategies: list[str], name: str) -> str:
    colors = color_cycle()
    return colors[strategies.index(name) % len(colors)]


# ---------------------------------------------------------------------------
# Overshoot
# ---------------------------------------------------------------------------
ZOOM_FROM = 45
"""First displayed score of the discard plot's linear panels (discards are rare below)."""
FIRST_POSSIBLE = 28
"""No event can be discarded below displayed 28 (see :mod:`experiments.overshoot`)."""


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
    fig, axes = new_figure(2, len(players), figsize=(4.8 * len(players), 7.0), sharey="row",
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
                            color=_color(strategies, name))
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
    fig.suptitle("Overshoot: chance a score event is thrown away "
                 "(95% intervals clustered by match)", y=1.0)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    stamp(fig, run_footer(settings))
    return fig


def plot_discard_probability(by_score: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`discard_probability_figure` as PNG."""
    save_png(discard_probability_figure(by_score, settings), path, DPI)


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
                    color=_color(strategies, name))
        ax.set_title(f"{count} players")
        ax.set_xlabel("winner's own turns begun at displayed 51..60\n(within 10 points of 61)")
        ax.set_xlim(left=0, right=max(5, float(zone[zone.players == count]
                                                 .zone10_turns.quantile(0.99)) + 1))
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of winners (cumulative)")
    axes[-1].legend(title="self-play", loc="lower right")
    fig.suptitle("How long the winner waited near 61", y=1.02)
    fig.tight_layout()  # labels inside the figure, the footer below them
    stamp(fig, run_footer(settings))
    return fig


def plot_zone_turns(zone: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`zone_turns_figure` as PNG."""
    save_png(zone_turns_figure(zone, settings), path, DPI)


# ---------------------------------------------------------------------------
# Settlement
# ---------------------------------------------------------------------------
def domino_parts_figure(hist: pd.DataFrame, settings: dict):
    """Distributions of the domino event's parts, one row per player count."""
    players = sorted(hist["players"].unique())
    parts = ["placement", "credit", "debit", "net"]
    strategies = list(dict.fromkeys(hist["strategy"]))
    fig, axes = new_figure(len(players), len(parts), figsize=(4.2 * len(parts),
                                                                 2.8 * len(players)),
                           squeeze=False)
    for i, count in enumerate(players):
        for j, part in enumerate(parts):
            ax = axes[i, j]
            if part == "debit" and count != 4:
                ax.text(0.5, 0.5, "no partner debit\nwith 2 or 3 players", ha="center",
                        va="center", transform=ax.transAxes, color="grey")
                ax.set_xticks([])
                ax.set_yticks([])
            for name in strategies:
                sel = hist[(hist.players == count) & (hist.strategy == name) & (hist.part == part)]
                if sel.empty or sel["count"].sum() == 0:
                    continue
                share = sel["count"] / sel["count"].sum()
                ax.plot(sel["value"], share, drawstyle="steps-mid", label=name,
                        color=_color(strategies, name))
            if i == 0:
                ax.set_title(part)
            if j == 0:
                ax.set_ylabel(f"{count} players\nshare of dominoes")
            if i == len(players) - 1:
                ax.set_xlabel(f"raw points per domino event\n({SCORE_UNITS})")
            ax.grid(alpha=0.3)
    axes[0, -1].legend(title="self-play")
    fig.suptitle("The domino event: final placement + credit - debit = net", y=1.01)
    fig.tight_layout()
    stamp(fig, run_footer(settings))
    return fig


def plot_domino_parts(hist: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`domino_parts_figure` as PNG."""
    save_png(domino_parts_figure(hist, settings), path, DPI)


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
    stack minus the debit), labelled with the settlement share of the net.
    Bars are grouped by player count.
    """
    share = share.sort_values("players", kind="stable")
    labels = [f"{r.strategy}\n{r.players}p" for r in share.itertuples()]
    groups = share["players"].to_numpy()
    # a gap of one bar between player counts
    x = np.arange(len(share)) + np.concatenate([[0], np.cumsum(groups[1:] != groups[:-1])])
    colors = color_cycle()
    fig, ax = new_figure(figsize=(0.95 * len(share) + 4.5, 5.0))
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
    for xi, top, value, pct in zip(x, bottom, net, share["settlement_share"]):
        ax.text(xi, top + 2, f"{value:.0f}\n({100 * pct:.0f}% settl.)", ha="center",
                va="bottom", fontsize=7)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, labels)
    ax.set_xlim(-0.6, float(x.max()) + 0.6 if len(share) else 0.4)
    ax.set_ylim(min(-5.0, float(-debit.max()) * 1.3) if len(share) else -5.0,
                float(bottom.max()) * 1.18 if len(share) else 1.0)
    ax.set_ylabel("displayed points per match\n(all entities, accepted events)\n"
                  f"{SCORE_UNITS}", fontsize=9)
    ax.set_title("Where the accepted points come from\n(label: accepted total per match, and "
                 "the settlement share of it)", fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    stamp(fig, run_footer(settings))
    return fig


def plot_point_sources(share: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`point_sources_figure` as PNG."""
    save_png(point_sources_figure(share, settings), path, DPI)


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
    fig, axes = new_figure(1, len(players), figsize=(1.5 * sum(widths) + 2.0, 4.0), sharey=True,
                           squeeze=False, gridspec_kw={"width_ratios": widths})
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
                        fmt="o", ms=5, capsize=3, label=name, color=_color(strategies, name))
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
    fig.suptitle("Seat effects: the value of winning the first lot", y=1.02)
    fig.tight_layout()
    stamp(fig, run_footer(settings))
    return fig


def plot_seats(positions: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`seats_figure` as PNG."""
    save_png(seats_figure(positions, settings), path, DPI)
