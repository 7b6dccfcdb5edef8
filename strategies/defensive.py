"""``defensive``: immediate award minus the next opponent's expected best reply.

``value = award - reply_weight * reply`` in displayed points, where ``award``
is the accepted immediate award (0 if nothing or an overshoot) and ``reply``
the expected best accepted award the next opponent can score immediately on
the layout the placement leaves (:mod:`strategies.linear` feature 9):

* the tiles it may hold are the unseen ones (28 minus own hand minus the
  layout) without any tile carrying a value it is known to lack (it drew or
  passed while such a value was open);
* it holds each of them independently with probability q = its hand size /
  the number of such tiles (1 if it could hold all of them);
* its best reply is the largest accepted award over the tiles it holds, whose
  expectation is ``sum_i r_(i) q (1 - q)^(i-1)`` over the per-tile best
  awards sorted in decreasing order;
* a placement that ends the round (last tile) or the match (exact 61) leaves
  no reply.

Ties follow ``greedy``'s order. It is ``weighted`` with ``w_award = 1``,
``w_reply = -reply_weight``.
"""

from __future__ import annotations

from strategies.linear import F_AWARD, F_REPLY, linear_strategy, weight_mapping
from strategies.parameters import Parameter

PARAMETERS = (
    Parameter("reply_weight", 1.0, "weight of the next opponent's expected best reply"),
)


MAPPING = weight_mapping({F_AWARD: 1.0}, [{F_REPLY: -1.0}])
"""Feature weights from the parameters (see :func:`strategies.linear.choose_linear`)."""


defensive = linear_strategy(
    "defensive",
    (
        "Plays the placement with the best immediate award minus the expected best immediate "
        "reply of the next opponent on the layout it leaves. The reply is estimated from the "
        "tiles that opponent may hold (unseen tiles without any value it is known to lack from "
        "its draws and passes), each held with probability hand size / such tiles, as the "
        "expected maximum of its per-tile best accepted award. Overshooting awards count 0 for "
        "both sides; ties follow greedy's order. Deterministic; uses inference; one ply of "
        "opponent reply."
    ),
    PARAMETERS, MAPPING, __name__,
)
"""Row maximising award - reply_weight * expected reply (module docstring)."""
