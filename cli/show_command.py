"""``five-up show``: draw a round of a match record as the tiles lie (SVG, PNG), or write a
replay page of the match (HTML)."""

from __future__ import annotations

import csv
import json
import os
import sys

from cli import options
from cli.arguments import (
    EXIT_FAILED,
    EXIT_OK,
    PROG,
    Command,
    check_output_file,
    one_line,
    usage_error,
)
from cli.options import Text
from core.checks import check_int
from sim.display.layout_png import write_round_png
from sim.display.layout_svg import round_svg, write_svg
from sim.display.replay_page import write_replay_page
from sim.records import iter_record_lines
from sim.verify import Invalid, check_record
from sim.wording import counted

PICTURE_SUFFIXES = (".svg", ".png")


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="a record file (exact61-record/1 JSON Lines)")
    options.add(parser, (
        Text("--match", "I",
             "which record of the file: the I-th non-blank line, counting from 0 (default 0); "
             "not the record's own \"match\" number", default="0"),
        Text("--round", "R",
             "which round of that match, counting from 1 as the picture's title does "
             "(default: its last round)"),
        Text("--out", "OUT",
             "the picture: OUT.svg (SVG) or OUT.png (PNG) by its suffix; a name without a suffix "
             "writes both OUT.svg and OUT.png"),
        Text("--html", "OUT.html",
             "also (or instead) write a self-contained HTML page that replays the whole match "
             "move by move"),
        Text("--seat", "S",
             "with --html: the page shows the match as seat S saw it (the other hands as counts "
             "until a settlement reveals them); default: every hand open"),
        Text("--analysis", "DIR",
             "with --html: the output directory of `five-up analyse` for this match (or its "
             "analysis.csv); the page then shows that seat's win probability at every step and "
             "each analysed move's cost"),
    ))


def read_analysis(path: str, match: int, seat: int | None) -> list[dict]:
    """The rows of a ``five-up analyse`` table (``DIR/analysis.csv`` or the CSV itself), checked
    against the match and seat asked for (the directory's ``run.json`` names them).

    Raises
    ------
    ValueError
        One line: unreadable, not an analysis, of another match or another seat.
    """
    csv_path = os.path.join(path, "analysis.csv") if os.path.isdir(path) else path
    settings_path = os.path.join(os.path.dirname(csv_path) or ".", "run.json")
    try:
        with open(csv_path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        settings = {}
        if os.path.exists(settings_path):
            with open(settings_path, encoding="utf-8") as handle:
                settings = json.load(handle)
    except OSError as exc:
        raise ValueError(f"cannot read the analysis {csv_path}: {exc.strerror or exc}") from None
    except ValueError:
        raise ValueError(f"{settings_path} is not the run.json of an analysis") from None
    if rows and not {"round", "turn", "seat", "played_value", "loss"} <= set(rows[0]):
        raise ValueError(f"{csv_path} is not an analysis table of five-up analyse")
    if "match" in settings and settings["match"] != match:
        raise ValueError(f"the analysis is of match {settings['match']}, not --match {match}")
    seats = {int(row["seat"]) for row in rows} | ({settings["seat"]} if "seat" in settings else set())
    if seat is not None and seats and seats != {seat}:
        raise ValueError(f"the analysis is of seat {min(seats)}, not --seat {seat}")
    return rows


def picture_paths(out: str) -> list[str]:
    """The files ``--out`` names: itself (``.svg``, ``.png``) or ``OUT.svg`` and ``OUT.png``."""
    if os.path.isdir(out):
        raise ValueError(f"--out {out} is a directory, not a file")
    if out.endswith(PICTURE_SUFFIXES):
        return [check_output_file(out, PICTURE_SUFFIXES)]
    if os.path.splitext(os.path.basename(out))[1]:
        raise ValueError(f"--out {out} should end with .svg or .png (or have no suffix: both)")
    return [check_output_file(out + suffix, PICTURE_SUFFIXES) for suffix in PICTURE_SUFFIXES]


def read_match(path: str, index: int) -> dict:
    """The ``index``-th record of the file, checked with :func:`sim.verify.check_record`.

    Raises
    ------
    ValueError
        One line: unreadable file, a line that is not JSON, too few records, invalid record.
    """
    count = 0
    try:
        for item in iter_record_lines(path):
            if count == index:
                if item.error is not None:
                    raise ValueError(f"{path}:{item.line}: {item.error}")
                try:
                    check_record(item.record)
                except Invalid as exc:
                    raise ValueError(f"{path}:{item.line}: not a valid exact61-record/1 record: "
                                     f"{exc}") from None
                return item.record
            count += 1
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    span = "--match 0" if count == 1 else f"--match 0..{count - 1}"
    raise ValueError(f"no match {index} in {path}: it holds {counted(count, 'record')} ({span})"
                     if count else
                     f"no match {index} in {path}: it holds no record")


def run_show(args) -> int:
    """Handler of ``five-up show``; returns the exit status."""
    try:
        if args.out is None and args.html is None:
            raise ValueError("give --out (a picture) or --html (a replay page), or both")
        if args.seat is not None and args.html is None:
            raise ValueError("--seat applies to the replay page: give --html too")
        if args.analysis is not None and args.html is None:
            raise ValueError("--analysis applies to the replay page: give --html too")
        paths = picture_paths(args.out) if args.out is not None else []
        if args.html is not None:
            check_output_file(args.html, (".html", ".htm"))
        index = check_int(args.match, "--match", 0)
        record = read_match(args.file, index)
        rounds = len(record["rounds"])
        # --round counts from 1, as every title and the terminal game do; the record's list
        # of rounds (and the drawing functions) from 0.
        round_number = rounds if args.round is None else check_int(args.round, "--round", 1)
        if not rounds and paths:
            raise ValueError(f"match {index} of {args.file} has no finished round to draw")
        if round_number > rounds:
            span = "--round 1" if rounds == 1 else f"--round 1..{rounds}"
            raise ValueError(f"no round {round_number} in match {index}: it has "
                             f"{counted(rounds, 'round')} ({span})")
        round_index = round_number - 1
        seat = (None if args.seat is None
                else check_int(args.seat, "--seat", 0, record["players"] - 1))
        analysis = None if args.analysis is None else read_analysis(args.analysis, index, seat)
    except ValueError as exc:
        return usage_error(exc)
    return write_outputs(record, round_index, paths, args.html, seat, analysis)


def write_outputs(record: dict, round_index: int, paths: list[str], html: str | None,
                  seat: int | None, analysis=None) -> int:
    """Write the pictures and the page (matplotlib loads only for a PNG). A file that cannot
    be written: one line on stderr and status 1."""
    try:
        for path in paths:
            if path.endswith(".svg"):
                write_svg(path, round_svg(record, round_index, scores_strip=True))
            else:
                write_round_png(record, round_index, path)
            print(f"wrote {path}")
        if html is not None:
            write_replay_page(record, html, seat, analysis)
            print(f"wrote {html}")
    except ValueError as exc:
        return usage_error(exc)
    except OSError as exc:
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


SHOW = Command(
    "Draw one round of a match record as the tiles lie: the line running both ways from the "
    "opening, each double crosswise as a spinner with its arms once both line sides are "
    "taken, long lines turning so the picture stays compact. Every tile shows its halves as "
    "numbers, its move number and the raw points it scored (#7 +15); marks show the open "
    "ends after the last placement with what each adds, and a caption the scoring total; a "
    "strip below follows every entity's score through the match (raw, and displayed = "
    "raw/5, up to 305 raw = 61). Drawn from the record alone: any valid exact61-record/1 "
    "record, whichever tool wrote it; the record is checked first (as five-up verify does). "
    "--html writes a replay page of the whole match instead of, or beside, the picture. "
    "Bad input (a missing file, a line that is not JSON, no such match or round, an invalid "
    "record) gives one line and exit status 2.",
    add_arguments, run_show)
