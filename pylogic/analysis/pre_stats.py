"""PRE statistics of functions (``pathlogic analyze --pre``; issue #14 item 4): the quantities of
PathFinder Table 6.1 (§6.6), counted from the rows of ``datalog/pre_statistics.dl``.

Per function: ``computations``, the static computations of expressions and loads (every
instruction that computes one, ``flow.value_names.expression_of``; copies, calls and stores
compute none); ``loads`` of them; ``redundant``, those that reuse a value along some path
(Table 6.1 "optimizable", Def 6.1), of which ``strictly_partial`` are partially but not fully
redundant; ``prevented``, redundant ones whose complete optimization by code motion a CMP region
prevents ("prevented-CMP"); ``loop_invariant``, computations invariant in an enclosing loop
("loop invar"); ``invariant_prevented``, loop invariants that cannot be hoisted from all of their
invariant loops by motion ("invar-prevent"). The thesis' SPEC95 averages (pathfinder.md §12.1)
are ``THESIS``; ``percentages`` puts ours in the same terms.
"""
from __future__ import annotations

import time
from typing import Iterable, Optional

from facts_gen.naming import function_id
from pylogic.flow.value_names import expression_of, is_load
from pylogic.analysis.budget import DEFAULT_FUNCTION_TIMEOUT
from pylogic.analysis.cache import NO_CACHE, Cache
from pylogic.analysis.run import AnalysisRun, run_analyses
from pylogic.ir.model import Function, Module

ANALYSIS = "pre_statistics"
OUTPUTS = ("pre_stat_redundant", "pre_stat_cmp_prevented", "pre_stat_loop_invariant",
           "pre_stat_invariant_prevented")
COLUMNS = ("computations", "loads", "redundant", "strictly_partial", "prevented",
           "loop_invariant", "invariant_prevented")
#: Table 6.1, "Avg spec95" (lexical arithmetic only; pathfinder.md §12.1): percent.
THESIS = {"redundant_of_computations": 13.9, "prevented_of_redundant": 30.5,
          "loop_invariant_of_redundant": 11.3, "invariant_prevented_of_loop_invariant": 72.5}


def static_computations(fn: Function) -> tuple[int, int]:
    """``(computations, loads)``: instructions of ``fn`` that compute an expression or a load."""
    found = [expression_of(i) for b in fn.blocks for i in b.instrs]
    found = [x for x in found if x is not None]
    return len(found), sum(1 for x in found if is_load(x[1]))


def function_statistics(fn: Function, fid: str, view) -> dict:
    """One function's row from its ``pre_statistics`` rows (``view[relation]``, function column
    dropped)."""
    computations, loads = static_computations(fn)
    redundant = {i: kind for i, _, kind in view["pre_stat_redundant"]}
    return {"function": fid, "computations": computations, "loads": loads,
            "redundant": len(redundant),
            "strictly_partial": sum(1 for k in redundant.values() if k == "may"),
            "prevented": len({i for i, _ in view["pre_stat_cmp_prevented"]}),
            "loop_invariant": len({i for i, _, _ in view["pre_stat_loop_invariant"]}),
            "invariant_prevented": len({i for i, _ in view["pre_stat_invariant_prevented"]})}


def pre_rows(programs: Iterable[tuple[Module, str]], run: AnalysisRun, engine: str,
             failures: list[str], *, jobs: int = 1,
             timeout: Optional[float] = DEFAULT_FUNCTION_TIMEOUT, cache: Cache = NO_CACHE,
             keep=None) -> tuple[list[dict], float]:
    """Statistics of every function ``run`` has facts for (the facts extracted once by
    ``analyze``), one engine call per batch as ``run_analyses`` makes them; a function whose run
    fails is recorded in ``failures`` and left out. Returns (rows, seconds)."""
    t0 = time.perf_counter()
    have = {row[0] for row in run.facts.get("function", ())}
    functions = []
    for module, relpath in programs:
        for fn in module.defined_functions():
            fid = function_id(relpath, fn.name)
            if fid in have and (keep is None or keep(fid)):
                functions.append((fid, fn))
    if not functions:
        return [], time.perf_counter() - t0
    stats = run_analyses(run.facts, {(ANALYSIS,): [f for f, _ in functions]}, engine, jobs,
                         OUTPUTS, timeout=timeout, cache=cache)
    rows = []
    for fid, fn in functions:
        if fid in stats.failures:
            failures.append(f"{fid}: pre statistics failed: {stats.failures[fid]}")
            continue
        rows.append(function_statistics(fn, fid, stats.rows.of(fid)))
    return rows, time.perf_counter() - t0


def totals(rows: list[dict]) -> dict:
    return {k: sum(r[k] for r in rows) for k in COLUMNS}


def _percent(part: int, whole: int) -> Optional[float]:
    return round(100.0 * part / whole, 1) if whole else None


def percentages(total: dict) -> dict:
    """Ours in the terms of ``THESIS``."""
    return {"redundant_of_computations": _percent(total["redundant"], total["computations"]),
            "prevented_of_redundant": _percent(total["prevented"], total["redundant"]),
            "loop_invariant_of_redundant": _percent(total["loop_invariant"], total["redundant"]),
            "invariant_prevented_of_loop_invariant": _percent(total["invariant_prevented"],
                                                              total["loop_invariant"])}


def summary(rows: list[dict]) -> dict:
    """What ``summary.json`` records: per function, the totals, ours and the thesis' percent."""
    total = totals(rows)
    return {"functions": rows, "totals": total, "percent": percentages(total), "thesis": THESIS}
