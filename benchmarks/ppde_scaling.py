"""T27 (predicated_pde.md §9, §3.5 complexity): PPDE's work per candidate as a hyperblock grows.
Generated hyperblocks of N guarded instructions over nested complementary defines; one round of
``ppde`` on the rows of the module; records C (candidates processed, copies included), V (δ's
examined, Table IV), V/C, the Datalog time and the pass's own time. The paper: V/C ≈ 2-4 on SPEC
(ijpeg 7.55), O(n) per candidate, O(nm) per region.

    python -m benchmarks.ppde_scaling --sizes 25,50,100,200,400 --out runs/bench-ppde.json
"""
from __future__ import annotations

import argparse
import json
import random
import time

from benchmarks.common import command_line, machine_info
from pylogic.analysis.run import module_rows
from pylogic.ir.parser import parse_module
from pylogic.transforms.ppde import ppde

REGS = ("r0", "r1", "r2", "r3", "r4", "r5")


def hyperblock(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    lines = ["func main(a, g, h) {", "entry: !hyperblock",
             "    p1:ut, p2:uf = pcmp.gt a, 0",
             "    (p1) p3:ut, p4:uf = pcmp.gt g, 0",
             "    (p2) p5:ut, p6:uf = pcmp.gt h, 0",
             "    (p3) p7:ut, p8:uf = pcmp.eq h, 0"]
    guards = ["p0"] + [f"p{k}" for k in range(1, 9)]
    for _ in range(n):
        g = rng.choice(guards)
        prefix = "" if g == "p0" else f"({g}) "
        if rng.random() < 0.8:
            lines.append(f"    {prefix}{rng.choice(REGS)} = add {rng.choice(REGS + ('a', 'g'))}, "
                         f"{rng.choice(REGS + ('h', '1'))}")
        else:
            lines.append(f"    {prefix}print {rng.choice(REGS)}")
    lines += ["    ret r0", "}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="25,50,100,200,400")
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--out", default="runs/bench-ppde.json")
    a = ap.parse_args()
    rows_out = []
    for n in (int(x) for x in a.sizes.split(",")):
        module = parse_module(hyperblock(n))
        t0 = time.perf_counter()
        rows = module_rows(module, "b.pir", relations=ppde.NEEDS, engine=a.engine)
        t1 = time.perf_counter()
        _, record = ppde.ppde(module, rows)
        t2 = time.perf_counter()
        t = record.totals()
        row = {"instructions": n, "C": t["candidates"], "V": t["encountered"],
               "V_per_C": round(t["encountered"] / max(1, t["candidates"]), 2),
               "deleted": t["deleted"], "split": t["split"], "merged": t["merged"],
               "undone": t["undone"], "datalog_s": round(t1 - t0, 3), "pass_s": round(t2 - t1, 3)}
        rows_out.append(row)
        print(row)
    with open(a.out, "w") as fh:
        json.dump({"command": command_line("benchmarks.ppde_scaling"),
                   "machine": machine_info(), "engine": a.engine,
                   "note": "one round of ppde on one generated hyperblock; timings taken while "
                           "other engineers' benchmarks loaded the 2 cores",
                   "rows": rows_out}, fh, indent=1)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
