"""Engine views for the research studies: score events in context, forced openings.

- :mod:`sim.studies.traces`      :func:`~sim.studies.traces.trace_events`: matches with every
  score event in context and each entity's path to 61
- :mod:`sim.studies.trace_walk`  the Numba kernel that derives those from the engine's trace
- :mod:`sim.studies.dealt_rounds` the kernels that play rounds from given deals and score
  states (templates: the engine compiles them for a run's strategies)
- :mod:`sim.studies.openings`    :func:`~sim.studies.openings.opening_counterfactual`: each tile
  of the leader's hand forced as the opening; the engine's deals and hands
- :mod:`sim.studies.winprob`     rounds from any score state and the backward induction of
  match-win probabilities (the generator of :mod:`strategies.winprob_table`)

They add nothing to the rules: every placement, event and settlement is the
engine's own (:mod:`sim.engine`).
"""

from __future__ import annotations

from sim.studies.openings import OpeningCounterfactual, opening_counterfactual
from sim.studies.traces import StudyTrace, trace_events

__all__ = ["OpeningCounterfactual", "StudyTrace", "opening_counterfactual", "trace_events"]
