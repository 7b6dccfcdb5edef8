"""The opponent model of ``matchplay`` (:mod:`strategies.choice_model`) on scripted histories."""

from __future__ import annotations

import math

import numpy as np

from core import state as K
from core.tiles import N_TILES, tile_index
from strategies.choice_model import (MAX_CHOICES, NOT_PLAYABLE, choice_factors, past_choices,
    world_weight)
from strategies.lookahead import new_scratch
from tests.support.views import Table

OPENING_35 = (1, K.ACTION_PLAY, tile_index(3, 5), 0, K.NO_PARENT, K.SIDE_NONE, 3, 0)
"""Seat 1 opened with 3-5 (total 8: no points)."""


def _choices(view):
    seats = np.zeros(MAX_CHOICES, dtype=np.int64)
    chosen = np.zeros(MAX_CHOICES, dtype=np.int64)
    awards = np.zeros((MAX_CHOICES, N_TILES))
    since = np.zeros(MAX_CHOICES, dtype=np.int64)
    n = past_choices(view, new_scratch(), seats, chosen, awards, since)
    return n, seats, chosen, awards, since


def _view(history, plays=(), hands=None):
    table = Table(2, (3, 5), list(plays), hands or [[(0, 0), (1, 2)], [(6, 4), (1, 1)]])
    rows = np.array(history, dtype=np.int64).reshape(-1, K.HISTORY_FIELDS)
    return table.view(0)._replace(n_history=np.int64(len(rows)), history=rows)


def test_an_opening_choice_tabulates_every_tiles_opening_points():
    n, seats, chosen, awards, since = _choices(_view([OPENING_35]))
    assert n == 1 and seats[0] == 1 and chosen[0] == tile_index(3, 5) and since[0] == 0
    # Opening totals: 6-4 is 10, 5-5 is 10, 2-3 is 5, 1-1 is 2 (no points), 3-5 is 8 (none).
    assert awards[0, tile_index(6, 4)] == 10 and awards[0, tile_index(5, 5)] == 10
    assert awards[0, tile_index(2, 3)] == 5
    assert awards[0, tile_index(1, 1)] == 0 and awards[0, tile_index(3, 5)] == 0
    # Seat 0's own tiles were never in seat 1's hand: not tabulated.
    assert awards[0, tile_index(0, 0)] == NOT_PLAYABLE


def test_world_weight_is_the_softmax_likelihood_of_the_choice():
    n, seats, chosen, awards, since = _choices(_view([OPENING_35]))
    beta = 0.2
    factors = np.zeros_like(awards)
    choice_factors(awards, n, beta, factors)
    assert factors[0, tile_index(6, 4)] == math.exp(10 * beta)
    assert factors[0, tile_index(0, 0)] == 0.0  # not a tile it could have held
    hands = np.zeros(4, dtype=np.int64)
    hands[1] = 1 << tile_index(6, 4)   # it held 6-4 (10 points) and opened 3-5 (0 points)
    assert math.isclose(world_weight(hands, n, seats, chosen, factors, since),
                        1.0 / (1.0 + math.exp(10 * beta)))
    hands[1] = 1 << tile_index(1, 1)   # 1-1 scores nothing either: a coin flip
    assert math.isclose(world_weight(hands, n, seats, chosen, factors, since), 0.5)
    choice_factors(awards, n, 0.0, factors)  # beta 0: uniform over the playable tiles it held
    hands[1] = 1 << tile_index(6, 4)
    assert math.isclose(world_weight(hands, n, seats, chosen, factors, since), 0.5)
    assert world_weight(hands, 0, seats, chosen, factors, since) == 1.0  # no choice: no evidence


def test_forced_plays_and_plays_before_a_later_draw_are_skipped():
    draw = (1, K.ACTION_DRAW, K.NO_TILE, 0b101000, K.NO_PARENT, K.SIDE_NONE, 0, 0)
    # Seat 0 plays 5-6 on the 5 side; seat 1 draws, then plays the drawn 3-4 on the 3 side.
    play_56 = (0, K.ACTION_PLAY, tile_index(5, 6), 0b101000, 0, K.SIDE_LINE, 5, 0)
    play_34 = (1, K.ACTION_PLAY, tile_index(3, 4), 0b1001000, 0, K.SIDE_LINE, 3, 10)
    view = _view([OPENING_35, play_56, draw, play_34], plays=[((5, 6), 5), ((3, 4), 3)],
                 hands=[[(0, 0), (1, 2)], [(6, 6), (1, 1), (0, 1), (2, 2), (0, 2)]])
    n = _choices(view)[0]
    assert n == 0  # the opening precedes a draw; the 3-4 was the drawn tile


def test_a_later_play_joins_the_hand_of_the_earlier_choice():
    play_56 = (0, K.ACTION_PLAY, tile_index(5, 6), 0b101000, 0, K.SIDE_LINE, 5, 0)
    play_34 = (1, K.ACTION_PLAY, tile_index(3, 4), 0b1001000, 0, K.SIDE_LINE, 3, 10)
    view = _view([OPENING_35, play_56, play_34], plays=[((5, 6), 5), ((3, 4), 3)],
                 hands=[[(0, 0), (1, 2)], [(6, 6), (1, 1), (0, 1)]])
    n, seats, chosen, awards, since = _choices(view)
    assert n == 2 and list(seats[:2]) == [1, 1]
    assert since[0] == 1 << tile_index(3, 4) and since[1] == 0
    # The second choice, on the layout 3-5, 5-6: the 3-4 scored 10 (ends 4 and 6); a 6-6 on
    # the 6 end would have made 3 + 12 = 15.
    assert awards[1, tile_index(3, 4)] == 10 and awards[1, tile_index(6, 6)] == 15
