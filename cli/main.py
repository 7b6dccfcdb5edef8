"""The ``five-up`` command: one subcommand per job, every one of them here.

Every subcommand returns an exit status. Bad input is reported as one line
``five-up: error: ...`` with status 2, never a traceback (:mod:`cli.failures`).
"""

from __future__ import annotations

import argparse
import sys

from cli.arguments import PROG, OneLineParser
from cli.experiments import STUDY_COMMANDS
from cli.failures import EXIT_FAILED, EXIT_INTERRUPTED
from cli.reference import REFERENCE
from cli.simulate import RECORD, SIMULATE
from cli.strategies import STRATEGIES
from cli.tournament import TOURNAMENT
from cli.verify import VERIFY

COMMANDS = (SIMULATE, RECORD, VERIFY, REFERENCE, TOURNAMENT, STRATEGIES, *STUDY_COMMANDS)
"""Every subcommand, in ``five-up --help`` order."""


def build_parser() -> argparse.ArgumentParser:
    """The ``five-up`` parser with every subcommand."""
    parser = OneLineParser(
        prog=PROG,
        description="Exact 61 Five Up: rules reference, Monte Carlo engine, match records, "
                    "tournaments and research studies.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    for command in COMMANDS:
        command.register(subparsers)
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
