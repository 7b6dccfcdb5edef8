"""Rule primitives of the Numba engine: scoring, the layout, legal placements, settlements.

Every function is a :data:`core.jit.hot_kernel` (no reference counting,
inlined into its callers) over the arrays of the state contract
(:mod:`core.state`). The engine's round loop (:mod:`sim.engine.play`) and
the strategies' lookahead (:mod:`strategies.lookahead`) apply the rules through
these functions only, so a playout cannot drift from the engine's rules.

Scoring total (ruling 3), kept incrementally
--------------------------------------------
A non-double node contributes its open line-side values; a double contributes
``2v`` while at least one line side is open and 0 afterwards (its arms count 0
until played on). Placing tile ``t`` on a connection of value ``j`` changes the
total by: parent line side of a non-double ``-j``; parent line side of a double
``-2j`` only when it was the double's last open line side; parent arm ``0``;
plus the new node: ``2j`` for a double, else its open half.
"""

from __future__ import annotations

from core.bits import lowest_bit_index
from core.jit import hot_kernel
from core.state import (ARMS_PER_SPINNER, BOARD_NODES, BOARD_OPEN_NODES, BOARD_OPEN_VALUES,
    BOARD_PLAYED, BOARD_TOTAL, CAND_JOINED, CAND_PARENT, CAND_POINTS, CAND_SIDE, CAND_TILE, LINE_A,
    LINE_B, NODE_ARMS_OPEN, NODE_LINE_OPEN, NODE_TILE, NODE_VALUE_A, NODE_VALUE_B, NO_PARENT,
    ROUND_TO, SIDE_ARM, SIDE_LINE, SIDE_NONE, TILES_MATCHING, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW,
    TILE_PIPS, VALUE_TILES)
from core.tiles import N_VALUES


# ---------------------------------------------------------------------------
# Scoring helpers
# ---------------------------------------------------------------------------
@hot_kernel
def placement_points(total):
    """Raw points a layout total scores: itself if a positive multiple of 5, else 0."""
    if total > 0 and total % ROUND_TO == 0:
        return total
    return 0


@hot_kernel
def round5(amount):
    """Nearest multiple of 5, remainders 1-2 down and 3-4 up (ruling 12; amount >= 0)."""
    remainder = amount % ROUND_TO
    if remainder <= 2:
        return amount - remainder
    return amount + ROUND_TO - remainder


@hot_kernel
def hand_pips(hand):
    """Pip total of a tile bitmask."""
    pips = 0
    rest = hand
    while rest != 0:
        pips += TILE_PIPS[lowest_bit_index(rest)]
        rest &= rest - 1
    return pips


# ---------------------------------------------------------------------------
# Layout primitives
# ---------------------------------------------------------------------------
@hot_kernel
def open_layout(ws, tile):
    """Start the round's layout with the opening ``tile``; return the new total.

    The opening is node 0 with both line sides open (A = low, B = high). Its
    total is ``low + high`` in both cases of ruling 3: ``a + b`` for a
    non-double, ``2v`` counted once for a lone double.
    """
    nodes = ws.nodes
    low = TILE_LOW[tile]
    high = TILE_HIGH[tile]
    nodes[0, NODE_TILE] = tile
    nodes[0, NODE_LINE_OPEN] = LINE_A | LINE_B
    nodes[0, NODE_VALUE_A] = low
    nodes[0, NODE_VALUE_B] = high
    nodes[0, NODE_ARMS_OPEN] = 0
    open_count = ws.open_count
    for value in range(N_VALUES):
        open_count[value] = 0
    open_count[low] += 1
    open_count[high] += 1
    board = ws.board
    board[BOARD_NODES] = 1
    board[BOARD_TOTAL] = low + high
    board[BOARD_OPEN_VALUES] = (1 << low) | (1 << high)
    board[BOARD_PLAYED] = 1 << tile
    ws.open_nodes[0] = 0
    board[BOARD_OPEN_NODES] = 1
    return low + high


@hot_kernel
def parent_delta(ws, parent, side, joined):
    """The parent's part of the total change when a tile joins ``joined`` at (parent, side).

    A non-double loses the line side's value; a double stops counting ``2v``
    only when its last open line side is taken; an arm counted 0 already.
    """
    if side != SIDE_LINE:
        return 0
    if TILE_IS_DOUBLE[ws.nodes[parent, NODE_TILE]] == 1:
        if ws.nodes[parent, NODE_LINE_OPEN] != LINE_A | LINE_B:
            return -2 * joined
        return 0
    return -joined


@hot_kernel
def node_delta(tile, joined):
    """The new node's part of the total change: ``2v`` for a double, else its open half."""
    if TILE_IS_DOUBLE[tile] == 1:
        return 2 * joined
    return TILE_PIPS[tile] - joined


@hot_kernel
def placement_delta(ws, tile, parent, side, joined):
    """Change of the scoring total if ``tile`` joined ``joined`` at (parent, side)."""
    return parent_delta(ws, parent, side, joined) + node_delta(tile, joined)


@hot_kernel
def place_tile(ws, tile, parent, side, joined):
    """Play ``tile`` on node ``parent`` at ``side``, joining value ``joined``.

    Updates the nodes, open counts, open values, played set and total.

    Returns
    -------
    int64
        The new scoring total.
    """
    nodes = ws.nodes
    board = ws.board
    open_count = ws.open_count
    total = board[BOARD_TOTAL] + placement_delta(ws, tile, parent, side, joined)
    other = TILE_PIPS[tile] - joined
    if side == SIDE_LINE:
        line_open = nodes[parent, NODE_LINE_OPEN]
        if line_open & LINE_A and nodes[parent, NODE_VALUE_A] == joined:
            line_open &= ~LINE_A
        else:
            line_open &= ~LINE_B
        nodes[parent, NODE_LINE_OPEN] = line_open
        open_count[joined] -= 1
        if line_open == 0 and TILE_IS_DOUBLE[nodes[parent, NODE_TILE]] == 1:
            nodes[parent, NODE_ARMS_OPEN] = ARMS_PER_SPINNER
            open_count[joined] += ARMS_PER_SPINNER
    else:
        nodes[parent, NODE_ARMS_OPEN] -= 1
        open_count[joined] -= 1
    open_nodes = ws.open_nodes
    listed = board[BOARD_OPEN_NODES]
    if nodes[parent, NODE_LINE_OPEN] == 0 and nodes[parent, NODE_ARMS_OPEN] == 0:
        # The parent is closed for good: drop it, keeping the list in node order.
        position = 0
        while open_nodes[position] != parent:
            position += 1
        for later in range(position + 1, listed):
            open_nodes[later - 1] = open_nodes[later]
        listed -= 1
    node = board[BOARD_NODES]
    open_nodes[listed] = node  # the new node has an open line side, largest index
    board[BOARD_OPEN_NODES] = listed + 1
    nodes[node, NODE_TILE] = tile
    nodes[node, NODE_LINE_OPEN] = LINE_B
    nodes[node, NODE_VALUE_A] = joined
    nodes[node, NODE_VALUE_B] = other
    nodes[node, NODE_ARMS_OPEN] = 0
    open_count[other] += 1
    open_values = board[BOARD_OPEN_VALUES]
    if open_count[joined] > 0:
        open_values |= 1 << joined
    else:
        open_values &= ~(1 << joined)
    open_values |= 1 << other
    board[BOARD_OPEN_VALUES] = open_values
    board[BOARD_NODES] = node + 1
    board[BOARD_TOTAL] = total
    board[BOARD_PLAYED] |= 1 << tile
    return total


@hot_kernel
def _write_candidate(cands, row, tile, parent, side, joined, points):
    """Fill row ``row`` of ``cands`` (int64[MAX_CANDIDATES, CAND_FIELDS]) with one placement."""
    cands[row, CAND_TILE] = tile
    cands[row, CAND_PARENT] = parent
    cands[row, CAND_SIDE] = side
    cands[row, CAND_JOINED] = joined
    cands[row, CAND_POINTS] = points


@hot_kernel
def _add_node_candidates(ws, count, tiles, parent, side, value, total):
    """Append (tile, parent, side) for every tile of ``tiles`` carrying ``value``."""
    cands = ws.cands
    matching = tiles & VALUE_TILES[value]
    if matching == 0:
        return count
    total_without_tile = total + parent_delta(ws, parent, side, value)  # same for every tile
    while matching != 0:
        tile = lowest_bit_index(matching)
        matching &= matching - 1
        _write_candidate(cands, count, tile, parent, side, value,
                         placement_points(total_without_tile + node_delta(tile, value)))
        count += 1
    return count


@hot_kernel
def list_placements(ws, tiles):
    """Fill ``ws.cands`` with the distinct legal placements of ``tiles`` (ruling 4).

    Parameters
    ----------
    ws : Workspace
    tiles : int64
        Tile bitmask to place (a hand's playable tiles, or one drawn tile).

    Returns
    -------
    int64
        Number of candidates written, in node order then tile order (for the
        opening non-double: its low side's tiles, then its high side's).

    Notes
    -----
    A node offers line sides while any is open, arms only afterwards, so one
    node never offers both. Two open line sides of equal value (a lone opening
    double) and the two arms of a spinner are one placement. A tile matches
    at most one connection of a node: the two line sides of an opening
    ``a-b`` are both matched only by ``a-b`` itself, already on the layout.
    """
    count = 0
    nodes = ws.nodes
    total = ws.board[BOARD_TOTAL]
    open_nodes = ws.open_nodes
    for position in range(ws.board[BOARD_OPEN_NODES]):
        parent = open_nodes[position]
        line_open = nodes[parent, NODE_LINE_OPEN]
        if line_open != 0:
            value_a = nodes[parent, NODE_VALUE_A]
            value_b = nodes[parent, NODE_VALUE_B]
            if line_open & LINE_A:
                count = _add_node_candidates(ws, count, tiles, parent, SIDE_LINE, value_a, total)
            if line_open & LINE_B and not (line_open & LINE_A and value_b == value_a):
                count = _add_node_candidates(ws, count, tiles, parent, SIDE_LINE, value_b, total)
        elif nodes[parent, NODE_ARMS_OPEN] > 0:
            count = _add_node_candidates(
                ws, count, tiles, parent, SIDE_ARM, nodes[parent, NODE_VALUE_A], total
            )
    return count


@hot_kernel
def list_openings(ws, hand):
    """Fill ``ws.cands`` with one opening candidate per tile of ``hand``; return the count."""
    cands = ws.cands
    count = 0
    rest = hand
    while rest != 0:
        tile = lowest_bit_index(rest)
        rest &= rest - 1
        _write_candidate(cands, count, tile, NO_PARENT, SIDE_NONE, TILE_LOW[tile],
                         placement_points(TILE_PIPS[tile]))
        count += 1
    return count


@hot_kernel
def playable_tiles(ws):
    """Bitmask of tiles that match an open connection of the layout."""
    return TILES_MATCHING[ws.board[BOARD_OPEN_VALUES]]


@hot_kernel
def no_hand_can_play(ws, players):
    """True when no hand holds a legal placement (ruling 6: with an empty boneyard, blocked)."""
    playable = playable_tiles(ws)
    for seat in range(players):
        if ws.hands[seat] & playable:
            return False
    return True


@hot_kernel
def rank_blocked_hands(ws, players, first_seat, pips, order):
    """Blocked settlement's order (rulings 11, 13): ``pips[seat]`` = the hand's pip total,
    ``order`` = the seats by ascending total, ties clockwise from ``first_seat``
    (a stable insertion sort of the seats taken clockwise)."""
    for seat in range(players):
        pips[seat] = hand_pips(ws.hands[seat])
    for step in range(players):
        seat = (first_seat + step) % players
        position = step
        while position > 0 and pips[order[position - 1]] > pips[seat]:
            order[position] = order[position - 1]
            position -= 1
        order[position] = seat


@hot_kernel
def blocked_credit(players, entity_of_seat, pips, seat):
    """Ruling 11: round5 of the differences between ``seat``'s hand and every heavier
    opposing hand."""
    entity = entity_of_seat[seat]
    difference = 0
    for other in range(players):
        if entity_of_seat[other] != entity and pips[other] > pips[seat]:
            difference += pips[other] - pips[seat]
    return round5(difference)


@hot_kernel
def domino_parts(ws, players, entity_of_seat, seat):
    """Ruling 10: the credit and debit of ``seat``'s domino, ``(credit, debit)``.

    ``credit`` is round5 of the pips left in the opposing hands, ``debit``
    round5 of those in the partner's hand (four players; 0 otherwise). The
    event's raw is the final placement's points plus credit minus debit.
    """
    entity = entity_of_seat[seat]
    opponent_pips = 0
    partner_pips = 0
    for other in range(players):
        if other == seat:
            continue
        pips = hand_pips(ws.hands[other])
        if entity_of_seat[other] != entity:
            opponent_pips += pips
        else:
            partner_pips += pips  # only a four-player partner shares the entity
    return round5(opponent_pips), round5(partner_pips)
