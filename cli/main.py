"""The ``five-up`` command: one subcommand per job, every one of them here.

Every subcommand returns an exit status. Bad input is reported as one line
``five-up: error: ...`` with status 2, never a traceback (:mod:`cli.arguments`,
:mod:`cli.failures`).

Each subcommand's module is loaded only when that subcommand runs (or shows
its ``--help``): ``five-up --help``, ``verify`` and ``reference`` never load
Numba or the engine, whose imports take about a second.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from cli.arguments import DEBUG_ENV, EXIT_FAILED, EXIT_INTERRUPTED, PROG, OneLineParser

COMMANDS = (
    ("simulate", "cli.simulate_command:SIMULATE",
     "simulate complete matches with the Numba engine and write a Parquet frame"),
    ("record", "cli.simulate_command:RECORD",
     "simulate matches with the engine and write them as exact61-record/1 JSON Lines"),
    ("verify", "cli.verify_command:VERIFY",
     "replay match records with the rules reference and check every figure"),
    ("analyse", "cli.analyse_command:ANALYSE",
     "analyse one seat's moves in a match record: each move's cost in win probability"),
    ("show", "cli.show_command:SHOW",
     "draw a round of a match record as the tiles lie (SVG, PNG), or a replay page (HTML)"),
    ("reference", "cli.reference_command:REFERENCE",
     "play matches with the pure-Python reference (slow; for audits)"),
    ("tournament", "cli.tournament_command:TOURNAMENT",
     "round-robin strategy tournament with summaries, ranking and plots"),
    ("strategies", "cli.strategies_command:STRATEGIES",
     "list the built-in strategies, or describe any strategy: metadata and parameters"),
    ("overshoot", "cli.studies_command:OVERSHOOT",
     "study: how often the exact-61 rule discards points, and what it costs"),
    ("settlement", "cli.studies_command:SETTLEMENT",
     "study: what dominoes and blocked rounds are worth against placement scoring"),
    ("openings", "cli.studies_command:OPENINGS",
     "study: the value of each opening tile, observed and forced"),
    ("seats", "cli.studies_command:SEATS", "study: the value of the first lot and of each seat"),
    ("lengths", "cli.studies_command:LENGTHS",
     "study: rounds per match and score paths to 61, by player count and strategy"),
    ("winprob", "cli.winprob_command:WINPROB",
     "win probabilities by score and lead (backward induction), and the shipped table"),
    ("strength", "cli.strength_command:STRENGTH",
     "strength ladder: duplicate-deal pairings up a ladder of strategies, and their CPU cost"),
    ("results", "cli.results_command:RESULTS",
     "regenerate every committed result (docs/results) with manifests, and README's numbers"),
    ("tune", "cli.tune_command:TUNE",
     "tune a strategy's parameters with CMA-ES on duplicate deals, validated on held-out deals"),
    ("play", "cli.play_command:PLAY", "play a match yourself in the terminal against strategies"),
)
"""Every subcommand: its name, where its :class:`cli.arguments.Command` is, its one-line help."""


def command_of(target: str):
    """The :class:`cli.arguments.Command` at ``"module:NAME"`` (its module imported now)."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``five-up`` parser; the options of the subcommand named in ``argv`` (none: every
    subcommand's) are loaded."""
    chosen = None if argv is None else next((word for word in argv if not word.startswith("-")), "")
    parser = OneLineParser(
        prog=PROG,
        description="Exact 61 Five Up: rules reference, Monte Carlo engine, match records, "
                    "tournaments and research studies.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    for name, target, summary in COMMANDS:
        subparser = subparsers.add_parser(name, help=summary)
        if chosen is None or chosen == name:
            command_of(target).configure(subparser)
            subparser.add_argument("--debug", action="store_true",
                                   help="after an error's one line, print its whole text (Numba's "
                                        "message for a strategy that does not compile, a traceback)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``five-up`` with ``argv`` (default: the process's arguments); return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    previous = os.environ.get(DEBUG_ENV)
    if getattr(args, "debug", False):
        os.environ[DEBUG_ENV] = "1"
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_FAILED
    finally:
        if previous is None:
            os.environ.pop(DEBUG_ENV, None)
        else:
            os.environ[DEBUG_ENV] = previous
