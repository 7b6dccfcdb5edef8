"""The layout pictures: the scene keeps tiles, labels and marks apart, the SVG is well-formed
with one ``data-move`` group per placement (stable under ``upto``), and the PNG is written."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

import sim
from sim.display.layout_geometry import round_plays
from sim.display.layout_png import write_round_png
from sim.display.layout_scene import Text, round_scene, scene_overlaps
from sim.display.layout_svg import round_svg
from tests.support.golden import GOLDEN

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def golden(players: int) -> list[dict]:
    return [json.loads(line) for line in (GOLDEN / f"reference-{players}p.jsonl").read_text().splitlines()]


def moves_of(svg_text: str) -> dict[int, str]:
    """data-move -> the serialized group, for every element that carries data-move."""
    root = ET.fromstring(svg_text)
    groups = {}
    for element in root.iter():
        if "data-move" in element.attrib:
            move = int(element.attrib["data-move"])
            assert move not in groups, f"two elements carry data-move={move}"
            assert element.attrib["id"] == f"move-{move}"
            groups[move] = ET.tostring(element, encoding="unicode")
    return groups


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_tile_label_or_mark_overlaps_in_any_golden_round(players):
    for record in golden(players):
        for r in range(len(record["rounds"])):
            scene = round_scene(record, r)
            assert scene_overlaps(scene) == [], (record["match"], r)
            assert len([b for b in scene.boxes if b[0] == "tile"]) == len(round_plays(record["rounds"][r]))


def test_no_overlaps_in_engine_made_rounds(compiled_engine):
    records = (sim.record(2, ["greedy", "random"], matches=8, seed=5)
               + sim.record(4, ["greedy", "random"], matches=8, seed=5))
    for record in records:
        for r in range(len(record["rounds"])):
            assert scene_overlaps(round_scene(record, r)) == [], (record["match"], r)


@pytest.mark.slow
@pytest.mark.parametrize("players,strategies", [(2, ["greedy", "random"]),
                                                (3, ["random", "greedy", "random"]),
                                                (4, ["greedy", "random"])])
def test_no_overlaps_in_a_thousand_engine_made_matches(compiled_engine, players, strategies):
    for record in sim.record(players, strategies, matches=1000, seed=11):
        for r in range(len(record["rounds"])):
            assert scene_overlaps(round_scene(record, r)) == [], (record["match"], r)


def test_the_svg_is_well_formed_with_one_group_per_placement():
    record = golden(4)[0]
    for r in range(len(record["rounds"])):
        text = round_svg(record, r)
        placements = len(round_plays(record["rounds"][r]))
        assert sorted(moves_of(text)) == list(range(placements))
        root = ET.fromstring(text)
        ends = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "open-ends"]
        assert len(ends) == 1 and ends[0].attrib["data-after"] == str(placements)


def test_a_prefix_draws_the_same_first_tiles_and_its_own_total():
    record = golden(2)[0]
    full = moves_of(round_svg(record, 0))
    for upto in range(len(full) + 1):
        text = round_svg(record, 0, upto)
        prefix = moves_of(text)
        assert sorted(prefix) == list(range(upto))
        assert all(prefix[m] == full[m] for m in prefix)  # a replay never moves a tile
        root = ET.fromstring(text)
        assert root.attrib["viewBox"] == ET.fromstring(round_svg(record, 0)).attrib["viewBox"]


def test_the_caption_gives_the_total_and_its_displayed_points():
    record = golden(2)[0]
    actions = [a for a in record["rounds"][0]["actions"] if a["type"] == "play"]
    scoring = next(k for k, a in enumerate(actions) if a["points"])
    scene = round_scene(record, 0, scoring + 1)
    captions = [s.text for s in scene.end_shapes if isinstance(s, Text) and "total" in s.text]
    points = actions[scoring]["points"]
    seat = actions[scoring]["seat"]
    expected = f"after #{scoring} (seat {seat}): total {points} raw = {points // 5} displayed"
    assert captions == [f"{expected}, scores +{points}"]
    labels = [s.text for s in scene.shapes if isinstance(s, Text) and s.move == scoring]
    assert f"#{scoring} +{points}" in labels or {f"#{scoring}", f"+{points}"} <= set(labels)


def test_the_score_strip_is_optional_and_names_the_target():
    record = golden(3)[1]
    with_strip = round_scene(record, 0, scores_strip=True)
    without = round_scene(record, 0, scores_strip=False)
    assert with_strip.height > without.height
    texts = " ".join(s.text for s in with_strip.shapes if isinstance(s, Text))
    assert "target 305 raw = 61" in texts
    assert "305" not in " ".join(s.text for s in without.shapes if isinstance(s, Text)
                                 if "target" in s.text)


def test_record_text_is_escaped_in_the_svg():
    record = golden(2)[0]
    record = {**record, "strategies": ["<script>&", "greedy"]}
    text = round_svg(record, 0)
    ET.fromstring(text)  # still well-formed
    assert "<script>" not in text


def test_the_png_is_written(tmp_path):
    path = tmp_path / "round.png"
    write_round_png(golden(3)[0], 2, path)
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000


@pytest.mark.parametrize("round_index", [-1, 99, "0"])
def test_no_such_round_is_a_value_error(round_index):
    with pytest.raises(ValueError, match="no round"):
        round_scene(golden(2)[0], round_index)


def test_every_step_gives_the_open_ends_after_each_prefix():
    record = golden(3)[0]
    placements = len(round_plays(record["rounds"][1]))
    root = ET.fromstring(round_svg(record, 1, every_step=True))
    groups = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "open-ends"]
    assert [g.attrib["data-after"] for g in groups] == [str(k) for k in range(placements + 1)]
    assert [g.attrib.get("display") for g in groups] == [None if k == placements else "none"
                                                         for k in range(placements + 1)]
    for k, group in enumerate(groups):
        alone = ET.fromstring(round_svg(record, 1, k))
        (expected,) = [g for g in alone.iter(f"{SVG}g") if g.attrib.get("class") == "open-ends"]
        assert [ET.tostring(e) for e in group] == [ET.tostring(e) for e in expected]
