"""Deprecated alias of :mod:`core.tiles` (moved with the rules core below the strategies); it
goes in a later release."""

import warnings

from core.tiles import *  # noqa: F401,F403  (every public name, the same objects)

warnings.warn("sim.tiles moved to core.tiles; the old name goes in a later release",
              DeprecationWarning, stacklevel=2)
