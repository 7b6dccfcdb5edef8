"""``five-up strength``: duplicate-deal matches up a ladder of strategies, and their CPU cost.

The options are checked once (:func:`experiments.tools.strength.strength_settings`,
which also has the engine check every pairing: a strategy that sees hidden
information without ``--allow-hidden`` is refused here with the engine's one
line), the output directory is claimed, and the ladder runs on the chosen
backend; finished shards are kept in ``OUT/shards`` so that the same command
resumes after a crash.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli import options
from cli.arguments import EXIT_OK, Command, add_backend_arguments, backend_options, usage_error
from cli.failures import run_on_backend
from cli.options import Switch, Text
from cli.result_lines import print_key_numbers
from cli.sealing import add_seal_arguments, seal_options
from experiments.reporting.reports import md_table
from experiments.run_spine import claim_run, execute
from experiments.sources import SHARDS_DIR
from experiments.tools import strength
from sim.files import MANIFEST_NAME
from sim.scale.store import MANIFEST_NAME as SHARD_MANIFEST
from strategies.catalogue import resolve_field


def add_arguments(parser) -> None:
    default_ladder = ",".join(strength.DEFAULT_LADDER)
    options.add(parser, (
        Text("--ladder", "A,B,C,...",
             options.strategies_help("the ladder, weakest first, comma-separated, "
                                     f"distinct names (default {default_ladder})."),
             default=default_ladder),
        Text("--players", "N[,N]",
             "player counts: 2 (one strategy against another) and/or 4 (partnerships, seats 0,2 "
             "against 1,3); default 2,4", default="2,4"),
        Text("--deals", "N",
             "deals per pairing, each played with both seatings on the same seed and match "
             f"indices: 2N matches (default {strength.DEFAULT_DEALS})",
             default=str(strength.DEFAULT_DEALS)),
        Text("--challenger", "NAME",
             "played against greedy and against --reference; pairings naming a strategy outside "
             f"the ladder are skipped (default {strength.DEFAULT_CHALLENGER})",
             default=strength.DEFAULT_CHALLENGER),
        Text("--reference", "NAME",
             f"the reference of the gap share (default {strength.DEFAULT_REFERENCE})",
             default=strength.DEFAULT_REFERENCE),
        Text("--ceiling", "NAME",
             "played against --reference; the gap share is (W(challenger vs reference) - 0.5) / "
             f"(W(ceiling vs reference) - 0.5) (default {strength.DEFAULT_CEILING})",
             default=strength.DEFAULT_CEILING),
        Text("--versus", "Y[,Y...]",
             "yardstick strategies (added to the field): every ladder strategy plays each of "
             "them instead of the ladder's pairings, e.g. --ladder rollout,matchplay --versus "
             "'openspiel:ismcts[sims=100]'; to compare variants with a baseline, put the "
             "baseline first: --ladder 'pimc,pimc[worlds=64]' --versus matchplay (default: the "
             "ladder's pairings). 'openspiel:ismcts[sims=0,...]' asks for matched compute: its "
             "simulation count is calibrated before the run so that its CPU per placement "
             "matches the ladder strategy's (self-play, one thread; at least 2) and recorded "
             "in run.json (matched_compute); a resumed run reuses it"),
        Text("--seed", "S",
             "the seed of every pairing, 0 .. 2**63-1 (default 0): every pairing plays the same "
             "deals", default="0"),
        options.MAX_ROUNDS, options.THREADS,
        Text("--timing-matches", "M",
             "self-play matches per strategy and player count in the CPU timing pass, one "
             "thread, after a warm-up call; fast strategies are timed on more (0 skips the pass; "
             f"default {strength.DEFAULT_TIMING_MATCHES})",
             default=str(strength.DEFAULT_TIMING_MATCHES)),
        Text("--resamples", "B",
             "paired bootstrap resamples of the deals for the gap share's interval (default "
             f"{strength.DEFAULT_RESAMPLES})", default=str(strength.DEFAULT_RESAMPLES)),
        Switch("--allow-hidden",
               "let strategies that see hidden information (the cheater, an audit strategy) "
               "play; without it the engine refuses them"),
        options.RUN_DIRECTORY, options.QUIET,
    ))
    add_backend_arguments(parser, summary_only=False, shard_size=strength.SHARD_SIZE,
                          shard_unit="matches (of one seating)")
    add_seal_arguments(parser)


def recorded_calibration(out: Path) -> dict | None:
    """The ``matched_compute`` an earlier run into ``out`` recorded (its ``run.json``), or
    None."""
    try:
        return json.loads((out / "run.json").read_text()).get("matched_compute")
    except (OSError, ValueError, AttributeError):
        return None


def run_strength_command(args) -> int:
    """Handler of ``five-up strength``; returns the exit status."""
    shards = Path(args.out) / SHARDS_DIR
    try:
        scale = backend_options(args, default_shard_size=strength.SHARD_SIZE)
        ladder = resolve_field(args.ladder, "--ladder")  # once: the run gets the objects
        ladder_options = {"challenger": args.challenger, "reference": args.reference,
                          "ceiling": args.ceiling, "timing_matches": args.timing_matches,
                          "max_rounds": args.max_rounds, "allow_hidden": args.allow_hidden,
                          "resamples": args.resamples, "versus": args.versus,
                          # checked once (a sealed run's secret drawn here, for every pairing);
                          # a sealed run resumed without --secret keeps the secret it recorded
                          **seal_options(args, Path(args.out) / MANIFEST_NAME,
                                         shards / strength.SOURCE / SHARD_MANIFEST)}
        # a resumed run keeps the simulation counts it calibrated (its run.json)
        ladder_options["matched_compute"] = recorded_calibration(Path(args.out))
        spec = strength.study_spec(ladder, args.players, args.deals, args.seed, **ladder_options,
                                   threads=args.threads, progress=not args.quiet, out=args.out,
                                   shard_size=scale["shard_size"],
                                   keep_shards=scale["keep_shards"])
        claim_run(spec)  # the one claim of the run, before a cluster starts
    except ValueError as exc:
        return usage_error(exc)
    status, result, elapsed = run_on_backend(
        scale, lambda backend: execute(spec.on(backend), strength.compute),
        shards=shards, out=args.out)
    if status != EXIT_OK:
        return status
    settings = spec.settings
    sealed = f", sealed, secret {settings['secret']}" if settings.get("sealed") else ""
    print(f"strength: {len(settings['pairings'])} pairings x players "
          f"{','.join(map(str, settings['players']))} x {settings['matches']:,} matches "
          f"({settings['deals']:,} deals, both seatings), seed {settings['seed']}{sealed}: "
          f"{elapsed:.1f} s")
    print_key_numbers(result.key_numbers)
    if not result.frames["timing"].empty:
        print()
        print(md_table(result.frames["timing"][["strategy", "players", "matches",
                                                "cpu_ms_per_match", "cpu_us_per_placement"]], 3))
    print(f"\nwrote {len(result.files)} files to {args.out}")
    return EXIT_OK


STRENGTH = Command(
    "Play duplicate-deal matches up a ladder of strategies (weakest first): every adjacent "
    "pair (upper vs lower), the challenger against greedy and against the reference, and the "
    "ceiling against the reference (or, with --versus, every ladder strategy against each "
    "yardstick), with 2 players and with 4 (partnerships). Each pairing "
    "plays --deals deals, each with both seatings on the same seed and match indices. Writes "
    "into --out: ladder (the upper strategy's win rate with its paired 95% interval, deal = "
    "unit; draws, mean rounds), gap (the share of the reference -> ceiling gap closed by the "
    "challenger, paired bootstrap 95% interval), timing (CPU per match and per placement of "
    "each strategy, self-play, one thread), wall, matches (parquet and CSV), comparisons (every "
    "comparison declared in plan.json before the first match -- the challenger's targets "
    "primary, the other pairings exploratory; with --versus all primary -- adjusted as its "
    "family, Holm or Benjamini-Hochberg), ladder.png and summary.md; with --versus also contrasts (each strategy's win rate against one yardstick "
    "minus against the next) and, with two or more ladder strategies, strategy_contrasts "
    "(each strategy's win rate against a yardstick minus the first ladder strategy's), paired "
    "by deal with 95% intervals. Finished shards are kept in DIR/shards while it runs: after a "
    "crash the same command resumes from them.",
    add_arguments, run_strength_command)
