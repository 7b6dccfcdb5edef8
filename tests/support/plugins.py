"""Strategy modules the plugin tests write to ``tmp_path``, and running the command line (no tests here)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

from tests.support import edge_strategies

EDGE_MODULE = "five_up_plugin_edge"
"""Module name of :data:`EDGE_SOURCE` when imported as ``MODULE:NAME`` (tmp_path on the path)."""

EDGE_SOURCE = Path(edge_strategies.__file__).read_text()
"""The source of :mod:`tests.support.edge_strategies`, written to files by :func:`write_edge`."""

BADROW_SOURCE = '''\
"""A compiled strategy that returns a row past its candidates."""

import strategies


@strategies.strategy(name="badrow", description="Returns a row that is not a candidate.")
def badrow(view):
    return view.n_candidates
'''


def write_edge(directory: Path) -> Path:
    """Write :data:`EDGE_SOURCE` as ``directory/<EDGE_MODULE>.py``; return its path."""
    path = Path(directory) / f"{EDGE_MODULE}.py"
    path.write_text(EDGE_SOURCE)
    return path


def env_with_path(directory) -> dict:
    """The environment with ``directory`` first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(directory)] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def run_cli(*args, env=None, module: str = "cli", cwd=None, timeout: int = 600):
    """``python -m <module> args...`` (captured text)."""
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=timeout, check=False)


def call_cli(*args, cwd=None) -> subprocess.CompletedProcess:
    """``five-up args...`` in this process (captured text), as :func:`run_cli` returns it.

    Much cheaper than a new process: the session's compiled kernels and imports are reused.
    An exception the command does not turn into a status propagates (the test fails), where
    a subprocess would print a traceback. ``cwd``: the working directory while it runs.
    """
    from cli.main import main

    out, err = io.StringIO(), io.StringIO()
    previous = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main([str(a) for a in args])
            except SystemExit as stop:  # argparse: --help and usage errors
                status = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    finally:
        os.chdir(previous)
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def help_text(command: str, *words: str) -> str:
    """``five-up COMMAND --help``'s text (:func:`call_cli`), asserting that it exits 0 and names
    every one of ``words`` (its options, phrases of its help; argparse's line breaks count as
    spaces, since it wraps the help to the terminal's width)."""
    result = call_cli(command, "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    missing = [word for word in words if word not in text]
    assert missing == [], missing
    return result.stdout


def one_line(run, status: int, *words: str, prefix: str = "five-up: error: ") -> str:
    """Assert ``run`` failed with ``status`` and one stderr line holding ``words``."""
    assert run.returncode == status, (run.returncode, run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(prefix), lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert "Traceback" not in run.stderr + run.stdout
    return lines[0]
