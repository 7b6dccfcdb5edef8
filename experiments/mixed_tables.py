"""Mixed tables: the seating profiles the overshoot, settlement and seats studies play besides
self-play, their rotations, and which strategy each entity of a match played.

A table names one strategy per scoring entity, as a comma-separated list of
specs (``exact,greedy``; commas inside ``[...]`` are kept):

- **two names** ``A,B``: at 2 players A against B; at 4 players partnership A
  (seats 0 and 2) against partnership B (seats 1 and 3); at 3 players one A
  against two Bs (entities A, B, B). A two-name table is played at every
  player count of the study.
- **three names** ``A,B,C``: a 3-player table (one seat each); played at 3
  players only, and refused when 3 is not among the study's player counts.
  (``A,A,B`` and ``B,A,A`` are the same table, two As against one B.)

Any other count is refused, and so is a table of one strategy only (that is
self-play, always studied for ``--strategies``). A table may name strategies
that are not self-played; they join the study's field.

Rotations and duplicate deals
-----------------------------
Each table is played in every **rotation** of its entities' strategies
(entity ``e`` of rotation ``r`` plays the rotation-0 strategy of entity
``(e - r) mod k``, ``k`` the entity count): A,B and B,A at 2 and 4 players;
A,B,C / C,A,B / B,C,A at 3 players, so every strategy sits at every seat
once. Rotations cover seats, not orders: the seat after a weak player gains,
so ``A,B,C`` and ``A,C,B`` are different tables (name both to cover both
orders). A rotation is a :class:`experiments.seatings.Pairing`
(its ``seat_strategies`` maps entities to seats, partners opposite at four).

Every rotation of every table plays matches ``0 .. M-1`` of the study's seed,
as self-play does: the engine derives deals and lots from the seed and the
match index only, so the rotations replay the same deals with the strategies
moved (duplicate deals, common random numbers; the deals are also those of
the self-play configurations of the same player count). Intervals of a
table's figures therefore take the **deal** (the match index) as the
cluster: the outcomes of one deal's rotations are not independent (the
paired interval of a duplicate tournament,
:func:`experiments.tools.tournament.tables.paired_win_rates`).

A strategy counts once per deal
-------------------------------
A strategy may fill several seats of one deal: two of the three entities of
``A,B`` at 3 players, and every rotation of a deal seats each strategy again.
Those rows are the same deal seen several times, not independent
observations: :func:`per_deal_means` averages them into one value per deal
and strategy, and every interval and paired contrast of a table is taken over
those per-deal values (``n`` = deals, whatever the seats).

Comparisons
-----------
Every comparison a study states has an id built from its settings alone (:func:`pair_id`, no
seed), is declared in the study's plan before the run (:func:`table_comparisons` for the
tables' pairs) and computed as a row (:func:`comparison_row`, :func:`table_contrasts`,
:func:`self_play_contrasts`); :func:`adjusted_comparisons` adjusts the rows as the plan's
families and words each by its adjusted interval (the run's ``comparisons`` frame), which the
summaries (:func:`comparison_lines`), key numbers (:func:`comparison_key_numbers`) and captions
(:func:`verdict_finding`) quote.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.comparisons import (
    EXPLORATORY,
    PRIMARY,
    VERDICTS,
    Comparison,
    ComparisonPlan,
    adjusted_words,
    comparison_id,
)
from experiments.reporting.reports import figure_caption, md_table
from experiments.seatings import Pairing
from experiments.stats import paired_contrast, paired_proportion
from core.tiles import entity_count
from sim.wording import counted
from strategies.catalogue import StrategyError, resolve, strategy_entries

SELF_PLAY = "self-play"
"""The ``table`` column of the self-play rows."""


@dataclass(frozen=True)
class Table:
    """One seating profile: the strategy names of its entities, as given.

    Attributes
    ----------
    names : tuple of str
        Two or three strategy names (see the module docstring).
    """

    names: tuple[str, ...]

    @property
    def label(self) -> str:
        """``"exact vs greedy"``: the ``table`` column of its rows."""
        return " vs ".join(self.names)

    def plays_at(self, players: int) -> bool:
        """Whether the table is played at ``players`` (two names: always; three: at 3)."""
        return len(self.names) == 2 or players == 3

    def entity_strategies(self, players: int) -> tuple[str, ...]:
        """Rotation 0: the strategy of each entity at ``players`` (A,B at 3 players: A,B,B)."""
        if len(self.names) == 2 and players == 3:
            a, b = self.names
            return (a, b, b)
        return self.names

    def rotations(self, players: int) -> list[Pairing]:
        """Every rotation at ``players``, as :class:`~experiments.seatings.Pairing`
        (``pairing`` = the rotation, ``group`` 0: they share the deals)."""
        base = self.entity_strategies(players)
        k = entity_count(players)
        return [Pairing(r, 0, tuple(base[(e - r) % k] for e in range(k))) for r in range(k)]


def table_entries(value) -> list:
    """The tables of ``value``: None or ``()`` (none), one string ``"A,B"``, or a sequence whose
    items are strings ``"A,B"`` or sequences of specs / Strategy objects. Returns one list of
    entries per table (specs or Strategy objects). Raises ValueError (one line)."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    return [strategy_entries(item, "table") for item in value]


def check_tables(value, players) -> tuple[list[Table], list]:
    """Checked tables and the resolved strategies they name (each once, in order of appearance).

    Parameters
    ----------
    value : see :func:`table_entries`
    players : list of int
        The study's (checked) player counts.

    Returns
    -------
    tables : list of Table
    resolved : list of strategies.Strategy

    Raises
    ------
    ValueError
        One line: an unknown strategy, a table of the wrong size for the player counts,
        a table of one strategy, or a table given twice.
    """
    tables, resolved, labels = [], {}, set()
    for entries in table_entries(value):
        shown = ",".join(e if isinstance(e, str) else e.name for e in entries)
        if len(entries) not in (2, 3):
            raise ValueError(f"table {shown!r} names {counted(len(entries), 'strategy')}: a table names 2 (2 players; 4 players: two partnerships; 3 players: one against "
                             "two) or 3 (3 players)")
        strategies = []
        for entry in entries:
            try:
                strategy = resolve(entry)
            except StrategyError as exc:
                raise ValueError(f"table {shown!r}: {exc}") from None
            strategies.append(strategy)
        names = tuple(s.name for s in strategies)
        if len(set(names)) == 1:
            raise ValueError(f"table {shown!r} names one strategy only: that is self-play, "
                             "studied for every --strategies entry")
        if len(names) == 3 and 3 not in players:
            raise ValueError(f"table {shown!r} names 3 strategies, a 3-player table, but the "
                             f"players are {', '.join(map(str, players))}")
        table = Table(names)
        if table.label in labels:
            raise ValueError(f"table {shown!r} is given twice")
        labels.add(table.label)
        for strategy in strategies:
            resolved.setdefault(strategy.name, strategy)
        tables.append(table)
    return tables, list(resolved.values())


def tables_of(settings: dict) -> list[Table]:
    """The tables recorded in a study's settings (none for a self-play-only study)."""
    return [Table(tuple(names)) for names in settings.get("tables", [])]


def entity_names(rotations: list[Pairing], rotation, entity) -> np.ndarray:
    """The strategy name of each row's entity, from its ``rotation`` and ``entity`` columns.

    Parameters
    ----------
    rotations : list of Pairing
        :meth:`Table.rotations` (index = rotation).
    rotation, entity : array_like of int, shape (rows,)

    Returns
    -------
    ndarray of object (str), shape (rows,)
    """
    lookup = np.array([list(p.entity_strategies) for p in rotations], dtype=object)
    return lookup[np.asarray(rotation, dtype=np.int64), np.asarray(entity, dtype=np.int64)]


def strategies_in(rotations: list[Pairing]) -> list[str]:
    """The table's strategies, each once, in the order of rotation 0's entities."""
    return list(dict.fromkeys(rotations[0].entity_strategies))


def per_deal_means(values, deals, strategies) -> pd.DataFrame:
    """Per deal and strategy, the mean of ``values`` over that strategy's rows of that deal:
    the counted-once rule of a mixed table (the module docstring).

    Parameters
    ----------
    values : array_like of float, shape (rows,)
        One value per row (an entity of one rotation's match, a seat, a round); nan rows are
        left out.
    deals : array_like of int, shape (rows,)
        The deal of each row (the match index, shared by the rotations).
    strategies : array_like of str, shape (rows,)
        The strategy the row's entity played (:func:`entity_names`).

    Returns
    -------
    DataFrame of float64, shape (deals, strategies)
        Index: the deals (sorted); one column per strategy, in order of first appearance; nan
        where a deal has no row of that strategy. A column is the strategy's per-deal values:
        :func:`experiments.stats.mean_interval` of it, or ``proportion(column.sum(), deals)``
        for a share, counts each deal once, and :func:`experiments.stats.paired_contrast` of
        two columns is ``A - B`` paired by deal.
    """
    names = np.asarray(strategies, dtype=object)
    frame = pd.DataFrame({"deal": np.asarray(deals), "strategy": names,
                          "value": np.asarray(values, dtype=np.float64)})
    frame = frame[np.isfinite(frame["value"].to_numpy())]
    wide = frame.groupby(["deal", "strategy"], sort=True)["value"].mean().unstack("strategy")
    wide = wide.reindex(columns=list(dict.fromkeys(names)))
    wide.columns.name = None
    return wide.astype(np.float64)


def pair_id(players: int, table: str, a: str, b: str, quantity: str) -> str:
    """The comparison id of ``a - b`` of ``quantity`` in ``table`` (or :data:`SELF_PLAY`) at
    ``players``: ``"2p | exact vs greedy | exact - greedy | won"``. Built from the settings
    alone (no seed), so the runs of one command on different seeds share it."""
    return comparison_id(f"{players}p", table, f"{a} - {b}", quantity)


def table_pairs(settings: dict) -> list[tuple[str, int, str, str]]:
    """Every ``(table, players, a, b)`` a study's mixed tables compare: each table at each
    player count it plays at, each pair of its strategies once (in the table's order)."""
    out = []
    for table in tables_of(settings):
        for players in settings["players"]:
            if not table.plays_at(players):
                continue
            names = strategies_in(table.rotations(players))
            out += [(table.label, players, a, b) for i, a in enumerate(names)
                    for b in names[i + 1:]]
    return out


def self_play_pairs(settings: dict) -> list[tuple[int, str, str]]:
    """Every ``(players, strategy, reference)`` of the self-play comparisons with
    :func:`self_play_reference`: each other self-played strategy at each player count."""
    reference = self_play_reference(settings)
    return [(players, name, reference) for name in settings["strategies"]
            for players in settings["players"] if name != reference]


def table_contrasts(per_deal: dict, quantities, table: str, players: int) -> list[dict]:
    """Paired contrasts ``A - B`` of a table's strategies, the deal as the unit, as comparison
    rows (:func:`comparison_row`, id :func:`pair_id`).

    Parameters
    ----------
    per_deal : dict of str -> DataFrame
        Per quantity (its key), :func:`per_deal_means` of it (deals x strategies).
    quantities : sequence of (str, str)
        ``(key, quantity)``: the key of ``per_deal`` and the plan's quantity name.
    table : str
        The table's label (the ``table`` column).
    players : int

    Returns
    -------
    list of dict
        One row per strategy pair ``(a, b)`` (column order of ``per_deal``; every pair once)
        and quantity, the 95% t interval over deals.
    """
    rows = []
    for column, quantity in quantities:
        wide = per_deal[column]
        strategies = list(wide.columns)
        for i, a in enumerate(strategies):
            for b in strategies[i + 1:]:
                c = paired_contrast(wide[a].to_numpy(), wide[b].to_numpy())
                rows.append(comparison_row(pair_id(players, table, a, b, quantity), table,
                                           players, a, b, quantity, c))
    return rows


def table_comparisons(settings: dict, quantities, primary: str | None = None,
                      only_at: dict | None = None) -> list[Comparison]:
    """The declared comparisons of a study's mixed tables: every pair of every table
    (:func:`table_pairs`) in each of ``quantities`` (plan quantity names; ``only_at[name]``:
    the player counts a quantity is compared at, default all). The ``primary`` quantity of the
    **first** table given is primary (Holm); everything else exploratory."""
    tables = tables_of(settings)
    first = tables[0].label if tables else None
    only_at = only_at or {}
    out = []
    for label, players, a, b in table_pairs(settings):
        for quantity in quantities:
            if players not in only_at.get(quantity, (players,)):
                continue
            family = PRIMARY if (quantity == primary and label == first) else EXPLORATORY
            out.append(Comparison(pair_id(players, label, a, b, quantity), family, quantity))
    return out


COMPARISON_COLUMNS = ["id", "table", "players", "a", "b", "quantity", "difference", "low",
                      "high", "deals", "effect"]
"""The columns of a computed comparison, before its plan adjusts it (:func:`comparison_row`)."""


def comparison_row(id: str, table: str, players: int, a: str, b: str, quantity: str,
                   contrast) -> dict:
    """One computed comparison (:data:`COMPARISON_COLUMNS`): ``a - b`` of the plan's
    ``quantity`` from a :class:`experiments.stats.Contrast` (its marginal 95% interval, its
    units as ``deals`` and Cohen's d as ``effect``)."""
    return {"id": id, "table": table, "players": players, "a": a, "b": b,
            "quantity": quantity, "difference": contrast.difference, "low": contrast.low,
            "high": contrast.high, "deals": contrast.units, "effect": contrast.effect}


def adjusted_comparisons(plan: ComparisonPlan, rows) -> pd.DataFrame:
    """The run's ``comparisons`` frame: the computed comparison rows adjusted as ``plan``
    declares them (:meth:`experiments.comparisons.ComparisonPlan.adjust`, the deals as units),
    each with its ``words`` (:func:`experiments.comparisons.adjusted_words`: a finding, an
    equivalence within the smallest effect of interest, or no detectable difference)."""
    frame = pd.DataFrame(list(rows), columns=COMPARISON_COLUMNS)
    out = plan.adjust(frame, units="deals")
    words = []
    for row in out.itertuples(index=False):
        quantity = plan.quantity(row.quantity)
        words.append(adjusted_words(row, row.a, row.b, quantity.words, quantity.pct))
    out["words"] = words
    return out


def comparison_value(row) -> str:
    """A comparison's sentence without its ``"a - b, words: "`` head: the value of a key number
    whose label already names it (``"+2.5 pp [+1.9, +3.1] (Holm, 99.2%), n = 800: exact
    higher"``)."""
    head = f"{row.a} - {row.b}, "
    text = row.words[len(head):] if row.words.startswith(head) else row.words
    return text.split(": ", 1)[1] if ": " in text else text


def comparison_key_numbers(comparisons: pd.DataFrame, label) -> dict[str, str]:
    """Key numbers of ``comparisons``, one per row: ``label(row)`` -> :func:`comparison_value`."""
    return {label(row): comparison_value(row) for row in comparisons.itertuples(index=False)}


def table_label(row) -> str:
    """The key-number label of a mixed table's comparison row:
    ``"TABLE, Np: A - B, QUANTITY WORDS"`` (the words from the row's sentence)."""
    words = row.words[len(f"{row.a} - {row.b}, "):].split(": ", 1)[0]
    return f"{row.table}, {row.players}p: {row.a} - {row.b}, {words}"


def comparison_lines(comparisons: pd.DataFrame, prefix=None) -> list[str]:
    """One markdown bullet per comparison row, its adjusted sentence after ``prefix(row)``
    (default ``"Np, TABLE"``)."""
    prefix = prefix or (lambda row: f"{row.players}p, {row.table}")
    return [f"- {prefix(row)}: {row.words}" for row in comparisons.itertuples(index=False)]


ADJUSTED_NOTE = ("Each line is A's value minus B's, its interval adjusted for its family "
                 "(primary: Holm; exploratory: Benjamini-Hochberg; the level in brackets), the "
                 "number of deals and the verdict: \"A higher\" / \"A lower\" only where the "
                 "adjusted interval excludes 0; \"equivalent within +-D\" where it lies inside "
                 "the smallest effect of interest D; otherwise \"no detectable difference\".")
"""How to read the adjusted comparison lines of a summary."""


def verdict_finding(comparisons: pd.DataFrame, quantity: str, name: str) -> str:
    """One sentence (a figure caption's finding) from the ``comparisons`` rows of ``quantity``
    (``name``: its short name): how many are findings, equivalences and undecided, by their
    adjusted intervals, and which are findings."""
    sel = comparisons[comparisons["quantity"] == quantity]
    if sel.empty:
        return f"No comparison of {name}"
    found = sel[sel["verdict"] == VERDICTS.finding]
    same = int((sel["verdict"] == VERDICTS.equivalent).sum())
    text = (f"Of {counted(len(sel), 'comparison')} of {name} (adjusted intervals), {len(found)} "
            f"{'is a finding' if len(found) == 1 else 'are findings'}")
    if len(found):
        text += " (" + "; ".join(
            f"{r.players}p, {r.table}: {r.a} {'lower' if r.difference < 0 else 'higher'} "
            f"than {r.b}" for r in found.itertuples(index=False)) + ")"
    return text + (f", {same} equivalent within the smallest effect of interest, "
                   f"{len(sel) - len(found) - same} with no detectable difference")


def comparisons_caption(comparisons: pd.DataFrame, rows: str, settings: dict, quantity: str,
                        name: str) -> str:
    """The summary's caption of a study's ``head_to_head`` figure of a table's comparisons
    (:func:`experiments.studies.study_plots.contrasts_figure`): ``rows`` says what its rows of
    panels show; the finding is :func:`verdict_finding` of ``quantity`` (``name``: its short
    name)."""
    return figure_caption(
        "head_to_head",
        f"Paired contrasts A - B of each mixed table's strategies (rows: {rows}; columns: player "
        "counts)",
        f"{settings['table_matches']:,} deals per table rotation, seed {settings['seed']}",
        "Bars: the adjusted intervals of the comparisons (Holm for the primary, "
        "Benjamini-Hochberg for the exploratory; the deal is the unit, a strategy in several "
        "seats counted once); filled markers: findings", verdict_finding(comparisons, quantity,
                                                                          name))


def table_sections(mixed: pd.DataFrame, row_of, digits: int) -> list[str]:
    """One markdown table per mixed table of a study's head-to-head section, as lines: the
    table's label as a heading, then a row ``row_of(row)`` (a dict, column -> value) per row of
    ``mixed`` (its rows of that table, in order), numbers to ``digits`` decimals."""
    lines = []
    for label, table in mixed.groupby("table", sort=False):
        rows = [row_of(row) for row in table.itertuples(index=False)]
        lines += [f"### {label}", "", md_table(pd.DataFrame(rows), digits), ""]
    return lines


def deal_share(per_deal: pd.Series) -> tuple[float, float, float, int]:
    """``(rate, low, high, deals)`` of a share from one strategy's per-deal values (a column of
    :func:`per_deal_means`, nan where the deal has no such seat): the
    mean over deals, each counted once, with its paired 95% Wilson interval
    (:func:`experiments.stats.paired_proportion`, the deals as the units); ``(nan, 0, 1, 0)``
    without a deal."""
    values = per_deal.dropna().to_numpy(dtype=np.float64)
    if values.size == 0:
        return np.nan, 0.0, 1.0, 0
    r = paired_proportion(values, np.arange(values.size)).iloc[0]
    return float(r["rate"]), float(r["low"]), float(r["high"]), int(values.size)


SELF_PLAY_REFERENCE = "greedy"
"""The self-played strategy a study compares every other self-played strategy with (the seats
study's first-lot edge, the lengths study's rounds per match), when studied; otherwise the first
strategy (:func:`self_play_reference`)."""


def self_play_reference(settings: dict) -> str:
    """The self-played strategy the others are compared with: :data:`SELF_PLAY_REFERENCE` if
    studied, else the first strategy."""
    names = list(settings["strategies"])
    return SELF_PLAY_REFERENCE if SELF_PLAY_REFERENCE in names else names[0]


def self_play_contrasts(by_deal: dict, reference: str, quantity: str) -> list[dict]:
    """Per player count, every self-played strategy's per-deal value minus ``reference``'s, as
    comparison rows (:func:`comparison_row`, table :data:`SELF_PLAY`), paired by deal.

    ``by_deal[(strategy, players)]`` holds a self-play configuration's per-deal values (a Series
    by match index): match ``i`` of every self-play configuration of a player count is the same
    deal and the same first lot, so the pairs are the deals both played.
    """
    rows = []
    for (strategy, players), values in by_deal.items():
        base = by_deal.get((reference, players))
        if strategy == reference or base is None:
            continue
        a, b = values.align(base, join="inner")
        rows.append(comparison_row(pair_id(players, SELF_PLAY, strategy, reference, quantity),
                                   SELF_PLAY, players, strategy, reference, quantity,
                                   paired_contrast(a.to_numpy(), b.to_numpy())))
    return rows


def self_play_rows(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Each frame's self-play rows (``table`` is :data:`SELF_PLAY`), by the same names: what a
    study's self-play figures, key numbers and sections are computed from."""
    return {name: frame[frame["table"] == SELF_PLAY] for name, frame in frames.items()}
