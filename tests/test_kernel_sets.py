"""The engine is compiled per set of strategies it is handed (sim/kernel_sets.py)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import strategies
from sim import kernel_sets

ROOT = Path(__file__).resolve().parents[1]

ENGINE_FILES = ("sim/_kernels.py", "sim/_play.py", "sim/_study_kernels.py", "sim/kernel_sets.py",
                "sim/rng.py", "sim/_jit.py", "sim/python_seats.py")


@pytest.mark.parametrize("relative", ENGINE_FILES)
def test_engine_modules_import_no_strategy(relative):
    """The engine receives strategies; its modules import none (not even lazily)."""
    tree = ast.parse((ROOT / relative).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    allowed = {"strategies.python_view"}  # the view a Python seat receives, not a strategy
    offending = {name for name in imported if name.split(".")[0] == "strategies"} - allowed
    assert not offending, f"{relative} imports {sorted(offending)}"


def test_set_order_is_canonical_and_drops_repeats():
    assert kernel_sets.set_order(["b", "a", "b", "c"]) == [1, 0, 3]
    assert kernel_sets.set_order(["c", "b", "a"]) == [2, 1, 0]


def test_every_seating_of_a_set_uses_one_engine(compiled_engine):
    from sim.engine import _Setup

    first = _Setup(2, "exact,greedy", 1, 0, 10, 0, None, own_set=True)
    second = _Setup(2, "greedy,exact", 1, 0, 10, 0, None, own_set=True)
    assert first.engine is second.engine
    assert list(first.strategy_ids) == list(second.strategy_ids[::-1])


def test_generated_module_names_its_slots_and_keys(compiled_engine):
    from sim.engine import _Setup

    setup = _Setup(2, "heavy,greedy", 1, 0, 10, 0, None, own_set=True)
    engine = setup.engine
    text = Path(engine.module.__file__).read_text()
    for slot, key in enumerate(engine.code_keys):
        assert f"strategy_{slot}(view)" in text
        assert key in text
    assert sorted(engine.names) == ["greedy", "heavy"]


def test_a_larger_engine_gives_the_same_matches(compiled_engine):
    """The kernel of every built-in plays a run exactly as the run's own three-strategy kernel."""
    from sim import _kernels as K
    from sim.engine import _Setup, _run_kernel

    results = []
    for field in (strategies.builtin_names(), None):
        setup = _Setup(3, "heavy,random,exact", 300, 11, 200, 0, None, field=field, own_set=True)
        stats = np.zeros((300, K.MATCH_FIELDS), dtype=np.int32)
        scores = np.zeros((300, K.MAX_ENTITIES), dtype=np.int32)
        _run_kernel(setup, 0, stats, scores, 1)
        results.append((len(setup.engine.code_keys), stats, scores))
    (wide, stats_a, scores_a), (narrow, stats_b, scores_b) = results
    assert wide == len(strategies.builtin_names()) and narrow == 3
    assert np.array_equal(stats_a, stats_b) and np.array_equal(scores_a, scores_b)


def test_a_run_without_its_own_kernel_finds_a_cached_one_that_holds_it(compiled_engine):
    """conftest compiled every built-in together: a cached engine holds any built-in set."""
    from sim.engine import _Setup

    setup = _Setup(2, "heavy,defensive", 1, 0, 10, 0, None, own_set=True)
    wanted = [s.code_key for s in setup.set_strategies]
    found = kernel_sets.cached_superset(wanted, setup.known_strategies())
    assert found is not None and found.is_cached()
    assert set(wanted) <= set(found.code_keys)


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
                                capture_output=True, text=True, check=True, cwd=ROOT)
        keys.append(result.stdout.strip())
    assert keys[0] != keys[1]
    assert all(len(key) == 64 for key in keys)


def test_compile_is_announced_once_on_stderr(tmp_path):
    """A set not in the disk cache says so on stderr, a second process does not."""
    module = tmp_path / "announced.py"
    module.write_text("import strategies\n"
                      "@strategies.strategy(name='announced')\n"
                      "def announced(view):\n"
                      "    return view.n_candidates - 1\n")
    code = ("import sim; f = sim.simulate(2, [r'%s:announced'] * 2, 3, seed=0); "
            "print(len(f))" % module)
    env = dict(os.environ, FIVE_UP_KERNEL_DIR=str(tmp_path / "kernels"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    assert "compiling the engine for announced (first run only)" in first.stderr
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert second.returncode == 0, second.stderr
    assert "compiling" not in second.stderr
    assert second.stdout.strip() == "3"
