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

**What the ceiling is made of** (``order_known`` 0): the variant
``cheater[order_known=0]`` knows every hand and which tiles the boneyard holds,
but not their order. It solves ``orders`` worlds, each the true hands with the
boneyard's tiles in a random order drawn from its decision stream, and plays the
best mean (plus the prior), as ``pimc`` votes. Against ``rollout`` it tells how
much of ``cheater``'s edge the hidden *hands* are worth, and how much the draw
order adds. At 2 players the unseen tiles are the other hand and the boneyard, so
knowing the boneyard's tiles is knowing the other hand.

It is declared ``sees_hidden=True``: the engine hands the hidden arrays to
its slot alone, and every run refuses it unless it passes
``allow_hidden=True`` (``--allow-hidden`` on the command line).
"""

from __future__ import annotations

import numpy as np

from core.jit import kernel
from core.tiles import N_TILES
from strategies.definition import strategy
from strategies.linear import N_FEATURES
from strategies.lookahead import allocating, best_row, deal_boneyard, new_scratch
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
    Parameter("order_known", 1.0, "1: the true boneyard order; 0: the boneyard's true tiles in random orders (the hands' worth alone)"),
    Parameter("orders", 8.0, "with order_known 0: boneyard orders solved per decision, values averaged"),
)

PARAM_NODE_LIMIT = 0
PARAM_PRIOR_WEIGHT = 1
PARAM_RAW_WEIGHT = 2
PARAM_PLAYOUT_DOUBLES = 3
PARAM_ORDER_KNOWN = 4
PARAM_ORDERS = 5


@kernel
def true_world_search(view, ws, scratch, values, solved, features, prior):
    """Value of every candidate on the true world (solved) plus the ``prior``
    (float64[N_FEATURES] weights); the best row. With ``order_known`` 0, the mean over
    ``orders`` worlds of the true hands and the boneyard's tiles shuffled (module docstring)."""
    n = view.n_candidates
    params = view.params
    node_limit = max(np.int64(params[PARAM_NODE_LIMIT]), np.int64(1))
    prior_weight = params[PARAM_PRIOR_WEIGHT]
    raw_weight = params[PARAM_RAW_WEIGHT]
    double_bonus = params[PARAM_PLAYOUT_DOUBLES]
    orders = np.int64(1)
    shuffled = params[PARAM_ORDER_KNOWN] == 0.0
    if shuffled:
        orders = max(np.int64(params[PARAM_ORDERS]), np.int64(1))
    for row in range(n):
        values[row] = 0.0
    if prior_weight != 0.0:
        weighted_prior(view, prior, prior_weight, ws, features, values)
    if view.hidden_hands.shape[0] != view.players:
        return best_row(view, values)  # not handed the hidden state: the prior alone
    first_draw = N_TILES - view.boneyard_size
    boneyard_set = np.int64(0)  # the boneyard's tiles, read only when their order is not known
    if shuffled:
        for k in range(view.boneyard_size):
            boneyard_set |= np.int64(1) << view.hidden_boneyard[k]
    settings = SolveSettings(node_limit, np.int64(NO_DEPTH_LIMIT), double_bonus, MATCH_VALUE, raw_weight)
    for _ in range(orders):
        for seat in range(view.players):
            ws.hands[seat] = view.hidden_hands[seat]
        if not shuffled:
            for k in range(view.boneyard_size):
                ws.deal[first_draw + k] = view.hidden_boneyard[k]
        else:
            # From the boneyard's set (in index order, then shuffled from the stream): the
            # worlds never depend on its true order.
            deal_boneyard(ws, boneyard_set, view.rng)
        load_world(ws, view)
        solve_world(ws, view, scratch, settings, np.int64(first_draw), view.seat, solved)
        for row in range(n):
            values[row] += solved[row] / orders
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
        "measures how much of the information gap a fair strategy closes. With order_known=0 "
        "it knows the hands and the boneyard's tiles but not their order (orders random "
        "orders from its decision stream, values averaged): what the hands alone are worth."
    ),
    parameters=PARAMETERS,
    stochastic=True,  # with order_known=0 (its default play draws nothing)
    uses_inference=True,
    lookahead=1,  # One world: the true one (order_known=0: ``orders`` of them).
    sees_hidden=True,
)
def cheater(view):
    """Row with the best value on the true world (module docstring)."""
    return choose(view)


__all__ = ["cheater", "true_world_search", "PARAMETERS", "PARAM_ORDER_KNOWN", "PARAM_ORDERS"]
