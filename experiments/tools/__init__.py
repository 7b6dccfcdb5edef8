"""Tools that compare and improve strategies.

- :mod:`experiments.tools.strength`    the strength ladder (``five-up strength``): duplicate-deal
  pairings, gap share, CPU cost
- :mod:`experiments.tools.tune`        CMA-ES tuning of a strategy's parameters (``five-up tune``)
- :mod:`experiments.tools.tournament`  round-robin tournaments (``five-up tournament``)
"""
