"""The self-play run the study tests share, and its data sources as module fixtures (no tests here).

The studies read shared sources (:mod:`experiments.sources`): overshoot, settlement and lengths
the same ``traces``, seats the ``rounds``. Their test modules run them on one self-play run,
:data:`SELF_PLAY`, and import the fixtures they use (:func:`traces`, :func:`rounds`): each
collects its source once per module that uses it.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from experiments.sources import collect_rounds, collect_traces


class StudyRun(NamedTuple):
    """A self-play run, in the order the studies and their sources take it: ``study.run(*run)``."""

    players: list[int]
    strategies: list[str]
    matches: int
    seed: int


SELF_PLAY = StudyRun(players=[2, 3, 4], strategies=["greedy", "random"], matches=150, seed=13)
"""The run of tests/experiments/test_studies.py and test_lengths.py: every player count, a
deterministic and a random strategy, enough matches for every situation the tests look for."""


@pytest.fixture(scope="module")
def traces(compiled_engine) -> dict:
    """The ``traces`` source of :data:`SELF_PLAY`: ``(strategy, players) -> StudyTrace``."""
    return collect_traces(*SELF_PLAY)


@pytest.fixture(scope="module")
def rounds(compiled_engine) -> dict:
    """The ``rounds`` source of :data:`SELF_PLAY`: ``(strategy, players) -> DataFrame``."""
    return collect_rounds(*SELF_PLAY)
