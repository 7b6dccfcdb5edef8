"""``matchplay``: its valuation by hand, its components off = ``rollout``'s search, determinism."""

from __future__ import annotations

import numpy as np
import pytest

import sim
import strategies
from core import state as K
from strategies.lookahead import new_scratch
from strategies.matchplay import LEAD_LOT, LEAD_OTHER, LEAD_OWN, TABLE_ROW, outcome_value
from strategies.winprob_table import WIN_TABLE
from tests.support.views import Table, params_for, random_tables

ROLLOUT_SEARCH = dict(samples=16, prior_weight=5 / 305, halving=0, inference=0, match_value=0,
                      playout_doubles=0, model_beta=0)
"""The parameters under which matchplay's search is rollout's (module docstring)."""


def _end_state(players, start, end_scores, empty_seat=None):
    table = Table(players, (3, 5), [], [[(0, 0)], [(1, 1)], [(2, 2)], [(4, 4)]][:players], scores=start)
    view = table.view(0, params_for("matchplay"))
    ws = new_scratch()
    ws.scores[: len(end_scores)] = end_scores
    ws.hand_sizes[:players] = 1
    if empty_seat is not None:
        ws.hand_sizes[empty_seat] = 0
    return ws, view


@pytest.mark.parametrize("players", [2, 4])
def test_outcomes_are_valued_by_the_table(players):
    row = TABLE_ROW[players]
    ws, view = _end_state(players, [100, 150], [150, 160], empty_seat=0)
    assert outcome_value(ws, view, K.END_DOMINO, 1.0, 0.0) == pytest.approx(WIN_TABLE[row, 30, 32, LEAD_OWN])
    ws, view = _end_state(players, [100, 150], [150, 160], empty_seat=1)
    assert outcome_value(ws, view, K.END_DOMINO, 1.0, 0.0) == pytest.approx(WIN_TABLE[row, 30, 32, LEAD_OTHER])
    ws, view = _end_state(players, [100, 150], [150, 160])
    assert outcome_value(ws, view, K.END_BLOCKED, 1.0, 0.0) == pytest.approx(WIN_TABLE[row, 30, 32, LEAD_LOT])
    # The raw differential: own +50, other +10 -> 40 / 305, weighted by raw_weight.
    assert outcome_value(ws, view, K.END_BLOCKED, 1.0, 2.0) == pytest.approx(
        WIN_TABLE[row, 30, 32, LEAD_LOT] + 2.0 * 40 / 305)
    assert outcome_value(ws, view, K.END_BLOCKED, 0.0, 0.0) == pytest.approx(40 / 305)
    ws, view = _end_state(players, [100, 150], [305, 160])
    assert outcome_value(ws, view, K.END_TARGET, 1.0, 0.0) == 1.0
    ws, view = _end_state(players, [100, 150], [150, 305])
    assert outcome_value(ws, view, K.END_TARGET, 1.0, 0.0) == 0.0


def test_a_negative_partnership_score_reads_the_zero_row():
    ws, view = _end_state(4, [0, 150], [-10, 160])
    assert outcome_value(ws, view, K.END_BLOCKED, 1.0, 0.0) == pytest.approx(WIN_TABLE[1, 0, 32, LEAD_LOT])


def test_three_players_use_the_raw_differential():
    ws, view = _end_state(3, [100, 150, 0], [150, 160, 30])
    assert outcome_value(ws, view, K.END_BLOCKED, 1.0, 0.0) == pytest.approx((50 - (10 + 30) / 2) / 305)


def test_with_every_component_off_it_is_rollouts_search():
    generator = np.random.default_rng(5)
    matchplay = strategies.resolve("matchplay")
    rollout = strategies.resolve("rollout")
    asked = same = 0
    for case, table, _ in random_tables(generator, 60):
        mine = table.view(0, params_for("matchplay", **ROLLOUT_SEARCH), stream=(case, 1))
        theirs = table.view(0, params_for("rollout"), stream=(case, 1))
        if mine.n_candidates < 2:
            continue
        asked += 1
        same += int(matchplay.choose(mine) == rollout.choose(theirs))
    assert asked >= 25
    assert same >= asked - 1  # equal up to a float tie broken the other way


def test_results_do_not_depend_on_the_thread_count():
    one = sim.simulate(2, ["matchplay", "rollout"], 24, seed=8, threads=1)
    two = sim.simulate(2, ["matchplay", "rollout"], 24, seed=8, threads=2)
    assert one.equals(two)
    four = sim.simulate(4, ["matchplay", "cheater"], 12, seed=8, threads=1, allow_hidden=True)
    assert four.equals(sim.simulate(4, ["matchplay", "cheater"], 12, seed=8, threads=2, allow_hidden=True))
