"""A match of Exact 61 Five Up as a state machine, one action at a time, chance explicit.

:class:`MatchState` is the framework-free core of the bridges (OpenSpiel, PettingZoo, the
human seat): its rounds are carried by the engine's own turn driver (:mod:`core.turns`,
with a stop before every draw: each draw is a chance node here) between the engine's round
steps (:func:`~core.step.begin_round`, :func:`~core.step.close_round`,
:func:`~core.step.count_round`), in the order of the engine's round and match loops
(rulings 5-15), so every workspace field holds what the engine would hold at the same point:
hands, hand sizes, lacking values (a seat's lack is noted with its draw, in both), scores, the
round's and the match's figures, the layout, the round's public ``history`` rows (kept:
``BOARD_KEEP_HISTORY`` is 1) and, at a decision, ``cands`` and ``BOARD_DECISION_*`` (so
:func:`sim.engine.python_seats.seat_view` gives the deciding seat's sealed view). The round's
score events are written to a trace with room for a round.

The rest is apart, as OpenSpiel keeps a game's observer apart from its state: the vocabulary
(phases, node kinds, action codes) in :mod:`sim.bridges.match_codes`; the strings and
tensors (information state, observation, ``*_PIECES``) in :mod:`sim.bridges.match_observer`;
the worlds for search (resampling, a state from a view) in :mod:`sim.bridges.match_worlds`;
the exact61-record/1 export in :mod:`sim.bridges.match_record`. :class:`MatchState`'s
methods delegate to them, and this module re-exports their public names.

Nodes and actions
-----------------
``current_player()`` is a seat, :data:`CHANCE` or :data:`TERMINAL`.

Chance nodes (outcomes uniform):

* the lot (match start, and after a blocked round, ruling 14): outcome = the leading seat
  ``0..players-1``;
* the deal: ``HAND_SIZE * players`` nodes, seat 0's five tiles, then seat 1's, ...; outcome =
  the tile index ``0..27`` (:data:`core.tiles.TILES` order), uniform over the tiles not dealt;
* a forced draw (ruling 5): outcome = the tile drawn, uniform over the tiles not yet dealt or
  drawn. A seat drawing an unplayable tile meets another draw node while tiles are left.

At most :data:`MAX_CHANCE_OUTCOMES` outcomes. After a domino the dominoer leads the next round
(no lot). A decision node exists whenever the seat to move has at least one legal placement
(also exactly one); a seat that cannot play with an empty boneyard passes automatically (and
the block that may follow is settled at once, ruling 6).

Player actions are the distinct legal placements of ruling 4, encoded by
:func:`~sim.bridges.match_codes.encode_action` (:data:`~sim.bridges.match_codes.NUM_ACTIONS`
= 3164 codes; :mod:`sim.bridges.match_codes`).

Returns (utility)
-----------------
Zero until terminal. A finished match (an entity at exactly 305 raw) gives every seat of the
winning entity ``+1`` and every other seat ``-1 / (n_entities - 1)``. A match stopped
unfinished (the round limit, or the end of the round with ``one_round``) gives each seat its
entity's ``(raw score - mean raw score of the entities) / 305``. Either way the entity
utilities sum to zero (so do the seats': every entity has the same number of seats), and
they lie in [-1, 1] while every score is within [-305, 305] (scores have no floor, ruling 10,
so an extreme four-player match could leave that range).

Strings, tensors, resampling and records
----------------------------------------
See :mod:`sim.bridges.match_observer` (``information_state_string``, ``observation_string``,
the tensors and their pieces: they depend only on what the observer may know, so resampling
the hidden tiles leaves them unchanged), :mod:`sim.bridges.match_worlds`
(:meth:`MatchState.resample_from_infostate`, :meth:`MatchState.from_view`: worlds for search,
whose past chance outcomes are not rewritten; another seat's information state in one still
names the tiles truly dealt to and drawn by that seat, and its hand now, so equal information
states always have equal legal actions, which ISMCTS relies on) and
:mod:`sim.bridges.match_record` (:meth:`MatchState.record`).
"""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from sim.bridges import match_observer
from sim.bridges.match_codes import (ALL_TILES, CHANCE, MAX_CHANCE_OUTCOMES, MAX_MOVES_PER_ROUND,
    NUM_ACTIONS, TERMINAL, Phase, decode_action, encode_action, tiles_of)
from sim.bridges.match_observer import (INFORMATION_STATE_OFFSETS, INFORMATION_STATE_PIECES,
    INFORMATION_STATE_SHAPE, OBSERVATION_OFFSETS, OBSERVATION_PIECES, OBSERVATION_SHAPE,
    PUBLIC_INFORMATION_STATE_SHAPE, PUBLIC_OBSERVATION_SHAPE)
from sim.bridges.match_record import RoundSnapshot, match_record
from sim.bridges.match_worlds import consistent_deal, deal_hidden, infostate_view
from core import state as K
from core.state import Trace, new_workspace
from core.step import begin_round, close_round, count_round
from core.turns import advance, advance_draw, set_turn, start_turns, wait_decision
from sim.engine.python_seats import seat_view
from core.tiles import DEFAULT_MAX_ROUNDS, HAND_SIZE, N_TILES, TARGET_RAW, entities_for

RETURN_SCALE = TARGET_RAW
"""An unfinished match's utility is a raw score difference divided by this (305)."""

IDENTITY_DEAL = np.arange(N_TILES, dtype=np.int64)
"""``ws.deal`` at a round's start: the tiles fixed one by one as they are dealt or drawn."""


def round_trace() -> Trace:
    """The trace a state's steps write: room for one round's score events (reset at each
    round's start), nothing else (the public history is kept in the workspace)."""
    return Trace(np.zeros((0, K.ROUND_FIELDS), dtype=np.int32),
                 np.zeros((0, N_TILES), dtype=np.int8),
                 np.zeros((0, K.ACTION_FIELDS), dtype=np.int16),
                 np.zeros((K.MAX_EVENTS_PER_ROUND, K.EVENT_FIELDS), dtype=np.int32),
                 np.zeros((0, K.ANSWER_FIELDS), dtype=np.int64))


# ---------------------------------------------------------------------------
# The state machine
# ---------------------------------------------------------------------------
class MatchState:
    """A match (or one round) of Exact 61 Five Up, driven one action at a time.

    Parameters
    ----------
    players : int
        2, 3 or 4 (partnerships {0, 2} and {1, 3} at four).
    max_rounds : int
        The match stops unfinished after this many rounds (ruling 15).
    one_round : bool
        The game ends when the first round ends.
    scores : sequence of int, optional
        Raw score of each entity at the start (default all 0).

    See the module docstring for the nodes, the action codes and the returns, and
    :mod:`sim.bridges.match_observer` for the strings and the tensors.
    """

    __slots__ = (
        "_actions",
        "_codes",
        "_cursor",
        "_entity_of_seat",
        "_finished",
        "_leader",
        "_legal",
        "_phase",
        "_pool",
        "_rounds_done",
        "_seat",
        "_start_scores",
        "_trace",
        "_winner",
        "entities",
        "max_rounds",
        "n_entities",
        "one_round",
        "players",
        "ws",
    )

    def __init__(self, players: int = 2, max_rounds: int = DEFAULT_MAX_ROUNDS,
                 one_round: bool = False, scores=None):
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, not {players!r}")
        if int(max_rounds) < 1:
            raise ValueError(f"max_rounds must be at least 1, not {max_rounds!r}")
        self.players = int(players)
        self.entities = tuple(entities_for(self.players))
        self.n_entities = max(self.entities) + 1
        self.max_rounds = int(max_rounds)
        self.one_round = bool(one_round)
        self._entity_of_seat = K.ENTITY_OF_SEAT[self.players, : self.players].copy()
        self.ws = new_workspace()
        self.ws.board[K.BOARD_KEEP_HISTORY] = 1  # the strings, tensors and views show it
        self._trace = round_trace()
        start = [0] * self.n_entities if scores is None else [int(s) for s in scores]
        if len(start) != self.n_entities or any(s > TARGET_RAW for s in start):
            raise ValueError(f"scores must be {self.n_entities} raw scores of at most {TARGET_RAW}")
        self._start_scores = tuple(start)
        self.ws.scores[: self.n_entities] = start
        self.ws.match_totals[K.M_WINNER] = K.NO_ENTITY
        self._phase = Phase.LOT
        self._seat = K.NO_SEAT
        self._leader = K.NO_SEAT
        self._rounds_done = 0
        self._cursor = 0
        self._pool = ALL_TILES
        self._codes = ()
        self._legal = []
        self._actions = []
        self._finished = []
        self._winner = K.NO_ENTITY

    # -- copying --------------------------------------------------------------------------
    def clone(self) -> MatchState:
        """An independent copy (the workspace and event arrays copied; immutable parts shared)."""
        other = object.__new__(MatchState)
        other.ws = K.Workspace._make([array.copy() for array in self.ws])
        # Only the events are written: the trace's other arrays have no rows.
        other._trace = self._trace._replace(events=self._trace.events.copy())
        for name in ("players", "entities", "n_entities", "max_rounds", "one_round",
                     "_entity_of_seat", "_phase", "_seat", "_leader", "_rounds_done",
                     "_cursor", "_pool", "_codes", "_legal", "_winner", "_start_scores"):
            setattr(other, name, getattr(self, name))
        other._actions = self._actions.copy()
        other._finished = self._finished.copy()
        return other

    def __deepcopy__(self, memo) -> MatchState:
        # copy.deepcopy (OpenSpiel clones Python states with it) gets the cheap clone.
        return self.clone()

    # -- nodes ----------------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to place, :data:`CHANCE` or :data:`TERMINAL`."""
        phase = self._phase
        if phase == Phase.PLAY:
            return self._seat
        if phase == Phase.OVER:
            return TERMINAL
        return CHANCE

    def is_chance_node(self) -> bool:
        """True at a lot, a deal or a draw."""
        return self._phase in (Phase.LOT, Phase.DEAL, Phase.DRAW)

    def is_terminal(self) -> bool:
        """True once the match (or the round, with ``one_round``) is over."""
        return self._phase == Phase.OVER

    # Read-only views of the private fields that the moves update.
    phase = property(attrgetter("_phase"), doc="What the state waits for (a :class:`Phase`).")
    mover = property(attrgetter("_seat"), doc="The seat to place or to draw (``NO_SEAT`` at a lot, "
                                              "a deal and the end).")
    leader = property(attrgetter("_leader"), doc="The round's leader (``NO_SEAT`` before the first "
                                                 "lot).")
    tiles_taken = property(attrgetter("_cursor"), doc="Tiles dealt or drawn so far this round (the "
                                                      "first ``tiles_taken`` of ``ws.deal``).")
    rounds_played = property(attrgetter("_rounds_done"), doc="Rounds finished so far.")
    winner = property(attrgetter("_winner"), doc="The entity that reached 305 raw, or "
                                                 "``NO_ENTITY``.")
    start_scores = property(attrgetter("_start_scores"), doc="Raw score of each entity when "
                                                             "the match began (``scores``).")

    @property
    def finished_rounds(self) -> tuple[RoundSnapshot, ...]:
        """Every finished round, in order (:mod:`sim.bridges.match_record`)."""
        return tuple(self._finished)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the chance node, outcomes ascending (uniform)."""
        if self._phase == Phase.LOT:
            p = 1.0 / self.players
            return [(seat, p) for seat in range(self.players)]
        if self._phase not in (Phase.DEAL, Phase.DRAW):
            raise ValueError("not a chance node")
        tiles = tiles_of(self._pool)
        p = 1.0 / len(tiles)
        return [(t, p) for t in tiles]

    def legal_actions(self) -> list[int]:
        """Sorted action codes of the seat to move (empty at chance and terminal nodes)."""
        if self._phase != Phase.PLAY:
            return []
        return list(self._legal)

    def history(self) -> list[int]:
        """Every action applied since ``__init__`` (chance outcomes and placements), in order."""
        return list(self._actions)

    def scores(self) -> list[int]:
        """Raw score of each entity."""
        return [int(s) for s in self.ws.scores[: self.n_entities]]

    def returns(self) -> list[float]:
        """Per seat utility (module docstring); zeros until terminal."""
        if self._phase != Phase.OVER:
            return [0.0] * self.players
        if self._winner != K.NO_ENTITY:
            lose = -1.0 / (self.n_entities - 1)
            values = [1.0 if e == self._winner else lose for e in range(self.n_entities)]
        else:
            raw = self.scores()
            mean = sum(raw) / self.n_entities
            values = [(s - mean) / RETURN_SCALE for s in raw]
        return [values[e] for e in self.entities]

    # -- applying -------------------------------------------------------------------------
    def apply_action(self, action: int) -> None:
        """Apply a chance outcome or a placement code; ValueError if it is not legal here."""
        action = int(action)
        phase = self._phase
        if phase == Phase.PLAY:
            try:
                self._codes.index(action)
            except ValueError:
                raise ValueError(f"action {action} is not a legal placement of seat "
                                 f"{self._seat}") from None
            self._actions.append(action)
            self._place(action)
        elif phase == Phase.DEAL or phase == Phase.DRAW:
            if not (0 <= action < N_TILES and self._pool >> action & 1):
                raise ValueError(f"tile {action} cannot be dealt or drawn: it is not in the pool")
            self._actions.append(action)
            self._take_tile(action)
            if phase == Phase.DEAL:
                self._dealt()
            else:
                self._drawn(action)
        elif phase == Phase.LOT:
            if not 0 <= action < self.players:
                raise ValueError(f"the lot picks a seat 0..{self.players - 1}, not {action}")
            self._actions.append(action)
            self._start_round(action)
        else:
            raise ValueError("the game is over")

    def _take_tile(self, tile: int) -> None:
        """Fix ``tile`` as the next dealt or drawn tile of ``ws.deal`` (a permutation whose
        first ``_cursor`` entries are the round's dealt tiles, then its draws, in order)."""
        deal = self.ws.deal
        cursor = self._cursor
        tail = deal[cursor:]
        position = cursor + int((tail == tile).argmax())
        deal[position] = deal[cursor]
        deal[cursor] = tile
        self._cursor = cursor + 1
        self._pool &= ~(1 << tile)

    def _start_round(self, leader: int) -> None:
        """Begin the round as the engine does before its turn loop (the trace's events from
        row 0)."""
        ws = self.ws
        begin_round(ws, leader)
        ws.board[K.BOARD_DECISION_COUNT] = 0
        ws.cursor[:] = 0
        ws.deal[:] = IDENTITY_DEAL
        self._cursor = 0
        self._pool = ALL_TILES
        self._leader = leader
        self._seat = K.NO_SEAT
        self._phase = Phase.DEAL

    def _dealt(self) -> None:
        ws = self.ws
        cursor = self._cursor
        tile = int(ws.deal[cursor - 1])
        seat = (cursor - 1) // HAND_SIZE
        ws.hands[seat] |= 1 << tile
        ws.hand_sizes[seat] += 1
        if cursor == HAND_SIZE * self.players:
            leader = self._leader
            # the turn driver, with a stop before every draw (a chance node here)
            self._stopped(start_turns(ws, self._trace, self.players, self._entity_of_seat, leader,
                                      cursor, leader, 1))

    def _stopped(self, end: int) -> None:
        """Where the turn driver stopped: a decision, a draw node, or the round's end."""
        end = int(end)
        if end != K.END_NONE:
            self._end_round(end)
            return
        board = self.ws.board
        seat = int(board[K.BOARD_TURN_SEAT])
        count = int(board[K.BOARD_DECISION_COUNT])
        if count > 0:
            self._decide(seat, count)
        else:
            # A draw node. The driver notes the seat's lack with its draw, not before: until the
            # seat draws, no other seat can tell a seat about to draw from one about to place,
            # so the public lacking values must not tell either.
            self._seat = seat
            self._phase = Phase.DRAW

    def _decide(self, seat: int, count: int) -> None:
        """Enter the decision of ``seat`` over ``ws.cands[:count]`` (the driver's)."""
        rows = self.ws.cands[:count, : K.CAND_JOINED + 1].tolist()
        codes = tuple(encode_action(t, p, s, j) for t, p, s, j in rows)
        self._codes = codes
        self._legal = sorted(codes)
        self._seat = seat
        self._phase = Phase.PLAY

    def _place(self, action: int) -> None:
        """The seat to move places ``action`` (the core's step, with its score event and a
        domino's settlement), then what follows."""
        row = self._codes.index(action)
        self._stopped(advance(self.ws, self._trace, self.players, self._entity_of_seat, row))

    def _drawn(self, tile: int) -> None:
        """The seat in turn draws ``tile`` (fixed at ``ws.deal[cursor - 1]``), then what follows."""
        self._stopped(advance_draw(self.ws, self._trace, self.players, self._entity_of_seat))

    def _end_round(self, end: int) -> None:
        """Close and count the round as the engine does, keep it for the record, and go on:
        a lot after a block, the dominoer's deal after a domino, or the end."""
        ws = self.ws
        stats = ws.round_stats
        close_round(ws, self.players)
        self._winner = int(count_round(ws, self.players, end, self._rounds_done, self._leader))
        n_history = int(ws.board[K.BOARD_HISTORY])
        n_events = int(ws.cursor[K.CURSOR_EVENTS])
        self._finished.append(RoundSnapshot(
            self._leader,
            ws.deal[: self._cursor].tolist(),
            self._pool,
            ws.history[:n_history].tolist(),
            tuple(tuple(row) for row in self._trace.events[:n_events].tolist()),
            end,
            int(stats[K.R_WINNER]),
            tuple(self.scores()),
        ))
        self._rounds_done += 1
        self._codes = ()
        self._legal = []
        if self._winner != K.NO_ENTITY or self.one_round or self._rounds_done >= self.max_rounds:
            self._phase = Phase.OVER
            self._seat = K.NO_SEAT
        elif end == K.END_BLOCKED:
            self._phase = Phase.LOT
            self._seat = K.NO_SEAT
        else:
            self._start_round(int(stats[K.R_DOMINOER]))

    # -- strings and tensors (sim.bridges.match_observer) ------------------------------------
    def action_to_string(self, seat: int, action: int) -> str:
        """A short text for ``action`` taken by ``seat`` (``CHANCE`` for an outcome)."""
        return match_observer.action_to_string(self, seat, action)

    def information_state_string(self, seat: int) -> str:
        """Everything ``seat`` knows, as text (:mod:`sim.bridges.match_observer`)."""
        return match_observer.information_state_string(self, seat)

    def observation_string(self, seat: int) -> str:
        """The current public state plus ``seat``'s hand, as text."""
        return match_observer.observation_string(self, seat)

    def observation_tensor(self, seat: int) -> np.ndarray:
        """float32[OBSERVATION_SHAPE]: the public state and ``seat``'s hand."""
        return match_observer.observation_tensor(self, seat)

    def information_state_tensor(self, seat: int) -> np.ndarray:
        """float32[INFORMATION_STATE_SHAPE]: everything ``seat`` knows."""
        return match_observer.information_state_tensor(self, seat)

    def private_observation_string(self, seat: int) -> str:
        """What ``seat`` alone sees now, as text (its hand, whether it must draw)."""
        return match_observer.private_observation_string(self, seat)

    def private_observation_tensor(self, seat: int) -> np.ndarray:
        """float32[PRIVATE_OBSERVATION_SHAPE]: ``seat``'s observation pieces the public lacks."""
        return match_observer.private_observation_tensor(self, seat)

    def public_observation_string(self) -> str:
        """The current public state, as text: the same for every seat."""
        return match_observer.observation_string(self, match_observer.PUBLIC)

    def public_observation_tensor(self) -> np.ndarray:
        """float32[PUBLIC_OBSERVATION_SHAPE]: the current public state."""
        return match_observer.observation_tensor(self, match_observer.PUBLIC)

    def public_information_state_string(self) -> str:
        """Everything every seat knows (the round's public history), as text."""
        return match_observer.information_state_string(self, match_observer.PUBLIC)

    def public_information_state_tensor(self) -> np.ndarray:
        """float32[PUBLIC_INFORMATION_STATE_SHAPE]: everything every seat knows."""
        return match_observer.information_state_tensor(self, match_observer.PUBLIC)

    # -- search and strategies (sim.bridges.match_worlds) -----------------------------------
    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> MatchState:
        """A state ``seat`` cannot tell from this one, the hidden tiles redrawn (for search).

        The other hands and the undealt tiles are drawn with
        :func:`sim.bridges.match_worlds.deal_hidden` on ``seat``'s view, consistently with what
        every draw and pass revealed; ``seat``'s own tiles are kept. Past chance outcomes are
        not rewritten (module docstring).
        """
        other = self.clone()
        if self._phase in (Phase.LOT, Phase.OVER):
            return other  # nothing hidden bears on the rest of the game
        view = infostate_view(other.ws, self.players, seat, N_TILES - self._cursor)
        other._pool = deal_hidden(other.ws, view, self.players, seat, rng)
        return other

    @classmethod
    def from_view(cls, view, rng: np.random.Generator) -> MatchState:
        """A one-round state at the decision of a sealed view (a root for search).

        Parameters
        ----------
        view : PythonView or PlayerView
            A seat's view at its decision (:func:`sim.engine.python_seats.seat_view`).
        rng : numpy.random.Generator
            Draws the hidden tiles.

        Returns
        -------
        MatchState
            ``one_round=True``, at ``view.seat``'s decision over ``view.cands``, with the view's
            scores, layout, hand sizes, lacking values and public history; the seat's own hand;
            the other hands and the boneyard dealt as :meth:`resample_from_infostate` does.
            Its ``history()`` starts here (empty), the round's score events so far are not
            known (``record`` does not apply), and ``ws.deal`` holds a deal consistent with the
            play (:func:`sim.bridges.match_worlds.consistent_deal`), not necessarily the true one.
        """
        players = int(view.players)
        n_entities = int(K.N_ENTITIES[players])
        state = cls(players, max_rounds=1, one_round=True,
                    scores=[int(s) for s in view.scores[:n_entities]])
        seat = int(view.seat)
        n_history = int(view.n_history)
        history = np.asarray(view.history[:n_history], dtype=np.int64)
        leader = int(history[0, K.H_SEAT]) if n_history else seat
        state._start_round(leader)
        ws = state.ws
        n_nodes = int(view.n_nodes)
        n_open = int(view.n_open_nodes)
        ws.nodes[:n_nodes] = view.nodes[:n_nodes]
        ws.open_count[:] = view.open_count
        ws.open_nodes[:n_open] = view.open_nodes[:n_open]
        ws.history[:n_history] = history
        ws.hand_sizes[:] = view.hand_sizes
        ws.lacking[:] = view.lacking
        board = ws.board
        board[K.BOARD_NODES] = n_nodes
        board[K.BOARD_TOTAL] = view.total
        board[K.BOARD_OPEN_VALUES] = view.open_values
        board[K.BOARD_PLAYED] = view.played
        board[K.BOARD_OPEN_NODES] = n_open
        board[K.BOARD_HISTORY] = n_history
        kinds = history[:, K.H_KIND]
        stats = ws.round_stats
        stats[K.R_ACTIONS] = n_history
        stats[K.R_PLACEMENTS] = int((kinds == K.ACTION_PLAY).sum())
        stats[K.R_DRAWS] = int((kinds == K.ACTION_DRAW).sum())
        stats[K.R_PASSES] = int((kinds == K.ACTION_PASS).sum())
        if n_history:
            stats[K.R_OPENING_TILE] = history[0, K.H_TILE]
            stats[K.R_OPENING_POINTS] = history[0, K.H_POINTS]
        state._cursor = N_TILES - int(view.boneyard_size)
        ws.hands[seat] = int(view.hand)
        state._pool = deal_hidden(ws, view, players, seat, rng)
        order = consistent_deal(ws, players, history.tolist(), state._pool)
        if order is not None:
            ws.deal[:] = order
        count = int(view.n_candidates)
        ws.cands[:count] = view.cands[:count]
        set_turn(ws, seat, state._cursor, leader, 1)
        wait_decision(ws, seat, state._cursor, count)
        state._decide(seat, count)
        return state

    def view(self, params):
        """The deciding seat's sealed :class:`strategies.python_view.PythonView`.

        Parameters
        ----------
        params : float64[players, P]
            Strategy parameters per seat.
        """
        if self._phase != Phase.PLAY:
            raise ValueError("a view exists only at a decision node")
        return seat_view(self.ws, self.players, np.asarray(params, dtype=np.float64))

    # -- records (sim.bridges.match_record) ---------------------------------------------------
    def record(self, strategies: list[str], seed: int = 0, match: int = 0) -> dict:
        """The exact61-record/1 object of the rounds finished so far.

        ``five-up verify`` accepts it when the state is terminal. A record starts from zero
        scores (exact61-record/1 has no start scores), so a state started from other scores
        raises ValueError. The match-level key ``max_rounds`` is the round limit (1 with
        ``one_round``).
        """
        return match_record(self, strategies, seed, match)

    def __str__(self) -> str:
        return match_observer.state_text(self)


__all__ = [
    "CHANCE",
    "DEFAULT_MAX_ROUNDS",
    "INFORMATION_STATE_OFFSETS",
    "INFORMATION_STATE_PIECES",
    "INFORMATION_STATE_SHAPE",
    "MAX_CHANCE_OUTCOMES",
    "MAX_MOVES_PER_ROUND",
    "NUM_ACTIONS",
    "OBSERVATION_OFFSETS",
    "OBSERVATION_PIECES",
    "OBSERVATION_SHAPE",
    "PUBLIC_INFORMATION_STATE_SHAPE",
    "PUBLIC_OBSERVATION_SHAPE",
    "RETURN_SCALE",
    "TERMINAL",
    "MatchState",
    "Phase",
    "decode_action",
    "encode_action",
    "round_trace",
]
