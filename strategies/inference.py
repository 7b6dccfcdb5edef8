"""What the round's public history reveals about each hidden hand, tile by tile.

Not a strategy: helpers for search strategies (``matchplay``), on the sealed
view's ``history`` (:data:`core.state.H_SEAT` ...).

Why more than ``view.lacking``
------------------------------
A seat that draws holds no tile carrying an open value; every tile it draws
but keeps was unplayable too; the last drawn tile, the playable one, is placed
at once. So right after a draw the *whole* hand lacks the values open then.
The engine's ``lacking`` keeps only that latest knowledge, because the newly
drawn tiles may carry values the seat was known to lack earlier. The tiles it
held *before* the draw still lack those older values as well. This module
keeps the distinction: each hidden hand is a list of *groups*, each a count of
tiles and the value set all of them are known to lack.

Processing the history of one seat, in order:

* start of the round: one group of 5 tiles lacking nothing;
* a draw at open values ``V`` (the first of a run of draws): every group now
  lacks ``V`` too; a new group lacking exactly ``V`` receives the drawn tiles;
* a play straight after draws: the played tile is the last drawn one, so the
  new group loses one tile;
* a pass at open values ``V``: every group now lacks ``V``;
* any other play of tile ``t``: ``t`` came from a group whose lacking values
  it does not carry. If several qualify, it is taken from the most
  constrained one. That choice can only *under*-constrain the other groups
  (never exclude a hand the seat may hold) relative to the exact posterior,
  which is a mixture over the possible origins.

Groups with the same lacking set are merged. :func:`sample_grouped_world`
then deals the unseen tiles group by group, the most constrained first, each
group a uniformly random subset of the remaining tiles that carry none of its
lacking values; the rest is the boneyard in random order. Like
:func:`strategies.lookahead.sample_world` it is the sequential approximation
of the uniform distribution over consistent deals.
"""

from __future__ import annotations

from core.bits import bit_count
from core.jit import hot_kernel, kernel
from core.state import (ACTION_DRAW, ACTION_PASS, ACTION_PLAY, H_KIND, H_OPEN, H_SEAT,
    H_TILE, TILES_MATCHING, VALUE_TILES)
from core.tiles import HAND_SIZE, N_TILES, N_VALUES
from strategies.lookahead import deal_boneyard, draw_hand, start_world

MAX_GROUPS = 15
"""Groups kept per seat: one per run of draws plus the dealt tiles, merged by lacking set
(in practice a handful per round). 4 seats x 15 groups fit one int64 of flags."""


@hot_kernel
def tile_values(tile):
    """Value set carried by ``tile``."""
    values = 0
    for value in range(N_VALUES):
        if VALUE_TILES[value] >> tile & 1:
            values |= 1 << value
    return values


@hot_kernel
def _add_group(counts, lacks, n_groups, count, lack):
    """Append a group, or merge it into one with the same lacking set; return the new length."""
    for g in range(n_groups):
        if lacks[g] == lack:
            counts[g] += count
            return n_groups
    if n_groups < MAX_GROUPS:
        counts[n_groups] = count
        lacks[n_groups] = lack
        return n_groups + 1
    # Out of room: fold into the least constrained group (weaker knowledge, never wrong).
    loosest = 0
    for g in range(n_groups):
        if bit_count(lacks[g]) < bit_count(lacks[loosest]):
            loosest = g
    counts[loosest] += count
    lacks[loosest] &= lack
    return n_groups


@kernel
def hand_groups(view, seat, counts, lacks):
    """The groups of ``seat``'s hidden hand from ``view.history`` (module docstring).

    Parameters
    ----------
    view : PlayerView
    seat : int64
        Another seat of the table.
    counts, lacks : int64[MAX_GROUPS]
        Filled: group ``g`` holds ``counts[g]`` tiles, each carrying no value of
        the value set ``lacks[g]``.

    Returns
    -------
    int64
        Number of groups. Their counts add up to ``view.hand_sizes[seat]``;
        if they do not (a history this module does not understand), one group
        of the whole hand lacking ``view.lacking[seat]`` is returned instead.

    Raises
    ------
    IndexError
        ``seat`` is not a seat of the table, or ``counts`` / ``lacks`` hold fewer
        than ``MAX_GROUPS`` entries (compiled apart, this kernel checks its arguments).
    """
    if seat < 0 or seat >= view.players:
        raise IndexError("hand_groups: seat is not a seat of the table")
    if counts.shape[0] < MAX_GROUPS or lacks.shape[0] < MAX_GROUPS:
        raise IndexError("hand_groups: counts and lacks need MAX_GROUPS entries")
    n_groups = 1
    counts[0] = HAND_SIZE
    lacks[0] = 0
    drawing = -1  # group receiving the current run of draws, -1 outside a run
    history = view.history
    for row in range(view.n_history):
        if history[row, H_SEAT] != seat:
            continue
        kind = history[row, H_KIND]
        open_values = history[row, H_OPEN]
        if kind == ACTION_DRAW:
            if drawing < 0:
                for g in range(n_groups):
                    lacks[g] |= open_values
                n_groups = _add_group(counts, lacks, n_groups, 0, open_values)
                for g in range(n_groups):
                    if lacks[g] == open_values:
                        drawing = g
            counts[drawing] += 1
        elif kind == ACTION_PASS:
            for g in range(n_groups):
                lacks[g] |= open_values
            drawing = -1
        elif kind == ACTION_PLAY:
            if drawing >= 0:
                counts[drawing] -= 1  # the playable tile drawn last is the one placed
            else:
                values = tile_values(history[row, H_TILE])
                source = -1
                for g in range(n_groups):
                    if counts[g] > 0 and values & lacks[g] == 0:
                        if source < 0 or bit_count(lacks[g]) > bit_count(lacks[source]):
                            source = g
                if source < 0:  # cannot happen for engine histories; keep the counts right
                    for g in range(n_groups):
                        if counts[g] > 0 and (source < 0 or counts[g] > counts[source]):
                            source = g
                    lacks[source] = 0
                counts[source] -= 1
            drawing = -1
    total = 0
    for g in range(n_groups):
        total += counts[g]
    if total != view.hand_sizes[seat]:
        counts[0] = view.hand_sizes[seat]
        lacks[0] = view.lacking[seat]
        return 1
    return n_groups


@kernel
def sample_grouped_world(ws, view, rng, counts, lacks, n_groups):
    """Deal the unseen tiles into ``ws`` consistently with every seat's groups.

    Parameters
    ----------
    ws : Workspace
        Scratch: receives every seat's hand and hand size and the boneyard,
        shuffled, in ``ws.deal[N_TILES - boneyard_size:]``.
    view : PlayerView
    rng : uint64[2]
        The decision stream to draw from.
    counts, lacks : int64[4, MAX_GROUPS]
        Row ``s``: seat ``s``'s groups (:func:`hand_groups`; the deciding
        seat's row is ignored).
    n_groups : int64[4]
        Groups per seat.

    Returns
    -------
    int64
        Index of the first boneyard tile in ``ws.deal`` (the draw pointer).

    Raises
    ------
    IndexError
        ``counts`` / ``lacks`` smaller than [players, MAX_GROUPS], ``n_groups``
        shorter than the table or a count above ``MAX_GROUPS`` (compiled apart, this
        kernel checks its arguments).
    """
    players = view.players
    if counts.shape[0] < players or lacks.shape[0] < players or n_groups.shape[0] < players \
            or counts.shape[1] < MAX_GROUPS or lacks.shape[1] < MAX_GROUPS:
        raise IndexError("sample_grouped_world: counts, lacks need [players, MAX_GROUPS], n_groups [players]")
    for seat in range(players):
        if n_groups[seat] < 0 or n_groups[seat] > MAX_GROUPS:
            raise IndexError("sample_grouped_world: a group count is outside 0..MAX_GROUPS")
    me = view.seat
    remaining = start_world(ws, view)
    pending = 0
    for seat in range(players):
        if seat != me:
            pending += n_groups[seat]
    done = 0  # bit seat * MAX_GROUPS + g: group g of seat already dealt
    for _ in range(pending):
        # Most constrained group first: smallest slack (tiles it may take - tiles it needs).
        pick_seat = -1
        pick_group = -1
        pick_slack = N_TILES + 1
        for seat in range(players):
            if seat == me:
                continue
            for g in range(n_groups[seat]):
                if done >> (seat * MAX_GROUPS + g) & 1:
                    continue
                allowed = remaining & ~TILES_MATCHING[lacks[seat, g]]
                slack = bit_count(allowed) - counts[seat, g]
                if slack < pick_slack:
                    pick_seat = seat
                    pick_group = g
                    pick_slack = slack
        done |= 1 << (pick_seat * MAX_GROUPS + pick_group)
        allowed = remaining & ~TILES_MATCHING[lacks[pick_seat, pick_group]]
        if bit_count(allowed) < counts[pick_seat, pick_group]:
            allowed = remaining  # squeezed by an earlier group's draw: take any tile
        hand, remaining = draw_hand(allowed, remaining, counts[pick_seat, pick_group], rng)
        ws.hands[pick_seat] |= hand
    return deal_boneyard(ws, remaining, rng)


__all__ = ["MAX_GROUPS", "tile_values", "hand_groups", "sample_grouped_world"]
