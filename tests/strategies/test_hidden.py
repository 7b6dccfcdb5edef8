"""No strategy reads hidden information.

For random mid-round states, each strategy's choice is computed, then the
hidden tiles (the other hands and the boneyard) are re-dealt at random keeping
everything the deciding seat may know (hand sizes, boneyard size, layout, its
own hand, scores, lacking values), and the choice must not change. The
decision stream starts from the same state both times, so a stochastic
strategy draws the same numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

import strategies
from tests.support.views import Table, params_for, random_tables, redeal, strategy_named

NAMES = sorted(name for name in strategies.builtin_names()
               if not strategies.resolve(name).sees_hidden) + ["doubles", "spy"]
"""Every fair built-in (all but the audit strategy ``cheater``, tested in
``tests/strategies/test_cheater.py``), the worked user strategy and the spy (it
hashes every word of its view)."""


BUDGETS = {"matchplay": {"samples": 6.0}, "pimc": {"worlds": 4.0, "node_limit": 400.0, "exact_below": 14.0, "samples": 6.0}}
"""Smaller search budgets than the defaults, by strategy: the same code reads the view (the
inference, the sampled worlds, the opponent model) at any budget, in a sixth of the time;
``pimc`` solves the smaller rounds (``exact_below`` 14) and searches as ``matchplay`` in the others."""


@pytest.mark.parametrize("name", NAMES)
def test_choice_ignores_hidden_hands_and_boneyard(name):
    generator = np.random.default_rng(77)
    info = strategy_named(name)
    params = params_for(name, **BUDGETS.get(name, {}))
    asked = 0
    for case, table, state in random_tables(generator, 40):
        view = table.view(0, params, stream=(case, 3))
        if view.n_candidates < 2:
            continue
        asked += 1
        first = table.describe(info.choose(view))
        for again in range(2):
            new_hands, new_boneyard = redeal(generator, state["hands"], state["boneyard"], 0)
            other = Table(**{**state, "hands": new_hands, "boneyard": new_boneyard})
            other_view = other.view(0, params, stream=(case, 3))
            assert other.describe(info.choose(other_view)) == first, (case, again)
    assert asked >= 15


def test_lacking_values_are_public_and_used_but_hands_are_not():
    """Same public state incl. lacking values, different hidden deal: same rollout choice."""
    hands = [[(1, 2), (2, 4), (6, 6), (0, 4)], [(0, 1), (1, 1), (2, 2), (4, 4), (0, 2)]]
    other_hands = [hands[0], [(0, 0), (1, 1), (2, 2), (4, 4), (0, 2)]]
    boneyard = [(0, 0), (0, 3), (0, 5), (0, 6), (1, 4), (1, 5), (1, 6), (2, 3), (2, 5), (3, 3),
                (3, 4), (3, 6), (4, 5), (4, 6), (5, 5), (2, 6)]
    other_boneyard = [(0, 1) if t == (0, 0) else t for t in boneyard]
    lacking = [[], [3, 6]]
    choices = set()
    for hs, by in ((hands, boneyard), (other_hands, other_boneyard)):
        table = Table(2, (3, 5), [((5, 6), 5), ((1, 3), 3)], hs, by, scores=[100, 280], lacking=lacking)
        for name in ("rollout", "defensive", "exact", "weighted"):
            view = table.view(0, params_for(name), stream=(4, 4))
            choices.add((name, table.describe(strategies.resolve(name).choose(view))))
    assert len(choices) == 4  # one choice per strategy, whatever the hidden deal
