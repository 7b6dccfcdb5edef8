"""One run spine: a run's spec is built and checked once, passed down whole, and its output
directory claimed once."""

from __future__ import annotations

import sys

import pytest

from experiments import run_spine
from experiments.run_spine import StudySpec
from experiments.studies import seats
from experiments.tools import strength
from experiments.tools.tournament import run as tournament_run
from sim.engine.spec import check_seating
import sim.files
from sim.scale.options import ScaleOptions
from tests.support.plugins import call_cli

SEATS = ["--players", "2", "--strategies", "greedy", "--matches", "40", "--seed", "3",
         "--threads", "1", "--quiet"]
TOURNAMENT = ["--players", "2", "--strategies", "greedy,random", "--matches", "20",
              "--seed", "3", "--threads", "1", "--quiet"]


@pytest.fixture
def claims(monkeypatch):
    """Every call of :func:`sim.files.claim_directory` by the experiments and the command line
    (every module that imported it), as a list of paths."""
    import cli.studies_command  # noqa: F401  (the commands' modules: their imports are patched too)
    import cli.tournament_command  # noqa: F401

    seen = []
    claim = sim.files.claim_directory

    def counting(directory, settings, *rest):
        seen.append(str(directory))
        return claim(directory, settings, *rest)

    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("cli", "experiments") and hasattr(module, "claim_directory"):
            monkeypatch.setattr(module, "claim_directory", counting)
    return seen


def test_a_study_command_claims_its_directory_once(compiled_engine, tmp_path, claims):
    done = call_cli("seats", *SEATS, "--out", tmp_path / "seats")
    assert done.returncode == 0, done.stderr
    assert claims == [str(tmp_path / "seats")]
    # the Python API claims once too, and gives the same run.json
    seats.run([2], ["greedy"], 40, 3, threads=1, out=tmp_path / "api")
    assert claims[1:] == [str(tmp_path / "api")]
    assert (tmp_path / "api" / "run.json").read_bytes() == \
        (tmp_path / "seats" / "run.json").read_bytes()


def test_a_tournament_command_claims_its_directory_once(compiled_engine, tmp_path, claims):
    done = call_cli("tournament", *TOURNAMENT, "--out", tmp_path / "t")
    assert done.returncode == 0, done.stderr
    assert claims == [str(tmp_path / "t")]
    tournament_run.tournament(2, ["greedy", "random"], 20, 3, threads=1, out=tmp_path / "api")
    assert claims[1:] == [str(tmp_path / "api")]


def test_run_takes_a_spec_or_the_arguments_it_is_built_from(compiled_engine):
    spec = StudySpec.build("seats", [2], ["greedy"], 30, 4, threads=1)
    assert spec.name == "seats" and spec.scale.threads == 1 and spec.out is None
    assert [s.name for s in spec.strategies] == ["greedy"]
    by_spec = seats.run(spec)
    by_arguments = seats.run([2], ["greedy"], 30, 4, threads=1)
    assert by_spec.settings == by_arguments.settings
    for name, frame in by_spec.frames.items():
        assert frame.equals(by_arguments.frames[name]), name
    # the study's own default size when matches is not given
    assert StudySpec.of("seats", ([2], ["greedy"]), {}, seats.DEFAULT_MATCHES).settings[
        "matches"] == seats.DEFAULT_MATCHES
    with pytest.raises(TypeError, match="takes the spec alone"):
        seats.run(spec, threads=2)
    with pytest.raises(ValueError, match="a seats spec cannot run the overshoot study"):
        run_spine.given_spec("overshoot", (spec,), {})


def test_scale_options_are_checked_once_with_one_line_errors():
    assert ScaleOptions.build(shard_size=None, default_shard_size=7).shard_size == 7
    with pytest.raises(ValueError, match="shard_size must be at least 1"):
        ScaleOptions.build(shard_size=0)
    with pytest.raises(ValueError, match="threads"):
        ScaleOptions.build(threads=0)
    with pytest.raises(TypeError):
        StudySpec.build("seats", [2], ["greedy"], 10, 0, shards=3)


def test_check_seating_refuses_what_a_run_refuses():
    assert [s.name for s in check_seating(2, ["greedy", "random"])] == ["greedy", "random"]
    with pytest.raises(ValueError, match="cheater sees every hand"):
        check_seating(2, ["cheater", "greedy"])
    assert [s.name for s in check_seating(2, ["cheater", "greedy"], allow_hidden=True)] == \
        ["cheater", "greedy"]
    with pytest.raises(ValueError, match="unknown strategy 'nope'"):
        check_seating(4, ["nope", "greedy"])
    # the strength settings check every pairing that way, before anything plays
    with pytest.raises(ValueError, match="cheater sees every hand"):
        strength.strength_settings("greedy,cheater", [2], 10, 0, challenger="cheater",
                                   reference="greedy", ceiling="greedy", timing_matches=0)
