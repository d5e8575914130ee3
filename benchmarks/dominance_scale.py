"""`pathlogic analyze` on long chains and large random CFGs (issue #12 item 1: dominance without
the quadratic relation): wall time and peak memory of the whole command (``/usr/bin/time -v``),
the analyses phase from summary.json, the rows written, and idom / ipdom / df / cdep / loops
checked against networkx; writes runs/bench-dominance.json (or ``--out``).

    python benchmarks/dominance_scale.py [--inputs chain:1000,chain:3001,random:10000,...]
        [--checkout DIR] [--label after] [--timeout 600] [--memory-gb 12]

``--checkout DIR`` runs the ``pathlogic`` of another source tree (e.g. ``git archive <commit> |
tar -x -C DIR``) on the same inputs: the "before" figures. A run over ``--timeout`` seconds or
``--memory-gb`` of address space is recorded as not finished, with what it used. Inputs: ``chain:N``
(b0 -> b1 -> ... -> b(N-1)), ``loop:N`` (the same with one back edge b(N-2) -> b1),
``random:N`` (pylogic.ir.synthetic.random_cfg, seed N, as benchmarks/cfg_analyses.py, each block
keeping its first two successors: plain branches, so no predicate defines and no PPG) and
``hyper:N`` (the same CFG uncapped: blocks with more successors become hyperblocks with
predicate defines, so the predicate PPG runs too; it is quadratic in the defines, measured).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import networkx as nx  # noqa: E402

from benchmarks.common import command_line, write_run  # noqa: E402
from pylogic.ir.model import Module  # noqa: E402
from pylogic.ir.printer import print_module  # noqa: E402
from pylogic.ir.synthetic import function_from_cfg, random_cfg  # noqa: E402
from tests.datalog.cfg_oracle import EXIT, loops_oracle  # noqa: E402

DEFAULT_INPUTS = ("chain:1000,chain:3001,chain:10001,chain:30001,loop:10001,loop:30001,"
                  "random:10000,random:30000")
CHECKED = ("idom", "ipdom", "df", "cdep", "back_edge", "loop_header", "loop_block", "loop_depth",
           "irreducible")


def make_cfg(kind: str, n: int) -> tuple[list[str], dict[str, list[str]]]:
    if kind in ("random", "hyper"):
        labels, succs = random_cfg(random.Random(n), n, edge_factor=1.4, exit_prob=0.05)
        if kind == "random":
            succs = {b: list(dict.fromkeys(s))[:2] for b, s in succs.items()}
        return labels, succs
    labels = [f"b{i}" for i in range(n)]
    succs = {b: [labels[i + 1]] if i + 1 < n else [] for i, b in enumerate(labels)}
    if kind == "loop":
        succs[labels[-2]].append(labels[1])
    return labels, succs


def expected_rows(labels: list[str], succs: dict[str, list[str]]) -> dict[str, set]:
    """networkx's idom, ipdom and dominance frontiers; cdep by the FOW definition walked up the
    post-dominator tree (n post-dominates s and not strictly b), loops from tests' oracle."""
    edges = [(a, b) for a in labels for b in dict.fromkeys(succs[a])]
    g = nx.DiGraph()
    g.add_nodes_from(labels)
    g.add_edges_from(edges)
    idom = {n: d for n, d in nx.immediate_dominators(g, labels[0]).items() if n != labels[0]}
    r = g.reverse(copy=True)
    r.add_edges_from((EXIT, b) for b in labels if not succs[b])
    ipdom = {n: d for n, d in nx.immediate_dominators(r, EXIT).items() if n != EXIT}
    df = {(d, n) for n, ds in nx.dominance_frontiers(g, labels[0]).items() for d in ds}
    df = {(n, d) for d, n in df}      # networkx: frontier of n holds d; ours: df(n, d)
    cdep = set()
    for b, s in edges:
        if s not in ipdom and s != EXIT:
            continue
        stop = ipdom.get(b)
        x = s
        while x is not None and x != stop and x != EXIT:
            cdep.add((x, b, s))
            x = ipdom.get(x)
    out = {"idom": {(d, n) for n, d in idom.items()}, "ipdom": {(d, n) for n, d in ipdom.items()},
           "df": df, "cdep": cdep}
    out.update(loops_oracle(labels, edges))
    return out


def read_results(folder: Path, name: str) -> set:
    path = folder / "results" / f"{name}.tsv"
    if not path.exists():
        return set()
    rows = set()
    for line in path.read_text().splitlines():
        cols = line.split("\t")[1:]
        rows.add(tuple(int(c) if name == "loop_depth" and k == 1 else c for k, c in enumerate(cols)))
    return rows


def _limit(memory_gb: float):
    def apply():
        cap = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return apply


def run_analyze(checkout: Path, src: Path, out: Path, timeout: float, memory_gb: float) -> dict:
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "pylogic.cli", "analyze", str(src),
           "--out", str(out), "--engine", "clingo", "--quiet", "--function-timeout", "inf"]
    t = time.perf_counter()
    # its own process group, so a timeout stops analyze and clingo, not only /usr/bin/time
    child = subprocess.Popen(cmd, cwd=checkout, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, preexec_fn=_limit(memory_gb), start_new_session=True,
                             env={"PYTHONPATH": str(checkout), "PATH": "/usr/local/bin:/usr/bin:/bin"})
    try:
        stdout, stderr = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return {"finished": False, "why": f"over {timeout:.0f} s", "wall_s": round(timeout, 1)}
    proc = subprocess.CompletedProcess(cmd, child.returncode, stdout, stderr)
    wall = time.perf_counter() - t
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    rec = {"finished": proc.returncode == 0, "exit": proc.returncode, "wall_s": round(wall, 2),
           "peak_rss_mb": round(int(rss.group(1)) / 1024) if rss else None}
    summary = out / "summary.json"
    if summary.exists():
        s = json.loads(summary.read_text())
        rec["analyses_s"] = s["seconds"].get("analyses")
        rec["relations"] = s["relations"]
        rec["failures"] = s.get("failures")
    if proc.returncode != 0:
        rec["why"] = (proc.stdout + proc.stderr).strip().splitlines()[-25:-20] or None
    return rec


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default=DEFAULT_INPUTS)
    ap.add_argument("--checkout", default=str(ROOT), help="source tree whose pathlogic runs")
    ap.add_argument("--label", default="after")
    ap.add_argument("--commit", help="the checkout's commit, when it is not a git work tree")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--memory-gb", type=float, default=12)
    ap.add_argument("--no-check", action="store_true", help="skip the networkx comparison")
    ap.add_argument("--out", default="bench-dominance.json",
                    help="file in runs/; rows of an existing one with this label and input are replaced")
    args = ap.parse_args()
    checkout = Path(args.checkout).resolve()
    commit = args.commit or subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or None
    results = []
    for spec in args.inputs.split(","):
        kind, n = spec.split(":")
        labels, succs = make_cfg(kind, int(n))
        with tempfile.TemporaryDirectory(prefix="pathlogic-dom-") as tmp:
            src = Path(tmp) / "in"
            src.mkdir()
            fn = function_from_cfg("@f", labels, succs)
            (src / f"{kind}{n}.pir").write_text(print_module(Module(functions=(fn,))))
            rec = {"label": args.label, "input": spec, "blocks": len(labels),
                   "edges": sum(len(set(v)) for v in succs.values()),
                   **run_analyze(checkout, src, Path(tmp) / "out", args.timeout, args.memory_gb)}
            if rec["finished"] and not args.no_check:
                want = expected_rows(labels, succs)
                got = {rel: read_results(Path(tmp) / "out", rel) for rel in CHECKED}
                rec["equal_to_networkx"] = {rel: got[rel] == want[rel] for rel in CHECKED}
        results.append(rec)
        print(json.dumps({k: v for k, v in rec.items() if k != "relations"}), flush=True)
    path = ROOT / "runs" / args.out
    old = json.loads(path.read_text()).get("results", []) if path.exists() else []
    done = {(args.label, r["input"]) for r in results}
    keep = [r for r in old if (r.get("label"), r.get("input")) not in done]
    write_run(args.out, {"command": command_line("benchmarks.dominance_scale"),
                         "measured": "pathlogic analyze DIR --engine clingo --quiet "
                                     "--function-timeout inf (one function per DIR)",
                         "commits": {**(json.loads(path.read_text()).get("commits", {})
                                        if path.exists() else {}), args.label: commit},
                         "results": keep + results})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
