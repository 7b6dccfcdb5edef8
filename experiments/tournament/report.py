"""A finished tournament: its frames and tables, written as files and markdown."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pandas as pd

from experiments.figures import run_footer
from experiments.reports import md_table
from experiments.tournament.config import TournamentConfig
from experiments.tournament.plots import (
    plot_interval_width,
    plot_pairwise,
    plot_ranking,
    plot_sequence,
)
from experiments.tournament.seatings import pairings
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
    """Duplicate tournaments with match rows: :func:`~experiments.tournament.tables.paired_win_rates`
    (in summary.md)."""
    widths: pd.DataFrame | None = None
    """With match rows: :func:`~experiments.tournament.tables.interval_widths` on log-spaced
    prefixes (interval_width.csv/.png)."""
    matches_per_seating: int | None = None
    """Matches of each seating in the tables (default ``config.matches``; fewer when a
    sequential run stopped early)."""
    sequential: object | None = None
    """A :func:`~experiments.tournament.sequential.until_separated` run's
    :class:`~experiments.tournament.sequential.Sequential` (sequential.csv/.png)."""

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
        """Write matches.parquet, summary.csv/.md, pairwise.csv, ranking.csv, paired.csv (duplicate
        tournaments with match rows), interval_width.csv
        (with match rows), sequential.csv (a sequential run) and their plots into a claimed
        ``out_dir`` (refused if it holds a different run)."""
        out = claim_directory(out_dir, self.config.as_dict())
        written = []
        if self.matches is not None:
            atomic_write(out / "matches.parquet", lambda p: self.matches.to_parquet(p, index=False))
            written.append("matches.parquet")
        atomic_write(out / "summary.csv", lambda p: self.summary.to_csv(p, index=False,
                                                                         float_format="%.6f"))
        atomic_write(out / "pairwise.csv", lambda p: self.pairwise.to_csv(p, float_format="%.6f"))
        atomic_write(out / "ranking.csv", lambda p: self.ranking.to_csv(p, index=False,
                                                                         float_format="%.6f"))
        atomic_write(out / "summary.md", lambda p: p.write_text(self.markdown()))
        written += ["summary.csv", "summary.md", "pairwise.csv", "ranking.csv"]
        if self.paired is not None:
            atomic_write(out / "paired.csv", lambda p: self.paired.to_csv(p, index=False,
                                                                           float_format="%.6f"))
            written.append("paired.csv")
        footer = self.footer()
        atomic_write(out / "pairwise.png", lambda p: plot_pairwise(self.pairwise, p, footer))
        atomic_write(out / "ranking.png", lambda p: plot_ranking(self.ranking, p, footer))
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

    def markdown(self) -> str:
        c = self.config
        head = (f"# Tournament: {c.players} players, {self.per_seating} matches per seating, "
                f"seed {c.seed}{', duplicate deals' if c.duplicate else ''}\n\n")
        sequential = ""
        if self.sequential is not None:
            sequential = ("## Sequential test (--until-separated)\n\n"
                          + self.sequential.sentence() + " The tables below hold the first "
                          f"{self.per_seating:,} deals; the paired interval is the fixed-size "
                          "one, **not adjusted for the optional stopping** (the confidence "
                          "sequence is).\n\n")
        paired = ""
        if self.paired is not None:
            paired = ("\n\n## Win rate with the duplicate deals paired\n\n"
                      "Every deal is played in each seating of its group, so the deal is the "
                      "unit: a 95% interval with deals as clusters (delta method). Narrower "
                      "than the Wilson interval above when the deal's luck, not the strategy, "
                      "decides who wins."
                      + (" Not adjusted for the optional stopping." if self.sequential else "")
                      + "\n\n" + md_table(self.paired))
        widths = ""
        if self.widths is not None and not self.widths.empty:
            widths = ("\n\n## Interval width against sample size\n\n"
                      + width_paragraph(self.widths) + "\n\n"
                      + md_table(self.widths[self.widths["matches_per_seating"]
                                             == self.widths["matches_per_seating"].max()]))
        return (head + sequential + "## Summary\n\n" + md_table(self.summary) + paired
                + "\n\n## Ranking\n\n" + md_table(self.ranking)
                + "\n\n## Pairwise win rate (row vs column)\n\n"
                + md_table(self.pairwise.reset_index()) + widths + "\n")


def width_paragraph(widths: pd.DataFrame) -> str:
    """How many matches per seating a half-width of 0.02 and of 0.01 needs, extrapolated from
    the full run's widths by ``1/sqrt(n)`` (interval_width.png shows the prefixes follow it)."""
    n = int(widths["matches_per_seating"].max())
    last = widths[widths["matches_per_seating"] == n]
    worst = float(last["half_width"].max())
    kind = "paired (deals as clusters)" if last["interval"].iloc[0] == "paired" else "Wilson"
    text = (f"Half-width of each strategy's 95% {kind} win-rate interval on the first n "
            f"matches of every seating: interval_width.csv and interval_width.png (log-log, "
            f"with the 1/sqrt(n) reference). At n = {n:,} the widest is +-{worst:.4f}")
    if worst > 0:
        need = [int(-(-n * (worst / target) ** 2 // 1)) for target in (0.02, 0.01)]
        text += (f"; by 1/sqrt(n), +-0.02 for every strategy needs about {need[0]:,} and "
                 f"+-0.01 about {need[1]:,} matches per seating")
    return text + "."
