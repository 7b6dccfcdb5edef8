"""experiments.studies.win_probabilities: the run's files, and the shipped table strategies.winprob_table."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numba import njit

from cli.main import build_parser
from experiments.studies import win_probabilities
from sim.study_kernels import winprob as WP
import strategies.winprob_table as shipped

QUANTUM_STEP = 1.0 / 65535


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"table_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tiny_run(compiled_engine, tmp_path_factory):
    out = tmp_path_factory.mktemp("winprob") / "run"
    ship = out.parent / "table.py"
    result = win_probabilities.run((2, 4), "greedy", rounds_per_state=2, seed=2, replicates=3,
                         check_matches=20, out=out, ship=ship)
    return result, out, ship


def test_run_writes_the_files(tiny_run):
    _result, out, _ = tiny_run
    for name in ("table", "sides", "check", "timing", "order"):
        assert (out / f"{name}.parquet").is_file() and (out / f"{name}.csv").is_file()
    for name in ("heatmaps.png", "check.png", "summary.md", "run.json"):
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
    for players, states in win_probabilities.CHECK_STATES.items():
        if players in (2, 4):
            sel = check[check.players == players]
            assert len(sel) == len(states) and (sel.entity == 0).all()
            assert not sel.duplicated(["state", "leader"]).any()
    assert ((check.wins / check.matches - check.direct).abs() < 1e-12).all()
    timing = pd.read_csv(out / "timing.csv")
    assert timing.set_index("players").states.to_dict() == {2: 61 * 61 * 2, 4: 71 * 71 * 4}
    assert "Direct check" in (out / "summary.md").read_text()


def test_the_generated_module_holds_the_runs_table(tiny_run):
    result, out, ship = tiny_run
    module = _load(ship)
    sides = result.frames["sides"]
    for p, players in enumerate((2, 4)):
        sel = sides[sides.players == players]
        lead = sel.lead.map({"own": 0, "opponent": 1, "lot": 2}).to_numpy()
        found = module.WIN_TABLE[p, sel.own.to_numpy(), sel.opponent.to_numpy(), lead]
        np.testing.assert_allclose(found, sel.p_win.to_numpy(), atol=QUANTUM_STEP / 2 + 1e-7)
    assert module.WIN_TABLE_PROFILE == "greedy" and module.WIN_TABLE_ROUNDS == 2
    assert module.WIN_TABLE_COMMAND == win_probabilities.command_for(result.settings, out, ship)
    # the generator on the module's own numbers gives the module's text, byte for byte
    for p, players in enumerate((2, 4)):
        sel = sides[sides.players == players]
        lead = sel.lead.map({"own": 0, "opponent": 1, "lot": 2}).to_numpy()
        found = module.WIN_TABLE_HALF_WIDTH[p, sel.own.to_numpy(), sel.opponent.to_numpy(), lead]
        # rounded up: never narrower than the run's, by less than one step
        assert (found >= sel.half_width.to_numpy() - 1e-6).all()
        np.testing.assert_allclose(found, sel.half_width.to_numpy(), atol=QUANTUM_STEP + 1e-7)
    assert WP.table_module_source(module.WIN_TABLE, module.WIN_TABLE_HALF_WIDTH,
                                  module.WIN_TABLE_PROFILE, module.WIN_TABLE_COMMAND,
                                  module.WIN_TABLE_ROUNDS) == ship.read_text()
    assert "Largest: " in module.__doc__


FITTED = pytest.mark.skipif(
    not hasattr(shipped, "WIN_TABLE_HALF_WIDTH"),
    reason="the shipped table predates the fit and its half-widths: regenerate it with "
           "WIN_TABLE_COMMAND")


def _order_rule(table: np.ndarray, half: np.ndarray) -> list[dict]:
    """adjacent_drops of each table size, quantisation steps forgiven."""
    return [WP.adjacent_drops(table[p], half[p], tol=2 * QUANTUM_STEP) for p in range(2)]


@FITTED
def test_shipped_module_is_the_generators_output():
    text = Path(shipped.__file__).read_text()
    assert text == WP.table_module_source(shipped.WIN_TABLE, shipped.WIN_TABLE_HALF_WIDTH,
                                          shipped.WIN_TABLE_PROFILE, shipped.WIN_TABLE_COMMAND,
                                          shipped.WIN_TABLE_ROUNDS)
    assert shipped.WIN_TABLE_COMMAND in shipped.__doc__


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


def test_shipped_command_parses_and_names_the_table():
    words = shlex.split(shipped.WIN_TABLE_COMMAND)
    assert words[:2] == ["five-up", "winprob"]
    args = build_parser(words[1:]).parse_args(words[1:])
    assert args.ship == "strategies/winprob_table.py"
    assert args.strategies == shipped.WIN_TABLE_PROFILE
    assert int(args.rounds_per_state) == shipped.WIN_TABLE_ROUNDS
    settings = win_probabilities.settings_for(args.players, args.strategies, args.rounds_per_state,
                                    args.seed, args.replicates, args.check_matches)
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
    with pytest.raises(ValueError, match="include 2 and 4"):
        win_probabilities.check_shippable(win_probabilities.settings_for(2, "greedy"))
    with pytest.raises(ValueError, match="self-play"):
        win_probabilities.check_shippable(win_probabilities.settings_for((2, 4), "greedy,random"))
    s = win_probabilities.settings_for((2, 3, 4), "greedy")
    assert s["rounds_per_state"] == [32, 8, 32] and s["replicates"] == [100, 40, 100]


@pytest.mark.slow
def test_three_players_run_writes_the_slice(compiled_engine, tmp_path):
    result = win_probabilities.run(3, "greedy", rounds_per_state=2, replicates=2, check_matches=20, seed=1,
                         out=tmp_path / "run")
    assert (tmp_path / "run" / "slice_3p.png").is_file()
    table = result.frames["table"]
    assert len(table) == (61 ** 3 * 3 + 61 ** 3) * 3
    assert result.frames["sides"].empty


def test_every_figure_carries_the_runs_footer(tiny_run, monkeypatch, tmp_path):
    result, _, _ = tiny_run
    drawn = []
    monkeypatch.setattr(win_probabilities, "save_png", lambda fig, path, dpi: drawn.append(fig))
    win_probabilities.plot_heatmaps(result.frames["sides"], result.settings, tmp_path / "h.png")
    win_probabilities.plot_check(result.frames["check"], result.settings, tmp_path / "c.png")
    footer = ("profile greedy: rounds per state 2p 2, 4p 2, bootstrap replicates 3, 3, "
              "players 2, 4, seed 2")
    for fig in drawn:
        assert footer in [t.get_text() for t in fig.texts]
    assert len(drawn) == 2


@FITTED
def test_shipped_table_is_ordered_within_its_error():
    """No adjacent drop over scores 0..50 exceeds its half-width (the fit leaves none at all);
    every half-width is 0 exactly where the value is exact and positive elsewhere."""
    table = shipped.WIN_TABLE.astype(np.float64)
    half = shipped.WIN_TABLE_HALF_WIDTH.astype(np.float64)
    for counts in _order_rule(table, half):
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
    assert "largest 95% half-width" in " ".join(key)


def test_summary_lists_only_committed_files_and_captions_every_figure(tiny_run):
    result, out, _ = tiny_run
    text = result.markdown
    committed, _, left_out = text.partition("written but not committed")
    assert "`table.csv`" not in committed and "`sides.csv`" not in committed
    assert "`check.csv`" in committed and "`table.csv`" in left_out
    for name in ("heatmaps", "check"):
        assert f"![{name}]({name}.png)" in text and f"**`{name}.png`**" in text
    assert "Plots:" not in text
