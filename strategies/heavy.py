"""``heavy``: shed the heaviest tiles, scoring when it pays.

Each candidate is valued ``award + pip_weight * pips`` in raw points: the
accepted immediate award (0 if the placement scores nothing or would pass
305) plus the pips of the tile played, which leave the hand and so can no
longer be credited to an opponent in a domino or blocked settlement. With the
default ``pip_weight = 1`` a pip shed is worth a raw point scored: a 6-6
(12 pips) that scores nothing beats a 0-1 that scores 10 (1 + 10 = 11), but
not a 2-3 that scores 10 (5 + 10 = 15). Exact ties follow ``greedy``'s order
(larger accepted award, heavier tile, lower tile index, lower parent, line
before arm). It is ``weighted`` with ``w_award = 5`` (award is in displayed
points there) and ``w_pips = pip_weight``, all other weights 0.
"""

from __future__ import annotations

from core.state import CAND_POINTS, CAND_TILE, TILE_PIPS
from core.tiles import TARGET_RAW
from strategies.lookahead import greedy_prefers
from strategies.parameters import Parameter
from strategies.definition import strategy

PARAMETERS = (
    Parameter("pip_weight", 1.0, "raw points one pip shed is worth, against the immediate award"),
)


@strategy(
    name="heavy",
    description=(
        "Sheds the heaviest tiles first to limit settlement exposure, scoring when it pays: "
        "each placement is worth its accepted immediate award in raw points (0 if it scores "
        "nothing or would pass 61) plus pip_weight times the pips of the tile played "
        "(default 1: a pip shed is worth a raw point scored). Ties follow greedy's order. "
        "Deterministic, no inference, no lookahead; equals weighted with w_award=5, w_pips=pip_weight."
    ),
    parameters=PARAMETERS,
)
def heavy(view):
    """Row maximising ``award + pip_weight * pips`` (ties in greedy's order)."""
    score = view.scores[view.entity_of_seat[view.seat]]
    pip_weight = view.params[0]
    cands = view.cands
    best = 0
    best_value = 0.0
    for row in range(view.n_candidates):
        points = cands[row, CAND_POINTS]
        award = points if score + points <= TARGET_RAW else 0
        value = award + pip_weight * TILE_PIPS[cands[row, CAND_TILE]]
        if row == 0 or value > best_value or (
            value == best_value and greedy_prefers(view, score, row, best)
        ):
            best = row
            best_value = value
    return best
