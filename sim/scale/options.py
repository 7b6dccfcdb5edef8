"""How a run is spread and kept: backend, threads, shard size, shards kept, output, progress.

:class:`ScaleOptions` holds every option of a run that does not change its results: it is
checked once at the entry point (the command line or a Python ``run``) and passed down whole to
the study or tool, its data sources and its shard runner, instead of a keyword each.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from core.checks import check_int
from sim.engine.spec import check_threads
from sim.scale.shards import DEFAULT_SHARD_SIZE


@dataclass(frozen=True)
class ScaleOptions:
    """Where a run's shards play and what is kept of them (build with :meth:`build`).

    None of these changes a run's results: they are not part of its settings (``run.json``).

    Attributes
    ----------
    backend : str or sim.scale.backends.Backend
        ``"local"`` (this process's threads), ``"dask"`` (a LocalCluster for the run) or an
        open backend (left open).
    threads : int or None
        Numba threads per shard (None: the backend's choice).
    shard_size : int
        Matches (or the tool's unit) per shard; the results do not depend on it.
    keep_shards : bool
        Keep the finished shards on disk after the output is written.
    summary_only : bool
        Keep per-shard aggregates only (a tournament or ``five-up simulate``).
    out : pathlib.Path or None
        The output directory (None: nothing is written and nothing resumes).
    progress : bool
        Progress bars.
    """

    backend: object = "local"
    threads: int | None = None
    shard_size: int = DEFAULT_SHARD_SIZE
    keep_shards: bool = False
    summary_only: bool = False
    out: Path | None = None
    progress: bool = False

    @classmethod
    def build(cls, *, backend="local", threads=None, shard_size=None, keep_shards: bool = False,
              summary_only: bool = False, out=None, progress: bool = False,
              default_shard_size: int = DEFAULT_SHARD_SIZE) -> ScaleOptions:
        """Check the options (a ValueError's one line names the option); ``shard_size`` None
        is ``default_shard_size`` (the unit of the run's shards differs between tools)."""
        return cls(backend=backend, threads=check_threads(threads),
                   shard_size=check_int(default_shard_size if shard_size is None else shard_size,
                                        "shard_size", 1),
                   keep_shards=bool(keep_shards), summary_only=bool(summary_only),
                   out=None if out is None else Path(out), progress=bool(progress))

    def on(self, backend) -> ScaleOptions:
        """The same options on ``backend`` (an open backend the command line started)."""
        return replace(self, backend=backend)
