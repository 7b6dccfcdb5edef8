"""Strategy families: installed packages register modules of strategies by entry point.

A fake distribution (a ``dist-info`` directory with an ``entry_points.txt``, and its module) is
put on ``sys.path``: the catalogue finds it through :mod:`importlib.metadata`, as it would find
an installed package.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap

import pytest

import strategies
from strategies.catalogue import FAMILY_GROUP, StrategyError, describe, families, resolve
from tests.support.paths import REPO

ABOVE = ("sim.engine", "sim.study_kernels", "sim.scale", "sim.bridges", "experiments.", "cli.")
"""Module prefixes of the layers above the strategies (pyproject.toml's import-linter layers)."""

FAMILY = "fakefamily"
"""The family name the fake distribution registers."""

MODULE = "exact61_fake_family_strategies"
"""The module it registers (unique: it stays in ``sys.modules`` for the rest of the process)."""

STRATEGY_SOURCE = textwrap.dedent("""
    import strategies


    @strategies.strategy(name="last_row", description="the last candidate, always " * 12,
                         parameters={"back": (0.0, "rows back from the last")})
    def last_row(view):
        return view.n_candidates - 1 - int(view.params[0])
""")


def install_fake_distribution(root, entries: str, module_source: str | None = STRATEGY_SOURCE) -> None:
    """Write a distribution ``fake-family 0.1`` under ``root``: its metadata, the entry points
    ``entries`` (text of ``entry_points.txt``) and the module :data:`MODULE`."""
    info = root / "fake_family-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-family\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entries)
    if module_source is not None:
        (root / f"{MODULE}.py").write_text(module_source)


@pytest.fixture
def fake_family(tmp_path, monkeypatch):
    install_fake_distribution(tmp_path, f"[{FAMILY_GROUP}]\n{FAMILY} = {MODULE}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_the_project_registers_openspiel_as_a_family():
    """The editable install's metadata holds the project's own entry (pyproject.toml)."""
    assert families()["openspiel"] == "sim.bridges.openspiel_bots"


def test_the_catalogue_names_no_module_above_it():
    """Families come from the packages' metadata: no import and no string of the catalogue
    names a module of a layer above it (an import by string, which lint-imports cannot see)."""
    tree = ast.parse((REPO / "strategies" / "catalogue.py").read_text())
    named = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    named += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    named += [node.value for node in ast.walk(tree)
              if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    above = [text for text in named if re.search(rf"\b({'|'.join(map(re.escape, ABOVE))})\b", text)]
    assert not above


def test_an_installed_family_resolves_and_takes_variants(fake_family):
    assert families()[FAMILY] == MODULE
    strategy = resolve(f"{FAMILY}:last_row")
    assert strategy.name == "last_row" and strategy.function.__module__ == MODULE
    assert resolve(f"{FAMILY}:last_row") is strategy
    variant = resolve(f"{FAMILY}:last_row[back=1]")
    assert variant.name == "last_row[back=1]" and variant.default_params().tolist() == [1.0]


def test_an_installed_family_is_listed_after_the_builtins(fake_family):
    rows = describe(with_families=True)
    specs = [row["spec"] for row in rows]
    assert specs[:len(strategies.builtin_names())] == strategies.builtin_names()
    assert f"{FAMILY}:last_row" in specs
    row = rows[specs.index(f"{FAMILY}:last_row")]
    assert row["name"] == "last_row" and not row["builtin"]
    # without families the listing is the built-ins alone
    assert [row["spec"] for row in describe()] == strategies.builtin_names()


def test_five_up_strategies_lists_an_installed_family(fake_family):
    """The command line, in a process of its own, finds the family on its path."""
    command = [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main(sys.argv[1:]))",
               "strategies"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake_family), str(REPO)])))
    assert result.returncode == 0, result.stderr
    assert f"last_row (stochastic: no, uses inference: no, lookahead: 0; spec {FAMILY}:last_row)" \
        in result.stdout


def test_a_family_that_does_not_import_is_left_out_of_the_listing(tmp_path, monkeypatch):
    install_fake_distribution(tmp_path, f"[{FAMILY_GROUP}]\nbroken = exact61_no_such_module_here\n",
                              module_source=None)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert families()["broken"] == "exact61_no_such_module_here"
    assert not any(row["spec"].startswith("broken:") for row in describe(with_families=True))
    with pytest.raises(StrategyError, match="no module named 'exact61_no_such_module_here'"):
        resolve("broken:anything")


def test_an_entry_naming_an_object_is_refused(tmp_path, monkeypatch):
    install_fake_distribution(tmp_path, f"[{FAMILY_GROUP}]\nobjects = {MODULE}:last_row\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(StrategyError, match="names a module, not an object"):
        families()


def test_families_are_read_lazily():
    """Importing the catalogue and resolving a built-in read no entry points (no work at import
    time); the first family spec reads them once."""
    code = textwrap.dedent(f"""
        import importlib.metadata as metadata
        calls = []
        real = metadata.entry_points
        def counted(**selection):
            calls.append(selection.get("group"))
            return real(**selection)
        metadata.entry_points = counted
        import strategies
        strategies.resolve("greedy")
        before = calls.count({FAMILY_GROUP!r})
        strategies.resolve("openspiel:ismcts")
        strategies.resolve("openspiel:ismcts[sims=3]")
        print(before, calls.count({FAMILY_GROUP!r}))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "1"]
