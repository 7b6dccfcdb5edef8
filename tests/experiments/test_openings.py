"""Openings by what matters: win-probability values, score states, the gain's range and playouts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import re

from experiments.mixed_tables import Table
from experiments.reporting import figures
from experiments.studies import opening_leads
from core import state as K
from core.rng import secret_key, stream_key, word_at
from sim.engine.spec import RunSpec
from sim.study_kernels import dealt_rounds as DR
from sim.study_kernels.openings import (
    LEAD_LOT,
    LEAD_OTHER,
    LEAD_OWN,
    counterfactual_deal,
    hand_mask,
    hand_tiles,
    opening_counterfactual,
    replay_round,
    table_half_width,
    win_probability,
)
from core.tiles import HAND_SIZE, TARGET_RAW
from strategies import winprob_table
from strategies.catalogue import resolve
from strategies.definition import variant
from strategies.winprob_table import WIN_TABLE
from tests.support.plugins import call_cli, one_line

SEED = 17
HAND = ["5-5", "4-6", "0-3", "1-2", "2-6"]


# ---------------------------------------------------------------------------
# The win-probability value of a state
# ---------------------------------------------------------------------------
def test_win_probability_reads_the_table_cells():
    # displayed cells 40 and 20 (raw 200, 100), each lead; a side on 305 raw has won
    for lead in (LEAD_OWN, LEAD_OTHER, LEAD_LOT):
        assert win_probability(2, 200, 100, lead) == pytest.approx(float(WIN_TABLE[0, 40, 20, lead]))
        assert win_probability(4, 200, 100, lead) == pytest.approx(float(WIN_TABLE[1, 40, 20, lead]))
    assert win_probability(2, TARGET_RAW, 100, LEAD_LOT) == 1.0
    assert win_probability(2, 100, TARGET_RAW, LEAD_OWN) == 0.0
    # the 4-player partner debit can leave a side below 0: looked up as 0
    assert win_probability(4, -15, 100, LEAD_OWN) == pytest.approx(float(WIN_TABLE[1, 0, 20, 0]))
    assert np.isnan(win_probability(3, 100, 100, LEAD_OWN))
    with pytest.raises(ValueError, match="above 305"):
        win_probability(2, 310, 0, LEAD_OWN)


def test_the_table_error_is_its_largest_half_width_over_the_starting_states(monkeypatch):
    half = np.full(WIN_TABLE.shape, 0.01, dtype=np.float32)
    half[0, 40, 20, 2] = 0.03  # 2 players: the largest below 61
    half[0, 61, 0, 0] = 0.5  # a won side's row is not a state a round starts from
    half[1, 10, 10, 1] = 0.02
    monkeypatch.setattr(winprob_table, "WIN_TABLE_HALF_WIDTH", half, raising=False)
    assert table_half_width(2) == pytest.approx(0.03)
    assert table_half_width(4) == pytest.approx(0.02)
    assert np.isnan(table_half_width(3))
    settings = {"players": [2, 3, 4], "table_replicates": 200, "win_table": "abc"}
    note = opening_leads.win_table_note(settings)
    assert "0.0300 at 2 players, 0.0200 at 4 players" in note and "200 of the table's" in note
    assert "without the table's own error" in opening_leads.win_table_note(
        {**settings, "table_replicates": 0})


@pytest.mark.parametrize("players,scores", [(2, [200, 150]), (4, [275, 150])])
def test_playout_win_probability_is_the_table_at_the_replayed_end_state(compiled_engine, players,
                                                                        scores):
    """Each playout replayed by hand from its deal and decision stream: the end scores and the
    next leader (the dominoer's side, or the lot after a block) give the table cell."""
    playouts = 3
    result = opening_counterfactual(players, "greedy", hands=[HAND], playouts=playouts, seed=SEED,
                                    scores=scores)
    mask = hand_mask(HAND)
    row = 0 if players == 2 else 1
    own_seats = (0,) if players == 2 else (0, 2)
    decision = stream_key(np.int64(SEED), np.int64(0), np.int64(DR.STREAM_CF_DECISION))
    checked = 0
    for k in range(playouts):
        deal = counterfactual_deal(SEED, 0, mask, k)
        for slot in range(HAND_SIZE):
            stats = replay_round(players, ["greedy"] * players, deal, 0, scores=scores,
                                 forced_tile=int(result.tiles[0, slot]),
                                 rng_key=int(word_at(decision, np.int64(k))))
            own, other = int(stats[K.R_SCORE]), int(stats[K.R_SCORE + 1])
            if own == TARGET_RAW or other == TARGET_RAW:
                expected = 1.0 if own == TARGET_RAW else 0.0
            else:
                if stats[K.R_END] == K.END_DOMINO:
                    lead = 0 if int(stats[K.R_DOMINOER]) in own_seats else 1
                else:
                    lead = 2
                expected = float(WIN_TABLE[row, max(own, 0) // 5, max(other, 0) // 5, lead])
            assert result.win_prob[0, slot, k] == pytest.approx(expected)
            diff = (own - scores[0]) - (other - scores[1])
            assert result.diff[0, slot, k] == pytest.approx(diff / 5.0)
            checked += 1
    assert checked == HAND_SIZE * playouts


def unsigned(word) -> int:
    """A 64-bit stream word (signed or not) as the unsigned key ``replay_round`` takes."""
    return int(word) & (2**64 - 1)


@pytest.mark.parametrize("secret", [None, "0123456789abcdef0123456789abcdef"])
def test_playouts_from_start_scores_are_replays_of_their_rounds(compiled_engine, secret):
    """Away from scores 0, every playout (and the baseline's opening) is the round the replay
    kernel plays from the same deal, start scores and decision stream, with or without a run
    secret (it keys the streams of both the same way)."""
    players, hands, playouts, scores = 2, 4, 3, [270, 295]  # near 305: the scores change play
    cf = opening_counterfactual(players, "random", hands=hands, playouts=playouts, seed=SEED,
                                baseline="random", scores=scores, secret=secret)
    secret_words = RunSpec.build(2, ["random", "random"], 1, SEED, secret=secret).secret_words
    start = np.zeros(K.MAX_ENTITIES, dtype=np.int64)
    start[:players] = scores
    for h in range(hands):
        decision_key = np.uint64(stream_key(np.int64(SEED), np.int64(h), np.int64(DR.STREAM_CF_DECISION)))
        baseline = replay_round(players, "random,random", counterfactual_deal(SEED, h, cf.hands[h], 0),
                                0, start, rng_key=unsigned(secret_key(decision_key, secret_words)))
        assert int(baseline[K.R_OPENING_TILE]) == cf.baseline_tile[h]
        for k in range(playouts):
            deal = counterfactual_deal(SEED, h, cf.hands[h], k)
            key = unsigned(secret_key(np.uint64(word_at(decision_key, np.int64(k))), secret_words))
            for slot in range(HAND_SIZE):
                stats = replay_round(players, "random,random", deal, 0, start,
                                     forced_tile=int(cf.tiles[h, slot]), rng_key=key)
                assert int(stats[K.R_OPENING_TILE]) == cf.tiles[h, slot]
                assert cf.diff[h, slot, k] == (int(stats[K.R_GAIN]) - int(stats[K.R_GAIN + 1])) / 5.0
                assert cf.leader_won[h, slot, k] == (int(stats[K.R_WINNER]) == 0)
                assert cf.ends[h, slot, k] == int(stats[K.R_END])


def test_a_secret_changes_the_decisions_of_the_counterfactual_not_its_deals(compiled_engine):
    """``random`` draws from its decision stream: keyed by a secret it plays other rounds from
    the same hands and re-deals."""
    plain = opening_counterfactual(2, "random", hands=4, playouts=8, seed=SEED, baseline="random")
    keyed = opening_counterfactual(2, "random", hands=4, playouts=8, seed=SEED, baseline="random",
                                   secret="0123456789abcdef0123456789abcdef")
    assert np.array_equal(plain.hands, keyed.hands)
    assert not np.array_equal(plain.diff, keyed.diff)


def test_start_scores_are_checked():
    for bad in ([10, 0, 0], [301, 0], [3, 0], [-5, 0]):
        with pytest.raises(ValueError, match="score"):
            opening_counterfactual(2, "greedy", hands=1, playouts=2, scores=bad)


# ---------------------------------------------------------------------------
# The gain: in-sample and held out, against the playouts
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_cf(compiled_engine):
    return opening_counterfactual(4, "greedy", hands=30, playouts=16, seed=SEED, scores=[200, 200])


@pytest.mark.parametrize("value", ["diff", "win_prob"])
def test_in_sample_gain_is_the_best_of_the_means_and_beats_the_held_out_pick(small_cf, value):
    data = small_cf.values(value).astype(np.float64)
    base = small_cf.baseline_slot()
    rows = np.arange(data.shape[0])
    hands = small_cf.per_hand(value)
    mean = data.mean(axis=2)
    pick = data[:, :, 0::2].mean(axis=2).argmax(axis=1)
    held = data[:, :, 1::2].mean(axis=2)
    assert np.allclose(hands["gain"], mean.max(axis=1) - mean[rows, base])
    assert np.allclose(hands["gain_heldout"], held[rows, pick] - held[rows, base])
    # by construction: the in-sample gain is at least 0 and at least what the held-out pick
    # gains on the same (all) playouts
    assert (hands["gain"] >= 0).all()
    assert (hands["gain"].to_numpy() + 1e-12 >= mean[rows, pick] - mean[rows, base]).all()
    # and, on these data, the in-sample mean gain exceeds the held-out one
    assert hands["gain"].mean() > hands["gain_heldout"].mean()


def test_gain_by_playouts_uses_the_first_playouts(small_cf):
    table = small_cf.gain_by_playouts([4, 16])
    full = small_cf.per_hand()
    at16 = table[table.playouts == 16]
    assert np.allclose(at16["gain"], full["gain"]) and np.allclose(at16["gain_heldout"],
                                                                   full["gain_heldout"])
    first = small_cf.diff[:, :, :4]
    rows, base = np.arange(first.shape[0]), small_cf.baseline_slot()
    odd = first[:, :, 1::2].mean(axis=2)
    pick = first[:, :, 0::2].mean(axis=2).argmax(axis=1)
    assert np.allclose(table[table.playouts == 4]["gain_heldout"],
                       odd[rows, pick] - odd[rows, base])
    with pytest.raises(ValueError, match="within 2..16"):
        small_cf.gain_by_playouts([17])


@pytest.fixture(scope="module")
def result(compiled_engine):
    return opening_leads.run([2, 3, 4], ["greedy"], 40, SEED, hands=10, playouts=8,
                        score_states="55-30,40-40")


def test_gain_table_at_full_playouts_is_the_main_figure(result):
    gain = result.frames["cf_gain"]
    summary = result.frames["cf_summary"].set_index("players")
    assert opening_leads.gain_playouts(8) == [2, 4, 8]
    for players in (2, 3, 4):
        row = gain[(gain.state == "0-0") & (gain.value == "diff") & (gain.players == players)
                   & (gain.playouts == 8)].iloc[0]
        main = summary.loc[players]
        for ours, theirs in (("insample_mean", "gain_mean"), ("insample_low", "gain_low"),
                             ("heldout_mean", "gain_heldout_mean"),
                             ("heldout_low", "gain_heldout_low"),
                             ("heldout_high", "gain_heldout_high"),
                             ("baseline_is_best", "baseline_is_best")):
            assert row[ours] == pytest.approx(main[theirs]), ours
    # every state, player count and value; win probability only where the table exists
    kinds = set(map(tuple, gain[["state", "players", "value"]].drop_duplicates().to_numpy()))
    assert kinds == {(s, p, v) for s in ("0-0", "55-30", "40-40") for p in (2, 3, 4)
                     for v in opening_leads.value_kinds(p)}
    assert list(dict.fromkeys(gain["state"])) == ["0-0", "55-30", "40-40"]


def test_tile_values_and_ranks(result):
    values = result.frames["cf_values"]
    for _, sel in values.groupby(["state", "players", "value"]):
        held = sel[sel.hands > 0]
        # the hands' five relative values sum to zero, so the hand-weighted mean is zero
        assert (held["relative_mean"] * held["hands"]).sum() == pytest.approx(0, abs=1e-9)
        assert held["rank"].min() == 1 and sel[sel.hands == 0]["rank"].isna().all()
        win = sel[sel.value == "win_prob"]
        assert ((win["low"] >= -1e-9) | win["low"].isna()).all()
        # every held tile has a rank interval within 1 .. the tiles held
        assert (held["rank_low"] >= 1).all() and (held["rank_high"] <= len(held)).all()
        assert (held["rank_low"] <= held["rank_high"]).all()
    # the summary names a best tile only where its rank interval is [1, 1]
    for players in (2, 4):
        block = values[(values.state == "55-30") & (values.players == players)
                       & (values.value == "win_prob")]
        best, _ = opening_leads.extremes(block)
        claim = result.key_numbers[f"counterfactual {players}p: best opening by match-win "
                                   "probability per state (simultaneous rank interval [1, 1])"]
        if best:
            assert f"55-30 {best[0]}" in claim
        else:
            reach = block[block.rank_low == 1].tile
            assert (f"55-30 none of {'/'.join(reach)}" in claim if len(reach) <= 4
                    else f"55-30 none ({len(reach)} tiles' rank intervals reach 1)" in claim)
    assert "## Ranks by match-win probability" in result.markdown
    assert "Plots:" not in result.markdown
    # the match-win values carry the win table's error: wider than the hands' intervals
    win = values[(values.value == "win_prob") & (values.hands > 1)]
    assert result.settings["table_replicates"] >= 2
    assert (win["relative_table_se"] > 0).all()
    assert ((win["relative_high"] - win["relative_low"])
            > (win["relative_hands_high"] - win["relative_hands_low"])).all()
    diff = values[(values.value == "diff") & (values.hands > 0)]
    assert (diff["relative_table_se"] == 0).all()
    for name in ("opening_tiles", "counterfactual", "state_values", "gain_playouts"):
        assert f"![{name}]({name}.png)" in result.markdown


def test_comparisons_are_the_plans_adjusted_and_worded_by_their_verdicts(result):
    plan = opening_leads.plan_for(result.settings)
    comparisons = result.frames["comparisons"]
    declared = {c.id: c for c in plan.comparisons}
    assert set(comparisons["id"]) <= set(declared)
    primary = [c.id for c in plan.comparisons if c.family == "primary"]
    # per player count: greedy's lead effect on the match, and the held-out gain per value
    assert len(primary) == 3 + (3 + 2)
    assert set(primary) == set(comparisons[comparisons.family == "primary"]["id"])
    for row in comparisons.itertuples():
        assert row.words.startswith(f"{row.a} - {row.b}")
        ends = {"finding": ("higher", "lower"), "equivalent": ("equivalent within",),
                "inconclusive": ("no detectable difference",)}[row.verdict]
        assert any(end in row.words for end in ends), row.words
    tiles = comparisons[comparisons.quantity.str.startswith("tile_")]
    assert len(tiles) == result.frames["cf_values"]["hands"].gt(0).sum() + \
        result.frames["cf_strong"]["hands"].gt(0).sum()
    assert "Comparisons declared before the run" in result.markdown
    for row in result.frames["cf_values"].dropna(subset=["rank"]).itertuples():
        assert row.verdict in ("finding", "equivalent", "inconclusive")


def test_every_figure_prints(result, tmp_path, monkeypatch):
    monkeypatch.setenv(figures.AUDIT_ENV, "strict")
    for name, plot in result.plots.items():
        plot(tmp_path / f"{name}.png")  # save_png raises on a figure that breaks a rule
        assert (tmp_path / f"{name}.png").is_file()


def test_a_strong_continuation_runs_at_the_small_size(result):
    """rollout and matchplay continue the forced openings (default: hands // 50 and
    playouts // 10, at least 2 each) beside greedy; every continuation has its gain rows and
    its tile values with rank intervals."""
    s = result.settings
    assert s["strong_continuations"] == ["rollout", "matchplay"]
    assert (s["strong_hands"], s["strong_playouts"]) == (2, 2)
    runs = result.frames["cf_continuations"]
    assert set(runs["continuation"]) == {"greedy", "rollout", "matchplay"}
    strong = runs[runs.continuation != "greedy"]
    assert (strong["hands"] == 2).all() and (strong["playouts"] == 2).all()
    values = result.frames["cf_strong"]
    assert set(values["continuation"]) == {"rollout", "matchplay"}
    for _, sel in values.groupby(["continuation", "players", "value"]):
        assert sel["hands"].sum() == 2 * HAND_SIZE
        assert sel.dropna(subset=["rank"])["rank_low"].min() == 1
    features = result.frames["cf_features"]
    for (_c, _p, _v, _f), sel in features.groupby(["continuation", "players", "value",
                                                   "feature"]):
        assert sel["hands"].sum() == (10 if _c == "greedy" else 2)  # every hand in one bucket
    assert "## Continuations: who plays the round out" in result.markdown


def test_hand_features_by_hand():
    hands = [["5-5", "4-6", "0-3", "1-2", "2-6"], ["0-0", "1-1", "0-1", "0-2", "1-3"]]
    tiles = np.array([hand_tiles(hand_mask(h)) for h in hands])
    features = opening_leads.hand_features(tiles)
    # pips 10+10+3+3+8 = 34; one double; 5-5 and 4-6 score when led
    assert features.iloc[0].to_dict() == {"doubles": "1", "pips": "25-34", "scoring": "2+",
                                          "big": "yes"}
    # pips 0+2+1+2+4 = 9; two doubles; nothing sums to 5 or 10
    assert features.iloc[1].to_dict() == {"doubles": "2+", "pips": "<25", "scoring": "0",
                                          "big": "no"}


# ---------------------------------------------------------------------------
# Rank intervals and best / worst claims (synthetic hands, known truth)
# ---------------------------------------------------------------------------
def synthetic_per_tile(values, hands=3000, noise=0.5, seed=3):
    """per_tile rows of random 5-tile hands whose tile t is worth ``values[t]`` plus noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for h in range(hands):
        tiles = rng.choice(28, size=5, replace=False)
        for t in tiles:
            rows.append({"hand": h, "tile": opening_leads.TILE_NAMES[t],
                         "mean_diff": values[t] + rng.normal(0, noise), "is_best": False,
                         "is_baseline": False})
    frame = pd.DataFrame(rows)
    frame["tile"] = pd.Categorical(frame["tile"], categories=opening_leads.TILE_NAMES)
    return frame


def test_rank_intervals_cover_the_true_ranks_and_name_a_clear_best_and_worst():
    truth = np.arange(28, dtype=float)  # tile t is worth t: 6-6 best, 0-0 worst
    table = opening_leads.tile_values(synthetic_per_tile(truth), seed=1, resamples=200)
    true_rank = 28 - np.arange(28)
    assert ((table["rank_low"] <= true_rank) & (true_rank <= table["rank_high"])).all()
    assert opening_leads.extremes(table) == (["6-6"], ["0-0"])
    words = opening_leads.ranking_sentence(table, 2)
    assert words.startswith("best: 6-6") and "worst: 0-0" in words
    # relative to the hand's mean: a paired contrast by hand, (4/5)(t - mean of the others)
    assert table.set_index("tile").loc["6-6", "relative_low"] > 0
    assert table.set_index("tile").loc["0-0", "relative_high"] < 0


def test_the_win_tables_error_widens_intervals_and_rank_intervals():
    """Tile values in match-win probability share the win table's error: recomputed under
    replicate tables that move each tile's value by a common error (sd 0.01, larger than the
    tiles' spacing and than the hands' noise), every interval widens, a best tile that the hands
    alone would name is no longer claimed, and a difference smaller than the table's error
    no longer excludes 0."""
    truth = np.arange(28) * 0.002
    per_tile = synthetic_per_tile(truth, noise=0.0005)
    shifts = np.random.default_rng(5).normal(0, 0.01, (30, 28))
    codes = per_tile["tile"].cat.codes.to_numpy()
    slot_means = (per_tile["mean_diff"].to_numpy()[None, :] + shifts[:, codes]).reshape(30, -1, 5)
    alone = opening_leads.tile_values(per_tile, seed=1, resamples=100)
    shared = opening_leads.tile_values(per_tile, seed=1, resamples=100,
                                       table_slot_means=slot_means)
    assert (alone["relative_table_se"] == 0).all() and (shared["relative_table_se"] > 0.004).all()
    width = shared["relative_high"] - shared["relative_low"]
    hands_width = shared["relative_hands_high"] - shared["relative_hands_low"]
    assert (width > 2 * hands_width).all()
    np.testing.assert_allclose(alone["relative_high"] - alone["relative_low"], hands_width)
    assert opening_leads.extremes(alone)[0] == ["6-6"]
    assert opening_leads.extremes(shared)[0] == []
    assert (shared["rank_high"] - shared["rank_low"] > alone["rank_high"] - alone["rank_low"]).any()
    small = shared[(shared.relative_hands_low > 0) & (shared.relative_mean < 0.005)]
    assert len(small) and (small.relative_low < 0).all()  # below the table's error: not a finding


def test_table_spread_recomputes_the_counterfactual_under_each_table(small_cf):
    """Under the shipped table itself the spread is the counterfactual's own figures; under a
    table shifted by a constant the means move by it and the gains do not."""
    from sim.study_kernels.openings import table_spread

    table = WIN_TABLE.astype(np.float64)
    shifted = table + 0.01
    spread = table_spread(small_cf, [table, shifted], [4, 16])
    np.testing.assert_allclose(spread.slot_means[0], small_cf.win_prob.mean(axis=2), atol=1e-6)
    np.testing.assert_allclose(spread.slot_means[1], spread.slot_means[0] + 0.01, atol=1e-6)
    by_playouts = small_cf.gain_by_playouts([4, 16], "win_prob")
    for i, m in enumerate((4, 16)):
        rows = by_playouts[by_playouts.playouts == m]
        np.testing.assert_allclose(spread.gain[0, i], rows["gain"], atol=1e-6)
        np.testing.assert_allclose(spread.heldout[1, i], rows["gain_heldout"], atol=1e-6)
        np.testing.assert_array_equal(spread.baseline_is_best[1, i], rows["baseline_is_best"])


def test_no_best_or_worst_is_claimed_when_the_rank_intervals_overlap():
    truth = np.arange(28, dtype=float)
    truth[27] = truth[26] = 30.0  # 5-6 and 6-6 tie at the top
    truth[0] = truth[1] = -5.0  # 0-0 and 0-1 tie at the bottom
    table = opening_leads.tile_values(synthetic_per_tile(truth), seed=1, resamples=200)
    assert opening_leads.extremes(table) == ([], [])
    words = opening_leads.ranking_sentence(table, 2)
    assert words.startswith("no single best") and "no single worst" in words
    top = table.set_index("tile").loc[["5-6", "6-6"]]
    assert (top["rank_low"] == 1).all() and (top["rank_high"] == 2).all()


# ---------------------------------------------------------------------------
# Observed openings: a strategy counted once per round, intervals by deal
# ---------------------------------------------------------------------------
def synthetic_rounds(diffs, rotations=2, shift=0.0):
    """2-player round-0 rows: deal d led by entity 0 with opening 5-5 and differential
    ``diffs[d]`` displayed points, repeated in ``rotations`` rotations (rotation r adds
    ``r * shift``), the leader's side winning the match."""
    rows = []
    for r in range(rotations):
        for d, x in enumerate(diffs):
            rows.append({"rotation": r, "match": d, "round": 0, "opening": "5-5",
                         "opening_points": 10, "raw_0": 5 * (x + r * shift), "raw_1": 0,
                         "leader_entity": 0, "match_winner": 0})
    return pd.DataFrame(rows)


def test_a_strategy_leading_a_round_in_two_rotations_counts_once():
    diffs = [1.0, 2.0, 3.0, 6.0]
    once = opening_leads.observed_tiles(synthetic_rounds(diffs, rotations=1), "greedy", 2)
    twice = opening_leads.observed_tiles(synthetic_rounds(diffs, rotations=2), "greedy", 2,
                                    "exact vs greedy")
    for table in (once, twice):
        row = table.set_index("tile").loc["5-5"]
        assert row["first_n"] == 4 and row["any_n"] == 4  # n = rounds, not rows
        # mean 3, sd sqrt(14/3), t(3) = 3.182: the interval over the 4 deals
        half = 3.182446 * np.sqrt(14 / 3) / 2
        assert row["first_diff_mean"] == pytest.approx(3.0)
        assert row["first_diff_low"] == pytest.approx(3.0 - half, rel=1e-5)
        assert row["first_diff_high"] == pytest.approx(3.0 + half, rel=1e-5)
        assert row["first_win_rate"] == 1.0 and row["first_finished"] == 4
    # two rotations that differ: their mean is the deal's one value
    shifted = opening_leads.observed_tiles(synthetic_rounds(diffs, rotations=2, shift=2.0),
                                      "greedy", 2).set_index("tile").loc["5-5"]
    assert shifted["first_n"] == 4 and shifted["first_diff_mean"] == pytest.approx(4.0)


def lead_rounds(winner_when_a_leads, winner_when_b_leads, diffs):
    """A 2-player table A,B of first rounds: deal d is played in both rotations (rotation 0:
    A is entity 0; rotation 1: B is entity 0), entity 0 always leads and gains ``diffs[d]``
    displayed points; the match winner is entity 0 where the leader wins."""
    rows = []
    for rotation, winners in ((0, winner_when_a_leads), (1, winner_when_b_leads)):
        for d, (x, leader_wins) in enumerate(zip(diffs, winners)):
            rows.append({"rotation": rotation, "match": d, "round": 0, "opening": "5-5",
                         "opening_points": 10, "raw_0": 5 * x, "raw_1": 0, "leader_entity": 0,
                         "match_winner": 0 if leader_wins else 1})
    return pd.DataFrame(rows)


class TableData:
    """A stand-in for :class:`experiments.sources.TableData`."""

    def __init__(self, names, data):
        self.rotations = Table(names).rotations(2)
        self.data = data


def test_the_lead_is_measured_within_each_strategy_not_between_two():
    """A strong A beats B whichever leads: the old "A leading - B leading" is the strength gap
    (twice A's edge), while within each strategy leading minus following is the lead's own
    value, and the strength gap is reported apart."""
    diffs = [2.0, 4.0, 6.0, 0.0]
    # A wins every deal it leads and 3 of 4 it follows (B leading): A's edge is large, the lead
    # is worth 1 deal in 4 to each
    data = lead_rounds([True] * 4, [False, False, False, True], diffs)
    effects, gaps = opening_leads.table_lead_frames(TableData(("A", "B"), data), "A vs B", 2)
    won = effects[effects.quantity == "won"].set_index("strategy")
    assert won.loc["A", "difference"] == pytest.approx(1.0 - 0.75)  # leads 4/4, follows 3/4
    # B leads 1/4 and follows 0/4: the same +1/4, as at two sides always; stated once
    assert list(won.index) == ["A"]
    assert (won["deals"] == 4).all()
    gap = gaps[gaps.quantity == "won"].iloc[0]
    assert (gap.a, gap.b) == ("A", "B") and gap.difference == pytest.approx(0.875 - 0.125)
    # the old confounded contrast, A leading - B leading, was 1 - 0.25 = 0.75: the gap, not the lead
    # (B leading is A following: 1 - 0.75 = 0.25)
    assert won.loc["A", "leading"] - (1 - won.loc["A", "following"]) == pytest.approx(
        gap.difference)
    # the differential: the leader gains x, the follower -x, on both rotations
    diff = effects[effects.quantity == "diff"].set_index("strategy")
    assert diff.loc["A", "difference"] == pytest.approx(2 * np.mean(diffs))
    assert list(diff.index) == ["A"]


def test_self_play_lead_effect_is_leader_minus_follower_on_each_deal():
    rounds = lead_rounds([True, False, True, True], [True] * 4, [1.0, 2.0, 3.0, 6.0])
    rounds = rounds[rounds.rotation == 0].drop(columns="rotation")
    rounds.loc[rounds.index[3], "match_winner"] = -1  # unfinished: left out of the win share
    frame = opening_leads.self_play_lead_effects(rounds, "greedy", 2).set_index("quantity")
    assert frame.loc["won", "deals"] == 3
    # leader wins 2 of 3 finished deals, the follower 1: +1/3
    assert frame.loc["won", "difference"] == pytest.approx(2 / 3 - 1 / 3)
    assert frame.loc["diff", "difference"] == pytest.approx(2 * 3.0)  # leader +x, follower -x
    assert frame.loc["diff", "deals"] == 4


def test_lead_effects_at_mixed_tables_are_self_plays_not_the_strength_gap(compiled_engine):
    """greedy against a copy of itself under another name gives self-play's lead effect on the
    same deals, exactly; weighted against greedy gives lead effects of self-play's size while
    the strength gap (reported apart) is several times larger."""
    twin = variant(resolve("greedy"), name="greedy_twin")
    matches = 1500
    result = opening_leads.run([2], ["greedy", "weighted"], matches, SEED, hands=0,
                               tables=[[twin, "greedy"], "weighted,greedy"],
                               table_matches=matches)
    effects = result.frames["lead_effects"]
    won = effects[effects.quantity == "won"]
    self_play = won[won.table == "self-play"].set_index("strategy")["difference"]
    twin = won[won.table.str.contains("greedy_twin")].set_index("strategy")["difference"]
    assert list(twin.index) == ["greedy_twin"]  # at two sides: one lead effect per table
    assert twin["greedy_twin"] == pytest.approx(self_play["greedy"], abs=1e-12)
    mixed = won[won.table == "weighted vs greedy"].set_index("strategy")
    gap = result.frames["strength_contrasts"]
    gap = gap[(gap.table == "weighted vs greedy") & (gap.quantity == "won")].iloc[0]
    assert gap.difference > 0.3  # weighted is much stronger
    assert list(mixed.index) == ["weighted"]
    for name in ("weighted", "greedy"):
        assert abs(mixed.loc["weighted", "difference"] - self_play[name]) < 0.1
    assert abs(mixed.loc["weighted", "difference"]) < gap.difference / 2
    # no "A leading - B leading" of two strategies anywhere in the summary or key numbers
    text = result.markdown + "\n".join(f"{k}: {v}" for k, v in result.key_numbers.items())
    pairs_ = re.findall(r"(\S+) leading - (\S+) (?:leading|following)", text)
    assert pairs_ and all(a == b for a, b in pairs_)


def test_score_states_are_deterministic(compiled_engine):
    settings = opening_leads.settings_for([2], ["greedy"], 10, 5, 4, 6, "greedy", "greedy",
                                     "30-55")
    one = opening_leads.state_tables(settings, threads=1)
    two = opening_leads.state_tables(settings, threads=2)
    for name in ("values", "gain"):
        pd.testing.assert_frame_equal(one[0][name], two[0][name])


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------
def test_parse_score_states():
    assert opening_leads.parse_score_states("55-30, 40-40") == [(0, 0), (55, 30), (40, 40)]
    assert opening_leads.parse_score_states([(30, 55), (0, 0)]) == [(0, 0), (30, 55)]
    assert opening_leads.state_raw_scores(3, (55, 30)) == [275, 150, 150]
    for bad, words in (("55", "OWN-OTHER"), ("a-b", "OWN-OTHER"), ("61-0", "0..60"),
                       ("40-40,40-40", "repeat"), ([(1, 2, 3)], "pairs")):
        with pytest.raises(ValueError, match=words):
            opening_leads.parse_score_states(bad)


def test_bad_score_states_on_the_command_line_is_one_line(tmp_path):
    run = call_cli("openings", "--players", "2", "--matches", "10", "--score-states", "70-10",
                   "--out", tmp_path / "out", "--quiet")
    one_line(run, 2, "70-10", "0..60")
    assert not (tmp_path / "out").exists()
