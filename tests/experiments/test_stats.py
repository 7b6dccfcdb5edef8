"""Interval and ranking estimators against hand-computed and simulated truths."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.stats import (
    bootstrap_ranks,
    clustered_mean,
    clustered_proportion,
    contrast_words,
    paired_contrast,
    t_quantile,
    clustered_ratio,
    luce_ranking,
    mean_interval,
    ratio_ci,
    wilson_interval,
)


def test_wilson_interval_known_values():
    low, high = wilson_interval([0, 5, 10], [10, 10, 10])
    # 5/10: centre 0.5, half = 1.96*sqrt(0.025 + 0.0096)/1.384 = 0.2634
    np.testing.assert_allclose(low, [0.0, 0.23659309, 0.72246720], atol=1e-7)
    np.testing.assert_allclose(high, [0.27753280, 0.76340691, 1.0], atol=1e-7)
    low0, high0 = wilson_interval([0], [0])
    assert (low0[0], high0[0]) == (0.0, 1.0)


def test_mean_interval():
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    # sd = 1.29099, se = 0.645497, t(3, 97.5%) = 3.182446, t * se = 2.0542603
    assert mean == 2.5
    assert low == pytest.approx(2.5 - 2.0542603, abs=1e-6)
    assert high == pytest.approx(2.5 + 2.0542603, abs=1e-6)


@pytest.mark.parametrize("df, quantile", [(1, 12.706205), (2, 4.302653), (3, 3.182446),
                                          (4, 2.776445), (9, 2.262157), (30, 2.042272),
                                          (199, 1.971957), (201, 1.971837), (1000, 1.962339)])
def test_t_quantile_matches_published_values(df, quantile):
    assert t_quantile(df) == pytest.approx(quantile, abs=2e-6)


def test_luce_ranking_recovers_bradley_terry_strengths():
    rng = np.random.default_rng(5)
    truth = np.array([-0.6, 0.0, 0.6])
    n = 30_000
    pairs = np.array([rng.choice(3, 2, replace=False) for _ in range(n)])
    s = np.exp(truth)
    p_first = s[pairs[:, 0]] / (s[pairs[:, 0]] + s[pairs[:, 1]])
    winners = np.where(rng.random(n) < p_first, pairs[:, 0], pairs[:, 1])
    _log_s, low, high = luce_ranking(pairs, winners, 3)
    assert np.all(low < truth) and np.all(truth < high)
    assert np.all(high - low < 0.1)


def test_luce_ranking_three_way_and_unfinished():
    rng = np.random.default_rng(9)
    truth = np.array([0.4, 0.0, -0.4])
    n = 20_000
    trios = np.tile(np.arange(3), (n, 1))
    p = np.exp(truth) / np.exp(truth).sum()
    winners = rng.choice(3, size=n, p=p)
    winners[:500] = -1  # unfinished matches are left out
    _log_s, low, high = luce_ranking(trios, winners, 3)
    assert np.all(low < truth) and np.all(truth < high)


def test_luce_ranking_never_winning_is_minus_infinity():
    pairs = np.array([[0, 1]] * 10 + [[1, 2]] * 10)
    winners = np.array([0] * 5 + [1] * 5 + [1] * 10)
    log_s, _, _ = luce_ranking(pairs, winners, 3)
    assert log_s[2] == -np.inf and np.isfinite(log_s[0]) and np.isfinite(log_s[1])


def test_clustered_proportion_hand_computed():
    # clusters: A = two successes, B = two failures, C = one success; p = 3 / 5
    # residuals Y_c - p X_c: 2 - 1.2, 0 - 1.2, 1 - 0.6 -> squares 0.64 + 1.44 + 0.16 = 2.24
    # clustered variance 2.24 / 25 = 0.0896, independent 0.6 * 0.4 / 5 = 0.048
    table = clustered_proportion([1, 1, 0, 0, 1], ["A", "A", "B", "B", "C"])
    row = table.iloc[0]
    assert (row.events, row.successes, row.clusters) == (5, 3, 3)
    assert row.rate == pytest.approx(0.6)
    assert row.design_effect == pytest.approx(0.0896 / 0.048)
    assert row.effective_events == pytest.approx(5 * 0.048 / 0.0896)
    low, high = wilson_interval(0.6 * row.effective_events, row.effective_events)
    assert (row.low, row.high) == (pytest.approx(float(low)), pytest.approx(float(high)))
    # Wilson at n = 75/28, p = 0.6, by hand: centre 0.573..., half-width 0.380...
    assert (row.low, row.high) == (pytest.approx(0.160459, abs=1e-6),
                                   pytest.approx(0.921705, abs=1e-6))


def test_clustered_proportion_is_wilson_with_one_event_per_cluster():
    rng = np.random.default_rng(3)
    hits = rng.random(2_000) < 0.3
    groups = rng.integers(0, 4, 2_000)
    table = clustered_proportion(hits, np.arange(2_000), groups)
    for g, row in table.iterrows():
        sel = hits[groups == g]
        low, high = wilson_interval(sel.sum(), sel.size)
        assert row.design_effect == pytest.approx(1.0)
        assert (row.low, row.high) == (pytest.approx(float(low)), pytest.approx(float(high)))
    # all failures: Wilson's (0, z^2 / (n + z^2)) as well
    zero = clustered_proportion(np.zeros(50), np.arange(50)).iloc[0]
    assert zero.low == pytest.approx(0.0, abs=1e-12)
    assert zero.high == pytest.approx(float(wilson_interval(0, 50)[1]))


def test_clustered_proportion_is_wider_for_correlated_events():
    rng = np.random.default_rng(4)
    matches = np.repeat(np.arange(400), 5)
    # every event of a match alike (perfect within-match correlation)
    alike = np.repeat(rng.random(400) < 0.3, 5)
    row = clustered_proportion(alike, matches).iloc[0]
    low, high = wilson_interval(alike.sum(), alike.size)
    assert row.design_effect == pytest.approx(5.0)  # the cluster size
    assert row.high - row.low > 2 * (high - low)
    # ... and equal to Wilson over the 400 matches
    m_low, m_high = wilson_interval(alike.sum() / 5, 400)
    assert (row.low, row.high) == (pytest.approx(float(m_low)), pytest.approx(float(m_high)))
    # no events have no information on their correlation: the worst case, one per match
    none = clustered_proportion(np.zeros(2_000), matches).iloc[0]
    assert none.design_effect == pytest.approx(5.0)
    assert none.high == pytest.approx(float(wilson_interval(0, 400)[1]))


def test_clustered_ratio_is_ratio_ci_of_the_cluster_totals():
    values = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0])
    matches = np.array([0, 0, 1, 2, 2, 2, 3])
    table = clustered_ratio(values, 1.0, matches)
    row = table.iloc[0]
    # per-match totals (4, 4, 15, 2) over events (2, 1, 3, 1): ratio 25 / 7
    ratio, low, high = ratio_ci([4, 4, 15, 2], [2, 1, 3, 1])
    assert row.ratio == pytest.approx(25 / 7) and row.ratio == pytest.approx(ratio)
    assert (row.low, row.high) == (pytest.approx(low), pytest.approx(high))
    # by hand: residuals 4 - 2r, 4 - r, 15 - 3r, 2 - r; se^2 = 4/3 * sum(res^2) / 49
    r = 25 / 7
    res = np.array([4 - 2 * r, 4 - r, 15 - 3 * r, 2 - r])
    se = np.sqrt(4 / 3 * (res ** 2).sum()) / 7
    assert row.se == pytest.approx(se)
    # groups are estimated separately; a single cluster has no interval
    grouped = clustered_ratio(values, 1.0, matches, groups=[0, 0, 0, 1, 1, 1, 1])
    assert grouped.loc[0, "ratio"] == pytest.approx(8 / 3)
    assert grouped.loc[1, "ratio"] == pytest.approx(17 / 4)
    single = clustered_ratio([1.0, 2.0], 1.0, [7, 7]).iloc[0]
    assert single.ratio == pytest.approx(1.5) and np.isnan(single.low)


def test_paired_share_interval_is_the_mean_interval_clipped_to_the_unit_range():
    from experiments.stats import mean_interval, paired_share_interval

    shares = [1.0, 1.0, 1.0, 0.5]
    mean, low, high = mean_interval(shares)
    assert high > 1.0  # the normal interval passes 1 here
    assert paired_share_interval(shares) == (mean, low, 1.0)
    assert paired_share_interval([0.0, 0.0, 0.5])[1] == 0.0


def test_paired_contrast_by_hand():
    # differences 1, 2, 3, 2: mean 2, sd 0.816497, se 0.408248, t(3) = 3.182446
    c = paired_contrast([3.0, 4.0, 5.0, 4.0], [2.0, 2.0, 2.0, 2.0])
    assert c.difference == 2.0 and c.units == 4
    assert c.low == pytest.approx(2.0 - 3.182446 * 0.408248, abs=1e-5)
    assert c.high == pytest.approx(2.0 + 3.182446 * 0.408248, abs=1e-5)
    # pooled sd: sqrt((0.666667 + 0) / 2) = 0.577350
    assert c.effect == pytest.approx(2.0 / 0.577350, abs=1e-5)
    assert c.detected
    assert contrast_words(c, "A", "B", "points").endswith(": A higher")


def test_paired_contrast_averages_rows_within_a_unit_and_words_a_null():
    # unit 0 rows average to (2, 1), unit 1 to (1, 2), unit 2 to (1.5, 1.5): differences 1, -1, 0
    c = paired_contrast([1, 3, 1, 1.5], [1, 1, 2, 1.5], clusters=[0, 0, 1, 2])
    assert c.units == 3 and c.difference == 0.0
    assert not c.detected
    assert contrast_words(c, "A", "B", "x").endswith("no detectable difference")


def test_clustered_mean_counts_a_cluster_once():
    one = clustered_mean([1.0, 2.0, 4.0], [0, 1, 2])
    twice = clustered_mean([1.0, 1.0, 2.0, 2.0, 4.0, 4.0], [0, 0, 1, 1, 2, 2])
    assert one == pytest.approx(twice)
    assert one == pytest.approx(mean_interval([1.0, 2.0, 4.0]))


def test_bootstrap_ranks_separate_clear_items_and_not_close_ones():
    rng = np.random.default_rng(3)
    values = rng.normal(size=(400, 4)) + np.array([0.0, 0.02, 1.0, -1.0])
    values[rng.random(values.shape) < 0.2] = np.nan
    ranks = bootstrap_ranks(values, resamples=300, seed=1)
    assert list(ranks["rank"]) == [3, 2, 1, 4] or list(ranks["rank"]) == [2, 3, 1, 4]
    assert (ranks.loc[2, "rank_low"], ranks.loc[2, "rank_high"]) == (1, 1)
    assert (ranks.loc[3, "rank_low"], ranks.loc[3, "rank_high"]) == (4, 4)
    assert ranks.loc[0, "rank_low"] == 2 and ranks.loc[0, "rank_high"] == 3
    assert ranks["best_share"].sum() == pytest.approx(1.0)


def test_contrast_words_never_print_a_bound_that_is_not_zero_as_zero():
    from experiments.stats import Contrast

    text = contrast_words(Contrast(-0.003, -0.005, -0.0004, 1000, -0.01), "A", "B", "edge", pct=True)
    assert "-0.30 pp [-0.50, -0.04]" in text and text.endswith("A lower")
    text = contrast_words(Contrast(0.0, 0.0, 0.0, 10, float("nan")), "A", "B", "x")
    assert "+0.000 [+0.000, +0.000]" in text and text.endswith("no detectable difference")


def test_a_shared_error_widens_an_interval_by_adding_variances():
    from experiments.stats import widened_interval

    assert widened_interval(1.0, 0.8, 1.2, 0.0) == pytest.approx((0.8, 1.2))
    low, high = widened_interval(1.0, 0.9, 1.3, 0.1 / 1.959963984540054)
    assert low == pytest.approx(1.0 - np.hypot(0.1, 0.1))
    assert high == pytest.approx(1.0 + np.hypot(0.3, 0.1))  # each side widened on its own
    lows, highs = widened_interval(np.array([0.0, 1.0]), np.array([-1.0, 0.5]),
                                   np.array([1.0, 1.5]), np.array([0.0, np.nan]))
    np.testing.assert_allclose(lows, [-1.0, 0.5]) and np.testing.assert_allclose(highs, [1.0, 1.5])
