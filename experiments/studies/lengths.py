"""Match length and score paths: how many rounds a match lasts, and how the scores get to 61.

For every strategy (in self-play) and player count:

- ``lengths``: rounds per match (mean with a 95% interval, the match being
  the unit; p10, median, p90 as the smallest value whose cumulative share
  reaches 10%, 50%, 90%; min, max), the share of matches lasting at least
  :data:`LONG_MATCH_ROUNDS` rounds (Wilson interval), and placements and
  turns per match (a turn ends with a play or a pass: turns = placements +
  passes);
- ``rounds_hist``: matches by rounds played (for the distribution plot);
- ``trajectories``: the displayed score of the eventual winner and of the
  losers after each of the first :data:`HORIZON` rounds: mean and the 10%,
  50% and 90% quantiles. A match that ended earlier is **carried at its final
  score** (so the winner's mean tends to 61); ``mean_in_play`` is the same
  mean over the matches that played that round only. The losers are pooled:
  with 3 players each finished match gives two loser values per round;
- ``gaps``: per round, the eventual winner's score minus the best loser's
  (the highest loser score after that round; with 2 entities, the only
  loser), mean with a 95% interval over finished matches (carried, as
  above), and the share of matches whose eventual winner leads strictly after
  that round (Wilson);
- ``comparisons``: every comparison the run states, declared before it plays
  (:func:`plan_for`) and adjusted as families: rounds per match of each self-played strategy
  minus ``greedy``'s (match ``i`` of every self-play configuration of a player count starts
  from the same deal and lot, so the pairs are the deals both played), of each mixed table (per
  deal, the mean over its rotations) minus ``greedy`` self-play on the same deals, and whether
  the eventual winner already leads after rounds :data:`GAP_ROUNDS` more often than chance,
  1/n for n sides (1/2, 1/3, and 1/2 for two partnerships; a tie is not a lead, so chance of a
  strict lead is at most 1/n and the comparison errs against a finding).

Strong strategies (``strong``, e.g. ``rollout,matchplay``) are self-played
like the others at ``strong_matches`` matches each
(:func:`experiments.settings.study_settings`).

Scores are displayed points (1 displayed = 5 raw; 61 displayed = 305 raw
is the target). Matches cut off unfinished by the engine's round limit have
no winner: they count in ``lengths`` (column ``unfinished``) but not in the
trajectories or gaps.

Computed from the trace source (:meth:`experiments.sources.DataRun.traces`):
the match frame gives rounds, placements and passes; the score events, summed
per round, give the trajectories.

Mixed tables (``--table A,B``, :mod:`experiments.mixed_tables`): every frame has a
``table`` column (``"self-play"`` for the rows above). A table's ``lengths`` and
``rounds_hist`` rows describe all its matches (every rotation, the same deals):
``strategy`` is the table's label. Its ``trajectories`` rows are per strategy:
``winner`` is the path of that strategy's entity in the finished matches it won,
``loser`` the pooled paths of its entities that lost; its ``gaps`` rows are the
matches that strategy won (its lead over the best loser). Intervals of a table's
means and shares take the deal as the unit (the rotations of a deal are not independent: a
deal's rotations are averaged into one value first,
:func:`experiments.mixed_tables.per_deal_means`).

Run ``five-up lengths --help``; from Python, :func:`run`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from experiments import mixed_tables, stats
from experiments.comparisons import (
    EXPLORATORY,
    PRIMARY,
    Comparison,
    ComparisonPlan,
    Quantity,
    plan_sentence,
)
from experiments.reporting import reports
from experiments.run_spine import run_study, traced_result
from experiments.settings import matches_clause
from experiments.sources import pairs
from experiments.studies import length_plots, study_plots
from core.tiles import RAW_PER_DISPLAYED, TARGET_RAW, entity_count

NAME = "lengths"
DEFAULT_MATCHES = 10_000
"""Matches per configuration when none are given."""
HORIZON = 20
"""Rounds covered by the trajectories and gaps (later rounds change few matches' scores)."""
LONG_MATCH_ROUNDS = 10
"""``share_long``: matches lasting at least this many rounds."""
GAP_ROUNDS = (1, 3, 5)
"""Rounds whose mean gap is quoted in the key numbers."""
QUANTILE_METHOD = "inverted_cdf"
"""Quantiles are observed values: the smallest value whose cumulative share reaches q."""

ROUNDS = "rounds"
LEADS = "leads"
QUANTITIES = (
    Quantity(ROUNDS, "rounds per match", 0.5, False,
             "half a round in a match of 7 to 17 rounds: less than a player could tell from "
             "an evening's play"),
    Quantity(LEADS, "eventual winner ahead after the round, against chance", 0.02, True,
             "2 pp of matches, one in 50: a lead that early says nothing a player could use"),
)
"""The quantities the study compares, each with its smallest effect of interest."""
CHANCE = "chance"
"""The ``b`` of a comparison with chance (1/n)."""


def leader_label(strategy: str, after: int) -> str:
    """The ``a`` of a comparison of the eventual winner's lead with chance."""
    return f"{strategy} winner ahead after round {after}"


def plan_for(settings: dict) -> ComparisonPlan:
    """The study's comparisons, declared from its settings before it plays.

    Primary (Holm): rounds per match of each strong strategy (``strong``) minus the reference
    strategy's (``greedy`` when studied) at each player count, paired by deal: does stronger
    play make matches longer or shorter (without strong strategies: every self-played strategy
    minus the reference). Exploratory (Benjamini-Hochberg): the other strategies against the
    reference, each mixed table against the reference's self-play on the same deals, and the
    eventual winner's lead after rounds :data:`GAP_ROUNDS` against chance (1/n) per strategy
    and player count.
    """
    strong = set(settings.get("strong", ()))
    primary, rest = [], []
    for players, name, ref in mixed_tables.self_play_pairs(settings):
        rows = primary if (name in strong or not strong) else rest
        rows.append(Comparison(mixed_tables.pair_id(players, mixed_tables.SELF_PLAY, name, ref,
                                                    ROUNDS),
                               PRIMARY if rows is primary else EXPLORATORY, ROUNDS))
    reference = mixed_tables.self_play_reference(settings)
    for table in mixed_tables.tables_of(settings):
        rest += [Comparison(mixed_tables.pair_id(players, table.label, table.label,
                                                 f"{reference} self-play", ROUNDS),
                            EXPLORATORY, ROUNDS)
                 for players in settings["players"] if table.plays_at(players)]
    rest += [Comparison(mixed_tables.pair_id(players, mixed_tables.SELF_PLAY,
                                             leader_label(name, after), CHANCE, LEADS),
                        EXPLORATORY, LEADS)
             for name in settings["strategies"] for players in settings["players"]
             for after in GAP_ROUNDS]
    which = ("each strong strategy" if strong else "each self-played strategy")
    return ComparisonPlan(NAME, QUANTITIES, tuple(primary + rest), note=(
        f"Primary: rounds per match of {which} minus {reference}'s at each player count, "
        "paired by deal (does stronger play change how long a match lasts). Exploratory: the "
        "other strategies and the mixed tables against the same deals, and the eventual "
        "winner's lead after rounds " + ", ".join(map(str, GAP_ROUNDS)) + " against chance "
        "(1/n)."))


def run(*args, traces: dict | None = None, **options) -> reports.ExperimentResult:
    """Run the match-length study (arguments as :func:`experiments.studies.overshoot.run`: a
    :class:`experiments.run_spine.StudySpec`, or the keywords of
    :meth:`experiments.run_spine.StudySpec.build`; ``matches`` by default :data:`DEFAULT_MATCHES`).

    ``traces`` may hold precomputed :func:`experiments.sources.collect_traces`
    output for the same settings; mixed tables' rows: the module docstring says what they
    hold.

    Returns
    -------
    ExperimentResult
        Frames ``lengths``, ``rounds_hist``, ``trajectories``, ``gaps`` (each with a ``table``
        column) and ``comparisons``.
    """
    return run_study(NAME, DEFAULT_MATCHES, compute, args, options, traces, plan_for)


def compute(data, traces: dict | None = None) -> reports.ExperimentResult:
    """The study's result from a run's data or from given ``traces``, as
    :func:`experiments.studies.overshoot.compute` (with this study's :func:`analyse`)."""
    return traced_result(analyse, data, traces)


def analyse(traces, settings: dict, tables=()) -> reports.ExperimentResult:
    """The study's frames from ``(strategy, players) -> StudyTrace`` pairs (a dict or iterable)
    and the mixed tables' ``(table, players) -> experiments.sources.TableData`` pairs
    (:meth:`experiments.sources.DataRun.table_traces`)."""
    parts = {name: [] for name in FRAMES}
    by_deal, leads = {}, []
    for (strategy, players), trace in pairs(traces):
        by_deal[(strategy, players)] = pd.Series(
            trace.matches["rounds"].to_numpy(dtype=np.float64),
            index=trace.matches["match"].to_numpy())
        parts["lengths"].append(_lengths(trace.matches, strategy, players))
        parts["rounds_hist"].append(_rounds_hist(trace.matches, strategy, players))
        sides = _sides(trace.matches, score_paths(trace.matches, trace.events, players)).of()
        parts["trajectories"].append(_trajectories(sides, strategy, players))
        parts["gaps"].append(_gaps(sides, strategy, players))
        leads += _leads_against_chance(sides, strategy, players)
    for name in FRAMES:
        for frame in parts[name]:
            frame["table"] = mixed_tables.SELF_PLAY
    reference = mixed_tables.self_play_reference(settings)
    compared = mixed_tables.self_play_contrasts(by_deal, reference, ROUNDS) + leads
    for (label, players), table in pairs(tables):
        for name, frame in _mixed(table, label, players).items():
            parts[name].append(frame)
        compared += _table_contrast(table, label, players, by_deal.get((reference, players)),
                                    reference)
    plan = plan_for(settings)
    frames = {name: pd.concat(parts[name], ignore_index=True) for name in FRAMES}
    frames["comparisons"] = mixed_tables.adjusted_comparisons(plan, compared)
    # the self-play figures and key numbers come from the self-play rows only
    selfplay = mixed_tables.self_play_rows(frames)
    plots = {
        "rounds_per_match":
            lambda p: length_plots.plot_rounds_per_match(selfplay["rounds_hist"], p, settings),
        "score_paths":
            lambda p: length_plots.plot_score_paths(selfplay["trajectories"], p, settings),
        "score_gap": lambda p: length_plots.plot_score_gap(selfplay["gaps"], p, settings),
    }
    key = _key_numbers(selfplay)
    markdown = _markdown(settings, selfplay, key, plan, frames["comparisons"])
    mixed = {name: frame[frame["table"] != mixed_tables.SELF_PLAY]
             for name, frame in frames.items()}
    if len(mixed["lengths"]):
        key.update(_table_key_numbers(mixed, settings))
        plots["head_to_head"] = lambda p: study_plots.plot_contrasts(
            mixed["comparisons"], p, settings, plan)
        markdown += _table_markdown(mixed, settings)
    return reports.ExperimentResult(NAME, settings, frames, markdown, plots, key)


FRAMES = ("lengths", "rounds_hist", "trajectories", "gaps")
"""The study's frames computed per configuration, in order (then ``comparisons``)."""


def _leads_against_chance(sides, strategy: str, players: int) -> list[dict]:
    """Self-play: after each round of :data:`GAP_ROUNDS`, whether the eventual winner strictly
    leads the best loser, per finished match (``sides``: :meth:`EntitySides.of`), against chance
    (1/n; t interval over matches)."""
    chance = 1.0 / entity_count(players)
    rows = []
    for after in GAP_ROUNDS:
        if after > sides.lead.shape[1]:
            continue
        ahead = (sides.lead[:, after - 1] > 0).astype(np.float64)
        a = leader_label(strategy, after)
        rows.append(mixed_tables.comparison_row(
            mixed_tables.pair_id(players, mixed_tables.SELF_PLAY, a, CHANCE, LEADS),
            mixed_tables.SELF_PLAY, players, a, CHANCE, LEADS,
            stats.paired_contrast(ahead, np.full(ahead.size, chance))))
    return rows


def _table_contrast(table, label: str, players: int, base, reference: str) -> list[dict]:
    """A mixed table's rounds per match (per deal, the mean over its rotations) minus the
    reference strategy's self-play on the same deals (none without that self-play)."""
    if base is None:
        return []
    matches = table.data.matches
    per_deal = mixed_tables.per_deal_means(matches["rounds"].to_numpy(dtype=np.float64),
                                           matches["match"].to_numpy(),
                                           np.full(len(matches), label))[label]
    a, b = per_deal.align(base, join="inner")
    b_label = f"{reference} self-play"
    return [mixed_tables.comparison_row(
        mixed_tables.pair_id(players, label, label, b_label, ROUNDS), label, players, label,
        b_label, ROUNDS, stats.paired_contrast(a.to_numpy(), b.to_numpy()))]


def _mixed(table, label: str, players: int) -> dict:
    """The rows of one mixed table at ``players`` (see the module docstring)."""
    matches, events = table.data.matches, table.data.events
    deals = matches["match"].to_numpy()
    out = {"lengths": _lengths(matches, label, players, clusters=deals),
           "rounds_hist": _rounds_hist(matches, label, players)}
    rotations = []
    for r, pairing in enumerate(table.rotations):
        own = matches["rotation"].to_numpy() == r
        sub = matches[own].reset_index(drop=True)
        scores = score_paths(sub, events[events["rotation"].to_numpy() == r], players)
        rotations.append((_sides(sub, scores), np.array(pairing.entity_strategies, dtype=object)))
    paths, gaps = [], []
    for strategy in dict.fromkeys(table.rotations[0].entity_strategies):
        parts = [sides.of(strategies == strategy) for sides, strategies in rotations]
        mine = Sides(*(np.concatenate([getattr(part, f) for part in parts])
                       for f in Sides._fields))
        paths.append(_trajectories(mine, strategy, players))
        gaps.append(_gaps(mine, strategy, players, clustered=True))
    out["trajectories"] = pd.concat(paths, ignore_index=True)
    out["gaps"] = pd.concat(gaps, ignore_index=True)
    for frame in out.values():
        frame["table"] = label
    return out


def score_paths(matches: pd.DataFrame, events: pd.DataFrame, players: int,
                horizon: int = HORIZON) -> np.ndarray:
    """Every entity's raw score after each of the first ``horizon`` rounds of every match.

    Parameters
    ----------
    matches : DataFrame
        A trace's match frame (column ``match``, in increasing order).
    events : DataFrame
        Its score events (``match``, ``round``, ``entity``, ``raw``, ``accepted``).
    players : int
    horizon : int

    Returns
    -------
    ndarray of int64, shape (len(matches), horizon, entities)
        ``[m, k, e]``: entity ``e``'s raw score after round ``k`` (0-based) of
        match ``m``; after a match's last round its final score is carried.
    """
    n_entities = entity_count(players)
    ids = matches["match"].to_numpy()
    position = np.searchsorted(ids, events["match"].to_numpy())
    rounds = events["round"].to_numpy().astype(np.int64)
    gained = np.where(events["accepted"].to_numpy(), events["raw"].to_numpy(), 0)
    # events after the horizon cannot change a score before it: drop them
    keep = rounds < horizon
    flat = ((position[keep] * horizon + rounds[keep]) * n_entities
            + events["entity"].to_numpy().astype(np.int64)[keep])
    per_round = np.bincount(flat, weights=gained[keep], minlength=len(ids) * horizon * n_entities)
    per_round = np.rint(per_round).astype(np.int64).reshape(len(ids), horizon, n_entities)
    return per_round.cumsum(axis=1)


def _quantiles(values, qs=(0.1, 0.5, 0.9)) -> list[float]:
    values = np.asarray(values)
    if values.size == 0:
        return [np.nan] * len(qs)
    return [float(v) for v in np.quantile(values, qs, method=QUANTILE_METHOD)]


def _lengths(matches: pd.DataFrame, strategy: str, players: int, clusters=None) -> pd.DataFrame:
    """One row of length figures; with ``clusters`` (a mixed table's deals) the intervals of
    the means and of the long-match share take the cluster as the unit."""
    rounds = matches["rounds"].to_numpy().astype(np.int64)
    placements = matches["placements"].to_numpy().astype(np.int64)
    turns = placements + matches["passes"].to_numpy().astype(np.int64)
    finished = matches["winner"].to_numpy() >= 0
    row = {"strategy": strategy, "players": players, "matches": len(matches),
           "unfinished": int((~finished).sum())}
    mean, low, high = _mean(rounds, clusters)
    row.update(rounds_mean=mean, rounds_low=low, rounds_high=high)
    row["rounds_p10"], row["rounds_median"], row["rounds_p90"] = _quantiles(rounds)
    row["rounds_min"], row["rounds_max"] = int(rounds.min()), int(rounds.max())
    is_long = rounds >= LONG_MATCH_ROUNDS
    if clusters is None:
        p = stats.proportion(int(is_long.sum()), len(rounds))
        p = (float(p["rate"]), float(p["low"]), float(p["high"]))
    else:
        # a table's rotations replay each deal: the deal's share of long matches, once per deal
        p = mixed_tables.deal_share(
            mixed_tables.per_deal_means(is_long, clusters, np.full(len(rounds), "all"))["all"])
    row.update(long_matches=int(is_long.sum()), share_long=p[0], share_long_low=p[1],
               share_long_high=p[2])
    for name, values in (("placements", placements), ("turns", turns)):
        mean, low, high = _mean(values, clusters)
        row.update({f"{name}_mean": mean, f"{name}_low": low, f"{name}_high": high,
                    f"{name}_median": _quantiles(values, (0.5,))[0]})
    row["placements_per_round"] = float(placements.sum() / rounds.sum())
    return pd.DataFrame([row])


def _mean(values, clusters=None) -> tuple[float, float, float]:
    """``(mean, low, high)`` with a Student-t interval: the match as the unit, or the given
    clusters (deals: a deal's rotations averaged into one value first)."""
    if clusters is None:
        return stats.mean_interval(values)
    return stats.clustered_mean(values, clusters)


def _rounds_hist(matches: pd.DataFrame, strategy: str, players: int) -> pd.DataFrame:
    counts = matches["rounds"].value_counts().sort_index()
    share = counts.to_numpy() / counts.sum()
    return pd.DataFrame({"strategy": strategy, "players": players,
                         "rounds": counts.index.to_numpy().astype("int64"),
                         "matches": counts.to_numpy().astype("int64"), "share": share,
                         "cumulative": np.cumsum(share)})


class Sides(NamedTuple):
    """The finished matches' displayed score paths, split into the winner's and the losers'.

    ``won``: int64 (m, horizon), the winner's path of each finished match; ``won_rounds``
    (m,) the rounds it lasted, ``won_deals`` (m,) its deal (match index), ``lead`` (m,
    horizon) the winner's score minus the best loser's; ``lost``: int64 (k, horizon), every
    losing entity's path (pooled), ``lost_rounds`` (k,) its match's rounds;
    ``lost_match_rounds`` the rounds of each match with at least one of those losers.
    """

    won: np.ndarray
    won_rounds: np.ndarray
    won_deals: np.ndarray
    lead: np.ndarray
    lost: np.ndarray
    lost_rounds: np.ndarray
    lost_match_rounds: np.ndarray


class EntitySides(NamedTuple):
    """:class:`Sides` before pooling: ``winner`` (m,) the winning entity of each finished match,
    ``shown`` int64 (m, horizon, entities) every entity's displayed path, ``rounds`` and
    ``deals`` (m,). :meth:`of` keeps the entities a mask selects."""

    winner: np.ndarray
    shown: np.ndarray
    rounds: np.ndarray
    deals: np.ndarray

    def of(self, selected=None) -> Sides:
        """The sides of the entities ``selected`` (bool (entities,); default all): the
        matches one of them won, and their paths when they lost."""
        m, _, n_entities = self.shown.shape
        entity = np.arange(n_entities)[None, :]
        picked = np.ones(n_entities, bool) if selected is None else np.asarray(selected, bool)
        is_winner = entity == self.winner[:, None]
        won = picked[self.winner]
        won_path = self.shown[np.arange(m), :, self.winner]
        # the best loser: the highest score among the other entities, per round
        others = np.where(is_winner[:, None, :], np.iinfo(np.int64).min, self.shown)
        lead = won_path - others.max(axis=2)
        losing = ~is_winner & picked[None, :]
        lost = self.shown.transpose(0, 2, 1)[losing]
        lost_rounds = np.broadcast_to(self.rounds[:, None], losing.shape)[losing]
        return Sides(won_path[won], self.rounds[won], self.deals[won], lead[won], lost,
                     lost_rounds, self.rounds[losing.any(axis=1)])


def _sides(matches: pd.DataFrame, scores: np.ndarray) -> EntitySides:
    """Finished matches only: each entity's displayed path, the winner, rounds and deal."""
    winner = matches["winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    return EntitySides(winner[finished], scores[finished] // RAW_PER_DISPLAYED,
                       matches["rounds"].to_numpy()[finished],
                       matches["match"].to_numpy()[finished])


def _trajectories(sides: Sides, strategy: str, players: int) -> pd.DataFrame:
    rows = []
    for k in range(sides.won.shape[1]):
        for side, values, rounds, matches in (
                ("winner", sides.won[:, k], sides.won_rounds, sides.won_rounds),
                ("loser", sides.lost[:, k], sides.lost_rounds, sides.lost_match_rounds)):
            alive = rounds >= k + 1
            p10, p50, p90 = _quantiles(values)
            # matches: those the row's paths come from (self-play: every finished match)
            rows.append({"strategy": strategy, "players": players, "round": k + 1, "side": side,
                         "matches": len(matches), "in_play": int((matches >= k + 1).sum()),
                         "mean": float(values.mean()) if values.size else np.nan,
                         "p10": p10, "median": p50, "p90": p90,
                         "mean_in_play": float(values[alive].mean()) if alive.any() else np.nan})
    return pd.DataFrame(rows)


def _gaps(sides: Sides, strategy: str, players: int, clustered: bool = False) -> pd.DataFrame:
    """Per round: the winner's lead over the best loser; intervals with the match as the unit,
    or (``clustered``: a mixed table, whose rotations share deals) the deal."""
    rows = []
    for k in range(sides.lead.shape[1]):
        gap = sides.lead[:, k]
        if clustered and len(gap):
            mean, low, high = _mean(gap, sides.won_deals)
            p = stats.clustered_proportion(gap > 0, sides.won_deals).iloc[0]
        else:
            mean, low, high = stats.mean_interval(gap)
            p = stats.proportion(int((gap > 0).sum()), len(gap))
        rows.append({"strategy": strategy, "players": players, "round": k + 1,
                     "matches": len(gap), "in_play": int((sides.won_rounds >= k + 1).sum()),
                     "gap_mean": mean, "gap_low": low, "gap_high": high,
                     "winner_leads": int((gap > 0).sum()), "leads_rate": float(p["rate"]),
                     "leads_low": float(p["low"]), "leads_high": float(p["high"])})
    return pd.DataFrame(rows)


def _key_numbers(frames: dict) -> dict:
    key = {}
    gaps = frames["gaps"].set_index(["strategy", "players", "round"])
    for row in frames["lengths"].itertuples(index=False):
        tag = f"{row.strategy}, {row.players}p"
        key[f"{tag}: rounds per match (median, p10-p90)"] = (
            f"{reports.fmt_ci(row.rounds_mean, row.rounds_low, row.rounds_high, 2)} "
            f"(median {row.rounds_median:.0f}, {row.rounds_p10:.0f}-{row.rounds_p90:.0f})")
        key[f"{tag}: matches lasting {LONG_MATCH_ROUNDS}+ rounds"] = reports.fmt_ci(
            row.share_long, row.share_long_low, row.share_long_high, pct=True)
        key[f"{tag}: turns per match"] = reports.fmt_ci(row.turns_mean, row.turns_low,
                                                        row.turns_high, 1)
        shown = [k for k in GAP_ROUNDS if (row.strategy, row.players, k) in gaps.index]
        if shown:
            key[f"{tag}: winner's lead over the best loser after rounds "
                f"{', '.join(map(str, shown))} (displayed)"] = ", ".join(
                f"{gaps.loc[(row.strategy, row.players, k), 'gap_mean']:.1f}" for k in shown)
    comparisons = frames["comparisons"]
    for row in comparisons[comparisons["quantity"] == ROUNDS].itertuples(index=False):
        key[f"{row.a} - {row.b}, {row.players}p: rounds per match"] = (
            mixed_tables.comparison_value(row))
    for row in comparisons[(comparisons["quantity"] == LEADS)
                           & (comparisons["a"].str.endswith("after round 1"))].itertuples():
        key[f"{row.a[:-len(' winner ahead after round 1')]}, {row.players}p: eventual winner "
            f"ahead after round 1 - chance (1/{entity_count(row.players)})"] = (
            mixed_tables.comparison_value(row))
    return key


def _table_key_numbers(mixed: dict, settings: dict) -> dict:
    """Per table and player count: rounds per match, and each strategy's share of the finished
    matches won."""
    tables = {table.label: table for table in mixed_tables.tables_of(settings)}
    key = {}
    wins = mixed["trajectories"]
    wins = wins[(wins["round"] == 1) & (wins["side"] == "winner")]
    for row in mixed["lengths"].itertuples(index=False):
        tag = f"{row.table}, {row.players}p"
        key[f"{tag}: rounds per match"] = reports.fmt_ci(row.rounds_mean, row.rounds_low,
                                                  row.rounds_high, 2)
        compared = mixed["comparisons"]
        for c in compared[(compared["table"] == row.table)
                          & (compared["players"] == row.players)].itertuples():
            key[f"{tag}: {c.a} - {c.b}: rounds per match"] = mixed_tables.comparison_value(c)
        finished = row.matches - row.unfinished
        sel = wins[(wins["table"] == row.table) & (wins["players"] == row.players)]
        seats = tables[row.table].entity_strategies(row.players)
        # at 3 players a two-name table is A vs B, B: say how many entities share each share
        key[f"{tag}: finished matches won"] = ", ".join(
            f"{w.strategy} {w.matches / finished:.1%}"
            + (f" ({seats.count(w.strategy)} entities)" if seats.count(w.strategy) > 1 else "")
            for w in sel.itertuples(index=False))
    return key


def _table_markdown(mixed: dict, settings: dict) -> str:
    lengths, gaps = mixed["lengths"], mixed["gaps"]
    horizon = int(gaps["round"].max())
    shown = [k for k in (1, 2, 3, 5, 7, 10) if k <= horizon]
    lines = ["", "## Mixed tables", "",
             ("Each table is played in every rotation of its strategies over the entities on "
              "the same deals. Rounds per match are of all the table's matches (intervals with "
              "the deal as the unit). The score paths are per strategy: `winner` is its entity "
              "in the finished matches it won, `loser` its entities that lost "
              "(`trajectories.csv`, `head_to_head.png`)."), "",
             reports.md_table(lengths[["table", "players", "matches", "unfinished", "rounds_mean",
                                       "rounds_low", "rounds_high", "rounds_median", "share_long",
                                       "turns_mean"]], 3),
             "", ("Matches won by each strategy, and its lead over the best loser after each "
                  "round of those matches (displayed points):"), "",
             reports.md_table(_pivot(gaps, ["table", "players", "strategy", "matches"], "gap_mean",
                                     shown), 1), ""]
    contrasts = mixed["comparisons"]
    if len(contrasts):
        lines += [("Each table's rounds per match (per deal, the mean over its rotations) minus "
                   "the same deals' in self-play, paired by deal (adjusted intervals):"), ""]
        lines += mixed_tables.comparison_lines(contrasts, lambda row: f"{row.players}p")
        lines.append("")
    lines += ["### Figure", "", reports.figure_caption(
        "head_to_head",
        "each mixed table's rounds per match minus the reference strategy's self-play on the "
        "same deals, one panel per player count (the tables' score paths per strategy are in "
        "`trajectories.csv`)", _table_sample(settings),
        "Bars: the adjusted intervals of the comparisons (the deal is the unit); filled "
        "markers: findings", mixed_tables.verdict_finding(contrasts, ROUNDS, "rounds per match")),
        ""]
    return "\n".join(lines)


def _sample(settings: dict) -> str:
    """The self-play sample of a caption: matches per configuration and the seed."""
    return f"{matches_clause(settings)}, seed {settings['seed']}"


def _table_sample(settings: dict) -> str:
    """The mixed tables' sample of a caption."""
    return (f"{settings.get('table_matches', settings['matches']):,} matches per table "
            f"rotation (duplicate deals), seed {settings['seed']}")


def _longer(comparisons: pd.DataFrame) -> str:
    """One sentence from the self-play comparisons of rounds per match (adjusted)."""
    sel = comparisons[(comparisons["table"] == mixed_tables.SELF_PLAY)
                      & (comparisons["quantity"] == ROUNDS)]
    if not len(sel):
        return "One strategy only: nothing to compare"
    return mixed_tables.verdict_finding(sel, ROUNDS, f"rounds per match against {sel['b'].iloc[0]}")


def _pivot(frame: pd.DataFrame, index: list[str], value: str, rounds) -> pd.DataFrame:
    sel = frame[frame["round"].isin(rounds)]
    table = sel.pivot_table(index=index, columns="round", values=value, sort=False)
    table.columns = [f"after {c}" for c in table.columns]
    return table.reset_index()


def _markdown(settings: dict, frames: dict, key: dict, plan: ComparisonPlan,
              comparisons: pd.DataFrame) -> str:
    lengths = frames["lengths"]
    horizon = int(frames["gaps"]["round"].max())
    shown = [k for k in (1, 2, 3, 5, 7, 10, 15, 20) if k <= horizon]
    lines = reports.summary_head(
        "Match length and score paths", settings,
        "Intervals are 95% with the match as the unit (Student t for means, Wilson for "
        "shares); comparisons are paired contrasts A - B over the deals both played (match i of "
        "every self-play configuration of a player count starts from the same deal and lot). "
        "Chance for n sides is 1/n (1/2, 1/3, and 1/2 for two partnerships). "
        f"Scores are displayed points (1 displayed = 5 raw; {TARGET_RAW // RAW_PER_DISPLAYED} "
        f"displayed = {TARGET_RAW} raw is the target). Quantiles are observed values (the "
        "smallest value whose cumulative share reaches the level). A turn ends with a play or "
        "a pass (turns = placements + passes).") + [
        "", plan_sentence(plan, comparisons), "", plan.note, "", mixed_tables.ADJUSTED_NOTE,
        "", "## Key numbers", ""]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    lines += ["", "## Rounds and turns per match", "",
              (f"`share_long` = matches lasting at least {LONG_MATCH_ROUNDS} rounds; "
               "`unfinished` = matches stopped by the engine's round limit (counted here, left "
               "out of the score paths)."), "",
              reports.md_table(lengths[["strategy", "players", "matches", "unfinished",
                                        "rounds_mean", "rounds_low", "rounds_high", "rounds_p10",
                                        "rounds_median", "rounds_p90", "rounds_max", "share_long",
                                        "placements_mean", "turns_mean", "turns_median",
                                        "placements_per_round"]], 3)]
    lines += ["", "## Score paths (displayed points after each round)", "",
              ("Finished matches only. A match that ended before a round is carried at its "
               "final score (the winner at 61), so the winner's mean rises to 61; "
               "`mean_in_play` in `trajectories.csv` conditions on matches still being played. "
               "Losers are pooled (with 3 players, two per match)."), "",
              reports.md_table(_pivot(frames["trajectories"], ["strategy", "players", "side"],
                                      "mean", shown), 1)]
    lines += ["", "## The eventual winner's lead over the best loser (displayed points)", "",
              ("Mean of the winner's score minus the highest loser score after each round "
               "(carried as above; 95% intervals in `gaps.csv`), then the share of matches whose "
               "eventual winner already leads strictly."), "",
              reports.md_table(_pivot(frames["gaps"], ["strategy", "players"], "gap_mean", shown),
                               1), "",
              reports.md_table(_pivot(frames["gaps"], ["strategy", "players"], "leads_rate",
                                      shown), 3)]
    rounds = comparisons[(comparisons["table"] == mixed_tables.SELF_PLAY)
                         & (comparisons["quantity"] == ROUNDS)]
    if len(rounds):
        lines += ["", f"## Rounds per match: each strategy - {rounds['b'].iloc[0]}", "",
                  "Paired by deal (the same first deal and lot), adjusted intervals:", ""]
        lines += mixed_tables.comparison_lines(rounds, lambda row: f"{row.players}p")
    leads = comparisons[comparisons["quantity"] == LEADS]
    if len(leads):
        lines += ["", "## Is the eventual winner ahead early? (against chance, 1/n)", "",
                  ("The share of finished matches whose eventual winner strictly leads the best "
                   "loser after the round, minus chance (1/n for n sides); a tie is no lead, so "
                   "chance of a strict lead is at most 1/n:"), ""]
        lines += mixed_tables.comparison_lines(leads, lambda row: f"{row.players}p")
    sample = _sample(settings)
    lines += ["", "## Figures", "",
              reports.figure_caption(
                  "rounds_per_match",
                  "the cumulative share of matches that ended within a number of rounds, per "
                  "strategy (self-play), one panel per player count", sample,
                  "No bars: every configuration's whole distribution (its mean with a t "
                  "interval is in the table above)", _longer(comparisons)), "",
              reports.figure_caption(
                  "score_paths",
                  "the eventual winner's and the losers' displayed score after each round: "
                  "mean, 10-90% band and the mean of the matches still in play; one row per "
                  "strategy, one column per player count", sample,
                  "Bands: the 10% and 90% quantiles of the paths (a description, not an "
                  "estimate)", _leads(comparisons, 1)), "",
              reports.figure_caption(
                  "score_gap",
                  "top: the eventual winner's mean lead over the best loser after each round "
                  "(displayed points); bottom: the share of matches whose eventual winner "
                  "already leads", sample,
                  "Bars: 95% intervals, the match as the unit (Student t for the lead, Wilson "
                  "for the share; dashed in the bottom row: chance, 1/n)",
                  _leads(comparisons, 1)), ""]
    return "\n".join(lines)


def _leads(comparisons: pd.DataFrame, after: int) -> str:
    """One sentence from the comparisons with chance (adjusted): after round ``after``, in how
    many configurations the eventual winner leads more often than chance (1/n)."""
    sel = comparisons[(comparisons["quantity"] == LEADS)
                      & comparisons["a"].str.endswith(f"after round {after}")]
    found = sel[sel["verdict"] == "finding"]
    above = int((found["difference"] > 0).sum())
    return (f"After round {after} the eventual winner already leads more often than chance "
            f"(1/n; adjusted interval above it) in {above} of {len(sel)} configurations, less "
            f"often in {len(found) - above}")
