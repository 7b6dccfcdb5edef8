"""The value of every legal placement of one decision, judged from what its seat knows: the
search of ``pimc`` run on sampled worlds, for people (an analysis of a record, a hint in the
terminal game) rather than for play.

``pimc``'s :func:`strategies.pimc.world_table` samples ``worlds`` hidden worlds consistent with
the view (the inference and opponent model of ``matchplay``) and solves each placement in each
world; here the worlds are averaged with their weights, and the spread is kept for intervals.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from sim.core import state as K
from strategies import pimc
from strategies.catalogue import resolve

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""

MoveValues = namedtuple("MoveValues", ["means", "table", "share"])
MoveValues.__doc__ = """What :func:`move_values` returns.

means : float64[n_candidates], each placement's weighted mean over the worlds (the deciding
side's probability of winning the match; the raw differential per 305 at 3 players);
table : float64[worlds, n_candidates], its value in each world; share : float64[worlds], the
worlds' normalised weights (summing to 1).
"""


def search_params(node_limit: int) -> np.ndarray:
    """``pimc``'s parameter row for a decision's values: its defaults, ``node_limit`` turns
    per world, no prior (the values are the search's alone); read-only, as the engine's."""
    params = resolve("pimc").default_params()
    params[pimc.PARAM_NODE_LIMIT] = float(node_limit)
    params[pimc.PARAM_PRIOR_WEIGHT] = 0.0
    params.flags.writeable = False
    return params


def move_values(view, worlds: int, node_limit: int, rng: np.ndarray) -> MoveValues:
    """Each legal placement's value in ``view``'s decision.

    Parameters
    ----------
    view : PlayerView or PythonView
        The decision as its seat saw it (a sealed view: nothing hidden).
    worlds, node_limit : int
        Sampled worlds, turns searched per world (a world not solved within them is valued by
        one playout per placement).
    rng : uint64[2]
        The stream the worlds are drawn from (:func:`sim.core.rng.decision_state`); drawn from.

    Returns
    -------
    MoveValues
    """
    view = K.PlayerView(*view)._replace(params=search_params(node_limit), rng=rng)
    table, weights = pimc.world_table(view, np.int64(worlds))
    total = weights.sum()
    share = weights / total if total > 0 else np.full(weights.shape, 1.0 / len(weights))
    return MoveValues(share @ table, table, share)


def weighted_interval(values: np.ndarray, share: np.ndarray):
    """The weighted mean of per-world ``values`` with its normal 95% interval (variance
    ``sum(share**2 (v - mean)**2)``, the ratio estimator's): (mean, low, high)."""
    mean = float(share @ values)
    half = Z95 * math.sqrt(float(np.sum(share ** 2 * (values - mean) ** 2)))
    return mean, mean - half, mean + half


__all__ = ["MoveValues", "move_values", "search_params", "weighted_interval", "Z95"]
