"""Every strategy plays only legal placements: engine records replayed by the rules reference.

Mixes cover every built-in strategy and the worked user strategy ``doubles``
(:data:`tests.support.views.DOUBLES`) at 2, 3 and 4 players (a few hundred
matches per table), with default and non-default parameters. Each record is
checked move by move by :func:`sim.verify.verify_record` (legality, points,
events, settlement, winner).
"""

from __future__ import annotations

import numpy as np
import pytest

import strategies
from sim.verify import verify_record
from tests.support.views import DOUBLES_FIELD, strategy_named

PIMC = "pimc[worlds=4,node_limit=400,samples=6]"
"""``pimc`` at a small budget: the same code at any budget, an eighth of the time."""
MIXES = {
    2: [("rollout", "exact"), ("heavy", "defensive"), ("weighted", "doubles"), ("random", "rollout"),
        ("matchplay", "cheater"), ("weighted_tuned", "greedy"), (PIMC, "cheater")],
    3: [("exact", "heavy", "rollout"), ("defensive", "weighted", "doubles"), ("matchplay", "cheater", "greedy"),
        ("weighted_tuned", "random", "greedy"), (PIMC, "cheater", "rollout")],
    4: [("rollout", "exact"), ("heavy", "defensive"), ("weighted", "doubles"), ("matchplay", "cheater"),
        ("weighted_tuned", "greedy"), (PIMC, "matchplay")],
}
MATCHES = {2: 60, 3: 80, 4: 80}


def test_mixes_cover_every_strategy():
    for players, mixes in MIXES.items():
        seen = {name.partition("[")[0] for mix in mixes for name in mix}
        assert seen >= set(strategies.builtin_names()) - {"random", "greedy"} | {"doubles"}, players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_of_every_strategy_verify(compiled_engine, players):
    total = 0
    for index, mix in enumerate(MIXES[players]):
        # doubles is not built in: its mixes share one set (built-in mixes use the field's)
        records = compiled_engine.record(players, [strategy_named(name) for name in mix], MATCHES[players],
                                         seed=100 + index, allow_hidden="cheater" in mix,
                                         field=DOUBLES_FIELD if "doubles" in mix else None)
        for record in records:
            assert verify_record(record) == [], (mix, record["match"])
        total += len(records)
    assert total >= 200


def test_records_with_swept_parameters_verify(compiled_engine):
    """Random weight vectors for weighted, odd parameters for the others: still legal."""
    generator = np.random.default_rng(5)
    for index in range(4):
        weights = generator.normal(size=13) * 3
        params = [list(weights), {"samples": 2, "win_bonus": -50.0}, {"reply_weight": -2.0}]
        records = compiled_engine.record(3, ["weighted", "rollout", "defensive"], 20, seed=index,
                                         params=params)
        for record in records:
            assert verify_record(record) == [], (index, record["match"])


def test_stochastic_lookahead_is_reproducible_across_threads_and_chunks(compiled_engine):
    """rollout draws only from the decision stream: threads and batching change nothing."""
    import numba
    import pandas as pd

    names = ["rollout", "exact", "defensive"]
    one = compiled_engine.simulate(3, names, 24, seed=9, threads=1)
    many = compiled_engine.simulate(3, names, 24, seed=9, threads=numba.config.NUMBA_NUM_THREADS, chunk_size=5)
    tail = compiled_engine.simulate(3, names, 10, seed=9, first_match=14)
    pd.testing.assert_frame_equal(one, many)
    pd.testing.assert_frame_equal(one.iloc[14:].reset_index(drop=True), tail)
