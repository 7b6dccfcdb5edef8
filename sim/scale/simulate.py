"""The engine's own shard job: :func:`sim.simulate` in shards, on a backend, durable, summary-only.
"""

from __future__ import annotations

import pandas as pd

from core.checks import check_int
from sim.engine.runs import simulate
from sim.engine.spec import RunSpec
from sim.files import canonical
from sim.scale.aggregates import match_aggregate
from sim.scale.runner import ShardRun, run_shards
from sim.scale.shards import DEFAULT_SHARD_SIZE, Task, plan
from sim.scale.store import ShardStore
from core.tiles import DEFAULT_MAX_ROUNDS
from strategies.catalogue import spec_of


def simulate_job(first_match: int, count: int, *, players: int, strategies, seed: int,
                 max_rounds: int | None = None, threads: int | None = None,
                 **engine_options) -> pd.DataFrame:
    """Matches ``first_match .. first_match + count - 1`` of :func:`sim.simulate`."""
    return simulate(players, strategies, count, seed, threads=threads,
                    max_rounds=DEFAULT_MAX_ROUNDS if max_rounds is None else max_rounds,
                    first_match=first_match, **engine_options)


SEAL_OPTIONS = ("sealed", "secret", "decision_timeout")
"""The engine options of a run's sealing: a shard job gets the spec's (one secret for all)."""


def simulate_spec(players, strategies, matches, seed, max_rounds=None, first_match=0,
             **engine_options) -> RunSpec:
    """The checked :class:`sim.engine.spec.RunSpec` of a sharded :func:`sim.simulate` run
    (``engine_options``: ``params``, ``allow_hidden`` and the sealing); a sealed run's secret
    is drawn here, once for every shard."""
    return RunSpec.build(players, strategies, matches, seed,
                         max_rounds=DEFAULT_MAX_ROUNDS if max_rounds is None else max_rounds,
                         first_match=first_match, params=engine_options.get("params"),
                         allow_hidden=engine_options.get("allow_hidden", False),
                         sealed=engine_options.get("sealed", False),
                         secret=engine_options.get("secret"),
                         decision_timeout=engine_options.get("decision_timeout"))


def simulate_manifest(spec: RunSpec, shard_size=DEFAULT_SHARD_SIZE,
                      **engine_options) -> tuple[dict, list[Task]]:
    """Manifest and tasks of a sharded :func:`sim.simulate` run of ``spec`` (built and checked
    once by the caller: :func:`simulate_spec`). ``engine_options``: the run's other engine
    options as given (``params``, ``allow_hidden``), written into every shard's config with the
    spec's sealing."""
    # A sealed run's secret was drawn once, in the spec: every shard plays with it, and the
    # manifest keeps it.
    engine_options = {key: value for key, value in engine_options.items()
                      if key not in SEAL_OPTIONS} | spec.seal_options
    shard_size = check_int(shard_size, "shard_size", 1)
    # Seats travel as spec strings (JSON-ready, resolved again on the worker); the code
    # digests make a run whose strategy code changed another run (refused on resume).
    specs = [spec_of(strategy) for strategy in spec.strategies]
    config = canonical({"players": spec.players, "strategies": specs, "seed": spec.seed,
                        "max_rounds": spec.max_rounds, **engine_options})
    manifest = {"kind": "simulate", "job": f"{simulate_job.__module__}:{simulate_job.__name__}",
                "config": config, "first_match": spec.first_match, "matches": spec.matches,
                "shard_size": int(shard_size),
                "strategy_code": {s.name: s.code_key for s in spec.strategies}}
    tasks = [Task(shard, config) for shard in plan(spec.matches, int(shard_size), spec.seed,
                                                   spec.first_match)]
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
    spec = simulate_spec(players, strategies, matches, seed, max_rounds, first_match,
                         **engine_options)
    manifest, tasks = simulate_manifest(spec, shard_size, **engine_options)
    mode = "summary" if summary_only else "frames"
    store = ShardStore(directory, manifest, mode).open() if directory is not None else None
    try:
        return run_shards(simulate_job, tasks, backend=backend, store=store,
                          aggregate=match_aggregate if summary_only else None, threads=threads,
                          progress=progress)
    finally:
        if store is not None:
            store.close()
