"""Seats: the first lot's value within a strategy, and seat effects with 3 and 4 players.

The first leader is drawn by a uniform lot (ruling 14), so absolute seats
are equivalent by construction; what matters is where a seat sits relative
to the first leader. For every strategy (in self-play) and player count:

- ``first_lot``: the match win rate of the side that won the first lot (95% Wilson interval,
  the match is the unit) against chance, 1/n for n sides (1/2, 1/3, and 1/2 for the two
  partnerships at 4 players): ``edge`` = that rate minus chance; and the **first-lot effect**
  ``lot_effect``: the lot winner's side's match win (0 or 1) minus the mean of the other
  sides' on the same deal, averaged over deals with a 95% t interval (at two sides: the lot
  winner's rate minus the lot loser's, ``2 p - 1``);
- ``positions``: the match win rate of each seat counted clockwise from the
  first leader (0 = the lot winner); with 4 players positions 0 and 2 are the
  leader's partnership, 1 and 3 the other;
- ``absolute_seats``: win rate by absolute seat (a check: every seat should
  be at chance);
- ``round_positions``: per round, the share of rounds won by each side
  counted clockwise from that round's leader (a blocked tie or a round cut
  short by the target counts for nobody), and the leader's mean round point
  differential; a match's rounds are not independent, so these intervals take
  the match (the deal) as the cluster;
- ``comparisons``: every comparison the run states, declared before it plays
  (:func:`plan_for`) and adjusted as families
  (:meth:`experiments.comparisons.ComparisonPlan.adjust`).

The lot effect is measured **within a strategy**: the same strategy's match win when its side
won the lot minus when it lost it, on the same deals. Two strategies' lot winners' rates are
never subtracted from each other: with A leading in one rotation and B in the other, "A's
lot-winning rate - B's" is twice their strength gap, and the lot cancels.

Mixed tables (``--table A,B``, :mod:`experiments.mixed_tables`): every frame also holds rows per
(table, players, strategy), from the same matches. A strategy that fills several seats of a
deal (every rotation; two of three entities at 3 players) counts **once per deal**: its
per-deal value is the mean over those seats
(:func:`experiments.mixed_tables.per_deal_means`), and every interval is over deals
(:func:`experiments.stats.paired_proportion` of the per-deal values, Wilson at the deals'
effective size; ``deals`` is that n). The rotations put each strategy on both sides of each
deal's lot, so its **lot effect** is its win rate per entity when one of its entities won the
lot minus when another strategy's did, paired by deal. In a two-strategy table at 2 or 4
players A's lot effect equals B's exactly (A's lot won is B's lot lost, and A's win is B's
loss), so it is stated once. ``first_lot`` rows of a table hold the strategy's rate with and
without the lot and its lot effect; ``head_to_head`` each strategy's match win rate per entity
(its strength in that table, against chance 1/n); the strength difference A - B, paired by
deal, is its own comparison, apart from the lot.

Run ``five-up seats --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import mixed_tables, stats
from experiments.comparisons import EXPLORATORY, PRIMARY, Comparison, ComparisonPlan, Quantity
from experiments.comparisons import plan_sentence
from experiments.reporting import reports
from experiments.run_spine import run_study
from experiments.sources import leader_differential, pairs
from experiments.studies import study_plots, table_plots
from core.tiles import entities_for, entity_count

NAME = "seats"
DEFAULT_MATCHES = 20_000
"""Matches per configuration when none are given."""

LOT_EFFECT = "lot_effect"
LOT_EFFECT_DIFFERENCE = "lot_effect_difference"
WIN_SHARE = "win_share"
SEAT_SHARE = "seat_share"
QUANTITIES = (
    Quantity(LOT_EFFECT, "match win share, first-lot effect", 0.02, True,
             "2 pp of match win share, one match in 50: less than a player could tell from a "
             "season's play"),
    Quantity(LOT_EFFECT_DIFFERENCE, "first-lot effect", 0.02, True,
             "the lot's value to two strategies differing by less than 2 pp of match win share "
             "is the same value for any practical purpose"),
    Quantity(WIN_SHARE, "match win share per entity", 0.02, True,
             "2 pp of match win share, one match in 50: the smallest strength gap a player "
             "would notice over a season"),
    Quantity(SEAT_SHARE, "match win share against chance", 0.02, True,
             "a seat within 2 pp of chance (1/n) is a fair seat for any practical purpose"),
)
"""The quantities the study compares, each with its smallest effect of interest."""


def won_lot(strategy: str) -> str:
    """The ``a`` of a lot-effect comparison: ``"greedy won the lot"``."""
    return f"{strategy} won the lot"


def lost_lot(strategy: str) -> str:
    """The ``b`` of a lot-effect comparison: ``"greedy lost it"``."""
    return f"{strategy} lost it"


def sides(players: int) -> list[str]:
    """The sides counted clockwise from the first leader (two partnerships at 4 players)."""
    return [_side(players, k) for k in range(entity_count(players))]


CHANCE = "chance"
"""The ``b`` of a seat's comparison with chance (1/n)."""


def plan_for(settings: dict) -> ComparisonPlan:
    """The study's comparisons, declared from its settings before it plays.

    Primary (Holm): the first-lot effect in the reference strategy's self-play
    (:func:`experiments.mixed_tables.self_play_reference`, ``greedy`` when studied) at each
    player count: what winning the lot is worth, the question the study is for. Exploratory
    (Benjamini-Hochberg): every other self-played strategy's lot effect and its difference from
    the reference's (paired by deal), each self-play seat's match win share against chance
    (1/n), and in every mixed table each strategy's lot effect (once at two sides, where the two
    are equal), at 3 players the difference of two strategies' lot effects, and the strategies'
    strength (match win share per entity, A - B).
    """
    reference = mixed_tables.self_play_reference(settings)
    primary, rest = [], []
    for players in settings["players"]:
        for name in settings["strategies"]:
            rows = primary if name == reference else rest
            rows.append(Comparison(mixed_tables.pair_id(
                players, mixed_tables.SELF_PLAY, won_lot(name), lost_lot(name), LOT_EFFECT),
                PRIMARY if name == reference else EXPLORATORY, LOT_EFFECT))
    for players, name, ref in mixed_tables.self_play_pairs(settings):
        rest.append(Comparison(mixed_tables.pair_id(players, mixed_tables.SELF_PLAY, name, ref,
                                                    LOT_EFFECT_DIFFERENCE),
                               EXPLORATORY, LOT_EFFECT_DIFFERENCE))
    for name in settings["strategies"]:
        for players in settings["players"]:
            for side in sides(players):
                rest.append(Comparison(mixed_tables.pair_id(
                    players, mixed_tables.SELF_PLAY, f"{name} {side}", CHANCE, SEAT_SHARE),
                    EXPLORATORY, SEAT_SHARE))
    for table in mixed_tables.tables_of(settings):
        for players in settings["players"]:
            if not table.plays_at(players):
                continue
            names = mixed_tables.strategies_in(table.rotations(players))
            subjects = names if entity_count(players) > 2 else names[:1]
            rest += [Comparison(mixed_tables.pair_id(players, table.label, won_lot(name),
                                                     lost_lot(name), LOT_EFFECT),
                                EXPLORATORY, LOT_EFFECT) for name in subjects]
    for label, players, a, b in mixed_tables.table_pairs(settings):
        if entity_count(players) > 2:
            rest.append(Comparison(mixed_tables.pair_id(players, label, a, b,
                                                        LOT_EFFECT_DIFFERENCE),
                                   EXPLORATORY, LOT_EFFECT_DIFFERENCE))
        rest.append(Comparison(mixed_tables.pair_id(players, label, a, b, WIN_SHARE),
                               EXPLORATORY, WIN_SHARE))
    return ComparisonPlan(
        NAME, QUANTITIES, tuple(primary + rest),
        note=(f"Primary: the first-lot effect (the lot winner's side's match win minus the "
              f"other sides', paired by deal) in {reference}'s self-play at each player count, "
              "the value of winning the lot that the study measures. Everything else "
              "(other strategies, seats against chance, the mixed tables' lot effects and "
              "strength differences) is exploratory."))


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
        ``comparisons`` (every row with a ``table`` column, ``"self-play"`` for self-play) and,
        with mixed tables, ``head_to_head``; every frame then also holds a row per (table,
        players, strategy).
    """
    return run_study(NAME, DEFAULT_MATCHES, compute, args, options, rounds, plan_for)


def compute(data, rounds: dict | None = None) -> reports.ExperimentResult:
    """The study's result from a run's data (:class:`experiments.sources.DataRun`), or from
    given ``rounds``: what :func:`run` and the command line compute."""
    source = data.rounds() if rounds is None else rounds
    return analyse(source, data.settings, data.table_rounds())


def analyse(rounds, settings: dict, tables=()) -> reports.ExperimentResult:
    """The study's frames from ``(strategy, players) -> rounds`` pairs (a dict or iterable) and
    the mixed tables' ``(table, players) -> experiments.sources.TableData`` pairs
    (:meth:`experiments.sources.DataRun.table_rounds`)."""
    lot, positions, absolute, round_pos, compared = [], [], [], [], []
    lot_by_deal = {}
    for (strategy, players), frame in pairs(rounds):
        a, b, c, d, per_deal, seat_rows = _tables(frame, strategy, players)
        lot.append(a)
        positions.append(b)
        absolute.append(c)
        round_pos.append(d)
        lot_by_deal[(strategy, players)] = per_deal
        compared += seat_rows
        compared.append(mixed_tables.comparison_row(
            mixed_tables.pair_id(players, mixed_tables.SELF_PLAY, won_lot(strategy),
                                 lost_lot(strategy), LOT_EFFECT),
            mixed_tables.SELF_PLAY, players, won_lot(strategy), lost_lot(strategy), LOT_EFFECT,
            stats.paired_contrast(per_deal.to_numpy(), np.zeros(len(per_deal)))))
    for frame in lot + positions + absolute + round_pos:
        frame["table"] = mixed_tables.SELF_PLAY
    compared += mixed_tables.self_play_contrasts(
        lot_by_deal, mixed_tables.self_play_reference(settings), LOT_EFFECT_DIFFERENCE)
    head = []
    for (label, players), table in pairs(tables):
        mixed = _mixed(table, label, players)
        lot.append(mixed["first_lot"])
        positions.append(mixed["positions"])
        absolute.append(mixed["absolute_seats"])
        head.append(mixed["head_to_head"])
        compared += mixed["comparisons"]
        round_pos.append(_mixed_round_positions(table, label, players))
    plan = plan_for(settings)
    frames = {
        "first_lot": pd.concat(lot, ignore_index=True),
        "positions": pd.concat(positions, ignore_index=True),
        "absolute_seats": pd.concat(absolute, ignore_index=True),
        "round_positions": pd.concat(round_pos, ignore_index=True),
        "comparisons": mixed_tables.adjusted_comparisons(plan, compared),
    }
    selfplay = mixed_tables.self_play_rows(frames)
    plots = {"seats": lambda p: study_plots.plot_seats(selfplay["positions"], p, settings)}
    key = _key_numbers(selfplay)
    if head:
        frames["head_to_head"] = pd.concat(head, ignore_index=True)
        key.update(_table_key_numbers(frames))
        plots["head_to_head"] = lambda p: table_plots.plot_head_to_head(
            head_to_head_rows(frames), HEAD_TO_HEAD_PANELS, p, settings,
            "Seats: the first lot's effect within each strategy, and strength")
    markdown = _markdown(settings, selfplay, key, plan, frames["comparisons"])
    if head:
        markdown += _table_markdown(frames, settings)
    return reports.ExperimentResult(NAME, settings, frames, markdown, plots, key)


# ---------------------------------------------------------------------------
# Self-play
# ---------------------------------------------------------------------------
def _entity(seat: np.ndarray, players: int) -> np.ndarray:
    return np.asarray(entities_for(players))[seat]


def _tables(rounds: pd.DataFrame, strategy: str, players: int):
    """One self-play configuration's rows of ``first_lot``, ``positions``, ``absolute_seats``
    and ``round_positions``; its first-lot effect per deal (a Series by match index, finished
    matches only: the lot winner's side's win minus the mean of the other sides'); and its
    seats' comparisons with chance (1/n, paired t over deals)."""
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
    won = lot_won[finished].astype(np.float64)
    # the lot winner's win minus the mean of the other sides' (one of them won when it did not)
    effect = won - (1.0 - won) / (n_entities - 1)
    value = stats.paired_contrast(effect, np.zeros(effect.size))
    first_lot = pd.DataFrame([{
        "strategy": strategy, "players": players, "matches": len(first), "finished": n,
        "deals": n, "lot_side_wins": lot_wins, "win_rate": rate, "win_low": low,
        "win_high": high, "fair_share": fair, "edge": rate - fair, "edge_low": low - fair,
        "edge_high": high - fair, "lot_effect": value.difference, "lot_effect_low": value.low,
        "lot_effect_high": value.high,
    }])
    per_deal = pd.Series(effect, index=first["match"].to_numpy()[finished])

    rows, compared = [], []
    for position in range(players):
        seat = (leader + position) % players
        side_won = winner[finished] == _entity(seat[finished], players)
        wins = int(side_won.sum())
        p = stats.proportion(wins, n)
        rows.append({"strategy": strategy, "players": players, "position": position,
                     "side": _side(players, position), "matches": n, "deals": n, "wins": wins,
                     "win_rate": float(p["rate"]), "win_low": float(p["low"]),
                     "win_high": float(p["high"])})
        if position < n_entities:  # at 4 players positions 2, 3 repeat the partnerships
            side = f"{strategy} {_side(players, position)}"
            compared.append(mixed_tables.comparison_row(
                mixed_tables.pair_id(players, mixed_tables.SELF_PLAY, side, CHANCE, SEAT_SHARE),
                mixed_tables.SELF_PLAY, players, side, CHANCE, SEAT_SHARE,
                stats.paired_contrast(side_won.astype(np.float64), np.full(n, fair))))
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
    return first_lot, positions, absolute, round_positions, per_deal, compared


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
    ``head_to_head`` and its comparison rows: every rotation on the same deals, each strategy
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
    lots, head, compared = [], [], []
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
            "lot_effect": value.difference, "lot_effect_low": value.low,
            "lot_effect_high": value.high, "lot_effect_deals": value.units,
            "lot_effect_size": value.effect})
        # no edge (rate with the lot minus chance) here: against another strategy it measures
        # strength as much as the lot; the lot effect compares the strategy with itself
        lots.append({
            "strategy": strategy, "players": players, "matches": int((lot_by == strategy).sum()),
            "finished": int(held.sum()), "deals": p[3],
            "lot_side_wins": int((winner == lot_entity)[held].sum()), "win_rate": p[0],
            "win_low": p[1], "win_high": p[2], "fair_share": fair,
            "edge": np.nan, "edge_low": np.nan, "edge_high": np.nan,
            "lot_effect": value.difference, "lot_effect_low": value.low,
            "lot_effect_high": value.high, "table": label})
        if n_entities > 2 or strategy == names[0]:
            # at two sides one strategy's lot won is the other's lot lost, and its win the
            # other's loss: the lot effect is the same for both, stated once
            compared.append(mixed_tables.comparison_row(
                mixed_tables.pair_id(players, label, won_lot(strategy), lost_lot(strategy),
                                     LOT_EFFECT),
                label, players, won_lot(strategy), lost_lot(strategy), LOT_EFFECT, value))
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if n_entities > 2:
                # the lot's value to a minus its value to b, deal by deal
                da = _difference(lot_won, lot_lost, a)
                db = _difference(lot_won, lot_lost, b)
                compared.append(mixed_tables.comparison_row(
                    mixed_tables.pair_id(players, label, a, b, LOT_EFFECT_DIFFERENCE), label,
                    players, a, b, LOT_EFFECT_DIFFERENCE,
                    stats.paired_contrast(*(s.to_numpy() for s in da.align(db, join="inner")))))
    compared += mixed_tables.table_contrasts({WIN_SHARE: win.reindex(columns=names)},
                                             [(WIN_SHARE, WIN_SHARE)], label, players)
    return {"first_lot": pd.DataFrame(lots), "head_to_head": pd.DataFrame(head),
            "positions": _mixed_positions(first, seat_names, seat_entity, label, players, names),
            "absolute_seats": _mixed_absolute(first, seat_names, seat_entity, label, players,
                                              names),
            "comparisons": compared}


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
    table_plots.Panel("lot_effect", "lot_effect_low", "lot_effect_high",
                      "first-lot effect within the strategy:\nP(win | its side won the lot)\n"
                      "- P(win | lost it), pp", scale=100.0, centred=True),
    table_plots.Panel("strength", "strength_low", "strength_high",
                      "strength: match win share\nper entity, % (dashed: chance 1/n)",
                      rate=True, fair="fair_share", scale=100.0),
)
"""The head-to-head figure's rows (from :func:`head_to_head_rows`): column, interval columns,
y label."""


def head_to_head_rows(frames: dict) -> pd.DataFrame:
    """The head-to-head figure's data: per (table, players, strategy), the first-lot effect
    within the strategy (self-play and every table) and, in the tables, its match win share per
    entity (``strength``; nan in self-play, where every seat is the same strategy)."""
    lot = frames["first_lot"][["table", "players", "strategy", "fair_share", "lot_effect",
                               "lot_effect_low", "lot_effect_high"]]
    head = frames["head_to_head"][["table", "players", "strategy", "win_rate", "win_low",
                                   "win_high"]].rename(columns={
                                       "win_rate": "strength", "win_low": "strength_low",
                                       "win_high": "strength_high"})
    return lot.merge(head, on=["table", "players", "strategy"], how="left")


# ---------------------------------------------------------------------------
# Key numbers and the summary
# ---------------------------------------------------------------------------
def fmt_pp(value: float, low: float, high: float) -> str:
    """A difference of proportions in percentage points: ``+2.5 pp [+1.9, +3.1]``."""
    return f"{100 * value:+.1f} pp [{100 * low:+.1f}, {100 * high:+.1f}]"


def _of(comparisons: pd.DataFrame, table: str, quantity: str) -> pd.DataFrame:
    return comparisons[(comparisons["table"] == table) & (comparisons["quantity"] == quantity)]


def _subject(row) -> str:
    """The strategy a lot-effect row is about (``"greedy won the lot"`` -> ``"greedy"``)."""
    return row.a[: -len(" won the lot")] if row.a.endswith(" won the lot") else row.a


def _key_numbers(frames: dict) -> dict:
    key = {}
    effects = {(row.a, row.players): row for row in _of(
        frames["comparisons"], mixed_tables.SELF_PLAY, LOT_EFFECT).itertuples(index=False)}
    for row in frames["first_lot"].itertuples(index=False):
        tag = f"{row.strategy}, {row.players}p"
        key[f"{tag}: lot winner's side wins (chance {row.fair_share:.3f})"] = reports.fmt_ci(
            row.win_rate, row.win_low, row.win_high, 4)
        effect = effects.get((won_lot(row.strategy), row.players))
        if effect is not None:
            key[f"{tag}: first-lot effect (won the lot - lost it, match win share)"] = (
                mixed_tables.comparison_value(effect))
    for row in _of(frames["comparisons"], mixed_tables.SELF_PLAY,
                   LOT_EFFECT_DIFFERENCE).itertuples(index=False):
        key[f"{row.a} - {row.b}, {row.players}p: first-lot effect"] = (
            mixed_tables.comparison_value(row))
    pos = frames["positions"]
    for (strategy, players), sel in pos[pos.players == 3].groupby(["strategy", "players"],
                                                                  sort=False):
        key[f"{strategy}, 3p: win rate by seat from the first leader (0, +1, +2; chance "
            "0.333)"] = ", ".join(reports.fmt_ci(r.win_rate, r.win_low, r.win_high, 3)
                                  for r in sel.itertuples())
    rp = frames["round_positions"]
    for row in rp[rp.offset == 0].itertuples(index=False):
        key[f"{row.strategy}, {row.players}p: round leader's side wins the round (chance "
            f"{1 / entity_count(row.players):.3f})"] = reports.fmt_ci(row.rate, row.low,
                                                                     row.high, 4)
    return key


def _sample(settings: dict) -> str:
    """The self-play sample of a caption: matches per configuration (the strong strategies'
    own count) and the seed."""
    text = f"{settings['matches']:,} matches per self-play configuration"
    if settings.get("strong"):
        text += f" ({', '.join(settings['strong'])}: {settings['strong_matches']:,} each)"
    return text + f", seed {settings['seed']}"


def _seats_finding(comparisons: pd.DataFrame) -> str:
    """One sentence from the seats' comparisons with chance (adjusted): how many sides win more
    or less than chance, how many are within the smallest effect of interest of it."""
    sel = _of(comparisons, mixed_tables.SELF_PLAY, SEAT_SHARE)
    found = sel[sel["verdict"] == "finding"]
    above = int((found["difference"] > 0).sum())
    below = len(found) - above
    same = int((sel["verdict"] == "equivalent").sum())
    return (f"Of {len(sel)} sides (strategy, players, seat from the first leader), {above} win "
            f"more than chance (1/n) and {below} less by their adjusted intervals; {same} are "
            f"within +-2 pp of chance, {len(sel) - len(found) - same} undecided")


def _markdown(settings: dict, frames: dict, key: dict, plan: ComparisonPlan,
              comparisons: pd.DataFrame) -> str:
    s = settings
    reference = mixed_tables.self_play_reference(settings)
    lines = reports.summary_head(
        "Seats and the first lot", s,
        "Unfinished matches are left out of win rates. Win rates are shares of finished matches "
        "with 95% Wilson intervals (the match is the unit: every self-play match is its own "
        "deal); a side is a player, or with 4 players a partnership (seats 0 and 2, 1 and 3); "
        "chance is 1/n for n sides (1/2, 1/3, and 1/2 for two partnerships). The first-lot "
        "effect compares a strategy with itself: its side's match win when it won the first lot "
        "minus the other sides' on the same deal (in self-play; at two sides 2 p - 1), t "
        "interval over deals. Rounds cluster within their match: the round intervals take the "
        "match as the cluster.") + ["", plan_sentence(plan, comparisons), "", plan.note,
                                    "", mixed_tables.ADJUSTED_NOTE, "", "## Key numbers", ""]
    if s.get("strong"):
        lines[2] += (f" Strong strategies ({', '.join(s['strong'])}) play "
                     f"{s['strong_matches']:,} matches per configuration.")
    lines += [f"- {k}: {v}" for k, v in key.items()]
    lines += ["", "## The first lot within each strategy (self-play)", "",
              ("`edge` = the lot winner's side's match win rate minus chance (1/n); "
               "`lot_effect` = its win minus the other sides' mean on the same deal (what "
               "winning rather than losing the lot is worth), t interval over deals."), "",
              reports.md_table(frames["first_lot"][[
                  "strategy", "players", "finished", "win_rate", "win_low", "win_high",
                  "fair_share", "edge", "lot_effect", "lot_effect_low", "lot_effect_high"]], 4),
              ""]
    self_comparisons = comparisons[comparisons["table"] == mixed_tables.SELF_PLAY]
    lines += mixed_tables.comparison_lines(_of(self_comparisons, mixed_tables.SELF_PLAY,
                                               LOT_EFFECT),
                                           lambda row: f"{row.players}p")
    differences = _of(self_comparisons, mixed_tables.SELF_PLAY, LOT_EFFECT_DIFFERENCE)
    if len(differences):
        lines += ["", f"## Does the first lot matter more to one strategy? (each - {reference})",
                  "", ("Each strategy's first-lot effect minus "
                       f"{reference}'s, paired by deal (match i of every self-play configuration "
                       "of a player count is the same deal and lot):"), ""]
        lines += mixed_tables.comparison_lines(differences, lambda row: f"{row.players}p")
    lines += ["", "## Match win rate by seat, clockwise from the first leader", "",
              reports.md_table(frames["positions"][["strategy", "players", "position", "side",
                                                    "matches", "win_rate", "win_low",
                                                    "win_high"]], 4),
              "", ("With 4 players positions 0 and 2 (1 and 3) sit in one partnership: their rows "
                   "are the same side counted twice, and `seats.png` shows each side once. "
                   "Each side against chance (1/n), paired t over deals:"), ""]
    lines += mixed_tables.comparison_lines(_of(self_comparisons, mixed_tables.SELF_PLAY,
                                               SEAT_SHARE), lambda row: f"{row.players}p")
    lines += ["", "## Check: win rate by absolute seat (fair by construction)", "",
              reports.md_table(frames["absolute_seats"][["strategy", "players", "seat", "win_rate",
                                                         "win_low", "win_high"]], 4)]
    lines += ["", "## Rounds: who wins a round, clockwise from its leader", "",
              ("`nobody` = blocked ties and rounds cut short when the target was hit; "
               "`leader_diff_mean` = the leader's side's round points minus the opponents' mean "
               "(displayed points, 1 displayed = 5 raw); intervals clustered by match. Chance "
               "for a side is at most 1/n (a round can go to nobody)."), "",
              reports.md_table(frames["round_positions"][["strategy", "players", "side", "rounds",
                                                          "rate", "low", "high",
                                                          "leader_diff_mean"]], 4)]
    lines += ["", "## Figures", "", reports.figure_caption(
        "seats",
        "match win rate of each side counted clockwise from the first leader minus chance "
        "(1/n, percentage points), per strategy (self-play) and player count; with 4 players "
        "a side is a partnership",
        _sample(s), "Bars: 95% Wilson intervals, the match as the unit",
        _seats_finding(comparisons)), ""]
    return "\n".join(lines)


def _table_key_numbers(frames: dict) -> dict:
    key = {}
    for row in frames["head_to_head"].itertuples(index=False):
        key[f"{row.table}, {row.players}p: {row.strategy}: match win rate per entity (paired, "
            f"chance {row.fair_share:.3f})"] = reports.fmt_ci(row.win_rate, row.win_low,
                                                              row.win_high, 4)
    comparisons = frames["comparisons"]
    mixed = comparisons[comparisons["table"] != mixed_tables.SELF_PLAY]
    for row in mixed.itertuples(index=False):
        if row.quantity == LOT_EFFECT:
            both = " (the same for both at two sides)" if entity_count(row.players) == 2 else ""
            label = f"{row.table}, {row.players}p: {_subject(row)}: first-lot effect{both}"
        elif row.quantity == LOT_EFFECT_DIFFERENCE:
            label = f"{row.table}, {row.players}p: {row.a} - {row.b}: first-lot effect"
        else:
            label = (f"{row.table}, {row.players}p: {row.a} - {row.b}: strength (match win "
                     "share per entity)")
        key[label] = mixed_tables.comparison_value(row)
    return key


def _table_markdown(frames: dict, settings: dict) -> str:
    head = frames["head_to_head"]
    lines = ["", "## Head to head (mixed tables)", "",
             ("Each table is played in every rotation of its strategies over the entities "
              "(every strategy at every seat) on the same deals (duplicate deals: match i of "
              "every rotation is one deal), so each strategy holds the first lot in some "
              "rotations of a deal and not in others. A strategy that fills several seats of a "
              "deal (every rotation; at 3 players the strategy named second holds two entities) "
              "counts once per deal: its per-deal value is the mean over those seats, and "
              "`deals` is the n of every interval (paired Wilson over the per-deal values). "
              "`win rate` = its share of finished matches won, per entity (its strength in the "
              "table; chance 1/2 or 1/3); `won the lot` / `lost the lot` = its win rate per "
              "entity when one of its entities / another strategy's won the first lot; `lot "
              "effect` = the difference, paired by deal (t interval)."), ""]
    for label, table in head.groupby("table", sort=False):
        out = pd.DataFrame({
            "players": table["players"], "strategy": table["strategy"],
            "entities / match": table["entities_per_match"], "deals": table["deals"],
            "win rate (paired)": [reports.fmt_ci(a, b, c, 4) for a, b, c in zip(
                table.win_rate, table.win_low, table.win_high)],
            "chance": table["fair_share"],
            "won the lot": [reports.fmt_ci(a, b, c, 3) for a, b, c in zip(
                table.lot_win_rate, table.lot_win_low, table.lot_win_high)],
            "lost the lot": [reports.fmt_ci(a, b, c, 3) for a, b, c in zip(
                table.no_lot_win_rate, table.no_lot_win_low, table.no_lot_win_high)],
            "lot effect": [fmt_pp(a, b, c) for a, b, c in zip(
                table.lot_effect, table.lot_effect_low, table.lot_effect_high)],
        })
        lines += [f"### {label}", "", reports.md_table(out, 3), ""]
    comparisons = frames["comparisons"]
    mixed = comparisons[comparisons["table"] != mixed_tables.SELF_PLAY]
    lot = mixed[mixed["quantity"].isin([LOT_EFFECT, LOT_EFFECT_DIFFERENCE])]
    lines += ["### The first lot within each strategy", "",
              ("Each strategy's match win rate per entity when its side won the lot minus when "
               "it lost it, paired by deal; at 2 and 4 players a two-strategy table's lot "
               "effect is the same for both strategies (one's lot won is the other's lot lost, "
               "one's win the other's loss), so it is stated once; at 3 players also the "
               "difference of two strategies' lot effects."), ""]
    lines += mixed_tables.comparison_lines(lot)
    strength = mixed[mixed["quantity"] == WIN_SHARE]
    lines += ["", "### Strength: match win share per entity, A - B", "",
              ("Apart from the lot: the strategies' match win shares per entity, paired by deal "
               "(every rotation, so each holds the lot equally often)."), ""]
    lines += mixed_tables.comparison_lines(strength)
    pos = frames["positions"]
    lines += ["", "### Win rate by seat from the first leader, per strategy", "",
              reports.md_table(pos[pos["table"] != mixed_tables.SELF_PLAY][
                  ["table", "players", "strategy", "position", "side", "deals", "win_rate",
                   "win_low", "win_high"]], 4), "",
              ("`deals` = deals with the strategy at that position (once per deal); a "
               "strategy's rate at position 0 against another strategy's is strength and lot "
               "together, not the lot's value."), ""]
    rp = frames["round_positions"]
    led = rp[(rp["table"] != mixed_tables.SELF_PLAY) & (rp["offset"] == 0)]
    lines += ["### Rounds the strategy's side led", "",
              reports.md_table(led[["table", "players", "strategy", "rounds", "deals", "rate",
                                    "low", "high", "leader_diff_mean", "leader_diff_low",
                                    "leader_diff_high"]], 3), "",
              ("`rate` = share of those rounds the leader's side won; `leader_diff` = its "
               "round point differential (displayed points); intervals clustered by deal; every "
               "side and seat: `round_positions`, `absolute_seats` (rows with `table`)."), ""]
    lines += ["## Figure", "", reports.figure_caption(
        "head_to_head",
        "top: the first-lot effect within each strategy, P(win | its side won the lot) minus "
        "P(win | lost it) (percentage points), in self-play and in each mixed table; bottom: "
        "each strategy's match win share per entity in the mixed tables (its strength; dashed: "
        "chance 1/n); one column per player count",
        table_plots.table_footer(settings),
        "Bars: 95% intervals, the deal as the unit (a strategy in several seats counted once "
        "per deal; the lot effect paired by deal)", _head_to_head_finding(frames)), ""]
    return "\n".join(lines)


def _head_to_head_finding(frames: dict) -> str:
    """The head-to-head figure's finding, from what it draws: the lot effects' range in
    self-play and in the tables, and the strength shares' range."""
    rows = head_to_head_rows(frames)
    own = rows[rows["table"] == mixed_tables.SELF_PLAY]["lot_effect"]
    mixed = rows[rows["table"] != mixed_tables.SELF_PLAY]
    text = "Within a strategy the first lot is worth "
    if len(own):
        text += f"{100 * own.min():+.1f} to {100 * own.max():+.1f} pp in self-play and "
    text += (f"{100 * mixed['lot_effect'].min():+.1f} to {100 * mixed['lot_effect'].max():+.1f} "
             "pp in the mixed tables, while the strategies' match win shares there run from "
             f"{100 * mixed['strength'].min():.1f}% to {100 * mixed['strength'].max():.1f}%")
    return text
