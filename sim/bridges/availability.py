"""Optional packages of the bridges: import them, or fail with one line naming the extra.

The framework bridges (:mod:`sim.bridges.openspiel_game`, the PettingZoo environment) need
packages the simulator itself does not: OpenSpiel (``open-spiel``, module ``pyspiel``) and
PettingZoo. :func:`require` imports one by name or raises :class:`BridgeUnavailable`, whose
message is one line telling the user which extra to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

PACKAGE_OF_EXTRA = {"openspiel": "open-spiel", "rl": "pettingzoo"}
"""The pip package each extra stands for (the name the one-line error gives)."""

BRIDGE_OF_EXTRA = {"openspiel": "OpenSpiel", "rl": "PettingZoo"}
"""The bridge each extra serves, as the error names it."""


class BridgeUnavailable(RuntimeError):
    """An optional package a bridge needs is not installed (the message is one line)."""


def require(module_name: str, extra: str) -> ModuleType:
    """Import ``module_name`` or raise :class:`BridgeUnavailable` naming ``pip install ".[extra]"``.

    Parameters
    ----------
    module_name : str
        The module to import, e.g. ``"pyspiel"``.
    extra : str
        The project's optional extra that installs it: ``"openspiel"`` or ``"rl"``.

    Returns
    -------
    module
        The imported module.
    """
    try:
        return importlib.import_module(module_name)
    except ImportError:
        bridge = BRIDGE_OF_EXTRA.get(extra, extra)
        package = PACKAGE_OF_EXTRA.get(extra, module_name)
        raise BridgeUnavailable(
            f"the {bridge} bridge needs the {package} package: pip install \".[{extra}]\""
        ) from None
