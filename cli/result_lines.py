"""What a command prints after a finished run: its key numbers, and the table module it shipped."""

from __future__ import annotations


def print_key_numbers(key_numbers: dict[str, str]) -> None:
    """One indented ``key: value`` line per key number of a run, in their order."""
    for key, value in key_numbers.items():
        print(f"  {key}: {value}")


def print_shipped(ship: str | None, command: str) -> None:
    """The line naming the table a run shipped (``--ship PATH``) and the command that
    makes it again; nothing when the run shipped none."""
    if ship is not None:
        print(f"wrote the table {ship} ({command})")
