"""A strategy's identity (``Strategy.code_key``): everything that decides its play, and nothing else.

The engine, its disk caches and a run's table of strategies are keyed on the
key (:mod:`strategies.identity`, :func:`strategies.definition.strategy_key`).
Before it digested everything a strategy reads, a kernel keyed on less played
one strategy for another. Each case here is one that did, checked by the
*play*: the frames of a run equal the frames of the same strategy written so
that nothing can be confused (alone in a file of its own, a constant written
literally), run in this process with a kernel directory of its own
(:func:`references`):

* two compiled strategies of one file, each run in its own process sharing a
  kernel directory (the second process once loaded the first's kernel and
  played it: ``minaward`` instead of ``maxaward``); in one run they play as
  two strategies (``maxaward`` wins most, not half);
* two closures of one factory, and their non-closure equivalents;
* a module constant computed from the environment at import, two processes
  with different values;
* a constant imported from another module, edited between two processes;
* a ``toolkit.allocating`` helper (compiled apart, cached on disk beside its
  file) reading an environment constant: the disk-cache identity stamps
  (:mod:`sim.engine.compile_cache`) flush the first process's machine code;
* a ``FILE.py:NAME`` edited and resolved again in the same process (also
  with Python's bytecode cache on, which keeps a ``.pyc`` keyed on the
  source's size and mtime in whole seconds).

And the key's limits: a compiled strategy reading a global it cannot capture
(a dict) is refused in one line naming it, a Python strategy reading one runs;
comments and blank lines do not change a key, a constant does.

The processes (:func:`two_processes`) run every cross-process case at once: two
interpreters, one after the other, sharing one empty kernel directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim
import strategies
from strategies import toolkit as tk
from tests.support.paths import REPO
from tests.support.views import COUNTER_CHECK, DOUBLES, SPY, STALE_CHECK, random_tables

MATCHES = 300
SEED = 11
BONUSES = (0.0, 40.0)
"""The environment constant of the first and the second process (raw points for a double)."""
CONSTS = (5.0, 40.0)
"""The imported constant before and after the edit between the two processes."""
CONSTS_MODULE = "five_up_identity_consts"

HEADER = "import os\n\nimport numpy as np\n\nimport strategies\nfrom strategies import toolkit as tk\n"

AWARD_PICK = '''
@strategies.strategy(name="{name}", description="The {which} immediate award; the first on ties.")
def {function}(view):
    best, best_value = 0, {start}
    for row in range(view.n_candidates):
        value = tk.award(view, row)
        if value {better} best_value:
            best, best_value = row, value
    return best
'''

AWARD_PICKS = {"maxaward": {"which": "largest", "start": "-1", "better": ">"},
               "minaward": {"which": "smallest", "start": "1 << 40", "better": "<"}}
"""The two functions of :data:`AWARD_PICK`: the largest and the smallest award."""


def award_pick(function: str, name: str) -> str:
    """Source of ``function`` (a key of :data:`AWARD_PICKS`) declared as the strategy ``name``."""
    return AWARD_PICK.format(name=name, function=function, **AWARD_PICKS[function])


BONUS_BODY = '''
@strategies.strategy(name="{name}", description="Award plus BONUS raw points for a double.")
def {function}(view):
    best, best_value = 0, -1.0
    for row in range(view.n_candidates):
        value = tk.award(view, row) + BONUS * tk.TILE_IS_DOUBLE[view.cands[row, tk.CAND_TILE]]
        if value > best_value:
            best, best_value = row, value
    return best
'''

HELPER_BODY = '''
@tk.allocating
def bonus_values(view):
    values = np.empty(view.n_candidates)
    for row in range(view.n_candidates):
        values[row] = tk.award(view, row) + BONUS * tk.TILE_IS_DOUBLE[view.cands[row, tk.CAND_TILE]]
    return tk.best_row(view, values)


@strategies.strategy(name="{name}", description="Award plus BONUS for a double, in an allocating helper.")
def helperbonus(view):
    return bonus_values(view)
'''

ENV_BONUS = 'BONUS = float(os.environ["FIVE_UP_TEST_BONUS"])\n'


def literal(value: float) -> str:
    return f"BONUS = {value!r}\n"


def write(path: Path, *parts: str) -> Path:
    path.write_text(HEADER + "\n" + "\n".join(parts))
    return path


def play_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Every column but the strategy names."""
    return frame[[c for c in frame.columns if not c.startswith("strategy_")]].reset_index(drop=True)


def assert_same_play(frame, expected):
    pd.testing.assert_frame_equal(play_columns(frame), play_columns(expected), check_exact=True)


def plays_differently(frame, other) -> bool:
    return not play_columns(frame).equals(play_columns(other))


# ---------------------------------------------------------------------------
# The files
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    """Every strategy file of this module, written once: the cases and their literal references."""
    root = tmp_path_factory.mktemp("identity")
    case = root / "cases"
    ref = root / "references"
    consts = root / "consts"
    for folder in (case, ref, consts):
        folder.mkdir()
    (consts / f"{CONSTS_MODULE}.py").write_text(f"BONUS = {CONSTS[0]!r}\n")
    paths = {
        "root": root,
        "consts": consts,
        # the cases
        "pair": write(case / "pair.py", award_pick("maxaward", "maxaward"), award_pick("minaward", "minaward")),
        "envbonus": write(case / "envbonus.py", ENV_BONUS,
                          BONUS_BODY.format(name="envbonus", function="envbonus")),
        "constbonus": write(case / "constbonus.py", f"from {CONSTS_MODULE} import BONUS\n",
                            BONUS_BODY.format(name="constbonus", function="constbonus")),
        "helperbonus": write(case / "helperbonus.py", ENV_BONUS, HELPER_BODY.format(name="helperbonus")),
        # the references: the same functions alone in a file, constants written literally
        "solo_max": write(ref / "solo_max.py", award_pick("maxaward", "solo_max")),
        "solo_min": write(ref / "solo_min.py", award_pick("minaward", "solo_min")),
    }
    for value in BONUSES:
        tag = int(value)
        paths[f"envbonus_{tag}"] = write(ref / f"envbonus_{tag}.py", literal(value),
                                         BONUS_BODY.format(name=f"envbonus_{tag}", function="envbonus"))
        paths[f"helperbonus_{tag}"] = write(ref / f"helperbonus_{tag}.py", literal(value),
                                            HELPER_BODY.format(name=f"helperbonus_{tag}"))
    for value in CONSTS:
        tag = int(value)
        paths[f"constbonus_{tag}"] = write(ref / f"constbonus_{tag}.py", literal(value),
                                           BONUS_BODY.format(name=f"constbonus_{tag}", function="constbonus"))
    return paths


def spec(files, name: str, strategy: str | None = None) -> str:
    return f"{files[name]}:{strategy or name}"


# ---------------------------------------------------------------------------
# The references: this process, a kernel directory of its own, one kernel for all of them
# ---------------------------------------------------------------------------
def make(name: str, sign: int):
    """Two strategies from one factory: the largest ``sign * award``, the first on ties."""

    @strategies.strategy(name=name, description=f"The largest {sign} * award; the first on ties.")
    def chooser(view):
        best, best_value = 0, -(1 << 40)
        for row in range(view.n_candidates):
            value = sign * tk.award(view, row)
            if value > best_value:
                best, best_value = row, value
        return best

    return chooser


PLUS = make("plus", 1)
MINUS = make("minus", -1)


@pytest.fixture(scope="module")
def references(files, tmp_path_factory):
    """Every reference against greedy: ``{"strategies": name -> Strategy, "frames": name ->
    frame, "field": all of them}``, played with one kernel compiled in a kernel directory of
    their own (empty). The reference files name their functions as the cases do (the key holds
    the function's qualified name), and their strategies after the file (``solo_max``)."""
    field = {name: strategies.resolve(spec(files, name)) for name in (
        "solo_max", "solo_min", "envbonus_0", "envbonus_40", "constbonus_5", "constbonus_40",
        "helperbonus_0", "helperbonus_40")}
    field["plus"], field["minus"] = PLUS, MINUS
    kernels = tmp_path_factory.mktemp("reference-kernels")
    previous = os.environ.get("FIVE_UP_KERNEL_DIR")
    os.environ["FIVE_UP_KERNEL_DIR"] = str(kernels)
    everything = list(field.values()) + ["greedy"]
    try:
        frames = {name: sim.simulate(2, [strategy, "greedy"], MATCHES, seed=SEED, field=everything)
                  for name, strategy in field.items()}
    finally:
        if previous is None:
            os.environ.pop("FIVE_UP_KERNEL_DIR", None)
        else:
            os.environ["FIVE_UP_KERNEL_DIR"] = previous
    assert len(list(kernels.glob("engine_*.py"))) == 1, "the references compiled no kernel of their own"
    return {"strategies": field, "frames": frames, "field": everything}


# ---------------------------------------------------------------------------
# The two processes
# ---------------------------------------------------------------------------
RUNNER = '''
import json, sys, traceback
import sim, strategies
out, jobs = sys.argv[1], json.loads(sys.argv[2])
report = {}
# One kernel for the process's strategies (a field): one compile, not one per case.
field = sorted({seat for _, seats in jobs for seat in seats})
for label, seats in jobs:
    try:
        resolved = [strategies.resolve(s) for s in seats]
        frame = sim.simulate(2, seats, %(matches)d, seed=%(seed)d, field=field)
        frame.to_parquet(f"{out}/{label}.parquet")
        report[label] = {"keys": [s.code_key for s in resolved]}
    except Exception as error:
        report[label] = {"error": traceback.format_exc()}
print(json.dumps(report))
''' % {"matches": MATCHES, "seed": SEED}


@pytest.fixture(scope="module")
def two_processes(files, tmp_path_factory) -> list[dict]:
    """Run the cases in a first process, edit the imported constant, run them in a second one,
    with one kernel directory (empty at first) and one ``__pycache__`` beside the files.

    Returns per process ``label -> {"keys": [...], "frame": DataFrame}``.
    """
    shared = tmp_path_factory.mktemp("shared-kernels")
    script = files["root"] / "runner.py"
    script.write_text(RUNNER)
    environment = dict(os.environ)
    environment["FIVE_UP_KERNEL_DIR"] = str(shared)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(files["consts"])] + [p for p in [environment.get("PYTHONPATH")] if p])
    results = []
    for index, (bonus, const) in enumerate(zip(BONUSES, CONSTS)):
        (files["consts"] / f"{CONSTS_MODULE}.py").write_text(f"BONUS = {const!r}\n")
        out = files["root"] / f"process-{index}"
        out.mkdir()
        jobs = [
            ["pair", [spec(files, "pair", "minaward" if index == 0 else "maxaward"), "greedy"]],
            ["envbonus", [spec(files, "envbonus"), "greedy"]],
            ["constbonus", [spec(files, "constbonus"), "greedy"]],
            ["helperbonus", [spec(files, "helperbonus"), "greedy"]],
        ]
        done = subprocess.run([sys.executable, str(script), str(out), json.dumps(jobs)],
                              capture_output=True, text=True, cwd=REPO, timeout=900,
                              env=dict(environment, FIVE_UP_TEST_BONUS=repr(bonus)))
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout.strip().splitlines()[-1])
        for label, entry in report.items():
            assert "error" not in entry, f"process {index}, {label}: {entry['error']}"
            entry["frame"] = pd.read_parquet(out / f"{label}.parquet")
        report["stderr"] = done.stderr
        results.append(report)
    if not os.environ.get("NUMBA_CACHE_DIR"):  # else it is cached there, shared all the same
        assert any(files["root"].joinpath("cases", "__pycache__").glob("helperbonus.bonus_values-*.nbi")), \
            "the allocating helper was not cached on disk beside its file"
    return results


# ---------------------------------------------------------------------------
# Two strategies of one file
# ---------------------------------------------------------------------------
def test_two_strategies_of_one_file_in_two_processes_play_their_own_code(two_processes, references):
    first, second = two_processes
    frames = references["frames"]
    assert plays_differently(frames["solo_max"], frames["solo_min"])  # the check can tell them apart
    assert_same_play(first["pair"]["frame"], frames["solo_min"])
    assert_same_play(second["pair"]["frame"], frames["solo_max"])
    assert first["pair"]["keys"][0] != second["pair"]["keys"][0]
    # the same function alone in its own file has the same key: the key is what it does
    assert first["pair"]["keys"][0] == references["strategies"]["solo_min"].code_key
    assert second["pair"]["keys"][0] == references["strategies"]["solo_max"].code_key
    # each process compiled its own set: nothing was taken for the other's kernel
    # each process compiled its own set (the first process's kernel holds no maxaward)
    assert "compiling the engine for " in first["stderr"] and "minaward" in first["stderr"]
    assert "compiling the engine for " in second["stderr"] and "maxaward" in second["stderr"]
    assert "maxaward" not in first["stderr"] and "minaward" not in second["stderr"]


def test_two_strategies_of_one_file_in_one_run_are_two_strategies(files, references):
    """``pair.py:maxaward`` against ``pair.py:minaward``: the larger award wins most matches
    (they once shared a kernel slot: 0.9% against 49.1%, the rest unfinished)."""
    frame = sim.simulate(2, [spec(files, "pair", "maxaward"), spec(files, "pair", "minaward")],
                         MATCHES, seed=SEED, field=references["field"])
    wins = frame["winner"].value_counts()
    assert wins.get(0, 0) > 0.8 * MATCHES, wins.to_dict()
    assert wins.get(1, 0) < 0.2 * MATCHES, wins.to_dict()


# ---------------------------------------------------------------------------
# Closures
# ---------------------------------------------------------------------------
def test_closures_of_one_factory_are_two_strategies(references):
    frames = references["frames"]
    assert PLUS.function.__code__ is MINUS.function.__code__  # one code, two closures
    assert PLUS.code_key != MINUS.code_key
    assert plays_differently(frames["plus"], frames["minus"])
    # each plays as the function written without a closure
    assert_same_play(frames["plus"], frames["solo_max"])
    assert_same_play(frames["minus"], frames["solo_min"])
    one_run = sim.simulate(2, [PLUS, MINUS], MATCHES, seed=SEED, field=references["field"])
    assert one_run["winner"].value_counts().get(0, 0) > 0.8 * MATCHES
    # the same closure made again is the same strategy
    assert make("plus_again", 1).code_key == PLUS.code_key


# ---------------------------------------------------------------------------
# A constant from the environment; a constant imported from an edited module
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case,before,after", [
    # a module constant computed from the environment at import
    ("envbonus", "envbonus_0", "envbonus_40"),
    # a constant imported from another module, edited between the two processes
    ("constbonus", "constbonus_5", "constbonus_40"),
    # a helper compiled apart and cached in ``__pycache__`` beside its file, shared by the two
    # processes: the second one must not load the first one's machine code (BONUS frozen)
    ("helperbonus", "helperbonus_0", "helperbonus_40"),
])
def test_a_constant_that_changed_between_processes_is_played_new(two_processes, references, case,
                                                                 before, after):
    """Each process plays its own value, with the key of the constant written literally."""
    first, second = two_processes
    frames = references["frames"]
    assert plays_differently(frames[before], frames[after])  # the check can tell them apart
    assert first[case]["keys"][0] != second[case]["keys"][0]
    assert_same_play(first[case]["frame"], frames[before])
    assert_same_play(second[case]["frame"], frames[after])
    assert first[case]["keys"][0] == references["strategies"][before].code_key
    assert second[case]["keys"][0] == references["strategies"][after].code_key


# ---------------------------------------------------------------------------
# A file edited and resolved again in the same process
# ---------------------------------------------------------------------------
EDITED = HEADER + '''

@strategies.strategy(name="edited")
def edited(view):
    best, best_value = 0, tk.award(view, 0)
    for row in range(1, view.n_candidates):
        value = tk.award(view, row)
        if value {op} best_value:
            best, best_value = row, value
    return best
'''


def choices(strategy, tables) -> list[int]:
    return [int(strategy.choose(view)) for view in tables]


@pytest.fixture(scope="module")
def views():
    """Views of random mid-round states where the largest and smallest award differ."""
    generator = np.random.default_rng(77)
    found = []
    for _, table, _ in random_tables(generator, 200):
        view = table.view(0)
        if view.n_candidates < 2:
            continue
        awards = [int(tk.award(view, row)) for row in range(view.n_candidates)]
        if max(awards) != min(awards):
            found.append(view)
    assert len(found) > 20
    return found


@pytest.mark.parametrize("bytecode", [False, True], ids=["no-pyc", "pyc"])
@pytest.mark.parametrize("form", ["file", "module"])
def test_an_edited_strategy_resolved_again_is_the_edited_strategy(tmp_path, monkeypatch, views, form,
                                                                  bytecode):
    """``FILE.py:NAME`` and ``MODULE:NAME``, edited (the same size: ``>`` to ``<``, within the
    same second) and resolved again. With Python's bytecode cache on (the default; this test
    environment sets PYTHONDONTWRITEBYTECODE), a ``.pyc`` trusted on the source's size and mtime
    in whole seconds must not hand back the old code."""
    monkeypatch.setattr(sys, "dont_write_bytecode", not bytecode)
    module = f"five_up_edited_{form}_{int(bytecode)}_{os.getpid()}"
    path = tmp_path / f"{module}.py"
    reference = f"{path}:edited" if form == "file" else f"{module}:edited"
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        path.write_text(EDITED.format(op=">"))
        before = strategies.resolve(reference)
        assert strategies.resolve(reference) is before  # unchanged: the same strategy
        path.write_text(EDITED.format(op="<"))
        after = strategies.resolve(reference)
        assert after is not before and after.code_key != before.code_key
        largest = [max(range(v.n_candidates), key=lambda r, v=v: (int(tk.award(v, r)), -r)) for v in views]
        smallest = [min(range(v.n_candidates), key=lambda r, v=v: (int(tk.award(v, r)), r)) for v in views]
        assert largest != smallest
        assert choices(before, views) == largest
        assert choices(after, views) == smallest
        # and back: the first text is the first strategy again (same key, same play)
        path.write_text(EDITED.format(op=">"))
        again = strategies.resolve(reference)
        assert again.code_key == before.code_key and choices(again, views) == largest
    finally:
        sys.modules.pop(module, None)


# ---------------------------------------------------------------------------
# What the key cannot capture; what does not change it
# ---------------------------------------------------------------------------
DICT_GLOBAL = HEADER + '''
WEIGHTS = {"double": 3.0, "offset": 0}
GREEDY = strategies.resolve("greedy").function


@strategies.strategy(name="dictread")
def dictread(view):
    best, best_value = 0, -1.0
    for row in range(view.n_candidates):
        value = tk.award(view, row) + WEIGHTS["double"] * tk.TILE_IS_DOUBLE[view.cands[row, tk.CAND_TILE]]
        if value > best_value:
            best, best_value = row, value
    return best


@strategies.strategy(name="pydictread", compiled=False)
def pydictread(view):
    return GREEDY(view) + WEIGHTS["offset"]
'''


def test_a_compiled_strategy_reading_a_dict_is_refused_in_one_line(tmp_path):
    path = tmp_path / "dictglobal.py"
    path.write_text(DICT_GLOBAL)
    dictread = strategies.resolve(f"{path}:dictread")
    with pytest.raises(strategies.StrategyError) as caught:
        dictread.code_key  # noqa: B018 - the key is what refuses it
    message = str(caught.value)
    assert "\n" not in message
    assert "'dictread'" in message and "WEIGHTS" in message and "dict" in message
    assert "dictglobal.py:" in message
    with pytest.raises(strategies.StrategyError) as run:
        sim.simulate(2, [dictread, "greedy"], 2, seed=0)
    assert str(run.value) == message


def test_a_python_strategy_reading_a_dict_runs(tmp_path):
    path = tmp_path / "dictglobal.py"
    path.write_text(DICT_GLOBAL)
    python = strategies.resolve(f"{path}:pydictread")
    assert len(python.code_key) == 64
    frame = sim.simulate(2, [python, "greedy"], 40, seed=3)
    assert_same_play(frame, sim.simulate(2, ["greedy", "greedy"], 40, seed=3))


KEYED = HEADER + '''
BONUS = {bonus}


@strategies.strategy(name="keyed")
def keyed(view):
{body}
'''

KEYED_BODY = '''\
    best, best_value = 0, -1.0
    for row in range(view.n_candidates):
        value = tk.award(view, row) + BONUS * tk.TILE_IS_DOUBLE[view.cands[row, tk.CAND_TILE]]
        if value > best_value:
            best, best_value = row, value
    return best'''

KEYED_COMMENTED = '''\
    # the best row so far and its value

    best, best_value = 0, -1.0  # row 0 is replaced by any candidate
    for row in range(view.n_candidates):


        value = tk.award(view, row) + BONUS * tk.TILE_IS_DOUBLE[view.cands[row, tk.CAND_TILE]]
        # strictly larger: the first of equals stays
        if value > best_value:
            best, best_value = row, value
    return best  # a row of view.cands'''


def test_comments_and_blank_lines_keep_the_key_a_constant_changes_it(tmp_path):
    path = tmp_path / "keyed.py"
    keys = {}
    for label, bonus, body, prefix in (("plain", "8.0", KEYED_BODY, ""),
                                       ("commented", "8.0", KEYED_COMMENTED, "\n\n# moved down\n"),
                                       ("constant", "9.0", KEYED_BODY, "")):
        path.write_text(prefix + KEYED.format(bonus=bonus, body=body))
        keys[label] = strategies.resolve(f"{path}:keyed").code_key
    assert keys["plain"] == keys["commented"]
    assert keys["plain"] != keys["constant"]


def test_the_test_strategies_have_distinct_keys():
    keyed = [SPY, STALE_CHECK, COUNTER_CHECK, DOUBLES, strategies.resolve("greedy")]
    assert len({s.code_key for s in keyed}) == len(keyed)
