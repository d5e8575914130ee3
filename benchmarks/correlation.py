"""Cost and yield of the branch-correlation analysis (datalog/correlation.dl, issue #15) as
programs grow, with and without the budget; writes runs/correlation.json.

    python -m benchmarks.correlation [--csmith 1-20] [--budgets 0,1,4,64] [--engine clingo]

Per program (csmith seeds, small options, prepared as benchmarks/optimize.py prepares them;
sorted by size): conditional branches, analyzable ones (scalar relop constant: branch_compare),
correlated ones (some TRUE or FALSE answer) and fully correlated ones (no UNDEF), the node-query
pairs spent (correlation_cost: pending queries of branch contexts; summary work not counted) and
the engine's wall time -- interprocedurally at each budget (entry -> caller crossings), and
intraprocedurally (calls opaque: no summaries, no callers; the thesis' baseline of §7.5).
The budget of this Datalog form bounds caller crossings, not visited nodes (spec §10.3), so its
effect differs from the thesis' 10x; the record says what it measured.
"""
from __future__ import annotations

import argparse
import time

from benchmarks.common import write_run
from benchmarks.corpus import FLOAT_IR, csmith_program
from benchmarks.optimize import DEFAULT_WORKDIR, PREPARE_FLAGS, parse_range
from facts_gen.extract import extract_module
from pylogic.analysis import catalog
from pylogic.analysis.correlation_stats import intraprocedural
from pylogic.engines import run_checked
from pylogic.errors import PathlogicError
from pylogic.interp.conditionals import conditional_blocks
from pylogic.ir.llvm.clang import prepare_c
from pylogic.ir.llvm.importer import import_llvm

OUTPUTS = ["correlation", "correlation_cost"]


def measure(facts: dict, engine: str) -> dict:
    program = catalog.get("correlation").program()
    t0 = time.perf_counter()
    rows = run_checked(program, None, engine, facts, only=OUTPUTS)
    seconds = time.perf_counter() - t0
    answers: dict = {}
    for f, i, a in rows["correlation"]:
        answers.setdefault((f, i), set()).add(a)
    return {"seconds": round(seconds, 3),
            "correlated": sum(1 for s in answers.values() if s & {"TRUE", "FALSE"}),
            "fully_correlated": sum(1 for s in answers.values() if s and "UNDEF" not in s),
            "node_query_pairs": sum(int(r[2]) for r in rows["correlation_cost"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--csmith", default="1-20")
    ap.add_argument("--budgets", default="0,1,4,64")
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--out", default="correlation.json")
    a = ap.parse_args(argv)
    budgets = [int(b) for b in a.budgets.split(",")]
    programs = []
    for seed in parse_range(a.csmith):
        path = csmith_program(seed, a.workdir)
        try:
            ll = prepare_c(path, PREPARE_FLAGS)
            if FLOAT_IR.search(ll):
                continue
            module, _ = import_llvm(ll, path)
        except PathlogicError as exc:
            print(f"csmith-{seed}: {exc}")
            continue
        facts = extract_module(module, f"csmith-{seed}.c")
        size = sum(len(b.instrs) for fn in module.defined_functions() for b in fn.blocks)
        rec = {"program": f"csmith-{seed}.c", "instructions": size,
               "functions": len(module.defined_functions()),
               "conditional_branches": len(conditional_blocks(module)),
               "analyzable": len(facts["branch_compare"]),
               "intraprocedural": measure(intraprocedural(facts), a.engine), "budgets": {}}
        for b in budgets:
            mine = dict(facts)
            mine["correlation_budget"] = [(f, b) for f, _ in facts["correlation_budget"]]
            rec["budgets"][str(b)] = measure(mine, a.engine)
        programs.append(rec)
        inter = rec["budgets"][str(budgets[-1])]
        print(f"{rec['program']}: {size} instrs, {rec['conditional_branches']} cbr, "
              f"{rec['analyzable']} analyzable, correlated intra {rec['intraprocedural']['correlated']}"
              f" / inter {inter['correlated']}, pairs {inter['node_query_pairs']}, "
              f"{inter['seconds']} s", flush=True)
    programs.sort(key=lambda r: r["instructions"])
    total = {"conditional_branches": sum(r["conditional_branches"] for r in programs),
             "analyzable": sum(r["analyzable"] for r in programs),
             "intraprocedural": {k: sum(r["intraprocedural"][k] for r in programs)
                                 for k in ("correlated", "fully_correlated", "node_query_pairs", "seconds")},
             "budgets": {str(b): {k: round(sum(r["budgets"][str(b)][k] for r in programs), 3)
                                  for k in ("correlated", "fully_correlated", "node_query_pairs", "seconds")}
                         for b in budgets}}
    path = write_run(a.out, {"engine": a.engine, "csmith": a.csmith, "budgets": budgets,
                             "note": "timings taken with other jobs on the 2-core machine",
                             "totals": total, "programs": programs})
    print(f"totals: {total}\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
