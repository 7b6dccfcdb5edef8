"""Seats: the value of winning the first lot, and seat effects with 3 and 4 players.

The first leader is drawn by a uniform lot (ruling 14), so absolute seats
are equivalent by construction; what matters is where a seat sits relative
to the first leader. For every strategy (in self-play) and player count:

- ``first_lot``: the match win rate of the side that won the first lot, with
  a 95% Wilson interval, against the fair share (1/2, 1/3 or 1/2 for
  partnerships), and the lot's edge: the lot winner's win rate minus an
  average other side's;
- ``positions``: the match win rate of each seat counted clockwise from the
  first leader (0 = the lot winner); with 4 players positions 0 and 2 are the
  leader's partnership, 1 and 3 the other;
- ``absolute_seats``: win rate by absolute seat (a check: every seat should
  be at the fair share);
- ``round_positions``: per round, the share of rounds won by each side
  counted clockwise from that round's leader (a blocked tie or a round cut
  short by the target counts for nobody), and the leader's mean round point
  differential.

Mixed tables (``--table A,B``): every frame also holds rows per (table, players,
strategy), from the same matches with intervals clustered by deal: ``first_lot``
and ``positions`` for the seats the strategy held, ``absolute_seats`` for the
matches in which each seat played it, ``round_positions`` for the rounds its
entity led; plus ``head_to_head`` (win rates per entity, with and without the
first lot).

Run ``five-up seats --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import study_plots, table_plots
from experiments.mixed_tables import SELF_PLAY, entity_names, strategies_in
from experiments.reports import ExperimentResult, fmt_ci, md_table, summary_head
from experiments.runs import run_experiment
from experiments.settings import study_settings
from experiments.sources import leader_differential, pairs
from experiments.stats import (
    clustered_proportion,
    clustered_ratio,
    mean_interval,
    proportion,
)
from sim.tiles import entities_for, entity_count

NAME = "seats"


def run(players=(2, 3, 4), strategies=("greedy", "random"), matches: int = 20_000, seed: int = 0,
        threads: int | None = None, progress: bool = False, out=None,
        rounds: dict | None = None, backend="local", shard_size: int | None = None,
        keep_shards: bool = False, tables=None, table_matches: int | None = None,
        sealed: bool = False, secret: str | None = None, decision_timeout: float | None = None
        ) -> ExperimentResult:
    """Run the seats study (arguments as :func:`experiments.overshoot.run`).

    ``rounds`` may hold precomputed :func:`experiments.sources.collect_rounds`
    output for the same settings; ``backend``, ``shard_size`` and
    ``keep_shards`` as :func:`experiments.overshoot.run`.

    ``tables`` and ``table_matches``: mixed tables besides self-play, and ``sealed``,
    ``secret`` and ``decision_timeout``: the run's sealing, as :func:`experiments.overshoot.run`.

    Returns
    -------
    ExperimentResult
        Frames ``first_lot``, ``positions``, ``absolute_seats``, ``round_positions``
        (every row with a ``table`` column, ``"self-play"`` for self-play) and, with
        mixed tables, ``head_to_head``; every frame then also holds a
        row per (table, players, strategy).
    """
    settings = study_settings(NAME, players, strategies, matches, seed, tables, table_matches,
                              sealed=sealed, secret=secret, decision_timeout=decision_timeout)

    def compute(data):
        source = data.rounds() if rounds is None else rounds
        return analyse(source, settings, data.table_rounds())

    return run_experiment(settings, compute, out=out, backend=backend, shard_size=shard_size,
                          threads=threads, progress=progress, keep_shards=keep_shards)


def analyse(rounds: dict, settings: dict, tables=()) -> ExperimentResult:
    """The study's frames from ``(strategy, players) -> rounds`` pairs (a dict or iterable) and
    the mixed tables' ``(table, players) -> experiments.sources.TableData`` pairs
    (:meth:`experiments.sources.DataRun.table_rounds`)."""
    lot, positions, absolute, round_pos = [], [], [], []
    for (strategy, players), frame in pairs(rounds):
        a, b, c, d = _tables(frame, strategy, players)
        lot.append(a)
        positions.append(b)
        absolute.append(c)
        round_pos.append(d)
    for frame in lot + positions + absolute + round_pos:
        frame["table"] = SELF_PLAY
    head = []
    for (label, players), table in pairs(tables):
        a, b, c = _mixed(table, label, players)
        lot += a
        positions += b
        head += c
        absolute += _mixed_absolute(table, label, players)
        round_pos += _mixed_round_positions(table, label, players)
    frames = {
        "first_lot": pd.concat(lot, ignore_index=True),
        "positions": pd.concat(positions, ignore_index=True),
        "absolute_seats": pd.concat(absolute, ignore_index=True),
        "round_positions": pd.concat(round_pos, ignore_index=True),
    }
    selfplay = {name: frame[frame["table"] == SELF_PLAY] for name, frame in frames.items()}
    plots = {"seats": lambda p: study_plots.plot_seats(selfplay["positions"], p, settings)}
    key = _key_numbers(selfplay)
    markdown = _markdown(settings, selfplay, key)
    if head:
        frames["head_to_head"] = pd.concat(head, ignore_index=True)
        key.update(_table_key_numbers(frames["head_to_head"]))
        plots["head_to_head"] = lambda p: table_plots.plot_head_to_head(
            frames["head_to_head"], HEAD_TO_HEAD_PANELS, p, settings,
            "Seats head to head: who wins, per strategy, from the same matches")
        markdown = _markdown(settings, selfplay, key) + _table_markdown(frames)
    return ExperimentResult(NAME, settings, frames, markdown, plots, key)


def _mixed(table, label: str, players: int):
    """``first_lot`` and ``positions`` rows and the ``head_to_head`` row of each strategy of one
    mixed table (every rotation on the same deals: intervals clustered by deal)."""
    rounds = table.data
    first = rounds[rounds["round"] == 0]
    rotation = first["rotation"].to_numpy().astype(np.int64)
    deal = first["match"].to_numpy()
    winner = first["match_winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    leader = first["leader"].to_numpy().astype(np.int64)
    n_entities = entity_count(players)
    fair = 1.0 / n_entities
    seat_names = np.stack([entity_names(table.rotations, rotation,
                                        np.full(len(first), entity_of_seat))
                           for entity_of_seat in entities_for(players)], axis=1)
    entity_strategy = np.stack([entity_names(table.rotations, rotation, np.full(len(first), e))
                                for e in range(n_entities)], axis=1)
    rows = np.arange(len(first))
    seat_entity = np.asarray(entities_for(players), dtype=np.int64)
    won_by = entity_strategy[rows, np.maximum(winner, 0)]
    lot_by = seat_names[rows, leader]
    lots, positions, head = [], [], []
    scale = 1 + 1 / (n_entities - 1)
    for strategy in strategies_in(table.rotations):
        mine = entity_strategy == strategy
        wins = finished & (won_by == strategy)
        r = clustered_ratio(wins[finished].astype(np.float64),
                            mine.sum(axis=1)[finished].astype(np.float64), deal[finished]).iloc[0]
        lot_mask = finished & (lot_by == strategy)
        # the lot winner's own entity won (not merely one of the strategy's entities)
        p = _clustered((winner == seat_entity[leader])[lot_mask], deal[lot_mask])
        other = finished & (lot_by != strategy)
        q = clustered_ratio(wins[other].astype(np.float64),
                            mine.sum(axis=1)[other].astype(np.float64), deal[other])
        q = ((float(q["ratio"].iloc[0]), float(q["low"].iloc[0]), float(q["high"].iloc[0]))
             if len(q) else (np.nan, np.nan, np.nan))
        head.append(pd.DataFrame([{
            "table": label, "players": players, "strategy": strategy,
            "deals": int(np.unique(deal).size), "matches": len(first),
            "finished": int(finished.sum()), "entities_per_match": float(mine.sum(axis=1).mean()),
            "wins": int(wins.sum()), "win_rate": float(r["ratio"]), "win_low": float(r["low"]),
            "win_high": float(r["high"]), "fair_share": fair,
            "lot_matches": int(lot_mask.sum()), "lot_win_rate": p[0], "lot_win_low": p[1],
            "lot_win_high": p[2], "no_lot_win_rate": q[0], "no_lot_win_low": q[1],
            "no_lot_win_high": q[2],
        }]))
        lots.append(pd.DataFrame([{
            "strategy": strategy, "players": players, "matches": int((lot_by == strategy).sum()),
            "finished": int(lot_mask.sum()),
            "lot_side_wins": int((winner == seat_entity[leader])[lot_mask].sum()),
            "win_rate": p[0], "win_low": p[1], "win_high": p[2], "fair_share": fair,
            "edge": p[0] * scale - 1 / (n_entities - 1),
            "edge_low": p[1] * scale - 1 / (n_entities - 1),
            "edge_high": p[2] * scale - 1 / (n_entities - 1), "table": label}]))
        out = []
        for position in range(players):
            seat = (leader + position) % players
            here = finished & (seat_names[rows, seat] == strategy)
            won_here = winner == seat_entity[seat]
            p = _clustered(won_here[here], deal[here])
            out.append({"strategy": strategy, "players": players, "position": position,
                        "side": ("leader's partnership" if position % 2 == 0
                                 else "other partnership") if players == 4
                        else ("lot winner" if position == 0 else f"+{position}"),
                        "matches": int(here.sum()), "wins": int(won_here[here].sum()),
                        "win_rate": p[0], "win_low": p[1], "win_high": p[2], "table": label})
        positions.append(pd.DataFrame(out))
    return lots, positions, head


def _mixed_absolute(table, label: str, players: int) -> list[pd.DataFrame]:
    """``absolute_seats`` rows of one mixed table: per strategy and seat, the matches in which
    that seat played the strategy, and how often the seat's entity won (deal-clustered)."""
    first = table.data[table.data["round"] == 0]
    rotation = first["rotation"].to_numpy().astype(np.int64)
    deal = first["match"].to_numpy()
    winner = first["match_winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    out = []
    for strategy in strategies_in(table.rotations):
        rows = []
        for seat, entity in enumerate(entities_for(players)):
            here = finished & (entity_names(table.rotations, rotation,
                                            np.full(len(first), entity)) == strategy)
            won = winner == entity
            p = _clustered(won[here], deal[here])
            rows.append({"strategy": strategy, "players": players, "seat": seat,
                         "entity": int(entity), "matches": int(here.sum()),
                         "wins": int(won[here].sum()), "win_rate": p[0], "win_low": p[1],
                         "win_high": p[2], "table": label})
        out.append(pd.DataFrame(rows))
    return out


def _mixed_round_positions(table, label: str, players: int) -> list[pd.DataFrame]:
    """``round_positions`` rows of one mixed table: per strategy, the rounds its entity led,
    who won them counted clockwise from the leader's side, and the leader's round
    differential (intervals clustered by deal)."""
    rounds = table.data
    n_entities = entity_count(players)
    leader = rounds["leader_entity"].to_numpy().astype(np.int64)
    led_by = entity_names(table.rotations, rounds["rotation"], leader)
    round_winner = rounds["winner"].to_numpy().astype(np.int64)
    deal = rounds["match"].to_numpy()
    diff = leader_differential(rounds, players)
    out = []
    for strategy in strategies_in(table.rotations):
        mine = led_by == strategy
        total = int(mine.sum())
        d = clustered_ratio(diff[mine], 1.0, deal[mine]) if total else None
        mean, dlow, dhigh = ((float(d["ratio"].iloc[0]), float(d["low"].iloc[0]),
                              float(d["high"].iloc[0])) if total else (np.nan,) * 3)
        rows = []
        for offset in range(n_entities):
            won = round_winner[mine] == (leader[mine] + offset) % n_entities
            p = _clustered(won, deal[mine])
            rows.append({"strategy": strategy, "players": players, "offset": offset,
                         "side": "leader's side" if offset == 0 else f"+{offset}",
                         "rounds": total, "round_wins": int(won.sum()), "rate": p[0],
                         "low": p[1], "high": p[2],
                         "leader_diff_mean": mean if offset == 0 else np.nan,
                         "leader_diff_low": dlow if offset == 0 else np.nan,
                         "leader_diff_high": dhigh if offset == 0 else np.nan, "table": label})
        nobody = round_winner[mine] < 0
        p = _clustered(nobody, deal[mine])
        rows.append({"strategy": strategy, "players": players, "offset": -1, "side": "nobody",
                     "rounds": total, "round_wins": int(nobody.sum()), "rate": p[0],
                     "low": p[1], "high": p[2], "leader_diff_mean": np.nan,
                     "leader_diff_low": np.nan, "leader_diff_high": np.nan, "table": label})
        out.append(pd.DataFrame(rows))
    return out


def _clustered(mask: np.ndarray, clusters: np.ndarray) -> tuple[float, float, float]:
    """Share of ``mask`` with its 95% Wilson interval clustered by deal (nan, 0, 1 if empty)."""
    if mask.size == 0:
        return np.nan, 0.0, 1.0
    r = clustered_proportion(mask, clusters).iloc[0]
    return float(r["rate"]), float(r["low"]), float(r["high"])


HEAD_TO_HEAD_PANELS = (
    table_plots.Panel("win_rate", "win_low", "win_high",
                      "match win rate per entity\n(paired 95%, deals as clusters)", rate=True,
                      fair="fair_share", full=True),
    table_plots.Panel("lot_win_rate", "lot_win_low", "lot_win_high",
                      "win rate when the strategy\nwon the first lot (95%)", rate=True,
                      fair="fair_share", full=True),
    table_plots.Panel("no_lot_win_rate", "no_lot_win_low", "no_lot_win_high",
                      "win rate per entity when another\nstrategy won the lot (95%)",
                      rate=True, fair="fair_share", full=True),
)
"""The head-to-head figure's rows: column, interval columns, y label."""


def _table_key_numbers(head: pd.DataFrame) -> dict:
    key = {}
    for row in head.itertuples(index=False):
        tag = f"{row.table}, {row.players}p: {row.strategy}"
        key[f"{tag}: match win rate per entity (paired, fair {row.fair_share:.3f})"] = fmt_ci(
            row.win_rate, row.win_low, row.win_high, 4)
        key[f"{tag}: win rate when it won the first lot"] = fmt_ci(
            row.lot_win_rate, row.lot_win_low, row.lot_win_high, 4)
    return key


def _table_markdown(frames: dict) -> str:
    head = frames["head_to_head"]
    lines = ["", "## Head to head (mixed tables)", "",
             ("Each table is played in every rotation of its strategies over the entities "
              "(every strategy at every seat) on the same deals (duplicate deals: match i of "
              "every rotation is one deal), so who wins is measured free of the seat and the "
              "lot. `win rate` = the strategy's share of finished matches won, per entity (with "
              "two strategies at 3 players, the one named second has two entities: its rate is "
              "per entity, fair share 1/3), with the paired 95% interval (deals as clusters: the "
              "ratio-of-sums interval of a duplicate tournament); `won the lot` / `lost the "
              "lot` = its win rate per entity in the matches where one of its entities / another "
              "strategy's won the first lot (match-clustered Wilson)."), ""]
    for label, table in head.groupby("table", sort=False):
        out = pd.DataFrame({
            "players": table["players"], "strategy": table["strategy"],
            "entities / match": table["entities_per_match"], "finished": table["finished"],
            "win rate (paired)": [fmt_ci(a, b, c, 4) for a, b, c in zip(
                table.win_rate, table.win_low, table.win_high)],
            "fair": table["fair_share"],
            "won the lot": [fmt_ci(a, b, c, 3) for a, b, c in zip(
                table.lot_win_rate, table.lot_win_low, table.lot_win_high)],
            "lost the lot": [fmt_ci(a, b, c, 3) for a, b, c in zip(
                table.no_lot_win_rate, table.no_lot_win_low, table.no_lot_win_high)],
        })
        lines += [f"### {label}", "", md_table(out, 3), ""]
    pos = frames["positions"]
    mixed = pos[pos["table"] != SELF_PLAY]
    lines += ["### Win rate by seat from the first leader, per strategy", "",
              md_table(mixed[["table", "players", "strategy", "position", "side", "matches",
                              "win_rate", "win_low", "win_high"]], 4), "",
              ("`matches` = finished matches with the strategy at that position; intervals "
               "match-clustered by deal."), ""]
    rp = frames["round_positions"]
    led = rp[(rp["table"] != SELF_PLAY) & (rp["offset"] == 0)]
    lines += ["### Rounds the strategy's side led", "",
              md_table(led[["table", "players", "strategy", "rounds", "rate", "low", "high",
                            "leader_diff_mean", "leader_diff_low", "leader_diff_high"]], 3), "",
              ("`rate` = share of those rounds the leader's side won; `leader_diff` = its "
               "round point differential (displayed points); every side and seat: "
               "`round_positions`, `absolute_seats` (rows with `table`)."), "",
              "Plot: `head_to_head.png`.", ""]
    return "\n".join(lines)


def _entity(seat: np.ndarray, players: int) -> np.ndarray:
    return np.asarray(entities_for(players))[seat]


def _tables(rounds: pd.DataFrame, strategy: str, players: int):
    n_entities = entity_count(players)
    first = rounds[rounds["round"] == 0]
    winner = first["match_winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    leader = first["leader"].to_numpy().astype(np.int64)
    fair = 1.0 / n_entities

    lot_wins = int((winner[finished] == _entity(leader[finished], players)).sum())
    n = int(finished.sum())
    p = proportion(lot_wins, n)
    rate, low, high = float(p["rate"]), float(p["low"]), float(p["high"])
    scale = 1 + 1 / (n_entities - 1)
    first_lot = pd.DataFrame([{
        "strategy": strategy, "players": players, "matches": len(first), "finished": n,
        "lot_side_wins": lot_wins, "win_rate": rate, "win_low": low, "win_high": high,
        "fair_share": fair,
        "edge": rate * scale - 1 / (n_entities - 1),
        "edge_low": low * scale - 1 / (n_entities - 1),
        "edge_high": high * scale - 1 / (n_entities - 1),
    }])

    rows = []
    for position in range(players):
        seat = (leader + position) % players
        wins = int((winner[finished] == _entity(seat[finished], players)).sum())
        p = proportion(wins, n)
        rows.append({"strategy": strategy, "players": players, "position": position,
                     "side": ("leader's partnership" if position % 2 == 0 else "other partnership")
                     if players == 4 else ("lot winner" if position == 0 else f"+{position}"),
                     "matches": n, "wins": wins, "win_rate": float(p["rate"]),
                     "win_low": float(p["low"]), "win_high": float(p["high"])})
    positions = pd.DataFrame(rows)

    rows = []
    for seat in range(players):
        wins = int((winner[finished] == _entity(np.array([seat]), players)[0]).sum())
        p = proportion(wins, n)
        rows.append({"strategy": strategy, "players": players, "seat": seat,
                     "entity": int(_entity(np.array([seat]), players)[0]), "matches": n,
                     "wins": wins, "win_rate": float(p["rate"]), "win_low": float(p["low"]),
                     "win_high": float(p["high"])})
    absolute = pd.DataFrame(rows)

    round_winner = rounds["winner"].to_numpy().astype(np.int64)
    round_leader = rounds["leader_entity"].to_numpy().astype(np.int64)
    total = len(rounds)
    diff = leader_differential(rounds, players)
    mean, dlow, dhigh = mean_interval(diff)
    rows = []
    for offset in range(n_entities):
        side = (round_leader + offset) % n_entities
        wins = int((round_winner == side).sum())
        p = proportion(wins, total)
        rows.append({"strategy": strategy, "players": players, "offset": offset,
                     "side": "leader's side" if offset == 0 else f"+{offset}",
                     "rounds": total, "round_wins": wins, "rate": float(p["rate"]),
                     "low": float(p["low"]), "high": float(p["high"]),
                     "leader_diff_mean": mean if offset == 0 else np.nan,
                     "leader_diff_low": dlow if offset == 0 else np.nan,
                     "leader_diff_high": dhigh if offset == 0 else np.nan})
    no_winner = int((round_winner < 0).sum())
    p = proportion(no_winner, total)
    rows.append({"strategy": strategy, "players": players, "offset": -1, "side": "nobody",
                 "rounds": total, "round_wins": no_winner, "rate": float(p["rate"]),
                 "low": float(p["low"]), "high": float(p["high"]), "leader_diff_mean": np.nan,
                 "leader_diff_low": np.nan, "leader_diff_high": np.nan})
    round_positions = pd.DataFrame(rows)
    return first_lot, positions, absolute, round_positions


def _key_numbers(frames: dict) -> dict:
    key = {}
    for row in frames["first_lot"].itertuples(index=False):
        tag = f"{row.strategy}, {row.players}p"
        key[f"{tag}: lot winner's side wins (fair {row.fair_share:.3f})"] = fmt_ci(
            row.win_rate, row.win_low, row.win_high, 4)
        key[f"{tag}: edge of the first lot (vs an average other side)"] = fmt_ci(
            row.edge, row.edge_low, row.edge_high, 4)
    pos = frames["positions"]
    for (strategy, players), sel in pos[pos.players == 3].groupby(["strategy", "players"]):
        key[f"{strategy}, 3p: win rate by seat from the first leader (0, +1, +2)"] = ", ".join(
            fmt_ci(r.win_rate, r.win_low, r.win_high, 3) for r in sel.itertuples())
    rp = frames["round_positions"]
    for row in rp[rp.offset == 0].itertuples(index=False):
        key[f"{row.strategy}, {row.players}p: round leader's side wins the round"] = fmt_ci(
            row.rate, row.low, row.high, 4)
    return key


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    s = settings
    lines = summary_head("Seats and the first lot", s,
                         "95% Wilson intervals; unfinished matches are left out of win rates. Win "
                         "rates are shares of finished matches; a side is a player, or with 4 "
                         "players a partnership (seats 0 and 2, 1 and 3).") + [
        "",
        "## Key numbers",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    lines += ["", "## The first lot", "",
              "`edge` = the lot winner's side's win rate minus an average other side's.", "",
              md_table(frames["first_lot"][["strategy", "players", "finished", "win_rate",
                                            "win_low", "win_high", "fair_share", "edge",
                                            "edge_low", "edge_high"]], 4)]
    lines += ["", "## Match win rate by seat, clockwise from the first leader", "",
              md_table(frames["positions"][["strategy", "players", "position", "side",
                                            "matches", "win_rate", "win_low", "win_high"]], 4),
              "", ("With 4 players positions 0 and 2 (1 and 3) sit in one partnership: their rows "
              "are the same side counted twice, and `seats.png` shows each side once.")]
    lines += ["", "## Check: win rate by absolute seat (fair by construction)", "",
              md_table(frames["absolute_seats"][["strategy", "players", "seat", "win_rate",
                                                 "win_low", "win_high"]], 4)]
    lines += ["", "## Rounds: who wins a round, clockwise from its leader", "",
              ("`nobody` = blocked ties and rounds cut short when the target was hit; "
              "`leader_diff_mean` = the leader's side's round points minus the opponents' mean "
              "(displayed)."), "",
              md_table(frames["round_positions"][["strategy", "players", "side", "rounds",
                                                  "rate", "low", "high",
                                                  "leader_diff_mean"]], 4)]
    lines += ["", "Plot: `seats.png`.", ""]
    return "\n".join(lines)
