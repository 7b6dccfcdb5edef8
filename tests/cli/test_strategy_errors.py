"""A user's strategy that is wrong, on the command line: one line, and the right status.

* a compiled strategy that does not compile (returns a float, allocates, reads
  an undefined name, writes to its view): ``five-up simulate`` and ``record``
  stop before any match with status 2 and one line naming the strategy, its
  file and line and the cause; with ``--debug`` Numba's whole text follows;
* a compiled strategy failing while the matches run (``raise``, a row that is
  not a candidate): status 1, one line naming the strategy, its seat and the
  match (and the row); the shards finished before it are kept in
  ``FILE.parts``;
* specs that name nothing usable: a ``FILE.py:NAME`` that misses (the file's
  strategies are listed), a user strategy named like a built-in, unbalanced
  or empty brackets: status 2, one line;
* the summary line of ``five-up simulate`` gives the compile time apart from
  the run's time and rate.
"""

from __future__ import annotations

import os
import re

import pytest

from core import rng as R
from tests.support.plugins import call_cli, one_line, run_cli

BROKEN = '''"""Compiled strategies that do not compile (written by test_strategy_errors.py)."""
import numpy as np

import strategies
from strategies import toolkit as tk


@strategies.strategy(name="floaty")
def floaty(view):
    return view.n_candidates / 2


@strategies.strategy(name="allocates")
def allocates(view):
    values = np.zeros(view.n_candidates)
    return 0


@strategies.strategy(name="undefined")
def undefined(view):
    return no_such_name + 1  # noqa: F821


@strategies.strategy(name="writes")
def writes(view):
    view.scores[0] = 305
    return 0
'''


def line_of(source: str, text: str) -> int:
    """The 1-based line of ``source`` holding ``text`` (exactly once)."""
    found = [n for n, line in enumerate(source.splitlines(), 1) if text in line]
    assert len(found) == 1, (text, found)
    return found[0]


COMPILE_ERRORS = {
    # name: (the line named, the cause)
    "floaty": (line_of(BROKEN, 'name="floaty"'),
               "returns float64: return an int row of view.cands (0 <= row < view.n_candidates)"),
    "allocates": (line_of(BROKEN, "np.zeros("), "does not compile: allocates an array"),
    "undefined": (line_of(BROKEN, "no_such_name"), "does not compile: undefined name no_such_name"),
    "writes": (line_of(BROKEN, "view.scores[0] = 305"), "does not compile: writes to its view"),
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    path = tmp_path_factory.mktemp("broken") / "broken.py"
    path.write_text(BROKEN)
    return path


def run_args(command: str, strategies: str, out, *extra) -> list:
    return [command, "--players", "2", "--strategies", strategies, "--matches", "5", "--seed", "0",
            "--out", out, *extra]


@pytest.mark.parametrize("command", ["simulate", "record"])
@pytest.mark.parametrize("name", list(COMPILE_ERRORS))
def test_a_strategy_that_does_not_compile_is_one_line_status_2(broken, tmp_path, command, name):
    line, cause = COMPILE_ERRORS[name]
    out = tmp_path / ("o.parquet" if command == "simulate" else "o.jsonl")
    run = call_cli(*run_args(command, f"{broken}:{name},greedy", out))
    text = one_line(run, 2, f"strategy {name!r} (broken.py:{line}) ", cause)
    if name != "floaty":
        assert text.endswith("(--debug shows Numba's whole message)")
    assert run.stdout == ""
    assert list(tmp_path.iterdir()) == []  # stopped before any match: no file, no shards


@pytest.mark.parametrize("name", list(COMPILE_ERRORS))
def test_debug_prints_the_whole_text_after_the_line(broken, tmp_path, name):
    line, cause = COMPILE_ERRORS[name]
    run = call_cli(*run_args("simulate", f"{broken}:{name},greedy", tmp_path / "o.parquet", "--debug"))
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert lines[0].startswith(f"five-up: error: strategy {name!r} (broken.py:{line}) ") and cause in lines[0]
    assert len(lines) > 3
    if name == "floaty":  # not Numba's error: the traceback of the check that refused it
        assert "Traceback" in run.stderr and "StrategyError" in run.stderr
    else:
        assert "Failed in nopython mode pipeline" in run.stderr
        assert NUMBA_SAYS[name] in "\n".join(lines[1:])


NUMBA_SAYS = {"allocates": "Only accept returning of array passed into the function",
              "undefined": "NameError: name 'no_such_name' is not defined",
              "writes": "Cannot modify readonly array"}
"""What Numba's own text says for each (what the one line explains)."""


# ---------------------------------------------------------------------------
# Failing while the matches run: status 1
# ---------------------------------------------------------------------------
SEED = 9
TRIGGER_MATCH = 25
SEAT = 1

FAILING = '''"""A compiled strategy that fails in one match only (written by test_strategy_errors.py)."""
import numpy as np

import strategies
from strategies import toolkit as tk

TRIGGER = np.uint64({key})
"""Seat {seat}'s decision key in match {match} of seed {seed}: the strategy fails there only."""


@strategies.strategy(name="failing", parameters={{"mode": 0.0}},
                     description="The largest award; in the trigger match it raises (mode 0) "
                                 "or returns a row past its candidates (mode 1).")
def failing(view):
    if view.rng[0] == TRIGGER:
        if view.params[0] == 0.0:
            raise ValueError("the trigger match came")
        return view.n_candidates + 3
    best, best_value = 0, -1
    for row in range(view.n_candidates):
        value = tk.award(view, row)
        if value > best_value:
            best, best_value = row, value
    return best
'''


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    path = tmp_path_factory.mktemp("failing") / "failing.py"
    key = int(R.decision_key(SEED, TRIGGER_MATCH, SEAT))
    path.write_text(FAILING.format(key=key, seat=SEAT, match=TRIGGER_MATCH, seed=SEED))
    return path


def error_line(run, status: int) -> str:
    """The one ``five-up: error:`` line of a run that failed with ``status``, last on stderr (a
    progress bar or the compile notice may come before it)."""
    assert run.returncode == status, (run.returncode, run.stdout, run.stderr)
    errors = [line for line in run.stderr.splitlines() if "five-up: error:" in line]
    assert len(errors) == 1, run.stderr
    assert run.stderr.strip().splitlines()[-1].endswith(errors[0].strip())
    assert "Traceback" not in run.stderr + run.stdout
    return errors[0][errors[0].index("five-up: error: "):]


def failing_run(failing, out, mode: int | None = None):
    spec = f"{failing}:failing" + ("" if mode is None else f"[mode={mode}]")
    return call_cli("simulate", "--players", "2", "--strategies", f"greedy,{spec}", "--matches", "40",
                    "--seed", SEED, "--shard-size", "20", "--out", out)


def test_a_compiled_raise_is_one_line_status_1_and_finished_shards_are_kept(failing, tmp_path):
    out = tmp_path / "run.parquet"
    run = failing_run(failing, out)
    line = error_line(run, 1)
    assert line == (f"five-up: error: strategy 'failing' (seat {SEAT}) in match {TRIGGER_MATCH} raised "
                    f"ValueError: the trigger match came")
    assert not out.exists()
    parts = out.with_name(out.name + ".parts")
    finished = [re.fullmatch(r"shard-p\d+-s(\d+)-m(\d+)-n(\d+)\.parquet", path.name)
                for path in parts.glob("shard-*.parquet")]
    assert all(finished) and [tuple(map(int, f.groups())) for f in finished] == [(SEED, 0, 20)], \
        sorted(path.name for path in parts.iterdir())


def test_a_compiled_bad_row_is_one_line_status_1_with_the_row(failing, tmp_path):
    run = failing_run(failing, tmp_path / "run.parquet", mode=1)
    line = error_line(run, 1)
    found = re.fullmatch(r"five-up: error: strategy 'failing\[mode=1\]' \(seat 1\) in match 25 returned row "
                         r"(\d+), not one of its (\d+) candidates \(rows 0 to (\d+)\)", line)
    assert found, line
    row, count, last = map(int, found.groups())
    assert row == count + 3 and last == count - 1 and count >= 2


def test_the_trigger_is_one_match_only(failing, tmp_path):
    """The control of the two tests above: the matches before the trigger play (and every other
    match of the run, from a first match after it)."""
    before = call_cli("simulate", "--players", "2", "--strategies", f"greedy,{failing}:failing",
                      "--matches", TRIGGER_MATCH, "--seed", SEED, "--out", tmp_path / "before.parquet")
    assert before.returncode == 0, before.stderr
    after = call_cli("simulate", "--players", "2", "--strategies", f"greedy,{failing}:failing",
                     "--matches", 15, "--first-match", TRIGGER_MATCH + 1, "--seed", SEED,
                     "--out", tmp_path / "after.parquet")
    assert after.returncode == 0, after.stderr


# ---------------------------------------------------------------------------
# Specs: status 2, one line
# ---------------------------------------------------------------------------
IMPOSTOR = '''import strategies


@strategies.strategy(name="greedy", description="Not the built-in greedy: the first candidate.")
def impostor(view):
    return 0
'''


def spec_errors(broken, impostor):
    return {
        "miss": (f"{broken}:nothing,greedy",
                 f"{broken}:nothing: {broken} has no strategy 'nothing' (its strategies: floaty, "
                 "allocates, undefined, writes)"),
        "builtin name": (f"{impostor}:impostor,random", "strategy 'greedy' takes the name of a built-in strategy"),
        "unbalanced": ("weighted[w_double=1,greedy", "unbalanced brackets in 'weighted[w_double=1,greedy'"),
        "unbalanced alone": ("greedy,weighted[w_double=1", "unbalanced brackets"),
        "empty brackets": ("weighted[],greedy", "weighted[]: empty brackets set no parameter"),
    }


@pytest.mark.parametrize("command", ["simulate", "record"])
@pytest.mark.parametrize("case", ["miss", "builtin name", "unbalanced", "unbalanced alone", "empty brackets"])
def test_a_bad_spec_is_one_line_status_2(broken, tmp_path, command, case):
    impostor = tmp_path / "impostor.py"
    impostor.write_text(IMPOSTOR)
    spec, words = spec_errors(broken, impostor)[case]
    out = tmp_path / "out" / ("o.parquet" if command == "simulate" else "o.jsonl")
    out.parent.mkdir()
    one_line(call_cli(*run_args(command, spec, out)), 2, words)
    assert list(out.parent.iterdir()) == []


# ---------------------------------------------------------------------------
# The compile time, apart
# ---------------------------------------------------------------------------
def test_the_summary_line_gives_the_compile_time_apart(tmp_path):
    """A new kernel directory: the engine for {random, greedy} is compiled before the matches, and
    the summary line says how long, apart from the run's time and rate."""
    out = tmp_path / "o.parquet"
    env = dict(os.environ, FIVE_UP_KERNEL_DIR=str(tmp_path / "kernels"))
    run = run_cli("simulate", "--players", "2", "--strategies", "random,greedy", "--matches", "300",
                  "--seed", "1", "--out", out, env=env)
    assert run.returncode == 0, run.stderr
    assert "compiling the engine for" in run.stderr
    first = run.stdout.splitlines()[0]
    found = re.fullmatch(r"300 matches, 2 players \(random,greedy\), seed 1: (\d+\.\d+) s \(compile (\d+\.\d) s "
                         r"before\), ([\d,]+) matches/s -> (.+)", first)
    assert found, first
    elapsed, compiled = float(found.group(1)), float(found.group(2))
    rate = int(found.group(3).replace(",", ""))
    assert compiled >= 1.0 and elapsed < compiled, first
    # the rate is of the matches alone, not over the compile's seconds; the printed time is
    # rounded to 0.01 s (a run of 0.045 s prints 0.04)
    assert rate >= 300 / (elapsed + 0.005) * 0.9
    assert found.group(4) == str(out)
