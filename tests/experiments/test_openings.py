"""Openings by what matters: win-probability values, score states, the gain's range and playouts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments import openings
from sim.core import state as K
from sim.core.rng import stream_key, word_at
from sim.engine import playouts as PO
from sim.engine.compiled import CompiledRun
from sim.engine.spec import RunSpec
from sim.studies.openings import (
    LEAD_LOT,
    LEAD_OTHER,
    LEAD_OWN,
    counterfactual_deal,
    hand_mask,
    opening_counterfactual,
    replay_round,
    sample_hands,
    state_playouts,
    win_probability,
)
from sim.tiles import HAND_SIZE, TARGET_RAW
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
    decision = stream_key(np.int64(SEED), np.int64(0), np.int64(PO.STREAM_CF_DECISION))
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


@pytest.mark.parametrize("secret", [None, "0123456789abcdef0123456789abcdef"])
def test_state_playouts_reproduce_the_engine_kernel_at_scores_zero(compiled_engine, secret):
    """With or without a run secret (it keys the decision streams of both the same way)."""
    players, hands, playouts = 2, 6, 4
    reference = opening_counterfactual(players, "random", hands=hands, playouts=playouts,
                                       seed=SEED, baseline="random", secret=secret)
    run = CompiledRun(RunSpec.build(2, ["random", "random"], 1, SEED, max_rounds=1, secret=secret),
                      own_set=True)
    slots = np.full(players, run.strategy_ids[0], dtype=np.int64)
    params = np.zeros((players, run.spec.params.shape[1]))
    masks = sample_hands(SEED, hands)
    baseline = np.zeros(hands, dtype=np.int64)
    gains = np.zeros((hands, HAND_SIZE, playouts, K.MAX_ENTITIES), dtype=np.int32)
    winners = np.zeros((hands, HAND_SIZE, playouts), dtype=np.int8)
    ends = np.zeros((hands, HAND_SIZE, playouts), dtype=np.int8)
    errors = np.zeros(hands, dtype=np.int64)
    state_playouts(run.engine.replay_dealt_round, np.int64(SEED), np.int64(players), masks,
                   np.arange(hands, dtype=np.int64), slots, params, slots, params,
                   np.int64(playouts), np.zeros(K.MAX_ENTITIES, dtype=np.int64), np.int64(0),
                   np.int64(hands), baseline, gains, winners, ends, errors, run.spec.secret_words)
    assert np.array_equal(baseline, reference.baseline_tile)
    assert np.array_equal((gains[..., 0] - gains[..., 1]) / 5.0, reference.diff)
    assert np.array_equal(winners == 0, reference.leader_won)
    assert np.array_equal(ends, reference.ends)


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
    return openings.run([2, 3, 4], ["greedy"], 40, SEED, hands=10, playouts=8,
                        score_states="55-30,40-40")


def test_gain_table_at_full_playouts_is_the_main_figure(result):
    gain = result.frames["cf_gain"]
    summary = result.frames["cf_summary"].set_index("players")
    assert openings.gain_playouts(8) == [2, 4, 8]
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
                     for v in openings.value_kinds(p)}
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
    # the summary's claims name the tiles the table ranks first
    for players in (2, 4):
        top = values[(values.state == "55-30") & (values.players == players)
                     & (values.value == "win_prob")].sort_values("rank").iloc[0]
        assert f"55-30 {top.tile}" in result.key_numbers[
            f"counterfactual {players}p: best opening by match-win probability per state"]
    assert "## Ranks by match-win probability" in result.markdown


def test_score_states_are_deterministic(compiled_engine):
    settings = openings.settings_for([2], ["greedy"], 10, 5, 4, 6, "greedy", "greedy",
                                     "30-55")
    one = openings.state_tables(settings, threads=1)
    two = openings.state_tables(settings, threads=2)
    for name in ("values", "gain"):
        pd.testing.assert_frame_equal(one[0][name], two[0][name])


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------
def test_parse_score_states():
    assert openings.parse_score_states("55-30, 40-40") == [(0, 0), (55, 30), (40, 40)]
    assert openings.parse_score_states([(30, 55), (0, 0)]) == [(0, 0), (30, 55)]
    assert openings.state_raw_scores(3, (55, 30)) == [275, 150, 150]
    for bad, words in (("55", "OWN-OTHER"), ("a-b", "OWN-OTHER"), ("61-0", "0..60"),
                       ("40-40,40-40", "repeat"), ([(1, 2, 3)], "pairs")):
        with pytest.raises(ValueError, match=words):
            openings.parse_score_states(bad)


def test_bad_score_states_on_the_command_line_is_one_line(tmp_path):
    run = call_cli("openings", "--players", "2", "--matches", "10", "--score-states", "70-10",
                   "--out", tmp_path / "out", "--quiet")
    one_line(run, 2, "70-10", "0..60")
    assert not (tmp_path / "out").exists()
