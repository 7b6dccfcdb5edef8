"""The notebooks run end to end at a small size (FIVE_UP_NOTEBOOK_SCALE=small).

Each is executed with nbclient on the ``python3`` kernel of this environment, with
a per-cell timeout; any error in any cell fails the test. Outputs go to a temporary
directory (FIVE_UP_NOTEBOOK_OUT), never into the repository, and the notebook file
itself is not rewritten.
"""

from __future__ import annotations

import importlib.util

import pytest

from tests.support.paths import NOTEBOOKS

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

CELL_TIMEOUT = 240
"""Seconds per cell: generous for a cold Numba cache; a warm run takes a few seconds."""


NEEDS_RL = pytest.mark.skipif(importlib.util.find_spec("pettingzoo") is None,
                              reason='the PettingZoo notebook needs pip install ".[rl]"')


@pytest.mark.parametrize("name", [
    "01-quickstart", "02-openings", "03-overshoot-and-settlement", "04-your-own-strategy",
    pytest.param("05-pettingzoo-agent", marks=NEEDS_RL),
])
def test_notebook_runs_small(compiled_engine, tmp_path, monkeypatch, name):
    path = NOTEBOOKS / f"{name}.ipynb"
    before = path.read_bytes()
    notebook = nbformat.read(path, as_version=4)
    monkeypatch.setenv("FIVE_UP_NOTEBOOK_SCALE", "small")
    monkeypatch.setenv("FIVE_UP_NOTEBOOK_OUT", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("FIVE_UP_REPO", str(NOTEBOOKS.parent))  # examples/ is not installed
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    assert not errors
    assert path.read_bytes() == before
    assert any(tmp_path.iterdir())  # it wrote its files where it was told to


def test_notebooks_take_their_parameters_from_the_environment():
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        source = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
        assert "FIVE_UP_NOTEBOOK_SCALE" in source and "FIVE_UP_NOTEBOOK_OUT" in source, path.name
        # no engine internals: notebooks call sim/, strategies/ and experiments/ only
        assert "sim._" not in source and "numba" not in source, path.name
