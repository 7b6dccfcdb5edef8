"""Counter-based random numbers for the engine kernels.

Every random number the engine uses is a pure function of
``(master seed, match index, stream, counter)``: no generator state is shared
between matches or threads, so match ``i`` plays identically whatever the
thread count, the batch it falls in, or the matches simulated before it.

Construction
------------
The mixing function is the finaliser of SplitMix64 (Steele, Lea & Flood, 2014),
a bijection on 64-bit words with full avalanche. A *stream key* is derived by
mixing the seed, the match index and a stream number in turn; the ``counter``-th
word of a stream is ``mix64(key + (counter + 1) * GOLDEN_GAMMA)``, which is
exactly the SplitMix64 sequence started at ``key``. Streams of different
``(seed, match, stream)`` therefore behave as independent SplitMix64 sequences.

Streams
-------
``STREAM_DEAL``
    Shuffles and leader lots. Round ``r`` of a match uses counters
    ``r * DEAL_WORDS_PER_ROUND`` to ``(r + 1) * DEAL_WORDS_PER_ROUND - 1``
    only, so the deal and lot of round ``r`` depend on ``(seed, match, r)``
    alone, not on how earlier rounds were played: the same deals can be replayed
    with other strategies (common random numbers).
``STREAM_DECISION``
    Strategy decisions: each seat has its own stream, whose state is a
    ``uint64[2]`` array ``[key, counter]`` (see :func:`decision_state`) that
    its strategy advances with :func:`next_below` / :func:`next_unit`. A seat's
    counter therefore moves only with its own draws, never revealing how many
    words another seat's strategy used.

Sealing the decision keys
-------------------------
A strategy holds its decision key, and ``mix64`` is a bijection: a key made
like the deal key (``mix64`` of the match's intermediate key) could be
unmixed back to that intermediate key, and from it the deal key, every deal
and the boneyard order computed. The decision key of a seat is therefore
derived one-way (:func:`decision_key`): ``x ^ mix64(x ^ c)`` feed-forward
steps (the Davies-Meyer / Matyas-Meyer-Oseas shape), for which no inversion
cheaper than a search over 2**64 candidates is known. It is not a
cryptographic proof; it leaves no shortcut through the stream construction
itself (``tests/core/test_rng.py`` checks that unmixing a decision key reaches
neither the match key nor the deal key).

A run *secret* (``--sealed``: 128 random bits written to the run's manifest
and records, never shown to a strategy) keys every match's decision key
(:func:`secret_key`), so that a small seed cannot be found from a decision key
by trying seeds; without a secret the seed alone decides, as it always did.

Uniform integers below ``n`` use the high word of a 64x64-bit product
(Lemire's multiply-shift without rejection): the bias is below ``n / 2**64``,
far beneath anything a Monte Carlo study can see, and every draw consumes
exactly one word, which keeps the per-round counter budget fixed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.jit import hot_kernel, kernel
from core.tiles import N_TILES

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
"""SplitMix64 increment: 2**64 divided by the golden ratio, made odd."""

MIX_MULTIPLIER_1 = np.uint64(0xBF58476D1CE4E5B9)
"""First multiplier of the SplitMix64 finaliser."""

MIX_MULTIPLIER_2 = np.uint64(0x94D049BB133111EB)
"""Second multiplier of the SplitMix64 finaliser."""

SEED_SALT = np.uint64(0x5EED0F61F1E5A11E)
"""Separates the seed domain from small integers before the first mix."""

STREAM_SALT = np.uint64(0xD1B54A32D192ED03)
"""Spreads stream numbers over the word before mixing them in."""

STREAM_DEAL = 1
"""Stream number of shuffles and leader lots."""

STREAM_DECISION = 2
"""Stream number of strategy decisions."""

DEAL_WORDS_PER_ROUND = 32
"""Counter budget of one round on the deal stream: 27 Fisher-Yates swaps of the
28 tiles, one leader lot, and spare words for future use."""

LOT_WORD = 27
"""Offset of the leader lot within a round's deal-stream budget."""

_LOW_32 = np.uint64(0xFFFFFFFF)
_SHIFT_32 = np.uint64(32)
_UNIT_SHIFT = np.uint64(11)
_UNIT_SCALE = 1.0 / 9007199254740992.0  # 2**-53: 53 random bits -> [0, 1)


@kernel
def mix64(word):
    """SplitMix64 finaliser.

    Parameters
    ----------
    word : uint64

    Returns
    -------
    uint64
        A bijective, avalanching scramble of ``word``.
    """
    z = np.uint64(word)
    z = (z ^ (z >> np.uint64(30))) * MIX_MULTIPLIER_1
    z = (z ^ (z >> np.uint64(27))) * MIX_MULTIPLIER_2
    return z ^ (z >> np.uint64(31))


@kernel
def stream_key(seed, match, stream):
    """Key of one random stream.

    Parameters
    ----------
    seed : int64
        Master seed, ``0 <= seed < 2**63``.
    match : int64
        Global match index (``first_match + i``).
    stream : int64
        ``STREAM_DEAL`` or ``STREAM_DECISION``.

    Returns
    -------
    uint64
    """
    key = mix64(np.uint64(seed) ^ SEED_SALT)
    key = mix64(key + np.uint64(match) * GOLDEN_GAMMA)
    key = mix64(key ^ (np.uint64(stream) * STREAM_SALT))
    return key


@kernel
def word_at(key, counter):
    """The ``counter``-th 64-bit word of the stream ``key`` (uint64)."""
    return mix64(key + (np.uint64(counter) + np.uint64(1)) * GOLDEN_GAMMA)


@kernel
def below(word, n):
    """Map a uniform 64-bit ``word`` to an int64 in ``[0, n)``, ``1 <= n < 2**31``.

    Computes ``floor(word * n / 2**64)`` from two 32-bit halves, so nothing
    overflows and no division is needed.
    """
    count = np.uint64(n)
    high = word >> _SHIFT_32
    low = word & _LOW_32
    return np.int64((high * count + ((low * count) >> _SHIFT_32)) >> _SHIFT_32)


SEAT_SALT = np.uint64(0xA0761D6478BD642F)
"""Separates the seats' decision keys."""

FEED_FORWARD_SALT = np.uint64(0xE7037ED1A0B428DB)
"""Constant of the second feed-forward step of :func:`decision_key`."""


@kernel
def one_way(word, salt):
    """``word ^ mix64(word ^ salt)``: a feed-forward step, not invertible through ``mix64``."""
    return word ^ mix64(word ^ salt)


@kernel
def decision_key(seed, match, seat):
    """Key of seat ``seat``'s decision stream in match ``match`` (uint64).

    Two feed-forward steps over the match's decision-stream key and the seat
    (see the module docstring): holding it, a strategy learns neither the
    deal key nor another seat's key.
    """
    return seat_decision_key(stream_key(seed, match, STREAM_DECISION), seat)


@kernel
def seat_decision_key(match_key, seat):
    """:func:`decision_key` from the match's decision-stream key (computed once per match)."""
    return one_way(one_way(match_key, np.uint64(seat + 1) * SEAT_SALT), FEED_FORWARD_SALT)


SECRET_SALT_1 = np.uint64(0x8EBC6AF09C88C6E3)
"""Constant of the first feed-forward step of :func:`secret_key`."""

SECRET_SALT_2 = np.uint64(0x589965CC75374CC3)
"""Constant of the second feed-forward step of :func:`secret_key`."""

NO_SECRET = np.zeros(2, dtype=np.uint64)
"""The run secret of a run without one: the seed alone decides every stream."""


@kernel
def secret_key(key, secret):
    """``key`` keyed by a run's 128-bit ``secret`` (uint64[2]); ``key`` itself when the secret
    is 0 (:data:`NO_SECRET`).

    Under ``--sealed`` the decision streams hang from the match's decision key
    keyed this way: a strategy that knows how keys are derived cannot find the
    seed and match from its own key by trying small seeds, since the secret
    (which no strategy sees) enters through two feed-forward steps.
    """
    if secret[0] == np.uint64(0) and secret[1] == np.uint64(0):
        return key
    keyed = one_way(key ^ secret[0], SECRET_SALT_1)
    return one_way(keyed ^ secret[1], SECRET_SALT_2)


@kernel
def match_decision_key(seed, match, secret):
    """The decision-stream key of match ``match`` (uint64), keyed by the run ``secret``; each
    seat's key is :func:`seat_decision_key` of it."""
    return secret_key(stream_key(seed, match, STREAM_DECISION), secret)


@kernel
def sealed_decision_key(seed, match, seat, secret):
    """:func:`decision_key` of a run with the 128-bit ``secret`` (uint64[2]; 0: no secret)."""
    return seat_decision_key(match_decision_key(seed, match, secret), seat)


@njit(cache=True)
def decision_state(seed, match, seat):
    """A fresh decision stream for one seat of one match.

    Returns
    -------
    numpy.ndarray, uint64, shape (2,)
        ``[key, counter]``; strategies advance ``counter`` as they draw.
    """
    state = np.empty(2, dtype=np.uint64)
    state[0] = decision_key(seed, match, seat)
    state[1] = np.uint64(0)
    return state


@kernel
def next_word(state):
    """Next uint64 of a ``[key, counter]`` stream state, advancing it."""
    word = word_at(state[0], state[1])
    state[1] += np.uint64(1)
    return word


@kernel
def next_below(state, n):
    """Next uniform int64 in ``[0, n)`` of a ``[key, counter]`` stream state."""
    return below(next_word(state), n)


@kernel
def next_unit(state):
    """Next uniform float64 in ``[0, 1)`` (53 random bits) of a stream state."""
    return np.float64(next_word(state) >> _UNIT_SHIFT) * _UNIT_SCALE


@hot_kernel
def shuffle_round_deal(deal_key, round_index, deal):
    """The round's deal: Fisher-Yates of the 28 tiles over round ``round_index``'s own block
    of deal-stream words (``deal`` int[28] is overwritten; seat ``s`` gets ``[5s:5s+5]``,
    the rest is the boneyard in draw order)."""
    for tile in range(N_TILES):
        deal[tile] = tile
    first_word = round_index * DEAL_WORDS_PER_ROUND
    for step in range(N_TILES - 1):
        top = N_TILES - 1 - step
        pick = below(word_at(deal_key, first_word + step), top + 1)
        swap = deal[top]
        deal[top] = deal[pick]
        deal[pick] = swap
