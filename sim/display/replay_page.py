"""A self-contained HTML page that steps through one match move by move (``five-up show --html``).

The page needs no server and no network: its styles, its script, every
round's layout (the SVG of :func:`sim.display.layout_svg.round_svg`) and the
per-move states (:func:`sim.display.replay_states.replay_states`, a JSON blob
in a ``<script type="application/json">``) are all inline, and a
Content-Security-Policy forbids loading anything else. The script only
displays the states: every figure on the page was computed in Python from the
record.

The layout panel holds each round's whole layout once; the script shows the
tiles placed so far (``data-move`` below the step's placement count), rings
the last one, and shows the open-ends group (``class="open-ends"``) whose
``data-after`` equals that count, when the SVG has one for it. The SVG's own
title lines, which tell how the round ends, are hidden.

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

from sim.display.layout_svg import round_svg
from sim.display.replay_states import displayed, replay_states
from sim.files import atomic_write

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
        --good: #1a7f37; --bad: #b42318; --felt: #f3f6f4; }
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
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(320px, 2fr); gap: 16px;
       padding: 12px 16px; }
section > div { margin-bottom: 14px; }
#layouts { background: var(--felt); border: 1px solid var(--line); border-radius: 6px;
           padding: 8px; min-height: 240px; }
#layouts svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
/* The layout's own two title lines tell how the round ends: the page has its own title. */
#layouts svg > text:nth-of-type(-n+2), #layouts svg > .title { display: none; }
#layouts .last-move { filter: drop-shadow(0 0 3px var(--accent)) drop-shadow(0 0 2px var(--accent)); }
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
.count, .pips { color: var(--muted); margin-left: 6px; }
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
      // The open ends and their total are drawn for one placement count only.
      div.querySelectorAll(".open-ends").forEach(function (marks) {
        marks.style.display = Number(marks.getAttribute("data-after")) === step.placed ? "" : "none";
      });
    });
    el("layout-title").textContent = "Round " + data.rounds[step.round].number + " layout: " +
      step.placed + (step.placed === 1 ? " tile" : " tiles");
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

  function show(target) {
    index = Math.max(0, Math.min(steps.length - 1, target));
    var step = steps[index];
    var round = data.rounds[step.round];
    showLayout(step);
    showHands(step);
    showScores(step);
    showMove(step);
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


def replay_page(record: dict, seat: int | None = None) -> str:
    """The whole replay page of one match, as HTML text.

    Parameters
    ----------
    record : dict
        One exact61-record/1 match; validated first (:func:`sim.verify.verify_record`).
    seat : int or None
        Show the match as this seat saw it (others' hands as counts until a
        settlement reveals them); None shows every hand.

    Raises
    ------
    ValueError
        One line: the record's first problem, or a seat not at the table.
    """
    data = replay_states(record, seat)
    title = _title(record, data)
    seats = ", ".join(data["seats"])
    # The options do not name how each round ends: stepping through, that is still to come.
    options = "".join(f'<option value="{r}">Round {info["number"]}</option>'
                      for r, info in enumerate(data["rounds"]))
    layouts = "".join(f'<div class="round-layout" data-round="{r}" hidden>'
                      f'{_round_layout(record, r)}</div>' for r in range(len(data["rounds"])))
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
<style>{STYLE}</style>
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
<div id="layouts">{layouts}</div>
</section>
<section>
<div><h2>Move</h2><p id="move"></p><ul id="events"></ul><p id="turn"></p><p id="result"></p></div>
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


def write_replay_page(record: dict, path, seat: int | None = None) -> None:
    """Write :func:`replay_page` to ``path`` atomically (:func:`sim.files.atomic_write`).

    The page is built before anything is written, so an invalid record leaves
    no file behind.
    """
    text = replay_page(record, seat)
    atomic_write(Path(path), lambda temporary: temporary.write_text(text, encoding="utf-8"))


def _round_layout(record: dict, round_index: int) -> str:
    """The round's layout SVG, its element ids made unique across the page's rounds."""
    return round_svg(record, round_index, every_step=True).replace(' id="', f' id="round-{round_index}-')


def _title(record: dict, data: dict) -> str:
    players = f"{data['players']}-player match"
    if data["seat"] is None:
        return f"Exact 61 Five Up: {players} {record['match']} (seed {record['seed']})"
    return f"Exact 61 Five Up: {players}, as seat {data['seat']} saw it"
