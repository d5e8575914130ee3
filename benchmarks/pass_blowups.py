"""Passes that blow up on csmith programs (issue #28 item 1: no program over 60 s for any
pipeline): each seed's program through a pipeline, pass by pass, each pass's CPU seconds
(process plus children), the static size after it and the child's peak resident memory so far
(``max_rss_mb``: ru_maxrss after the pass, so a pass's own peak when it is the highest yet), the
whole pipeline in a forked child (``engines.budget.Child``) under a CPU limit so a blow-up costs
at most ``--cpu-limit``.

    python -m benchmarks.pass_blowups --seeds 1-50 --pipeline icbe,pde --cpu-limit 60
    python -m benchmarks.pass_blowups --seeds 1-50 --pipeline pre-m --csmith-extra '--max-block-size 8'

Programs are prepared as ``benchmarks.optimize`` prepares them; ``--csmith-extra`` options are
added to the small preset (``benchmarks.corpus.CSMITH_OPTIONS``), the programs kept under
``--workdir``. Writes runs/pass-blowups-<name>.json.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

from benchmarks.common import children_cpu, command_line, write_run
from benchmarks.corpus import CSMITH_OPTIONS
from benchmarks.optimize import parse_range, prepare_program
from pylogic.errors import PathlogicError


def program(seed: int, workdir: str, extra: list[str]) -> str:
    """The csmith program of ``seed`` with the small preset plus ``extra`` (generated once)."""
    folder = os.path.join(workdir, "csmith" + "".join(extra).replace("-", "_").replace(" ", ""))
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"seed{seed}.c")
    if not os.path.exists(path):
        subprocess.run(["csmith", "--seed", str(seed), *CSMITH_OPTIONS, *extra, "-o", path],
                       check=True, capture_output=True, timeout=60)
    return path


def _pipeline(path: str, passes: list[str], engine: str, limit: int) -> dict:
    """In the child: the pipeline pass by pass."""
    from pylogic.analysis.optimize import optimize, static_size
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    module = prepare_program("csmith", path)[0]
    steps = [{"pass": "original", "size": static_size(module)}]
    for name in passes:
        t0 = time.process_time() + children_cpu()
        module = optimize(module, [name], os.path.basename(path), engine=engine).module
        steps.append({"pass": name, "cpu_seconds": round(time.process_time() + children_cpu()
                                                         - t0, 2), "size": static_size(module),
                      "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024})
    return {"steps": steps}


def main(argv=None) -> int:
    from pylogic.engines.budget import Child
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="1-50")
    ap.add_argument("--pipeline", required=True)
    ap.add_argument("--csmith-extra", default="", help="csmith options added to the small preset")
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--cpu-limit", type=int, default=60)
    ap.add_argument("--workdir", default="/tmp/pathlogic-corpus")
    ap.add_argument("--name", default="run")
    a = ap.parse_args(argv)
    passes = [p for p in a.pipeline.split(",") if p]
    extra = a.csmith_extra.split()
    rows = []
    for seed in parse_range(a.seeds):
        child = Child(_pipeline, (program(seed, a.workdir, extra), passes, a.engine, a.cpu_limit))
        try:
            row = {"seed": seed, **child.result(f"seed {seed}")}
        except PathlogicError as exc:
            row = {"seed": seed, "stopped": f"over {a.cpu_limit} s CPU or failed: {exc}"[:200]}
        rows.append(row)
        print(seed, row.get("steps", row.get("stopped")), flush=True)
    over = [r["seed"] for r in rows if "stopped" in r]
    path = write_run(f"pass-blowups-{a.name}.json", {
        "command": command_line("benchmarks.pass_blowups", argv),
        "csmith": list(CSMITH_OPTIONS) + extra, "pipeline": passes, "engine": a.engine,
        "cpu_limit": a.cpu_limit, "over_limit": over,
        "slowest": sorted(((sum(s.get("cpu_seconds", 0) for s in r["steps"]), r["seed"])
                           for r in rows if "steps" in r), reverse=True)[:5],
        "programs": rows})
    print(f"wrote {path}; over the limit: {over or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
