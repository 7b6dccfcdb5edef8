"""``five-up winprob``: win-probability tables by score and lead, and the shipped table file."""

from __future__ import annotations

import sys

from cli import options
from cli.arguments import EXIT_OK, Command, check_output_file, usage_error
from cli.failures import run_reporting_failures
from cli.options import Text
from cli.result_lines import print_key_numbers, print_shipped
from experiments.run_spine import claim_run
from experiments.studies import win_probabilities as W


def add_arguments(parser) -> None:
    options.add(parser, (
        options.PLAYER_COUNTS,
        Text("--strategies", "A[,B..]",
             options.strategies_help("the strategy profile: one strategy (self-play "
                                     "at every seat) or one per seat (with 4 players "
                                     "two: the partnerships); default greedy."),
             default="greedy"),
        Text("--rounds-per-state", "K",
             f"simulated rounds from every state first (default {W.DEFAULT_ROUNDS[2]} with 2 "
             f"and 4 players, {W.DEFAULT_ROUNDS[3]} with 3: 680,943 states); a value given here "
             "applies to every player count"),
        Text("--targets", "INNER,OUTER",
             "2 and 4 players: after the first rounds, give more rounds to the states of every "
             "cell whose fitted lot value's 95%% half-width misses its target, INNER with both "
             f"scores at most {W.WP.MONOTONE_TOP}, OUTER elsewhere, pass after pass until none "
             f"misses (default {W.DEFAULT_TARGETS[0]:g},{W.DEFAULT_TARGETS[1]:g}; none: the "
             "same rounds everywhere)",
             default=",".join(f"{t:g}" for t in W.DEFAULT_TARGETS)),
        Text("--max-rounds-per-state", "N",
             f"at most N rounds from one state (default {W.DEFAULT_MAX_FACTOR} times "
             "--rounds-per-state)"),
        Text("--seed", "S",
             "master seed, 0 .. 2**63-1 (default 0); the same seed gives the same tables",
             default="0"),
        Text("--replicates", "B",
             "bootstrap replicates for the 95%% intervals (default "
             f"{W.DEFAULT_REPLICATES[2]:,}, {W.DEFAULT_REPLICATES[3]} with 3 players; 0: no "
             "intervals, and no targets)"),
        Text("--check-matches", "M",
             f"direct check: complete matches played from each of {len(W.CHECK_STATES[2])} "
             "chosen states (2 and 4 players), compared with the backward-induction values "
             f"(default {W.DEFAULT_CHECK_MATCHES}; 0: no check)",
             default=str(W.DEFAULT_CHECK_MATCHES)),
        options.RUN_DIRECTORY,
        Text("--ship", "PATH",
             "also write the table file that strategies read (strategies/winprob_table.npz "
             "format: the fitted table, its half-widths and bootstrap replicate tables) to "
             "PATH.npz; needs 2 and 4 in --players and a self-play profile"),
        Text("--ship-replicates", "R",
             "replicate tables the shipped file holds, for the error of anything computed "
             f"from the table (default {W.DEFAULT_SHIP_REPLICATES})",
             default=str(W.DEFAULT_SHIP_REPLICATES)),
        options.THREADS, options.QUIET,
    ))


def run_winprob_command(args) -> int:
    """Handler of ``five-up winprob``; returns the exit status."""
    try:
        spec = W.study_spec(args.players, args.strategies, args.rounds_per_state, args.seed,
                            args.replicates, args.check_matches, targets=args.targets,
                            max_rounds_per_state=args.max_rounds_per_state,
                            ship_replicates=args.ship_replicates, threads=args.threads,
                            progress=not args.quiet, out=args.out)
        if args.ship is not None:
            W.check_shippable(spec.settings)
            check_output_file(args.ship, (".npz",), "--ship")
        claim_run(spec)  # the one claim of the run
    except ValueError as exc:
        return usage_error(exc)
    command = W.command_for(spec.settings, args.out, args.ship)
    status, result = run_reporting_failures(
        lambda: W.solve_and_ship(spec, args.ship, command), out=args.out)
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
    "engine plays --rounds-per-state rounds, then (2 and 4 players) more where the values are\n"
    "noisiest, until every lot value meets its --targets half-width; the chain of those\n"
    "transitions is solved by backward induction (Gauss-Seidel sweeps by descending total\n"
    "score, to 1e-10), fitted (monotone up to 50, symmetric) and bootstrapped for 95%\n"
    "intervals. A direct check plays complete matches from 42 states per table size.\n"
    "Writes table (every state x entity), sides (2 and 4 players: own vs opponent),\n"
    "allocation, check, comparisons (declared in plan.json before the run) and timing\n"
    "(parquet and CSV), heatmaps.png, slice_3p.png, check.png and summary.md into --out;\n"
    "with --ship also the table file that strategies read (strategies/winprob_table.npz;\n"
    "the command is recorded in it).",
    add_arguments, run_winprob_command, raw_description=True)
"""The ``five-up winprob`` subcommand."""
