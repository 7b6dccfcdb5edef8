"""Bridges to game frameworks: Exact 61 Five Up as an explicit-chance state machine.

:mod:`sim.bridges.match_state` (framework-free) drives the engine's workspace with the
engine's rule primitives one action at a time, chance made explicit;
:mod:`sim.bridges.openspiel_game` wraps it as the OpenSpiel game ``exact61_five_up``
(``pip install ".[openspiel]"``). A missing optional package gives one line,
:class:`BridgeUnavailable` (:mod:`sim.bridges.availability`).
"""

from sim.bridges.availability import BridgeUnavailable

__all__ = ["BridgeUnavailable"]
