"""sim.bridges.openspiel_game: OpenSpiel's own checks, serialization, observers, the golden
playthrough, resampling and ISMCTS on ``exact61_five_up``."""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from sim.bridges import openspiel_game
from sim.bridges.availability import BridgeUnavailable
from sim.bridges.match_state import (
    INFORMATION_STATE_SHAPE,
    NUM_ACTIONS,
    OBSERVATION_OFFSETS,
    OBSERVATION_SHAPE,
)
from core.tiles import DEFAULT_MAX_ROUNDS
from tests.support.paths import REPO

GOLDEN = REPO / "tests" / "golden" / "openspiel" / "exact61_five_up_2p.txt"


@pytest.fixture(scope="module", autouse=True)
def registered():
    openspiel_game.register()


def chance_step(state, rng: np.random.RandomState) -> None:
    """Apply one chance outcome, drawn by its probability."""
    outcomes, probs = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(outcomes, p=probs)))


def random_step(state, rng: np.random.RandomState) -> None:
    """Apply one random action: a chance outcome by its probability, else a legal action."""
    if state.is_chance_node():
        chance_step(state, rng)
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


def random_state(game, rng: np.random.RandomState, steps: int):
    """A state after up to ``steps`` random actions (chance by its probabilities)."""
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        random_step(state, rng)
    return state


def test_the_game_is_registered_with_its_type_and_parameters():
    assert "exact61_five_up" in pyspiel.registered_names()
    game = pyspiel.load_game("exact61_five_up(players=3)")
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert (kind.min_num_players, kind.max_num_players) == (2, 4)
    assert game.num_players() == 3
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_chance_outcomes() == 28
    assert game.get_parameters() == {"players": 3, "max_rounds": DEFAULT_MAX_ROUNDS, "one_round": False}
    assert game.information_state_tensor_shape() == list(INFORMATION_STATE_SHAPE)
    assert game.observation_tensor_shape() == list(OBSERVATION_SHAPE)
    assert openspiel_game.load_game(players=4, one_round=True).num_players() == 4


@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiel_random_simulation_checks(players):
    game = pyspiel.load_game(f"exact61_five_up(players={players},max_rounds=2)")
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)
    one_round = openspiel_game.load_game(players=players, one_round=True)
    pyspiel.random_sim_test(one_round, num_sims=4, serialize=True, verbose=False)


def test_a_full_match_passes_the_random_simulation_checks():
    game = openspiel_game.load_game(players=2)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("players", [2, 4])
def test_serialization_round_trip(players):
    game = openspiel_game.load_game(players=players, max_rounds=3)
    rng = np.random.RandomState(players)
    for steps in (0, 5, 40, 90, 400):
        state = random_state(game, rng, steps)
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game)
        assert state2.history() == state.history()
        assert str(state2) == str(state)
        assert state2.is_terminal() == state.is_terminal()
        for seat in range(players):
            assert state2.information_state_string(seat) == state.information_state_string(seat)
            assert state2.observation_string(seat) == state.observation_string(seat)
            assert state2.information_state_tensor(seat) == state.information_state_tensor(seat)


def test_the_state_methods_are_the_match_states():
    game = openspiel_game.load_game(players=4, max_rounds=2)
    state = random_state(game, np.random.RandomState(0), 60)
    match = state.match_state
    assert state.history() == match.history()
    for seat in range(4):
        assert state.information_state_string(seat) == match.information_state_string(seat)
        assert np.array_equal(np.asarray(state.information_state_tensor(seat), np.float32),
                              match.information_state_tensor(seat))
        assert np.array_equal(np.asarray(state.observation_tensor(seat), np.float32),
                              match.observation_tensor(seat))
    clone = state.clone()
    assert clone.history() == state.history() and clone.match_state is not state.match_state


def test_the_observers_give_named_pieces():
    from open_spiel.python.observation import make_observation
    game = openspiel_game.load_game(players=2, max_rounds=2)
    state = random_state(game, np.random.RandomState(4), 30)
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    info.set_from(state, 1)
    assert np.array_equal(info.tensor, state.match_state.information_state_tensor(1))
    assert info.dict["lacking"].shape == (4, 7) and info.dict["history"].shape == (143 * 72,)
    assert info.string_from(state, 1) == state.information_state_string(1)
    plain = make_observation(game)
    plain.set_from(state, 0)
    assert np.array_equal(plain.tensor, state.match_state.observation_tensor(0))
    private = make_observation(game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False,
        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    private.set_from(state, 1)
    hand = state.match_state.observation_tensor(1)
    start, shape = OBSERVATION_OFFSETS["hand"]
    assert np.array_equal(private.dict["hand"], hand[start:start + shape[0]])
    assert private.string_from(state, 1).startswith("seat 1; hand ")
    assert make_observation(game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=True,
        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER)) is None  # not provided


def public_type(perfect_recall: bool):
    return pyspiel.IIGObservationType(public_info=True, perfect_recall=perfect_recall,
                                      private_info=pyspiel.PrivateInfoType.NONE)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_public_observation_is_the_same_for_every_player_at_every_node(players):
    from open_spiel.python.observation import make_observation
    game = openspiel_game.load_game(players=players, max_rounds=2)
    public = make_observation(game, public_type(False))
    history = make_observation(game, public_type(True))
    assert "hand" not in public.dict and "observer" not in public.dict
    assert "dealt" not in history.dict and history.dict["history"].shape == (143 * 72,)
    rng = np.random.RandomState(players)
    nodes = 0
    for _ in range(2):
        state = game.new_initial_state()
        while True:
            for observer in (public, history):
                texts = {observer.string_from(state, p) for p in range(players)}
                tensors = set()
                for p in range(players):
                    observer.set_from(state, p)
                    tensors.add(observer.tensor.tobytes())
                assert len(texts) == 1 and len(tensors) == 1
            match = state.match_state
            assert public.string_from(state, 0) == match.public_observation_string()
            public.set_from(state, 0)
            assert np.array_equal(public.tensor, match.public_observation_tensor())
            nodes += 1
            if state.is_terminal():
                break
            random_step(state, rng)
    assert nodes > 60


def test_resampling_keeps_the_players_information_state():
    game = openspiel_game.load_game(players=3, max_rounds=2)
    rng = np.random.RandomState(7)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    tried = 0
    while tried < 10:
        state = random_state(game, rng, int(rng.randint(20, 60)))
        if state.is_chance_node() or state.is_terminal():
            continue
        tried += 1
        player = state.current_player()
        world = state.resample_from_infostate(player, sampler)
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.information_state_tensor(player) == state.information_state_tensor(player)
        assert world.legal_actions() == state.legal_actions()
        others = [s for s in range(3) if s != player]
        changed += any(int(world.match_state.ws.hands[s]) != int(state.match_state.ws.hands[s])
                       for s in others)
    assert changed >= 5


def test_ismcts_plays_a_round():
    from open_spiel.python.algorithms import ismcts, mcts
    game = openspiel_game.load_game(players=2, one_round=True)
    rng = np.random.RandomState(5)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                           max_simulations=20, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            chance_step(state, rng)
        else:
            state.apply_action(bot.step(state))
    assert sum(state.returns()) == pytest.approx(0.0)


def test_the_golden_playthrough_replays_identically():
    """Regenerate with: python -m sim.bridges.openspiel_game --playthrough <this file>."""
    original, replayed = openspiel_game.replay_playthrough(GOLDEN)
    assert replayed == original


def test_the_playthrough_command_writes_the_golden_file(tmp_path):
    target = tmp_path / "playthrough.txt"
    assert openspiel_game.main(["--playthrough", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == GOLDEN.read_text(encoding="utf-8")


def test_without_open_spiel_the_import_fails_in_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` fail
    monkeypatch.delitem(sys.modules, "sim.bridges.openspiel_game")
    with pytest.raises(BridgeUnavailable) as caught:
        importlib.import_module("sim.bridges.openspiel_game")
    assert str(caught.value) == ('the OpenSpiel bridge needs the open-spiel package: '
                                 'pip install ".[openspiel]"')


def test_the_module_runs_as_a_script_with_help():
    run = subprocess.run([sys.executable, "-m", "sim.bridges.openspiel_game", "--help"],
                         capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    assert run.returncode == 0 and "--playthrough" in run.stdout


def test_a_search_root_from_a_view_plays_in_the_one_round_game():
    """What the ISMCTS strategy does: a sealed view -> MatchState.from_view -> game.state_of."""
    from open_spiel.python.algorithms import ismcts, mcts
    game = openspiel_game.load_game(players=3, max_rounds=2)
    rng = np.random.RandomState(12)
    state = random_state(game, rng, 45)
    while state.is_chance_node():
        state = random_state(game, rng, 45)
    view = state.match_state.view(np.zeros((3, 1)))
    root_game = openspiel_game.load_game(players=3, one_round=True)
    from sim.bridges.match_state import MatchState
    root = root_game.state_of(MatchState.from_view(view, np.random.default_rng(0)))
    assert root.current_player() == state.current_player()
    assert root.legal_actions() == state.legal_actions()
    bot = ismcts.ISMCTSBot(root_game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 20,
                           random_state=rng)
    assert bot.step(root) in state.legal_actions()
    with pytest.raises(ValueError):
        openspiel_game.load_game(players=2).state_of(root.match_state)


def test_importing_the_module_registers_the_game_once():
    """A fresh interpreter: the import alone makes ``pyspiel.load_game`` find the game (as
    OpenSpiel's Python games register on import), and registering again changes nothing."""
    script = ("import pyspiel\n"
              "from sim.bridges import openspiel_game\n"
              "game = pyspiel.load_game('exact61_five_up(players=3)')\n"
              "openspiel_game.register()\n"
              "import importlib; importlib.reload(openspiel_game)\n"
              "print(game.num_players(), pyspiel.registered_names().count('exact61_five_up'))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "1"]
