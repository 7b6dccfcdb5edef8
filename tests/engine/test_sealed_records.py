"""Records of sealed runs verify with the rules reference, carry the secret and replay with it.

A sealed run (``sealed=True``) plays each Python strategy in a process of its
own and keys every decision stream by the run's secret. Its matches are the
engine's matches all the same: every record of a sealed run with a
stochastic Python strategy (drawing from its stream in its own process) and
the stochastic compiled ``random`` replays through the pure-Python rules
reference (:func:`sim.verify.verify_record`) for 2, 3 and 4 players; each
carries the run's ``"secret"``; recording again with ``secret=`` gives the
very same records, and another secret other matches.
"""

from __future__ import annotations

import pytest

import sim
from sim.verify import verify_record

PYMIXED = '''"""A stochastic Python strategy (written by test_sealed_records.py)."""
import numpy as np

import strategies
from strategies import toolkit as tk


@strategies.strategy(name="pymixed", compiled=False, stochastic=True,
                     description="A uniform row or the row with most points, by a coin of its stream.")
def pymixed(view):
    if tk.next_unit(view.rng) < 0.5:
        return int(tk.next_below(view.rng, view.n_candidates))
    points = [int(view.cands[row, tk.CAND_POINTS]) for row in range(view.n_candidates)]
    return int(np.argmax(points))
'''

MIXES = {
    2: [["PY", "random"], ["random", "PY"]],
    3: [["PY", "random", "greedy"], ["random", "PY", "PY"]],
    4: [["PY", "random"], ["PY", "random", "greedy", "PY"]],
}
"""Seatings per table size (``PY``: the Python strategy; 4 players: two entries are partnerships)."""


@pytest.fixture(scope="module")
def pymixed(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("sealed-records") / "pymixed.py"
    path.write_text(PYMIXED)
    return f"{path}:pymixed"


def seats_of(mix, python: str) -> list[str]:
    return [python if seat == "PY" else seat for seat in mix]


def verify_sealed(players: int, total: int, seed: int, python: str) -> list[list[dict]]:
    """Record ``total`` matches over the mixes, sealed; check every record; return the records
    of each mix."""
    mixes = MIXES[players]
    per_mix = -(-total // len(mixes))
    runs, failures = [], []
    for index, mix in enumerate(mixes):
        records = sim.record(players, seats_of(mix, python), per_mix, seed=seed + index, sealed=True)
        assert len(records) == per_mix
        secret = records[0]["secret"]
        assert isinstance(secret, str) and len(secret) == 32 and int(secret, 16) > 0
        assert all(rec["secret"] == secret for rec in records)
        assert "pymixed" in records[0]["strategies"]
        for rec in records:
            problems = verify_record(rec)
            if problems:
                failures.append(f"{mix} match {rec['match']}: {problems[0]}")
        runs.append(records)
    assert not failures, f"{len(failures)} invalid records, first: {failures[:3]}"
    return runs


SLOW = pytest.mark.slow
"""The default run plays one table size; the others join the slow run (a sealed Python seat is a
process of its own: hundreds of decisions per second)."""


@pytest.mark.parametrize("players,total", [pytest.param(2, 200, marks=SLOW),
                                           pytest.param(3, 150, marks=SLOW), (4, 150)])
def test_sealed_records_verify(pymixed, players, total):
    runs = verify_sealed(players, total, 700 + 10 * players, pymixed)
    assert sum(len(records) for records in runs) >= total
    for mix, records in zip(MIXES[players], runs):
        names = ["pymixed" if seat == "PY" else seat for seat in mix]
        assert records[0]["strategies"] == (names * 2 if len(names) == 2 and players == 4 else names)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_sealed_records_verify_many(pymixed, players):
    """1,000 sealed matches per table size, 3,000 in all."""
    runs = verify_sealed(players, 1000, 70_000 + 10 * players, pymixed)
    assert sum(len(records) for records in runs) >= 1000


@pytest.mark.parametrize("players", [2, pytest.param(3, marks=SLOW), pytest.param(4, marks=SLOW)])
def test_sealed_records_replay_with_their_secret(pymixed, players):
    seats = seats_of(MIXES[players][-1], pymixed)
    first = sim.record(players, seats, 40, seed=800 + players, sealed=True)
    secret = first[0]["secret"]
    again = sim.record(players, seats, 40, seed=800 + players, sealed=True, secret=secret)
    assert again == first
    # another secret: other choices of the stochastic seats, so other matches
    other = sim.record(players, seats, 40, seed=800 + players, sealed=True)
    assert other[0]["secret"] != secret
    assert [r["rounds"] for r in other] != [r["rounds"] for r in first]
    # the deals are the seed's alone: the first round's hands are the same whatever the secret
    assert [r["rounds"][0]["hands"] for r in other] == [r["rounds"][0]["hands"] for r in first]
