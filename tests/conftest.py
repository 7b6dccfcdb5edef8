"""Shared pytest fixtures."""

from __future__ import annotations

import pytest

import strategies
from sim import engine


@pytest.fixture(scope="session")
def compiled_engine():
    """Run every engine entry point once, for the whole built-in field (compiled or loaded).

    Compiles the engine for every built-in strategy together: every later run of
    built-ins reuses that cached kernel (:func:`sim.engine.kernel_sets.cached_superset`)
    instead of compiling its own set. Returns the :mod:`sim.engine` package. Depend on
    this fixture in engine tests so that compile time is paid once per session, up front.
    """
    engine.simulate(2, "random,greedy", 2, seed=0, field=strategies.builtin_names())
    engine.simulate_rounds(2, "random,greedy", 2, seed=0)
    engine.record(2, "random,greedy", 2, seed=0)
    return engine
