"""``five-up play``: a terminal game for a human seat against strategies.

The game itself (rules, strategy seats, what the seat may see) is
:class:`sim.human.human_game.HumanGame`; this module only reads the moves from standard input
and prints what happens. Standard input may be a terminal (a prompt is shown) or a script
piping moves, one a line (no prompt; everything else the same).
"""

from __future__ import annotations

import sys

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
from sim.checks import check_int, check_players, check_seed
from sim.engine.python_seats import StrategyFailure
from sim.records import write_records
from sim.tiles import DEFAULT_MAX_ROUNDS
from strategies.catalogue import split_specs

QUIT_WORDS = ("q", "quit", "exit")
"""Inputs that stop the match (the finished rounds are saved)."""

HELP_WORDS = ("?", "h", "help")
"""Inputs that show the placements again."""

DEFAULT_OPPONENT = "greedy"
"""``--vs`` when none is given."""

COMPILE_NOTICE = ("Preparing {names} (compiled for this process: a few seconds; the first time "
                  "on a machine, rollout takes about half a minute)...")


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
             "winner null and \"interrupted\": true, which verify reports as stopped below its "
             "round limit."),
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
    """Standard input and output of the game: prompts only on a terminal."""

    def __init__(self, stdin, stdout):
        self.stdin = stdin
        self.stdout = stdout
        self.interactive = stdin.isatty()

    def show(self, lines) -> None:
        for line in lines:
            print(line, file=self.stdout)
        self.stdout.flush()

    def read(self, count: int) -> str | None:
        """One line of input, stripped; None at the end of input."""
        if self.interactive:
            try:
                return input(f"Your move (1-{count}, q to quit): ").strip()
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
            console.show([f"Empty line: type a placement number 1..{count}, or q to quit."])
            continue
        try:
            number = int(word)
        except ValueError:
            console.show([f"{text!r} is not a placement number: type 1..{count}, or q to quit."])
            continue
        if not 1 <= number <= count:
            console.show([f"There is no placement {number}: type 1..{count}, or q to quit."])
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
        return (f"partial record ({finished} finished round{'s' if finished != 1 else ''}, "
                f"winner null) written to {path}")
    return f"record written to {path}"


def stopped(game: HumanGame, path: str | None, why: str, status: int) -> int:
    """Stop early: save the finished rounds, print one line, return ``status``."""
    game.stop()
    rounds = game.state.rounds_played
    try:
        what = save(game, path)
    except OSError as exc:
        what = f"cannot write {path}: {exc.strerror or exc}"
        status = EXIT_FAILED
    print(f"{PROG}: {why} after {rounds} finished round{'s' if rounds != 1 else ''}; {what}",
          file=sys.stderr)
    return status


def play(game: HumanGame, console: Console, path: str | None, hint: bool = False) -> int:
    """The game loop; returns the exit status. With ``hint`` the search's best placement is
    shown before each of the human's choices (:meth:`HumanGame.hint`)."""
    try:
        waiting = [p.strategy.name for p in game.seats if p is not None and p.needs_compiling()]
        if waiting:
            console.show([COMPILE_NOTICE.format(names=", ".join(dict.fromkeys(waiting)))])
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
                return stopped(game, path, "end of input", EXIT_INTERRUPTED)
            if answer == "quit":
                return stopped(game, path, "quit", EXIT_OK)
            console.show(game.choose(answer))
            console.show(game.advance_until_human())
    except KeyboardInterrupt:
        return stopped(game, path, "interrupted", EXIT_INTERRUPTED)
    except StrategyFailure as exc:
        stopped(game, path, f"error: {exc}", EXIT_FAILED)
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
