"""What the shipped match-win table holds, and how it is stored (``strategies/winprob_table.npz``).

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

The values are backward induction over simulated rounds from every state
(more rounds where the values are noisiest: :func:`sim.study_kernels.winprob.allocate_rounds`),
each the mean of the two sides' perspectives (self-play makes them
interchangeable), then fitted (:mod:`sim.study_kernels.winprob`, Method 4):
non-decreasing in the own score and non-increasing in the opponent's up to
``MONOTONE_TOP`` (50; nearer 61 an overshoot can make more points hurt, so
that zone is left as solved), symmetric (``1 - WIN_TABLE[p, b, a, other
lead]``), the lot the mean of the two leads (0.5 exactly on the diagonal).
``WIN_TABLE_HALF_WIDTH`` holds each value's 95% interval half-width (the same
fit on every bootstrap replicate of the rounds, percentile interval); 0 where
the value is exact (scores 61; the lot diagonal, exact by symmetry). The
replicate tables themselves (a subset of the bootstrap's, each fitted) ship
too, so that anything computed from the table can be computed under each of
them and carry the table's error.

Storage: one NumPy ``.npz`` archive (:func:`write_table_file`,
:func:`read_table_file`; LZMA-compressed entries with fixed timestamps, so
the same table gives the same bytes) holding

- ``table``: uint16 codes ``round(value * QUANTUM)``, :data:`TABLE_SHAPE`;
- ``half_width``: the half-widths' codes, rounded up (never narrower);
- ``replicates``: uint16[R, 2, 61, 61], the codes of each replicate table's
  own-lead slice (scores 0..60); the rest of a replicate table follows from
  that slice as the fit builds it (:func:`expand_own_slice`);
- ``run``: the run that made it, as JSON text (profile, command, rounds,
  replicates, targets, largest half-widths).

Decoded, every cell of ``WIN_TABLE`` that is not exact holds a float32 value
no other cell holds, and none is exactly 0 or 1 (cells whose codes coincide are
moved apart by a few units in the last place toward 0.5, far below one
code's step: :func:`distinct_values`). A search that returns a table value
unchanged therefore names the cell it came from (:func:`cells_of_values`).
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import NamedTuple

import numpy as np

TABLE_SHAPE = (2, 62, 62, 3)
"""(table size: 2 or 4 players, own displayed 0..61, opponent displayed 0..61, lead)."""

SIDE = 61
"""Scores 0..60 along each axis of a table's states (61 is terminal)."""

QUANTUM = 65535
"""Values are stored as the codes ``round(value * QUANTUM)`` (uint16)."""

UP_SLACK = 0.01
"""Codes below which :func:`quantise` with ``up`` rounds down: a decoded float32 value times
QUANTUM lies within 0.01 of its code, so a table read back keeps its codes."""

ARCHIVE_DATE = (2020, 1, 1, 0, 0, 0)
"""The timestamp of every entry of the archive (the same table gives the same bytes)."""

LEAD_OWN, LEAD_OPPONENT, LEAD_LOT = 0, 1, 2
"""The lead index (the last axis)."""


class ShippedTable(NamedTuple):
    """A table read back from its file (:func:`read_table_file`).

    table, half_width : float32[TABLE_SHAPE] (``table`` with :func:`distinct_values`);
    replicate_codes : uint16[R, 2, 61, 61] (the stored own-lead slices; :meth:`replicates`);
    point_codes : uint16[TABLE_SHAPE] (the stored codes of ``table``);
    run : dict.
    """

    table: np.ndarray
    half_width: np.ndarray
    replicate_codes: np.ndarray
    point_codes: np.ndarray
    run: dict

    def replicates(self) -> np.ndarray:
        """float32[R, 2, 62, 62, 3]: the replicate tables (:func:`expand_own_slice`)."""
        return expand_own_slice(values_of(self.replicate_codes))


def values_of(codes: np.ndarray) -> np.ndarray:
    """float32 values of uint16 codes (``code / QUANTUM``)."""
    return codes.astype(np.float32) / np.float32(QUANTUM)


def quantise(table: np.ndarray, up: bool = False) -> np.ndarray:
    """uint16 codes ``round(value * QUANTUM)`` of values in [0, 1]; with ``up`` rounded up
    (half-widths: a positive half-width never becomes 0, an interval is never narrowed)."""
    scaled = np.clip(np.asarray(table, dtype=np.float64), 0.0, 1.0) * QUANTUM
    codes = np.ceil(np.maximum(scaled - UP_SLACK, 0.0)) if up else np.rint(scaled)
    return codes.astype("<u2")


def exact_mask(shape=TABLE_SHAPE) -> np.ndarray:
    """bool[shape]: the cells whose value is exact by construction: a score of 61 (the match is
    over) and the lot diagonal (0.5 by symmetry under self-play)."""
    mask = np.zeros(shape, dtype=bool)
    mask[..., SIDE, :, :] = True
    mask[..., :, SIDE, :] = True
    diagonal = np.arange(SIDE)
    mask[..., diagonal, diagonal, LEAD_LOT] = True
    return mask


def expand_own_slice(own: np.ndarray) -> np.ndarray:
    """float32[..., 62, 62, 3] from own-lead slices float[..., 61, 61] as the symmetric fit
    builds a table: opponent lead ``1 - own`` mirrored, the lot the mean of the two (0.5 on the
    diagonal), own 61 -> 1, opponent 61 -> 0, [61, 61] -> 0.5."""
    own = np.asarray(own, dtype=np.float32)
    out = np.zeros(own.shape[:-2] + (SIDE + 1, SIDE + 1, 3), dtype=np.float32)
    out[..., :SIDE, :SIDE, LEAD_OWN] = own
    out[..., :SIDE, :SIDE, LEAD_OPPONENT] = np.float32(1.0) - np.swapaxes(own, -1, -2)
    out[..., :SIDE, :SIDE, LEAD_LOT] = (out[..., :SIDE, :SIDE, LEAD_OWN]
                                        + out[..., :SIDE, :SIDE, LEAD_OPPONENT]) / np.float32(2)
    diagonal = np.arange(SIDE)
    out[..., diagonal, diagonal, LEAD_LOT] = 0.5
    out[..., SIDE, :, :] = 1.0
    out[..., :, SIDE, :] = 0.0
    out[..., SIDE, SIDE, :] = 0.5
    return out


def distinct_values(table: np.ndarray) -> np.ndarray:
    """float32 ``table`` with every cell that is not exact (:func:`exact_mask`) holding a value
    no other cell holds, exact ones included, and none exactly 0 or 1. Values below 0.5 are
    walked upward in order, the rest downward: a value equal to (or past) the previous one, or
    on an exact cell's value, moves to the next float32 beyond it. A code's step is 256 or more
    units in the last place, so a table whose codes repeat a few times keeps every code (its
    values move by a fraction of a step); exact cells are unchanged."""
    out = np.array(table, dtype=np.float32, copy=True)
    free = ~exact_mask(out.shape)
    values = out[free]
    taken = set(np.union1d(out[~free], np.array([0.0, 1.0], dtype=np.float32)).tolist())
    moved = values.copy()
    for upward, pick in ((True, values < 0.5), (False, values >= 0.5)):
        index = np.flatnonzero(pick)
        order = index[np.argsort(values[index], kind="stable")]
        if not upward:
            order = order[::-1]
        toward = np.float32(np.inf if upward else -np.inf)
        previous = None
        for i in order.tolist():
            v = values[i]
            if previous is not None and (v <= previous if upward else v >= previous):
                v = np.nextafter(previous, toward)
            while float(v) in taken:
                v = np.nextafter(v, toward)
            moved[i] = previous = v
    if np.unique(moved).size != moved.size or not ((moved > 0) & (moved < 1)).all():
        raise ValueError("the table's values could not be made distinct")
    out[free] = moved
    return out


def cells_of_values(table: np.ndarray, values) -> np.ndarray:
    """The cell of one table size (``table`` float32[62, 62, 3] with :func:`distinct_values`)
    each of ``values`` came from, as a flat index into ``table``, or -1 for a value no inexact
    cell holds (0 and 1: a finished match; an exact cell; anything computed rather than looked
    up)."""
    free = np.flatnonzero(~exact_mask(table.shape))
    held = table.ravel()[free].astype(np.float64)
    order = np.argsort(held)
    ranked = held[order]
    values = np.asarray(values, dtype=np.float64)
    at = np.clip(np.searchsorted(ranked, values), 0, ranked.size - 1)
    found = ranked[at] == values
    return np.where(found, free[order[at]], -1)


def write_table_file(path, table: np.ndarray, half_width: np.ndarray, replicates: np.ndarray,
                     run: dict) -> None:
    """Write the table file (module docstring) to ``path``.

    Parameters
    ----------
    table, half_width : float[TABLE_SHAPE]
        The fitted values and their 95% half-widths (rounded up when quantised).
    replicates : float[R, TABLE_SHAPE]
        Fitted replicate tables (their own-lead slices are stored).
    run : dict
        JSON-ready description of the run.
    """
    codes = quantise(table)
    half_codes = quantise(half_width, up=True)
    replicates = np.asarray(replicates, dtype=np.float64)
    if codes.shape != TABLE_SHAPE or replicates.shape[1:] != TABLE_SHAPE:
        raise ValueError(f"tables of shape {TABLE_SHAPE} are needed, found {codes.shape} and "
                         f"{replicates.shape[1:]}")
    own = quantise(replicates[:, :, :SIDE, :SIDE, LEAD_OWN])
    entries = {"table": codes, "half_width": half_codes, "replicates": own}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_LZMA) as archive:
        for name, array in entries.items():
            data = io.BytesIO()
            np.lib.format.write_array(data, np.ascontiguousarray(array), allow_pickle=False)
            archive.writestr(_entry(f"{name}.npy"), data.getvalue())
        archive.writestr(_entry("run.json"), json.dumps(run, sort_keys=True, indent=1))
    with open(path, "wb") as handle:
        handle.write(buffer.getvalue())


def _entry(name: str) -> zipfile.ZipInfo:
    """An archive entry with the fixed timestamp, LZMA-compressed (an entry made by hand is
    stored uncompressed unless told)."""
    entry = zipfile.ZipInfo(name, ARCHIVE_DATE)
    entry.compress_type = zipfile.ZIP_LZMA
    return entry


def read_table_file(path) -> ShippedTable:
    """The :class:`ShippedTable` stored at ``path`` (:func:`write_table_file`)."""
    with zipfile.ZipFile(path) as archive:
        arrays = {name: np.lib.format.read_array(io.BytesIO(archive.read(f"{name}.npy")),
                                                 allow_pickle=False)
                  for name in ("table", "half_width", "replicates")}
        run = json.loads(archive.read("run.json"))
    codes = arrays["table"]
    return ShippedTable(np.ascontiguousarray(distinct_values(values_of(codes))),
                        np.ascontiguousarray(values_of(arrays["half_width"])),
                        arrays["replicates"], codes, run)
