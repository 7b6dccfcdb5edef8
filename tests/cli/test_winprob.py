"""``five-up winprob``: --help, a tiny end-to-end run, bad input in one line."""

from __future__ import annotations

import pytest

from cli.main import main
from strategies.winprob_codes import read_table_file
from tests.support.plugins import call_cli, help_text

_cli = call_cli  # in this process: the session's compiled kernels are reused


def test_help_explains_every_option():
    help_text("winprob", "--players", "--strategies", "--rounds-per-state", "--targets",
              "--max-rounds-per-state", "--seed", "--replicates", "--check-matches", "--out",
              "--ship", "--ship-replicates", "--threads", "--quiet", "backward induction")


def test_tiny_run_end_to_end(compiled_engine, tmp_path):
    out = tmp_path / "run"
    ship = tmp_path / "table.npz"
    args = ["winprob", "--players", "2,4", "--strategies", "greedy", "--rounds-per-state", "2",
            "--targets", "none", "--replicates", "2", "--check-matches", "10", "--seed", "4",
            "--out", str(out), "--ship", str(ship), "--ship-replicates", "2", "--quiet"]
    result = _cli(*args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for name in ("table.parquet", "sides.csv", "check.csv", "timing.csv", "heatmaps.png",
                 "summary.md", "run.json"):
        assert (out / name).is_file(), name
    assert read_table_file(ship).replicates().shape[0] == 2 and "winprob:" in result.stdout
    assert f"wrote the table {ship}" in result.stdout
    # another run into the same directory is refused, in one line
    other = _cli(*[("3" if a == "2" and i == args.index("--rounds-per-state") + 1 else a)
                   for i, a in enumerate(args)])
    assert other.returncode == 2
    assert other.stderr.startswith("five-up: error: ") and other.stderr.count("\n") == 1
    assert "rounds_per_state" in other.stderr


BAD_INPUT = [
    ["--players", "5"],
    ["--players", "2,2"],
    ["--strategies", "nope"],
    ["--players", "3", "--strategies", "greedy,random"],
    ["--rounds-per-state", "0"],
    ["--rounds-per-state", "1"],
    ["--targets", "0.02"],
    ["--targets", "x,y"],
    ["--max-rounds-per-state", "0"],
    ["--ship-replicates", "-1"],
    ["--replicates", "-1"],
    ["--check-matches", "x"],
    ["--seed", "-3"],
    ["--threads", "0"],
    ["--players", "2", "--ship", "t.npz"],
    ["--players", "2,4", "--strategies", "greedy,random", "--ship", "t.npz"],
    ["--players", "2,4", "--ship", "t.txt"],
    ["--bogus"],
]


@pytest.mark.parametrize("args", BAD_INPUT)
def test_bad_input_is_one_line_and_status_2(tmp_path, monkeypatch, capsys, args):
    monkeypatch.chdir(tmp_path)
    try:
        status = main(["winprob", *args, "--out", str(tmp_path / "out"), "--quiet"])
    except SystemExit as exc:  # argparse's own errors (OneLineParser: one line, status 2)
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith("five-up: error: ") and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args", [BAD_INPUT[0], next(a for a in BAD_INPUT if "--ship" in a)])
def test_bad_input_in_a_fresh_process(tmp_path, args):
    result = _cli("winprob", *args, "--out", str(tmp_path / "out"), "--quiet", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("five-up: error: ")
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_missing_out_is_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["winprob", "--players", "2"])
    assert exc.value.code == 2 and capsys.readouterr().err.count("\n") == 1
