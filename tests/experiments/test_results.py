"""``five-up results``: every committed result regenerated with its command, beside a manifest."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys

import pytest

from experiments.release import readme_numbers, results
from tests.support.paths import REPO

REGENERATED = ("duplicate_deals", "rollout_vs_greedy")
"""The results the small run regenerates: the cheapest at that size (about 5 s each; a study
such as seats takes 16 s). What is checked is the regeneration, the same for every result."""


def run_results(*arguments, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "cli", "results", *arguments], cwd=cwd,
                          capture_output=True, text=True, check=False)


def test_every_committed_result_has_a_command():
    """The registry names every directory of docs/results, and every command is one the CLI
    knows, at both sizes."""
    from cli.main import COMMANDS

    committed = {p.name for p in (REPO / "docs" / "results").iterdir() if p.is_dir()}
    assert committed == set(results.by_name())
    known = {name for name, _, _ in COMMANDS}
    for result in results.RESULTS:
        assert result.full[0] in known and result.small[0] == result.full[0], result.name
        assert "--out" not in result.full + result.small
        assert not any("--ship" in word for word in result.small), "small runs ship nothing"


@pytest.mark.parametrize("bad, message", [
    (["--only", "nonesuch"], "unknown result nonesuch"),
    (["--size", "huge"], "--size must be one of full, small"),
    (["--readme", "no/such/README.md"], "no such file"),
    (["--replicate", "-2"], "--replicate expects a number of fresh seeds (0 or more), found -2"),
    (["--replicate", "some"], "--replicate expects a number of fresh seeds"),
])
def test_bad_input_is_one_line(bad, message, tmp_path, capsys):
    from cli.main import main

    try:  # in this process: the refusal comes before any run
        status = main(["results", "--out", str(tmp_path), *bad])
    except SystemExit as stop:  # argparse's own refusals
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and message in err, err


def test_small_run_writes_manifests_readme_and_skips_current_results(compiled_engine, tmp_path):
    """At the small size, two results are regenerated with their manifests; the copy of README
    gets its blocks from them; a second run keeps both (same code, same command)."""
    out = tmp_path / "results"
    shutil.copytree(REPO / "docs" / "results" / "strength", out / "strength")
    done = run_results("--out", str(out), "--size", "small", "--only", ",".join(REGENERATED),
                       "--quiet")
    assert done.returncode == 0, done.stderr
    assert "2 result(s) regenerated" in done.stdout
    for name in REGENERATED:
        directory = out / name
        manifest = json.loads((directory / "manifest.json").read_text())
        entry = results.by_name()[name]
        assert manifest["command"] == results.command_line(entry.small, str(directory))
        assert manifest["seed"] == int(entry.small[entry.small.index("--seed") + 1])
        assert manifest["wall_seconds"] > 0 and manifest["machine"]["logical_cores"] >= 1
        assert manifest["code_commit"] is None or len(manifest["code_commit"]) == 40
        assert not list(directory.glob("*.parquet")) and (directory / "summary.md").exists()
    assert (out / "duplicate_deals" / "paired.csv").exists()
    assert not (out / results.STAGING).exists()
    sentence = readme_numbers.duplicate_deals(out)
    assert sentence.startswith("`exact` wins ") and "--matches 50" in sentence

    again = run_results("--out", str(out), "--size", "small", "--only", ",".join(REGENERATED),
                        "--quiet")
    assert again.returncode == 0 and "0 result(s) regenerated" in again.stdout
    assert again.stderr.count("current (same code and command), kept") == 2


def test_a_failed_command_leaves_the_result_as_it_was(tmp_path):
    """The committed directory is replaced only when the command succeeds."""
    broken = results.CommittedResult("broken", ("seats", "--players", "9"), ("seats", "--players", "9"))
    target = tmp_path / "broken"
    target.mkdir()
    (target / "summary.md").write_text("the old result\n")
    with pytest.raises(RuntimeError, match="the command failed"):
        results.regenerate(broken, tmp_path, "small", {"commit": None, "changes": None}, quiet=True,
                           log=io.StringIO())
    assert [p.name for p in target.iterdir()] == ["summary.md"]
    assert (target / "summary.md").read_text() == "the old result\n"


def test_commit_outputs_keeps_the_small_files_only(tmp_path):
    staging, target = tmp_path / "staging", tmp_path / "out" / "overshoot"
    staging.mkdir()
    target.parent.mkdir()
    for name in ("summary.md", "by_score.csv", "by_score.parquet", "zone_turns.csv", ".hidden"):
        (staging / name).write_text(name)
    target.mkdir()
    (target / "stale.csv").write_text("from an older run")
    names = results.commit_outputs(results.by_name()["overshoot"], staging, target,
                                   {"result": "overshoot"})
    assert names == ["by_score.csv", "summary.md", "manifest.json"]
    assert sorted(p.name for p in target.iterdir()) == sorted(names)
    assert not list(tmp_path.joinpath("out").glob(".*"))


@pytest.mark.slow
def test_every_result_regenerates_at_the_small_size(compiled_engine, tmp_path):
    """The whole command at the small size: every committed result (openspiel's needs the
    extra) gets its files and manifest, and the index lists each one."""
    out = tmp_path / "results"
    done = run_results("--out", str(out), "--size", "small", "--quiet")
    assert done.returncode == 0, done.stderr
    expected = [r for r in results.RESULTS if results.available(r.needs)]
    assert f"{len(expected)} result(s) regenerated" in done.stdout
    index = (out / "README.md").read_text()
    for result in expected:
        manifest = json.loads((out / result.name / "manifest.json").read_text())
        assert manifest["command"] == results.command_line(result.small, str(out / result.name))
        assert f"[{result.name}]({result.name}/summary.md)" in index
        assert not list((out / result.name).glob("*.parquet"))


def test_only_runs_the_notebooks_that_read_a_chosen_result():
    """--only NAME executes the notebooks that read NAME from the results directory, and no
    other; without --only, all of them."""
    notebooks = REPO / "notebooks"
    every = results.notebooks_to_run(notebooks)
    assert len(every) == len(list(notebooks.glob("*.ipynb"))) >= 7
    assert [p.name for p in results.notebooks_to_run(notebooks, ["openings"])] == \
        ["02-openings.ipynb"]
    assert [p.name for p in results.notebooks_to_run(notebooks, ["seats", "settlement"])] == \
        ["02-openings.ipynb", "03-overshoot-and-settlement.ipynb"]
    assert results.notebooks_to_run(notebooks, ["strength", "tournament"]) == []


def test_reads_result_looks_for_the_results_directory_only(tmp_path):
    def notebook(code: str):
        path = tmp_path / "n.ipynb"
        path.write_text(json.dumps({"cells": [
            {"cell_type": "markdown", "source": ['RESULTS / "seats" in prose']},
            {"cell_type": "code", "source": [code]}]}))
        return path
    assert results.reads_result(notebook('x = load(RESULTS / "seats")'), "seats")
    assert results.reads_result(notebook("x = RESULTS/'seats'"), "seats")
    assert not results.reads_result(notebook('x = OUT / "seats"'), "seats")
    assert not results.reads_result(notebook('x = RESULTS / "seats2"'), "seats")


def test_notebooks_record_keeps_the_notebooks_not_executed():
    old = {"code_commit": "a" * 40, "uncommitted_changes": None,
           "wall_seconds": {"01.ipynb": 8.5, "02.ipynb": 2.9}, "machine": {}}
    code = {"commit": "b" * 40, "changes": "f" * 64}
    record = results.notebooks_record(old, {"02.ipynb": 3.1}, code)
    assert record["notebooks"] == {
        "01.ipynb": {"code_commit": "a" * 40, "uncommitted_changes": None, "wall_seconds": 8.5},
        "02.ipynb": {"code_commit": "b" * 40, "uncommitted_changes": "f" * 64,
                     "wall_seconds": 3.1}}
    again = results.notebooks_record(record, {"01.ipynb": 9.0}, {"commit": "c" * 40,
                                                                "changes": None})
    assert again["notebooks"]["01.ipynb"]["code_commit"] == "c" * 40
    assert again["notebooks"]["02.ipynb"] == record["notebooks"]["02.ipynb"]
    assert "logical_cores" in again["machine"]
