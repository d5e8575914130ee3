"""Real-program corpora for the LLVM/C front end: import coverage and differential validation.

(a) csmith programs, fixed seeds 1..N (``csmith --seed N`` with CSMITH_OPTIONS: no floats, small
    programs); they print a checksum. Native runs that exceed the timeout are recorded as
    ``timeout`` (csmith programs may loop for a long time), interpreter runs out of fuel as ``fuel``.
(b) ``gcc.c-torture/execute`` from Debian's gcc-12-source (top-level ``*.c``): programs clang-14
    compiles and whose LLVM IR has no floating point; self-checking (abort() on failure).

Each program: compile to LLVM IR, import (timed), run natively and in the interpreter, compare
stdout and exit status (``pylogic.interp.differential.native_vs_pir``). Writes
``runs/import-coverage.json`` and prints a summary.

    python -m benchmarks.corpus --csmith 50 --torture 200 --jobs 2 --budget 1800
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed

from benchmarks.common import command_line, run_text
from pylogic.errors import PathlogicError
from pylogic.interp.differential import native_vs_pir
from pylogic.ir.llvm.clang import compile_c_to_ll
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.verify import verify_module
from pylogic.report.table import StreamTable

CSMITH_OPTIONS = ("--no-float", "--max-funcs", "5", "--max-block-depth", "3",
                  "--max-expr-complexity", "5", "--no-packed-struct")
DEFAULT_WORKDIR = "/tmp/pathlogic-corpus"
DEFAULT_OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "runs", "import-coverage.json")
TORTURE_DIR = "gcc/testsuite/gcc.c-torture/execute/"
TREE_SSA_DIR = "gcc/testsuite/gcc.dg/tree-ssa/"
FLOAT_IR = re.compile(r"(?<![%@\w.\"])(?:half|float|double|x86_fp80|fp128)(?![\w.])")
FUEL = 20_000_000
NATIVE_TIMEOUT = 5.0
#: Outcomes of ``native_vs_pir`` after both sides ran.
RAN = ("identical", "different", "incomplete", "fuel", "limit", "unsupported", "both-stopped")
#: ``--csmith-options``: csmith's own defaults (bitfields, packed structs, bigger programs), or
#: the small programs the earlier runs used.
CSMITH_PRESETS = {"small": CSMITH_OPTIONS, "default": ()}
#: One line per program as it finishes (no header: the lines are a log).
PROGRESS = StreamTable(["kind", "program", "status", "detail"], [7, 28, 15, 0], sep=" ")


# ---------------------------------------------------------------- program sources

def csmith_program(seed: int, workdir: str, preset: str = "small") -> str | None:
    """Generate (once) the csmith program for ``seed``; None when csmith is absent."""
    folder = "csmith" if preset == "small" else f"csmith-{preset}"
    os.makedirs(os.path.join(workdir, folder), exist_ok=True)
    path = os.path.join(workdir, folder, f"seed{seed}.c")
    if not os.path.exists(path):
        # written aside and renamed: two processes (pytest-xdist workers, --jobs) asking for the
        # same seed never read a half-written program
        tmp = f"{path}.{os.getpid()}.partial"
        try:
            subprocess.run(["csmith", "--seed", str(seed), *CSMITH_PRESETS[preset], "-o", tmp],
                           check=True, capture_output=True, timeout=60)
            os.replace(tmp, path)
        except (OSError, subprocess.SubprocessError):
            if os.path.exists(tmp):
                os.unlink(tmp)
            return None
    return path


def torture_programs(workdir: str) -> list[str]:
    """Extract (once) gcc.c-torture/execute/*.c from the gcc-12-source tarball."""
    return _gcc_testsuite_programs(workdir, "torture", TORTURE_DIR)


def tree_ssa_programs(workdir: str) -> list[str]:
    """Extract (once) gcc.dg/tree-ssa/*.c from the gcc-12-source tarball. Most are compile-only
    tests (``dg-do compile``, no ``main``): they import and optimize, but cannot be run."""
    return _gcc_testsuite_programs(workdir, "tree-ssa", TREE_SSA_DIR)


def _gcc_testsuite_programs(workdir: str, folder: str, member_dir: str) -> list[str]:
    dest = os.path.join(workdir, folder)
    done = os.path.join(dest, ".extracted")
    if not os.path.exists(done):
        tarballs = sorted(glob.glob("/usr/src/gcc-12/gcc-*.tar.*"))
        if not tarballs:
            return []
        # extracted aside and renamed whole: two processes (pytest-xdist workers, --jobs) never
        # see a half-extracted directory; a directory left by an interrupted run is replaced
        os.makedirs(workdir, exist_ok=True)
        part = tempfile.mkdtemp(prefix=f".{folder}-", dir=workdir)
        with tarfile.open(tarballs[0]) as tf:
            for member in tf:
                name = member.name
                k = name.find(member_dir)
                if k < 0 or not member.isfile() or not name.endswith(".c"):
                    continue
                rest = name[k + len(member_dir):]
                if "/" in rest:
                    continue  # ieee/, builtins/ need special harnesses
                with open(os.path.join(part, rest), "wb") as fh:
                    fh.write(tf.extractfile(member).read())
        open(os.path.join(part, ".extracted"), "w").close()
        os.chmod(part, 0o755)
        if os.path.isdir(dest) and not os.path.exists(done):
            shutil.rmtree(dest, ignore_errors=True)
        try:
            os.rename(part, dest)
        except OSError:                                # another process got there first
            shutil.rmtree(part, ignore_errors=True)
    return sorted(glob.glob(os.path.join(dest, "*.c")))


# ---------------------------------------------------------------- one program

def evaluate(path: str, kind: str, fuel: int = FUEL, timeout: float = NATIVE_TIMEOUT) -> dict:
    """Compile, import (timed), then ``native_vs_pir``; one JSON-ready outcome record."""
    rec = {"program": os.path.basename(path), "kind": kind, "status": "", "detail": ""}
    try:
        ll = compile_c_to_ll(path, extra_flags=("-w",))
    except PathlogicError as exc:
        rec.update(status="compile-error", detail=str(exc)[:200])
        return rec
    if kind == "torture" and FLOAT_IR.search(ll):
        rec.update(status="excluded-float")
        return rec
    t0 = time.perf_counter()
    try:
        module, report = import_llvm(ll, path)
    except PathlogicError as exc:
        rec.update(status="import-error", detail=str(exc)[:200])
        return rec
    rec["import_seconds"] = time.perf_counter() - t0
    totals = report.totals()
    rec.update(functions=totals["functions"], functions_imported=totals["functions_imported"],
               llvm_instructions=totals["llvm_instructions"],
               llvm_instructions_imported=totals["llvm_instructions_imported"],
               pir_instructions=totals["pir_instructions"],
               skipped={r: n for r, n in report.skipped_by_reason().items()},
               complete=report.complete)
    errors = verify_module(module)
    if errors:
        rec.update(status="verify-error", detail=str(errors[0])[:200])
        return rec
    if report.function("main") is None:
        rec.update(status="not-imported", detail="no main")
        return rec
    v = native_vs_pir(path, fuel, timeout=timeout, module=module, report=report,
                      self_checking=kind == "torture")
    rec.update(status=v.status, detail=v.detail[:250])
    if v.status in RAN:
        rec["interp_seconds"] = v.pir_seconds
        rec["pir_executed"] = v.pir_instructions_executed
    return rec


# ---------------------------------------------------------------- summary

def summarise(records: list[dict]) -> dict:
    imported = [r for r in records if "functions" in r]
    fn = sum(r["functions"] for r in imported)
    fn_ok = sum(r["functions_imported"] for r in imported)
    llvm_n = sum(r["llvm_instructions"] for r in imported)
    secs = sum(r["import_seconds"] for r in imported)
    status = Counter(r["status"] for r in records)
    reasons = Counter()
    for r in imported:
        for reason, names in r.get("skipped", {}).items():
            reasons[reason] += len(names)
    run = [r for r in records if r["status"] in RAN]
    return {
        "programs": len(records),
        "status": dict(status.most_common()),
        "functions": fn, "functions_imported": fn_ok,
        "function_import_rate": round(fn_ok / fn, 4) if fn else None,
        "programs_imported_completely": sum(1 for r in imported if r.get("complete")),
        "programs_considered": len(imported),
        "complete_import_rate": (round(sum(1 for r in imported if r.get("complete")) / len(imported), 4)
                                 if imported else None),
        "identical": status.get("identical", 0),
        "identical_rate_of_run": round(status.get("identical", 0) / len(run), 4) if run else None,
        "complete_and_identical_rate": (round(status.get("identical", 0) / len(imported), 4)
                                        if imported else None),
        "llvm_instructions": llvm_n,
        "import_seconds": round(secs, 3),
        "import_llvm_instructions_per_second": round(llvm_n / secs) if secs else None,
        "skipped_functions_by_reason": dict(reasons.most_common()),
    }


def run_corpus(paths: list[tuple[str, str]], jobs: int, budget: float, fuel: int,
               timeout: float) -> tuple[list[dict], int]:
    """Evaluate (path, kind) pairs in parallel within ``budget`` seconds; returns (records,
    number not attempted for lack of time)."""
    records, start = [], time.time()
    pending = list(paths)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {}
        while pending or futures:
            while pending and len(futures) < jobs and time.time() - start < budget:
                p, kind = pending.pop(0)
                futures[pool.submit(evaluate, p, kind, fuel, timeout)] = (p, kind)
            if not futures:
                break
            done = next(as_completed(futures))
            p, kind = futures.pop(done)
            try:
                rec = done.result()
            except Exception as exc:  # an importer crash is a finding, not a reason to stop
                rec = {"program": os.path.basename(p), "kind": kind, "status": "crash",
                       "detail": f"{type(exc).__name__}: {exc}"[:300]}
            records.append(rec)
            print("  " + PROGRESS.row([rec["kind"], rec["program"], rec["status"],
                                       rec.get("detail", "")[:90]]), flush=True)
    return records, len(pending)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csmith", type=int, default=50, help="seeds 1..N (0: none)")
    ap.add_argument("--csmith-options", choices=sorted(CSMITH_PRESETS), default="small",
                    help="small programs (the earlier runs) or csmith's own defaults")
    ap.add_argument("--torture", default="100", help="sample size, or 'all' (0: none)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--budget", type=float, default=1800, help="wall-time budget (s)")
    ap.add_argument("--fuel", type=int, default=FUEL)
    ap.add_argument("--timeout", type=float, default=NATIVE_TIMEOUT)
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--seed", type=int, default=12, help="torture sampling seed")
    a = ap.parse_args(argv)
    t0 = time.time()
    result = {"command": command_line("benchmarks.corpus", argv),
              "settings": {"csmith_options": list(CSMITH_PRESETS[a.csmith_options]), "fuel": a.fuel,
                           "native_timeout": a.timeout, "jobs": a.jobs}}
    if a.csmith:
        paths = [(p, "csmith") for s in range(1, a.csmith + 1)
                 if (p := csmith_program(s, a.workdir, a.csmith_options)) is not None]
        print(f"csmith: {len(paths)} programs")
        recs, left = run_corpus(paths, a.jobs, a.budget / (2 if a.torture != "0" else 1), a.fuel, a.timeout)
        result["csmith"] = {"summary": summarise(recs), "not_attempted": left,
                            "programs": sorted(recs, key=lambda r: r["program"])}
    if a.torture != "0":
        progs = torture_programs(a.workdir)
        if a.torture != "all":
            random.Random(a.seed).shuffle(progs)
            progs = sorted(progs[:int(a.torture)])
        print(f"torture: {len(progs)} programs")
        recs, left = run_corpus([(p, "torture") for p in progs], a.jobs,
                                max(60.0, a.budget - (time.time() - t0)), a.fuel, a.timeout)
        considered = [r for r in recs if r["status"] not in ("compile-error", "excluded-float",
                                                              "native-fails", "native-error")]
        result["torture"] = {"summary": summarise(considered), "all_status": dict(Counter(r["status"] for r in recs)),
                             "not_attempted": left,
                             "programs": sorted(recs, key=lambda r: r["program"])}
    result["wall_seconds"] = round(time.time() - t0, 1)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as fh:
        fh.write(run_text(result) + "\n")
    for key in ("csmith", "torture"):
        if key in result:
            print(f"{key}: " + json.dumps(result[key]["summary"], indent=1))
    print(f"wrote {a.out} in {result['wall_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
