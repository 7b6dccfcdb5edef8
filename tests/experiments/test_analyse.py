"""Move-by-move analysis of a record (:mod:`experiments.tools.analyse`, ``five-up analyse``).

* One row per decision of the seat with two or more placements; the played move is one of
  them, its rank and the loss agree with the values, the intervals hold their means.
* It uses only what the analysed seat knew: moving another seat's never-played tile into the
  never-drawn part of the boneyard (the public history unchanged) leaves every value of the
  seat unchanged (the worlds come from the seat's view and the analysis seed alone).
* The same record and seed give the same frame; the command writes its three files, and bad
  input is one line with status 2; ``five-up show --html --analysis DIR`` puts every analysed
  decision on its step of the replay page.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from experiments.tools import analyse
from sim.bridges.record_replay import replay_decisions
from sim.records import write_records
from tests.support.plugins import call_cli

SMALL = {"worlds": 6, "node_limit": 200}
"""A small budget: the same code at any budget."""


@pytest.fixture(scope="module")
def record(compiled_engine):
    record, = compiled_engine.record(2, ["greedy", "rollout"], 1, seed=11, first_match=2)
    return record


def test_rows_agree_with_their_values(record):
    moves = analyse.analyse_match(record, 0, **SMALL)
    forced = sum(1 for d in replay_decisions(record) if d.seat == 0 and len(d.state.legal_actions()) < 2)
    plays = sum(1 for r in record["rounds"] for a in r["actions"] if a["type"] == "play" and a["seat"] == 0)
    assert len(moves) == plays - forced > 10
    assert (moves["candidates"] >= 2).all() and (moves["seat"] == 0).all()
    assert moves["decision"].tolist() == list(range(len(moves)))
    assert np.allclose(moves["loss"], moves["best_value"] - moves["played_value"])
    assert (moves["loss"] >= -1e-12).all()
    assert ((moves["played_rank"] == 1) == (moves["loss"] <= 1e-12)).all()
    assert (moves["loss_low"] <= moves["loss"] + 1e-12).all() and (moves["loss"] <= moves["loss_high"] + 1e-12).all()
    assert (moves["played_low"] <= moves["played_value"] + 1e-12).all()
    assert ((0 <= moves["played_value"]) & (moves["played_value"] <= 1)).all()
    assert (moves["unit"] == analyse.WIN_PROBABILITY).all()
    assert moves.equals(analyse.analyse_match(record, 0, **SMALL))


def hidden_swaps(record, seat):
    """Copies of ``record`` where, in its last round, a tile ``seat`` never played changes place
    with a tile never drawn (at most 3 copies)."""
    last = record["rounds"][-1]
    played = {tuple(sorted(a["tile"])) for a in last["actions"] if a["type"] == "play"}
    drawn = sum(1 for a in last["actions"] if a["type"] == "draw")
    kept = [k for k, tile in enumerate(last["hands"][seat]) if tuple(sorted(tile)) not in played]
    for k in kept:
        for j in range(drawn, len(last["boneyard"])):
            other = copy.deepcopy(record)
            round_record = other["rounds"][-1]
            round_record["hands"][seat][k], round_record["boneyard"][j] = \
                round_record["boneyard"][j], round_record["hands"][seat][k]
            yield other


def last_round_decisions(record, seat):
    """Per decision of ``seat`` in the last round: its view's every public field."""
    last = len(record["rounds"]) - 1
    return [decision.state.view(np.zeros((2, 1)))[:20] for decision in replay_decisions(record)
            if decision.round == last and decision.seat == seat]


def same_public_history(record, other, seat):
    try:
        mine = last_round_decisions(other, seat)
    except ValueError:
        return False  # the swap changed what the other seat could do: not the same history
    reference = last_round_decisions(record, seat)
    return len(mine) == len(reference) and all(
        all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(x, y))
        for x, y in zip(mine, reference))


def test_another_seats_hidden_tiles_change_nothing(record):
    last = len(record["rounds"])
    moves = analyse.analyse_match(record, 0, **SMALL)
    ours = moves[moves["round"] == last]
    assert len(ours) >= 2
    tried = 0
    for other in hidden_swaps(record, 1):
        if not same_public_history(record, other, 0):
            continue
        theirs = analyse.analyse_match(other, 0, **SMALL)
        theirs = theirs[theirs["round"] == last]
        assert theirs.reset_index(drop=True).equals(ours.reset_index(drop=True))
        tried += 1
        if tried == 2:
            break
    assert tried >= 1


def test_command_writes_its_files_and_refuses_bad_input(record, tmp_path):
    path = tmp_path / "match.jsonl"
    write_records(path, [record])
    out = tmp_path / "analysis"
    done = call_cli("analyse", str(path), "--seat", "1", "--out", str(out), "--worlds", "4",
                    "--node-limit", "100", "--quiet")
    assert done.returncode == 0 and "decisions of seat 1" in done.stdout, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["analysis.csv", "analysis.md", "run.json", "winprob.png"]
    assert "# Analysis of seat 1, match 0 of match.jsonl" in (out / "analysis.md").read_text()
    page = tmp_path / "match.html"
    shown = call_cli("show", str(path), "--html", str(page), "--seat", "1", "--analysis", str(out))
    assert shown.returncode == 0, shown.stderr
    assert page.read_text().count('"analysis":{"played":') == len(analyse.analyse_match(record, 1, worlds=4, node_limit=100))
    for args, message in [
        (["show", str(path), "--html", str(page), "--seat", "0", "--analysis", str(out)], "seat 1, not --seat 0"),
        (["show", str(path), "--html", str(page), "--analysis", str(tmp_path / "none")], "cannot read the analysis"),
        (["analyse", str(tmp_path / "none.jsonl"), "--out", str(out)], "cannot read"),
        (["analyse", str(path), "--seat", "2", "--out", str(out)], "--seat"),
        (["analyse", str(path), "--worlds", "1", "--out", str(out)], "--worlds"),
        (["analyse", str(path), "--match", "3", "--out", str(out)], "no match 3"),
        (["analyse", str(path), "--seat", "0", "--out", str(out), "--worlds", "4"], "holds a different run"),
    ]:
        refused = call_cli(*args)
        error = refused.stderr.strip().splitlines()
        assert refused.returncode == 2 and len(error) == 1 and message in error[0], (args, error)
