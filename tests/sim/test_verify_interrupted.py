"""Records of quit matches (``"interrupted": true``): ``five-up verify`` counts them apart.

A record marked interrupted holds the rounds finished before the player quit (winner null,
the scores after them). Verify replays them action by action as any record's: a valid one
counts as interrupted (exit 0 when nothing is invalid), one whose finished rounds break a
rule is invalid (exit 1) with the first failing action, and one marked interrupted that is
not a quit match (the match ended, or its last round stops before its end) is invalid too.
A record that stops early without the mark stays invalid. The records are the reference's
(:func:`sim.reference.play_match`) cut after a round, and a
:class:`sim.bridges.match_state.MatchState` stopped inside a round as the terminal game's is
(its own quit record is checked in ``tests/human/test_human_game.py``).
"""

from __future__ import annotations

import functools
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from sim.bridges.match_state import MatchState
from sim.verify import is_interrupted, verify_paths, verify_record
from tests.support.paths import REPO

SEED = 7
STRATEGIES = {2: ["random", "greedy"], 3: ["greedy", "random", "random"],
              4: ["random", "greedy", "greedy", "random"]}
PLAYERS = (2, 3, 4)


@functools.cache
def _record_text(players: int, match: int = 0, max_rounds: int = 1000) -> str:
    from sim.reference import play_match

    return json.dumps(play_match(players, STRATEGIES[players], seed=SEED, match=match,
                                 max_rounds=max_rounds))


def complete(players: int, match: int = 0, max_rounds: int = 1000) -> dict:
    """A fresh copy of a valid seeded reference record of a whole match."""
    return json.loads(_record_text(players, match, max_rounds))


def quit_after(record: dict, rounds: int) -> dict:
    """``record`` as ``five-up play`` saves a match quit after ``rounds`` finished rounds."""
    del record["rounds"][rounds:]
    record["winner"] = None
    record["scores"] = list(record["rounds"][-1]["scores"])
    record["interrupted"] = True
    return record


def first_play(round_record: dict, after: int = 0) -> int:
    """Index of the round's first play action at or after ``after``."""
    return next(i for i, action in enumerate(round_record["actions"])
                if i >= after and action["type"] == "play")


def verify_lines(tmp_path, *records) -> tuple[int, list[str], str]:
    """``verify_paths`` on one file holding ``records``: (status, output lines, stderr)."""
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    out, err = io.StringIO(), io.StringIO()
    status = verify_paths([str(path)], out, err)
    return status, out.getvalue().splitlines(), err.getvalue()


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("kept", ["first", "all-but-one"])
def test_a_quit_match_is_valid_and_interrupted(players, kept):
    record = complete(players)
    assert verify_record(record) == [] and not is_interrupted(record)
    rounds = 1 if kept == "first" else len(record["rounds"]) - 1
    interrupted = quit_after(record, rounds)
    assert verify_record(interrupted) == []
    assert is_interrupted(interrupted)


def test_a_record_that_stops_early_without_the_mark_stays_invalid():
    record = quit_after(complete(2), 3)
    del record["interrupted"]
    assert verify_record(record) == ["the match stops after 3 rounds with no entity at 305 and "
                                     "below its round limit of 1000"]
    record["interrupted"] = False
    assert verify_record(record) == ["the match stops after 3 rounds with no entity at 305 and "
                                     "below its round limit of 1000"]
    assert verify_record(quit_after(complete(3), 1) | {"interrupted": False}) == [
        "the match stops after 1 round with no entity at 305 and below its round limit of 1000"]


@pytest.mark.parametrize("players", PLAYERS)
def test_a_broken_rule_in_the_finished_rounds_is_invalid_at_its_action(players):
    record = quit_after(complete(players), 3)
    index = first_play(record["rounds"][1], after=1)
    action = record["rounds"][1]["actions"][index]
    action["points"] += 5
    assert verify_record(record) == [f"round 2, action {index}: expected points "
                                     f"{action['points'] - 5}, found {action['points']}"]


def test_a_wrong_seat_or_a_wrong_draw_is_named_at_its_action():
    record = quit_after(complete(2, 1), 2)
    actions = record["rounds"][1]["actions"]
    draw = next(i for i, action in enumerate(actions) if action["type"] == "draw")
    wrong = [low for low in range(7) if [low, 6 - low] != sorted(actions[draw]["tile"])][0]
    expected = "-".join(map(str, sorted(actions[draw]["tile"])))
    actions[draw]["tile"] = [wrong, 6 - wrong]
    assert verify_record(record) == [f"round 2, action {draw}: expected draw of {expected} "
                                     f"(front of the boneyard), found {wrong}-{6 - wrong}"]
    record = quit_after(complete(2, 1), 2)
    first = record["rounds"][0]["actions"][0]
    mover = first["seat"]
    first["seat"] = 1 - mover
    assert verify_record(record) == [f"round 1, action 0: expected seat {mover} to act, "
                                     f"found seat {1 - mover}"]


def test_an_interrupted_record_keeps_whole_rounds_only():
    record = quit_after(complete(4), 2)
    actions = record["rounds"][1]["actions"]
    cut = len(actions) // 2
    del actions[cut:]
    problem = verify_record(record)
    assert len(problem) == 1 and problem[0].startswith("round 2: the actions stop before the "
                                                       "round ends (seat ")
    assert problem[0].endswith("to act); an interrupted record holds finished rounds only")


def test_a_match_that_ended_is_not_interrupted():
    won = complete(2) | {"interrupted": True}
    winner, last = won["winner"], len(won["rounds"]) - 1
    assert verify_record(won) == [f"marked interrupted, but the match ended: entity {winner} "
                                  f"reached 305 in round {last + 1}"]
    limit = complete(3, 0, max_rounds=3)
    assert limit["winner"] is None and verify_record(limit) == []
    assert verify_record(limit | {"interrupted": True}) == [
        "marked interrupted, but the match ended at its round limit of 3"]


@pytest.mark.parametrize(("mark", "shown"), [("yes", "'yes'"), (1, "1"), (None, "null"),
                                             ([True], "[True]")])
def test_the_mark_is_true_or_false(mark, shown):
    record = quit_after(complete(2), 2) | {"interrupted": mark}
    assert verify_record(record) == [f"expected interrupted true or false, found {shown}"]


def test_summary_lines_and_exit_status(tmp_path):
    whole = complete(2)
    quit_two = quit_after(complete(3), 2)
    quit_one = quit_after(complete(4), 1)
    broken = quit_after(complete(2, 1), 2)
    index = first_play(broken["rounds"][0], after=1)
    broken["rounds"][0]["actions"][index]["points"] += 5
    path = tmp_path / "records.jsonl"

    status, lines, err = verify_lines(tmp_path, quit_one)
    assert (status, err) == (0, "")
    assert lines == [f"{path}:1: interrupted after 1 finished round: the actions and scores so "
                     "far are valid",
                     "1 record: 0 valid, 1 interrupted, 0 invalid"]

    status, lines, _ = verify_lines(tmp_path, whole, quit_two, quit_one)
    assert status == 0
    assert lines == [f"{path}:2: interrupted after 2 finished rounds: the actions and scores so "
                     "far are valid",
                     f"{path}:3: interrupted after 1 finished round: the actions and scores so "
                     "far are valid",
                     "3 records: 1 valid, 2 interrupted, 0 invalid"]

    status, lines, _ = verify_lines(tmp_path, quit_two, broken, whole)
    assert status == 1
    assert lines[1].startswith(f"{path}:2: round 1, action {index}: expected points ")
    assert lines[2] == "3 records: 1 valid, 1 interrupted, 1 invalid"

    status, lines, _ = verify_lines(tmp_path, whole)
    assert (status, lines) == (0, ["1 record: 1 valid, 0 invalid"])  # no interrupted count


def test_five_up_verify_exits_0_on_a_quit_match_and_1_on_a_broken_one(tmp_path):
    good = tmp_path / "quit.jsonl"
    good.write_text(json.dumps(quit_after(complete(2), 2)) + "\n")
    bad_record = quit_after(complete(2), 2)
    r = next(r for r, rnd in enumerate(bad_record["rounds"]) if rnd["events"])
    event = bad_record["rounds"][r]["events"][0]
    event["raw"] += 5
    bad = tmp_path / "broken.jsonl"
    bad.write_text(json.dumps(bad_record) + "\n")
    runs = [subprocess.run([sys.executable, "-m", "cli", "verify", str(path)], check=False,
                           capture_output=True, text=True, cwd=REPO, timeout=120)
            for path in (good, bad)]
    assert [run.returncode for run in runs] == [0, 1]
    assert runs[0].stdout.splitlines()[-1] == "1 record: 0 valid, 1 interrupted, 0 invalid"
    assert runs[1].stdout.splitlines() == [f"{bad}:1: round {r + 1}, event 0: expected raw "
                                           f"{event['raw'] - 5}, found {event['raw']}",
                                           "1 record: 0 valid, 1 invalid"]
    assert runs[0].stderr == runs[1].stderr == ""


@pytest.mark.parametrize("players", PLAYERS)
def test_a_match_state_stopped_inside_a_round_records_its_finished_rounds(players):
    # As the terminal game's quit: a round is under way and has scored already; the record
    # holds the finished rounds and the scores after them, not the scores of the open round.
    rng = np.random.default_rng(players)
    state = MatchState(players)
    while not (state.rounds_played >= 1
               and state.scores() != list(state.finished_rounds[-1].scores)):
        assert not state.is_terminal()
        if state.is_chance_node():
            outcomes = [outcome for outcome, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    record = state.record(STRATEGIES[players]) | {"interrupted": True}
    assert record["scores"] == list(state.finished_rounds[-1].scores) != state.scores()
    assert record["winner"] is None and len(record["rounds"]) == state.rounds_played
    assert verify_record(record) == [] and is_interrupted(record)
