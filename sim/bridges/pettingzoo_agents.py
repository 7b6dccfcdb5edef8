"""Small policies for the PettingZoo environment, and a loop that plays them.

A *policy* is a callable ``policy(observation, view) -> action``:

``observation``
    What ``env.last()`` gives the agent to move: ``{"observation": float32[...],
    "action_mask": int8[NUM_ACTIONS]}`` (:mod:`sim.bridges.pettingzoo_env`).
``view``
    ``None``, unless the policy has the attribute ``uses_view = True``; then the
    sealed ``PythonView`` of the agent's decision (``env.unwrapped.decision_view``):
    its own hand, the layout, scores, hand sizes, boneyard size, known lacks and the
    candidate placements with their points. It holds nothing the seat may not know
    (the same view this project's Python strategies receive); it is the explicit
    hook through which a policy reads placement awards without decoding the
    observation tensor.

The action must be one the mask allows. :func:`greedy_policy` uses the view: it
plays exactly what the built-in ``greedy`` strategy plays (the function of
:mod:`strategies.greedy`, run in plain Python on the view), encoded with
:func:`sim.bridges.match_state.encode_action`. :func:`random_masked_policy` uses the
mask only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.bridges.match_codes import encode_action
from core.checks import check_int, check_seed
from core.state import CAND_JOINED, CAND_PARENT, CAND_SIDE, CAND_TILE
from strategies.greedy import greedy as greedy_strategy

EPISODE_COLUMNS = ("episode", "agent", "reward", "truncated")
"""Columns of :func:`play_against`'s frame, one row per episode and agent."""


def candidate_action(view, row: int) -> int:
    """The encoded action of candidate ``row`` of ``view.cands``."""
    cand = view.cands[row]
    return encode_action(int(cand[CAND_TILE]), int(cand[CAND_PARENT]), int(cand[CAND_SIDE]),
                         int(cand[CAND_JOINED]))


def random_masked_policy(rng: np.random.Generator):
    """A policy playing uniformly among the legal actions of the mask, drawing from ``rng``."""

    def random_masked(observation, view=None) -> int:
        return int(rng.choice(np.flatnonzero(observation["action_mask"])))

    random_masked.uses_view = False
    return random_masked


def greedy_policy():
    """The built-in ``greedy`` as a policy: the largest immediate accepted award.

    Reads the decision view (``uses_view = True``): the candidates' points are
    there, and the choice (ties included) is the strategy's own function, so the
    policy plays in the environment what ``greedy`` plays in the engine.
    """

    def greedy(observation, view) -> int:
        action = candidate_action(view, int(greedy_strategy.function(view)))
        if not observation["action_mask"][action]:
            raise RuntimeError(f"greedy chose action {action}, which the mask forbids")
        return action

    greedy.uses_view = True
    return greedy


def play_against(env, policy_for_agent: dict, episodes: int, seed: int) -> pd.DataFrame:
    """Play ``episodes`` games of ``env`` with one policy per agent.

    Parameters
    ----------
    env : pettingzoo.AECEnv
        :func:`sim.bridges.pettingzoo_env.env` or ``raw_env`` (any wrapping).
    policy_for_agent : dict
        ``{agent: policy}`` for every agent of the environment (see the module docstring).
    episodes : int
        Games to play, >= 1.
    seed : int
        Episode ``e`` is ``env.reset(seed=seed + e)``: the same seed gives the same games
        (for deterministic policies, or policies with their own seeded generators).

    Returns
    -------
    pandas.DataFrame
        One row per episode and agent: ``episode`` (int64), ``agent`` (str), ``reward``
        (float64, the agent's total reward of the episode) and ``truncated`` (bool: the
        round limit stopped the match unfinished).
    """
    episodes = check_int(episodes, "episodes", 1)
    seed = check_seed(seed)
    missing = set(env.possible_agents) - set(policy_for_agent)
    if missing:
        raise ValueError(f"policy_for_agent has no policy for {sorted(missing)}")
    rows = []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        truncated = False
        for agent in env.agent_iter():
            observation, reward, terminated, truncation, _ = env.last()
            totals[agent] += float(reward)  # last() holds the reward since the agent's last step
            if terminated or truncation:
                truncated = truncated or truncation
                env.step(None)
                continue
            policy = policy_for_agent[agent]
            view = env.unwrapped.decision_view(agent) if getattr(policy, "uses_view", False) else None
            env.step(policy(observation, view))
        rows += [(episode, agent, totals[agent], truncated) for agent in env.possible_agents]
    frame = pd.DataFrame(rows, columns=list(EPISODE_COLUMNS))
    return frame.astype({"episode": np.int64, "reward": np.float64, "truncated": bool})
