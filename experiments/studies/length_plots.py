"""Figures of the match-length study (:mod:`experiments.studies.lengths`): PNG files only, in
the house style for print (a page wide, 300 dpi, text >= 7 pt).

Every ``plot_*`` function takes a frame of the study, a path and the run's
settings and writes one PNG with deterministic metadata that carries the run's
sample size, player counts and seed (:func:`experiments.reporting.figures.run_footer`);
the matching ``*_figure`` function builds the figure without writing it. Distributions (the
cumulative share of rounds per match, the score paths' 10-90% bands) are descriptions, not
estimates (:func:`experiments.reporting.figures.no_intervals`); the lead and its share are
estimates with their 95% intervals. The mixed tables' figure is the study's comparisons
(:func:`experiments.studies.study_plots.contrasts_figure`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from experiments.reporting import figures
from experiments.reporting.figures import new_figure, save_png, stamp, strategy_colour
from experiments.studies.study_plots import self_play_footer
from experiments.studies.table_plots import visible_ticks
from core.tiles import RAW_PER_DISPLAYED, TARGET_RAW, entity_count

TARGET_DISPLAYED = TARGET_RAW // RAW_PER_DISPLAYED
DISPLAYED_UNITS = (f"displayed points (1 displayed = {RAW_PER_DISPLAYED} raw; "
                   f"{TARGET_DISPLAYED} = target)")
WINNER_COLOR, LOSER_COLOR = figures.category_colours(3)[::2]
"""The eventual winner's and the losers' paths: categories, not strategies."""
MIN_IN_PLAY = 30
"""The dotted in-play mean is drawn only where at least this many matches are still played."""


def _colors(strategies: list[str]) -> dict[str, str]:
    """Each strategy's colour, the same in every figure (:func:`strategy_colour`)."""
    return {name: strategy_colour(name) for name in strategies}


def _order(frame: pd.DataFrame) -> tuple[list[int], list[str]]:
    return sorted(frame["players"].unique()), list(dict.fromkeys(frame["strategy"]))


@figures.house_style()
def rounds_per_match_figure(hist: pd.DataFrame, settings: dict):
    """Cumulative distribution of rounds per match, one panel per player count, strategies
    overlaid (from the ``rounds_hist`` frame)."""
    players, strategies = _order(hist)
    colors = _colors(strategies)
    fig, axes = new_figure(1, len(players), width="page", height=2.5, sharey=True,
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
        figures.no_intervals(ax, "every configuration's whole distribution")
        ax.set_title(f"{count} players")
        ax.set_xlabel("rounds per match")
        ax.set_xlim(0, right)
        ax.set_ylim(0, 1)
    axes[0, 0].set_ylabel("share of matches ended\nwithin so many rounds")
    _legend(fig, axes, "self-play")
    stamp(fig, self_play_footer(settings))
    return fig


def _legend(fig, axes, title: str | None = None, ncol: int = 8) -> None:
    """One legend above the panels, each label once (at most ``ncol`` a line)."""
    handles = {}
    for ax in np.ravel(axes):
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    fig.legend(list(handles.values()), list(handles), loc="outside upper center",
               ncol=max(1, min(len(handles), ncol)), title=title)


@figures.house_style()
def plot_rounds_per_match(hist: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`rounds_per_match_figure` as PNG."""
    save_png(rounds_per_match_figure(hist, settings), path)


@figures.house_style()
def score_paths_figure(paths: pd.DataFrame, settings: dict):
    """The eventual winner's and the losers' displayed score after each round: mean (solid),
    10-90% band, and the mean over matches still in play (dotted, where at least
    :data:`MIN_IN_PLAY` are); one row per strategy, one column per player count (from the
    ``trajectories`` frame)."""
    players, strategies = _order(paths)
    fig, axes = new_figure(len(strategies), len(players), width="page",
                           height=1.0 + 1.25 * len(strategies), sharex=True, sharey=True,
                           squeeze=False)
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
                ax.plot(x, mean, color=color, lw=1.1, label=f"{label}: mean")
                ax.plot(x, alive, color=color, lw=0.8, ls=":",
                        label=f"{label}: mean in play")
            figures.no_intervals(ax, "quantiles and means of the paths: a description")
            figures.reference_line(ax, TARGET_DISPLAYED)
            ax.set_xlim(0, horizon)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(0, TARGET_DISPLAYED + 4)
            ax.set_yticks([0, 20, 40, TARGET_DISPLAYED])
            ax.set_title(f"{name}, {count} players")
            if i == len(strategies) - 1:
                ax.set_xlabel("rounds played")
            if j == 0:
                ax.set_ylabel("displayed score")
    _legend(fig, axes[0, 0], ncol=3)
    stamp(fig, self_play_footer(settings) + f"; finished matches, carried at the final score; "
          f"{DISPLAYED_UNITS}; dotted: matches still in play (where {MIN_IN_PLAY}+)")
    return fig


@figures.house_style()
def plot_score_paths(paths: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`score_paths_figure` as PNG."""
    save_png(score_paths_figure(paths, settings), path)


def _offsets(strategies: list[str], spread: float = 0.4) -> dict[str, float]:
    """Small x offsets that keep the strategies' error bars apart."""
    step = spread / (len(strategies) - 1) if len(strategies) > 1 else 0.0
    return {name: (k - (len(strategies) - 1) / 2) * step for k, name in enumerate(strategies)}


@figures.house_style()
def score_gap_figure(gaps: pd.DataFrame, settings: dict):
    """Top row: the eventual winner's mean lead over the best loser after each round (displayed
    points, 95% intervals); bottom row: the share of matches whose eventual winner already leads
    (95% Wilson intervals), with chance (1/n for n sides) dashed; one column per player count
    (from the ``gaps`` frame)."""
    players, strategies = _order(gaps)
    colors = _colors(strategies)
    offsets = _offsets(strategies)
    fig, axes = new_figure(2, len(players), width="page", height=4.4, sharex=True,
                           sharey="row", squeeze=False)
    horizon = int(gaps["round"].max())
    for j, count in enumerate(players):
        figures.reference_line(axes[1, j], 1.0 / entity_count(count))
        figures.reference_line(axes[0, j], 0.0)
        for name in strategies:
            sel = gaps[(gaps.players == count) & (gaps.strategy == name)].sort_values("round")
            if sel.empty:
                continue
            x = sel["round"].to_numpy(dtype=float) + offsets[name]
            for ax, (mid, low, high) in zip(axes[:, j], (("gap_mean", "gap_low", "gap_high"),
                                                         ("leads_rate", "leads_low",
                                                          "leads_high"))):
                figures.estimates(ax, x, sel[mid], sel[low], sel[high], color=colors[name],
                                  label=name, line=True, markersize=1.8, capsize=1.0,
                                  elinewidth=0.6)
        axes[0, j].set_title(f"{count} players (chance {1 / entity_count(count):.2f})")
        axes[1, j].set_xlabel("after round")
        axes[1, j].set_xlim(0.3, horizon + 0.7)
        axes[1, j].xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[1, j].set_ylim(0, 1)
    # from 0, or below it where a mean gap is negative (the best of two losers can lead early)
    lowest = float(np.nanmin(gaps["gap_low"].to_numpy(dtype=float), initial=0.0))
    axes[0, 0].set_ylim(bottom=min(0.0, lowest) - 0.3 if lowest < 0 else 0.0)
    visible_ticks(axes[0, 0])
    visible_ticks(axes[1, 0], "x")
    axes[0, 0].set_ylabel("winner's lead over the best\nloser (displayed, 1 = 5 raw)")
    axes[1, 0].set_ylabel("share of matches whose\nwinner leads after it")
    _legend(fig, axes[0, 0], "self-play")
    stamp(fig, self_play_footer(settings) + "; finished matches, carried at the final score")
    return fig


@figures.house_style()
def plot_score_gap(gaps: pd.DataFrame, path, settings: dict) -> None:
    """Write :func:`score_gap_figure` as PNG."""
    save_png(score_gap_figure(gaps, settings), path)
