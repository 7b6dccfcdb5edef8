"""A run bound to its compiled engine: the kernel set, each seat's slot, the compile notice.

:class:`CompiledRun` turns a :class:`sim.engine.spec.RunSpec` into what the
batch kernel is called with: the engine compiled for the run's strategies
(:mod:`sim.engine.kernel_sets`) and each seat's slot in it. A built-in
strategy is inlined into the engine; any other compiled strategy is compiled
apart with bounds checking and typed against the view first, so that its
errors name it (:mod:`sim.engine.checked_strategies`). A run whose own set of
strategies lacks the kernels it calls (the batch kernel; ``resume_match`` too
with Python seats; a study's template kernels) uses a cached engine that holds
them among others and has those kernels in the disk cache, when there is one
(same compiled strategies, same results: :func:`sim.engine.kernel_sets.cached_superset`).
"""

from __future__ import annotations

import functools
import sys
from functools import cached_property

import numpy as np

from core.state import EXTERNAL_SEAT
from sim.engine.checked_strategies import compile_checked
from sim.engine.compile_cache import refresh_strategy_caches
from sim.engine.kernel_sets import BATCH_KERNEL, ENTRY_KERNELS, EngineSet, cached_superset, engine_for
from sim.engine.spec import RunSpec
from strategies.catalogue import builtins


_ANNOUNCED: set[tuple] = set()  # (digest, template name) of the sets this process has announced


def announce_compile(engine: EngineSet, kernels=BATCH_KERNEL, template=None) -> None:
    """Say on stderr that the engine is being compiled, when ``kernels`` (of ``template``, if
    given: :meth:`sim.engine.kernel_sets.EngineSet.is_cached`) are not in the disk cache.

    Once per set, template and process: a run that stops before its first kernel call leaves
    them uncompiled, and without the memory every later run of the same set in the process
    would announce again.
    """
    announced = (engine.digest, getattr(template, "__name__", None))
    if announced in _ANNOUNCED or engine.is_compiled(kernels, template) or \
            engine.is_cached(kernels, template):
        return
    _ANNOUNCED.add(announced)
    names = ", ".join(engine.names) or "Python strategies only"
    print(f"compiling the engine for {names} (first run only) ...", file=sys.stderr, flush=True)


@functools.lru_cache(maxsize=1)
def builtin_slots() -> dict:
    """``key -> (function, name, checked, parameters)`` of the built-in strategies (a named variant
    shares its base's key and entry), once per process: a key walks its strategy's code, a
    quarter of a second for all the built-ins, which every run that looks for a larger cached
    set (:meth:`CompiledRun.known_strategies`) would pay again."""
    known = {}
    for s in builtins().values():
        known.setdefault(s.code_key, (s.choose, s.name, False, len(s.parameters)))
    return known


@functools.lru_cache(maxsize=1)
def builtin_keys() -> frozenset:
    """The keys of the built-in strategies: these are inlined into the engine unchecked (the
    project's code, reviewed with it); every other compiled strategy is bounds-checked."""
    return frozenset(builtin_slots())


class CompiledRun:
    """A :class:`RunSpec` and the compiled engine that plays it.

    Parameters
    ----------
    spec : RunSpec
    own_set : bool
        Compile the run's own set of strategies even when a cached engine
        holding them exists.
    kernels : sequence of str, optional
        The kernels the run calls, which a cached larger engine must hold in
        the disk cache to serve it: default ``simulate_batch``, and
        ``resume_match`` too when the run has Python seats; with ``template``,
        that template's kernels (its ``STRATEGY_DEPENDENT`` names).
    template : module, optional
        The template above the engine whose kernels the run calls
        (``run.engine.kernels(template)``: a study's).

    Attributes
    ----------
    kernel_names : tuple of str
        ``kernels``, the default filled in.
    answers : dict
        The Python seats' recorded choices of the chunk in play
        (:func:`sim.engine.python_seats.answers_for`), so that the two passes
        of a traced chunk ask each Python strategy once.
    seats : dict
        Under ``spec.sealed``, the process of each Python seat
        (:class:`sim.engine.sealed_seats.SealedSeat`), started at its first
        decision and stopped by :meth:`close` (use the run as a context manager).
    """

    def __init__(self, spec: RunSpec, own_set: bool = False, kernels=None, template=None):
        self.spec = spec
        self.own_set = own_set
        if kernels is None:  # Python seats' answers are found by resume_match (sim.engine.python_seats)
            kernels = ENTRY_KERNELS if spec.python_seats else BATCH_KERNEL
        self.kernel_names = tuple(kernels)
        self.template = template
        self.answers: dict = {}
        self.seats: dict = {}

    def __enter__(self) -> CompiledRun:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop the processes of sealed Python seats (nothing else needs closing)."""
        seats, self.seats = self.seats, {}
        for process in seats.values():
            process.close()

    def slots(self) -> tuple[list, list, list, list, list]:
        """The run's own set: per slot the function the engine calls, key, name, whether it is
        bounds-checked and its parameter count (a user's strategy is compiled here, on its own:
        :func:`sim.engine.checked_strategies.compile_checked`)."""
        strategies = self.spec.kernel_strategies
        keys = [self.spec.key_of(s) for s in strategies]
        checked = [key not in builtin_keys() for key in keys]
        functions = [compile_checked(s) if check else s.choose for s, check in zip(strategies, checked)]
        return functions, keys, [s.name for s in strategies], checked, [len(s.parameters) for s in strategies]

    @cached_property
    def engine(self) -> EngineSet:
        """The compiled engine of this run (built, or loaded from the disk cache, on first use).

        Raises
        ------
        StrategyError
            A strategy that is not built in does not compile, or reads what its key
            cannot capture (one line naming it).
        """
        functions, keys, names, checked, parameters = self.slots()
        refresh_strategy_caches(self.spec.kernel_strategies)
        engine = engine_for(functions, keys, names, checked, parameters)
        needed = (self.kernel_names, self.template)
        if not self.own_set and not (engine.is_compiled(*needed) or engine.is_cached(*needed)):
            # A larger set serves the run only with the very kernels it calls cached: compiling
            # them for a larger set would take longer than for the run's own.
            engine = cached_superset(engine.code_keys, self.known_strategies(), *needed) or engine
        announce_compile(engine, *needed)
        return engine

    def known_strategies(self) -> dict:
        """``key -> (function, name, checked, parameters)`` of every compiled strategy this process
        can supply: the built-ins, and this run's own (:meth:`slots`)."""
        known = dict(builtin_slots())
        known.update({key: (function, name, check, count)
                      for function, key, name, check, count in zip(*self.slots())})
        return known

    @cached_property
    def strategy_ids(self) -> np.ndarray:
        """int64[players]: each seat's slot in :attr:`engine` (``EXTERNAL_SEAT`` for a Python seat)."""
        keys = self.engine.code_keys
        return np.array([keys.index(self.spec.key_of(s)) if s.compiled else EXTERNAL_SEAT
                         for s in self.spec.strategies], dtype=np.int64)

    def slot_name(self, slot: int) -> str:
        """The strategy name of ``slot`` of :attr:`engine`, as this run calls it."""
        key = self.engine.code_keys[slot]
        return next((s.name for s in self.spec.strategies if s.compiled and self.spec.key_of(s) == key),
                    self.engine.names[slot])
