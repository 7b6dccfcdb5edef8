"""Tuned parameters of ``weighted``: :data:`TUNED_PARAMETERS` (generated; do not edit).

Written by ``five-up tune --ship`` (:mod:`experiments.tools.tune`): CMA-ES in the scaled space
``x = theta / scale`` from the defaults, fitness = win rate against weighted on
1,000 duplicate deals per candidate per generation (common random numbers, new
deals each generation), 90 generations of 10 candidates,
2 players, seed 2026; the vector is CMA's final mean. :mod:`strategies.weighted` enters it as the named variant
``weighted_tuned``. Held-out validation (seed 2027, 5,000
duplicate deals, win rate [paired 95% interval, deal = unit]):

    against weighted: 53.3% [52.5, 54.2] (default weighted: 50.0%)
    against rollout: 44.9% [44.0, 45.8] (default weighted: 42.7%)

Regenerate it with :data:`TUNED_COMMAND`:

    five-up tune --strategy weighted --against weighted --validate-against weighted,rollout --players 2 --seed 2026 --validation-seed 2027 --deals 1000 --generations 90 --population 10 --sigma 0.3 --pick mean --validation-deals 5000 --out docs/results/.staging/tuning --ship strategies/weighted_tuned_table.py
"""

TUNED_STRATEGY = 'weighted'
"""The strategy whose parameters these are."""

TUNED_COMMAND = 'five-up tune --strategy weighted --against weighted --validate-against weighted,rollout --players 2 --seed 2026 --validation-seed 2027 --deals 1000 --generations 90 --population 10 --sigma 0.3 --pick mean --validation-deals 5000 --out docs/results/.staging/tuning --ship strategies/weighted_tuned_table.py'
"""The command that regenerated this file."""

TUNED_PARAMETERS = {
    'w_award': 0.561286,
    'w_scores': 0.341895,
    'w_overshoot': -1.04213,
    'w_exact': 36.3845,
    'w_gap': 0.867787,
    'w_turns': -1.63324,
    'w_pips': 0.106499,
    'w_double': 3.13172,
    'w_doubles_kept': 2.21015,
    'w_reply': -2.46108,
    'w_opp_exact': -64.0693,
    'w_open_unseen': -0.702601,
    'w_own_playable': 0.375712,
}
"""Parameter name -> tuned value (every parameter of the strategy)."""

TUNED_VALIDATION = {
    'weighted': (0.5335, 0.5253484857812774, 0.5416515142187226),
    'rollout': (0.4489, 0.4401652110284038, 0.45763478897159626),
}
"""Baseline -> (win rate, paired 95% low, high) on the held-out deals."""
