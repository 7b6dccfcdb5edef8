"""Seats: the value of winning the first lot, and seat effects with 3 and 4 players.

The first leader is drawn by a uniform lot (ruling 14), so absolute seats
are equivalent by construction; what matters is where a seat sits relative
to the first leader. For every strategy (in self-play) and player count:

- ``first_lot``: the match win rate of the side that won the first lot, with
  a 95% Wilson interval, against the fair share (1/2, 1/3 or 1/2 for
  partnerships); the **first-lot edge** ``edge`` = that win rate minus the
  fair share; and ``lot_value``, the lot winner's win rate minus an average
  other side's (the lot's value to a side: won it minus lost it, per deal);
- ``positions``: the match win rate of each seat counted clockwise from the
  first leader (0 = the lot winner); with 4 players positions 0 and 2 are the
  leader's partnership, 1 and 3 the other;
- ``absolute_seats``: win rate by absolute seat (a check: every seat should
  be at the fair share);
- ``round_positions``: per round, the share of rounds won by each side
  counted clockwise from that round's leader (a blocked tie or a round cut
  short by the target counts for nobody), and the leader's mean round point
  differential; a match's rounds are not independent, so these intervals take
  the match (the deal) as the cluster;
- ``contrasts``: every comparison the summary states, as a paired contrast
  ``A - B`` with its 95% t interval and effect size
  (:func:`experiments.stats.paired_contrast`), worded as a finding only where
  the interval excludes 0 (:func:`experiments.stats.contrast_words`). In
  self-play each strategy's first-lot edge is compared with the reference
  strategy's (``greedy`` when studied): match ``i`` of every self-play
  configuration of a player count is the same deal and the same lot, so the
  pairs are the deals both played.

Strong strategies (``strong``, e.g. ``rollout,matchplay``) are self-played
like the others at ``strong_matches`` matches each
(:func:`experiments.settings.study_settings`).

Mixed tables (``--table A,B``, :mod:`experiments.mixed_tables`): every frame also holds rows per
(table, players, strategy), from the same matches. A strategy that fills several seats of a
deal (every rotation; two of three entities at 3 players) counts **once per deal**: its
per-deal value is the mean over those seats
(:func:`experiments.mixed_tables.per_deal_means`), and every interval is over deals
(:func:`experiments.stats.paired_proportion` of the per-deal values, Wilson at the deals'
effective size; ``deals`` is that n). ``first_lot`` and ``positions`` rows hold the seats the
strategy held, ``absolute_seats`` the matches in which each seat played it,
``round_positions`` the rounds its entity led (clustered by deal); ``head_to_head`` holds
each strategy's match win rate per entity, with and without the first lot; ``contrasts`` the
lot's value to each strategy (won the lot minus lost it, paired by deal) and the strategies'
differences.

Run ``five-up seats --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import mixed_tables, stats
from experiments.reporting import reports
from experiments.run_spine import run_study
from experiments.sources import leader_differential, pairs
from experiments.studies import study_plots, table_plots
from sim.tiles import entities_for, entity_count

NAME = "seats"
DEFAULT_MATCHES = 20_000
"""Matches per configuration when none are given."""


def run(*args, rounds: dict | None = None, **options) -> reports.ExperimentResult:
    """Run the seats study (arguments as :func:`experiments.studies.overshoot.run`: a
    :class:`experiments.run_spine.StudySpec`, or the keywords of
    :meth:`experiments.run_spine.StudySpec.build`; ``matches`` by default :data:`DEFAULT_MATCHES`).

    ``rounds`` may hold precomputed :func:`experiments.sources.collect_rounds`
    output for the same settings.

    Returns
    -------
    ExperimentResult
        Frames ``first_lot``, ``positions``, ``absolute_seats``, ``round_positions``,
        ``contrasts`` (every row with a ``table`` column, ``"self-play"`` for self-play) and,
        with mixed tables, ``head_to_head``; every frame then also holds a row per (table,
        players, strategy).
    """
    return run_study(NAME, DEFAULT_MATCHES, compute, args, options, rounds)


def compute(data, rounds: dict | None = None) -> reports.ExperimentResult:
    """The study's result from a run's data (:class:`experiments.sources.DataRun`), or from
    given ``rounds``: what :func:`run` and the command line compute."""
    source = data.rounds() if rounds is None else rounds
    return analyse(source, data.settings, data.table_rounds())


def analyse(rounds, settings: dict, tables=()) -> reports.ExperimentResult:
    """The study's frames from ``(strategy, players) -> rounds`` pairs (a dict or iterable) and
    the mixed tables' ``(table, players) -> experiments.sources.TableData`` pairs
    (:meth:`experiments.sources.DataRun.table_rounds`)."""
    lot, positions, absolute, round_pos = [], [], [], []
    lot_by_deal = {}
    for (strategy, players), frame in pairs(rounds):
        a, b, c, d, per_deal = _tables(frame, strategy, players)
        lot.append(a)
        positions.append(b)
        absolute.append(c)
        round_pos.append(d)
        lot_by_deal[(strategy, players)] = per_deal
    for frame in lot + positions + absolute + round_pos:
        frame["table"] = mixed_tables.SELF_PLAY
    contrasts = [pd.DataFrame(mixed_tables.self_play_contrasts(
        lot_by_deal, mixed_tables.self_play_reference(settings), LOT_EDGE, "win_rate", pct=True),
        columns=mixed_tables.CONTRAST_COLUMNS)]
    head = []
    for (label, players), table in pairs(tables):
        mixed = _mixed(table, label, players)
        lot.append(mixed["first_lot"])
        positions.append(mixed["positions"])
        absolute.append(mixed["absolute_seats"])
        head.append(mixed["head_to_head"])
        contrasts.append(mixed["contrasts"])
        round_pos.append(_mixed_round_positions(table, label, players))
    frames = {
        "first_lot": pd.concat(lot, ignore_index=True),
        "positions": pd.concat(positions, ignore_index=True),
        "absolute_seats": pd.concat(absolute, ignore_index=True),
        "round_positions": pd.concat(round_pos, ignore_index=True),
        "contrasts": pd.concat(contrasts, ignore_index=True),
    }
    selfplay = mixed_tables.self_play_rows(frames)
    plots = {"seats": lambda p: study_plots.plot_seats(selfplay["positions"], p, settings)}
    key = _key_numbers(selfplay)
    markdown = _markdown(settings, selfplay, key)
    if head:
        frames["head_to_head"] = pd.concat(head, ignore_index=True)
        key.update(_table_key_numbers(frames))
        plots["head_to_head"] = lambda p: table_plots.plot_head_to_head(
            frames["first_lot"], HEAD_TO_HEAD_PANELS, p, settings,
            "Seats: the first lot's edge in self-play and head to head")
        markdown = _markdown(settings, selfplay, key) + _table_markdown(frames, settings)
    return reports.ExperimentResult(NAME, settings, frames, markdown, plots, key)


# ---------------------------------------------------------------------------
# Self-play
# ---------------------------------------------------------------------------
def _entity(seat: np.ndarray, players: int) -> np.ndarray:
    return np.asarray(entities_for(players))[seat]


def _edge_columns(rate: float, low: float, high: float, fair: float, n_entities: int) -> dict:
    """The first-lot edge (win rate minus the fair share) and the lot's value (the lot
    winner's win rate minus an average other side's) from a win rate and its interval."""
    scale = 1 + 1 / (n_entities - 1)
    return {"edge": rate - fair, "edge_low": low - fair, "edge_high": high - fair,
            "lot_value": rate * scale - 1 / (n_entities - 1),
            "lot_value_low": low * scale - 1 / (n_entities - 1),
            "lot_value_high": high * scale - 1 / (n_entities - 1)}


def _tables(rounds: pd.DataFrame, strategy: str, players: int):
    """One self-play configuration's rows of ``first_lot``, ``positions``, ``absolute_seats``
    and ``round_positions``, and the lot winner's side's result per deal (a Series of 0/1 by
    match index, finished matches only: the pairs of the self-play contrasts)."""
    n_entities = entity_count(players)
    first = rounds[rounds["round"] == 0]
    winner = first["match_winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    leader = first["leader"].to_numpy().astype(np.int64)
    fair = 1.0 / n_entities

    lot_won = winner == _entity(leader, players)
    lot_wins = int(lot_won[finished].sum())
    n = int(finished.sum())
    p = stats.proportion(lot_wins, n)
    rate, low, high = float(p["rate"]), float(p["low"]), float(p["high"])
    first_lot = pd.DataFrame([{
        "strategy": strategy, "players": players, "matches": len(first), "finished": n,
        "deals": n, "lot_side_wins": lot_wins, "win_rate": rate, "win_low": low,
        "win_high": high, "fair_share": fair, **_edge_columns(rate, low, high, fair, n_entities),
    }])
    per_deal = pd.Series(lot_won[finished].astype(np.float64),
                         index=first["match"].to_numpy()[finished])

    rows = []
    for position in range(players):
        seat = (leader + position) % players
        wins = int((winner[finished] == _entity(seat[finished], players)).sum())
        p = stats.proportion(wins, n)
        rows.append({"strategy": strategy, "players": players, "position": position,
                     "side": _side(players, position), "matches": n, "deals": n, "wins": wins,
                     "win_rate": float(p["rate"]), "win_low": float(p["low"]),
                     "win_high": float(p["high"])})
    positions = pd.DataFrame(rows)

    rows = []
    for seat in range(players):
        entity = int(_entity(np.array([seat]), players)[0])
        wins = int((winner[finished] == entity).sum())
        p = stats.proportion(wins, n)
        rows.append({"strategy": strategy, "players": players, "seat": seat, "entity": entity,
                     "matches": n, "deals": n, "wins": wins, "win_rate": float(p["rate"]),
                     "win_low": float(p["low"]), "win_high": float(p["high"])})
    absolute = pd.DataFrame(rows)

    round_positions = _round_rows(rounds, np.ones(len(rounds), bool), strategy, players)
    return first_lot, positions, absolute, round_positions, per_deal


def _side(players: int, position: int) -> str:
    if players == 4:
        return "leader's partnership" if position % 2 == 0 else "other partnership"
    return "lot winner" if position == 0 else f"+{position}"


def _round_rows(rounds: pd.DataFrame, mine: np.ndarray, strategy: str,
                players: int) -> pd.DataFrame:
    """``round_positions`` rows of the rounds ``mine`` selects: who won them counted clockwise
    from the leader's side, and the leader's round differential; a match's rounds share its
    deal, so every interval takes the match index (the deal) as the cluster."""
    n_entities = entity_count(players)
    leader = rounds["leader_entity"].to_numpy().astype(np.int64)[mine]
    round_winner = rounds["winner"].to_numpy().astype(np.int64)[mine]
    deal = rounds["match"].to_numpy()[mine]
    total = int(mine.sum())
    diff = leader_differential(rounds, players)[mine]
    mean, dlow, dhigh = stats.clustered_mean(diff, deal) if total else (np.nan,) * 3
    deals = int(np.unique(deal).size)
    rows = []
    for offset in list(range(n_entities)) + [-1]:
        won = (round_winner < 0) if offset < 0 else (
            round_winner == (leader + offset) % n_entities)
        p = _clustered(won, deal)
        rows.append({"strategy": strategy, "players": players, "offset": offset,
                     "side": "nobody" if offset < 0 else (
                         "leader's side" if offset == 0 else f"+{offset}"),
                     "rounds": total, "deals": deals, "round_wins": int(won.sum()),
                     "rate": p[0], "low": p[1], "high": p[2],
                     "leader_diff_mean": mean if offset == 0 else np.nan,
                     "leader_diff_low": dlow if offset == 0 else np.nan,
                     "leader_diff_high": dhigh if offset == 0 else np.nan})
    return pd.DataFrame(rows)


def _clustered(mask: np.ndarray, clusters: np.ndarray) -> tuple[float, float, float]:
    """Share of ``mask`` with its 95% Wilson interval clustered by deal (nan, 0, 1 if empty)."""
    if mask.size == 0:
        return np.nan, 0.0, 1.0
    r = stats.clustered_proportion(mask, clusters).iloc[0]
    return float(r["rate"]), float(r["low"]), float(r["high"])


# ---------------------------------------------------------------------------
# Mixed tables
# ---------------------------------------------------------------------------
def _mixed(table, label: str, players: int) -> dict:
    """One mixed table's rows of ``first_lot``, ``positions``, ``absolute_seats``,
    ``head_to_head`` and ``contrasts``: every rotation on the same deals, each strategy
    counted once per deal (:func:`experiments.mixed_tables.per_deal_means`)."""
    first = table.data[table.data["round"] == 0]
    rotation = first["rotation"].to_numpy().astype(np.int64)
    deal = first["match"].to_numpy()
    winner = first["match_winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    leader = first["leader"].to_numpy().astype(np.int64)
    n_entities = entity_count(players)
    fair = 1.0 / n_entities
    rows = np.arange(len(first))
    seat_entity = np.asarray(entities_for(players), dtype=np.int64)
    seat_names = np.stack([mixed_tables.entity_names(table.rotations, rotation,
                                                     np.full(len(first), e))
                           for e in seat_entity], axis=1)
    entity_strategy = np.stack([mixed_tables.entity_names(table.rotations, rotation,
                                                          np.full(len(first), e))
                                for e in range(n_entities)], axis=1)
    lot_entity = seat_entity[leader]
    lot_by = entity_strategy[rows, lot_entity]
    # one row per (match, entity) of the finished matches: the entity's strategy, whether it won
    # and whether it held the first lot
    m, e = np.nonzero(np.broadcast_to(finished[:, None], (len(first), n_entities)))
    strategy_of = entity_strategy[m, e]
    won = (winner[m] == e).astype(np.float64)
    holds = lot_entity[m] == e
    lost = ~holds & (lot_by[m] != strategy_of)  # another strategy won the lot
    win = mixed_tables.per_deal_means(won, deal[m], strategy_of)
    lot_won = mixed_tables.per_deal_means(won[holds], deal[m][holds], strategy_of[holds])
    lot_lost = mixed_tables.per_deal_means(won[lost], deal[m][lost], strategy_of[lost])
    names = mixed_tables.strategies_in(table.rotations)
    lots, head, contrasts = [], [], []
    for strategy in names:
        mine = entity_strategy == strategy
        r = mixed_tables.deal_share(win.get(strategy, pd.Series(dtype=float)))
        p = mixed_tables.deal_share(lot_won.get(strategy, pd.Series(dtype=float)))
        q = mixed_tables.deal_share(lot_lost.get(strategy, pd.Series(dtype=float)))
        value = stats.paired_contrast(*_aligned(lot_won, lot_lost, strategy))
        held = finished & (lot_by == strategy)
        head.append({
            "table": label, "players": players, "strategy": strategy, "deals": r[3],
            "matches": len(first), "finished": int(finished.sum()),
            "entities_per_match": float(mine.sum(axis=1).mean()),
            "wins": int((finished & (entity_strategy[rows, np.maximum(winner, 0)]
                                     == strategy)).sum()),
            "win_rate": r[0], "win_low": r[1], "win_high": r[2], "fair_share": fair,
            "lot_matches": int(held.sum()), "lot_deals": p[3], "lot_win_rate": p[0],
            "lot_win_low": p[1], "lot_win_high": p[2], "no_lot_win_rate": q[0],
            "no_lot_win_low": q[1], "no_lot_win_high": q[2],
            "lot_value": value.difference, "lot_value_low": value.low,
            "lot_value_high": value.high, "lot_value_deals": value.units,
            "lot_value_effect": value.effect})
        lots.append({
            "strategy": strategy, "players": players, "matches": int((lot_by == strategy).sum()),
            "finished": int(held.sum()), "deals": p[3],
            "lot_side_wins": int((winner == lot_entity)[held].sum()), "win_rate": p[0],
            "win_low": p[1], "win_high": p[2], "fair_share": fair,
            "edge": p[0] - fair, "edge_low": p[1] - fair, "edge_high": p[2] - fair,
            "lot_value": value.difference, "lot_value_low": value.low,
            "lot_value_high": value.high, "table": label})
        if n_entities > 2:
            contrasts.append(mixed_tables.contrast_row(
                label, players, f"{strategy} won the lot", f"{strategy} lost it", LOT_VALUE,
                "lot_value", value, pct=True))
        elif strategy == names[0]:
            # two sides: one side's lot won is the other's lot lost, so the value of the lot is
            # the same for both strategies (stated once)
            contrasts.append(mixed_tables.contrast_row(
                label, players, "won the lot", "lost it (either strategy: the same at two sides)",
                LOT_VALUE, "lot_value", value, pct=True))
    contrasts.extend(mixed_tables.table_contrasts({"win_rate": win.reindex(columns=names)},
                                                  [("win_rate", WIN_RATE, True)], label,
                                                  players).to_dict("records"))
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if n_entities == 2:
                continue  # the lot's value is the same for both (above): nothing to compare
            # the lot's value to a minus its value to b, deal by deal
            da = _difference(lot_won, lot_lost, a)
            db = _difference(lot_won, lot_lost, b)
            contrasts.append(mixed_tables.contrast_row(
                label, players, a, b, LOT_VALUE_DIFFERENCE, "lot_value",
                stats.paired_contrast(*(s.to_numpy() for s in da.align(db, join="inner"))),
                pct=True))
    return {"first_lot": pd.DataFrame(lots), "head_to_head": pd.DataFrame(head),
            "positions": _mixed_positions(first, seat_names, seat_entity, label, players, names),
            "absolute_seats": _mixed_absolute(first, seat_names, seat_entity, label, players,
                                              names),
            "contrasts": pd.DataFrame(contrasts, columns=mixed_tables.CONTRAST_COLUMNS)}


LOT_EDGE = "first-lot edge (the lot winner's match win rate, paired by deal)"
LOT_VALUE = "value of the first lot (match win rate per entity, paired by deal)"
WIN_RATE = "match win rate per entity (paired by deal)"
LOT_VALUE_DIFFERENCE = "value of the first lot, won - lost (paired by deal)"
"""The ``quantity`` of the ``contrasts`` rows."""


def _column(frame: pd.DataFrame, strategy: str) -> pd.Series:
    return frame[strategy] if strategy in frame else pd.Series(np.nan, index=frame.index)


def _aligned(first: pd.DataFrame, second: pd.DataFrame, a: str, b: str | None = None):
    """Column ``a`` of ``first`` and column ``b`` (default ``a``) of ``second`` on their
    common deals, as arrays (nan where a deal lacks one: dropped by the contrast)."""
    x, y = _column(first, a).align(_column(second, a if b is None else b), join="outer")
    return x.to_numpy(), y.to_numpy()


def _difference(lot_won: pd.DataFrame, lot_lost: pd.DataFrame, strategy: str) -> pd.Series:
    """Per deal, the strategy's win rate per entity when it won the lot minus when it lost it."""
    x, y = _column(lot_won, strategy).align(_column(lot_lost, strategy), join="inner")
    return (x - y).dropna()


def _mixed_positions(first, seat_names, seat_entity, label, players, names) -> pd.DataFrame:
    """``positions`` rows of one mixed table: per strategy and seat counted clockwise from the
    first leader, its win rate over the deals in which it sat there (once per deal)."""
    winner = first["match_winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    leader = first["leader"].to_numpy().astype(np.int64)
    deal = first["match"].to_numpy()
    rows = np.arange(len(first))
    out = []
    for position in range(players):
        seat = (leader + position) % players
        won = (winner == seat_entity[seat]).astype(np.float64)
        sat = seat_names[rows, seat]
        per_deal = mixed_tables.per_deal_means(won[finished], deal[finished], sat[finished])
        for strategy in names:
            here = finished & (sat == strategy)
            p = mixed_tables.deal_share(_column(per_deal, strategy))
            out.append({"strategy": strategy, "players": players, "position": position,
                        "side": _side(players, position), "matches": int(here.sum()),
                        "deals": p[3], "wins": int(won[here].sum()), "win_rate": p[0],
                        "win_low": p[1], "win_high": p[2], "table": label})
    return pd.DataFrame(out).sort_values(["strategy", "position"], key=_name_order(names),
                                         kind="stable", ignore_index=True)


def _name_order(names):
    """A sort key that keeps the strategies in the table's order."""
    order = {name: k for k, name in enumerate(names)}
    return lambda column: column.map(order) if column.name == "strategy" else column


def _mixed_absolute(first, seat_names, seat_entity, label, players, names) -> pd.DataFrame:
    """``absolute_seats`` rows of one mixed table: per strategy and seat, the deals in which
    that seat played the strategy, and how often the seat's entity won (once per deal)."""
    winner = first["match_winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    deal = first["match"].to_numpy()
    out = []
    for seat, entity in enumerate(seat_entity):
        won = (winner == entity).astype(np.float64)
        sat = seat_names[:, seat]
        per_deal = mixed_tables.per_deal_means(won[finished], deal[finished], sat[finished])
        for strategy in names:
            here = finished & (sat == strategy)
            p = mixed_tables.deal_share(_column(per_deal, strategy))
            out.append({"strategy": strategy, "players": players, "seat": seat,
                        "entity": int(entity), "matches": int(here.sum()), "deals": p[3],
                        "wins": int(won[here].sum()), "win_rate": p[0], "win_low": p[1],
                        "win_high": p[2], "table": label})
    return pd.DataFrame(out).sort_values(["strategy", "seat"], key=_name_order(names),
                                         kind="stable", ignore_index=True)


def _mixed_round_positions(table, label: str, players: int) -> pd.DataFrame:
    """``round_positions`` rows of one mixed table: per strategy, the rounds its entity led
    (clustered by deal: the rotations and rounds of one deal are one unit)."""
    rounds = table.data
    leader = rounds["leader_entity"].to_numpy().astype(np.int64)
    led_by = mixed_tables.entity_names(table.rotations, rounds["rotation"], leader)
    frames = [_round_rows(rounds, led_by == strategy, strategy, players)
              for strategy in mixed_tables.strategies_in(table.rotations)]
    out = pd.concat(frames, ignore_index=True)
    out["table"] = label
    return out


HEAD_TO_HEAD_PANELS = (
    table_plots.Panel("edge", "edge_low", "edge_high",
                      "first-lot edge:\nP(win | won the lot) - fair share\n"
                      "(percentage points, 95%)", scale=100.0, centred=True),
    table_plots.Panel("lot_value", "lot_value_low", "lot_value_high",
                      "value of the lot: P(win | won it)\n- P(win | lost it), per entity\n"
                      "(percentage points, 95%)", scale=100.0, centred=True),
)
"""The head-to-head figure's rows (from ``first_lot``): column, interval columns, y label."""


# ---------------------------------------------------------------------------
# Key numbers and the summary
# ---------------------------------------------------------------------------
def fmt_pp(value: float, low: float, high: float) -> str:
    """A difference of proportions in percentage points: ``+2.5 pp [+1.9, +3.1]``."""
    return f"{100 * value:+.1f} pp [{100 * low:+.1f}, {100 * high:+.1f}]"


def _lot_key_numbers(tag: str, wins: str, win: tuple, edge: tuple) -> dict:
    """The key numbers of a side's first lot (``tag`` names the side): its win rate ``win``
    (``wins`` says which) and its first-lot edge ``edge``, each ``(value, low, high)``."""
    return {f"{tag}: {wins}": reports.fmt_ci(*win, 4),
            f"{tag}: first-lot edge (P(win | won the lot) - fair share)": fmt_pp(*edge)}


def _key_numbers(frames: dict) -> dict:
    key = {}
    for row in frames["first_lot"].itertuples(index=False):
        key.update(_lot_key_numbers(
            f"{row.strategy}, {row.players}p",
            f"lot winner's side wins (fair {row.fair_share:.3f})",
            (row.win_rate, row.win_low, row.win_high), (row.edge, row.edge_low, row.edge_high)))
    for row in frames["contrasts"].itertuples(index=False):
        key[f"{row.a} - {row.b}, {row.players}p: first-lot edge"] = mixed_tables.contrast_value(row)
    pos = frames["positions"]
    for (strategy, players), sel in pos[pos.players == 3].groupby(["strategy", "players"],
                                                                  sort=False):
        key[f"{strategy}, 3p: win rate by seat from the first leader (0, +1, +2)"] = ", ".join(
            reports.fmt_ci(r.win_rate, r.win_low, r.win_high, 3) for r in sel.itertuples())
    rp = frames["round_positions"]
    for row in rp[rp.offset == 0].itertuples(index=False):
        key[f"{row.strategy}, {row.players}p: round leader's side wins the round"] = reports.fmt_ci(
            row.rate, row.low, row.high, 4)
    return key


def _sample(settings: dict) -> str:
    """The self-play sample of a caption: matches per configuration (the strong strategies'
    own count) and the seed."""
    text = f"{settings['matches']:,} matches per self-play configuration"
    if settings.get("strong"):
        text += f" ({', '.join(settings['strong'])}: {settings['strong_matches']:,} each)"
    return text + f", seed {settings['seed']}"


def _seats_finding(first_lot: pd.DataFrame) -> str:
    """One sentence from the numbers: in how many configurations the lot winner's side wins
    more (less) than its fair share, its interval excluding it."""
    above = int((first_lot["win_low"] > first_lot["fair_share"]).sum())
    below = int((first_lot["win_high"] < first_lot["fair_share"]).sum())
    total = len(first_lot)
    text = (f"The lot winner's side wins more than its fair share in {above} of {total} "
            "configurations (interval above it)")
    if below:
        text += f", less in {below}"
    if above + below < total:
        text += f"; no detectable edge in {total - above - below}"
    return text


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    s = settings
    reference = mixed_tables.self_play_reference(settings)
    lines = reports.summary_head(
        "Seats and the first lot", s,
        "Unfinished matches are left out of win rates. Win rates are shares of finished matches "
        "with 95% Wilson intervals (the match is the unit: every self-play match is its own "
        "deal); a side is a player, or with 4 players a partnership (seats 0 and 2, 1 and 3). "
        "Rounds cluster within their match: the round intervals take the match as the cluster. "
        "Comparisons are paired contrasts A - B over the deals both played (match i of every "
        "self-play configuration of a player count is the same deal and lot), with their 95% "
        "t interval and Cohen's d; a difference is a finding only where its interval excludes "
        "0.") + ["", "## Key numbers", ""]
    if s.get("strong"):
        lines[2] += (f" Strong strategies ({', '.join(s['strong'])}) play "
                     f"{s['strong_matches']:,} matches per configuration.")
    lines += [f"- {k}: {v}" for k, v in key.items()]
    lines += ["", "## The first lot", "",
              ("`edge` = the first-lot edge: the lot winner's side's match win rate minus its "
               "fair share; `lot_value` = the lot winner's win rate minus an average other "
               "side's (what winning rather than losing the lot is worth)."), "",
              reports.md_table(frames["first_lot"][["strategy", "players", "finished", "win_rate",
                                                    "win_low", "win_high", "fair_share", "edge",
                                                    "edge_low", "edge_high", "lot_value"]], 4)]
    contrasts = frames["contrasts"]
    if len(contrasts):
        lines += ["", f"## Does the first lot matter more to one strategy? (each - {reference})",
                  "", ("The lot winner's side's win rate of each strategy minus "
                       f"{reference}'s (percentage points), paired by deal:"), ""]
        lines += [f"- {row.players}p: {row.words}" for row in contrasts.itertuples(index=False)]
    lines += ["", "## Match win rate by seat, clockwise from the first leader", "",
              reports.md_table(frames["positions"][["strategy", "players", "position", "side",
                                                    "matches", "win_rate", "win_low",
                                                    "win_high"]], 4),
              "", ("With 4 players positions 0 and 2 (1 and 3) sit in one partnership: their rows "
                   "are the same side counted twice, and `seats.png` shows each side once.")]
    lines += ["", "## Check: win rate by absolute seat (fair by construction)", "",
              reports.md_table(frames["absolute_seats"][["strategy", "players", "seat", "win_rate",
                                                         "win_low", "win_high"]], 4)]
    lines += ["", "## Rounds: who wins a round, clockwise from its leader", "",
              ("`nobody` = blocked ties and rounds cut short when the target was hit; "
               "`leader_diff_mean` = the leader's side's round points minus the opponents' mean "
               "(displayed points, 1 displayed = 5 raw); intervals clustered by match."), "",
              reports.md_table(frames["round_positions"][["strategy", "players", "side", "rounds",
                                                          "rate", "low", "high",
                                                          "leader_diff_mean"]], 4)]
    lines += ["", "## Figures", "", reports.figure_caption(
        "seats",
        "match win rate of each side counted clockwise from the first leader minus its fair "
        "share (percentage points), per strategy (self-play) and player count; with 4 players "
        "a side is a partnership",
        _sample(s), "Bars: 95% Wilson intervals, the match as the unit",
        _seats_finding(frames["first_lot"])), ""]
    return "\n".join(lines)


def _table_key_numbers(frames: dict) -> dict:
    key = {}
    for row in frames["head_to_head"].itertuples(index=False):
        fair = row.fair_share
        key.update(_lot_key_numbers(
            f"{row.table}, {row.players}p: {row.strategy}",
            f"match win rate per entity (paired, fair {fair:.3f})",
            (row.win_rate, row.win_low, row.win_high),
            (row.lot_win_rate - fair, row.lot_win_low - fair, row.lot_win_high - fair)))
    contrasts = frames["contrasts"]
    for row in contrasts[contrasts["table"] != mixed_tables.SELF_PLAY].itertuples(index=False):
        key[f"{row.table}, {row.players}p: {row.a} - {row.b}: {row.quantity}"] = (
            mixed_tables.contrast_value(row))
    return key


def _table_markdown(frames: dict, settings: dict) -> str:
    head = frames["head_to_head"]
    lines = ["", "## Head to head (mixed tables)", "",
             ("Each table is played in every rotation of its strategies over the entities "
              "(every strategy at every seat) on the same deals (duplicate deals: match i of "
              "every rotation is one deal). A strategy that fills several seats of a deal (every "
              "rotation; at 3 players the strategy named second holds two entities) counts once "
              "per deal: its per-deal value is the mean over those seats, and `deals` is the n of "
              "every interval (paired Wilson over the per-deal values). `win rate` = its share of "
              "finished matches won, per entity (fair share 1/2 or 1/3); `won the lot` / `lost "
              "the lot` = its win rate per entity when one of its entities / another strategy's "
              "won the first lot; `lot value` = the difference, paired by deal (t interval)."),
             ""]
    for label, table in head.groupby("table", sort=False):
        out = pd.DataFrame({
            "players": table["players"], "strategy": table["strategy"],
            "entities / match": table["entities_per_match"], "deals": table["deals"],
            "win rate (paired)": [reports.fmt_ci(a, b, c, 4) for a, b, c in zip(
                table.win_rate, table.win_low, table.win_high)],
            "fair": table["fair_share"],
            "won the lot": [reports.fmt_ci(a, b, c, 3) for a, b, c in zip(
                table.lot_win_rate, table.lot_win_low, table.lot_win_high)],
            "lost the lot": [reports.fmt_ci(a, b, c, 3) for a, b, c in zip(
                table.no_lot_win_rate, table.no_lot_win_low, table.no_lot_win_high)],
            "lot value": [fmt_pp(a, b, c) for a, b, c in zip(
                table.lot_value, table.lot_value_low, table.lot_value_high)],
        })
        lines += [f"### {label}", "", reports.md_table(out, 3), ""]
    contrasts = frames["contrasts"]
    mixed = contrasts[contrasts["table"] != mixed_tables.SELF_PLAY]
    lines += ["### Paired contrasts", "",
              ("Per table and player count: the lot's value to each strategy (won the lot minus "
               "lost it), the strategies' match win rates per entity, and the lot's value to one "
               "minus to the other; deal by deal, 95% t intervals, Cohen's d."), ""]
    for label, sel in mixed.groupby("table", sort=False):
        lines += [f"- {label}, {row.players}p: {row.words}" for row in sel.itertuples(index=False)]
    pos = frames["positions"]
    lines += ["", "### Win rate by seat from the first leader, per strategy", "",
              reports.md_table(pos[pos["table"] != mixed_tables.SELF_PLAY][
                  ["table", "players", "strategy", "position", "side", "deals", "win_rate",
                   "win_low", "win_high"]], 4), "",
              ("`deals` = deals with the strategy at that position (once per deal)."), ""]
    rp = frames["round_positions"]
    led = rp[(rp["table"] != mixed_tables.SELF_PLAY) & (rp["offset"] == 0)]
    lines += ["### Rounds the strategy's side led", "",
              reports.md_table(led[["table", "players", "strategy", "rounds", "deals", "rate",
                                    "low", "high", "leader_diff_mean", "leader_diff_low",
                                    "leader_diff_high"]], 3), "",
              ("`rate` = share of those rounds the leader's side won; `leader_diff` = its "
               "round point differential (displayed points); intervals clustered by deal; every "
               "side and seat: `round_positions`, `absolute_seats` (rows with `table`)."), ""]
    values = mixed[mixed["quantity"] == LOT_VALUE]
    found = int(values["detected"].sum())
    lines += ["## Figure", "", reports.figure_caption(
        "head_to_head",
        "top: the first-lot edge, P(win | won the lot) minus the fair share (percentage "
        "points), per strategy in self-play and in each mixed table; bottom: the value of the "
        "lot, P(win | won it) minus P(win | lost it) per entity; one column per player count",
        table_plots.table_footer(settings),
        "Bars: 95% intervals, the deal as the unit (a strategy in several seats counted once "
        "per deal; the value of the lot paired by deal)",
        f"In the mixed tables winning the first lot rather than losing it makes a detectable "
        f"difference (interval excluding 0) in {found} of {len(values)} (table, players, "
        f"strategy) cells (one per table at 2 and 4 players, where it is the same for both)"),
        ""]
    return "\n".join(lines)
