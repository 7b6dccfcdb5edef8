"""A match record played again through :class:`sim.bridges.match_state.MatchState`, decision by
decision: the inverse of :mod:`sim.bridges.match_record`.

Each round's lot (its leader, when the rules draw one), its deal (the record's hands, seat by
seat) and every draw (the record's boneyard, in order) are applied as the state's chance
outcomes; each play is found among the legal placements of the state's decision. So every
decision is met in the state the rules make, and a seat's :meth:`MatchState.view` there is
what that seat knew when it chose. A record whose last round stops early (a quit game,
marked ``interrupted``) is played up to where it stops.
"""

from __future__ import annotations

from collections import namedtuple

from sim.bridges.match_codes import Phase, decode_action
from sim.bridges.match_state import MatchState
from core import state as K
from core.tiles import tile_index

SIDE_CODES = {"line": K.SIDE_LINE, "arm": K.SIDE_ARM}
"""A record's ``side`` names as the core's side codes."""

Decision = namedtuple("Decision", ["round", "turn", "seat", "state", "action"])
Decision.__doc__ = """One decision met while replaying a record.

round : int, the round's index (0 first); turn : int, the action's index in the round's
``actions``; seat : int, the deciding seat; state : MatchState, the state at the decision
(the caller may read it, not change it: the replay goes on from it); action : int, the action
code the record played.
"""


def played_action(state: MatchState, action: dict) -> int:
    """The legal action code of the record's ``play`` action at ``state``'s decision.

    Raises
    ------
    ValueError
        The placement is not legal there.
    """
    low, high = action["tile"]
    tile = tile_index(low, high)
    for code in state.legal_actions():
        placed, parent, side, joined = decode_action(code)
        if placed != tile:
            continue
        if parent == K.NO_PARENT:
            if action.get("parent") is None:
                return code
        elif (action.get("parent") == parent and SIDE_CODES.get(action.get("side")) == side
              and low == joined):
            return code
    raise ValueError(f"seat {action['seat']}'s play of {low}-{high} is not legal there")


def replay_decisions(record: dict):
    """Every decision of the record's match, in order.

    Parameters
    ----------
    record : dict
        An exact61-record/1 record (check it first: :func:`sim.verify.check_record`).

    Yields
    ------
    Decision
        Before its action is applied (the state then moves on to the next decision). After
        the last one the state holds the whole match: ``state.record(...)`` gives the record
        back.

    Raises
    ------
    ValueError
        The record's actions are not the ones the rules allow (a record that verifies never
        raises).
    """
    players = int(record["players"])
    state = MatchState(players, max_rounds=int(record.get("max_rounds") or 1000))
    for index, round_record in enumerate(record["rounds"]):
        if state.phase == Phase.LOT:
            state.apply_action(int(round_record["leader"]))
        elif state.leader != round_record["leader"]:
            raise ValueError(f"round {index + 1}: the record's leader {round_record['leader']} is "
                             f"not the rules' {state.leader}")
        for hand in round_record["hands"]:
            for low, high in hand:
                state.apply_action(tile_index(low, high))
        draws = iter(round_record["boneyard"])
        for turn, action in enumerate(round_record["actions"]):
            kind = action["type"]
            if kind == "draw":
                if state.phase != Phase.DRAW or state.mover != action["seat"]:
                    raise ValueError(f"round {index + 1}: seat {action['seat']} draws out of turn")
                state.apply_action(tile_index(*next(draws)))
            elif kind == "play":
                if state.phase != Phase.PLAY or state.mover != action["seat"]:
                    raise ValueError(f"round {index + 1}: seat {action['seat']} plays out of turn")
                code = played_action(state, action)
                yield Decision(index, turn, int(action["seat"]), state, code)
                state.apply_action(code)
            # A pass is the state's own step (a seat that cannot play with the boneyard empty).


__all__ = ["Decision", "SIDE_CODES", "played_action", "replay_decisions"]
