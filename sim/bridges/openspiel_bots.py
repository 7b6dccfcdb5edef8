"""OpenSpiel's bots as our strategies, and our strategies as OpenSpiel bots.

Needs ``pip install ".[openspiel]"``; importing this module without it raises
:class:`sim.bridges.availability.BridgeUnavailable` (one line).

``ismcts`` (spec ``openspiel:ismcts``, e.g. ``openspiel:ismcts[sims=1000]``)
    OpenSpiel's information-set MCTS bot
    (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) as a Python strategy
    of ours, so it plays in tournaments, experiments and ``five-up record``
    like any other. At each decision the sealed view becomes a
    :class:`~sim.bridges.match_state.MatchState` of the current round
    (:meth:`~sim.bridges.match_state.MatchState.from_view`: the public layout,
    history, scores and the seat's own hand; the hidden tiles dealt once
    consistently with everything public, and redrawn by the bot at every
    simulation through ``resample_from_infostate``), in the game
    ``exact61_five_up(players=N, one_round=True)``: the search looks to the end
    of the round and values it by the game's utility for an unfinished match,
    each entity's raw score minus the entities' mean, over 305. Its leaves are
    valued by OpenSpiel's ``RandomRolloutEvaluator`` (``rollouts`` random
    playouts to the end of the round), children chosen by UCT with constant
    ``uct_c``, the final choice the most visited. The bot's random state is
    seeded from the seat's decision stream, which it advances by one draw per
    decision: the same seed gives the same match.
``StrategyBot(strategy, player, seed, match)``
    Any of our strategies (a spec or a :class:`strategies.Strategy`) as a
    ``pyspiel.Bot`` on the game ``exact61_five_up``: at its decisions it builds
    the seat's sealed view from the state (the engine's own view), calls the
    strategy with the seat's decision stream of ``(seed, match)`` and returns
    the action of the chosen candidate. Fed the deals and draws of engine
    match ``match`` of ``seed``, it makes that match's choices exactly
    (tested). It works with OpenSpiel's evaluation code
    (``open_spiel.python.algorithms.evaluate_bots.evaluate_bots``).
"""

from __future__ import annotations

import numpy as np

import strategies
from sim.bridges.availability import require
from sim.bridges.match_state import MatchState, encode_action
from sim.core import rng as R
from sim.core import state as K
from strategies.catalogue import resolve

pyspiel = require("pyspiel", "openspiel")

from open_spiel.python.algorithms import ismcts as os_ismcts  # noqa: E402  (after the check)
from open_spiel.python.algorithms import mcts as os_mcts  # noqa: E402

from sim.bridges.openspiel_game import load_game  # noqa: E402

DEFAULT_SIMULATIONS = 1000
"""ISMCTS simulations per decision (``sims``)."""
DEFAULT_UCT_C = 0.3
"""UCT exploration constant. Smaller than OpenSpiel's usual 2 (for returns in [-1, 1]): the
one-round utility is a raw differential over 305, mostly within +-0.2, and with 2 the search
spreads its visits almost evenly (sims=100 against greedy, 24 matches, seed 3: 16 wins with
uct_c=2, 20 with 0.3, 19 with 0.05)."""
DEFAULT_ROLLOUTS = 1
"""Random rollouts per leaf evaluation."""
SEED_WORDS = 2**31 - 1
"""Bound of the bot's seed (``numpy.random.RandomState`` takes 32-bit seeds)."""


def candidate_actions(view) -> list[int]:
    """The game action of every row of ``view.cands`` (same order)."""
    cands = view.cands
    return [encode_action(int(c[K.CAND_TILE]), int(c[K.CAND_PARENT]), int(c[K.CAND_SIDE]),
                          int(c[K.CAND_JOINED])) for c in cands[: view.n_candidates]]


def _bot_seed(view) -> int:
    # One draw from the seat's own decision stream: a deterministic seed per decision, and
    # the engine continues the stream from where this leaves it.
    return int(R.next_below(view.rng, np.int64(SEED_WORDS)))


@strategies.strategy(
    name="openspiel.ismcts",
    description=(
        "OpenSpiel's information-set MCTS bot (ISMCTSBot) on the game exact61_five_up, "
        "searching to the end of the round (utility: raw score minus the entities' mean, "
        "over 305), leaves valued by random rollouts, worlds resampled consistently with "
        "everything public at every simulation. Python seat; needs pip install \".[openspiel]\"."
    ),
    parameters={"sims": (float(DEFAULT_SIMULATIONS), "ISMCTS simulations per decision"),
                "uct_c": (DEFAULT_UCT_C, "UCT exploration constant"),
                "rollouts": (float(DEFAULT_ROLLOUTS), "random rollouts per leaf evaluation")},
    compiled=False,
    stochastic=True,
    uses_inference=True,
)
def ismcts(view):
    """Row of ``view.cands`` chosen by OpenSpiel's ISMCTS bot (see the module docstring)."""
    sims, uct_c, rollouts = (float(p) for p in view.params[:3])
    seed = _bot_seed(view)
    random_state = np.random.RandomState(seed)
    state = load_game(players=int(view.players), one_round=True).state_of(
        MatchState.from_view(view, np.random.default_rng(seed)))
    evaluator = os_mcts.RandomRolloutEvaluator(n_rollouts=max(1, int(rollouts)),
                                               random_state=random_state)
    bot = os_ismcts.ISMCTSBot(state.get_game(), evaluator, uct_c, max(1, int(sims)),
                              random_state=random_state,
                              final_policy_type=os_ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
    # The bot's own resampler would draw from a UniformProbabilitySampler seeded by the
    # machine; drawing from the decision's random state keeps the match reproducible.
    bot.set_resampler(lambda root, player: root.resample_from_infostate(player,
                                                                        random_state.uniform))
    action = int(bot.step(state))
    return candidate_actions(view).index(action)


class StrategyBot(pyspiel.Bot):
    """One of our strategies as an OpenSpiel bot for the game ``exact61_five_up``.

    Parameters
    ----------
    strategy : str or strategies.Strategy
        Any spec :func:`strategies.resolve` takes (``"rollout"``, ``"matchplay[samples=24]"``,
        ``"path/to/file.py:mine"``); a strategy that sees hidden information is refused.
    player : int
        The seat it plays.
    seed, match : int
        Its decision stream is :func:`sim.core.rng.decision_state` ``(seed, match, player)``,
        the stream the engine gives that seat in match ``match`` of ``seed``; it continues from
        decision to decision (and from round to round) until :meth:`restart`.
    """

    def __init__(self, strategy, player: int, seed: int = 0, match: int = 0):
        pyspiel.Bot.__init__(self)
        self.strategy = resolve(strategy)
        if self.strategy.sees_hidden:
            raise ValueError(f"strategy {self.strategy.name!r} sees hidden information: "
                             "it cannot be an OpenSpiel bot")
        self.player = int(player)
        self.seed = int(seed)
        self.match = int(match)
        self._params = None
        self.restart()

    def restart(self):
        self._rng = R.decision_state(np.int64(self.seed), np.int64(self.match),
                                     np.int64(self.player))

    def restart_at(self, state):
        self.restart()

    def inform_action(self, state, player_id, action):
        pass

    def provides_policy(self):
        return False

    def step(self, state):
        """The action our strategy chooses at ``state`` (a decision of this bot's seat)."""
        match_state = state.match_state
        if match_state.current_player() != self.player:
            raise ValueError(f"it is not seat {self.player}'s decision")
        legal = match_state.legal_actions()
        players = match_state.players
        if self._params is None:
            row = self.strategy.default_params()
            self._params = np.tile(row if row.size else np.zeros(1), (players, 1))
        view = match_state.view(self._params)
        if len(legal) == 1:
            return legal[0]
        view = view._replace(rng=self._rng)  # its own stream, kept from decision to decision
        if self.strategy.compiled:
            # writable copies, as the engine hands them: read-only arrays would be another type
            fields = [np.array(f) if isinstance(f, np.ndarray) and f is not self._rng else f
                      for f in view]
            choice = int(self.strategy.choose(K.PlayerView(*fields)))
        else:
            choice = int(self.strategy.function(view))
        if not 0 <= choice < view.n_candidates:
            raise ValueError(f"strategy {self.strategy.name!r} returned row {choice}, not one of "
                             f"its {view.n_candidates} candidates")
        return candidate_actions(view)[choice]
