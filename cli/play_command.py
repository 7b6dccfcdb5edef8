"""``five-up play``: a terminal game for a human seat against strategies.

The game itself (rules, strategy seats, what the seat may see) is
:class:`sim.human.human_game.HumanGame`; this module only reads the moves from standard input
and prints what happens. Standard input may be a terminal (a prompt is shown) or a script
piping moves, one a line (no prompt; everything else the same). Every line printed is wrapped
to the terminal's width between words (:func:`wrap_line`; ``COLUMNS``, else 80 columns when
the output is no terminal).
"""

from __future__ import annotations

import re
import shutil
import sys
import textwrap

from cli import options
from cli.arguments import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    PROG,
    Command,
    check_output_file,
    usage_error,
)
from cli.options import Switch, Text
from sim.human.human_game import DEFAULT_SEED, HumanGame
from core.checks import check_int, check_players, check_seed
from sim.engine.python_seats import StrategyFailure
from sim.records import write_records
from core.tiles import DEFAULT_MAX_ROUNDS
from sim.wording import counted
from strategies.catalogue import split_specs

QUIT_WORDS = ("q", "quit", "exit")
"""Inputs that stop the match (the finished rounds are saved)."""

HELP_WORDS = ("?", "h", "help")
"""Inputs that show the placements again."""

DEFAULT_OPPONENT = "greedy"
"""``--vs`` when none is given."""

FALLBACK_COLUMNS = 80
"""The width the text is wrapped to when the output is not a terminal (a pipe, a file) and
``COLUMNS`` does not say (:func:`shutil.get_terminal_size`)."""

CONTINUATION = "  "
"""Added before the continuation lines of a wrapped line, beyond the line's own indent."""

NUMBERED = re.compile(r"\s*\d+\) ")
"""A listed placement's number (``"  2) "``): its continuation lines align after it."""

KEPT_TOGETHER = re.compile("|".join((
    r"-?\d+ \(-?\d+ raw\)",  # a score with its raw points: "3 (15 raw)"
    r"\[[^\]\s]+, [^\]\s]+\]",  # an interval: "[40, 60]"
    # a short aside with the word before it: "0 (left end)", "seat 1 (greedy)"
    r"(?:[^()\s]+ )?\([^()\s]+(?: [^()\s]+){0,2}\)",
    r"-?\d+ [a-z]+",  # a number and the word it counts: "14 pips", "2 arms"
    r"^== \S+|\S+ ==$",  # a banner's marks stay with its first and last words
)))
"""Spans a line is never broken inside (words and tile names such as ``"5-6"`` never are)."""

GLUE = "\u00a0"
"""Stands for a space inside a kept span while wrapping: :mod:`textwrap` breaks only at ASCII
whitespace, and the game's text holds no such character of its own."""


def typed_numbers(count: int) -> str:
    """What the human may type in the messages after a bad line: ``"1..5"`` (``"1"`` for one)."""
    return "1" if count == 1 else f"1..{count}"


def prompt_text(count: int) -> str:
    """The move prompt: ``"Your move 1-5 (q quits): "`` (``"Your move 1 (q quits): "`` for a
    single placement, where ``1-1`` would read as the tile 1-1)."""
    numbers = "1" if count == 1 else f"1-{count}"
    return f"Your move {numbers} (q quits): "


def wrap_line(line: str, width: int) -> list[str]:
    """``line`` as lines of at most ``width`` characters, broken only between words.

    A line that fits is kept as it is (tables and the layout keep their spacing). Continuation
    lines keep the line's indent plus :data:`CONTINUATION`, or align after a listed
    placement's number. A word longer than the width stays whole on a line of its own (it is
    never cut), as do tile names (``5-6``) and the spans of :data:`KEPT_TOGETHER`.
    """
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    numbered = NUMBERED.match(line)
    follow = " " * numbered.end() if numbered else indent + CONTINUATION
    glued = KEPT_TOGETHER.sub(lambda span: span.group().replace(" ", GLUE), line.lstrip())
    pieces = textwrap.wrap(glued, width=max(width, 1), initial_indent=indent,
                           subsequent_indent=follow, break_long_words=False,
                           break_on_hyphens=False)
    return [piece.replace(GLUE, " ") for piece in pieces] or [line]


def terminal_columns() -> int:
    """The terminal's width now (it may change between screens), :data:`FALLBACK_COLUMNS`
    when the output is no terminal."""
    return shutil.get_terminal_size((FALLBACK_COLUMNS, 24)).columns


def compile_notice(waiting) -> str:
    """The line shown while the strategies ``waiting`` (:class:`strategies.Strategy`, in seat
    order) are compiled for this process's Python calls. It names no strategy as the slow one:
    how long the first time on a machine takes (nothing of theirs in the disk cache yet) depends
    on all the code a strategy reaches (measured: rollout 21 s, pimc 77 s)."""
    names = ", ".join(dict.fromkeys(s.name for s in waiting))
    return (f"Preparing {names} (compiled for this process: a few seconds; the first time on a "
            f"machine, up to a minute or two)...")


def add_arguments(parser) -> None:
    options.add(parser, (
        Text("--players", "N",
             "2, 3 or 4 players (default 2); with 4, seats S and S+2 are partners", default="2"),
        Text("--seat", "S",
             "your seat, 0..N-1 (default 0); seats play clockwise 0, 1, ...", default="0"),
        Text("--vs", "STRATEGY[,...]",
             "who plays the other seats: one strategy for all of them, or one per other seat in "
             "seat order (with 4 players your partner, seat S+2, is one of them); default "
             f"{DEFAULT_OPPONENT}. Each is a built-in name (`five-up strategies`: random, "
             "greedy, weighted, rollout, ...), MODULE:NAME, path/to/file.py:NAME, "
             "openspiel:ismcts, or any of these with other parameter values: name[k=v,...]. "
             "Strategies that see hidden information are refused.", default=DEFAULT_OPPONENT),
        Text("--seed", "SEED",
             "seeds the lots, deals and draws and the strategies' decision streams (default "
             f"{DEFAULT_SEED}, so every run is reproducible: the same seed and the same moves "
             "give the same match)", default=str(DEFAULT_SEED)),
        Text("--max-rounds", "R",
             "ruling 15: the match stops unfinished after R rounds (default "
             f"{DEFAULT_MAX_ROUNDS})", default=str(DEFAULT_MAX_ROUNDS)),
        Text("--record", "FILE",
             "write the match record (exact61-record/1, one JSON line; replaced if it exists) to "
             "FILE when the match ends; `five-up verify FILE` checks it. Default: no record. A "
             "match stopped early (q, end of input, Ctrl-C) saves its finished rounds with "
             "winner null and \"interrupted\": true, which verify checks round by round and "
             "counts as interrupted."),
        Switch("--hint", "before each of your choices, show the search's best placement and its "
               "win probability (from what your seat knows: worlds consistent with it, each "
               "solved; about a second per choice)"),
    ))


def build_game(args) -> HumanGame:
    """The game the options ask for. Raises ValueError (one line) for a bad option."""
    players = check_players(args.players, "--players")
    seat = check_int(args.seat, "--seat", 0, players - 1)
    seed = check_seed(args.seed, "--seed")
    max_rounds = check_int(args.max_rounds, "--max-rounds", 1)
    if args.record is not None:
        check_output_file(args.record, (), "--record")
    specs = split_specs(args.vs)
    if any(not spec for spec in specs):
        raise ValueError(f"--vs has an empty entry: {args.vs!r}")
    return HumanGame(players, seat, specs, seed=seed, max_rounds=max_rounds)


class Console:
    """Standard input and output of the game: prompts only on a terminal, every line wrapped
    to the terminal's width (:func:`wrap_line`).

    Parameters
    ----------
    stdin, stdout : file
    columns : int, optional
        The width to wrap to; default: the terminal's, read before each output
        (:func:`terminal_columns`).
    """

    def __init__(self, stdin, stdout, columns: int | None = None):
        self.stdin = stdin
        self.stdout = stdout
        self.interactive = stdin.isatty()
        self.columns = columns

    def width(self) -> int:
        return self.columns if self.columns is not None else terminal_columns()

    def wrapped(self, lines) -> list[str]:
        """``lines`` wrapped to :meth:`width`."""
        width = self.width()
        return [piece for line in lines for piece in wrap_line(line, width)]

    def show(self, lines) -> None:
        for line in self.wrapped(lines):
            print(line, file=self.stdout)
        self.stdout.flush()

    def read(self, count: int) -> str | None:
        """One line of input, stripped; None at the end of input."""
        if self.interactive:
            try:
                return input(prompt_text(count)).strip()
            except EOFError:
                print(file=self.stdout)
                return None
        line = self.stdin.readline()
        return None if not line else line.strip()


def ask(console: Console, count: int) -> int | str | None:
    """The placement number the human types (1..count), ``"quit"``, or None (end of input).
    Bad lines get one line each and a new prompt."""
    while True:
        text = console.read(count)
        if text is None:
            return None
        word = text.lower()
        if word in QUIT_WORDS:
            return "quit"
        if word in HELP_WORDS:
            return "help"
        if not word:
            console.show([f"Empty line: type a placement number {typed_numbers(count)}, or q "
                          "to quit."])
            continue
        try:
            number = int(word)
        except ValueError:
            console.show([f"{text!r} is not a placement number: type {typed_numbers(count)}, "
                          "or q to quit."])
            continue
        if not 1 <= number <= count:
            console.show([f"There is no placement {number}: type {typed_numbers(count)}, or q "
                          "to quit."])
            continue
        return number


def save(game: HumanGame, path: str | None) -> str:
    """Write the record if asked; the clause saying what was written."""
    if path is None:
        return "no record written (no --record)"
    record = game.record()
    if not record["rounds"]:
        return "no record written (no round finished)"
    write_records(path, [record])
    finished = len(record["rounds"])
    if game.interrupted:
        return (f"partial record ({counted(finished, 'finished round')}, winner null) written "
                f"to {path}")
    return f"record written to {path}"


def stopped(game: HumanGame, console: Console, path: str | None, why: str, status: int) -> int:
    """Stop early: save the finished rounds, say so on standard error (one sentence, wrapped
    as the console wraps), return ``status``."""
    game.stop()
    rounds = game.state.rounds_played
    try:
        what = save(game, path)
    except OSError as exc:
        what = f"cannot write {path}: {exc.strerror or exc}"
        status = EXIT_FAILED
    for line in console.wrapped([f"{PROG}: {why} after {counted(rounds, 'finished round')}; "
                                 f"{what}"]):
        print(line, file=sys.stderr)
    return status


def play(game: HumanGame, console: Console, path: str | None, hint: bool = False) -> int:
    """The game loop; returns the exit status. With ``hint`` the search's best placement is
    shown before each of the human's choices (:meth:`HumanGame.hint`)."""
    try:
        waiting = [p.strategy for p in game.seats if p is not None and p.needs_compiling()]
        if waiting:
            console.show([compile_notice(waiting)])
            game.prepare()
        console.show(game.advance_until_human())
        while not game.over:
            choices = game.choices()
            console.show([""] + game.screen() + ["Your placements:"]
                         + [f"  {choice.text()}" for choice in choices])
            if hint:
                advice = game.hint()
                if advice:
                    console.show([advice])
            answer = ask(console, len(choices))
            while answer == "help":
                console.show([f"  {choice.text()}" for choice in choices])
                answer = ask(console, len(choices))
            if answer is None:
                return stopped(game, console, path, "end of input", EXIT_INTERRUPTED)
            if answer == "quit":
                return stopped(game, console, path, "quit", EXIT_OK)
            console.show(game.choose(answer))
            console.show(game.advance_until_human())
    except KeyboardInterrupt:
        return stopped(game, console, path, "interrupted", EXIT_INTERRUPTED)
    except StrategyFailure as exc:
        stopped(game, console, path, f"error: {exc}", EXIT_FAILED)
        return EXIT_FAILED
    try:
        what = save(game, path)
    except OSError as exc:
        return usage_error(f"cannot write {path}: {exc.strerror or exc}")
    console.show([f"Final scores: {game.scores_text()}; {what}."])
    return EXIT_OK


def run_play(args) -> int:
    """Handler of ``five-up play``; returns the exit status."""
    try:
        game = build_game(args)
    except ValueError as exc:  # bad options, unknown strategies (StrategyError is one)
        return usage_error(exc)
    return play(game, Console(sys.stdin, sys.stdout), args.record, hint=args.hint)


PLAY = Command(
    "Play a match yourself, in the terminal: the other seats (with 4 players your partner too) "
    "are played by strategies, the rules by the project's rules code. Each turn shows the "
    "scores (displayed and raw), the hand sizes and the boneyard count, the layout (one line "
    "per branch), the open ends and the scoring total, your hand, and your legal placements "
    "numbered with what each would score; type a number. Draws and passes are made for you "
    "when the rules force them, and every round's end shows all hands and the settlement. "
    "Moves are read from standard input, one a line, so a script can pipe them. Type q to "
    "quit, ? to list the placements again. Exit status: 0 when the match is over (or you "
    "quit), 130 at the end of input or Ctrl-C (the finished rounds are saved to --record), 1 "
    "when a strategy fails, 2 for bad options.",
    add_arguments, run_play)
