"""Per-tile knowledge from the round's history (:mod:`strategies.inference`).

Scripted histories with hand-computed groups (count, value set lacked), and
the grouped sampler's guarantees on many draws.
"""

from __future__ import annotations

import numpy as np

from core import state as K
from core.tiles import N_TILES, tile_index
from strategies.inference import MAX_GROUPS, hand_groups, sample_grouped_world, tile_values
from strategies.lookahead import new_scratch
from tests.support.views import Table, value_set

PLAY, DRAW, PASS = K.ACTION_PLAY, K.ACTION_DRAW, K.ACTION_PASS


def _rows(history):
    """History rows from (seat, kind, tile or None, open values); where a play went and what
    it scored do not matter to the groups."""
    rows = np.zeros((len(history), K.HISTORY_FIELDS), dtype=np.int64)
    for row, (seat, kind, tile, open_values) in enumerate(history):
        rows[row, K.H_SEAT] = seat
        rows[row, K.H_KIND] = kind
        rows[row, K.H_TILE] = tile_index(*tile) if kind == PLAY else K.NO_TILE
        rows[row, K.H_OPEN] = value_set(open_values)
        rows[row, K.H_PARENT] = K.NO_PARENT
    return rows


def _view(history, hand_sizes, lacking=(0, 0)):
    """Seat 0's view of a 2-player table, with ``history`` rows (seat, kind, tile or (a, b), open values)."""
    table = Table(2, (3, 5), [], [[(0, 0), (1, 1)], [(2, 2)]])
    rows = _rows(history)
    view = table.view(0)
    sizes = np.zeros(4, dtype=np.int64)
    sizes[:2] = hand_sizes
    lack = np.zeros(4, dtype=np.int64)
    lack[:2] = lacking
    return view._replace(n_history=np.int64(len(rows)), history=rows, hand_sizes=sizes, lacking=lack)


def _groups(view, seat=1):
    counts = np.zeros(MAX_GROUPS, dtype=np.int64)
    lacks = np.zeros(MAX_GROUPS, dtype=np.int64)
    n = hand_groups(view, seat, counts, lacks)
    return sorted((int(counts[g]), sorted(v for v in range(7) if lacks[g] >> v & 1)) for g in range(n) if counts[g] > 0)


def test_tile_values():
    assert tile_values(tile_index(2, 5)) == value_set([2, 5])
    assert tile_values(tile_index(4, 4)) == value_set([4])


def test_dealt_tiles_lack_nothing():
    view = _view([(1, PLAY, (3, 5), [])], [5, 4])
    assert _groups(view) == [(4, [])]


def test_a_draw_constrains_the_whole_hand_and_the_drawn_tiles_alike():
    # Seat 1 opens 3-5, seat 0 plays, seat 1 draws 3 tiles at open {3, 5} and plays the third.
    history = [(1, PLAY, (3, 5), []), (0, PLAY, (5, 6), [3, 5]),
               (1, DRAW, None, [3, 6]), (1, DRAW, None, [3, 6]), (1, DRAW, None, [3, 6]),
               (1, PLAY, (3, 4), [3, 6])]
    # 4 dealt tiles left, all lacking {3, 6}; 2 drawn and kept, lacking {3, 6}: one group of 6.
    assert _groups(_view(history, [4, 6])) == [(6, [3, 6])]


def test_older_tiles_keep_older_constraints_after_a_new_draw():
    history = [(1, PLAY, (3, 5), []), (0, PLAY, (5, 6), [3, 5]),
               (1, DRAW, None, [3, 6]), (1, DRAW, None, [3, 6]), (1, PLAY, (3, 4), [3, 6]),
               (0, PLAY, (4, 4), [4, 6]),
               (1, DRAW, None, [4, 6]), (1, DRAW, None, [4, 6]), (1, PASS, None, [4, 6])]
    # Before the second run of draws: 5 tiles lacking {3, 6}; the run adds {4, 6} to them
    # and brings 2 tiles lacking only {4, 6}; the pass adds nothing new. The engine's
    # ``lacking`` keeps only {4, 6} for all 7.
    assert _groups(_view(history, [5, 7])) == [(2, [4, 6]), (5, [3, 4, 6])]


def test_a_play_leaves_the_most_constrained_group_it_fits():
    history = [(1, PLAY, (3, 5), []), (0, PLAY, (5, 6), [3, 5]),
               (1, DRAW, None, [3, 6]), (1, DRAW, None, [3, 6]), (1, PLAY, (3, 4), [3, 6]),
               (0, PLAY, (4, 4), [4, 6]),
               (1, DRAW, None, [4, 6]), (1, DRAW, None, [4, 6]), (1, PLAY, (4, 0), [4, 6]),
               (0, PLAY, (0, 2), [0, 6]),
               (1, PLAY, (2, 1), [2, 6])]
    # After the second run: 5 tiles lacking {3,4,6}, 1 drawn tile lacking {4,6}. The 1-2 fits
    # both; it is taken from the more constrained group. A 3-x tile could only come from the
    # drawn group.
    assert _groups(_view(history, [5, 5])) == [(1, [4, 6]), (4, [3, 4, 6])]
    history[-1] = (1, PLAY, (2, 3), [2, 6])
    assert _groups(_view(history, [5, 5])) == [(5, [3, 4, 6])]


def test_a_history_that_does_not_add_up_falls_back_to_the_views_lacking():
    view = _view([(1, PLAY, (3, 5), [])], [5, 6], lacking=(0, value_set([1, 2])))
    assert _groups(view) == [(6, [1, 2])]


def test_sampled_worlds_respect_every_group():
    history = [(1, PLAY, (3, 5), []), (0, PLAY, (5, 6), [3, 5]),
               (1, DRAW, None, [3, 6]), (1, DRAW, None, [3, 6]), (1, PLAY, (3, 4), [3, 6]),
               (0, PLAY, (4, 4), [4, 6]),
               (1, DRAW, None, [4, 6]), (1, DRAW, None, [4, 6]), (1, PASS, None, [4, 6])]
    # Seat 0's view: its hand and a layout of 3-5, 5-6, 3-4, 4-4.
    table = Table(2, (3, 5), [((5, 6), 5), ((3, 4), 3), ((4, 4), 4)],
                  [[(0, 0), (1, 1), (0, 1)], [(0, 2), (1, 2), (2, 2), (2, 5), (5, 5), (0, 5), (1, 5)]])
    rows = _rows(history)
    view = table.view(0)._replace(n_history=np.int64(len(rows)), history=rows)
    counts = np.zeros((4, MAX_GROUPS), dtype=np.int64)
    lacks = np.zeros((4, MAX_GROUPS), dtype=np.int64)
    n_groups = np.zeros(4, dtype=np.int64)
    n_groups[1] = hand_groups(view, 1, counts[1], lacks[1])
    assert n_groups[1] == 2
    strict = value_set([3, 4, 6])
    rng = np.array([12345, 0], dtype=np.uint64)
    ws = new_scratch()
    seen = set()
    for _ in range(400):
        start = sample_grouped_world(ws, view, rng, counts, lacks, n_groups)
        hand = int(ws.hands[1])
        tiles = [t for t in range(N_TILES) if hand >> t & 1]
        assert len(tiles) == 7 and int(ws.hands[0]) == int(view.hand)
        # At least 5 of its 7 tiles carry none of 3, 4, 6; all 7 carry neither 4 nor 6.
        assert all(not tile_values(t) & value_set([4, 6]) for t in tiles)
        assert sum(1 for t in tiles if not tile_values(t) & strict) >= 5
        boneyard = [int(t) for t in ws.deal[start:]]
        layout = {tile_index(*t) for t in [(3, 5), (5, 6), (3, 4), (4, 4)]}
        everything = sorted(boneyard + tiles + [t for t in range(N_TILES) if view.hand >> t & 1]
                            + sorted(layout))
        assert everything == list(range(N_TILES))
        seen.add(hand)
    assert len(seen) > 20  # it samples, not one fixed deal
