"""``five-up analyse``: what each move of one seat of a match record was worth, judged from what
that seat knew (:mod:`experiments.tools.analyse`)."""

from __future__ import annotations

import os
import sys

from cli import options
from cli.arguments import EXIT_FAILED, EXIT_OK, PROG, Command, one_line, usage_error
from cli.options import Text
from cli.show_command import read_match
from experiments.tools.analyse import analyse_match, write_analysis
from core.checks import check_int, check_seed
from sim.files import claim_directory
from sim.progress import progress_bar

MAX_WORLDS = 100_000
MAX_NODE_LIMIT = 10**9


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="a record file (exact61-record/1 JSON Lines)")
    options.add(parser, (
        Text("--match", "I",
             "which record of the file: the I-th non-blank line, counting from 0 (default 0)",
             default="0"),
        Text("--seat", "S", "the seat whose moves are analysed (default 0)", default="0"),
        Text("--out", "DIR",
             "output directory: analysis.csv (every decision), analysis.md (the costliest moves), "
             "winprob.png (the seat's win probability through the match); created, and refused "
             "if it holds another analysis", required=True),
        Text("--worlds", "N",
             "hidden worlds sampled per decision, each solved (default 48: more narrows every "
             "interval, about as 1/sqrt(N))", default="48"),
        Text("--node-limit", "N", "turns the search may visit per world (default 1500)",
             default="1500"),
        Text("--seed", "S", "seed of the sampled worlds, 0 .. 2**63-1 (default 0)", default="0"),
        options.QUIET,
    ))


def run_analyse(args) -> int:
    """Handler of ``five-up analyse``; returns the exit status."""
    try:
        index = check_int(args.match, "--match", 0)
        worlds = check_int(args.worlds, "--worlds", 2, MAX_WORLDS)
        node_limit = check_int(args.node_limit, "--node-limit", 1, MAX_NODE_LIMIT)
        seed = check_seed(args.seed, "--seed")
        record = read_match(args.file, index)
        seat = check_int(args.seat, "--seat", 0, record["players"] - 1)
        settings = {"file": os.path.basename(args.file), "match": index, "seat": seat,
                    "worlds": worlds, "node_limit": node_limit, "seed": seed}
        directory = claim_directory(args.out, settings)  # before the work, not after it
    except ValueError as exc:  # ClaimError included
        return usage_error(exc)
    decisions = sum(1 for round_record in record["rounds"] for action in round_record["actions"]
                    if action["type"] == "play" and action["seat"] == seat)
    with progress_bar(decisions, enabled=not args.quiet, unit="move", desc="analysing") as bar:
        moves = analyse_match(record, seat, worlds=worlds, node_limit=node_limit, seed=seed,
                              progress=bar.update)
    try:
        paths = write_analysis(moves, settings, directory)
    except OSError as exc:
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    costly = int((moves["loss_low"] > 0).sum()) if len(moves) else 0
    print(f"analysed {len(moves)} decision{'' if len(moves) == 1 else 's'} of seat {seat}; "
          f"{costly} with a loss whose 95% interval excludes 0")
    for path in paths:
        print(f"wrote {path}")
    return EXIT_OK


ANALYSE = Command(
    "Analyse one seat of a match record move by move, judging every choice only from what that "
    "seat knew when it chose: the record is replayed to each decision with two or more legal "
    "placements, hidden worlds consistent with the seat's view are sampled (the inference and "
    "opponent model of pimc), and every legal placement is solved in each world by alpha-beta "
    "search to the round's end, round ends valued by the match-win table. Writes the value (the "
    "seat's side's probability of winning the match; at 3 players the raw differential per 305) "
    "of the move played and of the best move, the loss with its paired 95% interval over the "
    "worlds, the costliest moves (only those whose interval excludes 0) and a plot of the "
    "seat's win probability through the match. Any valid exact61-record/1 record (five-up play, "
    "five-up record, a tournament's records) is checked first, as five-up verify does; bad "
    "input gives one line and exit status 2.",
    add_arguments, run_analyse)
