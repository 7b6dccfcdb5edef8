"""The random streams: SplitMix64 finaliser, stream keys, and the sealed decision keys.

A strategy holds its seat's decision key (``view.rng[0]``). ``mix64`` is a
bijection, and before the view was sealed the decision key was made like the
deal key, ``mix64(K ^ 2 * STREAM_SALT)`` against ``mix64(K ^ STREAM_SALT)``
with ``K`` the match's intermediate key: unmixing it gave ``K``, hence the
deal key, every deal and the boneyard order. These tests implement the inverse
of ``mix64`` (pure Python integers), show that it breaks that old construction,
and show that the same naive paths from today's keys
(:func:`core.rng.decision_key`, two feed-forward steps) reach neither ``K``, nor
the deal key, nor the match's decision-stream key, nor another seat's key.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from core import rng as R

MASK = (1 << 64) - 1
M1 = int(R.MIX_MULTIPLIER_1)
M2 = int(R.MIX_MULTIPLIER_2)
GAMMA = int(R.GOLDEN_GAMMA)
SEED_SALT = int(R.SEED_SALT)
STREAM_SALT = int(R.STREAM_SALT)
SEAT_SALT = int(R.SEAT_SALT)
FEED_FORWARD_SALT = int(R.FEED_FORWARD_SALT)


# ---------------------------------------------------------------------------
# mix64 and its inverse, in pure Python
# ---------------------------------------------------------------------------
def mix(word: int) -> int:
    """SplitMix64 finaliser (the same function as :func:`core.rng.mix64`)."""
    z = word & MASK
    z = ((z ^ (z >> 30)) * M1) & MASK
    z = ((z ^ (z >> 27)) * M2) & MASK
    return z ^ (z >> 31)


def unshift(word: int, shift: int) -> int:
    """Inverse of ``x -> x ^ (x >> shift)`` on 64-bit words."""
    x = word
    for _ in range(64 // shift + 1):
        x = word ^ (x >> shift)
    return x & MASK


INV_M1 = pow(M1, -1, 1 << 64)
INV_M2 = pow(M2, -1, 1 << 64)


def unmix(word: int) -> int:
    """Inverse of :func:`mix`: undo the xorshifts, multiply by the modular inverses."""
    z = unshift(word & MASK, 31)
    z = (z * INV_M2) & MASK
    z = unshift(z, 27)
    z = (z * INV_M1) & MASK
    return unshift(z, 30)


def intermediate_key(seed: int, match: int) -> int:
    """``K``: the match's key before the stream number is mixed in."""
    return mix((mix(seed ^ SEED_SALT) + match * GAMMA) & MASK)


def stream_key(seed: int, match: int, stream: int) -> int:
    return mix(intermediate_key(seed, match) ^ ((stream * STREAM_SALT) & MASK))


def one_way(word: int, salt: int) -> int:
    return word ^ mix(word ^ salt)


def decision_key(seed: int, match: int, seat: int) -> int:
    key = one_way(stream_key(seed, match, R.STREAM_DECISION), ((seat + 1) * SEAT_SALT) & MASK)
    return one_way(key, FEED_FORWARD_SALT)


def old_decision_key(seed: int, match: int) -> int:
    """The match-wide decision key before sealing: built like the deal key."""
    return stream_key(seed, match, R.STREAM_DECISION)


SAMPLES = [(seed, match) for seed in (0, 1, 2, 7, 12345, 2**40 + 3, 2**63 - 1) for match in (0, 1, 5, 999, 2**31)]


def test_python_mix_and_keys_equal_the_engines():
    generator = np.random.default_rng(0)
    for word in [0, 1, MASK, *(int(w) for w in generator.integers(0, 2**63, 200, dtype=np.int64))]:
        assert mix(word) == int(R.mix64(np.uint64(word)))
    for seed, match in SAMPLES:
        for stream in (R.STREAM_DEAL, R.STREAM_DECISION):
            assert stream_key(seed, match, stream) == int(R.stream_key(seed, match, stream))
        for seat in range(4):
            assert decision_key(seed, match, seat) == int(R.decision_key(seed, match, seat))
            state = R.decision_state(seed, match, seat)
            assert state.dtype == np.uint64 and state.shape == (2,)
            assert int(state[0]) == decision_key(seed, match, seat) and int(state[1]) == 0


def test_unmix_inverts_mix():
    generator = np.random.default_rng(1)
    words = [0, 1, 2, MASK, 1 << 63, *(int(w) for w in generator.integers(0, 2**63, 2000, dtype=np.int64) * 2 + 1)]
    for word in words:
        word &= MASK
        assert unmix(mix(word)) == word
        assert mix(unmix(word)) == word


def test_the_old_decision_key_leaked_the_deal_key():
    """Positive control: with the inverse, the old key gives K and the deal key for every match."""
    for seed, match in SAMPLES:
        old = old_decision_key(seed, match)
        k = unmix(old) ^ ((R.STREAM_DECISION * STREAM_SALT) & MASK)
        assert k == intermediate_key(seed, match)
        assert mix(k ^ STREAM_SALT) == int(R.stream_key(seed, match, R.STREAM_DEAL))


CONSTANTS = sorted({0, STREAM_SALT, (2 * STREAM_SALT) & MASK, FEED_FORWARD_SALT, GAMMA, SEED_SALT}
                   | {((seat + 1) * SEAT_SALT) & MASK for seat in range(4)})


def naive_preimages(word: int, depth: int) -> set[int]:
    """Every word reached from ``word`` by up to ``depth`` steps of: unmix then xor a constant,
    xor a constant then mix, xor a constant, and undo a feed-forward by xoring ``word`` back in."""
    found = {word}
    frontier = {word}
    for _ in range(depth):
        reached = set()
        for w in frontier:
            for c in CONSTANTS:
                reached.add(unmix(w) ^ c)
                reached.add(unmix(w ^ c))
                reached.add(mix(w ^ c))
                reached.add(w ^ c)
                reached.add(unmix(w ^ word) ^ c)
                reached.add(unmix(w) ^ word ^ c)
        frontier = reached - found
        found |= reached
    return found


@pytest.mark.parametrize("depth,samples", [(2, 60)])
def test_decision_keys_do_not_unmix_to_match_or_deal_keys(depth, samples):
    """From a seat's key, the naive inversions reach no key of the match, for many seeds."""
    generator = np.random.default_rng(61)
    checked = 0
    for index in range(samples):
        seed = int(generator.integers(0, 2**63 - 1))
        match = int(generator.integers(0, 2**40))
        k = intermediate_key(seed, match)
        deal = stream_key(seed, match, R.STREAM_DEAL)
        decision = stream_key(seed, match, R.STREAM_DECISION)
        seat_keys = [decision_key(seed, match, s) for s in range(4)]
        secrets = {k, deal, decision}
        for seat in range(4):
            reached = naive_preimages(seat_keys[seat], depth)
            assert len(reached) > 1000
            assert not reached & secrets, (seed, match, seat)
            others = set(seat_keys) - {seat_keys[seat]}
            assert not reached & others, (seed, match, seat)
            # the deal key one mix further on from anything reached
            assert deal not in {mix(w ^ STREAM_SALT) for w in reached}, (seed, match, seat)
            checked += 1
    assert checked == 4 * samples


def test_naive_preimages_do_find_the_old_leak():
    """The same search finds K and the deal key from the old decision key (it would have failed)."""
    for seed, match in SAMPLES[:10]:
        reached = naive_preimages(old_decision_key(seed, match), 1)
        assert intermediate_key(seed, match) in reached
        assert stream_key(seed, match, R.STREAM_DEAL) in {mix(w ^ STREAM_SALT) for w in reached}


def test_seats_matches_and_seeds_have_distinct_decision_keys():
    keys = {}
    for seed, match, seat in itertools.product((0, 1, 99), range(50), range(4)):
        keys[(seed, match, seat)] = int(R.decision_key(seed, match, seat))
    assert len(set(keys.values())) == len(keys)
    deal_keys = {int(R.stream_key(seed, match, R.STREAM_DEAL)) for seed, match in itertools.product((0, 1, 99), range(50))}
    assert not deal_keys & set(keys.values())


def test_a_seat_stream_moves_only_with_its_own_draws():
    states = [R.decision_state(5, 8, seat) for seat in range(4)]
    first = [R.next_below(states[0], 1_000_000) for _ in range(10)]
    assert int(states[0][1]) == 10
    assert [int(s[1]) for s in states[1:]] == [0, 0, 0]
    fresh = R.decision_state(5, 8, 0)
    assert [R.next_below(fresh, 1_000_000) for _ in range(10)] == first
    # another seat's stream gives other numbers
    other = [R.next_below(states[1], 1_000_000) for _ in range(10)]
    assert other != first
    # words are SplitMix64 from the key: word_at(key, counter)
    key = int(states[2][0])
    assert int(R.next_word(states[2])) == mix((key + GAMMA) & MASK)
