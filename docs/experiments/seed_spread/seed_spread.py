"""Issue 44, item 4: do the committed duplicate-deal intervals hold across seeds?

Re-runs one pairing of a committed design on many seeds at a size that runs in minutes and
compares the spread of the estimates with the intervals each run reports:

- ``exact``: exact vs greedy, 2 players, the tournament's design (``five-up tournament
  --duplicate``, seeds derived per group), 500 deals per seating: the head-to-head share of
  exact and its deal-clustered interval;
- ``pimc``: pimc vs rollout, 2 players, the strength ladder's design (both seatings of each
  deal on the run's seed), 150 deals: pimc's win share and its paired t interval.

``python docs/experiments/seed_spread/seed_spread.py run exact 0 400`` (and ``pimc 0 60``)
writes ``exact.csv`` / ``pimc.csv`` beside this file; ``... figure`` draws ``seed_spread.png``
and prints the summary numbers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
COMMITTED = {
    "exact": [("tournament, seed 1\n500 deals", 0.503, 0.490, 0.516),
              ("duplicate_deals\nseed 7, 10,000", 0.524, 0.521, 0.527)],
    "pimc": [("strength, seed 2026\n1,500 deals", 0.622, 0.607, 0.637),
             ("fresh seed (issue)\n1,500 deals", 0.591, 0.576, 0.606)],
}
"""The numbers the issue set against each other: label, estimate, 95% interval."""


def run_exact(seeds) -> pd.DataFrame:
    from experiments.tools.tournament.run import tournament

    rows = []
    for seed in seeds:
        result = tournament(2, ["exact", "greedy"], 500, seed, duplicate=True)
        share = result.pairwise_ci.set_index(["strategy", "opponent"]).loc[("exact", "greedy")]
        rows.append({"seed": seed, "deals": 500, "estimate": share.share, "low": share.low,
                     "high": share.high})
    return pd.DataFrame(rows)


def run_pimc(seeds) -> pd.DataFrame:
    from experiments.stats import mean_interval
    from experiments.tools.strength import deal_outcomes, strength_job

    rows = []
    for seed in seeds:
        parts = [strength_job(0, 150, players=2, seat_strategies=sides, seed=seed,
                              max_rounds=1000, pairing=0, seating=k, upper="pimc",
                              lower="rollout")
                 for k, sides in enumerate((("pimc", "rollout"), ("rollout", "pimc")))]
        per = deal_outcomes(pd.concat(parts, ignore_index=True), 2, "pimc", "rollout")
        mean, low, high = mean_interval(per.to_numpy())
        rows.append({"seed": seed, "deals": 150, "estimate": mean, "low": low, "high": high})
    return pd.DataFrame(rows)


def spread(frame: pd.DataFrame) -> dict:
    """The seeds' pooled estimate, their spread against the reported standard errors, and how
    often a run's interval covers the pooled estimate."""
    from experiments.stats import chi2_sf

    se = (frame["high"] - frame["low"]) / (2 * 1.96)
    pooled = float(frame["estimate"].mean())
    ratio = float(frame["estimate"].var(ddof=1) / (se ** 2).mean())
    q = float((((frame["estimate"] - pooled) / se) ** 2).sum())
    return {"seeds": len(frame), "pooled": pooled,
            "pooled_se": float(frame["estimate"].std(ddof=1) / np.sqrt(len(frame))),
            "sd": float(frame["estimate"].std(ddof=1)), "reported_se": float(se.mean()),
            "variance_ratio": ratio, "cochran_q": q, "q_p": chi2_sf(q, len(frame) - 1),
            "coverage": float(((frame["low"] <= pooled) & (pooled <= frame["high"])).mean())}


def figure(path: Path) -> None:
    """Top: each seed's estimate minus the seeds' pooled one, over the standard error its own
    run reported (calibrated intervals: a standard normal). Bottom: the pooled estimate and the
    committed numbers the issue compared, each with its 95% interval."""
    from experiments.reporting import figures

    with figures.house_style():
        fig, axes = figures.new_figure(2, 2, width="page", height=4.6,
                                       gridspec_kw={"height_ratios": [3, 2]})
        colours = figures.category_colours(3)
        for k, (name, title) in enumerate((("exact", "exact vs greedy (tournament)"),
                                           ("pimc", "pimc vs rollout (strength)"))):
            frame = pd.read_csv(HERE / f"{name}.csv")
            s = spread(frame)
            deals = int(frame["deals"].iloc[0])
            se = (frame["high"] - frame["low"]) / (2 * 1.96)
            z = (frame["estimate"] - s["pooled"]) / se
            ax = axes[0][k]
            figures.no_intervals(ax, "a histogram of standardised estimates")
            bins = np.linspace(-4, 4, 33)
            ax.hist(z, bins=bins, color="0.75", edgecolor="white")
            grid = np.linspace(-4, 4, 200)
            ax.plot(grid, len(z) * (bins[1] - bins[0]) * np.exp(-grid ** 2 / 2) / np.sqrt(2 * np.pi),
                    color="black", lw=0.9)
            ax.set_xlabel("(estimate - pooled) / the run's own SE")
            ax.set_ylabel("seeds")
            ax.set_title(f"{title}\n{s['seeds']} seeds x {deals} deals\nSD {np.std(z, ddof=1):.2f}"
                         f" (1 if calibrated), coverage {100 * s['coverage']:.0f}%")
            bx = axes[1][k]
            rows = [(f"pooled\n{s['seeds']} seeds", s["pooled"],
                     s["pooled"] - 1.96 * s["pooled_se"], s["pooled"] + 1.96 * s["pooled_se"])]
            rows += COMMITTED[name]
            for y, ((label, estimate, low, high), colour) in enumerate(zip(rows, colours)):
                figures.estimates(bx, [estimate], [y], [low], [high], color=colour,
                                  horizontal=True)
            figures.reference_line(bx, s["pooled"], axis="x")
            bx.set_yticks(range(len(rows)), [r[0] for r in rows])
            bx.set_ylim(len(rows) - 0.5, -0.5)
            bx.set_xlabel("win share (95% interval)")
        figures.stamp(fig, "Top: the solid curve is the standard normal. Bottom: dashed, the "
                           "pooled estimate; the committed runs' intervals as they reported them")
        figures.save_png(fig, path)


def main(argv) -> None:
    if argv[0] == "run":
        name, first, last = argv[1], int(argv[2]), int(argv[3])
        frame = (run_exact if name == "exact" else run_pimc)(range(first, last))
        target = HERE / f"{name}.csv"
        if target.exists():
            frame = pd.concat([pd.read_csv(target), frame], ignore_index=True)
        frame.drop_duplicates("seed", keep="last").to_csv(target, index=False,
                                                          float_format="%.6f")
    else:
        figure(HERE / "seed_spread.png")
        for name in ("exact", "pimc"):
            s = spread(pd.read_csv(HERE / f"{name}.csv"))
            print(name, {k: round(v, 4) for k, v in s.items()})
            for label, estimate, low, high in COMMITTED[name]:
                se = (high - low) / (2 * 1.96)
                z = (estimate - s["pooled"]) / np.hypot(se, s["pooled_se"])
                print(f"  {label.replace(chr(10), ' ')}: {estimate} z = {z:+.2f} against the pooled estimate")


if __name__ == "__main__":
    main(sys.argv[1:] or ["figure"])
