"""Running a sharded job: the shards not yet in the store, on a backend, in plan order.

See :mod:`sim.scale` for how a study plugs in its own job.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from sim.files import canonical
from sim.progress import progress_bar
from sim.scale.aggregates import merge_aggregates
from sim.scale.backends import open_backend
from sim.scale.shards import Task
from sim.scale.store import ShardStore
from sim.wording import counted
from strategies.catalogue import SESSION_PREFIX, StrategyError


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
        A progress bar over matches on stderr; resumed shards count as done.
    desc : str, optional
        The bar's label.
    bar : optional
        An existing bar (anything with ``update(n)``) to advance instead, e.g. one
        bar over several calls; resumed shards are added to it at once.
    """
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
        print(f"five-up: resuming from {store.directory}: {run.resumed} of "
              f"{counted(len(tasks), 'shard')} ({counted(run.resumed_matches, 'match')}) already "
              "done", file=sys.stderr)
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
        bar = progress_bar(total, progress, desc=desc, initial=run.resumed_matches)
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
    for config in configs:
        found = _session_specs(config)
        if found:
            name = found[0][len(SESSION_PREFIX):].split("#")[0]
            raise StrategyError(
                f"strategy {name!r} was defined in a notebook or __main__ and runs only on the "
                "local backend: put it in a module or file importable by the workers and name "
                "it MODULE:NAME or FILE.py:NAME"
            )
