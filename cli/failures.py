"""Runs that fail: strategies failing, lost clusters and Ctrl-C, each one line and a status.

(Bad input is :func:`cli.arguments.usage_error`: one line and status 2.) A run that fails
while it plays (a strategy raising or returning a row that is not one of its
candidates, a lost cluster, Ctrl-C) is one line too: status 1 (130 after
Ctrl-C), naming the directory where the finished shards are kept, so that
running the same command again resumes. Anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from cli.arguments import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, one_line, open_chosen_backend, print_error, usage_error
from sim.scale.backends import BackendError, cluster_failure
from strategies.catalogue import StrategyError

def run_failed(message) -> int:
    """Print ``five-up: error: MESSAGE`` (a run that failed); return status 1."""
    print_error(message)
    return EXIT_FAILED


def strategy_failure(exc: BaseException) -> bool:
    """A strategy failed while the matches ran: a :class:`sim.engine.python_seats.StrategyFailure`
    or the engine's RuntimeError for a row that is not a candidate (or, on a dask worker, a
    spec the worker cannot load: :class:`strategies.StrategyError`)."""
    if isinstance(exc, StrategyError):
        return True
    return isinstance(exc, RuntimeError) and not cluster_failure(exc)


def run_reporting_failures(work: Callable, shards=None, out=None) -> tuple[int, object]:
    """``(EXIT_OK, work())``, or the exit status of its failure after one error line.

    Parameters
    ----------
    work : callable
        The run, without arguments.
    shards : path, optional
        Where the run keeps its finished shards (named in the line after a
        lost cluster or Ctrl-C: the same command resumes from them).
    out : path, optional
        The run's output, named when writing it fails.

    Returns
    -------
    (int, object)
        The exit status and ``work()``'s result (None after a failure).
    """
    kept = f"; finished shards are kept in {shards}: rerun the same command to resume" if shards else ""
    try:
        return EXIT_OK, work()
    except KeyboardInterrupt:
        print(f"five-up: error: interrupted{kept}", file=sys.stderr)
        return EXIT_INTERRUPTED, None
    except Exception as exc:  # failures of the run become one line; bugs propagate
        if strategy_failure(exc):
            return run_failed(exc), None
        if isinstance(exc, ValueError):
            return usage_error(exc), None
        if not cluster_failure(exc):
            raise
        if isinstance(exc, OSError) and exc.filename and out is not None:
            return usage_error(f"cannot write into {out}: {exc.strerror or exc}"), None
        return run_failed(f"run failed ({type(exc).__name__}: {one_line(exc)}){kept}"), None


def run_on_backend(scale: dict, work: Callable, shards=None, out=None) -> tuple[int, object, float]:
    """Open the backend ``scale`` names, run ``work(backend)`` on it, close it.

    Parameters
    ----------
    scale : dict
        :func:`cli.arguments.backend_options`.
    work, shards, out
        As :func:`run_reporting_failures` (``work`` takes the open backend).

    Returns
    -------
    (int, object, float)
        The exit status, ``work``'s result (None after a failure) and the seconds it took.
    """
    try:
        backend = open_chosen_backend(scale)  # a cluster is started or reached here
    except BackendError as exc:
        return usage_error(exc), None, 0.0
    started = time.perf_counter()

    def run():
        with backend:
            return work(backend)

    status, result = run_reporting_failures(run, shards=shards, out=out)
    return status, result, time.perf_counter() - started
