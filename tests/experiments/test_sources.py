"""The experiments' data in shards: equal to unsharded runs, durable, resumable, refused when foreign.

The dask half (a LocalCluster of 2 workers equals the local backend) is in
tests/scale/test_backends.py, next to the module's cluster fixture.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from experiments import sources
from experiments.settings import study_settings
from experiments.studies import seats
from sim.scale.shards import Shard
from sim.scale.store import ShardError, ShardStore
from sim.study_kernels.openings import opening_counterfactual
from sim.study_kernels.traces import trace_events
from tests.support.backends import WireBackend

SEED = 23


def settings_for(players, strategies, matches, **extra):
    settings = study_settings("test", players, strategies, matches, SEED)
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


def test_a_sealed_run_plays_every_source_with_its_one_secret(compiled_engine):
    """Each shard job gets the run's sealing in its config, over JSON as a dask worker would, and
    plays what the engine plays with that secret (``random``'s decisions are keyed by it)."""
    secret = "0123456789abcdef0123456789abcdef"
    settings = study_settings("test", [2], ["random"], 12, SEED, tables="random,greedy",
                              table_matches=6, sealed=True, secret=secret)
    settings.update(hands=3, playouts=2, playout_strategy="random", baseline="greedy")
    wire = WireBackend()
    with sources.DataRun(settings, backend=wire, shard_size=5) as data:
        (_, trace), = data.traces()
        (_, rounds), = data.rounds()
        tables = list(data.table_traces())
        counterfactual = data.counterfactuals()[2]
    assert len(tables) == 1 and len(wire.configs) == 3 + 3 + 2 * 2 + 1  # the table: 2 rotations
    playing = [c for c in wire.configs if "strategies" in c]
    assert all((c["sealed"], c["secret"]) == (True, secret) for c in playing)
    assert [c["secret"] for c in wire.configs if "strategy" in c] == [secret]  # the playouts
    whole = trace_events(2, ["random"] * 2, 12, SEED, secret=secret)
    for table in sources.TRACE_TABLES:
        pd.testing.assert_frame_equal(getattr(trace, table), getattr(whole, table),
                                      check_exact=True)
    assert not trace.matches.equals(trace_events(2, ["random"] * 2, 12, SEED).matches)
    pd.testing.assert_frame_equal(rounds, sources.rounds_job(0, 12, players=2,
                                                             strategies=["random"] * 2, seed=SEED,
                                                             secret=secret), check_exact=True)
    alone = opening_counterfactual(2, "random", hands=3, playouts=2, seed=SEED, baseline="greedy",
                                   secret=secret)
    assert np.array_equal(counterfactual.diff, alone.diff)


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
