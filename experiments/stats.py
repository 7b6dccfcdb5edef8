"""Interval estimates and rankings for match outcomes.

Pure NumPy and pandas functions: the tournament and the studies turn their
frames into these arrays and back. Every interval is 95% unless a ``z`` says
otherwise: Wilson for proportions, Student t for means, a ratio-of-sums (delta
method, rows as clusters) for shares of totals; event-level rates and means,
whose events cluster within matches, by :func:`clustered_proportion` (Wilson at
the match-clustered effective sample size) and :func:`clustered_ratio`
(delta method over per-match totals).
"""

from __future__ import annotations

import math
import re
import statistics
from typing import NamedTuple

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


def _t_within(t: float, df: int) -> float:
    """``P(|T| < t)`` for Student's t with integer ``df`` (the finite series of Abramowitz and
    Stegun 26.7.3 and 26.7.4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        total, term = 0.0, math.cos(theta)
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return 2 / math.pi * (theta + math.sin(theta) * total) if df > 1 else 2 * theta / math.pi
    total, term = 0.0, 1.0
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return math.sin(theta) * total


def t_quantile(df, z: float = Z95) -> float:
    """The two-sided Student-t quantile with ``df`` degrees of freedom at the level of the normal
    quantile ``z`` (1.96 -> 95%: 12.706 at ``df = 1``, 2.228 at 10, 1.984 at 100).

    Exact (bisection on the closed-form distribution function) up to 200 degrees of freedom;
    above, the Cornish-Fisher expansion in ``1/df`` (Abramowitz and Stegun 26.7.5), within 1e-7.
    No SciPy needed.
    """
    df = int(df)
    if df <= 0:
        return float("nan")
    level = math.erf(z / math.sqrt(2.0))  # P(|Z| < z)
    if df <= 200:
        low, high = 0.0, 1e4
        for _ in range(200):
            mid = 0.5 * (low + high)
            if _t_within(mid, df) < level:
                low = mid
            else:
                high = mid
        return 0.5 * (low + high)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def mean_interval(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean of a sample and its Student-t interval ``(mean, low, high)`` (``n - 1`` degrees of
    freedom: at small n the normal interval is too narrow; at large n the two agree)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    if x.size < 2:
        return mean, float("nan"), float("nan")
    se = float(x.std(ddof=1) / np.sqrt(x.size))
    q = t_quantile(x.size - 1, z)
    return mean, mean - q * se, mean + q * se


def clustered_mean(values, clusters, z: float = Z95) -> tuple[float, float, float]:
    """Mean over rows with its interval taking ``clusters`` (the deal, the round) as the unit:
    rows of one cluster (a strategy in two seats of one table, the rotations of one deal) are
    averaged into one value first, and the interval is :func:`mean_interval` over the clusters'
    means weighted as the rows are (:func:`clustered_ratio`, t quantile on ``clusters - 1``).

    Returns ``(mean, low, high)``; nan interval with fewer than 2 clusters.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return float("nan"), float("nan"), float("nan")
    row = clustered_ratio(values, 1.0, clusters).iloc[0]
    q = t_quantile(int(row.clusters) - 1, z) if row.clusters >= 2 else float("nan")
    return float(row.ratio), float(row.ratio - q * row.se), float(row.ratio + q * row.se)


class Contrast(NamedTuple):
    """A paired contrast ``A - B`` over units (deals) that saw both.

    Attributes
    ----------
    difference, low, high : float
        The mean of ``A - B`` over units and its 95% Student-t interval.
    units : int
        The number of units (deals, rounds) paired.
    effect : float
        Standardised effect: the difference over the standard deviation of the units' ``A`` and
        ``B`` values pooled (Cohen's d; 0.2 small, 0.5 medium, 0.8 large); nan without spread.
    """

    difference: float
    low: float
    high: float
    units: int
    effect: float

    @property
    def detected(self) -> bool:
        """Whether the interval excludes 0 (a finding); otherwise "no detectable difference"."""
        return bool(np.isfinite(self.low) and (self.low > 0 or self.high < 0))


def paired_contrast(a, b, clusters=None, z: float = Z95) -> Contrast:
    """``A - B`` paired by unit, with its interval and effect size.

    Parameters
    ----------
    a, b : array_like of float, shape (rows,)
        The two sides' values on the same rows (a row: one deal played by both, or one
        cluster's measure for each side). nan rows (a side absent) are dropped.
    clusters : array_like, shape (rows,), optional
        The unit of each row when a unit holds several rows (the rotations of a deal, the
        rounds of a match): rows are averaged within their unit first. Default: each row is a
        unit.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    if clusters is not None:
        frame = pd.DataFrame({"c": np.asarray(clusters)[keep], "a": a, "b": b})
        units = frame.groupby("c", sort=True)[["a", "b"]].mean()
        a, b = units["a"].to_numpy(), units["b"].to_numpy()
    diff, low, high = mean_interval(a - b, z)
    pooled = math.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2) if a.size >= 2 else float("nan")
    effect = diff / pooled if pooled > 0 else float("nan")
    return Contrast(diff, low, high, int(a.size), effect)


def paired_ratio_contrast(num_a, den_a, num_b, den_b, z: float = Z95) -> Contrast:
    """``sum(num_a) / sum(den_a) - sum(num_b) / sum(den_b)``, two ratios of sums over the same
    units (deals), with a 95% t interval from the units' linearised values (the delta method of
    :func:`clustered_ratio`, paired: each unit's contribution to A's ratio minus to B's).

    Every unit counts, also one where a side's denominator is 0 (it adds nothing to that side's
    ratio, but its weight): unlike a mean of per-unit ratios, no unit is dropped for lacking
    exposure, so the contrast does not condition on what the units did.

    Parameters
    ----------
    num_a, den_a, num_b, den_b : array_like of float, shape (units,)
        Per unit: each side's numerator (events) and denominator (exposure). nan rows are
        dropped.

    Returns
    -------
    Contrast
        ``difference``, ``low``, ``high``, ``units`` and ``effect`` (the difference over the
        pooled standard deviation of the linearised values; nan without two units).
    """
    values = [np.asarray(v, dtype=np.float64) for v in (num_a, den_a, num_b, den_b)]
    keep = np.logical_and.reduce([np.isfinite(v) for v in values])
    ya, xa, yb, xb = (v[keep] for v in values)
    n = ya.size
    if n == 0 or xa.sum() <= 0 or xb.sum() <= 0:
        return Contrast(float("nan"), float("nan"), float("nan"), int(n), float("nan"))
    ra, rb = ya.sum() / xa.sum(), yb.sum() / xb.sum()
    # each unit's linearised contribution to the ratio (mean: the ratio itself)
    la = ra + (ya - ra * xa) / xa.mean()
    lb = rb + (yb - rb * xb) / xb.mean()
    diff, low, high = mean_interval(la - lb, z)
    pooled = math.sqrt((la.var(ddof=1) + lb.var(ddof=1)) / 2) if n >= 2 else float("nan")
    effect = (ra - rb) / pooled if pooled > 0 else float("nan")
    return Contrast(float(ra - rb), float(low), float(high), int(n), effect)


def interval_text(difference: float, low: float, high: float, digits: int = 3,
                  pct: bool = False) -> str:
    """A signed difference and its interval as text: ``"+0.039 [+0.023, +0.056]"``, or in
    percentage points with ``pct`` (``"+3.9 pp [+2.3, +5.6]"``), with enough decimals that no
    bound which is not 0 prints as 0 ("[-0.5, -0.0]" reads as touching 0 where the interval
    excludes it)."""
    scale, unit = (100.0, " pp") if pct else (1.0, "")
    d, lo, hi = (scale * difference, scale * low, scale * high)
    places = max(digits - 2, 1) if pct else digits
    while places < digits + 4 and any(v != 0 and round(v, places) == 0 for v in (lo, hi)
                                      if np.isfinite(v)):
        places += 1
    return f"{d:+.{places}f}{unit} [{lo:+.{places}f}, {hi:+.{places}f}]"


def contrast_words(contrast: Contrast, a: str, b: str, quantity: str, digits: int = 3,
                   pct: bool = False) -> str:
    """A contrast as a sentence: a finding only where its interval excludes 0.

    ``"exact - greedy, discards per match: -0.041 [-0.060, -0.022], d = -0.12: exact lower"``
    or ``"...: +0.004 [-0.010, 0.018]: no detectable difference"``. ``pct`` prints a
    difference of proportions in percentage points. A summary words a declared comparison by
    its family-adjusted interval instead (:func:`experiments.comparisons.adjusted_words`).
    """
    text = (f"{a} - {b}, {quantity}: "
            f"{interval_text(contrast.difference, contrast.low, contrast.high, digits, pct)}, "
            f"n = {contrast.units:,}")
    if np.isfinite(contrast.effect):
        text += f", d = {contrast.effect:+.2f}"
    if not contrast.detected:
        return text + ": no detectable difference"
    return text + (f": {a} higher" if contrast.difference > 0 else f": {a} lower")


def bootstrap_ranks(values, resamples: int = 1000, seed: int = 0, z: float = Z95) -> pd.DataFrame:
    """Ranks of items by mean value with bootstrap intervals over units.

    Parameters
    ----------
    values : array_like of float, shape (units, items)
        One row per unit (a hand, a deal), one column per item (an opening tile, a strategy);
        nan where the unit has no value for the item (the tile was not in the hand).
    resamples : int
        Bootstrap resamples of the units (rows, with replacement).
    seed : int
        Seed of the resampling (the intervals are reproducible).

    Returns
    -------
    DataFrame, one row per item (column order)
        ``mean``, ``rank`` (1 = highest mean), ``rank_low``, ``rank_high`` (the 2.5% and 97.5%
        quantiles of the item's rank over resamples), ``best_share`` and ``worst_share`` (the
        share of resamples in which the item ranks first or last): a "best" or "worst" item is
        one whose rank interval is ``[1, 1]`` or ``[k, k]``, not the observed extreme.
    """
    x = np.asarray(values, dtype=np.float64)
    units, items = x.shape
    rng = np.random.default_rng(seed)
    present = np.isfinite(x)
    filled = np.where(present, x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=0) / present.sum(axis=0)
    ranks = np.empty((resamples, items))
    for k in range(resamples):
        pick = rng.integers(0, units, size=units)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = filled[pick].sum(axis=0) / present[pick].sum(axis=0)
        m = np.where(np.isfinite(m), m, -np.inf)
        ranks[k] = (-m).argsort(kind="stable").argsort(kind="stable") + 1
    alpha = math.erfc(z / math.sqrt(2.0)) / 2
    observed = np.where(np.isfinite(mean), mean, -np.inf)
    return pd.DataFrame({
        "mean": mean,
        "rank": (-observed).argsort(kind="stable").argsort(kind="stable") + 1,
        "rank_low": np.quantile(ranks, alpha, axis=0, method="lower").astype(np.int64),
        "rank_high": np.quantile(ranks, 1 - alpha, axis=0, method="higher").astype(np.int64),
        "best_share": (ranks == 1).mean(axis=0),
        "worst_share": (ranks == items).mean(axis=0),
    })


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
    probs, info = _luce_information(member, strength, w)
    idx = np.flatnonzero(finite)
    se = np.full(n_players, np.nan)
    if idx.size >= 2:
        cov = _centred_inverse(info[np.ix_(idx, idx)])
        se[idx] = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    log_s[(wins == 0) & (games > 0)] = -np.inf
    log_s[(wins == games) & (games > 0)] = np.inf
    low = log_s - z * se
    high = log_s + z * se
    return log_s, low, high


def _luce_information(member: np.ndarray, strength: np.ndarray, w=None):
    """Win probabilities of every competitor in every match, shape (matches, n_players), and the
    observed information of the log-strengths, ``sum_m w_m (diag(p_m) - p_m p_m^T)``."""
    totals = member @ strength
    with np.errstate(divide="ignore", invalid="ignore"):
        probs = np.where(totals[:, None] > 0, member * strength / totals[:, None], 0.0)
    if w is None:
        info = np.diag(probs.sum(axis=0)) - probs.T @ probs
    else:
        info = np.diag(w @ probs) - probs.T @ (w[:, None] * probs)
    return probs, info


def _centred_inverse(info: np.ndarray) -> np.ndarray:
    """The covariance of sum-to-zero log-strengths from their (singular) information matrix."""
    # The information is singular along the all-ones direction; rcond must cut that eigenvalue
    # (numerically ~1e-10, not 0), or pinv returns entries ~1e9 whose centring cancels only to
    # ~1e-5.
    cov = np.linalg.pinv(info, rcond=1e-10, hermitian=True)
    centre = np.eye(info.shape[0]) - 1.0 / info.shape[0]
    return centre @ cov @ centre


class LuceFit(NamedTuple):
    """A Luce (Bradley-Terry) fit with its covariance (:func:`clustered_luce`).

    Attributes
    ----------
    log_strength, low, high : ndarray of float64, shape (n_players,)
        Centred log-strengths and their 95% intervals (+-inf for a competitor that never or
        always won, whose interval is nan).
    cov : ndarray of float64, shape (n_players, n_players)
        Covariance of the centred log-strengths (nan rows and columns for unbounded ones): the
        variance of a difference ``i - j`` is ``cov[i, i] + cov[j, j] - 2 cov[i, j]``.
    clusters : int
        Clusters (deals) the covariance counts.
    """

    log_strength: np.ndarray
    low: np.ndarray
    high: np.ndarray
    cov: np.ndarray
    clusters: int

    def difference(self, i: int, j: int, z: float = Z95) -> tuple[float, float, float]:
        """``log_strength[i] - log_strength[j]`` with its 95% interval (normal, from ``cov``)."""
        d = float(self.log_strength[i] - self.log_strength[j])
        var = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        se = math.sqrt(max(var, 0.0)) if np.isfinite(var) else float("nan")
        return d, d - z * se, d + z * se


def clustered_luce(participants, winners, n_players: int, clusters, robust: bool = True,
                   z: float = Z95) -> LuceFit:
    """:func:`luce_ranking` with a cluster-robust (sandwich) covariance: the matches of one
    cluster (the seatings of one duplicate deal) may be correlated in any way, clusters are
    independent.

    With ``u_m = e_{winner} - p_m`` the score of match ``m`` in the log-strengths, ``U_c`` its
    sum over cluster ``c`` (``G`` clusters, ``M`` matches, ``m = M / G`` per cluster) and
    ``H`` the observed information, the sandwich ``cov = B^+ A B^+``, centred to sum zero, with
    two pseudo-clusters of ``m`` matches that go alike (as :func:`paired_proportion`; a handful
    of deals that all split evenly would otherwise give a zero-width interval):
    ``A = (G + 2) / (G + 1) (sum_c U_c U_c^T + 2 m^2 H / M)``, ``B = (1 + 2 / G) H``. Matches of
    one cluster that move together (one deal decides every seating alike) widen the interval;
    seatings that mirror each other (a duplicate deal swapping the seats) narrow it. With one
    match per cluster and two competitors it is the information interval times
    ``sqrt(G / (G + 1))`` exactly (``sum_m u_m^2 = H`` there).

    Parameters
    ----------
    participants : ndarray of int, shape (matches, k)
        Competitor ids of each match; -1 pads.
    winners : ndarray of int, shape (matches,)
        The winner's id, or -1 (no winner: dropped).
    n_players : int
    clusters : array_like, shape (matches,)
        The cluster (deal) of each match.
    robust : bool
        False: the information (independent matches) covariance, as :func:`luce_ranking`.

    Returns
    -------
    LuceFit
    """
    participants = np.asarray(participants, dtype=np.int64)
    winners = np.asarray(winners, dtype=np.int64)
    clusters = np.asarray(clusters)
    log_s, low, high = luce_ranking(participants, winners, n_players, z=z)
    keep = winners >= 0
    participants, winners, clusters = participants[keep], winners[keep], clusters[keep]
    member = np.zeros((participants.shape[0], n_players), dtype=np.float64)
    rows = np.repeat(np.arange(participants.shape[0]), participants.shape[1])
    cols = participants.ravel()
    member[rows[cols >= 0], cols[cols >= 0]] = 1.0
    finite = np.isfinite(log_s)
    # luce_ranking's convention: an unbounded competitor has strength 0 in the others' fit
    strength = np.where(finite, np.exp(np.where(finite, log_s, 0.0)), 0.0)
    probs, info = _luce_information(member, strength)
    idx = np.flatnonzero(finite)
    cov = np.full((n_players, n_players), np.nan)
    codes, groups = np.unique(clusters, return_inverse=True)
    g = codes.size
    if idx.size >= 2:
        bread = _centred_inverse(info[np.ix_(idx, idx)])
        if robust and g >= 1:
            score = np.zeros_like(probs)
            score[np.arange(winners.size), winners] = 1.0
            score = (score - probs)[:, idx]
            per_cluster = np.zeros((g, idx.size))
            np.add.at(per_cluster, groups.ravel(), score)
            # Two pseudo-deals of the mean size whose matches all go alike (as
            # paired_proportion's): each adds size^2 times a match's mean information to the
            # meat and size matches to the bread, so deals that all split evenly (a zero meat)
            # never give a zero-width interval; their weight vanishes as the deals grow.
            size = winners.size / g
            sub = info[np.ix_(idx, idx)]
            meat = (g + 2) / (g + 1) * (per_cluster.T @ per_cluster
                                        + 2 * size * size * sub / winners.size)
            bread = bread / (1 + 2 / g)
            cov[np.ix_(idx, idx)] = bread @ meat @ bread
        elif not robust:
            cov[np.ix_(idx, idx)] = bread
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    with np.errstate(invalid="ignore"):
        low = np.where(finite, log_s - z * se, np.nan)
        high = np.where(finite, log_s + z * se, np.nan)
    return LuceFit(log_s, low, high, cov, int(g))


def paired_proportion(successes, clusters, groups=None, z: float = Z95,
                      strata=None) -> pd.DataFrame:
    """Share of events that are successes per group with a 95% Wilson interval at the
    cluster-effective sample size, where the clusters may pair events (the seatings of a
    duplicate deal): the design effect may fall below 1.

    :func:`clustered_proportion` never lets the interval be narrower than independent events'
    (right for events that cluster, such as one match's turns); a duplicate deal played with
    the seats swapped makes a strategy's outcomes on it mirror each other, and the paired
    interval is narrower by design. Here, with per-cluster totals ``Y_c``, ``X_c``, ``p = Y / X``
    and the delta-method variance ``v = G / (G - 1) sum_c (Y_c - p X_c)^2 / X^2``:

    - ``v`` is estimated with two pseudo-clusters of the mean cluster size added, one all
      successes and one all failures, so a handful of clusters that happen to agree (every deal
      split 1-1) never give a zero-width interval; their weight vanishes as ``G`` grows;
    - the interval is Wilson's at ``n = p (1 - p) / v`` trials (inside [0, 1] by construction);
    - where ``p`` is 0 or 1 the data say nothing about the pairing: the worst case, a cluster's
      events all alike (``n = X^2 / sum_c X_c^2``), as :func:`clustered_proportion`;
    - with ``strata`` (a strategy's opponents in a round robin: fixed by the design, each with
      its own expected rate) each cluster's residual is taken around its stratum's rate and the
      variance summed over strata, so the spread between opponents is not counted as chance.

    Parameters
    ----------
    successes, clusters, groups, z
        As :func:`clustered_proportion`; a cluster is a deal.
    strata : array_like, shape (events,), optional
        The stratum of each event (constant within a cluster).

    Returns
    -------
    DataFrame
        The frame of :func:`clustered_proportion`, its ``design_effect`` ``X / n`` and its
        ``effective_events`` ``n``.
    """
    y = np.asarray(successes, dtype=np.float64)
    sums = _cluster_sums(y, 1.0, clusters, groups)
    events = sums.X.to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        p = sums.Y.to_numpy() / events
        if strata is None:
            spread, padding = _paired_spread(sums)
        else:
            g = np.zeros(y.shape, dtype=np.int64) if groups is None else np.asarray(groups)
            cells = pd.DataFrame({"g": g, "h": np.asarray(strata)})
            key = cells.groupby(["g", "h"], sort=True, observed=True).ngroup().to_numpy()
            owner = cells.groupby(key, sort=True)["g"].first()
            per_stratum = _cluster_sums(y, 1.0, clusters, key)
            spread_h, padding_h = _paired_spread(per_stratum)
            spread = pd.Series(spread_h).groupby(owner.to_numpy()).sum().reindex(sums.index)
            padding = pd.Series(padding_h).groupby(owner.to_numpy()).sum().reindex(sums.index)
            spread, padding = spread.to_numpy(), padding.to_numpy()
        total = events + padding
        v = spread / (total * total)
        effective = np.where((p > 0) & (p < 1), p * (1 - p) / v,
                             events * events / sums.xx.to_numpy())
        deff = events / effective
    return _clustered_rates(sums, p, deff, effective, z)


def _paired_spread(sums: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per row of :func:`_cluster_sums` (a group, or a stratum): ``(G + 2) / (G + 1)`` times the
    residual square around the row's own rate with the two pseudo-clusters of
    :func:`paired_proportion` added, and the events those pseudo-clusters add."""
    g = sums.clusters.to_numpy(dtype=np.float64)
    events = sums.X.to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        p = sums.Y.to_numpy() / events
        size = events / g  # the pseudo-clusters' size
        residual = _residual_square(sums, p) + size * size * ((1 - p) ** 2 + p * p)
    return (g + 2) / (g + 1) * residual, 2 * size


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


def _clustered_rates(sums: pd.DataFrame, p, deff, effective, z: float) -> pd.DataFrame:
    """The rows of a clustered proportion: Wilson's interval at each group's effective number
    of events ``effective`` (float64, shape (groups,)) around the rate ``p``, beside the
    cluster sums ``sums`` (:func:`_cluster_sums`) and the design effect ``deff``."""
    low, high = wilson_interval(p * effective, effective, z)
    return pd.DataFrame({"events": sums.X.astype("int64"), "successes": sums.Y.astype("int64"),
                         "clusters": sums.clusters.astype("int64"), "rate": p,
                         "design_effect": deff, "effective_events": effective, "low": low,
                         "high": high}, index=sums.index)


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
    return _clustered_rates(sums, p, deff, effective, z)


# ---------------------------------------------------------------------------
# Tail probabilities, pooling across replications
# ---------------------------------------------------------------------------
def normal_quantile(p: float) -> float:
    """The standard normal quantile ``Phi^-1(p)`` (``p`` in (0, 1))."""
    return statistics.NormalDist().inv_cdf(p)


def z_for_level(alpha: float) -> float:
    """The two-sided normal quantile of a ``1 - alpha`` interval (0.05 -> 1.96)."""
    return normal_quantile(1.0 - alpha / 2.0)


def _continued_beta(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                          -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_beta(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_beta(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """``P(|T| >= |t|)`` for Student's t with ``df`` degrees of freedom (normal for ``df`` inf)."""
    if not np.isfinite(t):
        return 0.0 if np.isinf(t) else float("nan")
    if not np.isfinite(df):
        return math.erfc(abs(t) / math.sqrt(2.0))
    if df <= 0:
        return float("nan")
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def t_quantile_at(alpha: float, df: float) -> float:
    """The two-sided Student-t quantile of a ``1 - alpha`` interval (:func:`t_quantile` at the
    matching normal quantile; normal for ``df`` inf)."""
    z = z_for_level(alpha)
    return z if not np.isfinite(df) else t_quantile(int(df), z)


def chi2_sf(x: float, df: float) -> float:
    """``P(X >= x)`` for a chi-square variable with ``df`` degrees of freedom (the regularised
    upper incomplete gamma function ``Q(df / 2, x / 2)``)."""
    if df <= 0 or not np.isfinite(x):
        return float("nan")
    if x <= 0:
        return 1.0
    a, y = df / 2.0, x / 2.0
    log_front = a * math.log(y) - y - math.lgamma(a)
    if y < a + 1.0:  # series for the lower function
        term = total = 1.0 / a
        for n in range(1, 10_000):
            term *= y / (a + n)
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - math.exp(log_front) * total)
    tiny = 1e-300  # continued fraction for the upper function (modified Lentz)
    b = y + 1.0 - a
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for n in range(1, 10_000):
        an = -n * (n - a)
        b += 2.0
        d = an * d + b
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return math.exp(log_front) * h


class Pooled(NamedTuple):
    """Estimates of one quantity from independent replications, pooled.

    Attributes
    ----------
    estimate, low, high : float
        The inverse-variance (fixed-effect) pooled estimate and its 95% normal interval.
    q : float
        Cochran's Q, ``sum_i w_i (x_i - pooled)^2`` with ``w_i = 1 / se_i^2``.
    df : int
        Its degrees of freedom, replications - 1.
    p : float
        ``P(chi2_df >= Q)``: small when the replications disagree beyond their own errors.
    i2 : float
        Higgins' I^2 = ``max(0, (Q - df) / Q)``: the share of the spread that is not chance.
    """

    estimate: float
    low: float
    high: float
    q: float
    df: int
    p: float
    i2: float


def pooled_estimate(estimates, standard_errors, z: float = Z95) -> Pooled:
    """Pool one quantity's estimates from independent replications (fresh seeds).

    Parameters
    ----------
    estimates, standard_errors : array_like of float, shape (replications,)
        Each replication's estimate and its standard error (replications with a non-finite or
        zero standard error are left out).
    """
    x = np.asarray(estimates, dtype=np.float64)
    se = np.asarray(standard_errors, dtype=np.float64)
    keep = np.isfinite(x) & np.isfinite(se) & (se > 0)
    x, se = x[keep], se[keep]
    if x.size == 0:
        nan = float("nan")
        return Pooled(nan, nan, nan, nan, 0, nan, nan)
    w = 1.0 / (se * se)
    pooled = float((w * x).sum() / w.sum())
    half = z / math.sqrt(float(w.sum()))
    df = int(x.size - 1)
    q = float((w * (x - pooled) ** 2).sum())
    p = chi2_sf(q, df) if df > 0 else float("nan")
    i2 = max(0.0, (q - df) / q) if q > 0 else 0.0
    return Pooled(pooled, pooled - half, pooled + half, q, df, p, i2)


def interval_se(low, high, units=None, alpha: float = 0.05):
    """The standard error behind a two-sided ``1 - alpha`` interval ``[low, high]``: its width
    over twice the t quantile on ``units - 1`` degrees of freedom (normal without ``units``).
    For a percentile (bootstrap) interval this is the normal-equivalent standard error."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    if units is None:
        q = np.full(np.broadcast(low, high).shape, z_for_level(alpha))
    else:
        df = np.asarray(units, dtype=np.float64) - 1
        q = np.vectorize(lambda d: t_quantile_at(alpha, d) if d >= 1 else np.nan,
                         otypes=[np.float64])(df)
    return (high - low) / (2.0 * q)


def widened_interval(estimate, low, high, shared_se, z: float = Z95):
    """The interval ``[low, high]`` of ``estimate`` widened by an independent error of standard
    deviation ``shared_se`` (an estimated input every unit shares, e.g. a fitted table): the
    two variances add, each half-width at its own quantile (``z`` for the shared error).
    Returns ``(low, high)``, arrays or floats as given."""
    estimate = np.asarray(estimate, dtype=np.float64)
    below = estimate - np.asarray(low, dtype=np.float64)
    above = np.asarray(high, dtype=np.float64) - estimate
    extra = z * np.nan_to_num(np.asarray(shared_se, dtype=np.float64))
    out = (estimate - np.hypot(below, extra), estimate + np.hypot(above, extra))
    return tuple(float(v) for v in out) if estimate.ndim == 0 else out
