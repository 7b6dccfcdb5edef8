"""Regenerate every committed result: ``five-up results --out docs/results``.

Each committed result (:data:`RESULTS`) is one ``five-up`` command. It runs in
a process of its own, exactly as a user would type it (``python -m cli ...``),
into a staging directory ``OUT/.staging/NAME``; when it succeeds, the files
meant to be committed (every output but the large per-row ones, see
:attr:`CommittedResult.leave_out`) replace ``OUT/NAME`` at once, beside a
``manifest.json`` (:func:`manifest`): the code commit, the command, its seed and
sample size, the wall time and the machine. A run that fails or is interrupted
leaves ``OUT/NAME`` as it was, and its staging directory lets the command resume
from its shards when it is run again. A result whose manifest already records the
current code and the same command is skipped (``--force`` runs it anyway).

With ``--replicate K`` each result's primary comparisons are then measured again on ``K``
fresh seeds (:func:`replicate`, :mod:`experiments.release.replication`): the replicate runs go
into the staging area, resumable as the main runs are, and only their ``replication.csv`` (and
a section of the result's summary) is committed; the manifest records the seeds.

Then README.md's generated blocks are rewritten from the new outputs
(:func:`experiments.release.readme_numbers.render`), and the notebooks are executed
at full size with their outputs saved (``--notebooks``; with ``--only``, the notebooks that read
one of the chosen results).

The results run in the order of :data:`RESULTS`: the tables that strategies
import (``winprob`` ships ``strategies/winprob_table.npz``, ``tuning`` ships
``strategies/weighted_tuned_table.py``) come before the results that play those
strategies. ``--size small`` runs every command at a test size and ships nothing.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from experiments.comparisons import PLAN_FILE, ComparisonPlan
from experiments.release import readme_numbers, replication
from sim.files import atomic_write, canonical
from sim.machine import machine_facts

MANIFEST = "manifest.json"
"""The file written beside each committed result."""

STAGING = ".staging"
"""Where the commands write before their outputs are committed (inside ``--out``)."""

LEAVE_OUT = ("*.parquet", "shards", ".*", "*.tmp")
"""Outputs never committed: per-row frames (parquet), shards, hidden and temporary files."""

SIZES = ("full", "small")

NOTEBOOK_CELL_TIMEOUT = 1800
"""Seconds a notebook cell may take at full size."""

NOTEBOOKS_MANIFEST = "notebooks.json"
"""Beside the results: when and from which code the notebooks' saved outputs were made."""

INDEX = "README.md"
"""The results directory's index, written from the manifests (:func:`index_markdown`)."""

CLI = (sys.executable, "-m", "cli")
"""How a result's command is run: ``five-up`` in a process of its own, this Python."""

ISMCTS_YARDSTICKS = "openspiel:ismcts[sims=0],openspiel:ismcts[sims=0,evaluator=wintable]"
"""OpenSpiel's ISMCTS valuing round ends by the round's points, and the same search valuing them
by the win table (a match-playing yardstick), each at matched compute (``sims=0``: the run
calibrates the simulation count to matchplay's CPU per placement and records it in run.json).
Measured 2026-12-07 on the 2-core VM: matchplay 71-114 us of CPU per placement, ISMCTS 0.8-1.1 ms
per simulation and 2.6-3.5 ms per placement at its minimum of 2 simulations (28-42x matchplay),
so both play with 2. 1,000 deals per pairing, 4,000 matches: 0.11-0.16 wall s per match on 2 dask
workers (100 deals per pairing took 85 s in all, calibration included, the machine shared), about
10-13 minutes."""


@dataclass(frozen=True)
class CommittedResult:
    """One committed result: the ``five-up`` command that makes it, at full and at test size.

    Attributes
    ----------
    name : str
        Its directory under ``--out``.
    full, small : tuple of str
        The command's arguments (without ``--out``) at the committed size and at a test size.
    leave_out : tuple of str
        Glob patterns of outputs not committed besides :data:`LEAVE_OUT` (large tables).
    needs : str or None
        A module the command needs (an optional extra); without it the result is skipped
        with one line.
    replicate : tuple of str or None
        Cheaper arguments (at full size, with ``--seed``) computing the same primary
        comparisons, run on the fresh seeds of ``--replicate``; None: the full command with
        its seed replaced.
    """

    name: str
    full: tuple[str, ...]
    small: tuple[str, ...]
    leave_out: tuple[str, ...] = ()
    needs: str | None = None
    replicate: tuple[str, ...] | None = None

    def arguments(self, size: str) -> tuple[str, ...]:
        """The command's arguments at ``size`` (``"full"`` or ``"small"``), without ``--out``."""
        return self.full if size == "full" else self.small

    def replicate_arguments(self, size: str, seed: int) -> tuple[str, ...]:
        """The arguments of a replicate run with ``seed`` at ``size``: :attr:`replicate` at full
        size when given, else the command's own, with the seed replaced and without ``--ship``
        (a replicate never replaces a table the strategies import)."""
        arguments = self.replicate if size == "full" and self.replicate else self.arguments(size)
        return replication.without_shipping(replication.with_seed(arguments, seed))

    def kept(self, name: str) -> bool:
        """Whether an output file (or directory) named ``name`` is committed."""
        return not any(fnmatch.fnmatch(name, pattern) for pattern in LEAVE_OUT + self.leave_out)


STUDY_STRATEGIES = "greedy,random,exact,heavy"
STUDY_TABLES = ("--table", "exact,greedy", "--table", "weighted,greedy", "--table",
                "defensive,greedy", "--table", "rollout,greedy")
"""The studies' mixed tables (:mod:`experiments.mixed_tables`): the overshoot-aware ``exact`` and
the strong strategies, each against ``greedy``, at a smaller size per rotation than self-play
(``rollout`` costs ~4 ms per 2-player match)."""


STRONG_FULL = ("--strong", "rollout,matchplay", "--strong-matches", "800")
STRONG_SMALL = ("--strong", "rollout,matchplay", "--strong-matches", "8")
"""The strong strategies self-played by overshoot and settlement beside the others, at their own
size (``matchplay`` plays ~10-20 matches per second on two cores, ``rollout`` ~20-40: 800 matches
per player count add ~1.5-2.5 minutes to each study)."""


def _study(name: str, strategies: str = STUDY_STRATEGIES, extra: tuple = (),
           small_extra: tuple = (), leave_out: tuple = (),
           replicate: tuple | None = None) -> CommittedResult:
    """A self-play study at 100,000 matches per configuration, seed 1; ``replicate``: the
    arguments after ``--players 2,3,4 --seed 1`` of its cheaper replicate runs."""
    head = (name, "--players", "2,3,4", "--strategies", strategies, "--seed", "1")
    again = None if replicate is None else (name, "--players", "2,3,4", "--seed", "1") + replicate
    return CommittedResult(name, head + ("--matches", "100000") + extra,
                           head + ("--matches", "400") + small_extra, leave_out,
                           replicate=again)


def _duplicate_tournament(name: str, strategies: str, matches: int, small_matches: int,
                          seed: int, small_strategies: str | None = None) -> CommittedResult:
    """A 2-player tournament on duplicate deals: ``strategies`` at ``matches`` matches per
    seating, and at test size ``small_matches`` of ``small_strategies`` (default the same)."""
    def arguments(field: str, count: int) -> tuple[str, ...]:
        return ("tournament", "--players", "2", "--strategies", field, "--matches", str(count),
                "--duplicate", "--seed", str(seed))
    return CommittedResult(name, arguments(strategies, matches),
                           arguments(small_strategies or strategies, small_matches))


RESULTS = (
    CommittedResult(
        "winprob",
        ("winprob", "--players", "2,4", "--strategies", "rollout", "--rounds-per-state", "32",
         "--targets", "0.025,0.05", "--max-rounds-per-state", "2048", "--seed", "1",
         "--replicates", "1000", "--check-matches", "2000",
         "--ship", "strategies/winprob_table.npz", "--ship-replicates", "200"),
        ("winprob", "--players", "2", "--strategies", "greedy", "--rounds-per-state", "2",
         "--targets", "none", "--seed", "1", "--replicates", "4", "--check-matches", "20"),
        leave_out=("table.csv", "sides.csv", "slice_3p.png"),
        # the primary comparisons (the lead's value at three states) from the first pass alone
        replicate=("winprob", "--players", "2,4", "--strategies", "rollout",
                   "--rounds-per-state", "32", "--targets", "none", "--seed", "1",
                   "--replicates", "200", "--check-matches", "0")),
    CommittedResult(
        "tuning",
        ("tune", "--strategy", "weighted", "--against", "weighted", "--validate-against",
         "weighted,rollout", "--players", "2", "--seed", "2026", "--validation-seed", "2027",
         "--deals", "1000", "--generations", "90", "--population", "10", "--sigma", "0.3",
         "--pick", "mean", "--validation-deals", "5000",
         "--ship", "strategies/weighted_tuned_table.py"),
        ("tune", "--strategy", "weighted", "--against", "weighted", "--validate-against",
         "weighted,greedy", "--players", "2", "--seed", "2026", "--validation-seed", "2027",
         "--deals", "20", "--generations", "2", "--population", "4", "--validation-deals",
         "40")),
    _duplicate_tournament("tournament", "random,greedy,exact,heavy,defensive,weighted,rollout",
                          2000, 20, seed=1, small_strategies="random,greedy,exact"),
    _duplicate_tournament("duplicate_deals", "exact,greedy", 10000, 50, seed=7),
    _duplicate_tournament("rollout_vs_greedy", "rollout,greedy", 10000, 10, seed=2026),
    # each replicate plays only what its primary comparisons need (their plan's note)
    _study("overshoot", extra=STUDY_TABLES + ("--table-matches", "1500") + STRONG_FULL,
           small_extra=STUDY_TABLES + ("--table-matches", "60") + STRONG_SMALL,
           leave_out=("zone_turns.csv",),
           replicate=("--strategies", "greedy", "--matches", "100", "--table", "exact,greedy",
                      "--table-matches", "1500")),
    _study("settlement", extra=STUDY_TABLES + ("--table-matches", "1500") + STRONG_FULL,
           small_extra=STUDY_TABLES + ("--table-matches", "60") + STRONG_SMALL,
           leave_out=("parts_hist.csv",),
           replicate=("--strategies", "greedy", "--matches", "100", "--table", "exact,greedy",
                      "--table-matches", "1500")),
    _study("seats", extra=STUDY_TABLES + ("--table-matches", "3000") + STRONG_FULL,
           small_extra=STUDY_TABLES + ("--table-matches", "60") + STRONG_SMALL,
           replicate=("--strategies", "greedy", "--matches", "100000")),
    CommittedResult(
        "lengths",
        ("lengths", "--players", "2,3,4", "--strategies", "greedy,random,exact,weighted",
         "--matches", "2000", "--seed", "1") + STUDY_TABLES + ("--table-matches", "1500")
        + STRONG_FULL,
        ("lengths", "--players", "2,3,4", "--strategies", "greedy,random", "--matches", "200",
         "--seed", "1") + STUDY_TABLES + ("--table-matches", "30") + STRONG_SMALL,
        replicate=("lengths", "--players", "2,3,4", "--strategies", "greedy", "--matches", "800",
                   "--seed", "1") + STRONG_FULL),
    CommittedResult(
        "openings",
        ("openings", "--players", "2,3,4", "--strategies", "greedy,random", "--matches", "100000",
         "--hands", "5000", "--playouts", "400", "--seed", "1") + STUDY_TABLES
        + ("--table-matches", "1500"),
        ("openings", "--players", "2,3,4", "--strategies", "greedy,random", "--matches", "300",
         "--hands", "12", "--playouts", "8", "--seed", "1") + STUDY_TABLES
        + ("--table-matches", "30"),
        leave_out=("cf_hands.csv",),
        # the primary comparisons: self-play lead effects and the held-out gain at 0-0
        replicate=("openings", "--players", "2,3,4", "--strategies", "greedy,random",
                   "--matches", "100000", "--hands", "5000", "--playouts", "400", "--seed", "1",
                   "--score-states", "0-0", "--strong-continuations", "none")),
    CommittedResult(
        "strength",
        ("strength", "--players", "2,4", "--deals", "1500", "--seed", "2026", "--allow-hidden"),
        ("strength", "--players", "2", "--ladder", "random,greedy,exact", "--deals", "10",
         "--seed", "2026", "--timing-matches", "4"),
        leave_out=("matches.csv",),
        # the primary comparisons are pimc's targets: its own steps, without the ceiling
        replicate=("strength", "--players", "2,4", "--ladder", "greedy,rollout,matchplay,pimc",
                   "--deals", "1500", "--seed", "2026", "--timing-matches", "0")),
    CommittedResult(
        "ceiling",
        ("strength", "--players", "2,4", "--ladder", "cheater[order_known=0],cheater", "--versus",
         "rollout", "--challenger", "cheater[order_known=0]", "--ceiling", "cheater", "--deals",
         "1000", "--seed", "2028", "--allow-hidden", "--timing-matches", "20"),
        ("strength", "--players", "2", "--ladder", "cheater[order_known=0],cheater", "--versus",
         "rollout", "--challenger", "cheater[order_known=0]", "--ceiling", "cheater", "--deals",
         "4", "--seed", "2028", "--allow-hidden", "--timing-matches", "1"),
        leave_out=("matches.csv",),
        replicate=("strength", "--players", "2,4", "--ladder", "cheater[order_known=0],cheater",
                   "--versus", "rollout", "--challenger", "cheater[order_known=0]", "--ceiling",
                   "cheater", "--deals", "1000", "--seed", "2028", "--allow-hidden",
                   "--timing-matches", "0")),
    CommittedResult(
        "openspiel",
        ("strength", "--players", "2", "--ladder", "matchplay", "--versus",
         ISMCTS_YARDSTICKS, "--deals", "1000", "--seed", "2027", "--timing-matches", "2",
         "--backend", "dask", "--workers", "2", "--shard-size", "50"),
        ("strength", "--players", "2", "--ladder", "greedy", "--versus", ISMCTS_YARDSTICKS,
         "--deals", "2", "--seed", "2027", "--timing-matches", "1"),
        leave_out=("matches.csv",), needs="pyspiel",
        replicate=("strength", "--players", "2", "--ladder", "matchplay", "--versus",
                   ISMCTS_YARDSTICKS, "--deals", "300", "--seed", "2027", "--timing-matches", "0",
                   "--backend", "dask", "--workers", "2", "--shard-size", "50")),
)
"""Every committed result, in the order they are regenerated."""


def check_size(size: str) -> str:
    """``size`` if it is one of :data:`SIZES`; else ValueError (one line)."""
    if size not in SIZES:
        raise ValueError(f"--size must be one of {', '.join(SIZES)}, not {size!r}")
    return size


def by_name() -> dict[str, CommittedResult]:
    """:data:`RESULTS` by name."""
    return {result.name: result for result in RESULTS}


def choose(only: str | None) -> list[CommittedResult]:
    """The results named in ``only`` (comma-separated; None: all), in :data:`RESULTS` order.
    Raises ValueError (one line) for an unknown name."""
    if only is None:
        return list(RESULTS)
    known = by_name()
    names = [part.strip() for part in only.split(",") if part.strip()]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise ValueError(f"--only: unknown result {', '.join(unknown) or repr(only)} "
                         f"(known: {', '.join(known)})")
    return [result for result in RESULTS if result.name in names]


# ---------------------------------------------------------------------------
# What ran: the code, the command, the machine
# ---------------------------------------------------------------------------
def code_state(root: Path) -> dict:
    """The code a result was computed with: ``commit`` (git HEAD, None outside a checkout) and
    ``changes`` (None for a clean tree, else a sha256 of the uncommitted changes outside
    ``docs/``, README.md and ``notebooks/``, so that two runs on the same edits have the same
    identity)."""
    def git(*args) -> str | None:
        try:
            done = subprocess.run(("git", *args), cwd=root, capture_output=True, text=True,
                                  check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        return done.stdout

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "changes": None}
    # The outputs (docs/, README's generated numbers, the notebooks' saved outputs) are not code.
    pathspec = ("--", ".", ":(exclude)docs", ":(exclude)README.md", ":(exclude)notebooks")
    diff = git("diff", "HEAD", *pathspec) or ""
    untracked = git("ls-files", "--others", "--exclude-standard", *pathspec) or ""
    changed = bool(diff.strip() or untracked.strip())
    digest = hashlib.sha256((diff + "\0" + untracked).encode()).hexdigest() if changed else None
    return {"commit": commit.strip(), "changes": digest}


def command_line(arguments, out: str) -> str:
    """The command as a user types it: ``five-up ARGS --out OUT`` (shell-quoted)."""
    return shlex.join(("five-up", *arguments, "--out", out))


def sample_of(settings: dict) -> dict:
    """The seed and sample size recorded in a run's ``run.json``: ``seed`` and whichever of
    ``matches``, ``deals``, ``hands``, ``playouts``, ``rounds_per_state``, ``players`` it has."""
    keys = ("seed", "players", "matches", "deals", "hands", "playouts", "rounds_per_state",
            "check_matches", "replicates", "duplicate")
    return {key: settings[key] for key in keys if key in settings}


def plan_digest_of(directory: Path) -> str | None:
    """The digest of the comparison plan a finished run declared (its ``plan.json``), or None."""
    path = directory / PLAN_FILE
    if not path.exists():
        return None
    return ComparisonPlan.from_json(json.loads(path.read_text())).digest()


def children_cpu_seconds() -> float:
    """CPU seconds (user + system) used so far by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def manifest(result: CommittedResult, command: str, code: dict, settings: dict,
             wall_seconds: float, started: datetime, cpu_seconds: float | None = None,
             plan_digest: str | None = None) -> dict:
    """The manifest written beside a committed result (JSON-ready). ``cpu_seconds``: the
    command's CPU time (its process and theirs), steadier than the wall time on a shared
    machine; ``plan_digest``: the digest of the comparisons the run declared
    (:func:`plan_digest_of`), when it declared any."""
    return {
        "result": result.name,
        "command": command,
        "code_commit": code["commit"],
        "uncommitted_changes": code["changes"],
        **sample_of(settings),
        **({} if plan_digest is None else {"plan_digest": plan_digest}),
        "started_utc": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_seconds": round(wall_seconds, 1),
        "cpu_seconds": None if cpu_seconds is None else round(cpu_seconds, 1),
        "machine": machine_facts(),
    }


def is_current(directory: Path, command: str, code: dict) -> bool:
    """Whether ``directory`` holds a result made by ``command`` from exactly this code."""
    try:
        old = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return (code["commit"] is not None and old.get("command") == command
            and old.get("code_commit") == code["commit"]
            and old.get("uncommitted_changes") == code["changes"])


# ---------------------------------------------------------------------------
# Running one result and committing its files
# ---------------------------------------------------------------------------
def read_settings(directory: Path) -> dict:
    """A finished run's settings (its ``run.json``; a tournament's ``config.json``), or {}."""
    for name in ("run.json", "config.json"):
        path = directory / name
        if path.exists():
            return json.loads(path.read_text())
    return {}


def commit_outputs(result: CommittedResult, staging: Path, target: Path, record: dict) -> list[str]:
    """Replace ``target`` with the committed files of ``staging`` and ``record`` as the
    manifest, all at once: the new directory is complete before the old one is moved away.
    Returns the committed file names."""
    fresh = target.parent / f".{target.name}.new"
    old = target.parent / f".{target.name}.old"
    for leftover in (fresh, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    fresh.mkdir(parents=True)
    names = sorted(p.name for p in staging.iterdir() if p.is_file() and result.kept(p.name))
    for name in names:
        shutil.copy2(staging / name, fresh / name)
    atomic_write(fresh / MANIFEST, lambda p: p.write_text(
        json.dumps(canonical(record), indent=2, sort_keys=True) + "\n"))
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    if old.exists():
        shutil.rmtree(old)
    return names + [MANIFEST]


def duration(seconds) -> str:
    """``"4 min 08 s"`` (blank for None)."""
    if seconds is None:
        return ""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def index_markdown(out: Path) -> str:
    """The results directory's README: one row per committed result, from its manifest (the
    command, seed and sample, wall time, code commit), and the machine. Nothing typed."""
    lines = ["# Research results", "",
             "Every result below is regenerated, beside its `manifest.json`, by",
             "`five-up results --out docs/results` (one result: `--only NAME`; a test size:",
             "`--size small`). Each directory holds the command's `summary.md`, plots, small",
             "tables (CSV) and `run.json` (its settings); the per-row parquet frames and the",
             "largest tables are left out, and rerunning the command reproduces every file: the",
             "results depend only on the seed and the strategies' code. Intervals are 95%.",
             "Timings (`strength`'s and `openspiel`'s CPU tables, wall times) are measurements,",
             "not reproducible.", "",
             "Replication: `five-up results --replicate K` runs each result's command again on K",
             "fresh seeds and measures its primary comparisons (`comparisons.csv`) again;",
             "`replication.csv` holds each seed's estimate, the pooled estimate, Cochran's Q and",
             "I^2, and flags the comparisons whose seeds disagree beyond chance (Q's p-value,",
             "Holm-adjusted over the result's primary comparisons, at most 0.05). A result",
             "without primary comparisons is not replicated. Two committed numbers that once",
             "disagreed, and why (each a tail draw, not a fault): "
             "[seed_spread](../experiments/seed_spread/README.md).", "",
             "| result | command | wall time | CPU time | code commit | replication |",
             "| --- | --- | --- | --- | --- | --- |"]
    machines = set()
    total = cpu_total = replication_wall = 0.0
    flagged = []
    for result in RESULTS:
        directory = out / result.name
        try:
            record = json.loads((directory / MANIFEST).read_text())
        except (OSError, ValueError):
            lines.append(f"| {result.name} | not regenerated yet | | | | |")
            continue
        link = f"[{result.name}]({result.name}/summary.md)"
        commit = (record["code_commit"] or "none")[:10]
        if record.get("uncommitted_changes"):
            commit += " + uncommitted changes"
        replicated = record.get("replication")
        cell = replication.index_cell(replicated, directory)
        if replicated:
            cell = f"[{cell}]({result.name}/{replication.REPLICATION})"
            flagged += [f"{result.name}: `{i}`" for i in replicated.get("disagreeing", [])]
        lines.append(f"| {link} | `{record['command']}` | {duration(record['wall_seconds'])} | "
                     f"{duration(record.get('cpu_seconds'))} | {commit} | {cell} |")
        facts = record["machine"]
        machines.add(f"{facts['cpu']}, {facts['logical_cores']} logical cores, "
                     f"Python {facts['python']}")
        total += record["wall_seconds"]
        cpu_total += record.get("cpu_seconds") or 0.0
        if replicated:
            replication_wall += replicated["wall_seconds"]
    if machines:
        lines += ["", f"All of them: {total / 60:.1f} min wall, {cpu_total / 60:.1f} min CPU, on "
                  + "; ".join(sorted(machines)) + " (a shared machine: wall times vary by 15-30%)"
                  + (f"; their replication {replication_wall / 60:.1f} min wall more."
                     if replication_wall else ".")]
    if flagged:
        lines += ["", "**Primary comparisons whose seeds disagree beyond chance** (each result's "
                  "summary gives the seeds' estimates): " + "; ".join(flagged) + "."]
    plots = [f"[{result.name}/{p.stem}]({result.name}/{p.name})" for result in RESULTS
             for p in sorted((out / result.name).glob("*.png"))]
    if plots:
        lines += ["", "Plots: " + ", ".join(plots) + "."]
    lines.append("")
    return "\n".join(lines)


def available(module: str | None) -> bool:
    """Whether an optional module a result needs can be imported (found without importing)."""
    if module is None:
        return True
    return importlib.util.find_spec(module) is not None


def regenerate(result: CommittedResult, out: Path, size: str, code: dict, *,
               force: bool = False, quiet: bool = False, log=sys.stderr) -> dict | None:
    """Run one result's command and commit its outputs into ``out/NAME``.

    Returns its manifest, or None when it was skipped (current already, or its optional
    module missing). Raises RuntimeError (one line) when the command fails; ``out/NAME``
    is then left as it was.
    """
    target = out / result.name
    staging = out / STAGING / result.name
    arguments = list(result.arguments(size))
    if quiet:
        arguments.append("--quiet")
    command = command_line(result.arguments(size), str(target))
    if not available(result.needs):
        print(f"{result.name}: skipped ({result.needs} is not installed)", file=log)
        return None
    if not force and is_current(target, command, code):
        print(f"{result.name}: current (same code and command), kept", file=log)
        return None
    staging.parent.mkdir(parents=True, exist_ok=True)
    print(f"{result.name}: {command}", file=log, flush=True)
    started = datetime.now(timezone.utc)
    clock = time.perf_counter()
    cpu_before = children_cpu_seconds()
    done = subprocess.run((*CLI, *arguments, "--out", str(staging)),
                          check=False, stdout=subprocess.DEVNULL if quiet else None)
    wall = time.perf_counter() - clock
    cpu = children_cpu_seconds() - cpu_before
    if done.returncode != 0:
        raise RuntimeError(f"{result.name}: the command failed (exit status {done.returncode}); "
                           f"{target} is unchanged, {staging} holds what it did")
    record = manifest(result, command, code, read_settings(staging), wall, started, cpu,
                      plan_digest_of(staging))
    commit_outputs(result, staging, target, record)
    shutil.rmtree(staging)
    print(f"{result.name}: done in {wall:.0f} s", file=log, flush=True)
    return record


# ---------------------------------------------------------------------------
# Replication on fresh seeds
# ---------------------------------------------------------------------------
def committed_seeds() -> set[int]:
    """Every seed a committed result's command uses, at either size (never a fresh seed)."""
    return replication.seeds_used([r.full for r in RESULTS] + [r.small for r in RESULTS]
                                  + [r.replicate for r in RESULTS if r.replicate])


def replication_current(record: dict | None, seeds: list[int], commands: list[str],
                        code: dict) -> bool:
    """Whether a manifest's ``replication`` record was made by these seeds and commands from
    exactly this code."""
    return bool(record) and code["commit"] is not None and (
        record.get("seeds") == seeds and record.get("commands") == commands
        and record.get("code_commit") == code["commit"]
        and record.get("uncommitted_changes") == code["changes"])


def run_replicate(result: CommittedResult, arguments, directory: Path, command: str,
                  code: dict, *, quiet: bool = False, log=sys.stderr):
    """One replicate run of ``result`` into the staging ``directory``; returns its primary rows
    (:func:`experiments.release.replication.primary_rows`).

    Beside the directory, ``DIR.json`` records the command and code it was started with: a
    finished run of the same command and code is read again instead of run, an interrupted one
    resumes (the command's own shards), and one of other code or another command is removed
    first. Raises RuntimeError (one line) when the command fails or writes no comparisons.
    """
    note = directory.parent / f"{directory.name}.json"
    state = {"command": command, "code": code, "done": False}
    try:
        old = json.loads(note.read_text())
    except (OSError, ValueError):
        old = None
    if old is not None and (old.get("command"), old.get("code")) != (command, code):
        shutil.rmtree(directory, ignore_errors=True)
    elif old and old.get("done") and code["commit"] is not None:
        rows = replication.primary_rows(directory)
        if rows is not None:
            print(f"{result.name}: {command}: finished before, read again", file=log, flush=True)
            return rows
    directory.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(note, lambda p: p.write_text(json.dumps(state)))
    print(f"{result.name}: {command}", file=log, flush=True)
    done = subprocess.run((*CLI, *arguments, *(("--quiet",) if quiet else ()), "--out",
                           str(directory)), check=False,
                          stdout=subprocess.DEVNULL if quiet else None)
    if done.returncode != 0:
        raise RuntimeError(f"{result.name}: a replicate run failed (exit status "
                           f"{done.returncode}); {directory} holds what it did")
    rows = replication.primary_rows(directory)
    if rows is None:
        raise RuntimeError(f"{result.name}: the replicate run in {directory} wrote no "
                           f"{replication.COMPARISONS}")
    atomic_write(note, lambda p: p.write_text(json.dumps({**state, "done": True})))
    return rows


def replicate(result: CommittedResult, out: Path, size: str, code: dict, k: int, *,
              force: bool = False, quiet: bool = False, log=sys.stderr) -> dict | None:
    """Measure a committed result's primary comparisons again on ``k`` fresh seeds.

    Runs :meth:`CommittedResult.replicate_arguments` with each of
    :func:`experiments.release.replication.fresh_seeds` into ``out/.staging/NAME.replicates/``,
    then writes ``out/NAME/replication.csv``
    (:func:`experiments.release.replication.replication_table`, the committed run first),
    replaces the replication section of its ``summary.md`` and adds the ``replication`` record
    (seeds, commands, code, disagreements, times) to its manifest; the staged runs are removed.

    Returns the record, or None when there is nothing to do: ``k`` is 0, the result is not
    committed, has no primary comparison or no ``--seed``, its optional module is missing, or
    its manifest records this replication from this code already (``force`` runs it anyway).
    """
    target = out / result.name
    if k <= 0 or not available(result.needs):
        return None
    try:
        record = json.loads((target / MANIFEST).read_text())
    except (OSError, ValueError):
        print(f"{result.name}: not committed, not replicated", file=log)
        return None
    committed = replication.primary_rows(target)
    if committed is None or committed.empty:
        print(f"{result.name}: " + (f"no {replication.COMPARISONS}" if committed is None else
                                    f"no primary comparisons in {replication.COMPARISONS}")
              + ", not replicated", file=log)
        return None
    seed = replication.seed_of(result.arguments(size))
    if seed is None:
        print(f"{result.name}: its command has no --seed, not replicated", file=log)
        return None
    seeds = replication.fresh_seeds(result.name, seed, k, committed_seeds())
    area = out / STAGING / f"{result.name}.replicates"
    runs = [(s, result.replicate_arguments(size, s)) for s in seeds]
    commands = [record["command"]] + [command_line(arguments, str(area / str(s)))
                                      for s, arguments in runs]
    if not force and replication_current(record.get("replication"), [seed] + seeds, commands,
                                         code):
        print(f"{result.name}: replication current (same seeds, code and commands), kept",
              file=log)
        return None
    started = datetime.now(timezone.utc)
    clock = time.perf_counter()
    cpu_before = children_cpu_seconds()
    found = [(seed, committed)]
    for (s, arguments), command in zip(runs, commands[1:]):
        found.append((s, run_replicate(result, arguments, area / str(s), command, code,
                                       quiet=quiet, log=log)))
    table = replication.replication_table(found)
    atomic_write(target / replication.REPLICATION,
                 lambda p: table.to_csv(p, index=False, float_format="%.6g"))
    summary = target / "summary.md"
    if summary.exists():
        section = replication.summary_section(table, commands,
                                              replication.percentage_quantities(target))
        text = replication.with_section(summary.read_text(), section)
        atomic_write(summary, lambda p: p.write_text(text))
    flagged = replication.disagreeing(table)
    record["replication"] = {
        "seeds": [seed] + seeds, "commands": commands,
        "code_commit": code["commit"], "uncommitted_changes": code["changes"],
        "comparisons": len(table), "disagree": len(flagged), "disagreeing": flagged,
        "started_utc": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_seconds": round(time.perf_counter() - clock, 1),
        "cpu_seconds": round(children_cpu_seconds() - cpu_before, 1)}
    atomic_write(target / MANIFEST, lambda p: p.write_text(
        json.dumps(canonical(record), indent=2, sort_keys=True) + "\n"))
    shutil.rmtree(area)
    print(f"{result.name}: replicated on {k} fresh seeds in "
          f"{record['replication']['wall_seconds']:.0f} s: "
          + (f"{len(flagged)} of {len(table)} primary comparisons disagree" if flagged
             else f"none of {len(table)} primary comparisons disagrees"), file=log, flush=True)
    return record["replication"]


def reads_result(path: Path, name: str) -> bool:
    """Whether the notebook at ``path`` reads the committed result ``name`` (its code names
    ``RESULTS / "NAME"``, the notebooks' way to the results directory)."""
    cells = json.loads(path.read_text()).get("cells", [])
    code = "\n".join("".join(cell.get("source", "")) for cell in cells
                     if cell.get("cell_type") == "code")
    return re.search(rf"RESULTS\s*/\s*[\"']{re.escape(name)}[\"']", code) is not None


def notebooks_to_run(notebooks: Path, names=None) -> list[Path]:
    """The notebooks of ``notebooks`` to execute after regenerating the results ``names``: all
    of them (None), or those that read one of ``names`` (:func:`reads_result`)."""
    paths = sorted(Path(notebooks).glob("*.ipynb"))
    if names is None:
        return paths
    return [path for path in paths if any(reads_result(path, name) for name in names)]


def notebooks_record(old: dict, timings: dict, code: dict) -> dict:
    """``notebooks.json``: per notebook, the code it was last executed with and its wall time
    (the executed ones from ``timings`` and ``code``, the others kept from ``old``), and the
    machine."""
    kept = dict(old.get("notebooks", {}))
    if "notebooks" not in old:  # the older layout: one code stamp for every notebook
        kept = {name: {"code_commit": old.get("code_commit"),
                       "uncommitted_changes": old.get("uncommitted_changes"),
                       "wall_seconds": seconds}
                for name, seconds in old.get("wall_seconds", {}).items()}
    for name, seconds in timings.items():
        kept[name] = {"code_commit": code["commit"], "uncommitted_changes": code["changes"],
                      "wall_seconds": seconds}
    return {"notebooks": dict(sorted(kept.items())), "machine": machine_facts()}


def run_notebooks(notebooks: Path, results: Path, *, paths=None, log=sys.stderr) -> dict:
    """Execute the notebooks of ``notebooks`` (``paths``: these; default every one) at full size
    and save each with its outputs.

    The notebooks read the committed results from ``results`` (``FIVE_UP_RESULTS``), so their
    figures and prose are those of the results just regenerated. Each is written back only
    when every cell ran. Returns ``{notebook: wall seconds}``; needs ``nbclient`` (the test
    extra).
    """
    import nbclient
    import nbformat

    timings = {}
    for path in (sorted(notebooks.glob("*.ipynb")) if paths is None else paths):
        notebook = nbformat.read(path, as_version=4)
        with tempfile.TemporaryDirectory(prefix=f"five-up-{path.stem}-") as scratch:
            env = {"FIVE_UP_NOTEBOOK_SCALE": "full", "FIVE_UP_NOTEBOOK_OUT": scratch,
                   "FIVE_UP_RESULTS": str(results.resolve()), "MPLBACKEND": "Agg",
                   "FIVE_UP_REPO": str(notebooks.resolve().parent)}
            saved = {key: os.environ.get(key) for key in env}
            os.environ.update(env)
            print(f"notebook {path.name}: executing", file=log, flush=True)
            clock = time.perf_counter()
            try:
                nbclient.NotebookClient(notebook, timeout=NOTEBOOK_CELL_TIMEOUT,
                                        kernel_name="python3",
                                        resources={"metadata": {"path": str(path.parent)}}
                                        ).execute()
            except (nbclient.exceptions.CellExecutionError,
                    nbclient.exceptions.CellTimeoutError, RuntimeError) as exc:
                # a failing cell: the saved notebook stays as it was
                raise RuntimeError(f"notebook {path.name} failed: {' '.join(str(exc).split())[:300]}"
                                   ) from None
            finally:
                for key, value in saved.items():
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value
        timings[path.name] = round(time.perf_counter() - clock, 1)
        atomic_write(path, lambda p, nb=notebook: nbformat.write(nb, str(p)))
        print(f"notebook {path.name}: saved ({timings[path.name]:.0f} s)", file=log, flush=True)
    return timings


def check_replicates(value) -> int:
    """``--replicate``'s value: a number of fresh seeds, 0 or more; ValueError (one line)."""
    try:
        k = int(str(value).strip())
    except ValueError:
        raise ValueError(f"--replicate expects a number of fresh seeds (0 or more), found "
                         f"{value!r}") from None
    if k < 0:
        raise ValueError(f"--replicate expects a number of fresh seeds (0 or more), found {k}")
    return k


def regenerate_all(out, *, only: str | None = None, size: str = "full", force: bool = False,
                   quiet: bool = False, readme: Path | None = None,
                   notebooks: Path | None = None, root: Path | None = None,
                   replicates: int = 0, log=sys.stderr) -> list[dict]:
    """Regenerate the chosen results (see the module docstring); returns their manifests.

    ``replicates``: fresh seeds on which each chosen result's primary comparisons are measured
    again (:func:`replicate`; 0: none, an existing replication is kept while its result is).
    ``readme``: the README whose generated blocks are rewritten from ``out`` afterwards
    (:func:`experiments.release.readme_numbers.write`); ``notebooks``: the folder of notebooks then
    executed and saved at full size (:func:`run_notebooks`: every one, or with ``only`` those
    that read a chosen result); None leaves either alone.
    """
    check_size(size)
    chosen = choose(only)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    root = Path.cwd() if root is None else root
    code = code_state(root)
    done = []
    for result in chosen:
        record = regenerate(result, out, size, code, force=force, quiet=quiet, log=log)
        if record is not None:
            done.append(record)
            if "--ship" in result.arguments(size):
                # the shipped table is code: the results after it run with it, and say so
                code = code_state(root)
        replicate(result, out, size, code, replicates, force=force, quiet=quiet, log=log)
    staging = out / STAGING
    if staging.exists() and not any(staging.iterdir()):
        staging.rmdir()
    atomic_write(out / INDEX, lambda p: p.write_text(index_markdown(out)))
    if readme is not None:
        changed = readme_numbers.write(readme, out)
        print(f"{readme}: {changed} generated block(s) rewritten" if changed
              else f"{readme}: generated blocks already current", file=log)
    if notebooks is not None:
        paths = notebooks_to_run(Path(notebooks), None if only is None
                                 else [result.name for result in chosen])
        if not paths:
            print(f"notebooks: none reads {', '.join(r.name for r in chosen)}; not executed",
                  file=log)
            return done
        # the code the notebooks run: the results' code and any table a result just shipped
        code = code_state(root)
        timings = run_notebooks(Path(notebooks), out, paths=paths, log=log)
        try:
            old = json.loads((out / NOTEBOOKS_MANIFEST).read_text())
        except (OSError, ValueError):
            old = {}
        record = notebooks_record(old, timings, code)
        atomic_write(out / NOTEBOOKS_MANIFEST, lambda p: p.write_text(
            json.dumps(canonical(record), indent=2, sort_keys=True) + "\n"))
    return done
