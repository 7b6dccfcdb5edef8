"""The order in which the default run hands its test files to the workers, and the files that
may run before the built-in field's kernels are compiled (tests/conftest.py).

Both lists are speed hints, never part of a result: a file left out of them runs later, a file
listed wrongly in :data:`FIELD_FREE` compiles the built-in field's kernels a second time while
the warm-up compiles them (about a minute and a half of a core), and a file missing from disk
is ignored.

The default run on two cores (README's test command, empty caches) goes:

1. the warm-up's short task (:func:`tests.support.kernel_warmup.probes_and_helpers`) beside the
   first part of its long one (:func:`tests.support.kernel_warmup.builtin_field`);
2. the workers start while the long task goes on in the background; they run the files of
   :data:`FIELD_FREE` first, which need none of its kernels;
3. every other test waits for the long task to end (:func:`tests.conftest.pytest_runtest_setup`),
   then the workers take :data:`LONGEST_FIRST`, then the rest in collection order, so that no
   long file is the run's tail.
"""

from __future__ import annotations

FIELD_FREE = (
    # each checked in a process of its own, in a fresh cache holding only the short task's
    # kernels: none of these compiles the built-in field's engine or the search kernels its
    # strategies call (a file that asks for the compiled_engine fixture never belongs here);
    # longest first
    "tests/strategies/test_identity.py",
    "tests/sim/test_verify_robustness.py",
    "tests/strategies/test_spies.py",
    "tests/cli/test_strategy_errors.py",
    "tests/core/test_secret.py",
    "tests/display/test_replay_browser.py",
    "tests/display/test_replay_screens.py",
    "tests/experiments/test_tune.py",
    "tests/bridges/test_pettingzoo_env.py",
    "tests/bridges/test_match_observer.py",
    "tests/cli/test_show.py",
    "tests/display/test_replay_page.py",
    "tests/engine/test_compile_cache.py",
    "tests/test_layers.py",
    "tests/bridges/test_openspiel_game.py",
    "tests/strategies/test_choice_model.py",
    "tests/human/test_human_game.py",
    "tests/strategies/test_inference.py",
    "tests/cli/test_main.py",
    "tests/core/test_step.py",
    "tests/sim/test_verify_corruptions.py",
    "tests/sim/test_verify_interrupted.py",
    "tests/strategies/test_catalogue_families.py",
    "tests/sim/test_rulings.py",
    "tests/sim/test_reference_properties.py",
    "tests/cli/test_strategies.py",
    "tests/strategies/test_tuned_variant.py",
    "tests/sim/test_golden.py",
    "tests/core/test_rules.py",
    "tests/core/test_rng.py",
    "tests/engine/test_history_flag.py",
    "tests/engine/test_compiled_sources.py",
    "tests/experiments/test_committed_results.py",
    "tests/experiments/test_readme_numbers.py",
    "tests/experiments/test_stats.py",
    "tests/notebooks/test_notebooks.py",
    "tests/test_schedule.py",
    "tests/sim/test_wording.py",
    "tests/cli/test_counted_messages.py",
)
"""Test files that use no kernel of the built-in field: they run while the warm-up compiles it."""

LONGEST_FIRST = (
    # the longest files of a fresh run (pytest --durations=0, summed per file), longest first
    "tests/notebooks/test_notebook_runs_workflow.py",
    "tests/notebooks/test_notebook_runs_research.py",
    "tests/cli/test_strategy_specs.py",
    "tests/scale/test_backends.py",
    "tests/engine/test_kernel_sets.py",
    "tests/strategies/test_legal.py",
    "tests/engine/test_python_seats.py",
    "tests/engine/test_differential.py",
    "tests/experiments/test_tables.py",
    "tests/experiments/test_studies.py",
    "tests/strategies/test_toolkit.py",
    "tests/experiments/test_results.py",
    "tests/strategies/test_perfect_solver.py",
    "tests/bridges/test_openspiel_bots.py",
    "tests/scale/test_shards.py",
    "tests/experiments/test_tournament.py",
    "tests/cli/test_study_shards.py",
)
"""Test files handed out first once the built-in field's kernels are ready, longest first."""


def file_rank(path: str) -> tuple[int, int]:
    """Sort key of a test file (its path relative to the repository, with ``/``): the files of
    :data:`FIELD_FREE`, then those of :data:`LONGEST_FIRST`, each in its list's order, then
    every other file (a stable sort keeps their collection order)."""
    if path in FIELD_FREE:
        return 0, FIELD_FREE.index(path)
    if path in LONGEST_FIRST:
        return 1, LONGEST_FIRST.index(path)
    return 2, 0
