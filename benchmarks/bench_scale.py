"""Benchmark of scale-out (a benchmark script, not a test).

Run::

    /work/venv/bin/python benchmarks/bench_scale.py                    # ~5-8 min on 2 cores
    /work/venv/bin/python benchmarks/bench_scale.py --quick            # ~1-2 min: 1M only
    /work/venv/bin/python benchmarks/bench_scale.py --sizes 1000000,10000000,100000000

It prints markdown tables:

1. **Speed-up with local dask workers**: matches/s of the same sharded run
   (2 players, greedy vs greedy, summary-only so only compute is measured) on
   a ``LocalCluster`` of 1 worker process and of 2 (one thread each), after a
   warm-up shard per worker (cluster start-up and the workers' Numba cache
   load are reported apart); the local backend on 1 and 2 Numba threads for
   reference.
2. **Peak memory of summary-only mode**: each size runs ``five-up simulate
   --summary-only`` (local backend, all threads, default shard size, random
   vs random) in a fresh subprocess; the peak resident set (``ru_maxrss``) is
   what the process needed in total, Python, Numba and the compiled engine
   included. For contrast, a full-frame run of the smallest size.

Speed-up figures need an otherwise idle machine: with other processes on the
cores, 2 workers run little faster than one.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench_engine import (
    machine,  # the benchmarks folder is on sys.path (script or import)
)


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average n/a"


# ---------------------------------------------------------------------------
# 1. speed-up
# ---------------------------------------------------------------------------
def speed(matches: int, shard_size: int, strategies: str) -> list[tuple[str, float, float]]:
    from sim.scale.backends import open_backend
    from sim.engine import simulate
    from sim.scale.simulate import simulate_sharded

    simulate(2, strategies, 100, seed=0)  # compile or load the cache here
    rows = []
    for threads in (1, 2):
        started = time.perf_counter()
        simulate_sharded(2, strategies, matches, seed=1, shard_size=shard_size, threads=threads,
                         summary_only=True)
        elapsed = time.perf_counter() - started
        rows.append((f"local backend, {threads} Numba thread{'s' if threads > 1 else ''}",
                     matches / elapsed, float("nan")))
    for workers in (1, 2):
        started = time.perf_counter()
        backend = open_backend("dask", workers=workers)
        try:
            # warm-up: one small shard per worker (imports, Numba cache load)
            simulate_sharded(2, strategies, 200 * workers, seed=2, shard_size=200, backend=backend,
                             summary_only=True)
            ready = time.perf_counter() - started
            started = time.perf_counter()
            simulate_sharded(2, strategies, matches, seed=1, shard_size=shard_size, backend=backend,
                             summary_only=True)
            elapsed = time.perf_counter() - started
        finally:
            backend.close()
        rows.append((f"dask LocalCluster, {workers} worker{'s' if workers > 1 else ''} x 1 thread",
                     matches / elapsed, ready))
    return rows


# ---------------------------------------------------------------------------
# 2. peak memory (each in a fresh process)
# ---------------------------------------------------------------------------
def child(mode: str, matches: int, strategies: str) -> None:
    """Run one CLI simulate in this process and print {seconds, maxrss_mb} as JSON."""
    from cli.main import main

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s.json" if mode == "summary" else "f.parquet")
        argv = ["simulate", "--players", "2", "--strategies", strategies, "--matches",
                str(matches), "--seed", "1", "--out", out]
        if mode == "summary":
            argv.append("--summary-only")
        started = time.perf_counter()
        with open(os.devnull, "w") as null:
            stdout, stderr = sys.stdout, sys.stderr
            sys.stdout = sys.stderr = null
            try:
                status = main(argv)
            finally:
                sys.stdout, sys.stderr = stdout, stderr
        elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"status": status, "seconds": elapsed, "maxrss_mb": peak}))


def measure(mode: str, matches: int, strategies: str) -> dict:
    run = subprocess.run([sys.executable, __file__, "--child", mode, str(matches), strategies],
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1M only, smaller speed run")
    parser.add_argument("--sizes", default=None, help="summary-only sizes (default 1M,10M)")
    parser.add_argument("--speed-matches", type=int, default=None,
                        help="matches of the speed-up runs (default 300000; quick 100000)")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return

    import dask
    import numba

    from sim.scale.shards import DEFAULT_SHARD_SIZE

    print(f"Machine: {machine()}; Python {platform.python_version()}, Numba {numba.__version__}, "
          f"dask {dask.__version__}; {load()} at start\n")
    if not args.skip_speed:
        n = args.speed_matches or (100_000 if args.quick else 300_000)
        shard = 10_000
        print(f"## Speed-up: {n:,} matches, 2 players greedy vs greedy, summary-only, "
              f"shards of {shard:,}\n")
        rows = speed(n, shard, "greedy,greedy")
        base = rows[2][1]
        print("| backend | matches/s | vs 1 dask worker | start-up + warm-up (s) |")
        print("|---|---:|---:|---:|")
        for name, rate, ready in rows:
            ready_text = "" if math.isnan(ready) else f"{ready:.1f}"
            print(f"| {name} | {rate:,.0f} | {rate / base:.2f}x | {ready_text} |")
        print(f"\n({load()})\n")

    sizes = ([int(s) for s in args.sizes.split(",")] if args.sizes else
             [1_000_000] if args.quick else [1_000_000, 10_000_000])
    print(f"## Peak memory, `five-up simulate` 2 players random vs random, local backend, "
          f"shards of {DEFAULT_SHARD_SIZE:,}\n")
    print("| mode | matches | time (s) | matches/s | peak RSS (MB) |")
    print("|---|---:|---:|---:|---:|")
    for size in sizes:
        result = measure("summary", size, "random,random")
        print(f"| summary-only | {size:,} | {result['seconds']:.1f} | "
              f"{size / result['seconds']:,.0f} | {result['maxrss_mb']:.0f} |", flush=True)
    result = measure("frames", sizes[0], "random,random")
    print(f"| full frame (Parquet) | {sizes[0]:,} | {result['seconds']:.1f} | "
          f"{sizes[0] / result['seconds']:,.0f} | {result['maxrss_mb']:.0f} |")
    print(f"\n({load()} at the end)")


if __name__ == "__main__":
    main()
