"""``five-up simulate`` on shards: backends, resume and summary-only output.

Called by :func:`sim.engine_cli.run_simulate` after it has validated the
options. Output layout for ``--out FILE``:

``FILE.parts/``
    The shard store (:class:`sim.shards.ShardStore`): ``manifest.json`` and one
    file per finished shard. Kept after a crash, a kill or an error, so that
    re-running the same command resumes; removed once ``FILE`` is written
    (unless ``--keep-shards``). Another configuration with the same ``--out``
    is refused while it exists.
``FILE`` (``.parquet``/``.pq``)
    The match frame, identical to an unsharded run.
``FILE`` (``.json``/``.csv``, ``--summary-only``)
    The summary: JSON holds the configuration, the merged aggregate (win
    counts, sums and sums of squares, histograms) and the table; CSV holds the
    table (:func:`sim.shards.summary_table`).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from sim.backends import BackendError, cluster_failure, open_backend
from sim.engine_cli import EXIT_OK, _error, _failed, _summary, _write_parquet, strategy_failure
from sim.shards import (
    ShardError,
    ShardStore,
    atomic_write,
    match_aggregate,
    run_shards,
    simulate_job,
    simulate_manifest,
    summary_table,
)

EXIT_FAILED = 1


def parts_directory(out: str) -> Path:
    """The shard store of ``--out FILE``: ``FILE.parts``."""
    return Path(str(out) + ".parts")


def simulate_command(options, scale: dict) -> int:
    """Run ``five-up simulate`` with validated ``options`` (engine_cli._Options) and
    ``scale`` (:func:`sim.backends.backend_options`); returns the exit status."""
    summary_only = scale["summary_only"]
    try:
        manifest, tasks = simulate_manifest(options.players, options.strategies, options.matches,
                                            options.seed, options.max_rounds, options.first_match,
                                            scale["shard_size"])
    except ValueError as exc:
        return _error(str(exc))
    store = ShardStore(parts_directory(options.out), manifest,
                       "summary" if summary_only else "frames")
    try:
        store.check()
    except ShardError as exc:
        return _error(str(exc))
    try:
        backend = open_backend(scale["backend"], scale["scheduler"], scale["workers"],
                               scale["connect_timeout"])
    except BackendError as exc:
        return _error(str(exc))
    started = time.perf_counter()
    with backend:
        try:
            store.open()
        except ShardError as exc:
            return _error(str(exc))
        except OSError as exc:
            return _error(f"cannot create {store.directory}: {exc.strerror or exc}")
        try:
            run = run_shards(simulate_job, tasks, backend=backend, store=store,
                             aggregate=match_aggregate if summary_only else None,
                             threads=options.threads, progress=True)
        except Exception as exc:
            if strategy_failure(exc):  # one line, status 1 (the finished shards are kept)
                store.close()
                return _failed(exc)
            if not cluster_failure(exc):
                raise
            store.close()
            detail = " ".join(str(exc).split()) or type(exc).__name__
            print(f"five-up: error: run failed ({type(exc).__name__}: {detail}); finished shards "
                  f"are kept in {store.directory}: rerun the same command to resume", file=sys.stderr)
            return EXIT_FAILED
        finally:
            store.close()
    elapsed = time.perf_counter() - started
    try:
        if summary_only:
            text = _write_summary(run.aggregate, manifest, options.out)
        else:
            frame = run.frame()
            _write_parquet(frame, options.out)
            text = _summary(frame, options, elapsed)
    except OSError as exc:
        return _error(f"cannot write {options.out}: {exc.strerror or exc}")
    if not scale["keep_shards"]:
        store.remove()
    if summary_only:
        n = options.matches
        text = (f"{n} matches, {options.players} players ({','.join(options.names)}), seed "
                f"{options.seed}, summary only: {elapsed:.2f} s, {n / max(elapsed, 1e-9):,.0f} "
                f"matches/s -> {options.out}\n" + text)
    if run.resumed:
        computed = options.matches - run.resumed_matches
        text += (f"\n  ({run.resumed} of {len(tasks)} shards resumed from {store.directory}; "
                 f"{computed} matches computed now at {computed / max(elapsed, 1e-9):,.0f}/s)")
    print(text)
    return EXIT_OK


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
