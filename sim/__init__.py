"""Exact 61 Five Up: rules reference, Numba engine and match records.

Pipeline, one module per job:

- :mod:`sim.tiles`      the double-six set as data (shared constants only)
- :mod:`sim.reference`  pure-Python rules reference, the independent oracle
- :mod:`sim.records`    exact61-record/1 reading and writing
- :mod:`sim.verify`     replays records with the reference and checks every figure
- :mod:`sim.cli`        the ``five-up`` command

The engine entry points (``sim.simulate``, ``sim.record``) are loaded lazily so
that ``import sim.reference`` never imports the Numba engine.
"""

from __future__ import annotations

__all__ = ["simulate", "simulate_rounds", "record"]


def __getattr__(name: str):
    # PEP 562 lazy attributes: keep the reference importable without the engine.
    if name in __all__:
        from sim import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
