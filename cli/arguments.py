"""What every ``five-up`` subcommand shares: exit statuses, bad input in one line, the
subcommand record and parser, and the scale-out options with their checks.

The options themselves are rows of :mod:`cli.options`, read as text and checked here
(:func:`backend_options`) or by the project's own checks, so that all bad input gives exactly one
line ``five-up: error: ...`` and status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from cli import options
from cli.options import Switch, Text
from core.checks import check_int
from sim.scale.backends import (
    BACKENDS,
    DEFAULT_CONNECT_TIMEOUT,
    Backend,
    BackendError,
    open_backend,
)
from sim.scale.shards import DEFAULT_SHARD_SIZE

PROG = "five-up"
"""The command's name, the prefix of every error line."""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


DEBUG_ENV = "FIVE_UP_DEBUG"
"""Set (to 1) by ``--debug``: after an error's one line, its whole text is printed too."""


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (its type when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def print_error(message) -> None:
    """``five-up: error: MESSAGE`` on stderr; with ``--debug`` an exception's whole text follows
    (its ``details`` when it has them, e.g. Numba's typing error, else its traceback)."""
    print(f"{PROG}: error: {one_line(message) if isinstance(message, BaseException) else message}",
          file=sys.stderr)
    if isinstance(message, BaseException) and os.environ.get(DEBUG_ENV):
        details = getattr(message, "details", None) or "".join(
            traceback.format_exception(type(message), message, message.__traceback__))
        print(details, file=sys.stderr)


def usage_error(message) -> int:
    """Print ``five-up: error: MESSAGE`` (bad input); return status 2."""
    print_error(message)
    return EXIT_USAGE

@dataclass(frozen=True)
class Command:
    """One ``five-up`` subcommand: its help, options and handler (its name and one-line
    summary are in :data:`cli.main.COMMANDS`, so that ``five-up --help`` loads no command).

    Attributes
    ----------
    description : str
        The paragraph of ``five-up NAME --help`` (argparse prints it as written: no ``%`` escapes).
    add_arguments : callable
        ``add_arguments(parser)`` adds the subcommand's options.
    run : callable
        ``run(args) -> int``: the handler, returning the exit status.
    raw_description : bool
        Keep the description's line breaks.
    epilog : str
        Printed after the options (None: nothing).
    """

    description: str
    add_arguments: Callable
    run: Callable
    raw_description: bool = False
    epilog: str | None = None

    def configure(self, parser: argparse.ArgumentParser) -> None:
        """Give the subcommand's parser its help, options and handler."""
        parser.description = self.description
        parser.epilog = self.epilog
        if self.raw_description:
            parser.formatter_class = argparse.RawDescriptionHelpFormatter
        self.add_arguments(parser)
        parser.set_defaults(func=self.run)


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line ``five-up: error: ...`` and exit status 2."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{PROG}: error: {message} (see {self.prog} --help)\n")


def check_output_file(path: str, suffixes: tuple[str, ...], option: str = "--out") -> str:
    """``--out FILE`` (or another ``option``), checked before a long run: its directory exists
    and is writable, its suffix is one of ``suffixes`` (any when empty). Raises ValueError
    (one line)."""
    if not path:
        raise ValueError(f"{option} needs a file name")
    if os.path.isdir(path):
        raise ValueError(f"{option} {path} is a directory, not a file")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"cannot write {path}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write {path}: directory {directory} is not writable")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ValueError(f"cannot write {path}: file is not writable")
    if suffixes and not path.endswith(suffixes):
        raise ValueError(f"{option} {path} should end with {' or '.join(suffixes)}")
    return path


def add_backend_arguments(parser, summary_only: bool = True, shard_size: int = DEFAULT_SHARD_SIZE,
                          shard_unit: str = "matches") -> None:
    """Add ``--backend --scheduler --workers --connect-timeout --shard-size --keep-shards``
    (and ``--summary-only``); :func:`backend_options` checks their values. ``shard_size`` is
    the default shown in ``--help``."""
    rows = [
        Text("--backend", "NAME",
             "where shards run: local (default: threads in this process) or dask",
             default="local"),
        Text("--scheduler", "ADDR",
             "dask scheduler address (e.g. tcp://host:8786); without it --backend dask "
             "starts a local cluster for the run"),
        Text("--workers", "N",
             "worker processes of that local dask cluster (default: all cores)"),
        Text("--connect-timeout", "SEC",
             f"seconds to wait for --scheduler (default {DEFAULT_CONNECT_TIMEOUT:g})",
             default=str(DEFAULT_CONNECT_TIMEOUT)),
        Text("--shard-size", "K",
             f"{shard_unit} per shard (default {shard_size}); finished shards are kept "
             "on disk and a re-run of the same command resumes from them"),
        Switch("--keep-shards", "keep the shard files after the final output is written"),
    ]
    if summary_only:
        rows.append(Switch("--summary-only",
                           "keep only per-shard aggregates (win counts, sums, sums of "
                           "squares, histograms): memory independent of --matches"))
    options.add(parser.add_argument_group("scale-out and resume"), rows)


def backend_options(args, default_shard_size: int = DEFAULT_SHARD_SIZE) -> dict:
    """Check the options of :func:`add_backend_arguments`.

    Returns
    -------
    dict
        ``backend, scheduler, workers, connect_timeout, shard_size, keep_shards,
        summary_only`` ready for :func:`sim.scale.backends.open_backend` and the
        shard runner.

    Raises
    ------
    BackendError
        One line naming the option (a ValueError).
    """
    backend = str(args.backend).strip()
    if backend not in BACKENDS:
        raise BackendError(f"--backend must be one of {', '.join(BACKENDS)}, found {args.backend!r}")
    scheduler = args.scheduler.strip() if args.scheduler else None
    if scheduler is not None and backend != "dask":
        raise BackendError("--scheduler needs --backend dask")
    if args.scheduler is not None and not scheduler:
        raise BackendError("--scheduler needs an address such as tcp://host:8786")
    workers = None
    if args.workers is not None:
        if backend != "dask":
            raise BackendError("--workers needs --backend dask")
        if scheduler:
            raise BackendError("--workers starts a local cluster; it cannot be combined with --scheduler")
        workers = check_int(args.workers, "--workers", 1)
    try:
        timeout = float(str(args.connect_timeout).strip())
    except ValueError:
        raise BackendError(f"--connect-timeout expects seconds, found {args.connect_timeout!r}") from None
    if not (math.isfinite(timeout) and timeout > 0):
        raise BackendError(f"--connect-timeout must be positive, found {args.connect_timeout!r}")
    shard_size = (default_shard_size if args.shard_size is None
                  else check_int(args.shard_size, "--shard-size", 1))
    return {
        "backend": backend,
        "scheduler": scheduler,
        "workers": workers,
        "connect_timeout": timeout,
        "shard_size": shard_size,
        "keep_shards": bool(getattr(args, "keep_shards", False)),
        "summary_only": bool(getattr(args, "summary_only", False)),
    }


def open_chosen_backend(scale: dict) -> Backend:
    """The backend :func:`backend_options` chose (a dask cluster is started or reached here).

    Raises
    ------
    BackendError
        dask missing, or the scheduler unreachable (one line).
    """
    return open_backend(scale["backend"], scale["scheduler"], scale["workers"],
                        scale["connect_timeout"])
