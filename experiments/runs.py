"""How every study runs: claim the output directory, compute from the data sources, save.

:func:`run_experiment` is the body of every study's ``run``; :func:`run_traced`
serves the studies computed from the trace source (overshoot, settlement).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from experiments.reports import ExperimentResult
from experiments.settings import study_settings
from experiments.sources import DEFAULT_SHARD_SIZE, SHARDS_DIR, DataRun
from sim.engine.spec import check_threads
from sim.files import claim_directory


def run_experiment(settings: dict, compute: Callable, *, out=None, backend="local",
                   shard_size: int | None = None, threads=None, progress: bool = False,
                   keep_shards: bool = False) -> ExperimentResult:
    """Compute an experiment from its data and save it: the body of every ``run``.

    ``compute(data)`` gets a :class:`experiments.sources.DataRun` (its
    ``traces()``, ``rounds()``, ``counterfactuals()``) and returns the
    :class:`ExperimentResult`. With ``out`` the output directory is claimed
    first (refused if it holds another run), the data's shards are kept in
    ``out/shards`` while the run lasts (an interrupted run resumes from them)
    and removed once the result is written, unless ``keep_shards``.
    ``backend``: ``"local"``, ``"dask"`` or an open :class:`sim.scale.backends.Backend`.
    """
    data = DataRun(settings, backend=backend,
                   directory=None if out is None else Path(out) / SHARDS_DIR,
                   shard_size=DEFAULT_SHARD_SIZE if shard_size is None else shard_size,
                   threads=check_threads(threads), progress=progress, keep_shards=keep_shards)
    if out is not None:
        data.check()  # before claiming the directory: refuse another run's shards
        claim_directory(out, settings)
    with data:
        result = compute(data)
    if out is not None:
        result.save(out)
        data.finish()
    return result


def run_traced(name: str, analyse: Callable, players, strategies, matches, seed, *,
               traces=None, tables=None, table_matches=None, sealed: bool = False,
               secret: str | None = None, decision_timeout=None, strong=None,
               strong_matches=None, **run_options) -> ExperimentResult:
    """Run a study over the trace source (or given ``traces``); ``run_options`` as
    :func:`run_experiment`. ``analyse(traces, settings)`` turns the traces into the result;
    with mixed ``tables`` (:mod:`experiments.mixed_tables`) it is called as
    ``analyse(traces, settings, tables=data.table_traces())``. ``sealed``, ``secret`` and
    ``decision_timeout``: the run's sealing (:func:`experiments.settings.study_settings`);
    ``strong``, ``strong_matches``: strong strategies self-played at their own match count.
    """
    settings = study_settings(name, players, strategies, matches, seed, tables, table_matches,
                              sealed=sealed, secret=secret, decision_timeout=decision_timeout,
                              strong=strong, strong_matches=strong_matches)

    def compute(data):
        source = data.traces() if traces is None else traces
        if "tables" in settings:
            return analyse(source, settings, tables=data.table_traces())
        return analyse(source, settings)

    return run_experiment(settings, compute, **run_options)
