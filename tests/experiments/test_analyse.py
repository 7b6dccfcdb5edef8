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

from experiments.reporting import figures
from experiments.tools import analyse
from sim.bridges.record_replay import replay_decisions
from core.rng import decision_state
from sim.records import write_records
from strategies import winprob_table
from strategies.move_values import move_values
from strategies.winprob_codes import cells_of_values, exact_mask
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
    # the win table's error widens every interval beyond the worlds' own
    assert (moves["loss_low"] <= moves["loss_worlds_low"] + 1e-12).all()
    assert (moves["loss_high"] >= moves["loss_worlds_high"] - 1e-12).all()
    assert (moves["loss_table_se"] >= 0).all() and (moves["loss_table_se"] > 0).any()
    assert (moves["played_table_se"] > 0).any()
    assert ((0 <= moves["played_value"]) & (moves["played_value"] <= 1)).all()
    assert (moves["unit"] == analyse.WIN_PROBABILITY).all()
    assert moves.equals(analyse.analyse_match(record, 0, **SMALL))


def test_every_solved_value_is_a_table_cell_or_exact(record):
    """The search returns looked-up values unchanged: each world's value of each placement is a
    table cell's (decoded to its cell) or exact (a finished match: 0 or 1, or an exact cell),
    so the replicate tables can value the same lines again."""
    row = 0  # 2 players
    table = winprob_table.WIN_TABLE[row]
    exact = set(np.unique(table[exact_mask(table.shape)]).tolist()) | {0.0, 1.0}
    found = 0
    for number, decision in enumerate(d for d in replay_decisions(record) if d.seat == 0):
        if len(decision.state.legal_actions()) < 2:
            continue
        view = decision.state.view(np.zeros((2, 1)))
        _, values, share = move_values(view, 6, 200, decision_state(0, number, 0))
        cells = cells_of_values(table, values[share > 0])
        undecoded = values[share > 0][cells < 0]
        assert all(v in exact for v in undecoded.tolist()), undecoded
        found += int((cells >= 0).sum())
        if number > 6:
            break
    assert found > 0


def test_a_loss_carries_the_tables_error(record, monkeypatch):
    """Replicate tables that move every cell by a common amount leave a loss alone (both moves'
    lines move together); replicates that move cells apart widen it."""
    moves = analyse.analyse_match(record, 0, **SMALL)
    same = np.stack([winprob_table.WIN_TABLE + np.float32(d) for d in (0.0, 0.01, -0.01)])
    monkeypatch.setattr(winprob_table, "replicate_tables", lambda: same)
    shifted = analyse.analyse_match(record, 0, **SMALL)
    np.testing.assert_allclose(shifted["loss"], moves["loss"])
    looked_up = shifted["looked_up"] == 1  # every line ends in a table cell: all move together
    assert looked_up.any() and shifted.loc[looked_up, "loss_table_se"].max() < 1e-6
    np.testing.assert_allclose(shifted.loc[looked_up, "loss_low"],
                               shifted.loc[looked_up, "loss_worlds_low"], atol=1e-6)
    assert shifted["loss_table_se"].max() <= 0.0101  # never more than the shift itself
    rng = np.random.default_rng(2)
    noisy = winprob_table.WIN_TABLE[None] + rng.normal(0, 0.05, (8,) + winprob_table.WIN_TABLE.shape)
    monkeypatch.setattr(winprob_table, "replicate_tables", lambda: noisy.astype(np.float32))
    widened = analyse.analyse_match(record, 0, **SMALL)
    assert (widened["loss_table_se"] > 0.005).mean() > 0.5
    assert ((widened["loss_high"] - widened["loss_low"])
            > (widened["loss_worlds_high"] - widened["loss_worlds_low"])).mean() > 0.5


def test_the_figure_prints(record, tmp_path, monkeypatch):
    monkeypatch.setenv(figures.AUDIT_ENV, "strict")
    moves = analyse.analyse_match(record, 0, **SMALL)
    settings = {"file": "x.jsonl", "match": 0, "seat": 0, "worlds": 6, "node_limit": 200,
                "seed": 0}
    figure = analyse.winprob_figure(moves, settings)
    assert figures.print_problems(figure) == []
    analyse.write_analysis(moves, settings, tmp_path)
    assert (tmp_path / "winprob.png").is_file()


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
