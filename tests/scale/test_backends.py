"""Backends: a dask LocalCluster of 2 worker processes equals the local backend; bad input."""

from __future__ import annotations

import subprocess
import sys
import time

import pandas as pd
import pytest

from sim.scale.backends import BackendError, LocalBackend, open_backend
from sim.scale.simulate import simulate_sharded
from tests.support.plugins import call_cli

distributed = pytest.importorskip("distributed", reason="the [cluster] extra is not installed")


@pytest.fixture(scope="module")
def dask_backend(compiled_engine):
    """One LocalCluster of 2 worker processes (1 thread each) for the module."""
    backend = open_backend("dask", workers=2)
    try:
        assert len(backend.client.nthreads()) == 2
        yield backend
    finally:
        backend.close()


@pytest.mark.parametrize("players, strategies", [(2, "random,greedy"), (3, "greedy,random,greedy"),
                                                 (4, "greedy,random")])
def test_dask_frame_equals_local_row_for_row(dask_backend, players, strategies):
    local = simulate_sharded(players, strategies, 2_000, seed=17, shard_size=2_000)
    remote = simulate_sharded(players, strategies, 2_000, seed=17, shard_size=150,
                              backend=dask_backend)
    assert remote.computed == 14
    pd.testing.assert_frame_equal(remote.frame(), local.frame(), check_exact=True)


def test_dask_durable_store_and_summary_only_equal_local(dask_backend, tmp_path):
    local = simulate_sharded(2, "greedy,random", 3_000, seed=5, shard_size=400,
                             directory=tmp_path / "local", summary_only=True)
    remote = simulate_sharded(2, "greedy,random", 3_000, seed=5, shard_size=400,
                              directory=tmp_path / "remote", summary_only=True,
                              backend=dask_backend)
    assert remote.aggregate == local.aggregate
    assert len(list((tmp_path / "remote").glob("shard-*.json"))) == 8
    # A local re-run of the same configuration resumes from the dask run's shards.
    again = simulate_sharded(2, "greedy,random", 3_000, seed=5, shard_size=400,
                             directory=tmp_path / "remote", summary_only=True)
    assert again.computed == 0 and again.aggregate == local.aggregate


@pytest.mark.slow  # a differential run: a 600-match tournament twice
def test_dask_tournament_summary_is_byte_identical(dask_backend, tmp_path):
    from experiments.tools.tournament import tournament

    names = ["random", "greedy"]
    tournament(2, names, 600, seed=2, duplicate=True, out=tmp_path / "local")
    tournament(2, names, 600, seed=2, duplicate=True, out=tmp_path / "dask", backend=dask_backend,
               shard_size=110)
    for name in ("summary.csv", "pairwise.csv", "ranking.csv"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "dask" / "matches.parquet"),
                                  pd.read_parquet(tmp_path / "local" / "matches.parquet"),
                                  check_exact=True)


@pytest.mark.parametrize("experiment", [
    "overshoot",
    # forced-opening playouts on a local cluster take ~30 s of CPU: with the differential runs
    pytest.param("opening_leads", marks=pytest.mark.slow)])
def test_dask_experiment_equals_local(dask_backend, tmp_path, experiment):
    """Traces (three tables per shard) and forced-opening playouts on 2 workers equal local."""
    import importlib

    module = importlib.import_module(f"experiments.studies.{experiment}")
    extra = {"hands": 45, "playouts": 3} if experiment == "opening_leads" else {}
    local = module.run([2, 3], ["greedy"], 400, 9, **extra)
    remote = module.run([2, 3], ["greedy"], 400, 9, backend=dask_backend, shard_size=90,
                        out=tmp_path / "dask", keep_shards=True, **extra)
    stores = sorted(p.name for p in (tmp_path / "dask" / "shards").iterdir())
    assert stores == (["counterfactual", "rounds"] if experiment == "opening_leads" else ["traces"])
    assert set(local.frames) == set(remote.frames)
    for name, frame in local.frames.items():
        pd.testing.assert_frame_equal(remote.frames[name], frame, check_exact=True)
    assert remote.markdown == local.markdown


def test_open_backend_errors():
    assert isinstance(open_backend("local"), LocalBackend)
    with pytest.raises(BackendError, match="unknown backend 'spark'"):
        open_backend("spark")
    with pytest.raises(BackendError, match="--scheduler needs --backend dask"):
        open_backend("local", scheduler="tcp://127.0.0.1:8786")
    with pytest.raises(BackendError, match="cannot be combined with --scheduler"):
        open_backend("dask", scheduler="tcp://127.0.0.1:8786", workers=2)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True)


SIM = ["--players", "2", "--strategies", "greedy,random", "--matches", "600", "--seed", "4"]


BAD = [
    (["--backend", "spark"], "--backend must be one of local, dask, found 'spark'"),
    (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler needs --backend dask"),
    (["--workers", "2"], "--workers needs --backend dask"),
    (["--backend", "dask", "--workers", "0"], "--workers must be at least 1"),
    (["--backend", "dask", "--connect-timeout", "0"], "--connect-timeout must be positive"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"],
     "cannot be combined with --scheduler"),
]


@pytest.mark.parametrize("command, args, words",
                         [("simulate", *case) for case in BAD] + [("tournament", *BAD[0]),
                                                                   ("tournament", *BAD[1])])
def test_cli_bad_backend_options_one_line(tmp_path, command, args, words):
    out = tmp_path / ("o.parquet" if command == "simulate" else "o")
    run = call_cli(command, *SIM, "--out", str(out), *args)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in run.stderr, run.stderr


@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_cli_unreachable_scheduler_one_line(tmp_path, command):
    out = tmp_path / ("o.parquet" if command == "simulate" else "o")
    started = time.monotonic()
    # Port 9 (discard) on localhost: nothing listens there.
    run = cli(command, *SIM, "--out", str(out), "--backend", "dask",
              "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1")
    assert time.monotonic() - started < 30
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert "cannot connect to the dask scheduler at tcp://127.0.0.1:9 within 1 s" in lines[0]
    assert not (tmp_path / "o.parquet.parts").exists()


@pytest.mark.slow  # starts a two-worker local cluster from the CLI (~15 s); a differential run
def test_cli_dask_local_cluster_equals_local(compiled_engine, tmp_path):
    remote = cli("simulate", *SIM, "--shard-size", "100", "--out", str(tmp_path / "dask.parquet"),
                 "--backend", "dask", "--workers", "2")
    assert remote.returncode == 0, remote.stderr
    assert not (tmp_path / "dask.parquet.parts").exists()
    local = compiled_engine.simulate(2, "greedy,random", 600, seed=4)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "dask.parquet"), local,
                                  check_exact=True)


@pytest.mark.parametrize("error", ["killed", "comm"])
def test_cluster_failure_mid_run_is_one_line_and_keeps_the_shards(compiled_engine, tmp_path,
                                                                  monkeypatch, capsys, error):
    """A lost worker or scheduler ends a tournament or experiment with one line (status 1)
    saying where the finished shards are, never a traceback."""
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError

    import experiments.sources
    import experiments.tools.tournament.seating_shards
    from cli.main import main

    def lost(*args, **kwargs):
        if error == "killed":
            from types import SimpleNamespace

            raise KilledWorker("shard-7", SimpleNamespace(address="tcp://10.0.0.9:4000"), 3)
        raise CommClosedError("in <TCP (closed)>: Stream is closed")

    monkeypatch.setattr(experiments.tools.tournament.seating_shards, "run_shards", lost)
    status = main(["tournament", "--strategies", "random,greedy", "--matches", "10", "--quiet",
                   "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err.strip()
    assert status == 1 and len(err.splitlines()) == 1, err
    kind = "KilledWorker" if error == "killed" else "CommClosedError"
    assert err.startswith(f"five-up: error: run failed ({kind}")
    assert err.endswith(f"finished shards are kept in {tmp_path / 't' / 'shards'}: rerun the "
                        "same command to resume")

    monkeypatch.setattr(experiments.sources.DataRun, "rounds", lost)
    status = main(["seats", "--players", "2", "--matches", "10", "--quiet",
                   "--out", str(tmp_path / "s")])
    err = capsys.readouterr().err.strip()
    assert status == 1 and len(err.splitlines()) == 1, err
    assert err.startswith(f"five-up: error: run failed ({kind}")
    assert err.endswith(f"finished shards are kept in {tmp_path / 's' / 'shards'}: rerun the "
                        "same command to resume")
