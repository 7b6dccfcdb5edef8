"""The research studies from Python: their frames, provable properties, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.comparisons import EXPLORATORY, Comparison, ComparisonPlan, Quantity
from experiments.mixed_tables import (
    Table,
    adjusted_comparisons,
    comparison_row,
    entity_names,
    pair_id,
    per_deal_means,
    table_contrasts,
    verdict_finding,
)
from experiments.reporting.figures import AUDIT_ENV, print_problems, run_footer
from experiments.settings import configuration_matches, matches_clause, study_settings
from experiments.stats import (
    Contrast,
    clustered_proportion,
    clustered_ratio,
    paired_ratio_contrast,
    wilson_interval,
)
from experiments.studies import opening_leads, overshoot, seats, settlement, study_plots
from core.tiles import N_TILES, TARGET_RAW
from tests.support.study_runs import SELF_PLAY, rounds, traces  # noqa: F401  (fixtures)


@pytest.fixture(scope="module")
def overshoot_result(traces):
    return overshoot.run(*SELF_PLAY, traces=traces)


@pytest.fixture(scope="module")
def settlement_result(traces):
    return settlement.run(*SELF_PLAY, traces=traces)


@pytest.fixture(scope="module")
def openings_result(compiled_engine):
    return opening_leads.run(*SELF_PLAY, hands=12, playouts=6)


@pytest.fixture(scope="module")
def seats_result(rounds):
    return seats.run(*SELF_PLAY, rounds=rounds)


# ---------------------------------------------------------------------------
# overshoot
# ---------------------------------------------------------------------------
def test_target_test_is_exactly_score_plus_raw(traces):
    for trace in traces.values():
        ev = trace.events
        over = ev["score_before"].to_numpy() + ev["raw"].to_numpy() > TARGET_RAW
        assert np.array_equal(over, ~ev["accepted"].to_numpy())


def test_no_discard_below_the_provable_bound(overshoot_result, traces):
    by = overshoot_result.frames["by_score"]
    assert overshoot.SAFE_BELOW_DISPLAYED == 28
    assert (by.loc[by.displayed_before < 28, "discarded"] == 0).all()
    assert (by.loc[by.displayed_before < 28, "p_discard"] == 0).all()
    assert max(int(t.events["raw"].max()) for t in traces.values()) <= overshoot.MAX_EVENT_RAW
    # at displayed 60 an event is discarded exactly when it is worth more than 5 raw
    for (strategy, players), trace in traces.items():
        ev = trace.events[trace.events.displayed_before == 60]
        row = by[(by.strategy == strategy) & (by.players == players) & (by.displayed_before == 60)]
        assert int(row.discarded.iloc[0]) == int((ev["raw"] > 5).sum())


def test_overshoot_counts_agree_with_the_engine_frame(overshoot_result, traces):
    by = overshoot_result.frames["by_score"]
    paths = overshoot_result.frames["paths"].set_index(["strategy", "players"])
    for (strategy, players), trace in traces.items():
        m = trace.matches
        sel = by[(by.strategy == strategy) & (by.players == players)]
        assert sel.events.sum() == (m.events_accepted + m.events_discarded).sum()
        assert sel.discarded.sum() == m.events_discarded.sum()
        assert sel.discarded_raw.sum() == m.raw_discarded.sum()
        assert ((sel.p_discard >= sel.low - 1e-12) & (sel.p_discard <= sel.high + 1e-12)).all()
        row = paths.loc[(strategy, players)]
        assert row.matches == SELF_PLAY.matches and row.finished == (m.winner >= 0).sum()
        assert row.raw_discarded_per_match == pytest.approx(m.raw_discarded.mean())
        n_entities = 2 if players == 4 else players
        for e in range(n_entities):
            per_entity = trace.paths[trace.paths.entity == e]["discarded"].to_numpy()
            assert np.array_equal(per_entity, m[f"events_discarded_{e}"].to_numpy())
        # the first within 5 of 61 either won or lost: both counts are consistent
        assert 0 <= row.first_zone5_lost <= row.first_zone5_matches <= row.finished
    zone = overshoot_result.frames["zone_turns"]
    winners = zone.groupby(["strategy", "players"])["winners"].sum()
    for key, trace in traces.items():
        assert winners[key] == (trace.matches.winner >= 0).sum()


def test_a_winner_spends_its_last_turn_in_the_zone_unless_it_jumped(traces):
    for trace in traces.values():
        winners = trace.paths[trace.paths["won"]]
        entered = winners["first_zone10_event"] >= 0
        assert (winners.loc[entered, "zone10_rounds"] >= 1).all()
        assert (winners.loc[~entered, "zone10_turns"] == 0).all()
        assert (winners["max_score"] == TARGET_RAW).all()


# ---------------------------------------------------------------------------
# settlement
# ---------------------------------------------------------------------------
def test_settlement_parts_add_up(settlement_result, traces):
    parts = settlement_result.frames["domino_parts"].set_index(["strategy", "players", "part"])
    points = settlement_result.frames["points"].set_index(["strategy", "players"])
    blocked = settlement_result.frames["blocked"].set_index(["strategy", "players"])
    for (strategy, players), trace in traces.items():
        m = trace.matches
        key = (strategy, players)
        assert parts.loc[key + ("net",), "events"] == m.domino_rounds.sum()
        debit = parts.loc[key + ("debit",), "mean"] if players == 4 else 0.0
        assert parts.loc[key + ("net",), "mean"] == pytest.approx(
            parts.loc[key + ("placement",), "mean"] + parts.loc[key + ("credit",), "mean"] - debit)
        if players != 4:
            assert key + ("debit",) not in parts.index
            assert (m.domino_debit == 0).all()
        n_entities = 2 if players == 4 else players
        total = sum(m[f"score_{e}"] for e in range(n_entities)).sum()
        settled = sum(m[f"settlement_raw_{e}"] for e in range(n_entities)).sum()
        assert points.loc[key, "settlement_share_net"] == pytest.approx(settled / total)
        # gross: before the partner debit, over the same accepted points
        gross = (m.domino_credit + m.blocked_credit).sum()
        assert points.loc[key, "settlement_share_gross"] == pytest.approx(gross / total)
        assert points.loc[key, "settlement_share_gross"] - points.loc[
            key, "settlement_share_net"] == pytest.approx(m.domino_debit.sum() / total)
        if players != 4:
            assert points.loc[key, "settlement_share_gross"] == points.loc[
                key, "settlement_share_net"]
        assert points.loc[key, "accepted_raw_per_match"] == pytest.approx(total / len(m))
        assert blocked.loc[key, "blocked_rounds"] == m.blocked_rounds.sum()
        assert blocked.loc[key, "rounds"] == m.rounds.sum()
        # a share of rounds with a Wilson interval: inside [0, 1], around the share
        share = blocked.loc[key, "blocked_share"]
        assert share == pytest.approx(m.blocked_rounds.sum() / m.rounds.sum())
        assert 0 <= blocked.loc[key, "blocked_share_low"] <= share
        assert share <= blocked.loc[key, "blocked_share_high"] <= 1
        assert blocked.loc[key, "blocked_events"] == (trace.events.kind == "blocked").sum()
    hist = settlement_result.frames["parts_hist"]
    counts = hist.groupby(["strategy", "players", "part"])["count"].sum()
    assert (counts == parts["events"].reindex(counts.index)).all()


def test_partner_debit_only_with_four_players(settlement_result, traces):
    debit = settlement_result.frames["partner_debit"]
    assert sorted(debit.players.unique()) == [4]
    for row in debit.itertuples():
        ev = traces[(row.strategy, 4)].events
        d = ev[ev.kind == "domino"]
        assert row.dominoes == len(d)
        assert row.with_debit == int((d.debit > 0).sum())
        assert row.net_negative == int((d.raw < 0).sum())
        # a rescue needs a debit; a negative net is never discarded
        assert row.rescued_from_overshoot <= row.with_debit
        assert d[d.raw <= 0].accepted.all()


# ---------------------------------------------------------------------------
# openings
# ---------------------------------------------------------------------------
def test_opening_tables(openings_result, rounds):
    tiles = openings_result.frames["tiles"]
    assert len(tiles) == N_TILES * len(SELF_PLAY.players) * len(SELF_PLAY.strategies)
    for (strategy, players), sel in tiles.groupby(["strategy", "players"]):
        assert sel.first_n.sum() == SELF_PLAY.matches
        assert sel.first_share.sum() == pytest.approx(1.0)
        r = rounds[(strategy, players)]
        assert sel.any_n.sum() == len(r)
        # the first leader's overall win rate, from the 28 tiles, equals the seats figure
        finished = r[(r["round"] == 0) & (r.match_winner >= 0)]
        won = (finished.match_winner == finished.leader_entity).sum()
        n_by_tile = finished.groupby("opening", observed=True).size()
        rate = sel.set_index("tile")["first_win_rate"]
        assert (rate.reindex(n_by_tile.index) * n_by_tile).sum() == pytest.approx(won)
    cf = openings_result.frames["cf_tiles"]
    hands = openings_result.frames["cf_hands"]
    assert (cf.groupby("players")["hands"].sum() == 12 * 5).all()
    assert (hands["gain"] >= 0).all()
    assert len(openings_result.frames["cf_summary"]) == len(SELF_PLAY.players)
    # relative values of a hand's five openings average to zero
    assert cf.relative_mean.notna().any()


def test_openings_without_counterfactual(compiled_engine):
    result = opening_leads.run([2], ["greedy"], 40, 1, hands=0)
    assert set(result.frames) == {"tiles", "lead_effects", "comparisons"}
    assert not any(name.startswith("cf_") for name in result.frames)
    assert "counterfactual" not in result.plots


# ---------------------------------------------------------------------------
# seats
# ---------------------------------------------------------------------------
def test_seat_tables(seats_result, rounds):
    positions = seats_result.frames["positions"]
    absolute = seats_result.frames["absolute_seats"]
    lot = seats_result.frames["first_lot"].set_index(["strategy", "players"])
    for (strategy, players), sel in positions.groupby(["strategy", "players"]):
        n = lot.loc[(strategy, players), "finished"]
        if players == 4:
            assert sel.wins.iloc[0] + sel.wins.iloc[1] == n
            assert sel.wins.iloc[0] == sel.wins.iloc[2]
        else:
            assert sel.wins.sum() == n
        assert sel.wins.iloc[0] == lot.loc[(strategy, players), "lot_side_wins"]
        abs_sel = absolute[(absolute.strategy == strategy) & (absolute.players == players)]
        entity_wins = abs_sel.drop_duplicates("entity").wins.sum()
        assert entity_wins == n
    rp = seats_result.frames["round_positions"]
    for (strategy, players), sel in rp.groupby(["strategy", "players"]):
        assert sel.round_wins.sum() == len(rounds[(strategy, players)])


# ---------------------------------------------------------------------------
# determinism and output files
# ---------------------------------------------------------------------------
def test_same_seed_same_frames(compiled_engine, tmp_path):
    runs = [overshoot.run([2, 4], ["greedy"], 60, 21), settlement.run([2, 4], ["greedy"], 60, 21),
            seats.run([3], ["random"], 60, 21),
            opening_leads.run([2], ["random"], 60, 21, hands=5, playouts=4)]
    again = [overshoot.run([2, 4], ["greedy"], 60, 21), settlement.run([2, 4], ["greedy"], 60, 21),
             seats.run([3], ["random"], 60, 21, threads=1),
             opening_leads.run([2], ["random"], 60, 21, hands=5, playouts=4, threads=1)]
    for a, b in zip(runs, again):
        assert a.frames.keys() == b.frames.keys()
        for name in a.frames:
            pd.testing.assert_frame_equal(a.frames[name], b.frames[name])
        assert a.markdown == b.markdown
    other = seats.run([3], ["random"], 60, 22)
    assert not other.frames["positions"].equals(runs[2].frames["positions"])
    files = runs[2].save(tmp_path / "seats")
    names = {p.split("/")[-1] for p in files}
    assert {"positions.parquet", "positions.csv", "seats.png", "summary.md"} <= names
    back = pd.read_parquet(tmp_path / "seats" / "positions.parquet")
    pd.testing.assert_frame_equal(back, runs[2].frames["positions"], check_dtype=False)
    csv = pd.read_csv(tmp_path / "seats" / "positions.csv")
    assert list(csv.columns) == list(runs[2].frames["positions"].columns)
    png = (tmp_path / "seats" / "seats.png").read_bytes()
    runs[2].save(tmp_path / "seats")  # same settings: allowed, same bytes
    assert (tmp_path / "seats" / "seats.png").read_bytes() == png


@pytest.mark.parametrize("call,message", [
    (lambda: overshoot.run([5], ["greedy"], 10, 0), "players must be 2, 3 or 4, found 5"),
    (lambda: overshoot.run([2, 2], ["greedy"], 10, 0), "players names 2 twice"),
    (lambda: settlement.run([2], ["nope"], 10, 0), "unknown strategy 'nope'"),
    (lambda: seats.run([2], ["greedy"], 0, 0), "matches must be at least 1, found 0"),
    (lambda: opening_leads.run([2], ["greedy"], 10, -1), "seed must be between 0 and"),
    (lambda: opening_leads.run([2], ["greedy"], 10, 0, playouts=1), "playouts must be at least 2, found 1"),
    (lambda: opening_leads.run([2], ["greedy"], 10, 0, baseline="a,b"), "baseline takes one strategy"),
])
def test_python_api_rejects_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------------
# match-clustered intervals and the figures' data
# ---------------------------------------------------------------------------
def test_event_rates_are_clustered_by_match(overshoot_result, settlement_result, traces):
    by = overshoot_result.frames["by_score"]
    debit = settlement_result.frames["partner_debit"].set_index("strategy")
    for (strategy, players), trace in traces.items():
        ev = trace.events
        expected = clustered_proportion(~ev["accepted"].to_numpy(), ev["match"].to_numpy(),
                                        ev["displayed_before"].to_numpy())
        sel = by[(by.strategy == strategy) & (by.players == players)].set_index(
            "displayed_before")
        assert np.allclose(sel["low"], expected["low"]) and np.allclose(
            sel["high"], expected["high"])
        # never narrower than Wilson over independent events
        wl, wh = wilson_interval(sel["discarded"], sel["events"])
        assert (sel["high"] - sel["low"] >= wh - wl - 1e-12).all()
        if players == 4:
            dom = ev[ev["kind"] == "domino"]
            row = debit.loc[strategy]
            rate = clustered_proportion(dom["debit"].to_numpy() > 0, dom["match"].to_numpy())
            assert row.with_debit_low == pytest.approx(rate["low"].iloc[0])
            mean = clustered_ratio(dom["debit"].to_numpy(), 1.0, dom["match"].to_numpy())
            assert row.debit_mean == pytest.approx(dom["debit"].mean())
            assert row.debit_low == pytest.approx(mean["low"].iloc[0])


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.texts]


def test_every_study_figure_carries_the_runs_footer(overshoot_result, settlement_result,
                                                    seats_result):
    figures = [
        (study_plots.discard_probability_figure(overshoot_result.frames["by_score"],
                                                overshoot_result.settings), overshoot_result),
        (study_plots.zone_turns_figure(overshoot_result.frames["zone_turns"],
                                       overshoot_result.settings), overshoot_result),
        (study_plots.domino_parts_figure(settlement_result.frames["domino_parts"],
                                         settlement_result.settings), settlement_result),
        (study_plots.point_sources_figure(settlement_result.frames["points"],
                                          settlement_result.settings), settlement_result),
        (study_plots.seats_figure(seats_result.frames["positions"], seats_result.settings),
         seats_result),
    ]
    footer = (f"{SELF_PLAY.matches} matches per configuration, players 2, 3, 4, "
              f"seed {SELF_PLAY.seed}")
    for fig, result in figures:
        assert run_footer(result.settings) == footer
        assert footer in _texts(fig)
        for ax in fig.axes:  # every axis that shows points says which points
            label = (ax.get_xlabel() + ax.get_ylabel()).replace("percentage points", "")
            if "points" in label and "turns" not in label:
                assert "raw" in label, label


def test_seats_figure_shows_sides_as_deviation_from_the_fair_share(seats_result):
    positions = seats_result.frames["positions"]
    sides = study_plots.seat_sides(positions)
    for (strategy, players), sel in sides.groupby(["strategy", "players"]):
        assert sel["position"].tolist() == list(range(2 if players == 4 else players))
        fair = 1 / (2 if players == 4 else players)
        source = positions[(positions.strategy == strategy) & (positions.players == players)]
        assert np.allclose(sel["deviation"], 100 * (source["win_rate"].iloc[:len(sel)] - fair))
        if players != 3:  # two sides: the deviations are opposite
            assert sel["deviation"].sum() == pytest.approx(0.0, abs=1e-9)
    fig = study_plots.seats_figure(positions, seats_result.settings)
    panels = {ax.get_title().split(" ")[0]: ax for ax in fig.axes}
    four = panels["4"]
    assert [t.get_text() for t in four.get_xticklabels()] == [
        "leader's\npartnership", "other\npartnership"]
    assert panels["3"].get_title() == "3 players (chance 33.3%)"  # chance is 1/n
    low, high = four.get_ylim()
    assert low == pytest.approx(-high) and low < 0 < high  # shared, symmetric, includes 0
    assert "percentage points" in fig.axes[0].get_ylabel()
    assert all(ax.get_ylim() == (low, high) for ax in fig.axes)


def test_point_sources_show_every_source_with_its_interval_in_category_colours(
        settlement_result):
    points = settlement_result.frames["points"]
    fig = study_plots.point_sources_figure(points, settlement_result.settings)
    assert print_problems(fig) == []
    top = {ax.get_title(): ax for ax in fig.axes if ax.get_title()}
    four = top["4 players"]
    from matplotlib.container import ErrorbarContainer
    debit = [c for c in four.containers if isinstance(c, ErrorbarContainer)
             and c.get_label().startswith("partner debit")]
    assert len(debit) == 1  # the debit is its own source, at 4 players only
    sel = points[points.players == 4].set_index("strategy")
    assert np.allclose(debit[0].lines[0].get_xdata(),
                       sel["domino_debit_per_match"].to_numpy() / 5)
    assert not any(c.get_label().startswith("partner debit") for c in top["2 players"].containers
                   if isinstance(c, ErrorbarContainer))
    # each source's interval is the match-clustered t interval of its per-match mean
    for column in ("placement_raw_per_match", "domino_credit_per_match"):
        assert (points[f"{column}_low"] < points[column]).all()
        assert (points[column] < points[f"{column}_high"]).all()


def test_overshoot_summary_warns_that_self_play_is_not_head_to_head(overshoot_result):
    text = overshoot_result.markdown
    assert "**Self-play only**" in text and "head-to-head" in text
    paths = overshoot_result.frames["paths"]
    for players, sel in paths.groupby("players"):
        low = sel.sort_values("events_discarded_per_match", kind="stable").iloc[0]
        assert f"{players} players: {low.strategy} {low.events_discarded_per_match:.2f}" in text
    assert "match-clustered" in text and "1 displayed = 5 raw" in text


# ---------------------------------------------------------------------------
# mixed tables: counted once per deal, paired contrasts; strong strategies
# ---------------------------------------------------------------------------
def test_a_strategy_in_two_seats_counts_once_per_deal():
    """3 players, ``exact,greedy``: greedy fills two of three seats in each of 3 rotations of
    2 deals (18 rows). By hand: deal 0, exact 1, 2, 3 (rotations) -> 2; greedy (0+2), (4+0),
    (2+2) / 2 -> 1, 2, 2 -> 5/3; deal 1, exact 0, 0, 3 -> 1; greedy 1, 1, 1 -> 1. Differences
    1/3 and 0 over n = 2 deals (not 6 rotations, not 12 greedy seats)."""
    rotations = Table(("exact", "greedy")).rotations(3)
    rows = []
    exact_values = {0: [1, 2, 3], 1: [0, 0, 3]}
    greedy_values = {0: [(0, 2), (4, 0), (2, 2)], 1: [(1, 1), (2, 0), (0, 2)]}
    for deal in (0, 1):
        for r, pairing in enumerate(rotations):
            others = iter(greedy_values[deal][r])
            for entity, name in enumerate(pairing.entity_strategies):
                value = exact_values[deal][r] if name == "exact" else next(others)
                rows.append((r, deal, entity, value))
    frame = pd.DataFrame(rows, columns=["rotation", "match", "entity", "value"])
    names = entity_names(rotations, frame["rotation"], frame["entity"])
    wide = per_deal_means(frame["value"], frame["match"], names)
    assert wide.loc[0, "exact"] == 2 and wide.loc[0, "greedy"] == pytest.approx(5 / 3)
    assert wide.loc[1, "exact"] == 1 and wide.loc[1, "greedy"] == 1
    row = table_contrasts({"value": wide}, [("value", "v")], "exact vs greedy", 3)[0]
    assert (row["a"], row["b"], row["deals"]) == ("exact", "greedy", 2)
    assert row["id"] == "3p | exact vs greedy | exact - greedy | v"  # no seed in an id
    assert row["difference"] == pytest.approx(1 / 6)
    # t interval on 1 degree of freedom: half-width 12.706 * sd / sqrt(2), sd = (1/3) / sqrt(2)
    assert row["high"] - row["difference"] == pytest.approx(12.7062 * (1 / 3) / 2, rel=1e-4)


def _plan(sesoi: float, ids, family=EXPLORATORY) -> ComparisonPlan:
    return ComparisonPlan("t", (Quantity("v", "value", sesoi, True, "why"),),
                          tuple(Comparison(i, family, "v") for i in ids))


def test_adjusted_wording_a_trivial_effect_is_equivalent_and_a_finding_needs_its_interval():
    """Words follow the adjusted interval: a +0.1 pp difference with a +-0.07 pp interval is
    "equivalent within +-1 pp" (settlement exact - greedy 3p), not a finding; an effect is a
    finding only where the adjusted (not the marginal) interval excludes 0."""
    trivial = comparison_row("3p | t | exact - greedy | v", "t", 3, "exact", "greedy", "v",
                             Contrast(0.0014, 0.0007, 0.0021, 1500, 0.03))
    row = adjusted_comparisons(_plan(0.01, [trivial["id"]]), [trivial]).iloc[0]
    assert row.verdict == "equivalent"
    assert row.words.endswith(": equivalent within +-1 pp") and "exact higher" not in row.words
    # marginally excluding 0 (p = 0.04), but one of 5 comparisons: Holm's interval holds 0
    ids = [f"2p | t | a{k} - b | v" for k in range(5)]
    rows = [comparison_row(ids[0], "t", 2, "a0", "b", "v", Contrast(0.02, 0.001, 0.039, 5000,
                                                                     0.1))]
    rows += [comparison_row(i, "t", 2, f"a{k + 1}", "b", "v",
                            Contrast(0.0, -0.02, 0.02, 5000, 0.0))
             for k, i in enumerate(ids[1:])]
    out = adjusted_comparisons(_plan(0.005, ids, "primary"), rows)
    first = out.iloc[0]
    assert first.low > 0 and first.adj_low < 0 < first.adj_high
    assert first.verdict == "inconclusive" and first.words.endswith("no detectable difference")
    # a large effect survives the adjustment: then, and only then, "A higher"
    big = comparison_row(ids[0], "t", 2, "a0", "b", "v", Contrast(0.1, 0.08, 0.12, 5000, 1.0))
    out = adjusted_comparisons(_plan(0.005, ids, "primary"), [big] + rows[1:])
    assert out.iloc[0].adj_low > 0 and out.iloc[0].words.endswith(": a0 higher")
    for row in out.itertuples(index=False):
        assert (row.verdict == "finding") == (row.adj_low > 0 or row.adj_high < 0)
    assert verdict_finding(out, "v", "v").startswith("Of 5 comparisons of v (adjusted "
                                                     "intervals), 1 is a finding (2p, t: a0 "
                                                     "higher than b)")


def test_a_ratio_contrast_keeps_every_deal():
    """Discards per event at risk, A - B, as ratios of sums over every deal: a deal where A had
    no event at risk weighs nothing in A's ratio but is not dropped (no conditioning on having
    reached a score)."""
    num_a, den_a = np.array([1.0, 0.0, 2.0, 0.0]), np.array([10.0, 0.0, 20.0, 10.0])
    num_b, den_b = np.array([0.0, 1.0, 1.0, 1.0]), np.array([10.0, 10.0, 10.0, 10.0])
    c = paired_ratio_contrast(num_a, den_a, num_b, den_b)
    assert c.units == 4
    assert c.difference == pytest.approx(3 / 40 - 3 / 40 + (0.0))
    c = paired_ratio_contrast(num_a * 2, den_a, num_b, den_b)
    assert c.difference == pytest.approx(6 / 40 - 3 / 40) and c.low < c.difference < c.high


def test_discards_per_event_at_risk_count_the_events_that_could_overshoot(overshoot_result,
                                                                          traces):
    """An event is at risk when some event could take its entity past 61 from its score:
    score before + 170 raw > 305, every event from displayed 28 on; every discarded event is one
    of them, and the per-risk rate is discarded events over events at risk."""
    paths = overshoot_result.frames["paths"].set_index(["strategy", "players"])
    for (strategy, players), trace in traces.items():
        ev = trace.events
        risk = overshoot.at_risk(ev)
        assert np.array_equal(risk, ev["displayed_before"].to_numpy() >= 28)
        assert not (~ev["accepted"].to_numpy() & ~risk).any()
        row = paths.loc[(strategy, players)]
        assert row.discards_per_risk == pytest.approx((~ev["accepted"]).sum() / risk.sum())
        assert row.events_at_risk_per_match == pytest.approx(risk.sum() / len(trace.matches))
        assert row.discards_per_risk_low < row.discards_per_risk < row.discards_per_risk_high
    own = overshoot_result.frames["comparisons"]
    assert set(own["quantity"]) == {overshoot.DISCARDS_PER_RISK}
    assert set(own["b"]) == {"greedy"} and set(own["a"]) == {"random"}


def test_strong_strategies_play_their_own_match_count(traces):
    settings = study_settings("overshoot", [2], ["greedy"], 30, 1, strong="rollout",
                              strong_matches=6)
    assert settings["strategies"] == ["greedy", "rollout"] and settings["strong"] == ["rollout"]
    assert configuration_matches(settings, "greedy") == 30
    assert configuration_matches(settings, "rollout") == 6
    assert matches_clause(settings) == "30 matches per configuration (rollout: 6 each)"
    plain = study_settings("overshoot", [2], ["greedy"], 30, 1)
    assert "strong" not in plain and "strong_matches" not in plain
    with pytest.raises(ValueError, match="strong_matches is given without"):
        study_settings("overshoot", [2], ["greedy"], 30, 1, strong_matches=6)
    with pytest.raises(ValueError, match="both as a strategy and as a strong strategy"):
        study_settings("overshoot", [2], ["greedy", "rollout"], 30, 1, strong="rollout")
    result = settlement.run([2], ["greedy"], 30, 1, strong="rollout", strong_matches=6)
    points = result.frames["points"].set_index("strategy")
    assert points.loc["greedy", "matches"] == 30 and points.loc["rollout", "matches"] == 6
    assert "rollout are self-played at 6 matches per configuration" in result.markdown
    assert "rollout, 2p: settlement share of accepted points, net of the partner debit" in (
        result.key_numbers)


def _hand_rounds(leaders, winners):
    """A 2-player self-play rounds frame: one round per match, the given first leaders (seats)
    and match winners (entities)."""
    return pd.DataFrame({"match": np.arange(len(leaders)), "round": 0, "leader": leaders,
                         "leader_entity": leaders, "winner": winners, "match_winner": winners,
                         "raw_0": [305 if w == 0 else 0 for w in winners],
                         "raw_1": [305 if w == 1 else 0 for w in winners]})


def test_first_lot_effect_and_its_contrast_by_hand():
    # greedy: the lot winner wins matches 0, 1, 3 (3 of 4); x: matches 0 and 3 (2 of 4)
    rounds = {("greedy", 2): _hand_rounds([0, 1, 0, 1], [0, 1, 1, 1]),
              ("x", 2): _hand_rounds([0, 1, 0, 1], [0, 0, 1, 1])}
    result = seats.analyse(rounds, {"players": [2], "matches": 4, "seed": 0,
                                    "strategies": ["greedy", "x"]})
    lot = result.frames["first_lot"].set_index("strategy")
    low, high = wilson_interval(3, 4)
    assert lot.loc["greedy", "win_rate"] == 0.75 and lot.loc["greedy", "deals"] == 4
    assert lot.loc["greedy", "fair_share"] == 0.5  # chance, 1/n
    assert lot.loc["greedy", "edge"] == pytest.approx(0.25)
    assert (lot.loc["greedy", "edge_low"], lot.loc["greedy", "edge_high"]) == pytest.approx(
        (low - 0.5, high - 0.5))
    # the lot effect: won the lot minus lost it per deal, +1, +1, -1, +1 -> 0.5, t on 3 df
    assert lot.loc["greedy", "lot_effect"] == pytest.approx(0.75 - 0.25)
    assert lot.loc["greedy", "lot_effect_high"] - 0.5 == pytest.approx(3.182446 * 1.0 / 2,
                                                                      abs=1e-5)
    assert lot.loc["x", "lot_effect"] == pytest.approx(0.0)
    comparisons = result.frames["comparisons"]
    assert list(comparisons.loc[comparisons.family == "primary", "a"]) == ["greedy won the lot"]
    # x - greedy, paired by deal: per-deal effects (+1, -1, -1, +1) - (+1, +1, -1, +1)
    row = comparisons[comparisons.quantity == seats.LOT_EFFECT_DIFFERENCE].iloc[0]
    assert (row.a, row.b, row.deals) == ("x", "greedy", 4)
    assert row.difference == pytest.approx(-0.5)
    assert (row.low, row.high) == pytest.approx((-0.5 - 3.182446 * 0.5, -0.5 + 3.182446 * 0.5),
                                                abs=1e-5)
    assert row.verdict == "inconclusive" and row.words.endswith("no detectable difference")
    assert row.words.endswith(result.key_numbers["x - greedy, 2p: first-lot effect"])
    assert "Plots:" not in result.markdown and "![seats](seats.png)" in result.markdown
    # no "A leads - B leads": every lot comparison is a strategy against itself or a
    # difference of two strategies' own lot effects
    assert not any("leads" in k or "edge" in k for k in result.key_numbers if " - " in k)


def test_seats_plan_declares_primary_lot_effects_before_the_run():
    settings = {"players": [2, 3, 4], "strategies": ["greedy", "random"],
                "tables": [["exact", "greedy"]]}
    plan = seats.plan_for(settings)
    primary = [c.id for c in plan.comparisons if c.family == "primary"]
    assert primary == [pair_id(p, "self-play", "greedy won the lot", "greedy lost it",
                               "lot_effect") for p in (2, 3, 4)]
    assert "Primary" in plan.note
    ids = [c.id for c in plan.comparisons]
    # at two sides a table's lot effect is declared once; at three, once per strategy
    lot = [i for i in ids if i.endswith("| lot_effect") and "exact vs greedy" in i]
    assert lot == ["2p | exact vs greedy | exact won the lot - exact lost it | lot_effect",
                   "3p | exact vs greedy | exact won the lot - exact lost it | lot_effect",
                   "3p | exact vs greedy | greedy won the lot - greedy lost it | lot_effect",
                   "4p | exact vs greedy | exact won the lot - exact lost it | lot_effect"]
    assert all(q.sesoi > 0 and q.why for q in plan.quantities)
    assert seats.plan_for(settings).digest() == plan.digest()  # a function of the settings


@pytest.mark.parametrize("study", ["overshoot", "settlement", "seats"])
def test_every_figure_of_the_study_is_fit_for_print(study, overshoot_result, settlement_result,
                                                    seats_result, tmp_path, monkeypatch):
    monkeypatch.setenv(AUDIT_ENV, "strict")  # save_png refuses a figure that breaks a rule
    result = {"overshoot": overshoot_result, "settlement": settlement_result,
              "seats": seats_result}[study]
    for name, plot in result.plots.items():
        plot(tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    figures = {
        "overshoot": [study_plots.discard_probability_figure(
            overshoot_result.frames["by_score"], overshoot_result.settings),
            study_plots.zone_turns_figure(overshoot_result.frames["zone_turns"],
                                          overshoot_result.settings)],
        "settlement": [study_plots.domino_parts_figure(settlement_result.frames["domino_parts"],
                                                       settlement_result.settings),
                       study_plots.point_sources_figure(settlement_result.frames["points"],
                                                        settlement_result.settings)],
        "seats": [study_plots.seats_figure(seats_result.frames["positions"],
                                           seats_result.settings)],
    }[study]
    for fig in figures:
        assert print_problems(fig) == []
        assert fig.get_figwidth() == pytest.approx(7.2)
