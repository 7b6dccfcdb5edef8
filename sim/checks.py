"""Deprecated alias of :mod:`core.checks` (moved with the rules core below the strategies); it
goes in a later release."""

import warnings

from core.checks import *  # noqa: F401,F403  (every public name, the same objects)

warnings.warn("sim.checks moved to core.checks; the old name goes in a later release",
              DeprecationWarning, stacklevel=2)
