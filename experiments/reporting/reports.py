"""Reports of the studies: markdown tables, intervals as text, and an experiment's saved result.

:class:`ExperimentResult` is what every study returns: its frames, a markdown
summary, its plots and key numbers; :meth:`ExperimentResult.save` writes them
all into a claimed output directory (:func:`sim.files.claim_directory`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim.files import MANIFEST_NAME, atomic_write, canonical, claim_directory

KEY_NUMBERS = "key_numbers.json"
"""The file holding a saved result's key numbers (label -> text), in their order."""


def md_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A GitHub markdown table (floats with ``digits`` decimals, nan blank)."""

    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "" if not np.isfinite(v) else f"{v:.{digits}f}"
        return str(v)

    lines = ["| " + " | ".join(map(str, frame.columns)) + " |",
             "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines)


def run_sentence(settings: dict, lead: str = "Self-play") -> str:
    """The opening sentence of a study's summary: ``"<lead>, N matches per configuration, seed S,
    strategies ..., players .... "`` (with its trailing space)."""
    return (f"{lead}, {settings['matches']:,} matches per configuration, seed {settings['seed']}, "
            f"strategies {', '.join(settings['strategies'])}, players "
            f"{', '.join(map(str, settings['players']))}. ")


def summary_head(title: str, settings: dict, note: str, lead: str = "Self-play") -> list[str]:
    """The first lines of a study's ``summary.md``: the title, then :func:`run_sentence` and
    ``note`` as one paragraph."""
    return [f"# {title}", "", run_sentence(settings, lead) + note]


def configurations(summary: pd.DataFrame, detail: pd.DataFrame):
    """Yield ``(tag, row, rows)`` for each row of ``summary`` (one per (strategy, players)
    configuration): ``tag`` is ``"strategy, Np"`` (the key numbers' label) and ``rows`` the
    rows of ``detail`` of the same configuration."""
    for row in summary.itertuples(index=False):
        same = (detail["strategy"] == row.strategy) & (detail["players"] == row.players)
        yield f"{row.strategy}, {row.players}p", row, detail[same]


def fmt_ci(mean, low, high, digits: int = 3, pct: bool = False) -> str:
    """``0.512 [0.503, 0.521]``, or percentages (``51.2% [50.3, 52.1]``) with enough
    decimals to show the interval's width."""
    if pct:
        places = max(digits - 2, 1)
        width = 100 * (high - low) if np.isfinite(high - low) else 1.0
        while places < 2 and width < 10 ** (1 - places):
            places += 1
        return f"{100 * mean:.{places}f}% [{100 * low:.{places}f}, {100 * high:.{places}f}]"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def figure_caption(name: str, what: str, sample: str, bars: str, finding: str) -> str:
    """A figure's entry in a ``summary.md``: the image, then one caption paragraph saying what is
    plotted, on what sample (n, seed), what the bars are and the finding in one sentence.

    Parameters
    ----------
    name : str
        The plot's name (``NAME.png`` beside the summary).
    what, sample, bars, finding : str
        Sentences (without the final full stop): ``"P(discard) against the displayed score"``,
        ``"100,000 matches per configuration, seed 1"``, ``"bars: 95% Wilson intervals, matches
        as clusters"``, ``"exact discards less than greedy at every player count"``.
    """
    parts = [f"**`{name}.png`**: {what}", sample, bars, finding]
    return (f"![{name}]({name}.png)\n\n"
            + ". ".join(p.strip().rstrip(".") for p in parts if p.strip()) + ".")


@dataclass
class ExperimentResult:
    """What an experiment produced.

    Attributes
    ----------
    name : str
        The experiment (``overshoot``, ``settlement``, ``openings``, ``seats``).
    settings : dict
        Everything that defines the results (written as ``run.json``).
    frames : dict of str -> DataFrame
        Result tables; each is written as ``NAME.parquet`` and ``NAME.csv``.
    markdown : str
        The summary (``summary.md``).
    plots : dict of str -> callable
        ``plot(path)`` writes one PNG (``NAME.png``); in a result read back by
        :func:`load_result`, the PNG's path.
    key_numbers : dict
        Headline figures (also at the top of the summary).
    files : list of str
        Written by :meth:`save`.
    """

    name: str
    settings: dict
    frames: dict[str, pd.DataFrame]
    markdown: str
    plots: dict[str, Callable] = field(default_factory=dict)
    key_numbers: dict = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def save(self, out) -> list[str]:
        """Claim ``out`` for the result's settings (:func:`sim.files.claim_directory`) and
        :meth:`write` the result there."""
        return self.write(claim_directory(out, self.settings))

    def write(self, out) -> list[str]:
        """Write every frame (parquet and CSV), every plot, ``summary.md`` and the key numbers
        (:data:`KEY_NUMBERS`, what README and the notebooks quote) into ``out``, a directory
        already claimed for the result's settings (a run claims it once, before it plays)."""
        path = Path(out)
        written = []
        for name, frame in self.frames.items():
            flat = _flat(frame)
            atomic_write(path / f"{name}.parquet", lambda p, f=flat: f.to_parquet(p, index=False))
            atomic_write(path / f"{name}.csv",
                         lambda p, f=flat: f.to_csv(p, index=False, float_format="%.6g"))
            written += [f"{name}.parquet", f"{name}.csv"]
        for name, plot in self.plots.items():
            atomic_write(path / f"{name}.png", plot)
            written.append(f"{name}.png")
        atomic_write(path / "summary.md", lambda p: p.write_text(self.markdown))
        atomic_write(path / KEY_NUMBERS, lambda p: p.write_text(
            json.dumps(canonical(self.key_numbers), indent=2) + "\n"))
        written += ["summary.md", KEY_NUMBERS]
        self.files = [str(path / name) for name in written]
        return self.files


def load_result(directory) -> ExperimentResult:
    """A saved result read back from its directory: every ``NAME.csv`` as a frame (parquet where
    the CSV was left out), ``run.json`` as the settings, ``summary.md`` and the key numbers; the
    plots are the PNG files' paths (``plots[name]``). What the notebooks show of a committed
    result (docs/results), so that their figures are the committed ones."""
    path = Path(directory)
    if not (path / MANIFEST_NAME).exists():
        raise ValueError(f"{path} holds no saved result (no {MANIFEST_NAME})")
    settings = json.loads((path / MANIFEST_NAME).read_text())
    frames = {p.stem: pd.read_csv(p) for p in sorted(path.glob("*.csv"))}
    for extra in sorted(path.glob("*.parquet")):
        frames.setdefault(extra.stem, pd.read_parquet(extra))
    key_path = path / KEY_NUMBERS
    key_numbers = json.loads(key_path.read_text()) if key_path.exists() else {}
    summary = path / "summary.md"
    return ExperimentResult(
        name=settings.get("experiment", path.name), settings=settings, frames=frames,
        markdown=summary.read_text() if summary.exists() else "",
        plots={p.stem: p for p in sorted(path.glob("*.png"))}, key_numbers=key_numbers,
        files=sorted(str(p) for p in path.iterdir() if p.is_file()))


def _flat(frame: pd.DataFrame) -> pd.DataFrame:
    """Categorical columns as strings (stable parquet/CSV across pandas versions)."""
    out = frame.copy()
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].astype(str)
    return out
