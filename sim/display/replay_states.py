"""The states of a match move by move, computed from its exact61-record/1 record alone.

:func:`replay_states` turns one record into the data that the replay page
(:mod:`sim.display.replay_page`) shows: one *step* per moment worth showing.
Each round gives a ``deal`` step (hands as dealt, nothing on the table), one
step per action (``play``, ``draw`` or ``pass``: the state after it) and an
``end`` step (the settlement: hands revealed, domino or blocked events, the
round's result and, in the last round, the match's).

A step (a plain dict, JSON-ready) holds:

``round`` (int, 0-based), ``kind`` (str), ``action`` (int or None: index in
the round's ``actions``), ``seat`` (int or None: who acted), ``placed`` (int: tiles on the table, so placements
``0 .. placed - 1`` are shown), ``last`` (int or None: the placement this step
made), ``hands`` (one dict per seat: ``{"seat", "tiles": ["a-b", ...],
"pips"}`` when shown face up, ``{"seat", "count"}`` when hidden), ``boneyard``
(int: tiles left to draw), ``scores`` (raw int per entity, after this step),
``shown`` (str per entity: displayed points, raw / 5), ``text`` (str: what
happened), ``events`` (list of ``{"kind", "accepted", "text"}``: the score
events this step applied, in order), ``result`` (str: round end and match
winner, end steps only, else ``""``) and ``turn`` (int or None: who acts next).

With ``seat`` given, the states are what that seat saw: its own hand face up,
the others' hands as counts, other seats' draws without the tile; at the end
of a settled round (domino or blocked) every hand is revealed as settlement
reveals it. A round that ends on the target (an ordinary placement reaching
305) has no settlement, so its hands stay hidden. Nothing else of the deal or
of the boneyard order enters the states.
"""

from __future__ import annotations

from core.checks import check_int
from sim.reference import (
    END_BLOCKED,
    END_DOMINO,
    END_TARGET,
    Layout,
    Placement,
    normal,
    pips,
    round5,
)
from core.tiles import RAW_PER_DISPLAYED, TARGET_RAW, entity_count
from sim.verify import verify_record
from sim.wording import counted

SIDE_WORDS = {"line": "line side", "arm": "spinner arm"}
"""How a placement's ``side`` reads in a move's description."""


def tile_text(tile) -> str:
    """``"a-b"`` in the order given (a played tile reads joined half first)."""
    return f"{tile[0]}-{tile[1]}"


def displayed(raw: int) -> str:
    """Displayed points of a raw score (raw / 5), as text: ``"12"``, or ``"12.4"`` if not whole."""
    whole, part = divmod(raw, RAW_PER_DISPLAYED)
    return str(whole) if part == 0 else f"{raw / RAW_PER_DISPLAYED:.1f}"


def entity_names(players: int, entities: list[int]) -> list[str]:
    """A name per entity: ``"seat 1"``, or ``"seats 0+2"`` for a partnership."""
    names = []
    for entity in range(entity_count(players)):
        seats = [s for s in range(players) if entities[s] == entity]
        names.append(f"seat {seats[0]}" if len(seats) == 1 else "seats " + "+".join(map(str, seats)))
    return names


def check_replayable(record, seat) -> int | None:
    """Validate the record (:func:`sim.verify.verify_record`) and the seat; return the seat.

    Raises
    ------
    ValueError
        One line: ``"invalid record: round 2, action 7: ..."`` or ``"seat must be between ..."``.
    """
    problems = verify_record(record)
    if problems:
        raise ValueError(f"invalid record: {problems[0]}")
    if seat is None:
        return None
    return check_int(seat, "seat", 0, record["players"] - 1)


def replay_states(record: dict, seat: int | None = None) -> dict:
    """The replay data of one match: header facts, rounds and every step.

    Parameters
    ----------
    record : dict
        One exact61-record/1 match (validated first).
    seat : int or None
        Show the match as this seat saw it; None shows every hand throughout.

    Returns
    -------
    dict
        ``players``, ``seat``, ``entities`` (names), ``seats`` (labels with
        strategies), ``target`` (raw), ``rounds`` (per round: ``number``,
        ``leader``, ``first`` and ``last`` step index, ``end``), ``steps``
        (see the module docstring), ``winner`` (entity or None) and
        ``seed``/``match`` (full view only: with them the whole deal can be
        re-simulated, so a seat's view leaves them out).

    Raises
    ------
    ValueError
        The record is invalid or the seat is not at the table.
    """
    seat = check_replayable(record, seat)
    players = record["players"]
    entities = list(record["entities"])
    names = entity_names(players, entities)
    labels = [f"seat {s} ({record['strategies'][s]})" for s in range(players)]
    scores = [0] * entity_count(players)
    steps: list[dict] = []
    rounds: list[dict] = []
    for index, rnd in enumerate(record["rounds"]):
        first = len(steps)
        last_round = index == len(record["rounds"]) - 1
        _replay_round(index, rnd, seat, entities, names, scores, steps,
                      _match_result(record, names) if last_round else "")
        scores = list(rnd["scores"])
        rounds.append({"number": index + 1, "leader": rnd["leader"], "first": first,
                       "last": len(steps) - 1, "end": rnd["end"]})
    data = {"players": players, "seat": seat, "entities": names, "seats": labels,
            "target": TARGET_RAW, "rounds": rounds, "steps": steps, "winner": record["winner"]}
    if seat is None:
        data["seed"], data["match"] = record["seed"], record["match"]
    return data


def _match_result(record: dict, names: list[str]) -> str:
    winner = record["winner"]
    if winner is None:
        return (f"Match stopped unfinished after {counted(len(record['rounds']), 'round')}: "
                f"no entity reached {TARGET_RAW} raw.")
    return (f"Match winner: {names[winner]}, exactly {TARGET_RAW} raw "
            f"({displayed(TARGET_RAW)} displayed).")


def _replay_round(index: int, rnd: dict, seat: int | None, entities: list[int], names: list[str],
                  scores: list[int], steps: list[dict], match_result: str) -> None:
    """Append the round's steps; ``scores`` (raw, before the round) is updated in place."""
    players = len(entities)
    hands = [sorted(normal(tuple(t)) for t in hand) for hand in rnd["hands"]]
    boneyard = len(rnd["boneyard"])
    layout = Layout()
    placement_events = {e["action"]: e for e in rnd["events"] if e["kind"] == "placement"}
    settlement = [e for e in rnd["events"] if e["kind"] != "placement"]

    def step(kind, text, events=(), action=None, actor=None, last=None, turn=None, result="",
             reveal=False):
        shown_hands = []
        for s, hand in enumerate(hands):
            if seat is None or s == seat or reveal:
                shown_hands.append({"seat": s, "tiles": [tile_text(t) for t in hand],
                                    "pips": pips(hand)})
            else:
                shown_hands.append({"seat": s, "count": len(hand)})
        steps.append({"round": index, "kind": kind, "action": action, "seat": actor,
                      "placed": len(layout), "last": last, "hands": shown_hands, "boneyard": boneyard,
                      "scores": list(scores), "shown": [displayed(v) for v in scores],
                      "text": text, "events": list(events), "result": result, "turn": turn})

    leader = rnd["leader"]
    step("deal", f"Round {index + 1}: {counted(len(hands[0]), 'tile')} dealt to each seat, "
                 f"{boneyard} in the boneyard; seat {leader} leads.", turn=leader)
    for i, action in enumerate(rnd["actions"]):
        actor = action["seat"]
        events = []
        last = None
        if action["type"] == "draw":
            tile = normal(tuple(action["tile"]))
            hands[actor].append(tile)
            hands[actor].sort()
            boneyard -= 1
            seen = seat is None or seat == actor
            text = (f"Seat {actor} has no playable tile and draws "
                    + (f"{tile_text(tile)}." if seen else "a tile."))
            turn = actor
        elif action["type"] == "pass":
            text = f"Seat {actor} has no playable tile and the boneyard is empty: passes."
            turn = (actor + 1) % players
        else:
            placement = Placement(tuple(action["tile"]), action["parent"], action["side"])
            parent_tile = (None if placement.parent is None else
                           tile_text(_node_tile(layout, placement.parent)))
            layout.place(placement)
            hands[actor].remove(normal(placement.tile))
            last = len(layout) - 1
            text = _play_text(actor, placement, parent_tile, layout.total(), action["points"])
            if not hands[actor]:
                text += " Last tile: domino."
            event = placement_events.get(i)
            if event is not None:
                events.append(_event(event, scores, names, f"Placement by seat {actor}: "
                                     f"{event['raw']} raw ({displayed(event['raw'])})"))
            turn = (actor + 1) % players
        if i == len(rnd["actions"]) - 1:
            turn = None  # the round is over: nobody acts next
        step(action["type"], text, events, action=i, actor=actor, last=last, turn=turn)

    end = rnd["end"]
    events = [_event(e, scores, names, _settlement_head(e, hands, entities)) for e in settlement]
    step("end", _end_text(index, rnd, names), events,
         result=match_result, reveal=end in (END_DOMINO, END_BLOCKED))


def _node_tile(layout: Layout, index: int) -> tuple[int, int]:
    node = layout.nodes[index]
    return node.joined, node.open


def _play_text(actor: int, placement: Placement, parent_tile: str | None, total: int,
               points: int) -> str:
    tile = tile_text(placement.tile)
    if placement.parent is None:
        where = f"Seat {actor} opens with {tile}"
    else:
        where = (f"Seat {actor} plays {tile} on placement {placement.parent} ({parent_tile}), "
                 f"{SIDE_WORDS[placement.side]}")
    if points:
        return f"{where}: the ends total {total}, {points} raw ({displayed(points)})."
    return f"{where}: the ends total {total}, no points."


def _settlement_head(event: dict, hands: list[list[tuple[int, int]]], entities: list[int]) -> str:
    """What a domino or blocked event is made of, with the pips behind it."""
    seat = event["seat"]
    own = entities[seat]
    opponents = [s for s in range(len(hands)) if entities[s] != own]
    if event["kind"] == "domino":
        opposing = sum(pips(hands[s]) for s in opponents)
        text = (f"Domino by seat {seat}: placement {event['placement']} + credit "
                f"{event['credit']} (opponents hold {counted(opposing, 'pip')})")
        partners = [s for s in range(len(hands)) if s != seat and entities[s] == own]
        if partners:
            held = sum(pips(hands[s]) for s in partners)
            text += f" - debit {event['debit']} (partner holds {counted(held, 'pip')})"
        return text + f" = {event['raw']} raw"
    light = pips(hands[seat])
    gaps = [pips(hands[s]) - light for s in opponents if pips(hands[s]) > light]
    more = " + ".join(map(str, gaps)) + (f" = {sum(gaps)}" if len(gaps) > 1 else "")
    return (f"Blocked: seat {seat}'s hand holds {counted(light, 'pip')}; heavier opposing hands "
            f"hold {more} more, rounded {round5(sum(gaps))} raw")


def _event(event: dict, scores: list[int], names: list[str], head: str) -> dict:
    """Describe an event as applied and apply it to ``scores`` (raw, in place)."""
    entity, raw = event["entity"], event["raw"]
    before = scores[entity]
    after = before + raw
    sign = "+" if raw >= 0 else "-"
    sum_text = f"{before} {sign} {abs(raw)} = {after}"
    if event["accepted"]:
        scores[entity] = after
        tail = f"accepted for {names[entity]}: {sum_text}"
        if after == TARGET_RAW:
            tail += f", exactly {TARGET_RAW} ({displayed(TARGET_RAW)})"
    else:
        tail = f"discarded for {names[entity]}: {sum_text} would pass {TARGET_RAW}"
    return {"kind": event["kind"], "accepted": event["accepted"], "text": f"{head}: {tail}."}


def _end_text(index: int, rnd: dict, names: list[str]) -> str:
    end, winner = rnd["end"], rnd["winner"]
    head = f"Round {index + 1} ends"
    if end == END_DOMINO:
        return f"{head}: domino. Round winner: {names[winner]}."
    if end == END_BLOCKED:
        won = f"Round winner: {names[winner]}." if winner is not None else "The round is tied."
        return f"{head}: blocked (the boneyard is empty and no seat can play). {won}"
    return f"{head}: {END_TARGET} (a placement reached exactly {TARGET_RAW} raw)."
