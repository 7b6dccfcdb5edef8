"""Round-robin strategy tournaments (2, 3 or 4 players), with duplicate deals and resume.

- :mod:`experiments.tools.tournament.config`          :class:`TournamentConfig`, checked once
- :mod:`experiments.tools.tournament.seating_shards`  the seatings (:mod:`experiments.seatings`)
  as shards; per-seating sums
- :mod:`experiments.tools.tournament.tables`          summary, pairwise and ranking from those
  sums; with match rows, intervals by the design's unit (the deal with duplicate deals): paired
  rates, the deal-clustered ranking and pairwise shares, the ranking's contrasts, paired against
  unpaired interval width on prefixes of the matches
- :mod:`experiments.tools.tournament.plan`            the comparisons a tournament declares before
  it plays (``plan.json``) and their adjusted frame (``comparisons.csv``)
- :mod:`experiments.tools.tournament.report`          :class:`TournamentResult`: files and markdown
- :mod:`experiments.tools.tournament.plots`           the pairwise heatmap, the ranking, the
  interval width, the sequential run's confidence sequence
- :mod:`experiments.tools.tournament.run`             :func:`tournament`
- :mod:`experiments.tools.tournament.sequential`      :func:`until_separated`: two strategies
  played until an anytime-valid confidence sequence separates them
"""

from __future__ import annotations

from experiments.seatings import Pairing, pairings
from experiments.tools.tournament.config import TournamentConfig
from experiments.tools.tournament.report import TournamentResult
from experiments.tools.tournament.run import tournament
from experiments.tools.tournament.sequential import until_separated

__all__ = ["Pairing", "TournamentConfig", "TournamentResult", "pairings", "tournament",
           "until_separated"]
