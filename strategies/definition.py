"""A strategy as a decorated function plus metadata: :func:`strategy`, :class:`Strategy`.

Every strategy, built-in or a user's, is defined the same way::

    import strategies

    @strategies.strategy(name="edge", parameters={"bonus": (8.0, "raw points per double")},
                         description="Greedy plus a bonus for doubles.")
    def edge(view):
        ...                     # read the PlayerView, draw from view.rng if stochastic
        return row              # a row of view.cands, 0 <= row < view.n_candidates

The decorator compiles ``edge`` in Numba's nopython mode (inlined into the
engine's turn loop, no reference counting: it must not allocate; see
:mod:`strategies.toolkit` for helpers that do the allocating work) and returns a
:class:`Strategy`, accepted wherever a strategy name is (``sim.simulate``,
tournaments, experiments). With ``compiled=False`` the function stays plain
Python and receives a read-only :class:`strategies.python_view.PythonView`
with the same fields; matches that seat one are played by the engine with the
Python seat's choices fed in (see :mod:`sim.engine.python_seats`).

The engine never imports a strategy: it is handed the compiled functions of a
run (:mod:`sim.engine.kernel_sets`) and compiles one kernel per set of functions,
cached on disk under a digest of their code (:func:`code_digest`).
"""

from __future__ import annotations

import hashlib
import inspect
import marshal
import re
import types
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from sim.checks import check_finite
from sim.core.jit import strategy_kernel
from sim.core.state import SEES_HIDDEN_KEY
from strategies.parameters import Parameter

NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*(\[[^\[\]]*\])?$")
"""A strategy name: an identifier (dots and dashes allowed), optionally with a
``[k=v,...]`` suffix that names a variant."""


@dataclass(frozen=True)
class Strategy:
    """A strategy: its function, how it runs, and its metadata.

    Attributes
    ----------
    name : str
        What users type and what frames and records show.
    function : callable
        The plain Python function ``f(view) -> int`` as written.
    choose : callable
        What the engine calls: the Numba dispatcher of ``function`` (compiled),
        or ``function`` itself (``compiled=False``).
    compiled : bool
        Runs inside the engine kernel (True) or as a Python seat (False).
    description : str
        One paragraph for ``five-up strategies``.
    stochastic : bool
        Draws from ``view.rng``.
    uses_inference : bool
        Reads what opponents are known to lack or could hold.
    lookahead : int
        Plies or playouts beyond the current placement; 0 for none.
    sees_hidden : bool
        An audit strategy that reads every hand and the boneyard order
        (``view.hidden_hands``, ``view.hidden_boneyard``); a run refuses it
        unless it passes ``allow_hidden=True`` (``--allow-hidden``). Fair
        strategies (False) receive those arrays empty.
    parameters : tuple of Parameter
        In the order of ``view.params``; ``default`` is this strategy's value
        (a variant has its own defaults).
    """

    name: str
    function: object
    choose: object
    compiled: bool = True
    description: str = ""
    stochastic: bool = False
    uses_inference: bool = False
    lookahead: int = 0
    parameters: tuple = field(default=())
    sees_hidden: bool = False

    def __call__(self, view):
        """Call the strategy's function (plain Python, or the compiled dispatcher)."""
        return self.choose(view)

    def __repr__(self) -> str:
        kind = "compiled" if self.compiled else "python"
        return f"<Strategy {self.name!r} ({kind}, {len(self.parameters)} parameters)>"

    def default_params(self) -> np.ndarray:
        """float64[len(parameters)]: this strategy's parameter values."""
        return np.array([p.default for p in self.parameters], dtype=np.float64)

    def parameter_names(self) -> list[str]:
        """Parameter names in ``view.params`` order."""
        return [p.name for p in self.parameters]

    @cached_property
    def code_key(self) -> str:
        """Digest of the code the engine compiles for this strategy (see :func:`code_digest`);
        variants of one function share it, so they share one compiled slot. A ``sees_hidden``
        strategy's key carries :data:`sim.core.state.SEES_HIDDEN_KEY`: only its slot is
        handed the hidden arrays."""
        return code_digest(self.function) + (SEES_HIDDEN_KEY if self.sees_hidden else "")


def _parameters(parameters) -> tuple:
    """Normalise ``parameters=`` (see :func:`strategy`) to a tuple of Parameter."""
    if parameters is None:
        return ()
    if isinstance(parameters, Mapping):
        items = []
        for key, value in parameters.items():
            if isinstance(value, Parameter):
                items.append(Parameter(str(key), float(value.default), value.description))
            elif isinstance(value, tuple) and len(value) == 2:
                items.append(Parameter(str(key), float(value[0]), str(value[1])))
            else:
                items.append(Parameter(str(key), float(value), ""))
        return tuple(items)
    items = tuple(parameters)
    if not all(isinstance(p, Parameter) for p in items):
        raise TypeError("parameters must be a dict {name: default or (default, doc)} or Parameter objects")
    return items


def _check_name(name: str) -> str:
    # Commas may only separate a variant's parameters (``name[a=1,b=2]``).
    if not isinstance(name, str) or not NAME_PATTERN.match(name) \
            or any(mark in name.partition("[")[0] for mark in ":,"):
        raise ValueError(f"invalid strategy name {name!r} (letters, digits, '_', '.', '-'; no ',' or ':')")
    return name


def strategy(
    function=None,
    *,
    name: str | None = None,
    description: str = "",
    parameters=None,
    stochastic: bool = False,
    uses_inference: bool = False,
    lookahead: int = 0,
    compiled: bool = True,
    sees_hidden: bool = False,
):
    """Decorator: turn ``function(view) -> row`` into a :class:`Strategy`.

    Parameters
    ----------
    function : callable, optional
        The strategy function (when used as ``@strategy`` without arguments).
    name : str, optional
        The name users type; default the function's name.
    description : str
        One paragraph; default the function's docstring.
    parameters : dict or sequence of Parameter, optional
        ``{name: default}`` or ``{name: (default, one-line doc)}``, in
        ``view.params`` order.
    stochastic, uses_inference : bool
    lookahead : int
    compiled : bool
        True: compile with Numba (nopython, inlined into the engine, must not
        allocate). False: a plain Python function (any library), run as a
        Python seat.
    sees_hidden : bool
        Declare an audit strategy that reads every hand and the boneyard
        order (compiled only); runs refuse it unless ``allow_hidden=True``.

    Returns
    -------
    Strategy, or a decorator returning one.
    """

    def wrap(func) -> Strategy:
        if isinstance(func, Strategy):
            raise TypeError(f"{func.name!r} is already a strategy")
        if not callable(func):
            raise TypeError("@strategy decorates a function f(view) -> row")
        py_func = getattr(func, "py_func", func)  # accept an already-jitted function
        chosen_name = _check_name(name if name is not None else py_func.__name__)
        text = description or inspect.getdoc(py_func) or ""
        if sees_hidden and not compiled:
            raise TypeError(f"{chosen_name}: a strategy that sees hidden information must be compiled")
        if compiled:
            choose = strategy_kernel(py_func)
        else:
            choose = py_func
        return Strategy(
            name=chosen_name,
            function=py_func,
            choose=choose,
            compiled=bool(compiled),
            description=" ".join(text.split()),
            stochastic=bool(stochastic),
            uses_inference=bool(uses_inference),
            lookahead=int(lookahead),
            parameters=_parameters(parameters),
            sees_hidden=bool(sees_hidden),
        )

    if function is not None:
        return wrap(function)
    return wrap


def variant(base: Strategy, name: str | None = None, **params) -> Strategy:
    """``base`` with other parameter values, entered as a strategy of its own.

    Parameters
    ----------
    base : Strategy
    name : str, optional
        Default ``base[k=v,...]`` in ``base``'s parameter order.
    **params : float
        New defaults for some of ``base``'s parameters.

    Raises
    ------
    ValueError
        An unknown parameter or a value that is not a finite number.
    """
    if not isinstance(base, Strategy):
        raise TypeError("variant() takes a Strategy")
    known = base.parameter_names()
    for key, value in params.items():
        if key not in known:
            raise ValueError(f"{base.name}: unknown parameter {key!r} (known: {', '.join(known) or 'none'})")
        check_finite(value, f"{base.name}: parameter {key}")
    new = tuple(replace(p, default=float(params[p.name])) if p.name in params else p for p in base.parameters)
    if name is None:
        changed = ",".join(f"{p.name}={params[p.name]:g}" for p in base.parameters if p.name in params)
        name = f"{base.name}[{changed}]" if changed else base.name
    return replace(base, name=_check_name(name), parameters=new)


# ---------------------------------------------------------------------------
# Code digests: the key of a compiled kernel set
# ---------------------------------------------------------------------------
def _is_dispatcher(value) -> bool:
    return hasattr(value, "py_func") and hasattr(value, "targetoptions")


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _file_of(func) -> Path | None:
    try:
        path = inspect.getsourcefile(func)
    except TypeError:
        return None
    if not path:
        return None
    candidate = Path(path)
    return candidate if candidate.is_file() else None


def code_closure(func) -> tuple[list[Path], list[bytes]]:
    """What the compiled code of ``func`` depends on.

    Follows the Numba dispatchers ``func`` calls (global names and module
    attributes), transitively. Returns the source files met (their whole
    text counts: module constants live there) and, for functions without a
    file (a notebook cell), their source or bytecode plus the global arrays
    and numbers they read, which Numba freezes into the compiled code.
    """
    files: list[Path] = []
    pieces: list[bytes] = []
    seen: set[int] = set()

    def visit(py_func) -> None:
        if id(py_func) in seen:
            return
        seen.add(id(py_func))
        path = _file_of(py_func)
        if path is not None:
            if path not in files:
                files.append(path)
        else:
            try:
                pieces.append(inspect.getsource(py_func).encode())
            except (OSError, TypeError):
                pieces.append(marshal.dumps(py_func.__code__.co_code))
        global_values = getattr(py_func, "__globals__", {})
        for name in sorted(_code_names(py_func.__code__)):
            value = global_values.get(name)
            if value is None:
                continue
            if _is_dispatcher(value):
                visit(value.py_func)
            elif isinstance(value, types.ModuleType):
                for attribute in sorted(_code_names(py_func.__code__)):
                    member = getattr(value, attribute, None)
                    if member is not None and _is_dispatcher(member):
                        visit(member.py_func)
            elif path is None and isinstance(value, np.ndarray):
                pieces.append(name.encode() + value.tobytes() + str(value.dtype).encode())
            elif path is None and isinstance(value, (int, float, bool, np.number)):
                pieces.append(f"{name}={value!r}".encode())

    visit(getattr(func, "py_func", func))
    return files, pieces


def code_digest(func) -> str:
    """sha256 (hex) of everything the compiled code of ``func`` depends on (:func:`code_closure`)."""
    files, pieces = code_closure(func)
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for piece in pieces:
        digest.update(piece)
    return digest.hexdigest()
