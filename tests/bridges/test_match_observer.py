"""sim.bridges.match_observer: what a seat (or the public) sees depends only on what it may know.

Twin states: two states reached by the same public history whose hidden tiles differ (a forced
draw's tile swapped for another boneyard tile; two tiles hidden from a seat swapped in the
deal and the draws, the whole round replayed). Every seat the swap is hidden from must see
the same information-state string and tensor and the same observation string and tensor in
both, and the public observation must be the same in both and for every seat.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from sim.bridges.match_observer import (INFORMATION_STATE_OFFSETS, OBSERVATION_OFFSETS,
    PUBLIC_INFORMATION_STATE_OFFSETS, PUBLIC_OBSERVATION_OFFSETS, PUBLIC_OBSERVATION_SHAPE,
    dealt_mask, own_draws)
from sim.bridges.match_state import MatchState, Phase
from core import state as K
from core.tiles import N_TILES


def random_step(state: MatchState, rng: random.Random) -> int:
    """Apply (and return) a uniform chance outcome or a uniformly random legal action."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        action = outcomes[rng.randrange(len(outcomes))][0]
    else:
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
    state.apply_action(action)
    return action


def seen_by(state: MatchState, seat: int) -> tuple:
    """Everything ``seat`` is shown of ``state``: strings and tensors (tensors as bytes)."""
    return (state.information_state_string(seat),
            state.information_state_tensor(seat).tobytes(),
            state.observation_string(seat),
            state.observation_tensor(seat).tobytes())


def seen_by_public(state: MatchState) -> tuple:
    """What the public observer is shown of ``state``."""
    return (state.public_observation_string(), state.public_observation_tensor().tobytes())


def forced_draw_twins(players: int, rounds: int, seed: int):
    """``(state, twin)`` right after every forced draw of ``rounds`` random rounds: the twin
    drew another tile of the boneyard instead (the boneyard's order changed before the draw)."""
    rng = random.Random(seed)
    for _ in range(rounds):
        state = MatchState(players, one_round=True)
        while not state.is_terminal():
            if state.phase == Phase.DRAW and len(state.chance_outcomes()) > 1:
                before = state.clone()
                drawn = random_step(state, rng)
                others = [t for t, _ in before.chance_outcomes() if t != drawn]
                twin = before
                twin.apply_action(rng.choice(others))
                yield state.clone(), twin, state.ws.history[
                    int(state.ws.board[K.BOARD_HISTORY]) - 1, K.H_SEAT]
            else:
                random_step(state, rng)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_another_seat_cannot_tell_which_tile_a_forced_draw_took(players):
    """The reported leak: seat 1 draws, seat 0 observes; a playable tile (a decision next) and
    an unplayable one (another draw next) must look the same to every other seat."""
    compared = 0
    told_apart = 0
    for state, twin, drawer in forced_draw_twins(players, rounds=25, seed=players):
        told_apart += state.phase != twin.phase  # one drew a playable tile, the other did not
        for seat in range(players):
            if seat != drawer:
                assert seen_by(state, seat) == seen_by(twin, seat), (seat, drawer)
        assert seen_by_public(state) == seen_by_public(twin)
        # the drawer itself knows its tile
        assert seen_by(state, drawer)[0] != seen_by(twin, drawer)[0]
        compared += 1
    assert compared >= 20 and told_apart >= 5


def hidden_from(state: MatchState, seat: int | None) -> list[int]:
    """Tiles ``seat`` (None: the public) has not seen this round: not dealt or drawn to it,
    not on the layout, not shown at the end."""
    known = int(state.ws.board[K.BOARD_PLAYED])
    if state.phase == Phase.OVER:  # the settlement shows every hand
        for s in range(state.players):
            known |= int(state.ws.hands[s])
    if seat is not None:
        known |= dealt_mask(state, seat)
        rows = state.ws.history[: int(state.ws.board[K.BOARD_HISTORY])].tolist()
        for tile in own_draws(state, seat, rows).values():
            known |= 1 << tile
    return [t for t in range(N_TILES) if not known >> t & 1]


def public_play(state: MatchState) -> list[tuple]:
    """The round's public actions: every row of the history, a draw's tile left out."""
    rows = state.ws.history[: int(state.ws.board[K.BOARD_HISTORY])].tolist()
    return [tuple(row[: K.H_TILE]) if row[K.H_KIND] == K.ACTION_DRAW else tuple(row)
            for row in rows]


def replayed_with_swap(state: MatchState, actions: list[int], x: int,
                       y: int) -> MatchState | None:
    """The one-round state after ``actions`` (those of ``state``) with tiles ``x`` and ``y``
    exchanged in every deal and draw, or None where the swap contradicts the public play (an
    action illegal there, or another public history: an automatic pass in one and not the
    other)."""
    twin = MatchState(state.players, one_round=True)
    swap = {x: y, y: x}
    for action in actions:
        if twin.phase in (Phase.DEAL, Phase.DRAW):
            action = swap.get(action, action)
        try:
            twin.apply_action(action)
        except ValueError:
            return None
    return twin if public_play(twin) == public_play(state) else None


def swaps(state: MatchState, hidden: list[int], rng: random.Random) -> list[tuple[int, int]]:
    """Pairs of hidden tiles to swap: first one of the seat to move's tiles with one of the
    boneyard (the swap most likely to turn its decision into a draw or back), then any two."""
    pairs = []
    if state.phase in (Phase.PLAY, Phase.DRAW):
        held = int(state.ws.hands[state.mover])
        taken = int(state.ws.board[K.BOARD_PLAYED])
        for s in range(state.players):
            taken |= int(state.ws.hands[s])
        mine = [t for t in hidden if held >> t & 1]
        boneyard = [t for t in hidden if not taken >> t & 1]
        if mine and boneyard:
            pairs.append((rng.choice(mine), rng.choice(boneyard)))
    pairs += [tuple(rng.sample(hidden, 2)) for _ in range(2)]
    return pairs


@pytest.mark.parametrize("players", [2, 3, 4])
def test_states_differing_only_in_hidden_tiles_look_the_same(players):
    """At every node of random rounds, two tiles hidden from a seat are swapped in the deal
    and the draws and the round replayed: where the public play stays legal, that seat (and
    the public) sees the same strings and tensors, though the hands (and so whose turn is a
    draw and whose a decision) may differ."""
    rng = random.Random(10 + players)
    compared = {"seat": 0, "public": 0, "phase differs": 0}
    for _ in range(4):
        state = MatchState(players, one_round=True)
        random_step(state, rng)  # the lot
        actions = list(state.history())
        while not state.is_terminal():
            actions.append(random_step(state, rng))
            for seat in (rng.randrange(players), None):
                hidden = hidden_from(state, seat)
                if len(hidden) < 2:
                    continue
                for x, y in swaps(state, hidden, rng):
                    twin = replayed_with_swap(state, actions, x, y)
                    if twin is None:
                        continue
                    if seat is None:
                        assert seen_by_public(twin) == seen_by_public(state)
                        compared["public"] += 1
                    else:
                        assert seen_by(twin, seat) == seen_by(state, seat), (seat, x, y)
                        compared["seat"] += 1
                    compared["phase differs"] += twin.phase != state.phase
                    break
    assert compared["seat"] >= 50 and compared["public"] >= 50
    assert compared["phase differs"] >= 1


@pytest.mark.parametrize("players", [2, 4])
def test_the_public_observation_is_every_seats_observation_without_its_own_pieces(players):
    rng = random.Random(players)
    state = MatchState(players, max_rounds=2)
    nodes = 0
    while not state.is_terminal() or nodes == 0:
        public = state.public_observation_tensor()
        public_history = state.public_information_state_tensor()
        assert public.shape == PUBLIC_OBSERVATION_SHAPE
        for seat in range(players):
            mine = state.observation_tensor(seat)
            history = state.information_state_tensor(seat)
            for name, (start, shape) in PUBLIC_OBSERVATION_OFFSETS.items():
                size = int(np.prod(shape))
                theirs, _ = OBSERVATION_OFFSETS[name]
                assert np.array_equal(public[start:start + size], mine[theirs:theirs + size])
            start, shape = PUBLIC_INFORMATION_STATE_OFFSETS["history"]
            theirs, _ = INFORMATION_STATE_OFFSETS["history"]
            size = int(np.prod(shape))
            if state.phase == Phase.OVER or not any(
                    row[K.H_KIND] == K.ACTION_DRAW and row[K.H_SEAT] == seat
                    for row in state.ws.history[: int(state.ws.board[K.BOARD_HISTORY])]):
                # no draw of its own in the history: nothing of it the public lacks
                assert np.array_equal(public_history[start:start + size],
                                      history[theirs:theirs + size])
            # the seat's observation string is the public one with its hand and phase
            text = state.observation_string(seat).split("\n")
            assert text[1].startswith("hand ")
            public_text = state.public_observation_string().split("\n")
            assert text[2:] == public_text[1:]
        assert "hand" not in state.public_observation_string()
        second = state.public_information_state_string().split("\n")[1]
        assert second == "lot" or re.fullmatch(r"dealt \d+", second)  # a count, no tiles
        nodes += 1
        if state.is_terminal():
            break
        random_step(state, rng)
    assert nodes > 30
    assert "shown" in state.public_observation_string()  # the settlement shows every hand


def test_rounds_are_counted_from_one_and_a_finished_game_names_its_last_round():
    state = MatchState(2, one_round=True)
    rng = random.Random(3)
    assert "; round 1;" in state.observation_string(0)
    while not state.is_terminal():
        assert "; round 1;" in state.observation_string(0)
        random_step(state, rng)
    for text in (state.observation_string(0), state.information_state_string(1),
                 state.public_observation_string(), state.public_information_state_string(),
                 str(state)):
        assert "; round 1;" in text and "round 2" not in text
    # a match of two rounds: the second round's strings say round 2, also once it is over
    match = MatchState(2, max_rounds=2)
    seen = set()
    while not match.is_terminal():
        seen.add(match.observation_string(0).split("; ")[1])
        random_step(match, rng)
    seen.add(match.observation_string(0).split("; ")[1])
    assert seen == {"round 1", "round 2"}
    assert "; round 2;" in match.public_observation_string()
