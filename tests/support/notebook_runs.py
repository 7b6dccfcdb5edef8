"""Running a notebook at a test size: :func:`execute` (nbclient on this environment's kernel).

The notebook tests are split over several files so that pytest-xdist (``--dist loadfile``)
runs them on different workers: executed one after the other they are the default run's
longest tail.
"""

from __future__ import annotations

import importlib.util

import pytest

from tests.support.paths import NOTEBOOKS, REPO

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

CELL_TIMEOUT = 240
"""Seconds per cell: generous for a cold Numba cache; a warm run takes a few seconds."""


NEEDS_RL = pytest.mark.skipif(importlib.util.find_spec("pettingzoo") is None,
                              reason='the PettingZoo notebook needs pip install ".[rl]"')


def execute(name, out, monkeypatch, scale, results=None):
    """Run notebook ``name`` at ``scale`` (files into ``out``, committed results read from
    ``results``); returns the executed notebook. Fails on any cell error, or if the notebook
    file was rewritten."""
    path = NOTEBOOKS / f"{name}.ipynb"
    before = path.read_bytes()
    notebook = nbformat.read(path, as_version=4)
    monkeypatch.setenv("FIVE_UP_NOTEBOOK_SCALE", scale)
    monkeypatch.setenv("FIVE_UP_NOTEBOOK_OUT", str(out))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("FIVE_UP_REPO", str(REPO))  # examples/ is not installed
    if results is not None:
        monkeypatch.setenv("FIVE_UP_RESULTS", str(results))
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(out)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert not errors
    assert path.read_bytes() == before
    return notebook
