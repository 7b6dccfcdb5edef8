"""The ``five-up`` command: one subcommand per job.

Every subcommand returns an exit status. Bad input is reported as one line
``five-up: error: ...`` with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse prints usage too by default)."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"five-up: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {value}")
    return value


def nonnegative_int(text: str) -> int:
    """argparse type: an integer >= 0 (seeds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, found {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, found {value}")
    return value


def player_count(text: str) -> int:
    """argparse type: 2, 3 or 4."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in (2, 3, 4):
        raise argparse.ArgumentTypeError(f"players must be 2, 3 or 4, found {text!r}")
    return value


def _add_verify(subparsers) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="replay match records with the rules reference and check every figure",
        description=(
            "Replay every exact61-record/1 record in the files with the pure-Python rules "
            "reference, checking each action's legality and every point, event, round end, "
            "winner and score. Prints one line per invalid record (file:line: round, action or "
            "event: expected vs found) and a summary line. Exit status: 0 all valid, 1 any "
            "invalid, 2 a file cannot be read."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="record files (JSON Lines)")
    parser.set_defaults(func=_run_verify)


def _run_verify(args) -> int:
    from sim.verify import verify_paths

    return verify_paths(args.files, sys.stdout, sys.stderr)


def _add_reference(subparsers) -> None:
    parser = subparsers.add_parser(
        "reference",
        help="play matches with the pure-Python reference (slow; for audits)",
        description=(
            "Play complete matches with the pure-Python rules reference, print a summary "
            "table and optionally write every match as exact61-record/1. The reference is "
            "the oracle the engine is checked against, not a fast simulator."
        ),
    )
    parser.add_argument("--players", type=player_count, default=2, help="2, 3 or 4 (default 2)")
    parser.add_argument("--strategies", default="random,greedy",
                        help="reference policies per seat, comma-separated (random, greedy); "
                             "with 4 players two names are the partnerships (default random,greedy)")
    parser.add_argument("--matches", type=positive_int, default=100, help="matches (default 100)")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="master seed (default 0)")
    parser.add_argument("--max-rounds", type=positive_int, default=1000,
                        help="round limit per match (ruling 15, default 1000)")
    parser.add_argument("--out", metavar="FILE.jsonl", help="also write the records here")
    parser.set_defaults(func=_run_reference)


def _run_reference(args) -> int:
    from experiments.reference_run import run_reference

    return run_reference(args)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="five-up",
        description="Exact 61 Five Up: rules reference, Monte Carlo engine and match records.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    _add_reference(subparsers)
    _add_verify(subparsers)
    from sim import engine_cli

    engine_cli.add_simulate_parser(subparsers)
    engine_cli.add_record_parser(subparsers)
    from experiments.tournament import add_tournament_parser
    from strategies.cli import add_strategies_parser

    add_tournament_parser(subparsers)
    add_strategies_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("five-up: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
