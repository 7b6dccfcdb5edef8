"""Matches with Python seats: the engine plays, Python strategies choose.

A seat whose strategy is plain Python (``compiled=False``) has the slot
``EXTERNAL_SEAT``. Its choices are fed to the compiled engine as the match's
``answers`` rows (choice, decision-stream counter afterwards). To find them,
:func:`answers_for` keeps many matches in flight at once (:data:`IN_FLIGHT`, one workspace
each): one kernel call (:func:`sim.engine.play.resume_matches`) carries every one of them to
its next Python decision (or its end) and hands back the batch of their views
(:class:`core.state.DecisionBatch`); Python asks each waiting seat's strategy, a
per-view strategy once per view (:class:`strategies.python_view.PythonView`), a batch
strategy once for all its decisions (:class:`strategies.python_view.BatchView`), checks the
answers, and the next call goes on from them. Once a match needs no more answers, the
batch kernel plays it from them like any other match: same deals, lots and streams, same
frame columns, same records, and compiled seats choose exactly as they do everywhere else
(they *are* the engine). Each match is played exactly as :func:`match_answers` plays it alone
(one kernel call per decision, :func:`sim.engine.play.resume_match`): how many are in
flight never changes an answer.

In a sealed run (``spec.sealed``) the strategy is not called here: the view's
fields go to the seat's own process (:class:`sim.engine.sealed_seats.SealedSeat`,
kept in ``run.seats``), which answers with the row alone.
"""

from __future__ import annotations

import numpy as np

from core import state as K
from core.state import new_decision_batch, new_workspace, new_workspace_stack
from sim.engine.play import untraced
from sim.engine.sealed_seats import SealedSeat, SealedSeatError
from strategies.catalogue import reference
from strategies.definition import reads_history
from strategies.python_view import BatchView, PythonView, frozen

IN_FLIGHT = 256
"""Matches with Python seats in flight at once (:func:`answers_for`; answers never depend on it)."""


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
            choice = strategy.choose(view)
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


def answers_for(run, first: int, count: int) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Answers of matches ``first .. first + count - 1``, as (offsets int64[count+1], rows), and
    the matches' figures as they finished (totals int64[count, MATCH_FIELDS], scores
    int64[count, MAX_ENTITIES]: what the batch kernel would write, so a run that writes no
    trace needs no replay).

    Kept in ``run.answers`` so that the two passes of a traced chunk ask each
    Python strategy once.
    """
    memo = run.answers
    key = (first, count)
    if key not in memo:
        offsets, rows, totals, scores = batch_answers(run, first, count)
        memo.clear()  # one chunk at a time: memory stays bounded
        memo[key] = (offsets, rows, (totals, scores))
    return memo[key]


def batch_answers(run, first: int, count: int, in_flight: int = IN_FLIGHT):
    """The Python seats' answers of matches ``first .. first + count - 1`` and the matches'
    figures, found with ``in_flight`` matches in flight at once (see the module docstring).

    Returns
    -------
    offsets : int64[count + 1]
        Match ``first + i``'s answers are rows ``offsets[i]:offsets[i + 1]``.
    rows : int64[D, ANSWER_FIELDS]
        Every answer, by match, each match's in the order of its decisions.
    totals : int64[count, MATCH_FIELDS]
    scores : int64[count, MAX_ENTITIES]
    """
    spec = run.spec
    width = max(1, min(count, in_flight))
    workspaces = new_workspace_stack(width)
    slot_match = np.full(width, -1, dtype=np.int64)
    slot_match[: min(width, count)] = first + np.arange(min(width, count))
    slot_resume = np.zeros(width, dtype=np.int64)
    answers = np.zeros((width, K.ANSWER_FIELDS), dtype=np.int64)
    found: list[tuple] = []  # per step: (matches, choices, counters) of its answers
    totals = np.zeros((count, K.MATCH_FIELDS), dtype=np.int64)
    scores = np.zeros((count, K.MAX_ENTITIES), dtype=np.int64)
    upcoming = first + min(width, count)
    end = first + count
    args = (np.int64(spec.seed), np.int64(spec.players), run.strategy_ids, spec.params,
            np.int64(spec.max_rounds), spec.secret_words, seat_export(spec),
            untraced(np.zeros((0, K.ANSWER_FIELDS), dtype=np.int64)))
    batch = new_decision_batch(width)
    shown = read_only_aliases(batch)
    seat_params = seat_parameters(spec)
    advance = run.engine.resume_matches  # looked up once
    while (slot_match >= 0).any():
        waiting = advance(workspaces, slot_match, slot_resume, answers, *args, batch)
        if waiting:
            answer_batch(run, batch, shown, waiting, slot_match, seat_params, answers, found)
            slot_resume[batch.decisions[:waiting, K.DECISION_SLOT]] = 1
        finished = np.flatnonzero(batch.status == K.SLOT_FINISHED)
        totals[slot_match[finished] - first] = batch.totals[finished]
        scores[slot_match[finished] - first] = batch.final_scores[finished]
        for slot in finished.tolist():
            if upcoming < end:
                slot_match[slot] = upcoming
                upcoming += 1
            else:
                slot_match[slot] = -1
            slot_resume[slot] = 0
    return answer_rows(found, first, count) + (totals, scores)


def answer_rows(found: list, first: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, rows) of the answers found step by step: a stable sort by match keeps each
    match's answers in the order its decisions came."""
    matches = np.concatenate([step[0] for step in found]) if found else np.zeros(0, np.int64)
    order = np.argsort(matches, kind="stable")
    rows = np.zeros((matches.size, K.ANSWER_FIELDS), dtype=np.int64)
    if found:
        rows[:, K.ANSWER_CHOICE] = np.concatenate([step[1] for step in found])[order]
        rows[:, K.ANSWER_RNG_COUNTER] = np.concatenate([step[2] for step in found])[order]
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(matches - first, minlength=count), out=offsets[1:])
    return offsets, rows


def seat_export(spec) -> np.ndarray:
    """int64[players]: what each seat's waiting decisions export (``core.state.EXPORT_*``):
    the history too for every per-view Python seat, as ever, and for a batch strategy only if it
    reads ``history`` or ``n_history``."""
    return np.array([K.EXPORT_VIEW if strategy.batch and not reads_history(strategy)
                     else K.EXPORT_HISTORY for strategy in spec.strategies], dtype=np.int64)


def read_only_aliases(batch):
    """``batch``'s arrays as read-only views (the kernel keeps writing the originals): what the
    strategies are handed, except the streams (``rng``), which they may advance."""
    aliases = []
    for array in batch:
        alias = array.view()
        if array is not batch.rng:
            alias.flags.writeable = False
        aliases.append(alias)
    return type(batch)(*aliases)


def seat_parameters(spec) -> list[np.ndarray]:
    """Each seat's parameter row, cut to its strategy's own parameters, read-only (shared by
    every view of that seat)."""
    return [frozen(spec.params[seat, : len(strategy.parameters)])
            for seat, strategy in enumerate(spec.strategies)]


def answer_batch(run, batch, shown, waiting: int, slot_match: np.ndarray, seat_params,
                 answers: np.ndarray, found: list) -> None:
    """Ask the strategies of the ``waiting`` decisions of ``batch`` (``shown``: its read-only
    aliases), check their answers, and write them into ``answers`` (each slot's row) and
    ``found`` (this step's matches, choices and counters)."""
    spec = run.spec
    players = spec.players
    decisions = batch.decisions[:waiting]
    seats = decisions[:, K.DECISION_SEAT]
    batch_seats = [seat for seat, strategy in enumerate(spec.strategies)
                   if strategy.batch and not spec.sealed]
    parts = []  # (batch rows, choices, stream counters) of each batch seat, then of the per-view ones
    per_view = range(waiting)
    for seat in batch_seats:
        mine = np.flatnonzero(seats == seat)
        if mine.size:
            chosen = batch_choices(run, shown, decisions, mine, seat, seat_params[seat],
                                   slot_match, waiting)
            parts.append((mine, chosen, batch.rng[mine, 1]))  # the counters as the strategy left them
    if batch_seats:
        is_batch = np.zeros(K.MAX_PLAYERS, dtype=bool)  # a lookup: cheaper than np.isin each step
        is_batch[batch_seats] = True
        per_view = np.flatnonzero(~is_batch[seats]).tolist()
    entities = TABLE_ENTITIES[players]
    scalars = decisions.tolist() if len(per_view) else []
    rows_answered, choices, counters = [], [], []
    for k in per_view:
        row = scalars[k]
        seat = row[K.DECISION_SEAT]
        n_nodes, n_open, count, n_history = (row[K.DECISION_NODES], row[K.DECISION_OPEN_NODES],
                                             row[K.DECISION_CANDIDATES], row[K.DECISION_HISTORY])
        view = tuple.__new__(PythonView, (
            seat, players, row[K.DECISION_HAND], entities, shown.scores[k], shown.hand_sizes[k],
            shown.lacking[k], row[K.DECISION_BONEYARD], row[K.DECISION_PLAYED],
            row[K.DECISION_TOTAL], row[K.DECISION_OPEN_VALUES], n_nodes, shown.nodes[k, :n_nodes],
            shown.open_count[k], n_open, shown.open_nodes[k, :n_open], count,
            shown.cands[k, :count], seat_params[seat], batch.rng[k], n_history,
            shown.history[k, :n_history], NO_HIDDEN, NO_HIDDEN))
        choice, counter = _checked_choice(run, view, int(slot_match[row[K.DECISION_SLOT]]))
        rows_answered.append(k)
        choices.append(choice)
        counters.append(counter)
    if rows_answered:
        parts.append((np.array(rows_answered, dtype=np.int64), np.array(choices, dtype=np.int64),
                      np.array(counters, dtype=np.uint64)))
    rows_answered, choices, counters = (np.concatenate(column) for column in zip(*parts))
    counters = counters.astype(np.int64)
    slots = decisions[rows_answered, K.DECISION_SLOT]
    answers[slots, K.ANSWER_CHOICE] = choices
    answers[slots, K.ANSWER_RNG_COUNTER] = counters
    found.append((slot_match[slots], choices, counters))


def batch_choices(run, shown, decisions: np.ndarray, mine: np.ndarray, seat: int,
                  params: np.ndarray, slot_match: np.ndarray, waiting: int) -> np.ndarray:
    """The rows a batch strategy (seat ``seat``'s) chooses for its decisions, rows ``mine`` of the
    batch (``shown``: its read-only aliases; its streams are written back), checked
    (:class:`StrategyFailure`, naming the first bad decision's match)."""
    spec = run.spec
    strategy = spec.strategies[seat]
    whole = mine.size == waiting  # every waiting decision is this seat's: slices, no copies
    fields = decisions if whole else decisions[mine]
    counts = fields[:, K.DECISION_CANDIDATES]

    def rows_of(array, column=None):
        width = max(1, int(fields[:, column].max())) if column is not None else None
        cut = array[:waiting] if whole else array[mine]
        return cut if width is None else cut[:, :width]

    def scalar(column):
        out = fields[:, column]
        out = out.copy() if whole else out
        out.setflags(write=False)
        return out

    rng = shown.rng[:waiting] if whole else shown.rng[mine]
    batch_params = np.broadcast_to(params, (mine.size, params.shape[0]))
    view = BatchView(
        seat=scalar(K.DECISION_SEAT), players=spec.players, hand=scalar(K.DECISION_HAND),
        entity_of_seat=TABLE_ENTITIES[spec.players], scores=rows_of(shown.scores),
        hand_sizes=rows_of(shown.hand_sizes), lacking=rows_of(shown.lacking),
        boneyard_size=scalar(K.DECISION_BONEYARD), played=scalar(K.DECISION_PLAYED),
        total=scalar(K.DECISION_TOTAL), open_values=scalar(K.DECISION_OPEN_VALUES),
        n_nodes=scalar(K.DECISION_NODES), nodes=rows_of(shown.nodes, K.DECISION_NODES),
        open_count=rows_of(shown.open_count), n_open_nodes=scalar(K.DECISION_OPEN_NODES),
        open_nodes=rows_of(shown.open_nodes, K.DECISION_OPEN_NODES),
        n_candidates=scalar(K.DECISION_CANDIDATES),
        cands=rows_of(shown.cands, K.DECISION_CANDIDATES), params=batch_params, rng=rng,
        n_history=scalar(K.DECISION_HISTORY), history=rows_of(shown.history, K.DECISION_HISTORY),
        hidden_hands=NO_HIDDEN, hidden_boneyard=NO_HIDDEN)
    try:
        rows = strategy.function(view)
    except Exception as error:  # a user's code: report it with where it happened
        message = str(error).splitlines()[0] if str(error) else ""
        first_match = int(slot_match[fields[0, K.DECISION_SLOT]])
        raise StrategyFailure(f"strategy {strategy.name!r} (seat {seat}), a batch of {mine.size} "
                              f"decisions from match {first_match}, raised "
                              f"{type(error).__name__}: {message}") from error
    chosen = np.asarray(rows)
    if chosen.shape != (mine.size,) or not np.issubdtype(chosen.dtype, np.integer):
        raise StrategyFailure(f"strategy {strategy.name!r} (seat {seat}) returned "
                              f"{type(rows).__name__} of shape {getattr(chosen, 'shape', '?')}, not "
                              f"{mine.size} integer rows (one per decision of its batch)")
    bad = np.flatnonzero((chosen < 0) | (chosen >= counts))
    if bad.size:
        i = int(bad[0])
        match = int(slot_match[fields[i, K.DECISION_SLOT]])
        raise StrategyFailure(f"strategy {strategy.name!r} (seat {seat}) in match {match} returned "
                              f"row {int(chosen[i])}, not one of its {int(counts[i])} candidates "
                              f"(rows 0 to {int(counts[i]) - 1})")
    if not whole:
        shown.rng[mine] = rng  # a copy: the streams as the strategy left them
    return chosen.astype(np.int64, copy=False)
