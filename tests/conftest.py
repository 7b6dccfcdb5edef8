"""Shared pytest fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def compiled_engine():
    """Import the Numba engine and run every kernel once (compiled or loaded from cache).

    Returns the :mod:`sim.engine` module. Depend on this fixture in engine tests
    so that compile time is paid once per session, up front.
    """
    from sim import engine

    engine.simulate(2, "random,greedy", 2, seed=0)
    engine.simulate_rounds(2, "random,greedy", 2, seed=0)
    engine.record(2, "random,greedy", 2, seed=0)
    return engine
