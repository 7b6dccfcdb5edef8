"""Replay exact61-record/1 records with the reference and check every figure.

Every action is re-applied to a :class:`sim.reference.Round`, so legality
(whose turn, tile ownership, forced draws from the front of the boneyard,
passes, connections, arms) is decided by the same code that plays matches. The
events, round ends, winners and scores are then recomputed and compared.

A record is judged by its first problem: after one mismatch the replay cannot
continue meaningfully. :func:`verify_record` returns that problem as one line
(``"round 3, action 12: expected ..., found ..."``) or nothing when valid: rounds count
from 1 (``round 3`` is ``rounds[2]``), as every text users read does; actions and events are
their index in the round's lists (``action 12`` is ``actions[12]``), as the events' own
``action`` field counts them.

Interrupted records
    exact61-record/1 allows extra keys at the match level; ``five-up play`` writes
    ``"interrupted": true`` when the player quits, with the rounds finished so far, winner
    null and the scores after them. Such a record is checked as any other, action by
    action, round by round, except that it may stop below the round limit with no entity
    at 305; it must not be a match that ended (305 reached, or the round limit), and its
    rounds are whole Round objects (the format has no round without an end), so one that
    stops before its end is invalid, marked or not. :func:`is_interrupted` tells a valid
    record of a quit match from a complete one; ``five-up verify`` counts them apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sim.records import FORMAT, iter_record_lines
from sim.reference import END_DOMINO, Placement, RuleError, Round
from core.tiles import DEFAULT_MAX_ROUNDS, HAND_SIZE, N_TILES, N_VALUES, TARGET_RAW, entities_for
from sim.wording import counted

MATCH_KEYS = {"format", "players", "entities", "strategies", "seed", "match", "rounds",
              "winner", "scores"}
INTERRUPTED_KEY = "interrupted"
"""The match-level key ``five-up play`` sets to true when the player quits (module docstring)."""
ROUND_KEYS = {"leader", "hands", "boneyard", "actions", "events", "end", "winner", "scores"}
ACTION_KEYS = {
    "draw": {"seat", "type", "tile"},
    "pass": {"seat", "type"},
    "play": {"seat", "type", "tile", "parent", "side", "points"},
}
EVENT_KEYS = {
    "placement": ["entity", "kind", "action", "raw", "accepted"],
    "domino": ["entity", "kind", "seat", "placement", "credit", "debit", "raw", "accepted"],
    "blocked": ["entity", "kind", "seat", "raw", "accepted"],
}


class Invalid(Exception):
    """The first problem found in a record."""

    def __init__(self, message: str, round_index: int | None = None, where: str | None = None):
        super().__init__(message)
        self.message = message
        self.round_index = round_index
        self.where = where

    def __str__(self) -> str:
        parts = []
        if self.round_index is not None:
            parts.append(f"round {self.round_index + 1}")  # counted from 1, as users read
        if self.where:
            parts.append(self.where)
        prefix = ", ".join(parts)
        return f"{prefix}: {self.message}" if prefix else self.message


# ---------------------------------------------------------------------------
# Shape checks: every malformed value becomes an Invalid, never a traceback
# ---------------------------------------------------------------------------


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value, what: str, low: int | None = None, high: int | None = None) -> int:
    if not _is_int(value):
        raise Invalid(f"{what} must be an integer, found {_show(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"in {low}..{high}" if high is not None else f"at least {low}"
        raise Invalid(f"{what} must be {bounds}, found {_show(value)}")
    return value


def _list(value, what: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        raise Invalid(f"{what} must be a list, found {_show(value)}")
    if length is not None and len(value) != length:
        raise Invalid(f"expected {length} items in {what}, found {len(value)}")
    return value


def _object(value, what: str, keys: set[str], extra_allowed: bool = False) -> dict:
    if not isinstance(value, dict):
        raise Invalid(f"{what} must be an object, found {_show(value)}")
    missing = sorted(keys - value.keys())
    if missing:
        raise Invalid(f"{what} is missing key {missing[0]!r}")
    if not extra_allowed:
        extra = sorted(value.keys() - keys)
        if extra:
            raise Invalid(f"{what} has unexpected key {extra[0]!r}")
    return value


def _tile(value, what: str) -> tuple[int, int]:
    pair = _list(value, what, 2)
    a = _int(pair[0], f"{what} half", 0, N_VALUES - 1)
    b = _int(pair[1], f"{what} half", 0, N_VALUES - 1)
    return a, b


def _show(value) -> str:
    try:
        text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    except ValueError:  # an int too long for str() (Python's int_max_str_digits)
        text = "a huge integer"
    return text if len(text) <= 40 else text[:37] + "..."


def _name(tile) -> str:
    return f"{tile[0]}-{tile[1]}"


def _expect(found, expected, what: str, round_index=None, where=None) -> None:
    if not _same(found, expected):
        raise Invalid(f"expected {what} {_fmt(expected)}, found {_fmt(found)}", round_index, where)


def _same(found, expected) -> bool:
    # bool == int and 5.0 == 5 in Python: compare types too, inside lists as well, so
    # `true` never passes for 1 nor `[305.0, 0]` for `[305, 0]`.
    if type(found) is not type(expected):
        return False
    if isinstance(expected, list):
        return len(found) == len(expected) and all(map(_same, found, expected))
    return found == expected


def _fmt(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, list):
        return _show(value)
    try:
        text = str(value)
    except ValueError:  # an int too long for str() inside the list
        text = "a list"
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------
# Replay
# ---------------------------------------------------------------------------


def _replay_action(rnd: Round, action, index: int, plays_so_far: int) -> None:
    where = f"action {index}"
    if rnd.over:
        raise Invalid(f"action after the round ended ({rnd.end})", where=where)
    if (not isinstance(action, dict) or not isinstance(action.get("type"), str)
            or action["type"] not in ACTION_KEYS):
        kind = action.get("type") if isinstance(action, dict) else action
        raise Invalid(f"expected an action of type draw, pass or play, found {_show(kind)}",
                      where=where)
    try:
        _object(action, "the action", ACTION_KEYS[action["type"]])
        seat = _int(action["seat"], "seat", 0, rnd.players - 1)
        if seat != rnd.turn:
            raise Invalid(f"expected seat {rnd.turn} to act, found seat {seat}")
        kind = action["type"]
        if kind == "draw":
            tile = _tile(action["tile"], "the drawn tile")
            if rnd.can_play(seat):
                raise Invalid(f"seat {seat} draws while holding a legal placement")
            if not rnd.boneyard:
                raise Invalid("draw from an empty boneyard")
            front = rnd.boneyard[0]
            if sorted(tile) != list(front):
                raise Invalid(f"expected draw of {_name(front)} (front of the boneyard), "
                              f"found {_name(tile)}")
            rnd.draw(seat)
        elif kind == "pass":
            rnd.pass_turn(seat)
        else:
            tile = _tile(action["tile"], "the played tile")
            parent, side = action["parent"], action["side"]
            if plays_so_far == 0:
                if parent is not None or side is not None:
                    raise Invalid("expected the opening to have parent null and side null, "
                                  f"found parent {_fmt(parent)}, side {_fmt(side)}")
            else:
                _int(parent, "parent", 0, plays_so_far - 1)
                if side not in ("line", "arm"):
                    raise Invalid(f"expected side \"line\" or \"arm\", found {_fmt(side)}")
            points = _int(action["points"], "points")
            placement = Placement(tile, parent, side)
            if (plays_so_far and not rnd.layout.is_legal(placement)
                    and rnd.layout.is_legal(Placement(tile[::-1], parent, side))):
                raise Invalid(f"tile halves reversed: {_name(tile[::-1])} joins placement "
                              f"{parent}, found {_name(tile)}")
            expected_points = rnd.play(seat, placement)
            _expect(points, expected_points, "points")
    except RuleError as exc:
        raise Invalid(str(exc), where=where) from None
    except Invalid as exc:
        raise Invalid(exc.message, where=where) from None


def _compare_events(expected: list[dict], found, round_index: int) -> None:
    found = _list(found, "events")
    for j, want in enumerate(expected):
        where = f"event {j}"
        if j >= len(found):
            raise Invalid(f"expected a {want['kind']} event {_event_text(want)}, found none",
                          round_index, where)
        got = found[j]
        if not isinstance(got, dict):
            raise Invalid(f"event must be an object, found {_show(got)}", round_index, where)
        _expect(got.get("kind"), want["kind"], "kind", round_index, where)
        try:
            _object(got, f"the {want['kind']} event", set(EVENT_KEYS[want["kind"]]))
        except Invalid as exc:  # name the event, not just the round
            raise Invalid(exc.message, round_index, where) from None
        for key in EVENT_KEYS[want["kind"]]:
            _expect(got[key], want[key], f"{key}", round_index, where)
    if len(found) > len(expected):
        extra = found[len(expected)]
        raise Invalid(f"expected no further event, found {_show(extra)}"
                      if not isinstance(extra, dict) else
                      f"expected no further event, found a {extra.get('kind')} event",
                      round_index, f"event {len(expected)}")


def _event_text(event: dict) -> str:
    parts = [f"entity {event['entity']}", f"raw {event['raw']}",
             "accepted" if event["accepted"] else "discarded"]
    return "(" + ", ".join(parts) + ")"


def _check_deal(rnd_obj: dict, players: int) -> tuple[list, list]:
    hands = _list(rnd_obj["hands"], "hands", players)
    hands = [[_tile(t, "a dealt tile") for t in _list(h, f"seat {s}'s hand", HAND_SIZE)]
             for s, h in enumerate(hands)]
    boneyard = [_tile(t, "a boneyard tile")
                for t in _list(rnd_obj["boneyard"], "boneyard", N_TILES - HAND_SIZE * players)]
    seen: set[tuple[int, int]] = set()
    for tile in [t for h in hands for t in h] + boneyard:
        key = tuple(sorted(tile))
        if key in seen:
            raise Invalid(f"tile {_name(key)} appears twice in the deal")
        seen.add(key)
    return hands, boneyard


def is_interrupted(record) -> bool:
    """True if ``record`` is marked ``"interrupted": true`` (a quit match; module docstring)."""
    return isinstance(record, dict) and record.get(INTERRUPTED_KEY) is True


def check_record(record, start_scores=None) -> None:
    """Raise :class:`Invalid` at the record's first problem; return if valid.

    Parameters
    ----------
    record : object
        A decoded JSON value (any shape).
    start_scores : sequence of int, optional
        Raw score of each entity before the first round. exact61-record/1 starts every match
        at zero (the default); other scores check, in the same process, a match a bridge
        started elsewhere (:mod:`sim.bridges.pettingzoo_env`'s start options).
    """
    match = _object(record, "the record", MATCH_KEYS, extra_allowed=True)
    interrupted = match.get(INTERRUPTED_KEY, False)
    if not isinstance(interrupted, bool):
        raise Invalid(f"expected {INTERRUPTED_KEY} true or false, found {_fmt(interrupted)}")
    if match["format"] != FORMAT:
        raise Invalid(f"expected format \"{FORMAT}\", found {_fmt(match['format'])}")
    players = _int(match["players"], "players", 2, 4)
    entities = list(entities_for(players))
    _expect(match["entities"], entities, "entities")
    strategies = _list(match["strategies"], "strategies", players)
    if not all(isinstance(s, str) for s in strategies):
        raise Invalid("strategies must be strings")
    _int(match["seed"], "seed")
    _int(match["match"], "match")
    max_rounds = _int(match.get("max_rounds", DEFAULT_MAX_ROUNDS), "max_rounds", 1)
    n_entities = max(entities) + 1
    rounds = _list(match["rounds"], "rounds")
    if not rounds:
        raise Invalid("a match has at least one round, found none")
    if len(rounds) > max_rounds:
        raise Invalid(f"expected at most {max_rounds} rounds (the round limit), found {len(rounds)}")

    scores = [0] * n_entities if start_scores is None else [int(s) for s in start_scores]
    if len(scores) != n_entities:
        raise ValueError(f"start_scores must hold {n_entities} raw scores, not {len(scores)}")
    previous: Round | None = None
    for r, rnd_obj in enumerate(rounds):
        try:
            if previous is not None and previous.match_over:
                raise Invalid(f"the match ended in round {r} at {TARGET_RAW}, "
                              f"found a further round")
            _object(rnd_obj, "the round", ROUND_KEYS)
            leader = _int(rnd_obj["leader"], "leader", 0, players - 1)
            if previous is not None and previous.end == END_DOMINO:
                dominoer = next(s for s in range(players) if not previous.hands[s])
                if leader != dominoer:
                    raise Invalid(f"expected leader {dominoer} (the dominoer of round {r}), "
                                  f"found {leader}")
            hands, boneyard = _check_deal(rnd_obj, players)
            rnd = Round(hands, boneyard, leader, scores, entities)
            plays = 0
            for i, action in enumerate(_list(rnd_obj["actions"], "actions")):
                _replay_action(rnd, action, i, plays)
                plays += action["type"] == "play"
            if not rnd.over:
                # A quit match keeps its finished rounds only: say so where it matters.
                whole = "; an interrupted record holds finished rounds only" if interrupted else ""
                raise Invalid(f"the actions stop before the round ends "
                              f"(seat {rnd.turn} to act){whole}")
            _compare_events([e.as_record() for e in rnd.events], rnd_obj["events"], r)
            _expect(rnd_obj["end"], rnd.end, "end")
            _expect(rnd_obj["winner"], rnd.winner, "round winner")
            _expect(rnd_obj["scores"], rnd.scores, "scores after the round")
        except Invalid as exc:
            raise Invalid(exc.message, r if exc.round_index is None else exc.round_index,
                          exc.where) from None
        scores = list(rnd.scores)
        previous = rnd

    expected_winner = scores.index(TARGET_RAW) if previous.match_over else None
    if interrupted and expected_winner is not None:
        raise Invalid(f"marked {INTERRUPTED_KEY}, but the match ended: entity "
                      f"{expected_winner} reached {TARGET_RAW} in round {len(rounds)}")
    if interrupted and len(rounds) == max_rounds:
        raise Invalid(f"marked {INTERRUPTED_KEY}, but the match ended at its round limit of "
                      f"{_show(max_rounds)}")
    if not interrupted and expected_winner is None and len(rounds) < max_rounds:
        raise Invalid(f"the match stops after {counted(len(rounds), 'round')} with no entity at "
                      f"{TARGET_RAW} and below its round limit of {_show(max_rounds)}")
    _expect(match["winner"], expected_winner, "match winner")
    _expect(match["scores"], scores, "final scores")


def verify_record(record) -> list[str]:
    """Problems found in one decoded record: an empty list when it is valid.

    At most one line is returned: the first problem, e.g.
    ``"round 2, action 7: expected points 15, found 20"``.
    """
    try:
        check_record(record)
    except Invalid as exc:
        return [str(exc)]
    except RecursionError:
        return ["the record is nested too deeply"]
    return []


@dataclass(frozen=True)
class FileReport:
    """Outcome of verifying one file.

    ``problems``: (line, first problem) of each invalid record; ``interrupted``: (line,
    finished rounds) of each valid record of a quit match (:func:`is_interrupted`).
    """

    path: str
    total: int
    problems: list[tuple[int, str]]
    error: str | None = None
    interrupted: list[tuple[int, int]] = field(default_factory=list)

    @property
    def valid(self) -> int:
        """Valid records of complete matches (not counting the interrupted ones)."""
        return self.total - len(self.problems) - len(self.interrupted)


def verify_file(path: str) -> FileReport:
    """Verify every line of a record file; an unreadable file sets ``error``."""
    total, problems, interrupted = 0, [], []
    try:
        for item in iter_record_lines(path):
            total += 1
            if item.error is not None:
                problems.append((item.line, item.error))
                continue
            found = verify_record(item.record)
            if found:
                problems.append((item.line, found[0]))
            elif is_interrupted(item.record):
                interrupted.append((item.line, len(item.record["rounds"])))
    except OSError as exc:
        return FileReport(path, total, problems, error=exc.strerror or str(exc),
                          interrupted=interrupted)
    return FileReport(path, total, problems, interrupted=interrupted)


def verify_paths(paths: Iterable[str], out, err) -> int:
    """``five-up verify``: print problems and a summary; return the exit status.

    One line per invalid record and per valid interrupted one, then the summary
    (``"3 records: 1 valid, 1 interrupted, 1 invalid"``; ``interrupted`` only when there is
    one). 0 when every record is valid (an interrupted one: its finished rounds valid), 1 when
    any is invalid or a file holds no record, 2 when a file cannot be read.
    """
    total = invalid = stopped = 0
    unreadable = empty = False
    for path in paths:
        report = verify_file(path)
        if report.error is not None:
            _say(f"five-up: error: cannot read {path}: {report.error}", err)
            unreadable = True
            continue
        if report.total == 0:
            # An empty file proves nothing: say so and fail rather than pass silently.
            _say(f"{path}: no records in the file", out)
            empty = True
        lines = [(line, problem) for line, problem in report.problems]
        lines += [(line, f"interrupted after {counted(rounds, 'finished round')}: the actions "
                         "and scores so far are valid")
                  for line, rounds in report.interrupted]
        for line, text in sorted(lines):
            _say(f"{path}:{line}: {text}", out)
        total += report.total
        invalid += len(report.problems)
        stopped += len(report.interrupted)
    counts = [f"{total - invalid - stopped} valid"]
    if stopped:
        counts.append(f"{stopped} interrupted")
    counts.append(f"{invalid} invalid")
    _say(f"{counted(total, 'record')}: {', '.join(counts)}", out)
    if unreadable:
        return 2
    return 1 if invalid or empty else 0


def _say(text: str, stream) -> None:
    """Print one line that the stream can always encode.

    Problems quote record content (keys, strings) and paths may hold undecodable
    bytes: escape what the stream's encoding cannot take rather than crash.
    """
    encoding = getattr(stream, "encoding", None) or "utf-8"
    print(text.encode(encoding, "backslashreplace").decode(encoding), file=stream)
