"""Two strategies, duplicate deals, played until a sequential test separates them.

The test
--------
Strategy A's score on deal ``i`` is its share of the deal's seatings won:
``x_i = (wins of A over the deal's seatings, an unfinished match counting 1/2) /
seatings``, in ``[0, 1]`` (the two seatings of a two-strategy duplicate match give
0, 1/2 or 1; B's score is ``1 - x_i``). Deals are independent and alike, so the
``x_i`` are i.i.d. with mean ``mu``; A and B are equal when ``mu = 1/2``.

A variable in ``[0, 1]`` is sub-Gaussian with ``sigma = 1/2`` (Hoeffding's lemma),
so ``exp(lam * S_n - lam**2 * sigma**2 * n / 2)`` with ``S_n = sum(x_i - mu)`` is a
nonnegative supermartingale for every ``lam``. Mixing ``lam`` over a normal
``N(0, 1 / rho)`` (Robbins' normal mixture; Howard, Ramdas, McAuliffe and Sekhon,
*Time-uniform, nonparametric, nonasymptotic confidence sequences*, Ann. Statist.
2021) and applying Ville's inequality gives, with ``V_n = sigma**2 * n``,

    P( exists n : |S_n| >= u(n) ) <= alpha,   u(n) = sqrt((V_n + rho) * ln((V_n + rho) / (rho * alpha**2)))

so ``mean_n +- u(n) / n`` is a **confidence sequence**: it covers ``mu`` at every
deal at once with probability at least ``1 - alpha``, however the stopping deal is
chosen. The run stops at the first deal ``n`` whose sequence excludes 1/2
(``|sum(x_i - 1/2)| > u(n)``); the probability of ever separating two equal
strategies is at most ``alpha``. ``rho`` only tunes where the boundary is
tightest (:func:`mixture_rho`, at :data:`TARGET_DEALS` deals); it is valid at
every ``n`` whatever its value.

Determinism
-----------
Deals are looked at in their fixed order (match 0, 1, 2, ... of the group's
seed, as in a fixed-size run) and the boundary is evaluated after each deal;
the deals are played in batches of :func:`batch_bounds`, so a batch that
overshoots the stopping deal changes nothing reported: the result is
truncated at the stopping deal. The stop depends on the seed and options
only, never on the shard size, the threads or the backend.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.tools.tournament.config import TournamentConfig
from experiments.tools.tournament.report import TournamentResult
from experiments.tools.tournament.run import build_result, claim_tournament
from experiments.tools.tournament.seating_shards import seating_job, seating_tasks, shard_store
from sim.progress import progress_bar
from sim.scale.backends import open_backend
from sim.scale.runner import run_shards

SIGMA = 0.5
"""Sub-Gaussian scale of a per-deal score in [0, 1] (Hoeffding's lemma)."""

TARGET_DEALS = 200
"""The normal mixture is tuned to be tightest at this many deals (:func:`mixture_rho`)."""

FIRST_BATCH = 32
"""Deals in the first batch; each later batch doubles, up to :data:`MAX_BATCH`."""

MAX_BATCH = 4096
"""The largest batch of deals played before the boundary is checked again."""


def mixture_rho(target: int = TARGET_DEALS, alpha: float = 0.05, sigma: float = SIGMA) -> float:
    """The mixture precision ``rho`` that minimises the boundary ``u(target)``.

    With ``V = sigma**2 * target`` and ``t = V / rho``, ``d u(n)**2 / d rho = 0``
    at ``t - ln(1 + t) = -2 ln(alpha)``, solved here by bisection
    (``t`` about 8.2 at ``alpha = 0.05``).
    """
    goal = -2.0 * math.log(alpha)
    low, high = 1e-9, 1.0
    while high - math.log1p(high) < goal:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if mid - math.log1p(mid) < goal:
            low = mid
        else:
            high = mid
    return sigma ** 2 * target / (0.5 * (low + high))


def cs_radius(deals, alpha: float = 0.05, rho: float | None = None,
              sigma: float = SIGMA) -> np.ndarray:
    """Half-width ``u(n) / n`` of the normal-mixture confidence sequence for the mean of
    i.i.d. observations in ``[0, 1]`` after ``n`` of them (the module docstring's bound).

    Parameters
    ----------
    deals : array_like of int, shape (k,)
        Numbers of observations ``n >= 1``.
    alpha : float
        Error level: the sequence covers at every ``n`` at once with probability >= 1 - alpha.
    rho : float, optional
        Mixture precision (default :func:`mixture_rho` for ``alpha``).

    Returns
    -------
    ndarray of float64, shape (k,)
    """
    rho = mixture_rho(alpha=alpha, sigma=sigma) if rho is None else float(rho)
    n = np.asarray(deals, dtype=np.float64)
    v = sigma ** 2 * n + rho
    return np.sqrt(v * np.log(v / (rho * alpha ** 2))) / n


def deal_scores(matches: pd.DataFrame, name: str) -> np.ndarray:
    """Strategy ``name``'s score on each deal of a two-strategy duplicate match frame.

    Parameters
    ----------
    matches : DataFrame
        Match rows of one group (``match``, ``winner``, ``entity_strategy_<e>``),
        every deal in every seating.

    Returns
    -------
    ndarray of float64, shape (deals,)
        In match order: ``name``'s wins over the deal's seatings divided by the
        seatings, an unfinished match counting 1/2 (so the two strategies' scores
        add up to 1).
    """
    entities = sorted(c for c in matches.columns if c.startswith("entity_strategy_"))
    mine = np.full(len(matches), -1, dtype=np.int64)
    for column in entities:
        mine[(matches[column] == name).to_numpy()] = int(column.rsplit("_", 1)[1])
    winner = matches["winner"].to_numpy()
    score = np.where(winner < 0, 0.5, (winner == mine).astype(np.float64))
    per_deal = pd.Series(score).groupby(matches["match"].to_numpy(), sort=True).mean()
    return per_deal.to_numpy(dtype=np.float64)


def separation(scores, alpha: float = 0.05, rho: float | None = None) -> pd.DataFrame:
    """The confidence sequence after each deal of ``scores`` (in order).

    Returns
    -------
    DataFrame
        One row per deal: ``deals`` (n, 1-based), ``score`` (x_n), ``mean``,
        ``cs_radius``, ``cs_low``, ``cs_high`` (clipped to [0, 1]) and
        ``separated`` (1/2 outside the open interval ``mean +- radius``).
    """
    x = np.asarray(scores, dtype=np.float64)
    n = np.arange(1, x.size + 1)
    mean = np.cumsum(x) / n
    radius = cs_radius(n, alpha, rho)
    # |S_n - n/2| > u(n), written on the mean: exactly what the interval shows.
    separated = np.abs(mean - 0.5) > radius
    return pd.DataFrame({"deals": n, "score": x, "mean": mean, "cs_radius": radius,
                         "cs_low": np.clip(mean - radius, 0.0, 1.0),
                         "cs_high": np.clip(mean + radius, 0.0, 1.0), "separated": separated})


def first_separation(scores, alpha: float = 0.05, rho: float | None = None) -> int | None:
    """The first deal ``n`` (1-based) after which the confidence sequence excludes 1/2, or None."""
    hits = np.flatnonzero(separation(scores, alpha, rho)["separated"].to_numpy())
    return int(hits[0]) + 1 if hits.size else None


def batch_bounds(matches: int) -> list[tuple[int, int]]:
    """``(first_deal, count)`` of each batch up to ``matches`` deals: :data:`FIRST_BATCH`, then
    doubling to :data:`MAX_BATCH`. Fixed by ``matches`` alone (not the shard size), so a
    re-run finds the same shards on disk."""
    bounds, start, size = [], 0, FIRST_BATCH
    while start < matches:
        count = min(size, matches - start)
        bounds.append((start, count))
        start += count
        size = min(2 * size, MAX_BATCH)
    return bounds


@dataclass(frozen=True)
class Sequential:
    """Outcome of the sequential test of a :func:`until_separated` run.

    Attributes
    ----------
    names : (str, str)
        Strategies A (whose score is tested) and B.
    alpha, rho : float
        Error level and mixture precision (tightest at :data:`TARGET_DEALS` deals).
    cap : int
        ``--matches``: the most deals the run would play.
    stop : int or None
        The first deal after which the sequence excluded 1/2; None if it did not by ``cap``.
    deals : int
        Deals reported (``stop``, or ``cap``).
    played : int
        Deals played (the last batch may overshoot ``stop``; those are not reported).
    mean, low, high : float
        A's mean per-deal score over the reported deals and the confidence sequence there.
    winner : str or None
        The strategy the sequence favours at ``stop``.
    path : DataFrame
        :func:`separation` over the reported deals.
    """

    names: tuple
    alpha: float
    rho: float
    cap: int
    stop: int | None
    deals: int
    played: int
    mean: float
    low: float
    high: float
    winner: str | None
    path: pd.DataFrame

    def sentence(self) -> str:
        """The test and its outcome in one paragraph (summary.md, the command's output)."""
        a = self.names[0]
        test = (f"Confidence sequence (Robbins normal mixture, sub-Gaussian sigma = 1/2, "
                f"rho = {self.rho:.3g}, tightest near {TARGET_DEALS} deals) for {a}'s mean "
                f"per-deal score (its share of the deal's seatings won, unfinished = 1/2); "
                f"it covers at every deal at once with probability at least "
                f"{1 - self.alpha:g} (alpha = {self.alpha:g}), so stopping when it first "
                f"excludes 1/2 separates two equal strategies with probability at most "
                f"{self.alpha:g}.")
        if self.stop is None:
            outcome = (f"Not separated by --matches {self.cap:,} deals: at deal {self.deals:,} "
                       f"{a}'s mean score is {self.mean:.3f}, sequence "
                       f"[{self.low:.4f}, {self.high:.4f}] (contains 1/2).")
        else:
            outcome = (f"Stopped at deal {self.stop:,} (of at most {self.cap:,}): {a}'s mean "
                       f"score {self.mean:.3f}, sequence [{self.low:.4f}, {self.high:.4f}] "
                       f"excludes 1/2; winner {self.winner}.")
        return test + " " + outcome

    def as_dict(self) -> dict:
        """JSON-ready summary (no path)."""
        return {"strategies": list(self.names), "alpha": self.alpha, "rho": self.rho,
                "target_deals": TARGET_DEALS, "cap": self.cap, "stop": self.stop,
                "deals": self.deals, "played": self.played, "mean": self.mean,
                "low": self.low, "high": self.high, "winner": self.winner}


def until_separated(players: int, strategies: list, matches: int, seed: int, alpha=0.05,
                    threads: int | None = None, max_rounds: int = 1000,
                    out: str | os.PathLike | None = None, progress: bool = False,
                    backend="local", shard_size: int | None = None,
                    keep_shards: bool = False, sealed: bool = False, secret: str | None = None,
                    decision_timeout: float | None = None) -> TournamentResult:
    """Play a two-strategy duplicate match deal by deal until the sequential test separates
    the two (module docstring), or ``matches`` deals.

    Parameters
    ----------
    players : int
        2 or 4 (three players need three strategies).
    strategies : list of str and Strategy
        Exactly two: A (the tested score is A's) and B.
    matches : int
        The cap on deals; each deal is played in both seatings.
    seed : int
        Master seed: deal ``i`` is the same as in ``tournament(..., duplicate=True)``.
    alpha : float
        The test's error level (default 0.05).
    threads, max_rounds, out, progress, backend, shard_size, keep_shards
        As :func:`experiments.tools.tournament.run.tournament` (with ``out``, an
        interrupted run resumes from its shards).
    sealed, secret, decision_timeout
        As :func:`experiments.tools.tournament.run.tournament`: the run's sealing,
        one secret for every batch of deals.

    Returns
    -------
    TournamentResult
        Truncated at the stopping deal (or ``matches``), with ``sequential`` set.
    """
    config = TournamentConfig.build(players, strategies, matches, seed, duplicate=True,
                                    max_rounds=max_rounds, until_separated=True, alpha=alpha,
                                    sealed=sealed, secret=secret,
                                    decision_timeout=decision_timeout, threads=threads, out=out,
                                    progress=progress, backend=backend, shard_size=shard_size,
                                    keep_shards=keep_shards)
    claim_tournament(config)
    return play_until_separated(config)


def play_until_separated(config: TournamentConfig) -> TournamentResult:
    """Play ``config`` (a sequential tournament: ``until_separated``, its output directory
    claimed: :func:`experiments.tools.tournament.run.claim_tournament`) deal by deal until the test
    separates its two strategies or its ``matches`` cap, as its scale options say; build the
    tables and write them there."""
    scale = config.scale
    store = shard_store(config).open() if scale.out is not None else None
    backend = scale.backend
    owned = not hasattr(backend, "run")
    backend = open_backend(backend)
    seatings = 2
    bar = progress_bar(seatings * config.matches, scale.progress, desc="until separated")
    a, b = config.strategies
    rho = mixture_rho(alpha=config.alpha)
    frames, scores, stop, played = [], np.zeros(0), None, 0
    try:
        for first, count in batch_bounds(config.matches):
            run = run_shards(seating_job, seating_tasks(config, scale.shard_size, first, count),
                             backend=backend, store=store, threads=scale.threads, bar=bar)
            frame = run.frame()
            frames.append(frame)
            scores = np.concatenate([scores, deal_scores(frame, a)])
            played = first + count
            # The boundary after every deal so far, in order: the first crossing is the stop,
            # wherever the batch ends.
            stop = first_separation(scores, config.alpha, rho)
            if stop is not None:
                break
    finally:
        bar.close()
        if owned:
            backend.close()
        if store is not None:
            store.close()
    deals = config.matches if stop is None else stop
    all_matches = pd.concat(frames, ignore_index=True)
    all_matches = all_matches[all_matches["match"] < deals]
    all_matches = all_matches.sort_values(["pairing", "match"], kind="stable").reset_index(drop=True)
    path = separation(scores[:deals], config.alpha, rho)
    last = path.iloc[-1]
    winner = None
    if stop is not None:
        winner = a if last["mean"] > 0.5 else b
    sequential = Sequential(names=(a, b), alpha=config.alpha, rho=rho, cap=config.matches,
                            stop=stop, deals=deals, played=played, mean=float(last["mean"]),
                            low=float(last["cs_low"]), high=float(last["cs_high"]),
                            winner=winner, path=path)
    result = build_result(config, all_matches, matches_per_seating=deals, sequential=sequential)
    if scale.out is not None:
        result.write(scale.out)
        if not scale.keep_shards:
            store.remove()
    return result
