"""The audit strategy ``cheater`` and the hidden-information door it uses.

* A run refuses a ``sees_hidden`` strategy unless it allows hidden information
  (Python: ``allow_hidden=True``; command line: ``--allow-hidden``, one line
  otherwise).
* Only the slot of a ``sees_hidden`` strategy is handed every hand and the
  boneyard order, and they are the true ones; fair strategies compiled into
  the same kernel get the arrays empty (``STALE_CHECK`` returns an invalid row
  otherwise, which the engine flags).
* ``cheater``'s matches are played under the rules: their records verify.
* With the search's nodes enough it plays a best exact move of the true world (the round
  solver's values on endgames of engine-dealt rounds).
"""

from __future__ import annotations

import numpy as np
import pytest

import sim
import strategies
from core import state as K
from sim.engine.spec import RunSpec
from core.tiles import N_TILES
from sim.verify import verify_record
from strategies import perfect_solver as P
from tests.support.endgames import copy_world, endgames, sealed_view
from tests.support.plugins import call_cli
from tests.support.views import PROBE_FIELD, STALE_CHECK, hidden_probe, params_for

def test_a_sees_hidden_strategy_is_refused_unless_allowed():
    with pytest.raises(ValueError, match="allow_hidden=True"):
        RunSpec.build(2, ["cheater", "greedy"], 10, 1)
    with pytest.raises(ValueError, match="hidden_probe sees every hand"):
        sim.simulate(2, [hidden_probe, "greedy"], 2, seed=1)
    spec = RunSpec.build(2, ["cheater", "greedy"], 10, 1, allow_hidden=True)
    assert spec.allow_hidden and spec.strategies[0].sees_hidden
    # A field strategy is only compiled, never seated: no refusal.
    RunSpec.build(2, ["greedy", "random"], 10, 1, field=["cheater"])


def test_metadata_marks_it_and_its_slot_is_its_own():
    cheater = strategies.resolve("cheater")
    assert cheater.sees_hidden and not strategies.resolve("matchplay").sees_hidden
    assert cheater.code_key.endswith(K.SEES_HIDDEN_KEY)
    with pytest.raises(TypeError, match="must be compiled"):
        strategies.strategy(lambda view: 0, name="peek", sees_hidden=True, compiled=False)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_only_the_hidden_slot_sees_the_true_hands_and_boneyard(players):
    seats = [hidden_probe, STALE_CHECK, "greedy", STALE_CHECK][:players]
    # An invalid row from either probe would raise (the engine flags it in M_ERROR).
    # One kernel set for every table size and for test_sealed's runs: compiled once.
    frame = sim.simulate(players, seats, 40, seed=60 + players, allow_hidden=True, field=PROBE_FIELD)
    assert len(frame) == 40


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cheater_records_verify(players):
    seats = ["cheater", "matchplay", "greedy", "rollout"][:players]
    records = sim.record(players, seats, 30, seed=70 + players, allow_hidden=True)
    assert [verify_record(rec) for rec in records] == [[]] * len(records)


run_cli = call_cli  # in this process: the session's compiled kernels are reused


def test_command_line_refuses_without_the_flag(tmp_path):
    out = tmp_path / "m.jsonl"
    result = run_cli("record", "--players", "2", "--strategies", "cheater,greedy", "--matches", "3",
                     "--seed", "1", "--out", str(out))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--allow-hidden" in result.stderr
    result = run_cli("record", "--players", "2", "--strategies", "cheater,greedy", "--matches", "3",
                     "--seed", "1", "--allow-hidden", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_records_of_the_new_strategies_verify(players):
    """Thousands of matches in all (1,200 per table size) of matchplay and cheater, seated
    together and against rollout, replayed by the rules reference."""
    seats = {2: [["cheater", "matchplay"], ["matchplay", "rollout"]],
             3: [["cheater", "matchplay", "rollout"], ["matchplay", "rollout", "greedy"]],
             4: [["cheater", "matchplay"], ["matchplay", "rollout"]]}[players]
    checked = 0
    for index, mix in enumerate(seats):
        records = sim.record(players, mix, 600, seed=900 + 10 * players + index,
                             allow_hidden="cheater" in mix)
        assert [verify_record(rec) for rec in records] == [[]] * len(records)
        checked += len(records)
    assert checked == 1200


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cheater_plays_a_best_exact_move_of_the_true_world(players):
    """Handed the true hands and boneyard, with nodes enough and no prior, cheater plays a
    placement whose exact solver value on that world is the largest."""
    cheater = strategies.resolve("cheater")
    params = params_for("cheater", node_limit=10.0**9, prior_weight=0.0)
    spread = 0
    for ws, view, next_draw, seat in endgames(players, 10, (6, 14), 40 + players):
        values = np.full(view.n_candidates, np.nan)
        assert P.solve_world(copy_world(ws), view, P.new_solver_scratch(),
                             P.solver_settings(node_limit=10**9), np.int64(next_draw), np.int64(seat),
                             values) == 1
        row = cheater.choose(sealed_view(view, params, world=ws, next_draw=next_draw))
        assert values[row] >= values.max() - 1e-12, (values, row)
        spread += values.max() - values.min() > 1e-9
    assert spread >= 3


@pytest.mark.parametrize("players", [2, 4])
def test_without_the_order_it_plays_from_the_boneyards_tiles_alone(players):
    """``order_known=0``: the row depends on the hands, the boneyard's tiles and the stream,
    never on the boneyard's true order (permuting it changes nothing)."""
    cheater = strategies.resolve("cheater")
    params = params_for("cheater", node_limit=10.0**9, prior_weight=0.0, order_known=0.0, orders=6.0)
    generator = np.random.default_rng(5)
    checked = 0
    for ws, view, next_draw, seat in endgames(players, 8, (6, 12), 70 + players):
        if N_TILES - next_draw < 2:
            continue  # nothing to permute
        row = cheater.choose(sealed_view(view, params, world=ws, next_draw=next_draw))
        for _ in range(3):
            world = copy_world(ws)
            world.deal[next_draw:] = generator.permutation(ws.deal[next_draw:])
            assert cheater.choose(sealed_view(view, params, world=world, next_draw=next_draw)) == row
        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_without_the_order_verify(players):
    seats = ["cheater[order_known=0,orders=3]", "rollout", "greedy", "matchplay"][:players]
    records = sim.record(players, seats, 12, seed=80 + players, allow_hidden=True)
    assert [verify_record(rec) for rec in records] == [[]] * len(records)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_many_records_without_the_order_verify(players):
    """600 matches per table size of the variant that does not know the draw order (a small
    search, so that they fit the slow run), against rollout, replayed by the rules reference."""
    seats = ["cheater[order_known=0,orders=2,node_limit=300]", "rollout"]
    records = sim.record(players, seats, 600, seed=950 + players, allow_hidden=True)
    assert len(records) == 600
    assert [verify_record(rec) for rec in records] == [[]] * len(records)
