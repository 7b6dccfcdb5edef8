"""What a seat may know of a :class:`sim.bridges.match_state.MatchState`: strings and tensors.

The observer of the state machine, kept apart from its transitions as OpenSpiel keeps a
game's ``Observer`` apart from its ``State``: every function here reads a state (through its
public attributes and workspace) and changes nothing.
:class:`~sim.bridges.match_state.MatchState` delegates its ``*_string`` and ``*_tensor``
methods here.

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
``phase`` : (4,)
    One-hot of the public phase (:data:`PUBLIC_PHASES`: lot, deal, turn, over). A seat's turn
    is one phase whether it places or draws: which of the two it does next is known only to
    that seat until its action shows (after a forced draw, whether the tile drawn can be
    placed).
``drawing`` : (1,)
    1 when the observer is the seat to move and must draw (its own phase; 0 for the others).
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
    Per seat, the values it is publicly known to lack (``Workspace.lacking``: a seat's lack
    becomes known with its first draw of a turn, or its pass).
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

Public observation
------------------
``public_observation_string()`` and ``public_observation_tensor()`` (shape
:data:`PUBLIC_OBSERVATION_SHAPE`, pieces :data:`PUBLIC_OBSERVATION_PIECES`: the observation's
pieces without ``observer``, ``hand`` and ``drawing``): what every seat sees, the same for all
(OpenSpiel's public observation type, ``private_info=NONE``). ``public_information_state_*``
add the round's public history (the information state without ``dealt`` and without any
drawn tile: ``PUBLIC_INFORMATION_STATE_*``). ``private_observation_string(seat)`` and
``private_observation_tensor(seat)`` (:data:`PRIVATE_OBSERVATION_PIECES`) are the rest of the
seat's observation: its seat, its hand, whether it must draw.

Everything here depends only on what the observer may know: resampling the hidden tiles
(:meth:`~sim.bridges.match_state.MatchState.resample_from_infostate`) leaves a seat's strings
and tensors unchanged, and so does any change of tiles hidden from it that leaves the public
play legal (a forced draw that took another tile of the boneyard included).
"""

from __future__ import annotations

import numpy as np

from sim.bridges.match_codes import (CHANCE, SIDES_PER_PARENT, TILE_NAMES, Phase, decode_action,
    hand_text, tiles_of)
from sim.bridges.observation_arrays import NODE_WIDTH, fill_observation, piece_starts
from core import state as K
from sim.engine.export import SIDE_NAMES
from core.tiles import HAND_SIZE, N_TILES, N_VALUES, TARGET_RAW

N_ACTION_KINDS = 3
"""Public action kinds of the history: ``ACTION_PLAY``, ``ACTION_DRAW``, ``ACTION_PASS``."""


_TABLE_SIZES = K.MAX_PLAYERS - 1
"""Entries of the ``players`` one-hot (2, 3, 4 players)."""


HISTORY_WIDTH = K.MAX_PLAYERS + N_ACTION_KINDS + N_TILES + K.MAX_NODES + SIDES_PER_PARENT + N_VALUES
"""Per history row: seat, kind (play/draw/pass), tile, parent, side (line/arm), joined value."""

PUBLIC_PHASES = ("lot", "deal", "turn", "over")
"""The phases everyone can tell apart: a seat's turn (:attr:`Phase.PLAY` or :attr:`Phase.DRAW`)
is one phase, ``turn``."""

_PUBLIC_PHASE = {Phase.LOT: 0, Phase.DEAL: 1, Phase.PLAY: 2, Phase.DRAW: 2, Phase.OVER: 3}

PRIVATE_PIECES = ("observer", "hand", "drawing", "dealt")
"""The pieces that only the observing seat may see (left out of the public tensors)."""

OBSERVATION_PIECES = (
    ("observer", (K.MAX_PLAYERS,)),
    ("players", (_TABLE_SIZES,)),
    ("phase", (len(PUBLIC_PHASES),)),
    ("drawing", (1,)),
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

PUBLIC_OBSERVATION_PIECES = tuple(p for p in OBSERVATION_PIECES if p[0] not in PRIVATE_PIECES)
"""(name, shape) of each slice of the public observation tensor, in order."""

PRIVATE_OBSERVATION_PIECES = tuple(p for p in OBSERVATION_PIECES if p[0] in PRIVATE_PIECES)
"""(name, shape) of each slice of the private observation tensor (the observation's pieces
that the public one lacks), in order."""

PUBLIC_INFORMATION_STATE_PIECES = tuple(p for p in INFORMATION_STATE_PIECES
                                        if p[0] not in PRIVATE_PIECES)
"""(name, shape) of each slice of the public information state tensor, in order."""


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

PUBLIC_OBSERVATION_OFFSETS = _piece_offsets(PUBLIC_OBSERVATION_PIECES)
"""name -> (first index in the flat tensor, shape)."""

PUBLIC_INFORMATION_STATE_OFFSETS = _piece_offsets(PUBLIC_INFORMATION_STATE_PIECES)
"""name -> (first index in the flat tensor, shape)."""


def _shape(pieces) -> tuple[int]:
    return (sum(int(np.prod(shape)) for _, shape in pieces),)


OBSERVATION_SHAPE = _shape(OBSERVATION_PIECES)
"""Shape of :meth:`~sim.bridges.match_state.MatchState.observation_tensor` (flat)."""

INFORMATION_STATE_SHAPE = _shape(INFORMATION_STATE_PIECES)
"""Shape of :meth:`~sim.bridges.match_state.MatchState.information_state_tensor` (flat)."""

PUBLIC_OBSERVATION_SHAPE = _shape(PUBLIC_OBSERVATION_PIECES)
"""Shape of :meth:`~sim.bridges.match_state.MatchState.public_observation_tensor` (flat)."""

PRIVATE_OBSERVATION_SHAPE = _shape(PRIVATE_OBSERVATION_PIECES)
"""Shape of :func:`private_observation_tensor` (flat)."""

PUBLIC_INFORMATION_STATE_SHAPE = _shape(PUBLIC_INFORMATION_STATE_PIECES)
"""Shape of :meth:`~sim.bridges.match_state.MatchState.public_information_state_tensor`."""

_STARTS = {id(offsets): piece_starts(offsets) for offsets in (
    OBSERVATION_OFFSETS, INFORMATION_STATE_OFFSETS, PUBLIC_OBSERVATION_OFFSETS,
    PUBLIC_INFORMATION_STATE_OFFSETS)}
"""The compiled writer's piece starts of each tensor (:func:`piece_starts`)."""

PUBLIC = None
"""The ``seat`` argument of the functions below for the public view (no seat's private
information)."""

# Column offsets inside one history row of the information state tensor
_HISTORY_KIND = K.MAX_PLAYERS
_HISTORY_TILE = _HISTORY_KIND + N_ACTION_KINDS
_HISTORY_PARENT = _HISTORY_TILE + N_TILES
_HISTORY_SIDE = _HISTORY_PARENT + K.MAX_NODES
_HISTORY_JOINED = _HISTORY_SIDE + SIDES_PER_PARENT



# ---------------------------------------------------------------------------
# Strings
# ---------------------------------------------------------------------------
def action_to_string(state, seat: int, action: int) -> str:
    """A short text for ``action`` taken by ``seat`` (``CHANCE`` for an outcome) in ``state``."""
    action = int(action)
    phase = state.phase
    if seat == CHANCE:
        if phase == Phase.LOT:
            return f"lot: seat {action} leads"
        if phase == Phase.DEAL:
            return f"deal {TILE_NAMES[action]} to seat {state.tiles_taken // HAND_SIZE}"
        if phase == Phase.DRAW:
            return f"seat {state.mover} draws {TILE_NAMES[action]}"
        return f"chance {action}"
    tile, parent, side, joined = decode_action(action)
    if parent == K.NO_PARENT:
        return f"seat {seat} opens {TILE_NAMES[tile]}"
    other = int(K.TILE_PIPS[tile]) - joined
    return f"seat {seat} plays {joined}-{other} on node {parent} ({SIDE_NAMES[side]})"


def own_draws(state, seat: int, rows: list) -> dict[int, int]:
    """History row -> tile, for the draws of ``seat`` in ``rows`` (the round's history)."""
    own = {}
    draws = 0
    first_draw = HAND_SIZE * state.players
    deal = state.ws.deal
    for index, row in enumerate(rows):
        if row[K.H_KIND] == K.ACTION_DRAW:
            if row[K.H_SEAT] == seat:
                own[index] = int(deal[first_draw + draws])
            draws += 1
    return own


def round_number(state) -> int:
    """The round the state is in, counted from 1; once the game is over, the last round played."""
    return state.rounds_played + (0 if state.phase == Phase.OVER else 1)


def _header(state, seat: int | None) -> str:
    scores = " ".join(str(s) for s in state.scores())
    leader = "?" if state.phase == Phase.LOT else str(state.leader)
    who = "public" if seat is PUBLIC else f"seat {seat}"
    return (f"{who} of {state.players}; round {round_number(state)}; "
            f"scores {scores}; leader {leader}")


def phase_word(state, seat: int | None) -> str:
    """The phase as ``seat`` (None: the public) knows it: ``play`` or ``draw`` for the seat to
    move itself, ``turn`` for everyone else (which of the two comes is that seat's secret),
    else ``lot``, ``deal`` or ``over``."""
    phase = state.phase
    if phase in (Phase.PLAY, Phase.DRAW) and (seat is PUBLIC or seat != state.mover):
        return PUBLIC_PHASES[_PUBLIC_PHASE[phase]]
    return phase.name.lower()


def _shown_text(state) -> str:
    if state.phase != Phase.OVER:
        return ""
    hands = "; ".join(f"{s}: {hand_text(int(state.ws.hands[s]))}" for s in range(state.players))
    return f"\nshown {hands}"


def dealt_mask(state, seat: int) -> int:
    """Tiles dealt to ``seat`` this round so far (empty during a lot)."""
    if state.phase == Phase.LOT:
        return 0
    deal = state.ws.deal
    first = seat * HAND_SIZE
    last = min(state.tiles_taken, first + HAND_SIZE)
    mask = 0
    for k in range(first, last):
        mask |= 1 << int(deal[k])
    return mask


def information_state_string(state, seat: int | None) -> str:
    """Everything ``seat`` knows (module docstring), as text; ``seat`` None: what everyone
    knows (no dealt tiles, no hand, no drawn tile)."""
    ws = state.ws
    lines = [_header(state, seat)]
    if state.phase == Phase.LOT:
        lines.append("lot")
    else:
        dealt = f"dealt {min(state.tiles_taken, HAND_SIZE * state.players)}"
        if seat is not PUBLIC:
            dealt += (f": {hand_text(dealt_mask(state, seat))}; hand "
                      f"{hand_text(int(ws.hands[seat]))}")
        lines.append(dealt)
        rows = ws.history[: int(ws.board[K.BOARD_HISTORY])].tolist()
        own = {} if seat is PUBLIC else own_draws(state, seat, rows)
        for index, row in enumerate(rows):
            lines.append(_row_text(row, own.get(index, K.NO_TILE)))
    return "\n".join(lines) + _shown_text(state)


def _row_text(row, drawn: int) -> str:
    actor = row[K.H_SEAT]
    kind = row[K.H_KIND]
    if kind == K.ACTION_DRAW:
        return f"{actor} draws" + ("" if drawn == K.NO_TILE else f" {TILE_NAMES[drawn]}")
    if kind == K.ACTION_PASS:
        return f"{actor} passes"
    tile = row[K.H_TILE]
    if row[K.H_PARENT] == K.NO_PARENT:
        return f"{actor} opens {TILE_NAMES[tile]} ({row[K.H_POINTS]})"
    joined = row[K.H_JOINED]
    return (f"{actor} plays {joined}-{int(K.TILE_PIPS[tile]) - joined} on "
            f"{row[K.H_PARENT]} {SIDE_NAMES[row[K.H_SIDE]]} ({row[K.H_POINTS]})")


def observation_string(state, seat: int | None) -> str:
    """The current public state plus ``seat``'s hand, as text (``seat`` None: the public
    state alone)."""
    ws = state.ws
    board = ws.board
    phase = state.phase
    n_nodes = int(board[K.BOARD_NODES]) if phase != Phase.LOT else 0
    layout = " ".join(
        f"{TILE_NAMES[int(ws.nodes[k, K.NODE_TILE])]}" for k in range(n_nodes)) or "-"
    sizes = " ".join(str(int(ws.hand_sizes[s])) for s in range(state.players))
    lacking = " ".join(str(int(ws.lacking[s])) for s in range(state.players))
    mover = state.mover if phase in (Phase.PLAY, Phase.DRAW) else "-"
    hand = "" if seat is PUBLIC else f"hand {hand_text(int(ws.hands[seat]))}\n"
    return (f"{_header(state, seat)}; {phase_word(state, seat)}; to move {mover}\n"
            f"{hand}"
            f"layout {layout}; total {int(board[K.BOARD_TOTAL])}; open "
            f"{' '.join(str(int(c)) for c in ws.open_count)}\n"
            f"sizes {sizes}; boneyard {N_TILES - state.tiles_taken}; lacking {lacking}"
            + _shown_text(state))


def private_observation_string(state, seat: int) -> str:
    """What ``seat`` alone sees now, as text: its hand, and whether it must draw."""
    draw = "; must draw" if state.phase == Phase.DRAW and seat == state.mover else ""
    return f"seat {seat}; hand {hand_text(int(state.ws.hands[seat]))}{draw}"


def state_text(state) -> str:
    """``str(state)``: seat 0's observation header and every hand (for debugging)."""
    ws = state.ws
    hands = "; ".join(f"{s}: {hand_text(int(ws.hands[s]))}" for s in range(state.players))
    return f"{observation_string(state, 0).splitlines()[0]}\nhands {hands}"


# ---------------------------------------------------------------------------
# Tensors
# ---------------------------------------------------------------------------
def _fill_observation(state, out: np.ndarray, seat: int | None, offsets) -> None:
    phase = state.phase
    turn = phase in (Phase.PLAY, Phase.DRAW)
    fill_observation(
        state.ws, state.players, state.n_entities, -1 if seat is PUBLIC else seat,
        _PUBLIC_PHASE[phase], state.mover if turn else -1,
        int(phase == Phase.DRAW and seat is not PUBLIC and seat == state.mover),
        -1 if phase == Phase.LOT else state.leader, state.rounds_played / state.max_rounds,
        state.tiles_taken, _STARTS[id(offsets)], out)


def observation_tensor(state, seat: int | None) -> np.ndarray:
    """float32[OBSERVATION_SHAPE]: the public state and ``seat``'s hand (module docstring);
    ``seat`` None: float32[PUBLIC_OBSERVATION_SHAPE], the public state alone."""
    public = seat is PUBLIC
    out = np.zeros(PUBLIC_OBSERVATION_SHAPE if public else OBSERVATION_SHAPE, dtype=np.float32)
    _fill_observation(state, out, seat, PUBLIC_OBSERVATION_OFFSETS if public
                      else OBSERVATION_OFFSETS)
    return out


def private_observation_tensor(state, seat: int) -> np.ndarray:
    """float32[PRIVATE_OBSERVATION_SHAPE]: the pieces of ``seat``'s observation that the
    public observation lacks (:data:`PRIVATE_OBSERVATION_PIECES`)."""
    whole = observation_tensor(state, seat)
    parts = []
    for name, shape in PRIVATE_OBSERVATION_PIECES:
        start = OBSERVATION_OFFSETS[name][0]
        parts.append(whole[start:start + int(np.prod(shape))])
    return np.concatenate(parts)


def information_state_tensor(state, seat: int | None) -> np.ndarray:
    """float32[INFORMATION_STATE_SHAPE]: everything ``seat`` knows (module docstring);
    ``seat`` None: float32[PUBLIC_INFORMATION_STATE_SHAPE], everything every seat knows."""
    public = seat is PUBLIC
    out = np.zeros(PUBLIC_INFORMATION_STATE_SHAPE if public else INFORMATION_STATE_SHAPE,
                   dtype=np.float32)
    offsets = PUBLIC_INFORMATION_STATE_OFFSETS if public else INFORMATION_STATE_OFFSETS
    _fill_observation(state, out, seat, offsets)
    if not public:
        start = offsets["dealt"][0]
        for t in tiles_of(dealt_mask(state, seat)):
            out[start + t] = 1.0
    if state.phase == Phase.LOT:
        return out
    ws = state.ws
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
    if not public:
        for index, tile in own_draws(state, seat, history.tolist()).items():
            block[index, _HISTORY_TILE + tile] = 1.0
    return out


__all__ = [
    "HISTORY_WIDTH",
    "INFORMATION_STATE_OFFSETS",
    "INFORMATION_STATE_PIECES",
    "INFORMATION_STATE_SHAPE",
    "NODE_WIDTH",
    "N_ACTION_KINDS",
    "OBSERVATION_OFFSETS",
    "OBSERVATION_PIECES",
    "OBSERVATION_SHAPE",
    "PRIVATE_OBSERVATION_PIECES",
    "PRIVATE_OBSERVATION_SHAPE",
    "PRIVATE_PIECES",
    "PUBLIC",
    "PUBLIC_INFORMATION_STATE_OFFSETS",
    "PUBLIC_INFORMATION_STATE_PIECES",
    "PUBLIC_INFORMATION_STATE_SHAPE",
    "PUBLIC_OBSERVATION_OFFSETS",
    "PUBLIC_OBSERVATION_PIECES",
    "PUBLIC_OBSERVATION_SHAPE",
    "PUBLIC_PHASES",
    "action_to_string",
    "dealt_mask",
    "information_state_string",
    "information_state_tensor",
    "observation_string",
    "observation_tensor",
    "own_draws",
    "phase_word",
    "private_observation_string",
    "private_observation_tensor",
    "round_number",
    "state_text",
]
