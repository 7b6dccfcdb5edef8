"""The Numba engine: complete matches, many at a time, with the strategies it is handed.

Modules, from the kernels up:

- :mod:`sim.engine.play`           round, match and batch loops (templates: strategies are handed in)
- :mod:`sim.engine.compiled_sources` the source files compiled into kernels (from the templates' imports)
- :mod:`sim.engine.kernel_sets`    one compiled engine per set of strategy functions, cached on disk;
  the kernels of templates above the engine (the studies') compiled for a set
- :mod:`sim.engine.compile_cache`  freshness of the disk cache for kernels spanning several files
- :mod:`sim.engine.spec`           :class:`RunSpec`, every argument of a run checked once
- :mod:`sim.engine.compiled`       a run bound to its compiled engine and seat slots
- :mod:`sim.engine.python_seats`   matches with Python strategies: the engine plays, Python chooses
- :mod:`sim.engine.batch`          calls of the batch kernel: threads, chunks, traced passes
- :mod:`sim.engine.frames`         results as pandas frames
- :mod:`sim.engine.export`         results as exact61-record/1 records
- :mod:`sim.engine.runs`           :func:`simulate`, :func:`simulate_rounds`, :func:`record`

The state the kernels share is described once, in :mod:`core.state`.
"""

from __future__ import annotations

from sim.engine.runs import record, simulate, simulate_rounds
from sim.engine.spec import RunSpec

__all__ = ["RunSpec", "record", "simulate", "simulate_rounds"]
