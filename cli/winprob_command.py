"""``five-up winprob``: win-probability tables by score and lead, and the shipped compact table."""

from __future__ import annotations

import sys

from cli import options
from cli.arguments import EXIT_OK, Command, check_output_file, usage_error
from cli.failures import run_reporting_failures
from cli.options import Text
from cli.result_lines import print_key_numbers, print_shipped
from experiments.run_spine import claim_run
from experiments.studies import win_probabilities


def add_arguments(parser) -> None:
    options.add(parser, (
        options.PLAYER_COUNTS,
        Text("--strategies", "A[,B..]",
             options.strategies_help("the strategy profile: one strategy (self-play "
                                     "at every seat) or one per seat (with 4 players "
                                     "two: the partnerships); default greedy."),
             default="greedy"),
        Text("--rounds-per-state", "K",
             f"simulated rounds from every state (default {win_probabilities.DEFAULT_ROUNDS[2]} "
             f"with 2 and 4 players, {win_probabilities.DEFAULT_ROUNDS[3]} with 3: 680,943 "
             "states); a value given here applies to every player count"),
        Text("--seed", "S",
             "master seed, 0 .. 2**63-1 (default 0); the same seed gives the same tables",
             default="0"),
        Text("--replicates", "B",
             "bootstrap replicates for the 95%% intervals (default "
             f"{win_probabilities.DEFAULT_REPLICATES[2]}, "
             f"{win_probabilities.DEFAULT_REPLICATES[3]} with 3 players; 0: no intervals)"),
        Text("--check-matches", "M",
             "direct check: complete matches played from each of a few chosen states, compared "
             "with the backward-induction values (default "
             f"{win_probabilities.DEFAULT_CHECK_MATCHES}; 0: no check)",
             default=str(win_probabilities.DEFAULT_CHECK_MATCHES)),
        options.RUN_DIRECTORY,
        Text("--ship", "PATH",
             "also write the compact table module (strategies/winprob_table.py format) to PATH; "
             "needs 2 and 4 in --players and a self-play profile"),
        options.THREADS, options.QUIET,
    ))


def run_winprob_command(args) -> int:
    """Handler of ``five-up winprob``; returns the exit status."""
    try:
        spec = win_probabilities.study_spec(args.players, args.strategies, args.rounds_per_state,
                                  args.seed, args.replicates, args.check_matches,
                                  threads=args.threads, progress=not args.quiet, out=args.out)
        if args.ship is not None:
            win_probabilities.check_shippable(spec.settings)
            check_output_file(args.ship, (".py",))
        claim_run(spec)  # the one claim of the run
    except ValueError as exc:
        return usage_error(exc)
    command = win_probabilities.command_for(spec.settings, args.out, args.ship)
    status, result = run_reporting_failures(
        lambda: win_probabilities.solve_and_ship(spec, args.ship, command), out=args.out)
    if status != EXIT_OK:
        return status
    print(f"{result.name}: wrote {len(result.files)} files to {args.out}", file=sys.stdout)
    print_key_numbers(result.key_numbers)
    print_shipped(args.ship, command)
    return EXIT_OK


WINPROB = Command(
    "Win-probability tables: P(an entity wins the match | every entity's displayed score at\n"
    "the start of a round, and the seat that leads it or that the lead is drawn by lot), under\n"
    "a strategy profile, for each player count. From every state (scores 0..60 per entity,\n"
    "-10..60 with 4 players, where the partner debit can go below 0; every leader seat) the\n"
    "engine plays --rounds-per-state rounds; the chain of those transitions is solved by\n"
    "backward induction (Gauss-Seidel sweeps by descending total score, to 1e-10) and\n"
    "bootstrapped for 95% intervals. A direct check plays complete matches from a few states.\n"
    "Writes table (every state x entity), sides (2 and 4 players: own vs opponent), check and\n"
    "timing (parquet and CSV), heatmaps.png, slice_3p.png, check.png and summary.md into\n"
    "--out; with --ship also the compact table module that strategies import\n"
    "(strategies/winprob_table.py; the command is recorded in it).",
    add_arguments, run_winprob_command, raw_description=True)
"""The ``five-up winprob`` subcommand."""
