"""Tournament runner: seatings, duplicate deals, summaries, reproducibility, CLI, sample size."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from experiments.stats import (
    clustered_luce,
    luce_ranking,
    paired_proportion,
    wilson_interval,
)
from experiments.tools.tournament import TournamentConfig, pairings, tournament
from experiments.tools.tournament.seating_shards import frame_aggregate, seating_tasks
from experiments.tools.tournament.sequential import (
    FIRST_BATCH,
    TARGET_DEALS,
    cs_radius,
    deal_scores,
    first_separation,
    mixture_rho,
    separation,
    until_separated,
)
from experiments.tools.tournament.tables import (
    entity_frame,
    head_to_head_contrast,
    interval_widths,
    match_ranking,
    paired_win_rates,
    pairwise_intervals,
    prefix_sizes,
    tournament_tables,
)
from strategies import resolve, variant
from tests.support.backends import WireBackend
from tests.support.paths import EXAMPLES
from tests.support.plugins import call_cli


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
    # seatings, y = 1 of x = 2 on all 3 deals -> rate 0.5. The deals agree, but the interval is
    # not zero-width: two pseudo-deals of size 2 (one won twice, one lost twice) add residuals
    # 4 * (0.25 + 0.25) = 2, so v = (5 / 4) * 2 / (6 + 4)^2 = 0.025, n = 0.25 / v = 10 and the
    # interval is Wilson's for 5 of 10: [0.2366, 0.7634], narrower than Wilson on 3 of 6.
    seat_luck = entity_frame(_duplicate_matches([[0, 0, 0], [0, 0, 0]]))
    table = paired_win_rates(seat_luck, ["a", "b"]).set_index("strategy")
    assert table.loc["a", "deals"] == 3 and table.loc["a", "win_rate"] == 0.5
    assert table.loc["a", "paired_low"] == pytest.approx(0.23660, abs=1e-4)
    assert table.loc["a", "paired_high"] == pytest.approx(0.76340, abs=1e-4)
    assert table.loc["a", "design_effect"] == pytest.approx(6 / 10)
    # Wilson on 3 wins of 6 ignores the pairing: about [0.188, 0.812].
    assert table.loc["a", "wilson_low"] == pytest.approx(0.1876, abs=1e-3)
    summary = tables_of(_duplicate_matches([[0, 0, 0], [0, 0, 0]]))[0].set_index("strategy")
    assert summary.loc["a", "win_low"] == pytest.approx(0.1876, abs=1e-3)

    # The deal decides (a wins deal 0 in both seatings, b wins deal 1 in both):
    # y = [2, 0], x = [2, 2], p = 0.5, residuals 1 + 1 plus the pseudo-deals' 2 = 4 over
    # (4 + 4)^2 = 64 deals' worth, times (2 + 2) / (2 + 1): v = 1 / 12, n = 3, Wilson for 1.5 of
    # 3: 0.5 +- 1.959964 * sqrt(1 / 12 + 1.959964^2 / 36) / (1 + 1.959964^2 / 3) = +-0.37466.
    deal_luck = entity_frame(_duplicate_matches([[0, 1], [1, 0]]))
    table = paired_win_rates(deal_luck, ["a", "b"]).set_index("strategy")
    assert table.loc["a", "win_rate"] == 0.5
    assert table.loc["a", "paired_low"] == pytest.approx(0.5 - 0.37466, abs=1e-5)
    assert table.loc["a", "paired_high"] == pytest.approx(0.5 + 0.37466, abs=1e-5)


def test_paired_proportion_at_the_ends_takes_the_worst_case():
    # Every event a success: nothing said about the pairing; each deal counts once (n = G = 3,
    # X^2 / sum X_c^2 = 36 / 12): Wilson for 3 of 3.
    table = paired_proportion(np.ones(6), np.repeat([0, 1, 2], 2)).iloc[0]
    low, high = wilson_interval(3, 3)
    assert table.effective_events == pytest.approx(3.0)
    assert (table.low, table.high) == (pytest.approx(float(low)), pytest.approx(float(high)))
    assert table.high == 1.0 and 0 < table.low < 1


def test_pairwise_intervals_and_head_to_head_contrast_by_hand():
    deal_luck = entity_frame(_duplicate_matches([[0, 1], [1, 0]]))
    table = pairwise_intervals(deal_luck, ["a", "b"], True).set_index(["strategy", "opponent"])
    # The same events as a's win rate (two strategies, no unfinished match).
    assert table.loc[("a", "b"), "share"] == 0.5 and table.loc[("a", "b"), "units"] == 2
    assert table.loc[("a", "b"), "low"] == pytest.approx(0.5 - 0.37466, abs=1e-5)
    # a - b per deal: +1 (deal 0), -1 (deal 1): mean 0, sd sqrt(2), se 1, t(1) = 12.706: the
    # interval passes the ends of a difference of win rates and is clipped to [-1, 1].
    contrast = head_to_head_contrast(deal_luck, "a", "b", True)
    assert contrast.difference == 0 and contrast.units == 2
    assert (contrast.low, contrast.high) == (-1.0, 1.0) and not contrast.detected
    # Unpaired (no duplicate deals), the unit is the match: 4 units, a - b = +1, -1, +1, -1.
    unpaired = head_to_head_contrast(deal_luck, "a", "b", False)
    assert unpaired.units == 4 and unpaired.difference == 0


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
    text = independent.markdown()
    assert "duplicate deals paired" not in text and "paired (deals as clusters" not in text
    assert "The unit of every interval is the match" in text
    # the summary's interval is the design's: deal-clustered with duplicate deals
    assert set(result.summary["interval"]) == {"deal-clustered"}
    assert summary["win_low"].to_numpy() == pytest.approx(paired["paired_low"].to_numpy())
    assert set(independent.summary["interval"]) == {"wilson"}


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
    """``five-up tournament args...`` in this process (:func:`tests.support.plugins.call_cli`)."""
    return call_cli("tournament", *args)


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
    # The deal decides (see test_paired_interval_by_hand): at n = 2 the paired interval is
    # Wilson's for 1.5 of 3, half-width 0.37466; on the first deal alone a wins both seatings
    # (p = 1): the worst case, one deal, Wilson for 1 of 1.
    deal_luck = entity_frame(_duplicate_matches([[0, 1], [1, 0]]))
    widths = interval_widths(deal_luck, ["a", "b"], True, [1, 2]).set_index(
        ["strategy", "matches_per_seating"])
    assert widths.loc[("a", 2), "paired_half_width"] == pytest.approx(0.37466, abs=1e-5)
    assert widths.loc[("a", 2), "matches"] == 4
    low, high = wilson_interval(1, 1)
    assert widths.loc[("a", 1), "paired_low"] == pytest.approx(float(low))
    assert widths.loc[("a", 1), "paired_half_width"] == pytest.approx((1 - float(low)) / 2)
    # Beside it, Wilson on a's wins of the prefix (deal 0: 2 of 2; both deals: 2 of 4).
    low, high = wilson_interval(np.array([2, 2]), np.array([2, 4]))
    assert widths.loc[("a", 1), "wilson_half_width"] == pytest.approx((high[0] - low[0]) / 2)
    assert widths.loc[("a", 2), "wilson_half_width"] == pytest.approx((high[1] - low[1]) / 2)
    # Without duplicate deals there is no pairing: Wilson alone.
    wilson = interval_widths(deal_luck, ["a", "b"], False, [1, 2]).set_index(
        ["strategy", "matches_per_seating"])
    assert wilson["paired_half_width"].isna().all()
    assert wilson.loc[("a", 2), "wilson_half_width"] == pytest.approx((high[1] - low[1]) / 2)


def test_interval_width_files(small_duplicate):
    result, out = small_duplicate
    widths = pd.read_csv(out / "interval_width.csv")
    assert widths["matches_per_seating"].unique().tolist() == prefix_sizes(300).tolist()
    # The full prefix is the paired interval of the summary.
    full = widths[widths["matches_per_seating"] == 300].set_index("strategy")
    paired = result.paired.set_index("strategy")
    assert full["paired_low"].to_numpy() == pytest.approx(paired["paired_low"].to_numpy(),
                                                          abs=1e-6)
    # Thirty times the deals, about 1/sqrt(30) = 0.18 of the width.
    greedy = widths[widths["strategy"] == "greedy"].set_index("matches_per_seating")
    for column in ("paired_half_width", "wilson_half_width"):
        assert 0.1 < greedy.loc[300, column] / greedy.loc[10, column] < 0.3
    assert (out / "interval_width.png").stat().st_size > 0
    assert "## Interval width against sample size" in (out / "summary.md").read_text()


def interval_columns(result):
    """Every (table, low, high) pair of proportion intervals of a tournament result."""
    pairs = [(result.summary, "win_low", "win_high"), (result.pairwise_table(), "low", "high")]
    if result.paired is not None:
        pairs += [(result.paired, "paired_low", "paired_high"),
                  (result.paired, "wilson_low", "wilson_high")]
    if result.widths is not None:
        pairs += [(result.widths, "paired_low", "paired_high"),
                  (result.widths, "wilson_low", "wilson_high")]
    return pairs


def test_no_tournament_proportion_interval_leaves_0_1_or_has_zero_width(small_duplicate):
    """The rule for every proportion interval a tournament writes: inside [0, 1], and never
    zero-width (no proportion's data are constant enough for that: a Wilson interval at any
    finite n has width); the ranking's intervals are finite and positive-width."""
    result, _ = small_duplicate
    hand = tournament_result_of(_duplicate_matches([[0, 0, 0, 1], [0, 0, 0, 1]]))
    for tables in (result, hand):
        for table, low, high in interval_columns(tables):
            bounds = table[[low, high]].dropna()
            assert len(bounds), (low, high)
            assert ((bounds[low] >= 0) & (bounds[high] <= 1)).all(), (low, high)
            assert (bounds[high] - bounds[low] > 0).all(), (low, high)
        ranking = tables.ranking
        assert (ranking["high"] - ranking["low"] > 0).all()
        assert ((ranking["low"] <= ranking["log_strength"])
                & (ranking["log_strength"] <= ranking["high"])).all()


def tournament_result_of(matches):
    """The full result of a hand-made duplicate match frame (two strategies a, b)."""
    from experiments.tools.tournament.run import build_result

    config = TournamentConfig(players=2, strategies=("a", "b"),
                              matches=int(matches["match"].max()) + 1, seed=1, duplicate=True)
    return build_result(config, matches)


def test_summary_claims_follow_their_intervals(small_duplicate):
    """A contrast is worded as a finding exactly where its interval excludes 0."""
    result, out = small_duplicate
    text = (out / "summary.md").read_text()
    for row in result.contrasts.itertuples(index=False):
        assert row.strength_detected == (row.strength_low > 0 or row.strength_high < 0)
        assert row.win_detected == (row.win_low > 0 or row.win_high < 0)
        assert -1 <= row.win_low <= row.win_high <= 1
    assert text.count("![") == 3 and "**`ranking.png`**" in text and "**`pairwise.png`**" in text
    hand = tournament_result_of(_duplicate_matches([[0, 1], [1, 0]])).markdown()
    assert "a vs b, head-to-head share minus 1/2: +0.0 pp [" in hand
    assert "no detectable difference" in hand and "a higher" not in hand
    # every comparison is worded by its adjusted interval: a finding exactly where it excludes 0
    for row in result.comparisons.itertuples(index=False):
        assert (row.verdict == "finding") == (row.adj_low > 0 or row.adj_high < 0) or \
            row.verdict == "equivalent"
        assert row.words in text


def test_luce_clustered_interval_by_hand():
    # Two players, a wins 60 of 100 matches: log strengths +-0.5 log(60 / 40) = +-0.20273;
    # the information of the difference is n p (1 - p) = 24 (se 0.20412), a's centred
    # half-width 1.959964 * 0.20412 / 2. One match per cluster: the sandwich's meat
    # sum (y - p)^2 = 60 * 0.4^2 + 40 * 0.6^2 = 24 equals the information H, so with the two
    # pseudo-deals, (102 / 101) (H + 2 H / 100) / ((1 + 2 / 100) H)^2 = (100 / 101) / H: the
    # clustered interval is the independent one times sqrt(100 / 101), exactly.
    participants = np.tile([0, 1], (100, 1))
    winners = np.array([0] * 60 + [1] * 40)
    fit = clustered_luce(participants, winners, 2, np.arange(100))
    log_s, low, high = luce_ranking(participants, winners, 2)
    assert fit.log_strength[0] == pytest.approx(0.5 * np.log(1.5))
    assert high[0] - log_s[0] == pytest.approx(1.959964 * 0.5 / np.sqrt(24), rel=1e-6)
    assert fit.high[0] - fit.log_strength[0] == pytest.approx(
        (high[0] - log_s[0]) * np.sqrt(100 / 101), rel=1e-9)
    d, d_low, d_high = fit.difference(0, 1)
    assert d == pytest.approx(np.log(1.5)) and d_high - d == pytest.approx(
        1.959964 / np.sqrt(24) * np.sqrt(100 / 101), rel=1e-6)
    independent = clustered_luce(participants, winners, 2, np.arange(100), robust=False)
    assert independent.high == pytest.approx(high, rel=1e-9)


def test_luce_clustered_interval_widens_with_correlated_deals_only():
    rng = np.random.default_rng(11)
    truth = np.log([1.0, 1.6, 0.7])
    matches = 6000
    participants = np.tile([0, 1, 2], (matches, 1))
    p = np.exp(truth) / np.exp(truth).sum()
    winners = rng.choice(3, size=matches, p=p)
    # One match per deal: the sandwich and the information agree to sampling error.
    one = clustered_luce(participants, winners, 3, np.arange(matches))
    plain = clustered_luce(participants, winners, 3, np.arange(matches), robust=False)
    ratio = (one.high - one.low) / (plain.high - plain.low)
    assert np.all(np.abs(ratio - 1) < 0.05)
    # Each deal decides its four matches alike (a deal's matches copies of one): the
    # independent interval of the 4x data is half as wide as it should be; the clustered
    # one is the one-match-per-deal interval exactly.
    k = 4
    copies = clustered_luce(np.repeat(participants, k, axis=0), np.repeat(winners, k), 3,
                            np.repeat(np.arange(matches), k))
    naive = clustered_luce(np.repeat(participants, k, axis=0), np.repeat(winners, k), 3,
                           np.repeat(np.arange(matches), k), robust=False)
    assert copies.high - copies.low == pytest.approx(one.high - one.low, rel=1e-9)
    assert np.all((copies.high - copies.low) / (naive.high - naive.low) > 1.9)


def test_duplicate_ranking_takes_the_deal_as_cluster(small_duplicate):
    result, _ = small_duplicate
    ranking, fit = match_ranking(result.matches, ["random", "greedy"], True)
    pd.testing.assert_frame_equal(ranking, result.ranking)
    assert fit.clusters == 300
    independent = tables_of(result.matches, names=("random", "greedy"))[2]
    # The same strengths as the per-seating sums' fit; another interval.
    assert ranking["log_strength"].to_numpy() == pytest.approx(
        independent["log_strength"].to_numpy(), abs=1e-8)


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


def test_tournament_figures_are_fit_for_print(small_duplicate, tmp_path, monkeypatch):
    """Every figure passes the print rules under the strict audit (width, text, overlaps,
    legend, intervals), each strategy has its colour, and the log axes of interval_width.png
    hold every point (a zero width once fell off them)."""
    import matplotlib.colors as mcolors

    import experiments.tools.tournament.plots as plots
    from experiments.reporting.figures import print_problems, save_png, strategy_colour

    monkeypatch.setenv("FIVE_UP_FIGURE_AUDIT", "strict")
    figures = {}

    def capture(figure, path):
        save_png(figure, path)  # raises on a figure that breaks a print rule
        figures[path.name.split(".")[1]] = figure

    monkeypatch.setattr(plots, "save_png", capture)
    result, _ = small_duplicate
    result.save(tmp_path / "again")
    assert set(figures) == {"pairwise", "ranking", "interval_width"}
    for name, figure in figures.items():
        assert print_problems(figure) == [], name
    ax = figures["ranking"].axes[0]
    colours = {mcolors.to_hex(c.lines[0].get_color()) for c in ax.containers}
    assert colours == {strategy_colour("random"), strategy_colour("greedy")}
    # the rank intervals are in the labels
    assert {t.get_text() for t in ax.get_yticklabels()} == {
        f"{r.strategy} [{r.rank_low}, {r.rank_high}]" for r in result.ranking.itertuples()}
    ax = figures["interval_width"].axes[0]
    low, high = ax.get_ylim()
    for line in ax.get_lines():
        y = np.asarray(line.get_ydata(), dtype=float)
        assert np.all((y >= low) & (y <= high)), line.get_label()
        if line.get_label() in ("random", "greedy"):
            assert mcolors.to_hex(line.get_color()) == strategy_colour(line.get_label())
    # random's and greedy's widths are the same (their win rates are complements): drawn once,
    # the legend naming random once and the two kinds of interval in grey
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels.count("random") == 1 and "greedy" not in labels
    assert "paired (deals as clusters)" in labels and "Wilson (matches independent)" in labels


def test_a_sequential_run_figure_is_fit_for_print(tmp_path, monkeypatch):
    import experiments.tools.tournament.plots as plots
    from experiments.reporting.figures import print_problems
    from experiments.tools.tournament.sequential import separation

    monkeypatch.setenv("FIVE_UP_FIGURE_AUDIT", "strict")
    path = separation(np.r_[np.ones(30), np.full(30, 0.5)])
    drawn = []
    save = plots.save_png
    monkeypatch.setattr(plots, "save_png", lambda fig, p: (drawn.append(fig), save(fig, p)))
    plots.plot_sequence(path, ("greedy", "random"), 12, tmp_path / "sequential.png",
                        "60 deals, seed 1")
    assert print_problems(drawn[0]) == [] and drawn[0].get_figwidth() == pytest.approx(3.5)
    # the old figure's band had no curve of its own: an estimate without its interval
    monkeypatch.setattr(plots, "band", lambda ax, x, y, low, high, color, label: ax.plot(
        x, y, "o", color=color, label=label))
    with pytest.raises(ValueError, match="without intervals"):
        plots.plot_sequence(path, ("greedy", "random"), 12, tmp_path / "again.png")


def test_the_plan_is_written_when_the_directory_is_claimed_and_declares_every_comparison(
        small_duplicate, tmp_path):
    from experiments.tools.tournament.plan import plan_for
    from experiments.tools.tournament.run import claim_tournament

    result, out = small_duplicate
    plan = plan_for(result.config.as_dict())
    assert json.loads((out / "plan.json").read_text()) == json.loads(json.dumps(plan.to_json()))
    # written at the claim, before anything plays
    config = TournamentConfig.build(2, ["random", "greedy", "exact"], 5, 1, duplicate=True,
                                    out=tmp_path / "claimed")
    claim_tournament(config)
    assert sorted(p.name for p in (tmp_path / "claimed").iterdir()) == ["plan.json", "run.json"]
    three = plan_for(config.as_dict())
    # the field read as a ladder: each strategy against the next one listed is primary
    assert [c.id for c in three.comparisons if c.family == "primary"] == [
        "2p | random vs greedy | head-to-head share", "2p | greedy vs exact | head-to-head share"]
    assert three.family_size("exploratory") == 1 + 3  # random vs exact; three log strengths
    compared = pd.read_csv(out / "comparisons.csv")
    assert sorted(compared["id"]) == sorted(c.id for c in plan.comparisons)

def test_a_comparison_the_plan_does_not_declare_is_refused(small_duplicate, monkeypatch):
    from experiments.comparisons import ComparisonPlan
    from experiments.tools.tournament import plan as tournament_plan

    result, _ = small_duplicate
    declared = tournament_plan.plan_for(result.config.as_dict())
    fewer = ComparisonPlan(declared.study, declared.quantities, declared.comparisons[:-1])
    monkeypatch.setattr(tournament_plan, "plan_for", lambda settings: fewer)
    with pytest.raises(ValueError, match="not declared"):
        tournament_plan.comparisons_table(result.config.as_dict(), result.pairwise_ci,
                                          result.fit)


def test_simultaneous_rank_intervals_by_hand():
    from experiments.stats import LuceFit
    from experiments.tools.tournament.tables import luce_rank_intervals

    # three strategies, independent strengths with se 0.1 each: a gap of 1 is resolved, 0.05 not
    cov = np.diag([0.01, 0.01, 0.01])
    fit = LuceFit(np.array([1.0, 0.05, 0.0]), None, None, cov, 100)
    low, high = luce_rank_intervals(fit)
    assert low.tolist() == [1, 2, 2] and high.tolist() == [1, 3, 3]
    # simultaneous: wider than one pair at 95% alone (1.96 x 0.1414 = 0.277 resolves 0.3)
    fit = LuceFit(np.array([0.3, 0.0, -5.0]), None, None, cov, 100)
    low, high = luce_rank_intervals(fit)
    assert low.tolist() == [1, 1, 3] and high.tolist() == [2, 2, 3]


def test_readmes_tournament_table_gives_the_designs_intervals(small_duplicate, tmp_path):
    """README's tournament block: the deal-clustered interval of a duplicate tournament (never
    Wilson over matches that share deals) and each rank's simultaneous interval."""
    import shutil

    from experiments.release.readme_numbers import tournament_ranking

    result, out = small_duplicate
    shutil.copytree(out, tmp_path / "tournament")
    text = tournament_ranking(tmp_path)
    assert "| rank [simultaneous 95%] | strategy | win rate [95%, deal-clustered] |" in text
    assert "Wilson" not in text
    paired = result.paired.set_index("strategy")
    for row in result.ranking.itertuples():
        p = paired.loc[row.strategy]
        assert (f"| {row.rank} [{row.rank_low}, {row.rank_high}] | {row.strategy} | "
                f"{p.win_rate:.3f} [{p.paired_low:.3f}, {p.paired_high:.3f}] |") in text
