"""Calibration: the intervals the results rest on cover 95% of the time, and a check that says so
fails when they are a third too narrow.

Four kinds of interval, each measured on many seeds of a small design:

- the tournament's paired intervals (two players, duplicate deals, the deal as the unit):
  each pairing's head-to-head share
  (:func:`experiments.tools.tournament.tables.pairwise_intervals`),
  its paired contrast (:func:`~experiments.tools.tournament.tables.head_to_head_contrast`),
  each strategy's win rate (:func:`~experiments.tools.tournament.tables.paired_win_rates`) and
  the strength ladder's interval of a per-deal share
  (:func:`experiments.stats.paired_share_interval`);
- the Luce (Bradley-Terry) intervals of the same runs, deal-clustered
  (:func:`~experiments.tools.tournament.tables.match_ranking`): each log-strength and each
  difference of two;
- the openings' t intervals over hands: each tile's value and its value relative to its hand's
  mean opening (:func:`experiments.studies.opening_leads.tile_values` of
  :func:`sim.study_kernels.openings.opening_counterfactual`);
- the win table's bootstrap intervals (:func:`sim.study_kernels.winprob.win_values`): a dozen
  states' values with the leader known and by lot.

The truth is unknown. Its stand-in for seed ``i`` is the mean of the other seeds' estimates
(leave one out, so that it is independent of the interval it judges). It has an error of its
own, ``1 / (S - 1)`` of an estimate's variance with ``S`` seeds, so a calibrated interval covers
it with probability ``2 Phi(1.96 sqrt((S - 1) / S)) - 1`` (94.9% at 100 seeds), which is what is
expected. Its bias is the estimator's mean minus the truth: these estimators (means, ratios of
sums, a maximum likelihood fit at 200 matches per pairing) have biases far below their standard
errors, which the check could not tell from chance.

The check (:func:`coverage`): the share of intervals that hold their stand-in, with its
binomial error taking the seed as the cluster (a seed's intervals share its matches), must lie
within :data:`TOLERANCE` binomial errors of the expected share, on either side (an interval too
wide wastes the data, one too narrow makes false findings). The designs are sized so that a
calibrated interval and one a third too narrow (81% coverage) lie at least that far apart:
each test of the test narrows the intervals by a third, through the interval code itself
(monkeypatched), and the check must fail.

The checks on the project's intervals are slow (a few minutes on two cores: ``-m slow``); the
check itself is tested in the default run.
"""

from __future__ import annotations

import math
import statistics
from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest

from experiments.stats import Z95

TOLERANCE = 3.0
"""Binomial errors the measured coverage may lie from the expected one."""

NARROW = 2.0 / 3.0
"""An interval narrowed by a third: each side's distance to the estimate times 2/3 (a 95%
normal interval becomes a 81% one)."""

NARROW_COVERAGE = 2 * statistics.NormalDist().cdf(NARROW * Z95) - 1
"""The coverage of a 95% normal interval narrowed by a third (80.9%)."""


# ---------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------
class Coverage(NamedTuple):
    """How often a kind of interval holds its stand-in for the truth.

    Attributes
    ----------
    intervals, seeds : int
    covered : float
        The share of intervals holding the mean of the other seeds' estimates.
    expected : float
        The share a calibrated 95% interval would give (below 0.95 by the stand-in's error).
    se : float
        The binomial error of ``covered``, seeds as clusters (never below the binomial error of
        independent intervals at the expected share).
    """

    intervals: int
    seeds: int
    covered: float
    expected: float
    se: float

    @property
    def z(self) -> float:
        return (self.covered - self.expected) / self.se

    @property
    def calibrated(self) -> bool:
        return abs(self.z) <= TOLERANCE

    def __str__(self) -> str:
        return (f"{self.covered:.3f} of {self.intervals} intervals over {self.seeds} seeds cover, "
                f"{self.expected:.3f} expected, binomial error {self.se:.4f} (z = {self.z:+.1f})")


def coverage(frame: pd.DataFrame) -> Coverage:
    """:class:`Coverage` of a frame with one row per interval: ``quantity`` (what it estimates,
    the same on every seed), ``seed``, ``estimate``, ``low``, ``high``."""
    frame = frame[np.isfinite(frame["estimate"]) & np.isfinite(frame["low"])
                  & np.isfinite(frame["high"])]
    grouped = frame.groupby("quantity")["estimate"]
    count = grouped.transform("size").to_numpy(dtype=np.float64)
    others = (grouped.transform("sum").to_numpy() - frame["estimate"].to_numpy()) / (count - 1)
    hit = ((frame["low"].to_numpy() <= others) & (others <= frame["high"].to_numpy()))[count >= 2]
    seeds = frame["seed"].to_numpy()[count >= 2]
    count = count[count >= 2]
    unit = statistics.NormalDist()
    expected = float(np.mean([2 * unit.cdf(Z95 * math.sqrt((s - 1) / s)) - 1 for s in count]))
    covered = float(hit.mean())
    per_seed = pd.DataFrame({"seed": seeds, "hit": hit}).groupby("seed")["hit"].agg(["sum", "size"])
    g = len(per_seed)
    residual = ((per_seed["sum"] - covered * per_seed["size"]) ** 2).sum()
    clustered = math.sqrt(g / (g - 1) * residual) / hit.size
    independent = math.sqrt(expected * (1 - expected) / hit.size)
    return Coverage(int(hit.size), g, covered, expected, max(clustered, independent))


def narrowed(frame: pd.DataFrame, factor: float = NARROW) -> pd.DataFrame:
    """The intervals of ``frame`` with each side's distance to the estimate times ``factor``."""
    out = frame.copy()
    out["low"], out["high"] = shrink(out["estimate"], out["low"], out["high"], factor)
    return out


def shrink(estimate, low, high, factor: float = NARROW):
    """``low`` and ``high`` brought towards ``estimate`` by ``factor``."""
    return estimate - factor * (estimate - low), estimate + factor * (high - estimate)


def assert_calibrated(frame: pd.DataFrame, what: str) -> Coverage:
    result = coverage(frame)
    assert result.calibrated, f"{what}: {result}"
    # the design tells a calibrated interval from one a third too narrow: the narrow one's
    # coverage (81%, its binomial error larger by the ratio of the two binomial deviations)
    # lies more than TOLERANCE errors below the band of this check
    narrow_se = result.se * math.sqrt(NARROW_COVERAGE * (1 - NARROW_COVERAGE)
                                      / (result.expected * (1 - result.expected)))
    assert result.expected - TOLERANCE * result.se > NARROW_COVERAGE + TOLERANCE * narrow_se, \
        f"{what}: too few intervals to separate 95% from 81% coverage ({result})"
    return result


def assert_narrowed_fails(frame: pd.DataFrame, what: str) -> None:
    result = coverage(narrowed(frame))
    assert not result.calibrated and result.z < -TOLERANCE, f"{what}, narrowed: {result}"


def test_the_check_by_simulation():
    """Normal estimates with their true standard errors: calibrated; a third too narrow, or
    half again too wide: not. (Fast: the check alone.)"""
    rng = np.random.default_rng(1)
    seeds, quantities = 100, 3
    se = rng.uniform(0.5, 2.0, size=(seeds, quantities))
    estimate = 10.0 + se * rng.standard_normal((seeds, quantities))
    frame = pd.DataFrame({"quantity": np.tile(np.arange(quantities), seeds),
                          "seed": np.repeat(np.arange(seeds), quantities),
                          "estimate": estimate.ravel(), "low": (estimate - Z95 * se).ravel(),
                          "high": (estimate + Z95 * se).ravel()})
    assert coverage(frame).calibrated
    assert coverage(frame).expected == pytest.approx(0.9488, abs=1e-4)
    assert coverage(narrowed(frame)).z < -TOLERANCE
    assert coverage(narrowed(frame, 1.5)).z > TOLERANCE


# ---------------------------------------------------------------------------
# The tournament and the Luce fit: two players, duplicate deals
# ---------------------------------------------------------------------------
FIELD = ("greedy", "defensive", "weighted")
"""Three strategies of different strength (head to head about 0.3, 0.2 and 0.3 for the weaker)
and different play (no two that play alike on most deals, whose per-deal outcomes would be a
few nonzero values among zeros)."""

TOURNAMENT_DEALS = 100
"""Duplicate deals per pairing (each played in both seatings)."""

TOURNAMENT_SEEDS = tuple(440_000 + i for i in range(100))
"""100 seeds: three pairings each, so 300 independent pairings (binomial error 1.3%)."""


@pytest.fixture(scope="module")
def tournament_frames(compiled_engine):
    """Each seed's match frame: every seating of :data:`FIELD`, played as a duplicate
    tournament plays them (its configuration and seatings)."""
    from experiments.tools.tournament.config import TournamentConfig
    from experiments.tools.tournament.seating_shards import run_seatings

    frames = {}
    for seed in TOURNAMENT_SEEDS:
        config = TournamentConfig.build(2, list(FIELD), TOURNAMENT_DEALS, seed, duplicate=True)
        frames[seed] = run_seatings(config).frame()
    return frames


def tournament_intervals(frames: dict) -> pd.DataFrame:
    """The intervals of each seed's tables, one row each: ``kind``, ``quantity``, ``seed``,
    ``estimate``, ``low``, ``high``."""
    from experiments import stats
    from experiments.tools.tournament import tables

    names = list(FIELD)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    rows = []
    for seed, frame in frames.items():
        entities = tables.entity_frame(frame)
        shares = tables.pairwise_intervals(entities, names, True).set_index(["strategy",
                                                                            "opponent"])
        for a, b in pairs:
            share = shares.loc[(a, b)]
            rows.append(("pairwise share", f"{a} > {b}", seed, share.share, share.low,
                         share.high))
            contrast = tables.head_to_head_contrast(entities, a, b, True)
            rows.append(("paired contrast", f"{a} - {b}", seed, contrast.difference,
                         contrast.low, contrast.high))
            # the strength ladder's interval: a's win share per deal, t over deals
            both = tables.head_to_head(entities, a, b)
            per_deal = both.groupby(tables.unit_keys(both, True))["a_won"].mean()
            rows.append(("ladder share", f"{a} > {b}", seed,
                         *stats.paired_share_interval(per_deal.to_numpy())))
        for rate in tables.paired_win_rates(entities, names).itertuples():
            rows.append(("paired win rate", rate.strategy, seed, rate.win_rate,
                         rate.paired_low, rate.paired_high))
        _, fit = tables.match_ranking(frame, names, True)
        for i, name in enumerate(names):
            rows.append(("Luce log-strength", name, seed, fit.log_strength[i], fit.low[i],
                         fit.high[i]))
        for a, b in pairs:
            difference, low, high = fit.difference(names.index(a), names.index(b))
            rows.append(("Luce difference", f"{a} - {b}", seed, difference, low, high))
    return pd.DataFrame(rows, columns=["kind", "quantity", "seed", "estimate", "low", "high"])


@pytest.fixture(scope="module")
def tournament_table(tournament_frames):
    return tournament_intervals(tournament_frames)


TOURNAMENT_KINDS = ("pairwise share", "paired contrast", "paired win rate", "ladder share")
LUCE_KINDS = ("Luce log-strength", "Luce difference")


@pytest.mark.slow
@pytest.mark.parametrize("kind", TOURNAMENT_KINDS + LUCE_KINDS)
def test_tournament_and_luce_intervals_are_calibrated(tournament_table, kind):
    assert_calibrated(tournament_table[tournament_table["kind"] == kind], kind)


def narrow_tournament_code(monkeypatch):
    """Narrow the tournament's interval code by a third where its tables call it (the
    deal-clustered Wilson interval, the paired t interval and the Luce covariance) and the
    strength ladder's per-deal share interval."""
    from experiments import stats
    from experiments.stats import LuceFit
    from experiments.tools.tournament import tables

    proportion, contrast, luce = (tables.paired_proportion, tables.paired_contrast,
                                  tables.clustered_luce)
    share = stats.paired_share_interval

    def narrow_share(*args, **kwargs):
        mean, low, high = share(*args, **kwargs)
        return (mean, *shrink(mean, low, high))

    def narrow_proportion(*args, **kwargs):
        out = proportion(*args, **kwargs).copy()
        out["low"], out["high"] = shrink(out["rate"], out["low"], out["high"])
        return out

    def narrow_contrast(*args, **kwargs):
        found = contrast(*args, **kwargs)
        low, high = shrink(found.difference, found.low, found.high)
        return found._replace(low=low, high=high)

    def narrow_luce(*args, **kwargs):
        fit = luce(*args, **kwargs)
        low, high = shrink(fit.log_strength, fit.low, fit.high)
        return LuceFit(fit.log_strength, low, high, fit.cov * NARROW ** 2, fit.clusters)

    monkeypatch.setattr(tables, "paired_proportion", narrow_proportion)
    monkeypatch.setattr(tables, "paired_contrast", narrow_contrast)
    monkeypatch.setattr(tables, "clustered_luce", narrow_luce)
    monkeypatch.setattr(stats, "paired_share_interval", narrow_share)


@pytest.mark.slow
def test_tournament_and_luce_intervals_narrowed_by_a_third_fail(tournament_frames,
                                                                tournament_table, monkeypatch):
    """The interval code narrowed by a third gives the narrowed intervals (checked on three
    seeds), and on every seed those fail the check."""
    narrow_tournament_code(monkeypatch)
    few = {seed: tournament_frames[seed] for seed in TOURNAMENT_SEEDS[:3]}
    patched = tournament_intervals(few)
    honest = tournament_table[tournament_table["seed"].isin(few)].reset_index(drop=True)
    expected = narrowed(honest)
    np.testing.assert_allclose(patched[["low", "high"]], expected[["low", "high"]], atol=1e-9)
    for kind in TOURNAMENT_KINDS + LUCE_KINDS:
        assert_narrowed_fails(tournament_table[tournament_table["kind"] == kind], kind)


# ---------------------------------------------------------------------------
# The openings: each tile forced as the opening, t intervals over hands
# ---------------------------------------------------------------------------
OPENING_HANDS, OPENING_PLAYOUTS = 60, 8
"""Hands per seed (each tile is in about 11 of them) and playouts per hand and tile."""

OPENING_SEEDS = tuple(450_000 + i for i in range(60))
"""60 seeds: 28 tiles each, two intervals per tile."""


@pytest.fixture(scope="module")
def opening_tiles(compiled_engine):
    """Each seed's per-(hand, tile) values: ``greedy`` leading at two players, the round played
    out by ``greedy``."""
    from sim.study_kernels.openings import opening_counterfactual

    return {seed: opening_counterfactual(2, "greedy", hands=OPENING_HANDS,
                                         playouts=OPENING_PLAYOUTS, seed=seed).per_tile()
            for seed in OPENING_SEEDS}


def opening_intervals(per_tile: dict) -> pd.DataFrame:
    """Each seed's tile values and relative values with their t intervals over hands."""
    from experiments.studies.opening_leads import tile_values

    rows = []
    for seed, frame in per_tile.items():
        values = tile_values(frame, resamples=2)  # the rank bootstrap is not checked here
        for row in values[values["hands"] >= 2].itertuples():
            rows.append(("tile value", row.tile, seed, row.mean, row.low, row.high))
            rows.append(("relative value", row.tile, seed, row.relative_mean, row.relative_low,
                         row.relative_high))
    return pd.DataFrame(rows, columns=["kind", "quantity", "seed", "estimate", "low", "high"])


@pytest.fixture(scope="module")
def opening_table(opening_tiles):
    return opening_intervals(opening_tiles)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ("tile value", "relative value"))
def test_opening_t_intervals_are_calibrated(opening_table, kind):
    assert_calibrated(opening_table[opening_table["kind"] == kind], kind)


@pytest.mark.slow
def test_opening_t_intervals_narrowed_by_a_third_fail(opening_tiles, opening_table, monkeypatch):
    from experiments.studies import opening_leads

    mean_interval, contrast = opening_leads.mean_interval, opening_leads.paired_contrast

    def narrow_mean(*args, **kwargs):
        mean, low, high = mean_interval(*args, **kwargs)
        return (mean, *shrink(mean, low, high))

    def narrow_contrast(*args, **kwargs):
        found = contrast(*args, **kwargs)
        low, high = shrink(found.difference, found.low, found.high)
        return found._replace(low=low, high=high)

    monkeypatch.setattr(opening_leads, "mean_interval", narrow_mean)
    monkeypatch.setattr(opening_leads, "paired_contrast", narrow_contrast)
    few = {seed: opening_tiles[seed] for seed in OPENING_SEEDS[:3]}
    patched = opening_intervals(few)
    honest = opening_table[opening_table["seed"].isin(few)].reset_index(drop=True)
    np.testing.assert_allclose(patched[["low", "high"]], narrowed(honest)[["low", "high"]],
                               atol=1e-9)
    for kind in ("tile value", "relative value"):
        assert_narrowed_fails(opening_table[opening_table["kind"] == kind], kind)


# ---------------------------------------------------------------------------
# The win table: greedy self-play at two players, few rounds per state
# ---------------------------------------------------------------------------
WINPROB_ROUNDS, WINPROB_REPLICATES = 4, 60
"""Rounds per state and bootstrap replicates (the shipped table has more of both: the check is
of the method, at a size where each interval is wide)."""

WINPROB_SEEDS = tuple(460_000 + i for i in range(48))

WINPROB_CELLS = ((0, 0), (10, 25), (25, 10), (20, 40), (30, 30), (40, 20), (45, 45), (35, 50),
                 (50, 35), (52, 52))
"""Displayed scores (own, other) of the states checked: from the start to near 61, none whose
value is within a few points of 0 or 1."""


@pytest.fixture(scope="module")
def win_values(compiled_engine):
    """Each seed's solved table with its bootstrap replicates."""
    from sim.study_kernels import winprob

    out = {}
    for seed in WINPROB_SEEDS:
        rounds = winprob.simulate_states(2, "greedy", WINPROB_ROUNDS, seed=seed)
        out[seed] = winprob.win_values(rounds, replicates=WINPROB_REPLICATES)
    return out


def winprob_intervals(values: dict) -> pd.DataFrame:
    """Entity 0's value at each of :data:`WINPROB_CELLS`, leading and by lot, with its 95%
    bootstrap interval."""
    rows = []
    for seed, table in values.items():
        for cell in WINPROB_CELLS:
            for leader, label in ((0, "leads"), (None, "by lot")):
                low, high = table.interval(cell, leader)
                rows.append(("win table value", f"{cell} {label}", seed,
                             float(table.value(cell, leader)[0]), float(low[0]), float(high[0])))
    return pd.DataFrame(rows, columns=["kind", "quantity", "seed", "estimate", "low", "high"])


@pytest.fixture(scope="module")
def winprob_table(win_values):
    return winprob_intervals(win_values)


@pytest.mark.slow
def test_win_table_bootstrap_intervals_are_calibrated(winprob_table):
    assert_calibrated(winprob_table, "win table value")


@pytest.mark.slow
def test_win_table_bootstrap_intervals_narrowed_by_a_third_fail(win_values, winprob_table,
                                                                monkeypatch):
    """The bootstrap's replicates brought a third closer to the solved values (each seed's own
    replicates, not drawn again) give the narrowed percentile intervals; they fail the check."""
    from sim.study_kernels import winprob

    few = {seed: win_values[seed] for seed in WINPROB_SEEDS[:3]}
    by_rounds = {id(table.rounds): table for table in few.values()}

    def narrow_bootstrap(rounds, replicates, seed=0, **kwargs):
        table = by_rounds[id(rounds)]
        values = table.values[None].astype(np.float32)
        lot = table.lot[None].astype(np.float32)
        return (values + NARROW * (table.replicates - values),
                lot + NARROW * (table.lot_replicates - lot))

    monkeypatch.setattr(winprob, "bootstrap", narrow_bootstrap)
    patched = winprob_intervals({seed: winprob.win_values(table.rounds,
                                                          replicates=WINPROB_REPLICATES)
                                 for seed, table in few.items()})
    honest = winprob_table[winprob_table["seed"].isin(few)].reset_index(drop=True)
    np.testing.assert_allclose(patched[["low", "high"]], narrowed(honest)[["low", "high"]],
                               atol=1e-5)
    assert_narrowed_fails(winprob_table, "win table value")
