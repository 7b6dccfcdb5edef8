"""The committed results (docs/results) read by rule: every interval holds its estimate, no
proportion's interval leaves [0, 1], no interval is zero-width on data that vary, and every
contrast a summary words is a finding only where its interval excludes 0.

These read the committed files only (no simulation): they fail when a regeneration commits a
table or a sentence a statistician would not sign.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from experiments.comparisons import VERDICTS, verdict
from experiments.stats import Contrast, contrast_words
from tests.support.paths import REPO

RESULTS = REPO / "docs" / "results"
TABLES = sorted(RESULTS.glob("*/*.csv"))
SUMMARIES = sorted(RESULTS.glob("*/summary.md")) + [REPO / "README.md"]

PROPORTION = re.compile(r"(rate|share|p_discard|is_best|direct|backward|fitness|wins?)(_|$)")
"""Estimate columns that are proportions (win rates, shares, P(discard), P(win) tables)."""

NOT_PROPORTIONS = {("gap.csv", "share")}
"""Named like proportions but ratios that may leave [0, 1]: the share of the gap to the ceiling
closed (negative when the challenger is weaker than the reference)."""


SPREADS = ("half_width", "design_effect", "effective", "units", "deals", "matches", "events")
"""Columns that describe an interval's width or sample, never its estimate."""


def intervals(frame: pd.DataFrame):
    """Yield ``(estimate, low, high)`` column names: each ``*low`` column with its ``*high``
    partner; the estimate is the column named by the bound's prefix (``win_low`` -> ``win_rate``,
    ``gap_low`` -> ``gap_mean``, ``with_debit_low`` -> ``with_debit_rate``, ``edge_low`` ->
    ``edge``), else the nearest column on its left
    that is neither a bound nor a width or sample column (``paired_low`` after ``win_rate``)."""
    columns = list(frame.columns)
    for i, name in enumerate(columns):
        if not name.endswith("low"):
            continue
        high = name[:-3] + "high"
        if high not in frame.columns:
            continue
        prefix = name[:-3].rstrip("_")
        # a rate or mean before the bare prefix, which may be a count (``with_debit``); an
        # adjusted interval (``adj_low``) is the comparison's difference
        named = [c for c in (f"{prefix}_rate", f"{prefix}_mean", f"{prefix}_per_match",
                             f"{prefix}_fitness", f"{prefix}_share", prefix)
                 if prefix and c in frame.columns]
        if prefix == "adj" and "difference" in frame.columns:
            named = ["difference"]
        left = [c for c in columns[:i] if not c.endswith(("low", "high"))
                and not any(word in c for word in SPREADS)]
        if named:
            yield named[0], name, high
        elif left:
            yield left[-1], name, high


EXACT_BY_CONSTRUCTION = {
    ("history.csv", "mean_point_fitness"): "generation 0's mean point is the default vector, "
                                           "playing itself on duplicate deals: 0.5 on every deal",
    ("validation.csv", "default_win_rate"): "the default vector against `weighted` (itself) on "
                                            "duplicate deals: 0.5 on every deal",
}
"""Proportions whose interval is zero-width because every deal's value is the same by
construction (the data are constant), named here with the reason."""


def test_the_committed_tables_hold_intervals():
    assert TABLES and any(list(intervals(pd.read_csv(path))) for path in TABLES)


@pytest.mark.parametrize("path", TABLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_interval_holds_its_estimate_and_its_range(path):
    frame = pd.read_csv(path)
    for estimate, low, high in intervals(frame):
        if not all(pd.api.types.is_numeric_dtype(frame[c]) for c in (estimate, low, high)):
            continue
        e, lo, hi = (frame[c].to_numpy(dtype=np.float64) for c in (estimate, low, high))
        finite = np.isfinite(e) & np.isfinite(lo) & np.isfinite(hi)
        where = f"{path.parent.name}/{path.name}: {estimate} [{low}, {high}]"
        bad = finite & ((lo > e + 1e-9) | (hi < e - 1e-9))
        assert not bad.any(), (where, frame.loc[bad, [estimate, low, high]].head())
        # a t interval of a mean is zero-width only where the data are constant, which is
        # allowed; a proportion's interval (Wilson, or paired at the deal) never is, unless the
        # row says it is exact (by symmetry) or the value is constant by construction
        if PROPORTION.search(estimate):
            flat = finite & (e > 0) & (e < 1) & (hi - lo <= 1e-12)
            if "exact" in frame.columns:
                flat &= frame["exact"].fillna("").astype(str).str.strip().eq("").to_numpy()
            if (path.name, estimate) in EXACT_BY_CONSTRUCTION:
                flat &= e != 0.5
            assert not flat.any(), (where, "zero-width",
                                    frame.loc[flat, [estimate, low, high]].head())
        if (path.name, estimate) in NOT_PROPORTIONS:
            continue
        if PROPORTION.search(estimate) and np.all((e[finite] >= 0) & (e[finite] <= 1)):
            out = finite & ((lo < -1e-12) | (hi > 1 + 1e-12))
            assert not out.any(), (where, "outside [0, 1]", frame.loc[out, [low, high]].head())


CONTRAST = re.compile(r"([+-]\d+(?:\.\d+)?)(?: pp)? \[([+-]\d+(?:\.\d+)?), ([+-]\d+(?:\.\d+)?)\], "
                      r"n = [\d,]+(?:, d = [+-]\d+\.\d+)?: (no detectable difference|\S+ "
                      r"(?:higher|lower))")
"""A contrast as :func:`experiments.stats.contrast_words` writes it."""


def worded_contrasts(text: str):
    for match in CONTRAST.finditer(text):
        yield float(match[2]), float(match[3]), match[4]


def test_the_contrast_reader_reads_what_contrast_words_writes():
    found = Contrast(0.04, 0.02, 0.06, 1200, 0.3)
    null = Contrast(-0.004, -0.02, 0.012, 1200, -0.02)
    text = contrast_words(found, "exact", "greedy", "discards") + "; " + contrast_words(
        null, "exact", "greedy", "share", pct=True)
    assert list(worded_contrasts(text)) == [(0.02, 0.06, "exact higher"),
                                            (-2.0, 1.2, "no detectable difference")]


@pytest.mark.parametrize("path", SUMMARIES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_contrast_is_a_finding_only_where_its_interval_excludes_zero(path):
    texts = [path.read_text()]
    key = path.parent / "key_numbers.json"
    if key.exists():
        texts += [f"{label}: {value}" for label, value in json.loads(key.read_text()).items()]
    for low, high, words in worded_contrasts("\n".join(texts)):
        excludes = low > 0 or high < 0
        assert excludes == (words != "no detectable difference"), (path, low, high, words)
        if excludes:
            assert words.endswith("higher" if low > 0 else "lower"), (path, low, high, words)


COMPARISONS = sorted(RESULTS.glob("*/comparisons.csv"))

ADJUSTED = re.compile(r"([+-]\d+(?:\.\d+)?)(?: pp)? \[([+-]\d+(?:\.\d+)?), ([+-]\d+(?:\.\d+)?)\] "
                      r"\((?:Holm|Benjamini-Hochberg), [\d.]+%\)(?:, n = [\d,]+)?: "
                      r"(no detectable difference|equivalent within \+-([\d.]+)(?: pp)?|"
                      r"\S+ (?:higher|lower))")
"""A comparison as :func:`experiments.comparisons.adjusted_words` writes it."""


@pytest.mark.parametrize("path", COMPARISONS, ids=lambda p: p.parent.name)
def test_every_declared_comparison_is_worded_by_its_adjusted_interval(path):
    """Each row's verdict is what its adjusted interval and smallest effect of interest give,
    its words end as the verdict says, and the adjusted interval is never narrower than the
    marginal one."""
    frame = pd.read_csv(path)
    assert set(frame["family"]) <= {"primary", "exploratory"}
    for row in frame.itertuples(index=False):
        assert row.verdict == verdict(row.adj_low, row.adj_high, row.sesoi), (path, row.id)
        words = {VERDICTS.finding: (" higher", " lower"),
                 VERDICTS.equivalent: ("equivalent within",),
                 VERDICTS.inconclusive: ("no detectable difference",)}[row.verdict]
        assert any(w in row.words for w in words), (path, row.id, row.words)
        # (a marginal Wilson interval is asymmetric and the adjusted one symmetric about the same
        # standard error: equal widths at 95% up to rounding)
        if np.isfinite(row.low) and np.isfinite(row.adj_low):
            assert row.adj_high - row.adj_low >= (row.high - row.low) * (1 - 1e-3), (path, row.id)


@pytest.mark.parametrize("path", SUMMARIES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_adjusted_sentence_says_what_its_interval_says(path):
    """Every family-adjusted sentence of a summary, its key numbers and README: a finding only
    where the interval excludes 0 and does not lie inside the smallest effect of interest;
    'equivalent within +-D' only where it lies inside +-D."""
    texts = [path.read_text()]
    key = path.parent / "key_numbers.json"
    if key.exists():
        texts += [f"{label}: {value}" for label, value in json.loads(key.read_text()).items()]
    for match in ADJUSTED.finditer("\n".join(texts)):
        low, high, words, sesoi = float(match[2]), float(match[3]), match[4], match[5]
        if sesoi is not None:
            assert -float(sesoi) <= low and high <= float(sesoi), (path, match[0])
        elif words == "no detectable difference":
            assert low <= 0 <= high, (path, match[0])
        else:
            assert low > 0 or high < 0, (path, match[0])
            assert words.endswith("higher" if low > 0 else "lower"), (path, match[0])
