"""Files written whole or not at all: atomic writes, run manifests, output-directory claims.

Every file the project writes (records, frames, shards, manifests, summaries,
plots, generated kernel modules) goes through :func:`atomic_write`: written
under a temporary name in the same directory, flushed to disk, then renamed
into place, so a crash or a kill never leaves a half-written file behind.

A directory that receives a run's outputs is *claimed* with its settings
(:func:`claim_directory`): the settings are written into a manifest, and a
later run with other settings is refused with one line naming the first
setting that changed (:func:`settings_difference`), so the outputs of two
runs are never mixed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

MANIFEST_NAME = "run.json"
"""The manifest of a claimed output directory."""


class ClaimError(ValueError):
    """An output directory holds another run (or cannot be used); the message is one line."""


def atomic_write(path, write: Callable[[Path], None], *, exclusive: bool = False) -> bool:
    """Write ``path`` all at once: ``write(temporary)``, fsync, then rename into place.

    Parameters
    ----------
    path : path
        The file to create or replace; its directory must exist.
    write : callable
        ``write(temporary: Path)`` writes the whole content to ``temporary``
        (a file in the same directory, created empty).
    exclusive : bool
        Create ``path`` only if it does not exist yet, never replacing it
        (a hard link, atomic even between processes racing for it).

    Returns
    -------
    bool
        False when ``exclusive`` and the file was already there (left as it
        was), else True.
    """
    path = Path(path)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    temporary = Path(name)
    created = True
    try:
        write(temporary)
        umask = os.umask(0)  # mkstemp creates 0600: give the file what open() would
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        if exclusive:
            try:
                os.link(temporary, path)
            except FileExistsError:
                created = False
        else:
            os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    _fsync_directory(path.parent)
    return created


def _fsync_directory(directory: Path) -> None:
    # The rename is durable only once the directory entry is on disk too.
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def canonical(value):
    """``value`` as it reads back from JSON (tuples become lists, keys strings, NumPy plain)."""
    return json.loads(json.dumps(value, sort_keys=True, default=_json_default))


def settings_difference(old, new, path: str = "") -> str | None:
    """The first setting that differs, as ``"KEY was OLD, now NEW"`` (nested keys dotted), or None."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(new) + [k for k in old if k not in new]:
            found = settings_difference(old.get(key), new.get(key), f"{path}.{key}" if path else str(key))
            if found:
                return found
        return None
    if old != new:
        return f"{path or 'settings'} was {json.dumps(old)}, now {json.dumps(new)}"
    return None


def write_manifest(path, settings: dict) -> None:
    """Write ``settings`` as indented JSON, atomically."""
    atomic_write(path, lambda p: p.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n"))


def claim_directory(directory, settings: dict, manifest_name: str = MANIFEST_NAME) -> Path:
    """Create ``directory`` for a run with ``settings``, or reuse it for the same settings.

    Raises
    ------
    ClaimError
        It is not a directory, holds files but no manifest, or holds another
        run (the message names the setting that changed), or cannot be written.
    """
    path = Path(directory)
    settings = canonical(settings)
    if path.exists() and not path.is_dir():
        raise ClaimError(f"{path} exists and is not a directory")
    manifest = path / manifest_name
    if path.is_dir() and any(path.iterdir()):
        if not manifest.exists():
            raise ClaimError(f"{path} is not empty and holds no {manifest_name}: choose a new directory")
        try:
            previous = json.loads(manifest.read_text())
        except (OSError, ValueError):
            raise ClaimError(f"{manifest} is unreadable: choose a new directory") from None
        difference = settings_difference(previous, settings)
        if difference:
            raise ClaimError(f"{path} holds a different run ({difference}): choose a new directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        write_manifest(manifest, settings)
    except OSError as exc:
        raise ClaimError(f"cannot write into {path}: {exc.strerror or exc}") from None
    return path


def recorded_secret(*manifests) -> str | None:
    """The run secret recorded in the first of these JSON files that holds one, or None.

    A sealed run writes its secret into its manifests (``"secret"``, at the top
    level or in the run's ``"config"``); a sealed run resumed without
    ``--secret`` takes it from there, so that its remaining shards are played
    with the same decision streams. Missing or unreadable files are skipped.
    """
    for path in manifests:
        try:
            document = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(document, dict):
            continue
        for holder in (document, document.get("config"), document.get("settings")):
            if isinstance(holder, dict) and isinstance(holder.get("secret"), str):
                return holder["secret"]
    return None
