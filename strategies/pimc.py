"""``pimc``: ``matchplay``'s search while the round is large, perfect-information search over
inferred worlds once it is small enough to solve.

For each decision with two or more legal placements:

1. **While more than** ``exact_below`` **tiles are unplayed** (in the hands and the boneyard:
   public counts), it plays ``matchplay``'s search (:func:`strategies.matchplay.search_with`:
   worlds from everything public, successive halving over the candidates, playouts valued by
   the match-win table) with ``samples`` playouts per candidate. Early in a round no world
   can be solved within a useful budget, and minimax over playout leaves lets every seat's
   replies exploit the playouts' noise: measured, it played worse than the playouts alone.
2. **Then each decision is solved world by world.** ``worlds`` hidden worlds are sampled as
   ``matchplay`` samples them (:mod:`strategies.inference`: each other seat's hand and the
   boneyard order consistent with the hand sizes, the layout, the own hand and what every
   draw and pass revealed, tile by tile), each weighted by the **opponent model**
   (:mod:`strategies.choice_model`: how likely the other seats' past choices of the round
   were in it). At 4 players the partner's hand is sampled like an opponent's. In each world
   :func:`strategies.perfect_solver.solve_world` searches the rest of the round (alpha-beta,
   a transposition table, at most ``node_limit`` turns): round ends valued by the match-win
   table (the probability that the deciding side wins the match from the scores and the next
   leader, as ``matchplay`` values a playout's end; the raw differential at 3 players). Every
   seat of a world is searched as a player who sees that world, the other side against the
   deciding one and the partner with it. A world whose solve does not finish within the
   budget is valued by one playout per placement instead.
3. **Vote by expected value**: each placement's weighted mean over the worlds plus
   ``prior_weight`` times its score under the ``weighted`` default vector; the best is played.

**Strategy fusion**: a world's solve lets the deciding seat's later choices (and every other
seat's) depend on tiles they will never see. It is kept small by solving only small rounds:
with two players and the boneyard drawn out nothing is hidden at all, and otherwise few
tiles are. Step 1's playouts have the same fusion at every seat but choose no reply by it.

Every random number comes from the seat's decision stream: the same seed gives the same play.
Its CPU per match, and its strength against ``rollout``, ``matchplay`` and the ceiling
``cheater`` (the same solver on the true world), are in the strength ladder
(``five-up strength``, README).

Two players: what moved it, and what did not
--------------------------------------------
With two players most choices come long before a world can be solved: a round starts with
28 unplayed tiles (5 in each hand, 18 in the boneyard) and usually ends by a domino with
more than 12 still unplayed. Counted by a Python seat that plays the largest award and
records each of its choices (two or more placements), against ``greedy`` (300 matches, seed
5), 5.2% of the choices had at most 12 unplayed tiles at 2 players (7.9% at 4). At 2 players ``pimc`` is therefore mostly
``matchplay``'s search with 280 playouts per candidate instead of 36.

Measured on fresh seeds, 1,500 duplicate deals each, 2 players (2026-12-05, 2-core VM):
``five-up strength --players 2 --ladder 'pimc,V,...' --versus matchplay --deals 1500 --seed S
--timing-matches 0``, whose ``strategy_contrasts`` is each variant's win rate against
``matchplay`` minus ``pimc``'s on the same deals (95% interval over deals):

==========================================  ====  ===============================
variant ``V``                                seed  V - pimc, points [95%]
==========================================  ====  ===============================
``samples=1000`` (3.6x the search budget)    9202  +0.5 [-1.3, +2.3]
``exact_below=16, node_limit=8000``          9203  -1.4 [-3.0, +0.2]
``model_beta=0.6``                           9203  -0.4 [-1.5, +0.7]
``exact_below=8``                            9204  -0.9 [-2.2, +0.3]
``exact_below=0`` (never solve)              9204  -0.5 [-1.8, +0.8]
==========================================  ====  ===============================

No variant differs detectably from the defaults: neither a larger search budget nor solving
earlier, later or never. ``pimc[raw_weight=0.6]`` against ``pimc`` head to head (seed 9201)
won 50.8% [49.4, 52.1]. ``pimc`` itself won 53.0%, 54.9% and 53.9% against ``matchplay`` on
seeds 9202-9204, 54.0% [53.1, 54.8] over the 4,500 deals: short of the search issue's 55%.
What would close more of the gap to ``cheater`` at 2 players is what ``cheater[order_known=0]``
has and a fair player lacks, the other hand (the ``ceiling`` result, README).
"""

from __future__ import annotations

import numpy as np

from core.jit import kernel
from core.tiles import N_TILES
from strategies.choice_model import MAX_CHOICES, world_weight
from strategies.definition import strategy
from strategies.inference import MAX_GROUPS, sample_grouped_world
from strategies.linear import N_FEATURES
from strategies.lookahead import allocating, best_row, new_scratch
from strategies.matchplay import (MODEL_BETA, PLAYOUT_DOUBLES, PRIOR, PRIOR_WEIGHT, RAW_WEIGHT,
                                  model_setup, search_with, weighted_prior)
from strategies.parameters import Parameter
from strategies.perfect_solver import (NO_DEPTH_LIMIT, SolveSettings, load_world, new_solver_scratch,
                                       solve_world)

PARAMETERS = (
    Parameter("worlds", 32.0, "sampled worlds of a solved decision, each solved by the perfect-information search"),
    Parameter("node_limit", 4000.0, "turns one world's solve may visit (past it, that world is valued by playouts)"),
    Parameter("exact_below", 12.0, "solve a decision only when at most this many tiles are unplayed (hands and boneyard); else matchplay's search"),
    Parameter("samples", 280.0, "matchplay's budget for the decisions not solved (playouts per candidate on average)"),
    PRIOR_WEIGHT,
    RAW_WEIGHT,
    PLAYOUT_DOUBLES,
    MODEL_BETA,
)

PARAM_WORLDS = 0
PARAM_NODE_LIMIT = 1
PARAM_EXACT_BELOW = 2
PARAM_SAMPLES = 3
PARAM_PRIOR_WEIGHT = 4
PARAM_RAW_WEIGHT = 5
PARAM_PLAYOUT_DOUBLES = 6
PARAM_MODEL_BETA = 7

MATCH_VALUE = 1.0
"""Round ends are valued by the win table (the raw differential at 3 players, as ``matchplay``)."""


@kernel
def solved_worlds(view, ws, scratch, settings, table, weights, values, counts, lacks, n_groups,
                  seats, chosen, awards, since, n_choices, saved):
    """Sample ``table.shape[0]`` worlds and value every candidate in each.

    ``table[w, row]`` is the value of ``view.cands[row]`` in world ``w`` for the deciding side:
    exact when the solver finishes within ``settings.node_limit``, otherwise one playout per
    candidate (the solver's first iteration, ``depth_limit`` 0). A solve that does not finish
    is not used: its values would be minimax over single playouts, which lets every seat's
    replies exploit the playouts' noise. ``weights[w]`` is the world's opponent-model weight (1
    without the model; a world the model finds impossible weighs 0 and is not valued: its row
    stays 0). ``values`` is scratch.
    """
    n = view.n_candidates
    shallow = SolveSettings(settings.node_limit, np.int64(0), settings.playout_doubles,
                            settings.match_value, settings.raw_weight)
    for w in range(table.shape[0]):
        first_draw = sample_grouped_world(ws, view, view.rng, counts, lacks, n_groups)
        for seat in range(view.players):
            saved[seat] = ws.hands[seat]
        weight = world_weight(saved, n_choices, seats, chosen, awards, since)
        weights[w] = weight
        for row in range(n):
            table[w, row] = 0.0
        if weight <= 0.0:
            continue
        load_world(ws, view)
        if solve_world(ws, view, scratch, settings, first_draw, view.seat, values) == 0:
            solve_world(ws, view, scratch, shallow, first_draw, view.seat, values)
        for row in range(n):
            table[w, row] = values[row]


@kernel
def search_settings(params):
    """The solver's :data:`~strategies.perfect_solver.SolveSettings` from a ``pimc`` parameter row."""
    return SolveSettings(max(np.int64(params[PARAM_NODE_LIMIT]), np.int64(1)), np.int64(NO_DEPTH_LIMIT),
                         params[PARAM_PLAYOUT_DOUBLES], MATCH_VALUE, params[PARAM_RAW_WEIGHT])


@kernel
def unplayed_tiles(view):
    """Tiles in the hands and the boneyard (public: the hand sizes and the boneyard's size)."""
    unplayed = view.boneyard_size
    for seat in range(view.players):
        unplayed += view.hand_sizes[seat]
    return unplayed


@kernel
def vote(view, ws, scratch, table, weights, values, means, prior_scores, features, prior, saved,
         counts, lacks, n_groups, seats, chosen, awards, since):
    """A solved decision (module docstring, 2-3); every array is scratch sized by the caller
    (``table``: one row per world)."""
    n = view.n_candidates
    params = view.params
    prior_weight = params[PARAM_PRIOR_WEIGHT]
    for row in range(n):
        prior_scores[row] = 0.0
    if prior_weight != 0.0:
        weighted_prior(view, prior, prior_weight, ws, features, prior_scores)
    n_choices = model_setup(view, ws, counts, lacks, n_groups, seats, chosen, awards, since, 1.0,
                            params[PARAM_MODEL_BETA])
    solved_worlds(view, ws, scratch, search_settings(params), table, weights, values, counts, lacks,
                  n_groups, seats, chosen, awards, since, n_choices, saved)
    total = 0.0
    for w in range(table.shape[0]):
        total += weights[w]
    if total <= 0.0:
        total = 1.0e-300  # every world impossible under the model: the means stay finite (0)
    for row in range(n):
        weighted = 0.0
        for w in range(table.shape[0]):
            weighted += weights[w] * table[w, row]
        means[row] = weighted / total + prior_scores[row]
    return best_row(view, means)


@allocating
def choose(view):
    """``matchplay``'s search while more than ``exact_below`` tiles are unplayed, else allocate
    the scratch of a solved decision and run :func:`vote`."""
    params = view.params
    if unplayed_tiles(view) > np.int64(params[PARAM_EXACT_BELOW]):
        return search_with(view, np.int64(params[PARAM_SAMPLES]), params[PARAM_PRIOR_WEIGHT],
                           params[PARAM_RAW_WEIGHT], 1.0, 1.0, MATCH_VALUE,
                           params[PARAM_PLAYOUT_DOUBLES], params[PARAM_MODEL_BETA])
    n = view.n_candidates
    worlds = max(np.int64(params[PARAM_WORLDS]), np.int64(1))
    return vote(view, new_scratch(), new_solver_scratch(), np.zeros((worlds, n)), np.zeros(worlds),
                np.zeros(max(n, 1)), np.zeros(n), np.zeros(n), np.zeros((n, N_FEATURES)),
                PRIOR.copy(),  # writable, as matchplay's
                np.zeros(4, dtype=np.int64), np.zeros((4, MAX_GROUPS), dtype=np.int64),
                np.zeros((4, MAX_GROUPS), dtype=np.int64), np.zeros(4, dtype=np.int64),
                np.zeros(MAX_CHOICES, dtype=np.int64), np.zeros(MAX_CHOICES, dtype=np.int64),
                np.zeros((MAX_CHOICES, N_TILES)), np.zeros(MAX_CHOICES, dtype=np.int64))


@allocating
def world_table(view, worlds):
    """Each candidate's value in ``worlds`` sampled worlds, solved (no prior): for an
    analysis of a decision, which needs the spread as well as the mean.

    Parameters
    ----------
    view : PlayerView
        The decision as its seat saw it; ``view.params`` a ``pimc`` parameter row (node limit,
        valuation, opponent model); ``view.rng`` the stream the worlds are drawn from.
    worlds : int64

    Returns
    -------
    (float64[worlds, n_candidates], float64[worlds])
        The values per world and candidate (the deciding side's win probability, or the raw
        differential per 305 at 3 players) and each world's opponent-model weight.
    """
    n = view.n_candidates
    ws = new_scratch()
    counts = np.zeros((4, MAX_GROUPS), dtype=np.int64)
    lacks = np.zeros((4, MAX_GROUPS), dtype=np.int64)
    n_groups = np.zeros(4, dtype=np.int64)
    seats = np.zeros(MAX_CHOICES, dtype=np.int64)
    chosen = np.zeros(MAX_CHOICES, dtype=np.int64)
    awards = np.zeros((MAX_CHOICES, N_TILES))
    since = np.zeros(MAX_CHOICES, dtype=np.int64)
    n_choices = model_setup(view, ws, counts, lacks, n_groups, seats, chosen, awards, since, 1.0,
                            view.params[PARAM_MODEL_BETA])
    table = np.zeros((worlds, n))
    weights = np.zeros(worlds)
    solved_worlds(view, ws, new_solver_scratch(), search_settings(view.params), table, weights,
                  np.zeros(max(n, 1)), counts, lacks, n_groups, seats, chosen, awards, since,
                  n_choices, np.zeros(4, dtype=np.int64))
    return table, weights


@strategy(
    name="pimc",
    description=(
        "matchplay's search while more than exact_below tiles are unplayed; then perfect-"
        "information search over inferred worlds: samples hidden worlds consistent with "
        "everything public (as matchplay: hand sizes, the layout, its own hand, what each draw "
        "and pass revealed, weighted by how likely the other seats' past choices were), solves "
        "the rest of the round in each world by alpha-beta search (node_limit turns per world; "
        "round ends valued by the match-win table; a world not solved within the budget is "
        "valued by playouts) and plays the placement with the best weighted mean plus "
        "prior_weight times the weighted strategy's score. Stochastic (decision stream only); "
        "uses inference; looks ahead to the end of the round."
    ),
    parameters=PARAMETERS,
    stochastic=True,
    uses_inference=True,
    lookahead=32,  # Worlds valued per decision at the default ``worlds``.
)
def pimc(view):
    """matchplay's row, or the row with the best mean over the solved worlds (module docstring)."""
    return choose(view)


__all__ = ["pimc", "vote", "solved_worlds", "world_table", "unplayed_tiles", "PARAMETERS",
           "PARAM_WORLDS", "PARAM_NODE_LIMIT", "PARAM_EXACT_BELOW", "PARAM_PRIOR_WEIGHT"]
