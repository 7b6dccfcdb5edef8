"""The engine's own shard job: :func:`sim.simulate` in shards, on a backend, durable, summary-only.
"""

from __future__ import annotations

import pandas as pd

from sim.checks import check_int
from sim.engine.runs import simulate
from sim.engine.spec import RunSpec
from sim.files import canonical
from sim.scale.aggregates import match_aggregate
from sim.scale.runner import ShardRun, run_shards
from sim.scale.shards import DEFAULT_SHARD_SIZE, Task, plan
from sim.scale.store import ShardStore
from sim.tiles import DEFAULT_MAX_ROUNDS
from strategies.catalogue import spec_of


def simulate_job(first_match: int, count: int, *, players: int, strategies, seed: int,
                 max_rounds: int | None = None, threads: int | None = None,
                 **engine_options) -> pd.DataFrame:
    """Matches ``first_match .. first_match + count - 1`` of :func:`sim.simulate`."""
    return simulate(players, strategies, count, seed, threads=threads,
                    max_rounds=DEFAULT_MAX_ROUNDS if max_rounds is None else max_rounds,
                    first_match=first_match, **engine_options)


def simulate_manifest(players, strategies, matches, seed, max_rounds=None, first_match=0,
                      shard_size=DEFAULT_SHARD_SIZE, **engine_options) -> tuple[dict, list[Task]]:
    """Manifest and tasks of a sharded :func:`sim.simulate` run (arguments validated)."""
    max_rounds = DEFAULT_MAX_ROUNDS if max_rounds is None else max_rounds
    setup = RunSpec.build(players, strategies, matches, seed, max_rounds=max_rounds,
                          first_match=first_match, params=engine_options.get("params"),
                          allow_hidden=engine_options.get("allow_hidden", False),
                          sealed=engine_options.get("sealed", False), secret=engine_options.get("secret"),
                          decision_timeout=engine_options.get("decision_timeout"))
    # A sealed run's secret is drawn once, here: every shard plays with it, and the manifest keeps it.
    engine_options = {key: value for key, value in engine_options.items()
                      if key not in ("sealed", "secret", "decision_timeout")} | setup.seal_options
    shard_size = check_int(shard_size, "shard_size", 1)
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
        :class:`sim.scale.backends.Backend`.
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
