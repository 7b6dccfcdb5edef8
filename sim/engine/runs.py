"""The engine's Python entry points: :func:`simulate`, :func:`simulate_rounds`, :func:`record`.

:func:`simulate` returns one row per match, :func:`simulate_rounds` one row per
round, :func:`record` exact61-record/1 match objects. All three check their
arguments once (:class:`sim.engine.spec.RunSpec`) and run the same compiled
kernel (:func:`sim.engine.play.simulate_batch`): a match depends only on
``(seed, match index)`` and the strategies, never on the thread count, the
chunking, or whether it is traced, so the three views of a match agree.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.engine.batch import chunk_bounds, result_arrays, run_kernel, thread_count, traced_run
from core.state import ANSWER_FIELDS
from sim.engine.compiled import CompiledRun
from sim.engine.export import match_record
from sim.engine.frames import match_frame, round_frame
from sim.engine.spec import RunSpec
from sim.progress import progress_bar

__all__ = ["record", "record_answered", "simulate", "simulate_rounds"]

MATCHES_PER_THREAD = 16384
"""Default matches per thread and kernel call of :func:`simulate` (the progress bar moves
between calls)."""

TRACED_MATCHES_PER_THREAD = 1024
"""The same for the traced runs of :func:`simulate_rounds` and :func:`record`."""


def sealed_frame(frame: pd.DataFrame, spec: RunSpec) -> pd.DataFrame:
    """``frame`` with the run secret of a sealed run in ``frame.attrs["secret"]`` (pass it back as
    ``secret=`` to replay the run exactly)."""
    if spec.secret is not None:
        frame.attrs["secret"] = spec.secret
    return frame


def simulate(players, strategies, matches, seed, *, progress: bool = False,
             chunk_size: int | None = None, **run_options) -> pd.DataFrame:
    """Simulate complete matches; one frame row per match.

    Parameters
    ----------
    players, strategies, matches, seed, **run_options
        The run: see :meth:`sim.engine.spec.RunSpec.build` (``threads``,
        ``max_rounds``, ``first_match``, ``params``, ``field``, ``allow_hidden``,
        ``sealed``, ``secret``, ``decision_timeout``).
    progress : bool
        Show a progress bar with matches/s on stderr.
    chunk_size : int, optional
        Matches per kernel call (progress granularity, memory of the call).
        Results do not depend on it.

    Returns
    -------
    pandas.DataFrame
        ``matches`` rows, the columns of :mod:`sim.engine.frames`; a sealed run's
        secret in ``attrs["secret"]``.

    Raises
    ------
    ValueError
        Invalid arguments (the message says which and why).
    """
    spec = RunSpec.build(players, strategies, matches, seed, **run_options)
    stats, scores = result_arrays(spec.matches)
    with CompiledRun(spec) as run, thread_count(spec.threads) as active, \
            progress_bar(spec.matches, progress) as bar:
        for start, stop in chunk_bounds(spec.matches, active, chunk_size, MATCHES_PER_THREAD):
            run_kernel(run, spec.first_match + start, stats[start:stop], scores[start:stop], active)
            bar.update(stop - start)
    return sealed_frame(match_frame(spec, spec.first_match, stats, scores), spec)


def simulate_rounds(players, strategies, matches, seed, *, progress: bool = False,
                    chunk_size: int | None = None, **run_options) -> pd.DataFrame:
    """Simulate matches and return one row per round played.

    Arguments as :func:`simulate`; the matches are the same ones.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`sim.engine.frames.round_frame`.
    """
    spec = RunSpec.build(players, strategies, matches, seed, **run_options)
    frames = []
    with CompiledRun(spec) as run, thread_count(spec.threads) as active, \
            progress_bar(spec.matches, progress) as bar:
        for start, stop in chunk_bounds(spec.matches, active, chunk_size, MATCHES_PER_THREAD):
            stats, _, offsets, rows, _, _ = traced_run(run, start, stop, active, want_actions=False)
            frames.append(round_frame(spec, spec.first_match + start, stats, offsets, rows))
            bar.update(stop - start)
    return sealed_frame(pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0], spec)


def record(players, strategies, matches, seed, *, chunk_size: int | None = None,
           **run_options) -> list[dict]:
    """Simulate matches and return them as exact61-record/1 match objects.

    Arguments as :func:`simulate`: the matches are the very ones it plays.
    Each object carries the extra match-level key ``"max_rounds"``.

    Returns
    -------
    list of dict
        One JSON-ready dict per match, in match order.
    """
    spec = RunSpec.build(players, strategies, matches, seed, **run_options)
    records: list[dict] = []
    with CompiledRun(spec) as run, thread_count(spec.threads) as active:
        for start, stop in chunk_bounds(spec.matches, active, chunk_size, TRACED_MATCHES_PER_THREAD):
            records += traced_records(run, start, stop, active)
    return records


def traced_records(run: CompiledRun, start: int, stop: int, threads: int) -> list[dict]:
    """exact61-record/1 match objects of the run's matches ``start .. stop - 1`` (0-based
    within it), one traced chunk."""
    spec = run.spec
    stats, scores, round_offsets, rows, deals, trace = traced_run(run, start, stop, threads,
                                                                  want_actions=True)
    actions, action_offsets = trace["actions"], trace["action_offsets"]
    events, event_offsets = trace["events"], trace["event_offsets"]
    records = []
    for row in range(stop - start):
        rounds = slice(round_offsets[row], round_offsets[row + 1])
        records.append(match_record(
            spec, spec.first_match + start + row, stats[row], scores[row], rows[rounds],
            deals[rounds], actions[action_offsets[row]:action_offsets[row + 1]],
            events[event_offsets[row]:event_offsets[row + 1]]))
    return records


def record_answered(spec: RunSpec, answered) -> list[dict]:
    """exact61-record/1 match objects of matches whose Python seats' answers were found
    elsewhere (a vector environment's agent: :mod:`sim.bridges.vector_env`).

    Parameters
    ----------
    spec : RunSpec
        The run the matches belong to (its ``first_match`` at 0, ``matches`` covering them).
    answered : iterable of (match, rows, totals, scores)
        Per match: its global index, its Python seats' answers in the order of its decisions
        (int64[D, ANSWER_FIELDS]) and its figures as played (int64[MATCH_FIELDS],
        int64[MAX_ENTITIES]). The engine replays each from its answers exactly as it plays a
        match of Python seats (:func:`sim.engine.python_seats.answers_for`).

    Returns
    -------
    list of dict
        One record per entry of ``answered``, in its order.
    """
    records: list[dict] = []
    with CompiledRun(spec) as run:
        for match, rows, totals, scores in answered:
            run.answers.clear()
            run.answers[(match, 1)] = (np.array([0, len(rows)], dtype=np.int64),
                                       np.asarray(rows, dtype=np.int64).reshape(-1, ANSWER_FIELDS),
                                       (np.asarray(totals)[None], np.asarray(scores)[None]))
            start = match - spec.first_match
            records += traced_records(run, start, start + 1, 1)
    return records
