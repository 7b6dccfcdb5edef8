"""Property tests of the reference over random matches (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.reference import play_match
from core.tiles import TARGET_RAW, TILES
from sim.verify import verify_record

strategy_names = st.sampled_from(["random", "greedy"])


@st.composite
def match_setups(draw):
    players = draw(st.sampled_from([2, 3, 4]))
    seats = draw(st.lists(strategy_names, min_size=players, max_size=players))
    seed = draw(st.integers(min_value=0, max_value=2**63 - 1))
    match = draw(st.integers(min_value=0, max_value=10**6))
    return players, seats, seed, match


def check_match_properties(players, seats, seed, match):
    all_tiles = sorted(TILES)
    steps = []

    def observer(rnd):
        # Every tile is in exactly one hand, the boneyard or the layout.
        assert rnd.tiles_accounted() == all_tiles
        assert all(score <= TARGET_RAW for score in rnd.scores)
        steps.append(1)

    record = play_match(players, seats, seed=seed, match=match, observer=observer)
    assert steps, "the observer saw no action"
    previous = [0] * len(record["scores"])
    for rnd in record["rounds"]:
        gained = [0] * len(previous)
        for event in rnd["events"]:
            if event["accepted"]:
                gained[event["entity"]] += event["raw"]
        # The accepted events' sum is exactly the score change of the round.
        assert [p + g for p, g in zip(previous, gained)] == rnd["scores"]
        previous = rnd["scores"]
    assert previous == record["scores"]
    if record["winner"] is not None:
        assert record["scores"][record["winner"]] == TARGET_RAW
        assert sum(s == TARGET_RAW for s in record["scores"]) == 1
    else:
        assert len(record["rounds"]) == record["max_rounds"]
    assert verify_record(record) == []


@settings(max_examples=40, deadline=None)
@given(match_setups())
def test_random_matches_keep_every_invariant(setup):
    check_match_properties(*setup)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(match_setups())
def test_random_matches_keep_every_invariant_many(setup):
    check_match_properties(*setup)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_reference_records_verify_by_the_thousand(players):
    mixes = {2: [["random", "random"], ["greedy", "random"], ["greedy", "greedy"]],
             3: [["random"] * 3, ["greedy", "random", "greedy"], ["greedy"] * 3],
             4: [["random"] * 4, ["greedy", "random"] * 2, ["greedy"] * 4]}[players]
    for m in range(1200):
        record = play_match(players, mixes[m % 3], seed=11, match=m)
        assert verify_record(record) == [], (players, m)
