"""Bridges to game frameworks: Exact 61 Five Up as an explicit-chance state machine.

:mod:`sim.bridges.match_state` (framework-free) drives the engine's workspace with the
engine's compiled steps (:mod:`core.step`) one action at a time, chance made explicit
(its vocabulary in :mod:`~sim.bridges.match_codes`, its strings and tensors in
:mod:`~sim.bridges.match_observer`, worlds for search in :mod:`~sim.bridges.match_worlds`,
its record export in :mod:`~sim.bridges.match_record`);
:mod:`sim.bridges.openspiel_game` wraps it as the OpenSpiel game ``exact61_five_up``
(``pip install ".[openspiel]"``). A missing optional package gives one line,
:class:`BridgeUnavailable` (:mod:`sim.bridges.availability`).
"""

from sim.bridges.availability import BridgeUnavailable

__all__ = ["BridgeUnavailable"]
