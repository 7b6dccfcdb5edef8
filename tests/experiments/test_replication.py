"""Replication on fresh seeds (``five-up results --replicate K``): the seeds, the table of each
primary comparison's estimates across seeds with Cochran's Q and its Holm-adjusted flag, and the
release step that runs the replicates in the staging area and commits ``replication.csv``.

The release step is exercised with a stand-in for the ``five-up`` command (:data:`FAKE_CLI`):
a script that writes what every result writes after issue 44 (``run.json``, ``plan.json``,
``comparisons.csv``, ``summary.md``) with estimates drawn from its seed, so that the replication
machinery is tested without playing a match.
"""

from __future__ import annotations

import io
import json
import math
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from experiments.comparisons import Comparison, ComparisonPlan, Quantity
from experiments.release import replication, results
from experiments.stats import Z95, pooled_estimate

FAKE_CLI = textwrap.dedent('''
    """A stand-in for ``five-up`` (the standard library only, so it starts fast): one run with
    two primary comparisons and one exploratory.

    ``steady``: 0.05 plus noise of its own standard error (seeds agree); ``drift``: moves by
    ten standard errors from seed to seed (seeds disagree) unless ``--no-drift``. Every call is
    logged to ``calls.log`` beside the script; ``--fail-seed S`` fails for seed ``S``.
    """
    import csv, json, random, sys
    from pathlib import Path

    args = sys.argv[1:]
    value = lambda flag, default=None: args[args.index(flag) + 1] if flag in args else default
    seed, out = int(value("--seed")), Path(value("--out"))
    with open(Path(__file__).parent / "calls.log", "a") as log:
        log.write(f"{seed}\\n")
    if value("--fail-seed") is not None and int(value("--fail-seed")) == seed:
        sys.exit(1)
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps({"seed": seed, "matches": 400}))
    (out / "plan.json").write_text(json.dumps({
        "study": "fake", "alpha": 0.05, "note": "",
        "quantities": [{"name": "won", "words": "match win share", "sesoi": 0.02, "pct": True,
                        "why": "two points"},
                       {"name": "pts", "words": "points", "sesoi": 0.5, "pct": False,
                        "why": "half a point"}],
        "comparisons": [{"id": "2p | steady", "family": "primary", "quantity": "won"},
                        {"id": "2p | drift", "family": "primary", "quantity": "pts"},
                        {"id": "2p | other", "family": "exploratory", "quantity": "won"}]}))
    se = 0.01
    steady = 0.05 + se * random.Random(seed).gauss(0.0, 1.0)
    drift = 0.0 if "--no-drift" in args else 10 * se * (seed % 5)
    half = 1.966 * se  # the t quantile on 399 degrees of freedom
    with open(out / "comparisons.csv", "w", newline="") as file:
        table = csv.writer(file)
        table.writerow(["id", "family", "quantity", "difference", "low", "high", "units"])
        for name, family, quantity, x in (("2p | steady", "primary", "won", steady),
                                          ("2p | drift", "primary", "pts", drift),
                                          ("2p | other", "exploratory", "won", 0.3)):
            table.writerow([name, family, quantity, x, x - half, x + half, 400])
    (out / "summary.md").write_text(f"# fake run, seed {seed}\\n\\nSome findings.\\n")
''')


# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------
def test_fresh_seeds_are_deterministic_distinct_and_never_a_committed_seed():
    taken = results.committed_seeds()
    assert {1, 7, 2026, 2027, 2028} <= taken  # the committed results' seeds, both sizes
    for result in results.RESULTS:
        seed = replication.seed_of(result.full)
        assert seed is not None, result.name
        seeds = replication.fresh_seeds(result.name, seed, 5, taken)
        assert seeds == replication.fresh_seeds(result.name, seed, 5, taken)
        assert len(set(seeds)) == 5 and not set(seeds) & (taken | {seed})
        assert all(replication.FRESH_LOW <= s < replication.FRESH_LOW + replication.FRESH_SPAN
                   for s in seeds)
        # more replicates extend fewer
        assert replication.fresh_seeds(result.name, seed, 3, taken) == seeds[:3]
    # another name or seed, other seeds
    assert replication.fresh_seeds("seats", 1, 3) != replication.fresh_seeds("lengths", 1, 3)
    assert replication.fresh_seeds("seats", 1, 3) != replication.fresh_seeds("seats", 2, 3)


def test_a_taken_seed_is_skipped():
    first = replication.fresh_seeds("seats", 1, 3)
    again = replication.fresh_seeds("seats", 1, 3, taken={first[0]})
    assert first[0] not in again and again[:2] == first[1:]


def test_the_replicate_command_is_the_committed_one_with_the_seed_replaced():
    entry = results.by_name()["duplicate_deals"]
    arguments = entry.replicate_arguments("full", 123456789)
    assert replication.seed_of(arguments) == 123456789
    assert [w for w in arguments if w != "123456789"] == [w for w in entry.full if w != "7"]
    assert entry.replicate_arguments("small", 5) == replication.with_seed(entry.small, 5)
    cheaper = results.CommittedResult("x", ("tournament", "--seed", "3", "--matches", "500"),
                                      ("tournament", "--seed", "3", "--matches", "5"),
                                      replicate=("tournament", "--seed", "3", "--matches", "50"))
    assert cheaper.replicate_arguments("full", 9) == ("tournament", "--seed", "9", "--matches",
                                                      "50")
    assert cheaper.replicate_arguments("small", 9)[-1] == "5"
    with pytest.raises(ValueError, match="no --seed"):
        replication.with_seed(("winprob", "--players", "2"), 4)
    # a replicate never ships a table into the code
    shipping = results.by_name()["winprob"].replicate_arguments("full", 11)
    assert "--ship" not in shipping and "strategies/winprob_table.py" not in shipping
    assert replication.seed_of(shipping) == 11
    # the tuner's held-out seed moves with it
    tuning = results.by_name()["tuning"].replicate_arguments("full", 123456789)
    assert tuning[tuning.index("--validation-seed") + 1] == "123456790"


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------
def rows(estimates: dict, se: float = 0.01, units: float = 400) -> pd.DataFrame:
    return pd.DataFrame({"id": list(estimates), "quantity": "won",
                         "estimate": list(estimates.values()), "se": se, "units": units})


def test_primary_rows_reads_the_primary_comparisons_and_their_standard_errors(tmp_path):
    assert replication.primary_rows(tmp_path) is None
    half = 1.966 * 0.01
    pd.DataFrame({"id": ["a", "b", "c"], "family": ["primary", "exploratory", "primary"],
                  "quantity": "won", "difference": [0.1, 0.2, 0.3],
                  "low": [0.1 - half, 0.2 - half, 0.3 - 0.02], "high": [0.1 + half, 0.2 + half,
                                                                       0.3 + 0.02],
                  "units": [400, 400, np.nan]}).to_csv(tmp_path / "comparisons.csv", index=False)
    found = replication.primary_rows(tmp_path)
    assert found["id"].tolist() == ["a", "c"]
    assert found["estimate"].tolist() == [0.1, 0.3]
    # t on 399 degrees of freedom for a, normal without units for c
    assert found["se"].tolist() == pytest.approx([0.01, 0.02 / Z95], rel=1e-3)
    assert replication.replicable(tmp_path)
    frame = pd.read_csv(tmp_path / "comparisons.csv")
    frame["family"] = "exploratory"
    frame.to_csv(tmp_path / "comparisons.csv", index=False)
    assert replication.primary_rows(tmp_path).empty and not replication.replicable(tmp_path)


def test_agreeing_seeds_pool_by_inverse_variance_and_are_not_flagged():
    runs = [(1, rows({"a": 0.10, "b": 0.0}, se=0.01)), (11, rows({"a": 0.11, "b": 0.01}, se=0.02)),
            (12, rows({"a": 0.09, "b": -0.01}, se=0.01))]
    table = replication.replication_table(runs)
    a = table.set_index("id").loc["a"]
    w = np.array([1 / 0.01 ** 2, 1 / 0.02 ** 2, 1 / 0.01 ** 2])
    x = np.array([0.10, 0.11, 0.09])
    pooled = (w * x).sum() / w.sum()
    assert a.pooled == pytest.approx(pooled)
    assert a.pooled_high - a.pooled == pytest.approx(Z95 / math.sqrt(w.sum()))
    assert a.q == pytest.approx((w * (x - pooled) ** 2).sum())
    assert a.df == 2 and a.seeds == 3
    assert [a.seed_0, a.seed_1, a.seed_2] == [1, 11, 12]
    assert [a.estimate_0, a.se_1] == [0.10, 0.02]
    assert not table["disagree"].any() and replication.disagreeing(table) == []
    assert replication.run_count(table) == 3


def test_seeds_that_disagree_beyond_their_errors_are_flagged_after_holm():
    # c's seeds differ by ten standard errors; d's give Q's p just under 0.05 alone, which
    # Holm over the three primary comparisons does not keep
    runs = [(1, rows({"a": 0.10, "c": 0.0, "d": 0.0})),
            (11, rows({"a": 0.10, "c": 0.10, "d": 0.032})),
            (12, rows({"a": 0.10, "c": 0.20, "d": -0.0}))]
    table = replication.replication_table(runs).set_index("id")
    assert table.loc["c", "disagree"] and table.loc["c", "i2"] > 0.9
    assert table.loc["d", "q_p"] < 0.05 < table.loc["d", "q_p_holm"]
    assert not table.loc["d", "disagree"] and not table.loc["a", "disagree"]
    assert table.loc["a", "i2"] == 0.0


def test_a_comparison_missing_from_a_fresh_run_is_pooled_over_the_others():
    runs = [(1, rows({"a": 0.1, "b": 0.2})), (11, rows({"a": 0.1})),
            (12, rows({"a": 0.1, "b": 0.2}))]
    table = replication.replication_table(runs).set_index("id")
    assert np.isnan(table.loc["b", "estimate_1"])
    assert table.loc["b", "seeds"] == 2 and table.loc["b", "df"] == 1


@pytest.mark.parametrize("scale, low, high", [(1.0, 0.0, 0.07), (2 / 3, 0.25, 1.0)])
def test_the_flag_holds_its_level_and_catches_intervals_too_narrow(scale, low, high):
    """4,000 results of three primary comparisons, each measured on four seeds whose estimates
    scatter by their true standard errors: with the standard errors reported right, at most 5%
    of the results flag any comparison (Holm; measured 4.8%, the binomial error 0.3%); with
    intervals a third too narrow, a quarter or more do (measured 51%)."""
    rng = np.random.default_rng(44)
    trials, seeds, comparisons = 4000, 4, 3
    true_se = rng.uniform(0.005, 0.02, size=(trials, comparisons, seeds))
    estimates = 0.1 + true_se * rng.standard_normal(true_se.shape)
    flagged = 0
    for x, se in zip(estimates, scale * true_se):
        q_p = [pooled_estimate(xi, si).p for xi, si in zip(x, se)]
        flagged += bool(replication.disagreement_flags(q_p)[1].any())
    assert low <= flagged / trials <= high


def test_the_summary_section_is_replaced_not_appended_twice():
    runs = [(1, rows({"2p | a": 0.10})), (11, rows({"2p | a": 0.30}))]
    table = replication.replication_table(runs)
    section = replication.summary_section(table, ["five-up x --seed 1", "five-up x --seed 11"],
                                          pct={"won"})
    assert "+10.0 pp (1.0)" in section and "seed 1 (committed)" in section
    assert "| `2p \\| a` |" in section  # the id's pipe escaped in the table
    assert "- `five-up x --seed 11`" in section
    once = replication.with_section("# result\n\ntext\n", section)
    assert once.count(replication.SECTION_START) == 1 and once.startswith("# result\n\ntext\n\n")
    again = replication.with_section(once, section.replace("+10.0", "+11.0"))
    assert again.count(replication.SECTION_START) == 1 and "+11.0 pp" in again
    assert again.startswith("# result\n\ntext\n\n")


# ---------------------------------------------------------------------------
# The release step, with a stand-in command
# ---------------------------------------------------------------------------
FAKE = results.CommittedResult("fake", ("fake", "--seed", "3", "--matches", "400"),
                               ("fake", "--seed", "3", "--matches", "40"))
CODE = {"commit": "c" * 40, "changes": None}


@pytest.fixture
def fake_cli(tmp_path, monkeypatch):
    """``results.CLI`` runs the stand-in script; returns a function listing the seeds it was
    called with so far."""
    script = tmp_path / "bin" / "fake_cli.py"
    script.parent.mkdir()
    script.write_text(FAKE_CLI)
    monkeypatch.setattr(results, "CLI", (sys.executable, str(script)))

    def calls() -> list[int]:
        log = script.parent / "calls.log"
        return [int(line) for line in log.read_text().split()] if log.exists() else []
    return calls


def test_replicate_commits_the_table_the_summary_section_and_the_seeds(tmp_path, fake_cli):
    out = tmp_path / "results"
    log = io.StringIO()
    results.regenerate(FAKE, out, "full", CODE, quiet=True, log=log)
    assert fake_cli() == [3]
    record = results.replicate(FAKE, out, "full", CODE, 3, quiet=True, log=log)
    seeds = replication.fresh_seeds("fake", 3, 3, results.committed_seeds())
    assert fake_cli() == [3] + seeds
    assert record["seeds"] == [3] + seeds and record["comparisons"] == 2
    assert record["disagree"] == 1 and record["disagreeing"] == ["2p | drift"]
    table = pd.read_csv(out / "fake" / "replication.csv")
    assert table["id"].tolist() == ["2p | steady", "2p | drift"]  # primary rows only
    assert [int(table[f"seed_{i}"].iloc[0]) for i in range(4)] == [3] + seeds
    assert table["disagree"].tolist() == [False, True]
    manifest = json.loads((out / "fake" / "manifest.json").read_text())
    assert manifest["replication"]["seeds"] == [3] + seeds
    assert manifest["replication"]["commands"][0] == manifest["command"]
    assert all(f"--seed {s} " in c for s, c in zip(seeds, manifest["replication"]["commands"][1:]))
    summary = (out / "fake" / "summary.md").read_text()
    assert summary.startswith("# fake run, seed 3")
    assert summary.count("## Replication on fresh seeds") == 1
    assert "disagree beyond chance on 1 of 2" in summary and "`2p | drift`" in summary
    assert not (out / results.STAGING / "fake.replicates").exists()  # replicate runs not kept
    assert sorted(p.name for p in (out / "fake").iterdir()) == [
        "comparisons.csv", "manifest.json", "plan.json", "replication.csv", "run.json",
        "summary.md"]

    # the same seeds, code and commands: kept without a run
    assert results.replicate(FAKE, out, "full", CODE, 3, quiet=True, log=log) is None
    assert "replication current" in log.getvalue() and len(fake_cli()) == 4
    # two more replicates: the same first three seeds and two more, all run again
    results.replicate(FAKE, out, "full", CODE, 5, quiet=True, log=log)
    assert fake_cli()[4:] == replication.fresh_seeds("fake", 3, 5, results.committed_seeds())
    summary = (out / "fake" / "summary.md").read_text()
    assert summary.count("## Replication on fresh seeds") == 1 and "seed 3 (committed)" in summary
    # the main result run again (new code): its directory is replaced, the replication goes
    new_code = {"commit": "d" * 40, "changes": None}
    results.regenerate(FAKE, out, "full", new_code, quiet=True, log=log)
    assert not (out / "fake" / "replication.csv").exists()
    assert "replication" not in json.loads((out / "fake" / "manifest.json").read_text())


def test_a_failed_replicate_leaves_the_result_as_it_was(tmp_path, fake_cli):
    out = tmp_path / "results"
    results.regenerate(FAKE, out, "full", CODE, quiet=True, log=io.StringIO())
    before = sorted(p.name for p in (out / "fake").iterdir())
    seeds = replication.fresh_seeds("fake", 3, 3, results.committed_seeds())
    failing = results.CommittedResult(
        "fake", FAKE.full, FAKE.small, replicate=FAKE.full + ("--fail-seed", str(seeds[1])))
    with pytest.raises(RuntimeError, match="a replicate run failed"):
        results.replicate(failing, out, "full", CODE, 3, quiet=True, log=io.StringIO())
    assert fake_cli() == [3, seeds[0], seeds[1]]
    assert sorted(p.name for p in (out / "fake").iterdir()) == before
    assert "replication" not in json.loads((out / "fake" / "manifest.json").read_text())
    # another replicate command: no staged run of the old one is reused
    fixed = results.CommittedResult(
        "fake", FAKE.full, FAKE.small, replicate=FAKE.full + ("--fail-seed", "0"))
    results.replicate(fixed, out, "full", CODE, 3, quiet=True, log=io.StringIO())
    assert fake_cli()[3:] == seeds
    assert (out / "fake" / "replication.csv").exists()
    assert not (out / results.STAGING / "fake.replicates").exists()


def test_an_interrupted_replication_resumes_and_drops_runs_of_other_code(tmp_path, fake_cli):
    out = tmp_path / "results"
    results.regenerate(FAKE, out, "full", CODE, quiet=True, log=io.StringIO())
    seeds = replication.fresh_seeds("fake", 3, 2, results.committed_seeds())
    failing = results.CommittedResult(
        "fake", FAKE.full, FAKE.small, replicate=FAKE.full + ("--fail-seed", str(seeds[1])))
    with pytest.raises(RuntimeError):
        results.replicate(failing, out, "full", CODE, 2, quiet=True, log=io.StringIO())
    area = out / results.STAGING / "fake.replicates"
    assert json.loads((area / f"{seeds[0]}.json").read_text())["done"]
    assert not json.loads((area / f"{seeds[1]}.json").read_text())["done"]
    # the same command and code: the finished seed is read again, the other runs again
    log = io.StringIO()
    with pytest.raises(RuntimeError):
        results.replicate(failing, out, "full", CODE, 2, quiet=True, log=log)
    assert fake_cli() == [3, seeds[0], seeds[1], seeds[1]]
    assert "finished before, read again" in log.getvalue()
    # other code: every staged run is dropped and made again
    other = {"commit": "e" * 40, "changes": None}
    with pytest.raises(RuntimeError):
        results.replicate(failing, out, "full", other, 2, quiet=True, log=io.StringIO())
    assert fake_cli()[4:] == seeds


def test_results_without_primary_comparisons_are_not_replicated(tmp_path, fake_cli):
    out = tmp_path / "results"
    results.regenerate(FAKE, out, "full", CODE, quiet=True, log=io.StringIO())
    frame = pd.read_csv(out / "fake" / "comparisons.csv")
    frame.assign(family="exploratory").to_csv(out / "fake" / "comparisons.csv", index=False)
    log = io.StringIO()
    assert results.replicate(FAKE, out, "full", CODE, 3, quiet=True, log=log) is None
    assert "no primary comparisons" in log.getvalue() and fake_cli() == [3]
    (out / "fake" / "comparisons.csv").unlink()
    assert results.replicate(FAKE, out, "full", CODE, 3, quiet=True, log=log) is None
    assert "fake: no comparisons.csv, not replicated" in log.getvalue()
    assert replication.index_cell(None, out / "fake") == "no comparisons.csv: not replicated"
    assert results.replicate(FAKE, out, "full", CODE, 0, quiet=True, log=log) is None


def test_the_index_gives_each_result_its_replication_and_lists_disagreements(tmp_path, fake_cli,
                                                                            monkeypatch):
    out = tmp_path / "results"
    steady = results.CommittedResult("steady", ("fake", "--seed", "4", "--no-drift"),
                                     ("fake", "--seed", "4", "--no-drift"))
    monkeypatch.setattr(results, "RESULTS", (FAKE, steady))
    for result in (FAKE, steady):
        results.regenerate(result, out, "full", CODE, quiet=True, log=io.StringIO())
    index = results.index_markdown(out)
    assert index.count("not replicated yet") == 2
    for result in (FAKE, steady):
        results.replicate(result, out, "full", CODE, 3, quiet=True, log=io.StringIO())
    index = results.index_markdown(out)
    assert "[3 fresh seeds: **1 of 2 primary comparisons disagree**](fake/replication.csv)" in index
    assert "[3 fresh seeds: 2 primary comparisons, none disagrees](steady/replication.csv)" in index
    assert "fake: `2p | drift`" in index and "steady: `2p" not in index
    assert "their replication" in index


def test_regenerate_all_replicates_after_each_result(tmp_path, fake_cli, monkeypatch):
    out = tmp_path / "results"
    monkeypatch.setattr(results, "RESULTS", (FAKE,))
    monkeypatch.setattr(results, "code_state", lambda root: CODE)
    results.regenerate_all(out, size="small", quiet=True, replicates=2, log=io.StringIO())
    assert len(fake_cli()) == 3
    assert (out / "fake" / "replication.csv").exists()
    assert "2 fresh seeds" in (out / "README.md").read_text()
    # run again: the result and its replication are current, nothing runs
    results.regenerate_all(out, size="small", quiet=True, replicates=2, log=io.StringIO())
    assert len(fake_cli()) == 3
    # --replicate 0 keeps a replication that is still current
    results.regenerate_all(out, size="small", quiet=True, replicates=0, log=io.StringIO())
    assert (out / "fake" / "replication.csv").exists()


def test_check_replicates():
    assert results.check_replicates("3") == 3 and results.check_replicates(0) == 0
    for bad in ("-1", "three", "1.5"):
        with pytest.raises(ValueError, match="--replicate expects a number of fresh seeds"):
            results.check_replicates(bad)


@pytest.mark.slow
def test_a_real_result_replicates_at_the_small_size(compiled_engine, tmp_path):
    """``duplicate_deals`` at the small size and two fresh seeds, with the real command: its
    primary comparisons replicated when the tournament declares some, else said so."""
    out = tmp_path / "results"
    entry = results.by_name()["duplicate_deals"]
    code = {"commit": None, "changes": None}
    log = io.StringIO()
    results.regenerate(entry, out, "small", code, quiet=True, log=log)
    record = results.replicate(entry, out, "small", code, 2, quiet=True, log=log)
    if replication.replicable(out / entry.name):
        table = pd.read_csv(out / entry.name / replication.REPLICATION)
        assert record["seeds"][0] == 7 and len(record["seeds"]) == 3
        assert (table["seeds"] == 3).all() and table["pooled_low"].le(table["pooled"]).all()
    else:
        assert record is None and "not replicated" in log.getvalue()


def test_readme_says_what_replicated_and_what_disagrees(tmp_path, fake_cli):
    out = tmp_path / "results"
    steady = results.CommittedResult("steady", ("fake", "--seed", "4", "--no-drift"),
                                     ("fake", "--seed", "4", "--no-drift"))
    for result in (FAKE, steady):
        results.regenerate(result, out, "full", CODE, quiet=True, log=io.StringIO())
    (out / "plain").mkdir()
    (out / "plain" / "manifest.json").write_text("{}")  # a result with no comparisons.csv
    assert replication.readme_text(out).startswith("No committed result carries a replication")
    for result in (FAKE, steady):
        results.replicate(result, out, "full", CODE, 3, quiet=True, log=io.StringIO())
    text = replication.readme_text(out)
    assert text.startswith("Replication: 2 committed results measured their 4 primary "
                           "comparisons again on 3 fresh seeds")
    assert ("disagree beyond chance (Cochran's Q, Holm over each result's primary comparisons) "
            "on 1: fake: `2p | drift`.") in text
    assert text.endswith("Without primary comparisons, not replicated: plain.")


def test_results_after_a_shipped_table_record_the_code_they_ran_with(tmp_path, fake_cli,
                                                                      monkeypatch):
    """A result that ships a table changes the code: the results after it record the code
    state taken after it, not the one of the run's start."""
    shipping = results.CommittedResult("table", ("fake", "--seed", "5", "--ship", "t.py"),
                                       ("fake", "--seed", "5", "--ship", "t.py"))
    states = iter([{"commit": "a" * 40, "changes": None},
                   {"commit": "a" * 40, "changes": "f" * 64}])
    monkeypatch.setattr(results, "RESULTS", (shipping, FAKE))
    monkeypatch.setattr(results, "code_state", lambda root: next(states))
    out = tmp_path / "results"
    results.regenerate_all(out, size="small", quiet=True, log=io.StringIO())
    first = json.loads((out / "table" / "manifest.json").read_text())
    second = json.loads((out / "fake" / "manifest.json").read_text())
    assert first["uncommitted_changes"] is None and second["uncommitted_changes"] == "f" * 64
