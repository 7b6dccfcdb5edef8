"""Openings: which of the 28 tiles is worth leading with.

Two views.

Observed (per strategy in self-play and player count), ``tiles``: for each
tile as the match's first opening and as any round's opening, the leader's
mean round point differential (the leader's side's accepted points in that
round minus the opponents' mean, displayed points) and the leader's match win
rate, with 95% intervals over deals (t for the differential, Wilson at the
deal-clustered effective size for the rate). The unit is one round of one
deal: in a mixed table a strategy that leads the same deal's round in several
rotations counts once (its rows averaged), and the leading strategies of a
table are compared once per pair, A - B paired by deal (``lead_contrasts``).
These are what the strategy *chose*: a strategy opens with a tile because of
the rest of its hand, so a tile's figures mix the tile's own value with the
hands it is chosen from (``random`` chooses uniformly from the hand, the
cleanest observational view); no best or worst opening is claimed from them.

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
relative to the hand's mean opening (a paired contrast by hand, with its
effect size), its rank with a 95% bootstrap interval over hands
(:func:`experiments.stats.bootstrap_ranks`; a tile is called the best or the
worst only where its rank interval is ``[1, 1]`` or ``[k, k]``), how often it
is the hand's best, and how often the baseline opens with it when it holds it.

Strong continuations (``cf_continuations``, ``cf_strong``): the same forced
openings at 0-0 played out by ``rollout`` and ``matchplay``
(:data:`STRONG_CONTINUATIONS`) on fewer hands and playouts (the first hands of
the same sample, the same re-deals), and the gain by simple hand features
(``cf_features``: doubles, pip total, tiles that score when led, holding 5-5 or
4-6) for every continuation.

What matters (``cf_values``, ``cf_gain``): every playout is valued twice, by
the leader's round differential (displayed points) and by the leader's side's
match-win probability in the state the round leaves (the scores after it and
who leads next, looked up in the shipped table
:data:`strategies.winprob_table.WIN_TABLE`: ``rollout`` self-play from there
on, 2 and 4 players only; :func:`sim.study_kernels.openings.win_probability`), and
the round is played from each of ``score_states`` (displayed scores of the
leader's side and of every other side before the round; 0-0, the match's
first round, is always included and is the sharded main source; the other
states run in this process with the same hands and re-deals). Per (state,
players, value): each tile's value and its rank, and the gain of choosing the
best opening per hand over the baseline's as a range, from held out (picked
on half the playouts, biased low) to in-sample (picked and measured on the
same playouts, biased high), at subsets of the playouts
(:func:`gain_playouts`: the first 1/16, 1/8 .. all) to show how both ends
move with the number of playouts. The match-win values are the table's point
estimates: their intervals are over hands and playouts, not the table's own
error (:func:`win_table_note`).

Run ``five-up openings --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.mixed_tables import SELF_PLAY, entity_names, per_deal_means, strategies_in
from experiments.reporting import figures
from experiments.reporting.reports import ExperimentResult, figure_caption, fmt_ci, md_table, summary_head
from experiments.run_spine import (
    DEFAULT_PLAYERS,
    DEFAULT_SEED,
    DEFAULT_STRATEGIES,
    StudySpec,
    given_spec,
    run_experiment,
    study_scale,
)
from experiments.settings import study_settings
from experiments.sources import DataRun, leader_differential, pairs
from experiments.stats import (
    Contrast,
    bootstrap_ranks,
    clustered_proportion,
    clustered_ratio,
    contrast_words,
    mean_interval,
    paired_contrast,
    proportion,
    t_quantile,
)
from sim.checks import check_int
from sim.engine.spec import check_threads
from sim.progress import progress_bar
from sim.study_kernels.openings import TABLE_ROW, opening_counterfactual, table_half_width
from sim.tiles import N_TILES, RAW_PER_DISPLAYED, TARGET_RAW, TILES, entity_count, tile_name
from strategies.catalogue import (
    check_distinct_names,
    resolve,
    resolve_field,
    spec_of,
    strategy_entries,
)
from strategies.definition import Strategy

NAME = "openings"
DEFAULT_MATCHES = 20_000
"""Matches per configuration of the observed view when none are given."""
TILE_NAMES = [tile_name(t) for t in range(N_TILES)]

DEFAULT_SCORE_STATES = ((0, 0), (40, 40), (55, 30), (30, 55))
"""Displayed scores (leader's side, every other side) the rounds start from: the match's first
round, an even late game, the leader's side near 61 (the exact hit matters), and behind."""

VALUE_LABELS = {"diff": "round differential (displayed points)",
                "win_prob": "match-win probability (0-1)"}
"""What each playout value measures (:data:`sim.study_kernels.openings.VALUES`)."""

GAIN_FRACTIONS = (16, 8, 4, 2, 1)
"""The gain-against-playouts table uses the first ``playouts // f`` playouts for each ``f``."""

DPI = 110
"""Resolution of the figures."""

STRONG_CONTINUATIONS = ("rollout", "matchplay")
"""The strong strategies that also continue the forced openings (besides ``playout_strategy``)."""

STRONG_HANDS_DIVISOR = 50
"""Default hands of a strong continuation: ``hands // 50`` (at least 2): a strong playout costs
about 50 to 250 greedy ones, so the strong continuations run on fewer hands and playouts, with
intervals that say so."""

STRONG_PLAYOUTS_DIVISOR = 10
"""Default playouts of a strong continuation: ``playouts // 10`` (at least 2)."""

RANK_RESAMPLES = 500
"""Bootstrap resamples of the hands behind every rank interval
(:func:`experiments.stats.bootstrap_ranks`)."""

BUCKETS = {"doubles": ("0", "1", "2+"), "pips": ("<25", "25-34", "35+"),
           "scoring": ("0", "1", "2+"), "big": ("no", "yes")}
"""The buckets of each feature, in order (:func:`hand_features`)."""

FEATURES = {
    "doubles": "doubles in the hand",
    "pips": "pip total of the hand",
    "scoring": "tiles that score when led (pips 5 or 10)",
    "big": "holds 5-5 or 4-6",
}
"""The simple hand features the opening gain is conditioned on (:func:`hand_features`)."""


def run(*args, **options) -> ExperimentResult:
    """Run the openings study: ``run(spec)`` with the :class:`experiments.run_spine.StudySpec` of
    :func:`study_spec` (the command line builds one), or ``run(players, strategies, matches,
    seed, **options)`` with the arguments of :func:`study_spec`, checked once there.

    Returns
    -------
    ExperimentResult
        Frames ``tiles`` (with a ``table`` column, ``"self-play"`` or the table's label; a
        strategy counted once per round and deal), ``lead_contrasts`` (mixed tables: the
        leading strategies paired by deal) and, with ``hands > 0``, ``cf_tiles``, ``cf_hands``,
        ``cf_summary`` (0-0, round differential), ``cf_values`` and ``cf_gain`` (every state
        and value), ``cf_continuations`` (the gain per continuation), ``cf_strong`` (tile
        values under the strong continuations) and ``cf_features`` (the gain by hand feature).
    """
    spec = given_spec(NAME, args, options) or study_spec(*args, **options)
    return run_experiment(spec, compute)


def study_spec(players=DEFAULT_PLAYERS, strategies=DEFAULT_STRATEGIES,
               matches: int = DEFAULT_MATCHES, seed: int = DEFAULT_SEED, hands: int = 300,
               playouts: int = 100, playout_strategy="greedy", baseline="greedy", *,
               score_states=DEFAULT_SCORE_STATES, tables=None, table_matches: int | None = None,
               sealed: bool = False, secret: str | None = None,
               decision_timeout: float | None = None, strong_continuations=STRONG_CONTINUATIONS,
               strong_hands: int | None = None, strong_playouts: int | None = None,
               **scale) -> StudySpec:
    """The checked spec of an openings run (ValueError, one line): its settings
    (:func:`settings_for`), its strategies and its scale options.

    Parameters
    ----------
    players, strategies, matches, seed
        As :meth:`experiments.run_spine.StudySpec.build` (``matches`` for the observed view).
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
        :func:`experiments.studies.overshoot.run`: a table's ``tiles`` rows are per strategy, from the
        rounds its entity led (every rotation, the same deals).
    sealed, secret, decision_timeout
        The run's sealing, as :func:`experiments.studies.overshoot.run`; the secret also keys the
        counterfactual playouts' decision streams (every score state's).
    strong_continuations : sequence of str or Strategy, or str
        Strong strategies that also play the forced openings out at 0-0 (default
        :data:`STRONG_CONTINUATIONS`; ``()`` none), in this process
        (:func:`continuation_results`).
    strong_hands, strong_playouts : int, optional
        Their hands and playouts per (hand, tile): default ``hands //``
        :data:`STRONG_HANDS_DIVISOR` and ``playouts //`` :data:`STRONG_PLAYOUTS_DIVISOR` (at
        least 2 each).
    **scale
        ``threads``, ``progress``, ``out``, ``backend``, ``shard_size``, ``keep_shards``: as
        :meth:`experiments.run_spine.StudySpec.build` (the counterfactual is sharded by
        :data:`experiments.sources.CF_HANDS_PER_SHARD` hands).

    Returns
    -------
    experiments.run_spine.StudySpec
    """
    resolved = resolve_field(strategies)
    settings = settings_for(players, resolved, matches, seed, hands, playouts,
                            playout_strategy, baseline, score_states, tables, table_matches,
                            sealed=sealed, secret=secret, decision_timeout=decision_timeout,
                            strong_continuations=strong_continuations,
                            strong_hands=strong_hands, strong_playouts=strong_playouts)
    return StudySpec(settings, tuple(resolved), study_scale(**scale))


def compute(data) -> ExperimentResult:
    """The study's result from a run's data (:class:`experiments.sources.DataRun`): what
    :func:`run` and the command line compute."""
    settings = data.settings
    # the observed tables are built one configuration at a time (memory)
    tiles = [observed_tiles(frame, strategy, count)
             for (strategy, count), frame in data.rounds()]
    contrasts = []
    for (label, count), table in data.table_rounds():
        tiles += _observed_table(table, label, count)
        contrasts.append(lead_contrasts(table, label, count))
    cf = data.counterfactuals() if settings["hands"] > 0 else {}
    states = (state_tables(settings, threads=data.threads, progress=data.progress)
              if settings["hands"] > 0 else [])
    strong = (continuation_results(settings, threads=data.threads, progress=data.progress)
              if settings["hands"] > 0 else {})
    return analyse(tiles, cf, settings, states, contrasts=contrasts, strong=strong)


def settings_for(players, strategies, matches, seed, hands, playouts, playout_strategy,
                 baseline, score_states=DEFAULT_SCORE_STATES, tables=None,
                 table_matches=None, *, sealed: bool = False, secret: str | None = None,
                 decision_timeout=None, strong_continuations=STRONG_CONTINUATIONS,
                 strong_hands=None, strong_playouts=None) -> dict:
    """Checked settings (raises ValueError, one line).

    Every strategy argument may be a spec (built-in name, ``MODULE:NAME``,
    ``FILE.py:NAME``, ``name[k=v]``) or a :class:`strategies.Strategy`; the
    settings hold names (the tables' labels), specs (what the shard jobs
    resolve) and code digests. ``sealed``, ``secret``, ``decision_timeout``: the
    run's sealing (:func:`experiments.settings.study_settings`);
    ``strong_continuations``, ``strong_hands``, ``strong_playouts``: as :func:`run`.
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
    strong = [] if not strong_continuations else [
        one_strategy(entry, "strong_continuations")
        for entry in strategy_entries(strong_continuations, "strong_continuations")]
    strong = [st for st in strong if st.name != playout.name]  # the main continuation already
    check_distinct_names(resolve_field(strategies) + [playout, base] + strong)
    settings["strategy_code"] = {**settings["strategy_code"], playout.name: playout.code_key,
                                 base.name: base.code_key,
                                 **{st.name: st.code_key for st in strong}}
    settings["strong_continuations"] = [st.name for st in strong]
    settings["strong_continuation_specs"] = [spec_of(st) for st in strong]
    # a strong playout costs 50-250 greedy ones: fewer hands and playouts by default
    default_hands = max(2, settings["hands"] // STRONG_HANDS_DIVISOR) if settings["hands"] else 0
    settings["strong_hands"] = (default_hands if strong_hands is None
                                else check_int(strong_hands, "strong_hands", 0))
    settings["strong_playouts"] = (max(2, settings["playouts"] // STRONG_PLAYOUTS_DIVISOR)
                                   if strong_playouts is None
                                   else check_int(strong_playouts, "strong_playouts", 2))
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
                out.append(value_tables(result, state, s["seed"]))
    return out


def continuation_results(settings: dict, threads=None, progress: bool = False) -> dict:
    """The forced openings at 0-0 continued by each strong strategy of ``settings``
    (``strong_continuations``), in this process (local threads, not sharded), on
    ``strong_hands`` hands (the first of the main counterfactual's, the same re-deals) and
    ``strong_playouts`` playouts.

    Returns
    -------
    dict
        ``(continuation name, players) -> OpeningCounterfactual`` (empty without strong
        continuations or hands).
    """
    s = settings
    names = s.get("strong_continuations", [])
    if not names or not s.get("strong_hands"):
        return {}
    out = {}
    total = s["strong_hands"] * len(s["players"]) * len(names)
    with progress_bar(total, progress, unit="hand", desc="strong continuations") as bar:
        for name, spec in zip(names, s["strong_continuation_specs"]):
            for count in s["players"]:
                out[(name, count)] = opening_counterfactual(
                    count, spec, hands=s["strong_hands"], playouts=s["strong_playouts"],
                    seed=s["seed"], baseline=s.get("baseline_spec", s["baseline"]),
                    threads=threads, on_chunk=bar.update, secret=s.get("secret"))
    return out


def hand_features(tiles: np.ndarray) -> pd.DataFrame:
    """The simple features (:data:`FEATURES`) of leader hands, as bucket labels.

    Parameters
    ----------
    tiles : ndarray int64[H, 5]
        Each hand's tile indices.

    Returns
    -------
    DataFrame of str, shape (H, 4)
        ``doubles`` (``"0"``, ``"1"``, ``"2+"``), ``pips`` (``"<25"``, ``"25-34"``,
        ``"35+"``), ``scoring`` (``"0"``, ``"1"``, ``"2+"``: tiles whose pips sum to 5 or
        10) and ``big`` (``"yes"``/``"no"``: the hand holds 5-5 or 4-6).
    """
    pips = np.array(TILES, dtype=np.int64)[np.asarray(tiles, dtype=np.int64)]  # [H, 5, 2]
    total = pips.sum(axis=2)
    doubles = (pips[..., 0] == pips[..., 1]).sum(axis=1)
    scoring = np.isin(total, (5, 10)).sum(axis=1)
    big = ((pips[..., 0] == 5) & (pips[..., 1] == 5)) | ((pips[..., 0] == 4) & (pips[..., 1] == 6))
    hand_pips = total.sum(axis=1)

    def capped(n):
        return np.where(n >= 2, "2+", n.astype(str))

    return pd.DataFrame({
        "doubles": capped(doubles),
        "pips": np.where(hand_pips < 25, "<25", np.where(hand_pips < 35, "25-34", "35+")),
        "scoring": capped(scoring),
        "big": np.where(big.any(axis=1), "yes", "no"),
    })


def feature_gains(result, continuation: str) -> pd.DataFrame:
    """The gain of the best opening over the baseline's (both ends, :func:`gain_row`) by hand
    feature bucket (:func:`hand_features`), per value kind, for one counterfactual result.
    Columns ``continuation``, ``players``, ``value``, ``feature``, ``bucket`` and
    :func:`gain_row`'s."""
    features = hand_features(result.tiles)
    rows = []
    for value in value_kinds(result.players):
        hands = result.per_hand(value).reset_index(drop=True)
        for feature in FEATURES:
            buckets = pd.Categorical(features[feature], categories=BUCKETS[feature])
            for bucket, sel in hands.groupby(buckets, sort=True, observed=True):
                rows.append({"continuation": continuation, "players": result.players,
                             "value": value, "feature": feature, "bucket": bucket,
                             **gain_row(sel)})
    return pd.DataFrame(rows)


def continuation_rows(result, continuation: str) -> pd.DataFrame:
    """The gain at all playouts per value kind (:func:`gain_row`) of one continuation."""
    return pd.DataFrame([{"continuation": continuation, "players": result.players,
                          "value": value, "playouts": result.playouts,
                          **gain_row(result.per_hand(value))}
                         for value in value_kinds(result.players)])


def value_tables(result, state, seed: int = 0, resamples: int = RANK_RESAMPLES) -> dict:
    """The state's reduced tables of one counterfactual result: ``values`` (per tile,
    :func:`tile_values`, rank intervals from ``resamples`` bootstrap resamples of the hands
    seeded by ``seed``) and ``gain`` (per playout count), for each of :func:`value_kinds`."""
    label = state_label(state)
    values, gains = [], []
    counts = gain_playouts(result.playouts)
    for value in value_kinds(result.players):
        per_tile = result.per_tile(value)
        table = tile_values(per_tile, seed, resamples)
        if value == "win_prob":  # a probability's mean: its t interval clipped to [0, 1]
            table["low"] = table["low"].clip(lower=0.0)
            table["high"] = table["high"].clip(upper=1.0)
        table.insert(0, "value", value)
        table.insert(0, "state", label)
        table.insert(0, "players", result.players)
        values.append(table)
        by_playouts = result.gain_by_playouts(counts, value)
        rows = []
        for m, sel in by_playouts.groupby("playouts", sort=True):
            rows.append({"players": result.players, "state": label, "value": value,
                         "playouts": int(m), **gain_row(sel),
                         "hand_value_mean": float(per_tile["mean_diff"].mean())})
        gains.append(pd.DataFrame(rows))
    return {"values": pd.concat(values, ignore_index=True),
            "gain": pd.concat(gains, ignore_index=True)}


def gain_row(hands: pd.DataFrame) -> dict:
    """The gain of the best opening over the baseline's from per-hand rows (``gain``,
    ``gain_heldout``, ``baseline_is_best``): ``hands``, both ends with their t intervals over
    hands, and the share of hands where the baseline's opening is the best (Wilson)."""
    inside = mean_interval(hands["gain"])
    held = mean_interval(hands["gain_heldout"])
    same = proportion(int(hands["baseline_is_best"].sum()), len(hands))
    return {"hands": len(hands), "heldout_mean": held[0], "heldout_low": held[1],
            "heldout_high": held[2], "insample_mean": inside[0], "insample_low": inside[1],
            "insample_high": inside[2], "baseline_is_best": float(same["rate"]),
            "baseline_is_best_low": float(same["low"]),
            "baseline_is_best_high": float(same["high"])}


def tile_values(per_tile: pd.DataFrame, seed: int = 0,
                resamples: int = RANK_RESAMPLES) -> pd.DataFrame:
    """Per tile from :meth:`OpeningCounterfactual.per_tile` rows: its mean value, its value
    relative to its hand's mean opening as a paired contrast over the hands holding it, and its
    rank with a bootstrap interval over hands.

    Parameters
    ----------
    per_tile : DataFrame
        One row per (hand, tile): ``hand``, ``tile`` (categorical of the 28 names),
        ``mean_diff`` (the tile's mean value over the playouts), ``is_best``, ``is_baseline``.
    seed, resamples : int
        The rank bootstrap (:func:`experiments.stats.bootstrap_ranks`, the hands resampled).

    Returns
    -------
    DataFrame, one row per tile (28, :data:`TILE_NAMES` order)
        ``tile``, ``hands`` (int64, hands holding it), ``mean``, ``low``, ``high`` (t interval
        over hands); ``relative_mean``, ``relative_low``, ``relative_high``,
        ``relative_effect`` (the paired contrast tile - the hand's mean opening, by hand,
        :func:`experiments.stats.paired_contrast`); ``best_share``, ``best_low``,
        ``best_high`` (how often it is its hand's best, Wilson), ``baseline_share``; ``rank``
        (1 = highest relative value among the tiles held), ``rank_low``, ``rank_high`` (95%
        bootstrap interval), ``rank_first_share``, ``rank_last_share`` (share of resamples
        ranking it first or last). Tiles no hand held: ``hands`` 0 and nan elsewhere.
    """
    frame = per_tile.copy()
    hand_mean = frame.groupby("hand")["mean_diff"].transform("mean")
    frame["relative"] = frame["mean_diff"] - hand_mean
    frame["hand_mean"] = hand_mean
    rows = []
    for name, sel in frame.groupby("tile", observed=False, sort=False):
        if len(sel) == 0:
            continue
        value = mean_interval(sel["mean_diff"])
        rel = paired_contrast(sel["mean_diff"], sel["hand_mean"])
        rows.append({"tile": str(name), "hands": len(sel), "mean": value[0], "low": value[1],
                     "high": value[2], "relative_mean": rel.difference,
                     "relative_low": rel.low, "relative_high": rel.high,
                     "relative_effect": rel.effect,
                     "best": int(sel["is_best"].sum()), "baseline": int(sel["is_baseline"].sum())})
    table = pd.DataFrame({"tile": TILE_NAMES}).merge(pd.DataFrame(rows), on="tile", how="left")
    held = table["hands"].fillna(0).to_numpy()
    p = proportion(table["best"].fillna(0).to_numpy(), held)
    table["best_share"], table["best_low"], table["best_high"] = p["rate"], p["low"], p["high"]
    table["baseline_share"] = proportion(table["baseline"].fillna(0).to_numpy(), held)["rate"]
    table = table.drop(columns=["best", "baseline"]).fillna({"hands": 0}).astype(
        {"hands": "int64"})
    for column in ("rank", "rank_low", "rank_high", "rank_first_share", "rank_last_share"):
        table[column] = np.nan
    present = table.index[table["hands"] > 0]
    if len(present) >= 2:
        # units = hands: one row per hand, its five tiles' relative values, nan elsewhere
        wide = frame.pivot_table(index="hand", columns="tile", values="relative",
                                 observed=False, dropna=False).reindex(
            columns=table.loc[present, "tile"])
        ranks = bootstrap_ranks(wide.to_numpy(), resamples, seed)
        table.loc[present, "rank"] = ranks["rank"].to_numpy()
        table.loc[present, "rank_low"] = ranks["rank_low"].to_numpy()
        table.loc[present, "rank_high"] = ranks["rank_high"].to_numpy()
        table.loc[present, "rank_first_share"] = ranks["best_share"].to_numpy()
        table.loc[present, "rank_last_share"] = ranks["worst_share"].to_numpy()
    return table


def rank_text(row) -> str:
    """``"rank 3 [1, 6]"``: a tile's rank with its bootstrap interval."""
    if not np.isfinite(row.rank):
        return "not held"
    return f"rank {int(row.rank)} [{int(row.rank_low)}, {int(row.rank_high)}]"


def extremes(values: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The tiles that are the best (rank interval ``[1, 1]``) and the worst (``[k, k]``, ``k``
    the tiles held) of one (state, players, value, continuation) block: empty lists where the
    intervals overlap (no single best or worst can be claimed)."""
    held = values.dropna(subset=["rank"])
    k = len(held)
    best = held[(held["rank_low"] == 1) & (held["rank_high"] == 1)]["tile"].tolist()
    worst = held[(held["rank_low"] == k) & (held["rank_high"] == k)]["tile"].tolist()
    return best, worst


def ranking_sentence(values: pd.DataFrame, digits: int) -> str:
    """The block's ranking in words, from the numbers: the best (or worst) tile only where its
    rank interval is ``[1, 1]`` (``[k, k]``), otherwise the tiles whose rank interval reaches
    1 (``k``) with their intervals; then how many tiles beat or trail their hand's mean opening
    (paired contrasts whose intervals exclude 0)."""
    held = values.dropna(subset=["rank"]).sort_values("rank")
    if held.empty:
        return "no tile held"
    k = len(held)
    best, worst = extremes(held)

    def named(rows, shown=3):
        text = ", ".join(
            f"{r.tile} {fmt_ci(r.relative_mean, r.relative_low, r.relative_high, digits)} "
            f"{rank_text(r)}" for r in rows.head(shown).itertuples())
        return text + (f" and {len(rows) - shown} more" if len(rows) > shown else "")

    if best:
        top = f"best: {named(held[held.tile.isin(best)])}"
    else:
        top = ("no single best (rank intervals reaching 1: "
               f"{named(held[held['rank_low'] == 1])})")
    if worst:
        bottom = f"worst: {named(held[held.tile.isin(worst)])}"
    else:
        bottom = (f"no single worst (rank intervals reaching {k}: "
                  f"{named(held[held['rank_high'] == k].iloc[::-1])})")
    above = int((held["relative_low"] > 0).sum())
    below = int((held["relative_high"] < 0).sum())
    return (f"{top}; {bottom}; {above} of {k} tiles beat their hand's mean opening and {below} "
            "trail it (paired by hand, intervals excluding 0)")


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
    """:func:`sim.study_kernels.openings.opening_counterfactual` per player count of ``settings`` (in
    memory, local backend: :meth:`experiments.sources.DataRun.counterfactuals`)."""
    with DataRun(settings, threads=check_threads(threads), progress=progress) as data:
        return data.counterfactuals()


def analyse(rounds, cf: dict, settings: dict, states=(), contrasts=(),
            strong=None) -> ExperimentResult:
    """Frames, plots and summary from the round frames and counterfactual results.

    ``rounds``: a dict ``(strategy, players) -> rounds frame``
    (:func:`experiments.sources.collect_rounds`), an iterable of such pairs, or a
    list of already built observed tables. ``cf``: ``players ->
    OpeningCounterfactual`` at 0-0; ``states``: :func:`value_tables` of the
    other score states (:func:`state_tables`); ``contrasts``: :func:`lead_contrasts` frames of
    the mixed tables; ``strong``: :func:`continuation_results`.
    """
    if isinstance(rounds, list) and all(isinstance(t, pd.DataFrame) for t in rounds):
        observed = rounds
    else:
        observed = [observed_tiles(r, s, p) for (s, p), r in pairs(rounds)]
    frames = {"tiles": pd.concat(observed, ignore_index=True)}
    contrasts = [c for c in contrasts if len(c)]
    if contrasts:
        frames["lead_contrasts"] = pd.concat(contrasts, ignore_index=True)
    seed = int(settings.get("seed", 0))
    if cf:
        per_tile, per_hand, summary = [], [], []
        for result in cf.values():
            t, h, sm = _counterfactual_tables(result, seed)
            per_tile.append(t)
            per_hand.append(h)
            summary.append(sm)
        frames["cf_tiles"] = pd.concat(per_tile, ignore_index=True)
        frames["cf_hands"] = pd.concat(per_hand, ignore_index=True)
        frames["cf_summary"] = pd.concat(summary, ignore_index=True)
        reduced = [value_tables(result, (0, 0), seed) for result in cf.values()] + list(states)
        order = {state_label(st): k for k, st in enumerate(settings.get("score_states", [[0, 0]]))}
        for name in ("values", "gain"):
            table = pd.concat([r[name] for r in reduced], ignore_index=True)
            table["_order"] = table["state"].map(order)
            frames[f"cf_{name}"] = (table.sort_values(["_order", "players"], kind="stable")
                                    .drop(columns="_order").reset_index(drop=True))
        main = settings.get("playout_strategy", "greedy")
        runs = [(main, result) for result in cf.values()]
        runs += [(name, result) for (name, _count), result in (strong or {}).items()]
        frames["cf_continuations"] = pd.concat(
            [continuation_rows(result, name) for name, result in runs], ignore_index=True)
        frames["cf_features"] = pd.concat(
            [feature_gains(result, name) for name, result in runs], ignore_index=True)
        if strong:
            tables = []
            for (name, _count), result in strong.items():
                table = value_tables(result, (0, 0), seed)["values"]
                table.insert(0, "continuation", name)
                tables.append(table)
            frames["cf_strong"] = pd.concat(tables, ignore_index=True)
    selfplay = frames["tiles"][frames["tiles"]["table"] == SELF_PLAY]
    plots = {"opening_tiles": lambda p: plot_opening_tiles(selfplay, p, settings)}
    if cf:
        plots["counterfactual"] = lambda p: plot_counterfactual(
            frames["cf_tiles"], frames["cf_hands"], p, settings, frames.get("cf_strong"))
        plots["state_values"] = lambda p: plot_state_values(frames["cf_values"], p, settings)
        plots["gain_playouts"] = lambda p: plot_gain_playouts(frames["cf_gain"], p, settings)
    key = _key_numbers(frames, settings)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


def _observed_table(table, label: str, players: int) -> list[pd.DataFrame]:
    """The observed rows of one mixed table: per strategy, the rounds its entity led, each
    (deal, round) counted once however many rotations it led it in (:func:`observed_tiles`)."""
    rounds = table.data
    leader = entity_names(table.rotations, rounds["rotation"], rounds["leader_entity"])
    return [observed_tiles(rounds[leader == strategy], strategy, players, label)
            for strategy in strategies_in(table.rotations)]


def lead_contrasts(table, label: str, players: int) -> pd.DataFrame:
    """The first round of a mixed table by leading strategy, paired by deal.

    Every rotation of a table plays the same deals and the first leader's seat is drawn from
    the deal, so each deal's first round is led by each strategy in some rotation. A strategy
    leading a deal in several rotations (two Bs of ``A,B`` at 3 players) counts once
    (:func:`experiments.mixed_tables.per_deal_means`); each pair of strategies is compared
    once, ``A - B`` paired by deal (:func:`experiments.stats.paired_contrast`).

    Returns
    -------
    DataFrame
        One row per (pair, quantity): ``table``, ``players``, ``a``, ``b``, ``quantity``
        (``"diff"``: the leader's first-round differential, displayed points; ``"won"``: the
        leader's side won the match, finished matches), ``a_mean``, ``b_mean``,
        ``difference``, ``low``, ``high``, ``deals``, ``effect``, ``detected``.
    """
    rounds = table.data
    first = rounds[rounds["round"].to_numpy() == 0]
    leader = entity_names(table.rotations, first["rotation"], first["leader_entity"])
    won = (first["match_winner"].to_numpy() == first["leader_entity"].to_numpy()).astype(float)
    won[first["match_winner"].to_numpy() < 0] = np.nan
    measures = {"diff": leader_differential(first, players), "won": won}
    names = strategies_in(table.rotations)
    rows = []
    for quantity, values in measures.items():
        wide = per_deal_means(values, first["match"].to_numpy(), leader)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if a not in wide or b not in wide:
                    continue
                c = paired_contrast(wide[a], wide[b])
                rows.append({"table": label, "players": players, "a": a, "b": b,
                             "quantity": quantity, "a_mean": float(wide[a].mean()),
                             "b_mean": float(wide[b].mean()), "difference": c.difference,
                             "low": c.low, "high": c.high, "deals": c.units, "effect": c.effect,
                             "detected": c.detected})
    return pd.DataFrame(rows)


LEAD_QUANTITIES = {"diff": "leader's first-round differential (displayed points)",
                   "won": "first leader's match win rate"}
"""The quantities of :func:`lead_contrasts`, in words."""


def _unit_stats(units: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """Per tile from unit rows (``tile`` code, ``deal``, ``diff``, ``won``, ``finished``): the
    number of units, the mean differential with its t interval clustered by deal
    (:func:`experiments.stats.clustered_ratio`), and the match win rate of the finished units
    (Wilson at the deal-clustered effective size, :func:`experiments.stats.clustered_proportion`).
    Columns ``{prefix}_n``, ``_mean``, ``_low``, ``_high``, ``{which}_win_rate``, ``_win_low``,
    ``_win_high``, ``{which}_finished`` (``which`` the prefix without ``_diff``), indexed by tile
    code 0..27."""
    which = prefix.removesuffix("_diff")
    out = pd.DataFrame(index=pd.RangeIndex(N_TILES))
    out[f"{prefix}_n"] = units.groupby("tile").size().reindex(out.index).fillna(0).astype("int64")
    if len(units):
        diff = clustered_ratio(units["diff"].to_numpy(), 1.0, units["deal"].to_numpy(),
                               units["tile"].to_numpy())
        q = np.array([t_quantile(int(g) - 1) if g >= 2 else np.nan for g in diff["clusters"]])
        diff = diff.assign(low=diff["ratio"] - q * diff["se"], high=diff["ratio"] + q * diff["se"])
        out[f"{prefix}_mean"] = diff["ratio"].reindex(out.index)
        out[f"{prefix}_low"] = diff["low"].reindex(out.index)
        out[f"{prefix}_high"] = diff["high"].reindex(out.index)
    else:
        for end in ("mean", "low", "high"):
            out[f"{prefix}_{end}"] = np.nan
    done = units[units["finished"]]
    out[f"{which}_finished"] = done.groupby("tile").size().reindex(out.index).fillna(0).astype(
        "int64")
    if len(done):
        win = clustered_proportion(done["won"].to_numpy(), done["deal"].to_numpy(),
                                   done["tile"].to_numpy())
        out[f"{which}_win_rate"] = win["rate"].reindex(out.index)
        out[f"{which}_win_low"] = win["low"].reindex(out.index).fillna(0.0)
        out[f"{which}_win_high"] = win["high"].reindex(out.index).fillna(1.0)
    else:
        out[f"{which}_win_rate"], out[f"{which}_win_low"], out[f"{which}_win_high"] = (
            np.nan, 0.0, 1.0)
    return out


def observed_tiles(rounds: pd.DataFrame, strategy: str, players: int,
              label: str = SELF_PLAY) -> pd.DataFrame:
    """Per tile, the rounds ``strategy`` led with it: the unit is one (deal, round) of one
    strategy, counted once however many rotations of a mixed table it led it in (its rows
    averaged), and intervals are clustered by deal (the match index: the rounds of a match, and
    the rotations of a deal, are not independent)."""
    finished = rounds["match_winner"].to_numpy() >= 0
    frame = pd.DataFrame({
        "tile": pd.Categorical(rounds["opening"].astype(str), categories=TILE_NAMES).codes,
        "deal": rounds["match"].to_numpy(),
        "round": rounds["round"].to_numpy(),
        "diff": leader_differential(rounds, players),
        "won": np.where(finished, rounds["match_winner"].to_numpy()
                        == rounds["leader_entity"].to_numpy(), np.nan),
        "finished": finished.astype(float),
        "points": rounds["opening_points"].to_numpy() / 5.0,
    })
    # one unit per (tile, deal, round): the rows of a round a strategy led in several
    # rotations are the same deal seen again, not new observations
    units = frame.groupby(["tile", "deal", "round"], sort=True).agg(
        diff=("diff", "mean"), won=("won", "mean"), finished=("finished", "max"),
        points=("points", "mean")).reset_index()
    units["finished"] = units["finished"] > 0
    first = units[units["round"] == 0]
    table = pd.DataFrame({"tile": TILE_NAMES})
    for which, sel in (("first", first), ("any", units)):
        stats = _unit_stats(sel, f"{which}_diff")
        table = table.join(stats)
    counts = first.groupby("tile").size().reindex(range(N_TILES)).fillna(0)
    table["first_share"] = counts.to_numpy() / max(1, len(first))
    table["first_opening_points"] = first.groupby("tile")["points"].mean().reindex(
        range(N_TILES)).to_numpy()
    table = table.rename(columns={"first_diff_n": "first_n", "any_diff_n": "any_n"})
    table.insert(0, "players", players)
    table.insert(0, "strategy", strategy)
    table["table"] = label
    return table


def _counterfactual_tables(result, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame,
                                                           pd.DataFrame]:
    players = result.players
    per_tile = result.per_tile()
    best = per_tile.groupby("hand")["mean_diff"].transform("max")
    per_tile["regret"] = best - per_tile["mean_diff"]
    table = tile_values(per_tile, seed).rename(columns={"mean": "mean_diff"})
    table["regret_mean"] = per_tile.groupby("tile", observed=False)["regret"].mean().reindex(
        TILE_NAMES).to_numpy()
    table.insert(0, "playout_strategy", result.strategy)
    table.insert(0, "players", players)

    per_hand = result.per_hand()
    per_hand.insert(0, "players", players)

    row = gain_row(per_hand)
    summary = pd.DataFrame([{
        "players": players, "playout_strategy": result.strategy, "baseline": result.baseline,
        "hands": row["hands"], "playouts": result.playouts,
        "baseline_is_best": row["baseline_is_best"],
        "baseline_is_best_low": row["baseline_is_best_low"],
        "baseline_is_best_high": row["baseline_is_best_high"],
        "gain_mean": row["insample_mean"], "gain_low": row["insample_low"],
        "gain_high": row["insample_high"],
        "gain_median": float(per_hand["gain"].median()),
        "gain_heldout_mean": row["heldout_mean"], "gain_heldout_low": row["heldout_low"],
        "gain_heldout_high": row["heldout_high"],
        "hand_value_mean": float(result.diff.mean()),
    }])
    return table, per_hand, summary


def _key_numbers(frames: dict, settings: dict) -> dict:
    """The study's key numbers, every one read from the frames: the first leader's match win
    rate (self-play; the observed best and worst openings are left out, confounded by the
    hand), the mixed tables' leading strategies as paired contrasts, the counterfactual gains,
    and the rankings with their bootstrap rank intervals."""
    key = {}
    tiles = frames["tiles"]
    selfplay = tiles[tiles["table"] == SELF_PLAY]
    for (strategy, players), sel in selfplay.groupby(["strategy", "players"], sort=False):
        done = sel["first_finished"].to_numpy(dtype=float)
        won = float((sel["first_win_rate"].fillna(0).to_numpy() * done).sum())
        p = proportion(won, done.sum())
        key[f"{strategy}, {players}p: first leader's match win rate"] = fmt_ci(
            float(p["rate"]), float(p["low"]), float(p["high"]))
    if "lead_contrasts" in frames:
        for row in frames["lead_contrasts"].itertuples(index=False):
            key[f"{row.table}, {row.players}p, {row.quantity}"] = lead_contrast_words(row)
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
        full = _full_gain(frames["cf_gain"])
        for row in full[full.value == "win_prob"].itertuples(index=False):
            if row.state == "0-0":
                key[f"counterfactual {row.players}p: gain of the best opening in match-win "
                    f"probability, held out .. in-sample"] = _gain_range(row, 4)
                half = table_half_width(int(row.players))
                key[f"counterfactual {row.players}p: the win table's largest 95% half-width"] = (
                    f"{half:.4f}" if np.isfinite(half) else
                    "not shipped with the table (see winprob/summary.md)")
        values = frames["cf_values"]
        for (players, value), sel in values.groupby(["players", "value"], sort=True):
            parts = []
            for state, rows in sel.groupby("state", sort=False):
                best, _worst = extremes(rows)
                reach = rows[rows["rank_low"] == 1]
                parts.append(f"{state} {best[0]}" if best else
                             f"{state} none of " + "/".join(reach["tile"]))
            key[f"counterfactual {players}p: best opening by {_value_short(value)} per state "
                "(rank interval [1, 1])"] = ", ".join(parts)
        strong = frames["cf_continuations"]
        strong = strong[strong["continuation"] != settings.get("playout_strategy", "greedy")]
        for row in strong.itertuples(index=False):
            digits = 2 if row.value == "diff" else 4
            key[f"continuation {row.continuation}, {row.players}p ({row.hands} hands x "
                f"{row.playouts} playouts): gain of the best opening in "
                f"{_value_short(row.value)}, held out .. in-sample"] = _gain_range(row, digits)
    return key


def lead_contrast_words(row) -> str:
    """A :func:`lead_contrasts` row in words (:func:`experiments.stats.contrast_words`)."""
    contrast = Contrast(row.difference, row.low, row.high, int(row.deals), row.effect)
    return contrast_words(contrast, f"{row.a} leading", f"{row.b} leading",
                          LEAD_QUANTITIES[row.quantity])


def _value_short(value: str) -> str:
    return "round differential" if value == "diff" else "match-win probability"


def _full_gain(gain: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``cf_gain`` at each run's full number of playouts (the main figures)."""
    top = gain.groupby(["players", "state", "value"], sort=False)["playouts"].transform("max")
    return gain[gain["playouts"] == top].reset_index(drop=True)


def _gain_range(row, digits: int) -> str:
    return (fmt_ci(row.heldout_mean, row.heldout_low, row.heldout_high, digits) + " .. "
            + fmt_ci(row.insample_mean, row.insample_low, row.insample_high, digits))


def _ranking_lines(values: pd.DataFrame, by: str = "state") -> list[str]:
    """Per (players, value): one line per ``by`` (the score state, or the continuation) with
    :func:`ranking_sentence` (all read from ``values``)."""
    lines = []
    for (players, value), sel in values.groupby(["players", "value"], sort=True):
        digits = 2 if value == "diff" else 4
        lines.append(f"- **{players} players, {_value_short(value)}**:")
        for label, rows in sel.groupby(by, sort=False):
            lines.append(f"  - {label}: {ranking_sentence(rows, digits)}")
    return lines


def rank_table(values: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Tiles by rows, ``columns`` (of ``values``) by columns, each cell ``"3 [1, 6]"``."""
    cells = values.assign(cell=[f"{int(r.rank)} [{int(r.rank_low)}, {int(r.rank_high)}]"
                                if np.isfinite(r.rank) else "" for r in values.itertuples()])
    table = cells.pivot_table(index="tile", columns=columns, values="cell", aggfunc="first",
                              sort=False).reindex(TILE_NAMES).fillna("")
    table.columns = [" ".join(str(c) for c in (col if isinstance(col, tuple) else (col,)))
                     for col in table.columns]
    return table.reset_index()


def win_table_note(players=(2, 4)) -> str:
    """Where the match-win values come from and what their error is: the shipped table's point
    estimates, with its largest 95% half-width at each of ``players`` where the table carries
    half-widths (:func:`sim.study_kernels.openings.table_half_width`), else a pointer to the
    win-probability study's report."""
    halves = {p: table_half_width(p) for p in players if p in TABLE_ROW}
    known = {p: h for p, h in halves.items() if np.isfinite(h)}
    if known:
        error = ("its largest 95% half-width over the states a round starts from is "
                 + ", ".join(f"{h:.4f} at {p} players" for p, h in known.items()))
    else:
        error = ("its per-state 95% half-width is not shipped with the table; it is reported "
                 "in `winprob/summary.md`")
    return ("Match-win values are the shipped `rollout` self-play table's point estimates "
            "(`strategies/winprob_table.py`, 2 and 4 players); " + error + ". Their intervals "
            "here are over hands and playouts only: the table's error is common to every hand "
            "and is not in them, so a gain or a tile contrast in match-win probability smaller "
            "than twice that half-width may be the table's error rather than the opening's.")


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    s = settings
    lines = summary_head("Openings", s,
                         "Round differential = the leader's side's accepted points in the round "
                         "minus the opponents' mean, in displayed points. 95% intervals: t over "
                         "deals for means, Wilson for rates; a strategy leading the same deal's "
                         "round in several rotations of a mixed table counts once.",
                         lead="Observed: self-play")
    strong = s.get("strong_continuations", [])
    if s["hands"] > 0:
        lines.append(
            f"Counterfactual: {s['hands']:,} sampled leader hands per player count, each tile "
            f"forced as the opening, {s['playouts']} playouts per (hand, tile) with "
            f"`{s['playout_strategy']}` at every seat (unseen tiles re-dealt per playout, the "
            f"same re-deals for every tile of a hand), from each score state (displayed, "
            f"leader's side - every other side) "
            f"{', '.join(state_label(st) for st in s.get('score_states', [[0, 0]]))}; "
            f"baseline `{s['baseline']}`"
            + (f"; strong continuations {', '.join(f'`{n}`' for n in strong)} at 0-0 on the "
               f"first {s['strong_hands']:,} of those hands with {s['strong_playouts']} "
               "playouts each" if strong and s.get("strong_hands") else "")
            + ". Each playout is valued by the leader's round differential (displayed points) "
            "and by the leader's side's match-win probability in the state the round leaves "
            "(scores and next leader). " + win_table_note(s["players"]))
    lines += ["", "## Key numbers", ""]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    if "lead_contrasts" in frames:
        lines += ["", "## Mixed tables: the leading strategies, paired by deal", "",
                  ("Each table is played in every rotation on the same deals, so every deal's "
                   "first round is led by each strategy in some rotation: each pair of "
                   "strategies is compared once, A leading - B leading, paired by deal (a "
                   "strategy leading a deal in several rotations counts once). A finding only "
                   "where the interval excludes 0."), ""]
        lines += [f"- {row.table}, {row.players}p: {lead_contrast_words(row)}"
                  for row in frames["lead_contrasts"].itertuples(index=False)]
    if "cf_gain" in frames:
        full = _full_gain(frames["cf_gain"])
        lines += ["", "## Gain of the best opening per hand over the baseline's: a range", "",
                  ("Choosing the best of five noisy means and measuring it on the same playouts "
                   "(in-sample) overstates the gain; choosing on the even-numbered playouts and "
                   "measuring on the odd ones (held out) is unbiased for a choice made on half "
                   "the playouts, so it understates the gain of a choice made on all of them. "
                   "The gain lies between the two ends; both approach it as the playouts grow "
                   "(next table). Round differential in displayed points, win probability in "
                   "0-1 units; 95% t intervals over hands."), "",
                  md_table(_gain_table(full, s["baseline"], "state"), 3)]
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
    if "cf_continuations" in frames:
        lines += ["", "## Continuations: who plays the round out", "",
                  (f"The same forced openings at 0-0 played out by `{s['playout_strategy']}` "
                   "(the main counterfactual) and by the strong strategies (fewer hands and "
                   "playouts: wider intervals, and a held-out end biased further down). "
                   "`cf_continuations`, `cf_strong`."), "",
                  md_table(_gain_table(frames["cf_continuations"], s["baseline"],
                                       "continuation"), 3)]
        if "cf_strong" in frames:
            main = frames["cf_values"][frames["cf_values"]["state"] == "0-0"].assign(
                continuation=s["playout_strategy"])
            both = pd.concat([main, frames["cf_strong"]], ignore_index=True)
            lines += ["", ("Tile rankings by continuation (relative to the hand's mean "
                           "opening, paired by hand; ranks with 95% bootstrap intervals over "
                           "hands):"), ""] + _ranking_lines(both, "continuation")
    if "cf_features" in frames:
        lines += ["", "## The gain by hand feature (0-0, round differential)", "",
                  ("The gain of the best opening over the baseline's per hand, by simple "
                   "features of the hand: held out (low end) and in-sample (high end), "
                   "displayed points, 95% t intervals over the hands of the bucket, the "
                   "bucket's hands in parentheses (`cf_features` also holds match-win "
                   "probability and the baseline's share).")]
        for end, title in (("heldout", "held out (low end)"), ("insample", "in-sample (high end)")):
            lines += ["", f"Gain {title}:", "", md_table(_feature_table(frames["cf_features"],
                                                                           end), 2)]
    if "cf_values" in frames:
        lines += ["", "## Openings by state", "",
                  ("Each tile's value relative to the mean of its hand's five openings, a "
                   "paired contrast by hand; ranks 1 = best of the tiles held, with 95% "
                   "bootstrap intervals over hands. A tile is called the best (worst) only "
                   "where its rank interval is [1, 1] ([k, k]); `cf_values` holds every tile, "
                   "state and value."), ""] + _ranking_lines(frames["cf_values"])
        win = frames["cf_values"][frames["cf_values"].value == "win_prob"]
        if len(win):
            lines += ["", "## Ranks by match-win probability (1 = best, 95% bootstrap interval)",
                      "", md_table(rank_table(win, ["state", "players"]), 0)]
    if "cf_summary" in frames:
        lines += ["", ("## Counterfactual at 0-0: best opening vs the baseline's "
                       "(round differential, displayed points)"), "",
                  md_table(frames["cf_summary"][[
                      "players", "hands", "playouts", "baseline_is_best", "gain_mean",
                      "gain_median", "gain_heldout_mean", "gain_heldout_low",
                      "gain_heldout_high"]], 3)]
        cf = frames["cf_tiles"]
        cells = cf.assign(
            vs=[fmt_ci(r.relative_mean, r.relative_low, r.relative_high, 2)
                if r.hands else "" for r in cf.itertuples()],
            ranked=[rank_text(r) if r.hands else "" for r in cf.itertuples()])
        wide = cells.pivot(index="tile", columns="players", values="vs").reindex(TILE_NAMES)
        wide.columns = [f"{c}p vs hand" for c in wide.columns]
        ranks = cells.pivot(index="tile", columns="players", values="ranked").reindex(TILE_NAMES)
        ranks.columns = [f"{c}p rank" for c in ranks.columns]
        base = cf.pivot(index="tile", columns="players", values="baseline_share").reindex(
            TILE_NAMES)
        base.columns = [f"{c}p {s['baseline']} opens" for c in base.columns]
        table = pd.concat([wide, ranks, base], axis=1).reset_index()
        lines += ["", "## The 28 tiles (counterfactual, 0-0)", "",
                  ("`vs hand` = the tile's forced-opening value minus the mean of its hand's "
                   "five openings (displayed points, paired by hand, 95% t interval); `rank` "
                   "with its 95% bootstrap interval over hands; "
                   f"`{s['baseline']} opens` = how often the baseline opens with it when "
                   "held."), "", md_table(table, 2)]
    tiles = frames["tiles"]
    selfplay = tiles[tiles["table"] == SELF_PLAY]
    for strategy in s["strategies"]:
        sel = selfplay[selfplay.strategy == strategy]
        if sel.empty:
            continue
        cells = sel.assign(
            diff=[fmt_ci(r.first_diff_mean, r.first_diff_low, r.first_diff_high, 2)
                  if r.first_n else "" for r in sel.itertuples()],
            win=[fmt_ci(r.first_win_rate, r.first_win_low, r.first_win_high)
                 if r.first_finished else "" for r in sel.itertuples()])
        parts = []
        for column, name in (("diff", "round diff"), ("win", "match win"), ("first_n", "n")):
            wide = cells.pivot(index="tile", columns="players", values=column).reindex(
                TILE_NAMES)
            wide.columns = [f"{c}p {name}" for c in wide.columns]
            parts.append(wide)
        lines += ["", f"## The 28 tiles as the match's first opening, observed (`{strategy}`)",
                  "", ("What the strategy chose: a tile's figures mix the tile with the hands "
                       "it is chosen from (confounded by the hand; no best or worst opening "
                       "is claimed from them: the counterfactual above separates the tile)."),
                  "", md_table(pd.concat(parts, axis=1).reset_index(), 3)]
    lines += ["", "## Figures"]
    for caption in _captions(settings, frames):
        lines += ["", caption]
    lines += ["", "Full tables with intervals (first and any round's opening): `tiles`, "
              "`lead_contrasts`, `cf_tiles`, `cf_hands`, `cf_values`, `cf_gain`, "
              "`cf_continuations`, `cf_strong`, `cf_features` (parquet and CSV).", ""]
    return "\n".join(lines)


def _feature_table(features: pd.DataFrame, end: str) -> pd.DataFrame:
    """Feature buckets by rows, (continuation, players) by columns, each cell the round
    differential gain's ``end`` (``"heldout"`` or ``"insample"``) with its interval and hands."""
    sel = features[features["value"] == "diff"]
    ends = sel[[f"{end}_mean", f"{end}_low", f"{end}_high"]].to_numpy()
    cells = sel.assign(
        cell=[f"{fmt_ci(*e, 2)} ({n})" for e, n in zip(ends, sel["hands"])],
        column=[f"{r.continuation} {r.players}p" for r in sel.itertuples()],
        row=[f"{FEATURES[r.feature]}: {r.bucket}" for r in sel.itertuples()])
    table = cells.pivot_table(index="row", columns="column", values="cell", aggfunc="first",
                              sort=False).fillna("")
    return table.reset_index().rename(columns={"row": "hand feature"})


def _gain_table(full: pd.DataFrame, baseline: str, by: str) -> pd.DataFrame:
    """The gain rows (:func:`gain_row` columns) as a markdown-ready frame, ``by`` first."""
    return pd.DataFrame({
        by: full[by], "players": full["players"], "value": full["value"].map(_value_short),
        "hands": full["hands"], "playouts": full["playouts"],
        f"{baseline} is best": [fmt_ci(r.baseline_is_best, r.baseline_is_best_low,
                                       r.baseline_is_best_high, pct=True)
                                for r in full.itertuples()],
        "gain held out (low end)": [fmt_ci(r.heldout_mean, r.heldout_low, r.heldout_high,
                                           2 if r.value == "diff" else 4)
                                    for r in full.itertuples()],
        "gain in-sample (high end)": [fmt_ci(r.insample_mean, r.insample_low, r.insample_high,
                                             2 if r.value == "diff" else 4)
                                      for r in full.itertuples()],
    })


def _captions(settings: dict, frames: dict) -> list[str]:
    """One :func:`experiments.reporting.reports.figure_caption` per figure, each finding read from the
    frames."""
    s = settings
    out = []
    selfplay = frames["tiles"][frames["tiles"]["table"] == SELF_PLAY]
    out.append(figure_caption(
        "opening_tiles",
        "Per tile as the match's first opening, observed in self-play: the leader's round "
        "differential (displayed points) and the leader's side's match win rate, one colour per "
        "strategy",
        f"{s['matches']:,} matches per configuration, seed {s['seed']}",
        "Bars: 95% t intervals (differential) and Wilson intervals (win rate) over deals; tiles "
        f"a strategy opened fewer than {min_opened(s)} times are left out",
        "These are the tiles each strategy chose, confounded by the rest of the hand: "
        + _spread_sentence(selfplay, s)))
    if "cf_tiles" not in frames:
        return out
    cf = frames["cf_tiles"]
    tops = []
    for players, sel in cf.groupby("players"):
        best, _ = extremes(sel)
        tops.append(f"{players}p {best[0]}" if best else f"{players}p no single best")
    out.append(figure_caption(
        "counterfactual",
        "Forced openings at 0-0: each tile's value relative to its hand's mean opening "
        "(displayed points; one colour per continuation strategy), and the per-hand held-out "
        f"gain of the best opening over `{s['baseline']}`'s",
        f"{s['hands']:,} hands x {s['playouts']} playouts per player count"
        + (f" ({s['strong_hands']:,} hands x {s['strong_playouts']} playouts for "
           + ", ".join(s.get("strong_continuations", [])) + ")"
           if s.get("strong_continuations") and s.get("strong_hands") else "")
        + f", seed {s['seed']}",
        "Bars: 95% t intervals of the paired contrast tile - hand mean, over hands",
        "Best tile (rank interval [1, 1]) under the main continuation: " + ", ".join(tops)))
    values = frames["cf_values"]
    shifted = []
    for (players, value), sel in values.groupby(["players", "value"], sort=True):
        zero = sel[sel.state == "0-0"].set_index("tile")
        for state, rows in sel.groupby("state", sort=False):
            if state == "0-0":
                continue
            rows = rows.set_index("tile")
            # a tile moved where its rank intervals at the two states do not overlap
            apart = ((rows["rank_low"] > zero["rank_high"].reindex(rows.index))
                     | (rows["rank_high"] < zero["rank_low"].reindex(rows.index)))
            shifted.append(int(apart.sum()))
    out.append(figure_caption(
        "state_values",
        "Each tile's value relative to its hand's mean opening by score state: round "
        "differential (displayed points) and match-win probability (0-1; no panel at 3 players, "
        "which have no win table), per player count",
        f"{s['hands']:,} hands x {s['playouts']} playouts per state and player count, seed "
        f"{s['seed']}",
        "Bars: 95% t intervals over hands (match-win values: the table's point estimates)",
        f"{sum(shifted)} (tile, state) ranks move away from their 0-0 rank with non-overlapping "
        "rank intervals, over all player counts, values and states"))
    gain = frames["cf_gain"]
    gaps = gain.assign(gap=gain["insample_mean"] - gain["heldout_mean"])
    ends = gaps.sort_values("playouts").groupby(["players", "state", "value"], sort=False)["gap"]
    fewest, most = ends.first(), ends.last()
    narrower = int((most.abs() < fewest.abs()).sum())
    out.append(figure_caption(
        "gain_playouts",
        f"The gain of the best opening per hand over `{s['baseline']}`'s against the playouts "
        "used: in-sample (solid, biased high) and held out (dashed, biased low), per state",
        f"{s['hands']:,} hands, subsets of {s['playouts']} playouts, seed {s['seed']}",
        "Bars: 95% t intervals over hands",
        f"The gap between the two ends is narrower at all {s['playouts']} playouts than at the "
        f"fewest in {narrower} of {len(most)} (players, state, value) blocks"))
    return out


def _spread_sentence(selfplay: pd.DataFrame, settings: dict) -> str:
    """How many self-play (strategy, players) blocks have first openings whose differential
    intervals do not overlap (the highest tile's low end above the lowest tile's high end)."""
    apart, total = 0, 0
    for _, sel in selfplay.groupby(["strategy", "players"]):
        sel = sel[sel["first_n"] >= min_opened(settings)]
        if len(sel) < 2:
            continue
        total += 1
        top = sel.loc[sel["first_diff_mean"].idxmax()]
        bottom = sel.loc[sel["first_diff_mean"].idxmin()]
        apart += bool(top.first_diff_low > bottom.first_diff_high)
    return (f"in {apart} of {total} (strategy, players) blocks the highest and lowest tiles' "
            "intervals do not overlap")


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------
def _cf_footer(settings: dict) -> str:
    s = settings
    strong = s.get("strong_continuations", [])
    extra = (f"; {', '.join(strong)} at 0-0: {s['strong_hands']:,} hands x "
             f"{s['strong_playouts']} playouts" if strong and s.get("strong_hands") else "")
    return figures.run_footer(
        s, sample=f"{s['hands']:,} hands x 5 forced openings x {s['playouts']} "
                  f"playouts per player count and state, `{s['playout_strategy']}` "
                  f"playouts, baseline `{s['baseline']}`{extra}")


def _save(fig, path, footer: str) -> None:
    figures.stamp(fig, footer)
    figures.save_png(fig, path, DPI)


def _errorbars(centre, low, high) -> np.ndarray:
    err = np.vstack([centre - np.asarray(low, dtype=float), np.asarray(high, dtype=float) - centre])
    # a Wilson bound at a rate of 0 or 1 can miss the rate by rounding (1e-17): never negative
    return np.where(np.isfinite(err), np.maximum(err, 0.0), 0)


def min_opened(settings: dict) -> int:
    """Fewest first openings with a tile for it to be plotted: 30 at 3,000 matches per
    configuration or more, ``matches // 100`` (at least 2) below, so that a small run's figure
    has points (``greedy`` almost never opens with some tiles)."""
    return int(min(30, max(2, int(settings.get("matches", 3000)) // 100)))


def plot_opening_tiles(tiles: pd.DataFrame, path, settings: dict,
                       min_n: int | None = None) -> None:
    """Per tile as the match's first opening (observed): the leader's round differential
    (displayed points) and match win rate, 95% intervals.

    Tiles a strategy opened fewer than ``min_n`` times (default :func:`min_opened`) are left
    out (``greedy`` almost never opens with some tiles); a strategy with no tile left is not
    drawn.
    """
    min_n = min_opened(settings) if min_n is None else min_n
    players = sorted(tiles["players"].unique())
    strategies = list(dict.fromkeys(tiles["strategy"]))
    fig, axes = figures.new_figure(2, len(players), figsize=(6.5 * len(players), 7), squeeze=False)
    x = np.arange(N_TILES)
    width = 0.8 / max(1, len(strategies))
    for j, count in enumerate(players):
        for k, name in enumerate(strategies):
            sel = tiles[(tiles.players == count) & (tiles.strategy == name)].set_index("tile")
            sel = sel.reindex(TILE_NAMES)
            offset = (k - (len(strategies) - 1) / 2) * width
            shown = sel["first_n"].fillna(0).to_numpy() >= min_n
            if not shown.any():
                continue
            for i, prefix in enumerate(("first_diff", "first_win")):
                col = "first_diff_mean" if prefix == "first_diff" else "first_win_rate"
                centre = sel[col].to_numpy(dtype=float)
                err = _errorbars(centre, sel[f"{prefix}_low"], sel[f"{prefix}_high"])
                axes[i, j].errorbar((x + offset)[shown], centre[shown], yerr=err[:, shown],
                                    fmt="o", ms=3, capsize=2, lw=0.8, label=name,
                                    color=figures.strategy_colour(name))
        axes[0, j].axhline(0, color="grey", lw=0.8, ls=":")
        fair = 1 / (2 if count == 4 else count)
        axes[1, j].axhline(fair, color="grey", lw=0.8, ls=":", label="fair share")
        axes[0, j].set_title(f"{count} players: first opening of the match (observed)")
        axes[0, j].set_ylabel("leader's round differential\n(displayed points, 95% t)")
        axes[1, j].set_ylabel("leader's side's match win rate\n(share of matches, 95% Wilson)")
        for i in range(2):
            axes[i, j].set_xticks(x, TILE_NAMES, rotation=90, fontsize=7)
            axes[i, j].grid(alpha=0.3)
        axes[1, j].set_xlabel(f"opening tile (tiles opened fewer than {min_n} times left out)")
    axes[0, -1].legend(title="self-play", fontsize=8)
    axes[1, -1].legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path,
          figures.run_footer(settings) + "; 1 displayed = 5 raw points; intervals over deals")


def plot_counterfactual(cf_tiles: pd.DataFrame, cf_hands: pd.DataFrame, path,
                        settings: dict, cf_strong: pd.DataFrame | None = None) -> None:
    """Forced openings at 0-0: each tile's value relative to its hand (displayed points, 95%)
    under the main continuation and every strong one (``cf_strong`` rows of the round
    differential; one :func:`experiments.reporting.figures.strategy_colour` per continuation), and the
    per-hand held-out gain of the best opening over the baseline's (main continuation)."""
    players = sorted(cf_tiles["players"].unique())
    fig, axes = figures.new_figure(2, len(players), figsize=(6.5 * len(players), 7.5),
                                   squeeze=False)
    x = np.arange(N_TILES)
    series = [(str(cf_tiles["playout_strategy"].iloc[0]), cf_tiles)]
    if cf_strong is not None and len(cf_strong):
        strong = cf_strong[cf_strong["value"] == "diff"]
        series += [(name, rows) for name, rows in strong.groupby("continuation", sort=False)]
    width = 0.8 / len(series)
    for j, count in enumerate(players):
        for k, (name, rows) in enumerate(series):
            sel = rows[rows.players == count].set_index("tile").reindex(TILE_NAMES)
            centre = sel["relative_mean"].to_numpy(dtype=float)
            err = _errorbars(centre, sel["relative_low"], sel["relative_high"])
            shown = np.isfinite(centre)
            offset = (k - (len(series) - 1) / 2) * width
            axes[0, j].errorbar((x + offset)[shown], centre[shown], yerr=err[:, shown],
                                fmt="o", ms=3, capsize=1.5, lw=0.8,
                                color=figures.strategy_colour(name),
                                label=f"{name} ({int(sel['hands'].fillna(0).sum()) // 5:,} hands)")
        axes[0, j].axhline(0, color="black", lw=0.8)
        axes[0, j].set_xticks(x, TILE_NAMES, rotation=90, fontsize=7)
        axes[0, j].set_ylabel("opening value minus the hand's mean opening\n"
                              "(displayed points, 95% t over hands)")
        axes[0, j].set_title(f"{count} players: forced openings at 0-0")
        axes[0, j].grid(alpha=0.3, axis="y")
        axes[0, j].legend(title="continuation", fontsize=7, title_fontsize=7)
        hands = cf_hands[cf_hands.players == count]
        gain = hands["gain_heldout"].to_numpy(dtype=float)
        gain = gain[np.isfinite(gain)]
        if gain.size:
            bins = np.linspace(min(-2.0, gain.min()), max(4.0, gain.max()), 41)
            # the main continuation's hands: its strategy's colour; the mean is not a strategy
            axes[1, j].hist(gain, bins=bins, color=figures.strategy_colour(series[0][0]),
                            alpha=0.7, label="hands")
            mean, low, high = mean_interval(gain)
            axes[1, j].axvline(mean, color="black", lw=1.2, ls="--",
                               label=f"mean {fmt_ci(mean, low, high, 2)} (95% t)")
            axes[1, j].legend(fontsize=8)
        axes[1, j].axvline(0, color="black", lw=0.8)
        axes[1, j].set_xlabel(f"best opening minus {settings['baseline']}'s, per hand\n"
                              f"(held-out playouts, {series[0][0]} continuation, displayed "
                              "points)")
        axes[1, j].set_ylabel("hands")
        axes[1, j].grid(alpha=0.3)
    fig.tight_layout()
    _save(fig, path, _cf_footer(settings) + "; 1 displayed = 5 raw points")


def value_panels(frame: pd.DataFrame, panel_width: float):
    """The grid of the state figures: one row per value kind present (:data:`VALUE_LABELS`
    order), one column per player count. Returns ``(figure, axes, panels)``, ``panels`` the
    ``(ax, value, players, rows)`` of every cell with data; a cell without (no win-probability
    table at 3 players) is removed (the caption says why)."""
    players = sorted(frame["players"].unique())
    kinds = [v for v in VALUE_LABELS if v in set(frame["value"])]
    fig, axes = figures.new_figure(len(kinds), len(players),
                                   figsize=(panel_width * len(players), 3.8 * len(kinds)),
                                   squeeze=False)
    panels = []
    for i, value in enumerate(kinds):
        for j, count in enumerate(players):
            ax = axes[i, j]
            sel = frame[(frame.players == count) & (frame.value == value)]
            if sel.empty:
                ax.remove()  # no win-probability table at this player count: no empty panel
            else:
                panels.append((ax, value, count, sel))
    return fig, axes, panels


def plot_state_values(cf_values: pd.DataFrame, path, settings: dict) -> None:
    """Each tile's forced-opening value relative to its hand, by score state: one row per value
    (round differential, match-win probability), one column per player count, 95% intervals."""
    states = list(dict.fromkeys(cf_values["state"]))
    fig, axes, panels = value_panels(cf_values, 6.5)
    x = np.arange(N_TILES)
    colors = figures.color_cycle()
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
    colors = figures.color_cycle()
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
