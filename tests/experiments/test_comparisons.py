"""Comparison families: Holm and Benjamini-Hochberg as published, adjusted intervals that agree
with the procedures' decisions, verdicts by the smallest effect of interest, the plan as the
declaration, simultaneous rank intervals, and the tail probabilities behind them."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.comparisons import (EXPLORATORY, PRIMARY, VERDICTS, Comparison, ComparisonPlan,
                                     Quantity, adjusted_words, benjamini_hochberg, holm,
                                     simultaneous_ranks, verdict)
from experiments.stats import chi2_sf, pooled_estimate, t_quantile_at, t_two_sided_p


def test_tail_probabilities_match_tables():
    # Student t and chi-square tables (values to the digits printed there)
    assert t_two_sided_p(2.571, 5) == pytest.approx(0.05, abs=5e-5)
    assert t_two_sided_p(1.96, float("inf")) == pytest.approx(0.05, abs=1e-4)
    assert t_two_sided_p(12.706, 1) == pytest.approx(0.05, abs=1e-5)
    assert t_quantile_at(0.01, 10) == pytest.approx(3.169, abs=1e-3)
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(18.307, 10) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(0.0, 3) == 1.0


def test_holm_and_bh_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    p_holm, levels = holm(p)
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, 2*0.03, 1*0.04 (monotone)
    assert p_holm == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # rejects 0.005 (<= 0.0125) and 0.01 (<= 0.0167), stops at 0.03 (> 0.025)
    assert levels == pytest.approx([0.05 / 3, 0.025, 0.025, 0.0125])
    p_bh, levels = benjamini_hochberg(p)
    # 0.04 <= 4/4 * 0.05: all four rejected
    assert p_bh == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert levels == pytest.approx([0.05] * 4)
    # a declared family larger than the computed rows counts in full
    assert holm([0.01], m=5)[0] == pytest.approx([0.05])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-4, 4), min_size=1, max_size=12), st.sampled_from([PRIMARY, EXPLORATORY]),
       st.integers(0, 6))
def test_an_adjusted_interval_excludes_zero_exactly_where_the_procedure_rejects(z, family, extra):
    """Whatever the estimates: the adjusted interval excludes 0 iff the adjusted p-value is at
    most alpha, and it is never narrower than the marginal 95% interval."""
    units = 400
    d = np.asarray(z) * 0.01
    half = 1.966 * 0.01  # the t quantile on 399 degrees of freedom
    ids = [f"c{i}" for i in range(len(d))]
    declared = ids + [f"later{i}" for i in range(extra)]
    plan = ComparisonPlan("test", (Quantity("q", "q", 0.0),),
                          tuple(Comparison(i, family, "q") for i in declared))
    frame = pd.DataFrame({"id": ids, "difference": d, "low": d - half, "high": d + half,
                          "deals": units})
    out = plan.adjust(frame)
    excludes = (out["adj_low"] > 0) | (out["adj_high"] < 0)
    rejected = out["p_adjusted"] <= 0.05 + 1e-12
    assert (excludes == rejected).all()
    assert (out["adj_high"] - out["adj_low"] >= 2 * half - 1e-9).all()


def test_verdicts_by_the_smallest_effect_of_interest():
    assert verdict(0.001, 0.004, 0.01) == VERDICTS.equivalent  # nonzero, but trivial
    assert verdict(-0.004, 0.004, 0.01) == VERDICTS.equivalent
    assert verdict(0.002, 0.02, 0.01) == VERDICTS.finding
    assert verdict(-0.02, 0.004, 0.01) == VERDICTS.inconclusive
    assert verdict(np.nan, np.nan, 0.01) == VERDICTS.inconclusive


def plan_of(*families):
    return ComparisonPlan("test", (Quantity("won", "match win share", 0.02, True, "why"),),
                          tuple(Comparison(f"c{i}", f, "won") for i, f in enumerate(families)),
                          note="c0 is the question")


def test_the_plan_is_the_declaration(tmp_path):
    plan = plan_of(PRIMARY, EXPLORATORY)
    frame = pd.DataFrame({"id": ["c0", "x"], "difference": [0.1, 0.1], "low": [0.05, 0.05],
                          "high": [0.15, 0.15], "deals": [100, 100]})
    with pytest.raises(ValueError, match="'x' was not declared"):
        plan.adjust(frame)
    with pytest.raises(ValueError, match="declared twice"):
        plan_of(PRIMARY, PRIMARY).__class__("t", plan.quantities, (plan.comparisons[0],) * 2)
    with pytest.raises(ValueError, match="quantity 'lost' is not declared"):
        ComparisonPlan("t", plan.quantities, (Comparison("c", PRIMARY, "lost"),))
    path = plan.write(tmp_path)
    again = ComparisonPlan.from_json(json.loads(path.read_text()))
    assert again == plan and again.digest() == plan.digest()
    assert plan_of(PRIMARY, PRIMARY).digest() != plan.digest()


def test_words_follow_the_adjusted_interval():
    plan = plan_of(PRIMARY, PRIMARY, EXPLORATORY)
    frame = pd.DataFrame({"id": ["c0", "c1", "c2"], "difference": [0.05, 0.001, -0.01],
                          "low": [0.03, -0.004, -0.03], "high": [0.07, 0.006, 0.01],
                          "deals": [1500] * 3})
    rows = list(plan.adjust(frame).itertuples(index=False))
    words = [adjusted_words(r, "exact", "greedy", "match win share", True) for r in rows]
    assert words[0].endswith("(Holm, 97.5%), n = 1,500: exact higher")
    assert words[1].endswith(": equivalent within +-2 pp")
    assert words[2].endswith(": no detectable difference")
    assert "Benjamini-Hochberg" in words[2]


def test_simultaneous_ranks_hold_the_truth_and_widen_with_the_family():
    rng = np.random.default_rng(3)
    truth = np.array([0.0, 0.05, 0.1, 0.5, 1.0])
    x = rng.normal(size=(400, 5)) + truth
    x[rng.random(x.shape) < 0.2] = np.nan
    ranks = simultaneous_ranks(x, resamples=300, seed=1)
    true_rank = np.array([5, 4, 3, 2, 1])
    assert ((ranks["rank_low"] <= true_rank) & (true_rank <= ranks["rank_high"])).all()
    assert ranks.loc[4, "rank_low"] == ranks.loc[4, "rank_high"] == 1  # clearly best
    assert ranks.loc[0, "rank_high"] - ranks.loc[0, "rank_low"] >= 1  # 0 vs 0.05: unresolved


def test_pooling_and_heterogeneity():
    agree = pooled_estimate([0.50, 0.51, 0.49], [0.01, 0.01, 0.01])
    assert agree.estimate == pytest.approx(0.50)
    assert agree.q == pytest.approx(2.0) and agree.df == 2
    assert agree.i2 == pytest.approx(0.0, abs=1e-12)
    assert agree.p == pytest.approx(np.exp(-1.0))  # chi2 with 2 df: sf(2) = e^-1
    # the two exact vs greedy estimates the issue names: z = 3.1, they disagree
    split = pooled_estimate([0.503, 0.524], [0.0066, 0.0015])
    assert split.p < 0.01 and split.i2 > 0.8


def test_simultaneous_ranks_carry_a_shared_inputs_error():
    """Items well apart over the units but moved together by an input every unit shares (a
    fitted table, with replicates) are no longer resolved once its replicates are given."""
    rng = np.random.default_rng(4)
    units, items = 400, 5
    values = np.arange(items) * 0.05 + rng.normal(0, 0.01, (units, items))
    alone = simultaneous_ranks(values, resamples=200, seed=1)
    assert (alone["rank_low"] == alone["rank_high"]).all()  # every rank resolved
    shifts = rng.normal(0, 0.1, (40, items))  # the shared input's error per replicate
    replicas = values[None] + shifts[:, None, :]
    shared = simultaneous_ranks(values, resamples=200, seed=1, table_values=replicas)
    assert (shared["rank_high"] - shared["rank_low"]).sum() > 0
    assert (shared["rank"] == alone["rank"]).all()  # the point ranks are the values'


def test_a_comparison_without_an_interval_gets_no_verdict():
    """A tile held by one hand has an estimate but no interval: it counts in its family and is
    neither a finding nor equivalent; a zero-width interval (both sides equal on every unit)
    keeps its estimate."""
    plan = plan_of(EXPLORATORY, EXPLORATORY, EXPLORATORY)
    frame = pd.DataFrame({"id": ["c0", "c1", "c2"], "difference": [0.3, 0.0, 0.05],
                          "low": [np.nan, 0.0, 0.03], "high": [np.nan, 0.0, 0.07],
                          "deals": [1, 50, 50]})
    out = plan.adjust(frame).set_index("id")
    assert np.isnan(out.loc["c0", "adj_low"]) and out.loc["c0", "p"] == 1.0
    assert out.loc["c0", "verdict"] == VERDICTS.inconclusive
    assert out.loc["c1", "adj_low"] == out.loc["c1", "adj_high"] == 0.0
    assert out.loc["c1", "verdict"] == VERDICTS.equivalent
    assert out.loc["c2", "verdict"] == VERDICTS.finding


def test_a_point_rank_lies_in_its_interval_when_units_hold_few_items():
    """Hands of a few tiles: a unit's own level (a good hand) moves every value it holds, so
    the items' plain means rank by which hands hold them; the point rank counts the same
    paired differences as the interval and stays inside it."""
    rng = np.random.default_rng(7)
    units, items = 600, 12
    x = rng.normal(0, 3.0, (units, 1)) + np.linspace(0, 0.6, items) + rng.normal(0, 0.3,
                                                                                (units, items))
    holds = np.zeros((units, items), dtype=bool)
    for u in range(units):  # each unit holds 3 items, the high ones more often in good units
        p = np.exp(0.8 * x[u] / 3.0)
        holds[u, rng.choice(items, 3, replace=False, p=p / p.sum())] = True
    x[~holds] = np.nan
    ranks = simultaneous_ranks(x, resamples=200, seed=1)
    assert ((ranks["rank_low"] <= ranks["rank"]) & (ranks["rank"] <= ranks["rank_high"])).all()
    plain = (-ranks["mean"]).argsort(kind="stable").argsort(kind="stable") + 1
    assert (plain != ranks["rank"]).any()  # the case the test is about: the means mislead
    complete = simultaneous_ranks(rng.normal(size=(300, 5)) + np.arange(5), resamples=100,
                                  seed=1)
    assert complete["rank"].tolist() == [5, 4, 3, 2, 1]  # all held: the rank of the means
