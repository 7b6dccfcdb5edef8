"""Round-robin strategy tournaments: pairings, engine runs, summaries, ranking.

Pipeline: :func:`pairings` lists every seating of the strategies; each pairing
runs on the engine (:func:`sim.simulate`) with a seed derived from the master
seed; :func:`entity_frame` reshapes the match frame into one row per
(match, entity); :func:`summarise`, :func:`pairwise_matrix` and
:func:`ranking` aggregate; :meth:`TournamentResult.save` writes the files.

Seating rules
-------------
- 2 players: every ordered pair of distinct strategies.
- 3 players: every combination of three, in each of its six seat orders. (The
  three rotations alone are not enough: who sits after whom matters -- the
  seat after a weak player gains -- so rotations of one cyclic order would
  make the result depend on the order of the strategy list.)
- 4 players: every ordered pair of partnerships (seats 0, 2 against 1, 3).

With ``duplicate=True`` the seatings of one group (the same strategies in
different seats) share a seed, so each deal sequence is replayed with the
strategies swapped (common random numbers: the engine derives deals and lots
from the seed and match index only).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.stats import luce_ranking, wilson_interval

MANIFEST = "run.json"
"""The run's configuration, written first into the output directory."""


@dataclass(frozen=True)
class Pairing:
    """One seating of strategies.

    Attributes
    ----------
    pairing : int
        Index of the seating in :func:`pairings` order.
    group : int
        Seatings of the same strategies share a group (and, in duplicate
        mode, a seed).
    entity_strategies : tuple of str
        Strategy of each scoring entity (per seat for 2 and 3 players, per
        partnership for 4).
    """

    pairing: int
    group: int
    entity_strategies: tuple[str, ...]

    def seat_strategies(self, players: int) -> list[str]:
        if players == 4:
            a, b = self.entity_strategies
            return [a, b, a, b]
        return list(self.entity_strategies)


def pairings(players: int, names: list[str]) -> list[Pairing]:
    """Every seating of ``names`` for a table of ``players`` (see module doc)."""
    result: list[Pairing] = []
    if players in (2, 4):
        for group, (a, b) in enumerate(itertools.combinations(names, 2)):
            for seating in ((a, b), (b, a)):
                result.append(Pairing(len(result), group, seating))
    else:
        for group, trio in enumerate(itertools.combinations(names, 3)):
            for seating in itertools.permutations(trio):
                result.append(Pairing(len(result), group, tuple(seating)))
    return result


def derive_seed(master: int, key: int) -> int:
    """A 63-bit seed for one pairing or group, from the master seed."""
    state = np.random.SeedSequence([master, key]).generate_state(2, dtype=np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1])) & (2**63 - 1)


@dataclass
class TournamentConfig:
    """Everything that defines a tournament's results.

    ``strategies`` holds the field as given (spec strings and
    :class:`strategies.Strategy` objects); :func:`validate` resolves each entry
    once and replaces it by the strategy's name (what every table shows), and
    fills ``specs`` (JSON-ready references the shard jobs resolve again, on
    this process or a dask worker: :func:`strategies.catalogue.spec_of`) and
    ``strategy_code`` (name -> code digest: a tournament whose strategy code
    changed is another run, refused on resume).
    """

    players: int
    strategies: list
    matches: int
    seed: int
    duplicate: bool = False
    max_rounds: int = 1000
    specs: list = field(default_factory=list)
    strategy_code: dict = field(default_factory=dict)
    resolved: list = field(default_factory=list, repr=False, compare=False)

    def spec_of(self, name: str) -> str:
        """The spec a shard job gets for the strategy named ``name``."""
        return self.specs[self.strategies.index(name)]

    def as_dict(self) -> dict:
        if not self.resolved:
            validate(self)
        return {"kind": "tournament", "players": self.players,
                "strategies": list(self.strategies), "matches": self.matches,
                "seed": self.seed, "duplicate": self.duplicate, "max_rounds": self.max_rounds,
                "specs": list(self.specs), "strategy_code": dict(self.strategy_code)}


def resolve_field(entries) -> list:
    """The :class:`strategies.Strategy` of every entry of a tournament field (specs or objects).

    Raises
    ------
    ValueError
        One line: an unknown or unloadable strategy
        (:class:`strategies.StrategyError`), two different strategies under one
        name, or one strategy entered twice.
    """
    from sim.engine import check_distinct_names, split_specs
    from strategies import Strategy, resolve

    if isinstance(entries, (str, Strategy)):
        entries = split_specs(entries) if isinstance(entries, str) else [entries]
    resolved = [resolve(entry.strip() if isinstance(entry, str) else entry) for entry in entries]
    check_distinct_names(resolved)
    names = [s.name for s in resolved]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"strategy {repeated[0]!r} is named more than once")
    return resolved


def validate(config: TournamentConfig) -> None:
    """Resolve the field (see :class:`TournamentConfig`); raise ValueError with one clear
    sentence on bad input."""
    from strategies.catalogue import spec_of

    if config.players not in (2, 3, 4):
        raise ValueError(f"players must be 2, 3 or 4, not {config.players}")
    if not (config.resolved and [s.name for s in config.resolved] == list(config.strategies)):
        resolved = resolve_field(config.strategies)
        config.resolved = resolved
        config.strategies = [s.name for s in resolved]
        config.specs = [spec_of(s) for s in resolved]
        config.strategy_code = {s.name: s.code_key for s in resolved}
    need = 3 if config.players == 3 else 2
    if len(config.strategies) < need:
        raise ValueError(f"a {config.players}-player tournament needs at least {need} "
                         f"strategies, found {len(config.strategies)}")
    if config.matches < 1:
        raise ValueError(f"matches must be positive, not {config.matches}")
    if config.max_rounds < 1:
        raise ValueError(f"max-rounds must be positive, not {config.max_rounds}")


@dataclass
class TournamentResult:
    """Frames of a finished tournament (``matches``, ``entities`` None if summary-only)."""

    config: TournamentConfig
    matches: pd.DataFrame | None
    entities: pd.DataFrame | None
    summary: pd.DataFrame
    pairwise: pd.DataFrame
    ranking: pd.DataFrame
    files: list[str] = field(default_factory=list)
    paired: pd.DataFrame | None = None
    """Duplicate tournaments with match rows: :func:`paired_win_rates` (in summary.md)."""

    def save(self, out_dir: str | os.PathLike) -> list[str]:
        """Write matches.parquet, summary.csv/.md, pairwise.csv, ranking.csv and plots."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        if self.matches is not None:
            _atomic(out / "matches.parquet", lambda p: self.matches.to_parquet(p, index=False))
            written.append("matches.parquet")
        _atomic(out / "summary.csv", lambda p: self.summary.to_csv(p, index=False,
                                                                    float_format="%.6f"))
        _atomic(out / "pairwise.csv", lambda p: self.pairwise.to_csv(p, float_format="%.6f"))
        _atomic(out / "ranking.csv", lambda p: self.ranking.to_csv(p, index=False,
                                                                    float_format="%.6f"))
        _atomic(out / "summary.md", lambda p: Path(p).write_text(self.markdown()))
        written += ["summary.csv", "summary.md", "pairwise.csv", "ranking.csv"]
        from experiments.plots import plot_pairwise, plot_ranking

        _atomic(out / "pairwise.png", lambda p: plot_pairwise(self.pairwise, p))
        _atomic(out / "ranking.png", lambda p: plot_ranking(self.ranking, p))
        written += ["pairwise.png", "ranking.png"]
        self.files = [str(out / name) for name in written]
        return self.files

    def markdown(self) -> str:
        c = self.config
        head = (f"# Tournament: {c.players} players, {c.matches} matches per seating, "
                f"seed {c.seed}{', duplicate deals' if c.duplicate else ''}\n\n")
        paired = ""
        if self.paired is not None:
            paired = ("\n\n## Win rate with the duplicate deals paired\n\n"
                      "Every deal is played in each seating of its group, so the deal is the "
                      "unit: a 95% interval with deals as clusters (delta method). Narrower "
                      "than the Wilson interval above when the deal's luck, not the strategy, "
                      "decides who wins.\n\n" + _md_table(self.paired))
        return (head + "## Summary\n\n" + _md_table(self.summary) + paired
                + "\n\n## Ranking\n\n" + _md_table(self.ranking)
                + "\n\n## Pairwise win rate (row vs column)\n\n"
                + _md_table(self.pairwise.reset_index()) + "\n")


def _atomic(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    write(tmp)
    os.replace(tmp, path)


def _md_table(frame: pd.DataFrame) -> str:
    """A markdown table with 3 decimals (:func:`experiments.common.md_table`)."""
    from experiments.common import md_table

    return md_table(frame, 3)


def entity_frame(matches: pd.DataFrame) -> pd.DataFrame:
    """One row per (match, entity): strategy, won, final score, margin, discards, settlement."""
    score_cols = sorted(c for c in matches.columns if c.startswith("score_"))
    n_entities = len(score_cols)
    scores = matches[score_cols].to_numpy()
    parts = []
    for e in range(n_entities):
        others = np.delete(scores, e, axis=1).max(axis=1)
        parts.append(pd.DataFrame({
            "pairing": matches["pairing"].to_numpy(),
            **({"group": matches["group"].to_numpy()} if "group" in matches.columns else {}),
            "match": matches["match"].to_numpy(),
            "entity": e,
            "strategy": matches[f"entity_strategy_{e}"].to_numpy(),
            "won": (matches["winner"] == e).to_numpy(),
            "finished": (matches["winner"] >= 0).to_numpy(),
            "score": scores[:, e],
            "margin": scores[:, e] - others,
            "discarded": matches[f"events_discarded_{e}"].to_numpy(),
            "settlement": matches[f"settlement_raw_{e}"].to_numpy(),
        }))
    return pd.concat(parts, ignore_index=True)


def summarise(entities: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """Per strategy: matches, wins, win rate with its 95% Wilson interval, means."""
    grouped = entities.groupby("strategy", sort=False)
    table = pd.DataFrame({
        "matches": grouped.size(),
        "wins": grouped["won"].sum(),
        "unfinished": grouped["finished"].apply(lambda s: int((~s).sum())),
        "mean_margin": grouped["margin"].mean(),
        "discarded_per_match": grouped["discarded"].mean(),
        "settlement_per_match": grouped["settlement"].mean(),
    }).reindex(names)
    low, high = wilson_interval(table["wins"].to_numpy(), table["matches"].to_numpy())
    table.insert(2, "win_rate", table["wins"] / table["matches"])
    table.insert(3, "win_low", low)
    table.insert(4, "win_high", high)
    table = table.reset_index().rename(columns={"index": "strategy"})
    return table.astype({"matches": "int64", "wins": "int64", "unfinished": "int64"})


def paired_win_rates(entities: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """Win rates with deals as clusters: the interval of a duplicate tournament.

    In a duplicate tournament match ``i`` of every seating of a group is the
    same deal, so the outcomes of one deal are not independent. For each
    strategy, ``y`` = its wins on one deal (over the group's seatings it
    plays) and ``x`` = the seatings it plays; the rate is ``sum(y) / sum(x)``
    and the 95% interval the delta-method ratio interval with deals as
    clusters (:func:`experiments.common.ratio_ci`).

    Parameters
    ----------
    entities : DataFrame
        :func:`entity_frame` of a duplicate tournament (needs ``group``).
    names : list of str

    Returns
    -------
    DataFrame
        ``strategy``, ``deals``, ``win_rate``, ``paired_low``, ``paired_high``.
    """
    from experiments.common import ratio_ci

    rows = []
    for name in names:
        own = entities[entities["strategy"] == name]
        per_deal = own.groupby(["group", "match"], sort=True)["won"].agg(["sum", "size"])
        rate, low, high = ratio_ci(per_deal["sum"].to_numpy(), per_deal["size"].to_numpy())
        rows.append({"strategy": name, "deals": len(per_deal), "win_rate": rate,
                     "paired_low": low, "paired_high": high})
    return pd.DataFrame(rows).astype({"deals": "int64"})


def pairwise_matrix(matches: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """Row strategy's share of the wins among matches won by either of the two.

    With two entities this is the plain head-to-head win rate (unfinished
    matches left out).
    """
    n_entities = len([c for c in matches.columns if c.startswith("score_")])
    strat = np.stack([matches[f"entity_strategy_{e}"].to_numpy() for e in range(n_entities)],
                     axis=1)
    winner = matches["winner"].to_numpy()
    won_by = np.where(winner >= 0, strat[np.arange(len(winner)), np.clip(winner, 0, None)], "")
    grid = pd.DataFrame(np.nan, index=pd.Index(names, name="strategy"), columns=names)
    for a in names:
        for b in names:
            if a == b:
                continue
            both = (strat == a).any(axis=1) & (strat == b).any(axis=1)
            wins_a = int(np.sum(both & (won_by == a)))
            wins_b = int(np.sum(both & (won_by == b)))
            if wins_a + wins_b:
                grid.loc[a, b] = wins_a / (wins_a + wins_b)
    return grid


def ranking(matches: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """Bradley-Terry (Luce choice for 3 entities) log-strengths with 95% intervals."""
    n_entities = len([c for c in matches.columns if c.startswith("score_")])
    ids = {name: i for i, name in enumerate(names)}
    participants = np.stack(
        [matches[f"entity_strategy_{e}"].map(ids).to_numpy() for e in range(n_entities)], axis=1)
    winner = matches["winner"].to_numpy()
    winners = np.where(winner >= 0, participants[np.arange(len(winner)), np.clip(winner, 0, None)],
                       -1)
    log_s, low, high = luce_ranking(participants, winners, len(names))
    table = pd.DataFrame({"strategy": names, "log_strength": log_s, "low": low, "high": high})
    table = table.sort_values("log_strength", ascending=False, kind="stable")
    table.insert(0, "rank", np.arange(1, len(names) + 1))
    return table.reset_index(drop=True)


def check_out_dir(out_dir: str | os.PathLike, config: TournamentConfig) -> None:
    """Refuse a directory holding a different run (ValueError); create it otherwise."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a directory")
    manifest = out / MANIFEST
    if out.is_dir() and any(out.iterdir()):
        if not manifest.exists():
            raise ValueError(f"{out} is not empty and holds no {MANIFEST}: choose a new directory")
        try:
            previous = json.loads(manifest.read_text())
        except (OSError, ValueError):
            raise ValueError(f"{manifest} is unreadable: choose a new directory") from None
        if previous != config.as_dict():
            raise ValueError(f"{out} holds a different run ({_diff(previous, config.as_dict())}): "
                             "choose a new directory")
    out.mkdir(parents=True, exist_ok=True)
    _atomic(manifest, lambda p: Path(p).write_text(json.dumps(config.as_dict(), indent=2) + "\n"))


def _diff(old: dict, new: dict) -> str:
    for key in new:
        if old.get(key) != new[key]:
            before, after = old.get(key), new[key]
            if isinstance(before, dict) and isinstance(after, dict):  # name the entry
                sub = next(k for k in list(after) + list(before) if before.get(k) != after.get(k))
                return f"{key} of {sub!r} was {before.get(sub)!r}, now {after.get(sub)!r}"
            return f"{key} was {before!r}, now {after!r}"
    return "different settings"


def tournament(players: int, strategies: list, matches: int, seed: int,
               duplicate: bool = False, threads: int | None = None, max_rounds: int = 1000,
               out: str | os.PathLike | None = None, progress: bool = False,
               backend="local", shard_size: int | None = None, summary_only: bool = False,
               keep_shards: bool = False) -> TournamentResult:
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
    backend : str or sim.backends.Backend
        ``"local"`` (default), ``"dask"`` (a LocalCluster for this call) or an
        open backend (e.g. ``sim.backends.open_backend("dask", scheduler=...)``).
    shard_size : int, optional
        Matches per shard (default :data:`sim.shards.DEFAULT_SHARD_SIZE`);
        the results do not depend on it.
    summary_only : bool
        Keep per-shard aggregates only: the result has ``matches`` and
        ``entities`` None, and no matches.parquet is written.
    keep_shards : bool
        Keep ``out/shards/`` after the output files are written.

    Returns
    -------
    TournamentResult
    """
    from experiments.tournament_shards import run_seatings, tables_from_aggregate
    from sim.shards import DEFAULT_SHARD_SIZE

    from sim.engine import split_specs
    from strategies import Strategy

    if isinstance(strategies, str):
        entries = split_specs(strategies)
    elif isinstance(strategies, Strategy):
        entries = [strategies]
    else:
        entries = list(strategies)
    config = TournamentConfig(players, entries, matches, seed, duplicate, max_rounds)
    validate(config)
    if out is not None:
        check_out_dir(out, config)
    run = run_seatings(config, out=out, backend=backend, threads=threads,
                       shard_size=DEFAULT_SHARD_SIZE if shard_size is None else shard_size,
                       summary_only=summary_only, progress=progress)
    if summary_only:
        summary, grid, ranks = tables_from_aggregate(run.aggregate, config)
        result = TournamentResult(config=config, matches=None, entities=None, summary=summary,
                                  pairwise=grid, ranking=ranks)
        if out is not None:
            result.save(out)
            if not keep_shards:
                run.store.remove()
        return result
    all_matches = run.frame()
    entities = entity_frame(all_matches)
    result = TournamentResult(
        config=config,
        matches=all_matches,
        entities=entities,
        summary=summarise(entities, config.strategies),
        pairwise=pairwise_matrix(all_matches, config.strategies),
        ranking=ranking(all_matches, config.strategies),
        paired=paired_win_rates(entities, config.strategies) if config.duplicate else None,
    )
    if out is not None:
        result.save(out)
        if not keep_shards:
            run.store.remove()
    return result


def summary_fingerprint(path: str | os.PathLike) -> str:
    """sha256 of a file (the reproducibility check compares summary.csv)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ---------------------------------------------------------------------------
# five-up tournament
# ---------------------------------------------------------------------------


def add_tournament_parser(subparsers):
    """Register ``five-up tournament`` (handler :func:`run_tournament_command`)."""
    parser = subparsers.add_parser(
        "tournament",
        help="round-robin strategy tournament with summaries, ranking and plots",
        description=(
            "Play every seating of the strategies (2 players: every ordered pair; 3 players: "
            "every combination in each of its 6 seat orders; 4 players: every ordered pair of "
            "partnerships) for --matches matches each, then write into --out: matches.parquet, "
            "summary.csv and summary.md (win rate with 95%% Wilson interval, mean final margin, "
            "discarded events and settlement points per match), pairwise.csv, ranking.csv "
            "(Bradley-Terry/Luce with 95%% intervals) and PNG plots. The same command gives a "
            "byte-identical summary.csv."
        ),
    )
    parser.add_argument("--players", default="2", metavar="N", help="2, 3 or 4 (default 2)")
    from sim.engine_cli import STRATEGY_SPECS_HELP

    parser.add_argument("--strategies", required=True, metavar="A,B,C,...",
                        help="the field: strategies with distinct names, comma-separated. "
                             + STRATEGY_SPECS_HELP.replace("%", "%%"))
    parser.add_argument("--matches", default="1000", metavar="M",
                        help="matches per seating (default 1000)")
    parser.add_argument("--seed", default="0", metavar="S", help="master seed (default 0)")
    parser.add_argument("--duplicate", action="store_true",
                        help="replay each deal sequence with the strategies swapped "
                             "(common random numbers: narrower intervals)")
    parser.add_argument("--threads", default=None, metavar="T",
                        help="worker threads (default: all cores)")
    parser.add_argument("--max-rounds", default="1000", metavar="R",
                        help="round limit per match (ruling 15, default 1000)")
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    from sim.backends import add_backend_arguments

    add_backend_arguments(parser)
    parser.set_defaults(func=run_tournament_command)
    return parser


def run_tournament_command(args) -> int:
    """Handler of ``five-up tournament``; returns the exit status."""
    import sys
    import time

    import numba

    from experiments.tournament_shards import SHARDS_DIR, shard_store
    from sim.backends import backend_options, cluster_failure, open_backend
    from sim.engine import MAX_SEED
    from sim.engine import split_specs
    from sim.engine_cli import UsageError, _error, _failed, _int_option, _players_option, \
        strategy_failure

    try:
        scale = backend_options(args)
        players = _players_option(args.players)
        specs = [n for n in split_specs(args.strategies) if n]
        config = TournamentConfig(
            players=players,
            strategies=specs,
            matches=_int_option(args.matches, "--matches", 1),
            seed=_int_option(args.seed, "--seed", 0, MAX_SEED),
            duplicate=bool(args.duplicate),
            max_rounds=_int_option(args.max_rounds, "--max-rounds", 1),
        )
        threads = (None if args.threads is None else
                   _int_option(args.threads, "--threads", 1, numba.config.NUMBA_NUM_THREADS))
        validate(config)
        check_out_dir(args.out, config)
        shard_store(args.out, config, scale["shard_size"], scale["summary_only"]).check()
        backend = open_backend(scale["backend"], scale["scheduler"], scale["workers"],
                               scale["connect_timeout"])
    except (UsageError, ValueError) as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot use {args.out}: {exc.strerror or exc}")
    started = time.perf_counter()
    shards = Path(args.out) / SHARDS_DIR
    try:
        with backend:
            result = tournament(config.players, config.resolved, config.matches, config.seed,
                                duplicate=config.duplicate, threads=threads,
                                max_rounds=config.max_rounds, out=args.out,
                                progress=not args.quiet, backend=backend,
                                shard_size=scale["shard_size"],
                                summary_only=scale["summary_only"],
                                keep_shards=scale["keep_shards"])
    except KeyboardInterrupt:
        print(f"five-up: error: interrupted; finished shards are kept in {shards}: rerun the "
              "same command to resume", file=sys.stderr)
        return 130
    except Exception as exc:  # cluster failures become one line; others propagate
        if strategy_failure(exc):  # a strategy failed at run time: one line, status 1
            return _failed(exc)
        if not cluster_failure(exc):
            raise
        if isinstance(exc, OSError) and exc.filename:
            return _error(f"cannot write into {args.out}: {exc.strerror or exc}")
        detail = " ".join(str(exc).split()) or type(exc).__name__
        print(f"five-up: error: run failed ({type(exc).__name__}: {detail}); finished shards "
              f"are kept in {shards}: rerun the same command to resume", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    names = config.strategies
    total = config.matches * len(pairings(players, names))
    print(f"{total} matches ({len(pairings(players, names))} seatings x {config.matches}), "
          f"{players} players, seed {config.seed}{', duplicate' if config.duplicate else ''}: "
          f"{elapsed:.1f} s, {total / max(elapsed, 1e-9):,.0f} matches/s", file=sys.stdout)
    print(_md_table(result.summary[["strategy", "matches", "wins", "win_rate", "win_low",
                                    "win_high", "mean_margin"]]))
    print()
    print(_md_table(result.ranking))
    print(f"\nwrote {', '.join(Path(f).name for f in result.files)} to {args.out}")
    return 0
