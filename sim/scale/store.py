"""The durable store of a sharded run: atomic shard files and the run's manifest.

Every finished shard is written into the store's directory as it arrives,
atomically (:func:`sim.files.atomic_write`):
``shard-p<part>-s<seed>-m<first>-n<count>`` ``.parquet`` (the frame) or
``.json`` (its aggregate in summary-only mode). ``manifest.json`` holds the
run's configuration (job, its arguments, match range, shard size, mode).
Opening a store on a directory whose manifest differs raises
:class:`ShardError` (one line: which setting changed) -- shards of two runs
are never mixed. Re-running the same run resumes: shards already on disk are
not recomputed and the final result equals that of an uninterrupted run. A
lock file keeps two live processes out of one directory; a killed process's
lock dies with it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from sim.files import atomic_write, canonical, settings_difference, write_manifest
from sim.scale.shards import Shard

FORMAT = "exact61-shards/1"
"""The ``format`` of every shard manifest."""
MANIFEST_NAME = "manifest.json"
LOCK_NAME = ".lock"
MODES = ("frames", "summary")
_SHARD_FILE = re.compile(r"^shard-p\d+-s\d+-m\d+-n\d+(\.[a-z][a-z0-9_]*)?\.(parquet|json)$")
_TABLE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_TEMP_FILE = re.compile(r"^\.shard-.*\.tmp$|^\.manifest\.json\..*\.tmp$")


class ShardError(ValueError):
    """A shard directory cannot be used (another run's shards, unreadable, in use)."""


class ShardStore:
    """A directory of finished shards plus the manifest of the run they belong to.

    Parameters
    ----------
    directory : path
        Created on :meth:`open` (with parents).
    manifest : dict
        JSON-ready configuration of the run: everything the results depend on.
    mode : {"frames", "summary"}
        Shards hold frames (Parquet) or aggregates (JSON).
    tables : sequence of str, optional
        Frames mode for a job returning several tables (a dict ``name ->
        DataFrame``, e.g. matches, events, paths): each shard is one file per
        table, ``<shard>.<table>.parquet``, and counts as finished once every
        table's file is there (each is written atomically, so a kill between
        two leaves an unfinished shard that is simply recomputed).
    """

    def __init__(self, directory, manifest: dict, mode: str = "frames",
                 tables: Sequence[str] | None = None):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        if tables is not None:
            tables = tuple(tables)
            if mode != "frames" or not tables or len(set(tables)) != len(tables) or \
                    not all(isinstance(t, str) and _TABLE_NAME.match(t) for t in tables):
                raise ValueError("tables must be distinct lower-case names, in frames mode")
        self.directory = Path(directory)
        self.mode = mode
        self.tables = tables
        extra = {"tables": list(tables)} if tables is not None else {}
        self.manifest = canonical({"format": FORMAT, "mode": mode, **extra, **manifest})
        self.suffix = ".parquet" if mode == "frames" else ".json"
        self._lock = None

    # -- opening -------------------------------------------------------------
    def check(self) -> int:
        """Refuse a directory holding another run (:class:`ShardError`); no side effects.

        Returns the number of shard files already there (one per table in a store
        of several tables).
        """
        d = self.directory
        if not d.exists():
            return 0
        if not d.is_dir():
            raise ShardError(f"{d} exists and is not a directory")
        manifest = d / MANIFEST_NAME
        names = [p.name for p in d.iterdir()]
        if not manifest.exists():
            foreign = [n for n in names if n != LOCK_NAME and not _TEMP_FILE.match(n)]
            if foreign:
                raise ShardError(f"{d} holds files but no {MANIFEST_NAME}: choose another output "
                                 "or remove that directory")
            return 0
        try:
            previous = json.loads(manifest.read_text())
        except (OSError, ValueError):
            raise ShardError(f"{manifest} is unreadable: remove {d} to start afresh") from None
        difference = settings_difference(previous, self.manifest)
        if difference:
            raise ShardError(f"{d} holds shards of a different run ({difference}): rerun that "
                             f"command to resume it, or remove {d}")
        return sum(1 for n in names if _SHARD_FILE.match(n))

    def open(self) -> ShardStore:
        """Check, create, lock, write the manifest if new, drop stale temporary files."""
        self.check()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._acquire_lock()
        try:
            self.check()  # again under the lock
            manifest = self.directory / MANIFEST_NAME
            if not manifest.exists():
                write_manifest(manifest, self.manifest)
            for entry in self.directory.iterdir():
                if _TEMP_FILE.match(entry.name):
                    try:
                        entry.unlink()
                    except OSError:
                        pass
        except BaseException:
            self.close()
            raise
        return self

    def _acquire_lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock
            return
        handle = open(self.directory / LOCK_NAME, "a")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise ShardError(f"{self.directory} is in use by another running process") from None
        self._lock = handle

    def close(self) -> None:
        """Release the lock (the files stay)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def remove(self) -> None:
        """Delete the shard files, the manifest and the directory (if nothing else is in it)."""
        d = self.directory
        if d.is_dir():
            for entry in d.iterdir():
                if _SHARD_FILE.match(entry.name) or _TEMP_FILE.match(entry.name) or \
                        entry.name == MANIFEST_NAME:
                    entry.unlink()
        self.close()
        try:
            (d / LOCK_NAME).unlink()
        except FileNotFoundError:
            pass
        try:
            d.rmdir()
        except OSError:
            pass

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- shards --------------------------------------------------------------
    def path(self, shard: Shard, table: str | None = None) -> Path:
        """The shard's file (of ``table``, for a store of several tables)."""
        if (table is None) != (self.tables is None):
            raise ValueError("a table name is needed exactly when the store has tables")
        middle = "" if table is None else f".{table}"
        return self.directory / (shard.name + middle + self.suffix)

    def has(self, shard: Shard) -> bool:
        if self.tables is None:
            return self.path(shard).is_file()
        return all(self.path(shard, t).is_file() for t in self.tables)

    def write(self, shard: Shard, result) -> None:
        if self.tables is not None:
            if not isinstance(result, dict) or set(result) != set(self.tables):
                found = sorted(result) if isinstance(result, dict) else type(result).__name__
                raise ValueError(f"the job must return the tables {list(self.tables)}, "
                                 f"found {found}")
            for table in self.tables:  # the last file written completes the shard
                frame = result[table]
                atomic_write(self.path(shard, table),
                             lambda p, f=frame: f.to_parquet(p, engine="pyarrow", index=False))
        elif self.mode == "frames":
            atomic_write(self.path(shard),
                         lambda p: result.to_parquet(p, engine="pyarrow", index=False))
        else:
            text = json.dumps(canonical(result), sort_keys=True)
            atomic_write(self.path(shard), lambda p: p.write_text(text))

    def read(self, shard: Shard):
        if self.tables is not None:
            return {t: pd.read_parquet(self.path(shard, t), engine="pyarrow") for t in self.tables}
        path = self.path(shard)
        if self.mode == "frames":
            return pd.read_parquet(path, engine="pyarrow")
        return json.loads(path.read_text())
