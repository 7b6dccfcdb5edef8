"""``--sealed``, ``--secret``, ``--decision-timeout`` of the commands that run in shards and write a
directory: ``five-up tournament``, ``strength`` and the five studies.

A sealed run plays exactly what the unsealed run with its secret plays (the
same tables), records its secret in ``run.json`` (an ordinary run's settings
hold no seal key), and the same command again, without ``--secret``, is the
same run: it keeps the recorded secret and resumes from the kept shards.
"""

from __future__ import annotations

import json

import pytest

from tests.support.paths import EXAMPLES
from tests.support.plugins import call_cli, help_text, one_line

SECRET = "0123456789abcdef0123456789abcdef"
OTHER = "fedcba9876543210fedcba9876543210"
SEAL_KEYS = {"sealed", "secret", "decision_timeout"}
TABLE = f"{EXAMPLES / 'table_strategy.py'}:tile_table"
"""A Python strategy (``compiled=False``): under --sealed it plays in a process of its own."""

STUDIES = ("overshoot", "settlement", "openings", "seats", "lengths")

RUNS = {
    "tournament": ["tournament", "--strategies", f"{TABLE},greedy,random", "--matches", "6",
                   "--seed", "3", "--duplicate"],
    "strength": ["strength", "--ladder", f"random,{TABLE}", "--players", "2", "--deals", "5",
                 "--seed", "3", "--timing-matches", "0", "--resamples", "10"],
    "settlement": ["settlement", "--players", "2", "--strategies", "random", "--matches", "20",
                   "--seed", "3", "--table", f"{TABLE},greedy", "--table-matches", "4"],
    "seats": ["seats", "--players", "2", "--strategies", "random", "--matches", "20", "--seed", "3",
              "--table", f"{TABLE},greedy", "--table-matches", "4"],
}
"""A small run of each command, a Python strategy among its strategies, ``random`` too (its
decisions are drawn from the streams the secret keys)."""

MEASURED = {"wall.csv"}
"""Tables that are measurements (wall seconds), not results."""


def run(args, out, *extra):
    result = call_cli(*args, "--out", out, "--quiet", *extra)
    assert result.returncode == 0, result.stderr
    return result


def settings(out) -> dict:
    return json.loads((out / "run.json").read_text())


def tables(out) -> dict:
    """Every result table (CSV) of a run's directory, as bytes."""
    return {path.name: path.read_bytes() for path in sorted(out.glob("*.csv"))
            if path.name not in MEASURED}


@pytest.mark.parametrize("command", ["tournament", "strength", *STUDIES])
def test_help_lists_the_seal_options(command):
    help_text(command, "--sealed", "--secret", "--decision-timeout")


@pytest.mark.parametrize("command", ["tournament", "strength", *STUDIES])
@pytest.mark.parametrize("extra, words", [
    (["--decision-timeout", "5"], "--decision-timeout needs --sealed"),
    (["--secret", "xyz"], "--secret must be 32 hexadecimal digits"),
    (["--sealed", "--secret", SECRET[:-1]], "--secret must be 32 hexadecimal digits"),
])
def test_bad_seal_options_are_one_line_and_status_2(tmp_path, command, extra, words):
    base = {"tournament": ["--strategies", "random,greedy"],
            "strength": ["--ladder", "random,greedy"]}.get(command, [])
    result = call_cli(command, *base, "--out", tmp_path / "o", *extra)
    one_line(result, 2, words)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", [command if command == "tournament" else
                                     pytest.param(command, marks=pytest.mark.slow) for command in RUNS])
def test_a_sealed_run_plays_what_the_unsealed_run_with_its_secret_plays(compiled_engine, tmp_path,
                                                                         command):
    sealed = tmp_path / "sealed"
    keyed = tmp_path / "keyed"
    plain = tmp_path / "plain"
    said = run(RUNS[command], sealed, "--sealed", "--secret", SECRET, "--decision-timeout", "60")
    run(RUNS[command], keyed, "--secret", SECRET)
    run(RUNS[command], plain)
    assert f"secret {SECRET}" in said.stdout
    assert tables(sealed) and tables(sealed) == tables(keyed)
    # the secret keys random's decisions: without it the same run plays other matches
    assert tables(keyed) != tables(plain)
    recorded = settings(sealed)
    assert {key: recorded[key] for key in SEAL_KEYS} == {"sealed": True, "secret": SECRET,
                                                         "decision_timeout": 60.0}
    assert SEAL_KEYS & settings(keyed).keys() == {"secret"} and settings(keyed)["secret"] == SECRET
    # an ordinary run's settings are what they were; a sealed run's differ by the seal keys only
    assert not SEAL_KEYS & settings(plain).keys()
    assert {key: value for key, value in recorded.items() if key not in SEAL_KEYS} \
        == settings(plain)


def test_another_secret_plays_other_matches(compiled_engine, tmp_path):
    run(RUNS["tournament"], tmp_path / "one", "--secret", SECRET)
    run(RUNS["tournament"], tmp_path / "other", "--secret", OTHER)
    assert tables(tmp_path / "one") != tables(tmp_path / "other")


RESUMED = {
    "tournament": ["tournament", "--strategies", "random,greedy", "--matches", "20", "--seed", "5",
                   "--shard-size", "10"],
    "strength": ["strength", "--ladder", "random,greedy", "--players", "2", "--deals", "10",
                 "--seed", "5", "--timing-matches", "0", "--resamples", "10", "--shard-size", "5"],
    "seats": ["seats", "--players", "2", "--strategies", "random", "--matches", "20", "--seed", "5",
              "--shard-size", "10"],
}


@pytest.mark.parametrize("command", list(RESUMED))
def test_the_same_sealed_command_again_keeps_the_recorded_secret(compiled_engine, tmp_path,
                                                                  command):
    out = tmp_path / "run"
    run(RESUMED[command], out, "--sealed", "--keep-shards")
    secret = settings(out)["secret"]
    assert len(secret) == 32
    before = tables(out)
    # interrupted: the outputs not written yet, a shard not finished
    for path in out.glob("*.csv"):
        path.unlink()
    next(iter(sorted((out / "shards").rglob("shard-*")))).unlink()
    again = run(RESUMED[command], out, "--sealed")  # no --secret: the recorded one
    assert f"secret {secret}" in again.stdout
    assert settings(out)["secret"] == secret
    assert tables(out) == before
    # another secret is another run: refused before anything plays
    one_line(call_cli(*RESUMED[command], "--out", out, "--sealed", "--secret", OTHER), 2,
             "holds a different run", "secret")
