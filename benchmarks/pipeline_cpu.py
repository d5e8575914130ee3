"""CPU of one pipeline on csmith programs, pass by pass, before and after a change (issue #28
item 1: the optimizer at compiler speed). Per program, interleaved, one child process per tree
(``--before`` CHECKOUT, then this one, so the machine's load affects both alike) prepares the
program as ``benchmarks.optimize`` does (``corpus``, ``prepare_program``), runs
``pylogic.analysis.optimize.optimize(module, PIPELINE, engine=...)`` and reports each step's CPU
seconds (``time.process_time`` around ``run_pass``: clingo runs in-process; a composite such as
``pre-mr`` is its steps) and the SHA-256 of ``print_module`` of the result, which must not differ
between the trees.

    python3 -m benchmarks.pipeline_cpu --seeds 2,12,22,32,42 \\
        --pipeline simplify,pre-mr,pre-m,simplify --before /tmp/base --out runs/x.json

``--before``: a checkout of the tree to compare with (e.g. ``git archive BASE | tar -x -C DIR``);
without it only this tree runs. Each child runs with ``PYTHONHASHSEED=0``. Writes ``--out``
(``benchmarks.common.write_run``: a name under runs/, or a path).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
TREE = HERE.parents[1]


def one(seed: str, pipeline: list[str], engine: str) -> dict:
    """This process's tree on csmith program ``seed``: CPU per step, total, digest."""
    from benchmarks.optimize import DEFAULT_WORKDIR, corpus, prepare_program
    import pylogic.analysis.optimize as opt
    from pylogic.ir.printer import print_module
    name, kind, path = corpus(False, seed, "0", DEFAULT_WORKDIR)[0]
    module = prepare_program(kind, path)[0]
    steps, run_pass = [], opt.run_pass

    def timed(step, *args, **kwargs):
        t0 = time.process_time()
        got = run_pass(step, *args, **kwargs)
        steps.append([step, round(time.process_time() - t0, 2)])
        return got
    opt.run_pass = timed
    t0 = time.process_time()
    result = opt.optimize(module, pipeline, name, engine=engine)
    total = time.process_time() - t0
    return {"program": name, "cpu_s": round(total, 2), "passes_cpu_s": steps,
            "sha256": hashlib.sha256(print_module(result.module).encode()).hexdigest()}


def run_child(tree: Path, seed: str, pipeline: str, engine: str) -> dict:
    """``one`` in a child process with ``tree`` on its path."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, str(HERE), "--one", seed, "--pipeline", pipeline,
                          "--engine", engine], cwd=tree, env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def git_head(tree: Path) -> str:
    got = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    return got.stdout.strip() or str(tree)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="2,12,22,32,42", help="csmith seeds (benchmarks.optimize)")
    ap.add_argument("--pipeline", default="simplify,pre-mr,pre-m,simplify")
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--before", help="a checkout to compare with (run first, per program)")
    ap.add_argument("--out", default="pipeline-cpu.json")
    ap.add_argument("--one", help=argparse.SUPPRESS)        # the child: one seed, JSON on stdout
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one(args.one, args.pipeline.split(","), args.engine)))
        return 0
    from benchmarks.common import command_line, write_run
    from benchmarks.optimize import parse_range
    sides = ([("before", Path(args.before).resolve())] if args.before else []) + [("after", TREE)]
    programs, loads = {}, []
    for seed in parse_range(args.seeds):
        row = {}
        for side, tree in sides:
            loads.append(os.getloadavg()[0])
            got = run_child(tree, str(seed), args.pipeline, args.engine)
            row[side] = {k: got[k] for k in ("cpu_s", "passes_cpu_s", "sha256")}
            print(side, got["program"], got["cpu_s"], got["passes_cpu_s"], flush=True)
        programs[got["program"]] = row
    payload = {"command": command_line("benchmarks.pipeline_cpu", argv),
               "what": f"CPU per pass of {args.pipeline} (engine {args.engine}) on csmith "
                       f"{args.seeds}" + (", before and after, interleaved" if args.before else ""),
               "trees": {side: git_head(tree) for side, tree in sides},
               "load_1min": [min(loads), max(loads)], "programs": programs,
               "total_cpu_s": {side: round(sum(p[side]["cpu_s"] for p in programs.values()), 2)
                               for side, _ in sides}}
    if args.before:
        ratios = [p["before"]["cpu_s"] / p["after"]["cpu_s"] for p in programs.values()]
        payload["median_speedup"] = round(statistics.median(ratios), 2)
        payload["identical_outputs"] = all(p["before"]["sha256"] == p["after"]["sha256"]
                                           for p in programs.values())
    print("wrote", write_run(args.out, payload))
    return 0


if __name__ == "__main__":
    sys.exit(main())
