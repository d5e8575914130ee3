"""Ad hoc query speed of the embedded engines against Soufflé's interpreter (issue #29 item 6):
writes runs/query-speed.json.

    python -m benchmarks.query_speed [--edges 2000] [--tree 500] [--repeat 3] [--out F]

Two programs a researcher writes by hand: transitive closure over ``--edges`` random edges (of
``--edges`` / 2 nodes, seed 1) and same-generation on a random tree of ``--tree`` nodes. Each
engine evaluates the already checked program in this process (the in-process figure: no Python
start-up; clingo and duckdb); Soufflé is timed as its own process (``souffle -F facts -D out
prog.dl``, its interpreter; its start-up is about 0.01 s). Best of ``--repeat`` runs, wall and
CPU seconds; the rows of every engine are compared (an engine that disagrees is reported, not
timed as a success).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import command_line, write_run  # noqa: E402

PROGRAMS = {
    "transitive_closure": """
.decl edge(x: number, y: number)
.input edge
.decl path(x: number, y: number)
.output path
path(x, y) :- edge(x, y).
path(x, z) :- path(x, y), edge(y, z).
""",
    "same_generation": """
.decl parent(c: number, p: number)
.input parent
.decl sg(x: number, y: number)
.output sg
sg(x, y) :- parent(x, p), parent(y, p), x != y.
sg(x, y) :- parent(x, a), sg(a, b), parent(y, b).
""",
}


def facts_for(name: str, edges: int, tree: int) -> dict:
    rng = random.Random(1)
    if name == "transitive_closure":
        nodes = max(2, edges // 2)
        pairs = set()
        while len(pairs) < edges:
            pairs.add((rng.randrange(nodes), rng.randrange(nodes)))
        return {"edge": sorted(pairs)}
    return {"parent": [(c, rng.randrange(c)) for c in range(1, tree)]}


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _digest(rows: dict) -> str:
    return hashlib.sha256(json.dumps({r: sorted(map(list, v)) for r, v in sorted(rows.items())}
                                     ).encode()).hexdigest()[:16]


def time_engine(engine: str, program_path: Path, facts: dict, repeat: int) -> dict:
    from pylogic.engines import load_program, run_checked
    checked = load_program(program_path)
    best, rows = None, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), _cpu()
        rows = run_checked(checked, None, engine, facts)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        if best is None or wall < best[0]:
            best = (wall, cpu)
    return {"wall": round(best[0], 4), "cpu": round(best[1], 4),
            "rows": sum(len(v) for v in rows.values()), "digest": _digest(rows)}


def time_souffle(program_path: Path, facts: dict, repeat: int) -> dict | None:
    souffle = shutil.which("souffle")
    if souffle is None:
        return None
    from pylogic.engines import load_program
    from pylogic.engines.csv_io import read_output
    checked = load_program(program_path)
    with tempfile.TemporaryDirectory() as tmp:
        fdir, odir = Path(tmp) / "facts", Path(tmp) / "out"
        fdir.mkdir()
        odir.mkdir()
        for rel, rows in facts.items():
            (fdir / f"{rel}.facts").write_text("".join("\t".join(map(str, r)) + "\n"
                                                       for r in rows))
        best = None
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), _cpu()
            subprocess.run([souffle, "-F", str(fdir), "-D", str(odir), str(program_path)],
                           check=True, capture_output=True)
            wall, cpu = time.perf_counter() - t0, _cpu() - c0
            if best is None or wall < best[0]:
                best = (wall, cpu)
        rows = {rel: read_output(odir / f"{rel}.csv", checked.relations[rel])
                for rel in checked.outputs}
    return {"wall": round(best[0], 4), "cpu": round(best[1], 4),
            "rows": sum(len(v) for v in rows.values()), "digest": _digest(rows)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edges", type=int, default=2000)
    ap.add_argument("--tree", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--engines", default="clingo,duckdb")
    ap.add_argument("--out", default="query-speed.json")
    a = ap.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in PROGRAMS.items():
            path = Path(tmp) / f"{name}.dl"
            path.write_text(text)
            facts = facts_for(name, a.edges, a.tree)
            row = {}
            souffle = time_souffle(path, facts, a.repeat)
            if souffle is not None:
                row["souffle"] = souffle
            for engine in a.engines.split(","):
                row[engine] = time_engine(engine, path, facts, a.repeat)
                if souffle is not None:
                    row[engine]["over_souffle_wall"] = round(row[engine]["wall"] / souffle["wall"], 2)
                    row[engine]["over_souffle_cpu"] = round(row[engine]["cpu"] / souffle["cpu"], 2)
                    row[engine]["agrees_with_souffle"] = row[engine]["digest"] == souffle["digest"]
            results[name] = row
            print(name, json.dumps(row), flush=True)
    payload = {"command": command_line("benchmarks.query_speed", argv),
               "sizes": {"edges": a.edges, "tree": a.tree}, "results": results,
               "souffle": shutil.which("souffle") or "absent"}
    print(write_run(a.out, payload))
    return 0


if __name__ == "__main__":
    sys.exit(main())
