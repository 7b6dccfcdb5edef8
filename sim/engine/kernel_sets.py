"""One compiled engine per set of strategy functions, cached on disk.

The engine's kernels (:mod:`sim.engine.play`) are templates that reach
strategies only through ``choose_placement(slot, view)``.
:func:`engine_for` turns a set of compiled strategy functions into a working
engine:

1. The set is ordered canonically (by code digest), so every seating of the
   same strategies, and every parameter value, uses the same kernel; the
   seat's slot is its strategy's index in that order.
2. A small Python module is generated for the set,
   ``<kernel dir>/engine_<digest>.py``: a ``choose_placement`` that calls
   ``strategy_<slot>(view)`` by slot, ``slot_sees_hidden`` naming the
   slots of ``sees_hidden`` audit strategies (their code keys end in
   :data:`core.state.SEES_HIDDEN_KEY`), the only views the engine fills
   with every hand and the boneyard order, and ``slot_parameters``, each
   slot's parameter count (its ``view.params`` is cut to it). ``<digest>``
   covers the engine's source files (:func:`sim.engine.compiled_sources.engine_modules`,
   and this module, which writes the dispatch), every strategy's key
   (:func:`strategies.definition.strategy_key`: everything that decides its
   play, handed in as ``code_keys``), whether its slot is bounds-checked
   (a strategy that is not built in is compiled apart, with bounds checking:
   :mod:`sim.engine.checked_strategies`), the module each strategy function
   lives in (Numba's disk cache imports it by that name when it loads the
   kernels) and the Numba version, so a changed strategy or engine, or the
   same code loaded under another module name, gets a new module and never a
   stale kernel.
3. The template kernels listed in each template's ``STRATEGY_DEPENDENT`` are
   re-created as functions of that module (same bytecode, the module's
   globals), so Numba compiles them with the set's ``choose_placement``
   inlined and caches them beside the generated file, like any module's.

Templates above the engine
--------------------------
The engine names no study. A module above it whose kernels play rounds with
the set's strategies (:mod:`sim.study_kernels.dealt_rounds`) is a template too, with
its own ``STRATEGY_DEPENDENT``; it hands itself to the engine when it needs its
kernels, ``engine.kernels(template)`` (:meth:`EngineSet.kernels`). They are
generated as a module of their own, ``<kernel dir>/kernels_<digest>.py``, the
digest covering the set's and the template's sources
(:func:`sim.engine.compiled_sources.compiled_modules`), so a changed study
never reuses a stale kernel and never invalidates the engine's own. A set
compiles a template's kernels only when they are first called (as Numba
compiles any kernel), once per set.

A run whose own set lacks the kernels it calls may use a larger set that holds
its strategies (:func:`cached_superset`), but only one whose very kernels (the
batch kernel, ``resume_match`` for Python seats, a template's) are in the disk
cache: a larger set's compile is no shorter than the run's own.

The first compile of a set takes 10-15 s for two light strategies (more with
heavier ones): the steps its loops call are compiled once for every set
(:mod:`core.linked_steps`, their caches kept fresh by
:func:`sim.engine.compile_cache.refresh_linked_caches`), the set compiles its
loops and its strategies. Afterwards a new process loads it from the cache in
about a second. The
generated files are small and may be deleted at any time (``FIVE_UP_KERNEL_DIR``
chooses where they live; default ``~/.cache/exact61-five-up/kernels``).

This module never imports a strategy: it receives the compiled functions.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import os
import re
import sys
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numba

from core.state import READS_HISTORY_KEY, SEES_HIDDEN_KEY
from sim.engine.compile_cache import refresh_linked_caches
from sim.engine.compiled_sources import ENGINE_TEMPLATES, compiled_modules, engine_modules, sources_digest
from sim.files import atomic_write

ENTRY_KERNELS = ("simulate_batch", "resume_match", "resume_matches")
"""The engine's kernels of a set that Python calls (:meth:`EngineSet.__getattr__`); the kernels
of templates above the engine are reached through :meth:`EngineSet.kernels`."""

BATCH_KERNEL = ("simulate_batch",)
"""The kernels a run of compiled strategies calls: the cache probes' default
(:meth:`EngineSet.is_cached`)."""

DIGEST_CHARACTERS = 24
"""Hexadecimal characters of a generated module's digest kept in its file and module name."""

GENERATED = ("choose_placement", "slot_sees_hidden", "slot_parameters", "slot_reads_history")
"""Template placeholders that the generated module defines itself (the dispatch)."""

KERNEL_DIR_ENV = "FIVE_UP_KERNEL_DIR"
"""Environment variable naming the directory of the generated engine modules."""


def kernel_dir() -> Path:
    """Directory of the generated engine modules (created on demand)."""
    configured = os.environ.get(KERNEL_DIR_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "exact61-five-up" / "kernels"


@dataclass(frozen=True)
class EngineSet:
    """The compiled engine of one set of strategies.

    Attributes
    ----------
    digest : str
        Key of the set (see the module docstring).
    names : tuple of str
        A name per slot, for messages.
    code_keys : tuple of str
        The key of each slot's strategy (slot = index).
    checked : tuple of bool
        Whether each slot's strategy is compiled apart with bounds checking.
    module : module
        The generated module: ``simulate_batch``, ``resume_match`` and the
        rest of the engine's kernels, compiled for this set.
    """

    digest: str
    names: tuple
    code_keys: tuple
    checked: tuple
    module: types.ModuleType

    def __getattr__(self, name: str):
        """The set's compiled engine kernels by name (:data:`ENTRY_KERNELS`)."""
        if name.startswith("_") or name not in ENTRY_KERNELS:
            raise AttributeError(f"an engine set has no kernel {name!r}")
        return getattr(self.module, name)

    def kernels(self, template: types.ModuleType) -> types.ModuleType:
        """The kernels of a template module above the engine, compiled for this set.

        Parameters
        ----------
        template : module
            A module whose ``STRATEGY_DEPENDENT`` names kernels written like the
            engine's (they play rounds through :func:`sim.engine.play.play_dealt_round`
            and the like, imported under their own names).

        Returns
        -------
        module
            A generated module holding the template's globals, this set's
            engine kernels and dispatch, and a copy of each of the template's
            ``STRATEGY_DEPENDENT`` kernels for this set (built once per process;
            Numba compiles, or loads from the disk cache, at a kernel's first call).

        Raises
        ------
        TypeError
            The template has no ``STRATEGY_DEPENDENT``, or reaches an engine
            kernel other than by its own name (it would run the template, not
            this set's copy).
        """
        return template_kernels(self, template)

    def is_compiled(self, kernels: Sequence[str] = BATCH_KERNEL,
                    template: types.ModuleType | None = None) -> bool:
        """True once each of ``kernels`` holds machine code in this process (compiled or loaded
        from the cache).

        Parameters
        ----------
        kernels : sequence of str
            Names of the set's engine kernels (default its batch kernel), or, with
            ``template``, of that template's ``STRATEGY_DEPENDENT`` kernels.
        template : module, optional
            A template above the engine (:meth:`kernels`).
        """
        dispatchers = _set_dispatchers(self, kernels, template)
        return dispatchers is not None and all(dispatcher.signatures for dispatcher in dispatchers)

    def is_cached(self, kernels: Sequence[str] = BATCH_KERNEL,
                  template: types.ModuleType | None = None) -> bool:
        """True when the disk cache holds each of ``kernels`` of this set (a warm start: no compile).

        Parameters as :meth:`is_compiled`. A template's kernels whose generated module was never
        written are not cached (the probe writes nothing).
        """
        dispatchers = _set_dispatchers(self, kernels, template)
        return dispatchers is not None and all(_in_disk_cache(dispatcher) for dispatcher in dispatchers)


def _in_disk_cache(dispatcher) -> bool:
    """True when Numba's disk cache holds machine code of ``dispatcher`` for its current source."""
    cache = getattr(dispatcher, "_cache", None)
    if cache is None:
        return False
    try:
        index = cache._cache_file._load_index()  # noqa: SLF001 - Numba exposes no public probe
    except Exception:  # an unreadable index is a miss
        return False
    return bool(index)


def _set_dispatchers(engine: EngineSet, kernels: Sequence[str], template: types.ModuleType | None):
    """The dispatchers of ``kernels`` in ``engine``'s module, or in its module of ``template``'s
    kernels; None when that module was never generated (so nothing of it is compiled or cached).

    Raises
    ------
    ValueError
        A name is not one of the set's copied kernels (the engine's, or ``template``'s).
    """
    templates = ENGINE_TEMPLATES if template is None else (template,)
    copied = {name for t in templates for name in t.STRATEGY_DEPENDENT} - set(GENERATED)
    unknown = [name for name in kernels if name not in copied]
    if unknown:
        owner = "the engine" if template is None else template.__name__
        raise ValueError(f"not a kernel {owner} compiles per set: {', '.join(map(repr, unknown))}")
    module = engine.module if template is None else _template_module(engine, template, create=False)
    return None if module is None else [getattr(module, name) for name in kernels]


_ENGINES: dict[str, EngineSet] = {}
_TEMPLATE_KERNELS: dict[str, types.ModuleType] = {}
_BUILDING = threading.Lock()  # worker threads of one process may ask for the same set at once


@functools.lru_cache(maxsize=1)
def _engine_sources_digest() -> str:
    """Digest of the engine's sources, of this module (it writes the dispatch) and of Numba's version."""
    digest = hashlib.sha256(sources_digest(engine_modules() + (__name__,)).encode())
    digest.update(numba.__version__.encode())
    return digest.hexdigest()


def set_order(code_keys: Sequence[str]) -> list[int]:
    """Indices of the distinct ``code_keys`` in canonical (sorted) order: slot ``k`` runs
    the strategy ``code_keys[set_order(...)[k]]``."""
    first_index = {}
    for index, key in enumerate(code_keys):
        first_index.setdefault(key, index)
    return [first_index[key] for key in sorted(first_index)]


def function_module(function) -> str:
    """The module a compiled strategy function lives in. Numba's disk cache imports it by this
    name when a later process loads the engine, so the name is part of an engine's identity."""
    return getattr(getattr(function, "py_func", function), "__module__", "") or ""


def _dispatch_source(names: Sequence[str], code_keys: Sequence[str], modules: Sequence[str],
                     checked: Sequence[bool], parameters: Sequence[int], digest: str) -> str:
    lines = [
        '"""Strategy dispatch of one engine set (generated by sim.engine.kernel_sets; do not edit).',
        "",
        f"Digest {digest}",
        "Slots: " + ", ".join(f"{slot} {name}" for slot, name in enumerate(names)),
        '"""',
        "",
        "from core.jit import hot_kernel",
        "from core.state import INVALID_CHOICE",
        "",
        f"ENGINE_SOURCES = {_engine_sources_digest()!r}",
        f"CODE_KEYS = {tuple(code_keys)!r}",
        f"MODULES = {tuple(modules)!r}",
        f"CHECKED = {tuple(bool(c) for c in checked)!r}",
        "",
        "",
        "@hot_kernel",
        "def choose_placement(slot, view):",
    ]
    for slot in range(len(names)):
        lines += [f"    if slot == {slot}:", f"        return strategy_{slot}(view)"]
    lines += ["    return INVALID_CHOICE", ""]
    # Only slots whose code key says so receive every hand and the boneyard order; the engine
    # writes the public history only while a slot that reads it is seated.
    lines += _slot_table("slot_sees_hidden", [key.endswith(SEES_HIDDEN_KEY) for key in code_keys], False)
    lines += _slot_table("slot_reads_history", [READS_HISTORY_KEY in key for key in code_keys], False)
    lines += _slot_table("slot_parameters", [int(count) for count in parameters], 0)
    return "\n".join(lines)


def _slot_table(name: str, values: Sequence, default) -> list[str]:
    """Source lines of a generated ``hot_kernel`` ``name(slot)``: ``values[slot]`` for the slots
    whose value is not ``default``, else ``default``."""
    lines = ["", "@hot_kernel", f"def {name}(slot):"]
    for slot, value in enumerate(values):
        if value != default:
            lines += [f"    if slot == {slot}:", f"        return {value!r}"]
    return lines + [f"    return {default!r}", ""]


def _recreate(dispatcher, namespace: dict, module_name: str, path: Path):
    """A copy of the template kernel ``dispatcher`` whose globals are ``namespace`` and whose
    code is filed under ``path`` (so that its cache lives with the generated module)."""
    template = dispatcher.py_func
    code = template.__code__.replace(co_filename=str(path))
    function = types.FunctionType(code, namespace, template.__name__, template.__defaults__,
                                  template.__closure__)
    function.__module__ = module_name
    function.__qualname__ = template.__qualname__
    function.__doc__ = template.__doc__
    options = {key: value for key, value in dispatcher.targetoptions.items() if key != "nopython"}
    return numba.njit(cache=True, **options)(function)


def engine_for(functions: Sequence, code_keys: Sequence[str], names: Sequence[str],
               checked: Sequence[bool], parameters: Sequence[int]) -> EngineSet:
    """The engine compiled for these strategy functions (built once per process and set).

    Parameters
    ----------
    functions : sequence of Numba dispatchers
        One compiled strategy function per slot, in canonical order
        (:func:`set_order`); each ``f(view) -> row``: inlined into the engine
        (a built-in's ``choose``), or called apart (a bounds-checked
        dispatcher, :mod:`sim.engine.checked_strategies`).
    code_keys : sequence of str
        Their keys, same order.
    names : sequence of str
        Their names, same order (for the generated docstring and messages).
    checked : sequence of bool
        Whether each function is a bounds-checked dispatcher (in the digest).
    parameters : sequence of int
        Each strategy's parameter count (``view.params`` is cut to it).

    Returns
    -------
    EngineSet
        Nothing is compiled yet: Numba compiles (or loads from the disk cache)
        at the first call of a kernel.
    """
    modules = [function_module(function) for function in functions]
    digest = hashlib.sha256()
    digest.update(_engine_sources_digest().encode())
    for code_key, module, check in zip(code_keys, modules, checked, strict=True):
        digest.update(code_key.encode())
        digest.update(module.encode())
        digest.update(b"checked" if check else b"inlined")
    key = digest.hexdigest()[:DIGEST_CHARACTERS]
    with _BUILDING:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = _build(key, functions, code_keys, names, checked, parameters)
    return engine


_HEADER = re.compile(r"^ENGINE_SOURCES = '(?P<sources>[0-9a-f]+)'\nCODE_KEYS = (?P<keys>\([^)]*\))\n"
                     r"MODULES = (?P<modules>\([^)]*\))\nCHECKED = (?P<checked>\([^)]*\))$", re.M)


def cached_superset(code_keys: Sequence[str], known: dict, kernels: Sequence[str] = BATCH_KERNEL,
                    template: types.ModuleType | None = None) -> EngineSet | None:
    """The smallest engine whose ``kernels`` are in the disk cache and that holds every one of
    ``code_keys``, or None.

    A run whose exact set was never compiled can use such an engine at once
    (e.g. ``random,greedy`` after a tournament of all built-ins): its kernel
    holds the same compiled strategies, so the results are the same, only
    dispatched among more slots. A slot that no seat uses changes nothing:
    each seat's view, parameters, hidden information and whether the public
    history is kept (``seats_read_history``) depend on the seated slots only,
    and a Python seat is ``EXTERNAL_SEAT`` in every set. Only the kernels the
    run calls need to be cached: a set whose other kernels never were is as
    good, and one whose needed kernels are not would compile them (a larger
    set compiles for longer than the run's own).

    Parameters
    ----------
    code_keys : sequence of str
        The strategies the run needs.
    known : dict
        ``code_key -> (compiled function, name, checked, parameters)`` for every
        strategy this process can supply; a cached set holding any other, or
        holding one compiled otherwise (bounds-checked or not), is not used.
    kernels : sequence of str
        The kernels the run calls (default the batch kernel; a run with Python
        seats also calls ``resume_match``), or, with ``template``, the
        template's kernels it calls.
    template : module, optional
        A template above the engine whose kernels the run calls (:meth:`EngineSet.kernels`).
    """
    wanted = set(code_keys)
    sources = _engine_sources_digest()
    candidates = []
    for path in kernel_dir().glob("engine_*.py"):
        try:
            header = _HEADER.search(path.read_text())
        except OSError:
            continue
        if header is None or header.group("sources") != sources:
            continue
        keys = ast.literal_eval(header.group("keys"))
        modules = ast.literal_eval(header.group("modules"))
        checked = ast.literal_eval(header.group("checked"))
        if wanted <= set(keys) and all(key in known for key in keys) and \
                all(function_module(known[key][0]) == module and known[key][2] == check
                    for key, module, check in zip(keys, modules, checked)):
            candidates.append(keys)
    for keys in sorted(candidates, key=len):
        engine = engine_for([known[k][0] for k in keys], keys, [known[k][1] for k in keys],
                            [known[k][2] for k in keys], [known[k][3] for k in keys])
        if engine.is_cached(kernels, template):
            return engine
    return None


def _load_generated(path: Path, text: str, module_name: str) -> types.ModuleType:
    """Write ``text`` to ``path`` unless it is there, and load it as module ``module_name``."""
    # Never rewritten once there: Numba's cache beside it is keyed to the file's modification
    # time, and a concurrent process creating the same file wins once.
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        atomic_write(path, lambda p: p.write_text(text), exclusive=True)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # Numba's cache reloads environments by module name
    spec.loader.exec_module(module)
    return module


def _adopt(module: types.ModuleType, templates: Sequence[types.ModuleType]) -> None:
    """Fill ``module`` with the templates' globals (the first template's value of a name wins,
    names the module holds already are kept) and its own copy of their strategy-dependent kernels."""
    namespace = module.__dict__
    dependent = {name for template in templates for name in template.STRATEGY_DEPENDENT}
    for template in templates:
        for name, value in vars(template).items():
            if not name.startswith("__") and name not in dependent:
                namespace.setdefault(name, value)
    for template in templates:
        for name in template.STRATEGY_DEPENDENT:
            if name not in GENERATED:
                namespace[name] = _recreate(getattr(template, name), namespace, module.__name__,
                                            Path(module.__file__))


def _build(key: str, functions: Sequence, code_keys: Sequence[str], names: Sequence[str],
           checked: Sequence[bool], parameters: Sequence[int]) -> EngineSet:
    """Generate, load and fill the module of one set (see :func:`engine_for`)."""
    for template in ENGINE_TEMPLATES:
        refresh_linked_caches(template)
    text = _dispatch_source(names, code_keys, [function_module(f) for f in functions], checked,
                            parameters, key)
    module = _load_generated(kernel_dir() / f"engine_{key}.py", text, f"exact61_engine_{key}")
    for slot, function in enumerate(functions):
        module.__dict__[f"strategy_{slot}"] = function
    _adopt(module, ENGINE_TEMPLATES)
    return EngineSet(key, tuple(names), tuple(code_keys), tuple(bool(c) for c in checked), module)


def set_kernel_names(engine: EngineSet) -> set[str]:
    """The names whose values are the set's own in its module: the engine templates' copied
    kernels, the generated dispatch and the strategy functions."""
    return {name for template in ENGINE_TEMPLATES for name in template.STRATEGY_DEPENDENT} | \
        {f"strategy_{slot}" for slot in range(len(engine.code_keys))}


def _check_template(template: types.ModuleType) -> None:
    """Raise TypeError unless ``template`` can be compiled for a set (see :meth:`EngineSet.kernels`)."""
    if not isinstance(getattr(template, "STRATEGY_DEPENDENT", None), tuple):
        raise TypeError(f"{template.__name__} names no STRATEGY_DEPENDENT kernels: it is not a template")
    engine_kernels = {id(getattr(engine_template, name)): name for engine_template in ENGINE_TEMPLATES
                      for name in engine_template.STRATEGY_DEPENDENT}
    for name, value in vars(template).items():
        if any(value is engine_template for engine_template in ENGINE_TEMPLATES):
            raise TypeError(f"{template.__name__} imports the module {value.__name__} as {name!r}: its "
                            "kernels would call the template's loops, not the set's; import the kernels "
                            "by name")
        own = engine_kernels.get(id(value))
        if own is not None and own != name:
            raise TypeError(f"{template.__name__} holds the engine kernel {own!r} as {name!r}: import it "
                            "under its own name, which the set's copy replaces")


@functools.lru_cache(maxsize=64)
def _template_sources_digest(name: str, file_state: tuple) -> str:
    """Digest of the sources of template ``name`` (its file's ``file_state``, size and modification
    time, keys the memo: a template edited and reloaded in the process is digested again)."""
    return sources_digest(compiled_modules([sys.modules[name]]))


def _template_source(engine: EngineSet, template: types.ModuleType, key: str) -> str:
    """Text of the generated module of ``template``'s kernels for ``engine`` (its identity only,
    under names no template uses: :func:`template_kernels` fills it)."""
    return "\n".join([
        f'"""Kernels of {template.__name__} for engine set {engine.digest} (generated by '
        'sim.engine.kernel_sets; do not edit).',
        "",
        f"Digest {key}",
        "Slots: " + ", ".join(f"{slot} {name}" for slot, name in enumerate(engine.names)),
        '"""',
        "",
        f"KERNELS_OF_TEMPLATE = {template.__name__!r}",
        f"KERNELS_FOR_ENGINE = {engine.digest!r}",
        "",
    ])


def template_kernels(engine: EngineSet, template: types.ModuleType) -> types.ModuleType:
    """The module of ``template``'s kernels compiled for ``engine``'s set (see
    :meth:`EngineSet.kernels`; built once per process, set and template)."""
    return _template_module(engine, template, create=True)


def _template_module(engine: EngineSet, template: types.ModuleType, create: bool) -> types.ModuleType | None:
    """:func:`template_kernels`; unless ``create``, None instead of writing a module that is not
    on disk (a cache probe must not leave a file per candidate set)."""
    digest = hashlib.sha256(engine.digest.encode())
    digest.update(template.__name__.encode())
    state = os.stat(template.__file__)
    digest.update(_template_sources_digest(template.__name__, (state.st_size, state.st_mtime_ns)).encode())
    key = digest.hexdigest()[:DIGEST_CHARACTERS]
    path = kernel_dir() / f"kernels_{key}.py"
    with _BUILDING:
        module = _TEMPLATE_KERNELS.get(key)
        if module is None:
            if not create and not path.exists():
                return None
            _check_template(template)
            refresh_linked_caches(template)
            module = _load_generated(path, _template_source(engine, template, key), f"exact61_kernels_{key}")
            engine_namespace = vars(engine.module)
            for name in set_kernel_names(engine):
                if name in engine_namespace:
                    module.__dict__[name] = engine_namespace[name]
            _adopt(module, (template,))
            _TEMPLATE_KERNELS[key] = module
    return module
