"""The step core as the engine's kernels call it: each function compiled once, on its own.

The engine's round loop (:func:`sim.engine.play.play_round_from`) and the match around it are
compiled once per kernel set, with the set's strategies inlined; the turn driver
(:mod:`core.turns`) once for all. Had they inlined the steps at Numba-IR level
(``hot_kernel``), each would type and lower them again, once per call site: most of a compile.
Here each step is a :func:`core.jit.linked_twin`: typed, lowered and cached once, and inlined
by LLVM into its callers' machine code, so the engine runs as fast as with IR-level inlining.

The functions are the very functions of :mod:`core.step` and :mod:`core.rules` (same
code, same globals), under the same names; strategies keep calling those modules (inlined into
the strategy, with its flags).
"""

from __future__ import annotations

from core import rules, step
from core.jit import linked_twin

begin_round = linked_twin(step.begin_round)
close_round = linked_twin(step.close_round)
count_round = linked_twin(step.count_round)
draw_tile = linked_twin(step.draw_tile)
note_lacking = linked_twin(step.note_lacking)
pass_turn = linked_twin(step.pass_turn)
place = linked_twin(step.place)
reset_match = linked_twin(step.reset_match)
settle_blocked = linked_twin(step.settle_blocked)

list_openings = linked_twin(rules.list_openings)
list_placements = linked_twin(rules.list_placements)
no_hand_can_play = linked_twin(rules.no_hand_can_play)
