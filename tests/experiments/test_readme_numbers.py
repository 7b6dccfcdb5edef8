"""README's numbers are the committed results' (experiments.release.readme_numbers)."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.release import readme_numbers
from tests.support.paths import REPO


def test_readme_blocks_are_the_committed_results():
    """Every generated block of README equals its text from docs/results: regenerating a result
    without README (or editing README's figures by hand) fails here."""
    text = (REPO / "README.md").read_text()
    names = readme_numbers.blocks_in(text)
    assert set(names) == set(readme_numbers.BLOCKS), "every generator has its block in README"
    assert readme_numbers.stale_blocks(text, REPO / "docs" / "results") == []


def test_render_replaces_only_between_the_markers(tmp_path):
    """A block's old text is replaced, the text around it kept; rendering twice changes nothing."""
    readme_numbers.BLOCKS["test-block"] = lambda results: f"from {results.name}"
    try:
        text = ("intro\n" + readme_numbers.start_marker("test-block") + "\nold 1.23\n"
                + readme_numbers.end_marker("test-block") + "\noutro\n")
        fresh = readme_numbers.render(text, tmp_path)
        assert fresh == ("intro\n" + readme_numbers.start_marker("test-block") + f"\nfrom {tmp_path.name}\n"
                         + readme_numbers.end_marker("test-block") + "\noutro\n")
        assert readme_numbers.render(fresh, tmp_path) == fresh
        assert readme_numbers.stale_blocks(text, tmp_path) == ["test-block"]
        assert readme_numbers.stale_blocks(fresh, tmp_path) == []
        path = tmp_path / "README.md"
        path.write_text(text)
        assert readme_numbers.write(path, tmp_path) == 1
        assert path.read_text() == fresh and readme_numbers.write(path, tmp_path) == 0
    finally:
        del readme_numbers.BLOCKS["test-block"]


def test_a_block_without_generator_or_end_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no generator"):
        readme_numbers.render(readme_numbers.start_marker("nonesuch") + "\n", tmp_path)
    with pytest.raises(ValueError, match="no end marker"):
        readme_numbers.render(readme_numbers.start_marker("strength-ladder") + "\nx\n", tmp_path)


def test_a_head_to_head_sentence_gives_wilson_beside_the_paired_interval():
    """The duplicate tournaments' sentence: the paired interval from paired.csv and Wilson from
    summary.csv's wilson columns (its win_low/win_high are the deal-clustered interval), so the
    pairing's gain is the ratio of the two widths, not of one interval with itself."""
    results = REPO / "docs" / "results"
    for name in ("duplicate_deals", "rollout_vs_greedy"):
        first = pd.read_csv(results / name / "summary.csv").iloc[0]
        paired = pd.read_csv(results / name / "paired.csv").set_index("strategy").loc[
            first.strategy]
        text = readme_numbers.head_to_head(results, name)
        assert (f"paired 95% interval (deal = unit) [{100 * paired.paired_low:.2f}, "
                f"{100 * paired.paired_high:.2f}]") in text, text
        assert f"Wilson [{100 * first.wilson_low:.2f}, {100 * first.wilson_high:.2f}]" in text, text
        ratio = ((first.wilson_high - first.wilson_low)
                 / (paired.paired_high - paired.paired_low)) ** 2
        assert f"as much as {ratio:.1f}x more independent matches" in text, text
