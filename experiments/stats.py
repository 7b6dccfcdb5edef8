"""Interval estimates and rankings for match outcomes.

Pure NumPy and pandas functions: the tournament and the studies turn their
frames into these arrays and back. Every interval is 95% unless a ``z`` says
otherwise: Wilson for proportions, normal for means, a ratio-of-sums (delta
method, rows as clusters) for shares of totals; event-level rates and means,
whose events cluster within matches, by :func:`clustered_proportion` (Wilson at
the match-clustered effective sample size) and :func:`clustered_ratio`
(delta method over per-match totals).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""


def wilson_interval(successes, trials, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions.

    Parameters
    ----------
    successes, trials : array_like of int, same shape
        Counts; where ``trials == 0`` the interval is ``(0, 1)``.
    z : float
        Normal quantile (1.96 for 95%).

    Returns
    -------
    low, high : ndarray of float64, the input shape
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / n, 0.0)
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
    high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    return low, high


def mean_interval(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean of a sample and its normal-approximation interval ``(mean, low, high)``."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    if x.size < 2:
        return mean, float("nan"), float("nan")
    se = float(x.std(ddof=1) / np.sqrt(x.size))
    return mean, mean - z * se, mean + z * se


def luce_ranking(participants: np.ndarray, winners: np.ndarray, n_players: int,
                 max_iter: int = 10_000, tol: float = 1e-10, z: float = Z95, weights=None):
    """Fit Bradley-Terry strengths generalised to multi-entity matches (Luce's choice).

    The winner of a match among the set ``S`` of competitors is ``i`` with
    probability ``s_i / sum_{j in S} s_j``. With two competitors this is the
    Bradley-Terry model. Fitted by Hunter's MM iteration; intervals from the
    observed information of the log-strengths, centred to mean zero.

    Parameters
    ----------
    participants : ndarray of int, shape (matches, k)
        Competitor ids (0..n_players-1) taking part in each match; -1 pads.
    winners : ndarray of int, shape (matches,)
        The winning competitor id of each match, or -1 for no winner (dropped).
    n_players : int
        Number of competitor ids.
    weights : ndarray of float, shape (matches,), optional
        Each row counts as this many matches (rows then stand for groups of
        identical matches, e.g. per-seating win counts of a summary-only
        tournament); default 1 each.

    Returns
    -------
    log_strength, low, high : ndarray of float64, shape (n_players,)
        Centred log-strengths and their 95% intervals. A competitor that never
        won (or always won) has an unbounded estimate: reported as -inf / +inf.
    """
    participants = np.asarray(participants, dtype=np.int64)
    winners = np.asarray(winners, dtype=np.int64)
    keep = winners >= 0
    participants, winners = participants[keep], winners[keep]
    w = None if weights is None else np.asarray(weights, dtype=np.float64)[keep]
    wins = np.bincount(winners, weights=w, minlength=n_players).astype(np.float64)
    member = np.zeros((participants.shape[0], n_players), dtype=np.float64)
    rows = np.repeat(np.arange(participants.shape[0]), participants.shape[1])
    cols = participants.ravel()
    valid = cols >= 0
    member[rows[valid], cols[valid]] = 1.0
    games = member.sum(axis=0) if w is None else w @ member
    finite = (wins > 0) & (wins < games)
    strength = np.ones(n_players)
    strength[~finite] = 0.0
    for _ in range(max_iter):
        # MM update: s_i = W_i / sum_m [i in m] / sum_{j in m} s_j
        totals = member @ strength
        with np.errstate(divide="ignore"):
            inv = np.where(totals > 0, 1.0 / totals, 0.0)
        denom = member.T @ (inv if w is None else w * inv)
        new = np.where(finite & (denom > 0), wins / np.where(denom > 0, denom, 1.0), 0.0)
        new_sum = new[finite].sum()
        if new_sum > 0:
            new[finite] *= finite.sum() / new_sum
        if np.max(np.abs(new - strength)) < tol:
            strength = new
            break
        strength = new
    log_s = np.full(n_players, np.nan)
    log_s[finite] = np.log(strength[finite])
    log_s[finite] -= log_s[finite].mean() if finite.any() else 0.0
    # Observed information of theta = log s: sum over matches of diag(p) - p p^T.
    totals = member @ strength
    with np.errstate(divide="ignore", invalid="ignore"):
        probs = np.where(totals[:, None] > 0, member * strength / totals[:, None], 0.0)
    if w is None:
        info = np.diag(probs.sum(axis=0)) - probs.T @ probs
    else:
        info = np.diag(w @ probs) - probs.T @ (w[:, None] * probs)
    idx = np.flatnonzero(finite)
    se = np.full(n_players, np.nan)
    if idx.size >= 2:
        sub = info[np.ix_(idx, idx)]
        # Sum-to-zero constraint: the pseudo-inverse gives the centred covariance.
        # The information is singular along the all-ones direction; rcond must
        # cut that eigenvalue (numerically ~1e-10, not 0), or pinv returns
        # entries ~1e9 whose centring cancels only to ~1e-5.
        cov = np.linalg.pinv(sub, rcond=1e-10, hermitian=True)
        centre = np.eye(idx.size) - 1.0 / idx.size
        cov = centre @ cov @ centre
        se[idx] = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    log_s[(wins == 0) & (games > 0)] = -np.inf
    log_s[(wins == games) & (games > 0)] = np.inf
    low = log_s - z * se
    high = log_s + z * se
    return log_s, low, high


def paired_share_interval(per_deal) -> tuple[float, float, float]:
    """``(mean, low, high)`` of per-deal win shares (each in [0, 1], one per duplicate deal):
    :func:`mean_interval` with the deal as the unit, clipped to [0, 1] (a normal interval
    can pass 0 or 1). The paired interval of the strength ladder and of the tuner."""
    mean, low, high = mean_interval(np.asarray(per_deal, dtype=np.float64))
    return mean, max(low, 0.0), min(high, 1.0)


def proportion(successes, trials) -> dict:
    """Rate and 95% Wilson interval as a dict (``rate``, ``low``, ``high``)."""
    successes = np.asarray(successes)
    trials = np.asarray(trials)
    low, high = wilson_interval(successes, trials)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(trials > 0, successes / np.maximum(trials, 1), np.nan)
    return {"rate": rate, "low": low, "high": high}


def grouped_mean_ci(frame: pd.DataFrame, keys: list[str], value: str, prefix: str) -> pd.DataFrame:
    """Per group: ``{prefix}_n``, ``{prefix}_mean``, ``{prefix}_low``, ``{prefix}_high``."""
    grouped = frame.groupby(keys, observed=True, sort=True)[value]
    table = grouped.agg(["count", "mean", "std"])
    half = Z95 * table["std"] / np.sqrt(table["count"])
    half = half.where(table["count"] >= 2)
    return pd.DataFrame({
        f"{prefix}_n": table["count"].astype("int64"),
        f"{prefix}_mean": table["mean"],
        f"{prefix}_low": table["mean"] - half,
        f"{prefix}_high": table["mean"] + half,
    })


def ratio_ci(numerator, denominator) -> tuple[float, float, float]:
    """``sum(num) / sum(den)`` with a delta-method 95% interval (rows as clusters)."""
    y = np.asarray(numerator, dtype=np.float64)
    x = np.asarray(denominator, dtype=np.float64)
    total = x.sum()
    if y.size == 0 or total == 0:
        return float("nan"), float("nan"), float("nan")
    ratio = float(y.sum() / total)
    if y.size < 2:
        return ratio, float("nan"), float("nan")
    residual = y - ratio * x
    se = float(np.sqrt(residual.var(ddof=1) * y.size) / total)
    return ratio, ratio - Z95 * se, ratio + Z95 * se


def _moments(n: int, total: int, total_sq) -> tuple[float, float, float]:
    mean = total / n if n else math.nan
    if n < 2:
        return mean, math.nan, math.nan
    # exact integer numerator: n * sum(x^2) - sum(x)^2
    var = (n * total_sq - total * total) / (n * (n - 1))
    std = math.sqrt(max(var, 0.0))
    return mean, std, std / math.sqrt(n)


def summary_table(aggregate: dict) -> pd.DataFrame:
    """Per quantity: ``count, sum, sum_sq, mean, std, se, low, high`` from
    :func:`sim.scale.aggregates.match_aggregate`.

    Rows ``win_<e>`` (entity ``e`` won) and ``unfinished`` are 0/1 indicators
    with 95% Wilson intervals; every summed column follows with a normal 95%
    interval of its mean.
    """
    n = int(aggregate["matches"])
    winners = {int(k): int(v) for k, v in aggregate["hist"].get("winner", {}).items()}
    entities = sorted(int(c.split("_")[1]) for c in aggregate["sum"] if re.fullmatch(r"score_\d+", c))
    rows = []
    for label, wins in [(f"win_{e}", winners.get(e, 0)) for e in entities] + \
                       [("unfinished", winners.get(-1, 0))]:
        mean, std, se = _moments(n, wins, wins)
        low, high = wilson_interval(np.array([wins]), np.array([n]))
        rows.append((label, n, wins, wins, mean, std, se, float(low[0]), float(high[0])))
    for column, total in aggregate["sum"].items():
        mean, std, se = _moments(n, int(total), int(aggregate["sum_sq"][column]))
        rows.append((column, n, int(total), int(aggregate["sum_sq"][column]), mean, std, se,
                     mean - Z95 * se, mean + Z95 * se))
    return pd.DataFrame(rows, columns=["quantity", "count", "sum", "sum_sq", "mean", "std", "se",
                                       "low", "high"])


def _cluster_sums(numerator, denominator, clusters, groups) -> pd.DataFrame:
    """Per group: the number of clusters ``G``, the totals ``Y = sum y`` and ``X = sum x``, and
    the cluster-total moments ``sum Y_c^2``, ``sum X_c Y_c``, ``sum X_c^2`` (``Y_c``, ``X_c``:
    one cluster's totals within the group)."""
    y = np.asarray(numerator, dtype=np.float64)
    x = np.broadcast_to(np.asarray(denominator, dtype=np.float64), y.shape)
    c = np.asarray(clusters)
    g = np.zeros(y.shape, dtype=np.int64) if groups is None else np.asarray(groups)
    cells = pd.DataFrame({"g": g, "c": c, "y": y, "x": x}).groupby(
        ["g", "c"], sort=True, observed=True)[["y", "x"]].sum()
    cells = cells.assign(yy=cells.y * cells.y, xy=cells.x * cells.y, xx=cells.x * cells.x)
    sums = cells.groupby(level="g", sort=True).agg(
        clusters=("y", "size"), Y=("y", "sum"), X=("x", "sum"), yy=("yy", "sum"),
        xy=("xy", "sum"), xx=("xx", "sum"))
    sums.index.name = None
    return sums


def _residual_square(sums: pd.DataFrame, ratio) -> np.ndarray:
    """``sum_c (Y_c - ratio X_c)^2`` from the cluster moments (clipped at 0 against rounding)."""
    return np.clip(sums.yy - 2 * ratio * sums.xy + ratio * ratio * sums.xx, 0.0, None).to_numpy()


def clustered_ratio(numerator, denominator, clusters, groups=None, z: float = Z95) -> pd.DataFrame:
    """``sum(num) / sum(den)`` per group with a cluster-robust (delta-method) 95% interval.

    The ratio estimator of survey sampling: with per-cluster totals ``Y_c``,
    ``X_c`` of the ``G`` clusters (matches) in a group and ``r = Y / X``,
    ``se^2 = G / (G - 1) * sum_c (Y_c - r X_c)^2 / X^2``. Events of one match
    may be correlated in any way; matches are independent. For a mean of an
    event value (``denominator`` 1 per event) this is the mean over events
    with its interval clustered by match; per group it equals
    :func:`ratio_ci` on that group's per-cluster totals.

    Parameters
    ----------
    numerator : array_like of float, shape (events,)
        Each event's value (``y``).
    denominator : array_like of float, shape (events,) or scalar
        Each event's weight (``x``; 1 for a plain mean over events).
    clusters : array_like, shape (events,)
        The cluster (match) of each event.
    groups : array_like, shape (events,), optional
        Separate estimates per group (e.g. the displayed score before the
        event); default one group labelled 0.

    Returns
    -------
    DataFrame, one row per group (sorted, group labels as index)
        ``clusters`` (int), ``numerator``, ``denominator`` (totals), ``ratio``,
        ``se``, ``low``, ``high`` (float; nan interval with fewer than 2 clusters).
    """
    sums = _cluster_sums(numerator, denominator, clusters, groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = (sums.Y / sums.X).to_numpy()
        n = sums.clusters.to_numpy(dtype=np.float64)
        se = np.sqrt(n / (n - 1) * _residual_square(sums, ratio)) / sums.X.to_numpy()
    se = np.where(n >= 2, se, np.nan)
    return pd.DataFrame({"clusters": sums.clusters.astype("int64"), "numerator": sums.Y,
                         "denominator": sums.X, "ratio": ratio, "se": se,
                         "low": ratio - z * se, "high": ratio + z * se}, index=sums.index)


def clustered_proportion(successes, clusters, groups=None, z: float = Z95) -> pd.DataFrame:
    """Share of events that are successes per group, with a 95% Wilson interval at the
    match-clustered effective sample size.

    Events within a match are not independent (a side stuck at displayed 60
    sees several discards in a row). With per-cluster totals ``Y_c`` (successes)
    and ``X_c`` (events), ``X`` events in all and ``p = Y / X``:

    - the linearised (delta-method) variance of the ratio estimator,
      ``v = sum_c (Y_c - p X_c)^2 / X^2``, against the independent-events
      variance ``p (1 - p) / X`` gives the design effect ``deff``;
    - the interval is Wilson's with ``X / deff`` trials (Kish's effective
      sample size), so it stays inside [0, 1] and is not degenerate near 0.

    With one event per cluster ``deff = 1`` exactly: the interval is the
    independent-events Wilson interval. Events positively correlated within
    clusters give ``deff > 1``, a wider interval; an estimate below 1 is taken
    as 1 (never narrower than the independent-events interval). Where ``p`` is 0 or 1 the data
    say nothing about the correlation; the worst case is assumed (all events of
    a cluster alike: ``deff = sum_c X_c^2 / X``, effective sample
    ``X^2 / sum_c X_c^2``).

    Parameters
    ----------
    successes : array_like of bool or 0/1, shape (events,)
    clusters : array_like, shape (events,)
        The cluster (match) of each event.
    groups : array_like, shape (events,), optional
        Separate estimates per group; default one group labelled 0.
    z : float

    Returns
    -------
    DataFrame, one row per group (sorted, group labels as index)
        ``events``, ``successes``, ``clusters`` (int64), ``rate``,
        ``design_effect``, ``effective_events``, ``low``, ``high`` (float64).
    """
    sums = _cluster_sums(np.asarray(successes, dtype=np.float64), 1.0, clusters, groups)
    events = sums.X.to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        p = sums.Y.to_numpy() / events
        linear = _residual_square(sums, p) / (events * events)
        independent = p * (1 - p) / events
        worst = sums.xx.to_numpy() / events
        # never narrower than independent events: a design effect below 1 from a few
        # clusters is more likely chance than negative correlation
        deff = np.maximum(np.where(independent > 0, linear / independent, worst), 1.0)
        effective = events / deff
    low, high = wilson_interval(p * effective, effective, z)
    return pd.DataFrame({"events": sums.X.astype("int64"), "successes": sums.Y.astype("int64"),
                         "clusters": sums.clusters.astype("int64"), "rate": p,
                         "design_effect": deff, "effective_events": effective, "low": low,
                         "high": high}, index=sums.index)
