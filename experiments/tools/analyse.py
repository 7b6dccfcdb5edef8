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
  the normal interval of a weighted mean of per-world differences).

Caveats, stated with the results: the values are a search's estimates (perfect-information
search on sampled worlds, which is optimistic for the searching side, and the win table's own
error), not the truth; the best move is chosen by the same noisy means, so small losses lean
positive. A move is called costly only where its loss interval excludes 0.

Frames and files (``write_analysis``): ``moves`` (one row per analysed decision: ``analysis.csv``),
the costliest moves (``analysis.md``), and the seat's win probability through the match
(``winprob.png``: the played move's value with its interval, round starts marked).

Each decision's worlds come from its own stream (``seed``, the decision's number), never from
the record's hidden tiles, so the same record and seed give the same analysis, and changing
another seat's hidden tiles (consistently with what was public) changes no value.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from pathlib import Path

from experiments.reporting.figures import new_figure, save_png, stamp
from experiments.reporting.reports import md_table
from sim.bridges.match_codes import decode_action
from sim.bridges.pettingzoo_agents import candidate_action
from sim.bridges.record_replay import replay_decisions
from sim.core import state as K
from sim.core.rng import decision_state
from sim.files import atomic_write
from sim.tiles import TILES
from sim.wording import counted
from strategies.move_values import move_values, weighted_interval

DEFAULT_WORLDS = 48
"""Worlds per decision: a loss's 95% half-width is then a few points of win probability."""
DEFAULT_NODE_LIMIT = 1500
"""Turns searched per world (leaves past it are valued by playouts)."""
WIN_PROBABILITY = "win probability"
RAW_PER_305 = "raw differential per 305"

COLUMNS = ["decision", "round", "turn", "seat", "candidates", "played", "best", "played_value",
           "played_low", "played_high", "best_value", "loss", "loss_low", "loss_high", "played_rank",
           "worlds", "unit"]
"""The ``moves`` frame: decision (0 first, the seat's analysed decisions in order), round and
turn (from 1: the round of the match, the action of the round), seat, candidates (legal
placements), played and best (placements as ``tile@node/side`` text), played_value and
best_value (the unit's values; the played one with its 95% interval), loss and its 95% interval, played_rank (1: the played move had
the best mean), worlds (their effective number under the weights), unit."""


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
        _, played_low, played_high = weighted_interval(table[:, played], share)
        rows.append({
            "decision": number, "round": decision.round + 1, "turn": decision.turn + 1,
            "seat": seat, "candidates": len(codes), "played": placement_text(decision.action),
            "best": placement_text(codes[best]), "played_value": float(means[played]),
            "played_low": played_low, "played_high": played_high,
            "best_value": float(means[best]), "loss": loss, "loss_low": low, "loss_high": high,
            "played_rank": int(1 + np.sum(means > means[played])),
            "worlds": float(1.0 / np.sum(share ** 2)), "unit": unit,
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
             "a loss is the best move's value minus the played one's, with its paired 95% "
             "interval over the worlds. They are a search's estimates (optimistic "
             "perfect-information search on sampled worlds, plus the win table's error), and "
             "the best move is picked by the same noisy means, so small losses lean positive.", ""]
    if len(moves) == 0:
        return lines + ["No decision to analyse: the seat never chose between two placements."]
    costly = costliest(moves)
    total = moves["loss"].sum()
    lines += [f"Moves of the best mean: {int((moves['played_rank'] == 1).sum())} of {len(moves)}. "
              f"Summed loss over every decision: {total:.3f} ({unit}).", ""]
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


def winprob_figure(moves: pd.DataFrame, settings: dict):
    """The seat's side's value through the match: the played move's mean with its 95% band
    (the worlds' weighted spread), the best move's, and the rounds' first decisions."""
    figure, axes = new_figure(figsize=(8, 3.6))
    unit = moves["unit"].iloc[0] if len(moves) else WIN_PROBABILITY
    x = moves["decision"].to_numpy()
    axes.fill_between(x, moves["played_low"], moves["played_high"], color="#d62728", alpha=0.15,
                      lw=0, label="move played, 95% interval")
    axes.plot(x, moves["best_value"], color="0.55", lw=1, label="best move")
    axes.plot(x, moves["played_value"], color="#d62728", lw=1.5, marker="o", ms=3, label="move played")
    costly = costliest(moves, count=len(moves))
    axes.scatter(costly["decision"], costly["played_value"], s=40, facecolors="none",
                 edgecolors="black", label="loss interval excludes 0", zorder=3)
    for start in moves.groupby("round")["decision"].min().to_numpy()[1:]:
        axes.axvline(start - 0.5, color="0.85", lw=0.8)
    axes.set_xlabel(f"decision of seat {settings['seat']} (two or more legal placements; "
                    "grey lines: a new round)")
    if unit == WIN_PROBABILITY:
        axes.set_ylim(0, 1)
        axes.set_ylabel("P(win the match), side of the seat")
    else:
        axes.set_ylabel("raw differential per 305")
    axes.set_title(f"Seat {settings['seat']} through match {settings['match']}: "
                   "value of the move played and of the best")
    axes.legend(loc="best", fontsize=8)
    stamp(figure, f"{settings['worlds']} worlds per decision, {settings['node_limit']} nodes per "
                  f"world, seed {settings['seed']}, {len(moves)} decisions")
    return figure


FIGURE_DPI = 120


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
    atomic_write(paths[2], lambda path: save_png(figure, path, FIGURE_DPI))
    return paths


__all__ = ["write_analysis", "COLUMNS", "DEFAULT_WORLDS", "DEFAULT_NODE_LIMIT", "analyse_match", "costliest",
           "placement_text", "paired_loss", "summary_lines", "winprob_figure"]
