"""Exact 61 Five Up: rules reference, Numba engine and match records.

One folder per layer, each importing only the layers below it (checked by
import-linter in the tests; see README's layout table):

- pure Python: :mod:`sim.tiles` (the double-six set), :mod:`sim.reference`
  (the rules reference, the independent oracle), :mod:`sim.records`
  (exact61-record/1 files), :mod:`sim.verify` (replays records with the
  reference), :mod:`sim.checks` (option checks), :mod:`sim.files` (atomic
  writes, output directories), :mod:`sim.progress` (the progress bar);
- :mod:`sim.core`: the Numba state contract, rule primitives and random streams;
- :mod:`sim.engine`: round and match loops, run specification, frames, records;
- :mod:`sim.study_kernels`: score events in context and forced openings, for the experiments;
- :mod:`sim.scale`: shards, their durable store, aggregates and backends (local, dask).

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
