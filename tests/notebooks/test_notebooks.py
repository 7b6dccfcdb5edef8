"""The notebooks' figures come from their outputs.

Every notebook runs end to end at a small size in ``test_notebook_runs_*.py``
(:func:`tests.support.notebook_runs.execute`: nbclient on the ``python3`` kernel of this
environment, a per-cell timeout, outputs in a temporary directory, the notebook file not
rewritten).

At full scale notebooks 02 and 03 show committed results (FIVE_UP_RESULTS): they are run
against a results directory made here by ``five-up results --size small`` and their printed
figures are checked against that directory's key numbers and CSV files. No markdown cell
types a figure (:func:`test_markdown_types_no_figures`).
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys

import pandas as pd
import pytest

from experiments.reporting.reports import fmt_ci
from tests.support.notebook_runs import execute, nbformat
from tests.support.paths import NOTEBOOKS, REPO
def printed(notebook) -> str:
    """Everything the notebook's code cells printed or displayed as text."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if output.get("output_type") == "stream":
                parts.append(output["text"])
            elif "data" in output and "text/plain" in output["data"]:
                parts.append(output["data"]["text/plain"])
    return "\n".join(parts)


def images(notebook) -> list[bytes]:
    """The PNG images the notebook displayed."""
    return [base64.b64decode(output["data"]["image/png"])
            for cell in notebook.cells if cell.cell_type == "code"
            for output in cell.get("outputs", []) if "image/png" in output.get("data", {})]


@pytest.fixture(scope="module")
def small_results(tmp_path_factory):
    """A results directory in the committed format, at the test size (~40 s)."""
    out = tmp_path_factory.mktemp("results")
    subprocess.run([sys.executable, "-m", "cli", "results", "--size", "small", "--only",
                    "openings,seats,overshoot,settlement", "--out", str(out), "--quiet"],
                   cwd=REPO, check=True, capture_output=True)
    return out


@pytest.mark.slow  # a small results run (about a minute) and a notebook
def test_openings_notebook_shows_the_committed_results(small_results, tmp_path, monkeypatch):
    notebook = execute("02-openings", tmp_path, monkeypatch, "full", small_results)
    text = printed(notebook)
    openings, seats = small_results / "openings", small_results / "seats"
    for directory in (openings, seats):  # the command that made each result, from its manifest
        assert json.loads((directory / "manifest.json").read_text())["command"] in text
    key = json.loads((openings / "key_numbers.json").read_text())
    for label, value in key.items():
        assert f"- {label}: {value}" in text
    summary = pd.read_csv(openings / "cf_summary.csv")
    gain = pd.read_csv(openings / "cf_gain.csv")
    for row in summary.itertuples():
        tag = f"counterfactual {row.players}p (greedy playouts)"
        best = key[f"{tag}: greedy's opening is the best"]
        assert f"greedy's opening is the best in {best} of hands" in text
        held = fmt_ci(row.gain_heldout_mean, row.gain_heldout_low, row.gain_heldout_high, 2)
        assert f"{held} held out .. " in text
        if row.players in (2, 4):  # match-win probability: 2 and 4 players
            wp = key[f"counterfactual {row.players}p: gain of the best opening in match-win "
                     f"probability, held out .. in-sample"]
            assert f"{gain.playouts.max()} playouts: {wp}" in text
    lot = pd.read_csv(seats / "first_lot.csv")
    for row in lot[lot.table == "self-play"].itertuples():
        assert f"{row.strategy} {fmt_ci(row.win_rate, row.win_low, row.win_high, pct=True)}" in text
    shown = images(notebook)  # the committed figures, byte for byte
    for name in ("opening_tiles", "counterfactual", "state_values", "gain_playouts"):
        assert (openings / f"{name}.png").read_bytes() in shown
    assert (seats / "seats.png").read_bytes() in shown


@pytest.mark.slow  # a small results run (about a minute) and a notebook
def test_overshoot_notebook_shows_the_committed_results(small_results, tmp_path, monkeypatch):
    notebook = execute("03-overshoot-and-settlement", tmp_path, monkeypatch, "full",
                       small_results)
    text = printed(notebook)
    lines = text.splitlines()
    overshoot, settlement = small_results / "overshoot", small_results / "settlement"
    for directory in (overshoot, settlement):
        assert json.loads((directory / "manifest.json").read_text())["command"] in text
    key = json.loads((overshoot / "key_numbers.json").read_text())
    paths = pd.read_csv(overshoot / "paths.csv")
    for row in paths[paths.table == "self-play"].itertuples():
        tag = f"{row.strategy}, {row.players}p"
        at60 = key[f"{tag}: P(discard) at 60"]
        assert any(line.startswith(f"{tag}: P(discard) first reaches")
                   and line.endswith(f"at 60 {at60}") for line in lines), tag
    for row in paths[paths.table == "exact vs greedy"].itertuples():
        tag = f"exact vs greedy, {row.players}p: {row.strategy}"
        discards = key[f"{tag}: overshoot discards per entity per match (events)"]
        wins = key[f"{tag}: match win rate per entity (paired)"]
        assert f"{discards} head to head; wins {wins}" in text, tag
    # the head-to-head claims are the paired contrasts' sentences, as the results wrote them
    for row in pd.read_csv(overshoot / "contrasts.csv").query("table == 'exact vs greedy'") \
            .itertuples():
        assert f"  {row.players}p: {row.words}" in text
    for row in pd.read_csv(settlement / "contrasts.csv").itertuples():
        assert f"{row.players}p, {row.table}: {row.words}" in text
    points = pd.read_csv(settlement / "points.csv")
    for row in points[points.table == "self-play"].itertuples():
        assert f"{row.strategy} {row.settlement_share_net:.1%}" in text
    debit = pd.read_csv(settlement / "partner_debit.csv")
    for row in debit[debit.table == "self-play"].itertuples():
        assert (f"{row.strategy}, 4p: the partner debit applies to {row.with_debit_rate:.0%} "
                f"of dominoes") in text
        assert f"makes the net negative in {row.net_negative_rate:.1%}" in text
    shown = images(notebook)
    for directory, names in ((overshoot, ("discard_probability", "zone_turns", "head_to_head")),
                             (settlement, ("point_sources", "domino_parts", "head_to_head"))):
        for name in names:
            assert (directory / f"{name}.png").read_bytes() in shown, name


ALLOWED_NUMBERS = {"0", "1", "2", "3", "4", "5", "6",  # pips, tiles, player counts, sections
                   "10", "51", "60",  # the studies' zone "within 10 points of 61": displayed 51..60
                   "12", "28", "61", "305",  # a tile's most pips, the set's tiles, the target
                   "95%",  # the intervals' level
                   "01", "02", "03", "04", "05", "06"}  # notebook numbers
"""Numbers a markdown cell may hold: rules constants and definitions, not measured figures."""

NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*\s?%?")
TILE = re.compile(r"(?<![\w-])[0-6]-[0-6](?![\w-])")
"""A tile's name: in prose, a ranking claim ("4-6 and 5-5 are the best openings")."""
WORDED_RATE = re.compile(r"\b(?:one|two|three|four|five|a few)\b(?:\s+\w+){0,3}\s+in\s+"
                         r"(?:a hundred|a thousand|eight|ten|twenty|\d+)\b", re.IGNORECASE)


def figures_in(markdown: str) -> list[str]:
    """The figures a markdown text types outside code (fenced blocks and inline code are left
    out): numbers besides :data:`ALLOWED_NUMBERS`, tile names, worded rates ("one in eight")."""
    prose = re.sub(r"`[^`]*`", "", re.sub(r"```.*?```", "", markdown, flags=re.DOTALL))
    tiles = [m.group() for m in TILE.finditer(prose)]
    found = [m.group().strip() for m in NUMBER.finditer(TILE.sub("", prose))]
    return ([n for n in found if n not in ALLOWED_NUMBERS] + tiles
            + [m.group() for m in WORDED_RATE.finditer(prose)])


def test_the_figure_check_finds_typed_figures():
    assert figures_in("the lot winner's side wins about 52% of matches") == ["52%"]
    assert figures_in("worth 0.47 displayed points, `0.5` in code") == ["0.47"]
    assert figures_in("the net is negative in roughly one domino in eight") == [
        "one domino in eight"]
    assert figures_in("4-6 and 5-5 are the best openings with 3 players, `my_hand = ['1-1']`") == [
        "4-6", "5-5"]
    assert figures_in("a dozen turns, 14 of them, with 4 players, a 2-player table, 95% intervals"
                      "\n```\nfive-up tournament --matches 2000\n```") == ["14"]


def test_markdown_types_no_figures():
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "markdown":
                assert not figures_in(cell.source), (path.name, index, figures_in(cell.source))


def test_notebooks_take_their_parameters_from_the_environment():
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        source = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
        assert "FIVE_UP_NOTEBOOK_SCALE" in source and "FIVE_UP_NOTEBOOK_OUT" in source, path.name
        # no engine internals: notebooks call sim/, strategies/ and experiments/ only
        assert "sim._" not in source and "numba" not in source, path.name
