"""Benchmark of the Numba engine (a benchmark script, not a test).

Run::

    /work/venv/bin/python benchmarks/bench_engine.py            # full run (~3-5 min)
    /work/venv/bin/python benchmarks/bench_engine.py --quick    # fewer repeats, no 1M frame

It prints a markdown table: complete matches/s and placements/s for 2, 3 and 4
players with ``random`` and ``greedy`` at every seat, on one thread and on all
threads (median of several repeats), the speed-up, the reference's matches/s
on the same work and the ratio; then cold-compile time, warm start to first
result (both in fresh subprocesses) and the peak memory of a 1,000,000-match
frame.

Targets (issue 3, per core of a 2-core x86-64 machine): 2p greedy >= 30,000
matches/s, 2p random >= 50,000/s, 4p greedy >= 20,000/s; >= 1.8x on 2 threads;
>= 100x the reference; warm start <= 3 s; cold compile <= 60 s.

What profiling taught us
------------------------
Profiled with ``perf record`` and a hand-written ``/tmp/perf-PID.map`` built
from the compiled library's symbol addresses (``library.get_pointer_to_function``),
then per-instruction sample counts against ``objdump`` of the machine code.
This VM exposes no hardware counters, and single-thread figures vary by about
15 % from run to run, so compare medians over several runs.

* Numba reference-counts every array it passes between compiled functions with
  *atomic* increments (NRT). The first version passed a named tuple of 14
  workspace arrays through small helpers: 1,233 ``NRT_incref``/``NRT_decref``
  calls in the kernel's IR and about 6,000 matches/s (2p greedy, one thread).
  Compiling the game kernels without NRT (``core.jit.kernel``: they never
  allocate) and inlining the per-turn helpers at Numba-IR level
  (``core.jit.hot_kernel``) removed all of them: about 50,000 matches/s, an 8x
  gain with bit-identical results. Without the IR-level inlining the same code
  runs at 16,000/s: Numba passes a tuple of arrays by value, field by field.
* After that, ~45 % of the round loop's samples sat in the scan over every
  layout node when listing legal placements; keeping a sorted list of the
  nodes that still have an open connection (``Workspace.open_nodes``) cut it
  to a handful of nodes per turn.
* ``error_model="numpy"`` (no Python zero-division checks on ``%``) gave about
  10 % more on 2p random.
* One decision site per turn (opening, play and drawn tile share it) instead
  of three halved the code the strategies are inlined into: the cold compile
  went from ~55 s to ~28 s and throughput rose slightly.
* The deal costs about 70 ns per round (27 SplitMix64 words); a 2-player
  random match plays about 17 rounds and 208 placements (greedy: 12.5 and
  150), so the per-placement path (legal placements with their points, the
  decision, the placement, events) dominates at roughly 80-100 ns per
  placement, spread over the whole round function with no single hot spot
  left. Random-vs-random is the hardest target only because its matches are
  40 % longer.
* Thread scaling must be measured on an otherwise idle machine: with another
  process on one of the two cores, "2 threads" runs no faster than one.
* Cold compile with every built-in strategy (measured per function with a
  ``numba:compile`` event listener on an empty cache, idle machine): 75 s,
  of which ~12 s were the ``prange`` batch kernel's own share -- Numba's
  parallel lowering compiles the loop body as a separate gufunc and links and
  re-optimises the whole engine (every strategy inlined) into it once more.
  The batch kernel is now serial and ``nogil``, and ``sim.engine.batch.run_blocks``
  runs disjoint row blocks on a thread pool: the same matches/s on 1 and 2
  threads (dynamic block hand-out even balanced long matches a little
  better), cold compile 61 s. Inlining the round loop into its caller instead
  made it worse (149 s): Numba-IR inlining re-types the whole loop body.

Status on the 2-core AMD EPYC VM (Numba 0.68.1): 2p greedy ~55-64k/s and 4p
greedy ~55k/s per core (targets 30k and 20k met with margin); 2p random
42-51k/s per core depending on the run (target 50k: borderline, missed in
most full benchmark runs); 1.6-2.3x on 2 threads (noisy); warm start ~1.4 s
with random/greedy only, 1.8-2.9 s with every strategy; cold compile 28-33 s
with random/greedy only, 61-64 s with every built-in strategy (target 60 s:
just missed). Remaining ideas for 2p random, not yet tried: two
shuffle swaps per 64-bit word (saves ~13 mixes per round, ~2 %), flattening
``nodes``/``cands`` to 1-D rows of constant width (removes runtime stride
multiplies and spills in the candidate loop).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Re-exported: the other benchmarks import machine from here.
from sim.machine import machine

TARGETS = {
    (2, "greedy"): 30_000,
    (2, "random"): 50_000,
    (4, "greedy"): 20_000,
}


def finish() -> int:
    """End a benchmark's report: the load average after it (the machine is shared); status 0."""
    print()
    print(f"Load average after: {load_average()}")
    return 0


def met(condition: bool) -> str:
    """A target's verdict in the printed tables."""
    return "met" if condition else "MISSED"


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def timed_rate(function, repeats: int) -> tuple[float, object]:
    """Median seconds of ``repeats`` calls and the last result."""
    times = []
    result = None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def engine_throughput(matches: int, repeats: int) -> list[dict]:
    import numba

    from sim.engine import simulate

    all_threads = numba.config.NUMBA_NUM_THREADS
    simulate(2, "random,random", 10, seed=0)  # load compiled code
    rows = []
    for players in (2, 3, 4):
        for name in ("random", "greedy"):
            row = {"players": players, "strategy": name}
            for label, threads in (("1", 1), ("all", all_threads)):
                def run(players=players, name=name, threads=threads):
                    return simulate(players, [name] * players, matches, seed=1, threads=threads)

                seconds, frame = timed_rate(run, repeats)
                row[f"matches_{label}"] = matches / seconds
                row[f"placements_{label}"] = frame["placements"].sum() / seconds
            row["speedup"] = row["matches_all"] / row["matches_1"]
            rows.append(row)
    return rows


def reference_throughput(rows: list[dict], matches: int) -> None:
    try:
        from sim.reference import play_match
    except ImportError:
        for row in rows:
            row["reference"] = None
        return
    for row in rows:
        players, name = row["players"], row["strategy"]
        started = time.perf_counter()
        for match in range(matches):
            play_match(players, [name] * players, seed=1, match=match)
        row["reference"] = matches / (time.perf_counter() - started)


FIRST_RESULT = (
    "import time; t0 = time.perf_counter(); import sim; "
    "sim.simulate(2, 'greedy,random', 1, seed=0); sim.record(2, 'greedy,random', 1, seed=0); "
    "sim.simulate_rounds(2, 'greedy,random', 1, seed=0); "
    "print(time.perf_counter() - t0)"
)


def first_result_seconds(cache_dir: str | None) -> tuple[float, float]:
    """(wall seconds of a fresh interpreter to its first result, seconds inside Python)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    started = time.perf_counter()
    output = subprocess.run(
        [sys.executable, "-c", FIRST_RESULT], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return time.perf_counter() - started, float(output.strip().splitlines()[-1])


PEAK_MEMORY = (
    "import resource, sim; sim.simulate(2, 'random,random', 10, seed=0); "
    "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
    "frame = sim.simulate(2, 'random,random', 1_000_000, seed=0); "
    "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
    "print(base, peak, frame.memory_usage(deep=True).sum())"
)


def peak_memory() -> tuple[float, float, float]:
    """(MiB RSS after warm-up, MiB peak RSS with the 1M frame, MiB of the frame itself)."""
    output = subprocess.run(
        [sys.executable, "-c", PEAK_MEMORY], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    base, peak, frame = (float(x) for x in output.split())
    return base / 1024, peak / 1024, frame / 2**20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, skip the 1M frame")
    parser.add_argument("--matches", type=int, default=None, help="matches per timing (default 100000)")
    parser.add_argument("--repeats", type=int, default=None, help="repeats per timing (median)")
    parser.add_argument("--reference-matches", type=int, default=None)
    args = parser.parse_args(argv)
    matches = args.matches or (30_000 if args.quick else 100_000)
    repeats = args.repeats or (3 if args.quick else 5)
    reference_matches = args.reference_matches or (20 if args.quick else 60)

    import numba

    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache_dir:
        cold_wall, cold_inner = first_result_seconds(cache_dir)
        warm_wall, warm_inner = first_result_seconds(cache_dir)
    default_warm_wall, _ = first_result_seconds(None)

    rows = engine_throughput(matches, repeats)
    reference_throughput(rows, reference_matches)

    print(f"Machine: {machine()}; Python {platform.python_version()}, Numba {numba.__version__}, "
          f"{numba.config.NUMBA_NUM_THREADS} threads ({numba.threading_layer()} layer); "
          f"load average before: {load_before}")
    print()
    print(f"Throughput: {matches:,} complete matches per timing, median of {repeats}; "
          f"reference: {reference_matches} matches.")
    print()
    print("| players | strategy | matches/s 1 thread | placements/s 1 thread | matches/s all threads "
          "| placements/s all threads | speed-up | reference matches/s | engine/reference (1 thread) "
          "| target (per core) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for row in rows:
        target = TARGETS.get((row["players"], row["strategy"]))
        verdict = ""
        if target:
            verdict = f">= {target:,}: {met(row['matches_1'] >= target)}"
        reference = row.get("reference")
        reference_text = "n/a" if reference is None else f"{reference:,.1f}"
        ratio_text = "n/a" if reference is None else f"{row['matches_1'] / reference:,.0f}x"
        print(
            f"| {row['players']} | {row['strategy']} | {row['matches_1']:,.0f} | {row['placements_1']:,.0f} "
            f"| {row['matches_all']:,.0f} | {row['placements_all']:,.0f} | {row['speedup']:.2f}x "
            f"| {reference_text} | {ratio_text} | {verdict} |"
        )
    print()
    print("| measure | value | target |")
    print("|---|---:|---|")
    print(f"| cold compile to first result (empty NUMBA_CACHE_DIR, subprocess) | {cold_wall:.1f} s "
          f"| <= 60 s: {met(cold_wall <= 60)} |")
    print(f"| warm start to first result (cache hit, subprocess) | {warm_wall:.2f} s "
          f"| <= 3 s: {met(warm_wall <= 3)} |")
    print(f"| warm start, default cache location | {default_warm_wall:.2f} s | |")
    print(f"| ... of which inside Python after interpreter start (cold / warm) | "
          f"{cold_inner:.1f} s / {warm_inner:.2f} s | |")
    if not args.quick:
        base, peak, frame = peak_memory()
        print(f"| peak RSS, 1,000,000-match frame (2p random) | {peak:,.0f} MiB "
              f"(warm process {base:,.0f} MiB; frame {frame:,.0f} MiB) | |")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
