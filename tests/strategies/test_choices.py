"""Each heuristic's choice on hand-built views, worked out by hand; features checked independently.

The feature test recomputes every feature of :mod:`strategies.linear` in
plain Python with the rules reference's layout (:class:`sim.reference.Layout`)
for random states, so the compiled features (and hence ``exact``,
``defensive`` and ``weighted``) are pinned to the documented definitions.
"""

from __future__ import annotations

import numpy as np
import pytest

import strategies
from core import state as K
from sim import reference
from core.tiles import N_TILES, TARGET_RAW, TILES
from strategies import linear as L
from strategies.turns_table import TURNS_TO_FINISH
from strategies.weighted import PRESETS, preset
from tests.support.views import (
    Table,
    choice,
    params_for,
    random_state,
    reference_placement,
    strategy_named,
)

ALL_WEIGHTS = np.ones(L.N_FEATURES)


# ---------------------------------------------------------------------------
# Features, recomputed independently
# ---------------------------------------------------------------------------
def reference_features(table: Table, seat: int) -> np.ndarray:
    """Every feature of every candidate, from the rules reference and the definitions."""
    ws = table.ws
    players = table.players
    entities = K.ENTITY_OF_SEAT[players, :players]
    view = table.view(seat)
    layout = table.reference_layout()
    hand = {TILES[t] for t in range(N_TILES) if view.hand >> t & 1}
    played = {TILES[t] for t in range(N_TILES) if view.played >> t & 1}
    unseen = set(TILES) - hand - played
    score = int(ws.scores[entities[seat]])
    opponent = (seat + 1) % players
    opponent_score = int(ws.scores[entities[opponent]])
    holdable = {t for t in unseen if not (set(t) & table.lacking[opponent])}
    size = int(ws.hand_sizes[opponent])
    q = 1.0 if len(holdable) <= size else size / len(holdable)
    rows = []
    for row in range(view.n_candidates):
        tile, parent, side, joined, points = (int(x) for x in view.cands[row])
        low, high = TILES[tile]
        placement = reference_placement(tile, parent, side, joined)
        after = layout.copy()
        after.place(placement)
        assert reference.award(after.total()) == points
        accepted = points > 0 and score + points <= TARGET_RAW
        award = points if accepted else 0
        gap = TARGET_RAW - score - award
        exact = accepted and gap == 0
        rest = hand - {(low, high)}
        open_values = after.open_values()
        reply = exact_chance = 0.0
        if rest and not exact:
            best = {}
            for other in holdable:
                for move in after.placements_for(other):
                    value = reference.award(after.total_after(move))
                    if value > 0 and opponent_score + value <= TARGET_RAW:
                        best[other] = max(best.get(other, 0), value)
            missing = 1.0
            for value in sorted(best.values(), reverse=True):
                reply += missing * q * value
                missing *= 1 - q
            hits = sum(1 for o in holdable if any(
                opponent_score + reference.award(after.total_after(m)) == TARGET_RAW
                and reference.award(after.total_after(m)) > 0 for m in after.placements_for(o)))
            exact_chance = 1 - (1 - q) ** hits
        rows.append([
            award / 5, float(accepted), float(points > 0 and not accepted), float(exact), gap / 5,
            TURNS_TO_FINISH[min(gap // 5, L.GAP_STEPS - 1)], low + high, float(low == high),
            sum(1 for a, b in rest if a == b), reply / 5, exact_chance,
            sum(1 for t in unseen if set(t) & open_values),
            sum(1 for t in rest if set(t) & open_values),
        ])
    return np.array(rows)


def test_features_match_the_definitions_on_random_states():
    generator = np.random.default_rng(11)
    checked = 0
    for case in range(60):
        players = 2 + case % 3
        opening, plays, hands, boneyard = random_state(generator, players, int(generator.integers(0, 10)))
        scores = [int(generator.choice([0, 150, 260, 280, 290, 295, 300])) for _ in range(K.N_ENTITIES[players])]
        lacking = [[], [int(v) for v in generator.choice(7, size=int(generator.integers(0, 3)), replace=False)]]
        table = Table(players, opening, plays, hands, boneyard, scores=scores, lacking=lacking)
        view = table.view(0)
        if view.n_candidates < 2:
            continue
        found = L.features_of(view, ALL_WEIGHTS)
        expected = reference_features(table, 0)
        np.testing.assert_allclose(found, expected, rtol=1e-12, atol=1e-12, err_msg=f"case {case}")
        checked += 1
    assert checked >= 25


def test_the_written_table_is_the_computed_one():
    """strategies.turns_table holds turns_to_finish_table() number for number."""
    assert np.array_equal(TURNS_TO_FINISH, L.turns_to_finish_table())


def test_turns_to_finish_table():
    turns = TURNS_TO_FINISH
    assert turns[0] == 0
    assert np.all(np.diff(turns) > 0)  # measured availability: no gap is harder than a larger one
    np.testing.assert_allclose(turns[1:5], [5.9, 6.2, 8.1, 9.3], atol=0.06)
    assert 75 < turns[61] < 90


# ---------------------------------------------------------------------------
# Hand-worked choices
# ---------------------------------------------------------------------------
def shed_table():
    # Layout 2-4 (ends 2 and 4). Candidates: 1-2 on 2 -> ends 1 + 4 = 5 scores 5;
    # 4-6 on 4 -> 2 + 6 = 8 scores 0.
    return Table(2, (2, 4), [], [[(4, 6), (1, 2), (5, 5), (0, 3), (3, 3)],
                                 [(0, 0), (0, 1), (1, 1), (0, 2), (1, 3)]], scores=[0, 0])


def test_greedy_and_heavy_by_hand():
    table = shed_table()
    assert choice("greedy", table) == ((1, 2), 2, 5)
    # heavy: 1-2 is worth 5 + 3 = 8, 4-6 is worth 0 + 10 = 10.
    assert choice("heavy", table) == ((4, 6), 4, 0)
    # with pip_weight 0.1: 5 + 0.3 against 0 + 1.0.
    assert choice("heavy", table, pip_weight=0.1) == ((1, 2), 2, 5)


def test_doubles_example_by_hand():
    # 2-2 on the 2 of 2-4: ends 4 + a terminal 2-2 (4) = 8, no score; 1-2 scores 5.
    table = Table(2, (2, 4), [], [[(2, 2), (1, 2), (0, 3)], [(0, 0), (0, 1), (1, 1)]], scores=[0, 0])
    assert choice("doubles", table) == ((2, 2), 2, 0)  # 0 + 8 > 5
    assert choice("doubles", table, double_bonus=2.0) == ((1, 2), 2, 5)  # 2 < 5


def endgame_table(scores):
    # Layout 6-6 then 4-6 (ends: terminal 6-6 = 12 and 4, total 16).
    #   1-6 on the 6-6: the spinner becomes internal, ends 4 + 1 = 5  -> scores 5
    #   0-4 on the 4:   12 + 0 = 12                                   -> 0
    #   3-4 on the 4:   12 + 3 = 15                                   -> 15
    hands = [[(1, 6), (3, 4), (0, 4), (2, 2)], [(0, 0), (1, 1), (5, 5), (2, 5), (0, 2)]]
    return Table(2, (6, 6), [((4, 6), 6)], hands, scores=scores)


def test_exact_lands_exactly():
    # At 290 the 15 lands exactly on 305.
    for name in ("greedy", "exact", "defensive", "weighted", "rollout"):
        assert choice(name, endgame_table([290, 0])) == ((3, 4), 4, 15), name


def test_exact_denies_the_next_opponent_an_exact_hit():
    """Both at 295 (gap 10). The 15 would overshoot (worth 0), the 5 leaves a gap of 5.

    After 1-6 the opponent's 5-6 on the open spinner arm makes ends 1 + 4 + 5 = 10:
    exactly its gap. The opponent holds 5 of the 22 tiles seat 0 cannot see, so
    it has 5-6 with probability 5/22 = 0.227. After 0-4 or 3-4 (no score) its
    replies are 0-3 (15, overshoot) or 5-6 (ends 0 + 5 = 5): no exact hit.
    exact: 1-6 is worth -T(5) - 30 * 0.227 = -5.9 - 6.8; 0-4 and 3-4 are worth
    -T(10) = -6.2; the tie goes to the heavier 3-4. greedy just takes the 5.
    """
    table = endgame_table([295, 295])
    assert choice("greedy", table) == ((1, 6), 6, 5)
    assert choice("exact", table) == ((3, 4), 4, 15)
    # Without the denial term the turns table alone prefers the 5 (gap 5: 5.9 < 6.2 turns).
    assert choice("exact", table, deny_weight=0.0) == ((1, 6), 6, 5)
    features = L.features_of(table.view(0), ALL_WEIGHTS)
    np.testing.assert_allclose(features[:, L.F_OPP_EXACT], [5 / 22, 0, 0])
    np.testing.assert_allclose(features[:, L.F_TURNS], TURNS_TO_FINISH[[1, 2, 2]])


def test_defensive_by_hand():
    """Scores 0 and 0: every award is accepted for both sides.

    Replies (q = 5/22 per tile the opponent may hold):
      after 1-6 (5):  5-6 on the arm -> 10, 0-6 -> 5: E = q*10 + q(1-q)*5 = 3.15 raw
      after 0-4 (0):  0-3 -> 15, 5-6 -> 5:           E = q*15 + q(1-q)*5 = 4.29 raw
      after 3-4 (15): 2-6 on the 6-6 -> 3 + 2 = 5:    E = q*5 = 1.14 raw
    defensive (displayed): 1 - 0.63, 0 - 0.86, 3 - 0.23: it plays 3-4. With
    reply_weight 20 the reply dominates and 3-4 (smallest reply) still wins;
    the features are checked against these numbers.
    """
    table = endgame_table([0, 0])
    q = 5 / 22
    features = L.features_of(table.view(0), ALL_WEIGHTS)
    np.testing.assert_allclose(
        features[:, L.F_REPLY] * 5, [q * 10 + q * (1 - q) * 5, q * 15 + q * (1 - q) * 5, q * 5]
    )
    assert choice("defensive", table) == ((3, 4), 4, 15)
    assert choice("defensive", table, reply_weight=20.0) == ((3, 4), 4, 15)
    # A reply weight below zero makes it court big replies: 0-4 has the largest.
    assert choice("defensive", table, reply_weight=-20.0) == ((0, 4), 4, 0)


def test_defensive_gives_up_points_to_deny_a_big_reply():
    """A 5 now against a bigger expected reply: defensive passes on the points.

    Layout 4-4, 3-4, 4-6 (both line sides of the 4-4 used), 1-3, 1-1, 0-1;
    seat 0 holds 2-6 and 5-6 and may play either on the 6. 5-6 scores 5 (1
    displayed) but leaves an expected best reply of 1.64 displayed; 2-6
    scores nothing and leaves 0.51. defensive: 1 - 1.64 < 0 - 0.51. The reply
    figures are recomputed independently (rules reference, plain Python).
    """
    hands = [[(2, 6), (5, 6)], [(2, 5), (1, 2), (5, 5), (1, 5), (2, 2), (0, 3)]]
    plays = [((3, 4), 4, 0), ((4, 6), 4, 0), ((1, 3), 3, 1), ((1, 1), 1, 3), ((0, 1), 1, 4)]
    table = Table(2, (4, 4), plays, hands, scores=[0, 0])
    expected = reference_features(table, 0)
    np.testing.assert_allclose(expected[:, L.F_AWARD], [0, 1])
    np.testing.assert_allclose(expected[:, L.F_REPLY], [0.51, 1.642], atol=5e-3)
    assert choice("greedy", table) == ((5, 6), 6, 5)
    assert choice("defensive", table) == ((2, 6), 6, 0)
    assert choice("defensive", table, reply_weight=0.5) == ((5, 6), 6, 5)  # 1 - 0.82 > -0.26


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_weighted_presets_choose_like_the_named_strategy_on_random_states(name):
    generator = np.random.default_rng(3)
    weights = preset(name)
    params = params_for(name)
    for case in range(40):
        players = 2 + case % 3
        opening, plays, hands, boneyard = random_state(generator, players, int(generator.integers(0, 10)))
        scores = [int(generator.choice([0, 200, 285, 295, 300])) for _ in range(K.N_ENTITIES[players])]
        table = Table(players, opening, plays, hands, boneyard, scores=scores)
        mine = strategy_named(name).choose(table.view(0, params))
        theirs = strategies.resolve("weighted").choose(table.view(0, weights))
        assert table.describe(mine) == table.describe(theirs), case


def test_rollout_takes_a_sure_win_and_avoids_handing_one_over():
    # Exact hit available: the match ends at once, every world agrees.
    assert choice("rollout", endgame_table([290, 0])) == ((3, 4), 4, 15)
    assert choice("rollout", endgame_table([290, 0]), samples=1.0) == ((3, 4), 4, 15)
