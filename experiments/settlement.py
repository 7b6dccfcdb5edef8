"""Settlement value: what dominoes and blocked rounds are worth against placement scoring.

For every strategy (in self-play) and player count:

- ``domino_parts``: the domino event's parts, ``placement`` (the final
  tile's award), ``credit`` (round5 of the opponents' pips), ``debit``
  (round5 of the partner's pips, 4 players) and ``net`` (= the event's raw),
  over every domino event (accepted or not): mean with 95% interval,
  quantiles, share zero, share negative; also ``blocked`` (each blocked
  settlement event's credit);
- ``parts_hist``: their full distributions (value counts), for plots;
- ``blocked``: how often rounds end blocked (share of rounds, interval
  clustered by match) and what the blocked credits are;
- ``points``: accepted points per match by source and the share of all
  accepted points that comes from settlement (domino credit minus debit plus
  blocked credits), with a ratio-of-sums interval; how many matches are won
  by a settlement event;
- ``partner_debit`` (4 players): how often the partner's hand costs the
  dominoing partnership, how much, how often it makes the net negative, and
  how often it changes the target test (an event that would have overshot
  without the debit is accepted with it, an exact 61 made or missed).

Run ``five-up settlement --help``; from Python, :func:`run`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import study_plots
from experiments.reports import ExperimentResult, configurations, fmt_ci, md_table, summary_head
from experiments.runs import run_traced
from experiments.sources import pairs
from experiments.stats import mean_interval, proportion, ratio_ci
from sim.tiles import TARGET_RAW, entity_count

NAME = "settlement"
PARTS = ("placement", "credit", "debit", "net")


def run(players=(2, 3, 4), strategies=("greedy", "random"), matches: int = 10_000, seed: int = 0,
        threads: int | None = None, progress: bool = False, out=None,
        traces: dict | None = None, backend="local", shard_size: int | None = None,
        keep_shards: bool = False) -> ExperimentResult:
    """Run the settlement study (arguments as :func:`experiments.overshoot.run`).

    Returns
    -------
    ExperimentResult
        Frames ``domino_parts``, ``parts_hist``, ``blocked``, ``points`` and,
        when 4 players are studied, ``partner_debit``.
    """
    return run_traced(NAME, analyse, players, strategies, matches, seed, traces=traces,
                             threads=threads, progress=progress, out=out, backend=backend,
                             shard_size=shard_size, keep_shards=keep_shards)


def analyse(traces: dict, settings: dict) -> ExperimentResult:
    """Aggregate :func:`sim.studies.trace_events` outputs into the study's frames.

    ``traces``: a dict ``(strategy, players) -> StudyTrace`` or an iterable of such pairs.
    """
    parts, hist, blocked, points, debit = [], [], [], [], []
    for (strategy, players), trace in pairs(traces):
        ev = trace.events
        dominoes = ev[ev["kind"] == "domino"]
        blocked_events = ev[ev["kind"] == "blocked"]
        values = {
            "placement": dominoes["placement"].to_numpy(),
            "credit": dominoes["credit"].to_numpy(),
            "debit": dominoes["debit"].to_numpy(),
            "net": dominoes["raw"].to_numpy(),
            "blocked": blocked_events["raw"].to_numpy(),
        }
        for part, x in values.items():
            if part == "debit" and players != 4:
                continue
            parts.append(_describe(x, strategy, players, part))
            counts = pd.Series(x).value_counts().sort_index()
            hist.append(pd.DataFrame({"strategy": strategy, "players": players, "part": part,
                                      "value": counts.index.astype("int64"),
                                      "count": counts.to_numpy().astype("int64")}))
        blocked.append(_blocked(trace, strategy, players))
        points.append(_points(trace, strategy, players))
        if players == 4:
            debit.append(_partner_debit(trace, strategy))
    frames = {
        "domino_parts": pd.concat(parts, ignore_index=True),
        "parts_hist": pd.concat(hist, ignore_index=True),
        "blocked": pd.concat(blocked, ignore_index=True),
        "points": pd.concat(points, ignore_index=True),
    }
    if debit:
        frames["partner_debit"] = pd.concat(debit, ignore_index=True)
    plots = {
        "domino_parts": lambda p: study_plots.plot_domino_parts(frames["parts_hist"], p),
        "point_sources": lambda p: study_plots.plot_point_sources(frames["points"], p),
    }
    key = _key_numbers(frames)
    return ExperimentResult(NAME, settings, frames, _markdown(settings, frames, key), plots, key)


def _describe(x: np.ndarray, strategy: str, players: int, part: str) -> pd.DataFrame:
    mean, low, high = mean_interval(x)
    q = np.quantile(x, [0.1, 0.25, 0.5, 0.75, 0.9]) if x.size else [np.nan] * 5
    return pd.DataFrame([{
        "strategy": strategy, "players": players, "part": part, "events": int(x.size),
        "mean": mean, "low": low, "high": high,
        "sd": float(x.std(ddof=1)) if x.size > 1 else np.nan,
        "p10": q[0], "p25": q[1], "median": q[2], "p75": q[3], "p90": q[4],
        "min": int(x.min()) if x.size else 0, "max": int(x.max()) if x.size else 0,
        "share_zero": float((x == 0).mean()) if x.size else np.nan,
        "share_negative": float((x < 0).mean()) if x.size else np.nan,
    }])


def _blocked(trace, strategy: str, players: int) -> pd.DataFrame:
    m = trace.matches
    ev = trace.events
    blocked_events = ev[ev["kind"] == "blocked"]
    share, low, high = ratio_ci(m["blocked_rounds"], m["rounds"])
    credit_mean, credit_low, credit_high = mean_interval(blocked_events["raw"])
    discarded = int((~blocked_events["accepted"]).sum())
    return pd.DataFrame([{
        "strategy": strategy, "players": players, "matches": len(m),
        "rounds": int(m["rounds"].sum()), "blocked_rounds": int(m["blocked_rounds"].sum()),
        "blocked_share": share, "blocked_share_low": low, "blocked_share_high": high,
        "blocked_rounds_per_match": float(m["blocked_rounds"].mean()),
        "blocked_events": len(blocked_events),
        "events_per_blocked_round": (len(blocked_events) / max(1, int(m["blocked_rounds"].sum()))),
        "credit_mean": credit_mean, "credit_low": credit_low, "credit_high": credit_high,
        "credit_median": float(blocked_events["raw"].median()) if len(blocked_events) else np.nan,
        "credit_max": int(blocked_events["raw"].max()) if len(blocked_events) else 0,
        "blocked_events_discarded": discarded,
        "accepted_credit_per_blocked_round": (float(m["blocked_credit"].sum())
                                              / max(1, int(m["blocked_rounds"].sum()))),
    }])


def _points(trace, strategy: str, players: int) -> pd.DataFrame:
    m = trace.matches
    n_entities = entity_count(players)
    total = sum(m[f"score_{e}"].to_numpy(dtype=np.int64) for e in range(n_entities))
    settled = (m["domino_credit"] - m["domino_debit"] + m["blocked_credit"]).to_numpy()
    share, low, high = ratio_ci(settled, total)
    credit_share = ratio_ci(m["domino_credit"], total)[0]
    blocked_share = ratio_ci(m["blocked_credit"], total)[0]
    debit_share = ratio_ci(m["domino_debit"], total)[0]
    # the match-winning event: the last accepted event of each finished match
    ev = trace.events
    last = ev[ev["accepted"]].groupby("match", sort=False).tail(1)
    finished = set(m.loc[m["winner"] >= 0, "match"])
    last = last[last["match"].isin(finished)]
    by_settlement = int((last["kind"] != "placement").sum())
    p = proportion(by_settlement, len(last))
    return pd.DataFrame([{
        "strategy": strategy, "players": players, "matches": len(m),
        "accepted_raw_per_match": float(total.mean()),
        "placement_raw_per_match": float(m["placement_raw"].mean()),
        "domino_credit_per_match": float(m["domino_credit"].mean()),
        "domino_debit_per_match": float(m["domino_debit"].mean()),
        "blocked_credit_per_match": float(m["blocked_credit"].mean()),
        "settlement_share": share, "settlement_share_low": low, "settlement_share_high": high,
        "domino_credit_share": credit_share, "blocked_credit_share": blocked_share,
        "domino_debit_share": debit_share,
        "won_by_settlement": float(p["rate"]), "won_by_settlement_low": float(p["low"]),
        "won_by_settlement_high": float(p["high"]),
    }])


def _partner_debit(trace, strategy: str) -> pd.DataFrame:
    ev = trace.events
    d = ev[ev["kind"] == "domino"]
    before = d["score_before"].to_numpy(dtype=np.int64)
    placement = d["placement"].to_numpy(dtype=np.int64)
    credit = d["credit"].to_numpy(dtype=np.int64)
    debit = d["debit"].to_numpy(dtype=np.int64)
    net = d["raw"].to_numpy(dtype=np.int64)
    gross = placement + credit
    n = len(d)
    with_debit = debit > 0
    rescued = (before + gross > TARGET_RAW) & (before + net <= TARGET_RAW)
    exact_made = (before + net == TARGET_RAW) & (before + gross != TARGET_RAW)
    exact_lost = (before + gross == TARGET_RAW) & (before + net != TARGET_RAW)
    row = {"strategy": strategy, "players": 4, "dominoes": n}
    for label, mask in (("with_debit", with_debit), ("net_negative", net < 0),
                        ("net_nonpositive", net <= 0), ("debit_exceeds_credit", debit > credit),
                        ("rescued_from_overshoot", rescued), ("exact_61_made", exact_made),
                        ("exact_61_missed", exact_lost)):
        p = proportion(int(mask.sum()), n)
        row[f"{label}"] = int(mask.sum())
        row[f"{label}_rate"] = float(p["rate"])
        row[f"{label}_low"] = float(p["low"])
        row[f"{label}_high"] = float(p["high"])
    for label, x in (("debit", debit), ("credit", credit), ("net", net), ("gross", gross)):
        mean, low, high = mean_interval(x)
        row[f"{label}_mean"], row[f"{label}_low"], row[f"{label}_high"] = mean, low, high
    row["debit_per_credit"] = float(debit.sum() / max(1, credit.sum()))
    m = trace.matches
    row["debit_per_match"] = float(m["domino_debit"].mean())
    return pd.DataFrame([row])


def _key_numbers(frames: dict) -> dict:
    key = {}
    for tag, row, sel in configurations(frames["points"], frames["domino_parts"]):
        net = sel[sel.part == "net"].iloc[0]
        credit = sel[sel.part == "credit"].iloc[0]
        key[f"{tag}: settlement share of accepted points"] = fmt_ci(
            row.settlement_share, row.settlement_share_low, row.settlement_share_high, pct=True)
        key[f"{tag}: domino credit / net (raw, mean)"] = (
            f"{credit['mean']:.1f} / {fmt_ci(net['mean'], net['low'], net['high'], 1)}")
        blocked = frames["blocked"]
        b = blocked[(blocked.strategy == row.strategy) & (blocked.players == row.players)].iloc[0]
        key[f"{tag}: blocked rounds"] = fmt_ci(b.blocked_share, b.blocked_share_low,
                                               b.blocked_share_high, pct=True, digits=4)
        key[f"{tag}: matches won by a settlement event"] = fmt_ci(
            row.won_by_settlement, row.won_by_settlement_low, row.won_by_settlement_high,
            pct=True)
    if "partner_debit" in frames:
        for row in frames["partner_debit"].itertuples(index=False):
            tag = f"{row.strategy}, 4p"
            key[f"{tag}: dominoes with a partner debit"] = fmt_ci(
                row.with_debit_rate, row.with_debit_low, row.with_debit_high, pct=True)
            key[f"{tag}: mean debit / credit (raw)"] = (f"{row.debit_mean:.1f} / "
                                                         f"{row.credit_mean:.1f}")
            key[f"{tag}: dominoes with a negative net"] = fmt_ci(
                row.net_negative_rate, row.net_negative_low, row.net_negative_high, pct=True)
            key[f"{tag}: dominoes rescued from overshoot by the debit"] = fmt_ci(
                row.rescued_from_overshoot_rate, row.rescued_from_overshoot_low,
                row.rescued_from_overshoot_high, pct=True)
    return key


def _markdown(settings: dict, frames: dict, key: dict) -> str:
    s = settings
    lines = summary_head("Settlement value", s, "Raw points (displayed = raw / 5); 95% intervals.") + [
        "",
        "## Key numbers",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in key.items()]
    parts = frames["domino_parts"]
    lines += ["", "## The domino event's parts (every domino event) and blocked credits", "",
              md_table(parts[["strategy", "players", "part", "events", "mean", "low", "high",
                              "median", "p90", "max", "share_zero", "share_negative"]], 2)]
    points = frames["points"]
    lines += ["", "## Where accepted points come from (per match, all entities, raw)", "",
              md_table(points[["strategy", "players", "accepted_raw_per_match",
                               "placement_raw_per_match", "domino_credit_per_match",
                               "domino_debit_per_match", "blocked_credit_per_match",
                               "settlement_share", "won_by_settlement"]], 3)]
    blocked = frames["blocked"]
    lines += ["", "## Blocked rounds", "",
              md_table(blocked[["strategy", "players", "rounds", "blocked_rounds",
                                "blocked_share", "blocked_share_low", "blocked_share_high",
                                "events_per_blocked_round", "credit_mean", "credit_median",
                                "credit_max"]], 4)]
    if "partner_debit" in frames:
        d = frames["partner_debit"]
        lines += ["", "## The partner debit (4 players)", "",
                  "`rescued` = the event's placement + credit would have passed 61 but the "
                  "net did not, so the debit let it be accepted; `exact made` / `exact missed` = "
                  "the debit made / spoiled an exact 61.", "",
                  md_table(d[["strategy", "dominoes", "with_debit_rate", "debit_mean",
                              "credit_mean", "net_mean", "net_negative_rate",
                              "net_nonpositive_rate", "rescued_from_overshoot_rate",
                              "exact_61_made_rate", "exact_61_missed_rate"]], 4)]
    lines += ["", "Plots: `domino_parts.png`, `point_sources.png`.", ""]
    return "\n".join(lines)
