"""Shared pytest fixtures, and the kernels compiled once before the workers start."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from experiments.reporting.figures import AUDIT_ENV
from sim import engine
from sim.files import atomic_write
from tests.support.kernel_warmup import BACKGROUND, TASKS, field_runs
from tests.support.paths import REPO
from tests.support.schedule import FIELD_FREE, file_rank


def pytest_configure(config):
    """Every process the tests start imports this checkout, as the tests do: ``REPO`` first on
    ``PYTHONPATH``; and every figure is held to the print rules (``FIVE_UP_FIGURE_AUDIT``).

    After the README's ``pip install .`` (not editable) a process started in another directory
    (a CLI run in a temporary folder, a notebook's kernel) would import the installed copy:
    other files than the ones under test, and, since Numba caches a kernel by its source
    file's path, every kernel compiled a second time (about a minute of a run with empty
    caches).
    """
    paths = [path for path in os.environ.get("PYTHONPATH", "").split(os.pathsep) if path]
    if paths[:1] != [str(REPO)]:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in paths if p != str(REPO)])
    # every figure any test writes (in this process, a CLI run's or a notebook kernel's) is
    # checked against the print rules: save_png raises on one that breaks them
    os.environ[AUDIT_ENV] = "strict"


WARMUP_DONE = "FIVE_UP_TEST_WARMUP_DONE"
"""Environment variable: the file the controller writes when the warm-up's background task
ends (set only in a distributed run of the default test paths; the workers inherit it)."""

WARMUP_WAIT_LIMIT = 1800
"""Seconds a test waits at most for the background task: past it, it runs and compiles what it
needs (no wait may hang the run)."""

_background: dict = {}  # the controller: the background task's process, thread, marker, seconds,
# result

_waited = threading.Event()  # a worker: set once its wait for the background task is over


def repo_path(item) -> str:
    """The path of ``item``'s test file relative to the repository, with ``/`` (as
    :mod:`tests.support.schedule` names files)."""
    return Path(str(item.path)).resolve().relative_to(REPO).as_posix()


def pytest_sessionstart(session):
    """Compile the shared kernel sets once, before and beside pytest-xdist's workers.

    Only the controller of a distributed run over the default test paths does it (a run
    of chosen files, or ``-n 0``, compiles what it uses when it uses it). Each
    :data:`tests.support.kernel_warmup.TASKS` entry runs in a process of its own: the
    :data:`~tests.support.kernel_warmup.BACKGROUND` task (the built-in field, the longest) is
    started first and left running; the others run beside it and the workers start when they
    end. The workers run the files that need none of the background task's kernels first
    (:data:`tests.support.schedule.FIELD_FREE`); every other test waits until the background
    task has ended (:func:`pytest_runtest_setup`), then finds its kernels in the disk cache
    instead of compiling them again. A task that fails is reported and otherwise ignored:
    the tests compile what they need and report their own errors.
    """
    config = session.config
    if not config.pluginmanager.has_plugin("dsession") or \
            config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return
    started = time.perf_counter()

    def command(name: str) -> list[str]:
        return [sys.executable, "-m", "tests.support.kernel_warmup", name]

    def outcome(name: str, returncode: int, stderr: str) -> str | None:
        return None if returncode == 0 else f"{name}: {stderr.strip().splitlines()[-1:]}"

    marker = Path(tempfile.mkdtemp(prefix="five-up-warmup-")) / "done"
    os.environ[WARMUP_DONE] = str(marker)
    process = subprocess.Popen(command(BACKGROUND), cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)

    def finish() -> None:
        _, stderr = process.communicate()
        _background["result"] = outcome(BACKGROUND, process.returncode, stderr)
        _background["seconds"] = time.perf_counter() - started
        atomic_write(marker, lambda path: path.write_text(f"{process.returncode}\n"))

    thread = threading.Thread(target=finish, name="kernel warm-up", daemon=True)
    thread.start()
    _background.update(process=process, thread=thread, marker=marker)

    def run(name: str) -> str | None:
        done = subprocess.run(command(name), cwd=REPO, capture_output=True, text=True)
        return outcome(name, done.returncode, done.stderr)

    others = [name for name in TASKS if name != BACKGROUND]
    with ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 1) - 1)) as pool:
        failed = [message for message in pool.map(run, others) if message]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"kernel warm-up: {', '.join(others)} in {time.perf_counter() - started:.0f} s"
                            + (f" (failed: {'; '.join(failed)})" if failed else "")
                            + f"; {BACKGROUND} goes on beside the tests that do not need it")


def pytest_collection_modifyitems(session, config, items):
    """Hand the test files to the workers in :func:`tests.support.schedule.file_rank` order
    (with ``--no-loadscope-reorder``, pytest-xdist keeps it); a file's tests keep their order."""
    items.sort(key=lambda item: file_rank(repo_path(item)))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before any fixture of a test outside :data:`tests.support.schedule.FIELD_FREE`: wait for
    the warm-up's background task (:func:`pytest_sessionstart`), so that the test loads the
    built-in field's kernels from the disk cache instead of compiling them a second time."""
    marker = os.environ.get(WARMUP_DONE)
    if not marker or _waited.is_set():
        return
    if repo_path(item) in FIELD_FREE:
        return
    deadline = time.monotonic() + WARMUP_WAIT_LIMIT
    while not Path(marker).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    _waited.set()


def pytest_terminal_summary(terminalreporter):
    """The controller's line on the background warm-up task: how long it took, and whether it failed."""
    if "seconds" in _background:
        result = _background.get("result")
        terminalreporter.write_line(f"kernel warm-up: {BACKGROUND} in {_background['seconds']:.0f} s"
                                    + (f" (failed: {result})" if result else ""))


def pytest_unconfigure(config):
    """Stop the background warm-up task if the run ends first (interrupted, or a collection
    error), and remove its marker."""
    process = _background.get("process")
    if process is not None and process.poll() is None:
        process.kill()
    thread = _background.get("thread")
    if thread is not None:
        thread.join(timeout=30)
    marker = _background.get("marker")
    if marker is not None:
        shutil.rmtree(marker.parent, ignore_errors=True)


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
