"""A self-contained HTML page that steps through one match move by move (``five-up show --html``).

The page needs no server and no network: its styles, its script, every
round's layout (the SVG of :func:`sim.display.layout_svg.round_svg`) and the
per-move states (:func:`sim.display.replay_states.replay_states`, a JSON blob
in a ``<script type="application/json">``) are all inline, and a
Content-Security-Policy forbids loading anything else. The script only
displays the states: every figure on the page was computed in Python from the
record.

The layout panel holds each round's whole layout once (its tiles only: the
SVG's title lines, which tell how the round ends, its legend and its caption
are left out; the page has its own). At every step the script shows the tiles
placed so far (``data-move`` below the step's placement count), rings the last
one, shows the open-ends group (``class="open-ends"``) whose ``data-after``
equals that count, and writes the open ends and their total above the layout
(``#tally``). It then zooms: the SVG's view box becomes the box around what the
step draws (:attr:`sim.display.layout_scene.Scene.views`) and the SVG is sized
to fill the panel's width, at most :data:`MAX_SCALE` times the picture's own
size. In a window of :data:`STACKED_BELOW` px or more a tile's numbers are
never drawn smaller than :data:`LEAST_DIGIT_PX`: a layout too wide for that
pans inside its panel (scrolled to the last tile) instead. In a narrower
window the two columns stack and the layout always fits the width.

Controls: previous / next buttons and the Left / Right arrow keys (one step),
Home / End (first / last step), Page Up / Page Down and a round selector (jump
to a round's deal), and a slider over every step.

Everything taken from the record is escaped: text in the HTML with
:func:`html.escape`, and the JSON blob with ``<``, ``>``, ``&`` and the two
JavaScript line separators as ``\\uXXXX`` escapes, so no strategy name can
close the script element. The script writes record text with ``textContent``
only, never as markup.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from sim.display.layout_scene import (
    MARK_FILL,
    MARK_STROKE,
    PIP_SIZE,
    RING_STROKE,
    Text,
    is_disc,
    legend_items,
    round_scene,
    seat_fill,
    total_caption,
)
from sim.display.layout_svg import scene_svg
from sim.display.replay_states import displayed, replay_states
from sim.files import atomic_write

LEAST_DIGIT_PX = 12
"""Smallest font size (CSS px) of a tile's numbers in a window of :data:`STACKED_BELOW` px or
more."""
MAX_SCALE = 1.3
"""Largest zoom of the layout (an early step's few tiles are not blown up to the panel's width)."""
STACKED_BELOW = 900
"""Window width (CSS px) below which the page's two columns stack into one."""
LEAST_LAYOUT_HEIGHT = 320
RESERVED_HEIGHT = 200
"""A tall layout is shrunk to the window's height less :data:`RESERVED_HEIGHT` (the header and
the tally), counted as at least :data:`LEAST_LAYOUT_HEIGHT` px (CSS px)."""

DATA_ELEMENT_ID = "replay-data"
"""The id of the ``<script type="application/json">`` element holding the states."""

JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                "\u2028": "\\u2028", "\u2029": "\\u2029"}
"""Characters written as JSON escapes inside the script element (no ``</script>``, no ``<!--``)."""

CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; "
                           "script-src 'unsafe-inline'; img-src data:")
"""The page may load nothing: only its inline styles and scripts run."""

STYLE = """
:root { --ink: #1d2327; --muted: #5f6b73; --line: #c9d1d6; --accent: #1f6feb;
        --good: #1a7f37; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 "DejaVu Sans", "Segoe UI", Arial, sans-serif; color: var(--ink); }
header { padding: 10px 16px; border-bottom: 1px solid var(--line); background: #fafbfc; }
h1 { font-size: 19px; margin: 0 0 2px; }
h2 { font-size: 14px; margin: 0 0 6px; text-transform: uppercase; letter-spacing: .04em;
     color: var(--muted); }
.seats { margin: 0 0 8px; color: var(--muted); }
nav { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
button, select { font: inherit; padding: 3px 10px; }
input[type=range] { flex: 1 1 200px; }
#position { color: var(--muted); min-width: 16em; }
main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(300px, 380px); gap: 16px;
       padding: 12px 16px; }
section { min-width: 0; }
section > div { margin-bottom: 14px; }
h1, p, li, td, th, .hand { overflow-wrap: anywhere; }
#layouts { background: #fff; border: 1px solid var(--line); border-radius: 6px;
           padding: 8px; min-height: 240px; overflow-x: auto; }
/* The script sizes the SVG per step (see the module doc); it may be wider than the panel.
   Auto margins centre it and, unlike centring by alignment, leave an overflow scrollable. */
#layouts .round-layout:not([hidden]) { display: flex; min-height: 222px; }
#layouts svg { display: block; flex: none; max-width: none; margin: auto; }
#layouts .last-move { filter: drop-shadow(0 0 3px var(--accent)) drop-shadow(0 0 2px var(--accent)); }
#tally { margin: 0 0 8px; min-height: 1.6em; }
.disc, .ring { display: inline-block; vertical-align: middle; border-radius: 50%; text-align: center; }
.disc { min-width: 1.7em; height: 1.7em; line-height: calc(1.7em - 2px); padding: 0 3px;
        margin: 0 2px; background: var(--mark); border: 1px solid var(--mark-edge); font-weight: bold; }
.ring { width: 1.1em; height: 1.1em; margin: 0 3px; background: #fff; border: 2px solid var(--ring); }
#tally-text { margin-left: 4px; }
#pan-hint { margin: 4px 0 0; color: var(--muted); font-size: 13px; }
.legend { margin: 6px 0 0; color: var(--muted); font-size: 13px; }
.legend .key { display: inline-block; margin-right: 14px; white-space: nowrap; }
.legend .swatch { display: inline-block; width: 20px; height: 12px; margin-right: 4px;
                  border: 1px solid var(--ink); border-radius: 2px; vertical-align: middle; }
.legend .disc, .legend .ring { font-size: 9px; margin-left: 0; }
#move { font-weight: bold; margin: 0 0 6px; }
#events { margin: 0 0 6px; padding-left: 18px; }
#events li.accepted { color: var(--good); }
#events li.discarded { color: var(--bad); }
#result { margin: 0; font-weight: bold; }
table { border-collapse: collapse; }
th, td { padding: 2px 10px; border-bottom: 1px solid var(--line); text-align: right; }
th:first-child { text-align: left; }
.hand { margin: 4px 0; padding: 4px 6px; border-radius: 4px; }
.hand.acting { background: #eef4ff; }
.hand .who { display: inline-block; min-width: 10em; }
.tile { display: inline-flex; margin: 1px 2px; border: 1px solid var(--ink); border-radius: 3px;
        background: #fff; font-family: "DejaVu Sans Mono", monospace; }
.tile span { padding: 0 4px; }
.tile span + span { border-left: 1px solid var(--ink); }
.back { display: inline-block; width: 14px; height: 20px; margin: 1px 2px; vertical-align: middle;
        border-radius: 3px; background: repeating-linear-gradient(45deg, #6b7b88, #6b7b88 3px,
        #8797a3 3px, #8797a3 6px); }
.count, .pips { color: var(--muted); margin-left: 6px; white-space: nowrap; }
.wp { position: relative; height: 16px; margin: 4px 0 6px; background: #eceff1;
      border: 1px solid var(--line); border-radius: 3px; }
#wp-fill { position: absolute; left: 0; top: 0; bottom: 0; background: var(--accent); opacity: .75; }
#wp-interval { position: absolute; top: -4px; bottom: -4px; border-left: 2px solid var(--ink);
               border-right: 2px solid var(--ink); }
#wp-best { position: absolute; top: -4px; bottom: -4px; width: 0; border-left: 2px dashed var(--good); }
#wp-text { margin: 0; }
#wp-text .costly { color: var(--bad); font-weight: bold; }
.wp-key { margin: 2px 0 0; color: var(--muted); font-size: 13px; }
"""

SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var steps = data.steps;
  var index = 0;
  function el(id) { return document.getElementById(id); }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }
  function add(parent, tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    parent.appendChild(node);
    return node;
  }
  var layouts = Array.prototype.slice.call(document.querySelectorAll("#layouts .round-layout"));
  var panel = el("layouts");
  var wide = window.matchMedia("(min-width: " + data.zoom.stackedBelow + "px)");

  function showLayout(step) {
    layouts.forEach(function (div) {
      var current = Number(div.getAttribute("data-round")) === step.round;
      div.hidden = !current;
      if (!current) { return; }
      div.querySelectorAll("[data-move]").forEach(function (tile) {
        var move = Number(tile.getAttribute("data-move"));
        tile.style.display = move < step.placed ? "" : "none";
        tile.classList.toggle("last-move", move === step.last);
      });
      // The marks are drawn for one placement count only. "inline", not "": the SVG hides
      // the groups with a display attribute, which an empty style would leave in force.
      div.querySelectorAll(".open-ends").forEach(function (marks) {
        marks.style.display = Number(marks.getAttribute("data-after")) === step.placed ?
          "inline" : "none";
      });
    });
    el("layout-title").textContent = "Round " + data.rounds[step.round].number + " layout: " +
      step.placed + (step.placed === 1 ? " tile" : " tiles");
    showTally(data.rounds[step.round].tally[step.placed]);
    fitLayout(step);
  }

  function showTally(tally) {
    var line = el("tally");
    clear(line);
    if (tally.ends.length + tally.rings === 0) {
      add(line, "span", "", "No tile on the table yet: no open ends.");
      return;
    }
    add(line, "span", "", "Open ends: ");
    tally.ends.forEach(function (value) { add(line, "span", "disc", String(value)); });
    for (var k = 0; k < tally.rings; k++) { add(line, "span", "ring").title = "adds 0"; }
    add(line, "span", "", " ");
    add(line, "span", "", tally.text).id = "tally-text";
  }

  // Zoom the step's layout to the box around what it draws (see the module doc).
  function fitLayout(step) {
    var svg = layouts[step.round].querySelector("svg");
    var view = data.rounds[step.round].views[step.placed];
    svg.setAttribute("viewBox", view.join(" "));
    var style = window.getComputedStyle(panel);
    var room = panel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    var height = Math.max(data.zoom.leastHeight, window.innerHeight - data.zoom.reservedHeight);
    var least = data.zoom.leastDigit / data.zoom.digit;
    // Fill the width; a tall layout may shrink to the window's height, but not below least.
    var scale = Math.min(data.zoom.most, room / view[2], Math.max(least, height / view[3]));
    if (wide.matches) { scale = Math.max(scale, least); }
    svg.style.width = (view[2] * scale).toFixed(2) + "px";
    svg.style.height = (view[3] * scale).toFixed(2) + "px";
    panel.scrollLeft = 0;
    var last = layouts[step.round].querySelector(".last-move");
    el("pan-hint").hidden = view[2] * scale <= room + 1;
    if (view[2] * scale > room + 1 && last) {
      var tile = last.getBoundingClientRect(), box = panel.getBoundingClientRect();
      panel.scrollLeft = (tile.left + tile.right) / 2 - (box.left + box.right) / 2;
    }
  }

  function showHands(step) {
    var hands = el("hands");
    clear(hands);
    step.hands.forEach(function (hand) {
      var row = add(hands, "div", "hand");
      row.setAttribute("data-seat", hand.seat);
      if (hand.seat === step.seat) { row.classList.add("acting"); }
      add(row, "span", "who", data.seats[hand.seat]);
      var tiles = add(row, "span", "tiles");
      if (hand.tiles) {
        hand.tiles.forEach(function (name) {
          var tile = add(tiles, "span", "tile");
          tile.setAttribute("data-tile", name);
          tile.setAttribute("title", name);
          name.split("-").forEach(function (half) { add(tile, "span", "", half); });
        });
        add(row, "span", "pips", hand.tiles.length + (hand.tiles.length === 1 ? " tile, " : " tiles, ") +
          hand.pips + (hand.pips === 1 ? " pip" : " pips"));
      } else {
        for (var k = 0; k < hand.count; k++) { add(tiles, "span", "back"); }
        add(row, "span", "count", hand.count + (hand.count === 1 ? " tile (hidden)" : " tiles (hidden)"));
      }
    });
    el("boneyard").textContent = String(step.boneyard);
  }

  function showScores(step) {
    step.scores.forEach(function (raw, entity) {
      var row = document.querySelector('#scores tr[data-entity="' + entity + '"]');
      row.querySelector(".raw").textContent = String(raw);
      row.querySelector(".shown").textContent = step.shown[entity];
    });
  }

  function showMove(step) {
    el("move").textContent = step.text;
    var events = el("events");
    clear(events);
    step.events.forEach(function (event) {
      var item = add(events, "li", event.accepted ? "accepted" : "discarded", event.text);
      item.setAttribute("data-kind", event.kind);
    });
    el("result").textContent = step.result;
    el("turn").textContent = step.turn === null ? "" : "Next to act: seat " + step.turn + ".";
  }

  // The latest analysed decision at or before each step (-1: none yet).
  var analysed = [];
  steps.forEach(function (step, k) {
    analysed.push(step.analysis ? k : (k > 0 ? analysed[k - 1] : -1));
  });

  function percent(value) { return Math.round(100 * Math.min(1, Math.max(0, value))) + "%"; }

  function showAnalysis() {
    if (!data.analysis) { return; }
    var k = analysed[index];
    var text = el("wp-text");
    clear(text);
    el("wp-bar").hidden = true;
    if (k < 0) {
      text.textContent = "No decision of seat " + data.analysis.seat + " analysed yet.";
      return;
    }
    var a = steps[k].analysis;
    var when = k === index ? "This move" : "Seat " + data.analysis.seat + "'s last analysed move";
    if (data.analysis.unit === "win probability") {
      el("wp-bar").hidden = false;
      el("wp-fill").style.width = (100 * a.value) + "%";
      el("wp-interval").style.left = (100 * Math.max(0, a.low)) + "%";
      el("wp-interval").style.width = (100 * (Math.min(1, a.high) - Math.max(0, a.low))) + "%";
      el("wp-best").style.left = (100 * a.best_value) + "%";
      add(text, "span", "", when + " (" + a.played + "): win probability " + percent(a.value) +
          " [" + percent(a.low) + ", " + percent(a.high) + "]; best (" + a.best + ") " +
          percent(a.best_value) + ". ");
      add(text, "span", a.loss_low > 0 ? "costly" : "", "Cost " +
          (100 * a.loss).toFixed(1) + " points [" + (100 * a.loss_low).toFixed(1) + ", " +
          (100 * a.loss_high).toFixed(1) + "]" + (a.loss_low > 0 ? ": a costly move." : "."));
    } else {
      add(text, "span", a.loss_low > 0 ? "costly" : "", when + " (" + a.played + "): " +
          a.value.toFixed(3) + " " + data.analysis.unit + "; best (" + a.best + ") " +
          a.best_value.toFixed(3) + "; cost " + a.loss.toFixed(3) + " [" +
          a.loss_low.toFixed(3) + ", " + a.loss_high.toFixed(3) + "].");
    }
  }

  function show(target) {
    index = Math.max(0, Math.min(steps.length - 1, target));
    var step = steps[index];
    var round = data.rounds[step.round];
    showLayout(step);
    showHands(step);
    showScores(step);
    showMove(step);
    showAnalysis();
    el("position").textContent = "Step " + (index + 1) + " of " + steps.length + " \\u00b7 round " +
      round.number + ", move " + (index - round.first) + " of " + (round.last - round.first);
    el("round").value = String(step.round);
    el("step").value = String(index);
    el("first").disabled = el("prev").disabled = index === 0;
    el("last").disabled = el("next").disabled = index === steps.length - 1;
    document.body.setAttribute("data-step", String(index));
  }

  function jumpRound(delta) {
    var round = steps[index].round + delta;
    if (round >= 0 && round < data.rounds.length) { show(data.rounds[round].first); }
  }

  el("first").addEventListener("click", function () { show(0); });
  el("prev").addEventListener("click", function () { show(index - 1); });
  el("next").addEventListener("click", function () { show(index + 1); });
  el("last").addEventListener("click", function () { show(steps.length - 1); });
  el("round").addEventListener("change", function () {
    show(data.rounds[Number(el("round").value)].first);
  });
  el("step").addEventListener("input", function () { show(Number(el("step").value)); });
  window.addEventListener("resize", function () { fitLayout(steps[index]); });
  document.addEventListener("keydown", function (event) {
    if (event.target === el("step") || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var moves = {
      ArrowLeft: function () { show(index - 1); },
      ArrowRight: function () { show(index + 1); },
      Home: function () { show(0); },
      End: function () { show(steps.length - 1); },
      PageUp: function () { jumpRound(-1); },
      PageDown: function () { jumpRound(1); }
    };
    if (moves[event.key]) { event.preventDefault(); moves[event.key](); }
  });
  show(0);
})();
"""


def script_json(value) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element (see :data:`JSON_ESCAPES`)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return "".join(JSON_ESCAPES.get(char, char) for char in text)


ANALYSIS_FIELDS = {"played": str, "best": str, "value": float, "low": float, "high": float,
                   "best_value": float, "loss": float, "loss_low": float, "loss_high": float}
"""What the page shows of an analysed decision, by its name on the page."""
ANALYSIS_COLUMNS = {"value": "played_value", "low": "played_low", "high": "played_high"}
"""The ``five-up analyse`` columns (``analysis.csv``) of the page's names, where they differ."""


def attach_analysis(data: dict, rows) -> None:
    """Put each analysed decision of ``rows`` on its step of ``data`` (:func:`replay_states`).

    ``rows`` are the rows of a ``five-up analyse`` table (``analysis.csv``: one seat's
    decisions, ``round`` and ``turn`` counted from 1), as dicts of text or numbers. Each step
    gets ``analysis`` (None, or :data:`ANALYSIS_FIELDS`) and ``data`` gets ``analysis``:
    ``{"seat", "unit", "decisions"}``.

    Raises
    ------
    ValueError
        One line: a row that is not a play of its seat in this match (the analysis of another
        match), or rows of more than one seat.
    """
    plays = {(step["round"], step["action"]): k for k, step in enumerate(data["steps"])
             if step["kind"] == "play"}
    for step in data["steps"]:
        step["analysis"] = None
    seats, units = set(), set()
    for row in rows:
        round_number, turn, seat = int(row["round"]), int(row["turn"]), int(row["seat"])
        k = plays.get((round_number - 1, turn - 1))
        if k is None or data["steps"][k]["seat"] != seat:
            raise ValueError(f"the analysis is not of this match: round {round_number}, move "
                             f"{turn} is not a play of seat {seat} here")
        seats.add(seat)
        units.add(str(row["unit"]))
        data["steps"][k]["analysis"] = {name: kind(row[ANALYSIS_COLUMNS.get(name, name)])
                                        for name, kind in ANALYSIS_FIELDS.items()}
    if len(seats) > 1 or len(units) > 1:
        raise ValueError("the analysis holds more than one seat: give one seat's analysis.csv")
    data["analysis"] = ({"seat": seats.pop(), "unit": units.pop(), "decisions": len(rows)}
                        if rows else None)


def replay_page(record: dict, seat: int | None = None, analysis=None) -> str:
    """The whole replay page of one match, as HTML text.

    Parameters
    ----------
    record : dict
        One exact61-record/1 match; validated first (:func:`sim.verify.verify_record`).
    seat : int or None
        Show the match as this seat saw it (others' hands as counts until a
        settlement reveals them); None shows every hand.
    analysis : sequence of dict, optional
        The rows of one seat's ``five-up analyse`` table (:func:`attach_analysis`): the page
        then shows that seat's win probability at every step (a bar with its interval and the
        best move's mark) and each analysed move's cost.

    Raises
    ------
    ValueError
        One line: the record's first problem, a seat not at the table, an analysis of
        another match.
    """
    data = replay_states(record, seat)
    if analysis is not None:
        attach_analysis(data, list(analysis))
    svgs = []
    for r, info in enumerate(data["rounds"]):
        svg, views, tallies = _round_layout(record, r)
        svgs.append(svg)
        info["views"], info["tally"] = views, tallies
    data["zoom"] = {"digit": PIP_SIZE, "leastDigit": LEAST_DIGIT_PX, "most": MAX_SCALE,
                    "stackedBelow": STACKED_BELOW, "leastHeight": LEAST_LAYOUT_HEIGHT,
                    "reservedHeight": RESERVED_HEIGHT}
    title = _title(record, data)
    seats = ", ".join(data["seats"])
    # The options do not name how each round ends: stepping through, that is still to come.
    options = "".join(f'<option value="{r}">Round {info["number"]}</option>'
                      for r, info in enumerate(data["rounds"]))
    layouts = "".join(f'<div class="round-layout" data-round="{r}" hidden>{svg}</div>'
                      for r, svg in enumerate(svgs))
    score_rows = "".join(f'<tr data-entity="{e}"><th>{html.escape(name)}</th>'
                         f'<td class="raw"></td><td class="shown"></td></tr>'
                         for e, name in enumerate(data["entities"]))
    last_step = len(data["steps"]) - 1
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">
<title>{html.escape(title)}</title>
<style>:root {{ --mark: {MARK_FILL}; --mark-edge: {MARK_STROKE}; --ring: {RING_STROKE}; }}
{STYLE}
/* A narrow window: one column, the layout first (its width is the whole window's). */
@media (max-width: {STACKED_BELOW - 0.02}px) {{
  main {{ grid-template-columns: minmax(0, 1fr); padding: 12px 8px; }}
  #layouts {{ padding: 4px; }}
}}
</style>
</head>
<body>
<header>
<h1>{html.escape(title)}</h1>
<p class="seats">{html.escape(seats)}; target exactly {data["target"]} raw \
({displayed(data["target"])} displayed)</p>
<nav>
<button id="first" type="button" title="First step (Home)">&#xAB; First</button>
<button id="prev" type="button" title="Previous step (Left arrow)">&#x25C0; Previous</button>
<button id="next" type="button" title="Next step (Right arrow)">Next &#x25B6;</button>
<button id="last" type="button" title="Last step (End)">Last &#xBB;</button>
<label>Round <select id="round" title="Jump to a round (Page Up / Page Down)">{options}</select></label>
<input id="step" type="range" min="0" max="{last_step}" value="0" aria-label="Step">
<span id="position"></span>
</nav>
</header>
<main>
<section>
<h2 id="layout-title">Layout</h2>
<p id="tally"></p>
<div id="layouts">{layouts}</div>
<p id="pan-hint" hidden>The layout is wider than this window at a readable size: scroll it sideways.</p>
<p class="legend">{_legend(record)}</p>
</section>
<section>
{_analysis_panel(data)}<div><h2>Move</h2><p id="move"></p><ul id="events"></ul><p id="turn"></p><p id="result"></p></div>
<div><h2>Scores</h2>
<table id="scores"><thead><tr><th>Entity</th><th>Raw</th><th>Displayed</th></tr></thead>
<tbody>{score_rows}</tbody></table></div>
<div><h2>Hands</h2><p>Boneyard: <span id="boneyard"></span> tiles to draw</p><div id="hands"></div></div>
</section>
</main>
<script type="application/json" id="{DATA_ELEMENT_ID}">{script_json(data)}</script>
<script>{SCRIPT}</script>
</body>
</html>
"""


def write_replay_page(record: dict, path, seat: int | None = None, analysis=None) -> None:
    """Write :func:`replay_page` to ``path`` atomically (:func:`sim.files.atomic_write`).

    The page is built before anything is written, so an invalid record leaves
    no file behind.
    """
    text = replay_page(record, seat, analysis)
    atomic_write(Path(path), lambda temporary: temporary.write_text(text, encoding="utf-8"))


def _analysis_panel(data: dict) -> str:
    """The win-probability panel of an analysed seat (empty without an analysis)."""
    if data.get("analysis") is None:
        return ""
    seat = data["analysis"]["seat"]
    return (f'<div id="analysis"><h2>Seat {seat}: win probability by the search</h2>'
            '<div id="wp-bar" class="wp" hidden title="the move played (bar, with its 95% '
            'interval) and the best move (dashed)"><div id="wp-fill"></div>'
            '<div id="wp-interval"></div><div id="wp-best"></div></div><p id="wp-text"></p>'
            '<p class="wp-key">Judged from what the seat knew (<code>five-up analyse</code>); the '
            'bar is the move played, its 95% interval between the black marks, the dashed mark '
            'the best move.</p></div>')


def _round_layout(record: dict, round_index: int) -> tuple[str, list, list]:
    """The round's layout for the page: its SVG, each step's view box and open ends.

    Returns
    -------
    (str, list, list)
        The SVG (tiles and open-end marks only, element ids made unique across the page's
        rounds); per placement count k: the view box ``[x, y, width, height]`` around what
        the first k placements draw, and the open ends after them as
        ``{"ends": disc values, "rings": count, "total": int, "text": the caption}``.
    """
    scene = round_scene(record, round_index, scores_strip=False, every_step=True)
    # The page has its own title, legend and tally: keep the placements and their marks.
    scene.shapes = [shape for shape in scene.shapes if shape.move is not None]
    scene.steps = [[shape for shape in marks if not (isinstance(shape, Text) and shape.role == "caption")]
                   for marks in scene.steps]
    svg = scene_svg(scene, f"round {round_index + 1} layout").replace(' id="', f' id="round-{round_index}-')
    views = [[round(x0, 2), round(y0, 2), round(x1 - x0, 2), round(y1 - y0, 2)]
             for x0, y0, x1, y1 in scene.views]
    tallies = [{"ends": [end.scores for end in geometry.open_ends if is_disc(end)],
                "rings": sum(not is_disc(end) for end in geometry.open_ends),
                "total": geometry.total, "text": total_caption(geometry)}
               for geometry in scene.step_geometry]
    return svg, views, tallies


def _legend(record: dict) -> str:
    """The layout's legend as HTML: each seat's tint, then the two kinds of open-end mark."""
    keys = []
    for kind, seat, text in legend_items(record):
        if kind == "seat":
            key = f'<span class="swatch" style="background: {seat_fill(seat)}"></span>'
        else:
            key = '<span class="disc">5</span>' if kind == "end" else '<span class="ring"></span>'
        keys.append(f'<span class="key">{key}{html.escape(text)}</span>')
    return "".join(keys)


def _title(record: dict, data: dict) -> str:
    players = f"{data['players']}-player match"
    if data["seat"] is None:
        return f"Exact 61 Five Up: {players} {record['match']} (seed {record['seed']})"
    return f"Exact 61 Five Up: {players}, as seat {data['seat']} saw it"
