"""The bad-input test of a command that plays duplicate deals into ``--out`` (no tests here)."""

from __future__ import annotations

import pytest

from tests.support.plugins import call_cli, one_line

NO_OUT = None
"""The ``args`` of the case without ``--out``: the command with its fixed arguments alone."""

BAD_MATCH_OPTIONS = [
    (["--players", "3"], "players"),
    (["--players", "two"], "players"),
    (["--threads", "0"], "threads"),
    (["--bogus"], "bogus"),
    (NO_OUT, "--out"),
]
"""``(args, word)``: bad input ``five-up strength`` and ``five-up tune`` refuse alike (a player
count other than 2 or 4, one that is not a number, no thread, an unknown option, no ``--out``),
with the word their one line names."""


def bad_input_test(command: str, *fixed: str, cases: list[tuple[list[str], str]]):
    """A test of ``five-up COMMAND *fixed ARGS --out DIR --quiet`` for each ``(ARGS, WORD)`` of
    :data:`BAD_MATCH_OPTIONS` and ``cases``: status 2, one stderr line naming WORD
    (:func:`tests.support.plugins.one_line`), and no DIR written. ARGS :data:`NO_OUT` runs
    ``five-up COMMAND *fixed``.

    Assign it to a ``test_`` name in the command's test module, where pytest collects it.
    """
    @pytest.mark.parametrize("args,word", [*BAD_MATCH_OPTIONS, *cases])
    def test(capsys, tmp_path, args, word):
        out = tmp_path / "out"
        argv = fixed if args is NO_OUT else [*fixed, *args, "--out", str(out), "--quiet"]
        one_line(call_cli(command, *argv), 2, word)
        assert not out.exists()
    return test
