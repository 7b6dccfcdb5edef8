"""The trace walk of the research studies: every score event in context, paths to 61.

:func:`walk_matches` is an array-in / array-out Numba kernel over the engine's
trace arrays (round rows, actions, events of a batch of matches, see
:mod:`sim.engine.play`). It derives what the trace does not state directly:
each event's round and turn index and its entity's score *before* the event,
and per (match, entity) how long the entity spent near 61. It adds nothing
to the rules: it only reads what the engine recorded.

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

from core.state import (A_KIND, A_SEAT, ACTION_DRAW, ACTION_PLAY, E_ACCEPTED, E_ACTION,
    E_ENTITY, E_KIND, E_RAW, ENTITY_OF_SEAT, EVENT_PLACEMENT, MAX_ENTITIES, N_ENTITIES, R_ACTIONS,
    R_EVENTS)
from core.tiles import TARGET_RAW

ZONE10_LOW = TARGET_RAW - 50
"""Lowest raw score within 10 displayed points of 61 (displayed 51)."""

ZONE5_LOW = TARGET_RAW - 25
"""Lowest raw score within 5 displayed points of 61 (displayed 56)."""

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
        :func:`sim.engine.play.simulate_batch`).
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
