"""``five-up tournament``: the sample-size options (--until-separated, --alpha), the interval-width
output, bad input in one line."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.support.plugins import call_cli, help_text


def test_help_states_the_test_and_the_width_output(capsys):
    help_text("tournament", "--until-separated", "--alpha", "confidence sequence",
              "Robbins normal mixture", "excludes 1/2", "probability at most --alpha",
              "not adjusted for the optional stopping", "interval_width.csv", "default 0.05")


@pytest.mark.parametrize("args, words", [
    (["--strategies", "random,greedy,heavy", "--duplicate", "--until-separated"],
     "--until-separated compares exactly two strategies, found 3"),
    (["--strategies", "random,greedy", "--until-separated"], "--until-separated needs --duplicate"),
    (["--strategies", "random,greedy", "--duplicate", "--until-separated", "--alpha", "1"],
     "alpha must lie strictly between 0 and 1"),
    (["--strategies", "random,greedy", "--duplicate", "--until-separated", "--alpha", "x"],
     "alpha expects a number"),
    (["--strategies", "random,greedy", "--duplicate", "--alpha", "0.01"],
     "--alpha is the error level of --until-separated's test"),
    (["--strategies", "random,greedy", "--duplicate", "--until-separated", "--summary-only"],
     "--until-separated needs the match rows"),
])
def test_bad_input_one_line(capsys, tmp_path, args, words):
    result = call_cli("tournament", *args, "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("five-up: error:")
    assert not (tmp_path / "o").exists()


def test_until_separated_run(capsys, compiled_engine, tmp_path):
    out = tmp_path / "s"
    result = call_cli("tournament", "--strategies", "rollout,random", "--duplicate",
                         "--until-separated", "--matches", "300", "--seed", "1", "--alpha", "0.01",
                         "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "Stopped at deal" in result.stdout and "winner rollout" in result.stdout
    assert "alpha = 0.01" in result.stdout and "not adjusted for the optional stopping" in result.stdout
    path = pd.read_csv(out / "sequential.csv")
    # Reported up to the stop only: the first row where the sequence excludes 1/2 is the last.
    assert path["separated"].tolist() == [False] * (len(path) - 1) + [True]
    assert f"Stopped at deal {len(path)}" in result.stdout
    matches = pd.read_parquet(out / "matches.parquet")
    assert len(matches) == 2 * len(path)
    for name in ("interval_width.csv", "interval_width.png", "sequential.png", "pairwise.png",
                 "ranking.png"):
        assert (out / name).stat().st_size > 0, name
    # The same command again: the same directory is accepted and the same stop found.
    again = call_cli("tournament", "--strategies", "rollout,random", "--duplicate",
                        "--until-separated", "--matches", "300", "--seed", "1", "--alpha", "0.01",
                        "--out", str(out), "--quiet", "--shard-size", "5")
    assert again.returncode == 0, again.stderr
    assert f"Stopped at deal {len(path)}" in again.stdout
