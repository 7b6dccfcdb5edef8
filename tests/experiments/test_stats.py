"""Interval and ranking estimators against hand-computed and simulated truths."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.stats import luce_ranking, mean_interval, wilson_interval


def test_wilson_interval_known_values():
    low, high = wilson_interval([0, 5, 10], [10, 10, 10])
    # 5/10: centre 0.5, half = 1.96*sqrt(0.025 + 0.0096)/1.384 = 0.2634
    np.testing.assert_allclose(low, [0.0, 0.23659309, 0.72246720], atol=1e-7)
    np.testing.assert_allclose(high, [0.27753280, 0.76340691, 1.0], atol=1e-7)
    low0, high0 = wilson_interval([0], [0])
    assert (low0[0], high0[0]) == (0.0, 1.0)


def test_mean_interval():
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    # sd = 1.29099, se = 0.645497, 1.959964 * se = 1.2651513
    assert mean == 2.5
    assert low == pytest.approx(2.5 - 1.2651513, abs=1e-6)
    assert high == pytest.approx(2.5 + 1.2651513, abs=1e-6)


def test_luce_ranking_recovers_bradley_terry_strengths():
    rng = np.random.default_rng(5)
    truth = np.array([-0.6, 0.0, 0.6])
    n = 30_000
    pairs = np.array([rng.choice(3, 2, replace=False) for _ in range(n)])
    s = np.exp(truth)
    p_first = s[pairs[:, 0]] / (s[pairs[:, 0]] + s[pairs[:, 1]])
    winners = np.where(rng.random(n) < p_first, pairs[:, 0], pairs[:, 1])
    log_s, low, high = luce_ranking(pairs, winners, 3)
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
    log_s, low, high = luce_ranking(trios, winners, 3)
    assert np.all(low < truth) and np.all(truth < high)


def test_luce_ranking_never_winning_is_minus_infinity():
    pairs = np.array([[0, 1]] * 10 + [[1, 2]] * 10)
    winners = np.array([0] * 5 + [1] * 5 + [1] * 10)
    log_s, _, _ = luce_ranking(pairs, winners, 3)
    assert log_s[2] == -np.inf and np.isfinite(log_s[0]) and np.isfinite(log_s[1])
