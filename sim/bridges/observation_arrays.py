"""Compiled writers of the observation tensor and the legal-action arrays.

One implementation of the tensor layout of :mod:`sim.bridges.match_observer` (its pieces and
their meaning are documented there), used by :class:`sim.bridges.match_state.MatchState`'s
tensors one state at a time and by :class:`sim.bridges.vector_env.FiveUpVectorEnv` for many
matches at once. Both read a :class:`core.state.Workspace` and a few scalars that only
the caller knows (its phase, the round's leader, the rounds played, the tiles taken).

``starts`` (int64[N_PIECES], :func:`piece_starts`) gives the first index in the flat tensor of
each piece of :data:`PIECES`, or -1 where the tensor has no such piece (the public tensors
leave out the observer's hand): one writer serves every tensor of the observer.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.bridges.match_codes import JOINED_HALVES, OPENING_ACTIONS, SIDES_PER_PARENT
from core import state as K
from core.jit import kernel, linked_kernel
from core.state import workspace_of
from core.tiles import N_TILES, N_VALUES, TARGET_RAW

class Piece(NamedTuple):
    """Index of each piece in ``starts``."""

    OBSERVER: int = 0
    PLAYERS: int = 1
    PHASE: int = 2
    DRAWING: int = 3
    TO_MOVE: int = 4
    LEADER: int = 5
    ROUND: int = 6
    SCORES: int = 7
    HAND: int = 8
    LAYOUT: int = 9
    HAND_SIZES: int = 10
    BONEYARD: int = 11
    LACKING: int = 12
    OPEN_COUNT: int = 13
    TOTAL: int = 14
    NODES: int = 15
    SHOWN: int = 16


P = Piece()

PIECES = tuple(name.lower() for name in Piece._fields)
"""The observation pieces this module writes (``match_observer``'s names), in ``starts`` order."""


class PublicPhase(NamedTuple):
    """The public phase one-hot's entries (``match_observer.PUBLIC_PHASES``)."""

    LOT: int = 0
    DEAL: int = 1
    TURN: int = 2
    OVER: int = 3


PHASE = PublicPhase()

NODE_WIDTH = N_TILES + 4
"""Per layout node: one-hot tile, line side A open, line side B open, >= 1 arm open, 2 arms open."""

NO_PIECE = -1
"""``starts`` entry of a piece the tensor does not have."""


def piece_starts(offsets: dict) -> np.ndarray:
    """int64[len(PIECES)]: ``starts`` for a tensor whose pieces are ``offsets`` (name ->
    (first index, shape), as ``match_observer.OBSERVATION_OFFSETS``)."""
    return np.array([offsets[name][0] if name in offsets else NO_PIECE for name in PIECES],
                    dtype=np.int64)


@linked_kernel
def put(out, starts, piece, index, value):
    """``out[starts[piece] + index] = value`` when the tensor has the piece."""
    if starts[piece] != NO_PIECE:
        out[starts[piece] + index] = value


@linked_kernel
def put_tiles(out, starts, piece, offset, mask):
    """A 1 for each tile of the tile set ``mask``, ``offset`` entries into the piece."""
    if starts[piece] == NO_PIECE:
        return
    first = starts[piece] + offset
    for tile in range(N_TILES):
        if (mask >> tile) & 1:
            out[first + tile] = 1.0


@linked_kernel
def fill_observation(ws, players, n_entities, seat, phase, mover, drawing, leader, rounds_fraction,
                     tiles_taken, starts, out):
    """Write the observation pieces of ``seat`` (-1: the public observation) into ``out``.

    Parameters
    ----------
    ws : Workspace
        The match's position.
    players, n_entities : int
    seat : int
        The observer (-1: nobody; the private pieces are then absent from ``starts`` too).
    phase : int
        :class:`PublicPhase`.
    mover : int
        The seat to place or draw (``PHASE.TURN`` only).
    drawing : int
        1: the observer is the mover and must draw.
    leader : int
        The round's leader (-1 during a lot).
    rounds_fraction : float
        Rounds finished / the round limit.
    tiles_taken : int
        Tiles dealt or drawn this round.
    starts : int64[N_PIECES]
        :func:`piece_starts`.
    out : float32[T]
        Zeroed by the caller (every piece written here is ``+=``-free: set, not added).
    """
    board = ws.board
    if seat >= 0:
        put(out, starts, P.OBSERVER, seat, 1.0)
        put_tiles(out, starts, P.HAND, 0, ws.hands[seat])
        if drawing != 0:
            put(out, starts, P.DRAWING, 0, 1.0)
    put(out, starts, P.PLAYERS, players - 2, 1.0)
    put(out, starts, P.PHASE, phase, 1.0)
    if phase == PHASE.TURN:
        put(out, starts, P.TO_MOVE, mover, 1.0)
    if leader >= 0:
        put(out, starts, P.LEADER, leader, 1.0)
    put(out, starts, P.ROUND, 0, rounds_fraction)
    for entity in range(n_entities):
        put(out, starts, P.SCORES, entity, ws.scores[entity] / TARGET_RAW)
    for s in range(players):
        put(out, starts, P.HAND_SIZES, s, ws.hand_sizes[s])
        lack = ws.lacking[s]
        for value in range(N_VALUES):
            if (lack >> value) & 1:
                put(out, starts, P.LACKING, s * N_VALUES + value, 1.0)
    put(out, starts, P.BONEYARD, 0, N_TILES - tiles_taken)
    if phase != PHASE.LOT:
        put_tiles(out, starts, P.LAYOUT, 0, board[K.BOARD_PLAYED])
        for value in range(N_VALUES):
            put(out, starts, P.OPEN_COUNT, value, ws.open_count[value])
        put(out, starts, P.TOTAL, 0, board[K.BOARD_TOTAL])
        for node in range(board[K.BOARD_NODES]):
            row = node * NODE_WIDTH
            put(out, starts, P.NODES, row + ws.nodes[node, K.NODE_TILE], 1.0)
            line_open = ws.nodes[node, K.NODE_LINE_OPEN]
            arms = ws.nodes[node, K.NODE_ARMS_OPEN]
            if line_open & K.LINE_A:
                put(out, starts, P.NODES, row + N_TILES, 1.0)
            if line_open & K.LINE_B:
                put(out, starts, P.NODES, row + N_TILES + 1, 1.0)
            if arms >= 1:
                put(out, starts, P.NODES, row + N_TILES + 2, 1.0)
            if arms >= K.ARMS_PER_SPINNER:
                put(out, starts, P.NODES, row + N_TILES + 3, 1.0)
    if phase == PHASE.OVER:
        for s in range(players):
            put_tiles(out, starts, P.SHOWN, s * N_TILES, ws.hands[s])


@linked_kernel
def action_code(tile, parent, side, joined):
    """The action code of a placement: :func:`sim.bridges.match_codes.encode_action`, compiled."""
    if parent == K.NO_PARENT:
        return tile
    high = 1 if (joined == K.TILE_HIGH[tile] and not K.TILE_IS_DOUBLE[tile]) else 0
    return OPENING_ACTIONS + ((parent * SIDES_PER_PARENT + (side - K.SIDE_LINE)) * N_TILES
                              + tile) * JOINED_HALVES + high


@kernel
def observe_decisions(stack, slots, seats, players, n_entities, max_rounds, starts, obs, mask,
                      points, legal, n_legal):
    """Each slot's observation and legal actions at its seat's decision (the engine's workspaces
    of :func:`sim.engine.play.resume_matches`, stopped at a decision of ``seats[i]``).

    Parameters
    ----------
    stack : Workspace
        One workspace per slot (:func:`core.state.new_workspace_stack`).
    slots, seats : int64[n]
        The slots to observe and the deciding seat of each.
    players, n_entities, max_rounds : int
    starts : int64[N_PIECES]
    obs : float32[W, T]
        Row ``slot`` is rewritten.
    mask : int8[W, NUM_ACTIONS]
        Row ``slot``: 1 at each legal action code. Only the entries of the slot's previous codes
        are cleared (not the whole row), so rows start zeroed.
    points : int8[W, MAX_CANDIDATES]
        Row ``slot``: the placement points of each code of ``legal``, then 0.
    legal : int16[W, MAX_CANDIDATES]
        Row ``slot``: the legal codes in the engine's candidate order, then -1.
    n_legal : int64[W]
        Each slot's number of legal codes (kept from call to call: what to clear).
    """
    for i in range(slots.shape[0]):
        slot = slots[i]
        seat = seats[i]
        ws = workspace_of(stack, slot)
        board = ws.board
        before = n_legal[slot]
        for k in range(before):
            mask[slot, legal[slot, k]] = 0
        row = obs[slot]
        row[:] = 0.0
        fill_observation(ws, players, n_entities, seat, PHASE.TURN, seat, 0, board[K.BOARD_LEADER],
                         board[K.BOARD_ROUND] / max_rounds, board[K.BOARD_NEXT_DRAW], starts, row)
        count = board[K.BOARD_DECISION_COUNT]
        for k in range(count):
            code = action_code(ws.cands[k, K.CAND_TILE], ws.cands[k, K.CAND_PARENT],
                               ws.cands[k, K.CAND_SIDE], ws.cands[k, K.CAND_JOINED])
            legal[slot, k] = code
            mask[slot, code] = 1
            points[slot, k] = ws.cands[k, K.CAND_POINTS]
        for k in range(count, before):
            legal[slot, k] = -1
            points[slot, k] = 0
        n_legal[slot] = count


@kernel
def rows_of_actions(actions, slots, legal, n_legal, rows):
    """The candidate row of each slot's action code (-1: not legal there).

    ``actions`` int64[W] (one code per slot), ``slots`` int64[n], ``legal`` and ``n_legal`` as
    :func:`observe_decisions`; writes ``rows[slot]``.
    """
    for i in range(slots.shape[0]):
        slot = slots[i]
        rows[slot] = -1
        for k in range(n_legal[slot]):
            if legal[slot, k] == actions[slot]:
                rows[slot] = k
                break
