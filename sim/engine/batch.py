"""Calls of the compiled batch kernel: row blocks on threads, chunks, traced passes, errors.

:func:`run_kernel` plays matches ``first .. first + n - 1`` of a
:class:`sim.engine.compiled.CompiledRun` into the caller's result arrays (see
:mod:`sim.engine.play` for their layout), on several threads at once
(:func:`run_blocks`); :func:`traced_run` makes the two passes of a traced
chunk (count, then trace into exact-size arrays). Results never depend on the
thread count, the blocks or the chunks: match ``i`` is a pure function of
``(seed, i)`` and the strategies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager

import time

import numba
import numpy as np

from core.state import (ACTION_FIELDS, ANSWER_FIELDS, BOARD_DECIDING, BOARD_DECISION_SEAT,
    BOARD_ERROR, BOARD_ERROR_COUNT, BOARD_ERROR_ROW, BOARD_ERROR_SEAT, EVENT_FIELDS, M_ACTIONS,
    M_ERROR, M_EVENTS, M_ROUNDS, MATCH_FIELDS, MAX_ENTITIES, ROUND_FIELDS, new_workspace)
from sim.engine.compiled import CompiledRun
from sim.engine.play import RAISED_ERROR, UNANSWERED_ERROR
from sim.engine.python_seats import StrategyFailure, answers_for, match_answers
from core.tiles import N_TILES

BLOCKS_PER_THREAD = 8
"""Row blocks per thread and kernel call, for load balance (results do not depend on it)."""

NO_OFFSETS = np.zeros(0, dtype=np.int64)
"""Offsets of a trace that is not written (the kernel skips it)."""

NO_TRACE = (NO_OFFSETS, np.zeros((0, ROUND_FIELDS), dtype=np.int32),
            np.zeros((0, N_TILES), dtype=np.int8), NO_OFFSETS,
            np.zeros((0, ACTION_FIELDS), dtype=np.int16), NO_OFFSETS,
            np.zeros((0, EVENT_FIELDS), dtype=np.int32))
"""The batch kernel's trace arguments when none is written, in its order: round offsets, round
rows, round deals, action offsets, actions, event offsets, events."""

NO_ANSWERS = np.zeros((0, ANSWER_FIELDS), dtype=np.int64)
"""The answer rows of a run without Python seats (the kernel reads none)."""

_POOLS: dict[int, ThreadPoolExecutor] = {}


def run_blocks(play: Callable[[int, int], None], count: int, threads: int) -> None:
    """Call ``play(start, stop)`` over contiguous blocks covering ``0 .. count - 1``, on
    ``threads`` threads.

    ``play`` is a GIL-free kernel writing only its own rows, so the blocks run
    truly in parallel and the result does not depend on the split or the
    order; several blocks per thread balance uneven matches. An exception in
    a block is raised here, once every block has stopped.
    """
    blocks = max(1, min(count, threads * BLOCKS_PER_THREAD))
    bounds = [(b * count // blocks, (b + 1) * count // blocks) for b in range(blocks)]
    if threads <= 1 or blocks == 1:
        for start, stop in bounds:
            play(start, stop)
        return
    pool = _POOLS.get(threads)
    if pool is None:
        pool = _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="five-up")
    futures = [pool.submit(play, start, stop) for start, stop in bounds]
    wait(futures)  # every block has stopped writing before an exception leaves here
    for future in futures:
        future.result()


@contextmanager
def thread_count(threads: int | None):
    """Run with ``threads`` Numba threads (None: as they are), restoring the previous count after;
    yields the count in effect."""
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(threads)
    try:
        yield numba.get_num_threads()
    finally:
        numba.set_num_threads(previous)


def chunk_bounds(matches: int, threads: int, chunk_size: int | None, per_thread: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of each chunk of a run's matches: ``chunk_size`` matches, by default
    ``per_thread`` per thread (a progress bar moves between chunks; results do not depend on it).

    Raises
    ------
    ValueError
        ``chunk_size`` is not a positive integer.
    """
    size = chunk_size if chunk_size is not None else per_thread * threads
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"chunk_size must be a positive integer (got {chunk_size!r})")
    for start in range(0, matches, int(size)):
        yield start, min(matches, start + int(size))


def offsets_of(counts: np.ndarray) -> np.ndarray:
    """int64[n + 1] row offsets of ``n`` matches with ``counts`` rows each."""
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def run_kernel(run: CompiledRun, first: int, stats: np.ndarray, scores: np.ndarray, threads: int,
               trace: tuple = NO_TRACE) -> None:
    """One call of the batch kernel for matches ``first .. first + len(stats) - 1`` (global indices).

    ``trace`` holds the kernel's seven trace arguments in the order of :data:`NO_TRACE` (the
    default, no trace; :func:`traced_run` sizes them).

    Raises
    ------
    StrategyFailure
        A strategy raised, indexed its view out of bounds, or returned a row that
        is not one of its candidates: one line naming it, the match and the seat.
    """
    arrays = (stats, scores) + tuple(trace)
    spec = run.spec
    if spec.python_seats:
        *answer_arrays, (totals, final_scores) = answers_for(run, first, stats.shape[0])
        if trace is NO_TRACE:
            # The batch engine played these very matches to their end: no replay needed.
            stats[:] = totals
            scores[:] = final_scores[:, : scores.shape[1]]
            check_errors(run, first, stats)
            return
    else:
        answer_arrays = (NO_OFFSETS, NO_ANSWERS)
    fixed = (np.int64(spec.seed), np.int64(first), np.int64(spec.players), run.strategy_ids,
             spec.params, np.int64(spec.max_rounds))
    secret = spec.secret_words
    batch = run.engine.simulate_batch
    try:
        run_blocks(lambda start, stop: batch(*fixed, np.int64(start), np.int64(stop), *arrays, *answer_arrays,
                                             secret),
                   stats.shape[0], threads)
    except Exception as error:
        raised = np.flatnonzero(stats[:, M_ERROR] == RAISED_ERROR)
        if raised.size == 0:
            raise  # not a strategy's exception: an engine bug keeps its traceback
        raise StrategyFailure(raised_text(run, first + int(raised[0]), error)) from error
    check_errors(run, first, stats)


def check_errors(run: CompiledRun, first: int, stats: np.ndarray) -> None:
    """Raise :class:`StrategyFailure` for the first match of ``stats`` whose ``M_ERROR`` is set."""
    errors = stats[:, M_ERROR]
    if errors.any():
        row = int(np.flatnonzero(errors)[0])
        raise StrategyFailure(error_text(run, int(errors[row]), first + row))


def prepare(run: CompiledRun) -> float:
    """Compile (or load) the run's batch kernel now, before its first matches; return the seconds
    it took (about 0 once it is compiled in this process). Results never depend on it: the
    command line reports compile time apart from matches/s."""
    started = time.perf_counter()
    engine = run.engine
    if not engine.is_compiled():
        stats, scores = result_arrays(0)
        spec = run.spec
        engine.simulate_batch(np.int64(spec.seed), np.int64(0), np.int64(spec.players), run.strategy_ids,
                              spec.params, np.int64(spec.max_rounds), np.int64(0), np.int64(0), stats,
                              scores, *NO_TRACE, NO_OFFSETS, NO_ANSWERS, spec.secret_words)
    return time.perf_counter() - started


def replay_board(run: CompiledRun, match: int) -> tuple[np.ndarray, BaseException | None]:
    """Play match ``match`` of the run again on a workspace of its own: its board at the end (or
    where an exception stopped it) and that exception (None if it finished). What the batch
    kernel does not return (which seat was deciding, the row it returned) is read here."""
    spec = run.spec
    ws = new_workspace()
    try:
        if spec.python_seats:
            match_answers(run, match, ws)
        else:
            run.engine.resume_match(ws, NO_ANSWERS, np.int64(spec.seed),
                                    np.int64(match), np.int64(spec.players), run.strategy_ids,
                                    spec.params, np.int64(spec.max_rounds), spec.secret_words, False)
    except Exception as error:  # a strategy's: the board says whose
        return ws.board.copy(), error
    return ws.board.copy(), None


def _who(run: CompiledRun, seat: int, match: int) -> str:
    return f"strategy {run.spec.strategies[seat].name!r} (seat {seat}) in match {match}"


def raised_text(run: CompiledRun, match: int, error: BaseException) -> str:
    """One line for a match whose kernel call raised: the strategy and seat deciding when it did."""
    board, again = replay_board(run, match)
    cause = again if again is not None else error
    message = " ".join(str(cause).split())
    if isinstance(cause, IndexError) and message == "index is out of bounds":
        what = "indexed its view out of bounds (IndexError: index is out of bounds)"
    else:
        what = f"raised {type(cause).__name__}" + (f": {message}" if message else "")
    if again is not None and board[BOARD_DECIDING]:
        return f"{_who(run, int(board[BOARD_DECISION_SEAT]), match)} {what}"
    return f"a strategy in match {match} {what}"


def error_text(run: CompiledRun, code: int, match: int) -> str:
    """What went wrong in a match whose ``M_ERROR`` is ``code`` (one line)."""
    if code == UNANSWERED_ERROR:
        return f"match {match} needed a Python seat's choice that was not recorded (engine bug)"
    board, _ = replay_board(run, match)
    if board[BOARD_ERROR] == code:
        count = int(board[BOARD_ERROR_COUNT])
        return (f"{_who(run, int(board[BOARD_ERROR_SEAT]), match)} returned row "
                f"{int(board[BOARD_ERROR_ROW])}, not one of its {count} candidates (rows 0 to {count - 1})")
    slot = code - 1
    seats = [seat for seat in range(run.spec.players) if run.strategy_ids[seat] == slot]
    return (f"strategy {run.slot_name(slot)!r} (seat {','.join(map(str, seats))}) returned a row that "
            f"is not one of its candidates in match {match}")


def result_arrays(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed ``match_stats`` int32[count, MATCH_FIELDS] and ``match_scores`` int32[count, MAX_ENTITIES]."""
    return (np.zeros((count, MATCH_FIELDS), dtype=np.int32),
            np.zeros((count, MAX_ENTITIES), dtype=np.int32))


def traced_run(run: CompiledRun, start: int, stop: int, threads: int, want_actions: bool):
    """Matches ``start .. stop - 1`` of the run (0-based within it) with their trace.

    Two kernel passes over the chunk: the first counts each match's rounds,
    actions and events, the second writes them into arrays of exactly that
    size (the batch is deterministic, so it plays the very same matches).

    Returns
    -------
    tuple
        ``stats, scores, round_offsets, round_rows, round_deals, trace``:
        ``trace`` holds ``action_offsets, actions, event_offsets, events``
        when ``want_actions`` (empty dict otherwise; ``round_deals`` then has
        no rows).
    """
    count = stop - start
    first = run.spec.first_match + start
    stats, scores = result_arrays(count)
    run_kernel(run, first, stats, scores, threads)
    round_offsets = offsets_of(stats[:, M_ROUNDS])
    round_rows = np.zeros((round_offsets[-1], ROUND_FIELDS), dtype=np.int32)
    round_deals = np.zeros((round_offsets[-1] if want_actions else 0, N_TILES), dtype=np.int8)
    actions = NO_TRACE[3:]
    trace = {}
    if want_actions:
        action_offsets = offsets_of(stats[:, M_ACTIONS])
        event_offsets = offsets_of(stats[:, M_EVENTS])
        trace = {
            "action_offsets": action_offsets,
            "actions": np.zeros((action_offsets[-1], ACTION_FIELDS), dtype=np.int16),
            "event_offsets": event_offsets,
            "events": np.zeros((event_offsets[-1], EVENT_FIELDS), dtype=np.int32),
        }
        actions = (action_offsets, trace["actions"], event_offsets, trace["events"])
    stats_again, scores_again = result_arrays(count)
    run_kernel(run, first, stats_again, scores_again, threads,
               (round_offsets, round_rows, round_deals) + actions)
    if not (np.array_equal(stats, stats_again) and np.array_equal(scores, scores_again)):
        raise RuntimeError("engine is not deterministic: a traced pass differs from its count pass")
    return stats, scores, round_offsets, round_rows, round_deals, trace
