"""Kernel sets the default test run compiles once, before its workers start (tests/conftest.py).

With an empty cache every pytest-xdist worker would compile the engine of the built-in
field at the same moment (the ``compiled_engine`` fixture is the first thing most test files
ask for): on a two-core machine that is one core's compile thrown away. The controller runs
each :data:`TASKS` entry in a process of its own, as many at once as there are cores, so
the workers find the kernels in the disk cache (``FIVE_UP_KERNEL_DIR``, ``NUMBA_CACHE_DIR``).

Run one task by hand: ``python -m tests.support.kernel_warmup builtin_field``.
"""

from __future__ import annotations

import sys


def builtin_field() -> None:
    """What the ``compiled_engine`` fixture runs: every engine entry point of the set of all
    built-ins (which every run of built-ins can use, :func:`sim.engine.kernel_sets.cached_superset`)."""
    import strategies
    from sim import engine

    engine.simulate(2, "random,greedy", 2, seed=0, field=strategies.builtin_names())
    engine.simulate_rounds(2, "random,greedy", 2, seed=0)
    engine.record(2, "random,greedy", 2, seed=0)


def study_kernels() -> None:
    """The forced-opening study kernels (:mod:`sim.study_kernels.dealt_rounds`) of the sets most study
    tests play, greedy's and random's: a study always compiles its run's own set, so these are
    the very kernels the tests load (a run that may borrow a cached larger set is left out: which
    set it finds would depend on the other task's progress)."""
    from sim.study_kernels import openings

    openings.opening_counterfactual(2, "greedy", hands=1, playouts=1, seed=0)
    openings.opening_counterfactual(2, "random", hands=1, playouts=1, seed=0, baseline="random")
    openings.replay_round(2, "greedy,greedy", openings.engine_deal(0, 0), 0)


TASKS = {"builtin_field": builtin_field, "study_kernels": study_kernels}
"""Each task compiles (or loads) its kernels into the disk cache, in a process of its own."""


def main(argv: list[str]) -> int:
    """Run the named tasks; 0, or 2 naming an unknown one."""
    unknown = [name for name in argv if name not in TASKS]
    if unknown:
        print(f"unknown warm-up task(s) {unknown} (known: {', '.join(TASKS)})", file=sys.stderr)
        return 2
    for name in argv:
        TASKS[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
