"""Checks of the options every entry point takes: integers, table sizes, seeds.

One implementation serves the Python functions, the command line, the shard
jobs and the studies. Each check returns the value as a plain ``int`` or
raises :class:`ValueError` with one line that names the option and what was
found; the command line prints that line as it is. An integer may be given as
an ``int``, a NumPy integer or its decimal text (what the command line
passes); ``bool`` and ``float`` are refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

PLAYER_COUNTS = (2, 3, 4)
"""Table sizes the rules allow (partnerships at four)."""

MAX_SEED = 2**63 - 1
"""Seeds are non-negative int64: ``0 <= seed <= MAX_SEED`` (match indices too)."""


def check_int(value, name: str, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]`` (``high`` None: no upper bound).

    Raises
    ------
    ValueError
        ``"{name} expects an integer, found ..."`` or ``"{name} must be at
        least {low}, found ..."`` / ``"... between {low} and {high} ..."``.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            raise ValueError(f"{name} expects an integer, found {value!r}") from None
    else:
        raise ValueError(f"{name} expects an integer, found {value!r}")
    if number < low or (high is not None and number > high):
        bound = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ValueError(f"{name} must be {bound}, found {number}")
    return number


def check_players(value, name: str = "players") -> int:
    """A table size: 2, 3 or 4."""
    try:
        number = check_int(value, name, PLAYER_COUNTS[0], PLAYER_COUNTS[-1])
    except ValueError:
        raise ValueError(f"{name} must be 2, 3 or 4, found {value!r}") from None
    return number


def check_finite(value, name: str) -> float:
    """A finite real number (a strategy parameter), as float; ``bool`` refused."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number (got {value!r})")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite (got {value!r})")
    return float(value)


def check_player_counts(value, name: str = "players") -> list[int]:
    """Table sizes from ``"2,3,4"``, ``3`` or ``[2, 4]`` (each 2, 3 or 4, none twice)."""
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",")]
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        items = [value]
    elif isinstance(value, Sequence):
        items = list(value)
    else:
        raise ValueError(f"{name} must be a comma-separated list of 2, 3 or 4, found {value!r}")
    if not items or any(item == "" for item in items):
        raise ValueError(f"{name} has an empty entry: {value!r}")
    counts = []
    for item in items:
        count = check_players(item, name)
        if count in counts:
            raise ValueError(f"{name} names {count} twice")
        counts.append(count)
    return counts


def check_seed(value, name: str = "seed") -> int:
    """A master seed, ``0 .. MAX_SEED``."""
    return check_int(value, name, 0, MAX_SEED)


def per_seat(players: int, entries: list, what: str) -> list:
    """One entry per seat; with 4 players two entries are the partnerships (seats 0,2 and 1,3).

    Raises
    ------
    ValueError
        Neither ``players`` entries nor, at four, two.
    """
    if players == 4 and len(entries) == 2:
        entries = [entries[0], entries[1], entries[0], entries[1]]
    if len(entries) != players:
        expected = "4 (one per seat) or 2 (one per partnership)" if players == 4 else str(players)
        raise ValueError(f"{players} players need {expected} {what}, got {len(entries)}")
    return list(entries)


SECRET_HEX_DIGITS = 32
"""A run secret is 128 bits, written as 32 hexadecimal digits."""


def check_secret(value, name: str = "secret") -> str | None:
    """A run secret: None, or 32 hexadecimal digits (not all zero), returned in lower case."""
    if value is None:
        return None
    text = value.strip().lower() if isinstance(value, str) else None
    if text is None or len(text) != SECRET_HEX_DIGITS or any(c not in "0123456789abcdef" for c in text):
        raise ValueError(f"{name} must be {SECRET_HEX_DIGITS} hexadecimal digits (128 bits), found {value!r}")
    if int(text, 16) == 0:
        raise ValueError(f"{name} must not be zero")
    return text


def check_seconds(value, name: str) -> float | None:
    """A positive, finite number of seconds (None: no limit)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ValueError(f"{name} expects seconds, found {value!r}") from None
    number = check_finite(value, name)
    if number <= 0:
        raise ValueError(f"{name} must be positive, found {value!r}")
    return number
