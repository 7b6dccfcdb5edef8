"""How any run reports: markdown tables and intervals as text, a run's saved result, figures.

- :mod:`experiments.reporting.reports`  :class:`~experiments.reporting.reports.ExperimentResult`
  (frames, summary, manifest written at once), markdown tables, intervals and captions as text
- :mod:`experiments.reporting.figures`  matplotlib's object API, PNG bytes that depend on the data
  only, the run footer and one colour per strategy

The lowest layer of :mod:`experiments`: it imports no other experiments module.
"""
