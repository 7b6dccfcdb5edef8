"""The view a Python strategy (``compiled=False``) receives: :class:`PythonView`.

It has the fields of the compiled :class:`core.state.PlayerView`, with the
same meaning, shapes and candidate order, so one function body can run either
way. Every array is read-only, except ``rng``: the seat's own decision stream
``[key, counter]``, which the strategy may advance with
:func:`strategies.toolkit.next_below` / ``next_unit`` (the engine keeps the
counter where the strategy left it). In an engine run the arrays are views of the batch of
decisions in flight (:mod:`sim.engine.python_seats`), valid while the strategy runs: copy what
you keep from one decision to the next. A batch strategy (:class:`BatchView`) gets them all at once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class PythonView(NamedTuple):
    """What a Python strategy may know when it chooses (see :class:`core.state.PlayerView`).

    Attributes
    ----------
    seat, players : int
    hand : int
        Tile bitmask of the seat's own hand.
    entity_of_seat : int64[players]
    scores : int64[4]
        Raw score per entity (0 past the last entity).
    hand_sizes, lacking : int64[4]
        Per seat (0 past the last seat).
    boneyard_size, played, total, open_values, n_nodes : int
    nodes : int64[n_nodes, NODE_FIELDS]
    open_count : int64[7]
    n_open_nodes : int
    open_nodes : int64[n_open_nodes]
    n_candidates : int
    cands : int64[n_candidates, CAND_FIELDS]
        The distinct legal placements, in the engine's order; return a row.
    params : float64[P]
    rng : uint64[2]
        The seat's decision stream (writable).
    n_history : int
    history : int64[n_history, HISTORY_FIELDS]
        The round's public actions (seat, kind, placed tile or -1, open values).
    hidden_hands, hidden_boneyard : int64[0]
        Always empty: Python strategies never see hidden information.
    """

    seat: int
    players: int
    hand: int
    entity_of_seat: np.ndarray
    scores: np.ndarray
    hand_sizes: np.ndarray
    lacking: np.ndarray
    boneyard_size: int
    played: int
    total: int
    open_values: int
    n_nodes: int
    nodes: np.ndarray
    open_count: np.ndarray
    n_open_nodes: int
    open_nodes: np.ndarray
    n_candidates: int
    cands: np.ndarray
    params: np.ndarray
    rng: np.ndarray
    n_history: int
    history: np.ndarray
    hidden_hands: np.ndarray
    hidden_boneyard: np.ndarray


def frozen(array: np.ndarray) -> np.ndarray:
    """A read-only copy of ``array``."""
    copy = array.copy()  # the fastest copy; a Python seat builds a dozen per decision
    copy.setflags(write=False)
    return copy


class BatchView(NamedTuple):
    """Many decisions at once, for a batch strategy (``@strategy(compiled=False, batch=True)``):
    :class:`PythonView`'s fields with a leading axis of ``n`` decisions (row ``i`` is decision
    ``i``'s), the function returns ``n`` rows of ``cands``.

    Attributes
    ----------
    seat, hand, boneyard_size, played, total, open_values, n_nodes, n_open_nodes, n_candidates,
    n_history : int64[n]
    players : int
    entity_of_seat : int64[players]
    scores, hand_sizes, lacking : int64[n, 4]
    nodes : int64[n, N, NODE_FIELDS]
        Decision ``i``'s layout in rows ``0 .. n_nodes[i] - 1`` (``N`` is the largest ``n_nodes``
        of the batch); the rows past it belong to no decision: mask them with the counts, as
        for ``open_nodes``, ``cands`` and ``history``.
    open_count : int64[n, 7]
    open_nodes : int64[n, N]
    cands : int64[n, C, CAND_FIELDS]
        Decision ``i``'s candidates in rows ``0 .. n_candidates[i] - 1``, in the engine's order.
    params : float64[n, P]
        Each decision's seat's parameters.
    rng : uint64[n, 2]
        Each decision's stream (writable: advance ``rng[i]`` as a view's ``rng``).
    history : int64[n, H, HISTORY_FIELDS]
        Written only for a strategy that reads it (its code loads ``history`` or ``n_history``,
        or it declares ``reads_history=True``).
    hidden_hands, hidden_boneyard : int64[0]
        Always empty.

    Every array is read-only except ``rng``, and valid while the function runs: the engine
    reuses them for the next batch (copy what you keep).
    """

    seat: np.ndarray
    players: int
    hand: np.ndarray
    entity_of_seat: np.ndarray
    scores: np.ndarray
    hand_sizes: np.ndarray
    lacking: np.ndarray
    boneyard_size: np.ndarray
    played: np.ndarray
    total: np.ndarray
    open_values: np.ndarray
    n_nodes: np.ndarray
    nodes: np.ndarray
    open_count: np.ndarray
    n_open_nodes: np.ndarray
    open_nodes: np.ndarray
    n_candidates: np.ndarray
    cands: np.ndarray
    params: np.ndarray
    rng: np.ndarray
    n_history: np.ndarray
    history: np.ndarray
    hidden_hands: np.ndarray
    hidden_boneyard: np.ndarray


def batch_of_one(view: PythonView) -> BatchView:
    """The :class:`BatchView` of one decision (a batch strategy asked where a single view is at
    hand: a bridge, the human game's hint, a sealed seat). Its ``rng`` row shares memory with
    ``view.rng``: what the strategy draws advances the view's stream."""
    def one(value):
        array = np.array([value], dtype=np.int64)
        array.setflags(write=False)
        return array

    def row(array):
        out = np.asarray(array)[None].copy()
        out.setflags(write=False)
        return out

    return BatchView(
        seat=one(view.seat), players=int(view.players), hand=one(view.hand),
        entity_of_seat=view.entity_of_seat, scores=row(view.scores),
        hand_sizes=row(view.hand_sizes), lacking=row(view.lacking),
        boneyard_size=one(view.boneyard_size), played=one(view.played), total=one(view.total),
        open_values=one(view.open_values), n_nodes=one(view.n_nodes), nodes=row(view.nodes),
        open_count=row(view.open_count), n_open_nodes=one(view.n_open_nodes),
        open_nodes=row(view.open_nodes), n_candidates=one(view.n_candidates),
        cands=row(view.cands), params=row(view.params),
        rng=view.rng[None], n_history=one(view.n_history), history=row(view.history),
        hidden_hands=view.hidden_hands, hidden_boneyard=view.hidden_boneyard,
    )


def views_of(batch: BatchView) -> list[PythonView]:
    """Each decision of ``batch`` as the :class:`PythonView` a per-view strategy gets (per-view code
    run on a batch). Each view's ``rng`` is its row of ``batch.rng``: draws advance the batch's."""
    views = []
    for i in range(len(batch.seat)):
        n_nodes, n_open = int(batch.n_nodes[i]), int(batch.n_open_nodes[i])
        count, n_history = int(batch.n_candidates[i]), int(batch.n_history[i])
        views.append(PythonView(
            int(batch.seat[i]), batch.players, int(batch.hand[i]), batch.entity_of_seat,
            batch.scores[i], batch.hand_sizes[i], batch.lacking[i], int(batch.boneyard_size[i]),
            int(batch.played[i]), int(batch.total[i]), int(batch.open_values[i]), n_nodes,
            batch.nodes[i, :n_nodes], batch.open_count[i], n_open, batch.open_nodes[i, :n_open],
            count, batch.cands[i, :count], batch.params[i], batch.rng[i], n_history,
            batch.history[i, :n_history], batch.hidden_hands, batch.hidden_boneyard))
    return views
