"""A finished tournament: its frames and tables, written as files and markdown."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.reporting.figures import run_footer
from experiments.reporting.reports import figure_caption, md_table
from experiments.seatings import pairings
from experiments.stats import Contrast, contrast_words
from experiments.tools.tournament.config import TournamentConfig
from experiments.tools.tournament.plots import (
    plot_interval_width,
    plot_pairwise,
    plot_ranking,
    plot_sequence,
)
from sim.files import atomic_write, claim_directory


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

    def contrast_sentences(self) -> list[str]:
        """Each strategy against the next one down the ranking, two paired contrasts (log
        strength, head-to-head win rate), each a finding only where its interval excludes 0."""
        lines = []
        if self.contrasts is None:
            return lines
        for row in self.contrasts.itertuples(index=False):
            strength = Contrast(row.strength_difference, row.strength_low, row.strength_high,
                                int(self.fit.clusters), float("nan"))
            h2h = Contrast(row.win_rate_difference, row.win_low, row.win_high, int(row.units),
                           row.effect)
            lines.append("- " + contrast_words(strength, row.stronger, row.weaker,
                                               "log strength")
                         + "; " + contrast_words(h2h, row.stronger, row.weaker,
                                                 "head-to-head win rate", pct=True) + ".")
        return lines

    def ranking_finding(self) -> str:
        """The ranking figure's finding: the first against the second, from the contrasts."""
        if self.contrasts is None or self.contrasts.empty:
            top = self.ranking.iloc[0]
            return (f"No paired contrast (a summary-only run keeps no match rows), so the order "
                    f"of the point estimates ({top.strategy} first, {top.log_strength:+.3f}) is "
                    "not a finding")
        row = self.contrasts.iloc[0]
        strength = Contrast(row.strength_difference, row.strength_low, row.strength_high,
                            int(self.fit.clusters), float("nan"))
        verdict = (f"{row.stronger} ranks first" if strength.detected else
                   f"First place not settled between {row.stronger} and {row.weaker}")
        return verdict + ": " + contrast_words(strength, row.stronger, row.weaker, "log strength")

    def pairwise_finding(self) -> str:
        """The pairwise figure's finding: how many ordered pairs' intervals exclude 1/2."""
        table = self.pairwise_table()
        if not {"low", "high"} <= set(table.columns):
            return "no intervals"
        known = table.dropna(subset=["low", "high"])
        decided = known[(known["low"] > 0.5) | (known["high"] < 0.5)]
        text = (f"{len(decided)} of {len(known)} ordered pairs' intervals exclude 1/2 (a "
                f"detectable head-to-head edge)")
        close = known[~known.index.isin(decided.index)]
        if len(close):
            first = close.iloc[0]
            text += (f"; no detectable difference for {len(close)}, e.g. {first.strategy} vs "
                     f"{first.opponent}: {first.share:.3f} [{first.low:.3f}, {first.high:.3f}]")
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
        head = (f"# Tournament: {c.players} players, {self.per_seating} matches per seating, "
                f"seed {c.seed}{', duplicate deals' if c.duplicate else ''}\n\n"
                f"The unit of the ranking's and the pairwise shares' intervals is {self.unit}. "
                "The summary's win_low and win_high are Wilson intervals with the matches "
                "independent"
                + ("; the paired table below gives the deal-clustered ones" if self.paired
                   is not None else "") + ".\n\n")
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
        ranking = ("\n\n## Ranking\n\n" + md_table(self.ranking) + "\n\n"
                   + figure_caption("ranking", "Bradley-Terry/Luce log strength of each strategy "
                                    "(natural log, field mean 0)", self.sample(),
                                    f"Bars: 95% intervals, {self.bars_unit()}",
                                    self.ranking_finding()))
        if contrasts:
            ranking += ("\n\nEach strategy against the next one down (paired contrasts A - B "
                        "with 95% intervals; the log strength's from the ranking's covariance, "
                        "the head-to-head win rate's a paired t over the "
                        + ("deals" if c.duplicate else "matches") + " both played):\n\n"
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
                + ranking + pairwise + widths + "\n")


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
