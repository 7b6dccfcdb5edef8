"""The :class:`Parameter` record (kept apart so strategy modules can import it
without importing the registry, which imports them)."""

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
