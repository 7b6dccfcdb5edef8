"""``five-up tune``: CMA-ES over a strategy's parameters on duplicate deals, held-out validation,
and the shipped table of the tuned variant (``weighted_tuned``)."""

from __future__ import annotations

import sys

from cli.arguments import (
    EXIT_OK,
    Command,
    add_round_and_thread_arguments,
    check_output_file,
    strategies_help,
    usage_error,
)
from cli.failures import run_reporting_failures
from cli.result_lines import print_key_numbers, print_shipped
from experiments.run_spine import claim_run
from experiments.tools import tune


def add_arguments(parser) -> None:
    parser.add_argument("--strategy", default=tune.DEFAULT_STRATEGY, metavar="SPEC",
                        help="the compiled strategy whose float parameters are tuned, starting "
                             f"from its defaults (default {tune.DEFAULT_STRATEGY}: its 13 "
                             "weights w_<feature>; see five-up strategies)")
    parser.add_argument("--against", default=tune.DEFAULT_AGAINST, metavar="A[,B..]",
                        help=strategies_help(
                            "the opponents of the fitness, each with its default parameters: "
                            "a candidate's fitness is its mean win rate against them "
                            f"(default {tune.DEFAULT_AGAINST})."))
    parser.add_argument("--validate-against", default=None, metavar="A[,B..]",
                        help="baselines of the held-out validation: the tuned and the default "
                             "vector each play every one of them (default: the --against "
                             "strategies), e.g. weighted,rollout")
    parser.add_argument("--players", default=str(tune.DEFAULT_PLAYERS), metavar="N",
                        help="2 (one seat against another) or 4 (partnerships, seats 0,2 vs "
                             f"1,3); default {tune.DEFAULT_PLAYERS}")
    parser.add_argument("--seed", default=str(tune.DEFAULT_SEED), metavar="S",
                        help="master seed of the tuning, 0 .. 2**63-1: each generation's deals "
                             "(a seed derived from S and the generation) and CMA-ES's own draws "
                             f"(default {tune.DEFAULT_SEED}); the same seeds give the same result")
    parser.add_argument("--validation-seed", default=str(tune.DEFAULT_VALIDATION_SEED),
                        metavar="V",
                        help="seed of the held-out deals (matches 0.. of seed V, the deals a "
                             "five-up strength --seed V pairing plays); must differ from every "
                             f"generation's seed (default {tune.DEFAULT_VALIDATION_SEED})")
    parser.add_argument("--deals", default=str(tune.DEFAULT_DEALS), metavar="N",
                        help="duplicate deals per candidate per generation, each played in both "
                             "seatings against every --against strategy; every candidate of a "
                             "generation plays the same deals (common random numbers), each "
                             f"generation new ones (default {tune.DEFAULT_DEALS})")
    parser.add_argument("--generations", default=str(tune.DEFAULT_GENERATIONS), metavar="G",
                        help=f"CMA-ES generations (default {tune.DEFAULT_GENERATIONS})")
    parser.add_argument("--population", default=None, metavar="P",
                        help="candidates per generation (default CMA-ES's 4 + floor(3 ln n), "
                             "11 for weighted's 13 parameters); the CMA mean is evaluated "
                             "beside them on the same deals for the history")
    parser.add_argument("--sigma", default=str(tune.DEFAULT_SIGMA), metavar="X",
                        help="initial CMA-ES step size in the scaled space x = theta / scale, "
                             "scale = |default| per parameter (1 where the default is 0); "
                             f"default {tune.DEFAULT_SIGMA}")
    parser.add_argument("--pick", default=tune.DEFAULT_PICK, metavar="WHICH",
                        help="the vector validated and written: mean (CMA's final distribution "
                             "mean, never selected on in-sample noise) or best (the candidate "
                             "of highest in-sample fitness); default "
                             f"{tune.DEFAULT_PICK}")
    parser.add_argument("--validation-deals", default=str(tune.DEFAULT_VALIDATION_DEALS),
                        metavar="N",
                        help="held-out duplicate deals per baseline (default "
                             f"{tune.DEFAULT_VALIDATION_DEALS}); win rates with paired 95%% "
                             "intervals, deal = unit")
    add_round_and_thread_arguments(parser)
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory (created; refused if it holds a different run): "
                             "best.json, history.csv, candidates.csv, validation.csv, "
                             "vector.csv, fitness.png, summary.md, run.json")
    parser.add_argument("--ship", default=None, metavar="PATH",
                        help="also write the tuned vector as a table module "
                             f"({tune.TABLE_MODULE} format; strategies.weighted enters that "
                             "file's vector as the named variant weighted_tuned)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


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
