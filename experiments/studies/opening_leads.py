"""Openings: which of the 28 tiles is worth leading with.

Two views.

Observed (per strategy in self-play and player count), ``tiles``: for each
tile as the match's first opening and as any round's opening, the leader's
mean round point differential (the leader's side's accepted points in that
round minus the opponents' mean, displayed points) and the leader's match win
rate, with 95% intervals over deals (t for the differential, Wilson at the
deal-clustered effective size for the rate). The unit is one round of one
deal: in a mixed table a strategy that leads the same deal's round in several
rotations counts once (its rows averaged).

The lead's value (``lead_effects``): within each strategy, S leading minus S
following on the same deals (S's own first-round differential and its match
win), in self-play and in every mixed table (:func:`lead_effects`); the strength
gap between a table's strategies is reported apart (``strength_contrasts``, A - B
over both leads). A difference of two strategies' *leading* rounds is not the
lead's value: it is twice their strength gap.
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
effect size), its rank with a simultaneous 95% interval
(:func:`experiments.comparisons.simultaneous_ranks`; a tile is called the best or the
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
move with the number of playouts. Every match-win figure is computed again under
``table_replicates`` of the win table's shipped replicate tables
(:func:`sim.study_kernels.openings.table_spread`): the table's error, common to
every hand, joins each interval (the variances add) and the rank intervals, so
a best opening by match-win probability survives the table's error or is not
claimed.

Comparisons (:func:`plan_for`, declared before the run, ``plan.json``): primary,
each self-played strategy's lead effect on the match and the held-out gain of
the best opening over the baseline's at 0-0; exploratory, the rest (``comparisons``
frame, every sentence worded by its adjusted interval).

Run ``five-up openings --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.comparisons import (EXPLORATORY, PRIMARY, VERDICTS, Comparison, ComparisonPlan,
                                     Quantity, adjusted_words, comparison_id, plan_sentence,
                                     simultaneous_ranks)
from experiments.mixed_tables import (SELF_PLAY, entity_names, per_deal_means, strategies_in,
                                      tables_of)
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
    clustered_proportion,
    clustered_ratio,
    mean_interval,
    paired_contrast,
    proportion,
    t_quantile,
    widened_interval,
)
from core.checks import check_int
from sim.engine.spec import check_threads
from sim.progress import progress_bar
from sim.study_kernels.openings import (TABLE_ROW, opening_counterfactual, table_half_width,
                                        table_spread)
from core.tiles import N_TILES, RAW_PER_DISPLAYED, TARGET_RAW, TILES, entity_count, tile_name
from strategies.catalogue import (
    check_distinct_names,
    resolve,
    resolve_field,
    spec_of,
    strategy_entries,
)
from strategies import winprob_table
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
(:func:`experiments.comparisons.simultaneous_ranks`)."""

DEFAULT_TABLE_REPLICATES = 200
"""The win table's replicate tables every match-win figure is recomputed under (all shipped)."""

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
        strategy counted once per round and deal), ``lead_effects`` (each strategy leading
        minus following, self-play and every mixed table), ``strength_contrasts`` (mixed
        tables: A - B over both leads), ``comparisons`` (the declared comparisons, adjusted:
        :func:`plan_for`) and, with ``hands > 0``, ``cf_tiles``, ``cf_hands``,
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
               table_replicates: int = DEFAULT_TABLE_REPLICATES, **scale) -> StudySpec:
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
    table_replicates : int
        How many of the shipped win table's replicate tables the match-win values are
        recomputed under (their spread is the table's error in every match-win figure; at
        most the number shipped; 0: none, the intervals then leave the table's error out).
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
                            strong_hands=strong_hands, strong_playouts=strong_playouts,
                            table_replicates=table_replicates)
    return StudySpec(settings, tuple(resolved), study_scale(**scale), plan_for(settings))


def compute(data) -> ExperimentResult:
    """The study's result from a run's data (:class:`experiments.sources.DataRun`): what
    :func:`run` and the command line compute."""
    settings = data.settings
    # the observed tables are built one configuration at a time (memory)
    tiles, leads, strength = [], [], []
    for (strategy, count), frame in data.rounds():
        tiles.append(observed_tiles(frame, strategy, count))
        leads.append(self_play_lead_effects(frame, strategy, count))
    for (label, count), table in data.table_rounds():
        tiles += _observed_table(table, label, count)
        effects, gaps = table_lead_frames(table, label, count)
        leads.append(effects)
        strength.append(gaps)
    cf = data.counterfactuals() if settings["hands"] > 0 else {}
    tables = win_table_replicates(settings)
    states = (state_tables(settings, threads=data.threads, progress=data.progress, tables=tables)
              if settings["hands"] > 0 else [])
    strong = (continuation_results(settings, threads=data.threads, progress=data.progress)
              if settings["hands"] > 0 else {})
    return analyse(tiles, cf, settings, states, leads=leads, strength=strength, strong=strong,
                   tables=tables)


def settings_for(players, strategies, matches, seed, hands, playouts, playout_strategy,
                 baseline, score_states=DEFAULT_SCORE_STATES, tables=None,
                 table_matches=None, *, sealed: bool = False, secret: str | None = None,
                 decision_timeout=None, strong_continuations=STRONG_CONTINUATIONS,
                 strong_hands=None, strong_playouts=None,
                 table_replicates=DEFAULT_TABLE_REPLICATES) -> dict:
    """Checked settings (raises ValueError, one line).

    Every strategy argument may be a spec (built-in name, ``MODULE:NAME``,
    ``FILE.py:NAME``, ``name[k=v]``) or a :class:`strategies.Strategy`; the
    settings hold names (the tables' labels), specs (what the shard jobs
    resolve) and code digests. ``sealed``, ``secret``, ``decision_timeout``: the
    run's sealing (:func:`experiments.settings.study_settings`);
    ``strong_continuations``, ``strong_hands``, ``strong_playouts``, ``table_replicates``: as
    :func:`study_spec`. With match-win values (hands, and 2 or 4 players) the shipped win
    table's digest is recorded (``win_table``): the values depend on it.
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
    requested = check_int(table_replicates, "table_replicates", 0)
    settings["table_replicates"] = 0
    if settings["hands"] > 0 and any(p in TABLE_ROW for p in settings["players"]):
        settings["win_table"] = winprob_table.file_digest()
        shipped = winprob_table.shipped().replicate_codes.shape[0]
        settings["table_replicates"] = min(requested, shipped) if min(requested, shipped) >= 2 else 0
    return settings


def parse_continuations(text: str):
    """The strong continuations of a command line: ``"none"`` (or empty) -> ``()``, else the
    comma-separated specs as given."""
    return () if text.strip().lower() in ("", "none") else text


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


def state_tables(settings: dict, threads=None, progress: bool = False, tables=None) -> list[dict]:
    """:func:`value_tables` for every (state other than 0-0, player count) of ``settings``.

    Each state's counterfactual is run in this process (local threads, not
    sharded) with the settings' hands, playouts, seed and secret, one at a time and
    reduced at once (a state's playouts are not kept); ``tables``: the win table's replicates
    (:func:`win_table_replicates`).
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
                out.append(value_tables(result, state, s["seed"],
                                        spread=spread_of(result, tables)))
    return out


def win_table_replicates(settings: dict):
    """The first ``table_replicates`` of the shipped win table's replicate tables (float32[R,
    2, 62, 62, 3]), or None without match-win values or replicates."""
    count = int(settings.get("table_replicates", 0))
    if settings.get("hands", 0) <= 0 or count < 2 or "win_table" not in settings:
        return None
    tables = winprob_table.replicate_tables()
    return tables[:count] if tables.shape[0] >= 2 else None


def spread_of(result, tables):
    """:func:`sim.study_kernels.openings.table_spread` of a counterfactual ``result`` under the
    replicate ``tables`` at :func:`gain_playouts`, or None (no tables, no table at its player
    count, or no cells kept)."""
    if tables is None or result.players not in TABLE_ROW or result.cells is None:
        return None
    return table_spread(result, tables, gain_playouts(result.playouts))


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


def feature_gains(result, continuation: str, spread=None) -> pd.DataFrame:
    """The gain of the best opening over the baseline's (both ends, :func:`gain_row`) by hand
    feature bucket (:func:`hand_features`), per value kind, for one counterfactual result
    (``spread``: its :func:`spread_of`, the table's error of the match-win gains). Columns
    ``continuation``, ``players``, ``value``, ``feature``, ``bucket`` and :func:`gain_row`'s."""
    features = hand_features(result.tiles)
    rows = []
    for value in value_kinds(result.players):
        hands = result.per_hand(value).reset_index(drop=True)
        shared = spread if value == "win_prob" else None
        for feature in FEATURES:
            buckets = pd.Categorical(features[feature], categories=BUCKETS[feature])
            for bucket, sel in hands.groupby(buckets, sort=True, observed=True):
                rows.append({"continuation": continuation, "players": result.players,
                             "value": value, "feature": feature, "bucket": bucket,
                             **gain_row(sel, table_sds(shared, -1, sel.index.to_numpy()))})
    return pd.DataFrame(rows)


def continuation_rows(result, continuation: str, spread=None) -> pd.DataFrame:
    """The gain at all playouts per value kind (:func:`gain_row`) of one continuation
    (``spread``: its :func:`spread_of`)."""
    return pd.DataFrame([{"continuation": continuation, "players": result.players,
                          "value": value, "playouts": result.playouts,
                          **gain_row(result.per_hand(value),
                                     table_sds(spread if value == "win_prob" else None, -1))}
                         for value in value_kinds(result.players)])


def value_tables(result, state, seed: int = 0, resamples: int = RANK_RESAMPLES,
                 spread=None) -> dict:
    """The state's reduced tables of one counterfactual result: ``values`` (per tile,
    :func:`tile_values`, simultaneous rank intervals from ``resamples`` bootstrap resamples of
    the hands seeded by ``seed``) and ``gain`` (per playout count), for each of
    :func:`value_kinds`; ``spread`` (:func:`spread_of`) carries the win table's error into
    every match-win figure."""
    label = state_label(state)
    values, gains = [], []
    counts = gain_playouts(result.playouts)
    for value in value_kinds(result.players):
        shared = spread if value == "win_prob" else None
        per_tile = result.per_tile(value)
        table = tile_values(per_tile, seed, resamples,
                            None if shared is None else shared.slot_means)
        if value == "win_prob":  # a probability's mean: its t interval clipped to [0, 1]
            table["low"] = table["low"].clip(lower=0.0)
            table["high"] = table["high"].clip(upper=1.0)
        table.insert(0, "value", value)
        table.insert(0, "state", label)
        table.insert(0, "players", result.players)
        values.append(table)
        by_playouts = result.gain_by_playouts(counts, value)
        rows = []
        for i, (m, sel) in enumerate(by_playouts.groupby("playouts", sort=True)):
            rows.append({"players": result.players, "state": label, "value": value,
                         "playouts": int(m), **gain_row(sel, table_sds(shared, i)),
                         "hand_value_mean": float(per_tile["mean_diff"].mean())})
        gains.append(pd.DataFrame(rows))
    return {"values": pd.concat(values, ignore_index=True),
            "gain": pd.concat(gains, ignore_index=True)}


def table_sds(spread, count_index: int, hands=None) -> dict | None:
    """The win table's error of a gain: the standard deviations over the replicate tables of
    the mean in-sample gain, the mean held-out gain and the baseline's share, at the playout
    count ``count_index`` of ``spread`` (-1: all playouts), over ``hands`` (positions; default
    every hand); None without a spread."""
    if spread is None or len(spread.gain) < 2:
        return None
    pick = slice(None) if hands is None else np.asarray(hands)
    return {name: float(np.std(array[:, count_index, pick].mean(axis=1), ddof=1))
            for name, array in (("insample", spread.gain), ("heldout", spread.heldout),
                                ("baseline_is_best", spread.baseline_is_best))}


def gain_row(hands: pd.DataFrame, shared: dict | None = None) -> dict:
    """The gain of the best opening over the baseline's from per-hand rows (``gain``,
    ``gain_heldout``, ``baseline_is_best``): ``hands``, both ends with their t intervals over
    hands, and the share of hands where the baseline's opening is the best (Wilson). With
    ``shared`` (:func:`table_sds`) each interval is widened by the win table's error
    (:func:`experiments.stats.widened_interval`); ``*_table_se`` hold it, and
    ``heldout_hands_low``, ``heldout_hands_high`` the held-out interval over hands alone."""
    inside = mean_interval(hands["gain"])
    held = mean_interval(hands["gain_heldout"])
    same = proportion(int(hands["baseline_is_best"].sum()), len(hands))
    same = (float(same["rate"]), float(same["low"]), float(same["high"]))
    shared = shared or {}
    widen = {name: (value[0], *widened_interval(*value, shared.get(name, 0.0)))
             for name, value in (("insample", inside), ("heldout", held),
                                 ("baseline_is_best", same))}
    return {"hands": len(hands), "heldout_mean": held[0], "heldout_low": widen["heldout"][1],
            "heldout_high": widen["heldout"][2], "heldout_hands_low": held[1],
            "heldout_hands_high": held[2], "heldout_table_se": shared.get("heldout", 0.0),
            "insample_mean": inside[0], "insample_low": widen["insample"][1],
            "insample_high": widen["insample"][2],
            "insample_table_se": shared.get("insample", 0.0),
            "baseline_is_best": same[0],
            "baseline_is_best_low": max(0.0, widen["baseline_is_best"][1]),
            "baseline_is_best_high": min(1.0, widen["baseline_is_best"][2])}


def tile_values(per_tile: pd.DataFrame, seed: int = 0, resamples: int = RANK_RESAMPLES,
                table_slot_means=None) -> pd.DataFrame:
    """Per tile from :meth:`OpeningCounterfactual.per_tile` rows: its mean value, its value
    relative to its hand's mean opening as a paired contrast over the hands holding it, and its
    rank with a simultaneous interval (:func:`experiments.comparisons.simultaneous_ranks`).

    Parameters
    ----------
    per_tile : DataFrame
        One row per (hand, slot) in hand-then-slot order: ``hand``, ``tile`` (categorical of
        the 28 names), ``mean_diff`` (the tile's mean value over the playouts), ``is_best``,
        ``is_baseline``.
    seed, resamples : int
        The rank intervals' bootstrap (the hands resampled).
    table_slot_means : ndarray float[R, H, 5], optional
        The same means under each replicate of the win table
        (:class:`sim.study_kernels.openings.TableSpread`): the table's error joins every
        relative value's interval and the rank intervals.

    Returns
    -------
    DataFrame, one row per tile (28, :data:`TILE_NAMES` order)
        ``tile``, ``hands`` (int64, hands holding it), ``mean``, ``low``, ``high`` (t interval
        over hands); ``relative_mean``, ``relative_low``, ``relative_high`` (the paired contrast
        tile - the hand's mean opening, by hand, :func:`experiments.stats.paired_contrast`,
        widened by the table's error), ``relative_hands_low``, ``relative_hands_high`` (over the
        hands alone), ``relative_table_se``, ``relative_effect``; ``best_share``, ``best_low``,
        ``best_high`` (how often it is its hand's best, Wilson), ``baseline_share``; ``rank`` (1
        = highest relative value among the tiles held), ``rank_low``, ``rank_high`` (95%
        simultaneous over all tiles held: every pair compared on the hands holding both, the
        hands resampled and the table's replicates taken in turn). Tiles no hand held:
        ``hands`` 0 and nan elsewhere.
    """
    frame = per_tile.copy()
    hand_mean = frame.groupby("hand")["mean_diff"].transform("mean")
    frame["relative"] = frame["mean_diff"] - hand_mean
    frame["hand_mean"] = hand_mean
    codes = frame["tile"].cat.codes.to_numpy()
    hand_index = pd.factorize(frame["hand"])[0]
    n_hands = int(hand_index.max()) + 1 if len(frame) else 0
    replicas = None
    if table_slot_means is not None and len(table_slot_means) >= 2:
        means = np.asarray(table_slot_means, dtype=np.float64).reshape(len(table_slot_means), -1)
        relative = means - means.reshape(len(means), n_hands, -1).mean(axis=2).repeat(
            means.shape[1] // n_hands, axis=1)
        replicas = np.full((len(means), n_hands, N_TILES), np.nan)
        replicas[:, hand_index, codes] = relative
    rows = []
    for name, sel in frame.groupby("tile", observed=False, sort=False):
        if len(sel) == 0:
            continue
        value = mean_interval(sel["mean_diff"])
        rel = paired_contrast(sel["mean_diff"], sel["hand_mean"])
        code = TILE_NAMES.index(str(name))
        table_se = (float(np.std(np.nanmean(replicas[:, :, code], axis=1), ddof=1))
                    if replicas is not None else 0.0)
        low, high = widened_interval(rel.difference, rel.low, rel.high, table_se)
        rows.append({"tile": str(name), "hands": len(sel), "mean": value[0], "low": value[1],
                     "high": value[2], "relative_mean": rel.difference,
                     "relative_low": low, "relative_high": high,
                     "relative_hands_low": rel.low, "relative_hands_high": rel.high,
                     "relative_table_se": table_se, "relative_effect": rel.effect,
                     "best": int(sel["is_best"].sum()), "baseline": int(sel["is_baseline"].sum())})
    table = pd.DataFrame({"tile": TILE_NAMES}).merge(pd.DataFrame(rows), on="tile", how="left")
    held = table["hands"].fillna(0).to_numpy()
    p = proportion(table["best"].fillna(0).to_numpy(), held)
    table["best_share"], table["best_low"], table["best_high"] = p["rate"], p["low"], p["high"]
    table["baseline_share"] = proportion(table["baseline"].fillna(0).to_numpy(), held)["rate"]
    table = table.drop(columns=["best", "baseline"]).fillna({"hands": 0}).astype(
        {"hands": "int64"})
    for column in ("rank", "rank_low", "rank_high"):
        table[column] = np.nan
    present = table.index[table["hands"] > 0].to_numpy()
    if len(present) >= 2:
        # units = hands: one row per hand, its five tiles' relative values, nan elsewhere
        wide = np.full((n_hands, N_TILES), np.nan)
        wide[hand_index, codes] = frame["relative"].to_numpy()
        ranks = simultaneous_ranks(wide[:, present], resamples, seed,
                                   table_values=None if replicas is None
                                   else replicas[:, :, present])
        table.loc[present, "rank"] = ranks["rank"].to_numpy()
        table.loc[present, "rank_low"] = ranks["rank_low"].to_numpy()
        table.loc[present, "rank_high"] = ranks["rank_high"].to_numpy()
    return table


def rank_text(row) -> str:
    """``"rank 3 [1, 6]"``: a tile's rank with its simultaneous interval."""
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
    simultaneous rank interval is ``[1, 1]`` (``[k, k]``), otherwise the tiles whose rank
    interval reaches 1 (``k``) with their intervals; then the tiles' comparisons with their
    hand's mean opening by their adjusted verdicts (``verdict`` of :func:`with_verdicts`)."""
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
    verdicts = held["verdict"] if "verdict" in held else pd.Series("", index=held.index)
    found = verdicts == VERDICTS.finding
    above = int((found & (held["relative_mean"] > 0)).sum())
    below = int((found & (held["relative_mean"] < 0)).sum())
    same = int((verdicts == VERDICTS.equivalent).sum())
    return (f"{top}; {bottom}; against their hand's mean opening (adjusted, "
            f"Benjamini-Hochberg): {above} of {k} tiles higher, {below} lower, {same} "
            "equivalent within the smallest effect, the rest no detectable difference")


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


def analyse(rounds, cf: dict, settings: dict, states=(), leads=(), strength=(), strong=None,
            tables=None) -> ExperimentResult:
    """Frames, plots and summary from the round frames and counterfactual results.

    ``rounds``: a dict ``(strategy, players) -> rounds frame``
    (:func:`experiments.sources.collect_rounds`), an iterable of such pairs, or a
    list of already built observed tables. ``cf``: ``players ->
    OpeningCounterfactual`` at 0-0; ``states``: :func:`value_tables` of the
    other score states (:func:`state_tables`); ``leads``: :func:`lead_effects` frames
    (self-play and the mixed tables); ``strength``: :func:`strength_contrasts` frames of the
    mixed tables; ``strong``: :func:`continuation_results`; ``tables``: the win table's
    replicates (:func:`win_table_replicates`), whose spread joins every match-win interval.
    """
    if isinstance(rounds, list) and all(isinstance(t, pd.DataFrame) for t in rounds):
        observed = rounds
    else:
        observed = [observed_tiles(r, s, p) for (s, p), r in pairs(rounds)]
    frames = {"tiles": pd.concat(observed, ignore_index=True)}
    for name, parts in (("lead_effects", leads), ("strength_contrasts", strength)):
        parts = [part for part in parts if len(part)]
        if parts:
            frames[name] = pd.concat(parts, ignore_index=True)
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
        main = settings.get("playout_strategy", "greedy")
        runs = [(main, result) for result in cf.values()]
        runs += [(name, result) for (name, _count), result in (strong or {}).items()]
        spreads = {id(result): spread_of(result, tables) for _name, result in runs}
        reduced = [value_tables(result, (0, 0), seed, spread=spreads[id(result)])
                   for result in cf.values()] + list(states)
        order = {state_label(st): k for k, st in enumerate(settings.get("score_states", [[0, 0]]))}
        for name in ("values", "gain"):
            table = pd.concat([r[name] for r in reduced], ignore_index=True)
            table["_order"] = table["state"].map(order)
            frames[f"cf_{name}"] = (table.sort_values(["_order", "players"], kind="stable")
                                    .drop(columns="_order").reset_index(drop=True))
        frames["cf_continuations"] = pd.concat(
            [continuation_rows(result, name, spreads[id(result)]) for name, result in runs],
            ignore_index=True)
        frames["cf_features"] = pd.concat(
            [feature_gains(result, name, spreads[id(result)]) for name, result in runs],
            ignore_index=True)
        if strong:
            parts = []
            for (name, _count), result in strong.items():
                table = value_tables(result, (0, 0), seed, spread=spreads[id(result)])["values"]
                table.insert(0, "continuation", name)
                parts.append(table)
            frames["cf_strong"] = pd.concat(parts, ignore_index=True)
    frames["comparisons"] = comparisons_frame(frames, settings)
    for name in ("cf_values", "cf_strong"):
        if name in frames:
            frames[name] = with_verdicts(frames[name], frames["comparisons"], settings)
    selfplay = frames["tiles"][frames["tiles"]["table"] == SELF_PLAY]
    plots = {"opening_tiles": lambda p: plot_opening_tiles(selfplay, p, settings)}
    if cf:
        plots["counterfactual"] = lambda p: plot_counterfactual(
            frames["cf_tiles"], frames["cf_hands"], p, settings, frames.get("cf_strong"))
        plots["state_values"] = lambda p: plot_state_values(frames["cf_values"], p, settings)
        plots["gain_playouts"] = lambda p: plot_gain_playouts(frames["cf_gain"], p, settings)
    key = _key_numbers(frames, settings)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


# ---------------------------------------------------------------------------
# The declared comparisons
# ---------------------------------------------------------------------------
QUANTITIES = (
    Quantity("lead_won", "match win share", 0.02,
             pct=True, why="2 points of match win: a seat's whole edge in these studies is a "
                           "few points; less is not worth a player's notice"),
    Quantity("lead_diff", "own first-round differential (displayed points)", 0.5, why="half a displayed point (2.5 raw) in one round: under 1% of "
                                 "the 61 a match needs"),
    Quantity("strength_won", "match win share, both leads", 0.02,
             pct=True, why="as the lead's: 2 points of match win"),
    Quantity("strength_diff", "own first-round differential, both leads (displayed points)",
             0.5, why="as the lead's: half a displayed point a round"),
    Quantity("gain_diff", "round differential, held out (displayed points)", 0.25, why="a quarter point a round over the ~4 rounds a side leads in a match is "
                       "one point, under 2% of 61"),
    Quantity("gain_win", "match-win probability, held out", 0.005, pct=True, why="half a point of match win: a fifth of the win table's own "
                                  "target half-width, below any decision it can resolve"),
    Quantity("tile_diff", "round differential (displayed points)", 0.25,
             why="as the gain's: a quarter displayed point a round"),
    Quantity("tile_win", "match-win probability", 0.005, pct=True, why="as the gain's: half a point of match win"),
)
"""What the study compares, with its smallest effects of interest."""


def lead_id(players: int, table: str, strategy: str, quantity: str) -> str:
    """The id of a lead comparison (no seed: the same across replications)."""
    return comparison_id(f"{players}p", table, strategy, "leading - following", quantity)


def strength_id(players: int, table: str, a: str, b: str, quantity: str) -> str:
    """The id of a strength comparison."""
    return comparison_id(f"{players}p", table, f"{a} - {b}", quantity)


def gain_id(players: int, state: str, continuation: str, value: str) -> str:
    """The id of a gain comparison (held out)."""
    return comparison_id(f"{players}p", state, continuation, "best opening - baseline's", value)


def tile_id(players: int, state: str, continuation: str, value: str, tile: str) -> str:
    """The id of a tile comparison (the tile - its hand's mean opening)."""
    return comparison_id(f"{players}p", state, continuation, f"{tile} - hand mean", value)


def plan_for(settings: dict) -> ComparisonPlan:
    """The run's comparisons, from its settings alone.

    Primary (Holm): per player count, each self-played strategy's lead effect on the match
    (S leading - S following, match win share, the same deals), and the held-out gain of the
    best opening over the baseline's at 0-0 per value kind. Exploratory (Benjamini-Hochberg):
    the lead effects on the first round's differential, the lead effects in every mixed table
    and its strength contrasts (A - B over both leads), the gains at the other score states and
    under the strong continuations, and every tile's value against its hand's mean opening
    (every state, value and continuation). Which tile is best is not a comparison of the
    family: it is read from simultaneous rank intervals, [1, 1] only.
    """
    s = settings
    out = []
    for count in s["players"]:
        for strategy in s["strategies"]:
            out.append(Comparison(lead_id(count, SELF_PLAY, strategy, "won"), PRIMARY, "lead_won"))
            out.append(Comparison(lead_id(count, SELF_PLAY, strategy, "diff"), EXPLORATORY,
                                  "lead_diff"))
        for table in tables_of(s):
            if not table.plays_at(count):
                continue
            names = strategies_in(table.rotations(count))
            # at two sides A's lead effect is B's, stated once (table_lead_frames)
            for strategy in names[:1] if entity_count(count) == 2 else names:
                for quantity in LEAD_QUANTITIES:
                    out.append(Comparison(lead_id(count, table.label, strategy, quantity),
                                          EXPLORATORY, f"lead_{quantity}"))
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    for quantity in LEAD_QUANTITIES:
                        out.append(Comparison(strength_id(count, table.label, a, b, quantity),
                                              EXPLORATORY, f"strength_{quantity}"))
        if s.get("hands", 0) <= 0:
            continue
        runs = [(s["playout_strategy"], [tuple(st) for st in s["score_states"]])]
        if s.get("strong_hands"):
            runs += [(name, [(0, 0)]) for name in s.get("strong_continuations", [])]
        for continuation, states in runs:
            for state in states:
                label = state_label(state)
                for value in value_kinds(count):
                    short = "win" if value == "win_prob" else "diff"
                    main = continuation == s["playout_strategy"] and label == "0-0"
                    out.append(Comparison(gain_id(count, label, continuation, value),
                                          PRIMARY if main else EXPLORATORY, f"gain_{short}"))
                    out += [Comparison(tile_id(count, label, continuation, value, tile),
                                       EXPLORATORY, f"tile_{short}") for tile in TILE_NAMES]
    return ComparisonPlan(NAME, QUANTITIES, tuple(out),
                          note="Primary: each self-played strategy's lead effect on the match, "
                               "and the held-out gain of the best opening over the baseline's "
                               "at 0-0.")


def comparisons_frame(frames: dict, settings: dict) -> pd.DataFrame:
    """The ``comparisons`` frame: every declared comparison computed (:func:`plan_for`),
    adjusted as families, each worded by its adjusted interval."""
    rows = []
    main = settings.get("playout_strategy", "greedy")
    for r in frames.get("lead_effects", pd.DataFrame()).itertuples(index=False):
        rows.append({"id": lead_id(r.players, r.table, r.strategy, r.quantity),
                     "players": r.players, "a": f"{r.strategy} leading",
                     "b": f"{r.strategy} following", "difference": r.difference, "low": r.low,
                     "high": r.high, "units": r.deals})
    for r in frames.get("strength_contrasts", pd.DataFrame()).itertuples(index=False):
        rows.append({"id": strength_id(r.players, r.table, r.a, r.b, r.quantity),
                     "players": r.players, "a": r.a, "b": r.b, "difference": r.difference,
                     "low": r.low, "high": r.high, "units": r.deals})
    if "cf_gain" in frames:
        full = _full_gain(frames["cf_gain"])
        for r in full.itertuples(index=False):
            rows.append(_gain_comparison(r, r.state, main))
        for r in frames["cf_continuations"].itertuples(index=False):
            if r.continuation != main:
                rows.append(_gain_comparison(r, "0-0", r.continuation))
        for name in ("cf_values", "cf_strong"):
            for r in frames.get(name, pd.DataFrame()).itertuples(index=False):
                if r.hands <= 0:
                    continue
                continuation = getattr(r, "continuation", main)
                rows.append({"id": tile_id(r.players, r.state, continuation, r.value, r.tile),
                             "players": r.players, "a": r.tile, "b": "hand mean",
                             "difference": r.relative_mean, "low": r.relative_low,
                             "high": r.relative_high, "units": r.hands})
    plan = plan_for(settings)
    frame = pd.DataFrame(rows, columns=["id", "players", "a", "b", "difference", "low", "high",
                                        "units"])
    adjusted = plan.adjust(frame, units="units")
    adjusted["words"] = [adjusted_words(r, r.a, r.b, plan.quantity(r.quantity).words,
                                        plan.quantity(r.quantity).pct,
                                        digits=4 if r.quantity.endswith("win") else 3)
                         for r in adjusted.itertuples(index=False)]
    return adjusted


def _gain_comparison(row, state: str, continuation: str) -> dict:
    """A comparisons row of a held-out gain (a ``cf_gain`` or ``cf_continuations`` row)."""
    return {"id": gain_id(row.players, state, continuation, row.value), "players": row.players,
            "a": "best opening", "b": "the baseline's", "difference": row.heldout_mean,
            "low": row.heldout_low, "high": row.heldout_high, "units": row.hands}


def with_verdicts(values: pd.DataFrame, comparisons: pd.DataFrame, settings: dict) -> pd.DataFrame:
    """``values`` (``cf_values`` or ``cf_strong`` rows) with each tile comparison's ``id``,
    adjusted interval and verdict (:func:`comparisons_frame`)."""
    main = settings.get("playout_strategy", "greedy")
    out = values.copy()
    continuation = out["continuation"] if "continuation" in out else pd.Series(main, index=out.index)
    out["id"] = [tile_id(p, st, c, v, tile) for p, st, c, v, tile in
                 zip(out["players"], out["state"], continuation, out["value"], out["tile"])]
    keep = comparisons.set_index("id")[["adj_low", "adj_high", "verdict"]]
    return out.join(keep, on="id")


def _observed_table(table, label: str, players: int) -> list[pd.DataFrame]:
    """The observed rows of one mixed table: per strategy, the rounds its entity led, each
    (deal, round) counted once however many rotations it led it in (:func:`observed_tiles`)."""
    rounds = table.data
    leader = entity_names(table.rotations, rounds["rotation"], rounds["leader_entity"])
    return [observed_tiles(rounds[leader == strategy], strategy, players, label)
            for strategy in strategies_in(table.rotations)]


def entity_outcomes(first: pd.DataFrame, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Per first-round row and entity: the entity's own round differential (its raw gain minus
    the other entities' mean, displayed points) and whether it won the match (nan where the
    match stopped unfinished). Two arrays float64[rows, entities]."""
    n = entity_count(players)
    raw = first[[f"raw_{e}" for e in range(n)]].to_numpy(dtype=np.float64)
    diff = (raw - (raw.sum(axis=1, keepdims=True) - raw) / (n - 1)) / RAW_PER_DISPLAYED
    winner = first["match_winner"].to_numpy()
    won = (winner[:, None] == np.arange(n)[None, :]).astype(np.float64)
    won[winner < 0] = np.nan
    return diff, won


def _entity_rows(first: pd.DataFrame, players: int, names: np.ndarray):
    """The long form of a table's first rounds: one row per (row, entity) with its deal, its
    strategy (``names[rows, entities]``), whether it led, and its two outcomes."""
    n = entity_count(players)
    diff, won = entity_outcomes(first, players)
    leads = first["leader_entity"].to_numpy()[:, None] == np.arange(n)[None, :]
    deals = np.repeat(first["match"].to_numpy(), n)
    return deals, np.asarray(names, dtype=object).ravel(), leads.ravel(), {
        "won": won.ravel(), "diff": diff.ravel()}


LEAD_QUANTITIES = {"won": "match win share", "diff": "own first-round differential (displayed points)"}
"""The outcomes of :func:`lead_effects` and :func:`strength_contrasts`, in words."""


def lead_effects(first: pd.DataFrame, players: int, names: np.ndarray,
                 label: str = SELF_PLAY) -> pd.DataFrame:
    """The lead's value within each strategy: S leading minus S following, on the same deals.

    On each deal the first round is led by one entity; S's *leading* value is the leading
    entity's outcome where S plays it, its *following* value the mean outcome of the entities
    S plays that do not lead (every rotation of a mixed table plays the same deal, so S both
    leads and follows each deal; in self-play every entity is S). Outcomes: the entity's own
    first-round differential and its match win. The contrast is paired by deal, so the
    strength of the table's other strategies cancels: it is the lead's worth to S, not the gap
    between two strategies (:func:`strength_contrasts` reports that apart).

    Parameters
    ----------
    first : DataFrame
        First-round rows (``match``, ``leader_entity``, ``raw_*``, ``match_winner``).
    players : int
    names : ndarray of str, shape (rows, entities)
        The strategy each row's entity played.
    label : str
        The table (``"self-play"`` or a mixed table's label).

    Returns
    -------
    DataFrame
        One row per (strategy, quantity): ``table``, ``players``, ``strategy``, ``quantity``
        (``"won"``, ``"diff"``), ``leading``, ``following`` (means over the paired deals),
        ``difference``, ``low``, ``high`` (95% t over deals), ``deals``, ``effect``.
    """
    deals, strategy, leads, outcomes = _entity_rows(first, players, names)
    rows = []
    for quantity in LEAD_QUANTITIES:
        values = outcomes[quantity]
        leading = per_deal_means(values[leads], deals[leads], strategy[leads])
        following = per_deal_means(values[~leads], deals[~leads], strategy[~leads])
        for name in dict.fromkeys(strategy):
            if name not in leading or name not in following:
                continue
            a, b = leading[name].align(following[name], join="inner")
            a, b = a.to_numpy(), b.to_numpy()
            keep = np.isfinite(a) & np.isfinite(b)
            c = paired_contrast(a, b)
            rows.append({"table": label, "players": players, "strategy": name,
                         "quantity": quantity, "leading": float(a[keep].mean()),
                         "following": float(b[keep].mean()), "difference": c.difference,
                         "low": c.low, "high": c.high, "deals": c.units, "effect": c.effect})
    return pd.DataFrame(rows)


def strength_contrasts(first: pd.DataFrame, players: int, names: np.ndarray,
                       label: str) -> pd.DataFrame:
    """A mixed table's strategies compared, each over every entity it plays on a deal (leading
    and following, every rotation: each strategy leads each deal equally often), A - B paired
    by deal: the strength gap, apart from the lead's value. Columns as :func:`lead_effects`
    with ``a``, ``b``, ``a_mean``, ``b_mean`` for ``strategy``, ``leading``, ``following``."""
    deals, strategy, _leads, outcomes = _entity_rows(first, players, names)
    order = list(dict.fromkeys(strategy))
    rows = []
    for quantity in LEAD_QUANTITIES:
        wide = per_deal_means(outcomes[quantity], deals, strategy)
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                c = paired_contrast(wide[a].to_numpy(), wide[b].to_numpy())
                rows.append({"table": label, "players": players, "a": a, "b": b,
                             "quantity": quantity, "a_mean": float(wide[a].mean()),
                             "b_mean": float(wide[b].mean()), "difference": c.difference,
                             "low": c.low, "high": c.high, "deals": c.units,
                             "effect": c.effect})
    return pd.DataFrame(rows)


def first_rounds(rounds: pd.DataFrame) -> pd.DataFrame:
    """The first round of every match of a rounds frame."""
    return rounds[rounds["round"].to_numpy() == 0]


def table_lead_frames(table, label: str, players: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`lead_effects` and :func:`strength_contrasts` of one mixed table (its rotations'
    first rounds: each entity's strategy from its rotation). At two sides the table has one
    lead effect (A leading is B following), given once, for its first strategy."""
    first = first_rounds(table.data)
    n = entity_count(players)
    names = np.stack([entity_names(table.rotations, first["rotation"], np.full(len(first), e))
                      for e in range(n)], axis=1)
    leads = lead_effects(first, players, names, label)
    if n == 2:  # at two sides one strategy leading is the other following: one lead effect
        leads = leads[leads["strategy"] == strategies_in(table.rotations)[0]].reset_index(drop=True)
    return leads, strength_contrasts(first, players, names, label)


def self_play_lead_effects(rounds: pd.DataFrame, strategy: str, players: int) -> pd.DataFrame:
    """:func:`lead_effects` of a self-play configuration (every entity plays ``strategy``)."""
    first = first_rounds(rounds)
    names = np.full((len(first), entity_count(players)), strategy, dtype=object)
    return lead_effects(first, players, names)


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


def chance(players: int) -> float:
    """A side's chance of winning by lot: 1/2 for two sides (2 players, 4-player partnerships),
    1/3 at 3 players."""
    return 1.0 / entity_count(players)


def _comparison_words(comparisons: pd.DataFrame, comparison: str) -> str:
    """The adjusted words of one comparison without its ``"a - b, quantity: "`` head."""
    sel = comparisons[comparisons["id"] == comparison]
    if sel.empty:
        return "not computed"
    return sel.iloc[0]["words"].split(": ", 1)[1]


def _key_numbers(frames: dict, settings: dict) -> dict:
    """The study's key numbers, every one read from the frames: the first leader's match win
    rate (self-play, beside chance), the lead effects within each strategy and the mixed tables'
    strength contrasts (adjusted), the counterfactual gains (adjusted, the win table's error
    included in match-win probability) and the best openings (simultaneous rank interval [1, 1]
    only)."""
    key = {}
    comparisons = frames["comparisons"]
    tiles = frames["tiles"]
    selfplay = tiles[tiles["table"] == SELF_PLAY]
    for (strategy, players), sel in selfplay.groupby(["strategy", "players"], sort=False):
        done = sel["first_finished"].to_numpy(dtype=float)
        won = float((sel["first_win_rate"].fillna(0).to_numpy() * done).sum())
        p = proportion(won, done.sum())
        key[f"{strategy}, {players}p: first leader's match win rate (chance "
            f"{chance(players):.3g})"] = fmt_ci(float(p["rate"]), float(p["low"]),
                                                 float(p["high"]))
    for row in frames.get("lead_effects", pd.DataFrame()).itertuples(index=False):
        key[f"{row.table}, {row.players}p: {row.strategy} leading - {row.strategy} following, "
            f"{LEAD_QUANTITIES[row.quantity]}"] = _comparison_words(
            comparisons, lead_id(row.players, row.table, row.strategy, row.quantity))
    for row in frames.get("strength_contrasts", pd.DataFrame()).itertuples(index=False):
        key[f"{row.table}, {row.players}p: strength {row.a} - {row.b} (both leads), "
            f"{LEAD_QUANTITIES[row.quantity]}"] = _comparison_words(
            comparisons, strength_id(row.players, row.table, row.a, row.b, row.quantity))
    if "cf_summary" in frames:
        main = settings.get("playout_strategy", "greedy")
        for row in frames["cf_summary"].itertuples(index=False):
            key[f"counterfactual {row.players}p ({row.playout_strategy} playouts): "
                f"{row.baseline}'s opening is the best"] = fmt_ci(
                row.baseline_is_best, row.baseline_is_best_low, row.baseline_is_best_high,
                pct=True)
        full = _full_gain(frames["cf_gain"])
        for row in full[full.state == "0-0"].itertuples(index=False):
            key[f"counterfactual {row.players}p: the best opening - {settings['baseline']}'s, "
                f"held out, {_value_short(row.value)}"] = _comparison_words(
                comparisons, gain_id(row.players, "0-0", main, row.value))
            key[f"counterfactual {row.players}p: {_value_short(row.value)} gain held out .. "
                "in-sample"] = _gain_range(row, 2 if row.value == "diff" else 4)
        for players in sorted(frames["cf_values"]["players"].unique()):
            half = table_half_width(int(players))
            if np.isfinite(half):
                key[f"counterfactual {players}p: the win table's largest 95% half-width"] = (
                    f"{half:.4f} (its error is in every match-win interval: "
                    f"{settings.get('table_replicates', 0)} replicate tables)")
        values = frames["cf_values"]
        for (players, value), sel in values.groupby(["players", "value"], sort=True):
            parts = []
            for state, rows in sel.groupby("state", sort=False):
                best, _worst = extremes(rows)
                reach = rows[rows["rank_low"] == 1]["tile"].tolist()
                if best:
                    parts.append(f"{state} {best[0]}")
                elif len(reach) <= 4:
                    parts.append(f"{state} none of " + "/".join(reach))
                else:
                    parts.append(f"{state} none ({len(reach)} tiles' rank intervals reach 1)")
            key[f"counterfactual {players}p: best opening by {_value_short(value)} per state "
                "(simultaneous rank interval [1, 1])"] = ", ".join(parts)
        strong = frames["cf_continuations"]
        strong = strong[strong["continuation"] != main]
        for row in strong.itertuples(index=False):
            key[f"continuation {row.continuation}, {row.players}p ({row.hands} hands x "
                f"{row.playouts} playouts): the best opening - {settings['baseline']}'s, held "
                f"out, {_value_short(row.value)}"] = _comparison_words(
                comparisons, gain_id(row.players, "0-0", row.continuation, row.value))
    return key


def _id_words(comparisons: pd.DataFrame, comparison: str) -> str:
    """One comparison's adjusted sentence (``words``) by its id."""
    sel = comparisons[comparisons["id"] == comparison]
    return sel.iloc[0]["words"] if len(sel) else f"{comparison}: not computed"


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


def win_table_note(settings: dict | None = None) -> str:
    """Where the match-win values come from and how their intervals carry the table's error
    (``settings``: a run's; default the shipped table at its default use)."""
    if settings is None:
        count = winprob_table.shipped().replicate_codes.shape[0]
        settings = {"players": [2, 4], "win_table": winprob_table.file_digest(),
                    "table_replicates": min(count, DEFAULT_TABLE_REPLICATES) if count >= 2 else 0}
    halves = {p: table_half_width(p) for p in settings["players"] if p in TABLE_ROW}
    known = {p: h for p, h in halves.items() if np.isfinite(h)}
    count = int(settings.get("table_replicates", 0))
    error = ("its largest 95% half-width over the states a round starts from is "
             + ", ".join(f"{h:.4f} at {p} players" for p, h in known.items())) if known else ""
    return ("Match-win values are read from the shipped `rollout` self-play win table "
            f"(`strategies/winprob_table.npz`, digest {settings.get('win_table', '?')}, 2 and 4 "
            "players); " + error + ". "
            + (f"Every match-win figure is also computed under {count} of the table's bootstrap "
               "replicate tables: their spread is the table's error, common to every hand, and "
               "is added to the hands' variance in every interval and in the rank intervals."
               if count >= 2 else
               "No replicate tables were used: the intervals are over hands and playouts only, "
               "without the table's own error."))


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
            "(scores and next leader). " + win_table_note(s))
    lines += ["", "## Key numbers", ""]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    comparisons = frames["comparisons"]
    lines += ["", "## Comparisons", "", plan_sentence(plan_for(s), comparisons), "",
              "Primary:", ""]
    lines += [f"- {r.id}: {r.words}" for r in
              comparisons[comparisons.family == PRIMARY].itertuples(index=False)]
    if "lead_effects" in frames:
        lines += ["", "## The lead's value within each strategy", "",
                  ("S leading minus S following on the same deals: the first round's leading "
                   "entity's outcome where S plays it, against the mean outcome of S's entities "
                   "that follow (every rotation of a mixed table plays the same deals, so S "
                   "leads and follows each of them; in self-play every entity is S). Outcomes: "
                   "the entity's own first-round differential (its points minus the others' "
                   "mean) and its match win. The strength of the other strategies at the table "
                   "cancels; it is reported apart below. Each contrast is worded by its "
                   "adjusted interval (`comparisons`)."), ""]
        lines += [f"- {r.table}, {r.players}p: "
                  + _id_words(comparisons, lead_id(r.players, r.table, r.strategy, r.quantity))
                  for r in frames["lead_effects"].itertuples(index=False)]
    if "strength_contrasts" in frames:
        lines += ["", "## Strength differences (apart from the lead)", "",
                  ("A - B at each mixed table, each over every entity it plays on a deal, "
                   "leading and following (each strategy leads each deal equally often): the "
                   "strength gap. A difference of two strategies' *leading* rounds would be "
                   "twice this gap, not the lead's value."), ""]
        lines += [f"- {r.table}, {r.players}p: "
                  + _id_words(comparisons, strength_id(r.players, r.table, r.a, r.b, r.quantity))
                  for r in frames["strength_contrasts"].itertuples(index=False)]
    if "cf_gain" in frames:
        full = _full_gain(frames["cf_gain"])
        lines += ["", "## Gain of the best opening per hand over the baseline's: a range", "",
                  ("Choosing the best of five noisy means and measuring it on the same playouts "
                   "(in-sample) overstates the gain; choosing on the even-numbered playouts and "
                   "measuring on the odd ones (held out) is unbiased for a choice made on half "
                   "the playouts, so it understates the gain of a choice made on all of them. "
                   "The gain lies between the two ends; both approach it as the playouts grow "
                   "(next table). Round differential in displayed points, win probability in "
                   "0-1 units; 95% t intervals over hands, match-win ones widened by the win "
                   "table's error. The held-out gains are compared in `comparisons`."), "",
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
                           "opening, paired by hand; ranks with simultaneous 95% intervals over "
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
                   "simultaneous intervals (max-t over every pair of tiles, the hands resampled and, in "
                   "match-win probability, the win table's replicates). A tile is called the best (worst) only "
                   "where its rank interval is [1, 1] ([k, k]); `cf_values` holds every tile, "
                   "state and value."), ""] + _ranking_lines(frames["cf_values"])
        win = frames["cf_values"][frames["cf_values"].value == "win_prob"]
        if len(win):
            lines += ["", "## Ranks by match-win probability (1 = best, simultaneous 95% interval)",
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
                   "with its simultaneous 95% interval; "
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
              "`lead_effects`, `strength_contrasts`, `comparisons`, `cf_tiles`, `cf_hands`, "
              "`cf_values`, `cf_gain`, "
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
        "Bars: 95% t intervals of the paired contrast tile - hand mean, over hands; right: the "
        "hands' held-out gains (a histogram)",
        "Best tile (simultaneous rank interval [1, 1]) under the main continuation: "
        + ", ".join(tops)))
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
        "differential (displayed points) and match-win probability (0-1; 2 and 4 players, where "
        "a win table ships), one panel per player count and value",
        f"{s['hands']:,} hands x {s['playouts']} playouts per state and player count, seed "
        f"{s['seed']}",
        "Bars: 95% t intervals over hands; match-win ones widened by the win table's error (its "
        "replicate tables)",
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
        "Bars: 95% t intervals over hands (match-win ones widened by the win table's error)",
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
    figures.save_png(fig, path)


def min_opened(settings: dict) -> int:
    """Fewest first openings with a tile for it to be plotted: 30 at 3,000 matches per
    configuration or more, ``matches // 100`` (at least 2) below, so that a small run's figure
    has points (``greedy`` almost never opens with some tiles)."""
    return int(min(30, max(2, int(settings.get("matches", 3000)) // 100)))


def _tile_axis(ax, labels: bool) -> None:
    """The 28 tiles along x (names only on the lowest panel of a column)."""
    x = np.arange(N_TILES)
    ax.set_xticks(x, TILE_NAMES if labels else [], rotation=90)
    ax.set_xlim(-0.7, N_TILES - 0.3)


def _offsets(count: int, width: float = 0.8) -> np.ndarray:
    """Horizontal offsets of ``count`` series side by side at each tile."""
    step = width / max(1, count)
    return (np.arange(count) - (count - 1) / 2) * step


@figures.house_style()
def plot_opening_tiles(tiles: pd.DataFrame, path, settings: dict,
                       min_n: int | None = None) -> None:
    """Per tile as the match's first opening (observed): the leader's round differential
    (displayed points) and match win rate, 95% intervals; one row per player count.

    Tiles a strategy opened fewer than ``min_n`` times (default :func:`min_opened`) are left
    out (``greedy`` almost never opens with some tiles); a strategy with no tile left is not
    drawn.
    """
    min_n = min_opened(settings) if min_n is None else min_n
    players = sorted(tiles["players"].unique())
    strategies = list(dict.fromkeys(tiles["strategy"]))
    fig, axes = figures.new_figure(len(players), 2, width="page",
                                   height=0.9 + 1.75 * len(players), squeeze=False, sharex=True)
    x = np.arange(N_TILES)
    shifts = _offsets(len(strategies))
    for i, count in enumerate(players):
        for k, name in enumerate(strategies):
            sel = tiles[(tiles.players == count) & (tiles.strategy == name)].set_index("tile")
            sel = sel.reindex(TILE_NAMES)
            shown = sel["first_n"].fillna(0).to_numpy() >= min_n
            if not shown.any():
                continue
            for j, (column, prefix) in enumerate((("first_diff_mean", "first_diff"),
                                                  ("first_win_rate", "first_win"))):
                figures.estimates(axes[i, j], (x + shifts[k])[shown],
                                  sel[column].to_numpy(dtype=float)[shown],
                                  sel[f"{prefix}_low"].to_numpy(dtype=float)[shown],
                                  sel[f"{prefix}_high"].to_numpy(dtype=float)[shown],
                                  color=figures.strategy_colour(name),
                                  label=name if i == 0 else None, markersize=2.5)
        figures.reference_line(axes[i, 0], 0.0)
        figures.reference_line(axes[i, 1], chance(count))
        axes[i, 0].set_ylabel(f"{count}p: round diff.")
        axes[i, 1].set_ylabel(f"{count}p: match win")
        for j in range(2):
            _tile_axis(axes[i, j], i == len(players) - 1)
    axes[0, 0].set_title("leader's first-round differential (displayed, 95% t)")
    axes[0, 1].set_title("leader's side wins the match (95% Wilson; line: chance)")
    fig.legend(*axes[0, 0].get_legend_handles_labels(), title="self-play",
               loc="outside upper center", ncols=len(strategies))
    for j in range(2):
        axes[-1, j].set_xlabel(f"first opening (tiles opened < {min_n} times left out)")
    _save(fig, path, figures.run_footer(settings) + "; 1 displayed = 5 raw points; intervals "
                                                    "over deals")


@figures.house_style()
def plot_counterfactual(cf_tiles: pd.DataFrame, cf_hands: pd.DataFrame, path,
                        settings: dict, cf_strong: pd.DataFrame | None = None) -> None:
    """Forced openings at 0-0: each tile's value relative to its hand (displayed points, 95%)
    under the main continuation and every strong one (``cf_strong`` rows of the round
    differential; one :func:`experiments.reporting.figures.strategy_colour` per continuation),
    beside the per-hand held-out gain of the best opening over the baseline's (main
    continuation; a histogram of hands, no estimate); one row per player count."""
    players = sorted(cf_tiles["players"].unique())
    fig, axes = figures.new_figure(len(players), 2, width="page",
                                   height=0.9 + 1.75 * len(players), squeeze=False,
                                   gridspec_kw={"width_ratios": (3.2, 1)})
    x = np.arange(N_TILES)
    series = [(str(cf_tiles["playout_strategy"].iloc[0]), cf_tiles)]
    if cf_strong is not None and len(cf_strong):
        strong = cf_strong[cf_strong["value"] == "diff"]
        series += [(name, rows) for name, rows in strong.groupby("continuation", sort=False)]
    shifts = _offsets(len(series))
    hist_colour = figures.category_colours(1)[0]
    for i, count in enumerate(players):
        ax = axes[i, 0]
        for k, (name, rows) in enumerate(series):
            sel = rows[rows.players == count].set_index("tile").reindex(TILE_NAMES)
            centre = sel["relative_mean"].to_numpy(dtype=float)
            shown = np.isfinite(centre)
            figures.estimates(ax, (x + shifts[k])[shown], centre[shown],
                              sel["relative_low"].to_numpy(dtype=float)[shown],
                              sel["relative_high"].to_numpy(dtype=float)[shown],
                              color=figures.strategy_colour(name),
                              label=name if i == 0 else None, markersize=2.5)
        figures.reference_line(ax, 0.0)
        _tile_axis(ax, i == len(players) - 1)
        ax.set_ylabel(f"{count}p: vs hand mean")
        hands = cf_hands[cf_hands.players == count]
        gain = hands["gain_heldout"].to_numpy(dtype=float)
        gain = gain[np.isfinite(gain)]
        side = axes[i, 1]
        if gain.size:
            bins = np.linspace(min(-2.0, gain.min()), max(4.0, gain.max()), 31)
            side.hist(gain, bins=bins, color=hist_colour, alpha=0.8)
        figures.reference_line(side, 0.0, axis="x")
        figures.no_intervals(side, "a histogram of hands")
        side.set_ylabel("hands")
    axes[0, 0].set_title("forced openings at 0-0: the tile - its hand's mean opening "
                         "(displayed, 95% t)")
    axes[0, 1].set_title("held-out gain")
    axes[0, 0].legend(title="continuation", loc="upper left", ncols=len(series))
    axes[-1, 0].set_xlabel("forced opening")
    axes[-1, 1].set_xlabel(f"best - {settings['baseline']}'s")
    _save(fig, path, _cf_footer(settings) + "; 1 displayed = 5 raw points")


def value_blocks(frame: pd.DataFrame) -> list[tuple[str, int, pd.DataFrame]]:
    """The (value, players) blocks of a state figure that hold data, in :data:`VALUE_LABELS`
    then player order: a figure has one panel per block, none empty (no match-win block at 3
    players, which have no win table)."""
    return [(value, int(count), frame[(frame.players == count) & (frame.value == value)])
            for count in sorted(frame["players"].unique()) for value in VALUE_LABELS
            if ((frame.players == count) & (frame.value == value)).any()]


@figures.house_style()
def plot_state_values(cf_values: pd.DataFrame, path, settings: dict) -> None:
    """Each tile's forced-opening value relative to its hand, by score state: one panel per
    (player count, value) that has data, 95% intervals (match-win ones with the win table's
    error)."""
    states = list(dict.fromkeys(cf_values["state"]))
    blocks = value_blocks(cf_values)
    fig, axes = figures.new_figure(len(blocks), 1, width="page", height=0.8 + 1.35 * len(blocks),
                                   squeeze=False, sharex=True)
    x = np.arange(N_TILES)
    colours = figures.category_colours(len(states))
    shifts = _offsets(len(states))
    for i, (value, count, sel) in enumerate(blocks):
        ax = axes[i, 0]
        for k, state in enumerate(states):
            rows = sel[sel.state == state].set_index("tile").reindex(TILE_NAMES)
            centre = rows["relative_mean"].to_numpy(dtype=float)
            shown = np.isfinite(centre)
            figures.estimates(ax, (x + shifts[k])[shown], centre[shown],
                              rows["relative_low"].to_numpy(dtype=float)[shown],
                              rows["relative_high"].to_numpy(dtype=float)[shown],
                              color=colours[k], label=state if i == 0 else None, markersize=2)
        figures.reference_line(ax, 0.0)
        _tile_axis(ax, i == len(blocks) - 1)
        ax.set_ylabel(f"{count}p: {'points' if value == 'diff' else 'P(win)'}")
    axes[0, 0].legend(title="start (leader's side-others)", ncols=len(states), loc="upper left")
    axes[0, 0].set_title("each tile's opening - its hand's mean opening, by score state (95%)")
    axes[-1, 0].set_xlabel("forced opening")
    _save(fig, path, _cf_footer(settings))


@figures.house_style()
def plot_gain_playouts(cf_gain: pd.DataFrame, path, settings: dict) -> None:
    """Gain of the best opening per hand over the baseline's against the playouts used, both
    ends (in-sample: circles, solid; held out: squares, dashed), per state; one panel per
    (player count, value)."""
    from matplotlib.lines import Line2D

    states = list(dict.fromkeys(cf_gain["state"]))
    blocks = value_blocks(cf_gain)
    fig, axes = figures.new_figure(len(blocks), 1, width="column",
                                   height=1.2 + 1.3 * len(blocks), squeeze=False, sharex=True)
    colours = figures.category_colours(len(states))
    ends = (("insample", "o", "-", 1.03, "in-sample"), ("heldout", "s", "--", 0.97, "held out"))
    for i, (value, count, sel) in enumerate(blocks):
        ax = axes[i, 0]
        for k, state in enumerate(states):
            rows = sel[sel.state == state].sort_values("playouts")
            m = rows["playouts"].to_numpy(dtype=float)
            for end, marker, style, shift, _words in ends:
                drawn = figures.estimates(ax, m * shift, rows[f"{end}_mean"], rows[f"{end}_low"],
                                          rows[f"{end}_high"], color=colours[k], marker=marker,
                                          line=True, markersize=3, linewidth=0.8)
                drawn.lines[0].set_linestyle(style)
        ax.set_xscale("log", base=2)
        ticks = sorted(set(sel["playouts"]))
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.minorticks_off()
        figures.reference_line(ax, 0.0)
        ax.set_ylabel(f"{count}p: {'points' if value == 'diff' else 'P(win)'}")
    axes[-1, 0].set_xlabel("playouts per (hand, tile) used")
    axes[0, 0].set_title("best opening - baseline's (95%)")
    # one key for the states (colours) and one for the two ends (markers and lines)
    keys = [Line2D([], [], color=colours[k], marker="o", linestyle="", label=state)
            for k, state in enumerate(states)]
    keys += [Line2D([], [], color="black", marker=marker, linestyle=style, markersize=3,
                    label=words) for _end, marker, style, _shift, words in ends]
    fig.legend(handles=keys, loc="outside upper center", ncols=3)
    _save(fig, path, _cf_footer(settings))
