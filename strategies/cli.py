"""The ``five-up strategies`` subcommand: list the registered strategies.

Wired into the ``five-up`` command by :mod:`sim.cli` with
:func:`add_strategies_parser`. Listing compiles nothing (Numba compiles a
strategy when it first runs), so it takes under a second.
"""

from __future__ import annotations

import json
import sys
import textwrap

WIDTH = 88


def add_strategies_parser(subparsers) -> None:
    """Add ``strategies`` to an argparse ``subparsers`` object (sets ``func``)."""
    parser = subparsers.add_parser(
        "strategies",
        help="list the registered strategies, their metadata and parameters",
        description=(
            "List every registered strategy: its name (what --strategies takes), whether it "
            "is stochastic, uses inference about opponents' tiles, looks ahead, its "
            "parameters with defaults (override them with params= in sim.simulate) and a "
            "one-paragraph description."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these strategies")
    parser.set_defaults(func=run_strategies_command)


def strategy_table(names: list[str] | None = None) -> list[dict]:
    """One dict per strategy (id order): the data ``five-up strategies`` prints.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    """
    import strategies

    chosen = strategies.names() if not names else [strategies.get(n).name for n in names]
    rows = []
    for name in chosen:
        info = strategies.get(name)
        rows.append(
            {
                "name": info.name,
                "id": info.strategy_id,
                "stochastic": info.stochastic,
                "uses_inference": info.uses_inference,
                "lookahead": info.lookahead,
                "example": info.example,
                "parameters": [
                    {"name": p.name, "default": p.default, "description": p.description}
                    for p in info.parameters
                ],
                "description": info.description,
            }
        )
    return rows


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def format_text(rows: list[dict]) -> str:
    """Human-readable listing: a summary table, then each strategy in full."""
    header = ("name", "stochastic", "inference", "lookahead", "parameters")
    table = [header]
    for row in rows:
        table.append(
            (
                row["name"] + (" (example)" if row["example"] else ""),
                _yes(row["stochastic"]),
                _yes(row["uses_inference"]),
                str(row["lookahead"]),
                str(len(row["parameters"])),
            )
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    for row in rows:
        lines.append("")
        flags = (
            f"stochastic: {_yes(row['stochastic'])}, uses inference: {_yes(row['uses_inference'])}, "
            f"lookahead: {row['lookahead']}"
        )
        lines.append(f"{row['name']} (id {row['id']}; {flags})")
        lines.extend(textwrap.wrap(row["description"], WIDTH, initial_indent="  ", subsequent_indent="  "))
        if row["parameters"]:
            lines.append("  parameters (default):")
            for parameter in row["parameters"]:
                lines.extend(
                    textwrap.wrap(
                        f"{parameter['name']} = {parameter['default']:g}: {parameter['description']}",
                        WIDTH,
                        initial_indent="    ",
                        subsequent_indent="      ",
                    )
                )
        else:
            lines.append("  parameters: none")
    return "\n".join(lines) + "\n"


def run_strategies_command(args) -> int:
    """Print the listing; 0, or 2 with one error line for an unknown name."""
    try:
        rows = strategy_table(args.names)
    except ValueError as error:
        print(f"five-up: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        sys.stdout.write(format_text(rows))
    return 0
