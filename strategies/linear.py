"""Move features and the linear chooser shared by ``exact``, ``defensive`` and ``weighted``
(each declared by :func:`linear_strategy`).

Not a strategy. The engine's cache check follows the compiled functions a strategy
calls into this module (:func:`strategies.identity.function_digest`).

Features of a candidate placement
---------------------------------
Computed for the deciding seat from its :class:`core.state.PlayerView` only.
"Score" is the deciding entity's raw score, the *gap* is ``305 - score`` and
the *next opponent* is the next seat clockwise (always an opponent, also with
partnerships). Displayed points are raw / 5.

==  ===============  ==========================================================
 0  award            immediate award that would be accepted, displayed points
                     (0 if the placement scores nothing or would pass 61).
                     For a final tile this is the placement alone: the
                     domino credit is not known before the hands are shown.
 1  scores           1 if the award is accepted and positive.
 2  overshoot        1 if the placement scores but the event would be
                     discarded (score + points > 305).
 3  exact            1 if it lands exactly on 305 (wins the match).
 4  gap              displayed points still missing after the move.
 5  turns            :data:`~strategies.turns_table.TURNS_TO_FINISH` of the gap after the move: the
                     expected number of own turns still needed to land
                     exactly on 305 (0 after an exact hit). See below.
 6  pips             pips of the tile played (shed from settlement exposure).
 7  double           1 if the tile is a double.
 8  doubles_kept     doubles left in the hand after the move.
 9  reply            expected best accepted immediate award of the next
                     opponent after the move, displayed points (0 if the
                     move ends the round or the match). Model: the opponent
                     holds each tile it may hold (unseen, carrying no value
                     it is known to lack) independently with probability
                     q = hand size / number of such tiles (1 if fewer); the
                     expected maximum of its per-tile best award follows
                     from sorting those awards.
10  opp_exact        probability that the next opponent can land exactly on
                     305 with its reply: 1 - (1 - q)^k for the k tiles it
                     may hold that would hit its gap exactly (same model).
11  open_unseen      unseen tiles that match an open value after the move
                     (how easy the layout is for the others).
12  own_playable     own remaining tiles playable after the move (mobility:
                     fewer draws next turn).
==  ===============  ==========================================================

Features 9-12 place the candidate on a private copy of the layout
(:mod:`strategies.lookahead`); they are computed only when their weight is
nonzero, so greedy- and heavy-like weight vectors stay cheap.

The linear chooser plays the candidate with the largest ``sum(w[f] *
feature[f])``; exact ties go to ``greedy``'s order (larger accepted award,
heavier tile, lower tile index, lower parent, line before arm), so the
greedy-like vector ``w[award] = 1`` (all else 0) plays exactly like
``greedy``.

Turns to finish
---------------
``TURNS_TO_FINISH[g / 5]`` estimates how many more own turns a player needs
to land exactly on 305 from a raw gap ``g`` when overshooting events are
discarded. Model: at each turn an award of ``a`` raw points is available
independently with probability ``r(a)``: the per-turn chance that some legal
placement scores exactly ``a`` (measured on 300 two-player greedy matches
with the reference: 5: 15 %, 10: 13.7 %, 15: 4.5 %, 20: 1.7 %, 25: 0.5 %, 30:
0.15 %, 35: 0.03 %) plus the chance that the turn dominoes (7.65 % of turns)
times the distribution of domino event values (5: 25 %, 10: 21 %, 15: 13 %,
20: 10 %, 25: 7 %, 30: 4 %, ... up to 60). The player takes, among the
available awards that do not overshoot, the one leading to the smallest
expected remainder, or none; ``T[0] = 0`` and ``T[g]`` solves ``T[g] = 1 +
E[min(T[g], min_available T[g - a])]`` (value iteration). The result: T = 5.9
turns at gap 5, 6.2 at 10, 8.1 at 15, 9.3 at 20, then about +1.3 turns per
further 5 raw (82.6 at 305). A gap of 5 or 10 is thus almost as far as 15 or
20 in turns: only awards of exactly that size close it.
"""

from __future__ import annotations

import numpy as np

from core.jit import kernel
from core.state import (CAND_JOINED, CAND_PARENT, CAND_POINTS, CAND_SIDE, CAND_TILE,
    TILE_IS_DOUBLE, TILE_PIPS)
from core.bits import bit_count, lowest_bit_index
from core.rules import list_placements, playable_tiles
from core.tiles import N_TILES, TARGET_RAW
from strategies.definition import Strategy, strategy
from strategies.turns_table import TURNS_TO_FINISH
from strategies.lookahead import (allocating, best_row, holdable_tiles, load_layout, new_scratch,
    place_candidate, unseen_tiles)

F_AWARD = 0
F_SCORES = 1
F_OVERSHOOT = 2
F_EXACT = 3
F_GAP = 4
F_TURNS = 5
F_PIPS = 6
F_DOUBLE = 7
F_DOUBLES_KEPT = 8
F_REPLY = 9
F_OPP_EXACT = 10
F_OPEN_UNSEEN = 11
F_OWN_PLAYABLE = 12
N_FEATURES = 13

FEATURE_NAMES = (
    "award",
    "scores",
    "overshoot",
    "exact",
    "gap",
    "turns",
    "pips",
    "double",
    "doubles_kept",
    "reply",
    "opp_exact",
    "open_unseen",
    "own_playable",
)
"""Feature names in index order (also the ``weighted`` parameter names, prefixed ``w_``)."""

assert len(FEATURE_NAMES) == N_FEATURES

FEATURE_DESCRIPTIONS = (
    "accepted immediate award, displayed points",
    "1 if the move scores an accepted award",
    "1 if the move scores but the event would pass 61 (discarded)",
    "1 if the move lands exactly on 61",
    "displayed points still missing after the move",
    "expected own turns still needed to land exactly on 61 after the move",
    "pips of the tile played",
    "1 if the tile is a double",
    "doubles left in hand after the move",
    "expected best accepted reply of the next opponent, displayed points",
    "probability the next opponent can land exactly on 61 next turn",
    "unseen tiles matching the open values after the move",
    "own remaining tiles playable after the move",
)

# Per-turn availability of a placement award of exactly a raw points
# (2-player greedy self-play, reference replays), and the domino events.
AWARD_AVAILABILITY = {5: 0.150, 10: 0.137, 15: 0.045, 20: 0.017, 25: 0.005, 30: 0.0015, 35: 0.0003}
DOMINO_RATE = 0.0765
DOMINO_VALUES = {5: 0.252, 10: 0.208, 15: 0.130, 20: 0.101, 25: 0.068, 30: 0.042, 35: 0.025,
                 40: 0.015, 45: 0.009, 50: 0.005, 55: 0.004, 60: 0.002}
GAP_STEPS = 200
"""Table length: gaps 0..995 raw (a four-player score can go below zero); larger gaps clamp."""


def turns_to_finish_table() -> np.ndarray:
    """float64[GAP_STEPS]: expected own turns to land exactly on 305 from a raw gap ``5 * i``,
    from the availability figures above (:data:`strategies.turns_table.TURNS_TO_FINISH`
    holds it written out)."""
    available = np.zeros(GAP_STEPS)
    for award, chance in AWARD_AVAILABILITY.items():
        available[award // 5] += chance
    for award, chance in DOMINO_VALUES.items():
        available[award // 5] += DOMINO_RATE * chance
    turns = np.zeros(GAP_STEPS)
    for gap in range(1, GAP_STEPS):
        options = sorted(
            (turns[gap - step], available[step]) for step in range(1, gap + 1) if available[step] > 0
        )
        value = 10.0 * gap
        for _ in range(500):
            expected = 0.0
            none = 1.0
            for remainder, chance in options:
                expected += none * chance * min(remainder, value)
                none *= 1.0 - chance
            new = 1.0 + expected + none * value
            if abs(new - value) < 1e-12:
                break
            value = new
        turns[gap] = value
    return turns




@kernel
def turns_to_finish(gap):
    """:data:`TURNS_TO_FINISH` at raw gap ``gap`` (clamped to the table)."""
    step = gap // 5
    if step < 0:
        step = 0
    if step >= GAP_STEPS:
        step = GAP_STEPS - 1
    return TURNS_TO_FINISH[step]


@kernel
def reply_risk(ws, tiles, chance, opponent_score):
    """Expected best accepted reply (raw) and exact-hit probability of the next opponent.

    Parameters
    ----------
    ws : Workspace
        Scratch with the layout after the candidate move.
    tiles : int64
        Tiles the opponent may hold that are playable on that layout.
    chance : float64
        Probability the opponent holds any one of them (independence model).
    opponent_score : int64

    Returns
    -------
    (float64, float64)
    """
    if tiles == 0:
        return 0.0, 0.0
    best = ws.deal  # scratch: best accepted award per tile
    rest = tiles
    while rest != 0:
        best[lowest_bit_index(rest)] = 0
        rest &= rest - 1
    count = list_placements(ws, tiles)
    exact_tiles = 0
    for row in range(count):
        points = ws.cands[row, CAND_POINTS]
        if points > 0 and opponent_score + points <= TARGET_RAW:
            tile = ws.cands[row, CAND_TILE]
            if points > best[tile]:
                best[tile] = points
            if opponent_score + points == TARGET_RAW:
                exact_tiles |= 1 << tile
    expected = 0.0
    missing = 1.0
    rest = tiles
    while rest != 0:
        top = -1
        top_value = 0
        scan = rest
        while scan != 0:
            tile = lowest_bit_index(scan)
            scan &= scan - 1
            if best[tile] > top_value:
                top = tile
                top_value = best[tile]
        if top < 0:
            break
        expected += missing * chance * top_value
        missing *= 1.0 - chance
        rest &= ~(1 << top)
    exact_chance = 1.0 - (1.0 - chance) ** bit_count(exact_tiles)
    return expected, exact_chance


@kernel
def candidate_features(view, weights, ws, features):
    """Fill ``features[c, f]`` for every candidate (see the module docstring).

    Features 9-12 are left 0 unless one of their weights is nonzero.

    Raises
    ------
    IndexError
        ``weights`` shorter than ``N_FEATURES`` or ``features`` smaller than
        [n_candidates, N_FEATURES] (compiled apart, this kernel checks its arguments).
    """
    if weights.shape[0] < N_FEATURES or features.shape[0] < view.n_candidates \
            or features.shape[1] < N_FEATURES:
        raise IndexError("candidate_features: weights need N_FEATURES entries, features "
                         "[n_candidates, N_FEATURES]")
    players = view.players
    seat = view.seat
    entity_of_seat = view.entity_of_seat
    score = view.scores[entity_of_seat[seat]]
    gap = TARGET_RAW - score
    need_layout = (
        weights[F_REPLY] != 0.0
        or weights[F_OPP_EXACT] != 0.0
        or weights[F_OPEN_UNSEEN] != 0.0
        or weights[F_OWN_PLAYABLE] != 0.0
    )
    opponent = (seat + 1) % players
    opponent_score = view.scores[entity_of_seat[opponent]]
    unseen = unseen_tiles(view)
    holdable = holdable_tiles(view, opponent, unseen)
    n_holdable = bit_count(holdable)
    held = view.hand_sizes[opponent]
    chance = 1.0 if n_holdable <= held else held / n_holdable
    doubles = 0
    rest = view.hand
    while rest != 0:
        doubles += TILE_IS_DOUBLE[lowest_bit_index(rest)]
        rest &= rest - 1
    cands = view.cands
    for row in range(view.n_candidates):
        tile = cands[row, CAND_TILE]
        points = cands[row, CAND_POINTS]
        accepted = points > 0 and score + points <= TARGET_RAW
        award = points if accepted else 0
        gap_after = gap - award
        exact = accepted and gap_after == 0
        features[row, F_AWARD] = award / 5.0
        features[row, F_SCORES] = 1.0 if accepted else 0.0
        features[row, F_OVERSHOOT] = 1.0 if points > 0 and not accepted else 0.0
        features[row, F_EXACT] = 1.0 if exact else 0.0
        features[row, F_GAP] = gap_after / 5.0
        features[row, F_TURNS] = turns_to_finish(gap_after)
        features[row, F_PIPS] = TILE_PIPS[tile]
        features[row, F_DOUBLE] = TILE_IS_DOUBLE[tile]
        features[row, F_DOUBLES_KEPT] = doubles - TILE_IS_DOUBLE[tile]
        reply = 0.0
        opponent_exact = 0.0
        open_unseen = 0.0
        own_playable = 0.0
        if need_layout:
            load_layout(ws, view)
            place_candidate(ws, tile, cands[row, CAND_PARENT], cands[row, CAND_SIDE], cands[row, CAND_JOINED])
            open_tiles = playable_tiles(ws)
            rest_hand = view.hand & ~(1 << tile)
            open_unseen = bit_count(unseen & open_tiles)
            own_playable = bit_count(rest_hand & open_tiles)
            if rest_hand != 0 and not exact:
                reply, opponent_exact = reply_risk(ws, holdable & open_tiles, chance, opponent_score)
        features[row, F_REPLY] = reply / 5.0
        features[row, F_OPP_EXACT] = opponent_exact
        features[row, F_OPEN_UNSEEN] = open_unseen
        features[row, F_OWN_PLAYABLE] = own_playable


@kernel
def linear_choice(view, weights, ws, features, values):
    """Row maximising ``weights . features``; ties in ``greedy``'s order (``values``:
    float64[n_candidates] or longer; IndexError otherwise)."""
    if values.shape[0] < view.n_candidates:
        raise IndexError("linear_choice: values need n_candidates entries")
    candidate_features(view, weights, ws, features)
    for row in range(view.n_candidates):
        value = 0.0
        for feature in range(N_FEATURES):
            value += weights[feature] * features[row, feature]
        values[row] = value
    return best_row(view, values)


@allocating
def choose_linear(view, mapping):
    """Allocate one decision's scratch and play the :func:`linear_choice` of the seat's weights.

    The weights are affine in the seat's parameters: ``w = mapping[0] +
    sum_i view.params[i] * mapping[i + 1]`` (``mapping`` float64[P + 1,
    N_FEATURES], frozen into the calling strategy by :func:`linear_strategy`). ``weighted``
    passes ``[0; identity]`` (weights = parameters); ``exact`` and
    ``defensive`` map their few parameters onto features. One compiled
    function thus serves all three.
    """
    n = view.n_candidates
    weights = np.zeros(N_FEATURES)
    for feature in range(N_FEATURES):
        weights[feature] = mapping[0, feature]
    for index in range(mapping.shape[0] - 1):
        for feature in range(N_FEATURES):
            weights[feature] += view.params[index] * mapping[index + 1, feature]
    return linear_choice(view, weights, new_scratch(), np.zeros((n, N_FEATURES)), np.zeros(n))


def weight_mapping(constant: dict[int, float], per_parameter: list[dict[int, float]]) -> np.ndarray:
    """Build a ``mapping`` for :func:`choose_linear` from {feature index: coefficient} dicts."""
    mapping = np.zeros((len(per_parameter) + 1, N_FEATURES), dtype=np.float64)
    for feature, value in constant.items():
        mapping[0, feature] = value
    for index, row in enumerate(per_parameter):
        for feature, value in row.items():
            mapping[index + 1, feature] = value
    return mapping


def linear_strategy(name: str, description: str, parameters: tuple, mapping: np.ndarray,
                    module: str) -> Strategy:
    """The strategy that plays :func:`choose_linear` with ``mapping`` (``exact``, ``defensive``,
    ``weighted``).

    The linear strategies differ only in their name, description, parameters and mapping: each
    reads what the next opponent may hold (``uses_inference``) and looks one ply ahead (its
    reply). The function is a closure over ``mapping`` named ``name`` and filed under
    ``module`` (the defining module's ``__name__``): the catalogue finds a module's strategies
    by their function's module, and the strategy's key
    (:func:`strategies.definition.strategy_key`) holds its name and ``mapping`` by value.
    """

    def choose(view):
        return choose_linear(view, mapping)

    choose.__module__ = module
    choose.__name__ = choose.__qualname__ = name
    choose.__doc__ = f"Row maximising {name}'s weighted feature sum (:func:`choose_linear`)."
    return strategy(choose, name=name, description=description, parameters=parameters,
                    uses_inference=True, lookahead=1)


IDENTITY_MAPPING = weight_mapping({}, [{feature: 1.0} for feature in range(N_FEATURES)])
"""Weights = the first N_FEATURES parameters (``weighted``)."""


@allocating
def features_of(view, weights):
    """float64[n_candidates, N_FEATURES] of a view (inspection and tests)."""
    features = np.zeros((view.n_candidates, N_FEATURES))
    candidate_features(view, weights, new_scratch(), features)
    return features


assert N_TILES <= 63
