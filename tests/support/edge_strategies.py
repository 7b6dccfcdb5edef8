"""A user's strategy module: imported by the tests as it is, and written to ``tmp_path`` as
``five_up_plugin_edge.py`` (:data:`tests.support.plugins.EDGE_SOURCE`) for the command line."""

import strategies
from core.state import CAND_POINTS


@strategies.strategy(name="edge", parameters={"bonus": 8.0},
                     description="The candidate with the most points, the first on ties.")
def edge(view):
    best = 0
    best_points = -1
    for row in range(view.n_candidates):
        points = view.cands[row, CAND_POINTS]
        if points > best_points:
            best = row
            best_points = points
    return best


not_a_strategy = 42


@strategies.strategy(name="greedy", compiled=False,
                     description="Not the built-in greedy: the first candidate.")
def fake_greedy(view):
    return 0


edge_renamed = strategies.variant(edge, name="edge", bonus=3.0)


@strategies.strategy(name="boom", compiled=False, description="Raises on its first decision.")
def boom(view):
    raise ZeroDivisionError("boom at the first decision")
