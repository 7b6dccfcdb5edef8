"""The notebooks run end to end at a small size (FIVE_UP_NOTEBOOK_SCALE=small): the workflow notebooks (quick start, your own strategy, PettingZoo, tuning, analysing a match).

Any error in any cell fails the test; outputs go to a temporary directory, never into the
repository (:func:`tests.support.notebook_runs.execute`). The notebooks are split over a few
files so that the test workers run them side by side.
"""

from __future__ import annotations

import pytest

from tests.support.notebook_runs import NEEDS_RL, execute


@pytest.mark.parametrize("name", [
    "01-quickstart", "04-your-own-strategy", pytest.param("05-pettingzoo-agent", marks=NEEDS_RL), "06-tuning",
    "07-analyse-a-match",
])
def test_notebook_runs_small(compiled_engine, tmp_path, monkeypatch, name):
    execute(name, tmp_path, monkeypatch, "small")
    assert any(tmp_path.iterdir())  # it wrote its files where it was told to
