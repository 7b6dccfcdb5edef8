"""Every figure a reader sees, checked by rule: no text over text or over a plotting area, one
colour per strategy in every figure, no empty panel, no legend entry without its artist.

The rules are checked on synthetic figures (each rule can fail) and then on every figure of
every committed result, rendered at the small size in this process: the check wraps
:func:`experiments.reporting.figures.place_footer`, which :func:`experiments.reporting.figures.save_png` calls on
every figure just before writing it.
"""

from __future__ import annotations

import pytest
from matplotlib.colors import to_hex
from matplotlib.container import Container
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from cli.main import main as five_up
from experiments.release import results
from experiments.reporting import figures
from experiments.reporting.figures import STRATEGY_COLOURS, new_figure, stamp, strategy_colour


def handle_colour(handle) -> str | None:
    """The colour a legend handle shows (a line's, a patch's face, a container's first part)."""
    if isinstance(handle, Container):
        parts = [p for p in handle if p is not None]
        handle = parts[0] if parts else None
        if isinstance(handle, (list, tuple)):
            handle = handle[0] if handle else None
    if isinstance(handle, Line2D):
        return to_hex(handle.get_color())
    if isinstance(handle, Patch):
        return to_hex(handle.get_facecolor())
    if hasattr(handle, "get_facecolor"):
        faces = handle.get_facecolor()
        if len(faces):
            return to_hex(faces[0])
    return None


def strategy_of(label: str) -> str | None:
    """The built-in strategy a legend label names, alone or before ``" ("`` / ``", "``."""
    for cut in (" (", ", ", ": "):
        label = label.split(cut, 1)[0]
    return label if label in STRATEGY_COLOURS else None


def defects(figure) -> list[str]:
    """What a reader would stumble on in ``figure`` (empty for a good figure)."""
    found = [f"overlap: {a!r} / {b!r}" for a, b in figures.text_overlaps(figure)]
    lines = [line for ax in figure.axes for line in ax.get_lines()]
    for ax in figure.axes:
        if ax.get_visible() and ax.axison and not ax.has_data():
            found.append(f"empty panel {ax.get_title()!r}")
        legend = ax.get_legend()
        if legend is None:
            continue
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            label = text.get_text()
            name = strategy_of(label)
            colour = handle_colour(handle)
            if name is not None and colour is not None and colour != strategy_colour(name):
                found.append(f"{label!r} drawn in {colour}, not {strategy_colour(name)}")
            if isinstance(handle, Line2D) and handle.get_marker() not in (None, "None", ""):
                shown = [line for line in lines if len(line.get_xdata())
                         and line.get_marker() == handle.get_marker()
                         and line.get_fillstyle() == handle.get_fillstyle()
                         and (line.get_markerfacecolor() == "none")
                         == (handle.get_markerfacecolor() == "none")]
                if not shown:
                    found.append(f"legend entry {label!r}: marker {handle.get_marker()!r} "
                                 "drawn nowhere")
    return found


def test_each_rule_can_fail():
    figure, (left, right) = new_figure(1, 2, figsize=(4, 3))
    left.plot([0, 1], [0, 1], color="#123456", label="greedy")
    left.plot([], [], marker="s", markerfacecolor="none", linestyle="none", label="marker")
    left.legend()
    left.set_xlabel("x label")
    stamp(figure, "a footer long enough to reach the x label")
    figure.text(0.3, 0.5, "over the axes")
    found = defects(figure)
    assert "overlap: 'x label' / 'a footer long enough to reach the x label'" in found
    assert "overlap: 'over the axes' / \"the plotting area of axes 0 ''\"" in found
    assert any(d.startswith("empty panel") for d in found)  # the right panel
    assert any("'greedy' drawn in #123456" in d for d in found)
    assert any("marker 's' drawn nowhere" in d for d in found)


def test_a_good_figure_passes_once_its_footer_is_placed(tmp_path):
    figure, ax = new_figure(figsize=(4, 3))
    for name in ("greedy", "rollout"):
        ax.errorbar([0, 1], [0.4, 0.6], yerr=0.05, color=strategy_colour(name), marker="o",
                    label=name)
    ax.legend()
    ax.set_xlabel("x label")
    stamp(figure, "a footer long enough to reach the x label")
    figures.save_png(figure, tmp_path / "good.png", 80)
    assert defects(figure) == []


def test_one_colour_per_strategy_for_variants_and_other_names():
    assert strategy_colour("weighted[w=1]") == strategy_colour("weighted") \
        == strategy_colour("weighted_tuned")
    assert strategy_colour("mine.py:bold") == strategy_colour("mine.py:bold")
    assert len(set(STRATEGY_COLOURS.values())) == len(STRATEGY_COLOURS)


@pytest.mark.slow  # every committed result's command at the small size, in this process
def test_every_figure_of_every_result_reads_cleanly(compiled_engine, tmp_path, monkeypatch):
    seen: list[tuple[str, list[str]]] = []
    place = figures.place_footer

    def checked(figure):
        place(figure)
        seen.append((figure.axes[0].get_title() if figure.axes else "", defects(figure)))

    monkeypatch.setattr(figures, "place_footer", checked)
    for result in results.RESULTS:
        if not results.available(result.needs):
            continue
        before = len(seen)
        out = tmp_path / result.name
        assert five_up([*result.small, "--out", str(out)]) == 0, result.name
        written = sorted(p.name for p in out.glob("*.png"))
        assert len(seen) - before == len(written), (result.name, written)
        bad = [(title, found) for title, found in seen[before:] if found]
        assert bad == [], result.name
