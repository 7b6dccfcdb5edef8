"""Test helper: start a command and SIGKILL it as soon as its first finished shard appears."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path


def kill_after_first_shard(command: list[str], directory: Path, pattern: str,
                           timeout: float = 240.0) -> None:
    """Run ``command``; once ``directory`` holds a file matching ``pattern``, ``kill -9`` it.

    Fails the test if the command ends first or nothing appears within
    ``timeout`` seconds; asserts that the process died of SIGKILL.
    """
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    try:
        while not (directory.is_dir() and any(directory.glob(pattern))):
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no shard written in time"
            time.sleep(0.005)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
