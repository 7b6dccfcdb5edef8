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
    """

    name: str
    default: float
    description: str
