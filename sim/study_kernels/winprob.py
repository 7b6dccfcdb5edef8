"""Win probabilities from any score state: one-round transitions and backward induction.

A match is a Markov chain over *states*: every entity's raw score at the start
of a round and the seat that leads it (or that the lead is drawn by lot).
Under a fixed strategy profile, the round from a state ends in a new state or
in a win, and

    V_e(s) = E[ V_e(next state) ],  V_e = 1 for the entity that reached 305, 0 for the others,

where ``V_e(s)`` is the probability that entity ``e`` wins the match from ``s``.

Method
------
1. **Transitions** (:func:`simulate_states`): from every state of the grid
   (:class:`StateGrid`: each entity's displayed score 0..60, every leader
   seat) the engine plays ``rounds_per_state`` rounds with fresh deals
   (:func:`sim.study_kernels.dealt_rounds.rounds_from_states`; round ``k`` of state ``s``
   is random-stream row ``k * n_states + s``, so a larger ``K`` extends a
   smaller one, state by state: :func:`extend_rounds`). :func:`allocate_rounds`
   gives more rounds where the table's values are noisiest (its docstring says
   how and why). A round that puts an entity on 305 (``END_TARGET``, or a
   domino or blocked event landing exactly) is a win for it; after a domino
   the next state is (end scores, leader = the dominoer); after a blocked
   round it is (end scores, leader by lot), whose value is the mean over the
   leader seats (ruling 14).
2. **Values** (:func:`solve`): the empirical transitions define a finite
   chain, solved by Gauss-Seidel sweeps over the score cells in order of
   descending total score. A round never lowers a score with 2 or 3 players,
   and a round that keeps the total keeps every score (credits are never
   negative), so the only links within one total are between the leader
   states and the lot of one cell: that small system (``players`` unknowns per
   entity) is solved exactly, and one sweep is then the exact solution (the
   second sweep only confirms it). With 4 players the partner debit can lower
   a partnership's score (ruling 10): sweeps repeat until no value moves by
   more than ``tol`` (default 1e-10; a sweep cap bounds the work).
3. **Intervals** (:func:`bootstrap`): Poisson bootstrap over each state's
   simulated rounds. Replicate ``b`` gives every simulated round a weight
   drawn from Poisson(1) (a transition ``n`` rounds took, their sum:
   Poisson(``n``); random stream ``(seed, BOOTSTRAP_STREAM, b)``) and
   solves the weighted chain (compiled, replicates in parallel); the 95%
   interval of a value is the 2.5 and 97.5 percentiles of the replicates. It
   carries the sampling noise of every state the value depends on. (A state
   whose rounds all get weight 0 keeps weight 1 for each: with ``K = 8`` that
   is ``e**-8`` of the states.) :func:`fitted_tables` applies the fit (4) to
   every replicate: the shipped table's replicate tables.
4. **Fit** (:func:`fit_side_table`, 2 and 4 players, the own-vs-opponent
   table that ships): the solved values are noisy and not monotone (one more
   own point can lower a value by several points). Over scores
   0..:data:`MONOTONE_TOP` (50) more points are taken not to hurt: the fit is
   the precision-weighted least-squares table that is non-decreasing in the
   own score and non-increasing in the opponent's there (pool-adjacent-
   violators along each line, combined by Dykstra's alternating
   projections), and, under self-play, symmetric (P(own wins | a, b, own
   leads) = 1 - P(own wins | b, a, opponent leads); the lot column is the
   mean of the two leads, so 0.5 exactly on the diagonal). Within 10 of 61
   (51..60) ruling 8 discards an event that would pass 61, so from ``s`` an
   event of ``61 - s`` wins while from ``s + 1`` it is lost: more points can
   hurt, and that zone is left as solved. The fitted values' intervals are
   the same fit applied to every bootstrap replicate; :func:`adjacent_drops`
   counts the cells where one more point hurts, and by how much against the
   intervals.

Negative scores (4 players)
---------------------------
The partner debit can take a partnership below 0 (ruling 10: no floor). The
4-player grid therefore spans displayed scores ``MIN_DISPLAYED[4]`` (-10)
..60; a transition below it is clamped to -10 and counted in
:attr:`StateRounds.clamped`. Matches hardly go there (150,000 rounds of greedy
self-play: lowest score -9 displayed, 0.16% of rounds below 0); the grid's
clamped rounds start from its bottom edge.

Estimator
---------
The values are the plug-in estimate: the exact win probabilities of the
empirical chain. Without revisits (2 and 3 players, apart from rounds that
change nothing) each state's rounds are independent of the values of the
states they lead to, so the estimate is unbiased; tests check it against
complete matches, and README reports the measured agreement and the
bootstrap's coverage.

:func:`play_matches_from` is the direct check: complete matches from chosen
states, played by chaining the same round kernel (its rows in a random-stream
range of their own, ``CHECK_ROW_BASE ..``), for comparison with the values.
:func:`side_table` (own side vs opponent side, 2 and 4 players) and :func:`fitted_tables` make
the table shipped to the strategies (:mod:`strategies.winprob_table`, stored by
:mod:`strategies.winprob_codes`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from core.checks import check_int
from core import state as K
from sim.engine.batch import run_blocks, thread_count
from sim.engine.compiled import CompiledRun
from sim.engine.spec import RunSpec
from sim.progress import progress_bar
from sim.study_kernels import dealt_rounds as DR
from core.tiles import DEFAULT_MAX_ROUNDS, RAW_PER_DISPLAYED, TARGET_RAW, entities_for, entity_count
from strategies.catalogue import strategy_entries

__all__ = [
    "LEADER_BY_LOT",
    "LEAD_LOT",
    "LEAD_OPPONENT",
    "LEAD_OWN",
    "MONOTONE_TOP",
    "RoundPlayer",
    "StateGrid",
    "StateRounds",
    "WinValues",
    "FittedTables",
    "adjacent_drops",
    "allocate_rounds",
    "bootstrap",
    "extend_rounds",
    "fit_side_table",
    "fitted_tables",
    "grid_for",
    "half_width_targets",
    "lot_half_widths",
    "play_matches_from",
    "pool_adjacent_violators",
    "simulate_states",
    "solve",
    "side_table",
    "win_values",
]

TARGET_DISPLAYED = TARGET_RAW // RAW_PER_DISPLAYED
"""61: the exact target in displayed points (a terminal score)."""

LEADER_BY_LOT = DR.LEADER_BY_LOT
"""A start state's leader when the first round's leader is drawn by lot."""

MIN_DISPLAYED = {2: 0, 3: 0, 4: -10}
"""Lowest displayed score of the grid per table size (see the module docstring)."""

ROWS_PER_CHUNK = 65_536
"""Rounds per kernel call of :func:`simulate_states` (the progress bar moves between calls)."""

CHECK_ROW_BASE = 1 << 62
"""First random-stream row of :func:`play_matches_from` (the grid's rows lie far below)."""

BOOTSTRAP_STREAM = 0xB005
"""Mixed into the seed of the bootstrap weights (:func:`bootstrap`)."""

SAMPLES_PER_BATCH = 8_000_000
"""Bootstrap replicates are solved together while replicates x transitions stays below this
(memory of the weight arrays; results do not depend on it)."""

REPLICATES_PER_BATCH = 32
"""At most this many bootstrap replicates are solved together (the progress bar moves between
batches; results do not depend on it)."""

SINGULAR_GUARD = 1e-12
"""Added to the diagonal of each cell's system: a cell none of whose rounds ever left it
(possible in a bootstrap replicate) gets value 0, not a division by zero."""

DEFAULT_TOLERANCE = 1e-10
"""Value iteration stops when no value moves by more than this in a sweep."""

DEFAULT_MAX_SWEEPS = 500
"""Sweep cap of :func:`solve` (4 players need a few tens)."""

LEAD_OWN = 0
"""Lead index of :func:`side_table`: the own side leads the round."""
LEAD_OPPONENT = 1
"""Lead index of :func:`side_table`: the opposing side leads the round."""
LEAD_LOT = 2
"""Lead index of :func:`side_table`: the leader is drawn by lot."""

TABLE_SIDE = TARGET_DISPLAYED + 1
"""62: displayed scores 0..61 along each score axis of :func:`side_table`."""

TABLE_PLAYERS = (2, 4)
"""Table sizes of the shipped table's first axis (index 0: 2 players, 1: 4 players)."""



# ---------------------------------------------------------------------------
# The state grid
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class StateGrid:
    """Every non-terminal state of one table size.

    A *cell* is one combination of the entities' displayed scores, each in
    ``low .. 60``; a *state* is a cell and a leader seat: state index
    ``cell * players + leader``. Cells are ordered by descending total score
    (then lexicographically), so that the states of one total are contiguous
    (:attr:`levels`).

    Attributes
    ----------
    players : int
    low : int
        Lowest displayed score (0, or -10 with 4 players).
    cells : ndarray int64[n_cells, n_entities]
        Displayed scores of each cell.
    levels : list of (int, int)
        ``(first cell, stop cell)`` of each total score, highest total first.
    lookup : ndarray int64[side ** n_entities]
        Cell index of each score combination, raveled (:meth:`cell_of`).
    """

    players: int
    low: int
    cells: np.ndarray = field(repr=False)
    levels: list = field(repr=False)
    lookup: np.ndarray = field(repr=False)

    @property
    def n_entities(self) -> int:
        return entity_count(self.players)

    @property
    def side(self) -> int:
        """Scores per entity axis: ``low .. 60``."""
        return TARGET_DISPLAYED - self.low

    @property
    def n_cells(self) -> int:
        return self.cells.shape[0]

    @property
    def n_states(self) -> int:
        return self.n_cells * self.players

    def cell_of(self, displayed) -> np.ndarray:
        """Cell index of displayed scores (int array ``[..., n_entities]``, each ``low .. 60``)."""
        d = np.asarray(displayed, dtype=np.int64) - self.low
        flat = np.ravel_multi_index(tuple(np.moveaxis(d, -1, 0)), (self.side,) * self.n_entities)
        return self.lookup[flat]

    def state_of(self, displayed, leader) -> np.ndarray:
        """State index of displayed scores and a leader seat."""
        return self.cell_of(displayed) * self.players + np.asarray(leader, dtype=np.int64)


def grid_for(players: int) -> StateGrid:
    """The :class:`StateGrid` of ``players`` (2, 3 or 4)."""
    low = MIN_DISPLAYED[players]
    n_entities = entity_count(players)
    axes = np.arange(low, TARGET_DISPLAYED)
    cells = np.stack(np.meshgrid(*([axes] * n_entities), indexing="ij"), axis=-1).reshape(-1, n_entities)
    totals = cells.sum(axis=1)
    # descending total; np.lexsort sorts by its last key first
    order = np.lexsort(tuple(cells[:, e] for e in reversed(range(n_entities))) + (-totals,))
    cells = np.ascontiguousarray(cells[order])
    totals = totals[order]
    starts = np.flatnonzero(np.r_[True, totals[1:] != totals[:-1]])
    stops = np.r_[starts[1:], cells.shape[0]]
    shape = (axes.size,) * n_entities
    lookup = np.empty(axes.size ** n_entities, dtype=np.int64)
    lookup[np.ravel_multi_index(tuple((cells - low).T), shape)] = np.arange(cells.shape[0])
    return StateGrid(players, low, cells, list(zip(starts.tolist(), stops.tolist())), lookup)


# ---------------------------------------------------------------------------
# Rounds from given states (the engine kernel)
# ---------------------------------------------------------------------------
def profile_spec(players: int, strategies, seed: int, threads=None, field=None) -> RunSpec:
    """The checked run of a strategy profile: one strategy for every seat (self-play), or one
    per seat (with 4 players two: the partnerships); ``field`` as in :func:`sim.simulate`."""
    entries = strategy_entries(strategies, "strategies")
    if len(entries) == 1:
        entries = list(entries) * int(players)
    return RunSpec.build(players, list(entries), 1, seed, threads=threads, field=field)


@dataclass
class RoundEnds:
    """What :meth:`RoundPlayer.play` returns, one entry per row.

    Attributes
    ----------
    scores : ndarray int64[n, MAX_ENTITIES]
        Raw scores by entity after the round.
    kinds : ndarray int8[n]
        ``END_DOMINO``, ``END_BLOCKED`` or ``END_TARGET`` (:mod:`core.state`).
    dominoers : ndarray int8[n]
        The seat that dominoed, else ``NO_SEAT``.
    next_leaders : ndarray int8[n]
        Ruling 14: the dominoer after a domino, a lot after a block, ``LEADER_BY_LOT``
        once an entity is on 305.
    """

    scores: np.ndarray
    kinds: np.ndarray
    dominoers: np.ndarray
    next_leaders: np.ndarray


class RoundPlayer:
    """A strategy profile compiled to play single rounds from given states.

    Parameters
    ----------
    players : int
    strategies : str or sequence
        The profile (:func:`profile_spec`).
    seed : int
    threads : int, optional
    field : sequence, optional
        More strategies compiled into the same kernel (as in :func:`sim.simulate`).
    """

    def __init__(self, players: int, strategies, seed: int, threads=None, field=None):
        self.spec = profile_spec(players, strategies, seed, threads, field)
        if self.spec.python_seats:
            raise ValueError("win probabilities need compiled strategies (not compiled=False)")
        self.run = CompiledRun(self.spec, kernels=("rounds_from_states",), template=DR)

    @property
    def players(self) -> int:
        return self.spec.players

    @property
    def names(self) -> list[str]:
        return self.spec.names

    def play(self, row_ids, start_scores, leaders, threads: int | None = None) -> RoundEnds:
        """One round per row (:func:`sim.study_kernels.dealt_rounds.rounds_from_states`).

        Parameters
        ----------
        row_ids : int64[n]
            Random-stream row of each round: the same ``(seed, row id)`` and
            state give the same round whatever the threads or the batch.
        start_scores : int64[n, n_entities] (or MAX_ENTITIES columns)
            Raw scores before the round.
        leaders : int64[n]
            Leader seat, or ``LEADER_BY_LOT``.
        threads : int, optional
            Threads for this call (default: those in effect).
        """
        row_ids = np.ascontiguousarray(row_ids, dtype=np.int64)
        n = row_ids.size
        scores = np.zeros((n, K.MAX_ENTITIES), dtype=np.int64)
        given = np.asarray(start_scores, dtype=np.int64).reshape(n, -1)
        scores[:, : given.shape[1]] = given
        leaders = np.ascontiguousarray(leaders, dtype=np.int64)
        out = RoundEnds(np.zeros((n, K.MAX_ENTITIES), dtype=np.int64), np.zeros(n, dtype=np.int8),
                        np.zeros(n, dtype=np.int8), np.zeros(n, dtype=np.int8))
        errors = np.zeros(n, dtype=np.int64)
        kernel = self.run.engine.kernels(DR).rounds_from_states
        fixed = (np.int64(self.spec.seed), np.int64(self.players), self.run.strategy_ids,
                 self.spec.params, row_ids, scores, leaders)
        outputs = (out.scores, out.kinds, out.dominoers, out.next_leaders, errors, self.spec.secret_words)
        with thread_count(threads if threads is not None else self.spec.threads) as active:
            run_blocks(lambda a, b: kernel(*fixed, np.int64(a), np.int64(b), *outputs), n, active)
        if errors.any():
            row = int(np.flatnonzero(errors)[0])
            name = self.run.slot_name(int(errors[row]) - 1)
            raise RuntimeError(f"strategy {name!r} returned a row that is not one of its candidates "
                               f"(round row {int(row_ids[row])})")
        return out


# ---------------------------------------------------------------------------
# Rounds from every state
# ---------------------------------------------------------------------------
@dataclass
class StateRounds:
    """Simulated rounds from every state of a grid: ``counts[s]`` rounds from state ``s``.

    The rounds are held state by state (state ``s``'s are ``offsets[s]:offsets[s + 1]`` of the
    flat arrays, in the order of their random-stream rows): a uniform run gives every state
    ``rounds_per_state``, an allocated one (:func:`allocate_rounds`) more where the values are
    noisiest.

    Attributes
    ----------
    grid : StateGrid
    names : list of str
        Each seat's strategy.
    seed : int
    rounds_per_state : int
        The rounds every state got first (the pilot, when allocated).
    counts : ndarray int64[n_states]
        Rounds played from each state (round ``k`` of state ``s`` is random-stream row
        ``k * n_states + s``, so more rounds extend fewer).
    targets : ndarray int32[rounds]
        Where each round led, as a row of the solver's value array: ``0 .. n_states - 1`` a
        state (domino: leader = dominoer), ``n_states + c`` the lot of cell ``c`` (blocked
        round), ``n_states + n_cells + e`` a win for entity ``e``.
    kinds : ndarray int8[rounds]
        The round's end kind.
    clamped : int
        Transitions whose score fell below the grid (clamped to its lowest score).
    seconds : float
        Wall time of the simulation (the kernel's compile or load excluded).
    passes : list of dict
        The allocation's log, one entry per pass (:func:`allocate_rounds`; empty when uniform).
    """

    grid: StateGrid
    names: list
    seed: int
    rounds_per_state: int
    counts: np.ndarray = field(repr=False)
    targets: np.ndarray = field(repr=False)
    kinds: np.ndarray = field(repr=False)
    clamped: int = 0
    seconds: float = 0.0
    passes: list = field(default_factory=list, repr=False)

    @classmethod
    def uniform(cls, grid: StateGrid, names, seed: int, targets, kinds=None, **extra):
        """Rounds given as one row per state (``targets`` int[n_states, K]): ``K`` from each."""
        targets = np.asarray(targets, dtype=np.int32)
        kinds = np.zeros_like(targets, dtype=np.int8) if kinds is None else np.asarray(kinds)
        counts = np.full(grid.n_states, targets.shape[1], dtype=np.int64)
        return cls(grid, list(names), int(seed), int(targets.shape[1]), counts,
                   targets.ravel().copy(), kinds.astype(np.int8).ravel().copy(), **extra)

    @property
    def offsets(self) -> np.ndarray:
        """int64[n_states + 1]: where each state's rounds start in the flat arrays."""
        return np.concatenate([[0], np.cumsum(self.counts)]).astype(np.int64)

    @property
    def total(self) -> int:
        """Rounds played in all."""
        return int(self.counts.sum())

    @property
    def profile(self) -> str:
        """The profile's label: one name for self-play, else the seats' names."""
        return self.names[0] if len(set(self.names)) == 1 else ",".join(self.names)


def transition_targets(grid: StateGrid, ends: RoundEnds) -> tuple[np.ndarray, int]:
    """Rows of the value array (see :attr:`StateRounds.targets`) the rounds ``ends`` led to,
    and how many were clamped below the grid."""
    n_entities = grid.n_entities
    scores = ends.scores[:, :n_entities]
    won = scores == TARGET_RAW
    terminal = won.any(axis=1)
    displayed = scores // RAW_PER_DISPLAYED
    below = (displayed < grid.low) & ~terminal[:, None]
    clamped = int(below.any(axis=1).sum())
    displayed = np.clip(displayed, grid.low, TARGET_DISPLAYED - 1)
    cell = grid.cell_of(displayed)
    blocked = ends.kinds == K.END_BLOCKED
    state = cell * grid.players + np.maximum(ends.dominoers.astype(np.int64), 0)
    out = np.where(blocked, grid.n_states + cell, state)
    out = np.where(terminal, grid.n_states + grid.n_cells + won.argmax(axis=1), out)
    return out.astype(np.int32), clamped


def _play_rounds(player: RoundPlayer, grid: StateGrid, states: np.ndarray, samples: np.ndarray,
                 threads, progress: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Play round ``samples[i]`` of state ``states[i]`` for every ``i`` (random-stream row
    ``sample * n_states + state``); returns their targets, kinds and clamped count."""
    state_scores = np.repeat(grid.cells * RAW_PER_DISPLAYED, grid.players, axis=0)
    state_leaders = np.tile(np.arange(grid.players, dtype=np.int64), grid.n_cells)
    total = states.size
    targets = np.zeros(total, dtype=np.int32)
    kinds = np.zeros(total, dtype=np.int8)
    clamped = 0
    with progress_bar(total, progress, unit="round", desc=f"{player.players}p rounds") as bar:
        for first in range(0, total, ROWS_PER_CHUNK):
            part = slice(first, min(total, first + ROWS_PER_CHUNK))
            rows = samples[part] * grid.n_states + states[part]
            ends = player.play(rows, state_scores[states[part]], state_leaders[states[part]],
                               threads)
            targets[part], cut = transition_targets(grid, ends)
            kinds[part] = ends.kinds
            clamped += cut
            bar.update(rows.size)
    return targets, kinds, clamped


def simulate_states(players: int, strategies, rounds_per_state: int, seed: int = 0, *,
                    threads: int | None = None, progress: bool = False,
                    player: RoundPlayer | None = None) -> StateRounds:
    """Play ``rounds_per_state`` rounds from every state of the grid of ``players``.

    Parameters
    ----------
    players : int
    strategies : str or sequence
        The strategy profile (one name: self-play; else one per seat).
    rounds_per_state : int
        ``K``: rounds per state (the bootstrap needs at least 2).
    seed : int
    threads : int, optional
    progress : bool
        A progress bar over rounds.
    player : RoundPlayer, optional
        An already compiled profile (same players, strategies and seed).

    Returns
    -------
    StateRounds
    """
    rounds_per_state = check_int(rounds_per_state, "rounds_per_state", 1)
    player = player or RoundPlayer(players, strategies, seed, threads)
    grid = grid_for(player.players)
    empty = StateRounds(grid, player.names, int(player.spec.seed), rounds_per_state,
                        np.zeros(grid.n_states, dtype=np.int64), np.zeros(0, dtype=np.int32),
                        np.zeros(0, dtype=np.int8))
    return extend_rounds(empty, np.full(grid.n_states, rounds_per_state, dtype=np.int64), player,
                         threads=threads, progress=progress)


def extend_rounds(rounds: StateRounds, counts, player: RoundPlayer, *, threads=None,
                  progress: bool = False) -> StateRounds:
    """``rounds`` with more rounds: state ``s`` played up to ``counts[s]`` (never fewer than it
    has). The new rounds are rows ``k * n_states + s`` for ``k`` from its old count on, so the
    result is the run that had played ``counts`` from the start."""
    grid = rounds.grid
    counts = np.maximum(np.asarray(counts, dtype=np.int64), rounds.counts)
    extra = counts - rounds.counts
    states = np.repeat(np.arange(grid.n_states, dtype=np.int64), extra)
    first = np.repeat(rounds.counts, extra)
    run_start = np.repeat(np.cumsum(extra) - extra, extra)
    samples = first + (np.arange(states.size, dtype=np.int64) - run_start)
    # One round first, outside the clock: the first call compiles or loads the kernel.
    player.play(np.zeros(1, dtype=np.int64), grid.cells[:1] * RAW_PER_DISPLAYED,
                np.zeros(1, dtype=np.int64), threads)
    started = time.perf_counter()
    targets, kinds, clamped = _play_rounds(player, grid, states, samples, threads, progress)
    seconds = time.perf_counter() - started
    old_states = np.repeat(np.arange(grid.n_states, dtype=np.int64), rounds.counts)
    old_samples = np.arange(rounds.total, dtype=np.int64) - np.repeat(rounds.offsets[:-1],
                                                                       rounds.counts)
    order = np.lexsort((np.concatenate([old_samples, samples]),
                        np.concatenate([old_states, states])))
    return StateRounds(grid, rounds.names, rounds.seed, rounds.rounds_per_state, counts,
                       np.concatenate([rounds.targets, targets])[order],
                       np.concatenate([rounds.kinds, kinds])[order],
                       rounds.clamped + clamped, rounds.seconds + seconds, list(rounds.passes))


# ---------------------------------------------------------------------------
# Backward induction
# ---------------------------------------------------------------------------
@dataclass
class _Structure:
    """What the solver derives once from a :class:`StateRounds`: its distinct transitions.

    Rounds from one state to one target are one transition with a ``count``; the transitions
    are ordered by state (``offsets``), so a state's are contiguous.
    """

    dst: np.ndarray  # int64[T]: the target row
    count: np.ndarray  # float64[T]: rounds that took it
    inside: np.ndarray  # bool[T]: it stayed in its own cell
    local: np.ndarray  # int8[T]: its leader column there (players = the lot)
    offsets: np.ndarray  # int64[n_states + 1]


def _structure(rounds: StateRounds) -> _Structure:
    grid = rounds.grid
    n_states, players = grid.n_states, grid.players
    rows = n_states + grid.n_cells + grid.n_entities
    source = np.repeat(np.arange(n_states, dtype=np.int64), rounds.counts)
    keys, count = np.unique(source * rows + rounds.targets.astype(np.int64), return_counts=True)
    src, dst = keys // rows, keys % rows
    is_state = dst < n_states
    is_lot = (dst >= n_states) & (dst < n_states + grid.n_cells)
    cell = np.where(is_state, dst // players, np.where(is_lot, dst - n_states, -1))
    inside = cell == src // players
    local = np.where(is_state, dst % players, players).astype(np.int8)
    offsets = np.searchsorted(src, np.arange(n_states + 1)).astype(np.int64)
    return _Structure(dst, count.astype(np.float64), inside, local, offsets)


def _segment_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sums of ``values`` (axis 1) over the segments ``offsets[i]:offsets[i + 1]`` (each
    non-empty: every state has a round)."""
    return np.add.reduceat(values, offsets[:-1], axis=1)


@njit(cache=True, nogil=True)
def _invert_small(matrix):
    """The inverse of a small well-conditioned matrix (Gauss-Jordan, partial pivoting)."""
    n = matrix.shape[0]
    a = matrix.copy()
    inverse = np.eye(n)
    for col in range(n):
        pivot = col
        for row in range(col + 1, n):
            if abs(a[row, col]) > abs(a[pivot, col]):
                pivot = row
        if pivot != col:
            for k in range(n):
                a[col, k], a[pivot, k] = a[pivot, k], a[col, k]
                inverse[col, k], inverse[pivot, k] = inverse[pivot, k], inverse[col, k]
        scale = 1.0 / a[col, col]
        for k in range(n):
            a[col, k] *= scale
            inverse[col, k] *= scale
        for row in range(n):
            if row != col and a[row, col] != 0.0:
                factor = a[row, col]
                for k in range(n):
                    a[row, k] -= factor * a[col, k]
                    inverse[row, k] -= factor * inverse[col, k]
    return inverse


@njit(cache=True, nogil=True)
def _solve_replicate(weights, count, dst, offsets, inside, local, levels, players, n_cells,
                     n_entities, tol, max_sweeps, values_out, lot_out):
    """One replicate of :func:`solve` (its weights per transition); returns (sweeps, residual)."""
    n_states = n_cells * players
    value = np.zeros((n_states + n_cells + n_entities, n_entities))
    for e in range(n_entities):
        value[n_states + n_cells + e, e] = 1.0
    w = np.empty(weights.size)
    for s in range(n_states):
        total = 0.0
        for t in range(offsets[s], offsets[s + 1]):
            total += weights[t]
        use_count = total <= 0.0  # a state with no weight keeps its rounds at weight 1
        if use_count:
            total = 0.0
            for t in range(offsets[s], offsets[s + 1]):
                total += count[t]
        for t in range(offsets[s], offsets[s + 1]):
            w[t] = (count[t] if use_count else weights[t]) / total
    inverse = np.empty((n_cells, players, players))
    system = np.empty((players, players))
    for c in range(n_cells):
        # the in-cell system: V_l = b_l + sum_l' M[l, l'] V_l' + M[l, lot] mean_l' V_l'
        for i in range(players):
            for j in range(players):
                system[i, j] = (1.0 + SINGULAR_GUARD) if i == j else 0.0
        for leader in range(players):
            s = c * players + leader
            for t in range(offsets[s], offsets[s + 1]):
                if inside[t]:
                    if local[t] < players:
                        system[leader, local[t]] -= w[t]
                    else:
                        for j in range(players):
                            system[leader, j] -= w[t] / players
        inverse[c] = _invert_small(system)
    rhs = np.empty((players, n_entities))
    sweeps, residual = 0, np.inf
    while sweeps < max_sweeps and residual > tol:
        residual = 0.0
        for level in range(levels.shape[0]):
            for c in range(levels[level, 0], levels[level, 1]):
                for leader in range(players):
                    for e in range(n_entities):
                        rhs[leader, e] = 0.0
                    s = c * players + leader
                    for t in range(offsets[s], offsets[s + 1]):
                        if not inside[t]:
                            for e in range(n_entities):
                                rhs[leader, e] += w[t] * value[dst[t], e]
                for e in range(n_entities):
                    mean = 0.0
                    for leader in range(players):
                        new = 0.0
                        for j in range(players):
                            new += inverse[c, leader, j] * rhs[j, e]
                        s = c * players + leader
                        residual = max(residual, abs(new - value[s, e]))
                        value[s, e] = new
                        mean += new
                    value[n_states + c, e] = mean / players
        sweeps += 1
    values_out[:, :] = value[:n_states]
    lot_out[:, :] = value[n_states:n_states + n_cells]
    return sweeps, residual


@njit(cache=True, nogil=True)
def _solve_block(first, stop, weights, count, dst, offsets, inside, local, levels, players,
                 n_cells, n_entities, tol, max_sweeps, values, lot, sweeps, residuals):
    for r in range(first, stop):
        sweeps[r], residuals[r] = _solve_replicate(
            weights[r], count, dst, offsets, inside, local, levels, players, n_cells,
            n_entities, tol, max_sweeps, values[r], lot[r])


def solve(rounds: StateRounds, weights=None, *, tol: float = DEFAULT_TOLERANCE,
          max_sweeps: int = DEFAULT_MAX_SWEEPS, structure: _Structure | None = None,
          threads: int | None = None):
    """Win probabilities of the empirical chain of ``rounds`` (see the module docstring).

    Parameters
    ----------
    rounds : StateRounds
    weights : ndarray float[R, transitions], optional
        Weight of every distinct transition (:func:`_structure`; its rounds' weights summed)
        in each of ``R`` replicates (default: one replicate, each weighted by its rounds).
    tol : float
        Stop when no value moved by more than ``tol`` in a sweep.
    max_sweeps : int
    threads : int, optional
        Replicates are solved in parallel on this many threads (the results do not depend
        on it).

    Returns
    -------
    values : ndarray float64[R, n_states, n_entities]
        ``values[r, s, e]``: P(entity ``e`` wins | state ``s``).
    lot : ndarray float64[R, n_cells, n_entities]
        The same with the leader by lot (the mean over the leader seats).
    sweeps : int
        Sweeps made (the most over the replicates).
    residual : float
        The largest change in the last sweep.
    """
    grid = rounds.grid
    st = structure or _structure(rounds)
    weights = (st.count[None, :] if weights is None
               else np.ascontiguousarray(weights, dtype=np.float64))
    replicates = weights.shape[0]
    values = np.zeros((replicates, grid.n_states, grid.n_entities))
    lot = np.zeros((replicates, grid.n_cells, grid.n_entities))
    sweeps = np.zeros(replicates, dtype=np.int64)
    residuals = np.zeros(replicates)
    levels = np.asarray(grid.levels, dtype=np.int64).reshape(-1, 2)
    fixed = (weights, st.count, st.dst, st.offsets, st.inside, st.local, levels,
             np.int64(grid.players), np.int64(grid.n_cells), np.int64(grid.n_entities),
             float(tol), np.int64(max_sweeps), values, lot, sweeps, residuals)
    with thread_count(threads) as active:
        run_blocks(lambda a, b: _solve_block(np.int64(a), np.int64(b), *fixed), replicates,
                   active)
    return values, lot, int(sweeps.max()), float(residuals.max())


def bootstrap(rounds: StateRounds, replicates: int, seed: int = 0, *,
              tol: float = DEFAULT_TOLERANCE, max_sweeps: int = DEFAULT_MAX_SWEEPS,
              progress: bool = False):
    """Poisson-bootstrap replicates of :func:`solve` (see the module docstring).

    Replicate ``b`` weights every simulated round by Poisson(1): a transition taken by ``n``
    rounds by Poisson(``n``) (their sum), drawn from
    ``numpy.random.default_rng([seed, BOOTSTRAP_STREAM, b])``: the same replicates whatever
    the batching.

    Returns
    -------
    values : ndarray float32[B, n_states, n_entities]
    lot : ndarray float32[B, n_cells, n_entities]
    """
    grid = rounds.grid
    structure = _structure(rounds)
    values = np.zeros((replicates, grid.n_states, grid.n_entities), dtype=np.float32)
    lot = np.zeros((replicates, grid.n_cells, grid.n_entities), dtype=np.float32)
    batch = max(1, min(REPLICATES_PER_BATCH, SAMPLES_PER_BATCH // structure.count.size))
    with progress_bar(replicates, progress, unit="replicate",
                      desc=f"{grid.players}p bootstrap") as bar:
        for first in range(0, replicates, batch):
            members = range(first, min(replicates, first + batch))
            weights = np.stack([
                np.random.default_rng([int(seed), BOOTSTRAP_STREAM, b]).poisson(
                    structure.count).astype(np.float64) for b in members])
            v, l, _, _ = solve(rounds, weights, tol=tol, max_sweeps=max_sweeps, structure=structure)
            values[first:first + len(members)] = v
            lot[first:first + len(members)] = l
            bar.update(len(members))
    return values, lot


@dataclass
class WinValues:
    """Win probabilities of every state with their 95% bootstrap intervals.

    Attributes
    ----------
    rounds : StateRounds
        The simulated transitions.
    values : ndarray float64[n_states, n_entities]
        P(entity ``e`` wins | state).
    lot : ndarray float64[n_cells, n_entities]
        P(entity ``e`` wins | cell, leader by lot) = mean of ``values`` over the leaders.
    low, high, lot_low, lot_high : ndarray
        2.5 and 97.5 bootstrap percentiles (NaN without replicates).
    replicates : ndarray float32[B, n_states, n_entities] and ``lot_replicates``
        The bootstrap replicates (for tables derived from the values).
    sweeps : int
    residual : float
    seconds : float
        Wall time of solving and bootstrapping.
    """

    rounds: StateRounds
    values: np.ndarray = field(repr=False)
    lot: np.ndarray = field(repr=False)
    low: np.ndarray = field(repr=False)
    high: np.ndarray = field(repr=False)
    lot_low: np.ndarray = field(repr=False)
    lot_high: np.ndarray = field(repr=False)
    replicates: np.ndarray = field(repr=False)
    lot_replicates: np.ndarray = field(repr=False)
    sweeps: int = 0
    residual: float = 0.0
    seconds: float = 0.0

    @property
    def grid(self) -> StateGrid:
        return self.rounds.grid

    def value(self, displayed, leader=None) -> np.ndarray:
        """float64[n_entities]: the values at displayed scores, ``leader`` a seat or None (lot)."""
        cell = int(self.grid.cell_of(displayed))
        if leader is None:
            return self.lot[cell]
        return self.values[cell * self.grid.players + int(leader)]

    def interval(self, displayed, leader=None) -> tuple[np.ndarray, np.ndarray]:
        """The 95% bootstrap interval of :meth:`value`."""
        cell = int(self.grid.cell_of(displayed))
        if leader is None:
            return self.lot_low[cell], self.lot_high[cell]
        state = cell * self.grid.players + int(leader)
        return self.low[state], self.high[state]


def win_values(rounds: StateRounds, replicates: int = 100, seed: int | None = None, *,
               tol: float = DEFAULT_TOLERANCE, max_sweeps: int = DEFAULT_MAX_SWEEPS,
               progress: bool = False) -> WinValues:
    """Solve ``rounds`` (:func:`solve`) and bootstrap ``replicates`` times (:func:`bootstrap`;
    ``seed`` defaults to the rounds' seed; 0 replicates: NaN intervals)."""
    started = time.perf_counter()
    values, lot, sweeps, residual = solve(rounds, tol=tol, max_sweeps=max_sweeps)
    values, lot = values[0], lot[0]
    if replicates > 0:
        reps, lot_reps = bootstrap(rounds, replicates, rounds.seed if seed is None else seed,
                                   tol=tol, max_sweeps=max_sweeps, progress=progress)
        low, high = np.percentile(reps, [2.5, 97.5], axis=0)
        lot_low, lot_high = np.percentile(lot_reps, [2.5, 97.5], axis=0)
    else:
        reps = np.zeros((0,) + values.shape, dtype=np.float32)
        lot_reps = np.zeros((0,) + lot.shape, dtype=np.float32)
        low = high = np.full(values.shape, np.nan)
        lot_low = lot_high = np.full(lot.shape, np.nan)
    return WinValues(rounds, values, lot, low, high, lot_low, lot_high, reps, lot_reps, sweeps,
                     residual, time.perf_counter() - started)


# ---------------------------------------------------------------------------
# Direct check: complete matches from chosen states
# ---------------------------------------------------------------------------
def play_matches_from(player: RoundPlayer, scores, leaders, matches: int, *,
                      max_rounds: int = DEFAULT_MAX_ROUNDS, threads: int | None = None,
                      progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Play ``matches`` complete matches from each start state by chaining single rounds.

    Parameters
    ----------
    player : RoundPlayer
    scores : int64[n, n_entities]
        Raw start scores of each state.
    leaders : int64[n]
        Leader seat of the first round, or ``LEADER_BY_LOT``.
    matches : int
        Matches per state. Round ``r`` of match ``j`` from state ``i`` is
        random-stream row ``CHECK_ROW_BASE + (i * matches + j) * max_rounds + r``.
    max_rounds : int
        Ruling 15: a match still running after this many rounds is unfinished.

    Returns
    -------
    wins : ndarray int64[n, n_entities]
        Matches won by each entity.
    unfinished : ndarray int64[n]
    """
    scores = np.asarray(scores, dtype=np.int64)
    n_states, n_entities = scores.shape[0], entity_count(player.players)
    count = n_states * int(matches)
    current = np.repeat(scores.reshape(n_states, -1)[:, :n_entities], matches, axis=0)
    leader = np.repeat(np.asarray(leaders, dtype=np.int64), matches)
    match_ids = np.arange(count, dtype=np.int64)
    winner = np.full(count, -1, dtype=np.int64)
    active = np.arange(count)
    with progress_bar(count, progress, unit="match", desc=f"{player.players}p check") as bar:
        for r in range(int(max_rounds)):
            if active.size == 0:
                break
            rows = CHECK_ROW_BASE + match_ids[active] * int(max_rounds) + r
            ends = player.play(rows, current[active], leader[active], threads)
            end_scores = ends.scores[:, :n_entities]
            current[active] = end_scores
            leader[active] = ends.next_leaders
            won = end_scores == TARGET_RAW
            done = won.any(axis=1)
            winner[active[done]] = won[done].argmax(axis=1)
            bar.update(int(done.sum()))
            active = active[~done]
    wins = np.zeros((n_states, n_entities), dtype=np.int64)
    state = np.arange(count) // int(matches)
    finished = winner >= 0
    np.add.at(wins, (state[finished], winner[finished]), 1)
    unfinished = np.bincount(state[~finished], minlength=n_states).astype(np.int64)
    return wins, unfinished


# ---------------------------------------------------------------------------
# The compact table shipped to the strategies
# ---------------------------------------------------------------------------
def _side_seats(players: int, entity: int) -> list[int]:
    return [seat for seat, e in enumerate(entities_for(players)) if e == entity]


def side_table(values: WinValues, symmetric: bool = True, replicate: int | None = None) -> np.ndarray:
    """float64[62, 62, 3]: P(own side wins | own displayed, opponent displayed, lead) of a
    2-player or 4-player :class:`WinValues`; own = entity 0 (seat 0's side).

    Lead 0: the own side leads (4 players: the mean over its two seats), 1: the
    opponent side leads, 2: the leader by lot. Own score 61 holds 1, opponent
    61 holds 0 (the unreachable [61, 61] holds 0.5). With ``symmetric`` (a
    self-play profile: the two sides are interchangeable) each value is the
    mean of entity 0's value at (own, opponent) and entity 1's at the mirrored
    state (entity 1 on the own score, entity 0 on the opponent's, the lead
    mirrored): two independent estimates of one number. ``replicate`` takes
    that bootstrap replicate's values instead of the point estimates.
    """
    grid = values.grid
    if grid.players not in TABLE_PLAYERS:
        raise ValueError(f"the compact table is for 2 or 4 players, not {grid.players}")
    if replicate is None:
        state_values, lot_values = values.values, values.lot
    else:
        state_values = values.replicates[replicate].astype(np.float64)
        lot_values = values.lot_replicates[replicate].astype(np.float64)
    players = grid.players
    axis = np.arange(TARGET_DISPLAYED)
    own, opponent = np.meshgrid(axis, axis, indexing="ij")

    def seen_by(entity: int) -> np.ndarray:
        scores = np.zeros(own.shape + (2,), dtype=np.int64)
        scores[..., entity] = own
        scores[..., 1 - entity] = opponent
        cell = grid.cell_of(scores)
        out = np.zeros(own.shape + (3,))
        for lead, side in ((LEAD_OWN, entity), (LEAD_OPPONENT, 1 - entity)):
            out[..., lead] = np.mean([state_values[cell * players + seat, entity]
                                      for seat in _side_seats(players, side)], axis=0)
        out[..., LEAD_LOT] = lot_values[cell, entity]
        return out

    inner = seen_by(0)
    if symmetric:
        inner = (inner + seen_by(1)) / 2.0
    table = np.zeros((TABLE_SIDE, TABLE_SIDE, 3))
    table[:TARGET_DISPLAYED, :TARGET_DISPLAYED] = inner
    table[TARGET_DISPLAYED, :, :] = 1.0
    table[:, TARGET_DISPLAYED, :] = 0.0
    table[TARGET_DISPLAYED, TARGET_DISPLAYED, :] = 0.5
    return table


# ---------------------------------------------------------------------------
# The fit: monotone away from the exact-61 zone, symmetric under self-play
# ---------------------------------------------------------------------------
MONOTONE_TOP = TARGET_DISPLAYED - 11
"""50: the highest displayed score at which one more point is assumed not to hurt its side.

Ruling 8 discards an event that would pass 61, so from a score ``s`` an event of exactly
``61 - s`` wins while the same event from ``s + 1`` is thrown away: more points can hurt
whenever such an event is likely. Placements score a few displayed points (ends sums of
5..60 raw) and are the common events, so the fit leaves the zone 51..60 (within 10 of 61,
the overshoot study's zone) free and imposes the order only on scores 0..50, where a
single event landing exactly on 61 is rare (a large domino credit)."""

FIT_TOLERANCE = 1e-9
"""The fit's passes stop when no ordered pair is violated by more than this."""

FIT_MAX_PASSES = 2000
"""Cap on the fit's Dykstra passes (then the envelope makes the order exact)."""

FIT_HALF_WIDTH_FLOOR = 5e-3
"""Smallest half-width used for a fit weight (a weight is 1 / half-width**2): it bounds the
weights' range, which Dykstra's passes converge more slowly over."""


@njit(cache=True)
def _pav_kernel(values, weights):
    n = values.size
    level = np.empty(n)
    weight = np.empty(n)
    count = np.empty(n, dtype=np.int64)
    top = 0
    for i in range(n):
        level[top] = values[i]
        weight[top] = weights[i]
        count[top] = 1
        top += 1
        # pool backwards while the last two blocks are out of order
        while top > 1 and level[top - 2] > level[top - 1]:
            total = weight[top - 2] + weight[top - 1]
            level[top - 2] = (level[top - 2] * weight[top - 2]
                              + level[top - 1] * weight[top - 1]) / total
            weight[top - 2] = total
            count[top - 2] += count[top - 1]
            top -= 1
    out = np.empty(n)
    k = 0
    for j in range(top):
        for _ in range(count[j]):
            out[k] = level[j]
            k += 1
    return out


def pool_adjacent_violators(values, weights=None, increasing: bool = True) -> np.ndarray:
    """Weighted isotonic regression of a sequence (pool adjacent violators).

    Parameters
    ----------
    values : array_like float[n]
    weights : array_like float[n], optional
        Positive weights (default 1).
    increasing : bool
        Non-decreasing fit (else non-increasing).

    Returns
    -------
    ndarray float64[n]
        The monotone sequence closest to ``values`` in weighted least squares: each
        block of pooled entries holds its weighted mean.
    """
    y = np.asarray(values, dtype=np.float64)
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=np.float64)
    if y.ndim != 1 or w.shape != y.shape or (w <= 0).any():
        raise ValueError("pool_adjacent_violators needs one sequence and positive weights")
    sign = 1.0 if increasing else -1.0
    return sign * _pav_kernel(sign * y, w)


@njit(cache=True)
def _order_violation(table, top):
    worst = 0.0
    n = table.shape[0]
    for b in range(n):
        for a in range(top):
            worst = max(worst, table[a, b] - table[a + 1, b])
    for a in range(n):
        for b in range(top):
            worst = max(worst, table[a, b + 1] - table[a, b])
    return worst


@njit(cache=True)
def _bimonotone_kernel(values, weight, top, tol, max_passes):
    # Dykstra's alternating projections: each pass projects onto "non-decreasing along the own
    # score" (rows of PAV) and onto "non-increasing along the opponent's" (columns); the
    # increments p, q make the limit the weighted least-squares projection onto both at once
    # (plain alternation only finds some point of the intersection, and slowly).
    n = values.shape[0]
    x = values.copy()
    p = np.zeros_like(x)
    q = np.zeros_like(x)
    passes, worst = 0, _order_violation(x, top)
    while passes < max_passes and worst > tol:
        z = x + p
        for b in range(n):
            z[:top + 1, b] = _pav_kernel(z[:top + 1, b].copy(), weight[:top + 1, b].copy())
        p = x + p - z
        y = z + q
        for a in range(n):
            y[a, :top + 1] = -_pav_kernel(-y[a, :top + 1].copy(), weight[a, :top + 1].copy())
        q = z + q - y
        x = y
        passes += 1
        worst = _order_violation(x, top)
    residual = worst
    # Dykstra converges slowly on noisy tables: finish exactly with the envelope, a running
    # maximum up the own score, then a running minimum along the opponent's (the minimum
    # keeps the rows non-decreasing: each is a minimum of non-decreasing rows); it moves
    # values little once Dykstra has converged (the residual violation says how far it had).
    for b in range(n):
        for a in range(1, top + 1):
            x[a, b] = max(x[a, b], x[a - 1, b])
    for a in range(n):
        for b in range(1, top + 1):
            x[a, b] = min(x[a, b], x[a, b - 1])
    return x, passes, residual


def fit_side_table(table: np.ndarray, half_width: np.ndarray, symmetric: bool = True, *,
                   top: int = MONOTONE_TOP, tol: float = FIT_TOLERANCE,
                   max_passes: int = FIT_MAX_PASSES) -> tuple[np.ndarray, int, float]:
    """The side table made monotone away from the exact-61 zone (and symmetric under self-play).

    Each lead slice (own side leads, opponent side leads) is replaced by its weighted least-
    squares projection onto the tables that are non-decreasing in the own score over own
    0..``top`` (every opponent score) and non-increasing in the opponent's score over opponent
    0..``top`` (every own score): pool-adjacent-violators along each line, combined by Dykstra's
    alternating projections until no ordered pair is out of order by more than ``tol`` or
    :data:`FIT_MAX_PASSES` is reached; a running maximum up the own score and a running minimum
    along the opponent's then remove what is left (the returned ``violation``), so the order
    holds exactly. With ``symmetric`` (self-play: the two sides are interchangeable) the
    opponent-lead slice is the mirror of the own-lead one, ``table[a, b, 1] = 1 - table[b, a,
    0]``, so one slice is fitted, to the precision-weighted mean of the own-lead values and the
    mirrored opponent-lead values (the mirror maps both orders onto themselves). The lot column
    is the mean of the two fitted leads (a lot picks either side's seats with equal chance), so
    it is ordered too, and 0.5 on the diagonal with ``symmetric``. Scores 61 (terminal) keep
    their values.

    Parameters
    ----------
    table : ndarray float64[62, 62, 3]
        :func:`side_table` values (own, opponent, lead).
    half_width : ndarray float64[62, 62, 3]
        Half-widths of the raw values' intervals: weight
        ``1 / max(half, FIT_HALF_WIDTH_FLOOR)**2`` (NaN: weight 1).
    symmetric : bool
    top : int
        Highest score of the ordered range (:data:`MONOTONE_TOP`).

    Returns
    -------
    fitted : ndarray float64[62, 62, 3]
    passes : int
        Dykstra passes of the last slice fitted.
    violation : float
        The largest out-of-order difference Dykstra left (the envelope then removed it).
    """
    table = np.asarray(table, dtype=np.float64)
    if table.shape != (TABLE_SIDE, TABLE_SIDE, 3):
        raise ValueError(f"the side table must have shape (62, 62, 3), found {table.shape}")
    n = TARGET_DISPLAYED
    inner = table[:n, :n, :LEAD_LOT]
    half = np.nan_to_num(np.asarray(half_width, dtype=np.float64)[:n, :n, :LEAD_LOT], nan=1.0)
    weight = 1.0 / np.maximum(half, FIT_HALF_WIDTH_FLOOR) ** 2
    fitted = table.copy()
    passes, violation = 0, 0.0
    if symmetric:
        mirrored_weight = weight[..., LEAD_OPPONENT].T
        total = weight[..., LEAD_OWN] + mirrored_weight
        target = (weight[..., LEAD_OWN] * inner[..., LEAD_OWN]
                  + mirrored_weight * (1.0 - inner[..., LEAD_OPPONENT].T)) / total
        own, passes, violation = _bimonotone_kernel(np.ascontiguousarray(target),
                                                    np.ascontiguousarray(total), int(top),
                                                    float(tol), int(max_passes))
        fitted[:n, :n, LEAD_OWN] = own
        fitted[:n, :n, LEAD_OPPONENT] = 1.0 - own.T
    else:
        for lead in (LEAD_OWN, LEAD_OPPONENT):
            fitted[:n, :n, lead], passes, worst = _bimonotone_kernel(
                np.ascontiguousarray(inner[..., lead]), np.ascontiguousarray(weight[..., lead]),
                int(top), float(tol), int(max_passes))
            violation = max(violation, worst)
    fitted[:n, :n, LEAD_LOT] = fitted[:n, :n, :LEAD_LOT].mean(axis=2)
    return fitted, int(passes), float(violation)


@dataclass
class FittedTables:
    """The own-vs-opponent table of a :class:`WinValues` solved, fitted, and the fit applied to
    every bootstrap replicate (:func:`fitted_tables`).

    Attributes
    ----------
    raw, raw_half : ndarray float64[62, 62, 3]
        :func:`side_table` and the half-width of its 95% percentile interval (0 where every
        replicate agrees; NaN without replicates).
    fitted : ndarray float64[62, 62, 3]
        :func:`fit_side_table` of ``raw``, weighted by ``raw_half`` (the lot diagonal exactly 0.5
        under self-play).
    replicates : ndarray float32[B, 62, 62, 3]
        The same fit of every bootstrap replicate's side table.
    passes : int
    residual : float
        The fit's Dykstra passes and remaining violation (:func:`fit_side_table`).
    """

    raw: np.ndarray = field(repr=False)
    raw_half: np.ndarray = field(repr=False)
    fitted: np.ndarray = field(repr=False)
    replicates: np.ndarray = field(repr=False)
    passes: int = 0
    residual: float = 0.0

    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """The fitted values' 95% percentile interval over the replicates (NaN without)."""
        if self.replicates.shape[0] == 0:
            return np.full(self.fitted.shape, np.nan), np.full(self.fitted.shape, np.nan)
        low, high = np.percentile(self.replicates, [2.5, 97.5], axis=0)
        return low.astype(np.float64), high.astype(np.float64)


def fitted_tables(values: WinValues, symmetric: bool = True) -> FittedTables:
    """The side table of ``values`` fitted, and the same fit on every bootstrap replicate (the
    weights, from the solved values' intervals, are the same for all)."""
    raw = side_table(values, symmetric)
    count = values.replicates.shape[0]
    if count:
        raw_stack = np.stack([side_table(values, symmetric, replicate=b) for b in range(count)])
        raw_low, raw_high = np.percentile(raw_stack, [2.5, 97.5], axis=0)
        raw_half = (raw_high - raw_low) / 2
        raw_half[raw_stack.std(axis=0) == 0] = 0.0  # exact in every replicate
    else:
        raw_stack = np.zeros((0,) + raw.shape)
        raw_half = np.full(raw.shape, np.nan)  # equal weights
    fitted, passes, residual = fit_side_table(raw, raw_half, symmetric)
    replicates = np.zeros(raw_stack.shape, dtype=np.float32)
    for b in range(count):
        replicates[b] = fit_side_table(raw_stack[b], raw_half, symmetric)[0]
    if symmetric:  # 0.5 by construction: exactly, not up to rounding
        diagonal = np.arange(TARGET_DISPLAYED)
        fitted[diagonal, diagonal, LEAD_LOT] = 0.5
        replicates[:, diagonal, diagonal, LEAD_LOT] = 0.5
    return FittedTables(raw, raw_half, fitted, replicates, passes, residual)


# ---------------------------------------------------------------------------
# Allocating rounds where the variance is
# ---------------------------------------------------------------------------
ALLOCATION_REPLICATES = 200
"""Bootstrap replicates of each allocation pass's check (the final intervals take more)."""

ALLOCATION_MARGIN = 0.85
"""An allocation pass aims each half-width at this share of its target: the final bootstrap's
fresh replicates then meet the target despite the pass's percentile noise."""

ALLOCATION_PASSES = 4
"""Passes at most (each a bootstrap check, then more rounds where a target is missed)."""


def half_width_targets(inner: float, outer: float) -> np.ndarray:
    """float64[61, 61]: the target half-width of each own x opponent cell (scores 0..60):
    ``inner`` where both scores are at most :data:`MONOTONE_TOP`, ``outer`` elsewhere."""
    axis = np.arange(TARGET_DISPLAYED)
    inside = (axis[:, None] <= MONOTONE_TOP) & (axis[None, :] <= MONOTONE_TOP)
    return np.where(inside, float(inner), float(outer))


def lot_half_widths(tables: FittedTables, symmetric: bool = True) -> np.ndarray:
    """float64[61, 61]: the fitted lot value's 95% half-width per cell (scores 0..60), the
    quantity the targets bound. On the lot diagonal under self-play, where the lot is 0.5
    exactly, the own-lead value's half-width over root 2 stands in (what the lot's would be
    with the two leads independent): those states' rounds still feed their neighbours."""
    low, high = tables.interval()
    half = (high - low)[:TARGET_DISPLAYED, :TARGET_DISPLAYED] / 2
    lot = half[..., LEAD_LOT].copy()
    if symmetric:
        diagonal = np.arange(TARGET_DISPLAYED)
        lot[diagonal, diagonal] = half[diagonal, diagonal, LEAD_OWN] / np.sqrt(2.0)
    return lot


def state_factors(grid: StateGrid, factor: np.ndarray, symmetric: bool) -> np.ndarray:
    """float64[n_states]: each grid state's share of the own x opponent cells' ``factor``
    (float[61, 61]). A cell (a, b) of the grid holds entity 0 at a and entity 1 at b: it is the
    own side's state of table cell (a, b) and, under self-play (each table value averages both
    sides' perspectives), the mirrored state of (b, a); it takes the larger factor (the two
    agree but for rounding: the fitted table is symmetric). A cell with a negative score (4
    players) is in no table cell: factor 1."""
    cells = grid.cells
    valid = (cells >= 0).all(axis=1)
    own, other = np.clip(cells[:, 0], 0, None), np.clip(cells[:, 1], 0, None)
    cell_factor = factor[own, other]
    if symmetric:
        cell_factor = np.maximum(cell_factor, factor[other, own])
    cell_factor = np.where(valid, cell_factor, 1.0)
    return np.repeat(cell_factor, grid.players)


def allocate_rounds(player: RoundPlayer, rounds_per_state: int, inner: float, outer: float, *,
                    max_rounds: int, symmetric: bool = True, passes: int = ALLOCATION_PASSES,
                    replicates: int = ALLOCATION_REPLICATES, threads=None,
                    progress: bool = False) -> StateRounds:
    """Rounds from every state, more where the table's values are noisiest, until every lot
    value's 95% half-width is within its target (2 and 4 players).

    Design: a lot value's error is its state's own rounds' noise plus what it inherits from
    the states its rounds lead to; both fall as 1/sqrt(rounds) when those states get more, and
    they differ by orders of magnitude over the grid (a state far ahead is nearly decided; a
    round near 61 decides the match). So a pilot of ``rounds_per_state`` rounds everywhere is
    solved and bootstrapped (``replicates``), the fitted table's lot half-width ``h`` per cell
    is read (:func:`lot_half_widths`), and every state of a cell that misses
    :data:`ALLOCATION_MARGIN` of its target ``t`` (:func:`half_width_targets`) gets its rounds
    multiplied by ``(h / (margin t))**2`` (capped at ``max_rounds``); inherited error shrinks
    with the noisy states downstream, which miss their own targets and grow too. Passes repeat
    (at most ``passes``) until no cell misses; the caller's final bootstrap checks the last.
    Rounds ``k`` of a state are always its random-stream rows ``k * n_states + s``, so the
    result is the run that had played those counts from the start; the log is
    :attr:`StateRounds.passes`.
    """
    grid = grid_for(player.players)
    if grid.players not in TABLE_PLAYERS:
        raise ValueError("rounds are allocated by the 2- and 4-player tables' targets")
    rounds = simulate_states(player.players, None, rounds_per_state, threads=threads,
                             progress=progress, player=player)
    targets = half_width_targets(inner, outer)
    for number in range(passes):
        values = win_values(rounds, replicates, progress=progress)
        half = lot_half_widths(fitted_tables(values, symmetric), symmetric)
        ratio = half / (ALLOCATION_MARGIN * targets)
        missing = ratio > 1.0
        entry = {"pass": number, "rounds": rounds.total, "replicates": replicates,
                 "largest_inner": float(np.nanmax(np.where(targets == inner, half, np.nan))),
                 "largest_outer": float(np.nanmax(np.where(targets == inner, np.nan, half))),
                 "cells_missing": int(missing.sum()), "states_raised": 0, "rounds_added": 0}
        rounds.passes.append(entry)
        if not missing.any():
            break
        factor = state_factors(grid, np.where(missing, ratio ** 2, 1.0), symmetric)
        counts = np.where(factor > 1.0, np.ceil(rounds.counts * factor), rounds.counts)
        counts = np.minimum(counts, max(max_rounds, rounds_per_state)).astype(np.int64)
        before = rounds.total
        rounds = extend_rounds(rounds, counts, player, threads=threads, progress=progress)
        entry["states_raised"] = int((factor > 1.0).sum())
        entry["rounds_added"] = rounds.total - before
    return rounds


def adjacent_drops(table: np.ndarray, half_width: np.ndarray, top: int = MONOTONE_TOP,
                   tol: float = 1e-9) -> dict:
    """Count adjacent cells where one more point for a side moves its value the wrong way.

    A *drop* is ``table[a, b] - table[a + 1, b] > tol`` (``tol`` absorbs rounding) (one more own
    point lowers the own side's chance) or ``table[a, b + 1] - table[a, b] > tol`` (one more
    opponent point raises it), over every lead and the valid scores 0..60. It is *beyond its
    interval* when it exceeds the larger half-width of the two cells. ``inside``: pairs whose
    higher score is at most ``top``; ``zone``: pairs within the exact-61 zone (higher score
    ``top + 1`` .. 60).

    Parameters
    ----------
    table, half_width : ndarray float[62, 62, 3]

    Returns
    -------
    dict
        ``inside_drops``, ``inside_beyond``, ``zone_drops``, ``zone_beyond`` (int) and
        ``largest_inside`` (float: the largest drop inside, 0 if none).
    """
    n = TARGET_DISPLAYED
    t = np.asarray(table, dtype=np.float64)[:n, :n]
    h = np.nan_to_num(np.asarray(half_width, dtype=np.float64)[:n, :n], nan=0.0)
    own_drop = t[:-1] - t[1:]  # [a, b]: from own a to a + 1
    own_half = np.maximum(h[:-1], h[1:])
    opp_drop = t[:, 1:] - t[:, :-1]  # [a, b]: from opponent b to b + 1
    opp_half = np.maximum(h[:, :-1], h[:, 1:])
    higher = np.arange(1, n)
    own_inside = np.broadcast_to((higher <= top)[:, None, None], own_drop.shape)
    opp_inside = np.broadcast_to((higher <= top)[None, :, None], opp_drop.shape)
    out = {}
    for name, pick in (("inside", (own_inside, opp_inside)), ("zone", (~own_inside, ~opp_inside))):
        drops = [(d > tol) & p for d, p in zip((own_drop, opp_drop), pick)]
        beyond = [dr & (d > hh) for dr, d, hh in zip(drops, (own_drop, opp_drop),
                                                      (own_half, opp_half))]
        out[f"{name}_drops"] = int(sum(x.sum() for x in drops))
        out[f"{name}_beyond"] = int(sum(x.sum() for x in beyond))
    inside = np.concatenate([own_drop[own_inside], opp_drop[opp_inside]])
    out["largest_inside"] = float(max(0.0, inside.max())) if inside.size else 0.0
    return out
