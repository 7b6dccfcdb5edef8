"""Shards: plans, durable resumable stores, refusals, summary-only aggregates, kill and resume."""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import pytest
from tests.support.plugins import call_cli
from tests.support.processes import kill_after_first_shard

from experiments.stats import summary_table
from sim.scale.aggregates import match_aggregate, merge_aggregates
from sim.scale.shards import plan
from sim.scale.simulate import simulate_sharded
from sim.scale.store import ShardError, ShardStore


def one_line_error(run, words):
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert lines[0].startswith("five-up: error: ") and words in lines[0], lines[0]


def test_plan_covers_the_range_once():
    shards = plan(10_001, 2_500, seed=7, first_match=40)
    assert [(s.first_match, s.count) for s in shards] == [
        (40, 2500), (2540, 2500), (5040, 2500), (7540, 2500), (10040, 1)]
    assert {s.seed for s in shards} == {7}
    assert len({s.name for s in shards}) == len(shards)
    assert plan(5, 50_000, seed=1) == plan(5, 5, seed=1)


@pytest.mark.parametrize("players, strategies", [(2, "random,greedy"), (3, "greedy,random,greedy"),
                                                 (4, "greedy,random")])
def test_shards_concatenate_to_the_unsharded_frame(compiled_engine, players, strategies):
    whole = compiled_engine.simulate(players, strategies, 700, seed=21, first_match=5)
    for size in (1, 97, 700, 5000):
        if size == 1:
            run = simulate_sharded(players, strategies, 30, seed=21, first_match=5, shard_size=1)
            pd.testing.assert_frame_equal(run.frame(), whole.iloc[:30], check_exact=True)
            continue
        run = simulate_sharded(players, strategies, 700, seed=21, first_match=5, shard_size=size)
        pd.testing.assert_frame_equal(run.frame(), whole, check_exact=True)


def test_store_resumes_without_recomputing(compiled_engine, tmp_path):
    parts = tmp_path / "parts"
    first = simulate_sharded(2, "greedy,random", 2_000, seed=3, shard_size=300, directory=parts)
    assert (first.resumed, first.computed) == (0, 7)
    files = sorted(parts.glob("shard-*.parquet"))
    assert len(files) == 7 and (parts / "manifest.json").exists()
    # Lose two shards (as if killed before they were written) and leave a torn temporary file.
    files[2].unlink()
    files[5].unlink()
    (parts / f".{files[5].name}.999.tmp").write_bytes(b"torn")
    kept = {f.name: f.stat().st_mtime_ns for f in files if f.exists()}
    again = simulate_sharded(2, "greedy,random", 2_000, seed=3, shard_size=300, directory=parts)
    assert (again.resumed, again.computed) == (5, 2)
    assert {f.name: f.stat().st_mtime_ns for f in files if f.name in kept} == kept
    assert not list(parts.glob(".*.tmp"))
    whole = compiled_engine.simulate(2, "greedy,random", 2_000, seed=3)
    pd.testing.assert_frame_equal(again.frame(), whole, check_exact=True)
    again.store.remove()
    assert not parts.exists()


@pytest.mark.parametrize("change, words", [
    ({"seed": 4}, "seed was 3, now 4"),
    ({"matches": 900}, "matches was 600, now 900"),
    ({"shard_size": 200}, "shard_size was 300, now 200"),
    ({"strategies": "random,greedy"}, 'strategies was ["greedy", "random"], now ["random", "greedy"]'),
    ({"summary_only": True}, 'mode was "frames", now "summary"'),
])
def test_a_different_run_in_the_same_directory_is_refused(compiled_engine, tmp_path, change, words):
    parts = tmp_path / "parts"
    base = {"players": 2, "strategies": "greedy,random", "matches": 600, "seed": 3, "shard_size": 300}
    simulate_sharded(directory=parts, **base)
    before = sorted(p.name for p in parts.iterdir())
    with pytest.raises(ShardError, match="holds shards of a different run") as info:
        simulate_sharded(directory=parts, **{**base, **change})
    assert words in str(info.value) and "\n" not in str(info.value)
    assert sorted(p.name for p in parts.iterdir()) == before  # nothing mixed in


def test_foreign_directory_and_live_lock_are_refused(compiled_engine, tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(ShardError, match="holds files but no manifest.json"):
        simulate_sharded(2, "greedy,random", 10, seed=1, directory=foreign)
    store = ShardStore(tmp_path / "busy", {"kind": "x"}).open()
    try:
        with pytest.raises(ShardError, match="in use by another running process"):
            ShardStore(tmp_path / "busy", {"kind": "x"}).open()
    finally:
        store.close()
    ShardStore(tmp_path / "busy", {"kind": "x"}).open().close()  # free again once released


@pytest.mark.parametrize("players, strategies", [(2, "random,greedy"), (4, "greedy,random")])
def test_summary_only_aggregates_equal_the_full_frame(compiled_engine, tmp_path, players, strategies):
    whole = compiled_engine.simulate(players, strategies, 1_500, seed=9)
    expected = json.loads(json.dumps(match_aggregate(whole)))
    run = simulate_sharded(players, strategies, 1_500, seed=9, shard_size=211, summary_only=True,
                           directory=tmp_path / "agg")
    assert run.aggregate == expected
    resumed = simulate_sharded(players, strategies, 1_500, seed=9, shard_size=211,
                               summary_only=True, directory=tmp_path / "agg")
    assert resumed.computed == 0 and resumed.aggregate == expected
    table = summary_table(run.aggregate).set_index("quantity")
    for column in ("rounds", "placements", "draws", "score_0", "score_1", "settlement_raw_1"):
        assert table.loc[column, "mean"] == pytest.approx(whole[column].mean(), rel=1e-12)
        assert table.loc[column, "std"] == pytest.approx(whole[column].std(ddof=1), rel=1e-9)
    for entity in range(2):
        assert table.loc[f"win_{entity}", "sum"] == int((whole["winner"] == entity).sum())
    assert run.aggregate["hist"]["rounds"] == {
        str(k): int(v) for k, v in whole["rounds"].value_counts().items()}


def test_merge_aggregates():
    a = {"n": 2, "h": {"1": 1, "2": 1}, "v": [1, 2], "name": "x"}
    b = {"n": 3, "h": {"2": 2, "5": 1}, "v": [10, 20], "name": "x"}
    assert merge_aggregates(a, b) == {"n": 5, "h": {"1": 1, "2": 3, "5": 1}, "v": [11, 22],
                                      "name": "x"}
    assert merge_aggregates(None, a) == a
    with pytest.raises(ValueError):
        merge_aggregates({"name": "x"}, {"name": "y"})


# ---------------------------------------------------------------------------
# Command line: kill -9 mid-run, resume, refusals, summary-only output
# ---------------------------------------------------------------------------
SIM = ["simulate", "--players", "2", "--strategies", "greedy,greedy", "--matches", "40000",
       "--seed", "11", "--shard-size", "2000", "--threads", "1"]


def test_sigkill_mid_run_then_resume_equals_an_uninterrupted_run(compiled_engine, tmp_path):
    out = tmp_path / "k.parquet"
    parts = tmp_path / "k.parquet.parts"
    kill_after_first_shard([sys.executable, "-m", "cli", *SIM, "--out", str(out)], parts,
                           "shard-*.parquet")
    assert not out.exists()
    done = {p.name: p.stat().st_mtime_ns for p in parts.glob("shard-*.parquet")}
    assert 1 <= len(done) < 20

    refused = call_cli(*[("12" if a == "11" else a) for a in SIM], "--out", str(out))
    one_line_error(refused, "holds shards of a different run (config.seed was 11, now 12)")

    resumed = call_cli(*SIM, "--out", str(out), "--keep-shards")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming from {parts}: {len(done)} of 20 shards" in resumed.stderr
    assert f"({len(done)} of 20 shards resumed" in resumed.stdout
    assert {n: (parts / n).stat().st_mtime_ns for n in done} == done  # not recomputed
    expected = compiled_engine.simulate(2, "greedy,greedy", 40000, seed=11)
    pd.testing.assert_frame_equal(pd.read_parquet(out), expected, check_exact=True)

    # Without --keep-shards the parts directory goes once the output is written.
    again = call_cli(*SIM, "--out", str(out))
    assert again.returncode == 0 and "20 of 20 shards resumed" in again.stdout
    assert not parts.exists()
    pd.testing.assert_frame_equal(pd.read_parquet(out), expected, check_exact=True)


def test_cli_summary_only_json_and_csv(compiled_engine, tmp_path):
    base = ["simulate", "--players", "3", "--strategies", "greedy,random,greedy", "--matches", "900",
            "--seed", "2", "--shard-size", "250"]
    js = call_cli(*base, "--summary-only", "--out", str(tmp_path / "s.json"))
    assert js.returncode == 0, js.stderr
    assert "summary only" in js.stdout and "win_0" in js.stdout and "rounds" in js.stdout
    document = json.loads((tmp_path / "s.json").read_text())
    whole = compiled_engine.simulate(3, "greedy,random,greedy", 900, seed=2)
    assert document["aggregate"] == json.loads(json.dumps(match_aggregate(whole)))
    assert document["run"]["config"]["strategies"] == ["greedy", "random", "greedy"]
    csv = call_cli(*base, "--summary-only", "--out", str(tmp_path / "s.csv"))
    assert csv.returncode == 0, csv.stderr
    table = pd.read_csv(tmp_path / "s.csv").set_index("quantity")
    assert table.loc["rounds", "mean"] == pytest.approx(whole["rounds"].mean(), abs=1e-6)
    assert table.loc["win_2", "sum"] == int((whole["winner"] == 2).sum())
    assert not (tmp_path / "s.json.parts").exists() and not (tmp_path / "s.csv.parts").exists()
    wrong = call_cli(*base, "--summary-only", "--out", str(tmp_path / "s.parquet"))
    one_line_error(wrong, "should end with .json or .csv")


@pytest.mark.parametrize("args, words", [
    (["--shard-size", "0"], "--shard-size must be at least 1"),
    (["--shard-size", "lots"], "--shard-size expects an integer"),
])
def test_cli_bad_shard_options(tmp_path, args, words):
    run = call_cli("simulate", "--players", "2", "--strategies", "greedy,random", "--matches", "5",
                   "--seed", "1", "--out", str(tmp_path / "x.parquet"), *args)
    one_line_error(run, words)


# ---------------------------------------------------------------------------
# Tournament on shards
# ---------------------------------------------------------------------------
def test_tournament_shards_resume_and_summary_only(compiled_engine, tmp_path):
    from experiments.tools.tournament import tournament

    names = ["random", "greedy"]
    plain = tournament(2, names, 1_000, seed=8, duplicate=True, out=tmp_path / "plain")
    assert not (tmp_path / "plain" / "shards").exists()
    sharded = tournament(2, names, 1_000, seed=8, duplicate=True, out=tmp_path / "sharded",
                         shard_size=300, keep_shards=True)
    pd.testing.assert_frame_equal(sharded.matches, plain.matches, check_exact=True)
    shards = sorted((tmp_path / "sharded" / "shards").glob("shard-*.parquet"))
    assert len(shards) == 8  # 2 seatings x 4 shards
    for name in ("summary.csv", "pairwise.csv", "ranking.csv"):
        assert (tmp_path / "sharded" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes()

    # Resume: lose one shard and the outputs; the rest is not recomputed.
    shards[3].unlink()
    (tmp_path / "sharded" / "summary.csv").unlink()
    kept = {p: p.stat().st_mtime_ns for p in shards[:3] + shards[4:]}
    tournament(2, names, 1_000, seed=8, duplicate=True, out=tmp_path / "sharded", shard_size=300,
               keep_shards=True)
    assert {p: p.stat().st_mtime_ns for p in kept} == kept and shards[3].exists()
    assert (tmp_path / "sharded" / "summary.csv").read_bytes() == \
        (tmp_path / "plain" / "summary.csv").read_bytes()
    tournament(2, names, 1_000, seed=8, duplicate=True, out=tmp_path / "sharded", shard_size=300)
    assert not (tmp_path / "sharded" / "shards").exists()

    summary = tournament(2, names, 1_000, seed=8, duplicate=True, out=tmp_path / "summary",
                         shard_size=300, summary_only=True)
    assert summary.matches is None and not (tmp_path / "summary" / "matches.parquet").exists()
    # the same rates; the intervals by what each run can see: deals as clusters with match
    # rows, Wilson without (the summary names which)
    kept, full = (pd.read_csv(tmp_path / d / "summary.csv") for d in ("summary", "plain"))
    same = ["strategy", "matches", "wins", "win_rate", "unfinished", "mean_margin"]
    pd.testing.assert_frame_equal(kept[same], full[same])
    assert set(kept.interval) == {"wilson"} and set(full.interval) == {"deal-clustered"}
    np.testing.assert_allclose(kept[["win_low", "win_high"]],
                               full[["wilson_low", "wilson_high"]], atol=1e-6)
    # Without match rows the deals cannot be clusters: the same shares and strengths, with
    # intervals over independent matches (the summary says so).
    kept, full = (pd.read_csv(tmp_path / d / "pairwise.csv") for d in ("summary", "plain"))
    pd.testing.assert_frame_equal(kept[["strategy", "opponent", "share"]],
                                  full[["strategy", "opponent", "share"]], rtol=1e-12)
    assert set(kept.interval) == {"wilson"} and set(full.interval) == {"deal-clustered"}
    kept, full = (pd.read_csv(tmp_path / d / "ranking.csv") for d in ("summary", "plain"))
    np.testing.assert_allclose(kept.log_strength, full.log_strength, atol=1e-6)


def test_tournament_three_players_summary_only_matches_full(compiled_engine):
    import strategies
    from experiments.tools.tournament import tournament

    others = sorted(name for name in set(strategies.builtin_names()) - {"random", "greedy"}
                    if not strategies.resolve(name).sees_hidden)
    if not others:
        pytest.skip("needs a third registered strategy")
    names = ["random", "greedy", others[0]]
    full = tournament(3, names, 200, seed=4, shard_size=70)
    summary = tournament(3, names, 200, seed=4, shard_size=70, summary_only=True)
    pd.testing.assert_frame_equal(summary.summary, full.summary, check_exact=True)
    pd.testing.assert_frame_equal(summary.pairwise, full.pairwise, check_exact=True)
    # the full run adds the fit's simultaneous rank intervals, which the sums cannot give
    pd.testing.assert_frame_equal(summary.ranking,
                                  full.ranking.drop(columns=["rank_low", "rank_high"]), rtol=1e-9)


def test_tournament_cli_refuses_changed_shard_size_of_an_unfinished_run(compiled_engine, tmp_path):
    out = tmp_path / "t"
    base = ["tournament", "--strategies", "random,greedy", "--matches", "400", "--seed", "3",
            "--out", str(out), "--quiet", "--shard-size", "100", "--keep-shards"]
    first = call_cli(*base)
    assert first.returncode == 0, first.stderr
    assert np.isclose(pd.read_csv(out / "summary.csv")["matches"], 800).all()
    changed = call_cli(*[("150" if a == "100" else a) for a in base])
    one_line_error(changed, "shard_size was 100, now 150")
    summary_only = call_cli(*base[:-1], "--summary-only")
    one_line_error(summary_only, 'mode was "frames", now "summary"')
