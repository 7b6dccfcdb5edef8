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

    ``evaluator=wintable`` (e.g. ``openspiel:ismcts[sims=30,evaluator=wintable]``; the
    number 1 says the same, and ``evaluator=random``, 0, is the default) values every end of
    the round the search reaches (a terminal node of its tree and the end of each rollout) by
    the match instead of the round's points (:func:`round_end_values`): ``2 P - 1`` for each
    side, ``P`` the probability that the side wins the match from the scores and the next
    leader the round leaves, read from the shipped win table
    (:data:`strategies.winprob_table.WIN_TABLE`, as ``matchplay`` reads it). That is the
    expected utility of the whole match under the game's own utility (the winner +1, the
    loser -1), so a round end that finishes the match keeps its +-1. The table covers 2
    players and 4-player partnerships; at 3 players the round's raw utility is kept.
    ``uct_c`` keeps its default, measured on the raw utility (the match values spread wider:
    pass ``uct_c`` to explore more). (This parameter was called ``match_value`` before.)
``PlayingISMCTSBot(game, evaluator, uct_c, max_simulations, random_state)``
    OpenSpiel's Python ``ISMCTSBot`` with ``restart_at`` and ``inform_action``, so it plays in
    ``open_spiel.python.algorithms.evaluate_bots.evaluate_bots`` (the upstream bot fails there
    with ``RestartAt(state) not implemented``), its worlds drawn with ``random_state``.
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

import re
import time

import numpy as np

import strategies
from sim.bridges.availability import require
from sim.bridges.match_codes import encode_action
from sim.bridges.match_state import MatchState
from core import rng as R
from core import state as K
from sim.engine.runs import simulate
from core.tiles import TARGET_RAW
from strategies.catalogue import resolve
from strategies.matchplay import LEAD_LOT, LEAD_OTHER, LEAD_OWN, SCORE_STEP, TABLE_ROW
from strategies.parameters import Parameter
from strategies import winprob_table

pyspiel = require("pyspiel", "openspiel")

from open_spiel.python.algorithms import ismcts as os_ismcts  # noqa: E402  (after the check)
from open_spiel.python.algorithms import mcts as os_mcts  # noqa: E402

from sim.bridges.openspiel_game import load_game  # noqa: E402

DEFAULT_SIMULATIONS = 1000
"""ISMCTS simulations per decision (``sims``)."""
MIN_SIMULATIONS = 2
"""The fewest simulations the bot runs: with one, OpenSpiel's ISMCTS leaves the root's children
unvisited and its final policy fails an assertion."""
MATCHED = 0
"""``sims=0``: the count is calibrated by the run that plays the bot, to the CPU per placement of
the strategy it faces (:func:`calibrate_simulations`; ``five-up strength`` records the count)."""
CALIBRATION_SIMULATIONS = (MIN_SIMULATIONS, 8)
"""The two counts whose CPU per placement :func:`calibrate_simulations` measures."""
CALIBRATION_MATCHES = 2
"""Self-play matches per measured count (single-threaded, after a warm-up match)."""
DEFAULT_UCT_C = 0.3
"""UCT exploration constant. Smaller than OpenSpiel's usual 2 (for returns in [-1, 1]): the
one-round utility is a raw differential over 305, mostly within +-0.2, and with 2 the search
spreads its visits almost evenly (sims=100 against greedy, 24 matches, seed 3: 16 wins with
uct_c=2, 20 with 0.3, 19 with 0.05)."""
DEFAULT_ROLLOUTS = 1
"""Random rollouts per leaf evaluation."""
EVALUATORS = (("random", 0.0), ("wintable", 1.0))
"""The values of ``evaluator``: round ends valued by the round's raw utility (the game's,
``random``: random rollouts as OpenSpiel's ``RandomRolloutEvaluator``), or by the match-win
table (``wintable``)."""

DEFAULT_EVALUATOR = 0.0
"""``random``."""
SEED_WORDS = 2**31 - 1
"""Bound of the bot's seed (``numpy.random.RandomState`` takes 32-bit seeds)."""


def candidate_actions(view) -> list[int]:
    """The game action of every row of ``view.cands`` (same order)."""
    cands = view.cands
    return [encode_action(int(c[K.CAND_TILE]), int(c[K.CAND_PARENT]), int(c[K.CAND_SIDE]),
                          int(c[K.CAND_JOINED])) for c in cands[: view.n_candidates]]


def round_end_values(match_state) -> np.ndarray:
    """Per seat value of a finished round (``one_round`` terminal) valued by the match.

    Parameters
    ----------
    match_state : sim.bridges.match_state.MatchState
        A terminal state of the game ``exact61_five_up(one_round=True)``.

    Returns
    -------
    ndarray of float64, shape (players,)
        Seat ``s``: ``2 P - 1`` for its side, ``P`` the probability that the side wins the
        match from here (1 or 0 when the round ended the match), read from
        :data:`strategies.winprob_table.WIN_TABLE` by both sides' displayed scores (a
        partnership's negative score clamped to 0, as ``matchplay`` does) and the next leader
        (the dominoer's side after a domino, a lot after a block). Side 0's ``P`` is the mean
        of its own look-up and the complement of side 1's, so the values sum to exactly 0. At
        3 players (no table) the game's own returns.
    """
    players = match_state.players
    row = int(TABLE_ROW[players])
    scores = match_state.scores()
    if row < 0:
        return np.asarray(match_state.returns(), dtype=np.float64)
    entity_of = match_state.entities
    if TARGET_RAW in scores:
        p0 = 1.0 if scores[0] == TARGET_RAW else 0.0
    else:
        stats = match_state.ws.round_stats
        leading = K.NO_ENTITY
        if int(stats[K.R_END]) == K.END_DOMINO:
            leading = entity_of[int(stats[K.R_DOMINOER])]
        cells = [max(score, 0) // SCORE_STEP for score in scores]

        def lead_of(entity: int) -> int:
            if leading == K.NO_ENTITY:
                return LEAD_LOT
            return LEAD_OWN if leading == entity else LEAD_OTHER

        table = winprob_table.WIN_TABLE
        p0 = 0.5 * (float(table[row, cells[0], cells[1], lead_of(0)])
                    + 1.0 - float(table[row, cells[1], cells[0], lead_of(1)]))
    side = np.array([2.0 * p0 - 1.0, 1.0 - 2.0 * p0])
    return side[np.asarray(entity_of, dtype=np.int64)]


class MatchValueEvaluator(os_mcts.RandomRolloutEvaluator):
    """OpenSpiel's random-rollout evaluator with the rollout's end valued by
    :func:`round_end_values` (the win table) instead of the game's returns."""

    def evaluate(self, state):
        """Mean of ``n_rollouts`` random playouts to the end of the round, each valued by the
        match (float64[players])."""
        total = np.zeros(state.num_players())
        for _ in range(self.n_rollouts):
            working = state.clone()
            while not working.is_terminal():
                if working.is_chance_node():
                    actions, probabilities = zip(*working.chance_outcomes())
                    working.apply_action(self._random_state.choice(actions, p=probabilities))
                else:
                    working.apply_action(self._random_state.choice(working.legal_actions()))
            total += round_end_values(working.match_state)
        return total / self.n_rollouts


class PlayingISMCTSBot(os_ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS bot, made to play in OpenSpiel's match loops.

    ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` defines ``step`` only, so
    ``open_spiel.python.algorithms.evaluate_bots.evaluate_bots``, which first calls every
    bot's ``restart_at(state)`` and then ``inform_action`` after each action, fails with
    ``RestartAt(state) not implemented``. This subclass answers both: the bot keeps nothing
    between its decisions (every ``step`` searches afresh from the state it is given, its tree
    cleared), so ``restart``/``restart_at`` clear the tree and ``inform_action`` has nothing
    to learn. Its worlds are drawn with ``random_state`` (the state's
    ``resample_from_infostate`` fed ``random_state.uniform``), so a seeded bot plays the same
    moves again; OpenSpiel's default resampler draws from an unseeded sampler.

    Parameters
    ----------
    game : pyspiel.Game
        ``exact61_five_up`` (any parameters).
    evaluator : open_spiel.python.algorithms.mcts.Evaluator
        Values the tree's leaves, e.g. ``mcts.RandomRolloutEvaluator`` or
        :class:`MatchValueEvaluator`.
    uct_c : float
        UCT exploration constant.
    max_simulations : int
        Simulations per decision.
    random_state : numpy.random.RandomState
        Draws the worlds, the rollouts' moves (when the evaluator shares it) and ties.
    **options
        Further keywords of OpenSpiel's ``ISMCTSBot`` (``final_policy_type``, ...).

    Examples
    --------
    >>> from open_spiel.python.algorithms import evaluate_bots, mcts
    >>> game = load_game(players=2, one_round=True)
    >>> rng = np.random.RandomState(1)
    >>> bots = [PlayingISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 0.3, 20, rng)
    ...         for _ in range(2)]
    >>> returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    """

    def __init__(self, game, evaluator, uct_c, max_simulations, random_state, **options):
        super().__init__(game, evaluator, uct_c, max_simulations, random_state=random_state,
                         **options)
        self.set_resampler(lambda root, player: root.resample_from_infostate(
            player, random_state.uniform))

    def restart(self):
        """Forget the last search's tree."""
        self.reset()

    def restart_at(self, state):
        """Forget the last search's tree (the next ``step`` searches from its own state)."""
        self.reset()

    def inform_action(self, state, player_id, action):
        """Nothing to update: each ``step`` searches afresh."""

    def provides_policy(self):
        """True: ``get_policy`` and ``step_with_policy`` give the search's final policy."""
        return True


class MatchValueISMCTSBot(PlayingISMCTSBot):
    """The ISMCTS bot whose tree values a terminal node (the end of the round) by
    :func:`round_end_values`: ``run_simulation`` recurses through ``self``, so the override
    reaches every terminal the tree meets."""

    def run_simulation(self, state):
        if state.is_terminal():
            return round_end_values(state.match_state)
        return super().run_simulation(state)


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
        "everything public at every simulation (evaluator=wintable: round ends valued by the "
        "match-win table instead). Python seat; needs pip install \".[openspiel]\"."
    ),
    parameters={"sims": (float(DEFAULT_SIMULATIONS),
                         f"ISMCTS simulations per decision (at least {MIN_SIMULATIONS}; 0: "
                         "calibrated by five-up strength to the CPU per placement of the "
                         "strategy it faces)"),
                "uct_c": (DEFAULT_UCT_C, "UCT exploration constant"),
                "rollouts": (float(DEFAULT_ROLLOUTS), "random rollouts per leaf evaluation"),
                "evaluator": Parameter(
                    "evaluator", DEFAULT_EVALUATOR,
                    "round ends (tree and rollouts) valued by: random (0) the round's raw "
                    "utility; wintable (1) the match-win table", words=EVALUATORS)},
    compiled=False,
    stochastic=True,
    uses_inference=True,
)
def ismcts(view):
    """Row of ``view.cands`` chosen by OpenSpiel's ISMCTS bot (see the module docstring)."""
    sims, uct_c, rollouts, evaluator = (float(p) for p in view.params[:4])
    if sims == MATCHED:
        raise ValueError("openspiel.ismcts[sims=0] is calibrated by the run that plays it "
                         "(five-up strength --versus): no count to play with here")
    seed = _bot_seed(view)
    random_state = np.random.RandomState(seed)
    state = load_game(players=int(view.players), one_round=True).state_of(
        MatchState.from_view(view, np.random.default_rng(seed)))
    by_match = evaluator != DEFAULT_EVALUATOR
    evaluator = (MatchValueEvaluator if by_match else os_mcts.RandomRolloutEvaluator)(
        n_rollouts=max(1, int(rollouts)), random_state=random_state)
    bot = (MatchValueISMCTSBot if by_match else PlayingISMCTSBot)(
        state.get_game(), evaluator, uct_c, max(MIN_SIMULATIONS, int(sims)), random_state,
        final_policy_type=os_ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
    action = int(bot.step(state))
    return candidate_actions(view).index(action)


def with_simulations(spec: str, sims: int) -> str:
    """``spec`` (``openspiel:ismcts[sims=0,...]`` or its module form) with ``sims=N``."""
    text, count = re.subn(r"(?<=[\[,])\s*sims\s*=\s*[0-9.eE+-]+\s*(?=[,\]])", f"sims={int(sims)}",
                          spec)
    if count != 1:
        raise ValueError(f"{spec!r} names no sims parameter to calibrate")
    return text


def placement_cpu(spec, players: int, matches: int, seed: int, **run_options) -> float:
    """CPU microseconds per placement (every tile played, forced ones included) of ``spec`` in
    self-play, one thread, after an untimed warm-up match (:func:`time.process_time`: a
    measurement, not reproducible)."""
    seats = [spec] * players
    simulate(players, seats, 1, seed, threads=1, **run_options)
    started = time.process_time()
    frame = simulate(players, seats, matches, seed, threads=1, first_match=1, **run_options)
    cpu = time.process_time() - started
    return 1e6 * cpu / max(int(frame["placements"].sum()), 1)


def simulations_for(target_us: float, cost: dict) -> int:
    """The simulation count whose CPU per placement matches ``target_us``, from the measured
    ``cost`` (count -> microseconds per placement, two counts) by the straight line through
    them; at least :data:`MIN_SIMULATIONS` (where even that costs more than the target, the bot
    plays with it and the run reports the excess)."""
    (n0, c0), (n1, c1) = sorted(cost.items())[:2]
    slope = (c1 - c0) / (n1 - n0)
    if slope <= 0 or target_us <= c0:
        return MIN_SIMULATIONS
    return max(MIN_SIMULATIONS, int(round(n0 + (target_us - c0) / slope)))


def calibrate_simulations(spec: str, target_us: float, players: int, seed: int,
                          matches: int = CALIBRATION_MATCHES, **run_options) -> dict:
    """The ISMCTS bot ``spec`` (``sims=0``) calibrated to ``target_us`` CPU microseconds per
    placement (the strategy it faces, measured the same way: :func:`placement_cpu`).

    Returns
    -------
    dict
        ``sims`` (the count, :func:`simulations_for`), ``spec`` (``spec`` with it),
        ``target_us_per_placement``, ``us_per_placement`` (count -> measured, the
        :data:`CALIBRATION_SIMULATIONS`), ``us_per_simulation`` (the line's slope) and
        ``cpu_ratio`` (the bot's expected CPU per placement at ``sims`` over the target: 1 when
        matched, above 1 when even :data:`MIN_SIMULATIONS` costs more).
    """
    cost = {n: placement_cpu(with_simulations(spec, n), players, matches, seed, **run_options)
            for n in CALIBRATION_SIMULATIONS}
    sims = simulations_for(target_us, cost)
    (n0, c0), (n1, c1) = sorted(cost.items())
    slope = (c1 - c0) / (n1 - n0)
    expected = c0 + slope * (sims - n0)
    return {"sims": sims, "spec": with_simulations(spec, sims),
            "target_us_per_placement": round(target_us, 1),
            "us_per_placement": {str(n): round(c, 1) for n, c in cost.items()},
            "us_per_simulation": round(slope, 1),
            "cpu_ratio": round(expected / target_us, 2) if target_us > 0 else float("inf")}


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
        Its decision stream is :func:`core.rng.decision_state` ``(seed, match, player)``,
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
            # The Python view's arrays are read-only copies already (seat_view), as the engine
            # hands them: the engine's view type, whose helpers are cached already.
            choice = int(self.strategy.choose(K.PlayerView(*view)))
        else:
            choice = int(self.strategy.choose(view))
        if not 0 <= choice < view.n_candidates:
            raise ValueError(f"strategy {self.strategy.name!r} returned row {choice}, not one of "
                             f"its {view.n_candidates} candidates")
        return candidate_actions(view)[choice]
