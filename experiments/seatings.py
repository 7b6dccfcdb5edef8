"""The seatings of a round robin and their seeds.

Seating rules
-------------
- 2 players: every ordered pair of distinct strategies.
- 3 players: every combination of three, in each of its six seat orders. (The
  three rotations alone are not enough: who sits after whom matters -- the
  seat after a weak player gains -- so rotations of one cyclic order would
  make the result depend on the order of the strategy list.)
- 4 players: every ordered pair of partnerships (seats 0, 2 against 1, 3).

With duplicate deals the seatings of one group (the same strategies in
different seats) share a seed, so each deal sequence is replayed with the
strategies swapped (common random numbers: the engine derives deals and lots
from the seed and match index only).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from core.checks import MAX_SEED


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
        """The strategy of each seat (partners opposite at four)."""
        if players == 4:
            a, b = self.entity_strategies
            return [a, b, a, b]
        return list(self.entity_strategies)


def pairings(players: int, names: list[str]) -> list[Pairing]:
    """Every seating of ``names`` for a table of ``players`` (see the module docstring)."""
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
    """A seed in ``0 .. MAX_SEED`` for one pairing or group, from the master seed."""
    state = np.random.SeedSequence([master, key]).generate_state(2, dtype=np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1])) & MAX_SEED
