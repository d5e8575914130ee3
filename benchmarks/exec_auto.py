"""``--engine auto`` against the interpreter and the native engine, per program (issue #32
item 5): auto should never be much slower than the better of the two.

    python -m benchmarks.exec_auto [--csmith 1-10] [--torture 80] [--repeat 3]
        [--engines interp,native,auto] [--out runs/exec-auto.json]

Each program of the corpus is prepared as the optimization harness prepares it
(``benchmarks.optimize.prepare_program``: clang -O0 + mem2reg + lowerswitch, a driver ``main``
for compile-only tests) and its cases are run as the harness runs the original (``main``, fuel
``FUEL``; driver cases with ``DRIVER_FUEL``). Per engine, the time is the CPU time (user +
system, this process and its children: the host is shared, wall time is not the program's) of
running every case from cold caches (the interpreter's decoded machines and the native engine's
compiled modules are dropped first, so the native time includes compiling, the interpreter's
decoding), best of ``--repeat`` (three times as many for a program whose interpreter run
takes less than ``--floor``). The results of the engines are checked to be identical
(output, status, error, counts, kinds, edge and block profiles, peak memory). Reported: per
program the times and ``auto / min(interp, native)``, and the worst ratio and how many programs
exceed ``--limit`` (1.10); programs whose best time is below ``--floor`` are listed but not
counted (their ratio is timer noise).
"""
from __future__ import annotations

import argparse
import gc
import sys
import time

from benchmarks.common import children_cpu, command_line, write_run
from benchmarks.optimize import (DEFAULT_WORKDIR, DRIVER_FUEL, FUEL, corpus, prepare_program)
from pylogic.errors import PathlogicError
from pylogic.interp import machine as interp_machine
from pylogic.interp.native import engine as native_engine
from pylogic.interp.native.select import run_with
from pylogic.ir.parser import parse_module

ENGINES = ("interp", "native", "auto")


def cpu_seconds() -> float:
    """User + system CPU time of this process (all threads) and its waited-for children."""
    return time.process_time() + children_cpu()


def observable(r) -> tuple:
    """Everything the engines must agree on (what the harness reads from a run)."""
    return (r.stdout_bytes, r.return_value, r.exit_status,
            None if r.error is None else str(r.error), r.counts, r.kinds, r.edge_profile,
            r.block_profile, r.peak_memory)


def cold() -> None:
    """Forget every decoded and compiled module (each timing starts from nothing)."""
    interp_machine.MACHINES.clear()
    native_engine.MACHINES.clear()


def time_engine(engine: str, module, cases, fuel: int, repeat: int):
    """(best CPU seconds over ``repeat`` cold runs of every case, the results, engines used)."""
    best, results = None, None
    for _ in range(repeat):
        cold()
        gc.collect()  # no collection of an earlier run's garbage inside the timing
        t0 = cpu_seconds()
        results = [run_with(engine, module, entry="main", args=a, inputs=i, fuel=fuel)
                   for a, i in cases]
        dt = cpu_seconds() - t0
        best = dt if best is None else min(best, dt)
    cold()
    return best, results, sorted({getattr(r, "engine", engine) for r in results})


def warm_up() -> None:
    """Pay the one-off costs (LLVM initialisation, imports) before anything is timed."""
    m = parse_module("func main() {\nentry:\n    x = add 1, 2\n    print x\n    ret 0\n}\n",
                     "warm.pir")
    for engine in ENGINES:
        run_with(engine, m)
    cold()


def measure(item, engines, repeat: int, floor: float = 0.0) -> dict:
    """One program on every engine (``repeat`` timings each; three times as many when one
    interpreter run takes less than ``floor`` seconds: short runs are the noisiest)."""
    name, kind, path = item
    row = {"program": name, "kind": kind}
    try:
        prepared = prepare_program(kind, path)
    except PathlogicError as exc:
        row["skipped"] = f"prepare error: {exc}"[:120]
        return row
    if prepared is None:
        row["skipped"] = "floating point"
        return row
    module, report, _ll, driver_cases, _driven = prepared
    cases, fuel = [((), ())], FUEL
    if driver_cases:
        cases, fuel = list(driver_cases), DRIVER_FUEL
    row.update(cases=len(cases), fuel=fuel, size=sum(len(b.instrs) for f in module.functions
                                                     for b in f.blocks))
    ref = None
    if floor and time_engine("interp", module, cases, fuel, 1)[0] < floor:
        repeat *= 3
    row["repeat"] = repeat
    for engine in engines:
        secs, results, used = time_engine(engine, module, cases, fuel, repeat)
        row[engine] = round(secs, 4)
        row[f"{engine}_engines"] = used
        obs = [observable(r) for r in results]
        if ref is None:
            ref = obs
            row["instructions"] = sum(r.counts.get("instructions", 0) for r in results)
            row["stopped"] = next((r.error.message[:60] for r in results if r.error), None)
        elif obs != ref:
            row.setdefault("different", []).append(engine)
    others = [row[e] for e in ("interp", "native") if e in row]
    if "auto" in row and others:
        row["best"] = min(others)
        row["ratio"] = round(row["auto"] / max(row["best"], 1e-9), 3)
    return row


def summarise(rows, limit: float, floor: float) -> dict:
    timed = [r for r in rows if "ratio" in r]
    counted = [r for r in timed if r["best"] >= floor]
    worst = max(counted, key=lambda r: r["ratio"], default=None)
    total = {e: round(sum(r.get(e, 0) for r in timed), 3) for e in ENGINES}
    return {
        "programs": len(rows), "timed": len(timed), "counted": len(counted),
        "floor_seconds": floor, "limit": limit,
        "worst_ratio": worst and worst["ratio"], "worst_program": worst and worst["program"],
        "over_limit": [r["program"] for r in counted if r["ratio"] > limit],
        "different": [r["program"] for r in rows if r.get("different")],
        "total_seconds": total,
        "total_best_seconds": round(sum(r["best"] for r in timed), 3),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csmith", default="1-10")
    ap.add_argument("--torture", default="80")
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=float, default=1.10)
    ap.add_argument("--floor", type=float, default=0.02,
                    help="programs whose best time is below this many seconds are not counted")
    ap.add_argument("--out", default="exec-auto.json", help="file name in runs/ ('' for none)")
    a = ap.parse_args(argv)
    engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    items = corpus(False, a.csmith, a.torture, a.workdir)
    warm_up()
    rows = []
    print(f"{'program':28} {'instr':>10} {'size':>6} " +
          " ".join(f"{e:>8}" for e in engines) + "    ratio", flush=True)
    for item in items:
        row = measure(item, engines, a.repeat, a.floor)
        rows.append(row)
        if "skipped" in row:
            print(f"{row['program']:28} skipped: {row['skipped']}", flush=True)
            continue
        print(f"{row['program']:28} {row['instructions']:>10} {row['size']:>6} " +
              " ".join(f"{row[e]:8.3f}" for e in engines) +
              (f" {row['ratio']:8.2f}" if "ratio" in row else "") +
              (f"  auto={','.join(row['auto_engines'])}" if "auto" in row else "") +
              ("  DIFFERENT " + ",".join(row["different"]) if row.get("different") else ""),
              flush=True)
    summary = summarise(rows, a.limit, a.floor)
    print(summary)
    if a.out:
        path = write_run(a.out, {
            "benchmark": "exec_auto", "command": command_line("benchmarks.exec_auto", argv),
            "settings": vars(a), "summary": summary, "rows": rows})
        print(f"wrote {path}")
    return 1 if summary["different"] else 0


if __name__ == "__main__":
    sys.exit(main())
