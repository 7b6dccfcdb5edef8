"""A worked example of a user strategy: ``doubles`` (play doubles early).

This file is the template to copy. It defines a complete strategy in about
twenty lines of logic, and it is registered exactly the way a user's own
strategy would be; nothing under ``sim/`` was edited to add it.

The idea: doubles are the hardest tiles to get rid of (a double matches one
value only, not two), so a hand stuck with them risks drawing and pays for
them in settlement. ``doubles`` values each placement at its accepted
immediate award in raw points plus ``double_bonus`` raw points if the tile is
a double, and breaks exact ties in greedy's order.

Step by step (what was done for this file)
------------------------------------------
1. Write the module ``strategies/<your_module>.py`` (this file): ``NAME``,
   an unused integer ``STRATEGY_ID`` (the next one, here 7), a
   one-paragraph ``DESCRIPTION``, ``STOCHASTIC``, ``USES_INFERENCE``,
   ``LOOKAHEAD``, ``PARAMETERS`` (a tuple of
   :class:`strategies.parameters.Parameter`), and a ``choose(view)`` decorated
   with :data:`sim._jit.hot_kernel` that returns a row of ``view.cands``.
   Read the game only from the ``view`` (:class:`sim._kernels.PlayerView`);
   parameters arrive as ``view.params[i]`` in ``PARAMETERS`` order.
2. Register the module: add it to ``BUILTIN_MODULES`` in
   ``strategies/registry.py`` (set ``EXAMPLE = True`` in the module to keep
   it out of :func:`strategies.builtin_names`, the default tournament field).
3. Add one branch to ``strategies/_dispatch.py``::

       if strategy_id == example_user.STRATEGY_ID:
           return example_user.choose(view)

4. Run it like any built-in; the first run recompiles the engine kernel
   (about a minute), later runs load it from the cache::

       import sim
       frame = sim.simulate(2, ["doubles", "greedy"], 10_000, seed=1)
       print(frame.winner.value_counts(normalize=True))

       # with another parameter value, no recompilation:
       frame = sim.simulate(2, ["doubles", "greedy"], 10_000, seed=1,
                            params=[{"double_bonus": 12.0}, None])

   or in a tournament against the built-ins::

       five-up tournament --players 2 --strategies doubles,greedy,heavy \\
           --matches 2000 --seed 1 --out runs/doubles

   ``five-up strategies`` lists it with its description and parameters.

``tests/test_engine_registry.py`` fails if a module in ``strategies/`` is not
registered or its id has no dispatch branch, and
``tests/test_strategies_legal.py`` replays its matches through the rules
reference (:func:`sim.verify.verify_record`).
"""

from __future__ import annotations

from sim._jit import hot_kernel
from sim._kernels import CAND_POINTS, CAND_TILE, TILE_IS_DOUBLE
from sim.tiles import TARGET_RAW
from strategies._lookahead import greedy_prefers
from strategies.parameters import Parameter

NAME = "doubles"
STRATEGY_ID = 7
DESCRIPTION = (
    "Example user strategy (strategies/example_user.py): plays doubles early, since a double "
    "matches a single value and is the tile most likely to be stranded in hand. Each "
    "placement is worth its accepted immediate award in raw points plus double_bonus raw "
    "points if the tile is a double; ties follow greedy's order. Deterministic, no "
    "inference, no lookahead."
)
STOCHASTIC = False
USES_INFERENCE = False
LOOKAHEAD = 0
PARAMETERS = (Parameter("double_bonus", 8.0, "raw points added for playing a double"),)
EXAMPLE = True
"""Not part of the built-in tournament field (see strategies.builtin_names)."""


@hot_kernel
def choose(view):
    """Row maximising award + double_bonus * is_double (ties in greedy's order)."""
    score = view.scores[view.entity_of_seat[view.seat]]
    bonus = view.params[0]
    cands = view.cands
    best = 0
    best_value = 0.0
    for row in range(view.n_candidates):
        points = cands[row, CAND_POINTS]
        award = points if score + points <= TARGET_RAW else 0
        value = award + bonus * TILE_IS_DOUBLE[cands[row, CAND_TILE]]
        if row == 0 or value > best_value or (
            value == best_value and greedy_prefers(view, score, row, best)
        ):
            best = row
            best_value = value
    return best
