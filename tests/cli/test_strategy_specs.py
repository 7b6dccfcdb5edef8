"""A user's strategy module on the command line: ``MODULE:NAME`` and ``FILE.py:NAME``.

``five-up simulate``, ``record``, ``tournament``, ``strategies`` and the
experiments take them beside built-in names; bad references are one line and
status 2, a strategy failing while the matches run one line and status 1.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

import strategies
from cli.main import build_parser, main
from sim.engine import simulate
from tests.support.plugins import (
    BADROW_SOURCE,
    EDGE_MODULE,
    EDGE_SOURCE,
    env_with_path,
    one_line,
    run_cli,
    write_edge,
)


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("plugin")
    write_edge(directory)
    (directory / "five_up_plugin_badrow.py").write_text(BADROW_SOURCE)
    return directory


def file_spec(directory, name: str = "edge") -> str:
    return f"{directory / (EDGE_MODULE + '.py')}:{name}"


SIM = ["--players", "2", "--matches", "300", "--seed", "5"]


def test_simulate_with_a_file_and_a_module_strategy(compiled_engine, plugin_dir, tmp_path):
    by_file = run_cli("simulate", *SIM, "--strategies", f"{file_spec(plugin_dir)},greedy",
                      "--shard-size", "120", "--out", tmp_path / "file.parquet")
    assert by_file.returncode == 0, by_file.stderr
    assert "(edge,greedy)" in by_file.stdout and "entity 0 (seat 0, edge)" in by_file.stdout
    by_module = run_cli("simulate", *SIM, "--strategies", f"{EDGE_MODULE}:edge,greedy",
                        "--out", tmp_path / "module.parquet", env=env_with_path(plugin_dir))
    assert by_module.returncode == 0, by_module.stderr
    frame = pd.read_parquet(tmp_path / "file.parquet")
    assert set(frame["strategy_0"]) == {"edge"} and set(frame["strategy_1"]) == {"greedy"}
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "module.parquet"), frame,
                                  check_exact=True)
    # the same matches as the Python API with the Strategy object
    edge = strategies.resolve(file_spec(plugin_dir))
    pd.testing.assert_frame_equal(simulate(2, [edge, "greedy"], 300, seed=5), frame,
                                  check_exact=True)


def test_record_with_a_relative_file_strategy_verifies(compiled_engine, plugin_dir, tmp_path):
    out = tmp_path / "edge.jsonl"
    made = run_cli("record", "--players", "2", "--matches", "20", "--seed", "3", "--strategies",
                   f"{EDGE_MODULE}.py:edge,greedy", "--out", out, cwd=plugin_dir)
    assert made.returncode == 0, made.stderr
    first = json.loads(out.read_text().splitlines()[0])
    assert "edge" in json.dumps(first)
    checked = run_cli("verify", out)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_tournament_with_a_file_and_a_module_strategy(compiled_engine, plugin_dir, tmp_path):
    base = ["--matches", "40", "--seed", "2", "--duplicate", "--quiet"]
    by_file = run_cli("tournament", *base, "--strategies", f"{file_spec(plugin_dir)},greedy",
                      "--out", tmp_path / "file")
    assert by_file.returncode == 0, by_file.stderr
    assert "| edge |" in by_file.stdout
    by_module = run_cli("tournament", *base, "--strategies", f"{EDGE_MODULE}:edge,greedy",
                        "--out", tmp_path / "module", env=env_with_path(plugin_dir))
    assert by_module.returncode == 0, by_module.stderr
    for name in ("summary.csv", "pairwise.csv", "ranking.csv"):
        assert (tmp_path / "file" / name).read_bytes() == (tmp_path / "module" / name).read_bytes()
    summary = pd.read_csv(tmp_path / "file" / "summary.csv")
    assert list(summary["strategy"]) == ["edge", "greedy"]
    run = json.loads((tmp_path / "module" / "run.json").read_text())
    assert run["strategies"] == ["edge", "greedy"]
    assert run["specs"] == [f"{EDGE_MODULE}:edge", "greedy"]
    assert set(run["strategy_code"]) == {"edge", "greedy"}
    on_file = json.loads((tmp_path / "file" / "run.json").read_text())
    assert on_file["specs"][0].endswith(f"{EDGE_MODULE}.py:edge")
    assert on_file["strategy_code"] == run["strategy_code"]  # same code, same digest


def test_tournament_refuses_to_resume_after_the_strategy_code_changed(compiled_engine, tmp_path):
    source = write_edge(tmp_path)
    args = ["tournament", "--matches", "20", "--seed", "2", "--quiet", "--strategies",
            f"{source}:edge,greedy", "--out", tmp_path / "t"]
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    # A comment changes nothing the strategy does: the same run, resumed.
    source.write_text(EDGE_SOURCE.replace("best = row\n", "best = row  # tuned\n"))
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr
    # Ties go to the last candidate now: another strategy, so another run.
    source.write_text(EDGE_SOURCE.replace("if points > best_points:", "if points >= best_points:"))
    one_line(run_cli(*args), 2, "holds a different run (strategy_code.edge was")


def test_experiment_command_with_a_module_strategy(compiled_engine, plugin_dir, tmp_path):
    out = tmp_path / "seats"
    done = run_cli("seats", "--players", "2", "--strategies", f"{EDGE_MODULE}:edge,greedy",
                   "--matches", "30", "--seed", "1", "--quiet", "--out", out,
                   env=env_with_path(plugin_dir))
    assert done.returncode == 0, done.stderr
    settings = json.loads((out / "run.json").read_text())
    assert settings["strategies"] == ["edge", "greedy"]
    assert settings["strategy_specs"] == [f"{EDGE_MODULE}:edge", "greedy"]
    positions = pd.read_csv(out / "positions.csv")
    assert set(positions["strategy"]) == {"edge", "greedy"}


def test_strategies_command_describes_any_spec(plugin_dir):
    shown = run_cli("strategies", "--json", file_spec(plugin_dir), "greedy", "rollout[samples=4]")
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)
    assert [r["name"] for r in rows] == ["edge", "greedy", "rollout[samples=4]"]
    assert rows[0]["parameters"] == [{"name": "bonus", "default": 8.0, "description": ""}]
    assert not rows[0]["builtin"] and rows[1]["builtin"] and rows[0]["compiled"]
    assert all("id" not in row for row in rows)
    text = run_cli("strategies", f"{EDGE_MODULE}:edge", env=env_with_path(plugin_dir))
    assert text.returncode == 0, text.stderr
    assert f"edge (stochastic: no, uses inference: no, lookahead: 0; spec {EDGE_MODULE}:edge)" in text.stdout
    assert "(example)" not in text.stdout


# ---------------------------------------------------------------------------
# bad references: one line, status 2 (in process: the same handlers as five-up)
# ---------------------------------------------------------------------------
def bad_references(directory):
    spec = file_spec(directory)
    return [
        ("no_such_module_for_five_up:edge", "no module named 'no_such_module_for_five_up'"),
        (f"{directory / 'missing.py'}:edge", "no such file"),
        (file_spec(directory, "nothing"),
         "has no strategy 'nothing' (its strategies: edge, fake_greedy (named 'greedy'), "
         "edge_renamed (named 'edge'), boom)"),
        (file_spec(directory, "not_a_strategy"), "is a int, not a strategy"),
        (f"{spec},{file_spec(directory, 'edge_renamed')}",
         "two different strategies are named 'edge'"),
        (f"{file_spec(directory, 'fake_greedy')},greedy",
         "strategy 'greedy' takes the name of a built-in strategy"),
    ]


CASES = range(6)


def _field(spec: str) -> str:
    return spec if "," in spec else f"{spec},greedy"


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["simulate", "record", "tournament", "strategies"])
def test_bad_reference_is_one_line_status_2(plugin_dir, tmp_path, capsys, command, case):
    spec, words = bad_references(plugin_dir)[case]
    if command == "strategies":
        if "two different" in words or "takes the name" in words:
            pytest.skip("describing a strategy by its (clashing) name is not an error")
        argv = ["strategies", spec]
    elif command == "tournament":
        argv = ["tournament", "--strategies", _field(spec), "--matches", "5", "--quiet",
                "--out", str(tmp_path / "t")]
    else:
        suffix = ".parquet" if command == "simulate" else ".jsonl"
        argv = [command, "--players", "2", "--strategies", _field(spec), "--matches", "5",
                "--seed", "0", "--out", str(tmp_path / f"o{suffix}")]
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("five-up: error: ") and words in lines[0], lines
    assert "Traceback" not in captured.err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("case", CASES)
def test_bad_reference_in_an_experiment_is_one_line_status_2(plugin_dir, tmp_path, capsys, case):
    spec, words = bad_references(plugin_dir)[case]
    status = main(["seats", "--players", "2", "--strategies", spec, "--matches", "5", "--quiet",
                   "--out", str(tmp_path / "s")])
    captured = capsys.readouterr()
    assert status == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("five-up: error: ") and words in lines[0], lines
    assert not (tmp_path / "s").exists()


# ---------------------------------------------------------------------------
# a strategy failing while the matches run: one line, status 1
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["simulate", "record", "tournament"])
def test_python_strategy_raising_is_one_line_status_1(compiled_engine, plugin_dir, tmp_path,
                                                      capsys, command):
    field = f"{file_spec(plugin_dir, 'boom')},random,greedy"
    if command == "tournament":
        argv = ["tournament", "--players", "3", "--strategies", field, "--matches", "5",
                "--quiet", "--out", str(tmp_path / "t")]
    else:
        suffix = ".parquet" if command == "simulate" else ".jsonl"
        argv = [command, "--players", "3", "--strategies", field, "--matches", "5", "--seed", "0",
                "--out", str(tmp_path / f"o{suffix}")]
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 1, captured
    lines = [line for line in captured.err.strip().splitlines() if "five-up: error" in line]
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert "boom" in lines[0] and "ZeroDivisionError" in lines[0]
    assert captured.err.strip().endswith(lines[0])


def test_python_strategy_raising_in_an_experiment_is_one_line_status_1(compiled_engine,
                                                                       plugin_dir, tmp_path,
                                                                       capsys):
    status = main(["seats", "--players", "3", "--strategies", file_spec(plugin_dir, "boom"),
                   "--matches", "5", "--quiet", "--out", str(tmp_path / "s")])
    captured = capsys.readouterr()
    assert status == 1, captured
    lines = captured.err.strip().splitlines()
    assert lines[-1].startswith("five-up: error: ") and "ZeroDivisionError" in lines[-1]
    assert "Traceback" not in captured.err


@pytest.mark.slow
def test_compiled_strategy_returning_a_bad_row_is_one_line_status_1(compiled_engine, plugin_dir):
    """Compiles the engine for {badrow, greedy} on the first run."""
    run = run_cli("simulate", "--players", "2", "--strategies", "five_up_plugin_badrow:badrow,greedy",
                  "--matches", "5", "--seed", "0", "--out", plugin_dir / "bad.parquet",
                  env=env_with_path(plugin_dir))
    line = run.stderr.strip().splitlines()[-1]
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert line.startswith("five-up: error: ") and "'badrow' (seat 0) in match 0" in line
    found = re.search(r"returned row (\d+), not one of its (\d+) candidates \(rows 0 to (\d+)\)", line)
    assert found and found.group(1) == found.group(2), line  # it returned n_candidates


# ---------------------------------------------------------------------------
# --help
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["simulate"], ["record"], ["tournament"], ["strategies"],
                                  ["seats"], ["openings"]])
def test_help_names_the_spec_forms(capsys, argv):
    with pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "MODULE:NAME" in text and "file.py:NAME" in text.replace("FILE.py", "file.py")
    assert "name[k=v,...]" in text
    if argv[0] != "strategies":
        assert "--backend dask the workers import the module" in text
        assert "notebook or __main__ run only on the local backend" in text
