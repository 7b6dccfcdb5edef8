"""The strength ladder: pairings, duplicate deals, paired intervals, thread independence, the gap share."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from experiments.release import results
from experiments.reporting.figures import print_problems, strategy_colour
from experiments.tools import strength
import sim
from sim.engine.spec import RunSpec

TINY = {"ladder": "random,greedy,exact", "players": (2, 4), "deals": 30, "seed": 5,
        "challenger": "greedy", "reference": "random", "ceiling": "exact"}
"""Pairings: greedy vs random, exact vs greedy (steps), exact vs random (ceiling)."""


@pytest.fixture(scope="module")
def tiny(compiled_engine, tmp_path_factory):
    out = tmp_path_factory.mktemp("strength") / "out"
    return out, strength.run(**TINY, timing_matches=5, resamples=300, out=out)


def test_pairings_steps_roles_skipped_and_deduplicated():
    assert strength.ladder_pairings(["random", "greedy", "exact"], challenger="greedy",
                                    reference="random", ceiling="exact") == [
        ("step", "greedy", "random"), ("step", "exact", "greedy"), ("ceiling", "exact", "random")]
    # the default ladder: 8 steps, pimc vs greedy and vs rollout, cheater vs rollout
    pairs = strength.ladder_pairings(strength.DEFAULT_LADDER)
    assert len(pairs) == 11
    assert pairs[-3:] == [("challenger", "pimc", "greedy"), ("challenger", "pimc", "rollout"),
                          ("ceiling", "cheater", "rollout")]
    # roles outside the ladder drop their pairings
    assert strength.ladder_pairings(["random", "greedy"]) == [("step", "greedy", "random")]


def test_versus_plays_every_ladder_strategy_against_each_yardstick(compiled_engine):
    settings = strength.strength_settings("random,greedy", (2,), 10, seed=3, versus="exact,heavy",
                                          timing_matches=0)
    assert settings["strategies"] == ["random", "greedy", "exact", "heavy"]
    assert settings["pairings"] == [["versus", "random", "exact"], ["versus", "greedy", "exact"],
                                    ["versus", "random", "heavy"], ["versus", "greedy", "heavy"]]
    result = strength.run("random,greedy", (2,), 10, seed=3, versus="exact,heavy", timing_matches=0)
    ladder = result.frames["ladder"]
    assert list(zip(ladder["upper"], ladder["lower"])) == [tuple(p[1:]) for p in settings["pairings"]]
    # the same deals and seatings as the ladder's own pairing of those two (greedy above exact)
    alone = strength.run("exact,greedy", (2,), 10, seed=3, timing_matches=0, challenger="exact",
                         reference="exact", ceiling="exact").frames["matches"]
    both = result.frames["matches"]
    versus = both[(both["upper"] == "greedy") & (both["lower"] == "exact")]
    order = ["seating", "match"]
    assert versus.sort_values(order)["upper_won"].tolist() == \
        alone.sort_values(order)["upper_won"].tolist()
    assert result.frames["gap"].empty


def test_strategy_contrasts_compare_each_strategy_with_the_first_on_the_same_deals(
        compiled_engine, tmp_path):
    out = tmp_path / "out"
    result = strength.run("random,greedy,exact", (2,), 12, seed=4, versus="heavy,defensive",
                          timing_matches=0, out=out)
    compared = result.frames["strategy_contrasts"]
    assert compared[["yardstick", "strategy", "first"]].values.tolist() == [
        ["heavy", "greedy", "random"], ["heavy", "exact", "random"],
        ["defensive", "greedy", "random"], ["defensive", "exact", "random"]]
    matches = result.frames["matches"]
    for row in compared.itertuples():
        def wins(name):  # the strategy's mean win per deal over its two seatings, by hand
            rows = matches[(matches["upper"] == name) & (matches["lower"] == row.yardstick)]
            return rows.groupby("match")["upper_won"].mean()
        difference = wins(row.strategy) - wins(row.first)
        assert row.deals == 12 and row.difference == pytest.approx(float(difference.mean()))
        assert row.low < row.difference < row.high or difference.std() == 0
        compared = result.frames["comparisons"].set_index("id").loc[
            strength.strategy_contrast_id(2, row.strategy, row.first, row.yardstick)]
        assert compared.family == "primary" and compared.difference == row.difference
        assert compared.words in result.markdown
    assert (out / "strategy_contrasts.csv").is_file()
    # without yardsticks there is nothing to compare
    assert "strategy_contrasts" not in strength.run("random,greedy", (2,), 3, seed=4,
                                                    timing_matches=0).frames


def test_files_written_and_tables(tiny):
    out, result = tiny
    for name in ("ladder", "timing", "gap", "wall", "matches"):
        assert (out / f"{name}.parquet").is_file() and (out / f"{name}.csv").is_file(), name
    for name in ("ladder.png", "summary.md", "run.json"):
        assert (out / name).is_file(), name
    assert not (out / "shards").exists()  # removed once the output is written
    ladder = result.frames["ladder"]
    assert len(ladder) == 2 * 3
    assert ladder[["players", "upper", "lower"]].values.tolist() == [
        [p, u, lo] for p in (2, 4)
        for u, lo in (("greedy", "random"), ("exact", "greedy"), ("exact", "random"))]
    assert (ladder["matches"] == 60).all() and (ladder["deals"] == 30).all()
    assert (ladder["upper_wins"] + ladder["lower_wins"] + ladder["draws"] == 60).all()
    assert pd.read_csv(out / "ladder.csv")["upper_wins"].tolist() == ladder["upper_wins"].tolist()
    timing = result.frames["timing"]
    assert len(timing) == 3 * 2 and (timing["cpu_ms_per_match"] > 0).all()
    assert (timing["matches"] >= 5).all()
    summary = (out / "summary.md").read_text()
    assert "## The ladder, 2 players" in summary and "## Closing the gap" in summary
    assert "CPU us / placement" in summary


def test_each_pairing_is_played_on_duplicate_deals(tiny):
    _, result = tiny
    matches = result.frames["matches"]
    for players in (2, 4):
        sel = matches[(matches.players == players) & (matches.upper == "exact")
                      & (matches.lower == "greedy")]
        outcome = {}
        for seating, sides in enumerate((["exact", "greedy"], ["greedy", "exact"])):
            frame = sim.simulate(players, sides, 30, seed=5)
            outcome[seating] = (frame["winner"] == seating).to_numpy()
            mine = sel[sel.seating == seating].sort_values("match")
            assert (mine["upper_won"].to_numpy() == outcome[seating]).all()
            assert (mine["winner"].to_numpy() == frame["winner"].to_numpy()).all()
        # the per-deal pairs give the paired estimate
        deal_means = (outcome[0].astype(float) + outcome[1]) / 2
        row = result.frames["ladder"].query("players == @players and upper == 'exact' "
                                            "and lower == 'greedy'").iloc[0]
        assert row.win_rate == pytest.approx(deal_means.mean())
        # and the two seatings of a deal are the same deal: hands, boneyard, first leader
        a = sim.record(players, ["exact", "greedy"], 3, seed=5)
        b = sim.record(players, ["greedy", "exact"], 3, seed=5)
        for x, y in zip(a, b):
            first_x, first_y = x["rounds"][0], y["rounds"][0]
            assert first_x["hands"] == first_y["hands"]
            assert first_x["boneyard"] == first_y["boneyard"]
            assert first_x["leader"] == first_y["leader"]


def test_the_paired_interval_brackets_the_estimate_and_is_not_wider_than_wilson(tiny):
    ladder = tiny[1].frames["ladder"]
    assert (ladder.paired_low <= ladder.win_rate).all()
    assert (ladder.win_rate <= ladder.paired_high).all()
    assert ((ladder.paired_low >= 0) & (ladder.paired_high <= 1)).all()
    assert (ladder.wilson_low <= ladder.win_rate).all() and (ladder.win_rate <= ladder.wilson_high).all()


def test_results_do_not_depend_on_threads_or_shards(tiny):
    one = strength.run(**TINY, timing_matches=0, resamples=300, threads=1, shard_size=7)
    two = strength.run(**TINY, timing_matches=0, resamples=300, threads=2)
    for name in ("ladder", "gap", "matches"):
        pd.testing.assert_frame_equal(one.frames[name], two.frames[name], check_exact=True)
        pd.testing.assert_frame_equal(one.frames[name], tiny[1].frames[name], check_exact=True)
    assert one.frames["timing"].empty


def test_an_interrupted_run_resumes_from_its_shards(compiled_engine, tmp_path):
    first = strength.run(**TINY, timing_matches=0, out=tmp_path, keep_shards=True)
    assert (tmp_path / "shards" / strength.SOURCE).is_dir()
    again = strength.run(**TINY, timing_matches=0, out=tmp_path)
    wall = again.frames["wall"]
    assert (wall["resumed_shards"] == wall["shards"]).all()
    pd.testing.assert_frame_equal(first.frames["ladder"], again.frames["ladder"])
    assert not (tmp_path / "shards").exists()


def test_greedy_clearly_beats_random(compiled_engine):
    ladder = strength.run("random,greedy", (2, 4), 200, seed=11,
                          timing_matches=0).frames["ladder"].set_index("players")
    # measured: about 89% with 2 players and 97% with 4
    assert ladder.loc[2, "paired_low"] > 0.8
    assert ladder.loc[4, "paired_low"] > 0.9


def _constructed(pairs):
    """A ladder match frame: ``pairs`` maps (upper, lower) to per-deal (seating 0, seating 1)
    outcomes of the upper side (1 won, 0 lost)."""
    rows = []
    for pairing, ((upper, lower), outcomes) in enumerate(pairs.items()):
        for match, deal in enumerate(outcomes):
            for seating, won in enumerate(deal):
                rows.append({"players": 2, "pairing": pairing, "seating": seating,
                             "match": match, "upper": upper, "lower": lower,
                             "winner": seating if won else 1 - seating, "upper_won": bool(won),
                             "lower_won": not won, "rounds": 10, "placements": 40,
                             "upper_margin": 0})
    return pd.DataFrame(rows)


def test_gap_share_on_a_constructed_frame():
    # challenger vs reference: deals won 2, 1, 1, 2 of 2 -> W = 0.75; the reference is the
    # upper side in that pairing, to check the orientation
    challenger = [(1, 1), (1, 0), (0, 1), (1, 1)]
    frame = _constructed({("ref", "ch"): [(1 - a, 1 - b) for a, b in challenger],
                          ("ceil", "ref"): [(1, 1)] * 4})
    gap = strength.gap_share(frame, 2, "ch", "ref", "ceil", seed=1, resamples=500)
    assert gap["w_challenger"] == pytest.approx(0.75)
    assert gap["w_ceiling"] == pytest.approx(1.0)
    assert gap["share"] == pytest.approx((0.75 - 0.5) / (1.0 - 0.5))
    assert gap["low"] <= gap["share"] <= gap["high"]
    # the ceiling wins every deal, so each resample's share is 2 W - 1 with W in [0.5, 1]
    assert 0.0 <= gap["low"] < gap["share"] < gap["high"] <= 1.0
    assert strength.gap_share(frame, 2, "ch", "ref", "ceil", seed=1, resamples=500) == gap
    # a ceiling as strong as the reference leaves no gap to close
    even = _constructed({("ch", "ref"): challenger, ("ceil", "ref"): [(1, 0)] * 4})
    assert np.isnan(strength.gap_share(even, 2, "ch", "ref", "ceil")["share"])
    # both pairings must be on the same deals
    shifted = _constructed({("ch", "ref"): challenger, ("ceil", "ref"): [(1, 1)] * 5})
    with pytest.raises(ValueError, match="same deals"):
        strength.gap_share(shifted, 2, "ch", "ref", "ceil")


def test_gap_share_of_a_run_matches_its_ladder(tiny):
    _, result = tiny
    gap = result.frames["gap"].set_index("players")
    ladder = result.frames["ladder"].set_index(["players", "upper", "lower"])
    for players in (2, 4):
        w_c = ladder.loc[(players, "greedy", "random"), "win_rate"]
        w_k = ladder.loc[(players, "exact", "random"), "win_rate"]
        assert gap.loc[players, "share"] == pytest.approx((w_c - 0.5) / (w_k - 0.5))


@pytest.mark.parametrize("kwargs,message", [
    ({"players": (3,)}, "players must be 2 or 4"),
    ({"ladder": "greedy"}, "at least 2"),
    ({"ladder": "greedy,nope"}, "nope"),
    ({"deals": 0}, "deals"),
    ({"challenger": " "}, "challenger"),
    ({"versus": "random,greedy"}, "every strategy of the ladder is a yardstick"),
    ({"versus": "nope"}, "nope"),
])
def test_bad_settings_are_one_line_value_errors(kwargs, message):
    arguments = {"ladder": "random,greedy", "players": (2,), "deals": 3, **kwargs}
    with pytest.raises(ValueError, match=message) as error:
        strength.strength_settings(**arguments)
    assert "\n" not in str(error.value)


def test_allow_hidden_is_passed_only_when_asked():
    settings = strength.strength_settings("random,greedy", (2,), 3)
    assert "allow_hidden" not in settings
    assert "allow_hidden" not in strength.pairing_tasks(settings, 10)[0][1][0].config
    if "allow_hidden" in inspect.signature(RunSpec.build).parameters:
        hidden = strength.strength_settings("random,greedy", (2,), 3, allow_hidden=True)
        assert strength.pairing_tasks(hidden, 10)[0][1][0].config["allow_hidden"] is True
    else:  # the engine does not have the option yet
        with pytest.raises(ValueError, match="allow_hidden"):
            strength.strength_settings("random,greedy", (2,), 3, allow_hidden=True)


def test_a_sealed_ladder_draws_one_secret_for_every_shard_and_the_timing_pass():
    sealed = strength.strength_settings("random,greedy", (2, 4), 3, sealed=True,
                                        decision_timeout="2.5")
    secret = sealed["secret"]
    assert len(secret) == 32 and sealed["sealed"] is True and sealed["decision_timeout"] == 2.5
    configs = [task.config for _, tasks in strength.pairing_tasks(sealed, 2) for task in tasks]
    assert len(configs) > 2
    for config in configs:  # JSON-ready: a dask worker gets the same options
        assert json.loads(json.dumps(config)) == config
        seal = (config["sealed"], config["secret"], config["decision_timeout"])
        assert seal == (True, secret, 2.5)
    plain = strength.strength_settings("random,greedy", (2, 4), 3)
    assert plain == {key: value for key, value in sealed.items()
                     if key not in ("sealed", "secret", "decision_timeout")}
    assert not {"sealed", "secret"} & strength.pairing_tasks(plain, 2)[0][1][0].config.keys()
    with pytest.raises(ValueError, match="decision_timeout needs sealed=True"):
        strength.strength_settings("random,greedy", (2,), 3, decision_timeout=1)


def test_ladder_plot_carries_the_runs_footer(tiny, monkeypatch, tmp_path):
    _, result = tiny
    drawn = []
    monkeypatch.setattr(strength, "save_png", lambda fig, path: drawn.append(fig))
    strength.plot_ladder(result.frames["ladder"], result.settings, tmp_path / "ladder.png")
    texts = " ".join(t.get_text() for t in drawn[0].texts).replace("\n", " ")
    assert "30 duplicate deals per pairing, each in both seatings" in texts
    assert "players 2, 4, seed 5" in texts


def empty_sections(markdown: str) -> list[str]:
    """The ``## `` headings of ``markdown`` with no text before the next heading or the end."""
    lines = [line for line in markdown.splitlines() if line.strip()]
    return [line for line, after in zip(lines, lines[1:] + ["## (end)"])
            if line.startswith("#") and after.startswith("#")]


def test_a_summary_has_no_empty_section_and_a_caption_per_figure(tiny):
    _, result = tiny
    assert result.markdown.startswith("# Strength ladder\n")
    assert empty_sections(result.markdown) == []
    assert "![ladder](ladder.png)" in result.markdown and "Plot:" not in result.markdown
    assert "normal interval" not in result.markdown


def test_the_openspiel_comparison_has_its_title_a_paired_contrast_and_no_empty_section(
        compiled_engine):
    pytest.importorskip("pyspiel")
    plain, by_match = "openspiel:ismcts[sims=4]", "openspiel:ismcts[sims=4,evaluator=wintable]"
    result = strength.run("greedy", (2,), 3, seed=2027, versus=f"{plain},{by_match}",
                          timing_matches=0)
    text = result.markdown
    assert text.startswith("# OpenSpiel bots against the ladder\n")
    assert empty_sections(text) == []
    assert "## Closing the gap" not in text and "Strength ladder" not in text
    contrasts = result.frames["contrasts"]
    assert contrasts[["upper", "yardstick_a", "yardstick_b"]].values.tolist() == [
        ["greedy", "openspiel.ismcts[sims=4]", "openspiel.ismcts[sims=4,evaluator=wintable]"]]
    row = contrasts.iloc[0]
    a = strength.deal_outcomes(result.frames["matches"], 2, "greedy", "openspiel.ismcts[sims=4]")
    b = strength.deal_outcomes(result.frames["matches"], 2, "greedy",
                               "openspiel.ismcts[sims=4,evaluator=wintable]")
    assert row.deals == 3 and row.difference == pytest.approx(float((a - b).mean()))
    compared = result.frames["comparisons"].set_index("id")
    words = compared.loc[strength.contrast_id(2, "greedy", *contrasts.iloc[0][
        ["yardstick_a", "yardstick_b"]])].words
    assert words in text


def test_the_ladder_figure_colours_each_point_by_its_upper_strategy_and_prints(
        tiny, monkeypatch, tmp_path):
    _, result = tiny
    monkeypatch.setenv("FIVE_UP_FIGURE_AUDIT", "strict")
    drawn = []
    save = strength.save_png
    monkeypatch.setattr(strength, "save_png",
                        lambda fig, path: (drawn.append(fig), save(fig, path)))
    strength.plot_ladder(result.frames["ladder"], result.settings, tmp_path / "ladder.png")
    figure = drawn[0]
    assert print_problems(figure) == []
    assert figure.get_figwidth() == pytest.approx(7.2)
    axis = figure.axes[0]
    # 2 players, top to bottom: greedy vs random, exact vs greedy (steps), exact vs random
    labels = [t.get_text() for t in axis.get_yticklabels()]
    assert labels == ["greedy vs random", "exact vs greedy", "exact vs random"]
    colours = [to_hex(c.lines[0].get_color()) for c in axis.containers]
    assert colours == [to_hex(strategy_colour(name)) for name in ("greedy", "exact", "exact")]
    # the kinds' legend is grey (colour means the strategy): steps and the ceiling
    legend = figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["ladder step", "ceiling"]


def test_a_ladder_figure_that_breaks_the_print_rules_is_refused(tiny, monkeypatch, tmp_path):
    """Under the strict audit the old figure (a legacy 12 in width, 6 pt labels) raises."""
    _, result = tiny
    monkeypatch.setenv("FIVE_UP_FIGURE_AUDIT", "strict")
    monkeypatch.setattr(strength, "WRAP_AT", 1000)
    monkeypatch.setattr(strength, "ROW_INCHES", 0.01)  # rows too close: labels overlap
    with pytest.raises(ValueError, match="overlaps"):
        strength.plot_ladder(result.frames["ladder"], result.settings, tmp_path / "ladder.png")


def test_the_committed_openspiel_comparison_plays_both_valuations_at_matched_compute():
    full = results.by_name()["openspiel"].full
    assert int(full[full.index("--deals") + 1]) >= 1000
    yardsticks = full[full.index("--versus") + 1].split(",openspiel:")
    assert yardsticks == ["openspiel:ismcts[sims=0]", "ismcts[sims=0,evaluator=wintable]"]


def test_matched_compute_is_calibrated_and_recorded_in_the_settings(monkeypatch):
    """sims=0 asks for a count calibrated to the ladder strategy's CPU per placement; the count
    and the measurements are in the settings, and a recorded calibration is reused."""
    bots = pytest.importorskip("sim.bridges.openspiel_bots")
    measured = []

    def cost(spec, players, matches, seed, **options):
        measured.append(spec)
        if "ismcts" not in spec:
            return 4100.0  # the ladder strategy: 4.1 ms per placement
        return {2: 1100.0, 8: 4100.0}[int(spec.split("sims=")[1].split(",")[0].rstrip("]"))]

    monkeypatch.setattr(bots, "placement_cpu", cost)
    versus = "openspiel:ismcts[sims=0],openspiel:ismcts[sims=0,evaluator=wintable]"
    settings = strength.strength_settings("greedy", (2,), 4, seed=3, versus=versus)
    record = settings["matched_compute"]["openspiel.ismcts[sims=0]"]
    # 1,100 us at 2 simulations, 500 us per simulation more: 4,100 us at 8
    assert record["sims"] == 8 and record["against"] == "greedy"
    assert record["us_per_simulation"] == 500.0 and record["cpu_ratio"] == 1.0
    assert settings["strategies"] == ["greedy", "openspiel.ismcts[sims=8]",
                                      "openspiel.ismcts[sims=8,evaluator=wintable]"]
    assert sum("ismcts" not in spec for spec in measured) == 1  # the ladder timed once
    # a strategy cheaper than the bot's minimum: the minimum, and the excess recorded
    monkeypatch.setattr(bots, "placement_cpu", lambda spec, *a, **k: 110.0 if "ismcts" not in spec
                        else cost(spec, *a, **k))
    cheap = strength.strength_settings("greedy", (2,), 4, seed=3, versus=versus)
    record = cheap["matched_compute"]["openspiel.ismcts[sims=0]"]
    assert record["sims"] == bots.MIN_SIMULATIONS == 2 and record["cpu_ratio"] == 10.0
    # a resumed run reuses the recorded counts without measuring
    monkeypatch.setattr(bots, "placement_cpu", lambda *a, **k: pytest.fail("measured again"))
    again = strength.strength_settings("greedy", (2,), 4, seed=3, versus=versus,
                                       matched_compute=settings["matched_compute"])
    assert again == settings
    with pytest.raises(ValueError, match="one player count"):
        strength.strength_settings("greedy", (2, 4), 4, versus=versus)


def test_the_plan_is_written_before_the_run_and_declares_every_comparison(tiny):
    out, result = tiny
    plan = strength.plan_for(result.settings)
    written = json.loads((out / "plan.json").read_text())
    assert written == json.loads(json.dumps(plan.to_json()))
    compared = result.frames["comparisons"]
    assert sorted(compared["id"]) == sorted(c.id for c in plan.comparisons)
    assert (out / "comparisons.csv").is_file()
    # TINY's challenger greedy: its own step (against random) is its one target in the ladder
    primary = compared[compared["family"] == "primary"]
    assert primary["id"].tolist() == [strength.pairing_id(p, "greedy", "random") for p in (2, 4)]
    assert "Primary: the challenger greedy's targets" in plan.note
    assert strength.plan_sentence(plan, compared) in result.markdown


def test_the_default_ladder_declares_the_challengers_targets_primary():
    settings = strength.strength_settings(strength.DEFAULT_LADDER, (2, 4), 10, allow_hidden=True)
    plan = strength.plan_for(settings)
    primary = [c.id for c in plan.comparisons if c.family == "primary"]
    assert primary == [strength.pairing_id(p, "pimc", lower) for p in (2, 4)
                       for lower in ("matchplay", "greedy", "rollout")]
    assert plan.family_size("exploratory") == 16
    # ids carry no seed: a replication on another seed declares the same comparisons
    other = strength.strength_settings(strength.DEFAULT_LADDER, (2, 4), 10, seed=99,
                                       allow_hidden=True)
    assert strength.plan_for(other) == plan


def synthetic_matches(settings: dict, outcomes: dict) -> pd.DataFrame:
    """A match frame of ``settings``' pairings, both seatings of every deal: pairing ``(players,
    upper, lower)`` -> per-deal wins of the upper strategy (0, 1 or 2 of the two seatings)."""
    rows = []
    for players in settings["players"]:
        for pairing, (kind, upper, lower) in enumerate(settings["pairings"]):
            for match, wins in enumerate(outcomes[(players, upper, lower)]):
                for seating in range(2):
                    won = seating < wins
                    rows.append({"players": players, "pairing": pairing, "seating": seating,
                                 "match": match, "upper": upper, "lower": lower,
                                 "winner": seating if won else 1 - seating, "upper_won": won,
                                 "lower_won": not won, "rounds": 10, "placements": 40,
                                 "upper_margin": 10 if won else -10})
    return pd.DataFrame(rows)


def test_a_marginal_finding_that_does_not_survive_its_family_is_not_called_one():
    """pimc above matchplay at p < 0.05 alone but not after Holm over the six primary
    comparisons: the summary says no detectable difference, as the issue's example asks."""
    settings = strength.strength_settings(strength.DEFAULT_LADDER, (2, 4), 1500,
                                          allow_hidden=True, timing_matches=0)

    def deals(edge: int, apart: int) -> np.ndarray:
        # per-deal wins of the upper strategy: 0, 1 or 2 of the two seatings; ``apart`` deals
        # not split 1-1, ``edge`` more of them won twice than lost twice
        wins = np.ones(1500, dtype=np.int64)
        wins[: (apart + edge) // 2] = 2
        wins[(apart + edge) // 2: apart] = 0
        return wins

    outcomes = {(p, u, lo): deals(1200, 1200) for p in (2, 4)
                for _, u, lo in settings["pairings"]}
    outcomes[(2, "pimc", "matchplay")] = deals(60, 700)  # 52%, p = 0.02 alone
    for lower in ("greedy", "rollout"):  # the other primaries: nothing to see
        outcomes[(2, "pimc", lower)] = deals(0, 700)
        outcomes[(4, "pimc", lower)] = deals(0, 700)
    outcomes[(4, "pimc", "matchplay")] = deals(0, 700)
    result = strength.analyse(synthetic_matches(settings, outcomes), pd.DataFrame(), settings)
    row = result.frames["comparisons"].set_index("id").loc[
        strength.pairing_id(2, "pimc", "matchplay")]
    assert row.family == "primary" and row.low > 0 and row.p < 0.05  # alone: above 1/2
    assert row.p_adjusted > 0.05 and row.adj_low < 0 and row.verdict == "inconclusive"
    assert row.words.endswith("no detectable difference")
    assert row.words in result.markdown
    assert "no detectable difference from an even match" in result.key_numbers[
        "2p: pimc vs matchplay"]
    # an undeclared comparison is refused
    other = dict(settings, pairings=settings["pairings"][:-1])
    with pytest.raises(ValueError, match="not declared"):
        strength.comparisons_table(synthetic_matches(settings, outcomes), {
            "ladder": strength.ladder_table(synthetic_matches(settings, outcomes), settings)},
            other)
