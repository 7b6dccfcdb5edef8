"""The replay page at a wide (1280 px) and a narrow (700 px) window, in headless Chromium.

At an early, a middle and the last step of a round of a 2-, 3- and 4-player golden match
(the round with the most placements, where the layout is widest), the page must show: the
tiles' numbers at least 12 px high (at 700 px: wherever the layout fits the window at that
size, else the layout fills the window's width), no two of its blocks overlapping, nothing
past the window's left or right edge, and the open ends and their total after the step's
placements, as :func:`tests.display.replay_expected.expected_open_ends` works them out on
:class:`sim.reference.Layout` (both the page's tally and the discs in the layout).
Screenshots go to :func:`tests.support.browser.artifact_directory`.
"""

from __future__ import annotations

import re

import pytest

from sim.display.replay_page import write_replay_page
from tests.display.replay_expected import (
    analysis_rows,
    expected_open_ends,
    expected_steps,
    golden,
    page_data,
)
from tests.support.browser import artifact_directory

WIDTHS = (1280, 700)
HEIGHT = 860
LEAST_DIGIT = 12.0
"""Smallest height (CSS px) of a tile's number: its text element's bounding box."""

MEASURE = """() => {
  const visible = node => node.getClientRects().length > 0;
  const rect = node => { const r = node.getBoundingClientRect();
                         return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const layout = [...document.querySelectorAll('#layouts .round-layout')].find(d => !d.hidden);
  const panel = document.getElementById('layouts');
  const style = getComputedStyle(panel);
  const room = panel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const blocks = {};
  for (const selector of ['header', '#layout-title', '#tally', '#layouts', '.legend', '#analysis',
                          '#move', '#scores', '#hands']) {
    const node = document.querySelector(selector);
    if (node && visible(node)) { blocks[selector] = rect(node); }
  }
  const sections = [...document.querySelectorAll('main > section')].map(rect);
  const panning = panel.scrollWidth > panel.clientWidth + 1;
  // An SVG clips what it holds to its own box: that part is what the reader sees.
  const seen = node => {
    const r = rect(node), svg = node.parentNode.closest && node.parentNode.closest('svg');
    if (!svg) { return r; }
    const box = rect(svg);
    return {left: Math.max(r.left, box.left), right: Math.min(r.right, box.right),
            top: Math.max(r.top, box.top), bottom: Math.min(r.bottom, box.bottom)};
  };
  const outside = [...document.body.querySelectorAll('*')]
    .filter(node => visible(node) && !(panning && panel.contains(node)))
    .map(node => [node.tagName + (node.id ? '#' + node.id : ''), seen(node)])
    .filter(([, r]) => r.right > r.left && (r.left < -0.5 || r.right > innerWidth + 0.5));
  const last = layout.querySelector('.last-move');
  return {
    digits: [...layout.querySelectorAll('g.tile text.half')].filter(visible)
      .map(t => t.getBoundingClientRect().height),
    svgWidth: layout.querySelector('svg').getBoundingClientRect().width,
    viewBox: layout.querySelector('svg').getAttribute('viewBox').split(' ').map(Number),
    room: room,
    panning: panning,
    panHint: !document.getElementById('pan-hint').hidden,
    lastInPanel: !last || (rect(last).left >= rect(panel).left && rect(last).right <= rect(panel).right),
    blocks: blocks,
    sections: sections,
    outside: outside.slice(0, 5),
    pageWidth: document.documentElement.scrollWidth,
    innerWidth: innerWidth,
    discs: [...layout.querySelectorAll('.open-ends')].filter(visible)
      .flatMap(g => [...g.querySelectorAll('text.end-value')].map(t => Number(t.textContent))),
    tallyDiscs: [...document.querySelectorAll('#tally .disc')].map(d => Number(d.textContent)),
    tally: document.getElementById('tally').textContent,
  };
}"""
"""What the checks need of the page at the current step, read in one call."""


def overlap(a: dict, b: dict) -> float:
    """The area two rectangles share (0 when they only touch)."""
    width = min(a["right"], b["right"]) - max(a["left"], b["left"])
    height = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, width) * max(0.0, height)


def chosen_steps(record: dict) -> tuple[int, dict[str, int]]:
    """The round with the most placements and its early (2 tiles placed), middle and last step."""
    steps = expected_steps(record)
    rounds = range(len(record["rounds"]))
    widest = max(rounds, key=lambda r: max(s.placed for s in steps if s.round == r))
    own = [k for k, s in enumerate(steps) if s.round == widest]
    placed = steps[own[-1]].placed
    early = next(k for k in own if steps[k].placed == 2)
    middle = next(k for k in own if steps[k].placed == placed // 2)
    return widest, {"early": early, "middle": middle, "last": own[-1]}


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """players -> (record, the page's path); the 2-player page carries seat 1's analysis."""
    directory = tmp_path_factory.mktemp("replay-screens")
    written = {}
    for players in (2, 3, 4):
        record = golden(players)[0]
        analysis = analysis_rows(record, 1) if players == 2 else None
        path = directory / f"replay-{players}p.html"
        write_replay_page(record, path, analysis=analysis)
        written[players] = (record, path)
    return written


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_page_reads_at_every_size_and_step(browser, pages, players, width):
    record, path = pages[players]
    round_index, chosen = chosen_steps(record)
    steps = expected_steps(record)
    views = page_data(path.read_text(encoding="utf-8"))["rounds"][round_index]["views"]
    page = browser.new_page(viewport={"width": width, "height": HEIGHT})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(path.as_uri())
        for name, index in chosen.items():
            shown = show_step(page, index)
            where = (players, width, name, index)
            page.screenshot(path=str(artifact_directory() / f"replay-{players}p-{width}px-{name}.png"),
                            full_page=True)

            # Zoomed to what the step draws (tests/display/test_replay_page.py checks the boxes).
            assert shown["viewBox"] == views[steps[index].placed], where
            assert len(shown["digits"]) == 2 * steps[index].placed, where
            least = min(shown["digits"])
            if width >= 900:
                assert least >= LEAST_DIGIT, where
            else:
                # Below 900 px the layout never pans: its numbers are 12 px unless it then
                # would not fit the window, and then it fills the window's width.
                assert shown["svgWidth"] <= shown["room"] + 1, where
                assert least >= LEAST_DIGIT or shown["svgWidth"] >= shown["room"] - 1, where
            assert shown["lastInPanel"], where
            assert shown["panHint"] == shown["panning"], where

            blocks = shown["blocks"]
            assert {"header", "#layouts", "#tally", "#move", "#scores", "#hands"} <= set(blocks)
            names = sorted(blocks)
            for i, first in enumerate(names):
                for second in names[i + 1:]:
                    assert overlap(blocks[first], blocks[second]) < 1, (where, first, second)
            left, right = shown["sections"]
            assert overlap(left, right) < 1, where
            if width >= 900:
                assert right["left"] >= left["right"], where  # two columns side by side
            else:
                assert right["top"] >= left["bottom"], where  # stacked: the layout first
            assert shown["outside"] == [], where
            assert shown["pageWidth"] <= shown["innerWidth"], where

            ends, total = expected_open_ends(record, round_index, steps[index].placed)
            assert sum(ends) == total
            assert sorted(v for v in shown["discs"] if v) == ends, where
            assert sorted(v for v in shown["tallyDiscs"] if v) == ends, where
            assert [int(t) for t in re.findall(r"total (\d+)", shown["tally"])] == [total], where
        assert errors == []
    finally:
        page.close()


def show_step(page, index: int) -> dict:
    """Drag the slider to step ``index``, as a reader would; what :data:`MEASURE` reads then."""
    page.evaluate("k => { const s = document.getElementById('step'); s.value = String(k);"
                  " s.dispatchEvent(new Event('input')); }", index)
    assert page.get_attribute("body", "data-step") == str(index)
    return page.evaluate(MEASURE)


def test_a_layout_too_wide_for_a_two_column_window_pans_to_the_last_tile(browser, pages):
    record, path = pages[4]
    round_index, _ = chosen_steps(record)
    steps = expected_steps(record)
    plays = [k for k, s in enumerate(steps) if s.round == round_index and s.kind == "play"]
    page = browser.new_page(viewport={"width": 920, "height": HEIGHT})
    try:
        page.goto(path.as_uri())
        shown = show_step(page, plays[-1])
        # Two columns leave the layout less room than the numbers need at 12 px: it pans.
        assert shown["panning"] and shown["svgWidth"] > shown["room"]
        assert min(shown["digits"]) >= LEAST_DIGIT
        assert shown["lastInPanel"]  # scrolled to the tile just placed
        assert shown["panHint"]
        assert shown["outside"] == [] and shown["pageWidth"] <= shown["innerWidth"]
        page.screenshot(path=str(artifact_directory() / "replay-4p-920px-panned.png"))
        # Widening the window to 1280 px gives the layout room: no panning.
        page.set_viewport_size({"width": 1280, "height": HEIGHT})
        # The page refits on its resize event, which may run after the new size is measurable:
        # wait for the hint to go (a timeout error, failing the test, if it never does).
        page.wait_for_function("() => document.getElementById('pan-hint').hidden", timeout=5000)
        wider = page.evaluate(MEASURE)
        assert not wider["panning"] and not wider["panHint"]
    finally:
        page.close()
