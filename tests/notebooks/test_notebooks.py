"""The notebooks' figures come from their outputs.

Every notebook runs end to end at a small size in ``test_notebook_runs_*.py``
(:func:`tests.support.notebook_runs.execute`: nbclient on the ``python3`` kernel of this
environment, a per-cell timeout, outputs in a temporary directory, the notebook file not
rewritten).

At full scale notebooks 02 and 03 show committed results (FIVE_UP_RESULTS): they are run
against a results directory made here by ``five-up results --size small`` and their printed
figures are checked against that directory's key numbers and CSV files: every comparison they
state is a row of the result's ``comparisons.csv``, printed with that row's words (its adjusted
interval and verdict), and every count of verdicts they print is that frame's. No markdown cell
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
    """A results directory in the committed format, at the test size (~3 min): the command's
    run, kept whatever its exit status (a result that failed is missing, and the test that reads
    it says so with the command's error: :func:`result_dir`)."""
    out = tmp_path_factory.mktemp("results")
    done = subprocess.run([sys.executable, "-m", "cli", "results", "--size", "small", "--only",
                           "openings,seats,overshoot,settlement", "--out", str(out), "--quiet"],
                          cwd=REPO, capture_output=True, text=True)
    return out, done


def result_dir(small_results, name: str):
    """The directory of result ``name`` of :func:`small_results`; fails with the command's error
    when that result was not made."""
    out, done = small_results
    directory = out / name
    assert (directory / "manifest.json").exists(), (
        f"five-up results made no {name} result (exit status {done.returncode}): "
        f"{done.stderr[-2000:]}")
    return directory


COMPARISON_LINE = re.compile(r"^- \d+p, .+?: .+: (?:.+ higher|.+ lower|equivalent within \+-\S+"
                             r"(?: pp)?|no detectable difference)$")
"""A printed comparison sentence (:func:`experiments.mixed_tables.comparison_lines`)."""

VERDICT_COUNT = re.compile(
    r"^Of (?P<total>\d+) comparisons of (?P<name>.+?) \(adjusted intervals\), (?P<found>\d+) "
    r"(?:is a finding|are findings)(?: \((?P<which>.*)\))?, (?P<same>\d+) equivalent within the "
    r"smallest effect of interest, (?P<open>\d+) with no detectable difference$")
"""A printed count of one quantity's comparisons by verdict
(:func:`experiments.mixed_tables.verdict_finding`)."""


def comparison_lines(frame: pd.DataFrame) -> set[str]:
    """The sentence the notebooks print for each row of a ``comparisons.csv`` frame."""
    return {f"- {row.players}p, {row.table}: {row.words}" for row in frame.itertuples()}


def check_comparisons(text: str, frame: pd.DataFrame, shown: pd.DataFrame) -> None:
    """Every row of ``shown`` (rows of ``frame``, a result's comparisons) is printed with its own
    words, and every comparison sentence printed about what ``frame`` compares (its player
    counts, tables, ``A - B`` and quantities) is one of its rows: none altered, none made up."""
    printed = {line for line in text.splitlines() if COMPARISON_LINE.match(line)}
    missing = comparison_lines(shown) - printed
    assert not missing, sorted(missing)[:3]
    # a row's head: "- 2p, exact vs greedy: exact - greedy, match win share per entity: "
    heads = tuple({f"- {row.players}p, {row.table}: {row.words.split(': ', 1)[0]}: "
                   for row in frame.itertuples()})
    stray = {line for line in printed if line.startswith(heads)} - comparison_lines(frame)
    assert not stray, sorted(stray)[:3]


def check_verdict_counts(text: str, frame: pd.DataFrame, names: dict) -> int:
    """Every printed count of verdicts (``"Of N comparisons of NAME ..."``) whose NAME is in
    ``names`` (NAME -> the rows of ``frame`` it counts, a boolean mask) equals the frame's count,
    and names the frame's findings; returns how many were checked."""
    checked = 0
    for line in text.splitlines():
        match = VERDICT_COUNT.match(line)
        if not match or match["name"] not in names:
            continue
        rows = frame[names[match["name"]]]
        found = rows[rows.verdict == "finding"]
        assert int(match["total"]) == len(rows), line
        assert int(match["found"]) == len(found), line
        assert int(match["same"]) == int((rows.verdict == "equivalent").sum()), line
        assert int(match["open"]) == int((rows.verdict == "inconclusive").sum()), line
        which = match["which"].split("; ") if match["which"] else []
        assert which == [f"{r.players}p, {r.table}: {r.a} "
                         f"{'lower' if r.difference < 0 else 'higher'} than {r.b}"
                         for r in found.itertuples()], line
        checked += 1
    return checked


def plan_line(directory) -> str:
    """The summary's sentence on the run's declared comparisons (its plan and verdict counts)."""
    return next(line for line in (directory / "summary.md").read_text().splitlines()
                if line.startswith("Comparisons declared before the run"))


def check_seats_section(text: str, shown: list[bytes], seats) -> None:
    """Notebook 02's section on the seats study, against the result in ``seats``: its plan, the
    lot winner's rates, every first-lot effect, its differences and the strength comparisons
    printed as the result words them, the seats against chance counted by verdict, its
    figures."""
    assert plan_line(seats) in text
    lot = pd.read_csv(seats / "first_lot.csv")
    for row in lot[lot.table == "self-play"].itertuples():
        assert f"{row.strategy} {fmt_ci(row.win_rate, row.win_low, row.win_high, pct=True)}" in text
    comparisons = pd.read_csv(seats / "comparisons.csv")
    check_comparisons(text, comparisons, comparisons[comparisons.quantity != "seat_share"])
    sides = (comparisons.table == "self-play") & (comparisons.quantity == "seat_share")
    assert check_verdict_counts(text, comparisons, {"sides against chance": sides}) == 1
    for name in ("seats", "head_to_head"):
        assert (seats / f"{name}.png").read_bytes() in shown, name


def openings_places(frame: pd.DataFrame) -> pd.DataFrame:
    """The openings ``comparisons`` rows with the ``table`` column notebook 02 prints after the
    player count: the table of a lead or strength comparison (the id's second field), the score
    state and the continuation of a forced-opening one (``"0-0, greedy playouts"``)."""
    parts = frame["id"].str.split(" | ", regex=False)
    lead = frame["quantity"].str.startswith(("lead", "strength"))
    return frame.assign(table=[p[1] if is_lead else f"{p[1]}, {p[2]} playouts"
                               for p, is_lead in zip(parts, lead)])


TILE_COUNTS = re.compile(r"(\d+) of (\d+) tiles higher, (\d+) lower, (\d+) equivalent")
"""The tile verdict counts of a ranking sentence
(:func:`experiments.studies.opening_leads.ranking_sentence`)."""


def check_tile_verdicts(text: str, comparisons: pd.DataFrame, values: pd.DataFrame,
                        continuation: str) -> int:
    """Every ``"Np from STATE, VALUE: ..."`` line counts the block's tiles by the verdicts of
    their comparisons with the hand's mean opening in ``comparisons`` (higher, lower,
    equivalent, of the tiles held), and names a best tile only where its simultaneous rank
    interval in ``values`` (``cf_values``) is [1, 1]; returns how many lines were checked."""
    lines = text.splitlines()
    checked = 0
    for (players, state, value), block in values.groupby(["players", "state", "value"]):
        line = next(line for line in lines if line.startswith(f"{players}p from {state}, {value}: "))
        prefix = f"{players}p | {state} | {continuation} | "
        rows = comparisons[comparisons["id"].str.startswith(prefix)
                           & comparisons["id"].str.endswith(f" | {value}")
                           & comparisons["quantity"].str.startswith("tile")]
        found = rows[rows.verdict == "finding"]
        counts = TILE_COUNTS.search(line)
        assert counts, line
        assert [int(c) for c in counts.groups()] == [
            int((found.difference > 0).sum()), len(rows), int((found.difference < 0).sum()),
            int((rows.verdict == "equivalent").sum())], line
        for tile in re.findall(r"(?:^|; )best: ([0-6]-[0-6]) ", line.split(": ", 1)[1]):
            row = block[block.tile == tile].iloc[0]
            assert (row.rank_low, row.rank_high) == (1, 1), line
        checked += 1
    return checked


def check_openings_section(text: str, shown: list[bytes], openings) -> None:
    """Notebook 02's sections on the openings study, against the result in ``openings``: its
    plan, key numbers, every lead, strength and gain comparison printed as the result words it,
    their verdict counts, the tiles' verdict counts and best tiles per block, the gains with the
    win table's error, and its figures. No difference of two strategies' leading rounds."""
    assert plan_line(openings) in text
    key = json.loads((openings / "key_numbers.json").read_text())
    for label, value in key.items():
        assert f"- {label}: {value}" in text
    comparisons = openings_places(pd.read_csv(openings / "comparisons.csv"))
    stated = comparisons[~comparisons.quantity.str.startswith("tile")]
    assert set(stated.quantity) >= {"lead_won", "lead_diff", "strength_won", "gain_diff"}
    check_comparisons(text, stated, stated)
    counted = {"lead effects on the match": comparisons.quantity == "lead_won",
               "lead effects on the first round": comparisons.quantity == "lead_diff",
               "strength gaps on the match": comparisons.quantity == "strength_won",
               "strength gaps in the first round": comparisons.quantity == "strength_diff"}
    assert check_verdict_counts(text, comparisons, counted) == len(counted)
    values = pd.read_csv(openings / "cf_values.csv")
    blocks = values[["players", "state", "value"]].drop_duplicates()
    assert check_tile_verdicts(text, comparisons, values, "greedy") == len(blocks)
    summary = pd.read_csv(openings / "cf_summary.csv")
    gain = pd.read_csv(openings / "cf_gain.csv")
    lines = text.splitlines()
    for row in summary.itertuples():
        # section 2's line on each tile from scores 0 counts the verdicts as section 3's does
        first = next(line for line in lines if line.startswith(f"{row.players}p ({row.hands:,} "))
        same = next(line for line in lines if line.startswith(f"{row.players}p from 0-0, diff: "))
        assert TILE_COUNTS.search(first).groups() == TILE_COUNTS.search(same).groups(), first
        best = key[f"counterfactual {row.players}p (greedy playouts): greedy's opening is the best"]
        assert f"greedy's opening is the best in {best} of hands" in text
        held = fmt_ci(row.gain_heldout_mean, row.gain_heldout_low, row.gain_heldout_high, 2)
        assert f"from {held} held out to " in text
    for players, sel in gain[(gain.value == "win_prob") & (gain.state == "0-0")].groupby("players"):
        # the block after its heading: one line per playout count, the table's error in each
        start = lines.index(f"{players}p from 0-0, gain in match-win probability (held out .. "
                            "in-sample, marginal 95%):") + 1
        block = lines[start:start + len(sel)]
        ends = key[f"counterfactual {players}p: match-win probability gain held out .. in-sample"]
        for line, row in zip(block, sel.sort_values("playouts").itertuples()):
            assert line.strip().startswith(f"{row.playouts} playouts: "), line
            assert (f"the win table's standard error {row.heldout_table_se:.4f} .. "
                    f"{row.insample_table_se:.4f} included") in line, line
        assert ends in block[-1], block[-1]
    assert not re.search(r"\w leads - \w+ leads", text)  # no strength gap passed off as a lead
    for name in ("opening_tiles", "counterfactual", "state_values", "gain_playouts"):
        assert (openings / f"{name}.png").read_bytes() in shown, name


@pytest.mark.slow  # a small results run (about a minute) and a notebook
def test_openings_notebook_shows_the_committed_results(small_results, tmp_path, monkeypatch):
    openings, seats = result_dir(small_results, "openings"), result_dir(small_results, "seats")
    notebook = execute("02-openings", tmp_path, monkeypatch, "full", small_results[0])
    text = printed(notebook)
    for directory in (openings, seats):  # the command that made each result, from its manifest
        assert json.loads((directory / "manifest.json").read_text())["command"] in text
    shown = images(notebook)  # the committed figures, byte for byte
    check_openings_section(text, shown, openings)
    check_seats_section(text, shown, seats)


@pytest.mark.slow  # a small results run (about a minute) and a notebook
def test_overshoot_notebook_shows_the_committed_results(small_results, tmp_path, monkeypatch):
    overshoot = result_dir(small_results, "overshoot")
    settlement = result_dir(small_results, "settlement")
    notebook = execute("03-overshoot-and-settlement", tmp_path, monkeypatch, "full",
                       small_results[0])
    check_overshoot_notebook(printed(notebook), images(notebook), overshoot, settlement)


def check_overshoot_notebook(text: str, shown: list[bytes], overshoot, settlement) -> None:
    """Notebook 03 against the results in ``overshoot`` and ``settlement``: their commands and
    plans, key numbers, every comparison as the results word it, the verdict counts, the
    settlement shares and partner debit with their intervals, and the figures."""
    lines = text.splitlines()
    for directory in (overshoot, settlement):
        assert json.loads((directory / "manifest.json").read_text())["command"] in text
        assert plan_line(directory) in text
    key = json.loads((overshoot / "key_numbers.json").read_text())
    paths = pd.read_csv(overshoot / "paths.csv")
    for row in paths[paths.table == "self-play"].itertuples():
        tag = f"{row.strategy}, {row.players}p"
        at60 = key[f"{tag}: P(discard) at 60"]
        assert any(line.startswith(f"{tag}: P(discard) first reaches")
                   and line.endswith(f"at 60 {at60}") for line in lines), tag
        per_risk = fmt_ci(row.discards_per_risk, row.discards_per_risk_low,
                          row.discards_per_risk_high, 4)
        assert f"{row.strategy} {per_risk}" in text, tag  # per event at risk beside per match
    tables = paths[paths.table != "self-play"]
    assert len(tables) and len(paths[paths.table == "self-play"])
    for row in tables[tables.table == tables.table.iloc[0]].itertuples():
        tag = f"{row.table}, {row.players}p: {row.strategy}"
        discards = key[f"{tag}: overshoot discards per entity per match (events)"]
        per_risk = key[f"{tag}: overshoot discards per event at risk"]
        wins = key[f"{tag}: match win rate per entity (paired)"]
        assert f"{discards} head to head; per event at risk " in text, tag
        assert f"{per_risk} head to head; wins {wins}" in text, tag
    # every comparison both results state, worded as the results word them; the verdict counts
    over = pd.read_csv(overshoot / "comparisons.csv")
    check_comparisons(text, over, over)
    counted = {words: (over.table != "self-play") & (over.quantity == name)
               for name, words in quantity_words(overshoot).items()}
    assert check_verdict_counts(text, over, counted) == len(counted)
    sett = pd.read_csv(settlement / "comparisons.csv")
    check_comparisons(text, sett, sett)
    counted = {words: sett.quantity == name for name, words in quantity_words(settlement).items()}
    assert check_verdict_counts(text, sett, counted) == len(counted)
    points = pd.read_csv(settlement / "points.csv")
    for row in points[points.table == "self-play"].itertuples():
        net = fmt_ci(row.settlement_share_net, row.settlement_share_net_low,
                     row.settlement_share_net_high, pct=True)
        assert f"    {row.strategy} {net}" in text, row.strategy
    debit = pd.read_csv(settlement / "partner_debit.csv")
    for row in debit[debit.table == "self-play"].itertuples():
        with_debit = fmt_ci(row.with_debit_rate, row.with_debit_low, row.with_debit_high,
                            pct=True)
        negative = fmt_ci(row.net_negative_rate, row.net_negative_low, row.net_negative_high,
                          pct=True)
        assert (f"{row.strategy}, 4p: the partner debit applies to {with_debit} of "
                "dominoes") in text
        assert f"makes the net negative in {negative}" in text
    for directory, names in ((overshoot, ("discard_probability", "zone_turns", "head_to_head")),
                             (settlement, ("point_sources", "domino_parts", "head_to_head"))):
        for name in names:
            assert (directory / f"{name}.png").read_bytes() in shown, name


def quantity_words(directory) -> dict[str, str]:
    """The declared quantities of the run in ``directory`` (its ``plan.json``): name -> words."""
    plan = json.loads((directory / "plan.json").read_text())
    return {q["name"]: q["words"] for q in plan["quantities"]}


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
