"""Shared pytest fixtures, and the kernels compiled once before the workers start."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from sim import engine
from tests.support.kernel_warmup import TASKS, field_runs
from tests.support.paths import REPO


def pytest_configure(config):
    """Every process the tests start imports this checkout, as the tests do: ``REPO`` first on
    ``PYTHONPATH``.

    After the README's ``pip install .`` (not editable) a process started in another directory
    (a CLI run in a temporary folder, a notebook's kernel) would import the installed copy:
    other files than the ones under test, and, since Numba caches a kernel by its source
    file's path, every kernel compiled a second time (about a minute of a run with empty
    caches).
    """
    paths = [path for path in os.environ.get("PYTHONPATH", "").split(os.pathsep) if path]
    if paths[:1] != [str(REPO)]:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in paths if p != str(REPO)])


def pytest_sessionstart(session):
    """Compile the shared kernel sets once, before pytest-xdist starts its workers.

    Only the controller of a distributed run over the default test paths does it (a run
    of chosen files, or ``-n 0``, compiles what it uses when it uses it). Each
    :data:`tests.support.kernel_warmup.TASKS` entry runs in a process of its own, as
    many at once as there are cores; the workers then load the kernels from the disk
    cache instead of each compiling the same set at once. A task that fails is reported
    and otherwise ignored: the tests compile what they need and report their own errors.
    """
    config = session.config
    if not config.pluginmanager.has_plugin("dsession") or \
            config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return
    started = time.perf_counter()

    def run(name: str) -> str | None:
        done = subprocess.run([sys.executable, "-m", "tests.support.kernel_warmup", name], cwd=REPO,
                              capture_output=True, text=True)
        return None if done.returncode == 0 else f"{name}: {done.stderr.strip().splitlines()[-1:]}"

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        failed = [message for message in pool.map(run, TASKS) if message]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"kernel warm-up: {', '.join(TASKS)} in {time.perf_counter() - started:.0f} s"
                            + (f" (failed: {'; '.join(failed)})" if failed else ""))


@pytest.fixture(scope="session")
def compiled_engine():
    """Run the engine's public runs once, for the whole built-in field (compiled or loaded).

    Compiles the batch kernel for every built-in strategy together: every later run of
    built-ins reuses that cached kernel (:func:`sim.engine.kernel_sets.cached_superset`)
    instead of compiling its own set. Returns the :mod:`sim.engine` package. Depend on
    this fixture in engine tests so that compile time is paid once per session, up front
    (the default run compiles it before its workers start: :func:`pytest_sessionstart`,
    with the field's kernels of Python seats and studies, which this fixture leaves out).
    """
    field_runs(python_seats=False)
    return engine
