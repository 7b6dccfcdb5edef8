"""Every figure a reader sees, checked by rule at print size: one column or the page wide, no text
under 7 pt, no text over text, off the figure or over a plotting area, every legend entry
distinct and categories never in a strategy's colour, no empty panel, every plotted estimate
with its interval (bars with caps, above their markers).

The rules (:func:`experiments.reporting.figures.print_problems`) are checked on synthetic
figures, each rule shown to fail, and then on every figure of every committed result rendered
at the small size (slow): :func:`experiments.reporting.figures.save_png` raises on a figure
that breaks them under ``FIVE_UP_FIGURE_AUDIT=strict``, which the test suite sets
(``tests/conftest.py``), so every figure any test writes is checked too.
"""

from __future__ import annotations

import pytest
from PIL import Image

from cli.main import main as five_up
from experiments.release import results
from experiments.reporting import figures
from experiments.reporting.figures import (COLUMN_WIDTH, PAGE_WIDTH, PRINT_DPI, STRATEGY_COLOURS,
                                           category_colours, estimates, new_figure, stamp,
                                           strategy_colour)


@figures.house_style()
def good_figure():
    """A figure that keeps every rule: two strategies with intervals, a reference line, a
    category band, a footer."""
    figure, (left, right) = new_figure(1, 2, width="page", height=2.2)
    for k, name in enumerate(("greedy", "rollout")):
        estimates(left, [0, 1], [0.4 + 0.1 * k, 0.6], [0.35 + 0.1 * k, 0.55],
                  [0.45 + 0.1 * k, 0.65], color=strategy_colour(name), label=name)
    figures.reference_line(left, 0.5)
    left.legend()
    left.set_xlabel("x label")
    figures.band(right, [0, 1, 2], [1, 2, 3], [0.5, 1.5, 2.5], [1.5, 2.5, 3.5],
                 color=category_colours(1)[0], label="2 players")
    right.legend()
    stamp(figure, "a footer, 1,000 matches, seed 1")
    return figure


def test_a_good_figure_passes_and_prints_at_its_width(tmp_path, monkeypatch):
    monkeypatch.setenv(figures.AUDIT_ENV, "strict")
    figure = good_figure()
    assert figures.print_problems(figure) == []
    figures.save_png(figure, tmp_path / "good.png")
    width, _ = Image.open(tmp_path / "good.png").size
    assert width == round(PAGE_WIDTH * PRINT_DPI)


@figures.house_style()
def test_each_rule_can_fail(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="inches wide"):
        new_figure(width=5.0)
    figure, (left, middle, right) = new_figure(1, 3, width="page", height=2.0)
    left.plot([0, 1], [0.2, 0.3], "o", color=strategy_colour("greedy"), label="greedy")
    left.plot([0, 1], [0.3, 0.4], "s", color=STRATEGY_COLOURS["exact"], label="2 players")
    left.plot([0, 1], [0.5, 0.6], color="#123456", label="rollout")
    left.legend()
    container = middle.errorbar([0, 1], [1, 2], yerr=0.1, fmt="o", capsize=0, label="a")
    container.lines[2][0].set_zorder(0.1)
    middle.errorbar([0, 1], [1.5, 2.5], yerr=0.1, fmt="o", capsize=0,
                    color=container.lines[0].get_color(), label="a")
    middle.legend()
    middle.set_title("small", fontsize=5)
    figure.text(0.98, 0.5, "off the edge of the page")
    found = figures.print_problems(figure)
    text = "\n".join(found)
    assert "'2 players' is not a strategy but takes a strategy colour" in text
    assert "'rollout' is a strategy drawn in another colour" in text
    assert "estimates 'greedy' drawn without intervals" in text
    assert "curve 'rollout' drawn without an interval band" in text
    assert "interval bars without caps" in text
    assert "interval bars drawn under their markers" in text
    assert "legend entry 'a' appears twice" in text
    assert "'small' is 5.0 pt" in text
    assert "runs off the figure" in text
    assert any(p.startswith("panel 2") and p.endswith("is empty") for p in found)
    monkeypatch.setenv(figures.AUDIT_ENV, "strict")
    with pytest.raises(ValueError, match="is empty"):
        figures.save_png(figure, tmp_path / "bad.png")
    assert not (tmp_path / "bad.png").exists()


@figures.house_style()
def test_two_entries_alike_and_a_column_figure():
    figure, ax = new_figure(width="column", height=2.0)
    colour = category_colours(1)[0]
    for label in ("exact vs greedy", "rollout vs greedy"):
        estimates(ax, [0, 1], [1, 2], [0.5, 1.5], [1.5, 2.5], color=colour, label=label)
    ax.legend()
    assert figure.get_figwidth() == COLUMN_WIDTH
    assert any("look the same" in p for p in figures.print_problems(figure))


@figures.house_style()
def test_an_axes_marked_without_estimates_is_exempt():
    figure, ax = new_figure(width="column", height=2.0)
    ax.plot([0, 1, 2], [3, 1, 2], color=category_colours(1)[0], label="matches")
    assert any("without an interval band" in p for p in figures.print_problems(figure))
    figures.no_intervals(ax, "counts of a histogram")
    assert figures.print_problems(figure) == []


def test_categories_share_no_colour_with_strategies():
    palette = set(category_colours(9))
    assert len(palette) == 9
    assert not palette & {c.lower() for c in STRATEGY_COLOURS.values()}
    # a variant is a shade of its base: the family shows, and both can share a figure
    from matplotlib.colors import rgb_to_hsv, to_rgb

    base = strategy_colour("weighted")
    for variant in ("weighted[w=1]", "weighted_tuned", "weighted[w=2]"):
        assert strategy_colour(variant) != base
        assert rgb_to_hsv(to_rgb(strategy_colour(variant)))[0] == pytest.approx(
            rgb_to_hsv(to_rgb(base))[0], abs=0.02)
    assert strategy_colour("weighted_tuned") == strategy_colour("weighted_tuned")
    assert strategy_colour("mine.py:bold") == strategy_colour("mine.py:bold")
    assert len(set(STRATEGY_COLOURS.values())) == len(STRATEGY_COLOURS)


@pytest.mark.slow  # every committed result's command at the small size, in this process
def test_every_figure_of_every_result_prints(compiled_engine, tmp_path, monkeypatch):
    monkeypatch.setenv(figures.AUDIT_ENV, "strict")
    for result in results.RESULTS:
        if not results.available(result.needs):
            continue
        out = tmp_path / result.name
        assert five_up([*result.small, "--out", str(out)]) == 0, result.name
        for png in sorted(out.glob("*.png")):
            width, _ = Image.open(png).size
            assert width in (round(COLUMN_WIDTH * PRINT_DPI), round(PAGE_WIDTH * PRINT_DPI)), png
