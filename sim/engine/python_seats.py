"""Matches with Python seats: the engine plays, Python strategies choose.

A seat whose strategy is plain Python (``compiled=False``) has the slot
``EXTERNAL_SEAT``. Its choices are fed to the compiled engine as the match's
``answers`` rows (choice, decision-stream counter afterwards). To find them,
:func:`answers_for` plays the match (:func:`sim.engine.play.resume_match`): the engine
stops at each decision of a Python seat, with that decision in the workspace;
Python builds the seat's :class:`strategies.python_view.PythonView`, calls the
strategy, checks its answer and the engine goes on from there with it. Once a match needs no more answers,
the batch kernel plays it from them like any other match: same deals, lots and
streams, same frame columns, same records, and compiled seats choose exactly
as they do everywhere else (they *are* the engine).

A match with ``d`` Python decisions costs ``d + 1`` kernel calls, each going on from the
last (the loop's place is kept in ``ws.board``, :mod:`sim.core.state`), and one batch replay
that writes its records.

In a sealed run (``spec.sealed``) the strategy is not called here: the view's
fields go to the seat's own process (:class:`sim.engine.sealed_seats.SealedSeat`,
kept in ``run.seats``), which answers with the row alone.
"""

from __future__ import annotations

import numpy as np

from sim.core import state as K
from sim.core.state import new_workspace
from sim.engine.sealed_seats import SealedSeat, SealedSeatError
from strategies.catalogue import reference
from strategies.python_view import PythonView, frozen


class StrategyFailure(RuntimeError):
    """A strategy raised, or returned something that is not one of its candidates (one line)."""


NO_HIDDEN = frozen(np.zeros(0, dtype=np.int64))
"""What a Python seat sees of the hidden hands and boneyard: nothing (one shared empty array)."""

TABLE_ENTITIES = {players: frozen(K.ENTITY_OF_SEAT[players, :players]) for players in (2, 3, 4)}
"""``view.entity_of_seat`` per table size (constants, shared by every view)."""


def seat_view(ws, players: int, params: np.ndarray, widths=None) -> PythonView:
    """The :class:`PythonView` of the decision the workspace stopped at.

    ``params`` is float64[players, P], a row per seat; ``widths`` (one count per
    seat), when given, cuts the deciding seat's row to its strategy's own
    parameters (a run's rows are padded to its widest strategy).
    """
    board = ws.board.tolist()  # Python ints in one call: this runs at every Python decision
    seat = board[K.BOARD_DECISION_SEAT]
    count = board[K.BOARD_DECISION_COUNT]
    n_nodes = board[K.BOARD_NODES]
    n_open = board[K.BOARD_OPEN_NODES]
    n_history = board[K.BOARD_HISTORY]
    return PythonView(
        seat=seat,
        players=players,
        hand=int(ws.hands[seat]),
        entity_of_seat=TABLE_ENTITIES[players],
        scores=frozen(ws.scores),
        hand_sizes=frozen(ws.hand_sizes),
        lacking=frozen(ws.lacking),
        boneyard_size=board[K.BOARD_DECISION_BONEYARD],
        played=board[K.BOARD_PLAYED],
        total=board[K.BOARD_TOTAL],
        open_values=board[K.BOARD_OPEN_VALUES],
        n_nodes=n_nodes,
        nodes=frozen(ws.nodes[:n_nodes]),
        open_count=frozen(ws.open_count),
        n_open_nodes=n_open,
        open_nodes=frozen(ws.open_nodes[:n_open]),
        n_candidates=count,
        cands=frozen(ws.cands[:count]),
        params=frozen(params[seat] if widths is None else params[seat, : widths[seat]]),
        rng=ws.rng[seat].copy(),
        n_history=n_history,
        history=frozen(ws.history[:n_history]),
        hidden_hands=NO_HIDDEN,  # Python strategies never see hidden information
        hidden_boneyard=NO_HIDDEN,
    )


def sealed_seat(run, seat: int) -> SealedSeat:
    """The process of a sealed run's Python seat (started at its first decision)."""
    process = run.seats.get(seat)
    if process is None:
        spec = run.spec
        process = run.seats[seat] = SealedSeat(reference(spec.strategies[seat]), spec.decision_timeout)
    return process


def _checked_choice(run, view: PythonView, match: int) -> tuple[int, int]:
    """The row a Python seat chooses on ``view`` (checked) and its stream counter after it."""
    strategy = run.spec.strategies[view.seat]
    if run.spec.sealed:
        try:
            choice, counter = sealed_seat(run, view.seat).choose(tuple(view))
        except SealedSeatError as error:
            raise StrategyFailure(f"{_where(strategy, view, match)} {error}") from None
    else:
        try:
            choice = strategy.function(view)
        except Exception as error:  # a user's code: report it with where it happened
            message = str(error).splitlines()[0] if str(error) else ""
            raise StrategyFailure(f"{_where(strategy, view, match)} raised {type(error).__name__}: "
                                  f"{message}") from error
        counter = int(view.rng[1])
    # An int is the common answer: the other checks (a bool, a NumPy integer) only then.
    if type(choice) is not int:
        if isinstance(choice, (bool, np.bool_)) or not isinstance(choice, (int, np.integer)):
            raise StrategyFailure(f"{_where(strategy, view, match)} returned {choice!r}, not a row "
                                  "index of view.cands")
        choice = int(choice)
    if not 0 <= choice < view.n_candidates:
        raise StrategyFailure(f"{_where(strategy, view, match)} returned row {choice}, not one of "
                              f"its {view.n_candidates} candidates (rows 0 to {view.n_candidates - 1})")
    return choice, counter


def _where(strategy, view: PythonView, match: int) -> str:
    """Who failed, for a :class:`StrategyFailure`'s line (written only when one is raised)."""
    return f"strategy {strategy.name!r} (seat {view.seat}) in match {match}"


def match_answers(run, match: int, ws=None) -> np.ndarray:
    """The Python seats' answers of match ``match`` of ``run`` (a
    :class:`sim.engine.compiled.CompiledRun`): int64[D, ANSWER_FIELDS].

    The engine plays the match until a Python seat must choose, then goes on from that
    decision with its answer (:func:`sim.engine.play.resume_match`): one call per decision.
    """
    spec = run.spec
    engine = run.engine
    ws = new_workspace() if ws is None else ws
    answers = np.zeros((16, K.ANSWER_FIELDS), dtype=np.int64)
    count = 0
    args = (np.int64(spec.seed), np.int64(match), np.int64(spec.players), run.strategy_ids,
            spec.params, np.int64(spec.max_rounds), spec.secret_words)
    widths = [len(s.parameters) for s in spec.strategies]
    players, params = spec.players, spec.params
    resume = engine.resume_match  # looked up once: the loop runs at every Python decision
    suspended = resume(ws, answers[:0], *args, False)
    while suspended:
        view = seat_view(ws, players, params, widths)
        choice, counter = _checked_choice(run, view, match)
        if count == answers.shape[0]:
            answers = np.concatenate([answers, np.zeros_like(answers)])
        row = answers[count]
        row[K.ANSWER_CHOICE] = choice
        row[K.ANSWER_RNG_COUNTER] = np.int64(np.uint64(counter))
        count += 1
        suspended = resume(ws, answers[count - 1:count], *args, True)
    return answers[:count].copy()


def answers_for(run, first: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Answers of matches ``first .. first + count - 1``, as (offsets int64[count+1], rows).

    Kept in ``run.answers`` so that the two passes of a traced chunk ask each
    Python strategy once.
    """
    memo = run.answers
    key = (first, count)
    if key not in memo:
        ws = new_workspace()
        per_match = [match_answers(run, first + row, ws) for row in range(count)]
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum([len(a) for a in per_match], out=offsets[1:])
        rows = np.concatenate(per_match) if per_match else np.zeros((0, K.ANSWER_FIELDS), np.int64)
        memo.clear()  # one chunk at a time: memory stays bounded
        memo[key] = (offsets, rows.astype(np.int64, copy=False))
    return memo[key]
