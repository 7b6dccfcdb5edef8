"""The engine is compiled per set of strategies it is handed (sim/engine/kernel_sets.py)."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import strategies
from core import state as K
from sim.engine import compiled, kernel_sets
from sim.engine.batch import run_kernel
from sim.engine.compiled import CompiledRun, announce_compile
from sim.engine.spec import RunSpec
from sim.study_kernels import dealt_rounds
from sim.study_kernels.openings import opening_counterfactual
from tests.support.paths import REPO


ENGINE_FILES = sorted(str(path.relative_to(REPO)) for folder in ("core", "sim/engine")
                      for path in (REPO / folder).glob("*.py"))

STRATEGY_INTERFACE = {"strategies.catalogue", "strategies.definition", "strategies.identity",
                      "strategies.python_view", "strategies.sealed_seat"}
"""What the engine may know of strategies: how they are named, defined and identified, the Python
view, and the protocol of a sealed Python seat's process."""


def compiled_run(players, strategies_spec, matches=1, seed=0, **options) -> CompiledRun:
    """A run compiled with its own set of strategies (round limit 10 unless given)."""
    options.setdefault("max_rounds", 10)
    return CompiledRun(RunSpec.build(players, strategies_spec, matches, seed, **options), own_set=True)


@pytest.mark.parametrize("relative", ENGINE_FILES)
def test_engine_modules_import_no_strategy(relative):
    """The engine receives strategies; its modules import none (not even lazily)."""
    tree = ast.parse((REPO / relative).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
            imported |= {f"{node.module}.{alias.name}" for alias in node.names
                         if node.module == "strategies"}
    offending = {name for name in imported if name.split(".")[0] == "strategies"} - STRATEGY_INTERFACE
    assert not offending, f"{relative} imports {sorted(offending)}"


def test_engine_files_are_listed():
    assert "sim/engine/play.py" in ENGINE_FILES and "core/rules.py" in ENGINE_FILES


def test_set_order_is_canonical_and_drops_repeats():
    assert kernel_sets.set_order(["b", "a", "b", "c"]) == [1, 0, 3]
    assert kernel_sets.set_order(["c", "b", "a"]) == [2, 1, 0]


def test_every_seating_of_a_set_uses_one_engine(compiled_engine):
    first = compiled_run(2, "exact,greedy")
    second = compiled_run(2, "greedy,exact")
    assert first.engine is second.engine
    assert list(first.strategy_ids) == list(second.strategy_ids[::-1])


def test_generated_module_names_its_slots_and_keys(compiled_engine):
    engine = compiled_run(2, "heavy,greedy").engine
    text = Path(engine.module.__file__).read_text()
    for slot, key in enumerate(engine.code_keys):
        assert f"strategy_{slot}(view)" in text
        assert key in text
    assert sorted(engine.names) == ["greedy", "heavy"]


PY_RANDOM = strategies.strategy(strategies.resolve("random").function, name="pyrandom", compiled=False)
"""``random``'s own function as a Python seat: it draws from the seat's stream like the compiled one."""


@pytest.mark.parametrize("seats", ["heavy,random,exact", [PY_RANDOM, "heavy", "random"]],
                         ids=["compiled", "python-seat"])
def test_a_larger_engine_gives_the_same_matches(compiled_engine, seats):
    """The kernel of every built-in plays a run exactly as the run's own three-strategy kernel,
    also with a Python seat (its answers are found by ``resume_matches``, of either set)."""
    results = []
    for field in (strategies.builtin_names(), ["exact"]):
        run = compiled_run(3, seats, 300, 11, max_rounds=200, field=field)
        stats = np.zeros((300, K.MATCH_FIELDS), dtype=np.int32)
        scores = np.zeros((300, K.MAX_ENTITIES), dtype=np.int32)
        run_kernel(run, 0, stats, scores, 1)
        results.append((len(run.engine.code_keys), stats, scores, run.answers))
    (wide, stats_a, scores_a, answers_a), (narrow, stats_b, scores_b, answers_b) = results
    # one slot per distinct code: a named variant (weighted_tuned) shares its base's slot
    slots = {info.code_key for info in strategies.builtins().values()}
    assert wide == len(slots) < len(strategies.builtin_names()) and narrow == 3
    assert np.array_equal(stats_a, stats_b) and np.array_equal(scores_a, scores_b)
    if isinstance(seats, list):  # the Python seat chose, and chose alike, in both
        (offsets_a, rows_a, _), = answers_a.values()
        (offsets_b, rows_b, _), = answers_b.values()
        assert len(rows_a) > 300 and np.array_equal(offsets_a, offsets_b) and np.array_equal(rows_a, rows_b)


def test_a_larger_engine_gives_the_same_study(compiled_engine, monkeypatch):
    """A study's kernel of the set of every built-in plays it exactly as the study's own
    two-strategy kernel (the seats' slots differ between the two sets)."""
    used = []

    def recording(engine, *needed):  # handed the engine each run uses
        used.append(len(engine.code_keys))
        announce_compile(engine, *needed)

    monkeypatch.setattr(compiled, "announce_compile", recording)
    study = {"players": 3, "strategy": "random", "baseline": "greedy", "hands": 6, "playouts": 4, "seed": 5}
    wide = opening_counterfactual(**study, field=strategies.builtin_names())
    with monkeypatch.context() as own_set_only:
        own_set_only.setattr(compiled, "cached_superset", lambda *args, **kwargs: None)
        narrow = opening_counterfactual(**study)
    assert used == [len({info.code_key for info in strategies.builtins().values()}), 2]
    for name in ("baseline_tile", "diff", "leader_won", "ends", "win_prob"):  # win_prob: NaN at 3 players
        np.testing.assert_array_equal(getattr(wide, name), getattr(narrow, name), err_msg=name)


def test_a_run_without_its_own_kernel_finds_a_cached_one_that_holds_it(compiled_engine):
    """conftest compiled every built-in together: a cached engine holds any built-in set."""
    run = compiled_run(2, "heavy,defensive")
    wanted = [s.code_key for s in run.spec.kernel_strategies]
    found = kernel_sets.cached_superset(wanted, run.known_strategies())
    assert found is not None and found.is_cached()
    assert set(wanted) <= set(found.code_keys)


def test_a_larger_engine_serves_a_run_only_with_the_kernels_it_calls_cached(compiled_engine, tmp_path,
                                                                            monkeypatch):
    """A Python-seat run calls ``resume_match`` too, a study its template's kernels: a larger set
    serves it only with those in the disk cache (none, for a template never compiled), and the
    probe writes no module."""
    python_run = CompiledRun(RunSpec.build(2, [PY_RANDOM, "heavy"], 1, 0))
    assert python_run.kernel_names == kernel_sets.ENTRY_KERNELS
    assert compiled_run(2, "heavy,greedy").kernel_names == kernel_sets.BATCH_KERNEL
    wanted = [s.code_key for s in python_run.spec.kernel_strategies]
    found = kernel_sets.cached_superset(wanted, python_run.known_strategies(), kernel_sets.ENTRY_KERNELS)
    assert found is None or found.is_cached(kernel_sets.ENTRY_KERNELS)
    # a template whose kernels no set ever compiled
    (tmp_path / "exact61_never_compiled.py").write_text(
        "from numba import njit\n"
        "STRATEGY_DEPENDENT = ('one_round',)\n"
        "@njit(cache=True)\n"
        "def one_round(players):\n"
        "    return players\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "exact61_never_compiled", raising=False)
    template = importlib.import_module("exact61_never_compiled")
    known = python_run.known_strategies()
    assert kernel_sets.cached_superset(wanted, known, ("one_round",), template) is None
    assert not any("exact61_never_compiled" in path.read_text()
                   for path in kernel_sets.kernel_dir().glob("kernels_*.py"))
    with pytest.raises(ValueError, match="not a kernel the engine compiles per set: 'one_round'"):
        compiled_run(2, "heavy,greedy").engine.is_cached(("one_round",))  # the template's, not the engine's


def test_changed_strategy_code_gets_a_new_engine(tmp_path):
    """The kernel key covers the strategy's code: editing it never reuses a stale kernel."""
    module = tmp_path / "mine.py"
    body = ("import strategies\n"
            "@strategies.strategy(name='mine')\n"
            "def mine(view):\n"
            "    return {row}\n")
    script = ("import sys; sys.path.insert(0, {path!r}); import strategies;"
              "s = strategies.resolve('mine:mine'); print(s.code_key)")
    keys = []
    for row in (0, "view.n_candidates - 1"):
        module.write_text(body.format(row=row))
        result = subprocess.run([sys.executable, "-c", script.format(path=str(tmp_path))],
                                capture_output=True, text=True, check=True, cwd=REPO)
        keys.append(result.stdout.strip())
    assert keys[0] != keys[1]
    assert all(len(key) == 64 for key in keys)


@pytest.mark.slow  # two processes, the first compiling a kernel set from nothing (~25 s)
def test_compile_is_announced_once_on_stderr(tmp_path):
    """A set not in the disk cache says so on stderr, a second process loads it and plays.

    The strategy calls a helper of its own module: the cached kernels then refer to that module
    by name, which must be the same in the second process (it once held a per-process hash).
    """
    module = tmp_path / "announced.py"
    module.write_text("import numpy as np\n"
                      "import strategies\n"
                      "from strategies import toolkit as tk\n"
                      "@tk.allocating\n"
                      "def last_row(view):\n"
                      "    return tk.best_row(view, np.arange(view.n_candidates, dtype=np.float64))\n"
                      "@strategies.strategy(name='announced')\n"
                      "def announced(view):\n"
                      "    return last_row(view)\n")
    code = ("import sim; f = sim.simulate(2, [r'%s:announced'] * 2, 3, seed=0); "
            "print(len(f))" % module)
    # A kernel directory of its own (the set is compiled there first); Numba's cache stays the
    # session's, so the engine's and strategies' shared helpers are not compiled again.
    env = dict(os.environ, FIVE_UP_KERNEL_DIR=str(tmp_path / "kernels"))
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    assert first.returncode == 0, first.stderr
    assert "compiling the engine for announced (first run only)" in first.stderr
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    assert second.returncode == 0, second.stderr
    assert "compiling" not in second.stderr
    assert second.stdout.strip() == "3"
    # The same code from another path is another module: its own engine, not the cached one
    # (whose kernels would import the first module by name and fail).
    copy = tmp_path / "elsewhere" / "announced.py"
    copy.parent.mkdir()
    copy.write_text(module.read_text())
    third = subprocess.run([sys.executable, "-c", code.replace(str(module), str(copy))],
                           capture_output=True, text=True, env=env, cwd=REPO)
    assert third.returncode == 0, third.stderr
    assert "compiling the engine for announced" in third.stderr
    assert third.stdout.strip() == "3"


def test_a_set_is_announced_once_per_process_even_when_simulate_batch_stays_uncompiled(capsys):
    """A run that never calls the kernels the cache probes look at (one stopped before its first
    call) leaves them uncompiled: a second run of the same set in the process must not announce
    again."""
    never_compiled = types.SimpleNamespace(simulate_batch=types.SimpleNamespace(signatures=[]))
    engine = kernel_sets.EngineSet("study-only-set", ("greedy",), ("key",), (False,), never_compiled)
    other = kernel_sets.EngineSet("another-set", ("random",), ("key2",), (False,), never_compiled)
    announce_compile(engine)
    announce_compile(engine)
    announce_compile(other)
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["compiling the engine for greedy (first run only) ...",
                     "compiling the engine for random (first run only) ..."]
