"""clingo vs duckdb (issue #12 item 4), the two embedded engines, on the same inputs; writes
runs/engine-duckdb.json.

    python -m benchmarks.engine_duckdb [--sizes 1000,10000,30000] [--kinds chain,structured,random]
        [--engines clingo,duckdb] [--csmith 40] [--timeout 120] [--out runs/engine-duckdb.json]

(a) What ``pathlogic analyze`` runs on every function (the catalog's function-scope analyses
composed, ``pylogic.analysis.run.analyze_modules``, no cache) on one generated function: a chain
b0 -> ... -> b(N-1), a structured CFG and a random CFG (benchmarks/cfg_analyses.py's
generators; "random" keeps two successors per block, plain branches as dominance_scale.py's
random, "hyper" keeps them all: hyperblocks with predicate defines, so the PPG runs too) of N
blocks; each run in its own process with a time limit, recording the time, the
rows and a digest of them: the engines must give the same digest.
(b) ``pathlogic analyze`` of csmith seeds 1..K plus the examples on each engine (``--no-cache``):
the analysis phase is the sum of the engine calls in summary.json; the results directories
must be byte-identical.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import children_cpu, command_line, fitted_exponent, write_run  # noqa: E402


def _function(kind: str, size: int):
    import random
    from pylogic.ir.synthetic import function_from_cfg, irreducible_cfg, random_cfg, structured_cfg
    if kind == "irreducible":
        labels, succs = irreducible_cfg(random.Random(size), size)
    elif kind == "chain":
        labels = [f"b{i}" for i in range(size)]
        succs = {b: [labels[i + 1]] if i + 1 < size else [] for i, b in enumerate(labels)}
    elif kind == "structured":
        budget = size
        labels, succs = structured_cfg(random.Random(size), budget)
        while len(labels) < size:
            budget = int(budget * size / max(len(labels), 1)) + 1
            labels, succs = structured_cfg(random.Random(size), budget)
    else:  # random: each block keeps its first two successors, as dominance_scale.py's random
        labels, succs = random_cfg(random.Random(size), size, edge_factor=1.4, exit_prob=0.05)
        if kind == "random":
            succs = {b: list(dict.fromkeys(s))[:2] for b, s in succs.items()}
    return function_from_cfg("@f", labels, succs), len(labels)


def child(kind: str, size: int, engine: str) -> dict:
    """One measurement (run in a subprocess by ``cfg_runs``)."""
    os.environ["PATHLOGIC_CACHE"] = "off"
    from pylogic.analysis.run import analyze_modules
    from pylogic.ir.model import Module
    fn, blocks = _function(kind, size)
    start = time.perf_counter()
    run = analyze_modules([(Module(functions=(fn,)), "bench.pir")], engine=engine)
    seconds = time.perf_counter() - start
    rows = run.rows.of("bench.pir::@f")
    digest = hashlib.sha256(json.dumps({r: sorted(map(list, v)) for r, v in sorted(rows.items())},
                                       sort_keys=True).encode()).hexdigest()
    return {"blocks": blocks, "seconds": round(seconds, 3),
            "rows": sum(len(v) for v in rows.values()), "digest": digest}


def cfg_runs(kinds, sizes, engines, timeout: float) -> list[dict]:
    out = []
    for kind in kinds:
        for engine in engines:
            given_up = False
            for size in sizes:
                rec = {"kind": kind, "size": size, "engine": engine}
                if given_up:
                    rec["status"] = "not run (a smaller size timed out)"
                else:
                    try:
                        proc = subprocess.run([sys.executable, "-m", "benchmarks.engine_duckdb",
                                               "--child", kind, str(size), engine],
                                              cwd=ROOT, capture_output=True, text=True,
                                              timeout=timeout,
                                              env={**os.environ, "PYTHONPATH": str(ROOT)})
                        if proc.returncode == 0:
                            rec.update(json.loads(proc.stdout.strip().splitlines()[-1]))
                            rec["status"] = "ok"
                        else:
                            rec["status"] = "error: " + (proc.stderr.strip().splitlines() or
                                                         ["?"])[-1]
                    except subprocess.TimeoutExpired:
                        rec["status"] = f"timeout ({timeout:g} s)"
                        given_up = True
                print(json.dumps(rec), flush=True)
                out.append(rec)
    return out


def corpus_runs(csmith: int, engines, workdir: Path) -> dict:
    from benchmarks.corpus import csmith_program
    src = workdir / "corpus"
    src.mkdir(parents=True, exist_ok=True)
    for pir in (ROOT / "examples").glob("*.pir"):
        shutil.copy(pir, src / pir.name)
    for seed in range(1, csmith + 1):
        path = csmith_program(seed, str(workdir))
        if path is not None:
            shutil.copy(path, src / f"seed{seed}.c")
    result = {"programs": len(list(src.iterdir())), "engines": {}}
    for engine in engines:
        out = workdir / f"out-{engine}"
        start, cpu = time.perf_counter(), children_cpu()
        proc = subprocess.run([sys.executable, "-m", "pylogic.cli", "analyze", str(src), "--out",
                               str(out), "--engine", engine, "--no-cache", "--quiet"], cwd=ROOT,
                              capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        wall, cpu = time.perf_counter() - start, children_cpu() - cpu
        summary = json.loads((out / "summary.json").read_text())
        result["engines"][engine] = {
            "exit": proc.returncode, "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "analysis_seconds": round(sum(c["seconds"] for c in summary["engine_calls"]), 2),
            "engine_calls": len(summary["engine_calls"]),
            "functions": len(summary.get("functions") or [])}
        print(json.dumps({engine: result["engines"][engine]}), flush=True)
    first, *rest = engines
    same = {}
    for other in rest:
        a, b = workdir / f"out-{first}" / "results", workdir / f"out-{other}" / "results"
        files = sorted(p.name for p in a.iterdir())
        same[f"{first}={other}"] = (files == sorted(p.name for p in b.iterdir()) and
                                    all((a / f).read_bytes() == (b / f).read_bytes()
                                        for f in files))
        result["result_files"] = len(files)
    result["results_identical"] = same
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3, metavar=("KIND", "SIZE", "ENGINE"), help=argparse.SUPPRESS)
    ap.add_argument("--sizes", default="1000,10000,30000")
    ap.add_argument("--kinds", default="chain,structured,random")
    ap.add_argument("--engines", default="clingo,duckdb")
    ap.add_argument("--csmith", type=int, default=40, help="csmith seeds 1..N (0: skip)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--out", default="engine-duckdb.json", help="file name under runs/")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child[0], int(a.child[1]), a.child[2])))
        return 0
    engines = a.engines.split(",")
    sizes = [int(s) for s in a.sizes.split(",") if s]
    cfg = cfg_runs(a.kinds.split(","), sizes, engines, a.timeout) if sizes else []
    growth = {}
    for kind in a.kinds.split(","):
        for engine in engines:
            pts = [(r["blocks"], r["seconds"]) for r in cfg if r["kind"] == kind and
                   r["engine"] == engine and r.get("status") == "ok"]
            growth[f"{kind}/{engine}"] = fitted_exponent(pts)
    agree = {}
    for r in cfg:
        if r.get("digest"):
            agree.setdefault((r["kind"], r["size"]), set()).add(r["digest"])
    corpus = None
    if a.csmith:
        with tempfile.TemporaryDirectory(prefix="pathlogic-engines-") as tmp:
            corpus = corpus_runs(a.csmith, engines, Path(tmp))
    path = write_run(a.out, {
        "command": command_line("benchmarks.engine_duckdb"),
        "note": "timings taken on a 2-core machine shared with other jobs (load average in "
                "machine); each CFG measurement in its own process",
        "cfg": cfg, "growth_exponent": growth,
        "cfg_rows_agree": {f"{k}:{s}": len(d) == 1 for (k, s), d in agree.items()},
        "corpus": corpus})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
