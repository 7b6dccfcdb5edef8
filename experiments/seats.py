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

Run ``five-up seats --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import study_plots
from experiments.reports import ExperimentResult, fmt_ci, md_table, summary_head
from experiments.runs import run_experiment
from experiments.settings import study_settings
from experiments.sources import leader_differential, pairs
from experiments.stats import mean_interval, proportion
from sim.tiles import entities_for, entity_count

NAME = "seats"


def run(players=(2, 3, 4), strategies=("greedy", "random"), matches: int = 20_000, seed: int = 0,
        threads: int | None = None, progress: bool = False, out=None,
        rounds: dict | None = None, backend="local", shard_size: int | None = None,
        keep_shards: bool = False) -> ExperimentResult:
    """Run the seats study (arguments as :func:`experiments.overshoot.run`).

    ``rounds`` may hold precomputed :func:`experiments.sources.collect_rounds`
    output for the same settings; ``backend``, ``shard_size`` and
    ``keep_shards`` as :func:`experiments.overshoot.run`.

    Returns
    -------
    ExperimentResult
        Frames ``first_lot``, ``positions``, ``absolute_seats``, ``round_positions``.
    """
    settings = study_settings(NAME, players, strategies, matches, seed)
    return run_experiment(
        settings, lambda data: analyse(data.rounds() if rounds is None else rounds, settings),
        out=out, backend=backend, shard_size=shard_size, threads=threads, progress=progress,
        keep_shards=keep_shards)


def analyse(rounds: dict, settings: dict) -> ExperimentResult:
    lot, positions, absolute, round_pos = [], [], [], []
    for (strategy, players), frame in pairs(rounds):
        a, b, c, d = _tables(frame, strategy, players)
        lot.append(a)
        positions.append(b)
        absolute.append(c)
        round_pos.append(d)
    frames = {
        "first_lot": pd.concat(lot, ignore_index=True),
        "positions": pd.concat(positions, ignore_index=True),
        "absolute_seats": pd.concat(absolute, ignore_index=True),
        "round_positions": pd.concat(round_pos, ignore_index=True),
    }
    plots = {"seats": lambda p: study_plots.plot_seats(frames["positions"], p)}
    key = _key_numbers(frames)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


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
                         "95% Wilson intervals; unfinished matches are left out of win rates.") + [
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
                                            "matches", "win_rate", "win_low", "win_high"]], 4)]
    lines += ["", "## Check: win rate by absolute seat (fair by construction)", "",
              md_table(frames["absolute_seats"][["strategy", "players", "seat", "win_rate",
                                                 "win_low", "win_high"]], 4)]
    lines += ["", "## Rounds: who wins a round, clockwise from its leader", "",
              "`nobody` = blocked ties and rounds cut short when the target was hit; "
              "`leader_diff_mean` = the leader's side's round points minus the opponents' mean "
              "(displayed).", "",
              md_table(frames["round_positions"][["strategy", "players", "side", "rounds",
                                                  "rate", "low", "high",
                                                  "leader_diff_mean"]], 4)]
    lines += ["", "Plot: `seats.png`.", ""]
    return "\n".join(lines)
