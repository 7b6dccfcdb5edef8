"""``five-up tournament``: a round robin of strategies with summaries, ranking and plots."""

from __future__ import annotations

import sys
from pathlib import Path

from cli import options
from cli.arguments import EXIT_OK, Command, add_backend_arguments, backend_options, usage_error
from cli.failures import run_on_backend
from cli.options import Switch, Text
from cli.sealing import add_seal_arguments, seal_options
from experiments.reporting.reports import md_table
from experiments.seatings import pairings
from experiments.tools.tournament.config import TournamentConfig
from experiments.tools.tournament.run import claim_tournament, play
from experiments.tools.tournament.seating_shards import SHARDS_DIR, shard_store
from experiments.tools.tournament.sequential import TARGET_DEALS, play_until_separated
from sim.files import MANIFEST_NAME
from sim.scale.store import MANIFEST_NAME as SHARD_MANIFEST


def add_arguments(parser) -> None:
    options.add(parser, (
        Text("--players", "N", "2, 3 or 4 (default 2)", default="2"),
        Text("--strategies", "A,B,C,...",
             options.strategies_help("the field: strategies with distinct names, "
                                     "comma-separated."),
             required=True),
        Text("--matches", "M",
             "matches per seating (default 1000); with --until-separated the most deals played",
             default="1000"),
        Text("--seed", "S", "master seed (default 0)", default="0"),
        Switch("--duplicate",
               "replay each deal sequence with the strategies swapped (common random numbers: "
               "narrower intervals)"),
        Switch("--until-separated",
               "exactly two strategies with --duplicate: play the deals in order (each in both "
               "seatings) and stop at the first deal n where a sequential test separates them, "
               "or at --matches deals. The test: an anytime-valid confidence sequence (Robbins "
               "normal mixture for observations in [0, 1], sub-Gaussian with sigma 1/2, tuned "
               f"tightest near {TARGET_DEALS} deals) for the first strategy's mean per-deal "
               "score (its share of the deal's two seatings won, unfinished = 1/2); it stops "
               "when the sequence excludes 1/2, which two equal strategies do with probability "
               "at most --alpha. The stop depends only on the seed and these options (not on "
               "shards, threads or backend); the tables hold the first n deals, and their paired "
               "interval is not adjusted for the optional stopping. Also writes sequential.csv "
               "and sequential.png"),
        Text("--alpha", "A",
             "error level of --until-separated's test: the confidence sequence covers at every "
             "deal at once with probability at least 1 - A (default 0.05)"),
        options.MAX_ROUNDS, options.THREADS, options.RUN_DIRECTORY, options.QUIET,
    ))
    add_backend_arguments(parser)
    add_seal_arguments(parser)


def run_tournament_command(args) -> int:
    """Handler of ``five-up tournament``; returns the exit status."""
    try:
        scale = backend_options(args)
        if args.until_separated and scale["summary_only"]:
            raise ValueError("--until-separated needs the match rows: drop --summary-only")
        if args.alpha is not None and not args.until_separated:
            raise ValueError("--alpha is the error level of --until-separated's test: "
                             "add --until-separated")
        # A sealed run resumed without --secret keeps the secret its manifests recorded.
        seal = seal_options(args, Path(args.out) / MANIFEST_NAME,
                            Path(args.out) / SHARDS_DIR / SHARD_MANIFEST)
        config = TournamentConfig.build(args.players, args.strategies, args.matches, args.seed,
                                        duplicate=args.duplicate, max_rounds=args.max_rounds,
                                        until_separated=args.until_separated,
                                        alpha=0.05 if args.alpha is None else args.alpha, **seal,
                                        threads=args.threads, shard_size=scale["shard_size"],
                                        keep_shards=scale["keep_shards"],
                                        summary_only=scale["summary_only"], out=args.out,
                                        progress=not args.quiet)
        claim_tournament(config)  # the one claim of the run, before a cluster starts
        shard_store(config).check()
    except ValueError as exc:
        return usage_error(exc)
    play_config = play_until_separated if config.until_separated else play

    def work(backend):
        return play_config(config.on(backend))

    status, result, elapsed = run_on_backend(scale, work, shards=Path(args.out) / SHARDS_DIR,
                                             out=args.out)
    if status != EXIT_OK:
        return status
    seatings = len(pairings(config.players, list(config.strategies)))
    per_seating = result.per_seating
    total = per_seating * seatings
    played = total if result.sequential is None else result.sequential.played * seatings
    kind = (", duplicate" if config.duplicate else "") + (
        f", sealed, secret {config.secret}" if config.sealed else "")
    print(f"{total} matches ({seatings} seatings x {per_seating}), {config.players} players, "
          f"seed {config.seed}{kind}: {elapsed:.1f} s, "
          f"{played / max(elapsed, 1e-9):,.0f} matches/s"
          + (f" ({played} played; the last batch's deals after the stop are not reported)"
             if played != total else ""), file=sys.stdout)
    if result.sequential is not None:
        print(result.sequential.sentence())
        print("Paired interval on those deals (fixed-size, not adjusted for the optional "
              "stopping):")
        print(md_table(result.paired))
        print()
    print(md_table(result.summary[["strategy", "matches", "wins", "win_rate", "win_low",
                                   "win_high", "interval", "mean_margin"]]))
    print()
    print(md_table(result.ranking))
    print(f"\nwrote {', '.join(Path(f).name for f in result.files)} to {args.out}")
    return EXIT_OK


TOURNAMENT = Command(
    "Play every seating of the strategies (2 players: every ordered pair; 3 players: every "
    "combination in each of its 6 seat orders; 4 players: every ordered pair of "
    "partnerships) for --matches matches each, then write into --out: plan.json (the "
    "comparisons declared before the first match: each strategy's head-to-head share against "
    "the next one listed primary, every other pair and every log-strength difference "
    "exploratory), matches.parquet, summary.csv and summary.md (win rate with its 95% interval "
    "by the design: deal-clustered with --duplicate, Wilson otherwise; mean final margin in "
    "raw points, discarded events and settlement raw points per match; every comparison worded "
    "by its interval adjusted as its family, Holm or Benjamini-Hochberg), comparisons.csv, "
    "pairwise.csv (each "
    "ordered pair's share of the matches either won, with a 95% interval: deal-clustered with "
    "--duplicate), ranking.csv (Bradley-Terry/Luce with 95% intervals, the deal as cluster "
    "with --duplicate, and simultaneous 95% rank intervals), interval_width.csv (the half-widths of each strategy's 95% win-rate "
    "interval -- paired and Wilson with --duplicate -- on the "
    "first n matches of every seating, for 10 log-spaced n up to --matches: how many matches "
    "an interval of a given width needs; not with --summary-only) and PNG plots (pairwise, "
    "ranking, interval_width, each stamped with the sample, players and seed). "
    "--until-separated plays two strategies only as long as a sequential test needs to "
    "separate them (see --until-separated). The same command gives a byte-identical summary.csv.",
    add_arguments, run_tournament_command)
