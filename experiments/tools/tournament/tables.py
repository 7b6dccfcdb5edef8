"""A tournament's tables: summary, pairwise matrix, ranking, and the paired duplicate-deal rates.

One builder, :func:`tournament_tables`, makes the summary, pairwise and
ranking tables from per-seating integer sums
(:func:`experiments.tools.tournament.seating_shards.seating_aggregate`), whether those come
from a summary-only run's shards or from a full run's match frame: the two
kinds of run give the same tables by construction. The match-level views
(:func:`entity_frame`, :func:`paired_win_rates`, :func:`interval_widths`) need the match rows, and with them the deal of a duplicate tournament is the unit of every
interval (:func:`unit_keys`): the deal-clustered ranking (:func:`match_ranking`), the pairwise
shares (:func:`pairwise_intervals`) and the contrasts of the summary
(:func:`head_to_head_contrast`). A summary-only run keeps no match rows: its intervals treat
the matches as independent (the unit of a tournament without duplicate deals).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.seatings import pairings
from experiments.stats import (
    Contrast,
    LuceFit,
    clustered_luce,
    luce_ranking,
    paired_contrast,
    paired_proportion,
    wilson_interval,
)


def tournament_tables(aggregate: dict, players: int,
                      names: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``summary, pairwise, ranking`` from the merged per-seating aggregate of a tournament.

    Parameters
    ----------
    aggregate : dict
        :func:`experiments.tools.tournament.seating_shards.seating_aggregate` of every
        seating, merged (a summary-only run's, or
        :func:`~experiments.tools.tournament.seating_shards.frame_aggregate` of a full run's
        match frame).
    players : int
        The table size (the seatings are :func:`~experiments.seatings.pairings`).
    names : list of str
        The field, in the tables' order.

    Returns
    -------
    summary : DataFrame
        Per strategy: ``strategy, matches, wins, win_rate, win_low, win_high``
        (95% Wilson), ``unfinished``, ``mean_margin`` (final raw score minus the
        best opposing one, raw points), ``discarded_per_match`` (overshoot
        discards, events per match), ``settlement_per_match`` (accepted
        settlement, raw points per match).
    pairwise : DataFrame
        Row strategy's share of the wins among matches won by either of the
        two (with two entities: the head-to-head win rate, unfinished
        matches left out).
    ranking : DataFrame
        Bradley-Terry (Luce's choice model for three entities) log-strengths
        with 95% intervals, strongest first.
    """
    names = list(names)
    seatings = pairings(players, names)
    per = aggregate["pairing"]
    fields = ("matches", "wins", "unfinished", "margin", "discarded", "settlement")
    totals = {name: dict.fromkeys(fields, 0) for name in names}
    for pairing in seatings:
        data = per[str(pairing.pairing)]
        winner = {int(k): v for k, v in data["winner"].items()}
        for e, name in enumerate(pairing.entity_strategies):
            t = totals[name]
            t["matches"] += data["matches"]
            t["wins"] += winner.get(e, 0)
            t["unfinished"] += winner.get(-1, 0)
            t["margin"] += data["margin"][e]
            t["discarded"] += data["discarded"][e]
            t["settlement"] += data["settlement"][e]
    index = pd.Index(names, name="strategy")
    table = pd.DataFrame({
        "matches": [totals[n]["matches"] for n in names],
        "wins": [totals[n]["wins"] for n in names],
        "unfinished": [totals[n]["unfinished"] for n in names],
        "mean_margin": [totals[n]["margin"] / totals[n]["matches"] for n in names],
        "discarded_per_match": [totals[n]["discarded"] / totals[n]["matches"] for n in names],
        "settlement_per_match": [totals[n]["settlement"] / totals[n]["matches"] for n in names],
    }, index=index)
    low, high = wilson_interval(table["wins"].to_numpy(), table["matches"].to_numpy())
    table.insert(2, "win_rate", table["wins"] / table["matches"])
    table.insert(3, "win_low", low)
    table.insert(4, "win_high", high)
    table = table.reset_index()
    summary = table.astype({"matches": "int64", "wins": "int64", "unfinished": "int64"})

    # Pairwise: row strategy's share of the wins among matches won by either.
    grid = pd.DataFrame(np.nan, index=pd.Index(names, name="strategy"), columns=names)
    for a in names:
        for b in names:
            if a == b:
                continue
            wins_a = wins_b = 0
            for pairing in seatings:
                present = pairing.entity_strategies
                if a not in present or b not in present:
                    continue
                winner = per[str(pairing.pairing)]["winner"]
                for e, name in enumerate(present):
                    if name == a:
                        wins_a += winner.get(str(e), 0)
                    elif name == b:
                        wins_b += winner.get(str(e), 0)
            if wins_a + wins_b:
                grid.loc[a, b] = wins_a / (wins_a + wins_b)

    # Ranking: one weighted row per (seating, winning entity).
    ids = {name: i for i, name in enumerate(names)}
    participants, winners, weights = [], [], []
    for pairing in seatings:
        row = [ids[n] for n in pairing.entity_strategies]
        for key, count in sorted(per[str(pairing.pairing)]["winner"].items(), key=lambda kv: int(kv[0])):
            e = int(key)
            if e >= 0 and count:
                participants.append(row)
                winners.append(row[e])
                weights.append(count)
    log_s, low, high = luce_ranking(np.array(participants, dtype=np.int64).reshape(-1, len(row)),
                                    np.array(winners, dtype=np.int64), len(names),
                                    weights=np.array(weights, dtype=np.float64))
    ranking = pd.DataFrame({"strategy": names, "log_strength": log_s, "low": low, "high": high})
    ranking = ranking.sort_values("log_strength", ascending=False, kind="stable")
    ranking.insert(0, "rank", np.arange(1, len(names) + 1))
    return summary, grid, ranking.reset_index(drop=True)


SUMMARY_INTERVALS = {"deal-clustered": "95% Wilson at the deal-clustered effective number of "
                                       "matches (deal = unit)",
                     "wilson": "95% Wilson, matches independent"}
"""The summary's ``interval`` column: what its ``win_low`` and ``win_high`` are."""


def by_design(summary: pd.DataFrame, paired: pd.DataFrame | None) -> pd.DataFrame:
    """The summary with each win rate's interval by the design's unit: with duplicate deals and
    match rows the deal-clustered one (``paired``: :func:`paired_win_rates`), the Wilson one
    kept beside it as ``wilson_low``, ``wilson_high``; otherwise Wilson's (the match is the
    unit, or a summary-only run keeps no deals). The column ``interval`` names it."""
    out = summary.copy()
    wilson = out[["win_low", "win_high"]].to_numpy()
    if paired is not None:
        bounds = paired.set_index("strategy").loc[out["strategy"], ["paired_low", "paired_high"]]
        out["win_low"], out["win_high"] = bounds["paired_low"].to_numpy(), \
            bounds["paired_high"].to_numpy()
    at = out.columns.get_loc("win_high") + 1
    out.insert(at, "interval", "deal-clustered" if paired is not None else "wilson")
    if paired is not None:
        out.insert(at + 1, "wilson_low", wilson[:, 0])
        out.insert(at + 2, "wilson_high", wilson[:, 1])
    return out


def entity_frame(matches: pd.DataFrame) -> pd.DataFrame:
    """One row per (match, entity): strategy, won, final score, margin, discards, settlement."""
    score_cols = sorted(c for c in matches.columns if c.startswith("score_"))
    n_entities = len(score_cols)
    scores = matches[score_cols].to_numpy()
    parts = []
    for e in range(n_entities):
        others = np.delete(scores, e, axis=1).max(axis=1)
        parts.append(pd.DataFrame({
            "pairing": matches["pairing"].to_numpy(),
            **({"group": matches["group"].to_numpy()} if "group" in matches.columns else {}),
            "match": matches["match"].to_numpy(),
            "entity": e,
            "strategy": matches[f"entity_strategy_{e}"].to_numpy(),
            "won": (matches["winner"] == e).to_numpy(),
            "finished": (matches["winner"] >= 0).to_numpy(),
            "score": scores[:, e],
            "margin": scores[:, e] - others,
            "discarded": matches[f"events_discarded_{e}"].to_numpy(),
            "settlement": matches[f"settlement_raw_{e}"].to_numpy(),
        }))
    return pd.concat(parts, ignore_index=True)


def paired_win_rates(entities: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """Win rates with deals as clusters: the interval of a duplicate tournament.

    In a duplicate tournament match ``i`` of every seating of a group is the
    same deal, so the outcomes of one deal are not independent. Each strategy's
    rate is its wins over its matches, with the 95% Wilson interval at the
    deal-clustered effective number of matches, the deals stratified by seating group (its
    opponents: fixed by the design, so their differences are not chance;
    :func:`experiments.stats.paired_proportion`:
    inside [0, 1], narrower than the independent-matches Wilson interval when the deal's
    seatings mirror each other, never zero-width); the independent-matches Wilson interval
    beside it.

    Parameters
    ----------
    entities : DataFrame
        :func:`entity_frame` of a duplicate tournament (needs ``group``).
    names : list of str

    Returns
    -------
    DataFrame
        ``strategy``, ``deals`` (int64), ``win_rate``, ``paired_low``, ``paired_high``,
        ``design_effect`` (matches over effective matches: below 1 when pairing helps),
        ``wilson_low``, ``wilson_high`` (float64).
    """
    rows = []
    for name in names:
        own = entities[entities["strategy"] == name]
        # each seating group is one opponent (set): its own expected rate, not chance
        fit = paired_proportion(own["won"].to_numpy(), unit_keys(own, True),
                                strata=own["group"].to_numpy()).iloc[0]
        low, high = wilson_interval(int(own["won"].sum()), len(own))
        rows.append({"strategy": name, "deals": int(fit.clusters), "win_rate": fit.rate,
                     "paired_low": fit.low, "paired_high": fit.high,
                     "design_effect": fit.design_effect, "wilson_low": float(low),
                     "wilson_high": float(high)})
    return pd.DataFrame(rows).astype({"deals": "int64"})


def unit_keys(frame: pd.DataFrame, duplicate: bool) -> np.ndarray:
    """The unit of each row (of :func:`entity_frame` or a match frame): its deal, ``(group,
    match)``, with duplicate deals (every seating of a group replays deal ``match``), otherwise
    its match, ``(pairing, match)``.

    Returns
    -------
    ndarray of int64, shape (rows,)
        One code per unit (equal rows, equal codes).
    """
    outer = frame["group" if duplicate else "pairing"].to_numpy(dtype=np.int64)
    match = frame["match"].to_numpy(dtype=np.int64)
    return outer * (int(match.max()) + 1 if len(match) else 1) + match


def match_ranking(matches: pd.DataFrame, names: list[str], duplicate: bool) -> tuple[pd.DataFrame,
                                                                                     LuceFit]:
    """The Bradley-Terry/Luce ranking of a tournament's match rows with its interval by the
    design's unit: with duplicate deals a cluster-robust (sandwich) covariance with the deal as
    cluster (:func:`experiments.stats.clustered_luce`), otherwise the information of independent
    matches (:func:`experiments.stats.luce_ranking`'s).

    Returns
    -------
    ranking : DataFrame
        ``rank, strategy, log_strength, low, high``, strongest first (as
        :func:`tournament_tables`).
    fit : LuceFit
        In the field's order (``names``), with the covariance for differences.
    """
    ids = {name: i for i, name in enumerate(names)}
    columns = sorted((c for c in matches.columns if c.startswith("entity_strategy_")),
                     key=lambda c: int(c.rsplit("_", 1)[1]))
    participants = np.column_stack([matches[c].map(ids).to_numpy(dtype=np.int64)
                                    for c in columns])
    winner = matches["winner"].to_numpy(dtype=np.int64)
    winners = np.where(winner >= 0,
                       participants[np.arange(len(matches)), np.maximum(winner, 0)], -1)
    fit = clustered_luce(participants, winners, len(names), unit_keys(matches, duplicate),
                         robust=duplicate)
    rank_low, rank_high = luce_rank_intervals(fit)
    ranking = pd.DataFrame({"strategy": names, "log_strength": fit.log_strength,
                            "low": fit.low, "high": fit.high, "rank_low": rank_low,
                            "rank_high": rank_high})
    ranking = ranking.sort_values("log_strength", ascending=False, kind="stable")
    ranking.insert(0, "rank", np.arange(1, len(names) + 1))
    return ranking.reset_index(drop=True), fit


RANK_DRAWS = 20000
"""Normal draws behind the simultaneous rank intervals' critical value."""
RANK_SEED = 0x5EED_8A4C
"""Their generator's seed (fixed: the same fit gives the same intervals)."""


def luce_rank_intervals(fit: LuceFit, alpha: float = 0.05, draws: int = RANK_DRAWS,
                        seed: int = RANK_SEED) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous ``1 - alpha`` rank intervals from a Luce fit (rank 1 = strongest).

    Every pair's log-strength difference is compared at once against the critical value ``c``:
    the ``1 - alpha`` quantile of ``max_{i<j} |Z_i - Z_j| / se_ij`` over ``Z ~ N(0, cov)``
    (the fit's covariance, deal-clustered with duplicate deals; a max-t procedure, as
    :func:`experiments.comparisons.simultaneous_ranks` with a parametric null). Strategy ``i``'s
    interval is ``[1 + #{j above i by more than c se}, k - #{j below i by more than c se}]``;
    all hold the true ranks together with probability about ``1 - alpha``, so a "best"
    strategy (``[1, 1]``) survives the selection among the whole field.

    Returns
    -------
    rank_low, rank_high : ndarray of int64, shape (k,)
        In the field's order; a strategy with an unbounded strength (never or always won) is
        resolved against every finite one by its sign.
    """
    k = len(fit.log_strength)
    finite = np.isfinite(fit.log_strength)
    idx = np.flatnonzero(finite)
    s = np.where(finite, fit.log_strength, 0.0)
    var = np.diag(fit.cov)[:, None] + np.diag(fit.cov)[None, :] - 2 * fit.cov
    with np.errstate(invalid="ignore"):
        se = np.sqrt(np.clip(var, 0.0, None))
    critical = np.inf
    if idx.size >= 2:
        cov = np.nan_to_num(fit.cov[np.ix_(idx, idx)])
        values, vectors = np.linalg.eigh((cov + cov.T) / 2)
        root = vectors * np.sqrt(np.clip(values, 0.0, None))
        z = np.random.default_rng(seed).standard_normal((draws, idx.size)) @ root.T
        sub = se[np.ix_(idx, idx)]
        upper = np.triu(np.ones_like(sub, dtype=bool), 1) & (sub > 0)
        i, j = np.nonzero(upper)
        largest = np.abs(z[:, i] - z[:, j]) / sub[i, j] if i.size else np.zeros((draws, 1))
        critical = float(np.quantile(largest.max(axis=1), 1 - alpha))
    d = s[:, None] - s[None, :]  # d[i, j] = strength_i - strength_j
    with np.errstate(invalid="ignore", divide="ignore"):
        resolved = np.where(finite[:, None] & finite[None, :],
                            np.abs(d) > critical * se, True)
    infinite_sign = np.where(finite, 0.0, np.sign(np.nan_to_num(fit.log_strength, nan=0.0,
                                                                posinf=1.0, neginf=-1.0)))
    order = d + 1e9 * (infinite_sign[:, None] - infinite_sign[None, :])
    above = (resolved & (order < 0)).sum(axis=1)  # j resolved above i
    below = (resolved & (order > 0)).sum(axis=1)
    return (1 + above).astype(np.int64), (k - below).astype(np.int64)


def head_to_head(entities: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The matches in which both ``a`` and ``b`` play: one row per match, ``pairing``, ``group``
    (if present), ``match``, ``a_won``, ``b_won`` (int64)."""
    keys = ["pairing", "match"]
    sides = []
    for name, label in ((a, "a_won"), (b, "b_won")):
        own = entities[entities["strategy"] == name]
        sides.append(own.groupby(keys, sort=True)["won"].max().rename(label))
    both = pd.concat(sides, axis=1, join="inner").reset_index()
    if "group" in entities.columns:
        group = entities.drop_duplicates(keys).set_index(keys)["group"]
        both["group"] = group.reindex(pd.MultiIndex.from_frame(both[keys])).to_numpy()
    return both.astype({"a_won": "int64", "b_won": "int64"})


def pairwise_intervals(entities: pd.DataFrame, names: list[str], duplicate: bool) -> pd.DataFrame:
    """Every ordered pair's head-to-head share with its interval by the design's unit.

    The share is the row strategy's wins among the matches either of the two won (both at the
    table); its 95% interval is Wilson's at the deal-clustered effective number of matches
    (:func:`experiments.stats.paired_proportion`, deals as clusters) with duplicate deals, and
    Wilson's on the matches otherwise (as :func:`pairwise_counts`).

    Returns
    -------
    DataFrame
        One row per ordered pair ``(strategy, opponent)``: ``strategy``, ``opponent``,
        ``decided`` (matches either won, int64), ``units`` (deals or matches, int64),
        ``share``, ``low``, ``high``, ``interval`` (``"deal-clustered"`` or ``"wilson"``).
    """
    counts, rows = [], []
    for a in names:
        for b in names:
            if a == b:
                continue
            both = head_to_head(entities, a, b)
            decided = both[(both.a_won + both.b_won) > 0]
            if not duplicate:
                counts.append((a, b, int(decided.a_won.sum()), int(decided.b_won.sum()),
                               len(decided)))
                continue
            if decided.empty:
                rows.append({"strategy": a, "opponent": b, "decided": 0, "units": 0,
                             "share": np.nan, "low": np.nan, "high": np.nan,
                             "interval": "deal-clustered"})
                continue
            fit = paired_proportion(decided.a_won.to_numpy(), unit_keys(decided, True)).iloc[0]
            rows.append({"strategy": a, "opponent": b, "decided": len(decided),
                         "units": int(fit.clusters), "share": fit.rate, "low": fit.low,
                         "high": fit.high, "interval": "deal-clustered"})
    if not duplicate:
        return wilson_pairs(counts)
    return pd.DataFrame(rows).astype({"decided": "int64", "units": "int64"})


def wilson_pairs(rows) -> pd.DataFrame:
    """:func:`pairwise_intervals`' table from ``(a, b, wins_a, wins_b, units)`` counts, with
    Wilson intervals (matches independent)."""
    out = []
    for a, b, wins_a, wins_b, units in rows:
        decided = wins_a + wins_b
        low, high = wilson_interval(wins_a, decided)
        out.append({"strategy": a, "opponent": b, "decided": decided, "units": units,
                    "share": wins_a / decided if decided else np.nan,
                    "low": float(low) if decided else np.nan,
                    "high": float(high) if decided else np.nan, "interval": "wilson"})
    return pd.DataFrame(out, columns=["strategy", "opponent", "decided", "units", "share", "low",
                                      "high", "interval"]).astype({"decided": "int64",
                                                                   "units": "int64"})


def pairwise_counts(aggregate: dict, players: int, names: list[str]) -> pd.DataFrame:
    """:func:`pairwise_intervals` from a tournament's per-seating sums (a summary-only run, or a
    tournament without duplicate deals, where the match is the unit): Wilson intervals."""
    per = aggregate["pairing"]
    rows = []
    for a in names:
        for b in names:
            if a == b:
                continue
            wins_a = wins_b = 0
            for pairing in pairings(players, list(names)):
                present = pairing.entity_strategies
                if a not in present or b not in present:
                    continue
                winner = per[str(pairing.pairing)]["winner"]
                wins_a += winner.get(str(present.index(a)), 0)
                wins_b += winner.get(str(present.index(b)), 0)
            rows.append((a, b, wins_a, wins_b, wins_a + wins_b))
    return wilson_pairs(rows)


def head_to_head_contrast(entities: pd.DataFrame, a: str, b: str, duplicate: bool) -> Contrast:
    """``a``'s minus ``b``'s win rate in the matches where both play, paired by the design's unit
    (the deal with duplicate deals, else the match): :func:`experiments.stats.paired_contrast`
    on each unit's win rates (with two entities, ``2 x share - 1`` of the unit)."""
    both = head_to_head(entities, a, b)
    contrast = paired_contrast(both.a_won.to_numpy(dtype=np.float64),
                               both.b_won.to_numpy(dtype=np.float64), unit_keys(both, duplicate))
    # A difference of two win rates lies in [-1, 1]; the t interval can pass the ends.
    return contrast._replace(low=max(contrast.low, -1.0), high=min(contrast.high, 1.0))


def ranking_contrasts(ranking: pd.DataFrame, fit: LuceFit, entities: pd.DataFrame,
                      names: list[str], duplicate: bool) -> pd.DataFrame:
    """Each strategy of the ranking against the next one down: the difference of their
    log-strengths with its interval (``fit``'s covariance: deal-clustered with duplicate deals)
    and their head-to-head paired contrast (:func:`head_to_head_contrast`).

    Returns
    -------
    DataFrame
        One row per adjacent pair: ``stronger``, ``weaker``, ``strength_difference``,
        ``strength_low``, ``strength_high``, ``strength_detected`` (bool), ``units`` (deals or
        matches met, int64), ``win_rate_difference``, ``win_low``, ``win_high``, ``effect``
        (Cohen's d), ``win_detected`` (bool).
    """
    ids = {name: i for i, name in enumerate(names)}
    order = list(ranking["strategy"])
    rows = []
    for a, b in zip(order, order[1:]):
        d, low, high = fit.difference(ids[a], ids[b])
        strength = Contrast(d, low, high, fit.clusters, float("nan"))
        h2h = head_to_head_contrast(entities, a, b, duplicate)
        rows.append({"stronger": a, "weaker": b, "strength_difference": d, "strength_low": low,
                     "strength_high": high, "strength_detected": strength.detected,
                     "units": h2h.units, "win_rate_difference": h2h.difference,
                     "win_low": h2h.low, "win_high": h2h.high, "effect": h2h.effect,
                     "win_detected": h2h.detected})
    columns = ["stronger", "weaker", "strength_difference", "strength_low", "strength_high",
               "strength_detected", "units", "win_rate_difference", "win_low", "win_high",
               "effect", "win_detected"]
    return pd.DataFrame(rows, columns=columns).astype({"units": "int64"})


def prefix_sizes(matches: int, count: int = 10, smallest: int = 10) -> np.ndarray:
    """``count`` log-spaced prefix lengths from ``smallest`` to ``matches`` (distinct integers,
    ascending, the last ``matches``); below 2 matches no interval exists: empty.

    Returns
    -------
    ndarray of int64, shape (at most count,)
    """
    if matches < 2:
        return np.zeros(0, dtype=np.int64)
    low = min(max(2, smallest), matches)
    return np.unique(np.round(np.geomspace(low, matches, count)).astype(np.int64))


def interval_widths(entities: pd.DataFrame, names: list[str], duplicate: bool,
                    sizes) -> pd.DataFrame:
    """Half-width of each strategy's 95% win-rate interval on the first ``n`` matches of every
    seating, for each ``n`` in ``sizes``: how the interval narrows with the sample, paired
    against unpaired.

    The prefixes are matches ``0 .. n-1`` of every seating (the engine plays match
    ``i`` from the seed and ``i`` only, so a prefix is exactly a shorter run of the
    same tournament). Two intervals of the same win rate: the paired one of
    :func:`paired_win_rates` (deals as clusters; duplicate deals only) and Wilson's on the
    strategy's matches as if independent; both inside [0, 1], neither zero-width. A
    half-width is half of the (slightly asymmetric) width.

    Parameters
    ----------
    entities : DataFrame
        :func:`entity_frame` of the tournament.
    names : list of str
    duplicate : bool
    sizes : sequence of int
        Matches per seating in each prefix (:func:`prefix_sizes`).

    Returns
    -------
    DataFrame
        One row per (strategy, n): ``strategy``, ``matches_per_seating`` (n),
        ``matches`` (the strategy's matches in the prefix), ``win_rate``, ``paired_low``,
        ``paired_high``, ``paired_half_width`` (nan without duplicate deals), ``wilson_low``,
        ``wilson_high``, ``wilson_half_width``.
    """
    rows = []
    for name in names:
        own = entities[entities["strategy"] == name]
        match = own["match"].to_numpy()
        won = own["won"].to_numpy(dtype=np.int64)
        units = unit_keys(own, True) if duplicate else None
        for n in sizes:
            keep = match < n
            k, m = int(won[keep].sum()), int(keep.sum())
            lo, hi = wilson_interval(k, m)
            row = {"strategy": name, "matches_per_seating": int(n), "matches": m,
                   "win_rate": k / m if m else np.nan, "paired_low": np.nan,
                   "paired_high": np.nan, "wilson_low": float(lo), "wilson_high": float(hi)}
            if duplicate and m:
                fit = paired_proportion(won[keep], units[keep]).iloc[0]
                row.update(paired_low=fit.low, paired_high=fit.high)
            rows.append(row)
    table = pd.DataFrame(rows, columns=["strategy", "matches_per_seating", "matches", "win_rate",
                                        "paired_low", "paired_high", "wilson_low", "wilson_high"])
    table.insert(6, "paired_half_width", (table.paired_high - table.paired_low) / 2)
    table["wilson_half_width"] = (table.wilson_high - table.wilson_low) / 2
    return table.astype({"matches_per_seating": "int64", "matches": "int64"})
