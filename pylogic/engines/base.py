"""The engine interface and the registry of engines.

An engine evaluates a ``CheckedProgram`` over input facts and returns, per requested relation,
its sorted tuples (``int`` for number columns, ``str`` for symbol columns): every engine gives
identical output for the same program and facts. An engine module defines one class that
satisfies ``Engine`` and calls ``register`` at import; ``pylogic/engines/__init__.py`` names the
engine modules with ``declare`` (one line each, in the order "auto" prefers them), and a module is
imported when its engine is first asked for: listing the names (``engine_choices()`` for an
``--engine`` option) imports no engine, so neither clingo nor duckdb.

Example
-------
>>> engine_names()                  # doctest: +SKIP
['souffle', 'clingo']
>>> resolve_engine("auto")          # souffle if its binary is on PATH   # doctest: +SKIP
'clingo'
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pylogic.errors import DatalogError

if TYPE_CHECKING:  # the checked program (its parser imports lark) is not needed to list engines
    from pylogic.engines.program import CheckedProgram

#: The engines' error type (an alias: every engine error is a DatalogError).
EngineError = DatalogError

#: The engine name that picks the first available engine.
AUTO = "auto"


@runtime_checkable
class Engine(Protocol):
    """What an engine provides (a structural type: no base class to inherit)."""

    name: str

    def available(self) -> bool:
        """Whether the engine can run on this machine now (e.g. its binary is on PATH)."""

    def unavailable_reason(self) -> str:
        """Why ``available()`` is False, for the user (what is missing and how to get it)."""

    def run(self, program: CheckedProgram, facts_dir: str | Path | None,
            facts: dict[str, list[tuple]] | None, outputs: list[str], *,
            jobs: int | None = None, compiled: bool = False) -> dict[str, list[tuple]]:
        """Evaluate ``program`` and return ``{relation: sorted tuples}`` for ``outputs``.

        Parameters
        ----------
        program : CheckedProgram
        facts_dir : path or None
            ``NAME.facts`` (or the ``.input``'s ``filename=``) per input relation; a missing
            file is an empty relation.
        facts : dict or None
            In-memory tuples per relation, overriding ``facts_dir``.
        outputs : list of str
            The relations to return: ``.output`` ones, and others where the engine can
            observe them (an engine may leave out a relation that is not an ``.output``).
        jobs : int, optional
            Threads, for engines that use them.
        compiled : bool
            Compile the program first, for engines that can.

        Raises
        ------
        DatalogError
            Located where the problem has a location (bad facts row, program error).
        """


#: name -> the engine, or the module that registers it when imported (``declare``)
_REGISTRY: dict[str, Engine | str] = {}


def declare(name: str, module: str) -> None:
    """Name the engine that importing ``module`` registers, without importing it: the name is
    listed (in "auto" preference order, after those already there) and the module is imported
    when the engine is first asked for.

    Raises
    ------
    ValueError
        If the name is "auto" or already taken (a programming error).
    """
    if name == AUTO or name in _REGISTRY:
        raise ValueError(f"engine name {name!r} is reserved or already registered")
    _REGISTRY[name] = module


def register(engine: Engine) -> Engine:
    """Add ``engine`` to the registry (after the ones already there, in "auto" preference; in
    its declared place when its module was named by ``declare``).

    Parameters
    ----------
    engine : Engine

    Returns
    -------
    Engine
        ``engine`` itself.

    Raises
    ------
    ValueError
        If the name is "auto" or another engine already has it (a programming error).
    """
    if not isinstance(engine, Engine):
        raise ValueError(f"{engine!r} does not implement the Engine protocol")
    declared = _REGISTRY.get(engine.name)
    # a declared name is taken by the engine its module registers (while being imported)
    if engine.name == AUTO or (declared is not None and not (isinstance(declared, str)
                                                             and declared in sys.modules)):
        raise ValueError(f"engine name {engine.name!r} is reserved or already registered")
    _REGISTRY[engine.name] = engine
    return engine


def _loaded(name: str) -> Engine | None:
    """The registered engine ``name``, its module imported first if it was only declared; None
    if no engine has that name."""
    found = _REGISTRY.get(name)
    if isinstance(found, str):
        importlib.import_module(found)
        found = _REGISTRY[name]
        if isinstance(found, str):
            raise ValueError(f"module {found} did not register engine {name!r}")
    return found


def unregister(name: str) -> None:
    """Remove the engine ``name`` (tests register stand-ins and remove them after)."""
    _REGISTRY.pop(name, None)


def engine_names() -> list[str]:
    """Every registered engine's name, available here or not, in "auto" preference order."""
    return list(_REGISTRY)


def engine_choices() -> list[str]:
    """What an ``--engine`` option accepts: "auto" and every registered engine's name."""
    return [AUTO] + engine_names()


def available_engines() -> list[str]:
    """The engines usable on this machine now, in preference order for "auto"."""
    return [name for name in list(_REGISTRY) if _loaded(name).available()]


def engine(name: str) -> Engine:
    """The registered engine ``name`` ("auto" resolved first), available or not.

    Raises
    ------
    DatalogError
        If no engine has that name (the message lists the known ones).
    """
    if name == AUTO:
        name = resolve_engine(AUTO)
    found = _loaded(name)
    if found is None:
        raise DatalogError(f"unknown engine '{name}' (choose from {', '.join(engine_choices())})")
    return found


def resolve_engine(name: str = AUTO) -> str:
    """The concrete engine to run for ``name``: "auto" is the first available engine.

    Parameters
    ----------
    name : str
        "auto" or a registered engine's name.

    Returns
    -------
    str
        The name of an engine that is available here.

    Raises
    ------
    DatalogError
        If the name is unknown, or the engine (for "auto": every engine) is not available; the
        message says why.
    """
    if name == AUTO:
        for candidate in list(_REGISTRY):  # the first available one: the rest not imported
            if _loaded(candidate).available():
                return candidate
        reasons = "; ".join(f"{e.name}: {e.unavailable_reason()}"
                            for e in map(_loaded, list(_REGISTRY)))
        raise DatalogError(f"no Datalog engine is available ({reasons or 'none registered'})")
    found = engine(name)
    if not found.available():
        raise DatalogError(f"engine '{name}' is not available: {found.unavailable_reason()}")
    return name
