"""The strategy registry is complete and every registered id dispatches."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import strategies
from strategies import registry

STRATEGY_DIR = Path(strategies.__file__).parent
INFRASTRUCTURE = {"registry", "cli"}  # modules that are not strategies


def strategy_modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.iter_modules([str(STRATEGY_DIR)])
        if not info.name.startswith("_") and info.name not in INFRASTRUCTURE
    )


def test_every_strategy_module_is_registered():
    registered = {info.module.__name__.rsplit(".", 1)[-1] for info in strategies.STRATEGIES.values()}
    missing = sorted(set(strategy_modules()) - registered)
    assert not missing, f"strategy modules not in strategies.registry.BUILTIN_MODULES: {missing}"


def test_every_registered_id_has_a_dispatch_branch():
    """Each STRATEGY_ID is compared in strategies/_dispatch.py (read from its source)."""
    tree = ast.parse((STRATEGY_DIR / "_dispatch.py").read_text())
    branches = {
        node.comparators[0].value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and isinstance(node.comparators[0], ast.Attribute)
        and node.comparators[0].attr == "STRATEGY_ID"
    }
    for info in strategies.STRATEGIES.values():
        module = info.module.__name__.rsplit(".", 1)[-1]
        assert module in branches, f"{info.name}: no branch for {module}.STRATEGY_ID in _dispatch.py"


def test_ids_names_and_metadata():
    infos = list(strategies.STRATEGIES.values())
    ids = [info.strategy_id for info in infos]
    assert sorted(ids) == list(range(len(ids))), "ids must be 0..n-1 without gaps"
    assert strategies.names()[:2] == ["random", "greedy"]
    for info in infos:
        assert info.name == info.name.strip().lower() and "," not in info.name
        assert len(info.description) > 80, f"{info.name}: one-paragraph description expected"
        assert isinstance(info.stochastic, bool) and isinstance(info.uses_inference, bool)
        assert info.lookahead >= 0
        assert info.default_params().dtype == np.float64
        for parameter in info.parameters:
            assert isinstance(parameter, registry.Parameter)
    assert strategies.get("random").stochastic and not strategies.get("greedy").stochastic


def test_unknown_name_lists_known_ones():
    with pytest.raises(ValueError, match=r"unknown strategy 'x' \(known: random, greedy"):
        strategies.get("x")


@pytest.mark.parametrize("name", sorted(strategies.STRATEGIES))
def test_each_strategy_plays_every_table(compiled_engine, name):
    for players in (2, 3, 4):
        frame = compiled_engine.simulate(players, [name] * players, 50, seed=1)
        assert (frame["winner"] >= 0).all()


def test_invalid_strategy_id_is_reported(compiled_engine):
    """An id without a dispatch branch must stop the batch with a clear error."""
    from sim import _kernels as K
    from sim.engine import _run_kernel, _Setup

    setup = _Setup(2, "random,random", 4, 0, 1000, 0, None)
    setup.strategy_ids = np.array([0, 999], dtype=np.int64)
    stats = np.zeros((4, K.MATCH_FIELDS), dtype=np.int32)
    scores = np.zeros((4, K.MAX_ENTITIES), dtype=np.int32)
    with pytest.raises(RuntimeError, match="invalid candidate index"):
        _run_kernel(setup, 0, stats, scores, 1)
