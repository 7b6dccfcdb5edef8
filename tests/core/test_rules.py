"""Unit tests of the engine's primitives: random streams, round5, layout and candidates."""

from __future__ import annotations

import numpy as np
import pytest

from core import state as K

from core import rules
from core import rng
from core.tiles import TILES, tile_index


def test_streams_are_pure_functions_of_their_key():
    a = rng.stream_key(5, 17, rng.STREAM_DEAL)
    assert a == rng.stream_key(5, 17, rng.STREAM_DEAL)
    others = {rng.stream_key(5, 17, rng.STREAM_DECISION), rng.stream_key(5, 18, rng.STREAM_DEAL),
              rng.stream_key(6, 17, rng.STREAM_DEAL)}
    assert a not in others and len(others) == 3
    assert rng.word_at(a, 3) == rng.word_at(a, 3) != rng.word_at(a, 4)


def test_below_is_in_range_and_roughly_uniform():
    key = rng.stream_key(1, 2, 3)
    draws = np.array([rng.below(np.uint64(rng.word_at(key, i)), 6) for i in range(60000)])
    assert draws.min() == 0 and draws.max() == 5
    counts = np.bincount(draws, minlength=6)
    chi2 = ((counts - 10000) ** 2 / 10000).sum()
    assert chi2 < 25  # 5 degrees of freedom: p < 1e-4 to fail


def test_decision_state_advances():
    state = rng.decision_state(3, 4, 1)
    first = rng.next_below(state, 1000)
    assert state[1] == 1
    again = rng.decision_state(3, 4, 1)
    assert rng.next_below(again, 1000) == first
    assert 0.0 <= rng.next_unit(state) < 1.0


@pytest.mark.parametrize("amount,expected", [(0, 0), (1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (6, 5),
                                             (7, 5), (8, 10), (12, 10), (13, 15), (61, 60), (63, 65)])
def test_round5(amount, expected):
    assert rules.round5(amount) == expected


def test_placement_points():
    assert [rules.placement_points(t) for t in (0, 3, 5, 10, 17, 20, -5)] == [0, 0, 5, 10, 0, 20, 0]


def fresh(opening: tuple[int, int]):
    ws = K.new_workspace()
    total = rules.open_layout(ws, tile_index(*opening))
    return ws, total


def candidates(ws, tiles) -> list[tuple]:
    mask = 0
    for tile in tiles:
        mask |= 1 << tile_index(*tile)
    count = rules.list_placements(ws, np.int64(mask))
    rows = ws.cands[:count]
    return [(TILES[r[K.CAND_TILE]], int(r[K.CAND_PARENT]), int(r[K.CAND_SIDE]), int(r[K.CAND_JOINED]),
             int(r[K.CAND_POINTS])) for r in rows]


def place(ws, cand) -> int:
    tile, parent, side, joined, _ = cand
    return rules.place_tile(ws, tile_index(*tile), parent, side, joined)


def test_lone_opening_double_counts_once_and_is_one_placement():
    ws, total = fresh((5, 5))
    assert total == 10
    found = candidates(ws, [(1, 5)])
    assert found[0][:4] == ((1, 5), 0, K.SIDE_LINE, 5) and found[0][4] == 0  # 10 + 1 = 11
    assert len(found) == 1


def test_seed_example_spinner_terminal_then_internal():
    ws, total = fresh((6, 6))
    assert total == 12
    first = candidates(ws, [(3, 6)])
    assert len(first) == 1 and first[0][4] == 15  # 6-6 terminal (12) + open 3
    assert place(ws, first[0]) == 15
    second = candidates(ws, [(1, 6)])
    assert len(second) == 1 and second[0][:3] == ((1, 6), 0, K.SIDE_LINE)
    assert place(ws, second[0]) == 4  # both line sides taken: the spinner counts 0
    arms = candidates(ws, [(2, 6)])
    assert len(arms) == 1 and arms[0][:3] == ((2, 6), 0, K.SIDE_ARM) and arms[0][4] == 0  # 3 + 1 + 2
    assert place(ws, arms[0]) == 6
    other_arm = candidates(ws, [(4, 6)])
    assert len(other_arm) == 1 and other_arm[0][:3] == ((4, 6), 0, K.SIDE_ARM)
    place(ws, other_arm[0])
    assert candidates(ws, [(0, 6), (5, 6)]) == []  # both arms used, 6 is closed


def test_opening_non_double_sides_and_doubles_on_branches():
    ws, total = fresh((3, 5))
    assert total == 8
    found = candidates(ws, [(3, 3), (5, 5), (1, 3)])
    assert {c[0] for c in found} == {(3, 3), (5, 5), (1, 3)}
    by_tile = {c[0]: c for c in found}
    assert by_tile[(3, 3)][4] == 0 and by_tile[(3, 3)][3] == 3  # 5 + 6 = 11
    assert by_tile[(5, 5)][4] == 0  # 3 + 10 = 13
    assert by_tile[(1, 3)][4] == 0  # 5 + 1 = 6
    assert place(ws, by_tile[(5, 5)]) == 13
    # A double on a branch is a terminal spinner with one open line side.
    more = candidates(ws, [(0, 5)])
    assert len(more) == 1 and more[0][1:3] == (1, K.SIDE_LINE) and more[0][4] == 0
    assert place(ws, more[0]) == 3  # 5-5 internal now; ends 3 and 0


def recomputed_total(ws) -> int:
    """Ruling 3 from the node table, independently of the incremental total."""
    total = 0
    for node in range(ws.board[K.BOARD_NODES]):
        tile = ws.nodes[node, K.NODE_TILE]
        line_open = ws.nodes[node, K.NODE_LINE_OPEN]
        low, high = TILES[tile]
        if low == high:
            total += 2 * low if line_open else 0
        else:
            if line_open & K.LINE_A:
                total += ws.nodes[node, K.NODE_VALUE_A]
            if line_open & K.LINE_B:
                total += ws.nodes[node, K.NODE_VALUE_B]
    return total


def test_incremental_total_and_open_counts_on_random_layouts():
    generator = np.random.default_rng(2024)
    for _ in range(300):
        order = generator.permutation(28)
        ws = K.new_workspace()
        rules.open_layout(ws, order[0])
        remaining = [int(t) for t in order[1:]]
        while True:
            mask = 0
            for tile in remaining:
                mask |= 1 << tile
            count = rules.list_placements(ws, np.int64(mask))
            if count == 0:
                break
            keys = {(int(ws.cands[c, K.CAND_TILE]), int(ws.cands[c, K.CAND_PARENT]),
                     int(ws.cands[c, K.CAND_SIDE])) for c in range(count)}
            assert len(keys) == count, "candidates must be distinct placements"
            choice = int(generator.integers(count))
            tile = int(ws.cands[choice, K.CAND_TILE])
            expected_points = int(ws.cands[choice, K.CAND_POINTS])
            total = rules.place_tile(ws, tile, int(ws.cands[choice, K.CAND_PARENT]),
                                 int(ws.cands[choice, K.CAND_SIDE]), int(ws.cands[choice, K.CAND_JOINED]))
            remaining.remove(tile)
            assert total == recomputed_total(ws)
            assert expected_points == rules.placement_points(total)
            open_values = sum(1 << v for v in range(7) if ws.open_count[v] > 0)
            assert ws.board[K.BOARD_OPEN_VALUES] == open_values
            assert (ws.open_count >= 0).all()
