"""The engine's sources (one derived list) and the templates above the engine (sim/engine/compiled_sources.py,
:meth:`sim.engine.kernel_sets.EngineSet.kernels`)."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from sim.engine import compile_cache, compiled_sources, kernel_sets, play
from sim.engine.compiled import CompiledRun
from sim.engine.spec import RunSpec
from sim.study_kernels import dealt_rounds
from strategies.identity import Reach, function_digest
from tests.support.paths import REPO

STUDY_KERNELS = ("opening_counterfactual", "rounds_from_states", "replay_dealt_round")
"""The study kernels the engine once named itself."""


def reached_files(kernel) -> set[Path]:
    """Source files of every function ``kernel`` reaches (the identity walk of strategies)."""
    reach = Reach()
    function_digest(kernel, strict=False, reach=reach)
    return {Path(path).resolve() for path in reach.files}


def module_files(names) -> set[Path]:
    return {Path(importlib.import_module(name).__file__).resolve() for name in names}


@pytest.mark.parametrize("name", [n for n in play.STRATEGY_DEPENDENT if n not in kernel_sets.GENERATED])
def test_engine_sources_cover_every_file_an_engine_kernel_reaches(name):
    reached = reached_files(getattr(play, name))
    assert Path(play.__file__).resolve() in reached
    assert reached <= module_files(compiled_sources.engine_modules())


@pytest.mark.parametrize("name", dealt_rounds.STRATEGY_DEPENDENT)
def test_a_templates_sources_cover_every_file_its_kernels_reach(name):
    reached = reached_files(getattr(dealt_rounds, name))
    assert Path(dealt_rounds.__file__).resolve() in reached
    assert reached <= module_files(compiled_sources.compiled_modules([dealt_rounds]))


def test_engine_sources_are_the_rules_and_the_loops_not_the_packages_around_them():
    """``from sim.engine import play`` counts the module, not the package's ``__init__`` (which
    imports the runs, frames and records: no kernel code)."""
    modules = compiled_sources.engine_modules()
    assert {"sim.engine.play", "core.rules", "core.state", "core.rng", "core.tiles"} <= set(modules)
    assert all(name.startswith(("core.", "sim.engine.play")) for name in modules), modules


def test_one_list_of_engine_sources():
    """kernel_sets and compile_cache keep no list of their own: both derive it."""
    for module in (kernel_sets, compile_cache):
        text = Path(module.__file__).read_text()
        assert '"core.rules"' not in text and "ENGINE_MODULES" not in text
        assert "ENGINE_SOURCE_MODULES" not in text


def test_the_engine_names_no_study_kernel():
    for path in (REPO / "sim" / "engine").glob("*.py"):
        text = path.read_text()
        assert not any(name in text for name in STUDY_KERNELS), path.name
    assert kernel_sets.ENTRY_KERNELS == ("simulate_batch", "resume_match", "resume_matches")


def test_a_study_kernel_is_not_an_engine_attribute():
    engine = CompiledRun(RunSpec.build(2, "greedy,random", 1, 0, max_rounds=1), own_set=True).engine
    with pytest.raises(AttributeError):
        engine.opening_counterfactual  # noqa: B018 - the attribute access is the test
    kernels = engine.kernels(dealt_rounds)
    assert kernels is engine.kernels(dealt_rounds)  # built once per set and template
    for name in dealt_rounds.STRATEGY_DEPENDENT:
        copy = getattr(kernels, name)
        assert copy is not getattr(dealt_rounds, name) and copy.py_func.__globals__ is vars(kernels)
    # the set's own loop, not the template's
    assert kernels.play_dealt_round is engine.module.play_dealt_round is not play.play_dealt_round
    assert kernels.choose_placement is engine.module.choose_placement


TEMPLATE = textwrap.dedent("""
    import numpy as np
    from numba import njit

    from sim.engine.play import play_dealt_round{extra_import}

    STRATEGY_DEPENDENT = ("one_round",)
    LEADER = {leader}


    @njit(cache=True)
    def one_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params):
        return play_dealt_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params,
                                LEADER, -1)
    {extra_line}
""")


def load_template(tmp_path, monkeypatch, name, leader=0, extra_import="", extra_line="",
                  dependent=True):
    """Import a template module written to ``tmp_path`` (a module of the test's own)."""
    text = TEMPLATE.format(leader=leader, extra_import=extra_import, extra_line=extra_line)
    if not dependent:
        text = text.replace('STRATEGY_DEPENDENT = ("one_round",)', "")
    (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    return importlib.import_module(name)


@pytest.fixture
def engine(tmp_path, monkeypatch):
    monkeypatch.setenv(kernel_sets.KERNEL_DIR_ENV, str(tmp_path / "kernels"))
    return CompiledRun(RunSpec.build(2, "greedy,random", 1, 0, max_rounds=1), own_set=True).engine


def test_a_changed_template_gets_new_kernels(tmp_path, monkeypatch, engine):
    """The key of a template's kernels covers its source: an edit never reuses a stale kernel."""
    template = load_template(tmp_path, monkeypatch, "exact61_test_template_a", leader=0)
    first = engine.kernels(template)
    assert Path(first.__file__).parent == tmp_path / "kernels"
    assert first.KERNELS_OF_TEMPLATE == template.__name__ and first.KERNELS_FOR_ENGINE == engine.digest
    (tmp_path / "exact61_test_template_a.py").write_text(
        Path(template.__file__).read_text().replace("LEADER = 0", "LEADER = 1  # edited"))
    template = importlib.reload(template)
    second = engine.kernels(template)
    assert second is not first and second.__name__ != first.__name__
    assert second.LEADER == 1 and first.LEADER == 0


def test_a_template_must_name_its_strategy_dependent_kernels(tmp_path, monkeypatch, engine):
    template = load_template(tmp_path, monkeypatch, "exact61_test_template_b", dependent=False)
    with pytest.raises(TypeError, match="names no STRATEGY_DEPENDENT"):
        engine.kernels(template)


@pytest.mark.parametrize("extra_import, message", [
    ("\nfrom sim.engine import play", "imports the module sim.engine.play"),
    ("\nfrom sim.engine.play import play_dealt_round as round_loop", "import it under its own name"),
])
def test_a_template_reaching_the_engines_loops_by_another_name_is_refused(
        tmp_path, monkeypatch, engine, extra_import, message):
    """Such a kernel would run the template's loop (no strategies) instead of the set's copy."""
    template = load_template(tmp_path, monkeypatch, "exact61_test_template_c", extra_import=extra_import)
    with pytest.raises(TypeError, match=message):
        engine.kernels(template)
