"""The run secret: under ``sealed=True`` no strategy can find its seed and match from its own key.

A strategy holds its seat's decision key (``view.rng[0]``). Without a secret
the key is :func:`core.rng.decision_key` ``(seed, match, seat)``, a public
function of small numbers: a strategy that knows how keys are made can try
seeds and matches until one gives its key, and then knows the deal (and every
hand) of its match. The test plays that attack from a strategy's side, a
Python strategy that writes down every key it is handed:

* an ordinary run: the search over seeds 0-15 and matches 0-2,999 finds the
  run's seed and every match (the positive control);
* a sealed run with a random secret: the same search finds nothing, though
  its keys are :func:`core.rng.sealed_decision_key` of the same seed and
  matches (the search with the secret does find them).

Then :func:`core.rng.secret_key`: the zero secret is the identity, other
secrets give other keys; and the secret keys compiled strategies' streams
too (a run replays only with its secret).
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

import sim
from core import rng as R
from sim.engine.spec import secret_words

SEEDS = 16
MATCHES = 3000
SEED = 11
FIRST = 2345
"""The run the attack looks for: seed 11, matches 2,345 onwards (inside the searched ranges)."""

KEYLOG = '''"""A Python strategy that writes down the decision key it is handed (written by test_secret.py)."""
import strategies

LOG = {log!r}
GREEDY = strategies.resolve("greedy").function


@strategies.strategy(name="keylog", compiled=False, description="Greedy; writes its seat and key down.")
def keylog(view):
    with open(LOG, "a") as log:
        log.write(f"{{int(view.seat)}} {{int(view.rng[0])}} {{int(view.rng[1])}}\\n")
    return GREEDY(view)
'''


@numba.njit(cache=False)
def search(key, seeds, matches, secret):
    """The (seed, match) whose seat-0 key with ``secret`` is ``key``, or (-1, -1)."""
    for seed in range(seeds):
        for match in range(matches):
            if R.sealed_decision_key(seed, match, 0, secret) == key:
                return seed, match
    return -1, -1


@numba.njit(cache=False)
def search_unsealed(key, seeds, matches):
    """The attack as written against :func:`core.rng.decision_key` itself."""
    for seed in range(seeds):
        for match in range(matches):
            if R.decision_key(seed, match, 0) == key:
                return seed, match
    return -1, -1


@pytest.fixture()
def keylog(tmp_path):
    log = tmp_path / "keys.txt"
    path = tmp_path / "keylog.py"
    path.write_text(KEYLOG.format(log=str(log)))
    return f"{path}:keylog", log


def seat0_keys(log) -> list[int]:
    rows = [tuple(map(int, line.split())) for line in log.read_text().splitlines()]
    assert rows and all(seat == 0 and counter == 0 for seat, _, counter in rows)
    return list(dict.fromkeys(key for _, key, _ in rows))  # one per match, in play order


def test_the_attack_finds_seed_and_match_of_an_ordinary_run(keylog):
    spec, log = keylog
    sim.simulate(2, [spec, "greedy"], 3, seed=SEED, first_match=FIRST)
    keys = seat0_keys(log)
    assert len(keys) == 3
    found = [search_unsealed(np.uint64(key), SEEDS, MATCHES) for key in keys]
    assert found == [(SEED, FIRST), (SEED, FIRST + 1), (SEED, FIRST + 2)]
    assert [search(np.uint64(key), SEEDS, MATCHES, R.NO_SECRET) for key in keys] == found


def test_the_attack_finds_nothing_in_a_sealed_run(keylog):
    spec, log = keylog
    frame = sim.simulate(2, [spec, "greedy"], 3, seed=SEED, first_match=FIRST, sealed=True)
    secret = frame.attrs["secret"]
    assert len(secret) == 32 and int(secret, 16) > 0
    keys = seat0_keys(log)
    assert len(keys) == 3
    for key in keys:
        assert search_unsealed(np.uint64(key), SEEDS, MATCHES) == (-1, -1)
        assert search(np.uint64(key), SEEDS, MATCHES, R.NO_SECRET) == (-1, -1)
    # they are the sealed keys of the very seed and matches: only the secret hid them
    words = secret_words(secret)
    assert keys == [int(R.sealed_decision_key(SEED, m, 0, words)) for m in range(FIRST, FIRST + 3)]
    assert [search(np.uint64(key), SEEDS, MATCHES, words) for key in keys] == \
        [(SEED, FIRST), (SEED, FIRST + 1), (SEED, FIRST + 2)]


# ---------------------------------------------------------------------------
# secret_key
# ---------------------------------------------------------------------------
def random_secret(generator) -> str:
    return f"{int(generator.integers(1, 2**62)):016x}{int(generator.integers(1, 2**62)):016x}"


def test_the_zero_secret_is_the_identity():
    generator = np.random.default_rng(3)
    for word in [0, 1, 2**64 - 1, *map(int, generator.integers(0, 2**63, 100, dtype=np.int64))]:
        assert int(R.secret_key(np.uint64(word), R.NO_SECRET)) == word
    assert np.array_equal(secret_words(None), R.NO_SECRET)
    assert np.array_equal(secret_words("0" * 32), R.NO_SECRET)
    for seed, match, seat in [(0, 0, 0), (SEED, FIRST, 1), (2**63 - 1, 2**40, 3)]:
        assert int(R.sealed_decision_key(seed, match, seat, R.NO_SECRET)) == int(R.decision_key(seed, match, seat))


def test_secret_words_are_the_secrets_two_halves():
    secret = "0123456789abcdef" + "fedcba9876543210"
    words = secret_words(secret)
    assert words.dtype == np.uint64 and words.shape == (2,)
    assert int(words[0]) + (int(words[1]) << 64) == int(secret, 16)


def test_each_secret_gives_other_keys():
    generator = np.random.default_rng(4)
    secrets = [random_secret(generator) for _ in range(4)]
    secrets += [secrets[0][:31] + ("1" if secrets[0][31] != "1" else "2")]  # one hex digit apart
    samples = [(seed, match, seat) for seed in (0, 7, SEED) for match in (0, 1, FIRST) for seat in range(4)]
    keyed = {}
    for secret in [None] + secrets:
        words = secret_words(secret)
        keyed[secret] = [int(R.sealed_decision_key(seed, match, seat, words)) for seed, match, seat in samples]
        assert len(set(keyed[secret])) == len(samples)  # distinct per seed, match and seat
    everything = [key for keys in keyed.values() for key in keys]
    assert len(set(everything)) == len(everything)  # and no key of one secret is another's
    # the same secret always gives the same keys
    words = secret_words(secrets[1])
    assert keyed[secrets[1]] == [int(R.sealed_decision_key(s, m, t, words)) for s, m, t in samples]


def test_the_secret_keys_compiled_strategies_streams():
    """``random`` in a sealed run draws from streams keyed by the run's secret: two sealed runs
    play differently, and a run given the first one's secret replays it."""
    seats = ["random", "random"]
    first = sim.simulate(2, seats, 200, seed=SEED, sealed=True)
    second = sim.simulate(2, seats, 200, seed=SEED, sealed=True)
    assert first.attrs["secret"] != second.attrs["secret"]
    assert not first.equals(second)
    again = sim.simulate(2, seats, 200, seed=SEED, sealed=True, secret=first.attrs["secret"])
    assert again.attrs["secret"] == first.attrs["secret"]
    pd.testing.assert_frame_equal(again, first, check_exact=True)
    ordinary = sim.simulate(2, seats, 200, seed=SEED)
    assert not ordinary.equals(first)
    # the deals do not depend on the secret: only the choices do
    greedy = [sim.simulate(2, ["greedy", "greedy"], 200, seed=SEED, **options)
              for options in ({}, {"sealed": True})]
    pd.testing.assert_frame_equal(greedy[0], greedy[1], check_exact=True)
