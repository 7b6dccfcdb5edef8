"""No input of any shape may make ``verify`` raise or print a traceback.

Two levels:

- :func:`sim.verify.verify_record` on decoded values: valid records mutated by
  hypothesis (a random nested value replaced by random JSON-ish values, keys and
  items deleted, inserted or duplicated), wrong types at every position, deep
  nesting, huge numbers. It must always return a list of at most one line.
- ``five-up verify FILE...`` as a subprocess on files of every shape (truncated
  JSON, binary junk, non-UTF-8 bytes, blank lines, empty, missing, a directory):
  exit status 0/1/2, one output line per invalid record naming its line number,
  the summary line, and never a traceback.

The default run is kept short; ``-m slow`` runs the same properties much longer.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.records import FORMAT
from sim.verify import verify_paths, verify_record
from tests.support.paths import REPO

SEED = 7
STRATEGIES = {2: ["random", "greedy"], 3: ["greedy", "random", "random"],
              4: ["random", "greedy", "greedy", "random"]}
SUMMARY = re.compile(r"^(\d+) records?: (\d+) valid, (\d+) invalid$")


@functools.cache
def _record_text(players: int, match: int, max_rounds: int) -> str:
    from sim.reference import play_match

    record = play_match(players, STRATEGIES[players], seed=SEED, match=match,
                        max_rounds=max_rounds)
    return json.dumps(record)


def record(players: int = 2, match: int = 0, max_rounds: int = 1000) -> dict:
    """A fresh copy of a valid seeded reference record."""
    return json.loads(_record_text(players, match, max_rounds))


BASES = [(2, 0, 1000), (3, 1, 3), (4, 2, 1000), (2, 5, 1)]
"""Base records for mutation: full matches and short (unfinished) ones."""


def assert_well_formed(result) -> None:
    """What verify_record must always return: a list of at most one problem line."""
    assert isinstance(result, list)
    assert len(result) <= 1
    for line in result:
        assert isinstance(line, str) and line
        assert "\n" not in line and "\r" not in line
        assert len(line) < 400


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True)


# ---------------------------------------------------------------------------
# JSON-ish values and mutations
# ---------------------------------------------------------------------------

WORDS = [FORMAT, "play", "draw", "pass", "line", "arm", "placement", "domino", "blocked",
         "target", "", "null", "0", "\u00e9", "\ud83c\udfb2", "\x00", "a\nb"]
KEYS = ["format", "players", "entities", "strategies", "seed", "match", "rounds", "winner",
        "scores", "leader", "hands", "boneyard", "actions", "events", "end", "seat", "type",
        "tile", "parent", "side", "points", "entity", "kind", "action", "raw", "accepted",
        "placement", "credit", "debit", "max_rounds"]
SPECIAL_INTS = [0, 1, 2, 3, 4, 5, 6, 7, -1, -5, 27, 28, 305, 310, -305, 1000, 2**31, 2**63,
                10**30, -10**30]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-10, max_value=40),
    st.sampled_from(SPECIAL_INTS),
    st.integers(),
    st.floats(),
    st.sampled_from([0.0, -0.0, 5.0, 305.0, 1e308, math.inf, -math.inf, math.nan]),
    st.text(max_size=8),
    st.sampled_from(WORDS),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), children,
                        max_size=5),
    ),
    max_leaves=12,
)


def _pick_container(data, root):
    """A random (container, key) to mutate: half the time uniform over every position of
    the record (mostly deep: actions, tiles, events), else a walk from the top that
    stops early often (match and round keys)."""
    if data.draw(st.booleans(), label="uniform"):
        paths = list(_paths(root))
        if paths:
            path, key = data.draw(st.sampled_from(paths), label="position")
            return _at(root, path), key
    parent, key, node = None, None, root
    while isinstance(node, (dict, list)) and node:
        # Go deeper most of the time: the interesting values sit 3 to 6 levels down.
        if parent is not None and data.draw(st.integers(0, 2), label="stop") == 0:
            break
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = data.draw(st.sampled_from(keys), label="key")
        parent, node = node, node[key]
    return parent, key


def mutate(data, root) -> None:
    """Apply one random structural or value mutation to ``root`` in place."""
    parent, key = _pick_container(data, root)
    if parent is None:
        return
    op = data.draw(st.sampled_from(["replace", "replace", "replace", "delete", "insert",
                                    "duplicate", "swap"]), label="op")
    if op == "replace":
        parent[key] = data.draw(json_values, label="value")
    elif op == "delete":
        del parent[key]
    elif isinstance(parent, list):
        if op == "insert":
            parent.insert(key, data.draw(json_values, label="value"))
        elif op == "duplicate":
            parent.insert(key, copy.deepcopy(parent[key]))
        else:
            other = data.draw(st.integers(0, len(parent) - 1), label="other")
            parent[key], parent[other] = parent[other], parent[key]
    else:
        new_key = data.draw(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)),
                            label="new key")
        parent[new_key] = (copy.deepcopy(parent[key]) if op == "duplicate"
                           else data.draw(json_values, label="value"))


def mutated_records():
    @st.composite
    def build(draw):
        base = draw(st.sampled_from(BASES), label="base")
        obj = record(*base)
        data = _DrawAdapter(draw)
        for _ in range(draw(st.integers(1, 3), label="mutations")):
            mutate(data, obj)
        return base, obj
    return build()


class _DrawAdapter:
    """Gives ``mutate`` the ``data.draw`` interface inside a composite strategy."""

    def __init__(self, draw):
        self._draw = draw

    def draw(self, strategy, label=None):
        return self._draw(strategy, label=label)


FAST = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW = settings(max_examples=5000, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check_mutated(base, obj) -> None:
    result = verify_record(obj)
    assert_well_formed(result)
    if canonical(obj) == canonical(record(*base)):
        assert result == [], "an unchanged record must stay valid"


# ---------------------------------------------------------------------------
# verify_record: hypothesis mutations
# ---------------------------------------------------------------------------


@FAST
@given(mutated_records())
def test_mutated_record_never_raises(case):
    _check_mutated(*case)


@pytest.mark.slow
@SLOW
@given(mutated_records())
def test_mutated_record_never_raises_long(case):
    _check_mutated(*case)


@FAST
@given(json_values)
def test_arbitrary_json_value_never_raises(value):
    assert_well_formed(verify_record(value))
    assert verify_record(value) != []


@FAST
@given(st.dictionaries(st.sampled_from(KEYS), json_values, max_size=12))
def test_arbitrary_record_like_object_never_raises(value):
    result = verify_record(value)
    assert_well_formed(result)
    assert result != []


# ---------------------------------------------------------------------------
# verify_record: a deterministic sweep of wrong values at every position
# ---------------------------------------------------------------------------

NASTY = [None, True, False, 0, -1, 7, 10**30, -10**30, 10**5000, 2.5, math.nan, math.inf,
         "", "x", "play", [], [0], [7, 7], [[]], {}, {"seat": 0}]


def _paths(value, prefix=()):
    """Every (container path, key) in ``value``, depth first."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield prefix, key
        yield from _paths(child, prefix + (key,))


def _at(root, path):
    for key in path:
        root = root[key]
    return root


@functools.cache
def _sweep_paths():
    base = record(2, 3, max_rounds=1)  # one round: every key of every kind of object
    return base, list(_paths(base))


def test_short_base_has_every_kind_of_object():
    base, _ = _sweep_paths()
    assert verify_record(base) == []
    kinds = {a["type"] for a in base["rounds"][0]["actions"]}
    assert {"play", "draw"} <= kinds
    assert base["rounds"][0]["events"]


def _id(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**40:
        return f"int:{'-' if value < 0 else ''}{value.bit_length()}bits"  # repr may refuse
    return type(value).__name__ + ":" + repr(value)[:12]


@pytest.mark.parametrize("nasty", NASTY, ids=_id)
def test_wrong_value_at_every_position(nasty):
    base, paths = _sweep_paths()
    original = canonical(base)
    for path, key in paths:
        obj = json.loads(original)
        _at(obj, path)[key] = copy.deepcopy(nasty)
        result = verify_record(obj)
        assert_well_formed(result)


def test_missing_key_or_item_at_every_position():
    base, paths = _sweep_paths()
    original = canonical(base)
    for path, key in paths:
        obj = json.loads(original)
        del _at(obj, path)[key]
        result = verify_record(obj)
        assert_well_formed(result)
        # Everything a valid record holds is needed (even max_rounds: without it the
        # one-round record would stop below the default limit): dropping it is a problem.
        assert result != [], (path, key)


@pytest.mark.parametrize("value", [
    None, True, 0, 10**30, 10**5000, -1, 1.5, math.nan, "", FORMAT, b"\xff\x00", [], [{}],
    {}, {"format": FORMAT}, [None] * 1000,
], ids=_id)
def test_top_level_not_a_record(value):
    result = verify_record(value)
    assert_well_formed(result)
    assert result != []


def _deep_list(depth: int):
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _deep_dict(depth: int):
    value: dict = {}
    for _ in range(depth):
        value = {"rounds": value}
    return value


@pytest.mark.parametrize("where", [
    (), ("rounds",), ("rounds", 0), ("rounds", 0, "hands"), ("rounds", 0, "hands", 0, 0),
    ("rounds", 0, "actions", 0), ("rounds", 0, "actions", 0, "tile"),
    ("rounds", 0, "events"), ("rounds", 0, "events", 0), ("rounds", 0, "scores"),
    ("scores",), ("entities",), ("winner",), ("strategies",),
])
@pytest.mark.parametrize("shape", ["list", "dict"])
def test_deeply_nested_values(where, shape):
    deep = _deep_list(50_000) if shape == "list" else _deep_dict(50_000)
    if where:
        obj = record(3, 0, max_rounds=2)
        parent = _at(obj, where[:-1])
        parent[where[-1]] = deep
    else:
        obj = deep
    result = verify_record(obj)
    assert_well_formed(result)
    assert result != []


@pytest.mark.parametrize("huge", [10**30, -10**30, 2**63, 10**4000, 10**5000, -10**5000], ids=_id)
@pytest.mark.parametrize("where", [
    ("players",), ("seed",), ("max_rounds",), ("winner",), ("scores", 0), ("entities", 1),
    ("rounds", 0, "leader"), ("rounds", 0, "hands", 0, 0, 0),
    ("rounds", 0, "actions", 0, "seat"), ("rounds", 0, "actions", 0, "points"),
    ("rounds", 0, "actions", 1, "parent"), ("rounds", 0, "events", 0, "raw"),
    ("rounds", 0, "events", 0, "action"), ("rounds", 0, "scores", 1),
])
def test_huge_numbers(huge, where):
    obj = record(2, 0)
    _at(obj, where[:-1])[where[-1]] = huge
    result = verify_record(obj)
    assert_well_formed(result)
    if where not in (("seed",), ("max_rounds",)):  # informational / a higher limit
        assert result != []


@pytest.mark.parametrize("tile", [[0, 7], [-1, 0], [7, 7], [0], [0, 1, 2], [], [0.0, 1],
                                  [True, 1], ["0", "1"], [None, None], "0-1", 1, {"a": 0}])
@pytest.mark.parametrize("where", ["hand", "boneyard", "play", "draw"])
def test_out_of_range_or_malformed_tiles(tile, where):
    obj = record(2, 0)
    rnd = obj["rounds"][0]
    if where == "hand":
        rnd["hands"][1][2] = tile
    elif where == "boneyard":
        rnd["boneyard"][0] = tile
    else:
        index = next(i for i, a in enumerate(rnd["actions"]) if a["type"] == where)
        rnd["actions"][index]["tile"] = tile
    result = verify_record(obj)
    assert_well_formed(result)
    assert result and result[0].startswith("round 1")


# ---------------------------------------------------------------------------
# verify_paths in process: mutated records and truncated lines through a file
# ---------------------------------------------------------------------------


def _verify_text(tmp_dir: Path, content: bytes) -> tuple[int, list[str], str]:
    path = tmp_dir / "records.jsonl"
    path.write_bytes(content)
    out, err = io.StringIO(), io.StringIO()
    status = verify_paths([str(path)], out, err)
    return status, out.getvalue().splitlines(), err.getvalue()


def _dump(obj) -> bytes:
    return json.dumps(obj).encode("utf-8", "surrogatepass")


def _check_report(path: str, status: int, lines: list[str], n_records: int,
                  invalid_lines: set[int] | None, record_lines: set[int]) -> None:
    """Output shape: one ``path:N: problem`` line per invalid record, then the summary."""
    assert status in (0, 1)
    *problems, summary = lines
    match = SUMMARY.match(summary)
    assert match, summary
    total, valid, invalid = map(int, match.groups())
    assert total == n_records and valid + invalid == total
    assert len(problems) == invalid
    seen = []
    for line in problems:
        assert line.startswith(path + ":"), line
        number = int(line[len(path) + 1:].split(":", 1)[0])
        assert number in record_lines
        seen.append(number)
    assert seen == sorted(set(seen))
    if invalid_lines is not None:
        assert set(seen) == invalid_lines
    assert status == (1 if invalid else 0)


@FAST
@given(st.lists(mutated_records(), min_size=1, max_size=4))
def test_mutated_records_through_a_file(tmp_path_factory, cases):
    tmp = tmp_path_factory.mktemp("mut")
    content = b"".join(_dump(obj) + b"\n" for _, obj in cases)
    status, lines, err = _verify_text(tmp, content)
    assert err == ""
    _check_report(str(tmp / "records.jsonl"), status, lines, len(cases), None,
                  set(range(1, len(cases) + 1)))


@FAST
@given(st.sampled_from(BASES), st.floats(0, 1, exclude_max=True))
def test_truncated_json_line(tmp_path_factory, base, fraction):
    text = _record_text(*base).encode()
    cut = int(len(text) * fraction)
    tmp = tmp_path_factory.mktemp("cut")
    status, lines, err = _verify_text(tmp, text + b"\n" + text[:cut] + b"\n" + text + b"\n")
    path = str(tmp / "records.jsonl")
    assert err == ""
    if text[:cut].strip():
        assert status == 1
        assert lines[0].startswith(f"{path}:2: line is not JSON")
        assert lines[-1] == "3 records: 2 valid, 1 invalid"
    else:
        assert status == 0 and lines == ["2 records: 2 valid, 0 invalid"]


# ---------------------------------------------------------------------------
# five-up verify as a subprocess
# ---------------------------------------------------------------------------


def run_verify(*paths, env=None) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, "-m", "cli", "verify", *map(str, paths)],
        check=False, capture_output=True, cwd=REPO, timeout=120,
        env=None if env is None else {**os.environ, **env},
    )
    stdout = result.stdout.decode("utf-8", "replace")
    stderr = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stdout and "Traceback" not in stderr, stderr
    result.out_lines = stdout.splitlines()
    result.err_lines = stderr.splitlines()
    return result


def test_cli_all_valid(tmp_path):
    path = tmp_path / "ok.jsonl"
    path.write_text("".join(_record_text(*b) + "\n" for b in BASES))
    result = run_verify(path)
    assert result.returncode == 0
    assert result.out_lines == [f"{len(BASES)} records: {len(BASES)} valid, 0 invalid"]
    assert result.err_lines == []


def test_cli_crlf_and_no_final_newline(tmp_path):
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"\r\n".join(_record_text(*b).encode() for b in BASES))
    result = run_verify(path)
    assert result.returncode == 0
    assert result.out_lines == [f"{len(BASES)} records: {len(BASES)} valid, 0 invalid"]


def _corrupted_points() -> str:
    obj = record(2, 0)
    action = next(a for a in obj["rounds"][1]["actions"] if a["type"] == "play")
    action["points"] += 5
    return json.dumps(obj)


def test_cli_mixed_file_reports_each_invalid_line(tmp_path):
    valid = _record_text(2, 0, 1000).encode()
    deep = b"[" * 100_000 + b"]" * 100_000
    huge = json.dumps(record(2, 0)).replace('"seed": 7', '"seed": ' + "9" * 5000).encode()
    assert huge != valid
    lines = [
        (valid, True),                                       # 1
        (b"", None),                                         # 2 blank: not a record
        (valid[: len(valid) // 2], False),                   # 3 truncated JSON
        (_corrupted_points().encode(), False),               # 4 wrong points
        (b"   \t ", None),                                   # 5 blank
        (b"[]", False),                                      # 6 not an object
        (b'"exact61-record/1"', False),                      # 7 a string
        (b"\xff\xfe\x00 not utf-8 \xc3\x28", False),         # 8 not UTF-8
        (bytes(range(1, 10)) + bytes(range(14, 256)), False),  # 9 binary junk, no newline
        (deep, False),                                       # 10 deeply nested
        (huge, False),                                       # 11 a 5000-digit number
        (b'{"format": "exact61-record/1", "x": NaN}', False),  # 12 NaN is not JSON
        (b'{"format": "exact61-record/1"}', False),          # 13 missing keys
        (b"null", False),                                    # 14
        (b"1e999999", False),                                # 15 inf
        (b'{"rounds": [{"actions": [{"type": []}]}]}', False),  # 16 unhashable type
        (valid, True),                                       # 17
        (b"\xef\xbb\xbf" + valid, False),                    # 18 a BOM is not JSON
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(content for content, _ in lines) + b"\n")
    result = run_verify(path)
    records = [i for i, (_, ok) in enumerate(lines, 1) if ok is not None]
    invalid = [i for i, (_, ok) in enumerate(lines, 1) if ok is False]
    assert result.returncode == 1
    assert result.err_lines == []
    *problems, summary = result.out_lines
    assert summary == f"{len(records)} records: {len(records) - len(invalid)} valid, {len(invalid)} invalid"
    assert [int(p.split(":")[1]) for p in problems] == invalid
    for p in problems:
        assert p.startswith(f"{path}:")
    by_line = {int(p.split(":")[1]): p.split(":", 2)[2].strip() for p in problems}
    assert by_line[3].startswith("line is not JSON")
    assert by_line[4].startswith("round 2, action ") and "expected points" in by_line[4]
    assert by_line[8] == "line is not UTF-8 text"
    assert by_line[10].startswith("line is not JSON")
    assert by_line[11].startswith("line is not JSON")
    assert by_line[12].startswith("line is not JSON")
    assert "missing key" in by_line[13]


@pytest.mark.parametrize("content", [b"", b"\n", b"\n\n  \n\t\n", b"\r\n\r\n"],
                         ids=["empty", "newline", "blank-lines", "crlf-blank"])
def test_cli_file_without_records(tmp_path, content):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    result = run_verify(path)
    # An empty file proves nothing: it is reported and fails (status 1), never a crash.
    assert result.returncode == 1
    assert result.out_lines == [f"{path}: no records in the file", "0 records: 0 valid, 0 invalid"]
    assert result.err_lines == []


def test_cli_binary_junk(tmp_path):
    rng = random.Random(61)
    content = bytes(rng.randrange(256) for _ in range(20_000))
    path = tmp_path / "junk.bin"
    path.write_bytes(content)
    non_blank = [n for n, raw in enumerate(content.split(b"\n"), 1) if raw.strip()]
    result = run_verify(path)
    assert result.returncode == 1
    assert result.err_lines == []
    *problems, summary = result.out_lines
    assert summary == f"{len(non_blank)} records: 0 valid, {len(non_blank)} invalid"
    assert [int(p[len(str(path)) + 1:].split(":")[0]) for p in problems] == non_blank


def test_cli_junk_after_valid_records(tmp_path):
    path = tmp_path / "tail.jsonl"
    valid = _record_text(3, 1, 3)
    path.write_bytes((valid + "\n" + valid + "\n").encode() + b"\x00\x01\x02garbage")
    result = run_verify(path)
    assert result.returncode == 1
    assert result.out_lines[0].startswith(f"{path}:3: line is not JSON")
    assert result.out_lines[-1] == "3 records: 2 valid, 1 invalid"


def test_cli_missing_file(tmp_path):
    path = tmp_path / "does-not-exist.jsonl"
    result = run_verify(path)
    assert result.returncode == 2
    assert len(result.err_lines) == 1
    assert result.err_lines[0].startswith("five-up: error: ") and str(path) in result.err_lines[0]


def test_cli_directory(tmp_path):
    result = run_verify(tmp_path)
    assert result.returncode == 2
    assert len(result.err_lines) == 1
    assert result.err_lines[0].startswith("five-up: error: ") and str(tmp_path) in result.err_lines[0]


def test_cli_unreadable_file_wins_over_invalid(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(_record_text(2, 0, 1000) + "\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(_corrupted_points() + "\n")
    result = run_verify(good, tmp_path / "missing.jsonl", bad)
    assert result.returncode == 2
    assert len(result.err_lines) == 1 and "missing.jsonl" in result.err_lines[0]
    assert result.out_lines[0].startswith(f"{bad}:1: round 2, action ")
    assert result.out_lines[-1] == "2 records: 1 valid, 1 invalid"


def test_cli_several_files_line_numbers_per_file(tmp_path):
    first = tmp_path / "a.jsonl"
    first.write_text(_record_text(2, 0, 1000) + "\n" + _corrupted_points() + "\n")
    second = tmp_path / "b.jsonl"
    second.write_text("\n\n" + _corrupted_points() + "\n" + _record_text(4, 2, 1000) + "\n")
    result = run_verify(first, second)
    assert result.returncode == 1
    assert [line.split(": ")[0] for line in result.out_lines[:-1]] == [f"{first}:2", f"{second}:3"]
    assert result.out_lines[-1] == "4 records: 2 valid, 2 invalid"


def test_cli_no_files_is_a_usage_error():
    result = run_verify()
    assert result.returncode == 2
    assert len(result.err_lines) == 1 and result.err_lines[0].startswith("five-up: error: ")


def test_cli_non_ascii_in_messages_with_an_ascii_terminal(tmp_path):
    obj = record(2, 0)
    obj["rounds"][0]["actions"][0]["\u00e9\ud83c\udfb2"] = 1
    obj2 = record(2, 0)
    obj2["rounds"][0]["end"] = "d\u00f6mino\u2603"
    path = tmp_path / "unicode.jsonl"
    path.write_bytes(_dump(obj) + b"\n" + _dump(obj2) + b"\n")
    for env in (None, {"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1"}):
        result = run_verify(path, env=env)
        assert result.returncode == 1
        assert result.out_lines[-1] == "2 records: 0 valid, 2 invalid"
        assert result.out_lines[0].startswith(f"{path}:1: round 1, action 0: ")
        assert result.out_lines[1].startswith(f"{path}:2: round 1: expected end")


def test_cli_undecodable_file_names(tmp_path):
    name = os.fsencode(tmp_path) + b"/\xff\xfe-records.jsonl"
    with open(name, "wb") as handle:
        handle.write(_corrupted_points().encode() + b"\n")
    missing = os.fsencode(tmp_path) + b"/\xff-missing.jsonl"
    result = subprocess.run([sys.executable, "-m", "cli", "verify", name, missing],
                            check=False, capture_output=True, cwd=REPO, timeout=120)
    assert b"Traceback" not in result.stdout + result.stderr, result.stderr
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    out = result.stdout.splitlines()
    assert len(out) == 2 and b":1: round 2, action " in out[0]
    assert out[1] == b"1 record: 0 valid, 1 invalid"


def _corpus(n: int, seed: int) -> list[bytes]:
    """Deterministic random mutations of the bases, as JSON lines (some not JSON at all)."""
    rng = random.Random(seed)
    lines = []
    nasty = [None, True, -1, 7, 10**30, 2.5, "x", [], {}, [[0, 7]], {"type": "play"}]
    for _ in range(n):
        obj = record(*rng.choice(BASES))
        for _ in range(rng.randint(1, 3)):
            paths = list(_paths(obj))
            path, key = rng.choice(paths)
            parent = _at(obj, path)
            if rng.random() < 0.25:
                del parent[key]
            else:
                parent[key] = copy.deepcopy(rng.choice(nasty))
        text = _dump(obj)
        if rng.random() < 0.1:
            text = text[: rng.randrange(len(text))]
        lines.append(text)
    return lines


def check_mutated_corpus(tmp_path, n: int, seed: int, in_process: bool) -> None:
    """``five-up verify`` on a corpus of ``n`` mutated records: a report line per invalid
    record and the summary; with ``in_process``, the verdicts agree with
    :func:`verify_record`'s, line by line."""
    lines = _corpus(n, seed=seed)
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    result = run_verify(path)
    assert result.err_lines == []
    record_lines = {i for i, text in enumerate(lines, 1) if text.strip()}
    _check_report(str(path), result.returncode, result.out_lines, len(record_lines), None,
                  record_lines)
    if not in_process:
        return
    expected_invalid = set()
    for i, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            expected_invalid.add(i)
            continue
        if verify_record(obj):
            expected_invalid.add(i)
    reported = {int(p[len(str(path)) + 1:].split(":")[0]) for p in result.out_lines[:-1]}
    assert reported == expected_invalid


def test_cli_mutated_corpus(tmp_path):
    check_mutated_corpus(tmp_path, 40, seed=2024, in_process=True)


@pytest.mark.slow
def test_cli_mutated_corpus_long(tmp_path):
    check_mutated_corpus(tmp_path, 2000, seed=99, in_process=False)
