"""How a count reads in what users see: the number and its noun, singular for one.

One implementation serves every text the project prints or draws (the terminal game, the
pictures' titles, the replay page, the command line's messages), so "1 tile", "2 tiles",
"1 match" and "3 matches" agree everywhere. It imports nothing of the project: any layer may
use it.
"""

from __future__ import annotations

SIBILANT_ENDINGS = ("s", "sh", "ch", "x", "z")
"""Endings whose plural adds "es" (match -> matches, box -> boxes)."""


def plural_of(noun: str) -> str:
    """The plural of ``noun`` (its last word, for a phrase such as ``"finished round"``).

    Regular English plurals only: "es" after a sibilant, "ies" for a consonant and "y",
    else "s". A noun outside these rules is given to :func:`counted` with ``plural``.
    """
    if noun.endswith(SIBILANT_ENDINGS):
        return noun + "es"
    if len(noun) > 1 and noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def counted(count: int, noun: str, plural: str | None = None, spec: str = "") -> str:
    """``count`` and ``noun``, singular for exactly one: ``"1 tile"``, ``"0 tiles"``, ``"2 tiles"``.

    Parameters
    ----------
    count : int
        How many (``-1`` reads singular too: one unit, negative).
    noun : str
        The singular noun or phrase (``"pip"``, ``"finished round"``).
    plural : str, optional
        The plural when it is not regular (default :func:`plural_of` ``noun``).
    spec : str
        A format spec for the number (``","``: ``"1,000 matches"``).

    Returns
    -------
    str
        ``f"{count:{spec}} {noun}"`` or ``f"{count:{spec}} {plural}"``.
    """
    one = abs(count) == 1
    return f"{count:{spec}} {noun if one else (plural or plural_of(noun))}"


__all__ = ["counted", "plural_of"]
