"""A worked example of a Python user strategy: ``tile_table`` (a lookup-table policy).

A Python strategy (``compiled=False``) is a plain function: it may use any
library, read files, keep caches, call a model. It gets a read-only
:class:`strategies.python_view.PythonView` (the fields of the compiled
:class:`core.state.PlayerView` as NumPy arrays and ints) and returns the
row of ``view.cands`` it plays. The engine plays every compiled seat at full
speed and stops at a Python seat's decisions to ask it, so a Python
strategy runs at Python speed: thousands of matches, not millions.

The policy: every placement is worth its accepted immediate award (raw
points, 0 if it scores nothing or would carry the side past 61) plus
``table_weight`` times a per-tile preference looked up in :data:`TILE_TABLE`
(tile name -> raw points). The table here is hand-made (heavy tiles and
doubles are worth shedding early: pips, plus 5 for a double); replace it
with one fitted from your own data, e.g. read from a CSV at import time.
Exact ties go to the first row (``numpy.argmax``).

Use it::

    import sim
    from examples.table_strategy import tile_table

    frame = sim.simulate(2, [tile_table, "greedy"], 200, seed=1)

    five-up tournament --players 2 --matches 200 --seed 1 --duplicate --out runs/table \\
        --strategies examples/table_strategy.py:tile_table,greedy,heavy
"""

from __future__ import annotations

import numpy as np

import strategies
from strategies import toolkit as tk

TILE_TABLE = {tk.tile_name(tile): float(tk.TILE_PIPS[tile] + 5 * tk.TILE_IS_DOUBLE[tile])
              for tile in range(tk.N_TILES)}
"""Preference of each tile, by name (``"0-0"`` .. ``"6-6"``), in raw points."""

_BY_INDEX = np.array([TILE_TABLE[tk.tile_name(tile)] for tile in range(tk.N_TILES)])
"""The table by tile index (the ``cands`` tile column)."""


@strategies.strategy(
    name="tile_table",
    description=(
        "Example Python strategy (examples/table_strategy.py): accepted immediate award plus "
        "table_weight times a per-tile preference read from a lookup table (pips, plus 5 for a "
        "double). Runs as a Python seat. Deterministic, no inference, no lookahead."
    ),
    parameters={"table_weight": (1.0, "weight of the tile table (raw points per table unit)")},
    compiled=False,
)
def tile_table(view):
    """Row maximising award + table_weight * TILE_TABLE[tile] (first row on ties)."""
    cands = view.cands[: view.n_candidates]
    points = cands[:, tk.CAND_POINTS]
    score = view.scores[view.entity_of_seat[view.seat]]
    award = np.where(score + points <= tk.TARGET_RAW, points, 0)
    value = award + view.params[0] * _BY_INDEX[cands[:, tk.CAND_TILE]]
    return int(np.argmax(value))
