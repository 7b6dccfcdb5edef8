"""``five-up reference``: play matches with the pure-Python reference and summarise them.

This is the audit path: slow, readable, and the oracle the engine is checked
against. It never loads the Numba engine.
"""

from __future__ import annotations

import os
import time

import pandas as pd

from cli import options
from cli.arguments import EXIT_OK, Command, usage_error
from cli.options import Text
from core.checks import check_int, check_players, check_seed, per_seat
from sim.progress import progress_bar
from sim.records import write_records
from sim.reference import POLICIES, play_match
from core.tiles import DEFAULT_MAX_ROUNDS, entity_count
from sim.wording import counted


def add_arguments(parser) -> None:
    options.add(parser, (
        Text("--players", "N", "2, 3 or 4 (default 2)", default="2"),
        Text("--strategies", "A,B[,..]",
             "reference policies per seat, comma-separated (random, greedy); with 4 players two "
             "names are the partnerships (default random,greedy)", default="random,greedy"),
        Text("--matches", "M", "matches (default 100)", default="100"),
        Text("--seed", "S", "master seed (default 0)", default="0"),
        Text("--max-rounds", "R",
             f"round limit per match (ruling 15, default {DEFAULT_MAX_ROUNDS})",
             default=str(DEFAULT_MAX_ROUNDS)),
        Text("--out", "FILE.jsonl", "also write the records here"),
    ))


def seat_policies(players: int, names: list[str]) -> list[str]:
    """One reference policy per seat; with 4 players two names mean the partnerships.

    Raises
    ------
    ValueError
        On an unknown name or a wrong number of names.
    """
    for name in names:
        if name not in POLICIES:
            raise ValueError(f"unknown reference strategy {name!r} (known: {', '.join(POLICIES)})")
    return per_seat(players, names, "reference strategies")


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
    """Handler of ``five-up reference``; returns the exit status."""
    try:
        players = check_players(args.players)
        matches = check_int(args.matches, "matches", 1)
        seed = check_seed(args.seed)
        max_rounds = check_int(args.max_rounds, "max_rounds", 1)
        seats = seat_policies(players, [n.strip() for n in args.strategies.split(",") if n.strip()])
    except ValueError as exc:
        return usage_error(exc)
    if args.out:
        directory = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
            return usage_error(f"cannot write {args.out}: no writable directory {directory}")
    started = time.perf_counter()
    records = []
    with progress_bar(matches, desc="reference") as bar:
        for match in range(matches):
            records.append(play_match(players, seats, seed=seed, match=match, max_rounds=max_rounds))
            bar.update(1)
    elapsed = time.perf_counter() - started
    frame = pd.DataFrame([match_row(r) for r in records])
    table = summary_table(frame, seats[:entity_count(players)])
    print(f"{counted(matches, 'match')}, {players} players, seed {seed}: "
          f"{matches / elapsed:,.0f} matches/s (reference)")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    means = frame[["rounds", "placements", "draws", "passes", "blocked_rounds",
                   "events_discarded"]].mean()
    print("per match: " + ", ".join(f"{k} {v:.2f}" for k, v in means.items()))
    unfinished = int((frame["winner"] < 0).sum())
    if unfinished:
        print(f"{counted(unfinished, 'match')} stopped unfinished at the round limit")
    if args.out:
        try:
            count = write_records(args.out, records)
        except OSError as exc:
            return usage_error(f"cannot write {args.out}: {exc.strerror or exc}")
        print(f"wrote {counted(count, 'record')} to {args.out}")
    return EXIT_OK


REFERENCE = Command(
    "Play complete matches with the pure-Python rules reference, print a summary table and "
    "optionally write every match as exact61-record/1. The reference is the oracle the "
    "engine is checked against, not a fast simulator.",
    add_arguments, run_reference)
