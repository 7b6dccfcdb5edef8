"""``exact``: value every placement by what it does toward exactly 305 raw (61 displayed).

Heuristic (a fixed weight vector of :mod:`strategies.linear`'s features):

``value = exact_bonus * exact - turns_weight * turns - deny_weight * opp_exact``

* ``exact``: 1 if the placement lands exactly on 305, which wins at once; it
  always comes first (an exact hit also makes ``turns`` 0 and the opponent's
  reply moot).
* ``turns``: the expected number of own turns still needed to land exactly on
  305 from the score the placement leaves (:data:`strategies.turns_table.TURNS_TO_FINISH`).
  An award that would overshoot is worth nothing (the event is discarded). The
  table encodes which gaps are hard to close: from a gap of 5 or 10 raw only
  an award of exactly that size (or a small settlement) finishes, so such a
  gap is about as far in turns as 15-20 (5.9 and 6.2 turns against 8.1 and
  9.3), and stopping there is barely better than not scoring; far from the
  end the table falls by about 1.3 turns per 5 raw, so ``exact`` then plays
  like ``greedy``.
* ``opp_exact``: near the end, the probability that the next opponent can
  land exactly on 305 with its immediate reply on the layout this placement
  leaves, from the tiles it may hold (unseen, not carrying a value it is
  known to lack), each held with probability hand size / holdable tiles.
  It is nonzero only when that opponent is within about 60 raw of 305.

Exact ties (typically several placements leaving the same score with no
threat) follow ``greedy``'s order: larger award, heavier tile first.
"""

from __future__ import annotations

from strategies.linear import F_EXACT, F_OPP_EXACT, F_TURNS, linear_strategy, weight_mapping
from strategies.parameters import Parameter

PARAMETERS = (
    Parameter("turns_weight", 1.0, "weight of the expected own turns still needed to hit 61"),
    Parameter("deny_weight", 30.0, "turns a certain exact hit by the next opponent is worth"),
    Parameter("exact_bonus", 100.0, "bonus for landing exactly on 61"),
)


MAPPING = weight_mapping({}, [{F_TURNS: -1.0}, {F_OPP_EXACT: -1.0}, {F_EXACT: 1.0}])
"""Feature weights from the parameters (see :func:`strategies.linear.choose_linear`)."""


exact = linear_strategy(
    "exact",
    (
        "Overshoot-aware: values each placement by what it does toward exactly 61. It lands "
        "exactly on 61 whenever it can; otherwise it minimises the expected number of own turns "
        "still needed to hit 61 exactly from the score the move leaves (a table built from how "
        "often each award size is available per turn, so gaps of 5 or 10 that only one award "
        "size can close count as hard, and overshooting awards count as nothing), and near the "
        "end it subtracts deny_weight times the probability that the next opponent can land "
        "exactly on 61 with its reply, estimated from the tiles that opponent may hold. Ties "
        "follow greedy's order. Deterministic; uses inference about the next opponent's tiles."
    ),
    PARAMETERS, MAPPING, __name__,
)
"""Row of the best candidate by the exact-61 value (module docstring)."""
