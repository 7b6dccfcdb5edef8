"""Record export: the engine's trace of a match as an exact61-record/1 object.

:func:`match_record` turns one match's trace rows (round rows, deals, actions,
events; see :mod:`sim.engine.play`) into the JSON-ready dict of the binding
record format (``docs/record-format.md``), field for field, plus the
match-level keys ``"max_rounds"`` and, for a run with a secret (``--sealed``),
``"secret"`` (with the seed, what re-simulates the match's decisions). ``five-up verify`` replays every such record
with the rules reference.
"""

from __future__ import annotations

from core import state as K
from sim.engine.frames import END_NAMES
from sim.engine.spec import RunSpec
from sim.records import FORMAT
from core.tiles import HAND_SIZE, TILES

SIDE_NAMES = {K.SIDE_NONE: None, K.SIDE_LINE: "line", K.SIDE_ARM: "arm"}
"""Placement sides as records name them."""

_TILE_PAIRS = [[low, high] for low, high in TILES]


def match_record(spec: RunSpec, match: int, stats, scores, rounds, deals, actions, events) -> dict:
    """The exact61-record/1 object of match ``match`` from its trace rows."""
    players = spec.players
    n_entities = spec.n_entities
    action_rows = actions.tolist()
    event_rows = events.tolist()
    round_objects = []
    action_cursor = 0
    event_cursor = 0
    for info, deal in zip(rounds.tolist(), deals.tolist()):
        n_actions = info[K.R_ACTIONS]
        n_events = info[K.R_EVENTS]
        round_actions = [
            _action_object(row) for row in action_rows[action_cursor : action_cursor + n_actions]
        ]
        round_events = [event_object(row) for row in event_rows[event_cursor : event_cursor + n_events]]
        action_cursor += n_actions
        event_cursor += n_events
        winner = info[K.R_WINNER]
        round_objects.append(
            {
                "leader": info[K.R_LEADER],
                "hands": [
                    [_TILE_PAIRS[t] for t in deal[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]]
                    for seat in range(players)
                ],
                "boneyard": [_TILE_PAIRS[t] for t in deal[players * HAND_SIZE :]],
                "actions": round_actions,
                "events": round_events,
                "end": END_NAMES[info[K.R_END]],
                "winner": None if winner == K.NO_ENTITY else winner,
                "scores": info[K.R_SCORE : K.R_SCORE + n_entities],
            }
        )
    if action_cursor != len(action_rows) or event_cursor != len(event_rows):
        raise RuntimeError(f"trace of match {match} does not add up")
    winner = int(stats[K.M_WINNER])
    return {
        "format": FORMAT,
        "players": players,
        "entities": list(spec.entities),
        "strategies": list(spec.names),
        "seed": spec.seed,
        "match": match,
        "rounds": round_objects,
        "winner": None if winner == K.NO_ENTITY else winner,
        "scores": [int(s) for s in scores[:n_entities]],
        "max_rounds": spec.max_rounds,
        **({"secret": spec.secret} if spec.secret is not None else {}),
    }


def _action_object(row: list[int]) -> dict:
    seat = row[K.A_SEAT]
    kind = row[K.A_KIND]
    tile = row[K.A_TILE]
    if kind == K.ACTION_DRAW:
        return {"seat": seat, "type": "draw", "tile": list(_TILE_PAIRS[tile])}
    if kind == K.ACTION_PASS:
        return {"seat": seat, "type": "pass"}
    parent = row[K.A_PARENT]
    joined = row[K.A_JOINED]
    if parent == K.NO_PARENT:
        halves = list(_TILE_PAIRS[tile])
    else:
        halves = [joined, int(K.TILE_PIPS[tile]) - joined]
    return {
        "seat": seat,
        "type": "play",
        "tile": halves,
        "parent": None if parent == K.NO_PARENT else parent,
        "side": SIDE_NAMES[row[K.A_SIDE]],
        "points": row[K.A_POINTS],
    }


EVENT_FIELDS_OF_KIND = {
    K.EVENT_PLACEMENT: ("placement", (("action", K.E_ACTION),)),
    K.EVENT_DOMINO: ("domino", (("seat", K.E_SEAT), ("placement", K.E_PLACEMENT),
                                ("credit", K.E_CREDIT), ("debit", K.E_DEBIT))),
    K.EVENT_BLOCKED: ("blocked", (("seat", K.E_SEAT),)),
}
"""Per event kind: its record name and the fields it carries between ``kind`` and ``raw``."""


def event_object(row: list[int]) -> dict:
    """The record's Event object of one trace event row (``E_*`` columns); the bridges'
    exporter uses it too."""
    name, fields = EVENT_FIELDS_OF_KIND[row[K.E_KIND]]
    event = {"entity": row[K.E_ENTITY], "kind": name}
    event.update((key, row[column]) for key, column in fields)
    event["raw"] = row[K.E_RAW]
    event["accepted"] = bool(row[K.E_ACCEPTED])
    return event
