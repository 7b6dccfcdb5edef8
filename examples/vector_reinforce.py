"""REINFORCE on the vector environment: a linear policy over each legal placement's features
learns to beat ``random``, then is measured against it on paired deals.

Run it (a few minutes on one core)::

    python examples/vector_reinforce.py --steps 600 --deals 2000

The policy scores each legal action code ``a`` of a decision as ``w . f(a)``, with
``f(a)`` = (placement points / 10, the tile's pips / 12, 1 for a double, 1 for the heaviest
legal tile), and samples from the softmax over the legal codes. Training plays
``random`` with ``reward="match"``; each finished match adds ``(return - baseline)`` times the
sum of its steps' ``grad log pi`` to the update (the baseline is the mean return so far).

The measure: every deal (a match index of a fresh seed) is played twice, the trained policy
(greedy over its scores) in seat 0 and then in seat 1, each time against ``random``; a deal's
outcome is the mean of its two wins, and the interval is the mean over deals +- 1.96 standard
errors (the deal is the design's unit). The untrained policy (weights 0: the first legal code)
plays the same deals, and the gain is the paired difference.
"""

from __future__ import annotations

import argparse

import numpy as np

from sim.bridges.match_codes import NUM_ACTIONS, decode_action
from sim.bridges.vector_env import FiveUpVectorEnv
from core.state import TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW

FEATURES = ("points", "pips", "double", "heaviest")

CODE_TILE = np.array([decode_action(code)[0] for code in range(NUM_ACTIONS)], dtype=np.int64)
"""The tile of each action code."""

TILE_PIPS = (TILE_LOW + TILE_HIGH).astype(np.float64)


def features(obs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """float64[N, L, F] features of each environment's legal codes, bool[N, L] which columns
    are legal, int64[N, L] the codes (L: the most legal codes of any environment)."""
    width = int(obs["n_legal"].max())
    codes = obs["legal_actions"][:, :width].astype(np.int64)
    legal = codes >= 0
    safe = np.where(legal, codes, 0)
    tiles = CODE_TILE[safe]
    pips = TILE_PIPS[tiles]
    points = obs["legal_points"][:, :width].astype(np.float64)
    heaviest = pips == np.where(legal, pips, -1).max(axis=1, keepdims=True)
    f = np.stack([points / 10, pips / 12, TILE_IS_DOUBLE[tiles].astype(np.float64),
                  heaviest.astype(np.float64)], axis=-1)
    return f * legal[..., None], legal, codes


def policy(weights, obs, rng=None):
    """Each environment's code (sampled, or the best scored when ``rng`` is None) and the
    ``grad log pi`` of it, float64[N, F]."""
    f, legal, codes = features(obs)
    scores = np.where(legal, f @ weights, -np.inf)
    if rng is None:
        pick = scores.argmax(axis=1)
    else:
        pick = (scores + rng.gumbel(size=scores.shape)).argmax(axis=1)
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    rows = np.arange(codes.shape[0])
    grad = f[rows, pick] - np.einsum("nl,nlf->nf", p, f)
    return codes[rows, pick], grad


def train(steps: int, envs: int = 256, seed: int = 1, learning_rate: float = 0.05) -> np.ndarray:
    """float64[F]: the weights after ``steps`` steps of REINFORCE against ``random``."""
    rng = np.random.default_rng(seed)
    env = FiveUpVectorEnv(envs, players=2, opponents="random")
    obs, _ = env.reset(seed=seed)
    weights = np.zeros(len(FEATURES))
    traces = np.zeros((envs, len(FEATURES)))
    returns = []
    for _ in range(steps):
        actions, grad = policy(weights, obs, rng)
        traces += grad
        obs, rewards, terminated, truncated, _ = env.step(actions)
        done = np.flatnonzero(terminated | truncated)
        if done.size:
            baseline = np.mean(returns) if returns else 0.0
            update = ((rewards[done] - baseline)[:, None] * traces[done]).mean(axis=0)
            weights += learning_rate * update
            returns += rewards[done].tolist()
            traces[done] = 0.0
    return weights


def wins_by_seat(weights, deals: int, seed: int, seat: int) -> np.ndarray:
    """float64[deals]: 1 where the greedy policy in ``seat`` won match ``d`` against random."""
    env = FiveUpVectorEnv(deals, players=2, opponents="random", seat=seat)
    obs, info = env.reset(seed=seed)
    outcome = np.full(deals, np.nan)
    while np.isnan(outcome).any():
        actions, _ = policy(weights, obs)
        obs, rewards, terminated, truncated, _ = env.step(actions)
        first = np.isnan(outcome) & (terminated | truncated)
        outcome[first] = rewards[first] > 0
    return outcome


def interval(per_deal: np.ndarray) -> tuple[float, float, float]:
    """Mean over deals and its 95% normal interval."""
    mean = per_deal.mean()
    half = 1.96 * per_deal.std(ddof=1) / np.sqrt(per_deal.size)
    return mean, mean - half, mean + half


def paired_measure(weights, deals: int, seed: int) -> dict:
    """The policy's match-win rate against random, each deal played from both seats, and its
    gain over the untrained policy (all weights 0: the first legal code) on the same deals."""
    def per_deal(w):
        return (wins_by_seat(w, deals, seed, 0) + wins_by_seat(w, deals, seed, 1)) / 2

    trained = per_deal(weights)
    untrained = per_deal(np.zeros_like(weights))
    return {"trained": interval(trained), "untrained": interval(untrained),
            "gain": interval(trained - untrained)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="REINFORCE on FiveUpVectorEnv against random.")
    parser.add_argument("--steps", type=int, default=600, help="training steps (256 matches each)")
    parser.add_argument("--deals", type=int, default=2000, help="deals of the measure (x2 seats)")
    parser.add_argument("--seed", type=int, default=1, help="training seed (the measure uses seed + 1)")
    args = parser.parse_args(argv)
    weights = train(args.steps, seed=args.seed)
    print("weights:", dict(zip(FEATURES, np.round(weights, 3).tolist())))
    measure = paired_measure(weights, args.deals, args.seed + 1)
    print(f"against random, {args.deals} deals x 2 seats (seed {args.seed + 1}), 95% intervals:")
    for name, (mean, low, high) in measure.items():
        label = "trained - untrained" if name == "gain" else f"{name} win rate"
        print(f"  {label}: {mean:+.3f} [{low:+.3f}, {high:+.3f}]" if name == "gain"
              else f"  {label}: {mean:.3f} [{low:.3f}, {high:.3f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
