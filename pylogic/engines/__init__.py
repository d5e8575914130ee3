"""Datalog engines for the Soufflé dialect (DESIGN.md "Datalog: one dialect, two engines").

    rows = run_program("datalog/dominance.dl", "out/facts", engine="auto")
    rows["idom"]  # sorted list of tuples: int for number columns, str for symbol columns

``engine`` is an engine name (``engine_names()``: "souffle", the binary on PATH; "clingo",
embedded, always available; "duckdb", embedded, strata compiled to SQL; "python", in process,
strata compiled to Python) or "auto" (the first available, in that order; a small call of
in-memory facts runs on "python": ``run.auto_engine``). Every error a user
can cause is a located DatalogError.

Layout: ``program.py`` (the checked program: ``dialect.py`` parses, ``semantics.py`` and
``stratify.py`` check), ``base.py`` (the ``Engine`` protocol and the registry), one file per
engine, ``run.py`` (facts in, rows out).
"""
from __future__ import annotations

import importlib

from pylogic.engines.base import (Engine, EngineError, available_engines, declare, engine,
                                  engine_choices, engine_names, register, resolve_engine,
                                  unregister)

# Engine discovery: each module registers its engine when imported, which happens when the engine
# is first asked for (``base.declare``). The order of these lines is the order "auto" prefers; a
# new engine is one file plus one line here.
declare("souffle", "pylogic.engines.souffle_engine")
declare("clingo", "pylogic.engines.clingo_engine")
declare("duckdb", "pylogic.engines.duckdb_engine")
declare("python", "pylogic.engines.python_engine")

#: What the package exports from its modules imported on first use (PEP 562): the checked
#: program's parser imports lark, the engines clingo and duckdb; ``--engine`` choices need none.
_LAZY = {"CheckedProgram": "program", "load_program": "program",
         "load_program_cached": "program", "load_inputs": "run", "run_checked": "run",
         "run_program": "run", "write_outputs": "run"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f"pylogic.engines.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["run_program", "run_checked", "write_outputs", "load_inputs", "load_program",
           "load_program_cached", "CheckedProgram", "Engine", "EngineError", "engine",
           "engine_names", "engine_choices", "available_engines", "resolve_engine", "register",
           "unregister"]
