"""The source files compiled into kernels, found from the templates' imports, and their digest.

A compiled kernel holds the machine code of every project function it calls,
whatever file that function lives in. Numba keys its disk cache on the
kernel's own file only, so the engine keys its caches on the text of every
project module a template module imports, directly or through another
project module (:func:`compiled_modules`). Deriving the list from the import
statements keeps it exact as modules are added or split: there is no list
kept by hand.

:func:`engine_modules` is the one list of the engine's sources (its template,
:mod:`sim.engine.play`, and what that imports): :mod:`sim.engine.kernel_sets`
keys every engine set on it and :mod:`sim.engine.compile_cache` keeps the
studies' separately cached kernels fresh with the same derivation.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import sys
import types
from collections.abc import Iterable
from pathlib import Path

from sim.engine import play
from strategies.identity import is_project_module

ENGINE_TEMPLATES = (play,)
"""The engine's own template modules (the round, match and batch loops), in the order their
globals are adopted by a set's module (:mod:`sim.engine.kernel_sets`)."""

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
"""Statements whose imports run only when called: a kernel cannot reach what they import."""


def _module_level_imports(tree: ast.AST):
    """The import statements of a module outside functions and classes (inside ``if``/``try``
    blocks too)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif not isinstance(node, SCOPES):
            yield from _module_level_imports(node)


def _is_module(name: str) -> bool:
    """True when ``name`` is a module (imported already, or importable), not an attribute."""
    if name in sys.modules:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):  # a parent that is not a package
        return False


def imported_modules(module: types.ModuleType) -> list[str]:
    """The project modules ``module``'s module-level statements import.

    ``from package import name`` counts the submodule ``package.name`` when it
    is one and ``package`` otherwise, so importing a module from a package does
    not pull in the package's ``__init__`` (and all it imports).
    """
    tree = ast.parse(Path(module.__file__).read_text(), filename=module.__file__)
    found = []
    for node in _module_level_imports(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
            continue
        base = node.module or ""
        if node.level:
            package = module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]
            base = importlib.util.resolve_name("." * node.level + base, package)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            found.append(submodule if alias.name != "*" and _is_module(submodule) else base)
    return [name for name in dict.fromkeys(found) if is_project_module(name)]


def compiled_modules(modules: Iterable[types.ModuleType]) -> tuple[str, ...]:
    """Names of ``modules`` and of every project module they import, directly or not (sorted).

    Parameters
    ----------
    modules : iterable of module
        Modules holding kernels (templates, or separately cached kernels).

    Returns
    -------
    tuple of str
        Every module whose compiled functions those kernels can reach: a change
        in any of their files can change the kernels' machine code.
    """
    pending = [module.__name__ for module in modules]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        pending += imported_modules(importlib.import_module(name))
    return tuple(sorted(seen))


@functools.lru_cache(maxsize=1)
def engine_modules() -> tuple[str, ...]:
    """The engine's sources: its templates (:data:`ENGINE_TEMPLATES`) and every project module
    they import (computed once per process, on first use)."""
    return compiled_modules(ENGINE_TEMPLATES)


def sources_digest(names: Iterable[str]) -> str:
    """SHA-256 (hex) of the file name and text of each named module, in sorted name order."""
    digest = hashlib.sha256()
    for name in sorted(set(names)):
        path = Path(importlib.import_module(name).__file__)
        digest.update(name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
