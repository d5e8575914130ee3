"""The fused interpreter against its reference form on the corpora (issue #32 item 5: the faster
decoded code must leave every result and count as it was).

    python -m benchmarks.interp_fused [--csmith 1-50] [--torture all] [--examples]
        [--fuel 2000000] [--cut 997] [--out interp-fused.json]

Each program is prepared as the optimization harness prepares it
(``benchmarks.optimize.prepare_program``: clang -O0 + mem2reg + lowerswitch, a driver ``main``
for compile-only tests) and every case is run by ``Machine(module)`` (the fused functions) and
``Machine(module, reference=True)`` (one instruction at a time, every 64-bit wrap written out:
the decoded code before), at ``--fuel`` and again at ``--cut`` (the run cut short: exact to the
instruction). Compared: ``RunResult.everything()``: output, prints, return value, exit status,
error with its location, counts (instructions, nullified, executed, branches taken, calls),
kinds (branches, computations, moves, loads, stores, predicate defines, calls, returns),
edge and block profiles in order, peak memory. Reported: programs, runs, differences (with
the first few named) and the instructions compared.
"""
from __future__ import annotations

import argparse
import sys

from benchmarks.common import command_line, write_run
from benchmarks.optimize import DEFAULT_WORKDIR, corpus, prepare_program
from pylogic.errors import PathlogicError
from pylogic.interp.machine import Machine


def check(module, cases, fuel: int, cut: int) -> tuple[int, int, list]:
    """(runs, instructions compared, differences) of one program."""
    runs, instructions, diffs = 0, 0, []
    for args, inputs in cases:
        for f in (fuel, cut):
            a = Machine(module).run(args=args, inputs=inputs, fuel=f)
            b = Machine(module, reference=True).run(args=args, inputs=inputs, fuel=f)
            runs += 1
            instructions += b.counts.get("instructions", 0)
            if a.everything() != b.everything():
                diffs.append({"args": list(args), "fuel": f,
                              "fields": [k for k, x, y in zip(FIELDS, a.everything(),
                                                              b.everything()) if x != y]})
    return runs, instructions, diffs


FIELDS = ("stdout", "prints", "return_value", "exit_status", "error", "counts", "kinds",
          "edge_profile", "block_profile", "peak_memory")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csmith", default="1-50")
    ap.add_argument("--torture", default="all", help="a count, or all")
    ap.add_argument("--examples", action="store_true")
    ap.add_argument("--fuel", type=int, default=2_000_000)
    ap.add_argument("--cut", type=int, default=997)
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--out", default="interp-fused.json")
    a = ap.parse_args(argv)
    items = corpus(a.examples, a.csmith, a.torture, a.workdir)
    rows, skipped = [], 0
    for name, kind, path in items:
        try:
            prepared = prepare_program(kind, path)
        except (PathlogicError, OSError, ValueError):
            skipped += 1
            continue
        if prepared is None:
            skipped += 1
            continue
        module, _report, _ll, driver_cases, _driven = prepared
        cases = list(driver_cases) or [((), ())]
        runs, n, diffs = check(module, cases, a.fuel, a.cut)
        rows.append({"program": name, "kind": kind, "runs": runs, "instructions": n,
                     "differences": diffs})
        if diffs:
            print(f"DIFFERENT {name}: {diffs}", flush=True)
    different = [r["program"] for r in rows if r["differences"]]
    summary = {"programs": len(rows), "not_prepared": skipped,
               "runs": sum(r["runs"] for r in rows),
               "instructions_compared": sum(r["instructions"] for r in rows),
               "different": len(different), "first_different": different[:10]}
    path = write_run(a.out, {"benchmark": "interp_fused",
                             "command": command_line("benchmarks.interp_fused", argv),
                             "settings": {"fuel": a.fuel, "cut": a.cut, "csmith": a.csmith,
                                          "torture": a.torture, "examples": a.examples},
                             "summary": summary})
    print(summary)
    print(f"wrote {path}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
