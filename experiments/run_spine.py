"""How every study runs: one checked spec, the output directory claimed once, computed, saved.

:class:`StudySpec` is a study run's one spec (its settings, its strategies and its
:class:`sim.scale.options.ScaleOptions`), built and checked once at the entry point (the
command line or a study's Python ``run``) and passed down whole. :func:`claim_run` claims the
output directory (once per run), :func:`execute` computes and saves, :func:`run_experiment` is
both; :func:`run_study` is the body of every self-play study's ``run`` and
:func:`traced_result` serves the studies computed from the trace source (overshoot,
settlement, lengths).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from experiments.comparisons import ComparisonPlan
from experiments.reporting.reports import ExperimentResult
from experiments.settings import study_settings
from experiments.sources import DEFAULT_SHARD_SIZE, DataRun
from sim.files import claim_directory
from sim.scale.options import ScaleOptions
from strategies.catalogue import resolve_field

DEFAULT_PLAYERS = (2, 3, 4)
"""Player counts a study runs at when none are given."""
DEFAULT_STRATEGIES = ("greedy", "random")
"""Strategies a study self-plays when none are given."""
DEFAULT_SEED = 0
"""A study's master seed when none is given."""
POSITIONAL_MATCHES = 2
"""The index of ``matches`` among ``run(players, strategies, matches, seed)``'s arguments."""


def study_scale(**scale) -> ScaleOptions:
    """A study's :class:`sim.scale.options.ScaleOptions` (``backend``, ``threads``,
    ``shard_size``, ``keep_shards``, ``out``, ``progress``): shards of
    :data:`experiments.sources.DEFAULT_SHARD_SIZE` matches unless ``shard_size``."""
    return ScaleOptions.build(default_shard_size=DEFAULT_SHARD_SIZE, **scale)


@dataclass(frozen=True)
class StudySpec:
    """One study run, checked once at its entry point and passed down whole.

    Build it with :meth:`build` (the self-play studies) or with a study's or tool's own
    ``study_spec`` (:func:`experiments.studies.opening_leads.study_spec`, :func:`experiments.tools.strength.study_spec`,
    :func:`experiments.tools.tune.study_spec`, :func:`experiments.studies.win_probabilities.study_spec`); its
    ``run(spec)``, its data sources (:meth:`experiments.sources.DataRun.of`) and its shard jobs
    read it.

    Attributes
    ----------
    settings : dict
        Everything that defines the results, JSON-ready
        (:func:`experiments.settings.study_settings`): what the output directory's
        ``run.json`` and every shard manifest hold.
    strategies : tuple of Strategy
        The studied strategies, resolved once (the self-played ones, then the strong ones; the
        ladder of a strength run, the profile of a winprob run; none for a tuning run, whose
        settings name its strategies).
    scale : sim.scale.options.ScaleOptions
        Backend, threads, shards, output directory and progress: what does not change the
        results.
    plan : experiments.comparisons.ComparisonPlan or None
        The comparisons the run will state, declared from its settings before it plays
        (written as ``plan.json`` when the output directory is claimed).
    """

    settings: dict
    strategies: tuple = field(default=(), repr=False)
    scale: ScaleOptions = field(default_factory=study_scale)
    plan: ComparisonPlan | None = field(default=None, repr=False)

    @classmethod
    def build(cls, name: str, players=DEFAULT_PLAYERS, strategies=DEFAULT_STRATEGIES,
              matches: int = 10_000, seed: int = DEFAULT_SEED, *, tables=None,
              table_matches: int | None = None, sealed: bool = False, secret: str | None = None,
              decision_timeout: float | None = None, strong=None,
              strong_matches: int | None = None, **scale) -> StudySpec:
        """Check a self-play study's arguments once; a ValueError's one line names the argument.

        Parameters
        ----------
        name : str
            The study (``"overshoot"``, ``"settlement"``, ``"seats"``, ``"lengths"``).
        players : sequence of int or str
            Player counts (2, 3, 4).
        strategies : str or sequence of str and Strategy
            Strategies, each studied in self-play: specs (a built-in name,
            ``MODULE:NAME``, ``FILE.py:NAME``, ``name[k=v,...]``; a comma-separated
            string) or :class:`strategies.Strategy` objects. With ``backend="dask"``
            the workers import a strategy's module by its spec; a strategy defined
            in a notebook or ``__main__`` runs on the local backend only.
        matches : int
            Matches per (strategy, players) configuration.
        seed : int
        tables : str or sequence, optional
            Mixed tables besides self-play (:mod:`experiments.mixed_tables`):
            ``"exact,greedy"`` or a list such as ``["exact,greedy", "rollout,greedy"]``;
            each is played in every rotation on the same deals.
        table_matches : int, optional
            Matches per rotation of each table (default ``matches``).
        sealed : bool
            Run every Python strategy (``compiled=False``) in a process of its own
            and key the decision streams with a run secret (``secret``; a random
            one when not given), as :meth:`sim.engine.spec.RunSpec.build`. The
            secret is drawn once for the whole study (every configuration, table
            and shard) and recorded in the settings (``run.json``); to resume an
            interrupted sealed run, pass it again.
        secret : str, optional
            The run secret, 32 hexadecimal digits, keying the decision streams
            (sealed or not): the same secret gives the same frames.
        decision_timeout : float, optional
            With ``sealed``: seconds a Python strategy may take for one decision.
        strong : str or sequence of str and Strategy, optional
            Slow strong strategies (``rollout``, ``matchplay``), each studied in self-play like
            ``strategies`` but at ``strong_matches`` matches per configuration.
        strong_matches : int, optional
            Matches per (strong strategy, players) configuration (default ``matches``).
        **scale
            The run's :class:`sim.scale.options.ScaleOptions`: ``threads`` (Numba threads per shard), ``progress`` (a
            progress bar over matches), ``out`` (write the frames, plots and summary there;
            finished shards are kept in ``out/shards`` while the run lasts, so that the same
            call resumes), ``backend`` (``"local"``, the default: this process's threads;
            ``"dask"``: a LocalCluster for this call; or an open backend: the frames are the
            same on each), ``shard_size`` (matches per shard, default
            :data:`experiments.sources.DEFAULT_SHARD_SIZE`) and ``keep_shards`` (keep
            ``out/shards`` after the result is written; always kept after a failure).
        """
        resolved = resolve_field(strategies)
        strong_resolved = [] if strong is None else resolve_field(strong, "strong")
        settings = study_settings(name, players, resolved, matches, seed, tables, table_matches,
                                  sealed=sealed, secret=secret, decision_timeout=decision_timeout,
                                  strong=strong if strong is None else strong_resolved,
                                  strong_matches=strong_matches)
        return cls(settings, tuple(resolved) + tuple(strong_resolved), study_scale(**scale))

    @classmethod
    def of(cls, name: str, args: tuple, options: dict, matches: int) -> StudySpec:
        """The spec of a self-play study's ``run(*args, **options)``: ``run(spec)`` with a spec
        of study ``name`` (:func:`given_spec`), or ``run(players, strategies, matches, seed,
        **options)`` built by :meth:`build` (``matches`` by default the study's own)."""
        spec = given_spec(name, args, options)
        if spec is not None:
            return spec
        defaults = {} if len(args) > POSITIONAL_MATCHES else {"matches": matches}
        return cls.build(name, *args, **{**defaults, **options})

    @property
    def name(self) -> str:
        """The study's name (``settings["experiment"]``)."""
        return self.settings["experiment"]

    @property
    def out(self):
        """The output directory (a :class:`pathlib.Path`), or None."""
        return self.scale.out

    def on(self, backend) -> StudySpec:
        """The same run on ``backend`` (an open backend the command line started)."""
        return replace(self, scale=self.scale.on(backend))


def given_spec(name: str, args: tuple, options: dict) -> StudySpec | None:
    """The spec of a ``run(spec)`` call of study ``name`` (its arguments ``args`` and
    ``options``), or None when the run is given its arguments instead of a spec.

    Raises
    ------
    TypeError
        The spec is given with other arguments (its options are in ``spec.scale``).
    ValueError
        The spec is another study's.
    """
    if not args or not isinstance(args[0], StudySpec):
        return None
    if len(args) > 1 or options:
        raise TypeError("run(spec) takes the spec alone: its options are in spec.scale")
    if args[0].name != name:
        raise ValueError(f"a {args[0].name} spec cannot run the {name} study")
    return args[0]


def claim_run(spec: StudySpec) -> None:
    """Claim the run's output directory, once per run, before anything plays: the shards of
    another run are refused first (:meth:`experiments.sources.DataRun.check`), then the
    directory (:func:`sim.files.claim_directory`), and the run's declared comparisons are
    written there (``plan.json``). Nothing without an output directory."""
    if spec.out is None:
        return
    DataRun.of(spec).check()
    claim_directory(spec.out, spec.settings)
    if spec.plan is not None:
        spec.plan.write(spec.out)


def execute(spec: StudySpec, compute: Callable) -> ExperimentResult:
    """Compute a study from its data and save it into its claimed output directory.

    ``compute(data)`` gets a :class:`experiments.sources.DataRun` (its ``traces()``,
    ``rounds()``, ``counterfactuals()``) and returns the :class:`ExperimentResult`. The data's
    shards are kept in ``out/shards`` while the run lasts (an interrupted run resumes from
    them) and removed once the result is written, unless ``spec.scale.keep_shards``.
    """
    data = DataRun.of(spec)
    with data:
        result = compute(data)
    if spec.out is not None:
        result.write(spec.out)
        data.finish()
    return result


def run_experiment(spec: StudySpec, compute: Callable) -> ExperimentResult:
    """The body of every study's ``run``: :func:`claim_run`, then :func:`execute`."""
    claim_run(spec)
    return execute(spec, compute)


def run_study(name: str, default_matches: int, compute: Callable, args: tuple, options: dict,
              given=None, plan_for: Callable | None = None) -> ExperimentResult:
    """The body of a self-play study's ``run(*args, traces=None, **options)`` (overshoot,
    settlement, lengths; seats with ``rounds``): the spec of ``run(*args, **options)``
    (:meth:`StudySpec.of`, ``matches`` by default ``default_matches``) run by
    :func:`run_experiment`, the result computed by ``compute(data, given)``; ``given`` is what
    the caller precomputed for the same settings (the traces, the rounds) or None.
    ``plan_for(settings)``: the study's declared comparisons, given to a spec without a plan
    (written as ``plan.json`` when the output directory is claimed)."""
    spec = StudySpec.of(name, args, options, default_matches)
    if plan_for is not None and spec.plan is None:
        spec = replace(spec, plan=plan_for(spec.settings))
    return run_experiment(spec, lambda data: compute(data, given))


def traced_result(analyse: Callable, data: DataRun, traces=None) -> ExperimentResult:
    """A study computed from the trace source (or given ``traces``): ``analyse(traces,
    settings)``, with mixed tables (:mod:`experiments.mixed_tables`)
    ``analyse(traces, settings, tables=data.table_traces())``."""
    source = data.traces() if traces is None else traces
    if "tables" in data.settings:
        return analyse(source, data.settings, tables=data.table_traces())
    return analyse(source, data.settings)
