"""``matchplay``: determinized search that plays for the match, not for the round's points.

For each decision with two or more legal placements:

1. **Worlds from everything public.** Each sampled world deals the hidden
   tiles to the other seats and the boneyard consistently with the hand
   sizes, the layout, the own hand and what every draw and pass revealed,
   tile by tile (:mod:`strategies.inference`: a draw tells that the whole
   hand lacked the open values, the tiles held before it keep their older
   constraints; ``rollout`` keeps only the latest draw's). Every random
   number comes from the seat's decision stream.
   **Opponent model** (``model_beta`` > 0): each world is weighted by how
   likely the other seats' past choices of the round were in it
   (:mod:`strategies.choice_model`: a seat picks a tile with probability
   proportional to ``exp(model_beta x`` the most raw points it could score
   then``)``), so worlds where an opponent passed up a big score it held
   count little.
2. **Successive halving on common worlds.** The budget is ``samples``
   playouts per candidate on average (``samples x n`` in all, as ``rollout``
   spends). It is split evenly over ``ceil(log2 n)`` stages; in each stage
   every surviving candidate is played out on the same new worlds, and the
   better half (by mean value so far, plus the prior) goes on. The
   contenders thus get several times the samples of the clear losers, and
   every comparison is paired on the same worlds.
3. **Playouts** to the end of the round with one policy at every seat:
   ``greedy``'s largest accepted award plus ``playout_doubles`` raw points
   for a double (the worked example ``doubles``, which beats ``greedy`` 61%;
   0 gives ``greedy``; :func:`strategies.lookahead.continue_round`: draws,
   passes, blocks, target-tested events, domino and blocked settlement).
4. **Valued by the match.** A playout's end state is valued by the
   probability that the deciding side wins the match from it
   (:data:`strategies.winprob_table.WIN_TABLE`: 2 players and 4-player
   partnerships, by both sides' displayed scores and who leads the next
   round: the dominoer's side, or a lot after a block; a playout that ends
   the match is worth 1 or 0). ``raw_weight`` adds the round's raw point
   differential per 305 raw. At 3 players, where no table ships, the value is
   ``rollout``'s (raw gain minus the others' mean gain, per 305 raw).
   The table carries an error: each entry is estimated from simulated rounds
   under ``rollout`` self-play (not this strategy's play, and not the
   ``doubles`` policy of the playouts) and then fitted (monotone in the scores
   over 0..50, symmetric between the sides); the half-width of its 95%
   interval is :data:`strategies.winprob_table.WIN_TABLE_HALF_WIDTH`, largest
   within 10 of 61 (``WIN_TABLE_RUN`` states the largest). Two candidates
   whose playouts end in neighbouring cells are therefore compared with that
   error on top of the playouts' own noise; the strategy uses the point
   values and does not widen its comparisons by it. The table is read as the
   module attribute ``winprob_table.WIN_TABLE``: Numba freezes it into the
   compiled code and the strategy's identity digest reads its value, so a
   regenerated table compiles a new kernel.
5. **Prior.** ``prior_weight`` times the candidate's score under the
   ``weighted`` default vector (one-ply features) is added to each mean; it
   breaks the near-ties that a few playouts cannot separate.

What each component gained
--------------------------
Two-player duplicate matches against ``rollout`` (its defaults: 16 samples),
the same deals in both seatings (seed 7; +- is the paired 95% half-width over
deals; 2026-12-01, 2-core VM). Rows above the line used the first shipped
table (``weighted`` self-play, 32 rounds per state), rows below the final one
(``rollout`` self-play, 32 rounds per state):

==================================================================  =====  ===============
configuration                                                        deals  win rate
==================================================================  =====  ===============
every component off, 16 samples (``rollout``'s search)                1000   0.500 +- 0.002
+ successive halving                                                  1000   0.500 +- 0.019
+ per-tile inference                                                  1000   0.506 +- 0.019
+ match value (prior 0.015), 16 samples                                800   0.492 +- 0.022
the same at 32 samples                                                 800   0.519 +- 0.021
32 samples, raw differential only                                      800   0.526 +- 0.021
40 samples, raw differential only                                     1000   0.533 +- 0.019
------------------------------------------------------------------  -----  ---------------
32 samples + opponent model (beta 0.2)                                 800   0.546 +- 0.022
the same, raw differential only                                        800   0.524 +- 0.021
32 samples, beta 0.3, doubles playouts (8 raw)                         800   0.556 +- 0.021
the same with a ``weighted`` table of 512 rounds per state             800   0.556 +- 0.021
40 samples, beta 0.3, doubles playouts                                1000   0.562 +- 0.019
==================================================================  =====  ===============

Four players (partnerships), 32 samples, beta 0.3, doubles playouts: 0.539
+- 0.030 over 500 deals. The budget, the opponent model and the match value
each moved the two-player rate by 2-3 points; halving, per-tile inference
and the better playout policy by less than the noise of these runs. CPU per
match in self-play, one thread (``time.process_time``, 150 matches): rollout
6.9 ms, matchplay at 40 samples 19.7 ms (2.9x); the default is 36 samples to
stay under 3x. The committed strength ladder (``five-up strength``, README)
has the figures.

Parameters switch each component off for ablations
(``matchplay[halving=0]``, ``matchplay[inference=0]``,
``matchplay[match_value=0]``, ``matchplay[model_beta=0]``): with all four off,
16 samples and ``prior_weight`` scaled to raw points (0.0164 = 5 raw / 305)
it is ``rollout``'s search.
"""

from __future__ import annotations

import numpy as np

from core.jit import kernel
from core.state import END_DOMINO, N_ENTITIES
from core.tiles import N_TILES, TARGET_RAW
from strategies.choice_model import MAX_CHOICES, choice_factors, past_choices, world_weight
from strategies.definition import strategy
from strategies.inference import MAX_GROUPS, hand_groups, sample_grouped_world
from strategies.linear import N_FEATURES, candidate_features
from strategies.lookahead import (allocating, best_row, continue_round, load_layout, new_scratch,
    sample_world)
from strategies.parameters import Parameter
from strategies.weighted import DEFAULT_WEIGHTS, weights
from strategies import winprob_table

PRIOR_WEIGHT = Parameter("prior_weight", 0.015, "win probability per unit of the weighted default score added to each candidate")
RAW_WEIGHT = Parameter("raw_weight", 0.0, "weight of the round's raw differential per 305 raw, added to the win probability")
PLAYOUT_DOUBLES = Parameter("playout_doubles", 8.0, "raw points the playout policy adds for a double (0: greedy playouts)")
MODEL_BETA = Parameter("model_beta", 0.3, "opponent model: worlds weighted by exp(model_beta x raw points) choice likelihoods; 0: off")
"""Parameters that ``pimc`` and ``cheater`` share with this strategy (the same meaning, the same default)."""

PARAMETERS = (
    Parameter("samples", 36.0, "playouts per candidate on average (the budget is samples x candidates)"),
    PRIOR_WEIGHT,
    RAW_WEIGHT,
    Parameter("halving", 1.0, "1: successive halving over the candidates; 0: every candidate gets every world"),
    Parameter("inference", 1.0, "1: per-tile knowledge from the round's history; 0: the view's lacking values only"),
    Parameter("match_value", 1.0, "1: value playouts by the match-win table; 0: by the raw differential"),
    PLAYOUT_DOUBLES,
    MODEL_BETA,
)

PRIOR = weights(**DEFAULT_WEIGHTS)
"""Feature weights of the prior (the ``weighted`` default vector)."""

LEAD_OWN = 0
"""``WIN_TABLE`` lead index: the own side leads the next round."""
LEAD_OTHER = 1
"""The other side leads."""
LEAD_LOT = 2
"""The next leader is drawn by lot (after a blocked round)."""

TABLE_ROW = np.array([-1, -1, 0, -1, 1], dtype=np.int64)
"""``WIN_TABLE`` first index by table size (-1: no table, raw valuation)."""

SCORE_STEP = 5
"""Raw points per displayed point: the table is indexed by displayed scores."""

DEAD = -1.0e300
"""Value of a candidate eliminated by successive halving."""


@kernel
def outcome_value(ws, view, end, match_value, raw_weight):
    """Value for the deciding side of the playout that ended in ``ws`` with ``end``.

    Win probability from :data:`strategies.winprob_table.WIN_TABLE` (1 or 0 when the playout ended the
    match), plus ``raw_weight`` times the round's raw differential (own gain
    minus the others' mean gain) per 305 raw; the differential alone at 3
    players or with ``match_value`` 0.
    """
    players = view.players
    entity_of_seat = view.entity_of_seat
    me = entity_of_seat[view.seat]
    n_entities = N_ENTITIES[players]
    own = ws.scores[me] - view.scores[me]
    others = 0
    for entity in range(n_entities):
        if entity != me:
            others += ws.scores[entity] - view.scores[entity]
    differential = (own - others / (n_entities - 1)) / TARGET_RAW
    row = TABLE_ROW[players]
    if match_value == 0.0 or row < 0:
        return differential
    value = raw_weight * differential
    for entity in range(n_entities):
        if ws.scores[entity] == TARGET_RAW:
            return value + (1.0 if entity == me else 0.0)
    lead = LEAD_LOT
    if end == END_DOMINO:
        lead = LEAD_OTHER
        for seat in range(players):
            if ws.hand_sizes[seat] == 0 and entity_of_seat[seat] == me:
                lead = LEAD_OWN
    other = 1 - me
    # A partnership's score can go below 0 (the partner debit): the table starts at 0.
    own_cell = max(ws.scores[me], 0) // SCORE_STEP
    other_cell = max(ws.scores[other], 0) // SCORE_STEP
    return value + winprob_table.WIN_TABLE[row, own_cell, other_cell, lead]


@kernel
def playout_value(ws, view, saved, first_draw, row, match_value, raw_weight, double_bonus):
    """Play candidate ``row`` out on the world saved in ``saved`` (int64[4] hands; the boneyard
    is ``ws.deal[first_draw:]``, which playouts only read) and value the end state."""
    seat = view.seat
    for other in range(view.players):
        ws.hands[other] = saved[other]
        ws.hand_sizes[other] = view.hand_sizes[other]
    for entity in range(N_ENTITIES[view.players]):
        ws.scores[entity] = view.scores[entity]
    load_layout(ws, view)
    end = continue_round(ws, view, seat, first_draw, seat, row, double_bonus)
    return outcome_value(ws, view, end, match_value, raw_weight)


@kernel
def weighted_prior(view, prior, prior_weight, ws, features, out):
    """``out[row] = prior_weight x (prior . features of row)`` for every candidate (``features``:
    float64[n, N_FEATURES] scratch, filled by :func:`strategies.linear.candidate_features`)."""
    candidate_features(view, prior, ws, features)
    for row in range(view.n_candidates):
        score = 0.0
        for feature in range(N_FEATURES):
            score += prior[feature] * features[row, feature]
        out[row] = prior_weight * score


@kernel
def keep_best(view, means, alive, keep):
    """Mark all but the ``keep`` best alive rows of ``means`` dead (ties by greedy's order)."""
    n = view.n_candidates
    for _ in range(keep):
        best = -1
        for row in range(n):
            if alive[row] == 1 and (best < 0 or means[row] > means[best]):
                best = row
        alive[best] = 2  # kept
    for row in range(n):
        alive[row] = 1 if alive[row] == 2 else 0


@kernel
def model_setup(view, ws, counts, lacks, n_groups, seats, chosen, awards, since, inference, beta):
    """What the worlds are sampled and weighted by: with ``inference`` (not 0.0) each other
    seat's groups (:func:`strategies.inference.hand_groups`), with ``beta`` (not 0.0) the
    other seats' past choices of the round (``awards`` become their factors,
    :func:`strategies.choice_model.choice_factors`); returns the number of past choices (0
    with ``beta`` 0)."""
    if inference != 0.0:
        for seat in range(view.players):
            n_groups[seat] = 0
            if seat != view.seat:
                n_groups[seat] = hand_groups(view, seat, counts[seat], lacks[seat])
    n_choices = 0
    if beta != 0.0:
        n_choices = past_choices(view, ws, seats, chosen, awards, since)
        choice_factors(awards, n_choices, beta, awards)  # in place: awards become the factors
    return n_choices


@kernel
def search(view, ws, sums, prior_scores, means, alive, features, prior, saved, counts, lacks,
           n_groups, seats, chosen, awards, since, samples, prior_weight, raw_weight, halving,
           inference, match_value, double_bonus, beta):
    """The decision (module docstring); every array is scratch sized by the caller, the settings
    are the parameters' (:func:`search_with`)."""
    n = view.n_candidates
    if samples < 1:
        samples = 1
    for row in range(n):
        prior_scores[row] = 0.0
        sums[row] = 0.0
        alive[row] = 1
    if prior_weight != 0.0:
        weighted_prior(view, prior, prior_weight, ws, features, prior_scores)
    n_choices = model_setup(view, ws, counts, lacks, n_groups, seats, chosen, awards, since,
                            inference, beta)
    stages = 1
    if halving != 0.0:
        while (1 << stages) < n:
            stages += 1
    budget = samples * n
    survivors = n
    weights = 0.0
    for stage in range(stages):
        per_candidate = budget // (stages * survivors)
        if per_candidate < 1:
            per_candidate = 1
        for _ in range(per_candidate):
            if inference != 0.0:
                first_draw = sample_grouped_world(ws, view, view.rng, counts, lacks, n_groups)
            else:
                first_draw = sample_world(ws, view, view.rng)
            for seat in range(view.players):
                saved[seat] = ws.hands[seat]
            weight = world_weight(saved, n_choices, seats, chosen, awards, since)
            weights += weight
            for row in range(n):
                if alive[row] == 1:
                    sums[row] += weight * playout_value(ws, view, saved, first_draw, row,
                                                        match_value, raw_weight, double_bonus)
        if weights <= 0.0:
            weights = 1.0e-300  # every world impossible under the model: the means stay finite
        for row in range(n):
            means[row] = sums[row] / weights + prior_scores[row] if alive[row] == 1 else DEAD
        if stage < stages - 1:
            survivors = (survivors + 1) // 2
            keep_best(view, means, alive, survivors)
    return best_row(view, means)


@allocating
def search_with(view, samples, prior_weight, raw_weight, halving, inference, match_value,
                double_bonus, beta):
    """Allocate the decision's scratch and run :func:`search` with these settings (the
    parameters of :data:`PARAMETERS`, typed: ``samples`` int64, the others float64, ``halving``
    and ``inference`` as in the parameter row, 0.0 for off; not bool: a caller passing the
    literal ``True`` would be typed apart, a second compile of the whole search). ``pimc`` calls it for the decisions it does not solve."""
    n = view.n_candidates
    return search(view, new_scratch(), np.zeros(n), np.zeros(n), np.zeros(n),
                  np.zeros(n, dtype=np.int64), np.zeros((n, N_FEATURES)), PRIOR.copy(),  # writable, as rollout's
                  np.zeros(4, dtype=np.int64), np.zeros((4, MAX_GROUPS), dtype=np.int64),
                  np.zeros((4, MAX_GROUPS), dtype=np.int64), np.zeros(4, dtype=np.int64),
                  np.zeros(MAX_CHOICES, dtype=np.int64), np.zeros(MAX_CHOICES, dtype=np.int64),
                  np.zeros((MAX_CHOICES, N_TILES)), np.zeros(MAX_CHOICES, dtype=np.int64),
                  samples, prior_weight, raw_weight, halving, inference, match_value, double_bonus,
                  beta)


@allocating
def choose(view):
    """Run :func:`search_with` with the view's parameters."""
    params = view.params
    return search_with(view, np.int64(params[0]), params[1], params[2], params[3], params[4],
                       params[5], params[6], params[7])


@strategy(
    name="matchplay",
    description=(
        "Determinized search for the match: samples hidden worlds consistent with everything "
        "public (hand sizes, the layout, its own hand and what each draw and pass revealed, "
        "tile by tile), weighted by how likely the other seats' past choices were in them, plays "
        "every candidate out to the end of the round (greedy plus a bonus for doubles at every "
        "seat) on common worlds, spends its budget (samples x candidates playouts) by successive "
        "halving over the candidates, and values each outcome by the probability of winning "
        "the match from the scores and next leader it leaves (the shipped win-probability "
        "table; 3 players: the raw differential), plus prior_weight times the weighted "
        "strategy's default score. Stochastic (decision stream only); uses inference; looks "
        "ahead to the end of the round."
    ),
    parameters=PARAMETERS,
    stochastic=True,
    uses_inference=True,
    lookahead=36,  # Playouts per candidate on average at the default ``samples``.
)
def matchplay(view):
    """Row with the best value after successive halving (module docstring)."""
    return choose(view)


__all__ = ["matchplay", "outcome_value", "playout_value", "model_setup", "search", "search_with", "weighted_prior", "PARAMETERS", "TABLE_ROW",
           "LEAD_OWN", "LEAD_OTHER", "LEAD_LOT"]
