"""Strategy objects in tournaments and experiments (Python API), and on dask workers."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from experiments.tools.tournament import TournamentConfig, tournament
import strategies
from tests.support.edge_strategies import edge
from tests.support.plugins import EDGE_MODULE, env_with_path, run_cli, write_edge


def test_tournament_with_a_strategy_object(compiled_engine, tmp_path):
    result = tournament(2, [edge, "greedy"], 20, seed=1, duplicate=True, out=tmp_path / "t")
    assert list(result.summary["strategy"]) == ["edge", "greedy"]
    assert result.summary["matches"].tolist() == [40, 40]
    assert set(result.matches["strategy_0"]) == {"edge", "greedy"}
    assert set(result.matches["entity_strategy_0"]) == {"edge", "greedy"}
    assert result.config.strategies == ("edge", "greedy")
    run = json.loads((tmp_path / "t" / "run.json").read_text())
    assert run["strategies"] == ["edge", "greedy"]
    assert run["specs"] == ["tests.support.edge_strategies:edge", "greedy"]  # JSON-ready references
    assert run["strategy_code"] == {"edge": edge.code_key,
                                    "greedy": strategies.resolve("greedy").code_key}
    # the same field given as specs plays the same matches
    again = tournament(2, ["tests.support.edge_strategies:edge", "greedy"], 20, seed=1, duplicate=True)
    pd.testing.assert_frame_equal(again.summary, result.summary, check_exact=True)


def test_tournament_field_errors_are_one_sentence():
    other_edge = strategies.variant(edge, name="edge", bonus=1.0)
    with pytest.raises(ValueError, match="two different strategies are named 'edge'"):
        tournament(2, [edge, other_edge, "greedy"], 5, seed=0)
    with pytest.raises(ValueError, match="strategies names 'edge' twice"):
        tournament(2, [edge, "greedy", edge], 5, seed=0)
    with pytest.raises(ValueError, match="no module named 'nowhere_at_all'"):
        tournament(2, ["nowhere_at_all:edge", "greedy"], 5, seed=0)
    config = TournamentConfig.build(2, [edge, "random"], 5, 0)
    assert config.strategies == ("edge", "random") and config.resolved[0] is edge
    assert json.loads(json.dumps(config.as_dict()))["specs"] == ["tests.support.edge_strategies:edge", "random"]


def test_experiment_with_a_module_strategy(compiled_engine, tmp_path, monkeypatch):
    from experiments.studies import seats

    write_edge(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = f"{EDGE_MODULE}:edge"
    result = seats.run([2], [spec, "greedy"], 30, 1, out=tmp_path / "seats")
    assert result.settings["strategies"] == ["edge", "greedy"]
    assert result.settings["strategy_specs"] == [spec, "greedy"]
    assert set(result.frames["positions"]["strategy"]) == {"edge", "greedy"}
    # the Strategy object itself: the same settings and tables
    same = seats.run([2], [strategies.resolve(spec), "greedy"], 30, 1)
    assert same.settings == result.settings
    pd.testing.assert_frame_equal(same.frames["positions"], result.frames["positions"])


@pytest.mark.slow
def test_dask_tournament_with_a_module_strategy_equals_local(compiled_engine, tmp_path):
    """Workers of a LocalCluster import the strategy's module from PYTHONPATH."""
    pytest.importorskip("distributed", reason="the [cluster] extra is not installed")
    write_edge(tmp_path)
    env = env_with_path(tmp_path)
    args = ["tournament", "--strategies", f"{EDGE_MODULE}:edge,greedy,random", "--matches", "150",
            "--seed", "4", "--duplicate", "--quiet"]
    local = run_cli(*args, "--out", tmp_path / "local", env=env)
    assert local.returncode == 0, local.stderr
    remote = run_cli(*args, "--out", tmp_path / "dask", "--backend", "dask", "--workers", "2",
                     "--shard-size", "60", env=env)
    assert remote.returncode == 0, remote.stderr
    for name in ("summary.csv", "pairwise.csv", "ranking.csv"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert "| edge |" in remote.stdout


def test_a_session_strategy_is_refused_on_a_remote_backend_before_any_work():
    """A strategy defined in __main__ (or a notebook) has no reference a worker could load."""
    from sim.scale.backends import Backend
    from strategies.catalogue import StrategyError

    def first(view):
        return 0

    first.__module__ = "__main__"
    local_only = strategies.strategy(first, name="first", compiled=False)

    class Remote(Backend):
        name = "dask"

        def run(self, fn, calls):
            raise AssertionError("nothing may be submitted")

    with pytest.raises(StrategyError, match="'first' was defined in a notebook or __main__ and "
                                            "runs only on the local backend"):
        tournament(2, [local_only, "greedy"], 5, seed=0, backend=Remote())
