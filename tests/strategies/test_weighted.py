"""``weighted``: presets reproduce the named strategies; weight sweeps never recompile; params= checks."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from numba.core import event

from sim.engine.compiled import CompiledRun
from sim.engine.spec import RunSpec
import strategies
from strategies.weighted import DEFAULT_WEIGHTS, PRESETS, preset, weights

ENGINE_COLUMNS = ["winner", "score_0", "score_1", "rounds", "placements", "draws", "events_discarded"]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_play_the_same_matches_as_the_named_strategy(compiled_engine, name):
    for players in (2, 3):
        names = [name] + ["greedy"] * (players - 1) if name != "greedy" else ["greedy", "random", "random"][:players]
        mine = compiled_engine.simulate(players, names, 60, seed=8)
        as_weighted = compiled_engine.simulate(players, ["weighted"] + names[1:], 60, seed=8,
                                               params=[preset(name)] + [None] * (players - 1))
        pd.testing.assert_frame_equal(mine[ENGINE_COLUMNS], as_weighted[ENGINE_COLUMNS])


def test_fifty_weight_vectors_run_without_recompiling(compiled_engine):
    """A sweep of 50 weight vectors: no Numba compilation after the first run."""
    compiled_engine.simulate(2, ["weighted", "greedy"], 4, seed=0)  # compiled or loaded once
    run = CompiledRun(RunSpec.build(2, ["weighted", "greedy"], 1, 0, max_rounds=1))
    batch = run.engine.simulate_batch  # the run's kernel
    signatures = len(batch.signatures)
    assert signatures >= 1
    generator = np.random.default_rng(50)
    winners = []
    with event.install_recorder("numba:compile") as compiles:
        for _ in range(50):
            vector = generator.normal(size=13)
            frame = compiled_engine.simulate(2, ["weighted", "greedy"], 20, seed=1, params=[vector, None])
            winners.append(tuple(frame["winner"]))
    assert compiles.buffer == [], "a weight sweep must not compile anything"
    assert len(batch.signatures) == signatures
    assert len(set(winners)) > 10  # the vectors do change play


def test_params_per_seat_dict_list_and_partnerships(compiled_engine):
    default = compiled_engine.simulate(2, ["heavy", "greedy"], 40, seed=2)
    same = compiled_engine.simulate(2, ["heavy", "greedy"], 40, seed=2, params=[{"pip_weight": 1.0}, None])
    pd.testing.assert_frame_equal(default, same)
    other = compiled_engine.simulate(2, ["heavy", "greedy"], 40, seed=2, params=[[0.0], None])
    assert not default["winner"].equals(other["winner"]) or not default["score_0"].equals(other["score_0"])
    # heavy with pip_weight 0 is greedy-like (ties: heavier tile) = greedy.
    greedy = compiled_engine.simulate(2, ["greedy", "greedy"], 40, seed=2)
    pd.testing.assert_frame_equal(other[ENGINE_COLUMNS], greedy[ENGINE_COLUMNS])
    four = compiled_engine.simulate(4, ["heavy", "greedy"], 20, seed=2, params=[{"pip_weight": 0.0}, None])
    four_full = compiled_engine.simulate(4, ["heavy", "greedy"], 20, seed=2,
                                         params=[{"pip_weight": 0.0}, None, {"pip_weight": 0.0}, None])
    pd.testing.assert_frame_equal(four, four_full)


@pytest.mark.parametrize(
    "params,message",
    [
        ([{"nope": 1.0}, None], "unknown parameter 'nope'"),
        ([[1.0, 2.0], None], "expected 1 parameter values"),
        ([None], "2 players need 2 params entries"),
        ({"pip_weight": 1.0}, "one entry per seat"),
        ([{"pip_weight": float("nan")}, None], "must be finite"),
        ([{"pip_weight": "x"}, None], "must be a number"),
        ([None, {"x": 1.0}], r"seat 1 \(greedy\): unknown parameter 'x' \(known: none\)"),
    ],
)
def test_bad_params_are_rejected(compiled_engine, params, message):
    with pytest.raises(ValueError, match=message):
        compiled_engine.simulate(2, ["heavy", "greedy"], 2, seed=0, params=params)


def test_weight_helpers():
    assert list(weights(award=1.0)) == [1.0] + [0.0] * 12
    with pytest.raises(ValueError, match="unknown feature 'x'"):
        weights(x=1.0)
    info = strategies.resolve("weighted")
    assert [p.name for p in info.parameters][:3] == ["w_award", "w_scores", "w_overshoot"]
    assert np.array_equal(info.default_params(), weights(**DEFAULT_WEIGHTS))
