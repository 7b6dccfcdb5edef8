"""Compiled kernels of the research studies (package ``experiments``).

Array-in / array-out Numba kernels built on the engine's primitives
(:mod:`sim._kernels`, :mod:`sim._play`). They add nothing to the rules: every
placement, event, settlement and target test goes through the engine's own
functions. :mod:`sim.studies` wraps them in Python functions returning frames.

Two jobs
--------
:func:`walk_matches`
    Replays the engine's trace arrays (round rows, actions, events of a batch
    of matches, see :mod:`sim._play`) and derives what the trace does not state
    directly: each event's round and turn index and its entity's score *before*
    the event, and per (match, entity) how long the entity spent near 61.
:func:`opening_counterfactual`
    For given 5-tile hands of the leader, forces each tile of the hand as the
    round's opening and plays the round out many times with a fixed strategy,
    the unseen tiles (the other hands and the boneyard) re-dealt at random for
    every playout. The same re-deals and decision streams serve every tile of
    a hand (common random numbers), so tile-to-tile differences are sharp.

Turns
-----
A *turn* ends with a play or a pass (draws belong to the turn they precede,
ruling 5). Turns are numbered from 0 within the match and within the round.
An event's turn is the turn whose placement made it; a settlement event's
turn is the round's last turn.

Near-61 zones (raw points)
--------------------------
``ZONE10_LOW = 255`` (displayed 51: within 10 points of 61) and
``ZONE5_LOW = 280`` (displayed 56: within 5 points), both up to 300 (60
displayed); 305 is the target itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim._kernels import (
    ANSWER_FIELDS,
    A_KIND,
    A_SEAT,
    ACTION_DRAW,
    ACTION_FIELDS,
    ACTION_PLAY,
    BOARD_ERROR,
    E_ACCEPTED,
    E_ACTION,
    E_ENTITY,
    E_KIND,
    E_RAW,
    ENTITY_OF_SEAT,
    EVENT_FIELDS,
    EVENT_PLACEMENT,
    MAX_ENTITIES,
    N_ENTITIES,
    R_ACTIONS,
    R_EVENTS,
    R_GAIN,
    R_OPENING_TILE,
    R_WINNER,
    ROUND_FIELDS,
    new_workspace,
)
from sim._play import Trace, play_dealt_round, start_seat_streams
from sim.rng import STREAM_DEAL, below, shuffle_round_deal, stream_key, word_at
from sim.tiles import HAND_SIZE, N_TILES, TARGET_RAW

STRATEGY_DEPENDENT = ("replay_dealt_round", "opening_counterfactual")
"""Kernels that play rounds with strategies: :mod:`sim.kernel_sets` compiles a
copy of them for each set of strategies (like :data:`sim._play.STRATEGY_DEPENDENT`)."""

ZONE10_LOW = TARGET_RAW - 50
"""Lowest raw score within 10 displayed points of 61 (displayed 51)."""

ZONE5_LOW = TARGET_RAW - 25
"""Lowest raw score within 5 displayed points of 61 (displayed 56)."""

STREAM_CF_DEAL = 101
"""Random stream of the counterfactual re-deals of the unseen tiles (distinct
from the engine's :data:`sim.rng.STREAM_DEAL` and ``STREAM_DECISION``)."""

STREAM_CF_DECISION = 102
"""Random stream of the strategies' decisions in counterfactual playouts."""

# ev_out[k, ...]: per event of the trace
EV_ROUND = 0
"""Round index within the match."""
EV_TURN = 1
"""Turn index within the match."""
EV_ROUND_TURN = 2
"""Turn index within the round."""
EV_SCORE_BEFORE = 3
"""Raw score of the event's entity just before the event."""
EV_FIELDS = 4

# path_out[m, e, ...]: per match and entity
P_OWN_TURNS = 0
"""Turns taken by the entity's seats."""
P_ZONE10_TURNS = 1
"""Own turns begun with the entity within 10 points of 61 (raw 255..300)."""
P_ZONE5_TURNS = 2
"""Own turns begun within 5 points of 61 (raw 280..300)."""
P_ZONE10_TABLE_TURNS = 3
"""Turns of any seat begun with the entity within 10 points."""
P_ZONE10_ROUNDS = 4
"""Rounds during which the entity was within 10 points at some moment."""
P_ZONE5_ROUNDS = 5
"""Rounds during which the entity was within 5 points at some moment."""
P_FIRST_ZONE10_EVENT = 6
"""Index (within the match's events) of the event that first brought the
entity within 10 points; -1 if never (a score of 0..254 that jumps to 305
directly never enters the zone)."""
P_FIRST_ZONE5_EVENT = 7
"""Likewise for 5 points."""
P_EVENTS = 8
"""Score events of the entity."""
P_DISCARDED = 9
"""Its events discarded for overshoot."""
P_RAW_DISCARDED = 10
"""Raw points of its discarded events."""
P_MAX_SCORE = 11
"""Highest raw score it held."""
P_FIRST_ZONE10_ROUND = 12
"""Round in which it first came within 10 points (-1 if never)."""
PATH_FIELDS = 13


@njit(cache=True)
def _zone10(score):
    return ZONE10_LOW <= score < TARGET_RAW


@njit(cache=True)
def _zone5(score):
    return ZONE5_LOW <= score < TARGET_RAW


@njit(cache=True)
def walk_matches(players, round_offsets, round_rows, action_offsets, actions, event_offsets,
                 events, ev_out, path_out):
    """Derive event context and near-61 paths from the engine's trace arrays.

    Parameters
    ----------
    players : int64
    round_offsets, action_offsets, event_offsets : int64[n + 1]
        Rows of match ``m`` are ``offsets[m]:offsets[m+1]`` (as filled by
        :func:`sim._play.simulate_batch`).
    round_rows : int32[R, ROUND_FIELDS]
    actions : int16[A, ACTION_FIELDS]
    events : int32[E, EVENT_FIELDS]
    ev_out : int64[E, EV_FIELDS]
        Filled: ``EV_*`` for every event row.
    path_out : int64[n, MAX_ENTITIES, PATH_FIELDS]
        Filled: ``P_*`` per match and entity (unused entities zero).

    Returns
    -------
    int64
        Rounds whose events could not be matched to their plays (0 unless the
        trace is corrupt).
    """
    entity_of_seat = ENTITY_OF_SEAT[players]
    n_entities = N_ENTITIES[players]
    n_matches = round_offsets.shape[0] - 1
    scores = np.zeros(MAX_ENTITIES, dtype=np.int64)
    flag10 = np.zeros(MAX_ENTITIES, dtype=np.int64)
    flag5 = np.zeros(MAX_ENTITIES, dtype=np.int64)
    inconsistent = 0
    for m in range(n_matches):
        scores[:] = 0
        path_out[m, :, :] = 0
        for e in range(MAX_ENTITIES):
            path_out[m, e, P_FIRST_ZONE10_EVENT] = -1
            path_out[m, e, P_FIRST_ZONE5_EVENT] = -1
            path_out[m, e, P_FIRST_ZONE10_ROUND] = -1
        turn = 0
        a_row = action_offsets[m]
        e_row = event_offsets[m]
        match_event = 0
        for r in range(round_offsets[m], round_offsets[m + 1]):
            round_index = r - round_offsets[m]
            n_actions = round_rows[r, R_ACTIONS]
            e_end = e_row + round_rows[r, R_EVENTS]
            for e in range(n_entities):
                flag10[e] = 1 if _zone10(scores[e]) else 0
                flag5[e] = 1 if _zone5(scores[e]) else 0
            round_turn = 0
            for a in range(n_actions + 1):
                # a == n_actions: the settlement events after the last action
                if a < n_actions:
                    kind = actions[a_row + a, A_KIND]
                    if kind == ACTION_DRAW:
                        continue
                    entity = entity_of_seat[actions[a_row + a, A_SEAT]]
                    path_out[m, entity, P_OWN_TURNS] += 1
                    if _zone10(scores[entity]):
                        path_out[m, entity, P_ZONE10_TURNS] += 1
                    if _zone5(scores[entity]):
                        path_out[m, entity, P_ZONE5_TURNS] += 1
                    for e in range(n_entities):
                        if _zone10(scores[e]):
                            path_out[m, e, P_ZONE10_TABLE_TURNS] += 1
                    turn += 1
                    round_turn += 1
                    if kind != ACTION_PLAY:
                        continue
                while e_row < e_end:
                    if a < n_actions and not (events[e_row, E_KIND] == EVENT_PLACEMENT
                                              and events[e_row, E_ACTION] == a):
                        break
                    entity = events[e_row, E_ENTITY]
                    before = scores[entity]
                    ev_out[e_row, EV_ROUND] = round_index
                    ev_out[e_row, EV_TURN] = turn - 1
                    ev_out[e_row, EV_ROUND_TURN] = round_turn - 1
                    ev_out[e_row, EV_SCORE_BEFORE] = before
                    path_out[m, entity, P_EVENTS] += 1
                    if events[e_row, E_ACCEPTED] == 1:
                        scores[entity] = before + events[e_row, E_RAW]
                        after = scores[entity]
                        if after > path_out[m, entity, P_MAX_SCORE]:
                            path_out[m, entity, P_MAX_SCORE] = after
                        if _zone10(after):
                            flag10[entity] = 1
                            if path_out[m, entity, P_FIRST_ZONE10_EVENT] < 0:
                                path_out[m, entity, P_FIRST_ZONE10_EVENT] = match_event
                                path_out[m, entity, P_FIRST_ZONE10_ROUND] = round_index
                        if _zone5(after):
                            flag5[entity] = 1
                            if path_out[m, entity, P_FIRST_ZONE5_EVENT] < 0:
                                path_out[m, entity, P_FIRST_ZONE5_EVENT] = match_event
                    else:
                        path_out[m, entity, P_DISCARDED] += 1
                        path_out[m, entity, P_RAW_DISCARDED] += events[e_row, E_RAW]
                    match_event += 1
                    e_row += 1
                    if a < n_actions:
                        break  # one placement event per play
            for e in range(n_entities):
                path_out[m, e, P_ZONE10_ROUNDS] += flag10[e]
                path_out[m, e, P_ZONE5_ROUNDS] += flag5[e]
            a_row += n_actions
            if e_row != e_end:
                inconsistent += 1  # an event not matched to its play: reported to Python
                e_row = e_end
    return inconsistent


# ---------------------------------------------------------------------------
# Counterfactual openings
# ---------------------------------------------------------------------------
@njit(cache=True)
def replay_dealt_round(deal, players, seat_strategy, seat_params, leader, forced_tile, scores,
                       rng_key):
    """Play one round from ``deal`` on a fresh workspace; return a copy of its round stats.

    ``scores`` (int64[MAX_ENTITIES]) are the entities' scores before the round;
    every seat's decision stream starts from ``rng_key`` (:func:`sim._play.start_seat_streams`). For tests and spot checks
    (:func:`sim.studies.replay_round`).
    """
    ws = new_workspace()
    for t in range(N_TILES):
        ws.deal[t] = deal[t]
    for e in range(MAX_ENTITIES):
        ws.scores[e] = scores[e]
    start_seat_streams(ws, players, rng_key)
    trace = Trace(
        np.zeros((0, ROUND_FIELDS), dtype=np.int32),
        np.zeros((0, N_TILES), dtype=np.int8),
        np.zeros((0, ACTION_FIELDS), dtype=np.int16),
        np.zeros((0, EVENT_FIELDS), dtype=np.int32),
        np.zeros((0, ANSWER_FIELDS), dtype=np.int64),
    )
    entity_of_seat = ENTITY_OF_SEAT[players, :players]
    play_dealt_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params, leader,
                     forced_tile)
    return ws.round_stats.copy()


@njit(cache=True)
def engine_deal(seed, match, round_index, out):
    """Write the engine's shuffled tiles of a round of ``match`` into ``out`` (int64[28]).

    :func:`sim.rng.shuffle_round_deal`, as :func:`sim._play.play_round` deals
    (tests check the two agree): seat ``s`` holds ``out[5s:5s+5]``.
    """
    shuffle_round_deal(stream_key(seed, match, STREAM_DEAL), round_index, out)


@njit(cache=True)
def sample_hands(seed, first_hand, n_hands, out):
    """Seat 0's dealt hand in round 0 of matches ``first_hand ..`` of ``seed`` (tile bitmasks)."""
    deal = np.zeros(N_TILES, dtype=np.int64)
    for h in range(n_hands):
        engine_deal(seed, first_hand + h, 0, deal)
        hand = 0
        for k in range(HAND_SIZE):
            hand |= 1 << deal[k]
        out[h] = hand


@njit(cache=True)
def redeal(unseen, n_unseen, key, out):
    """Fisher-Yates of ``unseen[:n_unseen]`` into ``out`` with the words of stream ``key``.

    The counterfactual's re-deal of the tiles the leader cannot see: the
    other hands, then the boneyard in draw order.
    """
    for t in range(n_unseen):
        out[t] = unseen[t]
    for step in range(n_unseen - 1):
        top = n_unseen - 1 - step
        pick = below(word_at(key, step), top + 1)
        swap = out[top]
        out[top] = out[pick]
        out[pick] = swap


@njit(nogil=True, cache=True)
def opening_counterfactual(seed, players, hands, hand_ids, seat_strategy, seat_params,
                          baseline_strategy, baseline_params, playouts, start, stop,
                          baseline_out, gains, winners, ends, errors):
    """Force each tile of each hand as the opening; play the round out ``playouts`` times.

    Serial and GIL-free over hands ``start .. stop - 1``, one workspace per
    call: :func:`sim.engine.run_blocks` runs disjoint hand ranges on several
    threads (see :func:`sim._play.simulate_batch` for why not ``prange``).

    Parameters
    ----------
    seed : int64
    players : int64
    hands : int64[H]
        The leader's (seat 0's) 5-tile hands, as tile bitmasks.
    hand_ids : int64[H]
        Random-stream index of each hand: playout ``k`` of hand ``h`` re-deals
        the 23 unseen tiles from ``word_at(stream_key(seed, hand_ids[h],
        STREAM_CF_DEAL), k)`` and seeds the decisions from
        ``word_at(stream_key(seed, hand_ids[h], STREAM_CF_DECISION), k)``, the
        same for every tile of the hand.
    seat_strategy : int64[players]; seat_params : float64[players, P]
        The strategy playing every seat in the playouts.
    baseline_strategy : int64[players]; baseline_params : float64[players, P]
        The strategy whose opening choice is reported in ``baseline_out``
        (asked once per hand, at scores 0 with an empty layout).
    playouts : int64
    start, stop : int64
        The hands to play, ``start .. stop - 1`` (results do not depend on how
        the hands are split).
    baseline_out : int64[H]
        Filled: the tile the baseline strategy opens with.
    gains : int32[H, 5, playouts, MAX_ENTITIES]
        Filled: raw points each entity gained in the round, for the hand's
        ``i``-th lowest tile forced as the opening (index ``i``).
    winners, ends : int8[H, 5, playouts]
        Filled: the round's winner entity (-1 none) and end kind.
    errors : int64[H]
        Set to ``strategy id + 1`` when a strategy returned an invalid choice
        for that hand (as the engine's ``BOARD_ERROR``), else left 0.
    """
    entity_of_seat = ENTITY_OF_SEAT[players, :players]
    ws = new_workspace()
    trace = Trace(
        np.zeros((0, ROUND_FIELDS), dtype=np.int32),
        np.zeros((0, N_TILES), dtype=np.int8),
        np.zeros((0, ACTION_FIELDS), dtype=np.int16),
        np.zeros((0, EVENT_FIELDS), dtype=np.int32),
        np.zeros((0, ANSWER_FIELDS), dtype=np.int64),
    )
    unseen = np.zeros(N_TILES, dtype=np.int64)
    hidden = np.zeros(N_TILES, dtype=np.int64)
    hand_tiles = np.zeros(HAND_SIZE, dtype=np.int64)
    for h in range(start, stop):
        hand = hands[h]
        n_hidden = 0
        n_held = 0
        for tile in range(N_TILES):
            if (hand >> tile) & 1:
                hand_tiles[n_held] = tile
                n_held += 1
            else:
                unseen[n_hidden] = tile
                n_hidden += 1
        # The baseline's opening: seat 0 to open with scores 0 and an empty layout. Its
        # strategy sees only its own hand there, so any deal of the unseen tiles will do;
        # the round is played by the same compiled loop (no second copy of the strategies).
        for slot in range(HAND_SIZE):
            ws.deal[slot] = hand_tiles[slot]
        for k in range(n_hidden):
            ws.deal[HAND_SIZE + k] = unseen[k]
        ws.scores[:] = 0
        start_seat_streams(ws, players, stream_key(seed, hand_ids[h], STREAM_CF_DECISION))
        ws.cursor[:] = 0
        ws.board[BOARD_ERROR] = 0
        play_dealt_round(ws, trace, players, entity_of_seat, baseline_strategy, baseline_params,
                         0, -1)
        baseline_out[h] = ws.round_stats[R_OPENING_TILE]
        if ws.board[BOARD_ERROR] != 0:
            errors[h] = ws.board[BOARD_ERROR]
        deal_key = stream_key(seed, hand_ids[h], STREAM_CF_DEAL)
        decision_key = stream_key(seed, hand_ids[h], STREAM_CF_DECISION)
        for k in range(playouts):
            redeal(unseen, n_hidden, word_at(deal_key, k), hidden)
            for slot in range(HAND_SIZE):
                forced = hand_tiles[slot]
                for s in range(HAND_SIZE):
                    ws.deal[s] = hand_tiles[s]
                for t in range(n_hidden):
                    ws.deal[HAND_SIZE + t] = hidden[t]
                ws.scores[:] = 0
                start_seat_streams(ws, players, word_at(decision_key, k))
                ws.cursor[:] = 0
                ws.board[:] = 0
                end = play_dealt_round(ws, trace, players, entity_of_seat, seat_strategy,
                                       seat_params, 0, forced)
                for e in range(MAX_ENTITIES):
                    gains[h, slot, k, e] = ws.round_stats[R_GAIN + e]
                winners[h, slot, k] = ws.round_stats[R_WINNER]
                ends[h, slot, k] = end
                if ws.board[BOARD_ERROR] != 0:
                    errors[h] = ws.board[BOARD_ERROR]
