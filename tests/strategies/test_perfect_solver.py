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

from sim.core import rules, step
from sim.core import state as K
from sim.core.rng import STREAM_DEAL, decision_state, shuffle_round_deal, stream_key
from sim.tiles import HAND_SIZE, N_TILES
from strategies import perfect_solver as P
from strategies.matchplay import outcome_value

SCORES = [0, 100, 200, 250, 270, 285, 295, 300]
"""Entity scores the endgames start from: near 305 the exact-61 rule discards events."""

ENDGAMES = {2: 30, 3: 30, 4: 30}
"""Endgames compared per table size."""


def copy_world(ws):
    return K.Workspace(*[array.copy() for array in ws])


def list_turn(ws, seat, next_draw):
    """The turn's placements as the rules make them (draws first if needed): (count, next_draw)."""
    trace = step.quiet_trace(ws)
    if ws.board[K.BOARD_NODES] == 0:
        return rules.list_openings(ws, np.int64(ws.hands[seat])), next_draw
    tiles = int(ws.hands[seat]) & int(rules.playable_tiles(ws))
    if tiles == 0:
        while next_draw < N_TILES:
            tile = int(ws.deal[next_draw])
            next_draw += 1
            step.draw_tile(ws, trace, seat, tile)
            if (1 << tile) & int(rules.playable_tiles(ws)):
                tiles = 1 << tile
                break
    if tiles == 0:
        return 0, next_draw
    return rules.list_placements(ws, np.int64(tiles)), next_draw


def endgame(seed, match, players, left, generator):
    """An engine-dealt round played on at random until a seat must choose with at most ``left``
    tiles in the hands and the boneyard: (world, seat, next_draw, count, entity_of_seat), or
    None if the round ended first."""
    ws = K.new_workspace()
    shuffle_round_deal(np.uint64(stream_key(seed, match, STREAM_DEAL)), 0, ws.deal)
    for seat in range(players):
        hand = 0
        for k in range(HAND_SIZE):
            hand |= 1 << int(ws.deal[seat * HAND_SIZE + k])
        ws.hands[seat] = hand
        ws.hand_sizes[seat] = HAND_SIZE
    entities = K.N_ENTITIES[players]
    ws.scores[:entities] = generator.choice(SCORES, size=entities)
    if players == 4 and generator.random() < 0.3:
        ws.scores[0] = -15  # a partner debit took the partnership below 0
    entity_of_seat = K.ENTITY_OF_SEAT[players, :players].copy()
    trace = step.quiet_trace(ws)
    seat = int(generator.integers(players))
    next_draw = players * HAND_SIZE
    while True:
        count, next_draw = list_turn(ws, seat, next_draw)
        left_now = int(ws.hand_sizes[:players].sum()) + N_TILES - next_draw
        if count >= 2 and left_now <= left:
            return ws, seat, next_draw, count, entity_of_seat
        if count > 0:
            c = ws.cands[int(generator.integers(count))]
            end = step.place(ws, trace, players, entity_of_seat, seat, int(c[K.CAND_TILE]),
                             int(c[K.CAND_PARENT]), int(c[K.CAND_SIDE]), int(c[K.CAND_JOINED]))
            if end != K.END_NONE:
                return None
        if next_draw == N_TILES and rules.no_hand_can_play(ws, players):
            return None
        seat = (seat + 1) % players


def view_of(ws, seat, players, count, entity_of_seat):
    """The deciding seat's view of the world, every array a copy (none points into the world)."""
    board = ws.board
    return K.PlayerView(
        np.int64(seat), np.int64(players), np.int64(ws.hands[seat]), entity_of_seat.copy(),
        ws.scores.copy(), ws.hand_sizes.copy(), ws.lacking.copy(), np.int64(0),
        np.int64(board[K.BOARD_PLAYED]), np.int64(board[K.BOARD_TOTAL]),
        np.int64(board[K.BOARD_OPEN_VALUES]), np.int64(board[K.BOARD_NODES]),
        ws.nodes[: board[K.BOARD_NODES]].copy(), ws.open_count.copy(),
        np.int64(board[K.BOARD_OPEN_NODES]), ws.open_nodes[: board[K.BOARD_OPEN_NODES]].copy(),
        np.int64(count), ws.cands[:count].copy(), np.zeros(1), decision_state(1, 2, seat),
        np.int64(0), ws.history[:0].copy(), ws.hands[:0].copy(), ws.deal[:0].copy(),
    )


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
            blocked = step.settle_blocked(child, step.quiet_trace(child), players, entity_of_seat,
                                          tie_seat)
            return outcome_value(child, view, blocked, 1.0, 0.0)
        return minimax(child, view, (seat + 1) % players, next_draw, tie_seat)

    if count == 0:
        return after(ws, K.END_NONE)
    values = []
    for row in range(count):
        child = copy_world(ws)
        c = ws.cands[row]
        end = step.place(child, step.quiet_trace(child), players, entity_of_seat, seat,
                         int(c[K.CAND_TILE]), int(c[K.CAND_PARENT]), int(c[K.CAND_SIDE]),
                         int(c[K.CAND_JOINED]))
        values.append(after(child, end))
    if root:
        return values
    return max(values) if entity_of_seat[seat] == entity_of_seat[view.seat] else min(values)


def endgames(players, wanted, left_range, seed):
    """``wanted`` endgames of ``players`` seats: (world, view, next_draw, seat)."""
    generator = np.random.default_rng(seed)
    found = []
    for match in range(5000):
        state = endgame(seed, match, players, int(generator.integers(*left_range)), generator)
        if state is None:
            continue
        ws, seat, next_draw, count, entity_of_seat = state
        found.append((ws, view_of(ws, seat, players, count, entity_of_seat), next_draw, seat))
        if len(found) == wanted:
            return found
    raise AssertionError("too few endgames")


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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_values_equal_brute_force_minimax(players):
    scratch = P.new_solver_scratch()
    settings = P.solver_settings(node_limit=10**9)
    drawing = 0
    for ws, view, next_draw, seat in endgames(players, ENDGAMES[players], (6, 17), 20 + players):
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
