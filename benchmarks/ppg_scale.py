"""Predicate partition graphs on long hyperblocks (issue #29 item 5): CPU time of ``datalog/ppg.dl``
on generated straight-line hyperblocks of 100-3,000 predicate defines
(``pylogic.ir.synthetic_hyperblock``: every deposit type on every guard / condition / old-value
combination, two registers redefined again and again), per engine, with the fitted growth
exponent; writes runs/ppg-scale.json (or ``--out``).

    python -m benchmarks.ppg_scale [--defines 100,200,...] [--engines clingo,duckdb[,souffle]]
        [--scopes build,compact,all] [--before REV [--labels before]] [--timeout 120]
        [--memory-gb 6]

Three scopes: ``build`` asks ``ppg.dl`` for every output relation but the subset and
disjointness closures (the graphs, the values, and the closure rows the constructions themselves
test); ``compact`` for every output of ``ppg.dl``: the closures in compact form (core pairs,
empty, full and void nodes), what ``analyze``, the predicate layer and PPDE read; ``all`` for
every output of ``ppg_closure.dl``, the closures as pairs ``ppg_subset`` / ``ppg_disjoint``
too. The pairs list every node under an empty node (⊆ false) and every node under a full one
(⊇ true); this block has a linear number of both (unguarded defines, comparisons of a register
with itself), so ``all`` writes a quadratic number of rows whatever the rules: each result
records the CPU per output row and the closure rows outside those products
(``outside_products``, read from the rows). ``--before
REV`` also runs the ``datalog/`` of git revision REV (``git archive``) with this tree's engines:
the figures before the rewrite.
A run over ``--timeout`` seconds or ``--memory-gb`` of address space is recorded as not finished,
and larger sizes of that program, engine and scope are not tried. CPU: the engine call in a
child process (its process time plus its children's, so Soufflé counts), without Python start-up.
Soufflé runs when ``souffle`` is on PATH or /work/souffle-src/build/src/souffle exists.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import children_cpu, command_line, fitted_exponent, write_run  # noqa: E402

DEFAULT_DEFINES = "100,200,400,700,1000,2000,3000"
#: The closure relations: the pairs (quadratic in this block; ``ppg_closure.dl``) and their
#: compact form (``ppg.dl``); see the module docstring.
CLOSURES = ("ppg_subset", "ppg_disjoint", "ppg_subset_core", "ppg_empty", "ppg_full",
            "ppg_disjoint_core", "ppg_void")
SOUFFLE_BUILD = Path("/work/souffle-src/build/src/souffle")


def child(program: str, facts: str, engine: str, scope: str) -> None:
    """Run ``program`` once (in this child process) and print its CPU time and row counts."""
    from pylogic.engines import load_program, run_program
    only = None
    if scope == "build":
        only = sorted(r for r in load_program(program).outputs if r not in CLOSURES)
    t0, c0 = time.process_time(), children_cpu()
    rows = run_program(program, facts, engine=engine, only=only)
    cpu = time.process_time() - t0 + children_cpu() - c0
    counts = {r: len(v) for r, v in sorted(rows.items()) if r.startswith("ppg_")}
    out = {"cpu_s": round(cpu, 3), "rows": counts,
           "us_per_row": round(cpu / max(1, sum(counts.values())) * 1e6, 2)}
    if "ppg_subset" in rows:
        out["outside_products"] = outside_products(rows)
    print(json.dumps(out))


def program_for(datalog: Path, scope: str) -> Path | None:
    """The program a scope runs: ``ppg_closure.dl`` for ``all`` (``ppg.dl`` before it existed,
    when ``ppg.dl`` output the pairs), else ``ppg.dl``; None for ``compact`` before the compact
    form existed."""
    closure = datalog / "ppg_closure.dl"
    if scope == "all":
        return closure if closure.exists() else datalog / "ppg.dl"
    if scope == "compact" and not closure.exists():
        return None
    return datalog / "ppg.dl"


def outside_products(rows: dict) -> dict:
    """The closure rows that are not in a product of node sets, read from the rows alone:
    ``ppg_subset`` pairs whose first node is not empty (⊆ false) and whose second is not full
    (⊇ true), ``ppg_disjoint`` pairs of which neither node is disjoint from every node of its
    graph. The rest is ``empty x nodes``, ``nodes x full`` and ``void x nodes`` both ways."""
    nodes = {}
    for f, g, n, k in rows["ppg_node"]:
        nodes[f, g] = nodes.get((f, g), 0) + 1
    empty = {(f, g, an, ak) for f, g, an, ak, bn, bk in rows["ppg_subset"]
             if (bn, bk) == ("false", "const")}
    full = {(f, g, bn, bk) for f, g, an, ak, bn, bk in rows["ppg_subset"]
            if (an, ak) == ("true", "const")}
    partners = {}
    for f, g, an, ak, _, _ in rows["ppg_disjoint"]:
        partners[f, g, an, ak] = partners.get((f, g, an, ak), 0) + 1
    void = {a for a, c in partners.items() if c == nodes[a[:2]]}
    return {"ppg_subset": sum((f, g, an, ak) not in empty and (f, g, bn, bk) not in full
                              for f, g, an, ak, bn, bk in rows["ppg_subset"]),
            "ppg_disjoint": sum((f, g, an, ak) not in void and (f, g, bn, bk) not in void
                                for f, g, an, ak, bn, bk in rows["ppg_disjoint"])}


def _limit(memory_gb: float):
    def apply():
        cap = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return apply


def measure(program: Path, facts: Path, engine: str, scope: str, timeout: float,
            memory_gb: float, env: dict) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.ppg_scale", "--child", str(program), str(facts),
           engine, scope]
    c0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, preexec_fn=_limit(memory_gb),
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return {"finished": False, "why": f"over {timeout:.0f} s"}
    rec = {"wall_s": round(time.perf_counter() - t0, 2),
           "process_cpu_s": round(children_cpu() - c0, 2)}
    if proc.returncode != 0:
        last = (err.strip().splitlines() or ["?"])[-1]
        why = "memory" if "MemoryError" in err or "bad_alloc" in err else last[:200]
        return {"finished": False, "why": why, **rec}
    return {"finished": True, **json.loads(out.strip().splitlines()[-1]), **rec}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=4, metavar=("PROGRAM", "FACTS", "ENGINE", "SCOPE"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--defines", default=DEFAULT_DEFINES)
    ap.add_argument("--engines", default="clingo,duckdb,souffle",
                    help="souffle is left out when its binary is absent")
    ap.add_argument("--scopes", default="build,compact,all")
    ap.add_argument("--before", metavar="REV", help="also run the datalog/ of this git revision")
    ap.add_argument("--labels", default="after,before",
                    help="which of the two programs to run (before: only with --before)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--memory-gb", type=float, default=6)
    ap.add_argument("--out", default="ppg-scale.json", help="file in runs/")
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return 0
    from pylogic.ir.synthetic_hyperblock import hyperblock_program

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if shutil.which("souffle") is None and SOUFFLE_BUILD.exists():
        env["PATH"] = f"{SOUFFLE_BUILD.parent}:{env.get('PATH', '')}"
    engines = [e for e in args.engines.split(",")
               if e != "souffle" or shutil.which("souffle", path=env.get("PATH"))]
    sizes = [int(n) for n in args.defines.split(",")]
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    results = []
    with tempfile.TemporaryDirectory(prefix="pathlogic-ppg-") as tmp:
        labels = args.labels.split(",")
        programs = {"after": ROOT / "datalog"} if "after" in labels else {}  # label -> datalog/
        if args.before and "before" in labels:
            old = Path(tmp) / "before"
            old.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "datalog"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            programs["before"] = old / "datalog"
        stopped = set()
        for n in sizes:
            src = Path(tmp) / f"src{n}"
            src.mkdir()
            (src / f"hyper{n}.pir").write_text(hyperblock_program(n))
            facts = Path(tmp) / f"facts{n}"
            subprocess.run([sys.executable, "-m", "pylogic.cli", "facts", str(src), "--out",
                            str(facts)], cwd=ROOT, env=env, check=True, capture_output=True)
            for label, datalog in programs.items():
                for engine in engines:
                    for scope in args.scopes.split(","):
                        key = (label, engine, scope)
                        program = program_for(datalog, scope)
                        if key in stopped or program is None:
                            continue
                        rec = {"label": label, "engine": engine, "scope": scope, "defines": n,
                               **measure(program, facts, engine, scope, args.timeout,
                                         args.memory_gb, env)}
                        if not rec["finished"]:
                            stopped.add(key)
                        results.append(rec)
                        print(json.dumps(rec), flush=True)
    growth = []
    for key in sorted({(r["label"], r["engine"], r["scope"]) for r in results}):
        done = [r for r in results if (r["label"], r["engine"], r["scope"]) == key and r["finished"]]
        growth.append({"label": key[0], "engine": key[1], "scope": key[2],
                       "defines": [r["defines"] for r in done],
                       "cpu_exponent": fitted_exponent([(r["defines"], r["cpu_s"]) for r in done]),
                       "rows_exponent": fitted_exponent(
                           [(r["defines"], sum(r["rows"].values())) for r in done]),
                       "us_per_row": [r["us_per_row"] for r in done],
                       "outside_products_exponent": fitted_exponent(
                           [(r["defines"], sum(r["outside_products"].values())) for r in done
                            if "outside_products" in r])})
    path = write_run(args.out, {"command": command_line("benchmarks.ppg_scale"), "commit": commit,
                                "before": args.before, "growth": growth, "results": results})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
