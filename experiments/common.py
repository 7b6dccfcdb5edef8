"""Shared plumbing of the research experiments (``python -m experiments.NAME``).

Each experiment module defines ``run(...) -> ExperimentResult`` (frames, a
markdown summary and plots) and ``main(argv)``; this module holds what they
share: argument parsing with one-line errors, self-play runs over the
requested player counts and strategies with one progress bar, interval
helpers, and writing the output directory.

Conventions
-----------
- Every configuration is *self-play*: all seats play the same strategy, so
  the figures describe the game as that strategy plays it. Each
  (strategy, players) configuration uses the same master seed, so different
  strategies see the same deals (common random numbers).
- Points: ``*_raw`` columns are raw pips; displayed points are raw / 5, and
  columns in displayed points say so (``displayed_*``, ``*_pts``).
- Intervals are 95%: Wilson for proportions, normal for means, and a
  ratio-of-sums (delta method, matches as clusters) for shares of totals.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.stats import Z95, mean_interval, wilson_interval

MANIFEST = "run.json"
"""The run's settings, written into the output directory."""

DEFAULT_PLAYERS = (2, 3, 4)
DEFAULT_STRATEGIES = ("greedy", "random")
MAX_SEED = 2**63 - 1


class UsageError(ValueError):
    """Bad input; its message becomes the one ``error: ...`` line."""


# ---------------------------------------------------------------------------
# Validation (shared by the Python functions and the command lines)
# ---------------------------------------------------------------------------
def _as_list(value, what: str) -> list[str]:
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",")]
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        items = [str(value)]
    elif isinstance(value, Sequence):
        items = [str(v).strip() for v in value]
    else:
        raise UsageError(f"{what} must be a comma-separated list, not {value!r}")
    if not items or any(not item for item in items):
        raise UsageError(f"{what} has an empty entry: {value!r}")
    return items


def check_players(value) -> list[int]:
    """Player counts from ``"2,3,4"``, ``3`` or ``[2, 4]`` (each 2, 3 or 4, no repeats)."""
    counts = []
    for item in _as_list(value, "--players"):
        try:
            count = int(item)
        except ValueError:
            raise UsageError(f"--players expects 2, 3 or 4, found {item!r}") from None
        if count not in (2, 3, 4):
            raise UsageError(f"--players expects 2, 3 or 4, found {item!r}")
        if count in counts:
            raise UsageError(f"--players names {count} twice")
        counts.append(count)
    return counts


def strategy_entries(value, what: str = "--strategies") -> list:
    """Entries of a strategy list: a comma-separated string (commas inside ``[...]``
    kept) or a sequence of spec strings and :class:`strategies.Strategy` objects."""
    from sim.engine import split_specs
    from strategies import Strategy

    if isinstance(value, Strategy):
        return [value]
    if isinstance(value, str):
        items = split_specs(value)
    elif isinstance(value, Sequence):
        items = [v if isinstance(v, Strategy) else str(v).strip() for v in value]
    else:
        raise UsageError(f"{what} must be a comma-separated list, not {value!r}")
    if not items or any(isinstance(item, str) and not item for item in items):
        raise UsageError(f"{what} has an empty entry: {value!r}")
    return items


def resolve_strategy(entry, what: str = "--strategies"):
    """The :class:`strategies.Strategy` of one spec or object (UsageError, one line, if none)."""
    from strategies import resolve

    try:
        return resolve(entry)
    except ValueError as exc:
        raise UsageError(str(exc) if what == "--strategies" else f"{what}: {exc}") from None


def check_distinct(resolved, what: str = "--strategies") -> None:
    """UsageError if two different strategies share a name."""
    from sim.engine import check_distinct_names

    try:
        check_distinct_names(resolved)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def resolve_strategies(value, what: str = "--strategies") -> list:
    """:class:`strategies.Strategy` objects from specs and objects (no repeats).

    Specs are built-in names, ``MODULE:NAME``, ``FILE.py:NAME``, optionally
    with ``[param=value,...]`` (:mod:`strategies.catalogue`).
    """
    resolved = [resolve_strategy(entry, what) for entry in strategy_entries(value, what)]
    check_distinct(resolved, what)
    names = [s.name for s in resolved]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UsageError(f"{what} names {repeated[0]!r} twice")
    return resolved


def check_strategies(value) -> list[str]:
    """Strategy names (what the tables show) from specs or Strategy objects (no repeats)."""
    return [s.name for s in resolve_strategies(value)]


def strategy_settings(resolved) -> dict:
    """The settings entries that identify a run's strategies: ``strategies`` (names, the
    tables' labels), ``strategy_specs`` (what a worker resolves: :func:`strategies.catalogue.spec_of`)
    and ``strategy_code`` (name -> code digest: a changed strategy is another run)."""
    from strategies.catalogue import spec_of

    return {
        "strategies": [s.name for s in resolved],
        "strategy_specs": [spec_of(s) for s in resolved],
        "strategy_code": {s.name: s.code_key for s in resolved},
    }


def check_int(value, option: str, low: int, high: int | None = None) -> int:
    """An integer option within ``[low, high]``."""
    if isinstance(value, bool):
        raise UsageError(f"{option} expects an integer, found {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise UsageError(f"{option} expects an integer, found {value!r}") from None
    if number < low or (high is not None and number > high):
        bound = f"at least {low}" if high is None else f"between {low} and {high}"
        raise UsageError(f"{option} must be {bound}, found {number}")
    return number


def check_threads(value) -> int | None:
    if value is None:
        return None
    import numba

    return check_int(value, "--threads", 1, numba.config.NUMBA_NUM_THREADS)


def seat_names(players: int, strategy: str) -> list[str]:
    """Self-play: the strategy at every seat."""
    return [strategy] * players


# ---------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------
class Progress:
    """One tqdm bar over a run's units (matches, hands), or nothing."""

    def __init__(self, total: int, enabled: bool, unit: str = "match", desc: str | None = None):
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=unit, unit_scale=True, desc=desc, file=sys.stderr,
                            smoothing=0.1, dynamic_ncols=True)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------------
# Intervals
# ---------------------------------------------------------------------------
def proportion(successes, trials) -> dict:
    """Rate and 95% Wilson interval as a dict (``rate``, ``low``, ``high``)."""
    successes = np.asarray(successes)
    trials = np.asarray(trials)
    low, high = wilson_interval(successes, trials)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(trials > 0, successes / np.maximum(trials, 1), np.nan)
    return {"rate": rate, "low": low, "high": high}


def mean_ci(values) -> tuple[float, float, float]:
    """Mean and its normal 95% interval (nan bounds with fewer than 2 values)."""
    return mean_interval(values, Z95)


def grouped_mean_ci(frame: pd.DataFrame, keys: list[str], value: str, prefix: str) -> pd.DataFrame:
    """Per group: ``{prefix}_n``, ``{prefix}_mean``, ``{prefix}_low``, ``{prefix}_high``."""
    grouped = frame.groupby(keys, observed=True, sort=True)[value]
    table = grouped.agg(["count", "mean", "std"])
    half = Z95 * table["std"] / np.sqrt(table["count"])
    half = half.where(table["count"] >= 2)
    return pd.DataFrame({
        f"{prefix}_n": table["count"].astype("int64"),
        f"{prefix}_mean": table["mean"],
        f"{prefix}_low": table["mean"] - half,
        f"{prefix}_high": table["mean"] + half,
    })


def ratio_ci(numerator, denominator) -> tuple[float, float, float]:
    """``sum(num) / sum(den)`` with a delta-method 95% interval (rows as clusters)."""
    y = np.asarray(numerator, dtype=np.float64)
    x = np.asarray(denominator, dtype=np.float64)
    total = x.sum()
    if y.size == 0 or total == 0:
        return float("nan"), float("nan"), float("nan")
    ratio = float(y.sum() / total)
    if y.size < 2:
        return ratio, float("nan"), float("nan")
    residual = y - ratio * x
    se = float(np.sqrt(residual.var(ddof=1) * y.size) / total)
    return ratio, ratio - Z95 * se, ratio + Z95 * se


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------
def md_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A GitHub markdown table (floats with ``digits`` decimals, nan blank)."""

    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "" if not np.isfinite(v) else f"{v:.{digits}f}"
        return str(v)

    lines = ["| " + " | ".join(map(str, frame.columns)) + " |",
             "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines)


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def prepare_out_dir(out, settings: dict) -> Path:
    """Create ``out`` (or reuse it for the same settings); refuse one holding another run."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--out {path} exists and is not a directory")
    manifest = path / MANIFEST
    if path.is_dir() and any(path.iterdir()):
        if not manifest.exists():
            raise UsageError(f"--out {path} is not empty and holds no {MANIFEST}: "
                             "choose a new directory")
        try:
            previous = json.loads(manifest.read_text())
        except (OSError, ValueError):
            raise UsageError(f"{manifest} is unreadable: choose a new directory") from None
        if previous != settings:
            changed = next((k for k in settings if previous.get(k) != settings[k]), "settings")
            raise UsageError(f"--out {path} holds a different run ({changed} was "
                             f"{previous.get(changed)!r}, now {settings.get(changed)!r}): "
                             "choose a new directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        _atomic(manifest, lambda p: p.write_text(json.dumps(settings, indent=2) + "\n"))
    except OSError as exc:
        raise UsageError(f"cannot write into {path}: {exc.strerror or exc}") from None
    return path


@dataclass
class ExperimentResult:
    """What an experiment produced.

    Attributes
    ----------
    name : str
        The experiment (``overshoot``, ``settlement``, ``openings``, ``seats``).
    settings : dict
        Everything that defines the results (written as ``run.json``).
    frames : dict of str -> DataFrame
        Result tables; each is written as ``NAME.parquet`` and ``NAME.csv``.
    markdown : str
        The summary (``summary.md``).
    plots : dict of str -> callable
        ``plot(path)`` writes one PNG (``NAME.png``).
    key_numbers : dict
        Headline figures (also at the top of the summary).
    files : list of str
        Written by :meth:`save`.
    """

    name: str
    settings: dict
    frames: dict[str, pd.DataFrame]
    markdown: str
    plots: dict[str, Callable] = field(default_factory=dict)
    key_numbers: dict = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def save(self, out) -> list[str]:
        """Write every frame (parquet and CSV), every plot and ``summary.md`` into ``out``."""
        path = prepare_out_dir(out, self.settings)
        written = []
        for name, frame in self.frames.items():
            flat = _flat(frame)
            _atomic(path / f"{name}.parquet", lambda p, f=flat: f.to_parquet(p, index=False))
            _atomic(path / f"{name}.csv",
                    lambda p, f=flat: f.to_csv(p, index=False, float_format="%.6g"))
            written += [f"{name}.parquet", f"{name}.csv"]
        for name, plot in self.plots.items():
            _atomic(path / f"{name}.png", plot)
            written.append(f"{name}.png")
        _atomic(path / "summary.md", lambda p: p.write_text(self.markdown))
        written.append("summary.md")
        self.files = [str(path / name) for name in written]
        return self.files


def _flat(frame: pd.DataFrame) -> pd.DataFrame:
    """Categorical columns as strings (stable parquet/CSV across pandas versions)."""
    out = frame.copy()
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].astype(str)
    return out


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line ``error: ...`` and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"error: {message} (see --help)\n")


def make_parser(prog: str, description: str, matches_default: int) -> argparse.ArgumentParser:
    """The options every experiment takes."""
    parser = _Parser(prog=prog, description=description,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", default="2,3,4", metavar="N[,N..]",
                        help="player counts, comma-separated from 2, 3, 4 (default 2,3,4)")
    from sim.engine_cli import STRATEGY_SPECS_HELP

    parser.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES), metavar="A[,B..]",
                        help="strategies, each studied in self-play at every seat "
                             f"(default {','.join(DEFAULT_STRATEGIES)}). " + STRATEGY_SPECS_HELP)
    parser.add_argument("--matches", default=str(matches_default), metavar="M",
                        help=f"matches per (strategy, players) configuration "
                             f"(default {matches_default})")
    parser.add_argument("--seed", default="0", metavar="S",
                        help="master seed, 0 .. 2**63-1 (default 0); the same seed gives "
                             "the same frames")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory (created; refused if it holds a different run)")
    parser.add_argument("--threads", default=None, metavar="T",
                        help="worker threads (default: all cores)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    from experiments.sources import DEFAULT_SHARD_SIZE
    from sim.backends import add_backend_arguments

    add_backend_arguments(parser, summary_only=False, shard_size=DEFAULT_SHARD_SIZE,
                          shard_unit="matches (of one configuration)")
    parser.epilog = ((parser.epilog + "\n\n") if parser.epilog else "") + (
        "While it runs, finished shards are kept in DIR/shards; after a crash or a kill the\n"
        "same command resumes from them. They are removed once the output is written.")
    return parser


def run_main(parser: argparse.ArgumentParser, argv, build: Callable) -> int:
    """Parse, validate, run and save; one ``error: ...`` line and status 2 on bad input.

    ``build(args)`` validates the arguments (raising :class:`UsageError`) and
    returns ``(settings, runner)``; ``runner(**run_options)`` returns the saved
    :class:`ExperimentResult`, given ``progress``, ``out``, ``backend`` (open),
    ``shard_size`` and ``keep_shards``. A failure of the cluster, or an
    interruption, leaves the finished shards in ``OUT/shards`` and says so:
    the same command resumes.
    """
    from experiments.sources import DEFAULT_SHARD_SIZE, SHARDS_DIR, DataRun
    from sim.backends import backend_options, cluster_failure, open_backend

    args = parser.parse_args(argv)
    try:
        scale = backend_options(args, default_shard_size=DEFAULT_SHARD_SIZE)
        settings, runner = build(args)
        shards = Path(args.out) / SHARDS_DIR
        DataRun(settings, directory=shards, shard_size=scale["shard_size"]).check()
        prepare_out_dir(args.out, settings)
        backend = open_backend(scale["backend"], scale["scheduler"], scale["workers"],
                               scale["connect_timeout"])
    except (UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    kept = f"finished shards are kept in {shards}: rerun the same command to resume"
    try:
        with backend:
            result = runner(progress=not args.quiet, out=args.out, backend=backend,
                            shard_size=scale["shard_size"], keep_shards=scale["keep_shards"])
    except KeyboardInterrupt:
        print(f"error: interrupted; {kept}", file=sys.stderr)
        return 130
    except (UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # cluster failures become one line; others propagate
        detail = " ".join(str(exc).split()) or type(exc).__name__
        if isinstance(exc, RuntimeError) and not cluster_failure(exc):
            # a strategy failed at run time (sim.python_seats.StrategyFailure, a bad row)
            print(f"error: {detail}", file=sys.stderr)
            return 1
        if not cluster_failure(exc):
            raise
        if isinstance(exc, OSError) and exc.filename:
            print(f"error: cannot write into {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"error: run failed ({type(exc).__name__}: {detail}); {kept}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    print(f"{result.name}: {elapsed:.1f} s; wrote {len(result.files)} files to {args.out}")
    for key, value in result.key_numbers.items():
        print(f"  {key}: {value}")
    return 0


def run_experiment(settings: dict, compute: Callable, *, out=None, backend="local",
                   shard_size: int | None = None, threads=None, progress: bool = False,
                   keep_shards: bool = False) -> ExperimentResult:
    """Compute an experiment from its data and save it: the body of every ``run``.

    ``compute(data)`` gets a :class:`experiments.sources.DataRun` (its
    ``traces()``, ``rounds()``, ``counterfactuals()``) and returns the
    :class:`ExperimentResult`. With ``out`` the output directory is claimed
    first (refused if it holds another run), the data's shards are kept in
    ``out/shards`` while the run lasts (an interrupted run resumes from them)
    and removed once the result is written, unless ``keep_shards``.
    ``backend``: ``"local"``, ``"dask"`` or an open :class:`sim.backends.Backend`.
    """
    from experiments.sources import DEFAULT_SHARD_SIZE, SHARDS_DIR, DataRun

    data = DataRun(settings, backend=backend,
                   directory=None if out is None else Path(out) / SHARDS_DIR,
                   shard_size=DEFAULT_SHARD_SIZE if shard_size is None else shard_size,
                   threads=check_threads(threads), progress=progress, keep_shards=keep_shards)
    if out is not None:
        data.check()  # before claiming the directory: refuse another run's shards
        prepare_out_dir(out, settings)
    with data:
        result = compute(data)
    if out is not None:
        result.save(out)
        data.finish()
    return result


def run_traced(name: str, analyse: Callable, players, strategies, matches, seed, *,
               traces=None, **run_options) -> ExperimentResult:
    """Run a study over the trace source (or given ``traces``); ``run_options`` as
    :func:`run_experiment`. ``analyse(traces, settings)`` turns the traces into the result.
    """
    settings = common_settings(name, players, strategies, matches, seed)
    return run_experiment(
        settings, lambda data: analyse(data.traces() if traces is None else traces, settings),
        **run_options)


def standard_build(name: str, run: Callable) -> Callable:
    """The ``build`` of an experiment taking only the common options.

    ``run(players, strategies, matches, seed, threads=, **run_options)`` is the
    experiment's Python entry point; the returned ``build(args)`` validates the
    options and gives ``(settings, runner)`` for :func:`run_main`.
    """

    def build(args):
        check_players(args.players)
        resolved = resolve_strategies(args.strategies)  # once: the runner gets the objects
        settings = common_settings(name, args.players, resolved, args.matches, args.seed)
        threads = check_threads(args.threads)

        def runner(**run_options):
            return run(settings["players"], resolved, settings["matches"],
                       settings["seed"], threads=threads, **run_options)

        return settings, runner

    return build


def common_settings(name: str, players, strategies, matches, seed) -> dict:
    """Validated common settings (raises UsageError); JSON-ready.

    ``strategies`` may mix spec strings and :class:`strategies.Strategy`
    objects; the settings hold their names, specs and code digests
    (:func:`strategy_settings`).
    """
    counts = check_players(players)
    resolved = resolve_strategies(strategies)
    return {
        "experiment": name,
        "players": counts,
        "strategies": [s.name for s in resolved],
        "matches": check_int(matches, "--matches", 1),
        "seed": check_int(seed, "--seed", 0, MAX_SEED),
        **{k: v for k, v in strategy_settings(resolved).items() if k != "strategies"},
    }


def iter_traces(players, strategies, matches, seed, threads=None, progress=False):
    """Yield ``((strategy, players), sim.studies.StudyTrace)`` per self-play configuration.

    One configuration at a time, so a large study never holds every trace at
    once; computed in memory on the local backend
    (:meth:`experiments.sources.DataRun.traces`).
    """
    from experiments.sources import DataRun

    settings = common_settings("traces", players, strategies, matches, seed)
    with DataRun(settings, threads=check_threads(threads), progress=progress) as data:
        yield from data.traces()


def collect_traces(players, strategies, matches, seed, threads=None, progress=False) -> dict:
    """:func:`iter_traces` as a dict ``(strategy, players) -> StudyTrace`` (for sharing
    one set of traces between studies, e.g. in a notebook)."""
    return dict(iter_traces(players, strategies, matches, seed, threads, progress))


def items(source):
    """``source.items()`` for a dict, else the iterable of pairs itself."""
    return source.items() if isinstance(source, dict) else source


def fmt_ci(mean, low, high, digits: int = 3, pct: bool = False) -> str:
    """``0.512 [0.503, 0.521]``, or percentages (``51.2% [50.3, 52.1]``) with enough
    decimals to show the interval's width."""
    if pct:
        places = max(digits - 2, 1)
        width = 100 * (high - low) if np.isfinite(high - low) else 1.0
        while places < 2 and width < 10 ** (1 - places):
            places += 1
        return f"{100 * mean:.{places}f}% [{100 * low:.{places}f}, {100 * high:.{places}f}]"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def iter_rounds(players, strategies, matches, seed, threads=None, progress=False):
    """Yield ``((strategy, players), rounds)`` per self-play configuration, one at a time.

    Each ``rounds`` frame is :func:`experiments.sources.rounds_job` over the
    configuration's matches: :func:`sim.engine.simulate_rounds` reduced to
    ``match``, ``round``, ``leader``, ``opening``, ``opening_points``, ``end``,
    ``winner`` (the round's winner), ``raw_*`` and ``score_*``, plus
    ``match_winner`` (the entity that reached 61, -1 if the match stopped
    unfinished) and ``leader_entity``. See :func:`collect_rounds` for a dict.
    """
    from experiments.sources import DataRun

    settings = common_settings("rounds", players, strategies, matches, seed)
    with DataRun(settings, threads=check_threads(threads), progress=progress) as data:
        yield from data.rounds()


def collect_rounds(players, strategies, matches, seed, threads=None, progress=False) -> dict:
    """:func:`iter_rounds` as a dict ``(strategy, players) -> DataFrame``."""
    return dict(iter_rounds(players, strategies, matches, seed, threads, progress))


def leader_differential(rounds: pd.DataFrame, players: int) -> np.ndarray:
    """Per round: the leader's side's raw gain minus the opponents' mean, in displayed points."""
    n_entities = 2 if players == 4 else players
    raw = rounds[[f"raw_{e}" for e in range(n_entities)]].to_numpy(dtype=np.float64)
    leader = rounds["leader_entity"].to_numpy().astype(np.int64)
    own = raw[np.arange(len(raw)), leader]
    others = (raw.sum(axis=1) - own) / (n_entities - 1)
    return (own - others) / 5.0
