"""The command line's own messages count with sim.wording.counted: "1 match", "wrote 1 record",
"2 matches", "wrote 2 records" (the reference's run, quick at one or two matches)."""

from __future__ import annotations

import pytest

from cli.main import main


@pytest.mark.parametrize("matches,match_words,record_words", [
    (1, "1 match,", "wrote 1 record to"),
    (2, "2 matches,", "wrote 2 records to"),
])
def test_the_reference_run_counts_its_matches_and_records(tmp_path, capsys, matches, match_words,
                                                          record_words):
    out = tmp_path / "reference.jsonl"
    status = main(["reference", "--matches", str(matches), "--players", "2", "--out", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0
    assert lines[0].startswith(f"{match_words} 2 players, seed 0: ")
    assert lines[-1] == f"{record_words} {out}"
