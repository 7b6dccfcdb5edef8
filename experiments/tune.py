"""Tuning: CMA-ES over a strategy's parameter vector on duplicate deals, with held-out validation.

``five-up tune`` (:mod:`cli.tune`; the command line is the layer above) optimises the float
parameters of a compiled strategy (e.g. the 13 weights ``w_<feature>`` of
:mod:`strategies.weighted`) with CMA-ES (the ``cma`` package):

- **Fitness** of a candidate vector: its win rate against the opponents (``against``, each
  with its default parameters; the mean over opponents) on ``deals`` duplicate deals: each
  deal is played in both seatings (the candidate at entity 0, then at entity 1; with 4
  players its partnership at seats 0,2, then 1,3), exactly as a strength-ladder pairing
  (:func:`experiments.strength.strength_job`, :func:`experiments.strength.deal_outcomes`).
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
  normal interval of the per-deal means, clipped to [0, 1], as the strength ladder) and
  the paired gain over the default vector on the same deals.

Outputs (``out``; claimed with its settings as ``run.json``): ``best.json`` (parameter ->
value, the spec string), ``history.csv`` (one row per generation: the CMA mean's fitness
with its paired interval, the candidates' best / median / worst, sigma, the mean vector),
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

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from experiments.figures import color_cycle, new_figure, run_footer, save_png, stamp
from experiments.reports import fmt_ci, md_table
from experiments.settings import strategy_settings
from experiments.stats import mean_interval, paired_share_interval
from experiments.strength import (
    LADDER_PLAYER_COUNTS,
    deal_outcomes,
    ladder_table,
    strength_job,
)
from experiments.tournament.seatings import derive_seed
from sim.checks import check_finite, check_int, check_seed
from sim.engine.spec import check_threads
from sim.files import atomic_write, claim_directory
from sim.progress import progress_bar
from sim.tiles import DEFAULT_MAX_ROUNDS
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
DPI = 110
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
    with its defaults. Rows as :func:`experiments.strength.strength_job`, the vector
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

    ``mean``: float64[n] parameters (own units) of CMA's mean after the last generation.
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
        history.append({
            "generation": generation, "seed": seed, "deals": settings["deals"],
            "mean_fitness": m, "mean_low": m_low, "mean_high": m_high,
            "best_fitness": b, "best_low": b_low, "best_high": b_high,
            "median_fitness": float(np.median(population)),
            "worst_fitness": float(population.min()), "best_candidate": best,
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
        gain_low, gain_high`` (paired difference tuned - default, per deal).
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
        gain = (deal_outcomes(matches, settings["players"], labels["tuned"], baseline)
                - deal_outcomes(matches, settings["players"], labels["default"], baseline))
        g, g_low, g_high = mean_interval(gain.to_numpy())
        rows.append({
            "baseline": baseline, "players": settings["players"], "deals": int(tuned["deals"]),
            "matches": int(tuned["matches"]), "wins": int(tuned["upper_wins"]),
            "draws": int(tuned["draws"]), "win_rate": tuned["win_rate"],
            "paired_low": tuned["paired_low"], "paired_high": tuned["paired_high"],
            "wilson_low": tuned["wilson_low"], "wilson_high": tuned["wilson_high"],
            "mean_rounds": tuned["mean_rounds"], "mean_margin": tuned["mean_margin"],
            "default_win_rate": default["win_rate"], "default_low": default["paired_low"],
            "default_high": default["paired_high"], "gain": g, "gain_low": g_low,
            "gain_high": g_high,
        })
    return pd.DataFrame(rows)


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
        """Held-out win rate of the picked vector against each baseline, as text."""
        return {f"{self.settings['players']}p: {self.settings['strategy']} (tuned) vs {row.baseline}":
                fmt_ci(row.win_rate, row.paired_low, row.paired_high, pct=True)
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


def run(strategy=DEFAULT_STRATEGY, against=DEFAULT_AGAINST, players=DEFAULT_PLAYERS,
        seed=DEFAULT_SEED, validation_seed=DEFAULT_VALIDATION_SEED, deals=DEFAULT_DEALS,
        generations=DEFAULT_GENERATIONS, population=None, sigma=DEFAULT_SIGMA,
        pick=DEFAULT_PICK, validation_deals=DEFAULT_VALIDATION_DEALS, validate_against=None,
        max_rounds=DEFAULT_MAX_ROUNDS, threads=None, progress: bool = False, out=None,
        ship=None, command: str | None = None) -> TuneResult:
    """Tune, validate and (with ``out``) write the outputs (see the module docstring).

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
    threads : int, optional
    progress : bool
        One progress bar over every match of the run.
    out : path, optional
        Output directory (claimed; refused if it holds another run).
    ship : path, optional
        Also write the table module (:func:`table_module_source`) there.
    command : str, optional
        The command recorded in the summary and the shipped module (default
        :func:`command_for`).

    Returns
    -------
    TuneResult
    """
    settings = tune_settings(strategy, against, players, seed, validation_seed, deals,
                             generations, population, sigma, pick, validation_deals,
                             validate_against, max_rounds)
    threads = check_threads(threads)
    if out is not None:
        claim_directory(out, settings)
    started = time.perf_counter()
    with progress_bar(matches_per_run(settings), progress, desc=NAME) as bar:
        history, candidates, mean = optimise(settings, threads, bar)
        theta = pick_vector(settings, candidates, mean)
        validation = validate(theta, settings, threads, bar)
    wall = time.perf_counter() - started
    command = command or command_for(settings, out if out is not None else "DIR", ship)
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
              "vector": vector}
    result = TuneResult(settings, best, frames, "", wall, command)
    result.markdown = summary_markdown(result)
    if out is not None:
        save(result, out)
    if ship is not None:
        ship_table(result, ship)
    return result


def save(result: TuneResult, out) -> list[str]:
    """Write ``best.json``, the CSV frames, ``fitness.png`` and ``summary.md`` into ``out``
    (claimed with the settings: ``run.json``). Only small files: no parquet."""
    path = claim_directory(out, result.settings)
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

Written by ``five-up tune --ship`` (:mod:`experiments.tune`): CMA-ES in the scaled space
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
def plot_fitness(result: TuneResult, path) -> None:
    """Left: fitness by generation (CMA mean with its paired 95% interval, the best and the
    median candidate, all in-sample on that generation's deals) and the held-out validation
    at the right; right: the CMA mean in the scaled space, one line per parameter."""
    s, history = result.settings, result.frames["history"]
    validation = result.frames["validation"]
    fig, (ax, bx) = new_figure(1, 2, figsize=(12.5, 4.6), gridspec_kw={"width_ratios": [3, 2]})
    g = history["generation"].to_numpy()
    ax.fill_between(g, history["mean_low"], history["mean_high"], alpha=0.25, color="C0",
                    label="CMA mean, paired 95% interval")
    ax.plot(g, history["mean_fitness"], color="C0", lw=1.5, label="CMA mean (in-sample)")
    ax.plot(g, history["best_fitness"], "^", color="C1", ms=3.5,
            label="best candidate (in-sample, selected on noise)")
    ax.plot(g, history["median_fitness"], ".", color="0.45", ms=3.5, label="median candidate")
    ax.axhline(0.5, color="0.3", lw=0.8, ls="--")
    last = g[-1] if len(g) else 0
    offset = max(1.0, 0.04 * (last + 1))
    ax.axvline(last + offset / 2, color="0.5", lw=0.8, ls=":")
    ax.text(last + offset / 2, 1.0, " held-out ", transform=ax.get_xaxis_transform(),
            ha="left", va="top", fontsize=7, color="0.3")
    markers = "oDsv<>"
    for k, row in enumerate(validation.itertuples()):
        x = last + offset * (1 + k)
        ax.errorbar([x], [row.win_rate], yerr=[[row.win_rate - row.paired_low],
                                               [row.paired_high - row.win_rate]],
                    fmt=markers[k % len(markers)], color=f"C{2 + k}", ms=5, capsize=3,
                    label=f"held-out vs {row.baseline} ({row.deals:,} deals, seed "
                          f"{s['validation_seed']})")
    values = np.concatenate([history[["mean_low", "mean_high", "best_fitness",
                                      "worst_fitness"]].to_numpy().ravel(),
                             validation[["paired_low", "paired_high"]].to_numpy().ravel(), [0.5]])
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    pad = max(0.02, 0.1 * (high - low))
    ax.set_ylim(max(0.0, low - pad), min(1.0, high + pad))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    bx.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("generation")
    ax.set_ylabel(f"win rate vs {', '.join(s['against'])}\n(duplicate deals, both seatings)")
    ax.set_title(f"Tuning {s['strategy']}: fitness by generation ({s['population']} candidates, "
                 f"{s['deals']:,} deals each)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    scale = np.asarray(s["scale"])
    colors = color_cycle()
    for k, name in enumerate(s["parameters"]):
        bx.plot(g, history[name].to_numpy() / scale[k], lw=1.1, color=colors[k % len(colors)],
                ls="-" if k < len(colors) else "--", label=name)
    bx.axhline(0.0, color="0.3", lw=0.6)
    bx.set_xlabel("generation")
    bx.set_ylabel("CMA mean, scaled: weight / scale\n(scale = |default|, or 1 where 0)")
    bx.set_title(f"Parameter trajectories (sigma {history['sigma'].iloc[-1]:.3g} at the end)",
                 fontsize=10)
    bx.grid(alpha=0.3)
    bx.legend(fontsize=6.5, ncol=2, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    stamp(fig, run_footer({"players": s["players"], "seed": s["seed"]},
                          sample=f"{s['deals']:,} duplicate deals per candidate per generation, "
                                 f"{s['validation_deals']:,} held-out deals (seed "
                                 f"{s['validation_seed']})"))
    save_png(fig, path, DPI)


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
        "`paired` = 95% normal interval of the per-deal means (deal = unit), `gain` = the "
        "paired difference with the default vector on the same deals. A match stopped "
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
        "gain [paired 95%]": [f"{100 * r.gain:+.1f} pts [{100 * r.gain_low:+.1f}, "
                              f"{100 * r.gain_high:+.1f}]" for r in validation.itertuples()],
        "draws": validation["draws"],
        "mean margin (raw)": validation["mean_margin"],
    })
    lines += ["", f"## Held-out validation ({s['players']} players)", "", md_table(table, 2)]
    shown = vector.assign(change=vector["tuned"] - vector["default"])
    lines += ["", "## The vector", "",
              f"Spec: `{result.best['spec']}`", "", md_table(shown, 4)]
    head = history[["generation", "mean_fitness", "mean_low", "mean_high", "best_fitness",
                    "median_fitness", "sigma"]]
    excerpt = head if len(head) <= 10 else pd.concat([head.head(5), head.tail(5)])
    lines += ["", "## Generations (in-sample, each on its own deals)", "",
              md_table(excerpt, 4), "",
              ("Every generation is in `history.csv`, every candidate in `candidates.csv`; "
               "`fitness.png` plots them."), "",
              "## Reproduce", "", f"    {result.command}", "",
              (f"Wall time of this run: {result.wall_seconds:.0f} s "
               f"({matches_per_run(s):,} matches)."), ""]
    return "\n".join(lines)
