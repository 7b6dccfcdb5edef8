"""``five-up strength``: --help, bad input in one line, a tiny run."""

from __future__ import annotations

import pandas as pd

from tests.support.bad_input import bad_input_test
from tests.support.plugins import call_cli, help_text, one_line


def test_help_explains_every_option(capsys):
    help_text("strength", "--ladder", "--players", "--deals", "--challenger", "--reference",
              "--ceiling", "--seed", "--threads", "--max-rounds", "--timing-matches",
              "--resamples", "--allow-hidden", "--versus", "--out", "--quiet", "--shard-size",
              "--backend")


test_bad_input_is_one_line_and_status_2 = bad_input_test(
    "strength", "--ladder", "random,greedy", cases=[
        (["--ladder", "random,nope"], "nope"),
        (["--ladder", "greedy"], "at least 2"),
        (["--deals", "0"], "deals"),
        (["--timing-matches", "-1"], "timing_matches"),
        (["--seed", "-3"], "seed"),
        (["--versus", "random,greedy"], "yardstick"),
        (["--versus", "nope"], "nope"),
    ])


def test_the_default_ladder_needs_allow_hidden_or_is_refused_in_one_line(tmp_path):
    """Without --allow-hidden the default ladder (its ceiling sees hidden information, or is
    not written yet) is refused before any match, with the library's one line."""
    result = call_cli("strength", "--deals", "2", "--timing-matches", "0", "--out",
                      str(tmp_path / "out"), "--quiet")
    one_line(result, 2)
    assert not (tmp_path / "out").exists()


def test_a_tiny_run(compiled_engine, tmp_path):
    out = tmp_path / "out"
    roles = ["--challenger", "exact", "--reference", "greedy", "--ceiling", "none"]
    result = call_cli("strength", "--ladder", "random,greedy,exact", "--players", "2,4",
                      "--deals", "20", *roles, "--timing-matches", "3", "--seed", "4", "--out",
                      str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.startswith(
        "strength: 2 pairings x players 2,4 x 40 matches (20 deals, both seatings), seed 4")
    assert "2p: greedy vs random" in result.stdout
    for name in ("ladder.parquet", "ladder.csv", "timing.parquet", "timing.csv", "ladder.png",
                 "summary.md", "run.json"):
        assert (out / name).is_file(), name
    ladder = pd.read_csv(out / "ladder.csv")
    assert ladder[["players", "upper", "lower"]].values.tolist() == [
        [2, "greedy", "random"], [2, "exact", "greedy"], [4, "greedy", "random"],
        [4, "exact", "greedy"]]
    # another run into the same directory is refused
    other = call_cli("strength", "--ladder", "random,greedy,exact", "--players", "2,4",
                     "--deals", "21", *roles, "--timing-matches", "3", "--seed", "4", "--out",
                     str(out), "--quiet")
    one_line(other, 2, "deals")


def test_versus_plays_the_ladder_against_each_yardstick(compiled_engine, capsys, tmp_path):
    out = tmp_path / "out"
    result = call_cli("strength", "--ladder", "random,greedy", "--versus", "exact",
                      "--players", "2", "--deals", "10", "--timing-matches", "0", "--seed", "4",
                      "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "2p: random vs exact" in result.stdout and "2p: greedy vs exact" in result.stdout
    ladder = pd.read_csv(out / "ladder.csv")
    assert ladder[["upper", "lower", "kind"]].values.tolist() == [
        ["random", "exact", "versus"], ["greedy", "exact", "versus"]]
