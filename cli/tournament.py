"""``five-up tournament``: a round robin of strategies with summaries, ranking and plots."""

from __future__ import annotations

import sys
from pathlib import Path

from cli.arguments import (EXIT_OK, Command, add_backend_arguments, add_round_and_thread_arguments,
    backend_options, strategies_help, usage_error)
from cli.failures import run_on_backend
from experiments.reports import md_table
from experiments.tournament.config import TournamentConfig
from experiments.tournament.run import tournament
from experiments.tournament.seatings import pairings
from experiments.tournament.shards import SHARDS_DIR, shard_store
from sim.engine.spec import check_threads
from sim.files import claim_directory


def add_arguments(parser) -> None:
    parser.add_argument("--players", default="2", metavar="N", help="2, 3 or 4 (default 2)")
    parser.add_argument("--strategies", required=True, metavar="A,B,C,...",
                        help=strategies_help("the field: strategies with distinct names, "
                                             "comma-separated."))
    parser.add_argument("--matches", default="1000", metavar="M",
                        help="matches per seating (default 1000)")
    parser.add_argument("--seed", default="0", metavar="S", help="master seed (default 0)")
    parser.add_argument("--duplicate", action="store_true",
                        help="replay each deal sequence with the strategies swapped "
                             "(common random numbers: narrower intervals)")
    add_round_and_thread_arguments(parser)
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_backend_arguments(parser)


def run_tournament_command(args) -> int:
    """Handler of ``five-up tournament``; returns the exit status."""
    try:
        scale = backend_options(args)
        config = TournamentConfig.build(args.players, args.strategies, args.matches, args.seed,
                                        duplicate=args.duplicate, max_rounds=args.max_rounds)
        threads = check_threads(args.threads)
        claim_directory(args.out, config.as_dict())
        shard_store(args.out, config, scale["shard_size"], scale["summary_only"]).check()
    except ValueError as exc:
        return usage_error(exc)
    status, result, elapsed = run_on_backend(
        scale,
        lambda backend: tournament(config.players, config.resolved, config.matches, config.seed,
                                   duplicate=config.duplicate, threads=threads,
                                   max_rounds=config.max_rounds, out=args.out,
                                   progress=not args.quiet, backend=backend,
                                   shard_size=scale["shard_size"],
                                   summary_only=scale["summary_only"],
                                   keep_shards=scale["keep_shards"]),
        shards=Path(args.out) / SHARDS_DIR, out=args.out)
    if status != EXIT_OK:
        return status
    seatings = len(pairings(config.players, list(config.strategies)))
    total = config.matches * seatings
    print(f"{total} matches ({seatings} seatings x {config.matches}), {config.players} players, "
          f"seed {config.seed}{', duplicate' if config.duplicate else ''}: {elapsed:.1f} s, "
          f"{total / max(elapsed, 1e-9):,.0f} matches/s", file=sys.stdout)
    print(md_table(result.summary[["strategy", "matches", "wins", "win_rate", "win_low",
                                   "win_high", "mean_margin"]]))
    print()
    print(md_table(result.ranking))
    print(f"\nwrote {', '.join(Path(f).name for f in result.files)} to {args.out}")
    return EXIT_OK


TOURNAMENT = Command(
    "Play every seating of the strategies (2 players: every ordered pair; 3 players: every "
    "combination in each of its 6 seat orders; 4 players: every ordered pair of "
    "partnerships) for --matches matches each, then write into --out: matches.parquet, "
    "summary.csv and summary.md (win rate with 95% Wilson interval, mean final margin in "
    "raw points, discarded events and settlement raw points per match), pairwise.csv, "
    "ranking.csv (Bradley-Terry/Luce with 95% intervals) and PNG plots. The same command "
    "gives a byte-identical summary.csv.",
    add_arguments, run_tournament_command)
