"""The options of the ``five-up`` subcommands as tables: one row per option, one loop
(:func:`add`) that gives them to argparse, and the rows several subcommands share.

Every option is read as text and checked by the project's own checks
(:mod:`core.checks`, :class:`sim.engine.spec.RunSpec`, :func:`cli.arguments.backend_options`),
never by argparse types, so that all bad input gives exactly one line
``five-up: error: ...`` and status 2 (argparse would print its usage too): a row has no type.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.tiles import DEFAULT_MAX_ROUNDS

STRATEGY_SPECS_HELP = (
    "Each strategy is a built-in name (`five-up strategies`), MODULE:NAME (a strategy of an "
    "importable module), path/to/file.py:NAME, openspiel:ismcts (OpenSpiel's information-set MCTS "
    "bot; pip install \".[openspiel]\"), or any of these with other parameter values: "
    "name[k=v,...] (commas inside [...] are kept). With --backend dask the workers import "
    "the module, so it must be importable on every worker (installed or on PYTHONPATH); "
    "strategies defined in a notebook or __main__ run only on the local backend."
)
"""The part of ``--strategies``' help shared by every command that takes it."""


def strategies_help(what: str) -> str:
    """``--strategies``' help: ``what`` the list means, then the spec syntax (``%`` escaped)."""
    return f"{what} {STRATEGY_SPECS_HELP}".replace("%", "%%")


@dataclass(frozen=True)
class Text:
    """An option with a value (``--name VALUE``), read as text.

    Attributes
    ----------
    flag : str
        ``--name``; the handler reads ``args.name``.
    metavar : str
        What ``--help`` calls the value.
    help : str
        Its text in ``--help`` (argparse's ``%`` escapes apply).
    default : str or None
        The text the handler reads when the option is not given (None: the handler decides).
    required : bool
        Without it the subcommand stops with a usage error.
    """

    flag: str
    metavar: str
    help: str
    default: str | None = None
    required: bool = False


@dataclass(frozen=True)
class Switch:
    """An option without a value (``--name``): the handler reads ``args.name``, True when it
    is given.

    Attributes
    ----------
    flag : str
        ``--name``.
    help : str
        Its text in ``--help`` (argparse's ``%`` escapes apply).
    """

    flag: str
    help: str


def add(parser, rows) -> None:
    """Give ``parser`` (or one of its argument groups) the options of ``rows``
    (:class:`Text`, :class:`Switch`), in their order."""
    for row in rows:
        if isinstance(row, Switch):
            parser.add_argument(row.flag, action="store_true", help=row.help)
        else:
            parser.add_argument(row.flag, default=row.default, required=row.required,
                                metavar=row.metavar, help=row.help)


MAX_ROUNDS = Text("--max-rounds", "R",
                  "ruling 15: a match still running after R rounds stops unfinished "
                  f"(default {DEFAULT_MAX_ROUNDS})", default=str(DEFAULT_MAX_ROUNDS))
"""``--max-rounds`` of the commands that play many matches on the engine."""

THREADS = Text("--threads", "T", "worker threads (default: NUMBA_NUM_THREADS, i.e. all cores)")
"""``--threads`` of the commands that play matches on the engine."""

RUN_DIRECTORY = Text("--out", "DIR",
                     "output directory (created; refused if it holds a different run)",
                     required=True)
"""``--out DIR`` of a run that claims its output directory (only the same run resumes there)."""

QUIET = Switch("--quiet", "no progress bar")
"""``--quiet`` of the commands that show a progress bar."""

PLAYER_COUNTS = Text("--players", "N[,N..]",
                     "player counts, comma-separated from 2, 3, 4 (default 2,3,4)",
                     default="2,3,4")
"""``--players`` of the studies that run every player count unless told otherwise."""
