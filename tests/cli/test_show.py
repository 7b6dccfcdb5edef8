"""five-up show: pictures and the replay page from a record file, one-line errors for bad input;
rounds counted from 1 (``--round 1`` is the first) and counts singular for one, in the picture's
title and the replay page's texts."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from cli.main import build_parser
from sim.display.layout_geometry import round_geometry
from sim.display.layout_scene import title_shapes
from sim.display.layout_svg import round_svg
from sim.display.replay_states import replay_states
from sim.human.human_game import HumanGame
from tests.support.golden import GOLDEN

RECORDS = GOLDEN / "reference-4p.jsonl"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(argv, capsys):
    args = build_parser(["show"]).parse_args(["show", *argv])
    status = args.func(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_help_explains_every_option(capsys):
    with pytest.raises(SystemExit) as exit:
        build_parser(["show", "--help"]).parse_args(["show", "--help"])
    assert exit.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for option in ("--match I", "--round R", "--out OUT", "--html OUT.html", "--seat S"):
        assert option in out
    assert "writes both OUT.svg and OUT.png" in out and "default: its last round" in out
    assert "counting from 1" in out


def test_svg_of_the_last_round_by_default(tmp_path, capsys):
    out = tmp_path / "layout.svg"
    status, stdout, stderr = run([str(RECORDS), "--out", str(out)], capsys)
    assert (status, stdout, stderr) == (0, f"wrote {out}\n", "")
    rounds = len(json.loads(RECORDS.read_text().splitlines()[0])["rounds"])
    root = ET.fromstring(out.read_text())
    assert root.find("{http://www.w3.org/2000/svg}title").text == f"round {rounds} layout"
    assert "target 305 raw = 61" in out.read_text()  # the score strip is part of the picture


def test_png_of_a_chosen_match_and_round(tmp_path, capsys):
    out = tmp_path / "layout.png"
    status, _, stderr = run([str(RECORDS), "--match", "2", "--round", "1", "--out", str(out)],
                            capsys)
    assert (status, stderr) == (0, "")
    assert out.read_bytes().startswith(PNG_SIGNATURE)


def test_a_name_without_suffix_writes_both(tmp_path, capsys):
    stem = tmp_path / "layout"
    status, stdout, _ = run([str(RECORDS), "--out", str(stem)], capsys)
    assert status == 0
    assert stdout.splitlines() == [f"wrote {stem}.svg", f"wrote {stem}.png"]
    assert (tmp_path / "layout.png").stat().st_size > 0
    ET.fromstring((tmp_path / "layout.svg").read_text())


def test_the_replay_page_for_a_seat(tmp_path, capsys):
    page = tmp_path / "match.html"
    status, stdout, stderr = run([str(RECORDS), "--html", str(page), "--seat", "1"], capsys)
    assert (status, stdout, stderr) == (0, f"wrote {page}\n", "")
    assert page.read_text().lstrip().lower().startswith("<!doctype html")


def tampered(tmp_path) -> str:
    record = json.loads(RECORDS.read_text().splitlines()[0])
    play = next(a for a in record["rounds"][0]["actions"] if a["type"] == "play" and a["points"])
    play["points"] += 5
    path = tmp_path / "tampered.jsonl"
    path.write_text(json.dumps(record) + "\n")
    return str(path)


BAD = [
    (["{missing}", "--out", "{tmp}/x.png"], "cannot read"),
    (["{records}"], "give --out (a picture) or --html (a replay page), or both"),
    (["{records}", "--out", "{tmp}/x.jpg"], "should end with .svg or .png"),
    (["{records}", "--out", "{tmp}/nowhere/x.png"], "directory"),
    (["{records}", "--out", "{tmp}"], "is a directory, not a file"),
    (["{records}", "--match", "3", "--out", "{tmp}/x.png"], "no match 3 in"),
    (["{records}", "--match", "-1", "--out", "{tmp}/x.png"], "--match must be at least 0"),
    (["{records}", "--match", "one", "--out", "{tmp}/x.png"], "--match expects an integer"),
    (["{records}", "--round", "8", "--out", "{tmp}/x.png"],
     "no round 8 in match 0: it has 7 rounds (--round 1..7)"),
    (["{records}", "--round", "0", "--out", "{tmp}/x.png"], "--round must be at least 1, found 0"),
    (["{one}", "--match", "1", "--out", "{tmp}/x.png"], "it holds 1 record (--match 0)"),
    (["{records}", "--round", "x", "--out", "{tmp}/x.png"], "--round expects an integer"),
    (["{records}", "--seat", "1", "--out", "{tmp}/x.png"], "--seat applies to the replay page"),
    (["{records}", "--seat", "4", "--html", "{tmp}/x.html"], "--seat must be between 0 and 3"),
    (["{records}", "--html", "{tmp}/x.txt"], "should end with .html or .htm"),
    (["{notjson}", "--out", "{tmp}/x.png"], "line is not JSON"),
    (["{empty}", "--out", "{tmp}/x.png"], "it holds no record"),
    (["{tampered}", "--out", "{tmp}/x.png"], "not a valid exact61-record/1 record: round 1"),
]


@pytest.mark.parametrize("argv,message", BAD)
def test_bad_input_one_line_exit_2(tmp_path, capsys, argv, message):
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    (tmp_path / "empty.jsonl").write_text("\n")
    (tmp_path / "one.jsonl").write_text(RECORDS.read_text().splitlines()[0] + "\n")
    names = {"one": str(tmp_path / "one.jsonl"), "missing": str(tmp_path / "missing.jsonl"), "records": str(RECORDS),
             "tmp": str(tmp_path), "notjson": str(tmp_path / "bad.jsonl"),
             "empty": str(tmp_path / "empty.jsonl"), "tampered": tampered(tmp_path)}
    status, stdout, stderr = run([word.format(**names) for word in argv], capsys)
    assert status == 2
    assert stdout == ""
    assert stderr.startswith("five-up: error: ") and stderr.count("\n") == 1, stderr
    assert message in stderr
    assert not list(tmp_path.glob("x.*"))


PROBE = """
import sys
from cli.main import main
status = main(sys.argv[1:])
print(status, "numba" in sys.modules, "matplotlib" in sys.modules)
"""


def test_an_svg_loads_neither_numba_nor_matplotlib(tmp_path):
    run = subprocess.run([sys.executable, "-c", PROBE, "show", str(RECORDS), "--out",
                          str(tmp_path / "x.svg")], check=False, capture_output=True, text=True,
                         timeout=120)
    assert run.stdout.split()[-3:] == ["0", "False", "False"], run.stdout + run.stderr


def test_round_1_is_the_first_round_and_the_last_is_the_count(tmp_path, capsys):
    record = json.loads(RECORDS.read_text().splitlines()[0])
    count = len(record["rounds"])
    for number in (1, count):
        out = tmp_path / f"round-{number}.svg"
        status, _, stderr = run([str(RECORDS), "--round", str(number), "--out", str(out)], capsys)
        assert (status, stderr) == (0, "")
        svg = out.read_text()
        assert svg == round_svg(record, number - 1, scores_strip=True)
        title = ET.fromstring(svg).find("{http://www.w3.org/2000/svg}title").text
        assert title == f"round {number} layout"
        assert f"round {number} of {count} (4 players)" in svg


def truncated(record: dict, plays: int) -> dict:
    """The record's round 0 with its actions cut after ``plays`` placements (for the title)."""
    rnd = dict(record["rounds"][0])
    kept, placed = [], 0
    for action in rnd["actions"]:
        if placed == plays:
            break
        kept.append(action)
        placed += action["type"] == "play"
    rnd["actions"] = kept
    return rnd


def titles_of_prefixes():
    """The picture's first title line for every prefix of every golden round, with the counts
    it should show (placements, spinners, tiles on arms)."""
    for players in (2, 3, 4):
        for line in (GOLDEN / f"reference-{players}p.jsonl").read_text().splitlines()[:3]:
            record = json.loads(line)
            for index, rnd in enumerate(record["rounds"]):
                plays = [a for a in rnd["actions"] if a["type"] == "play"]
                for k in range(1, len(plays) + 1):
                    geometry = round_geometry(truncated({"rounds": [rnd]}, k))
                    counts = (len(geometry.tiles), sum(t.is_double for t in geometry.tiles),
                              sum(t.side == "arm" for t in geometry.tiles))
                    yield counts, title_shapes(record, index, geometry)[0].text


def test_the_picture_title_counts_singular_for_one():
    seen = set()
    for (placements, spinners, arms), title in titles_of_prefixes():
        words = {1: ("1 placement,", "1 spinner,", "1 tile on an arm"),
                 2: ("2 placements,", "2 spinners,", "2 tiles on arms")}
        for count, index in ((placements, 0), (spinners, 1), (arms, 2)):
            if count in words:
                assert words[count][index] in title, title
                seen.add((count, index))
    assert seen == {(c, i) for c in (1, 2) for i in range(3)}  # each noun met at 1 and at 2


@pytest.mark.parametrize("rounds,words", [(1, "after 1 round:"), (2, "after 2 rounds:")])
def test_the_replay_page_counts_rounds_from_1_and_singular_for_one(rounds, words):
    game = HumanGame(2, 0, ["greedy"], seed=4, max_rounds=rounds)
    game.advance_until_human()
    while not game.over:
        game.choose(1)
        game.advance_until_human()
    data = replay_states(game.record())
    assert data["steps"][-1]["result"].startswith(f"Match stopped unfinished {words}")
    assert [r["number"] for r in data["rounds"]] == list(range(1, rounds + 1))
    deal = data["steps"][0]["text"]
    assert deal.startswith("Round 1: 5 tiles dealt to each seat")
