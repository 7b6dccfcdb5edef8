"""The strategy registry: name -> integer id, implementation, parameters, metadata.

The engine dispatches on the integer id inside compiled code
(:func:`strategies._dispatch.choose_placement`), so any mix of registered
strategies in one batch runs on the same compiled kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from strategies import (
    _linear,
    _lookahead,
    defensive,
    example_user,
    exact,
    greedy,
    heavy,
    random_placement,
    rollout,
    weighted,
)
from strategies._params import Parameter


@dataclass(frozen=True)
class StrategyInfo:
    """A registered strategy.

    Attributes
    ----------
    name : str
        The name users type (``--strategies greedy,random``).
    strategy_id : int
        Integer the compiled dispatcher switches on.
    module : module
        The module defining it.
    choose : numba dispatcher
        ``choose(view) -> int`` (see :class:`sim._kernels.PlayerView`).
    description : str
        One paragraph for ``five-up strategies`` and the docs.
    stochastic : bool
        Draws from the decision stream.
    uses_inference : bool
        Reads what opponents are known to lack or could hold.
    lookahead : int
        Plies (or rollouts) beyond the current placement; 0 for none.
    parameters : tuple of Parameter
        In the order of ``view.params``.
    example : bool
        An example (``EXAMPLE = True`` in its module), left out of
        :func:`builtin_names`.
    """

    name: str
    strategy_id: int
    module: ModuleType
    choose: object
    description: str
    stochastic: bool
    uses_inference: bool
    lookahead: int
    parameters: tuple = field(default=())
    example: bool = False

    def default_params(self) -> np.ndarray:
        """float64[len(parameters)] of the parameter defaults."""
        return np.array([p.default for p in self.parameters], dtype=np.float64)


BUILTIN_MODULES: tuple[ModuleType, ...] = (
    random_placement,
    greedy,
    exact,
    heavy,
    defensive,
    weighted,
    rollout,
    example_user,
)
"""Every strategy module; ``strategies/_dispatch.py`` has one branch per entry."""

SUPPORT_MODULES: tuple[ModuleType, ...] = (_lookahead, _linear)
"""Compiled helper modules the strategies link into the engine kernel: the
engine's cache-freshness digest covers them as well as the strategy modules."""


def _info(module: ModuleType) -> StrategyInfo:
    return StrategyInfo(
        name=module.NAME,
        strategy_id=module.STRATEGY_ID,
        module=module,
        choose=module.choose,
        description=module.DESCRIPTION,
        stochastic=bool(module.STOCHASTIC),
        uses_inference=bool(module.USES_INFERENCE),
        lookahead=int(module.LOOKAHEAD),
        parameters=tuple(module.PARAMETERS),
        example=bool(getattr(module, "EXAMPLE", False)),
    )


STRATEGIES: dict[str, StrategyInfo] = {}
for _module in BUILTIN_MODULES:
    _entry = _info(_module)
    if _entry.name in STRATEGIES:
        raise RuntimeError(f"strategy name {_entry.name!r} registered twice")
    if any(e.strategy_id == _entry.strategy_id for e in STRATEGIES.values()):
        raise RuntimeError(f"strategy id {_entry.strategy_id} registered twice")
    STRATEGIES[_entry.name] = _entry
del _module, _entry


def names() -> list[str]:
    """Registered strategy names, in id order."""
    return [e.name for e in sorted(STRATEGIES.values(), key=lambda e: e.strategy_id)]


def builtin_names() -> list[str]:
    """Registered strategy names without the examples, in id order (the default tournament field)."""
    return [name for name in names() if not STRATEGIES[name].example]


def get(name: str) -> StrategyInfo:
    """The entry for ``name``.

    Raises
    ------
    ValueError
        Unknown name; the message lists the known ones.
    """
    try:
        return STRATEGIES[name]
    except KeyError:
        known = ", ".join(names())
        raise ValueError(f"unknown strategy {name!r} (known: {known})") from None


def strategy_id(name: str) -> int:
    """Integer id of ``name`` (raises ValueError listing the known names)."""
    return get(name).strategy_id
