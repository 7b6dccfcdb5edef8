"""Match length and score paths: how many rounds a match lasts, and how the scores get to 61.

For every strategy (in self-play) and player count:

- ``lengths``: rounds per match (mean with a 95% interval, the match being
  the unit; p10, median, p90 as the smallest value whose cumulative share
  reaches 10%, 50%, 90%; min, max), the share of matches lasting at least
  :data:`LONG_MATCH_ROUNDS` rounds (Wilson interval), and placements and
  turns per match (a turn ends with a play or a pass: turns = placements +
  passes);
- ``rounds_hist``: matches by rounds played (for the distribution plot);
- ``trajectories``: the displayed score of the eventual winner and of the
  losers after each of the first :data:`HORIZON` rounds: mean and the 10%,
  50% and 90% quantiles. A match that ended earlier is **carried at its final
  score** (so the winner's mean tends to 61); ``mean_in_play`` is the same
  mean over the matches that played that round only. The losers are pooled:
  with 3 players each finished match gives two loser values per round;
- ``gaps``: per round, the eventual winner's score minus the best loser's
  (the highest loser score after that round; with 2 entities, the only
  loser), mean with a 95% interval over finished matches (carried, as
  above), and the share of matches whose eventual winner leads strictly after
  that round (Wilson).

Scores are displayed points (1 displayed = 5 raw; 61 displayed = 305 raw
is the target). Matches cut off unfinished by the engine's round limit have
no winner: they count in ``lengths`` (column ``unfinished``) but not in the
trajectories or gaps.

Computed from the trace source (:meth:`experiments.sources.DataRun.traces`):
the match frame gives rounds, placements and passes; the score events, summed
per round, give the trajectories.

Run ``five-up lengths --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import length_plots
from experiments.reports import ExperimentResult, fmt_ci, md_table, summary_head
from experiments.runs import run_traced
from experiments.sources import pairs
from experiments.stats import mean_interval, proportion
from sim.tiles import RAW_PER_DISPLAYED, TARGET_RAW, entity_count

NAME = "lengths"
HORIZON = 20
"""Rounds covered by the trajectories and gaps (later rounds change few matches' scores)."""
LONG_MATCH_ROUNDS = 10
"""``share_long``: matches lasting at least this many rounds."""
GAP_ROUNDS = (1, 3, 5)
"""Rounds whose mean gap is quoted in the key numbers."""
QUANTILE_METHOD = "inverted_cdf"
"""Quantiles are observed values: the smallest value whose cumulative share reaches q."""


def run(players=(2, 3, 4), strategies=("greedy", "random"), matches: int = 10_000, seed: int = 0,
        threads: int | None = None, progress: bool = False, out=None,
        traces: dict | None = None, backend="local", shard_size: int | None = None,
        keep_shards: bool = False) -> ExperimentResult:
    """Run the match-length study (arguments as :func:`experiments.overshoot.run`).

    ``traces`` may hold precomputed :func:`experiments.sources.collect_traces`
    output for the same settings.

    Returns
    -------
    ExperimentResult
        Frames ``lengths``, ``rounds_hist``, ``trajectories``, ``gaps``.
    """
    return run_traced(NAME, analyse, players, strategies, matches, seed, traces=traces,
                      threads=threads, progress=progress, out=out, backend=backend,
                      shard_size=shard_size, keep_shards=keep_shards)


def analyse(traces, settings: dict) -> ExperimentResult:
    """The study's frames from ``(strategy, players) -> StudyTrace`` pairs (a dict or iterable)."""
    lengths, hist, paths, gaps = [], [], [], []
    for (strategy, players), trace in pairs(traces):
        lengths.append(_lengths(trace.matches, strategy, players))
        hist.append(_rounds_hist(trace.matches, strategy, players))
        scores = score_paths(trace.matches, trace.events, players)
        paths.append(_trajectories(trace.matches, scores, strategy, players))
        gaps.append(_gaps(trace.matches, scores, strategy, players))
    frames = {
        "lengths": pd.concat(lengths, ignore_index=True),
        "rounds_hist": pd.concat(hist, ignore_index=True),
        "trajectories": pd.concat(paths, ignore_index=True),
        "gaps": pd.concat(gaps, ignore_index=True),
    }
    plots = {
        "rounds_per_match":
            lambda p: length_plots.plot_rounds_per_match(frames["rounds_hist"], p, settings),
        "score_paths":
            lambda p: length_plots.plot_score_paths(frames["trajectories"], p, settings),
        "score_gap": lambda p: length_plots.plot_score_gap(frames["gaps"], p, settings),
    }
    key = _key_numbers(frames)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


def score_paths(matches: pd.DataFrame, events: pd.DataFrame, players: int,
                horizon: int = HORIZON) -> np.ndarray:
    """Every entity's raw score after each of the first ``horizon`` rounds of every match.

    Parameters
    ----------
    matches : DataFrame
        A trace's match frame (column ``match``, in increasing order).
    events : DataFrame
        Its score events (``match``, ``round``, ``entity``, ``raw``, ``accepted``).
    players : int
    horizon : int

    Returns
    -------
    ndarray of int64, shape (len(matches), horizon, entities)
        ``[m, k, e]``: entity ``e``'s raw score after round ``k`` (0-based) of
        match ``m``; after a match's last round its final score is carried.
    """
    n_entities = entity_count(players)
    ids = matches["match"].to_numpy()
    position = np.searchsorted(ids, events["match"].to_numpy())
    rounds = events["round"].to_numpy().astype(np.int64)
    gained = np.where(events["accepted"].to_numpy(), events["raw"].to_numpy(), 0)
    # events after the horizon cannot change a score before it: drop them
    keep = rounds < horizon
    flat = ((position[keep] * horizon + rounds[keep]) * n_entities
            + events["entity"].to_numpy().astype(np.int64)[keep])
    per_round = np.bincount(flat, weights=gained[keep], minlength=len(ids) * horizon * n_entities)
    per_round = np.rint(per_round).astype(np.int64).reshape(len(ids), horizon, n_entities)
    return per_round.cumsum(axis=1)


def _quantiles(values, qs=(0.1, 0.5, 0.9)) -> list[float]:
    values = np.asarray(values)
    if values.size == 0:
        return [np.nan] * len(qs)
    return [float(v) for v in np.quantile(values, qs, method=QUANTILE_METHOD)]


def _lengths(matches: pd.DataFrame, strategy: str, players: int) -> pd.DataFrame:
    rounds = matches["rounds"].to_numpy().astype(np.int64)
    placements = matches["placements"].to_numpy().astype(np.int64)
    turns = placements + matches["passes"].to_numpy().astype(np.int64)
    finished = matches["winner"].to_numpy() >= 0
    row = {"strategy": strategy, "players": players, "matches": len(matches),
           "unfinished": int((~finished).sum())}
    mean, low, high = mean_interval(rounds)
    row.update(rounds_mean=mean, rounds_low=low, rounds_high=high)
    row["rounds_p10"], row["rounds_median"], row["rounds_p90"] = _quantiles(rounds)
    row["rounds_min"], row["rounds_max"] = int(rounds.min()), int(rounds.max())
    long = int((rounds >= LONG_MATCH_ROUNDS).sum())
    p = proportion(long, len(rounds))
    row.update(long_matches=long, share_long=float(p["rate"]), share_long_low=float(p["low"]),
               share_long_high=float(p["high"]))
    for name, values in (("placements", placements), ("turns", turns)):
        mean, low, high = mean_interval(values)
        row.update({f"{name}_mean": mean, f"{name}_low": low, f"{name}_high": high,
                    f"{name}_median": _quantiles(values, (0.5,))[0]})
    row["placements_per_round"] = float(placements.sum() / rounds.sum())
    return pd.DataFrame([row])


def _rounds_hist(matches: pd.DataFrame, strategy: str, players: int) -> pd.DataFrame:
    counts = matches["rounds"].value_counts().sort_index()
    share = counts.to_numpy() / counts.sum()
    return pd.DataFrame({"strategy": strategy, "players": players,
                         "rounds": counts.index.to_numpy().astype("int64"),
                         "matches": counts.to_numpy().astype("int64"), "share": share,
                         "cumulative": np.cumsum(share)})


def _sides(matches: pd.DataFrame, scores: np.ndarray):
    """Finished matches only: the winner's displayed path (m, horizon) and the losers'
    (m, horizon, entities - 1), and the rounds each match lasted."""
    winner = matches["winner"].to_numpy().astype(np.int64)
    finished = winner >= 0
    shown = scores[finished] // RAW_PER_DISPLAYED
    winner = winner[finished]
    n_entities = scores.shape[2]
    mine = np.arange(n_entities)[None, :] == winner[:, None]
    won = shown[np.arange(len(winner)), :, winner]
    lost = shown.transpose(0, 2, 1)[~mine].reshape(len(winner), n_entities - 1, -1)
    return won, lost.transpose(0, 2, 1), matches["rounds"].to_numpy()[finished]


def _trajectories(matches, scores, strategy: str, players: int) -> pd.DataFrame:
    won, lost, rounds = _sides(matches, scores)
    rows = []
    for k in range(scores.shape[1]):
        in_play = rounds >= k + 1
        for side, values, alive in (("winner", won[:, k], in_play),
                                    ("loser", lost[:, k, :].ravel(),
                                     np.repeat(in_play, lost.shape[2]))):
            p10, p50, p90 = _quantiles(values)
            rows.append({"strategy": strategy, "players": players, "round": k + 1, "side": side,
                         "matches": len(won), "in_play": int(in_play.sum()),
                         "mean": float(values.mean()) if values.size else np.nan,
                         "p10": p10, "median": p50, "p90": p90,
                         "mean_in_play": float(values[alive].mean()) if alive.any() else np.nan})
    return pd.DataFrame(rows)


def _gaps(matches, scores, strategy: str, players: int) -> pd.DataFrame:
    won, lost, rounds = _sides(matches, scores)
    best = lost.max(axis=2)
    rows = []
    for k in range(scores.shape[1]):
        gap = won[:, k] - best[:, k]
        mean, low, high = mean_interval(gap)
        leads = int((gap > 0).sum())
        p = proportion(leads, len(gap))
        rows.append({"strategy": strategy, "players": players, "round": k + 1,
                     "matches": len(gap), "in_play": int((rounds >= k + 1).sum()),
                     "gap_mean": mean, "gap_low": low, "gap_high": high,
                     "winner_leads": leads, "leads_rate": float(p["rate"]),
                     "leads_low": float(p["low"]), "leads_high": float(p["high"])})
    return pd.DataFrame(rows)


def _key_numbers(frames: dict) -> dict:
    key = {}
    gaps = frames["gaps"].set_index(["strategy", "players", "round"])
    for row in frames["lengths"].itertuples(index=False):
        tag = f"{row.strategy}, {row.players}p"
        key[f"{tag}: rounds per match (median, p10-p90)"] = (
            f"{fmt_ci(row.rounds_mean, row.rounds_low, row.rounds_high, 2)} "
            f"(median {row.rounds_median:.0f}, {row.rounds_p10:.0f}-{row.rounds_p90:.0f})")
        key[f"{tag}: matches lasting {LONG_MATCH_ROUNDS}+ rounds"] = fmt_ci(
            row.share_long, row.share_long_low, row.share_long_high, pct=True)
        key[f"{tag}: turns per match"] = fmt_ci(row.turns_mean, row.turns_low, row.turns_high, 1)
        shown = [k for k in GAP_ROUNDS if (row.strategy, row.players, k) in gaps.index]
        if shown:
            key[f"{tag}: winner's lead over the best loser after rounds "
                f"{', '.join(map(str, shown))} (displayed)"] = ", ".join(
                f"{gaps.loc[(row.strategy, row.players, k), 'gap_mean']:.1f}" for k in shown)
    return key


def _pivot(frame: pd.DataFrame, index: list[str], value: str, rounds) -> pd.DataFrame:
    sel = frame[frame["round"].isin(rounds)]
    table = sel.pivot_table(index=index, columns="round", values=value, sort=False)
    table.columns = [f"after {c}" for c in table.columns]
    return table.reset_index()


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    lengths = frames["lengths"]
    horizon = int(frames["gaps"]["round"].max())
    shown = [k for k in (1, 2, 3, 5, 7, 10, 15, 20) if k <= horizon]
    lines = summary_head(
        "Match length and score paths", settings,
        "Intervals are 95% with the match as the unit (normal for means, Wilson for shares). "
        f"Scores are displayed points (1 displayed = 5 raw; {TARGET_RAW // RAW_PER_DISPLAYED} "
        f"displayed = {TARGET_RAW} raw is the target). Quantiles are observed values (the "
        "smallest value whose cumulative share reaches the level). A turn ends with a play or "
        "a pass (turns = placements + passes).") + ["", "## Key numbers", ""]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    lines += ["", "## Rounds and turns per match", "",
              (f"`share_long` = matches lasting at least {LONG_MATCH_ROUNDS} rounds; "
               "`unfinished` = matches stopped by the engine's round limit (counted here, left "
               "out of the score paths)."), "",
              md_table(lengths[["strategy", "players", "matches", "unfinished", "rounds_mean",
                                "rounds_low", "rounds_high", "rounds_p10", "rounds_median",
                                "rounds_p90", "rounds_max", "share_long", "placements_mean",
                                "turns_mean", "turns_median", "placements_per_round"]], 3)]
    lines += ["", "## Score paths (displayed points after each round)", "",
              ("Finished matches only. A match that ended before a round is carried at its "
               "final score (the winner at 61), so the winner's mean rises to 61; "
               "`mean_in_play` in `trajectories.csv` conditions on matches still being played. "
               "Losers are pooled (with 3 players, two per match)."), "",
              md_table(_pivot(frames["trajectories"], ["strategy", "players", "side"], "mean",
                              shown), 1)]
    lines += ["", "## The eventual winner's lead over the best loser (displayed points)", "",
              ("Mean of the winner's score minus the highest loser score after each round "
               "(carried as above; 95% intervals in `gaps.csv`), then the share of matches whose "
               "eventual winner already leads strictly."), "",
              md_table(_pivot(frames["gaps"], ["strategy", "players"], "gap_mean", shown), 1), "",
              md_table(_pivot(frames["gaps"], ["strategy", "players"], "leads_rate", shown), 3)]
    lines += ["", "Plots: `rounds_per_match.png`, `score_paths.png`, `score_gap.png`.", ""]
    return "\n".join(lines)
