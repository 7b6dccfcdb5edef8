"""``weighted``: a linear strategy over documented move features.

Plays the candidate maximising ``sum(w[f] * feature[f])`` over the 13
features of :mod:`strategies.linear` (award, scores, overshoot, exact, gap,
turns, pips, double, doubles_kept, reply, opp_exact, open_unseen,
own_playable; see that module for each definition and unit). The weights are
this strategy's parameters ``w_<feature>``, one float per feature, read from
the seat's parameter row at every decision, so a sweep over weight vectors
runs on one compiled kernel::

    import sim
    from strategies.weighted import weights
    frame = sim.simulate(2, ["weighted", "greedy"], 2000, seed=1,
                         params=[weights(award=1.0, reply=-0.5), None])

Exact ties follow ``greedy``'s order (larger accepted award, heavier tile,
lower tile index, lower parent, line before arm).

The other heuristics as weight vectors (:data:`PRESETS`; the first three
reproduce the named strategy move for move, which ``tests`` check):

``greedy``     ``award = 1`` (ties: heavier tile, as greedy).
``heavy``      ``award = 5, pips = 1`` (award is in displayed points: x5 is raw).
``exact``      ``exact = 100, turns = -1, opp_exact = -30``.
``defensive``  ``award = 1, reply = -1``.

The defaults (:data:`DEFAULT_WEIGHTS`) are a hand-rounded vector from early
sweeps against ``greedy`` whose code is not shipped, so they are a starting
point, not a result; in the units of each feature:

``award 0.5, exact 100, turns -0.8, pips 0.1, double 2.5, reply -1.5,
opp_exact -30, open_unseen -0.2, own_playable 0.5`` (others 0).

The reproducible tuning is ``five-up tune`` (:mod:`experiments.tools.tune`: CMA-ES on
duplicate deals with a held-out validation). Its shipped result is the named
variant ``weighted_tuned`` below; the command that made it and its validation
figures are in :mod:`strategies.weighted_tuned_table` (and docs/results/tuning).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from strategies.definition import variant
from strategies.linear import (
    FEATURE_DESCRIPTIONS,
    FEATURE_NAMES,
    IDENTITY_MAPPING,
    N_FEATURES,
    linear_strategy,
)
from strategies.parameters import Parameter
from strategies.weighted_tuned_table import TUNED_PARAMETERS

PRESETS = {
    "greedy": {"award": 1.0},
    "heavy": {"award": 5.0, "pips": 1.0},
    "exact": {"exact": 100.0, "turns": -1.0, "opp_exact": -30.0},
    "defensive": {"award": 1.0, "reply": -1.0},
}
"""Weight vectors (feature name -> weight, others 0) approximating the other built-ins."""

DEFAULT_WEIGHTS = {
    "award": 0.5,
    "exact": 100.0,
    "turns": -0.8,
    "pips": 0.1,
    "double": 2.5,
    "reply": -1.5,
    "opp_exact": -30.0,
    "open_unseen": -0.2,
    "own_playable": 0.5,
}
"""The default vector, tuned against ``greedy`` (see the module docstring)."""

PARAMETERS = tuple(
    Parameter(f"w_{name}", float(DEFAULT_WEIGHTS.get(name, 0.0)), f"weight of: {text}")
    for name, text in zip(FEATURE_NAMES, FEATURE_DESCRIPTIONS)
)


def weights(**by_feature: float) -> np.ndarray:
    """float64[N_FEATURES] weight vector from feature names (others 0).

    ``weights(award=1.0)`` is the greedy-like vector; unknown names raise ValueError.
    """
    vector = np.zeros(N_FEATURES, dtype=np.float64)
    for name, value in by_feature.items():
        if name not in FEATURE_NAMES:
            raise ValueError(f"unknown feature {name!r} (known: {', '.join(FEATURE_NAMES)})")
        vector[FEATURE_NAMES.index(name)] = float(value)
    return vector


def preset(name: str) -> np.ndarray:
    """The weight vector of :data:`PRESETS` ``name``."""
    return weights(**PRESETS[name])


weighted = linear_strategy(
    "weighted",
    (
        "A linear strategy: plays the placement maximising a weighted sum of move features "
        "(accepted award, scores, overshoot, exact 61 hit, gap to 61 after, expected turns to "
        "finish, pips shed, double played, doubles kept, the next opponent's expected best reply "
        "and chance of an exact hit, unseen tiles matching the open values, own playable tiles "
        "after). The weights are its parameters w_<feature>, one float per feature, so "
        "tournaments sweep weight vectors without recompiling; greedy, heavy, exact and "
        "defensive are special weight vectors. Ties follow greedy's order. Deterministic."
    ),
    PARAMETERS, IDENTITY_MAPPING, __name__,
)
"""Row maximising the weighted feature sum (weights = ``view.params[:N_FEATURES]``)."""


# The tuned vector is a named variant of the same function: it shares weighted's compiled slot
# (one kernel for both) and enters every run by its name.
weighted_tuned = replace(
    variant(weighted, name="weighted_tuned", **TUNED_PARAMETERS),
    description=(
        "weighted (the same linear strategy over move features, the same compiled code) with "
        "the weights tuned by CMA-ES on duplicate deals against default weighted (five-up "
        "tune --ship; the vector, the command that made it and its held-out validation are in "
        "strategies/weighted_tuned_table.py). Ties follow greedy's order. Deterministic."
    ),
)
"""``weighted`` with :data:`strategies.weighted_tuned_table.TUNED_PARAMETERS` (``five-up tune
--ship``)."""
