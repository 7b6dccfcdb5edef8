"""The lookahead machinery: quiet playouts match the engine; sampled worlds are consistent."""

from __future__ import annotations

import numpy as np
import pytest

from core import rules
from core import state as K
from core.tiles import N_TILES, TILES, tile_index
from strategies import lookahead as L
from tests.support.views import Table, mask, value_set


@pytest.mark.parametrize("players", [2, 3, 4])
def test_quiet_round_loop_reproduces_engine_rounds(compiled_engine, players):
    """continue_round with greedy everywhere = the engine's greedy rounds, score for score."""
    records = compiled_engine.record(players, ["greedy"] * players, 40, seed=31 + players)
    checked = 0
    for record in records:
        scores = np.zeros(4, dtype=np.int64)
        for rnd in record["rounds"]:
            tiles = [t for hand in rnd["hands"] for t in hand] + rnd["boneyard"]
            deal = np.array([tile_index(*t) for t in tiles], dtype=np.int64)
            after, end = L.replay_round_greedy(deal, players, rnd["leader"], scores)
            expected_end = {"domino": K.END_DOMINO, "blocked": K.END_BLOCKED, "target": K.END_TARGET}
            assert list(after[: len(rnd["scores"])]) == rnd["scores"], (record["match"], rnd["leader"])
            if end == K.END_TARGET:
                assert 305 in rnd["scores"]
            else:
                assert end == expected_end[rnd["end"]]
            scores = after
            checked += 1
    assert checked > 200


def world_view(players=3, seat=0, lacking=None):
    """A mid-round state: layout 3-5 / 5-6 / 3-1, boneyard of 8."""
    hands = [[(1, 2), (2, 4), (6, 6)], [(0, 1), (1, 1), (2, 2), (4, 4)], [(0, 2), (1, 4), (0, 4), (3, 3)]]
    boneyard = [(0, 3), (0, 5), (0, 6), (0, 0), (1, 5), (1, 6), (2, 3), (2, 5)]
    rest = [(2, 6), (3, 4), (3, 6), (4, 5), (4, 6), (5, 5)]
    hands[1] += rest[:1]  # sizes 3, 5, 4 (plus the 3 tiles placed below)
    table = Table(players, (3, 5), [((5, 6), 5), ((1, 3), 3)], hands[:players],
                  boneyard=boneyard + rest[1:], lacking=lacking)
    return table, table.view(seat, stream=(9, 9))


def test_sampled_worlds_are_consistent_with_the_view():
    lacking = [[], [3, 6], [1]]  # seat 1 lacks 3 and 6, seat 2 lacks 1
    table, view = world_view(lacking=lacking)
    scratch = L.new_scratch()
    unseen = L.unseen_tiles(view)
    assert unseen == (2**28 - 1) & ~view.hand & ~view.played
    counts = np.zeros((3, N_TILES))
    for _ in range(300):
        start = L.sample_world(scratch, view, view.rng)
        assert start == N_TILES - view.boneyard_size
        assert scratch.hands[0] == view.hand
        seen = 0
        for seat in (1, 2):
            hand = int(scratch.hands[seat])
            assert bin(hand).count("1") == view.hand_sizes[seat]
            assert hand & int(K.TILES_MATCHING[value_set(lacking[seat])]) == 0, "lacking value dealt"
            assert hand & seen == 0
            seen |= hand
            for t in range(N_TILES):
                counts[seat, t] += hand >> t & 1
        boneyard = {int(t) for t in scratch.deal[start:]}
        assert len(boneyard) == view.boneyard_size
        assert mask([TILES[t] for t in boneyard]) | seen == unseen
    # Every tile a seat may hold turns up in its hand sometimes; a lacking one never.
    for seat in (1, 2):
        allowed = unseen & ~int(K.TILES_MATCHING[value_set(lacking[seat])])
        for t in range(N_TILES):
            if allowed >> t & 1:
                assert counts[seat, t] > 0
            else:
                assert counts[seat, t] == 0


def test_layout_copy_and_candidate_placement_match_the_engine():
    table, view = world_view()
    scratch = L.new_scratch()
    for row in range(view.n_candidates):
        L.load_layout(scratch, view)
        c = view.cands[row]
        total = L.place_candidate(scratch, c[K.CAND_TILE], c[K.CAND_PARENT], c[K.CAND_SIDE], c[K.CAND_JOINED])
        assert rules.placement_points(total) == c[K.CAND_POINTS]
    assert view.n_candidates >= 2
