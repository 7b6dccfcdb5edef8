"""Column contract, invariants and input validation of the engine's frames."""

from __future__ import annotations

import numpy as np
import pytest

from core.tiles import TARGET_RAW, tile_name
from strategies.catalogue import builtin_names

COUNT_COLUMNS = [
    "rounds", "placements", "draws", "passes", "domino_rounds", "blocked_rounds",
    "events_accepted", "events_discarded", "raw_discarded", "placement_raw",
    "domino_credit", "domino_debit", "blocked_credit",
]


def expected_columns(players: int) -> list[str]:
    entities = 2 if players == 4 else players
    return (
        ["match", "seed", "players"]
        + [f"strategy_{s}" for s in range(players)]
        + ["winner"]
        + [f"score_{e}" for e in range(entities)]
        + COUNT_COLUMNS
        + [f"events_discarded_{e}" for e in range(entities)]
        + [f"settlement_raw_{e}" for e in range(entities)]
        + ["first_leader", "first_opening"]
    )


@pytest.mark.parametrize("players,strategies", [(2, "greedy,random"), (3, "greedy,random,greedy"), (4, "greedy,random")])
def test_per_entity_columns_equal_the_records(compiled_engine, players, strategies):
    frame = compiled_engine.simulate(players, strategies, 300, seed=21)
    records = compiled_engine.record(players, strategies, 300, seed=21)
    entities = 2 if players == 4 else players
    for row, record in zip(frame.itertuples(index=False), records):
        events = [e for r in record["rounds"] for e in r["events"]]
        for e in range(entities):
            discarded = sum(1 for ev in events if ev["entity"] == e and not ev["accepted"])
            settled = sum(ev["credit"] - ev["debit"] if ev["kind"] == "domino" else ev["raw"]
                          for ev in events
                          if ev["entity"] == e and ev["accepted"] and ev["kind"] != "placement")
            assert getattr(row, f"events_discarded_{e}") == discarded
            assert getattr(row, f"settlement_raw_{e}") == settled
    assert sum(frame[f"events_discarded_{e}"].sum() for e in range(entities)) == frame["events_discarded"].sum()
    settled_total = sum(frame[f"settlement_raw_{e}"] for e in range(entities))
    assert (settled_total == frame["domino_credit"] - frame["domino_debit"] + frame["blocked_credit"]).all()


@pytest.mark.parametrize("players,strategies", [(2, "greedy,random"), (3, "random,random,greedy"), (4, "greedy,random")])
def test_columns_exactly_as_the_issue_lists(compiled_engine, players, strategies):
    frame = compiled_engine.simulate(players, strategies, 50, seed=1, first_match=10)
    assert list(frame.columns) == expected_columns(players)
    assert len(frame) == 50
    assert frame["match"].tolist() == list(range(10, 60))
    assert (frame["seed"] == 1).all() and (frame["players"] == players).all()
    names = strategies.split(",")
    if players == 4 and len(names) == 2:
        names = names * 2
    for seat, name in enumerate(names):
        assert (frame[f"strategy_{seat}"] == name).all()
    for column in COUNT_COLUMNS:
        assert np.issubdtype(frame[column].dtype, np.integer), column
    assert set(frame["first_opening"].astype(str)) <= {tile_name(t) for t in range(28)}
    assert frame["first_leader"].between(0, players - 1).all()


@pytest.mark.parametrize("players,strategies", [(2, "greedy,random"), (3, "random,random,greedy"), (4, "greedy,greedy"), (4, "random,random")])
def test_score_invariants(compiled_engine, players, strategies):
    frame = compiled_engine.simulate(players, strategies, 2000, seed=12)
    scores = frame.filter(like="score_")
    total = scores.sum(axis=1)
    explained = frame["placement_raw"] + frame["domino_credit"] - frame["domino_debit"] + frame["blocked_credit"]
    assert (total == explained).all()
    finished = frame["winner"] >= 0
    assert finished.all(), "default round limit should finish every match"
    winner_scores = scores.to_numpy()[np.arange(len(frame)), frame["winner"].to_numpy()]
    assert (winner_scores == TARGET_RAW).all()
    assert (scores.to_numpy() <= TARGET_RAW).all()
    # Every round but possibly the last ends by domino or block; only the last can end by "target".
    assert ((frame["rounds"] - frame["domino_rounds"] - frame["blocked_rounds"]).isin([0, 1])).all()
    assert (frame["events_discarded"] > 0).any() and (frame["raw_discarded"] >= 5 * frame["events_discarded"]).all()
    if players == 4:
        assert (frame["domino_debit"] > 0).any()
    else:
        assert (frame["domino_debit"] == 0).all()


def test_round_limit_leaves_matches_unfinished(compiled_engine):
    frame = compiled_engine.simulate(2, "random,random", 200, seed=4, max_rounds=2)
    assert (frame["rounds"] <= 2).all()
    unfinished = frame["winner"] == -1
    assert unfinished.all()
    assert (frame.loc[unfinished, "rounds"] == 2).all()
    records = compiled_engine.record(2, "random,random", 3, seed=4, max_rounds=2)
    assert all(r["winner"] is None and r["max_rounds"] == 2 and len(r["rounds"]) == 2 for r in records)


def test_round_frame_columns(compiled_engine):
    rounds = compiled_engine.simulate_rounds(4, "greedy,random", 30, seed=2)
    for column in ["match", "round", "leader", "opening", "opening_points", "end", "winner",
                   "placements", "draws", "passes", "events_accepted", "events_discarded",
                   "raw_discarded", "placement_raw", "domino_placement", "domino_credit",
                   "domino_debit", "domino_accepted", "blocked_credit", "raw_0", "raw_1",
                   "score_0", "score_1", "pips_0", "pips_3"]:
        assert column in rounds.columns, column
    assert set(rounds["end"].astype(str)) <= {"domino", "blocked", "target"}
    assert (rounds["opening_points"] % 5 == 0).all()


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"players": 1}, "players must be 2, 3 or 4"),
        ({"players": True}, "players must be 2, 3 or 4"),
        ({"strategies": "greedy"}, "2 players need 2 strategies"),
        ({"strategies": "greedy,nope"},
         f"unknown strategy 'nope' (built-in: {', '.join(builtin_names())};"),
        ({"strategies": ["greedy", ""]}, "strategies has an empty entry"),
        ({"matches": 0}, "matches must be at least 1, found 0"),
        ({"matches": 2.5}, "matches expects an integer, found 2.5"),
        ({"seed": -1}, "seed must be between 0 and 9223372036854775807, found -1"),
        ({"max_rounds": 0}, "max_rounds must be at least 1, found 0"),
        ({"first_match": -3}, "first_match must be between 0 and"),
        ({"threads": 0}, "threads must be between 1 and"),
    ],
)
def test_bad_arguments_raise_clear_value_errors(compiled_engine, kwargs, message):
    arguments = {"players": 2, "strategies": "greedy,random", "matches": 3, "seed": 0} | kwargs
    for function in (compiled_engine.simulate, compiled_engine.simulate_rounds, compiled_engine.record):
        with pytest.raises(ValueError) as info:
            function(**arguments)
        assert message in str(info.value)


def test_four_players_partnership_names(compiled_engine):
    frame = compiled_engine.simulate(4, ["greedy", "random"], 5, seed=0)
    assert [frame[f"strategy_{s}"].iloc[0] for s in range(4)] == ["greedy", "random", "greedy", "random"]
    with pytest.raises(ValueError, match="4 players need 4"):
        compiled_engine.simulate(4, "greedy,random,greedy", 5, seed=0)
