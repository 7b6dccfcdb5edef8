"""``five-up strategies``: the listing of built-in strategies and the description of any spec."""

from __future__ import annotations

import json

import pytest

from cli.main import build_parser
from cli.strategies_command import format_text
import strategies
from strategies.catalogue import describe


def run(argv, capsys):
    args = build_parser().parse_args(["strategies", *argv])
    status = args.func(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_text_listing_names_every_strategy_with_metadata(capsys):
    status, out, _ = run([], capsys)
    assert status == 0
    for name in strategies.builtin_names():
        assert f"\n{name} (stochastic: " in out
    assert "(example)" not in out and "(id " not in out
    assert "samples = 16: sampled worlds per decision" in out
    assert "rollout (stochastic: yes, uses inference: yes, lookahead: 16)" in out


def test_json_listing_round_trips(capsys):
    status, out, _ = run(["--json", "rollout", "greedy"], capsys)
    assert status == 0
    rows = json.loads(out)
    assert [r["name"] for r in rows] == ["rollout", "greedy"]
    assert rows[0]["stochastic"] and rows[0]["uses_inference"] and rows[0]["lookahead"] == 16
    assert rows[0]["parameters"][0] == {
        "name": "samples", "default": 16.0,
        "description": "sampled worlds per decision (each plays out every candidate)",
    }
    assert rows[1]["parameters"] == []
    assert not rows[0]["sees_hidden"] and not rows[1]["sees_hidden"]


def test_the_audit_strategy_is_marked(capsys):
    status, out, _ = run(["--json", "cheater"], capsys)
    assert status == 0 and json.loads(out)[0]["sees_hidden"]
    status, out, _ = run(["cheater"], capsys)
    assert status == 0 and "SEES HIDDEN INFORMATION" in out


def test_unknown_name_is_one_line_and_status_2(capsys):
    status, out, err = run(["nope"], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "unknown strategy 'nope'" in err


def test_listing_is_the_builtins():
    names = [row["name"] for row in describe()]
    assert names == strategies.builtin_names() == list(strategies.builtins())
    assert names[:2] == ["random", "greedy"]
    assert all("id" not in row and "example" not in row for row in describe())


def test_a_variant_spec_is_described(capsys):
    status, out, _ = run(["--json", "rollout[samples=4]"], capsys)
    assert status == 0
    (row,) = json.loads(out)
    assert row["name"] == "rollout[samples=4]" and not row["builtin"]
    assert row["parameters"][0]["default"] == 4.0


@pytest.mark.parametrize("row", describe())
def test_every_strategy_is_described(row):
    assert len(row["description"]) > 200
    assert row["name"] in format_text([row])
