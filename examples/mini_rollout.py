"""A worked example of a lookahead strategy written with the toolkit: ``mini_rollout``.

Determinized Monte Carlo in about twenty lines: for each of ``samples``
worlds (the hidden hands and the boneyard order drawn consistently with
everything public), play every candidate out to the end of the round with
``greedy`` at every seat, and keep the candidate with the best mean
advantage. The one function that allocates scratch arrays is decorated with
``tk.allocating``; the strategy itself, compiled into the engine's turn loop,
only calls it.

Use it like any strategy::

    import sim, strategies
    mini = strategies.resolve("examples/mini_rollout.py:mini_rollout")
    sim.simulate(2, [mini, "greedy"], 1_000, seed=1)

``tests/strategies/test_toolkit.py`` plays it against ``greedy`` and ``random``.
"""

from __future__ import annotations

import numpy as np

import strategies
from strategies import toolkit as tk


@tk.allocating
def _search(view):
    ws = tk.new_scratch()
    values = np.zeros(view.n_candidates)
    for _ in range(int(view.params[0])):
        world = tk.sample_world(ws, view)
        for row in range(view.n_candidates):
            values[row] += tk.advantage(view, tk.playout(ws, view, world, row))
    return tk.best_row(view, values)


@strategies.strategy(name="mini_rollout", parameters={"samples": (8.0, "worlds per decision")},
                     stochastic=True, uses_inference=True, lookahead=8)
def mini_rollout(view):
    """Best mean advantage over sampled worlds, each candidate played out with greedy."""
    return _search(view)
