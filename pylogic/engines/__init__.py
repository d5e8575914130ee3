"""Datalog engines for the Soufflé dialect (DESIGN.md "Datalog: one dialect, two engines").

    rows = run_program("datalog/dominance.dl", "out/facts", engine="auto")
    rows["idom"]  # sorted list of tuples: int for number columns, str for symbol columns

``engine`` is an engine name (``engine_names()``: "souffle", the binary on PATH; "clingo",
embedded, always available; "duckdb", embedded, strata compiled to SQL) or "auto" (the first
available, in that order). Every error a user
can cause is a located DatalogError.

Layout: ``program.py`` (the checked program: ``dialect.py`` parses, ``semantics.py`` and
``stratify.py`` check), ``base.py`` (the ``Engine`` protocol and the registry), one file per
engine, ``run.py`` (facts in, rows out).
"""
from __future__ import annotations

from pylogic.engines.base import (Engine, EngineError, available_engines, engine, engine_choices,
                                  engine_names, register, resolve_engine, unregister)
from pylogic.engines.program import CheckedProgram, load_program, load_program_cached
from pylogic.engines.run import load_inputs, run_checked, run_program, write_outputs

# Engine discovery: each module registers its engine when imported. The order of these lines is
# the order "auto" prefers; a new engine is one file plus one line here.
from pylogic.engines import souffle_engine  # noqa: E402,F401
from pylogic.engines import clingo_engine  # noqa: E402,F401
from pylogic.engines import duckdb_engine  # noqa: E402,F401

__all__ = ["run_program", "run_checked", "write_outputs", "load_inputs", "load_program",
           "load_program_cached", "CheckedProgram", "Engine", "EngineError", "engine",
           "engine_names", "engine_choices", "available_engines", "resolve_engine", "register",
           "unregister"]
