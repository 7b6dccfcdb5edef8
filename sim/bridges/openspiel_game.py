"""Exact 61 Five Up as the OpenSpiel game ``exact61_five_up`` (``pip install ".[openspiel]"``).

A Python game for ``pyspiel``: :class:`Exact61Game` and :class:`Exact61State` wrap
:class:`sim.bridges.match_state.MatchState` (nodes, action codes, returns, strings and tensors
are documented there). Sequential, explicit stochastic chance (the lot, the deal tile by tile,
every forced draw), imperfect information, zero-sum, terminal rewards, 2 to 4 players.

Parameters: ``players`` (2), ``max_rounds`` (:data:`core.tiles.DEFAULT_MAX_ROUNDS`, the
engine's default), ``one_round`` (False: the game ends when the first round ends). Importing this
module registers the game with pyspiel, as every OpenSpiel Python game does, so
``pyspiel.load_game("exact61_five_up(players=3)")`` works after the import; :func:`register`
may be called again (it does nothing the second time).

Observers (``make_py_observer``, so ``open_spiel.python.observation.make_observation``): the
default one gives ``observation_tensor`` / ``observation_string`` and the perfect-recall one
``information_state_tensor`` / ``information_state_string``; the public type
(``IIGObservationType(perfect_recall=False, public_info=True,
private_info=PrivateInfoType.NONE)``) gives the public observation, the same for every seat
(scores, the layout, hand sizes, the boneyard's size, publicly known lacks, whose turn it is;
named pieces ``PUBLIC_OBSERVATION_PIECES``), and with ``perfect_recall=True`` the round's
public history too (``PUBLIC_INFORMATION_STATE_PIECES``); the private type
(``public_info=False``, ``perfect_recall=False``) the rest of a seat's observation (its hand,
whether it must draw). Other types are not provided (``None``). Another seat's turn shows as ``turn``, never as ``play``
or ``draw``: which comes next after its forced draw (whether the tile drawn can be placed) is
that seat's secret until it acts. ``State.resample_from_infostate(player_id, sampler)`` is what
OpenSpiel's ISMCTS calls to draw a world the player cannot tell apart from the true one;
``Exact61Game.state_of(match_state)`` wraps any :class:`MatchState` (e.g. a search root from
:meth:`MatchState.from_view`) as a state of the game.

The golden playthrough ``tests/golden/openspiel/exact61_five_up_2p.txt`` is regenerated with::

    python -m sim.bridges.openspiel_game --playthrough tests/golden/openspiel/exact61_five_up_2p.txt

Importing this module without ``open-spiel`` raises the one-line
:class:`sim.bridges.availability.BridgeUnavailable`.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from sim.bridges.availability import require
from sim.bridges.match_codes import MAX_CHANCE_OUTCOMES, MAX_MOVES_PER_ROUND, NUM_ACTIONS
from sim.bridges.match_observer import (
    INFORMATION_STATE_PIECES,
    INFORMATION_STATE_SHAPE,
    OBSERVATION_PIECES,
    OBSERVATION_SHAPE,
    PRIVATE_OBSERVATION_PIECES,
    PUBLIC_INFORMATION_STATE_PIECES,
    PUBLIC_OBSERVATION_PIECES,
)
from sim.bridges.match_state import MatchState
from core.state import MAX_PLAYERS
from sim.files import atomic_write
from core.tiles import DEFAULT_MAX_ROUNDS

pyspiel = require("pyspiel", "openspiel")

SHORT_NAME = "exact61_five_up"
"""The registered game name."""

MIN_PLAYERS = 2
"""Smallest table."""

DEFAULT_PARAMETERS = {"players": MIN_PLAYERS, "max_rounds": DEFAULT_MAX_ROUNDS, "one_round": False}
"""The game's parameters and their defaults."""

MAX_UTILITY = 1.0
"""A seat of the winning entity; an unfinished match's utilities stay within [-1, 1] (see
:mod:`sim.bridges.match_state`)."""

MIN_UTILITY = -1.0
"""A two-entity loser (-1/(entities - 1) with more entities)."""

SEED_WORDS = 2
"""Draws of OpenSpiel's probability sampler (each in [0, 1)) that seed one resampling."""

SEED_WORD_RANGE = 1 << 32
"""Each draw becomes a 32-bit word of the seed."""

PLAYTHROUGH_GAME = f"{SHORT_NAME}(players=2,max_rounds=2)"
"""The game string of the golden playthrough."""

PLAYTHROUGH_SEED = 61
"""The seed of the golden playthrough's random actions."""

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Exact 61 Five Up",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMETERS,
)
"""OpenSpiel's description of the game."""


def _match_parameters(params) -> dict:
    merged = dict(DEFAULT_PARAMETERS)
    merged.update(params or {})
    players = int(merged["players"])
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be 2, 3 or 4, not {players}")
    max_rounds = int(merged["max_rounds"])
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be at least 1, not {max_rounds}")
    return {"players": players, "max_rounds": max_rounds, "one_round": bool(merged["one_round"])}


class Exact61Game(pyspiel.Game):
    """The OpenSpiel game: a match (or one round) of Exact 61 Five Up."""

    def __init__(self, params=None):
        settings = _match_parameters(params)
        self.settings = settings
        rounds = 1 if settings["one_round"] else settings["max_rounds"]
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=settings["players"],
            min_utility=MIN_UTILITY,
            max_utility=MAX_UTILITY,
            utility_sum=0.0,
            max_game_length=rounds * MAX_MOVES_PER_ROUND,
        )
        super().__init__(GAME_TYPE, info, settings)

    def new_initial_state(self) -> Exact61State:
        """The start of a match: the lot for the first leader."""
        return Exact61State(self)

    def state_of(self, match_state: MatchState) -> Exact61State:
        """An OpenSpiel state of this game wrapping ``match_state`` (e.g. a search root from
        :meth:`MatchState.from_view`; its OpenSpiel ``history()`` starts empty there)."""
        if match_state.players != self.num_players():
            raise ValueError(f"a {match_state.players}-player state for a "
                             f"{self.num_players()}-player game")
        return Exact61State(self, match_state)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of ``iig_obs_type`` (None: the default observation), or None for the
        types this game does not provide (private information only, or every player's).

        ``private_info=SINGLE_PLAYER`` with public information: the seat's observation
        (``perfect_recall`` False) or information state (True); ``private_info=NONE``: the
        public observation (False) or the public information state (True), the same for
        every seat; ``public_info=False``: the seat's private observation (its hand, whether
        it must draw; no perfect-recall variant).
        """
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is None:
            return Exact61Observer(perfect_recall=False)
        private = iig_obs_type.private_info
        if not iig_obs_type.public_info:
            if private == pyspiel.PrivateInfoType.SINGLE_PLAYER and not iig_obs_type.perfect_recall:
                return Exact61Observer(perfect_recall=False, private=True)
            return None
        if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            return Exact61Observer(perfect_recall=iig_obs_type.perfect_recall)
        if private == pyspiel.PrivateInfoType.NONE:
            return Exact61Observer(perfect_recall=iig_obs_type.perfect_recall, public=True)
        return None


class Exact61State(pyspiel.State):
    """An OpenSpiel state wrapping a :class:`MatchState` (attribute ``match_state``)."""

    def __init__(self, game, match_state: MatchState | None = None):
        super().__init__(game)
        if match_state is None:
            settings = game.settings if hasattr(game, "settings") else _match_parameters(
                game.get_parameters())
            match_state = MatchState(settings["players"], max_rounds=settings["max_rounds"],
                                     one_round=settings["one_round"])
        self.match_state = match_state

    def current_player(self) -> int:
        """A seat, ``PlayerId.CHANCE`` (-1) or ``PlayerId.TERMINAL`` (-4)."""
        return self.match_state.current_player()

    def _legal_actions(self, player):
        return self.match_state.legal_actions()

    def chance_outcomes(self):
        """(outcome, probability) pairs of the chance node."""
        return self.match_state.chance_outcomes()

    def _apply_action(self, action):
        self.match_state.apply_action(action)

    def _action_to_string(self, player, action):
        return self.match_state.action_to_string(player, action)

    def is_terminal(self) -> bool:
        """True once the match (or the round) is over."""
        return self.match_state.is_terminal()

    def returns(self):
        """Per seat utility (see :mod:`sim.bridges.match_state`)."""
        return self.match_state.returns()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one, for search (ISMCTS).

        ``probability_sampler`` (e.g. ``pyspiel.UniformProbabilitySampler``) is called for
        the seed of the redraw; the hidden tiles are redrawn by
        :meth:`MatchState.resample_from_infostate`. The copy keeps this state's action
        history (its past chance outcomes are not rewritten).
        """
        words = [int(probability_sampler() * SEED_WORD_RANGE) for _ in range(SEED_WORDS)]
        rng = np.random.default_rng(words)
        other = self.clone()
        other.match_state = self.match_state.resample_from_infostate(player_id, rng)
        return other

    def __str__(self) -> str:
        return str(self.match_state)


class Exact61Observer:
    """OpenSpiel's PyObserver: ``tensor`` (float32) and ``dict`` (named views), for the
    observation or (``perfect_recall``) the information state of a seat, or (``public``) their
    public parts, which are the same whichever seat is passed, or (``private``) the rest of the
    seat's observation."""

    def __init__(self, perfect_recall: bool, public: bool = False, private: bool = False):
        self.perfect_recall = perfect_recall
        self.public = public
        self.private = private
        if private:
            pieces = PRIVATE_OBSERVATION_PIECES
        elif public:
            pieces = PUBLIC_INFORMATION_STATE_PIECES if perfect_recall else PUBLIC_OBSERVATION_PIECES
        else:
            pieces = INFORMATION_STATE_PIECES if perfect_recall else OBSERVATION_PIECES
        self.tensor = np.zeros((sum(int(np.prod(shape)) for _, shape in pieces),),
                               dtype=np.float32)
        self.dict = {}
        start = 0
        for name, piece_shape in pieces:
            size = int(np.prod(piece_shape))
            self.dict[name] = self.tensor[start:start + size].reshape(piece_shape)
            start += size

    def set_from(self, state, player: int) -> None:
        """Fill ``tensor`` with ``state`` as ``player`` (or, public, everyone) sees it."""
        match = state.match_state
        if self.private:
            self.tensor[:] = match.private_observation_tensor(player)
        elif self.public:
            self.tensor[:] = (match.public_information_state_tensor() if self.perfect_recall
                              else match.public_observation_tensor())
        elif self.perfect_recall:
            self.tensor[:] = match.information_state_tensor(player)
        else:
            self.tensor[:] = match.observation_tensor(player)

    def string_from(self, state, player: int) -> str:
        """``state`` as ``player`` (or, public, everyone) sees it, as text."""
        match = state.match_state
        if self.private:
            return match.private_observation_string(player)
        if self.public:
            return (match.public_information_state_string() if self.perfect_recall
                    else match.public_observation_string())
        if self.perfect_recall:
            return match.information_state_string(player)
        return match.observation_string(player)


def register() -> None:
    """Register ``exact61_five_up`` with pyspiel (once; later calls do nothing)."""
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, Exact61Game)


def load_game(**params):
    """``pyspiel.load_game("exact61_five_up", params)`` after :func:`register`."""
    register()
    return pyspiel.load_game(SHORT_NAME, params)


def _playthrough_module():
    """OpenSpiel's playthrough module, with the game registered and absl's flags usable."""
    register()
    from open_spiel.python.algorithms import generate_playthrough
    flags = require("absl.flags", "openspiel")  # installed with open-spiel
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()  # the playthrough reads absl flags' defaults
    return generate_playthrough


def playthrough_text(game_string: str = PLAYTHROUGH_GAME, seed: int = PLAYTHROUGH_SEED) -> str:
    """OpenSpiel's playthrough of ``game_string``: random actions drawn with ``seed``."""
    return _playthrough_module().playthrough(game_string, action_sequence=None, seed=seed)


def replay_playthrough(path) -> tuple[str, str]:
    """``(original, replayed)``: the playthrough file at ``path`` and OpenSpiel's replay of
    its game string and actions (equal when the game still behaves as recorded)."""
    return _playthrough_module().replay(str(path))


def write_playthrough(path) -> None:
    """Write the golden playthrough (:data:`PLAYTHROUGH_GAME`, :data:`PLAYTHROUGH_SEED`)."""
    text = playthrough_text()
    atomic_write(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def main(argv=None) -> int:
    """``python -m sim.bridges.openspiel_game --playthrough PATH``."""
    parser = argparse.ArgumentParser(prog="python -m sim.bridges.openspiel_game",
                                     description="Tools of the OpenSpiel bridge.")
    parser.add_argument("--playthrough", metavar="PATH", required=True,
                        help=f"write the golden playthrough of {PLAYTHROUGH_GAME} "
                             f"(seed {PLAYTHROUGH_SEED}) to PATH")
    args = parser.parse_args(argv)
    write_playthrough(args.playthrough)
    return 0


# Registered on import, as OpenSpiel's own Python games are (idempotent: a second import or
# register() call does nothing).
register()


if __name__ == "__main__":
    sys.exit(main())
