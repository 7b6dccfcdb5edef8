"""Overshoot risk: how often the exact-61 rule throws points away, and what it costs.

For every strategy (in self-play) and player count:

- ``by_score``: the probability that a score event is discarded as a function
  of its entity's displayed score just before it (0 to 60), with 95% Wilson
  intervals; placement events separately;
- ``paths``: the turns and rounds the winner spent within 10 displayed points
  of 61 (displayed 51..60) before winning, how often the entity that was
  first within 5 points of 61 (displayed 56..60) lost the match, and raw
  points discarded per match;
- ``zone_turns``: the distribution of the winner's own turns begun within 10
  points (for the plot).

What is provable, and checked by the tests: an event is discarded exactly
when ``score_before + raw > 305``; no single event can be worth more than 170
raw (a placement scores at most the pips on the layout, a settlement at most
round5 of the pips in hands, 168 pips in all), so nothing is ever discarded
below displayed 28 (raw 140); at displayed 60 every positive event above 5
raw is discarded.

Run ``five-up overshoot --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import study_plots
from experiments.reports import ExperimentResult, configurations, fmt_ci, md_table, summary_head
from experiments.runs import run_traced
from experiments.sources import pairs
from experiments.stats import mean_interval, proportion
from sim.tiles import entity_count

NAME = "overshoot"
MAX_EVENT_RAW = 170
"""No event can exceed 170 raw (168 pips in the set, round5 adds at most 2)."""
SAFE_BELOW_DISPLAYED = (305 - MAX_EVENT_RAW) // 5 + 1
"""Displayed scores below this (28) can never see a discard."""


def run(players=(2, 3, 4), strategies=("greedy", "random"), matches: int = 10_000, seed: int = 0,
        threads: int | None = None, progress: bool = False, out=None,
        traces: dict | None = None, backend="local", shard_size: int | None = None,
        keep_shards: bool = False) -> ExperimentResult:
    """Run the overshoot study.

    Parameters
    ----------
    players : sequence of int or str
        Player counts (2, 3, 4).
    strategies : str or sequence of str and Strategy
        Strategies, each studied in self-play: specs (a built-in name,
        ``MODULE:NAME``, ``FILE.py:NAME``, ``name[k=v,...]``; a comma-separated
        string) or :class:`strategies.Strategy` objects. With ``backend="dask"``
        the workers import a strategy's module by its spec; a strategy defined
        in a notebook or ``__main__`` runs on the local backend only.
    matches : int
        Matches per (strategy, players) configuration.
    seed : int
    threads : int, optional
    progress : bool
        A progress bar over matches.
    out : path, optional
        Write the frames, plots and summary there.
    traces : dict, optional
        Precomputed :func:`experiments.sources.collect_traces` output for the
        same settings (the notebook shares one set with the settlement study).
    backend : str or sim.scale.backends.Backend
        ``"local"`` (default: this process's threads), ``"dask"`` (a LocalCluster
        for this call) or an open backend; the frames are the same on each.
    shard_size : int, optional
        Matches per shard (default :data:`experiments.sources.DEFAULT_SHARD_SIZE`).
    keep_shards : bool
        With ``out``: keep ``out/shards`` after the result is written (it is
        always kept after a failure, so that the same call resumes).

    Returns
    -------
    ExperimentResult
        Frames ``by_score``, ``paths``, ``zone_turns``.
    """
    return run_traced(NAME, analyse, players, strategies, matches, seed, traces=traces,
                             threads=threads, progress=progress, out=out, backend=backend,
                             shard_size=shard_size, keep_shards=keep_shards)


def analyse(traces: dict, settings: dict) -> ExperimentResult:
    """Aggregate :func:`sim.studies.trace_events` outputs into the study's frames.

    ``traces``: a dict ``(strategy, players) -> StudyTrace`` or an iterable of such pairs.
    """
    by_score, paths, zone = [], [], []
    for (strategy, players), trace in pairs(traces):
        by_score.append(_by_score(trace.events, strategy, players))
        paths.append(_paths(trace, strategy, players))
        zone.append(_zone_turns(trace.paths, strategy, players))
    frames = {
        "by_score": pd.concat(by_score, ignore_index=True),
        "paths": pd.concat(paths, ignore_index=True),
        "zone_turns": pd.concat(zone, ignore_index=True),
    }
    plots = {
        "discard_probability":
            lambda p: study_plots.plot_discard_probability(frames["by_score"], p),
        "zone_turns": lambda p: study_plots.plot_zone_turns(frames["zone_turns"], p),
    }
    key = _key_numbers(frames)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


def _by_score(events: pd.DataFrame, strategy: str, players: int) -> pd.DataFrame:
    discarded = ~events["accepted"].to_numpy()
    placement = (events["kind"] == "placement").to_numpy()
    frame = pd.DataFrame({
        "displayed_before": events["displayed_before"].to_numpy(),
        "discarded": discarded,
        "raw": events["raw"].to_numpy(),
        "placement": placement,
        "placement_discarded": placement & discarded,
        "discarded_raw": np.where(discarded, events["raw"].to_numpy(), 0),
    })
    grouped = frame.groupby("displayed_before", sort=True)
    table = pd.DataFrame({
        "events": grouped.size(),
        "discarded": grouped["discarded"].sum(),
        "mean_event_raw": grouped["raw"].mean(),
        "discarded_raw": grouped["discarded_raw"].sum(),
        "placement_events": grouped["placement"].sum(),
        "placement_discarded": grouped["placement_discarded"].sum(),
    }).reset_index()
    p = proportion(table["discarded"], table["events"])
    q = proportion(table["placement_discarded"], table["placement_events"])
    table.insert(3, "p_discard", p["rate"])
    table.insert(4, "low", p["low"])
    table.insert(5, "high", p["high"])
    table["p_discard_placement"] = q["rate"]
    table.insert(0, "players", players)
    table.insert(0, "strategy", strategy)
    return table.astype({"events": "int64", "discarded": "int64", "discarded_raw": "int64",
                         "placement_events": "int64", "placement_discarded": "int64"})


def _paths(trace, strategy: str, players: int) -> pd.DataFrame:
    matches = trace.matches
    paths = trace.paths
    finished = matches["winner"].to_numpy() >= 0
    n_entities = entity_count(players)
    winners = paths[paths["won"]]
    losers = paths[~paths["won"] & np.repeat(finished, n_entities)]
    row = {"strategy": strategy, "players": players, "matches": len(matches),
           "finished": int(finished.sum())}
    for column, label in (("zone10_turns", "winner_zone10_turns"),
                          ("zone10_rounds", "winner_zone10_rounds"),
                          ("zone5_turns", "winner_zone5_turns"),
                          ("zone10_table_turns", "winner_zone10_table_turns")):
        mean, low, high = mean_interval(winners[column])
        row[f"{label}_mean"], row[f"{label}_low"], row[f"{label}_high"] = mean, low, high
    row["winner_zone10_turns_median"] = float(winners["zone10_turns"].median())
    row["winner_zone10_turns_p90"] = float(winners["zone10_turns"].quantile(0.9))
    row["winner_zone10_rounds_median"] = float(winners["zone10_rounds"].median())
    jumped = int((winners["first_zone10_event"] < 0).sum())
    p = proportion(jumped, len(winners))
    row["winner_skipped_zone10"], row["winner_skipped_zone10_low"], \
        row["winner_skipped_zone10_high"] = float(p["rate"]), float(p["low"]), float(p["high"])
    mean, low, high = mean_interval(losers["zone10_turns"])
    row["loser_zone10_turns_mean"], row["loser_zone10_turns_low"], \
        row["loser_zone10_turns_high"] = mean, low, high
    for zone in ("zone5", "zone10"):
        first = _first_into(paths, f"first_{zone}_event", n_entities)
        reached = finished & (first >= 0)
        lost = reached & (first != matches["winner"].to_numpy())
        p = proportion(int(lost.sum()), int(reached.sum()))
        row[f"first_{zone}_matches"] = int(reached.sum())
        row[f"first_{zone}_lost"] = int(lost.sum())
        row[f"first_{zone}_lost_rate"] = float(p["rate"])
        row[f"first_{zone}_lost_low"] = float(p["low"])
        row[f"first_{zone}_lost_high"] = float(p["high"])
    for column in ("raw_discarded", "events_discarded"):
        mean, low, high = mean_interval(matches[column])
        row[f"{column}_per_match"], row[f"{column}_low"], row[f"{column}_high"] = mean, low, high
    any_discard = int((matches["events_discarded"] > 0).sum())
    p = proportion(any_discard, len(matches))
    row["matches_with_discard"] = float(p["rate"])
    row["winner_raw_discarded_mean"] = float(winners["raw_discarded"].mean())
    row["loser_raw_discarded_mean"] = float(losers["raw_discarded"].mean())
    row["events_per_match"] = float(len(trace.events) / len(matches))
    return pd.DataFrame([row])


def _first_into(paths: pd.DataFrame, column: str, n_entities: int) -> np.ndarray:
    """Per match: the entity that first entered the zone (-1 if none did)."""
    first = paths[column].to_numpy().astype(np.int64).reshape(-1, n_entities)
    key = np.where(first >= 0, first, np.iinfo(np.int64).max)
    entity = key.argmin(axis=1)
    return np.where((first >= 0).any(axis=1), entity, -1)


def _zone_turns(paths: pd.DataFrame, strategy: str, players: int) -> pd.DataFrame:
    counts = paths.loc[paths["won"], "zone10_turns"].value_counts().sort_index()
    return pd.DataFrame({"strategy": strategy, "players": players,
                         "zone10_turns": counts.index.astype("int64"),
                         "winners": counts.to_numpy().astype("int64")})


def _key_numbers(frames: dict) -> dict:
    key = {}
    for tag, row, sel in configurations(frames["paths"], frames["by_score"]):
        p60 = sel[sel.displayed_before == 60]
        p55 = sel[sel.displayed_before.between(51, 60)]
        key[f"{tag}: P(discard) at 60"] = (
            fmt_ci(float(p60.p_discard.iloc[0]), float(p60.low.iloc[0]), float(p60.high.iloc[0]))
            if len(p60) else "n/a")
        if len(p55):
            rate = proportion(int(p55.discarded.sum()), int(p55.events.sum()))
            key[f"{tag}: P(discard) at 51..60"] = fmt_ci(float(rate["rate"]), float(rate["low"]),
                                                         float(rate["high"]))
        key[f"{tag}: winner's own turns within 10 of 61"] = fmt_ci(
            row.winner_zone10_turns_mean, row.winner_zone10_turns_low,
            row.winner_zone10_turns_high, 2)
        key[f"{tag}: first within 5 of 61 lost"] = fmt_ci(
            row.first_zone5_lost_rate, row.first_zone5_lost_low, row.first_zone5_lost_high,
            pct=True, digits=3)
        key[f"{tag}: raw discarded per match"] = fmt_ci(
            row.raw_discarded_per_match, row.raw_discarded_low, row.raw_discarded_high, 1)
    return key


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    s = settings
    paths = frames["paths"]
    by = frames["by_score"]
    lines = summary_head("Overshoot risk", s,
                         "Intervals are 95% (Wilson for rates, normal for means). \"Within 10 "
                         "points\" means displayed 51..60 (raw 255..300), \"within 5\" displayed "
                         "56..60.") + [
        "",
        "## Key numbers",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    lines += [
        "",
        "## Paths to 61",
        "",
        "Winner: mean own turns and rounds begun within 10 points of 61 before the win; "
        "`skipped` = winners that jumped from below 51 straight to 61; "
        "`first5 lost` = the entity first within 5 points of 61 did not win.",
        "",
    ]
    table = pd.DataFrame({
        "strategy": paths["strategy"],
        "players": paths["players"],
        "turns in zone (winner)": [fmt_ci(a, b, c, 2) for a, b, c in zip(
            paths.winner_zone10_turns_mean, paths.winner_zone10_turns_low,
            paths.winner_zone10_turns_high)],
        "median": paths["winner_zone10_turns_median"],
        "rounds in zone": [fmt_ci(a, b, c, 2) for a, b, c in zip(
            paths.winner_zone10_rounds_mean, paths.winner_zone10_rounds_low,
            paths.winner_zone10_rounds_high)],
        "skipped": paths["winner_skipped_zone10"],
        "first5 lost": [fmt_ci(a, b, c, pct=True) for a, b, c in zip(
            paths.first_zone5_lost_rate, paths.first_zone5_lost_low,
            paths.first_zone5_lost_high)],
        "raw discarded / match": [fmt_ci(a, b, c, 1) for a, b, c in zip(
            paths.raw_discarded_per_match, paths.raw_discarded_low, paths.raw_discarded_high)],
        "matches with a discard": paths["matches_with_discard"],
    })
    lines.append(md_table(table))
    lines += ["", "## Discard probability by displayed score before the event", "",
              "Columns are displayed scores; cells P(discard) (events).", ""]
    pivot_rows = []
    shown = [28, 30, 35, 40, 45, 50, 52, 54, 55, 56, 57, 58, 59, 60]
    for (strategy, players), sel in by.groupby(["strategy", "players"], sort=False):
        sel = sel.set_index("displayed_before")
        row = {"strategy": strategy, "players": players}
        for d in shown:
            row[str(d)] = (f"{sel.p_discard[d]:.3f} ({int(sel.events[d])})"
                           if d in sel.index else "")
        pivot_rows.append(row)
    lines.append(md_table(pd.DataFrame(pivot_rows)))
    lines += [
        "",
        f"No discard can happen below displayed {SAFE_BELOW_DISPLAYED}: a single event is worth "
        f"at most {MAX_EVENT_RAW} raw. Plots: `discard_probability.png`, `zone_turns.png`.",
        "",
    ]
    return "\n".join(lines)
