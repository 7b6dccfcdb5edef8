"""experiments.tools.tune: the scaled space, the fitness against an independent strength run, a tiny
deterministic run with its files and intervals, the shipped table."""

from __future__ import annotations

import importlib.util
import json
import math
import shlex

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from experiments.reporting.figures import print_problems, strategy_colour
from experiments.stats import t_quantile, wilson_interval
from experiments.tools import strength, tune
from strategies.catalogue import resolve
from strategies.definition import variant
from strategies.weighted import DEFAULT_WEIGHTS, weighted

TINY = {"against": "weighted", "validate_against": "weighted,greedy", "players": 2, "seed": 5,
        "validation_seed": 6, "deals": 24, "generations": 2, "population": 4,
        "validation_deals": 40}


def test_scale_is_the_default_size_or_one():
    defaults = weighted.default_params()
    scale = tune.parameter_scale(defaults)
    names = weighted.parameter_names()
    assert scale[names.index("w_exact")] == 100.0 and scale[names.index("w_pips")] == 0.1
    assert scale[names.index("w_scores")] == tune.ZERO_SCALE  # default 0
    x0 = tune.to_scaled(defaults, scale)
    expected = [np.sign(DEFAULT_WEIGHTS.get(n[2:], 0.0)) for n in names]
    assert x0.tolist() == expected  # every default starts at +-1 or 0


def test_scaled_space_round_trips():
    scale = tune.parameter_scale(weighted.default_params())
    theta = np.random.default_rng(3).normal(size=scale.size) * scale * 2
    assert np.allclose(tune.from_scaled(tune.to_scaled(theta, scale), scale), theta,
                       rtol=1e-15, atol=0)
    x = np.linspace(-2, 2, scale.size)
    assert np.allclose(tune.to_scaled(tune.from_scaled(x, scale), scale), x, rtol=1e-15, atol=0)
    assert tune.from_scaled(np.ones(scale.size), scale).tolist() == scale.tolist()


def test_generation_seeds_differ_and_validation_seed_is_checked():
    seeds = [tune.generation_seed(7, g) for g in range(5)]
    assert len(set(seeds)) == 5 and seeds == [tune.generation_seed(7, g) for g in range(5)]
    with pytest.raises(ValueError, match="validation_seed"):
        tune.tune_settings(seed=7, validation_seed=seeds[3], generations=5)
    with pytest.raises(ValueError, match="players"):
        tune.tune_settings(players=3)
    with pytest.raises(ValueError, match="no parameters"):
        tune.tune_settings(strategy="greedy")


def test_default_vector_against_itself_wins_exactly_half():
    """A deterministic strategy against itself on a duplicate deal wins one seating of the two."""
    settings = tune.tune_settings(**{**TINY, "deals": 60})
    assert tune.fitness(settings["defaults"], settings, generation=0) == 0.5


def test_fitness_equals_an_independent_strength_pairing():
    """The fitness of a vector = the strength ladder's win rate of the same vector, entered as
    a named variant, on the same deals (the generation's seed, matches 0 .. deals - 1)."""
    settings = tune.tune_settings(**{**TINY, "against": "greedy", "deals": 80})
    theta = dict(zip(settings["parameters"], settings["defaults"]))
    theta.update(w_double=0.0, w_reply=-0.4, w_pips=0.3)
    value = tune.fitness(list(theta.values()), settings, generation=1)
    candidate = variant(weighted, name="candidate", **theta)
    ladder = strength.run(["greedy", candidate], players=[2], deals=80,  # weakest first
                          seed=tune.generation_seed(settings["seed"], 1),
                          timing_matches=0).frames["ladder"]
    row = ladder[(ladder.upper == "candidate") & (ladder.lower == "greedy")].iloc[0]
    assert value == pytest.approx(row.win_rate, abs=1e-12)
    assert 0.5 < value < 1.0  # a weighted vector beats greedy, not always


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    first = tmp_path_factory.mktemp("tune_a")
    second = tmp_path_factory.mktemp("tune_b")
    ship = tmp_path_factory.mktemp("ship") / "table.py"
    a = tune.run(**TINY, out=first, ship=ship)
    b = tune.run(**TINY, out=second)
    return a, b, first, second, ship


def test_a_tiny_run_is_deterministic(tiny_runs):
    a, b, first, second, _ = tiny_runs
    assert (first / "best.json").read_text() == (second / "best.json").read_text()
    for name in ("history.csv", "candidates.csv", "validation.csv", "vector.csv"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    assert a.best == b.best


def test_a_tiny_run_writes_its_files(tiny_runs):
    a, _, first, _, _ = tiny_runs
    names = {p.name for p in first.iterdir()}
    assert {"best.json", "history.csv", "candidates.csv", "validation.csv", "vector.csv",
            "fitness.png", "summary.md", "run.json"} <= names
    assert not any(name.endswith(".parquet") for name in names)
    best = json.loads((first / "best.json").read_text())
    assert list(best["parameters"]) == weighted.parameter_names()
    # the spec string names exactly the vector written
    rebuilt = resolve(best["spec"])
    assert rebuilt.default_params().tolist() == list(best["parameters"].values())
    history = pd.read_csv(first / "history.csv")
    assert history["generation"].tolist() == [0, 1]
    # generation 0's mean is the default vector: exactly even against itself
    assert history.loc[0, "mean_point_fitness"] == 0.5
    assert len(pd.read_csv(first / "candidates.csv")) == TINY["generations"] * TINY["population"]
    assert "Held-out validation" in a.markdown and best["spec"] in a.markdown
    assert "![fitness](fitness.png)" in a.markdown and "Plots:" not in a.markdown


def test_the_history_columns_hold_their_documented_relations(tiny_runs):
    a, *_ = tiny_runs
    history, candidates = a.frames["history"], a.frames["candidates"]  # unrounded
    assert "mean_fitness" not in history and "best_fitness" not in history
    for g, rows in candidates.groupby("generation"):
        row = history.loc[g]
        # the best, median and worst of the sampled candidates: best >= median >= worst
        assert row.best_candidate_fitness == pytest.approx(rows["fitness"].max())
        assert row.median_candidate_fitness == pytest.approx(rows["fitness"].median())
        assert row.worst_candidate_fitness == pytest.approx(rows["fitness"].min())
        assert row.best_candidate_fitness >= row.median_candidate_fitness >= \
            row.worst_candidate_fitness
        best = rows[rows["candidate"] == row.best_candidate].iloc[0]
        assert (row.best_candidate_low, row.best_candidate_high) == \
            pytest.approx((best["low"], best["high"]))
        # the mean point is no candidate: free to beat the best one; the paired difference's
        # mean is the difference of the two win rates, inside its interval
        assert row.mean_minus_best == pytest.approx(row.mean_point_fitness
                                                    - row.best_candidate_fitness)
        assert row.mean_minus_best_low <= row.mean_minus_best <= row.mean_minus_best_high
        assert row.mean_point_low <= row.mean_point_fitness <= row.mean_point_high


def test_fitness_figure_names_the_opponent_of_every_series_and_prints(tiny_runs, monkeypatch,
                                                                       tmp_path):
    a, *_ = tiny_runs
    monkeypatch.setenv("FIVE_UP_FIGURE_AUDIT", "strict")
    drawn = []
    save = tune.save_png
    monkeypatch.setattr(tune, "save_png", lambda fig, path: (drawn.append(fig), save(fig, path)))
    tune.plot_fitness(a, tmp_path / "fitness.png")
    assert print_problems(drawn[0]) == [] and drawn[0].get_figwidth() == pytest.approx(7.2)
    axis = drawn[0].axes[0]
    legend = axis.get_legend()
    labels = [text.get_text() for text in legend.get_texts()]
    # training series name the training opponent, held-out ones the validation strategy
    assert "mean point vs weighted (training deals, seed 5)" in labels
    assert {"greedy", "weighted"} <= set(labels)
    assert legend.get_title().get_text() == "held out against the strategy named: 40 deals, seed 6"
    assert "win rate vs weighted" in axis.get_title()
    assert "vs weighted" not in axis.get_ylabel()  # the axis holds held-out rates vs greedy too
    held_out = dict(zip(labels, legend.legend_handles))
    assert to_hex(held_out["greedy"].get_color()) == to_hex(strategy_colour("greedy"))


def test_the_plan_declares_the_held_out_gains_primary(tiny_runs):
    a, _, first, _, _ = tiny_runs
    plan = tune.plan_for(a.settings)
    assert json.loads((first / "plan.json").read_text()) == json.loads(
        json.dumps(plan.to_json()))
    compared = a.frames["comparisons"]
    assert compared[compared["family"] == "primary"]["id"].tolist() == [
        tune.gain_id(a.settings, b) for b in a.settings["validate_against"]]
    for row in compared.itertuples():
        assert row.words in a.markdown
        assert (row.verdict == "finding") <= (row.adj_low > 0 or row.adj_high < 0)
    assert (first / "comparisons.csv").is_file()


def test_validation_intervals_match_their_sample_size(tiny_runs):
    a, *_ = tiny_runs
    validation = a.frames["validation"]
    deals = TINY["validation_deals"]
    assert validation["baseline"].tolist() == ["weighted", "greedy"]
    for row in validation.itertuples():
        assert row.deals == deals and row.matches == 2 * deals
        assert row.win_rate == pytest.approx(row.wins / row.matches)
        # a per-deal mean lies in [0, 1]: its sd (n - 1 divisor) is at most 1/2 sqrt(n/(n-1))
        sd = 0.5 * math.sqrt(deals / (deals - 1))
        half = t_quantile(deals - 1) * sd / math.sqrt(deals)
        assert row.paired_high - row.paired_low <= 2 * half + 1e-12
        low, high = wilson_interval(row.wins, row.matches)
        assert (row.wilson_low, row.wilson_high) == pytest.approx((float(low), float(high)))
        assert row.gain == pytest.approx(row.win_rate - row.default_win_rate)
        assert row.gain_low <= row.gain <= row.gain_high
    own = validation.iloc[0]
    # the default vector against itself: exactly even, no width
    assert own.default_win_rate == own.default_low == own.default_high == 0.5


def test_the_shipped_table_holds_the_vector(tiny_runs):
    a, _, _, _, ship = tiny_runs
    spec = importlib.util.spec_from_file_location("tuned_table_under_test", ship)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.TUNED_PARAMETERS == a.best["parameters"]
    assert module.TUNED_STRATEGY == "weighted"
    assert set(module.TUNED_VALIDATION) == {"weighted", "greedy"}
    assert module.TUNED_COMMAND == a.command and "--ship" in a.command


def test_pick_best_is_the_best_candidate():
    settings = tune.tune_settings(**{**TINY, "pick": "best"})
    candidates = pd.DataFrame({"generation": [0, 0, 1], "candidate": [0, 1, 0],
                               "fitness": [0.4, 0.7, 0.7],
                               **{n: [1.0, 2.0, 3.0] for n in settings["parameters"]}})
    picked = tune.pick_vector(settings, candidates, mean=np.zeros(len(settings["parameters"])))
    assert picked.tolist() == [2.0] * len(settings["parameters"])  # the first of equals


def test_the_committed_table_is_weighted_tuned():
    from strategies import weighted_tuned_table as table
    from strategies.weighted import weighted_tuned

    assert dict(zip(weighted_tuned.parameter_names(), weighted_tuned.default_params())) == \
        {**dict(zip(weighted.parameter_names(), weighted.default_params())),
         **table.TUNED_PARAMETERS}
    if table.TUNED_COMMAND:  # the command recorded in the table parses
        from cli.main import build_parser

        words = shlex.split(table.TUNED_COMMAND)[1:]
        args = build_parser(words).parse_args(words)
        assert args.command == "tune" and args.ship == "strategies/weighted_tuned_table.py"
