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
of a hand, so differences between tiles are sharp), from scores 0 (these
frames; other states below). The value of an opening is the leader's mean
round differential. Per hand: the best
opening and how much it beats the tile ``baseline`` (default ``greedy``)
opens with, in-sample (biased upward, the best of five noisy means) and
held out (the best picked on even-numbered playouts, measured on odd ones).
Per tile (``cf_tiles``): its mean value over the hands holding it, its value
relative to the hand's average opening, how often it is the hand's best, and
how often the baseline opens with it when it holds it.

What matters (``cf_values``, ``cf_gain``): every playout is valued twice, by
the leader's round differential (displayed points) and by the leader's side's
match-win probability in the state the round leaves (the scores after it and
who leads next, looked up in the shipped table
:data:`strategies.winprob_table.WIN_TABLE`: ``rollout`` self-play from there
on, 2 and 4 players only; :func:`sim.studies.openings.win_probability`), and
the round is played from each of ``score_states`` (displayed scores of the
leader's side and of every other side before the round; 0-0, the match's
first round, is always included and is the sharded main source; the other
states run in this process with the same hands and re-deals). Per (state,
players, value): each tile's value and its rank, and the gain of choosing the
best opening per hand over the baseline's as a range, from held out (picked
on half the playouts, biased low) to in-sample (picked and measured on the
same playouts, biased high), at subsets of the playouts
(:func:`gain_playouts`: the first 1/16, 1/8 .. all) to show how both ends
move with the number of playouts.

Run ``five-up openings --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.figures import color_cycle, new_figure, run_footer, save_png, stamp
from experiments.mixed_tables import SELF_PLAY, entity_names, strategies_in
from experiments.reports import ExperimentResult, fmt_ci, md_table, summary_head
from experiments.runs import run_experiment
from experiments.settings import study_settings
from experiments.sources import DataRun, leader_differential, pairs
from experiments.stats import grouped_mean_ci, mean_interval, proportion
from sim.checks import check_int
from sim.engine.spec import check_threads
from sim.progress import progress_bar
from sim.studies.openings import TABLE_ROW, opening_counterfactual
from sim.tiles import N_TILES, RAW_PER_DISPLAYED, TARGET_RAW, entity_count, tile_name
from strategies.catalogue import (
    check_distinct_names,
    resolve,
    resolve_field,
    spec_of,
    strategy_entries,
)
from strategies.definition import Strategy

NAME = "openings"
TILE_NAMES = [tile_name(t) for t in range(N_TILES)]

DEFAULT_SCORE_STATES = ((0, 0), (40, 40), (55, 30), (30, 55))
"""Displayed scores (leader's side, every other side) the rounds start from: the match's first
round, an even late game, the leader's side near 61 (the exact hit matters), and behind."""

VALUE_LABELS = {"diff": "round differential (displayed points)",
                "win_prob": "match-win probability (0-1)"}
"""What each playout value measures (:data:`sim.studies.openings.VALUES`)."""

GAIN_FRACTIONS = (16, 8, 4, 2, 1)
"""The gain-against-playouts table uses the first ``playouts // f`` playouts for each ``f``."""

DPI = 110
"""Resolution of the figures."""


def run(players=(2, 3, 4), strategies=("greedy", "random"), matches: int = 20_000,
        seed: int = 0, hands: int = 300, playouts: int = 100, playout_strategy="greedy",
        baseline="greedy", threads: int | None = None, progress: bool = False,
        out=None, backend="local", shard_size: int | None = None,
        keep_shards: bool = False, score_states=DEFAULT_SCORE_STATES, tables=None,
        table_matches: int | None = None, sealed: bool = False, secret: str | None = None,
        decision_timeout: float | None = None) -> ExperimentResult:
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
    score_states : sequence of (int, int) or str
        Displayed scores ``(leader's side, every other side)`` the
        counterfactual rounds start from (or ``"0-0,55-30"``); 0-0 is always
        included (:func:`parse_score_states`).
    tables, table_matches
        Mixed tables besides self-play for the observed view, as
        :func:`experiments.overshoot.run`: a table's ``tiles`` rows are per strategy, from the
        rounds its entity led (every rotation, the same deals).
    sealed, secret, decision_timeout
        The run's sealing, as :func:`experiments.overshoot.run`; the secret also keys the
        counterfactual playouts' decision streams (every score state's).

    Returns
    -------
    ExperimentResult
        Frames ``tiles`` (with a ``table`` column, ``"self-play"`` or the table's label) and,
        with ``hands > 0``, ``cf_tiles``, ``cf_hands``,
        ``cf_summary`` (0-0, round differential), ``cf_values`` and
        ``cf_gain`` (every state and value).
    """
    settings = settings_for(players, strategies, matches, seed, hands, playouts,
                            playout_strategy, baseline, score_states, tables, table_matches,
                            sealed=sealed, secret=secret, decision_timeout=decision_timeout)

    def compute(data):
        # the observed tables are built one configuration at a time (memory)
        tiles = [_observed(frame, strategy, count) for (strategy, count), frame in data.rounds()]
        tiles += [t for (label, count), table in data.table_rounds()
                  for t in _observed_table(table, label, count)]
        cf = data.counterfactuals() if settings["hands"] > 0 else {}
        states = (state_tables(settings, threads=data.threads, progress=data.progress)
                  if settings["hands"] > 0 else [])
        return analyse(tiles, cf, settings, states)

    return run_experiment(settings, compute, out=out, backend=backend,
                                 shard_size=shard_size, threads=threads, progress=progress,
                                 keep_shards=keep_shards)


def settings_for(players, strategies, matches, seed, hands, playouts, playout_strategy,
                 baseline, score_states=DEFAULT_SCORE_STATES, tables=None,
                 table_matches=None, *, sealed: bool = False, secret: str | None = None,
                 decision_timeout=None) -> dict:
    """Checked settings (raises ValueError, one line).

    Every strategy argument may be a spec (built-in name, ``MODULE:NAME``,
    ``FILE.py:NAME``, ``name[k=v]``) or a :class:`strategies.Strategy`; the
    settings hold names (the tables' labels), specs (what the shard jobs
    resolve) and code digests. ``sealed``, ``secret``, ``decision_timeout``: the
    run's sealing (:func:`experiments.settings.study_settings`).
    """
    settings = study_settings(NAME, players, strategies, matches, seed, tables, table_matches,
                              sealed=sealed, secret=secret, decision_timeout=decision_timeout)
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
    settings["score_states"] = [list(state) for state in parse_score_states(score_states)]
    return settings


def parse_score_states(states) -> list[tuple[int, int]]:
    """Displayed ``(leader's side, other sides)`` pairs from pairs or ``"0-0,40-40,55-30"``.

    Each score is 0..60 displayed; 0-0 is put first (added when missing), the
    rest keep their order; duplicates are refused. Raises ValueError (one line).
    """
    if isinstance(states, str):
        items = [part.strip() for part in states.split(",") if part.strip()]
        pairs_ = []
        for item in items:
            parts = item.split("-")
            try:
                pairs_.append((int(parts[0]), int(parts[1])) if len(parts) == 2 else None)
            except ValueError:
                pairs_.append(None)
            if pairs_[-1] is None:
                raise ValueError(f"score state {item!r} is not OWN-OTHER displayed scores "
                                 "(e.g. 55-30)")
    else:
        try:
            pairs_ = [(int(a), int(b)) for a, b in states]
        except (TypeError, ValueError):
            raise ValueError(f"score states are (own, other) pairs, got {states!r}") from None
    top = TARGET_RAW // RAW_PER_DISPLAYED
    for own, other in pairs_:
        if not (0 <= own < top and 0 <= other < top):
            raise ValueError(f"score state {own}-{other}: displayed scores are 0..{top - 1}")
    if len(set(pairs_)) != len(pairs_):
        raise ValueError(f"score states repeat: {pairs_!r}")
    return [(0, 0)] + [p for p in pairs_ if p != (0, 0)]


def state_label(state) -> str:
    """``"55-30"``: the leader's side's and the other sides' displayed scores."""
    return f"{int(state[0])}-{int(state[1])}"


def state_raw_scores(players: int, state) -> list[int]:
    """Raw scores by entity for a displayed state: the leader's entity first, the rest equal."""
    own, other = (int(v) * RAW_PER_DISPLAYED for v in state)
    return [own] + [other] * (entity_count(players) - 1)


def gain_playouts(playouts: int) -> list[int]:
    """The playout counts of the gain-against-playouts table: ``playouts // f`` for
    :data:`GAIN_FRACTIONS`, those of at least 2, ascending, distinct (the last is ``playouts``)."""
    return sorted({playouts // f for f in GAIN_FRACTIONS if playouts // f >= 2})


def value_kinds(players: int) -> list[str]:
    """The playout values available at ``players``: the differential, and the win probability
    where the shipped table covers the player count (2 and 4)."""
    return ["diff", "win_prob"] if players in TABLE_ROW else ["diff"]


def state_tables(settings: dict, threads=None, progress: bool = False) -> list[dict]:
    """:func:`value_tables` for every (state other than 0-0, player count) of ``settings``.

    Each state's counterfactual is run in this process (local threads, not
    sharded) with the settings' hands, playouts, seed and secret, one at a time and
    reduced at once (a state's playouts are not kept).
    """
    s = settings
    states = [tuple(state) for state in s["score_states"] if tuple(state) != (0, 0)]
    out = []
    total = s["hands"] * len(s["players"]) * len(states)
    with progress_bar(total, progress, unit="hand", desc="score states") as bar:
        for state in states:
            for count in s["players"]:
                result = opening_counterfactual(
                    count, s.get("playout_strategy_spec", s["playout_strategy"]),
                    hands=s["hands"], playouts=s["playouts"], seed=s["seed"],
                    baseline=s.get("baseline_spec", s["baseline"]), threads=threads,
                    scores=state_raw_scores(count, state), on_chunk=bar.update,
                    secret=s.get("secret"))
                out.append(value_tables(result, state))
    return out


def value_tables(result, state) -> dict:
    """The state's reduced tables of one counterfactual result: ``values`` (per tile) and
    ``gain`` (per playout count), for each of :func:`value_kinds`."""
    label = state_label(state)
    values, gains = [], []
    counts = gain_playouts(result.playouts)
    for value in value_kinds(result.players):
        per_tile = result.per_tile(value)
        table = _tile_values(per_tile)
        table.insert(0, "value", value)
        table.insert(0, "state", label)
        table.insert(0, "players", result.players)
        values.append(table)
        by_playouts = result.gain_by_playouts(counts, value)
        rows = []
        for m, sel in by_playouts.groupby("playouts", sort=True):
            inside = mean_interval(sel["gain"])
            held = mean_interval(sel["gain_heldout"])
            same = proportion(int(sel["baseline_is_best"].sum()), len(sel))
            rows.append({
                "players": result.players, "state": label, "value": value, "playouts": int(m),
                "hands": len(sel), "heldout_mean": held[0], "heldout_low": held[1],
                "heldout_high": held[2], "insample_mean": inside[0], "insample_low": inside[1],
                "insample_high": inside[2], "baseline_is_best": float(same["rate"]),
                "baseline_is_best_low": float(same["low"]),
                "baseline_is_best_high": float(same["high"]),
                "hand_value_mean": float(per_tile["mean_diff"].mean()),
            })
        gains.append(pd.DataFrame(rows))
    return {"values": pd.concat(values, ignore_index=True),
            "gain": pd.concat(gains, ignore_index=True)}


def _tile_values(per_tile: pd.DataFrame) -> pd.DataFrame:
    """Per tile from :meth:`OpeningCounterfactual.per_tile` rows: mean value and its value
    relative to its hand's five openings, with 95% intervals, best and baseline shares, and the
    rank by relative value (1 = best; tiles no hand held have no rank)."""
    frame = per_tile.copy()
    frame["relative"] = frame["mean_diff"] - frame.groupby("hand")["mean_diff"].transform("mean")
    table = pd.DataFrame({"tile": TILE_NAMES}).set_index("tile")
    table = table.join(grouped_mean_ci(frame, ["tile"], "mean_diff", "value"))
    table = table.join(grouped_mean_ci(frame, ["tile"], "relative", "relative")
                       .drop(columns="relative_n"))
    grouped = frame.groupby("tile", observed=False)
    held = grouped.size().reindex(TILE_NAMES).fillna(0).to_numpy()
    best = grouped["is_best"].sum().reindex(TILE_NAMES).fillna(0).to_numpy()
    base = grouped["is_baseline"].sum().reindex(TILE_NAMES).fillna(0).to_numpy()
    p = proportion(best, held)
    table["best_share"], table["best_low"], table["best_high"] = p["rate"], p["low"], p["high"]
    table["baseline_share"] = proportion(base, held)["rate"]
    table = table.rename(columns={"value_n": "hands", "value_mean": "mean", "value_low": "low",
                                  "value_high": "high"})
    table = table.fillna({"hands": 0}).astype({"hands": "int64"})
    table["rank"] = table["relative_mean"].rank(ascending=False, method="min")
    return table.reset_index()


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


def analyse(rounds, cf: dict, settings: dict, states=()) -> ExperimentResult:
    """Frames, plots and summary from the round frames and counterfactual results.

    ``rounds``: a dict ``(strategy, players) -> rounds frame``
    (:func:`experiments.sources.collect_rounds`), an iterable of such pairs, or a
    list of already built observed tables. ``cf``: ``players ->
    OpeningCounterfactual`` at 0-0; ``states``: :func:`value_tables` of the
    other score states (:func:`state_tables`).
    """
    if isinstance(rounds, list) and all(isinstance(t, pd.DataFrame) for t in rounds):
        observed = rounds
    else:
        observed = [_observed(r, s, p) for (s, p), r in pairs(rounds)]
    frames = {"tiles": pd.concat(observed, ignore_index=True)}
    if cf:
        per_tile, per_hand, summary = [], [], []
        for result in cf.values():
            t, h, s = _counterfactual_tables(result)
            per_tile.append(t)
            per_hand.append(h)
            summary.append(s)
        frames["cf_tiles"] = pd.concat(per_tile, ignore_index=True)
        frames["cf_hands"] = pd.concat(per_hand, ignore_index=True)
        frames["cf_summary"] = pd.concat(summary, ignore_index=True)
        reduced = [value_tables(result, (0, 0)) for result in cf.values()] + list(states)
        order = {state_label(st): k for k, st in enumerate(settings.get("score_states", [[0, 0]]))}
        for name in ("values", "gain"):
            table = pd.concat([r[name] for r in reduced], ignore_index=True)
            table["_order"] = table["state"].map(order)
            frames[f"cf_{name}"] = (table.sort_values(["_order", "players"], kind="stable")
                                    .drop(columns="_order").reset_index(drop=True))
    selfplay = frames["tiles"][frames["tiles"]["table"] == SELF_PLAY]
    plots = {"opening_tiles": lambda p: plot_opening_tiles(selfplay, p, settings)}
    if cf:
        plots["counterfactual"] = lambda p: plot_counterfactual(
            frames["cf_tiles"], frames["cf_hands"], p, settings)
        plots["state_values"] = lambda p: plot_state_values(frames["cf_values"], p, settings)
        plots["gain_playouts"] = lambda p: plot_gain_playouts(frames["cf_gain"], p, settings)
    key = _key_numbers(frames)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


def _observed_table(table, label: str, players: int) -> list[pd.DataFrame]:
    """The observed rows of one mixed table: per strategy, the rounds its entity led."""
    rounds = table.data
    leader = entity_names(table.rotations, rounds["rotation"], rounds["leader_entity"])
    return [_observed(rounds[leader == strategy], strategy, players, label)
            for strategy in strategies_in(table.rotations)]


def _observed(rounds: pd.DataFrame, strategy: str, players: int,
              label: str = SELF_PLAY) -> pd.DataFrame:
    frame = pd.DataFrame({
        "tile": pd.Categorical(rounds["opening"].astype(str), categories=TILE_NAMES),
        "first": rounds["round"].to_numpy() == 0,
        "diff": leader_differential(rounds, players),
        "won": (rounds["match_winner"].to_numpy() == rounds["leader_entity"].to_numpy()),
        "finished": rounds["match_winner"].to_numpy() >= 0,
        "points": rounds["opening_points"].to_numpy() / 5.0,
    })
    table = pd.DataFrame({"tile": TILE_NAMES}).set_index("tile")
    for which, sel in (("first", frame[frame["first"]]), ("any", frame)):
        stats = grouped_mean_ci(sel, ["tile"], "diff", f"{which}_diff")
        table = table.join(stats)
        done = sel[sel["finished"]]
        wins = done.groupby("tile", observed=False)["won"].agg(["sum", "count"])
        wins = wins.reindex(TILE_NAMES).fillna(0)
        p = proportion(wins["sum"].to_numpy(), wins["count"].to_numpy())
        table[f"{which}_win_rate"] = p["rate"]
        table[f"{which}_win_low"] = p["low"]
        table[f"{which}_win_high"] = p["high"]
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
    table["table"] = label
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
    for (label, strategy, players), sel in tiles.groupby(["table", "strategy", "players"],
                                                         sort=False):
        tag = (f"{strategy}, {players}p" if label == SELF_PLAY
               else f"{label}, {players}p, {strategy} leading")
        ranked = sel[sel.first_n >= 30].sort_values("first_diff_mean", ascending=False)
        if len(ranked):
            top, bottom = ranked.iloc[0], ranked.iloc[-1]
            key[f"{tag}: best / worst first opening (leader's round diff)"] = (
                f"{top.tile} "
                f"{fmt_ci(top.first_diff_mean, top.first_diff_low, top.first_diff_high, 2)} / "
                f"{bottom.tile} " + fmt_ci(bottom.first_diff_mean, bottom.first_diff_low,
                                           bottom.first_diff_high, 2))
        first = sel[sel.first_n > 0]
        wins = float((first.first_win_rate * first.first_n).sum() / max(1, first.first_n.sum()))
        key[f"{tag}: first leader's match win rate"] = f"{wins:.3f}"
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
        full = _full_gain(frames["cf_gain"])
        for row in full[full.value == "win_prob"].itertuples(index=False):
            if row.state == "0-0":
                key[f"counterfactual {row.players}p: gain of the best opening in match-win "
                    f"probability, held out .. in-sample"] = _gain_range(row, 4)
        values = frames["cf_values"]
        for (players, value), sel in values.groupby(["players", "value"], sort=True):
            tops = []
            for state, rows in sel.groupby("state", sort=False):
                top = rows.dropna(subset=["relative_mean"]).sort_values("rank").head(1)
                if len(top):
                    tops.append(f"{state} {top.iloc[0].tile}")
            key[f"counterfactual {players}p: best opening by {_value_short(value)} per state"] = (
                ", ".join(tops))
    return key


def _value_short(value: str) -> str:
    return "round differential" if value == "diff" else "match-win probability"


def _full_gain(gain: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``cf_gain`` at each run's full number of playouts (the main figures)."""
    top = gain.groupby(["players", "state", "value"], sort=False)["playouts"].transform("max")
    return gain[gain["playouts"] == top].reset_index(drop=True)


def _gain_range(row, digits: int) -> str:
    return (fmt_ci(row.heldout_mean, row.heldout_low, row.heldout_high, digits) + " .. "
            + fmt_ci(row.insample_mean, row.insample_low, row.insample_high, digits))


def _ranking_lines(values: pd.DataFrame) -> list[str]:
    """Per (players, value): the top three tiles of every state, and the tiles whose rank at a
    state differs most from 0-0 (all read from ``values``)."""
    lines = []
    for (players, value), sel in values.groupby(["players", "value"], sort=True):
        digits = 2 if value == "diff" else 4
        lines.append(f"- **{players} players, {_value_short(value)}**:")
        base = sel[sel.state == "0-0"].set_index("tile")["rank"]
        for state, rows in sel.groupby("state", sort=False):
            ranked = rows.dropna(subset=["relative_mean"]).sort_values("rank")
            top = "; ".join(f"{r.tile} {fmt_ci(r.relative_mean, r.relative_low, r.relative_high, digits)}"
                            for r in ranked.head(3).itertuples())
            text = f"  - {state}: top three vs hand average {top}"
            if state != "0-0" and len(base):
                moved = ranked.set_index("tile")["rank"] - base.reindex(ranked["tile"]).to_numpy()
                moved = moved.dropna()
                if len(moved):
                    up, down = moved.idxmin(), moved.idxmax()
                    text += (f"; biggest moves from 0-0: {up} rank {int(base[up])} -> "
                             f"{int(ranked.set_index('tile').loc[up, 'rank'])}, {down} rank "
                             f"{int(base[down])} -> {int(ranked.set_index('tile').loc[down, 'rank'])}")
            lines.append(text)
    return lines


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
            f"same re-deals for every tile of a hand), from each score state (displayed, "
            f"leader's side - every other side) "
            f"{', '.join(state_label(st) for st in s.get('score_states', [[0, 0]]))}; "
            f"baseline `{s['baseline']}`. Each playout is valued by the leader's round "
            "differential (displayed points) and by the leader's side's match-win probability "
            "in the state the round leaves (scores and next leader, looked up in the shipped "
            "`rollout` self-play table, `strategies/winprob_table.py`: 2 and 4 players only).")
    lines += ["", "## Key numbers", ""]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    if "cf_gain" in frames:
        full = _full_gain(frames["cf_gain"])
        table = pd.DataFrame({
            "state": full["state"], "players": full["players"],
            "value": full["value"].map(_value_short), "hands": full["hands"],
            "playouts": full["playouts"],
            f"{s['baseline']} is best": [fmt_ci(r.baseline_is_best, r.baseline_is_best_low,
                                                r.baseline_is_best_high, pct=True)
                                         for r in full.itertuples()],
            "gain held out (low end)": [fmt_ci(r.heldout_mean, r.heldout_low, r.heldout_high,
                                               2 if r.value == "diff" else 4)
                                        for r in full.itertuples()],
            "gain in-sample (high end)": [fmt_ci(r.insample_mean, r.insample_low,
                                                 r.insample_high, 2 if r.value == "diff" else 4)
                                          for r in full.itertuples()],
        })
        lines += ["", "## Gain of the best opening per hand over the baseline's: a range", "",
                  ("Choosing the best of five noisy means and measuring it on the same playouts "
                  "(in-sample) overstates the gain; choosing on the even-numbered playouts and "
                  "measuring on the odd ones (held out) is unbiased for a choice made on half "
                  "the playouts, so it understates the gain of a choice made on all of them. "
                  "The gain lies between the two ends; both approach it as the playouts grow "
                  "(next table). Round differential in displayed points, win probability in "
                  "0-1 units; 95% intervals over hands."), "", md_table(table, 3)]
        gain = frames["cf_gain"]
        zero = gain[gain.state == "0-0"]
        table = pd.DataFrame({
            "players": zero["players"], "value": zero["value"].map(_value_short),
            "playouts": zero["playouts"],
            "held out": [fmt_ci(r.heldout_mean, r.heldout_low, r.heldout_high,
                                2 if r.value == "diff" else 4) for r in zero.itertuples()],
            "in-sample": [fmt_ci(r.insample_mean, r.insample_low, r.insample_high,
                                 2 if r.value == "diff" else 4) for r in zero.itertuples()],
            "gap": (zero["insample_mean"] - zero["heldout_mean"]).to_numpy(),
        })
        lines += ["", "## The gain against the number of playouts (0-0)", "",
                  ("The first m playouts of the same run (subsets of the same re-deals); every "
                  "state in `cf_gain` and `gain_playouts.png`."), "", md_table(table, 4)]
        lines += ["", "## Best openings by state", "",
                  ("Value relative to the mean of the hand's five openings, 95% intervals; "
                  "ranks 1 = best of the 28 tiles (`cf_values` holds every tile, state and "
                  "value)."), ""] + _ranking_lines(frames["cf_values"])
        win = frames["cf_values"][frames["cf_values"].value == "win_prob"]
        if len(win):
            ranks = win.pivot_table(index="tile", columns=["state", "players"], values="rank",
                                    sort=False).reindex(TILE_NAMES)
            ranks.columns = [f"{st} {pl}p" for st, pl in ranks.columns]
            lines += ["", "## Ranks by match-win probability (1 = best)", "",
                      md_table(ranks.reset_index(), 0)]
    if "cf_summary" in frames:
        lines += ["", ("## Counterfactual at 0-0: best opening vs the baseline's "
                  "(round differential, displayed points)"), "",
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
                  ("`vs hand` = the tile's forced-opening value minus the mean of its hand's "
                  "five openings (displayed points); `best share` = how often it is the hand's "
                  f"best opening when held; `{s['baseline']} opens` = how often the baseline "
                  "opens with it when held."), "", md_table(table, 2)]
    tiles = frames["tiles"]
    selfplay = tiles[tiles["table"] == SELF_PLAY]
    for strategy in s["strategies"]:
        sel = selfplay[selfplay.strategy == strategy]
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
    mixed = tiles[tiles["table"] != SELF_PLAY]
    if len(mixed):
        lines += ["", "## Mixed tables (observed)", "",
                  ("Each table is played in every rotation of its strategies over the entities "
                   "on the same deals; a strategy's rows are the rounds its entity led. First "
                   "leader's match win rate and the best and worst first openings (tiles opened "
                   "at least 30 times) are in the key numbers above; per tile: `tiles` (rows "
                   "with `table` = the table).")]
    lines += ["", "Full tables with intervals (first and any round's opening): `tiles`, "
              "`cf_tiles`, `cf_hands`, `cf_values`, `cf_gain` (parquet and CSV). Plots: "
              "`opening_tiles.png`"
              + (", `counterfactual.png`, `state_values.png`, `gain_playouts.png`."
                 if "cf_tiles" in frames else "."), ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------
def _cf_footer(settings: dict) -> str:
    s = settings
    return run_footer(s, sample=f"{s['hands']:,} hands x 5 forced openings x {s['playouts']} "
                                f"playouts per player count and state, `{s['playout_strategy']}` "
                                f"playouts, baseline `{s['baseline']}`")


def _save(fig, path, footer: str) -> None:
    stamp(fig, footer)
    save_png(fig, path, DPI)


def _errorbars(centre, low, high) -> np.ndarray:
    err = np.vstack([centre - np.asarray(low, dtype=float), np.asarray(high, dtype=float) - centre])
    return np.where(np.isfinite(err), err, 0)


def plot_opening_tiles(tiles: pd.DataFrame, path, settings: dict, min_n: int = 30) -> None:
    """Per tile as the match's first opening (observed): the leader's round differential
    (displayed points) and match win rate, 95% intervals.

    Tiles a strategy opened fewer than ``min_n`` times are left out (``greedy``
    almost never opens with some tiles).
    """
    players = sorted(tiles["players"].unique())
    strategies = list(dict.fromkeys(tiles["strategy"]))
    fig, axes = new_figure(2, len(players), figsize=(6.5 * len(players), 7), squeeze=False)
    x = np.arange(N_TILES)
    width = 0.8 / max(1, len(strategies))
    colors = color_cycle()
    for j, count in enumerate(players):
        for k, name in enumerate(strategies):
            sel = tiles[(tiles.players == count) & (tiles.strategy == name)].set_index("tile")
            sel = sel.reindex(TILE_NAMES)
            offset = (k - (len(strategies) - 1) / 2) * width
            shown = sel["first_n"].fillna(0).to_numpy() >= min_n
            for i, prefix in enumerate(("first_diff", "first_win")):
                col = "first_diff_mean" if prefix == "first_diff" else "first_win_rate"
                centre = sel[col].to_numpy(dtype=float)
                err = _errorbars(centre, sel[f"{prefix}_low"], sel[f"{prefix}_high"])
                axes[i, j].errorbar((x + offset)[shown], centre[shown], yerr=err[:, shown],
                                    fmt="o", ms=3, capsize=2, lw=0.8, label=name,
                                    color=colors[k % len(colors)])
        axes[0, j].axhline(0, color="grey", lw=0.8, ls=":")
        fair = 1 / (2 if count == 4 else count)
        axes[1, j].axhline(fair, color="grey", lw=0.8, ls=":", label="fair share")
        axes[0, j].set_title(f"{count} players: first opening of the match (observed)")
        axes[0, j].set_ylabel("leader's round differential\n(displayed points, 95%)")
        axes[1, j].set_ylabel("leader's side's match win rate (95%)")
        for i in range(2):
            axes[i, j].set_xticks(x, TILE_NAMES, rotation=90, fontsize=7)
            axes[i, j].grid(alpha=0.3)
        axes[1, j].set_xlabel(f"opening tile (tiles opened fewer than {min_n} times left out)")
    axes[0, -1].legend(title="self-play", fontsize=8)
    axes[1, -1].legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path, run_footer(settings) + "; 1 displayed = 5 raw points")


def plot_counterfactual(cf_tiles: pd.DataFrame, cf_hands: pd.DataFrame, path,
                        settings: dict) -> None:
    """Forced openings at 0-0: each tile's value relative to its hand (displayed points, 95%),
    and the per-hand held-out gain of the best opening over the baseline's."""
    players = sorted(cf_tiles["players"].unique())
    fig, axes = new_figure(2, len(players), figsize=(6.5 * len(players), 7), squeeze=False)
    x = np.arange(N_TILES)
    colors = color_cycle()
    for j, count in enumerate(players):
        sel = cf_tiles[cf_tiles.players == count].set_index("tile").reindex(TILE_NAMES)
        centre = sel["relative_mean"].to_numpy(dtype=float)
        err = _errorbars(centre, sel["relative_low"], sel["relative_high"])
        shade = [colors[1] if v >= 0 else colors[0] for v in np.nan_to_num(centre)]
        axes[0, j].bar(x, centre, yerr=err, color=shade, capsize=2, error_kw={"lw": 0.8})
        axes[0, j].axhline(0, color="black", lw=0.8)
        axes[0, j].set_xticks(x, TILE_NAMES, rotation=90, fontsize=7)
        axes[0, j].set_ylabel("opening value vs. hand average\n(displayed points, 95%)")
        axes[0, j].set_title(f"{count} players: forced openings at 0-0")
        axes[0, j].grid(alpha=0.3, axis="y")
        hands = cf_hands[cf_hands.players == count]
        gain = hands["gain_heldout"].to_numpy(dtype=float)
        gain = gain[np.isfinite(gain)]
        if gain.size:
            bins = np.linspace(min(-2.0, gain.min()), max(4.0, gain.max()), 41)
            axes[1, j].hist(gain, bins=bins, color=colors[2])
            mean, low, high = mean_interval(gain)
            axes[1, j].axvline(mean, color=colors[3], lw=1.2,
                               label=f"mean {fmt_ci(mean, low, high, 2)}")
            axes[1, j].legend(fontsize=8)
        axes[1, j].axvline(0, color="black", lw=0.8)
        axes[1, j].set_xlabel("best opening minus baseline's opening, per hand\n"
                              "(held-out playouts, displayed points)")
        axes[1, j].set_ylabel("hands")
        axes[1, j].grid(alpha=0.3)
    fig.tight_layout()
    _save(fig, path, _cf_footer(settings) + "; 1 displayed = 5 raw points")


def value_panels(frame: pd.DataFrame, panel_width: float):
    """The grid of the state figures: one row per value kind present (:data:`VALUE_LABELS`
    order), one column per player count. Returns ``(figure, axes, panels)``, ``panels`` the
    ``(ax, value, players, rows)`` of every cell with data; a cell without (no win-probability
    table at 3 players) says so and is left blank."""
    players = sorted(frame["players"].unique())
    kinds = [v for v in VALUE_LABELS if v in set(frame["value"])]
    fig, axes = new_figure(len(kinds), len(players), figsize=(panel_width * len(players),
                                                              3.8 * len(kinds)), squeeze=False)
    panels = []
    for i, value in enumerate(kinds):
        for j, count in enumerate(players):
            ax = axes[i, j]
            sel = frame[(frame.players == count) & (frame.value == value)]
            if sel.empty:
                ax.text(0.5, 0.5, f"no win-probability table at {count} players",
                        ha="center", va="center", transform=ax.transAxes)
                ax.set_axis_off()
            else:
                panels.append((ax, value, count, sel))
    return fig, axes, panels


def plot_state_values(cf_values: pd.DataFrame, path, settings: dict) -> None:
    """Each tile's forced-opening value relative to its hand, by score state: one row per value
    (round differential, match-win probability), one column per player count, 95% intervals."""
    states = list(dict.fromkeys(cf_values["state"]))
    fig, axes, panels = value_panels(cf_values, 6.5)
    x = np.arange(N_TILES)
    colors = color_cycle()
    width = 0.8 / max(1, len(states))
    for ax, value, count, sel in panels:
        for k, state in enumerate(states):
            rows = sel[sel.state == state].set_index("tile").reindex(TILE_NAMES)
            centre = rows["relative_mean"].to_numpy(dtype=float)
            err = _errorbars(centre, rows["relative_low"], rows["relative_high"])
            ax.errorbar(x + (k - (len(states) - 1) / 2) * width, centre, yerr=err, fmt="o",
                        ms=2.5, capsize=1.5, lw=0.7, color=colors[k % len(colors)],
                        label=state)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xticks(x, TILE_NAMES, rotation=90, fontsize=7)
        ax.grid(alpha=0.3, axis="y")
        ax.set_title(f"{count} players: {_value_short(value)}")
        unit = ("displayed points" if value == "diff" else "win probability, 0-1")
        ax.set_ylabel(f"value vs. hand average\n({unit}, 95%)")
    axes[0, -1].legend(title="start (displayed,\nleader's side-others)", fontsize=7,
                       title_fontsize=7)
    fig.tight_layout()
    _save(fig, path, _cf_footer(settings))


def plot_gain_playouts(cf_gain: pd.DataFrame, path, settings: dict) -> None:
    """Gain of the best opening per hand over the baseline's against the playouts used, both
    ends (in-sample solid, held out dashed), per state; rows by value, columns by player count."""
    states = list(dict.fromkeys(cf_gain["state"]))
    fig, axes, panels = value_panels(cf_gain, 5.0)
    colors = color_cycle()
    for ax, value, count, sel in panels:
        for k, state in enumerate(states):
            rows = sel[sel.state == state].sort_values("playouts")
            m = rows["playouts"].to_numpy(dtype=float)
            color = colors[k % len(colors)]
            for end, style, shift in (("insample", "-", 1.02), ("heldout", "--", 0.98)):
                centre = rows[f"{end}_mean"].to_numpy(dtype=float)
                err = _errorbars(centre, rows[f"{end}_low"], rows[f"{end}_high"])
                ax.errorbar(m * shift, centre, yerr=err, fmt="o", ls=style, ms=3, lw=1,
                            capsize=2, color=color,
                            label=f"{state} {'in-sample' if end == 'insample' else 'held out'}")
        ax.set_xscale("log", base=2)
        ticks = sorted(set(sel["playouts"]))
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.axhline(0, color="black", lw=0.8)
        ax.set_ylim(bottom=min(0.0, float(sel["heldout_low"].min())))
        ax.grid(alpha=0.3)
        ax.set_title(f"{count} players: {_value_short(value)}")
        ax.set_xlabel("playouts per (hand, tile) used")
        unit = "displayed points" if value == "diff" else "win probability, 0-1"
        ax.set_ylabel(f"gain over baseline's opening\n({unit}, 95%)")
    axes[0, -1].legend(fontsize=6, ncol=2, title="state: solid in-sample, dashed held out",
                       title_fontsize=6)
    fig.tight_layout()
    _save(fig, path, _cf_footer(settings))
