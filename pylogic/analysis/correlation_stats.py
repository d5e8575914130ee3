"""Branch-correlation statistics of whole modules (``pathlogic analyze --correlation``; issue #15
item 4, the quantities of PathFinder §7.5 / Table 7.2): per function, its conditional branches,
the analyzable ones (a scalar compared with a constant: ``branch_compare``), those with some
correlated path (a TRUE or FALSE answer) found intraprocedurally (calls opaque: no summaries, no
callers, the thesis' baseline) and interprocedurally, the fully correlated ones (no UNDEF), and
the node-query pairs spent (``correlation_cost``).

``datalog/correlation.dl`` needs every function of a module in one run (queries cross calls),
so it runs once per module here, outside the per-function batches and their cache (a function's
answers depend on its callers and callees).
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Iterable

from facts_gen.extract import extract_module
from facts_gen.naming import function_id
from pylogic.analysis import catalog
from pylogic.engines import run_checked
from pylogic.errors import PathlogicError
from pylogic.ir.model import CondBr, Module

OUTPUTS = ["correlation", "correlation_cost"]
COLUMNS = ("conditional", "analyzable", "correlated_intra", "correlated_inter", "full_intra",
           "full_inter", "pairs")


def _inputs() -> frozenset[str]:
    """The input relations the statistics read: the correlation program's, and ``branch_compare``."""
    return catalog.inputs_read(OUTPUTS) | {"branch_compare", "function"}


def intraprocedural(facts: dict) -> dict:
    """``facts`` with calls opaque: no call targets (so no summaries and no callers) and every
    function entered from outside (a parameter is UNDEF at the entry)."""
    out = dict(facts)
    for rel in ("call_target", "call_arg", "call_result"):
        out[rel] = []
    out["external_entry"] = [(f,) for (f,) in facts["function"]]
    return out


def _answers(facts: dict, engine: str) -> tuple[dict, Counter]:
    rows = run_checked(catalog.get("correlation").program(), None, engine, facts, only=OUTPUTS)
    answers: dict = {}
    for f, i, a in rows["correlation"]:
        answers.setdefault((f, i), set()).add(a)
    return answers, Counter({(r[0], r[1]): int(r[2]) for r in rows["correlation_cost"]})


def module_statistics(module: Module, relpath: str, engine: str = "auto") -> list[dict]:
    """One dict per defined function of ``module`` (keys ``function`` and ``COLUMNS``)."""
    facts = extract_module(module, relpath, relations=_inputs())
    inter, cost = _answers(facts, engine)
    intra, _ = _answers(intraprocedural(facts), engine)
    out = []
    for fn in module.defined_functions():
        f = function_id(relpath, fn.name)
        mine = [row[1] for row in facts["branch_compare"] if row[0] == f]

        def some(ans):
            return sum(1 for i in mine if ans.get((f, i), set()) & {"TRUE", "FALSE"})

        def full(ans):
            return sum(1 for i in mine if ans.get((f, i)) and "UNDEF" not in ans[(f, i)])
        out.append({"function": f,
                    "conditional": sum(1 for b in fn.blocks if b.instrs
                                       and isinstance(b.instrs[-1], CondBr)),
                    "analyzable": len(mine), "correlated_intra": some(intra),
                    "correlated_inter": some(inter), "full_intra": full(intra),
                    "full_inter": full(inter), "pairs": sum(cost[(f, i)] for i in mine)})
    return out


def correlation_rows(programs: Iterable[tuple[Module, str]], engine: str,
                     failures: list[str]) -> tuple[list[dict], float]:
    """Statistics of every ``(module, relpath)``; a module whose run fails is recorded in
    ``failures`` and left out. Returns (rows, seconds)."""
    t0 = time.perf_counter()
    rows: list[dict] = []
    for module, relpath in programs:
        try:
            rows.extend(module_statistics(module, relpath, engine))
        except PathlogicError as exc:
            failures.append(f"{relpath}: correlation failed: {exc}")
    return rows, time.perf_counter() - t0


def totals(rows: list[dict]) -> dict:
    return {k: sum(r[k] for r in rows) for k in COLUMNS}
