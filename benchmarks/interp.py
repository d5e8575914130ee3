"""Interpreter throughput: a loop-heavy PIR program (nested loops, arithmetic, predicated
instructions, loads/stores, a call per outer iteration) at a few sizes.

    python benchmarks/interp.py [--sizes 30,100,300] [--repeat 3] [--out runs/bench-interp.json]

Prints and records executed instructions per second (nullified ones included, as counted by
RunResult.counts["instructions"]), best of ``--repeat`` runs, plus the one-off decode time.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time

from pylogic.interp import run_module
from pylogic.interp.machine import Machine
from pylogic.ir.parser import parse_module
from pylogic.report.table import StreamTable

PROGRAM = """
global arr[8192]

func mix(a, b) {
entry:
    t = mul a, 31
    t = xor t, b
    t = and t, 1023
    ret t
}

func main(n) {
entry:
    i = mov 0
    acc = mov 0
    br outer
outer:
    c = cmp.lt i, n
    cbr c, inner_init, done
inner_init:
    j = mov 0
    br inner
inner: !hyperblock
    c2 = cmp.ge j, n
    (c2) br outer_next              ; side exit
    k = and j, 1023
    off = shl k, 3
    addr = add arr, off
    v = load addr
    t = mul i, j
    v = add v, t
    store addr, v
    p:ut, q:uf = pcmp.lt k, 512
    (p) acc = add acc, v
    (q) acc = sub acc, 1
    j = add j, 1
    br inner
outer_next:
    m = call mix(acc, i)
    acc = add acc, m
    i = add i, 1
    br outer
done:
    print acc
    ret 0
}
"""


def python_baseline_ns() -> float:
    """ns per ``R[3] = R[1] + R[2]`` in plain Python now: calibrates the figures on a busy host."""
    import timeit
    return min(timeit.repeat("R[3] = R[1] + R[2]", globals={"R": [0, 12345, -678, 0]},
                             number=200_000, repeat=5)) / 200_000 * 1e9


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="30,100,300")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "runs",
                                                  "bench-interp.json"))
    args = ap.parse_args(argv)
    module = parse_module(PROGRAM, "bench-interp.pir")
    t0 = time.perf_counter()
    Machine(module)
    decode_s = time.perf_counter() - t0
    rows = []
    table = StreamTable(["n", "instructions", "seconds", "M instr/s"], [5, 10, 8, 9], "rrrr")
    print(table.header(), flush=True)
    for n in (int(s) for s in args.sizes.split(",")):
        best, res = None, None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = run_module(module, args=(n,), fuel=10 ** 10)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        assert res.error is None, res.error
        instrs = res.counts["instructions"]
        row = {"n": n, "instructions": instrs, "nullified": res.counts["nullified"],
               "calls": res.counts["calls"], "kinds": res.kinds, "seconds": round(best, 4),
               "instructions_per_second": round(instrs / best), "output": res.prints}
        rows.append(row)
        print(table.row([n, instrs, f"{best:.3f}", f"{instrs / best / 1e6:.2f}"]), flush=True)
    record = {
        "benchmark": "interp", "program": "nested loops + predication + load/store + call",
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": {"python": sys.version.split()[0], "implementation":
                    platform.python_implementation(), "platform": platform.platform(),
                    "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count()},
        "python_baseline_ns_per_list_add": round(python_baseline_ns(), 1),
        "decode_seconds": round(decode_s, 5), "repeat": args.repeat, "results": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1)
        fh.write("\n")
    print(f"decode: {decode_s * 1e3:.2f} ms; wrote {os.path.normpath(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
