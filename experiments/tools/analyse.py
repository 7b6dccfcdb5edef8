"""Move-by-move analysis of a match record for one seat: what each of its choices was worth,
judged only from what that seat knew when it chose.

For every decision of the seat with two or more legal placements, the record is replayed to
that decision (:func:`sim.bridges.record_replay.replay_decisions`) and the seat's view there
(its own hand, the layout, the scores, the hand sizes, what every draw and pass revealed: the
view a strategy is handed, nothing hidden) goes to ``pimc``'s search
(:func:`strategies.move_values.move_values`): ``worlds`` hidden worlds consistent with that view are
sampled (weighted by the opponent model, as ``pimc`` weights them), and each legal placement
is solved in each world (alpha-beta to the round's end within ``node_limit`` turns, round
ends valued by the match-win table). So per placement:

- ``value``: its weighted mean over the worlds, the seat's side's **probability of winning
  the match** after it (2 players and 4-player partnerships; at 3 players, where no win table
  ships, the round's raw differential per 305 raw);
- the move **played** and the **best** one (the largest mean), and the **loss**: best minus
  played, with its 95% interval, *paired* over the worlds (both values on the same worlds;
  the normal interval of a weighted mean of per-world differences), widened by the win
  table's own error.

The table's error: every solved value is a round end looked up in the table, unchanged by the
search (a maximum or minimum of looked-up values), and each cell of the shipped table holds a
value no other cell holds (:func:`strategies.winprob_codes.cells_of_values`), so the cell each
value came from is known. Under each shipped replicate table
(:func:`strategies.winprob_table.replicate_tables`) the same worlds and lines are valued again
(the search's chosen lines held fixed: to first order a maximum moves with the value of the line
that attains it), the best move picked again, and the loss and the played value computed again.
Their spread over the replicates is the table's error (``loss_table_se``, ``played_table_se``),
independent of the worlds' sampling: the two variances add, and every interval is the normal
interval of their sum. At 3 players (no table) the values carry no table error.

Caveats, stated with the results: the values are a search's estimates (perfect-information
search on sampled worlds, which is optimistic for the searching side), not the truth; the best
move is chosen by the same noisy means, so small losses lean positive. A move is called costly
only where its loss interval (worlds and table) excludes 0.

Frames and files (``write_analysis``): ``moves`` (one row per analysed decision: ``analysis.csv``),
the costliest moves (``analysis.md``), and the seat's win probability through the match
(``winprob.png``: the played and the best move's values with their intervals, round starts
marked, and each decision's loss with its interval).

Each decision's worlds come from its own stream (``seed``, the decision's number), never from
the record's hidden tiles, so the same record and seed give the same analysis, and changing
another seat's hidden tiles (consistently with what was public) changes no value.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from pathlib import Path

from experiments.reporting import figures
from experiments.reporting.reports import md_table
from experiments.stats import widened_interval
from sim.bridges.match_codes import decode_action
from sim.bridges.pettingzoo_agents import candidate_action
from sim.bridges.record_replay import replay_decisions
from core import state as K
from core.rng import decision_state
from sim.engine.compile_cache import refresh_dispatcher_caches
from sim.files import atomic_write
from core.tiles import TILES
from sim.wording import counted
from strategies import pimc, winprob_table
from strategies.move_values import Z95, move_values, table_error, weighted_interval

DEFAULT_WORLDS = 48
"""Worlds per decision: a loss's 95% half-width is then a few points of win probability."""
DEFAULT_NODE_LIMIT = 1500
"""Turns searched per world (leaves past it are valued by playouts)."""
WIN_PROBABILITY = "win probability"
RAW_PER_305 = "raw differential per 305"

COLUMNS = ["decision", "round", "turn", "seat", "candidates", "played", "best", "played_value",
           "played_low", "played_high", "best_value", "best_low", "best_high", "loss", "loss_low",
           "loss_high", "loss_worlds_low", "loss_worlds_high", "loss_table_se",
           "played_table_se", "played_rank", "worlds", "looked_up", "unit"]
"""The ``moves`` frame: decision (0 first, the seat's analysed decisions in order), round and
turn (from 1: the round of the match, the action of the round), seat, candidates (legal
placements), played and best (placements as ``tile@node/side`` text), played_value and
best_value (the unit's values, each with its 95% interval: worlds and table), loss and its 95%
interval (worlds and table; ``loss_worlds_low`` .. ``_high``: the worlds' alone),
``loss_table_se`` and ``played_table_se`` (the table's standard error of each), played_rank
(1: the played move had the best mean), worlds (their effective number under the weights),
looked_up (the share of the decision's world values that are table cells, the rest exact:
a finished match), unit."""


def placement_text(code: int) -> str:
    """A placement as a player reads it: ``5-0 opens``, ``3-4 on node 2 (line), 3 joined``."""
    tile, parent, side, joined = decode_action(code)
    low, high = TILES[tile]
    if parent == K.NO_PARENT:
        return f"{low}-{high} opens"
    other = low + high - joined
    where = "line" if side == K.SIDE_LINE else "arm"
    return f"{joined}-{other} on node {parent} ({where})"


def paired_loss(table: np.ndarray, share: np.ndarray, best: int, played: int):
    """Best minus played, paired world by world: :func:`weighted_interval` of the differences."""
    return weighted_interval(table[:, best] - table[:, played], share)


def analyse_match(record: dict, seat: int, *, worlds: int = DEFAULT_WORLDS,
                  node_limit: int = DEFAULT_NODE_LIMIT, seed: int = 0, progress=None) -> pd.DataFrame:
    """The ``moves`` frame of one seat of one record (module docstring).

    Parameters
    ----------
    record : dict
        A valid exact61-record/1 record (:func:`sim.verify.check_record`).
    seat : int
        The seat analysed (0 .. players - 1).
    worlds, node_limit : int
        Sampled worlds per decision, turns searched per world.
    seed : int
        The worlds' streams: decision ``d`` draws from ``decision_state(seed, d, seat)``.
    progress : callable, optional
        Called with 1 at each play of ``seat``, analysed or forced (a progress bar's ``update``).

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`, one row per decision of ``seat`` with two or more placements.
    """
    players = int(record["players"])
    unit = RAW_PER_305 if players == 3 else WIN_PROBABILITY
    # the worlds' search is compiled apart from any engine: a regenerated table must not meet a
    # stale cached kernel with the old one frozen in
    refresh_dispatcher_caches([pimc.world_table])
    rows = []
    for decision in replay_decisions(record):
        if decision.seat != seat:
            continue
        if len(decision.state.legal_actions()) < 2:
            if progress is not None:
                progress(1)
            continue
        number = len(rows)
        view = decision.state.view(np.zeros((players, 1)))
        means, table, share = move_values(view, worlds, node_limit, decision_state(seed, number, seat))
        codes = [candidate_action(view, row) for row in range(int(view.n_candidates))]
        played = codes.index(decision.action)
        best = int(np.argmax(means))
        loss, low, high = paired_loss(table, share, best, played)
        loss_se, played_se, best_se, looked_up = table_error(players, table, share, played)
        played_mean, played_low, played_high = weighted_interval(table[:, played], share)
        best_mean, best_low, best_high = weighted_interval(table[:, best], share)
        rows.append({
            "decision": number, "round": decision.round + 1, "turn": decision.turn + 1,
            "seat": seat, "candidates": len(codes), "played": placement_text(decision.action),
            "best": placement_text(codes[best]), "played_value": float(means[played]),
            **dict(zip(("played_low", "played_high"),
                       widened_interval(played_mean, played_low, played_high, played_se))),
            "best_value": float(means[best]),
            **dict(zip(("best_low", "best_high"),
                       widened_interval(best_mean, best_low, best_high, best_se))),
            "loss": loss, **dict(zip(("loss_low", "loss_high"),
                                     widened_interval(loss, low, high, loss_se))),
            "loss_worlds_low": low, "loss_worlds_high": high, "loss_table_se": loss_se,
            "played_table_se": played_se,
            "played_rank": int(1 + np.sum(means > means[played])),
            "worlds": float(1.0 / np.sum(share ** 2)), "looked_up": looked_up, "unit": unit,
        })
        if progress is not None:
            progress(1)
    return pd.DataFrame(rows, columns=COLUMNS)


def costliest(moves: pd.DataFrame, count: int = 10) -> pd.DataFrame:
    """The ``count`` largest losses whose 95% interval excludes 0, largest first."""
    costly = moves[moves["loss_low"] > 0]
    return costly.sort_values(["loss", "decision"], ascending=[False, True]).head(count)


def summary_lines(moves: pd.DataFrame, settings: dict) -> list[str]:
    """``analysis.md``: what was analysed, how, and the costliest moves."""
    seat = settings["seat"]
    unit = moves["unit"].iloc[0] if len(moves) else WIN_PROBABILITY
    lines = [f"# Analysis of seat {seat}, match {settings['match']} of {settings['file']}", "",
             f"{counted(len(moves), 'decision')} of seat {seat} with two or more legal placements, "
             f"each judged from what seat {seat} knew then: "
             f"{counted(settings['worlds'], 'sampled world')} per decision, "
             f"each solved by alpha-beta search ({settings['node_limit']} turns per world), seed "
             f"{settings['seed']}. Values are the {unit} of seat {seat}'s side after the move; "
             "a loss is the best move's value minus the played one's, with its 95% interval: "
             "paired over the worlds, widened by the win table's own error (the same worlds "
             "valued under each of the table's replicate tables; the variances add). They are a "
             "search's estimates (optimistic perfect-information search on sampled worlds), and "
             "the best move is picked by the same noisy means, so small losses lean positive.", ""]
    if len(moves) == 0:
        return lines + ["No decision to analyse: the seat never chose between two placements."]
    costly = costliest(moves)
    total = moves["loss"].sum()
    variance = ((moves["loss_high"] - moves["loss_low"]) / (2 * Z95)) ** 2
    table_share = float((moves["loss_table_se"] ** 2 / np.maximum(variance, 1e-300)).median())
    lines += [f"Moves of the best mean: {int((moves['played_rank'] == 1).sum())} of {len(moves)}. "
              f"Summed loss over every decision: {total:.3f} ({unit}). The table's share of a "
              f"loss's variance: median {table_share:.2f} over the decisions.", ""]
    if costly.empty:
        lines.append("No move's loss interval excludes 0: no move is shown to have cost anything.")
        return lines
    lines += [f"## Costliest moves (loss interval excluding 0; {len(costly)} shown)", ""]
    table = pd.DataFrame({
        "round": costly["round"], "turn": costly["turn"], "played": costly["played"],
        "best": costly["best"], "played value": costly["played_value"].round(3),
        "best value": costly["best_value"].round(3),
        "loss [95% CI]": [f"{m:.3f} [{lo:.3f}, {hi:.3f}]" for m, lo, hi in
                          zip(costly["loss"], costly["loss_low"], costly["loss_high"])],
    })
    return lines + [md_table(table), ""]


@figures.house_style()
def winprob_figure(moves: pd.DataFrame, settings: dict):
    """The seat's side's value through the match (the played and the best move's means with
    their 95% bands: worlds and table) above each decision's loss with its interval (the
    decisions whose interval excludes 0 in their own colour), round starts marked."""
    figure, (top, bottom) = figures.new_figure(2, 1, width="page", height=4.2, sharex=True,
                                               height_ratios=(3, 2))
    unit = moves["unit"].iloc[0] if len(moves) else WIN_PROBABILITY
    played_colour, best_colour, costly_colour = figures.category_colours(3)
    x = moves["decision"].to_numpy()
    figures.band(top, x, moves["best_value"], moves["best_low"], moves["best_high"],
                 color=best_colour, label="best move", linewidth=1)
    figures.band(top, x, moves["played_value"], moves["played_low"], moves["played_high"],
                 color=played_colour, label="move played", linewidth=1.2)
    costly = (moves["loss_low"] > 0).to_numpy()
    for mask, colour, label in ((~costly, played_colour, "loss"),
                                (costly, costly_colour, "loss interval excludes 0")):
        if mask.any():
            figures.estimates(bottom, x[mask], moves["loss"][mask], moves["loss_low"][mask],
                              moves["loss_high"][mask], color=colour, label=label, markersize=2.5)
    figures.reference_line(bottom, 0.0)
    for start in moves.groupby("round")["decision"].min().to_numpy()[1:]:
        for ax in (top, bottom):
            figures.reference_line(ax, start - 0.5, axis="x", color="0.8", linestyle="-")
    bottom.set_xlabel(f"decision of seat {settings['seat']} (two or more legal placements; "
                      "grey lines: a new round)")
    if unit == WIN_PROBABILITY:
        top.set_ylim(0, 1)
        top.set_ylabel("P(seat's side wins)")
    else:
        top.set_ylabel("raw differential / 305")
    bottom.set_ylabel("loss: best - played")
    top.set_title(f"Seat {settings['seat']} through match {settings['match']}: the move played "
                  "and the best")
    top.legend(loc="best")
    if len(moves):
        bottom.legend(loc="upper right")
    figures.stamp(figure, f"{settings['worlds']} worlds per decision, {settings['node_limit']} "
                          f"nodes per world, seed {settings['seed']}, {len(moves)} decisions; "
                          "95% intervals over the worlds and the win table's replicates")
    return figure


def write_analysis(moves: pd.DataFrame, settings: dict, directory) -> list[Path]:
    """Write ``analysis.csv``, ``analysis.md`` and ``winprob.png`` into ``directory``, each
    atomically; returns their paths. Claim the directory for these ``settings`` first
    (:func:`sim.files.claim_directory`: the same analysis may write there again, another may
    not), before the analysis runs, as ``five-up analyse`` does."""
    directory = Path(directory)
    paths = [directory / "analysis.csv", directory / "analysis.md", directory / "winprob.png"]
    atomic_write(paths[0], lambda path: moves.to_csv(path, index=False, float_format="%.6f"))
    text = "\n".join(summary_lines(moves, settings)) + "\n"
    atomic_write(paths[1], lambda path: path.write_text(text))
    figure = winprob_figure(moves, settings)
    atomic_write(paths[2], lambda path: figures.save_png(figure, path))
    return paths


__all__ = ["write_analysis", "COLUMNS", "DEFAULT_WORLDS", "DEFAULT_NODE_LIMIT", "analyse_match", "costliest",
           "placement_text", "paired_loss", "summary_lines", "table_error",
           "winprob_figure"]
