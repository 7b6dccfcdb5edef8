"""``five-up simulate`` and ``five-up record``: the engine's own commands.

``simulate`` runs in shards (:mod:`sim.scale`). Output layout for ``--out FILE``:

``FILE.parts/``
    The shard store (:class:`sim.scale.store.ShardStore`): ``manifest.json``
    and one file per finished shard. Kept after a crash, a kill or an error,
    so that re-running the same command resumes; removed once ``FILE`` is
    written (unless ``--keep-shards``). Another configuration with the same
    ``--out`` is refused while it exists.
``FILE`` (``.parquet``/``.pq``)
    The match frame, identical to an unsharded run.
``FILE`` (``.json``/``.csv``, ``--summary-only``)
    The summary: JSON holds the configuration, the merged aggregate (win
    counts, sums and sums of squares, histograms) and the table; CSV holds the
    table (:func:`experiments.stats.summary_table`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from cli import options
from cli.arguments import (
    EXIT_OK,
    Command,
    add_backend_arguments,
    backend_options,
    check_output_file,
    usage_error,
)
from cli.failures import run_failed, run_on_backend, strategy_failure
from cli.options import Switch, Text
from cli.sealing import add_seal_arguments, seal_options
from experiments.stats import summary_table
from sim.engine.batch import prepare
from sim.engine.compiled import CompiledRun
from sim.engine.runs import record
from sim.engine.spec import RunSpec, hidden_run_options
from sim.files import atomic_write
from sim.records import write_records
from sim.scale.aggregates import match_aggregate
from sim.scale.runner import run_shards
from sim.scale.simulate import simulate_job, simulate_manifest
from sim.scale.store import MANIFEST_NAME as SHARD_MANIFEST, ShardError, ShardStore
from sim.wording import counted


def add_simulate_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser, "FILE.parquet")
    add_backend_arguments(parser)


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser, "FILE.jsonl")


def add_run_arguments(parser: argparse.ArgumentParser, out_metavar: str) -> None:
    """The options of one engine run (checked by :class:`sim.engine.spec.RunSpec`) and ``--out``."""
    options.add(parser, (
        Text("--players", "N", "2, 3 or 4", required=True),
        Text("--strategies", "A,B[,..]",
             options.strategies_help("strategy per seat, comma-separated; with 4 "
                                     "players two strategies are the partnerships "
                                     "(seats 0,2 and 1,3)."),
             required=True),
        Text("--matches", "M", "number of matches (> 0)", required=True),
        Text("--seed", "S", "master seed, 0 .. 2**63-1", required=True),
        options.MAX_ROUNDS, options.THREADS,
        Text("--first-match", "F", "index of the first match (default 0)", default="0"),
        Switch("--allow-hidden",
               "allow an audit strategy that sees every hand and the boneyard order (cheater); "
               "refused without this flag"),
        Text("--out", out_metavar, "output file", required=True),
    ))
    add_seal_arguments(parser)


def run_spec(args, *manifests) -> RunSpec:
    """The :class:`RunSpec` of the run options (ValueError, one line, on bad input); a sealed run
    resumed without ``--secret`` takes its secret from the first of ``manifests`` holding one."""
    return RunSpec.build(args.players, args.strategies, args.matches, args.seed,
                         max_rounds=args.max_rounds, first_match=args.first_match,
                         threads=args.threads, **hidden_run_options(args.allow_hidden),
                         **seal_options(args, *manifests))


def compile_first(spec: RunSpec, local: bool = True) -> float:
    """Compile the run's engine before its matches (a strategy that does not compile is bad input,
    reported before anything runs); return the seconds it took. On another backend the workers
    compile their own: only the user's strategies are typed here."""
    run = CompiledRun(spec)
    if local:
        return prepare(run)
    run.slots()
    return 0.0


def timing(elapsed: float, compiled: float, matches: int) -> str:
    """``"S s, N matches/s"``, with the compile time apart when there was one."""
    rate = f"{matches / max(elapsed, 1e-9):,.0f} matches/s"
    if compiled >= 0.05:
        return f"{elapsed:.2f} s (compile {compiled:.1f} s before), {rate}"
    return f"{elapsed:.2f} s, {rate}"


# ---------------------------------------------------------------------------
# five-up simulate
# ---------------------------------------------------------------------------
def parts_directory(out: str) -> Path:
    """The shard store of ``--out FILE``: ``FILE.parts``."""
    return Path(str(out) + ".parts")


def run_simulate(args) -> int:
    """Handler of ``five-up simulate``; returns the exit status."""
    try:
        scale = backend_options(args)
        summary_only = scale["summary_only"]
        out = check_output_file(args.out, (".json", ".csv") if summary_only else (".parquet", ".pq"))
        spec = run_spec(args, parts_directory(out) / SHARD_MANIFEST)
        manifest, tasks = simulate_manifest(spec, scale["shard_size"],
                                            **hidden_run_options(args.allow_hidden))
        store = ShardStore(parts_directory(out), manifest, "summary" if summary_only else "frames")
        store.check()
        compiled = compile_first(spec, local=scale["backend"] == "local")
    except ValueError as exc:
        return usage_error(exc)

    def work(backend):
        try:
            store.open()
        except ShardError:
            raise
        except OSError as exc:
            raise ShardError(f"cannot create {store.directory}: {exc.strerror or exc}") from None
        try:
            return run_shards(simulate_job, tasks, backend=backend, store=store,
                              aggregate=match_aggregate if summary_only else None,
                              threads=spec.threads, progress=True)
        finally:
            store.close()

    status, run, elapsed = run_on_backend(scale, work, shards=store.directory)
    if status != EXIT_OK:
        return status
    try:
        if summary_only:
            text = _write_summary(run.aggregate, manifest, out)
        else:
            frame = run.frame()
            atomic_write(out, lambda p: frame.to_parquet(p, engine="pyarrow", index=False))
            text = _summary(frame, spec, out, timing(elapsed, compiled, len(frame)))
    except OSError as exc:
        return usage_error(f"cannot write {out}: {exc.strerror or exc}")
    if not scale["keep_shards"]:
        store.remove()
    if summary_only:
        n = spec.matches
        text = (f"{counted(n, 'match')}, {spec.players} players ({','.join(spec.names)}), seed "
                f"{spec.seed}, summary only: {timing(elapsed, compiled, n)} -> {out}\n" + text)
    if run.resumed:
        computed = spec.matches - run.resumed_matches
        text += (f"\n  ({run.resumed} of {counted(len(tasks), 'shard')} resumed from "
                 f"{store.directory}; {counted(computed, 'match')} computed now at "
                 f"{computed / max(elapsed, 1e-9):,.0f}/s)")
    print(text)
    return EXIT_OK


def _summary(frame, spec: RunSpec, out: str, timed: str) -> str:
    n = len(frame)
    sealed = f" (sealed, secret {spec.secret})" if spec.sealed else ""
    lines = [f"{counted(n, 'match')}, {spec.players} players ({','.join(spec.names)}), seed {spec.seed}{sealed}: "
             f"{timed} -> {out}"]
    winners = frame["winner"].value_counts()
    for entity in range(spec.n_entities):
        seats = [s for s in range(spec.players) if spec.entities[s] == entity]
        who = "+".join(spec.names[s] for s in seats)
        wins = int(winners.get(entity, 0))
        lines.append(f"  entity {entity} (seat {','.join(map(str, seats))}, {who}): "
                     f"{wins} wins ({100 * wins / n:.1f}%)")
    unfinished = int(winners.get(-1, 0))
    lines.append(
        f"  unfinished {unfinished}; mean rounds {frame['rounds'].mean():.2f}, "
        f"placements {frame['placements'].mean():.1f}, discarded events "
        f"{frame['events_discarded'].mean():.2f} per match"
    )
    return "\n".join(lines)


def _write_summary(aggregate: dict, manifest: dict, out: str) -> str:
    """Write the summary file (JSON or CSV by suffix); return the printed table."""
    table = summary_table(aggregate)
    path = Path(out)
    if path.suffix == ".json":
        document = {"format": "exact61-summary/1", "run": manifest, "aggregate": aggregate,
                    "table": json.loads(table.to_json(orient="records"))}
        atomic_write(path, lambda p: p.write_text(json.dumps(document, indent=1, sort_keys=True)
                                                  + "\n"))
    else:
        atomic_write(path, lambda p: table.to_csv(p, index=False, float_format="%.6f"))
    return format_table(table)


def format_table(table) -> str:
    """The summary table as fixed-width text."""
    lines = [f"  {'quantity':<20} {'mean':>12} {'std':>12} {'95% interval':>27}"]
    for row in table.itertuples(index=False):
        lines.append(f"  {row.quantity:<20} {row.mean:>12.4f} {row.std:>12.4f} "
                     f"   [{row.low:>10.4f}, {row.high:>10.4f}]")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# five-up record
# ---------------------------------------------------------------------------
def run_record(args) -> int:
    """Handler of ``five-up record``; returns the exit status."""
    try:
        spec = run_spec(args)
        out = check_output_file(args.out, ())
        compiled = compile_first(spec)
    except ValueError as exc:
        return usage_error(exc)
    started = time.perf_counter()
    try:
        records = record(spec.players, spec.strategies, spec.matches, spec.seed,
                         max_rounds=spec.max_rounds, first_match=spec.first_match,
                         threads=spec.threads, allow_hidden=spec.allow_hidden, **spec.seal_options)
    except Exception as exc:  # a strategy failing at run time is one line; others propagate
        if not strategy_failure(exc):
            raise
        return run_failed(exc)
    try:
        written = write_records(out, records)
    except OSError as exc:
        return usage_error(f"cannot write {out}: {exc.strerror or exc}")
    elapsed = time.perf_counter() - started
    unfinished = sum(1 for r in records if r["winner"] is None)
    compile_text = f" (compile {compiled:.1f} s before)" if compiled >= 0.05 else ""
    sealed = f", sealed, secret {spec.secret}" if spec.sealed else ""
    print(
        f"{counted(written, 'record')} ({spec.players} players, {','.join(spec.names)}, seed "
        f"{spec.seed}{sealed}, {unfinished} unfinished) -> {out} in {elapsed:.2f} s{compile_text}"
    )
    return EXIT_OK


SIMULATE = Command(
    "Simulate complete matches with the Numba engine and write one row per match (winner, "
    "final scores, rounds, placements, draws, passes, settlements, discarded events, first "
    "leader and opening) to a Parquet file. A progress bar with matches/s is shown on stderr "
    "and a short summary on stdout. The same seed gives the same frame whatever the thread "
    "count, backend or shard size. Finished shards are kept in FILE.parts/ until FILE is "
    "written: re-running the same command after an interruption resumes. With "
    "--summary-only, --out is a .json or .csv summary.",
    add_simulate_arguments, run_simulate)

RECORD = Command(
    "Simulate matches with the Numba engine and write every deal, action and score event as "
    "exact61-record/1 (one match per line), for auditing with `five-up verify`. The matches "
    "are exactly those `five-up simulate` plays for the same arguments.",
    add_record_arguments, run_record)
