"""The comparisons a tournament declares before it plays, and their adjusted frame.

Every pair of the field (in the field's order, ``a`` listed before ``b``) is compared twice:

- **head-to-head share**: ``a``'s share of the matches either of the two won, minus 1/2 (two
  strategies are even at 1/2 whatever the table size), with its interval by the design's unit
  (:func:`experiments.tools.tournament.tables.pairwise_intervals`: deal-clustered with duplicate
  deals, Wilson on the matches otherwise);
- **log strength**: the difference of their Bradley-Terry/Luce log-strengths, with its
  interval from the fit's covariance (deal-clustered with duplicate deals).

The field is read as a ladder, weakest first (as ``five-up strength`` reads its ladder): the
head-to-head share of each strategy against the next one listed is **primary** (Holm); every
other comparison is **exploratory** (Benjamini-Hochberg). The ranking itself takes simultaneous
rank intervals (:func:`experiments.tools.tournament.tables.luce_rank_intervals`).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from experiments.comparisons import (EXPLORATORY, PRIMARY, Comparison, ComparisonPlan, Quantity,
                                     adjusted_words, comparison_id)

NAME = "tournament"
EVEN = 0.5
"""The head-to-head share of two equal strategies."""
HEAD_TO_HEAD = Quantity(
    "head_to_head_share", "head-to-head share minus 1/2", 0.02, True,
    "2 pp above an even head-to-head (52% of the matches either won): the smallest edge the "
    "project's screens and tuning act on (as the strength ladder's pairings)")
LOG_STRENGTH = Quantity(
    "log_strength", "log strength", 0.08, False,
    "the log odds of a 52% head-to-head share, log(0.52 / 0.48) = 0.08: the same smallest edge "
    "on the ranking's scale")
QUANTITY_WORDS = {HEAD_TO_HEAD.name: (HEAD_TO_HEAD.words, True),
                  LOG_STRENGTH.name: (LOG_STRENGTH.words, False)}
COLUMNS = ["id", "family", "quantity", "a", "b", "players", "estimate", "difference", "low",
           "high", "units", "sesoi", "p", "p_adjusted", "adj_level", "adj_low", "adj_high",
           "verdict", "words"]
"""The ``comparisons`` frame (``estimate``: the head-to-head share itself, nan for a log
strength)."""


def pair_id(players: int, a: str, b: str, quantity: Quantity) -> str:
    """The comparison id of pair ``a``, ``b`` (no seed: the same in every replication)."""
    return comparison_id(f"{players}p", f"{a} vs {b}", quantity.words.split(" minus")[0])


def pairs(names) -> list[tuple[str, str]]:
    """Every pair of the field, ``a`` listed before ``b``."""
    return list(itertools.combinations(list(names), 2))


def plan_for(settings: dict) -> ComparisonPlan:
    """The comparisons a tournament of ``settings`` (:meth:`TournamentConfig.as_dict`) states:
    see the module docstring. A pure function of the settings."""
    names, players = settings["strategies"], settings["players"]
    adjacent = set(zip(names, names[1:]))
    comparisons = [Comparison(pair_id(players, a, b, HEAD_TO_HEAD),
                              PRIMARY if (a, b) in adjacent else EXPLORATORY, HEAD_TO_HEAD.name)
                   for a, b in pairs(names)]
    comparisons += [Comparison(pair_id(players, a, b, LOG_STRENGTH), EXPLORATORY,
                               LOG_STRENGTH.name) for a, b in pairs(names)]
    steps = "; ".join(f"{a} vs {b}" for a, b in zip(names, names[1:]))
    note = ("The field is read as a ladder, in the order given: primary, the head-to-head share "
            f"of each strategy against the next one listed ({steps}); exploratory, every other "
            "pair's head-to-head share and every pair's log-strength difference. The ranking "
            "has simultaneous rank intervals of its own.")
    return ComparisonPlan(NAME, (HEAD_TO_HEAD, LOG_STRENGTH), tuple(comparisons), note=note)


def comparisons_table(settings: dict, shares: pd.DataFrame, fit=None) -> pd.DataFrame:
    """Every declared comparison a tournament's tables hold, adjusted as its family.

    Parameters
    ----------
    settings : dict
        :meth:`TournamentConfig.as_dict`.
    shares : DataFrame
        :func:`experiments.tools.tournament.tables.pairwise_intervals` (or ``pairwise_counts``):
        the ordered pairs' shares and intervals.
    fit : experiments.stats.LuceFit, optional
        The ranking's fit in the field's order; without it (a summary-only run) no log-strength
        comparison is computed (each still counts in its family).

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`, worded by the adjusted interval (``words``).
    """
    names, players = list(settings["strategies"]), settings["players"]
    by_pair = shares.set_index(["strategy", "opponent"])
    rows = []
    for a, b in pairs(names):
        share = by_pair.loc[(a, b)]
        rows.append({"id": pair_id(players, a, b, HEAD_TO_HEAD), "a": a, "b": b,
                     "players": players, "estimate": share.share,
                     "difference": share.share - EVEN, "low": share.low - EVEN,
                     "high": share.high - EVEN, "units": share.units})
    if fit is not None:
        ids = {name: k for k, name in enumerate(names)}
        for a, b in pairs(names):
            d, low, high = fit.difference(ids[a], ids[b])
            rows.append({"id": pair_id(players, a, b, LOG_STRENGTH), "a": a, "b": b,
                         "players": players, "estimate": np.nan, "difference": d, "low": low,
                         "high": high, "units": fit.clusters})
    frame = pd.DataFrame(rows, columns=["id", "a", "b", "players", "estimate", "difference",
                                        "low", "high", "units"])
    adjusted = plan_for(settings).adjust(frame, units="units")
    share = (adjusted["quantity"] == HEAD_TO_HEAD.name).to_numpy()
    for column in ("adj_low", "adj_high"):  # a share minus 1/2 lies in [-1/2, 1/2]
        values = adjusted[column].to_numpy(dtype=np.float64)
        adjusted[column] = np.where(share, np.clip(values, -EVEN, EVEN), values)
    adjusted["words"] = [
        adjusted_words(row, row.a, row.b, *QUANTITY_WORDS[row.quantity],
                       head=f"{row.a} vs {row.b}" if row.quantity == HEAD_TO_HEAD.name else None)
        for row in adjusted.itertuples(index=False)]
    return adjusted[COLUMNS]
