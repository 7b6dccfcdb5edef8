"""Pure-Python reference of Exact 61 Five Up: the rules written to be read.

This module is the project's oracle. It is deliberately plain (lists, small
classes, no vectorisation) and it never imports the Numba engine; the engine
never imports it. ``five-up verify`` replays every record through the classes
here, so a rule lives in exactly one readable place.

Vocabulary (see ``docs/rules.md``; ruling numbers refer to the binding rulings):

- A *tile* is a pair ``(a, b)``; in hands it is kept as ``(low, high)``.
- A *node* is one placement on the layout (ruling 1). A non-double node has
  open *line sides* (its unmatched half; two for the opening non-double). A
  double is a *spinner* (ruling 2) with two line sides and two *arms*; its arms
  open only once both line sides are occupied.
- A *connection* is a place a tile may join: ``(parent, side, value)`` with
  side ``"line"`` or ``"arm"``. A placement is ``(tile, parent, side)``
  (ruling 4): the two arms of a spinner are one placement, and so are the two
  line sides of a lone opening double.
- The *scoring total* (ruling 3) is the sum of every node's contribution.
- Scores are raw points; the target is :data:`TARGET_RAW` (ruling 8).

Entry points: :func:`play_match` (plays and returns an exact61-record/1 dict),
:class:`Round` (a round as a state machine that both play and replay drive),
and the policies :func:`random_policy` and :func:`greedy_policy`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.checks import check_players
from sim.records import FORMAT
from core.tiles import DEFAULT_MAX_ROUNDS, HAND_SIZE, TARGET_RAW, TILE_INDEX, TILES, entities_for

Tile = tuple[int, int]

LINE = "line"
ARM = "arm"

END_DOMINO = "domino"
END_BLOCKED = "blocked"
END_TARGET = "target"


class RuleError(ValueError):
    """An action that the rules do not allow in the current state."""


# ---------------------------------------------------------------------------
# Small rule helpers
# ---------------------------------------------------------------------------


def round5(amount: int) -> int:
    """Nearest multiple of 5 (ruling 12): remainders 1, 2 down; 3, 4 up."""
    remainder = amount % 5
    return amount - remainder if remainder <= 2 else amount + (5 - remainder)


def award(total: int) -> int:
    """Raw points of a placement whose scoring total is ``total``.

    A total that is a positive multiple of 5 scores itself; anything else scores
    nothing (a total of 0 scores nothing either).
    """
    return total if total > 0 and total % 5 == 0 else 0


def pips(tiles: Sequence[Tile]) -> int:
    """Sum of both halves of every tile."""
    return sum(a + b for a, b in tiles)


def normal(tile: Tile) -> Tile:
    """The tile as ``(low, high)``."""
    a, b = tile
    return (a, b) if a <= b else (b, a)


# ---------------------------------------------------------------------------
# The layout
# ---------------------------------------------------------------------------


@dataclass
class Node:
    """One placement on the layout.

    Attributes
    ----------
    index : int
        Placement index within the round (0 is the opening).
    joined, open : int
        The half joined to the parent and the half left open. For the opening
        non-double these are just its two halves; for a double both equal v.
    parent : int or None
        Index of the node played on; None for the opening.
    side : str or None
        ``"line"`` or ``"arm"``: which kind of connection of the parent was used.
    open_line_sides : list of int
        Values of this node's line sides that nothing is joined to yet.
    open_arms : int
        Doubles only: arms still free (0 until both line sides are occupied,
        then 2, then fewer as arms are used).
    """

    index: int
    joined: int
    open: int
    parent: int | None
    side: str | None
    open_line_sides: list[int]
    open_arms: int = 0

    @property
    def is_double(self) -> bool:
        return self.joined == self.open

    def contribution(self) -> int:
        """This node's part of the scoring total (ruling 3)."""
        if not self.is_double:
            return sum(self.open_line_sides)
        # A spinner with a free line side is a terminal end worth both halves;
        # once both line sides are occupied it is internal and its arms count 0.
        return 2 * self.open if self.open_line_sides else 0


@dataclass(frozen=True)
class Connection:
    """A free place to join: parent node, side kind and the value to match."""

    parent: int
    side: str
    value: int


@dataclass(frozen=True)
class Placement:
    """A legal move (ruling 4): which tile, joined where, and how it lies.

    ``tile`` is ``(joined, open)``; for the opening ``parent`` and ``side`` are
    None and ``tile`` is the tile as the player chose to write it.
    """

    tile: Tile
    parent: int | None
    side: str | None

    @property
    def normal_tile(self) -> Tile:
        return normal(self.tile)


class Layout:
    """The tiles on the table as a tree of :class:`Node`."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []

    def __len__(self) -> int:
        return len(self.nodes)

    def connections(self) -> list[Connection]:
        """Every distinct free connection, one per (node, side kind).

        A lone opening double offers its two line sides as one connection and a
        spinner offers its arms as one connection (ruling 4).
        """
        found: list[Connection] = []
        for node in self.nodes:
            if node.is_double:
                if node.open_line_sides:
                    found.append(Connection(node.index, LINE, node.open))
                elif node.open_arms:
                    found.append(Connection(node.index, ARM, node.open))
            else:
                # The opening non-double has two line sides of different values:
                # each is its own connection.
                for value in sorted(set(node.open_line_sides)):
                    found.append(Connection(node.index, LINE, value))
        return found

    def open_values(self) -> set[int]:
        """Values a tile could match right now (empty before the opening)."""
        return {c.value for c in self.connections()}

    def placements_for(self, tile: Tile) -> list[Placement]:
        """Every distinct legal placement of ``tile`` (any orientation)."""
        a, b = tile
        if not self.nodes:
            return [Placement((a, b), None, None)]
        result = []
        for connection in self.connections():
            if connection.value == a:
                result.append(Placement((a, b), connection.parent, connection.side))
            elif connection.value == b:
                result.append(Placement((b, a), connection.parent, connection.side))
        return result

    def is_legal(self, placement: Placement) -> bool:
        if not self.nodes:
            return placement.parent is None and placement.side is None
        return placement in self.placements_for(placement.tile)

    def place(self, placement: Placement) -> Node:
        """Put a tile down; the caller has checked legality."""
        joined, open_half = placement.tile
        index = len(self.nodes)
        if placement.parent is None:
            # The opening: every line side is free.
            node = Node(index, joined, open_half, None, None, [joined, open_half])
        else:
            parent = self.nodes[placement.parent]
            if placement.side == LINE:
                parent.open_line_sides.remove(joined)
                if parent.is_double and not parent.open_line_sides:
                    parent.open_arms = 2  # both line sides occupied: arms open
            else:
                parent.open_arms -= 1
            # A double joined on a connection has one line side occupied (toward
            # its parent) and one open; a non-double keeps its unmatched half.
            node = Node(index, joined, open_half, placement.parent, placement.side, [open_half])
        self.nodes.append(node)
        return node

    def total(self) -> int:
        """The scoring total: sum of every node's contribution (ruling 3)."""
        return sum(node.contribution() for node in self.nodes)

    def copy(self) -> Layout:
        twin = Layout()
        twin.nodes = [
            Node(n.index, n.joined, n.open, n.parent, n.side, list(n.open_line_sides), n.open_arms)
            for n in self.nodes
        ]
        return twin

    def total_after(self, placement: Placement) -> int:
        """The scoring total the placement would leave, without changing this layout."""
        trial = self.copy()
        trial.place(placement)
        return trial.total()



# ---------------------------------------------------------------------------
# What a player may know, and the two reference policies
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerView:
    """Everything a seat may know when choosing a placement.

    Other hands and the boneyard order are deliberately absent. ``layout`` is a
    private copy: a policy may try placements on it freely.
    """

    seat: int
    entities: tuple[int, ...]
    hand: tuple[Tile, ...]
    layout: Layout
    scores: tuple[int, ...]
    played: tuple[Tile, ...]
    hand_sizes: tuple[int, ...]
    boneyard_size: int
    lacking: tuple[frozenset[int], ...]

    @property
    def entity(self) -> int:
        return self.entities[self.seat]


Policy = Callable[[PlayerView, list[Placement], random.Random], Placement]


def random_policy(view: PlayerView, choices: list[Placement], rng: random.Random) -> Placement:
    """``random``: uniform over the distinct legal placements (ruling 4)."""
    return choices[rng.randrange(len(choices))]


def greedy_key(view: PlayerView, placement: Placement) -> tuple:
    """Sort key of ``greedy``, best first.

    Largest immediate award that would be accepted (an award that would take the
    entity above 305 counts 0); ties: heavier tile, then lower tile index in
    :data:`core.tiles.TILES` order, then lower parent index, then line before arm.
    """
    points = award(view.layout.total_after(placement))
    accepted = points if view.scores[view.entity] + points <= TARGET_RAW else 0
    low, high = placement.normal_tile
    parent = -1 if placement.parent is None else placement.parent
    side_rank = 1 if placement.side == ARM else 0
    return (-accepted, -(low + high), TILE_INDEX[(low, high)], parent, side_rank)


def greedy_policy(view: PlayerView, choices: list[Placement], rng: random.Random) -> Placement:
    """``greedy``: the placement with the smallest :func:`greedy_key`."""
    return min(choices, key=lambda placement: greedy_key(view, placement))


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy}
"""The reference's built-in policies by strategy name."""


# ---------------------------------------------------------------------------
# A round as a state machine
# ---------------------------------------------------------------------------


@dataclass
class Event:
    """One score event as applied (mirrors the record's Event object)."""

    entity: int
    kind: str
    raw: int
    accepted: bool
    action: int | None = None
    seat: int | None = None
    placement: int | None = None
    credit: int | None = None
    debit: int | None = None

    def as_record(self) -> dict:
        if self.kind == "placement":
            return {"entity": self.entity, "kind": "placement", "action": self.action,
                    "raw": self.raw, "accepted": self.accepted}
        if self.kind == "domino":
            return {"entity": self.entity, "kind": "domino", "seat": self.seat,
                    "placement": self.placement, "credit": self.credit, "debit": self.debit,
                    "raw": self.raw, "accepted": self.accepted}
        return {"entity": self.entity, "kind": "blocked", "seat": self.seat,
                "raw": self.raw, "accepted": self.accepted}


class Round:
    """One round, driven one action at a time by :meth:`play`, :meth:`draw`, :meth:`pass_turn`.

    Both :func:`play_round` (choosing with policies) and :mod:`sim.verify`
    (replaying a record) drive this class, so every rule check lives here.
    Illegal actions raise :class:`RuleError` and leave the state unchanged.

    Parameters
    ----------
    hands : sequence of sequence of Tile
        Each seat's dealt tiles, seat order.
    boneyard : sequence of Tile
        Undealt tiles in draw order (front first).
    leader : int
        The seat that opens.
    scores : sequence of int
        Raw score per entity before the round.
    entities : sequence of int
        Scoring entity of each seat (ruling 7).
    """

    def __init__(self, hands, boneyard, leader, scores, entities):
        self.players = len(hands)
        self.entities = tuple(entities)
        self.hands: list[list[Tile]] = [sorted(normal(t) for t in hand) for hand in hands]
        self.boneyard: list[Tile] = [normal(t) for t in boneyard]
        self.leader = leader
        self.scores = list(scores)
        self.layout = Layout()
        self.turn = leader
        self.drew_this_turn: list[Tile] = []
        self.actions: list[dict] = []
        self.events: list[Event] = []
        self.end: str | None = None
        self.winner: int | None = None
        self.match_over = False
        self.played: list[Tile] = []
        self.lacking: list[set[int]] = [set() for _ in range(self.players)]

    # -- questions -------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.end is not None

    def legal_placements(self, seat: int) -> list[Placement]:
        """Every distinct legal placement for ``seat`` from its whole hand."""
        if self.over:
            return []
        return [p for tile in self.hands[seat] for p in self.layout.placements_for(tile)]

    def can_play(self, seat: int) -> bool:
        return bool(self.legal_placements(seat))

    def view(self, seat: int) -> PlayerView:
        return PlayerView(
            seat=seat,
            entities=self.entities,
            hand=tuple(self.hands[seat]),
            layout=self.layout.copy(),
            scores=tuple(self.scores),
            played=tuple(self.played),
            hand_sizes=tuple(len(h) for h in self.hands),
            boneyard_size=len(self.boneyard),
            lacking=tuple(frozenset(s) for s in self.lacking),
        )

    def tiles_accounted(self) -> list[Tile]:
        """Every tile in a hand, the boneyard or the layout (always the 28)."""
        on_table = [normal((n.joined, n.open)) for n in self.layout.nodes]
        return sorted([t for h in self.hands for t in h] + self.boneyard + on_table)

    # -- actions ---------------------------------------------------------

    def _check_turn(self, seat: int) -> None:
        if self.over:
            raise RuleError(f"the round has already ended ({self.end})")
        if seat != self.turn:
            raise RuleError(f"it is seat {self.turn}'s turn, not seat {seat}'s")

    def draw(self, seat: int) -> Tile:
        """Forced draw from the front of the boneyard (ruling 5)."""
        self._check_turn(seat)
        if self.can_play(seat):
            raise RuleError(f"seat {seat} holds a legal placement and may not draw")
        if not self.boneyard:
            raise RuleError("the boneyard is empty: nothing to draw")
        # A seat that draws could match none of the open values: public knowledge.
        # The drawn tile stays unseen and may carry values the seat was known to
        # lack before, so the old knowledge is replaced, not extended.
        self.lacking[seat] = set(self.layout.open_values())
        tile = self.boneyard.pop(0)
        self.hands[seat].append(tile)
        self.hands[seat].sort()
        self.drew_this_turn.append(tile)
        self.actions.append({"seat": seat, "type": "draw", "tile": list(tile)})
        return tile

    def pass_turn(self, seat: int) -> None:
        """Pass: only with no legal placement and an empty boneyard (ruling 5)."""
        self._check_turn(seat)
        if self.can_play(seat):
            raise RuleError(f"seat {seat} holds a legal placement and may not pass")
        if self.boneyard:
            raise RuleError(f"seat {seat} must draw: the boneyard holds {len(self.boneyard)} tiles")
        # A pass adds no tile: what the seat lacked before it still lacks.
        self.lacking[seat].update(self.layout.open_values())
        self.actions.append({"seat": seat, "type": "pass"})
        self._end_turn(seat)

    def play(self, seat: int, placement: Placement) -> int:
        """Place a tile; returns its raw points (before the target test)."""
        self._check_turn(seat)
        tile = placement.normal_tile
        if tile not in self.hands[seat]:
            raise RuleError(f"seat {seat} does not hold {tile[0]}-{tile[1]}")
        if self.drew_this_turn and tile != self.drew_this_turn[-1]:
            raise RuleError("after drawing, the seat must place the tile it drew last")
        if not self.layout.is_legal(placement):
            raise RuleError(f"{_describe(placement)} is not a legal placement")
        self.layout.place(placement)
        self.hands[seat].remove(tile)
        self.played.append(tile)
        points = award(self.layout.total())
        action_index = len(self.actions)
        self.actions.append({
            "seat": seat, "type": "play", "tile": list(placement.tile),
            "parent": placement.parent, "side": placement.side, "points": points,
        })
        if self.hands[seat]:
            if points:
                # Ruling 9: an ordinary scoring placement is its own event.
                event = self._apply(Event(self.entities[seat], "placement", points, False,
                                          action=action_index))
                if event.accepted and self.match_over:
                    self.end, self.winner = END_TARGET, None
                    return points
        self._end_turn(seat, final_points=points)
        return points

    # -- settlement ------------------------------------------------------

    def _apply(self, event: Event) -> Event:
        """Target-test an event (ruling 8) and record it."""
        after = self.scores[event.entity] + event.raw
        event.accepted = after <= TARGET_RAW
        if event.accepted:
            self.scores[event.entity] = after
            self.match_over = after == TARGET_RAW
        self.events.append(event)
        return event

    def _end_turn(self, seat: int, final_points: int = 0) -> None:
        """Ruling 6: domino, else blocked, else the next seat's turn."""
        self.drew_this_turn = []
        if not self.hands[seat]:
            self._settle_domino(seat, final_points)
        elif not self.boneyard and not any(self.can_play(s) for s in range(self.players)):
            self._settle_blocked()
        else:
            self.turn = (seat + 1) % self.players

    def _settle_domino(self, seat: int, placement_points: int) -> None:
        """Ruling 10: placement + round5(opponents' pips) - round5(partner's pips)."""
        entity = self.entities[seat]
        opponents = [s for s in range(self.players) if self.entities[s] != entity]
        partners = [s for s in range(self.players) if s != seat and self.entities[s] == entity]
        credit = round5(sum(pips(self.hands[s]) for s in opponents))
        debit = round5(sum(pips(self.hands[s]) for s in partners)) if partners else 0
        self._apply(Event(entity, "domino", placement_points + credit - debit, False,
                          seat=seat, placement=placement_points, credit=credit, debit=debit))
        self.end, self.winner = END_DOMINO, entity

    def blocked_order(self) -> list[int]:
        """Seats in ascending pip total, ties clockwise from the leader (ruling 11)."""
        return sorted(range(self.players),
                      key=lambda s: (pips(self.hands[s]), (s - self.leader) % self.players))

    def blocked_credit(self, seat: int) -> int:
        """round5 of the differences to every heavier opposing hand (ruling 11)."""
        own = pips(self.hands[seat])
        gaps = [pips(self.hands[other]) - own for other in range(self.players)
                if self.entities[other] != self.entities[seat]
                and pips(self.hands[other]) > own]
        return round5(sum(gaps))

    def _settle_blocked(self) -> None:
        self.end = END_BLOCKED
        totals = [pips(h) for h in self.hands]
        lightest = min(totals)
        owners = {self.entities[s] for s in range(self.players) if totals[s] == lightest}
        # Ruling 13: a shared lightest total across opposing entities is a tie.
        self.winner = owners.pop() if len(owners) == 1 else None
        for seat in self.blocked_order():
            credit = self.blocked_credit(seat)
            if credit == 0:
                continue  # ruling 11: no event for a zero credit
            event = self._apply(Event(self.entities[seat], "blocked", credit, False, seat=seat))
            if event.accepted and self.match_over:
                return  # ruling 8: nothing after the winning event is applied

    # -- output ----------------------------------------------------------

    def as_record(self, hands, boneyard) -> dict:
        return {
            "leader": self.leader,
            "hands": [[list(t) for t in hand] for hand in hands],
            "boneyard": [list(t) for t in boneyard],
            "actions": self.actions,
            "events": [e.as_record() for e in self.events],
            "end": self.end,
            "winner": self.winner,
            "scores": list(self.scores),
        }


def _describe(placement: Placement) -> str:
    a, b = placement.tile
    if placement.parent is None:
        return f"opening {a}-{b}"
    return f"{a}-{b} on placement {placement.parent} ({placement.side})"


# ---------------------------------------------------------------------------
# Playing with policies
# ---------------------------------------------------------------------------


Observer = Callable[[Round], None]


def play_round(rnd: Round, policies: Sequence[Policy], rng: random.Random,
               observer: Observer | None = None) -> Round:
    """Play a round to its end, each seat choosing with its policy.

    ``observer`` (if given) is called after every action, for invariant checks.
    """
    while not rnd.over:
        seat = rnd.turn
        choices = rnd.legal_placements(seat)
        while not choices and rnd.boneyard:
            rnd.draw(seat)
            if observer:
                observer(rnd)
            choices = rnd.legal_placements(seat)
        if choices:
            chosen = policies[seat](rnd.view(seat), choices, rng)
            rnd.play(seat, chosen)
        else:
            rnd.pass_turn(seat)
        if observer:
            observer(rnd)
    return rnd


def deal(rng: random.Random, players: int) -> tuple[list[list[Tile]], list[Tile]]:
    """Shuffle the 28 tiles; 5 to each seat in order, the rest is the boneyard."""
    tiles = list(TILES)
    rng.shuffle(tiles)
    hands = [tiles[HAND_SIZE * s: HAND_SIZE * (s + 1)] for s in range(players)]
    return hands, tiles[HAND_SIZE * players:]


def play_match(players: int, strategies: Sequence[str] | Sequence[Policy], seed: int = 0,
               match: int = 0, max_rounds: int = DEFAULT_MAX_ROUNDS,
               observer: Observer | None = None) -> dict:
    """Play one complete match and return its exact61-record/1 dict.

    Parameters
    ----------
    players : int
        2, 3 or 4.
    strategies : sequence of str or callable
        One per seat: a name from :data:`POLICIES` or a policy callable.
    seed, match : int
        The match is a pure function of these (Python's ``random.Random``).
    max_rounds : int
        Ruling 15's round limit.
    observer : callable, optional
        Called with the :class:`Round` after every action.
    """
    players = check_players(players)
    if len(strategies) != players:
        raise ValueError(f"need one strategy per seat ({players}), got {len(strategies)}")
    policies = [POLICIES[s] if isinstance(s, str) else s for s in strategies]
    names = [s if isinstance(s, str) else getattr(s, "__name__", "custom") for s in strategies]
    rng = random.Random(f"exact61-reference:{seed}:{match}")
    entities = entities_for(players)
    scores = [0] * (max(entities) + 1)
    rounds: list[dict] = []
    leader = rng.randrange(players)  # ruling 14: first leader by lot
    winner = None
    for _ in range(max_rounds):
        hands, boneyard = deal(rng, players)
        rnd = Round(hands, boneyard, leader, scores, entities)
        play_round(rnd, policies, rng, observer)
        rounds.append(rnd.as_record(hands, boneyard))
        scores = list(rnd.scores)
        if rnd.match_over:
            winner = next(e for e, s in enumerate(scores) if s == TARGET_RAW)
            break
        if rnd.end == END_DOMINO:
            leader = next(s for s in range(players) if not rnd.hands[s])
        else:
            leader = rng.randrange(players)  # ruling 14: new lot after a block
    return {
        "format": FORMAT,
        "players": players,
        "entities": list(entities),
        "strategies": names,
        "seed": seed,
        "match": match,
        "max_rounds": max_rounds,
        "rounds": rounds,
        "winner": winner,
        "scores": scores,
    }
