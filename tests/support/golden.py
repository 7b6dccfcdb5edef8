"""The golden reference records; regenerate them with ``python -m tests.support.golden``.

Only run this after a deliberate, reviewed change to the reference's play (for
instance its random stream); the golden files pin today's behaviour.
"""

from __future__ import annotations

from pathlib import Path

from sim.records import write_records
from sim.reference import play_match

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
"""Where the golden record files live (``tests/golden``)."""

# (players, strategies per seat, seed, match indices)
GOLDEN_SETS = {
    2: (["greedy", "random"], 20261129, range(3)),
    3: (["random", "greedy", "random"], 20261129, range(3)),
    4: (["greedy", "random", "greedy", "random"], 20261129, range(3)),
}


def golden_records(players: int) -> list[dict]:
    seats, seed, matches = GOLDEN_SETS[players]
    return [play_match(players, seats, seed=seed, match=m) for m in matches]


if __name__ == "__main__":
    for players in GOLDEN_SETS:
        path = GOLDEN / f"reference-{players}p.jsonl"
        write_records(path, golden_records(players))
        print(f"wrote {path}")
