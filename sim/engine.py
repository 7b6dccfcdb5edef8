"""Python entry points of the Numba engine: frames and records.

:func:`simulate` returns one row per match, :func:`simulate_rounds` one row per
round, :func:`record` exact61-record/1 match objects. All three run the same
compiled kernel (:func:`sim._play.simulate_batch`): a match depends only on
``(seed, match index)`` and the strategies, never on the thread count, the
chunking, or whether it is traced, so the three views of a match agree.

Frame columns (:func:`simulate`)
--------------------------------
``match`` int64, ``seed`` int64, ``players`` int8, ``strategy_0..strategy_{n-1}``
(category), ``winner`` int8 (entity, -1 unfinished), ``score_0..score_{k-1}``
int32 (final raw per entity), then int32 counts: ``rounds``, ``placements``,
``draws``, ``passes``, ``domino_rounds``, ``blocked_rounds``,
``events_accepted``, ``events_discarded``, ``raw_discarded``, ``placement_raw``
(accepted ordinary placement events plus the final placement of accepted
dominoes), ``domino_credit``, ``domino_debit``, ``blocked_credit`` (accepted);
``first_leader`` int8, ``first_opening`` (category ``"a-b"``, low half first).
For every match ``sum(score) == placement_raw + domino_credit - domino_debit +
blocked_credit``.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from sim import _kernels as K
from sim import kernel_sets
from sim._play import UNANSWERED_ERROR
from sim.records import FORMAT
from sim.tiles import DEFAULT_MAX_ROUNDS, HAND_SIZE, N_TILES, TILES, tile_name

__all__ = ["ENGINE_MODULES", "record", "resolve_strategies", "simulate", "simulate_rounds"]

MAX_SEED = 2**63 - 1
"""Seeds are non-negative int64."""

DEFAULT_CHUNK_PER_THREAD = 16384
"""Matches per thread per kernel call: the progress bar updates between calls."""

BLOCKS_PER_THREAD = 8
"""Row blocks per thread and kernel call, for load balance (results do not depend on it)."""

END_NAMES = {K.END_DOMINO: "domino", K.END_BLOCKED: "blocked", K.END_TARGET: "target"}
SIDE_NAMES = {K.SIDE_NONE: None, K.SIDE_LINE: "line", K.SIDE_ARM: "arm"}
TILE_NAMES = [tile_name(t) for t in range(N_TILES)]

# ---------------------------------------------------------------------------
# Compiled-cache freshness
# ---------------------------------------------------------------------------
ENGINE_MODULES = ("sim._jit", "sim.tiles", "sim.rng", "sim._kernels", "sim._play")
"""Modules whose compiled code is linked into every engine kernel."""


def refresh_compiled_cache(modules, anchor, stamp_name: str, extra_files=()) -> None:
    """Flush the on-disk cache of ``modules``' kernels when any source they depend on changed.

    Numba checks only the source file of the cached function itself, but a
    kernel's machine code includes functions from other files. A digest of
    the engine's files, ``modules``' and ``extra_files`` is kept next to
    ``anchor``'s cache; when it differs, the cache index of every dispatcher
    defined in ``modules`` is emptied so the next call recompiles.
    """
    files = {Path(sys.modules[name].__file__).resolve() for name in ENGINE_MODULES}
    files |= {Path(m.__file__).resolve() for m in modules} | {Path(f).resolve() for f in extra_files}
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    stamp = digest.hexdigest()
    try:
        cache_dir = Path(anchor._cache.cache_path)
    except AttributeError:  # caching disabled
        return
    stamp_path = cache_dir / stamp_name
    try:
        if stamp_path.read_text().strip() == stamp:
            return
    except OSError:
        pass
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, numba.core.dispatcher.Dispatcher) and value.__module__ == module.__name__:
                cache = getattr(value, "_cache", None)
                if cache is not None and hasattr(cache, "flush"):
                    try:
                        cache.flush()
                    except OSError:
                        pass
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        stamp_path.write_text(stamp + "\n")
    except OSError:
        pass


_REFRESHED: set[str] = set()


def refresh_strategy_caches(strategies) -> None:
    """Flush stale disk caches of the compiled helpers a run's strategies call.

    A strategy's helpers compiled on their own (e.g. ``rollout``'s playouts,
    cached beside their module) are linked into the engine kernel; when a file
    they depend on changes, Numba would still load them from the cache. Each
    module met in a strategy's code closure gets a stamp of the files that
    closure reaches.
    """
    from strategies import definition

    todo = [s for s in strategies if s.code_key not in _REFRESHED]
    if not todo:
        return  # once per strategy and process: the sources do not change under a running process
    _REFRESHED.update(s.code_key for s in todo)
    strategies = todo
    modules = {}
    by_file = {Path(m.__file__).resolve(): m for m in list(sys.modules.values())
               if isinstance(getattr(m, "__file__", None), str)}
    for strategy in strategies:
        files, _ = definition.code_closure(strategy.function)
        for path in files:
            module = by_file.get(path.resolve())
            if module is not None and module.__name__ not in ENGINE_MODULES:
                modules[module.__name__] = module
    for module in modules.values():
        dispatchers = [value for value in vars(module).values()
                       if isinstance(value, numba.core.dispatcher.Dispatcher)
                       and value.__module__ == module.__name__]
        anchor = next((d for d in dispatchers if getattr(d, "_cache", None) is not None
                       and hasattr(d._cache, "cache_path")), None)
        if anchor is None:
            continue
        closure = set()
        for dispatcher in dispatchers:  # the module's own closure: one stamp whoever asks
            closure.update(definition.code_closure(dispatcher.py_func)[0])
        refresh_compiled_cache([module], anchor, f"exact61-{module.__name__}.sha256", sorted(closure))


# ---------------------------------------------------------------------------
# Input validation
# ---------------------------------------------------------------------------
def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_players(players) -> int:
    if not _is_int(players) or not 2 <= int(players) <= 4:
        raise ValueError(f"players must be 2, 3 or 4 (got {players!r})")
    return int(players)


def resolve_strategies(players: int, strategies) -> list:
    """The :class:`strategies.Strategy` of each seat.

    Parameters
    ----------
    players : int
        2, 3 or 4.
    strategies : str or sequence
        One entry per seat: a comma-separated string of specs, or a sequence
        of specs and :class:`strategies.Strategy` objects (a spec is a
        built-in name, ``MODULE:NAME``, ``FILE.py:NAME``, optionally with
        ``[param=value,...]``; see :mod:`strategies.catalogue`). With 4
        players two entries give the partnerships: seats 0,2 and seats 1,3.

    Returns
    -------
    list of Strategy
        ``players`` entries.

    Raises
    ------
    ValueError
        Wrong number of entries, an unknown or unloadable strategy, or two
        different strategies under one name.
    """
    from strategies import Strategy, resolve

    players = _check_players(players)
    if isinstance(strategies, str):
        entries = split_specs(strategies)
    elif isinstance(strategies, Strategy):
        entries = [strategies]
    elif isinstance(strategies, Sequence) and all(isinstance(s, (str, Strategy)) for s in strategies):
        entries = [s.strip() if isinstance(s, str) else s for s in strategies]
    else:
        raise ValueError("strategies must be a comma-separated string or a list of names and Strategy objects")
    if any(isinstance(entry, str) and not entry for entry in entries):
        raise ValueError(f"empty strategy name in {strategies!r}")
    if players == 4 and len(entries) == 2:
        entries = [entries[0], entries[1], entries[0], entries[1]]
    if len(entries) != players:
        expected = "4 (one per seat) or 2 (one per partnership)" if players == 4 else str(players)
        raise ValueError(f"{players} players need {expected} strategies, got {len(entries)}")
    resolved = [resolve(entry) for entry in entries]  # StrategyError is a ValueError
    check_distinct_names(resolved)
    return resolved


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of specs, keeping commas inside ``[...]``."""
    parts, depth, current = [], 0, []
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return parts


def check_distinct_names(strategies) -> None:
    """Raise ValueError when two different strategies (code or parameters) share a name."""
    seen = {}
    for strategy in strategies:
        signature = (strategy.function, strategy.compiled, tuple(strategy.default_params().tolist()))
        previous = seen.setdefault(strategy.name, signature)
        if previous != signature:
            raise ValueError(f"two different strategies are named {strategy.name!r}: give one another name")


class _Setup:
    """Validated arguments of one run, as the kernel wants them."""

    def __init__(self, players, strategies, matches, seed, max_rounds, first_match, threads, params=None,
                 field=None, own_set=False):
        self.players = _check_players(players)
        self.strategies = resolve_strategies(self.players, strategies)
        self.names = [strategy.name for strategy in self.strategies]
        if not _is_int(matches) or int(matches) < 1:
            raise ValueError(f"matches must be a positive integer (got {matches!r})")
        self.matches = int(matches)
        if not _is_int(seed) or not 0 <= int(seed) <= MAX_SEED:
            raise ValueError(f"seed must be an integer in 0..2**63-1 (got {seed!r})")
        self.seed = int(seed)
        if not _is_int(max_rounds) or int(max_rounds) < 1:
            raise ValueError(f"max_rounds must be a positive integer (got {max_rounds!r})")
        self.max_rounds = int(max_rounds)
        if not _is_int(first_match) or int(first_match) < 0:
            raise ValueError(f"first_match must be a non-negative integer (got {first_match!r})")
        self.first_match = int(first_match)
        if self.first_match + self.matches - 1 > MAX_SEED:
            raise ValueError("first_match + matches must stay below 2**63")
        limit = numba.config.NUMBA_NUM_THREADS
        if threads is not None and (not _is_int(threads) or not 1 <= int(threads) <= limit):
            raise ValueError(f"threads must be an integer in 1..{limit} (got {threads!r})")
        self.threads = None if threads is None else int(threads)
        self.params = _seat_params(self.players, self.strategies, params)
        compiled = [s for s in self.strategies if s.compiled]
        if field is not None:
            # A tournament compiles its whole field once; each seating picks its slots.
            from strategies import resolve

            compiled += [s for s in (resolve(entry) for entry in field) if s.compiled]
        keys = [s.code_key for s in compiled]
        self.set_strategies = [compiled[i] for i in kernel_sets.set_order(keys)]
        self.python_seats = [seat for seat, s in enumerate(self.strategies) if not s.compiled]
        self.n_entities = int(K.N_ENTITIES[self.players])
        self.entities = [int(e) for e in K.ENTITY_OF_SEAT[self.players, : self.players]]
        self.own_set = own_set or bool(self.python_seats)
        self._engine = None

    @property
    def engine(self) -> kernel_sets.EngineSet:
        """The compiled engine of this run: its own set of compiled strategies, or, when that
        was never compiled, a cached engine holding them among others (runs with Python
        seats and the study kernels always use their own set)."""
        if self._engine is None:
            refresh_strategy_caches(self.set_strategies)
            engine = kernel_sets.engine_for(
                [s.choose for s in self.set_strategies],
                [s.code_key for s in self.set_strategies],
                [s.name for s in self.set_strategies],
            )
            if not self.own_set and not (engine.is_compiled() or engine.is_cached()):
                engine = kernel_sets.cached_superset(engine.code_keys, self.known_strategies()) or engine
            announce_compile(engine)
            self._engine = engine
        return self._engine

    def known_strategies(self) -> dict:
        """``code_key -> (function, name)`` of every compiled strategy this process can supply."""
        from strategies import builtins

        known = {s.code_key: (s.choose, s.name) for s in builtins().values()}
        known.update({s.code_key: (s.choose, s.name) for s in self.set_strategies})
        return known

    @functools.cached_property
    def strategy_ids(self) -> np.ndarray:
        """int64[players]: each seat's slot in :attr:`engine` (``EXTERNAL_SEAT`` for a Python seat)."""
        keys = self.engine.code_keys
        return np.array([keys.index(s.code_key) if s.compiled else K.EXTERNAL_SEAT
                         for s in self.strategies], dtype=np.int64)

    def slot_name(self, slot: int) -> str:
        """The strategy name of ``slot`` of :attr:`engine`, as this run calls it."""
        key = self.engine.code_keys[slot]
        return next((s.name for s in self.strategies if s.compiled and s.code_key == key),
                    self.engine.names[slot])


def announce_compile(engine: kernel_sets.EngineSet) -> None:
    """Say on stderr that the engine is being compiled, when it is not in the disk cache."""
    if engine.is_compiled() or engine.is_cached():
        return
    names = ", ".join(engine.names) or "Python strategies only"
    print(f"compiling the engine for {names} (first run only) ...", file=sys.stderr, flush=True)


def _seat_params(players: int, infos: list, params) -> np.ndarray:
    """float64[players, P] parameter rows (see ``params`` in :func:`simulate`)."""
    width = max([1] + [len(info.parameters) for info in infos])
    rows = np.zeros((players, width), dtype=np.float64)
    for seat, info in enumerate(infos):
        defaults = info.default_params()
        rows[seat, : defaults.size] = defaults
    if params is None:
        return rows
    if isinstance(params, (str, bytes, dict)) or not isinstance(params, (Sequence, np.ndarray)):
        raise ValueError("params must be a list with one entry per seat (None, a dict or a list of numbers)")
    entries = list(params)
    if players == 4 and len(entries) == 2:
        entries = [entries[0], entries[1], entries[0], entries[1]]
    if len(entries) != players:
        expected = "4 (one per seat) or 2 (one per partnership)" if players == 4 else str(players)
        raise ValueError(f"{players} players need {expected} params entries, got {len(entries)}")
    for seat, (info, entry) in enumerate(zip(infos, entries)):
        names = [p.name for p in info.parameters]
        if entry is None:
            continue
        if isinstance(entry, dict):
            for key, value in entry.items():
                if key not in names:
                    known = ", ".join(names) or "none"
                    raise ValueError(f"seat {seat} ({info.name}): unknown parameter {key!r} (known: {known})")
                rows[seat, names.index(key)] = _finite(value, info.name, key)
            continue
        values = np.asarray(entry, dtype=object).ravel()
        if values.size != len(names):
            raise ValueError(
                f"seat {seat} ({info.name}): expected {len(names)} parameter values "
                f"({', '.join(names) or 'none'}), got {values.size}"
            )
        for index, value in enumerate(values):
            rows[seat, index] = _finite(value, info.name, names[index])
    return rows


def _finite(value, strategy: str, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{strategy}: parameter {name} must be a number (got {value!r})")
    if not np.isfinite(value):
        raise ValueError(f"{strategy}: parameter {name} must be finite (got {value!r})")
    return float(value)


_POOLS: dict[int, ThreadPoolExecutor] = {}


def run_blocks(play: Callable[[int, int], None], count: int, threads: int) -> None:
    """Call ``play(start, stop)`` over contiguous blocks covering ``0 .. count - 1``, on
    ``threads`` threads.

    ``play`` is a GIL-free kernel writing only its own rows, so the blocks run
    truly in parallel and the result does not depend on the split or the
    order; several blocks per thread balance uneven matches. An exception in
    a block is raised here.
    """
    blocks = max(1, min(count, threads * BLOCKS_PER_THREAD))
    bounds = [(b * count // blocks, (b + 1) * count // blocks) for b in range(blocks)]
    if threads <= 1 or blocks == 1:
        for start, stop in bounds:
            play(start, stop)
        return
    pool = _POOLS.get(threads)
    if pool is None:
        pool = _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="five-up")
    for future in [pool.submit(play, start, stop) for start, stop in bounds]:
        future.result()


@contextmanager
def _thread_count(threads: int | None):
    """Run with ``threads`` Numba threads, restoring the previous count after."""
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(threads)
    try:
        yield numba.get_num_threads()
    finally:
        numba.set_num_threads(previous)


# ---------------------------------------------------------------------------
# Kernel calls
# ---------------------------------------------------------------------------
_NO_OFFSETS = np.zeros(0, dtype=np.int64)
_NO_ANSWERS = np.zeros((0, K.ANSWER_FIELDS), dtype=np.int64)


def _empty(width: int, dtype) -> np.ndarray:
    return np.zeros((0, width), dtype=dtype)


def _run_kernel(
    setup: _Setup,
    first: int,
    stats: np.ndarray,
    scores: np.ndarray,
    threads: int,
    round_offsets=_NO_OFFSETS,
    round_rows=None,
    round_deals=None,
    action_offsets=_NO_OFFSETS,
    actions=None,
    event_offsets=_NO_OFFSETS,
    events=None,
) -> None:
    """One call of the batch kernel for matches ``first .. first + len(stats) - 1``."""
    arrays = (
        stats,
        scores,
        round_offsets,
        _empty(K.ROUND_FIELDS, np.int32) if round_rows is None else round_rows,
        _empty(N_TILES, np.int8) if round_deals is None else round_deals,
        action_offsets,
        _empty(K.ACTION_FIELDS, np.int16) if actions is None else actions,
        event_offsets,
        _empty(K.EVENT_FIELDS, np.int32) if events is None else events,
    )
    if setup.python_seats:
        from sim.python_seats import answers_for

        answer_arrays = answers_for(setup, first, stats.shape[0])
    else:
        answer_arrays = (_NO_OFFSETS, _NO_ANSWERS)
    fixed = (np.int64(setup.seed), np.int64(first), np.int64(setup.players), setup.strategy_ids,
             setup.params, np.int64(setup.max_rounds))
    batch = setup.engine.simulate_batch
    run_blocks(lambda start, stop: batch(*fixed, np.int64(start), np.int64(stop), *arrays, *answer_arrays),
               stats.shape[0], threads)
    errors = stats[:, K.M_ERROR]
    if errors.any():
        row = int(np.flatnonzero(errors)[0])
        raise RuntimeError(_error_text(setup, int(errors[row]), first + row))


def _error_text(setup: _Setup, code: int, match: int) -> str:
    """What went wrong in a match whose ``M_ERROR`` is ``code`` (one line)."""
    if code == UNANSWERED_ERROR:
        return f"match {match} needed a Python seat's choice that was not recorded (engine bug)"
    slot = code - 1
    name = setup.slot_name(slot)
    ids = setup.strategy_ids
    seats = [seat for seat in range(setup.players) if ids[seat] == slot]
    where = "seat " + ",".join(map(str, seats))
    return f"strategy {name!r} ({where}) returned a row that is not one of its candidates in match {match}"


def _offsets(counts: np.ndarray) -> np.ndarray:
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def _progress_bar(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="match", unit_scale=True, file=sys.stderr, disable=not enabled,
                smoothing=0.1, dynamic_ncols=True)


def _chunks(setup: _Setup, threads: int, chunk_size: int | None):
    size = chunk_size if chunk_size is not None else DEFAULT_CHUNK_PER_THREAD * threads
    if not _is_int(size) or size < 1:
        raise ValueError(f"chunk_size must be a positive integer (got {chunk_size!r})")
    for start in range(0, setup.matches, int(size)):
        yield start, min(setup.matches, start + int(size))


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------
def simulate(
    players: int,
    strategies,
    matches: int,
    seed: int,
    threads: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    first_match: int = 0,
    progress: bool = False,
    chunk_size: int | None = None,
    params=None,
    field=None,
) -> pd.DataFrame:
    """Simulate complete matches; one frame row per match.

    Parameters
    ----------
    players : int
        2, 3 or 4.
    strategies : str or sequence of str
        One name per seat, or with 4 players two names for the partnerships
        (seats 0,2 and 1,3). See :mod:`strategies`.
    matches : int
        Number of matches (> 0).
    seed : int
        Master seed, ``0 <= seed < 2**63``.
    threads : int, optional
        Numba threads for this call (restored afterwards); default the current
        count (``NUMBA_NUM_THREADS``).
    max_rounds : int
        Ruling 15: a match still running after this many rounds is unfinished.
    first_match : int
        Global index of the first match: ``simulate(..., matches=m,
        first_match=f)`` returns rows ``f .. f+m-1`` of a larger run, identical
        to those rows of the larger run.
    progress : bool
        Show a tqdm bar with matches/s on stderr.
    chunk_size : int, optional
        Matches per kernel call (progress granularity, memory of the call).
        Results do not depend on it.
    params : sequence, optional
        Strategy parameters per seat (with 4 players: 4 entries, or 2 for the
        partnerships). Each entry is ``None`` (the strategy's defaults), a
        dict ``{parameter name: value}`` overriding some defaults, or a
        sequence of numbers giving every parameter in order (see ``five-up
        strategies``). The values reach the compiled kernel as a float64
        array, so changing them never recompiles.
    field : sequence, optional
        More strategies (specs or Strategy objects) to compile into the same
        kernel as this run's: a tournament passes its whole field, so that
        every seating reuses one compiled kernel. Results do not depend on it.

    Returns
    -------
    pandas.DataFrame
        Columns in the module docstring, ``matches`` rows.

    Raises
    ------
    ValueError
        Invalid arguments (the message says which and why).
    """
    setup = _Setup(players, strategies, matches, seed, max_rounds, first_match, threads, params, field)
    stats = np.zeros((setup.matches, K.MATCH_FIELDS), dtype=np.int32)
    scores = np.zeros((setup.matches, K.MAX_ENTITIES), dtype=np.int32)
    with _thread_count(setup.threads) as active, _progress_bar(setup.matches, progress) as bar:
        for start, stop in _chunks(setup, active, chunk_size):
            _run_kernel(setup, setup.first_match + start, stats[start:stop], scores[start:stop], active)
            bar.update(stop - start)
    return _match_frame(setup, stats, scores)


def _category(codes: np.ndarray, categories: list[str]) -> pd.Categorical:
    return pd.Categorical.from_codes(codes.astype(np.int16, copy=False), categories=categories)


def _match_frame(setup: _Setup, stats: np.ndarray, scores: np.ndarray) -> pd.DataFrame:
    n = setup.matches
    columns: dict[str, object] = {
        "match": np.arange(setup.first_match, setup.first_match + n, dtype=np.int64),
        "seed": np.full(n, setup.seed, dtype=np.int64),
        "players": np.full(n, setup.players, dtype=np.int8),
    }
    for seat, name in enumerate(setup.names):
        columns[f"strategy_{seat}"] = _category(np.zeros(n, dtype=np.int16), [name])
    columns["winner"] = stats[:, K.M_WINNER].astype(np.int8)
    for entity in range(setup.n_entities):
        columns[f"score_{entity}"] = scores[:, entity].copy()
    for column, field in (
        ("rounds", K.M_ROUNDS),
        ("placements", K.M_PLACEMENTS),
        ("draws", K.M_DRAWS),
        ("passes", K.M_PASSES),
        ("domino_rounds", K.M_DOMINO_ROUNDS),
        ("blocked_rounds", K.M_BLOCKED_ROUNDS),
        ("events_accepted", K.M_EVENTS_ACCEPTED),
        ("events_discarded", K.M_EVENTS_DISCARDED),
        ("raw_discarded", K.M_RAW_DISCARDED),
        ("placement_raw", K.M_PLACEMENT_RAW),
        ("domino_credit", K.M_DOMINO_CREDIT),
        ("domino_debit", K.M_DOMINO_DEBIT),
        ("blocked_credit", K.M_BLOCKED_CREDIT),
    ):
        columns[column] = stats[:, field].copy()
    for entity in range(setup.n_entities):
        columns[f"events_discarded_{entity}"] = stats[:, K.M_DISCARDED_BY + entity].copy()
    for entity in range(setup.n_entities):
        columns[f"settlement_raw_{entity}"] = stats[:, K.M_SETTLED_BY + entity].copy()
    columns["first_leader"] = stats[:, K.M_FIRST_LEADER].astype(np.int8)
    columns["first_opening"] = _category(stats[:, K.M_FIRST_OPENING], TILE_NAMES)
    return pd.DataFrame(columns)


def _traced_run(setup: _Setup, start: int, stop: int, threads: int, want_actions: bool):
    """Two kernel passes over one chunk: count, then trace into exact-size arrays."""
    count = stop - start
    first = setup.first_match + start
    stats = np.zeros((count, K.MATCH_FIELDS), dtype=np.int32)
    scores = np.zeros((count, K.MAX_ENTITIES), dtype=np.int32)
    _run_kernel(setup, first, stats, scores, threads)
    round_offsets = _offsets(stats[:, K.M_ROUNDS])
    round_rows = np.zeros((round_offsets[-1], K.ROUND_FIELDS), dtype=np.int32)
    round_deals = np.zeros((round_offsets[-1] if want_actions else 0, N_TILES), dtype=np.int8)
    trace = {}
    if want_actions:
        action_offsets = _offsets(stats[:, K.M_ACTIONS])
        event_offsets = _offsets(stats[:, K.M_EVENTS])
        trace = {
            "action_offsets": action_offsets,
            "actions": np.zeros((action_offsets[-1], K.ACTION_FIELDS), dtype=np.int16),
            "event_offsets": event_offsets,
            "events": np.zeros((event_offsets[-1], K.EVENT_FIELDS), dtype=np.int32),
        }
    stats_again = np.zeros_like(stats)
    scores_again = np.zeros_like(scores)
    _run_kernel(
        setup, first, stats_again, scores_again, threads,
        round_offsets=round_offsets, round_rows=round_rows, round_deals=round_deals, **trace,
    )
    if not (np.array_equal(stats, stats_again) and np.array_equal(scores, scores_again)):
        raise RuntimeError("engine is not deterministic: a traced pass differs from its count pass")
    return stats, scores, round_offsets, round_rows, round_deals, trace


def simulate_rounds(
    players: int,
    strategies,
    matches: int,
    seed: int,
    threads: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    first_match: int = 0,
    progress: bool = False,
    chunk_size: int | None = None,
    params=None,
    field=None,
) -> pd.DataFrame:
    """Simulate matches and return one row per round played.

    Arguments as :func:`simulate`; the matches are the same ones.

    Returns
    -------
    pandas.DataFrame
        ``match``, ``round`` (0-based), ``leader``, ``opening`` ("a-b"),
        ``opening_points``, ``end`` ("domino" / "blocked" / "target"),
        ``winner`` (round winner entity, -1 for none: a blocked tie or a
        target end), ``dominoer`` (-1 if none), ``placements``, ``draws``,
        ``passes``, ``events_accepted``, ``events_discarded``,
        ``raw_discarded``, ``placement_raw`` (accepted ordinary placement
        events), ``domino_placement``, ``domino_credit``, ``domino_debit``
        (components of the round's domino event), ``domino_accepted`` (1, 0,
        -1 no domino), ``blocked_credit`` (accepted), ``blocked_events``,
        ``raw_0..raw_{k-1}`` (accepted raw gained per entity this round),
        ``score_0..score_{k-1}`` (after the round), ``pips_0..pips_{n-1}``
        (pips left per seat at the end of the round).
    """
    setup = _Setup(players, strategies, matches, seed, max_rounds, first_match, threads, params, field)
    frames = []
    with _thread_count(setup.threads) as active, _progress_bar(setup.matches, progress) as bar:
        for start, stop in _chunks(setup, active, chunk_size):
            stats, _, offsets, rows, _, _ = _traced_run(setup, start, stop, active, want_actions=False)
            frames.append(_round_frame(setup, setup.first_match + start, stats, offsets, rows))
            bar.update(stop - start)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _round_frame(setup: _Setup, first: int, stats, offsets, rows) -> pd.DataFrame:
    rounds_per_match = stats[:, K.M_ROUNDS].astype(np.int64)
    match_index = np.repeat(np.arange(first, first + len(stats), dtype=np.int64), rounds_per_match)
    round_index = np.arange(rows.shape[0], dtype=np.int64) - np.repeat(offsets[:-1], rounds_per_match)
    columns: dict[str, object] = {
        "match": match_index,
        "round": round_index.astype(np.int32),
        "leader": rows[:, K.R_LEADER].astype(np.int8),
        "opening": _category(rows[:, K.R_OPENING_TILE], TILE_NAMES),
        "opening_points": rows[:, K.R_OPENING_POINTS],
        "end": _category(rows[:, K.R_END], [END_NAMES[k] for k in sorted(END_NAMES)]),
        "winner": rows[:, K.R_WINNER].astype(np.int8),
        "dominoer": rows[:, K.R_DOMINOER].astype(np.int8),
    }
    for column, field in (
        ("placements", K.R_PLACEMENTS),
        ("draws", K.R_DRAWS),
        ("passes", K.R_PASSES),
        ("events_accepted", K.R_EVENTS_ACCEPTED),
        ("events_discarded", K.R_EVENTS_DISCARDED),
        ("raw_discarded", K.R_RAW_DISCARDED),
        ("placement_raw", K.R_PLACEMENT_RAW),
        ("domino_placement", K.R_DOMINO_PLACEMENT),
        ("domino_credit", K.R_DOMINO_CREDIT),
        ("domino_debit", K.R_DOMINO_DEBIT),
    ):
        columns[column] = rows[:, field]
    columns["domino_accepted"] = rows[:, K.R_DOMINO_ACCEPTED].astype(np.int8)
    columns["blocked_credit"] = rows[:, K.R_BLOCKED_CREDIT]
    columns["blocked_events"] = rows[:, K.R_BLOCKED_EVENTS]
    for entity in range(setup.n_entities):
        columns[f"raw_{entity}"] = rows[:, K.R_GAIN + entity]
    for entity in range(setup.n_entities):
        columns[f"score_{entity}"] = rows[:, K.R_SCORE + entity]
    for seat in range(setup.players):
        columns[f"pips_{seat}"] = rows[:, K.R_PIPS + seat]
    return pd.DataFrame(columns)


def record(
    players: int,
    strategies,
    matches: int,
    seed: int,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    first_match: int = 0,
    threads: int | None = None,
    chunk_size: int | None = None,
    params=None,
    field=None,
) -> list[dict]:
    """Simulate matches and return them as exact61-record/1 match objects.

    The matches are the very ones :func:`simulate` plays for the same
    arguments. Each object carries the extra match-level key ``"max_rounds"``.

    Returns
    -------
    list of dict
        One JSON-ready dict per match, in match order.
    """
    setup = _Setup(players, strategies, matches, seed, max_rounds, first_match, threads, params, field)
    records: list[dict] = []
    with _thread_count(setup.threads) as active:
        size = chunk_size if chunk_size is not None else 1024 * active
        for start, stop in _chunks(setup, active, size):
            stats, scores, round_offsets, rows, deals, trace = _traced_run(
                setup, start, stop, active, want_actions=True
            )
            for row in range(stop - start):
                records.append(
                    _match_record(
                        setup,
                        setup.first_match + start + row,
                        stats[row],
                        scores[row],
                        rows[round_offsets[row] : round_offsets[row + 1]],
                        deals[round_offsets[row] : round_offsets[row + 1]],
                        trace["actions"][trace["action_offsets"][row] : trace["action_offsets"][row + 1]],
                        trace["events"][trace["event_offsets"][row] : trace["event_offsets"][row + 1]],
                    )
                )
    return records


_TILE_PAIRS = [[low, high] for low, high in TILES]


def _match_record(setup: _Setup, match: int, stats, scores, rounds, deals, actions, events) -> dict:
    players = setup.players
    n_entities = setup.n_entities
    action_rows = actions.tolist()
    event_rows = events.tolist()
    round_objects = []
    action_cursor = 0
    event_cursor = 0
    for info, deal in zip(rounds.tolist(), deals.tolist()):
        n_actions = info[K.R_ACTIONS]
        n_events = info[K.R_EVENTS]
        round_actions = [
            _action_object(row) for row in action_rows[action_cursor : action_cursor + n_actions]
        ]
        round_events = [_event_object(row) for row in event_rows[event_cursor : event_cursor + n_events]]
        action_cursor += n_actions
        event_cursor += n_events
        winner = info[K.R_WINNER]
        round_objects.append(
            {
                "leader": info[K.R_LEADER],
                "hands": [
                    [_TILE_PAIRS[t] for t in deal[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]]
                    for seat in range(players)
                ],
                "boneyard": [_TILE_PAIRS[t] for t in deal[players * HAND_SIZE :]],
                "actions": round_actions,
                "events": round_events,
                "end": END_NAMES[info[K.R_END]],
                "winner": None if winner == K.NO_ENTITY else winner,
                "scores": info[K.R_SCORE : K.R_SCORE + n_entities],
            }
        )
    if action_cursor != len(action_rows) or event_cursor != len(event_rows):
        raise RuntimeError(f"trace of match {match} does not add up")
    winner = int(stats[K.M_WINNER])
    return {
        "format": FORMAT,
        "players": players,
        "entities": list(setup.entities),
        "strategies": list(setup.names),
        "seed": setup.seed,
        "match": match,
        "rounds": round_objects,
        "winner": None if winner == K.NO_ENTITY else winner,
        "scores": [int(s) for s in scores[:n_entities]],
        "max_rounds": setup.max_rounds,
    }


def _action_object(row: list[int]) -> dict:
    seat = row[K.A_SEAT]
    kind = row[K.A_KIND]
    tile = row[K.A_TILE]
    if kind == K.ACTION_DRAW:
        return {"seat": seat, "type": "draw", "tile": list(_TILE_PAIRS[tile])}
    if kind == K.ACTION_PASS:
        return {"seat": seat, "type": "pass"}
    parent = row[K.A_PARENT]
    joined = row[K.A_JOINED]
    if parent == K.NO_PARENT:
        halves = list(_TILE_PAIRS[tile])
    else:
        halves = [joined, int(K.TILE_PIPS[tile]) - joined]
    return {
        "seat": seat,
        "type": "play",
        "tile": halves,
        "parent": None if parent == K.NO_PARENT else parent,
        "side": SIDE_NAMES[row[K.A_SIDE]],
        "points": row[K.A_POINTS],
    }


def _event_object(row: list[int]) -> dict:
    kind = row[K.E_KIND]
    accepted = bool(row[K.E_ACCEPTED])
    if kind == K.EVENT_PLACEMENT:
        return {
            "entity": row[K.E_ENTITY],
            "kind": "placement",
            "action": row[K.E_ACTION],
            "raw": row[K.E_RAW],
            "accepted": accepted,
        }
    if kind == K.EVENT_DOMINO:
        return {
            "entity": row[K.E_ENTITY],
            "kind": "domino",
            "seat": row[K.E_SEAT],
            "placement": row[K.E_PLACEMENT],
            "credit": row[K.E_CREDIT],
            "debit": row[K.E_DEBIT],
            "raw": row[K.E_RAW],
            "accepted": accepted,
        }
    return {
        "entity": row[K.E_ENTITY],
        "kind": "blocked",
        "seat": row[K.E_SEAT],
        "raw": row[K.E_RAW],
        "accepted": accepted,
    }

