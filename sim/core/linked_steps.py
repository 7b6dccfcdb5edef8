"""The step core as the engine's kernels call it: each function compiled once, on its own.

The engine's round loop (:func:`sim.engine.play.play_round_from`) and the match around it are
compiled once per kernel set, with the set's strategies inlined. Had they inlined the turn driver
(:mod:`sim.core.turns`) and the steps at Numba-IR level too (``hot_kernel``), each new set would
type and lower them again: most of a set's compile. Here each function the engine calls is a
:func:`sim.core.jit.linked_twin`: typed, lowered and cached once for all sets, and inlined by
LLVM into the set's machine code, so the engine runs as fast as with IR-level inlining.

The functions are the very functions of :mod:`sim.core.step` and :mod:`sim.core.turns` (same
code, same globals), under the same names; strategies keep calling those modules (inlined into
the strategy, with its flags).
"""

from __future__ import annotations

from sim.core import step, turns
from sim.core.jit import linked_twin

begin_round = linked_twin(step.begin_round)
close_round = linked_twin(step.close_round)
count_round = linked_twin(step.count_round)
reset_match = linked_twin(step.reset_match)

start_turns = linked_twin(turns.start_turns)
advance = linked_twin(turns.advance)
