"""A match of Exact 61 Five Up as a state machine, one action at a time, chance explicit.

:class:`MatchState` is the framework-free core of the bridges (OpenSpiel, PettingZoo): it
drives an engine :class:`sim.core.state.Workspace` with the engine's rule primitives
(:mod:`sim.core.rules`) in the order of :func:`sim.engine.play.play_dealt_round` and
:func:`sim.engine.play.play_match` (rulings 5-15), so every workspace field holds what the
engine would hold at the same point: hands, hand sizes, lacking values, scores, the layout,
the round's public ``history`` rows and, at a decision, ``cands`` and ``BOARD_DECISION_*``
(so :func:`sim.engine.python_seats.seat_view` gives the deciding seat's sealed view).

Nodes and actions
-----------------
``current_player()`` is a seat, :data:`CHANCE` or :data:`TERMINAL`.

Chance nodes (outcomes uniform):

* the lot (match start, and after a blocked round, ruling 14): outcome = the leading seat
  ``0..players-1``;
* the deal: ``HAND_SIZE * players`` nodes, seat 0's five tiles, then seat 1's, ...; outcome =
  the tile index ``0..27`` (:data:`sim.tiles.TILES` order), uniform over the tiles not dealt;
* a forced draw (ruling 5): outcome = the tile drawn, uniform over the tiles not yet dealt or
  drawn. A seat drawing an unplayable tile meets another draw node while tiles are left.

At most :data:`MAX_CHANCE_OUTCOMES` outcomes. After a domino the dominoer leads the next round
(no lot). A decision node exists whenever the seat to move has at least one legal placement
(also exactly one); a seat that cannot play with an empty boneyard passes automatically (and
the block that may follow is settled at once, ruling 6).

Player actions are the distinct legal placements of ruling 4, encoded by
:func:`encode_action` (:data:`NUM_ACTIONS` = 3164 codes):

* the opening: ``action = tile`` (0..27);
* otherwise ``OPENING_ACTIONS + ((parent * 2 + (side - SIDE_LINE)) * N_TILES + tile) * 2 + h``
  with ``parent`` the layout node played on, ``side`` ``SIDE_LINE`` or ``SIDE_ARM``, and
  ``h = 1`` when the joined value is the tile's high half of a non-double, else 0.

Returns (utility)
-----------------
Zero until terminal. A finished match (an entity at exactly 305 raw) gives every seat of the
winning entity ``+1`` and every other seat ``-1 / (n_entities - 1)``. A match stopped
unfinished (the round limit, or the end of the round with ``one_round``) gives each seat its
entity's ``(raw score - mean raw score of the entities) / 305``. Either way the entity
utilities sum to zero (so do the seats': every entity has the same number of seats), and
they lie in [-1, 1] while every score is within [-305, 305] (scores have no floor, ruling 10,
so an extreme four-player match could leave that range).

Strings
-------
``information_state_string(seat)``: the seat, the table, the round number, the scores and
the leader, the tiles dealt to the seat and its hand now, and every action of the current round as the seat
saw it (its own draws with the tile, the others' as ``draws``); at the end all hands.
Earlier rounds enter through the scores and the round number only: a round's deal is fresh,
so nothing else of a finished round bears on the rest of the match (perfect recall within a
round). ``observation_string(seat)``: the current public state plus the seat's hand.

Tensors (float32, flat; ``*_PIECES`` give every slice, in order)
---------------------------------------------------------------
:data:`OBSERVATION_PIECES` (``observation_tensor``, shape :data:`OBSERVATION_SHAPE`):

``observer`` : (4,)
    One-hot of the observing seat.
``players`` : (3,)
    One-hot of the table size (2, 3, 4).
``phase`` : (5,)
    One-hot of :class:`Phase` (lot, deal, play, draw, over).
``to_move`` : (4,)
    One-hot of the seat to place or draw (zeros at a lot, a deal and the end).
``leader`` : (4,)
    One-hot of the round's leader (zeros during a lot).
``round`` : (1,)
    Rounds finished / ``max_rounds``.
``scores`` : (4,)
    Raw score of each entity / 305 (0 past the last entity).
``hand`` : (28,)
    The observer's hand (1 per tile held).
``layout`` : (28,)
    Tiles on the layout.
``hand_sizes`` : (4,)
    Tiles in each seat's hand (a count).
``boneyard`` : (1,)
    Tiles left to deal or draw (a count).
``lacking`` : (4, 7)
    Per seat, the values it is publicly known to lack (``Workspace.lacking``).
``open_count`` : (7,)
    Open connections per value (a count).
``total`` : (1,)
    The layout's scoring total (raw).
``nodes`` : (28 * 32,)
    Row-major ``[28, 32]``: layout node ``k`` (in play order) is row ``k``: one-hot tile (28),
    line side A open, line side B open, at least one arm open, both arms open. (Flat so that
    OpenSpiel's playthrough prints it compactly.)
``shown`` : (4, 28)
    Every seat's hand once the game is over (settlement shows them); zeros before.

:data:`INFORMATION_STATE_PIECES` (``information_state_tensor``, shape
:data:`INFORMATION_STATE_SHAPE`): the observation pieces, then

``dealt`` : (28,)
    The tiles dealt to the observer this round.
``history`` : (143 * 72,)
    Row-major ``[MAX_ACTIONS_PER_ROUND = 143, 72]`` (flat like ``nodes``): row ``k`` = the
    round's ``k``-th public action (``Workspace.history``): one-hot seat (4),
    one-hot kind (play, draw, pass: 3), one-hot tile (28: the placed tile, or the observer's
    own drawn tile; zeros for another seat's draw and a pass), one-hot parent node (28), one-hot
    side (line, arm: 2; zeros for the opening), one-hot joined value (7; plays only).

Both tensors depend only on what the observer may know: resampling the hidden tiles
(:meth:`MatchState.resample_from_infostate`) leaves them, and the information state string,
unchanged.

Resampling (for search)
-----------------------
:meth:`MatchState.resample_from_infostate` redraws the other hands and the undealt tiles with
:func:`strategies.inference.hand_groups` and :func:`strategies.inference.sample_grouped_world`
on the seat's view, the seat's own tiles kept. The new state plays on exactly like a real one,
but its recorded past chance outcomes (``ws.deal``, the history of chance actions) are not
rewritten to match the new hands: it is a world for search (ISMCTS), not for :meth:`record`.
(Another seat's information state in it still names the tiles truly dealt to and drawn by
that seat; it also names the seat's hand now, so equal information states always have equal
legal actions, which ISMCTS relies on.) :meth:`MatchState.from_view` builds such a world from
a seat's sealed view alone: a one-round state at that decision, the root of a search run by a
strategy (``sim.bridges.openspiel_bots``).

Records
-------
:meth:`MatchState.record` exports the finished rounds as exact61-record/1 (``five-up verify``
accepts it when the state is terminal). A round's ``boneyard`` lists the tiles drawn, in draw
order, then the never-drawn ones in tile order (any order of those is consistent with the play).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from sim.core import state as K
from sim.core.rules import (
    blocked_credit,
    domino_parts,
    hand_pips,
    list_openings,
    list_placements,
    no_hand_can_play,
    open_layout,
    place_tile,
    placement_points,
    playable_tiles,
    rank_blocked_hands,
)
from sim.core.state import new_workspace
from sim.engine.export import SIDE_NAMES, event_object
from sim.engine.frames import END_NAMES
from sim.engine.python_seats import seat_view
from sim.records import FORMAT
from sim.tiles import (
    DEFAULT_MAX_ROUNDS,
    HAND_SIZE,
    N_TILES,
    N_VALUES,
    TARGET_RAW,
    TILES,
    entities_for,
    tile_name,
)
from strategies.inference import MAX_GROUPS, hand_groups, sample_grouped_world

CHANCE = -1
"""``current_player()`` at a chance node (OpenSpiel's ``PlayerId.CHANCE``)."""

TERMINAL = -4
"""``current_player()`` once the game is over (OpenSpiel's ``PlayerId.TERMINAL``)."""

MAX_CHANCE_OUTCOMES = N_TILES
"""A deal or a draw has at most 28 outcomes (tile indices); a lot has ``players``."""

OPENING_ACTIONS = N_TILES
"""Codes 0..27: open with that tile."""

SIDES_PER_PARENT = 2
"""``SIDE_LINE`` and ``SIDE_ARM``: the sides a non-opening placement can take."""

JOINED_HALVES = 2
"""Which half of a non-double joins the connection: the low one (0) or the high one (1)."""

NUM_ACTIONS = OPENING_ACTIONS + K.MAX_NODES * SIDES_PER_PARENT * N_TILES * JOINED_HALVES
"""Distinct player action codes: 28 + 28 * 2 * 28 * 2 = 3164."""

MAX_MOVES_PER_ROUND = 1 + N_TILES + N_TILES
"""Applied actions of one round at most: a lot, 28 deals and draws, 28 placements."""

RETURN_SCALE = TARGET_RAW
"""An unfinished match's utility is a raw score difference divided by this (305)."""

N_ACTION_KINDS = 3
"""Public action kinds of the history: ``ACTION_PLAY``, ``ACTION_DRAW``, ``ACTION_PASS``."""


class Phase(IntEnum):
    """What the state waits for."""

    LOT = 0
    """A chance node: the leader of the next round."""
    DEAL = 1
    """A chance node: the next dealt tile."""
    PLAY = 2
    """A decision: the seat to move places a tile."""
    DRAW = 3
    """A chance node: the tile the seat to move draws."""
    OVER = 4
    """Terminal."""


N_PHASES = len(Phase)

_TABLE_SIZES = K.MAX_PLAYERS - 1
"""Entries of the ``players`` one-hot (2, 3, 4 players)."""

NODE_WIDTH = N_TILES + 4
"""Per layout node: one-hot tile, line side A open, line side B open, >= 1 arm open, 2 arms open."""

HISTORY_WIDTH = K.MAX_PLAYERS + N_ACTION_KINDS + N_TILES + K.MAX_NODES + SIDES_PER_PARENT + N_VALUES
"""Per history row: seat, kind (play/draw/pass), tile, parent, side (line/arm), joined value."""

OBSERVATION_PIECES = (
    ("observer", (K.MAX_PLAYERS,)),
    ("players", (_TABLE_SIZES,)),
    ("phase", (N_PHASES,)),
    ("to_move", (K.MAX_PLAYERS,)),
    ("leader", (K.MAX_PLAYERS,)),
    ("round", (1,)),
    ("scores", (K.MAX_ENTITIES,)),
    ("hand", (N_TILES,)),
    ("layout", (N_TILES,)),
    ("hand_sizes", (K.MAX_PLAYERS,)),
    ("boneyard", (1,)),
    ("lacking", (K.MAX_PLAYERS, N_VALUES)),
    ("open_count", (N_VALUES,)),
    ("total", (1,)),
    ("nodes", (K.MAX_NODES * NODE_WIDTH,)),
    ("shown", (K.MAX_PLAYERS, N_TILES)),
)
"""(name, shape) of each slice of the observation tensor, in order (module docstring)."""

INFORMATION_STATE_PIECES = OBSERVATION_PIECES + (
    ("dealt", (N_TILES,)),
    ("history", (K.MAX_ACTIONS_PER_ROUND * HISTORY_WIDTH,)),
)
"""(name, shape) of each slice of the information state tensor, in order."""


def _piece_offsets(pieces) -> dict[str, tuple[int, tuple[int, ...]]]:
    offsets = {}
    start = 0
    for name, shape in pieces:
        offsets[name] = (start, shape)
        start += int(np.prod(shape))
    return offsets


OBSERVATION_OFFSETS = _piece_offsets(OBSERVATION_PIECES)
"""name -> (first index in the flat tensor, shape)."""

INFORMATION_STATE_OFFSETS = _piece_offsets(INFORMATION_STATE_PIECES)
"""name -> (first index in the flat tensor, shape)."""

OBSERVATION_SHAPE = (sum(int(np.prod(shape)) for _, shape in OBSERVATION_PIECES),)
"""Shape of :meth:`MatchState.observation_tensor` (flat)."""

INFORMATION_STATE_SHAPE = (sum(int(np.prod(shape)) for _, shape in INFORMATION_STATE_PIECES),)
"""Shape of :meth:`MatchState.information_state_tensor` (flat)."""

# Column offsets inside one history row of the information state tensor
_HISTORY_KIND = K.MAX_PLAYERS
_HISTORY_TILE = _HISTORY_KIND + N_ACTION_KINDS
_HISTORY_PARENT = _HISTORY_TILE + N_TILES
_HISTORY_SIDE = _HISTORY_PARENT + K.MAX_NODES
_HISTORY_JOINED = _HISTORY_SIDE + SIDES_PER_PARENT

ALL_TILES = (1 << N_TILES) - 1
"""Tile set of the whole double-six."""

_IDENTITY_DEAL = np.arange(N_TILES, dtype=np.int64)
_TILE_PAIRS = [[low, high] for low, high in TILES]
_TILE_NAMES = [tile_name(t) for t in range(N_TILES)]
_NO_PARAMS = np.zeros((K.MAX_PLAYERS, 1), dtype=np.float64)  # seat_view needs params; inference reads none


# ---------------------------------------------------------------------------
# Action encoding
# ---------------------------------------------------------------------------
def encode_action(tile: int, parent: int, side: int, joined: int) -> int:
    """The action code of a placement (engine values; module docstring).

    Parameters
    ----------
    tile : int
        Tile index 0..27.
    parent : int
        Layout node played on, ``NO_PARENT`` for the opening.
    side : int
        ``SIDE_NONE`` (opening), ``SIDE_LINE`` or ``SIDE_ARM``.
    joined : int
        The pip value joined (the low half for the opening).
    """
    if parent == K.NO_PARENT:
        return tile
    high = int(joined == K.TILE_HIGH[tile] and not K.TILE_IS_DOUBLE[tile])
    return OPENING_ACTIONS + ((parent * SIDES_PER_PARENT + (side - K.SIDE_LINE)) * N_TILES
                              + tile) * JOINED_HALVES + high


def decode_action(action: int) -> tuple[int, int, int, int]:
    """``(tile, parent, side, joined)`` of an action code (the inverse of :func:`encode_action`)."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is not in 0..{NUM_ACTIONS - 1}")
    if action < OPENING_ACTIONS:
        return action, K.NO_PARENT, K.SIDE_NONE, int(K.TILE_LOW[action])
    rest, high = divmod(action - OPENING_ACTIONS, JOINED_HALVES)
    rest, tile = divmod(rest, N_TILES)
    parent, side = divmod(rest, SIDES_PER_PARENT)
    joined = K.TILE_HIGH[tile] if high else K.TILE_LOW[tile]
    return tile, parent, side + K.SIDE_LINE, int(joined)


def _tiles_of(mask: int) -> list[int]:
    """Tile indices of a tile set, ascending."""
    tiles = []
    while mask:
        low = mask & -mask
        tiles.append(low.bit_length() - 1)
        mask ^= low
    return tiles


def _hand_text(mask: int) -> str:
    return " ".join(_TILE_NAMES[t] for t in _tiles_of(mask)) or "-"


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

    See the module docstring for the nodes, the action codes, the returns, the strings and
    the tensors.
    """

    __slots__ = (
        "_actions",
        "_codes",
        "_cursor",
        "_entity_of_seat",
        "_events",
        "_finished",
        "_leader",
        "_legal",
        "_phase",
        "_pool",
        "_rounds_done",
        "_seat",
        "_start_scores",
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
        self._events = []
        self._finished = []
        self._winner = K.NO_ENTITY

    # -- copying --------------------------------------------------------------------------
    def clone(self) -> MatchState:
        """An independent copy (the workspace arrays copied; immutable parts shared)."""
        other = object.__new__(MatchState)
        other.ws = K.Workspace._make([array.copy() for array in self.ws])
        for name in ("players", "entities", "n_entities", "max_rounds", "one_round",
                     "_entity_of_seat", "_phase", "_seat", "_leader", "_rounds_done",
                     "_cursor", "_pool", "_codes", "_legal", "_winner", "_start_scores"):
            setattr(other, name, getattr(self, name))
        other._actions = self._actions.copy()
        other._events = self._events.copy()
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

    @property
    def phase(self) -> Phase:
        """What the state waits for."""
        return self._phase

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the chance node, outcomes ascending (uniform)."""
        if self._phase == Phase.LOT:
            p = 1.0 / self.players
            return [(seat, p) for seat in range(self.players)]
        if self._phase not in (Phase.DEAL, Phase.DRAW):
            raise ValueError("not a chance node")
        tiles = _tiles_of(self._pool)
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

    @property
    def rounds_played(self) -> int:
        """Rounds finished so far."""
        return self._rounds_done

    @property
    def winner(self) -> int:
        """The entity that reached 305 raw, or ``NO_ENTITY``."""
        return self._winner

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
        """Reset the round's state as play_dealt_round does before its turn loop."""
        ws = self.ws
        stats = ws.round_stats
        stats[:] = 0
        stats[K.R_LEADER] = leader
        stats[K.R_END] = K.END_NONE
        stats[K.R_WINNER] = K.NO_ENTITY
        stats[K.R_DOMINOER] = K.NO_SEAT
        stats[K.R_DOMINO_ACCEPTED] = -1
        stats[K.R_OPENING_TILE] = K.NO_TILE
        ws.hands[:] = 0
        ws.hand_sizes[:] = 0
        ws.lacking[:] = 0
        board = ws.board
        for field in (K.BOARD_NODES, K.BOARD_TOTAL, K.BOARD_OPEN_VALUES, K.BOARD_PLAYED,
                      K.BOARD_OPEN_NODES, K.BOARD_HISTORY, K.BOARD_DECISION_COUNT):
            board[field] = 0
        ws.open_count[:] = 0
        ws.deal[:] = _IDENTITY_DEAL
        self._cursor = 0
        self._pool = ALL_TILES
        self._events = []
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
            count = list_openings(ws, ws.hands[leader])
            self._decide(leader, count)

    def _decide(self, seat: int, count: int) -> None:
        """Enter the decision of ``seat`` over ``ws.cands[:count]``."""
        ws = self.ws
        board = ws.board
        board[K.BOARD_DECISION_SEAT] = seat
        board[K.BOARD_DECISION_COUNT] = count
        board[K.BOARD_DECISION_BONEYARD] = N_TILES - self._cursor
        rows = ws.cands[:count, : K.CAND_JOINED + 1].tolist()
        codes = tuple(encode_action(t, p, s, j) for t, p, s, j in rows)
        self._codes = codes
        self._legal = sorted(codes)
        self._seat = seat
        self._phase = Phase.PLAY

    def _trace(self, seat, kind, tile, joined, parent, side, points, open_before) -> None:
        """Append one public action to ``ws.history`` exactly as the engine's _trace_action."""
        ws = self.ws
        ws.round_stats[K.R_ACTIONS] += 1
        entry = int(ws.board[K.BOARD_HISTORY])
        ws.history[entry] = (seat, kind, tile if kind == K.ACTION_PLAY else K.NO_TILE,
                             open_before, parent, side, joined, points)
        ws.board[K.BOARD_HISTORY] = entry + 1

    def _event(self, entity, kind, action, seat, placement, credit, debit, raw) -> int:
        """Target-test one score event and apply it if accepted (the engine's _apply_event);
        return 0 discarded, 1 accepted, 2 accepted and at 305."""
        ws = self.ws
        scores = ws.scores
        stats = ws.round_stats
        accepted = scores[entity] + raw <= TARGET_RAW
        if accepted:
            scores[entity] += raw
            stats[K.R_EVENTS_ACCEPTED] += 1
            stats[K.R_GAIN + entity] += raw
            if kind == K.EVENT_DOMINO:
                stats[K.R_SETTLED_BY + entity] += credit - debit
            elif kind == K.EVENT_BLOCKED:
                stats[K.R_SETTLED_BY + entity] += raw
        else:
            stats[K.R_EVENTS_DISCARDED] += 1
            stats[K.R_RAW_DISCARDED] += raw
            stats[K.R_DISCARDED_BY + entity] += 1
        stats[K.R_EVENTS] += 1
        self._events.append((entity, kind, action, seat, placement, credit, debit, raw,
                             int(accepted)))
        if not accepted:
            return 0
        return 2 if scores[entity] == TARGET_RAW else 1

    def _place(self, action: int) -> None:
        """The engine's _play_candidate for the seat to move, then what follows."""
        tile, parent, side, joined = decode_action(action)
        ws = self.ws
        seat = self._seat
        board = ws.board
        open_before = int(board[K.BOARD_OPEN_VALUES])
        opening = parent == K.NO_PARENT
        if opening:
            total = open_layout(ws, tile)
        else:
            total = place_tile(ws, tile, parent, side, joined)
        points = int(placement_points(total))
        ws.hands[seat] &= ~(1 << tile)
        ws.hand_sizes[seat] -= 1
        stats = ws.round_stats
        stats[K.R_PLACEMENTS] += 1
        action_index = int(stats[K.R_ACTIONS])
        self._trace(seat, K.ACTION_PLAY, tile, joined, parent, side, points, open_before)
        if opening:
            stats[K.R_OPENING_TILE] = tile
            stats[K.R_OPENING_POINTS] = points
        entity = int(self._entity_of_seat[seat])
        if ws.hands[seat] == 0:
            credit, debit = domino_parts(ws, self.players, self._entity_of_seat, seat)
            outcome = self._event(entity, K.EVENT_DOMINO, -1, seat, points, int(credit),
                                  int(debit), points + int(credit) - int(debit))
            stats[K.R_DOMINO_PLACEMENT] = points
            stats[K.R_DOMINO_CREDIT] = credit
            stats[K.R_DOMINO_DEBIT] = debit
            stats[K.R_DOMINO_ACCEPTED] = 0 if outcome == 0 else 1
            stats[K.R_END] = K.END_DOMINO
            stats[K.R_WINNER] = entity
            stats[K.R_DOMINOER] = seat
            self._end_round(K.END_DOMINO)
            return
        if points > 0:
            outcome = self._event(entity, K.EVENT_PLACEMENT, action_index, seat, points, 0, 0,
                                  points)
            if outcome != 0:
                stats[K.R_PLACEMENT_RAW] += points
            if outcome == 2:
                stats[K.R_END] = K.END_TARGET
                stats[K.R_WINNER] = K.NO_ENTITY
                self._end_round(K.END_TARGET)
                return
        self._after_turn(seat)

    def _after_turn(self, seat: int) -> None:
        """Ruling 6 after a turn that did not end the round, then the next seat's turn."""
        if self._cursor == N_TILES and no_hand_can_play(self.ws, self.players):
            self._settle_blocked()
            return
        self._turn((seat + 1) % self.players)

    def _turn(self, seat: int) -> None:
        """Start ``seat``'s turn: a decision, a draw node, or an automatic pass."""
        ws = self.ws
        while True:
            playable = int(ws.hands[seat]) & int(playable_tiles(ws))
            if playable:
                self._decide(seat, list_placements(ws, playable))
                return
            open_values = int(ws.board[K.BOARD_OPEN_VALUES])
            if self._cursor < N_TILES:
                # A drawing seat lacks every open value; its older knowledge is replaced (engine).
                ws.lacking[seat] = open_values
                self._seat = seat
                self._phase = Phase.DRAW
                return
            ws.lacking[seat] |= open_values
            self._pass(seat, open_values)
            if no_hand_can_play(ws, self.players):
                self._settle_blocked()
                return
            seat = (seat + 1) % self.players

    def _pass(self, seat: int, open_values: int) -> None:
        self.ws.round_stats[K.R_PASSES] += 1
        self._trace(seat, K.ACTION_PASS, K.NO_TILE, 0, K.NO_PARENT, K.SIDE_NONE, 0, open_values)

    def _drawn(self, tile: int) -> None:
        ws = self.ws
        seat = self._seat
        ws.hands[seat] |= 1 << tile
        ws.hand_sizes[seat] += 1
        ws.round_stats[K.R_DRAWS] += 1
        open_values = int(ws.board[K.BOARD_OPEN_VALUES])
        self._trace(seat, K.ACTION_DRAW, tile, 0, K.NO_PARENT, K.SIDE_NONE, 0, open_values)
        if (1 << tile) & int(playable_tiles(ws)):
            self._decide(seat, list_placements(ws, 1 << tile))
            return
        if self._cursor < N_TILES:
            return  # another draw of the same turn
        self._pass(seat, open_values)
        self._after_turn(seat)

    def _settle_blocked(self) -> None:
        """The engine's _settle_blocked (rulings 11 and 13)."""
        ws = self.ws
        players = self.players
        eos = self._entity_of_seat
        pips = ws.seat_scratch[K.SCRATCH_PIPS]
        order = ws.seat_scratch[K.SCRATCH_ORDER]
        rank_blocked_hands(ws, players, self._leader, pips, order)
        stats = ws.round_stats
        for rank in range(players):
            seat = int(order[rank])
            credit = int(blocked_credit(players, eos, pips, seat))
            if credit == 0:
                continue
            outcome = self._event(int(eos[seat]), K.EVENT_BLOCKED, -1, seat, 0, credit, 0, credit)
            stats[K.R_BLOCKED_EVENTS] += 1
            if outcome != 0:
                stats[K.R_BLOCKED_CREDIT] += credit
            if outcome == 2:
                break
        lightest = int(order[0])
        winner = int(eos[lightest])
        for seat in range(players):
            if pips[seat] == pips[lightest] and eos[seat] != winner:
                winner = K.NO_ENTITY
        stats[K.R_END] = K.END_BLOCKED
        stats[K.R_WINNER] = winner
        self._end_round(K.END_BLOCKED)

    def _end_round(self, end: int) -> None:
        """Close the round's figures (play_dealt_round, play_match), keep it for the record,
        and go on: a lot after a block, the dominoer's deal after a domino, or the end."""
        ws = self.ws
        stats = ws.round_stats
        players = self.players
        for entity in range(self.n_entities):
            stats[K.R_SCORE + entity] = ws.scores[entity]
        for seat in range(players):
            stats[K.R_PIPS + seat] = hand_pips(ws.hands[seat])
        self._count_round(end)
        n_history = int(ws.board[K.BOARD_HISTORY])
        self._finished.append((
            self._leader,
            ws.deal[: self._cursor].tolist(),
            self._pool,
            ws.history[:n_history].tolist(),
            tuple(self._events),
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

    def _count_round(self, end: int) -> None:
        """Add the round to ``ws.match_totals`` as play_match does."""
        ws = self.ws
        stats = ws.round_stats
        totals = ws.match_totals
        if self._rounds_done == 0:
            totals[K.M_FIRST_LEADER] = self._leader
            totals[K.M_FIRST_OPENING] = stats[K.R_OPENING_TILE]
        totals[K.M_ROUNDS] += 1
        for total_field, round_field in ((K.M_PLACEMENTS, K.R_PLACEMENTS), (K.M_DRAWS, K.R_DRAWS),
                                         (K.M_PASSES, K.R_PASSES), (K.M_ACTIONS, K.R_ACTIONS),
                                         (K.M_EVENTS, K.R_EVENTS),
                                         (K.M_EVENTS_ACCEPTED, K.R_EVENTS_ACCEPTED),
                                         (K.M_EVENTS_DISCARDED, K.R_EVENTS_DISCARDED),
                                         (K.M_RAW_DISCARDED, K.R_RAW_DISCARDED),
                                         (K.M_PLACEMENT_RAW, K.R_PLACEMENT_RAW),
                                         (K.M_BLOCKED_CREDIT, K.R_BLOCKED_CREDIT)):
            totals[total_field] += stats[round_field]
        if end == K.END_DOMINO:
            totals[K.M_DOMINO_ROUNDS] += 1
            if stats[K.R_DOMINO_ACCEPTED] == 1:
                totals[K.M_PLACEMENT_RAW] += stats[K.R_DOMINO_PLACEMENT]
                totals[K.M_DOMINO_CREDIT] += stats[K.R_DOMINO_CREDIT]
                totals[K.M_DOMINO_DEBIT] += stats[K.R_DOMINO_DEBIT]
        elif end == K.END_BLOCKED:
            totals[K.M_BLOCKED_ROUNDS] += 1
        totals[K.M_DISCARDED_BY:K.M_DISCARDED_BY + K.MAX_ENTITIES] += \
            stats[K.R_DISCARDED_BY:K.R_DISCARDED_BY + K.MAX_ENTITIES]
        totals[K.M_SETTLED_BY:K.M_SETTLED_BY + K.MAX_ENTITIES] += \
            stats[K.R_SETTLED_BY:K.R_SETTLED_BY + K.MAX_ENTITIES]
        for entity in range(self.n_entities):
            if ws.scores[entity] == TARGET_RAW:
                totals[K.M_WINNER] = entity
                self._winner = entity

    # -- strings --------------------------------------------------------------------------
    def action_to_string(self, seat: int, action: int) -> str:
        """A short text for ``action`` taken by ``seat`` (``CHANCE`` for an outcome)."""
        action = int(action)
        if seat == CHANCE:
            if self._phase == Phase.LOT:
                return f"lot: seat {action} leads"
            if self._phase == Phase.DEAL:
                return f"deal {_TILE_NAMES[action]} to seat {self._cursor // HAND_SIZE}"
            if self._phase == Phase.DRAW:
                return f"seat {self._seat} draws {_TILE_NAMES[action]}"
            return f"chance {action}"
        tile, parent, side, joined = decode_action(action)
        if parent == K.NO_PARENT:
            return f"seat {seat} opens {_TILE_NAMES[tile]}"
        other = int(K.TILE_PIPS[tile]) - joined
        return f"seat {seat} plays {joined}-{other} on node {parent} ({SIDE_NAMES[side]})"

    def _own_draws(self, seat: int, rows: list) -> dict[int, int]:
        """History row -> tile, for the draws of ``seat`` in ``rows`` (the round's history)."""
        own = {}
        draws = 0
        first_draw = HAND_SIZE * self.players
        for index, row in enumerate(rows):
            if row[K.H_KIND] == K.ACTION_DRAW:
                if row[K.H_SEAT] == seat:
                    own[index] = int(self.ws.deal[first_draw + draws])
                draws += 1
        return own

    def _header(self, seat: int) -> str:
        scores = " ".join(str(s) for s in self.scores())
        leader = "?" if self._phase == Phase.LOT else str(self._leader)
        return (f"seat {seat} of {self.players}; round {self._rounds_done + 1}; "
                f"scores {scores}; leader {leader}")

    def _shown_text(self) -> str:
        if self._phase != Phase.OVER:
            return ""
        hands = "; ".join(f"{s}: {_hand_text(int(self.ws.hands[s]))}" for s in range(self.players))
        return f"\nshown {hands}"

    def _dealt_mask(self, seat: int) -> int:
        """Tiles dealt to ``seat`` this round so far (empty during a lot)."""
        if self._phase == Phase.LOT:
            return 0
        deal = self.ws.deal
        first = seat * HAND_SIZE
        last = min(self._cursor, first + HAND_SIZE)
        mask = 0
        for k in range(first, last):
            mask |= 1 << int(deal[k])
        return mask

    def information_state_string(self, seat: int) -> str:
        """Everything ``seat`` knows (module docstring), as text."""
        ws = self.ws
        lines = [self._header(seat)]
        if self._phase == Phase.LOT:
            lines.append("lot")
        else:
            lines.append(f"dealt {min(self._cursor, HAND_SIZE * self.players)}: "
                         f"{_hand_text(self._dealt_mask(seat))}; hand "
                         f"{_hand_text(int(ws.hands[seat]))}")
            rows = ws.history[: int(ws.board[K.BOARD_HISTORY])].tolist()
            own = self._own_draws(seat, rows)
            for index, row in enumerate(rows):
                lines.append(self._row_text(row, own.get(index, K.NO_TILE)))
        return "\n".join(lines) + self._shown_text()

    @staticmethod
    def _row_text(row, drawn: int) -> str:
        actor = row[K.H_SEAT]
        kind = row[K.H_KIND]
        if kind == K.ACTION_DRAW:
            return f"{actor} draws" + ("" if drawn == K.NO_TILE else f" {_TILE_NAMES[drawn]}")
        if kind == K.ACTION_PASS:
            return f"{actor} passes"
        tile = row[K.H_TILE]
        if row[K.H_PARENT] == K.NO_PARENT:
            return f"{actor} opens {_TILE_NAMES[tile]} ({row[K.H_POINTS]})"
        joined = row[K.H_JOINED]
        return (f"{actor} plays {joined}-{int(K.TILE_PIPS[tile]) - joined} on "
                f"{row[K.H_PARENT]} {SIDE_NAMES[row[K.H_SIDE]]} ({row[K.H_POINTS]})")

    def observation_string(self, seat: int) -> str:
        """The current public state plus ``seat``'s hand, as text."""
        ws = self.ws
        board = ws.board
        n_nodes = int(board[K.BOARD_NODES]) if self._phase != Phase.LOT else 0
        layout = " ".join(
            f"{_TILE_NAMES[int(ws.nodes[k, K.NODE_TILE])]}" for k in range(n_nodes)) or "-"
        sizes = " ".join(str(int(ws.hand_sizes[s])) for s in range(self.players))
        lacking = " ".join(str(int(ws.lacking[s])) for s in range(self.players))
        mover = self._seat if self._phase in (Phase.PLAY, Phase.DRAW) else "-"
        return (f"{self._header(seat)}; {self._phase.name.lower()}; to move {mover}\n"
                f"hand {_hand_text(int(ws.hands[seat]))}\n"
                f"layout {layout}; total {int(board[K.BOARD_TOTAL])}; open "
                f"{' '.join(str(int(c)) for c in ws.open_count)}\n"
                f"sizes {sizes}; boneyard {N_TILES - self._cursor}; lacking {lacking}"
                + self._shown_text())

    # -- tensors --------------------------------------------------------------------------
    def _fill_observation(self, out: np.ndarray, seat: int, offsets) -> None:
        ws = self.ws
        board = ws.board

        def put(name, index, value=1.0):
            out[offsets[name][0] + index] = value

        put("observer", seat)
        put("players", self.players - 2)
        put("phase", int(self._phase))
        if self._phase in (Phase.PLAY, Phase.DRAW):
            put("to_move", self._seat)
        if self._phase != Phase.LOT:
            put("leader", self._leader)
        put("round", 0, self._rounds_done / self.max_rounds)
        start = offsets["scores"][0]
        out[start:start + self.n_entities] = ws.scores[: self.n_entities] / RETURN_SCALE
        start = offsets["hand"][0]
        hand = int(ws.hands[seat])
        for t in _tiles_of(hand):
            out[start + t] = 1.0
        start = offsets["hand_sizes"][0]
        out[start:start + self.players] = ws.hand_sizes[: self.players]
        put("boneyard", 0, N_TILES - self._cursor)
        start = offsets["lacking"][0]
        for s in range(self.players):
            lack = int(ws.lacking[s])
            for v in range(N_VALUES):
                if lack >> v & 1:
                    out[start + s * N_VALUES + v] = 1.0
        if self._phase != Phase.LOT:
            start = offsets["layout"][0]
            for t in _tiles_of(int(board[K.BOARD_PLAYED])):
                out[start + t] = 1.0
            start = offsets["open_count"][0]
            out[start:start + N_VALUES] = ws.open_count
            put("total", 0, int(board[K.BOARD_TOTAL]))
            n_nodes = int(board[K.BOARD_NODES])
            if n_nodes:
                nodes = ws.nodes[:n_nodes]
                block = out[offsets["nodes"][0]:offsets["nodes"][0] + K.MAX_NODES * NODE_WIDTH]
                block = block.reshape(K.MAX_NODES, NODE_WIDTH)
                rows = np.arange(n_nodes)
                block[rows, nodes[:, K.NODE_TILE]] = 1.0
                line_open = nodes[:, K.NODE_LINE_OPEN]
                block[rows, N_TILES] = (line_open & K.LINE_A) != 0
                block[rows, N_TILES + 1] = (line_open & K.LINE_B) != 0
                arms = nodes[:, K.NODE_ARMS_OPEN]
                block[rows, N_TILES + 2] = arms >= 1
                block[rows, N_TILES + 3] = arms >= K.ARMS_PER_SPINNER
        if self._phase == Phase.OVER:
            start = offsets["shown"][0]
            for s in range(self.players):
                for t in _tiles_of(int(ws.hands[s])):
                    out[start + s * N_TILES + t] = 1.0

    def observation_tensor(self, seat: int) -> np.ndarray:
        """float32[OBSERVATION_SHAPE]: the public state and ``seat``'s hand (module docstring)."""
        out = np.zeros(OBSERVATION_SHAPE, dtype=np.float32)
        self._fill_observation(out, seat, OBSERVATION_OFFSETS)
        return out

    def information_state_tensor(self, seat: int) -> np.ndarray:
        """float32[INFORMATION_STATE_SHAPE]: everything ``seat`` knows (module docstring)."""
        out = np.zeros(INFORMATION_STATE_SHAPE, dtype=np.float32)
        offsets = INFORMATION_STATE_OFFSETS
        self._fill_observation(out, seat, offsets)
        start = offsets["dealt"][0]
        for t in _tiles_of(self._dealt_mask(seat)):
            out[start + t] = 1.0
        if self._phase == Phase.LOT:
            return out
        ws = self.ws
        n_history = int(ws.board[K.BOARD_HISTORY])
        if n_history == 0:
            return out
        first = offsets["history"][0]
        block = out[first:first + K.MAX_ACTIONS_PER_ROUND * HISTORY_WIDTH]
        block = block.reshape(K.MAX_ACTIONS_PER_ROUND, HISTORY_WIDTH)
        history = ws.history[:n_history]
        rows = np.arange(n_history)
        kinds = history[:, K.H_KIND]
        block[rows, history[:, K.H_SEAT]] = 1.0
        block[rows, _HISTORY_KIND + kinds] = 1.0
        plays = np.flatnonzero(kinds == K.ACTION_PLAY)
        block[plays, _HISTORY_TILE + history[plays, K.H_TILE]] = 1.0
        placed = plays[history[plays, K.H_PARENT] != K.NO_PARENT]
        block[placed, _HISTORY_PARENT + history[placed, K.H_PARENT]] = 1.0
        block[placed, _HISTORY_SIDE + history[placed, K.H_SIDE] - K.SIDE_LINE] = 1.0
        block[plays, _HISTORY_JOINED + history[plays, K.H_JOINED]] = 1.0
        for index, tile in self._own_draws(seat, history.tolist()).items():
            block[index, _HISTORY_TILE + tile] = 1.0
        return out

    # -- search and strategies ------------------------------------------------------------
    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> MatchState:
        """A state ``seat`` cannot tell from this one, the hidden tiles redrawn (for search).

        The other hands and the undealt tiles are drawn with
        :func:`strategies.inference.hand_groups` / :func:`strategies.inference.sample_grouped_world`
        on ``seat``'s view, consistently with what every draw and pass revealed; ``seat``'s own
        tiles are kept. Past chance outcomes are not rewritten (module docstring).
        """
        other = self.clone()
        if self._phase in (Phase.LOT, Phase.OVER):
            return other  # nothing hidden bears on the rest of the game
        ws = other.ws
        board = ws.board
        saved = board[K.BOARD_DECISION_SEAT:K.BOARD_DECISION_BONEYARD + 1].copy()
        board[K.BOARD_DECISION_SEAT] = seat
        board[K.BOARD_DECISION_COUNT] = 0
        board[K.BOARD_DECISION_BONEYARD] = N_TILES - self._cursor
        view = seat_view(ws, self.players, _NO_PARAMS)
        board[K.BOARD_DECISION_SEAT:K.BOARD_DECISION_BONEYARD + 1] = saved
        other._deal_hidden(view, seat, rng)
        return other

    def _deal_hidden(self, view, seat: int, rng: np.random.Generator) -> None:
        """Redraw every hand but ``seat``'s and the pool still to deal or draw, consistently
        with ``view`` (``seat``'s view of this state), into this state's workspace."""
        ws = self.ws
        counts = np.zeros((K.MAX_PLAYERS, MAX_GROUPS), dtype=np.int64)
        lacks = np.zeros((K.MAX_PLAYERS, MAX_GROUPS), dtype=np.int64)
        n_groups = np.zeros(K.MAX_PLAYERS, dtype=np.int64)
        for s in range(self.players):
            if s != seat:
                n_groups[s] = hand_groups(view, s, counts[s], lacks[s])
        stream = np.array([rng.integers(0, np.iinfo(np.int64).max), 0], dtype=np.uint64)
        sample_grouped_world(ws, view, stream, counts, lacks, n_groups)
        held = 0
        for s in range(self.players):
            held |= int(ws.hands[s])
        self._pool = ALL_TILES & ~held & ~int(ws.board[K.BOARD_PLAYED])

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
            play (each seat's tiles split into five dealt ones and its draws, every drawn tile
            that was placed at once the one drawn last), not necessarily the true one.
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
        state._deal_hidden(view, seat, rng)
        state._write_deal(history.tolist())
        count = int(view.n_candidates)
        ws.cands[:count] = view.cands[:count]
        state._decide(seat, count)
        return state

    def _write_deal(self, rows: list) -> None:
        """Fill ``ws.deal[:_cursor]`` with a deal consistent with the hands, the layout and the
        history ``rows`` (see :meth:`from_view`); the pool's tiles follow in tile order."""
        ws = self.ws
        players = self.players
        tiles_of = [int(ws.hands[s]) for s in range(players)]
        for row in rows:
            if row[K.H_KIND] == K.ACTION_PLAY:
                tiles_of[row[K.H_SEAT]] |= 1 << row[K.H_TILE]
        draws = [(index, row[K.H_SEAT]) for index, row in enumerate(rows)
                 if row[K.H_KIND] == K.ACTION_DRAW]
        drawn = {}
        for index, seat in draws:
            following = rows[index + 1] if index + 1 < len(rows) else None
            if following is not None and following[K.H_KIND] == K.ACTION_PLAY \
                    and following[K.H_SEAT] == seat:
                drawn[index] = following[K.H_TILE]  # placed at once: the tile drawn last
                tiles_of[seat] &= ~(1 << following[K.H_TILE])
        for index, seat in draws:
            if index not in drawn:
                # a kept draw: a tile of the hand if any is left, else one placed later
                hand = int(ws.hands[seat]) & tiles_of[seat]
                tile = _tiles_of(hand or tiles_of[seat])[0]
                drawn[index] = tile
                tiles_of[seat] &= ~(1 << tile)
        order = []
        for seat in range(players):
            order += _tiles_of(tiles_of[seat])[:HAND_SIZE]
        order += [drawn[index] for index, _ in draws]
        order += _tiles_of(self._pool)
        if len(order) == N_TILES and len(set(order)) == N_TILES:
            ws.deal[:] = order

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

    # -- records --------------------------------------------------------------------------
    def record(self, strategies: list[str], seed: int = 0, match: int = 0) -> dict:
        """The exact61-record/1 object of the rounds finished so far (module docstring).

        ``five-up verify`` accepts it when the state is terminal (and started from zero
        scores: a record starts there). The match-level key ``max_rounds`` is the round limit
        (1 with ``one_round``).
        """
        if len(strategies) != self.players:
            raise ValueError(f"give one strategy name per seat ({self.players})")
        rounds = [self._round_object(snapshot) for snapshot in self._finished]
        winner = self._winner
        return {
            "format": FORMAT,
            "players": self.players,
            "entities": list(self.entities),
            "strategies": [str(s) for s in strategies],
            "seed": int(seed),
            "match": int(match),
            "rounds": rounds,
            "winner": None if winner == K.NO_ENTITY else winner,
            "scores": self.scores(),
            "max_rounds": 1 if self.one_round else self.max_rounds,
        }

    def _round_object(self, snapshot) -> dict:
        leader, dealt, pool, rows, events, end, winner, scores = snapshot
        players = self.players
        first_draw = HAND_SIZE * players
        drawn = dealt[first_draw:]
        actions = []
        draws = 0
        for row in rows:
            seat = row[K.H_SEAT]
            kind = row[K.H_KIND]
            if kind == K.ACTION_DRAW:
                actions.append({"seat": seat, "type": "draw",
                                "tile": list(_TILE_PAIRS[drawn[draws]])})
                draws += 1
            elif kind == K.ACTION_PASS:
                actions.append({"seat": seat, "type": "pass"})
            else:
                tile = row[K.H_TILE]
                parent = row[K.H_PARENT]
                joined = row[K.H_JOINED]
                opening = parent == K.NO_PARENT
                actions.append({
                    "seat": seat,
                    "type": "play",
                    "tile": list(_TILE_PAIRS[tile]) if opening
                    else [joined, int(K.TILE_PIPS[tile]) - joined],
                    "parent": None if opening else parent,
                    "side": SIDE_NAMES[row[K.H_SIDE]],
                    "points": row[K.H_POINTS],
                })
        return {
            "leader": leader,
            "hands": [[_TILE_PAIRS[t] for t in dealt[s * HAND_SIZE:(s + 1) * HAND_SIZE]]
                      for s in range(players)],
            "boneyard": [_TILE_PAIRS[t] for t in drawn + _tiles_of(pool)],
            "actions": actions,
            "events": [event_object(event) for event in events],
            "end": END_NAMES[end],
            "winner": None if winner == K.NO_ENTITY else winner,
            "scores": list(scores),
        }

    def __str__(self) -> str:
        ws = self.ws
        hands = "; ".join(f"{s}: {_hand_text(int(ws.hands[s]))}" for s in range(self.players))
        return f"{self.observation_string(0).splitlines()[0]}\nhands {hands}"


__all__ = [
    "CHANCE",
    "DEFAULT_MAX_ROUNDS",
    "INFORMATION_STATE_PIECES",
    "INFORMATION_STATE_SHAPE",
    "MAX_CHANCE_OUTCOMES",
    "NUM_ACTIONS",
    "OBSERVATION_PIECES",
    "OBSERVATION_SHAPE",
    "TERMINAL",
    "MatchState",
    "Phase",
    "decode_action",
    "encode_action",
]
