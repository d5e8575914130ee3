"""Run the shipped Datalog analyses over extracted facts, one function at a time (so each
function gets its own analysis time and ``--jobs`` can spread functions over processes)."""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

DATALOG_DIR = Path(__file__).resolve().parent.parent / "datalog"
CFG_PROGRAM = DATALOG_DIR / "cfg_analyses.dl"
#: Input relations whose first column is a file, not a function (not split per function).
MODULE_RELATIONS = ("global_var", "extern_function")


@dataclass
class FunctionResult:
    function: str
    results: dict[str, list[tuple]] = field(default_factory=dict)
    seconds: float | None = 0.0  # None: not measured per function (batched run)
    error: str | None = None


def split_by_function(facts: dict[str, list[tuple]]) -> dict[str, dict[str, list[tuple]]]:
    """Per-function facts: every relation's rows whose first column is that function."""
    per: dict[str, dict[str, list[tuple]]] = {row[0]: {} for row in facts.get("function", ())}
    for name, rows in facts.items():
        if name in MODULE_RELATIONS:
            continue
        for f in per:
            per[f].setdefault(name, [])
        for row in rows:
            bucket = per.get(row[0])
            if bucket is not None:
                bucket[name].append(row)
    return per


def _run_one(args) -> FunctionResult:
    program, engine, f, facts = args
    from pylogic.engines import load_program_cached, run_checked
    from pylogic.errors import PathlogicError
    start = time.perf_counter()
    try:
        rows = run_checked(load_program_cached(program), None, engine, facts)
    except PathlogicError as exc:
        return FunctionResult(f, {}, time.perf_counter() - start, str(exc))
    return FunctionResult(f, rows, time.perf_counter() - start)


def run_batched(facts: dict[str, list[tuple]], program: Path, engine: str,
                jobs: int) -> list[FunctionResult]:
    """One engine run over every function (for souffle, where a process per function would
    cost more than the analyses); per-function time is unknown (None)."""
    from pylogic.engines import load_program_cached, run_checked
    from pylogic.errors import PathlogicError
    functions = sorted(row[0] for row in facts.get("function", ()))
    try:
        rows = run_checked(load_program_cached(program), None, engine,
                           {k: v for k, v in facts.items() if k not in MODULE_RELATIONS},
                           jobs=jobs if jobs > 1 else None)
    except PathlogicError as exc:
        return [FunctionResult(f, {}, None, str(exc)) for f in functions]
    per: dict[str, dict[str, list[tuple]]] = {f: {name: [] for name in rows} for f in functions}
    for name, rel_rows in rows.items():
        for row in rel_rows:
            per[row[0]][name].append(row)
    return [FunctionResult(f, per[f], None) for f in functions]


def run_per_function(facts: dict[str, list[tuple]], program: Path = CFG_PROGRAM,
                     engine: str = "clingo", jobs: int = 1, progress=None) -> list[FunctionResult]:
    """Run ``program`` on each function's facts; results in function order.

    ``progress(done, total)`` is called as functions finish. On souffle, one batched run.
    """
    if engine == "souffle":
        return run_batched(facts, program, engine, jobs)
    from pylogic.engines import load_program_cached
    load_program_cached(program)  # parse once, outside the per-function timings
    per = split_by_function(facts)
    work = [(str(program), engine, f, per[f]) for f in sorted(per)]
    results: list[FunctionResult] = []
    if jobs <= 1 or len(work) <= 1:
        for k, item in enumerate(work):
            results.append(_run_one(item))
            if progress:
                progress(k + 1, len(work))
        return results
    jobs = min(jobs, os.cpu_count() or 1, len(work))
    with ProcessPoolExecutor(max_workers=jobs, initializer=load_program_cached,
                             initargs=(str(program),)) as pool:
        for k, res in enumerate(pool.map(_run_one, work, chunksize=max(1, len(work) // (8 * jobs)))):
            results.append(res)
            if progress:
                progress(k + 1, len(work))
    return results


def merge_results(results: list[FunctionResult]) -> dict[str, list[tuple]]:
    """All functions' rows per output relation, sorted."""
    merged: dict[str, list[tuple]] = {}
    for res in results:
        for name, rows in res.results.items():
            merged.setdefault(name, []).extend(rows)
    return {name: sorted(rows) for name, rows in merged.items()}
