"""The layout is a contract: layers run one way, no import cycles, no private names across modules.

``lint-imports`` checks the layers and the absence of cycles with the contracts
in ``pyproject.toml`` (``[tool.importlinter]``); the other checks walk the
source: no ``_private`` name of one module used by another, function-local
imports only for optional heavy dependencies, and no work at import time.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from tests.support.paths import REPO

PACKAGES = ("core", "sim", "strategies", "experiments", "cli")

OPTIONAL_HEAVY = {"distributed", "dask", "matplotlib", "open_spiel", "pyspiel", "pettingzoo",
                  "nbclient", "nbformat", "fcntl", "cma"}
"""Modules that may be imported inside a function: optional extras (the notebooks' runner is in
the test extra), ``fcntl`` (POSIX only) and ``cma`` (its import starts matplotlib.pyplot)."""


def lint_imports_command() -> str:
    """The ``lint-imports`` script beside this interpreter (or on PATH)."""
    beside = Path(sys.executable).with_name("lint-imports")
    command = str(beside) if beside.exists() else shutil.which("lint-imports")
    assert command, "import-linter is part of the test extras: pip install '.[test]'"
    return command


def lint_imports(cwd, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([lint_imports_command(), "--no-cache"], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=env)


def project_files():
    for package in PACKAGES:
        yield from sorted((REPO / package).rglob("*.py"))


def module_name(path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_layering_contracts_are_kept():
    run = lint_imports(REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "7 kept, 0 broken" in run.stdout, run.stdout


def test_the_contracts_name_every_layer():
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    assert layers[0] == "cli" and layers[1] == "experiments"
    # one folder a layer: every top-level package is a layer of its own, in this order
    assert layers == ["cli", "experiments", "sim", "strategies", "core"]
    assert {c["type"] for c in contracts} == {"layers", "forbidden", "acyclic_siblings"}


def copy_of_the_tree(directory) -> None:
    """The packages and pyproject.toml copied into ``directory`` (to break a contract there)."""
    for package in PACKAGES:
        shutil.copytree(REPO / package, directory / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", directory / "pyproject.toml")


def lint_a_broken_copy(directory, added: dict[str, str]) -> subprocess.CompletedProcess:
    """``lint-imports`` on a copy of the tree (:func:`copy_of_the_tree` in ``directory``) with
    each line of ``added`` (file path in the tree -> import line) appended to its file; asserts
    that it fails."""
    copy_of_the_tree(directory)
    for path, line in added.items():
        module = directory / path
        module.write_text(module.read_text() + f"\n{line}\n")
    run = lint_imports(directory, env={"PYTHONPATH": str(directory)})
    assert run.returncode != 0
    return run


@pytest.mark.parametrize("path,line,broken", [
    # the contracts can fail: a copy of the tree whose core imports the command line does
    ("core/rules.py", "import cli.main  # a lower layer importing the top",
     "core.rules -> cli.main"),
    # a strategy sits below the engine that drives it
    ("strategies/greedy.py", "import sim.engine.runs  # a strategy importing the engine",
     "strategies.greedy -> sim.engine.runs"),
    # inside sim the engine sits below the bridges that drive it
    ("sim/engine/runs.py", "import sim.bridges.match_codes  # upward inside sim",
     "sim.engine.runs -> sim.bridges.match_codes"),
    # the reference shares the pure-Python tile set, never the Numba core
    ("sim/reference.py", "import core.rules  # the oracle importing the engine's rules",
     "sim.reference -> core.rules"),
    # inside experiments the layers run one way too: reporting imports no study
    ("experiments/reporting/figures.py", "import experiments.studies.overshoot  # upward",
     "experiments.reporting.figures -> experiments.studies.overshoot"),
], ids=["core-imports-cli", "a-strategy-imports-the-engine", "engine-imports-a-bridge",
        "reference-imports-the-numba-core", "reporting-imports-a-study"])
def test_importing_an_upper_layer_breaks_the_contract(tmp_path, path, line, broken):
    run = lint_a_broken_copy(tmp_path, {path: line})
    assert broken in run.stdout, run.stdout


def test_a_cycle_breaks_the_contract(tmp_path):
    run = lint_a_broken_copy(tmp_path, {
        "experiments/stats.py": "import experiments.reporting.reports  # reports imports stats",
        "experiments/reporting/reports.py": "import experiments.stats"})
    assert "No import cycles between the modules of any package BROKEN" in " ".join(run.stdout.split())


def _imported_modules(tree, own: str) -> dict[str, str]:
    """Local name -> project module, for the modules a file imports as a whole."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    names[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in PACKAGES:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                if (REPO / candidate.replace(".", "/")).with_suffix(".py").exists() or \
                        (REPO / candidate.replace(".", "/") / "__init__.py").exists():
                    names[alias.asname or alias.name] = candidate
    return names


def private_uses(path, own: str | None = None) -> list[str]:
    """``from M import _x``, ``m._x`` and imports of ``_private`` modules, where M / m is
    another project module than ``own`` (default: the module of ``path``)."""
    tree = ast.parse(path.read_text())
    own = module_name(path) if own is None else own

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in PACKAGES and node.module != own:
            found += [f"{node.lineno}: from {node.module} import {a.name}"
                      for a in node.names if private(a.name)]
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"{node.lineno}: imports the private module {name}" for name in names
                      if name.split(".")[0] in PACKAGES and any(map(private, name.split(".")))]
    modules = _imported_modules(tree, own)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and modules.get(node.value.id, own) != own and private(node.attr):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", list(project_files()), ids=lambda p: str(p.relative_to(REPO)))
def test_no_private_name_of_another_module(path):
    assert private_uses(path) == []


def test_the_private_name_check_finds_each_kind(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from sim.engine.batch import _empty\nfrom core import state\n"
                      "import sim._old\nstate._x\nstate.MAX_PLAYERS\n")
    assert [line.split(":")[0] for line in private_uses(sample, own="sample")] == ["1", "3", "4"]


def local_imports(path) -> list[str]:
    """Imports inside functions, other than of the optional heavy dependencies."""
    tree = ast.parse(path.read_text())
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            found += [f"{node.lineno}: {name}" for name in names
                      if name.split(".")[0] not in OPTIONAL_HEAVY]
    return found


@pytest.mark.parametrize("path", list(project_files()), ids=lambda p: str(p.relative_to(REPO)))
def test_function_local_imports_only_for_optional_heavy_dependencies(path):
    assert local_imports(path) == []


def test_importing_every_module_does_no_work(tmp_path):
    """In a fresh interpreter: importing every module compiles no kernel, writes no file and
    starts no pyplot."""
    script = f"""
import importlib, json, pkgutil, sys
before = set()
modules = []
for package in {list(PACKAGES)!r}:
    root = importlib.import_module(package)
    modules.append(root)
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if not info.name.endswith("__main__"):
            modules.append(importlib.import_module(info.name))
compiled = []
for module in modules:
    for name, value in vars(module).items():
        if hasattr(value, "signatures") and getattr(value, "__module__", None) == module.__name__:
            if value.signatures:
                compiled.append(module.__name__ + "." + name)
print(json.dumps({{"modules": len(modules), "compiled": compiled,
                   "pyplot": "matplotlib.pyplot" in sys.modules}}))
"""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "FIVE_UP_KERNEL_DIR": str(tmp_path / "k"),
           "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["modules"] > 50
    assert report["compiled"] == []
    assert report["pyplot"] is False
    # Numba makes its (empty) cache folders and matplotlib its font cache when imported;
    # the project itself writes nothing: no kernel module, no cache stamp, no index.
    written = [str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
               if p.is_file() and "matplotlib" not in p.parts]
    assert written == []
    assert not (tmp_path / "k").exists()


def test_without_the_optional_bridges_only_the_bridge_modules_refuse_in_one_line(tmp_path):
    """With OpenSpiel, PettingZoo and Gymnasium missing, every module but the bridges to them
    imports, and those raise ``BridgeUnavailable`` with one line naming the extra to install."""
    script = f"""
import importlib, json, pkgutil, sys
for missing in ("pyspiel", "open_spiel", "pettingzoo", "gymnasium"):
    sys.modules[missing] = None  # makes `import missing` fail
from sim.bridges.availability import BridgeUnavailable
refused = {{}}
for package in {list(PACKAGES)!r}:
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except BridgeUnavailable as error:
            refused[info.name] = str(error)
print(json.dumps(refused))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    refused = json.loads(run.stdout)
    assert set(refused) == {"sim.bridges.openspiel_game", "sim.bridges.openspiel_bots",
                            "sim.bridges.pettingzoo_env", "sim.bridges.vector_env"}
    for module, message in refused.items():
        assert "\n" not in message
        extra = "openspiel" if "openspiel" in module else "rl"
        assert f'pip install ".[{extra}]"' in message, (module, message)


def layout_table() -> dict[str, str]:
    """README's layout table: path -> job."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Layout"):]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("`"):
            for path in re.findall(r"`([^`]+)`", cells[0]):
                rows[path] = cells[1]
    return rows


def test_readme_layout_table_matches_the_tree():
    rows = layout_table()
    for path, job in rows.items():
        assert (REPO / path).exists(), f"README's layout names {path}, which is not in the tree"
        if path.endswith("/") and path.rstrip("/") in ("core", "sim/engine", "sim/study_kernels",
                                                       "sim/scale", "cli"):
            modules = {p.name for p in (REPO / path).glob("*.py") if not p.name.startswith("__")}
            named = set(re.findall(r"`([a-z_]+\.py)`", job))
            assert modules == named, f"{path}: the table names {sorted(named)}, the tree holds {sorted(modules)}"
    folders = {f"{p.relative_to(REPO)}/" for package in PACKAGES
               for p in [REPO / package, *(REPO / package).glob("*/")]
               if (p / "__init__.py").exists() and p.name != "tournament"}
    top_modules = {str(p.relative_to(REPO)) for p in (REPO / "sim").glob("*.py")
                   if not p.name.startswith("__")}
    listed = set(rows)
    assert folders - listed - {"sim/"} == set(), "a package is missing from README's layout"
    assert top_modules - listed == set(), "a module of sim/ is missing from README's layout"


def test_the_cores_old_names_still_import_the_same_objects_with_a_warning():
    """``sim.core.*``, ``sim.tiles`` and ``sim.checks`` (the names before the rules core moved
    below the strategies) give the core's own modules and objects, each with one
    DeprecationWarning; every Numba module of the core is reachable under its old name."""
    script = """
import json, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import sim.core.state, sim.core.turns, sim.tiles, sim.checks
    from sim.core import rules
import core.checks, core.rules, core.state, core.tiles, core.turns
print(json.dumps({
    "same": [sim.core.state is core.state, sim.core.turns is core.turns, rules is core.rules,
             sim.core.state.PlayerView is core.state.PlayerView,
             sim.tiles.TILES is core.tiles.TILES, sim.checks.check_int is core.checks.check_int],
    "moved": sorted(sim.core.MOVED),
    "warnings": sorted(str(w.message).split(" moved")[0] for w in caught
                       if issubclass(w.category, DeprecationWarning))}))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["same"] == [True] * 6
    numba_modules = sorted(p.stem for p in (REPO / "core").glob("*.py")
                           if p.stem not in ("__init__", "tiles", "checks"))
    assert report["moved"] == numba_modules
    assert report["warnings"] == ["sim.checks", "sim.core", "sim.tiles"]
