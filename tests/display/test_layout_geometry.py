"""The layout geometry: a hand-built round where every slot is known, no overlaps in any round
of the golden and engine-made records, and open ends whose total agrees with the record's
``points`` (and with the rules reference) after every placement."""

from __future__ import annotations

import json

import pytest

import sim
from sim.display import layout_geometry
from sim.display.layout_geometry import (
    EAST,
    NORTH,
    SOUTH,
    WEST,
    OpenEnd,
    open_ends,
    overlaps,
    round_geometry,
    round_plays,
)
from sim.reference import Layout, Placement, award
from tests.support.golden import GOLDEN


def play(seat, tile, parent, side, points):
    return {"seat": seat, "type": "play", "tile": tile, "parent": parent, "side": side,
            "points": points}


# An opening spinner 5-5 with both line sides and both arms taken, then a second spinner 2-2 on
# the east line with its line continued and one arm used. Totals by hand (ruling 3):
# 10 (lone 5-5), 12 (5-5 terminal + 2), 5 (2 + 3), 6 (+1 on an arm), 10 (+4 on the other arm),
# 12 (3 + 1 + 4 + 2-2 terminal 4), 8 (2-2 internal, 0 open), 14 (+6 on 2-2's arm).
SPINNER_ROUND = {"actions": [
    play(0, [5, 5], None, None, 10),
    play(1, [5, 2], 0, "line", 0),
    {"seat": 0, "type": "draw", "tile": [1, 1]},
    play(0, [5, 3], 0, "line", 5),
    play(1, [5, 1], 0, "arm", 0),
    play(0, [5, 4], 0, "arm", 10),
    play(1, [2, 2], 1, "line", 0),
    play(0, [2, 0], 5, "line", 0),
    {"seat": 1, "type": "pass"},
    play(0, [2, 6], 5, "arm", 0),
]}
SPINNER_TOTALS = [10, 12, 5, 6, 10, 12, 8, 14]


def test_a_hand_built_round_with_two_spinners_lies_where_computed_by_hand():
    geometry = round_geometry(SPINNER_ROUND)
    cells = [t.cell for t in geometry.tiles]
    # The opening spinner at the origin: first line child east, second west; its arms take
    # the free long sides (south first on a tie: slots are tried east, south, west, north).
    # The 2-2 lies across the line east of 5-2; its arm goes south too.
    assert cells == [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (2, 0), (3, 0), (2, 1)]
    assert [t.heading for t in geometry.tiles] == [EAST, EAST, WEST, SOUTH, NORTH, EAST, EAST,
                                                   SOUTH]
    assert [t.vertical for t in geometry.tiles] == [True, False, False, True, True, True, False,
                                                    True]
    assert [t.halves for t in geometry.tiles] == [(5, 5), (5, 2), (3, 5), (5, 1), (4, 5), (2, 2),
                                                  (2, 0), (2, 6)]
    assert [t.action for t in geometry.tiles] == [0, 1, 3, 4, 5, 6, 7, 9]
    assert [t.port for t in geometry.tiles] == [None, None, None, None, None, 1, None, None]
    assert not any(t.jumped for t in geometry.tiles)
    assert overlaps(geometry) == []
    assert geometry.total == 14
    assert sorted(geometry.open_ends, key=lambda e: e.move) == [
        OpenEnd(2, WEST, 0, 3, 3, "line"),
        OpenEnd(3, SOUTH, 1, 1, 1, "line"),
        OpenEnd(4, NORTH, 0, 4, 4, "line"),
        OpenEnd(5, NORTH, None, 2, 0, "arm"),  # the 2-2's free arm counts nothing
        OpenEnd(6, EAST, 1, 0, 0, "line"),
        OpenEnd(7, SOUTH, 1, 6, 6, "line"),
    ]


def test_the_hand_built_round_totals_after_every_placement():
    assert [round_geometry(SPINNER_ROUND, k).total for k in range(1, 9)] == SPINNER_TOTALS
    # A lone opening double counts 2v once: one side carries it, the other adds 0.
    assert round_geometry(SPINNER_ROUND, 1).open_ends == (OpenEnd(0, EAST, None, 5, 10, "line"),
                                                          OpenEnd(0, WEST, None, 5, 0, "line"))
    assert round_geometry(SPINNER_ROUND, 2).open_ends == (OpenEnd(0, WEST, None, 5, 10, "line"),
                                                          OpenEnd(1, EAST, 1, 2, 2, "line"))
    assert round_geometry(SPINNER_ROUND, 0).total == 0


def test_a_child_of_the_opening_non_double_joins_the_half_of_its_value():
    actions = [play(0, [3, 5], None, None, 0), play(1, [5, 1], 0, "line", 0),
               play(0, [3, 6], 0, "line", 0)]
    geometry = round_geometry({"actions": actions})
    assert [t.cell for t in geometry.tiles] == [(0, 0), (1, 0), (-1, 0)]
    assert [t.port for t in geometry.tiles] == [None, 1, 0]
    assert [t.halves for t in geometry.tiles] == [(3, 5), (5, 1), (6, 3)]
    assert geometry.total == 7


def test_written_the_other_way_round_the_opening_flips_its_children():
    actions = [play(0, [5, 3], None, None, 0), play(1, [5, 1], 0, "line", 0)]
    assert [t.cell for t in round_geometry({"actions": actions}).tiles] == [(0, 0), (-1, 0)]


@pytest.mark.parametrize("actions,message", [
    ([play(0, [5, 5], None, None, 0)], "points 0 disagree with the scoring total 10"),
    ([play(0, [5, 5], None, None, 10), play(1, [5, 1], 0, "arm", 0)],
     "5-1 on placement 0 (arm) is not a legal placement"),
    ([play(0, [5, 5], None, None, 10), play(1, [1, 5], 0, "line", 0)], "is not a legal placement"),
    ([play(0, [5, 5], None, None, 10), play(1, [5, 1], 3, "line", 0)], "expected a parent placement"),
    ([play(0, [5, 9], None, None, 0)], "halves 0..6"),
    ([play(0, [5, 5], 0, "line", 10)], "the opening has parent null"),
    ([], "the round has no placement"),
])
def test_bad_plays_are_one_line_errors(actions, message):
    with pytest.raises(ValueError) as error:
        round_geometry({"actions": actions})
    assert message in str(error.value) and "\n" not in str(error.value)


def test_upto_out_of_range_is_refused():
    with pytest.raises(ValueError, match="upto must be 0..8"):
        round_geometry(SPINNER_ROUND, 9)


def check_round(round_record: dict) -> int:
    """No two placements share a slot or area, and after every placement the open ends' total
    is the rules reference's total and gives the record's points. Returns the placements."""
    geometry = round_geometry(round_record)
    tiles = list(geometry.tiles)
    layout = Layout()
    for k, tile in enumerate(tiles, start=1):
        layout.place(Placement((tile.joined, tile.open), tile.parent, tile.side))
        total = sum(end.scores for end in open_ends(tiles, k))
        assert total == layout.total(), (k, total, layout.total())
        assert award(total) == tile.points, (k, total, tile.points)
    assert overlaps(geometry) == []
    assert len({t.cell for t in geometry.tiles}) == len(geometry.tiles)
    return len(tiles)


def golden_records() -> list[dict]:
    return [json.loads(line) for players in (2, 3, 4)
            for line in (GOLDEN / f"reference-{players}p.jsonl").read_text().splitlines()]


def test_every_golden_round_lies_without_overlap_and_scores_as_recorded():
    rounds = [r for record in golden_records() for r in record["rounds"]]
    assert len(rounds) > 50
    assert sum(check_round(r) for r in rounds) > 500


ENGINE_TABLES = [(2, ["greedy", "random"]), (3, ["random", "greedy", "random"]),
                 (4, ["greedy", "random"])]


@pytest.mark.parametrize("players,strategies", ENGINE_TABLES)
def test_engine_made_rounds_lie_without_overlap_and_score_as_recorded(compiled_engine, players,
                                                                      strategies):
    records = sim.record(players, strategies, matches=30, seed=20261202)
    longest = max(len(round_plays(r)) for rec in records for r in rec["rounds"])
    assert longest >= 18  # long rounds (with turns) are in the sample
    for record in records:
        for rnd in record["rounds"]:
            check_round(rnd)


@pytest.mark.slow
@pytest.mark.parametrize("players,strategies", ENGINE_TABLES)
def test_thousands_of_engine_made_matches_lie_without_overlap(compiled_engine, players,
                                                               strategies):
    records = sim.record(players, strategies, matches=3000, seed=7)
    jumped = 0
    for record in records:
        for rnd in record["rounds"]:
            check_round(rnd)
            jumped += sum(t.jumped for t in round_geometry(rnd).tiles)
    assert jumped == 0


def test_without_backtracking_the_greedy_layout_still_keeps_tiles_apart(monkeypatch):
    monkeypatch.setattr(layout_geometry, "SEARCH_BUDGET", 0)  # the search gives up at once
    for record in golden_records():
        for rnd in record["rounds"]:
            geometry = round_geometry(rnd)
            assert overlaps(geometry) == []
            assert award(geometry.total) == geometry.tiles[-1].points


def test_a_child_with_no_free_neighbour_jumps_to_the_nearest_free_slot():
    search = layout_geometry.SlotSearch(round_plays(SPINNER_ROUND))
    search.put(0, (0, 0), EAST)
    for cell in [(1, 0), (-1, 0), (0, 1), (0, -1)]:
        search.occupied[cell] = -1  # something else lies all around the opening
    assert search.candidates(1) == []
    cell, heading = search.nearest_free((0, 0))
    assert cell not in search.occupied and max(abs(cell[0]), abs(cell[1])) == 2
    assert heading == layout_geometry.step((0, 0), cell)
