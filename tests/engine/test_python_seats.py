"""Python strategies (``compiled=False``): played by the engine with the Python seats' choices fed in.

* the built-ins' own functions run as Python seats play exactly the engine's
  matches (every frame column but the strategy names), for 2, 3 and 4 players,
  match frames and round frames; ``random``'s function draws from the seat's
  stream in Python (:func:`core.rng.next_below`), so this also checks that the
  engine keeps each Python seat's counter where the strategy left it;
* records of matches with Python seats verify with the rules reference
  (:func:`sim.verify.verify_record`);
* a Python seat is handed its own stream: key ``decision_key(seed, match,
  seat)``, counter moved only by its own draws;
* threads and chunking change nothing;
* a strategy that raises or answers something that is not a candidate row is
  reported naming the strategy, the seat and the match.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

import strategies
from core import state as K
from core import rng as R
from sim.engine.python_seats import StrategyFailure
from sim.verify import verify_record

PY_GREEDY = strategies.strategy(strategies.resolve("greedy").function, name="pygreedy", compiled=False)
PY_RANDOM = strategies.strategy(strategies.resolve("random").function, name="pyrandom", compiled=False)


def assert_same_play(frame, expected):
    """Frames equal in every column but the strategy names."""
    columns = [c for c in frame.columns if not c.startswith("strategy_")]
    assert [c for c in expected.columns if not c.startswith("strategy_")] == columns
    pd.testing.assert_frame_equal(frame[columns], expected[columns])


def seatings(players: int, python, compiled: str) -> list[list]:
    """Python strategy in seat 0; in every seat; and alternating with the compiled one."""
    alternating = [python if seat % 2 == 0 else compiled for seat in range(players)]
    return [[python] + [compiled] * (players - 1), [python] * players, alternating]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_python_greedy_plays_the_engines_matches(compiled_engine, players):
    expected = compiled_engine.simulate(players, ["greedy"] * players, 300, seed=50 + players)
    for seats in seatings(players, PY_GREEDY, "greedy"):
        frame = compiled_engine.simulate(players, seats, 300, seed=50 + players)
        assert list(frame["strategy_0"].unique()) == ["pygreedy"]
        assert_same_play(frame, expected)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_python_greedy_round_frames(compiled_engine, players):
    seats = [PY_GREEDY] + ["greedy"] * (players - 1)
    expected = compiled_engine.simulate_rounds(players, ["greedy"] * players, 120, seed=60 + players)
    frame = compiled_engine.simulate_rounds(players, seats, 120, seed=60 + players, chunk_size=50)
    assert_same_play(frame, expected)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_python_random_draws_from_its_own_stream_like_the_engine(compiled_engine, players):
    """random's function in Python draws the same numbers the compiled one draws: the engine
    hands the seat its stream and keeps the counter the Python strategy left."""
    expected = compiled_engine.simulate(players, ["random", "greedy", "random", "greedy"][:players], 300,
                                        seed=70 + players)
    seats = [PY_RANDOM, "greedy", PY_RANDOM, "greedy"][:players]
    assert_same_play(compiled_engine.simulate(players, seats, 300, seed=70 + players), expected)
    mixed = [PY_RANDOM, "greedy", "random", "greedy"][:players]
    assert_same_play(compiled_engine.simulate(players, mixed, 300, seed=70 + players), expected)


# ---------------------------------------------------------------------------
# Records verify
# ---------------------------------------------------------------------------
def _stochastic_python(view):
    """A Python strategy drawing from its stream: a uniform row, or the row with most points."""
    if R.next_unit(view.rng) < 0.5:
        return int(R.next_below(view.rng, view.n_candidates))
    points = [int(view.cands[row, K.CAND_POINTS]) for row in range(view.n_candidates)]
    return int(np.argmax(points))


PY_MIXED = strategies.strategy(_stochastic_python, name="pymixed", compiled=False, stochastic=True)

RECORD_MIXES = {
    2: [[PY_MIXED, "greedy"], ["random", PY_MIXED], [PY_MIXED, PY_RANDOM]],
    3: [[PY_MIXED, "greedy", "random"], ["greedy", PY_MIXED, PY_MIXED]],
    4: [[PY_MIXED, "random"], [PY_MIXED, "greedy", "random", PY_RANDOM]],
}


def verify_python_records(engine, players: int, total: int, seed: int) -> int:
    mixes = RECORD_MIXES[players]
    per_mix = -(-total // len(mixes))
    checked = 0
    failures = []
    for index, mix in enumerate(mixes):
        for rec in engine.record(players, mix, per_mix, seed=seed + index):
            problems = verify_record(rec)
            checked += 1
            if problems:
                failures.append(f"{[getattr(s, 'name', s) for s in mix]} match {rec['match']}: {problems[0]}")
    assert not failures, f"{len(failures)} invalid records, first: {failures[:3]}"
    return checked


@pytest.mark.parametrize("players,total", [(2, 400), (3, 300), (4, 300)])
def test_records_with_python_seats_verify(compiled_engine, players, total):
    assert verify_python_records(compiled_engine, players, total, seed=900 + 10 * players) >= total


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_with_python_seats_verify_many(compiled_engine, players):
    assert verify_python_records(compiled_engine, players, 3000, seed=90_000 + 10 * players) >= 3000


def test_record_frame_and_rounds_agree_with_python_seats(compiled_engine):
    seats = [PY_MIXED, "greedy", "random"]
    frame = compiled_engine.simulate(3, seats, 60, seed=11)
    records = compiled_engine.record(3, seats, 60, seed=11)
    assert [r["strategies"] for r in records[:1]] == [["pymixed", "greedy", "random"]]
    for row, rec in zip(frame.itertuples(index=False), records):
        assert rec["match"] == row.match
        assert rec["scores"] == [row.score_0, row.score_1, row.score_2]
        assert len(rec["rounds"]) == row.rounds


# ---------------------------------------------------------------------------
# The stream a Python seat is handed
# ---------------------------------------------------------------------------
def test_python_seats_get_their_own_keys_and_counters(compiled_engine):
    log = []

    def logged(view):
        log.append((int(view.seat), int(view.rng[0]), int(view.rng[1])))
        assert not view.cands.flags.writeable and view.cands.shape[0] == view.n_candidates
        assert view.nodes.shape[0] == view.n_nodes and view.open_nodes.shape[0] == view.n_open_nodes
        return int(R.next_below(view.rng, view.n_candidates))

    py = strategies.strategy(logged, name="pylogged", compiled=False)
    players, matches, seed = 4, 40, 123
    compiled_engine.simulate(players, [py, "random", py, "greedy"], matches, seed=seed)
    keys = {int(R.decision_key(seed, m, s)): (m, s) for m in range(matches) for s in range(players)}
    counters = {}
    for seat, key, counter in log:
        assert key in keys, "a Python seat's key is its decision_key(seed, match, seat)"
        match, key_seat = keys[key]
        assert key_seat == seat
        # the counter counts this seat's own draws only (one per decision), never another seat's
        assert counter == counters.get((match, seat), 0), (match, seat)
        counters[(match, seat)] = counter + 1
    assert {s for s, _, _ in log} == {0, 2}
    assert len(counters) > matches


# ---------------------------------------------------------------------------
# Determinism
# ---------------------------------------------------------------------------
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two Numba threads")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_threads_and_chunks_do_not_matter(compiled_engine, players):
    seats = [PY_MIXED, "random", "greedy", PY_RANDOM][:players]
    one = compiled_engine.simulate(players, seats, 240, seed=17, threads=1)
    two = compiled_engine.simulate(players, seats, 240, seed=17, threads=2)
    chunks = compiled_engine.simulate(players, seats, 240, seed=17, threads=2, chunk_size=37)
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(one, chunks)
    tail = compiled_engine.simulate(players, seats, 100, seed=17, first_match=140, chunk_size=13)
    pd.testing.assert_frame_equal(one.iloc[140:].reset_index(drop=True), tail)
    again = compiled_engine.simulate(players, seats, 240, seed=17)
    pd.testing.assert_frame_equal(one, again)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------
def _python(function, name):
    return strategies.strategy(function, name=name, compiled=False)


def test_a_raising_strategy_is_named_with_seat_and_match(compiled_engine):
    def broken(view):
        raise KeyError("no such thing")

    with pytest.raises(StrategyFailure) as caught:
        compiled_engine.simulate(2, ["greedy", _python(broken, "broken")], 3, seed=1, first_match=7)
    message = str(caught.value)
    assert "'broken'" in message and "seat 1" in message and "match 7" in message
    assert "KeyError" in message and "no such thing" in message


@pytest.mark.parametrize("answer", ["too_big", "negative", "float", "text", "bool", "none"])
def test_a_python_answer_that_is_not_a_row_fails(compiled_engine, answer):
    def bad(view):
        return {"too_big": view.n_candidates, "negative": -1, "float": 0.0, "text": "0",
                "bool": True, "none": None}[answer]

    with pytest.raises(StrategyFailure) as caught:
        compiled_engine.simulate(3, ["greedy", "random", _python(bad, "pybad")], 2, seed=4, first_match=20)
    message = str(caught.value)
    assert "'pybad'" in message and "seat 2" in message and "match 20" in message


def test_python_failures_also_stop_records_and_round_frames(compiled_engine):
    def broken(view):
        return view.n_candidates

    py = _python(broken, "pyworse")
    with pytest.raises(StrategyFailure, match=r"'pyworse' \(seat 0\) in match 3"):
        compiled_engine.record(2, [py, "greedy"], 2, seed=1, first_match=3)
    with pytest.raises(StrategyFailure, match=r"'pyworse' \(seat 0\) in match 3"):
        compiled_engine.simulate_rounds(2, [py, "greedy"], 2, seed=1, first_match=3)


@pytest.mark.parametrize("answer", [True, np.bool_(False), 0.0, "0", None, np.float64(1.0)],
                         ids=["bool", "numpy-bool", "float", "str", "none", "numpy-float"])
def test_an_answer_that_is_not_an_integer_is_named(compiled_engine, answer):
    """A bool (an int subclass), a float, a string or nothing is refused, naming what came back."""
    py = _python(lambda view: answer, "pytyped")
    with pytest.raises(StrategyFailure) as caught:
        compiled_engine.simulate(2, [py, "greedy"], 1, seed=3)
    assert str(caught.value) == (f"strategy 'pytyped' (seat 0) in match 0 returned {answer!r}, "
                                 "not a row index of view.cands")


@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint8])
def test_a_numpy_integer_answer_plays_as_the_same_int(compiled_engine, kind):
    """A NumPy integer row is that row: the same matches as the plain int."""
    plain = compiled_engine.simulate(2, [_python(lambda view: view.n_candidates - 1, "pylast"), "greedy"],
                                     30, seed=5)
    typed = compiled_engine.simulate(2, [_python(lambda view: kind(view.n_candidates - 1), "pylast"),
                                         "greedy"], 30, seed=5)
    assert_same_play(typed, plain)


@strategies.strategy(name="out_of_range")
def out_of_range(view):
    """Answers one past its last candidate."""
    return view.n_candidates


def test_a_compiled_strategy_out_of_range_is_named_with_its_seat_and_row(compiled_engine):
    """The row it returned is shown, with its seat, the match and how many candidates it had."""
    with pytest.raises(StrategyFailure) as caught:
        compiled_engine.simulate(3, ["greedy", out_of_range, "greedy"], 5, seed=2)
    message = str(caught.value)
    assert "'out_of_range' (seat 1) in match 0 returned row " in message
    count = int(message.split("not one of its ")[1].split()[0])
    assert f"returned row {count}, " in message and f"(rows 0 to {count - 1})" in message
