"""Replication on fresh seeds: a committed result's primary comparisons measured again.

``five-up results --replicate K`` (:func:`experiments.release.results.replicate`) runs each
committed result's command again with ``K`` fresh seeds (or its cheaper ``replicate``
arguments, which compute the same primary comparisons), in the staging area, and writes
``replication.csv`` beside the result (:func:`replication_table`): one row per primary
comparison of the committed run's ``comparisons.csv`` (matched by ``id`` across the runs), with

- each seed's estimate and standard error, the committed run's seed first (``seed_0``,
  ``estimate_0``, ``se_0``), then the fresh ones (``seed_1`` ..); the standard error is the one
  behind the run's marginal 95% interval (:func:`experiments.stats.interval_se`, t on
  ``units - 1``);
- their inverse-variance pooled estimate with its 95% interval (``pooled``, ``pooled_low``,
  ``pooled_high``), Cochran's Q on ``df`` = seeds - 1 degrees of freedom, its p-value ``q_p``
  and Higgins' ``i2`` (:func:`experiments.stats.pooled_estimate`);
- ``q_p_holm``, the Q p-values Holm-adjusted over the result's primary comparisons, and
  ``disagree``: ``q_p_holm`` at most :data:`ALPHA`. The seeds of a flagged comparison differ by
  more than their own intervals allow; the correction keeps the chance of flagging any of a
  result's primary comparisons whose seeds agree at 5%, as its primary family is tested. Q
  assumes each seed's standard error is right: intervals too narrow for their design make the
  seeds disagree too.

Fresh seeds (:func:`fresh_seeds`) are a pure function of the result's name, its committed seed
and the replicate's index: the SHA-256 of ``"five-up replicate|NAME|SEED|i"`` read as a number
in ``100,000,000 .. 999,999,999``, skipping any seed a committed result uses and any already
drawn, so ``K = 5`` extends ``K = 3`` with two more (a command's other seed, the tuner's
``--validation-seed``, becomes the fresh seed plus one). A replicate never ships a table
(``--ship`` is dropped).

The result's summary gets a section between markers (:func:`summary_section`,
:func:`with_section`), replaced when the replication is made again.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.comparisons import PLAN_FILE, PRIMARY, ComparisonPlan, holm
from experiments.stats import interval_se, interval_text, pooled_estimate

REPLICATION = "replication.csv"
"""The file written beside each replicated result."""

COMPARISONS = "comparisons.csv"
"""A run's adjusted comparisons (one row per declared comparison computed)."""

SEED_FLAGS = ("--seed",)
"""The option whose value a replicate replaces (a command's master seed)."""

OTHER_SEEDS = {"--validation-seed": 1}
"""Further seed options a replicate moves with its master seed: to the fresh seed plus this
offset (the tuner's held-out deals stay held out, and fresh)."""

SEED_OPTIONS = SEED_FLAGS + tuple(OTHER_SEEDS)
"""Options whose values are seeds a committed result uses (never drawn as fresh seeds)."""

FRESH_LOW, FRESH_SPAN = 100_000_000, 900_000_000
"""Fresh seeds lie in ``FRESH_LOW .. FRESH_LOW + FRESH_SPAN - 1`` (nine digits)."""

ALPHA = 0.05
"""The family-wise level at which a result's seeds are flagged as disagreeing."""

SECTION = "replication"
SECTION_START = f"<!-- {SECTION}:start (written by five-up results --replicate) -->"
SECTION_END = f"<!-- {SECTION}:end -->"
"""The markers around the replication section of a result's ``summary.md``."""


# ---------------------------------------------------------------------------
# Seeds and the replicate's arguments
# ---------------------------------------------------------------------------
def seed_of(arguments) -> int | None:
    """The master seed of a command's arguments (the value after ``--seed``), or None."""
    arguments = list(arguments)
    for flag in SEED_FLAGS:
        if flag in arguments[:-1]:
            return int(arguments[arguments.index(flag) + 1])
    return None


def with_seed(arguments, seed: int) -> tuple[str, ...]:
    """``arguments`` with the master seed's value replaced by ``seed`` (and each of
    :data:`OTHER_SEEDS` by ``seed`` plus its offset); ValueError without a master seed."""
    arguments = list(arguments)
    for flag in SEED_FLAGS:
        if flag in arguments[:-1]:
            arguments[arguments.index(flag) + 1] = str(int(seed))
            for other, offset in OTHER_SEEDS.items():
                if other in arguments[:-1]:
                    arguments[arguments.index(other) + 1] = str(int(seed) + offset)
            return tuple(arguments)
    raise ValueError(f"the command {' '.join(arguments[:1])} ... has no --seed to replace")


def without_shipping(arguments) -> tuple[str, ...]:
    """``arguments`` without ``--ship PATH`` (the option that writes a table into the code)."""
    arguments, out = list(arguments), []
    skip = False
    for word in arguments:
        if skip:
            skip = False
        elif word == "--ship":
            skip = True
        else:
            out.append(word)
    return tuple(out)


def seeds_used(argument_lists) -> set[int]:
    """Every seed the given commands' arguments name (:data:`SEED_OPTIONS`)."""
    used = set()
    for arguments in argument_lists:
        arguments = list(arguments)
        for i, word in enumerate(arguments[:-1]):
            if word in SEED_OPTIONS:
                used.add(int(arguments[i + 1]))
    return used


def fresh_seeds(name: str, seed: int, k: int, taken=()) -> list[int]:
    """The first ``k`` fresh seeds of result ``name`` committed with ``seed`` (see the module
    docstring); none of them is in ``taken`` or equal to ``seed``."""
    avoid = set(int(s) for s in taken) | {int(seed)}
    seeds: list[int] = []
    i = 0
    while len(seeds) < k:
        digest = hashlib.sha256(f"five-up replicate|{name}|{int(seed)}|{i}".encode()).digest()
        candidate = FRESH_LOW + int.from_bytes(digest[:8], "big") % FRESH_SPAN
        if candidate not in avoid and candidate not in seeds:
            seeds.append(candidate)
        i += 1
    return seeds


# ---------------------------------------------------------------------------
# Reading a run's primary comparisons
# ---------------------------------------------------------------------------
def primary_rows(directory) -> pd.DataFrame | None:
    """The primary rows of a run's ``comparisons.csv`` (in its order): ``id``, ``quantity``,
    ``estimate`` (its ``difference``), ``se`` (behind its marginal 95% interval), ``units``.
    None when the run wrote no ``comparisons.csv``; an empty frame when it has no primary row."""
    path = Path(directory) / COMPARISONS
    if not path.exists():
        return None
    frame = pd.read_csv(path)
    frame = frame[frame["family"] == PRIMARY].reset_index(drop=True)
    units = (frame["units"].to_numpy(dtype=np.float64) if "units" in frame
             else np.full(len(frame), np.nan))
    finite = np.isfinite(units)
    se_t = interval_se(frame["low"], frame["high"], np.where(finite, units, 2.0))
    se_z = interval_se(frame["low"], frame["high"])
    return pd.DataFrame({
        "id": frame["id"].astype(str),
        "quantity": frame["quantity"].astype(str) if "quantity" in frame else "",
        "estimate": frame["difference"].to_numpy(dtype=np.float64),
        "se": np.where(finite & (units >= 2), se_t, se_z),
        "units": units,
    })


def replicable(directory) -> bool:
    """Whether a committed result has primary comparisons to replicate."""
    rows = primary_rows(directory)
    return rows is not None and not rows.empty


# ---------------------------------------------------------------------------
# The replication table
# ---------------------------------------------------------------------------
def replication_table(runs, alpha: float = ALPHA) -> pd.DataFrame:
    """Each primary comparison's estimates across seeds, pooled and tested for agreement.

    Parameters
    ----------
    runs : sequence of (int, DataFrame)
        ``(seed, primary_rows(run directory))``, the committed run first: its rows define the
        comparisons (a fresh run without one of them gives nan there, left out of the pooling).
    alpha : float
        The level of the Holm-adjusted flag.

    Returns
    -------
    DataFrame
        One row per primary comparison of the committed run (see the module docstring):
        ``id``, ``quantity``, then ``seed_i``, ``estimate_i``, ``se_i`` for each run ``i``,
        then ``seeds`` (runs with an estimate), ``pooled``, ``pooled_low``, ``pooled_high``,
        ``q``, ``df``, ``q_p``, ``q_p_holm``, ``i2``, ``disagree``.
    """
    runs = list(runs)
    committed = runs[0][1]
    table = committed[["id", "quantity"]].copy()
    estimates = np.full((len(table), len(runs)), np.nan)
    errors = np.full((len(table), len(runs)), np.nan)
    for i, (seed, rows) in enumerate(runs):
        by_id = rows.set_index("id")
        found = by_id.reindex(table["id"])
        estimates[:, i] = found["estimate"].to_numpy(dtype=np.float64)
        errors[:, i] = found["se"].to_numpy(dtype=np.float64)
        table[f"seed_{i}"] = int(seed)
        table[f"estimate_{i}"] = estimates[:, i]
        table[f"se_{i}"] = errors[:, i]
    pooled = [pooled_estimate(x, s) for x, s in zip(estimates, errors)]
    usable = np.isfinite(estimates) & np.isfinite(errors) & (errors > 0)
    table["seeds"] = usable.sum(axis=1).astype(np.int64)
    table["pooled"] = [p.estimate for p in pooled]
    table["pooled_low"] = [p.low for p in pooled]
    table["pooled_high"] = [p.high for p in pooled]
    table["q"] = [p.q for p in pooled]
    table["df"] = np.array([p.df for p in pooled], dtype=np.int64)
    table["q_p"] = [p.p for p in pooled]
    table["i2"] = [p.i2 for p in pooled]
    table["q_p_holm"], table["disagree"] = disagreement_flags(table["q_p"], alpha)
    order = (["id", "quantity"] + [f"{c}_{i}" for i in range(len(runs))
                                   for c in ("seed", "estimate", "se")]
             + ["seeds", "pooled", "pooled_low", "pooled_high", "q", "df", "q_p", "q_p_holm",
                "i2", "disagree"])
    return table[order]


def disagreement_flags(q_p, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Cochran's Q p-values of a result's primary comparisons Holm-adjusted over those that have
    one (nan elsewhere), and the flags: adjusted p at most ``alpha``."""
    q_p = np.asarray(q_p, dtype=np.float64)
    tested = np.isfinite(q_p)
    adjusted = np.full(q_p.shape, np.nan)
    if tested.any():
        adjusted[tested] = holm(q_p[tested], alpha=alpha)[0]
    return adjusted, np.isfinite(adjusted) & (adjusted <= alpha)


def run_count(table: pd.DataFrame) -> int:
    """How many runs (seeds) a replication table holds."""
    return sum(1 for c in table.columns if re.fullmatch(r"seed_\d+", c))


def disagreeing(table: pd.DataFrame) -> list[str]:
    """The ids of the comparisons whose seeds disagree beyond chance."""
    return table.loc[table["disagree"].astype(bool), "id"].tolist()


# ---------------------------------------------------------------------------
# Words: the result's summary section and the index's cell
# ---------------------------------------------------------------------------
def percentage_quantities(directory) -> set[str]:
    """The quantities of a run's plan (``plan.json``) that are shares (worded in points)."""
    path = Path(directory) / PLAN_FILE
    if not path.exists():
        return set()
    plan = ComparisonPlan.from_json(json.loads(path.read_text()))
    return {q.name for q in plan.quantities if q.pct}


def estimate_text(value: float, se: float, pct: bool) -> str:
    """``"+3.9 pp (0.8)"`` or ``"+0.041 (0.010)"``: an estimate and its standard error."""
    if not np.isfinite(value):
        return "missing"
    if pct:
        return f"{100 * value:+.1f} pp ({100 * se:.1f})"
    return f"{value:+.3f} ({se:.3f})"


def p_text(p: float) -> str:
    """A p-value in a table: three decimals, ``<0.001`` below."""
    return f"{p:.3f}" if p >= 0.001 else "<0.001"


def cell_text(text: str) -> str:
    """``text`` safe in a Markdown table cell (its pipes escaped: comparison ids hold them)."""
    return text.replace("|", "\\|")


def summary_section(table: pd.DataFrame, commands: list[str], pct=()) -> str:
    """The replication section of a result's summary: what was run, the flagged comparisons,
    and one row per primary comparison."""
    runs = run_count(table)
    seeds = [int(table[f"seed_{i}"].iloc[0]) for i in range(runs)] if len(table) else []
    flagged = disagreeing(table)
    lines = [SECTION_START, "## Replication on fresh seeds", "",
             f"The {len(table)} primary comparison{'s' if len(table) != 1 else ''} measured again "
             f"on {runs - 1} fresh seed{'s' if runs != 2 else ''} ({', '.join(map(str, seeds[1:]))}"
             f"; the committed run's seed is {seeds[0] if seeds else ''}), each seed's estimate "
             "with its standard error, pooled by inverse variance (`replication.csv`). Cochran's "
             "Q asks whether the seeds differ by more than their own errors allow; its p-value "
             f"is Holm-adjusted over the result's primary comparisons, flagged at {ALPHA:g}."]
    if flagged:
        lines += ["", f"**The seeds disagree beyond chance on {len(flagged)} of {len(table)}:** "
                  + "; ".join(f"`{i}`" for i in flagged) + ". Their committed estimates do not "
                  "replicate within their intervals: read them with the pooled estimate and "
                  "look for the cause (an interval too narrow for its design, or a run that "
                  "depends on more than its seed)."]
    else:
        lines += ["", "No comparison's seeds disagree beyond chance."]
    header = ["comparison"] + [f"seed {s}" + (" (committed)" if i == 0 else "")
                               for i, s in enumerate(seeds)]
    header += ["pooled [95%]", "Q (df)", "p (Holm)", "I^2", "seeds disagree"]
    lines += ["", "Estimates (standard errors):", "", "| " + " | ".join(header) + " |",
              "|" + " --- |" * len(header)]
    for row in table.itertuples(index=False):
        is_pct = row.quantity in pct
        data = row._asdict()
        cells = [f"`{cell_text(row.id)}`"] + [
            estimate_text(data[f"estimate_{i}"], data[f"se_{i}"], is_pct) for i in range(runs)]
        pooled = (interval_text(row.pooled, row.pooled_low, row.pooled_high, 3, is_pct)
                  if np.isfinite(row.pooled) else "missing")
        q = f"{row.q:.2f} ({row.df})" if np.isfinite(row.q) else "-"
        p = f"{p_text(row.q_p)} ({p_text(row.q_p_holm)})" if np.isfinite(row.q_p) else "-"
        i2 = f"{100 * row.i2:.0f}%" if np.isfinite(row.i2) else "-"
        cells += [pooled, q, p, i2, "**yes**" if row.disagree else "no"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "The fresh runs:", ""] + [f"- `{command}`" for command in commands[1:]]
    lines += [SECTION_END]
    return "\n".join(lines)


def with_section(summary: str, section: str) -> str:
    """``summary`` with its replication section replaced by ``section`` (appended when it has
    none)."""
    if SECTION_START in summary and SECTION_END in summary:
        head, _, rest = summary.partition(SECTION_START)
        _, _, tail = rest.partition(SECTION_END)
        return head + section + tail
    return summary.rstrip("\n") + "\n\n" + section + "\n"


def index_cell(record: dict | None, directory) -> str:
    """The results index's replication cell for a committed result: its manifest's
    ``replication`` record, or why it has none."""
    if record:
        k = len(record["seeds"]) - 1
        n, bad = record["comparisons"], record["disagree"]
        text = f"{k} fresh seed{'s' if k != 1 else ''}: "
        if bad:
            return text + f"**{bad} of {n} primary comparisons disagree**"
        return text + f"{n} primary comparison{'s' if n != 1 else ''}, none disagrees"
    rows = primary_rows(directory)
    if rows is None:
        return "no comparisons.csv: not replicated"
    if rows.empty:
        return "no primary comparisons: not replicated"
    return "not replicated yet"


def readme_text(results) -> str:
    """README's paragraph on replication: from the committed results' manifests (their
    ``replication`` records), which results were measured again, on how many fresh seeds, and
    which primary comparisons' seeds disagree beyond chance."""
    replicated, without, flagged = [], [], []
    for path in sorted(Path(results).glob("*/manifest.json")):
        record = json.loads(path.read_text()).get("replication")
        if record:
            replicated.append(record)
            flagged += [f"{path.parent.name}: `{i}`" for i in record.get("disagreeing", [])]
        elif not replicable(path.parent):
            without.append(path.parent.name)
    if not replicated:
        return ("No committed result carries a replication yet: `five-up results --replicate 3` "
                "measures each result's primary comparisons again on three fresh seeds "
                "(`replication.csv` beside the result, flagged in "
                "[docs/results/README.md](docs/results/README.md)).")
    seeds = sorted({len(r["seeds"]) - 1 for r in replicated})
    comparisons = sum(r["comparisons"] for r in replicated)
    text = (f"Replication: {len(replicated)} committed results measured their {comparisons} "
            f"primary comparisons again on {' or '.join(map(str, seeds))} fresh seeds "
            "(`replication.csv` beside each; [docs/results/README.md](docs/results/README.md)). ")
    if flagged:
        text += (f"The seeds disagree beyond chance (Cochran's Q, Holm over each result's primary "
                 f"comparisons) on {len(flagged)}: " + "; ".join(flagged) + ".")
    else:
        text += ("On none do the seeds disagree beyond chance (Cochran's Q, Holm over each "
                 "result's primary comparisons).")
    if without:
        text += f" Without primary comparisons, not replicated: {', '.join(without)}."
    return text
