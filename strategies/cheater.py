"""``cheater``: an audit strategy that sees every hand and the boneyard order.

Not a fair player. It exists to measure how much of the gap that hidden
information leaves a fair search closes: it runs ``pimc``'s search on the one
true world instead of sampled ones: the real hands and the real boneyard order
(``view.hidden_hands``, ``view.hidden_boneyard``), solved by the
perfect-information round solver (:func:`strategies.perfect_solver.solve_world`:
alpha-beta to the round's end within ``node_limit`` turns, round ends valued by
the match-win table, leaves past the budget by ``matchplay``'s playouts), plus
the same prior. Its only remaining uncertainty is how the other seats will
actually play. ``node_limit`` 1 is the first iteration alone: one playout per
candidate on the true world (``matchplay``'s evaluation without sampling, the
ceiling of the ladders before the solver).

It is declared ``sees_hidden=True``: the engine hands the hidden arrays to
its slot alone, and every run refuses it unless it passes
``allow_hidden=True`` (``--allow-hidden`` on the command line).
"""

from __future__ import annotations

import numpy as np

from sim.core.jit import kernel
from sim.tiles import N_TILES
from strategies.definition import strategy
from strategies.linear import N_FEATURES
from strategies.lookahead import allocating, best_row, new_scratch
from strategies.matchplay import PLAYOUT_DOUBLES, PRIOR, PRIOR_WEIGHT, RAW_WEIGHT, weighted_prior
from strategies.parameters import Parameter
from strategies.perfect_solver import (NO_DEPTH_LIMIT, SolveSettings, load_world, new_solver_scratch,
                                       solve_world)

MATCH_VALUE = 1.0
"""Round ends valued by the win table (the raw differential at 3 players, as ``matchplay``)."""

PARAMETERS = (
    Parameter("node_limit", 2000.0, "turns the search may visit (1: one playout per candidate)"),
    PRIOR_WEIGHT,
    RAW_WEIGHT,
    PLAYOUT_DOUBLES,
)


@kernel
def true_world_search(view, ws, scratch, values, solved, features, prior):
    """Value of every candidate on the true world (solved) plus the ``prior``
    (float64[N_FEATURES] weights); the best row."""
    n = view.n_candidates
    node_limit = max(np.int64(view.params[0]), np.int64(1))
    prior_weight = view.params[1]
    raw_weight = view.params[2]
    double_bonus = view.params[3]
    for row in range(n):
        values[row] = 0.0
    if prior_weight != 0.0:
        weighted_prior(view, prior, prior_weight, ws, features, values)
    if view.hidden_hands.shape[0] != view.players:
        return best_row(view, values)  # not handed the hidden state: the prior alone
    for seat in range(view.players):
        ws.hands[seat] = view.hidden_hands[seat]
    first_draw = N_TILES - view.boneyard_size
    for k in range(view.boneyard_size):
        ws.deal[first_draw + k] = view.hidden_boneyard[k]
    load_world(ws, view)
    settings = SolveSettings(node_limit, np.int64(NO_DEPTH_LIMIT), double_bonus, MATCH_VALUE, raw_weight)
    solve_world(ws, view, scratch, settings, np.int64(first_draw), view.seat, solved)
    for row in range(n):
        values[row] += solved[row]
    return best_row(view, values)


@allocating
def choose(view):
    """Allocate the decision's scratch and run :func:`true_world_search`."""
    n = view.n_candidates
    # A writable copy of the prior, as matchplay and rollout pass it: the helpers they share
    # are compiled once, for one array type.
    return true_world_search(view, new_scratch(), new_solver_scratch(), np.zeros(n), np.zeros(max(n, 1)),
                             np.zeros((n, N_FEATURES)), PRIOR.copy())


@strategy(
    name="cheater",
    description=(
        "AUDIT ONLY, sees hidden information: every hand and the boneyard order. Solves the "
        "rest of the round on the true world by alpha-beta search (pimc's search on the one "
        "true world: node_limit turns, round ends valued by the match-win table, leaves past "
        "the budget by matchplay's playouts), plus the weighted prior. "
        "Refused unless the run allows hidden information (allow_hidden=True, --allow-hidden); "
        "measures how much of the information gap a fair strategy closes."
    ),
    parameters=PARAMETERS,
    uses_inference=True,
    lookahead=1,  # One world: the true one.
    sees_hidden=True,
)
def cheater(view):
    """Row with the best value on the true world (module docstring)."""
    return choose(view)


__all__ = ["cheater", "true_world_search", "PARAMETERS"]
