"""The studies' commands on shards: kill -9 mid-run then resume, refusals, bad backend options."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from experiments.studies import opening_leads, settlement
from tests.support.plugins import call_cli, help_text
from tests.support.processes import kill_after_first_shard

experiment_cli = call_cli  # in this process; only the run to be killed needs its own


SETTLEMENT = ["--players", "2", "--strategies", "greedy", "--matches", "24000", "--seed", "5",
              "--shard-size", "1500", "--threads", "1", "--quiet"]


def test_experiment_sigkill_then_resume_equals_an_uninterrupted_run(compiled_engine, tmp_path):
    out = tmp_path / "killed"
    shards = out / "shards" / "traces"
    kill_after_first_shard([sys.executable, "-m", "cli", "settlement", *SETTLEMENT,
                            "--out", str(out)], shards, "shard-*.paths.parquet")
    assert not (out / "summary.md").exists()
    done = {p.name: p.stat().st_mtime_ns for p in shards.glob("shard-*.paths.parquet")}
    assert 1 <= len(done) < 16

    changed = experiment_cli("settlement", *[("6" if a == "5" else a) for a in SETTLEMENT],
                             "--out", str(out))
    assert changed.returncode == 2 and "Traceback" not in changed.stderr
    assert changed.stderr.strip().splitlines() == [changed.stderr.strip()]
    assert "holds shards of a different run" in changed.stderr and "now 6" in changed.stderr

    resumed = experiment_cli("settlement", *SETTLEMENT, "--out", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert not (out / "shards").exists()

    whole = settlement.run([2], ["greedy"], 24_000, 5, out=tmp_path / "whole")
    for name in whole.frames:
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"),
                                      pd.read_parquet(tmp_path / "whole" / f"{name}.parquet"),
                                      check_exact=True)
    assert (out / "summary.md").read_text() == (tmp_path / "whole" / "summary.md").read_text()


@pytest.mark.parametrize("args, words", [
    (["--backend", "spark"], "--backend must be one of local, dask, found 'spark'"),
    (["--scheduler", "tcp://h:1"], "--scheduler needs --backend dask"),
    (["--backend", "dask", "--workers", "0"], "--workers must be at least 1, found 0"),
    (["--shard-size", "ten"], "--shard-size expects an integer, found 'ten'"),
])
def test_experiment_bad_backend_options_one_line(tmp_path, args, words):
    run = experiment_cli("seats", "--players", "2", "--matches", "10", "--out",
                         str(tmp_path / "o"), *args)
    assert run.returncode == 2
    assert run.stderr.strip() == f"five-up: error: {words}"
    assert not (tmp_path / "o").exists()


def test_experiment_unreachable_scheduler_one_line(tmp_path):
    pytest.importorskip("distributed")
    run = experiment_cli("overshoot", "--players", "2", "--matches", "10", "--out",
                         str(tmp_path / "o"), "--backend", "dask", "--scheduler",
                         "tcp://127.0.0.1:9", "--connect-timeout", "1")
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot connect to the dask scheduler at tcp://127.0.0.1:9" in lines[0]


def test_experiment_help_explains_scale_out():
    text = help_text("openings", "--backend NAME", "--scheduler ADDR", "--shard-size K",
                     "--keep-shards", "DIR/shards", "resumes")
    assert "--summary-only" not in text


def test_openings_cli_runs_sharded(compiled_engine, tmp_path):
    out = tmp_path / "o"
    run = experiment_cli("openings", "--players", "2", "--strategies", "greedy", "--matches",
                         "300", "--hands", "25", "--playouts", "4", "--shard-size", "100",
                         "--keep-shards", "--quiet", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert len(list((out / "shards" / "rounds").glob("shard-*.parquet"))) == 3
    assert len(list((out / "shards" / "counterfactual").glob("shard-*.parquet"))) == 2
    direct = opening_leads.run([2], ["greedy"], 300, 0, hands=25, playouts=4)
    for name, frame in direct.frames.items():
        saved = pd.read_parquet(out / f"{name}.parquet")
        expected = frame.copy()
        for column in expected.columns:  # saved files hold categoricals as strings
            if isinstance(expected[column].dtype, pd.CategoricalDtype):
                expected[column] = expected[column].astype(str)
        pd.testing.assert_frame_equal(saved, expected.reset_index(drop=True), check_exact=True,
                                      check_dtype=False)
    assert Path(out / "run.json").exists()
