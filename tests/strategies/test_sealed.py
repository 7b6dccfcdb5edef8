"""The sealed PlayerView: a compiled strategy is handed nothing its player may not know.

Two leaks of the view before it was sealed, each reproduced as a check that
would have failed then and passes now:

* stale rows: the whole candidate (and layout, open-node) arrays were handed
  over, so rows past ``n_candidates`` held earlier decisions' (rounds',
  matches') data; a strategy reading every row it is handed (``STALE_CHECK``)
  now sees exactly the rows in play, in every decision of thousands of matches;
* the decision key: the match-wide stream key was unmixable back to the deal
  key; that part lives in ``tests/core/test_rng.py`` (the inverse of ``mix64``
  breaks the old key, and reaches no match or deal key from today's keys).
  Here: every seat has its own stream, and a seat's counter moves only with its
  own draws (``COUNTER_CHECK`` beside a drawing ``random`` seat).

Then a *spy* (``SPY``) hashes every word of all 24 fields (every element of
every array, the stream key and counter included) into its choice: two deals
with the same public history but different hidden tiles must get the same
choice, at the opening (the spy leads, 800 deals and 1,600 re-deals per table size) and
mid-round (the spy answers a forced opening, 1,000 comparisons per table size),
for 2, 3 and 4 players; and in real engine matches, every decision of the spy
equals its choice on a view rebuilt from the public record and its own tiles
alone (a rebuilt view with one word off, e.g. a hand size, disagrees on most
decisions). The study kernels
(:func:`sim.study_kernels.openings.replay_round`) take the deal as an argument and seed each
seat's stream from ``rng_key`` alone, so the two deals are played from the
same streams.

The hidden-information test of every built-in on hand-built views is
``tests/strategies/test_hidden.py`` (the spy is among them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import strategies
from core import state as K
from sim.engine.compiled import CompiledRun
from sim.engine.spec import RunSpec
from sim.study_kernels import dealt_rounds
from sim.study_kernels.openings import replay_round
from core import rules
from core import rng as R
from core.tiles import HAND_SIZE, N_TILES, TARGET_RAW
from tests.support.views import COUNTER_CHECK, PROBE_FIELD, SPY, STALE_CHECK, Table, random_tables

FIELD = PROBE_FIELD
"""Compiled together (one kernel set, test_cheater's too) for the engine runs here."""


def assert_same_play(frame, expected):
    """Frames equal in every column but the strategy names."""
    columns = [c for c in frame.columns if not c.startswith("strategy_")]
    pd.testing.assert_frame_equal(frame[columns], expected[columns])


# ---------------------------------------------------------------------------
# Stale rows
# ---------------------------------------------------------------------------
def test_stale_check_rejects_the_unsealed_view_and_accepts_the_sealed_one():
    """The check detects the old leak: handed the whole arrays, it returns an invalid row."""
    generator = np.random.default_rng(12)
    greedy = strategies.resolve("greedy")
    asked = 0
    for case, table, _ in random_tables(generator, 40):
        view = table.view(0)
        if view.n_candidates < 2:
            continue
        asked += 1
        assert view.cands.shape[0] == view.n_candidates
        assert view.nodes.shape[0] == view.n_nodes
        assert view.open_nodes.shape[0] == view.n_open_nodes
        assert STALE_CHECK.choose(view) == greedy.choose(view), case
        assert STALE_CHECK.choose(table.unsealed_view(0)) == view.n_candidates, case
    assert asked >= 15


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_hands_only_rows_in_play(compiled_engine, players):
    """STALE_CHECK plays every decision of 400 matches (an invalid row would raise), and plays
    exactly as greedy does: it saw exactly the rows in play each time."""
    seats = [STALE_CHECK, "random", "greedy", "random"][:players]
    mine = compiled_engine.simulate(players, seats, 400, seed=300 + players, field=FIELD)
    greedy = compiled_engine.simulate(players, ["greedy"] + seats[1:], 400, seed=300 + players, field=FIELD)
    assert (mine["strategy_0"] == "stale_check").all()
    assert_same_play(mine, greedy)
    assert mine["placements"].sum() > 400 * 10
    everywhere = compiled_engine.simulate(players, [STALE_CHECK] * players, 400, seed=310 + players, field=FIELD)
    assert_same_play(everywhere, compiled_engine.simulate(players, ["greedy"] * players, 400,
                                                          seed=310 + players, field=FIELD))


def test_counter_check_detects_a_moved_counter():
    """Positive control of the counter test below: a counter moved by a draw is caught."""
    table = Table(2, (2, 4), [], [[(2, 2), (1, 2), (0, 3)], [(0, 0), (0, 1), (1, 1)]], scores=[0, 0])
    view = table.view(0)
    R.next_below(view.rng, 5)  # another draw moved the counter
    assert COUNTER_CHECK.choose(view) == view.n_candidates
    view = table.view(0)
    assert COUNTER_CHECK.choose(view) < view.n_candidates


# ---------------------------------------------------------------------------
# Decision streams per seat
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_seats_counter_moves_only_with_its_own_draws(compiled_engine, players):
    """random (seat 0) draws at each of its decisions; the other seats never see their
    counter move (COUNTER_CHECK would return an invalid row and the run would raise)."""
    seats = ["random"] + [COUNTER_CHECK] * (players - 1)
    mine = compiled_engine.simulate(players, seats, 400, seed=400 + players, field=FIELD)
    greedy = compiled_engine.simulate(players, ["random"] + ["greedy"] * (players - 1), 400,
                                      seed=400 + players, field=FIELD)
    assert_same_play(mine, greedy)


# ---------------------------------------------------------------------------
# The spy
# ---------------------------------------------------------------------------
_REPLAYERS = {}


def _replay(players, deal, leader, scores=None, forced_tile=-1, rng_key=0):
    """:func:`sim.study_kernels.openings.replay_round` with the spy in seat 0 and greedy elsewhere, its
    run compiled once per table size (the kernel call alone; ``test_replay_helper_is_replay_round``)."""
    run = _REPLAYERS.get(players)
    if run is None:
        # FIELD: the engine runs' set, whose round loop is compiled already
        run = _REPLAYERS[players] = CompiledRun(RunSpec.build(players, _seats(players), 1, 0, max_rounds=1,
                                                              field=FIELD), own_set=True)
    start = np.zeros(K.MAX_ENTITIES, dtype=np.int64)
    if scores is not None:
        start[: len(scores)] = scores
    return run.engine.kernels(dealt_rounds).replay_dealt_round(
        np.asarray(deal, dtype=np.int64), np.int64(players), run.strategy_ids, run.spec.params,
        np.int64(leader), np.int64(forced_tile), start, np.uint64(rng_key))


def _seats(players):
    return [SPY] + ["greedy"] * (players - 1)


@pytest.mark.parametrize("players", [2, 4])
def test_replay_helper_is_replay_round(players):
    generator = np.random.default_rng(players)
    for case in range(5):
        deal = generator.permutation(N_TILES)
        scores = [10 * case] * int(K.N_ENTITIES[players])
        for leader, forced in ((0, -1), (players - 1, int(deal[HAND_SIZE * (players - 1)]))):
            expected = replay_round(players, _seats(players), deal, leader, scores,
                                    forced_tile=forced, rng_key=case, field=FIELD)
            got = _replay(players, deal, leader, scores, forced_tile=forced, rng_key=case)
            np.testing.assert_array_equal(got, expected)


def _rehide(generator, deal, players, keep):
    """``deal`` with every tile outside the positions ``keep`` permuted, so that each other
    seat's hidden tiles and the boneyard order differ (retried until they do)."""
    deal = np.asarray(deal, dtype=np.int64)
    free = [p for p in range(N_TILES) if p not in keep]
    while True:
        other = deal.copy()
        other[free] = deal[free][generator.permutation(len(free))]
        hidden_hands_differ = all(
            set(other[HAND_SIZE * s: HAND_SIZE * (s + 1)]) != set(deal[HAND_SIZE * s: HAND_SIZE * (s + 1)])
            for s in range(1, players)
        )
        boneyard_differs = list(other[HAND_SIZE * players:]) != list(deal[HAND_SIZE * players:])
        if hidden_hands_differ and boneyard_differs:
            return other


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spy_opening_ignores_hidden_tiles(players):
    """The spy leads: same own hand, other hands and boneyard re-dealt -> same opening."""
    generator = np.random.default_rng(1000 + players)
    openings = set()
    for case in range(800):
        deal = generator.permutation(N_TILES)
        key = int(generator.integers(0, 2**63 - 1))
        scores = [int(generator.integers(0, 61)) * 5 for _ in range(K.N_ENTITIES[players])]
        first = _replay(players, deal, 0, scores, rng_key=key)
        opening = int(first[K.R_OPENING_TILE])
        assert opening in deal[:HAND_SIZE]
        openings.add(opening)
        for _ in range(2):
            other = _rehide(generator, deal, players, keep=set(range(HAND_SIZE)))
            again = _replay(players, other, 0, scores, rng_key=key)
            assert int(again[K.R_OPENING_TILE]) == opening, (case, list(deal), list(other))
    assert len(openings) == N_TILES  # every tile opens sometimes


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spy_reads_its_stream_and_public_state(players):
    """Positive control: the spy's opening does depend on what it is handed (its stream key,
    the public scores), so the test above would see a hidden word if it were handed one."""
    generator = np.random.default_rng(2000 + players)
    by_key = by_scores = 0
    for case in range(100):
        deal = generator.permutation(N_TILES)
        base = int(_replay(players, deal, 0, rng_key=case)[K.R_OPENING_TILE])
        keys = {int(_replay(players, deal, 0, rng_key=case + 1000 * k)[K.R_OPENING_TILE]) for k in range(1, 6)}
        by_key += bool(keys - {base})
        scores = [5, 0, 0][: K.N_ENTITIES[players]]
        by_scores += int(_replay(players, deal, 0, scores, rng_key=case)[K.R_OPENING_TILE]) != base
    assert by_key > 80
    assert by_scores > 40


def _spy_candidates(tile, hand):
    """(count, points per row) of the seat holding ``hand`` answering the opening ``tile``."""
    ws = K.new_workspace()
    rules.open_layout(ws, np.int64(tile))
    playable = np.int64(hand & int(K.TILES_MATCHING[ws.board[K.BOARD_OPEN_VALUES]]))
    count = rules.list_placements(ws, playable)
    return count, [int(ws.cands[r, K.CAND_POINTS]) for r in range(count)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spy_mid_round_ignores_hidden_tiles(players):
    """The last seat opens with a forced tile; the spy (seat 0) answers with a choice among 2+
    placements. Its entity stands at 305 - P, so the round ends at once (2 actions, target hit)
    exactly when it chooses a placement worth P: that outcome must not depend on the hidden
    tiles (the leader's other tiles, the other hands, the boneyard)."""
    generator = np.random.default_rng(3000 + players)
    leader = players - 1
    entity = int(K.ENTITY_OF_SEAT[players, 0])
    compared = hits = 0
    case = 0
    while compared < 1000:
        case += 1
        deal = generator.permutation(N_TILES)
        tile = int(deal[HAND_SIZE * leader])
        hand = sum(1 << int(t) for t in deal[:HAND_SIZE])
        count, points = _spy_candidates(tile, hand)
        if count < 2 or not any(points):
            continue
        key = int(generator.integers(0, 2**63 - 1))
        other = _rehide(generator, deal, players, keep=set(range(HAND_SIZE)) | {HAND_SIZE * leader})
        for value in sorted(set(p for p in points if p > 0)):
            scores = [0] * int(K.N_ENTITIES[players])
            scores[entity] = TARGET_RAW - value
            outcomes = []
            for d in (deal, other):
                stats = _replay(players, d, leader, scores, forced_tile=tile, rng_key=key)
                assert int(stats[K.R_OPENING_TILE]) == tile
                outcomes.append(int(stats[K.R_END]) == K.END_TARGET and int(stats[K.R_ACTIONS]) == 2)
            assert outcomes[0] == outcomes[1], (case, value, list(deal), list(other))
            hits += outcomes[0]
            compared += 1
    assert 100 < hits < compared - 100  # the observation does tell the spy's choices apart


# ---------------------------------------------------------------------------
# The spy in real matches: the engine's view is the one public knowledge gives
# ---------------------------------------------------------------------------
def _tile(pair) -> int:
    from core.tiles import tile_index

    return tile_index(*sorted(pair))


def _spy_decisions(rec, params):
    """Replay a record from public knowledge plus seat 0's own tiles; at each decision of the
    spy (seat 0) build its view from that alone and yield (spy's choice on it, row played)."""
    players = rec["players"]
    key = R.decision_key(np.int64(rec["seed"]), np.int64(rec["match"]), np.int64(0))
    scores = np.zeros(4, dtype=np.int64)
    entity_of_seat = K.ENTITY_OF_SEAT[players, :players].copy()
    for rnd in rec["rounds"]:
        ws = K.new_workspace()
        own = sum(1 << _tile(t) for t in rnd["hands"][0])
        hand_sizes = np.zeros(4, dtype=np.int64)
        hand_sizes[:players] = HAND_SIZE
        lacking = np.zeros(4, dtype=np.int64)
        next_draw = HAND_SIZE * players
        drew = False
        start_scores = scores.copy()
        history = []  # the public actions so far: (seat, kind, placed tile or NO_TILE, open values)
        kinds = {"play": K.ACTION_PLAY, "draw": K.ACTION_DRAW, "pass": K.ACTION_PASS}
        sides = {"line": K.SIDE_LINE, "arm": K.SIDE_ARM}
        for index, action in enumerate(rnd["actions"]):
            seat = action["seat"]
            open_values = int(ws.board[K.BOARD_OPEN_VALUES])
            seen_history = np.array(history, dtype=np.int64).reshape(len(history), K.HISTORY_FIELDS)
            if action["type"] == "play":
                opening = action["parent"] is None
                history.append((seat, K.ACTION_PLAY, _tile(action["tile"]), open_values,
                                K.NO_PARENT if opening else action["parent"],
                                K.SIDE_NONE if opening else sides[action["side"]],
                                min(action["tile"]) if opening else action["tile"][0],
                                action["points"]))
            else:
                history.append((seat, kinds[action["type"]], K.NO_TILE, open_values, K.NO_PARENT,
                                K.SIDE_NONE, 0, 0))
            if action["type"] == "draw":
                if not drew:
                    lacking[seat] = open_values
                drew = True
                next_draw += 1
                hand_sizes[seat] += 1
                if seat == 0:
                    own |= 1 << _tile(action["tile"])
                continue
            if action["type"] == "pass":
                if not drew:
                    lacking[seat] |= open_values
                drew = False
                continue
            tile = _tile(action["tile"])
            opening = action["parent"] is None
            if seat == 0:
                if opening:
                    count = rules.list_openings(ws, np.int64(own))
                elif drew:
                    count = rules.list_placements(ws, np.int64(1 << tile))
                else:
                    count = rules.list_placements(ws, np.int64(own & int(K.TILES_MATCHING[open_values])))
                if count >= 2:
                    now = start_scores.copy()
                    for event in rnd["events"]:
                        if event["kind"] == "placement" and event["action"] < index and event["accepted"]:
                            now[event["entity"]] += event["raw"]
                    board = ws.board
                    view = K.PlayerView(
                        np.int64(0), np.int64(players), np.int64(own), entity_of_seat, now,
                        hand_sizes.copy(), lacking.copy(), np.int64(N_TILES - next_draw),
                        np.int64(board[K.BOARD_PLAYED]), np.int64(board[K.BOARD_TOTAL]),
                        np.int64(board[K.BOARD_OPEN_VALUES]), np.int64(board[K.BOARD_NODES]),
                        ws.nodes[: board[K.BOARD_NODES]].copy(), ws.open_count.copy(),
                        np.int64(board[K.BOARD_OPEN_NODES]),
                        ws.open_nodes[: board[K.BOARD_OPEN_NODES]].copy(), np.int64(count),
                        ws.cands[:count].copy(), params, np.array([key, 0], dtype=np.uint64),
                        np.int64(len(seen_history)), seen_history, np.zeros(0, dtype=np.int64),
                        np.zeros(0, dtype=np.int64),
                    )
                    side = K.SIDE_LINE if action["side"] == "line" else K.SIDE_ARM
                    played = [row for row in range(count) if ws.cands[row, K.CAND_TILE] == tile
                              and (opening or (ws.cands[row, K.CAND_PARENT] == action["parent"]
                                               and ws.cands[row, K.CAND_SIDE] == side
                                               and ws.cands[row, K.CAND_JOINED] == action["tile"][0]))]
                    assert len(played) == 1
                    yield int(SPY.choose(view)), played[0]
                own &= ~(1 << tile)
            if opening:
                rules.open_layout(ws, np.int64(tile))
            else:
                side = K.SIDE_LINE if action["side"] == "line" else K.SIDE_ARM
                rules.place_tile(ws, np.int64(tile), np.int64(action["parent"]), np.int64(side),
                             np.int64(action["tile"][0]))
            hand_sizes[seat] -= 1
            drew = False
        scores[: len(rnd["scores"])] = rnd["scores"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spy_in_the_engine_sees_only_public_knowledge_and_its_hand(compiled_engine, players):
    """In real matches (every round, every decision of the spy), the spy's choice equals its
    choice on a view rebuilt from the public record and seat 0's own tiles only: the engine
    handed it no other word (its hash would have told)."""
    seats = [SPY] + ["greedy", "random", "greedy"][: players - 1]
    # the spy's own parameters only (none): the run's rows are padded to its widest strategy
    params = RunSpec.build(players, seats, 1, 0, max_rounds=1, field=FIELD).params[0, : len(SPY.parameters)]
    records = compiled_engine.record(players, seats, 60, seed=500 + players, field=FIELD)
    checked = 0
    for rec in records:
        for mine, engine_row in _spy_decisions(rec, params):
            assert mine == engine_row, (rec["match"], checked)
            checked += 1
    assert checked > 60 * 5
