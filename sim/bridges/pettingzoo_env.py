"""Exact 61 Five Up as a PettingZoo AEC environment (``pip install ".[rl]"``).

``raw_env(players, max_rounds, one_round, render_mode)`` is the bare environment,
``env(**kwargs)`` the same wrapped as PettingZoo's classic environments are
(illegal actions end the game with a penalty for the mover, actions outside the
space fail an assertion, calls out of order raise). Both wrap one
:class:`sim.bridges.match_state.MatchState`; every rule lives there.

Agents and turns
    ``"player_0" .. "player_{n-1}"``, agent ``player_i`` sits in seat ``i``. The
    agent to move (``agent_selection``) is the seat MatchState says decides next;
    turns are not cyclic (a domino makes the dominoer lead, passes are automatic),
    so no cyclic agent selector is used.
Chance
    Lots, deals and forced draws are chance nodes of MatchState. ``reset`` and
    ``step`` resolve them at once with the environment's ``numpy.random.Generator``,
    drawing each outcome with MatchState's probabilities. ``reset(seed=s)`` makes a
    fresh generator from ``s``: the same seed and the same actions give the same game.
    ``reset()`` without a seed keeps drawing from the current generator (a fresh,
    entropy-seeded one on the first reset), as Gymnasium environments do.
Start options
    ``reset(options={"scores": [...], "leader": k})`` starts the game elsewhere than a
    0-0 match opened by a lot (both keys optional; they hold for that reset only):
    ``scores`` are the raw scores of the entities (one per seat at 2 and 3 players, one per
    partnership at 4: entity 0 is seats 0 and 2, entity 1 seats 1 and 3; ruling 7), each a
    multiple of 5 (every score event is one) from 0 to 300 (305 has won the match already,
    ruling 15); ``leader`` is the seat that leads the first round (the lot's outcome, ruling
    14; later rounds' leaders follow the rules). Negative scores, reachable at four players
    (ruling 10), are not offered: :func:`observation_bounds` counts the lowest score from a
    0 start. A bad option raises one ``ValueError`` line; an unknown key is ignored with a
    warning (:func:`start_options`).
Records
    exact61-record/1 has no start scores (every record replays from 0-0), so a game started
    from other scores has no record: ``state_machine.record(...)`` refuses it (ValueError);
    a game started from 0-0, with or without ``leader``, records and verifies as any other
    (its first round's ``leader`` is the one given).
Spaces
    ``action_space(agent) = Discrete(NUM_ACTIONS)``: the encoded placements of
    :func:`sim.bridges.match_state.encode_action`. ``observation_space(agent)`` is
    ``Dict(observation=Box(low, high, OBSERVATION_SHAPE, float32),
    action_mask=Box(0, 1, (NUM_ACTIONS,), int8))`` (bounds: :func:`observation_bounds`;
    flags in [0, 1], counts such as hand sizes above 1); ``observe(agent)`` gives the
    seat's ``MatchState.observation_tensor`` (only what the seat may know) and its
    legal placements as a 0/1 mask (all zeros when it is not the agent's turn).
Rewards, terminations, truncations
    Zero until the game ends; then each agent receives its seat's
    ``MatchState.returns()`` (+1 to the winning entity's seats and -1/(entities-1)
    to the others for a finished match; the documented score-difference utility for
    a game stopped unfinished). A match won by an entity, or the single round of
    ``one_round=True`` (that *is* the whole game), ends in terminations; a match
    stopped by the round limit (ruling 15) without a winner ends in truncations.
Public decision view
    :meth:`raw_env.decision_view` gives the sealed
    :class:`strategies.python_view.PythonView` of the agent to move: its own hand,
    the layout, scores, hand sizes, the boneyard size, known lacks and the candidate
    placements with their points -- what any of this project's strategies sees, no
    other hand. Policies that reason about placement awards use it
    (:mod:`sim.bridges.pettingzoo_agents`). The observation tensor encodes, in a fixed
    size for learners, the state the candidates follow from (hand, layout, scores...),
    not the candidates' points themselves.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np

from sim.bridges.availability import require
from sim.bridges.match_codes import NUM_ACTIONS
from sim.bridges.match_observer import OBSERVATION_OFFSETS, OBSERVATION_SHAPE
from sim.bridges.match_state import MatchState
from core.state import ARMS_PER_SPINNER, MAX_NODES, NO_ENTITY
from core.tiles import (DEFAULT_MAX_ROUNDS, N_TILES, N_VALUES, RAW_PER_DISPLAYED, TARGET_RAW, TILES,
    entities_for)

pettingzoo = require("pettingzoo", "rl")
spaces = require("gymnasium.spaces", "rl")
wrappers = require("pettingzoo.utils.wrappers", "rl")

ENV_NAME = "exact61_five_up_v0"
"""The environment's versioned name (``metadata["name"]``)."""

AGENT_PREFIX = "player_"
"""Agent ``AGENT_PREFIX + str(seat)`` plays seat ``seat``."""

ILLEGAL_MOVE_REWARD = -1.0
"""What :func:`env` gives the agent whose action its mask forbids (the game then ends);
the same as a lost match, and what PettingZoo's classic games give."""

LINE_SIDES = 2
"""Line sides of a layout node (A and B), each open or not."""

OPEN_PER_NODE = LINE_SIDES + ARMS_PER_SPINNER
"""Open connections one layout node can have at most: its two line sides and two arms."""

MAX_OPEN_PIPS = 2 * (N_VALUES - 1)
"""Most a single open connection adds to the scoring total (a double's two halves)."""

MAX_DEBIT_RAW = -(-sum(low + high for low, high in TILES) // RAW_PER_DISPLAYED) * RAW_PER_DISPLAYED
"""The largest partner debit of one domino (ruling 10): every pip of the set, rounded up to 5."""

COUNT_PIECES = {"hand_sizes": N_TILES, "boneyard": N_TILES,
                "open_count": OPEN_PER_NODE * MAX_NODES,
                "total": OPEN_PER_NODE * MAX_NODES * MAX_OPEN_PIPS}
"""Observation pieces that hold counts rather than 0/1 flags, with an upper bound of each.
Loose on purpose: a Box must contain every observation, and these cannot be passed."""

MASK_DTYPE = np.int8
"""dtype of ``action_mask`` (0/1), as in PettingZoo's classic games."""

START_OPTIONS = ("scores", "leader")
"""The keys ``reset``'s ``options`` may hold (module docstring, "Start options")."""


def agent_name(seat: int) -> str:
    """``"player_<seat>"``."""
    return f"{AGENT_PREFIX}{seat}"


def seat_of(agent: str) -> int:
    """The seat of ``"player_<seat>"``."""
    return int(agent[len(AGENT_PREFIX):])


def observation_bounds(max_rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """float32[OBSERVATION_SHAPE] lower and upper bounds of ``MatchState.observation_tensor``.

    One-hots, flags (the layout nodes' included) and the round fraction lie in [0, 1];
    the counts of :data:`COUNT_PIECES` in [0, bound]; a score / 305 at most 1 (an event passing 305 is
    discarded) and, since scores have no floor (ruling 10: a four-player domino can
    net a negative), at least ``-max_rounds * MAX_DEBIT_RAW / 305`` (one domino a round).
    """
    low = np.zeros(OBSERVATION_SHAPE, dtype=np.float32)
    high = np.ones(OBSERVATION_SHAPE, dtype=np.float32)
    for name, bound in COUNT_PIECES.items():
        start, shape = OBSERVATION_OFFSETS[name]
        high[start:start + int(np.prod(shape))] = bound
    start, shape = OBSERVATION_OFFSETS["scores"]
    low[start:start + int(np.prod(shape))] = -max_rounds * MAX_DEBIT_RAW / TARGET_RAW
    return low, high


def start_options(options, players: int) -> tuple[list[int] | None, int | None]:
    """The start scores and first leader of ``reset``'s ``options`` (module docstring).

    Parameters
    ----------
    options : dict or None
        ``{"scores": [...], "leader": k}``, either key optional.
    players : int
        Seats of the game (2, 3 or 4).

    Returns
    -------
    scores : list of int or None
        Raw score per entity, or None for 0-0.
    leader : int or None
        The first round's leader, or None for the lot.

    Raises
    ------
    ValueError
        One line naming the bad option: not a dict, scores of the wrong count, not integers,
        negative, not multiples of 5 or at 305 and above, a leader not a seat. An unknown key
        is ignored with a one-line ``UserWarning`` (PettingZoo's ``api_test`` passes one).
    """
    if options is None:
        return None, None
    if not isinstance(options, dict):
        raise ValueError(f"reset options must be a dict, not {type(options).__name__}")
    unknown = sorted(map(str, options.keys() - START_OPTIONS))
    if unknown:
        # A warning, not an error: PettingZoo's api_test resets with options={"options": 1}
        # to check that reset takes options, and expects the reset to go on.
        warnings.warn(f"unknown reset option {unknown[0]!r} ignored (known: "
                      f"{', '.join(map(repr, START_OPTIONS))})", UserWarning, stacklevel=3)
    n_entities = max(entities_for(players)) + 1
    scores = options.get("scores")
    if scores is not None:
        given = list(scores) if isinstance(scores, (list, tuple, np.ndarray)) else None
        per = "partnership" if players == 4 else "seat"
        if given is None or len(given) != n_entities:
            raise ValueError(f"options['scores'] must be {n_entities} raw scores (one per {per}), "
                             f"not {scores!r}")
        for score in given:
            if not isinstance(score, (int, np.integer)) or isinstance(score, (bool, np.bool_)):
                raise ValueError(f"options['scores'] must be integers (raw points), not {score!r}")
            if not 0 <= score < TARGET_RAW or score % RAW_PER_DISPLAYED:
                raise ValueError(f"options['scores'] holds {score}: a start score is a multiple of "
                                 f"{RAW_PER_DISPLAYED} from 0 to {TARGET_RAW - RAW_PER_DISPLAYED} "
                                 f"raw ({TARGET_RAW} has won the match)")
        scores = [int(score) for score in given]
    leader = options.get("leader")
    if leader is not None:
        if (not isinstance(leader, (int, np.integer)) or isinstance(leader, (bool, np.bool_))
                or not 0 <= leader < players):
            raise ValueError(f"options['leader'] must be a seat 0..{players - 1}, not {leader!r}")
        leader = int(leader)
    return scores, leader


def env(**kwargs) -> pettingzoo.AECEnv:
    """:class:`raw_env` with PettingZoo's standard wrappers.

    ``TerminateIllegalWrapper`` (an action outside the mask ends the game, the mover
    receives :data:`ILLEGAL_MOVE_REWARD`), ``AssertOutOfBoundsWrapper`` (an action
    outside ``Discrete(NUM_ACTIONS)`` fails an assertion), ``OrderEnforcingWrapper``
    (``step`` / ``observe`` / ``render`` before ``reset`` raise). Keyword arguments go
    to :class:`raw_env`.
    """
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=ILLEGAL_MOVE_REWARD)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(pettingzoo.AECEnv):  # lower case: PettingZoo's naming convention
    """The bare AEC environment (see the module docstring for every convention).

    Parameters
    ----------
    players : int
        2, 3 or 4 seats (four play as two partnerships).
    max_rounds : int
        Ruling 15's round limit; a match still unfinished then is truncated.
    one_round : bool
        The game is one round (from a lot for the leader to the round's settlement).
    render_mode : None, "ansi" or "human"
        ``"ansi"``: :meth:`render` returns a short text; ``"human"``: it prints that text.
    """

    metadata: ClassVar[dict] = {"name": ENV_NAME, "render_modes": ["ansi", "human"],
                                "is_parallelizable": False}

    def __init__(self, players: int = 2, max_rounds: int = DEFAULT_MAX_ROUNDS,
                 one_round: bool = False, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, "
                             f"not {render_mode!r}")
        # Built once here so that bad arguments fail at construction, with MatchState's message.
        self.state_machine = MatchState(players=players, max_rounds=max_rounds, one_round=one_round)
        self.players = self.state_machine.players
        self.max_rounds = max_rounds
        self.one_round = one_round
        self.render_mode = render_mode
        self.possible_agents = [agent_name(seat) for seat in range(self.players)]
        self.agents = []
        # The same space objects on every call (PettingZoo seeds spaces through them).
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(*observation_bounds(max_rounds), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=MASK_DTYPE),
            })
            for agent in self.possible_agents
        }
        self.rng = None

    # -- spaces -----------------------------------------------------------------------

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- the game ---------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game: chance resolved up to the first decision.

        Parameters
        ----------
        seed : int, optional
            A fresh generator from it (module docstring, "Chance").
        options : dict, optional
            ``{"scores": [...], "leader": k}``: the entities' raw start scores and the first
            round's leader (module docstring, "Start options"); ValueError (one line) if bad,
            checked before anything changes.
        """
        scores, leader = start_options(options, self.players)
        if seed is not None or self.rng is None:
            self.rng = np.random.default_rng(seed)
        self.state_machine = MatchState(players=self.players, max_rounds=self.max_rounds,
                                        one_round=self.one_round, scores=scores)
        if leader is not None:
            self.state_machine.apply_action(leader)  # the lot's outcome, given instead of drawn
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._advance()

    def step(self, action) -> None:
        """Play ``action`` (an encoded placement) for ``agent_selection``, then resolve chance.

        A finished agent must step ``None`` (PettingZoo's dead step). An action that is
        not legal raises ``ValueError`` (:func:`env`'s wrapper ends the game instead).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.state_machine.apply_action(int(action))
        self._advance()

    def _advance(self) -> None:
        """Resolve chance nodes, then point ``agent_selection`` at the decider or end the game."""
        state = self.state_machine
        while state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(outcomes[self.rng.choice(len(outcomes), p=probabilities)]))
        if not state.is_terminal():
            self.agent_selection = agent_name(state.current_player())
            return
        returns = state.returns()
        truncated = self.match_unfinished()
        for agent in self.agents:
            self.rewards[agent] = float(returns[seat_of(agent)])
            self.terminations[agent] = not truncated
            self.truncations[agent] = truncated
        self._accumulate_rewards()  # agent_selection stays on the last mover: it dead-steps first

    def match_unfinished(self) -> bool:
        """True if the game is over without a winner: a match stopped by the round limit.

        A one-round game always ends complete (its round is the whole game).
        """
        if self.one_round or not self.state_machine.is_terminal():
            return False
        return self.state_machine.winner == NO_ENTITY

    # -- what an agent sees -----------------------------------------------------------

    def observe(self, agent) -> dict:
        """``{"observation": float32[OBSERVATION_SHAPE], "action_mask": int8[NUM_ACTIONS]}``."""
        seat = seat_of(agent)
        return {"observation": np.asarray(self.state_machine.observation_tensor(seat),
                                          dtype=np.float32).reshape(OBSERVATION_SHAPE),
                "action_mask": self.action_mask(agent)}

    def action_mask(self, agent) -> np.ndarray:
        """int8[NUM_ACTIONS]: 1 at the agent's legal placements; all 0 unless it is to move.

        All 0 as well once the agent is done (also when :func:`env`'s wrapper ended the game
        after an illegal action, with the state itself still at that decision).
        """
        mask = np.zeros(NUM_ACTIONS, dtype=MASK_DTYPE)
        state = self.state_machine
        done = self.terminations.get(agent, True) or self.truncations.get(agent, True)
        if not done and not state.is_terminal() and state.current_player() == seat_of(agent):
            mask[state.legal_actions()] = 1
        return mask

    def decision_view(self, agent, params=None):
        """The sealed ``PythonView`` of ``agent``'s pending decision (see the module docstring).

        Parameters
        ----------
        agent : str
            Must be the agent to move.
        params : float64[players, n_params], optional
            ``view.params`` rows per seat; none (zero columns) by default.
        """
        state = self.state_machine
        if state.is_terminal() or state.current_player() != seat_of(agent):
            raise ValueError(f"{agent} has no decision to make now")
        if params is None:
            params = np.zeros((self.players, 0), dtype=np.float64)
        return state.view(params)

    def render(self):
        """``"ansi"``: the agent to move and what it may know (public state and its own hand), as
        text; ``"human"``: the same text printed, and None (PettingZoo's convention)."""
        if self.render_mode is None:
            warnings.warn("render() was called without a render_mode (use render_mode='ansi' or "
                          "'human')", stacklevel=2)
            return None
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_text(self) -> str:
        """What :meth:`render` shows: the mover, the raw scores and the mover's observation (or
        the end of the game)."""
        state = self.state_machine
        scores = ", ".join(f"entity {entity}: {score}" for entity, score in enumerate(state.scores()))
        if state.is_terminal():
            returns = ", ".join(f"{agent_name(seat)}: {value:+.3f}"
                                for seat, value in enumerate(state.returns()))
            ending = "unfinished (round limit)" if self.match_unfinished() else "over"
            return f"{ENV_NAME}: game {ending}; raw scores {scores}; returns {returns}"
        seat = state.current_player()
        return (f"{ENV_NAME}: {agent_name(seat)} to move; raw scores {scores}\n"
                f"{state.observation_string(seat)}")

    def close(self) -> None:
        """Nothing to release."""
