"""The view a Python strategy (``compiled=False``) receives: :class:`PythonView`.

It has the fields of the compiled :class:`sim.core.state.PlayerView`, with the
same meaning, shapes and candidate order, so one function body can run either
way. Every array is a copy marked read-only, except ``rng``: the seat's own
decision stream ``[key, counter]``, which the strategy may advance with
:func:`strategies.toolkit.next_below` / ``next_unit`` (the engine keeps the
counter where the strategy left it).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class PythonView(NamedTuple):
    """What a Python strategy may know when it chooses (see :class:`sim.core.state.PlayerView`).

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
