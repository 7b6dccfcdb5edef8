"""``five-up tune``: CMA-ES over a strategy's parameters on duplicate deals, held-out validation,
and the shipped table of the tuned variant (``weighted_tuned``)."""

from __future__ import annotations

import sys
from dataclasses import replace

from cli import options
from cli.arguments import EXIT_OK, Command, check_output_file, usage_error
from cli.failures import run_reporting_failures
from cli.options import Text
from cli.result_lines import print_key_numbers, print_shipped
from experiments.run_spine import claim_run
from experiments.tools import tune


def add_arguments(parser) -> None:
    options.add(parser, (
        Text("--strategy", "SPEC",
             "the compiled strategy whose float parameters are tuned, starting from its defaults "
             f"(default {tune.DEFAULT_STRATEGY}: its 13 weights w_<feature>; see five-up "
             "strategies)", default=tune.DEFAULT_STRATEGY),
        Text("--against", "A[,B..]",
             options.strategies_help("the opponents of the fitness, each with its "
                                     "default parameters: a candidate's fitness is its "
                                     "mean win rate against them (default "
                                     f"{tune.DEFAULT_AGAINST})."),
             default=tune.DEFAULT_AGAINST),
        Text("--validate-against", "A[,B..]",
             "baselines of the held-out validation: the tuned and the default vector each play "
             "every one of them (default: the --against strategies), e.g. weighted,rollout"),
        Text("--players", "N",
             "2 (one seat against another) or 4 (partnerships, seats 0,2 vs 1,3); default "
             f"{tune.DEFAULT_PLAYERS}", default=str(tune.DEFAULT_PLAYERS)),
        Text("--seed", "S",
             "master seed of the tuning, 0 .. 2**63-1: each generation's deals (a seed derived "
             f"from S and the generation) and CMA-ES's own draws (default {tune.DEFAULT_SEED}); "
             "the same seeds give the same result", default=str(tune.DEFAULT_SEED)),
        Text("--validation-seed", "V",
             "seed of the held-out deals (matches 0.. of seed V, the deals a five-up strength "
             "--seed V pairing plays); must differ from every generation's seed (default "
             f"{tune.DEFAULT_VALIDATION_SEED})", default=str(tune.DEFAULT_VALIDATION_SEED)),
        Text("--deals", "N",
             "duplicate deals per candidate per generation, each played in both seatings against "
             "every --against strategy; every candidate of a generation plays the same deals "
             f"(common random numbers), each generation new ones (default {tune.DEFAULT_DEALS})",
             default=str(tune.DEFAULT_DEALS)),
        Text("--generations", "G",
             f"CMA-ES generations (default {tune.DEFAULT_GENERATIONS})",
             default=str(tune.DEFAULT_GENERATIONS)),
        Text("--population", "P",
             "candidates per generation (default CMA-ES's 4 + floor(3 ln n), 11 for weighted's "
             "13 parameters); the CMA mean is evaluated beside them on the same deals for the "
             "history"),
        Text("--sigma", "X",
             "initial CMA-ES step size in the scaled space x = theta / scale, scale = |default| "
             f"per parameter (1 where the default is 0); default {tune.DEFAULT_SIGMA}",
             default=str(tune.DEFAULT_SIGMA)),
        Text("--pick", "WHICH",
             "the vector validated and written: mean (CMA's final distribution mean, never "
             "selected on in-sample noise) or best (the candidate of highest in-sample fitness); "
             f"default {tune.DEFAULT_PICK}", default=tune.DEFAULT_PICK),
        Text("--validation-deals", "N",
             f"held-out duplicate deals per baseline (default {tune.DEFAULT_VALIDATION_DEALS}); "
             "win rates with paired 95%% intervals, deal = unit",
             default=str(tune.DEFAULT_VALIDATION_DEALS)),
        options.MAX_ROUNDS, options.THREADS,
        replace(options.RUN_DIRECTORY,
                help=f"{options.RUN_DIRECTORY.help}: best.json, history.csv, candidates.csv, "
                     "validation.csv, vector.csv, fitness.png, summary.md, run.json"),
        Text("--ship", "PATH",
             f"also write the tuned vector as a table module ({tune.TABLE_MODULE} format; "
             "strategies.weighted enters that file's vector as the named variant weighted_tuned)"),
        options.QUIET,
    ))


def run_tune_command(args) -> int:
    """Handler of ``five-up tune``; returns the exit status."""
    try:
        spec = tune.study_spec(args.strategy, args.against, args.players, args.seed,
                               args.validation_seed, args.deals, args.generations,
                               args.population, args.sigma, args.pick, args.validation_deals,
                               args.validate_against, args.max_rounds, threads=args.threads,
                               progress=not args.quiet, out=args.out)
        if args.ship is not None:
            check_output_file(args.ship, (".py",))
        claim_run(spec)  # the one claim of the run
    except ValueError as exc:
        return usage_error(exc)
    settings = spec.settings
    command = tune.command_for(settings, args.out, args.ship)
    status, result = run_reporting_failures(
        lambda: tune.tune_and_ship(spec, args.ship, command), out=args.out)
    if status != EXIT_OK:
        return status
    print(f"tune: {settings['generations']} generations x {settings['population']} candidates x "
          f"{settings['deals']:,} duplicate deals, {tune.matches_per_run(settings):,} matches: "
          f"{result.wall_seconds:.1f} s", file=sys.stdout)
    print(f"  picked ({settings['pick']}): {result.best['spec']}")
    print_key_numbers(result.key_numbers)
    print(f"wrote {len(result.files)} files to {args.out}")
    print_shipped(args.ship, command)
    return EXIT_OK


TUNE = Command(
    "Tune a strategy's float parameters with CMA-ES (the cma package) on duplicate deals. "
    "The search runs in a scaled space (x = theta / scale, scale = |default| per parameter, 1 "
    "where the default is 0), starting from the strategy's defaults. A candidate's fitness is "
    "its win rate against the --against strategies on --deals duplicate deals (each deal in "
    "both seatings; every candidate of a generation on the same deals, new deals each "
    "generation). At the end the picked vector (--pick) and the default vector play every "
    "--validate-against baseline on --validation-deals fresh deals of --validation-seed: win "
    "rates with paired 95% intervals (deal = unit) and the paired gain. Writes best.json "
    "(parameter -> value, the spec string), history.csv, candidates.csv, validation.csv, "
    "vector.csv, fitness.png, summary.md and run.json into --out; with --ship also the table "
    "module of the named variant weighted_tuned. The same seeds give the same result.",
    add_arguments, run_tune_command)
"""The ``five-up tune`` subcommand."""
