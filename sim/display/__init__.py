"""Pictures of match records: a round's layout as the tiles lie, the score through the match,
and a page that replays a match move by move.

Everything here is drawn from exact61-record/1 records alone (any valid record, whichever
tool wrote it; no engine is imported): :mod:`sim.display.layout_geometry` places every tile
of a round on a grid, :mod:`sim.display.layout_scene` turns that into shapes, and two thin
backends write them: :mod:`sim.display.layout_svg` (SVG text) and
:mod:`sim.display.layout_png` (matplotlib PNG). :mod:`sim.display.replay_states` and
:mod:`sim.display.replay_page` build the HTML replay page, which embeds the SVG.
"""
