"""The settings of a study: what defines its results, checked once and JSON-ready.

Every study's settings hold the player counts, the strategies (their names,
the specs a worker resolves and their code digests, so that a changed
strategy is another run), the matches per configuration and the seed. They
are written as the output directory's ``run.json`` and into every shard
manifest, and compared on resume. A sealed run's settings (or a run keyed by
a secret) also hold its sealing (:func:`sim.engine.spec.checked_seal_options`), so that
its secret is recorded once and every shard job plays with it (:func:`seal_of`).
"""

from __future__ import annotations

from experiments.mixed_tables import check_tables
from core.checks import check_int, check_player_counts, check_seed
from sim.engine.spec import check_sealable, checked_seal_options, seal_run_options
from strategies.catalogue import check_distinct_names, resolve_field, spec_of


def strategy_settings(resolved) -> dict:
    """The settings entries that identify a run's strategies: ``strategies`` (names, the
    tables' labels), ``strategy_specs`` (what a worker resolves: :func:`strategies.catalogue.spec_of`)
    and ``strategy_code`` (name -> code digest: a changed strategy is another run)."""
    return {
        "strategies": [s.name for s in resolved],
        "strategy_specs": [spec_of(s) for s in resolved],
        "strategy_code": {s.name: s.code_key for s in resolved},
    }


def seal_of(settings: dict) -> dict:
    """The engine's run options of a run's sealing, from its settings (what
    :func:`sim.engine.spec.checked_seal_options` put there; nothing for an ordinary run): what
    every shard job passes to :func:`sim.simulate` and the other engine entry points."""
    return seal_run_options(settings.get("sealed", False), settings.get("secret"),
                            settings.get("decision_timeout"))


def study_settings(name: str, players, strategies, matches, seed, tables=None,
                   table_matches=None, *, sealed: bool = False, secret: str | None = None,
                   decision_timeout=None, strong=None, strong_matches=None) -> dict:
    """Checked settings of study ``name`` (raises ValueError, one line); JSON-ready.

    ``strategies`` may mix spec strings and :class:`strategies.Strategy`
    objects (a comma-separated string too); each is studied in self-play.

    ``tables`` (:mod:`experiments.mixed_tables`: ``"A,B"`` or a list of such)
    adds mixed tables, recorded as ``tables`` (the entities' strategy names per
    table), ``table_matches`` (matches per rotation of a table; default
    ``matches``) and ``table_strategies`` / ``table_strategy_specs`` (the
    strategies the tables name that are not self-played; their code digests
    join ``strategy_code``). Without tables none of these keys is written: a
    self-play study's settings are what they were before tables existed.

    ``sealed``, ``secret`` and ``decision_timeout``
    (:func:`sim.engine.spec.checked_seal_options`) as
    :meth:`sim.engine.spec.RunSpec.build`: every configuration and table of the
    study plays with them.

    ``strong`` (strategies, as ``strategies``) adds self-play configurations of slow strong
    strategies (``rollout``, ``matchplay``) at ``strong_matches`` matches each (default
    ``matches``): they join ``strategies`` (after the others) and are recorded as ``strong`` and
    ``strong_matches`` (:func:`configuration_matches`); without ``strong`` neither key is
    written.
    """
    counts = check_player_counts(players)
    resolved = resolve_field(strategies)
    strong_resolved = [] if strong is None else resolve_field(strong, "strong")
    if strong_matches is not None and not strong_resolved:
        raise ValueError("strong_matches is given without any strong strategy")
    twice = {s.name for s in resolved} & {s.name for s in strong_resolved}
    if twice:
        raise ValueError(f"{', '.join(sorted(twice))} is given both as a strategy and as a "
                         "strong strategy: name it once")
    matches = check_int(matches, "matches", 1)
    resolved = list(resolved) + list(strong_resolved)
    settings = {
        "experiment": name,
        "players": counts,
        "matches": matches,
        "seed": check_seed(seed),
        **strategy_settings(resolved),
        **checked_seal_options(sealed, secret, decision_timeout),
    }
    if strong_resolved:
        check_distinct_names(resolved)
        settings["strong"] = [s.name for s in strong_resolved]
        settings["strong_matches"] = (matches if strong_matches is None
                                      else check_int(strong_matches, "strong_matches", 1))
    checked, named = check_tables(tables, counts)
    if settings.get("sealed"):
        # before anything plays: a strategy defined in a notebook cannot be sealed
        check_sealable(list(resolved) + list(named))
    if not checked:
        if table_matches is not None:
            raise ValueError("table_matches is given without any table")
        return settings
    check_distinct_names(list(resolved) + named)
    own = set(settings["strategies"])
    extra = [s for s in named if s.name not in own]
    settings["tables"] = [list(t.names) for t in checked]
    settings["table_matches"] = (settings["matches"] if table_matches is None
                                 else check_int(table_matches, "table_matches", 1))
    settings["table_strategies"] = [s.name for s in extra]
    settings["table_strategy_specs"] = [spec_of(s) for s in extra]
    settings["strategy_code"] = {**settings["strategy_code"],
                                 **{s.name: s.code_key for s in extra}}
    return settings


def configuration_matches(settings: dict, strategy: str) -> int:
    """Matches of the self-play configurations of ``strategy``: ``strong_matches`` for a strong
    strategy (:func:`study_settings`'s ``strong``), else ``matches``."""
    if strategy in settings.get("strong", ()):
        return int(settings["strong_matches"])
    return int(settings["matches"])


def matches_clause(settings: dict) -> str:
    """``"100,000 matches per configuration"``, with the strong strategies' own count when the
    study has them (``"...; rollout, matchplay: 1,000"``): the sample size of a summary or a
    figure's footer."""
    text = f"{settings['matches']:,} matches per configuration"
    if settings.get("strong"):
        text += f" ({', '.join(settings['strong'])}: {settings['strong_matches']:,} each)"
    return text


def strong_sentence(settings: dict) -> str:
    """A summary's sentence on the strong strategies' own sample size (with its trailing space;
    empty without strong strategies)."""
    if not settings.get("strong"):
        return ""
    return (f"The strong strategies {', '.join(settings['strong'])} are self-played at "
            f"{settings['strong_matches']:,} matches per configuration (they are slow). ")
