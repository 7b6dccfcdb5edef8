"""``five-up play``: scripted moves on standard input play whole matches whose records verify,
bad lines get one line each, end of input saves the finished rounds, bad options one line, and
in a real terminal (tmux) the screen shows the hand, the numbered placements and the scores, and
Ctrl-C stops with one line; ``--hint`` shows the search's best placement before each choice.
Every line is wrapped to the terminal's width between words; the prompt reads "move 1-N";
counts read singular for one."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import time
import uuid

import numpy as np
import pytest

from cli.arguments import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from cli.main import main
from cli.play_command import KEPT_TOGETHER, compile_notice, prompt_text, typed_numbers, wrap_line
from core.rng import decision_state
from sim.human.human_game import HumanGame
from sim.verify import verify_file, verify_record
from strategies.catalogue import resolve
from strategies.move_values import move_values
from tests.support.paths import REPO

ENOUGH_MOVES = 400
"""More input lines than any match needs (a human places at most 28 tiles a round)."""


WIDE = 1000
"""Columns wider than any line the game builds: each message is printed as one line."""


def run_play(monkeypatch, capsys, moves: str, *args, columns: int = WIDE):
    """``five-up play ARGS`` in this process with ``moves`` on standard input (not a terminal)
    and ``columns`` as the terminal's width (``COLUMNS``: the width the game wraps to)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(moves))
    monkeypatch.setenv("COLUMNS", str(columns))
    try:
        status = main(["play", *args])
    except SystemExit as exit:
        status = exit.code
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, captured.out, captured.err)


@pytest.mark.parametrize("players,seat,vs", [("2", "1", "greedy"), ("3", "0", "greedy,random"),
                                             ("4", "2", "greedy")])
def test_piped_moves_play_a_whole_match_whose_record_verifies(monkeypatch, capsys, tmp_path,
                                                              players, seat, vs):
    out = tmp_path / "match.jsonl"
    result = run_play(monkeypatch, capsys, "1\n" * ENOUGH_MOVES, "--players", players, "--seat",
                      seat, "--vs", vs, "--seed", "7", "--record", str(out))
    assert result.returncode == EXIT_OK, result.stderr
    assert result.stderr == ""
    assert "== Match over:" in result.stdout and "Your move" not in result.stdout  # no prompt
    report = verify_file(str(out))
    assert (report.total, report.problems) == (1, [])
    record = json.loads(out.read_text())
    assert record["strategies"][int(seat)] == "human" and record["seed"] == 7
    assert result.stdout.rstrip().endswith(f"record written to {out}.")


def first_decision(seed: int) -> HumanGame:
    """The default game (2 players, seat 0 against greedy) of ``seed`` at its first decision."""
    game = HumanGame(2, 0, ["greedy"], seed=seed)
    game.advance_until_human()
    return game


def test_bad_lines_get_one_line_each_and_the_game_goes_on(monkeypatch, capsys, tmp_path):
    out = tmp_path / "match.jsonl"
    result = run_play(monkeypatch, capsys, "x\n\n999\n0\n?\n" + "1\n" * ENOUGH_MOVES,
                      "--seed", "3", "--record", str(out))
    assert result.returncode == EXIT_OK
    choices = [f"  {choice.text()}" for choice in first_decision(3).choices()]
    k = len(choices)
    lines = result.stdout.splitlines()
    start = lines.index("Your placements:") + 1
    assert lines[start:start + k] == choices
    assert lines[start + k:start + 2 * k + 4] == [
        f"'x' is not a placement number: type 1..{k}, or q to quit.",
        f"Empty line: type a placement number 1..{k}, or q to quit.",
        f"There is no placement 999: type 1..{k}, or q to quit.",
        f"There is no placement 0: type 1..{k}, or q to quit.",
    ] + choices  # "?" lists the placements again
    assert lines[start + 2 * k + 4].startswith("You ")  # then "1" is played
    assert verify_file(str(out)).problems == []
    assert "Traceback" not in result.stdout + result.stderr


def test_end_of_input_saves_the_finished_rounds_and_exits_with_one_line(monkeypatch, capsys,
                                                                        tmp_path):
    out = tmp_path / "partial.jsonl"
    result = run_play(monkeypatch, capsys, "1\n" * 12, "--seed", "5", "--record", str(out))
    assert result.returncode == EXIT_INTERRUPTED
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("five-up: end of input after ")
    record = json.loads(out.read_text())
    assert record["winner"] is None and record["interrupted"] is True and record["rounds"]
    rounds = len(record["rounds"])
    assert f"partial record ({rounds} finished round" in result.stderr
    # every finished round replays; verify counts the record as interrupted, not invalid
    assert verify_file(str(out)).interrupted == [(1, rounds)] and verify_record(record) == []


def test_quit_saves_what_is_finished_and_exits_0(monkeypatch, capsys, tmp_path):
    out = tmp_path / "quit.jsonl"
    result = run_play(monkeypatch, capsys, "q\n", "--record", str(out))
    assert result.returncode == EXIT_OK
    assert result.stderr == ("five-up: quit after 0 finished rounds; no record written "
                             "(no round finished)\n")
    assert not out.exists()


@pytest.mark.parametrize("args,words", [
    (["--seat", "2"], "--seat must be between 0 and 1, found 2"),
    (["--players", "5"], "--players must be 2, 3 or 4"),
    (["--vs", "nope"], "unknown strategy 'nope'"),
    (["--vs", "cheater"], "sees hidden information"),
    (["--players", "4", "--vs", "greedy,random"], "--vs takes one strategy or one per other seat"),
    (["--vs", "greedy,"], "--vs has an empty entry"),
    (["--seed", "-1"], "--seed"),
    (["--record", "/no/such/directory/m.jsonl"], "directory /no/such/directory does not exist"),
])
def test_bad_options_get_one_line_and_status_2(monkeypatch, capsys, args, words):
    result = run_play(monkeypatch, capsys, "", *args)
    assert result.returncode == EXIT_USAGE
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("five-up: error: ")
    assert words in result.stderr


def test_help_names_the_default_seed_and_record(capsys):
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("default 61", "every run is reproducible", "Default: no record", "five-up verify",
                  "winner null", "130"):
        assert words in text, words


TMUX = shutil.which("tmux")


def tmux(*args) -> str:
    return subprocess.run([TMUX, *args], capture_output=True, text=True, check=True,
                          timeout=30).stdout


def wait_for_screen(session: str, words: str, timeout: float = 300.0) -> str:
    """The pane's text once it shows ``words`` (the first compile may take a while)."""
    deadline = time.monotonic() + timeout
    while True:
        screen = tmux("capture-pane", "-p", "-t", session)
        if words in screen or time.monotonic() > deadline:
            return screen
        time.sleep(0.2)


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_in_a_real_terminal_the_screen_shows_hand_placements_and_scores(tmp_path):
    game = first_decision(2)
    choices = [f"  {choice.text()}" for choice in game.choices()]
    expected = game.screen() + ["Your placements:"] + choices
    played = game.choose(1)[0]
    session = f"five-up-play-{uuid.uuid4().hex[:8]}"
    out = tmp_path / "tty.jsonl"
    # Without COLUMNS and LINES, which pytest-xdist's workers set (80 x 24) and a tmux server they
    # start hands on: the game must wrap to the pane's own width, as in a user's terminal.
    command = " ".join(["env", "-u", "COLUMNS", "-u", "LINES", sys.executable, "-m", "cli", "play",
                        "--seed", "2", "--record", str(out)])
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "80", "-c", str(REPO),
         f"{command}; sleep 60")
    try:
        screen = wait_for_screen(session, "Your move 1")
        assert prompt_text(len(choices)).strip() in screen, screen
        for line in expected:  # the hand, the scores, hand sizes, layout, numbered placements
            assert line.rstrip() in screen, (line, screen)
        assert "Your hand: " in screen and "Scores: you 0 (0 raw)" in screen
        tmux("send-keys", "-t", session, "oops", "Enter")
        screen = wait_for_screen(session, "'oops' is not a placement number")
        assert "'oops' is not a placement number" in screen
        tmux("send-keys", "-t", session, "1", "Enter")
        screen = wait_for_screen(session, played)
        assert played in screen
        tmux("send-keys", "-t", session, "C-c")  # Ctrl-C at the prompt: one line, no traceback
        screen = wait_for_screen(session, "five-up: interrupted after")
        assert "five-up: interrupted after 0 finished rounds; no record written (no round " \
            "finished)" in screen, screen
        assert "Traceback" not in screen
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], check=False, capture_output=True,
                       timeout=30)


def test_hint_names_the_searchs_best_legal_placement_the_same_each_time():
    game = first_decision(11)
    while len(game.choices()) < 2:
        game.choose(1)
        game.advance_until_human()
    hint = game.hint(worlds=6, node_limit=200)
    match = re.fullmatch(r"Hint: (\d+)\) .+: win probability (\d+)% \[(\d+), (\d+)\] by the search "
                         r"\(6 sampled worlds\)", hint)
    assert match, hint
    number, value, low, high = (int(g) for g in match.groups())
    assert 1 <= number <= len(game.choices()) and 0 <= low <= value <= high <= 100
    assert game.hint(worlds=6, node_limit=200) == hint  # the same moment, the same worlds
    view = game.state.view(np.zeros((2, 1)))
    stream = decision_state(11, len(game.state.history()), 0)
    assert int(np.argmax(move_values(view, 6, 200, stream).means)) + 1 == number


def test_the_hints_interval_holds_the_win_tables_error(monkeypatch):
    """The hint's win probability is looked up in the estimated win table: its interval holds
    the table's error (the values again under each replicate table) beside the worlds' spread:
    this decision's values are table cells with a spread over the replicates, and the hint's
    interval widens with that spread."""
    from sim.human import human_game
    from strategies import move_values as values_module

    game = first_decision(11)
    while len(game.choices()) < 2:
        game.choose(1)
        game.advance_until_human()

    def width(text):
        low, high = re.search(r"\[(\d+), (\d+)\]", text).groups()
        return int(high) - int(low)

    view = game.state.view(np.zeros((2, 1)))
    stream = decision_state(11, len(game.state.history()), 0)
    means, table, share = move_values(view, 8, 200, stream)
    *_, best_se, looked_up = values_module.table_error(2, table, share, int(np.argmax(means)))
    assert looked_up > 0 and best_se > 0
    plain = game.hint(worlds=8, node_limit=200)
    monkeypatch.setattr(human_game, "table_error", lambda *args: (0.0, 0.0, 0.1, 1.0))
    wider = game.hint(worlds=8, node_limit=200)  # a table error of 10 points: about +-20
    assert width(wider) >= width(plain) + 30, (plain, wider)


def test_play_with_hint_shows_one_before_each_choice_of_two_or_more(monkeypatch, capsys):
    result = run_play(monkeypatch, capsys, "1\n1\n1\nq\n", "--seed", "3", "--hint")
    assert result.returncode == EXIT_OK
    hints = [line for line in result.stdout.splitlines() if line.startswith("Hint: ")]
    assert 1 <= len(hints) <= 3 and all("win probability" in line for line in hints)


def test_the_prompt_reads_as_move_numbers_not_as_a_tile():
    assert prompt_text(5) == "Your move 1-5 (q quits): "
    assert prompt_text(1) == "Your move 1 (q quits): "  # "1-1" would read as the tile 1-1
    assert (typed_numbers(1), typed_numbers(4)) == ("1", "1..4")


def test_a_bad_line_at_a_single_placement_names_that_one_number(monkeypatch, capsys):
    game = first_decision(2)
    played = 0
    while len(game.choices()) != 1:  # the first placement each time, until only one is legal
        game.choose(1)
        game.advance_until_human()
        played += 1
        assert not game.over
    result = run_play(monkeypatch, capsys, "1\n" * played + "x\nq\n", "--seed", "2")
    assert "'x' is not a placement number: type 1, or q to quit." in result.stdout.splitlines()


@pytest.mark.parametrize("columns", [80, 120])
def test_every_line_is_wrapped_to_the_terminal_between_words(monkeypatch, capsys, columns):
    """The same match at ``columns`` and unwrapped: no line longer than the terminal, the same
    words in the same order (none broken, none joined), scores like ``3 (15 raw)`` and tiles
    like ``5-6`` whole on one line, and every line that fits kept as it is."""
    moves = "1\n" * ENOUGH_MOVES
    args = ("--players", "3", "--seed", "7", "--hint")
    # A first run prepares the strategies: the "Preparing ..." notice shows only in a process
    # that has not compiled them yet, so the two compared runs must both come after it.
    run_play(monkeypatch, capsys, moves, *args)
    wide = run_play(monkeypatch, capsys, moves, *args).stdout.splitlines()
    narrow = run_play(monkeypatch, capsys, moves, *args, columns=columns).stdout.splitlines()
    assert max(map(len, wide)) > columns  # the match has lines to wrap at this width
    assert max(map(len, narrow)) <= columns
    assert " ".join(narrow).split() == " ".join(wide).split()
    narrow_lines = set(narrow)
    for line in wide:
        if len(line) <= columns:
            assert line in narrow_lines, line
        for span in KEPT_TOGETHER.findall(line):
            assert any(span in piece for piece in narrow), (span, line)
    assert any(re.search(r"\d+ \(\d+ raw\)", line) for line in wide)  # spans were checked


def test_wrapping_keeps_long_words_and_tiles_whole_and_aligns_continuations():
    assert wrap_line("a-very-long-word-indeed and more", 8) == ["a-very-long-word-indeed", "  and",
                                                                  "  more"]
    pieces = wrap_line("  3) 5-6 on the right end (3-5): scores 3 (15 raw); passes 61", 30)
    # the score stays with its raw points, a short aside with the word before it
    assert pieces == ["  3) 5-6 on the right", "     end (3-5): scores", "     3 (15 raw); passes 61"]
    assert wrap_line("  line: 1-3 3-3* [3-5]", 22) == ["  line: 1-3 3-3* [3-5]"]  # it fits


def test_the_stop_message_is_wrapped_like_the_game(monkeypatch, capsys, tmp_path):
    out = tmp_path / ("a-long-directory-name-" * 3) / "partial.jsonl"
    out.parent.mkdir()
    result = run_play(monkeypatch, capsys, "1\n" * 12, "--seed", "5", "--record", str(out),
                      columns=60)
    lines = result.stderr.splitlines()
    assert result.returncode == EXIT_INTERRUPTED and len(lines) > 1
    assert max(map(len, lines[:-1])) <= 60 and lines[0].startswith("five-up: end of input")
    assert " ".join(lines).split()[-1] == str(out)  # the path is one word: never broken


def human_moves_until(seed: int, rounds: int) -> int:
    """How many human choices (the first placement each time) finish ``rounds`` rounds of the
    default game of ``seed``."""
    game = first_decision(seed)
    moves = 0
    while game.state.rounds_played < rounds:
        game.choose(1)
        game.advance_until_human()
        moves += 1
    return moves


@pytest.mark.parametrize("rounds,words", [(1, "1 finished round"), (2, "2 finished rounds")])
def test_quitting_counts_the_finished_rounds(monkeypatch, capsys, tmp_path, rounds, words):
    out = tmp_path / "quit.jsonl"
    moves = "1\n" * human_moves_until(5, rounds) + "q\n"
    result = run_play(monkeypatch, capsys, moves, "--seed", "5", "--record", str(out))
    assert result.returncode == EXIT_OK
    assert result.stderr == (f"five-up: quit after {words}; partial record ({words}, winner "
                             f"null) written to {out}\n")


@pytest.mark.parametrize("worlds,words", [(1, "(1 sampled world)"), (2, "(2 sampled worlds)")])
def test_the_hint_counts_its_worlds(worlds, words):
    game = first_decision(11)
    while len(game.choices()) < 2:
        game.choose(1)
        game.advance_until_human()
    assert game.hint(worlds=worlds, node_limit=100).endswith(f"by the search {words}")


def test_the_compile_notice_names_the_strategies_waiting_and_no_other():
    """It once said "rollout takes about half a minute" whatever was being prepared."""
    greedy, weighted = resolve("greedy"), resolve("weighted")
    assert compile_notice([greedy, weighted, greedy]) == (
        "Preparing greedy, weighted (compiled for this process: a few seconds; the first time on "
        "a machine, up to a minute or two)...")
