"""Forced openings: each tile of the leader's hand forced as the opening, the round played out.

:func:`opening_counterfactual` wraps the forced-opening playouts
(:func:`sim.study_kernels.dealt_rounds.opening_counterfactual`, compiled for the
run's strategies by their engine): for the leader's 5-tile
hands, each tile forced as the opening and the round played out many times
with one strategy at every seat, the unseen tiles re-dealt for every playout
(the same re-deals for the five tiles of a hand). :func:`sample_hands` and
:func:`engine_deal` give the engine's deals; :func:`replay_round` plays one
round from a given deal (testing the playouts' round loop against the
engine). Every figure is a pure function of ``(seed, hand index, playout)``
and the strategies.

Score states: ``scores=`` plays every round from the given raw scores instead
of 0 (the same kernel, deals, decision streams and round loop). Each playout
is valued both by the leader's round differential and by the leader's side's
match-win probability after the round (:func:`win_probability`, the shipped
table :data:`strategies.winprob_table.WIN_TABLE`, 2 and 4 players). The table cell each playout
ends in is kept (:attr:`OpeningCounterfactual.cells`), so every value can be computed again under
each of the table's replicates (:meth:`OpeningCounterfactual.with_table`): the table's own error.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from core.checks import check_int
from core import state as K
from core.rng import stream_key, word_at
from sim.engine.batch import run_blocks, thread_count
from sim.engine.compile_cache import ensure_fresh
from sim.engine.compiled import CompiledRun
from sim.engine.frames import TILE_NAMES
from sim.engine.spec import RunSpec
from sim.progress import progress_bar
from sim.study_kernels import dealt_rounds as DR
from core.tiles import HAND_SIZE, N_TILES, TARGET_RAW, TILE_INDEX, entity_count
from strategies import winprob_table

__all__ = [
    "OpeningCounterfactual",
    "counterfactual_deal",
    "engine_deal",
    "hand_mask",
    "opening_counterfactual",
    "replay_round",
    "sample_hands",
    "TableSpread",
    "opening_gains",
    "playout_cells",
    "table_spread",
    "table_cells",
    "table_half_width",
    "values_at",
    "win_probability",
]

VALUES = ("diff", "win_prob")
"""What a playout is worth: the leader's round differential (displayed points) or the leader's
side's match-win probability after the round (:func:`win_probability`)."""

TABLE_ROW = {2: 0, 4: 1}
"""First index of :data:`strategies.winprob_table.WIN_TABLE` by player count (no 3-player table)."""

LEAD_OWN, LEAD_OTHER, LEAD_LOT = 0, 1, 2
"""``WIN_TABLE`` lead index: the leader's side leads the next round, the other side does, or
the lead is drawn by lot (after a blocked round; also used once the match is over, where the
table's 61 rows make the lead irrelevant)."""

RAW_PER_CELL = 5
"""Raw points per displayed point (the table's cells are displayed scores)."""


# ---------------------------------------------------------------------------
# Deals and hands
# ---------------------------------------------------------------------------
def engine_deal(seed: int, match: int, round_index: int = 0) -> np.ndarray:
    """The engine's 28 shuffled tile indices of a round: seat ``s`` gets ``[5s:5s+5]``."""
    out = np.zeros(N_TILES, dtype=np.int64)
    ensure_fresh(DR, DR.engine_deal)
    DR.engine_deal(np.int64(seed), np.int64(match), np.int64(round_index), out)
    return out


def sample_hands(seed: int, n: int, first: int = 0) -> np.ndarray:
    """Bitmasks of seat 0's round-0 hands in matches ``first .. first+n-1`` of ``seed``.

    Each is a uniformly random 5-tile hand; distinct indices give independent hands.
    """
    out = np.zeros(int(n), dtype=np.int64)
    ensure_fresh(DR, DR.engine_deal)
    DR.sample_hands(np.int64(seed), np.int64(first), np.int64(n), out)
    return out


def counterfactual_deal(seed: int, hand_id: int, hand: int, playout: int) -> np.ndarray:
    """The 28-tile deal of one counterfactual playout: the hand (ascending), then the re-dealt rest.

    Seat 0 holds ``[0:5]``, seat ``s`` holds ``[5s:5s+5]``, the boneyard follows.
    """
    tiles = hand_tiles(hand)
    unseen = np.array([t for t in range(N_TILES) if t not in tiles], dtype=np.int64)
    out = np.zeros(unseen.size, dtype=np.int64)
    key = np.uint64(word_at(
        np.uint64(stream_key(np.int64(seed), np.int64(hand_id), np.int64(DR.STREAM_CF_DEAL))),
        np.int64(playout)))
    ensure_fresh(DR, DR.engine_deal)
    DR.redeal(unseen, np.int64(unseen.size), key, out)
    return np.concatenate([np.array(tiles, dtype=np.int64), out])


def _tile_of(item) -> int:
    if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
        if not 0 <= int(item) < N_TILES:
            raise ValueError(f"tile index {item} is not in 0..27")
        return int(item)
    if isinstance(item, str):
        parts = item.replace(":", "-").split("-")
        try:
            pair = (int(parts[0]), int(parts[1]))
        except (ValueError, IndexError):
            raise ValueError(f"cannot read tile {item!r} (write it like '3-5')") from None
    else:
        try:
            pair = (int(item[0]), int(item[1]))
        except (TypeError, ValueError, IndexError):
            raise ValueError(f"cannot read tile {item!r}") from None
    if pair not in TILE_INDEX:
        raise ValueError(f"no tile {pair[0]}-{pair[1]} in a double-six set")
    return TILE_INDEX[pair]


def hand_mask(tiles) -> int:
    """Bitmask of a 5-tile hand given as names ("3-5"), (a, b) pairs or tile indices."""
    indices = [_tile_of(t) for t in tiles]
    if len(indices) != HAND_SIZE or len(set(indices)) != HAND_SIZE:
        raise ValueError(f"a hand is {HAND_SIZE} distinct tiles, got {list(tiles)!r}")
    mask = 0
    for t in indices:
        mask |= 1 << t
    return mask


def hand_tiles(mask: int) -> list[int]:
    """Tile indices of a bitmask, ascending."""
    return [t for t in range(N_TILES) if (int(mask) >> t) & 1]


# ---------------------------------------------------------------------------
# Match-win value of the state a round leaves
# ---------------------------------------------------------------------------
def next_lead(winners: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``WIN_TABLE`` lead index of the round after each playout (seat 0's entity 0 leads this one).

    Ruling 14: after a domino the dominoer leads (its entity is the round's
    winner), after a blocked round the lead is drawn by lot. A round that ended
    the match (``END_TARGET``) gets ``LEAD_LOT``: the table's 61 rows hold 1 or 0
    whatever the lead.
    """
    winners = np.asarray(winners)
    domino = np.asarray(ends) == K.END_DOMINO
    return np.where(domino, np.where(winners == 0, LEAD_OWN, LEAD_OTHER), LEAD_LOT).astype(np.int8)


def table_cells(players: int, own_raw, other_raw, lead) -> np.ndarray:
    """The cell of the own side's state in the shipped table of ``players``: a flat index into
    ``WIN_TABLE[row]`` (float[62, 62, 3]), or -1 at 3 players (no table).

    Parameters
    ----------
    players : int
        2 or 4 (3 players: no table, all -1).
    own_raw, other_raw : array_like of int
        The two sides' raw scores (any matching shapes). Below 0 (the 4-player
        partner debit) is looked up as 0, as :mod:`strategies.matchplay` does; a
        side on 305 raw (61 displayed) has won (the table holds 1 and 0 there).
    lead : array_like of int
        ``LEAD_OWN``, ``LEAD_OTHER`` or ``LEAD_LOT``.

    Returns
    -------
    ndarray int32 (broadcast shape)
    """
    own = np.asarray(own_raw, dtype=np.int64)
    other = np.asarray(other_raw, dtype=np.int64)
    lead = np.asarray(lead, dtype=np.int64)
    shape = np.broadcast_shapes(own.shape, other.shape, lead.shape)
    if players not in TABLE_ROW:
        return np.full(shape, -1, dtype=np.int32)
    if (own > TARGET_RAW).any() or (other > TARGET_RAW).any():
        raise ValueError(f"a score above {TARGET_RAW} raw cannot occur")
    side = TARGET_RAW // RAW_PER_CELL + 1
    own_cell = np.maximum(own, 0) // RAW_PER_CELL
    other_cell = np.maximum(other, 0) // RAW_PER_CELL
    return np.broadcast_to((own_cell * side + other_cell) * 3 + lead, shape).astype(np.int32)


def values_at(players: int, cells, table=None) -> np.ndarray:
    """float64 values of ``table`` (float[2, 62, 62, 3]; default the shipped
    :data:`~strategies.winprob_table.WIN_TABLE`) at :func:`table_cells` of ``players``
    (NaN where a cell is -1)."""
    cells = np.asarray(cells)
    if players not in TABLE_ROW:
        return np.full(cells.shape, np.nan)
    table = winprob_table.WIN_TABLE if table is None else table
    flat = np.asarray(table[TABLE_ROW[players]], dtype=np.float64).ravel()
    return np.where(cells >= 0, flat[np.maximum(cells, 0)], np.nan)


def win_probability(players: int, own_raw, other_raw, lead) -> np.ndarray:
    """The own side's match-win probability at the start of a round, from the shipped table:
    ``WIN_TABLE[row, own // 5, other // 5, lead]`` (arguments as :func:`table_cells`; all NaN at
    3 players)."""
    return values_at(players, table_cells(players, own_raw, other_raw, lead))


def table_half_width(players: int, top: int = TARGET_RAW // RAW_PER_CELL - 1) -> float:
    """The largest 95% interval half-width of the shipped table's values at ``players`` over
    the cells with both scores ``0 .. top`` displayed (default 60: every state a round starts
    from), from :data:`~strategies.winprob_table.WIN_TABLE_HALF_WIDTH`; nan at 3 players."""
    if players not in TABLE_ROW:
        return float("nan")
    half = winprob_table.WIN_TABLE_HALF_WIDTH
    cells = np.asarray(half, dtype=np.float64)[TABLE_ROW[players], : top + 1, : top + 1]
    return float(np.nanmax(cells)) if np.isfinite(cells).any() else float("nan")


def playout_cells(players: int, start, gains: np.ndarray, winners: np.ndarray,
                  ends: np.ndarray) -> np.ndarray:
    """The table cell (:func:`table_cells`) of the leader's side's state after each playout.

    ``start`` (int64[MAX_ENTITIES]): raw scores before the round; ``gains``
    (int32[..., MAX_ENTITIES]): each entity's raw gain in the round;
    ``winners``, ``ends`` (int8[...]). With 2 players and 4 (partnerships) the
    sides are entities 0 (the leader's) and 1. Returns int32[...] (-1 at 3 players).
    """
    own = int(start[0]) + gains[..., 0].astype(np.int64)
    other = int(start[1]) + gains[..., 1].astype(np.int64)
    return table_cells(players, own, other, next_lead(winners, ends))


# ---------------------------------------------------------------------------
# Counterfactual openings
# ---------------------------------------------------------------------------
@dataclass
class OpeningCounterfactual:
    """Result of :func:`opening_counterfactual`.

    Attributes
    ----------
    players, strategy, baseline, seed, playouts
        The settings.
    hands : ndarray int64[H]
        The leader's hands (bitmasks); ``hand_ids`` their random-stream indices.
    tiles : ndarray int64[H, 5]
        Each hand's tiles, ascending: slot ``i`` is the ``i``-th lowest.
    baseline_tile : ndarray int64[H]
        The tile the baseline strategy opens with.
    diff : ndarray float64[H, 5, playouts]
        The leader's round point differential in displayed points: the
        leader's entity's accepted raw gain minus the mean gain of the
        opposing entities, divided by 5.
    leader_won : ndarray bool[H, 5, playouts]
        The round was won by the leader's entity.
    ends : ndarray int8[H, 5, playouts]
        Round end kind (0 domino, 1 blocked, 2 target).
    win_prob : ndarray float32[H, 5, playouts] or None
        The leader's side's match-win probability after the round, from the shipped table
        (NaN at 3 players; None when rebuilt from a frame without it).
    start_scores : tuple of int
        Raw scores by entity before the round (the leader's entity first).
    cells : ndarray int32[H, 5, playouts] or None
        The table cell the round leaves the leader's side in (:func:`playout_cells`; -1 at 3
        players): :meth:`with_table` values the playouts under another table.
    """

    players: int
    strategy: str
    baseline: str
    seed: int
    playouts: int
    hands: np.ndarray
    hand_ids: np.ndarray
    tiles: np.ndarray
    baseline_tile: np.ndarray
    diff: np.ndarray
    leader_won: np.ndarray
    ends: np.ndarray
    win_prob: np.ndarray | None = None
    start_scores: tuple = ()
    cells: np.ndarray | None = None

    def with_table(self, table) -> OpeningCounterfactual:
        """The same playouts with their match-win values read from ``table`` (float[2, 62, 62,
        3], e.g. one of :func:`strategies.winprob_table.replicate_tables`) instead of the
        shipped one."""
        if self.cells is None:
            raise ValueError("this counterfactual holds no table cells")
        return replace(self, win_prob=values_at(self.players, self.cells, table).astype(
            np.float32))

    def values(self, value: str = "diff") -> np.ndarray:
        """The playouts' values, float[H, 5, playouts]: ``"diff"`` (:attr:`diff`, displayed
        points) or ``"win_prob"`` (:attr:`win_prob`)."""
        if value == "diff":
            return self.diff
        if value == "win_prob":
            if self.win_prob is None:
                raise ValueError("this counterfactual holds no win probabilities")
            return self.win_prob
        raise ValueError(f"value is one of {VALUES}, got {value!r}")

    def to_frame(self) -> pd.DataFrame:
        """Every playout as one row (the lossless long form; :meth:`from_frame` inverts it).

        Columns: ``hand`` (random-stream id), ``mask`` (the hand's bitmask),
        ``slot`` (0-4, the tile's rank in the hand), ``playout``, ``tile``
        (index), ``baseline_tile``, ``diff``, ``leader_won``, ``end`` and, when held,
        ``win_prob``; rows in
        (hand, slot, playout) order. The settings are not columns: the caller
        keeps them (e.g. in a shard manifest).
        """
        h, s, k = self.diff.shape
        per_hand = s * k
        frame = pd.DataFrame({
            "hand": np.repeat(self.hand_ids, per_hand),
            "mask": np.repeat(self.hands, per_hand),
            "slot": np.tile(np.repeat(np.arange(s, dtype=np.int8), k), h),
            "playout": np.tile(np.arange(k, dtype=np.int32), h * s),
            "tile": np.repeat(self.tiles.ravel(), k).astype(np.int8),
            "baseline_tile": np.repeat(self.baseline_tile, per_hand).astype(np.int8),
            "diff": self.diff.ravel(),
            "leader_won": self.leader_won.ravel(),
            "end": self.ends.ravel(),
        })
        if self.win_prob is not None:
            frame["win_prob"] = self.win_prob.ravel()
        if self.cells is not None:
            frame["cell"] = self.cells.ravel()
        return frame

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, players: int, strategy: str, baseline: str,
                   seed: int, start_scores=()) -> OpeningCounterfactual:
        """Rebuild the result from :meth:`to_frame` rows (e.g. shards concatenated in order)."""
        first = frame[(frame["slot"] == 0) & (frame["playout"] == 0)]
        h = len(first)
        playouts = int(frame["playout"].max()) + 1 if len(frame) else 0
        if h == 0 or len(frame) != h * HAND_SIZE * playouts:
            raise ValueError(f"a counterfactual frame needs {HAND_SIZE} x playouts rows per hand "
                             f"(found {len(frame)} rows for {h} hands)")
        shape = (h, HAND_SIZE, playouts)
        return cls(
            players=int(players), strategy=strategy, baseline=baseline, seed=int(seed),
            playouts=playouts,
            hands=first["mask"].to_numpy(np.int64),
            hand_ids=first["hand"].to_numpy(np.int64),
            tiles=frame["tile"].to_numpy(np.int64)[::playouts].reshape(h, HAND_SIZE),
            baseline_tile=first["baseline_tile"].to_numpy(np.int64),
            diff=frame["diff"].to_numpy(np.float64).reshape(shape),
            leader_won=frame["leader_won"].to_numpy(bool).reshape(shape),
            ends=frame["end"].to_numpy(np.int8).reshape(shape),
            win_prob=(frame["win_prob"].to_numpy(np.float32).reshape(shape)
                      if "win_prob" in frame else None),
            start_scores=tuple(int(v) for v in start_scores),
            cells=frame["cell"].to_numpy(np.int32).reshape(shape) if "cell" in frame else None,
        )

    def per_tile(self, value: str = "diff") -> pd.DataFrame:
        """One row per (hand, tile): mean value over the playouts and its standard error.

        ``value`` (:meth:`values`) chooses what ``mean_diff`` and ``se`` measure.
        """
        data = self.values(value)
        h, s, k = data.shape
        mean = data.mean(axis=2, dtype=np.float64)
        se = (data.std(axis=2, ddof=1, dtype=np.float64) / np.sqrt(k) if k > 1
              else np.full((h, s), np.nan))
        best = mean.argmax(axis=1)
        return pd.DataFrame({
            "hand": np.repeat(self.hand_ids, s),
            "slot": np.tile(np.arange(s), h),
            "tile": pd.Categorical.from_codes(self.tiles.ravel(), TILE_NAMES),
            "mean_diff": mean.ravel(),
            "se": se.ravel(),
            "round_win_rate": self.leader_won.mean(axis=2).ravel(),
            "is_best": (np.arange(s)[None, :] == best[:, None]).ravel(),
            "is_baseline": (self.tiles == self.baseline_tile[:, None]).ravel(),
        })

    def per_hand(self, value: str = "diff") -> pd.DataFrame:
        """One row per hand: the best opening, the baseline's, and the gain of the best.

        ``gain`` is the best tile's mean minus the baseline tile's mean over
        all playouts (biased upward: the best of five noisy means). The
        held-out ``gain_heldout`` picks the best tile on the even-numbered
        playouts and measures it against the baseline on the odd ones: an
        unbiased estimate of what following a selection made on half the
        playouts is worth, so biased low for the selection made on all of
        them (:meth:`gain_by_playouts` shows both ends against the playouts).
        ``value`` (:meth:`values`) chooses what the means measure.
        """
        data = self.values(value)
        h, _s, k = data.shape
        mean = data.mean(axis=2, dtype=np.float64)
        best = mean.argmax(axis=1)
        rows = np.arange(h)
        base_slot = self.baseline_slot()
        frame = pd.DataFrame({
            "hand": self.hand_ids,
            "tiles": [" ".join(TILE_NAMES[t] for t in row) for row in self.tiles],
            "best_tile": pd.Categorical.from_codes(self.tiles[rows, best], TILE_NAMES),
            "best_mean": mean[rows, best],
            "baseline_tile": pd.Categorical.from_codes(self.baseline_tile, TILE_NAMES),
            "baseline_mean": mean[rows, base_slot],
            "gain": mean[rows, best] - mean[rows, base_slot],
            "baseline_is_best": best == base_slot,
        })
        if k >= 2:
            even = data[:, :, 0::2].mean(axis=2, dtype=np.float64)
            odd = data[:, :, 1::2].mean(axis=2, dtype=np.float64)
            frame["gain_heldout"] = opening_gains(mean, even, odd, base_slot)[1]
        else:
            frame["gain_heldout"] = np.nan
        return frame

    def baseline_slot(self) -> np.ndarray:
        """int64[H]: the slot (0-4) of the tile the baseline opens with."""
        return (self.tiles == self.baseline_tile[:, None]).argmax(axis=1)

    def gain_by_playouts(self, counts, value: str = "diff") -> pd.DataFrame:
        """Per hand, the gain of the best opening over the baseline's from the first ``m`` playouts.

        For each ``m`` of ``counts`` (each 2 .. :attr:`playouts`; the first ``m``
        playouts are a subset of the same re-deals), ``gain`` picks and measures
        the best tile on all ``m`` (in-sample, biased high) and
        ``gain_heldout`` picks on the even-numbered and measures on the
        odd-numbered of them (held out, biased low for a pick made on ``m``).
        At ``m = playouts`` they are :meth:`per_hand`'s ``gain`` and
        ``gain_heldout``. Columns ``playouts``, ``hand``, ``gain``,
        ``gain_heldout``, ``baseline_is_best``.
        """
        data = self.values(value)
        k = data.shape[2]
        base = self.baseline_slot()
        parts = []
        for m in counts:
            m = int(m)
            if not 2 <= m <= k:
                raise ValueError(f"playout counts must be within 2..{k}, got {m}")
            mean = data[:, :, :m].mean(axis=2, dtype=np.float64)
            even = data[:, :, 0:m:2].mean(axis=2, dtype=np.float64)
            odd = data[:, :, 1:m:2].mean(axis=2, dtype=np.float64)
            gain, heldout, same = opening_gains(mean, even, odd, base)
            parts.append(pd.DataFrame({
                "playouts": m, "hand": self.hand_ids, "gain": gain, "gain_heldout": heldout,
                "baseline_is_best": same,
            }))
        return pd.concat(parts, ignore_index=True)


def opening_gains(mean: np.ndarray, even: np.ndarray, odd: np.ndarray, base: np.ndarray):
    """Per hand, from its five openings' means over some playouts (float[H, 5]: all of them,
    the even-numbered, the odd-numbered) and the baseline's slot: the in-sample gain of the
    best opening over the baseline's (picked and measured on all), the held-out gain (picked on
    the even, measured on the odd) and whether the baseline's opening is the best.

    Returns
    -------
    gain, heldout : ndarray float64[H]
    baseline_is_best : ndarray bool[H]
    """
    rows = np.arange(mean.shape[0])
    best = mean.argmax(axis=1)
    pick = even.argmax(axis=1)
    return (mean[rows, best] - mean[rows, base], odd[rows, pick] - odd[rows, base],
            best == base)


@dataclass
class TableSpread:
    """A counterfactual's match-win figures recomputed under each of ``R`` replicate tables
    (:func:`table_spread`): the spread of anything computed from them is the table's error.

    Attributes
    ----------
    counts : tuple of int
        The playout counts of the gains (as :meth:`OpeningCounterfactual.gain_by_playouts`).
    slot_means : ndarray float32[R, H, 5]
        Each opening's mean over all playouts.
    gain, heldout : ndarray float32[R, len(counts), H]
        The gains of :func:`opening_gains` from the first ``m`` playouts of each count.
    baseline_is_best : ndarray bool[R, len(counts), H]
    """

    counts: tuple
    slot_means: np.ndarray
    gain: np.ndarray
    heldout: np.ndarray
    baseline_is_best: np.ndarray


def table_spread(result: OpeningCounterfactual, tables, counts) -> TableSpread:
    """:class:`TableSpread` of ``result`` (which holds its table cells) under each of ``tables``
    (float[R, 2, 62, 62, 3])."""
    counts = tuple(int(m) for m in counts)
    h, s, k = result.cells.shape
    r_count = len(tables)
    slot_means = np.zeros((r_count, h, s), dtype=np.float32)
    shape = (r_count, len(counts), h)
    gain, heldout = np.zeros(shape, dtype=np.float32), np.zeros(shape, dtype=np.float32)
    same = np.zeros(shape, dtype=bool)
    base = result.baseline_slot()
    for r, table in enumerate(tables):
        values = values_at(result.players, result.cells, table)
        whole = np.cumsum(values, axis=2)
        even = np.cumsum(values[..., 0::2], axis=2)
        odd = np.cumsum(values[..., 1::2], axis=2)
        slot_means[r] = whole[..., -1] / k
        for i, m in enumerate(counts):
            n_even, n_odd = (m + 1) // 2, m // 2
            gain[r, i], heldout[r, i], same[r, i] = opening_gains(
                whole[..., m - 1] / m, even[..., n_even - 1] / n_even, odd[..., n_odd - 1] / n_odd,
                base)
    return TableSpread(counts, slot_means, gain, heldout, same)


def opening_counterfactual(
    players: int,
    strategy: str = "greedy",
    hands=200,
    playouts: int = 100,
    seed: int = 0,
    baseline: str = "greedy",
    first_hand: int = 0,
    threads: int | None = None,
    progress: bool = False,
    on_chunk=None,
    scores=None,
    secret=None,
    field=None,
) -> OpeningCounterfactual:
    """Force each tile of the leader's hand as the opening and play the round out.

    Parameters
    ----------
    players : int
        2, 3 or 4; seat 0 leads with the hand, every seat plays ``strategy``.
    strategy : str
        The fixed strategy of the playouts.
    hands : int or sequence
        A number of hands to sample (seat 0's round-0 hands of matches
        ``first_hand ..`` of ``seed``: uniform random hands), or explicit
        hands, each 5 tiles as names ("3-5"), pairs or indices.
    playouts : int
        Playouts per (hand, tile); the unseen 23 tiles are re-dealt for each,
        identically for the five tiles of a hand.
    seed : int
    baseline : str
        The strategy whose opening is compared with the best one.
    first_hand : int
        Random-stream index of the first hand.
    threads : int, optional
    progress : bool
        tqdm bar over hands.
    on_chunk : callable, optional
        Called with the number of hands finished after each chunk.
    scores : sequence of int, optional
        Raw scores by entity before the round (entity 0 is the leader's;
        default all 0). The baseline chooses its opening at these scores, and
        the rounds are played from them, so the same hand, re-deals and
        decisions are compared across score states.
    secret : str, optional
        A run secret (32 hexadecimal digits) keying the decision streams
        (``--sealed``); default none: the seed alone decides.
    field : sequence, optional
        More strategies compiled into the same kernels, as in
        :func:`sim.simulate` (a later study of any of them loads these kernels
        instead of compiling its own set); the results are the same.

    Returns
    -------
    OpeningCounterfactual
    """
    setup = RunSpec.build(players, [strategy] * players, 1, seed, max_rounds=1, threads=threads)
    base = RunSpec.build(players, [baseline] * players, 1, seed, max_rounds=1, threads=threads)
    start_scores = _start_scores(players, scores)
    # One engine for both strategies: the kernel plays the baseline's opening and the playouts.
    joint = CompiledRun(RunSpec.build(2, [setup.strategies[0], base.strategies[0]], 1, seed,
                                      max_rounds=1, threads=threads, secret=secret, field=field),
                        kernels=("opening_counterfactual",), template=DR)
    secret_words = joint.spec.secret_words
    if joint.spec.python_seats:
        raise ValueError("the opening counterfactual needs compiled strategies (not compiled=False)")
    seat_slots = np.full(players, joint.strategy_ids[0], dtype=np.int64)
    base_slots = np.full(players, joint.strategy_ids[1], dtype=np.int64)
    counterfactual = joint.engine.kernels(DR).opening_counterfactual
    playouts = check_int(playouts, "playouts", 1)
    first_hand = check_int(first_hand, "first_hand", 0)
    if isinstance(hands, (int, np.integer)) and not isinstance(hands, bool):
        masks = sample_hands(setup.seed, check_int(hands, "hands", 1), first_hand)
    else:
        masks = np.array([hand_mask(h) for h in hands], dtype=np.int64)
        if masks.size == 0:
            raise ValueError("no hands given")
    hand_ids = np.arange(first_hand, first_hand + masks.size, dtype=np.int64)
    n = masks.size
    width = max(setup.params.shape[1], base.params.shape[1])
    params = np.zeros((players, width))
    params[:, : setup.params.shape[1]] = setup.params
    base_params = np.zeros((players, width))
    base_params[:, : base.params.shape[1]] = base.params
    baseline_out = np.zeros(n, dtype=np.int64)
    gains = np.zeros((n, HAND_SIZE, playouts, K.MAX_ENTITIES), dtype=np.int32)
    winners = np.zeros((n, HAND_SIZE, playouts), dtype=np.int8)
    ends = np.zeros((n, HAND_SIZE, playouts), dtype=np.int8)
    errors = np.zeros(n, dtype=np.int64)
    with thread_count(setup.threads) as active, progress_bar(n, progress, unit="hand") as bar:
        size = max(1, min(n, 16 * active))
        for start in range(0, n, size):
            stop = min(n, start + size)
            chunk = (masks[start:stop], hand_ids[start:stop], seat_slots, params,
                     base_slots, base_params, np.int64(playouts), start_scores)
            outputs = (baseline_out[start:stop], gains[start:stop], winners[start:stop],
                       ends[start:stop], errors[start:stop])
            run_blocks(
                lambda a, b, chunk=chunk, outputs=outputs: counterfactual(
                    np.int64(setup.seed), np.int64(players), *chunk, np.int64(a), np.int64(b),
                    *outputs, secret_words),
                stop - start, active)
            bar.update(stop - start)
            if on_chunk is not None:
                on_chunk(stop - start)
    if errors.any():
        bad = int(errors[np.flatnonzero(errors)[0]]) - 1
        name = joint.slot_name(bad)
        raise RuntimeError(f"strategy {name!r} returned a row that is not one of its candidates in "
                           "the opening counterfactual")
    n_entities = setup.n_entities
    leader_gain = gains[..., 0].astype(np.float64)
    opponents = gains[..., 1:n_entities].astype(np.float64).mean(axis=-1)
    tiles = np.array([hand_tiles(m) for m in masks], dtype=np.int64).reshape(n, HAND_SIZE)
    cells = playout_cells(setup.players, start_scores, gains, winners, ends)
    return OpeningCounterfactual(
        players=setup.players, strategy=setup.names[0], baseline=base.names[0], seed=setup.seed,
        playouts=playouts, hands=masks, hand_ids=hand_ids, tiles=tiles,
        baseline_tile=baseline_out, diff=(leader_gain - opponents) / 5.0,
        leader_won=winners == 0, ends=ends,
        win_prob=values_at(setup.players, cells).astype(np.float32),
        start_scores=tuple(int(v) for v in start_scores[:n_entities]), cells=cells,
    )


def _start_scores(players: int, scores) -> np.ndarray:
    """int64[MAX_ENTITIES] raw start scores from ``scores`` (None: zeros); ValueError, one line."""
    start = np.zeros(K.MAX_ENTITIES, dtype=np.int64)
    if scores is None:
        return start
    values = [int(v) for v in scores]
    n = entity_count(int(players))
    if len(values) != n:
        raise ValueError(f"scores holds one raw score per entity ({n} at {players} players), "
                         f"got {list(scores)!r}")
    low = -TARGET_RAW if players == 4 else 0
    for v in values:
        if not low <= v < TARGET_RAW or v % RAW_PER_CELL:
            raise ValueError(f"a start score is a multiple of {RAW_PER_CELL} raw within "
                             f"{low}..{TARGET_RAW - RAW_PER_CELL}, got {v}")
    start[:n] = values
    return start


# ---------------------------------------------------------------------------
# One round from a given deal (tests)
# ---------------------------------------------------------------------------
def replay_round(players: int, strategies, deal, leader: int, scores=None, forced_tile: int = -1,
                 rng_key: int = 0, field=None) -> np.ndarray:
    """Play one round from ``deal`` (28 tile indices: hands then boneyard) with the study loop.

    Returns the round's ``round_stats`` (columns ``R_*`` of :mod:`core.state`).
    ``rng_key`` seeds the decision stream (counter 0); ``field``, more strategies compiled
    into the same kernel (as in :func:`opening_counterfactual`).
    """
    run = CompiledRun(RunSpec.build(players, strategies, 1, 0, max_rounds=1, field=field),
                      kernels=("replay_dealt_round",), template=DR)
    start = np.zeros(K.MAX_ENTITIES, dtype=np.int64)
    if scores is not None:
        start[: len(scores)] = scores
    if run.spec.python_seats:
        raise ValueError("replay_round needs compiled strategies (not compiled=False)")
    replay = run.engine.kernels(DR).replay_dealt_round
    return replay(np.asarray(deal, dtype=np.int64), np.int64(players), run.strategy_ids,
                  run.spec.params, np.int64(leader), np.int64(forced_tile), start, np.uint64(rng_key))
