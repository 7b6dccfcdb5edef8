"""A run bound to its compiled engine: the kernel set, each seat's slot, the compile notice.

:class:`CompiledRun` turns a :class:`sim.engine.spec.RunSpec` into what the
batch kernel is called with: the engine compiled for the run's strategies
(:mod:`sim.engine.kernel_sets`) and each seat's slot in it. A run whose own
set of strategies was never compiled uses a cached engine that holds them
among others, when there is one (same compiled strategies, same results).
"""

from __future__ import annotations

import sys
from functools import cached_property

import numpy as np

from sim.core.state import EXTERNAL_SEAT
from sim.engine.compile_cache import refresh_strategy_caches
from sim.engine.kernel_sets import EngineSet, cached_superset, engine_for
from sim.engine.spec import RunSpec
from strategies.catalogue import builtins


_ANNOUNCED: set[str] = set()  # digests of the sets this process has announced


def announce_compile(engine: EngineSet) -> None:
    """Say on stderr that the engine is being compiled, when it is not in the disk cache.

    Once per set and process: a study run compiles its own kernels, not ``simulate_batch``
    (the kernel the probes look at), so without the memory every later run of the same set
    in the process would announce a compile that no longer happens.
    """
    if engine.digest in _ANNOUNCED or engine.is_compiled() or engine.is_cached():
        return
    _ANNOUNCED.add(engine.digest)
    names = ", ".join(engine.names) or "Python strategies only"
    print(f"compiling the engine for {names} (first run only) ...", file=sys.stderr, flush=True)


class CompiledRun:
    """A :class:`RunSpec` and the compiled engine that plays it.

    Parameters
    ----------
    spec : RunSpec
    own_set : bool
        Compile the run's own set of strategies even when a cached engine
        holding them exists (runs with Python seats and the study kernels
        always do).

    Attributes
    ----------
    answers : dict
        The Python seats' recorded choices of the chunk in play
        (:func:`sim.engine.python_seats.answers_for`), so that the two passes
        of a traced chunk ask each Python strategy once.
    """

    def __init__(self, spec: RunSpec, own_set: bool = False):
        self.spec = spec
        self.own_set = own_set or bool(spec.python_seats)
        self.answers: dict = {}

    @cached_property
    def engine(self) -> EngineSet:
        """The compiled engine of this run (built, or loaded from the disk cache, on first use)."""
        kernel_strategies = self.spec.kernel_strategies
        refresh_strategy_caches(kernel_strategies)
        engine = engine_for([s.choose for s in kernel_strategies], [s.code_key for s in kernel_strategies],
                            [s.name for s in kernel_strategies])
        if not self.own_set and not (engine.is_compiled() or engine.is_cached()):
            engine = cached_superset(engine.code_keys, self.known_strategies()) or engine
        announce_compile(engine)
        return engine

    def known_strategies(self) -> dict:
        """``code_key -> (function, name)`` of every compiled strategy this process can supply."""
        known = {s.code_key: (s.choose, s.name) for s in builtins().values()}
        known.update({s.code_key: (s.choose, s.name) for s in self.spec.kernel_strategies})
        return known

    @cached_property
    def strategy_ids(self) -> np.ndarray:
        """int64[players]: each seat's slot in :attr:`engine` (``EXTERNAL_SEAT`` for a Python seat)."""
        keys = self.engine.code_keys
        return np.array([keys.index(s.code_key) if s.compiled else EXTERNAL_SEAT
                         for s in self.spec.strategies], dtype=np.int64)

    def slot_name(self, slot: int) -> str:
        """The strategy name of ``slot`` of :attr:`engine`, as this run calls it."""
        key = self.engine.code_keys[slot]
        return next((s.name for s in self.spec.strategies if s.compiled and s.code_key == key),
                    self.engine.names[slot])
