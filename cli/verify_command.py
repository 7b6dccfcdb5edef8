"""``five-up verify``: replay match records with the rules reference and check every figure."""

from __future__ import annotations

import sys

from cli.arguments import Command
from sim.verify import verify_paths


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="record files (JSON Lines)")


def run_verify(args) -> int:
    """Handler of ``five-up verify``; returns the exit status."""
    return verify_paths(args.files, sys.stdout, sys.stderr)


VERIFY = Command(
    "Replay every exact61-record/1 record in the files with the pure-Python rules reference, "
    "checking each action's legality and every point, event, round end, winner and score. "
    "A record marked \"interrupted\": true (five-up play saves one when the player quits) "
    "holds the rounds finished before the quit: they are checked the same way, and a valid one "
    "counts as interrupted, not invalid. Prints one line per invalid record (file:line: round, "
    "action or event: expected vs found) and per interrupted one, and a summary line (\"3 "
    "records: 1 valid, 1 interrupted, 1 invalid\"). Exit status: 0 all valid or interrupted, "
    "1 any invalid, 2 a file cannot be read.",
    add_arguments, run_verify)
