"""Finding strategies: the built-ins by name, a user's by reference, variants by parameters.

A *strategy spec* is what a user may write wherever a strategy is asked for
(``--strategies``, ``sim.simulate(..., strategies=[...])``):

``greedy``
    a built-in, by name;
``mypackage.mymodule:edge``
    the :class:`~strategies.definition.Strategy` ``edge`` of an importable module;
``path/to/file.py:edge``
    the same from a Python file (loaded as a module of its own);
``openspiel:ismcts``
    a strategy of a *family*: a module that an installed package registers
    under a short name in the entry-point group :data:`FAMILY_GROUP`
    (:func:`families`). The project registers ``openspiel``, OpenSpiel's bots
    (its bridge module, which needs ``pip install ".[openspiel]"``);
    a third-party package registers its own the same way, in its
    ``pyproject.toml``::

        [project.entry-points."exact61_five_up.strategies"]
        mine = "my_package.my_strategies"

    and its strategies are ``mine:NAME`` (listed by ``five-up strategies``);
``weighted[w_double=12,w_exact=3]``
    any of the above with other parameter values: a variant named so
    (``openspiel:ismcts[sims=1000]``).

A :class:`Strategy` object is accepted as it is. :func:`resolve` turns a spec
into a Strategy; :func:`reference` gives the spec that rebuilds a Strategy in
another process (a dask worker), or None for one defined in ``__main__`` or a
notebook.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from strategies.definition import Strategy, StrategyError, variant
from strategies.identity import is_library, is_project_module

BUILTIN_MODULES = (
    "strategies.random",
    "strategies.greedy",
    "strategies.exact",
    "strategies.heavy",
    "strategies.defensive",
    "strategies.weighted",
    "strategies.rollout",
    "strategies.matchplay",
    "strategies.pimc",
    "strategies.cheater",
)
"""Modules holding the built-in strategies (one decorated function each), in listing order."""

FAMILY_GROUP = "exact61_five_up.strategies"
"""Entry-point group of the strategy families: each entry ``name = "package.module"`` makes
``name:STRATEGY`` a strategy of that module (:func:`families`)."""

SESSION_PREFIX = "@session:"
"""Prefix of the specs :func:`spec_of` gives strategies that live only in this process."""

_SESSION: dict[str, Strategy] = {}

_VARIANT = re.compile(r"^(?P<base>[^\[\]]+)\[(?P<params>[^\[\]]*)\]$")


def builtins() -> dict[str, Strategy]:
    """The built-in strategies by name, in listing order (imports their modules).

    A built-in is defined exactly as a user's strategy is; what makes it
    built-in is only that its module is listed in :data:`BUILTIN_MODULES`.
    """
    found: dict[str, Strategy] = {}
    for module_name in BUILTIN_MODULES:
        module = importlib.import_module(module_name)
        for value in vars(module).values():
            if isinstance(value, Strategy) and value.function.__module__ == module_name:
                found[value.name] = value
    return found


def is_builtin(strategy: Strategy) -> bool:
    """True for a built-in strategy (the same function and parameter values under its name)."""
    known = builtins().get(strategy.name)
    return known is not None and known.function is strategy.function and \
        known.compiled == strategy.compiled and \
        known.default_params().tolist() == strategy.default_params().tolist()


def builtin_names() -> list[str]:
    """Names of the built-in strategies (the default tournament field)."""
    return list(builtins())


def _parse_value(text: str, spec: str, parameter=None) -> float:
    """The number of ``text``: a number, or a word ``parameter`` names (Parameter.words)."""
    try:
        return float(text)
    except ValueError:
        value = parameter.value_of(text) if parameter is not None else None
        if value is not None:
            return value
        named = f" or one of {', '.join(w for w, _ in parameter.words)}" \
            if parameter is not None and parameter.words else ""
        raise StrategyError(f"{spec}: parameter value {text!r} is not a number{named}") from None


def _file_digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class _SourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles a strategy file from its text every time, never from ``__pycache__``: a ``.pyc``
    is trusted while the source's size and mtime in whole seconds match, so an edit of the same
    size within a second (a script writing the file, then resolving it) would load the old code."""

    def get_code(self, fullname):
        return self.source_to_code(self.get_data(self.path), self.path)


def _forget_bytecode(source: str) -> None:
    """Remove the ``.pyc`` of ``source`` (see :class:`_SourceLoader`), so that reloading the module
    compiles its current text."""
    try:
        Path(importlib.util.cache_from_source(source)).unlink(missing_ok=True)
    except (OSError, ValueError, NotImplementedError):
        pass


def _load_file(path_text: str, spec: str):
    """The module of a strategy file, loaded once per process and loaded again when the file
    changed since (a strategy is never resolved from code the file no longer holds)."""
    path = Path(path_text)
    if not path.is_file():
        raise StrategyError(f"{spec}: no such file {path_text!r}")
    resolved = path.resolve()
    # The name must be the same in every process: Numba's on-disk cache records the module of each
    # compiled function and imports it by that name when a later process loads the kernels. (The
    # built-in ``hash`` of a string changes from process to process.)
    module_name = "five_up_user_" + re.sub(r"\W", "_", resolved.stem) + "_" + \
        hashlib.sha256(str(resolved).encode()).hexdigest()[:8]
    digest = _file_digest(resolved)
    loaded = sys.modules.get(module_name)
    if loaded is not None and getattr(loaded, "__five_up_digest__", None) == digest:
        return loaded
    loader_spec = importlib.util.spec_from_file_location(module_name, resolved,
                                                         loader=_SourceLoader(module_name, str(resolved)))
    module = importlib.util.module_from_spec(loader_spec)
    module.__five_up_file__ = str(resolved)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise StrategyError(f"{spec}: {path_text} failed to load: {type(error).__name__}: "
                            f"{' '.join(str(error).split())}") from None
    module.__five_up_digest__ = digest
    return module


_MODULE_DIGESTS: dict[str, str | None] = {}
"""Source digest of each user module named in a MODULE:NAME spec, when first resolved."""


def _load_module(module_name: str, spec: str):
    """An importable module; a user module whose source changed since it was first resolved in
    this process is reloaded (the project's own modules are not)."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise StrategyError(f"{spec}: no module named {module_name!r}") from None
        raise StrategyError(f"{spec}: importing {module_name} failed: {error}") from None
    except Exception as error:
        raise StrategyError(f"{spec}: importing {module_name} failed: {type(error).__name__}: "
                            f"{' '.join(str(error).split())}") from None
    source = getattr(module, "__file__", None)
    if not source or is_project_module(module_name) or is_library(module):
        return module
    digest = _file_digest(Path(source))
    known = _MODULE_DIGESTS.setdefault(module_name, digest)
    if known != digest:
        _forget_bytecode(source)
        try:
            module = importlib.reload(module)
        except Exception as error:
            raise StrategyError(f"{spec}: {module_name} changed since it was imported and reloading it "
                                f"failed: {type(error).__name__}: {' '.join(str(error).split())}") from None
        _MODULE_DIGESTS[module_name] = digest
    return module


def strategies_in(module) -> list[tuple[str, Strategy]]:
    """``(attribute, Strategy)`` of every strategy a module defines (not those it imports)."""
    return [(attribute, value) for attribute, value in vars(module).items()
            if isinstance(value, Strategy) and getattr(value.function, "__module__", None) == module.__name__]


@functools.lru_cache(maxsize=4)
def _families_on(path: tuple) -> dict[str, str]:
    """:func:`families` for the import path ``path`` (the installed packages it holds)."""

    found: dict[str, str] = {}
    for entry in importlib.metadata.entry_points(group=FAMILY_GROUP):
        if entry.attr:
            raise StrategyError(f"the strategy family {entry.name!r} is registered as {entry.value!r}: "
                                f"an entry of the group {FAMILY_GROUP!r} names a module, not an object")
        found.setdefault(entry.name, entry.module)  # the first package on the path wins, as imports do
    return found


def families() -> dict[str, str]:
    """The strategy families the installed packages register: ``{name: module}``.

    Read from the entry points of the group :data:`FAMILY_GROUP` of every
    installed distribution (once per import path; importing no family), so
    ``NAME:STRATEGY`` names the strategy ``STRATEGY`` of module ``module``.

    Raises
    ------
    StrategyError
        An entry names an object instead of a module.
    """
    return dict(_families_on(tuple(sys.path)))


def family_strategies() -> list[tuple[str, Strategy]]:
    """``(spec, Strategy)`` of every strategy of every family whose module imports, by family
    name, then in module order (``("openspiel:ismcts", ...)``). A family that does not import
    here (an optional package missing: ``openspiel`` without ``pip install ".[openspiel]"``)
    is left out; naming one of its strategies gives its one-line error."""
    found = []
    for family, module_name in sorted(families().items()):
        try:
            module = _load_module(module_name, f"{family}:")
        except StrategyError:
            continue
        found += [(f"{family}:{attribute}", strategy) for attribute, strategy in strategies_in(module)]
    return found


def _from_reference(text: str, spec: str) -> Strategy:
    location, _, attribute = text.rpartition(":")
    if not location or not attribute:
        raise StrategyError(f"{spec}: expected MODULE:NAME or FILE.py:NAME")
    location = families().get(location, location)
    if location.endswith(".py") or "/" in location or "\\" in location:
        module = _load_file(location, spec)
    else:
        module = _load_module(location, spec)
    value = getattr(module, attribute, None)
    if isinstance(value, Strategy):
        return value
    found = strategies_in(module)
    named = [s for _, s in found if s.name == attribute]
    if value is None and len(named) == 1:
        return named[0]  # the name the strategy was given (name=...), not its attribute
    listing = ", ".join(a if s.name == a else f"{a} (named {s.name!r})" for a, s in found) or "none"
    if value is None:
        raise StrategyError(f"{spec}: {location} has no strategy {attribute!r} (its strategies: {listing})")
    raise StrategyError(
        f"{spec}: {attribute!r} is a {type(value).__name__}, not a strategy "
        f"(decorate it with @strategies.strategy; its strategies: {listing})"
    )


def resolve(spec) -> Strategy:
    """The :class:`Strategy` a spec names (see the module docstring).

    Raises
    ------
    StrategyError
        Unknown name (the known ones are listed), missing module, file or
        attribute, an object that is not a strategy, a bad variant.
    """
    if isinstance(spec, Strategy):
        return spec
    if not isinstance(spec, str):
        raise StrategyError(f"a strategy is a name, MODULE:NAME, FILE.py:NAME or a Strategy, not {spec!r}")
    text = spec.strip()
    if not text:
        raise StrategyError("empty strategy name")
    if text.startswith(SESSION_PREFIX):
        if text not in _SESSION:
            raise StrategyError(
                f"strategy {text[len(SESSION_PREFIX):]!r} was defined in another process (a notebook "
                "or __main__): put it in a module or file and name it MODULE:NAME or FILE.py:NAME"
            )
        return _SESSION[text]
    if "[" in text or "]" in text:
        check_brackets(text)
    match = _VARIANT.match(text)
    if match:
        base = resolve(match.group("base"))
        if not match.group("params").strip():
            raise StrategyError(f"{text}: empty brackets set no parameter (write {base.name}, "
                                f"or {base.name}[NAME=VALUE,...])")
        params = {}
        by_name = {p.name: p for p in base.parameters}
        for item in filter(None, (part.strip() for part in match.group("params").split(","))):
            key, equals, value = item.partition("=")
            if not equals:
                raise StrategyError(f"{text}: expected NAME=VALUE, got {item!r}")
            params[key.strip()] = _parse_value(value.strip(), text, by_name.get(key.strip()))
        try:
            return variant(base, name=f"{base.name}[{match.group('params')}]", **params)
        except ValueError as error:
            raise StrategyError(str(error)) from None
    if ":" in text:
        return _from_reference(text, text)
    known = builtins()
    if text not in known:
        raise StrategyError(
            f"unknown strategy {text!r} (built-in: {', '.join(known)}; or MODULE:NAME, FILE.py:NAME)"
        )
    return known[text]


def reference(strategy: Strategy) -> str | None:
    """A spec from which :func:`resolve` rebuilds ``strategy`` in another process, or None.

    Built-ins are their name; a strategy of an importable module (or of a file
    loaded by spec) is ``MODULE:NAME`` (``FILE.py:NAME``), with a variant's
    parameters appended. Strategies defined in ``__main__`` or a notebook have
    none: they run only in this process.
    """
    function = strategy.function
    module_name = getattr(function, "__module__", None)
    module = sys.modules.get(module_name) if module_name else None
    if module is None or module_name == "__main__":
        return None
    location = getattr(module, "__five_up_file__", None) or module_name
    # Every Strategy of the module sharing the function: the base and its named variants
    # (``weighted`` and ``weighted_tuned``). Match by name first, so that a named variant is
    # its own spec and not its base's.
    shared = [(attribute, value) for attribute, value in vars(module).items()
              if isinstance(value, Strategy) and value.function is function]

    def spec_for(attribute: str, value: Strategy) -> str:
        return value.name if is_builtin(value) else f"{location}:{attribute}"

    for attribute, value in shared:
        if value.name == strategy.name:
            if value.parameters == strategy.parameters and value.compiled == strategy.compiled:
                return spec_for(attribute, value)
            return None  # renamed over a module strategy's name with other values
    # A variant resolved from a spec is named after its bracket text (``base[k=v]``): keep it
    # verbatim, so that the name rebuilt from the spec is the same. The longest matching base
    # wins (``weighted_tuned[k=v]`` is a variant of weighted_tuned, not of weighted).
    for attribute, value in sorted(shared, key=lambda item: -len(item[1].name)):
        if strategy.name.startswith(value.name + "["):
            return spec_for(attribute, value) + strategy.name[len(value.name):]
    return None  # a variant renamed in Python: its name cannot be rebuilt from a spec


def spec_of(strategy) -> str:
    """A JSON-ready spec that :func:`resolve` turns back into ``strategy``.

    A spec string is returned as it is; a Strategy gets its :func:`reference`,
    or, when it has none (defined in a notebook or ``__main__``), a
    ``@session:`` spec that resolves in this process only (a dask worker
    reports it in one line).
    """
    if isinstance(strategy, str):
        return strategy.strip()
    if not isinstance(strategy, Strategy):
        raise StrategyError(f"a strategy is a name, MODULE:NAME, FILE.py:NAME or a Strategy, not {strategy!r}")
    found = reference(strategy)
    if found is not None:
        return found
    spec = f"{SESSION_PREFIX}{strategy.name}#{strategy.code_key[:16]}"
    _SESSION[spec] = strategy
    return spec


# ---------------------------------------------------------------------------
# Lists of strategies
# ---------------------------------------------------------------------------
def bracket_depths(text: str):
    """Yield ``(index, char, depth)`` for each character of a spec or a list of specs, ``depth``
    the bracket depth after it.

    Raises
    ------
    StrategyError
        Brackets that do not pair up one level deep (raised once the text is read).
    """
    depth = 0
    for index, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth < 0 or depth > 1:
            raise StrategyError(f"unbalanced brackets in {text!r}")
        yield index, char, depth
    if depth != 0:
        raise StrategyError(f"unbalanced brackets in {text!r}")


def check_brackets(text: str) -> None:
    """Raise :class:`StrategyError` unless ``text``'s ``[`` and ``]`` pair up, one level deep,
    with nothing after the closing one (a variant is ``name[k=v,...]``)."""
    for index, char, depth in bracket_depths(text):
        if depth == 0 and char == "]" and text[index + 1:].strip():
            raise StrategyError(f"{text!r}: nothing may follow a variant's closing bracket")


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of specs, keeping commas inside ``[...]``.

    Raises
    ------
    StrategyError
        Unbalanced brackets (one line).
    """
    parts, current = [], []
    for _, char, depth in bracket_depths(text):
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return parts


def strategy_entries(value, what: str = "strategies") -> list:
    """The entries of a list of strategies: a comma-separated string of specs (commas inside
    ``[...]`` kept), one :class:`Strategy`, or a sequence of specs and Strategy objects.

    Raises
    ------
    StrategyError
        Not such a list, or an empty entry.
    """
    if isinstance(value, Strategy):
        return [value]
    if isinstance(value, str):
        items = split_specs(value)
    elif isinstance(value, Sequence) and all(isinstance(v, (str, Strategy)) for v in value):
        items = [v.strip() if isinstance(v, str) else v for v in value]
    else:
        raise StrategyError(f"{what} must be a comma-separated string or a list of names and "
                            f"Strategy objects, not {value!r}")
    if not items or any(isinstance(item, str) and not item for item in items):
        raise StrategyError(f"{what} has an empty entry: {value!r}")
    return items


def check_distinct_names(resolved) -> None:
    """Raise :class:`StrategyError` when two different strategies (code or parameters) share a
    name, or a strategy that is not a built-in (nor a variant of one) takes a built-in's name."""
    known = builtins()
    for strategy in resolved:
        base = known.get(strategy.name.partition("[")[0])
        if base is not None and base.function is not strategy.function:
            raise StrategyError(f"strategy {strategy.name!r} takes the name of a built-in strategy: "
                                "give it another name (name=...)")
    seen = {}
    for strategy in resolved:
        signature = (strategy.function, strategy.compiled, tuple(strategy.default_params().tolist()))
        previous = seen.setdefault(strategy.name, signature)
        if previous != signature:
            raise StrategyError(f"two different strategies are named {strategy.name!r}: give one another name")


def resolve_field(value, what: str = "strategies") -> list[Strategy]:
    """The strategies of a field (a tournament's, an experiment's): each resolved once, with
    distinct names and none entered twice.

    Raises
    ------
    StrategyError
        One line: a bad entry (:func:`strategy_entries`, :func:`resolve`), two
        strategies under one name, or one strategy entered twice.
    """
    resolved = [resolve(entry) for entry in strategy_entries(value, what)]
    check_distinct_names(resolved)
    names = [s.name for s in resolved]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise StrategyError(f"{what} names {repeated[0]!r} twice")
    return resolved


def describe(specs=None, with_families: bool = False) -> list[dict]:
    """One JSON-ready dict per strategy: name, spec, how it runs, metadata, parameters, description.

    Parameters
    ----------
    specs : sequence of str or Strategy, optional
        Specs (each may hold several, comma-separated) or Strategy objects;
        default every built-in, in listing order.
    with_families : bool
        Without ``specs``: list the strategies of the installed families too
        (:func:`family_strategies`), after the built-ins.

    Returns
    -------
    list of dict
        ``spec`` is what selects the strategy (the built-in's name,
        ``family:NAME``, or the spec given); ``name`` what tables show.

    Raises
    ------
    StrategyError
        A spec that names no strategy (one line).
    """
    if not specs:
        chosen = list(builtins().items())
        if with_families:
            chosen += family_strategies()
    else:
        chosen = [(part if isinstance(part, str) else reference(part) or part.name, resolve(part))
                  for entry in specs for part in strategy_entries(entry)]
    return [
        {
            "name": info.name,
            "spec": spec,
            "compiled": info.compiled,
            "builtin": is_builtin(info),
            "stochastic": info.stochastic,
            "uses_inference": info.uses_inference,
            "lookahead": info.lookahead,
            "sees_hidden": info.sees_hidden,
            "parameters": [{"name": p.name, "default": p.default, "description": p.description}
                           for p in info.parameters],
            "description": info.description,
        }
        for spec, info in chosen
    ]
