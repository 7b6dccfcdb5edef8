"""``pimc``: matchplay's search on large rounds, perfect-information search over inferred worlds
on small ones (:mod:`strategies.pimc`).

* When the public state leaves one world (two players, the boneyard drawn out: the unseen
  tiles are the opponent's hand), every sampled world is the true one, so ``pimc`` without
  prior plays a placement of the largest exact solver value on that world.
* While more than ``exact_below`` tiles are unplayed it plays exactly ``matchplay``'s row (the
  same settings, the same stream).
* The same view and stream give the same row; records of its matches verify (also in
  ``tests/strategies/test_legal.py``, and it reads nothing hidden: ``test_hidden.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import sim
import strategies
from core.tiles import N_TILES
from sim.verify import verify_record
from strategies import perfect_solver as P
from tests.support.endgames import copy_world, endgames, sealed_view
from core.rng import decision_state
from tests.support.views import params_for, read_only_view

BUDGET = {"worlds": 3.0, "node_limit": 10.0**9, "exact_below": 28.0, "prior_weight": 0.0, "model_beta": 0.0}
"""Enough nodes to solve each endgame exactly; a few worlds (all the same world here)."""


def drawn_out_endgames(count):
    """Two-player endgames whose boneyard is empty: one world is consistent with the view."""
    found = [(ws, view, seat) for ws, view, next_draw, seat in endgames(2, 60, (4, 9), 2611)
             if next_draw == N_TILES]
    assert len(found) >= count
    return found[:count]


def exact_values(ws, view, seat):
    values = np.full(view.n_candidates, np.nan)
    exact = P.solve_world(copy_world(ws), view, P.new_solver_scratch(),
                          P.solver_settings(node_limit=10**9), np.int64(N_TILES), np.int64(seat), values)
    assert exact == 1
    return values


def test_one_consistent_world_plays_a_best_exact_move():
    pimc = strategies.resolve("pimc")
    params = params_for("pimc", **BUDGET)
    spread = 0
    for ws, view, seat in drawn_out_endgames(12):
        values = exact_values(ws, view, seat)
        row = pimc.choose(sealed_view(view, params))
        assert 0 <= row < view.n_candidates
        assert values[row] >= values.max() - 1e-12, (seat, values, row)
        spread += values.max() - values.min() > 1e-9
    assert spread >= 3  # endgames where the choice matters


@pytest.mark.parametrize("players", [2, 4])
def test_large_rounds_play_matchplays_row(players):
    pimc, matchplay = strategies.resolve("pimc"), strategies.resolve("matchplay")
    mine = params_for("pimc", samples=6.0, exact_below=0.0)
    theirs = params_for("matchplay", samples=6.0)
    asked = 0
    for ws, view, next_draw, seat in endgames(players, 8, (12, 25), 90 + players):
        for stream in range(3):
            pimc_view = sealed_view(view, mine, next_draw=next_draw)._replace(rng=decision_state(stream, 1, seat))
            matchplay_view = pimc_view._replace(params=read_only_view(theirs), rng=decision_state(stream, 1, seat))
            assert pimc.choose(pimc_view) == matchplay.choose(matchplay_view)
            asked += 1
    assert asked == 24


def test_same_view_and_stream_same_row():
    pimc = strategies.resolve("pimc")
    params = params_for("pimc", worlds=4.0, node_limit=300.0, exact_below=28.0)
    for ws, view, next_draw, seat in endgames(3, 6, (10, 16), 77):
        first = pimc.choose(sealed_view(view, params, next_draw=next_draw))
        assert pimc.choose(sealed_view(view, params, next_draw=next_draw)) == first


@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_verify(compiled_engine, players):
    """Small budgets (the same code at any budget) against matchplay and greedy."""
    small = "pimc[worlds=3,node_limit=200,samples=4]"
    seats = {2: [small, "matchplay[samples=4]"], 3: [small, "greedy", "matchplay[samples=4]"],
             4: [small, "greedy"]}[players]
    records = sim.record(players, seats, 40, seed=players)
    assert len(records) == 40
    for record in records:
        assert verify_record(record) == [], record["match"]
