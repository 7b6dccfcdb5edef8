"""``random``: a uniformly random legal placement.

Chooses uniformly among the distinct legal placements of ruling 4 (the two arms
of a spinner are one placement, and so are the two line sides of a lone opening
double), using the seat's decision stream.
"""

from __future__ import annotations

from core.rng import next_below
from strategies.definition import strategy


@strategy(
    name="random",
    description=(
        "Plays a uniformly random legal placement: every distinct (tile, parent, side) "
        "placement of ruling 4 is equally likely, the two arms of a spinner and the two "
        "line sides of a lone opening double counting once. It ignores the score, so it "
        "is the baseline every other strategy should beat and the policy the reference's "
        "uniform-random player is compared with."
    ),
    stochastic=True,
)
def random_placement(view):
    """Index of a uniformly drawn candidate (``0 <= i < view.n_candidates``)."""
    return next_below(view.rng, view.n_candidates)
