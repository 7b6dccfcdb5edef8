"""The settings of a study: what defines its results, checked once and JSON-ready.

Every study's settings hold the player counts, the strategies (their names,
the specs a worker resolves and their code digests, so that a changed
strategy is another run), the matches per configuration and the seed. They
are written as the output directory's ``run.json`` and into every shard
manifest, and compared on resume.
"""

from __future__ import annotations

from sim.checks import check_int, check_player_counts, check_seed
from strategies.catalogue import resolve_field, spec_of


def strategy_settings(resolved) -> dict:
    """The settings entries that identify a run's strategies: ``strategies`` (names, the
    tables' labels), ``strategy_specs`` (what a worker resolves: :func:`strategies.catalogue.spec_of`)
    and ``strategy_code`` (name -> code digest: a changed strategy is another run)."""
    return {
        "strategies": [s.name for s in resolved],
        "strategy_specs": [spec_of(s) for s in resolved],
        "strategy_code": {s.name: s.code_key for s in resolved},
    }


def study_settings(name: str, players, strategies, matches, seed) -> dict:
    """Checked settings of study ``name`` (raises ValueError, one line); JSON-ready.

    ``strategies`` may mix spec strings and :class:`strategies.Strategy`
    objects (a comma-separated string too); each is studied in self-play.
    """
    counts = check_player_counts(players)
    resolved = resolve_field(strategies)
    return {
        "experiment": name,
        "players": counts,
        "matches": check_int(matches, "matches", 1),
        "seed": check_seed(seed),
        **strategy_settings(resolved),
    }
