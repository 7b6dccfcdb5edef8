"""Mixed tables in the studies (overshoot, settlement, seats, lengths, openings): rotations, per-strategy figures
cross-checked against the traces, self-play rows unchanged, determinism, bad profiles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments import mixed_tables
from experiments.mixed_tables import (
    SELF_PLAY,
    Table,
    check_tables,
    deal_share,
    per_deal_means,
)
from experiments.reporting.figures import AUDIT_ENV, print_problems
from experiments.settings import study_settings
from experiments.sources import DataRun
from experiments.stats import mean_interval
from experiments.studies import (
    lengths,
    opening_leads,
    overshoot,
    seats,
    settlement,
    study_plots,
    table_plots,
)
from sim.study_kernels import trace_events

PLAYERS = [2, 3, 4]
STRATEGIES = ["greedy", "exact"]
TABLES = ["exact,greedy"]
MATCHES = 120
SEED = 11


@pytest.fixture(scope="module")
def overshoot_mixed(compiled_engine):
    return overshoot.run(PLAYERS, STRATEGIES, MATCHES, SEED, tables=TABLES, table_matches=80)


@pytest.fixture(scope="module")
def settlement_mixed(compiled_engine):
    return settlement.run(PLAYERS, STRATEGIES, MATCHES, SEED, tables=TABLES, table_matches=80)


@pytest.fixture(scope="module")
def seats_mixed(compiled_engine):
    return seats.run(PLAYERS, STRATEGIES, MATCHES, SEED, tables=TABLES, table_matches=80)


def test_rotations_cover_every_seat():
    two = Table(("exact", "greedy"))
    assert [p.seat_strategies(2) for p in two.rotations(2)] == [["exact", "greedy"],
                                                                 ["greedy", "exact"]]
    assert [p.seat_strategies(4) for p in two.rotations(4)] == [
        ["exact", "greedy", "exact", "greedy"], ["greedy", "exact", "greedy", "exact"]]
    # two names at 3 players: one A against two Bs, A at every seat once
    three = [p.seat_strategies(3) for p in two.rotations(3)]
    assert three == [["exact", "greedy", "greedy"], ["greedy", "exact", "greedy"],
                     ["greedy", "greedy", "exact"]]
    abc = [p.seat_strategies(3) for p in Table(("a", "b", "c")).rotations(3)]
    for seat in range(3):
        assert sorted(r[seat] for r in abc) == ["a", "b", "c"]
    assert not Table(("a", "b", "c")).plays_at(2) and Table(("a", "b")).plays_at(3)


def test_table_configurations_share_the_deals_and_follow_self_play():
    settings = study_settings("overshoot", [2, 3], ["greedy"], 30, 4, ["exact,greedy"], 20)
    data = DataRun(settings, shard_size=7)
    configurations = list(data._table_configurations())
    assert [(t.label, n, parts) for t, n, _, parts in configurations] == [
        ("exact vs greedy", 2, [2, 3]), ("exact vs greedy", 3, [4, 5, 6])]
    for _, count, rotations, parts in configurations:
        for rotation, part in zip(rotations, parts):
            tasks = data._rotation_tasks(rotation, part, count)
            assert [(t.shard.seed, t.shard.first_match, t.shard.count) for t in tasks] == [
                (4, 0, 7), (4, 7, 7), (4, 14, 6)]  # every rotation: the study's seed, 20 deals
            assert tasks[0].config["strategies"] == rotation.seat_strategies(count)


@pytest.mark.parametrize("value,message", [
    ("exact,nope", "table 'exact,nope': unknown strategy 'nope'"),
    ("exact", "table 'exact' names 1 strategy: a table names 2"),
    ("a,b,c,d", "names 4 strategies"),
    ("greedy,greedy", "names one strategy only"),
    (["exact,greedy", "exact,greedy"], "is given twice"),
    ("exact,greedy,random", "a 3-player table, but the players are 2, 4"),
])
def test_bad_tables_are_refused_in_one_line(value, message):
    with pytest.raises(ValueError, match=message) as info:
        check_tables(value, [2, 4])
    assert "\n" not in str(info.value)


def test_table_settings_only_when_tables_are_given():
    plain = study_settings("seats", [2], ["greedy"], 10, 0)
    assert not {"tables", "table_matches", "table_strategies"} & set(plain)
    mixed = study_settings("seats", [2], ["greedy"], 10, 0, ["rollout,greedy"], 5)
    assert mixed["tables"] == [["rollout", "greedy"]] and mixed["table_matches"] == 5
    assert mixed["table_strategies"] == ["rollout"] and "rollout" in mixed["strategy_code"]
    with pytest.raises(ValueError, match="table_matches is given without any table"):
        study_settings("seats", [2], ["greedy"], 10, 0, None, 5)


def _trace_of(players: int, seat_strategies: list[str], matches: int):
    return trace_events(players, seat_strategies, matches, SEED)


def test_per_strategy_discards_equal_a_direct_count_from_the_traces(overshoot_mixed):
    paths = overshoot_mixed.frames["paths"]
    by = overshoot_mixed.frames["by_score"]
    for players in PLAYERS:
        rotations = Table(("exact", "greedy")).rotations(players)
        counts = {"exact": [0, 0], "greedy": [0, 0]}  # discarded events, events
        for r in rotations:
            trace = _trace_of(players, r.seat_strategies(players), 80)
            names = np.array(r.entity_strategies, dtype=object)[trace.events["entity"].to_numpy()]
            for name, count in counts.items():
                own = trace.events[names == name]
                count[0] += int((~own["accepted"]).sum())
                count[1] += len(own)
        for name, (discarded, events) in counts.items():
            row = paths[(paths.table == "exact vs greedy") & (paths.players == players)
                        & (paths.strategy == name)].iloc[0]
            assert row.matches == 80 * len(rotations) and row.deals == 80
            entities = 2.0 if (players == 3 and name == "greedy") else 1.0
            assert row.entities_per_match == entities
            assert row.events_discarded_per_match * row.matches == pytest.approx(discarded)
            assert row.events_discarded_per_entity == pytest.approx(
                discarded / (row.matches * entities))
            sel = by[(by.table == "exact vs greedy") & (by.players == players)
                     & (by.strategy == name)]
            assert sel.discarded.sum() == discarded and sel.events.sum() == events
        # the two strategies' per-entity win rates share out every finished match
        both = paths[(paths.table == "exact vs greedy") & (paths.players == players)]
        share = (both.win_rate * both.entities_per_match).sum()
        assert share == pytest.approx(1.0)


def _same_self_play(plain, mixed) -> None:
    """The self-play rows of a run with tables are those of the same run without: the same
    frames and key numbers, except that a comparison's adjustment depends on its family, which
    the tables enlarge (declared before the run, so never after the fact): its estimate and
    marginal interval are the same."""
    assert set(plain.frames) <= set(mixed.frames)
    for name, frame in plain.frames.items():
        same = mixed.frames[name]
        if name == "comparisons":
            frame = frame[[c for c in ("id", "difference", "low", "high", "deals", "units")
                           if c in frame]]
            same = same.set_index("id").loc[frame["id"]].reset_index()
        else:
            assert (frame["table"] == SELF_PLAY).all()
            same = same[same["table"] == SELF_PLAY].reset_index(drop=True)
        pd.testing.assert_frame_equal(frame, same[list(frame.columns)])
    for key, value in plain.key_numbers.items():
        if "(Holm" not in value and "(Benjamini" not in value:
            assert mixed.key_numbers[key] == value


def test_self_play_rows_are_unchanged_by_tables(overshoot_mixed, settlement_mixed, seats_mixed):
    alone = {
        "overshoot": overshoot.run(PLAYERS, STRATEGIES, MATCHES, SEED),
        "settlement": settlement.run(PLAYERS, STRATEGIES, MATCHES, SEED),
        "seats": seats.run(PLAYERS, STRATEGIES, MATCHES, SEED),
    }
    for mixed in (overshoot_mixed, settlement_mixed, seats_mixed):
        plain = alone[mixed.name]
        assert set(plain.frames) <= set(mixed.frames)
        _same_self_play(plain, mixed)
        head = min(plain.markdown.split(mark)[0] for mark in ("Comparisons declared",
                                                               "## Key numbers"))
        assert mixed.markdown.startswith(head)
        assert "## Head to head (mixed tables)" in mixed.markdown
        assert "## Head to head" not in plain.markdown and "head_to_head" not in plain.plots
        assert "head_to_head" in mixed.plots


def test_settlement_per_strategy_points_equal_the_events(settlement_mixed):
    points = settlement_mixed.frames["points"]
    rotations = Table(("exact", "greedy")).rotations(2)
    total = {"exact": 0, "greedy": 0}
    settled = {"exact": 0, "greedy": 0}
    for r in rotations:
        trace = _trace_of(2, r.seat_strategies(2), 80)
        scores = trace.matches[["score_0", "score_1"]].to_numpy()
        for e, name in enumerate(r.entity_strategies):
            total[name] += int(scores[:, e].sum())
            ev = trace.events[(trace.events.entity == e) & trace.events.accepted]
            settled[name] += int(ev.loc[ev.kind == "domino", "credit"].sum()
                                 - ev.loc[ev.kind == "domino", "debit"].sum()
                                 + ev.loc[ev.kind == "blocked", "raw"].sum())
    for name, accepted in total.items():
        row = points[(points.table == "exact vs greedy") & (points.players == 2)
                     & (points.strategy == name)].iloc[0]
        assert row.accepted_raw_per_match * row.matches == pytest.approx(accepted)
        assert row.settlement_share_net == pytest.approx(settled[name] / accepted)


def test_seats_head_to_head_win_rates(seats_mixed):
    head = seats_mixed.frames["head_to_head"]
    for players in PLAYERS:
        rotations = Table(("exact", "greedy")).rotations(players)
        wins = {"exact": 0, "greedy": 0}
        finished = 0
        for r in rotations:
            trace = _trace_of(players, r.seat_strategies(players), 80)
            winner = trace.matches["winner"].to_numpy()
            finished += int((winner >= 0).sum())
            for e, name in enumerate(r.entity_strategies):
                wins[name] += int((winner == e).sum())
        for name, count in wins.items():
            row = head[(head.players == players) & (head.strategy == name)].iloc[0]
            assert row.wins == count and row.finished == finished
            assert row.win_rate == pytest.approx(count / (finished * row.entities_per_match))
            assert row.win_low < row.win_rate < row.win_high
    positions = seats_mixed.frames["positions"]
    mixed = positions[positions.table == "exact vs greedy"]
    for (players, name), sel in mixed.groupby(["players", "strategy"]):
        # every seat position is covered by the rotations, with the same number of matches
        assert sorted(sel.position) == list(range(players))
        row = head[(head.players == players) & (head.strategy == name)].iloc[0]
        if players != 4:
            assert sel.wins.sum() == row.wins


@pytest.mark.slow  # a differential run: the tables twice, at two shard sizes
def test_tables_are_the_same_whatever_the_shard_size(compiled_engine, tmp_path):
    runs = [overshoot.run([2, 3], ["greedy"], 30, 5, tables=TABLES, table_matches=25,
                          shard_size=size) for size in (7, 1000)]
    for name in runs[0].frames:
        pd.testing.assert_frame_equal(runs[0].frames[name], runs[1].frames[name])
    assert runs[0].markdown == runs[1].markdown
    # resumable: a run into a directory keeps the tables' shards under its manifest
    out = tmp_path / "seats"
    first = seats.run([2], ["greedy"], 20, 5, tables=TABLES, table_matches=15, out=out,
                      shard_size=6, keep_shards=True)
    assert (out / "shards" / "rounds").is_dir()
    again = seats.run([2], ["greedy"], 20, 5, tables=TABLES, table_matches=15, out=out,
                      shard_size=6)
    pd.testing.assert_frame_equal(first.frames["head_to_head"], again.frames["head_to_head"])
    assert (out / "head_to_head.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_head_to_head_figures_carry_both_sample_sizes(overshoot_mixed, monkeypatch, tmp_path):
    footer = (f"{MATCHES} matches per self-play configuration, 80 per table rotation "
              f"(duplicate deals), players 2, 3, 4, seed {SEED}")
    assert table_plots.table_footer(overshoot_mixed.settings) == footer
    # overshoot's head-to-head figure: the tables' comparisons, each row symmetric about 0
    comparisons = overshoot_mixed.frames["comparisons"]
    mixed = comparisons[comparisons["table"] != SELF_PLAY]
    plan = overshoot.plan_for(overshoot_mixed.settings)
    fig = study_plots.contrasts_figure(mixed, overshoot_mixed.settings, plan)
    assert any(t.get_text().startswith(
        f"80 deals per table rotation (every rotation on the same deals), players 2, 3, 4, "
        f"seed {SEED}") for t in fig.texts)
    for ax in fig.axes:
        low, high = ax.get_ylim()
        assert low == pytest.approx(-high) and high > 0
        # the bars are the adjusted intervals, not the marginal ones
        for container in ax.containers:
            bar = sorted(container.lines[2][0].get_segments()[0][:, 1])
            assert any(bar == pytest.approx([scale * row.adj_low, scale * row.adj_high])
                       for row in mixed.itertuples() for scale in (1.0, 100.0))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["exact"]
    monkeypatch.setenv(AUDIT_ENV, "strict")
    assert print_problems(fig) == []
    overshoot_mixed.plots["head_to_head"](tmp_path / "head_to_head.png")


@pytest.fixture(scope="module")
def lengths_mixed(compiled_engine):
    return lengths.run(PLAYERS, STRATEGIES, MATCHES, SEED, tables=TABLES, table_matches=80)


@pytest.fixture(scope="module")
def openings_mixed(compiled_engine):
    return opening_leads.run(PLAYERS, STRATEGIES, MATCHES, SEED, hands=0, tables=TABLES,
                        table_matches=80)


def test_lengths_and_openings_self_play_rows_are_unchanged_by_tables(lengths_mixed,
                                                                     openings_mixed):
    alone = {"lengths": lengths.run(PLAYERS, STRATEGIES, MATCHES, SEED),
             "openings": opening_leads.run(PLAYERS, STRATEGIES, MATCHES, SEED, hands=0)}
    # the openings' tables section is its strength contrasts (the lead's value is per strategy)
    heading = {"lengths": "## Mixed tables", "openings": "## Strength differences"}
    for mixed in (lengths_mixed, openings_mixed):
        plain = alone[mixed.name]
        _same_self_play(plain, mixed)
        for name, frame in mixed.frames.items():
            if "table" in frame and name in plain.frames:
                assert (frame["table"] == "exact vs greedy").any()
        assert heading[mixed.name] in mixed.markdown
        assert heading[mixed.name] not in plain.markdown
    assert "head_to_head" in lengths_mixed.plots and "head_to_head" not in alone["lengths"].plots


def _table_traces(players: int):
    """Every rotation's trace of the exact vs greedy table, with its entities' strategies."""
    return [(_trace_of(players, r.seat_strategies(players), 80),
             np.array(r.entity_strategies, dtype=object))
            for r in Table(("exact", "greedy")).rotations(players)]


def test_lengths_table_rows_equal_a_direct_count(lengths_mixed):
    frames = {name: frame[frame["table"] == "exact vs greedy"]
              for name, frame in lengths_mixed.frames.items()}
    for players in PLAYERS:
        traces = _table_traces(players)
        rounds = np.concatenate([t.matches["rounds"].to_numpy() for t, _ in traces])
        row = frames["lengths"][frames["lengths"].players == players].iloc[0]
        assert row.strategy == "exact vs greedy" and row.matches == len(rounds)
        assert row.rounds_mean == pytest.approx(rounds.mean())
        paths = frames["trajectories"]
        for name in ("exact", "greedy"):
            # the strategy's winner path after round 1: its entity's displayed score in the
            # finished matches it won
            scores = []
            for trace, names in traces:
                winner = trace.matches["winner"].to_numpy()
                ev = trace.events[trace.events.accepted & (trace.events["round"] == 0)]
                for m, w in zip(trace.matches["match"], winner):
                    if w >= 0 and names[w] == name:
                        raw = ev.loc[(ev["match"] == m) & (ev.entity == w), "raw"].sum()
                        scores.append(raw // 5)
            sel = paths[(paths.players == players) & (paths.strategy == name)
                        & (paths.side == "winner") & (paths["round"] == 1)].iloc[0]
            assert sel.matches == len(scores) and sel["mean"] == pytest.approx(np.mean(scores))
        won = paths[(paths.players == players) & (paths.side == "winner") & (paths["round"] == 1)]
        assert won.matches.sum() == row.matches - row.unfinished


def test_openings_seats_and_settlement_table_rows_cover_every_match(openings_mixed, seats_mixed,
                                                                    settlement_mixed):
    label = "exact vs greedy"
    for players in PLAYERS:
        traces = _table_traces(players)
        matches = sum(len(t.matches) for t, _ in traces)
        rounds = sum(int(t.matches["rounds"].sum()) for t, _ in traces)
        tiles = openings_mixed.frames["tiles"]
        tiles = tiles[(tiles.table == label) & (tiles.players == players)]
        # every match's first round, and every round, was led by one strategy's entity; the
        # rotations of one deal that a strategy led with the same tile count once (the unit is
        # the deal's round), so each count lies between one rotation's and all rotations'
        rotations = len(traces)
        assert matches / rotations <= tiles.first_n.sum() <= matches
        assert rounds / rotations <= tiles.any_n.sum() <= rounds
        if players == 3:  # greedy fills two seats: some deal it led in two rotations alike
            assert tiles.first_n.sum() < matches
        rp = seats_mixed.frames["round_positions"]
        led = rp[(rp.table == label) & (rp.players == players) & (rp.offset == 0)]
        assert led.rounds.sum() == rounds
        seats_frame = seats_mixed.frames["absolute_seats"]
        finished = sum(int((t.matches["winner"] >= 0).sum()) for t, _ in traces)
        for seat in range(players):
            sel = seats_frame[(seats_frame.table == label) & (seats_frame.players == players)
                              & (seats_frame.seat == seat)]
            assert sel.matches.sum() == finished  # each seat plays one strategy per match
        blocked = settlement_mixed.frames["blocked"]
        blocked = blocked[(blocked.table == label) & (blocked.players == players)]
        events = {"exact": 0, "greedy": 0}
        dominoes = {"exact": 0, "greedy": 0}
        for trace, names in traces:
            ev = trace.events
            for name in events:
                own = names[ev.entity.to_numpy()] == name
                events[name] += int((own & (ev.kind == "blocked")).sum())
                dominoes[name] += int((own & (ev.kind == "domino")).sum())
        for name, count in events.items():
            assert blocked[blocked.strategy == name].blocked_events.iloc[0] == count
        if players == 4:
            debit = settlement_mixed.frames["partner_debit"]
            debit = debit[debit.table == label]
            for name, count in dominoes.items():
                assert debit[debit.strategy == name].dominoes.iloc[0] == count


def test_overshoot_contrasts_count_a_two_seat_strategy_once_per_deal(overshoot_mixed):
    """exact - greedy at 3 players (greedy in two seats): by hand from the rotations' traces,
    each deal's value the mean over greedy's two seats and the three rotations; n = deals."""
    contrasts = overshoot_mixed.frames["comparisons"]
    rotations = Table(("exact", "greedy")).rotations(3)
    per_deal = {"exact": np.zeros(80), "greedy": np.zeros(80)}
    for r in rotations:
        trace = _trace_of(3, r.seat_strategies(3), 80)
        discarded = trace.paths["discarded"].to_numpy().reshape(80, 3)
        for name in per_deal:
            seats_of = [e for e, s in enumerate(r.entity_strategies) if s == name]
            per_deal[name] += discarded[:, seats_of].mean(axis=1) / len(rotations)
    diff = per_deal["exact"] - per_deal["greedy"]
    mean, low, high = mean_interval(diff)
    row = contrasts[(contrasts.players == 3) & (contrasts.quantity == "discarded")].iloc[0]
    assert (row.a, row.b, row.deals) == ("exact", "greedy", 80)  # deals, not seats x rotations
    assert row.difference == pytest.approx(mean)
    assert (row.low, row.high) == (pytest.approx(low), pytest.approx(high))
    paths = overshoot_mixed.frames["paths"]
    greedy = paths[(paths.table == "exact vs greedy") & (paths.players == 3)
                   & (paths.strategy == "greedy")].iloc[0]
    assert greedy.deals == 80
    assert greedy.events_discarded_per_entity == pytest.approx(per_deal["greedy"].mean())
    assert (greedy.events_discarded_per_entity_low, greedy.events_discarded_per_entity_high) == (
        pytest.approx(mean_interval(per_deal["greedy"])[1]),
        pytest.approx(mean_interval(per_deal["greedy"])[2]))


def test_head_to_head_claims_follow_their_adjusted_intervals(overshoot_mixed, settlement_mixed):
    for result in (overshoot_mixed, settlement_mixed):
        comparisons = result.frames["comparisons"]
        mixed = comparisons[comparisons["table"] != SELF_PLAY]
        # every deal paired: no comparison is restricted to the deals where both reached a score
        assert len(mixed) and (mixed["deals"] == 80).all()
        plan = result.name == "overshoot" and overshoot.plan_for(result.settings) or \
            settlement.plan_for(result.settings)
        assert set(comparisons["id"]) <= {c.id for c in plan.comparisons}
        for row in comparisons.itertuples(index=False):
            excludes = row.adj_low > 0 or row.adj_high < 0
            assert (row.verdict == "finding") == (excludes and row.verdict != "equivalent")
            if row.verdict == "finding":
                assert row.words.endswith(f"{row.a} {'higher' if row.difference > 0 else 'lower'}")
            elif row.verdict == "equivalent":
                assert -row.sesoi < row.adj_low and row.adj_high < row.sesoi
                assert "equivalent within +-" in row.words
            else:
                assert row.words.endswith("no detectable difference")
            # the summary states the sentence as computed, nothing else
            assert f"{row.words}" in result.markdown
        for row in mixed.itertuples(index=False):
            assert result.key_numbers[mixed_tables.table_label(row)] == (
                mixed_tables.comparison_value(row))


# ---------------------------------------------------------------------------
# seats: a strategy in several seats counts once per deal (hand-built table)
# ---------------------------------------------------------------------------
def _hand_table():
    """``a,b`` at 3 players (a against b, b), two deals, every rotation, one round each.

    Rotation r seats entity e with the strategy of entity (e - r) mod 3 of (a, b, b). Deal 0:
    the lot falls to seat 0; the winners of rotations 0, 1, 2 are entities 0 (a, the lot), 0
    (b, the lot), 1 (b, not the lot). Deal 1: the lot falls to seat 1; winners 2 (b), 1 (a, the
    lot), 1 (b, the lot).
    """
    from experiments.sources import TableData

    table = Table(("a", "b"))
    leader = {0: 0, 1: 1}
    winners = {(0, 0): 0, (0, 1): 0, (0, 2): 1, (1, 0): 2, (1, 1): 1, (1, 2): 1}
    rows = []
    for (deal, rotation), winner in winners.items():
        rows.append({"rotation": rotation, "match": deal, "round": 0, "leader": leader[deal],
                     "leader_entity": leader[deal], "winner": winner, "match_winner": winner,
                     **{f"raw_{e}": (305 if e == winner else 0) for e in range(3)}})
    return TableData(table.label, 3, table.rotations(3), pd.DataFrame(rows))


def test_a_strategy_in_two_seats_counts_once_per_deal():
    result = seats.analyse({}, {"players": [3], "matches": 2, "seed": 0, "strategies": ["a"],
                                "tables": [["a", "b"]], "table_matches": 2},
                           [(("a vs b", 3), _hand_table())])
    head = result.frames["head_to_head"].set_index("strategy")
    # b holds two entities in each of 3 rotations: 6 rows per deal, yet n = 2 deals
    assert head.loc["b", "entities_per_match"] == 2.0 and head.loc["b", "deals"] == 2
    assert head.loc["a", "deals"] == 2
    # per deal: a won 1 of its 3 entity-matches, b 2 of its 6
    assert head.loc["a", "win_rate"] == pytest.approx(1 / 3)
    assert head.loc["b", "win_rate"] == pytest.approx(1 / 3)
    # the lot: a won every match in which it held the lot; b one of two per deal
    assert head.loc["a", "lot_win_rate"] == pytest.approx(1.0)
    assert head.loc["b", "lot_win_rate"] == pytest.approx(0.5)
    assert head.loc["a", "no_lot_win_rate"] == 0 and head.loc["b", "no_lot_win_rate"] == 0
    lot = result.frames["first_lot"].set_index("strategy")
    # no edge against chance in a table: with the lot, a strategy's rate is strength and lot
    assert lot[["edge", "edge_low", "edge_high"]].isna().all().all()
    assert lot.loc["b", "win_rate"] == pytest.approx(0.5)
    assert lot.loc["b", "deals"] == 2 and lot.loc["b", "finished"] == 4  # 4 lot matches, 2 deals
    # the interval is over the 2 per-deal values, as mixed_tables.deal_share gives it
    assert (head.loc["b", "lot_win_low"], head.loc["b", "lot_win_high"]) == pytest.approx(
        deal_share(pd.Series([0.5, 0.5]))[1:3])
    assert head.loc["b", "lot_win_high"] - head.loc["b", "lot_win_low"] > 0  # never zero-width
    # the value of the lot, won - lost, paired by deal: a 1 - 0, b 0.5 - 0, on 2 deals
    assert head.loc["a", "lot_effect"] == pytest.approx(1.0)
    assert head.loc["b", "lot_effect"] == pytest.approx(0.5)
    contrasts = result.frames["comparisons"]
    diff = contrasts[contrasts["quantity"] == seats.LOT_EFFECT_DIFFERENCE].iloc[0]
    assert (diff.a, diff.b, diff.deals) == ("a", "b", 2)
    assert diff.difference == pytest.approx(0.5)
    win = contrasts[contrasts["quantity"] == seats.WIN_SHARE].iloc[0]
    assert win.deals == 2 and win.difference == pytest.approx(0.0) and win.verdict != "finding"
    # the seats by position and absolute seat: once per deal too
    positions = result.frames["positions"]
    assert set(positions["deals"]) == {2}
    lead = positions[(positions.strategy == "b") & (positions.position == 0)].iloc[0]
    assert lead.matches == 4 and lead.win_rate == pytest.approx(0.5)


def test_per_deal_means_average_a_strategys_seats():
    wide = per_deal_means([1, 0, 1, 1, 0, np.nan], [0, 0, 0, 1, 1, 1],
                          ["a", "b", "b", "a", "b", "a"])
    assert list(wide.columns) == ["a", "b"] and list(wide.index) == [0, 1]
    assert wide.loc[0, "b"] == 0.5 and wide.loc[1, "b"] == 0.0 and wide.loc[1, "a"] == 1.0
    # two seats that always agree carry one deal's information, not two
    once = deal_share(pd.Series([1.0, 0.0, 1.0, 1.0]))
    assert once[3] == 4 and once[0] == pytest.approx(0.75)
    twice = deal_share(pd.Series([1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]))
    assert once[2] - once[1] > twice[2] - twice[1]


def test_seats_claims_follow_their_adjusted_intervals(seats_mixed, monkeypatch, tmp_path):
    contrasts = seats_mixed.frames["comparisons"]
    assert len(contrasts) and set(contrasts["table"]) == {SELF_PLAY, "exact vs greedy"}
    for row in contrasts.itertuples(index=False):
        assert (row.verdict == "finding") == (
            (row.adj_low > 0 or row.adj_high < 0) and row.verdict != "equivalent")
        assert row.words.endswith("no detectable difference") == (row.verdict == "inconclusive")
        assert row.words in seats_mixed.markdown
        assert row.low <= row.difference <= row.high
    # at two sides the lot's effect is stated once per table, not once per strategy
    values = contrasts[(contrasts["quantity"] == seats.LOT_EFFECT)
                       & (contrasts["table"] != SELF_PLAY)]
    assert values.groupby("players").size().to_dict() == {2: 1, 3: 2, 4: 1}
    # the strength difference is its own heading, apart from the lot
    text = seats_mixed.markdown
    assert "### Strength: match win share per entity, A - B" in text
    strength = contrasts[contrasts["quantity"] == seats.WIN_SHARE]
    section = text.split("### Strength")[1].split("###")[0]
    assert all(row.words in section for row in strength.itertuples())
    figure = table_plots.head_to_head_figure(seats.head_to_head_rows(seats_mixed.frames),
                                             seats.HEAD_TO_HEAD_PANELS, seats_mixed.settings)
    from experiments.reporting.figures import strategy_colour
    assert print_problems(figure) == []
    labels = [t.get_text() for t in figure.legends[0].get_texts()]
    assert labels == ["greedy", "exact"]  # every entry a drawn strategy, no marker legend
    for ax in figure.axes:  # every strategy series in the strategy's own colour
        for container in ax.containers:
            assert container.lines[0].get_color() == strategy_colour(container.get_label())
    top = [ax for ax in figure.axes if ax.get_ylabel().startswith("first-lot effect")][0]
    low, high = top.get_ylim()
    assert low == pytest.approx(-high)  # the lot effect: symmetric about 0
    monkeypatch.setenv(AUDIT_ENV, "strict")
    seats_mixed.plots["head_to_head"](tmp_path / "head_to_head.png")


def test_settlement_and_lengths_head_to_head_figures_are_fit_for_print(settlement_mixed,
                                                                      lengths_mixed, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv(AUDIT_ENV, "strict")  # save_png raises on any print problem
    for result in (settlement_mixed, lengths_mixed):
        result.plots["head_to_head"](tmp_path / f"{result.name}.png")
        assert (tmp_path / f"{result.name}.png").stat().st_size > 0


@pytest.fixture(scope="module")
def greedy_copy_table(compiled_engine):
    """greedy against a copy of itself under another name, beside greedy's self-play, and
    weighted against greedy: every player count, the same deals."""
    from strategies import resolve, variant

    greedy = resolve("greedy")
    copy = variant(greedy, name="copycat")
    return seats.run(PLAYERS, ["greedy"], 600, 23, tables=[[greedy, copy], "weighted,greedy"],
                     table_matches=600)


def _lot_rows(result, table: str, players: int):
    comparisons = result.frames["comparisons"]
    return comparisons[(comparisons["table"] == table) & (comparisons["players"] == players)
                       & (comparisons["quantity"] == seats.LOT_EFFECT)]


def test_a_copy_of_greedy_gives_self_plays_lot_effect(greedy_copy_table):
    """The lot effect within a strategy does not depend on who else plays: greedy against a
    renamed greedy gives greedy self-play's lot effect, inside its interval."""
    for players in PLAYERS:
        own = _lot_rows(greedy_copy_table, SELF_PLAY, players).iloc[0]
        for row in _lot_rows(greedy_copy_table, "greedy vs copycat", players).itertuples():
            assert own.low <= row.difference <= own.high, (players, row.words)
            assert row.low <= own.difference <= row.high


def test_weighted_against_greedy_gives_lot_effects_of_self_plays_size(greedy_copy_table):
    """weighted wins most matches against greedy (a strength gap of tens of points), yet the lot
    is worth a few points to each of them, as in self-play: the lot effect is not the strength
    gap (which the old "first-lot edge" per strategy, P(win | won the lot) - 1/n, measured)."""
    comparisons = greedy_copy_table.frames["comparisons"]
    for players in PLAYERS:
        gap = comparisons[(comparisons["table"] == "weighted vs greedy")
                          & (comparisons["players"] == players)
                          & (comparisons["quantity"] == seats.WIN_SHARE)].iloc[0]
        assert gap.difference > 0.25 and gap.verdict == "finding"
        own = _lot_rows(greedy_copy_table, SELF_PLAY, players).iloc[0]
        for row in _lot_rows(greedy_copy_table, "weighted vs greedy", players).itertuples():
            assert abs(row.difference) < 0.12 < gap.difference / 2
            assert abs(row.difference - own.difference) < 0.1
        # the confounded figure: weighted's match win with the lot minus chance
        head = greedy_copy_table.frames["head_to_head"]
        weighted = head[(head.table == "weighted vs greedy") & (head.players == players)
                        & (head.strategy == "weighted")].iloc[0]
        assert weighted.lot_win_rate - weighted.fair_share > 0.2
