"""A tournament's seatings as shards: the job, its aggregate and the summary tables from it.

:func:`experiments.tournament.tournament` runs each seating's matches as shards
(:mod:`sim.shards`) on a backend (:mod:`sim.backends`). With an output
directory the shards are written to ``DIR/shards/`` as they finish, so an
interrupted tournament resumes; the final frame (shards in seating, then match
order) is the one an in-memory run builds, so ``summary.csv`` is byte-identical
whatever the backend or shard size.

Summary-only tournaments keep per-shard aggregates (:func:`seating_aggregate`:
per seating, the winner counts and the per-entity sums of final margin,
discarded events and settlement points) and build the same ``summary.csv``
(exact integer sums, so the means agree with the full run's), the same
pairwise matrix and the Bradley-Terry/Luce ranking from weighted per-seating
win counts (equal to the full run's up to floating-point rounding).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.stats import luce_ranking, wilson_interval
from sim.shards import ShardStore, Task, plan, run_shards

SHARDS_DIR = "shards"


def seating_job(first_match: int, count: int, *, players: int, seat_strategies, seed: int,
                max_rounds: int, pairing: int, group: int, entity_strategies,
                field=None, threads: int | None = None) -> pd.DataFrame:
    """Matches ``first_match ..`` of one seating: the engine frame plus pairing columns.

    ``seat_strategies`` are specs (:func:`strategies.catalogue.spec_of`), resolved here
    (on a dask worker: by importing the strategy's module); ``entity_strategies`` are the
    names the tables show. ``field`` (the specs of the whole field) compiles every
    seating's strategies into one kernel; the results do not depend on it.
    """
    from sim.engine import simulate

    frame = simulate(players, list(seat_strategies), count, seed, threads=threads,
                     max_rounds=max_rounds, first_match=first_match, progress=False,
                     field=None if field is None else list(field))
    frame.insert(0, "pairing", pairing)
    frame.insert(1, "group", group)
    for e, name in enumerate(entity_strategies):
        frame[f"entity_strategy_{e}"] = name
    return frame


def seating_tasks(config, shard_size: int) -> list[Task]:
    """Every seating of ``config`` (a TournamentConfig) cut into shards, in seating order."""
    from experiments.tournament import derive_seed, pairings

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
        }
        tasks += [Task(shard, job_config)
                  for shard in plan(config.matches, shard_size, seed, part=pairing.pairing)]
    return tasks


def shard_store(out_dir, config, shard_size: int, summary_only: bool) -> ShardStore:
    """The (unopened) store ``DIR/shards`` of a tournament."""
    from pathlib import Path

    manifest = {"kind": "tournament", "config": config.as_dict(), "shard_size": int(shard_size)}
    return ShardStore(Path(out_dir) / SHARDS_DIR, manifest,
                      "summary" if summary_only else "frames")


def run_seatings(config, *, out=None, backend="local", threads=None, shard_size: int,
                 summary_only: bool = False, progress: bool = False):
    """Run every seating; returns the :class:`sim.shards.ShardRun` (store closed, files kept)."""
    tasks = seating_tasks(config, shard_size)
    store = shard_store(out, config, shard_size, summary_only).open() if out is not None else None
    try:
        return run_shards(seating_job, tasks, backend=backend, store=store,
                          aggregate=seating_aggregate if summary_only else None,
                          threads=threads, progress=progress, desc="tournament")
    finally:
        if store is not None:
            store.close()


# ---------------------------------------------------------------------------
# Summary-only
# ---------------------------------------------------------------------------
def seating_aggregate(frame: pd.DataFrame) -> dict:
    """Additive summary of a shard of one seating (keyed by its pairing id)."""
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


def tables_from_aggregate(aggregate: dict, config) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``summary, pairwise, ranking`` of a summary-only tournament (same layout as the full run's)."""
    from experiments.tournament import pairings

    names = list(config.strategies)
    seatings = pairings(config.players, names)
    per = aggregate["pairing"]
    fields = ("matches", "wins", "unfinished", "margin", "discarded", "settlement")
    totals = {name: dict.fromkeys(fields, 0) for name in names}
    for pairing in seatings:
        data = per[str(pairing.pairing)]
        winner = {int(k): v for k, v in data["winner"].items()}
        for e, name in enumerate(pairing.entity_strategies):
            t = totals[name]
            t["matches"] += data["matches"]
            t["wins"] += winner.get(e, 0)
            t["unfinished"] += winner.get(-1, 0)
            t["margin"] += data["margin"][e]
            t["discarded"] += data["discarded"][e]
            t["settlement"] += data["settlement"][e]
    # Same construction as experiments.tournament.summarise.
    index = pd.Index(names, name="strategy")
    table = pd.DataFrame({
        "matches": [totals[n]["matches"] for n in names],
        "wins": [totals[n]["wins"] for n in names],
        "unfinished": [totals[n]["unfinished"] for n in names],
        "mean_margin": [totals[n]["margin"] / totals[n]["matches"] for n in names],
        "discarded_per_match": [totals[n]["discarded"] / totals[n]["matches"] for n in names],
        "settlement_per_match": [totals[n]["settlement"] / totals[n]["matches"] for n in names],
    }, index=index)
    low, high = wilson_interval(table["wins"].to_numpy(), table["matches"].to_numpy())
    table.insert(2, "win_rate", table["wins"] / table["matches"])
    table.insert(3, "win_low", low)
    table.insert(4, "win_high", high)
    table = table.reset_index()
    summary = table.astype({"matches": "int64", "wins": "int64", "unfinished": "int64"})

    # Pairwise: row strategy's share of the wins among matches won by either.
    grid = pd.DataFrame(np.nan, index=pd.Index(names, name="strategy"), columns=names)
    for a in names:
        for b in names:
            if a == b:
                continue
            wins_a = wins_b = 0
            for pairing in seatings:
                present = pairing.entity_strategies
                if a not in present or b not in present:
                    continue
                winner = per[str(pairing.pairing)]["winner"]
                for e, name in enumerate(present):
                    if name == a:
                        wins_a += winner.get(str(e), 0)
                    elif name == b:
                        wins_b += winner.get(str(e), 0)
            if wins_a + wins_b:
                grid.loc[a, b] = wins_a / (wins_a + wins_b)

    # Ranking: one weighted row per (seating, winning entity).
    ids = {name: i for i, name in enumerate(names)}
    participants, winners, weights = [], [], []
    for pairing in seatings:
        row = [ids[n] for n in pairing.entity_strategies]
        for key, count in sorted(per[str(pairing.pairing)]["winner"].items(), key=lambda kv: int(kv[0])):
            e = int(key)
            if e >= 0 and count:
                participants.append(row)
                winners.append(row[e])
                weights.append(count)
    log_s, low, high = luce_ranking(np.array(participants, dtype=np.int64).reshape(-1, len(row)),
                                    np.array(winners, dtype=np.int64), len(names),
                                    weights=np.array(weights, dtype=np.float64))
    ranking = pd.DataFrame({"strategy": names, "log_strength": log_s, "low": low, "high": high})
    ranking = ranking.sort_values("log_strength", ascending=False, kind="stable")
    ranking.insert(0, "rank", np.arange(1, len(names) + 1))
    return summary, grid, ranking.reset_index(drop=True)
