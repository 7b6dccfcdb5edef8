"""A tournament's configuration: everything that defines its results, checked once."""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.checks import check_int, check_players, check_seed
from strategies.catalogue import resolve_field, spec_of


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that defines a tournament's results (build it with :meth:`build`).

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

    @classmethod
    def build(cls, players, strategies, matches, seed, duplicate: bool = False,
              max_rounds=1000) -> TournamentConfig:
        """Check the arguments and resolve the field once; a ValueError's one line names the
        argument and what was found.

        ``strategies``: specs (built-in names, ``MODULE:NAME``, ``FILE.py:NAME``,
        ``name[k=v,...]``; a comma-separated string too) and Strategy objects,
        with distinct names.
        """
        players = check_players(players)
        resolved = tuple(resolve_field(strategies))
        need = 3 if players == 3 else 2
        if len(resolved) < need:
            raise ValueError(f"a {players}-player tournament needs at least {need} "
                             f"strategies, found {len(resolved)}")
        return cls(players=players, strategies=tuple(s.name for s in resolved),
                   matches=check_int(matches, "matches", 1), seed=check_seed(seed),
                   duplicate=bool(duplicate), max_rounds=check_int(max_rounds, "max_rounds", 1),
                   specs=tuple(spec_of(s) for s in resolved),
                   strategy_code={s.name: s.code_key for s in resolved}, resolved=resolved)

    def spec_of(self, name: str) -> str:
        """The spec a shard job gets for the strategy named ``name``."""
        return self.specs[self.strategies.index(name)]

    def as_dict(self) -> dict:
        """The JSON-ready settings (the output directory's ``run.json``, the shard manifest)."""
        return {"kind": "tournament", "players": self.players,
                "strategies": list(self.strategies), "matches": self.matches,
                "seed": self.seed, "duplicate": self.duplicate, "max_rounds": self.max_rounds,
                "specs": list(self.specs), "strategy_code": dict(self.strategy_code)}
