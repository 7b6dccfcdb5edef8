"""Spies against the sealed view, written as a user writes a strategy.

A compiled strategy that is not built in is compiled apart with bounds
checking and handed read-only arrays (``tests/strategies/test_sealed.py`` reads
every word it is handed; these try to reach past it):

* reads past any end of any view array (one past, far past, before the start,
  ``-1`` of the empty hidden arrays, ``params`` past the strategy's own
  count): every run stops with one line naming the spy, its seat and the
  match; the same spy reading the last element plays every match;
* writes to any view array but ``rng`` (directly, through a row, a slice,
  an in-place sort or fill, a helper): refused when the strategy is compiled,
  in one line naming it, its file and line; ``.flat`` and ``np.nditer``,
  which Numba lets write a read-only array and index past its end, are
  refused by name;
* writes to its own ``rng``: allowed, they change its own draws and nothing
  of any other seat;
* ``view.params`` is exactly the strategy's own parameters whatever sits at
  the table (a spy checks its length and value at every decision);
* a Python strategy under ``sealed=True`` looks for the engine in its process
  (call stack, every object ``gc`` tracks, ``sys.modules``): it finds nothing
  and plays greedy's matches; the same spy in the engine's process (not
  sealed) finds the workspace, the run and the seed, and says so.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from numba import literal_unroll

import sim
import strategies
from sim.engine.python_seats import StrategyFailure
from strategies import toolkit as tk

_GREEDY = strategies.resolve("greedy").choose


def assert_same_play(frame, expected):
    """Frames equal in every column but the strategy names."""
    columns = [c for c in frame.columns if not c.startswith("strategy_")]
    pd.testing.assert_frame_equal(frame[columns], expected[columns], check_exact=True)


# ---------------------------------------------------------------------------
# Reads past the view
# ---------------------------------------------------------------------------
ARRAYS = ("entity_of_seat", "scores", "hand_sizes", "lacking", "open_count", "open_nodes", "params",
          "rng", "hidden_hands", "hidden_boneyard", "nodes", "cands", "history")
"""The view's arrays, in the order of :func:`reach`'s ``array`` parameter (the last three 2-D)."""

ONE_PAST, FAR_PAST, BEFORE_START, LAST = 0, 1, 2, 3
"""``reach``'s ``where``: index ``n``, ``n + 1_000_000``, ``-n - 1``; ``n - 1`` (in bounds)."""


@tk.helper
def index_at(n, where):
    """The index ``where`` names on an axis of length ``n`` (:data:`ONE_PAST` ... :data:`LAST`)."""
    if where == ONE_PAST:
        return n
    if where == FAR_PAST:
        return n + 1_000_000
    if where == BEFORE_START:
        return -n - 1
    return n - 1


@tk.helper
def read_element(array, where):
    """Read ``array[index_at(len(array), where)]`` of a 1-D view array: 1 if it is nonzero."""
    n = array.shape[0]
    if where == LAST and n == 0:
        return 0
    # a valid row either way: there are always at least two candidates
    return 1 if array[index_at(n, where)] != 0 else 0


@tk.helper
def read_cell(array, axis, where):
    """Read a 2-D view array at ``index_at`` along ``axis`` (0 on the other): 1 if it is nonzero."""
    rows = array.shape[0]
    if axis == 1 and rows == 0:
        return 0  # a column past the end is read in a row that exists: at a later decision
    n = rows if axis == 0 else array.shape[1]
    if where == LAST and n == 0:
        return 0
    index = index_at(n, where)
    value = array[index, 0] if axis == 0 else array[0, index]
    return 1 if value != 0 else 0


@strategies.strategy(name="reach", parameters={"array": 0.0, "axis": 0.0, "where": 0.0},
                     description="Reads one element of one view array, in or out of bounds.")
def reach(view):
    array = np.int64(view.params[0])
    axis = np.int64(view.params[1])
    where = np.int64(view.params[2])
    # the view's arrays in ARRAYS order: Numba picks a field by a number only by unrolling a tuple
    vectors = (view.entity_of_seat, view.scores, view.hand_sizes, view.lacking, view.open_count,
               view.open_nodes, view.params, view.rng, view.hidden_hands, view.hidden_boneyard)
    grids = (view.nodes, view.cands, view.history)
    position = 0
    found = 0
    for vector in literal_unroll(vectors):
        if position == array:
            found = read_element(vector, where)
        position += 1
    for grid in literal_unroll(grids):
        if position == array:
            found = read_cell(grid, axis, where)
        position += 1
    return found


@strategies.strategy(name="past_hand_sizes", description="hand_sizes[4]: one past its 4 entries.")
def past_hand_sizes(view):
    return 1 if view.hand_sizes[4] != 0 else 0


@strategies.strategy(name="last_hidden_hand", description="hidden_hands[-1] of an empty array.")
def last_hidden_hand(view):
    return 1 if view.hidden_hands[-1] != 0 else 0


@strategies.strategy(name="last_hidden_tile", description="hidden_boneyard[-1] of an empty array.")
def last_hidden_tile(view):
    return 1 if view.hidden_boneyard[-1] != 0 else 0


@strategies.strategy(name="second_param", parameters={"only": 1.0},
                     description="params[1] of a strategy with one parameter.")
def second_param(view):
    return 1 if view.params[1] != 0.0 else 0


@strategies.strategy(name="past_cands", description="cands[n_candidates, 0]: the row after the last.")
def past_cands(view):
    return 1 if view.cands[view.n_candidates, 0] != 0 else 0


@strategies.strategy(name="scribbler", description="Greedy, after overwriting its own stream key and counter.")
def scribbler(view):
    view.rng[0] = view.rng[0] ^ np.uint64(0x9E3779B97F4A7C15)
    view.rng[1] = np.uint64(123456789)
    return _GREEDY(view)


@strategies.strategy(name="rewinder", stochastic=True,
                     description="random, with its stream counter set back to 0 at every decision.")
def rewinder(view):
    view.rng[1] = np.uint64(0)
    return tk.next_below(view.rng, view.n_candidates)


@strategies.strategy(name="own_params", parameters={"expect": 7.5},
                     description="Greedy; an invalid row unless params is exactly [7.5].")
def own_params(view):
    if view.params.shape[0] != 1 or view.params[0] != 7.5:
        return view.n_candidates
    return _GREEDY(view)


FIELD = [reach, past_hand_sizes, last_hidden_hand, last_hidden_tile, second_param, past_cands,
         scribbler, rewinder, own_params, "greedy", "random", "weighted"]
"""Compiled together: one kernel for every run of this module."""


def compile_spies():
    """Compile (or load) the kernel of :data:`FIELD` with a short run; return its frame (also
    called by the default run's warm-up, :func:`tests.support.kernel_warmup.probes_and_helpers`)."""
    return sim.simulate(2, [reach, "greedy"], 2, seed=0, params=[[1, 0, LAST], None], field=FIELD)


@pytest.fixture(scope="module")
def spies():
    """Compile (or load) the module's kernel once; return the field to pass to every run."""
    assert len(compile_spies()) == 2
    return FIELD


def read_cases():
    cases = []
    for array, name in enumerate(ARRAYS):
        axes = (0, 1) if array >= 10 else (0,)
        for axis in axes:
            for where in (ONE_PAST, FAR_PAST, BEFORE_START):
                cases.append(pytest.param(array, axis, where, id=f"{name}-{'row' if axis == 0 else 'column'}-"
                                                                 f"{('one-past', 'far-past', 'before-start')[where]}"))
    return cases


def out_of_bounds(name: str, seat: int, match: int) -> str:
    return (f"strategy {name!r} (seat {seat}) in match {match} indexed its view out of bounds "
            f"(IndexError: index is out of bounds)")


@pytest.mark.parametrize("array,axis,where", read_cases())
def test_a_read_past_the_view_stops_the_run_naming_spy_seat_and_match(spies, array, axis, where):
    seat = (array + where) % 2
    first = 3 * array + where  # a match of its own for each case
    # params opposite weighted: the widest parameter row of the field (13), which a view
    # padded to the run's widest strategy would show
    other = "weighted" if ARRAYS[array] == "params" else "greedy"
    seats = [reach, other] if seat == 0 else [other, reach]
    params = [[array, axis, where], None] if seat == 0 else [None, [array, axis, where]]
    with pytest.raises(StrategyFailure) as caught:
        sim.simulate(2, seats, 2, seed=41, first_match=first, params=params, field=spies)
    assert str(caught.value) == out_of_bounds("reach", seat, first)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_same_spy_reading_in_bounds_plays_every_match(spies, players):
    """The control: reading the last element of every array (when it has one) never fails."""
    for array, name in enumerate(ARRAYS):
        for axis in ((0, 1) if array >= 10 else (0,)):
            seats = [reach, "weighted", "random", "greedy"][:players]
            frame = sim.simulate(players, seats, 30, seed=7 + array, params=[[array, axis, LAST]] + [None] * (players - 1),
                                 field=spies)
            assert len(frame) == 30 and (frame["rounds"] > 0).all(), name


@pytest.mark.parametrize("spy,seat", [(past_hand_sizes, 0), (last_hidden_hand, 1), (last_hidden_tile, 0),
                                      (second_param, 1), (past_cands, 0)],
                         ids=lambda value: getattr(value, "name", str(value)))
def test_literal_reads_past_the_view_stop_the_run(spies, spy, seat):
    seats = [spy, "weighted"] if seat == 0 else ["weighted", spy]
    with pytest.raises(StrategyFailure) as caught:
        sim.simulate(2, seats, 3, seed=5, first_match=17, field=spies)
    assert str(caught.value) == out_of_bounds(spy.name, seat, 17)


# ---------------------------------------------------------------------------
# Writes to the view
# ---------------------------------------------------------------------------
WRITES = {
    "entity_of_seat": "view.entity_of_seat[0] = 1",
    "scores": "view.scores[0] = 305",
    "hand_sizes": "view.hand_sizes[1] = 0",
    "lacking": "view.lacking[1] = 127",
    "nodes": "view.nodes[0, 0] = 0",
    "open_count": "view.open_count[0] = 0",
    "open_nodes": "view.open_nodes[0] = 0",
    "cands": "view.cands[0, 0] = 0",
    "params": "view.params[0] = 1.0",
    "history": "view.history[0, 0] = 0",
    "hidden_hands": "view.hidden_hands[0] = 0",
    "hidden_boneyard": "view.hidden_boneyard[0] = 0",
    "a_row": "row = view.cands[0]\n    row[4] = 100",
    "a_slice": "view.scores[0:2] = view.lacking[0:2]",
    "a_reshaped_copy": "flat = view.cands.reshape(-1)\n    flat[4] = 100",
    "a_transpose": "view.cands.T[4, 0] = 100",
    "sort": "view.hand_sizes.sort()",
    "fill": "view.scores.fill(0)",
    "a_helper": "poke(view.scores)",
}
"""Each write spy's statement (its last line is the one named, or the helper's write)."""

NAMED_AT_DEFINITION = {"sort"}
"""Numba's message for these points into its own code only: the spy's first line is named."""

WRITES_HEADER = '''import numpy as np

import strategies
from strategies import toolkit as tk


@tk.helper
def poke(array):
    array[0] = 305
'''
POKE_LINE = 9


def write_source() -> tuple[str, dict]:
    """The write spies' file and the line each one's error must name."""
    lines = WRITES_HEADER.splitlines()
    named = {}
    for name, statement in WRITES.items():
        lines += ["", "", f'@strategies.strategy(name="write_{name}", parameters={{"p": 1.0}})',
                  f"def write_{name}(view):"]
        first = len(lines) - 1
        for part in statement.split("\n"):
            lines.append("    " + part.strip())
        named[name] = POKE_LINE if name == "a_helper" else first if name in NAMED_AT_DEFINITION else len(lines)
        lines.append("    return 0")
    return "\n".join(lines) + "\n", named


@pytest.fixture(scope="module")
def write_spies(tmp_path_factory):
    path = tmp_path_factory.mktemp("writes") / "spywrites.py"
    source, named = write_source()
    path.write_text(source)
    assert source.splitlines()[POKE_LINE - 1].strip() == "array[0] = 305"
    return path, named


@pytest.mark.parametrize("name", list(WRITES))
def test_a_write_to_the_view_is_refused_when_compiled(write_spies, name):
    path, named = write_spies
    spy = strategies.resolve(f"{path}:write_{name}")
    with pytest.raises(strategies.StrategyError) as caught:
        sim.simulate(2, [spy, "greedy"], 1, seed=0)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"strategy 'write_{name}' (spywrites.py:{named[name]}) does not compile: "
                              "writes to its view"), message
    assert message.endswith("(--debug shows Numba's whole message)")


IN_PLACE = '''import numpy as np
import strategies


@strategies.strategy(name="in_place")
def in_place(view):
    view.scores[:] += 1
    return 0
'''


def test_an_in_place_operator_on_the_view_is_refused_in_one_line(tmp_path):
    """Numba fails on it with an AttributeError of its own (no NumbaError, no message): still one
    line naming the strategy and the likely cause, not a traceback."""
    path = tmp_path / "inplace.py"
    path.write_text(IN_PLACE)
    with pytest.raises(strategies.StrategyError) as caught:
        sim.simulate(2, [f"{path}:in_place", "greedy"], 1, seed=0)
    assert "'in_place'" in str(caught.value) and "\n" not in str(caught.value)
    assert "in-place operator" in str(caught.value) and "read-only" in str(caught.value)


UNCHECKED = '''import numpy as np
import strategies


@strategies.strategy(name="flat_writer")
def flat_writer(view):
    view.scores.flat[1] = 0
    return 0


@strategies.strategy(name="flat_reader")
def flat_reader(view):
    other = view.hidden_hands.flat[1 - view.seat]
    return 1 if other != 0 else 0


@strategies.strategy(name="nditer_writer")
def nditer_writer(view):
    seen = 0
    for word in np.nditer(view.scores):
        if seen == 1:
            word[()] = 0
        seen += 1
    return 0


@strategies.strategy(name="contiguous_writer")
def contiguous_writer(view):
    scores = np.ascontiguousarray(view.scores)
    scores[1 - view.seat % 2] = 0
    return 0


@strategies.strategy(name="fortran_writer")
def fortran_writer(view):
    scores = np.asfortranarray(view.scores)
    scores[1 - view.seat % 2] = 0
    return 0
'''


@pytest.mark.parametrize("name,word", [("flat_writer", ".flat"), ("flat_reader", ".flat"),
                                       ("nditer_writer", ".nditer"),
                                       ("contiguous_writer", ".ascontiguousarray"),
                                       ("fortran_writer", ".asfortranarray")])
def test_flat_and_nditer_are_refused(tmp_path, name, word):
    """Numba's ``.flat`` writes a read-only array and indexes it unchecked (through the empty
    ``hidden_hands``, ``flat[1]`` is another seat's hand), ``np.nditer`` hands out writable
    elements of a read-only array: ``flat_writer`` once zeroed the other entity's score at each
    of its decisions and won every match. ``np.ascontiguousarray`` and ``np.asfortranarray``
    hand an array already in that layout back as itself, typed writable."""
    path = tmp_path / "unchecked.py"
    path.write_text(UNCHECKED)
    line = UNCHECKED.splitlines().index(f'@strategies.strategy(name="{name}")') + 1
    spy = strategies.resolve(f"{path}:{name}")
    with pytest.raises(strategies.StrategyError) as caught:
        sim.simulate(2, [spy, "greedy"], 20, seed=3)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"strategy {name!r}: "), message
    assert f"(unchecked.py:{line})" in message and f"uses {word}, " in message, message


# ---------------------------------------------------------------------------
# Its own stream is its own
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_writing_its_own_stream_changes_no_other_seat(spies, players):
    """``scribbler`` plays greedy's choices after overwriting its key and counter: the other seats
    (``random``, drawing at every decision) play exactly as beside greedy."""
    others = ["random", "random", "weighted"][: players - 1]
    frame = sim.simulate(players, [scribbler] + others, 300, seed=60 + players, field=spies)
    expected = sim.simulate(players, ["greedy"] + others, 300, seed=60 + players, field=spies)
    assert_same_play(frame, expected)


def test_writing_its_own_stream_changes_its_own_draws(spies):
    """The control: the writes are not to a copy thrown away. ``rewinder`` draws as ``random``
    does after setting its counter back to 0: its first decision of each match is random's,
    the later ones are not."""
    rewound = sim.simulate(2, [rewinder, "greedy"], 300, seed=70, field=spies)
    drawn = sim.simulate(2, ["random", "greedy"], 300, seed=70, field=spies)
    columns = [c for c in rewound.columns if not c.startswith("strategy_")]
    assert (rewound["first_opening"] == drawn["first_opening"])[rewound["first_leader"] == 0].all()
    assert not rewound[columns].equals(drawn[columns])


# ---------------------------------------------------------------------------
# params: the strategy's own
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seats", [["weighted"], ["random"], ["greedy"], ["weighted", "random"],
                                   ["weighted", "OWN", "random"]],
                         ids=["vs-weighted", "vs-random", "vs-greedy", "3p", "4p"])
def test_params_holds_the_strategys_own_parameters_whatever_sits_opposite(spies, seats):
    """``own_params`` returns an invalid row (the run would stop) unless ``view.params`` is exactly
    its one parameter, 7.5: beside weighted (13 parameters) as beside random (none)."""
    mine = [own_params] + [own_params if s == "OWN" else s for s in seats]
    theirs = ["greedy"] + ["greedy" if s == "OWN" else s for s in seats]
    players = len(mine)
    frame = sim.simulate(players, mine, 200, seed=80 + players, field=spies)
    assert_same_play(frame, sim.simulate(players, theirs, 200, seed=80 + players, field=spies))


def test_params_check_is_live(spies):
    """The control: another value for its parameter, and the spy refuses to play."""
    with pytest.raises(StrategyFailure) as caught:
        sim.simulate(2, [own_params, "weighted"], 5, seed=80, params=[{"expect": 2.5}, None], field=spies)
    assert "strategy 'own_params' (seat 0) in match 0 returned row" in str(caught.value)
    assert ", not one of its" in str(caught.value)


# ---------------------------------------------------------------------------
# A Python spy: sealed, it finds nothing of the engine
# ---------------------------------------------------------------------------
SPY_SEED = 123456789
SPY_MASK = 0x5A5A5A5A

PYTHON_SPY = '''"""A Python strategy that looks for the engine in its process (written by test_spies.py)."""
import gc
import inspect
import json
import sys
import types

import numpy as np

import strategies

HIDDEN = {hidden}  # the seed xor MASK: the seed itself would be found in this module's globals
MASK = {mask}
LOG = {log!r}
ENGINE_TYPES = {{"Workspace", "RunSpec", "CompiledRun", "EngineSet", "ShardStore"}}
GREEDY = strategies.resolve("greedy").function
_decisions = [0]


def engine_thing(value):
    """What ``value`` is of the engine's, or None."""
    kind = type(value)
    if kind.__name__ in ENGINE_TYPES:
        return "a " + kind.__name__
    if isinstance(value, types.ModuleType) and value.__name__.startswith("sim.engine"):
        return "module " + value.__name__
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        try:
            if (int(value) ^ MASK) == HIDDEN:
                return "the seed"
        except Exception:  # an int subclass of some library that is no number
            pass
    if isinstance(value, np.ndarray) and value.dtype == np.int64 and value.shape == (28,) \\
            and sorted(value.tolist()) == list(range(28)) and value.tolist() != list(range(28)):
        return "a deal"
    return None


def contents(value):
    # Copies: another thread of the process may change a dict or list while it is read.
    try:
        if isinstance(value, dict):
            return list(value.keys()) + list(value.values())
        if isinstance(value, (list, tuple, set, frozenset)):
            return list(value)
        if hasattr(value, "__dict__") and isinstance(getattr(value, "__dict__", None), dict):
            return list(value.__dict__.values())
    except RuntimeError:  # changed size while it was copied
        pass
    return []


def look(value, found):
    try:
        what = engine_thing(value)
        if what is None:
            for item in contents(value):
                what = engine_thing(item)
                if what is not None:
                    break
    except ReferenceError:  # a weakref proxy whose object is gone: nothing to find there
        return
    if what is not None:
        found.add(what)


def in_stack():
    found = set()
    for frame in inspect.stack(0):
        module = frame.frame.f_globals.get("__name__", "")
        if module.startswith("sim.engine"):
            found.add("a frame of " + module)
        for value in list(frame.frame.f_locals.values()):
            look(value, found)
    return found


def in_gc():
    found = set()
    for value in gc.get_objects():
        look(value, found)
    return found


def in_modules():
    return {{"module " + name for name in list(sys.modules) if name.startswith("sim.engine")}}


@strategies.strategy(name="engine_spy", compiled=False,
                     description="Greedy, unless it finds the engine in its process.")
def engine_spy(view):
    first = _decisions[0] == 0
    _decisions[0] += 1
    found = {{"stack": sorted(in_stack())}}
    if first:
        found["gc"] = sorted(in_gc())
        found["modules"] = sorted(in_modules())
    with open(LOG, "a") as log:
        log.write(json.dumps(found) + "\\n")
    if any(found.values()):
        return -1 - sum(1 << bit for bit, part in enumerate(("stack", "gc", "modules")) if found.get(part))
    return GREEDY(view)
'''


@pytest.fixture()
def python_spy(tmp_path):
    log = tmp_path / "found.jsonl"
    path = tmp_path / "engine_spy.py"
    path.write_text(PYTHON_SPY.format(hidden=SPY_SEED ^ SPY_MASK, mask=SPY_MASK, log=str(log)))
    assert str(SPY_SEED) not in path.read_text()
    return f"{path}:engine_spy", log


def read_log(log) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("players", [2, 4])
def test_a_sealed_python_spy_finds_nothing_of_the_engine(python_spy, players):
    spy, log = python_spy
    seats = [spy] + ["greedy"] * (players - 1)
    frame = sim.simulate(players, seats, 25, seed=SPY_SEED, sealed=True)
    assert_same_play(frame, sim.simulate(players, ["greedy"] * players, 25, seed=SPY_SEED))
    looked = read_log(log)
    assert len(looked) > 25  # it ran, in its own process, at every decision
    assert looked[0].keys() == {"stack", "gc", "modules"}
    assert not [entry for entry in looked if any(entry.values())], looked[:3]


def test_the_python_spy_in_the_engines_process_finds_it(python_spy):
    """The control: not sealed, the same spy sees the engine on its call stack, in ``gc`` and in
    ``sys.modules``, the run's seed among them, and returns row -8 (all three)."""
    spy, log = python_spy
    with pytest.raises(StrategyFailure) as caught:
        sim.simulate(2, [spy, "greedy"], 5, seed=SPY_SEED)
    assert "strategy 'engine_spy' (seat 0) in match 0 returned row -8," in str(caught.value)
    found = read_log(log)[0]
    assert "a RunSpec" in found["stack"] and "a CompiledRun" in found["stack"]
    assert "the seed" in found["gc"] and "a Workspace" in found["gc"]
    assert any(name.startswith("module sim.engine") for name in found["modules"])
