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
cached on disk under their keys (:func:`strategy_key`: a digest of everything
that decides each one's play, :mod:`strategies.identity`).
"""

from __future__ import annotations

import hashlib
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from core.checks import check_finite
from core.jit import strategy_kernel
from core.state import READS_HISTORY_KEY, SEES_HIDDEN_KEY
from strategies.identity import IdentityError, Reach, function_digest
from strategies.parameters import Parameter
from strategies.python_view import batch_of_one

NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*(\[[^\[\]]*\])?$")
"""A strategy name: an identifier (dots and dashes allowed), optionally with a
``[k=v,...]`` suffix that names a variant."""


class StrategyError(ValueError):
    """A spec or a strategy that cannot be used as it is (the message is one line for the user)."""


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
        ``function`` itself (``compiled=False``), or for a batch strategy ``function`` on a
        batch of one view (:func:`strategies.python_view.batch_of_one`).
    compiled : bool
        Runs inside the engine kernel (True) or as a Python seat (False).
    batch : bool
        A Python seat that chooses for many decisions at once: ``function(batch_view)``
        receives a :class:`strategies.python_view.BatchView` and returns one row per decision
        (the engine hands it every waiting decision of its matches in flight).
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
    reads_history : bool or None
        Reads the round's public history (``view.history``, ``view.n_history``). None
        (the default): found in the code, true when the strategy or a function it calls
        loads an attribute named ``history`` or ``n_history``; declare True for a compiled
        strategy that reads the history by another way (a view field by position). The
        engine writes the history only while such a seat is at the table; other strategies
        see it empty. Python seats always see it.
    parameters : tuple of Parameter
        In the order of ``view.params``; ``default`` is this strategy's value
        (a variant has its own defaults).
    """

    name: str
    function: object
    choose: object
    compiled: bool = True
    description: str = ""
    batch: bool = False
    stochastic: bool = False
    uses_inference: bool = False
    lookahead: int = 0
    parameters: tuple = field(default=())
    sees_hidden: bool = False
    reads_history: bool | None = None

    def __call__(self, view):
        """Call the strategy's function (plain Python, or the compiled dispatcher)."""
        return self.choose(view)

    def __repr__(self) -> str:
        kind = "compiled" if self.compiled else "batch" if self.batch else "python"
        return f"<Strategy {self.name!r} ({kind}, {len(self.parameters)} parameters)>"

    def default_params(self) -> np.ndarray:
        """float64[len(parameters)]: this strategy's parameter values."""
        return np.array([p.default for p in self.parameters], dtype=np.float64)

    def parameter_names(self) -> list[str]:
        """Parameter names in ``view.params`` order."""
        return [p.name for p in self.parameters]

    @property
    def code_key(self) -> str:
        """The strategy's identity: a digest of everything that decides its play
        (:func:`strategy_key`). Kernels, caches and the strategy tables of a run are keyed on
        it. Variants of one function share it (their parameter values reach the kernel as
        data), so they share one compiled slot. Computed afresh at each use: a global the
        function reads may have been rebound since.

        Raises
        ------
        StrategyError
            A compiled strategy reads something its key cannot capture (one line).
        """
        return strategy_key(self)


def _parameters(parameters) -> tuple:
    """Normalise ``parameters=`` (see :func:`strategy`) to a tuple of Parameter."""
    if parameters is None:
        return ()
    if isinstance(parameters, Mapping):
        items = []
        for key, value in parameters.items():
            if isinstance(value, Parameter):
                items.append(replace(value, name=str(key), default=float(value.default)))
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


def one_view_of_batch(function):
    """``function`` (a batch strategy's) as a function of one view: it is handed the batch of
    that view alone and its single row is returned (a batch strategy seated where decisions
    come one at a time)."""
    def choose(view):
        rows = function(batch_of_one(view))
        return rows[0]

    choose.__name__ = getattr(function, "__name__", "choose")
    choose.__wrapped__ = function
    return choose


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
    reads_history: bool | None = None,
    batch: bool = False,
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
    reads_history : bool, optional
        Whether it reads the public history (:class:`Strategy`); default: found in its code.
    batch : bool
        With ``compiled=False``: ``function(batch_view) -> rows`` chooses for many decisions at
        once (a NumPy or PyTorch policy; :class:`strategies.python_view.BatchView`).

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
        if batch and compiled:
            raise TypeError(f"{chosen_name}: a batch strategy is plain Python: pass compiled=False")
        if compiled:
            choose = strategy_kernel(py_func)
        elif batch:
            choose = one_view_of_batch(py_func)
        else:
            choose = py_func
        return Strategy(
            name=chosen_name,
            function=py_func,
            choose=choose,
            compiled=bool(compiled),
            description=" ".join(text.split()),
            batch=bool(batch),
            stochastic=bool(stochastic),
            uses_inference=bool(uses_inference),
            lookahead=int(lookahead),
            parameters=_parameters(parameters),
            sees_hidden=bool(sees_hidden),
            reads_history=None if reads_history is None else bool(reads_history),
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


HISTORY_ATTRIBUTES = frozenset({"history", "n_history"})
"""View fields whose loading in a strategy's code (or a function it calls) marks it as reading
the public history."""


def reads_history(strategy: Strategy) -> bool:
    """Whether ``strategy`` reads the public history: as declared (:attr:`Strategy.reads_history`),
    else found in its code (it or a function it calls loads ``history`` or ``n_history``; a
    function whose reach cannot be walked counts as reading it)."""
    if strategy.reads_history is not None:
        return strategy.reads_history
    reach = Reach()
    try:
        function_digest(strategy.function, strict=strategy.compiled, reach=reach)
    except IdentityError:
        return True
    return bool(reach.attributes & HISTORY_ATTRIBUTES)


def strategy_key(strategy: Strategy) -> str:
    """sha256 (hex) of everything that decides ``strategy``'s play.

    The function's identity (:func:`strategies.identity.function_digest`: its
    code by qualified name, closure cells, defaults and the values of every
    global it reads, recursively through every function it calls), how it
    runs (compiled, Python or a Python batch), and the length of its parameter vector (which
    the view shows it). Parameter *values* are not in it: they reach the
    kernel as data. A compiled strategy that reads the public history
    (:attr:`Strategy.reads_history`) has :data:`core.state.READS_HISTORY_KEY` in its
    key: the engine keeps the history for its table. A ``sees_hidden`` strategy's key ends in
    :data:`core.state.SEES_HIDDEN_KEY`: only its slot is handed the hidden
    arrays.

    Raises
    ------
    StrategyError
        A compiled strategy reads a global its key cannot capture (an arbitrary
        object), or a way past its view (raw memory, unchecked indexing; one line naming it).
    """
    reach = Reach()
    try:
        digest = function_digest(strategy.function, strict=strategy.compiled, reach=reach)
    except IdentityError as error:
        raise StrategyError(f"strategy {strategy.name!r}: {error}") from None
    kind = "compiled" if strategy.compiled else "batch" if strategy.batch else "python"
    text = f"{digest}:{kind}:parameters={len(strategy.parameters)}"
    reads = strategy.reads_history
    if reads is None:
        reads = bool(reach.attributes & HISTORY_ATTRIBUTES)
    return (hashlib.sha256(text.encode()).hexdigest()
            + (READS_HISTORY_KEY if reads and strategy.compiled else "")
            + (SEES_HIDDEN_KEY if strategy.sees_hidden else ""))
