"""The experiments' data in shards: equal to unsharded runs, durable, resumable, refused when foreign.

The dask half (a LocalCluster of 2 workers equals the local backend) is in
tests/test_backends.py, next to the module's cluster fixture.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from processes import kill_after_first_shard

from experiments import common, openings, seats, settlement, sources
from sim.shards import Shard, ShardError, ShardStore
from sim.studies import opening_counterfactual, trace_events

SEED = 23


def settings_for(players, strategies, matches, **extra):
    settings = common.common_settings("test", players, strategies, matches, SEED)
    settings.update(extra)
    return settings


# ---------------------------------------------------------------------------
# Shards concatenate to the unsharded data
# ---------------------------------------------------------------------------
def test_trace_shards_equal_one_trace(compiled_engine):
    settings = settings_for([2, 4], ["greedy", "random"], 230)
    with sources.DataRun(settings, shard_size=60) as data:  # 4 shards, the last of 50
        traces = list(data.traces())
    assert [key for key, _ in traces] == [("greedy", 2), ("greedy", 4), ("random", 2),
                                          ("random", 4)]
    for (strategy, players), trace in traces:
        whole = trace_events(players, [strategy] * players, 230, SEED)
        for table in sources.TRACE_TABLES:
            pd.testing.assert_frame_equal(getattr(trace, table), getattr(whole, table),
                                          check_exact=True)


def test_round_shards_equal_one_run(compiled_engine):
    settings = settings_for([3], ["greedy"], 170)
    with sources.DataRun(settings, shard_size=45) as data:
        (key, sharded), = data.rounds()
    whole = sources.rounds_job(0, 170, players=3, strategies=["greedy"] * 3, seed=SEED)
    pd.testing.assert_frame_equal(sharded, whole, check_exact=True)
    assert key == ("greedy", 3)
    # match_winner is the entity at exactly 61 (305 raw) at the match's last round, else -1.
    last = whole.groupby("match").tail(1)
    for row in last.itertuples():
        scores = [row.score_0, row.score_1, row.score_2]
        expected = scores.index(305) if 305 in scores else -1
        assert row.match_winner == expected


def test_counterfactual_shards_equal_one_run(compiled_engine):
    n = sources.CF_HANDS_PER_SHARD * 2 + 3  # three shards, the last of 3 hands
    settings = settings_for([2], ["greedy"], 10, hands=n, playouts=3, playout_strategy="greedy",
                            baseline="random")
    with sources.DataRun(settings) as data:
        sharded = data.counterfactuals()[2]
    whole = opening_counterfactual(2, "greedy", hands=n, playouts=3, seed=SEED, baseline="random")
    for name in ("hands", "hand_ids", "tiles", "baseline_tile", "diff", "leader_won", "ends"):
        assert np.array_equal(getattr(sharded, name), getattr(whole, name)), name
    assert (sharded.players, sharded.strategy, sharded.baseline, sharded.playouts) == \
        (2, "greedy", "random", 3)


def test_counterfactual_long_frame_round_trips(compiled_engine):
    result = opening_counterfactual(3, "greedy", hands=4, playouts=5, seed=SEED)
    frame = result.to_frame()
    assert len(frame) == 4 * 5 * 5
    # Row (hand 1, slot 2, playout 3) holds diff[1, 2, 3] and that slot's tile.
    row = frame.iloc[1 * 25 + 2 * 5 + 3]
    assert (row["hand"], row["slot"], row["playout"]) == (result.hand_ids[1], 2, 3)
    assert row["diff"] == result.diff[1, 2, 3] and row["tile"] == result.tiles[1, 2]
    back = type(result).from_frame(frame, players=3, strategy="greedy", baseline="greedy",
                                   seed=SEED)
    for name in ("hands", "hand_ids", "tiles", "baseline_tile", "diff", "leader_won", "ends"):
        assert np.array_equal(getattr(back, name), getattr(result, name)), name
    with pytest.raises(ValueError, match="5 x playouts rows per hand"):
        type(result).from_frame(frame.iloc[:-1], players=3, strategy="greedy",
                                baseline="greedy", seed=SEED)


# ---------------------------------------------------------------------------
# Stores of several tables
# ---------------------------------------------------------------------------
def test_multi_table_store_counts_a_shard_done_only_with_every_table(tmp_path):
    shard = Shard(part=0, seed=1, first_match=0, count=2)
    tables = {"matches": pd.DataFrame({"match": [0, 1]}),
              "events": pd.DataFrame({"match": [0, 0, 1], "raw": [5, 10, 15]})}
    store = ShardStore(tmp_path / "s", {"kind": "t"}, tables=("matches", "events")).open()
    store.write(shard, tables)
    assert store.has(shard)
    read = store.read(shard)
    for name, frame in tables.items():
        pd.testing.assert_frame_equal(read[name], frame)
    # A kill between the two files leaves a shard that is not done (and is recomputed).
    store.path(shard, "events").unlink()
    assert not store.has(shard)
    with pytest.raises(ValueError, match=r"must return the tables \['matches', 'events'\]"):
        store.write(shard, {"matches": tables["matches"]})
    store.close()
    store.remove()
    assert not (tmp_path / "s").exists()
    with pytest.raises(ValueError):
        ShardStore(tmp_path / "x", {}, mode="summary", tables=("a",))


def test_data_run_resumes_and_refuses_another_run(compiled_engine, tmp_path):
    settings = settings_for([2], ["greedy"], 200)
    with sources.DataRun(settings, directory=tmp_path, shard_size=50) as data:
        first = dict(data.traces())
    files = sorted((tmp_path / "traces").glob("shard-*.parquet"))
    assert len(files) == 4 * 3  # 4 shards x (matches, events, paths)
    stamps = {p: p.stat().st_mtime_ns for p in files}
    files[0].unlink()  # one table of the first shard lost: only that shard is recomputed
    with sources.DataRun(settings, directory=tmp_path, shard_size=50) as data:
        again = dict(data.traces())
    for table in sources.TRACE_TABLES:
        pd.testing.assert_frame_equal(getattr(again[("greedy", 2)], table),
                                      getattr(first[("greedy", 2)], table), check_exact=True)
    kept = [p for p in files if "m000000000000" not in p.name]
    assert all(p.stat().st_mtime_ns == stamps[p] for p in kept)
    other = dict(settings, seed=SEED + 1)
    with pytest.raises(ShardError, match="seed was 23, now 24"):
        sources.DataRun(other, directory=tmp_path, shard_size=50).check()
    with pytest.raises(ShardError, match="shard_size was 50, now 60"):
        sources.DataRun(settings, directory=tmp_path, shard_size=60).check()
    data = sources.DataRun(settings, directory=tmp_path, shard_size=50)
    data.stores = {"traces": ShardStore(tmp_path / "traces", data._manifest("traces"),
                                        tables=sources.TRACE_TABLES)}
    data.finish()
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_run_with_out_keeps_or_removes_shards(compiled_engine, tmp_path):
    kept = seats.run([2], ["greedy"], 120, SEED, out=tmp_path / "kept", shard_size=50,
                     keep_shards=True)
    assert len(list((tmp_path / "kept" / "shards" / "rounds").glob("shard-*.parquet"))) == 3
    gone = seats.run([2], ["greedy"], 120, SEED, out=tmp_path / "gone", shard_size=50)
    assert not (tmp_path / "gone" / "shards").exists()
    in_memory = seats.run([2], ["greedy"], 120, SEED)
    for name, frame in in_memory.frames.items():
        pd.testing.assert_frame_equal(kept.frames[name], frame, check_exact=True)
        pd.testing.assert_frame_equal(gone.frames[name], frame, check_exact=True)
    # The kept shards serve a re-run (nothing recomputed: same files, same result).
    stamps = {p: p.stat().st_mtime_ns
              for p in (tmp_path / "kept" / "shards" / "rounds").glob("shard-*")}
    again = seats.run([2], ["greedy"], 120, SEED, out=tmp_path / "kept", shard_size=50,
                      keep_shards=True)
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    assert again.markdown == kept.markdown


# ---------------------------------------------------------------------------
# Command line: kill -9 mid-run, resume; refusals; bad backend options
# ---------------------------------------------------------------------------
def experiment_cli(name, *args):
    return subprocess.run([sys.executable, "-m", f"experiments.{name}", *args],
                          capture_output=True, text=True)


SETTLEMENT = ["--players", "2", "--strategies", "greedy", "--matches", "24000", "--seed", "5",
              "--shard-size", "1500", "--threads", "1", "--quiet"]


def test_experiment_sigkill_then_resume_equals_an_uninterrupted_run(compiled_engine, tmp_path):
    out = tmp_path / "killed"
    shards = out / "shards" / "traces"
    kill_after_first_shard([sys.executable, "-m", "experiments.settlement", *SETTLEMENT,
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
    assert run.stderr.strip() == f"error: {words}"
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
    run = experiment_cli("openings", "--help")
    assert run.returncode == 0
    for words in ("--backend NAME", "--scheduler ADDR", "--shard-size K", "--keep-shards",
                  "DIR/shards", "resumes"):
        assert words in run.stdout, words
    assert "--summary-only" not in run.stdout


def test_openings_cli_runs_sharded(compiled_engine, tmp_path):
    out = tmp_path / "o"
    run = experiment_cli("openings", "--players", "2", "--strategies", "greedy", "--matches",
                         "300", "--hands", "25", "--playouts", "4", "--shard-size", "100",
                         "--keep-shards", "--quiet", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert len(list((out / "shards" / "rounds").glob("shard-*.parquet"))) == 3
    assert len(list((out / "shards" / "counterfactual").glob("shard-*.parquet"))) == 2
    direct = openings.run([2], ["greedy"], 300, 0, hands=25, playouts=4)
    for name, frame in direct.frames.items():
        saved = pd.read_parquet(out / f"{name}.parquet")
        expected = frame.copy()
        for column in expected.columns:  # saved files hold categoricals as strings
            if isinstance(expected[column].dtype, pd.CategoricalDtype):
                expected[column] = expected[column].astype(str)
        pd.testing.assert_frame_equal(saved, expected.reset_index(drop=True), check_exact=True,
                                      check_dtype=False)
    assert Path(out / "run.json").exists()
