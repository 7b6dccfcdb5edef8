"""Freshness of Numba's disk cache for kernels whose machine code spans several files.

Numba checks only the source file of a cached function itself, but a kernel's
machine code includes the functions it calls from other files: a rule
primitive changed in :mod:`core.rules` would leave a stale cached kernel
in a module that inlines it. A digest of every file such a kernel depends on
(the module and every project module it imports:
:func:`sim.engine.compiled_sources.compiled_modules`, the derivation that also
lists the engine's sources) is kept beside its cache; when it differs, the
cache is flushed so the next call recompiles. The engine sets
(:mod:`sim.engine.kernel_sets`) need none of this (their digest covers the
engine's sources, and a template's kernels the template's); the checks run on the first
call of the kernels that do: the strategies' separately compiled helpers
(:func:`refresh_strategy_caches`, stamped with their identity digest: code,
globals' values and callees), the step functions the sets' kernels call apart
(:func:`refresh_linked_caches`, stamped the same way) and the studies' kernels
(:func:`ensure_fresh`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numba

from sim.engine.compiled_sources import compiled_modules, sources_digest
from sim.files import atomic_write
from strategies.identity import dispatcher_digests


def refresh_compiled_cache(modules, anchor, stamp_name: str, extra_files=()) -> None:
    """Flush the on-disk cache of ``modules``' kernels when any source they depend on changed.

    Numba checks only the source file of the cached function itself, but a
    kernel's machine code includes functions from other files. A digest of
    ``modules``, of every project module they import
    (:func:`sim.engine.compiled_sources.compiled_modules`) and of
    ``extra_files`` is kept next to ``anchor``'s cache; when it differs, the
    cache index of every dispatcher defined in ``modules`` is emptied so the
    next call recompiles.
    """
    digest = hashlib.sha256(sources_digest(compiled_modules(modules)).encode())
    for path in sorted(Path(f).resolve() for f in extra_files):
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


_STAMPED: dict[int, tuple[object, str]] = {}  # id(dispatcher) -> (dispatcher, digest stamped)


def identity_stamp_path(dispatcher) -> Path | None:
    """Where the identity stamp of a cached dispatcher lives (beside its cache files), or None
    when it has no disk cache."""
    cache_path = getattr(getattr(dispatcher, "_cache", None), "cache_path", None)
    if not cache_path:
        return None
    code = dispatcher.py_func.__code__
    name = f"{Path(code.co_filename).stem}.{dispatcher.py_func.__qualname__}-{code.co_firstlineno}"
    return Path(cache_path) / f"{name}.exact61-identity"


def refresh_strategy_caches(strategies) -> None:
    """Flush the stale disk caches of the separately compiled helpers a run's strategies call.

    Numba keys a cached function on its own bytecode and closure only: not on
    the values of the globals it reads, nor on the functions it calls. A
    helper compiled apart (``rollout``'s search, a user's ``toolkit.allocating``
    function reading a constant computed from the environment) would load
    from its cache with the old values frozen in. :func:`refresh_dispatcher_caches`
    stamps each one met in a strategy's identity walk.
    """
    refresh_dispatcher_caches([strategy.function for strategy in strategies])


def refresh_dispatcher_caches(functions) -> None:
    """Flush the stale disk caches of the separately compiled dispatchers ``functions`` reach.

    Each dispatcher met in the identity walk of ``functions``
    (:class:`strategies.identity.Reach`: those not inlined at Numba-IR level)
    gets a stamp beside its cache: the digest of everything that decides its
    code (:func:`strategies.identity.function_digest`: its code, its globals'
    values, its callees'); a different stamp flushes that dispatcher's cache,
    so it compiles afresh at its next use. Each dispatcher is checked once per
    process (again if its digest changed). One walk reads all of ``functions``
    (:func:`strategies.identity.dispatcher_digests`).
    """
    for dispatcher, digest in dispatcher_digests(functions):
        stamp_path = identity_stamp_path(dispatcher)
        if stamp_path is None:
            continue
        known = _STAMPED.get(id(dispatcher))
        if known is not None and known[0] is dispatcher and known[1] == digest:
            continue  # checked in this process already
        _STAMPED[id(dispatcher)] = (dispatcher, digest)
        try:
            if stamp_path.read_text().strip() == digest:
                continue
        except OSError:
            pass
        try:
            dispatcher._cache.flush()  # noqa: SLF001 - Numba's cache object has no public flush
            stamp_path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(stamp_path, lambda p, text=digest: p.write_text(text + "\n"))
        except OSError:
            pass


_LINKED_FRESH: set[str] = set()


def refresh_linked_caches(template) -> None:
    """Flush the stale disk caches of the kernels a template's per-set kernels call apart (once per
    template and process: call it before a set compiles them).

    A set's copy of a template kernel is compiled with the set and keyed by the
    sources' digest, but the step functions it calls are compiled once, on their
    own, and cached by Numba beside their files (:mod:`core.linked_steps`,
    ``linked_kernel``): a rule changed in a file they inline would otherwise be
    linked into the next set from a stale cache.
    """
    if template.__name__ in _LINKED_FRESH:
        return
    refresh_dispatcher_caches([getattr(template, name) for name in template.STRATEGY_DEPENDENT])
    _LINKED_FRESH.add(template.__name__)


_FRESH: set[str] = set()


def ensure_fresh(module, anchor) -> None:
    """Flush ``module``'s kernels from the disk cache if a source they inline changed (once
    per module and process: call it before the module's first kernel call)."""
    if module.__name__ in _FRESH:
        return
    refresh_compiled_cache([module], anchor, f"exact61-{module.__name__}.sha256")
    _FRESH.add(module.__name__)
