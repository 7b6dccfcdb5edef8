"""Counted nouns: one of a thing reads singular, any other count plural, for every noun the
project's texts count."""

from __future__ import annotations

import pytest

from sim.wording import counted, plural_of

NOUNS = [
    ("tile", "tiles"),
    ("pip", "pips"),
    ("placement", "placements"),
    ("point", "points"),
    ("round", "rounds"),
    ("finished round", "finished rounds"),
    ("match", "matches"),
    ("record", "records"),
    ("arm", "arms"),
    ("spinner", "spinners"),
    ("sampled world", "sampled worlds"),
    ("strategy", "strategies"),
]


@pytest.mark.parametrize("noun,plural", NOUNS)
def test_one_reads_singular_and_two_plural(noun, plural):
    assert counted(1, noun) == f"1 {noun}"
    assert counted(2, noun) == f"2 {plural}"
    assert counted(0, noun) == f"0 {plural}"
    assert counted(-1, noun) == f"-1 {noun}"


def test_regular_plurals_by_ending():
    assert [plural_of(word) for word in ("box", "wish", "bench", "day", "y", "seat")] == \
        ["boxes", "wishes", "benches", "days", "ys", "seats"]


def test_an_irregular_plural_and_a_number_format_are_given():
    assert counted(3, "person", "people") == "3 people"
    assert counted(1, "person", "people") == "1 person"
    assert counted(12345, "match", spec=",") == "12,345 matches"
    assert counted(1, "match", spec=",") == "1 match"
