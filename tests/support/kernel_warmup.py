"""Kernel sets the default test run compiles once, before its workers start (tests/conftest.py).

With an empty cache every pytest-xdist worker would compile the engine of the built-in
field at the same moment (the ``compiled_engine`` fixture is the first thing most test files
ask for): on a two-core machine that is one core's compile thrown away. The controller runs
each :data:`TASKS` entry in a process of its own, so the workers find the kernels in the disk
cache (``FIVE_UP_KERNEL_DIR``, ``NUMBA_CACHE_DIR``). The workers start when every task but
:data:`BACKGROUND` has ended: the tests that need none of its kernels run beside it, the others
wait for it (tests/conftest.py, :mod:`tests.support.schedule`).

Run one task by hand: ``python -m tests.support.kernel_warmup builtin_field``.
"""

from __future__ import annotations

import sys


def first_candidate(view):
    """A Python seat that takes the first candidate: what it plays does not matter here, only
    that the run calls ``resume_match``."""
    return 0


def field_runs(python_seats: bool = True) -> None:
    """Every engine entry point of the set of all built-ins (which every run of built-ins can
    use, :func:`sim.engine.kernel_sets.cached_superset`).

    Parameters
    ----------
    python_seats : bool
        Also ``resume_match``, which a run with a Python seat calls (it uses a larger set only
        when that kernel is cached too). The ``compiled_engine`` fixture leaves it out: a run
        of chosen test files compiles it only if one of them seats a Python strategy.
    """
    import strategies
    from sim import engine

    field = strategies.builtin_names()
    engine.simulate(2, "random,greedy", 2, seed=0, field=field)
    engine.simulate_rounds(2, "random,greedy", 2, seed=0)
    engine.record(2, "random,greedy", 2, seed=0)
    if python_seats:
        python_seat = strategies.strategy(first_candidate, name="first_candidate", compiled=False)
        engine.simulate(2, [python_seat, "greedy"], 2, seed=0, field=field)


def builtin_field() -> None:
    """:func:`field_runs`, then the field's study kernels (:mod:`sim.study_kernels.dealt_rounds`):
    a study of built-ins whose own set's kernels are not cached uses these
    (:func:`sim.engine.kernel_sets.cached_superset`).

    In the same process as the engine's runs: every kernel reaches the one round loop with one
    signature, so the field's round loop (the long compile) is compiled once and the study
    kernels only wrap it; in a second process at the same time it would be compiled twice.
    Each kernel is reached through the study's own entry point, so it is compiled for the
    argument types the tests pass (the forced openings take their start scores as an array,
    so one compile serves every score state).
    """
    import numpy as np

    import strategies
    from sim.study_kernels import openings, winprob

    field_runs()
    field = strategies.builtin_names()
    openings.opening_counterfactual(2, "greedy", hands=1, playouts=1, seed=0, field=field)
    openings.replay_round(2, "greedy,greedy", openings.engine_deal(0, 0), 0, field=field)
    player = winprob.RoundPlayer(2, "greedy", seed=0, field=field)
    player.play(np.zeros(1, dtype=np.int64), np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64))


def probes_and_helpers() -> None:
    """Kernels that test files compile apart from the built-in field's, beside
    :func:`builtin_field` (the longer task, whose second core would idle), each reached with
    the argument types its tests pass: the set of the view probes
    (:data:`tests.support.views.PROBE_FIELD`), the step core's kernels on small endgames, the
    greedy round loop of the playouts (:func:`strategies.lookahead.replay_round_greedy`), the
    authors' toolkit on both view kinds and the toolkit's strategies' set
    (``tests/strategies/test_toolkit.py``), the set of the worked ``doubles``
    (:data:`tests.support.views.DOUBLES_FIELD`: its runs and records) and the view spies' set
    (``tests/strategies/test_spies.py``). This task is the shorter of the two: the workers start
    when it ends, and the files that use only its kernels run while :func:`builtin_field` goes on.

    The round solver itself (:mod:`strategies.perfect_solver`) is not compiled here: the
    built-in field holds ``pimc`` and ``cheater``, which call it with the engine's view type,
    the type the tests' endgames are sealed to (:func:`tests.support.endgames.sealed_view`);
    compiled here too it would be compiled twice at once."""
    import numpy as np

    import sim
    from strategies import lookahead
    from tests.strategies import test_spies as spies_tests
    from tests.strategies import test_toolkit as toolkit_tests
    from tests.support.endgames import endgames
    from tests.support.views import DOUBLES, DOUBLES_FIELD, PROBE_FIELD, SPY

    # First: the playouts' round loop (lookahead.finish_round) is reached by the built-in field's
    # engine too, about twenty seconds into builtin_field; compiled and cached here first, it
    # is loaded there instead of compiled in both processes at once.
    lookahead.replay_round_greedy(np.arange(28, dtype=np.int64), 2, 0, np.zeros(4, dtype=np.int64))
    sim.simulate(2, [SPY, "greedy"], 2, seed=0, field=PROBE_FIELD)
    for players in (2, 3, 4):
        endgames(players, 1, (6, 17), 20 + players)
    for kind in ("engine", "python"):
        toolkit_tests.test_playout_of_a_domino(kind, 0, (30, 0, 0, 0))
    sim.simulate(2, [toolkit_tests.toolkit_greedy, "random"], 2, seed=0, field=toolkit_tests.FIELD)
    sim.simulate(2, [DOUBLES, "greedy"], 2, seed=0, field=DOUBLES_FIELD)
    sim.record(2, [DOUBLES, "greedy"], 2, seed=0, field=DOUBLES_FIELD)
    spies_tests.compile_spies()


TASKS = {"builtin_field": builtin_field, "probes_and_helpers": probes_and_helpers}
"""Each task compiles (or loads) its kernels into the disk cache, in a process of its own."""

BACKGROUND = "builtin_field"
"""The task the workers do not wait for before they start: the longest, whose kernels most test
files need. They first run the files that need none of them (:data:`tests.support.schedule.FIELD_FREE`);
every other test waits for it to end (tests/conftest.py)."""


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
