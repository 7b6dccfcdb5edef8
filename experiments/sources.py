"""The experiments' data, cut into shards: the same frames on any backend, resumable on disk.

Three sources feed the four studies; each is a module-level shard job
(:mod:`sim.scale`) so that it runs unchanged on the local backend or on dask
workers (:mod:`sim.scale.backends`):

``traces`` (overshoot, settlement)
    :func:`sim.study_kernels.traces.trace_events` of one self-play configuration
    ``(strategy, players)``; a shard holds three tables (``matches``,
    ``events``, ``paths``).
``rounds`` (seats, openings observed)
    :func:`sim.simulate_rounds` reduced to the columns the studies read,
    plus ``match_winner`` and ``leader_entity`` (:func:`rounds_job`).

With mixed tables in the settings (:mod:`experiments.mixed_tables`) the
``traces`` and ``rounds`` sources also play every rotation of every table
(:meth:`DataRun.table_traces`, :meth:`DataRun.table_rounds`): one more
configuration (a shard ``part``) per rotation, numbered after the self-play
ones, on the same deals (the study's seed). :meth:`DataRun.traces` and
:meth:`DataRun.rounds` still yield the self-play configurations only, so a
self-play caller sees nothing new.
``counterfactual`` (openings)
    :func:`sim.study_kernels.openings.opening_counterfactual` of one player count, sharded by
    hand (hands ``first .. first + count - 1`` of the seed's hand stream), as
    the long frame of :meth:`sim.study_kernels.openings.OpeningCounterfactual.to_frame`.

Every match (and hand) is a pure function of ``(seed, index)`` and the
settings, so a source's shards concatenated in plan order equal the unsharded
run, row for row, whatever the backend, worker count, shard size or
completion order; tests/experiments/test_sources.py checks exactly that.

With a directory (the command line uses ``OUT/shards``) each source keeps its
finished shards in ``DIR/<source>/`` with a manifest of the experiment's
settings: re-running the same command after a crash resumes, and the store of
another run is refused. :meth:`DataRun.finish` removes the shard files once the
experiment's output is written (unless ``keep_shards``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.mixed_tables import tables_of
from experiments.settings import configuration_matches, seal_of, study_settings
from sim.engine.runs import simulate_rounds
from sim.engine.spec import check_threads
from sim.progress import progress_bar
from sim.scale.backends import open_backend
from sim.scale.runner import run_shards
from sim.scale.shards import Task, plan
from sim.scale.store import ShardStore
from sim.study_kernels.openings import OpeningCounterfactual, opening_counterfactual
from sim.study_kernels.traces import StudyTrace, trace_events
from core.tiles import TARGET_RAW, entities_for, entity_count

DEFAULT_SHARD_SIZE = 10_000
"""Matches per shard of a trace or rounds source (a few seconds of one core;
the progress bar moves once per shard)."""
CF_HANDS_PER_SHARD = 20
"""Leader hands per shard of the counterfactual (each hand is 5 x playouts rounds)."""
SHARDS_DIR = "shards"
"""The sources' stores inside an experiment's output directory."""

TRACE_TABLES = ("matches", "events", "paths")


# ---------------------------------------------------------------------------
# Shard jobs (module level: importable on dask workers)
# ---------------------------------------------------------------------------
def trace_job(first_match: int, count: int, *, players: int, strategies, seed: int,
              field=None, threads: int | None = None, **run_options) -> dict[str, pd.DataFrame]:
    """Matches ``first_match ..`` of :func:`sim.study_kernels.traces.trace_events` as three tables
    (``field``: every strategy of the experiment, compiled into one kernel; ``run_options``:
    the run's sealing, :func:`experiments.settings.seal_of`)."""
    trace = trace_events(players, list(strategies), count, seed, threads=threads,
                         first_match=first_match, field=field, **run_options)
    return {"matches": trace.matches, "events": trace.events, "paths": trace.paths}


ROUND_COLUMNS = ("match", "round", "leader", "opening", "opening_points", "end", "winner")


def rounds_job(first_match: int, count: int, *, players: int, strategies, seed: int,
               field=None, threads: int | None = None, **run_options) -> pd.DataFrame:
    """Round rows of matches ``first_match ..``: the studies' columns of
    :func:`sim.simulate_rounds` (``match``, ``round``, ``leader``,
    ``opening``, ``opening_points``, ``end``, ``winner`` (the round's), ``raw_*``,
    ``score_*``) plus ``match_winner`` (the entity that reached 61, -1 if the
    match stopped unfinished) and ``leader_entity``. ``run_options``: the run's sealing
    (:func:`experiments.settings.seal_of`).

    Every column is a function of the match's own rows, so shards concatenate.
    """
    n_entities = entity_count(players)
    keep = (list(ROUND_COLUMNS) + [f"raw_{e}" for e in range(n_entities)]
            + [f"score_{e}" for e in range(n_entities)])
    rounds = simulate_rounds(players, list(strategies), count, seed, threads=threads,
                             first_match=first_match, field=field,
                             **run_options)[keep].reset_index(drop=True)
    last = rounds.groupby("match", sort=False).tail(1)
    scores = last[[f"score_{e}" for e in range(n_entities)]].to_numpy()
    hit = scores == TARGET_RAW
    winner = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    lookup = pd.Series(winner, index=last["match"].to_numpy())
    rounds["match_winner"] = lookup.reindex(rounds["match"].to_numpy()).to_numpy().astype(np.int8)
    leader = rounds["leader"].to_numpy()
    rounds["leader_entity"] = np.asarray(entities_for(players), dtype=np.int8)[leader]
    return rounds


def counterfactual_job(first_hand: int, count: int, *, players: int, strategy: str,
                       baseline: str, playouts: int, seed: int,
                       threads: int | None = None, secret: str | None = None) -> pd.DataFrame:
    """Hands ``first_hand ..`` of :func:`sim.study_kernels.openings.opening_counterfactual`, one row per
    playout (``secret``: the run's, keying the playouts' decision streams)."""
    return opening_counterfactual(players, strategy, hands=count, playouts=playouts, seed=seed,
                                  baseline=baseline, first_hand=first_hand,
                                  threads=threads, secret=secret).to_frame()


# ---------------------------------------------------------------------------
# A run's data: backend, shard stores, progress
# ---------------------------------------------------------------------------
@dataclass
class TableData:
    """The matches of one mixed table at one player count, every rotation on the same deals.

    Attributes
    ----------
    table : str
        Its label (``"exact vs greedy"``; :attr:`experiments.mixed_tables.Table.label`).
    players : int
    rotations : list of experiments.seatings.Pairing
        Rotation ``r`` (index) gives each entity's strategy (``entity_strategies``).
    data : StudyTrace or DataFrame
        The trace (:meth:`DataRun.table_traces`) or the rounds (:meth:`DataRun.table_rounds`)
        of every rotation, with a ``rotation`` column; ``match`` is the deal (the same index
        in every rotation).
    """

    table: str
    players: int
    rotations: list
    data: object


@dataclass
class DataRun:
    """Where and how an experiment computes its data.

    Parameters
    ----------
    settings : dict
        The experiment's validated settings (written into every store's
        manifest: the shards of another run are refused).
    backend : str or sim.scale.backends.Backend
        ``"local"`` (default), ``"dask"`` (a LocalCluster for this run) or an
        open backend (left open).
    directory : path, optional
        Shard stores go to ``directory/<source>/``; without it nothing is
        written and nothing resumes.
    shard_size : int
        Matches per shard (traces, rounds).
    threads : int, optional
        Numba threads per shard (default: the backend's choice).
    progress : bool
        One tqdm bar per source.
    keep_shards : bool
        :meth:`finish` leaves the shard files.

    Use as a context manager (it opens and closes a backend given by name).
    """

    settings: dict
    backend: object = "local"
    directory: Path | None = None
    shard_size: int = DEFAULT_SHARD_SIZE
    threads: int | None = None
    progress: bool = False
    keep_shards: bool = False
    stores: dict = field(default_factory=dict, repr=False)
    _owned: object = field(default=None, repr=False)

    @classmethod
    def of(cls, spec) -> DataRun:
        """The data of a study run (:class:`experiments.run_spine.StudySpec`): its settings, and its
        scale options' backend, threads, shard size, progress and kept shards; the stores go to
        ``out/shards`` when the run has an output directory."""
        scale = spec.scale
        return cls(spec.settings, backend=scale.backend,
                   directory=None if scale.out is None else scale.out / SHARDS_DIR,
                   shard_size=scale.shard_size, threads=scale.threads, progress=scale.progress,
                   keep_shards=scale.keep_shards)

    def __post_init__(self):
        if isinstance(self.shard_size, bool) or not isinstance(self.shard_size, (int, np.integer)) \
                or self.shard_size < 1:
            raise ValueError(f"shard_size must be a positive integer (got {self.shard_size!r})")
        self.shard_size = int(self.shard_size)
        if self.directory is not None:
            self.directory = Path(self.directory)

    def __enter__(self) -> DataRun:
        if isinstance(self.backend, str) or self.backend is None:
            self._owned = self.backend = open_backend(self.backend or "local")
        return self

    def __exit__(self, *exc) -> None:
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def check(self) -> None:
        """Refuse (:class:`sim.scale.store.ShardError`) stores of another run, before any work."""
        if self.directory is None or not self.directory.is_dir():
            return
        for entry in sorted(self.directory.iterdir()):
            if entry.is_dir():
                ShardStore(entry, self._manifest(entry.name), tables=self._tables(entry.name)).check()

    def _manifest(self, source: str) -> dict:
        size = CF_HANDS_PER_SHARD if source == "counterfactual" else self.shard_size
        return {"kind": f"experiment-{source}", "settings": self.settings, "shard_size": size}

    @staticmethod
    def _tables(source: str):
        return TRACE_TABLES if source == "traces" else None

    def _run(self, source: str, job, tasks: list[Task], bar):
        store = None
        if self.directory is not None:
            store = ShardStore(self.directory / source, self._manifest(source),
                               tables=self._tables(source)).open()
            self.stores[source] = store
        try:
            return run_shards(job, tasks, backend=self.backend, store=store,
                              threads=self.threads, progress=self.progress, bar=bar).frame()
        finally:
            if store is not None:
                store.close()

    def _bar(self, total: int, unit: str, desc: str):
        return progress_bar(total, self.progress, unit=unit, desc=desc)

    # -- the sources ---------------------------------------------------------
    def _configurations(self):
        """``(part, name, spec, players)`` per self-play configuration: the name labels the
        tables, the spec (:func:`strategies.catalogue.spec_of`) goes to the shard job."""
        names = self.settings["strategies"]
        specs = self.settings.get("strategy_specs", names)
        for k, ((name, spec), count) in enumerate(((n, s), c) for n, s in zip(names, specs)
                                                  for c in self.settings["players"]):
            yield k, name, spec, count

    def _match_tasks(self, part: int, spec: str, count: int, name: str) -> list[Task]:
        # a strong strategy's configurations play its own (smaller) number of matches
        return self._seat_tasks(part, [spec] * count, count,
                                configuration_matches(self.settings, name))

    def _self_play_matches(self, configurations) -> int:
        """Matches of the self-play ``configurations`` (:meth:`_configurations`), for the bar."""
        return sum(configuration_matches(self.settings, name) for _, name, _, _ in configurations)

    def _field(self) -> list[str]:
        """The specs of every strategy the run plays (self-play, then the tables' others)."""
        return (list(self.settings.get("strategy_specs", self.settings["strategies"]))
                + list(self.settings.get("table_strategy_specs", [])))

    def _seat_tasks(self, part: int, seat_specs: list[str], count: int,
                    matches: int) -> list[Task]:
        # Every configuration compiles the experiment's whole field once (one kernel); the
        # run's sealing (its one secret) travels in the JSON-ready config, to dask workers too.
        config = {"players": count, "strategies": list(seat_specs), "seed": self.settings["seed"],
                  "field": self._field(), **seal_of(self.settings)}
        return [Task(shard, config) for shard in plan(matches, self.shard_size,
                                                       self.settings["seed"], part=part)]

    def _table_configurations(self):
        """``(table, players, rotations, parts)`` per mixed table and player count it is played
        at (:mod:`experiments.mixed_tables`): ``rotations`` the
        :class:`~experiments.seatings.Pairing` of each rotation, ``parts`` their shard
        parts, numbered after the self-play configurations' (whose shards keep their names)."""
        s = self.settings
        part = len(s["strategies"]) * len(s["players"])
        for table in tables_of(s):
            for count in s["players"]:
                if not table.plays_at(count):
                    continue
                rotations = table.rotations(count)
                yield table, count, rotations, list(range(part, part + len(rotations)))
                part += len(rotations)

    def _rotation_tasks(self, rotation, part: int, count: int) -> list[Task]:
        s = self.settings
        names = list(s["strategies"]) + list(s.get("table_strategies", []))
        spec = dict(zip(names, self._field()))
        seats = [spec[name] for name in rotation.seat_strategies(count)]
        return self._seat_tasks(part, seats, count, self.settings["table_matches"])

    def _table_matches(self) -> int:
        """Matches of every rotation of every table, for the progress bar."""
        return sum(len(rotations) for _, _, rotations, _ in self._table_configurations()) \
            * self.settings.get("table_matches", 0)

    def _rotation_results(self, source: str, job):
        """Yield ``(table, players, rotations, [(rotation, result)])`` per mixed table and
        player count, in settings order: ``job``'s result (of data source ``source``) for every
        rotation, under one progress bar. Nothing for a self-play-only run."""
        configurations = list(self._table_configurations())
        if not configurations:
            return
        bar = self._bar(self._table_matches(), "match", "table matches")
        try:
            for table, count, rotations, parts in configurations:
                yield table, count, rotations, [
                    (rotation, self._run(source, job, self._rotation_tasks(rotation, part, count),
                                         bar))
                    for rotation, part in zip(rotations, parts)]
        finally:
            bar.close()

    def table_traces(self) -> Iterator[tuple[tuple[str, int], TableData]]:
        """Yield ``((table label, players), TableData)`` per mixed table and player count, in
        settings order; its ``data`` is one :class:`sim.study_kernels.StudyTrace` of every rotation
        (rotation 0's matches first), each of its three tables with a ``rotation`` column
        inserted first. Nothing for a self-play-only run."""
        for table, count, rotations, results in self._rotation_results("traces", trace_job):
            tables = {name: [] for name in TRACE_TABLES}
            for rotation, got in results:
                for name in TRACE_TABLES:
                    frame = got[name]
                    frame.insert(0, "rotation", np.int8(rotation.pairing))
                    tables[name].append(frame)
            trace = StudyTrace(**{name: pd.concat(frames, ignore_index=True)
                                  for name, frames in tables.items()})
            yield (table.label, count), TableData(table.label, count, rotations, trace)

    def table_rounds(self) -> Iterator[tuple[tuple[str, int], TableData]]:
        """Yield ``((table label, players), TableData)`` per mixed table and player count; its
        ``data`` is :func:`rounds_job`'s frame of every rotation with a ``rotation`` column
        inserted first. Nothing for a self-play-only run."""
        for table, count, rotations, results in self._rotation_results("rounds", rounds_job):
            frames = []
            for rotation, frame in results:
                frame.insert(0, "rotation", np.int8(rotation.pairing))
                frames.append(frame)
            yield (table.label, count), TableData(table.label, count, rotations,
                                                  pd.concat(frames, ignore_index=True))

    def traces(self) -> Iterator[tuple[tuple[str, int], object]]:
        """Yield ``((strategy, players), StudyTrace)`` per self-play configuration, in order."""
        configurations = list(self._configurations())
        bar = self._bar(self._self_play_matches(configurations), "match", "matches")
        try:
            for part, name, spec, count in configurations:
                tables = self._run("traces", trace_job,
                                   self._match_tasks(part, spec, count, name), bar)
                yield (name, count), StudyTrace(**tables)
        finally:
            bar.close()

    def rounds(self) -> Iterator[tuple[tuple[str, int], pd.DataFrame]]:
        """Yield ``((strategy, players), rounds)`` per self-play configuration (:func:`rounds_job`)."""
        configurations = list(self._configurations())
        bar = self._bar(self._self_play_matches(configurations), "match", "matches")
        try:
            for part, name, spec, count in configurations:
                yield (name, count), self._run("rounds", rounds_job,
                                               self._match_tasks(part, spec, count, name), bar)
        finally:
            bar.close()

    def counterfactuals(self) -> dict:
        """``players -> OpeningCounterfactual`` for the openings study's settings."""
        s = self.settings
        bar = self._bar(s["hands"] * len(s["players"]), "hand", "forced openings")
        out = {}
        try:
            for part, count in enumerate(s["players"]):
                # The playouts are compiled (nothing to seal): only the run's secret keys them,
                # and an ordinary run's shard manifests stay what they were.
                config = {"players": count,
                          "strategy": s.get("playout_strategy_spec", s["playout_strategy"]),
                          "baseline": s.get("baseline_spec", s["baseline"]),
                          "playouts": s["playouts"], "seed": s["seed"],
                          **({"secret": s["secret"]} if s.get("secret") else {})}
                tasks = [Task(shard, config)
                         for shard in plan(s["hands"], CF_HANDS_PER_SHARD, s["seed"], part=part)]
                frame = self._run("counterfactual", counterfactual_job, tasks, bar)
                out[count] = OpeningCounterfactual.from_frame(
                    frame, players=count, strategy=s["playout_strategy"], baseline=s["baseline"],
                    seed=s["seed"])
        finally:
            bar.close()
        return out

    def finish(self) -> None:
        """After the output is written: remove the shard stores (unless ``keep_shards``)."""
        if self.keep_shards or self.directory is None:
            return
        for store in self.stores.values():
            store.remove()
        try:
            self.directory.rmdir()
        except OSError:
            pass


# ---------------------------------------------------------------------------
# The sources in memory (a notebook shares one set between studies)
# ---------------------------------------------------------------------------
def iter_traces(players, strategies, matches, seed, threads=None, progress=False):
    """Yield ``((strategy, players), sim.study_kernels.StudyTrace)`` per self-play configuration.

    One configuration at a time, so a large study never holds every trace at
    once; computed in memory on the local backend
    (:meth:`DataRun.traces`).
    """
    settings = study_settings("traces", players, strategies, matches, seed)
    with DataRun(settings, threads=check_threads(threads), progress=progress) as data:
        yield from data.traces()


def collect_traces(players, strategies, matches, seed, threads=None, progress=False) -> dict:
    """:func:`iter_traces` as a dict ``(strategy, players) -> StudyTrace`` (for sharing
    one set of traces between studies, e.g. in a notebook)."""
    return dict(iter_traces(players, strategies, matches, seed, threads, progress))


def pairs(source):
    """``source.items()`` for a dict, else the iterable of ``(key, value)`` pairs itself."""
    return source.items() if isinstance(source, dict) else source


def iter_rounds(players, strategies, matches, seed, threads=None, progress=False):
    """Yield ``((strategy, players), rounds)`` per self-play configuration, one at a time.

    Each ``rounds`` frame is :func:`rounds_job` over the
    configuration's matches: :func:`sim.engine.simulate_rounds` reduced to
    ``match``, ``round``, ``leader``, ``opening``, ``opening_points``, ``end``,
    ``winner`` (the round's winner), ``raw_*`` and ``score_*``, plus
    ``match_winner`` (the entity that reached 61, -1 if the match stopped
    unfinished) and ``leader_entity``. See :func:`collect_rounds` for a dict.
    """
    settings = study_settings("rounds", players, strategies, matches, seed)
    with DataRun(settings, threads=check_threads(threads), progress=progress) as data:
        yield from data.rounds()


def collect_rounds(players, strategies, matches, seed, threads=None, progress=False) -> dict:
    """:func:`iter_rounds` as a dict ``(strategy, players) -> DataFrame``."""
    return dict(iter_rounds(players, strategies, matches, seed, threads, progress))


def leader_differential(rounds: pd.DataFrame, players: int) -> np.ndarray:
    """Per round: the leader's side's raw gain minus the opponents' mean, in displayed points."""
    n_entities = entity_count(players)
    raw = rounds[[f"raw_{e}" for e in range(n_entities)]].to_numpy(dtype=np.float64)
    leader = rounds["leader_entity"].to_numpy().astype(np.int64)
    own = raw[np.arange(len(raw)), leader]
    others = (raw.sum(axis=1) - own) / (n_entities - 1)
    return (own - others) / 5.0
