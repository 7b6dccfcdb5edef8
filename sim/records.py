"""Reading and writing match records in the ``exact61-record/1`` format.

A record file is JSON Lines: one complete match per line, as one JSON object
(see ``docs/record-format.md``, a copy of the binding spec). This module only
moves records between files and Python objects; :mod:`sim.verify` checks them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from sim.files import atomic_write

FORMAT = "exact61-record/1"
"""The value of every record's ``format`` key."""


@dataclass(frozen=True)
class RecordLine:
    """One line of a record file as read.

    Attributes
    ----------
    line : int
        1-based line number in the file.
    record : object or None
        The decoded JSON value, or None when the line is not JSON.
    error : str or None
        Why the line could not be decoded, or None.
    """

    line: int
    record: Any
    error: str | None


def dumps(record: dict) -> str:
    """One record as a single compact JSON line (no trailing newline)."""
    return json.dumps(record, separators=(",", ":"), allow_nan=False)


def write_records(path: str | os.PathLike, records: Iterable[dict]) -> int:
    """Write records to ``path`` as JSON Lines, atomically (:func:`sim.files.atomic_write`):
    a crash never leaves a half-written record file behind.

    Returns
    -------
    int
        The number of records written.
    """
    count = 0

    def write(temporary) -> None:
        nonlocal count
        with open(temporary, "w", encoding="utf-8") as out:
            for record in records:
                out.write(dumps(record))
                out.write("\n")
                count += 1

    atomic_write(path, write)
    return count


def iter_record_lines(path: str | os.PathLike) -> Iterator[RecordLine]:
    """Yield every non-blank line of a record file, decoded or with its error.

    Raises
    ------
    OSError
        When the file cannot be opened or read.
    """
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                yield RecordLine(number, None, "line is not UTF-8 text")
                continue
            try:
                value = json.loads(text, parse_constant=_reject_constant)
            except (ValueError, RecursionError) as exc:
                yield RecordLine(number, None, f"line is not JSON ({_short(exc)})")
                continue
            yield RecordLine(number, value, None)


def read_records(path: str | os.PathLike) -> list[dict]:
    """All records of a file; raises ValueError on the first undecodable line."""
    records = []
    for item in iter_record_lines(path):
        if item.error is not None:
            raise ValueError(f"{path}:{item.line}: {item.error}")
        records.append(item.record)
    return records


def _reject_constant(name: str):
    # NaN and Infinity are not JSON; Python's decoder accepts them unless told.
    raise ValueError(f"{name} is not valid JSON")


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]
