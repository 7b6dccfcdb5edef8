"""The run specification: every argument of an engine run, checked once.

:class:`RunSpec` is what the Python functions (:func:`sim.simulate`,
:func:`sim.simulate_rounds`, :func:`sim.record`), the command line, the shard
jobs and the studies build from their arguments. It checks every one of them
(table size, one strategy per seat, matches, seed, round limit, first match,
threads, parameters) and raises :class:`ValueError` with one line naming the
argument; the command line prints that line as its error. Nothing is
compiled here: :class:`sim.engine.compiled.CompiledRun` binds a spec to its
compiled engine.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field

import numba
import numpy as np

from core.checks import (MAX_SEED, check_finite, check_int, check_players, check_secret, check_seconds,
    check_seed, per_seat)
from core.rng import NO_SECRET
from sim.engine.kernel_sets import set_order
from core.tiles import DEFAULT_MAX_ROUNDS, entities_for, entity_count
from strategies.catalogue import check_distinct_names, reference, resolve, strategy_entries
from strategies.definition import Strategy


def check_threads(value, name: str = "threads") -> int | None:
    """Threads for a run: None (every Numba thread) or ``1 .. NUMBA_NUM_THREADS``."""
    if value is None:
        return None
    return check_int(value, name, 1, numba.config.NUMBA_NUM_THREADS)


def seat_strategies(players: int, strategies) -> list[Strategy]:
    """The :class:`strategies.Strategy` of each seat.

    Parameters
    ----------
    players : int
        2, 3 or 4.
    strategies : str, Strategy or sequence
        One entry per seat: a comma-separated string of specs, or a sequence
        of specs and :class:`strategies.Strategy` objects (a spec is a
        built-in name, ``MODULE:NAME``, ``FILE.py:NAME``, optionally with
        ``[param=value,...]``; see :mod:`strategies.catalogue`). With 4
        players two entries give the partnerships: seats 0,2 and seats 1,3.

    Raises
    ------
    ValueError
        Wrong number of entries, an unknown or unloadable strategy, or two
        different strategies under one name.
    """
    entries = per_seat(check_players(players), strategy_entries(strategies, "strategies"), "strategies")
    resolved = [resolve(entry) for entry in entries]  # StrategyError is a ValueError
    check_distinct_names(resolved)
    return resolved


def seat_params(players: int, strategies: Sequence[Strategy], params=None) -> np.ndarray:
    """float64[players, P]: each seat's parameter row (see ``params`` in :func:`sim.simulate`).

    Row ``s`` holds seat ``s``'s strategy defaults, overridden by ``params[s]``
    (None, a dict ``{name: value}`` or every value in order), zero-padded to
    the widest strategy (each strategy is handed its own values only: the
    engine cuts its ``view.params`` to them).
    """
    width = max([1] + [len(info.parameters) for info in strategies])
    rows = np.zeros((players, width), dtype=np.float64)
    for seat, info in enumerate(strategies):
        defaults = info.default_params()
        rows[seat, : defaults.size] = defaults
    if params is None:
        return rows
    if isinstance(params, (str, bytes, dict)) or not isinstance(params, (Sequence, np.ndarray)):
        raise ValueError("params must be a list with one entry per seat (None, a dict or a list of numbers)")
    entries = per_seat(players, list(params), "params entries")
    for seat, (info, entry) in enumerate(zip(strategies, entries)):
        names = [p.name for p in info.parameters]
        if entry is None:
            continue
        if isinstance(entry, dict):
            for key, value in entry.items():
                if key not in names:
                    known = ", ".join(names) or "none"
                    raise ValueError(f"seat {seat} ({info.name}): unknown parameter {key!r} (known: {known})")
                rows[seat, names.index(key)] = check_finite(value, f"{info.name}: parameter {key}")
            continue
        values = np.asarray(entry, dtype=object).ravel()
        if values.size != len(names):
            raise ValueError(
                f"seat {seat} ({info.name}): expected {len(names)} parameter values "
                f"({', '.join(names) or 'none'}), got {values.size}"
            )
        for index, value in enumerate(values):
            rows[seat, index] = check_finite(value, f"{info.name}: parameter {names[index]}")
    return rows


def check_hidden(strategies: Sequence[Strategy], allow_hidden) -> None:
    """Refuse ``sees_hidden`` strategies unless ``allow_hidden`` is True.

    Raises
    ------
    ValueError
        One line naming the strategy and how to allow it.
    """
    if not isinstance(allow_hidden, bool):
        raise ValueError(f"allow_hidden must be True or False, got {allow_hidden!r}")
    hidden = sorted({s.name for s in strategies if s.sees_hidden})
    if hidden and not allow_hidden:
        raise ValueError(f"{', '.join(hidden)} sees every hand and the boneyard order (an audit "
                         "strategy): pass allow_hidden=True (--allow-hidden) to run it")


def hidden_run_options(allow_hidden: bool) -> dict:
    """The run options for ``allow_hidden``: ``{"allow_hidden": True}``, or nothing, so that the
    settings and manifests of fair runs stay as they were."""
    return {"allow_hidden": True} if allow_hidden else {}


def check_seal(sealed, secret, decision_timeout) -> tuple[bool, str | None, float | None]:
    """Check the sealing options of a run (see :meth:`RunSpec.build`); a sealed run without a
    secret gets a fresh random one.

    Raises
    ------
    ValueError
        One line naming the option.
    """
    if not isinstance(sealed, bool):
        raise ValueError(f"sealed must be True or False, got {sealed!r}")
    secret = check_secret(secret)
    timeout = check_seconds(decision_timeout, "decision_timeout")
    if timeout is not None and not sealed:
        raise ValueError("decision_timeout needs sealed=True (--sealed): only a strategy running in "
                         "a process of its own can be stopped")
    if sealed and secret is None:
        secret = secrets.token_hex(16)
    return sealed, secret, timeout


def check_sealable(strategies: Sequence[Strategy]) -> None:
    """Refuse a sealed run of a Python strategy that another process cannot import (one defined in
    a notebook or ``__main__``: a sealed seat runs in a process of its own, which loads the
    strategy by its spec).

    Raises
    ------
    ValueError
        One line naming the strategy and what to do.
    """
    for strategy in strategies:
        if not strategy.compiled and reference(strategy) is None:
            raise ValueError(f"strategy {strategy.name!r} is defined in a notebook or __main__: a sealed "
                             "run loads each Python strategy in a process of its own, so put it in a "
                             "file or module (FILE.py:NAME, MODULE:NAME)")


def seal_run_options(sealed: bool, secret: str | None, decision_timeout: float | None) -> dict:
    """The run options of a sealed run (``sealed``, ``secret``, ``decision_timeout`` where set),
    or nothing, so that the settings and manifests of other runs stay as they were."""
    options = {}
    if sealed:
        options["sealed"] = True
    if secret is not None:
        options["secret"] = secret
    if decision_timeout is not None:
        options["decision_timeout"] = decision_timeout
    return options


def checked_seal_options(sealed=False, secret=None, decision_timeout=None) -> dict:
    """:func:`check_seal`, then :func:`seal_run_options`: the checked sealing of a run as the
    options to store in its settings and hand to every shard (a sealed run given no secret gets
    one here, once). ValueError (one line) on bad input."""
    return seal_run_options(*check_seal(sealed, secret, decision_timeout))


def check_seating(players, strategies, *, allow_hidden: bool = False,
                  sealed: bool = False) -> list[Strategy]:
    """Check a table's seating as a run would seat it, before anything is built or played.

    The strategy of each seat (:func:`seat_strategies`: one per seat, or two partnerships
    with 4 players, known and loadable, distinct names), a ``sees_hidden`` audit strategy only
    with ``allow_hidden`` (:func:`check_hidden`) and, with ``sealed``, only strategies a sealed
    run can play (:func:`check_sealable`): what :meth:`RunSpec.build` checks of a seating, for
    a tool that plays many seatings and checks them all first.

    Returns
    -------
    list of Strategy
        Each seat's strategy.

    Raises
    ------
    ValueError
        One line naming the strategy or the argument.
    """
    seats = seat_strategies(players, strategies)
    check_hidden(seats, allow_hidden)
    if sealed:
        check_sealable(seats)
    return seats


def secret_words(secret: str | None) -> np.ndarray:
    """uint64[2]: a run secret (32 hexadecimal digits) as the kernels take it; zeros for none."""
    if secret is None:
        return NO_SECRET.copy()
    number = int(secret, 16)
    return np.array([number & (2**64 - 1), number >> 64], dtype=np.uint64)


@dataclass(frozen=True, eq=False)
class RunSpec:
    """The checked arguments of one engine run (build it with :meth:`build`).

    Attributes
    ----------
    players : int
        2, 3 or 4.
    strategies : tuple of Strategy
        One per seat.
    matches : int
        Matches to play, >= 1: global indices ``first_match .. first_match + matches - 1``.
    seed : int
        Master seed, ``0 .. MAX_SEED``.
    max_rounds : int
        Ruling 15: a match still running after this many rounds stops unfinished.
    first_match : int
        Global index of the first match.
    threads : int or None
        Numba threads (None: all).
    params : ndarray, float64[players, P]
        Each seat's strategy parameters (:func:`seat_params`).
    field : tuple of Strategy
        More strategies compiled into the same kernel (a tournament's field);
        results do not depend on it.
    allow_hidden : bool
        The run may seat a ``sees_hidden`` audit strategy (``cheater``).
    sealed : bool
        Python strategies run in processes of their own (:mod:`sim.engine.sealed_seats`).
    secret : str or None
        The run secret (32 hexadecimal digits) keying every decision stream;
        None: the seed alone decides.
    decision_timeout : float or None
        Seconds a sealed Python strategy may take per decision.
    keys : tuple of str
        The key of each seat's strategy, then of each field strategy
        (:func:`strategies.definition.strategy_key`), computed once.
    """

    players: int
    strategies: tuple
    matches: int
    seed: int
    max_rounds: int = DEFAULT_MAX_ROUNDS
    first_match: int = 0
    threads: int | None = None
    params: np.ndarray = dataclass_field(default=None, repr=False)
    field: tuple = ()
    allow_hidden: bool = False
    sealed: bool = False
    secret: str | None = dataclass_field(default=None, repr=False)
    decision_timeout: float | None = None
    keys: tuple = dataclass_field(default=(), repr=False)

    @classmethod
    def build(cls, players, strategies, matches, seed, *, max_rounds=DEFAULT_MAX_ROUNDS,
              first_match=0, threads=None, params=None, field=None, allow_hidden=False,
              sealed=False, secret=None, decision_timeout=None) -> RunSpec:
        """Check every argument and return the spec.

        Parameters
        ----------
        players : int
            2, 3 or 4.
        strategies : str, Strategy or sequence
            One per seat, or with 4 players two for the partnerships (seats
            0,2 and 1,3): specs (a built-in name, ``MODULE:NAME``,
            ``FILE.py:NAME``, with ``[param=value,...]`` for other parameter
            values; a comma-separated string) and Strategy objects. See
            :mod:`strategies`.
        matches : int
            Number of matches (> 0).
        seed : int
            Master seed, ``0 <= seed < 2**63``.
        max_rounds : int
            Ruling 15: a match still running after this many rounds is unfinished.
        first_match : int
            Global index of the first match: ``matches=m, first_match=f`` plays
            rows ``f .. f+m-1`` of a larger run, identical to those rows of it.
        threads : int, optional
            Numba threads for the run (restored afterwards); default the
            current count (``NUMBA_NUM_THREADS``).
        params : sequence, optional
            Strategy parameters per seat (with 4 players: 4 entries, or 2 for
            the partnerships). Each entry is ``None`` (the strategy's
            defaults), a dict ``{parameter name: value}`` overriding some
            defaults, or a sequence of numbers giving every parameter in order
            (see ``five-up strategies``). The values reach the compiled kernel
            as a float64 array, so changing them never recompiles.
        field : sequence, optional
            More strategies (specs or Strategy objects) to compile into the
            same kernel as this run's: a tournament passes its whole field, so
            that every seating reuses one compiled kernel. Results do not
            depend on it.
        allow_hidden : bool
            Allow strategies declared ``sees_hidden`` (audit strategies such as
            ``cheater`` that read every hand and the boneyard order). Without
            it a run that seats one is refused.
        sealed : bool
            Run every Python strategy in a process of its own that receives only
            its view and returns only its row, and key the decision streams with
            a run secret (``secret``; a random one when not given).
        secret : str, optional
            The run secret, 32 hexadecimal digits: the decision streams are keyed
            by it so that no strategy can compute them from the seed. Give the
            secret of an earlier sealed run (its manifest, records, or the
            frame's ``attrs["secret"]``) to replay it exactly.
        decision_timeout : float, optional
            Seconds a sealed Python strategy may take for one decision; beyond
            it the run stops with one line naming strategy, match and seat.

        Raises
        ------
        ValueError
            One line naming the argument and what was found.
        """
        players = check_players(players)
        seats = tuple(seat_strategies(players, strategies))
        matches = check_int(matches, "matches", 1)
        first_match = check_int(first_match, "first_match", 0, MAX_SEED)
        if first_match + matches - 1 > MAX_SEED:
            raise ValueError("first_match + matches must stay below 2**63")
        extra = () if field is None else tuple(resolve(entry) for entry in strategy_entries(field, "field"))
        check_hidden(seats, allow_hidden)  # a field strategy is compiled, never seated
        sealed, secret, decision_timeout = check_seal(sealed, secret, decision_timeout)
        if sealed:
            check_sealable(seats)
        return cls(players=players, strategies=seats, matches=matches, seed=check_seed(seed),
                   max_rounds=check_int(max_rounds, "max_rounds", 1),
                   first_match=first_match, threads=check_threads(threads),
                   params=seat_params(players, seats, params), field=extra,
                   allow_hidden=bool(allow_hidden), sealed=sealed, secret=secret,
                   decision_timeout=decision_timeout,
                   keys=tuple(s.code_key for s in seats + extra))  # StrategyError is a ValueError

    def rows(self, start: int, stop: int) -> RunSpec:
        """The same run restricted to its matches ``start .. stop - 1`` (0-based within it)."""
        return replace(self, first_match=self.first_match + start, matches=stop - start)

    @property
    def names(self) -> list[str]:
        """Each seat's strategy name (what frames and records show)."""
        return [strategy.name for strategy in self.strategies]

    @property
    def entities(self) -> list[int]:
        """Each seat's scoring entity (ruling 7)."""
        return list(entities_for(self.players))

    @property
    def n_entities(self) -> int:
        return entity_count(self.players)

    @property
    def python_seats(self) -> list[int]:
        """Seats whose strategy is plain Python (``compiled=False``)."""
        return [seat for seat, s in enumerate(self.strategies) if not s.compiled]

    @property
    def secret_words(self) -> np.ndarray:
        """uint64[2]: the run secret as the kernels take it (zeros: none)."""
        return secret_words(self.secret)

    @property
    def seal_options(self) -> dict:
        """The run options that rebuild this run's sealing (:func:`seal_run_options`)."""
        return seal_run_options(self.sealed, self.secret, self.decision_timeout)

    def key_of(self, strategy: Strategy) -> str:
        """The key of one of the run's strategies (a seat's or the field's), computed at build."""
        for candidate, key in zip(self.strategies + self.field, self.keys):
            if candidate is strategy:
                return key
        return strategy.code_key

    @property
    def kernel_strategies(self) -> list[Strategy]:
        """The compiled strategies of the seats and the field, one per key, in canonical slot
        order (:func:`sim.engine.kernel_sets.set_order`)."""
        compiled = [s for s in self.strategies + self.field if s.compiled]
        return [compiled[i] for i in set_order([self.key_of(s) for s in compiled])]
