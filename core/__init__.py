"""The rules core, the bottom layer: strategies build on it, the engine's loops drive it.

- :mod:`core.tiles`   the double-six set as data (tile numbering, constants, scoring entities)
- :mod:`core.checks`  option checks (integers, table sizes, seeds)
- :mod:`core.state`   every array of the engine's state: names, dtypes, shapes, meaning
- :mod:`core.rules`   rule primitives over that state (scoring, layout, placements, settlement)
- :mod:`core.step`    the one step core: draw, pass, place, score, settle, and their inverse
- :mod:`core.turns`   the one turn driver: a round from one decision to the next
- :mod:`core.linked_steps`  the driver and steps as the engine's kernels call them
- :mod:`core.rng`     counter-based random streams (SplitMix64), one-way seat keys
- :mod:`core.sealed`  read-only view arrays
- :mod:`core.bits`    bit intrinsics over tile and value sets
- :mod:`core.jit`     the two compilation modes of the kernels

It imports nothing of the project above it. :mod:`core.tiles` and :mod:`core.checks` are pure
Python: the rules reference (:mod:`sim.reference`) and the verifier share them and nothing
else of the core, so ``five-up verify`` never loads Numba.
"""
