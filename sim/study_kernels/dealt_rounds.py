"""Rounds played from given deals: the studies' forced openings, rounds from score states, replays.

Array-in / array-out Numba kernels built on the engine's own round loop
(:func:`sim.engine.play.play_dealt_round`): they add nothing to the rules.
Like :mod:`sim.engine.play` they are templates that reach strategies only
through the round loop: a study hands this module to the engine of its set of
strategies (``run.engine.kernels(dealt_rounds)``,
:meth:`sim.engine.kernel_sets.EngineSet.kernels`), which compiles the kernels
named in :data:`STRATEGY_DEPENDENT` for that set, once, when first asked.

:func:`opening_counterfactual`
    For given 5-tile hands of the leader, forces each tile of the hand as the
    round's opening and plays the round out many times with a fixed strategy,
    the unseen tiles (the other hands and the boneyard) re-dealt at random for
    every playout. The same re-deals and decision streams serve every tile of
    a hand (common random numbers), so tile-to-tile differences are sharp.
:func:`rounds_from_states`
    One round per row from given start scores and leader, with a fresh deal
    (the win-probability tables of :mod:`sim.study_kernels.winprob`).
:func:`replay_dealt_round`
    One round from a given deal (tests and spot checks).
:func:`engine_deal`, :func:`sample_hands`
    The engine's deals, for choosing hands and for tests (compiled once, not per set).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.rng import (LOT_WORD, NO_SECRET, STREAM_DEAL, below, shuffle_round_deal, stream_key,
    word_at)
from core.state import (ANSWER_FIELDS, BOARD_ERROR, END_BLOCKED, END_DOMINO, ENTITY_OF_SEAT,
    MAX_ENTITIES, NO_SEAT, R_DOMINOER, R_GAIN, R_OPENING_TILE, R_WINNER, new_workspace)
from sim.engine.play import play_dealt_round, start_seat_streams, untraced
from core.tiles import HAND_SIZE, N_TILES, TARGET_RAW

STRATEGY_DEPENDENT = ("replay_dealt_round", "opening_counterfactual", "rounds_from_states")
"""Kernels that play rounds with strategies: :meth:`sim.engine.kernel_sets.EngineSet.kernels`
compiles a copy of them for a set of strategies (like :data:`sim.engine.play.STRATEGY_DEPENDENT`)."""

STREAM_CF_DEAL = 101
"""Random stream of the counterfactual re-deals of the unseen tiles (distinct
from the engine's :data:`core.rng.STREAM_DEAL` and ``STREAM_DECISION``)."""

STREAM_CF_DECISION = 102
"""Random stream of the strategies' decisions in counterfactual playouts."""

STREAM_STATE_DEAL = 103
"""Random stream of the deals (and leader lots) of :func:`rounds_from_states`."""

STREAM_STATE_DECISION = 104
"""Random stream of the strategies' decisions in :func:`rounds_from_states`."""

LEADER_BY_LOT = -1
"""A row's leader (input) or next leader (output) when it is drawn by lot / there is none."""

OPENING_LOT_WORD = LOT_WORD + 1
"""Word of a row's deal stream that draws its leader when the input says ``LEADER_BY_LOT``
(a spare word of the round's budget; ``LOT_WORD`` draws the next round's leader after a block)."""


@njit(cache=True)
def round_workspace(players):
    """``(ws, trace, entity_of_seat)`` for one kernel call's rounds at ``players`` seats: a fresh
    workspace, a trace that records nothing (no Python seats) and each seat's entity, as
    :func:`sim.engine.play.play_dealt_round` takes them."""
    return (new_workspace(), untraced(np.zeros((0, ANSWER_FIELDS), dtype=np.int64)),
            ENTITY_OF_SEAT[players, :players])


# ---------------------------------------------------------------------------
# Counterfactual openings
# ---------------------------------------------------------------------------
@njit(cache=True)
def replay_dealt_round(deal, players, seat_strategy, seat_params, leader, forced_tile, scores,
                       rng_key):
    """Play one round from ``deal`` on a fresh workspace; return a copy of its round stats.

    ``scores`` (int64[MAX_ENTITIES]) are the entities' scores before the round;
    every seat's decision stream starts from ``rng_key`` (:func:`sim.engine.play.start_seat_streams`). For tests and spot checks
    (:func:`sim.study_kernels.openings.replay_round`).
    """
    ws, trace, entity_of_seat = round_workspace(players)
    for t in range(N_TILES):
        ws.deal[t] = deal[t]
    for e in range(MAX_ENTITIES):
        ws.scores[e] = scores[e]
    start_seat_streams(ws, players, rng_key, NO_SECRET)
    play_dealt_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params, leader,
                     forced_tile)
    return ws.round_stats.copy()


@njit(cache=True)
def engine_deal(seed, match, round_index, out):
    """Write the engine's shuffled tiles of a round of ``match`` into ``out`` (int64[28]).

    :func:`core.rng.shuffle_round_deal`, as :func:`sim.engine.play.play_round` deals
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
def hand_first_deal(hand, held, unseen, deal):
    """Split the bitmask ``hand`` (int64) into its tiles ``held`` (int64[HAND_SIZE]) and the
    others ``unseen`` (int64[N_TILES], first entries), both in tile order, and write the deal
    that gives seat 0 that hand: ``deal[:HAND_SIZE] = held``, then the unseen tiles. Returns how
    many tiles are unseen."""
    n_hidden = 0
    n_held = 0
    for tile in range(N_TILES):
        if (hand >> tile) & 1:
            held[n_held] = tile
            n_held += 1
        else:
            unseen[n_hidden] = tile
            n_hidden += 1
    for slot in range(HAND_SIZE):
        deal[slot] = held[slot]
    for k in range(n_hidden):
        deal[HAND_SIZE + k] = unseen[k]
    return n_hidden


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
                          baseline_strategy, baseline_params, playouts, scores, start, stop,
                          baseline_out, gains, winners, ends, errors, secret):
    """Force each tile of each hand as the opening; play the round out ``playouts`` times.

    Serial and GIL-free over hands ``start .. stop - 1``, one workspace per
    call: :func:`sim.engine.batch.run_blocks` runs disjoint hand ranges on several
    threads (see :func:`sim.engine.play.simulate_batch` for why not ``prange``).

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
        (asked once per hand, at ``scores`` with an empty layout).
    playouts : int64
    scores : int64[MAX_ENTITIES]
        The entities' raw scores before every round (all 0: a match's first round).
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
    secret : uint64[2]
        The run secret keying the decision streams (:data:`core.rng.NO_SECRET`: none).
    """
    ws, trace, entity_of_seat = round_workspace(players)
    unseen = np.zeros(N_TILES, dtype=np.int64)
    hidden = np.zeros(N_TILES, dtype=np.int64)
    hand_tiles = np.zeros(HAND_SIZE, dtype=np.int64)
    for h in range(start, stop):
        # The baseline's opening: seat 0 to open at the start scores with an empty layout. Its
        # strategy sees only its own hand there, so any deal of the unseen tiles will do;
        # the round is played by the same compiled loop (no second copy of the strategies).
        n_hidden = hand_first_deal(hands[h], hand_tiles, unseen, ws.deal)
        ws.scores[:] = scores
        start_seat_streams(ws, players, stream_key(seed, hand_ids[h], STREAM_CF_DECISION), secret)
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
                ws.scores[:] = scores
                start_seat_streams(ws, players, word_at(decision_key, k), secret)
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


# ---------------------------------------------------------------------------
# One round from given scores (win-probability tables)
# ---------------------------------------------------------------------------
@njit(nogil=True, cache=True)
def rounds_from_states(seed, players, seat_strategy, seat_params, row_ids, start_scores, leaders,
                       row_start, row_stop, end_scores, end_kinds, dominoers, next_leaders,
                       errors, secret):
    """Play one round per row from the row's scores and leader, with a fresh deal.

    Serial and GIL-free over rows ``row_start .. row_stop - 1``, one workspace
    per call (:func:`sim.engine.batch.run_blocks` runs disjoint row ranges on
    several threads). Row ``i``'s round is a pure function of ``(seed,
    row_ids[i])``, its start state and the strategies: the deal is the
    engine's shuffle (:func:`core.rng.shuffle_round_deal`, round 0) of
    stream ``stream_key(seed, row_ids[i], STREAM_STATE_DEAL)`` and every seat's
    decision stream derives from ``stream_key(seed, row_ids[i],
    STREAM_STATE_DECISION)`` (:func:`sim.engine.play.start_seat_streams`), so
    results do not depend on the threads or the split.

    Parameters
    ----------
    seed : int64
    players : int64
    seat_strategy : int64[players]; seat_params : float64[players, P]
        Each seat's strategy slot and parameters.
    row_ids : int64[n]
        Random-stream index of each row.
    start_scores : int64[n, MAX_ENTITIES]
        Raw scores by entity before the round (unused entities 0).
    leaders : int64[n]
        The seat that opens, or ``LEADER_BY_LOT``: a uniform lot from word
        ``OPENING_LOT_WORD`` of the row's deal stream.
    row_start, row_stop : int64
    end_scores : int64[n, MAX_ENTITIES]
        Filled: raw scores by entity after the round.
    end_kinds : int8[n]
        Filled: ``END_DOMINO``, ``END_BLOCKED`` or ``END_TARGET``.
    dominoers : int8[n]
        Filled: the seat that dominoed, else ``NO_SEAT``.
    next_leaders : int8[n]
        Filled: the next round's leader under ruling 14: the dominoer after a
        domino, a uniform lot (word ``LOT_WORD`` of the row's deal stream) after
        a blocked round, ``LEADER_BY_LOT`` when an entity reached 305 (the
        match is over).
    errors : int64[n]; secret : uint64[2]
        As :func:`opening_counterfactual`'s, by row.
    """
    ws, trace, entity_of_seat = round_workspace(players)
    for row in range(row_start, row_stop):
        deal_key = stream_key(seed, row_ids[row], STREAM_STATE_DEAL)
        shuffle_round_deal(deal_key, 0, ws.deal)
        for e in range(MAX_ENTITIES):
            ws.scores[e] = start_scores[row, e]
        leader = leaders[row]
        if leader == LEADER_BY_LOT:
            leader = below(word_at(deal_key, OPENING_LOT_WORD), players)
        start_seat_streams(ws, players, stream_key(seed, row_ids[row], STREAM_STATE_DECISION), secret)
        ws.cursor[:] = 0
        ws.board[:] = 0
        end = play_dealt_round(ws, trace, players, entity_of_seat, seat_strategy, seat_params,
                               leader, -1)
        for e in range(MAX_ENTITIES):
            end_scores[row, e] = ws.scores[e]
        end_kinds[row] = end
        dominoers[row] = ws.round_stats[R_DOMINOER]
        match_over = False
        for e in range(MAX_ENTITIES):
            if ws.scores[e] == TARGET_RAW:
                match_over = True
        if match_over:
            next_leaders[row] = LEADER_BY_LOT
        elif end == END_DOMINO and ws.round_stats[R_DOMINOER] != NO_SEAT:
            next_leaders[row] = ws.round_stats[R_DOMINOER]
        elif end == END_BLOCKED:
            next_leaders[row] = below(word_at(deal_key, LOT_WORD), players)
        else:
            next_leaders[row] = LEADER_BY_LOT
        if ws.board[BOARD_ERROR] != 0:
            errors[row] = ws.board[BOARD_ERROR]
