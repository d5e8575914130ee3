"""Facts on demand (issue #27 item 4): the fact-extraction time and the engine time of a pass
pipeline (default ``simplify,pre-mr,pre-m,simplify``) on csmith programs, for the code in the
current directory and, with ``--before DIR``, for another checkout, each program in a fresh
process and the two sides alternating (the machine's load changes; both sides see it).

    python -m benchmarks.facts_on_demand --seeds 1-10 --before /work/main \\
        --out runs/facts-on-demand.json

Programs are prepared as ``benchmarks.refactor_check`` prepares them (clang-14 -O0, mem2reg,
lowerswitch, a driver for compile-only tests; floating point excluded). Extraction is every
``facts_gen.extract.extract_module`` call the analysis layer makes, engine time every
``run_checked`` call (clingo, in this process); both as wall and CPU seconds. The optimized
program's SHA-256 shows both sides computed the same thing.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINE = "simplify,pre-mr,pre-m,simplify"


def measure(seed: int, workdir: str, passes: str, engine: str = "clingo") -> dict:
    """One csmith program through ``passes`` in this process: seconds of extraction and engine."""
    import pylogic
    import pylogic.analysis.run as run_mod
    from benchmarks.corpus import FLOAT_IR, csmith_program
    from benchmarks.drivers import add_driver
    from benchmarks.optimize import PREPARE_FLAGS
    from pylogic.analysis.optimize import optimize
    from pylogic.ir.llvm.clang import prepare_c
    from pylogic.ir.llvm.importer import import_llvm
    from pylogic.ir.printer import print_module

    spent = {"extract": [0.0, 0.0, 0], "engine": [0.0, 0.0, 0]}   # wall, cpu, calls

    def timed(kind, real):
        def wrapper(*a, **k):
            w, c = time.perf_counter(), time.process_time()
            try:
                return real(*a, **k)
            finally:
                spent[kind][0] += time.perf_counter() - w
                spent[kind][1] += time.process_time() - c
                spent[kind][2] += 1
        return wrapper

    run_mod.extract_module = timed("extract", run_mod.extract_module)
    run_mod.run_checked = timed("engine", run_mod.run_checked)
    path = csmith_program(seed, workdir)
    ll = prepare_c(path, PREPARE_FLAGS)
    if FLOAT_IR.search(ll):
        return {"program": f"csmith-{seed}.c", "status": "excluded: floating point"}
    ll, _, _ = add_driver(ll)
    module, _ = import_llvm(ll, path)
    name = f"csmith-{seed}.c"
    w, c = time.perf_counter(), time.process_time()
    result = optimize(module, passes.split(","), name, engine=engine)
    total = [time.perf_counter() - w, time.process_time() - c]
    return {"program": name, "status": "ok", "pylogic": os.path.dirname(pylogic.__file__),
            "sha256": hashlib.sha256(print_module(result.module).encode()).hexdigest(),
            "extract_seconds": round(spent["extract"][0], 3),
            "extract_cpu": round(spent["extract"][1], 3), "extract_calls": spent["extract"][2],
            "engine_seconds": round(spent["engine"][0], 3),
            "engine_cpu": round(spent["engine"][1], 3), "engine_calls": spent["engine"][2],
            "pipeline_seconds": round(total[0], 3), "pipeline_cpu": round(total[1], 3)}


def _child(cwd: str, seed: int, workdir: str, passes: str) -> dict:
    """``measure`` in a fresh interpreter whose ``pylogic`` is the checkout at ``cwd``."""
    code = ("import json, runpy, sys; sys.path.insert(0, '.'); "
            f"m = runpy.run_path({os.path.abspath(__file__)!r}); "
            f"print(json.dumps(m['measure']({seed}, {workdir!r}, {passes!r})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        return {"program": f"csmith-{seed}.c", "status": f"error: {done.stderr[-300:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _commit(cwd: str) -> str:
    return subprocess.run(["git", "-C", cwd, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def _sums(records: list[dict]) -> dict:
    ok = [r for r in records if r.get("status") == "ok"]
    keys = ("extract_seconds", "extract_cpu", "engine_seconds", "engine_cpu",
            "pipeline_seconds", "pipeline_cpu", "extract_calls", "engine_calls")
    return {"programs": len(ok), **{k: round(sum(r[k] for r in ok), 2) for k in keys}}


def main(argv=None) -> int:
    from benchmarks.common import command_line, machine_info
    from benchmarks.optimize import DEFAULT_WORKDIR, parse_range
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--passes", default=PIPELINE)
    ap.add_argument("--before", default=None, help="a checkout to compare with (its root)")
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    sides = {"after": ROOT} if a.before is None else {"before": a.before, "after": ROOT}
    runs = {side: [] for side in sides}
    for seed in parse_range(a.seeds):
        for side, cwd in sides.items():
            rec = _child(cwd, seed, a.workdir, a.passes)
            runs[side].append(rec)
            print(side, json.dumps(rec), file=sys.stderr, flush=True)
    payload = {"command": command_line("benchmarks.facts_on_demand", argv),
               "machine": machine_info(), "pipeline": a.passes, "engine": "clingo",
               "seeds": a.seeds, "commits": {side: _commit(cwd) for side, cwd in sides.items()},
               "totals": {side: _sums(recs) for side, recs in runs.items()}, "programs": runs}
    if a.before is not None:
        payload["same_output"] = all(
            b.get("sha256") == f.get("sha256") for b, f in zip(runs["before"], runs["after"]))
    text = json.dumps(payload, indent=1) + "\n"
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    print(json.dumps(payload["totals"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
