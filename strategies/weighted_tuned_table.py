"""Tuned parameters of ``weighted``: :data:`TUNED_PARAMETERS` (generated; do not edit).

Written by ``five-up tune --ship`` (:mod:`experiments.tools.tune`): CMA-ES in the scaled space
``x = theta / scale`` from the defaults, fitness = win rate against weighted on
1,000 duplicate deals per candidate per generation (common random numbers, new
deals each generation), 90 generations of 10 candidates,
2 players, seed 2026; the vector is CMA's final mean. :mod:`strategies.weighted` enters it as the named variant
``weighted_tuned``. Held-out validation (seed 2027, 5,000
duplicate deals, win rate [paired 95% interval, deal = unit]):

    against weighted: 52.9% [52.1, 53.8] (default weighted: 50.0%)
    against rollout: 44.7% [43.9, 45.6] (default weighted: 42.7%)

Regenerate it with :data:`TUNED_COMMAND`:

    five-up tune --strategy weighted --against weighted --validate-against weighted,rollout --players 2 --seed 2026 --validation-seed 2027 --deals 1000 --generations 90 --population 10 --sigma 0.3 --pick mean --validation-deals 5000 --out docs/results/.staging/tuning --ship strategies/weighted_tuned_table.py
"""

TUNED_STRATEGY = 'weighted'
"""The strategy whose parameters these are."""

TUNED_COMMAND = 'five-up tune --strategy weighted --against weighted --validate-against weighted,rollout --players 2 --seed 2026 --validation-seed 2027 --deals 1000 --generations 90 --population 10 --sigma 0.3 --pick mean --validation-deals 5000 --out docs/results/.staging/tuning --ship strategies/weighted_tuned_table.py'
"""The command that regenerated this file."""

TUNED_PARAMETERS = {
    'w_award': 0.358722,
    'w_scores': 0.13447,
    'w_overshoot': -0.955093,
    'w_exact': 22.9092,
    'w_gap': -0.0300381,
    'w_turns': -1.32433,
    'w_pips': 0.129781,
    'w_double': 3.62036,
    'w_doubles_kept': 2.52726,
    'w_reply': -2.76827,
    'w_opp_exact': -34.1393,
    'w_open_unseen': -0.794328,
    'w_own_playable': 0.441384,
}
"""Parameter name -> tuned value (every parameter of the strategy)."""

TUNED_VALIDATION = {
    'weighted': (0.5294, 0.5211450227758092, 0.5376549772241908),
    'rollout': (0.4472, 0.4385105093899621, 0.45588949061003786),
}
"""Baseline -> (win rate, paired 95% low, high) on the held-out deals."""
