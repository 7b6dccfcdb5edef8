"""A match with one human seat: the others played by strategies, the rules by :class:`MatchState`.

:class:`HumanGame` is the game logic of ``five-up play`` without any terminal I/O: it drives a
:class:`sim.bridges.match_state.MatchState` (the project's rules code) through its chance nodes
(the lot, the deal, forced draws: outcomes drawn uniformly from a ``numpy.random.Generator``
seeded by ``seed``) and the strategy seats' decisions, stops at each decision of the human
seat, lists that seat's legal placements and applies the one chosen. Everything it reports is
text for the human seat:

* :meth:`HumanGame.advance_until_human` plays until the human must choose (or the match is
  over) and returns the messages of what happened: the lot, the deal of the human's hand,
  every other seat's play, draw (``"drew a tile"``: the tile stays hidden) and pass, the
  human's own forced draws (``"You drew 3-5."``), every score event (accepted or discarded)
  and, at a round's end, every hand and the settlement;
* :meth:`HumanGame.screen` is the seat's screen at its decision: the scores in displayed and
  raw points, the hand sizes and the boneyard count, the layout (one line per branch), the
  open ends and the scoring total, the seat's hand;
* :meth:`HumanGame.choices` numbers the legal placements ``1..k`` (tile, where it goes, what
  it would score) and :meth:`HumanGame.choose` plays one.

Only what the human seat may know is ever shown (ruling: hands are private until the round is
settled): the texts are built from the round's public history, the layout, the hand sizes, the
scores and the human's own hand and draws; other hands appear only in the settlement of a
finished round, from its record.

Strategy seats choose as :class:`sim.bridges.openspiel_bots.StrategyBot` does: the seat's
sealed view (``MatchState.view`` with the strategy's default parameters), its own decision
stream :func:`core.rng.decision_state` ``(seed, 0, seat)`` kept from decision to decision,
the strategy's compiled function called from Python (``strategy.choose`` on a
``PlayerView``) or its plain Python function; a seat with one legal placement plays it without
asking. The first Python call of a compiled strategy in a process compiles it for such calls
(Numba: greedy about a second, rollout about 3 s once its kernels are in Numba's disk cache,
about 30 s the first time on a machine): :meth:`HumanGame.prepare` does it up front.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sim.bridges.match_codes import Phase, hand_text
from sim.bridges.match_state import MatchState
from sim.bridges.pettingzoo_agents import candidate_action
from core import rng as R
from core import state as K
from sim.engine.compile_cache import refresh_dispatcher_caches
from sim.engine.python_seats import StrategyFailure
from core.tiles import (
    DEFAULT_MAX_ROUNDS,
    HAND_SIZE,
    N_TILES,
    RAW_PER_DISPLAYED,
    TARGET_RAW,
    TILES,
    tile_index,
    tile_name,
)
from sim.wording import counted
from strategies import pimc
from strategies.catalogue import resolve
from strategies.definition import Strategy
from strategies.move_values import move_values, table_error, weighted_interval

HUMAN = "human"
"""The human seat's name in the record's ``strategies``."""

DEFAULT_SEED = 61
"""The seed of the chance outcomes when none is given: every run is reproducible."""

TARGET_DISPLAYED = TARGET_RAW // RAW_PER_DISPLAYED
"""61: the target in displayed points."""

_SIDE_CODES = {None: K.SIDE_NONE, "line": K.SIDE_LINE, "arm": K.SIDE_ARM}
_NO_PARAMS_ROW = np.zeros(1, dtype=np.float64)  # a strategy without parameters reads none


# ---------------------------------------------------------------------------
# Plays of a round and the layout they build
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Play:
    """One placement of the round, in play order (its index is its layout node).

    Attributes
    ----------
    seat : int
    tile : int
        Tile index 0..27.
    joined : int
        The value joined to the connection (the low half for the opening).
    parent : int
        Node played on, ``NO_PARENT`` for the opening.
    side : int
        ``SIDE_NONE`` (opening), ``SIDE_LINE`` or ``SIDE_ARM``.
    points : int
        Raw scoring total after the placement if a positive multiple of 5, else 0.
    """

    seat: int
    tile: int
    joined: int
    parent: int
    side: int
    points: int

    @property
    def is_double(self) -> bool:
        return bool(K.TILE_IS_DOUBLE[self.tile])

    @property
    def open_value(self) -> int:
        """The half left open (the high half for the opening)."""
        return int(K.TILE_PIPS[self.tile]) - self.joined

    @property
    def oriented(self) -> str:
        """``joined-open``, e.g. ``"5-3"`` for 3-5 played on a 5 (the opening low-high)."""
        return f"{self.joined}-{self.open_value}"


def play_of_row(row) -> Play:
    """The :class:`Play` of a ``ws.history`` row of kind ``ACTION_PLAY``."""
    return Play(int(row[K.H_SEAT]), int(row[K.H_TILE]), int(row[K.H_JOINED]),
                int(row[K.H_PARENT]), int(row[K.H_SIDE]), int(row[K.H_POINTS]))


def play_of_action(action: dict) -> Play:
    """The :class:`Play` of a record's play action (``tile`` is ``[joined, open]``)."""
    joined, other = action["tile"]
    tile = tile_index(joined, other)
    if action["parent"] is None:
        joined = TILES[tile][0]
    return Play(int(action["seat"]), tile, int(joined),
                K.NO_PARENT if action["parent"] is None else int(action["parent"]),
                _SIDE_CODES[action["side"]], int(action["points"]))


@dataclass(frozen=True)
class Branch:
    """One straight run of the layout, as shown on one line.

    Attributes
    ----------
    label : str
        ``"line"`` (the line through the opening) or ``"arm of 5-5"`` (a spinner's arm).
    nodes : tuple of int
        Its nodes in spatial order (the line: left end to right end; an arm: outward).
    text : str
        The tiles, each with its halves in spatial order (``[...]`` marks the opening, ``*``
        a double: every double is a spinner).
    """

    label: str
    nodes: tuple
    text: str


class Layout:
    """The layout built by the round's plays: its branches and where each node lies.

    Parameters
    ----------
    plays : sequence of Play
        The round's placements in play order.
    """

    def __init__(self, plays: Sequence[Play]):
        self.plays = list(plays)
        n = len(self.plays)
        self.line_children = [[] for _ in range(n)]
        self.arm_children = [[] for _ in range(n)]
        for node, play in enumerate(self.plays):
            if play.parent != K.NO_PARENT:
                children = self.arm_children if play.side == K.SIDE_ARM else self.line_children
                children[play.parent].append(node)
        self.where_of: dict[int, str] = {}  # node -> "left end", "right end", "arm of 5-5"
        self.shown: dict[int, str] = {}  # node -> the tile as its branch line shows it
        self.branches = self._branches() if n else []

    def _chain(self, first: int) -> list[int]:
        """``first`` and the nodes continuing it straight on (each non-opening node has at most
        one line child: its open half, or a double's far line side)."""
        chain = [first]
        while self.line_children[chain[-1]]:
            chain.append(self.line_children[chain[-1]][0])
        return chain

    def _opening_sides(self) -> tuple[list[int], list[int]]:
        """The line children of the opening on its left (low half, or a double's second line
        side) and on its right (high half, or a double's first)."""
        opening = self.plays[0]
        left, right = [], []
        for child in self.line_children[0]:
            if opening.is_double:
                (right if not right else left).append(child)
            else:
                (left if self.plays[child].joined == TILES[opening.tile][0] else right).append(child)
        return left, right

    def _branches(self) -> list[Branch]:
        left, right = self._opening_sides()
        left_chain = self._chain(left[0]) if left else []
        right_chain = self._chain(right[0]) if right else []
        for node in left_chain:
            self.where_of[node] = "left end"
        for node in right_chain:
            self.where_of[node] = "right end"
        opening = self.plays[0]
        low, high = TILES[opening.tile]
        pieces = [self._tile_text(node, reverse=True) for node in reversed(left_chain)]
        pieces.append(f"[{low}-{high}{'*' if opening.is_double else ''}]")
        self.shown[0] = f"{low}-{high}"
        pieces += [self._tile_text(node) for node in right_chain]
        branches = [Branch("line", tuple(reversed(left_chain)) + (0,) + tuple(right_chain),
                           " ".join(pieces))]
        # Arms in the order they were begun (play order of their first tile).
        for first in sorted(c for children in self.arm_children for c in children):
            spinner = self.plays[first].parent
            label = f"arm of {tile_name(self.plays[spinner].tile)}"
            chain = self._chain(first)
            for node in chain:
                self.where_of[node] = label
            branches.append(Branch(label, tuple(chain),
                                   " ".join(self._tile_text(node) for node in chain)))
        return branches

    def _tile_text(self, node: int, reverse: bool = False) -> str:
        play = self.plays[node]
        mark = "*" if play.is_double else ""
        text = f"{play.open_value}-{play.joined}" if reverse else play.oriented
        self.shown[node] = text
        return f"{text}{mark}"

    def lines(self) -> list[str]:
        """One line per branch: ``"line: 1-3 3-3* [3-5] 5-6"``, ``"arm of 3-3: 3-2"``."""
        return [f"{branch.label}: {branch.text}" for branch in self.branches]

    def place_text(self, parent: int, side: int, joined: int) -> str:
        """Where a placement on ``parent`` goes in this layout (the layout before it is
        made), e.g. ``"on the right end (5-3)"`` (the parent as its branch line shows it)."""
        if parent == K.NO_PARENT:
            return "as the opening"
        name = self.shown[parent]
        if side == K.SIDE_ARM:
            return f"on an arm of {name} (a new branch)"
        if parent == 0:
            opening = self.plays[0]
            left, right = self._opening_sides()
            if opening.is_double:
                if not left and not right:
                    return f"beside the opening {name}"
                return f"on the {'left' if right else 'right'} end ({name})"
            return f"on the {'left' if joined == TILES[opening.tile][0] else 'right'} end ({name})"
        where = self.where_of.get(parent, "line")
        if where.startswith("arm of"):
            return f"on the end of the {where} ({name})"
        return f"on the {where} ({name})"

    def node_where(self, node: int) -> str:
        """Which branch ``node`` ends: ``"left end"``, ``"right end"``, ``"arm of 5-5"``,
        ``"opening"``."""
        return "opening" if node == 0 else self.where_of.get(node, "line")


def open_ends_text(ws, layout: Layout) -> str:
    """The open connections of the layout in ``ws`` and what each counts (ruling 3)."""
    ends = []
    n_nodes = int(ws.board[K.BOARD_NODES])
    for node in range(n_nodes):
        row = ws.nodes[node]
        line_open = int(row[K.NODE_LINE_OPEN])
        arms = int(row[K.NODE_ARMS_OPEN])
        name = tile_name(int(row[K.NODE_TILE]))
        where = layout.node_where(node)
        if where.startswith("arm of"):
            where = f"end of the {where}"
        if K.TILE_IS_DOUBLE[int(row[K.NODE_TILE])]:
            value = int(row[K.NODE_VALUE_A])
            if line_open:
                if node == 0:  # an opening double's first line child goes right
                    where = "both line sides" if line_open.bit_count() == 2 else "left end"
                ends.append(f"{value} on {name} ({where}; a double end counts {2 * value})")
            if arms:
                ends.append(f"{value} on {counted(arms, 'arm')} of {name} (counts 0 until played)")
            continue
        if line_open & K.LINE_A:
            ends.append(f"{int(row[K.NODE_VALUE_A])} ({'left end' if node == 0 else where})")
        if line_open & K.LINE_B:
            ends.append(f"{int(row[K.NODE_VALUE_B])} ({'right end' if node == 0 else where})")
    return ", ".join(ends) or "none"


def points_text(raw: int) -> str:
    """``"3 (15 raw)"``: raw points and their displayed value."""
    return f"{raw // RAW_PER_DISPLAYED} ({raw} raw)"


def _pips(tiles) -> int:
    return sum(int(K.TILE_PIPS[t]) for t in tiles)


# ---------------------------------------------------------------------------
# Strategy seats
# ---------------------------------------------------------------------------
class StrategySeat:
    """A seat played by a strategy on the seat's sealed view (see the module docstring).

    Parameters
    ----------
    strategy : str or Strategy
        Any spec :func:`strategies.resolve` takes; a strategy that sees hidden information is
        refused (ValueError).
    seat, players, seed : int
    """

    def __init__(self, strategy, seat: int, players: int, seed: int):
        self.strategy: Strategy = resolve(strategy)
        if self.strategy.sees_hidden:
            raise ValueError(f"strategy {self.strategy.name!r} sees hidden information: it "
                             "cannot play against a human")
        self.seat = int(seat)
        row = self.strategy.default_params()
        self.params = np.tile(row if row.size else _NO_PARAMS_ROW, (int(players), 1))
        self.rng = R.decision_state(np.int64(seed), np.int64(0), np.int64(seat))

    def needs_compiling(self) -> bool:
        """True while the compiled strategy has no machine code for Python calls yet."""
        return self.strategy.compiled and not self.strategy.choose.signatures

    def choice_row(self, view) -> int:
        """The row of ``view.cands`` the strategy chooses (its stream advanced in ``self.rng``)."""
        view = view._replace(rng=self.rng)  # its own stream, kept from decision to decision
        where = f"strategy {self.strategy.name!r} (seat {self.seat})"
        try:
            if self.strategy.compiled:
                # The Python view's arrays are read-only copies already (seat_view), as the
                # engine hands them: the engine's view type, whose helpers are cached already.
                choice = self.strategy.choose(K.PlayerView(*view))
            else:
                choice = self.strategy.choose(view)
        except Exception as error:  # a user's strategy: one line saying where
            message = str(error).splitlines()[0] if str(error) else ""
            raise StrategyFailure(f"{where} raised {type(error).__name__}: {message}") from error
        if isinstance(choice, (bool, np.bool_)) or not isinstance(choice, (int, np.integer)) \
                or not 0 <= int(choice) < view.n_candidates:
            raise StrategyFailure(f"{where} returned {choice!r}, not one of its "
                                  f"{view.n_candidates} candidate rows")
        return int(choice)

    def action(self, state: MatchState) -> int:
        """The action code the strategy plays at ``state`` (this seat's decision)."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        view = state.view(self.params)
        return candidate_action(view, self.choice_row(view))


def seat_strategies(players: int, seat: int, specs: Sequence) -> list:
    """The strategy spec of every seat, ``None`` at the human ``seat``.

    Parameters
    ----------
    specs : sequence
        One spec (every other seat) or one per other seat, in seat order.

    Raises
    ------
    ValueError
        Another number of specs.
    """
    others = players - 1
    specs = list(specs)
    if len(specs) == 1:
        specs = specs * others
    if len(specs) != others:
        raise ValueError(f"--vs takes one strategy or one per other seat ({others} with "
                         f"{players} players), found {len(specs)}")
    out = list(specs)
    out.insert(seat, None)
    return out


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    """One legal placement of the human seat, as listed.

    Attributes
    ----------
    number : int
        1..k, what the human types.
    action : int
        The MatchState action code.
    tile : str
        The tile with its joined half first (``"5-3"``; the opening low-high).
    where : str
        Where it goes (``"on the right end (3-5)"``).
    points : int
        Raw points it would score (before the 305 test).
    note : str
        ``"passes 61: discarded"``, ``"your last tile: domino"`` or empty.
    """

    number: int
    action: int
    tile: str
    where: str
    points: int
    note: str = ""

    def text(self) -> str:
        """``"2) 5-3 on the right end (3-5): scores 3 (15 raw)"``."""
        score = f"scores {points_text(self.points)}" if self.points else "no score"
        note = f"; {self.note}" if self.note else ""
        return f"{self.number}) {self.tile} {self.where}: {score}{note}"


HINT_WORLDS = 32
"""Worlds a hint samples (a second or so of search)."""
HINT_NODE_LIMIT = 1500
"""Turns a hint's search visits per world."""


class HumanGame:
    """A match of ``players`` seats, ``seat`` human, the others played by strategies.

    Parameters
    ----------
    players : int
        2, 3 or 4 (with 4 the human's partner, seat ``seat + 2``, is a strategy too).
    seat : int
        The human seat, ``0..players-1``.
    strategies : sequence of str or Strategy
        One spec (every other seat) or one per other seat in seat order.
    seed : int
        Seeds the chance outcomes (``numpy.random.default_rng(seed)``) and the strategy seats'
        decision streams: the same seed and the same human choices give the same match.
    max_rounds : int
        Ruling 15: the match stops unfinished after this many rounds.

    Raises
    ------
    ValueError
        A bad table size, seat, seed or number of strategies; a strategy seeing hidden
        information.
    strategies.StrategyError
        A spec naming no strategy.
    """

    def __init__(self, players: int, seat: int, strategies: Sequence, seed: int = DEFAULT_SEED,
                 max_rounds: int = DEFAULT_MAX_ROUNDS):
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, found {players!r}")
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1} with {players} players, found {seat}")
        self.players = int(players)
        self.seat = int(seat)
        self.seed = int(seed)
        specs = seat_strategies(players, seat, strategies)
        self.seats = [None if spec is None else StrategySeat(spec, s, players, seed)
                      for s, spec in enumerate(specs)]
        self.names = [HUMAN if player is None else player.strategy.name for player in self.seats]
        self.state = MatchState(self.players, max_rounds=max_rounds)
        self.chance = np.random.default_rng(self.seed)
        self.entity_of_seat = [int(e) for e in K.ENTITY_OF_SEAT[self.players, :self.players]]
        self.interrupted = False
        self._seen = 0  # history rows of the current round already told
        self._human_draws: dict[int, int] = {}  # history row -> tile the human drew, this round
        self._lot = False  # the current round's leader was drawn by lot
        self._choices = (-1, ())  # (len(state.history()), the choices listed there)

    # -- names ----------------------------------------------------------------------------
    def who(self, seat: int) -> str:
        """``"You"``, ``"Partner seat 2 (greedy)"`` or ``"Seat 1 (greedy)"``."""
        if seat == self.seat:
            return "You"
        partner = self.players == 4 and self.entity_of_seat[seat] == self.entity_of_seat[self.seat]
        return f"{'Partner seat' if partner else 'Seat'} {seat} ({self.names[seat]})"

    def entity_name(self, entity: int) -> str:
        """``"you"``, ``"seat 1 (greedy)"``, ``"you + seat 2 (greedy)"``, ``"seats 1+3"``."""
        seats = [s for s in range(self.players) if self.entity_of_seat[s] == entity]
        if len(seats) == 1:
            return "you" if seats[0] == self.seat else f"seat {seats[0]} ({self.names[seats[0]]})"
        if self.seat in seats:
            partner = next(s for s in seats if s != self.seat)
            return f"you + seat {partner} ({self.names[partner]})"
        return "seats " + "+".join(str(s) for s in seats) + \
            f" ({', '.join(self.names[s] for s in seats)})"

    # -- progress -------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """True once the match is over (an entity at 305, or the round limit)."""
        return self.state.is_terminal()

    @property
    def human_to_move(self) -> bool:
        return self.state.current_player() == self.seat

    def prepare(self) -> list[str]:
        """Compile the compiled strategies for Python calls now (the first call compiles).

        Returns the names of the strategies compiled.
        """
        waiting = [player for player in self.seats if player is not None and player.needs_compiling()]
        if not waiting:
            return []
        probe = MatchState(self.players, one_round=True)
        rng = np.random.default_rng(0)
        while probe.is_chance_node():
            outcomes = probe.chance_outcomes()
            probe.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        compiled = []
        for player in waiting:
            if player.needs_compiling():
                view = probe.view(player.params)
                trial = StrategySeat(player.strategy, player.seat, self.players, self.seed)
                trial.seat = int(view.seat)
                trial.choice_row(view)  # compiles; the seat's own stream is untouched
                compiled.append(player.strategy.name)
        return compiled

    def advance_until_human(self) -> list[str]:
        """Play chance nodes and strategy seats until the human must choose or the match ends.

        Returns
        -------
        list of str
            What the human seat saw happen, in order (one message a line).
        """
        messages = []
        state = self.state
        while not state.is_terminal() and state.current_player() != self.seat:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                outcome = outcomes[int(self.chance.integers(len(outcomes)))][0]
                messages += self._apply(outcome)
            else:
                messages += self._apply(self.seats[state.current_player()].action(state))
        if state.is_terminal():
            messages += self._match_end()
        return messages

    def choices(self) -> list[Choice]:
        """The human seat's legal placements, numbered from 1 (empty when it is not to move)."""
        if not self.human_to_move:
            return []
        state = self.state
        moment = len(state.history())
        if self._choices[0] == moment:
            return list(self._choices[1])
        view = state.view(np.zeros((self.players, 1)))
        layout = self.layout()
        last_tile = int(view.hand_sizes[self.seat]) == 1
        score = int(view.scores[self.entity_of_seat[self.seat]])
        out = []
        for row in range(int(view.n_candidates)):
            tile, parent, side, joined, points = (int(x) for x in view.cands[row][:K.CAND_FIELDS])
            play = Play(self.seat, tile, joined, parent, side, points)
            note = ""
            if last_tile:
                note = "your last tile: domino"
            elif points and score + points > TARGET_RAW:
                note = "passes 61: discarded"
            out.append(Choice(row + 1, candidate_action(view, row),
                              tile_name(tile) if parent == K.NO_PARENT else play.oriented,
                              layout.place_text(parent, side, joined), points, note))
        self._choices = (moment, tuple(out))
        return out

    def hint(self, worlds: int = HINT_WORLDS, node_limit: int = HINT_NODE_LIMIT) -> str:
        """The search's best placement for the human now, from what the human seat knows
        (:func:`strategies.move_values.move_values`: ``worlds`` sampled worlds, each solved),
        as one line; empty when it is not the human's turn or only one placement is legal.
        The worlds come from the game's seed and the moment (the same game, the same hint)."""
        listed = self.choices()
        if len(listed) < 2:
            return ""
        view = self.state.view(np.zeros((self.players, 1)))
        stream = R.decision_state(self.seed, len(self.state.history()), self.seat)
        # the search is compiled apart: never a stale cached kernel frozen with an old win table
        refresh_dispatcher_caches([pimc.world_table])
        means, table, share = move_values(view, worlds, node_limit, stream)
        best = int(np.argmax(means))
        # the interval holds the worlds' spread and the win table's own error (its replicates)
        *_, best_se, _looked_up = table_error(self.players, table, share, best)
        value, low, high = weighted_interval(table[:, best], share, best_se)
        if self.players == 3:  # no win table at 3 players: the round's raw differential
            worth = (f"round's raw differential per 305 {value:+.3f} "
                     f"[{low:+.3f}, {high:+.3f}]")
        else:
            worth = f"win probability {100 * value:.0f}% [{100 * low:.0f}, {100 * high:.0f}]"
        return (f"Hint: {listed[best].number}) {listed[best].tile} {listed[best].where}: "
                f"{worth} by the search ({counted(worlds, 'sampled world')})")

    def choose(self, number: int) -> list[str]:
        """Play the human's placement ``number`` (1..k of :meth:`choices`) and return what it
        did; ValueError (one line) for a number out of range or when it is not the human's turn."""
        listed = self.choices()
        if not listed:
            raise ValueError("it is not your turn")
        if not 1 <= int(number) <= len(listed):
            raise ValueError(f"choose a placement 1..{len(listed)}, not {number}")
        return self._apply(listed[int(number) - 1].action)

    def record(self) -> dict:
        """The exact61-record/1 object of the rounds finished so far; ``"interrupted": true``
        when the match was stopped before its end (:meth:`stop`)."""
        record = self.state.record(self.names, seed=self.seed)
        record["human_seat"] = self.seat
        if self.interrupted:
            record["interrupted"] = True
        return record

    def stop(self) -> None:
        """Mark the match interrupted (quit, end of input, Ctrl-C): :meth:`record` says so."""
        if not self.over:
            self.interrupted = True

    # -- the screen -----------------------------------------------------------------------
    def layout(self) -> Layout:
        """The layout of the round in play."""
        return Layout(self._live_plays())

    def _live_rows(self) -> list:
        ws = self.state.ws
        return ws.history[: int(ws.board[K.BOARD_HISTORY])].tolist()

    def _live_plays(self) -> list[Play]:
        if self.state.phase in (Phase.LOT, Phase.DEAL):
            return []
        return [play_of_row(row) for row in self._live_rows() if row[K.H_KIND] == K.ACTION_PLAY]

    def boneyard_size(self) -> int:
        """Tiles left to draw (public: 28 less the deal less the round's draws)."""
        draws = sum(row[K.H_KIND] == K.ACTION_DRAW for row in self._live_rows())
        return N_TILES - HAND_SIZE * self.players - draws

    def scores_text(self) -> str:
        """``"you 12 (60 raw), seat 1 (greedy) 25 (125 raw); target 61 (305 raw)"``."""
        scores = self.state.scores()
        parts = [f"{self.entity_name(e)} {points_text(raw)}" for e, raw in enumerate(scores)]
        return f"{', '.join(parts)}; target {TARGET_DISPLAYED} ({TARGET_RAW} raw)"

    def screen(self) -> list[str]:
        """The human seat's screen (lines): round, scores, hands, layout, open ends, total,
        hand. Only what the seat may know."""
        state = self.state
        ws = state.ws
        lines = [(f"-- Round {state.rounds_played + 1} -- you are seat {self.seat} of "
                 f"{self.players} --"),
                 f"Scores: {self.scores_text()}"]
        sizes = ", ".join(f"{'you' if s == self.seat else f'seat {s}'} {int(ws.hand_sizes[s])}"
                          for s in range(self.players))
        lines.append(f"Tiles in hand: {sizes}; boneyard {self.boneyard_size()}")
        layout = self.layout()
        if layout.plays:
            lines.append(f"Layout ({counted(len(layout.plays), 'tile')}; * = double, a spinner; "
                         "[ ] = the opening):")
            lines += [f"  {line}" for line in layout.lines()]
            lines.append(f"Open ends: {open_ends_text(ws, layout)}")
            total = int(ws.board[K.BOARD_TOTAL])
            scored = " (a multiple of 5)" if total and total % 5 == 0 else ""
            lines.append(f"Scoring total: {total}{scored}")
        else:
            lines.append("Layout: empty (you lead: any tile opens)")
        lines.append(f"Your hand: {hand_text(int(ws.hands[self.seat]))}")
        return lines

    # -- what happened --------------------------------------------------------------------
    def _apply(self, action: int) -> list[str]:
        """Apply ``action`` (a chance outcome or a placement) and tell what it did."""
        state = self.state
        phase = state.phase
        rounds_before = state.rounds_played
        scores_before = state.scores()
        rows_before = int(state.ws.board[K.BOARD_HISTORY])
        state.apply_action(action)
        messages = []
        if phase == Phase.LOT:
            self._lot = True
            return messages
        if phase == Phase.DRAW and state.rounds_played == rounds_before \
                and state.ws.history[rows_before, K.H_SEAT] == self.seat:
            self._human_draws[rows_before] = int(action)  # the draw is that row; its tile ours
        if phase == Phase.DEAL:
            if state.phase != Phase.DEAL:  # the deal is complete
                messages += self._round_start()
            return messages
        if state.rounds_played > rounds_before:
            messages += self._round_end(scores_before)
            return messages
        rows = self._live_rows()
        plays = [play_of_row(row) for row in rows[: self._seen] if row[K.H_KIND] == K.ACTION_PLAY]
        scores = state.scores()
        for index in range(self._seen, len(rows)):
            row = rows[index]
            if row[K.H_KIND] == K.ACTION_PLAY:
                play = play_of_row(row)
                entity = self.entity_of_seat[play.seat]
                accepted = scores[entity] - scores_before[entity] == play.points
                messages.append(self._play_text(play, Layout(plays), accepted))
                plays.append(play)
            else:
                messages.append(self._other_text(row[K.H_SEAT], row[K.H_KIND],
                                                 self._human_draws.get(index)))
        self._seen = len(rows)
        return messages

    def _round_start(self) -> list[str]:
        state = self.state
        leader = int(state.ws.round_stats[K.R_LEADER])
        how = "by lot" if self._lot else "as last round's dominoer"
        self._lot = False
        self._seen = 0
        self._human_draws = {}
        leads = "you lead" if leader == self.seat else f"{self.who(leader).lower()} leads"
        return [(f"== Round {state.rounds_played + 1}: {leads} ({how}). Your hand: "
                f"{hand_text(int(state.ws.hands[self.seat]))} ==")]

    def _play_text(self, play: Play, layout: Layout, accepted: bool, final: bool = False) -> str:
        """One play as a sentence; ``layout`` is the layout before it."""
        who = self.who(play.seat)
        if play.parent == K.NO_PARENT:
            text = f"{who} opened with {tile_name(play.tile)}"
        else:
            text = f"{who} played {play.oriented} {layout.place_text(play.parent, play.side, play.joined)}"
        if final:
            return f"{text}: the last tile of the hand (its {play.points} raw go into the domino)."
        if not play.points:
            return f"{text}."
        if accepted:
            return f"{text}: scores {points_text(play.points)}, accepted."
        return f"{text}: scores {points_text(play.points)}, discarded (it would pass 61)."

    def _other_text(self, seat: int, kind: int, drawn: int | None) -> str:
        if kind == K.ACTION_DRAW:
            if seat == self.seat:
                return f"You drew {tile_name(drawn)}." if drawn is not None else "You drew a tile."
            return f"{self.who(seat)} drew a tile."
        return f"{self.who(seat)} passed."

    def _round_end(self, scores_before) -> list[str]:
        """What the rest of the finished round did, all hands, and its settlement (from the
        round's record: the round is over, hands are shown)."""
        rnd = self.state.record(self.names)["rounds"][-1]
        actions = rnd["actions"]
        plays = [play_of_action(a) for a in actions[: self._seen] if a["type"] == "play"]
        accepted_of = {e["action"]: e["accepted"] for e in rnd["events"] if e["kind"] == "placement"}
        messages = []
        for index in range(self._seen, len(actions)):
            action = actions[index]
            if action["type"] == "play":
                play = play_of_action(action)
                # a scoring play without a placement event is the domino's final placement
                final = rnd["end"] == "domino" and index == len(actions) - 1
                messages.append(self._play_text(play, Layout(plays), accepted_of.get(index, False),
                                                final=final and bool(play.points)))
                plays.append(play)
            else:
                kind = K.ACTION_DRAW if action["type"] == "draw" else K.ACTION_PASS
                drawn = tile_index(*action["tile"]) if kind == K.ACTION_DRAW else None
                messages.append(self._other_text(action["seat"], kind,
                                                 drawn if action["seat"] == self.seat else None))
        self._seen = 0
        self._human_draws = {}
        messages += self._settlement(rnd, actions)
        return messages

    def _settlement(self, rnd: dict, actions: list) -> list[str]:
        players = self.players
        held = [{tile_index(*t) for t in rnd["hands"][s]} for s in range(players)]
        for action in actions:
            tile = tile_index(*action["tile"]) if "tile" in action else None
            if action["type"] == "draw":
                held[action["seat"]].add(tile)
            elif action["type"] == "play":
                held[action["seat"]].discard(tile)
        end = rnd["end"]
        number = self.state.rounds_played
        if end == "domino":
            dominoer = next(s for s in range(players) if not held[s])
            who = self.who(dominoer)
            lines = [f"== Round {number} over: {who[0].lower() + who[1:]} dominoed. =="]
        elif end == "blocked":
            lines = [(f"== Round {number} over: blocked (the boneyard is empty and no one can "
                     "play). ==")]
        else:
            lines = [f"== Round {number} over: a placement reached 61 exactly. =="]
        lines.append("Hands: " + "; ".join(
            f"{'you' if s == self.seat else f'seat {s}'} "
            f"{' '.join(tile_name(t) for t in sorted(held[s])) or '-'} "
            f"({counted(_pips(held[s]), 'pip')})"
            for s in range(players)))
        for event in rnd["events"]:
            if event["kind"] == "placement":
                continue
            verdict = "accepted" if event["accepted"] else "discarded (it would pass 61)"
            name = self.entity_name(event["entity"])
            if event["kind"] == "domino":
                seat = event["seat"]
                entity = self.entity_of_seat[seat]
                opponents = sum(_pips(held[s]) for s in range(players)
                                if self.entity_of_seat[s] != entity)
                debit = ""
                if players == 4:
                    # The dominoer's partner's hand: the human's own when its partner dominoed.
                    partner = (seat + 2) % players
                    hand = "your hand" if partner == self.seat else f"seat {partner}'s hand"
                    debit = (f" - {hand} (the dominoer's partner) "
                             f"{counted(_pips(held[partner]), 'pip')} rounded to {event['debit']}")
                lines.append(f"Domino settlement for {name}: last placement {event['placement']} "
                             f"+ opponents' hands {counted(opponents, 'pip')} rounded to "
                             f"{event['credit']}"
                             f"{debit} = {points_text(event['raw'])}, {verdict}.")
            else:
                lines.append(f"Blocked settlement for {name} (the hand of seat "
                             f"{event['seat']}): {points_text(event['raw'])}, {verdict}.")
        if end == "blocked":
            winner = rnd["winner"]
            lines.append("Lightest hand: " + ("a tie across sides" if winner is None
                                              else self.entity_name(winner)) + ".")
        lines.append(f"Scores: {self.scores_text()}")
        return lines

    def _match_end(self) -> list[str]:
        winner = self.state.winner
        if winner == K.NO_ENTITY:
            return [(f"== Match stopped unfinished after {counted(self.state.rounds_played, 'round')} "
                    "(the round limit). ==")]
        mine = winner == self.entity_of_seat[self.seat]
        return [(f"== Match over: {self.entity_name(winner)} reached 61 exactly"
                f"{' -- you win!' if mine else '.'} ==")]


__all__ = [
    "DEFAULT_SEED",
    "HUMAN",
    "Branch",
    "Choice",
    "HumanGame",
    "Layout",
    "Play",
    "StrategySeat",
    "open_ends_text",
    "seat_strategies",
]
