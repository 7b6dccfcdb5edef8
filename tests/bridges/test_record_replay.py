"""A record replayed decision by decision (:mod:`sim.bridges.record_replay`).

* Engine records of 2, 3 and 4 players replayed through ``MatchState`` give the record back:
  every field, the rounds' actions, events and scores included; only the order of a round's
  never-drawn tiles is free (both list the same tiles).
* Every decision met is the recorded seat's, with the recorded placement among its legal ones.
* A record whose play is not the rules' is refused with a line naming the round and the seat.
"""

from __future__ import annotations

import copy

import pytest

from sim.bridges.record_replay import replay_decisions

MATCHES = {2: 40, 3: 30, 4: 30}


def drawn_count(round_record) -> int:
    return sum(1 for action in round_record["actions"] if action["type"] == "draw")


def comparable(record):
    """The record with each round's never-drawn tiles as a sorted list (their order is free)."""
    record = copy.deepcopy(record)
    for round_record in record["rounds"]:
        drawn = drawn_count(round_record)
        round_record["boneyard"] = round_record["boneyard"][:drawn] + sorted(round_record["boneyard"][drawn:])
    return record


@pytest.mark.parametrize("players", [2, 3, 4])
def test_replay_gives_the_record_back(compiled_engine, players):
    records = compiled_engine.record(players, ["greedy", "random", "rollout", "greedy"][:players],
                                     MATCHES[players], seed=31 + players)
    decisions = 0
    for record in records:
        last = None
        for decision in replay_decisions(record):
            action = record["rounds"][decision.round]["actions"][decision.turn]
            assert action["type"] == "play" and action["seat"] == decision.seat
            assert decision.action in decision.state.legal_actions()
            last = decision
            decisions += 1
        back = last.state.record(record["strategies"], record["seed"], record["match"])
        assert comparable(back) == comparable(record)
    assert decisions > 20 * MATCHES[players]


def test_a_play_the_rules_do_not_allow_is_refused(compiled_engine):
    record, = compiled_engine.record(2, ["greedy", "greedy"], 1, seed=3)
    broken = copy.deepcopy(record)
    actions = broken["rounds"][0]["actions"]
    second = next(k for k, a in enumerate(actions) if a["type"] == "play" and a.get("parent") is not None)
    actions[second]["side"] = "arm" if actions[second]["side"] == "line" else "line"
    actions[second]["parent"] = 27  # no such node yet
    with pytest.raises(ValueError, match=r"seat \d's play of \d-\d is not legal there"):
        list(replay_decisions(broken))
    out_of_turn = copy.deepcopy(record)
    out_of_turn["rounds"][0]["actions"][0]["seat"] = 1 - out_of_turn["rounds"][0]["actions"][0]["seat"]
    with pytest.raises(ValueError, match="round 1: seat . plays out of turn"):
        list(replay_decisions(out_of_turn))
