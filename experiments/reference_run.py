"""Play matches with the pure-Python reference and summarise them as a table.

This is the audit path: slow, readable, and the oracle the engine is checked
against. ``five-up reference`` calls :func:`run_reference`.
"""

from __future__ import annotations

import os
import sys
import time

import pandas as pd
from tqdm import tqdm

from sim.records import write_records
from sim.reference import POLICIES, play_match


def seat_strategies(players: int, names: list[str]) -> list[str]:
    """One name per seat; with 4 players two names mean the partnerships.

    Raises
    ------
    ValueError
        On an unknown name or a wrong number of names.
    """
    for name in names:
        if name not in POLICIES:
            raise ValueError(f"unknown reference strategy {name!r} (known: {', '.join(POLICIES)})")
    if players == 4 and len(names) == 2:
        return [names[0], names[1], names[0], names[1]]
    if len(names) != players:
        expected = f"{players} names" + (" (or 2 for the partnerships)" if players == 4 else "")
        raise ValueError(f"expected {expected}, found {len(names)}: {','.join(names)}")
    return names


def match_row(record: dict) -> dict:
    """One summary row per match record."""
    rounds = record["rounds"]
    events = [e for r in rounds for e in r["events"]]
    actions = [a for r in rounds for a in r["actions"]]
    row = {
        "match": record["match"],
        "winner": -1 if record["winner"] is None else record["winner"],
        "rounds": len(rounds),
        "placements": sum(a["type"] == "play" for a in actions),
        "draws": sum(a["type"] == "draw" for a in actions),
        "passes": sum(a["type"] == "pass" for a in actions),
        "domino_rounds": sum(r["end"] == "domino" for r in rounds),
        "blocked_rounds": sum(r["end"] == "blocked" for r in rounds),
        "events_discarded": sum(not e["accepted"] for e in events),
    }
    for entity, score in enumerate(record["scores"]):
        row[f"score_{entity}"] = score
    return row


def summary_table(frame: pd.DataFrame, strategies: list[str]) -> pd.DataFrame:
    """Per entity: strategy, wins and win rate; plus per-match means."""
    entities = sorted(c for c in frame.columns if c.startswith("score_"))
    rows = []
    for entity, column in enumerate(entities):
        rows.append({
            "entity": entity,
            "strategy": strategies[entity],
            "wins": int((frame["winner"] == entity).sum()),
            "win_rate": float((frame["winner"] == entity).mean()),
            "mean_final_raw": float(frame[column].mean()),
        })
    return pd.DataFrame(rows)


def run_reference(args) -> int:
    """``five-up reference``: returns the exit status."""
    names = [n.strip() for n in args.strategies.split(",") if n.strip()]
    try:
        seats = seat_strategies(args.players, names)
    except ValueError as exc:
        print(f"five-up: error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        directory = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
            print(f"five-up: error: cannot write {args.out}: no writable directory {directory}",
                  file=sys.stderr)
            return 2
    started = time.perf_counter()
    records = []
    for match in tqdm(range(args.matches), desc="reference", unit="match", file=sys.stderr,
                      disable=None):
        records.append(play_match(args.players, seats, seed=args.seed, match=match,
                                  max_rounds=args.max_rounds))
    elapsed = time.perf_counter() - started
    frame = pd.DataFrame([match_row(r) for r in records])
    per_entity = seats[:2] if args.players == 4 else seats
    table = summary_table(frame, per_entity)
    print(f"{args.matches} matches, {args.players} players, seed {args.seed}: "
          f"{args.matches / elapsed:,.0f} matches/s (reference)")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    means = frame[["rounds", "placements", "draws", "passes", "blocked_rounds",
                   "events_discarded"]].mean()
    print("per match: " + ", ".join(f"{k} {v:.2f}" for k, v in means.items()))
    unfinished = int((frame["winner"] < 0).sum())
    if unfinished:
        print(f"{unfinished} matches stopped unfinished at the round limit")
    if args.out:
        try:
            count = write_records(args.out, records)
        except OSError as exc:
            print(f"five-up: error: cannot write {args.out}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        print(f"wrote {count} records to {args.out}")
    return 0
