"""``five-up tune``: --help, bad input in one line, a tiny run in its own process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.plugins import call_cli, help_text, one_line


def test_help_explains_every_option(capsys):
    help_text("tune", "--strategy", "--against", "--validate-against", "--players", "--seed",
              "--validation-seed", "--deals", "--generations", "--population", "--sigma",
              "--pick", "--validation-deals", "--max-rounds", "--threads", "--out", "--ship",
              "--quiet", "scaled space", "paired 95%")


@pytest.mark.parametrize("args,word", [
    (["--players", "3"], "players"),
    (["--players", "two"], "players"),
    (["--against", "weighted,nope"], "nope"),
    (["--strategy", "greedy"], "no parameters"),
    (["--strategy", "weighted,greedy"], "one strategy"),
    (["--deals", "1"], "deals"),
    (["--generations", "0"], "generations"),
    (["--population", "x"], "population"),
    (["--sigma", "-0.5"], "sigma"),
    (["--sigma", "abc"], "sigma"),
    (["--pick", "median"], "pick"),
    (["--validation-deals", "0"], "validation_deals"),
    (["--seed", "-1"], "seed"),
    (["--threads", "0"], "threads"),
    (["--validate-against", "cheater"], "hidden"),
    (["--ship", "table.txt"], ".py"),
    (["--bogus"], "bogus"),
])
def test_bad_input_is_one_line_and_status_2(capsys, tmp_path, args, word):
    result = call_cli("tune", *args, "--out", str(tmp_path / "out"), "--quiet")
    one_line(result, 2, word)
    assert not (tmp_path / "out").exists()


def test_no_out_is_one_line(capsys):
    one_line(call_cli("tune"), 2)


def test_a_tiny_run_in_a_process_of_its_own(compiled_engine, tmp_path):
    out = tmp_path / "out"
    args = ["--against", "greedy", "--deals", "10", "--generations", "1", "--population", "3",
            "--validation-deals", "10", "--seed", "2", "--out", str(out), "--quiet"]
    result = subprocess.run([sys.executable, "-m", "cli", "tune", *args],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "tune: 1 generations x 3 candidates x 10 duplicate deals" in result.stdout
    assert "weighted (tuned) vs greedy" in result.stdout
    best = json.loads((out / "best.json").read_text())
    assert best["spec"] in result.stdout
    bad = subprocess.run([sys.executable, "-m", "cli", "tune", "--deals", "x", "--out",
                          str(tmp_path / "other")], capture_output=True, text=True,
                         timeout=120, check=False)
    one_line(bad, 2)
