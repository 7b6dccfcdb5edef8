"""The ``five-up`` command: one subcommand per job, every one of them here.

Every subcommand returns an exit status. Bad input is reported as one line
``five-up: error: ...`` with status 2, never a traceback (:mod:`cli.failures`).
"""

from __future__ import annotations

import argparse
import sys

from cli.arguments import PROG, OneLineParser
from cli.experiments import add_study_parsers
from cli.failures import EXIT_FAILED, EXIT_INTERRUPTED
from cli.reference import add_reference_parser
from cli.simulate import add_record_parser, add_simulate_parser
from cli.strategies import add_strategies_parser
from cli.tournament import add_tournament_parser
from cli.verify import add_verify_parser


def build_parser() -> argparse.ArgumentParser:
    """The ``five-up`` parser with every subcommand."""
    parser = OneLineParser(
        prog=PROG,
        description="Exact 61 Five Up: rules reference, Monte Carlo engine, match records, "
                    "tournaments and research studies.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    add_simulate_parser(subparsers)
    add_record_parser(subparsers)
    add_verify_parser(subparsers)
    add_reference_parser(subparsers)
    add_tournament_parser(subparsers)
    add_strategies_parser(subparsers)
    add_study_parsers(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``five-up`` with ``argv`` (default: the process's arguments); return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_FAILED
