"""What the shipped match-win table :mod:`strategies.winprob_table` holds, and how it is stored.

``WIN_TABLE[p, own, opponent, lead]`` (float32, shape :data:`TABLE_SHAPE`) is the
probability that the own side wins the match from the start of a round, under
self-play of the profile ``WIN_TABLE_PROFILE`` (every seat the same
strategy): ``p`` 0 for 2 players, 1 for 4 players (partnerships); ``own`` and
``opponent`` the two sides' displayed scores 0..61; ``lead`` 0 when the own
side leads the round, 1 when the opponent side does, 2 when the leader is
drawn by lot (the first round, and after a blocked round). Own 61 holds 1.0,
opponent 61 holds 0.0 (the unreachable [61, 61] holds 0.5). With 4 players a
partnership's score can be negative (the partner debit): clamp it to 0 to
look it up.

The values are backward induction over ``WIN_TABLE_ROUNDS`` simulated rounds
from every state, each the mean of the two sides' perspectives (self-play
makes them interchangeable), then fitted (:mod:`sim.study_kernels.winprob`,
Method 4): non-decreasing in the own score and non-increasing in the
opponent's up to ``MONOTONE_TOP`` (50; nearer 61 an overshoot can make more
points hurt, so that zone is left as solved), symmetric (``1 - WIN_TABLE[p,
b, a, other lead]``), the lot the mean of the two leads (0.5 exactly on the
diagonal). ``WIN_TABLE_HALF_WIDTH`` holds each value's 95% interval
half-width (the same fit on every bootstrap replicate of the rounds,
percentile interval); 0 where the value is exact (scores 61; the lot
diagonal, exact by symmetry).

Storage: each value is the uint16 code ``round(value * QUANTUM)`` (a half-width
rounded up); an array's codes, little-endian, are compressed with zlib (the
exact 0s and 1s come in long runs) and written as base64 string literals
(:func:`code_lines`), which :func:`table_of` decodes when the module is
imported. The tables are plain module-level arrays, so compiled strategies
freeze them as constants.
"""

from __future__ import annotations

import base64
import zlib

import numpy as np

TABLE_SHAPE = (2, 62, 62, 3)
"""(table size: 2 or 4 players, own displayed 0..61, opponent displayed 0..61, lead)."""

QUANTUM = 65535
"""Values are stored as the codes ``round(value * QUANTUM)`` (uint16)."""

LINE_WIDTH = 76
"""Characters per base64 line of a stored array."""

COMPRESSION_LEVEL = 9
"""zlib level of the stored codes (the generated text depends on it)."""


def values_of(codes: np.ndarray) -> np.ndarray:
    """float32 values of uint16 codes (``code / QUANTUM``)."""
    return codes.astype(np.float32) / np.float32(QUANTUM)


def code_lines(codes: np.ndarray) -> list[str]:
    """The stored text of uint16 ``codes``: base64 lines of their compressed little-endian bytes."""
    packed = zlib.compress(np.ascontiguousarray(codes, dtype="<u2").tobytes(), COMPRESSION_LEVEL)
    encoded = base64.b64encode(packed).decode("ascii")
    return [encoded[i:i + LINE_WIDTH] for i in range(0, len(encoded), LINE_WIDTH)]


def table_of(text: str) -> np.ndarray:
    """float32[TABLE_SHAPE] values of a stored array (the lines of :func:`code_lines`, joined)."""
    codes = np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype="<u2")
    return values_of(codes.reshape(TABLE_SHAPE))
