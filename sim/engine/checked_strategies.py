"""Strategies that are not built in: compiled apart, bounds-checked, typed before the engine.

A built-in strategy's ``choose`` is inlined into the engine's turn loop (the
project reviews its code). Any other compiled strategy (a user's file,
module, notebook cell; an example; a test's spy) is compiled on its own
(:data:`core.jit.CHECKED_OPTIONS`: Numba's bounds checking, no reference
counting, no inlining) and called from the engine. So:

* an index past any end of any view array (negative or not) raises
  ``IndexError`` instead of reading the engine's memory beside the view; the
  engine marks the match and :mod:`sim.engine.batch` names the strategy, the
  match and the seat in one line;
* it is compiled for the exact view type first (:func:`compile_checked`),
  outside the engine: a Numba typing error becomes one line naming the
  strategy, its file and line and the likely cause (:func:`explain`), with
  Numba's whole text kept for ``--debug``; a strategy that returns a float
  is refused there too (the engine would truncate it silently);
* a separately compiled helper of the user's that it calls must be
  bounds-checked as well (``toolkit.allocating`` and ``toolkit.helper``
  are), or inlined: the view reaches it too.

The cost of the call (the view passed by value, once per decision) is paid by
these strategies only; built-in sets compile exactly as before.
"""

from __future__ import annotations

import re
import traceback
from pathlib import Path

import numba
from numba import types
from numba.core.errors import NumbaError

from core.jit import CHECKED_OPTIONS
from core.state import player_view_type
from strategies.definition import Strategy, StrategyError
from strategies.identity import (Reach, function_digest, is_inlined, is_library, is_project_module,
    references)

_DISPATCHERS: dict[tuple[int, str], tuple[object, object]] = {}
"""``(id(py_func), digest) -> (py_func, checked dispatcher)``: one dispatcher per function and
identity, so a global rebound since the last compile gets a fresh compile, never the old code."""
_COMPILED_DIGESTS: dict[int, tuple[object, str]] = {}  # id(dispatcher) -> (dispatcher, digest when compiled)


class StrategyCompileError(StrategyError):
    """A user's compiled strategy that Numba cannot compile: one line, and ``details`` (Numba's
    whole message) for ``--debug``."""

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


def checked_dispatcher(strategy: Strategy, digest: str):
    """The bounds-checked, non-inlined dispatcher of a compiled ``strategy`` whose function has the
    identity ``digest`` (:func:`strategies.identity.function_digest`): one per function and
    identity in a process, so that it compiles once for what the function reads now."""
    function = strategy.function
    known = _DISPATCHERS.get((id(function), digest))
    if known is None or known[0] is not function:
        known = _DISPATCHERS[(id(function), digest)] = (function, numba.njit(**CHECKED_OPTIONS)(function))
    return known[1]


def _location(text: str, strategy: Strategy) -> tuple[str, int]:
    """The innermost place in ``text`` (a Numba message) that is the user's code, else the
    strategy's own definition."""
    code = strategy.function.__code__
    fallback = (Path(code.co_filename).name, code.co_firstlineno)
    places = re.findall(r'File "([^"]+)", line (\d+)', text)
    for path, line in reversed(places):
        if "site-packages" in path or path.startswith("<") or "/numba/" in path:
            continue
        return Path(path).name, int(line)
    return fallback


def _name_line(strategy: Strategy, name: str) -> int | None:
    for kind, found, _, line in references(strategy.function.__code__):
        if kind == "global" and found == name:
            return line
    return None


def explain(error: BaseException, strategy: Strategy) -> str:
    """One line for a strategy that does not compile: where and the likely cause."""
    text = str(error)
    file, line = _location(text, strategy)
    undefined = re.search(r"NameError: name '([^']+)' is not defined", text) or \
        re.search(r"Untyped global name '([^']+)'", text)
    if "Cannot modify readonly array" in text:
        cause = ("writes to its view (every view array but rng is read-only: copy what you need "
                 "into an array of your own, allocated in a function decorated with toolkit.allocating)")
    elif isinstance(error, AttributeError) and "'NoneType' object has no attribute 'args'" in text:
        # Numba fails so, without a message of its own, on an in-place operator (+=) applied to a
        # read-only array; the statement is not named.
        cause = ("Numba failed inside (AttributeError), most likely at an in-place operator such as "
                 "+= on a view array, which is read-only: copy it first")
    elif "Only accept returning of array passed into the function" in text or "NRT required" in text:
        cause = ("allocates an array (a compiled strategy cannot: allocate in a function decorated "
                 "with toolkit.allocating and call it)")
    elif undefined:
        name = undefined.group(1)
        line = _name_line(strategy, name) or line
        cause = (f"undefined name {name}" if "NameError" in undefined.group(0)
                 else f"reads global {name}, which Numba cannot compile (a number, tuple, NumPy "
                      "array or compiled function can be read)")
    else:
        lines = [part.strip() for part in text.splitlines() if part.strip()]
        useful = [part for part in lines if not part.startswith(("Failed in", "During:", "File ", "^"))]
        cause = (useful[0] if useful else type(error).__name__).rstrip(":")
        if len(cause) > 160:
            cause = cause[:157] + "..."
    return (f"strategy {strategy.name!r} ({file}:{line}) does not compile: {cause} "
            "(--debug shows Numba's whole message)")


def _check_helpers(strategy: Strategy, reach: Reach) -> None:
    """Refuse a user's separately compiled helper that is not bounds-checked, and one whose
    code or globals changed since this process compiled it."""
    for dispatcher in reach.dispatchers:
        module = getattr(dispatcher.py_func, "__module__", None)
        if is_project_module(module) or is_library(dispatcher.py_func) or is_inlined(dispatcher):
            continue
        name = dispatcher.py_func.__qualname__
        if not dispatcher.targetoptions.get("boundscheck"):
            raise StrategyError(
                f"strategy {strategy.name!r}: its helper {name} is compiled without bounds checking "
                "and the view reaches it: decorate it with toolkit.allocating or toolkit.helper "
                "(or numba.njit(boundscheck=True))")
        digest = function_digest(dispatcher, strict=True)
        compiled = _COMPILED_DIGESTS.get(id(dispatcher))
        if compiled is not None and compiled[0] is dispatcher and compiled[1] != digest \
                and dispatcher.signatures:
            raise StrategyError(
                f"strategy {strategy.name!r}: its helper {name} was compiled in this process before "
                "a global it reads changed: define the helper again (or restart) to use the new value")
        _COMPILED_DIGESTS[id(dispatcher)] = (dispatcher, digest)


def compile_checked(strategy: Strategy):
    """Compile a user's ``strategy`` for the engine's view type, on its own; return its dispatcher.

    Raises
    ------
    StrategyError
        Bounds checking switched off for the process (``NUMBA_BOUNDSCHECK=0``), a
        helper that is not bounds-checked or is stale, a return type that is not an
        integer row (one line each).
    StrategyCompileError
        Numba cannot compile it (one line from :func:`explain`; ``details``: Numba's text).
    """
    if numba.config.BOUNDSCHECK == 0:
        raise StrategyError("NUMBA_BOUNDSCHECK=0 turns off the bounds checks that keep a strategy "
                            f"({strategy.name!r}) inside its view: unset it to run strategies that are not built in")
    reach = Reach()
    digest = function_digest(strategy.function, strict=True, reach=reach)
    _check_helpers(strategy, reach)
    dispatcher = checked_dispatcher(strategy, digest)
    signature = (player_view_type(),)
    try:
        dispatcher.compile(signature)
    except Exception as error:  # a NumbaError, or an internal error Numba raises on some user code
        details = str(error) if isinstance(error, NumbaError) else "".join(
            traceback.format_exception(type(error), error, error.__traceback__))
        raise StrategyCompileError(explain(error, strategy), details) from None
    returned = dispatcher.overloads[signature].signature.return_type
    if not isinstance(returned, types.Integer):
        code = strategy.function.__code__
        raise StrategyError(
            f"strategy {strategy.name!r} ({Path(code.co_filename).name}:{code.co_firstlineno}) returns "
            f"{returned}: return an int row of view.cands (0 <= row < view.n_candidates)")
    return dispatcher
