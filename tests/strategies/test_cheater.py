"""The audit strategy ``cheater`` and the hidden-information door it uses.

* A run refuses a ``sees_hidden`` strategy unless it allows hidden information
  (Python: ``allow_hidden=True``; command line: ``--allow-hidden``, one line
  otherwise).
* Only the slot of a ``sees_hidden`` strategy is handed every hand and the
  boneyard order, and they are the true ones; fair strategies compiled into
  the same kernel get the arrays empty (``STALE_CHECK`` returns an invalid row
  otherwise, which the engine flags).
* ``cheater``'s matches are played under the rules: their records verify.
"""

from __future__ import annotations

import pytest

import sim
import strategies
from sim.core import state as K
from sim.engine.spec import RunSpec
from sim.verify import verify_record
from tests.support.plugins import call_cli
from tests.support.views import PROBE_FIELD, STALE_CHECK, hidden_probe

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
