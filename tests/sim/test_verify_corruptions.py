"""Corruptions of valid records: ``verify_record`` must reject each with the right reason.

Every test starts from records written by :func:`sim.reference.play_match`
(2, 3 and 4 players, fixed seed), checks that the untouched record is valid,
applies exactly one corruption and asserts the single problem line: the round,
the action or event index and the words of the reason (expected vs found).
Situations a corruption needs (a domino round, a blocked round, a double with
an open line side, a discarded event, ...) are found by a deterministic search
over the seeded matches, never hand-built, so the tests follow the reference.

A test asserts the *first* problem: if the verifier stopped checking the thing
a test corrupts, the replay would either accept the record or report a later,
different problem, and the test fails.
"""

from __future__ import annotations

import copy
import functools
import json

import pytest

from sim.records import FORMAT
from sim.reference import Placement, Round, normal, pips, round5
from core.tiles import TARGET_RAW
from sim.verify import verify_record

SEED = 61
SEARCH_LIMIT = 80
"""Matches per player count searched for a situation before giving up."""

STRATEGIES = {
    2: ("random", "greedy"),
    3: ("random", "greedy", "random"),
    4: ("random", "greedy", "random", "greedy"),
}
PLAYERS = (2, 3, 4)


# ---------------------------------------------------------------------------
# Records and replay helpers
# ---------------------------------------------------------------------------


@functools.cache
def _match_text(players: int, match: int, max_rounds: int | None = None) -> str:
    from sim.reference import play_match

    kwargs = {} if max_rounds is None else {"max_rounds": max_rounds}
    record = play_match(players, list(STRATEGIES[players]), seed=SEED, match=match, **kwargs)
    return json.dumps(record)


def fresh(players: int, match: int, max_rounds: int | None = None) -> dict:
    """A new deep copy of a seeded reference record (as it reads back from JSON)."""
    return json.loads(_match_text(players, match, max_rounds))


@functools.cache
def _valid(players: int, match: int) -> bool:
    return verify_record(fresh(players, match)) == []


def find(players: int, predicate):
    """First (record, round index, found) over seeded matches where ``predicate`` hits.

    ``predicate(record, r)`` returns a truthy value describing the situation in
    round ``r``, or None. The record returned is a fresh copy, free to corrupt.
    """
    for m in range(SEARCH_LIMIT):
        record = fresh(players, m)
        for r in range(len(record["rounds"])):
            found = predicate(record, r)
            if found is not None and found is not False:
                assert _valid(players, m), f"reference record {players}p/{m} is not valid"
                return fresh(players, m), r, found
    pytest.fail(f"no {players}-player match among the first {SEARCH_LIMIT} has this situation: "
                "raise SEARCH_LIMIT or pick another seed")


def scores_before(record: dict, r: int) -> list[int]:
    if r == 0:
        return [0] * (max(record["entities"]) + 1)
    return list(record["rounds"][r - 1]["scores"])


def state_before(record: dict, r: int, upto: int) -> Round:
    """The reference :class:`Round` of round ``r`` after its first ``upto`` actions."""
    rnd_obj = record["rounds"][r]
    rnd = Round(
        [[tuple(t) for t in h] for h in rnd_obj["hands"]],
        [tuple(t) for t in rnd_obj["boneyard"]],
        rnd_obj["leader"], scores_before(record, r), record["entities"])
    for action in rnd_obj["actions"][:upto]:
        seat = action["seat"]
        if action["type"] == "draw":
            rnd.draw(seat)
        elif action["type"] == "pass":
            rnd.pass_turn(seat)
        else:
            rnd.play(seat, Placement(tuple(action["tile"]), action["parent"], action["side"]))
    return rnd


def play_indices(rnd_obj: dict) -> list[int]:
    """Action index of every play of the round, in placement order."""
    return [i for i, a in enumerate(rnd_obj["actions"]) if a["type"] == "play"]


def adjacent(key: str, pair):
    """A :func:`find` predicate: the first index ``j`` of round ``r``'s ``key`` list
    (``"actions"`` or ``"events"``) where ``pair(items[j], items[j + 1])`` holds, else None."""
    def predicate(record, r):
        items = record["rounds"][r][key]
        for j in range(len(items) - 1):
            if pair(items[j], items[j + 1]):
                return j
        return None
    return predicate


def drew_before(actions: list[dict], i: int) -> bool:
    """Whether action ``i`` directly follows a draw (the same turn)."""
    return i > 0 and actions[i - 1]["type"] == "draw"


def name(tile) -> str:
    return f"{tile[0]}-{tile[1]}"


def problem(record) -> str:
    found = verify_record(record)
    assert isinstance(found, list) and len(found) == 1, found
    assert "\n" not in found[0]
    return found[0]


def assert_problem(record, prefix: str, *words: str) -> str:
    """The record's single problem starts with ``prefix`` and contains every word."""
    line = problem(record)
    assert line.startswith(prefix), f"{line!r} does not start with {prefix!r}"
    for word in words:
        assert word in line, f"{word!r} not in {line!r}"
    return line


# ---------------------------------------------------------------------------
# The untouched records are valid (otherwise every test below is meaningless)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_reference_records_are_valid(players):
    for m in range(8):
        assert verify_record(fresh(players, m)) == []


def test_unfinished_record_is_valid():
    record = fresh(2, 0, max_rounds=2)
    assert record["winner"] is None and len(record["rounds"]) == 2
    assert verify_record(record) == []


def test_extra_key_at_match_level_is_allowed():
    record = fresh(3, 0)
    record["note"] = {"anything": [1, 2, None]}
    assert verify_record(record) == []


def test_either_order_of_halves_in_deal_is_accepted():
    record = fresh(2, 0)
    for rnd_obj in record["rounds"]:
        rnd_obj["hands"] = [[t[::-1] for t in h] for h in rnd_obj["hands"]]
        rnd_obj["boneyard"] = [t[::-1] for t in rnd_obj["boneyard"]]
    assert verify_record(record) == []


# ---------------------------------------------------------------------------
# Altered points on a play action
# ---------------------------------------------------------------------------


def _scoring_play(record, r):
    for i, a in enumerate(record["rounds"][r]["actions"]):
        if a["type"] == "play" and a["points"] > 0 and r > 0:
            return i
    return None


def _silent_play(record, r):
    for i, a in enumerate(record["rounds"][r]["actions"]):
        if a["type"] == "play" and a["points"] == 0 and a["parent"] is not None:
            return i
    return None


@pytest.mark.parametrize("players", PLAYERS)
def test_altered_points_on_scoring_play(players):
    record, r, i = find(players, _scoring_play)
    action = record["rounds"][r]["actions"][i]
    points = action["points"]
    action["points"] = points + 5
    assert problem(record) == f"round {r + 1}, action {i}: expected points {points}, found {points + 5}"


@pytest.mark.parametrize("players", PLAYERS)
def test_points_on_non_scoring_play(players):
    record, r, i = find(players, _silent_play)
    record["rounds"][r]["actions"][i]["points"] = 15
    assert problem(record) == f"round {r + 1}, action {i}: expected points 0, found 15"


def test_altered_points_consistent_everywhere_still_caught_at_the_action():
    """Points, event raw and scores all moved together: the replay still sees the play."""
    record, r, i = find(2, _scoring_play)
    rnd_obj = record["rounds"][r]
    points = rnd_obj["actions"][i]["points"]
    rnd_obj["actions"][i]["points"] = points + 5
    for event in rnd_obj["events"]:
        if event["kind"] == "placement" and event["action"] == i:
            event["raw"] += 5
    assert problem(record) == f"round {r + 1}, action {i}: expected points {points}, found {points + 5}"


def test_points_as_boolean_or_float_are_rejected():
    record, r, i = find(2, _scoring_play)
    action = record["rounds"][r]["actions"][i]
    action["points"] = float(action["points"])
    assert_problem(record, f"round {r + 1}, action {i}: ", "points must be an integer")
    record, r, i = find(2, _silent_play)
    record["rounds"][r]["actions"][i]["points"] = False
    assert_problem(record, f"round {r + 1}, action {i}: ", "points must be an integer", "False")


# ---------------------------------------------------------------------------
# Flipped acceptance of an event
# ---------------------------------------------------------------------------


def _event_with(accepted: bool, kind: str | None = None):
    def predicate(record, r):
        for j, e in enumerate(record["rounds"][r]["events"]):
            if e["accepted"] is accepted and (kind is None or e["kind"] == kind):
                return j
        return None
    return predicate


@pytest.mark.parametrize("players", PLAYERS)
def test_flipped_acceptance_accepted_to_discarded(players):
    record, r, j = find(players, _event_with(True))
    record["rounds"][r]["events"][j]["accepted"] = False
    assert problem(record) == f"round {r + 1}, event {j}: expected accepted true, found false"


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("kind", ["placement", "domino"])
def test_flipped_acceptance_discarded_to_accepted(players, kind):
    record, r, j = find(players, _event_with(False, kind))
    event = record["rounds"][r]["events"][j]
    event["accepted"] = True
    assert problem(record) == f"round {r + 1}, event {j}: expected accepted false, found true"


def test_acceptance_as_integer_is_rejected():
    record, r, j = find(2, _event_with(True))
    record["rounds"][r]["events"][j]["accepted"] = 1
    assert problem(record) == f"round {r + 1}, event {j}: expected accepted true, found 1"


# ---------------------------------------------------------------------------
# A tile the seat does not hold
# ---------------------------------------------------------------------------


def _borrowable(source: str):
    """A non-opening play where a tile held elsewhere fits the very same connection."""
    def predicate(record, r):
        rnd_obj = record["rounds"][r]
        actions = rnd_obj["actions"]
        for i in play_indices(rnd_obj):
            a = actions[i]
            if a["parent"] is None or drew_before(actions, i):
                continue
            state = state_before(record, r, i)
            seat = a["seat"]
            joined = a["tile"][0]
            pool = ([t for s in range(state.players) if s != seat for t in state.hands[s]]
                    if source == "hand" else list(state.boneyard))
            for tile in pool:
                if joined in tile and tile not in state.hands[seat]:
                    other = tile[1] if tile[0] == joined else tile[0]
                    forged = Placement((joined, other), a["parent"], a["side"])
                    if state.layout.is_legal(forged):
                        return i, [joined, other]
        return None
    return predicate


@pytest.mark.parametrize("players", PLAYERS)
def test_play_of_a_tile_from_another_hand(players):
    record, r, (i, tile) = find(players, _borrowable("hand"))
    action = record["rounds"][r]["actions"][i]
    action["tile"] = tile
    seat = action["seat"]
    assert problem(record) == f"round {r + 1}, action {i}: seat {seat} does not hold {name(normal(tile))}"


def test_play_of_a_tile_still_in_the_boneyard():
    record, r, (i, tile) = find(2, _borrowable("boneyard"))
    action = record["rounds"][r]["actions"][i]
    action["tile"] = tile
    assert problem(record) == (f"round {r + 1}, action {i}: seat {action['seat']} does not hold "
                               f"{name(normal(tile))}")


def _opening(record, r):
    return play_indices(record["rounds"][r])[0]


def test_opening_with_a_tile_from_another_hand():
    record, r, i = find(3, _opening)
    rnd_obj = record["rounds"][r]
    seat = rnd_obj["actions"][i]["seat"]
    other = rnd_obj["hands"][(seat + 1) % 3][0]
    rnd_obj["actions"][i]["tile"] = other
    assert problem(record) == f"round {r + 1}, action {i}: seat {seat} does not hold {name(normal(other))}"


def test_play_of_a_tile_already_on_the_table():
    def predicate(record, r):
        plays = play_indices(record["rounds"][r])
        return (plays[1], plays[2]) if len(plays) > 2 else None

    record, r, (placed, target) = find(2, predicate)
    actions = record["rounds"][r]["actions"]
    # The next play re-uses the tile the previous play just put on the table.
    reused = actions[placed]["tile"]
    actions[target]["tile"] = reused
    seat = actions[target]["seat"]
    assert problem(record) == (f"round {r + 1}, action {target}: seat {seat} does not hold "
                               f"{name(normal(reused))}")


# ---------------------------------------------------------------------------
# A draw (or a pass) while a play existed
# ---------------------------------------------------------------------------


def _direct_play_with_boneyard(record, r):
    """A play made without drawing while the boneyard still held tiles."""
    rnd_obj = record["rounds"][r]
    for i in play_indices(rnd_obj)[1:]:
        if drew_before(rnd_obj["actions"], i):
            continue
        state = state_before(record, r, i)
        if state.boneyard:
            return i, list(state.boneyard[0])
    return None


@pytest.mark.parametrize("players", PLAYERS)
def test_draw_while_holding_a_legal_placement(players):
    record, r, (i, front) = find(players, _direct_play_with_boneyard)
    actions = record["rounds"][r]["actions"]
    seat = actions[i]["seat"]
    actions.insert(i, {"seat": seat, "type": "draw", "tile": front})
    assert_problem(record, f"round {r + 1}, action {i}: ", f"seat {seat}", "legal placement", "draw")


def test_extra_draw_after_a_playable_tile_was_drawn():
    """After drawing a playable tile the seat must place it, not draw on."""
    def predicate(record, r):
        rnd_obj = record["rounds"][r]
        actions = rnd_obj["actions"]
        for i in play_indices(rnd_obj):
            if drew_before(actions, i):
                state = state_before(record, r, i)
                if state.boneyard:
                    return i, list(state.boneyard[0])
        return None

    record, r, (i, front) = find(2, predicate)
    actions = record["rounds"][r]["actions"]
    seat = actions[i]["seat"]
    actions.insert(i, {"seat": seat, "type": "draw", "tile": front})
    assert_problem(record, f"round {r + 1}, action {i}: ", f"seat {seat}", "legal placement", "draw")


def _direct_play_with_empty_boneyard(record, r):
    rnd_obj = record["rounds"][r]
    for i in play_indices(rnd_obj)[1:]:
        if not state_before(record, r, i).boneyard:
            return i
    return None


@pytest.mark.parametrize("players", PLAYERS)
def test_pass_while_holding_a_legal_placement(players):
    record, r, i = find(players, _direct_play_with_empty_boneyard)
    actions = record["rounds"][r]["actions"]
    seat = actions[i]["seat"]
    actions[i] = {"seat": seat, "type": "pass"}
    assert_problem(record, f"round {r + 1}, action {i}: ", f"seat {seat}", "legal placement", "pass")


def _first_draw(record, r):
    rnd_obj = record["rounds"][r]
    for i, a in enumerate(rnd_obj["actions"]):
        if a["type"] == "draw":
            state = state_before(record, r, i)
            if len(state.boneyard) >= 2:
                return i, len(state.boneyard), list(state.boneyard[0]), list(state.boneyard[1])
    return None


@pytest.mark.parametrize("players", PLAYERS)
def test_pass_while_the_boneyard_is_not_empty(players):
    record, r, (i, size, _, _) = find(players, _first_draw)
    actions = record["rounds"][r]["actions"]
    seat = actions[i]["seat"]
    actions[i] = {"seat": seat, "type": "pass"}
    assert problem(record) == (f"round {r + 1}, action {i}: seat {seat} must draw: "
                               f"the boneyard holds {size} tiles")


@pytest.mark.parametrize("players", PLAYERS)
def test_draw_not_from_the_front_of_the_boneyard(players):
    record, r, (i, _, front, second) = find(players, _first_draw)
    record["rounds"][r]["actions"][i]["tile"] = second
    assert problem(record) == (f"round {r + 1}, action {i}: expected draw of {name(normal(front))} "
                               f"(front of the boneyard), found {name(second)}")


def test_draw_from_an_empty_boneyard():
    """A seat with no legal placement and no boneyard may only pass."""
    def predicate(record, r):
        for i, a in enumerate(record["rounds"][r]["actions"]):
            if a["type"] == "pass":
                return i
        return None

    record, r, i = find(3, predicate)
    action = record["rounds"][r]["actions"][i]
    action.update({"type": "draw", "tile": [0, 0]})
    assert problem(record) == f"round {r + 1}, action {i}: draw from an empty boneyard"


def test_skipped_draw():
    """Dropping a forced draw shifts everything: the next draw is then not the front tile."""
    record, r, i = find(2, adjacent("actions", lambda a, b: a["type"] == b["type"] == "draw"))
    actions = record["rounds"][r]["actions"]
    skipped = actions.pop(i)
    assert problem(record) == (f"round {r + 1}, action {i}: expected draw of {name(skipped['tile'])} "
                               f"(front of the boneyard), found {name(actions[i]['tile'])}")


# ---------------------------------------------------------------------------
# An arm before both line sides are occupied
# ---------------------------------------------------------------------------


def _line_play_on_double(opening: bool, open_sides: int | None = None):
    def predicate(record, r):
        rnd_obj = record["rounds"][r]
        plays = play_indices(rnd_obj)
        actions = rnd_obj["actions"]
        for i in plays[1:]:
            a = actions[i]
            parent = actions[plays[a["parent"]]]
            if a["side"] != "line" or parent["tile"][0] != parent["tile"][1]:
                continue
            if (a["parent"] == 0) is not opening:
                continue
            state = state_before(record, r, i)
            node = state.layout.nodes[a["parent"]]
            assert node.is_double and node.open_line_sides and node.open_arms == 0
            if open_sides is None or len(node.open_line_sides) == open_sides:
                return i, len(node.open_line_sides)
        return None
    return predicate


def assert_arm_refused(record, r, i) -> None:
    """Action ``i`` of round ``r`` moved onto an arm of its parent: not a legal placement."""
    action = record["rounds"][r]["actions"][i]
    action["side"] = "arm"
    assert problem(record) == (f"round {r + 1}, action {i}: {name(action['tile'])} on placement "
                               f"{action['parent']} (arm) is not a legal placement")


@pytest.mark.parametrize("players", PLAYERS)
def test_arm_on_double_with_one_open_line_side(players):
    record, r, (i, open_sides) = find(players, _line_play_on_double(opening=False))
    assert open_sides == 1
    assert_arm_refused(record, r, i)


@pytest.mark.parametrize("players,open_sides", [*[(p, 2) for p in PLAYERS], (4, 1)])
def test_arm_on_opening_double(players, open_sides):
    """A lone opening double has both line sides open: its first neighbour cannot take an arm;
    nor can its second while a line side is still open."""
    record, r, (i, _) = find(players, _line_play_on_double(opening=True, open_sides=open_sides))
    assert record["rounds"][r]["actions"][i]["parent"] == 0
    assert_arm_refused(record, r, i)


def test_arm_on_a_non_double():
    def predicate(record, r):
        rnd_obj = record["rounds"][r]
        plays = play_indices(rnd_obj)
        actions = rnd_obj["actions"]
        for i in plays[1:]:
            parent = actions[plays[actions[i]["parent"]]]
            if parent["tile"][0] != parent["tile"][1]:
                return i
        return None

    record, r, i = find(2, predicate)
    assert_arm_refused(record, r, i)


# ---------------------------------------------------------------------------
# Other connection and action-shape corruptions
# ---------------------------------------------------------------------------


def test_play_on_a_connection_of_another_value():
    def predicate(record, r):
        rnd_obj = record["rounds"][r]
        actions = rnd_obj["actions"]
        for i in play_indices(rnd_obj)[1:]:
            a = actions[i]
            state = state_before(record, r, i)
            if a["side"] != "line" or drew_before(actions, i):
                continue
            for node in state.layout.nodes:
                if not node.is_double and a["tile"][0] not in node.open_line_sides \
                        and a["tile"][1] not in node.open_line_sides:
                    return i, node.index
        return None

    record, r, (i, wrong_parent) = find(3, predicate)
    action = record["rounds"][r]["actions"][i]
    action["parent"] = wrong_parent
    assert problem(record) == (f"round {r + 1}, action {i}: {name(action['tile'])} on placement "
                               f"{wrong_parent} (line) is not a legal placement")


def test_tile_halves_reversed():
    def predicate(record, r):
        rnd_obj = record["rounds"][r]
        for i in play_indices(rnd_obj)[1:]:
            t = rnd_obj["actions"][i]["tile"]
            if t[0] != t[1]:
                return i
        return None

    record, r, i = find(2, predicate)
    action = record["rounds"][r]["actions"][i]
    tile = action["tile"]
    action["tile"] = tile[::-1]
    assert_problem(record, f"round {r + 1}, action {i}: ", "halves reversed", name(tile))


def test_parent_out_of_range():
    record, r, i = find(2, _silent_play)
    rnd_obj = record["rounds"][r]
    plays_before = sum(1 for a in rnd_obj["actions"][:i] if a["type"] == "play")
    rnd_obj["actions"][i]["parent"] = plays_before
    assert problem(record) == (f"round {r + 1}, action {i}: parent must be in "
                               f"0..{plays_before - 1}, found {plays_before}")


def test_opening_with_a_parent():
    record, r, i = find(2, _opening)
    record["rounds"][r]["actions"][i]["parent"] = 0
    assert_problem(record, f"round {r + 1}, action {i}: ", "opening", "parent null", "found parent 0")


def test_unknown_side():
    record, r, i = find(2, _silent_play)
    record["rounds"][r]["actions"][i]["side"] = "spinner"
    assert_problem(record, f"round {r + 1}, action {i}: ", "expected side", "spinner")


@pytest.mark.parametrize("players", PLAYERS)
def test_wrong_seat_to_act(players):
    record, r, i = find(players, _silent_play)
    action = record["rounds"][r]["actions"][i]
    seat = action["seat"]
    action["seat"] = (seat + 1) % players
    assert problem(record) == (f"round {r + 1}, action {i}: expected seat {seat} to act, "
                               f"found seat {(seat + 1) % players}")


def test_seat_out_of_range():
    record, r, i = find(3, _silent_play)
    record["rounds"][r]["actions"][i]["seat"] = 3
    assert problem(record) == f"round {r + 1}, action {i}: seat must be in 0..2, found 3"


@pytest.mark.parametrize("where", ["play", "draw", "pass"])
def test_extra_key_inside_an_action(where):
    def predicate(record, r):
        for i, a in enumerate(record["rounds"][r]["actions"]):
            if a["type"] == where:
                return i
        return None

    record, r, i = find(4 if where == "pass" else 2, predicate)
    record["rounds"][r]["actions"][i]["comment"] = "forced"
    assert problem(record) == f"round {r + 1}, action {i}: the action has unexpected key 'comment'"


def test_missing_key_inside_an_action():
    record, r, i = find(2, _scoring_play)
    del record["rounds"][r]["actions"][i]["points"]
    assert problem(record) == f"round {r + 1}, action {i}: the action is missing key 'points'"


def test_unknown_action_type():
    record, r, i = find(2, _silent_play)
    record["rounds"][r]["actions"][i]["type"] = "resign"
    assert_problem(record, f"round {r + 1}, action {i}: ", "draw, pass or play", "resign")


def test_action_after_the_round_ended():
    record = fresh(3, 0)
    assert verify_record(record) == []
    r = 0
    rnd_obj = record["rounds"][r]
    n = len(rnd_obj["actions"])
    rnd_obj["actions"].append({"seat": 0, "type": "pass"})
    assert problem(record) == f"round {r + 1}, action {n}: action after the round ended ({rnd_obj['end']})"


# ---------------------------------------------------------------------------
# Leaders
# ---------------------------------------------------------------------------


def _after_domino(record, r):
    if r > 0 and record["rounds"][r - 1]["end"] == "domino":
        domino = [e for e in record["rounds"][r - 1]["events"] if e["kind"] == "domino"]
        return domino[-1]["seat"]
    return None


@pytest.mark.parametrize("players", PLAYERS)
def test_wrong_leader_after_a_domino(players):
    record, r, dominoer = find(players, _after_domino)
    assert record["rounds"][r]["leader"] == dominoer
    wrong = (dominoer + 1) % players
    record["rounds"][r]["leader"] = wrong
    assert problem(record) == (f"round {r + 1}: expected leader {dominoer} (the dominoer of round "
                               f"{r}), found {wrong}")


def test_wrong_leader_consistent_with_actions_still_caught():
    """Rotate the seats of the whole round so play stays consistent: the leader rule still fires."""
    record, r, dominoer = find(2, _after_domino)
    rnd_obj = record["rounds"][r]
    rnd_obj["leader"] = 1 - dominoer
    rnd_obj["hands"] = rnd_obj["hands"][::-1]
    for a in rnd_obj["actions"]:
        a["seat"] = 1 - a["seat"]
    assert problem(record).startswith(f"round {r + 1}: expected leader {dominoer} (the dominoer")


def test_leader_out_of_range():
    record = fresh(4, 0)
    record["rounds"][0]["leader"] = 4
    assert problem(record) == "round 1: leader must be in 0..3, found 4"


# ---------------------------------------------------------------------------
# Settlement amounts
# ---------------------------------------------------------------------------


def _event_kind(kind: str, cond=lambda e: True):
    def predicate(record, r):
        for j, e in enumerate(record["rounds"][r]["events"]):
            if e["kind"] == kind and cond(e):
                return j
        return None
    return predicate


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("key", ["credit", "raw", "placement"])
def test_altered_domino_amount(players, key):
    record, r, j = find(players, _event_kind("domino"))
    event = record["rounds"][r]["events"][j]
    value = event[key]
    event[key] = value + 5
    assert problem(record) == f"round {r + 1}, event {j}: expected {key} {value}, found {value + 5}"


def test_domino_credit_is_the_rounded_opponent_pips():
    """The verifier's expected credit is round5 of the opponents' remaining pips."""
    record, r, j = find(3, _event_kind("domino", lambda e: e["credit"] > 0))
    state = state_before(record, r, len(record["rounds"][r]["actions"]))
    event = record["rounds"][r]["events"][j]
    seat = event["seat"]
    assert event["credit"] == round5(sum(pips(state.hands[s]) for s in range(3) if s != seat))
    event["credit"] -= 1  # an unrounded figure
    assert problem(record) == (f"round {r + 1}, event {j}: expected credit {event['credit'] + 1}, "
                               f"found {event['credit']}")


def test_altered_domino_debit_with_partner():
    record, r, j = find(4, _event_kind("domino", lambda e: e["debit"] > 0))
    event = record["rounds"][r]["events"][j]
    debit = event["debit"]
    # Shift credit and debit together so the net raw is unchanged.
    event["debit"] = debit - 5
    event["credit"] -= 5
    assert problem(record) == (f"round {r + 1}, event {j}: expected credit {event['credit'] + 5}, "
                               f"found {event['credit']}")
    event["credit"] += 5
    assert problem(record) == f"round {r + 1}, event {j}: expected debit {debit}, found {debit - 5}"


@pytest.mark.parametrize("players", [2, 3])
def test_debit_without_partner(players):
    record, r, j = find(players, _event_kind("domino"))
    event = record["rounds"][r]["events"][j]
    event["debit"] = 5
    event["raw"] -= 5
    assert problem(record) == f"round {r + 1}, event {j}: expected debit 0, found 5"


def test_negative_domino_net_must_be_recorded_exactly():
    record, r, j = find(4, _event_kind("domino", lambda e: e["raw"] < 0))
    event = record["rounds"][r]["events"][j]
    raw = event["raw"]
    event["raw"] = 0  # a floor at zero is not in the rules (ruling 10)
    assert problem(record) == f"round {r + 1}, event {j}: expected raw {raw}, found 0"


@pytest.mark.parametrize("players,kind,key,change", [
    *[(players, "blocked", "raw", 5) for players in PLAYERS],
    (2, "blocked", "seat", "other"),
    (2, "placement", "action", 1),
    (4, "placement", "entity", "other"),
])
def test_altered_event_field(players, kind, key, change):
    """An event's raw, seat, action or entity changed: ``expected <key> <old>, found <new>``."""
    record, r, j = find(players, _event_kind(kind))
    event = record["rounds"][r]["events"][j]
    old = event[key]
    new = 1 - old if change == "other" else old + change
    event[key] = new
    assert problem(record) == f"round {r + 1}, event {j}: expected {key} {old}, found {new}"


def test_blocked_event_with_zero_credit_must_not_be_recorded():
    """Ruling 11: a hand whose credit is 0 creates no event."""
    record, r, j = find(2, _event_kind("blocked"))
    events = record["rounds"][r]["events"]
    assert j == len(events) - 1  # two players: only the lighter hand has a credit
    heavy = 1 - events[j]["seat"]
    events.append({"entity": heavy, "kind": "blocked", "seat": heavy, "raw": 0,
                   "accepted": True})
    assert problem(record) == (f"round {r + 1}, event {j + 1}: expected no further event, "
                               f"found a blocked event")


def test_blocked_settlement_kind_swapped_for_domino():
    record, r, j = find(2, _event_kind("blocked"))
    event = record["rounds"][r]["events"][j]
    event["kind"] = "domino"
    assert problem(record) == f"round {r + 1}, event {j}: expected kind 'blocked', found 'domino'"


# ---------------------------------------------------------------------------
# Events: reordered, missing, extra, wrong keys
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_events_reordered(players):
    """Two adjacent placement events of one entity swapped: the first names the wrong action."""
    record, r, j = find(players, adjacent(
        "events", lambda a, b: a["kind"] == b["kind"] == "placement" and a["entity"] == b["entity"]))
    events = record["rounds"][r]["events"]
    first, second = events[j]["action"], events[j + 1]["action"]
    events[j], events[j + 1] = events[j + 1], events[j]
    assert problem(record) == f"round {r + 1}, event {j}: expected action {first}, found {second}"


def test_events_reordered_across_entities():
    record, r, j = find(3, adjacent("events", lambda a, b: a["entity"] != b["entity"]))
    events = record["rounds"][r]["events"]
    first, second = events[j]["entity"], events[j + 1]["entity"]
    events[j], events[j + 1] = events[j + 1], events[j]
    assert problem(record) == f"round {r + 1}, event {j}: expected entity {first}, found {second}"


@pytest.mark.parametrize("players", PLAYERS)
def test_missing_event(players):
    record, r, j = find(players, _event_kind("placement"))
    events = record["rounds"][r]["events"]
    dropped = events.pop(j)
    if j < len(events):
        assert problem(record).startswith(f"round {r + 1}, event {j}: expected ")
    else:
        assert_problem(record, f"round {r + 1}, event {j}: ", "expected a placement event",
                       f"raw {dropped['raw']}", "found none")


def test_missing_last_event():
    record = fresh(2, 0)
    rnd_obj = record["rounds"][0]
    last = rnd_obj["events"].pop()
    j = len(rnd_obj["events"])
    assert problem(record) == (f"round 1, event {j}: expected a {last['kind']} event (entity "
                               f"{last['entity']}, raw {last['raw']}, "
                               f"{'accepted' if last['accepted'] else 'discarded'}), found none")


def test_extra_event():
    record = fresh(3, 1)
    rnd_obj = record["rounds"][0]
    j = len(rnd_obj["events"])
    rnd_obj["events"].append(dict(rnd_obj["events"][-1]))
    assert problem(record) == (f"round 1, event {j}: expected no further event, found a "
                               f"{rnd_obj['events'][-1]['kind']} event")


def test_extra_key_inside_an_event():
    record, r, j = find(2, _event_kind("placement"))
    record["rounds"][r]["events"][j]["why"] = "bonus"
    assert problem(record) == f"round {r + 1}, event {j}: the placement event has unexpected key 'why'"


# ---------------------------------------------------------------------------
# Round end, round winner, scores
# ---------------------------------------------------------------------------


def _end(kind: str, cond=lambda rnd_obj: True):
    def predicate(record, r):
        rnd_obj = record["rounds"][r]
        return rnd_obj["end"] == kind and cond(rnd_obj) or None
    return predicate


@pytest.mark.parametrize("players", PLAYERS)
def test_wrong_round_winner_after_domino(players):
    record, r, _ = find(players, _end("domino"))
    rnd_obj = record["rounds"][r]
    winner = rnd_obj["winner"]
    n_entities = max(record["entities"]) + 1
    rnd_obj["winner"] = (winner + 1) % n_entities
    assert problem(record) == (f"round {r + 1}: expected round winner {winner}, "
                               f"found {(winner + 1) % n_entities}")


def test_domino_round_winner_null():
    record, r, _ = find(3, _end("domino"))
    winner = record["rounds"][r]["winner"]
    record["rounds"][r]["winner"] = None
    assert problem(record) == f"round {r + 1}: expected round winner {winner}, found null"


def test_wrong_round_winner_after_block():
    record, r, _ = find(2, _end("blocked", lambda o: o["winner"] is not None))
    rnd_obj = record["rounds"][r]
    winner = rnd_obj["winner"]
    rnd_obj["winner"] = 1 - winner
    assert problem(record) == f"round {r + 1}: expected round winner {winner}, found {1 - winner}"


def test_blocked_tie_has_no_round_winner():
    record, r, _ = find(3, _end("blocked", lambda o: o["winner"] is None))
    record["rounds"][r]["winner"] = 0
    assert problem(record) == f"round {r + 1}: expected round winner null, found 0"


def test_target_round_has_no_round_winner():
    record, r, _ = find(2, _end("target"))
    rnd_obj = record["rounds"][r]
    scorer = rnd_obj["events"][-1]["entity"]
    rnd_obj["winner"] = scorer
    assert problem(record) == f"round {r + 1}: expected round winner null, found {scorer}"


def test_wrong_round_end():
    record, r, _ = find(2, _end("domino"))
    record["rounds"][r]["end"] = "blocked"
    assert problem(record) == f"round {r + 1}: expected end 'domino', found 'blocked'"


@pytest.mark.parametrize("players", PLAYERS)
def test_wrong_scores_after_a_round(players):
    record = fresh(players, 0)
    r = 0
    scores = record["rounds"][r]["scores"]
    wrong = [s + 5 for s in scores]
    record["rounds"][r]["scores"] = wrong
    assert problem(record) == f"round {r + 1}: expected scores after the round {scores}, found {wrong}"


def test_scores_as_floats_are_rejected():
    record = fresh(2, 0)
    scores = record["rounds"][0]["scores"]
    record["rounds"][0]["scores"] = [float(s) for s in scores]
    assert problem(record).startswith("round 1: expected scores after the round ")
    record = fresh(2, 0)
    record["scores"] = [float(s) for s in record["scores"]]
    assert problem(record).startswith("expected final scores ")


def test_entities_as_booleans_are_rejected():
    record = fresh(2, 0)
    record["entities"] = [False, True]
    assert problem(record) == "expected entities [0, 1], found [False, True]"


@pytest.mark.parametrize("players", PLAYERS)
def test_wrong_final_scores(players):
    record = fresh(players, 0)
    scores = record["scores"]
    wrong = list(scores)
    loser = next(e for e, s in enumerate(scores) if s != TARGET_RAW)
    wrong[loser] += 5
    record["scores"] = wrong
    assert problem(record) == f"expected final scores {scores}, found {wrong}"


def test_final_scores_not_those_of_the_last_round():
    record = fresh(2, 1)
    assert len(record["rounds"]) >= 2
    record["scores"] = record["rounds"][-2]["scores"]
    assert problem(record) == (f"expected final scores {record['rounds'][-1]['scores']}, "
                               f"found {record['rounds'][-2]['scores']}")


@pytest.mark.parametrize("players", PLAYERS)
def test_wrong_match_winner(players):
    record = fresh(players, 0)
    winner = record["winner"]
    assert winner is not None and record["scores"][winner] == TARGET_RAW
    n_entities = max(record["entities"]) + 1
    record["winner"] = (winner + 1) % n_entities
    assert problem(record) == f"expected match winner {winner}, found {(winner + 1) % n_entities}"


def test_finished_match_claimed_unfinished():
    record = fresh(3, 2)
    winner = record["winner"]
    record["winner"] = None
    assert problem(record) == f"expected match winner {winner}, found null"


def test_unfinished_match_claiming_a_winner():
    record = fresh(2, 0, max_rounds=2)
    record["winner"] = 0
    assert problem(record) == "expected match winner null, found 0"


# ---------------------------------------------------------------------------
# Truncated matches and rounds after the end
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("drop", [1, 2])
def test_truncated_match(players, drop):
    record = fresh(players, 3)
    n = len(record["rounds"])
    assert n > drop
    del record["rounds"][n - drop:]
    record["winner"] = None
    record["scores"] = list(record["rounds"][-1]["scores"])
    assert problem(record) == (f"the match stops after {n - drop} rounds with no entity at "
                               f"{TARGET_RAW} and below its round limit of 1000")


def test_truncated_unfinished_match():
    record = fresh(3, 0, max_rounds=3)
    assert record["winner"] is None and len(record["rounds"]) == 3
    del record["rounds"][-1]
    record["scores"] = list(record["rounds"][-1]["scores"])
    assert problem(record) == (f"the match stops after 2 rounds with no entity at "
                               f"{TARGET_RAW} and below its round limit of 3")


def test_more_rounds_than_the_round_limit():
    record = fresh(2, 0, max_rounds=3)
    record["max_rounds"] = 2
    assert problem(record) == "expected at most 2 rounds (the round limit), found 3"


def test_truncated_match_keeping_its_winner():
    record = fresh(2, 3)
    winner = record["winner"]
    del record["rounds"][-1]
    assert verify_record(record) != []
    assert problem(record) == (f"the match stops after {len(record['rounds'])} rounds with no "
                               f"entity at {TARGET_RAW} and below its round limit of 1000")
    assert winner is not None


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("keep", ["all-but-one", "half", "none"])
def test_actions_of_the_last_round_cut(players, keep):
    record = fresh(players, 4)
    r = len(record["rounds"]) - 1
    actions = record["rounds"][r]["actions"]
    cut = {"all-but-one": len(actions) - 1, "half": len(actions) // 2, "none": 0}[keep]
    seat = actions[cut]["seat"]
    del actions[cut:]
    assert problem(record) == f"round {r + 1}: the actions stop before the round ends (seat {seat} to act)"


def test_events_of_the_last_round_cut():
    record = fresh(2, 4)
    r = len(record["rounds"]) - 1
    events = record["rounds"][r]["events"]
    last = events.pop()
    assert last["accepted"] and last["raw"] > 0
    assert_problem(record, f"round {r + 1}, event {len(events)}: ", f"expected a {last['kind']} event",
                   "found none")


def test_no_rounds():
    record = fresh(2, 0)
    record["rounds"] = []
    record["winner"] = None
    record["scores"] = [0, 0]
    assert problem(record) == "a match has at least one round, found none"


@pytest.mark.parametrize("players", PLAYERS)
def test_further_round_after_the_match_ended(players):
    record = fresh(players, 0)
    n = len(record["rounds"])
    record["rounds"].append(copy.deepcopy(record["rounds"][0]))
    assert problem(record) == (f"round {n + 1}: the match ended in round {n} at {TARGET_RAW}, "
                               f"found a further round")


def test_further_round_appended_with_consistent_scores():
    """Even a round that replays cleanly cannot follow the winning round."""
    record = fresh(2, 0)
    extra = copy.deepcopy(fresh(2, 1)["rounds"][0])
    record["rounds"].append(extra)
    n = len(record["rounds"]) - 1
    assert problem(record) == (f"round {n + 1}: the match ended in round {n} at {TARGET_RAW}, "
                               f"found a further round")


# ---------------------------------------------------------------------------
# Deals
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_duplicated_tile_in_a_deal(players):
    record = fresh(players, 0)
    r = 1
    hands = record["rounds"][r]["hands"]
    duplicate = hands[0][2]
    hands[1][0] = list(duplicate)
    assert problem(record) == f"round {r + 1}: tile {name(normal(duplicate))} appears twice in the deal"


def test_duplicated_tile_with_halves_reversed():
    record = fresh(3, 0)
    hands = record["rounds"][0]["hands"]
    tile = next(t for t in hands[0] if t[0] != t[1])
    hands[2][4] = tile[::-1]
    assert problem(record) == f"round 1: tile {name(normal(tile))} appears twice in the deal"


def test_duplicated_tile_between_hand_and_boneyard():
    record = fresh(2, 0)
    rnd_obj = record["rounds"][0]
    tile = rnd_obj["hands"][1][3]
    rnd_obj["boneyard"][-1] = list(tile)
    assert problem(record) == f"round 1: tile {name(normal(tile))} appears twice in the deal"


def test_duplicated_tile_within_one_hand():
    record = fresh(4, 0)
    hand = record["rounds"][0]["hands"][3]
    hand[1] = list(hand[0])
    assert problem(record) == f"round 1: tile {name(normal(hand[0]))} appears twice in the deal"


def test_hand_of_the_wrong_size():
    record = fresh(2, 0)
    record["rounds"][0]["hands"][1].append(record["rounds"][0]["boneyard"].pop())
    assert problem(record) == "round 1: expected 5 items in seat 1's hand, found 6"


def test_out_of_range_tile_in_a_deal():
    record = fresh(2, 0)
    record["rounds"][0]["hands"][0][0] = [0, 7]
    assert problem(record) == "round 1: a dealt tile half must be in 0..6, found 7"


def test_boneyard_missing_a_tile():
    record = fresh(3, 0)
    record["rounds"][0]["boneyard"].pop()
    assert problem(record) == "round 1: expected 13 items in boneyard, found 12"


# ---------------------------------------------------------------------------
# Match header
# ---------------------------------------------------------------------------


def test_wrong_format():
    record = fresh(2, 0)
    record["format"] = "exact61-record/2"
    assert problem(record) == f"expected format \"{FORMAT}\", found 'exact61-record/2'"


def test_wrong_entities_for_four_players():
    record = fresh(4, 0)
    record["entities"] = [0, 1, 2, 3]
    assert problem(record) == "expected entities [0, 1, 0, 1], found [0, 1, 2, 3]"


def test_players_disagreeing_with_hands():
    record = fresh(3, 0)
    record["players"] = 2
    record["entities"] = [0, 1]
    record["strategies"] = record["strategies"][:2]
    assert problem(record) == "round 1: expected 2 items in hands, found 3"


def test_missing_match_key():
    record = fresh(2, 0)
    del record["winner"]
    assert problem(record) == "the record is missing key 'winner'"
