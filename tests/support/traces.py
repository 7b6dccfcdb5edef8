"""Traces built in Python for tests that call the step core from Python.

:func:`core.step.quiet_trace` is for compiled callers only: its zero-row views of
``ws.cands``, returned to Python, box as ``ws.cands`` itself (a function compiled without
reference counting hands back a view's parent), so the steps would write action and event
rows into the candidate table. Python callers take :func:`traced` instead.
"""

from __future__ import annotations

import numpy as np

from core import state as K
from core.state import Trace
from core.tiles import N_TILES


def traced(rows: int = 0) -> Trace:
    """A :class:`core.state.Trace` with room for ``rows`` actions and events (0: a quiet trace,
    the steps write nothing but the workspace); no rounds, deals or answers."""
    return Trace(np.zeros((0, K.ROUND_FIELDS), np.int32), np.zeros((0, N_TILES), np.int8),
                 np.zeros((rows, K.ACTION_FIELDS), np.int16), np.zeros((rows, K.EVENT_FIELDS), np.int32),
                 np.zeros((0, K.ANSWER_FIELDS), np.int64))
