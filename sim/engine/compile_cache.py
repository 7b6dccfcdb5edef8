"""Freshness of Numba's disk cache for kernels whose machine code spans several files.

Numba checks only the source file of a cached function itself, but a kernel's
machine code includes the functions it calls from other files: a rule
primitive changed in :mod:`sim.core.rules` would leave a stale cached kernel
in a module that inlines it. A digest of every file such a kernel depends on
is kept beside its cache; when it differs, the cache is flushed so the next
call recompiles. The engine sets (:mod:`sim.engine.kernel_sets`) need none of
this (their digest covers the engine's sources); the checks run on the first
call of the kernels that do: the strategies' separately compiled helpers
(:func:`refresh_strategy_caches`) and the studies' kernels
(:func:`ensure_fresh`).
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from pathlib import Path

import numba

from sim.files import atomic_write
from strategies.definition import code_closure

ENGINE_MODULES = ("sim.tiles", "sim.core.jit", "sim.core.bits", "sim.core.state", "sim.core.rules",
                  "sim.core.rng", "sim.engine.play")
"""Modules whose compiled code is linked into every engine kernel."""


def refresh_compiled_cache(modules, anchor, stamp_name: str, extra_files=()) -> None:
    """Flush the on-disk cache of ``modules``' kernels when any source they depend on changed.

    Numba checks only the source file of the cached function itself, but a
    kernel's machine code includes functions from other files. A digest of
    the engine's files, ``modules``' and ``extra_files`` is kept next to
    ``anchor``'s cache; when it differs, the cache index of every dispatcher
    defined in ``modules`` is emptied so the next call recompiles.
    """
    files = {Path(importlib.import_module(name).__file__).resolve() for name in ENGINE_MODULES}
    files |= {Path(m.__file__).resolve() for m in modules} | {Path(f).resolve() for f in extra_files}
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    stamp = digest.hexdigest()
    cache_path = getattr(getattr(anchor, "_cache", None), "cache_path", None)
    if not cache_path:  # caching disabled, or no cache location for this function
        return
    cache_dir = Path(cache_path)
    stamp_path = cache_dir / stamp_name
    try:
        if stamp_path.read_text().strip() == stamp:
            return
    except OSError:
        pass
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, numba.core.dispatcher.Dispatcher) and value.__module__ == module.__name__:
                cache = getattr(value, "_cache", None)
                if cache is not None and hasattr(cache, "flush"):
                    try:
                        cache.flush()
                    except OSError:
                        pass
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(stamp_path, lambda p: p.write_text(stamp + "\n"))
    except OSError:
        pass


_REFRESHED: set[str] = set()


def refresh_strategy_caches(strategies) -> None:
    """Flush stale disk caches of the compiled helpers a run's strategies call.

    A strategy's helpers compiled on their own (e.g. ``rollout``'s playouts,
    cached beside their module) are linked into the engine kernel; when a file
    they depend on changes, Numba would still load them from the cache. Each
    module met in a strategy's code closure gets a stamp of the files that
    closure reaches.
    """
    todo = [s for s in strategies if s.code_key not in _REFRESHED]
    if not todo:
        return  # once per strategy and process: the sources do not change under a running process
    _REFRESHED.update(s.code_key for s in todo)
    strategies = todo
    modules = {}
    by_file = {Path(m.__file__).resolve(): m for m in list(sys.modules.values())
               if isinstance(getattr(m, "__file__", None), str)}
    for strategy in strategies:
        files, _ = code_closure(strategy.function)
        for path in files:
            module = by_file.get(path.resolve())
            if module is not None and module.__name__ not in ENGINE_MODULES:
                modules[module.__name__] = module
    for module in modules.values():
        dispatchers = [value for value in vars(module).values()
                       if isinstance(value, numba.core.dispatcher.Dispatcher)
                       and value.__module__ == module.__name__]
        anchor = next((d for d in dispatchers if getattr(d, "_cache", None) is not None
                       and hasattr(d._cache, "cache_path")), None)
        if anchor is None:
            continue
        closure = set()
        for dispatcher in dispatchers:  # the module's own closure: one stamp whoever asks
            closure.update(code_closure(dispatcher.py_func)[0])
        refresh_compiled_cache([module], anchor, f"exact61-{module.__name__}.sha256", sorted(closure))


_FRESH: set[str] = set()


def ensure_fresh(module, anchor) -> None:
    """Flush ``module``'s kernels from the disk cache if a source they inline changed (once
    per module and process: call it before the module's first kernel call)."""
    if module.__name__ in _FRESH:
        return
    refresh_compiled_cache([module], anchor, f"exact61-{module.__name__}.sha256")
    _FRESH.add(module.__name__)
