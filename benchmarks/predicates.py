"""Benchmark of PAS predicate analysis (pas.md §5.2): build time, node counts, query throughput.

Generates if-converted hyperblocks (nested if-then-else over a few registers, so condition
families form, plus or-type joins), from 10 to 2,000 predicate defines, and measures:
BDD build time and nodes with and without condition families, BDD query throughput over
sampled predicate pairs (subset, superset, disjointness, as in PAS), and the same queries on SAT.
The CFG structure PAS reads (``PAS_RELATIONS``) comes from one ``module_rows`` call per function,
timed apart (``rows_s``, not part of the build times).
Writes runs/bench-predicates.json and prints a table. Paper: 1,177,491 queries in 3.8 s
(≈3.2 µs/query) on a 400 MHz HP 9000/785.

Usage: python benchmarks/predicates.py [--sizes 10,30,...] [--out runs/bench-predicates.json]
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks.common import command_line, growth_exponent  # noqa: E402
from pylogic.analysis.run import module_rows  # noqa: E402
from pylogic.ir.model import (  # noqa: E402
    Block, Function, Imm, Module, Print, PredDefine, PredDest, Reg, Ret,
)
from pylogic.predicates.pas import PAS_RELATIONS, PredicateAnalysis  # noqa: E402
from pylogic.predicates.sat_check import SatChecker  # noqa: E402
from pylogic.report.table import StreamTable  # noqa: E402

RELS = ("lt", "le", "gt", "ge", "eq", "ne")


def if_converted(n_defines: int, seed: int = 1, n_regs: int = 8) -> Function:
    """A hyperblock as if-conversion of nested if-then-else would produce (ut/uf splits, ot joins)."""
    rng = random.Random(seed)
    instrs, count, pid = [], 0, 0
    work = [("p0", 0)]
    while count < n_defines:
        if not work:
            work = [("p0", 0)]
        guard, depth = work.pop(rng.randrange(len(work)) if rng.random() < 0.3 else -1)
        reg = f"r{rng.randrange(n_regs) + 1}"
        a, b = f"q{pid}", f"q{pid + 1}"
        pid += 2
        instrs.append(PredDefine(guard=None if guard == "p0" else guard, rel=rng.choice(RELS),
                                 dests=(PredDest(a, "ut"), PredDest(b, "uf")),
                                 a=Reg(reg), b=Imm(rng.randrange(-20, 21))))
        instrs.append(Print(guard=a, value=Imm(count)))
        count += 1
        if rng.random() < 0.15 and count < n_defines:   # join: or-type define of a merge predicate
            j = f"q{pid}"
            pid += 1
            instrs.append(PredDefine(rel="eq", dests=(PredDest(j, "uf"),), a=Imm(0), b=Imm(0)))
            instrs.append(PredDefine(guard=a, rel="eq", dests=(PredDest(j, "ot"),), a=Imm(0), b=Imm(0)))
            instrs.append(PredDefine(guard=b, rel=rng.choice(RELS), dests=(PredDest(j, "ot"),),
                                     a=Reg(reg), b=Imm(rng.randrange(-20, 21))))
            count += 3
            work.append((j, depth + 1))
        if depth < 12:
            work += [(a, depth + 1), (b, depth + 1)]
    instrs.append(Ret())
    return Function(name=f"gen{n_defines}", params=tuple(f"r{i + 1}" for i in range(n_regs)),
                    blocks=(Block(label="entry", instrs=tuple(instrs), hyperblock=True),))


def measure(n: int, pairs: int, sat_pairs: int) -> dict:
    f = if_converted(n)
    t0 = time.perf_counter()
    rows = module_rows(Module(functions=(f,), path="bench.pir"), "bench.pir",
                       relations=PAS_RELATIONS).of(f"bench.pir::{f.name}")
    row = {"defines": n, "rows_s": round(time.perf_counter() - t0, 4)}
    for mode in ("family", "basic"):
        pa = PredicateAnalysis(f, rows, mode=mode)
        s = pa.stats()
        row[f"{mode}_build_s"] = round(pa.build_seconds, 4)
        row[f"{mode}_predicate_nodes"] = s["predicate_nodes"]
        row[f"{mode}_manager_nodes"] = s["manager_nodes"]
        row[f"{mode}_bdd_vars"] = s["bdd_vars"]
        if mode == "family":
            row["families"] = s["families"]
            preds = [pa.value(p) for p in pa.predicates]
            rng = random.Random(n)
            sample = [(rng.choice(preds), rng.choice(preds)) for _ in range(pairs)]
            t0 = time.perf_counter()
            for a, b in sample:          # subset, superset, disjointness (PAS §6.2)
                pa.implies(a, b), pa.superset(a, b), pa.disjoint(a, b)
            dt = time.perf_counter() - t0
            row["bdd_queries"] = 3 * len(sample)
            row["bdd_queries_per_s"] = round(3 * len(sample) / dt)
            row["bdd_us_per_query"] = round(dt / (3 * len(sample)) * 1e6, 2)
            nids = [pa._node_id(p)[0] for p in pa.predicates]
            sat = SatChecker(pa.engine.nets, mode, layer=pa.engine.layer)
            sample = [(rng.choice(nids), rng.choice(nids)) for _ in range(sat_pairs)]
            t0 = time.perf_counter()
            agree = 0
            for a, b in sample:
                for q in ("implies", "disjoint"):
                    ans = sat.ask(q, [(0, a), (0, b)])
                    ua, ub = pa.engine.node(0, a), pa.engine.node(0, b)
                    agree += ans == getattr(pa, q)(ua, ub)
            dt = time.perf_counter() - t0
            row["sat_queries"] = 2 * len(sample)
            row["sat_queries_per_s"] = round(2 * len(sample) / dt)
            row["sat_agree"] = agree == 2 * len(sample)
            sat.close()
    row["family_basic_ratio"] = round(row["family_predicate_nodes"] /
                                      max(1, row["basic_predicate_nodes"]), 2)
    return row


def power_fit(xs, ys) -> dict | None:
    """ys ~ xs^k: the exponent (``common.growth_exponent``) and the fit's r²; None from one size."""
    k = growth_exponent(xs, ys)
    if k is None:
        return None
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    ss_res = sum((b - (my + k * (a - mx))) ** 2 for a, b in zip(lx, ly))
    ss_tot = sum((b - my) ** 2 for b in ly)
    return {"exponent": round(k, 3), "r2": round(1 - ss_res / ss_tot, 3) if ss_tot else 1.0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,30,100,300,1000,2000")
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--sat-pairs", type=int, default=1000)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "runs",
                                                  "bench-predicates.json"))
    args = ap.parse_args(argv)
    rows = []
    table = StreamTable(["defines", "fam nodes", "basic nodes", "ratio", "fam build s",
                         "basic build s", "BDD q/s", "us/q", "SAT q/s", "agree"],
                        [7, 9, 11, 5, 11, 13, 9, 6, 8, 0], "rrrrrrrrrl", sep=" ")
    print(table.header(), flush=True)
    for n in [int(x) for x in args.sizes.split(",")]:
        r = measure(n, args.pairs, args.sat_pairs)
        rows.append(r)
        print(table.row([n] + [r[k] for k in (
            "family_predicate_nodes", "basic_predicate_nodes", "family_basic_ratio",
            "family_build_s", "basic_build_s", "bdd_queries_per_s", "bdd_us_per_query",
            "sat_queries_per_s", "sat_agree")]), flush=True)
    result = {
        "benchmark": "predicates (PAS BDD vs SAT)",
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count()},
        "rows": rows,
        "fit_family_nodes_vs_defines": power_fit([r["defines"] for r in rows],
                                                 [r["family_predicate_nodes"] for r in rows]),
        "fit_basic_nodes_vs_defines": power_fit([r["defines"] for r in rows],
                                                [r["basic_predicate_nodes"] for r in rows]),
        "paper": {"queries": 1177491, "seconds": 3.8, "us_per_query": 3.2,
                  "machine": "HP 9000/785, 400 MHz"},
    }
    print("power fit nodes ~ defines^k: family", result["fit_family_nodes_vs_defines"],
          "basic", result["fit_basic_nodes_vs_defines"])
    print("paper: 1,177,491 queries in 3.8 s (3.2 us/query, 400 MHz)")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump({"command": command_line("benchmarks.predicates", argv), **result}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
