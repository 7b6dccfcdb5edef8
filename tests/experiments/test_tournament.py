"""Tournament runner: seatings, duplicate deals, summaries, reproducibility, CLI, sample size."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from experiments.stats import wilson_interval
from experiments.tournament import TournamentConfig, pairings, tournament
from experiments.tournament.sequential import (
    FIRST_BATCH,
    TARGET_DEALS,
    cs_radius,
    deal_scores,
    first_separation,
    mixture_rho,
    separation,
    until_separated,
)
from experiments.tournament.shards import frame_aggregate, seating_tasks
from experiments.tournament.tables import (
    entity_frame,
    interval_widths,
    paired_win_rates,
    prefix_sizes,
    tournament_tables,
)
from strategies import resolve, variant
from tests.support.backends import WireBackend
from tests.support.paths import EXAMPLES


def test_pairings_cover_every_seating():
    two = pairings(2, ["a", "b", "c"])
    assert [p.entity_strategies for p in two] == [
        ("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]
    assert [p.group for p in two] == [0, 0, 1, 1, 2, 2]
    three = pairings(3, ["a", "b", "c", "d"])
    assert len(three) == 4 * 6  # C(4,3) combinations x 3! seat orders
    assert [p.entity_strategies for p in three[:6]] == [
        ("a", "b", "c"), ("a", "c", "b"), ("b", "a", "c"), ("b", "c", "a"), ("c", "a", "b"),
        ("c", "b", "a")]
    assert [p.group for p in three] == [g for g in range(4) for _ in range(6)]
    # Every strategy sits in every seat, and directly after each other one, equally often.
    for name in "abcd":
        seats = [p.entity_strategies.index(name) for p in three if name in p.entity_strategies]
        assert sorted(seats) == [0] * 6 + [1] * 6 + [2] * 6
    follows = Counter((p.entity_strategies[i - 1], p.entity_strategies[i])
                      for p in three for i in range(3))
    assert set(follows.values()) == {6}
    four = pairings(4, ["a", "b"])
    assert [p.seat_strategies(4) for p in four] == [["a", "b", "a", "b"], ["b", "a", "b", "a"]]


def test_three_player_result_does_not_depend_on_the_order_of_the_strategies(compiled_engine):
    """With duplicate deals, every order of --strategies plays the same six seatings on the
    same deal sequence, so each strategy's totals are identical (not merely close)."""
    runs = [tournament(3, names, 150, seed=8, duplicate=True).summary.set_index("strategy")
            for names in (["random", "greedy", "heavy"], ["heavy", "greedy", "random"])]
    columns = ["matches", "wins", "unfinished", "mean_margin", "discarded_per_match",
               "settlement_per_match"]
    pd.testing.assert_frame_equal(runs[0].loc[["random", "greedy", "heavy"], columns],
                                  runs[1].loc[["random", "greedy", "heavy"], columns],
                                  check_exact=True)
    assert runs[0]["matches"].tolist() == [900, 900, 900]


def _duplicate_matches(winners_per_seating):
    """Two seatings of group 0 ((a, b) then (b, a)), one row per deal and seating."""
    rows = []
    for pairing, winners in enumerate(winners_per_seating):
        first, second = ("a", "b") if pairing == 0 else ("b", "a")
        for match, winner in enumerate(winners):
            rows.append({"pairing": pairing, "group": 0, "match": match, "winner": winner,
                         "score_0": 305 if winner == 0 else 100,
                         "score_1": 305 if winner == 1 else 100,
                         "entity_strategy_0": first, "entity_strategy_1": second,
                         "events_discarded_0": 0, "events_discarded_1": 0,
                         "settlement_raw_0": 0, "settlement_raw_1": 0})
    return pd.DataFrame(rows)


def tables_of(matches, players=2, names=("a", "b")):
    """summary, pairwise, ranking of a hand-made match frame, as every tournament builds them."""
    return tournament_tables(frame_aggregate(matches), players, list(names))


def test_paired_interval_by_hand():
    # The seat decides every deal (entity 0 always wins): a and b win each deal once in two
    # seatings, y = 1 of x = 2 on all 3 deals -> rate 0.5 with zero spread.
    seat_luck = entity_frame(_duplicate_matches([[0, 0, 0], [0, 0, 0]]))
    table = paired_win_rates(seat_luck, ["a", "b"]).set_index("strategy")
    assert table.loc["a", "deals"] == 3 and table.loc["a", "win_rate"] == 0.5
    assert table.loc["a", "paired_low"] == 0.5 and table.loc["a", "paired_high"] == 0.5
    # Wilson on 3 wins of 6 ignores the pairing: about [0.188, 0.812].
    summary = tables_of(_duplicate_matches([[0, 0, 0], [0, 0, 0]]))[0].set_index("strategy")
    assert summary.loc["a", "win_low"] == pytest.approx(0.1876, abs=1e-3)

    # The deal decides (a wins deal 0 in both seatings, b wins deal 1 in both):
    # y = [2, 0], x = [2, 2], r = 0.5, residuals [1, -1], variance (ddof 1) 2,
    # se = sqrt(2 * 2) / 4 = 0.5, interval 0.5 +- 1.959964 * 0.5.
    deal_luck = entity_frame(_duplicate_matches([[0, 1], [1, 0]]))
    table = paired_win_rates(deal_luck, ["a", "b"]).set_index("strategy")
    assert table.loc["a", "win_rate"] == 0.5
    assert table.loc["a", "paired_low"] == pytest.approx(0.5 - 1.959964 * 0.5, abs=1e-6)
    assert table.loc["a", "paired_high"] == pytest.approx(0.5 + 1.959964 * 0.5, abs=1e-6)


def test_duplicate_tournament_reports_the_paired_interval(compiled_engine, tmp_path):
    result = tournament(2, ["random", "greedy"], 400, seed=3, duplicate=True, out=tmp_path / "d")
    paired = result.paired.set_index("strategy")
    summary = result.summary.set_index("strategy")
    assert (paired["deals"] == 400).all()
    assert paired["win_rate"].to_numpy() == pytest.approx(summary["win_rate"].to_numpy())
    text = (tmp_path / "d" / "summary.md").read_text()
    assert "## Win rate with the duplicate deals paired" in text
    independent = tournament(2, ["random", "greedy"], 400, seed=3)
    assert independent.paired is None
    assert "paired" not in independent.markdown()


def test_summary_by_hand():
    matches = pd.DataFrame({
        "pairing": [0, 0, 1, 1], "match": [0, 1, 0, 1], "winner": [0, 1, 0, -1],
        "score_0": [305, 200, 305, 100], "score_1": [250, 305, 0, 150],
        "entity_strategy_0": ["a", "a", "b", "b"], "entity_strategy_1": ["b", "b", "a", "a"],
        "events_discarded_0": [1, 0, 0, 2], "events_discarded_1": [0, 0, 1, 0],
        "settlement_raw_0": [10, 20, 30, 40], "settlement_raw_1": [0, 5, 0, 5],
    })
    summary, grid, _ = tables_of(matches)
    table = summary.set_index("strategy")
    # a: wins matches 0 and (as entity 1) none of pairing 1; b: match 1 and match 2.
    assert table.loc["a", "wins"] == 1 and table.loc["b", "wins"] == 2
    assert table.loc["a", "matches"] == 4 and table.loc["b", "unfinished"] == 1
    # a's margins: 305-250, 200-305, 0-305, 150-100 -> 55, -105, -305, 50 -> mean -76.25
    assert table.loc["a", "mean_margin"] == pytest.approx(-76.25)
    # a's discards: 1, 0, 1, 0 -> 0.5; a's settlement: 10, 20, 0, 5 -> 8.75
    assert table.loc["a", "discarded_per_match"] == pytest.approx(0.5)
    assert table.loc["a", "settlement_per_match"] == pytest.approx(8.75)
    assert grid.loc["a", "b"] == pytest.approx(1 / 3) and grid.loc["b", "a"] == pytest.approx(2 / 3)


@pytest.fixture(scope="module")
def small_duplicate(compiled_engine, tmp_path_factory):
    out = tmp_path_factory.mktemp("tour") / "run"
    result = tournament(2, ["random", "greedy"], 300, seed=5, duplicate=True, out=out)
    return result, out


def test_duplicate_replays_the_same_deals(small_duplicate):
    result, _ = small_duplicate
    frame = result.matches
    a = frame[frame["pairing"] == 0].reset_index(drop=True)
    b = frame[frame["pairing"] == 1].reset_index(drop=True)
    # Same seed: same first lot and same first deal; strategies swapped between seats.
    assert (a["seed"] == b["seed"]).all()
    assert (a["first_leader"] == b["first_leader"]).all()
    assert (a["strategy_0"].astype(str) == "random").all()
    assert (b["strategy_0"].astype(str) == "greedy").all()


def test_outputs_written_and_reproducible(small_duplicate, tmp_path):
    _, out = small_duplicate
    for name in ["matches.parquet", "summary.csv", "summary.md", "pairwise.csv", "ranking.csv",
                 "pairwise.png", "ranking.png", "run.json"]:
        assert (out / name).stat().st_size > 0, name
    again = tmp_path / "again"
    tournament(2, ["random", "greedy"], 300, seed=5, duplicate=True, out=again)
    assert (again / "summary.csv").read_bytes() == (out / "summary.csv").read_bytes()
    summary = pd.read_csv(out / "summary.csv")
    assert summary["matches"].tolist() == [600, 600]
    assert summary["wins"].sum() + summary["unfinished"].sum() // 2 == 600


def test_four_player_tournament(compiled_engine):
    result = tournament(4, ["random", "greedy"], 50, seed=2)
    assert len(result.matches) == 100 and set(result.entities["entity"]) == {0, 1}
    ranking = result.ranking.set_index("strategy")
    assert ranking.loc["greedy", "log_strength"] > ranking.loc["random", "log_strength"]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "cli", "tournament", *args],
                          check=False, capture_output=True, text=True)


@pytest.mark.parametrize("args, words", [
    (["--strategies", "random,nosuch"], "unknown strategy 'nosuch'"),
    (["--strategies", "random,random"], "strategies names 'random' twice"),
    (["--strategies", "random"], "needs at least 2"),
    (["--strategies", "random,greedy", "--matches", "0"], "matches must be at least 1"),
    (["--strategies", "random,greedy", "--players", "5"], "players must be 2, 3 or 4"),
    (["--strategies", "random,greedy", "--seed", "x"], "seed expects an integer"),
])
def test_cli_bad_input_one_line(tmp_path, args, words):
    run = cli(*args, "--out", str(tmp_path / "o"))
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in run.stderr


def test_cli_refuses_a_directory_holding_another_run(tmp_path, compiled_engine):
    out = tmp_path / "o"
    first = cli("--strategies", "random,greedy", "--matches", "20", "--seed", "1", "--out", str(out),
                "--quiet")
    assert first.returncode == 0, first.stderr
    assert "| greedy |" in first.stdout
    other = cli("--strategies", "random,greedy", "--matches", "20", "--seed", "2", "--out", str(out))
    assert other.returncode == 2 and "holds a different run (seed was 1, now 2)" in other.stderr
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    refused = cli("--strategies", "random,greedy", "--matches", "20", "--out", str(foreign))
    assert refused.returncode == 2 and "holds no run.json" in refused.stderr


SECRET = "0123456789abcdef0123456789abcdef"


def test_a_sealed_config_draws_one_secret_for_every_seating():
    sealed = TournamentConfig.build(3, "random,greedy,exact", 5, 1, sealed=True)
    plain = TournamentConfig.build(3, "random,greedy,exact", 5, 1)
    assert len(sealed.secret) == 32 and sealed.secret not in repr(sealed)
    assert sealed.as_dict() == {**plain.as_dict(), "sealed": True, "secret": sealed.secret}
    assert plain.seal_options == {} and "secret" not in plain.as_dict()
    configs = [task.config for task in seating_tasks(sealed, 2)]
    assert len(configs) == 6 * 3  # seatings x shards of 2 matches
    for config in configs:  # JSON-ready: a dask worker gets the same options
        assert json.loads(json.dumps(config)) == config
        assert (config["sealed"], config["secret"]) == (True, sealed.secret)
    assert not {"sealed", "secret"} & seating_tasks(plain, 2)[0].config.keys()
    keyed = TournamentConfig.build(2, "random,greedy", 5, 1, secret=SECRET)
    assert keyed.seal_options == {"secret": SECRET}


def test_a_sealed_tournament_of_a_python_strategy_equals_the_unsealed_one_with_its_secret(
        compiled_engine):
    """Through a backend whose jobs get their configs over JSON, as dask workers do."""
    field = [f"{EXAMPLES / 'table_strategy.py'}:tile_table", "greedy", "random"]
    wire = WireBackend()
    sealed = tournament(2, field, 4, seed=1, duplicate=True, sealed=True, secret=SECRET,
                        backend=wire)
    assert {(c["sealed"], c["secret"]) for c in wire.configs} == {(True, SECRET)}
    keyed = tournament(2, field, 4, seed=1, duplicate=True, secret=SECRET)
    plain = tournament(2, field, 4, seed=1, duplicate=True)
    pd.testing.assert_frame_equal(sealed.matches, keyed.matches)
    pd.testing.assert_frame_equal(sealed.summary, keyed.summary)
    assert not keyed.matches.equals(plain.matches)  # random's decisions are keyed by the secret


def test_entity_frame_rows(small_duplicate):
    result, _ = small_duplicate
    assert len(result.entities) == 2 * len(result.matches)
    assert np.array_equal(np.sort(result.entities["entity"].unique()), [0, 1])


# ---------------------------------------------------------------------------
# Sample size: interval width against matches, and the sequential test
# ---------------------------------------------------------------------------
def test_prefix_sizes_are_log_spaced_up_to_matches():
    assert prefix_sizes(100).tolist() == [10, 13, 17, 22, 28, 36, 46, 60, 77, 100]
    assert prefix_sizes(12).tolist() == [10, 11, 12]
    assert prefix_sizes(5).tolist() == [5] and prefix_sizes(1).tolist() == []


def test_interval_widths_by_hand():
    # The deal decides (see test_paired_interval_by_hand): paired half-width 1.959964 * 0.5 at
    # n = 2; on the first deal alone no interval (one cluster).
    deal_luck = entity_frame(_duplicate_matches([[0, 1], [1, 0]]))
    widths = interval_widths(deal_luck, ["a", "b"], True, [1, 2]).set_index(
        ["strategy", "matches_per_seating"])
    assert widths.loc[("a", 2), "half_width"] == pytest.approx(1.959964 * 0.5, abs=1e-6)
    assert widths.loc[("a", 2), "matches"] == 4 and widths.loc[("a", 2), "interval"] == "paired"
    assert np.isnan(widths.loc[("a", 1), "half_width"])
    # Without pairing: Wilson on a's wins of the prefix (deal 0: a wins both -> 2 of 2).
    wilson = interval_widths(deal_luck, ["a", "b"], False, [1, 2]).set_index(
        ["strategy", "matches_per_seating"])
    low, high = wilson_interval(np.array([2, 2]), np.array([2, 4]))
    assert wilson.loc[("a", 1), "half_width"] == pytest.approx((high[0] - low[0]) / 2)
    assert wilson.loc[("a", 2), "half_width"] == pytest.approx((high[1] - low[1]) / 2)


def test_interval_width_files(small_duplicate):
    result, out = small_duplicate
    widths = pd.read_csv(out / "interval_width.csv")
    assert widths["matches_per_seating"].unique().tolist() == prefix_sizes(300).tolist()
    # The full prefix is the paired interval of the summary.
    full = widths[widths["matches_per_seating"] == 300].set_index("strategy")
    paired = result.paired.set_index("strategy")
    assert full["low"].to_numpy() == pytest.approx(paired["paired_low"].to_numpy(), abs=1e-6)
    # Thirty times the deals, about 1/sqrt(30) = 0.18 of the width.
    greedy = widths[widths["strategy"] == "greedy"].set_index("matches_per_seating")
    assert 0.1 < greedy.loc[300, "half_width"] / greedy.loc[10, "half_width"] < 0.3
    assert (out / "interval_width.png").stat().st_size > 0
    assert "## Interval width against sample size" in (out / "summary.md").read_text()


def test_cs_radius_by_hand():
    # n = 100, alpha = 0.05, rho = 6.25: V = 25, sqrt(31.25 * ln(31.25 / (6.25 * 0.0025))) / 100
    # = sqrt(31.25 * ln 2000) / 100 = sqrt(237.528) / 100 = 0.154120.
    assert cs_radius([100], 0.05, rho=6.25)[0] == pytest.approx(0.154120, abs=1e-6)
    # The default rho makes the boundary tightest at TARGET_DEALS: t = V / rho solves
    # t - ln(1 + t) = -2 ln(alpha) (t = 8.212 at alpha 0.05).
    rho = mixture_rho(TARGET_DEALS, 0.05)
    t = 0.25 * TARGET_DEALS / rho
    assert t - np.log1p(t) == pytest.approx(-2 * np.log(0.05))
    at = cs_radius([TARGET_DEALS], 0.05, rho)[0]
    assert at < cs_radius([TARGET_DEALS], 0.05, 1.2 * rho)[0]
    assert at < cs_radius([TARGET_DEALS], 0.05, rho / 1.2)[0]


def test_first_separation_by_hand():
    # A wins every deal: mean 1, it stops at the first n with radius(n) < 1/2. With the default
    # rho = 6.0887: n = 16 gives sqrt(10.0887 ln(10.0887 / (6.0887 * 0.0025))) / 16 = 0.5060,
    # n = 17 gives 0.4830.
    assert first_separation(np.ones(40)) == 17
    assert first_separation(np.zeros(40)) == 17
    assert first_separation(np.full(1000, 0.5)) is None
    assert first_separation(np.ones(16)) is None
    path = separation(np.r_[np.full(10, 0.5), np.ones(200)])
    stop = first_separation(path["score"])
    assert not path["separated"].iloc[:stop - 1].any() and path["separated"].iloc[stop - 1]


def test_confidence_sequence_rarely_separates_equal_strategies():
    """Under the null (fair coin flips, the worst case for sigma = 1/2) the sequence ever
    excludes 1/2 within 1,000 deals on at most alpha of the paths (3.05% of 2,000 here)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(2000, 1000)).astype(np.float64)
    n = np.arange(1, 1001)
    ever = (np.abs(np.cumsum(x, axis=1) / n - 0.5) > cs_radius(n)).any(axis=1).mean()
    assert 0.0 < ever <= 0.05


def test_deal_scores_by_hand():
    # Seating 0 is (a, b), seating 1 is (b, a). Deal 0: a wins both -> 1. Deal 1: b wins
    # seating 0, a wins seating 1 -> 1/2. Deal 2: unfinished (1/2) and b wins -> 1/4.
    matches = _duplicate_matches([[0, 1, -1], [1, 1, 0]])
    assert deal_scores(matches, "a").tolist() == [1.0, 0.5, 0.25]
    assert deal_scores(matches, "b").tolist() == [0.0, 0.5, 0.75]


def test_until_separated_strong_pair_stops_early(compiled_engine, tmp_path):
    out = tmp_path / "s"
    result = until_separated(2, ["rollout", "random"], 500, seed=1, out=out)
    seq = result.sequential
    assert seq.stop is not None and seq.stop <= 32 and seq.winner == "rollout"
    assert seq.low > 0.5 and seq.deals == seq.stop and result.per_seating == seq.stop
    assert len(result.matches) == 2 * seq.stop and result.matches["match"].max() == seq.stop - 1
    # The stop is the first deal where the boundary excludes 1/2, recomputed here by hand.
    scores = deal_scores(result.matches, "rollout")
    for n in range(1, seq.stop + 1):
        v = 0.25 * n + seq.rho
        radius = np.sqrt(v * np.log(v / (seq.rho * 0.05 ** 2))) / n
        assert (abs(scores[:n].mean() - 0.5) > radius) == (n == seq.stop)
    for name in ("sequential.csv", "sequential.png", "interval_width.png", "pairwise.png"):
        assert (out / name).stat().st_size > 0, name
    text = (out / "summary.md").read_text()
    assert f"Stopped at deal {seq.stop}" in text and "not adjusted for the optional stopping" in text


def test_until_separated_identical_strategies_do_not_separate(compiled_engine):
    twin = variant(resolve("random"), name="random_twin")  # the same play under another name
    result = until_separated(2, ["random", twin], 150, seed=2)
    seq = result.sequential
    assert seq.stop is None and seq.winner is None and seq.deals == 150
    assert seq.low < 0.5 < seq.high and len(result.matches) == 300


def test_until_separated_is_deterministic_and_matches_the_full_run(compiled_engine):
    names = ["defensive", "greedy"]
    plain = until_separated(2, names, 400, seed=3)
    other = until_separated(2, names, 400, seed=3, shard_size=7, threads=1)
    stop = plain.sequential.stop
    assert stop is not None and stop > FIRST_BATCH  # the stop is past the first batch
    assert other.sequential.stop == stop and other.sequential.played == plain.sequential.played
    pd.testing.assert_frame_equal(other.matches, plain.matches, check_exact=True)
    # The fixed-size duplicate run plays the same deals: its first `stop` deals are the
    # sequential run's rows, and its first crossing (computed from the full frame) is `stop`.
    full = tournament(2, names, 400, seed=3, duplicate=True)
    assert first_separation(deal_scores(full.matches, "defensive")) == stop
    head = full.matches[full.matches["match"] < stop].reset_index(drop=True)
    pd.testing.assert_frame_equal(head, plain.matches, check_exact=True)


@pytest.mark.parametrize("kwargs, words", [
    ({"strategies": ["random", "greedy", "heavy"]}, "exactly two strategies, found 3"),
    ({"duplicate": False}, "--until-separated needs --duplicate"),
    ({"alpha": 1.5}, "alpha must lie strictly between 0 and 1"),
    ({"alpha": "x"}, "alpha expects a number"),
])
def test_until_separated_config_refuses(kwargs, words):
    args = {"players": 2, "strategies": ["random", "greedy"], "matches": 10, "seed": 0,
            "duplicate": True, "until_separated": True, **kwargs}
    with pytest.raises(ValueError, match=words):
        TournamentConfig.build(**args)
