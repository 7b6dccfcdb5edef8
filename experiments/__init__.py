"""Experiments: batches of matches aggregated into pandas frames, tables and figures.

Each folder holds one layer or one feature; the modules here are what all of them share.

- :mod:`experiments.run_spine`     :class:`~experiments.run_spine.StudySpec`, a run's one spec
  (built and checked once), the output directory claimed once, the run executed and saved
- :mod:`experiments.settings`      a study's settings, checked once and JSON-ready
- :mod:`experiments.sources`       the studies' data cut into shards, resumable on any backend
- :mod:`experiments.mixed_tables`  seating profiles played in every rotation on duplicate deals
- :mod:`experiments.seatings`      every seating of a field and its derived seed
- :mod:`experiments.stats`         intervals, match- and deal-clustered rates, contrasts, rankings
- :mod:`experiments.reporting`     markdown, intervals as text, saved results, figures as PNG files
  (the lowest layer: it imports none of the above)
- :mod:`experiments.studies`       the research studies (``five-up overshoot``, ``settlement``,
  ``openings``, ``seats``, ``lengths``, ``winprob``) and their figures
- :mod:`experiments.tools`         the strength ladder, tuning and tournaments
- :mod:`experiments.release`       the committed results regenerated, README's generated blocks

``pyproject.toml``'s import-linter contracts state the order: reporting below the shared
modules, those below the studies, tools and release.
"""
