"""The vector environment: records that verify, observations equal to MatchState's at the same
decisions, seeding whatever the batch, rewards, autoreset, spaces and bad input."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from sim.bridges.match_codes import NUM_ACTIONS, OPENING_ACTIONS, decode_action, encode_action
from sim.bridges.observation_arrays import action_code, observe_decisions
from sim.bridges.record_replay import replay_decisions
from sim.bridges.vector_env import FiveUpVectorEnv
from core import state as K
from core.tiles import TARGET_RAW
from sim.verify import verify_record
from tests.engine.test_python_seats import PY_GREEDY
from tests.support.paths import REPO

TABLES = ((2, "greedy"), (3, ["greedy", PY_GREEDY]), (4, ["greedy", PY_GREEDY, "greedy"]))
"""Player counts and opponents: compiled and Python opponents, a partner at 4 players."""


def random_codes(obs, rng) -> np.ndarray:
    """A uniformly random legal code per environment (the compact legal list)."""
    n = obs["n_legal"]
    pick = (rng.random(n.shape[0]) * n).astype(np.int64)
    return obs["legal_actions"][np.arange(n.shape[0]), pick].astype(np.int64)


def most_points(obs) -> np.ndarray:
    """Deterministic: the legal code scoring most, the first such in the engine's order."""
    scored = np.where(obs["legal_actions"] >= 0, obs["legal_points"].astype(np.int64), -1)
    return obs["legal_actions"][np.arange(scored.shape[0]), scored.argmax(axis=1)].astype(np.int64)


def play(env, steps, policy, seed):
    """Step ``env`` from ``reset(seed)``; return per match index the (observation, legal codes,
    {legal code: points}, action) of each of its agent decisions."""
    obs, info = env.reset(seed=seed)
    seen: dict[int, list] = {}
    for _ in range(steps):
        actions = policy(obs)
        for slot, match in enumerate(info["match"].tolist()):
            n = int(obs["n_legal"][slot])
            points = dict(zip(obs["legal_actions"][slot, :n].tolist(),
                              obs["legal_points"][slot, :n].tolist()))
            seen.setdefault(match, []).append(
                (obs["observation"][slot], np.flatnonzero(obs["action_mask"][slot]), points,
                 int(actions[slot])))
        obs, _, _, _, info = env.step(actions)
    return seen


def test_the_compiled_action_code_is_the_bridges_code():
    assert OPENING_ACTIONS == 28
    checked = 0
    for code in range(NUM_ACTIONS):
        placement = decode_action(code)
        expected = encode_action(*placement)  # a double's "high half" codes name its low-half code
        assert action_code(*placement) == expected
        checked += expected == code
    assert checked > NUM_ACTIONS * 3 // 4


@pytest.mark.parametrize("players,opponents", TABLES)
def test_records_verify_and_every_observation_is_matchstates(players, opponents):
    """Random agents: every finished match's record verifies, and replayed through MatchState
    each agent decision shows the same observation tensor, the same legal codes with the same
    points and the same action (decisions with one legal placement are played at once, as for every strategy)."""
    envs = 16
    env = FiveUpVectorEnv(envs, players=players, opponents=opponents, keep_answers=True)
    rng = np.random.default_rng(players)
    seen = play(env, 160, lambda obs: random_codes(obs, rng), seed=40 + players)
    records = env.records()
    assert len(records) >= 20
    assert [r["match"] for r in records if verify_record(r)] == []
    compared = 0
    for record in records[:12]:
        match = record["match"]
        seat = int(env.seats[match % envs])
        assert record["strategies"][seat] == "agent"
        mine = iter(seen[match])
        for decision in replay_decisions(record):  # one state, replayed on: read it at once
            if decision.seat != seat or len(decision.state.legal_actions()) == 1:
                continue
            observation, legal, points, action = next(mine)
            np.testing.assert_array_equal(decision.state.observation_tensor(seat), observation)
            assert legal.tolist() == sorted(decision.state.legal_actions())
            cands = decision.state.view(np.zeros((players, 1))).cands
            assert points == {encode_action(*row[:K.CAND_POINTS]): row[K.CAND_POINTS]
                              for row in cands.tolist()}
            assert decision.action == action
            compared += 1
        assert next(mine, None) is None
    assert compared > 100


def random_records(per_table: int) -> int:
    """Play random agents to ``per_table`` finished matches at 2, 3 and 4 players; assert every
    record verifies; return how many were checked."""
    total = 0
    for players, opponents in TABLES:
        env = FiveUpVectorEnv(64, players=players, opponents=opponents, keep_answers=True)
        rng = np.random.default_rng(10 + players)
        obs, _ = env.reset(seed=7 + per_table)
        while len(env.answered) < per_table:
            obs, *_ = env.step(random_codes(obs, rng))
        records = env.records()
        assert [r["match"] for r in records if verify_record(r)] == []
        total += len(records)
    return total


def test_hundreds_of_random_matches_verify():
    assert random_records(110) >= 330


@pytest.mark.slow
def test_thousands_of_random_matches_verify():
    assert random_records(1000) >= 3000


def test_a_match_is_the_same_whatever_the_number_of_environments():
    """A deterministic policy: match ``m`` of a seed plays the same whether 8 or 24 matches are
    in flight (the records of the matches both finished are equal)."""
    by_size = []
    for envs in (8, 24):
        env = FiveUpVectorEnv(envs, players=2, seat=1, keep_answers=True)
        obs, _ = env.reset(seed=99)
        for _ in range(120):
            obs, *_ = env.step(most_points(obs))
        by_size.append({r["match"]: r for r in env.records()})
    common = sorted(set(by_size[0]) & set(by_size[1]))
    assert len(common) >= 8
    for match in common:
        assert by_size[0][match] == by_size[1][match]


def test_seeded_resets_repeat_and_unseeded_resets_go_on():
    env = FiveUpVectorEnv(4, players=2)
    first, info = env.reset(seed=3)
    again, info_again = env.reset(seed=3)
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])
    assert info["match"].tolist() == [0, 1, 2, 3]
    _, info_next = env.reset()
    assert info_next["match"].tolist() == [4, 5, 6, 7]


def test_match_rewards_are_the_returns_and_autoreset_starts_the_next_match():
    envs = 32
    env = FiveUpVectorEnv(envs, players=3, opponents="greedy", keep_answers=True)
    rng = np.random.default_rng(5)
    obs, info = env.reset(seed=21)
    ended = 0
    for _ in range(150):
        before = info["match"]
        obs, rewards, terminated, truncated, info = env.step(random_codes(obs, rng))
        done = terminated | truncated
        assert not (terminated & truncated).any()
        np.testing.assert_array_equal(info["match"], np.where(done, before + envs, before))
        assert (rewards[~done] == 0).all()
        assert set(np.round(rewards[terminated], 9).tolist()) <= {1.0, -0.5}
        ended += int(done.sum())
        assert obs["n_legal"].min() >= 2
    records = {r["match"]: r for r in env.records()}
    assert len(records) == ended
    wins = sum(r["winner"] == env.agent_entity[r["match"] % envs] for r in records.values())
    assert 0 < wins < ended


def test_points_rewards_sum_to_each_matchs_final_margin():
    envs = 16
    env = FiveUpVectorEnv(envs, players=2, reward="points", keep_answers=True)
    rng = np.random.default_rng(8)
    obs, info = env.reset(seed=4)
    running = np.zeros(envs)
    sums = {}
    for _ in range(120):
        match = info["match"].copy()
        obs, rewards, terminated, truncated, info = env.step(random_codes(obs, rng))
        running += rewards
        for slot in np.flatnonzero(terminated | truncated).tolist():
            sums[int(match[slot])] = running[slot]
            running[slot] = 0.0
    records = env.records()
    assert len(records) >= 10
    for record in records:
        scores = np.array(record["scores"], dtype=np.float64)
        entity = env.agent_entity[record["match"] % envs]
        expected = (scores[entity] - scores.mean()) / TARGET_RAW
        assert sums[record["match"]] == pytest.approx(expected, abs=1e-9)


def test_observations_lie_in_the_spaces():
    env = FiveUpVectorEnv(8, players=4)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert env.observation_space.contains(obs)
        legal = obs["legal_actions"]
        for slot in range(8):
            n = int(obs["n_legal"][slot])
            assert (legal[slot, n:] == -1).all()
            assert sorted(legal[slot, :n].tolist()) == np.flatnonzero(obs["action_mask"][slot]).tolist()
        obs, *_ = env.step(random_codes(obs, rng))
    assert env.action_space.shape == (8,)


def observe_again(env) -> dict:
    """The environment's arrays written again from its workspaces as they are now."""
    observe_decisions(env.stack, env.all_slots, env.seats, np.int64(env.players),
                      np.int64(env.n_entities), np.int64(env.max_rounds), env.starts, env.obs,
                      env.mask, env.points, env.legal, env.n_legal)
    return {"observation": env.obs.copy(), "action_mask": env.mask.copy()}


def test_the_observation_does_not_change_with_hidden_tiles():
    """Swap a tile of another seat's hand with one of the boneyard (hidden from the agent):
    every array the agent is shown stays the same. Swap one of the agent's own tiles instead:
    its observation changes (so the check can fail)."""
    env = FiveUpVectorEnv(4, players=2, seat=0)
    obs, _ = env.reset(seed=12)
    rng = np.random.default_rng(3)
    for _ in range(3):
        obs, *_ = env.step(random_codes(obs, rng))
    before = observe_again(env)
    for slot in range(4):
        board = env.stack.board[slot]
        boneyard = env.stack.deal[slot, board[K.BOARD_NEXT_DRAW]:]
        if boneyard.size == 0:
            continue
        for seat in (1, 0):
            hand = int(env.stack.hands[slot, seat])
            held = next(t for t in range(28) if hand >> t & 1)
            spare = int(boneyard[0])
            env.stack.hands[slot, seat] = hand ^ (1 << held) ^ (1 << spare)
            boneyard[0] = held
            after = observe_again(env)
            same = np.array_equal(after["observation"][slot], before["observation"][slot])
            assert same == (seat == 1), (slot, seat)
            env.stack.hands[slot, seat] = hand
            boneyard[0] = spare
            observe_again(env)


@pytest.mark.parametrize("arguments,message", [
    ({"num_envs": 0}, "num_envs"),
    ({"players": 5}, "players"),
    ({"reward": "win"}, "reward must be one of match, points"),
    ({"seat": 2}, "seat"),
    ({"opponents": ["greedy", "greedy"]}, "opponents must be one spec or 1 specs"),
    ({"opponents": "no_such_strategy"}, "no_such_strategy"),
])
def test_bad_arguments_are_one_line(arguments, message):
    with pytest.raises(ValueError, match=message) as error:
        FiveUpVectorEnv(**{"num_envs": 2, **arguments})
    assert "\n" not in str(error.value)


def test_bad_actions_are_one_line():
    env = FiveUpVectorEnv(3, players=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(3, dtype=np.int64))
    obs, _ = env.reset(seed=2)
    with pytest.raises(ValueError, match="3 integer action codes"):
        env.step(np.zeros(2, dtype=np.int64))
    actions = obs["legal_actions"][:, 0].astype(np.int64)
    illegal = next(code for code in range(NUM_ACTIONS) if obs["action_mask"][1, code] == 0)
    actions[1] = illegal
    with pytest.raises(ValueError, match=f"action {illegal} is not legal in environment 1"):
        env.step(actions)
    with pytest.raises(ValueError, match="keep_answers"):
        env.records()


@pytest.mark.slow
def test_the_reinforce_example_learns_to_beat_random():
    """examples/vector_reinforce.py: trained for 300 steps (256 matches each), its policy beats
    ``random`` (paired over both seats of 1,000 deals of a fresh seed) and the untrained policy
    on the same deals, both with the 95% interval clear of the null."""
    spec = importlib.util.spec_from_file_location("vector_reinforce", REPO / "examples" / "vector_reinforce.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    weights = example.train(300, seed=1)
    assert weights[example.FEATURES.index("points")] > 0
    measure = example.paired_measure(weights, 1000, seed=2)
    assert measure["trained"][1] > 0.5
    assert measure["gain"][1] > 0
