"""What the replay page should show at every step, worked out from a record by the tests alone.

This walks a record the plain way (hands as sets of sorted pairs, the
boneyard as a count, scores from the accepted events) without the code under
test, so the replay page's states and what the browser shows can be checked
against it. Steps are numbered as the page numbers them: per round a deal
step, one step per action, and an end step.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from sim.records import read_records
from sim.reference import Layout, Placement, play_match
from tests.support.golden import GOLDEN

TILE_PATTERN = re.compile(r"(?<!\d)(\d)-(\d)(?!\d)")
"""A tile written ``a-b`` in a text (no other figure on the page is digit-dash-digit)."""


@dataclass
class Expected:
    """One step as the tests expect it (tiles as sorted ``(low, high)`` pairs)."""

    round: int
    kind: str
    placed: int
    hands: list[list[tuple[int, int]]]
    hidden: list[bool]
    boneyard: int
    scores: list[int]
    events: list[tuple[str, bool, int, int]] = field(default_factory=list)
    """(kind, accepted, score before, raw) per event applied at this step."""
    visible: set[tuple[int, int]] = field(default_factory=set)
    """Every tile the viewing seat may know of at this step (all 28 in the full view)."""
    end: str | None = None
    action: int | None = None
    """Index of the step's action in its round's ``actions`` (None: deal and end steps)."""


EVERY_TILE = frozenset((a, b) for a in range(7) for b in range(a, 7))
"""The 28 tiles as (low, high)."""


def pair(tile) -> tuple[int, int]:
    return (min(tile), max(tile))


def expected_steps(record: dict, seat: int | None = None) -> list[Expected]:
    """Every step of the match, as the viewing ``seat`` (None: everyone) should see it."""
    scores = [0] * (max(record["entities"]) + 1)
    steps: list[Expected] = []
    for r, rnd in enumerate(record["rounds"]):
        steps += _round_steps(r, rnd, seat, scores)
    return steps


def _round_steps(r: int, rnd: dict, seat: int | None, scores: list[int]) -> list[Expected]:
    """The round's steps; ``scores`` (raw per entity) moves on in place."""
    players = len(rnd["hands"])
    hands = [sorted(pair(t) for t in hand) for hand in rnd["hands"]]
    boneyard = len(rnd["boneyard"])
    placed = 0
    known = set(EVERY_TILE) if seat is None else set(hands[seat])
    steps = []

    def snapshot(kind, events=(), reveal=False, end=None, action=None):
        hidden = [seat is not None and s != seat and not reveal for s in range(players)]
        visible = set(known)
        if reveal:
            visible |= {t for hand in hands for t in hand}
        steps.append(Expected(r, kind, placed, [list(h) for h in hands], hidden, boneyard,
                              list(scores), list(events), visible, end, action))

    def apply(event):
        before = scores[event["entity"]]
        if event["accepted"]:
            scores[event["entity"]] += event["raw"]
        return (event["kind"], event["accepted"], before, event["raw"])

    snapshot("deal")
    for i, action in enumerate(rnd["actions"]):
        events = []
        if action["type"] == "draw":
            tile = pair(action["tile"])
            hands[action["seat"]] = sorted(hands[action["seat"]] + [tile])
            boneyard -= 1
            if action["seat"] == seat:
                known.add(tile)
        elif action["type"] == "play":
            tile = pair(action["tile"])
            hands[action["seat"]].remove(tile)
            placed += 1
            known.add(tile)
            events = [apply(e) for e in rnd["events"] if e["kind"] == "placement" and e["action"] == i]
        snapshot(action["type"], events, action=i)
    settlement = [apply(e) for e in rnd["events"] if e["kind"] != "placement"]
    snapshot("end", settlement, reveal=rnd["end"] != "target", end=rnd["end"])
    return steps


def golden(players: int) -> list[dict]:
    """The golden reference records of a table size (``tests/golden``)."""
    return read_records(GOLDEN / f"reference-{players}p.jsonl")


EDGE_MATCHES = {
    "2p blocked, discarded placement and blocked events, passes": (2, 11),
    "3p blocked tie and discarded blocked event": (3, 32),
    "4p negative and discarded dominoes": (4, 0),
    "4p match won by a blocked event": (4, 57),
}
"""Reference matches (all-greedy, seed 7: players, match) showing the rarer events."""


def edge_records() -> dict[str, dict]:
    """The :data:`EDGE_MATCHES` records, played by the reference (a few tens of ms)."""
    return {name: play_match(players, ["greedy"] * players, seed=7, match=match)
            for name, (players, match) in EDGE_MATCHES.items()}


def page_data(page: str) -> dict:
    """The JSON blob embedded in a replay page."""
    start = page.index('<script type="application/json" id="replay-data">')
    start = page.index(">", start) + 1
    return json.loads(page[start:page.index("</script>", start)])


def tiles_named(text: str) -> set[tuple[int, int]]:
    """Every tile written ``a-b`` in a text."""
    return {pair((int(a), int(b))) for a, b in TILE_PATTERN.findall(text)}


def analysis_rows(record, seat):
    """Hand-made rows of a ``five-up analyse`` table: every play of ``seat`` in the record, the
    k-th with value k/100 (as text, as csv.DictReader gives them)."""
    rows = []
    for r, rnd in enumerate(record["rounds"]):
        for t, action in enumerate(rnd["actions"]):
            if action["type"] == "play" and action["seat"] == seat:
                k = len(rows)
                rows.append({"round": str(r + 1), "turn": str(t + 1), "seat": str(seat),
                             "played": f"move {k}", "best": f"best {k}", "played_value": str(k / 100),
                             "played_low": "0.0", "played_high": "0.9", "best_value": "0.95",
                             "loss": "0.1", "loss_low": "-0.01" if k % 2 else "0.02",
                             "loss_high": "0.2", "unit": "win probability"})
    return rows


def expected_open_ends(record: dict, round_index: int, placed: int) -> tuple[list[int], int]:
    """The open ends after the round's first ``placed`` placements, played on
    :class:`sim.reference.Layout`: the values that add to the total, sorted (zeros left
    out: a 0 half, a free spinner arm), and the scoring total (ruling 3)."""
    layout = Layout()
    plays = [a for a in record["rounds"][round_index]["actions"] if a["type"] == "play"]
    for action in plays[:placed]:
        layout.place(Placement(tuple(action["tile"]), action["parent"], action["side"]))
    values = []
    for node in layout.nodes:
        if not node.is_double:
            values += node.open_line_sides
        elif node.open_line_sides:
            values.append(2 * node.open)  # a double that ends a line counts both halves, once
    return sorted(v for v in values if v), layout.total()
