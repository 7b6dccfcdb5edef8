"""``five-up strategies``: list the built-in strategies, or describe any.

Without arguments it lists the built-ins (:func:`strategies.catalogue.builtins`)
and the strategies of installed families (``openspiel:ismcts``,
:func:`strategies.catalogue.families`); with specs (``greedy``,
``mymodule:edge``, ``path/to/file.py:edge``, ``weighted[w_exact=3]``) it
describes those. Listing compiles nothing (Numba compiles a strategy when it
first runs), so it takes under a second.
"""

from __future__ import annotations

import json
import sys
import textwrap

from cli.arguments import EXIT_OK, Command, usage_error
from strategies.catalogue import describe

WIDTH = 88


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("names", nargs="*", metavar="SPEC",
                        help="only these strategies (built-in names, MODULE:NAME, FILE.py:NAME, "
                             "name[k=v,...])")


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def format_text(rows: list[dict]) -> str:
    """Human-readable listing: a summary table, then each strategy in full."""
    header = ("name", "kind", "stochastic", "inference", "lookahead", "parameters")
    table = [header]
    for row in rows:
        table.append(
            (
                row["name"],
                "compiled" if row["compiled"] else "python",
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
        if not row["compiled"]:
            flags = "plain Python, " + flags
        if row["sees_hidden"]:
            flags += "; SEES HIDDEN INFORMATION: an audit strategy, needs --allow-hidden"
        spec = "" if row["spec"] == row["name"] else f"; spec {row['spec']}"
        lines.append(f"{row['name']} ({flags}{spec})")
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
    """Print the listing; 0, or 2 with one error line for a spec that names no strategy."""
    try:
        rows = describe(args.names, with_families=True)
    except ValueError as error:
        return usage_error(error)
    if args.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        sys.stdout.write(format_text(rows))
    return EXIT_OK


STRATEGIES = Command(
    "Without SPEC: list every built-in strategy. With SPECs: describe those. A SPEC is what "
    "--strategies takes: a built-in name, MODULE:NAME (a strategy of an importable module), "
    "path/to/file.py:NAME, or any of these with other parameter values, name[k=v,...]. "
    "Shown: the name (what tables show), whether it is compiled or plain Python, stochastic, "
    "uses inference about opponents' tiles, looks ahead, its parameters with defaults "
    "(override them with params= in sim.simulate, or name[k=v]) and a one-paragraph "
    "description.",
    add_arguments, run_strategies_command)
