"""Shard plans: a long run cut into shards identified by ``(seed, first match, count)``.

A shard (plus a ``part`` number when one run holds several sub-runs, e.g. the
seatings of a tournament) is the unit every backend runs and every store
keeps. Because the engine plays match ``i`` from ``(seed, i)`` and the
strategies only, the shards of a run concatenated in plan order are, row for
row, the frame of the unsharded run, whatever the shard size, the backend or
the order in which shards finish.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SHARD_SIZE = 50_000
"""Matches per shard: about 5 MB of frame, 1-2 s of one core."""


@dataclass(frozen=True, order=True)
class Shard:
    """Matches ``first_match .. first_match + count - 1`` of seed ``seed`` (sub-run ``part``)."""

    part: int
    seed: int
    first_match: int
    count: int

    @property
    def name(self) -> str:
        return f"shard-p{self.part:04d}-s{self.seed}-m{self.first_match:012d}-n{self.count}"


@dataclass(frozen=True)
class Task:
    """A shard and the job arguments that define its rows (besides the match range)."""

    shard: Shard
    config: dict


def plan(matches: int, shard_size: int, seed: int, first_match: int = 0, part: int = 0) -> list[Shard]:
    """Cut ``matches`` matches starting at ``first_match`` into shards of ``shard_size``."""
    if matches < 1 or shard_size < 1:
        raise ValueError("matches and shard_size must be positive")
    return [Shard(part, int(seed), first_match + start, min(shard_size, matches - start))
            for start in range(0, matches, shard_size)]
