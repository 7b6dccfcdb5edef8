"""Strategies: how a seat chooses among its legal placements.

A strategy is consulted whenever a player has a choice: the opening (any tile of
the hand), a turn with two or more distinct legal placements (ruling 4), and the
placement of a playable drawn tile with two or more connections. A single legal
placement is played without asking. Every strategy, built-in or a user's, is a
function decorated with :func:`strategy` (:mod:`strategies.definition`); the
engine is handed the strategies of a run and compiles one kernel per set of
them (:mod:`sim.engine.kernel_sets`), so it imports none.

Built-ins
---------
``random``     uniform over the distinct legal placements (:mod:`strategies.random`)
``greedy``     largest immediate accepted award (:mod:`strategies.greedy`)
``exact``      overshoot-aware: exact hits first, then fewest expected turns to land
               exactly on 61, minus the next opponent's chance of an exact hit
               (:mod:`strategies.exact`)
``heavy``      accepted award + pips shed, in raw points (:mod:`strategies.heavy`)
``defensive``  accepted award minus the next opponent's expected best reply, inferred
               from the tiles it may hold (:mod:`strategies.defensive`)
``weighted``   linear in 13 documented move features, weights = parameters
               (:mod:`strategies.weighted`, features in :mod:`strategies.linear`)
``weighted_tuned``  ``weighted`` with the weights tuned by CMA-ES (``five-up tune``), a named
               variant read from the generated :mod:`strategies.weighted_tuned_table`
``rollout``    determinized Monte Carlo: sampled hidden hands and boneyard, each
               candidate played out to the end of the round with greedy
               (:mod:`strategies.rollout`)
``matchplay``  determinized search for the match: per-tile inference and an opponent
               model over sampled worlds, successive halving, playouts valued by the
               match-win table (:mod:`strategies.matchplay`)
``cheater``    AUDIT ONLY (``sees_hidden``): matchplay's evaluation on the true hands and
               boneyard; refused unless ``allow_hidden=True`` (:mod:`strategies.cheater`)

Support modules (no strategy of their own): :mod:`strategies.lookahead`
(private layout copy, determinized worlds, a trace-free greedy round loop),
:mod:`strategies.inference` (per-tile knowledge from the round's history),
:mod:`strategies.choice_model` (likelihood of the other seats' past choices),
:mod:`strategies.winprob_table` (the shipped match-win table, read lazily from
``winprob_table.npz``, generated; what it holds and how it is stored:
:mod:`strategies.winprob_codes`),
:mod:`strategies.linear` (move features, the turns-to-finish table, the
linear chooser), :mod:`strategies.parameters` (:class:`Parameter`),
:mod:`strategies.catalogue` (names, ``MODULE:NAME`` and ``FILE.py:NAME``
references, variants ``name[k=v]``), :mod:`strategies.identity` (a
strategy's key: the digest of everything that decides its play),
:mod:`strategies.sealed_seat` (the process of a sealed Python seat),
:mod:`strategies.toolkit` (helpers for strategy authors).

What a strategy sees
--------------------
Only a sealed :class:`core.state.PlayerView`: its own hand, the layout and
its open connections (with the scoring total), the entity scores, the tiles
already played, every seat's hand size, the boneyard size, the values each
seat is known to lack, the candidate placements with the points each would
score, its own parameter vector and its own decision random stream. Every
array is cut to the rows in play and read-only (but the stream), and the
stream is derived one-way from the match key: reading every word it is
handed reveals no other hand, no boneyard order and no other seat's draws
(``tests/strategies/test_sealed.py``). A strategy that is not built in is
compiled with bounds checking, so no index reaches past the view
(:mod:`sim.engine.checked_strategies`).

Write your own
--------------
::

    import strategies
    from core.state import CAND_POINTS

    @strategies.strategy(name="edge", parameters={"bonus": (8.0, "raw points per double")},
                         description="Largest award, plus a bonus for doubles.")
    def edge(view):
        best, best_value = 0, -1.0
        for row in range(view.n_candidates):
            value = view.cands[row, CAND_POINTS] + view.params[0] * ...
            ...
        return best

    sim.simulate(2, [edge, "greedy"], matches=10_000, seed=1)

``compiled=False`` keeps the function plain Python (any library; it gets a
read-only :class:`strategies.python_view.PythonView`). From the command line,
``--strategies path/to/file.py:edge,greedy`` or ``mymodule:edge``.
``strategies.variant(weighted, name="w12", bonus=12)`` or the spec
``weighted[w_double=12]`` enters other parameter values as a strategy of its own;
``params=`` in :func:`sim.simulate` overrides them per seat without
recompiling.
"""

from __future__ import annotations

from strategies.catalogue import StrategyError, builtin_names, builtins, is_builtin, reference, resolve
from strategies.definition import Strategy, strategy, strategy_key, variant
from strategies.parameters import Parameter

__all__ = [
    "Parameter",
    "Strategy",
    "StrategyError",
    "builtin_names",
    "builtins",
    "is_builtin",
    "reference",
    "resolve",
    "strategy",
    "strategy_key",
    "variant",
]
