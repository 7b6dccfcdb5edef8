"""Comparison families: declared before a run, adjusted as families, worded by the adjusted interval.

A study's :class:`ComparisonPlan` is built from its settings alone, before anything plays, and
written as ``plan.json`` beside ``run.json`` (its digest goes into the committed result's
manifest). It names every comparison the study will state (an ``id``), the family it belongs to
and the quantity it measures; each quantity carries a smallest effect of interest ``sesoi``.

- **primary**: the few comparisons the study is for; Holm's step-down procedure controls the
  family-wise error at ``alpha``.
- **exploratory**: the rest; the Benjamini-Hochberg procedure controls the false discovery
  rate at ``alpha``.

:meth:`ComparisonPlan.adjust` takes the computed contrasts (one row per comparison, its
estimate and its marginal 95% interval) and adds each row's p-value, its adjusted p-value and an
adjusted interval whose level matches the procedure's decision (the step-down level for Holm,
the false-coverage-rate level of Benjamini and Yekutieli for BH), so that an adjusted interval
excludes 0 exactly where the procedure rejects. The verdict reads that interval:

- ``equivalent``: it lies inside ``(-sesoi, +sesoi)`` (two one-sided tests at the adjusted
  level): "equivalent within +-D";
- ``finding``: otherwise, it excludes 0: "A higher" / "A lower";
- ``inconclusive``: otherwise: "no detectable difference".

A comparison computed but not declared is refused (the plan is the declaration); one declared
but not computed counts in its family's size (the correction does not shrink after the fact).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from experiments.stats import (interval_se, interval_text, t_quantile_at, t_two_sided_p)
from sim.files import atomic_write, canonical

PLAN_FILE = "plan.json"
"""The file a run's plan is written to, beside ``run.json``."""

PRIMARY = "primary"
EXPLORATORY = "exploratory"
FAMILIES = (PRIMARY, EXPLORATORY)
"""The two families of a plan, and the procedure of each."""
PROCEDURES = {PRIMARY: "Holm", EXPLORATORY: "Benjamini-Hochberg"}

ALPHA = 0.05
"""The family-wise error (primary) and false discovery rate (exploratory) a plan controls."""


class Verdict(NamedTuple):
    """The verdicts a declared comparison can get (the ``verdict`` column)."""

    finding: str = "finding"
    equivalent: str = "equivalent"
    inconclusive: str = "inconclusive"


VERDICTS = Verdict()

ID_SEPARATOR = " | "


def comparison_id(*parts) -> str:
    """A comparison's id from its parts, in order: ``comparison_id("2p", "exact vs greedy",
    "exact - greedy", "won")`` -> ``"2p | exact vs greedy | exact - greedy | won"``."""
    return ID_SEPARATOR.join(str(p) for p in parts)


class Quantity(NamedTuple):
    """A quantity a study compares.

    Attributes
    ----------
    name : str
        Its key (the ``quantity`` of its comparisons).
    words : str
        Its name in a sentence ("match win share").
    sesoi : float
        The smallest effect of interest, in the quantity's own units (a share: 0.02 for 2
        percentage points); a difference inside ``+-sesoi`` is practically nothing.
    pct : bool
        A share, worded in percentage points.
    why : str
        One line: why that smallest effect (what a player or a researcher would notice).
    """

    name: str
    words: str
    sesoi: float
    pct: bool = False
    why: str = ""


class Comparison(NamedTuple):
    """One declared comparison: its ``id``, its ``family`` (primary or exploratory) and the name
    of the :class:`Quantity` it measures."""

    id: str
    family: str
    quantity: str


ADJUSTED_COLUMNS = ["id", "family", "quantity", "difference", "low", "high", "units", "sesoi",
                    "p", "p_adjusted", "adj_level", "adj_low", "adj_high", "verdict"]
"""The columns :meth:`ComparisonPlan.adjust` adds or fills (besides the frame's own)."""


@dataclass(frozen=True)
class ComparisonPlan:
    """A run's declared comparisons (see the module docstring).

    Attributes
    ----------
    study : str
        The study or tool (``settings["experiment"]``).
    quantities : tuple of Quantity
    comparisons : tuple of Comparison
        Every comparison the run will state, ids unique.
    alpha : float
    note : str
        What the primary comparisons are and why (one or two sentences, written into the plan).
    """

    study: str
    quantities: tuple
    comparisons: tuple
    alpha: float = ALPHA
    note: str = ""

    def __post_init__(self):
        ids = [c.id for c in self.comparisons]
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"comparison declared twice: {twice[0]!r}")
        names = {q.name for q in self.quantities}
        for c in self.comparisons:
            if c.family not in FAMILIES:
                raise ValueError(f"comparison {c.id!r}: family {c.family!r} is not one of "
                                 f"{', '.join(FAMILIES)}")
            if c.quantity not in names:
                raise ValueError(f"comparison {c.id!r}: quantity {c.quantity!r} is not declared")

    # -- the declaration ---------------------------------------------------------------------
    def quantity(self, name: str) -> Quantity:
        """The declared quantity ``name``."""
        for q in self.quantities:
            if q.name == name:
                return q
        raise KeyError(name)

    def family_size(self, family: str) -> int:
        """How many comparisons the plan declares in ``family``."""
        return sum(c.family == family for c in self.comparisons)

    def to_json(self) -> dict:
        """The plan as JSON-ready data (what ``plan.json`` holds)."""
        return {
            "study": self.study, "alpha": self.alpha, "note": self.note,
            "procedures": dict(PROCEDURES),
            "quantities": [q._asdict() for q in self.quantities],
            "comparisons": [c._asdict() for c in self.comparisons],
        }

    @classmethod
    def from_json(cls, data: dict) -> ComparisonPlan:
        """A plan read back from :meth:`to_json`'s data."""
        return cls(data["study"], tuple(Quantity(**q) for q in data["quantities"]),
                   tuple(Comparison(**c) for c in data["comparisons"]), data["alpha"],
                   data.get("note", ""))

    def digest(self) -> str:
        """16 hexadecimal digits of the SHA-256 of the plan's canonical JSON."""
        text = json.dumps(canonical(self.to_json()), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def write(self, directory) -> Path:
        """Write the plan as ``directory/plan.json`` (atomically) and return its path."""
        path = Path(directory) / PLAN_FILE
        text = json.dumps(canonical(self.to_json()), indent=2) + "\n"
        atomic_write(path, lambda p: p.write_text(text))
        return path

    # -- the adjustment ----------------------------------------------------------------------
    def adjust(self, frame: pd.DataFrame, units: str = "deals") -> pd.DataFrame:
        """The computed comparisons adjusted as declared.

        Parameters
        ----------
        frame : DataFrame
            One row per computed comparison: ``id``, ``difference``, ``low``, ``high`` (its
            marginal 95% interval: t over ``units``, or any interval whose half-width is about
            1.96 standard errors) and the column ``units`` (the number of units, deals or hands,
            behind it; its t quantile uses ``units - 1`` degrees of freedom).
        units : str
            The name of the units column.

        Returns
        -------
        DataFrame
            ``frame`` (same rows, same order) with :data:`ADJUSTED_COLUMNS` filled: ``family``,
            ``quantity`` and ``sesoi`` from the plan, ``p`` (two-sided, t on ``units - 1``),
            ``p_adjusted`` (Holm or BH within the family), ``adj_level`` (the adjusted
            interval's coverage), ``adj_low``, ``adj_high`` and ``verdict``.

        Raises
        ------
        ValueError
            A row's id is not declared, or appears twice.
        """
        declared = {c.id: c for c in self.comparisons}
        out = frame.copy()
        if out.empty:
            for column in ADJUSTED_COLUMNS:
                if column not in out:
                    out[column] = pd.Series(dtype=object)
            return out
        ids = out["id"].tolist()
        unknown = [i for i in ids if i not in declared]
        if unknown:
            raise ValueError(f"comparison {unknown[0]!r} was not declared in the "
                             f"{self.study} plan")
        if len(set(ids)) != len(ids):
            raise ValueError(f"comparison {next(i for i in ids if ids.count(i) > 1)!r} "
                             "computed twice")
        out["family"] = [declared[i].family for i in ids]
        out["quantity"] = [declared[i].quantity for i in ids]
        out["sesoi"] = [self.quantity(declared[i].quantity).sesoi for i in ids]
        n = out[units].to_numpy(dtype=np.float64) if units in out else np.full(len(out), np.nan)
        if units != "units":
            out["units"] = out[units]
        d = out["difference"].to_numpy(dtype=np.float64)
        se = interval_se(out["low"], out["high"], np.where(np.isfinite(n), n, np.nan))
        se = np.where(np.isfinite(n), se, interval_se(out["low"], out["high"]))
        df = np.where(np.isfinite(n), n - 1, np.inf)
        out["p"] = [_p_value(di, si, fi) for di, si, fi in zip(d, se, df)]
        out["p_adjusted"] = np.nan
        out["adj_level"] = np.nan
        for family in FAMILIES:
            rows = np.flatnonzero(out["family"].to_numpy() == family)
            if rows.size == 0:
                continue
            p = out["p"].to_numpy(dtype=np.float64)[rows]
            adjust = holm if family == PRIMARY else benjamini_hochberg
            p_adj, levels = adjust(p, self.family_size(family), self.alpha)
            out.loc[out.index[rows], "p_adjusted"] = p_adj
            out.loc[out.index[rows], "adj_level"] = 1.0 - levels
        alpha_i = 1.0 - out["adj_level"].to_numpy(dtype=np.float64)
        q = np.array([t_quantile_at(a, f) if np.isfinite(a) else np.nan
                      for a, f in zip(alpha_i, df)])
        # a zero-width interval (both sides equal on every unit) stays at its estimate; a
        # missing one (fewer than two units) stays missing: no verdict from nothing
        out["adj_low"] = np.where(se > 0, d - q * se, np.where(se == 0, d, np.nan))
        out["adj_high"] = np.where(se > 0, d + q * se, np.where(se == 0, d, np.nan))
        out["verdict"] = [verdict(lo, hi, s) for lo, hi, s in
                          zip(out["adj_low"], out["adj_high"], out["sesoi"])]
        return out


def _p_value(difference: float, se: float, df: float) -> float:
    """Two-sided p-value of ``difference`` with standard error ``se`` (t on ``df``); 1 for a
    missing estimate or interval, and for a zero-width interval 1 at a zero difference, else 0."""
    if not np.isfinite(difference):
        return 1.0
    if not np.isfinite(se):
        return 1.0
    if se == 0:
        return 1.0 if difference == 0 else 0.0
    return t_two_sided_p(difference / se, df)


def holm(p, m: int | None = None, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down procedure over a family of ``m`` hypotheses (``m >= len(p)``; the
    undeclared rest count as p = 1).

    Returns
    -------
    p_adjusted : ndarray of float64, shape (len(p),)
        ``max_{j <= i} min(1, (m - j + 1) p_(j))`` in sorted order, put back in input order.
    alpha_i : ndarray of float64, shape (len(p),)
        Each hypothesis's interval level ``1 - alpha_i``: ``alpha / (m - i + 1)`` for the
        hypotheses rejected in order, and for the rest the level at which the procedure
        stopped, so that an interval excludes 0 exactly where Holm rejects.
    """
    p = np.nan_to_num(np.asarray(p, dtype=np.float64), nan=1.0)
    m = len(p) if m is None else int(m)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    steps = m - np.arange(len(p))  # m - i + 1 for i = 1..k
    p_adj = np.minimum(1.0, np.maximum.accumulate(steps * ranked))
    thresholds = alpha / steps
    rejected = ranked <= thresholds
    stop = int(np.argmin(rejected)) if not rejected.all() else len(p)
    alpha_sorted = thresholds.copy()
    if stop < len(p):
        alpha_sorted[stop:] = thresholds[stop]
    out_p, out_a = np.empty_like(p), np.empty_like(p)
    out_p[order], out_a[order] = p_adj, alpha_sorted
    return out_p, out_a


def benjamini_hochberg(p, m: int | None = None,
                       alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """The Benjamini-Hochberg step-up procedure over a family of ``m`` hypotheses.

    Returns
    -------
    p_adjusted : ndarray of float64, shape (len(p),)
        BH's adjusted p-values ``min_{j >= i} min(1, m p_(j) / j)``.
    alpha_i : ndarray of float64, shape (len(p),)
        The interval levels: ``R alpha / m`` for the ``R`` rejected hypotheses (Benjamini and
        Yekutieli's false-coverage-rate intervals) and ``(R + 1) alpha / m`` for the rest, whose
        p-values all exceed it, so their intervals hold 0.
    """
    p = np.nan_to_num(np.asarray(p, dtype=np.float64), nan=1.0)
    m = len(p) if m is None else int(m)
    k = len(p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    rank = np.arange(1, k + 1)
    p_adj = np.minimum.accumulate((np.minimum(1.0, m * ranked / rank))[::-1])[::-1]
    passing = np.flatnonzero(ranked <= rank * alpha / m)
    r = int(passing[-1] + 1) if passing.size else 0
    alpha_sorted = np.where(rank <= r, r * alpha / m, min(r + 1, m) * alpha / m)
    out_p, out_a = np.empty_like(p), np.empty_like(p)
    out_p[order], out_a[order] = p_adj, alpha_sorted
    return out_p, out_a


def verdict(low: float, high: float, sesoi: float) -> str:
    """The verdict of an adjusted interval ``[low, high]`` against the smallest effect of
    interest (see the module docstring)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return VERDICTS.inconclusive
    if sesoi > 0 and -sesoi < low and high < sesoi:
        return VERDICTS.equivalent
    if low > 0 or high < 0:
        return VERDICTS.finding
    return VERDICTS.inconclusive


def adjusted_words(row, a: str, b: str, words: str, pct: bool, digits: int = 3,
                   head: str | None = None) -> str:
    """A row of :meth:`ComparisonPlan.adjust` as a sentence, worded by its adjusted interval.

    ``"exact - greedy, match win share: +3.9 pp [+1.9, +5.9] (Holm, 99.4%), n = 1,500:
    exact higher"``; ``"...: equivalent within +-1.0 pp"``; ``"...: no detectable difference"``.
    ``head`` replaces the sentence's subject ``"a - b"`` (``"exact vs greedy"`` for a share of
    ``a`` against ``b`` minus 1/2, which is not a difference of two values).
    """
    procedure = PROCEDURES[row.family]
    level = 100 * row.adj_level
    text = (f"{f'{a} - {b}' if head is None else head}, {words}: "
            f"{interval_text(row.difference, row.adj_low, row.adj_high, digits, pct)} "
            f"({procedure}, {level:.{_level_places(level)}f}%)")
    if np.isfinite(row.units):
        text += f", n = {int(row.units):,}"
    if row.verdict == VERDICTS.equivalent:
        scale, unit = (100.0, " pp") if pct else (1.0, "")
        return text + f": equivalent within +-{_sesoi_text(scale * row.sesoi)}{unit}"
    if row.verdict == VERDICTS.finding:
        return text + (f": {a} higher" if row.difference > 0 else f": {a} lower")
    return text + ": no detectable difference"


def _level_places(level: float) -> int:
    """Decimals that show a coverage level in percent exactly where they can (95, 97.5) and
    never as 100 (99.97 rather than 100.0), at most 1 otherwise (98.3)."""
    for places in range(0, 4):
        shown = round(level, places)
        if shown < 100 and (abs(shown - level) < 1e-6 or places >= 1):
            return places
    return 3


def _sesoi_text(value: float) -> str:
    """A smallest effect of interest as short text (0.02 -> "0.02", 1.0 -> "1")."""
    return f"{value:g}"


def verdict_counts(adjusted: pd.DataFrame) -> dict:
    """Per family, how many comparisons got each verdict (for a summary's opening lines)."""
    counts = {}
    for family in FAMILIES:
        sel = adjusted[adjusted["family"] == family]
        counts[family] = {v: int((sel["verdict"] == v).sum()) for v in VERDICTS}
    return counts


def plan_sentence(plan: ComparisonPlan, adjusted: pd.DataFrame) -> str:
    """One paragraph for a summary: the families, their sizes, procedures and verdicts."""
    counts = verdict_counts(adjusted)
    parts = []
    for family in FAMILIES:
        m = plan.family_size(family)
        if m == 0:
            continue
        c = counts[family]
        parts.append(f"{m:,} {family} ({PROCEDURES[family]}): {c['finding']} finding"
                     f"{'' if c['finding'] == 1 else 's'}, {c['equivalent']} equivalent within "
                     f"the smallest effect of interest, {c['inconclusive']} with no detectable "
                     "difference")
    sesoi = "; ".join(f"{q.words} +-{_sesoi_text((100 if q.pct else 1) * q.sesoi)}"
                      f"{' pp' if q.pct else ''}" for q in plan.quantities)
    return (f"Comparisons declared before the run (`{PLAN_FILE}`, digest {plan.digest()}), "
            f"adjusted as families at {plan.alpha:g}: " + "; ".join(parts)
            + f". Smallest effects of interest: {sesoi}.")


# ---------------------------------------------------------------------------
# Ranks with simultaneous intervals
# ---------------------------------------------------------------------------
def simultaneous_ranks(values, resamples: int = 1000, seed: int = 0,
                       alpha: float = ALPHA, table_values=None) -> pd.DataFrame:
    """Ranks of items by mean value with simultaneous 95% rank intervals.

    Every pair of items is compared at once: the paired mean difference of items ``i`` and
    ``j`` over the units that hold both, standardised, with the critical value the
    ``1 - alpha`` quantile of the bootstrap distribution of the largest standardised deviation
    over all pairs (units resampled; a max-t procedure). Item ``i``'s rank interval is
    ``[1 + #{j resolved above i}, k - #{j resolved below i}]``; all intervals hold the true
    ranks together with probability about ``1 - alpha``, so a "best" item (interval ``[1, 1]``)
    survives the selection among all items.

    With ``table_values`` the values also carry the error of an estimated input that every
    unit shares (a fitted table the values are looked up in): each pair's standard error adds
    the variance of its difference over the input's replicates (the two errors are
    independent), and bootstrap resample ``r`` takes the units' values under replicate
    ``r mod R``, so the critical value covers both.

    Parameters
    ----------
    values : array_like of float, shape (units, items)
        nan where a unit has no value for an item (a tile not in the hand).
    resamples : int
    seed : int
    table_values : array_like of float, shape (replicates, units, items), optional
        ``values`` recomputed under each replicate of the shared input (nan where ``values``
        is).

    Returns
    -------
    DataFrame, one row per item (column order)
        ``mean``, ``rank`` (1 + the items whose paired mean difference with it is
        positive: the rank of the means when every unit holds every item),
        ``rank_low``, ``rank_high`` (int64).
    """
    x = np.asarray(values, dtype=np.float64)
    present = np.isfinite(x).astype(np.float64)
    filled = np.where(present > 0, x, 0.0)
    k = x.shape[1]
    d, se = _pair_moments(filled, present, np.ones(x.shape[0]))
    shared = np.zeros_like(d)
    replicas = []
    if table_values is not None:
        replicas = [np.where(present > 0, np.nan_to_num(np.asarray(v, dtype=np.float64)), 0.0)
                    for v in table_values]
        if len(replicas) >= 2:
            shifts = np.stack([_pair_moments(v, present, np.ones(x.shape[0]))[0]
                               for v in replicas])
            shared = np.nan_to_num(np.var(shifts, axis=0, ddof=1))
    se = np.sqrt(se ** 2 + shared)
    rng = np.random.default_rng(seed)
    upper = np.triu(np.ones((k, k), dtype=bool), 1)
    usable = upper & np.isfinite(d) & (se > 0)
    largest = np.zeros(resamples)
    for r in range(resamples):
        weights = rng.multinomial(x.shape[0], np.full(x.shape[0], 1.0 / x.shape[0]))
        sample = replicas[r % len(replicas)] if replicas else filled
        d_star, se_star = _pair_moments(sample, present, weights.astype(np.float64))
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.abs(d_star - d) / np.sqrt(se_star ** 2 + shared)
        t = np.where(usable & np.isfinite(t), t, 0.0)
        largest[r] = t.max() if t.size else 0.0
    critical = float(np.quantile(largest, 1 - alpha)) if resamples else np.inf
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(np.isfinite(d) & (se > 0), d / se, 0.0)  # d[i, j] = mean_i - mean_j
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=0) / present.sum(axis=0)
    return _rank_frame(mean, d, z, critical)


def _rank_frame(mean: np.ndarray, d: np.ndarray, z: np.ndarray, critical: float) -> pd.DataFrame:
    """Ranks and simultaneous rank intervals from the paired differences ``d[i, j]``
    (mean_i - mean_j over the units holding both) and their standardised values ``z``
    against ``critical``.

    The point rank counts the same pairs as the interval: ``1 + #{j : d[i, j] < 0}``. With
    every unit holding every item it is the rank of the means; with units holding a few items
    (hands of tiles) the means mix in which units hold an item, and a rank taken from them
    can fall outside the interval the pairs give."""
    k = mean.size
    above = (z < -critical).sum(axis=1)  # items j resolved above i: mean_j - mean_i > c se
    below = (z > critical).sum(axis=1)  # items j resolved below i
    beaten = np.where(np.isfinite(d), d < 0, False).sum(axis=1)
    return pd.DataFrame({
        "mean": mean,
        "rank": (1 + beaten).astype(np.int64),
        "rank_low": (1 + above).astype(np.int64),
        "rank_high": (k - below).astype(np.int64),
    })


def _pair_moments(filled: np.ndarray, present: np.ndarray,
                  weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted paired mean differences ``mean_i - mean_j`` over the units holding both items,
    and their standard errors, for every pair at once (items x items; nan without two units).
    """
    w = weights[:, None]
    xm = filled * w
    x2m = filled * filled * w
    pm = present * w
    count = present.T @ pm  # weighted units holding both
    sum_i = xm.T @ present  # sum of x_i over units holding j too
    sum_sq = x2m.T @ present + present.T @ x2m - 2 * (filled.T @ (filled * w))
    with np.errstate(invalid="ignore", divide="ignore"):
        d = (sum_i - sum_i.T) / count
        var = (sum_sq / count - d * d) * count / (count - 1)
        se = np.sqrt(np.clip(var, 0.0, None) / count)
    d = np.where(count >= 2, d, np.nan)
    se = np.where(count >= 2, se, np.nan)
    return d, se
