"""sim.study_kernels: score events in context, per-entity paths, forced-opening playouts.

Everything is checked against the engine's own records (exact61-record/1),
which ``five-up verify`` checks against the rules reference.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import strategies

from core import state as K
from core.rng import SEAT_SALT, decision_key, one_way, stream_key, word_at
from sim.engine.compiled import CompiledRun
from sim.engine.spec import RunSpec
from sim.study_kernels.openings import (
    counterfactual_deal,
    engine_deal,
    hand_tiles,
    opening_counterfactual,
    replay_round,
    sample_hands,
)
from sim.study_kernels.traces import trace_events
from core.tiles import TARGET_RAW, TILE_INDEX
from tests.support.traces import traced

CONFIGS = [(2, "greedy,random"), (3, "random,greedy,random"), (4, "greedy,random")]


def _expected_events(records):
    """(match, round, turn, round_turn, entity, seat, kind, raw, accepted, score_before) rows."""
    rows = []
    for rec in records:
        scores = [0] * len(rec["scores"])
        turn = 0
        for r, rnd in enumerate(rec["rounds"]):
            turn_of_action = {}
            round_turn = 0
            for a, action in enumerate(rnd["actions"]):
                if action["type"] != "draw":
                    turn_of_action[a] = (turn, round_turn)
                    turn += 1
                    round_turn += 1
            for ev in rnd["events"]:
                if ev["kind"] == "placement":
                    t, rt = turn_of_action[ev["action"]]
                    seat = rnd["actions"][ev["action"]]["seat"]
                else:
                    t, rt = turn - 1, round_turn - 1
                    seat = ev["seat"]
                rows.append((rec["match"], r, t, rt, ev["entity"], seat, ev["kind"], ev["raw"],
                             ev["accepted"], scores[ev["entity"]]))
                if ev["accepted"]:
                    scores[ev["entity"]] += ev["raw"]
    return rows


@pytest.mark.parametrize("players,strategies", CONFIGS)
def test_events_match_the_records(compiled_engine, players, strategies):
    records = compiled_engine.record(players, strategies, 120, seed=5)
    trace = trace_events(players, strategies, 120, seed=5, chunk_size=37)
    columns = ["match", "round", "turn", "round_turn", "entity", "seat", "kind", "raw",
               "accepted", "score_before"]
    got = [(int(a), int(b), int(c), int(d), int(e), int(f), str(g), int(h), bool(i), int(j))
           for a, b, c, d, e, f, g, h, i, j in trace.events[columns].itertuples(index=False)]
    assert got == _expected_events(records)
    assert (trace.events["displayed_before"] * 5 == trace.events["score_before"]).all()
    frame = compiled_engine.simulate(players, strategies, 120, seed=5)
    pd.testing.assert_frame_equal(trace.matches, frame)


@pytest.mark.parametrize("players,strategies", CONFIGS)
def test_paths_recomputed_from_the_records(compiled_engine, players, strategies):
    records = compiled_engine.record(players, strategies, 80, seed=11)
    trace = trace_events(players, strategies, 80, seed=11)
    n_entities = len(records[0]["scores"])
    expected = []
    for rec in records:
        scores = [0] * n_entities
        acc = {e: dict(own_turns=0, zone10_turns=0, zone5_turns=0, zone10_table_turns=0,
                       zone10_rounds=0, zone5_rounds=0, first_zone10_event=-1,
                       first_zone5_event=-1, first_zone10_round=-1, events=0, discarded=0,
                       raw_discarded=0, max_score=0) for e in range(n_entities)}
        event_index = 0
        for r, rnd in enumerate(rec["rounds"]):
            in10 = [255 <= s < TARGET_RAW for s in scores]
            in5 = [280 <= s < TARGET_RAW for s in scores]
            placement_events = {ev["action"]: ev for ev in rnd["events"]
                                if ev["kind"] == "placement"}
            settlement = [ev for ev in rnd["events"] if ev["kind"] != "placement"]

            def apply(ev):
                nonlocal event_index
                e = ev["entity"]
                acc[e]["events"] += 1
                if ev["accepted"]:
                    scores[e] += ev["raw"]
                    acc[e]["max_score"] = max(acc[e]["max_score"], scores[e])
                    if 255 <= scores[e] < TARGET_RAW:
                        in10[e] = True
                        if acc[e]["first_zone10_event"] < 0:
                            acc[e]["first_zone10_event"] = event_index
                            acc[e]["first_zone10_round"] = r
                    if 280 <= scores[e] < TARGET_RAW:
                        in5[e] = True
                        if acc[e]["first_zone5_event"] < 0:
                            acc[e]["first_zone5_event"] = event_index
                else:
                    acc[e]["discarded"] += 1
                    acc[e]["raw_discarded"] += ev["raw"]
                event_index += 1

            for a, action in enumerate(rnd["actions"]):
                if action["type"] == "draw":
                    continue
                e = rec["entities"][action["seat"]]
                acc[e]["own_turns"] += 1
                acc[e]["zone10_turns"] += 255 <= scores[e] < TARGET_RAW
                acc[e]["zone5_turns"] += 280 <= scores[e] < TARGET_RAW
                for other in range(n_entities):
                    acc[other]["zone10_table_turns"] += 255 <= scores[other] < TARGET_RAW
                if a in placement_events:
                    apply(placement_events[a])
            for ev in settlement:
                apply(ev)
            for e in range(n_entities):
                acc[e]["zone10_rounds"] += in10[e]
                acc[e]["zone5_rounds"] += in5[e]
        for e in range(n_entities):
            expected.append({"match": rec["match"], "entity": e,
                             "won": rec["winner"] == e, "score": rec["scores"][e], **acc[e]})
    want = pd.DataFrame(expected)
    got = trace.paths[want.columns]
    for column in want.columns:
        expected = want[column].astype(np.int64).tolist()
        assert got[column].astype(np.int64).tolist() == expected, column


def test_trace_is_deterministic_and_chunk_free(compiled_engine):
    a = trace_events(3, "greedy,random,greedy", 90, seed=3, chunk_size=90)
    b = trace_events(3, "greedy,random,greedy", 90, seed=3, chunk_size=17, threads=1)
    for x, y in ((a.matches, b.matches), (a.events, b.events), (a.paths, b.paths)):
        pd.testing.assert_frame_equal(x, y)
    tail = trace_events(3, "greedy,random,greedy", 40, seed=3, first_match=50)
    pd.testing.assert_frame_equal(
        tail.events, a.events[a.events["match"] >= 50].reset_index(drop=True))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_deal_is_the_records_deal(compiled_engine, players):
    records = compiled_engine.record(players, "greedy," * (players - 1) + "greedy", 20, seed=8)
    for rec in records:
        for r, rnd in enumerate(rec["rounds"]):
            deal = engine_deal(8, rec["match"], r)
            hands = [[TILE_INDEX[tuple(t)] for t in h] for h in rnd["hands"]]
            assert [list(deal[5 * s:5 * s + 5]) for s in range(players)] == hands
            assert list(deal[5 * players:]) == [TILE_INDEX[tuple(t)] for t in rnd["boneyard"]]
    hands = sample_hands(8, 20)
    for h, rec in zip(hands, records):
        dealt = rec["rounds"][0]["hands"][0]
        assert hand_tiles(h) == sorted(TILE_INDEX[tuple(t)] for t in dealt)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_study_round_loop_replays_every_engine_round(compiled_engine, players):
    """The counterfactual's round loop, given the engine's deal, leader and scores, plays the
    engine's round (greedy is deterministic, so every round of every match can be replayed)."""
    names = ",".join(["greedy"] * players)
    rounds = compiled_engine.simulate_rounds(players, names, 40, seed=9)
    records = compiled_engine.record(players, names, 40, seed=9)
    n_entities = 2 if players == 4 else players
    for rec in records:
        previous = np.zeros(n_entities, dtype=np.int64)
        rows = rounds[rounds["match"] == rec["match"]]
        for r, (rnd, row) in enumerate(zip(rec["rounds"], rows.itertuples())):
            stats = replay_round(players, names, engine_deal(9, rec["match"], r),
                                         rnd["leader"], previous)
            assert [int(stats[K.R_SCORE + e]) for e in range(n_entities)] == rnd["scores"]
            assert int(stats[K.R_OPENING_TILE]) == TILE_INDEX[tuple(rnd["actions"][0]["tile"])]
            assert (stats[K.R_PLACEMENTS], stats[K.R_DRAWS], stats[K.R_PASSES]) == (
                row.placements, row.draws, row.passes)
            assert [stats[K.R_PIPS + s] for s in range(players)] == [
                getattr(row, f"pips_{s}") for s in range(players)]
            assert int(stats[K.R_WINNER]) == row.winner
            previous[:] = rnd["scores"]


_SETUPS = {}


def _round_with_streams(players, names, deal, leader, keys):
    """The study round loop (``play_dealt_round`` of the run's engine set, on a fresh workspace,
    as ``replay_dealt_round`` runs it) with seat ``s``'s decision stream set to ``keys[s]``."""
    run = _SETUPS.get((players, names))
    if run is None:
        # the built-in field's set (compiled before the tests), not a set of its own
        run = _SETUPS[players, names] = CompiledRun(RunSpec.build(players, names, 1, 0, max_rounds=1,
                                                                  field=strategies.builtin_names()), own_set=True)
    ws = K.new_workspace()
    ws.deal[:] = deal
    for seat in range(players):
        ws.rng[seat, 0] = np.uint64(keys[seat])
        ws.rng[seat, 1] = np.uint64(0)
    trace = traced()
    entity_of_seat = K.ENTITY_OF_SEAT[players, :players].copy()
    entity_of_seat.flags.writeable = False  # read-only, as the engine's own calls pass it: no new compile
    run.engine.module.play_dealt_round(ws, trace, np.int64(players), entity_of_seat,
                                       run.strategy_ids, run.spec.params, np.int64(leader), np.int64(-1))
    return ws.round_stats.copy()


def test_first_round_replays_with_a_stochastic_strategy(compiled_engine):
    """Round 0 of a match, every seat's decision stream at its start: even `random` replays
    exactly. (Each seat's key is derived one-way from the match key, so no ``rng_key`` of
    ``replay_round`` gives a match's streams: the round loop is run with them directly, and
    ``replay_round`` is checked to be that loop with the streams it documents.)"""
    names = "random,random,random"
    rounds = compiled_engine.simulate_rounds(3, names, 30, seed=4)
    first = rounds[rounds["round"] == 0]
    for row in first.itertuples():
        deal = engine_deal(4, row.match, 0)
        keys = [decision_key(np.int64(4), np.int64(row.match), np.int64(seat)) for seat in range(3)]
        stats = _round_with_streams(3, names, deal, row.leader, keys)
        assert [int(stats[K.R_GAIN + e]) for e in range(3)] == [row.raw_0, row.raw_1, row.raw_2]
        assert int(stats[K.R_OPENING_TILE]) == TILE_INDEX[tuple(map(int, row.opening.split("-")))]
        key = np.uint64(stream_key(np.int64(4), np.int64(row.match), np.int64(2)))
        study_keys = [one_way(key, np.uint64((seat + 1) * int(SEAT_SALT) % 2**64)) for seat in range(3)]
        np.testing.assert_array_equal(replay_round(3, names, deal, row.leader, None, rng_key=key),
                                      _round_with_streams(3, names, deal, row.leader, study_keys))


def test_counterfactual_playouts_are_rounds_of_the_study_loop(compiled_engine):
    cf = opening_counterfactual(3, "random", hands=4, playouts=3, seed=7,
                                        baseline="greedy")
    for h in range(4):
        for k in range(3):
            deal = counterfactual_deal(7, h, cf.hands[h], k)
            assert sorted(deal) == list(range(28))
            assert list(deal[:5]) == list(cf.tiles[h])
            key = np.uint64(word_at(np.uint64(stream_key(np.int64(7), np.int64(h), np.int64(102))),
                                    np.int64(k)))
            for slot in range(5):
                stats = replay_round(3, "random,random,random", deal, 0, None,
                                             forced_tile=int(cf.tiles[h, slot]), rng_key=key)
                assert int(stats[K.R_OPENING_TILE]) == cf.tiles[h, slot]
                gain = [int(stats[K.R_GAIN + e]) for e in range(3)]
                assert cf.diff[h, slot, k] == (gain[0] - (gain[1] + gain[2]) / 2) / 5
                assert cf.leader_won[h, slot, k] == (int(stats[K.R_WINNER]) == 0)


def test_counterfactual_baseline_and_tables(compiled_engine):
    from core.tiles import TILES

    cf = opening_counterfactual(2, "greedy", hands=30, playouts=6, seed=2)
    # greedy opens with the highest-scoring tile, ties to the heavier one
    for h in range(30):
        tiles = cf.tiles[h]
        points = [sum(TILES[t]) if sum(TILES[t]) % 5 == 0 and sum(TILES[t]) > 0 else 0
                  for t in tiles]
        best = max(range(5), key=lambda i: (points[i], sum(TILES[tiles[i]]), -tiles[i]))
        assert cf.baseline_tile[h] == tiles[best]
    per_hand = cf.per_hand()
    assert (per_hand["gain"] >= 0).all()
    assert (per_hand.loc[per_hand["baseline_is_best"], "gain"] == 0).all()
    per_tile = cf.per_tile()
    assert len(per_tile) == 150 and per_tile.groupby("hand")["is_best"].sum().eq(1).all()
    assert per_tile.groupby("hand")["is_baseline"].sum().eq(1).all()
    again = opening_counterfactual(2, "greedy", hands=30, playouts=6, seed=2, threads=1)
    assert np.array_equal(again.diff, cf.diff)
    part = opening_counterfactual(2, "greedy", hands=10, playouts=6, seed=2, first_hand=20)
    assert np.array_equal(part.diff, cf.diff[20:])
    named = opening_counterfactual(2, "greedy", hands=[["0-0", "1-5", (2, 3), 27, "4-4"]],
                                           playouts=4, seed=2)
    assert list(named.tiles[0]) == sorted([0, TILE_INDEX[(1, 5)], TILE_INDEX[(2, 3)], 27,
                                           TILE_INDEX[(4, 4)]])


@pytest.mark.parametrize("hands,message", [
    ([["0-0", "0-1"]], "5 distinct tiles"),
    ([["0-0", "0-0", "0-1", "0-2", "0-3"]], "5 distinct tiles"),
    ([["0-7", "0-0", "0-1", "0-2", "0-3"]], "no tile 0-7"),
    (0, "hands must be at least 1, found 0"),
])
def test_counterfactual_rejects_bad_hands(compiled_engine, hands, message):
    with pytest.raises(ValueError, match=message):
        opening_counterfactual(2, "greedy", hands=hands, playouts=2)


# ---------------------------------------------------------------------------
# Slow: every registered strategy, larger samples
# ---------------------------------------------------------------------------
def _deterministic_strategies():

    # The audit strategy (sees_hidden) is covered by tests/strategies/test_cheater.py.
    return [name for name, info in strategies.builtins().items()
            if not info.stochastic and not info.sees_hidden]


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_loop_replays_every_deterministic_strategy(compiled_engine, players):
    n_entities = 2 if players == 4 else players
    for name in _deterministic_strategies():
        names = ",".join([name] * players)
        records = compiled_engine.record(players, names, 25, seed=17)
        for rec in records:
            previous = np.zeros(n_entities, dtype=np.int64)
            for r, rnd in enumerate(rec["rounds"]):
                deal = engine_deal(17, rec["match"], r)
                stats = replay_round(players, names, deal, rnd["leader"], previous)
                assert [int(stats[K.R_SCORE + e]) for e in range(n_entities)] == rnd["scores"], name
                previous[:] = rnd["scores"]


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_events_match_the_records_for_every_strategy(compiled_engine, players):

    for name in [n for n, info in strategies.builtins().items()
                 if (info.lookahead == 0 or not info.stochastic) and not info.sees_hidden]:
        names = [name] * players
        records = compiled_engine.record(players, names, 200, seed=23)
        trace = trace_events(players, names, 200, seed=23)
        columns = ["match", "round", "turn", "round_turn", "entity", "seat", "kind", "raw",
                   "accepted", "score_before"]
        got = [(int(a), int(b), int(c), int(d), int(e), int(f), str(g), int(h), bool(i), int(j))
               for a, b, c, d, e, f, g, h, i, j in trace.events[columns].itertuples(index=False)]
        assert got == _expected_events(records), name


@pytest.mark.slow
def test_absolute_seats_are_fair_by_construction(compiled_engine):
    """The first leader is a uniform lot and self-play is symmetric: every absolute seat's
    win rate is the fair share (checked within 4 standard errors)."""
    from experiments.studies import seats

    result = seats.run([2, 3, 4], ["greedy", "random"], 20_000, seed=99)
    table = result.frames["absolute_seats"]
    fair = np.where(table.players == 4, 0.5, 1 / table.players)
    se = np.sqrt(fair * (1 - fair) / table.matches)
    assert (np.abs(table.win_rate - fair) < 4 * se).all()
