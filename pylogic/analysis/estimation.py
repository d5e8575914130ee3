"""Profile estimators on a program (PathFinder ch. 5; issue #31 item 1): for every expression of
every function, the bounds each estimator (``flow.estimators``) gives from the interpreter's edge
profile, beside the exact reuse of the run's block paths (``interp.paths``) and the evaluations
the complete PRE pipeline really removes when its output runs on the same input.

Reuse inside a block (``pre_local_reuse``: a computation after one of the same expression in its
own block, nothing between that may change it) is certain, so it is counted apart (``local``):
the thesis' nodes are statements, where such reuse is part of the definite component; here it is
added to the exact value and to both bounds of every estimator.

The same bounds over load expressions alone (``loads``; ``load_estimate`` from given runs' edge
profiles, with no run of its own) are what the analysis captures of the ideal load reuse of
``interp.reuse`` (PathFinder §8.3; ``benchmarks/limit.py``).

Blocks are the estimators' nodes, so a module with side exits (a branch before a block's last
instruction: after if-conversion) is not estimated (``EstimationError``), as
``analysis.evaluations`` does not count it.

Example
-------
>>> report = program_estimates(load_module("examples/loop_call.pir"))     # doctest: +SKIP
>>> report["estimators"]["CMPr"]                                           # doctest: +SKIP
{'lower': 120, 'upper': 120, 'error': 0.0}
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Optional

from facts_gen.naming import instr_block
from pylogic.errors import PathlogicError
from pylogic.flow.estimators import ENTRY, ESTIMATORS, Bounds, ValueFlow, exact_reuse
from pylogic.flow.value_names import is_load
from pylogic.interp.defaults import DEFAULT_FUEL
from pylogic.ir.model import Module, branch_targets

#: The rows the estimators read (``datalog/pre.dl``).
RELATIONS = ("pre_avail_in", "pre_avail_out", "pre_antic_in", "pre_antloc", "pre_comp",
             "pre_kills", "pre_local_reuse")
#: The complete PRE pipeline whose real saving is measured (PRE(MR): restructuring + motion).
PIPELINE = ("pre-mr",)


class EstimationError(PathlogicError):
    """The program cannot be estimated (side exits, or a run that did not finish)."""


def value_flows(fn, view, profile: dict, calls: int) -> dict:
    """``{expression: ValueFlow}`` of function ``fn`` from its ``RELATIONS`` rows (``view``) and
    the edge ``profile`` ``{(function, from, to): count}``; ``calls``: times it was entered."""
    edges = {(a, b): profile.get((fn.name, a, b), 0) for a, b in fn.edges()}
    edges[(ENTRY, fn.blocks[0].label)] = calls
    sets = defaultdict(lambda: {"avail_in": {}, "avail_out": {}, "antic_in": {},
                                "users": set(), "generators": set(), "kills": set()})
    for name in ("avail_in", "avail_out", "antic_in"):
        for b, e, state in view[f"pre_{name}"]:
            sets[e][name][b] = state
    for rel, key in (("pre_antloc", "users"), ("pre_comp", "generators"),
                     ("pre_kills", "kills")):
        for b, e in view[rel]:
            sets[e][key].add(b)
    return {e: ValueFlow(dict(edges), s["avail_in"], s["avail_out"], s["antic_in"],
                         s["users"], s["generators"], s["kills"])
            for e, s in sets.items() if s["users"]}


def _side_exits(module: Module) -> bool:
    return any(branch_targets(i) for fn in module.defined_functions() for b in fn.blocks
               for i in b.instrs[:-1])


def _check_estimable(module: Module, relpath: Optional[str]) -> None:
    if _side_exits(module):
        raise EstimationError(f"{relpath or module.path}: blocks with side exits (hyperblocks) "
                              "have no block-level value flow to estimate")


def program_estimates(module: Module, relpath: Optional[str] = None, *, entry: str = "main",
                      args: Iterable[int] = (), inputs: Iterable[int] = (),
                      engine: str = "auto", measure_pre: bool = True,
                      fuel: int = DEFAULT_FUEL, run: Optional[tuple] = None) -> dict:
    """Per estimator the summed bounds and relative error, the exact reuse, the dynamic
    evaluations (expressions and loads, ``analysis.evaluations``: what the reuse is a share of),
    and (``measure_pre``) the evaluations PRE(MR) removes when run on the same input; per
    function the same by expression. ``run``: ``(result, paths)`` of ``run_with_paths`` on the
    same entry and input, when the caller already ran it (one run gives both the edge profile
    and the exact paths; otherwise this runs it). Raises ``EstimationError`` when the module has
    side exits or its run failed."""
    from pylogic.analysis.evaluations import expression_evaluations
    from pylogic.analysis.run import module_rows
    from pylogic.interp.paths import run_with_paths
    _check_estimable(module, relpath)
    args, inputs = list(args), list(inputs)
    result, paths = run if run is not None else run_with_paths(module, entry, args, inputs, fuel)
    if result.error is not None:
        raise EstimationError(f"{relpath or module.path}: the profiling run failed: "
                              f"{result.error}")
    rows = module_rows(module, relpath, relations=RELATIONS, engine=engine)
    totals = {name: Bounds(0, 0) for name in ESTIMATORS}
    load_totals = {name: Bounds(0, 0) for name in ESTIMATORS}
    exact_total = local_total = 0
    functions = []
    for fn in module.defined_functions():
        runs = paths.get(fn.name, [])
        if not runs:
            continue
        view = rows.function(fn.name)
        flows = value_flows(fn, view, result.edge_profile, len(runs))
        walks = [(ENTRY,) + p for p in runs]
        per_fn = {name: Bounds(0, 0) for name in ESTIMATORS}
        exact_fn = 0
        for expr, flow in flows.items():
            exact = exact_reuse(walks, flow.users, flow.generators, flow.kills)
            exact_fn += exact
            for name, estimator in ESTIMATORS.items():
                bounds = estimator(flow)
                if not bounds.contains(exact):      # a bug, never a result: say so loudly
                    raise AssertionError(f"{fn.name}: {name} bounds {bounds} exclude the exact "
                                         f"reuse {exact}")
                per_fn[name] = per_fn[name] + bounds
                if is_load(expr):
                    load_totals[name] = load_totals[name] + bounds
        local = _local_reuse(fn, view, result)
        local_loads = _local_reuse(fn, view, result, loads_only=True)
        load_totals = {n: b + Bounds(local_loads, local_loads) for n, b in load_totals.items()}
        per_fn = {n: b + Bounds(local, local) for n, b in per_fn.items()}
        for name in ESTIMATORS:
            totals[name] = totals[name] + per_fn[name]
        exact_total += exact_fn + local
        local_total += local
        functions.append({"function": fn.name, "expressions": len(flows),
                          "exact": exact_fn + local, "local": local,
                          "estimators": {n: _bounds(b) for n, b in per_fn.items()}})
    evaluations = expression_evaluations(module, result)
    report = {"exact": exact_total, "local": local_total,
              "estimators": {n: _bounds(b) for n, b in totals.items()},
              "loads": {n: _bounds(b) for n, b in load_totals.items()},
              "functions": functions, "instructions": result.counts.get("instructions"),
              "evaluations": evaluations}
    if measure_pre:
        report["pre_removed"] = _pre_removed(module, relpath, result, evaluations, entry, args,
                                             inputs, engine, fuel)
    return report


def entries(fn, result) -> int:
    """Times function ``fn`` was entered in ``result`` (a profiled run): its first block's count
    less the taken edges into that block (a loop may come back to it)."""
    first = fn.blocks[0].label
    return (result.block_profile.get((fn.name, first), 0)
            - sum(result.edge_profile.get((fn.name, a, b), 0) for a, b in fn.edges() if b == first))


def _local_reuse(fn, view, result, loads_only: bool = False) -> int:
    """Dynamic computations reusing a value of their own block (``pre_local_reuse``)."""
    return sum(result.block_profile.get((fn.name, instr_block(i)), 0)
               for i, e in view["pre_local_reuse"] if not loads_only or is_load(e))


def load_estimate(module: Module, results: Iterable, relpath: Optional[str] = None, *,
                  estimator: str = "CMPr", engine: str = "auto") -> dict:
    """The bounds ``estimator`` gives of the dynamic loads the analysis finds reusable (load
    expressions only, reuse inside blocks added to both bounds, as in ``program_estimates``),
    from the edge profiles of ``results`` (profiled runs of ``module``, each one's bounds
    summed): one analysis, no run. ``{"lower", "upper", "average"}`` (PathFinder §8.3: the
    average of the CMP^r bounds is what the analysis captures). Raises ``EstimationError`` on
    side exits or a failed run."""
    from pylogic.analysis.run import module_rows
    _check_estimable(module, relpath)
    results = list(results)
    if any(r.error is not None for r in results):
        raise EstimationError(f"{relpath or module.path}: a profiled run failed")
    rows = module_rows(module, relpath, relations=RELATIONS, engine=engine)
    estimate = ESTIMATORS[estimator]
    total = Bounds(0, 0)
    for fn in module.defined_functions():
        view = None
        for result in results:
            calls = entries(fn, result)
            if not calls:
                continue
            view = view if view is not None else rows.function(fn.name)
            for expr, flow in value_flows(fn, view, result.edge_profile, calls).items():
                if is_load(expr):
                    total = total + estimate(flow)
            local = _local_reuse(fn, view, result, loads_only=True)
            total = total + Bounds(local, local)
    return {"lower": total.lower, "upper": total.upper, "average": (total.lower + total.upper) / 2}


def _bounds(b: Bounds) -> dict:
    error = b.error
    return {"lower": b.lower, "upper": b.upper,
            "error": None if error is None else round(error, 4)}


def _pre_removed(module, relpath, before, old_n, entry, args, inputs, engine,
                 fuel) -> Optional[dict]:
    """Evaluations (expressions, loads) PRE(MR) removes on the profiling input (``before``, whose
    evaluations are ``old_n``), or None when its output cannot be counted (side exits) or does
    not run the same way. One run: the transformed module's."""
    from pylogic.analysis.evaluations import expression_evaluations
    from pylogic.analysis.passes import run_pass
    from pylogic.interp.machine import run_module
    new = module
    for name in PIPELINE:
        new, _ = run_pass(name, new, relpath, engine=engine)
    after = run_module(new, entry, args, inputs, fuel)
    if after.error is not None or after.observable() != before.observable():
        return None
    new_n = expression_evaluations(new, after)
    if old_n is None or new_n is None:
        return None
    return {k: old_n[k] - new_n[k] for k in old_n}
