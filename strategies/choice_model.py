"""How likely the other seats' past choices were in a sampled world: an opponent model.

Not a strategy: a helper of ``matchplay``'s world weighting, on the sealed
view's ``history``.

A seat that chose a placement among several revealed something about the
tiles it did *not* play: a greedy-like player that scored 0 when a tile
worth 15 was in its hand is unlikely. The model: at a past choice, a seat
picks tile ``t`` of its playable tiles with probability proportional to
``exp(beta * a(t))``, ``a(t)`` the most raw points ``t`` could score on the
layout of that moment (every tile's best placement, before the 305 test).

:func:`past_choices` rebuilds the layout of every earlier moment of the round
from the history (each play's parent, side and joined value) and, for every
past play of another seat that was a choice, tabulates ``a(t)`` for every
tile. Plays that reveal nothing are skipped: the placement of a tile just
drawn (forced), and any play of a seat that has drawn since (its hand then is
no longer its hand now plus the tiles it played since).

:func:`choice_factors` turns them into the model's factors ``exp(beta * a)``
once per decision, and :func:`world_weight` is the likelihood of those choices
in one sampled world,
where the seat's hand at choice ``k`` was its sampled hand now, plus the tiles
it played after ``k``, plus the chosen tile.
"""

from __future__ import annotations

import math

from core.bits import lowest_bit_index
from core.jit import kernel
from core.rules import list_openings, list_placements
from core.state import (ACTION_DRAW, ACTION_PLAY, BOARD_NODES, BOARD_OPEN_NODES,
    BOARD_OPEN_VALUES, BOARD_PLAYED, BOARD_TOTAL, CAND_POINTS, CAND_TILE, H_JOINED, H_KIND,
    H_PARENT, H_POINTS, H_SEAT, H_SIDE, H_TILE)
from core.tiles import N_TILES, N_VALUES
from strategies.lookahead import ALL_TILES, place_candidate

MAX_CHOICES = 32
"""Past choices kept per decision (the latest ones when a round has more)."""

NOT_PLAYABLE = -1.0
"""``awards`` entry of a tile that had no legal placement at that moment."""


@kernel
def _clear_layout(ws):
    ws.board[BOARD_NODES] = 0
    ws.board[BOARD_TOTAL] = 0
    ws.board[BOARD_OPEN_VALUES] = 0
    ws.board[BOARD_PLAYED] = 0
    ws.board[BOARD_OPEN_NODES] = 0
    for value in range(N_VALUES):
        ws.open_count[value] = 0


@kernel
def past_choices(view, ws, seats, chosen, awards, since):
    """Tabulate the informative past choices of the other seats (module docstring).

    Parameters
    ----------
    view : PlayerView
    ws : Workspace
        Scratch (its layout and candidates are overwritten).
    seats, chosen : int64[MAX_CHOICES]
        Filled: the seat and the tile of each choice.
    awards : float64[MAX_CHOICES, 28]
        Filled: the most raw points each tile could score then, or
        :data:`NOT_PLAYABLE`.
    since : int64[MAX_CHOICES]
        Filled: the tile set the seat played after the choice.

    Returns
    -------
    int64
        Number of choices (rows filled), at most :data:`MAX_CHOICES`.
    """
    history = view.history
    n_history = view.n_history
    unseen = ALL_TILES & ~view.hand & ~view.played
    _clear_layout(ws)
    n = 0
    for row in range(n_history):
        if history[row, H_KIND] != ACTION_PLAY:
            continue
        seat = history[row, H_SEAT]
        tile = history[row, H_TILE]
        informative = seat != view.seat
        if informative and row > 0 and history[row - 1, H_KIND] == ACTION_DRAW \
                and history[row - 1, H_SEAT] == seat:
            informative = False  # the playable tile just drawn: forced
        later = 0
        if informative:
            for after in range(row + 1, n_history):
                if history[after, H_SEAT] != seat:
                    continue
                if history[after, H_KIND] == ACTION_DRAW:
                    informative = False  # its hand then is not recoverable from its hand now
                    break
                if history[after, H_KIND] == ACTION_PLAY:
                    later |= 1 << history[after, H_TILE]
        if informative:
            slot = n if n < MAX_CHOICES else MAX_CHOICES - 1  # keep the latest when full
            seats[slot] = seat
            chosen[slot] = tile
            since[slot] = later
            for t in range(N_TILES):
                awards[slot, t] = NOT_PLAYABLE
            # The tiles it may have held then: unseen now, played later, or the one chosen.
            candidates = unseen | later | (1 << tile)
            if ws.board[BOARD_NODES] == 0:
                count = list_openings(ws, candidates)
            else:
                count = list_placements(ws, candidates)
            for c in range(count):
                t = ws.cands[c, CAND_TILE]
                points = float(ws.cands[c, CAND_POINTS])
                if points > awards[slot, t]:
                    awards[slot, t] = points
            if awards[slot, tile] < float(history[row, H_POINTS]):
                awards[slot, tile] = float(history[row, H_POINTS])
            if n < MAX_CHOICES:
                n += 1
        place_candidate(ws, tile, history[row, H_PARENT], history[row, H_SIDE], history[row, H_JOINED])
    return n


@kernel
def choice_factors(awards, n, beta, factors):
    """``factors[k, t] = exp(beta * awards[k, t])`` (0 for a tile not playable then), for the
    ``n`` tabulated choices: computed once per decision, so that a world's weight is a few
    products and sums (:func:`world_weight`)."""
    for k in range(n):
        for t in range(N_TILES):
            factors[k, t] = 0.0 if awards[k, t] == NOT_PLAYABLE else math.exp(beta * awards[k, t])


@kernel
def world_weight(hands, n, seats, chosen, factors, since):
    """Likelihood of the ``n`` tabulated choices when the seats hold ``hands`` (int64[4]) now.

    Each choice contributes ``exp(beta * a(chosen)) / sum(exp(beta * a(t)))``
    over the playable tiles ``t`` of the seat's hand then (``factors`` from
    :func:`choice_factors`); the product is returned (1.0 when ``n`` is 0).
    """
    weight = 1.0
    for k in range(n):
        then = hands[seats[k]] | since[k] | (1 << chosen[k])
        total = 0.0
        rest = then
        while rest != 0:
            total += factors[k, lowest_bit_index(rest)]
            rest &= rest - 1
        weight *= factors[k, chosen[k]] / total
    return weight


__all__ = ["MAX_CHOICES", "NOT_PLAYABLE", "choice_factors", "past_choices", "world_weight"]
