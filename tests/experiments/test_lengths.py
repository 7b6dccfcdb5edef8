"""The match-length study: its frames against the engine's own match and round frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.stats import t_quantile
from experiments.studies import length_plots, lengths
import sim
from core.tiles import TARGET_RAW, entity_count
from tests.support.study_runs import SELF_PLAY, traces  # noqa: F401  (a fixture)


@pytest.fixture(scope="module")
def result(traces):
    return lengths.run(*SELF_PLAY, traces=traces)


@pytest.fixture(scope="module")
def engine_frames(compiled_engine):
    """``(strategy, players) -> (match frame, round frame)`` straight from the engine."""
    out = {}
    for strategy in SELF_PLAY.strategies:
        for players in SELF_PLAY.players:
            args = (players, [strategy] * players, SELF_PLAY.matches, SELF_PLAY.seed)
            out[strategy, players] = (sim.simulate(*args), sim.simulate_rounds(*args))
    return out


def _row(frame, strategy, players, **more):
    sel = (frame.strategy == strategy) & (frame.players == players)
    for column, value in more.items():
        sel &= frame[column] == value
    assert sel.sum() == 1
    return frame[sel].iloc[0]


def _observed_quantile(values, q):
    """The smallest value whose cumulative share reaches q, by hand."""
    ordered = np.sort(np.asarray(values))
    return float(ordered[int(np.ceil(q * len(ordered))) - 1])


def test_rounds_per_match_equal_the_engine_match_frame(result, engine_frames):
    table = result.frames["lengths"]
    hist = result.frames["rounds_hist"]
    for (strategy, players), (frame, _) in engine_frames.items():
        rounds = frame["rounds"].to_numpy()
        row = _row(table, strategy, players)
        assert row.matches == SELF_PLAY.matches
        assert row.unfinished == int((frame["winner"] < 0).sum())
        assert row.rounds_mean == pytest.approx(rounds.mean())
        se = rounds.std(ddof=1) / np.sqrt(len(rounds))
        # Student t on n - 1 degrees of freedom, the match as the unit
        assert row.rounds_high - row.rounds_mean == pytest.approx(
            t_quantile(len(rounds) - 1) * se)
        for q, column in ((0.1, "rounds_p10"), (0.5, "rounds_median"), (0.9, "rounds_p90")):
            assert row[column] == _observed_quantile(rounds, q)
        assert row.rounds_max == rounds.max() and row.rounds_min == rounds.min()
        assert row.long_matches == int((rounds >= 10).sum())
        assert row.share_long == pytest.approx((rounds >= 10).mean())
        assert row.placements_mean == pytest.approx(frame["placements"].mean())
        assert row.turns_mean == pytest.approx((frame["placements"] + frame["passes"]).mean())
        sel = hist[(hist.strategy == strategy) & (hist.players == players)]
        counts = pd.Series(rounds).value_counts().sort_index()
        assert sel["rounds"].tolist() == counts.index.tolist()
        assert sel["matches"].tolist() == counts.tolist()
        assert sel["cumulative"].iloc[-1] == pytest.approx(1.0)


def test_score_paths_equal_the_engine_round_frame(traces, engine_frames):
    horizon = lengths.HORIZON
    for (strategy, players), (frame, rounds) in engine_frames.items():
        trace = traces[strategy, players]
        scores = lengths.score_paths(trace.matches, trace.events, players)
        n_entities = entity_count(players)
        assert scores.shape == (SELF_PLAY.matches, horizon, n_entities)
        # the engine's score after each round, carried at the final score after the last one
        expected = np.repeat(frame[[f"score_{e}" for e in range(n_entities)]].to_numpy()[:, None],
                             horizon, axis=1).astype(np.int64)
        early = rounds[rounds["round"] < horizon]
        for e in range(n_entities):
            expected[early["match"].to_numpy(), early["round"].to_numpy(), e] = early[f"score_{e}"]
        np.testing.assert_array_equal(scores, expected)


def test_trajectories_end_at_the_final_scores(result, engine_frames):
    paths = result.frames["trajectories"]
    gaps = result.frames["gaps"]
    horizon = lengths.HORIZON
    checked = 0
    for (strategy, players), (frame, _) in engine_frames.items():
        n_entities = entity_count(players)
        final = frame[[f"score_{e}" for e in range(n_entities)]].to_numpy() // 5
        winner = frame["winner"].to_numpy()
        finished = winner >= 0
        assert (final[finished, winner[finished]] == TARGET_RAW // 5).all()
        if frame["rounds"].max() > horizon:
            continue
        # every match is over by the horizon: the paths end at the final scores
        checked += 1
        won = _row(paths, strategy, players, side="winner", round=horizon)
        assert (won["mean"], won["p10"], won["median"], won["p90"]) == (61, 61, 61, 61)
        assert won.in_play == int((frame["rounds"] == horizon).sum())  # their last round
        losers = final[finished][np.arange(n_entities)[None, :] != winner[finished, None]]
        lost = _row(paths, strategy, players, side="loser", round=horizon)
        assert lost["mean"] == pytest.approx(losers.mean())
        best = np.where(np.arange(n_entities)[None, :] == winner[:, None], -1, final).max(axis=1)
        gap = _row(gaps, strategy, players, round=horizon)
        assert gap.gap_mean == pytest.approx((61 - best[finished]).mean())
        assert gap.leads_rate == 1.0
    assert checked >= 1  # greedy with 4 players never lasts 20 rounds


def test_trajectories_from_the_round_frame_by_hand(result, engine_frames):
    """Round 1 and round 5 figures recomputed from the engine's round frame with pandas."""
    paths = result.frames["trajectories"]
    for strategy, players in (("random", 3), ("greedy", 2)):
        frame, rounds = engine_frames[strategy, players]
        n_entities = entity_count(players)
        winner = frame.set_index("match")["winner"]
        for k in (1, 5):
            # score after round k: the row of round k-1, else the final score
            last = rounds[rounds["round"] <= k - 1].groupby("match").tail(1).set_index("match")
            shown = last[[f"score_{e}" for e in range(n_entities)]] // 5
            won = np.array([shown.loc[m, f"score_{w}"] for m, w in winner.items() if w >= 0])
            lost = np.array([shown.loc[m, f"score_{e}"] for m, w in winner.items() if w >= 0
                             for e in range(n_entities) if e != w])
            for side, values in (("winner", won), ("loser", lost)):
                row = _row(paths, strategy, players, side=side, round=k)
                assert row["mean"] == pytest.approx(values.mean())
                assert row.p10 == _observed_quantile(values, 0.1)
                assert row.p90 == _observed_quantile(values, 0.9)
            in_play = int((frame["rounds"] >= k).sum())
            assert _row(paths, strategy, players, side="winner", round=k).in_play == in_play


def test_same_seed_same_tables(compiled_engine, tmp_path):
    a = lengths.run([2, 3], ["greedy"], 120, 5)
    b = lengths.run([2, 3], ["greedy"], 120, 5, threads=1)
    assert a.frames.keys() == b.frames.keys()
    for name in a.frames:
        pd.testing.assert_frame_equal(a.frames[name], b.frames[name])
    assert a.markdown == b.markdown and a.key_numbers == b.key_numbers
    other = lengths.run([2, 3], ["greedy"], 120, 6)
    assert not other.frames["lengths"].equals(a.frames["lengths"])
    files = {p.split("/")[-1] for p in a.save(tmp_path / "lengths")}
    assert {"lengths.csv", "rounds_hist.parquet", "trajectories.csv", "gaps.csv",
            "rounds_per_match.png", "score_paths.png", "score_gap.png", "summary.md"} <= files
    png = (tmp_path / "lengths" / "score_paths.png").read_bytes()
    b.save(tmp_path / "lengths")  # same settings: allowed, same bytes
    assert (tmp_path / "lengths" / "score_paths.png").read_bytes() == png


def test_summary_numbers_come_from_the_frames(result):
    row = _row(result.frames["lengths"], "greedy", 4)
    text = result.key_numbers["greedy, 4p: rounds per match (median, p10-p90)"]
    assert text.startswith(f"{row.rounds_mean:.2f} [")
    assert f"median {row.rounds_median:.0f}" in text
    assert text in result.markdown
    assert "1 displayed = 5 raw" in result.markdown


def test_figures_carry_units_and_the_run(result):
    settings = result.settings
    figure = length_plots.score_paths_figure(result.frames["trajectories"], settings)
    assert figure.axes[0].get_ylabel() == "displayed score"
    texts = [t.get_text().replace("\n", " ") for t in figure.texts]
    assert any(t.startswith(f"{SELF_PLAY.matches} matches per configuration, players 2, 3, 4, "
                            f"seed {SELF_PLAY.seed}") and "1 displayed = 5 raw" in t
               for t in texts)
    figure = length_plots.rounds_per_match_figure(result.frames["rounds_hist"], settings)
    assert figure.axes[0].get_xlabel() == "rounds per match"
    figure = length_plots.score_gap_figure(result.frames["gaps"], settings)
    # no cut-off axis: a negative mean gap (the best of two losers leads early) is shown
    low = result.frames["gaps"]["gap_mean"].min()
    assert figure.axes[0].get_ylim()[0] <= min(0.0, low)
    # chance in the bottom row is 1/n: 1/3 at 3 players, not 1/2
    three = [ax for ax in figure.axes if ax.get_title().startswith("3 players")][0]
    assert three.get_title() == "3 players (chance 0.33)"
    bottom = figure.axes[len(figure.axes) // 2 + 1]
    assert [ln.get_ydata()[0] for ln in bottom.get_lines()
            if ln.get_linestyle() == "--"] == [pytest.approx(1 / 3)]


def test_the_winner_ahead_is_compared_with_chance_one_in_n(result):
    """The eventual winner's lead after a round against chance 1/n: at 3 players 1/3, so a rate
    of 0.45 is above chance there (it would be below 1/2)."""
    comparisons = result.frames["comparisons"]
    gaps = result.frames["gaps"].set_index(["strategy", "players", "round"])
    leads = comparisons[comparisons["quantity"] == lengths.LEADS]
    assert len(leads) == len(SELF_PLAY.strategies) * len(SELF_PLAY.players) * len(
        lengths.GAP_ROUNDS)
    for row in leads.itertuples(index=False):
        strategy, after = row.a.split(" winner ahead after round ")
        rate = gaps.loc[(strategy, row.players, int(after)), "leads_rate"]
        assert row.b == "chance"
        assert row.difference == pytest.approx(rate - 1 / (2 if row.players == 4 else
                                                            row.players))
        assert row.words in result.markdown
    # the caption counts against 1/n, by the adjusted intervals
    after_one = leads[leads["a"].str.endswith("after round 1")]
    above = int(((after_one["verdict"] == "finding") & (after_one["difference"] > 0)).sum())
    assert (f"After round 1 the eventual winner already leads more often than chance (1/n; "
            f"adjusted interval above it) in {above} of {len(after_one)}") in result.markdown


@pytest.mark.parametrize("name", ["rounds_per_match", "score_paths", "score_gap"])
def test_every_figure_is_fit_for_print(result, name, tmp_path, monkeypatch):
    from experiments.reporting.figures import AUDIT_ENV, print_problems

    monkeypatch.setenv(AUDIT_ENV, "strict")
    result.plots[name](tmp_path / f"{name}.png")
    frame = {"rounds_per_match": "rounds_hist", "score_paths": "trajectories",
             "score_gap": "gaps"}[name]
    figure = getattr(length_plots, f"{name}_figure")(result.frames[frame], result.settings)
    assert print_problems(figure) == []


@pytest.mark.parametrize("call,message", [
    (lambda: lengths.run([5], ["greedy"], 10, 0), "players must be 2, 3 or 4, found 5"),
    (lambda: lengths.run([2], ["nope"], 10, 0), "unknown strategy 'nope'"),
    (lambda: lengths.run([2], ["greedy"], 0, 0), "matches must be at least 1, found 0"),
])
def test_python_api_rejects_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_rounds_contrast_is_paired_by_deal(result, engine_frames):
    # random - greedy at each player count: match i of both is the same first deal
    comparisons = result.frames["comparisons"]
    contrasts = comparisons[comparisons["quantity"] == lengths.ROUNDS]
    assert set(contrasts["b"]) == {"greedy"} and set(contrasts["a"]) == {"random"}
    # no strong strategy: every self-played strategy against greedy is primary
    assert set(contrasts["family"]) == {"primary"}
    for players in SELF_PLAY.players:
        a = engine_frames[("random", players)][0]["rounds"].to_numpy(dtype=float)
        b = engine_frames[("greedy", players)][0]["rounds"].to_numpy(dtype=float)
        d = a - b
        half = t_quantile(len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
        row = contrasts[contrasts.players == players].iloc[0]
        assert row.deals == SELF_PLAY.matches and row.difference == pytest.approx(d.mean())
        assert (row.low, row.high) == pytest.approx((d.mean() - half, d.mean() + half))
        assert (row.verdict == "finding") == (row.adj_low > 0 or row.adj_high < 0)
        assert row.adj_high - row.adj_low >= row.high - row.low - 1e-12  # Holm never narrows
        key = result.key_numbers[f"random - greedy, {players}p: rounds per match"]
        assert row.words.endswith(key)
        assert row.words in result.markdown
    assert ((contrasts.adj_high - contrasts.adj_low) > (contrasts.high - contrasts.low)).any()


def test_strong_strategies_are_the_primary_comparisons():
    settings = {"players": [2, 3], "strategies": ["greedy", "random", "rollout"],
                "strong": ["rollout"]}
    plan = lengths.plan_for(settings)
    primary = [c.id for c in plan.comparisons if c.family == "primary"]
    assert primary == ["2p | self-play | rollout - greedy | rounds",
                       "3p | self-play | rollout - greedy | rounds"]


def test_figures_use_the_strategy_colours_and_captions(result):
    from experiments.reporting.figures import strategy_colour, text_overlaps

    settings = result.settings
    for figure in (length_plots.rounds_per_match_figure(result.frames["rounds_hist"], settings),
                   length_plots.score_gap_figure(result.frames["gaps"], settings),
                   length_plots.score_paths_figure(result.frames["trajectories"], settings)):
        assert text_overlaps(figure) == []
    figure = length_plots.rounds_per_match_figure(result.frames["rounds_hist"], settings)
    for line in figure.axes[0].get_lines():
        assert line.get_color() == strategy_colour(line.get_label())
    assert "Plots:" not in result.markdown
    for name in ("rounds_per_match", "score_paths", "score_gap"):
        assert f"![{name}]({name}.png)" in result.markdown
