"""sim.study_kernels.winprob: rounds from given states, the backward induction and its checks.

The round kernel is checked against the study round loop
(``replay_dealt_round``, as :func:`sim.study_kernels.openings.replay_round` calls it, on
the same deal and decision stream) and for independence from threads and batching; the solver against
chains whose values are worked out by hand; the whole method against complete
matches played from chosen states.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import state as K
from core.rng import shuffle_round_deal, stream_key
from sim.study_kernels import dealt_rounds as DR
from sim.study_kernels import winprob as WP
from core.tiles import N_TILES, TARGET_RAW

STRATEGIES = {2: "greedy", 3: "greedy,random,greedy", 4: "greedy,random"}


def _start_states(players: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    grid = WP.grid_for(players)
    cells = grid.cells[rng.integers(0, grid.n_cells, n)]
    leaders = rng.integers(-1, players, n)  # -1: LEADER_BY_LOT
    return cells * 5, leaders


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rounds_do_not_depend_on_threads_or_batching(compiled_engine, players):
    player = WP.RoundPlayer(players, STRATEGIES[players], seed=7)
    scores, leaders = _start_states(players, 300, players)
    rows = np.arange(1000, 1300, dtype=np.int64)
    whole = player.play(rows, scores, leaders, threads=1)
    again = player.play(rows, scores, leaders, threads=2)
    order = np.random.default_rng(0).permutation(rows.size)
    parts = [player.play(rows[order[a:b]], scores[order[a:b]], leaders[order[a:b]], threads=2)
             for a, b in ((0, 17), (17, 180), (180, 300))]
    for field in ("scores", "kinds", "dominoers", "next_leaders"):
        expected = getattr(whole, field)
        np.testing.assert_array_equal(getattr(again, field), expected)
        shuffled = np.concatenate([getattr(p, field) for p in parts])
        np.testing.assert_array_equal(shuffled, expected[order])
    assert set(np.unique(whole.kinds)) <= {K.END_DOMINO, K.END_BLOCKED, K.END_TARGET}
    # a domino names its dominoer, who leads next; a block draws a lot; a win ends the match
    domino = whole.kinds == K.END_DOMINO
    target = (whole.scores == TARGET_RAW).any(axis=1)
    np.testing.assert_array_equal(whole.next_leaders[domino & ~target],
                                  whole.dominoers[domino & ~target])
    assert (whole.dominoers[domino] >= 0).all() and (whole.dominoers[~domino] == K.NO_SEAT).all()
    assert (whole.next_leaders[target] == DR.LEADER_BY_LOT).all()
    assert ((whole.next_leaders[~target] >= 0) & (whole.next_leaders[~target] < players)).all()
    assert (whole.scores % 5 == 0).all() and (whole.scores <= TARGET_RAW).all()


@pytest.mark.slow  # compiles the one-round replay kernel of its set: 35 s with cold caches
@pytest.mark.parametrize("players", [2, 4])
def test_a_row_is_the_study_loops_round_on_its_deal(compiled_engine, players):
    """Row i plays the engine's shuffle of stream (seed, i, STREAM_STATE_DEAL) with decisions
    from (seed, i, STREAM_STATE_DECISION): the study loop on that deal gives the same scores."""
    seed = 3
    player = WP.RoundPlayer(players, STRATEGIES[players], seed=seed)
    scores, leaders = _start_states(players, 12, 11)
    leaders = np.abs(leaders) % players  # a given leader (the lot draws from the stream)
    rows = np.arange(12, dtype=np.int64) * 7919
    ends = player.play(rows, scores, leaders)
    engine, slots, params = player.run.engine, player.run.strategy_ids, player.spec.params
    for i, row in enumerate(rows):
        deal = np.zeros(N_TILES, dtype=np.int64)
        shuffle_round_deal(np.uint64(stream_key(seed, row, DR.STREAM_STATE_DEAL)), np.int64(0), deal)
        start = np.zeros(K.MAX_ENTITIES, dtype=np.int64)
        start[:scores.shape[1]] = scores[i]
        # the study loop of sim.study_kernels.openings.replay_round, in the same compiled engine
        stats = engine.kernels(DR).replay_dealt_round(
            deal, np.int64(players), slots, params, np.int64(leaders[i]), np.int64(-1), start,
            np.uint64(stream_key(seed, row, DR.STREAM_STATE_DECISION)))
        n = scores.shape[1]
        assert stats[K.R_SCORE:K.R_SCORE + n].tolist() == ends.scores[i, :n].tolist(), i
        assert stats[K.R_DOMINOER] == ends.dominoers[i]


def test_transition_targets_by_hand():
    grid = WP.grid_for(4)
    ends = WP.RoundEnds(
        scores=np.array([[305, 100, 0, 0], [100, 200, 0, 0], [100, 200, 0, 0], [-5, 20, 0, 0],
                         [-80, 20, 0, 0], [300, 305, 0, 0]]),
        kinds=np.array([K.END_TARGET, K.END_DOMINO, K.END_BLOCKED, K.END_DOMINO, K.END_DOMINO,
                        K.END_DOMINO], dtype=np.int8),
        dominoers=np.array([-1, 3, -1, 2, 0, 1], dtype=np.int8),
        next_leaders=np.zeros(6, dtype=np.int8))
    targets, clamped = WP.transition_targets(grid, ends)
    terminal = grid.n_states + grid.n_cells
    assert targets.tolist() == [
        terminal + 0,
        int(grid.state_of([20, 40], 3)),
        grid.n_states + int(grid.cell_of([20, 40])),
        int(grid.state_of([-1, 4], 2)),
        int(grid.state_of([grid.low, 4], 0)),  # -16 displayed: below the grid, clamped
        terminal + 1,
    ]
    assert clamped == 1


def test_grid_orders_cells_by_total():
    for players in (2, 3, 4):
        grid = WP.grid_for(players)
        totals = grid.cells.sum(axis=1)
        assert (np.diff(totals) <= 0).all()
        assert grid.n_cells == (61 - grid.low) ** grid.n_entities
        assert sum(b - a for a, b in grid.levels) == grid.n_cells
        for a, b in grid.levels:
            assert len(set(totals[a:b])) == 1
        some = grid.cells[::97]
        np.testing.assert_array_equal(grid.cell_of(some), np.arange(grid.n_cells)[::97])
    assert WP.grid_for(3).n_states == 61 ** 3 * 3


def _hand_chain(players: int, links: dict, samples: int = 4) -> WP.StateRounds:
    """A StateRounds whose every state ends at once in a win of entity 1, except ``links``:
    state -> list of targets (one per sample)."""
    grid = WP.grid_for(players)
    terminal = grid.n_states + grid.n_cells
    targets = np.full((grid.n_states, samples), terminal + 1, dtype=np.int32)
    for state, row in links.items():
        targets[state] = row
    return WP.StateRounds.uniform(grid, ["hand"] * players, 0, targets)


def test_solver_on_chains_worked_by_hand():
    grid = WP.grid_for(2)
    win0 = grid.n_states + grid.n_cells
    a0, a1 = (int(grid.state_of([40, 30], leader)) for leader in (0, 1))
    lot_a = grid.n_states + int(grid.cell_of([40, 30]))
    b0 = int(grid.state_of([30, 30], 0))
    # leader 0: half the rounds go to the lot of the same cell, half win;
    # leader 1: always loses. V(L0) = 0.5 * (V(L0) + 0) / 2 + 0.5  =>  V(L0) = 2/3.
    # A state of a lower total leading to it: V(b0) = (V(a0) + V(a1) + 1 + 0) / 4.
    chain = _hand_chain(2, {a0: [lot_a, win0, lot_a, win0], a1: [win0 + 1] * 4,
                            b0: [a0, a1, win0, win0 + 1]})
    values, lot, sweeps, residual = WP.solve(chain)
    v = values[0, :, 0]
    assert v[a0] == pytest.approx(2 / 3, abs=1e-9)
    assert v[a1] == pytest.approx(0.0, abs=1e-12)
    assert lot[0, int(grid.cell_of([40, 30])), 0] == pytest.approx(1 / 3, abs=1e-9)
    assert v[b0] == pytest.approx((2 / 3 + 1) / 4, abs=1e-9)
    assert sweeps <= 2 and residual <= 1e-10  # one sweep is exact without score decreases
    np.testing.assert_allclose(values[0].sum(axis=1), 1.0, atol=1e-9)

    # 4 players, a score that decreases (the partner debit): A (total 90) -> B (total 80) -> A.
    grid = WP.grid_for(4)
    win0 = grid.n_states + grid.n_cells
    a, b = int(grid.state_of([50, 40], 0)), int(grid.state_of([40, 40], 0))
    chain = _hand_chain(4, {a: [b, win0, b, win0], b: [a, win0 + 1, a, win0 + 1]})
    values, _, sweeps, residual = WP.solve(chain)
    # V_A = V_B / 2 + 1/2, V_B = V_A / 2  =>  V_A = 2/3, V_B = 1/3 (needs repeated sweeps)
    assert values[0, a, 0] == pytest.approx(2 / 3, abs=1e-9)
    assert values[0, b, 0] == pytest.approx(1 / 3, abs=1e-9)
    assert sweeps > 2 and residual <= 1e-10


@pytest.fixture(scope="module")
def greedy_2p(compiled_engine):
    player = WP.RoundPlayer(2, "greedy", seed=5)
    rounds = WP.simulate_states(2, "greedy", 48, 5, player=player)
    return player, rounds, WP.win_values(rounds, replicates=30)


def test_values_are_a_fixed_point(greedy_2p):
    _, rounds, values = greedy_2p
    grid = rounds.grid
    assert rounds.clamped == 0
    assert ((values.values >= 0) & (values.values <= 1)).all()
    np.testing.assert_allclose(values.values.sum(axis=1), 1.0, atol=1e-9)  # every match ends
    np.testing.assert_allclose(values.lot, values.values.reshape(grid.n_cells, 2, 2).mean(axis=1),
                               atol=1e-15)
    rows = np.concatenate([values.values, values.lot, np.eye(2)])
    by_state = rounds.targets.reshape(grid.n_states, -1)
    np.testing.assert_allclose(rows[by_state].mean(axis=1), values.values, atol=1e-9)
    assert ((values.low <= values.high) & (values.low >= 0) & (values.high <= 1)).all()
    # a larger K extends a smaller one: its first rounds are the same rows
    fewer = WP.simulate_states(2, "greedy", 8, 5, player=greedy_2p[0])
    np.testing.assert_array_equal(fewer.targets.reshape(grid.n_states, 8), by_state[:, :8])


def test_more_rounds_at_some_states_are_the_runs_that_played_them(greedy_2p):
    """extend_rounds plays rows k * n_states + s from each state's old count on: the result is
    the uniform run's rounds where the counts agree, state by state."""
    player, rounds, _ = greedy_2p
    grid = rounds.grid
    counts = np.full(grid.n_states, 4, dtype=np.int64)
    counts[::7] = 48
    counts[5] = 20
    fewer = WP.simulate_states(2, "greedy", 4, 5, player=player)
    more = WP.extend_rounds(fewer, counts, player)
    np.testing.assert_array_equal(more.counts, counts)
    assert more.total == counts.sum() and more.rounds_per_state == 4
    offsets = more.offsets
    full = rounds.targets.reshape(grid.n_states, -1)
    for state in (0, 5, 7, 14, 100, grid.n_states - 1):
        np.testing.assert_array_equal(more.targets[offsets[state]:offsets[state + 1]],
                                      full[state, :counts[state]])
    # the solver weights a state by its own rounds however many it has
    values = WP.win_values(more, replicates=0)
    rows = np.concatenate([values.values, values.lot, np.eye(2)])
    for state in (5, 7):
        mean = rows[more.targets[offsets[state]:offsets[state + 1]]].mean(axis=0)
        np.testing.assert_allclose(mean, values.values[state], atol=1e-9)


def test_the_bootstrap_does_not_depend_on_its_batches_or_threads(greedy_2p, monkeypatch):
    _, rounds, _ = greedy_2p
    whole = WP.bootstrap(rounds, 6, seed=3)
    monkeypatch.setattr(WP, "REPLICATES_PER_BATCH", 4)
    parts = WP.bootstrap(rounds, 6, seed=3)
    for a, b in zip(whole, parts):
        np.testing.assert_array_equal(a, b)
    structure = WP._structure(rounds)
    weights = np.random.default_rng(1).poisson(structure.count, (3, structure.count.size))
    one = WP.solve(rounds, weights, threads=1)
    two = WP.solve(rounds, weights, threads=2)
    for a, b in zip(one[:2], two[:2]):
        np.testing.assert_array_equal(a, b)


def test_allocation_gives_rounds_where_the_targets_are_missed(greedy_2p):
    """A pilot of 4 rounds misses a target of 0.09 only at the noisiest cells: those (and the
    mirrored cells under self-play) get more rounds, the rest keep 4; the pass log says so."""
    player = greedy_2p[0]
    rounds = WP.allocate_rounds(player, 4, 0.09, 0.15, max_rounds=64, passes=2, replicates=20)
    grid = rounds.grid
    assert rounds.rounds_per_state == 4 and rounds.counts.min() == 4
    assert 4 < rounds.counts.max() <= 64
    raised = rounds.counts > 4
    assert 0 < raised.mean() < 0.9  # more rounds where needed, not everywhere
    first = rounds.passes[0]
    assert first["cells_missing"] > 0 and first["rounds_added"] > 0
    assert rounds.total == 4 * grid.n_states + sum(p["rounds_added"] for p in rounds.passes)
    # every leader state of a cell gets the same rounds, and a cell's mirror as many
    per_cell = rounds.counts.reshape(grid.n_cells, 2)
    assert (per_cell[:, 0] == per_cell[:, 1]).all()
    cells = grid.cells
    mirror = grid.cell_of(cells[:, ::-1])
    assert (per_cell[:, 0] == per_cell[mirror, 0]).all()
    # the noisiest cells are near 61: the raised share is larger there
    near = (cells >= 50).all(axis=1)
    assert raised.reshape(grid.n_cells, 2)[near, 0].mean() > raised.reshape(
        grid.n_cells, 2)[~near, 0].mean()


def test_targets_by_cell():
    targets = WP.half_width_targets(0.025, 0.05)
    assert targets.shape == (61, 61)
    assert targets[50, 50] == 0.025 and targets[0, 50] == 0.025
    assert targets[51, 0] == 0.05 and targets[0, 51] == 0.05 and targets[60, 60] == 0.05


def test_symmetric_side_table_is_exact_where_self_play_says(greedy_2p):
    _, _, values = greedy_2p
    table = WP.side_table(values, symmetric=True)
    assert table.shape == (62, 62, 3)
    np.testing.assert_allclose(np.diagonal(table[:61, :61, WP.LEAD_LOT]), 0.5, atol=1e-9)
    # P(own wins | a, b, own leads) + P(own wins | b, a, opponent leads) = 1
    np.testing.assert_allclose(table[:61, :61, WP.LEAD_OWN] + table[:61, :61, WP.LEAD_OPPONENT].T,
                               1.0, atol=1e-9)
    np.testing.assert_allclose(table[..., WP.LEAD_LOT][:61, :61],
                               table[:61, :61, :2].mean(axis=2), atol=1e-9)
    assert (table[61, :61] == 1).all() and (table[:61, 61] == 0).all()


def test_backward_induction_agrees_with_complete_matches(greedy_2p):
    player, rounds, values = greedy_2p
    states = [((0, 0), None), ((45, 50), 1), ((60, 58), 0)]
    scores = np.array([[5 * d for d in displayed] for displayed, _ in states])
    leaders = np.array([WP.LEADER_BY_LOT if lead is None else lead for _, lead in states])
    matches = 1500
    wins, unfinished = WP.play_matches_from(player, scores, leaders, matches)
    assert (wins.sum(axis=1) + unfinished == matches).all() and (unfinished == 0).all()
    for i, (displayed, lead) in enumerate(states):
        direct = wins[i, 0] / matches
        backward = values.value(displayed, lead)[0]
        low, high = values.interval(displayed, lead)
        spread = np.hypot(np.sqrt(direct * (1 - direct) / matches), (high[0] - low[0]) / 3.92)
        assert abs(direct - backward) <= 3 * spread, (displayed, lead, direct, backward)


def test_pool_adjacent_violators_by_hand():
    # 3 > 2 and 4 > 3 pool into their means; nothing else moves
    np.testing.assert_allclose(WP.pool_adjacent_violators([1, 3, 2, 4, 3, 5]),
                               [1, 2.5, 2.5, 3.5, 3.5, 5])
    # weighted: (3 * 3 + 1 * 2) / 4 = 2.75
    np.testing.assert_allclose(WP.pool_adjacent_violators([1, 3, 2, 4], [1, 3, 1, 1]),
                               [1, 2.75, 2.75, 4])
    # a pool that grows backwards: 5, 1 -> 3, then 4 > 3 -> (4 + 5 + 1) / 3
    np.testing.assert_allclose(WP.pool_adjacent_violators([4, 5, 1]), [10 / 3] * 3)
    np.testing.assert_allclose(WP.pool_adjacent_violators([3, 1, 2], increasing=False),
                               [3, 1.5, 1.5])
    with pytest.raises(ValueError, match="positive weights"):
        WP.pool_adjacent_violators([1, 2], [1, 0])


def _ordered_table() -> np.ndarray:
    """A side table ordered everywhere: 0.5 + (own - opponent) / 200, lot the mean."""
    axis = np.arange(62)
    own = 0.5 + (axis[:, None] - axis[None, :]) / 200
    table = np.stack([own + 0.01, own - 0.01, own], axis=-1)
    table[61], table[:, 61] = 1.0, 0.0
    return table


def test_fit_pools_one_swap_and_leaves_the_zone_alone():
    table = _ordered_table()
    # own 10 -> 11 at opponent 20 (own lead): 0.466 -> 0.464, a drop of 0.002
    table[10, 20, 0], table[11, 20, 0] = 0.466, 0.464
    # within 10 of 61 (both scores) a drop may be real: own 55 -> 56 at 58 stays as given
    table[55, 58, 0], table[56, 58, 0] = 0.50, 0.40
    half = np.full(table.shape, 0.01)
    fitted, _, violation = WP.fit_side_table(table, half, symmetric=False)
    assert violation <= WP.FIT_TOLERANCE
    np.testing.assert_allclose(fitted[10:12, 20, 0], [0.465, 0.465])  # the pair's mean
    expected = table.copy()
    expected[10:12, 20, 0] = 0.465
    expected[:61, :61, 2] = expected[:61, :61, :2].mean(axis=2)
    np.testing.assert_allclose(fitted, expected, atol=1e-12)
    assert fitted[55, 58, 0] == 0.50 and fitted[56, 58, 0] == 0.40
    drops = WP.adjacent_drops(table, half)
    # inside: the swap (0.002) and opponent 19 -> 20 at own 10 (0.465 -> 0.466), both within
    # their 0.01 half-width; zone: own 55 -> 56 at 58 (0.1) and opponent 58 -> 59 at own 56
    # (0.40 -> 0.495), both beyond 0.01
    assert (drops["inside_drops"], drops["inside_beyond"]) == (2, 0)
    assert (drops["zone_drops"], drops["zone_beyond"]) == (2, 2)
    after = WP.adjacent_drops(fitted, half)
    # the fitted lot is the mean of the leads: (0.50 + 0.475) / 2 -> (0.40 + 0.48) / 2 and
    # -> (0.495 + 0.475) / 2 carry the two zone drops into the lot column
    assert after["inside_drops"] == 0 and after["zone_drops"] == 4


def test_fit_is_symmetric_and_ordered_on_noise():
    rng = np.random.default_rng(3)
    table = _ordered_table()
    table[:61, :61, :2] += rng.normal(0, 0.03, (61, 61, 2))
    half = np.full(table.shape, 0.03)
    fitted, _, _ = WP.fit_side_table(table, half, symmetric=True)
    inner = fitted[:61, :61]
    np.testing.assert_allclose(inner[..., 0] + inner[..., 1].T, 1.0, atol=1e-12)
    np.testing.assert_allclose(np.diagonal(inner[..., 2]), 0.5, atol=1e-12)
    top = WP.MONOTONE_TOP
    assert (np.diff(inner[:top + 1], axis=0) >= -1e-12).all()
    assert (np.diff(inner[:, :top + 1], axis=1) <= 1e-12).all()
    assert WP.adjacent_drops(fitted, half)["inside_drops"] == 0
    assert WP.adjacent_drops(table, half)["inside_drops"] > 0  # the noise broke the order
    assert (fitted[61, :61] == 1).all() and (fitted[:61, 61] == 0).all()
