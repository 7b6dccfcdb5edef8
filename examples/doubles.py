"""A worked example of a compiled user strategy: ``doubles`` (play doubles early).

This file is the template to copy: one decorated function, nothing
registered anywhere, nothing under ``sim/`` or ``strategies/`` edited.

The idea: a double matches one value only (every other tile matches two),
so it is the tile most likely to be stranded in hand, forcing draws and
paying for its pips in settlement. ``doubles`` values each legal placement
at its accepted immediate award in raw points (what ``greedy`` maximises)
plus ``double_bonus`` raw points if the tile is a double, and breaks exact
ties in greedy's order.

Use it
------
From Python, the :class:`strategies.Strategy` object goes wherever a
strategy name does::

    import sim
    from examples.doubles import doubles          # or strategies.resolve("examples/doubles.py:doubles")

    frame = sim.simulate(2, [doubles, "greedy"], 10_000, seed=1)
    print(frame.winner.value_counts(normalize=True))

    # another parameter value, no recompilation:
    frame = sim.simulate(2, [doubles, "greedy"], 10_000, seed=1, params=[{"double_bonus": 12.0}, None])

From the command line, name it ``FILE.py:NAME`` (or ``MODULE:NAME`` when
the module is importable), with variants as ``NAME[k=v]``::

    five-up tournament --players 2 --matches 2000 --seed 1 --duplicate \\
        --out runs/doubles \\
        --strategies 'examples/doubles.py:doubles,examples/doubles.py:doubles[double_bonus=20],greedy'

The first run compiles an engine kernel holding it (15-60 s); later runs
load it from the cache (``~/.cache/exact61-five-up/kernels``). A dask
backend's workers import this file by its path, so it must be readable
there. ``tests/strategies/test_examples.py`` plays it and replays its records through
the rules reference (:func:`sim.verify.verify_record`).

How it is written
-----------------
``@strategies.strategy`` compiles the function with Numba (nopython mode,
inlined into the engine's turn loop, so it must not allocate arrays) and
returns a Strategy. The function reads only its ``view``
(:class:`core.state.PlayerView`): the candidates ``view.cands`` (one row
per distinct legal placement: tile, parent, side, joined value, raw points)
and its parameters ``view.params`` in the order of ``parameters=``. It
returns the row it plays. :mod:`strategies.toolkit` has the award, the
tables and the tie-break.
"""

from __future__ import annotations

import strategies
from strategies import toolkit as tk


@strategies.strategy(
    name="doubles",
    description=(
        "Example user strategy (examples/doubles.py): plays doubles early, since a double "
        "matches a single value and is the tile most likely to be stranded in hand. Each "
        "placement is worth its accepted immediate award in raw points plus double_bonus raw "
        "points if the tile is a double; ties follow greedy's order. Deterministic, no "
        "inference, no lookahead."
    ),
    parameters={"double_bonus": (8.0, "raw points added for playing a double")},
    stochastic=False,
    uses_inference=False,
    lookahead=0,
)
def doubles(view):
    """Row maximising award + double_bonus * is_double (ties in greedy's order)."""
    score = tk.own_score(view)
    bonus = view.params[0]
    best = 0
    best_value = 0.0
    for row in range(view.n_candidates):
        value = tk.award(view, row) + bonus * tk.TILE_IS_DOUBLE[view.cands[row, tk.CAND_TILE]]
        if row == 0 or value > best_value or (
            value == best_value and tk.greedy_prefers(view, score, row, best)
        ):
            best = row
            best_value = value
    return best
