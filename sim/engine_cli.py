"""``five-up simulate`` and ``five-up record``: the engine's subcommands.

:func:`add_simulate_parser` and :func:`add_record_parser` register them on the
``five-up`` argparse subparsers; each handler returns an exit status. Every
argument is validated here (not by argparse types) so that all bad input gives
exactly one line ``five-up: error: ...`` on stderr and status 2, never a
traceback. The engine (and Numba) is imported only when a handler runs, so
other subcommands start fast.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

STRATEGY_SPECS_HELP = (
    "Each strategy is a built-in name (`five-up strategies`), MODULE:NAME (a strategy of an "
    "importable module), path/to/file.py:NAME, or any of these with other parameter values: "
    "name[k=v,...] (commas inside [...] are kept). With --backend dask the workers import "
    "the module, so it must be importable on every worker (installed or on PYTHONPATH); "
    "strategies defined in a notebook or __main__ run only on the local backend."
)
"""The part of ``--strategies``' help shared by every command that takes it."""


class UsageError(ValueError):
    """Bad command-line input; its message becomes the error line."""


def _error(message: str) -> int:
    print(f"five-up: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def strategy_failure(exc: BaseException) -> bool:
    """A strategy that failed while the matches ran: a :class:`sim.python_seats.StrategyFailure`
    or the engine's RuntimeError for a row that is not a candidate (or, on a dask worker, a
    spec the worker cannot load: :class:`strategies.StrategyError`)."""
    from sim.backends import cluster_failure
    from strategies.catalogue import StrategyError

    if isinstance(exc, StrategyError):
        return True
    return isinstance(exc, RuntimeError) and not cluster_failure(exc)


def _failed(exc: BaseException) -> int:
    """One line ``five-up: error: ...`` for a run that failed; exit status 1."""
    detail = " ".join(str(exc).split()) or type(exc).__name__
    print(f"five-up: error: {detail}", file=sys.stderr)
    return EXIT_FAILED


def _int_option(text, option: str, low: int, high: int | None = None) -> int:
    try:
        value = int(str(text).strip())
    except ValueError:
        raise UsageError(f"{option} expects an integer, found {text!r}") from None
    if value < low or (high is not None and value > high):
        if high is None:
            raise UsageError(f"{option} must be at least {low}, found {value}")
        raise UsageError(f"{option} must be between {low} and {high}, found {value}")
    return value


def _players_option(text) -> int:
    try:
        value = int(str(text).strip())
    except ValueError:
        value = None
    if value not in (2, 3, 4):
        raise UsageError(f"--players must be 2, 3 or 4, found {text!r}")
    return value


def _check_output(path: str, suffixes: tuple[str, ...]) -> str:
    """Fail early, before a long run, if ``path`` cannot be written."""
    if not path:
        raise UsageError("--out needs a file name")
    if os.path.isdir(path):
        raise UsageError(f"--out {path} is a directory, not a file")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"cannot write {path}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {path}: directory {directory} is not writable")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise UsageError(f"cannot write {path}: file is not writable")
    if suffixes and not path.endswith(suffixes):
        raise UsageError(f"--out {path} should end with {' or '.join(suffixes)}")
    return path


def _common_arguments(parser: argparse.ArgumentParser, out_metavar: str) -> None:
    parser.add_argument("--players", required=True, metavar="N", help="2, 3 or 4")
    parser.add_argument(
        "--strategies",
        required=True,
        metavar="A,B[,..]",
        help="strategy per seat, comma-separated; with 4 players two strategies are the "
        "partnerships (seats 0,2 and 1,3). " + STRATEGY_SPECS_HELP.replace("%", "%%"),
    )
    parser.add_argument("--matches", required=True, metavar="M", help="number of matches (> 0)")
    parser.add_argument("--seed", required=True, metavar="S", help="master seed, 0 .. 2**63-1")
    parser.add_argument(
        "--max-rounds",
        default="1000",
        metavar="R",
        help="ruling 15: a match still running after R rounds stops unfinished (default 1000)",
    )
    parser.add_argument(
        "--threads",
        default=None,
        metavar="T",
        help="worker threads (default: NUMBA_NUM_THREADS, i.e. all cores)",
    )
    parser.add_argument("--first-match", default="0", metavar="F", help="index of the first match (default 0)")
    parser.add_argument("--out", required=True, metavar=out_metavar, help="output file")


class _Options:
    """Validated common options."""

    def __init__(self, args, suffixes: tuple[str, ...]):
        import numba

        from sim.engine import MAX_SEED, resolve_strategies

        self.players = _players_option(args.players)
        try:
            self.strategies = resolve_strategies(self.players, args.strategies)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self.names = [strategy.name for strategy in self.strategies]
        self.matches = _int_option(args.matches, "--matches", 1)
        self.seed = _int_option(args.seed, "--seed", 0, MAX_SEED)
        self.max_rounds = _int_option(args.max_rounds, "--max-rounds", 1)
        self.first_match = _int_option(args.first_match, "--first-match", 0, MAX_SEED)
        limit = numba.config.NUMBA_NUM_THREADS
        self.threads = None if args.threads is None else _int_option(args.threads, "--threads", 1, limit)
        self.out = _check_output(args.out, suffixes)


# ---------------------------------------------------------------------------
# five-up simulate
# ---------------------------------------------------------------------------
def add_simulate_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``five-up simulate`` (handler :func:`run_simulate`)."""
    parser = subparsers.add_parser(
        "simulate",
        help="simulate complete matches with the Numba engine and write a Parquet frame",
        description=(
            "Simulate complete matches with the Numba engine and write one row per match "
            "(winner, final scores, rounds, placements, draws, passes, settlements, discarded "
            "events, first leader and opening) to a Parquet file. A progress bar with "
            "matches/s is shown on stderr and a short summary on stdout. The same seed gives "
            "the same frame whatever the thread count, backend or shard size. Finished shards "
            "are kept in FILE.parts/ until FILE is written: re-running the same command after "
            "an interruption resumes. With --summary-only, --out is a .json or .csv summary."
        ),
    )
    _common_arguments(parser, "FILE.parquet")
    from sim.backends import add_backend_arguments

    add_backend_arguments(parser)
    parser.set_defaults(func=run_simulate)
    return parser


def run_simulate(args) -> int:
    """Handler of ``five-up simulate``; returns the exit status."""
    from sim.backends import BackendError, backend_options

    try:
        scale = backend_options(args)
        options = _Options(args, (".json", ".csv") if scale["summary_only"] else (".parquet", ".pq"))
    except (UsageError, BackendError) as exc:
        return _error(str(exc))
    from sim.scale_cli import simulate_command

    return simulate_command(options, scale)


def _write_parquet(frame, path: str) -> None:
    """Write atomically: a temporary file in the same directory, then rename."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".simulate-", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        frame.to_parquet(temporary, engine="pyarrow", index=False)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _summary(frame, options, elapsed: float) -> str:
    n = len(frame)
    lines = [
        (
            f"{n} matches, {options.players} players ({','.join(options.names)}), seed {options.seed}: "
            f"{elapsed:.2f} s, {n / max(elapsed, 1e-9):,.0f} matches/s -> {options.out}"
        ),
    ]
    winners = frame["winner"].value_counts()
    entity_count = sum(1 for c in frame.columns if c.startswith("score_"))
    for entity in range(entity_count):
        seats = [s for s in range(options.players) if (s % 2 if options.players == 4 else s) == entity]
        who = "+".join(options.names[s] for s in seats)
        wins = int(winners.get(entity, 0))
        lines.append(f"  entity {entity} (seat {','.join(map(str, seats))}, {who}): "
                     f"{wins} wins ({100 * wins / n:.1f}%)")
    unfinished = int(winners.get(-1, 0))
    lines.append(
        f"  unfinished {unfinished}; mean rounds {frame['rounds'].mean():.2f}, "
        f"placements {frame['placements'].mean():.1f}, discarded events "
        f"{frame['events_discarded'].mean():.2f} per match"
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# five-up record
# ---------------------------------------------------------------------------
def add_record_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``five-up record`` (handler :func:`run_record`)."""
    parser = subparsers.add_parser(
        "record",
        help="simulate matches with the engine and write them as exact61-record/1 JSON Lines",
        description=(
            "Simulate matches with the Numba engine and write every deal, action and score "
            "event as exact61-record/1 (one match per line), for auditing with `five-up "
            "verify`. The matches are exactly those `five-up simulate` plays for the same "
            "arguments."
        ),
    )
    _common_arguments(parser, "FILE.jsonl")
    parser.set_defaults(func=run_record)
    return parser


def run_record(args) -> int:
    """Handler of ``five-up record``; returns the exit status."""
    try:
        options = _Options(args, ())
    except UsageError as exc:
        return _error(str(exc))
    from sim.engine import record
    from sim.records import write_records

    started = time.perf_counter()
    try:
        records = record(
            options.players,
            options.strategies,
            options.matches,
            options.seed,
            max_rounds=options.max_rounds,
            first_match=options.first_match,
            threads=options.threads,
        )
    except Exception as exc:  # a strategy failing at run time is one line; others propagate
        if not strategy_failure(exc):
            raise
        return _failed(exc)
    try:
        written = write_records(options.out, records)
    except OSError as exc:
        return _error(f"cannot write {options.out}: {exc.strerror or exc}")
    elapsed = time.perf_counter() - started
    unfinished = sum(1 for r in records if r["winner"] is None)
    print(
        f"{written} records ({options.players} players, {','.join(options.names)}, seed "
        f"{options.seed}, {unfinished} unfinished) -> {options.out} in {elapsed:.2f} s"
    )
    return EXIT_OK
