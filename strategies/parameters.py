"""The :class:`Parameter` record: one tunable number of a strategy."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Parameter:
    """One tunable number of a strategy.

    Attributes
    ----------
    name : str
    default : float
    description : str
    words : tuple of (str, float)
        Names a strategy spec may write instead of a number for this parameter, with the
        number each stands for (``evaluator=wintable`` for ``evaluator=1``); none by default.
    """

    name: str
    default: float
    description: str
    words: tuple = ()

    def value_of(self, word: str) -> float | None:
        """The number ``word`` names for this parameter, or None if it names none."""
        return dict(self.words).get(word)
