"""A finished tournament: its frames and tables, written as files and markdown."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pandas as pd

from experiments.reports import md_table
from experiments.tournament.config import TournamentConfig
from experiments.tournament.plots import plot_pairwise, plot_ranking
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

    def save(self, out_dir: str | os.PathLike) -> list[str]:
        """Write matches.parquet, summary.csv/.md, pairwise.csv, ranking.csv and plots into a
        claimed ``out_dir`` (refused if it holds a different run)."""
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
        atomic_write(out / "pairwise.png", lambda p: plot_pairwise(self.pairwise, p))
        atomic_write(out / "ranking.png", lambda p: plot_ranking(self.ranking, p))
        written += ["pairwise.png", "ranking.png"]
        self.files = [str(out / name) for name in written]
        return self.files

    def markdown(self) -> str:
        c = self.config
        head = (f"# Tournament: {c.players} players, {c.matches} matches per seating, "
                f"seed {c.seed}{', duplicate deals' if c.duplicate else ''}\n\n")
        paired = ""
        if self.paired is not None:
            paired = ("\n\n## Win rate with the duplicate deals paired\n\n"
                      "Every deal is played in each seating of its group, so the deal is the "
                      "unit: a 95% interval with deals as clusters (delta method). Narrower "
                      "than the Wilson interval above when the deal's luck, not the strategy, "
                      "decides who wins.\n\n" + md_table(self.paired))
        return (head + "## Summary\n\n" + md_table(self.summary) + paired
                + "\n\n## Ranking\n\n" + md_table(self.ranking)
                + "\n\n## Pairwise win rate (row vs column)\n\n"
                + md_table(self.pairwise.reset_index()) + "\n")
