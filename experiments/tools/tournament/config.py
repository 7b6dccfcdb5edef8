"""A tournament's configuration: everything that defines its results, and how it runs,
checked once."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from core.checks import check_int, check_players, check_seed
from sim.engine.spec import check_seal, check_sealable, seal_run_options
from sim.scale.options import ScaleOptions
from strategies.catalogue import resolve_field, spec_of


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that defines a tournament's results, and how it runs (build it with
    :meth:`build`): the one spec of a tournament, built at its entry point (the command line or
    :func:`experiments.tools.tournament.run.tournament`) and passed down whole.

    Attributes
    ----------
    players : int
        2, 3 or 4.
    strategies : tuple of str
        The field's names (what every table shows), in the order given.
    matches : int
        Matches per seating.
    seed : int
        Master seed; each group (duplicate) or seating gets a derived seed.
    duplicate : bool
        Replay each deal sequence with the strategies swapped between seats.
    max_rounds : int
        Ruling 15's round limit per match.
    specs : tuple of str
        JSON-ready references the shard jobs resolve again, on this process or
        a dask worker (:func:`strategies.catalogue.spec_of`), one per strategy.
    strategy_code : dict
        Name -> code digest: a tournament whose strategy code changed is
        another run, refused on resume.
    resolved : tuple of Strategy
        The field's strategies.
    until_separated : bool
        Play the deals of a two-strategy duplicate match in order and stop as
        soon as the sequential test separates the two
        (:mod:`experiments.tools.tournament.sequential`); ``matches`` is then the cap.
    alpha : float
        That test's error level (the confidence sequence covers with
        probability at least ``1 - alpha`` at every deal at once).
    sealed : bool
        Every Python strategy (``compiled=False``) plays in a process of its
        own (:meth:`sim.engine.spec.RunSpec.build`).
    secret : str or None
        The run secret (32 hexadecimal digits) keying every seating's decision
        streams; drawn once, here, for a sealed run given none, so that every
        shard and seating plays with the same one.
    decision_timeout : float or None
        Seconds a sealed Python strategy may take for one decision.
    scale : sim.scale.options.ScaleOptions
        Backend, threads, shard size, kept shards, summary-only, output directory and progress:
        how the tournament runs, not part of its settings (:meth:`as_dict`).
    """

    players: int
    strategies: tuple
    matches: int
    seed: int
    duplicate: bool = False
    max_rounds: int = 1000
    specs: tuple = ()
    strategy_code: dict = field(default_factory=dict)
    resolved: tuple = field(default=(), repr=False, compare=False)
    until_separated: bool = False
    alpha: float = 0.05
    sealed: bool = False
    secret: str | None = field(default=None, repr=False)
    decision_timeout: float | None = None
    scale: ScaleOptions = field(default_factory=ScaleOptions, repr=False, compare=False)

    @classmethod
    def build(cls, players, strategies, matches, seed, duplicate: bool = False,
              max_rounds=1000, until_separated: bool = False,
              alpha=0.05, sealed: bool = False, secret: str | None = None,
              decision_timeout=None, **scale) -> TournamentConfig:
        """Check the arguments and resolve the field once; a ValueError's one line names the
        argument and what was found.

        ``strategies``: specs (built-in names, ``MODULE:NAME``, ``FILE.py:NAME``,
        ``name[k=v,...]``; a comma-separated string too) and Strategy objects,
        with distinct names. ``until_separated`` needs exactly two strategies and
        ``duplicate``; ``alpha`` (its error level) must lie strictly between 0 and 1.
        ``sealed``, ``secret`` and ``decision_timeout`` as :meth:`sim.engine.spec.RunSpec.build`
        (a sealed run given no secret gets a fresh one here: pass the recorded one to resume).
        ``scale``: ``backend``, ``threads``, ``shard_size`` (default
        :data:`sim.scale.shards.DEFAULT_SHARD_SIZE`), ``keep_shards``, ``summary_only``, ``out``,
        ``progress`` (:meth:`sim.scale.options.ScaleOptions.build`).
        """
        players = check_players(players)
        resolved = tuple(resolve_field(strategies))
        need = 3 if players == 3 else 2
        if len(resolved) < need:
            raise ValueError(f"a {players}-player tournament needs at least {need} "
                             f"strategies, found {len(resolved)}")
        if until_separated:
            if len(resolved) != 2:
                raise ValueError("--until-separated compares exactly two strategies, "
                                 f"found {len(resolved)}")
            if not duplicate:
                raise ValueError("--until-separated needs --duplicate (the test's unit is a "
                                 "deal played in both seatings)")
        sealed, secret, decision_timeout = check_seal(sealed, secret, decision_timeout)
        if sealed:
            check_sealable(resolved)  # before any seating plays: a notebook's strategy is refused
        return cls(players=players, strategies=tuple(s.name for s in resolved),
                   matches=check_int(matches, "matches", 1), seed=check_seed(seed),
                   duplicate=bool(duplicate), max_rounds=check_int(max_rounds, "max_rounds", 1),
                   specs=tuple(spec_of(s) for s in resolved),
                   strategy_code={s.name: s.code_key for s in resolved}, resolved=resolved,
                   until_separated=bool(until_separated), alpha=check_alpha(alpha),
                   sealed=sealed, secret=secret, decision_timeout=decision_timeout,
                   scale=ScaleOptions.build(**scale))

    def on(self, backend) -> TournamentConfig:
        """The same tournament on ``backend`` (an open backend the command line started)."""
        return replace(self, scale=self.scale.on(backend))

    def spec_of(self, name: str) -> str:
        """The spec a shard job gets for the strategy named ``name``."""
        return self.specs[self.strategies.index(name)]

    @property
    def seal_options(self) -> dict:
        """The run options of the tournament's sealing (``sealed``, ``secret``,
        ``decision_timeout`` where set; :func:`sim.engine.spec.seal_run_options`): every
        seating's shard job passes them to the engine."""
        return seal_run_options(self.sealed, self.secret, self.decision_timeout)

    def as_dict(self) -> dict:
        """The JSON-ready settings (the output directory's ``run.json``, the shard manifest).

        A sequential run adds ``until_separated`` and ``alpha``, a sealed run (or one keyed
        by a secret) :attr:`seal_options` (an ordinary fixed-size run's settings are
        unchanged, so its existing directories still resume; a sealed run's record its
        secret, which a resumed run reads back)."""
        settings = {"kind": "tournament", "players": self.players,
                    "strategies": list(self.strategies), "matches": self.matches,
                    "seed": self.seed, "duplicate": self.duplicate, "max_rounds": self.max_rounds,
                    "specs": list(self.specs), "strategy_code": dict(self.strategy_code)}
        if self.until_separated:
            settings.update(until_separated=True, alpha=self.alpha)
        settings.update(self.seal_options)
        return settings


def check_alpha(value) -> float:
    """An error level strictly between 0 and 1 (text such as ``"0.05"`` too), as float;
    a ValueError's one line names ``alpha``."""
    try:
        alpha = float(str(value).strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise ValueError(f"alpha expects a number between 0 and 1, found {value!r}") from None
    if isinstance(value, bool) or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, found {value!r}")
    return alpha
