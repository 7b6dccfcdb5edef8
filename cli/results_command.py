"""``five-up results``: regenerate every committed result and README's generated numbers."""

from __future__ import annotations

import sys
from pathlib import Path

from cli import options
from cli.arguments import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, Command, one_line, usage_error
from cli.options import Switch, Text
from experiments.release import results


def add_arguments(parser) -> None:
    options.add(parser, (
        Text("--out", "DIR",
             "results directory (default docs/results); each result goes into DIR/NAME, replaced "
             "only when its command succeeds", default="docs/results"),
        Text("--only", "NAME[,NAME..]",
             "regenerate only these results (default: all, in order): "
             + ", ".join(result.name for result in results.RESULTS)),
        Text("--size", "SIZE",
             "full (default): the committed sizes, about an hour on 2 cores; small: a test size, "
             "which ships no table", default="full"),
        Switch("--force",
               "also rerun the results whose manifest records this code and this command (by "
               "default they are kept)"),
        Text("--readme", "PATH",
             "rewrite this README's generated blocks from DIR afterwards (default: README.md "
             "when DIR is docs/results, else none)"),
        Text("--notebooks", "DIR",
             "then execute the notebooks of DIR at full size, reading the results of --out, and "
             "save them with their outputs (default: notebooks/ when --out is docs/results at "
             "full size; 'none' skips them); with --only, only the notebooks that read one of "
             "those results (run without --only to execute them all: current results are kept)"),
        Text("--replicate", "K",
             "then measure each result's primary comparisons (its comparisons.csv) again on K "
             "fresh seeds: the command run K more times with seeds derived from the result's "
             "name and seed, in DIR/.staging (resumable), committing only DIR/NAME/"
             "replication.csv (each seed's estimate, the pooled estimate, Cochran's Q, I^2, a "
             "flag where the seeds disagree beyond chance), a section of its summary and the "
             "seeds in its manifest. Default 3 when DIR is docs/results at full size, so that "
             "a regenerated committed result keeps its replication (it takes K times the "
             "result's own time; 0 skips it, keeping a replication still current); else 0. "
             "Results without primary comparisons are not replicated"),
        Switch("--quiet", "no progress bars and no command output: one line per result"),
    ))


def run_results_command(args) -> int:
    """Handler of ``five-up results``; returns the exit status."""
    committed = Path(args.out).resolve() == Path("docs/results").resolve()
    readme = args.readme
    if readme is None and committed:
        readme = "README.md"
    notebooks = args.notebooks
    if notebooks is None and committed and args.size == "full":
        notebooks = "notebooks"
    if notebooks == "none":
        notebooks = None
    replicate = args.replicate
    if replicate is None:
        replicate = "3" if committed and args.size == "full" else "0"
    try:
        replicates = results.check_replicates(replicate)
        results.choose(args.only)
        results.check_size(args.size)
        if readme is not None and not Path(readme).is_file():
            raise ValueError(f"--readme {readme}: no such file")
        if notebooks is not None and not Path(notebooks).is_dir():
            raise ValueError(f"--notebooks {notebooks}: no such directory")
        if notebooks is not None and args.size != "full":
            raise ValueError("--notebooks runs the notebooks at full size: only with --size full")
    except ValueError as exc:
        return usage_error(exc)
    try:
        done = results.regenerate_all(args.out, only=args.only, size=args.size, force=args.force,
                                      quiet=args.quiet,
                                      readme=None if readme is None else Path(readme),
                                      notebooks=None if notebooks is None else Path(notebooks),
                                      replicates=replicates)
    except (RuntimeError, OSError, ValueError) as exc:
        print(f"five-up: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("five-up: interrupted; the finished results are committed, the interrupted one "
              "resumes from its staging directory when run again", file=sys.stderr)
        return EXIT_INTERRUPTED
    total = sum(record["wall_seconds"] for record in done)
    print(f"{len(done)} result(s) regenerated in {total / 60:.1f} min")
    return EXIT_OK


RESULTS = Command(
    "Regenerate every committed result (docs/results) with the five-up command that makes it,\n"
    "each run in its own process into DIR/.staging/NAME; when it succeeds, its small outputs\n"
    "(not the per-row parquet frames) replace DIR/NAME at once, beside manifest.json: the code\n"
    "commit, the command, the seed and sample size, the wall time and the machine. A failed or\n"
    "interrupted result leaves DIR/NAME as it was and resumes from its shards when run again;\n"
    "a result whose manifest records this code and command is kept (--force reruns it).\n"
    "Tables that strategies import are shipped first (winprob -> strategies/winprob_table.npz).\n"
    "With --replicate K, each result's primary comparisons are then measured again on K fresh\n"
    "seeds (replication.csv; the results index flags seeds that disagree beyond chance).\n"
    "Then README's generated blocks (<!-- NAME:start --> ... <!-- NAME:end -->) are rewritten\n"
    "from the new outputs, DIR/README.md indexes every result from its manifest, and the\n"
    "notebooks are executed at full size (they read the committed results) and saved with\n"
    "their outputs.",
    add_arguments, run_results_command, raw_description=True)
"""The ``five-up results`` subcommand."""
