"""The research studies: each one command (``five-up NAME``) and one function returning frames.

- :mod:`experiments.studies.overshoot`          overshoot events and the exact-61 zone
- :mod:`experiments.studies.settlement`         blocked rounds and their settlement
- :mod:`experiments.studies.opening_leads`      which tile is worth leading with
  (``five-up openings``: observed and forced openings)
- :mod:`experiments.studies.seats`              the value of the first lot and of each seat
- :mod:`experiments.studies.lengths`            rounds per match and score paths
- :mod:`experiments.studies.win_probabilities`  win probabilities by score and lead
  (``five-up winprob``), the direct check, the shipped table
- :mod:`experiments.studies.study_plots`, :mod:`~experiments.studies.table_plots`,
  :mod:`~experiments.studies.length_plots`   the studies' figures
"""
