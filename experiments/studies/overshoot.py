"""Overshoot risk: how often the exact-61 rule throws points away, and what it costs.

For every strategy (in self-play) and player count:

- ``by_score``: the probability that a score event is discarded as a function
  of its entity's displayed score just before it (0 to 60), with 95% Wilson
  intervals clustered by match (:func:`experiments.stats.clustered_proportion`:
  the events of one match are not independent); placement events separately;
- ``paths``: the turns and rounds the winner spent within 10 displayed points
  of 61 (displayed 51..60) before winning, how often the entity that was
  first within 5 points of 61 (displayed 56..60) lost the match, raw
  points and events discarded per match, and the share of events discarded
  within 10 points of 61 (``zone10_p_discard``, clustered by match);
- ``zone_turns``: the distribution of the winner's own turns begun within 10
  points (for the plot).

Exposure: a strategy that spends longer near 61 has more chances to overshoot, so discards
per match mix how often a strategy is at risk with what it does there. Beside them the study
gives **discards per event at risk**: discarded events over the scoring events that were at
risk. An event is **at risk** when some possible event could take its entity past 61 from
where it stood: ``score_before + MAX_EVENT_RAW > 305`` raw, with :data:`MAX_EVENT_RAW` (170)
the most any single event can score under the rules (so every event from displayed 28 on; no
event below is ever discarded). Whether an event is at risk is known before it is scored: the
ratio conditions on nothing that follows.

With mixed tables (:mod:`experiments.mixed_tables`) the same figures are given per strategy
of each table, a strategy that fills several seats of a deal counted once per deal, and
``comparisons`` holds the paired contrasts ``A - B`` of each table's strategies (discards per
event at risk, discards and raw points discarded per entity per match, match win share), the
deal as the unit, declared before the run (:func:`plan_for`) and adjusted as families. Discards
per event at risk are compared as ratios of sums over all deals
(:func:`experiments.stats.paired_ratio_contrast`), a deal with no event at risk weighing
nothing, never dropped: no contrast is restricted to deals where both strategies reached some
score (that would condition on an outcome). In self-play each strategy's discards per event at
risk are compared with the reference strategy's the same way, paired by deal.

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

from experiments import mixed_tables, stats
from experiments.comparisons import EXPLORATORY, Comparison, ComparisonPlan, Quantity
from experiments.comparisons import plan_sentence
from experiments.reporting import reports
from experiments.run_spine import run_study, traced_result
from experiments.settings import matches_clause, strong_sentence
from experiments.sources import pairs
from experiments.studies import study_plots
from core.tiles import TARGET_RAW, entity_count

NAME = "overshoot"
DEFAULT_MATCHES = 10_000
"""Matches per configuration when none are given."""
MAX_EVENT_RAW = 170
"""No event can exceed 170 raw (168 pips in the set, round5 adds at most 2)."""
SAFE_BELOW_DISPLAYED = (305 - MAX_EVENT_RAW) // 5 + 1
"""Displayed scores below this (28) can never see a discard."""

DISCARDS_PER_RISK = "discards_per_risk"
DISCARDS = "discarded"
RAW_DISCARDED = "raw_discarded"
WON = "won"
QUANTITIES = (
    Quantity(DISCARDS_PER_RISK, "overshoot discards per event at risk", 0.005, True,
             "0.5 pp of the 10 to 20 events at risk a player scores per match is about one "
             "discard in 10 to 20 matches: less than a player would notice"),
    Quantity(DISCARDS, "overshoot discards per entity per match", 0.05, False,
             "one discarded event in 20 matches per player: less than a player would notice"),
    Quantity(RAW_DISCARDED, "raw points discarded per entity per match", 5.0, False,
             "5 raw is one displayed point per match, the smallest score step a player sees"),
    Quantity(WON, "match win share per entity", 0.02, True,
             "2 pp of match win share, one match in 50: the smallest strength gap a player "
             "would notice over a season"),
)
"""The quantities the study compares, each with its smallest effect of interest."""


def at_risk(events: pd.DataFrame) -> np.ndarray:
    """Which scoring events were at risk of overshooting: some possible event could have taken
    the entity past 61 from its score before it (``score_before + MAX_EVENT_RAW > 305`` raw;
    the module docstring)."""
    return events["score_before"].to_numpy(dtype=np.int64) + MAX_EVENT_RAW > TARGET_RAW


def plan_for(settings: dict) -> ComparisonPlan:
    """The study's comparisons, declared from its settings before it plays.

    Primary (Holm): discards per event at risk, A - B, of the first mixed table given, at each
    player count (in the committed run ``exact,greedy``: whether the overshoot-aware strategy
    throws fewer events away per chance to do so than its base on the same deals). Exploratory
    (Benjamini-Hochberg): every other table comparison (discards per event at risk, discards
    and raw points discarded per entity per match, match win share) and, in self-play, each
    strategy's discards per event at risk minus the reference strategy's, paired by deal.
    """
    tables = mixed_tables.tables_of(settings)
    comparisons = mixed_tables.table_comparisons(
        settings, (DISCARDS_PER_RISK, DISCARDS, RAW_DISCARDED, WON), DISCARDS_PER_RISK)
    comparisons += [Comparison(mixed_tables.pair_id(players, mixed_tables.SELF_PLAY, name, ref,
                                                    DISCARDS_PER_RISK),
                               EXPLORATORY, DISCARDS_PER_RISK)
                    for players, name, ref in mixed_tables.self_play_pairs(settings)]
    first = tables[0].label if tables else "none"
    return ComparisonPlan(NAME, QUANTITIES, tuple(comparisons), note=(
        f"Primary: discards per event at risk, A - B, in the first mixed table ({first}) at each "
        "player count, paired by deal: the overshoot rate with exposure taken out. "
        "Exploratory: the other tables and quantities (per match figures mix the rate with "
        "how long a strategy stays near 61) and the self-play strategies against the "
        "reference."))


def run(*args, traces: dict | None = None, **options) -> reports.ExperimentResult:
    """Run the overshoot study: ``run(spec)`` with a :class:`experiments.run_spine.StudySpec` of
    this study (the command line builds one), or ``run(players, strategies, matches, seed,
    **options)``, checked once by :meth:`experiments.run_spine.StudySpec.build` (its parameters:
    the players, strategies, matches (default :data:`DEFAULT_MATCHES`), seed, mixed tables,
    sealing, strong strategies and the scale keywords ``threads``, ``progress``, ``out``,
    ``backend``, ``shard_size``, ``keep_shards``).

    ``traces``: precomputed :func:`experiments.sources.collect_traces` output for the same
    settings (the notebook shares one set with the settlement study).

    Returns
    -------
    ExperimentResult
        Frames ``by_score``, ``paths``, ``zone_turns`` (the rows of a mixed table per
        strategy, ``table`` naming it; ``"self-play"`` otherwise) and ``comparisons`` (the
        declared comparisons, adjusted).
    """
    return run_study(NAME, DEFAULT_MATCHES, compute, args, options, traces, plan_for)


def compute(data, traces: dict | None = None) -> reports.ExperimentResult:
    """The study's result from a run's data (:class:`experiments.sources.DataRun`), or from
    given ``traces``: what :func:`run` and the command line compute."""
    return traced_result(analyse, data, traces)


def analyse(traces: dict, settings: dict, tables=()) -> reports.ExperimentResult:
    """Aggregate :func:`sim.study_kernels.trace_events` outputs into the study's frames.

    ``traces``: a dict ``(strategy, players) -> StudyTrace`` or an iterable of such pairs;
    ``tables``: ``(table, players) -> experiments.sources.TableData`` pairs of the mixed tables
    (:meth:`experiments.sources.DataRun.table_traces`), whose rows are added per strategy.
    """
    by_score, paths, zone, contrasts = [], [], [], []
    risk_by_deal = {}
    for (strategy, players), trace in pairs(traces):
        by_score.append(_by_score(trace.events, strategy, players))
        paths.append(_paths(trace, strategy, players))
        zone.append(_zone_turns(trace.paths, strategy, players))
        risk_by_deal[(strategy, players)] = _risk_per_match(trace)
    contrasts += _self_play_risk(risk_by_deal, mixed_tables.self_play_reference(settings))
    for (label, players), table in pairs(tables):
        trace = table.data
        ev_names = mixed_tables.entity_names(table.rotations, trace.events["rotation"],
                                             trace.events["entity"])
        path_names = mixed_tables.entity_names(table.rotations, trace.paths["rotation"],
                                               trace.paths["entity"])
        for strategy in mixed_tables.strategies_in(table.rotations):
            own_events, own = ev_names == strategy, path_names == strategy
            by_score.append(_by_score(trace.events[own_events], strategy, players, label))
            paths.append(_paths(trace, strategy, players, label, own, own_events))
            zone.append(_zone_turns(trace.paths[own], strategy, players, label))
        contrasts += _table_contrasts(table, label, players)
    plan = plan_for(settings)
    frames = {
        "by_score": pd.concat(by_score, ignore_index=True),
        "paths": pd.concat(paths, ignore_index=True),
        "zone_turns": pd.concat(zone, ignore_index=True),
        "comparisons": mixed_tables.adjusted_comparisons(plan, contrasts),
    }
    # the self-play figures, key numbers and sections are computed from the self-play rows only
    selfplay = mixed_tables.self_play_rows(frames)
    plots = {
        "discard_probability":
            lambda p: study_plots.plot_discard_probability(selfplay["by_score"], p, settings),
        "zone_turns": lambda p: study_plots.plot_zone_turns(selfplay["zone_turns"], p, settings),
    }
    key = _key_numbers(selfplay)
    mixed = frames["paths"][frames["paths"]["table"] != mixed_tables.SELF_PLAY]
    table_rows = frames["comparisons"][frames["comparisons"]["table"] != mixed_tables.SELF_PLAY]
    if len(mixed):
        key.update(_table_key_numbers(mixed, table_rows))
        plots["head_to_head"] = lambda p: study_plots.plot_contrasts(table_rows, p, settings,
                                                                     plan)
    markdown = _markdown(settings, selfplay, key, plan, frames["comparisons"])
    if len(mixed):
        markdown += _table_markdown(frames, settings)
    return reports.ExperimentResult(NAME, settings, frames, markdown, plots, key)


def _risk_per_match(trace) -> pd.DataFrame:
    """Per match (index: the match, the deal), the discarded events and the events at risk of
    every entity (self-play)."""
    ev = trace.events
    frame = pd.DataFrame({"match": ev["match"].to_numpy(),
                          "discarded": (~ev["accepted"].to_numpy()).astype(np.float64),
                          "at_risk": at_risk(ev).astype(np.float64)})
    sums = frame.groupby("match", sort=True)[["discarded", "at_risk"]].sum()
    return sums.reindex(trace.matches["match"].to_numpy(), fill_value=0.0)


def _self_play_risk(by_deal: dict, reference: str) -> list[dict]:
    """Each self-played strategy's discards per event at risk minus the reference's at each
    player count, ratios of sums paired by deal (match i of every self-play configuration of a
    player count is the same deal)."""
    rows = []
    for (strategy, players), own in by_deal.items():
        base = by_deal.get((reference, players))
        if strategy == reference or base is None:
            continue
        a, b = own.align(base, join="inner")
        c = stats.paired_ratio_contrast(a["discarded"], a["at_risk"], b["discarded"],
                                        b["at_risk"])
        rows.append(mixed_tables.comparison_row(
            mixed_tables.pair_id(players, mixed_tables.SELF_PLAY, strategy, reference,
                                 DISCARDS_PER_RISK), mixed_tables.SELF_PLAY, players, strategy,
            reference, DISCARDS_PER_RISK, c))
    return rows


def _by_score(events: pd.DataFrame, strategy: str, players: int,
              label: str = mixed_tables.SELF_PLAY) -> pd.DataFrame:
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
    frame["match"] = events["match"].to_numpy()
    grouped = frame.groupby("displayed_before", sort=True)
    table = pd.DataFrame({
        "events": grouped.size(),
        "discarded": grouped["discarded"].sum(),
        "mean_event_raw": grouped["raw"].mean(),
        "discarded_raw": grouped["discarded_raw"].sum(),
        "placement_events": grouped["placement"].sum(),
        "placement_discarded": grouped["placement_discarded"].sum(),
    }).reset_index()
    # events of one match are not independent: the interval is clustered by match
    p = stats.clustered_proportion(frame["discarded"], frame["match"], frame["displayed_before"])
    p = p.reindex(table["displayed_before"])
    q = stats.proportion(table["placement_discarded"], table["placement_events"])
    table.insert(3, "p_discard", p["rate"].to_numpy())
    table.insert(4, "low", p["low"].to_numpy())
    table.insert(5, "high", p["high"].to_numpy())
    table["p_discard_placement"] = q["rate"]
    table.insert(0, "players", players)
    table.insert(0, "strategy", strategy)
    table["table"] = label
    return table.astype({"events": "int64", "discarded": "int64", "discarded_raw": "int64",
                         "placement_events": "int64", "placement_discarded": "int64"})


def _paths(trace, strategy: str, players: int, label: str = mixed_tables.SELF_PLAY, own=None,
           own_events=None) -> pd.DataFrame:
    """One row of path figures: of every entity (self-play), or of ``strategy``'s entities
    only (a mixed table: ``own`` marks its rows of ``trace.paths``, ``own_events`` its events),
    whose intervals then take the deal (``match``, shared by the rotations) as the cluster."""
    matches = trace.matches
    paths = trace.paths
    finished = matches["winner"].to_numpy() >= 0
    n_entities = entity_count(players)
    mine = np.ones(len(paths), dtype=bool) if own is None else np.asarray(own, dtype=bool)
    deal = None if own is None else matches["match"].to_numpy()
    won = paths["won"].to_numpy()
    winners = paths[won & mine]
    losers = paths[~won & np.repeat(finished, n_entities) & mine]
    at = None if own is None else winners["match"].to_numpy()
    row = {"strategy": strategy, "players": players, "matches": len(matches),
           "finished": int(finished.sum())}
    for column, name in (("zone10_turns", "winner_zone10_turns"),
                         ("zone10_rounds", "winner_zone10_rounds"),
                         ("zone5_turns", "winner_zone5_turns"),
                         ("zone10_table_turns", "winner_zone10_table_turns")):
        mean, low, high = _mean(winners[column], at)
        row[f"{name}_mean"], row[f"{name}_low"], row[f"{name}_high"] = mean, low, high
    row["winner_zone10_turns_median"] = float(winners["zone10_turns"].median())
    row["winner_zone10_turns_p90"] = float(winners["zone10_turns"].quantile(0.9))
    row["winner_zone10_rounds_median"] = float(winners["zone10_rounds"].median())
    p = _share((winners["first_zone10_event"] < 0).to_numpy(), at)
    row["winner_skipped_zone10"], row["winner_skipped_zone10_low"], \
        row["winner_skipped_zone10_high"] = float(p["rate"]), float(p["low"]), float(p["high"])
    mean, low, high = _mean(losers["zone10_turns"],
                            None if own is None else losers["match"].to_numpy())
    row["loser_zone10_turns_mean"], row["loser_zone10_turns_low"], \
        row["loser_zone10_turns_high"] = mean, low, high
    grid = mine.reshape(-1, n_entities)
    for zone in ("zone5", "zone10"):
        first = _first_into(paths, f"first_{zone}_event", n_entities)
        # with a mixed table: the matches where one of the strategy's entities got there first
        reached = finished & (first >= 0) & grid[np.arange(len(first)), np.maximum(first, 0)]
        lost = reached & (first != matches["winner"].to_numpy())
        p = _share(lost[reached], None if deal is None else deal[reached])
        row[f"first_{zone}_matches"] = int(reached.sum())
        row[f"first_{zone}_lost"] = int(lost.sum())
        row[f"first_{zone}_lost_rate"] = float(p["rate"])
        row[f"first_{zone}_lost_low"] = float(p["low"])
        row[f"first_{zone}_lost_high"] = float(p["high"])
    per_match = {}
    for column, source in (("raw_discarded", "raw_discarded"), ("events_discarded", "discarded")):
        values = (matches[column].to_numpy() if own is None
                  else np.where(grid, paths[source].to_numpy().reshape(-1, n_entities), 0)
                  .sum(axis=1))
        per_match[column] = values
        mean, low, high = _mean(values, deal)
        row[f"{column}_per_match"], row[f"{column}_low"], row[f"{column}_high"] = mean, low, high
    p = _share(per_match["events_discarded"] > 0, deal)
    row["matches_with_discard"] = float(p["rate"])
    row["winner_raw_discarded_mean"] = float(winners["raw_discarded"].mean())
    row["loser_raw_discarded_mean"] = float(losers["raw_discarded"].mean())
    ev = trace.events if own_events is None else trace.events[np.asarray(own_events, dtype=bool)]
    row["events_per_match"] = float(len(ev) / len(matches))
    zone = (ev["displayed_before"] >= 51).to_numpy()
    # clustered by match: in a mixed table the match index is the deal of every rotation
    p = stats.clustered_proportion(~ev["accepted"].to_numpy()[zone], ev["match"].to_numpy()[zone])
    rate = p.iloc[0] if len(p) else {"rate": np.nan, "low": 0.0, "high": 1.0}
    row["zone10_p_discard"], row["zone10_p_discard_low"], row["zone10_p_discard_high"] = (
        float(rate["rate"]), float(rate["low"]), float(rate["high"]))
    # exposure: discards per event at risk, a ratio of sums clustered by match (by deal)
    risk = at_risk(ev)
    r = stats.clustered_ratio((~ev["accepted"].to_numpy()).astype(np.float64),
                              risk.astype(np.float64), ev["match"].to_numpy())
    r = r.iloc[0] if len(r) and risk.any() else {"ratio": np.nan, "low": np.nan, "high": np.nan}
    row["discards_per_risk"], row["discards_per_risk_low"], row["discards_per_risk_high"] = (
        float(r["ratio"]), float(r["low"]), float(r["high"]))
    row["events_at_risk_per_match"] = float(risk.sum() / len(matches))
    # appended columns: the table, per-entity scales and (mixed tables) the paired win rate
    row["table"] = label
    row["deals"] = int(matches["match"].nunique())
    entities = grid.sum(axis=1)
    row["entities_per_match"] = float(entities.mean())
    for column in ("events_discarded", "raw_discarded"):
        # per entity: the mean over the strategy's seats of each match, then (a table) over the
        # deal's rotations: a strategy in two seats of a deal counts once
        mean, low, high = _mean(per_match[column] / entities, deal)
        row[f"{column}_per_entity"], row[f"{column}_per_entity_low"], \
            row[f"{column}_per_entity_high"] = mean, low, high
    row["fair_share"] = 1.0 / n_entities
    winner = matches["winner"].to_numpy()
    wins = grid[np.arange(len(winner)), np.maximum(winner, 0)] & finished
    row["wins"] = int(wins.sum())
    if own is None:  # self-play: every win is the strategy's; a win rate says nothing
        row["win_rate"] = row["win_low"] = row["win_high"] = np.nan
    else:
        # each of the strategy's seats of a finished match won or not; Wilson at the effective
        # size of those seats clustered by deal (two seats of one deal are not two deals)
        seat_won = won[mine & np.repeat(finished, n_entities)]
        seat_deal = paths["match"].to_numpy()[mine & np.repeat(finished, n_entities)]
        p = _share(seat_won, seat_deal)
        row["win_rate"], row["win_low"], row["win_high"] = (
            float(p["rate"]), float(p["low"]), float(p["high"]))
    return pd.DataFrame([row])


def _mean(values, clusters=None) -> tuple[float, float, float]:
    """Mean and 95% Student-t interval: of independent values (``clusters`` None), or over
    clusters (deals), each cluster's values averaged into one first (counted once per deal)."""
    x = np.asarray(values, dtype=np.float64)
    if clusters is None:
        return stats.mean_interval(x)
    if x.size == 0:
        return np.nan, np.nan, np.nan
    return stats.mean_interval(pd.Series(x).groupby(np.asarray(clusters), sort=True).mean())


def _share(mask, clusters=None) -> dict:
    """Share of ``mask`` with a 95% Wilson interval: independent (``clusters`` None) or at the
    clustered effective sample size."""
    mask = np.asarray(mask, dtype=bool)
    if clusters is None or mask.size == 0:
        return stats.proportion(int(mask.sum()), mask.size)
    return stats.clustered_proportion(mask, clusters).iloc[0]


def _first_into(paths: pd.DataFrame, column: str, n_entities: int) -> np.ndarray:
    """Per match: the entity that first entered the zone (-1 if none did)."""
    first = paths[column].to_numpy().astype(np.int64).reshape(-1, n_entities)
    key = np.where(first >= 0, first, np.iinfo(np.int64).max)
    entity = key.argmin(axis=1)
    return np.where((first >= 0).any(axis=1), entity, -1)


def _zone_turns(paths: pd.DataFrame, strategy: str, players: int,
                label: str = mixed_tables.SELF_PLAY) -> pd.DataFrame:
    counts = paths.loc[paths["won"], "zone10_turns"].value_counts().sort_index()
    return pd.DataFrame({"strategy": strategy, "players": players,
                         "zone10_turns": counts.index.astype("int64"),
                         "winners": counts.to_numpy().astype("int64"), "table": label})


def _key_numbers(frames: dict) -> dict:
    key = {}
    for tag, row, sel in reports.configurations(frames["paths"], frames["by_score"]):
        p60 = sel[sel.displayed_before == 60]
        key[f"{tag}: P(discard) at 60"] = (
            reports.fmt_ci(float(p60.p_discard.iloc[0]), float(p60.low.iloc[0]),
                           float(p60.high.iloc[0]))
            if len(p60) else "n/a")
        if np.isfinite(row.zone10_p_discard):
            key[f"{tag}: P(discard) at 51..60"] = reports.fmt_ci(
                row.zone10_p_discard, row.zone10_p_discard_low, row.zone10_p_discard_high)
        key[f"{tag}: winner's own turns within 10 of 61"] = reports.fmt_ci(
            row.winner_zone10_turns_mean, row.winner_zone10_turns_low,
            row.winner_zone10_turns_high, 2)
        key[f"{tag}: first within 5 of 61 lost"] = reports.fmt_ci(
            row.first_zone5_lost_rate, row.first_zone5_lost_low, row.first_zone5_lost_high,
            pct=True, digits=3)
        key[f"{tag}: raw discarded per match"] = reports.fmt_ci(
            row.raw_discarded_per_match, row.raw_discarded_low, row.raw_discarded_high, 1)
        key[f"{tag}: discards per event at risk (events at risk per match: "
            f"{row.events_at_risk_per_match:.1f})"] = reports.fmt_ci(
            row.discards_per_risk, row.discards_per_risk_low, row.discards_per_risk_high, 4)
    own = frames["comparisons"]
    for row in own[own["quantity"] == DISCARDS_PER_RISK].itertuples(index=False):
        key[f"{row.a} - {row.b}, {row.players}p: discards per event at risk"] = (
            mixed_tables.comparison_value(row))
    return key


def _table_contrasts(table, label: str, players: int) -> list[dict]:
    """One mixed table's comparison rows: every pair of its strategies, paired by deal, in
    discards per event at risk (ratios of sums over every deal,
    :func:`experiments.stats.paired_ratio_contrast`), discards and raw points discarded per
    entity per match and match win share per entity (:func:`experiments.mixed_tables.per_deal_means`:
    a strategy's seats and the deal's rotations counted once per deal)."""
    trace = table.data
    paths, matches, events = trace.paths, trace.matches, trace.events
    n_entities = entity_count(table.players)
    names = mixed_tables.entity_names(table.rotations, paths["rotation"], paths["entity"])
    order = mixed_tables.strategies_in(table.rotations)
    deals = paths["match"].to_numpy()
    finished = np.repeat(matches["winner"].to_numpy() >= 0, n_entities)
    per_deal = {column: mixed_tables.per_deal_means(paths[column].to_numpy(dtype=np.float64),
                                                    deals, names)
                for column in (DISCARDS, RAW_DISCARDED)}
    per_deal[WON] = mixed_tables.per_deal_means(
        np.where(finished, paths["won"].to_numpy(dtype=np.float64), np.nan), deals, names)
    ev_names = mixed_tables.entity_names(table.rotations, events["rotation"], events["entity"])
    counts = pd.DataFrame({"deal": events["match"].to_numpy(), "strategy": ev_names,
                           "discarded": (~events["accepted"].to_numpy()).astype(np.float64),
                           "at_risk": at_risk(events).astype(np.float64)})
    sums = counts.groupby(["deal", "strategy"])[["discarded", "at_risk"]].sum().unstack(
        "strategy").reindex(np.unique(matches["match"].to_numpy()), fill_value=0.0).fillna(0.0)
    rows = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            c = stats.paired_ratio_contrast(*(sums[(column, name)] if (column, name) in sums
                                              else np.zeros(len(sums))
                                              for name in (a, b)
                                              for column in ("discarded", "at_risk")))
            rows.append(mixed_tables.comparison_row(
                mixed_tables.pair_id(players, label, a, b, DISCARDS_PER_RISK), label, players,
                a, b, DISCARDS_PER_RISK, c))
    return rows + mixed_tables.table_contrasts(
        per_deal, [(q, q) for q in (DISCARDS, RAW_DISCARDED, WON)], label, players)


def _self_play_row(paths: pd.DataFrame, strategy: str, players: int):
    """The self-play row of ``strategy`` at ``players``, or None when it is not self-played."""
    sel = paths[(paths["table"] == mixed_tables.SELF_PLAY) & (paths["strategy"] == strategy)
                & (paths["players"] == players)]
    return sel.iloc[0] if len(sel) else None


def _table_key_numbers(mixed: pd.DataFrame, contrasts: pd.DataFrame) -> dict:
    key = {}
    for row in mixed.itertuples(index=False):
        tag = f"{row.table}, {row.players}p: {row.strategy}"
        key[f"{tag}: match win rate per entity (paired)"] = reports.fmt_ci(
            row.win_rate, row.win_low, row.win_high, pct=True)
        key[f"{tag}: overshoot discards per entity per match (events)"] = reports.fmt_ci(
            row.events_discarded_per_entity, row.events_discarded_per_entity_low,
            row.events_discarded_per_entity_high)
        key[f"{tag}: overshoot discards per event at risk"] = reports.fmt_ci(
            row.discards_per_risk, row.discards_per_risk_low, row.discards_per_risk_high, 4)
        if np.isfinite(row.zone10_p_discard):
            key[f"{tag}: P(discard) at 51..60"] = reports.fmt_ci(
                row.zone10_p_discard, row.zone10_p_discard_low, row.zone10_p_discard_high)
    key.update(mixed_tables.comparison_key_numbers(contrasts, mixed_tables.table_label))
    return key


def _table_markdown(frames: dict, settings: dict) -> str:
    """The head-to-head section: the paired contrasts of every table, then one table per mixed
    table, per strategy, beside its self-play."""
    paths = frames["paths"]
    mixed = paths[paths["table"] != mixed_tables.SELF_PLAY]
    comparisons = frames["comparisons"]
    contrasts = comparisons[comparisons["table"] != mixed_tables.SELF_PLAY]
    lines = ["", "## Head to head (mixed tables)", "",
             ("Each table is played in every rotation of its strategies over the entities "
              "(every strategy at every seat) on the same deals (duplicate deals: match i of "
              "every rotation is one deal). A strategy that fills several seats of a deal (two "
              "of three at 3 players) is counted once per deal: its value is the mean over its "
              "seats and the deal's rotations, and every interval is taken over deals. Discards "
              "per event at risk are ratios of sums over every deal (a deal without an event "
              "at risk weighs nothing; none is dropped)."), "",
             "### Paired contrasts A - B (deal = unit)", "", mixed_tables.ADJUSTED_NOTE, "",
             *mixed_tables.comparison_lines(contrasts)]
    lines += ["", ("Units: `discards / entity-match` = overshoot discards (events) "
              "per match per entity of the strategy; `raw / entity-match` = raw points "
              "discarded per match per entity (1 displayed = 5 raw); `P(discard) 51..60` = "
              "share of the strategy's score events begun at displayed 51..60 that are thrown "
              "away (Wilson, deal-clustered; a description of play near 61, not compared: it "
              "counts only deals where the strategy got there); `per risk` = its discarded "
              "events over its events at risk (from displayed 28 on); `win rate` = share of its seats' finished matches "
              "won (fair share 1/2 with two entities, 1/3 at three; Wilson, deal-clustered); "
              "`first5 lost` = of the matches where the strategy's entity was first within 5 "
              "points of 61, the share it lost. `self-play` = the same strategy's discards per "
              "entity-match in self-play, for comparison."), ""]
    lines += mixed_tables.table_sections(mixed, lambda row: _table_row(row, paths), 2)
    lines += [mixed_tables.comparisons_caption(
        contrasts, "discards per event at risk, discards per entity per match, raw points "
        "discarded per entity per match, match win share per entity", settings,
        DISCARDS_PER_RISK, "discards per event at risk"), ""]
    return "\n".join(lines)


def _table_row(row, paths: pd.DataFrame) -> dict:
    """A strategy's row of its mixed table's markdown table, beside its self-play (``paths``)."""
    own = _self_play_row(paths, row.strategy, row.players)
    return {
        "players": row.players, "strategy": row.strategy,
        "entities / match": row.entities_per_match, "deals": row.deals,
        "win rate": reports.fmt_ci(row.win_rate, row.win_low, row.win_high),
        "discards / entity-match": reports.fmt_ci(row.events_discarded_per_entity,
                                                  row.events_discarded_per_entity_low,
                                                  row.events_discarded_per_entity_high),
        "raw / entity-match": reports.fmt_ci(row.raw_discarded_per_entity,
                                             row.raw_discarded_per_entity_low,
                                             row.raw_discarded_per_entity_high, 1),
        "per risk": reports.fmt_ci(row.discards_per_risk, row.discards_per_risk_low,
                                   row.discards_per_risk_high, 4),
        "P(discard) 51..60": reports.fmt_ci(row.zone10_p_discard, row.zone10_p_discard_low,
                                            row.zone10_p_discard_high),
        "first5 lost": reports.fmt_ci(row.first_zone5_lost_rate, row.first_zone5_lost_low,
                                      row.first_zone5_lost_high),
        "self-play": "" if own is None else f"{own.events_discarded_per_entity:.3f}",
    }


def _self_play_warning(paths: pd.DataFrame) -> str:
    """The caveat that self-play rates are not head-to-head rates, with the self-play order of
    events discarded per match read from ``paths`` (one row per strategy and player count)."""
    text = ("**Self-play only**: each strategy here plays copies of itself, so a rate describes "
            "the games a strategy makes with its own kind, not what it does against another "
            "strategy; head-to-head rates (from matches between the strategies) can order the "
            "strategies differently.")
    clauses = []
    for players, sel in paths.groupby("players", sort=True):
        if len(sel) < 2:
            continue
        sel = sel.sort_values("events_discarded_per_match", kind="stable")
        low, high = sel.iloc[0], sel.iloc[-1]
        clauses.append(f"{players} players: {low.strategy} {low.events_discarded_per_match:.2f}, "
                       f"{high.strategy} {high.events_discarded_per_match:.2f}")
    if clauses:
        text += (" In self-play the fewest and the most events discarded per match are "
                 + "; ".join(clauses) + " (events per match, all entities).")
    return text


def _markdown(settings: dict, frames: dict, key: dict, plan: ComparisonPlan,
              comparisons: pd.DataFrame) -> str:
    s = settings
    paths = frames["paths"]
    by = frames["by_score"]
    lines = reports.summary_head(
        "Overshoot risk", s,
        strong_sentence(s) +
        "Intervals are 95% (Wilson for rates, Student t for means); rates over "
        "score events (P(discard)) are match-clustered: Wilson at the effective "
        "sample size of events clustered by match, since the events of one match "
        "are not independent. Scores are displayed points (1 displayed = 5 raw; "
        "61 displayed = 305 raw). \"Within 10 points\" means displayed 51..60 "
        "(raw 255..300), \"within 5\" displayed 56..60. Exposure: an event is at risk when "
        f"some possible event could take its entity past 61 (score before + {MAX_EVENT_RAW} "
        "raw > 305, every event from displayed 28 on); discards per event at risk take out "
        "how long a strategy stays near 61, which discards per match leave in.") + [
        "",
        _self_play_warning(paths),
        "",
        plan_sentence(plan, comparisons),
        "",
        plan.note,
        "",
        mixed_tables.ADJUSTED_NOTE,
        "",
        "## Key numbers",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    lines += [
        "",
        "## Paths to 61",
        "",
        ("Winner: mean own turns and rounds begun within 10 points of 61 before the win; "
        "`skipped` = winners that jumped from below 51 straight to 61; "
        "`first5 lost` = the entity first within 5 points of 61 did not win."),
        "",
    ]
    table = pd.DataFrame({
        "strategy": paths["strategy"],
        "players": paths["players"],
        "turns in zone (winner)": [reports.fmt_ci(a, b, c, 2) for a, b, c in zip(
            paths.winner_zone10_turns_mean, paths.winner_zone10_turns_low,
            paths.winner_zone10_turns_high)],
        "median": paths["winner_zone10_turns_median"],
        "rounds in zone": [reports.fmt_ci(a, b, c, 2) for a, b, c in zip(
            paths.winner_zone10_rounds_mean, paths.winner_zone10_rounds_low,
            paths.winner_zone10_rounds_high)],
        "skipped": paths["winner_skipped_zone10"],
        "first5 lost": [reports.fmt_ci(a, b, c, pct=True) for a, b, c in zip(
            paths.first_zone5_lost_rate, paths.first_zone5_lost_low,
            paths.first_zone5_lost_high)],
        "raw discarded / match": [reports.fmt_ci(a, b, c, 1) for a, b, c in zip(
            paths.raw_discarded_per_match, paths.raw_discarded_low, paths.raw_discarded_high)],
        "at risk / match": paths["events_at_risk_per_match"],
        "discards per risk": [reports.fmt_ci(a, b, c, 4) for a, b, c in zip(
            paths.discards_per_risk, paths.discards_per_risk_low, paths.discards_per_risk_high)],
        "matches with a discard": paths["matches_with_discard"],
    })
    lines.append(reports.md_table(table))
    lines += ["", ("Units: turns and rounds are the winner's own turns / rounds (per winner); "
              "`raw discarded / match` = raw points thrown away per match, all entities; "
              "`at risk / match` = events at risk per match, all entities; `discards per risk` "
              "= discarded events over events at risk (ratio of sums, clustered by match); "
              "`skipped`, `first5 lost` and `matches with a discard` are shares of matches."),
              "", "## Discard probability by displayed score before the event", "",
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
    lines.append(reports.md_table(pd.DataFrame(pivot_rows)))
    own = comparisons[(comparisons["table"] == mixed_tables.SELF_PLAY)
                      & (comparisons["quantity"] == DISCARDS_PER_RISK)]
    if len(own):
        lines += ["", f"## Discards per event at risk: each strategy - {own['b'].iloc[0]}", "",
                  ("Self-play, ratios of sums paired by deal (match i of every self-play "
                   "configuration of a player count is the same deal):"), ""]
        lines += mixed_tables.comparison_lines(own, lambda row: f"{row.players}p")
    lines += ["", ("Units: P(discard) = share of score events at that displayed score that are "
              "thrown away; in brackets the number of events (all matches, all entities).")]
    lines += [
        "",
        (f"No discard can happen below displayed {SAFE_BELOW_DISPLAYED}: a single event is worth "
        f"at most {MAX_EVENT_RAW} raw."),
        "",
        "## Figures",
        "",
        reports.figure_caption(
            "discard_probability", "P(a score event is discarded) against the entity's "
            "displayed score before it, per strategy in self-play (columns: player counts; top: "
            "displayed 45..60 on a linear axis, bottom: 28..60 on a log axis)",
            f"{matches_clause(s)}, seed {s['seed']}",
            "Bars: 95% Wilson intervals at the match-clustered effective sample size",
            _at_60_finding(by)),
        "",
        reports.figure_caption(
            "zone_turns", "Cumulative share of winners by their own turns begun at displayed "
            "51..60, per strategy in self-play (columns: player counts)",
            f"{matches_clause(s)}, seed {s['seed']}",
            "No bars: empirical distributions (the means' intervals are in the paths table)",
            _zone_finding(paths)),
        "",
    ]
    return "\n".join(lines)



def _at_60_finding(by: pd.DataFrame) -> str:
    """The discard plot's finding: the lowest and highest P(discard) at displayed 60."""
    at = by[by["displayed_before"] == 60].sort_values("p_discard", kind="stable")
    if at.empty:
        return "No event began at displayed 60"
    low, high = at.iloc[0], at.iloc[-1]
    return (f"At displayed 60, P(discard) runs from {low.p_discard:.3f} [{low.low:.3f}, "
            f"{low.high:.3f}] ({low.strategy}, {low.players}p) to {high.p_discard:.3f} "
            f"[{high.low:.3f}, {high.high:.3f}] ({high.strategy}, {high.players}p)")


def _zone_finding(paths: pd.DataFrame) -> str:
    """The zone plot's finding: the median winner's own turns within 10 of 61, per player count."""
    parts = []
    for players, sel in paths.groupby("players", sort=True):
        medians = sel["winner_zone10_turns_median"]
        parts.append(f"{players}p {medians.min():g}" if medians.min() == medians.max()
                     else f"{players}p {medians.min():g} to {medians.max():g}")
    return ("The median winner begins " + ", ".join(parts)
            + " of its own turns within 10 points of 61 (by strategy)")
