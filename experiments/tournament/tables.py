"""A tournament's tables: summary, pairwise matrix, ranking, and the paired duplicate-deal rates.

One builder, :func:`tournament_tables`, makes the summary, pairwise and
ranking tables from per-seating integer sums
(:func:`experiments.tournament.shards.seating_aggregate`), whether those come
from a summary-only run's shards or from a full run's match frame: the two
kinds of run give the same tables by construction. The match-level views
(:func:`entity_frame`, :func:`paired_win_rates`, :func:`interval_widths`) need the match rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.stats import luce_ranking, ratio_ci, wilson_interval
from experiments.tournament.seatings import pairings


def tournament_tables(aggregate: dict, players: int,
                      names: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``summary, pairwise, ranking`` from the merged per-seating aggregate of a tournament.

    Parameters
    ----------
    aggregate : dict
        :func:`experiments.tournament.shards.seating_aggregate` of every
        seating, merged (a summary-only run's, or
        :func:`~experiments.tournament.shards.frame_aggregate` of a full run's
        match frame).
    players : int
        The table size (the seatings are :func:`~experiments.tournament.seatings.pairings`).
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
    same deal, so the outcomes of one deal are not independent. For each
    strategy, ``y`` = its wins on one deal (over the group's seatings it
    plays) and ``x`` = the seatings it plays; the rate is ``sum(y) / sum(x)``
    and the 95% interval the delta-method ratio interval with deals as
    clusters (:func:`experiments.stats.ratio_ci`).

    Parameters
    ----------
    entities : DataFrame
        :func:`entity_frame` of a duplicate tournament (needs ``group``).
    names : list of str

    Returns
    -------
    DataFrame
        ``strategy``, ``deals``, ``win_rate``, ``paired_low``, ``paired_high``.
    """
    rows = []
    for name in names:
        per_deal = deal_wins(entities, name)
        rate, low, high = ratio_ci(per_deal["sum"].to_numpy(), per_deal["size"].to_numpy())
        rows.append({"strategy": name, "deals": len(per_deal), "win_rate": rate,
                     "paired_low": low, "paired_high": high})
    return pd.DataFrame(rows).astype({"deals": "int64"})


def deal_wins(entities: pd.DataFrame, name: str) -> pd.DataFrame:
    """Strategy ``name``'s wins on each deal of a duplicate tournament.

    Returns
    -------
    DataFrame
        Index ``(group, match)`` (sorted), columns ``sum`` (wins, int) and
        ``size`` (seatings of that deal it plays, int).
    """
    own = entities[entities["strategy"] == name]
    return own.groupby(["group", "match"], sort=True)["won"].agg(["sum", "size"])


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
    seating, for each ``n`` in ``sizes``: how the interval narrows with the sample.

    The prefixes are matches ``0 .. n-1`` of every seating (the engine plays match
    ``i`` from the seed and ``i`` only, so a prefix is exactly a shorter run of the
    same tournament). With duplicate deals the interval is the paired one of
    :func:`paired_win_rates` (deals as clusters); otherwise the Wilson interval on
    the strategy's wins and matches (as in the summary), whose half-width is taken
    as half of its (slightly asymmetric) width.

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
        ``matches`` (the strategy's matches in the prefix), ``win_rate``,
        ``low``, ``high``, ``half_width``, ``interval`` (``"paired"`` or ``"wilson"``).
    """
    rows = []
    for name in names:
        if duplicate:
            per_deal = deal_wins(entities, name)
            match = per_deal.index.get_level_values("match").to_numpy()
            wins, plays = per_deal["sum"].to_numpy(), per_deal["size"].to_numpy()
        else:
            own = entities[entities["strategy"] == name]
            match = own["match"].to_numpy()
            wins, plays = own["won"].to_numpy(dtype=np.int64), np.ones(len(own), dtype=np.int64)
        for n in sizes:
            keep = match < n
            if duplicate:
                rate, low, high = ratio_ci(wins[keep], plays[keep])
            else:
                k, m = int(wins[keep].sum()), int(plays[keep].sum())
                lo, hi = wilson_interval(np.array([k]), np.array([m]))
                rate, low, high = k / m, float(lo[0]), float(hi[0])
            rows.append({"strategy": name, "matches_per_seating": int(n),
                         "matches": int(plays[keep].sum()), "win_rate": rate, "low": low,
                         "high": high, "half_width": (high - low) / 2,
                         "interval": "paired" if duplicate else "wilson"})
    columns = ["strategy", "matches_per_seating", "matches", "win_rate", "low", "high",
               "half_width", "interval"]
    return pd.DataFrame(rows, columns=columns).astype({"matches_per_seating": "int64",
                                                       "matches": "int64"})
