"""Benchmark of the vector environment (:class:`sim.bridges.vector_env.FiveUpVectorEnv`).

Run from the repository root::

    python benchmarks/bench_vector_env.py

A step is one decision of the agent in each of the batch's matches (``step(actions)`` with
``num_envs`` actions): the environment applies the placements and plays the opponents, the
draws, passes and round ends, and new matches where one ends, up to each agent's next decision
(decisions with one legal placement are played at once and are not steps). Agent steps per
second = ``num_envs`` x calls per second, on one thread, with a random NumPy policy (a uniform
legal code from ``legal_actions`` and ``n_legal``) whose time is counted, CPU clock of the
process. Each measure runs in a fresh process (engine compiled or loaded first, then 30 warm-up
steps), ``--repeats`` times; medians are printed. Target: 300,000 agent steps/s at batch 1,024,
2 players, against ``greedy``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_engine import finish, load_average, machine, met  # noqa: E402

STEPS = textwrap.dedent("""
    import sys, time
    import numpy as np
    from sim.bridges.vector_env import FiveUpVectorEnv
    envs, players, opponent, copy, steps = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                            sys.argv[4] == "1", int(sys.argv[5]))
    env = FiveUpVectorEnv(envs, players=players, opponents=opponent, copy=copy)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    rows = np.arange(envs)

    def act(obs):
        pick = (rng.random(envs) * obs["n_legal"]).astype(np.int64)
        return obs["legal_actions"][rows, pick]

    for _ in range(30):
        obs, *_ = env.step(act(obs))
    started = time.process_time()
    for _ in range(steps):
        obs, *_ = env.step(act(obs))
    print(envs * steps / (time.process_time() - started))
""")

TARGET = 300_000
"""Agent steps/s at batch 1,024, 2 players, against greedy, one thread (issue 45)."""


def rate(envs: int, players: int, opponent: str, copy: bool, steps: int) -> float:
    environment = {"NUMBA_NUM_THREADS": "1", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    output = subprocess.run([sys.executable, "-c", STEPS, str(envs), str(players), opponent,
                             "1" if copy else "0", str(steps)], env=environment, cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    return float(output.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per row (median)")
    parser.add_argument("--steps", type=int, default=300, help="timed steps per process")
    args = parser.parse_args(argv)
    import numba

    print(f"Machine: {machine()}; Python {platform.python_version()}, Numba {numba.__version__}; "
          f"load average before: {load_average()}")
    print()
    print(f"Agent steps per CPU second, 1 thread, random NumPy policy, median of {args.repeats} "
          f"fresh processes of {args.steps} steps:")
    print()
    print("| batch | players | opponents | observation copies | agent steps/s | target |")
    print("|---:|---:|---|---|---:|---|")
    rows = [(1024, 2, "greedy", True), (1024, 2, "greedy", False), (256, 2, "greedy", True),
            (1024, 4, "greedy", True)]
    for envs, players, opponent, copy in rows:
        value = statistics.median(rate(envs, players, opponent, copy, args.steps)
                                  for _ in range(args.repeats))
        target = (f">= {TARGET:,}: {met(value >= TARGET)}"
                  if (envs, players, opponent, copy) == rows[0] else "")
        print(f"| {envs:,} | {players} | {opponent} | {'yes' if copy else 'no'} | {value:,.0f} | "
              f"{target} |")
    return finish()


if __name__ == "__main__":
    raise SystemExit(main())
