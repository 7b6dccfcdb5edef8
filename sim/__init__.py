"""Exact 61 Five Up above the strategies: the engine, scale-out, study kernels, bridges, the
human game and pictures; and beside them the rules reference and match records.

The layers above the strategies, each importing only those below it (checked by
import-linter in the tests; see README's layout table). Under all of them sit
:mod:`strategies` and, at the bottom, the rules core :mod:`core`.

- pure Python: :mod:`sim.reference` (the rules reference, the independent
  oracle), :mod:`sim.records` (exact61-record/1 files), :mod:`sim.verify`
  (replays records with the reference), :mod:`sim.files` (atomic writes,
  output directories), :mod:`sim.progress` (the progress bar);
- :mod:`sim.engine`: round, match and batch loops, run specification, frames, records;
- :mod:`sim.study_kernels`: score events in context and forced openings, for the experiments;
- :mod:`sim.scale`: shards, their durable store, aggregates and backends (local, dask);
- :mod:`sim.bridges`: OpenSpiel, PettingZoo and the Gymnasium vector environment;
- :mod:`sim.human`: the game of ``five-up play``; :mod:`sim.display`: pictures of records.

The engine's entry points (``sim.simulate``, ``sim.simulate_rounds``,
``sim.record``) are loaded on first use, so that ``import sim.reference`` and
``five-up verify`` never load Numba.
"""

from __future__ import annotations

import importlib

__all__ = ["simulate", "simulate_rounds", "record"]


def __getattr__(name: str):
    # PEP 562 lazy attributes: the pure-Python reference stays importable without Numba.
    if name in __all__:
        return getattr(importlib.import_module("sim.engine"), name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
