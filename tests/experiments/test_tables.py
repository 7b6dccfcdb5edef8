"""Mixed tables in the studies (overshoot, settlement, seats, lengths, openings): rotations, per-strategy figures
cross-checked against the traces, self-play rows unchanged, determinism, bad profiles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments import (
    lengths,
    mixed_tables,
    openings,
    overshoot,
    seats,
    settlement,
    table_plots,
)
from experiments.mixed_tables import SELF_PLAY, Table, check_tables
from experiments.settings import study_settings
from experiments.sources import DataRun
from sim.studies import trace_events

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


def test_self_play_rows_are_unchanged_by_tables(overshoot_mixed, settlement_mixed, seats_mixed):
    alone = {
        "overshoot": overshoot.run(PLAYERS, STRATEGIES, MATCHES, SEED),
        "settlement": settlement.run(PLAYERS, STRATEGIES, MATCHES, SEED),
        "seats": seats.run(PLAYERS, STRATEGIES, MATCHES, SEED),
    }
    for mixed in (overshoot_mixed, settlement_mixed, seats_mixed):
        plain = alone[mixed.name]
        assert set(plain.frames) <= set(mixed.frames)
        for name, frame in plain.frames.items():
            assert (frame["table"] == SELF_PLAY).all()
            same = mixed.frames[name]
            same = same[same["table"] == SELF_PLAY].reset_index(drop=True)
            pd.testing.assert_frame_equal(frame, same[list(frame.columns)])
        for key, value in plain.key_numbers.items():
            assert mixed.key_numbers[key] == value
        assert mixed.markdown.startswith(plain.markdown.split("## Key numbers")[0])
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
        assert row.settlement_share == pytest.approx(settled[name] / accepted)


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


def test_head_to_head_figures_carry_both_sample_sizes(overshoot_mixed):
    footer = (f"{MATCHES} matches per self-play configuration, 80 per table rotation "
              f"(duplicate deals), players 2, 3, 4, seed {SEED}")
    assert table_plots.table_footer(overshoot_mixed.settings) == footer
    fig = table_plots.head_to_head_figure(overshoot_mixed.frames["paths"],
                                          overshoot.HEAD_TO_HEAD_PANELS,
                                          overshoot_mixed.settings, "t")
    assert footer in [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        assert ax.get_ylim()[0] == 0  # no cut-off axis
    assert mixed_tables.SELF_PLAY in [t.get_text() for t in fig.axes[0].get_xticklabels()]


@pytest.fixture(scope="module")
def lengths_mixed(compiled_engine):
    return lengths.run(PLAYERS, STRATEGIES, MATCHES, SEED, tables=TABLES, table_matches=80)


@pytest.fixture(scope="module")
def openings_mixed(compiled_engine):
    return openings.run(PLAYERS, STRATEGIES, MATCHES, SEED, hands=0, tables=TABLES,
                        table_matches=80)


def test_lengths_and_openings_self_play_rows_are_unchanged_by_tables(lengths_mixed,
                                                                     openings_mixed):
    alone = {"lengths": lengths.run(PLAYERS, STRATEGIES, MATCHES, SEED),
             "openings": openings.run(PLAYERS, STRATEGIES, MATCHES, SEED, hands=0)}
    for mixed in (lengths_mixed, openings_mixed):
        plain = alone[mixed.name]
        for name, frame in plain.frames.items():
            assert (frame["table"] == SELF_PLAY).all()
            same = mixed.frames[name]
            same = same[same["table"] == SELF_PLAY].reset_index(drop=True)
            pd.testing.assert_frame_equal(frame, same[list(frame.columns)])
            assert (mixed.frames[name]["table"] == "exact vs greedy").any()
        for key, value in plain.key_numbers.items():
            assert mixed.key_numbers[key] == value
        assert "## Mixed tables" in mixed.markdown and "## Mixed tables" not in plain.markdown
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
        # every match's first round, and every round, was led by one strategy's entity
        assert tiles.first_n.sum() == matches and tiles.any_n.sum() == rounds
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
