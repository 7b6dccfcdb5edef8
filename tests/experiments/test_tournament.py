"""Tournament runner: seatings, duplicate deals, summaries, reproducibility, CLI."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from experiments.tournament import pairings, tournament
from experiments.tournament.shards import frame_aggregate
from experiments.tournament.tables import entity_frame, paired_win_rates, tournament_tables


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
    result, out = small_duplicate
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
                          capture_output=True, text=True)


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


def test_entity_frame_rows(small_duplicate):
    result, _ = small_duplicate
    assert len(result.entities) == 2 * len(result.matches)
    assert np.array_equal(np.sort(result.entities["entity"].unique()), [0, 1])
