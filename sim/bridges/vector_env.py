"""Exact 61 Five Up as a Gymnasium vector environment: many matches stepped as arrays
(``pip install ".[rl]"``).

``FiveUpVectorEnv(num_envs, players, opponents, ...)`` runs ``num_envs`` matches at once on
the engine's batch kernel (:func:`sim.engine.play.resume_matches`, the kernel that carries
Python seats): the learning agent holds one seat of each match, the other seats are played
by any strategy spec (compiled ones inside the kernel, Python ones answered here in a batch).
Every rule lives in the engine and its turn driver (:mod:`core.turns`), as for every
other way of playing.

Why Gymnasium's vector API and not a functional (pgx-like) one: the state is the engine's
workspaces, kept in place between calls and advanced by a compiled kernel; a functional API
would copy them at every step. Gymnasium's ``VectorEnv`` is what PPO and REINFORCE loops
already take.

A step
    One decision of the agent in each of the ``num_envs`` matches: ``step(actions)`` applies
    the agent's placement and plays the other seats, draws, passes, round ends and new rounds
    until the agent's next decision (or the match's end). ``num_envs`` agent steps per call. A
    decision with one legal placement is played at once, as for every strategy: it is no step.
Spaces
    ``single_action_space = Discrete(NUM_ACTIONS)``: the action codes of the OpenSpiel and
    PettingZoo bridges (:mod:`sim.bridges.match_codes`), so a policy trained here plays there.
    ``single_observation_space = Dict(observation, action_mask, legal_actions, legal_points,
    n_legal)``:
    ``observation`` is the seat's ``MatchState.observation_tensor`` (float32
    ``[OBSERVATION_SHAPE]``, pieces in :mod:`sim.bridges.match_observer`; written by the same
    compiled writer, :mod:`sim.bridges.observation_arrays`), ``action_mask`` int8
    ``[NUM_ACTIONS]`` is 1 at each legal code; ``legal_actions`` int16 ``[MAX_CANDIDATES]`` lists
    the legal codes (in the engine's candidate order, then -1), ``legal_points`` int8
    ``[MAX_CANDIDATES]`` the placement points (raw, multiples of 5) of each (then 0), and
    ``n_legal`` how many there are: a policy over the legal placements alone (features per
    placement, a random choice) reads these and never scans the 3,164 codes.
Rewards
    ``reward="match"`` (default): zero until the match ends, then the agent seat's
    ``MatchState.returns()``: +1 if its entity won, ``-1 / (entities - 1)`` if another did,
    and for a match stopped by the round limit (ruling 15) its entity's
    ``(raw score - mean raw score) / 305``. ``reward="points"``: at every step the change
    of that last quantity since the agent's previous decision, so a match's rewards sum to
    its final score margin / 305 (the round differentials; no bonus for the win).
Episodes and autoreset
    An episode is a match. Autoreset is Gymnasium's ``SAME_STEP`` mode: the step that ends a
    match returns its reward with ``terminations`` (a winner) or ``truncations`` (the round
    limit) set, and already the observation of the slot's next match (there is no final
    observation: the match ended at another seat's move or at a settlement).
Seeds and matches
    ``reset(seed=s)``: environment ``i`` plays matches ``i, i + num_envs, i + 2 num_envs, ...``
    of seed ``s``, each a pure function of ``(s, match index)``, the seating and the actions
    (the same match index with the same actions plays the same match whatever
    ``num_envs``). ``reset()`` without a seed goes on to each slot's next match (a fresh
    random seed on the very first reset). ``info["match"]`` gives each slot's match index.
Seats
    ``seat=None`` (default): environment ``i`` sits the agent in seat ``i % players``;
    an int: that seat everywhere. ``opponents``: one spec for every other seat, or one per
    other seat in seat order (at 4 players the agent's partner is one of them).
Records
    With ``keep_answers=True`` the environment keeps the agent's (and Python opponents')
    answers of every finished match; :meth:`FiveUpVectorEnv.records` turns them into
    exact61-record/1 records that ``five-up verify`` checks against the rules reference.
"""

from __future__ import annotations

import functools

import numpy as np

from sim.bridges.availability import require
from sim.bridges.match_codes import NUM_ACTIONS
from sim.bridges.match_observer import OBSERVATION_OFFSETS, OBSERVATION_SHAPE
from sim.bridges.observation_arrays import observe_decisions, piece_starts, rows_of_actions
from sim.bridges.pettingzoo_env import MASK_DTYPE, observation_bounds
from core.checks import check_int, check_players, check_seed
from core import state as K
from core.state import new_decision_batch, new_workspace_stack
from sim.engine.compiled import CompiledRun
from sim.engine.play import untraced
from sim.engine.python_seats import answer_batch, read_only_aliases, seat_export, seat_parameters
from sim.engine.runs import record_answered
from sim.engine.spec import RunSpec
from core.tiles import DEFAULT_MAX_ROUNDS, TARGET_RAW
from strategies.definition import strategy

gymnasium = require("gymnasium", "rl")
spaces = require("gymnasium.spaces", "rl")

REWARDS = ("match", "points")
"""The reward modes (module docstring)."""

MAX_POINTS = 127
"""Upper bound of ``legal_points`` in its space (int8; a placement scores far less)."""

MATCH_CAPACITY = 2**62
"""Match indices stay below this (a run's indices are < 2**63)."""


@functools.lru_cache(maxsize=1)
def agent_strategy():
    """The placeholder strategy of the agent's seat: a batch Python seat whose decisions
    :meth:`FiveUpVectorEnv.step` answers (it is never called)."""

    def agent(view):
        raise RuntimeError("the vector environment's agent seat is answered by step(), not called")

    return strategy(agent, name="agent", compiled=False, batch=True, reads_history=False)


def seat_specs(players: int, opponents, seat: int) -> list:
    """Each seat's strategy (spec or Strategy): the agent at ``seat``, ``opponents`` elsewhere."""
    if isinstance(opponents, (list, tuple)):
        others = list(opponents)
        if len(others) != players - 1:
            raise ValueError(f"opponents must be one spec or {players - 1} specs (one per other "
                             f"seat), not {len(others)}")
    else:
        others = [opponents] * (players - 1)
    return others[:seat] + [agent_strategy()] + others[seat:]


class FiveUpVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` matches of Exact 61 Five Up, one agent seat each (module docstring).

    Parameters
    ----------
    num_envs : int
        Matches stepped at once.
    players : int
        2, 3 or 4.
    opponents : str, Strategy or sequence
        The other seats' strategies (module docstring, "Seats"); default ``"greedy"``.
    seat : int, optional
        The agent's seat (default: environment ``i`` sits in ``i % players``).
    reward : str
        ``"match"`` or ``"points"`` (module docstring, "Rewards").
    max_rounds : int
        Ruling 15's round limit.
    copy : bool
        Return copies of the observation arrays (default); False returns the environment's own
        arrays, rewritten by the next step.
    keep_answers : bool
        Keep every finished match's answers for :meth:`records`.
    """

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1024, players: int = 2, opponents="greedy", seat=None,
                 reward: str = "match", max_rounds: int = DEFAULT_MAX_ROUNDS, copy: bool = True,
                 keep_answers: bool = False):
        self.num_envs = check_int(num_envs, "num_envs", 1, 1 << 20)
        self.players = check_players(players)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.reward_mode = reward
        self.max_rounds = check_int(max_rounds, "max_rounds", 1)
        self.copy = bool(copy)
        self.keep_answers = bool(keep_answers)
        n = self.num_envs
        if seat is None:
            self.seats = np.arange(n, dtype=np.int64) % self.players
        else:
            self.seats = np.full(n, check_int(seat, "seat", 0, self.players - 1), dtype=np.int64)
        self.specs = {int(s): RunSpec.build(self.players, seat_specs(self.players, opponents, int(s)),
                                            1, 0, max_rounds=self.max_rounds)
                      for s in np.unique(self.seats)}
        self.runs = {s: CompiledRun(spec, kernels=("resume_matches",))  # the one kernel it calls
                     for s, spec in self.specs.items()}
        # The agent's decisions are read from the workspaces (observe_decisions): no view export.
        self.exports = {s: np.where(np.arange(self.players) == s, K.EXPORT_SEAT, seat_export(spec))
                        for s, spec in self.specs.items()}
        self.n_entities = int(K.N_ENTITIES[self.players])
        self.agent_entity = K.ENTITY_OF_SEAT[self.players][self.seats]

        low, high = observation_bounds(self.max_rounds)
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(low, high, OBSERVATION_SHAPE, np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), MASK_DTYPE),
            "legal_actions": spaces.Box(-1, NUM_ACTIONS - 1, (K.MAX_CANDIDATES,), np.int16),
            "legal_points": spaces.Box(0, MAX_POINTS, (K.MAX_CANDIDATES,), np.int8),
            "n_legal": spaces.Box(1, K.MAX_CANDIDATES, (), np.int64),
        })
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)

        self.stack = new_workspace_stack(n)
        self.batch = new_decision_batch(n)
        self.answers = np.zeros((n, K.ANSWER_FIELDS), dtype=np.int64)
        self.resume = np.zeros(n, dtype=np.int64)
        self.slot_match = np.zeros(n, dtype=np.int64)
        self.obs = np.zeros((n,) + OBSERVATION_SHAPE, dtype=np.float32)
        self.mask = np.zeros((n, NUM_ACTIONS), dtype=MASK_DTYPE)
        self.points = np.zeros((n, K.MAX_CANDIDATES), dtype=np.int8)
        self.legal = np.full((n, K.MAX_CANDIDATES), -1, dtype=np.int16)
        self.n_legal = np.zeros(n, dtype=np.int64)
        self.rows = np.zeros(n, dtype=np.int64)
        self.margin = np.zeros(n, dtype=np.float64)
        self.starts = piece_starts(OBSERVATION_OFFSETS)
        self.all_slots = np.arange(n, dtype=np.int64)
        self.empty = untraced(np.zeros((0, K.ANSWER_FIELDS), dtype=np.int64))
        self.seed = None
        self.pending: list[list] = [[] for _ in range(n)]
        self.answered: list[tuple] = []

    # -- Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """Start a match in every environment; return ``(observations, info)``."""
        if seed is not None or self.seed is None:
            self.seed = (check_seed(seed) if seed is not None
                         else int(np.random.SeedSequence().entropy % (1 << 63)))
            self.slot_match[:] = self.all_slots
        else:
            self.slot_match += self.num_envs
        self.n_legal[:] = 0
        self.legal[:] = -1
        self.mask[:] = 0
        self.points[:] = 0
        self.margin[:] = 0.0
        self.pending = [[] for _ in range(self.num_envs)]
        self.resume[:] = 0
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        ended = np.zeros(self.num_envs, dtype=bool)
        self.advance(self.all_slots, rewards, ended, ended.copy())
        return self.observations(), self.info()

    def step(self, actions):
        """Apply each environment's action code; return ``(observations, rewards, terminations,
        truncations, info)`` (module docstring)."""
        if self.seed is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integer action codes, not an array "
                             f"of shape {actions.shape} and dtype {actions.dtype}")
        actions = actions.astype(np.int64, copy=False)
        rows_of_actions(actions, self.all_slots, self.legal, self.n_legal, self.rows)
        bad = np.flatnonzero(self.rows < 0)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"action {int(actions[i])} is not legal in environment {i} "
                             f"({int(self.n_legal[i])} legal codes: its action_mask's 1s)")
        self.answers[:, K.ANSWER_CHOICE] = self.rows
        self.answers[:, K.ANSWER_RNG_COUNTER] = self.stack.rng[self.all_slots, self.seats, 1].astype(np.int64)
        if self.keep_answers:
            for slot, answer in enumerate(self.answers.tolist()):
                self.pending[slot].append(answer)
        self.resume[:] = 1
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        self.advance(self.all_slots, rewards, terminated, truncated)
        if self.reward_mode == "points":
            # A slot whose match ended counts its next match's margin from that match's first step.
            going = ~(terminated | truncated)
            margin = self.margins(self.stack.scores)
            rewards[going] += margin[going] - self.margin[going]
            self.margin[going] = margin[going]
        return self.observations(), rewards, terminated, truncated, self.info()

    def close_extras(self, **kwargs):
        for run in self.runs.values():
            run.close()

    # -- the engine ---------------------------------------------------------------------------
    def advance(self, slots, rewards, terminated, truncated) -> None:
        """Carry ``slots`` (each started or answered) to the agent's next decision, playing the
        other seats and starting a new match where one ends; then observe them."""
        go = np.zeros(self.num_envs, dtype=bool)
        go[slots] = True
        while go.any():
            for seat, run in self.runs.items():
                mine = go & (self.seats == seat)
                if mine.any():
                    self.advance_group(seat, run, mine, go, rewards, terminated, truncated)
        observe_decisions(self.stack, self.all_slots, self.seats, np.int64(self.players),
                          np.int64(self.n_entities), np.int64(self.max_rounds), self.starts,
                          self.obs, self.mask, self.points, self.legal, self.n_legal)

    def advance_group(self, seat, run, mine, go, rewards, terminated, truncated) -> None:
        """One kernel call for the slots ``mine`` (their agent sits in ``run``'s seat)."""
        spec = run.spec
        slot_match = np.where(mine, self.slot_match, -1)
        waiting = run.engine.resume_matches(
            self.stack, slot_match, self.resume, self.answers, np.int64(self.seed),
            np.int64(self.players), run.strategy_ids, spec.params, np.int64(spec.max_rounds),
            spec.secret_words, self.exports[seat], self.empty, self.batch)
        decisions = self.batch.decisions[:waiting]
        slots = decisions[:, K.DECISION_SLOT]
        agent = decisions[:, K.DECISION_SEAT] == self.seats[slots]
        go[slots[agent]] = False
        others = np.flatnonzero(~agent)
        if others.size:
            self.answer_opponents(run, others, slot_match)
            self.resume[slots[others]] = 1
        finished = np.flatnonzero(self.batch.status == K.SLOT_FINISHED)
        if finished.size:
            self.finish(spec, finished, rewards, terminated, truncated)

    def answer_opponents(self, run, rows, slot_match) -> None:
        """Answer the Python opponents' decisions (rows ``rows`` of the batch) as any run does
        (:func:`sim.engine.python_seats.answer_batch`)."""
        sub = type(self.batch)(*(array[rows] for array in self.batch))
        found: list = []
        answer_batch(run, sub, read_only_aliases(sub), rows.size, slot_match,
                     seat_parameters(run.spec), self.answers, found)
        if self.keep_answers:
            for slot in sub.decisions[:, K.DECISION_SLOT].tolist():
                self.pending[slot].append(self.answers[slot].tolist())

    def finish(self, spec, finished, rewards, terminated, truncated) -> None:
        """Reward the matches that ended in slots ``finished`` and start each slot's next."""
        totals = self.batch.totals[finished]
        scores = self.batch.final_scores[finished]
        winner = totals[:, K.M_WINNER]
        won = winner != K.NO_ENTITY
        entity = self.agent_entity[finished]
        margin = self.margins(scores, finished)
        if self.reward_mode == "match":
            lose = -1.0 / (self.n_entities - 1)
            rewards[finished] += np.where(won, np.where(winner == entity, 1.0, lose), margin)
        else:
            rewards[finished] += margin - self.margin[finished]
            self.margin[finished] = 0.0
        terminated[finished] |= won
        truncated[finished] |= ~won
        if self.keep_answers:
            for k, slot in enumerate(finished.tolist()):
                self.answered.append((int(self.seats[slot]), int(self.slot_match[slot]),
                                      np.array(self.pending[slot], dtype=np.int64).reshape(-1, K.ANSWER_FIELDS),
                                      totals[k].copy(), scores[k].copy()))
                self.pending[slot] = []
        if int(self.slot_match[finished].max()) + self.num_envs >= MATCH_CAPACITY:
            raise RuntimeError("the environment has played every match index of its seed: reset(seed=...)")
        self.slot_match[finished] += self.num_envs
        self.resume[finished] = 0

    def margins(self, scores, slots=None) -> np.ndarray:
        """float64: the agent entity's (raw score - mean raw score of the entities) / 305, from
        ``scores`` (rows of ``slots``; all slots when None)."""
        slots = self.all_slots if slots is None else slots
        raw = scores[:, : self.n_entities].astype(np.float64)
        own = raw[np.arange(len(slots)), self.agent_entity[slots]]
        return (own - raw.mean(axis=1)) / TARGET_RAW

    def observations(self) -> dict:
        arrays = {"observation": self.obs, "action_mask": self.mask, "legal_actions": self.legal,
                  "legal_points": self.points, "n_legal": self.n_legal}
        return {name: array.copy() for name, array in arrays.items()} if self.copy else arrays

    def info(self) -> dict:
        return {"match": self.slot_match.copy(), "seat": self.seats.copy()}

    # -- records ------------------------------------------------------------------------------
    def records(self) -> list[dict]:
        """exact61-record/1 records of the finished matches kept so far (``keep_answers``), by
        seat of the agent, then in the order they finished; the kept answers are released."""
        if not self.keep_answers:
            raise ValueError("records() needs FiveUpVectorEnv(..., keep_answers=True)")
        records = []
        for seat, spec in self.specs.items():
            mine = [(match, rows, totals, scores)
                    for s, match, rows, totals, scores in self.answered if s == seat]
            if mine:
                last = max(match for match, *_ in mine)
                whole = RunSpec.build(self.players, spec.strategies, last + 1, self.seed,
                                      max_rounds=self.max_rounds)
                records += record_answered(whole, mine)
        self.answered = []
        return records


__all__ = ["FiveUpVectorEnv", "REWARDS", "agent_strategy"]
