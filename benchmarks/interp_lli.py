"""The reference interpreter against LLVM's interpreter, per program (issue #32 item 5: at least
as fast as ``lli-14 -force-interpreter`` on the loop benchmarks).

    python -m benchmarks.interp_lli [--repeat 3] [--before CHECKOUT] [--out interp-lli.json]

Programs: the C loop of ``benchmarks/interp.py`` and the integer programs of ``benchmarks/real``
(``benchmarks.real_corpus.programs``). Each is run, best of ``--repeat`` CPU seconds (user +
system; the host is shared), by: this tree's interpreter (``run_module``, from a cold machine:
decoding included; PIR import excluded), ``--before``'s interpreter (another checkout, the same
way), and ``lli-14 -jit-kind=mcjit -force-interpreter`` on the program's ``clang-14 -O0`` IR
(its whole process: parsing the IR included). Each interpreter runs in a worker process (this
file run as a script with the checkout first on ``PYTHONPATH``) that times the runs itself.
Checked: both interpreters give the same stdout, exit status and instruction count, and lli the
same stdout and exit status. Reported per program: CPU seconds, ``interp / lli`` and
``interp / before``; in the summary their geometric means and sums, and the loop rows.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUEL = 50_000_000


def worker(path: str, repeat: int) -> dict:
    """Time this ``PYTHONPATH``'s interpreter on one C program (run in a worker process)."""
    from pylogic.interp import machine as interp_machine
    from pylogic.interp import run_module
    from pylogic.ir.load import load_program
    module, _ = load_program(path)
    best, res = None, None
    for _ in range(repeat):
        interp_machine.MACHINES.clear()  # decoding is part of the run
        t0 = time.process_time()
        res = run_module(module, fuel=FUEL)
        dt = time.process_time() - t0
        best = dt if best is None else min(best, dt)
    return {"cpu_s": round(best, 4), "instructions": res.counts["instructions"],
            "exit_status": res.exit_status, "stdout_sha1": hashlib.sha1(res.stdout_bytes).hexdigest(),
            "error": None if res.error is None else res.error.message[:80]}


def run_worker(checkout: str, path: str, repeat: int) -> dict:
    env = dict(os.environ, PYTHONPATH=checkout)
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", path,
                        "--repeat", str(repeat)], env=env, capture_output=True, text=True,
                       cwd=checkout, timeout=3600)
    if p.returncode:
        return {"failed": p.stderr[-300:]}
    return json.loads(p.stdout.splitlines()[-1])


def lli_cpu(lli: str, ll: str, repeat: int) -> dict:
    """Best CPU seconds of ``repeat`` runs of lli on ``ll``, its stdout and status."""
    from benchmarks.common import children_cpu
    best, p = None, None
    for _ in range(repeat):
        t0 = children_cpu()
        p = subprocess.run([lli, "-jit-kind=mcjit", "-force-interpreter", ll],
                           capture_output=True, timeout=3600)
        dt = children_cpu() - t0
        best = dt if best is None else min(best, dt)
    return {"cpu_s": round(best, 4), "exit_status": p.returncode,
            "stdout_sha1": hashlib.sha1(p.stdout).hexdigest()}


def programs(work: str) -> list:
    from benchmarks.interp import C_LOOP
    from benchmarks.real_corpus import programs as real
    loop = os.path.join(work, "loop.c")
    with open(loop, "w") as fh:
        fh.write(C_LOOP)
    return [("c-loop (benchmarks/interp.py)", loop)] + [
        (name, os.path.join(ROOT, path) if not os.path.isabs(path) else path)
        for name, path in real()]


def geomean(xs: list) -> float:
    return round(math.exp(sum(math.log(x) for x in xs) / len(xs)), 3) if xs else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", metavar="CHECKOUT", help="another checkout to time beside this one")
    ap.add_argument("--only", default="", help="comma-separated substrings of program names")
    ap.add_argument("--out", default="interp-lli.json", help="file name in runs/")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.worker, a.repeat)))
        return 0
    from benchmarks.common import command_line, write_run
    from pylogic.ir.llvm.clang import find_clang
    clang, lli = find_clang(), shutil.which("lli-14") or shutil.which("lli")
    rows = []
    with tempfile.TemporaryDirectory(prefix="pathlogic-lli-") as work:
        for name, path in programs(work):
            if a.only and not any(s in name for s in a.only.split(",")):
                continue
            row = {"program": name, "interp": run_worker(ROOT, path, a.repeat)}
            if a.before:
                row["before"] = run_worker(os.path.abspath(a.before), path, a.repeat)
            ll = os.path.join(work, "p.ll")
            c = subprocess.run([clang, "-S", "-emit-llvm", "-O0", "-w", "-o", ll, path],
                               capture_output=True)
            if lli and c.returncode == 0:
                row["lli"] = lli_cpu(lli, ll, a.repeat)
            it, li, be = row["interp"], row.get("lli"), row.get("before")
            if "cpu_s" in it and li:
                row["same_as_lli"] = (it["stdout_sha1"], it["exit_status"]) == \
                    (li["stdout_sha1"], li["exit_status"])
                row["interp_over_lli"] = round(it["cpu_s"] / li["cpu_s"], 3)
            if "cpu_s" in it and be and "cpu_s" in be:
                row["same_as_before"] = all(it[k] == be[k] for k in (
                    "instructions", "exit_status", "stdout_sha1", "error"))
                row["interp_over_before"] = round(it["cpu_s"] / be["cpu_s"], 3)
            rows.append(row)
            print(json.dumps(row), flush=True)
    ok = [r for r in rows if "interp_over_lli" in r]
    summary = {
        "programs": len(rows),
        "same_as_lli": sum(bool(r.get("same_as_lli")) for r in rows),
        "interp_over_lli_geomean": geomean([r["interp_over_lli"] for r in ok]),
        "interp_over_lli_total": round(sum(r["interp"]["cpu_s"] for r in ok) /
                                       sum(r["lli"]["cpu_s"] for r in ok), 3) if ok else None,
        "at_most_lli": sum(r["interp_over_lli"] <= 1 for r in ok),
        "worst": max(ok, key=lambda r: r["interp_over_lli"])["program"] if ok else None,
        "c_loop_interp_over_lli": next((r.get("interp_over_lli") for r in rows
                                        if r["program"].startswith("c-loop")), None),
    }
    if a.before:
        both = [r for r in rows if "interp_over_before" in r]
        summary.update(
            same_as_before=sum(bool(r.get("same_as_before")) for r in rows),
            interp_over_before_geomean=geomean([r["interp_over_before"] for r in both]),
            before_over_lli_geomean=geomean([r["before"]["cpu_s"] / r["lli"]["cpu_s"]
                                             for r in both if r.get("lli")]))
    path = write_run(a.out, {"benchmark": "interp_lli",
                             "command": command_line("benchmarks.interp_lli", argv),
                             "settings": {"repeat": a.repeat, "fuel": FUEL, "before": a.before,
                                          "lli": "lli-14 -jit-kind=mcjit -force-interpreter",
                                          "ir": "clang-14 -S -emit-llvm -O0 -w"},
                             "summary": summary, "rows": rows})
    print(json.dumps(summary))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    if ROOT not in sys.path and "--worker" not in sys.argv:
        sys.path.insert(0, ROOT)
    sys.exit(main())
