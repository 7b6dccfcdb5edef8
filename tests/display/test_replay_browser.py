"""The replay page in a real headless Chromium (Debian's, see :mod:`tests.support.browser`).

Loads pages written by :func:`sim.display.replay_page.write_replay_page` from
``file://``, steps through them with the keyboard, the buttons and the round
selector, and checks what the page shows (scores, boneyard, hands, the move,
its events, the round and match results, the tiles visible in the layout)
against :func:`tests.display.replay_expected.expected_steps`. Screenshots are
kept in :func:`tests.support.browser.artifact_directory`.
"""

from __future__ import annotations

import copy

import pytest

from sim.display.replay_page import write_replay_page
from tests.display.replay_expected import analysis_rows, edge_records, expected_steps, golden
from tests.support import browser as browser_setup
from tests.support.browser import artifact_directory

HOSTILE = "</script><script>alert(1)</script>"

VIEWPORT = {"width": 1280, "height": 860}

SHOWN = """() => {
  const text = selector => document.querySelector(selector).textContent.trim();
  const layouts = [...document.querySelectorAll('#layouts .round-layout')].filter(d => !d.hidden);
  const moves = new Set();
  layouts.forEach(div => div.querySelectorAll('[data-move]').forEach(tile => {
    if (tile.getClientRects().length > 0) { moves.add(tile.getAttribute('data-move')); }
  }));
  return {
    step: Number(document.body.getAttribute('data-step')),
    layouts: layouts.map(div => Number(div.getAttribute('data-round'))),
    drawn: moves.size,
    layoutTitle: text('#layout-title'),
    boneyard: Number(text('#boneyard')),
    scores: [...document.querySelectorAll('#scores tbody tr')].map(row =>
      [Number(row.querySelector('.raw').textContent), Number(row.querySelector('.shown').textContent)]),
    hands: [...document.querySelectorAll('#hands .hand')].map(row => ({
      seat: Number(row.getAttribute('data-seat')),
      tiles: [...row.querySelectorAll('.tile')].map(t => t.getAttribute('data-tile')),
      backs: row.querySelectorAll('.back').length,
    })),
    events: [...document.querySelectorAll('#events li')].map(item =>
      ({kind: item.getAttribute('data-kind'), class: item.className, text: item.textContent})),
    move: text('#move'),
    result: text('#result'),
  };
}"""
"""Everything the page shows of the current step, read in one call."""


class Viewer:
    """One replay page open in the browser, with what it shows read back."""

    def __init__(self, browser, path, width=VIEWPORT["width"]):
        self.page = browser.new_page(viewport={**VIEWPORT, "width": width})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: message.type == "error"
                     and self.errors.append(message.text))
        self.page.on("dialog", self._dialog)
        self.page.goto(path.as_uri())

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def press(self, key: str, times: int = 1) -> None:
        for _ in range(times):
            self.page.keyboard.press(key)

    def go(self, index: int, steps: list) -> None:
        """Show step ``index``: jump to its round with the selector, then step with Right."""
        self.page.select_option("#round", str(steps[index].round))
        self.press("ArrowRight", index - self.step())

    def step(self) -> int:
        return int(self.page.get_attribute("body", "data-step"))

    def text(self, selector: str) -> str:
        return self.page.text_content(selector).strip()

    def shown(self) -> dict:
        """What the page shows now (see :data:`SHOWN`)."""
        return self.page.evaluate(SHOWN)

    def check(self, want, record: dict, index: int) -> dict:
        """Assert the page shows step ``index`` as ``want`` (an :class:`Expected`); return it."""
        shown = self.shown()
        assert shown["step"] == index
        assert (shown["layouts"], shown["drawn"]) == ([want.round], want.placed)
        assert shown["layoutTitle"].startswith(f"Round {want.round + 1} layout: {want.placed} ")
        assert shown["boneyard"] == want.boneyard
        assert shown["scores"] == [[raw, raw // 5] for raw in want.scores]
        assert [hand["seat"] for hand in shown["hands"]] == list(range(len(want.hands)))
        for hand, tiles, hidden in zip(shown["hands"], want.hands, want.hidden):
            if hidden:
                assert hand["tiles"] == [] and hand["backs"] == len(tiles), hand
            else:
                assert hand["tiles"] == [f"{a}-{b}" for a, b in tiles], hand
        assert [(item["kind"], item["class"]) for item in shown["events"]] == \
            [(kind, "accepted" if accepted else "discarded") for kind, accepted, _, _ in want.events]
        for item, (_, accepted, before, raw) in zip(shown["events"], want.events):
            sign = "+" if raw >= 0 else "-"
            figures = f"{before} {sign} {abs(raw)} = {before + raw}"
            assert figures in item["text"]
            if not accepted:
                assert f"{figures} would pass 305" in item["text"]
        if want.kind == "end":
            assert f"Round {want.round + 1} ends: {want.end}" in shown["move"]
        if want.kind == "play":
            action = record["rounds"][want.round]["actions"][want.action]
            assert shown["move"].startswith(f"Seat {action['seat']} ")
            assert f"{action['tile'][0]}-{action['tile'][1]}" in shown["move"]
        assert self.errors == [] and self.dialogs == []
        return shown

    def screenshot(self, name: str) -> None:
        self.page.screenshot(path=str(artifact_directory() / name), full_page=True)


@pytest.fixture
def viewer(browser, tmp_path):
    """``open(record, seat=None, analysis=None, width=1280) -> Viewer`` on a page written to
    ``tmp_path``, in a window ``width`` px wide."""
    opened = []

    def open_page(record, seat=None, analysis=None, width=VIEWPORT["width"]):
        path = tmp_path / f"replay-{len(opened)}.html"
        write_replay_page(record, path, seat, analysis)
        opened.append(Viewer(browser, path, width))
        return opened[-1]

    yield open_page
    for shown in opened:
        shown.page.close()


def test_stepping_through_a_golden_match(viewer):
    record = golden(3)[0]
    steps = expected_steps(record)
    view = viewer(record)
    view.check(steps[0], record, 0)
    assert view.text("#position").startswith(f"Step 1 of {len(steps)}")
    view.press("ArrowRight", 7)
    view.check(steps[7], record, 7)
    for _ in range(3):
        view.page.click("#next")
    view.check(steps[10], record, 10)
    view.page.click("#prev")
    view.check(steps[9], record, 9)
    # The first round's end: its settlement, every hand revealed.
    end = next(k for k, s in enumerate(steps) if s.kind == "end")
    view.press("ArrowRight", end - 9)
    view.check(steps[end], record, end)
    assert [kind for kind, *_ in steps[end].events] == ["domino"]
    view.screenshot("replay-3p-round-1-end.png")
    # Jump to a round, then back over the round boundary.
    view.page.select_option("#round", "4")
    first = next(k for k, s in enumerate(steps) if s.round == 4)
    view.check(steps[first], record, first)
    view.press("ArrowLeft")
    view.check(steps[first - 1], record, first - 1)
    view.press("PageDown")
    view.check(steps[first], record, first)
    # The match end: the winning placement, then the last round's end and the match winner.
    view.press("End")
    last = len(steps) - 1
    shown = view.check(steps[last], record, last)
    assert shown["result"] == "Match winner: seat 1, exactly 305 raw (61 displayed)."
    assert steps[last].scores == record["scores"]
    view.screenshot("replay-3p-match-end.png")
    view.press("ArrowLeft")
    view.check(steps[last - 1], record, last - 1)
    assert [(kind, accepted) for kind, accepted, *_ in steps[last - 1].events] == [("placement", True)]
    view.press("Home")
    view.check(steps[0], record, 0)
    assert view.page.is_disabled("#prev") and not view.page.is_disabled("#next")


def test_a_seat_view_hides_the_other_hands_until_settlement(viewer):
    record = golden(4)[0]
    steps = expected_steps(record, seat=1)
    view = viewer(record, seat=1)
    for index in (0, 5, 13):
        view.press("ArrowRight", index - view.step())
        view.check(steps[index], record, index)
    assert "as seat 1 saw it" in view.text("h1")
    view.screenshot("replay-4p-seat-1.png")
    end = next(k for k, s in enumerate(steps) if s.kind == "end")
    view.press("ArrowRight", end - view.step())
    view.check(steps[end], record, end)
    assert not any(steps[end].hidden)  # a domino's settlement reveals every hand


@pytest.mark.parametrize("width", [1280, 700])
def test_an_analysed_seat_has_its_win_probability_bar_at_every_step(viewer, width):
    record = golden(2)[0]
    rows = analysis_rows(record, 1)
    view = viewer(record, seat=1, analysis=rows, width=width)
    steps = expected_steps(record, seat=1)
    first = next(k for k, s in enumerate(steps) if s.kind == "play"
                 and record["rounds"][s.round]["actions"][s.action]["seat"] == 1)
    assert "No decision of seat 1 analysed yet." in view.text("#wp-text")
    assert view.page.is_hidden("#wp-bar")
    view.press("ArrowRight", first - view.step())
    view.check(steps[first], record, first)
    assert view.text("#wp-text").startswith("This move (move 0): win probability 0% [0%, 90%]")
    assert "a costly move" in view.text("#wp-text")  # loss interval [0.02, 0.2] excludes 0
    view.press("ArrowRight")
    assert view.text("#wp-text").startswith("Seat 1's last analysed move (move 0)")
    box = view.page.locator("#wp-bar").bounding_box()
    fill = view.page.locator("#wp-interval").bounding_box()
    assert box["width"] > 200 and abs(fill["x"] - box["x"]) < 2  # interval from 0%
    assert abs(fill["width"] - 0.9 * box["width"]) < 4  # to 90% of the bar
    view.screenshot(f"replay-2p-seat-1-analysis-{width}px.png")
    assert view.errors == []


def test_rare_events_and_a_hostile_strategy_name(viewer):
    record = copy.deepcopy(edge_records()["2p blocked, discarded placement and blocked events, passes"])
    record["strategies"][1] = HOSTILE
    steps = expected_steps(record)
    view = viewer(record)
    assert f"seat 1 ({HOSTILE})" in view.text(".seats")
    wanted = [k for k, s in enumerate(steps)
              if any(not accepted for _, accepted, _, _ in s.events)][:2]
    wanted += [k for k, s in enumerate(steps) if s.end == "blocked"][:1]
    for index in sorted(wanted):
        view.go(index, steps)
        view.check(steps[index], record, index)
        if steps[index].end == "blocked":
            assert [kind for kind, *_ in steps[index].events] == ["blocked"] * len(steps[index].events)
            assert steps[index].events and not any(steps[index].hidden)
            view.screenshot("replay-2p-blocked.png")
    assert view.page.evaluate("document.querySelectorAll('script').length") == 2


def test_without_chromium_or_root_the_browser_tests_say_why(monkeypatch, tmp_path):
    monkeypatch.setattr(browser_setup, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setattr(browser_setup.os, "geteuid", lambda: 1000)
    path, why = browser_setup.ensure_chromium()
    assert path is None and "needs root" in why and "install -y --no-install-recommends chromium" in why
    monkeypatch.setattr(browser_setup.os, "geteuid", lambda: 0)
    monkeypatch.setattr(browser_setup.shutil, "which", lambda name: None)
    path, why = browser_setup.ensure_chromium()
    assert path is None and "no apt-get" in why
