"""Compiled dispatch from a strategy id to its ``choose`` function.

One ``if`` branch per registered strategy. The engine loop calls only
:func:`choose_placement`, so adding a strategy edits this file and the
registry, never the engine.

``random``, ``greedy``, ``heavy`` and ``doubles`` are small and inlined here
(and so into the engine's round loop). The lookahead strategies (``exact``,
``defensive``, ``weighted``, ``rollout``) inline only a call to a separately
compiled function (it allocates its scratch, see :mod:`strategies._lookahead`),
which keeps the round loop, and the speed of ``random`` and ``greedy``, as it
was.
"""

from __future__ import annotations

from sim._jit import hot_kernel
from strategies import (
    defensive,
    example_user,
    exact,
    greedy,
    heavy,
    random_placement,
    rollout,
    weighted,
)

INVALID_STRATEGY = -1
"""Returned for an id with no branch; the engine flags the match as an error."""


@hot_kernel
def choose_placement(strategy_id, view):
    """Candidate index chosen by strategy ``strategy_id`` for ``view``.

    Parameters
    ----------
    strategy_id : int64
    view : sim._kernels.PlayerView

    Returns
    -------
    int64
        A row of ``view.cands``, or ``INVALID_STRATEGY``.
    """
    if strategy_id == random_placement.STRATEGY_ID:
        return random_placement.choose(view)
    if strategy_id == greedy.STRATEGY_ID:
        return greedy.choose(view)
    if strategy_id == exact.STRATEGY_ID:
        return exact.choose(view)
    if strategy_id == heavy.STRATEGY_ID:
        return heavy.choose(view)
    if strategy_id == defensive.STRATEGY_ID:
        return defensive.choose(view)
    if strategy_id == weighted.STRATEGY_ID:
        return weighted.choose(view)
    if strategy_id == rollout.STRATEGY_ID:
        return rollout.choose(view)
    if strategy_id == example_user.STRATEGY_ID:
        return example_user.choose(view)
    return INVALID_STRATEGY
