"""Freshness of the disk cache of kernels compiled apart (sim/engine/compile_cache.py).

The engine's kernel sets call the step functions apart (:mod:`core.linked_steps`): each is
cached by Numba beside its own file, keyed on that file only, while its machine code holds
the functions it inlines from other files. These tests edit such a callee between two
processes sharing one cache and check that the second process plays the edited code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.support.paths import REPO

CALLEE = textwrap.dedent('''
    from core.jit import hot_kernel

    @hot_kernel
    def bonus(x):
        return x + {bonus}
''')

CALLER = textwrap.dedent('''
    from core.jit import hot_kernel, linked_twin
    from callee_rules import bonus

    @hot_kernel
    def step(x):
        return 10 * bonus(x)

    step_linked = linked_twin(step)
''')

RUN = textwrap.dedent('''
    import sys
    from numba import njit
    import caller_steps
    from sim.engine.compile_cache import refresh_dispatcher_caches

    @njit
    def loop(x):
        return caller_steps.step_linked(x)

    if sys.argv[1] == "refresh":
        refresh_dispatcher_caches([loop.py_func])
    print(loop(1), sum(caller_steps.step_linked.stats.cache_hits.values()))
''')


def run(folder, cache, mode: str) -> tuple[int, int]:
    """``(value, cache hits of the linked step)`` in a fresh process."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
                       PYTHONPATH=os.pathsep.join([str(folder), str(REPO)]))
    done = subprocess.run([sys.executable, str(folder / "run.py"), mode], capture_output=True,
                          text=True, cwd=folder, env=environment, timeout=300)
    assert done.returncode == 0, done.stderr
    value, hits = done.stdout.split()
    return int(value), int(hits)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "caller_steps.py").write_text(CALLER)
    (tmp_path / "run.py").write_text(RUN)
    return tmp_path


def write_callee(folder, bonus: int) -> None:
    path = folder / "callee_rules.py"
    path.write_text(CALLEE.format(bonus=bonus))
    os.utime(path, ns=(0, 10**9 * (100 + bonus)))  # a new stamp, whatever the clock's resolution


def test_a_linked_step_is_compiled_again_when_a_function_it_inlines_changes(files, tmp_path_factory):
    cache = tmp_path_factory.mktemp("numba-cache")
    write_callee(files, 1)
    assert run(files, cache, "refresh")[0] == 20
    assert run(files, cache, "refresh") == (20, 1)  # loaded from the cache
    write_callee(files, 2)  # the caller's file is unchanged: Numba alone would load it
    assert run(files, cache, "plain")[0] == 20  # the stale machine code the check exists for
    assert run(files, cache, "refresh")[0] == 30


def test_one_walk_gives_each_dispatcher_the_digest_of_its_own_walk():
    """``refresh_dispatcher_caches`` reads every kernel of a template in one walk (a helper they
    share is read once); each dispatcher's stamp is still the digest a walk of it alone gives."""
    from sim.engine import play
    from strategies.identity import dispatcher_digests, function_digest

    kernels = [getattr(play, name) for name in play.STRATEGY_DEPENDENT]
    found = dispatcher_digests(kernels)
    assert {id(dispatcher) for dispatcher, _ in found} >= {id(play.seat_view), id(play.trace_round)}
    for dispatcher, digest in found:
        assert digest == function_digest(dispatcher, strict=False), dispatcher.py_func.__qualname__
