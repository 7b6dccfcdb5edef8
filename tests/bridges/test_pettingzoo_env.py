"""The PettingZoo environment: PettingZoo's API test, seeding, masks, rewards, records."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test

from sim.bridges import pettingzoo_env
from sim.bridges.match_state import NUM_ACTIONS, OBSERVATION_SHAPE
from sim.bridges.pettingzoo_agents import (
    EPISODE_COLUMNS,
    candidate_action,
    greedy_policy,
    play_against,
    random_masked_policy,
)
from sim.bridges.match_record import round_object
from core.state import CAND_POINTS
from sim.records import FORMAT
from core.tiles import TARGET_RAW, entities_for
from sim.verify import Invalid, check_record, verify_record

API_CYCLES = 300
"""Agent cycles of each API test: enough for a random match to end (its dead steps checked)."""

VERIFIED_MATCHES = 45
VERIFIED_ROUNDS = 60
"""Random complete matches and one-round games whose records the reference replays (about
a hundred episodes in all, 2, 3 and 4 players in turn; a few seconds)."""

PETTINGZOO_NAME_WARNINGS = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:unknown reset option 'options' ignored:UserWarning",
]
"""api_test warns of a Dict observation unless the environment is one of PettingZoo's own
classic games (it exempts them by name); the Dict with an action mask is their convention.
It also resets with ``options={"options": 1}``, which the environment ignores with a warning."""


def random_episode(game, seed: int, check=None, options=None) -> list:
    """Play one episode of the raw or wrapped ``game`` with seeded uniform masked actions.

    Returns the list of (agent, action) steps; ``check(game, agent, observation)`` is
    called at every decision; ``options`` go to ``reset``.
    """
    rng = np.random.default_rng(seed)
    game.reset(seed=seed, options=options)
    steps = []
    for agent in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        if check is not None:
            check(game, agent, observation)
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        steps.append((agent, action))
        game.step(action)
    return steps


def seeded_spaces(game, seed: int):
    """``game`` with its action spaces seeded: api_test samples its actions from them."""
    for number, agent in enumerate(game.possible_agents):
        game.action_space(agent).seed(seed + number)
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.filterwarnings(*PETTINGZOO_NAME_WARNINGS)
def test_pettingzoo_api_test_passes(players, capsys):
    api_test(seeded_spaces(pettingzoo_env.env(players=players), players), num_cycles=API_CYCLES,
             verbose_progress=False)
    assert "Passed API test" in capsys.readouterr().out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_seed_test_passes(players):
    # Two environments reset with one seed must give equal observations, masks, rewards and
    # ends at every step of a whole match (seed_test fails with an AssertionError otherwise).
    seed_test(lambda: pettingzoo_env.env(players=players))


@pytest.mark.filterwarnings(*PETTINGZOO_NAME_WARNINGS)
def test_api_test_passes_for_one_round_games(capsys):
    api_test(seeded_spaces(pettingzoo_env.env(players=2, one_round=True), 0), num_cycles=API_CYCLES)
    assert "Passed API test" in capsys.readouterr().out


def test_metadata_agents_and_spaces():
    game = pettingzoo_env.env(players=3)
    game.reset(seed=1)
    assert game.metadata["name"] == "exact61_five_up_v0"
    assert game.metadata["render_modes"] == ["ansi", "human"] and game.metadata["is_parallelizable"] is False
    assert game.possible_agents == ["player_0", "player_1", "player_2"]
    space = game.observation_space("player_1")
    assert space["observation"].shape == OBSERVATION_SHAPE
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (NUM_ACTIONS,) and space["action_mask"].dtype == np.int8
    assert game.action_space("player_2").n == NUM_ACTIONS


def test_the_same_seed_gives_the_same_episode():
    first = random_episode(pettingzoo_env.raw_env(players=3), seed=7)
    again = random_episode(pettingzoo_env.raw_env(players=3), seed=7)
    other = random_episode(pettingzoo_env.raw_env(players=3), seed=8)
    assert first == again
    assert first != other


def test_the_same_seed_gives_the_same_deal_and_observations():
    left, right = pettingzoo_env.raw_env(players=2), pettingzoo_env.raw_env(players=2)
    left.reset(seed=11)
    right.reset(seed=11)
    assert left.state_machine.history() == right.state_machine.history()
    for agent in left.possible_agents:
        np.testing.assert_array_equal(left.observe(agent)["observation"],
                                      right.observe(agent)["observation"])


def test_reset_without_a_seed_continues_the_seeded_generator():
    left, right = pettingzoo_env.raw_env(players=2), pettingzoo_env.raw_env(players=2)
    for game in (left, right):
        game.reset(seed=21)
        first = game.state_machine.history()
        game.reset()
    assert left.state_machine.history() == right.state_machine.history()
    assert left.state_machine.history() != first  # a new deal, not the seeded one again


def test_the_action_mask_is_the_legal_actions_and_zero_off_turn():
    def check(game, agent, observation):
        state = game.unwrapped.state_machine
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
        assert observation["observation"].shape == OBSERVATION_SHAPE
        for other in game.possible_agents:
            if other != agent:
                assert not game.unwrapped.observe(other)["action_mask"].any()
        assert game.observation_space(agent).contains(observation)

    for players in (2, 4):
        assert random_episode(pettingzoo_env.env(players=players, one_round=True), 3, check)


def test_rewards_are_the_match_returns_and_terminations_end_a_won_match():
    game = pettingzoo_env.raw_env(players=4)
    random_episode(game, seed=5)
    state = game.state_machine
    assert state.is_terminal() and TARGET_RAW in state.scores()
    assert game.agents == []  # every agent was stepped out after the end
    frame = play_against(pettingzoo_env.env(players=4),
                         {agent: random_masked_policy(np.random.default_rng(0))
                          for agent in pettingzoo_env.raw_env(players=4).possible_agents},
                         episodes=2, seed=5)
    first = frame[frame.episode == 0].set_index("agent")["reward"]
    assert first.tolist() == pytest.approx(state.returns())
    # partners share their entity's utility: +1 for the winners, -1 for the others
    entities = entities_for(4)
    by_entity = {entities[seat]: first[f"player_{seat}"] for seat in range(4)}
    assert all(first[f"player_{seat}"] == by_entity[entities[seat]] for seat in range(4))
    assert sorted(by_entity.values()) == [-1.0, 1.0]
    assert not frame.truncated.any()


def test_the_round_limit_truncates_an_unfinished_match():
    game = pettingzoo_env.raw_env(players=2, max_rounds=1)
    truncated_any = False
    for seed in range(5):
        game.reset(seed=seed)
        while not game.state_machine.is_terminal():
            agent = game.agent_selection
            game.step(int(np.flatnonzero(game.observe(agent)["action_mask"])[0]))
        unfinished = TARGET_RAW not in game.state_machine.scores()
        assert all(game.truncations[a] == unfinished for a in game.agents)
        assert all(game.terminations[a] == (not unfinished) for a in game.agents)
        rewards = [game.rewards[a] for a in game.agents]
        assert rewards == pytest.approx(game.state_machine.returns())
        assert sum(rewards) == pytest.approx(0.0)
        truncated_any = truncated_any or unfinished
    assert truncated_any


def test_records_of_random_episodes_verify_with_the_reference():
    """Complete matches at 2, 3 and 4 players: the reference replays every action and figure
    (and every observation on the way lies inside the declared space)."""
    low, high = pettingzoo_env.observation_bounds(pettingzoo_env.DEFAULT_MAX_ROUNDS)

    def inside_the_space(game, agent, observation):  # Box.contains, the cheap way
        assert np.all(low <= observation["observation"]) and np.all(observation["observation"] <= high)

    problems = []
    for episode in range(VERIFIED_MATCHES):
        players = 2 + episode % 3
        game = pettingzoo_env.raw_env(players=players)
        random_episode(game, seed=episode, check=inside_the_space)
        assert game.state_machine.is_terminal()
        record = game.state_machine.record(["random"] * players, seed=episode, match=episode)
        problems += [f"episode {episode}: {p}" for p in verify_record(record)]
    assert problems == []


def test_records_of_one_round_games_verify_with_the_reference():
    problems = []
    for episode in range(VERIFIED_ROUNDS):
        players = 2 + episode % 3
        game = pettingzoo_env.raw_env(players=players, one_round=True)
        random_episode(game, seed=1_000 + episode)
        assert game.state_machine.rounds_played == 1 and game.state_machine.is_terminal()
        record = game.state_machine.record(["random"] * players, seed=episode, match=episode)
        problems += [f"episode {episode}: {p}" for p in verify_record(record)]
    assert problems == []


def test_greedy_policy_plays_the_largest_accepted_award():
    game = pettingzoo_env.env(players=2)
    policy = greedy_policy()
    game.reset(seed=2)
    checked = 0
    for agent in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        view = game.unwrapped.decision_view(agent)
        action = policy(observation, view)
        score = view.scores[view.entity_of_seat[view.seat]]
        awards = {candidate_action(view, row): (p if score + p <= TARGET_RAW else 0)
                  for row, p in enumerate(view.cands[:view.n_candidates, CAND_POINTS])}
        assert set(awards) == set(np.flatnonzero(observation["action_mask"]).tolist())
        assert awards[action] == max(awards.values())
        game.step(action)
        checked += 1
    assert checked > 10


def test_decision_view_only_for_the_agent_to_move():
    game = pettingzoo_env.raw_env(players=2)
    game.reset(seed=0)
    other = next(a for a in game.possible_agents if a != game.agent_selection)
    with pytest.raises(ValueError, match="no decision"):
        game.decision_view(other)
    assert game.decision_view(game.agent_selection).seat == pettingzoo_env.seat_of(game.agent_selection)


def test_play_against_frame_and_seeding():
    game = pettingzoo_env.env(players=2, one_round=True)
    policies = {"player_0": greedy_policy(), "player_1": random_masked_policy(np.random.default_rng(1))}
    frame = play_against(game, policies, episodes=4, seed=9)
    assert tuple(frame.columns) == EPISODE_COLUMNS and len(frame) == 8
    assert frame.groupby("episode").reward.sum().abs().max() == pytest.approx(0.0)
    policies["player_1"] = random_masked_policy(np.random.default_rng(1))
    again = play_against(game, policies, episodes=4, seed=9)
    assert frame.equals(again)
    with pytest.raises(ValueError, match="no policy"):
        play_against(game, {"player_0": greedy_policy()}, episodes=1, seed=0)


def test_an_illegal_action_ends_the_wrapped_game_with_a_penalty():
    game = pettingzoo_env.env(players=2)
    game.reset(seed=4)
    agent = game.agent_selection
    illegal = int(np.flatnonzero(game.observe(agent)["action_mask"] == 0)[0])
    game.step(illegal)  # PettingZoo logs "Illegal move made"
    assert all(game.terminations.values())
    assert game.rewards[agent] == pettingzoo_env.ILLEGAL_MOVE_REWARD
    assert not game.observe(agent)["action_mask"].any()  # nothing left to play
    with pytest.raises(ValueError):
        raw = pettingzoo_env.raw_env(players=2)
        raw.reset(seed=4)
        raw.step(illegal)


def test_render_ansi_shows_the_mover_and_scores():
    game = pettingzoo_env.env(players=2, render_mode="ansi")
    game.reset(seed=3)
    text = game.render()
    assert isinstance(text, str) and f"{game.agent_selection} to move" in text
    quiet = pettingzoo_env.raw_env(players=2)
    quiet.reset(seed=3)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None
    end = pettingzoo_env.raw_env(players=2, one_round=True, render_mode="ansi")
    random_episode(end, seed=3)
    assert "game over" in end.render()
    with pytest.raises(ValueError, match="render_mode"):
        pettingzoo_env.raw_env(render_mode="rgb_array")


def test_render_human_prints_the_ansi_text(capsys):
    shown = pettingzoo_env.env(players=3, render_mode="human")
    shown.reset(seed=5)
    assert shown.render() is None
    text = pettingzoo_env.env(players=3, render_mode="ansi")
    text.reset(seed=5)
    assert capsys.readouterr().out == text.render() + "\n"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_render_test_passes(players, capsys):
    render_test(lambda render_mode=None: pettingzoo_env.env(players=players, render_mode=render_mode))


def test_a_missing_pettingzoo_is_one_line(monkeypatch):
    from sim.bridges.availability import BridgeUnavailable

    monkeypatch.setitem(sys.modules, "pettingzoo", None)  # makes `import pettingzoo` fail
    monkeypatch.delitem(sys.modules, "sim.bridges.pettingzoo_env")
    with pytest.raises(BridgeUnavailable) as caught:
        importlib.import_module("sim.bridges.pettingzoo_env")
    assert ".[rl]" in str(caught.value) and "\n" not in str(caught.value)


def test_observation_bounds_allow_counts_and_negative_scores():
    low, high = pettingzoo_env.observation_bounds(max_rounds=10)
    scores, _ = pettingzoo_env.OBSERVATION_OFFSETS["scores"]
    assert low[scores] < 0 and high[scores] == 1.0  # scores have no floor; 305 raw is the top
    start, _ = pettingzoo_env.OBSERVATION_OFFSETS["hand_sizes"]
    assert high[start] >= pettingzoo_env.N_TILES
    flags, _ = pettingzoo_env.OBSERVATION_OFFSETS["hand"]
    assert (low[flags], high[flags]) == (0.0, 1.0)
    assert np.all(low <= high)
    # a longer limit allows a lower score
    assert pettingzoo_env.observation_bounds(max_rounds=20)[0][scores] < low[scores]


# ---------------------------------------------------------------------------
# reset(options={"scores": ..., "leader": ...})
# ---------------------------------------------------------------------------

NEAR_TARGET = {2: [300, 290], 3: [295, 300, 280], 4: [300, 290]}
"""Start scores one or a few scores from 305 (per entity: two partnerships at four players)."""


def scores_seen(observation) -> list[float]:
    """The raw scores an observation shows (its ``scores`` piece, raw / 305)."""
    start, _ = pettingzoo_env.OBSERVATION_OFFSETS["scores"]
    return (observation["observation"][start:] * TARGET_RAW).tolist()


def record_from(state, start_scores) -> dict:
    """The exact61-record/1 shape of a finished match, for a check from ``start_scores``
    (``state.record`` refuses a match that did not start at zero)."""
    return {"format": FORMAT, "players": state.players, "entities": list(state.entities),
            "strategies": ["random"] * state.players, "seed": 0, "match": 0,
            "rounds": [round_object(state.players, snapshot)
                       for snapshot in state.finished_rounds],
            "winner": None if TARGET_RAW not in state.scores() else state.winner,
            "scores": state.scores(), "max_rounds": state.max_rounds}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_reset_options_start_from_the_scores_and_the_leader(players):
    game = pettingzoo_env.env(players=players)
    n_entities = max(entities_for(players)) + 1
    scores = [100 + 35 * entity for entity in range(n_entities)]
    for leader in range(players):
        game.reset(seed=leader, options={"scores": scores, "leader": leader})
        state = game.unwrapped.state_machine
        assert state.scores() == scores and state.start_scores == tuple(scores)
        assert state.leader == leader and state.history()[0] == leader  # the lot's outcome
        assert game.agent_selection == pettingzoo_env.agent_name(leader)  # the leader opens
        for agent in game.possible_agents:
            assert scores_seen(game.observe(agent))[:n_entities] == pytest.approx(scores)
    game.reset(seed=0)  # the options held for their reset only
    assert game.unwrapped.state_machine.scores() == [0] * n_entities


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_game_from_near_the_target_ends_at_305_under_the_rules(players):
    start = NEAR_TARGET[players]

    def inside_the_space(game, agent, observation):
        assert game.observation_space(agent).contains(observation)

    game = pettingzoo_env.env(players=players)
    random_episode(game, seed=players, check=inside_the_space, options={"scores": start})
    state = game.unwrapped.state_machine
    assert state.is_terminal() and state.scores()[state.winner] == TARGET_RAW
    assert not game.unwrapped.match_unfinished()  # ended by the target, not the round limit
    # The reference replays every action, event (an event passing 305 discarded) and score
    # from the start scores, and the same rounds from 0-0 do not check.
    check_record(record_from(state, start), start_scores=start)
    with pytest.raises(Invalid):
        check_record(record_from(state, start))
    with pytest.raises(ValueError, match="exact61-record/1 starts every match at zero"):
        state.record(["random"] * players)


def test_a_zero_start_with_a_leader_records_and_verifies():
    for players in (2, 3, 4):
        leader = players - 1
        game = pettingzoo_env.raw_env(players=players, one_round=True)
        zero = [0] * (max(entities_for(players)) + 1)
        random_episode(game, seed=50 + players, options={"scores": zero, "leader": leader})
        record = game.state_machine.record(["random"] * players)
        assert record["rounds"][0]["leader"] == leader
        assert verify_record(record) == []


@pytest.mark.parametrize(("options", "message"), [
    ([100, 0], "must be a dict"),
    ({"scores": [100, 0, 0]}, "2 raw scores"),
    ({"scores": 100}, "2 raw scores"),
    ({"scores": [-5, 0]}, "holds -5"),
    ({"scores": [305, 0]}, "holds 305"),
    ({"scores": [0, 400]}, "holds 400"),
    ({"scores": [12, 0]}, "holds 12"),
    ({"scores": [10.0, 0]}, "integers"),
    ({"scores": [True, 0]}, "integers"),
    ({"leader": 2}, "seat 0..1"),
    ({"leader": -1}, "seat 0..1"),
    ({"leader": "0"}, "seat 0..1"),
])
def test_bad_reset_options_raise_one_line(options, message):
    game = pettingzoo_env.env(players=2)
    game.reset(seed=1)
    before = game.unwrapped.state_machine
    with pytest.raises(ValueError, match=message) as caught:
        game.reset(seed=1, options=options)
    assert "\n" not in str(caught.value)
    assert game.unwrapped.state_machine is before  # refused before anything changed


def test_an_unknown_reset_option_is_ignored_with_a_warning():
    game = pettingzoo_env.env(players=2)
    with pytest.warns(UserWarning, match="unknown reset option 'score' ignored") as caught:
        game.reset(seed=1, options={"score": [100, 0], "leader": 1})
    assert len(caught) == 1 and "\n" not in str(caught[0].message)
    state = game.unwrapped.state_machine
    assert state.scores() == [0, 0] and state.leader == 1  # the known key still holds


def test_four_players_take_one_score_per_partnership():
    game = pettingzoo_env.raw_env(players=4)
    with pytest.raises(ValueError, match="2 raw scores \\(one per partnership\\)"):
        game.reset(options={"scores": [0, 0, 0, 0]})
    game.reset(seed=2, options={"scores": np.array([150, 5])})
    assert game.state_machine.scores() == [150, 5]
