"""The engine's results depend only on (seed, match index) and the strategies."""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

MIXES = [
    (2, "random,random"),
    (2, "greedy,random"),
    (3, "random,greedy,random"),
    (4, "greedy,random"),
    (4, "random,greedy,greedy,random"),
]


@pytest.mark.parametrize("players,strategies", MIXES)
def test_same_seed_same_frame(compiled_engine, players, strategies):
    first = compiled_engine.simulate(players, strategies, 300, seed=42)
    second = compiled_engine.simulate(players, strategies, 300, seed=42)
    pd.testing.assert_frame_equal(first, second)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two Numba threads")
@pytest.mark.parametrize("players,strategies", MIXES)
def test_one_thread_equals_two_threads(compiled_engine, players, strategies):
    before = numba.get_num_threads()
    one = compiled_engine.simulate(players, strategies, 1000, seed=7, threads=1)
    two = compiled_engine.simulate(players, strategies, 1000, seed=7, threads=2)
    pd.testing.assert_frame_equal(one, two)
    assert numba.get_num_threads() == before, "threads= must restore the previous count"


@pytest.mark.parametrize("players,strategies", MIXES)
def test_batch_splits_do_not_matter(compiled_engine, players, strategies):
    whole = compiled_engine.simulate(players, strategies, 600, seed=3)
    small_chunks = compiled_engine.simulate(players, strategies, 600, seed=3, chunk_size=37)
    pd.testing.assert_frame_equal(whole, small_chunks)
    parts = [
        compiled_engine.simulate(players, strategies, 250, seed=3, first_match=0),
        compiled_engine.simulate(players, strategies, 1, seed=3, first_match=250),
        compiled_engine.simulate(players, strategies, 349, seed=3, first_match=251, chunk_size=100),
    ]
    pd.testing.assert_frame_equal(whole, pd.concat(parts, ignore_index=True))


def test_seeds_and_matches_differ(compiled_engine):
    a = compiled_engine.simulate(2, "random,random", 200, seed=1)
    b = compiled_engine.simulate(2, "random,random", 200, seed=2)
    assert not a.drop(columns="seed").equals(b.drop(columns="seed"))
    assert a["placements"].nunique() > 20


def test_deals_do_not_depend_on_strategies(compiled_engine):
    """Separate streams: the same (seed, match) deals the same round 0 with any strategies."""
    greedy = compiled_engine.record(2, "greedy,greedy", 20, seed=9)
    random = compiled_engine.record(2, "random,random", 20, seed=9)
    for g, r in zip(greedy, random):
        assert g["rounds"][0]["hands"] == r["rounds"][0]["hands"]
        assert g["rounds"][0]["boneyard"] == r["rounds"][0]["boneyard"]
        assert g["rounds"][0]["leader"] == r["rounds"][0]["leader"]


FRAME_FROM_RECORD = {
    "rounds": lambda rec: len(rec["rounds"]),
    "placements": lambda rec: _count(rec, "action", "play"),
    "draws": lambda rec: _count(rec, "action", "draw"),
    "passes": lambda rec: _count(rec, "action", "pass"),
    "domino_rounds": lambda rec: sum(r["end"] == "domino" for r in rec["rounds"]),
    "blocked_rounds": lambda rec: sum(r["end"] == "blocked" for r in rec["rounds"]),
    "events_accepted": lambda rec: sum(e["accepted"] for r in rec["rounds"] for e in r["events"]),
    "events_discarded": lambda rec: sum(not e["accepted"] for r in rec["rounds"] for e in r["events"]),
    "raw_discarded": lambda rec: sum(
        e["raw"] for r in rec["rounds"] for e in r["events"] if not e["accepted"]
    ),
    "domino_credit": lambda rec: _accepted_sum(rec, "domino", "credit"),
    "domino_debit": lambda rec: _accepted_sum(rec, "domino", "debit"),
    "blocked_credit": lambda rec: _accepted_sum(rec, "blocked", "raw"),
    "placement_raw": lambda rec: _accepted_sum(rec, "placement", "raw")
    + _accepted_sum(rec, "domino", "placement"),
    "first_leader": lambda rec: rec["rounds"][0]["leader"],
}


def _count(rec, _what, kind):
    return sum(a["type"] == kind for r in rec["rounds"] for a in r["actions"])


def _accepted_sum(rec, kind, key):
    return sum(e[key] for r in rec["rounds"] for e in r["events"] if e["kind"] == kind and e["accepted"])


@pytest.mark.parametrize("players,strategies", MIXES)
def test_recording_does_not_change_play(compiled_engine, players, strategies):
    """Frame rows of recorded matches equal those of an unrecorded run (issue item 6)."""
    frame = compiled_engine.simulate(players, strategies, 400, seed=21)
    records = compiled_engine.record(players, strategies, 60, seed=21, first_match=150)
    rows = frame.iloc[150:210].reset_index(drop=True)
    for row, rec in zip(rows.itertuples(index=False), records):
        assert rec["match"] == row.match
        assert (rec["winner"] if rec["winner"] is not None else -1) == row.winner
        entities = max(rec["entities"]) + 1
        assert rec["scores"] == [getattr(row, f"score_{e}") for e in range(entities)]
        for column, derive in FRAME_FROM_RECORD.items():
            assert derive(rec) == getattr(row, column), column
        first = rec["rounds"][0]["actions"][0]
        assert row.first_opening == "-".join(map(str, sorted(first["tile"])))


@pytest.mark.parametrize("players,strategies", MIXES)
def test_round_frame_agrees_with_match_frame(compiled_engine, players, strategies):
    frame = compiled_engine.simulate(players, strategies, 200, seed=5)
    rounds = compiled_engine.simulate_rounds(players, strategies, 200, seed=5, chunk_size=64)
    per_match = rounds.groupby("match")
    assert (per_match.size().to_numpy() == frame["rounds"].to_numpy()).all()
    for column in ("placements", "draws", "passes"):
        assert (per_match[column].sum().to_numpy() == frame[column].to_numpy()).all(), column
    last = per_match.tail(1).set_index("match")
    entities = 2 if players != 3 else 3
    for e in range(entities):
        assert (last[f"score_{e}"].to_numpy() == frame[f"score_{e}"].to_numpy()).all()
        assert (per_match[f"raw_{e}"].sum().to_numpy() == frame[f"score_{e}"].to_numpy()).all()
    assert (rounds.groupby("match")["round"].min() == 0).all()
    np.testing.assert_array_equal(
        rounds.loc[rounds["round"] == 0, "leader"].to_numpy(), frame["first_leader"].to_numpy()
    )
