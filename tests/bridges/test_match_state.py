"""sim.bridges.match_state: hand-computed rounds, random matches the reference accepts, tensors.

The scripted rounds fix every chance outcome (lot, deal tile by tile, draws) and every
placement; their expected scores are worked out by hand in the comments. The random matches
are replayed by the rules reference (:func:`sim.verify.verify_record`), which recomputes every
figure independently of the engine primitives the state machine drives.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim.bridges.availability import BridgeUnavailable, require
from sim.bridges.match_record import round_object
from sim.bridges.match_state import (
    CHANCE,
    INFORMATION_STATE_OFFSETS,
    INFORMATION_STATE_SHAPE,
    NUM_ACTIONS,
    OBSERVATION_SHAPE,
    TERMINAL,
    MatchState,
    Phase,
    decode_action,
    encode_action,
)
from core import state as K
from core.tiles import N_TILES, TARGET_RAW, tile_index
from sim.verify import verify_record

T = tile_index
"""``T(a, b)``: the tile index of ``a-b``."""


def deal(state: MatchState, leader: int, hands: list[list[tuple[int, int]]]) -> None:
    """Apply the lot (``leader``) and the deal of ``hands`` (seat order, tile by tile)."""
    assert state.current_player() == CHANCE and state.phase == Phase.LOT
    state.apply_action(leader)
    for hand in hands:
        for a, b in hand:
            assert state.current_player() == CHANCE and state.phase == Phase.DEAL
            state.apply_action(T(a, b))


def play(state: MatchState, tile: tuple[int, int], parent: int = K.NO_PARENT,
         side: int = K.SIDE_LINE) -> None:
    """Place ``tile`` at (parent, side), asserting it is one of the legal actions."""
    index = T(*tile)
    matches = [a for a in state.legal_actions()
               if decode_action(a)[0] == index and decode_action(a)[1] == parent
               and (parent == K.NO_PARENT or decode_action(a)[2] == side)]
    assert len(matches) == 1, (tile, parent, side, state.legal_actions())
    state.apply_action(matches[0])


def random_step(state: MatchState, rng: random.Random) -> None:
    """Apply a uniform chance outcome or a uniformly random legal action."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    else:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])


def random_game(state: MatchState, rng: random.Random) -> MatchState:
    """Play ``state`` to its end with uniform chance and uniformly random legal actions."""
    while not state.is_terminal():
        random_step(state, rng)
    return state


def event_rows(state: MatchState) -> list[dict]:
    """The last finished round's events as the record writes them (from the round's own
    Round object: a state started from other scores than zero has no whole record)."""
    return round_object(state.players, state.finished_rounds[-1])["events"]


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------
def test_action_codes_are_the_contract_formula():
    assert NUM_ACTIONS == 28 + 28 * 2 * 28 * 2 == 3164
    assert encode_action(T(2, 5), K.NO_PARENT, K.SIDE_NONE, 2) == T(2, 5)
    # 2-5 joining its high half 5 on node 3's arm: 28 + ((3*2 + 1)*28 + tile)*2 + 1
    code = encode_action(T(2, 5), 3, K.SIDE_ARM, 5)
    assert code == 28 + ((3 * 2 + 1) * 28 + T(2, 5)) * 2 + 1
    assert decode_action(code) == (T(2, 5), 3, K.SIDE_ARM, 5)
    assert decode_action(encode_action(T(4, 4), 0, K.SIDE_LINE, 4)) == (T(4, 4), 0, K.SIDE_LINE, 4)
    assert decode_action(NUM_ACTIONS - 1)[1] == K.MAX_NODES - 1
    with pytest.raises(ValueError):
        decode_action(NUM_ACTIONS)


def test_require_names_the_extra_in_one_line():
    with pytest.raises(BridgeUnavailable) as caught:
        require("no_such_module_for_the_bridges", "rl")
    message = str(caught.value)
    assert message == 'the PettingZoo bridge needs the pettingzoo package: pip install ".[rl]"'
    assert "\n" not in message


# ---------------------------------------------------------------------------
# Hand-computed rounds
# ---------------------------------------------------------------------------
def test_forced_draws_are_chance_nodes_and_a_drawn_tile_scores():
    state = MatchState(2, one_round=True)
    deal(state, 0, [[(6, 6), (5, 5), (4, 4), (3, 3), (2, 2)],
                    [(0, 1), (0, 2), (1, 2), (0, 0), (1, 1)]])
    assert state.current_player() == 0
    assert state.legal_actions() == sorted(T(*t) for t in [(6, 6), (5, 5), (4, 4), (3, 3), (2, 2)])
    play(state, (6, 6))  # a lone opening double counts 12 once: no points
    # Seat 1 holds no 6: it must draw, one chance node per tile, uniform over the 18 left.
    assert state.current_player() == CHANCE and state.phase == Phase.DRAW
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 18 and all(p == pytest.approx(1 / 18) for _, p in outcomes)
    # Its lack becomes public with its first draw, not before (the others cannot yet tell it
    # must draw), and the seat to move alone sees its phase as a draw.
    assert int(state.ws.lacking[1]) == 0
    assert "; draw; to move 1" in state.observation_string(1)
    assert "; turn; to move 1" in state.observation_string(0)
    state.apply_action(T(0, 3))  # unplayable: draw again
    assert int(state.ws.lacking[1]) == 1 << 6
    assert state.current_player() == CHANCE and len(state.chance_outcomes()) == 17
    state.apply_action(T(3, 6))  # playable: placed at once, a decision even with one placement
    assert state.current_player() == 1
    assert state.legal_actions() == [encode_action(T(3, 6), 0, K.SIDE_LINE, 6)]
    state.apply_action(state.legal_actions()[0])
    # 6-6 keeps one open line side (12) + the 3 of 3-6 = 15 -> 15 raw to seat 1
    assert state.scores() == [0, 15]
    assert int(state.ws.hand_sizes[1]) == 6
    kinds = state.ws.history[: int(state.ws.board[K.BOARD_HISTORY]), K.H_KIND].tolist()
    assert kinds == [K.ACTION_PLAY, K.ACTION_DRAW, K.ACTION_DRAW, K.ACTION_PLAY]


BLOCKED_HISTORY = [3, 2, 0, 21, 8, 6, 26, 11, 3, 15, 18, 19, 13, 9, 20, 25, 24, 10, 4, 22, 17, 10,
                   44, 170, 67, 300, 519, 371, 628, 708, 27, 1, 12, 23, 859, 14, 5, 16, 7, 1080]
"""A four-player round (one lot, 20 deals, 8 draws, 11 placements) ending blocked; see below."""


def test_an_automatic_pass_and_a_blocked_settlement():
    state = MatchState(4, one_round=True)
    for action in BLOCKED_HISTORY:
        state.apply_action(action)
    assert state.is_terminal() and state.current_player() == TERMINAL
    record = state.record(["scripted"] * 4)
    assert verify_record(record) == []
    (rnd,) = record["rounds"]
    actions = rnd["actions"]
    # Seat 1 draws the last four tiles and passes; seat 2 then cannot play with the boneyard
    # empty: its pass is automatic (no action of it was applied), then seat 3 plays.
    assert actions[-3:] == [
        {"seat": 1, "type": "pass"},
        {"seat": 2, "type": "pass"},
        {"seat": 3, "type": "play", "tile": [4, 4], "parent": 9, "side": "line", "points": 0}]
    assert len(state.history()) == 1 + 20 + 8 + 11  # passes are not applied actions
    # Blocked: hands left 0: 0-0 0-1 0-2 0-6 1-6 6-6 = 28 pips, 1: 0-5 1-1 1-5 2-3 2-5 3-3 5-6 = 42,
    # 2: 1-3 2-2 5-5 = 18, 3: 2-6 = 8. Ascending: seat 3 (8), 2 (18), 0 (28), 1 (42).
    # seat 3 (entity 1): (18 - 8) + (28 - 8) = 30 -> 30; seat 2 (entity 0): 42 - 18 = 24 -> 25;
    # seat 0: 42 - 28 = 14 -> 15; seat 1: no heavier hand, no event.
    assert rnd["events"][-3:] == [
        {"entity": 1, "kind": "blocked", "seat": 3, "raw": 30, "accepted": True},
        {"entity": 0, "kind": "blocked", "seat": 2, "raw": 25, "accepted": True},
        {"entity": 0, "kind": "blocked", "seat": 0, "raw": 15, "accepted": True}]
    # Placements scored 5 for each entity before: 5 + 25 + 15 = 45 and 5 + 30 = 35.
    assert state.scores() == [45, 35]
    assert rnd["end"] == "blocked" and rnd["winner"] == 1  # seat 3 holds the lightest hand
    mean = (45 + 35) / 2
    assert state.returns() == pytest.approx([(45 - mean) / 305, (35 - mean) / 305] * 2)


CHAIN = [0, 1, 2, 3, 4, 5, 6, 0, 2, 4, 6, 1, 3, 5, 0, 3, 6, 2]
"""A 17-tile line v0-v1, v1-v2, ...: placement k (by seat k % 4) extends the open end v_k."""


def test_a_four_player_domino_credits_opponents_and_debits_the_partner():
    tiles = [(CHAIN[k], CHAIN[k + 1]) for k in range(17)]
    hands = [[tiles[k] for k in range(17) if k % 4 == seat] for seat in range(4)]
    hands[1].append((6, 6))  # left in seat 1's hand: 12 pips
    hands[2].append((4, 4))  # left in the partner's hand: 8 pips
    hands[3].append((2, 5))  # left in seat 3's hand: 7 pips
    state = MatchState(4, one_round=True)
    deal(state, 0, hands)
    # The total after placement k >= 1 is v0 + v_{k+1} = v_{k+1}: only 5s score (k = 4, 12).
    play(state, tiles[0])
    for k in range(1, 17):
        assert state.current_player() == k % 4
        play(state, (CHAIN[k], CHAIN[k + 1]), parent=k - 1)
        if k == 4:
            assert state.scores() == [5, 0]
    assert state.is_terminal()
    # Domino by seat 0, final placement total 2 -> 0 points; opponents 12 + 7 = 19 -> 20;
    # partner 8 -> 10 (rounded separately); event raw 0 + 20 - 10 = 10.
    assert event_rows(state)[-1] == {"entity": 0, "kind": "domino", "seat": 0, "placement": 0,
                                     "credit": 20, "debit": 10, "raw": 10, "accepted": True}
    assert state.scores() == [5 + 5 + 10, 0]
    record = state.record(["scripted"] * 4)
    assert record["rounds"][0]["end"] == "domino" and record["rounds"][0]["winner"] == 0
    assert verify_record(record) == []


OPENING_5_5 = [[(5, 5), (0, 1), (0, 2), (0, 3), (0, 4)], [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4)]]


def test_an_overshooting_award_is_discarded_whole():
    state = MatchState(2, one_round=True, scores=[300, 0])
    deal(state, 0, OPENING_5_5)
    play(state, (5, 5))  # 10 raw would make 310 > 305
    assert state.scores() == [300, 0]
    assert state.ws.round_stats[K.R_EVENTS_DISCARDED] == 1
    assert state.ws.round_stats[K.R_RAW_DISCARDED] == 10
    assert not state.is_terminal()
    random_game(state, random.Random(0))
    assert event_rows(state)[0] == {"entity": 0, "kind": "placement", "action": 0, "raw": 10,
                                    "accepted": False}


def test_an_exact_hit_ends_the_match_with_a_win():
    state = MatchState(2, scores=[295, 0])
    deal(state, 0, OPENING_5_5)
    play(state, (5, 5))  # 295 + 10 = 305
    assert state.is_terminal() and state.winner == 0
    assert state.scores() == [TARGET_RAW, 0]
    assert state.returns() == [1.0, -1.0]
    assert round_object(2, state.finished_rounds[0])["end"] == "target"


def test_illegal_actions_are_refused():
    state = MatchState(2)
    with pytest.raises(ValueError):
        state.apply_action(2)  # the lot picks seat 0 or 1
    deal(state, 1, OPENING_5_5)
    with pytest.raises(ValueError):
        state.apply_action(T(5, 5))  # seat 1 leads and does not hold 5-5
    with pytest.raises(ValueError):
        state.apply_action(NUM_ACTIONS + 7)


# ---------------------------------------------------------------------------
# Random matches checked by the reference
# ---------------------------------------------------------------------------
def check_returns(state: MatchState) -> None:
    returns = state.returns()
    assert sum(returns) == pytest.approx(0.0, abs=1e-12)
    entities = state.entities
    n = state.n_entities
    if state.winner != K.NO_ENTITY:
        expected = [1.0 if e == state.winner else -1.0 / (n - 1) for e in entities]
    else:
        raw = state.scores()
        expected = [(raw[e] - sum(raw) / n) / 305 for e in entities]
    assert returns == pytest.approx(expected)


def run_random_games(players: int, games: int, seed: int) -> dict:
    rng = random.Random(seed)
    seen = {"finished": 0, "blocked": 0, "domino": 0}
    for game in range(games):
        kind = game % 10
        if kind == 0:
            state = MatchState(players)  # a full match (to 305 or 100 rounds)
        elif kind == 1:
            state = MatchState(players, one_round=True)
        else:
            state = MatchState(players, max_rounds=1 + kind % 3)
        random_game(state, rng)
        record = state.record(["random"] * players, seed=seed, match=game)
        assert verify_record(record) == [], (players, game)
        check_returns(state)
        seen["finished"] += state.winner != K.NO_ENTITY
        ends = [r["end"] for r in record["rounds"]]
        seen["blocked"] += "blocked" in ends
        seen["domino"] += "domino" in ends
    return seen


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_give_records_the_reference_accepts(players):
    seen = run_random_games(players, 500, seed=players)
    assert seen["finished"] > 0 and seen["blocked"] > 0 and seen["domino"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_random_games_give_records_the_reference_accepts(players):
    run_random_games(players, 5000, seed=100 + players)


# ---------------------------------------------------------------------------
# Views, tensors, resampling
# ---------------------------------------------------------------------------
def decision_states(players: int, count: int, seed: int) -> list[MatchState]:
    """Decision states met along random matches (every 7th decision)."""
    rng = random.Random(seed)
    found = []
    decisions = 0
    while len(found) < count:
        state = MatchState(players, max_rounds=3)
        while not state.is_terminal() and len(found) < count:
            if not state.is_chance_node():
                decisions += 1
                if decisions % 7 == 0:
                    found.append(state.clone())
            random_step(state, rng)
    return found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_resampling_keeps_what_the_seat_knows_and_redraws_the_rest(players):
    rng = np.random.default_rng(players)
    changed = 0
    states = decision_states(players, 25, seed=players)
    for state in states:
        seat = state.current_player()
        string = state.information_state_string(seat)
        tensor = state.information_state_tensor(seat)
        observation = state.observation_tensor(seat)
        assert tensor.shape == INFORMATION_STATE_SHAPE and tensor.dtype == np.float32
        assert observation.shape == OBSERVATION_SHAPE and observation.dtype == np.float32
        world = state.resample_from_infostate(seat, rng)
        assert world.information_state_string(seat) == string
        assert np.array_equal(world.information_state_tensor(seat), tensor)
        assert np.array_equal(world.observation_tensor(seat), observation)
        assert world.observation_string(seat) == state.observation_string(seat)
        assert world.legal_actions() == state.legal_actions()
        ws = world.ws
        assert int(ws.hands[seat]) == int(state.ws.hands[seat])
        assert ws.hand_sizes.tolist() == state.ws.hand_sizes.tolist()
        # the tiles are a partition: hands, layout, the pool still to draw
        held = [int(ws.hands[s]) for s in range(players)]
        layout = int(ws.board[K.BOARD_PLAYED])
        parts = held + [layout, world._pool]
        assert sum(p.bit_count() for p in parts) == N_TILES
        assert np.bitwise_or.reduce(parts) == (1 << N_TILES) - 1
        for s in range(players):
            assert held[s].bit_count() == int(ws.hand_sizes[s])
        changed += any(held[s] != int(state.ws.hands[s]) for s in range(players) if s != seat)
        # the world plays on like any state (and the true state is untouched)
        random_game(world, random.Random(1))
        assert state.information_state_string(seat) == string
    assert changed >= len(states) // 2


def test_the_information_state_hides_the_other_hands():
    """Two deals differing only in seat 1's hand look the same to seat 0 (before it plays)."""
    a = MatchState(2)
    b = MatchState(2)
    seat0 = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]
    deal(a, 0, [seat0, [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]])
    deal(b, 0, [seat0, [(2, 2), (2, 3), (2, 4), (2, 5), (2, 6)]])
    assert a.information_state_string(0) == b.information_state_string(0)
    assert np.array_equal(a.information_state_tensor(0), b.information_state_tensor(0))
    assert np.array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.information_state_string(1) != b.information_state_string(1)
    start, shape = INFORMATION_STATE_OFFSETS["hand"]
    hand = a.information_state_tensor(0)[start:start + shape[0]]
    assert np.flatnonzero(hand).tolist() == sorted(T(*t) for t in seat0)


def test_the_view_is_the_engine_view_of_the_decision():
    for state in decision_states(3, 10, seed=9):
        view = state.view(np.zeros((3, 1)))
        assert view.seat == state.current_player()
        assert view.hand == int(state.ws.hands[view.seat])
        assert view.boneyard_size == N_TILES - int(state.ws.board[K.BOARD_PLAYED]).bit_count() \
            - sum(int(state.ws.hand_sizes[s]) for s in range(3))
        codes = sorted(encode_action(*row[: K.CAND_JOINED + 1]) for row in view.cands.tolist())
        assert codes == state.legal_actions()
        assert view.n_history == int(state.ws.board[K.BOARD_HISTORY])
    with pytest.raises(ValueError):
        MatchState(2).view(np.zeros((2, 1)))


def test_a_clone_is_independent():
    state = decision_states(2, 1, seed=3)[0]
    before = state.history()
    copy = state.clone()
    random_game(copy, random.Random(0))
    assert state.history() == before
    assert not state.is_terminal() and copy.is_terminal()
    assert copy.history()[: len(before)] == before


# ---------------------------------------------------------------------------
# The engine's own matches, replayed action by action
# ---------------------------------------------------------------------------
def replay_record(record: dict) -> MatchState:
    """Feed an engine record's lots, deals, draws and placements to a MatchState (passes are
    automatic: they are checked, not applied)."""
    players = record["players"]
    state = MatchState(players, max_rounds=record["max_rounds"])
    previous_end = "blocked"
    for rnd in record["rounds"]:
        if previous_end == "blocked":
            assert state.phase == Phase.LOT
            state.apply_action(rnd["leader"])
        for hand in rnd["hands"]:
            for a, b in hand:
                state.apply_action(T(a, b))
        for action in rnd["actions"]:
            if action["type"] == "draw":
                assert state.phase == Phase.DRAW and state.current_player() == CHANCE
                state.apply_action(T(*action["tile"]))
            elif action["type"] == "play":
                assert state.current_player() == action["seat"]
                parent = K.NO_PARENT if action["parent"] is None else action["parent"]
                side = {None: K.SIDE_NONE, "line": K.SIDE_LINE, "arm": K.SIDE_ARM}[action["side"]]
                play(state, tuple(action["tile"]), parent=parent, side=side)
        previous_end = rnd["end"]
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_matches_replay_to_the_same_record(compiled_engine, players):
    names = "random,greedy,random" if players == 3 else "random,greedy"
    records = compiled_engine.record(players, names, 20, seed=players)
    for record in records:
        state = replay_record(record)
        assert state.is_terminal()
        mine = state.record(record["strategies"], seed=record["seed"], match=record["match"])
        assert mine["scores"] == record["scores"] and mine["winner"] == record["winner"]
        for ours, theirs in zip(mine["rounds"], record["rounds"], strict=True):
            draws = sum(a["type"] == "draw" for a in theirs["actions"])
            # never-drawn tiles: the engine keeps its shuffled order, the bridge tile order
            assert ours["boneyard"][:draws] == theirs["boneyard"][:draws]
            assert sorted(map(sorted, ours["boneyard"])) == sorted(map(sorted, theirs["boneyard"]))
            assert {k: v for k, v in ours.items() if k != "boneyard"} == \
                {k: v for k, v in theirs.items() if k != "boneyard"}
        assert verify_record(mine) == []


def test_resampling_at_deal_and_draw_nodes_keeps_the_seat_view():
    rng = random.Random(11)
    generator = np.random.default_rng(11)
    checked = {Phase.DEAL: 0, Phase.DRAW: 0, Phase.LOT: 0}
    while min(checked.values()) < 5:
        state = MatchState(3, max_rounds=2)
        while not state.is_terminal():
            if state.phase in checked and rng.random() < 0.2:
                seat = rng.randrange(3)
                world = state.resample_from_infostate(seat, generator)
                assert world.information_state_string(seat) == state.information_state_string(seat)
                assert np.array_equal(world.information_state_tensor(seat),
                                      state.information_state_tensor(seat))
                # the pool to deal or draw from is redrawn too, never its size
                assert len(world.chance_outcomes()) == len(state.chance_outcomes())
                if state.phase == Phase.LOT:
                    assert world.chance_outcomes() == state.chance_outcomes()
                checked[state.phase] += 1
            random_step(state, rng)


@pytest.mark.parametrize("players", [2, 4])
def test_a_state_from_a_view_shows_the_seat_the_same_decision(players):
    generator = np.random.default_rng(players)
    params = np.zeros((players, 1))
    for state in decision_states(players, 12, seed=20 + players):
        view = state.view(params)
        root = MatchState.from_view(view, generator)
        assert root.one_round and root.current_player() == view.seat
        assert root.legal_actions() == state.legal_actions()
        again = root.view(params)
        for field in ("hand", "scores", "hand_sizes", "lacking", "boneyard_size", "played",
                      "total", "open_values", "nodes", "open_count", "open_nodes", "cands",
                      "history"):
            assert np.array_equal(getattr(again, field), getattr(view, field)), field
        # the tiles are a partition and the deal holds every tile once
        ws = root.ws
        held = [int(ws.hands[s]) for s in range(players)]
        parts = [*held, int(ws.board[K.BOARD_PLAYED]), root._pool]
        assert sum(p.bit_count() for p in parts) == N_TILES
        assert sorted(ws.deal.tolist()) == list(range(N_TILES))
        seat = view.seat
        world = root.resample_from_infostate(seat, generator)
        assert world.information_state_string(seat) == root.information_state_string(seat)
        random_game(root, random.Random(2))
        assert root.is_terminal() and sum(root.returns()) == pytest.approx(0.0)
