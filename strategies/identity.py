"""A strategy's identity: one digest of everything that decides how it plays.

Numba freezes what a compiled function reads when it compiles: the values of
the globals it loads, its closure cells, the code of every function it calls.
A compiled kernel, a disk cache or a per-run table of strategies keyed on
anything less (a file's text, a function's source) plays one strategy for
another: two strategies of one file, two closures of one factory, a module
constant computed from the environment, a constant imported from a module
edited since. :func:`function_digest` walks what a function can reach and
digests all of it:

* its code (bytecode, constants, names; not line numbers or file names, which
  decide nothing) and its qualified name;
* its closure cells and default arguments, by value;
* every global it loads, following ``module.attribute`` chains, by value:
  numbers, strings, tuples (named tuples too), NumPy arrays and scalars, enum
  members and classes;
* recursively the same for every function and Numba dispatcher it reaches, in
  the project or out of it, with the dispatcher's compile options;
* library objects (NumPy, Numba, ``math``, built-ins) by their qualified name:
  their behaviour is the installed version's, which the engine's own digest
  covers (the Numba version).

A *strict* walk (compiled strategies) refuses, in one line naming it, what the
digest cannot capture (an arbitrary object read as a global) and what would
reach past the view (raw memory, unchecked indexing or writable aliases:
:data:`VIEW_ESCAPES`, a Numba intrinsic), and it lists the non-inlined dispatchers met so that the
engine can check they were compiled with bounds checking. A lenient walk
(Python strategies, cache stamps) digests such objects by their type only.
"""

from __future__ import annotations

import builtins
import dis
import enum
import functools
import hashlib
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

LIBRARY_ROOTS = frozenset({"numpy", "numba", "llvmlite", "math", "cmath", "operator", "builtins",
                           "functools", "itertools", "collections", "typing"})
"""Top-level modules whose objects are taken by name: their behaviour is the installed version's."""

PROJECT_ROOTS = frozenset({"core", "sim", "strategies"})
"""The project's own packages (compiled code reviewed with the project; never refused as a helper)."""

VIEW_ESCAPES = frozenset({"ctypes", "carray", "farray", "as_strided", "ctypeslib",
                          "address_as_void_pointer", "flat", "nditer", "ascontiguousarray",
                          "asfortranarray"})
"""Names whose use reaches past the view's bounds or its read-only protection (refused in a
compiled strategy that is not the project's): raw memory (``.ctypes``, ``carray``, ``farray``,
``as_strided``, ``ctypeslib``, ``address_as_void_pointer``); Numba's ``.flat`` (not
bounds-checked, and its assignment ignores a read-only type); ``np.nditer`` (writable elements
of a read-only array); ``np.ascontiguousarray`` / ``np.asfortranarray`` (Numba returns an
array already in that layout as itself, typed writable)."""


class IdentityError(ValueError):
    """Something a compiled strategy reads that its key cannot capture, or a way past its view
    (one line)."""


@dataclass
class Reach:
    """What a walk met besides the digest.

    Attributes
    ----------
    files : set of Path
        Source files of the functions reached (for the disk-cache stamps of
        separately compiled helpers).
    dispatchers : list
        Numba dispatchers reached that are not inlined into their caller (they
        are compiled and cached on their own).
    attributes : set of str
        Every attribute name the functions reached load (a strategy that loads
        ``history`` reads the public history).
    """

    files: set = field(default_factory=set)
    dispatchers: list = field(default_factory=list)
    attributes: set = field(default_factory=set)


def _root(name: str | None) -> str:
    return (name or "").partition(".")[0]


def is_library(value) -> bool:
    """True for a module, function, class or object of a library (:data:`LIBRARY_ROOTS`); a
    plain container (a dict, a list) is not a library object, whatever its type's module."""
    if isinstance(value, types.ModuleType):
        return _root(value.__name__) in LIBRARY_ROOTS
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)) or is_dispatcher(value):
        return _root(getattr(value, "__module__", None)) in LIBRARY_ROOTS
    return _root(type(value).__module__) in LIBRARY_ROOTS - {"builtins"}


def is_project_module(name: str | None) -> bool:
    """True for a module of the project's own packages (:data:`PROJECT_ROOTS`)."""
    return _root(name) in PROJECT_ROOTS


def is_dispatcher(value) -> bool:
    """True for a Numba dispatcher (``njit``-decorated function)."""
    return hasattr(value, "py_func") and hasattr(value, "targetoptions")


def is_inlined(dispatcher) -> bool:
    """True when Numba inlines ``dispatcher`` into its callers (``inline="always"``)."""
    return dispatcher.targetoptions.get("inline") == "always"


def _qualified(value) -> str:
    module = getattr(value, "__module__", None) or type(value).__module__
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__qualname__
    return f"{module}.{name}"


def _code_objects(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _const_text(const) -> str:
    if isinstance(const, types.CodeType):
        return "code:" + code_digest(const)
    if isinstance(const, frozenset):  # set literals: the order of a frozenset's repr varies by process
        return "frozenset:" + ",".join(sorted(_const_text(c) for c in const))
    if isinstance(const, tuple):
        return "tuple:(" + ",".join(_const_text(c) for c in const) + ")"
    return f"{type(const).__name__}:{const!r}"


# The three readings of a code object below are cached on it: a code object is immutable, and two
# that compare equal have the same bytecode, constants, names and line table, so the same
# readings. A set's build walks the same helpers' code many times (every strategy and kernel
# that calls them), and each new process did so again.
CODE_CACHE_SIZE = 4096
"""Code objects whose readings (:func:`code_digest`, :func:`references`,
:func:`attribute_names`) a process keeps."""


@functools.lru_cache(maxsize=CODE_CACHE_SIZE)
def code_digest(code: types.CodeType) -> str:
    """sha256 of a code object's behaviour: bytecode, constants (nested code objects by their own
    digest), names and argument layout; not its file name or line numbers."""
    digest = hashlib.sha256()
    for part in (code.co_code, repr((code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
                                     code.co_nlocals, code.co_flags, code.co_names, code.co_varnames,
                                     code.co_freevars, code.co_cellvars)).encode()):
        digest.update(part)
        digest.update(b"\0")
    for const in code.co_consts:
        digest.update(_const_text(const).encode())
        digest.update(b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=CODE_CACHE_SIZE)
def references(code: types.CodeType) -> tuple[tuple[str, str, tuple[str, ...], int], ...]:
    """The globals and closure variables a code object (and its nested code) loads.

    Returns
    -------
    tuple of (kind, name, chain, line)
        ``kind`` is ``"global"`` or ``"closure"``; ``chain`` the attribute names
        loaded right after it (``np.random.randint`` -> ``("random", "randint")``);
        ``line`` the source line (0 when unknown).
    """
    found = []
    for inner in _code_objects(code):
        instructions = list(dis.get_instructions(inner))
        line = inner.co_firstlineno
        for index, instruction in enumerate(instructions):
            line = _line_of(instruction, line)
            if instruction.opname == "LOAD_GLOBAL":
                kind = "global"
            elif instruction.opname in ("LOAD_DEREF", "LOAD_CLOSURE") and \
                    instruction.argval in inner.co_freevars:
                kind = "closure"
            else:
                continue
            chain = []
            for following in instructions[index + 1:]:
                if following.opname not in ("LOAD_ATTR", "LOAD_METHOD"):
                    break
                chain.append(following.argval)
            found.append((kind, instruction.argval, tuple(chain), line))
    return tuple(found)


@functools.lru_cache(maxsize=CODE_CACHE_SIZE)
def attribute_names(code: types.CodeType) -> frozenset[str]:
    """Every attribute name the code (and its nested code) loads, whatever it is loaded from."""
    return frozenset(ins.argval for inner in _code_objects(code) for ins in dis.get_instructions(inner)
                     if ins.opname in ("LOAD_ATTR", "LOAD_METHOD"))


def _line_of(instruction: dis.Instruction, current: int) -> int:
    number = getattr(instruction, "line_number", None)  # Python 3.13+
    started = instruction.starts_line
    if number is None and isinstance(started, int) and not isinstance(started, bool):
        number = started  # Python 3.10-3.12: the line number where a line starts
    return number or current


_MISSING = object()


class _Walk:
    """One digest computation (see the module docstring)."""

    def __init__(self, strict: bool, reach: Reach):
        self.strict = strict
        self.reach = reach
        self.memo: dict[int, str] = {}
        self.keep: list = []  # objects whose id is memoised stay alive for the walk
        self.active: set[int] = set()

    # -- functions ---------------------------------------------------------
    def function(self, value, where: str) -> str:
        if is_dispatcher(value):
            options = {k: v for k, v in value.targetoptions.items() if k != "cache"}
            if not is_inlined(value) and all(d is not value for d in self.reach.dispatchers):
                self.reach.dispatchers.append(value)
            return "dispatcher:" + repr(sorted(options.items())) + self.function(value.py_func, where)
        key = id(value)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:  # recursion: the cycle is closed by the name
            return "cycle:" + value.__qualname__
        self.active.add(key)
        self.keep.append(value)
        try:
            digest = self._function(value)
        finally:
            self.active.discard(key)
        self.memo[key] = digest
        return digest

    def _function(self, func) -> str:
        code = func.__code__
        source = Path(code.co_filename)
        if source.is_file():
            self.reach.files.add(source)
        here = f"{func.__qualname__} ({source.name}:{code.co_firstlineno})"
        attributes = attribute_names(code)
        self.reach.attributes |= attributes
        if self.strict and not is_project_module(func.__module__):
            escapes = attributes & VIEW_ESCAPES
            if escapes:
                raise IdentityError(f"{here} uses .{sorted(escapes)[0]}, which reaches past the view's "
                                    "bounds or its read-only protection: a compiled strategy may "
                                    "read its view only by indexing")
        digest = hashlib.sha256()
        digest.update(f"function {func.__qualname__}\0{code_digest(code)}\0".encode())
        cells = dict(zip(code.co_freevars, func.__closure__ or ()))
        for name in code.co_freevars:
            try:
                content = cells[name].cell_contents
            except (KeyError, ValueError):  # an empty cell (defined later)
                content = _MISSING
            if not isinstance(content, types.ModuleType):  # modules: by the attributes loaded
                digest.update(f"cell {name}={self.value(content, f'{here}: closure variable {name}')}\0".encode())
        for index, default in enumerate(func.__defaults__ or ()):
            digest.update(f"default {index}={self.value(default, f'{here}: default value')}\0".encode())
        for name, default in sorted((func.__kwdefaults__ or {}).items()):
            digest.update(f"kwdefault {name}={self.value(default, f'{here}: default value')}\0".encode())
        global_values = func.__globals__
        first_line = {}
        for kind, name, chain, line in references(code):
            first_line.setdefault((kind, name, chain), line)
        for (kind, name, chain), line in sorted(first_line.items()):
            if kind == "global":
                value = global_values.get(name, _MISSING)
                if value is _MISSING:
                    value = getattr(builtins, name, _MISSING)
            else:
                try:
                    value = cells[name].cell_contents
                except (KeyError, ValueError):
                    value = _MISSING
            dotted = name
            place = f"{func.__qualname__} ({source.name}:{line})"
            for attribute in chain:
                if not isinstance(value, (types.ModuleType, type)) or value is _MISSING:
                    break
                self.check_generator(value, f"{place} reads {dotted}")
                value = getattr(value, attribute, _MISSING)
                dotted += "." + attribute
            self.check_generator(value, f"{place} reads {dotted}")
            digest.update(f"{kind} {dotted}={self.value(value, f'{place} reads {dotted}')}\0".encode())
        return digest.hexdigest()

    # -- values ------------------------------------------------------------
    def check_generator(self, value, where: str) -> None:
        """Refuse (strict walk) a random generator shared by the process (``np.random``,
        ``random``): a match must depend on its seed alone, so a strategy draws from its own
        stream ``view.rng``."""
        if not self.strict:
            return
        owner = getattr(value, "__self__", None)
        names = (value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None),
                 type(owner).__module__ if owner is not None else None)
        if any(isinstance(name, str) and (name == "random" or name.startswith("numpy.random"))
               for name in names):
            raise IdentityError(f"{where}, a random generator shared by the process: draw from "
                                "view.rng instead (toolkit.next_below, toolkit.next_unit), so that a "
                                "match depends on its seed alone")

    def intrinsic(self, value, where: str) -> str:
        """A Numba intrinsic: the project's own (reviewed) by its code; any other is raw machine
        code, refused in a strict walk."""
        definition = getattr(value, "_defn", None)
        if isinstance(definition, types.FunctionType) and is_project_module(definition.__module__):
            return "intrinsic:" + self.function(definition, where)
        if self.strict:
            raise IdentityError(f"{where}: a Numba intrinsic (raw machine code) is not allowed in a strategy")
        return "intrinsic:" + _qualified(definition if definition is not None else value)

    def library(self, value, where: str) -> str:
        """A library object by its qualified name (refused when it escapes the view: :data:`VIEW_ESCAPES`)."""
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
        if self.strict and name in VIEW_ESCAPES:
            raise IdentityError(f"{where}: {name} reaches past the view's bounds or its read-only "
                                "protection, which a compiled strategy may not")
        if not isinstance(name, str):
            name = repr(value)
            if " at 0x" in name:
                name = ""
        return f"library:{type(value).__module__}.{type(value).__qualname__}:{name}"

    def value(self, value, where: str) -> str:
        if value is _MISSING:
            return "missing"
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
            return f"{type(value).__name__}:{value!r}"
        if isinstance(value, np.ndarray):
            data = np.ascontiguousarray(value)
            return (f"array:{data.dtype.str}:{data.shape}:"
                    + hashlib.sha256(data.tobytes()).hexdigest())
        if isinstance(value, np.generic):
            return f"scalar:{value.dtype.str}:{value.tobytes().hex()}"
        if isinstance(value, enum.Enum):
            return f"enum:{_qualified(type(value))}.{value.name}={self.value(value.value, where)}"
        if isinstance(value, tuple):
            fields = getattr(type(value), "_fields", None)
            head = f"tuple:{_qualified(type(value))}{fields!r}" if fields is not None else "tuple"
            return head + "(" + ",".join(self.value(item, where) for item in value) + ")"
        if type(value).__name__ == "_Intrinsic":
            return self.intrinsic(value, where)
        if is_dispatcher(value) or isinstance(value, types.FunctionType):
            if is_library(value) and not is_dispatcher(value):
                return self.library(value, where)
            return self.function(value, where)
        if isinstance(value, types.ModuleType):
            return "module:" + value.__name__
        if isinstance(value, type):
            if issubclass(value, enum.Enum):
                return f"enum-class:{_qualified(value)}(" + ",".join(
                    f"{m.name}={self.value(m.value, where)}" for m in value) + ")"
            if issubclass(value, tuple) and hasattr(value, "_fields"):
                return f"namedtuple-class:{_qualified(value)}{value._fields!r}"
            if is_library(value) or value.__module__ == "builtins":
                return self.library(value, where)
        elif isinstance(value, (types.BuiltinFunctionType, types.BuiltinMethodType)):
            return self.library(value, where)
        elif is_library(value):
            return self.library(value, where)
        strategy_function = getattr(value, "function", None)
        if callable(getattr(value, "choose", None)) and isinstance(strategy_function, types.FunctionType):
            return "strategy:" + self.function(strategy_function, where)  # a Strategy object
        if self.strict:
            raise IdentityError(f"{where}, a {type(value).__name__}: a strategy's key cannot capture it "
                                "(use a number, a string, a tuple or a NumPy array)")
        return "object:" + _qualified(type(value))


def function_digest(func, *, strict: bool = True, reach: Reach | None = None) -> str:
    """sha256 (hex) of everything that decides what ``func`` computes (see the module docstring).

    Parameters
    ----------
    func : function or Numba dispatcher
    strict : bool
        Refuse what the digest cannot capture and raw-memory access
        (:class:`IdentityError`); otherwise such objects count by type.
    reach : Reach, optional
        Filled with the files and the non-inlined dispatchers met.

    Raises
    ------
    IdentityError
        ``strict`` and an uncapturable global, closure value or default, or a way past the
        view (:data:`VIEW_ESCAPES`, a Numba intrinsic).
    """
    walk = _Walk(strict, reach if reach is not None else Reach())
    return hashlib.sha256(walk.function(func, _qualified(func)).encode()).hexdigest()


def dispatcher_digests(functions) -> list[tuple[object, str]]:
    """The separately compiled dispatchers ``functions`` reach, each with its digest.

    One lenient walk over all of ``functions``: a helper that several of them reach is read
    once (:func:`function_digest` per dispatcher would walk it again for each).

    Parameters
    ----------
    functions : sequence of function or Numba dispatcher

    Returns
    -------
    list of (dispatcher, str)
        Each non-inlined dispatcher met (:attr:`Reach.dispatchers`), in the order first met,
        with the sha256 (hex) of everything that decides its code.
    """
    reach = Reach()
    walk = _Walk(False, reach)
    for function in functions:
        walk.function(function, _qualified(function))
    # Every dispatcher is met already: walking it again reads only the walk's memo.
    return [(dispatcher, hashlib.sha256(walk.function(dispatcher, _qualified(dispatcher)).encode()).hexdigest())
            for dispatcher in reach.dispatchers]


def module_of(func) -> types.ModuleType | None:
    """The module object ``func`` (a function or dispatcher) was defined in, if loaded."""
    name = getattr(getattr(func, "py_func", func), "__module__", None)
    return sys.modules.get(name) if name else None
