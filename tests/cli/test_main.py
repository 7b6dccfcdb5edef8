"""``five-up`` itself: every subcommand listed, and the commands that play no match load no engine."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cli.main import COMMANDS, build_parser, command_of
from tests.support.golden import GOLDEN
from tests.support.paths import REPO

PROBE = """
import sys
from cli.main import main
try:
    status = main(sys.argv[1:])
except SystemExit as exit:
    status = exit.code
print(status, "numba" in sys.modules, "sim.engine" in sys.modules)
"""


@pytest.mark.parametrize("argv", [["--help"], ["verify", str(GOLDEN / "reference-2p.jsonl")],
                                  ["reference", "--matches", "2"], ["verify", "--help"]])
def test_commands_that_play_no_engine_match_load_no_numba(argv):
    run = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                         timeout=120)
    status, numba, engine = run.stdout.split()[-3:]
    assert (status, numba, engine) == ("0", "False", "False"), run.stdout + run.stderr


def test_a_command_that_plays_loads_its_module_only_when_chosen():
    run = subprocess.run([sys.executable, "-c", PROBE, "simulate", "--help"], capture_output=True,
                         text=True, timeout=120)
    assert run.stdout.split()[-3:] == ["0", "True", "True"], run.stderr
    assert "--shard-size" in run.stdout


def test_every_subcommand_is_listed_once_and_in_the_readme():
    """Each subcommand has one entry, and README's table of commands lists every one."""
    names = [name for name, _, _ in COMMANDS]
    assert len(names) == len(set(names))
    readme = (REPO / "README.md").read_text()
    table = readme[readme.index("## Commands"):readme.index("`five-up COMMAND --help`")]
    missing = [name for name in names if f"five-up {name}" not in table and f"`{name}`" not in table]
    assert not missing, f"README's command table lacks {missing}"


@pytest.mark.parametrize("name,target,summary", COMMANDS)
def test_each_subcommand_shows_its_own_help(name, target, summary, capsys):
    with pytest.raises(SystemExit) as exit:
        build_parser([name, "--help"]).parse_args([name, "--help"])
    assert exit.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith(f"usage: five-up {name}")
    assert " ".join(command_of(target).description.split()[:6]) in out
    assert "%%" not in out  # argparse prints descriptions as written: no doubled percent signs
