"""Summary-only runs: each shard reduced to additive quantities, merged as shards finish.

With an aggregate function each shard's frame is reduced on the worker to a
small JSON-ready dict of additive quantities (counts, sums, sums of squares,
histograms as ``{value: count}``); the driver keeps only the running sum
(:func:`merge_aggregates`), so memory does not grow with the match count.
Integers make the merged result independent of completion order.
:func:`match_aggregate` does this for engine frames; the summary table with
intervals is :func:`experiments.stats.summary_table`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def merge_aggregates(a, b):
    """Sum two aggregates: numbers add, dicts merge by key, lists elementwise, equal strings stay."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        return {key: merge_aggregates(a.get(key), b.get(key)) for key in {**a, **b}}
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            raise ValueError("cannot merge lists of different lengths")
        return [merge_aggregates(x, y) for x, y in zip(a, b)]
    if isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
        if a != b:
            raise ValueError(f"cannot merge {a!r} and {b!r}")
        return a
    return a + b


_NOT_SUMMED = {"match", "seed", "players", "winner", "first_leader"}
_HISTOGRAMS = ("winner", "first_leader", "rounds")


def _histogram(values) -> dict:
    keys, counts = np.unique(np.asarray(values), return_counts=True)
    return {str(k): int(c) for k, c in zip(keys.tolist(), counts.tolist())}


def match_aggregate(frame: pd.DataFrame) -> dict:
    """Additive summary of an engine frame (:func:`sim.simulate` columns).

    Returns
    -------
    dict
        ``matches``; ``sum`` and ``sum_sq`` (exact integers) of every integer
        column except the identifiers (``match, seed, players, winner,
        first_leader``); ``hist``: ``{value: count}`` of ``winner`` (entity,
        -1 unfinished), ``first_leader``, ``rounds``, every ``score_<e>`` and
        ``first_opening``.
    """
    sums, squares = {}, {}
    for column in frame.columns:
        series = frame[column]
        if column in _NOT_SUMMED or not pd.api.types.is_integer_dtype(series.dtype):
            continue
        x = series.to_numpy(dtype=np.int64)
        sums[column] = int(x.sum())
        squares[column] = int(np.dot(x, x))
    hist = {c: _histogram(frame[c].to_numpy()) for c in _HISTOGRAMS if c in frame.columns}
    for column in frame.columns:
        if column.startswith("score_"):
            hist[column] = _histogram(frame[column].to_numpy())
    if "first_opening" in frame.columns:
        counts = frame["first_opening"].astype(str).value_counts()
        hist["first_opening"] = {str(k): int(v) for k, v in counts.items()}
    return {"matches": len(frame), "sum": sums, "sum_sq": squares, "hist": hist}
