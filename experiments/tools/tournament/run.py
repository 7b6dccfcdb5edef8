"""Round-robin strategy tournaments: every seating played on the engine, then the tables.

Pipeline: :class:`~experiments.tools.tournament.config.TournamentConfig` checks the
field and the scale options once; :func:`claim_tournament` claims the output directory once; :func:`~experiments.seatings.pairings` lists every
seating; each seating's matches run as shards on a backend, with a seed derived
from the master seed (:mod:`experiments.tools.tournament.seating_shards`); the tables are
built from per-seating sums (:mod:`experiments.tools.tournament.tables`) and
:meth:`~experiments.tools.tournament.report.TournamentResult.save` writes the files.
"""

from __future__ import annotations

import os

from experiments.tools.tournament.config import TournamentConfig
from experiments.tools.tournament.report import TournamentResult
from experiments.tools.tournament.seating_shards import frame_aggregate, run_seatings
from experiments.tools.tournament.plan import comparisons_table, plan_for
from experiments.tools.tournament.tables import (
    by_design,
    entity_frame,
    interval_widths,
    match_ranking,
    paired_win_rates,
    pairwise_counts,
    pairwise_intervals,
    prefix_sizes,
    ranking_contrasts,
    tournament_tables,
)
from sim.files import claim_directory


def tournament(players: int, strategies: list, matches: int, seed: int,
               duplicate: bool = False, threads: int | None = None, max_rounds: int = 1000,
               out: str | os.PathLike | None = None, progress: bool = False,
               backend="local", shard_size: int | None = None, summary_only: bool = False,
               keep_shards: bool = False, sealed: bool = False, secret: str | None = None,
               decision_timeout: float | None = None) -> TournamentResult:
    """Run every seating for ``matches`` matches each and aggregate.

    Parameters
    ----------
    players : int
        2, 3 or 4.
    strategies : list of str and Strategy
        The field (at least 2; 3 for three players): :class:`strategies.Strategy`
        objects and specs (a built-in name, ``MODULE:NAME``, ``FILE.py:NAME``,
        ``name[k=v,...]``), with distinct names (the tables show names). With
        ``backend="dask"`` each worker resolves the strategy's spec, importing
        its module: a strategy defined in a notebook or ``__main__`` runs on
        the local backend only.
    matches : int
        Matches per seating.
    seed : int
        Master seed; each group (duplicate) or seating gets a derived seed.
    duplicate : bool
        Replay each deal sequence with the strategies swapped.
    out : path, optional
        Directory for the output files (refused if it holds a different run).
        Finished shards go to ``out/shards/`` as they finish; calling again
        with the same arguments after an interruption resumes from them.
    backend : str or sim.scale.backends.Backend
        ``"local"`` (default), ``"dask"`` (a LocalCluster for this call) or an
        open backend (e.g. ``sim.scale.backends.open_backend("dask", scheduler=...)``).
    shard_size : int, optional
        Matches per shard (default :data:`sim.scale.shards.DEFAULT_SHARD_SIZE`);
        the results do not depend on it.
    summary_only : bool
        Keep per-shard aggregates only: the result has ``matches`` and
        ``entities`` None, and no matches.parquet is written.
    keep_shards : bool
        Keep ``out/shards/`` after the output files are written.
    sealed : bool
        Run every Python strategy (``compiled=False``) in a process of its own
        and key the decision streams with a run secret (``secret``; a random
        one when not given), as :meth:`sim.engine.spec.RunSpec.build`. The
        secret is drawn once for the whole tournament and recorded in
        ``run.json``; to resume an interrupted sealed run, pass it again.
    secret : str, optional
        The run secret, 32 hexadecimal digits, keying every seating's decision
        streams (sealed or not): the same secret gives the same tables.
    decision_timeout : float, optional
        With ``sealed``: seconds a Python strategy may take for one decision.

    Returns
    -------
    TournamentResult
    """
    config = TournamentConfig.build(players, strategies, matches, seed, duplicate, max_rounds,
                                    sealed=sealed, secret=secret,
                                    decision_timeout=decision_timeout, backend=backend,
                                    threads=threads, shard_size=shard_size,
                                    summary_only=summary_only, keep_shards=keep_shards, out=out,
                                    progress=progress)
    claim_tournament(config)
    return play(config)


def claim_tournament(config: TournamentConfig) -> None:
    """Claim the tournament's output directory for its settings, once per run, before anything
    plays (:func:`sim.files.claim_directory`), and write the comparisons it declares there
    (``plan.json``, :func:`experiments.tools.tournament.plan.plan_for`); nothing without an
    output directory."""
    if config.scale.out is not None:
        claim_directory(config.scale.out, config.as_dict())
        plan_for(config.as_dict()).write(config.scale.out)


def play(config: TournamentConfig) -> TournamentResult:
    """Play every seating of ``config`` (its output directory claimed: :func:`claim_tournament`)
    as its scale options say, build the tables and write them there."""
    run = run_seatings(config)
    if config.scale.summary_only:
        summary, grid, ranks = tournament_tables(run.aggregate, config.players,
                                                 list(config.strategies))
        shares = pairwise_counts(run.aggregate, config.players, list(config.strategies))
        result = TournamentResult(config=config, matches=None, entities=None,
                                  summary=by_design(summary, None), pairwise=grid, ranking=ranks,
                                  pairwise_ci=shares,
                                  comparisons=comparisons_table(config.as_dict(), shares))
    else:
        result = build_result(config, run.frame())
    if config.scale.out is not None:
        result.write(config.scale.out)
        if not config.scale.keep_shards:
            run.store.remove()
    return result


def build_result(config: TournamentConfig, all_matches, matches_per_seating: int | None = None,
                 sequential=None) -> TournamentResult:
    """The tables of a tournament's match frame (every seating, ``matches_per_seating`` matches
    each, default ``config.matches``): summary, pairwise, ranking, the paired rates of a
    duplicate run, the interval width on prefixes of the matches
    (:func:`~experiments.tools.tournament.tables.interval_widths`) and the contrasts of the ranking.

    With duplicate deals the ranking's and the pairwise shares' intervals take the deal as the
    unit (:func:`~experiments.tools.tournament.tables.match_ranking`,
    :func:`~experiments.tools.tournament.tables.pairwise_intervals`); otherwise the match, as the
    per-seating sums give them (the same tables as a summary-only run's)."""
    names = list(config.strategies)
    per_seating = config.matches if matches_per_seating is None else int(matches_per_seating)
    entities = entity_frame(all_matches)
    paired = paired_win_rates(entities, names) if config.duplicate else None
    widths = interval_widths(entities, names, config.duplicate, prefix_sizes(per_seating))
    aggregate = frame_aggregate(all_matches)
    summary, grid, ranks = tournament_tables(aggregate, config.players, names)
    summary = by_design(summary, paired)
    clustered, fit = match_ranking(all_matches, names, config.duplicate)
    if config.duplicate:
        ranks = clustered
        pairwise_ci = pairwise_intervals(entities, names, True)
    else:
        # the sums' ranking (a summary-only run's), with the fit's simultaneous rank intervals
        ranks = ranks.merge(clustered[["strategy", "rank_low", "rank_high"]], on="strategy",
                            how="left", validate="one_to_one")
        pairwise_ci = pairwise_counts(aggregate, config.players, names)
    contrasts = ranking_contrasts(ranks, fit, entities, names, config.duplicate)
    compared = comparisons_table(config.as_dict(), pairwise_ci, fit)
    return TournamentResult(config=config, matches=all_matches, entities=entities,
                            summary=summary, pairwise=grid, ranking=ranks, paired=paired,
                            widths=widths, matches_per_seating=per_seating,
                            sequential=sequential, pairwise_ci=pairwise_ci, fit=fit,
                            contrasts=contrasts, comparisons=compared)
