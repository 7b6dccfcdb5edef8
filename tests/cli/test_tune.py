"""``five-up tune``: --help, bad input in one line, a tiny run in its own process."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.bad_input import bad_input_test
from tests.support.plugins import call_cli, help_text, one_line


def test_help_explains_every_option(capsys):
    help_text("tune", "--strategy", "--against", "--validate-against", "--players", "--seed",
              "--validation-seed", "--deals", "--generations", "--population", "--sigma",
              "--pick", "--validation-deals", "--max-rounds", "--threads", "--out", "--ship",
              "--quiet", "scaled space", "paired 95%")


test_bad_input_is_one_line_and_status_2 = bad_input_test("tune", cases=[
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
    (["--validate-against", "cheater"], "hidden"),
    (["--ship", "table.txt"], ".py"),
])


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
