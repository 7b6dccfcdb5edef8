"""The Numba core: the state contract, the rule primitives and the random streams.

- :mod:`sim.core.state`  every array of the engine's state: names, dtypes, shapes, meaning
- :mod:`sim.core.rules`  rule primitives over that state (scoring, layout, placements, settlement)
- :mod:`sim.core.rng`    counter-based random streams (SplitMix64), one-way seat keys
- :mod:`sim.core.bits`   bit intrinsics over tile and value sets
- :mod:`sim.core.jit`    the two compilation modes of the kernels

It imports nothing above it (only :mod:`sim.tiles`), so strategies build on it
and the engine's loops drive it.
"""
