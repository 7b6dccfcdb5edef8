"""The shipped match-win table, read from ``winprob_table.npz`` beside this module when first used.

What the table and its error hold, and how the file stores them:
:mod:`strategies.winprob_codes`. The names below are attributes of this module, loaded on first
access (nothing is read at import):

- :data:`WIN_TABLE`: float32[2, 62, 62, 3], P(own side wins | table size, own, opponent, lead);
- :data:`WIN_TABLE_HALF_WIDTH`: the half-width of each value's 95% interval (0: exact);
- :data:`WIN_TABLE_PROFILE`: the strategy every seat played; :data:`WIN_TABLE_COMMAND`: the
  command that regenerated the file; :data:`WIN_TABLE_ROUNDS`: rounds every state got first
  (more went where the values were noisiest); :data:`WIN_TABLE_RUN`: the whole run's
  description (rounds, replicates, targets, largest half-widths);
- :func:`replicate_tables`: the shipped bootstrap replicate tables, float32[R, 2, 62, 62, 3].

Compiled code reads ``winprob_table.WIN_TABLE`` (a module attribute): Numba freezes it into
the machine code, and a strategy's identity digest (:mod:`strategies.identity`) reads its
value, so a regenerated file gives new digests and new kernels, never a stale one.
``tests/experiments/test_winprob.py`` checks the file's shape, bounds, terminal rows, symmetry,
order, half-widths and that its command parses.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numpy as np

from strategies.winprob_codes import ShippedTable, read_table_file

DATA_FILE = Path(__file__).with_name("winprob_table.npz")
"""The table file (package data)."""

ATTRIBUTES = {
    "WIN_TABLE": lambda t: t.table,
    "WIN_TABLE_HALF_WIDTH": lambda t: t.half_width,
    "WIN_TABLE_PROFILE": lambda t: t.run["profile"],
    "WIN_TABLE_COMMAND": lambda t: t.run["command"],
    "WIN_TABLE_ROUNDS": lambda t: int(t.run["rounds_per_state"]),
    "WIN_TABLE_RUN": lambda t: t.run,
}
"""The module's lazily loaded attributes, each from the :class:`ShippedTable`."""


@functools.cache
def shipped() -> ShippedTable:
    """The table file, read once per process."""
    return read_table_file(DATA_FILE)


@functools.cache
def replicate_tables() -> np.ndarray:
    """float32[R, 2, 62, 62, 3]: the shipped replicate tables (read-only)."""
    tables = shipped().replicates()
    tables.flags.writeable = False
    return tables


def __getattr__(name: str):
    if name in ATTRIBUTES:
        value = ATTRIBUTES[name](shipped())
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        globals()[name] = value  # later reads find the attribute itself
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(ATTRIBUTES))


@functools.cache
def file_digest() -> str:
    """16 hexadecimal digits of the SHA-256 of the table file (a run that uses the table
    records it)."""
    return hashlib.sha256(DATA_FILE.read_bytes()).hexdigest()[:16]
