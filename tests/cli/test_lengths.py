"""``five-up lengths``: --help, one-line errors, the files it writes."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.support.plugins import call_cli, help_text

_cli = call_cli  # in this process: the session's compiled kernels are reused


def test_help_explains_the_options():
    help_text("lengths", "--players", "--strategies", "--matches", "--seed", "--out", "--threads",
              "--quiet", "--backend", "--shard-size", "carried at its final score",
              "default greedy,random")
    listing = _cli("--help")
    assert "lengths" in listing.stdout


@pytest.mark.parametrize("args", [
    ["--players", "5"],
    ["--players", "two"],
    ["--strategies", "greedy,nope"],
    ["--matches", "0"],
    ["--seed", "-1"],
    ["--threads", "0"],
    ["--bogus"],
    None,  # no --out
])
def test_bad_input_is_one_line_and_status_2(tmp_path, args):
    argv = ["--quiet"] if args is None else [*args, "--out", str(tmp_path / "out"), "--quiet"]
    result = _cli("lengths", *argv)
    assert result.returncode == 2
    assert result.stderr.startswith("five-up: error: ")
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_writes_the_study(compiled_engine, tmp_path):
    out = tmp_path / "lengths"
    result = _cli("lengths", "--players", "2,4", "--strategies", "greedy", "--matches", "60",
                  "--seed", "3", "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("lengths: ")
    assert "greedy, 2p: rounds per match" in result.stdout
    for name in ("lengths", "rounds_hist", "trajectories", "gaps"):
        assert (out / f"{name}.parquet").is_file() and (out / f"{name}.csv").is_file()
    for name in ("rounds_per_match.png", "score_paths.png", "score_gap.png", "summary.md",
                 "run.json"):
        assert (out / name).is_file(), name
    table = pd.read_csv(out / "lengths.csv")
    assert table["matches"].tolist() == [60, 60]
    assert not (out / "shards").exists()
    other = _cli("lengths", "--players", "2,4", "--strategies", "greedy", "--matches", "61",
                 "--seed", "3", "--out", str(out), "--quiet")
    assert other.returncode == 2
    assert other.stderr.startswith("five-up: error: ") and other.stderr.count("\n") == 1
