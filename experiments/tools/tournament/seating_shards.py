"""A tournament's seatings as shards: the job, the shard plan and store, the per-seating aggregate.

:func:`experiments.tools.tournament.run.tournament` runs each seating's matches as
shards (:mod:`sim.scale`) on a backend. With an output directory the shards
are written to ``DIR/shards/`` as they finish, so an interrupted tournament
resumes; the final frame (shards in seating, then match order) is the one an
in-memory run builds, whatever the backend or shard size.

:func:`seating_aggregate` reduces the matches of one seating to additive
integer sums (the winner counts and the per-entity sums of final margin,
discarded events and settlement points): a summary-only tournament keeps
only these, and every tournament's tables are built from them
(:mod:`experiments.tools.tournament.tables`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.seatings import derive_seed, pairings
from experiments.tools.tournament.config import TournamentConfig
from sim.engine.runs import simulate
from sim.scale.aggregates import merge_aggregates
from sim.scale.runner import ShardRun, run_shards
from sim.scale.shards import Task, plan
from sim.scale.store import ShardStore

SHARDS_DIR = "shards"


def seating_job(first_match: int, count: int, *, players: int, seat_strategies, seed: int,
                max_rounds: int, pairing: int, group: int, entity_strategies,
                field=None, threads: int | None = None, **run_options) -> pd.DataFrame:
    """Matches ``first_match ..`` of one seating: the engine frame plus pairing columns.

    ``seat_strategies`` are specs (:func:`strategies.catalogue.spec_of`), resolved here
    (on a dask worker: by importing the strategy's module); ``entity_strategies`` are the
    names the tables show. ``field`` (the specs of the whole field) compiles every
    seating's strategies into one kernel; the results do not depend on it.
    ``run_options`` go to :func:`sim.simulate`: the tournament's sealing
    (:attr:`TournamentConfig.seal_options`), the same in every shard.
    """
    frame = simulate(players, list(seat_strategies), count, seed, threads=threads,
                     max_rounds=max_rounds, first_match=first_match, progress=False,
                     field=None if field is None else list(field), **run_options)
    frame.insert(0, "pairing", pairing)
    frame.insert(1, "group", group)
    for e, name in enumerate(entity_strategies):
        frame[f"entity_strategy_{e}"] = name
    return frame


def seating_tasks(config: TournamentConfig, shard_size: int, first_match: int = 0,
                  count: int | None = None) -> list[Task]:
    """Every seating of ``config`` cut into shards, in seating order: matches ``first_match ..
    first_match + count - 1`` of each (default all ``config.matches``; a sequential run plays
    its deals in such batches)."""
    count = config.matches - first_match if count is None else count
    tasks = []
    for pairing in pairings(config.players, config.strategies):
        key = pairing.group if config.duplicate else pairing.pairing
        seed = derive_seed(config.seed, key)
        job_config = {
            "players": config.players,
            # specs (JSON-ready; a dask worker resolves them), names for the labels
            "seat_strategies": [config.spec_of(name)
                                for name in pairing.seat_strategies(config.players)],
            "seed": seed,
            "max_rounds": config.max_rounds,
            "pairing": pairing.pairing,
            "group": pairing.group,
            "entity_strategies": list(pairing.entity_strategies),
            "field": list(config.specs),
            # the run's one secret (and sealing) in every shard: JSON-ready, so it reaches dask
            **config.seal_options,
        }
        tasks += [Task(shard, job_config)
                  for shard in plan(count, shard_size, seed, first_match=first_match,
                                    part=pairing.pairing)]
    return tasks


def shard_store(config: TournamentConfig) -> ShardStore:
    """The (unopened) store ``OUT/shards`` of a tournament with an output directory."""
    scale = config.scale
    manifest = {"kind": "tournament", "config": config.as_dict(), "shard_size": scale.shard_size}
    return ShardStore(scale.out / SHARDS_DIR, manifest,
                      "summary" if scale.summary_only else "frames")


def run_seatings(config: TournamentConfig) -> ShardRun:
    """Run every seating as ``config.scale`` says; returns the :class:`sim.scale.runner.ShardRun`
    (store closed, files kept)."""
    scale = config.scale
    tasks = seating_tasks(config, scale.shard_size)
    store = shard_store(config).open() if scale.out is not None else None
    try:
        return run_shards(seating_job, tasks, backend=scale.backend, store=store,
                          aggregate=seating_aggregate if scale.summary_only else None,
                          threads=scale.threads, progress=scale.progress, desc="tournament")
    finally:
        if store is not None:
            store.close()


# ---------------------------------------------------------------------------
# Per-seating aggregates
# ---------------------------------------------------------------------------
def seating_aggregate(frame: pd.DataFrame) -> dict:
    """Additive summary of matches of one seating (a shard), keyed by its pairing id."""
    pairing = int(frame["pairing"].iloc[0])
    score_cols = sorted(c for c in frame.columns if c.startswith("score_"))
    scores = frame[score_cols].to_numpy(dtype=np.int64)
    margins, discarded, settlement = [], [], []
    for e in range(len(score_cols)):
        others = np.delete(scores, e, axis=1).max(axis=1)
        margins.append(int((scores[:, e] - others).sum()))
        discarded.append(int(frame[f"events_discarded_{e}"].to_numpy(np.int64).sum()))
        settlement.append(int(frame[f"settlement_raw_{e}"].to_numpy(np.int64).sum()))
    keys, counts = np.unique(frame["winner"].to_numpy(), return_counts=True)
    return {"pairing": {str(pairing): {
        "matches": len(frame),
        "winner": {str(k): int(c) for k, c in zip(keys.tolist(), counts.tolist())},
        "margin": margins,
        "discarded": discarded,
        "settlement": settlement,
    }}}


def frame_aggregate(matches: pd.DataFrame) -> dict:
    """:func:`seating_aggregate` of every seating of a tournament's match frame, merged."""
    total = None
    for _, frame in matches.groupby("pairing", sort=True):
        total = merge_aggregates(total, seating_aggregate(frame))
    return total
