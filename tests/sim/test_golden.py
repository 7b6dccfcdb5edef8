"""Golden records: kept under tests/golden, re-verified and re-derived."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sim.records import read_records
from sim.verify import verify_record

from tests.support.golden import GOLDEN, GOLDEN_SETS, golden_records


@pytest.mark.parametrize("players", sorted(GOLDEN_SETS))
def test_golden_records_verify(players):
    records = read_records(GOLDEN / f"reference-{players}p.jsonl")
    assert len(records) == len(GOLDEN_SETS[players][2])
    for record in records:
        assert record["players"] == players
        assert verify_record(record) == []


@pytest.mark.parametrize("players", sorted(GOLDEN_SETS))
def test_reference_still_plays_the_golden_matches(players):
    # The reference is deterministic for (seed, match): today's play must equal the pinned one.
    assert golden_records(players) == read_records(GOLDEN / f"reference-{players}p.jsonl")


def test_golden_files_pass_the_cli():
    files = sorted(str(p) for p in GOLDEN.glob("*.jsonl"))
    run = subprocess.run([sys.executable, "-m", "cli", "verify", *files],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    total = sum(len(GOLDEN_SETS[p][2]) for p in GOLDEN_SETS)
    assert run.stdout.strip().splitlines()[-1] == f"{total} records: {total} valid, 0 invalid"
