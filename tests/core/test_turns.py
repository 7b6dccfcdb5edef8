"""The one turn driver (core.turns): scripted rounds with hand-computed stops, and the rule
that nothing outside core takes a turn's steps itself.

The engine's differential tests (records against the reference), the lookahead tests (playouts
against the engine's rounds), the solver's (against brute force) and the bridges' (random games
whose records verify) check the driver through its users; here it is driven from Python.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from core import state as K
from core import step, turns
from core.state import new_workspace
from core.tiles import N_TILES, TILES
from tests.support.paths import REPO
from tests.support.traces import traced

TILE = {pair: index for index, pair in enumerate(TILES)}

BONEYARD_START = 10
"""Where the scripted rounds' boneyard starts in ``ws.deal`` (two hands of five were dealt)."""


def scripted_round(hands, boneyard):
    """A new two-player match's first round: ``hands`` (lists of (low, high) tiles) and
    ``boneyard`` (tiles in draw order) at ``ws.deal[BONEYARD_START:]``, the other tiles after
    them. Returns the workspace, a trace and the entity of each seat."""
    ws = new_workspace()
    step.reset_match(ws)
    step.begin_round(ws, 0)
    for seat, tiles in enumerate(hands):
        for tile in tiles:
            ws.hands[seat] |= 1 << TILE[tile]
        ws.hand_sizes[seat] = len(tiles)
    held = [TILE[t] for tiles in hands for t in tiles]
    drawn = [TILE[t] for t in boneyard]
    rest = [t for t in range(N_TILES) if t not in held and t not in drawn]
    dealt = held + rest[: BONEYARD_START - len(held)]
    ws.deal[:] = dealt + drawn + rest[BONEYARD_START - len(held):]
    return ws, traced(16), K.ENTITY_OF_SEAT[2, :2].copy()


def row_of(ws, tile) -> int:
    """The first row of ``ws.cands`` at the decision in hand that places ``tile``."""
    count = int(ws.board[K.BOARD_DECISION_COUNT])
    rows = [r for r in range(count) if ws.cands[r, K.CAND_TILE] == TILE[tile]]
    assert rows, f"{tile} is not a candidate"
    return rows[0]


DRAWING_HANDS = [[(5, 5), (0, 1)], [(1, 1), (2, 3)]]
"""Seat 0 opens 5-5; seat 1 holds no 5 and must draw."""
DRAWN = [(6, 6), (4, 5)]
"""Seat 1 draws 6-6 (no 5: it draws again), then 4-5, which it must place."""


def test_a_seat_without_a_placement_draws_until_one_and_must_place_it():
    ws, trace, eos = scripted_round(DRAWING_HANDS, DRAWN)
    assert turns.start_turns(ws, trace, 2, eos, 0, BONEYARD_START, 0, 0) == K.END_NONE
    board = ws.board
    assert (board[K.BOARD_TURN_SEAT], board[K.BOARD_DECISION_COUNT]) == (0, 2)  # one opening per tile
    assert turns.advance(ws, trace, 2, eos, row_of(ws, (5, 5))) == K.END_NONE
    assert ws.scores[0] == 10  # the opening 5-5 counts 10
    assert board[K.BOARD_TURN_SEAT] == 1 and board[K.BOARD_DECISION_SEAT] == 1
    assert board[K.BOARD_NEXT_DRAW] == BONEYARD_START + 2
    assert board[K.BOARD_DECISION_BONEYARD] == N_TILES - BONEYARD_START - 2
    assert ws.round_stats[K.R_DRAWS] == 2 and ws.hand_sizes[1] == 4
    assert ws.lacking[1] == 1 << 5  # seen to lack the 5 it could not match
    count = int(board[K.BOARD_DECISION_COUNT])
    assert count >= 1 and all(ws.cands[r, K.CAND_TILE] == TILE[(4, 5)] for r in range(count))


def test_with_draw_stops_each_draw_waits_and_the_decision_is_the_same():
    plain, trace, eos = scripted_round(DRAWING_HANDS, DRAWN)
    turns.start_turns(plain, trace, 2, eos, 0, BONEYARD_START, 0, 0)
    turns.advance(plain, trace, 2, eos, row_of(plain, (5, 5)))

    ws, trace, eos = scripted_round(DRAWING_HANDS, DRAWN)
    turns.start_turns(ws, trace, 2, eos, 0, BONEYARD_START, 0, 1)
    board = ws.board
    assert turns.advance(ws, trace, 2, eos, row_of(ws, (5, 5))) == K.END_NONE
    # a draw awaited: no decision, and the lack is not public before the draw
    assert (board[K.BOARD_TURN_SEAT], board[K.BOARD_DECISION_COUNT]) == (1, 0)
    assert board[K.BOARD_NEXT_DRAW] == BONEYARD_START and ws.lacking[1] == 0
    assert turns.advance_draw(ws, trace, 2, eos) == K.END_NONE  # 6-6: another draw
    assert board[K.BOARD_DECISION_COUNT] == 0 and board[K.BOARD_NEXT_DRAW] == BONEYARD_START + 1
    assert ws.lacking[1] == 1 << 5
    assert turns.advance_draw(ws, trace, 2, eos) == K.END_NONE  # 4-5: the decision
    for name in ("hands", "hand_sizes", "lacking", "scores", "round_stats", "open_count"):
        assert np.array_equal(getattr(ws, name), getattr(plain, name)), name
    count = int(board[K.BOARD_DECISION_COUNT])
    assert count == plain.board[K.BOARD_DECISION_COUNT]
    assert np.array_equal(ws.cands[:count], plain.cands[:count])
    fields = [f for f in range(K.BOARD_FIELDS) if f != K.BOARD_DRAW_STOPS]
    assert np.array_equal(board[fields], plain.board[fields])


def test_a_seat_that_cannot_play_with_the_boneyard_empty_passes():
    """Seat 0 opens 5-5; seat 1 (no 5) passes; seat 0 places its 0-5 and dominoes."""
    ws, trace, eos = scripted_round([[(5, 5), (0, 5)], [(1, 1), (2, 3)]], [])
    assert turns.start_turns(ws, trace, 2, eos, 0, N_TILES, 0, 1) == K.END_NONE
    assert turns.advance(ws, trace, 2, eos, row_of(ws, (5, 5))) == K.END_NONE
    board = ws.board
    assert (board[K.BOARD_TURN_SEAT], ws.round_stats[K.R_PASSES]) == (0, 1)
    assert ws.lacking[1] == 1 << 5
    assert turns.advance(ws, trace, 2, eos, row_of(ws, (0, 5))) == K.END_DOMINO


def test_a_round_nobody_can_go_on_is_blocked_at_once_and_settled():
    """Seat 0 opens 5-5 (10); nobody holds a 5 and the boneyard is empty: blocked before seat 1's
    turn (no pass). Seat 0 keeps 0-1 (1 pip), seat 1 1-1 and 2-3 (7): round5(7 - 1) = 5 raw."""
    ws, trace, eos = scripted_round(DRAWING_HANDS, [])
    turns.start_turns(ws, trace, 2, eos, 0, N_TILES, 0, 0)
    assert turns.advance(ws, trace, 2, eos, row_of(ws, (5, 5))) == K.END_BLOCKED
    assert ws.round_stats[K.R_PASSES] == 0
    assert ws.scores[0] == 15 and ws.round_stats[K.R_WINNER] == 0


def test_a_placement_taken_back_leaves_the_position_as_it_was():
    ws, trace, eos = scripted_round(DRAWING_HANDS, DRAWN)
    turns.start_turns(ws, trace, 2, eos, 0, BONEYARD_START, 0, 0)
    turns.advance(ws, trace, 2, eos, row_of(ws, (5, 5)))
    turns.advance(ws, trace, 2, eos, 0)  # seat 1's 4-5 on the 5-5
    kept = np.zeros(step.KEPT_FIELDS, dtype=np.int64)
    step.keep_position(ws, kept)
    before = {name: getattr(ws, name).copy() for name in ("hands", "hand_sizes", "scores", "open_count",
                                                          "open_nodes", "nodes")}
    board = ws.board.copy()
    count = int(ws.board[K.BOARD_DECISION_COUNT])
    row = count - 1
    parent = int(ws.cands[row, K.CAND_PARENT])
    line_open = int(ws.nodes[parent, K.NODE_LINE_OPEN])
    arms_open = int(ws.nodes[parent, K.NODE_ARMS_OPEN])
    nodes = int(ws.board[K.BOARD_NODES])
    step.place(ws, trace, 2, eos, int(ws.board[K.BOARD_TURN_SEAT]), int(ws.cands[row, K.CAND_TILE]),
               parent, int(ws.cands[row, K.CAND_SIDE]), int(ws.cands[row, K.CAND_JOINED]))
    step.take_back(ws, kept, parent, line_open, arms_open)
    for name, array in before.items():
        now = getattr(ws, name)
        if name == "nodes":  # the placement's own row, past the layout, is the caller's
            now, array = now[:nodes], array[:nodes]
        assert np.array_equal(now, array), name
    assert np.array_equal(ws.board[step.LAYOUT_BOARD], board[step.LAYOUT_BOARD])


STEP_NAMES = {"draw_tile", "pass_turn", "settle_blocked", "note_lacking", "draw_one", "draw_or_pass"}
"""A turn's steps: only the core (core) calls them."""

INDEPENDENT = {"sim/reference.py", "sim/verify.py"}
"""The rules reference and the verifier: the independent oracle, with turn methods of their own."""


def called_names(tree: ast.AST):
    """Every name a module imports, reads or reaches as an attribute, with its line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id, node.lineno
        elif isinstance(node, ast.Attribute):
            yield node.attr, node.lineno
        elif isinstance(node, ast.alias):
            yield node.name, node.lineno


def test_no_module_outside_the_core_takes_a_turns_steps():
    offenders = []
    for package in ("sim", "strategies", "experiments", "cli", "examples", "benchmarks"):
        for path in sorted((REPO / package).glob("**/*.py")):
            relative = path.relative_to(REPO).as_posix()
            if relative.startswith("core/") or relative in INDEPENDENT:
                continue
            for name, line in called_names(ast.parse(path.read_text(), filename=relative)):
                if name in STEP_NAMES:
                    offenders.append(f"{relative}:{line} {name}")
    assert not offenders, offenders
