"""The value of every legal placement of one decision, judged from what its seat knows: the
search of ``pimc`` run on sampled worlds, for people (an analysis of a record, a hint in the
terminal game) rather than for play, with the win table's own error (:func:`table_error`).

``pimc``'s :func:`strategies.pimc.world_table` samples ``worlds`` hidden worlds consistent with
the view (the inference and opponent model of ``matchplay``) and solves each placement in each
world; here the worlds are averaged with their weights, and the spread is kept for intervals.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from core import state as K
from strategies import pimc, winprob_table
from strategies.catalogue import resolve
from strategies.matchplay import TABLE_ROW
from strategies.winprob_codes import cells_of_values

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
        The stream the worlds are drawn from (:func:`core.rng.decision_state`); drawn from.

    Returns
    -------
    MoveValues
    """
    view = K.PlayerView(*view)._replace(params=search_params(node_limit), rng=rng)
    table, weights = pimc.world_table(view, np.int64(worlds))
    total = weights.sum()
    share = weights / total if total > 0 else np.full(weights.shape, 1.0 / len(weights))
    return MoveValues(share @ table, table, share)


def weighted_interval(values: np.ndarray, share: np.ndarray, shared_se: float = 0.0):
    """The weighted mean of per-world ``values`` with its normal 95% interval (variance
    ``sum(share**2 (v - mean)**2)``, the ratio estimator's, plus ``shared_se**2``, an
    independent error every world shares such as the win table's): (mean, low, high)."""
    mean = float(share @ values)
    half = Z95 * math.sqrt(float(np.sum(share ** 2 * (values - mean) ** 2)) + shared_se ** 2)
    return mean, mean - half, mean + half


def table_error(players: int, table: np.ndarray, share: np.ndarray, played: int):
    """The win table's error of one decision's values: each solved value that is a table cell
    (:func:`strategies.winprob_codes.cells_of_values`) valued again under every shipped
    replicate table (:func:`strategies.winprob_table.replicate_tables`), the exact ones kept.

    Parameters
    ----------
    players : int
    table : float64[worlds, candidates]
        The solved values (the point table's).
    share : float64[worlds]
        The worlds' weights.
    played : int
        The played candidate.

    Returns
    -------
    loss_se, played_se, best_se : float
        Standard deviations over the replicate tables of the loss (the best move picked under
        each), of the played move's mean and of the best move's (0 at 3 players, or without
        replicates).
    looked_up : float
        The share of the values that are table cells (1 - the exact ones).
    """
    row = int(TABLE_ROW[players])
    if row < 0:
        return 0.0, 0.0, 0.0, 0.0
    cells = cells_of_values(np.asarray(winprob_table.WIN_TABLE[row]), table)
    found = cells >= 0
    replicates = winprob_table.replicate_tables()
    if replicates.shape[0] < 2:
        return 0.0, 0.0, 0.0, float(found.mean())
    flat = replicates[:, row].reshape(replicates.shape[0], -1).astype(np.float64)
    under = np.where(found[None], flat[:, np.maximum(cells, 0)], table[None])  # [R, w, c]
    means = np.einsum("w,rwc->rc", share, under)
    best = means.max(axis=1)
    played_mean = means[:, played]
    point_best = int(np.argmax(share @ table))
    return (float(np.std(best - played_mean, ddof=1)), float(np.std(played_mean, ddof=1)),
            float(np.std(means[:, point_best], ddof=1)), float(found.mean()))


__all__ = ["MoveValues", "move_values", "search_params", "table_error", "weighted_interval",
           "Z95"]
