"""Round-robin strategy tournaments (2, 3 or 4 players), with duplicate deals and resume.

- :mod:`experiments.tournament.seatings`  every seating of a field, derived seeds
- :mod:`experiments.tournament.config`    :class:`TournamentConfig`, checked once
- :mod:`experiments.tournament.shards`    the seatings as shards; per-seating sums
- :mod:`experiments.tournament.tables`    summary, pairwise and ranking from those sums; with
  match rows, intervals by the design's unit (the deal with duplicate deals): paired rates, the
  deal-clustered ranking and pairwise shares, the ranking's contrasts, paired against unpaired
  interval width on prefixes of the matches
- :mod:`experiments.tournament.report`    :class:`TournamentResult`: files and markdown
- :mod:`experiments.tournament.plots`     the pairwise heatmap, the ranking, the interval width,
  the sequential run's confidence sequence
- :mod:`experiments.tournament.run`       :func:`tournament`
- :mod:`experiments.tournament.sequential` :func:`until_separated`: two strategies played until
  an anytime-valid confidence sequence separates them
"""

from __future__ import annotations

from experiments.tournament.config import TournamentConfig
from experiments.tournament.report import TournamentResult
from experiments.tournament.run import tournament
from experiments.tournament.seatings import Pairing, pairings
from experiments.tournament.sequential import until_separated

__all__ = ["Pairing", "TournamentConfig", "TournamentResult", "pairings", "tournament",
           "until_separated"]
