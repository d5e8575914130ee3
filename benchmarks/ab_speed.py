"""Two trees of pathlogic timed program by program, interleaved, with opt-14 beside them (issue #28
item 1): the harness's median ratio moves 1-10% between two sweeps of one tree on this host
(docs/measurements.md, stop 51), more than a stop's gains, and two sweeps run at once contend.
Here one warm worker per tree (``--a``, ``--b``: exported source trees) times each pipeline on each
program as ``benchmarks.optimize`` does (``_run_ours_here`` in a forked child: CPU of the
pipeline, the output's sha256), A then B then B then A, and opt-14's counterpart between them
(CPU of the opt-14 process), so both trees meet the host in the same minutes. Per program: the
least CPU of each; reported: B / A per program (median) and each tree's median ratio to opt-14.
The host's speed for Python (``common.host_python_seconds``) is read before and after: a ratio
near a goal compares with another only at like readings.

Example
-------
    python -m benchmarks.ab_speed --a /tmp/base --b /tmp/new --csmith 1-50 \\
        --ours simplify,pre-mr,pre-m,simplify --llvm gvn --repeat 2 --out /tmp/ab.json
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from benchmarks.common import command_line, host_python_seconds
from benchmarks.corpus import DEFAULT_WORKDIR, csmith_program

#: The worker, run by each tree's Python with that tree first on ``sys.path``: it warms up as the
#: harness does, then answers one JSON line per request ({"path", "pipeline"} or {"path",
#: "llvm"}) with {"cpu", "sha"} or {"error"}; the module API it reads (``prepare_program``,
#: ``tag_origins``, ``warm_up``, ``_run_ours_here``, ``_run_llvm``) is stop 45's and later's.
WORKER = r"""
import json, sys
tree, engine, pipelines = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.path.insert(0, tree)
from benchmarks import optimize as H
from pylogic.engines.budget import Child
H.warm_up([p for p in pipelines], engine)
prepared = {}

def timed(tagged, pipeline, name):
    ran = H._run_ours_here(tagged, pipeline, name, engine)
    if "error" in ran:
        return {"error": str(ran["error"].get("detail", ran["error"]))}
    return {"cpu": ran["timing"]["cpu_seconds"], "sha": ran["timing"]["sha256"]}

print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    ask = json.loads(line)
    path = ask["path"]
    if path not in prepared:
        got = H.prepare_program("csmith", path)
        prepared[path] = None if got is None else (H.tag_origins(got[0]), got[2])
    if prepared[path] is None:
        print(json.dumps({"error": "not imported (floating point)"}), flush=True)
        continue
    tagged, ll = prepared[path]
    if "llvm" in ask:
        ran = H._run_llvm(ll, ask["llvm"], path, "")
        out = {"error": str(ran["error"])} if "error" in ran else \
            {"cpu": ran["timing"]["cpu_seconds"]}
    else:
        out = Child(timed, (tagged, ask["pipeline"], path.rsplit("/", 1)[-1])).result()
    print(json.dumps(out), flush=True)
"""


class Worker:
    """One tree's warm worker process (``WORKER``)."""

    def __init__(self, tree: str, engine: str, pipelines: list):
        env = dict(os.environ, PYTHONPATH=tree)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, tree, engine, json.dumps(pipelines)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree, env=env)
        ready = self.proc.stdout.readline()
        if not ready:
            raise RuntimeError(f"the worker of {tree} did not start")

    def ask(self, request: dict) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def compare(a: str, b: str, paths: list, pipelines: list, llvm: str, repeat: int,
            engine: str = "auto") -> dict:
    """``{"programs": [...], "summary": {...}}``: each program's least CPU per tree and of opt-14,
    B / A and the ratios (module docstring); a program whose pipeline fails on either side is
    listed with its error and left out of the medians."""
    wa, wb = Worker(a, engine, pipelines), Worker(b, engine, pipelines)
    rows = []
    try:
        for path in paths:
            for pipeline in pipelines:
                best = {"a": None, "b": None, "opt": None}
                shas, error = {"a": set(), "b": set()}, None
                for r in range(repeat):
                    order = ["a", "opt", "b", "b", "opt", "a"] if r % 2 == 0 else \
                        ["b", "opt", "a", "a", "opt", "b"]
                    for side in order:
                        w = wa if side in ("a", "opt") else wb
                        got = w.ask({"path": path, "llvm": llvm} if side == "opt" else
                                    {"path": path, "pipeline": pipeline})
                        if "error" in got:
                            error = error or f"{side}: {got['error']}"
                            continue
                        if "sha" in got:
                            shas[side].add(got["sha"])
                        if best[side] is None or got["cpu"] < best[side]:
                            best[side] = got["cpu"]
                row = {"program": os.path.basename(path), "pipeline": ",".join(pipeline),
                       "a": best["a"], "b": best["b"], "opt": best["opt"],
                       # one output per tree over its repeats, and A's the same as B's
                       "steady": len(shas["a"]) <= 1 and len(shas["b"]) <= 1,
                       "same_output": len(shas["a"] | shas["b"]) == 1}
                if error:
                    row["error"] = error
                rows.append(row)
    finally:
        wa.close()
        wb.close()
    return {"programs": rows, "summary": summarise(rows)}


def summarise(rows: list) -> dict:
    """Per pipeline: programs, median B / A, median ratio to opt-14 of A and of B."""
    out = {}
    for pipeline in dict.fromkeys(r["pipeline"] for r in rows):
        ok = [r for r in rows if r["pipeline"] == pipeline and "error" not in r
              and r["a"] and r["b"] and r["opt"]]
        if not ok:
            continue
        out[pipeline] = {
            "programs": len(ok),
            "b_over_a": round(statistics.median(r["b"] / r["a"] for r in ok), 3),
            "a_over_opt": round(statistics.median(r["a"] / r["opt"] for r in ok), 2),
            "b_over_opt": round(statistics.median(r["b"] / r["opt"] for r in ok), 2),
            # A's output not B's (each tree steady), and a tree whose repeats disagree
            "outputs_differ": sum(r.get("steady", True) and not r["same_output"] for r in ok),
            "repeats_differ": sum(not r.get("steady", True) for r in ok)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="the first source tree (e.g. main, exported)")
    ap.add_argument("--b", required=True, help="the second source tree")
    ap.add_argument("--csmith", default="1-50", help="csmith seeds, e.g. 1-50")
    ap.add_argument("--ours", action="append", required=True, help="a pipeline, comma-separated")
    ap.add_argument("--llvm", default="gvn", help="opt-14's counterpart (-passes=)")
    ap.add_argument("--repeat", type=int, default=2, help="A-opt-B-B-opt-A rounds per program")
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR, help="where csmith programs are made")
    ap.add_argument("--out", help="write the rows and the summary as JSON")
    args = ap.parse_args(argv)
    from benchmarks.optimize import parse_range
    paths = [p for p in (csmith_program(s, args.workdir) for s in parse_range(args.csmith)) if p]
    pipelines = [p.split(",") for p in args.ours]
    host = [host_python_seconds()]      # the host's speed for Python, before and after
    got = compare(os.path.abspath(args.a), os.path.abspath(args.b), paths, pipelines, args.llvm,
                  args.repeat, args.engine)
    host.append(host_python_seconds())
    got["python_loop_seconds"] = host
    for pipeline, s in got["summary"].items():
        print(f"{pipeline}: {s['programs']} programs, B / A {s['b_over_a']} (median), "
              f"A {s['a_over_opt']}x, B {s['b_over_opt']}x opt-14 (medians); "
              f"A's output not B's: {s['outputs_differ']}, a tree's repeats differing: "
              f"{s['repeats_differ']}")
    print(f"host: a 10^7-iteration Python loop took {host[0]} s before and {host[1]} s after")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": command_line("benchmarks.ab_speed"), **got}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
