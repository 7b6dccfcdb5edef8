"""Shared pytest fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def compiled_engine():
    """Import the Numba engine and run every kernel once (compiled or loaded from cache).

    Compiles the engine for the whole built-in field: every later run of built-ins
    reuses that cached kernel (:func:`sim.kernel_sets.cached_superset`) instead of
    compiling its own set. Returns the :mod:`sim.engine` module. Depend on this
    fixture in engine tests so that compile time is paid once per session, up front.
    """
    import strategies
    from sim import engine

    engine.simulate(2, "random,greedy", 2, seed=0, field=strategies.builtin_names())
    engine.simulate_rounds(2, "random,greedy", 2, seed=0)
    engine.record(2, "random,greedy", 2, seed=0)
    return engine
