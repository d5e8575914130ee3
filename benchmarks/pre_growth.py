"""Code growth of the PRE pipelines (issue #28 item 1: no super-linear work on duplicated code):
each program of the LLVM front end's C fixtures (tests/ir/llvm/c) and a torture sample through
each pipeline in a forked child under a CPU limit, its static size before and after (instructions
of the defined functions, ``static_size``), the ratio, the largest function's ratio and the CPU
seconds; the ``--top`` programs of highest ratio per pipeline.

    python -m benchmarks.pre_growth --torture 40 --name after

Programs are prepared as ``benchmarks.optimize`` prepares them. Writes runs/raw/pre-growth-<name>.json
(every row) and prints the top rows; ``--merge BEFORE AFTER`` writes runs/pre-growth.json, the top
rows of both.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import time

from benchmarks.common import children_cpu, command_line, write_run
from benchmarks.optimize import prepare_program, torture_sample
from pylogic.errors import PathlogicError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINES = ("pre-mr-split", "simplify,pre-mr,pre-m,simplify")


def _sizes(module) -> dict:
    return {fn.name: fn.instruction_count() for fn in module.defined_functions()}


def _grow(kind: str, path: str, pipeline: str, limit: int) -> dict:
    """In the child: ``pipeline`` on the program, sizes before and after, CPU seconds."""
    from pylogic.analysis.optimize import optimize
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    prepared = prepare_program(kind, path)
    if prepared is None:
        return {"skipped": "floating point"}
    module = prepared[0]
    t0 = time.process_time() + children_cpu()
    new = optimize(module, pipeline.split(","), os.path.basename(path), engine="clingo").module
    cpu = time.process_time() + children_cpu() - t0
    before, after = _sizes(module), _sizes(new)
    worst = max(before, key=lambda f: after.get(f, 0) / max(before[f], 1))
    return {"size_before": sum(before.values()), "size_after": sum(after.values()),
            "ratio": round(sum(after.values()) / max(sum(before.values()), 1), 2),
            "function": worst, "function_before": before[worst],
            "function_after": after.get(worst, 0), "cpu_seconds": round(cpu, 2)}


def main(argv=None) -> int:
    from pylogic.engines.budget import Child
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--torture", default="40", help="torture sample (benchmarks.optimize)")
    ap.add_argument("--pipeline", action="append", help=f"default: {' and '.join(PIPELINES)}")
    ap.add_argument("--cpu-limit", type=int, default=120)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--name", default="run")
    ap.add_argument("--merge", nargs=2, metavar=("BEFORE.json", "AFTER.json"))
    a = ap.parse_args(argv)
    if a.merge:
        runs = {}
        for label, path in zip(("before", "after"), a.merge):
            run = json.load(open(path))
            runs[label] = {"command": run["command"], "top": run["top"],
                           "stopped": [r for r in run["rows"] if "stopped" in r]}
        print(write_run("pre-growth.json", {
            "command": command_line("benchmarks.pre_growth", argv),
            "what": "the --top programs of highest size ratio (instructions after / before) per "
                    "PRE pipeline: before = the first run (the code before the change), after = "
                    "the second", **runs}))
        return 0
    programs = [("c", p) for p in sorted(glob.glob(os.path.join(ROOT, "tests/ir/llvm/c/*.c")))
                if os.path.basename(p) != "syntax_error.c"]
    programs += [("torture", p) for p in torture_sample(a.torture)]
    rows = []
    for pipeline in a.pipeline or PIPELINES:
        for kind, path in programs:
            row = {"pipeline": pipeline, "program": os.path.basename(path)}
            try:
                row.update(Child(_grow, (kind, path, pipeline, a.cpu_limit)).result(path))
            except PathlogicError as exc:
                row["stopped"] = f"over {a.cpu_limit} s CPU or failed: {exc}"[:200]
            rows.append(row)
            print(json.dumps(row), flush=True)
    top = {p: sorted((r for r in rows if r["pipeline"] == p and "ratio" in r),
                     key=lambda r: -r["ratio"])[:a.top] for p in a.pipeline or PIPELINES}
    print(write_run(f"raw/pre-growth-{a.name}.json", {
        "command": command_line("benchmarks.pre_growth", argv), "programs": len(programs),
        "top": top, "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
