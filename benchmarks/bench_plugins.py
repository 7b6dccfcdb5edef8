"""Benchmark of plug-in strategies: built-in speed A/B, cold compile per set, Python seats.

Run from the repository root::

    python benchmarks/bench_plugins.py --baseline /path/to/other/checkout

Measures, each in fresh subprocesses so that nothing is shared between them:

1. **Built-in speed, A/B.** Complete matches (2 players; ``--players 2,4``: each table size)
   per CPU second of the process (``--clock wall``: per wall-clock second) on one thread for
   ``greedy`` vs ``greedy`` and ``random`` vs ``random``, with this tree and
   (``--baseline DIR``) another checkout of the project (e.g. the commit
   before plug-in strategies: ``git worktree add /tmp/old <commit>``). The
   two are run alternately, ``--repeats`` times each, and the medians, the
   best runs and their ratios are printed: this VM's speed drifts by 15% (at
   times 40%) between minutes, so only ratios of interleaved runs mean
   anything, and the best runs are the least disturbed. A third row plays a
   user's compiled strategy (a file outside the package, ``edge`` vs
   ``edge``): since strategy sealing, such a strategy is compiled apart with
   bounds checking and called, not inlined, so this row measures what sealing
   costs a user's strategy (the built-in rows what it costs the built-ins).
2. **Cold compile to the first result**: a fresh interpreter with an empty
   Numba cache and an empty engine-kernel directory runs one match of
   ``random,greedy``; then one of a user's compiled strategy (a file outside
   the package) against ``greedy``; then the warm start of the same.
3. **A trivial Python strategy** (``compiled=False``, always row 0) against ``greedy``, 2
   players, one thread: matches/s (engine warm; target 4,000 on one core), and the same rule as
   a batch strategy (``batch=True``; target 20,000): the batch engine for Python seats.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_engine import finish, load_average, machine, met  # noqa: E402

THROUGHPUT = textwrap.dedent("""
    import sys, time, sim
    name, matches, players = sys.argv[1], int(sys.argv[2]), int(sys.argv[4])
    sim.simulate(players, [name] * players, 200, seed=0, threads=1)
    clock = time.process_time if sys.argv[3] == "cpu" else time.perf_counter
    started = clock()
    sim.simulate(players, [name] * players, matches, seed=1, threads=1)
    print(matches / (clock() - started))
""")

FIRST_RESULT = textwrap.dedent("""
    import sys, time
    started = time.perf_counter()
    import sim
    sim.simulate(2, sys.argv[1], 1, seed=0)
    print(time.perf_counter() - started)
""")

USER_STRATEGY = textwrap.dedent('''
    """A user's strategy outside the package (benchmark fixture)."""
    import strategies
    from core.state import CAND_POINTS, CAND_TILE, TILE_IS_DOUBLE

    @strategies.strategy(name="edge", parameters={"bonus": 8.0})
    def edge(view):
        best, best_value = 0, -1.0
        for row in range(view.n_candidates):
            value = view.cands[row, CAND_POINTS] + view.params[0] * TILE_IS_DOUBLE[view.cands[row, CAND_TILE]]
            if value > best_value:
                best, best_value = row, value
        return best
''')

PYTHON_SEAT = textwrap.dedent("""
    import sys, time, numpy as np, sim, strategies

    @strategies.strategy(compiled=False)
    def first(view):
        return 0

    @strategies.strategy(compiled=False, batch=True)
    def first_of_each(batch):
        return np.zeros(batch.seat.shape[0], dtype=np.int64)

    seat = first_of_each if sys.argv[2] == "batch" else first
    sim.simulate(2, [seat, "greedy"], 300, seed=0, threads=1)
    matches = int(sys.argv[3])
    clock = time.process_time if sys.argv[1] == "cpu" else time.perf_counter
    started = clock()
    sim.simulate(2, [seat, "greedy"], matches, seed=1, threads=1)
    print(matches / (clock() - started))
""")


def run_python(code: str, args, env=None, pythonpath: str | None = None, cwd=None) -> float:
    environment = dict(os.environ if env is None else env)
    if pythonpath is not None:
        environment["PYTHONPATH"] = pythonpath
    output = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=environment,
                            cwd=cwd or ROOT, capture_output=True, text=True, check=True).stdout
    return float(output.strip().splitlines()[-1])


def throughput_ab(baseline: str | None, matches: int, repeats: int, only: str | None = None,
                  clock: str = "cpu", players=(2,)) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-user-") as scratch:
        user = Path(scratch) / "user_edge.py"
        user.write_text(USER_STRATEGY)
        names = {"greedy": "greedy", "random": "random", "user": f"{user}:edge"}
        for table in players:
            for key, name in names.items():
                if only is None or only == key:
                    rows.append(_throughput_row(name, baseline, matches, repeats, clock, table))
    return rows


def _throughput_row(name: str, baseline: str | None, matches: int, repeats: int, clock: str,
                    players: int = 2) -> dict:
    """Matches/s of ``name`` against itself, this tree and the baseline run alternately (which of
    the two runs first alternates too, so that neither always follows the other)."""
    this, other = [], []
    for repeat in range(repeats):
        first_this = repeat % 2 == 0 or not baseline
        if first_this:
            this.append(run_python(THROUGHPUT, [name, matches, clock, players], pythonpath=str(ROOT)))
        if baseline:
            try:
                other.append(run_python(THROUGHPUT, [name, matches, clock, players], pythonpath=baseline,
                                        cwd=baseline))
            except subprocess.CalledProcessError:
                baseline = None  # a baseline older than the row's feature (a file strategy)
                other = []
        if not first_this:
            this.append(run_python(THROUGHPUT, [name, matches, clock, players], pythonpath=str(ROOT)))
    label = "user edge (file)" if name.endswith(":edge") else name
    row = {"strategy": label, "players": players, "this": statistics.median(this), "runs_this": this,
           "best_this": max(this)}
    if other:
        row["baseline"] = statistics.median(other)
        row["runs_baseline"] = other
        row["ratio"] = row["this"] / row["baseline"]
        row["best_ratio"] = max(this) / max(other)
        # Each pair ran back to back: its ratio cancels most of the VM's drift between minutes.
        pairs = sorted(a / b for a, b in zip(this, other))
        row["pair_ratio"] = statistics.median(pairs)
        row["pair_range"] = (pairs[len(pairs) // 4], pairs[(3 * len(pairs)) // 4])
    return row


def cold_compile() -> dict:
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-plugins-") as scratch:
        scratch = Path(scratch)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(scratch / "numba"),
                   FIVE_UP_KERNEL_DIR=str(scratch / "kernels"), PYTHONPATH=str(ROOT))
        (scratch / "user_edge.py").write_text(USER_STRATEGY)
        results["random,greedy cold"] = run_python(FIRST_RESULT, ["random,greedy"], env=env)
        results["random,greedy warm"] = run_python(FIRST_RESULT, ["random,greedy"], env=env)
        spec = f"{scratch / 'user_edge.py'}:edge,greedy"
        results["user edge,greedy cold"] = run_python(FIRST_RESULT, [spec], env=env)
        results["user edge,greedy warm"] = run_python(FIRST_RESULT, [spec], env=env)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", help="another checkout to compare built-in speed with (A/B)")
    parser.add_argument("--matches", type=int, default=50_000, help="matches per throughput run")
    parser.add_argument("--repeats", type=int, default=5, help="alternating runs per side (median)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="matches per CPU second of the process (default: what other jobs on a "
                             "shared VM do not inflate) or per wall-clock second")
    parser.add_argument("--only", default=None, metavar="NAME",
                        help="only this row of the speed table (greedy, random or user), and no "
                             "compile or Python-seat measures")
    parser.add_argument("--players", default="2", metavar="N[,N]",
                        help="table sizes of the speed rows (default 2; e.g. 2,4)")
    args = parser.parse_args(argv)
    try:
        players = tuple(int(n) for n in args.players.split(","))
    except ValueError:
        parser.error(f"--players takes table sizes such as 2,4, not {args.players!r}")
    if not players or any(n not in (2, 3, 4) for n in players):
        parser.error(f"--players takes table sizes 2, 3 or 4, not {args.players!r}")
    import numba

    print(f"Machine: {machine()}; Python {platform.python_version()}, Numba {numba.__version__}; "
          f"load average before: {load_average()}")
    rows = throughput_ab(args.baseline, args.matches, args.repeats, args.only, args.clock, players)
    print()
    print(f"Speed (built-ins, then a user's compiled strategy), {args.players} players, 1 thread, "
          f"{args.matches:,} matches per run, median of {args.repeats} alternating runs per side, "
          f"matches per {'CPU' if args.clock == 'cpu' else 'wall-clock'} second:")
    print()
    print("Medians, and best runs (the fastest of each side: on a shared VM load only ever slows "
          "a run down, so the best is the least disturbed).")
    print()
    print("| strategy | players | this tree, matches/s (median; best) | baseline (median; best) "
          "| this / baseline (median; best) | median of paired ratios [quartiles] | runs (this; baseline) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for row in rows:
        base = f"{row['baseline']:,.0f}; {max(row['runs_baseline']):,.0f}" if "baseline" in row else "n/a"
        ratio = f"{row['ratio']:.3f}; {row['best_ratio']:.3f}" if "ratio" in row else "n/a"
        paired = (f"{row['pair_ratio']:.3f} [{row['pair_range'][0]:.3f}, {row['pair_range'][1]:.3f}]"
                  if "pair_ratio" in row else "n/a")
        runs = ", ".join(f"{x:,.0f}" for x in row["runs_this"])
        if "runs_baseline" in row:
            runs += "; " + ", ".join(f"{x:,.0f}" for x in row["runs_baseline"])
        print(f"| {row['strategy']} | {row['players']} | {row['this']:,.0f}; {row['best_this']:,.0f} | {base} | {ratio} | {paired} "
              f"| {runs} |")
    print()
    if args.only:
        return finish()
    compile_times = cold_compile()
    python_rate = run_python(PYTHON_SEAT, [args.clock, "view", 10_000], pythonpath=str(ROOT))
    batch_rate = run_python(PYTHON_SEAT, [args.clock, "batch", 40_000], pythonpath=str(ROOT))
    print("| measure (fresh process, seconds inside Python to the first result) | value | target |")
    print("|---|---:|---|")
    targets = {"random,greedy cold": 20, "user edge,greedy cold": 25, "random,greedy warm": 2,
               "user edge,greedy warm": 2}
    for key, value in compile_times.items():
        target = targets[key]
        print(f"| {key} | {value:.1f} s | <= {target} s: {met(value <= target)} |")
    print(f"| trivial Python strategy (per view) vs greedy, 2 players, 1 thread ({args.clock} clock) | "
          f"{python_rate:,.0f} matches/s | >= 4,000: {met(python_rate >= 4000)} |")
    print(f"| trivial batch strategy vs greedy, 2 players, 1 thread ({args.clock} clock) | "
          f"{batch_rate:,.0f} matches/s | >= 20,000: {met(batch_rate >= 20000)} |")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
