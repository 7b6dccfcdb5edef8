"""The release of the committed results.

- :mod:`experiments.release.results`         ``five-up results``: every committed result
  regenerated with its manifest
- :mod:`experiments.release.readme_numbers`  README's generated blocks, from those results
"""
