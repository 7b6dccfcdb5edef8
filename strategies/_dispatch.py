"""Compiled dispatch from a strategy id to its ``choose`` function.

One ``if`` branch per registered strategy. The engine loop calls only
:func:`choose_placement`, so adding a strategy edits this file and the
registry, never the engine.
"""

from __future__ import annotations

from sim._jit import hot_kernel
from strategies import greedy, random_placement

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
    return INVALID_STRATEGY
