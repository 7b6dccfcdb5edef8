"""The kernels under the research studies (:mod:`experiments.studies` reads their results):
score events in context, rounds from given deals and states, forced openings, win probabilities.

- :mod:`sim.study_kernels.traces`      :func:`~sim.study_kernels.traces.trace_events`: matches with every
  score event in context and each entity's path to 61
- :mod:`sim.study_kernels.trace_walk`  the Numba kernel that derives those from the engine's trace
- :mod:`sim.study_kernels.dealt_rounds` the kernels that play rounds from given deals and score
  states (templates: the engine compiles them for a run's strategies)
- :mod:`sim.study_kernels.openings`    :func:`~sim.study_kernels.openings.opening_counterfactual`: each tile
  of the leader's hand forced as the opening; the engine's deals and hands
- :mod:`sim.study_kernels.winprob`     rounds from any score state and the backward induction of
  match-win probabilities (the generator of the table :mod:`strategies.winprob_table` reads)

They add nothing to the rules: every placement, event and settlement is the
engine's own (:mod:`sim.engine`).
"""

from __future__ import annotations

from sim.study_kernels.openings import OpeningCounterfactual, opening_counterfactual
from sim.study_kernels.traces import StudyTrace, trace_events

__all__ = ["OpeningCounterfactual", "StudyTrace", "opening_counterfactual", "trace_events"]
