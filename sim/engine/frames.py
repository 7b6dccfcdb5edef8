"""The engine's results as pandas frames: one row per match, one row per round.

Match frame columns (:func:`match_frame`, what :func:`sim.simulate` returns)
---------------------------------------------------------------------------
``match`` int64, ``seed`` int64, ``players`` int8, ``strategy_0..strategy_{n-1}``
(category), ``winner`` int8 (entity, -1 unfinished), ``score_0..score_{k-1}``
int32 (final raw per entity), then int32 counts: ``rounds``, ``placements``,
``draws``, ``passes``, ``domino_rounds``, ``blocked_rounds``,
``events_accepted``, ``events_discarded``, ``raw_discarded``, ``placement_raw``
(accepted ordinary placement events plus the final placement of accepted
dominoes), ``domino_credit``, ``domino_debit``, ``blocked_credit`` (accepted),
``events_discarded_0..`` and ``settlement_raw_0..`` per entity;
``first_leader`` int8, ``first_opening`` (category ``"a-b"``, low half first).
For every match ``sum(score) == placement_raw + domino_credit - domino_debit +
blocked_credit``.

Round frame columns: see :func:`round_frame`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from core import state as K
from sim.engine.spec import RunSpec
from core.tiles import N_TILES, tile_name

END_NAMES = {K.END_DOMINO: "domino", K.END_BLOCKED: "blocked", K.END_TARGET: "target"}
"""Round end kinds as the frames and records name them."""

TILE_NAMES = [tile_name(t) for t in range(N_TILES)]
"""``"a-b"`` of every tile index: the categories of the opening columns."""


MATCH_COUNTS = (
    ("rounds", K.M_ROUNDS), ("placements", K.M_PLACEMENTS), ("draws", K.M_DRAWS),
    ("passes", K.M_PASSES), ("domino_rounds", K.M_DOMINO_ROUNDS),
    ("blocked_rounds", K.M_BLOCKED_ROUNDS), ("events_accepted", K.M_EVENTS_ACCEPTED),
    ("events_discarded", K.M_EVENTS_DISCARDED), ("raw_discarded", K.M_RAW_DISCARDED),
    ("placement_raw", K.M_PLACEMENT_RAW), ("domino_credit", K.M_DOMINO_CREDIT),
    ("domino_debit", K.M_DOMINO_DEBIT), ("blocked_credit", K.M_BLOCKED_CREDIT),
)
"""The match frame's int32 count columns and their ``M_*`` fields, in column order."""

ROUND_COUNTS = (
    ("placements", K.R_PLACEMENTS), ("draws", K.R_DRAWS), ("passes", K.R_PASSES),
    ("events_accepted", K.R_EVENTS_ACCEPTED), ("events_discarded", K.R_EVENTS_DISCARDED),
    ("raw_discarded", K.R_RAW_DISCARDED), ("placement_raw", K.R_PLACEMENT_RAW),
    ("domino_placement", K.R_DOMINO_PLACEMENT), ("domino_credit", K.R_DOMINO_CREDIT),
    ("domino_debit", K.R_DOMINO_DEBIT),
)
"""The round frame's count columns and their ``R_*`` fields, in column order."""


def category(codes: np.ndarray, categories: list[str]) -> pd.Categorical:
    """A categorical column from integer codes (int16, so the frames stay small)."""
    return pd.Categorical.from_codes(codes.astype(np.int16, copy=False), categories=categories)


def numbered(prefix: str, table: np.ndarray, first: int, count: int) -> dict[str, np.ndarray]:
    """Columns ``{prefix}_0 .. {prefix}_{count-1}`` from ``table[:, first : first + count]``
    (one per entity or seat)."""
    return {f"{prefix}_{k}": table[:, first + k].copy() for k in range(count)}


def match_frame(spec: RunSpec, first: int, stats: np.ndarray, scores: np.ndarray) -> pd.DataFrame:
    """One row per match from the kernel's ``match_stats`` and ``match_scores`` rows of matches
    ``first ..`` (columns in the module docstring)."""
    n = stats.shape[0]
    columns: dict[str, object] = {
        "match": np.arange(first, first + n, dtype=np.int64),
        "seed": np.full(n, spec.seed, dtype=np.int64),
        "players": np.full(n, spec.players, dtype=np.int8),
    }
    for seat, name in enumerate(spec.names):
        columns[f"strategy_{seat}"] = category(np.zeros(n, dtype=np.int16), [name])
    columns["winner"] = stats[:, K.M_WINNER].astype(np.int8)
    columns.update(numbered("score", scores, 0, spec.n_entities))
    columns.update({column: stats[:, field].copy() for column, field in MATCH_COUNTS})
    columns.update(numbered("events_discarded", stats, K.M_DISCARDED_BY, spec.n_entities))
    columns.update(numbered("settlement_raw", stats, K.M_SETTLED_BY, spec.n_entities))
    columns["first_leader"] = stats[:, K.M_FIRST_LEADER].astype(np.int8)
    columns["first_opening"] = category(stats[:, K.M_FIRST_OPENING], TILE_NAMES)
    return pd.DataFrame(columns)


def round_frame(spec: RunSpec, first: int, stats, offsets, rows) -> pd.DataFrame:
    """One row per round of matches ``first ..``: ``match``, ``round`` (0-based), ``leader``,
    ``opening`` ("a-b"), ``opening_points``, ``end`` ("domino" / "blocked" / "target"),
    ``winner`` (round winner entity, -1 for none: a blocked tie or a target end),
    ``dominoer`` (-1 if none), ``placements``, ``draws``, ``passes``,
    ``events_accepted``, ``events_discarded``, ``raw_discarded``, ``placement_raw``
    (accepted ordinary placement events), ``domino_placement``, ``domino_credit``,
    ``domino_debit`` (components of the round's domino event), ``domino_accepted`` (1, 0,
    -1 no domino), ``blocked_credit`` (accepted), ``blocked_events``, ``raw_0..`` (accepted
    raw gained per entity this round), ``score_0..`` (after the round), ``pips_0..`` (pips
    left per seat at the end of the round)."""
    rounds_per_match = stats[:, K.M_ROUNDS].astype(np.int64)
    match_index = np.repeat(np.arange(first, first + len(stats), dtype=np.int64), rounds_per_match)
    round_index = np.arange(rows.shape[0], dtype=np.int64) - np.repeat(offsets[:-1], rounds_per_match)
    columns: dict[str, object] = {
        "match": match_index,
        "round": round_index.astype(np.int32),
        "leader": rows[:, K.R_LEADER].astype(np.int8),
        "opening": category(rows[:, K.R_OPENING_TILE], TILE_NAMES),
        "opening_points": rows[:, K.R_OPENING_POINTS],
        "end": category(rows[:, K.R_END], [END_NAMES[k] for k in sorted(END_NAMES)]),
        "winner": rows[:, K.R_WINNER].astype(np.int8),
        "dominoer": rows[:, K.R_DOMINOER].astype(np.int8),
    }
    columns.update({column: rows[:, field] for column, field in ROUND_COUNTS})
    columns["domino_accepted"] = rows[:, K.R_DOMINO_ACCEPTED].astype(np.int8)
    columns["blocked_credit"] = rows[:, K.R_BLOCKED_CREDIT]
    columns["blocked_events"] = rows[:, K.R_BLOCKED_EVENTS]
    columns.update(numbered("raw", rows, K.R_GAIN, spec.n_entities))
    columns.update(numbered("score", rows, K.R_SCORE, spec.n_entities))
    columns.update(numbered("pips", rows, K.R_PIPS, spec.players))
    return pd.DataFrame(columns)
