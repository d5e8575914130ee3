"""A refactoring check stronger than the tests: every registered pass and every pipeline
docs/passes.md names, on a corpus, each optimized program reduced to the SHA-256 of its printed text.
Two runs (before and after a change) agree only when every program's every version is
byte-identical, or failed with the same message on both sides.

    python -m benchmarks.refactor_check --csmith 1-50 --torture all --name before --jobs 2
    python -m benchmarks.refactor_check --compare runs/raw/refactor-before.json runs/raw/refactor-after.json

``--pipeline '*pre*' --pipeline simplify`` keeps only the pipelines matching one of the globs
(fnmatch on the comma-joined names), for a change that touches only those passes.

Programs are prepared exactly as ``benchmarks.optimize`` prepares them (clang-14 -O0, mem2reg,
lowerswitch, a driver for compile-only tests). Pipelines share their prefixes: ``pre-mr,pre-m``
runs ``pre-m`` on the ``pre-mr`` result already computed (``analysis.optimize`` chains passes the
same way). Nothing runs in the interpreter: the harness figures come from ``benchmarks.optimize``.
"""
from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from benchmarks.common import command_line, machine_info
from benchmarks.optimize import DEFAULT_WORKDIR, corpus, prepare_program, source_state
from pylogic.analysis.optimize import optimize
from pylogic.errors import PathlogicError
from pylogic.ir.printer import print_module
from pylogic.transforms.registry import PASSES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: the pipelines docs/passes.md names, beyond every registered pass alone
DOCUMENTED_PIPELINES = (
    "pre-mr,pre-m", "pre-ms,pre-m", "pre-mr-budget,pre-m", "pre-r,pre-m", "pre-mr,pre-m,dce",
    "vng-fre,pre-mr,pre-m", "simplify,pre-mr,pre-m", "simplify,pre-mr,pre-m,simplify",
    "if-convert,sccp", "if-convert,pcp-basic", "if-convert,pcp-full", "if-convert,ppde",
    "icbe,icbe",
    # the combined pipelines the speed and after-O2 runs time (issue #28 items 1 and 3:
    # runs/optimize-speed-csmith50-*.json, benchmarks/gvn_wins.py)
    "sccp,dce,simplify,pre-mr,pre-m,simplify,icbe",
    "sccp,dce,simplify,pre-mr,pre-m,simplify,icbe,coalesce",
)


def pipelines(globs: tuple = ()) -> list[tuple[str, ...]]:
    """Every registered pass alone, then the documented pipelines; with ``globs``, those whose
    comma-joined names match one of them."""
    singles = [(name,) for name in sorted(PASSES)]
    every = singles + [tuple(p.split(",")) for p in DOCUMENTED_PIPELINES]
    if not globs:
        return every
    return [p for p in every if any(fnmatch.fnmatchcase(",".join(p), g)
                                    for g in globs)]


def unmatched(globs: tuple) -> list[str]:
    """The globs of ``--pipeline`` that match no pipeline (a check that would silently skip
    what it was asked to check)."""
    return [g for g in globs if not pipelines((g,))]


def _digest(module) -> str:
    return hashlib.sha256(print_module(module).encode()).hexdigest()


def check_program(item) -> dict:
    """One program: {pipeline: sha256 | 'error: ...'} and the seconds of each step."""
    name, kind, path, globs, engine = item
    rec = {"program": name, "kind": kind, "versions": {}, "seconds": {}}
    try:
        prepared = prepare_program(kind, path)
        if prepared is None:
            rec["status"] = "excluded: floating point"
            return rec
        module = prepared[0]
    except PathlogicError as exc:
        rec["status"] = f"prepare-error: {exc}"[:200]
        return rec
    except Exception as exc:    # an importer crash is the program's finding, not the run's
        rec["status"] = f"crash: {type(exc).__name__}: {exc}"[:200]
        return rec
    rec["status"] = "ok"
    done: dict[tuple, object] = {(): module}
    for pipeline in pipelines(globs):
        prefix = max((p for p in done if pipeline[:len(p)] == p), key=len)
        current = done[prefix]
        label = ",".join(pipeline)
        if isinstance(current, str):            # an earlier step failed
            rec["versions"][label] = current
            continue
        for k in range(len(prefix), len(pipeline)):
            t0 = time.perf_counter()
            step = pipeline[:k + 1]
            try:
                current = optimize(current, [pipeline[k]], name, engine=engine).module
            except PathlogicError as exc:
                current = f"error: {exc}"[:300]
            except Exception as exc:
                current = f"crash: {type(exc).__name__}: {exc}"[:300]
            rec["seconds"][",".join(step)] = round(time.perf_counter() - t0, 3)
            done[step] = current
            if isinstance(current, str):
                break
        for k in range(len(prefix) + 1, len(pipeline) + 1):
            done.setdefault(pipeline[:k], current)
        rec["versions"][label] = current if isinstance(current, str) else _digest(current)
    return rec


def compare(before_path: str, after_path: str) -> int:
    before = {r["program"]: r for r in json.load(open(before_path))["programs"]}
    after = {r["program"]: r for r in json.load(open(after_path))["programs"]}
    differ, same, missing = [], 0, sorted(set(before) ^ set(after))
    for name in sorted(set(before) & set(after)):
        b, a = before[name], after[name]
        if b["status"] != a["status"]:
            differ.append(f"{name}: status {b['status']!r} -> {a['status']!r}")
            continue
        for label in sorted(set(b["versions"]) | set(a["versions"])):
            if b["versions"].get(label) != a["versions"].get(label):
                differ.append(f"{name} {label}: {b['versions'].get(label)} -> "
                              f"{a['versions'].get(label)}")
            else:
                same += 1
    for line in differ:
        print(line)
    print(f"{same} versions byte-identical, {len(differ)} differ, "
          f"{len(missing)} programs in one run only")
    return 0 if not differ and not missing else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", action="store_true")
    ap.add_argument("--csmith", default="")
    ap.add_argument("--torture", default="0")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--tree-ssa", default="")
    ap.add_argument("--real", nargs="?", const="all", default="", metavar="GLOBS",
                    help="the llvm-test-suite programs of benchmarks/real (as benchmarks.optimize)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--name", default="check")
    ap.add_argument("--out", default=None)
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE.json", "AFTER.json"))
    ap.add_argument("--pipeline", action="append", default=[], metavar="GLOB",
                    help="only the pipelines matching this glob (repeatable)")
    ap.add_argument("--engine", default="clingo",
                    help="the passes' Datalog engine (default clingo, as the references were "
                         "made; 'auto' runs small calls on 'python': an engine change is a "
                         "refactoring too)")
    a = ap.parse_args(argv)
    if a.compare:
        return compare(*a.compare)
    missing = unmatched(tuple(a.pipeline))
    if missing:
        ap.error(f"--pipeline {', '.join(missing)}: matches no pipeline (every registered pass "
                 "alone and DOCUMENTED_PIPELINES; add a new pipeline there)")
    items = [item + (tuple(a.pipeline), a.engine) for item in
             corpus(a.examples, a.csmith, a.torture, a.workdir, a.seed, a.tree_ssa, a.real)]
    source = source_state()
    t0 = time.time()
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs) as pool:
            records = list(pool.map(check_program, items, chunksize=1))
    else:
        records = [check_program(item) for item in items]
    out = a.out or os.path.join(ROOT, "runs", "raw", f"refactor-{a.name}.json")   # ignored: raw
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    payload = {"command": command_line("benchmarks.refactor_check", argv),
               "machine": machine_info(), "source": source, "name": a.name,
               "pipelines": [",".join(p) for p in pipelines(tuple(a.pipeline))],
               "wall_seconds": round(time.time() - t0, 1), "programs": records}
    with open(out, "w") as fh:
        json.dump(payload, fh, indent=0)
        fh.write("\n")
    ok = sum(r["status"] == "ok" for r in records)
    print(f"wrote {out}: {len(records)} programs ({ok} optimized), {payload['wall_seconds']} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
