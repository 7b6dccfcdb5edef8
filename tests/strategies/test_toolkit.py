"""The public strategy toolkit (strategies.toolkit): every helper on hand-built views with
hand-computed expectations, called from Python (PlayerView and PythonView) and from compiled
strategies, and a twenty-line rollout written with it that beats what random does."""

from __future__ import annotations

import numpy as np
import pytest

import strategies
from core import rng as R
from core.tiles import N_TILES, TILES, tile_index
from strategies import toolkit as tk
from strategies.python_view import PythonView, frozen
from tests.support.paths import EXAMPLES
from tests.support.views import Table, mask, value_set

ALL = (1 << 28) - 1


def python_view(view):
    """The same view as a Python strategy gets it (read-only arrays, writable rng)."""
    fields = {}
    for name, value in view._asdict().items():
        if name == "rng":
            fields[name] = np.array(value, copy=True)
        elif isinstance(value, np.ndarray):
            fields[name] = frozen(value)
        else:
            fields[name] = int(value)
    return PythonView(**fields)


def double_five_table(scores=(0, 0), lacking=None):
    """Layout 5-5 (total 10). Seat 0: 0-5 (makes 10: the double still counts 10, plus 0),
    5-6 (makes 16: scores nothing) and 1-2 (not playable). Seat 1: 6-6, 4-4 (20 pips)."""
    return Table(2, (5, 5), [], [[(0, 5), (5, 6), (1, 2)], [(6, 6), (4, 4)]],
                 scores=list(scores), lacking=lacking)


def rows_by_tile(table, view):
    return {table.describe(row)[0]: row for row in range(view.n_candidates)}


both_views = pytest.mark.parametrize("kind", ["engine", "python"])


def as_kind(view, kind):
    return view if kind == "engine" else python_view(view)


# ---------------------------------------------------------------------------
# Tables and bits
# ---------------------------------------------------------------------------
def test_tile_tables_and_bits():
    t = tile_index(2, 5)
    assert (tk.TILE_LOW[t], tk.TILE_HIGH[t], tk.TILE_PIPS[t], tk.TILE_IS_DOUBLE[t]) == (2, 5, 7, 0)
    assert tk.TILE_IS_DOUBLE[tile_index(6, 6)] == 1 and tk.tile_name(27) == "6-6" and tk.TILES[27] == (6, 6)
    assert tk.bit_count(0b1011) == 3 and tk.bit_count(0) == 0
    assert tk.lowest_bit(0b101000) == 3
    assert tk.nth_bit(0b10110, 0) == 1 and tk.nth_bit(0b10110, 1) == 2 and tk.nth_bit(0b10110, 2) == 4
    assert tk.tile_bit(27) == 1 << 27 and tk.has_tile(1 << 27, 27) and not tk.has_tile(1 << 27, 26)
    assert tk.hand_pips(mask([(6, 6), (4, 4), (0, 1)])) == 21
    # tiles carrying a 6: 0-6, 1-6, ..., 6-6
    assert tk.VALUE_TILES[6] == mask([(v, 6) for v in range(7)])
    assert tk.TILES_MATCHING[value_set([0, 6])] == mask([(0, v) for v in range(7)] + [(v, 6) for v in range(7)])
    assert tk.ALL_TILES == ALL and tk.N_TILES == 28 and tk.TARGET_RAW == 305


# ---------------------------------------------------------------------------
# Award, accepted, discarded
# ---------------------------------------------------------------------------
@both_views
@pytest.mark.parametrize("score, award_05, accepted_05, discarded_05, exact_05", [
    (0, 10, True, False, False),      # 0 + 10 <= 305
    (295, 10, True, False, True),     # lands exactly on 305
    (300, 0, False, True, False),     # 310 > 305: discarded, award 0
])
def test_award_and_acceptance(kind, score, award_05, accepted_05, discarded_05, exact_05):
    table = double_five_table(scores=(score, 0))
    view = table.view(0)
    rows = rows_by_tile(table, view)
    assert set(rows) == {(0, 5), (5, 6)}
    assert table.describe(rows[(0, 5)])[2] == 10 and table.describe(rows[(5, 6)])[2] == 0
    view = as_kind(view, kind)
    a, b = rows[(0, 5)], rows[(5, 6)]
    assert (tk.award(view, a), tk.accepted(view, a), tk.discarded(view, a), tk.hits_target(view, a)) == \
        (award_05, accepted_05, discarded_05, exact_05)
    # 5-6 scores nothing: award 0, neither accepted nor discarded
    assert (tk.award(view, b), tk.accepted(view, b), tk.discarded(view, b), tk.hits_target(view, b)) == \
        (0, False, False, False)
    assert tk.own_score(view) == score and tk.gap(view) == 305 - score
    # greedy takes the 10 unless it would be discarded (then the heavier 5-6)
    assert tk.greedy_choice(view) == (a if accepted_05 else b)
    values = np.array([float(tk.award(view, r)) for r in range(view.n_candidates)])
    assert tk.best_row(view, values) == tk.greedy_choice(view)
    assert tk.greedy_prefers(view, score, b, a) == (not accepted_05)


# ---------------------------------------------------------------------------
# Unseen and holdable tiles
# ---------------------------------------------------------------------------
@both_views
def test_unseen_holdable_playable(kind):
    table = double_five_table(lacking=[[], [5, 6]])
    view = as_kind(table.view(0), kind)
    hand = mask([(0, 5), (5, 6), (1, 2)])
    assert view.hand == hand
    unseen = tk.unseen_tiles(view)
    assert unseen == ALL & ~hand & ~mask([(5, 5)])
    assert tk.bit_count(unseen) == 24
    # seat 1 lacks 5 and 6: the 15 tiles of values 0-4, minus 1-2 (in seat 0's hand)
    holdable = tk.holdable_tiles(view, 1, unseen)
    expected = {(a, b) for a, b in TILES if a <= 4 and b <= 4} - {(1, 2)}
    assert {TILES[t] for t in range(N_TILES) if holdable >> t & 1} == expected and len(expected) == 14
    assert tk.holdable_tiles(view, 0, unseen) == unseen  # nothing known lacking
    # playable on the 5-5 layout: the tiles carrying a 5
    assert tk.playable(view, hand) == mask([(0, 5), (5, 6)])
    empty = Table(2, None, [], [[(1, 2), (3, 3)], [(0, 0)]])
    assert tk.playable(as_kind(empty.view(0), kind), mask([(1, 2), (3, 3)])) == mask([(1, 2), (3, 3)])


# ---------------------------------------------------------------------------
# Sampled worlds
# ---------------------------------------------------------------------------
@both_views
def test_sampled_worlds_are_consistent(kind):
    table = double_five_table(lacking=[[], [5, 6]])
    view = as_kind(table.view(0), kind)
    unseen = tk.unseen_tiles(view)
    ws = tk.new_scratch()
    seen_in_hand = 0
    for k in range(200):
        counter = int(view.rng[1])
        world = tk.sample_world(ws, view)
        assert int(view.rng[1]) > counter  # drew from the seat's own stream
        first_draw, hands = world[0], world[1:]
        assert first_draw == N_TILES - view.boneyard_size == 6
        assert hands[0] == view.hand and hands[2] == hands[3] == 0
        assert tk.bit_count(hands[1]) == 2 and hands[1] & ~unseen == 0
        assert hands[1] & tk.TILES_MATCHING[value_set([5, 6])] == 0  # never a lacking value
        boneyard = {int(t) for t in ws.deal[first_draw:]}
        assert len(boneyard) == 22 and mask([TILES[t] for t in boneyard]) | hands[1] == unseen
        seen_in_hand |= hands[1]
    # every holdable tile turns up in seat 1's hand sometimes
    assert seen_in_hand == tk.holdable_tiles(view, 1, unseen)
    hands, boneyard = tk.sample_hidden(view)
    assert hands.shape == (4,) and hands[0] == view.hand and boneyard.shape == (22,)
    assert mask([TILES[t] for t in boneyard]) | int(hands[1]) == unseen


def test_sampling_is_a_function_of_the_stream():
    table = double_five_table()
    first, second = table.view(0, stream=(5, 6)), table.view(0, stream=(5, 6))
    a, b = tk.sample_world(tk.new_scratch(), first), tk.sample_world(tk.new_scratch(), second)
    assert a == b and tk.sample_world(tk.new_scratch(), first) != a


# ---------------------------------------------------------------------------
# Playouts
# ---------------------------------------------------------------------------
def true_world(table, ws):
    """The table's actual hidden state as a world (its boneyard copied into ws.deal)."""
    ws.deal[:] = table.ws.deal
    first = N_TILES - len(table.boneyard)
    return (first, *[int(h) for h in table.ws.hands])


@both_views
@pytest.mark.parametrize("score, gains", [
    (0, (30, 0, 0, 0)),     # 0-5 makes 10 and dominoes: 10 + round5(20 pips of 6-6, 4-4) = 30
    (290, (0, 0, 0, 0)),    # 290 + 30 > 305: the domino event is discarded
    (275, (30, 0, 0, 0)),   # 275 + 30 = 305 exactly: wins
])
def test_playout_of_a_domino(kind, score, gains):
    table = Table(2, (5, 5), [], [[(0, 5)], [(6, 6), (4, 4)]], scores=[score, 0])
    view = as_kind(table.view(0), kind)
    ws = tk.new_scratch()
    assert tk.playout(ws, view, true_world(table, ws), 0) == gains
    assert ws.scores[0] == score + gains[0]


@both_views
def test_playout_continues_with_greedy(kind):
    # Seat 0 plays 0-5 (10, accepted); seat 1 answers 0-0 on the 0 (5-5 still counts 10, the
    # 0-0 adds 0: 10) and dominoes: 10 + round5(2 pips of 1-1) = 10 + 0.
    table = Table(2, (5, 5), [], [[(0, 5), (1, 1)], [(0, 0)]], scores=[100, 50])
    view = as_kind(table.view(0), kind)
    assert view.n_candidates == 1
    ws = tk.new_scratch()
    world = true_world(table, ws)
    assert tk.playout(ws, view, world, 0) == (10, 10, 0, 0)
    assert tk.playout(ws, view, world, -1) == (10, 10, 0, 0)  # greedy's own first move: the same
    assert tuple(ws.scores[:2]) == (110, 60)
    assert tk.advantage(view, (10, 10, 0, 0)) == 0.0


def test_advantage_is_own_gain_minus_the_others_mean():
    two = double_five_table().view(0)
    assert tk.advantage(two, (30, 0, 0, 0)) == 30.0
    assert tk.advantage(double_five_table().view(1), (30, 5, 0, 0)) == -25.0
    three = Table(3, (5, 5), [], [[(0, 5)], [(6, 6)], [(4, 4)]])
    assert tk.advantage(three.view(1), (30, 10, 0, 0)) == -5.0  # 10 - (30 + 0) / 2
    four = Table(4, (5, 5), [], [[(0, 5)], [(6, 6)], [(4, 4)], [(3, 3)]])
    assert tk.advantage(four.view(3), (5, 20, 0, 0)) == 15.0   # seat 3 plays for entity 1


# ---------------------------------------------------------------------------
# Features and random draws
# ---------------------------------------------------------------------------
def test_move_features():
    table = double_five_table()
    view = table.view(0)
    rows = rows_by_tile(table, view)
    features = tk.move_features(view, np.ones(tk.N_FEATURES))
    assert features.shape == (2, tk.N_FEATURES) and len(tk.FEATURE_NAMES) == tk.N_FEATURES
    award, pips = tk.FEATURE_NAMES.index("award"), tk.FEATURE_NAMES.index("pips")
    assert features[rows[(0, 5)], award] == 2.0 and features[rows[(5, 6)], award] == 0.0  # displayed
    assert features[rows[(0, 5)], pips] == 5 and features[rows[(5, 6)], pips] == 11


@both_views
def test_random_draws_come_from_the_seat_stream(kind):
    view = as_kind(double_five_table().view(0, stream=(3, 4)), kind)
    key = view.rng[0]
    assert key == R.decision_key(3, 4, 0) and view.rng[1] == 0
    assert tk.next_below(view.rng, 7) == R.below(R.word_at(key, 0), 7)
    assert tk.next_unit(view.rng) == float(int(R.word_at(key, 1)) >> 11) * 2.0**-53
    assert view.rng[1] == 2
    draws = [tk.next_below(view.rng, 3) for _ in range(300)]
    assert set(draws) == {0, 1, 2}
    units = [tk.next_unit(view.rng) for _ in range(300)]
    assert 0.0 <= min(units) and max(units) < 1.0


# ---------------------------------------------------------------------------
# Compiled strategies written with the toolkit
# ---------------------------------------------------------------------------
mini_rollout = strategies.variant(strategies.resolve(f"{EXAMPLES / 'mini_rollout.py'}:mini_rollout"),
                                  name="mini_rollout", samples=4)
"""The toolkit's worked example (``examples/mini_rollout.py``) at 4 worlds per decision."""


@tk.helper
def _probe_ok(view):
    unseen = tk.unseen_tiles(view)
    for seat in range(view.players):
        if tk.holdable_tiles(view, seat, unseen) & ~unseen != 0:
            return False
    if tk.bit_count(unseen) + tk.bit_count(view.hand) + tk.bit_count(view.played) != tk.N_TILES:
        return False
    unit = tk.next_unit(view.rng)
    return 0.0 <= unit < 1.0 and tk.next_below(view.rng, 5) < 5 and tk.playable(view, view.hand) != 0


@strategies.strategy(name="toolkit_greedy", stochastic=True)
def toolkit_greedy(view):
    """greedy written with award and greedy_prefers; an invalid row if a helper misbehaves."""
    if not _probe_ok(view):
        return view.n_candidates
    score = tk.own_score(view)
    best = 0
    for row in range(1, view.n_candidates):
        if tk.award(view, row) > tk.award(view, best) or (
            tk.award(view, row) == tk.award(view, best) and tk.greedy_prefers(view, score, row, best)
        ):
            best = row
    if tk.accepted(view, best) and tk.award(view, best) == 0:
        return view.n_candidates
    return best


@strategies.strategy(name="py_toolkit", compiled=False)
def py_toolkit(view):
    """A Python strategy calling the compiled helpers: the largest award, plus a playout tie-break."""
    values = np.array([float(tk.award(view, row)) for row in range(view.n_candidates)])
    ws = tk.new_scratch()
    world = tk.sample_world(ws, view)
    for row in range(view.n_candidates):
        values[row] += 0.01 * tk.advantage(view, tk.playout(ws, view, world, row))
    return int(tk.best_row(view, values))


FIELD = [mini_rollout, toolkit_greedy, "greedy", "random"]
"""Compiled into one kernel for every run of this module."""


def test_compiled_helpers_reproduce_greedy(compiled_engine):
    mine = compiled_engine.simulate(2, [toolkit_greedy, "random"], 200, seed=11, field=FIELD)
    reference = compiled_engine.simulate(2, ["greedy", "random"], 200, seed=11, field=FIELD)
    columns = ["winner", "score_0", "score_1", "rounds", "placements", "draws", "passes"]
    assert mine[columns].equals(reference[columns])


def test_mini_rollout_beats_greedy_more_often_than_random(compiled_engine):
    matches = 100
    rollout_wins = sum(
        (compiled_engine.simulate(2, order, matches, seed=12, field=FIELD).winner == order.index(mini_rollout)).sum()
        for order in ([mini_rollout, "greedy"], ["greedy", mini_rollout])
    )
    random_wins = sum(
        (compiled_engine.simulate(2, order, matches, seed=12, field=FIELD).winner == order.index("random")).sum()
        for order in (["random", "greedy"], ["greedy", "random"])
    )
    assert rollout_wins > random_wins + 40, (rollout_wins, random_wins)
    assert rollout_wins > matches  # and it beats greedy itself


def test_python_strategy_with_the_toolkit_plays_and_verifies(compiled_engine):
    from sim.verify import verify_record

    records = compiled_engine.record(2, [py_toolkit, "greedy"], 4, seed=13)
    assert len(records) == 4
    for record in records:
        assert verify_record(record) == [], record["match"]
