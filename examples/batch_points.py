"""A batch strategy: one NumPy call chooses for every decision waiting on it.

``most_points`` plays the first candidate that scores the most placement points, for a whole
:class:`strategies.python_view.BatchView` at once; ``most_points_one`` is the same rule one view
at a time (the two play the same matches). Run it::

    five-up tournament --players 2 --matches 200 --seed 1 --out t \\
        --strategies examples/batch_points.py:most_points,greedy
"""

import numpy as np

import strategies
from core.state import CAND_POINTS


@strategies.strategy(compiled=False, batch=True)
def most_points(view):
    """The first candidate scoring the most placement points (a batch of decisions)."""
    rows = np.arange(view.cands.shape[1])
    points = np.where(rows < view.n_candidates[:, None], view.cands[:, :, CAND_POINTS], -1)
    return points.argmax(axis=1)


@strategies.strategy(compiled=False)
def most_points_one(view):
    """The first candidate scoring the most placement points (one decision)."""
    return int(np.argmax(view.cands[:, CAND_POINTS]))
