"""experiments.studies.win_probabilities: the run's files, and the shipped table (strategies.winprob_table).

The shipped table's rules are checked on the committed file: shape, bounds, terminal rows,
symmetry, order within its error, the lot value's 95% half-width targets (0.025 with both
scores at most 50, 0.05 everywhere, 2 and 4 players), its replicate tables and its command;
that it is read lazily (nothing at import) and that a changed table changes the identity of
every compiled strategy that reads it.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numba import njit

import strategies.winprob_table as shipped
from cli.main import build_parser
from experiments.reporting import figures
from experiments.studies import win_probabilities
from sim.study_kernels import winprob as WP
from strategies import matchplay, pimc
from strategies.identity import dispatcher_digests, function_digest
from strategies.winprob_codes import (QUANTUM, cells_of_values, distinct_values, exact_mask,
                                      expand_own_slice, quantise, read_table_file, values_of,
                                      write_table_file)

QUANTUM_STEP = 1.0 / QUANTUM
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tiny_run(compiled_engine, tmp_path_factory):
    out = tmp_path_factory.mktemp("winprob") / "run"
    ship = out.parent / "table.npz"
    result = win_probabilities.run((2, 4), "greedy", rounds_per_state=2, seed=2, replicates=3,
                                   check_matches=20, targets=None, ship_replicates=2, out=out,
                                   ship=ship)
    return result, out, ship


def test_run_writes_the_files(tiny_run):
    _result, out, _ = tiny_run
    for name in ("table", "sides", "allocation", "check", "comparisons", "timing", "order"):
        assert (out / f"{name}.parquet").is_file() and (out / f"{name}.csv").is_file()
    for name in ("heatmaps.png", "check.png", "summary.md", "run.json", "plan.json"):
        assert (out / name).is_file(), name
    table = pd.read_parquet(out / "table.parquet")
    cells = {2: 61 * 61, 4: 71 * 71}
    for players, n in cells.items():
        sel = table[table.players == players]
        assert len(sel) == (n * players + n) * 2  # (leader seats + lot) x 2 entities
        assert set(sel.leader) == {str(s) for s in range(players)} | {"lot"}
        assert sel.score_2.isna().all()
    assert list(table.columns) == ["players", "profile", "score_0", "score_1", "score_2", "leader",
                                   "entity", "p_win", "p_low", "p_high"]
    assert table.p_win.between(0, 1).all()
    assert (table.p_low <= table.p_high).all()
    # the two entities' values of a state sum to 1 (every match ends)
    sums = table.groupby(["players", "score_0", "score_1", "leader"]).p_win.sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0, atol=1e-9)
    check = pd.read_csv(out / "check.csv")
    assert set(check.players) == {2, 4} and (check.matches == 20).all()
    # counted once per state: entity 0 only (entity 1's rate is the complement)
    for players in (2, 4):
        sel = check[check.players == players]
        assert len(sel) == len(win_probabilities.CHECK_STATES[players])
        assert (sel.entity == 0).all() and not sel.duplicated(["state", "leader"]).any()
    assert ((check.wins / check.matches - check.direct).abs() < 1e-12).all()
    timing = pd.read_csv(out / "timing.csv")
    assert timing.set_index("players").states.to_dict() == {2: 61 * 61 * 2, 4: 71 * 71 * 4}
    assert "Direct check" in (out / "summary.md").read_text()


def test_the_direct_check_covers_the_grid_with_forty_states_or_more():
    for players in (2, 4):
        states = win_probabilities.CHECK_STATES[players]
        assert len(states) >= 40 and len(set(states)) == len(states)
        cells = np.array([cell for cell, _ in states])
        assert (cells.max(axis=1) >= 58).sum() >= 6  # near 61
        assert (cells.max(axis=1) <= 30).sum() >= 6  # early
        assert ((cells[:, 0] > cells[:, 1]).any() and (cells[:, 0] < cells[:, 1]).any())
        assert {lead for _, lead in states} == {None, 0, 1}


def test_the_written_file_holds_the_runs_table_and_replicates(tiny_run):
    result, out, ship = tiny_run
    written = read_table_file(ship)
    sides = result.frames["sides"]
    for p, players in enumerate((2, 4)):
        table = win_probabilities.side_array(sides, players, "p_win")
        half = win_probabilities.side_array(sides, players, "half_width")
        np.testing.assert_array_equal(written.point_codes[p], quantise(table))
        # decoded, repeated codes are moved apart (a tiny run repeats many near 0 and 1)
        assert np.abs(written.table[p] - table).max() < 4 * QUANTUM_STEP
        # rounded up: never narrower than the run's, by less than one step
        assert (written.half_width[p] >= np.nan_to_num(half) - 1e-6).all()
        np.testing.assert_allclose(written.half_width[p], np.nan_to_num(half),
                                   atol=QUANTUM_STEP + 1e-6)
    replicates = written.replicates()
    assert replicates.shape == (2, 2, 62, 62, 3)
    assert written.run["profile"] == "greedy" and written.run["rounds_per_state"] == 2
    assert written.run["command"] == win_probabilities.command_for(result.settings, out, ship)
    assert written.run["shipped_replicates"] == 2 and written.run["replicates"]["2"] == 3
    # the same arrays give the same bytes
    again = ship.with_name("again.npz")
    write_table_file(again, values_of(written.point_codes), written.half_width, replicates,
                     written.run)
    assert again.read_bytes() == ship.read_bytes()


def test_replicates_are_the_fitted_bootstrap_tables(compiled_engine):
    """A stored replicate is its own-lead slice; expanding it gives the fitted replicate whole
    (the mirror, the lot, the terminal rows)."""
    rounds = WP.simulate_states(2, "greedy", 3, 9)
    values = WP.win_values(rounds, replicates=3)
    tables = WP.fitted_tables(values, symmetric=True)
    for replicate in tables.replicates:
        rebuilt = expand_own_slice(replicate[:61, :61, 0])
        np.testing.assert_allclose(rebuilt, replicate, atol=2e-6)
    low, high = tables.interval()
    assert ((high - low) >= 0).all() and tables.replicates.shape == (3, 62, 62, 3)


def test_table_values_name_their_cells():
    """Every inexact cell holds a value no other cell holds (a code's step is far larger than
    the moves), so a value read back from a search names its cell."""
    table = shipped.WIN_TABLE
    free = ~exact_mask(table.shape)
    assert np.unique(table[free]).size == free.sum()
    assert not np.isin(table[free], [0.0, 1.0]).any()
    codes = np.rint(table.astype(np.float64) * QUANTUM)
    np.testing.assert_array_equal(codes, shipped.shipped().point_codes)  # each code kept
    assert np.abs(table.astype(np.float64) * QUANTUM - codes).max() < 0.25
    for p in range(2):
        flat = table[p].ravel()
        picks = np.flatnonzero(free[p].ravel())[::97]
        np.testing.assert_array_equal(cells_of_values(table[p], flat[picks].astype(np.float64)),
                                      picks)
        assert (cells_of_values(table[p], [0.0, 1.0, 0.123456789]) == -1).all()
    noisy = np.full((2, 62, 62, 3), 0.25, dtype=np.float32)
    assert np.unique(distinct_values(noisy)[~exact_mask(noisy.shape)]).size == free.sum()


def test_the_table_is_read_lazily_not_at_import():
    code = ("import strategies.winprob_table as w, strategies.matchplay, strategies.pimc, "
            "sim.study_kernels.openings; print('WIN_TABLE' in vars(w))")
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, check=True)
    assert found.stdout.strip() == "False"


def test_the_table_file_is_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["strategies"]
    assert any(fnmatch(shipped.DATA_FILE.name, pattern) for pattern in patterns)
    assert shipped.DATA_FILE.is_file() and shipped.DATA_FILE.stat().st_size < 4_000_000


def test_a_changed_table_changes_every_compiled_readers_identity(monkeypatch):
    """Numba freezes the table into the machine code: every strategy and separately compiled
    search that reads it must digest its values, so a regenerated table compiles anew."""
    before = (function_digest(matchplay.outcome_value),
              dict((d.py_func.__qualname__, h) for d, h in dispatcher_digests([pimc.world_table])))
    changed = shipped.WIN_TABLE.copy()
    changed[0, 30, 30, 0] += np.float32(1e-3)
    monkeypatch.setattr(shipped, "WIN_TABLE", changed)
    after = (function_digest(matchplay.outcome_value),
             dict((d.py_func.__qualname__, h) for d, h in dispatcher_digests([pimc.world_table])))
    assert after[0] != before[0]
    assert after[1]["world_table"] != before[1]["world_table"]


def test_shipped_table_shape_bounds_and_terminal_rows():
    table = shipped.WIN_TABLE
    assert table.shape == (2, 62, 62, 3) and table.dtype == np.float32
    assert table.flags["C_CONTIGUOUS"]
    assert table.min() >= 0 and table.max() <= 1
    assert (table[:, 61, :61] == 1).all() and (table[:, :61, 61] == 0).all()
    inner = table[:, :61, :61].astype(np.float64)
    # self-play, both perspectives averaged: a tie by lot is even, and the two leads mirror
    np.testing.assert_allclose(np.diagonal(inner[..., 2], axis1=1, axis2=2), 0.5,
                               atol=QUANTUM_STEP)
    np.testing.assert_allclose(inner[..., 0] + np.swapaxes(inner[..., 1], 1, 2), 1.0,
                               atol=2 * QUANTUM_STEP)
    # far ahead wins, far behind loses; leading the round is worth something
    assert (table[:, 60, 0, :] > 0.95).all() and (table[:, 0, 60, :] < 0.05).all()
    lead_edge = np.diagonal(inner[..., 0] - inner[..., 1], axis1=1, axis2=2).mean(axis=1)
    assert (lead_edge > 0).all()
    assert isinstance(shipped.WIN_TABLE_ROUNDS, int) and shipped.WIN_TABLE_ROUNDS >= 1


def test_shipped_lot_half_widths_meet_their_targets():
    """The lot value's 95% half-width is at most 0.025 with both scores at most 50 and at most
    0.05 everywhere, at 2 and 4 players (exact values have none)."""
    half = shipped.WIN_TABLE_HALF_WIDTH.astype(np.float64)
    lot = half[:, :61, :61, 2]
    targets = WP.half_width_targets(0.025, 0.05)
    assert (lot <= targets[None] + QUANTUM_STEP).all(), lot.max(axis=(1, 2))
    run = shipped.WIN_TABLE_RUN
    assert min(run["replicates"].values()) >= 1000
    assert run["targets"] == [0.025, 0.05]


def test_shipped_replicates_spread_as_the_half_widths_say():
    """The shipped replicate tables are the bootstrap's: their spread matches the shipped
    half-widths (which 1,000 replicates measured) within the sampling error of fewer."""
    replicates = shipped.replicate_tables().astype(np.float64)
    assert replicates.shape[0] >= 100 and replicates.shape[1:] == (2, 62, 62, 3)
    spread = (np.percentile(replicates, 97.5, axis=0) - np.percentile(replicates, 2.5, axis=0)) / 2
    half = shipped.WIN_TABLE_HALF_WIDTH.astype(np.float64)
    wide = half > 0.01
    ratio = spread[wide] / half[wide]
    assert 0.8 < np.median(ratio) < 1.2
    centre = replicates.mean(axis=0)
    assert np.abs(centre - shipped.WIN_TABLE)[wide].max() < 0.05


def test_shipped_command_parses_and_names_the_table():
    words = shlex.split(shipped.WIN_TABLE_COMMAND)
    assert words[:2] == ["five-up", "winprob"]
    args = build_parser(words[1:]).parse_args(words[1:])
    assert args.ship == "strategies/winprob_table.npz"
    assert args.strategies == shipped.WIN_TABLE_PROFILE
    assert int(args.rounds_per_state) == shipped.WIN_TABLE_ROUNDS
    settings = win_probabilities.settings_for(
        args.players, args.strategies, args.rounds_per_state, args.seed, args.replicates,
        args.check_matches, args.targets, args.max_rounds_per_state, args.ship_replicates)
    win_probabilities.check_shippable(settings)
    assert win_probabilities.command_for(settings, args.out, args.ship) == shipped.WIN_TABLE_COMMAND


def test_compiled_code_freezes_the_table():
    table = shipped.WIN_TABLE

    @njit
    def lookup(p, own, opponent, lead):
        return table[p, own, opponent, lead]

    assert lookup(1, 40, 20, 2) == table[1, 40, 20, 2]


def test_settings_refuse_bad_profiles_and_ship():
    with pytest.raises(ValueError, match="3 players need"):
        win_probabilities.settings_for((2, 3), "greedy,random")
    with pytest.raises(ValueError, match="rounds_per_state"):
        win_probabilities.settings_for(2, "greedy", rounds_per_state=0)
    with pytest.raises(ValueError, match="at least 2 rounds"):
        win_probabilities.settings_for(2, "greedy", rounds_per_state=1)
    with pytest.raises(ValueError, match="targets"):
        win_probabilities.settings_for(2, "greedy", targets="0.02")
    with pytest.raises(ValueError, match="targets need bootstrap replicates"):
        win_probabilities.settings_for(2, "greedy", replicates=0)
    with pytest.raises(ValueError, match="include 2 and 4"):
        win_probabilities.check_shippable(win_probabilities.settings_for(2, "greedy"))
    with pytest.raises(ValueError, match="self-play"):
        win_probabilities.check_shippable(win_probabilities.settings_for((2, 4), "greedy,random"))
    s = win_probabilities.settings_for((2, 3, 4), "greedy")
    assert s["rounds_per_state"] == [32, 8, 32] and s["replicates"] == [1000, 40, 1000]
    assert s["targets"] == [0.025, 0.05] and s["max_rounds_per_state"] == [2048, 512, 2048]
    assert win_probabilities.settings_for(2, "greedy", replicates=0, targets="none")["targets"] is None


def test_the_plan_is_declared_from_the_settings(tiny_run):
    result, out, _ = tiny_run
    plan = win_probabilities.plan_for(result.settings)
    comparisons = result.frames["comparisons"]
    assert set(comparisons["id"]) == {c.id for c in plan.comparisons}
    primary = comparisons[comparisons.family == "primary"]
    assert len(primary) == 6 and primary["id"].str.contains("own leads - opponent leads").all()
    assert (comparisons[comparisons.family == "exploratory"]["quantity"] == "check").all()
    for row in comparisons.itertuples():
        assert row.words.startswith(f"{row.a} - {row.b}")
        assert row.verdict in ("finding", "equivalent", "inconclusive")
        assert (row.verdict == "finding") == row.words.endswith(("higher", "lower"))
    assert (out / "plan.json").read_text().count('"id"') == len(plan.comparisons)
    assert "Comparisons declared before the run" in result.markdown


@pytest.mark.slow
def test_three_players_run_writes_the_slice(compiled_engine, tmp_path):
    result = win_probabilities.run(3, "greedy", rounds_per_state=2, replicates=2, check_matches=20,
                                   seed=1, out=tmp_path / "run")
    assert (tmp_path / "run" / "slice_3p.png").is_file()
    table = result.frames["table"]
    assert len(table) == (61 ** 3 * 3 + 61 ** 3) * 3
    assert result.frames["sides"].empty


def test_every_figure_prints_and_carries_the_runs_footer(tiny_run, monkeypatch, tmp_path):
    result, _, _ = tiny_run
    monkeypatch.setenv(figures.AUDIT_ENV, "strict")
    drawn = []
    real = figures.save_png

    def keep(fig, path, dpi=figures.PRINT_DPI):
        drawn.append(fig)
        real(fig, path, dpi)  # raises on a figure that breaks the print rules

    monkeypatch.setattr(figures, "save_png", keep)
    win_probabilities.plot_heatmaps(result.frames["sides"], result.settings, tmp_path / "h.png")
    win_probabilities.plot_check(result.frames["check"], result.settings, tmp_path / "c.png")
    footer = ("profile greedy: rounds per state first 2p 2, 4p 2, bootstrap replicates 3, 3, "
              "players 2, 4, seed 2")
    for fig in drawn:
        assert figures.print_problems(fig) == []
        assert footer in [t.get_text().replace("\n", " ") for t in fig.texts]
    assert len(drawn) == 2


def test_shipped_table_is_ordered_within_its_error():
    """No adjacent drop over scores 0..50 exceeds its half-width (the fit leaves none at all);
    every half-width is 0 exactly where the value is exact and positive elsewhere."""
    table = shipped.WIN_TABLE.astype(np.float64)
    half = shipped.WIN_TABLE_HALF_WIDTH.astype(np.float64)
    for p in range(2):
        counts = WP.adjacent_drops(table[p], half[p], tol=2 * QUANTUM_STEP)
        assert counts["inside_beyond"] == 0 and counts["inside_drops"] == 0, counts
    inner = half[:, :61, :61]
    diagonal = np.arange(61)
    assert (inner[:, diagonal, diagonal, 2] == 0).all()
    inner = inner.copy()
    inner[:, diagonal, diagonal, 2] = np.nan
    assert np.nanmin(inner) > 0  # no zero-width interval unless exact by construction
    assert (half[:, 61] == 0).all() and (half[:, :, 61] == 0).all()


def test_fitted_run_is_ordered_symmetric_and_labels_its_exact_values(tiny_run):
    result, _, _ = tiny_run
    sides = result.frames["sides"]
    for players in (2, 4):
        table = win_probabilities.side_array(sides, players, "p_win")
        half = win_probabilities.side_array(sides, players, "half_width")
        counts = WP.adjacent_drops(table, half)
        assert counts["inside_drops"] == 0 and counts["inside_beyond"] == 0
        inner = table[:61, :61]
        np.testing.assert_allclose(inner[..., 0] + inner[..., 1].T, 1.0, atol=1e-12)
        sel = sides[sides.players == players]
        exact = sel[sel.exact == "symmetry"]
        assert len(exact) == 61 and (exact.lead == "lot").all()
        assert (exact.own == exact.opponent).all() and (exact.p_win == 0.5).all()
        assert (exact.half_width == 0).all()
        terminal = sel[sel.exact == "terminal"]
        assert ((terminal.own == 61) | (terminal.opponent == 61)).all()
        assert len(terminal) == (62 + 61) * 3
    order = result.frames["order"]
    fitted = order[order.table == "fitted"]
    assert (fitted.inside_drops == 0).all() and len(fitted) == 2
    key = result.key_numbers
    assert key["2p: P(entity 0 wins) from 0-0 with the first lot"].startswith(
        "0.5, exact by symmetry")
    assert "largest 95% half-width of the fitted lot values" in " ".join(key)


def test_summary_lists_only_committed_files_and_captions_every_figure(tiny_run):
    result, out, _ = tiny_run
    text = result.markdown
    committed, _, left_out = text.partition("written but not committed")
    assert "`table.csv`" not in committed and "`sides.csv`" not in committed
    assert "`check.csv`" in committed and "`table.csv`" in left_out
    for name in ("heatmaps", "check"):
        assert f"![{name}]({name}.png)" in text and f"**`{name}.png`**" in text
    assert "Plots:" not in text
