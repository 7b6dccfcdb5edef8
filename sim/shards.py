"""Sharded, resumable runs: shard plans, atomic shard files, manifests, aggregates.

A long run is cut into **shards** identified by ``(seed, first match, count)``
(plus a ``part`` number when one run holds several sub-runs, e.g. the seatings
of a tournament). Because the engine plays match ``i`` from ``(seed, i)`` and
the strategies only, the shards of a run concatenated in plan order are, row
for row, the frame of the unsharded run, whatever the shard size, the backend
(:mod:`sim.backends`) or the order in which shards finish.

Durable output
--------------
With a :class:`ShardStore`, every finished shard is written into the store's
directory as it arrives, atomically (a temporary file in the same directory,
fsync, then :func:`os.replace`): ``shard-p<part>-s<seed>-m<first>-n<count>``
``.parquet`` (the frame) or ``.json`` (its aggregate in summary-only mode).
``manifest.json`` holds the run's configuration (job, its arguments, match
range, shard size, mode). Opening a store on a directory whose manifest
differs raises :class:`ShardError` (one line: which setting changed) -- shards
of two runs are never mixed. Re-running the same run resumes: shards already
on disk are not recomputed (they count as done in the progress bar) and the
final result equals that of an uninterrupted run. A lock file keeps two live
processes out of one directory; a killed process's lock dies with it.

Summary-only mode
-----------------
With an ``aggregate`` function each shard's frame is reduced on the worker to
a small JSON-ready dict of additive quantities (counts, sums, sums of squares,
histograms as ``{value: count}``); the driver keeps only the running sum
(:func:`merge_aggregates`), so memory does not grow with the match count.
:func:`match_aggregate` / :func:`summary_table` do this for engine frames.

How an experiment plugs in
--------------------------
1. Write a **module-level** job (picklable by reference, importable on the
   workers)::

       def my_job(first_match: int, count: int, *, threads=None, **config) -> pd.DataFrame:
           # rows for matches first_match .. first_match + count - 1 (one per
           # match, per round, ...: any number), a pure function of
           # (config, first_match, count)
           frame = sim.simulate(config["players"], config["strategies"], count,
                                config["seed"], threads=threads, first_match=first_match)
           ...  # add columns, reshape per match
           return frame

   ``threads`` is the Numba thread count for this shard (the backend chooses:
   all threads locally, 1 per task on dask); ``config`` must be JSON-ready
   (it is written to the manifest and compared on resume). Strategies travel
   as spec strings (:func:`strategies.catalogue.spec_of`: a built-in name,
   ``MODULE:NAME``, ``FILE.py:NAME``), never as objects: a dask worker
   resolves the spec by importing the module, so the module must be
   importable there; record each strategy's ``code_key`` in the manifest so
   that a changed strategy is not resumed.
2. Optionally an aggregate ``my_aggregate(frame) -> dict`` of additive,
   preferably integer, quantities (integers make the merged result independent
   of completion order) with string keys.
3. Plan tasks and run them::

       tasks = [Task(shard, config) for shard in plan(matches, shard_size, seed)]
       # several sub-runs: plan(..., part=k) with its own config per part
       store = ShardStore(out_dir / "shards", {"kind": "my-study", "config": ...},
                          mode="summary" if summary_only else "frames").open()
       with open_backend("dask", scheduler=addr) as backend:
           run = run_shards(my_job, tasks, backend=backend, store=store,
                            aggregate=my_aggregate if summary_only else None, progress=True)
       frame = run.frame()          # frames mode: the shards in plan order
       totals = run.aggregate       # summary mode: the merged aggregate
       store.close()                # store.remove() once the final output is written

   :func:`simulate_job` (below), ``experiments.tournament_shards`` and
   ``experiments.sources`` (jobs returning several tables: a store with
   ``tables=``) are worked examples; :mod:`sim.backends` adds the
   ``--backend ...`` options.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "DEFAULT_SHARD_SIZE",
    "FORMAT",
    "Shard",
    "ShardError",
    "ShardRun",
    "ShardStore",
    "Task",
    "canonical",
    "execute_shard",
    "match_aggregate",
    "merge_aggregates",
    "plan",
    "run_shards",
    "simulate_job",
    "simulate_sharded",
    "summary_table",
]

FORMAT = "exact61-shards/1"
DEFAULT_SHARD_SIZE = 50_000
"""Matches per shard: about 5 MB of frame, 1-2 s of one core."""
MANIFEST_NAME = "manifest.json"
LOCK_NAME = ".lock"
MODES = ("frames", "summary")
_SHARD_FILE = re.compile(r"^shard-p\d+-s\d+-m\d+-n\d+(\.[a-z][a-z0-9_]*)?\.(parquet|json)$")
_TABLE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_TEMP_FILE = re.compile(r"^\.shard-.*\.tmp$|^\.manifest\.json\..*\.tmp$")


class ShardError(ValueError):
    """A shard directory cannot be used (another run's shards, unreadable, in use)."""


# ---------------------------------------------------------------------------
# Plans
# ---------------------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Shard:
    """Matches ``first_match .. first_match + count - 1`` of seed ``seed`` (sub-run ``part``)."""

    part: int
    seed: int
    first_match: int
    count: int

    @property
    def name(self) -> str:
        return f"shard-p{self.part:04d}-s{self.seed}-m{self.first_match:012d}-n{self.count}"


@dataclass(frozen=True)
class Task:
    """A shard and the job arguments that define its rows (besides the match range)."""

    shard: Shard
    config: dict


def plan(matches: int, shard_size: int, seed: int, first_match: int = 0, part: int = 0) -> list[Shard]:
    """Cut ``matches`` matches starting at ``first_match`` into shards of ``shard_size``."""
    if matches < 1 or shard_size < 1:
        raise ValueError("matches and shard_size must be positive")
    return [Shard(part, int(seed), first_match + start, min(shard_size, matches - start))
            for start in range(0, matches, shard_size)]


# ---------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------
def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def canonical(value):
    """``value`` as it reads back from JSON (tuples become lists, keys strings, numpy plain)."""
    return json.loads(json.dumps(value, sort_keys=True, default=_json_default))


def _diff(old, new, path: str = "") -> str | None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(new) + [k for k in old if k not in new]:
            found = _diff(old.get(key), new.get(key), key)
            if found:
                return found
        return None
    if old != new:
        return f"{path or 'settings'} was {json.dumps(old)}, now {json.dumps(new)}"
    return None


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """``write(temporary)``, fsync, then rename over ``path`` (same directory)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(path.parent)


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------
class ShardStore:
    """A directory of finished shards plus the manifest of the run they belong to.

    Parameters
    ----------
    directory : path
        Created on :meth:`open` (with parents).
    manifest : dict
        JSON-ready configuration of the run: everything the results depend on.
    mode : {"frames", "summary"}
        Shards hold frames (Parquet) or aggregates (JSON).
    tables : sequence of str, optional
        Frames mode for a job returning several tables (a dict ``name ->
        DataFrame``, e.g. matches, events, paths): each shard is one file per
        table, ``<shard>.<table>.parquet``, and counts as finished once every
        table's file is there (each is written atomically, so a kill between
        two leaves an unfinished shard that is simply recomputed).
    """

    def __init__(self, directory, manifest: dict, mode: str = "frames",
                 tables: Sequence[str] | None = None):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        if tables is not None:
            tables = tuple(tables)
            if mode != "frames" or not tables or len(set(tables)) != len(tables) or \
                    not all(isinstance(t, str) and _TABLE_NAME.match(t) for t in tables):
                raise ValueError("tables must be distinct lower-case names, in frames mode")
        self.directory = Path(directory)
        self.mode = mode
        self.tables = tables
        extra = {"tables": list(tables)} if tables is not None else {}
        self.manifest = canonical({"format": FORMAT, "mode": mode, **extra, **manifest})
        self.suffix = ".parquet" if mode == "frames" else ".json"
        self._lock = None

    # -- opening -------------------------------------------------------------
    def check(self) -> int:
        """Refuse a directory holding another run (:class:`ShardError`); no side effects.

        Returns the number of shard files already there (one per table in a store
        of several tables).
        """
        d = self.directory
        if not d.exists():
            return 0
        if not d.is_dir():
            raise ShardError(f"{d} exists and is not a directory")
        manifest = d / MANIFEST_NAME
        names = [p.name for p in d.iterdir()]
        if not manifest.exists():
            foreign = [n for n in names if n != LOCK_NAME and not _TEMP_FILE.match(n)]
            if foreign:
                raise ShardError(f"{d} holds files but no {MANIFEST_NAME}: choose another output "
                                 "or remove that directory")
            return 0
        try:
            previous = json.loads(manifest.read_text())
        except (OSError, ValueError):
            raise ShardError(f"{manifest} is unreadable: remove {d} to start afresh") from None
        difference = _diff(previous, self.manifest)
        if difference:
            raise ShardError(f"{d} holds shards of a different run ({difference}): rerun that "
                             f"command to resume it, or remove {d}")
        return sum(1 for n in names if _SHARD_FILE.match(n))

    def open(self) -> ShardStore:
        """Check, create, lock, write the manifest if new, drop stale temporary files."""
        self.check()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._acquire_lock()
        try:
            self.check()  # again under the lock
            manifest = self.directory / MANIFEST_NAME
            if not manifest.exists():
                atomic_write(manifest, lambda p: p.write_text(
                    json.dumps(self.manifest, indent=2, sort_keys=True) + "\n"))
            for entry in self.directory.iterdir():
                if _TEMP_FILE.match(entry.name):
                    try:
                        entry.unlink()
                    except OSError:
                        pass
        except BaseException:
            self.close()
            raise
        return self

    def _acquire_lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock
            return
        handle = open(self.directory / LOCK_NAME, "a")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise ShardError(f"{self.directory} is in use by another running process") from None
        self._lock = handle

    def close(self) -> None:
        """Release the lock (the files stay)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def remove(self) -> None:
        """Delete the shard files, the manifest and the directory (if nothing else is in it)."""
        d = self.directory
        if d.is_dir():
            for entry in d.iterdir():
                if _SHARD_FILE.match(entry.name) or _TEMP_FILE.match(entry.name) or \
                        entry.name == MANIFEST_NAME:
                    entry.unlink()
        self.close()
        try:
            (d / LOCK_NAME).unlink()
        except FileNotFoundError:
            pass
        try:
            d.rmdir()
        except OSError:
            pass

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- shards --------------------------------------------------------------
    def path(self, shard: Shard, table: str | None = None) -> Path:
        """The shard's file (of ``table``, for a store of several tables)."""
        if (table is None) != (self.tables is None):
            raise ValueError("a table name is needed exactly when the store has tables")
        middle = "" if table is None else f".{table}"
        return self.directory / (shard.name + middle + self.suffix)

    def has(self, shard: Shard) -> bool:
        if self.tables is None:
            return self.path(shard).is_file()
        return all(self.path(shard, t).is_file() for t in self.tables)

    def write(self, shard: Shard, result) -> None:
        if self.tables is not None:
            if not isinstance(result, dict) or set(result) != set(self.tables):
                found = sorted(result) if isinstance(result, dict) else type(result).__name__
                raise ValueError(f"the job must return the tables {list(self.tables)}, "
                                 f"found {found}")
            for table in self.tables:  # the last file written completes the shard
                frame = result[table]
                atomic_write(self.path(shard, table),
                             lambda p, f=frame: f.to_parquet(p, engine="pyarrow", index=False))
        elif self.mode == "frames":
            atomic_write(self.path(shard),
                         lambda p: result.to_parquet(p, engine="pyarrow", index=False))
        else:
            text = json.dumps(result, sort_keys=True, default=_json_default)
            atomic_write(self.path(shard), lambda p: p.write_text(text))

    def read(self, shard: Shard):
        if self.tables is not None:
            return {t: pd.read_parquet(self.path(shard, t), engine="pyarrow") for t in self.tables}
        path = self.path(shard)
        if self.mode == "frames":
            return pd.read_parquet(path, engine="pyarrow")
        return json.loads(path.read_text())


# ---------------------------------------------------------------------------
# Aggregates
# ---------------------------------------------------------------------------
def merge_aggregates(a, b):
    """Sum two aggregates: numbers add, dicts merge by key, lists elementwise, equal strings stay."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        return {key: merge_aggregates(a.get(key), b.get(key)) for key in {**a, **b}}
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            raise ValueError("cannot merge lists of different lengths")
        return [merge_aggregates(x, y) for x, y in zip(a, b)]
    if isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
        if a != b:
            raise ValueError(f"cannot merge {a!r} and {b!r}")
        return a
    return a + b


_NOT_SUMMED = {"match", "seed", "players", "winner", "first_leader"}
_HISTOGRAMS = ("winner", "first_leader", "rounds")


def _histogram(values) -> dict:
    keys, counts = np.unique(np.asarray(values), return_counts=True)
    return {str(k): int(c) for k, c in zip(keys.tolist(), counts.tolist())}


def match_aggregate(frame: pd.DataFrame) -> dict:
    """Additive summary of an engine frame (:func:`sim.simulate` columns).

    Returns
    -------
    dict
        ``matches``; ``sum`` and ``sum_sq`` (exact integers) of every integer
        column except the identifiers (``match, seed, players, winner,
        first_leader``); ``hist``: ``{value: count}`` of ``winner`` (entity,
        -1 unfinished), ``first_leader``, ``rounds``, every ``score_<e>`` and
        ``first_opening``.
    """
    sums, squares = {}, {}
    for column in frame.columns:
        series = frame[column]
        if column in _NOT_SUMMED or not pd.api.types.is_integer_dtype(series.dtype):
            continue
        x = series.to_numpy(dtype=np.int64)
        sums[column] = int(x.sum())
        squares[column] = int(np.dot(x, x))
    hist = {c: _histogram(frame[c].to_numpy()) for c in _HISTOGRAMS if c in frame.columns}
    for column in frame.columns:
        if column.startswith("score_"):
            hist[column] = _histogram(frame[column].to_numpy())
    if "first_opening" in frame.columns:
        counts = frame["first_opening"].astype(str).value_counts()
        hist["first_opening"] = {str(k): int(v) for k, v in counts.items()}
    return {"matches": len(frame), "sum": sums, "sum_sq": squares, "hist": hist}


def _moments(n: int, total: int, total_sq) -> tuple[float, float, float]:
    mean = total / n if n else math.nan
    if n < 2:
        return mean, math.nan, math.nan
    # exact integer numerator: n * sum(x^2) - sum(x)^2
    var = (n * total_sq - total * total) / (n * (n - 1))
    std = math.sqrt(max(var, 0.0))
    return mean, std, std / math.sqrt(n)


def summary_table(aggregate: dict) -> pd.DataFrame:
    """Per quantity: ``count, sum, sum_sq, mean, std, se, low, high`` from :func:`match_aggregate`.

    Rows ``win_<e>`` (entity ``e`` won) and ``unfinished`` are 0/1 indicators
    with 95% Wilson intervals; every summed column follows with a normal 95%
    interval of its mean.
    """
    from experiments.stats import Z95, wilson_interval

    n = int(aggregate["matches"])
    winners = {int(k): int(v) for k, v in aggregate["hist"].get("winner", {}).items()}
    entities = sorted(int(c.split("_")[1]) for c in aggregate["sum"] if re.fullmatch(r"score_\d+", c))
    rows = []
    for label, wins in [(f"win_{e}", winners.get(e, 0)) for e in entities] + \
                       [("unfinished", winners.get(-1, 0))]:
        mean, std, se = _moments(n, wins, wins)
        low, high = wilson_interval(np.array([wins]), np.array([n]))
        rows.append((label, n, wins, wins, mean, std, se, float(low[0]), float(high[0])))
    for column, total in aggregate["sum"].items():
        mean, std, se = _moments(n, int(total), int(aggregate["sum_sq"][column]))
        rows.append((column, n, int(total), int(aggregate["sum_sq"][column]), mean, std, se,
                     mean - Z95 * se, mean + Z95 * se))
    return pd.DataFrame(rows, columns=["quantity", "count", "sum", "sum_sq", "mean", "std", "se",
                                       "low", "high"])


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------
def execute_shard(job: Callable, first_match: int, count: int, config: dict,
                  threads: int | None = None, aggregate: Callable | None = None):
    """What a worker runs: ``job(first_match, count, threads=threads, **config)``, reduced by
    ``aggregate`` if given."""
    frame = job(first_match, count, threads=threads, **config)
    return frame if aggregate is None else aggregate(frame)


@dataclass
class ShardRun:
    """Outcome of :func:`run_shards`.

    Attributes
    ----------
    tasks : list of Task
    store : ShardStore or None
    aggregate : dict or None
        Summary mode: the merged aggregate of every shard.
    resumed, computed : int
        Shards found on disk / run now.
    resumed_matches : int
        Matches in the resumed shards.
    """

    tasks: list[Task]
    store: ShardStore | None
    aggregate: dict | None = None
    resumed: int = 0
    computed: int = 0
    resumed_matches: int = 0
    _frames: dict[int, pd.DataFrame] = field(default_factory=dict, repr=False)

    def iter_frames(self):
        """Shard frames in plan order (read from the store when there is one)."""
        for index, task in enumerate(self.tasks):
            if index in self._frames:
                yield self._frames[index]
            else:
                yield self.store.read(task.shard)

    def frame(self):
        """All shard frames concatenated in plan order (a dict of such frames, table by table,
        for a job returning several tables)."""
        frames = list(self.iter_frames())
        if frames and isinstance(frames[0], dict):
            return {name: _concat([f[name] for f in frames]) for name in frames[0]}
        return _concat(frames)


def _concat(frames: list) -> pd.DataFrame:
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def run_shards(job: Callable, tasks: Sequence[Task], *, backend=None, store: ShardStore | None = None,
               aggregate: Callable | None = None, threads: int | None = None,
               progress: bool = False, desc: str | None = None, bar=None) -> ShardRun:
    """Run every task's shard not already in ``store`` on ``backend``; see the module docstring.

    Parameters
    ----------
    job : callable
        Module-level ``job(first_match, count, *, threads=None, **config)`` returning a
        DataFrame (or a dict of them for a store with ``tables``).
    tasks : sequence of Task
        In plan order (the order of the final frame).
    backend : Backend or str, optional
        Default ``"local"``; an instance is used and left open.
    store : ShardStore, optional
        Opened store: finished shards are written there and skipped on resume.
    aggregate : callable, optional
        ``aggregate(frame) -> dict``: summary-only mode (the store's mode must
        be ``"summary"``).
    threads : int, optional
        Numba threads per shard; default the backend's choice.
    progress : bool
        tqdm bar over matches on stderr; resumed shards count as done.
    desc : str, optional
        The bar's label.
    bar : optional
        An existing bar (anything with ``update(n)``) to advance instead, e.g. one
        bar over several calls; resumed shards are added to it at once.
    """
    from sim.backends import open_backend

    tasks = list(tasks)
    if store is not None and (store.mode == "summary") != (aggregate is not None):
        raise ValueError("a summary store needs an aggregate function, a frames store none")
    run = ShardRun(tasks=tasks, store=store)
    pending = []
    for index, task in enumerate(tasks):
        if store is not None and store.has(task.shard):
            run.resumed += 1
            run.resumed_matches += task.shard.count
            if aggregate is not None:
                run.aggregate = merge_aggregates(run.aggregate, store.read(task.shard))
        else:
            pending.append(index)
    total = sum(t.shard.count for t in tasks)
    if run.resumed and progress:
        print(f"five-up: resuming from {store.directory}: {run.resumed} of {len(tasks)} shards "
              f"({run.resumed_matches} matches) already done", file=sys.stderr)
    owned = not hasattr(backend, "run")
    backend = open_backend(backend)
    if backend.name != "local" and pending:
        try:
            _check_portable([tasks[index].config for index in pending])
        except ValueError:
            if owned:
                backend.close()
            raise
    if threads is None:
        threads = backend.shard_threads
    own_bar = bar is None
    if own_bar:
        from tqdm import tqdm

        bar = tqdm(total=total, initial=run.resumed_matches, unit="match", unit_scale=True,
                   desc=desc, file=sys.stderr, disable=not progress, smoothing=0.1,
                   dynamic_ncols=True)
    elif run.resumed_matches:
        bar.update(run.resumed_matches)
    calls = ((index, {"job": job, "first_match": tasks[index].shard.first_match,
                      "count": tasks[index].shard.count, "config": tasks[index].config,
                      "threads": threads, "aggregate": aggregate})
             for index in pending)
    try:
        for index, result in backend.run(execute_shard, calls):
            shard = tasks[index].shard
            if aggregate is not None:
                result = canonical(result)
                run.aggregate = merge_aggregates(run.aggregate, result)
            if store is not None:
                store.write(shard, result)
            elif aggregate is None:
                run._frames[index] = result
            run.computed += 1
            bar.update(shard.count)
    finally:
        if own_bar:
            bar.close()
        if owned:
            backend.close()
    return run


def _session_specs(value):
    """The ``@session:`` strategy specs anywhere in a job config (strings, lists, dicts)."""
    from strategies.catalogue import SESSION_PREFIX

    if isinstance(value, str):
        return [value] if value.startswith(SESSION_PREFIX) else []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [spec for item in value for spec in _session_specs(item)]
    return []


def _check_portable(configs) -> None:
    """Refuse, before anything is submitted, strategies that exist only in this process
    (defined in a notebook or ``__main__``): another process cannot rebuild them."""
    from strategies.catalogue import SESSION_PREFIX, StrategyError

    for config in configs:
        found = _session_specs(config)
        if found:
            name = found[0][len(SESSION_PREFIX):].split("#")[0]
            raise StrategyError(
                f"strategy {name!r} was defined in a notebook or __main__ and runs only on the "
                "local backend: put it in a module or file importable by the workers and name "
                "it MODULE:NAME or FILE.py:NAME"
            )


# ---------------------------------------------------------------------------
# The engine's own job: sim.simulate in shards
# ---------------------------------------------------------------------------
def simulate_job(first_match: int, count: int, *, players: int, strategies, seed: int,
                 max_rounds: int | None = None, threads: int | None = None,
                 **engine_options) -> pd.DataFrame:
    """Matches ``first_match .. first_match + count - 1`` of :func:`sim.simulate`."""
    from sim.engine import simulate
    from sim.tiles import DEFAULT_MAX_ROUNDS

    return simulate(players, strategies, count, seed, threads=threads,
                    max_rounds=DEFAULT_MAX_ROUNDS if max_rounds is None else max_rounds,
                    first_match=first_match, **engine_options)


def simulate_manifest(players, strategies, matches, seed, max_rounds=None, first_match=0,
                      shard_size=DEFAULT_SHARD_SIZE, **engine_options) -> tuple[dict, list[Task]]:
    """Manifest and tasks of a sharded :func:`sim.simulate` run (arguments validated)."""
    from sim.engine import _Setup
    from sim.tiles import DEFAULT_MAX_ROUNDS

    max_rounds = DEFAULT_MAX_ROUNDS if max_rounds is None else max_rounds
    extra = {"params": engine_options["params"]} if "params" in engine_options else {}
    setup = _Setup(players, strategies, matches, seed, max_rounds, first_match, None, **extra)
    if not isinstance(shard_size, (int, np.integer)) or isinstance(shard_size, bool) or shard_size < 1:
        raise ValueError(f"shard_size must be a positive integer (got {shard_size!r})")
    from strategies.catalogue import spec_of

    # Seats travel as spec strings (JSON-ready, resolved again on the worker); the code
    # digests make a run whose strategy code changed another run (refused on resume).
    specs = [spec_of(strategy) for strategy in setup.strategies]
    config = canonical({"players": setup.players, "strategies": specs, "seed": setup.seed,
                        "max_rounds": setup.max_rounds, **engine_options})
    manifest = {"kind": "simulate", "job": f"{simulate_job.__module__}:{simulate_job.__name__}",
                "config": config, "first_match": setup.first_match, "matches": setup.matches,
                "shard_size": int(shard_size),
                "strategy_code": {s.name: s.code_key for s in setup.strategies}}
    tasks = [Task(shard, config) for shard in plan(setup.matches, int(shard_size), setup.seed,
                                                   setup.first_match)]
    return manifest, tasks


def simulate_sharded(players: int, strategies, matches: int, seed: int, *,
                     max_rounds: int | None = None, first_match: int = 0,
                     threads: int | None = None, backend="local", shard_size: int = DEFAULT_SHARD_SIZE,
                     directory=None, summary_only: bool = False, progress: bool = False,
                     **engine_options) -> ShardRun:
    """:func:`sim.simulate` in shards, on a backend, optionally durable and summary-only.

    Parameters
    ----------
    players, strategies, matches, seed, max_rounds, first_match, threads
        As :func:`sim.simulate` (``threads``: per shard; default the backend's).
    backend : str or Backend
        ``"local"``, ``"dask"`` (a LocalCluster for this call) or an open
        :class:`sim.backends.Backend`.
    shard_size : int
        Matches per shard.
    directory : path, optional
        Shard store: finished shards are written there and a repeated call
        resumes; a directory of another run raises :class:`ShardError`. The
        directory is left in place (``run.store.remove()`` deletes it).
    summary_only : bool
        Keep only :func:`match_aggregate` per shard: ``run.aggregate``.

    Returns
    -------
    ShardRun
        ``run.frame()`` equals ``sim.simulate(...)`` row for row;
        ``run.aggregate`` in summary-only mode (see :func:`summary_table`).
    """
    manifest, tasks = simulate_manifest(players, strategies, matches, seed, max_rounds, first_match,
                                        shard_size, **engine_options)
    mode = "summary" if summary_only else "frames"
    store = ShardStore(directory, manifest, mode).open() if directory is not None else None
    try:
        return run_shards(simulate_job, tasks, backend=backend, store=store,
                          aggregate=match_aggregate if summary_only else None, threads=threads,
                          progress=progress)
    finally:
        if store is not None:
            store.close()
