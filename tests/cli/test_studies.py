"""The research studies' commands (``five-up overshoot`` ...): files written, --help, one-line errors."""

from __future__ import annotations

import json

import pytest

from tests.support.plugins import call_cli, help_text

_cli = call_cli  # in this process: the session's compiled kernels are reused


@pytest.mark.parametrize("name,extra,files", [
    ("overshoot", [], ["by_score.parquet", "by_score.csv", "paths.csv", "zone_turns.csv",
                       "discard_probability.png", "zone_turns.png"]),
    ("settlement", [], ["domino_parts.csv", "parts_hist.parquet", "blocked.csv", "points.csv",
                        "partner_debit.csv", "domino_parts.png", "point_sources.png"]),
    # The openings command compiles its strong continuations (rollout, matchplay): about 90 s,
    # the default run's longest test; tests/experiments/test_openings.py covers the study there.
    pytest.param("openings", ["--hands", "4", "--playouts", "3"],
                 ["tiles.parquet", "tiles.csv", "cf_tiles.csv", "cf_hands.csv", "cf_summary.csv",
                  "opening_tiles.png", "counterfactual.png"], marks=pytest.mark.slow),
    ("seats", [], ["first_lot.csv", "positions.parquet", "absolute_seats.csv",
                   "round_positions.csv", "seats.png"]),
])
def test_command_line_end_to_end(compiled_engine, tmp_path, name, extra, files):
    out = tmp_path / name
    result = _cli(name, "--players", "2,4", "--strategies", "greedy",
                  "--matches", "40", "--seed", "3", "--out", str(out), "--quiet", *extra)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for file in files + ["summary.md", "run.json"]:
        assert (out / file).is_file(), file
    assert f"{name}:" in result.stdout
    if name == "seats":
        # the same command again into the same directory is accepted, with the same CSVs
        before = {f: (out / f).read_bytes() for f in files if f.endswith(".csv")}
        again = _cli(name, "--players", "2,4", "--strategies", "greedy",
                     "--matches", "40", "--seed", "3", "--out", str(out), "--quiet", *extra)
        assert again.returncode == 0, again.stderr
        assert before == {f: (out / f).read_bytes() for f in before}
    # a different run into it is refused
    other = _cli(name, "--players", "2,4", "--strategies", "greedy",
                 "--matches", "41", "--seed", "3", "--out", str(out), "--quiet", *extra)
    assert other.returncode == 2
    assert other.stderr.startswith("five-up: error: ") and other.stderr.count("\n") == 1
    assert "matches" in other.stderr


@pytest.mark.parametrize("name", ["overshoot", "settlement", "openings", "seats"])
def test_help(name):
    help_text(name, "--players", "--strategies", "--matches", "--seed", "--out")


@pytest.mark.parametrize("name,args", [
    ("overshoot", ["--players", "5"]),
    ("overshoot", ["--players", "two"]),
    ("settlement", ["--strategies", "greedy,nope"]),
    ("settlement", ["--strategies", "greedy,greedy"]),
    ("seats", ["--matches", "0"]),
    ("openings", ["--seed", "-3"]),
    ("openings", ["--playouts", "1"]),
    ("openings", ["--playout-strategy", "nope"]),
    ("overshoot", ["--threads", "0"]),
    ("overshoot", ["--bogus"]),
    ("seats", []),  # no --out
])
def test_bad_input_is_one_line_and_status_2(tmp_path, name, args):
    argv = list(args)
    if name != "seats" or args:
        argv += ["--out", str(tmp_path / "out")]
    result = _cli(name, *argv, "--quiet")
    assert result.returncode == 2
    assert result.stderr.startswith("five-up: error: ")
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


def test_out_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    result = _cli("seats", "--out", str(target), "--quiet")
    assert result.returncode == 2 and result.stderr.startswith("five-up: error: ")
    assert "not a directory" in result.stderr


@pytest.mark.parametrize("name", ["overshoot", "settlement", "seats"])
def test_mixed_tables_end_to_end(compiled_engine, tmp_path, name):
    out = tmp_path / name
    result = _cli(name, "--players", "2", "--strategies", "greedy", "--matches", "20",
                  "--table", "exact,greedy", "--table-matches", "15", "--seed", "3",
                  "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert (out / "head_to_head.png").is_file()
    assert "## Head to head (mixed tables)" in (out / "summary.md").read_text()
    assert "exact vs greedy, 2p: exact: " in result.stdout
    settings = json.loads((out / "run.json").read_text())
    assert settings["tables"] == [["exact", "greedy"]] and settings["table_matches"] == 15


@pytest.mark.parametrize("args,words", [
    (["--table", "exact,nope"], "unknown strategy 'nope'"),
    (["--table", "exact"], "names 1 strategy"),
    (["--table", "a,b,c,d"], "names 4 strategies"),
    (["--players", "2", "--table", "exact,greedy,random"], "3-player table"),
    (["--table-matches", "10"], "without any table"),
])
def test_bad_tables_are_one_line(tmp_path, args, words):
    result = _cli("overshoot", *args, "--out", str(tmp_path / "out"), "--quiet")
    assert result.returncode == 2
    assert result.stderr.startswith("five-up: error: ") and result.stderr.count("\n") == 1
    assert words in result.stderr
    assert not (tmp_path / "out").exists()


def test_help_explains_tables():
    help_text("seats", "--table A,B[,C]", "--table-matches", "rotation")


def test_strong_strategies_end_to_end(compiled_engine, tmp_path):
    out = tmp_path / "overshoot"
    result = _cli("overshoot", "--players", "2", "--strategies", "greedy", "--matches", "20",
                  "--strong", "rollout", "--strong-matches", "6", "--seed", "3",
                  "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    settings = json.loads((out / "run.json").read_text())
    assert settings["strategies"] == ["greedy", "rollout"]
    assert settings["strong"] == ["rollout"] and settings["strong_matches"] == 6
    assert "rollout, 2p: raw discarded per match" in result.stdout
    assert "rollout are self-played at 6 matches per configuration" in (
        out / "summary.md").read_text()


@pytest.mark.parametrize("args,words", [
    (["--strong-matches", "10"], "strong_matches is given without any strong strategy"),
    (["--strong", "greedy"], "both as a strategy and as a strong strategy"),
    (["--strong", "nope"], "unknown strategy 'nope'"),
    (["--strong", "rollout", "--strong-matches", "0"], "strong_matches"),
])
def test_bad_strong_options_are_one_line(tmp_path, args, words):
    result = _cli("settlement", "--strategies", "greedy", *args, "--out", str(tmp_path / "out"),
                  "--quiet")
    assert result.returncode == 2
    assert result.stderr.startswith("five-up: error: ") and result.stderr.count("\n") == 1
    assert words in result.stderr
    assert not (tmp_path / "out").exists()
