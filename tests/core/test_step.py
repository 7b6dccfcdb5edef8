"""The one step core (core.step): scripted steps with hand-computed results.

The engine, the lookahead playouts and MatchState all drive these steps; their
differential tests (engine vs reference records, lookahead vs engine rounds, the bridges'
random games) check the drivers. Here each step is called from Python on a workspace.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import state as K
from core import step
from core.jit import kernel
from core.state import new_workspace
from core.tiles import TARGET_RAW, TILES
from strategies import strategy, strategy_key
from strategies.greedy import greedy
from tests.support.traces import traced

TILE = {pair: index for index, pair in enumerate(TILES)}


@pytest.mark.parametrize(("before", "raw", "outcome", "after"), [
    (280, 10, K.OUTCOME_ACCEPTED, 290),
    (300, 5, K.OUTCOME_HIT_TARGET, TARGET_RAW),
    (300, 10, K.OUTCOME_DISCARDED, 300),  # ruling 8: 310 would pass 305, the event is discarded
])
def test_an_event_is_target_tested(before, raw, outcome, after):
    ws = new_workspace()
    trace = traced(8)
    ws.scores[1] = before
    got = step.apply_event(ws, trace, 1, K.EVENT_PLACEMENT, 3, 1, raw, 0, 0, raw)
    assert got == outcome
    assert ws.scores[1] == after
    assert ws.round_stats[K.R_EVENTS] == 1
    accepted = outcome != K.OUTCOME_DISCARDED
    assert ws.round_stats[K.R_EVENTS_ACCEPTED] == int(accepted)
    assert ws.round_stats[K.R_RAW_DISCARDED] == (0 if accepted else raw)
    assert ws.cursor[K.CURSOR_EVENTS] == 1
    row = trace.events[0]
    assert (row[K.E_ENTITY], row[K.E_ACTION], row[K.E_RAW], row[K.E_ACCEPTED]) == (1, 3, raw, int(accepted))


@kernel
def event_and_draw_quietly(ws):
    """apply_event and draw_tile with :func:`core.step.quiet_trace`, inside compiled code
    (where the drivers use it: a zero-row view returned to Python boxes as its parent array)."""
    quiet = step.quiet_trace(ws)
    outcome = step.apply_event(ws, quiet, 0, K.EVENT_PLACEMENT, 0, 0, 10, 0, 0, 10)
    step.draw_tile(ws, quiet, 0, 3)
    return outcome, quiet.events.shape[0] + quiet.actions.shape[0]


def test_a_quiet_trace_writes_nothing_but_the_workspace():
    ws = new_workspace()
    ws.cands[:] = -7
    outcome, rows = event_and_draw_quietly(ws)
    assert (outcome, rows) == (K.OUTCOME_ACCEPTED, 0)
    assert ws.scores[0] == 10 and ws.hands[0] == 1 << 3
    assert ws.cursor[K.CURSOR_EVENTS] == 0 and ws.cursor[K.CURSOR_ACTIONS] == 0
    assert (ws.cands == -7).all()  # the arrays the empty views come from are untouched


def test_a_python_callers_quiet_trace_writes_nothing_but_the_workspace():
    """The same steps called from Python with :func:`tests.support.traces.traced` (what the
    Python callers use: ``quiet_trace`` would hand them ``ws.cands`` itself)."""
    ws = new_workspace()
    ws.cands[:] = -7
    quiet = traced()
    assert step.apply_event(ws, quiet, 0, K.EVENT_PLACEMENT, 0, 0, 10, 0, 0, 10) == K.OUTCOME_ACCEPTED
    step.draw_tile(ws, quiet, 0, 3)
    assert ws.scores[0] == 10 and ws.hands[0] == 1 << 3
    assert ws.cursor[K.CURSOR_EVENTS] == 0 and ws.cursor[K.CURSOR_ACTIONS] == 0
    assert (ws.cands == -7).all()


@pytest.mark.parametrize("keep", [0, 1])
def test_the_history_is_written_only_while_kept(keep):
    ws = new_workspace()
    trace = traced(8)
    ws.board[K.BOARD_KEEP_HISTORY] = keep
    ws.board[K.BOARD_OPEN_VALUES] = 0b0001001  # values 0 and 3 open
    step.draw_tile(ws, trace, 2, TILE[(1, 2)])
    step.pass_turn(ws, trace, 1)
    assert ws.board[K.BOARD_HISTORY] == 2 * keep
    if keep:
        assert list(ws.history[0, [K.H_SEAT, K.H_KIND, K.H_TILE, K.H_OPEN]]) == [2, K.ACTION_DRAW, K.NO_TILE, 0b0001001]
        assert list(ws.history[1, [K.H_SEAT, K.H_KIND]]) == [1, K.ACTION_PASS]
    # Counted and traced either way: the record does not depend on who reads the history.
    assert ws.round_stats[K.R_ACTIONS] == 2
    assert ws.round_stats[K.R_DRAWS] == 1 and ws.round_stats[K.R_PASSES] == 1
    assert ws.cursor[K.CURSOR_ACTIONS] == 2
    assert trace.actions[0, K.A_TILE] == TILE[(1, 2)]  # the record keeps the drawn tile
    assert ws.hands[2] == 1 << TILE[(1, 2)] and ws.hand_sizes[2] == 1


def test_what_a_seat_that_cannot_play_is_known_to_lack():
    ws = new_workspace()
    ws.lacking[0] = 0b1000000  # lacked a 6 before
    ws.board[K.BOARD_OPEN_VALUES] = 0b0000110
    step.note_lacking(ws, 0, 0)  # a pass adds the open values
    assert ws.lacking[0] == 0b1000110
    step.note_lacking(ws, 0, 3)  # a draw replaces the old knowledge
    assert ws.lacking[0] == 0b0000110


def two_player_round(leader: int, hands) -> tuple:
    """A new match's first round of two players, led by ``leader``, with the given hands
    (lists of (low, high) tiles): the workspace, a trace with room and the entity of each seat."""
    ws = new_workspace()
    step.reset_match(ws)
    step.begin_round(ws, leader)
    for seat, tiles in enumerate(hands):
        for tile in tiles:
            ws.hands[seat] |= 1 << TILE[tile]
        ws.hand_sizes[seat] = len(tiles)
    return ws, traced(8), K.ENTITY_OF_SEAT[2, :2].copy()


def test_a_domino_settles_the_round():
    """Two players: seat 1 opens 5-0 (5 points), seat 0 plays its last tile 5-5 on the 5
    (ends 0 and 5-5: 10 points) and dominoes; seat 1 keeps 6-6 and 4-3 (19 pips, round5 = 20):
    10 + 20 raw."""
    ws, trace, eos = two_player_round(0, [[(5, 5)], [(0, 5), (6, 6), (3, 4)]])
    ws.board[K.BOARD_KEEP_HISTORY] = 1
    assert step.place(ws, trace, 2, eos, 1, TILE[(0, 5)], K.NO_PARENT, K.SIDE_NONE, 0) == K.END_NONE
    assert ws.scores[1] == 5
    assert ws.round_stats[K.R_OPENING_TILE] == TILE[(0, 5)] and ws.round_stats[K.R_OPENING_POINTS] == 5
    end = step.place(ws, trace, 2, eos, 0, TILE[(5, 5)], 0, K.SIDE_LINE, 5)
    assert end == K.END_DOMINO
    stats = ws.round_stats
    assert (stats[K.R_DOMINO_PLACEMENT], stats[K.R_DOMINO_CREDIT], stats[K.R_DOMINO_DEBIT]) == (10, 20, 0)
    assert ws.scores[0] == 30 and stats[K.R_DOMINOER] == 0 and stats[K.R_WINNER] == 0
    step.close_round(ws, 2)
    assert stats[K.R_PIPS + 1] == 19
    assert step.count_round(ws, 2, end, 0, 0) == K.NO_ENTITY
    totals = ws.match_totals
    assert totals[K.M_DOMINO_ROUNDS] == 1 and totals[K.M_PLACEMENT_RAW] == 15  # 5 + the domino's 10
    assert totals[K.M_DOMINO_CREDIT] == 20 and totals[K.M_FIRST_OPENING] == TILE[(0, 5)]


def test_a_blocked_round_credits_the_lighter_hand_and_stops_at_305():
    """Two players, blocked: seat 0 holds 1-0 (1 pip), seat 1 holds 6-5 (11 pips); seat 0's
    entity earns round5(11 - 1) = 10 raw, and at 295 that reaches exactly 305."""
    ws, trace, eos = two_player_round(1, [[(0, 1)], [(5, 6)]])
    ws.scores[0] = 295  # after reset_match: the match stands at 295-0
    assert step.settle_blocked(ws, trace, 2, eos, 1) == K.END_BLOCKED
    assert ws.scores[0] == TARGET_RAW
    assert ws.round_stats[K.R_BLOCKED_CREDIT] == 10 and ws.round_stats[K.R_WINNER] == 0
    step.close_round(ws, 2)
    assert step.count_round(ws, 2, K.END_BLOCKED, 3, 1) == 0  # entity 0 won the match
    assert ws.match_totals[K.M_BLOCKED_ROUNDS] == 1


def test_reading_the_history_is_found_in_the_code_or_declared():
    @strategy
    def counts_actions(view):
        return min(view.n_history, view.n_candidates - 1)

    @strategy(reads_history=True)
    def declares_it(view):
        return 0

    @strategy(reads_history=False)
    def declines_it(view):
        return min(view.n_history, view.n_candidates - 1)

    assert K.READS_HISTORY_KEY in strategy_key(counts_actions)
    assert K.READS_HISTORY_KEY in strategy_key(declares_it)
    assert K.READS_HISTORY_KEY not in strategy_key(declines_it)
    assert K.READS_HISTORY_KEY not in strategy_key(greedy)
