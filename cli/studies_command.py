"""``five-up overshoot | settlement | openings | seats | lengths``: the research studies.

Each subcommand checks its options once (the study's settings), claims the
output directory, runs the study on the chosen backend and writes its frames
(parquet and CSV), plots and ``summary.md`` into ``--out``. While it runs, the
finished shards are kept in ``OUT/shards``; after a crash, Ctrl-C or a lost
cluster, the same command resumes from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from cli import options
from cli.arguments import EXIT_OK, Command, add_backend_arguments, backend_options, usage_error
from cli.failures import run_on_backend
from cli.options import Text
from cli.result_lines import print_key_numbers
from cli.sealing import add_seal_arguments, seal_options
from experiments.run_spine import StudySpec, claim_run, execute, study_scale
from experiments.sources import DEFAULT_SHARD_SIZE, SHARDS_DIR
from experiments.studies import lengths, opening_leads, overshoot, seats, settlement
from sim.files import MANIFEST_NAME
from sim.scale.store import MANIFEST_NAME as SHARD_MANIFEST
from strategies.catalogue import resolve_field

DEFAULT_STRATEGIES = "greedy,random"
"""Strategies studied when ``--strategies`` is not given."""


@dataclass(frozen=True)
class Study:
    """One study's subcommand: what it computes from a run's data, its default size and its
    help."""

    name: str
    compute: Callable
    matches_default: int
    description: str
    plan_for: Callable | None = None


STUDIES = (
    Study("overshoot", overshoot.compute, overshoot.DEFAULT_MATCHES,
          "Overshoot risk under the exact-61 rule, per strategy (self-play) and player count:\n"
          "the probability that a score event is discarded as a function of its entity's\n"
          "displayed score before it (0..60), the turns and rounds the winner spent within 10\n"
          "points of 61, how often the entity first within 5 points of 61 lost, and raw points\n"
          "discarded per match and per event at risk (an event whose entity some event could\n"
          "take past 61: exposure taken out). Comparisons are declared before the run\n"
          "(plan.json: primary, the first --table's discards per event at risk; the rest\n"
          "exploratory) and adjusted as families (comparisons.csv, worded by the adjusted\n"
          "interval: a finding, equivalent within the smallest effect of interest, or no\n"
          "detectable difference). Writes by_score, paths, zone_turns, comparisons (parquet and\n"
          "CSV), discard_probability.png, zone_turns.png and summary.md into --out; with\n"
          "--table also head_to_head.png. --strong adds slow strong strategies (rollout,\n"
          "matchplay) at --strong-matches.", overshoot.plan_for),
    Study("settlement", settlement.compute, settlement.DEFAULT_MATCHES,
          "Settlement value, per strategy (self-play) and player count: distributions of the\n"
          "domino event's parts (final placement, credit, debit, net) and of blocked credits,\n"
          "the share of accepted points that comes from settlement, how often rounds end\n"
          "blocked, and what the partner debit does in 4-player play (shares net of the\n"
          "partner debit and gross). With --table, the tables' strategies compared A - B on the\n"
          "same deals, declared before the run (plan.json: primary, the first --table's net\n"
          "settlement share) and adjusted as families (comparisons.csv). Writes domino_parts,\n"
          "parts_hist, blocked, points, partner_debit (parquet and CSV), domino_parts.png,\n"
          "point_sources.png and summary.md into --out; with --table also comparisons and\n"
          "head_to_head.png. --strong adds slow strong strategies at --strong-matches.",
          settlement.plan_for),
    Study("openings", opening_leads.compute, opening_leads.DEFAULT_MATCHES,
          "Openings: for each of the 28 tiles as the match's first opening (and as any round's\n"
          "opening), the leader's mean round point differential and match win rate with 95%\n"
          "intervals, per strategy (self-play) and player count; and a counterfactual study:\n"
          "sampled leader hands, each tile forced as the opening and the round played out many\n"
          "times with a fixed strategy, giving the best opening per hand and how much it beats\n"
          "the tile the baseline strategy opens with, valued by round points and by match-win\n"
          "probability at several score states. Writes tiles, cf_tiles, cf_hands, cf_summary,\n"
          "cf_values, cf_gain (parquet and CSV), opening_tiles.png, counterfactual.png,\n"
          "state_values.png, gain_playouts.png and summary.md."),
    Study("seats", seats.compute, seats.DEFAULT_MATCHES,
          "Seats: the first lot's effect within a strategy (its side's match win when it won\n"
          "the lot minus when it lost it, on the same deals), match win rates by seat clockwise\n"
          "from the first leader against chance (1/n; seat effects with 3 and 4 players), by\n"
          "absolute seat (a check), and who wins each round relative to its leader, per\n"
          "strategy (self-play) and player count, with 95% intervals; with --table each\n"
          "strategy's lot effect in the table (the rotations put it on both sides of every\n"
          "lot) and, apart, the strategies' strength (match win share A - B). Comparisons are\n"
          "declared before the run (plan.json: primary, the reference strategy's self-play lot\n"
          "effect per player count) and adjusted as families (comparisons.csv). Writes\n"
          "first_lot, positions, absolute_seats, round_positions, comparisons (parquet and\n"
          "CSV), seats.png and summary.md into --out (with --table also head_to_head and\n"
          "head_to_head.png).", seats.plan_for),
    Study("lengths", lengths.compute, lengths.DEFAULT_MATCHES,
          "Match length and score paths, per strategy (self-play) and player count: rounds per\n"
          "match (mean with a 95% interval, p10, median, p90, the share lasting 10+ rounds),\n"
          "placements and turns per match, the displayed score of the eventual winner and of\n"
          "the losers after each of the first 20 rounds (mean and 10-90% band; a match that\n"
          "ended is carried at its final score; finished matches only), and the winner's lead\n"
          "over the best loser per round against chance (1/n), and each strategy's rounds per\n"
          "match against greedy's on the same deals (paired). Comparisons are declared before\n"
          "the run (plan.json: primary, each strong strategy's rounds per match minus greedy's)\n"
          "and adjusted as families (comparisons.csv). Writes lengths, rounds_hist,\n"
          "trajectories, gaps, comparisons (parquet and CSV), rounds_per_match.png,\n"
          "score_paths.png, score_gap.png and summary.md into --out (with --table also\n"
          "head_to_head.png: each table's rounds per match against greedy's self-play).",
          lengths.plan_for),
)


def add_study_arguments(study: Study, parser) -> None:
    """The options of one study's subcommand."""
    options.add(parser, (
        options.PLAYER_COUNTS,
        Text("--strategies", "A[,B..]",
             options.strategies_help("strategies, each studied in self-play at every "
                                     f"seat (default {DEFAULT_STRATEGIES})."),
             default=DEFAULT_STRATEGIES),
        Text("--matches", "M",
             f"matches per (strategy, players) configuration (default {study.matches_default})",
             default=str(study.matches_default)),
        Text("--seed", "S",
             "master seed, 0 .. 2**63-1 (default 0); the same seed gives the same frames",
             default="0"),
        options.RUN_DIRECTORY, options.THREADS, options.QUIET,
    ))
    if study.name in TABLE_STUDIES:
        add_table_arguments(parser)
    if study.name in STRONG_STUDIES:
        add_strong_arguments(parser)
    if study.name == "openings":
        add_openings_arguments(parser)
    add_backend_arguments(parser, summary_only=False, shard_size=DEFAULT_SHARD_SIZE,
                          shard_unit="matches (of one configuration)")
    add_seal_arguments(parser)
    parser.set_defaults(study=study)


TABLE_STUDIES = ("overshoot", "settlement", "seats", "openings", "lengths")
"""The studies that play mixed tables besides self-play (``--table``)."""


def add_table_arguments(parser) -> None:
    """``--table`` (repeatable) and ``--table-matches``: mixed tables besides self-play."""
    parser.add_argument(
        "--table", action="append", default=None, metavar="A,B[,C]",
        help="a mixed table besides self-play, one strategy per entity, comma-separated "
             "(repeat the option for several tables, e.g. --table exact,greedy --table "
             "rollout,greedy; strategies named as in --strategies, self-played or not). Two "
             "names A,B: A against B at 2 players, partnership A (seats 0, 2) against "
             "partnership B at 4, one A against two Bs at 3; three names A,B,C: a 3-player "
             "table (3 must be among --players). Each table is played in every rotation of its "
             "strategies over the entities (each strategy at every seat) on the same deals "
             "(duplicate deals), and reported per strategy (rows with table 'A vs B'), with a "
             "mixed-tables section in summary.md and, except for openings, head_to_head.png")
    parser.add_argument("--table-matches", default=None, metavar="M",
                        help="matches per rotation of each --table (default --matches)")


STRONG_STUDIES = ("overshoot", "settlement", "seats", "lengths")
"""The studies that self-play slow strong strategies at their own match count (``--strong``)."""


def add_strong_arguments(parser) -> None:
    """``--strong`` and ``--strong-matches``: slow strong strategies in self-play, fewer matches."""
    options.add(parser, (
        Text("--strong", "A[,B..]",
             options.strategies_help("strong (slow) strategies, each studied in "
                                     "self-play at every seat like --strategies but at "
                                     "--strong-matches matches per configuration (e.g. "
                                     "rollout,matchplay).")),
        Text("--strong-matches", "M",
             "matches per (strong strategy, players) configuration (default --matches)"),
    ))


def add_openings_arguments(parser) -> None:
    """The options of the openings study's counterfactual: forced opening tiles played out."""
    default_states = ",".join(opening_leads.state_label(state)
                              for state in opening_leads.DEFAULT_SCORE_STATES)
    options.add(parser, (
        Text("--hands", "H",
             "sampled leader hands per player count for the counterfactual (0 skips it; default "
             "300)", default="300"),
        Text("--playouts", "K",
             "playouts per (hand, forced tile), at least 2 (default 100)", default="100"),
        Text("--playout-strategy", "SPEC",
             "strategy at every seat in the playouts (default greedy; a compiled strategy, named "
             "as in --strategies)", default="greedy"),
        Text("--baseline", "SPEC",
             "strategy whose opening the best one is compared with (default greedy; named as in "
             "--strategies)", default="greedy"),
        Text("--score-states", "A-B[,A-B..]",
             "displayed scores (leader's side-every other side, 0..60) the counterfactual rounds "
             f"start from; 0-0 is always included (default {default_states}). The other states "
             "run in this process (not sharded or resumed); match-win values need the shipped "
             "table: 2 and 4 players", default=default_states),
        Text("--strong-continuations", "A[,B..]",
             "strong strategies that also play the forced openings out at 0-0, on hands // 50 "
             "of the hands and playouts // 10 of the playouts (default "
             f"{','.join(opening_leads.STRONG_CONTINUATIONS)}; none: only --playout-strategy)",
             default=",".join(opening_leads.STRONG_CONTINUATIONS)),
        Text("--table-replicates", "R",
             "the shipped win table's replicate tables every match-win figure is computed "
             "again under: their spread, the table's own error, joins every match-win interval "
             f"and rank interval (default {opening_leads.DEFAULT_TABLE_REPLICATES}, at most the "
             "number shipped; 0: none, the intervals then leave the table's error out)",
             default=str(opening_leads.DEFAULT_TABLE_REPLICATES)),
    ))


def study_command(study: Study) -> Command:
    """The ``five-up`` subcommand of ``study``."""
    return Command(study.description,
                   lambda parser: add_study_arguments(study, parser), run_study_command,
                   raw_description=True, epilog=SHARDS_EPILOG)


SHARDS_EPILOG = ("While it runs, finished shards are kept in DIR/shards; after a crash or a kill "
                 "the\nsame command resumes from them. They are removed once the output is written.")


def study_spec(study: Study, args, scale: dict) -> StudySpec:
    """The study's spec, checked once (ValueError, one line): its settings from the options, its
    scale options from ``scale`` (:func:`cli.arguments.backend_options`)."""
    resolved = resolve_field(args.strategies)  # once: the spec holds the objects
    scale_options = study_scale(threads=args.threads, progress=not args.quiet, out=args.out,
                                shard_size=scale["shard_size"], keep_shards=scale["keep_shards"])
    # Checked once, a sealed run's secret drawn here for every source and shard; a sealed run
    # resumed without --secret keeps the secret its run.json or shard manifests recorded.
    out = Path(args.out)
    seal = seal_options(args, out / MANIFEST_NAME,
                        *sorted((out / SHARDS_DIR).glob(f"*/{SHARD_MANIFEST}")))
    if study.name == "openings":
        playout = opening_leads.one_strategy(args.playout_strategy, "playout_strategy")
        base = opening_leads.one_strategy(args.baseline, "baseline")
        spec = opening_leads.study_spec(args.players, resolved, args.matches, args.seed, args.hands,
                                   args.playouts, playout, base, score_states=args.score_states,
                                   tables=args.table, table_matches=args.table_matches,
                                   table_replicates=args.table_replicates,
                                   strong_continuations=opening_leads.parse_continuations(
                                       args.strong_continuations), **seal)
    else:
        tables = ({"tables": args.table, "table_matches": args.table_matches}
                  if study.name in TABLE_STUDIES else {})
        strong = ({"strong": args.strong, "strong_matches": args.strong_matches}
                  if study.name in STRONG_STUDIES else {})
        spec = StudySpec.build(study.name, args.players, resolved, args.matches, args.seed,
                               **tables, **strong, **seal)
        if study.plan_for is not None:
            spec = replace(spec, plan=study.plan_for(spec.settings))
    return replace(spec, scale=scale_options)


def run_study_command(args) -> int:
    """Handler of every study's subcommand; returns the exit status."""
    try:
        scale = backend_options(args, default_shard_size=DEFAULT_SHARD_SIZE)
        spec = study_spec(args.study, args, scale)
        claim_run(spec)  # the one claim of the run, before a cluster starts
    except ValueError as exc:
        return usage_error(exc)
    status, result, elapsed = run_on_backend(
        scale, lambda backend: execute(spec.on(backend), args.study.compute),
        shards=Path(args.out) / SHARDS_DIR, out=args.out)
    if status != EXIT_OK:
        return status
    settings = spec.settings
    sealed = f" (sealed, secret {settings['secret']})" if settings.get("sealed") else ""
    print(f"{result.name}{sealed}: {elapsed:.1f} s; wrote {len(result.files)} files to {args.out}")
    print_key_numbers(result.key_numbers)
    return EXIT_OK


OVERSHOOT, SETTLEMENT, OPENINGS, SEATS, LENGTHS = (study_command(study) for study in STUDIES)
"""One ``five-up`` subcommand per study."""
