"""Scripted situations for every ruling, each with hand-computed figures.

Each test drives :class:`sim.reference.Round` (or :class:`Layout`) through a
position built by hand; the expected numbers in the asserts were worked out on
paper, with the arithmetic in the comments. Ruling numbers refer to
``docs/rules.md``.
"""

from __future__ import annotations

import pytest

from sim.reference import (
    ARM,
    LINE,
    Layout,
    Placement,
    Round,
    RuleError,
    award,
    greedy_policy,
    play_match,
    round5,
)
from core.tiles import entities_for
from sim.verify import verify_record


def scripted(hands, boneyard=(), leader=0, scores=None):
    """A round over exactly these tiles (the rest of the set is out of play)."""
    players = len(hands)
    entities = entities_for(players)
    if scores is None:
        scores = [0] * (max(entities) + 1)
    return Round(hands, list(boneyard), leader, scores, entities)


def opening(a, b):
    return Placement((a, b), None, None)


def on(parent, joined, open_half, side=LINE):
    return Placement((joined, open_half), parent, side)


# --- Rulings 1-3: nodes, line sides, spinners, the scoring total -------------


def test_ruling1_opening_non_double_has_two_line_sides():
    layout = Layout()
    layout.place(opening(2, 3))
    # Both halves are open ends: 2 + 3 = 5, a scoring total.
    assert layout.total() == 5
    assert [(c.parent, c.side, c.value) for c in layout.connections()] == [(0, LINE, 2), (0, LINE, 3)]
    layout.place(on(0, 3, 4))
    # The 3 side is used; ends are now 2 and 4 -> 6.
    assert layout.total() == 6
    assert {(c.parent, c.value) for c in layout.connections()} == {(0, 2), (1, 4)}


def test_ruling3_lone_opening_double_counts_once():
    layout = Layout()
    layout.place(opening(5, 5))
    assert layout.total() == 10  # 2 * 5 once, not per line side
    assert award(layout.total()) == 10
    zero = Layout()
    zero.place(opening(0, 0))
    assert zero.total() == 0 and award(0) == 0  # a total of 0 scores nothing
    three = Layout()
    three.place(opening(3, 3))
    assert award(three.total()) == 0  # 6 is not a multiple of 5


def test_seed_example_terminal_double_then_internal():
    layout = Layout()
    layout.place(opening(3, 6))  # ends 3 and 6: total 9
    layout.place(on(0, 6, 6))  # 6-6 on the 6: terminal double 12, other end 3
    assert layout.total() == 15  # 15 raw = 3 displayed (the seed's example)
    assert award(layout.total()) // 5 == 3
    layout.place(on(1, 6, 2))  # continue the 6-6's free line side
    # Both line sides of 6-6 occupied: it adds nothing; ends are 3 and 2.
    assert layout.total() == 5


def test_ruling2_arms_open_only_after_both_line_sides():
    layout = Layout()
    layout.place(opening(6, 6))
    # A lone opening double: its two line sides are one connection, no arms yet.
    assert [(c.parent, c.side) for c in layout.connections()] == [(0, LINE)]
    assert layout.placements_for((6, 4)) == [Placement((6, 4), 0, LINE)]
    layout.place(on(0, 6, 4))
    assert layout.total() == 12 + 4  # still terminal (one line side free)
    assert not layout.is_legal(on(0, 6, 1, ARM))  # arm before both line sides
    layout.place(on(0, 6, 1))
    assert layout.total() == 4 + 1  # spinner internal: 0
    # Now the arms open: the two arms are ONE placement (ruling 4).
    assert layout.placements_for((6, 3)) == [Placement((6, 3), 0, ARM)]
    layout.place(on(0, 6, 3, ARM))
    assert layout.total() == 4 + 1 + 3  # the unused arm contributes 0
    # The other arm is still free and is still one placement.
    assert layout.placements_for((5, 6)) == [Placement((6, 5), 0, ARM)]
    layout.place(on(0, 6, 5, ARM))
    assert layout.total() == 4 + 1 + 3 + 5
    assert layout.placements_for((0, 6)) == []  # line sides and arms all used


def test_double_played_on_a_branch_is_a_spinner():
    layout = Layout()
    layout.place(opening(1, 4))  # 5
    layout.place(on(0, 4, 4))  # 4-4 terminal: 1 + 8 = 9
    assert layout.total() == 9
    assert [c.side for c in layout.connections() if c.parent == 1] == [LINE]
    layout.place(on(1, 4, 2))  # 4-4 internal: 1 + 2 = 3
    assert layout.total() == 3
    assert [c.side for c in layout.connections() if c.parent == 1] == [ARM]


# --- Ruling 4: what counts as one placement ---------------------------------


def test_ruling4_tile_matching_two_ends_has_two_placements():
    layout = Layout()
    layout.place(opening(1, 2))
    layout.place(on(0, 2, 5))  # ends 1 and 5
    assert layout.placements_for((1, 5)) == [Placement((1, 5), 0, LINE), Placement((5, 1), 1, LINE)]


def test_ruling4_opening_any_tile_either_order():
    rnd = scripted([[(2, 4), (1, 1)], [(0, 0)]])
    assert rnd.legal_placements(0) == [opening(1, 1), opening(2, 4)]
    rnd.play(0, opening(4, 2))
    assert rnd.actions[0]["tile"] == [4, 2] and rnd.actions[0]["parent"] is None


# --- Rulings 5-6: must play, forced draws, passes, blocks -------------------


def test_ruling5_forced_draws_from_front_then_place_drawn_tile():
    rnd = scripted([[(6, 6), (1, 2)], [(0, 1), (0, 2)]], boneyard=[(3, 4), (0, 6), (2, 3)])
    rnd.play(0, opening(6, 6))
    with pytest.raises(RuleError):
        rnd.pass_turn(1)  # the boneyard is not empty
    assert rnd.draw(1) == (3, 4)  # not playable: keep drawing
    with pytest.raises(RuleError):
        rnd.play(1, on(0, 4, 3))  # 3-4 matches nothing
    assert rnd.draw(1) == (0, 6)  # playable: stop
    with pytest.raises(RuleError):
        rnd.draw(1)  # holding a legal placement now, may not draw
    assert rnd.lacking[1] == {6}  # it drew with only 6 open: known to lack 6
    points = rnd.play(1, on(0, 6, 0))
    assert points == 0  # 12 (6-6 still terminal) + 0 = 12
    assert [a["type"] for a in rnd.actions] == ["play", "draw", "draw", "play"]
    assert rnd.turn == 0 and rnd.boneyard == [(2, 3)]


def test_ruling5_must_play_when_holding_a_placement():
    rnd = scripted([[(6, 6), (1, 2)], [(6, 1), (0, 2)]], boneyard=[(3, 4)])
    rnd.play(0, opening(6, 6))
    with pytest.raises(RuleError):
        rnd.draw(1)
    with pytest.raises(RuleError):
        rnd.play(0, on(0, 6, 1))  # not seat 0's turn


def test_ruling5_pass_recorded_and_ruling6_blocked_at_once():
    rnd = scripted([[(6, 6), (1, 1)], [(6, 5), (5, 2), (4, 4)]])
    rnd.play(0, opening(6, 6))
    rnd.play(1, on(0, 6, 5))  # 12 + 5 = 17, no score
    rnd.pass_turn(0)  # 1-1 matches neither 6 nor 5 and the boneyard is empty
    assert not rnd.over  # seat 1 can still play
    rnd.play(1, on(1, 5, 2))  # ends 6 (terminal 6-6: 12) and 2 = 14
    # Nobody can play 6 or 2: blocked at once, with no further pass recorded.
    assert rnd.end == "blocked"
    assert [a["type"] for a in rnd.actions] == ["play", "play", "pass", "play"]
    # Hands: seat 0 holds 1-1 (2), seat 1 holds 4-4 (8): credit round5(8 - 2 = 6) = 5.
    assert [e.as_record() for e in rnd.events] == [
        {"entity": 0, "kind": "blocked", "seat": 0, "raw": 5, "accepted": True}]
    assert rnd.winner == 0 and rnd.scores == [5, 0]


def test_ruling6_blocked_right_after_the_opening():
    rnd = scripted([[(5, 5), (1, 2)], [(3, 4), (6, 6)]])
    assert rnd.play(0, opening(5, 5)) == 10
    assert rnd.end == "blocked"
    # Totals 3 and 19: seat 0 gets round5(16) = 15; seat 1 has no heavier hand.
    assert [(e.kind, e.entity, e.raw) for e in rnd.events] == [("placement", 0, 10), ("blocked", 0, 15)]
    assert rnd.scores == [25, 0] and rnd.winner == 0


# --- Ruling 7: seats and entities -------------------------------------------


def test_ruling7_entities():
    assert entities_for(2) == (0, 1)
    assert entities_for(3) == (0, 1, 2)
    assert entities_for(4) == (0, 1, 0, 1)


# --- Rulings 8-9: events and the target test --------------------------------


def test_ruling9_non_scoring_placement_creates_no_event():
    rnd = scripted([[(1, 2), (0, 0)], [(2, 6), (4, 4)]], boneyard=[(3, 3)])
    rnd.play(0, opening(1, 2))  # 3: nothing
    rnd.play(1, on(0, 2, 6))  # 1 + 6 = 7: nothing
    assert rnd.events == [] and [a["points"] for a in rnd.actions] == [0, 0]


def test_ruling8_overshooting_award_discarded_whole():
    rnd = scripted([[(5, 5), (1, 1), (2, 2)], [(5, 0), (3, 3), (4, 4)]], boneyard=[(6, 6)],
                   scores=[300, 0])
    assert rnd.play(0, opening(5, 5)) == 10
    ev = rnd.events[0].as_record()
    assert ev == {"entity": 0, "kind": "placement", "action": 0, "raw": 10, "accepted": False}
    assert rnd.scores == [300, 0] and not rnd.over  # play continues
    assert rnd.play(1, on(0, 5, 0)) == 10  # 10 (5-5 terminal) + 0
    assert rnd.scores == [300, 10]


def test_ruling8_exact_305_ends_match_at_once():
    rnd = scripted([[(5, 5), (1, 1)], [(5, 0), (3, 3)]], boneyard=[(6, 6)], scores=[295, 0])
    rnd.play(0, opening(5, 5))  # 295 + 10 = 305 exactly
    assert rnd.match_over and rnd.end == "target" and rnd.winner is None
    assert rnd.scores == [305, 0]
    with pytest.raises(RuleError):
        rnd.play(1, on(0, 5, 0))  # nothing after the winning event


# --- Rulings 10 and 12: domino settlement and round5 ------------------------


@pytest.mark.parametrize(
    "amount, expected",
    [(0, 0), (1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (6, 5), (7, 5), (8, 10), (12, 10),
     (13, 15), (16, 15), (23, 25), (44, 45), (46, 45)],
)
def test_ruling12_round5(amount, expected):
    assert round5(amount) == expected


def test_ruling10_domino_two_players_with_placement_points():
    rnd = scripted([[(2, 3)], [(6, 6), (1, 3)]])
    rnd.play(0, opening(2, 3))  # total 5: 5 points, and seat 0's hand is empty
    assert rnd.end == "domino" and rnd.winner == 0
    # Opponent pips 12 + 4 = 16 -> round5 15; no partner: debit 0. Net 5 + 15 = 20.
    assert [e.as_record() for e in rnd.events] == [{
        "entity": 0, "kind": "domino", "seat": 0, "placement": 5, "credit": 15, "debit": 0,
        "raw": 20, "accepted": True}]
    assert rnd.scores == [20, 0]


def test_ruling10_partner_debit_negative_net_and_combined_rounding():
    hands = [[(1, 2)], [(0, 1)], [(6, 6), (5, 6)], [(0, 0), (0, 2)]]
    rnd = scripted(hands)
    rnd.play(0, opening(1, 2))  # total 3: no points
    # Opponents 1 + 2 = 3 pips, rounded ONCE -> 5 (separately 0 + 0 would be 0).
    # Partner 12 + 11 = 23 -> 25. Net 0 + 5 - 25 = -20: recorded and accepted.
    assert [e.as_record() for e in rnd.events] == [{
        "entity": 0, "kind": "domino", "seat": 0, "placement": 0, "credit": 5, "debit": 25,
        "raw": -20, "accepted": True}]
    assert rnd.scores == [-20, 0]  # no floor (ruling 10)


def test_ruling10_zero_net_domino_is_still_an_event():
    rnd = scripted([[(1, 2)], [(0, 1)], [(0, 2)], [(0, 0)]])
    rnd.play(0, opening(1, 2))
    # Opponents 1 + 0 = 1 -> 0; partner 2 -> 0; placement 0: net 0, recorded.
    assert [(e.kind, e.raw, e.accepted) for e in rnd.events] == [("domino", 0, True)]


def test_ruling10_domino_passing_305_discarded_whole():
    rnd = scripted([[(2, 3)], [(6, 6), (1, 3)]], scores=[290, 0])
    rnd.play(0, opening(2, 3))
    # 5 + 15 = 20 would take 290 to 310: every component discarded together.
    assert [(e.raw, e.accepted) for e in rnd.events] == [(20, False)]
    assert rnd.scores == [290, 0] and rnd.end == "domino" and not rnd.match_over


def test_ruling10_final_placement_is_not_a_separate_event():
    rnd = scripted([[(2, 3)], [(6, 6), (1, 3)]], scores=[300, 0])
    rnd.play(0, opening(2, 3))
    # Alone the 5 would land on 305; combined (20) it overshoots, so nothing lands.
    assert len(rnd.events) == 1 and rnd.events[0].kind == "domino" and rnd.scores == [300, 0]


# --- Rulings 11 and 13: blocked settlement ----------------------------------


def blocked_after_opening(hands, leader, scores=None):
    """The leader opens 0-0 and no other tile holds a 0: blocked at once."""
    rnd = scripted(hands, leader=leader, scores=scores)
    rnd.play(leader, opening(0, 0))
    assert rnd.end == "blocked"
    return rnd


def test_ruling11_equal_totals_across_partnerships():
    # Totals after the opening: seat0 7, seat1 7, seat2 12, seat3 20; leader 2.
    hands = [[(1, 6)], [(2, 5)], [(0, 0), (6, 6)], [(4, 6), (5, 5)]]
    rnd = blocked_after_opening(hands, leader=2)
    # Order: 7s tie, clockwise from seat 2 -> seat 0 then seat 1; then 12, 20.
    assert rnd.blocked_order() == [0, 1, 2, 3]
    # seat0: opposing heavier = seat3 only (seat1 equal): 13 -> 15
    # seat1: opposing heavier = seat2: 5 -> 5
    # seat2: opposing heavier = seat3: 8 -> 10; seat3: none -> no event
    assert [(e.seat, e.entity, e.raw) for e in rnd.events] == [(0, 0, 15), (1, 1, 5), (2, 0, 10)]
    assert rnd.scores == [25, 5]
    assert rnd.winner is None  # lightest 7 shared across partnerships: a tie


def test_ruling11_equal_totals_within_partnership():
    # Totals: seat0 7, seat1 9, seat2 7, seat3 20; leader 1.
    hands = [[(3, 4)], [(0, 0), (3, 6)], [(1, 6)], [(4, 6), (5, 5)]]
    rnd = blocked_after_opening(hands, leader=1)
    # 7s tie: clockwise from seat 1 -> seat 2 before seat 0.
    assert rnd.blocked_order() == [2, 0, 1, 3]
    # seat2 and seat0 each: (9 - 7) + (20 - 7) = 15 -> 15; never compared with a partner.
    # seat1 (9): the opposing hands are 7 and 7, not heavier: no event.
    assert [(e.seat, e.entity, e.raw) for e in rnd.events] == [(2, 0, 15), (0, 0, 15)]
    assert rnd.winner == 0  # a tie inside one partnership names it


def test_ruling11_three_players_aggregate_rounded_once():
    # Totals after seat 0 opens 0-0: seat0 2, seat1 3, seat2 4.
    hands = [[(0, 0), (1, 1)], [(1, 2)], [(2, 2)]]
    rnd = blocked_after_opening(hands, leader=0)
    # seat0 (2): (3 - 2) + (4 - 2) = 3 -> 5 (separately: 1 -> 0, 2 -> 0)
    # seat1 (3): (4 - 3) = 1 -> 0: no event. seat2: nothing heavier.
    assert [(e.seat, e.raw) for e in rnd.events] == [(0, 5)]
    assert rnd.winner == 0


def test_match_ends_in_the_middle_of_blocked_settlement():
    hands = [[(1, 6)], [(2, 5)], [(0, 0), (6, 6)], [(4, 6), (5, 5)]]
    rnd = blocked_after_opening(hands, leader=2, scores=[295, 300])
    # seat0's 15 takes entity 0 to 310: discarded. seat1's 5 lands entity 1 on 305:
    # the match ends, and seat2's 10 (which would have put entity 0 on 305) is never applied.
    assert [e.as_record() for e in rnd.events] == [
        {"entity": 0, "kind": "blocked", "seat": 0, "raw": 15, "accepted": False},
        {"entity": 1, "kind": "blocked", "seat": 1, "raw": 5, "accepted": True},
    ]
    assert rnd.scores == [295, 305] and rnd.match_over
    assert rnd.end == "blocked" and rnd.winner is None


# --- Rulings 14-15: leaders and the round limit -----------------------------


def test_ruling14_dominoer_leads_next_round():
    for match in range(40):
        record = play_match(3, ["random"] * 3, seed=7, match=match)
        for before, after in zip(record["rounds"], record["rounds"][1:]):
            if before["end"] == "domino":
                dominoer = before["events"][-1]["seat"]
                assert after["leader"] == dominoer


def test_ruling14_lot_is_uniform_over_seats():
    counts = [0, 0, 0, 0]
    n = 800
    for match in range(n):
        record = play_match(4, ["random"] * 4, seed=3, match=match, max_rounds=1)
        counts[record["rounds"][0]["leader"]] += 1
    # Each seat expects 200; sd = sqrt(800 * 1/4 * 3/4) ~ 12.2; 5 sd bounds.
    assert all(139 <= c <= 261 for c in counts), counts


def test_ruling15_round_limit_stops_unfinished():
    record = play_match(2, ["random", "random"], seed=1, match=0, max_rounds=2)
    assert len(record["rounds"]) == 2 and record["winner"] is None
    assert max(record["scores"]) < 305
    assert verify_record(record) == []


# --- greedy, by hand ---------------------------------------------------------


def test_greedy_prefers_largest_accepted_award_then_heavier_tile():
    rnd = scripted([[(1, 4), (5, 5), (6, 6)], [(0, 1)]], boneyard=[(3, 3)])
    view = rnd.view(0)
    choices = rnd.legal_placements(0)
    # Opening awards: 1-4 -> 5, 5-5 -> 10, 6-6 -> 12 (no score).
    assert greedy_policy(view, choices, None) == opening(5, 5)
    near = scripted([[(1, 4), (5, 5), (6, 6)], [(0, 1)]], boneyard=[(3, 3)], scores=[300, 0])
    # At 300 the 10 would be discarded (counts 0); 1-4's 5 lands exactly.
    assert greedy_policy(near.view(0), near.legal_placements(0), None) == opening(1, 4)
    none = scripted([[(1, 4), (5, 5), (6, 6)], [(0, 1)]], boneyard=[(3, 3)], scores=[302, 0])
    # Nothing is acceptable: every award counts 0, the heaviest tile 6-6 wins the tie.
    assert greedy_policy(none.view(0), none.legal_placements(0), None) == opening(6, 6)


# --- What a player may know -------------------------------------------------


def test_known_lacking_values_after_draws_and_passes():
    rnd = scripted([[(6, 6), (1, 2)], [(0, 1), (0, 2)]], boneyard=[(3, 4), (0, 6)])
    rnd.lacking[1] = {5}  # as if seat 1 had drawn earlier with only 5 open
    rnd.play(0, opening(6, 6))
    rnd.draw(1)
    # The drawn 3-4 is unseen and could carry the 5: only "lacks 6" is known now.
    assert rnd.view(0).lacking[1] == frozenset({6})
    passer = scripted([[(6, 6), (1, 6)], [(0, 1), (0, 2)]])
    passer.lacking[1] = {5}
    passer.play(0, opening(6, 6))
    assert passer.end is None  # seat 0 can still play its 1-6: not blocked
    passer.pass_turn(1)  # no tile added: the old knowledge stands, plus 6
    assert passer.view(0).lacking[1] == frozenset({5, 6})


def test_view_hides_other_hands_and_boneyard():
    rnd = scripted([[(6, 6), (1, 2)], [(0, 1), (0, 2)]], boneyard=[(3, 4), (0, 6)])
    view = rnd.view(0)
    assert view.hand == ((1, 2), (6, 6))
    assert view.hand_sizes == (2, 2) and view.boneyard_size == 2
    names = set(view.__dataclass_fields__)
    assert not {"hands", "boneyard"} & names
