"""Tuning: CMA-ES over a strategy's parameter vector on duplicate deals, with held-out validation.

``five-up tune`` (:mod:`cli.tune_command`; the command line is the layer above) optimises the float
parameters of a compiled strategy (e.g. the 13 weights ``w_<feature>`` of
:mod:`strategies.weighted`) with CMA-ES (the ``cma`` package):

- **Fitness** of a candidate vector: its win rate against the opponents (``against``, each
  with its default parameters; the mean over opponents) on ``deals`` duplicate deals: each
  deal is played in both seatings (the candidate at entity 0, then at entity 1; with 4
  players its partnership at seats 0,2, then 1,3), exactly as a strength-ladder pairing
  (:func:`experiments.tools.strength.strength_job`, :func:`experiments.tools.strength.deal_outcomes`).
  A match stopped unfinished by ``max_rounds`` is a win for nobody.
- **Common random numbers**: every candidate of a generation (and the CMA mean, evaluated
  beside them for the history) plays the same deals: matches ``0 .. deals - 1`` of the
  generation's seed :func:`generation_seed` ``(seed, g)``; each generation gets new deals.
  The parameter vector reaches the compiled kernel as data (``params=``), so the whole run
  uses one compiled kernel.
- **Scaled space**: CMA-ES works on ``x = theta / scale`` (per parameter), ``scale =
  |default|`` where the strategy's default is nonzero and :data:`ZERO_SCALE` where it is 0
  (:func:`parameter_scale`): weights in very different units (``w_exact`` 100, ``w_pips``
  0.1) then move by comparable relative steps. It starts at the default vector (``x0 =
  default / scale``, entries +-1 or 0) with step size ``sigma`` (in scaled units).
- **Pick**: ``mean`` (default), CMA's distribution mean after the last generation (never
  evaluated in-sample, so not selected on noise), or ``best``, the candidate with the
  highest in-sample fitness over all generations (biased upward by selection: the
  held-out figure is the honest one). Picked values are rounded to
  :data:`SIGNIFICANT_DIGITS` significant digits, so the spec string, ``best.json`` and the
  shipped table hold exactly what was validated.
- **Held-out validation**: the picked vector and the default vector each play every
  ``validate_against`` strategy (default: the opponents) on ``validation_deals`` fresh
  duplicate deals, matches ``0 ..`` of ``validation_seed`` (the same deals a ``five-up
  strength --seed V`` pairing plays); win rates with paired 95% intervals (deal = unit:
  Student-t interval of the per-deal means, clipped to [0, 1], as the strength ladder) and
  the paired gain over the default vector on the same deals
  (:func:`experiments.stats.paired_contrast`: difference, interval and effect size).

The history's fitness columns (one row per generation, every figure in-sample on that
generation's deals, intervals paired by deal):

- ``best_candidate_fitness`` (``_low``, ``_high``): the best of the ``population`` vectors
  CMA-ES sampled and ranked that generation; ``median_candidate_fitness`` and
  ``worst_candidate_fitness`` the others' spread (best >= median >= worst always).
- ``mean_point_fitness`` (``_low``, ``_high``): the distribution mean CMA-ES sampled them
  around, played separately on the same deals (it is not a candidate and does not steer the
  search). It can beat the best candidate, and late in a run usually does: every candidate is
  the mean plus a random step of size sigma in all parameters at once, and near an optimum
  almost every such step costs more than it gains; the mean is the recombination of the
  ranked candidates, which averages their steps away. The best candidate's figure is also
  biased upward by selection (the maximum of ``population`` noisy estimates).
- ``mean_minus_best`` (``_low``, ``_high``): the paired difference mean point - best candidate
  on the generation's deals (Student t over deals).

Outputs (``out``; claimed with its settings as ``run.json``): ``best.json`` (parameter ->
value, the spec string), ``history.csv`` (one row per generation: the CMA mean's fitness
and the best candidate's with their paired intervals and their paired difference, the
candidates' median and worst, sigma, the mean vector; see below),
``candidates.csv`` (every evaluated vector), ``validation.csv``, ``fitness.png`` and
``summary.md``. ``ship`` also writes the table module :mod:`strategies.weighted_tuned_table`
(:func:`table_module_source`), from which :mod:`strategies.weighted` defines the named
variant ``weighted_tuned``.

The same seeds give the same vectors and tables (CMA-ES draws from its own generator
seeded from ``seed``; the engine's matches depend on seed and match index only); only the
wall time in ``summary.md`` is a measurement.
"""

from __future__ import annotations

import json
import math
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import FixedLocator, MaxNLocator

from experiments.comparisons import (EXPLORATORY, PRIMARY, Comparison, ComparisonPlan,
                                     adjusted_words, comparison_id, plan_sentence)
from experiments.reporting import figures
from experiments.reporting.figures import (band, color_cycle, estimates, new_figure, no_intervals,
                                           reference_line, run_footer, save_png, stamp,
                                           strategy_colour)
from experiments.reporting.reports import figure_caption, fmt_ci, md_table
from experiments.run_spine import StudySpec, claim_run, given_spec, study_scale
from experiments.seatings import derive_seed
from experiments.settings import strategy_settings
from experiments.stats import paired_contrast, paired_share_interval
from experiments.tools.strength import (
    EVEN,
    LADDER_PLAYER_COUNTS,
    WIN_RATE_CONTRAST,
    WIN_SHARE,
    deal_outcomes,
    ladder_table,
    strength_job,
)
from core.checks import check_finite, check_int, check_seed
from sim.files import atomic_write, claim_directory
from sim.progress import progress_bar
from core.tiles import DEFAULT_MAX_ROUNDS
from strategies.catalogue import (
    SESSION_PREFIX,
    resolve,
    resolve_field,
    spec_of,
    strategy_entries,
)
from strategies.definition import Strategy, variant

NAME = "tune"
DEFAULT_STRATEGY = "weighted"
DEFAULT_AGAINST = "weighted"
DEFAULT_PLAYERS = 2
DEFAULT_SEED = 0
DEFAULT_VALIDATION_SEED = 1
DEFAULT_DEALS = 1000
"""Duplicate deals per candidate per generation (2 matches each, per opponent)."""
DEFAULT_GENERATIONS = 30
DEFAULT_SIGMA = 0.3
"""CMA-ES initial step size, in scaled units (0.3: 30% of each nonzero default)."""
DEFAULT_VALIDATION_DEALS = 3000
PICKS = ("mean", "best")
DEFAULT_PICK = "mean"
ZERO_SCALE = 1.0
"""Scale of a parameter whose default is 0 (for ``weighted``: one unit of the weight, where
a displayed point of award is worth 0.5 by default)."""
SIGNIFICANT_DIGITS = 6
"""Digits of the picked vector (what ``%g`` writes into a variant's name)."""
SEATINGS = 2
CMA_KEY = 0xC3A
"""Mixed with the seed for CMA-ES's own generator (never the deals' seeds)."""
GENERATION_KEY = 0x7E9
"""Mixed with the seed and the generation index for the generation's deals."""
CANDIDATE = "<candidate>"
"""The candidate's label in the match rows (no strategy name contains '<')."""
TUNED_LABEL = "{name} (tuned)"
DEFAULT_LABEL = "{name} (default)"
TABLE_MODULE = "strategies/weighted_tuned_table.py"
"""Where ``--ship`` usually writes: the table :mod:`strategies.weighted` reads."""


# ---------------------------------------------------------------------------
# Scaled space
# ---------------------------------------------------------------------------
def parameter_scale(defaults) -> np.ndarray:
    """float64[n]: ``|default|`` where nonzero, :data:`ZERO_SCALE` where 0."""
    values = np.abs(np.asarray(defaults, dtype=np.float64))
    return np.where(values > 0, values, ZERO_SCALE)


def to_scaled(theta, scale) -> np.ndarray:
    """Parameters (their own units) -> the scaled space CMA-ES searches: ``theta / scale``."""
    return np.asarray(theta, dtype=np.float64) / np.asarray(scale, dtype=np.float64)


def from_scaled(x, scale) -> np.ndarray:
    """Scaled space -> parameters: ``x * scale``."""
    return np.asarray(x, dtype=np.float64) * np.asarray(scale, dtype=np.float64)


def rounded(theta) -> np.ndarray:
    """``theta`` rounded to :data:`SIGNIFICANT_DIGITS` significant digits (``%g``)."""
    return np.array([float(f"{v:.{SIGNIFICANT_DIGITS}g}") for v in np.asarray(theta, float)])


def generation_seed(seed: int, generation: int) -> int:
    """The seed of generation ``generation``'s deals (new deals every generation)."""
    return derive_seed(int(seed), GENERATION_KEY * 1_000_003 + int(generation))


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------
def tune_settings(strategy=DEFAULT_STRATEGY, against=DEFAULT_AGAINST, players=DEFAULT_PLAYERS,
                  seed=DEFAULT_SEED, validation_seed=DEFAULT_VALIDATION_SEED,
                  deals=DEFAULT_DEALS, generations=DEFAULT_GENERATIONS, population=None,
                  sigma=DEFAULT_SIGMA, pick=DEFAULT_PICK,
                  validation_deals=DEFAULT_VALIDATION_DEALS, validate_against=None,
                  max_rounds=DEFAULT_MAX_ROUNDS) -> dict:
    """The checked settings of a tuning run (JSON-ready; raises ValueError, one line).

    ``population`` None: CMA-ES's default ``4 + floor(3 ln n)`` for ``n`` parameters.
    ``validate_against`` None: the opponents.
    """
    import cma  # here, not at the top: importing cma starts matplotlib.pyplot

    entries = strategy_entries(strategy, "strategy")
    if len(entries) != 1:
        raise ValueError(f"strategy: tune one strategy, found {len(entries)}")
    tuned = resolve(entries[0])
    if not tuned.compiled:
        raise ValueError(f"strategy: {tuned.name} is plain Python; tuning needs a compiled "
                         "strategy (its parameters reach the kernel as data)")
    if not tuned.parameters:
        raise ValueError(f"strategy: {tuned.name} has no parameters to tune")
    if tuned.sees_hidden:
        raise ValueError(f"strategy: {tuned.name} sees hidden information; tune a fair strategy")
    opponents = resolve_field(against, "against")
    checked = validate_against if validate_against is not None else against
    baselines = resolve_field(checked, "validate_against")
    count = check_int(players, "players", 2, 4)
    if count not in LADDER_PLAYER_COUNTS:
        raise ValueError(f"players must be 2 or 4 (one side against another), found {count}")
    n = len(tuned.parameters)
    size = (4 + int(3 * math.log(n))) if population is None else check_int(population, "population", 2)
    step = check_finite(_number(sigma, "sigma"), "sigma")
    if step <= 0:
        raise ValueError(f"sigma must be positive, found {sigma!r}")
    if pick not in PICKS:
        raise ValueError(f"pick must be one of {', '.join(PICKS)}, found {pick!r}")
    seed, validation_seed = check_seed(seed), check_seed(validation_seed, "validation_seed")
    generations = check_int(generations, "generations", 1)
    if validation_seed in {generation_seed(seed, g) for g in range(generations)}:
        raise ValueError("validation_seed equals the seed of a tuning generation: choose another")
    # one field for the whole run: every strategy compiled into one kernel
    everyone = list({s.name: s for s in [tuned, *opponents, *baselines]}.values())
    for entry in everyone:
        if entry.sees_hidden:
            raise ValueError(f"{entry.name} sees hidden information: tuning plays fair strategies")
    defaults = tuned.default_params()
    return {
        "experiment": NAME,
        "strategy": tuned.name,
        "strategy_spec": spec_of(tuned),
        "parameters": tuned.parameter_names(),
        "defaults": defaults.tolist(),
        "scale": parameter_scale(defaults).tolist(),
        "against": [s.name for s in opponents],
        "validate_against": [s.name for s in baselines],
        "players": count,
        "seed": seed,
        "validation_seed": validation_seed,
        "deals": check_int(deals, "deals", 2),
        "generations": generations,
        "population": size,
        "sigma": step,
        "pick": pick,
        "validation_deals": check_int(validation_deals, "validation_deals", 2),
        "max_rounds": check_int(max_rounds, "max_rounds", 1),
        "optimiser": f"cma {cma.__version__}",
        **strategy_settings(everyone),
    }


def _number(value, name: str):
    """``value``, or the number its text gives (what the command line passes)."""
    if not isinstance(value, str):
        return value
    try:
        return float(value.strip())
    except ValueError:
        raise ValueError(f"{name} expects a number, found {value!r}") from None


def matches_per_run(settings: dict) -> int:
    """Every match a run plays: the generations (population + the CMA mean) and validation."""
    per_vector = SEATINGS * settings["deals"] * len(settings["against"])
    tuning = settings["generations"] * (settings["population"] + 1) * per_vector
    return tuning + 2 * SEATINGS * settings["validation_deals"] * len(settings["validate_against"])


# ---------------------------------------------------------------------------
# Fitness: duplicate deals
# ---------------------------------------------------------------------------
def _specs(settings: dict) -> dict:
    return dict(zip(settings["strategies"], settings["strategy_specs"]))


def play_vector(theta, opponent: str, settings: dict, *, deals: int, seed: int, label: str,
                pairing: int = 0, threads=None, bar=None) -> pd.DataFrame:
    """Both seatings of ``deals`` duplicate deals (matches ``0 .. deals - 1`` of ``seed``):
    the strategy with parameters ``theta`` (entity 0, then entity 1) against ``opponent``
    with its defaults. Rows as :func:`experiments.tools.strength.strength_job`, the vector
    labelled ``label`` (``upper``) and the opponent by its name (``lower``)."""
    spec = _specs(settings)
    vector = [float(v) for v in theta]
    frames = []
    for seating in range(SEATINGS):
        sides = [spec[settings["strategy"]], spec[opponent]]
        params = [vector, None]
        if seating:
            sides, params = sides[::-1], params[::-1]
        frames.append(strength_job(0, deals, players=settings["players"], seat_strategies=sides,
                                   seed=seed, max_rounds=settings["max_rounds"], pairing=pairing,
                                   seating=seating, upper=label, lower=opponent,
                                   field=list(settings["strategy_specs"]), threads=threads,
                                   params=params))
        if bar is not None:
            bar.update(deals)
    return pd.concat(frames, ignore_index=True)


def vector_outcomes(theta, settings: dict, *, deals: int, seed: int, threads=None,
                    bar=None) -> np.ndarray:
    """float64[deals]: per deal, the vector's mean win over both seatings and every opponent
    of ``settings["against"]`` (0, 0.25, ..., 1): its fitness is the mean."""
    per_opponent = []
    for opponent in settings["against"]:
        rows = play_vector(theta, opponent, settings, deals=deals, seed=seed, label=CANDIDATE,
                           threads=threads, bar=bar)
        per_opponent.append(deal_outcomes(rows, settings["players"], CANDIDATE,
                                          opponent).to_numpy())
    return np.mean(per_opponent, axis=0)


def fitness(theta, settings: dict, generation: int = 0, threads=None) -> float:
    """The win rate of ``theta`` on generation ``generation``'s deals (what CMA-ES maximises)."""
    return float(vector_outcomes(theta, settings, deals=settings["deals"],
                                 seed=generation_seed(settings["seed"], generation),
                                 threads=threads).mean())


# ---------------------------------------------------------------------------
# The optimisation
# ---------------------------------------------------------------------------
def _optimiser(settings: dict):
    import cma  # see tune_settings

    scale = np.asarray(settings["scale"])
    x0 = to_scaled(settings["defaults"], scale)
    generator = np.random.default_rng(np.random.SeedSequence([settings["seed"], CMA_KEY]))
    options = {
        "popsize": settings["population"],
        "seed": np.nan,  # no global NumPy seeding: the draws come from ``randn`` below
        "randn": lambda *shape: generator.standard_normal(shape),
        "verbose": -9, "verb_disp": 0, "verb_log": 0,
        # the run lasts ``generations``: CMA's own stopping rules are for noise-free fitness
        "maxiter": settings["generations"], "tolfun": 0, "tolfunhist": 0, "tolx": 0,
        "tolflatfitness": settings["generations"] + 1,
        "tolstagnation": settings["generations"] + 1,
    }
    return cma.CMAEvolutionStrategy(x0, settings["sigma"], options)


def _vector_columns(theta, names) -> dict:
    return {name: float(v) for name, v in zip(names, theta)}


def optimise(settings: dict, threads=None, bar=None) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Run CMA-ES for ``settings["generations"]``; returns ``(history, candidates, mean)``.

    ``history``: one row per generation, the columns of the module docstring (fitness
    float64, intervals paired by deal; ``best_candidate`` int, the index of the best
    candidate in ``candidates``); ``candidates``: one row per sampled vector (``generation``,
    ``candidate``, ``fitness``, ``low``, ``high`` and the vector). ``mean``: float64[n]
    parameters (own units) of CMA's mean after the last generation.
    """
    es = _optimiser(settings)
    scale = np.asarray(settings["scale"])
    names = settings["parameters"]
    history, candidates = [], []
    for generation in range(settings["generations"]):
        seed = generation_seed(settings["seed"], generation)
        xs = es.ask()
        centre = from_scaled(es.mean, scale)
        vectors = [from_scaled(x, scale) for x in xs] + [centre]
        outcomes = [vector_outcomes(v, settings, deals=settings["deals"], seed=seed,
                                    threads=threads, bar=bar) for v in vectors]
        values = np.array([o.mean() for o in outcomes])
        es.tell(xs, list(-values[:-1]))  # cma minimises
        population = values[:-1]
        best = int(np.argmax(population))  # ties: the first
        m, m_low, m_high = paired_share_interval(outcomes[-1])
        b, b_low, b_high = paired_share_interval(outcomes[best])
        gap = paired_contrast(outcomes[-1], outcomes[best])  # both on this generation's deals
        history.append({
            "generation": generation, "seed": seed, "deals": settings["deals"],
            "best_candidate_fitness": b, "best_candidate_low": b_low,
            "best_candidate_high": b_high,
            "median_candidate_fitness": float(np.median(population)),
            "worst_candidate_fitness": float(population.min()), "best_candidate": best,
            "mean_point_fitness": m, "mean_point_low": m_low, "mean_point_high": m_high,
            "mean_minus_best": gap.difference, "mean_minus_best_low": gap.low,
            "mean_minus_best_high": gap.high,
            "sigma": float(es.sigma), **_vector_columns(centre, names),
        })
        for k, vector in enumerate(vectors[:-1]):
            f, low, high = paired_share_interval(outcomes[k])
            candidates.append({"generation": generation, "candidate": k, "fitness": f,
                               "low": low, "high": high, **_vector_columns(vector, names)})
    return pd.DataFrame(history), pd.DataFrame(candidates), from_scaled(es.mean, scale)


def pick_vector(settings: dict, candidates: pd.DataFrame, mean) -> np.ndarray:
    """The vector to validate (:data:`SIGNIFICANT_DIGITS` digits): CMA's final mean, or the
    candidate of highest in-sample fitness (the first of equals)."""
    if settings["pick"] == "mean":
        return rounded(mean)
    row = candidates.loc[candidates["fitness"].idxmax()]
    return rounded(row[settings["parameters"]].to_numpy(np.float64))


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------
def validate(theta, settings: dict, threads=None, bar=None) -> pd.DataFrame:
    """The picked and the default vector against every ``validate_against`` strategy on the
    held-out deals (matches ``0 .. validation_deals - 1`` of ``validation_seed``).

    Returns
    -------
    DataFrame
        One row per baseline: ``baseline, players, deals, matches, wins, draws, win_rate,
        paired_low, paired_high`` (deal = unit), ``wilson_low, wilson_high`` (matches as if
        independent), ``mean_rounds, mean_margin`` (raw points), ``default_win_rate,
        default_low, default_high`` (the default vector on the same deals), ``gain,
        gain_low, gain_high, gain_effect`` (paired difference tuned - default, per deal, and
        its standardised effect; :func:`experiments.stats.paired_contrast`).
    """
    name = settings["strategy"]
    labels = {"tuned": TUNED_LABEL.format(name=name), "default": DEFAULT_LABEL.format(name=name)}
    vectors = {"tuned": np.asarray(theta, float), "default": np.asarray(settings["defaults"])}
    frames, pairings = [], []
    for baseline in settings["validate_against"]:
        for kind in ("tuned", "default"):
            frames.append(play_vector(vectors[kind], baseline, settings,
                                      deals=settings["validation_deals"],
                                      seed=settings["validation_seed"], label=labels[kind],
                                      pairing=len(pairings), threads=threads, bar=bar))
            pairings.append([kind, labels[kind], baseline])
    matches = pd.concat(frames, ignore_index=True)
    table = ladder_table(matches, {"players": [settings["players"]], "pairings": pairings})
    rows = []
    for baseline in settings["validate_against"]:
        tuned = table[(table["kind"] == "tuned") & (table["lower"] == baseline)].iloc[0]
        default = table[(table["kind"] == "default") & (table["lower"] == baseline)].iloc[0]
        gain = paired_contrast(
            deal_outcomes(matches, settings["players"], labels["tuned"], baseline).to_numpy(),
            deal_outcomes(matches, settings["players"], labels["default"], baseline).to_numpy())
        rows.append({
            "baseline": baseline, "players": settings["players"], "deals": int(tuned["deals"]),
            "matches": int(tuned["matches"]), "wins": int(tuned["upper_wins"]),
            "draws": int(tuned["draws"]), "win_rate": tuned["win_rate"],
            "paired_low": tuned["paired_low"], "paired_high": tuned["paired_high"],
            "wilson_low": tuned["wilson_low"], "wilson_high": tuned["wilson_high"],
            "mean_rounds": tuned["mean_rounds"], "mean_margin": tuned["mean_margin"],
            "default_win_rate": default["win_rate"], "default_low": default["paired_low"],
            "default_high": default["paired_high"], "gain": gain.difference,
            "gain_low": gain.low, "gain_high": gain.high, "gain_effect": gain.effect,
        })
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# The comparisons, declared before the run
# ---------------------------------------------------------------------------
def gain_id(settings: dict, baseline: str) -> str:
    """The comparison id of the held-out gain against ``baseline`` (no seed in it)."""
    name = settings["strategy"]
    return comparison_id(f"{settings['players']}p", f"tuned {name} vs {baseline} - default "
                         f"{name} vs {baseline}", "held-out win rate")


def share_id(settings: dict, baseline: str) -> str:
    """The comparison id of the tuned vector's held-out win share against ``baseline``."""
    return comparison_id(f"{settings['players']}p", f"tuned {settings['strategy']} vs {baseline}",
                         "held-out win share")


def plan_for(settings: dict) -> ComparisonPlan:
    """The comparisons a tuning run states, declared from its settings alone: primary (Holm),
    the held-out gain of the picked vector over the default one against each validation
    strategy; exploratory (Benjamini-Hochberg), the picked vector's held-out win share against
    each, minus 1/2."""
    baselines = settings["validate_against"]
    comparisons = [Comparison(gain_id(settings, b), PRIMARY, WIN_RATE_CONTRAST.name)
                   for b in baselines]
    comparisons += [Comparison(share_id(settings, b), EXPLORATORY, WIN_SHARE.name)
                    for b in baselines]
    note = ("Primary: the held-out gain of the picked vector over the default one against "
            f"each validation strategy ({', '.join(baselines)}), on the same held-out deals; "
            "exploratory: the picked vector's held-out win share against each, minus 1/2.")
    return ComparisonPlan(NAME, (WIN_RATE_CONTRAST, WIN_SHARE), tuple(comparisons), note=note)


def comparisons_table(settings: dict, validation: pd.DataFrame) -> pd.DataFrame:
    """Every declared comparison from the ``validation`` frame, adjusted as its family and
    worded by its adjusted interval (``words``; units: held-out deals)."""
    name = settings["strategy"]
    rows = []
    for row in validation.itertuples(index=False):
        rows.append({"id": gain_id(settings, row.baseline), "a": f"tuned {name}",
                     "b": f"default {name}", "players": row.players, "baseline": row.baseline,
                     "difference": row.gain, "low": row.gain_low, "high": row.gain_high,
                     "units": row.deals})
    for row in validation.itertuples(index=False):
        rows.append({"id": share_id(settings, row.baseline), "a": f"tuned {name}",
                     "b": row.baseline, "players": row.players, "baseline": row.baseline,
                     "difference": row.win_rate - EVEN, "low": row.paired_low - EVEN,
                     "high": row.paired_high - EVEN, "units": row.deals})
    adjusted = plan_for(settings).adjust(pd.DataFrame(rows), units="units")
    words = []
    for row in adjusted.itertuples(index=False):
        if row.quantity == WIN_RATE_CONTRAST.name:
            words.append(adjusted_words(row, row.a, row.b,
                                        f"win rate vs {row.baseline} on held-out deals", True))
        else:
            words.append(adjusted_words(row, row.a, row.b, f"{WIN_SHARE.words} (held out)",
                                        True, head=f"{row.a} vs {row.b}"))
    adjusted["words"] = words
    return adjusted


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------
@dataclass
class TuneResult:
    """What a tuning run produced.

    Attributes
    ----------
    settings : dict
    best : dict
        What ``best.json`` holds: ``strategy``, ``pick``, ``spec`` (a strategy spec naming
        the picked vector), ``parameters`` (name -> value), ``validation`` (baseline ->
        win rate and paired interval).
    frames : dict of str -> DataFrame
        ``history``, ``candidates``, ``validation``, ``vector`` (parameter, default, tuned,
        scale).
    markdown : str
        ``summary.md``.
    wall_seconds : float
    files : list of str
    """

    settings: dict
    best: dict
    frames: dict
    markdown: str
    wall_seconds: float
    command: str = ""
    files: list = field(default_factory=list)

    @property
    def key_numbers(self) -> dict:
        """Held-out win rate of the picked vector against each baseline, and its gain over the
        default vector worded by its adjusted interval, as text."""
        s, compared = self.settings, self.frames["comparisons"].set_index("id")
        return {f"{s['players']}p: {s['strategy']} (tuned) vs {row.baseline}":
                fmt_ci(row.win_rate, row.paired_low, row.paired_high, pct=True) + "; gain: "
                + compared.loc[gain_id(s, row.baseline)].words.split(": ", 1)[1]
                for row in self.frames["validation"].itertuples()}

    def tuned(self, name: str | None = None) -> Strategy:
        """The picked vector as a strategy (a variant of the tuned strategy)."""
        base = resolve(self.settings["strategy_spec"])
        return variant(base, name=name, **self.best["parameters"])


def spec_for(settings: dict, theta) -> str:
    """A spec string naming the strategy with parameters ``theta`` (those that differ from
    its defaults), e.g. ``weighted[w_award=0.61,w_double=2.9]``."""
    base = resolve(settings["strategy_spec"])
    named = variant(base, **dict(zip(settings["parameters"], map(float, theta))))
    prefix = settings["strategy_spec"]
    if prefix.startswith(SESSION_PREFIX):
        prefix = base.name  # only this process can rebuild it anyway
    return prefix + named.name[len(base.name):]


def command_for(settings: dict, out, ship=None) -> str:
    """The ``five-up tune`` command that reruns ``settings`` into ``out`` (and ships)."""
    s = settings
    words = ["five-up", NAME, "--strategy", s["strategy_spec"],
             "--against", ",".join(_specs(s)[n] for n in s["against"]),
             "--validate-against", ",".join(_specs(s)[n] for n in s["validate_against"]),
             "--players", str(s["players"]), "--seed", str(s["seed"]),
             "--validation-seed", str(s["validation_seed"]), "--deals", str(s["deals"]),
             "--generations", str(s["generations"]), "--population", str(s["population"]),
             "--sigma", f"{s['sigma']:g}", "--pick", s["pick"],
             "--validation-deals", str(s["validation_deals"])]
    if s["max_rounds"] != DEFAULT_MAX_ROUNDS:
        words += ["--max-rounds", str(s["max_rounds"])]
    words += ["--out", str(out)]
    if ship is not None:
        words += ["--ship", str(ship)]
    return shlex.join(words)


def run(*args, ship=None, command: str | None = None, **options) -> TuneResult:
    """Tune, validate and (with ``out``) write the outputs (see the module docstring):
    ``run(spec)`` with the :class:`experiments.run_spine.StudySpec` of :func:`study_spec`, or
    ``run(strategy, against, players, ...)`` with the arguments of :func:`study_spec`, checked
    once there.

    Parameters
    ----------
    ship : path, optional
        Also write the table module (:func:`table_module_source`) there.
    command : str, optional
        The command recorded in the summary and the shipped module (default
        :func:`command_for`).

    Returns
    -------
    TuneResult
    """
    spec = given_spec(NAME, args, options) or study_spec(*args, **options)
    claim_run(spec)
    out = options.get("out", spec.out)  # as given: the command records it as typed
    return tune_and_ship(spec, ship,
                         command or command_for(spec.settings, "DIR" if out is None else out, ship))


def study_spec(strategy=DEFAULT_STRATEGY, against=DEFAULT_AGAINST, players=DEFAULT_PLAYERS,
               seed=DEFAULT_SEED, validation_seed=DEFAULT_VALIDATION_SEED, deals=DEFAULT_DEALS,
               generations=DEFAULT_GENERATIONS, population=None, sigma=DEFAULT_SIGMA,
               pick=DEFAULT_PICK, validation_deals=DEFAULT_VALIDATION_DEALS,
               validate_against=None, max_rounds=DEFAULT_MAX_ROUNDS, **scale) -> StudySpec:
    """The checked spec of a tuning run (ValueError, one line): its settings
    (:func:`tune_settings`) and its scale options.

    Parameters
    ----------
    strategy : str or Strategy
        The compiled strategy whose parameters are tuned (from its defaults).
    against : str or sequence
        Opponents of the fitness (comma-separated specs or Strategy objects); each plays
        with its defaults, the fitness is the mean win rate over them.
    players : int
        2, or 4 (partnerships).
    seed, validation_seed : int
        The tuning deals (:func:`generation_seed`) and CMA-ES's draws; the held-out deals.
    deals, generations, population, sigma, pick, validation_deals, validate_against,
    max_rounds
        See :func:`tune_settings`.
    **scale
        ``threads``, ``progress`` (one progress bar over every match of the run) and ``out``
        (the output directory, claimed; refused if it holds another run):
        :meth:`experiments.run_spine.StudySpec.build`.

    Returns
    -------
    experiments.run_spine.StudySpec
    """
    settings = tune_settings(strategy, against, players, seed, validation_seed, deals,
                             generations, population, sigma, pick, validation_deals,
                             validate_against, max_rounds)
    return StudySpec(settings, scale=study_scale(**scale), plan=plan_for(settings))


def tune_and_ship(spec: StudySpec, ship=None, command: str = "") -> TuneResult:
    """Tune and validate ``spec`` (its output directory claimed:
    :func:`experiments.run_spine.claim_run`), write the outputs there and, with ``ship``, the table
    module; ``command`` is the one recorded in the summary and the shipped module."""
    settings = spec.settings
    started = time.perf_counter()
    with progress_bar(matches_per_run(settings), spec.scale.progress, desc=NAME) as bar:
        history, candidates, mean = optimise(settings, spec.scale.threads, bar)
        theta = pick_vector(settings, candidates, mean)
        validation = validate(theta, settings, spec.scale.threads, bar)
    wall = time.perf_counter() - started
    parameters = _vector_columns(theta, settings["parameters"])
    best = {
        "strategy": settings["strategy"], "pick": settings["pick"],
        "spec": spec_for(settings, theta), "parameters": parameters,
        "validation": {row.baseline: {"deals": int(row.deals), "win_rate": float(row.win_rate),
                                      "paired_low": float(row.paired_low),
                                      "paired_high": float(row.paired_high)}
                       for row in validation.itertuples()},
    }
    vector = pd.DataFrame({"parameter": settings["parameters"], "default": settings["defaults"],
                           "tuned": theta, "scale": settings["scale"],
                           "tuned_scaled": to_scaled(theta, settings["scale"])})
    frames = {"history": history, "candidates": candidates, "validation": validation,
              "vector": vector, "comparisons": comparisons_table(settings, validation)}
    result = TuneResult(settings, best, frames, "", wall, command)
    result.markdown = summary_markdown(result)
    if spec.out is not None:
        write(result, spec.out)
    if ship is not None:
        ship_table(result, ship)
    return result


def save(result: TuneResult, out) -> list[str]:
    """Claim ``out`` with the result's settings (``run.json``) and :func:`write` the result
    there."""
    return write(result, claim_directory(out, result.settings))


def write(result: TuneResult, out) -> list[str]:
    """Write ``best.json``, the CSV frames, ``fitness.png`` and ``summary.md`` into ``out``,
    already claimed with the settings (``run.json``). Only small files: no parquet."""
    path = Path(out)
    written = ["run.json"]
    atomic_write(path / "best.json",
                 lambda p: p.write_text(json.dumps(result.best, indent=2) + "\n"))
    written.append("best.json")
    for name, frame in result.frames.items():
        atomic_write(path / f"{name}.csv",
                     lambda p, f=frame: f.to_csv(p, index=False, float_format="%.6g"))
        written.append(f"{name}.csv")
    atomic_write(path / "fitness.png", lambda p: plot_fitness(result, p))
    atomic_write(path / "summary.md", lambda p: p.write_text(result.markdown))
    written += ["fitness.png", "summary.md"]
    result.files = [str(path / name) for name in written]
    return result.files


# ---------------------------------------------------------------------------
# The shipped table
# ---------------------------------------------------------------------------
def table_module_source(result: TuneResult) -> str:
    """The text of :mod:`strategies.weighted_tuned_table`: the picked vector, how it was made
    and its held-out validation (a generated module: plain data, imported by
    :mod:`strategies.weighted`)."""
    s = result.settings
    lines = [f"    {name!r}: {value!r}," for name, value in result.best["parameters"].items()]
    validation = result.frames["validation"]
    figures = "\n".join(
        f"    against {row.baseline}: {fmt_ci(row.win_rate, row.paired_low, row.paired_high, pct=True)}"
        f" (default {s['strategy']}: {100 * row.default_win_rate:.1f}%)"
        for row in validation.itertuples())
    valid = ",\n".join(
        f"    {row.baseline!r}: ({float(row.win_rate)!r}, {float(row.paired_low)!r}, "
        f"{float(row.paired_high)!r})" for row in validation.itertuples())
    against = ", ".join(s["against"])
    return f'''"""Tuned parameters of ``{s["strategy"]}``: :data:`TUNED_PARAMETERS` (generated; do not edit).

Written by ``five-up tune --ship`` (:mod:`experiments.tools.tune`): CMA-ES in the scaled space
``x = theta / scale`` from the defaults, fitness = win rate against {against} on
{s["deals"]:,} duplicate deals per candidate per generation (common random numbers, new
deals each generation), {s["generations"]} generations of {s["population"]} candidates,
{s["players"]} players, seed {s["seed"]}; the vector is CMA's {"final mean" if s["pick"] == "mean"
else "best evaluated candidate"}. :mod:`strategies.weighted` enters it as the named variant
``weighted_tuned``. Held-out validation (seed {s["validation_seed"]}, {s["validation_deals"]:,}
duplicate deals, win rate [paired 95% interval, deal = unit]):

{figures}

Regenerate it with :data:`TUNED_COMMAND`:

    {result.command}
"""

TUNED_STRATEGY = {s["strategy"]!r}
"""The strategy whose parameters these are."""

TUNED_COMMAND = {result.command!r}
"""The command that regenerated this file."""

TUNED_PARAMETERS = {{
{chr(10).join(lines)}
}}
"""Parameter name -> tuned value (every parameter of the strategy)."""

TUNED_VALIDATION = {{
{valid},
}}
"""Baseline -> (win rate, paired 95% low, high) on the held-out deals."""
'''


def ship_table(result: TuneResult, path) -> str:
    """Write :func:`table_module_source` to ``path``; returns its text."""
    text = table_module_source(result)
    atomic_write(path, lambda p: p.write_text(text))
    return text


# ---------------------------------------------------------------------------
# Figure and summary
# ---------------------------------------------------------------------------
def opponents_text(names) -> str:
    """``"weighted"``, ``"weighted and rollout"``, ``"a, b and c"``: the opponents in a label."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def ticks_within_limits(ax) -> None:
    """Fix ``ax``'s y ticks to those inside its current limits: a locator's tick beyond them is
    not drawn, but its label is still laid out (over the title, for one just above the top)."""
    low, high = ax.get_ylim()
    ax.set_yticks([t for t in ax.get_yticks() if low <= t <= high])


@figures.house_style()
def plot_fitness(result: TuneResult, path) -> None:
    """Left: win rate by generation against the training opponents (the distribution mean
    point as a curve with its paired 95% band, in-sample on that generation's deals; the
    candidates, selected on noise, are in ``history.csv``) and, at the right, the held-out win
    rates against each validation strategy (coloured and labelled by that strategy); right: the
    CMA mean in the scaled space, one line per parameter (a path, not estimates). Page width;
    the provenance line names the deals and their seeds."""
    s, history = result.settings, result.frames["history"]
    validation = result.frames["validation"]
    fig, (ax, bx) = new_figure(1, 2, width="page", height=3.6,
                               gridspec_kw={"width_ratios": [3, 2]})
    g = history["generation"].to_numpy()
    training = opponents_text(s["against"])
    # in-sample series are vectors of one strategy, not strategies: black and greys, so that no
    # strategy's colour (the held-out markers) means anything else in the figure
    band(ax, g, history["mean_point_fitness"], history["mean_point_low"],
         history["mean_point_high"], color="black",
         label=f"mean point vs {training} (training deals, seed {s['seed']})")
    reference_line(ax, EVEN)
    last = g[-1] if len(g) else 0
    offset = max(1.0, 0.06 * (last + 1))
    ax.axvline(last + offset / 2, color="0.5", lw=0.6, ls=":")
    markers = "oDsv<>"
    for k, row in enumerate(validation.itertuples()):
        estimates(ax, [last + offset * (1 + k)], [row.win_rate], [row.paired_low],
                  [row.paired_high], color=strategy_colour(row.baseline),
                  marker=markers[k % len(markers)], label=row.baseline)
    values = np.concatenate([history[["mean_point_low", "mean_point_high"]].to_numpy().ravel(),
                             validation[["paired_low", "paired_high"]].to_numpy().ravel(), [EVEN]])
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    pad = max(0.02, 0.08 * (high - low))
    ax.set_ylim(max(0.0, low - pad), min(1.0, high + pad))
    ax.set_xlim(-0.5, last + offset * (len(validation) + 0.8))
    # ticks at generations only: the held-out markers right of the dotted line are no generation
    ticks = MaxNLocator(integer=True).tick_values(0, last)
    ax.xaxis.set_major_locator(FixedLocator([t for t in ticks if 0 <= t <= last]))
    # a run of one generation: a unit range, or the locator ticks a zero-width range finely
    span = max(last, 1)
    bx.set_xlim(-0.5, span + 0.5)
    bx.xaxis.set_major_locator(FixedLocator(
        [t for t in MaxNLocator(integer=True).tick_values(0, span) if 0 <= t <= span]))
    for axes in (ax, bx):  # few y ticks: the legends below leave the panels short
        axes.yaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.set_xlabel("generation (right of the dotted line: held out)")
    ax.set_ylabel(f"{s['strategy']} vector's match win rate")
    ax.set_title(f"Fitness: win rate vs {training} ({s['population']} candidates, "
                 f"{s['deals']:,} deals each)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2,
              title=f"held out against the strategy named: {s['validation_deals']:,} deals, "
                    f"seed {s['validation_seed']}")
    scale = np.asarray(s["scale"])
    colors = color_cycle()
    for k, name in enumerate(s["parameters"]):
        bx.plot(g, history[name].to_numpy() / scale[k], color=colors[k % len(colors)],
                ls="-" if k < len(colors) else "--", label=name)
    no_intervals(bx, "the CMA mean's path through the scaled space, not estimates")
    reference_line(bx, 0.0)
    bx.set_xlabel("generation")
    bx.set_ylabel("CMA mean / scale\n(scale = |default|, or 1 where 0)")
    bx.set_title(f"Parameters (sigma {history['sigma'].iloc[-1]:.3g} at the end)")
    bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, columnspacing=0.8,
              handlelength=1.4)
    for axes in (ax, bx):
        ticks_within_limits(axes)
    stamp(fig, run_footer({"players": s["players"], "seed": s["seed"]},
                          sample=f"{s['deals']:,} duplicate deals per candidate per generation, "
                                 f"{s['validation_deals']:,} held-out deals (seed "
                                 f"{s['validation_seed']})"))
    save_png(fig, path)


def fitness_caption(result: TuneResult) -> str:
    """``fitness.png``'s caption (:func:`experiments.reporting.reports.figure_caption`), read from the
    frames: what is plotted, the sample, the bars and the held-out finding."""
    s = result.settings
    compared = result.frames["comparisons"]
    findings = "; ".join(compared[compared["family"] == PRIMARY]["words"])
    return figure_caption(
        "fitness",
        (f"left, the match win rate by generation against {opponents_text(s['against'])} (the "
         "training opponents) of CMA-ES's mean point, and at the right the picked vector's "
         "held-out win rate against "
         f"{opponents_text(s['validate_against'])}; right, the mean point's parameters "
         "(scaled by |default|)"),
        (f"{s['deals']:,} duplicate deals per candidate per generation (new deals each "
         f"generation, seed {s['seed']}), {s['population']} candidates, {s['generations']} "
         f"generations; {s['validation_deals']:,} held-out deals, seed {s['validation_seed']}"),
        ("band and bars: marginal 95% Student-t intervals over deals (paired by deal, clipped "
         "to [0, 1]); the held-out markers are coloured by the validation strategy"),
        f"held-out gain over the default vector, adjusted as the primary family: {findings}")


def summary_markdown(result: TuneResult) -> str:
    """``summary.md``: the method, the held-out table, the vector, the first and last
    generations, the command and the wall time. Every figure is read from the frames."""
    s, frames = result.settings, result.frames
    history, validation, vector = frames["history"], frames["validation"], frames["vector"]
    picked = ("CMA-ES's distribution mean after the last generation (never evaluated "
              "in-sample)" if s["pick"] == "mean" else
              "the candidate with the highest in-sample fitness (biased upward by selection)")
    lines = [
        f"# Tuning {s['strategy']}",
        "",
        (f"CMA-ES ({s['optimiser']}) over the {len(s['parameters'])} parameters of "
        f"`{s['strategy']}`, {s['players']} players, seed {s['seed']}: {s['generations']} "
        f"generations of {s['population']} candidates (initial step {s['sigma']:g} in the scaled "
        f"space). Fitness = win rate against {', '.join(s['against'])} (with its defaults) on "
        f"{s['deals']:,} duplicate deals per candidate (each deal in both seatings; every "
        f"candidate of a generation on the same deals, new deals each generation). The search "
        f"runs on `x = theta / scale`, `scale = |default|` per parameter ({ZERO_SCALE:g} where "
        f"the default is 0). The validated vector is {picked}. Held-out validation: "
        f"{s['validation_deals']:,} fresh duplicate deals of seed {s['validation_seed']}; "
        "`paired` = 95% Student-t interval of the per-deal means (deal = unit; clipped to "
        "[0, 1]), `gain` = the paired difference with the default vector on the same deals "
        "(t interval over deals; d = the standardised effect). A match stopped "
        f"unfinished by max_rounds = {s['max_rounds']} is a win for nobody."),
        "",
        "## Key numbers",
        "",
    ]
    lines += [f"- {key}: {value}" for key, value in result.key_numbers.items()]
    table = pd.DataFrame({
        "baseline": validation["baseline"],
        "deals": validation["deals"],
        "tuned win rate [paired 95%]": [fmt_ci(r.win_rate, r.paired_low, r.paired_high, pct=True)
                                        for r in validation.itertuples()],
        "wilson 95%": [f"[{100 * r.wilson_low:.1f}, {100 * r.wilson_high:.1f}]"
                       for r in validation.itertuples()],
        "default win rate [paired 95%]": [fmt_ci(r.default_win_rate, r.default_low,
                                                 r.default_high, pct=True)
                                          for r in validation.itertuples()],
        "gain [paired 95%]": [f"{100 * r.gain:+.1f} pp [{100 * r.gain_low:+.1f}, "
                              f"{100 * r.gain_high:+.1f}]" for r in validation.itertuples()],
        "draws": validation["draws"],
        "mean margin (raw)": validation["mean_margin"],
    })
    lines += ["", f"## Held-out validation ({s['players']} players)", "", md_table(table, 2), ""]
    compared = frames["comparisons"]
    plan = plan_for(s)
    lines += ["## Comparisons (declared before the run)", "", plan_sentence(plan, compared)
              + " " + plan.note + " Each is worded by its interval adjusted as its family: a "
              "finding only where it excludes 0.", ""]
    for family, heading in ((PRIMARY, "Primary"), (EXPLORATORY, "Exploratory")):
        lines += [f"### {heading}", ""]
        lines += [f"- {words}." for words in compared[compared["family"] == family]["words"]]
        lines.append("")
    shown = vector.assign(change=vector["tuned"] - vector["default"])
    lines += ["", "## The vector", "",
              f"Spec: `{result.best['spec']}`", "", md_table(shown, 4)]
    head = history[["generation", "best_candidate_fitness", "median_candidate_fitness",
                    "mean_point_fitness", "mean_point_low", "mean_point_high", "mean_minus_best",
                    "mean_minus_best_low", "mean_minus_best_high", "sigma"]]
    excerpt = head if len(head) <= 10 else pd.concat([head.head(5), head.tail(5)])
    beats = int((history["mean_minus_best_low"] > 0).sum())
    below = int((history["mean_minus_best_high"] < 0).sum())
    lines += ["", "## Generations (in-sample, each on its own deals)", "",
              ("`best_candidate_fitness`: the best of the generation's sampled candidates (biased "
               "upward by that selection); `median_candidate_fitness`: their median; "
               "`mean_point_fitness`: the distribution mean the candidates were sampled around, "
               "played separately on the same deals (not a candidate; it does not steer the "
               "search); `mean_minus_best`: their paired difference with its 95% t interval "
               "over deals. The mean point can beat the best candidate: each candidate is the "
               "mean plus a random step in every parameter at once, and near an optimum almost "
               "every such step costs more than it gains, while the mean is the recombination "
               "of the ranked candidates, which averages their steps away. In this run the mean "
               f"point beat the best candidate in {beats} of {len(history)} generations and fell "
               f"below it in {below} (intervals excluding 0; the rest: no detectable "
               "difference)."), "",
              md_table(excerpt, 4), "",
              "Every generation is in `history.csv`, every candidate in `candidates.csv`.", "",
              "## Figure", "", fitness_caption(result), "",
              "## Reproduce", "", f"    {result.command}", "",
              (f"Wall time of this run: {result.wall_seconds:.0f} s "
               f"({matches_per_run(s):,} matches)."), ""]
    return "\n".join(lines)
