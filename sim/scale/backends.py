"""Where shards run: ``local`` (this process) or ``dask`` (a dask.distributed cluster).

A backend executes independent calls of one picklable, module-level function
and yields ``(index, result)`` pairs as they finish, in any order. The shard
runner (:mod:`sim.scale.runner`) puts results back in shard order, so the output
never depends on the backend, the worker count or the completion order.

``local`` (default)
    Runs the shards one after another in this process; each shard uses the
    engine's Numba threads (``--threads``, default all cores).
``dask``
    Submits each shard to a dask.distributed cluster. With ``scheduler`` (an
    address such as ``tcp://10.0.0.5:8786``) it connects to an existing
    cluster, waiting at most ``connect_timeout`` seconds; without it a
    ``LocalCluster`` of ``workers`` processes (default: the core count), one
    thread each, is started for the run and shut down afterwards. Each shard
    runs the compiled engine on one Numba thread unless ``threads`` is given:
    parallelism comes from the workers. At most about twice as many shards as
    the cluster has worker threads are in flight, so a long run does not queue
    its whole result set on the workers.

Workers must be able to import the project (``pip install
'exact61-five-up[cluster]'`` in the workers' environment) and every strategy
the run uses: a shard carries each strategy as a spec string
(:func:`strategies.catalogue.spec_of`: a built-in name, ``MODULE:NAME`` or
``FILE.py:NAME``, plus ``[k=v,...]`` for a variant) and the worker resolves it,
importing the module (so it must be installed or on the workers'
``PYTHONPATH``; a file must exist at the same path). A strategy defined in a
notebook or ``__main__`` has no such reference: it runs on the local backend
only, and a dask run refuses it up front (:func:`sim.scale.runner.run_shards`). The
compiled kernels come from each worker's Numba disk cache (the first shard on
a fresh worker pays the warm start, a cold compile on a machine that never ran
the engine or this set of strategies).

Bad settings raise :class:`BackendError`, a ``ValueError`` whose message is one
line for the command line.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterable, Iterator

__all__ = [
    "BACKENDS",
    "DEFAULT_CONNECT_TIMEOUT",
    "Backend",
    "BackendError",
    "DaskBackend",
    "LocalBackend",
    "cluster_failure",
    "open_backend",
]

BACKENDS = ("local", "dask")
DEFAULT_CONNECT_TIMEOUT = 10.0
"""Seconds to wait for an existing scheduler before giving up."""


class BackendError(ValueError):
    """A backend cannot be used as asked; the message is one line."""


class Backend:
    """Runs calls ``fn(**kwargs)``; see :meth:`run`."""

    name = "?"
    #: Default Numba threads per shard (``None``: all of this process's threads).
    shard_threads: int | None = None

    def run(self, fn: Callable, calls: Iterable[tuple[int, dict]]) -> Iterator[tuple[int, object]]:
        """Yield ``(index, fn(**kwargs))`` for every ``(index, kwargs)``, in completion order.

        An exception in a call is raised here (the remaining calls are cancelled).
        """
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LocalBackend(Backend):
    """Shards one after another in this process (the engine's threads inside each)."""

    name = "local"

    def run(self, fn, calls):
        for index, kwargs in calls:
            yield index, fn(**kwargs)


class DaskBackend(Backend):
    """Shards as tasks on a dask.distributed cluster (see the module docstring).

    Parameters
    ----------
    scheduler : str, optional
        Address of a running scheduler; default: start a LocalCluster.
    workers : int, optional
        LocalCluster worker processes (default ``os.cpu_count()``); ignored
        with ``scheduler``.
    connect_timeout : float
        Seconds to wait for the scheduler.
    """

    name = "dask"
    shard_threads = 1

    def __init__(self, scheduler: str | None = None, workers: int | None = None,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise BackendError(
                "--backend dask needs dask.distributed: pip install 'exact61-five-up[cluster]'"
            ) from None
        self.scheduler = scheduler
        self.cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout=connect_timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:  # ValueError: a bad address
                detail = " ".join(str(exc).split()) or type(exc).__name__
                raise BackendError(
                    f"cannot connect to the dask scheduler at {scheduler} "
                    f"within {connect_timeout:g} s ({detail})"
                ) from None
        else:
            n = workers if workers is not None else (os.cpu_count() or 1)
            try:
                # Worker logs at CRITICAL only: a task's failure reaches the client as its
                # exception anyway, while at shutdown a worker whose heartbeat meets the closed
                # scheduler logs a harmless ERROR with a traceback (a race in distributed).
                self.cluster = LocalCluster(
                    n_workers=n, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.CRITICAL,
                )
                self.client = Client(self.cluster, set_as_default=False)
            except (OSError, RuntimeError, TimeoutError, ValueError) as exc:
                self.close()
                raise BackendError(f"cannot start a local dask cluster: {exc}") from None

    def _slots(self) -> int:
        try:
            return max(1, sum(self.client.nthreads().values()))
        except (OSError, RuntimeError, TimeoutError):
            return 1

    def run(self, fn, calls):
        from distributed import as_completed

        calls = iter(calls)
        futures = {}
        if not self.client.nthreads():
            print(f"five-up: waiting for dask workers to join {self.client.scheduler.address}",
                  file=sys.stderr)
        done = as_completed(loop=self.client.loop)

        def submit() -> bool:
            try:
                index, kwargs = next(calls)
            except StopIteration:
                return False
            future = self.client.submit(fn, pure=False, **kwargs)
            futures[future.key] = (index, future)
            done.add(future)
            return True

        try:
            for _ in range(2 * self._slots()):
                if not submit():
                    break
            for future in done:
                index, _ = futures.pop(future.key)
                result = future.result()  # raises the task's exception
                future.release()
                yield index, result
                window = 2 * self._slots()
                while len(futures) < window and submit():
                    pass
        finally:
            if futures:
                self.client.cancel([f for _, f in futures.values()])

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001, S110 - best effort on a broken connection
                pass
        if self.cluster is not None:
            try:
                self.cluster.close()
            except Exception:  # noqa: BLE001, S110 - best effort on shutdown
                pass
            self.cluster = None


def open_backend(backend="local", scheduler: str | None = None, workers: int | None = None,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT) -> Backend:
    """A :class:`Backend` from a name (``"local"`` or ``"dask"``) or an instance (returned as is).

    Raises
    ------
    BackendError
        Unknown name, ``scheduler``/``workers`` without the dask backend, dask
        missing, or the scheduler unreachable.
    """
    if isinstance(backend, Backend):
        return backend
    if backend is None:
        backend = "local"
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if backend != "dask":
        if scheduler:
            raise BackendError("--scheduler needs --backend dask")
        if workers is not None:
            raise BackendError("--workers needs --backend dask")
        return LocalBackend()
    if scheduler and workers is not None:
        raise BackendError("--workers starts a local cluster; it cannot be combined with --scheduler")
    return DaskBackend(scheduler=scheduler, workers=workers, connect_timeout=connect_timeout)


def cluster_failure(exc: BaseException) -> bool:
    """An error of the machinery (lost scheduler or workers, I/O) rather than of our code.

    Such errors are reported in one line, with the note that the finished
    shards are kept; anything else is a bug and keeps its traceback.
    """
    module = type(exc).__module__ or ""
    return isinstance(exc, (OSError, TimeoutError)) or module.startswith(("distributed", "tornado"))
