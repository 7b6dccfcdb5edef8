"""The engine's Python entry points: :func:`simulate`, :func:`simulate_rounds`, :func:`record`.

:func:`simulate` returns one row per match, :func:`simulate_rounds` one row per
round, :func:`record` exact61-record/1 match objects. All three check their
arguments once (:class:`sim.engine.spec.RunSpec`) and run the same compiled
kernel (:func:`sim.engine.play.simulate_batch`): a match depends only on
``(seed, match index)`` and the strategies, never on the thread count, the
chunking, or whether it is traced, so the three views of a match agree.
"""

from __future__ import annotations

import pandas as pd

from sim.engine.batch import chunk_bounds, result_arrays, run_kernel, thread_count, traced_run
from sim.engine.compiled import CompiledRun
from sim.engine.export import match_record
from sim.engine.frames import match_frame, round_frame
from sim.engine.spec import RunSpec
from sim.progress import progress_bar
from sim.tiles import DEFAULT_MAX_ROUNDS

__all__ = ["record", "simulate", "simulate_rounds"]

MATCHES_PER_THREAD = 16384
"""Default matches per thread and kernel call of :func:`simulate` (the progress bar moves
between calls)."""

TRACED_MATCHES_PER_THREAD = 1024
"""The same for the traced runs of :func:`simulate_rounds` and :func:`record`."""


def simulate(
    players: int,
    strategies,
    matches: int,
    seed: int,
    threads: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    first_match: int = 0,
    progress: bool = False,
    chunk_size: int | None = None,
    params=None,
    field=None,
) -> pd.DataFrame:
    """Simulate complete matches; one frame row per match.

    Parameters
    ----------
    players : int
        2, 3 or 4.
    strategies : str or sequence of str
        One name per seat, or with 4 players two names for the partnerships
        (seats 0,2 and 1,3). See :mod:`strategies`.
    matches : int
        Number of matches (> 0).
    seed : int
        Master seed, ``0 <= seed < 2**63``.
    threads : int, optional
        Numba threads for this call (restored afterwards); default the current
        count (``NUMBA_NUM_THREADS``).
    max_rounds : int
        Ruling 15: a match still running after this many rounds is unfinished.
    first_match : int
        Global index of the first match: ``simulate(..., matches=m,
        first_match=f)`` returns rows ``f .. f+m-1`` of a larger run, identical
        to those rows of the larger run.
    progress : bool
        Show a tqdm bar with matches/s on stderr.
    chunk_size : int, optional
        Matches per kernel call (progress granularity, memory of the call).
        Results do not depend on it.
    params : sequence, optional
        Strategy parameters per seat (with 4 players: 4 entries, or 2 for the
        partnerships). Each entry is ``None`` (the strategy's defaults), a
        dict ``{parameter name: value}`` overriding some defaults, or a
        sequence of numbers giving every parameter in order (see ``five-up
        strategies``). The values reach the compiled kernel as a float64
        array, so changing them never recompiles.
    field : sequence, optional
        More strategies (specs or Strategy objects) to compile into the same
        kernel as this run's: a tournament passes its whole field, so that
        every seating reuses one compiled kernel. Results do not depend on it.

    Returns
    -------
    pandas.DataFrame
        Columns in the module docstring, ``matches`` rows.

    Raises
    ------
    ValueError
        Invalid arguments (the message says which and why).
    """
    spec = RunSpec.build(players, strategies, matches, seed, max_rounds=max_rounds,
                         first_match=first_match, threads=threads, params=params, field=field)
    run = CompiledRun(spec)
    stats, scores = result_arrays(spec.matches)
    with thread_count(spec.threads) as active, progress_bar(spec.matches, progress) as bar:
        for start, stop in chunk_bounds(spec.matches, active, chunk_size, MATCHES_PER_THREAD):
            run_kernel(run, spec.first_match + start, stats[start:stop], scores[start:stop], active)
            bar.update(stop - start)
    return match_frame(spec, spec.first_match, stats, scores)


def simulate_rounds(
    players: int,
    strategies,
    matches: int,
    seed: int,
    threads: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    first_match: int = 0,
    progress: bool = False,
    chunk_size: int | None = None,
    params=None,
    field=None,
) -> pd.DataFrame:
    """Simulate matches and return one row per round played.

    Arguments as :func:`simulate`; the matches are the same ones.

    Returns
    -------
    pandas.DataFrame
        ``match``, ``round`` (0-based), ``leader``, ``opening`` ("a-b"),
        ``opening_points``, ``end`` ("domino" / "blocked" / "target"),
        ``winner`` (round winner entity, -1 for none: a blocked tie or a
        target end), ``dominoer`` (-1 if none), ``placements``, ``draws``,
        ``passes``, ``events_accepted``, ``events_discarded``,
        ``raw_discarded``, ``placement_raw`` (accepted ordinary placement
        events), ``domino_placement``, ``domino_credit``, ``domino_debit``
        (components of the round's domino event), ``domino_accepted`` (1, 0,
        -1 no domino), ``blocked_credit`` (accepted), ``blocked_events``,
        ``raw_0..raw_{k-1}`` (accepted raw gained per entity this round),
        ``score_0..score_{k-1}`` (after the round), ``pips_0..pips_{n-1}``
        (pips left per seat at the end of the round).
    """
    spec = RunSpec.build(players, strategies, matches, seed, max_rounds=max_rounds,
                         first_match=first_match, threads=threads, params=params, field=field)
    run = CompiledRun(spec)
    frames = []
    with thread_count(spec.threads) as active, progress_bar(spec.matches, progress) as bar:
        for start, stop in chunk_bounds(spec.matches, active, chunk_size, MATCHES_PER_THREAD):
            stats, _, offsets, rows, _, _ = traced_run(run, start, stop, active, want_actions=False)
            frames.append(round_frame(spec, spec.first_match + start, stats, offsets, rows))
            bar.update(stop - start)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def record(
    players: int,
    strategies,
    matches: int,
    seed: int,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    first_match: int = 0,
    threads: int | None = None,
    chunk_size: int | None = None,
    params=None,
    field=None,
) -> list[dict]:
    """Simulate matches and return them as exact61-record/1 match objects.

    The matches are the very ones :func:`simulate` plays for the same
    arguments. Each object carries the extra match-level key ``"max_rounds"``.

    Returns
    -------
    list of dict
        One JSON-ready dict per match, in match order.
    """
    spec = RunSpec.build(players, strategies, matches, seed, max_rounds=max_rounds,
                         first_match=first_match, threads=threads, params=params, field=field)
    run = CompiledRun(spec)
    records: list[dict] = []
    with thread_count(spec.threads) as active:
        for start, stop in chunk_bounds(spec.matches, active, chunk_size, TRACED_MATCHES_PER_THREAD):
            stats, scores, round_offsets, rows, deals, trace = traced_run(run, start, stop, active,
                                                                          want_actions=True)
            actions, action_offsets = trace["actions"], trace["action_offsets"]
            events, event_offsets = trace["events"], trace["event_offsets"]
            for row in range(stop - start):
                rounds = slice(round_offsets[row], round_offsets[row + 1])
                records.append(match_record(
                    spec, spec.first_match + start + row, stats[row], scores[row], rows[rounds],
                    deals[rounds], actions[action_offsets[row]:action_offsets[row + 1]],
                    events[event_offsets[row]:event_offsets[row + 1]]))
    return records
