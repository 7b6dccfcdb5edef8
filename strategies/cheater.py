"""``cheater``: an audit strategy that sees every hand and the boneyard order.

Not a fair player. It exists to measure how much of the gap that hidden
information leaves a fair search closes: it runs ``matchplay``'s evaluation
(every candidate played out to the end of the round with the same playout
policy at every seat, the end state valued by the match-win table, plus the
same prior) on
the one true world instead of sampled ones: the real hands and the real
boneyard order (``view.hidden_hands``, ``view.hidden_boneyard``). Its only
remaining uncertainty is how the other seats will actually play.

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
from strategies.matchplay import PRIOR, playout_value, weighted_prior
from strategies.parameters import Parameter

PARAMETERS = (
    Parameter("prior_weight", 0.015, "win probability per unit of the weighted default score added to each candidate"),
    Parameter("raw_weight", 0.0, "weight of the round's raw differential per 305 raw, added to the win probability"),
    Parameter("playout_doubles", 8.0, "raw points the playout policy adds for a double (0: greedy playouts)"),
)


@kernel
def true_world_search(view, ws, values, features, saved, prior):
    """Value of every candidate on the true world plus the ``prior`` (float64[N_FEATURES]
    weights); the best row."""
    n = view.n_candidates
    prior_weight = view.params[0]
    raw_weight = view.params[1]
    double_bonus = view.params[2]
    for row in range(n):
        values[row] = 0.0
    if prior_weight != 0.0:
        weighted_prior(view, prior, prior_weight, ws, features, values)
    if view.hidden_hands.shape[0] != view.players:
        return best_row(view, values)  # not handed the hidden state: the prior alone
    for seat in range(view.players):
        saved[seat] = view.hidden_hands[seat]
    first_draw = N_TILES - view.boneyard_size
    for k in range(view.boneyard_size):
        ws.deal[first_draw + k] = view.hidden_boneyard[k]
    for row in range(n):
        values[row] += playout_value(ws, view, saved, first_draw, row, 1.0, raw_weight, double_bonus)
    return best_row(view, values)


@allocating
def choose(view):
    """Allocate the decision's scratch and run :func:`true_world_search`."""
    n = view.n_candidates
    # A writable copy of the prior, as matchplay and rollout pass it: the helpers they share
    # are compiled once, for one array type.
    return true_world_search(view, new_scratch(), np.zeros(n), np.zeros((n, N_FEATURES)),
                             np.zeros(4, dtype=np.int64), PRIOR.copy())


@strategy(
    name="cheater",
    description=(
        "AUDIT ONLY, sees hidden information: every hand and the boneyard order. Plays each "
        "candidate out on the true world (greedy plus a bonus for doubles at every seat, as "
        "matchplay's playouts) and values the end by the match-win table, plus the weighted "
        "prior (matchplay's evaluation without sampling). "
        "Refused unless the run allows hidden information (allow_hidden=True, --allow-hidden); "
        "measures how much of the information gap a fair strategy closes."
    ),
    parameters=PARAMETERS,
    uses_inference=True,
    lookahead=1,  # One playout per candidate: the world is known.
    sees_hidden=True,
)
def cheater(view):
    """Row with the best value on the true world (module docstring)."""
    return choose(view)


__all__ = ["cheater", "true_world_search", "PARAMETERS"]
