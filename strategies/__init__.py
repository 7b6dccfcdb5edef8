"""Strategies: how a seat chooses among its legal placements.

A strategy is consulted whenever a player has a choice: the opening (any tile of
the hand), a turn with two or more distinct legal placements (ruling 4), and the
placement of a playable drawn tile with two or more connections. A single legal
placement is played without asking. Strategies are chosen by name; the engine
runs any mix of them on one compiled kernel, switching on an integer id.

Built-ins
---------
``random``  uniform over the distinct legal placements (:mod:`strategies.random_placement`)
``greedy``  largest immediate accepted award (:mod:`strategies.greedy`)

What a strategy sees
--------------------
Only a :class:`sim._kernels.PlayerView`: its own hand, the layout and its open
connections (with the scoring total), the entity scores, the tiles already
played, every seat's hand size, the boneyard size, the values each seat is
known to lack, the candidate placements with the points each would score, its
own parameter vector and its decision random stream. It never sees another
hand or the boneyard order.

How to write a new strategy
---------------------------
1. Create ``strategies/<module>.py`` defining::

       NAME = "mystrategy"          # what users type
       STRATEGY_ID = 2              # next unused integer
       DESCRIPTION = "One paragraph: what it does and why."
       STOCHASTIC = False           # draws from view.rng?
       USES_INFERENCE = False       # reads view.lacking / unseen tiles?
       LOOKAHEAD = 0                # plies or rollouts beyond this placement
       PARAMETERS = ()              # tuple of registry.Parameter(name, default, description)

       @hot_kernel                  # from sim._jit import hot_kernel
       def choose(view):
           # view.cands[c, CAND_TILE / CAND_PARENT / CAND_SIDE / CAND_JOINED / CAND_POINTS]
           # for c in range(view.n_candidates); view.params[i] are PARAMETERS in order.
           return best_row_index

   ``choose`` must be decorated with :data:`sim._jit.hot_kernel` (cached, no
   reference counting, inlined into the dispatcher), allocate nothing,
   treat the view as read-only (except drawing from ``view.rng`` with
   :func:`sim.rng.next_below` / :func:`sim.rng.next_unit`), and return a row
   index ``0 <= i < view.n_candidates``. An index out of range stops the batch
   with an error naming the strategy. Use the decision stream for every random
   choice so results stay reproducible for a seed.
2. Add the module to ``BUILTIN_MODULES`` in :mod:`strategies.registry`.
3. Add one branch for it to :func:`strategies._dispatch.choose_placement`.

The engine loop (``sim/_play.py``) is not edited. Parameters reach the kernel as
a float64 array per seat, so sweeping parameter values never recompiles.
``tests/test_engine_registry.py`` fails if a module here is not registered or
its id has no dispatch branch.
"""

from __future__ import annotations

from strategies.registry import (
    STRATEGIES,
    Parameter,
    StrategyInfo,
    get,
    names,
    strategy_id,
)

__all__ = ["STRATEGIES", "Parameter", "StrategyInfo", "get", "names", "strategy_id"]
