"""The compilation modes of the engine's kernels.

``kernel``
    ``numba.njit`` with the on-disk cache, *without* NRT reference counting
    (``_nrt=False``) and with NumPy's error model. These kernels never allocate
    (only :func:`core.state.new_workspace` and the batch kernel do), so they
    need no reference counting; with it, Numba adds an atomic increment and
    decrement for every array passed to every call, which made the first
    engine 8x slower. NumPy's error model drops Python's zero-division checks
    on ``%`` and ``//`` (every divisor here is a positive constant or count).
``hot_kernel``
    ``kernel`` plus ``inline="always"``: inlined at Numba-IR level into its
    callers. Used for the per-turn path: Numba passes a named tuple of arrays
    by value, field by field, and a non-inlined call per placement cost about
    3x in throughput.

``linked_kernel``
    ``kernel`` plus Numba's ``forceinline``: compiled (and cached) once, on its
    own, and inlined by LLVM into each caller's machine code. The engine's loops
    call the steps this way (:mod:`core.linked_steps`): they run as fast as
    inlined at Numba-IR level, and a new kernel set does not type and lower them
    again (a set compiled in 36-45 s before, 12-13 s after).

Strategies use ``hot_kernel`` for ``choose`` so the dispatcher inlines them;
a strategy that is not built in is compiled with :data:`CHECKED_OPTIONS`
instead and called apart (:mod:`sim.engine.checked_strategies`).
"""

from __future__ import annotations

import itertools
import os
import secrets
import types

from numba import njit
from numba.core.bytecode import FunctionIdentity


def process_function_ids(salt: int | None = None):
    """The unique ids Numba gives the functions this process compiles: ``salt * 2**32 + k``
    for ``k = 1, 2, ...``, with a random 31-bit ``salt`` (a new one in a forked child).

    Numba names each compiled function and its environment after its module, its name and
    a counter that starts at 1 in every process. Caches written by two processes can then
    hold different bodies under one name (a function, or a callee linked into a caller's
    cache); loaded into one process, a call resolves to the wrong body and segfaults (numba
    issue 10486).
    """
    salt = secrets.randbits(31) if salt is None else salt
    return itertools.count((salt << 32) + 1)


def use_process_function_ids() -> None:
    """Give Numba :func:`process_function_ids` for this process and for every fork of it."""
    FunctionIdentity._unique_ids = process_function_ids()  # noqa: SLF001 - no public hook


# Before any kernel compiles: every module that defines one imports this module.
use_process_function_ids()
os.register_at_fork(after_in_child=use_process_function_ids)

KERNEL_OPTIONS = {"cache": True, "_nrt": False, "error_model": "numpy"}
"""Options shared by every non-allocating engine kernel."""

kernel = njit(**KERNEL_OPTIONS)
"""Decorator: a cached, non-allocating kernel (see the module docstring)."""

hot_kernel = njit(inline="always", **KERNEL_OPTIONS)
"""Decorator: ``kernel`` inlined into its callers (the per-turn path)."""

linked_kernel = njit(forceinline=True, **KERNEL_OPTIONS)
"""Decorator: ``kernel`` typed, lowered and cached once, on its own, and inlined by LLVM into
its callers' machine code (Numba's ``forceinline``: the ``alwaysinline`` attribute). As fast
as ``hot_kernel`` in the engine's round loop, but a caller compiled anew (a new kernel set)
no longer types and lowers the callee again: see :mod:`core.linked_steps`."""


def linked_twin(function):
    """A ``linked_kernel`` twin of the ``hot_kernel`` ``function``: the same code and globals, its
    own dispatcher and disk-cache entry (qualified name ``<name>_linked``).

    The twin's own callees stay ``hot_kernel`` (inlined into the twin, once). ``function`` is
    unchanged: a strategy calling it still inlines it at Numba-IR level, with the strategy's
    flags (a user's strategy is bounds-checked, and so is what it inlines).
    """
    py_func = function.py_func
    twin = types.FunctionType(py_func.__code__, py_func.__globals__, py_func.__name__,
                              py_func.__defaults__, py_func.__closure__)
    twin.__kwdefaults__ = py_func.__kwdefaults__
    twin.__module__ = py_func.__module__
    twin.__qualname__ = f"{py_func.__qualname__}_linked"  # Numba's cache file is named after it
    twin.__doc__ = py_func.__doc__
    return linked_kernel(twin)


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
