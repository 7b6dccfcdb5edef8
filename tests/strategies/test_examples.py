"""The user-strategy examples in examples/: they load by FILE.py:NAME, play, and their records verify."""

from __future__ import annotations


import numpy as np
import pytest

import strategies
from sim.verify import verify_record
from tests.support.paths import EXAMPLES
from tests.support.views import DOUBLES_FIELD



def load(spec: str):
    return strategies.resolve(str(EXAMPLES / spec))


def test_examples_resolve_by_file_reference():
    doubles = load("doubles.py:doubles")
    table = load("table_strategy.py:tile_table")
    assert (doubles.name, doubles.compiled, doubles.parameter_names()) == ("doubles", True, ["double_bonus"])
    assert (table.name, table.compiled, table.parameter_names()) == ("tile_table", False, ["table_weight"])
    assert not strategies.is_builtin(doubles) and not strategies.is_builtin(table)
    # a variant from the spec text, and the spec that rebuilds it in another process
    variant = strategies.resolve(str(EXAMPLES / "doubles.py:doubles[double_bonus=20]"))
    assert variant.default_params().tolist() == [20.0]
    assert strategies.reference(variant).endswith("doubles.py:doubles[double_bonus=20]")


def test_doubles_prefers_a_double_by_its_bonus():
    from tests.support.views import Table

    # Opening 4-5 (total 9). Seat 0: 4-4 on the 4 (9 - 4 + 8 = 13: nothing), 1-5 on the 5
    # (9 - 5 + 1 = 5 points), 0-5 on the 5 (4: nothing).
    table = Table(2, (4, 5), [], [[(4, 4), (1, 5), (0, 5)], [(6, 6)]])
    doubles = load("doubles.py:doubles")
    picks = {}
    for bonus in (0.0, 8.0):
        view = table.view(0, np.array([bonus]))
        picks[bonus] = table.describe(doubles.choose(view))
    assert picks[0.0] == ((1, 5), 5, 5)          # award only: the 5 points
    assert picks[8.0][0] == (4, 4)               # 0 + 8 > 5: the double


@pytest.mark.parametrize("players", [2, 4])
def test_doubles_plays_and_its_records_verify(compiled_engine, players):
    doubles = load("doubles.py:doubles")
    # compiled with test_legal's doubles mixes (one set); the seated strategies decide the play
    frame = compiled_engine.simulate(players, [doubles, "greedy"], 50, seed=7, field=DOUBLES_FIELD)
    assert len(frame) == 50 and (frame.winner >= 0).all()
    records = compiled_engine.record(players, [doubles, "greedy"], 8, seed=7,
                                     params=[{"double_bonus": 20.0}, None], field=DOUBLES_FIELD)
    for record in records:
        assert verify_record(record) == [], record["match"]


@pytest.mark.parametrize("players", [2, 3])
def test_table_strategy_plays_and_its_records_verify(compiled_engine, players):
    table = load("table_strategy.py:tile_table")
    names = [table, "greedy"] + ["random"] * (players - 2)
    frame = compiled_engine.simulate(players, names, 6, seed=8)
    assert len(frame) == 6
    for record in compiled_engine.record(players, names, 4, seed=8):
        assert verify_record(record) == [], record["match"]
