"""The strength ladder: duplicate-deal matches up a ladder of strategies, and what each step costs.

For every player count (2: one strategy against another; 4: partnerships,
seats 0,2 against 1,3) and every pairing ``upper`` vs ``lower``:

- every adjacent pair of the ladder (the next strategy up against the one below it),
- the challenger (default ``pimc``) against ``greedy`` and against the
  reference (default ``rollout``), and the ceiling (default ``cheater``, an
  audit strategy that sees hidden information) against the reference,

(pairs naming a strategy outside the ladder are skipped; a pair is played once)
``deals`` deals are each played with both seatings: the upper strategy at seat 0
(its partnership at seats 0,2) and at seat 1 (1,3), on the same seed and
match indices, so both seatings see the same deals (common random numbers).
Every pairing uses the same seed and match range, so deal ``i`` is the same
deal in every pairing too.

Frames:

- ``ladder``: per (players, pairing) the upper strategy's win rate over all
  ``2 * deals`` matches (an unfinished match, stopped by ``max_rounds``, is
  a win for nobody) with its **paired** 95% interval (the unit is the deal:
  the Student-t interval of the per-deal means of the two seatings' outcomes,
  :func:`experiments.stats.paired_share_interval`, clipped to [0, 1]) beside the Wilson
  interval that treats the matches as independent, the draws, mean rounds and mean margin;
- ``gap``: per player count, the share of the reference -> ceiling gap that
  the challenger closes, ``(W(challenger vs reference) - 0.5) /
  (W(ceiling vs reference) - 0.5)``, with a paired bootstrap 95% interval
  over deals (both pairings resampled on the same deals);
- ``contrasts`` (runs with yardsticks, ``versus``): per player count, strategy of the
  ladder and pair of consecutive yardsticks ``A``, ``B`` (in the order given), the paired
  contrast of its win rate against ``A`` minus against ``B`` over the same deals
  (:func:`experiments.stats.paired_contrast`: ``difference``, ``low``, ``high``, ``deals``,
  ``effect``): which yardstick is harder, as a finding only where the interval excludes 0;
- ``strategy_contrasts`` (runs with yardsticks and two or more ladder strategies): per
  player count, yardstick and ladder strategy after the first, the paired contrast of its
  win rate against the yardstick minus the first ladder strategy's, over the same deals
  (the same statistics): a variant against its baseline, e.g.
  ``--ladder 'pimc,pimc[worlds=64]' --versus matchplay``;
- ``timing``: per strategy of the ladder and player count, CPU seconds per
  match and per placement in self-play, single-threaded, measured after a
  warm-up call (no compile time) with :func:`time.process_time`; the
  placements count every tile played, forced ones (a single legal
  candidate) included;
- ``wall``: wall seconds of each pairing in this run (resumed shards cost nothing; on the
  local backend the kernel is loaded or compiled before the first pairing);
- ``comparisons``: every comparison the run declared before it played (:func:`plan_for`,
  written as ``plan.json``; the challenger's targets primary, the other pairings exploratory,
  everything primary in a run against yardsticks), with its interval adjusted as its family
  and its verdict (:meth:`experiments.comparisons.ComparisonPlan.adjust`); the summary and the
  key numbers word each by it;
- ``matches``: one row per match played (what the other frames are computed from).

A yardstick ``openspiel:ismcts[sims=0,...]`` plays at matched compute: its simulation count is
calibrated before the run to the ladder's CPU per placement and recorded in the settings
(:func:`matched_yardsticks`).

A strategy that sees hidden information is refused by the engine unless the
run passes ``allow_hidden=True``; :func:`run` passes it only when asked.

Run ``five-up strength --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import importlib
import time

import numpy as np
import pandas as pd

from experiments.comparisons import (EXPLORATORY, PRIMARY, PROCEDURES, VERDICTS, Comparison,
                                     ComparisonPlan, Quantity, adjusted_words, comparison_id,
                                     plan_sentence)
from experiments.reporting import figures
from experiments.reporting.figures import (estimates, new_figure, reference_line, run_footer,
                                           save_png, stamp, strategy_colour)
from experiments.reporting.reports import ExperimentResult, figure_caption, fmt_ci, md_table, summary_head
from experiments.run_spine import StudySpec, given_spec, run_experiment
from experiments.settings import seal_of, strategy_settings
from experiments.stats import mean_interval, paired_contrast, paired_share_interval, proportion
from core.checks import check_int, check_player_counts, check_seed
from sim.engine.runs import simulate
from sim.engine.spec import check_seating, checked_seal_options, hidden_run_options
from sim.progress import progress_bar
from sim.scale.options import ScaleOptions
from sim.scale.runner import run_shards
from sim.scale.shards import Task, plan
from sim.scale.store import ShardStore
from core.tiles import DEFAULT_MAX_ROUNDS
from strategies.catalogue import families, resolve_field, spec_of

NAME = "strength"
DEFAULT_LADDER = ("random", "greedy", "exact", "defensive", "weighted", "rollout", "matchplay",
                  "pimc", "cheater")
"""The default ladder, weakest first."""
DEFAULT_CHALLENGER = "pimc"
DEFAULT_REFERENCE = "rollout"
DEFAULT_CEILING = "cheater"
BASELINE = "greedy"
"""The challenger is also played against this strategy."""
DEFAULT_PLAYERS = (2, 4)
LADDER_PLAYER_COUNTS = (2, 4)
"""Two sides only: one strategy against another (2 players) or partnerships (4)."""
DEFAULT_DEALS = 3000
DEFAULT_TIMING_MATCHES = 200
DEFAULT_RESAMPLES = 2000
SHARD_SIZE = 500
"""Matches per shard of one seating: small, because a search strategy may play only tens of
matches per second (the progress bar moves once per shard)."""
SOURCE = "ladder"
"""The shard store's name inside ``OUT/shards``."""
SEATINGS = 2
"""Each deal is played twice: the upper strategy at entity 0, then at entity 1."""
EVEN = 0.5
"""The win rate of two equal sides."""
CONFIDENCE = 0.95
BOOTSTRAP_CHUNK = 200
"""Bootstrap resamples drawn at once (memory: chunk x deals indices)."""
BOOTSTRAP_KEY = 0x5EED_0F_9A9
"""Mixed with the seed for the bootstrap's generator (a stream of its own)."""
WARM_UP_MATCHES = 1
"""Matches of the untimed call before each timing and before the pairings (loads or
compiles the kernel)."""
MIN_TIMED_CPU = 0.5
"""CPU seconds a timing should reach: fast strategies are timed on more matches."""
MAX_TIMING_GROWTH = 64
"""At most this many times ``timing_matches`` matches per timing."""
WIN_SHARE = Quantity(
    "win_share", "match win share minus 1/2", 0.02, True,
    "2 pp above an even match (52% of matches): the smallest edge the project's screens and "
    "tuning act on; a smaller one takes thousands of matches for a player to notice")
"""A pairing's quantity: the upper strategy's share of the matches minus 1/2 (chance for two
sides, at 2 players and for 4-player partnerships alike)."""
WIN_RATE_CONTRAST = Quantity(
    "win_rate_contrast", "match win rate", 0.02, True,
    "2 pp of match wins against the same opponent: the smallest change a variant or a "
    "yardstick must make to matter (the same threshold as a pairing's edge)")
"""A paired contrast's quantity: one win rate minus another on the same deals."""


# ---------------------------------------------------------------------------
# Settings and pairings
# ---------------------------------------------------------------------------
def ladder_pairings(names, challenger: str = DEFAULT_CHALLENGER,
                    reference: str = DEFAULT_REFERENCE,
                    ceiling: str = DEFAULT_CEILING) -> list[tuple[str, str, str]]:
    """The pairings of a ladder, as ``(kind, upper, lower)``.

    ``kind`` is ``"step"`` (adjacent rungs, upper = the higher one),
    ``"challenger"`` (challenger vs ``greedy``, challenger vs reference) or
    ``"ceiling"`` (ceiling vs reference). A pair naming a strategy outside
    ``names``, or one strategy twice, is skipped; a pair already listed (in
    either order) is not listed again.
    """
    names = list(names)
    wanted = [("step", names[k + 1], names[k]) for k in range(len(names) - 1)]
    wanted += [("challenger", challenger, BASELINE), ("challenger", challenger, reference),
               ("ceiling", ceiling, reference)]
    seen, pairs = set(), []
    for kind, upper, lower in wanted:
        key = frozenset((upper, lower))
        if upper not in names or lower not in names or upper == lower or key in seen:
            continue
        seen.add(key)
        pairs.append((kind, upper, lower))
    return pairs


def versus_pairings(names, yardsticks) -> list[list[str]]:
    """``[["versus", upper, yardstick], ...]``: every strategy of ``names`` that is not a
    yardstick against every yardstick, yardstick by yardstick (raises ValueError, one line,
    when no strategy is left to play them)."""
    players = [name for name in names if name not in yardsticks]
    if not players:
        raise ValueError("versus: every strategy of the ladder is a yardstick; nobody plays them")
    return [["versus", upper, yardstick] for yardstick in yardsticks for upper in players]


def _name(value, what: str) -> str:
    text = str(value).strip()
    if not text:
        raise ValueError(f"{what} needs a strategy name")
    return text


def strength_settings(ladder=DEFAULT_LADDER, players=DEFAULT_PLAYERS, deals=DEFAULT_DEALS,
                      seed=0, *, challenger=DEFAULT_CHALLENGER, reference=DEFAULT_REFERENCE,
                      ceiling=DEFAULT_CEILING, timing_matches=DEFAULT_TIMING_MATCHES,
                      max_rounds=DEFAULT_MAX_ROUNDS, allow_hidden: bool = False,
                      resamples=DEFAULT_RESAMPLES, versus=None, sealed: bool = False,
                      secret: str | None = None, decision_timeout=None,
                      matched_compute: dict | None = None) -> dict:
    """The checked settings of a ladder run (JSON-ready; raises ValueError, one line).

    ``versus`` (optional): yardstick strategies; instead of :func:`ladder_pairings` every
    ladder strategy plays every yardstick (:func:`versus_pairings`, kind ``"versus"``).
    ``sealed``, ``secret``, ``decision_timeout``: the run's sealing
    (:func:`sim.engine.spec.checked_seal_options`; a sealed run's secret is drawn here, once
    for every pairing, seating and the timing pass).
    A yardstick ``openspiel:ismcts[sims=0,...]`` is calibrated here to the ladder's compute
    (:func:`matched_yardsticks`) and recorded as ``matched_compute``; ``matched_compute`` (a
    previous run's record) reuses its counts instead of measuring again (a resumed run).

    Every pairing is also checked as the engine seats it (:func:`sim.engine.spec.check_seating`,
    nothing compiled): a hidden-information strategy without ``allow_hidden`` is
    refused here, before any work, with the engine's own message.
    """
    resolved = resolve_field(ladder, "ladder")
    yardsticks = []
    matched = {}
    if versus is not None:
        extra = resolve_field(versus, "versus")
        if not extra:
            raise ValueError("versus needs at least one strategy")
        extra, matched = matched_yardsticks(extra, resolved, check_player_counts(players),
                                            check_seed(seed), matched_compute)
        yardsticks = [s.name for s in extra]
        in_ladder = {s.name for s in resolved}
        resolved = resolve_field(list(resolved) + [s for s in extra if s.name not in in_ladder])
    if len(resolved) < 2:
        raise ValueError(f"ladder needs at least 2 strategies, found {len(resolved)}")
    counts = check_player_counts(players)
    for count in counts:
        if count not in LADDER_PLAYER_COUNTS:
            raise ValueError(f"players must be 2 or 4 (one side against another), found {count}")
    names = [s.name for s in resolved]
    deals = check_int(deals, "deals", 1)
    roles = {"challenger": _name(challenger, "challenger"),
             "reference": _name(reference, "reference"), "ceiling": _name(ceiling, "ceiling")}
    settings = {
        "experiment": NAME,
        "players": counts,
        "deals": deals,
        "matches": SEATINGS * deals,
        "seed": check_seed(seed),
        "max_rounds": check_int(max_rounds, "max_rounds", 1),
        **strategy_settings(resolved),
        **roles,
        "pairings": [list(p) for p in ladder_pairings(names, **roles)] if versus is None
        else versus_pairings(names, yardsticks),
        "timing_matches": check_int(timing_matches, "timing_matches", 0),
        "resamples": check_int(resamples, "resamples", 1),
        **checked_seal_options(sealed, secret, decision_timeout),
    }
    if hidden_run_options(allow_hidden):
        settings["allow_hidden"] = True
    if matched:
        settings["matched_compute"] = matched
    # The engine's check also refuses a sealed run of a strategy defined in a notebook.
    seating = {"allow_hidden": settings.get("allow_hidden", False),
               "sealed": settings.get("sealed", False)}
    spec = dict(zip(names, settings["strategy_specs"]))
    for count in counts:
        for _, upper, lower in settings["pairings"]:
            check_seating(count, [spec[upper], spec[lower]], **seating)
        if settings["timing_matches"]:
            for name in names:
                check_seating(count, [spec[name], spec[name]], **seating)
    return settings


OPENSPIEL = "openspiel"
"""The strategy family of OpenSpiel's bots (``openspiel:ismcts``)."""
MATCHED_SIMULATIONS = 0
"""``sims=0``: an ISMCTS yardstick asking for matched compute
(:data:`sim.bridges.openspiel_bots.MATCHED`)."""
CALIBRATION_MATCHES = 40
"""Self-play matches timed to measure a ladder strategy's CPU per placement for a calibrated
yardstick (one thread, after a warm-up match)."""


def matched_yardsticks(yardsticks, ladder, players, seed: int,
                       recorded: dict | None = None) -> tuple[list, dict]:
    """The yardsticks with every ``openspiel:ismcts[sims=0,...]`` calibrated to the ladder's
    compute: its simulation count set so that its CPU per placement matches the largest of the
    ladder strategies' (self-play, one thread; :func:`sim.bridges.openspiel_bots.
    calibrate_simulations`), at least the bot's minimum.

    Returns
    -------
    yardsticks : list of Strategy
        The calibrated ones in place of those asking for it.
    matched : dict
        Given name -> the calibration (``sims``, ``spec``, ``against``, the measured CPU per
        placement of both, ``cpu_ratio``); empty when no yardstick asks. ``recorded`` (a
        previous run's) is reused for the names it holds.

    Raises
    ------
    ValueError
        A calibrated yardstick with more than one player count (one count per spec).
    """
    recorded = dict(recorded or {})
    out, matched, costs = [], {}, {}
    for strategy in yardsticks:
        if not (strategy.name.startswith(f"{OPENSPIEL}.ismcts")
                and "sims" in strategy.parameter_names()
                and float(strategy.default_params()[strategy.parameter_names().index("sims")])
                == MATCHED_SIMULATIONS):
            out.append(strategy)
            continue
        # the family's module (it needs the optional extra, present: the yardstick resolved)
        openspiel_bots = importlib.import_module(families()[OPENSPIEL])
        if len(players) != 1:
            raise ValueError(f"versus: {strategy.name} is calibrated at one player count, found "
                             f"players {', '.join(map(str, players))}")
        record = recorded.get(strategy.name)
        if record is None:
            if not costs:  # the ladder measured once for every calibrated yardstick
                costs = {s.name: openspiel_bots.placement_cpu(spec_of(s), players[0],
                                                              CALIBRATION_MATCHES, seed)
                         for s in ladder}
            against = max(costs, key=costs.get)
            record = {"against": against, **openspiel_bots.calibrate_simulations(
                spec_of(strategy), costs[against], players[0], seed)}
        matched[strategy.name] = record
        out += resolve_field(record["spec"], "versus")
    return out, matched


def _run_options(settings: dict) -> dict:
    return hidden_run_options(settings.get("allow_hidden", False)) | seal_of(settings)


# ---------------------------------------------------------------------------
# The comparisons, declared before the run
# ---------------------------------------------------------------------------
def pairing_id(players: int, upper: str, lower: str) -> str:
    """The comparison id of a pairing (no seed: the same in every replication)."""
    return comparison_id(f"{players}p", f"{upper} vs {lower}", "win share")


def contrast_id(players: int, upper: str, a: str, b: str) -> str:
    """The comparison id of a yardstick contrast: ``upper``'s win rate against ``a`` minus
    against ``b``."""
    return comparison_id(f"{players}p", f"{upper} vs {a} - {upper} vs {b}", "win rate")


def strategy_contrast_id(players: int, strategy: str, first: str, yardstick: str) -> str:
    """The comparison id of a strategy contrast: ``strategy``'s win rate against ``yardstick``
    minus ``first``'s."""
    return comparison_id(f"{players}p", f"{strategy} vs {yardstick} - {first} vs {yardstick}",
                         "win rate")


def yardstick_pairs(settings: dict) -> list[tuple[str, str, str]]:
    """``(upper, a, b)`` of every yardstick contrast the run states: each ladder strategy
    against consecutive yardsticks ``a``, ``b`` (in the order given)."""
    lowers = list(dict.fromkeys(lower for kind, _, lower in settings["pairings"]
                                if kind == "versus"))
    uppers = list(dict.fromkeys(upper for kind, upper, _ in settings["pairings"]
                                if kind == "versus"))
    return [(upper, a, b) for upper in uppers for a, b in zip(lowers, lowers[1:])]


def strategy_pairs(settings: dict) -> list[tuple[str, str, str]]:
    """``(yardstick, strategy, first)`` of every strategy contrast the run states: each ladder
    strategy after the first that plays ``yardstick`` against that first one."""
    pairs = []
    for yardstick in dict.fromkeys(lower for kind, _, lower in settings["pairings"]
                                   if kind == "versus"):
        uppers = [upper for kind, upper, lower in settings["pairings"]
                  if kind == "versus" and lower == yardstick]
        pairs += [(yardstick, upper, uppers[0]) for upper in uppers[1:]]
    return pairs


PRIMARY_KINDS = ("challenger", "versus")
"""Pairings the run is for: the challenger's targets, or every strategy against a yardstick."""


def is_primary(kind: str, upper: str, settings: dict) -> bool:
    """Whether a pairing is primary: the challenger's (against ``greedy``, against the
    reference, and its own step, against the strategy below it), or against a yardstick."""
    return kind in PRIMARY_KINDS or (kind == "step" and upper == settings["challenger"])


def plan_for(settings: dict) -> ComparisonPlan:
    """The comparisons a strength run states, declared from its settings alone.

    Primary (Holm): without yardsticks, the challenger's targets (it against ``greedy``,
    against the reference and against the strategy below it, at every player count); with yardsticks (``versus``), every ladder
    strategy against each yardstick, and the paired contrasts between yardsticks and between
    ladder strategies. Exploratory (Benjamini-Hochberg): the ladder's steps and the ceiling
    pairing.
    """
    comparisons = []
    for count in settings["players"]:
        for kind, upper, lower in settings["pairings"]:
            family = PRIMARY if is_primary(kind, upper, settings) else EXPLORATORY
            comparisons.append(Comparison(pairing_id(count, upper, lower), family,
                                          WIN_SHARE.name))
        comparisons += [Comparison(contrast_id(count, upper, a, b), PRIMARY,
                                   WIN_RATE_CONTRAST.name)
                        for upper, a, b in yardstick_pairs(settings)]
        comparisons += [Comparison(strategy_contrast_id(count, strategy, first, yardstick),
                                   PRIMARY, WIN_RATE_CONTRAST.name)
                        for yardstick, strategy, first in strategy_pairs(settings)]
    primary = [c.id for c in comparisons if c.family == PRIMARY]
    if kinds_of(settings) == {"versus"}:
        note = ("Primary: every ladder strategy against each yardstick, and the paired contrasts "
                "of one yardstick against the next and of each ladder strategy against the "
                "first (a run against yardsticks is for all of them).")
    elif primary:
        note = (f"Primary: the challenger {settings['challenger']}'s targets, against "
                f"{BASELINE}, against the reference {settings['reference']} and against the "
                f"strategy below it, where the ladder holds them ({len(primary)}: "
                + "; ".join(primary) + "); exploratory: the other steps of the ladder and the "
                "ceiling against the reference.")
    else:
        note = (f"No primary comparison: the ladder holds none of the challenger "
                f"{settings['challenger']}'s targets (against {BASELINE}, against the "
                f"reference {settings['reference']} and against the strategy below it); every "
                "pairing is exploratory.")
    quantities = (WIN_SHARE,) + ((WIN_RATE_CONTRAST,) if any(
        c.quantity == WIN_RATE_CONTRAST.name for c in comparisons) else ())
    return ComparisonPlan(NAME, quantities, tuple(comparisons), note=note)


# ---------------------------------------------------------------------------
# The shard job (module level: importable on dask workers)
# ---------------------------------------------------------------------------
def strength_job(first_match: int, count: int, *, players: int, seat_strategies, seed: int,
                 max_rounds: int, pairing: int, seating: int, upper: str, lower: str,
                 field=None, threads: int | None = None, **run_options) -> pd.DataFrame:
    """Matches ``first_match ..`` of one seating of one pairing, one row per match.

    ``seat_strategies`` are the two specs, entity 0's first (with 4 players the
    partnerships); the upper strategy is entity ``seating``. ``run_options``
    go to :func:`sim.simulate` (``allow_hidden``, the run's sealing).

    Returns
    -------
    DataFrame
        ``players`` int8, ``pairing`` int16, ``seating`` int8, ``match`` int64,
        ``upper``, ``lower`` (names), ``winner`` int8 (entity, -1 unfinished),
        ``upper_won``, ``lower_won`` bool, ``rounds``, ``placements`` int32,
        ``upper_margin`` int32 (upper's final raw score minus lower's).
    """
    frame = simulate(players, list(seat_strategies), count, seed, threads=threads,
                     max_rounds=max_rounds, first_match=first_match,
                     field=None if field is None else list(field), **run_options)
    winner = frame["winner"].to_numpy()
    other = 1 - seating
    return pd.DataFrame({
        "players": np.full(len(frame), players, dtype=np.int8),
        "pairing": np.full(len(frame), pairing, dtype=np.int16),
        "seating": np.full(len(frame), seating, dtype=np.int8),
        "match": frame["match"].to_numpy(),
        "upper": upper,
        "lower": lower,
        "winner": winner,
        "upper_won": winner == seating,
        "lower_won": winner == other,
        "rounds": frame["rounds"].to_numpy(),
        "placements": frame["placements"].to_numpy(),
        "upper_margin": (frame[f"score_{seating}"].to_numpy(np.int32)
                         - frame[f"score_{other}"].to_numpy(np.int32)),
    })


def pairing_tasks(settings: dict, shard_size: int) -> list[tuple[dict, list[Task]]]:
    """Per (players, pairing), in table order: its labels and the shards of both seatings.

    Every task has the run's own seed and matches ``0 .. deals - 1``: the same
    deals in every seating and every pairing.
    """
    spec = dict(zip(settings["strategies"], settings["strategy_specs"]))
    groups, part = [], 0
    for count in settings["players"]:
        for pairing, (kind, upper, lower) in enumerate(settings["pairings"]):
            tasks = []
            for seating, sides in enumerate(((upper, lower), (lower, upper))):
                config = {"players": count, "seat_strategies": [spec[s] for s in sides],
                          "seed": settings["seed"], "max_rounds": settings["max_rounds"],
                          "pairing": pairing, "seating": seating, "upper": upper,
                          "lower": lower, "field": list(settings["strategy_specs"]),
                          **_run_options(settings)}
                tasks += [Task(shard, config) for shard in
                          plan(settings["deals"], shard_size, settings["seed"], part=part)]
                part += 1
            groups.append(({"players": count, "pairing": pairing, "kind": kind, "upper": upper,
                            "lower": lower}, tasks))
    return groups


def play_ladder(data, settings: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play every pairing on ``data``'s backend (a :class:`experiments.sources.DataRun`); one
    progress bar over all of them. Returns ``(matches, wall)``.

    With a directory the shards go to ``DIR/ladder`` under the manifest a
    :class:`~experiments.sources.DataRun` checks its sources with, so that
    the same call resumes and another run's shards are refused.
    """
    groups = pairing_tasks(settings, data.shard_size)
    store = None
    if data.directory is not None:
        manifest = {"kind": f"experiment-{SOURCE}", "settings": settings,
                    "shard_size": data.shard_size}
        store = ShardStore(data.directory / SOURCE, manifest).open()
        data.stores[SOURCE] = store  # removed by DataRun.finish once the output is written
    total = sum(task.shard.count for _, tasks in groups for task in tasks)
    if getattr(data.backend, "name", None) == "local":
        # load (or compile) the field's kernel first: the wall times are the pairings' own
        first = groups[0][1][0].config
        simulate(first["players"], first["seat_strategies"], WARM_UP_MATCHES, first["seed"],
                 max_rounds=first["max_rounds"], field=first["field"], **_run_options(settings))
    bar = progress_bar(total, data.progress, desc="ladder")
    frames, wall = [], []
    try:
        for labels, tasks in groups:
            started = time.perf_counter()
            run = run_shards(strength_job, tasks, backend=data.backend, store=store,
                             threads=data.threads, bar=bar)
            frames.append(run.frame())
            wall.append({**labels, "matches": sum(t.shard.count for t in tasks),
                         "shards": len(tasks), "resumed_shards": run.resumed,
                         "wall_seconds": time.perf_counter() - started})
    finally:
        bar.close()
        if store is not None:
            store.close()
    return pd.concat(frames, ignore_index=True), pd.DataFrame(wall)


# ---------------------------------------------------------------------------
# CPU cost
# ---------------------------------------------------------------------------
def time_strategies(settings: dict, progress: bool = False) -> pd.DataFrame:
    """CPU cost of every ladder strategy in self-play, one thread, in this process.

    For each strategy and player count: one untimed call of
    ``WARM_UP_MATCHES`` (loads or compiles the kernel), then
    :func:`time.process_time` around single-threaded :func:`sim.simulate`
    calls of ``timing_matches``, doubling, until ``MIN_TIMED_CPU`` seconds or
    ``MAX_TIMING_GROWTH`` x ``timing_matches`` matches. Not reproducible
    (it is a measurement); every other frame is.

    Returns
    -------
    DataFrame
        ``strategy``, ``players``, ``matches``, ``placements`` (every tile
        played, forced ones included), ``cpu_seconds``, ``cpu_ms_per_match``,
        ``cpu_us_per_placement``; empty when ``timing_matches`` is 0.
    """
    columns = ["strategy", "players", "matches", "placements", "cpu_seconds", "cpu_ms_per_match",
               "cpu_us_per_placement"]
    size = settings["timing_matches"]
    if not size:
        return pd.DataFrame(columns=columns)
    options = {"max_rounds": settings["max_rounds"], "threads": 1,
               "field": list(settings["strategy_specs"]), **_run_options(settings)}
    seed = settings["seed"]
    rows = []
    configurations = [(name, spec, count) for name, spec in
                      zip(settings["strategies"], settings["strategy_specs"])
                      for count in settings["players"]]
    with progress_bar(size * len(configurations), progress, desc="timing") as bar:
        for name, spec, count in configurations:
            seats = [spec, spec]
            simulate(count, seats, WARM_UP_MATCHES, seed, **options)
            matches = placements = 0
            cpu = 0.0
            batch = size
            while True:
                started = time.process_time()
                frame = simulate(count, seats, batch, seed, first_match=matches, **options)
                cpu += time.process_time() - started
                matches += batch
                placements += int(frame["placements"].sum())
                if matches == size:
                    bar.update(size)
                if cpu >= MIN_TIMED_CPU or matches + 2 * batch > MAX_TIMING_GROWTH * size:
                    break
                batch *= 2
            rows.append({"strategy": name, "players": count, "matches": matches,
                         "placements": placements, "cpu_seconds": cpu,
                         "cpu_ms_per_match": 1e3 * cpu / matches,
                         "cpu_us_per_placement": 1e6 * cpu / max(placements, 1)})
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------
def deal_outcomes(matches: pd.DataFrame, players: int, name: str, opponent: str) -> pd.Series:
    """Per deal: ``name``'s mean win over the two seatings of its pairing with ``opponent``.

    Returns
    -------
    Series of float64, index ``match`` (sorted)
        0, 0.5 or 1 per deal.

    Raises
    ------
    ValueError
        The pairing is not in ``matches``, or a deal lacks one of its two seatings.
    """
    same = ((matches["players"] == players)
            & (((matches["upper"] == name) & (matches["lower"] == opponent))
               | ((matches["upper"] == opponent) & (matches["lower"] == name))))
    rows = matches[same]
    if rows.empty:
        raise ValueError(f"no {name} vs {opponent} matches with {players} players")
    won = np.where(rows["upper"].to_numpy() == name, rows["upper_won"].to_numpy(),
                   rows["lower_won"].to_numpy()).astype(np.float64)
    grouped = pd.Series(won, index=rows["match"].to_numpy()).groupby(level=0, sort=True)
    if (grouped.size() != SEATINGS).any():
        raise ValueError(f"{name} vs {opponent}, {players} players: a deal lacks a seating")
    return grouped.mean()


def gap_share(matches: pd.DataFrame, players: int, challenger: str, reference: str,
              ceiling: str, seed: int = 0, resamples: int = DEFAULT_RESAMPLES) -> dict:
    """The share of the reference -> ceiling gap the challenger closes, with a paired bootstrap.

    ``share = (W_c - 0.5) / (W_k - 0.5)``, ``W_c`` the challenger's win rate
    against the reference and ``W_k`` the ceiling's, each the mean of its
    per-deal outcomes (:func:`deal_outcomes`). The 95% interval is the
    percentile interval of ``resamples`` bootstrap resamples of the deals,
    the same resampled deals for both pairings (their outcomes on one deal
    are correlated). Deterministic given ``seed``.

    Returns
    -------
    dict
        ``players, challenger, reference, ceiling, deals, w_challenger,
        w_ceiling, share, low, high, resamples``.

    Raises
    ------
    ValueError
        A pairing missing, or the two pairings not played on the same deals.
    """
    a = deal_outcomes(matches, players, challenger, reference)
    c = deal_outcomes(matches, players, ceiling, reference)
    if not a.index.equals(c.index):
        raise ValueError("the challenger's and the ceiling's pairings were not played on the "
                         "same deals")
    a, c = a.to_numpy(), c.to_numpy()
    w_a, w_c = float(a.mean()), float(c.mean())
    with np.errstate(divide="ignore", invalid="ignore"):
        share = (w_a - EVEN) / (w_c - EVEN) if w_c != EVEN else float("nan")
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), int(players), BOOTSTRAP_KEY]))
        draws = []
        for start in range(0, resamples, BOOTSTRAP_CHUNK):
            picks = rng.integers(0, a.size, size=(min(BOOTSTRAP_CHUNK, resamples - start), a.size))
            draws.append((a[picks].mean(axis=1) - EVEN) / (c[picks].mean(axis=1) - EVEN))
        shares = np.concatenate(draws)
    tail = 100 * (1 - CONFIDENCE) / 2
    # A resample whose ceiling is even gives +-inf (or nan for 0 / 0): "nearest" picks order
    # statistics without interpolating between infinities.
    defined = shares[~np.isnan(shares)]
    low, high = (np.percentile(defined, [tail, 100 - tail], method="nearest") if defined.size
                 else (float("nan"), float("nan")))
    return {"players": players, "challenger": challenger, "reference": reference,
            "ceiling": ceiling, "deals": int(a.size), "w_challenger": w_a, "w_ceiling": w_c,
            "share": float(share), "low": float(low), "high": float(high),
            "resamples": int(resamples)}


def ladder_table(matches: pd.DataFrame, settings: dict) -> pd.DataFrame:
    """One row per (players, pairing): the upper strategy's results (see the module docstring)."""
    rows = []
    for count in settings["players"]:
        for pairing, (kind, upper, lower) in enumerate(settings["pairings"]):
            sel = matches[(matches["players"] == count) & (matches["pairing"] == pairing)]
            per_deal = deal_outcomes(sel, count, upper, lower)
            _, low, high = paired_share_interval(per_deal.to_numpy())
            wins, n = int(sel["upper_won"].sum()), len(sel)
            wilson = proportion(wins, n)
            rows.append({
                "players": count, "pairing": pairing, "kind": kind, "upper": upper,
                "lower": lower, "deals": len(per_deal), "matches": n, "upper_wins": wins,
                "lower_wins": int(sel["lower_won"].sum()),
                "draws": int((sel["winner"] < 0).sum()),
                "win_rate": wins / n, "paired_low": low, "paired_high": high,
                "wilson_low": float(wilson["low"]), "wilson_high": float(wilson["high"]),
                "mean_rounds": float(sel["rounds"].mean()),
                "mean_margin": float(sel["upper_margin"].mean()),
            })
    return pd.DataFrame(rows)


def gap_table(matches: pd.DataFrame, settings: dict) -> pd.DataFrame:
    """Per player count, :func:`gap_share` (no rows when the challenger, the reference or the
    ceiling is not in the ladder)."""
    names = settings["strategies"]
    columns = ["players", "challenger", "reference", "ceiling", "deals", "w_challenger",
               "w_ceiling", "share", "low", "high", "resamples"]
    roles = (settings["challenger"], settings["reference"], settings["ceiling"])
    if not all(role in names for role in roles) or len(set(roles)) < len(roles):
        return pd.DataFrame(columns=columns)
    return pd.DataFrame([gap_share(matches, count, *roles, seed=settings["seed"],
                                   resamples=settings["resamples"])
                         for count in settings["players"]], columns=columns)


CONTRAST_COLUMNS = ["players", "upper", "yardstick_a", "yardstick_b", "deals", "difference",
                    "low", "high", "effect"]


def yardstick_contrasts(matches: pd.DataFrame, settings: dict) -> pd.DataFrame:
    """Per player count, ladder strategy and consecutive yardsticks ``A``, ``B``: the paired
    contrast of its per-deal win share against ``A`` minus against ``B`` (same deals).

    Returns
    -------
    DataFrame
        Columns :data:`CONTRAST_COLUMNS` (``difference``, ``low``, ``high``: float64 win-rate
        difference and its 95% Student-t interval over deals; ``effect``: Cohen's d); no rows
        without ``versus`` or with fewer than 2 yardsticks.
    """
    rows = []
    for count in settings["players"]:
        for upper, a, b in yardstick_pairs(settings):
            versus_a = deal_outcomes(matches, count, upper, a)
            versus_b = deal_outcomes(matches, count, upper, b)
            contrast = paired_contrast(versus_a.to_numpy(),
                                       versus_b.reindex(versus_a.index).to_numpy())
            rows.append({"players": count, "upper": upper, "yardstick_a": a,
                         "yardstick_b": b, "deals": contrast.units,
                         "difference": contrast.difference, "low": contrast.low,
                         "high": contrast.high, "effect": contrast.effect})
    return pd.DataFrame(rows, columns=CONTRAST_COLUMNS)


STRATEGY_CONTRAST_COLUMNS = ["players", "yardstick", "strategy", "first", "deals", "difference",
                             "low", "high", "effect"]


def strategy_contrasts(matches: pd.DataFrame, settings: dict) -> pd.DataFrame:
    """Per player count, yardstick and ladder strategy after the first: the paired contrast of
    its per-deal win share against the yardstick minus the first ladder strategy's (the same
    deals): how a variant compares with its baseline, ``--ladder 'pimc,pimc[worlds=64]'
    --versus matchplay``.

    Returns
    -------
    DataFrame
        Columns :data:`STRATEGY_CONTRAST_COLUMNS` (``first``: the ladder's first strategy that
        plays the yardstick; ``difference``, ``low``, ``high``: float64 win-rate difference and
        its 95% interval over deals, :func:`experiments.stats.paired_contrast`; ``effect``:
        Cohen's d); no rows without ``versus`` or with fewer than 2 strategies playing it.
    """
    rows = []
    for count in settings["players"]:
        for yardstick, upper, first in strategy_pairs(settings):
            baseline = deal_outcomes(matches, count, first, yardstick)
            other = deal_outcomes(matches, count, upper, yardstick)
            contrast = paired_contrast(other.to_numpy(), baseline.reindex(other.index).to_numpy())
            rows.append({"players": count, "yardstick": yardstick, "strategy": upper,
                         "first": first, "deals": contrast.units,
                         "difference": contrast.difference, "low": contrast.low,
                         "high": contrast.high, "effect": contrast.effect})
    return pd.DataFrame(rows, columns=STRATEGY_CONTRAST_COLUMNS)


COMPARISON_COLUMNS = ["id", "family", "quantity", "a", "b", "players", "estimate", "difference",
                      "low", "high", "units", "sesoi", "p", "p_adjusted", "adj_level", "adj_low",
                      "adj_high", "verdict", "words"]
"""The ``comparisons`` frame: one row per declared comparison (``estimate``: the upper
strategy's win share of a pairing, nan for a contrast)."""


def comparisons_table(matches: pd.DataFrame, frames: dict, settings: dict) -> pd.DataFrame:
    """Every comparison :func:`plan_for` declares, computed and adjusted as its family.

    A pairing's difference is the upper strategy's win share minus 1/2 with the Student-t
    interval of its per-deal means (deal = unit, not clipped); a contrast's is the paired
    difference of its ``contrasts`` or ``strategy_contrasts`` row. Adjusted by
    :meth:`experiments.comparisons.ComparisonPlan.adjust` (units: deals) and worded by the
    adjusted interval (``words``).

    Returns
    -------
    DataFrame
        Columns :data:`COMPARISON_COLUMNS`, in the plan's order of computation.
    """
    rows = []
    for row in frames["ladder"].itertuples(index=False):
        sel = matches[(matches["players"] == row.players) & (matches["pairing"] == row.pairing)]
        mean, low, high = mean_interval(deal_outcomes(sel, row.players, row.upper,
                                                      row.lower).to_numpy())
        rows.append({"id": pairing_id(row.players, row.upper, row.lower), "a": row.upper,
                     "b": row.lower, "players": row.players, "estimate": mean,
                     "difference": mean - EVEN, "low": low - EVEN, "high": high - EVEN,
                     "units": row.deals})
    for row in frames.get("contrasts", pd.DataFrame(columns=CONTRAST_COLUMNS)).itertuples():
        rows.append({"id": contrast_id(row.players, row.upper, row.yardstick_a, row.yardstick_b),
                     "a": f"{row.upper} vs {row.yardstick_a}",
                     "b": f"{row.upper} vs {row.yardstick_b}", "players": row.players,
                     "estimate": np.nan, "difference": row.difference, "low": row.low,
                     "high": row.high, "units": row.deals})
    for row in frames.get("strategy_contrasts",
                          pd.DataFrame(columns=STRATEGY_CONTRAST_COLUMNS)).itertuples():
        rows.append({"id": strategy_contrast_id(row.players, row.strategy, row.first,
                                                row.yardstick),
                     "a": f"{row.strategy} vs {row.yardstick}",
                     "b": f"{row.first} vs {row.yardstick}", "players": row.players,
                     "estimate": np.nan, "difference": row.difference, "low": row.low,
                     "high": row.high, "units": row.deals})
    frame = pd.DataFrame(rows, columns=["id", "a", "b", "players", "estimate", "difference",
                                        "low", "high", "units"])
    adjusted = plan_for(settings).adjust(frame, units="units")
    # a share lies in [0, 1] and a difference of two in [-1, 1]: a t interval may pass the ends
    bound = np.where(adjusted["quantity"] == WIN_SHARE.name, EVEN, 1.0)
    for column in ("low", "high", "adj_low", "adj_high"):
        adjusted[column] = np.clip(adjusted[column].to_numpy(dtype=np.float64), -bound, bound)
    adjusted["words"] = [comparison_words(r) for r in adjusted.itertuples(index=False)]
    return adjusted[COMPARISON_COLUMNS]


def comparison_words(row) -> str:
    """A :func:`comparisons_table` row as a sentence, worded by its adjusted interval
    (:func:`experiments.comparisons.adjusted_words`): a pairing with its win share first."""
    if row.quantity == WIN_SHARE.name:
        share = fmt_ci(row.estimate, row.low + EVEN, row.high + EVEN, pct=True)
        return (f"{row.players}p: {row.a} vs {row.b}, {share} of matches; "
                + adjusted_words(row, row.a, row.b, WIN_SHARE.words, pct=True,
                                 head=f"{row.a} vs {row.b}"))
    return f"{row.players}p: " + adjusted_words(row, row.a, row.b, WIN_RATE_CONTRAST.words,
                                                pct=True)


COMPARISONS_EXPLAINED = (
    "A pairing's difference is the upper strategy's match win share minus 1/2 (chance for two "
    "sides); a contrast's is one match win rate minus another on the same deals (a positive "
    "yardstick contrast: the second yardstick is the harder one; a positive strategy contrast: "
    "the later strategy does better against that yardstick). Each is given with its adjusted "
    "interval (Student t over deals at the level of its family's procedure), and called a "
    "finding only where that interval excludes 0.")


def analyse(matches: pd.DataFrame, timing: pd.DataFrame, settings: dict,
            wall: pd.DataFrame | None = None) -> ExperimentResult:
    """The ladder's frames, figure and summary from its match rows (:func:`strength_job`
    frames of every pairing) and the timing pass (:func:`time_strategies`)."""
    frames = {"ladder": ladder_table(matches, settings), "gap": gap_table(matches, settings),
              "timing": timing.reset_index(drop=True)}
    if "versus" in kinds_of(settings):
        frames["contrasts"] = yardstick_contrasts(matches, settings)
        compared = strategy_contrasts(matches, settings)
        if not compared.empty:  # a run of one strategy against its yardsticks compares none
            frames["strategy_contrasts"] = compared
    frames["comparisons"] = comparisons_table(matches, frames, settings)
    if wall is not None:
        frames["wall"] = wall
    frames["matches"] = matches
    plots = {"ladder": lambda path: plot_ladder(frames["ladder"], settings, path)}
    key = _key_numbers(frames)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


def run(*args, **options) -> ExperimentResult:
    """Play the strength ladder, time its strategies, and summarise: ``run(spec)`` with the
    :class:`experiments.run_spine.StudySpec` of :func:`study_spec` (the command line builds one), or
    ``run(ladder, players, deals, seed, **options)`` with the arguments of :func:`study_spec`,
    checked once there.

    Returns
    -------
    ExperimentResult
        Frames ``ladder``, ``gap``, ``timing``, ``wall``, ``matches`` (and ``contrasts`` with
        ``versus``, ``strategy_contrasts`` when two or more ladder strategies play a
        yardstick); plot ``ladder``.
    """
    spec = given_spec(NAME, args, options) or study_spec(*args, **options)
    return run_experiment(spec, compute)


def study_spec(ladder=DEFAULT_LADDER, players=DEFAULT_PLAYERS, deals: int = DEFAULT_DEALS,
               seed: int = 0, *, challenger: str = DEFAULT_CHALLENGER,
               reference: str = DEFAULT_REFERENCE, ceiling: str = DEFAULT_CEILING,
               timing_matches: int = DEFAULT_TIMING_MATCHES, max_rounds: int = DEFAULT_MAX_ROUNDS,
               allow_hidden: bool = False, resamples: int = DEFAULT_RESAMPLES, versus=None,
               sealed: bool = False, secret: str | None = None,
               decision_timeout: float | None = None, matched_compute: dict | None = None,
               **scale) -> StudySpec:
    """The checked spec of a strength run (ValueError, one line): its settings
    (:func:`strength_settings`), its strategies and its scale options.

    Parameters
    ----------
    ladder : str or sequence of str and Strategy
        The strategies, weakest first (specs as :func:`experiments.studies.overshoot.run`
        takes them; a comma-separated string too), distinct names.
    players : sequence of int or str
        Player counts: 2 and/or 4 (partnerships).
    deals : int
        Deals per pairing; each is played with both seatings (``2 * deals`` matches).
    seed : int
        The seed of every pairing (the same deals everywhere).
    challenger, reference, ceiling : str
        Names in the ladder (see :func:`ladder_pairings`); a role outside the
        ladder drops its pairings, and the gap share needs all three.
    timing_matches : int
        Self-play matches per timing (0: no timing pass).
    max_rounds : int
        Ruling 15: a match still running after this many rounds is a draw.
    allow_hidden : bool
        Let strategies that see hidden information play (passed to the
        engine only when True).
    resamples : int
        Bootstrap resamples of the gap share.
    versus : str or sequence, optional
        Yardstick strategies (added to the field): every other strategy plays
        each of them, instead of the ladder's pairings (:func:`versus_pairings`).
    sealed, secret, decision_timeout
        The run's sealing, as :func:`experiments.studies.overshoot.run`: every pairing and the
        timing pass play with it (a sealed Python strategy is timed in its own process).
    matched_compute : dict, optional
        A previous run's calibration of its ``openspiel:ismcts[sims=0]`` yardsticks (its
        ``run.json``'s ``matched_compute``), reused instead of measured (a resumed run).
    **scale
        ``threads``, ``progress``, ``out``, ``backend``, ``shard_size``, ``keep_shards``: as
        :meth:`experiments.run_spine.StudySpec.build` (``shard_size``: matches per shard of one
        seating, default :data:`SHARD_SIZE`); the timing pass always runs in this process on
        one thread.


    Returns
    -------
    experiments.run_spine.StudySpec
    """
    resolved = resolve_field(ladder, "ladder")
    settings = strength_settings(resolved, players, deals, seed, challenger=challenger,
                                 reference=reference, ceiling=ceiling,
                                 timing_matches=timing_matches, max_rounds=max_rounds,
                                 allow_hidden=allow_hidden, resamples=resamples,
                                 versus=versus, sealed=sealed, secret=secret,
                                 decision_timeout=decision_timeout,
                                 matched_compute=matched_compute)
    return StudySpec(settings, tuple(resolved),
                     ScaleOptions.build(default_shard_size=SHARD_SIZE, **scale),
                     plan=plan_for(settings))


def compute(data) -> ExperimentResult:
    """The ladder's result from a run's data (:class:`experiments.sources.DataRun`): its
    pairings played on the data's backend, then the timing pass in this process."""
    matches, wall = play_ladder(data, data.settings)
    timing = time_strategies(data.settings, progress=data.progress)
    return analyse(matches, timing, data.settings, wall)


# ---------------------------------------------------------------------------
# Figure and summary
# ---------------------------------------------------------------------------
KIND_LEGENDS = (("step", "o", "ladder step"), ("versus", "D", "against a yardstick"))
"""Marker and legend of the pairings of a kind; every other kind is a challenger or ceiling."""
ROW_INCHES = 0.17
"""Height of one pairing's row in ``ladder.png`` (per line of its label)."""
FRAME_INCHES = 1.0
"""Height of ``ladder.png`` besides its rows: titles, the x axis, the legend and the footer."""
LEGEND_GREY = "0.3"
"""The kinds' legend markers: a grey that is no strategy's colour (colour is the strategy)."""
WRAP_AT = 24
"""Characters of a pairing's label before its opponent goes on a line of its own."""


def _label(upper: str, lower: str) -> str:
    # a long pair of names on two lines: the panels keep their width
    text = f"{upper} vs {lower}"
    return text if len(text) <= WRAP_AT else f"{upper}\nvs {lower}"


@figures.house_style()
def plot_ladder(ladder: pd.DataFrame, settings: dict, path) -> None:
    """The upper strategy's win share of each pairing with its paired 95% interval (a forest
    plot: one row per pairing, one panel per player count, page width); colour: the upper
    strategy, marker: the pairing's kind; the dashed line is an even match (1/2)."""
    counts = list(dict.fromkeys(ladder["players"]))
    pairs = [(upper, lower) for _, upper, lower in settings["pairings"]]
    labels = [_label(upper, lower) for upper, lower in pairs]
    # rows are evenly spaced: each as tall as the longest label
    lines = max(label.count("\n") + 1 for label in labels) * max(len(labels), 3)
    fig, axes = new_figure(1, len(counts), width="page", height=FRAME_INCHES + ROW_INCHES * lines,
                           sharey=True, squeeze=False)
    low_all = np.nanmin(np.append(ladder["paired_low"].to_numpy(dtype=float), EVEN))
    high_all = np.nanmax(np.append(ladder["paired_high"].to_numpy(dtype=float), EVEN))
    pad = 0.04 * max(high_all - low_all, 0.1)
    markers = {kind: marker for kind, marker, _ in kind_markers(ladder["kind"])}
    for ax, count in zip(axes[0], counts):
        sel = ladder[ladder["players"] == count].set_index(["upper", "lower"])
        for y, (upper, lower) in enumerate(pairs):
            row = sel.loc[(upper, lower)]
            estimates(ax, [row.win_rate], [y], [row.paired_low], [row.paired_high],
                      color=strategy_colour(upper), marker=markers[row.kind], horizontal=True)
        reference_line(ax, EVEN, axis="x")
        ax.set_xlim(max(low_all, 0.0) - pad, min(high_all, 1.0) + pad)
        ax.xaxis.set_major_formatter(lambda value, _: f"{100 * value:.0f}%")
        ax.set_xlabel("upper strategy's match win share")
        ax.set_title(f"{count} players" + (" (partnerships)" if count == 4 else ""))
        ax.grid(axis="y", visible=False)
    axes[0][0].set_yticks(range(len(pairs)), labels)
    axes[0][0].set_ylim(len(pairs) - 0.5, -0.5)  # the first pairing at the top
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=LEGEND_GREY, marker=marker, linestyle="none", label=text)
               for _, marker, text in kind_markers(ladder["kind"])]
    if len(handles) > 1:
        fig.legend(handles=handles, loc="outside upper center", ncol=len(handles))
    stamp(fig, run_footer(settings, f"{settings['deals']:,} duplicate deals per pairing, each in "
                                     f"both seatings; bars: paired 95% t intervals (deal = unit)"))
    save_png(fig, path)


def kind_markers(kinds) -> list[tuple[str, str, str]]:
    """``(kind, marker, legend text)`` of every kind present in ``kinds`` (str array): those of
    :data:`KIND_LEGENDS`, then ``challenger`` (squares) and ``ceiling`` (triangles)."""
    present = set(kinds)
    known = [(k, m, t) for k, m, t in KIND_LEGENDS if k in present]
    listed = {k for k, _, _ in KIND_LEGENDS}
    return known + [(k, m, k) for k, m in (("challenger", "s"), ("ceiling", "^"))
                    if k in present and k not in listed]


def title_of(settings: dict) -> str:
    """The run's title: ``"Strength ladder"``, or for a run against yardsticks (``versus``)
    ``"OpenSpiel bots against the ladder"`` when every yardstick is an OpenSpiel bot and
    ``"Strategies against yardsticks"`` otherwise."""
    if kinds_of(settings) != {"versus"}:
        return "Strength ladder"
    yardsticks = {lower for _, _, lower in settings["pairings"]}
    if all(name.startswith("openspiel.") for name in yardsticks):
        return "OpenSpiel bots against the ladder"
    return "Strategies against yardsticks"


def ladder_caption(frames: dict, settings: dict) -> str:
    """``ladder.png``'s caption (:func:`experiments.reporting.reports.figure_caption`); its finding
    counts the pairings by the verdict of their adjusted interval (``comparisons``)."""
    ladder = frames["ladder"]
    compared = frames["comparisons"]
    pairings = compared[compared["quantity"] == WIN_SHARE.name]
    found = pairings["verdict"] == VERDICTS.finding
    above = int((found & (pairings["difference"] > 0)).sum())
    below = int((found & (pairings["difference"] < 0)).sum())
    even = int((pairings["verdict"] == VERDICTS.equivalent).sum())
    across = len(pairings) - above - below - even
    by_marker = {}
    for _, marker, text in kind_markers(ladder["kind"]):
        by_marker.setdefault(marker, []).append(text)
    marks = ", ".join(f"{marker_name(m)}: {' or '.join(t)}" for m, t in by_marker.items())
    return figure_caption(
        "ladder",
        ("the upper strategy's match win share in each pairing, one panel per player count "
         f"(colour: the upper strategy; {marks}; dashed line: an even match, 50%)"),
        (f"{settings['deals']:,} duplicate deals per pairing, each in both seatings "
         f"({settings['matches']:,} matches), seed {settings['seed']}"),
        "bars: marginal 95% Student-t intervals of the per-deal means (deal = unit), clipped "
        "to [0, 1]",
        (f"with each family adjusted (Holm for the primary pairings, Benjamini-Hochberg for the "
         f"rest), the upper strategy wins more than half in {above} of {len(pairings)} "
         f"pairings, less in {below}, {even} are even within the smallest effect of interest "
         f"and {across} show no detectable difference from 50%"))


MARKER_NAMES = {"o": "circles", "D": "diamonds", "s": "squares", "^": "triangles"}


def marker_name(marker: str) -> str:
    """The word for a marker in a caption (``"o"`` -> ``"circles"``)."""
    return MARKER_NAMES.get(marker, marker)


def kinds_of(settings: dict) -> set[str]:
    """The kinds of the run's pairings (``step``, ``challenger``, ``ceiling``, ``versus``)."""
    return {kind for kind, _, _ in settings["pairings"]}


def _key_numbers(frames: dict) -> dict:
    key = {}
    compared = frames["comparisons"].set_index("id")
    for row in frames["ladder"].itertuples(index=False):
        adjusted = compared.loc[pairing_id(row.players, row.upper, row.lower)]
        share = fmt_ci(row.win_rate, row.paired_low, row.paired_high, pct=True)
        wide = fmt_ci(row.win_rate, EVEN + adjusted.adj_low, EVEN + adjusted.adj_high, pct=True)
        key[f"{row.players}p: {row.upper} vs {row.lower}"] = (
            f"{share}; {adjusted.family}, {PROCEDURES[adjusted.family]}-adjusted "
            f"{100 * adjusted.adj_level:.5g}%: {wide.split(' ', 1)[1]}, "
            f"{VERDICT_TEXT[adjusted.verdict]}")
    for row in frames["gap"].itertuples(index=False):
        key[f"{row.players}p: share of the {row.reference} -> {row.ceiling} gap closed by "
            f"{row.challenger}"] = fmt_ci(row.share, row.low, row.high, 3)
    return key


README_VERDICTS = {VERDICTS.finding: "finding",
                   VERDICTS.equivalent: f"even within {100 * WIN_SHARE.sesoi:g} pp",
                   VERDICTS.inconclusive: "no detectable difference"}
"""A pairing's verdict in README's ladder table."""
VERDICT_TEXT = {VERDICTS.finding: "a finding (excludes 1/2)",
                VERDICTS.equivalent: "an even match within the smallest effect of interest",
                VERDICTS.inconclusive: "no detectable difference from an even match"}
"""A pairing's verdict in its key number."""


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    s = settings
    lines = summary_head(
        title_of(s), s,
        f"Each pairing plays {s['deals']:,} deals, each with both seatings (the upper strategy "
        "at seat 0 or, with 4 players, its partnership at seats 0,2; then at 1 or 1,3), on the "
        "same seed and match indices in every pairing. `win rate` = the upper strategy's wins "
        "over all matches (a match stopped unfinished by max_rounds "
        f"= {s['max_rounds']} is a draw, won by nobody); `paired` = 95% Student-t interval of "
        "the per-deal means (deal = the unit; clipped to [0, 1]); `wilson` = the interval if the "
        "matches were independent.", lead="Duplicate deals") + ["", "## Key numbers", ""]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    ladder = frames["ladder"]
    show_draws = bool((ladder["draws"] > 0).any())
    for count in s["players"]:
        sel = ladder[ladder["players"] == count]
        table = pd.DataFrame({
            "upper": sel["upper"], "lower": sel["lower"], "kind": sel["kind"],
            "matches": sel["matches"],
            "win rate [paired 95%]": [fmt_ci(r.win_rate, r.paired_low, r.paired_high, pct=True)
                                      for r in sel.itertuples()],
            "wilson 95%": [f"[{100 * r.wilson_low:.1f}, {100 * r.wilson_high:.1f}]"
                           for r in sel.itertuples()],
            **({"draws": sel["draws"]} if show_draws else {}),
            "mean rounds": sel["mean_rounds"], "mean margin (raw)": sel["mean_margin"],
        })
        title = f"{count} players" + (" (partnerships)" if count == 4 else "")
        section = "The ladder" if kinds_of(s) != {"versus"} else "Against each yardstick"
        lines += ["", f"## {section}, {title}", "", md_table(table, 2)]
    compared = frames["comparisons"]
    plan = plan_for(s)
    lines += ["", "## Comparisons (declared before the run)", "", plan_sentence(plan, compared),
              plan.note, "", COMPARISONS_EXPLAINED]
    for family, heading in ((PRIMARY, "Primary"), (EXPLORATORY, "Exploratory")):
        chosen = compared[compared["family"] == family]
        if not chosen.empty:
            lines += ["", f"### {heading}", ""]
            lines += [f"- {words}." for words in chosen["words"]]
    gap = frames["gap"]
    # the section only when the run has the three roles (a run against yardsticks has none)
    if not gap.empty:
        lines += ["", "## Closing the gap", ""]
        lines += [("`share` = (W(challenger vs reference) - 0.5) / (W(ceiling vs reference) - "
                   f"0.5); 95% percentile interval of {s['resamples']:,} paired bootstrap "
                   "resamples of the deals."), ""]
        lines.append(md_table(pd.DataFrame({
            "players": gap["players"], "challenger": gap["challenger"],
            "reference": gap["reference"], "ceiling": gap["ceiling"], "deals": gap["deals"],
            "W(challenger)": gap["w_challenger"], "W(ceiling)": gap["w_ceiling"],
            "share [95%]": [fmt_ci(r.share, r.low, r.high, 3) for r in gap.itertuples()]}), 4))
    lines += compute_lines(s, frames["timing"])
    lines += ["", "## CPU cost (self-play, one thread, after a warm-up call)", ""]
    timing = frames["timing"]
    if timing.empty:
        lines.append("No timing pass (timing_matches = 0).")
    else:
        lines += [("Measured with `time.process_time`; not reproducible (a measurement). Fast "
                   f"strategies are timed on more matches (until {MIN_TIMED_CPU} CPU s)."), ""]
        lines.append(md_table(pd.DataFrame({
            "strategy": timing["strategy"], "players": timing["players"],
            "matches": timing["matches"], "CPU ms / match": timing["cpu_ms_per_match"],
            "CPU us / placement (all placements, forced included)":
                timing["cpu_us_per_placement"]}), 3))
    if "wall" in frames:
        wall = frames["wall"]
        lines += ["", "## Wall time of this run", "",
                  md_table(wall[["players", "upper", "lower", "matches", "resumed_shards",
                                 "wall_seconds"]], 2)]
    lines += ["", "## Figure", "", ladder_caption(frames, s), ""]
    return "\n".join(lines)


def compute_lines(settings: dict, timing: pd.DataFrame) -> list[str]:
    """The summary's section on matched compute (a run with calibrated ISMCTS yardsticks,
    ``settings["matched_compute"]``): each yardstick's simulation count, and its CPU per
    placement over its opponent's, at calibration and in this run's timing pass."""
    matched = settings.get("matched_compute")
    if not matched:
        return []
    lines = ["", "## Compute: the yardsticks calibrated to the ladder", "",
             ("Each `sims=0` yardstick's simulation count was calibrated before the run: its "
              "CPU per placement (self-play, one thread, at 2 and at 8 simulations, a straight "
              "line through them) against the ladder strategy's (self-play, one thread), the "
              "count whose CPU matches, at least 2 (the fewest OpenSpiel's ISMCTS runs with); "
              "recorded in `run.json` (`matched_compute`). A ratio above 1: even that minimum "
              "costs more CPU per placement than the strategy it faces, so the yardstick plays "
              "with more compute than matched, never less."), ""]
    cost = {} if timing.empty else dict(zip(timing["strategy"], timing["cpu_us_per_placement"]))
    for given, record in matched.items():
        name = resolve_field(record["spec"], "versus")[0].name
        run_ratio = (f"; in this run's timing pass {cost[name] / cost[record['against']]:.1f}x"
                     if name in cost and record["against"] in cost else "")
        lines.append(
            f"- `{given}` -> `{name}`: {record['sims']} simulations; at calibration "
            f"{record['us_per_simulation']:,.0f} us of CPU per simulation, "
            f"{record['cpu_ratio']:.1f}x {record['against']}'s "
            f"{record['target_us_per_placement']:,.1f} us per placement{run_ratio}.")
    return lines


# ---------------------------------------------------------------------------
# README's ladder
# ---------------------------------------------------------------------------
def readme_ladder(ladder: pd.DataFrame, timing: pd.DataFrame, gap: pd.DataFrame,
                  comparisons: pd.DataFrame | None = None) -> str:
    """README's ladder table from a result's ``ladder``, ``timing``, ``gap`` and (where it has
    one) ``comparisons`` frames.

    One row per pairing: the upper strategy's win rate in percent with its
    paired 95% interval for each player count, and beside it the verdict of its interval
    adjusted as its family (``comparisons``); then the CPU cost of each
    strategy of the ladder and the gap share. Nothing in it is typed by hand.
    """
    counts = sorted(ladder["players"].unique())
    labels = {2: "2 players", 4: "4 players (partnerships)"}
    verdicts = {} if comparisons is None else comparisons.set_index("id")

    def pct(value: float) -> str:
        return f"{100 * value:.1f}"

    def verdict(count: int, upper: str, lower: str) -> str:
        row = verdicts.loc[pairing_id(count, upper, lower)]
        procedure = "Holm" if row.family == PRIMARY else "BH"
        return f"{README_VERDICTS[row.verdict]} ({row.family}, {procedure})"

    adjusted = comparisons is not None
    heads = [labels.get(p, f"{p} players") + (" | adjusted" if adjusted else "") for p in counts]
    lines = ["| pairing | kind | " + " | ".join(heads) + " |",
             "|---|---|" + ("---|---|" if adjusted else "---|") * len(counts)]
    for (upper, lower, kind), rows in ladder.groupby(["upper", "lower", "kind"], sort=False):
        cells = []
        for count in counts:
            row = rows[rows["players"] == count].iloc[0]
            cells.append(f"{pct(row.win_rate)}% [{pct(row.paired_low)}, {pct(row.paired_high)}]"
                         + (f" | {verdict(count, upper, lower)}" if adjusted else ""))
        lines.append(f"| {upper} vs {lower} | {kind} | " + " | ".join(cells) + " |")
    lines += ["", "| strategy | " + " | ".join(f"{p}p CPU ms / match | {p}p CPU us / placement"
                                              for p in counts) + " |",
              "|---|" + "---|---|" * len(counts)]
    for name in timing["strategy"].drop_duplicates():
        cells = []
        for count in counts:
            row = timing[(timing["strategy"] == name) & (timing["players"] == count)].iloc[0]
            cells.append(f"{row.cpu_ms_per_match:.2f} | {row.cpu_us_per_placement:.1f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    for row in gap.itertuples(index=False):
        lines.append(f"- {row.players} players: {row.challenger} closes {row.share:.3f} "
                     f"[{row.low:.3f}, {row.high:.3f}] of the {row.reference} -> {row.ceiling} gap "
                     f"(W = {pct(row.w_challenger)}% vs {pct(row.w_ceiling)}% against {row.reference}).")
    return "\n".join(lines)
