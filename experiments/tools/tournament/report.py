"""A finished tournament: its frames and tables, written as files and markdown."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.comparisons import EXPLORATORY, PRIMARY, VERDICTS, plan_sentence
from experiments.reporting.figures import run_footer
from experiments.reporting.reports import figure_caption, md_table
from experiments.seatings import pairings
from experiments.tools.tournament.config import TournamentConfig
from experiments.tools.tournament.plan import HEAD_TO_HEAD, LOG_STRENGTH, pair_id, plan_for
from experiments.tools.tournament.tables import SUMMARY_INTERVALS
from experiments.tools.tournament.plots import (
    plot_interval_width,
    plot_pairwise,
    plot_ranking,
    plot_sequence,
)
from sim.files import atomic_write, claim_directory


EVEN_SHARE = 0.5
"""The head-to-head share of two equal strategies."""


@dataclass
class TournamentResult:
    """Frames of a finished tournament (``matches``, ``entities`` None if summary-only)."""

    config: TournamentConfig
    matches: pd.DataFrame | None
    entities: pd.DataFrame | None
    summary: pd.DataFrame
    pairwise: pd.DataFrame
    ranking: pd.DataFrame
    files: list[str] = field(default_factory=list)
    paired: pd.DataFrame | None = None
    """Duplicate tournaments with match rows: :func:`~experiments.tools.tournament.tables.paired_win_rates`
    (in summary.md)."""
    widths: pd.DataFrame | None = None
    """With match rows: :func:`~experiments.tools.tournament.tables.interval_widths` on log-spaced
    prefixes (interval_width.csv/.png)."""
    matches_per_seating: int | None = None
    """Matches of each seating in the tables (default ``config.matches``; fewer when a
    sequential run stopped early)."""
    sequential: object | None = None
    """A :func:`~experiments.tools.tournament.sequential.until_separated` run's
    :class:`~experiments.tools.tournament.sequential.Sequential` (sequential.csv/.png)."""
    pairwise_ci: pd.DataFrame | None = None
    """:func:`~experiments.tools.tournament.tables.pairwise_intervals` (or ``pairwise_counts``): every
    ordered pair's share with its interval (pairwise.csv)."""
    fit: object | None = None
    """With match rows: the :class:`experiments.stats.LuceFit` behind the ranking (field
    order), with its covariance."""
    contrasts: pd.DataFrame | None = None
    """With match rows: :func:`~experiments.tools.tournament.tables.ranking_contrasts` (summary.md)."""
    comparisons: pd.DataFrame | None = None
    """:func:`~experiments.tools.tournament.plan.comparisons_table`: every declared comparison
    computed, adjusted as its family (comparisons.csv)."""

    @property
    def unit(self) -> str:
        """The unit of the ranking's and the pairwise shares' intervals, in words."""
        if not self.config.duplicate:
            return "the match (no duplicate deals: matches are independent)"
        if self.matches is None:
            return ("the match, as if independent (a summary-only run keeps no match rows, and "
                    "the deal-clustered intervals need them: these are too narrow where a deal's "
                    "seatings go alike, too wide where they mirror each other)")
        return ("the deal (every seating of a group replays it): the ranking's covariance is "
                "cluster-robust (sandwich) with the deal as cluster, the shares' intervals Wilson "
                "at the deal-clustered effective number of matches")

    @property
    def per_seating(self) -> int:
        """Matches (deals, with duplicate deals) of each seating in the tables."""
        return self.config.matches if self.matches_per_seating is None else self.matches_per_seating

    def footer(self) -> str:
        """The figures' provenance line: sample per seating, seatings, players, seed."""
        c = self.config
        seatings = len(pairings(c.players, list(c.strategies)))
        unit = "duplicate deals" if c.duplicate else "matches"
        sample = f"{self.per_seating:,} {unit} per seating x {seatings} seatings"
        if self.sequential is not None:
            stop = self.sequential.stop
            sample += (f" (sequential: stopped at deal {stop:,} of at most {c.matches:,})"
                       if stop is not None else f" (sequential: not separated by {c.matches:,})")
        return run_footer(c.as_dict(), sample=sample)

    def save(self, out_dir: str | os.PathLike) -> list[str]:
        """Claim ``out_dir`` for the tournament's settings (refused if it holds a different run:
        :func:`sim.files.claim_directory`) and :meth:`write` the files there."""
        return self.write(claim_directory(out_dir, self.config.as_dict()))

    def write(self, out_dir: str | os.PathLike) -> list[str]:
        """Write matches.parquet, summary.csv/.md, pairwise.csv, ranking.csv, paired.csv (duplicate
        tournaments with match rows), interval_width.csv
        (with match rows), sequential.csv (a sequential run) and their plots into ``out_dir``,
        a directory already claimed for the tournament's settings (a run claims it once, before
        it plays)."""
        out = Path(out_dir)
        written = []
        if self.matches is not None:
            atomic_write(out / "matches.parquet", lambda p: self.matches.to_parquet(p, index=False))
            written.append("matches.parquet")
        atomic_write(out / "summary.csv", lambda p: self.summary.to_csv(p, index=False,
                                                                         float_format="%.6f"))
        pairwise = self.pairwise_table()
        atomic_write(out / "pairwise.csv", lambda p: pairwise.to_csv(p, index=False,
                                                                     float_format="%.6f"))
        atomic_write(out / "ranking.csv", lambda p: self.ranking.to_csv(p, index=False,
                                                                         float_format="%.6f"))
        atomic_write(out / "summary.md", lambda p: p.write_text(self.markdown()))
        written += ["summary.csv", "summary.md", "pairwise.csv", "ranking.csv"]
        if self.paired is not None:
            atomic_write(out / "paired.csv", lambda p: self.paired.to_csv(p, index=False,
                                                                           float_format="%.6f"))
            written.append("paired.csv")
        if self.comparisons is not None:
            atomic_write(out / "comparisons.csv", lambda p: self.comparisons.to_csv(
                p, index=False, float_format="%.6g"))
            written.append("comparisons.csv")
        footer = self.footer()
        atomic_write(out / "pairwise.png", lambda p: plot_pairwise(self.pairwise, p, footer,
                                                                   intervals=pairwise))
        atomic_write(out / "ranking.png", lambda p: plot_ranking(self.ranking, p, footer,
                                                                 unit=self.bars_unit()))
        written += ["pairwise.png", "ranking.png"]
        path = None if self.sequential is None else self.sequential.path
        if self.widths is not None:
            atomic_write(out / "interval_width.csv",
                         lambda p: self.widths.to_csv(p, index=False, float_format="%.6f"))
            atomic_write(out / "interval_width.png",
                         lambda p: plot_interval_width(self.widths, p, footer, sequence=path))
            written += ["interval_width.csv", "interval_width.png"]
        if self.sequential is not None:
            atomic_write(out / "sequential.csv",
                         lambda p: path.to_csv(p, index=False, float_format="%.6f"))
            atomic_write(out / "sequential.png",
                         lambda p: plot_sequence(path, self.sequential.names,
                                                 self.sequential.stop, p, footer))
            written += ["sequential.csv", "sequential.png"]
        self.files = [str(out / name) for name in written]
        return self.files

    def pairwise_table(self) -> pd.DataFrame:
        """pairwise.csv: every ordered pair's share and interval (:attr:`pairwise_ci`), or the
        grid's shares alone for a result built without it."""
        if self.pairwise_ci is not None:
            return self.pairwise_ci
        long = self.pairwise.stack().rename("share").reset_index()
        return long.rename(columns={"level_1": "opponent"})

    def bars_unit(self) -> str:
        """What the intervals of the ranking and the pairwise shares count as independent."""
        if self.config.duplicate and self.matches is not None:
            return "deals as clusters"
        return "matches independent"

    def sample(self) -> str:
        """The sample of every figure's caption: per seating, seatings, seed."""
        c = self.config
        unit = "duplicate deals" if c.duplicate else "matches"
        seatings = len(pairings(c.players, list(c.strategies)))
        return (f"{self.per_seating:,} {unit} per seating x {seatings} seatings, {c.players} "
                f"players, seed {c.seed}")

    def adjusted(self, a: str, b: str, quantity) -> pd.Series | None:
        """The comparisons row of pair ``a``, ``b`` (either order: the declared one) for
        ``quantity``, or None when it was not computed."""
        if self.comparisons is None:
            return None
        rows = self.comparisons.set_index("id")
        players = self.config.players
        for key in (pair_id(players, a, b, quantity), pair_id(players, b, a, quantity)):
            if key in rows.index:
                return rows.loc[key]
        return None

    def contrast_sentences(self) -> list[str]:
        """Each strategy against the next one down the ranking: its log-strength difference
        and its head-to-head share, each worded by its interval adjusted as its family."""
        lines = []
        if self.contrasts is None:
            return lines
        for row in self.contrasts.itertuples(index=False):
            words = [self.adjusted(row.stronger, row.weaker, q)
                     for q in (LOG_STRENGTH, HEAD_TO_HEAD)]
            lines.append("- " + "; ".join(w.words for w in words if w is not None) + ".")
        return lines

    def ranking_finding(self) -> str:
        """The ranking figure's finding: which strategies' simultaneous rank intervals are
        [1, 1] (a best that survives the selection) or hold rank 1."""
        if "rank_low" not in self.ranking:
            top = self.ranking.iloc[0]
            return (f"No simultaneous rank intervals (a summary-only run keeps no match rows), "
                    f"so the order of the point estimates ({top.strategy} first, "
                    f"{top.log_strength:+.3f}) is not a finding")
        first = self.ranking[self.ranking["rank_low"] == 1]
        settled = int((self.ranking["rank_low"] == self.ranking["rank_high"]).sum())
        if len(first) == 1 and int(first.iloc[0].rank_high) == 1:
            text = f"{first.iloc[0].strategy} ranks first (simultaneous rank interval [1, 1])"
        else:
            text = ("First place not settled: the simultaneous rank intervals of "
                    + ", ".join(first["strategy"]) + " hold rank 1")
        return text + f"; {settled} of {len(self.ranking)} ranks settled"

    def pairwise_finding(self) -> str:
        """The pairwise figure's finding: how many pairs' head-to-head shares are findings
        after each family's adjustment."""
        if self.comparisons is None:
            return "no intervals"
        shares = self.comparisons[self.comparisons["quantity"] == HEAD_TO_HEAD.name]
        found = shares[shares["verdict"] == VERDICTS.finding]
        text = (f"{len(found)} of {len(shares)} pairs' head-to-head shares differ from 1/2 after "
                "adjustment (primary pairs: Holm; the rest: Benjamini-Hochberg)")
        rest = shares[shares["verdict"] != VERDICTS.finding]
        if len(rest):
            first = rest.iloc[0]
            text += (f"; not a finding for {len(rest)}, e.g. {first.a} vs {first.b}: "
                     f"{first.estimate:.3f} [{EVEN_SHARE + first.adj_low:.3f}, "
                     f"{EVEN_SHARE + first.adj_high:.3f}] ({100 * first.adj_level:.4g}%)")
        return text

    def width_finding(self) -> str:
        """The interval-width figure's finding: paired against Wilson at the largest n."""
        n = int(self.widths["matches_per_seating"].max())
        last = self.widths[self.widths["matches_per_seating"] == n]
        wilson = float(last["wilson_half_width"].mean())
        if last["paired_half_width"].notna().any():
            paired = float(last["paired_half_width"].mean())
            ratio = paired / wilson
            return (f"At n = {n:,} the paired half-width averages +-{paired:.4f} against "
                    f"Wilson's +-{wilson:.4f} ({ratio:.2f} of it: "
                    + ("the deal's seatings mirror each other, so pairing narrows the interval"
                       if ratio < 1 else "pairing does not narrow the interval here") + ")")
        return f"At n = {n:,} the Wilson half-width averages +-{wilson:.4f}"

    def markdown(self) -> str:
        c = self.config
        kind = str(self.summary["interval"].iloc[0]) if "interval" in self.summary else "wilson"
        head = (f"# Tournament: {c.players} players, {self.per_seating} matches per seating, "
                f"seed {c.seed}{', duplicate deals' if c.duplicate else ''}\n\n"
                f"The unit of every interval is {self.unit}. The summary's win_low and "
                f"win_high are {SUMMARY_INTERVALS[kind]}"
                + ("; wilson_low and wilson_high beside them treat the matches as independent "
                   "(too narrow or too wide where a deal's seatings go alike or mirror each "
                   "other)" if kind == "deal-clustered" else "") + ".\n\n")
        sequential = ""
        if self.sequential is not None:
            stop = self.sequential.stop
            sequential = ("## Sequential test (--until-separated)\n\n"
                          + self.sequential.sentence() + " The tables below hold the first "
                          f"{self.per_seating:,} deals; the paired interval is the fixed-size "
                          "one, **not adjusted for the optional stopping** (the confidence "
                          "sequence is).\n\n"
                          + figure_caption("sequential",
                                           f"{self.sequential.names[0]}'s running mean per-deal "
                                           "score (share of the deal's seatings won) against "
                                           "deals played", self.sample(),
                                           "Band: the anytime-valid confidence sequence",
                                           f"Stopped at deal {stop:,}" if stop is not None
                                           else "The sequence still contains 1/2")
                          + "\n\n")
        paired = ""
        if self.paired is not None:
            paired = ("\n\n## Win rate with the duplicate deals paired\n\n"
                      "Every deal is played in each seating of its group, so the deal is the "
                      "unit: a 95% Wilson interval at the deal-clustered effective number of "
                      "matches (design_effect: matches per effective match, below 1 where the "
                      "deal's seatings mirror each other), beside the Wilson interval with the "
                      "matches independent."
                      + (" Not adjusted for the optional stopping." if self.sequential else "")
                      + "\n\n" + md_table(self.paired))
        contrasts = self.contrast_sentences()
        ranks = ("" if "rank_low" not in self.ranking else
                 " `rank_low`, `rank_high`: simultaneous 95% rank intervals (every pair's "
                 "log-strength difference against one max-t critical value from the fit's "
                 "covariance): all hold the true ranks together, so a strategy is best only "
                 "where its interval is [1, 1].")
        ranking = ("\n\n## Ranking\n\n" + "Bradley-Terry/Luce log strengths with marginal 95% "
                   f"intervals ({self.bars_unit()})." + ranks + "\n\n" + md_table(self.ranking)
                   + "\n\n"
                   + figure_caption("ranking", "Bradley-Terry/Luce log strength of each strategy "
                                    "(natural log, field mean 0)", self.sample(),
                                    f"Bars: marginal 95% intervals, {self.bars_unit()}",
                                    self.ranking_finding()))
        if contrasts:
            ranking += ("\n\nEach strategy against the next one down the ranking, worded by "
                        "its interval adjusted as its family (see Comparisons):\n\n"
                        + "\n".join(contrasts))
        pairwise = ("\n\n## Pairwise share (row vs column)\n\n"
                    "The row strategy's share of the matches either of the two won, with its 95% "
                    f"interval ({self.bars_unit()}).\n\n"
                    + md_table(self.pairwise_table()) + "\n\n"
                    + figure_caption("pairwise", "each cell: the row strategy's share of the "
                                     "matches either of the two won", self.sample(),
                                     f"Cell text: share and its 95% interval, {self.bars_unit()}",
                                     self.pairwise_finding()))
        widths = ""
        if self.widths is not None and not self.widths.empty:
            widths = ("\n\n## Interval width against sample size\n\n"
                      + width_paragraph(self.widths) + "\n\n"
                      + md_table(self.widths[self.widths["matches_per_seating"]
                                             == self.widths["matches_per_seating"].max()])
                      + "\n\n"
                      + figure_caption("interval_width", "half-width of each strategy's 95% "
                                       "win-rate interval against the first n matches (or "
                                       "deals) of every seating, log-log", self.sample(),
                                       "No bars: each point is a half-width (solid: paired, "
                                       "dashed: Wilson); the dotted reference falls as "
                                       "1/sqrt(n)", self.width_finding()))
        return (head + sequential + "## Summary\n\n" + md_table(self.summary) + paired
                + self.comparisons_section() + ranking + pairwise + widths + "\n")

    def comparisons_section(self) -> str:
        """The declared comparisons (``plan.json``), adjusted as families, in words."""
        if self.comparisons is None:
            return ""
        plan = plan_for(self.config.as_dict())
        text = ("\n\n## Comparisons (declared before the run)\n\n"
                + plan_sentence(plan, self.comparisons) + " " + plan.note + " A head-to-head "
                "share is the first strategy's share of the matches either of the two won, minus "
                "1/2, with its interval by the design's unit; a log strength difference is the "
                "first's minus the second's. Each is worded by its adjusted interval (the level "
                "of its family's procedure): a finding only where it excludes 0.")
        for family, heading in ((PRIMARY, "Primary"), (EXPLORATORY, "Exploratory")):
            rows = self.comparisons[self.comparisons["family"] == family]
            if len(rows):
                text += f"\n\n### {heading}\n\n" + "\n".join(f"- {w}." for w in rows["words"])
        return text


def width_paragraph(widths: pd.DataFrame) -> str:
    """How many matches per seating a half-width of 0.02 and of 0.01 needs, extrapolated from
    the full run's widths by ``1/sqrt(n)`` (interval_width.png shows the prefixes follow it)."""
    n = int(widths["matches_per_seating"].max())
    last = widths[widths["matches_per_seating"] == n]
    paired = last["paired_half_width"].notna().all()
    column = "paired_half_width" if paired else "wilson_half_width"
    worst = float(last[column].max())
    kind = "paired (deals as clusters)" if paired else "Wilson"
    text = (f"Half-width of each strategy's 95% win-rate interval on the first n matches of "
            f"every seating, "
            + ("paired (deals as clusters, paired_*) and with the matches independent "
               "(Wilson, wilson_*)" if paired else "Wilson, matches independent")
            + f": interval_width.csv and interval_width.png (log-log, with the 1/sqrt(n) "
            f"reference). At n = {n:,} the widest {kind} is +-{worst:.4f}")
    if worst > 0 and np.isfinite(worst):
        need = [int(-(-n * (worst / target) ** 2 // 1)) for target in (0.02, 0.01)]
        text += (f"; by 1/sqrt(n), +-0.02 for every strategy needs about {need[0]:,} and "
                 f"+-0.01 about {need[1]:,} matches per seating")
    return text + "."
