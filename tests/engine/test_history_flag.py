"""The engine writes the public history only while a seated strategy reads it.

A strategy that reads ``view.n_history`` but declares ``reads_history=False`` sees an empty
history (it plays as a strategy that always sees 0 actions would); found in its code, the
history is kept and its play depends on it. Three engines are compiled: slow.
"""

from __future__ import annotations

import pandas as pd
import pytest

import sim
from strategies import strategy


@strategy
def first_row(view):
    return 0


@strategy(name="counts_actions")
def counts_actions(view):
    return min(view.n_history, view.n_candidates - 1)


@strategy(name="declines_history", reads_history=False)
def declines_history(view):
    return min(view.n_history, view.n_candidates - 1)


@pytest.mark.slow
def test_the_history_is_kept_exactly_for_the_strategies_that_read_it():
    def play(strategy_at_seat_0):
        frame = sim.simulate(2, [strategy_at_seat_0, "greedy"], 300, seed=4, threads=1)
        return frame.drop(columns=[c for c in frame.columns if "strategy" in c])

    baseline = play(first_row)
    pd.testing.assert_frame_equal(play(declines_history), baseline)  # it saw no history
    assert not play(counts_actions).equals(baseline)  # it saw the actions and played on them
