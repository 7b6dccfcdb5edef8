"""Figures of the match-length study (:mod:`experiments.studies.lengths`): PNG files only.

Every ``plot_*`` function takes a frame of the study, a path and the run's
settings and writes one PNG with deterministic metadata that carries the run's
sample size, player counts and seed (:func:`experiments.reporting.figures.run_footer`);
the matching ``*_figure`` function builds the figure without writing it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from experiments.reporting.figures import new_figure, save_png, stamp, strategy_colour
from experiments.studies.study_plots import DPI, self_play_footer
from experiments.studies.table_plots import table_footer, visible_ticks
from sim.tiles import RAW_PER_DISPLAYED, TARGET_RAW

TARGET_DISPLAYED = TARGET_RAW // RAW_PER_DISPLAYED
DISPLAYED_UNITS = (f"displayed points (1 displayed = {RAW_PER_DISPLAYED} raw; "
                   f"{TARGET_DISPLAYED} = target)")
WINNER_COLOR, LOSER_COLOR = "tab:blue", "tab:red"
MIN_IN_PLAY = 30
"""The dotted in-play mean is drawn only where at least this many matches are still played."""


def _colors(strategies: list[str]) -> dict[str, str]:
    """Each strategy's colour, the same in every figure (:func:`strategy_colour`)."""
    return {name: strategy_colour(name) for name in strategies}


def _order(frame: pd.DataFrame) -> tuple[list[int], list[str]]:
    return sorted(frame["players"].unique()), list(dict.fromkeys(frame["strategy"]))


def rounds_per_match_figure(hist: pd.DataFrame, settings: dict):
    """Cumulative distribution of rounds per match, one panel per player count, strategies
    overlaid (from the ``rounds_hist`` frame)."""
    players, strategies = _order(hist)
    colors = _colors(strategies)
    fig, axes = new_figure(1, len(players), figsize=(4.8 * len(players), 3.8), sharey=True,
                           squeeze=False)
    # one x range for every panel, up to where 99.5% of every configuration's matches ended
    right = max(int(sel.loc[sel["cumulative"] >= 0.995, "rounds"].min())
                for _, sel in hist.groupby(["strategy", "players"])) + 1
    for ax, count in zip(axes[0], players):
        for name in strategies:
            sel = hist[(hist.players == count) & (hist.strategy == name)].sort_values("rounds")
            if sel.empty:
                continue
            x = np.concatenate([[0], sel["rounds"].to_numpy()])
            y = np.concatenate([[0.0], sel["cumulative"].to_numpy()])
            ax.step(x, y, where="post", color=colors[name], label=name)
        ax.set_title(f"{count} players")
        ax.set_xlabel("rounds per match")
        ax.set_xlim(0, right)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0, 0].set_ylabel("share of matches that ended within\nthis many rounds (cumulative)")
    axes[0, -1].legend(title="self-play", loc="lower right")
    fig.suptitle("How many rounds a match lasts", y=1.02)
    stamp(fig, self_play_footer(settings))
    return fig


def plot_rounds_per_match(hist: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`rounds_per_match_figure` as PNG."""
    save_png(rounds_per_match_figure(hist, settings), path, DPI)


def score_paths_figure(paths: pd.DataFrame, settings: dict, title: str | None = None,
                       footer: str | None = None):
    """The eventual winner's and the losers' displayed score after each round: mean (solid),
    10-90% band, and the mean over matches still in play (dotted, where at least
    :data:`MIN_IN_PLAY` are); one row per strategy, one column per player count (from the
    ``trajectories`` frame). ``title`` replaces the self-play title's first line, ``footer``
    the run footer."""
    players, strategies = _order(paths)
    fig, axes = new_figure(len(strategies), len(players),
                           figsize=(4.4 * len(players), 2.9 * len(strategies)), sharex=True,
                           sharey=True, squeeze=False)
    horizon = int(paths["round"].max())
    for i, name in enumerate(strategies):
        for j, count in enumerate(players):
            ax = axes[i, j]
            for side, color in (("winner", WINNER_COLOR), ("loser", LOSER_COLOR)):
                sel = paths[(paths.strategy == name) & (paths.players == count)
                            & (paths.side == side)].sort_values("round")
                if sel.empty:
                    continue
                # every match starts at 0-0 before round 1
                x = np.concatenate([[0], sel["round"].to_numpy()])
                mean, low, high, alive = (np.concatenate([[0.0], sel[c].to_numpy(dtype=float)])
                                          for c in ("mean", "p10", "p90", "mean_in_play"))
                few = np.concatenate([[False], sel["in_play"].to_numpy() < MIN_IN_PLAY])
                alive[few] = np.nan
                label = "eventual winner" if side == "winner" else "loser(s)"
                ax.fill_between(x, low, high, color=color, alpha=0.18, lw=0,
                                label=f"{label}: 10-90%")
                ax.plot(x, mean, color=color, lw=1.6, label=f"{label}: mean")
                ax.plot(x, alive, color=color, lw=1.0, ls=":",
                        label=f"{label}: mean of matches still in play "
                              f"(where {MIN_IN_PLAY}+)")
            ax.axhline(TARGET_DISPLAYED, color="0.4", lw=0.8, ls="--")
            ax.set_xlim(0, horizon)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(0, TARGET_DISPLAYED + 4)
            ax.set_yticks([0, 10, 20, 30, 40, 50, TARGET_DISPLAYED])
            ax.grid(alpha=0.3)
            ax.set_title(f"{name}, {count} players", fontsize=10)
            if i == len(strategies) - 1:
                ax.set_xlabel("rounds played")
            if j == 0:
                ax.set_ylabel("score after the round\n(displayed points)")
    fig.tight_layout()
    # legend and title above the axes (the saved PNG's tight bounding box takes them in)
    height = fig.get_figheight()
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False, fontsize=9,
               bbox_to_anchor=(0.5, 1.0))
    if title is None:
        title = (f"Score paths to {TARGET_DISPLAYED} (self-play; finished matches; a match that "
                 "ended is carried at its final score)")
    fig.suptitle(title + "\n" + DISPLAYED_UNITS, y=1.0 + 0.6 / height, va="bottom", fontsize=11)
    stamp(fig, self_play_footer(settings) if footer is None else footer)
    return fig


def plot_score_paths(paths: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`score_paths_figure` as PNG."""
    save_png(score_paths_figure(paths, settings), path, DPI)


def plot_table_paths(paths: pd.DataFrame, path, settings: dict) -> None:
    """The mixed tables' score paths per strategy (rows ``"A (A vs B)"``): a strategy's entity
    in the matches it won (``winner``) and its entities that lost (``loser``); PNG."""
    rows = paths.assign(strategy=paths["strategy"] + " (" + paths["table"] + ")")
    fig = score_paths_figure(
        rows, settings, title=("Mixed tables: each strategy's score path when it won and when it "
                               "lost (every rotation, same deals; finished matches, carried)"),
        footer=table_footer(settings))
    save_png(fig, path, DPI)


def _offsets(strategies: list[str], spread: float = 0.4) -> dict[str, float]:
    """Small x offsets that keep the strategies' error bars apart."""
    step = spread / (len(strategies) - 1) if len(strategies) > 1 else 0.0
    return {name: (k - (len(strategies) - 1) / 2) * step for k, name in enumerate(strategies)}


def score_gap_figure(gaps: pd.DataFrame, settings: dict):
    """Top row: the eventual winner's mean lead over the best loser after each round (displayed
    points, 95% intervals); bottom row: the share of matches whose eventual winner already leads
    (95% Wilson intervals); one column per player count (from the ``gaps`` frame)."""
    players, strategies = _order(gaps)
    colors = _colors(strategies)
    offsets = _offsets(strategies)
    fig, axes = new_figure(2, len(players), figsize=(4.8 * len(players), 6.6), sharex=True,
                           sharey="row", squeeze=False)
    horizon = int(gaps["round"].max())
    for j, count in enumerate(players):
        for name in strategies:
            sel = gaps[(gaps.players == count) & (gaps.strategy == name)].sort_values("round")
            if sel.empty:
                continue
            x = sel["round"].to_numpy(dtype=float) + offsets[name]
            for ax, (mid, low, high) in zip(axes[:, j], (("gap_mean", "gap_low", "gap_high"),
                                                         ("leads_rate", "leads_low",
                                                          "leads_high"))):
                y = sel[mid].to_numpy(dtype=float)
                err = np.vstack([y - sel[low].to_numpy(dtype=float),
                                 sel[high].to_numpy(dtype=float) - y])
                err = np.clip(np.where(np.isfinite(err), err, 0.0), 0.0, None)
                ax.errorbar(x, y, yerr=err, fmt="o-", ms=2.5, lw=1.0, elinewidth=1.2, capsize=2,
                            color=colors[name], label=name)
        axes[0, j].set_title(f"{count} players")
        axes[1, j].set_xlabel("after round")
        axes[1, j].set_xlim(0.3, horizon + 0.7)
        axes[1, j].xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[1, j].set_ylim(0, 1)
        for ax in axes[:, j]:
            ax.grid(alpha=0.3)
    # from 0, or below it where a mean gap is negative (the best of two losers can lead early)
    lowest = float(np.nanmin(gaps["gap_low"].to_numpy(dtype=float), initial=0.0))
    axes[0, 0].set_ylim(bottom=min(0.0, lowest) - 0.3 if lowest < 0 else 0.0)
    for ax in axes[0]:
        ax.axhline(0.0, color="0.4", lw=0.8)
    visible_ticks(axes[0, 0])
    visible_ticks(axes[1, 0], "x")
    axes[0, 0].set_ylabel("eventual winner's lead over the\nbest loser (displayed points)")
    axes[1, 0].set_ylabel("share of matches whose eventual\nwinner leads after the round")
    fig.tight_layout()
    # legend between the title and the axes, where it hides no interval
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, title="self-play", loc="lower center", ncol=len(strategies),
               bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.suptitle("How early the winner pulls ahead (finished matches, carried at the final "
                 "score; 95% intervals)", y=1.0 + 0.75 / fig.get_figheight(), va="bottom")
    stamp(fig, self_play_footer(settings))
    return fig


def plot_score_gap(gaps: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`score_gap_figure` as PNG."""
    save_png(score_gap_figure(gaps, settings), path, DPI)
