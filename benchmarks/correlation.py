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

``--chains 8,16,32,64`` adds synthetic programs where queries travel far (the csmith programs
spend most of the engine's time on fixed costs, a few thousand node-query pairs in all): a call
chain f0 -> f1 -> ... -> f(N-1), each f_k testing (p gt k) on its parameter behind ``--filler``
instructions, so the true edge of each caller's test leaves the query open and it climbs to main,
which calls f0 with an unknown and with a constant; ``--engines clingo,souffle`` measures each
program on every engine named (with the same rows, checked). ``--diamonds 16,32,64,128`` adds one
long function of N diamonds, the k-th testing (p gt k), whose queries climb every earlier diamond
inside the function: the crossing budget cannot bound that, the window (``--windows``: blocks
around the branch in reverse postorder, ``correlation_window``) does.
"""
from __future__ import annotations

import argparse
import time

from benchmarks.common import command_line, write_run
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
from pylogic.ir.parser import parse_module

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
            "node_query_pairs": sum(int(r[2]) for r in rows["correlation_cost"]),
            "answers": len(rows["correlation"])}


def chain_module(depth: int, filler: int):
    """The synthetic call chain of the module doc."""
    text = []
    for k in range(depth):
        body = "".join("    y = add y, 1\n" for _ in range(filler))
        call = f"    r = call f{k + 1}(p)\n    ret r\n" if k + 1 < depth else "    ret p\n"
        text.append(f"func f{k}(p) {{\nentry:\n{body}    t = cmp.gt p, {k}\n    cbr t, a, b\n"
                    f"a:\n    br m\nb:\n    br m\nm:\n{call}}}\n")
    text.append("func main(x) {\nentry:\n    r = call f0(x)\n    s = call f0(1000)\n    ret r\n}\n")
    return parse_module("".join(text))


def measure_chains(depths: list[int], filler: int, budgets: list[int], engines: list[str]) -> list[dict]:
    out = []
    for n in depths:
        module = chain_module(n, filler)
        facts = extract_module(module, f"chain-{n}.pir")
        rec = {"program": f"chain-{n}", "functions": n + 1,
               "instructions": sum(len(b.instrs) for fn in module.defined_functions() for b in fn.blocks),
               "engines": {}}
        for engine in engines:
            rec["engines"][engine] = {}
            for b in budgets + [n + 1]:
                mine = dict(facts)
                mine["correlation_budget"] = [(f, b) for f, _ in facts["correlation_budget"]]
                key = "unbounded" if b == n + 1 else str(b)
                rec["engines"][engine][key] = measure(mine, engine)
        base = {k: (v["correlated"], v["fully_correlated"], v["node_query_pairs"], v["answers"])
                for k, v in rec["engines"][engines[0]].items()}
        for engine in engines[1:]:
            other = {k: (v["correlated"], v["fully_correlated"], v["node_query_pairs"], v["answers"])
                     for k, v in rec["engines"][engine].items()}
            assert other == base, (n, engine, other, base)
        out.append(rec)
        print(rec["program"], {e: {k: (v["node_query_pairs"], v["answers"], v["seconds"])
                                   for k, v in r.items()} for e, r in rec["engines"].items()}, flush=True)
    return out


def diamond_module(n: int):
    lines = ["func main(p) {", "entry:", "    br d0"]
    for k in range(n):
        lines += [f"d{k}:", f"    t = cmp.gt p, {k}", f"    cbr t, a{k}, b{k}", f"a{k}:", "    print 1",
                  f"    br d{k + 1}", f"b{k}:", "    print 0", f"    br d{k + 1}"]
    lines += [f"d{n}:", "    ret 0", "}"]
    return parse_module("\n".join(lines) + "\n")


def measure_diamonds(sizes: list[int], windows: list[int], engines: list[str]) -> list[dict]:
    out = []
    for n in sizes:
        facts = extract_module(diamond_module(n), f"diamonds-{n}.pir")
        rec = {"program": f"diamonds-{n}", "blocks": 3 * n + 2, "engines": {}}
        for engine in engines:
            rec["engines"][engine] = {}
            for w in windows + [None]:
                mine = dict(facts)
                if w is not None:
                    mine["correlation_window"] = [(f, w) for f, _ in facts["correlation_window"]]
                rec["engines"][engine]["unbounded" if w is None else str(w)] = measure(mine, engine)
        first = rec["engines"][engines[0]]
        for engine in engines[1:]:
            assert {k: (v["node_query_pairs"], v["answers"]) for k, v in rec["engines"][engine].items()} \
                == {k: (v["node_query_pairs"], v["answers"]) for k, v in first.items()}, (n, engine)
        out.append(rec)
        print(rec["program"], {e: {k: (v["node_query_pairs"], v["answers"], v["seconds"])
                                   for k, v in r.items()} for e, r in rec["engines"].items()}, flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--csmith", default="1-20")
    ap.add_argument("--budgets", default="0,1,4,64")
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--out", default="correlation.json")
    ap.add_argument("--chains", default="", help="synthetic call-chain depths, e.g. 8,16,32,64")
    ap.add_argument("--filler", type=int, default=20)
    ap.add_argument("--engines", default="", help="engines for the chains (default --engine)")
    ap.add_argument("--diamonds", default="", help="long-function sizes, e.g. 16,32,64,128")
    ap.add_argument("--windows", default="4,16")
    a = ap.parse_args(argv)
    budgets = [int(b) for b in a.budgets.split(",")]
    chains = []
    if a.chains:
        chains = measure_chains([int(n) for n in a.chains.split(",")], a.filler, budgets,
                                (a.engines or a.engine).split(","))
    diamonds = []
    if a.diamonds:
        diamonds = measure_diamonds([int(n) for n in a.diamonds.split(",")],
                                    [int(w) for w in a.windows.split(",")],
                                    (a.engines or a.engine).split(","))
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
                                 for k in ("correlated", "fully_correlated", "node_query_pairs", "answers", "seconds")},
             "budgets": {str(b): {k: round(sum(r["budgets"][str(b)][k] for r in programs), 3)
                                  for k in ("correlated", "fully_correlated", "node_query_pairs",
                                            "answers", "seconds")}
                         for b in budgets}}
    path = write_run(a.out, {"command": command_line("benchmarks.correlation", argv),
                             "engine": a.engine, "csmith": a.csmith, "budgets": budgets,
                             "note": "timings taken with other jobs on the 2-core machine",
                             "totals": total, "programs": programs,
                             "chains": chains, "chain_filler": a.filler, "diamonds": diamonds})
    print(f"totals: {total}\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
