"""Openings: which of the 28 tiles is worth leading with.

Two views.

Observed (per strategy in self-play and player count), ``tiles``: for each
tile as the match's first opening and as any round's opening, the leader's
mean round point differential (the leader's side's accepted points in that
round minus the opponents' mean, displayed points) and the leader's match win
rate, with 95% intervals. These are what the strategy *chose*: a strategy
opens with a tile because of the rest of its hand, so a tile's figures mix
the tile's own value with the hands it is chosen from (``random`` chooses
uniformly from the hand, the cleanest observational view).

Counterfactual (per player count), ``cf_*``: for sampled leader hands (seat
0's round-0 hands of matches ``0 .. hands-1`` of the seed: uniform random
hands), each of the 5 tiles is forced as the opening and the round is played
out ``playouts`` times by the fixed ``playout_strategy`` at every seat, the
23 unseen tiles re-dealt for each playout (the same re-deals for the 5 tiles
of a hand, so differences between tiles are sharp), from scores 0. The value
of an opening is the leader's mean round differential. Per hand: the best
opening and how much it beats the tile ``baseline`` (default ``greedy``)
opens with, in-sample (biased upward, the best of five noisy means) and
held out (the best picked on even-numbered playouts, measured on odd ones).
Per tile (``cf_tiles``): its mean value over the hands holding it, its value
relative to the hand's average opening, how often it is the hand's best, and
how often the baseline opens with it when it holds it.

Run ``five-up openings --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import pandas as pd

from experiments import study_plots
from experiments.reports import ExperimentResult, fmt_ci, md_table, summary_head
from experiments.runs import run_experiment
from experiments.settings import study_settings
from experiments.sources import DataRun, leader_differential, pairs
from experiments.stats import grouped_mean_ci, mean_interval, proportion
from sim.checks import check_int
from sim.engine.spec import check_threads
from sim.tiles import N_TILES, tile_name
from strategies.catalogue import check_distinct_names, resolve, resolve_field, spec_of, strategy_entries
from strategies.definition import Strategy

NAME = "openings"
TILE_NAMES = [tile_name(t) for t in range(N_TILES)]


def run(players=(2, 3, 4), strategies=("greedy", "random"), matches: int = 20_000,
        seed: int = 0, hands: int = 300, playouts: int = 100, playout_strategy="greedy",
        baseline="greedy", threads: int | None = None, progress: bool = False,
        out=None, backend="local", shard_size: int | None = None,
        keep_shards: bool = False) -> ExperimentResult:
    """Run the openings study.

    Parameters
    ----------
    players, strategies, matches, seed, threads, progress, out, backend, shard_size, keep_shards
        As :func:`experiments.overshoot.run` (``matches`` for the observed view;
        the counterfactual is sharded by
        :data:`experiments.sources.CF_HANDS_PER_SHARD` hands).
    hands : int
        Sampled leader hands per player count for the counterfactual (0 skips it).
    playouts : int
        Playouts per (hand, tile).
    playout_strategy : str or Strategy
        The strategy at every seat in the playouts (a spec or a Strategy).
    baseline : str or Strategy
        The strategy whose opening choice the best opening is compared with.

    Returns
    -------
    ExperimentResult
        Frames ``tiles`` and, with ``hands > 0``, ``cf_tiles``, ``cf_hands``,
        ``cf_summary``.
    """
    settings = settings_for(players, strategies, matches, seed, hands, playouts,
                            playout_strategy, baseline)

    def compute(data):
        # the observed tables are built one configuration at a time (memory)
        tiles = [_observed(frame, strategy, count) for (strategy, count), frame in data.rounds()]
        cf = data.counterfactuals() if settings["hands"] > 0 else {}
        return analyse(tiles, cf, settings)

    return run_experiment(settings, compute, out=out, backend=backend,
                                 shard_size=shard_size, threads=threads, progress=progress,
                                 keep_shards=keep_shards)


def settings_for(players, strategies, matches, seed, hands, playouts, playout_strategy,
                 baseline) -> dict:
    """Checked settings (raises ValueError, one line).

    Every strategy argument may be a spec (built-in name, ``MODULE:NAME``,
    ``FILE.py:NAME``, ``name[k=v]``) or a :class:`strategies.Strategy`; the
    settings hold names (the tables' labels), specs (what the shard jobs
    resolve) and code digests.
    """
    settings = study_settings(NAME, players, strategies, matches, seed)
    settings["hands"] = check_int(hands, "hands", 0)
    settings["playouts"] = check_int(playouts, "playouts", 2)
    playout = one_strategy(playout_strategy, "playout_strategy")
    base = one_strategy(baseline, "baseline")
    settings["playout_strategy"] = playout.name
    settings["baseline"] = base.name
    settings["playout_strategy_spec"] = spec_of(playout)
    settings["baseline_spec"] = spec_of(base)
    check_distinct_names(resolve_field(strategies) + [playout, base])
    settings["strategy_code"] = {**settings["strategy_code"], playout.name: playout.code_key,
                                 base.name: base.code_key}
    return settings


def one_strategy(entry, what: str) -> Strategy:
    """The :class:`strategies.Strategy` of one spec or object (ValueError naming ``what``)."""
    entries = strategy_entries(entry, what)
    if len(entries) != 1:
        raise ValueError(f"{what} takes one strategy, found {entry!r}")
    try:
        return resolve(entries[0])
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def counterfactuals(settings: dict, threads=None, progress: bool = False) -> dict:
    """:func:`sim.studies.openings.opening_counterfactual` per player count of ``settings`` (in
    memory, local backend: :meth:`experiments.sources.DataRun.counterfactuals`)."""
    with DataRun(settings, threads=check_threads(threads), progress=progress) as data:
        return data.counterfactuals()


def analyse(rounds, cf: dict, settings: dict) -> ExperimentResult:
    """Frames, plots and summary from the round frames and counterfactual results.

    ``rounds``: a dict ``(strategy, players) -> rounds frame``
    (:func:`experiments.sources.collect_rounds`), an iterable of such pairs, or a
    list of already built observed tables.
    """
    if isinstance(rounds, list) and all(isinstance(t, pd.DataFrame) for t in rounds):
        observed = rounds
    else:
        observed = [_observed(r, s, p) for (s, p), r in pairs(rounds)]
    frames = {"tiles": pd.concat(observed, ignore_index=True)}
    if cf:
        per_tile, per_hand, summary = [], [], []
        for count, result in cf.items():
            t, h, s = _counterfactual_tables(result)
            per_tile.append(t)
            per_hand.append(h)
            summary.append(s)
        frames["cf_tiles"] = pd.concat(per_tile, ignore_index=True)
        frames["cf_hands"] = pd.concat(per_hand, ignore_index=True)
        frames["cf_summary"] = pd.concat(summary, ignore_index=True)
    plots = {"opening_tiles": lambda p: study_plots.plot_opening_tiles(frames["tiles"], p)}
    if cf:
        plots["counterfactual"] = lambda p: study_plots.plot_counterfactual(
            frames["cf_tiles"], frames["cf_hands"], p)
    key = _key_numbers(frames)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


def _observed(rounds: pd.DataFrame, strategy: str, players: int) -> pd.DataFrame:
    frame = pd.DataFrame({
        "tile": pd.Categorical(rounds["opening"].astype(str), categories=TILE_NAMES),
        "first": rounds["round"].to_numpy() == 0,
        "diff": leader_differential(rounds, players),
        "won": (rounds["match_winner"].to_numpy() == rounds["leader_entity"].to_numpy()),
        "finished": rounds["match_winner"].to_numpy() >= 0,
        "points": rounds["opening_points"].to_numpy() / 5.0,
    })
    table = pd.DataFrame({"tile": TILE_NAMES}).set_index("tile")
    for label, sel in (("first", frame[frame["first"]]), ("any", frame)):
        stats = grouped_mean_ci(sel, ["tile"], "diff", f"{label}_diff")
        table = table.join(stats)
        done = sel[sel["finished"]]
        wins = done.groupby("tile", observed=False)["won"].agg(["sum", "count"])
        wins = wins.reindex(TILE_NAMES).fillna(0)
        p = proportion(wins["sum"].to_numpy(), wins["count"].to_numpy())
        table[f"{label}_win_rate"] = p["rate"]
        table[f"{label}_win_low"] = p["low"]
        table[f"{label}_win_high"] = p["high"]
    first = frame[frame["first"]]
    counts = first.groupby("tile", observed=False).size().reindex(TILE_NAMES).fillna(0)
    table["first_share"] = counts.to_numpy() / max(1, len(first))
    table["first_opening_points"] = first.groupby("tile", observed=False)["points"].mean(
        ).reindex(TILE_NAMES).to_numpy()
    table = table.rename(columns={"first_diff_n": "first_n", "any_diff_n": "any_n"})
    table = table.fillna({"first_n": 0, "any_n": 0}).astype({"first_n": "int64", "any_n": "int64"})
    table = table.reset_index()
    table.insert(0, "players", players)
    table.insert(0, "strategy", strategy)
    return table


def _counterfactual_tables(result) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    players = result.players
    per_tile = result.per_tile()
    hand_mean = per_tile.groupby("hand")["mean_diff"].transform("mean")
    per_tile["relative"] = per_tile["mean_diff"] - hand_mean
    best = per_tile.groupby("hand")["mean_diff"].transform("max")
    per_tile["regret"] = best - per_tile["mean_diff"]
    table = pd.DataFrame({"tile": TILE_NAMES}).set_index("tile")
    table = table.join(grouped_mean_ci(per_tile, ["tile"], "mean_diff", "value"))
    table = table.join(grouped_mean_ci(per_tile, ["tile"], "relative", "relative")
                       .drop(columns="relative_n"))
    grouped = per_tile.groupby("tile", observed=False)
    table["regret_mean"] = grouped["regret"].mean().reindex(TILE_NAMES).to_numpy()
    held = grouped.size().reindex(TILE_NAMES).fillna(0).to_numpy()
    best_count = grouped["is_best"].sum().reindex(TILE_NAMES).fillna(0).to_numpy()
    base_count = grouped["is_baseline"].sum().reindex(TILE_NAMES).fillna(0).to_numpy()
    p = proportion(best_count, held)
    table["best_share"], table["best_low"], table["best_high"] = p["rate"], p["low"], p["high"]
    table["baseline_share"] = proportion(base_count, held)["rate"]
    table = table.rename(columns={"value_n": "hands", "value_mean": "mean_diff",
                                  "value_low": "low", "value_high": "high"})
    table = table.fillna({"hands": 0}).astype({"hands": "int64"}).reset_index()
    table.insert(0, "playout_strategy", result.strategy)
    table.insert(0, "players", players)

    per_hand = result.per_hand()
    per_hand.insert(0, "players", players)

    gain = mean_interval(per_hand["gain"])
    held_out = mean_interval(per_hand["gain_heldout"])
    same = proportion(int(per_hand["baseline_is_best"].sum()), len(per_hand))
    summary = pd.DataFrame([{
        "players": players, "playout_strategy": result.strategy, "baseline": result.baseline,
        "hands": len(per_hand), "playouts": result.playouts,
        "baseline_is_best": float(same["rate"]), "baseline_is_best_low": float(same["low"]),
        "baseline_is_best_high": float(same["high"]),
        "gain_mean": gain[0], "gain_low": gain[1], "gain_high": gain[2],
        "gain_median": float(per_hand["gain"].median()),
        "gain_heldout_mean": held_out[0], "gain_heldout_low": held_out[1],
        "gain_heldout_high": held_out[2],
        "hand_value_mean": float(result.diff.mean()),
    }])
    return table, per_hand, summary


def _key_numbers(frames: dict) -> dict:
    key = {}
    tiles = frames["tiles"]
    for (strategy, players), sel in tiles.groupby(["strategy", "players"], sort=False):
        ranked = sel[sel.first_n >= 30].sort_values("first_diff_mean", ascending=False)
        if len(ranked):
            top, bottom = ranked.iloc[0], ranked.iloc[-1]
            key[f"{strategy}, {players}p: best / worst first opening (leader's round diff)"] = (
                f"{top.tile} "
                f"{fmt_ci(top.first_diff_mean, top.first_diff_low, top.first_diff_high, 2)} / "
                f"{bottom.tile} " + fmt_ci(bottom.first_diff_mean, bottom.first_diff_low,
                                           bottom.first_diff_high, 2))
        first = sel[sel.first_n > 0]
        wins = float((first.first_win_rate * first.first_n).sum() / max(1, first.first_n.sum()))
        key[f"{strategy}, {players}p: first leader's match win rate"] = f"{wins:.3f}"
    if "cf_summary" in frames:
        for row in frames["cf_summary"].itertuples(index=False):
            tag = f"counterfactual {row.players}p ({row.playout_strategy} playouts)"
            key[f"{tag}: {row.baseline}'s opening is the best"] = fmt_ci(
                row.baseline_is_best, row.baseline_is_best_low, row.baseline_is_best_high,
                pct=True)
            key[f"{tag}: best opening beats {row.baseline}'s by (held out, displayed)"] = fmt_ci(
                row.gain_heldout_mean, row.gain_heldout_low, row.gain_heldout_high, 3)
            key[f"{tag}: in-sample gain (displayed)"] = fmt_ci(row.gain_mean, row.gain_low,
                                                                row.gain_high, 3)
        cf = frames["cf_tiles"]
        for players, sel in cf.groupby("players"):
            ranked = sel.dropna(subset=["relative_mean"]).sort_values("relative_mean",
                                                                     ascending=False)
            key[f"counterfactual {players}p: top openings vs hand average"] = ", ".join(
                f"{r.tile} {r.relative_mean:+.2f}" for r in ranked.head(3).itertuples())
            key[f"counterfactual {players}p: bottom openings vs hand average"] = ", ".join(
                f"{r.tile} {r.relative_mean:+.2f}" for r in ranked.tail(3).itertuples())
    return key


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    s = settings
    lines = summary_head("Openings", s,
                         "Round differential = the leader's side's accepted points in the round "
                         "minus the opponents' mean, in displayed points. 95% intervals.",
                         lead="Observed: self-play") + [
    ]
    if s["hands"] > 0:
        lines.append(
            f"Counterfactual: {s['hands']:,} sampled leader hands per player count, each tile "
            f"forced as the opening, {s['playouts']} playouts per (hand, tile) with "
            f"`{s['playout_strategy']}` at every seat (unseen tiles re-dealt per playout, the "
            f"same re-deals for every tile of a hand), from scores 0; baseline "
            f"`{s['baseline']}`.")
    lines += ["", "## Key numbers", ""]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    if "cf_summary" in frames:
        lines += ["", "## Counterfactual: best opening vs the baseline's", "",
                  md_table(frames["cf_summary"][[
                      "players", "hands", "playouts", "baseline_is_best", "gain_mean",
                      "gain_median", "gain_heldout_mean", "gain_heldout_low",
                      "gain_heldout_high"]], 3)]
        cf = frames["cf_tiles"]
        wide = cf.pivot(index="tile", columns="players", values="relative_mean")
        wide = wide.reindex(TILE_NAMES)
        wide.columns = [f"{c}p vs hand" for c in wide.columns]
        best = cf.pivot(index="tile", columns="players", values="best_share").reindex(TILE_NAMES)
        best.columns = [f"{c}p best share" for c in best.columns]
        base = cf.pivot(index="tile", columns="players", values="baseline_share").reindex(
            TILE_NAMES)
        base.columns = [f"{c}p {s['baseline']} opens" for c in base.columns]
        table = pd.concat([wide, best, base], axis=1).reset_index()
        lines += ["", "## The 28 tiles (counterfactual)", "",
                  "`vs hand` = the tile's forced-opening value minus the mean of its hand's "
                  "five openings (displayed points); `best share` = how often it is the hand's "
                  f"best opening when held; `{s['baseline']} opens` = how often the baseline "
                  "opens with it when held.", "", md_table(table, 2)]
    tiles = frames["tiles"]
    for strategy in s["strategies"]:
        sel = tiles[tiles.strategy == strategy]
        wide = sel.pivot(index="tile", columns="players", values="first_diff_mean").reindex(
            TILE_NAMES)
        wide.columns = [f"{c}p round diff" for c in wide.columns]
        win = sel.pivot(index="tile", columns="players", values="first_win_rate").reindex(
            TILE_NAMES)
        win.columns = [f"{c}p match win" for c in win.columns]
        n = sel.pivot(index="tile", columns="players", values="first_n").reindex(TILE_NAMES)
        n.columns = [f"{c}p n" for c in n.columns]
        table = pd.concat([wide, win, n], axis=1).reset_index()
        lines += ["", f"## The 28 tiles as the match's first opening, observed (`{strategy}`)",
                  "", md_table(table, 3)]
    lines += ["", "Full tables with intervals (first and any round's opening): `tiles`, "
              "`cf_tiles`, `cf_hands` (parquet and CSV). Plots: `opening_tiles.png`"
              + (", `counterfactual.png`." if "cf_tiles" in frames else "."), ""]
    return "\n".join(lines)
