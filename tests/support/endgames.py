"""Small endgames of engine-dealt rounds for the round solver's tests (and the kernel warm-up).

An engine-dealt round (the engine's own shuffle) is played on with random placements through
the one step core until a seat must choose with few tiles left in the hands and the boneyard.
"""

from __future__ import annotations

import numpy as np

from core import rules, step
from core import state as K
from core.rng import STREAM_DEAL, decision_state, shuffle_round_deal, stream_key
from core.tiles import HAND_SIZE, N_TILES
from tests.support.traces import traced
from tests.support.views import read_only_view

SCORES = [0, 100, 200, 250, 270, 285, 295, 300]
"""Entity scores the endgames start from: near 305 the exact-61 rule discards events."""

def copy_world(ws):
    return K.Workspace(*[array.copy() for array in ws])


def list_turn(ws, seat, next_draw):
    """The turn's placements as the rules make them (draws first if needed): (count, next_draw)."""
    trace = traced()
    if ws.board[K.BOARD_NODES] == 0:
        return rules.list_openings(ws, np.int64(ws.hands[seat])), next_draw
    tiles = int(ws.hands[seat]) & int(rules.playable_tiles(ws))
    if tiles == 0:
        while next_draw < N_TILES:
            tile = int(ws.deal[next_draw])
            next_draw += 1
            step.draw_tile(ws, trace, seat, tile)
            if (1 << tile) & int(rules.playable_tiles(ws)):
                tiles = 1 << tile
                break
    if tiles == 0:
        return 0, next_draw
    return rules.list_placements(ws, np.int64(tiles)), next_draw


def endgame(seed, match, players, left, generator):
    """An engine-dealt round played on at random until a seat must choose with at most ``left``
    tiles in the hands and the boneyard: (world, seat, next_draw, count, entity_of_seat), or
    None if the round ended first."""
    ws = K.new_workspace()
    shuffle_round_deal(np.uint64(stream_key(seed, match, STREAM_DEAL)), 0, ws.deal)
    for seat in range(players):
        hand = 0
        for k in range(HAND_SIZE):
            hand |= 1 << int(ws.deal[seat * HAND_SIZE + k])
        ws.hands[seat] = hand
        ws.hand_sizes[seat] = HAND_SIZE
    entities = K.N_ENTITIES[players]
    ws.scores[:entities] = generator.choice(SCORES, size=entities)
    if players == 4 and generator.random() < 0.3:
        ws.scores[0] = -15  # a partner debit took the partnership below 0
    entity_of_seat = K.ENTITY_OF_SEAT[players, :players].copy()
    trace = traced()
    seat = int(generator.integers(players))
    next_draw = players * HAND_SIZE
    while True:
        count, next_draw = list_turn(ws, seat, next_draw)
        left_now = int(ws.hand_sizes[:players].sum()) + N_TILES - next_draw
        if count >= 2 and left_now <= left:
            return ws, seat, next_draw, count, entity_of_seat
        if count > 0:
            c = ws.cands[int(generator.integers(count))]
            end = step.place(ws, trace, players, entity_of_seat, seat, int(c[K.CAND_TILE]),
                             int(c[K.CAND_PARENT]), int(c[K.CAND_SIDE]), int(c[K.CAND_JOINED]))
            if end != K.END_NONE:
                return None
        if next_draw == N_TILES and rules.no_hand_can_play(ws, players):
            return None
        seat = (seat + 1) % players


def view_of(ws, seat, players, count, entity_of_seat):
    """The deciding seat's view of the world, every array a copy (none points into the world)."""
    board = ws.board
    return K.PlayerView(
        np.int64(seat), np.int64(players), np.int64(ws.hands[seat]), entity_of_seat.copy(),
        ws.scores.copy(), ws.hand_sizes.copy(), ws.lacking.copy(), np.int64(0),
        np.int64(board[K.BOARD_PLAYED]), np.int64(board[K.BOARD_TOTAL]),
        np.int64(board[K.BOARD_OPEN_VALUES]), np.int64(board[K.BOARD_NODES]),
        ws.nodes[: board[K.BOARD_NODES]].copy(), ws.open_count.copy(),
        np.int64(board[K.BOARD_OPEN_NODES]), ws.open_nodes[: board[K.BOARD_OPEN_NODES]].copy(),
        np.int64(count), ws.cands[:count].copy(), np.zeros(1), decision_state(1, 2, seat),
        np.int64(0), ws.history[:0].copy(), ws.hands[:0].copy(), ws.deal[:0].copy(),
    )


def sealed_view(view, params, world=None, next_draw=N_TILES):
    """``view`` as the engine hands it to a strategy: read-only arrays (all but the stream: the
    engine's Numba type, so the kernels compiled for its runs serve), the strategy's
    ``params``, and the boneyard's size. With ``world`` (the endgame's workspace) the hidden
    hands and the boneyard from ``next_draw`` on are handed too, as to a ``sees_hidden``
    strategy; without, they are empty, as to a fair one. The decision stream is a copy: each
    sealed view starts from the stream ``view`` holds, however often a strategy drew from
    another."""
    players = int(view.players)
    hidden_hands, hidden_boneyard = view.hidden_hands, view.hidden_boneyard
    if world is not None:
        hidden_hands, hidden_boneyard = world.hands[:players].copy(), world.deal[next_draw:].copy()
    arrays = {name: read_only_view(getattr(view, name)) for name in
              ("entity_of_seat", "scores", "hand_sizes", "lacking", "nodes", "open_count",
               "open_nodes", "cands", "history")}
    return view._replace(**arrays, boneyard_size=np.int64(N_TILES - next_draw),
                         params=read_only_view(np.asarray(params, dtype=np.float64)),
                         hidden_hands=read_only_view(hidden_hands),
                         hidden_boneyard=read_only_view(hidden_boneyard), rng=view.rng.copy())


def endgames(players, wanted, left_range, seed):
    """``wanted`` endgames of ``players`` seats: (world, view, next_draw, seat).

    The view is sealed as the engine seals it (:func:`sealed_view`, no hidden arrays): the
    engine's Numba type, so the solver and the strategies run the kernels the built-in field's
    runs compiled (and cached), compiled once for one view type."""
    generator = np.random.default_rng(seed)
    found = []
    for match in range(5000):
        state = endgame(seed, match, players, int(generator.integers(*left_range)), generator)
        if state is None:
            continue
        ws, seat, next_draw, count, entity_of_seat = state
        view = sealed_view(view_of(ws, seat, players, count, entity_of_seat), np.zeros(1),
                           next_draw=next_draw)
        found.append((ws, view, next_draw, seat))
        if len(found) == wanted:
            return found
    raise AssertionError("too few endgames")
