"""five-up simulate / five-up record: good runs and one-line errors for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from cli.main import build_parser


def parse(argv):
    return build_parser().parse_args(argv)


def run(argv, capsys):
    args = parse(argv)
    status = args.func(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


BASE = ["--players", "2", "--strategies", "greedy,random", "--matches", "5", "--seed", "1"]


def with_option(option, value, out):
    argv = list(BASE)
    if option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv += [option, value]
    return argv + ["--out", out]


BAD = [
    ("--players", "5", "players must be 2, 3 or 4, found '5'"),
    ("--players", "two", "players must be 2, 3 or 4, found 'two'"),
    ("--strategies", "greedy,bogus", "unknown strategy 'bogus' (built-in: random, greedy"),
    ("--strategies", "greedy", "2 players need 2 strategies"),
    ("--strategies", "greedy,random,random", "2 players need 2 strategies"),
    ("--matches", "0", "matches must be at least 1, found 0"),
    ("--matches", "-4", "matches must be at least 1, found -4"),
    ("--matches", "many", "matches expects an integer, found 'many'"),
    ("--seed", "-1", "seed must be between 0 and"),
    ("--max-rounds", "0", "max_rounds must be at least 1, found 0"),
    ("--threads", "0", "threads must be between 1 and"),
]


@pytest.mark.parametrize("command", ["simulate", "record"])
@pytest.mark.parametrize("option,value,message", BAD)
def test_bad_input_one_line_exit_2(compiled_engine, tmp_path, capsys, command, option, value, message):
    suffix = ".parquet" if command == "simulate" else ".jsonl"
    out = str(tmp_path / f"out{suffix}")
    status, stdout, stderr = run([command] + with_option(option, value, out), capsys)
    assert status == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("five-up: error: ")
    assert message in lines[0]
    assert "Traceback" not in stderr + stdout
    assert not os.path.exists(out)


@pytest.mark.parametrize("command,suffix", [("simulate", ".parquet"), ("record", ".jsonl")])
def test_unwritable_output(compiled_engine, tmp_path, capsys, command, suffix):
    cases = [
        str(tmp_path / "missing-dir" / f"x{suffix}"),
        str(tmp_path),  # a directory
    ]
    if os.geteuid() != 0:  # root can write anywhere
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        cases.append(str(locked / f"x{suffix}"))
    for out in cases:
        status, _, stderr = run([command] + BASE + ["--out", out], capsys)
        assert status == 2, out
        assert len(stderr.strip().splitlines()) == 1, stderr
        assert stderr.startswith("five-up: error: ") and "Traceback" not in stderr


def test_simulate_writes_parquet_and_summary(compiled_engine, tmp_path, capsys):
    out = tmp_path / "frame.parquet"
    status, stdout, _ = run(["simulate"] + BASE + ["--out", str(out), "--threads", "1"], capsys)
    assert status == 0
    frame = pd.read_parquet(out)
    expected = compiled_engine.simulate(2, "greedy,random", 5, seed=1)
    assert list(frame.columns) == list(expected.columns)
    assert frame["winner"].tolist() == expected["winner"].tolist()
    assert "5 matches" in stdout and "matches/s" in stdout


def test_record_writes_jsonl(compiled_engine, tmp_path, capsys):
    out = tmp_path / "records.jsonl"
    status, stdout, _ = run(["record"] + BASE + ["--out", str(out)], capsys)
    assert status == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 5
    first = json.loads(lines[0])
    assert first["format"] == "exact61-record/1" and first["max_rounds"] == 1000
    assert "5 records" in stdout


def test_missing_argument_through_five_up_is_one_line(tmp_path):
    """Through the real entry point: argparse errors are one line too (lead's parser)."""
    result = subprocess.run(
        [sys.executable, "-m", "cli", "simulate", "--players", "2"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("five-up: error:") and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_unknown_strategy_through_five_up(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "cli", "simulate"] + with_option("--strategies", "x,y", str(tmp_path / "a.parquet")),
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().startswith("five-up: error: unknown strategy 'x' (built-in: random, greedy")
    assert len(result.stderr.strip().splitlines()) == 1
