"""The exact61-record/1 export of a :class:`sim.bridges.match_state.MatchState`.

The state keeps a :class:`RoundSnapshot` of every finished round; :func:`match_record`
turns them into the record object ``five-up verify`` accepts (when the state is terminal).
exact61-record/1 has no start scores (a verifier replays from 0-0), so a state started from
other scores has no record: :func:`match_record` refuses it. A round's ``boneyard`` lists the
tiles drawn, in draw order, then the never-drawn ones in tile order (any order of those is
consistent with the play).
"""

from __future__ import annotations

from collections import namedtuple

from sim.bridges.match_codes import tiles_of
from core import state as K
from sim.engine.export import SIDE_NAMES, event_object
from sim.engine.frames import END_NAMES
from sim.records import FORMAT
from core.tiles import HAND_SIZE, TILES

TILE_PAIRS = tuple((low, high) for low, high in TILES)
"""``(low, high)`` of each tile index (listed as ``[low, high]`` in a record)."""

RoundSnapshot = namedtuple(
    "RoundSnapshot", ["leader", "dealt", "pool", "rows", "events", "end", "winner", "scores"])
RoundSnapshot.__doc__ = """A finished round as :func:`match_record` needs it.

leader : int; dealt : list of int, the tiles dealt then drawn, in order; pool : int, the tile
set never drawn; rows : list of int lists, the round's public history (``H_*`` columns);
events : tuple of int tuples, its score events (``E_*`` columns); end : int, an ``END_*``
code; winner : int, the round's winner or ``NO_ENTITY``; scores : tuple of int, every
entity's raw score after it.
"""


def round_object(players: int, snapshot: RoundSnapshot) -> dict:
    """The record's Round object of one finished round."""
    first_draw = HAND_SIZE * players
    dealt = snapshot.dealt
    drawn = dealt[first_draw:]
    actions = []
    draws = 0
    for row in snapshot.rows:
        seat = row[K.H_SEAT]
        kind = row[K.H_KIND]
        if kind == K.ACTION_DRAW:
            actions.append({"seat": seat, "type": "draw",
                            "tile": list(TILE_PAIRS[drawn[draws]])})
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
                "tile": list(TILE_PAIRS[tile]) if opening
                else [joined, int(K.TILE_PIPS[tile]) - joined],
                "parent": None if opening else parent,
                "side": SIDE_NAMES[row[K.H_SIDE]],
                "points": row[K.H_POINTS],
            })
    winner = snapshot.winner
    return {
        "leader": snapshot.leader,
        "hands": [[list(TILE_PAIRS[t]) for t in dealt[s * HAND_SIZE:(s + 1) * HAND_SIZE]]
                  for s in range(players)],
        "boneyard": [list(TILE_PAIRS[t]) for t in drawn + tiles_of(snapshot.pool)],
        "actions": actions,
        "events": [event_object(event) for event in snapshot.events],
        "end": END_NAMES[snapshot.end],
        "winner": None if winner == K.NO_ENTITY else winner,
        "scores": list(snapshot.scores),
    }


def match_record(state, strategies: list[str], seed: int = 0, match: int = 0) -> dict:
    """The exact61-record/1 object of ``state``'s finished rounds (module docstring).

    The match-level key ``max_rounds`` is the round limit (1 with ``one_round``); ``scores``
    are those after the last finished round (a match stopped inside a round, as a quit game,
    leaves that round out, and its events with it).

    Raises
    ------
    ValueError
        One strategy name per seat is not given, or the match did not start from zero scores.
    """
    if len(strategies) != state.players:
        raise ValueError(f"give one strategy name per seat ({state.players})")
    if any(state.start_scores):
        # Written anyway, its rounds' scores would contradict a replay from 0-0.
        raise ValueError(f"no record of a match started from scores {list(state.start_scores)}: "
                         "exact61-record/1 starts every match at zero")
    winner = state.winner
    finished = state.finished_rounds
    # The scores after the last finished round, not the state's: a match stopped inside a
    # round (a quit game) has that round's events applied, and the record does not hold it.
    scores = list(finished[-1].scores) if finished else list(state.start_scores)
    return {
        "format": FORMAT,
        "players": state.players,
        "entities": list(state.entities),
        "strategies": [str(s) for s in strategies],
        "seed": int(seed),
        "match": int(match),
        "rounds": [round_object(state.players, snapshot) for snapshot in finished],
        "winner": None if winner == K.NO_ENTITY else winner,
        "scores": scores,
        "max_rounds": 1 if state.one_round else state.max_rounds,
    }


__all__ = ["TILE_PAIRS", "RoundSnapshot", "match_record", "round_object"]
