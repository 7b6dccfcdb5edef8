"""Deprecated alias of :mod:`core` (the rules core moved out of ``sim`` to sit below the
strategies). ``import sim.core.state`` still gives the module :mod:`core.state` itself, with a
:class:`DeprecationWarning`; the alias goes in a later release."""

import importlib
import sys
import warnings

MOVED = ("bits", "jit", "linked_steps", "rng", "rules", "sealed", "state", "step", "turns")
"""The submodules of :mod:`core` reachable under their old names."""

warnings.warn("sim.core moved to core (import core.state, core.rules, ...); "
              "the old name goes in a later release", DeprecationWarning, stacklevel=2)
for name in MOVED:
    # The same module objects under the old names: a class or constant is the one the engine uses.
    sys.modules[f"{__name__}.{name}"] = globals()[name] = importlib.import_module(f"core.{name}")
