"""The perfect-information round solver (:mod:`strategies.perfect_solver`).

* On small endgames of engine-dealt rounds (the engine's own shuffle, played on with random
  placements through the one step core until few tiles are left) at 2, 3 and 4 players, every
  value equals plain minimax (written here: no pruning, no table, a copy of the world per
  move), and the solver says it is exact.
* With a node limit the values rest on playouts: defined, within the value range, reported
  inexact, the same on every call.
* The world is left as it was, and nothing past the candidates' rows is written.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import rules, step
from core import state as K
from core.tiles import N_TILES
from strategies import perfect_solver as P
from strategies.matchplay import outcome_value
from tests.support.endgames import copy_world, endgames, list_turn
from tests.support.traces import traced

ENDGAMES = 12
"""Endgames compared per table size in the default run (plain minimax in Python is slow)."""

ENDGAMES_SLOW = 30
"""Endgames compared per table size under the ``slow`` marker (the default run's among them)."""


def minimax(ws, view, seat, next_draw, tie_seat, root=False):
    """Plain minimax of ``seat``'s turn: every placement on a copy of the world, no pruning, no
    table; the deciding side maximises, every other seat minimises. Returns the node's value,
    or at the ``root`` the list of its placements' values."""
    players = int(view.players)
    entity_of_seat = view.entity_of_seat
    ws = copy_world(ws)
    count, next_draw = list_turn(ws, seat, next_draw)

    def after(child, end):
        if end != K.END_NONE:
            return outcome_value(child, view, end, 1.0, 0.0)
        if next_draw == N_TILES and rules.no_hand_can_play(child, players):
            blocked = step.settle_blocked(child, traced(), players, entity_of_seat,
                                          tie_seat)
            return outcome_value(child, view, blocked, 1.0, 0.0)
        return minimax(child, view, (seat + 1) % players, next_draw, tie_seat)

    if count == 0:
        return after(ws, K.END_NONE)
    values = []
    for row in range(count):
        child = copy_world(ws)
        c = ws.cands[row]
        end = step.place(child, traced(), players, entity_of_seat, seat,
                         int(c[K.CAND_TILE]), int(c[K.CAND_PARENT]), int(c[K.CAND_SIDE]),
                         int(c[K.CAND_JOINED]))
        values.append(after(child, end))
    if root:
        return values
    return max(values) if entity_of_seat[seat] == entity_of_seat[view.seat] else min(values)


def same_world(a, b):
    for name in ("hands", "hand_sizes", "scores", "open_count", "deal"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    nodes = b.board[K.BOARD_NODES]
    assert np.array_equal(a.nodes[:nodes], b.nodes[:nodes])
    for field in (K.BOARD_NODES, K.BOARD_TOTAL, K.BOARD_OPEN_VALUES, K.BOARD_PLAYED,
                  K.BOARD_OPEN_NODES):
        assert a.board[field] == b.board[field]
    listed = b.board[K.BOARD_OPEN_NODES]
    assert np.array_equal(a.open_nodes[:listed], b.open_nodes[:listed])


@pytest.mark.parametrize("players", [
    2, pytest.param(3, marks=pytest.mark.slow),  # 3 players: ~20 s; the long run covers it too
    4])
def test_values_equal_brute_force_minimax(players):
    check_against_minimax(players, ENDGAMES, 20 + players)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_values_equal_brute_force_minimax_long(players):
    check_against_minimax(players, ENDGAMES_SLOW, 20 + players)


def check_against_minimax(players, count, seed):
    """``count`` endgames dealt from ``seed``: the solver's values are minimax's, exact, no row
    past the candidates written, the world left as it was, and some endgames still draw."""
    scratch = P.new_solver_scratch()
    settings = P.solver_settings(node_limit=10**9)
    drawing = 0
    for ws, view, next_draw, seat in endgames(players, count, (6, 17), seed):
        world = copy_world(ws)
        values = np.full(view.n_candidates + 3, np.nan)
        exact = P.solve_world(world, view, scratch, settings, next_draw, seat, values)
        expected = minimax(ws, view, seat, next_draw, seat, root=True)
        assert exact == 1
        assert values[: view.n_candidates].tolist() == expected
        assert np.isnan(values[view.n_candidates:]).all()  # no row past the candidates
        same_world(world, ws)
        drawing += next_draw < N_TILES
    assert drawing > 0  # some endgames still have tiles to draw


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_node_limit_gives_defined_values_on_playouts(players):
    scratch = P.new_solver_scratch()
    inexact = 0
    for ws, view, next_draw, seat in endgames(players, 12, (18, 29), 40 + players):
        world = copy_world(ws)
        runs = []
        for _ in range(2):
            values = np.full(view.n_candidates, np.nan)
            exact = P.solve_world(world, view, scratch, P.solver_settings(node_limit=200),
                                  next_draw, seat, values)
            runs.append((exact, values))
        (exact, values), (again, values_again) = runs
        assert exact == again and np.array_equal(values, values_again)  # deterministic
        assert np.isfinite(values).all()
        if players != 3:  # a win probability (3 players: the raw differential)
            assert ((values >= 0) & (values <= 1)).all()
        inexact += exact == 0
        same_world(world, ws)
    assert inexact > 0
