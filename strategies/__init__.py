"""Strategies: how a seat chooses among its legal placements.

A strategy is consulted whenever a player has a choice: the opening (any tile of
the hand), a turn with two or more distinct legal placements (ruling 4), and the
placement of a playable drawn tile with two or more connections. A single legal
placement is played without asking. Strategies are chosen by name; the engine
runs any mix of them on one compiled kernel, switching on an integer id.

Built-ins
---------
``random``     uniform over the distinct legal placements (:mod:`strategies.random_placement`)
``greedy``     largest immediate accepted award (:mod:`strategies.greedy`)
``exact``      overshoot-aware: exact hits first, then fewest expected turns to land
               exactly on 61, minus the next opponent's chance of an exact hit
               (:mod:`strategies.exact`)
``heavy``      accepted award + pips shed, in raw points (:mod:`strategies.heavy`)
``defensive``  accepted award minus the next opponent's expected best reply, inferred
               from the tiles it may hold (:mod:`strategies.defensive`)
``weighted``   linear in 13 documented move features, weights = parameters
               (:mod:`strategies.weighted`, features in :mod:`strategies._linear`)
``rollout``    determinized Monte Carlo: sampled hidden hands and boneyard, each
               candidate played out to the end of the round with greedy
               (:mod:`strategies.rollout`)

Example: ``doubles`` (:mod:`strategies.example_user`), the template for a user
strategy; it is registered like the built-ins but left out of
:func:`builtin_names` (the default tournament field). ``five-up strategies``
lists them all with their metadata and parameters.

Support modules (no strategy of their own): :mod:`strategies._lookahead`
(private layout copy, determinized worlds, a trace-free greedy round loop),
:mod:`strategies._linear` (move features, the turns-to-finish table, the
linear chooser), :mod:`strategies._params` (:class:`Parameter`).

What a strategy sees
--------------------
Only a :class:`sim._kernels.PlayerView`: its own hand, the layout and its open
connections (with the scoring total), the entity scores, the tiles already
played, every seat's hand size, the boneyard size, the values each seat is
known to lack, the candidate placements with the points each would score, its
own parameter vector and its decision random stream. It never sees another
hand or the boneyard order. ``tests/test_strategies_hidden.py`` checks that
each strategy's choice does not change when the hidden hands and the boneyard
do.

Parameters
----------
``sim.simulate(..., params=[...])`` (also ``simulate_rounds`` and ``record``)
takes one entry per seat (with 4 players, 4 or one per partnership): ``None``
for the defaults, a dict ``{name: value}`` or the full list of values in
``PARAMETERS`` order. They reach the kernel as a float64 row per seat, so
sweeping parameter values (e.g. ``weighted`` weight vectors) never recompiles.

How to write a new strategy
---------------------------
:mod:`strategies.example_user` is a complete, commented example. In short:

1. Create ``strategies/<module>.py`` defining::

       NAME = "mystrategy"          # what users type
       STRATEGY_ID = 8              # next unused integer
       DESCRIPTION = "One paragraph: what it does and why."
       STOCHASTIC = False           # draws from view.rng?
       USES_INFERENCE = False       # reads view.lacking / unseen tiles?
       LOOKAHEAD = 0                # plies or rollouts beyond this placement
       PARAMETERS = ()              # tuple of strategies._params.Parameter(name, default, description)

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

   A strategy that needs scratch memory (a layout copy, sampled hands, a
   playout) keeps ``choose`` a one-line ``hot_kernel`` that calls a function
   decorated with :data:`strategies._lookahead.allocating`; that function
   allocates (e.g. :func:`strategies._lookahead.new_scratch`) and passes the
   arrays to a non-allocating :data:`sim._jit.kernel` that does the work (see
   :mod:`strategies.rollout`). Helper modules with compiled code go into
   ``SUPPORT_MODULES`` in :mod:`strategies.registry` so that the engine's
   compiled cache is refreshed when they change.
2. Add the module to ``BUILTIN_MODULES`` in :mod:`strategies.registry`
   (``EXAMPLE = True`` in the module keeps it out of :func:`builtin_names`).
3. Add one branch for it to :func:`strategies._dispatch.choose_placement`::

       if strategy_id == mymodule.STRATEGY_ID:
           return mymodule.choose(view)

4. Run it: ``sim.simulate(2, ["mystrategy", "greedy"], 10_000, seed=1)`` or
   ``five-up tournament --strategies mystrategy,greedy,...``. The first run
   recompiles the engine kernel (the cache notices the changed sources).

The engine loop (``sim/_play.py``) is not edited.
``tests/test_engine_registry.py`` fails if a module here is not registered or
its id has no dispatch branch.
"""

from __future__ import annotations

from strategies.registry import (
    STRATEGIES,
    Parameter,
    StrategyInfo,
    builtin_names,
    get,
    names,
    strategy_id,
)

__all__ = ["STRATEGIES", "Parameter", "StrategyInfo", "builtin_names", "get", "names", "strategy_id"]
