"""The replay page (``five-up show --html``) without a browser: its states, its seat views,
its escaping and its self-containedness, against expectations worked out from the records."""

from __future__ import annotations

import copy
import json
import re

import pytest

from sim.display.layout_scene import VIEW_PAD, round_scene
from sim.display.replay_page import replay_page, write_replay_page
from sim.display.replay_states import replay_states
from sim.reference import play_match
from tests.display.replay_expected import (
    analysis_rows,
    edge_records,
    expected_open_ends,
    expected_steps,
    golden,
    page_data,
    pair,
    tiles_named,
)

HOSTILE = "</script><script>alert(1)</script>"


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    """Golden records of every table size and the reference's edge matches, by name."""
    found = {f"golden {p}p match {m}": record for p in (2, 3, 4) for m, record in enumerate(golden(p))}
    found.update(edge_records())
    return found


@pytest.fixture(scope="module")
def states(records) -> dict[tuple[str, int | None], dict]:
    """Every record's replay data in the full view and in each seat's view."""
    return {(name, seat): replay_states(record, seat)
            for name, record in records.items()
            for seat in [None, *range(record["players"])]}


PAGE_KEYS = [(f"golden {p}p match 0", seat) for p in (2, 3, 4) for seat in (None, 1)] + [
    ("4p match won by a blocked event", None), ("4p match won by a blocked event", 2)]
"""The records and views whose whole pages are built (each embeds a layout SVG per round)."""


@pytest.fixture(scope="module")
def pages(records) -> dict[tuple[str, int | None], str]:
    """The pages of :data:`PAGE_KEYS`."""
    return {(name, seat): replay_page(records[name], seat) for name, seat in PAGE_KEYS}


def shown_hand(hand: dict) -> list[tuple[int, int]] | None:
    if "tiles" not in hand:
        return None
    return [pair([int(half) for half in name.split("-")]) for name in hand["tiles"]]


def test_the_edge_matches_hold_the_rare_events(records):
    # The edge records must keep covering what they were chosen for.
    events = [(e["kind"], e["accepted"]) for r in records.values() for rnd in r["rounds"]
              for e in rnd["events"]]
    for wanted in [("placement", False), ("domino", False), ("blocked", True), ("blocked", False)]:
        assert wanted in events
    ends = [rnd["end"] for r in records.values() for rnd in r["rounds"]]
    assert {"domino", "blocked", "target"} <= set(ends)
    assert records["4p match won by a blocked event"]["rounds"][-1]["end"] == "blocked"


def test_states_match_the_record_at_every_step(records, states):
    for (name, seat), data in states.items():
        record = records[name]
        expected = expected_steps(record, seat)
        assert len(data["steps"]) == len(expected), name
        for k, (step, want) in enumerate(zip(data["steps"], expected)):
            where = (name, seat, k)
            assert (step["round"], step["kind"], step["placed"]) == \
                (want.round, want.kind, want.placed), where
            assert step["boneyard"] == want.boneyard, where
            assert step["scores"] == want.scores, where
            assert step["shown"] == [str(v // 5) for v in want.scores], where
            assert [(e["kind"], e["accepted"]) for e in step["events"]] == \
                [(kind, accepted) for kind, accepted, _, _ in want.events], where
            for hand, tiles, hidden in zip(step["hands"], want.hands, want.hidden):
                assert shown_hand(hand) == (None if hidden else tiles), where
                if hidden:
                    assert hand["count"] == len(tiles), where
        rounds = data["rounds"]
        assert [r["end"] for r in rounds] == [r["end"] for r in record["rounds"]]
        assert rounds[-1]["last"] == len(data["steps"]) - 1


def test_the_page_embeds_the_states(pages, states):
    for key, page in pages.items():
        data = page_data(page)
        # The page adds its layouts' zoom and open ends (checked below) to the states.
        assert set(data.pop("zoom")) == {"digit", "leastDigit", "most", "stackedBelow",
                                         "leastHeight", "reservedHeight"}
        for info in data["rounds"]:
            del info["views"], info["tally"]
        assert data == json.loads(json.dumps(states[key])), key


def test_the_open_ends_and_total_after_every_placement_of_every_round(records, pages):
    for (name, seat), page in pages.items():
        record = records[name]
        for r, info in enumerate(page_data(page)["rounds"]):
            plays = sum(a["type"] == "play" for a in record["rounds"][r]["actions"])
            assert len(info["tally"]) == len(info["views"]) == plays + 1, (name, r)
            for placed, tally in enumerate(info["tally"]):
                ends, total = expected_open_ends(record, r, placed)
                where = (name, seat, r, placed)
                assert sorted(v for v in tally["ends"] if v) == ends, where
                assert tally["total"] == total, where
                assert f"total {total}" in tally["text"] or placed == 0, where


def test_each_view_holds_what_its_step_draws(records):
    # What step k draws: the first k tiles and their labels (a prefix scene's boxes), its marks.
    record = records["golden 4p match 0"]
    for r in range(len(record["rounds"])):
        scene = round_scene(record, r, every_step=True)
        assert len(scene.views) == len(scene.steps) == len(scene.step_geometry)
        for k, (x0, y0, x1, y1) in enumerate(scene.views):
            boxes = [box for _, _, box in round_scene(record, r, k).boxes]
            assert len(boxes) >= min(k, 1), (r, k)
            for box in boxes:
                assert x0 < box[0] and y0 < box[1] and box[2] < x1 and box[3] < y1, (r, k, box)
            if k > 0:  # snug: the view is the drawn boxes' span and its blank border
                span = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                        max(b[2] for b in boxes), max(b[3] for b in boxes))
                assert (x0, y0, x1, y1) == pytest.approx(
                    (span[0] - VIEW_PAD, span[1] - VIEW_PAD, span[2] + VIEW_PAD, span[3] + VIEW_PAD))


def test_the_page_layout_holds_tiles_and_marks_only(pages):
    for key, page in pages.items():
        svgs = re.findall(r'<div class="round-layout" data-round="\d+" hidden>(.*?)</div>', page,
                          re.DOTALL)
        for svg in svgs:
            # The page writes its own title, legend and tally; the tiles' numbers are marked.
            assert 'class="title"' not in svg and 'class="caption"' not in svg, key
            assert "open end: what it adds" not in svg, key
            halves = re.findall(r'<text class="half"', svg)
            assert len(halves) == 2 * len(re.findall(r'<g class="tile"', svg)) > 0, key
        assert page.count('<span class="swatch"') == page_data(page)["players"], key


def test_event_texts_say_accepted_or_discarded_and_why(records, states):
    for name, record in records.items():
        data = states[(name, None)]
        for step, want in zip(data["steps"], expected_steps(record)):
            for event, (kind, accepted, before, raw) in zip(step["events"], want.events):
                sign = "+" if raw >= 0 else "-"
                figures = f"{before} {sign} {abs(raw)} = {before + raw}"
                if accepted:
                    assert "accepted" in event["text"] and figures in event["text"], event
                else:
                    assert "discarded for " in event["text"], event
                    assert f"{figures} would pass 305" in event["text"], event
                if kind == "domino":
                    assert event["text"].startswith("Domino by seat "), event
                    parts = re.match(r"Domino by seat \d: placement (\d+) \+ credit (\d+) "
                                     r"\(opponents hold \d+ pips?\)(?: - debit (\d+) "
                                     r"\(partner holds \d+ pips?\))? = (-?\d+) raw: ", event["text"])
                    assert parts, event
                    placement, credit, debit, net = (int(parts[i] or 0) for i in (1, 2, 3, 4))
                    assert placement + credit - debit == net == raw, event
                if kind == "blocked":
                    parts = re.search(r"hold (?:[\d +]+ = )?(\d+) more, rounded (\d+) raw", event["text"])
                    assert event["text"].startswith("Blocked: seat "), event
                    assert parts and int(parts[2]) == raw, event
                    assert abs(int(parts[1]) - raw) <= 2, event  # round5 moves at most 2


def test_a_discarded_placement_reads_as_the_issue_asks():
    record = edge_records()["2p blocked, discarded placement and blocked events, passes"]
    texts = [e["text"] for s in replay_states(record)["steps"] for e in s["events"]
             if e["kind"] == "placement" and not e["accepted"]]
    assert texts
    match = re.search(r"discarded for seat \d: (\d+) \+ (\d+) = (\d+) would pass 305", texts[0])
    assert match and int(match[1]) + int(match[2]) == int(match[3]) > 305


def test_round_ends_and_the_match_winner_are_told(records, states):
    for name, record in records.items():
        data = states[(name, None)]
        ends = [s for s in data["steps"] if s["kind"] == "end"]
        assert len(ends) == len(record["rounds"])
        for step, rnd in zip(ends, record["rounds"]):
            assert f"ends: {rnd['end']}" in step["text"], name
            if rnd["winner"] is not None:
                assert f"Round winner: {data['entities'][rnd['winner']]}." in step["text"]
        winner = data["entities"][record["winner"]]
        assert ends[-1]["result"] == f"Match winner: {winner}, exactly 305 raw (61 displayed)."
        assert all(s["result"] == "" for s in data["steps"][:-1])


def test_an_unfinished_match_says_so():
    record = play_match(2, ["random", "random"], seed=3, match=0, max_rounds=2)
    assert record["winner"] is None
    result = replay_states(record)["steps"][-1]["result"]
    assert result.startswith("Match stopped unfinished after 2 rounds")


def test_a_seat_sees_only_what_it_may_know(records, states):
    for (name, seat), data in states.items():
        if seat is None:
            continue
        record = records[name]
        expected = expected_steps(record, seat)
        for k, (step, want) in enumerate(zip(data["steps"], expected)):
            named = tiles_named(json.dumps(step))
            assert named <= want.visible, (name, seat, k, named - want.visible)
        # So a tile that no one ever reveals to the seat is nowhere in the seat's states.
        assert "seed" not in data and "match" not in data


def test_a_seat_page_holds_no_hidden_deal(records, pages):
    for (name, seat), page in pages.items():
        if seat is None:
            continue
        record = records[name]
        assert page_data(page)["seat"] == seat
        assert f"seed {record['seed']}" not in page and "seed" not in page_data(page)
        for rnd in record["rounds"]:
            for s, hand in enumerate(rnd["hands"]):
                if s != seat:
                    assert json.dumps(hand, separators=(",", ":")) not in page
            assert json.dumps(rnd["boneyard"], separators=(",", ":")) not in page


def test_a_seat_sees_its_own_draws_and_not_the_others(records):
    record = records["golden 2p match 0"]
    for seat in (0, 1):
        steps = replay_states(record, seat)["steps"]
        draws = [s for s in steps if s["kind"] == "draw"]
        assert {s["seat"] for s in draws} == {0, 1}
        for step in draws:
            if step["seat"] == seat:
                assert tiles_named(step["text"]), step["text"]
            else:
                assert step["text"].endswith("draws a tile."), step["text"]


def test_settlement_reveals_every_hand_but_a_target_end_does_not(records):
    record = records["golden 4p match 0"]
    steps = replay_states(record, 1)["steps"]
    for step, rnd in zip([s for s in steps if s["kind"] == "end"], record["rounds"]):
        revealed = all("tiles" in hand for hand in step["hands"])
        assert revealed == (rnd["end"] != "target"), rnd["end"]


def test_the_page_is_self_contained(pages):
    for page in pages.values():
        assert not re.search(r"<(link|img|iframe|object|embed)\b", page, re.IGNORECASE)
        assert not re.search(r"<script\b[^>]*\bsrc\s*=", page, re.IGNORECASE)
        assert not re.search(r"\b(src|href|action)\s*=\s*['\"]?(?!#)", page, re.IGNORECASE)
        assert "@import" not in page
        assert not re.search(r"url\((?!\s*['\"]?#)", page)  # only references inside the page
        # The only address on the page is SVG's namespace name, which is never fetched.
        addresses = re.findall(r"(?:https?:)?//[\w.-]+\.\w+[^\s\"'<>]*", page)
        assert set(addresses) <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
        assert "default-src 'none'" in page


def test_every_round_has_its_layout_with_one_tile_per_placement(records, pages):
    for (name, seat), page in pages.items():
        rounds = re.findall(r'<div class="round-layout" data-round="(\d+)" hidden>(.*?)</div>',
                            page, re.DOTALL)
        record = records[name]
        assert [int(r) for r, _ in rounds] == list(range(len(record["rounds"])))
        for (_, svg), rnd in zip(rounds, record["rounds"]):
            plays = sum(a["type"] == "play" for a in rnd["actions"])
            moves = {int(k) for k in re.findall(r'data-move="(\d+)"', svg)}
            assert moves == set(range(plays)), name
        ids = re.findall(r'\sid="([^"]*)"', page)
        assert len(ids) == len(set(ids)), "element ids must be unique on the page"


def test_a_hostile_strategy_name_is_escaped(records):
    record = copy.deepcopy(records["golden 2p match 0"])
    record["strategies"][0] = HOSTILE
    for seat in (None, 0):
        page = replay_page(record, seat)
        assert "<script>alert" not in page and "alert(1)</script>" not in page
        assert page.count("</script>") == 2  # the data blob's and the script's own
        assert page.lower().count("<script") == 2
        assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the header
        assert page_data(page)["seats"][0] == f"seat 0 ({HOSTILE})"


def test_an_invalid_record_is_refused_in_one_line(records, tmp_path):
    record = copy.deepcopy(records["golden 2p match 0"])
    record["rounds"][0]["actions"][0]["points"] += 5
    target = tmp_path / "page.html"
    with pytest.raises(ValueError) as caught:
        write_replay_page(record, target)
    message = str(caught.value)
    assert message.startswith("invalid record: round 1, action 0: expected points")
    assert "\n" not in message
    assert not target.exists() and not list(tmp_path.iterdir())
    with pytest.raises(ValueError, match="invalid record: "):
        replay_page({"format": "something else"})


@pytest.mark.parametrize("seat", [-1, 2, "one", True, 1.0])
def test_a_seat_not_at_the_table_is_refused(records, seat):
    with pytest.raises(ValueError, match="seat"):
        replay_page(records["golden 2p match 0"], seat)


def test_write_replay_page_writes_the_page_whole(records, tmp_path):
    record = records["golden 3p match 1"]
    target = tmp_path / "match.html"
    write_replay_page(record, target, seat=2)
    assert target.read_text(encoding="utf-8") == replay_page(record, 2)
    assert [p.name for p in tmp_path.iterdir()] == ["match.html"]


def test_an_analysis_sits_on_its_plays_and_nowhere_else(records):
    record = records["golden 2p match 0"]
    rows = analysis_rows(record, 1)
    data = page_data(replay_page(record, None, analysis=rows))
    assert data["analysis"] == {"seat": 1, "unit": "win probability", "decisions": len(rows)}
    marked = [step for step in data["steps"] if step["analysis"] is not None]
    assert len(marked) == len(rows) > 5
    for k, step in enumerate(marked):
        action = record["rounds"][step["round"]]["actions"][step["action"]]
        assert step["kind"] == "play" and step["seat"] == action["seat"] == 1
        assert step["analysis"]["played"] == f"move {k}" and step["analysis"]["value"] == k / 100
    assert replay_page(record, None).count('id="analysis"') == 0
    assert replay_page(record, 1, analysis=rows).count('id="analysis"') == 1


def test_an_analysis_of_another_match_or_two_seats_is_refused(records):
    record = records["golden 2p match 0"]
    wrong = [dict(row, seat="0") for row in analysis_rows(record, 1)]  # seat 1's plays, said seat 0's
    with pytest.raises(ValueError, match="the analysis is not of this match: round 1, move"):
        replay_page(record, None, analysis=wrong)
    with pytest.raises(ValueError, match="more than one seat"):
        replay_page(record, None, analysis=analysis_rows(record, 0) + analysis_rows(record, 1))
