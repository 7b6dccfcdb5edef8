"""The two compilation modes of the engine's kernels.

``kernel``
    ``numba.njit`` with the on-disk cache, *without* NRT reference counting
    (``_nrt=False``) and with NumPy's error model. These kernels never allocate
    (only :func:`sim.core.state.new_workspace` and the batch kernel do), so they
    need no reference counting; with it, Numba adds an atomic increment and
    decrement for every array passed to every call, which made the first
    engine 8x slower. NumPy's error model drops Python's zero-division checks
    on ``%`` and ``//`` (every divisor here is a positive constant or count).
``hot_kernel``
    ``kernel`` plus ``inline="always"``: inlined at Numba-IR level into its
    callers. Used for the per-turn path: Numba passes a named tuple of arrays
    by value, field by field, and a non-inlined call per placement cost about
    3x in throughput.

Strategies use ``hot_kernel`` for ``choose`` so the dispatcher inlines them;
a strategy that is not built in is compiled with :data:`CHECKED_OPTIONS`
instead and called apart (:mod:`sim.engine.checked_strategies`).
"""

from __future__ import annotations

from numba import njit

KERNEL_OPTIONS = {"cache": True, "_nrt": False, "error_model": "numpy"}
"""Options shared by every non-allocating engine kernel."""

kernel = njit(**KERNEL_OPTIONS)
"""Decorator: a cached, non-allocating kernel (see the module docstring)."""

hot_kernel = njit(inline="always", **KERNEL_OPTIONS)
"""Decorator: ``kernel`` inlined into its callers (the per-turn path)."""


CHECKED_OPTIONS = {"_nrt": False, "error_model": "numpy", "boundscheck": True}
"""How a strategy that is not built in is compiled: on its own (not inlined), without the disk
cache, with Numba's bounds checking (:mod:`sim.engine.checked_strategies`)."""

ALLOCATING_OPTIONS = {"cache": True, "_nrt": True, "error_model": "numpy"}
"""How a strategy's scratch-allocating function is compiled (``strategies.lookahead.allocating``):
with reference counting, which it needs to allocate."""


def strategy_kernel(py_func):
    """Compile a strategy function as ``hot_kernel`` does, without the on-disk cache, with bounds
    checking.

    A built-in strategy is inlined into the engine kernel of its set (which is
    cached, :mod:`sim.engine.kernel_sets`) and takes that kernel's flags there
    (no bounds checking); a function defined in a notebook cell has no source
    file for a cache to live beside. Called directly from Python (a bridge
    seat, a test, a Python strategy asking ``greedy``), it is compiled on its
    own, bounds-checked: no index of the view it is handed reaches past it.
    """
    options = {key: value for key, value in KERNEL_OPTIONS.items() if key != "cache"}
    return njit(inline="always", boundscheck=True, **options)(py_func)
