"""Rows for the predicate tests, the way the analysis layer gets them: ``module_rows`` extracts
the facts of a module and runs the catalogued programs producing ``PAS_RELATIONS`` (and the PPG's
relations when asked). Many functions go into ONE module and one engine call (~20-40 ms a call
on clingo, most of it fixed cost), and rows of a module already seen are reused.

Example
-------
>>> pa = pas_of(fn, check="sat")                        # doctest: +SKIP
>>> pas = pas_batch(functions, lookback=0)               # one engine call   # doctest: +SKIP
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Sequence

from pylogic.analysis.run import module_rows
from pylogic.engines.rows import FunctionRows, Rows
from pylogic.ir.model import Function, Module
from pylogic.predicates import (
    PAS_RELATIONS, PPG_RELATIONS, PartitionGraph, PredicateAnalysis, partition_graphs,
)

RELPATH = "t.pir"


@lru_cache(maxsize=256)
def _rows(module: Module, relpath: str, relations: tuple, engine: str) -> Rows:
    return module_rows(module, relpath, relations=relations, engine=engine)


def rows_of_module(module: Module, relpath: str = RELPATH, relations=PAS_RELATIONS,
                   engine: str = "auto") -> Rows:
    """``module_rows`` of ``module``, cached (modules compare by their functions)."""
    return _rows(module, relpath, tuple(relations), engine)


def distinct(fns: Sequence[Function]) -> list[Function]:
    """The functions, renamed ``g0``, ``g1``, ... when their names collide (one module)."""
    if len({f.name for f in fns}) == len(fns):
        return list(fns)
    return [dataclasses.replace(f, name=f"g{k}") for k, f in enumerate(fns)]


def rows_of(fn: Function, relations=PAS_RELATIONS, engine: str = "auto") -> FunctionRows:
    """The rows of one function (analysed alone, in module ``t.pir``)."""
    rows = rows_of_module(Module(functions=(fn,), path=RELPATH), RELPATH, relations, engine)
    return rows.of(f"{RELPATH}::{fn.name}")


def pas_of(fn: Function, *args, engine: str = "auto", **kw) -> PredicateAnalysis:
    """``PredicateAnalysis(fn, rows_of(fn), *args, **kw)``."""
    return PredicateAnalysis(fn, rows_of(fn, engine=engine), *args, **kw)


def pas_batch(fns: Sequence[Function], engine: str = "auto", **kw) -> list[PredicateAnalysis]:
    """One ``PredicateAnalysis`` per function, rows from ONE engine call (colliding names are
    renamed, see ``distinct``)."""
    fns = distinct(fns)
    rows = rows_of_module(Module(functions=tuple(fns), path=RELPATH), RELPATH, engine=engine)
    return [PredicateAnalysis(f, rows.of(f"{RELPATH}::{f.name}"), **kw) for f in fns]


def group_of(fns: Sequence[Function], **kw) -> list[PredicateAnalysis]:
    """``PredicateAnalysis.group`` (one BDD manager) with rows from one engine call."""
    rows = rows_of_module(Module(functions=tuple(fns), path=RELPATH))
    return PredicateAnalysis.group(fns, [rows.of(f"{RELPATH}::{f.name}") for f in fns], **kw)


def ppg_of(module: Module, relpath: str) -> dict[str, PartitionGraph]:
    """The partition graphs of every function of ``module`` (one engine call)."""
    return partition_graphs(module, rows_of_module(module, relpath, PPG_RELATIONS), relpath)


def pas_and_ppg(module: Module, relpath: str) -> tuple[dict, Rows]:
    """(partition graphs by function name, the rows) of ``module``: PAS and PPG relations from
    one engine call, as ``pathlogic analyze`` computes them."""
    rows = rows_of_module(module, relpath, PAS_RELATIONS + PPG_RELATIONS)
    return partition_graphs(module, rows, relpath), rows
