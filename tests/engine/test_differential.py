"""The engine against the independent reference (``sim.reference`` / ``sim.verify``).

* every record the engine writes passes ``verify_record`` (at least 500 matches
  per player count, every built-in strategy mix, in the default run; many
  thousands under ``-m slow``);
* every decision of a ``greedy`` seat equals the reference's ``greedy_policy``
  on the same position;
* random-vs-random statistics agree with the reference playing uniform random.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

pytest.importorskip("sim.verify")

from sim.reference import Placement, Round, greedy_policy, play_match
from sim.verify import verify_record

BUILTINS = ["random", "greedy"]


def seat_mixes(players: int) -> list[list[str]]:
    """Every assignment of built-ins to seats (4 players: to the partnerships, plus seat-mixed ones)."""
    if players == 4:
        pairs = [[a, b, a, b] for a, b in itertools.product(BUILTINS, repeat=2)]
        return pairs + [["random", "greedy", "greedy", "random"], ["greedy", "greedy", "random", "random"]]
    return [list(mix) for mix in itertools.product(BUILTINS, repeat=players)]


def verify_many(engine, players: int, total: int, seed: int) -> None:
    mixes = seat_mixes(players)
    per_mix = math.ceil(total / len(mixes))
    failures = []
    checked = 0
    for index, mix in enumerate(mixes):
        records = engine.record(players, mix, per_mix, seed=seed + index)
        for rec in records:
            problems = verify_record(rec)
            checked += 1
            if problems:
                failures.append(f"{mix} match {rec['match']}: {problems[0]}")
    assert checked >= total
    assert not failures, f"{len(failures)} invalid records, first: {failures[:3]}"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_record_verifies(compiled_engine, players):
    verify_many(compiled_engine, players, 500, seed=1000 * players)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_record_verifies_many(compiled_engine, players):
    verify_many(compiled_engine, players, 6000, seed=7_000_000 + 1000 * players)


@pytest.mark.slow
def test_short_round_limit_records_verify(compiled_engine):
    for players in (2, 3, 4):
        for rec in compiled_engine.record(players, ["random"] * players, 200, seed=5, max_rounds=3):
            assert verify_record(rec) == []


# ---------------------------------------------------------------------------
# greedy decisions, position by position
# ---------------------------------------------------------------------------
def greedy_disagreements(rec: dict) -> list[str]:
    """Replay a record with the reference; compare each greedy seat's choice with greedy_policy."""
    players = rec["players"]
    entities = rec["entities"]
    scores = [0] * (max(entities) + 1)
    found = []
    for round_index, rnd_obj in enumerate(rec["rounds"]):
        hands = [[tuple(t) for t in hand] for hand in rnd_obj["hands"]]
        boneyard = [tuple(t) for t in rnd_obj["boneyard"]]
        rnd = Round(hands, boneyard, rnd_obj["leader"], scores, entities)
        for action_index, action in enumerate(rnd_obj["actions"]):
            seat = action["seat"]
            if action["type"] == "draw":
                rnd.draw(seat)
                continue
            if action["type"] == "pass":
                rnd.pass_turn(seat)
                continue
            placement = Placement(tuple(action["tile"]), action["parent"], action["side"])
            if rec["strategies"][seat] == "greedy":
                choices = rnd.legal_placements(seat)
                if len(choices) > 1:
                    best = greedy_policy(rnd.view(seat), choices, None)
                    same = (best.normal_tile, best.parent, best.side) == (
                        placement.normal_tile, placement.parent, placement.side)
                    if not same:
                        found.append(f"match {rec['match']} round {round_index} action {action_index}: "
                                     f"engine {placement}, reference {best}")
            rnd.play(seat, placement)
        scores = list(rnd.scores)
    assert len(scores) == len(rec["scores"]) and players == len(rec["strategies"])
    return found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_decisions_match_reference(compiled_engine, players):
    mix = ["greedy", "random"] * 2
    records = compiled_engine.record(players, mix[:players], 60, seed=31 + players)
    records += compiled_engine.record(players, ["greedy"] * players, 40, seed=41 + players)
    problems = [p for rec in records for p in greedy_disagreements(rec)]
    assert not problems, problems[:3]


# ---------------------------------------------------------------------------
# statistics: engine random vs reference random
# ---------------------------------------------------------------------------
STATISTICS = ("rounds", "placements", "draws", "blocked_rounds")


def reference_statistics(players: int, matches: int, seed: int) -> dict[str, np.ndarray]:
    values = {name: [] for name in STATISTICS}
    for match in range(matches):
        rec = play_match(players, ["random"] * players, seed=seed, match=match)
        actions = [a for r in rec["rounds"] for a in r["actions"]]
        values["rounds"].append(len(rec["rounds"]))
        values["placements"].append(sum(a["type"] == "play" for a in actions))
        values["draws"].append(sum(a["type"] == "draw" for a in actions))
        values["blocked_rounds"].append(sum(r["end"] == "blocked" for r in rec["rounds"]))
    return {name: np.asarray(v, dtype=float) for name, v in values.items()}


def compare_with_reference(engine, players: int, reference_matches: int) -> None:
    frame = engine.simulate(players, ["random"] * players, 20000, seed=99)
    reference = reference_statistics(players, reference_matches, seed=99)
    report = []
    for name in STATISTICS:
        ours = frame[name].to_numpy(dtype=float)
        theirs = reference[name]
        se = math.sqrt(ours.var(ddof=1) / ours.size + theirs.var(ddof=1) / theirs.size)
        gap = abs(ours.mean() - theirs.mean())
        report.append(f"{name}: engine {ours.mean():.3f} reference {theirs.mean():.3f} ({gap / se:.2f} SE)")
        assert gap <= 4 * se, "; ".join(report)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_statistics_agree_with_reference(compiled_engine, players):
    compare_with_reference(compiled_engine, players, 200)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_statistics_agree_with_reference_many(compiled_engine, players):
    compare_with_reference(compiled_engine, players, 3000)
