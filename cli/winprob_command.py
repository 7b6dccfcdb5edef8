"""``five-up winprob``: win-probability tables by score and lead, and the shipped compact table."""

from __future__ import annotations

import sys

from cli.arguments import EXIT_OK, Command, check_output_file, strategies_help, usage_error
from cli.failures import run_reporting_failures
from cli.result_lines import print_key_numbers, print_shipped
from experiments.run_spine import claim_run
from experiments.studies import win_probabilities


def add_arguments(parser) -> None:
    parser.add_argument("--players", default="2,3,4", metavar="N[,N..]",
                        help="player counts, comma-separated from 2, 3, 4 (default 2,3,4)")
    parser.add_argument("--strategies", default="greedy", metavar="A[,B..]",
                        help=strategies_help("the strategy profile: one strategy (self-play at "
                                             "every seat) or one per seat (with 4 players two: "
                                             "the partnerships); default greedy."))
    parser.add_argument("--rounds-per-state", default=None, metavar="K",
                        help="simulated rounds from every state (default "
                             f"{win_probabilities.DEFAULT_ROUNDS[2]} with 2 and 4 players, "
                             f"{win_probabilities.DEFAULT_ROUNDS[3]} with 3: 680,943 states); a value "
                             "given here applies to every player count")
    parser.add_argument("--seed", default="0", metavar="S",
                        help="master seed, 0 .. 2**63-1 (default 0); the same seed gives the "
                             "same tables")
    parser.add_argument("--replicates", default=None, metavar="B",
                        help="bootstrap replicates for the 95%% intervals (default "
                             f"{win_probabilities.DEFAULT_REPLICATES[2]}, {win_probabilities.DEFAULT_REPLICATES[3]} "
                             "with 3 players; 0: no intervals)")
    parser.add_argument("--check-matches", default=str(win_probabilities.DEFAULT_CHECK_MATCHES),
                        metavar="M",
                        help="direct check: complete matches played from each of a few chosen "
                             "states, compared with the backward-induction values (default "
                             f"{win_probabilities.DEFAULT_CHECK_MATCHES}; 0: no check)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory (created; refused if it holds a different run)")
    parser.add_argument("--ship", default=None, metavar="PATH",
                        help="also write the compact table module (strategies/winprob_table.py "
                             "format) to PATH; needs 2 and 4 in --players and a self-play "
                             "profile")
    parser.add_argument("--threads", default=None, metavar="T",
                        help="worker threads (default: all cores)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


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
