"""Name-space size of the Value Name Graph (PathFinder Table 3.1, pathfinder.md §3.8): per
function, |S1| -- distinct symbolic names, ω excluded -- of the seed set and after each of the
w + 1 back-substitution traversals of Fig. 3.12 (``facts_gen.vng.name_space``), with N
(statements), bs (% of statements where back-substitution changed a name) and V (registers).

Seeds here are every unguarded expression and load (the thesis' Table 3.1 seeds only the
address operands of loads and stores), names are linear forms with op(..) and load atoms, and a
function whose threads exceed ``facts_gen.vng.MAX_VISITS`` steps is cut short (``truncated``:
its later columns stop growing for that reason, not for lack of names).

    python -m benchmarks.vng_names --csmith 1-10 --out runs/vng-names.json
"""
from __future__ import annotations

import argparse
import json
import time

from benchmarks.common import command_line, machine_info
from benchmarks.corpus import csmith_program
from benchmarks.optimize import PREPARE_FLAGS, DEFAULT_WORKDIR, parse_range, source_state
from facts_gen.vng import name_space
from pylogic.ir.llvm.clang import prepare_c
from pylogic.ir.llvm.importer import import_llvm


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csmith", default="1-10")
    ap.add_argument("--window", type=int, default=3)
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--out", default="runs/vng-names.json")
    a = ap.parse_args(argv)
    rows, t0 = [], time.time()
    for seed in parse_range(a.csmith):
        path = csmith_program(seed, a.workdir)
        if path is None:
            continue
        module, _ = import_llvm(prepare_c(path, PREPARE_FLAGS), path)   # as the harness does
        for fn in module.functions:
            if fn.blocks:
                rows.append({"program": f"csmith-{seed}", "function": fn.name,
                             **name_space(fn, a.window)})
    full = [r for r in rows if not r["truncated"]]
    steep = sorted(full, key=lambda r: r["sizes"][-1] - r["sizes"][0], reverse=True)[:15]
    k = min(3, a.window + 1)
    summary = {
        "functions": len(rows), "truncated": len(rows) - len(full),
        "average_N": round(sum(r["N"] for r in full) / max(1, len(full)), 1),
        "average_bs": round(sum(r["bs"] for r in full) / max(1, len(full)), 1),
        "average_V": round(sum(r["V"] for r in full) / max(1, len(full)), 1),
        f"average_S_over_V_after_{k}_traversals": round(
            sum(r["sizes"][k] / max(1, r["V"]) for r in full) / max(1, len(full)), 2),
        "steepest": steep}
    payload = {"command": command_line("benchmarks.vng_names", argv),
               "machine": machine_info(), "source": source_state(),
               "settings": {"csmith": a.csmith, "window": a.window},
               "summary": summary, "wall_seconds": round(time.time() - t0, 1),
               "note": "timings taken on a shared 2-core machine under load", "functions": rows}
    with open(a.out, "w") as fh:
        json.dump(payload, fh, indent=1)
        fh.write("\n")
    print(json.dumps({k: v for k, v in summary.items() if k != "steepest"}))
    for r in steep:
        print(f"  {r['program']:10} {r['function']:32} {r['sizes']} N={r['N']} bs={r['bs']} "
              f"V={r['V']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
