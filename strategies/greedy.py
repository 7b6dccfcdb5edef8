"""``greedy``: the largest immediate award that would be accepted.

The award of a candidate is the raw points it scores (ruling 3), counted 0 when
the deciding entity's score plus those points would pass 305 (the event would be
discarded). Ties go to the heavier tile, then the lower tile index in
:data:`core.tiles.TILES` order, then the lower parent placement index, then a
line side before an arm. The opening counts the points of its tile alone.
"""

from __future__ import annotations

from core.state import CAND_PARENT, CAND_POINTS, CAND_SIDE, CAND_TILE, TILE_PIPS
from core.tiles import TARGET_RAW
from strategies.definition import strategy


@strategy(
    name="greedy",
    description=(
        "Plays the placement with the largest immediate award that would be accepted: "
        "the layout total it makes if that is a positive multiple of 5, counted as 0 "
        "when it would carry its side past 61 (305 raw). Ties go to the heavier tile "
        "(shedding pips that settlement would charge), then the lower tile index, the "
        "lower parent placement and a line side before an arm. Deterministic; it does "
        "not look beyond the current placement."
    ),
)
def greedy(view):
    """Index of the greedy candidate (see the module docstring for the order)."""
    score = view.scores[view.entity_of_seat[view.seat]]
    cands = view.cands
    best = 0
    best_award = -1
    best_pips = -1
    best_tile = 0
    best_parent = 0
    best_side = 0
    for index in range(view.n_candidates):
        points = cands[index, CAND_POINTS]
        award = points if score + points <= TARGET_RAW else 0
        tile = cands[index, CAND_TILE]
        pips = TILE_PIPS[tile]
        parent = cands[index, CAND_PARENT]
        side = cands[index, CAND_SIDE]
        if award != best_award:
            better = award > best_award
        elif pips != best_pips:
            better = pips > best_pips
        elif tile != best_tile:
            better = tile < best_tile
        elif parent != best_parent:
            better = parent < best_parent
        else:
            better = side < best_side
        if better:
            best = index
            best_award = award
            best_pips = pips
            best_tile = tile
            best_parent = parent
            best_side = side
    return best
