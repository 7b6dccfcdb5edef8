"""The default run's file order (tests/support/schedule.py) names real files, and no file it lets
run beside the built-in field's warm-up asks for that field's kernels."""

from __future__ import annotations

import ast

from tests.support.paths import REPO
from tests.support.schedule import FIELD_FREE, LONGEST_FIRST, file_rank


def test_every_listed_file_exists_once():
    listed = list(FIELD_FREE) + list(LONGEST_FIRST)
    assert len(set(listed)) == len(listed)
    missing = [path for path in listed if not (REPO / path).is_file()]
    assert missing == []


def asks_for(path, fixture):
    """Whether a function of the file at ``path`` takes ``fixture`` as an argument."""
    tree = ast.parse((REPO / path).read_text())
    return any(argument.arg == fixture for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) for argument in node.args.args)


def test_no_field_free_file_asks_for_the_compiled_field():
    # the compiled_engine fixture runs the built-in field: such a file would compile it a
    # second time while the warm-up compiles it
    assert asks_for("tests/strategies/test_legal.py", "compiled_engine")
    asking = [path for path in FIELD_FREE if asks_for(path, "compiled_engine")]
    assert asking == []


def test_field_free_files_come_first_then_the_longest_then_the_rest():
    unlisted = "tests/not_listed.py"
    ranks = [file_rank(path) for path in
             (FIELD_FREE[-1], FIELD_FREE[0], unlisted, LONGEST_FIRST[1], LONGEST_FIRST[0])]
    assert sorted(ranks) == [file_rank(FIELD_FREE[0]), file_rank(FIELD_FREE[-1]),
                             file_rank(LONGEST_FIRST[0]), file_rank(LONGEST_FIRST[1]),
                             file_rank(unlisted)]
