"""Settlement value: what dominoes and blocked rounds are worth against placement scoring.

For every strategy (in self-play) and player count:

- ``domino_parts``: the domino event's parts, ``placement`` (the final
  tile's award), ``credit`` (round5 of the opponents' pips), ``debit``
  (round5 of the partner's pips, 4 players) and ``net`` (= the event's raw),
  over every domino event (accepted or not): mean with 95% interval
  clustered by match, quantiles, share zero, share negative; also ``blocked``
  (each blocked settlement event's credit);
- ``parts_hist``: their full distributions (value counts), for plots;
- ``blocked``: how often rounds end blocked (share of rounds, interval
  clustered by match) and what the blocked credits are;
- ``points``: accepted points per match by source and the share of all
  accepted points that comes from settlement, with a ratio-of-sums interval,
  both **net** of the partner debit (``settlement_share_net``: domino credit
  minus debit plus blocked credits) and **gross** (``settlement_share_gross``:
  domino credit plus blocked credits, before the debit; the same as net at 2
  and 3 players, where there is no debit), over the same accepted points; how
  many matches are won by a settlement event;
- ``partner_debit`` (4 players): how often the partner's hand costs the
  dominoing partnership, how much, how often it makes the net negative, and
  how often it changes the target test (an event that would have overshot
  without the debit is accepted with it, an exact 61 made or missed).

With mixed tables the figures are also given per strategy of each table (a strategy that fills
several seats of a deal counted once per deal), and ``comparisons`` holds the paired contrasts
``A - B`` of each table's strategies (settlement share net, gross at 4 players, accepted points
per entity per match), the deal as the unit, declared before the run (:func:`plan_for`) and
adjusted as families: a difference inside the smallest effect of interest reads "equivalent
within +-D", not as a finding.

Every interval of an event-level rate or mean (over dominoes, over blocked
events) is clustered by match (:func:`experiments.stats.clustered_proportion`,
:func:`experiments.stats.clustered_ratio`): the events of one match are not
independent. Points are raw (1 displayed = 5 raw).

Run ``five-up settlement --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import mixed_tables, stats
from experiments.comparisons import ComparisonPlan, Quantity, plan_sentence
from experiments.reporting import reports
from experiments.run_spine import run_study, traced_result
from experiments.settings import matches_clause, strong_sentence
from experiments.sources import pairs
from experiments.studies import study_plots
from core.tiles import TARGET_RAW, entity_count

NAME = "settlement"
DEFAULT_MATCHES = 10_000
"""Matches per configuration when none are given."""

SHARE_NET = "share_net"
SHARE_GROSS = "share_gross"
ACCEPTED = "accepted"
QUANTITIES = (
    Quantity(SHARE_NET, "settlement share of accepted points, net of the partner debit", 0.01,
             True, "1 pp of accepted points is about 3 raw of a winner's 305, less than one "
             "domino's credit: no player would notice it"),
    Quantity(SHARE_GROSS, "settlement share of accepted points, gross", 0.01, True,
             "as the net share: 1 pp of accepted points"),
    Quantity(ACCEPTED, "accepted raw points per entity per match", 5.0, False,
             "5 raw is one displayed point per match, the smallest score step a player sees"),
)
"""The quantities the mixed tables compare, each with its smallest effect of interest."""


def plan_for(settings: dict) -> ComparisonPlan:
    """The study's comparisons, declared from its settings before it plays.

    The self-play figures are descriptions (shares, parts, rates with their intervals), not
    comparisons. The mixed tables compare their strategies on the same deals: the settlement
    share net of the partner debit (gross too at 4 players, where the two differ) and the
    accepted points per entity per match. Primary (Holm): the net settlement share of the first
    table given, at each player count (in the committed run ``exact,greedy``: whether playing
    for an exact 61 changes where a strategy's points come from); the rest exploratory
    (Benjamini-Hochberg).
    """
    tables = mixed_tables.tables_of(settings)
    comparisons = mixed_tables.table_comparisons(settings, (SHARE_NET, SHARE_GROSS, ACCEPTED),
                                                 SHARE_NET, {SHARE_GROSS: (4,)})
    first = tables[0].label if tables else "none"
    return ComparisonPlan(NAME, QUANTITIES, tuple(comparisons), note=(
        f"Primary: the net settlement share A - B of the first mixed table ({first}) at each "
        "player count, paired by deal. Exploratory: the other tables, the gross share (4 "
        "players) and accepted points per entity per match."))


def run(*args, traces: dict | None = None, **options) -> reports.ExperimentResult:
    """Run the settlement study (arguments as :func:`experiments.studies.overshoot.run`: a
    :class:`experiments.run_spine.StudySpec`, or the keywords of
    :meth:`experiments.run_spine.StudySpec.build`; ``matches`` by default :data:`DEFAULT_MATCHES`).

    Returns
    -------
    ExperimentResult
        Frames ``domino_parts``, ``parts_hist``, ``blocked``, ``points`` and,
        when 4 players are studied, ``partner_debit``. With mixed ``tables``,
        ``domino_parts``, ``parts_hist`` and ``points`` also hold a row per
        (table, players, strategy): the strategy's own dominoes, blocked credits
        and accepted points; ``blocked`` and ``partner_debit`` stay self-play. With tables,
        ``comparisons``: the paired contrasts ``A - B`` of each table's strategies, adjusted
        as :func:`plan_for` declares them.
    """
    return run_study(NAME, DEFAULT_MATCHES, compute, args, options, traces, plan_for)


def compute(data, traces: dict | None = None) -> reports.ExperimentResult:
    """The study's result from a run's data or from given ``traces``, as
    :func:`experiments.studies.overshoot.compute` (with this study's :func:`analyse`)."""
    return traced_result(analyse, data, traces)


def analyse(traces: dict, settings: dict, tables=()) -> reports.ExperimentResult:
    """The settlement frames (:func:`run` lists them) from the self-play traces and the mixed
    tables' traces, given as to :func:`experiments.studies.overshoot.analyse`."""
    parts, hist, blocked, points, debit, contrasts = [], [], [], [], [], []
    for (strategy, players), trace in pairs(traces):
        _parts(trace.events, strategy, players, mixed_tables.SELF_PLAY, parts, hist)
        blocked.append(_blocked(trace, strategy, players))
        points.append(_points(trace, strategy, players))
        if players == 4:
            debit.append(_partner_debit(trace, strategy))
    for frame in points:
        frame["table"] = mixed_tables.SELF_PLAY
        n = entity_count(int(frame["players"].iloc[0]))
        frame["deals"] = frame["matches"]
        frame["entities_per_match"] = float(n)
        frame["accepted_raw_per_entity"] = frame["accepted_raw_per_match"] / n
        frame["wins"] = np.nan
    for (label, players), table in pairs(tables):
        trace = table.data
        names = mixed_tables.entity_names(table.rotations, trace.events["rotation"],
                                          trace.events["entity"])
        for strategy in mixed_tables.strategies_in(table.rotations):
            own = names == strategy
            _parts(trace.events[own], strategy, players, label, parts, hist)
            points.append(_table_points(trace, own, table.rotations, strategy, players, label))
            blocked.append(_blocked(trace, strategy, players, own, label))
            if players == 4:
                debit.append(_partner_debit(trace, strategy, own, label))
        contrasts += mixed_tables.table_contrasts(
            _per_deal(table), [(q, q) for q in CONTRASTS if players == 4 or q != SHARE_GROSS],
            label, players)
    frames = {
        "domino_parts": pd.concat(parts, ignore_index=True),
        "parts_hist": pd.concat(hist, ignore_index=True),
        "blocked": pd.concat(blocked, ignore_index=True),
        "points": pd.concat(points, ignore_index=True),
    }
    if debit:
        frames["partner_debit"] = pd.concat(debit, ignore_index=True)
    plan = plan_for(settings)
    if contrasts:
        frames["comparisons"] = mixed_tables.adjusted_comparisons(plan, contrasts)
    # the self-play figures, key numbers and sections are computed from the self-play rows only
    selfplay = mixed_tables.self_play_rows(frames)
    plots = {
        "domino_parts": lambda p: study_plots.plot_domino_parts(selfplay["domino_parts"], p,
                                                                settings),
        "point_sources": lambda p: study_plots.plot_point_sources(selfplay["points"], p,
                                                                  settings),
    }
    key = _key_numbers(selfplay)
    markdown = _markdown(settings, selfplay, key)
    if (frames["points"]["table"] != mixed_tables.SELF_PLAY).any():
        key.update(_table_key_numbers(frames["points"], frames["comparisons"]))
        rows = _head_to_head_rows(frames)
        # the gross share (4 players only) is in the summary: a row of one panel would leave
        # two blank
        plots["head_to_head"] = lambda p: study_plots.plot_contrasts(
            frames["comparisons"], p, settings, plan, (SHARE_NET, ACCEPTED))
        markdown = (_markdown(settings, selfplay, key) + _table_markdown(frames, rows, settings,
                                                                          plan))
    return reports.ExperimentResult(NAME, settings, frames, markdown, plots, key)


def _parts(ev: pd.DataFrame, strategy: str, players: int, label: str, parts: list,
           hist: list) -> None:
    """Append the ``domino_parts`` and ``parts_hist`` rows of the events ``ev`` (every entity's,
    or one strategy's in a mixed table, where ``match`` is the deal: intervals clustered by it)."""
    dominoes = ev[ev["kind"] == "domino"]
    blocked_events = ev[ev["kind"] == "blocked"]
    values = {
        "placement": dominoes["placement"].to_numpy(),
        "credit": dominoes["credit"].to_numpy(),
        "debit": dominoes["debit"].to_numpy(),
        "net": dominoes["raw"].to_numpy(),
        "blocked": blocked_events["raw"].to_numpy(),
    }
    for part, x in values.items():
        if part == "debit" and players != 4:
            continue
        source = blocked_events if part == "blocked" else dominoes
        row = _describe(x, source["match"].to_numpy(), strategy, players, part)
        row["table"] = label
        parts.append(row)
        counts = pd.Series(x).value_counts().sort_index()
        hist.append(pd.DataFrame({"strategy": strategy, "players": players, "part": part,
                                  "value": counts.index.astype("int64"),
                                  "count": counts.to_numpy().astype("int64"), "table": label}))


def _clustered_mean(x: np.ndarray, matches: np.ndarray) -> tuple[float, float, float]:
    """Mean of event values and its 95% interval clustered by match (nan when empty)."""
    if x.size == 0:
        return np.nan, np.nan, np.nan
    r = stats.clustered_ratio(x, 1.0, matches).iloc[0]
    return float(r["ratio"]), float(r["low"]), float(r["high"])


def _clustered_rate(mask: np.ndarray, matches: np.ndarray) -> tuple[float, float, float]:
    """Share of events where ``mask`` holds, 95% Wilson interval clustered by match."""
    if mask.size == 0:
        return np.nan, 0.0, 1.0
    r = stats.clustered_proportion(mask, matches).iloc[0]
    return float(r["rate"]), float(r["low"]), float(r["high"])


def _describe(x: np.ndarray, matches: np.ndarray, strategy: str, players: int,
              part: str) -> pd.DataFrame:
    mean, low, high = _clustered_mean(x, matches)
    q = np.quantile(x, [0.1, 0.25, 0.5, 0.75, 0.9]) if x.size else [np.nan] * 5
    return pd.DataFrame([{
        "strategy": strategy, "players": players, "part": part, "events": int(x.size),
        "mean": mean, "low": low, "high": high,
        "sd": float(x.std(ddof=1)) if x.size > 1 else np.nan,
        "p10": q[0], "p25": q[1], "median": q[2], "p75": q[3], "p90": q[4],
        "min": int(x.min()) if x.size else 0, "max": int(x.max()) if x.size else 0,
        "share_zero": float((x == 0).mean()) if x.size else np.nan,
        "share_negative": float((x < 0).mean()) if x.size else np.nan,
    }])


def _blocked(trace, strategy: str, players: int, own_events=None,
             label: str = mixed_tables.SELF_PLAY) -> pd.DataFrame:
    """One row of blocked-round figures. In a mixed table (``own_events`` marks the events of
    ``strategy``'s entities) the blocked share is the table's (every rotation, deals as the
    clusters) and the credits are the strategy's own events."""
    m = trace.matches
    ev = trace.events if own_events is None else trace.events[own_events]
    blocked_events = ev[ev["kind"] == "blocked"]
    # a share of rounds: Wilson at the effective size of rounds clustered by match (a table's
    # rotations of one deal are one cluster)
    share, low, high = _round_share(m["blocked_rounds"].to_numpy(), m["rounds"].to_numpy(),
                                    m["match"].to_numpy())
    if own_events is None:
        accepted_credit = float(m["blocked_credit"].sum())
    else:
        accepted_credit = float(blocked_events.loc[blocked_events["accepted"], "raw"].sum())
    credit_mean, credit_low, credit_high = _clustered_mean(blocked_events["raw"].to_numpy(),
                                                           blocked_events["match"].to_numpy())
    discarded = int((~blocked_events["accepted"]).sum())
    return pd.DataFrame([{
        "strategy": strategy, "players": players, "matches": len(m),
        "rounds": int(m["rounds"].sum()), "blocked_rounds": int(m["blocked_rounds"].sum()),
        "blocked_share": share, "blocked_share_low": low, "blocked_share_high": high,
        "blocked_rounds_per_match": float(m["blocked_rounds"].mean()),
        "blocked_events": len(blocked_events),
        "events_per_blocked_round": (len(blocked_events) / max(1, int(m["blocked_rounds"].sum()))),
        "credit_mean": credit_mean, "credit_low": credit_low, "credit_high": credit_high,
        "credit_median": float(blocked_events["raw"].median()) if len(blocked_events) else np.nan,
        "credit_max": int(blocked_events["raw"].max()) if len(blocked_events) else 0,
        "blocked_events_discarded": discarded,
        "accepted_credit_per_blocked_round": (accepted_credit
                                              / max(1, int(m["blocked_rounds"].sum()))),
        "table": label,
    }])


def _round_share(successes: np.ndarray, rounds: np.ndarray,
                 clusters: np.ndarray) -> tuple[float, float, float]:
    """The share of rounds that are successes (blocked) from per-match counts, with its 95% Wilson
    interval at the effective sample size of rounds clustered by ``clusters``
    (:func:`experiments.stats.clustered_proportion` over one 0/1 value per round).

    Parameters
    ----------
    successes, rounds : ndarray of int, shape (matches,)
        Per match: the rounds that are successes, and all its rounds.
    clusters : ndarray, shape (matches,)
        Each match's cluster (the match; in a table the deal).
    """
    rounds = np.asarray(rounds, dtype=np.int64)
    if rounds.sum() == 0:
        return np.nan, 0.0, 1.0
    starts = np.repeat(np.cumsum(rounds) - rounds, rounds)
    within = np.arange(int(rounds.sum())) - starts  # a round's index in its match
    hit = within < np.repeat(np.asarray(successes, dtype=np.int64), rounds)
    r = stats.clustered_proportion(hit, np.repeat(np.asarray(clusters), rounds)).iloc[0]
    return float(r["rate"]), float(r["low"]), float(r["high"])


def _points(trace, strategy: str, players: int) -> pd.DataFrame:
    m = trace.matches
    n_entities = entity_count(players)
    total = sum(m[f"score_{e}"].to_numpy(dtype=np.int64) for e in range(n_entities))
    settled = (m["domino_credit"] - m["domino_debit"] + m["blocked_credit"]).to_numpy()
    net = stats.ratio_ci(settled, total)
    # gross: before the partner debit, over the same accepted points (net + debit share)
    gross = stats.ratio_ci((m["domino_credit"] + m["blocked_credit"]).to_numpy(), total)
    shares = tuple(stats.ratio_ci(m[column], total)[0]
                   for column in ("domino_credit", "blocked_credit", "domino_debit"))
    # the match-winning event: the last accepted event of each finished match
    ev = trace.events
    last = ev[ev["accepted"]].groupby("match", sort=False).tail(1)
    finished = set(m.loc[m["winner"] >= 0, "match"])
    last = last[last["match"].isin(finished)]
    by_settlement = int((last["kind"] != "placement").sum())
    p = stats.proportion(by_settlement, len(last))
    parts = (m["placement_raw"], m["domino_credit"], m["domino_debit"], m["blocked_credit"])
    return pd.DataFrame([_points_row(strategy, players, len(m), total, parts, net, gross, shares,
                                     p)])


def _table_points(trace, own: np.ndarray, rotations, strategy: str, players: int,
                  label: str) -> pd.DataFrame:
    """:func:`_points` of one strategy in a mixed table: its entities' accepted events, per
    match (each rotation's match a row), with intervals clustered by deal (``match``)."""
    m = trace.matches
    ev = trace.events
    keep = ev["accepted"].to_numpy() & own
    mine = ev[keep]
    kind = mine["kind"].to_numpy()
    domino, blocked, placement = kind == "domino", kind == "blocked", kind == "placement"
    parts = pd.DataFrame({
        "rotation": mine["rotation"].to_numpy(), "match": mine["match"].to_numpy(),
        "total": mine["raw"].to_numpy(dtype=np.int64),
        # a domino's final tile counts as a placement, as in the engine's placement_raw
        "placement": np.where(placement, mine["raw"], 0) + np.where(domino, mine["placement"], 0),
        "credit": np.where(domino, mine["credit"], 0),
        "debit": np.where(domino, mine["debit"], 0),
        "blocked": np.where(blocked, mine["raw"], 0),
    })
    rows = pd.MultiIndex.from_arrays([m["rotation"].to_numpy(), m["match"].to_numpy()])
    per = parts.groupby(["rotation", "match"]).sum().reindex(rows, fill_value=0)
    deal = m["match"].to_numpy()
    total = per["total"].to_numpy(dtype=np.float64)
    settled = (per["credit"] - per["debit"] + per["blocked"]).to_numpy(dtype=np.float64)
    r = stats.clustered_ratio(settled, total, deal).iloc[0]
    g = stats.clustered_ratio((per["credit"] + per["blocked"]).to_numpy(dtype=np.float64), total,
                              deal).iloc[0]
    # the match-winning event (the last accepted event of a finished match) of the strategy's wins
    last = ev[ev["accepted"]].groupby(["rotation", "match"], sort=False).tail(1)
    last = last[own[last.index.to_numpy()]]
    finished = m.loc[m["winner"] >= 0, ["rotation", "match"]]
    last = last.merge(finished, on=["rotation", "match"])
    p = stats.clustered_proportion((last["kind"] != "placement").to_numpy(),
                                   last["match"].to_numpy())
    p = p.iloc[0] if len(p) else {"rate": np.nan, "low": np.nan, "high": np.nan}
    entities = float(np.mean([sum(name == strategy for name in pairing.entity_strategies)
                              for pairing in rotations]))
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = tuple(float(per[column].to_numpy().sum() / total.sum())
                       for column in ("credit", "blocked", "debit"))
        row = _points_row(strategy, players, len(m), total,
                          (per["placement"], per["credit"], per["debit"], per["blocked"]),
                          (r["ratio"], r["low"], r["high"]), (g["ratio"], g["low"], g["high"]),
                          shares, p, clusters=deal)
        return pd.DataFrame([{
            **row, "table": label, "deals": int(m["match"].nunique()),
            "entities_per_match": entities,
            "accepted_raw_per_entity": float(total.mean()) / entities, "wins": len(last),
        }])


def _points_row(strategy: str, players: int, matches: int, total: np.ndarray, parts: tuple,
                net: tuple, gross: tuple, shares: tuple, won, clusters=None) -> dict:
    """The figures of a ``points`` row: the accepted raw points per match (``total``) and its
    parts per match (``parts``: placements, domino credit, domino debit, blocked credit), the
    settlement share net and gross (each ``(share, low, high)``), the credit, blocked credit and
    debit shares of all accepted points (``shares``) and the matches won by a settlement event
    (``won``: its ``rate``, ``low``, ``high``). Each per-match mean has its 95% t interval
    (``*_low``, ``*_high``): the match as the unit, or the given ``clusters`` (a table's deals)."""
    placement, credit, debit, blocked = parts
    row = {"strategy": strategy, "players": players, "matches": matches}
    for name, values in (("accepted_raw", total), ("placement_raw", placement),
                         ("domino_credit", credit), ("domino_debit", debit),
                         ("blocked_credit", blocked)):
        x = np.asarray(values, dtype=np.float64)
        mean, low, high = (stats.mean_interval(x) if clusters is None
                           else stats.clustered_mean(x, clusters))
        row[f"{name}_per_match"] = float(x.mean())
        row[f"{name}_per_match_low"], row[f"{name}_per_match_high"] = low, high
    return {
        **row,
        "settlement_share_net": float(net[0]), "settlement_share_net_low": float(net[1]),
        "settlement_share_net_high": float(net[2]), "settlement_share_gross": float(gross[0]),
        "settlement_share_gross_low": float(gross[1]),
        "settlement_share_gross_high": float(gross[2]),
        "domino_credit_share": shares[0], "blocked_credit_share": shares[1],
        "domino_debit_share": shares[2],
        "won_by_settlement": float(won["rate"]), "won_by_settlement_low": float(won["low"]),
        "won_by_settlement_high": float(won["high"]),
    }


CONTRASTS = (SHARE_NET, SHARE_GROSS, ACCEPTED)
"""The head-to-head contrasts (per-deal columns of :func:`_per_deal`, plan quantities)."""


def _per_deal(table) -> dict:
    """Per quantity of :data:`CONTRASTS`, one mixed table's values per deal and strategy
    (:func:`experiments.mixed_tables.per_deal_means`: a strategy's seats and the deal's rotations
    counted once per deal). A share is the deal's ratio of sums (settled over accepted points of
    the strategy's entities in every rotation of the deal)."""
    trace = table.data
    m, ev = trace.matches, trace.events
    n = entity_count(table.players)
    rotation = np.repeat(m["rotation"].to_numpy(), n)
    deal = np.repeat(m["match"].to_numpy(), n)
    entity = np.tile(np.arange(n), len(m))
    # one row per (rotation, match, entity), row-major as the score columns
    total = m[[f"score_{e}" for e in range(n)]].to_numpy(dtype=np.float64).ravel()
    net = m[[f"settlement_raw_{e}" for e in range(n)]].to_numpy(dtype=np.float64).ravel()
    dominoes = ev[ev["accepted"] & (ev["kind"] == "domino")]
    debit = (dominoes.groupby(["rotation", "match", "entity"])["debit"].sum()
             .reindex(pd.MultiIndex.from_arrays([rotation, deal, entity]), fill_value=0)
             .to_numpy(dtype=np.float64))
    names = mixed_tables.entity_names(table.rotations, rotation, entity)
    accepted = mixed_tables.per_deal_means(total, deal, names)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = {name: (mixed_tables.per_deal_means(values, deal, names)
                         / accepted.where(accepted > 0))
                  for name, values in (("share_net", net), ("share_gross", net + debit))}
    return {**shares, "accepted": accepted}


def _head_to_head_rows(frames: dict) -> pd.DataFrame:
    """``points`` with the ``net`` domino part's mean and interval (``net_mean``, ..) beside."""
    parts = frames["domino_parts"]
    net = parts[parts["part"] == "net"][["table", "strategy", "players", "mean", "low", "high"]]
    net = net.rename(columns={"mean": "net_mean", "low": "net_low", "high": "net_high"})
    return frames["points"].merge(net, on=["table", "strategy", "players"], how="left")


def _table_key_numbers(points: pd.DataFrame, comparisons: pd.DataFrame) -> dict:
    key = {}
    for row in points[points["table"] != mixed_tables.SELF_PLAY].itertuples(index=False):
        tag = f"{row.table}, {row.players}p: {row.strategy}"
        key[f"{tag}: settlement share of its accepted points, net of the partner debit"] = (
            reports.fmt_ci(row.settlement_share_net, row.settlement_share_net_low,
                           row.settlement_share_net_high, pct=True))
        key[f"{tag}: settlement share of its accepted points, gross"] = reports.fmt_ci(
            row.settlement_share_gross, row.settlement_share_gross_low,
            row.settlement_share_gross_high, pct=True)
        key[f"{tag}: accepted raw points per entity per match"] = (
            f"{row.accepted_raw_per_entity:.1f}")
    key.update(mixed_tables.comparison_key_numbers(comparisons, mixed_tables.table_label))
    return key


def _table_markdown(frames: dict, rows: pd.DataFrame, settings: dict,
                    plan: ComparisonPlan) -> str:
    """The head-to-head section: the paired contrasts, then one table per mixed table, per
    strategy, beside its self-play."""
    mixed = rows[rows["table"] != mixed_tables.SELF_PLAY]
    own = rows[rows["table"] == mixed_tables.SELF_PLAY].set_index(["strategy", "players"])
    contrasts = frames["comparisons"]
    lines = ["", "## Head to head (mixed tables)", "",
             ("Each table is played in every rotation of its strategies over the entities "
              "(every strategy at every seat) on the same deals (duplicate deals). Every figure "
              "is the strategy's own, from its entities' accepted events in these matches; "
              "intervals take the deal as the cluster, and a strategy that fills several seats "
              "of a deal (two of three at 3 players) is counted once per deal."), "",
             "### Paired contrasts A - B (deal = unit)", "", plan_sentence(plan, contrasts), "",
             plan.note, "",
             mixed_tables.ADJUSTED_NOTE + (" A share is the deal's ratio of sums over the "
                                           "strategy's seats and rotations."), "",
             *mixed_tables.comparison_lines(contrasts)]
    lines += ["", ("Units: `accepted raw / entity-match` = "
              "raw points accepted per match per entity of the strategy (1 displayed = 5 raw; "
              "a finished match's winner has 305); `share net` = share of those points "
              "from settlement net of the partner debit (domino credit - partner debit + blocked "
              "credit; ratio of sums), `share gross` = before the debit (domino credit + blocked "
              "credit, over the same points; equal to net at 2 and 3 players); "
              "`net / domino` = raw points per domino event of the strategy (every domino, "
              "accepted or not); `won by settlement` = share of the strategy's wins whose "
              "winning event was a settlement. `self-play net` = the strategy's net settlement "
              "share in self-play, for comparison."), ""]
    lines += mixed_tables.table_sections(mixed, lambda row: _table_row(row, own), 1)
    blocked = frames["blocked"]
    blocked = blocked[blocked["table"] != mixed_tables.SELF_PLAY]
    lines += ["### Blocked rounds", "",
              ("`blocked share` = the table's blocked rounds per round (deals as clusters); "
               "the credits are the strategy's own blocked events (raw points)."), "",
              reports.md_table(blocked[["table", "players", "strategy", "blocked_share",
                                        "blocked_share_low", "blocked_share_high", "blocked_events",
                                        "credit_mean", "credit_low", "credit_high",
                                        "blocked_events_discarded"]], 3), ""]
    if "partner_debit" in frames:
        debit = frames["partner_debit"]
        debit = debit[debit["table"] != mixed_tables.SELF_PLAY]
        lines += ["### Partner debit (4 players)", "",
                  "The strategy's partnership's dominoes (raw points; intervals by deal).", "",
                  reports.md_table(debit[["table", "strategy", "dominoes", "with_debit_rate",
                                          "debit_mean", "debit_low", "debit_high",
                                          "net_negative_rate", "rescued_from_overshoot_rate",
                                          "debit_per_match"]], 3), ""]
    lines += [mixed_tables.comparisons_caption(
        contrasts, "settlement share net of the partner debit, gross (4 players), accepted raw "
        "points per entity per match", settings, SHARE_NET, "the net settlement share"), ""]
    return "\n".join(lines)


def _table_row(row, own: pd.DataFrame) -> dict:
    """A strategy's row of its mixed table's markdown table, beside its self-play (``own``: the
    self-play rows by strategy and players)."""
    key = (row.strategy, row.players)
    return {
        "players": row.players, "strategy": row.strategy,
        "entities / match": row.entities_per_match, "matches": row.matches,
        "accepted raw / entity-match": row.accepted_raw_per_entity,
        "share net": reports.fmt_ci(row.settlement_share_net, row.settlement_share_net_low,
                                    row.settlement_share_net_high, pct=True),
        "share gross": reports.fmt_ci(row.settlement_share_gross, row.settlement_share_gross_low,
                                      row.settlement_share_gross_high, pct=True),
        "net / domino": reports.fmt_ci(row.net_mean, row.net_low, row.net_high, 1),
        "won by settlement": reports.fmt_ci(row.won_by_settlement, row.won_by_settlement_low,
                                            row.won_by_settlement_high, pct=True),
        "self-play net": (f"{100 * own.loc[key, 'settlement_share_net']:.1f}%"
                          if key in own.index else ""),
    }


def _partner_debit(trace, strategy: str, own_events=None,
                   label: str = mixed_tables.SELF_PLAY) -> pd.DataFrame:
    """One row of partner-debit figures (4 players) from the domino events of every entity, or
    (a mixed table) of ``strategy``'s partnership only (``own_events``)."""
    ev = trace.events if own_events is None else trace.events[own_events]
    d = ev[ev["kind"] == "domino"]
    before = d["score_before"].to_numpy(dtype=np.int64)
    placement = d["placement"].to_numpy(dtype=np.int64)
    credit = d["credit"].to_numpy(dtype=np.int64)
    debit = d["debit"].to_numpy(dtype=np.int64)
    net = d["raw"].to_numpy(dtype=np.int64)
    gross = placement + credit
    n = len(d)
    matches = d["match"].to_numpy()
    with_debit = debit > 0
    rescued = (before + gross > TARGET_RAW) & (before + net <= TARGET_RAW)
    exact_made = (before + net == TARGET_RAW) & (before + gross != TARGET_RAW)
    exact_lost = (before + gross == TARGET_RAW) & (before + net != TARGET_RAW)
    row = {"strategy": strategy, "players": 4, "dominoes": n}
    for name, mask in (("with_debit", with_debit), ("net_negative", net < 0),
                        ("net_nonpositive", net <= 0), ("debit_exceeds_credit", debit > credit),
                        ("rescued_from_overshoot", rescued), ("exact_61_made", exact_made),
                        ("exact_61_missed", exact_lost)):
        row[f"{name}"] = int(mask.sum())
        row[f"{name}_rate"], row[f"{name}_low"], row[f"{name}_high"] = _clustered_rate(
            mask, matches)
    for name, x in (("debit", debit), ("credit", credit), ("net", net), ("gross", gross)):
        mean, low, high = _clustered_mean(x, matches)
        row[f"{name}_mean"], row[f"{name}_low"], row[f"{name}_high"] = mean, low, high
    row["debit_per_credit"] = float(debit.sum() / max(1, credit.sum()))
    m = trace.matches
    # self-play: every partnership's debits; a table: the strategy's own, over all its matches
    row["debit_per_match"] = (float(m["domino_debit"].mean()) if own_events is None
                              else float(debit.sum() / max(1, len(m))))
    row["table"] = label
    return pd.DataFrame([row])


def _key_numbers(frames: dict) -> dict:
    key = {}
    for tag, row, sel in reports.configurations(frames["points"], frames["domino_parts"]):
        net = sel[sel.part == "net"].iloc[0]
        credit = sel[sel.part == "credit"].iloc[0]
        key[f"{tag}: settlement share of accepted points, net of the partner debit"] = (
            reports.fmt_ci(row.settlement_share_net, row.settlement_share_net_low,
                           row.settlement_share_net_high, pct=True))
        key[f"{tag}: settlement share of accepted points, gross (before the partner debit)"] = (
            reports.fmt_ci(row.settlement_share_gross, row.settlement_share_gross_low,
                           row.settlement_share_gross_high, pct=True))
        key[f"{tag}: domino credit / net (raw, mean)"] = (
            f"{credit['mean']:.2f} / {reports.fmt_ci(net['mean'], net['low'], net['high'], 2)}")
        blocked = frames["blocked"]
        b = blocked[(blocked.strategy == row.strategy) & (blocked.players == row.players)].iloc[0]
        key[f"{tag}: blocked rounds"] = reports.fmt_ci(b.blocked_share, b.blocked_share_low,
                                                       b.blocked_share_high, pct=True, digits=4)
        key[f"{tag}: matches won by a settlement event"] = reports.fmt_ci(
            row.won_by_settlement, row.won_by_settlement_low, row.won_by_settlement_high,
            pct=True)
    if "partner_debit" in frames:
        for row in frames["partner_debit"].itertuples(index=False):
            tag = f"{row.strategy}, 4p"
            key[f"{tag}: dominoes with a partner debit"] = reports.fmt_ci(
                row.with_debit_rate, row.with_debit_low, row.with_debit_high, pct=True)
            key[f"{tag}: mean debit / credit (raw)"] = (f"{row.debit_mean:.1f} / "
                                                         f"{row.credit_mean:.1f}")
            key[f"{tag}: dominoes with a negative net"] = reports.fmt_ci(
                row.net_negative_rate, row.net_negative_low, row.net_negative_high, pct=True)
            key[f"{tag}: dominoes rescued from overshoot by the debit"] = reports.fmt_ci(
                row.rescued_from_overshoot_rate, row.rescued_from_overshoot_low,
                row.rescued_from_overshoot_high, pct=True)
    return key


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    s = settings
    lines = reports.summary_head(
        "Settlement value", s,
        strong_sentence(s) +
        "Raw points (1 displayed = 5 raw; 61 displayed = 305 raw); 95% intervals. The settlement "
        "share of accepted points is given **net** of the partner debit (domino credit - partner "
        "debit + blocked credit) and **gross** (domino credit + blocked credit, before the debit), "
        "both over the same accepted points; they differ at 4 players only. Intervals of "
        "rates and means over events (dominoes, blocked events) are match-clustered: the events "
        "of one match are not independent (Wilson at the clustered effective sample size for "
        "rates, delta method over per-match totals for means).") + [
        "",
        "## Key numbers",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    parts = frames["domino_parts"]
    lines += ["", "## The domino event's parts (every domino event) and blocked credits", "",
              reports.md_table(parts[["strategy", "players", "part", "events", "mean", "low",
                                      "high", "median", "p90", "max", "share_zero",
                                      "share_negative"]], 2),
              "", ("Units: `mean` .. `max` are raw points per event; `events` counts events; "
              "`share_*` are shares of events; `low`, `high` = match-clustered 95% interval of "
              "the mean.")]
    points = frames["points"]
    lines += ["", "## Where accepted points come from (per match, all entities, raw)", "",
              reports.md_table(points[["strategy", "players", "accepted_raw_per_match",
                                       "placement_raw_per_match", "domino_credit_per_match",
                                       "domino_debit_per_match", "blocked_credit_per_match",
                                       "settlement_share_net", "settlement_share_gross",
                                       "won_by_settlement"]], 3),
              "", ("Units: `*_per_match` = raw points per match, summed over all entities "
              "(accepted events only; accepted = placement + domino credit - partner debit + "
              "blocked credit); `settlement_share_net` = share of accepted points from settlement "
              "net of the partner debit, `settlement_share_gross` = before the debit (ratios of "
              "sums over matches; equal at 2 and 3 players); `won_by_settlement` = share of "
              "finished matches.")]
    blocked = frames["blocked"]
    lines += ["", "## Blocked rounds", "",
              reports.md_table(blocked[["strategy", "players", "rounds", "blocked_rounds",
                                        "blocked_share", "blocked_share_low", "blocked_share_high",
                                        "events_per_blocked_round", "credit_mean", "credit_median",
                                        "credit_max"]], 4),
              "", ("Units: `rounds`, `blocked_rounds` count rounds; `blocked_share` = share of "
              "rounds (interval clustered by match); `events_per_blocked_round` = blocked "
              "settlement events per blocked round; `credit_*` = raw points per blocked event.")]
    if "partner_debit" in frames:
        d = frames["partner_debit"]
        lines += ["", "## The partner debit (4 players)", "",
                  ("`rescued` = the event's placement + credit would have passed 61 but the "
                  "net did not, so the debit let it be accepted; `exact made` / `exact missed` = "
                  "the debit made / spoiled an exact 61."), "",
                  reports.md_table(d[["strategy", "dominoes", "with_debit_rate", "debit_mean",
                                      "credit_mean", "net_mean", "net_negative_rate",
                                      "net_nonpositive_rate", "rescued_from_overshoot_rate",
                                      "exact_61_made_rate", "exact_61_missed_rate"]], 4),
                  "", ("Units: `*_rate` = share of domino events (interval columns in "
                  "`partner_debit.csv`, match-clustered); `*_mean` = raw points per domino event.")]
    lines += ["", "## Figures", "",
              reports.figure_caption(
                  "point_sources", "Accepted displayed points per match by source (placements, "
                  "domino credit, blocked credit stacked; the partner debit below zero), per "
                  "strategy in self-play and player count, labelled with the accepted total and "
                  "the settlement share of it (4 players: net and gross)",
                  f"{matches_clause(s)}, seed {s['seed']}",
                  "No bars: means per match (the settlement shares' 95% intervals are in points.csv)",
                  _share_finding(points)),
              "",
              reports.figure_caption(
                  "domino_parts", "The domino event's parts (final placement, credit, partner "
                  "debit, net) and the blocked credit in raw points per event, per strategy in "
                  "self-play and player count, side by side",
                  f"{matches_clause(s)}, seed {s['seed']}",
                  "Markers: means with match-clustered 95% intervals; thick bars: 25th-75th "
                  "percentiles; thin lines: 10th-90th percentiles", _net_finding(parts)),
              ""]
    return "\n".join(lines)



def _share_finding(points: pd.DataFrame) -> str:
    """The point-sources plot's finding: the range of the net and gross settlement shares."""
    parts = []
    for players, sel in points.groupby("players", sort=True):
        net, gross = sel["settlement_share_net"], sel["settlement_share_gross"]
        text = f"{players}p {100 * net.min():.1f}-{100 * net.max():.1f}% net"
        if players == 4:
            text += f", {100 * gross.min():.1f}-{100 * gross.max():.1f}% gross"
        parts.append(text)
    return "Settlement's share of accepted points across strategies: " + "; ".join(parts)


def _net_finding(parts: pd.DataFrame) -> str:
    """The domino-parts plot's finding: the mean net per domino event, per player count."""
    net = parts[parts["part"] == "net"]
    return "The mean net of a domino event across strategies: " + "; ".join(
        f"{players}p {sel['mean'].min():.1f}-{sel['mean'].max():.1f} raw"
        for players, sel in net.groupby("players", sort=True))
