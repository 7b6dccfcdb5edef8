"""Figures of the research experiments (PNG files only, no display).

Every function takes the experiment's frames and a path, and writes one PNG
with deterministic metadata (same data, same bytes).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.figures import color_cycle, new_figure, save_png
from sim.tiles import N_TILES, tile_name

TILE_ORDER = [tile_name(t) for t in range(N_TILES)]


DPI = 110
"""Resolution of the studies' figures."""


def _save(fig, path) -> None:
    save_png(fig, path, DPI)


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
def plot_discard_probability(by_score: pd.DataFrame, path) -> None:
    """P(discard) against the displayed score before the event, one column per player count.

    Top row: the whole range 0..60; bottom row: a zoom on 45..60.
    """
    players = sorted(by_score["players"].unique())
    strategies = list(dict.fromkeys(by_score["strategy"]))
    fig, axes = new_figure(2, len(players), figsize=(5.0 * len(players), 6.6), sharey="row",
                             squeeze=False)
    for j, count in enumerate(players):
        for i, (low_x, high_x) in enumerate(((0, 60), (45, 60))):
            ax = axes[i, j]
            for name in strategies:
                sel = by_score[(by_score.players == count) & (by_score.strategy == name)
                               & by_score.displayed_before.between(low_x, high_x)]
                x = sel["displayed_before"].to_numpy()
                ax.plot(x, sel["p_discard"], marker=".", ms=3 if i == 0 else 5, lw=1.2,
                        label=name, color=_color(strategies, name))
                ax.fill_between(x, sel["low"], sel["high"], alpha=0.25,
                                color=_color(strategies, name), lw=0)
            ax.set_xlim(low_x, high_x)
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
            ax.set_xlabel("displayed score before the event")
        axes[0, j].set_title(f"{count} players")
    axes[0, 0].set_ylabel("P(event discarded), 95% interval")
    axes[1, 0].set_ylabel("zoom: displayed 45..60")
    axes[0, -1].legend(title="self-play", loc="upper left")
    fig.suptitle("Overshoot: chance a score event is thrown away", y=1.0)
    fig.tight_layout()
    _save(fig, path)


def plot_zone_turns(zone: pd.DataFrame, path) -> None:
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
        ax.set_xlabel("winner's own turns within 10 points of 61")
        ax.set_xlim(left=0, right=max(5, float(zone[zone.players == count]
                                                 .zone10_turns.quantile(0.99)) + 1))
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of matches (cumulative)")
    axes[-1].legend(title="self-play", loc="lower right")
    fig.suptitle("How long the winner waited near 61", y=1.02)
    _save(fig, path)


# ---------------------------------------------------------------------------
# Settlement
# ---------------------------------------------------------------------------
def plot_domino_parts(hist: pd.DataFrame, path) -> None:
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
                ax.set_xlabel("raw points")
            ax.grid(alpha=0.3)
    axes[0, -1].legend(title="self-play")
    fig.suptitle("The domino event: final placement + credit - debit = net", y=1.01)
    fig.tight_layout()
    _save(fig, path)


def plot_point_sources(share: pd.DataFrame, path) -> None:
    """Accepted points per match by source (stacked), one bar per (strategy, players)."""
    labels = [f"{r.strategy}\n{r.players}p" for r in share.itertuples()]
    x = np.arange(len(share))
    fig, ax = new_figure(figsize=(1.3 * len(share) + 2.5, 4.2))
    placement = share["placement_raw_per_match"].to_numpy() / 5
    credit = share["domino_credit_per_match"].to_numpy() / 5
    blocked = share["blocked_credit_per_match"].to_numpy() / 5
    debit = share["domino_debit_per_match"].to_numpy() / 5
    ax.bar(x, placement, label="placements (incl. final)", color=color_cycle()[0])
    ax.bar(x, credit, bottom=placement, label="domino credit", color=color_cycle()[1])
    ax.bar(x, blocked, bottom=placement + credit, label="blocked credit", color=color_cycle()[2])
    ax.bar(x, -debit, label="partner debit", color=color_cycle()[3])
    for xi, top, pct in zip(x, placement + credit + blocked, share["settlement_share"]):
        ax.text(xi, top + 1, f"{100 * pct:.0f}%", ha="center", fontsize=8)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, labels)
    ax.set_ylabel("accepted displayed points per match (all entities)")
    ax.set_title("Where the points come from (label: settlement share)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    _save(fig, path)


# ---------------------------------------------------------------------------
# Openings
# ---------------------------------------------------------------------------
def plot_opening_tiles(tiles: pd.DataFrame, path, min_n: int = 30) -> None:
    """Per tile as the match's first opening: leader's round differential and match win rate.

    Tiles a strategy opened fewer than ``min_n`` times are left out (``greedy``
    almost never opens with some tiles).
    """
    players = sorted(tiles["players"].unique())
    strategies = list(dict.fromkeys(tiles["strategy"]))
    fig, axes = new_figure(2, len(players), figsize=(6.5 * len(players), 7), squeeze=False)
    x = np.arange(N_TILES)
    width = 0.8 / max(1, len(strategies))
    for j, count in enumerate(players):
        for k, name in enumerate(strategies):
            sel = tiles[(tiles.players == count) & (tiles.strategy == name)].set_index("tile")
            sel = sel.reindex(TILE_ORDER)
            offset = (k - (len(strategies) - 1) / 2) * width
            for i, (col, low, high) in enumerate((("first_diff_mean", "first_diff_low",
                                                   "first_diff_high"),
                                                  ("first_win_rate", "first_win_low",
                                                   "first_win_high"))):
                centre = sel[col].to_numpy(dtype=float)
                shown = sel["first_n"].fillna(0).to_numpy() >= min_n
                err = np.vstack([centre - sel[low].to_numpy(dtype=float),
                                 sel[high].to_numpy(dtype=float) - centre])
                err = np.where(np.isfinite(err), err, 0)
                axes[i, j].errorbar((x + offset)[shown], centre[shown], yerr=err[:, shown],
                                    fmt="o", ms=3, capsize=2, lw=0.8, label=name,
                                    color=_color(strategies, name))
        axes[0, j].axhline(0, color="grey", lw=0.8, ls=":")
        fair = 1 / (2 if count == 4 else count)
        axes[1, j].axhline(fair, color="grey", lw=0.8, ls=":")
        axes[0, j].set_title(f"{count} players: first opening of the match (observed)")
        axes[0, j].set_ylabel("leader's round differential (displayed)")
        axes[1, j].set_ylabel("leader's match win rate")
        for i in range(2):
            axes[i, j].set_xticks(x, TILE_ORDER, rotation=90, fontsize=7)
            axes[i, j].grid(alpha=0.3)
    axes[0, -1].legend(title="self-play")
    fig.tight_layout()
    _save(fig, path)


def plot_counterfactual(cf_tiles: pd.DataFrame, cf_hands: pd.DataFrame, path) -> None:
    """Forced openings: each tile's value relative to its hand, and the gain over the baseline."""
    players = sorted(cf_tiles["players"].unique())
    fig, axes = new_figure(2, len(players), figsize=(6.5 * len(players), 7), squeeze=False)
    x = np.arange(N_TILES)
    for j, count in enumerate(players):
        sel = cf_tiles[cf_tiles.players == count].set_index("tile").reindex(TILE_ORDER)
        centre = sel["relative_mean"].to_numpy(dtype=float)
        err = np.vstack([centre - sel["relative_low"].to_numpy(dtype=float),
                         sel["relative_high"].to_numpy(dtype=float) - centre])
        err = np.where(np.isfinite(err), err, 0)
        colors = [color_cycle()[1] if v >= 0 else color_cycle()[0] for v in np.nan_to_num(centre)]
        axes[0, j].bar(x, centre, yerr=err, color=colors, capsize=2, error_kw={"lw": 0.8})
        axes[0, j].axhline(0, color="black", lw=0.8)
        axes[0, j].set_xticks(x, TILE_ORDER, rotation=90, fontsize=7)
        axes[0, j].set_ylabel("opening value vs. hand average\n(displayed points, 95%)")
        axes[0, j].set_title(f"{count} players: forced openings")
        axes[0, j].grid(alpha=0.3, axis="y")
        hands = cf_hands[cf_hands.players == count]
        gain = hands["gain_heldout"].to_numpy(dtype=float)
        if gain.size:
            bins = np.linspace(min(-2.0, np.nanmin(gain)), max(4.0, np.nanmax(gain)), 41)
            axes[1, j].hist(gain, bins=bins, color=color_cycle()[2])
        axes[1, j].axvline(0, color="black", lw=0.8)
        axes[1, j].set_xlabel("best opening minus baseline's opening "
                              "(held-out playouts, displayed points)")
        axes[1, j].set_ylabel("hands")
        axes[1, j].grid(alpha=0.3)
    fig.tight_layout()
    _save(fig, path)


# ---------------------------------------------------------------------------
# Seats
# ---------------------------------------------------------------------------
def plot_seats(positions: pd.DataFrame, path) -> None:
    """Match win rate by seat position relative to the first leader, with 95% intervals."""
    players = sorted(positions["players"].unique())
    strategies = list(dict.fromkeys(positions["strategy"]))
    fig, axes = _panels(len(players), width=4.2, sharey=False)
    width = 0.8 / max(1, len(strategies))
    for ax, count in zip(axes, players):
        for k, name in enumerate(strategies):
            sel = positions[(positions.players == count) & (positions.strategy == name)]
            x = sel["position"].to_numpy() + (k - (len(strategies) - 1) / 2) * width
            rate = sel["win_rate"].to_numpy()
            err = np.vstack([rate - sel["win_low"].to_numpy(), sel["win_high"].to_numpy() - rate])
            ax.bar(x, rate, width=width, yerr=err, capsize=3, label=name,
                   color=_color(strategies, name))
        fair = 1 / (2 if count == 4 else count)
        ax.axhline(fair, color="black", lw=0.8, ls=":")
        ax.set_xticks(range(count), ["lot winner"] + [f"+{i}" for i in range(1, count)])
        ax.set_xlabel("seat, clockwise from the first leader")
        ax.set_title(f"{count} players" + (" (0,2 vs 1,3)" if count == 4 else ""))
        low = min(0.9 * fair, float(positions[positions.players == count].win_low.min()) - 0.01)
        high = max(1.1 * fair, float(positions[positions.players == count].win_high.max()) + 0.01)
        ax.set_ylim(low, high)
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylabel("match win rate (95% interval)")
    axes[-1].legend(title="self-play", fontsize=8)
    fig.suptitle("Seat effects: the value of winning the first lot", y=1.02)
    _save(fig, path)
