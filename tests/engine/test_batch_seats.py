"""The batch engine for Python seats (sim.engine.python_seats): many matches in flight, one
kernel call per step, per-view and batch strategies.

* answers found with 1, 7 or 256 matches in flight are the one-at-a-time answers
  (:func:`sim.engine.python_seats.match_answers`), and a run's frames do not depend on it;
* a batch strategy that runs a built-in's own function on each view of its batch
  (:func:`strategies.python_view.views_of`) plays exactly the engine's matches (``random``
  draws from each decision's stream: the batch's streams are kept where it left them);
* a batch strategy and its per-view twin (``examples/batch_points.py``) play the same matches,
  and records with batch seats verify with the rules reference;
* a batch strategy that returns the wrong shape or a row that is not a candidate is one line.
"""

from __future__ import annotations

import numpy as np
import pytest

import strategies
from sim.bridges.match_state import CHANCE, TERMINAL, MatchState
from sim.engine import python_seats
from sim.engine.compiled import CompiledRun
from sim.engine.python_seats import StrategyFailure
from sim.engine.spec import RunSpec
from sim.verify import verify_record
from strategies.python_view import views_of
from tests.engine.test_python_seats import PY_GREEDY, assert_same_play
from tests.support.paths import REPO


def batch_of(name: str):
    """Built-in ``name``'s own function run on each view of a batch, as a batch strategy."""
    function = strategies.resolve(name).function

    def choose(batch):
        return np.array([function(view) for view in views_of(batch)], dtype=np.int64)

    return strategies.strategy(choose, name=f"batch_{name}", compiled=False, batch=True)


BATCH_GREEDY = batch_of("greedy")
BATCH_RANDOM = batch_of("random")


@pytest.mark.parametrize("in_flight", [1, 7, 256])
def test_answers_do_not_depend_on_how_many_matches_are_in_flight(compiled_engine, in_flight):
    spec = RunSpec.build(2, [PY_GREEDY, "random"], 40, 5)
    run = CompiledRun(spec)
    offsets, rows, totals, scores = python_seats.batch_answers(run, 3, 30, in_flight=in_flight)
    for offset in range(30):
        found = rows[offsets[offset]:offsets[offset + 1]]
        assert np.array_equal(found, python_seats.match_answers(run, 3 + offset))
    alone = compiled_engine.simulate(2, ["greedy", "random"], 33, seed=5)
    assert np.array_equal(scores[:, 0], alone["score_0"].to_numpy()[3:])


@pytest.mark.parametrize("players", [2, 4])
def test_a_batch_strategy_plays_the_engines_matches(compiled_engine, players):
    names = ["random", "greedy", "random", "greedy"][:players]
    expected = compiled_engine.simulate(players, names, 300, seed=21)
    seats = [BATCH_RANDOM if n == "random" else BATCH_GREEDY for n in names]
    assert_same_play(compiled_engine.simulate(players, seats, 300, seed=21), expected)


def test_a_batch_strategy_and_its_per_view_twin_play_the_same_matches(compiled_engine):
    batch = strategies.resolve(f"{REPO / 'examples/batch_points.py'}:most_points")
    one = strategies.resolve(f"{REPO / 'examples/batch_points.py'}:most_points_one")
    for players in (2, 4):
        seats = ["greedy"] * players
        seats[0] = batch
        with_batch = compiled_engine.simulate(players, seats, 200, seed=4)
        seats[0] = one
        assert_same_play(with_batch, compiled_engine.simulate(players, seats, 200, seed=4))


@pytest.mark.parametrize(("players", "matches"), [(2, 2000), (3, 500), (4, 500)])
def test_records_with_batch_seats_verify(compiled_engine, players, matches):
    seats = [BATCH_RANDOM] + ["greedy"] * (players - 1)
    records = compiled_engine.record(players, seats, matches, seed=300 + players)
    assert len(records) == matches
    bad = [(r["match"], verify_record(r)[:1]) for r in records if verify_record(r)]
    assert not bad, bad[:3]


def test_a_batch_strategy_returning_the_wrong_shape_is_one_line(compiled_engine):
    @strategies.strategy(compiled=False, batch=True)
    def one_row(batch):
        return np.zeros(1, dtype=np.int64)

    with pytest.raises(StrategyFailure, match=r"one_row.*not \d+ integer rows"):
        compiled_engine.simulate(2, [one_row, "greedy"], 50, seed=1)


def test_a_batch_strategy_returning_a_row_past_its_candidates_names_the_match(compiled_engine):
    @strategies.strategy(compiled=False, batch=True)
    def past(batch):
        return np.asarray(batch.n_candidates)

    with pytest.raises(StrategyFailure, match=r"'past' \(seat 0\) in match \d+ returned row \d+, not one of"):
        compiled_engine.simulate(2, [past, "greedy"], 50, seed=1)


def test_a_batch_strategy_asked_for_one_view_answers_as_its_rule_does():
    """Where decisions come one at a time (a bridge, the human game), a batch strategy is asked
    with a batch of one: its row is the per-view rule's."""
    greedy = strategies.resolve("greedy").function
    state = MatchState(2)
    generator = np.random.default_rng(3)
    asked = 0
    while state.current_player() != TERMINAL and asked < 40:
        if state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[generator.integers(len(outcomes))][0])
            continue
        view = state.view(np.zeros((2, 0)))
        assert BATCH_GREEDY.choose(view) == greedy(view)
        asked += 1
        legal = state.legal_actions()
        state.apply_action(legal[generator.integers(len(legal))])
    assert asked == 40


def test_a_compiled_batch_strategy_is_refused():
    with pytest.raises(TypeError, match="batch strategy is plain Python"):
        strategies.strategy(lambda batch: batch.seat, name="bad", batch=True)
