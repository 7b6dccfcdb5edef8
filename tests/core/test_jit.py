"""Numba's function ids (core.jit): distinct across processes, so caches written by different
processes never hold two bodies under one name."""

from __future__ import annotations

import os
import subprocess
import sys

from numba.core.bytecode import FunctionIdentity

from core import jit
from tests.support.paths import REPO

FIRST_ID = ("import core.state; from numba.core.bytecode import FunctionIdentity; "
            "print(next(FunctionIdentity._unique_ids))")


def test_ids_count_up_from_the_salt():
    ids = jit.process_function_ids(salt=5)
    assert [next(ids) for _ in range(3)] == [(5 << 32) + 1, (5 << 32) + 2, (5 << 32) + 3]


def test_two_processes_start_from_different_ids():
    """Importing the state contract is enough (it is what every kernel module imports)."""
    first = [int(subprocess.run([sys.executable, "-c", FIRST_ID], cwd=REPO, capture_output=True,
                                text=True, check=True).stdout) for _ in range(2)]
    assert first[0] != first[1]
    assert all(value > 1 << 32 for value in first)  # not Numba's own counter, which starts at 1


def test_a_forked_child_draws_a_new_salt():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next id, then leave without running pytest's exit
        os.write(write, str(next(FunctionIdentity._unique_ids)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = int(os.read(read, 64))
    os.close(read)
    assert child >> 32 != next(FunctionIdentity._unique_ids) >> 32
