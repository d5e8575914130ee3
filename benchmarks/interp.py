"""Execution speed: the reference interpreter against the native engine (issue #12 item 5),
LLVM's interpreter and native code.

    python -m benchmarks.interp [--sizes 30,100,300,1000] [--repeat 3] [--csmith 1-50]
        [--long-fuel 100000000] [--timeout 10] [--out runs/bench-interp.json]

(0) A C loop (the one of benchmarks/scale.py) imported and run in the interpreter and the native
engine, by ``lli-14 -jit-kind=mcjit -force-interpreter`` and as a clang -O0 binary.
(1) A loop-heavy PIR program (nested loops, arithmetic, predicated instructions, loads/stores,
a call per outer iteration) at a few sizes: instructions per second (nullified ones included,
RunResult.counts["instructions"]), best of ``--repeat``, in the interpreter and natively
(``run_module_native``: compile once, then per run), plus the one-off decode/compile times.
(2) csmith programs (benchmarks/corpus.py CSMITH_OPTIONS): each seed imported, run in the
interpreter and by the native engine with fuel 1e7 (first run: compilation included; then
run only), results compared (output, status, error, counts, kinds, profiles). The seeds that
exhaust that fuel (the long-running ones) are run again with ``--long-fuel`` on both engines,
and their C source with ``lli-14 -jit-kind=mcjit -force-interpreter`` (clang -O0 IR) and as a
clang -O0 binary, each with ``--timeout`` (these run to the program's end, not to a fuel).
The C loop is also timed in CPU seconds (best of 3; ``interp_over_lli_cpu``), as the host
may be shared.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time

import shutil
import subprocess
import tempfile

from benchmarks.common import children_cpu, command_line
from benchmarks.corpus import csmith_program
from pylogic.interp import run_module
from pylogic.interp.machine import Machine
from pylogic.interp.native import engine as native_engine
from pylogic.interp.native.engine import NativeMachine, run_module_native
from pylogic.ir.llvm.clang import find_clang
from pylogic.ir.load import load_program
from pylogic.ir.parser import parse_module
from pylogic.report.table import StreamTable

PROGRAM = """
global arr[8192]

func mix(a, b) {
entry:
    t = mul a, 31
    t = xor t, b
    t = and t, 1023
    ret t
}

func main(n) {
entry:
    i = mov 0
    acc = mov 0
    br outer
outer:
    c = cmp.lt i, n
    cbr c, inner_init, done
inner_init:
    j = mov 0
    br inner
inner: !hyperblock
    c2 = cmp.ge j, n
    (c2) br outer_next              ; side exit
    k = and j, 1023
    off = shl k, 3
    addr = add arr, off
    v = load addr
    t = mul i, j
    v = add v, t
    store addr, v
    p:ut, q:uf = pcmp.lt k, 512
    (p) acc = add acc, v
    (q) acc = sub acc, 1
    j = add j, 1
    br inner
outer_next:
    m = call mix(acc, i)
    acc = add acc, m
    i = add i, 1
    br outer
done:
    print acc
    ret 0
}
"""


def python_baseline_ns() -> float:
    """ns per ``R[3] = R[1] + R[2]`` in plain Python now: calibrates the figures on a busy host."""
    import timeit
    return min(timeit.repeat("R[3] = R[1] + R[2]", globals={"R": [0, 12345, -678, 0]},
                             number=200_000, repeat=5)) / 200_000 * 1e9


def observable(r) -> tuple:
    """Everything both engines must agree on."""
    return (r.stdout_bytes, r.return_value, r.exit_status,
            None if r.error is None else str(r.error), r.counts, r.kinds, r.edge_profile,
            r.block_profile, r.peak_memory)


def seeds_of(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part.strip():
            out.append(int(part))
    return out


def _timed(cmd, timeout: float):
    t0 = time.perf_counter()
    try:
        subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return round(time.perf_counter() - t0, 4)


def _cpu_timed(cmd, timeout: float, repeat: int = 3):
    """Best CPU seconds (user + system) of ``repeat`` runs of ``cmd`` (the host is shared)."""
    best = None
    for _ in range(repeat):
        t0 = children_cpu()
        try:
            subprocess.run(cmd, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        dt = children_cpu() - t0
        best = dt if best is None else min(best, dt)
    return round(best, 4)


def _cpu_best(fn, repeat: int = 3):
    """(best CPU seconds of ``repeat`` calls of ``fn``, its last result)."""
    best, res = None, None
    for _ in range(repeat):
        t0 = time.process_time()
        res = fn()
        dt = time.process_time() - t0
        best = dt if best is None else min(best, dt)
    return best, res


def csmith_section(seeds, workdir: str, long_fuel: int, timeout: float) -> dict:
    """Both engines on each csmith seed (fuel 1e7), then the long-running ones four ways."""
    os.environ.setdefault("CPATH", "/usr/include/csmith")
    rows, long_rows = [], []
    table = StreamTable(["seed", "instructions", "interp s", "native 1st s", "native s", "same"],
                        [5, 12, 9, 12, 9, 5], "rrrrrl")
    print(table.header(), flush=True)
    for seed in seeds:
        path = csmith_program(seed, workdir)
        if path is None:
            continue
        module, _report = load_program(path)
        t0 = time.perf_counter()
        a = run_module(module)
        t1 = time.perf_counter()
        b = run_module_native(module)
        t2 = time.perf_counter()
        c = run_module_native(module)
        t3 = time.perf_counter()
        row = {"seed": seed, "instructions": a.counts.get("instructions"),
               "interp_s": round(t1 - t0, 4), "native_first_s": round(t2 - t1, 4),
               "native_s": round(t3 - t2, 4), "engine": b.engine,
               "identical": observable(a) == observable(b) == observable(c),
               "error": None if a.error is None else a.error.message[:80]}
        rows.append(row)
        print(table.row([seed, row["instructions"], row["interp_s"], row["native_first_s"],
                         row["native_s"], row["identical"]]), flush=True)
        if a.error is not None and a.error.message.startswith("fuel exhausted"):
            long_rows.append(long_run(seed, path, module, long_fuel, timeout))
    done = [r for r in rows if r["error"] is None]
    summary = {
        "programs": len(rows), "identical": sum(r["identical"] for r in rows),
        "completed_within_fuel": len(done),
        "completed_interp_s": round(sum(r["interp_s"] for r in done), 3),
        "completed_native_first_s": round(sum(r["native_first_s"] for r in done), 3),
        "completed_native_s": round(sum(r["native_s"] for r in done), 4),
    }
    if long_rows:
        ti = sum(r["interp_s"] for r in long_rows)
        tn = sum(r["native_first_s"] for r in long_rows)
        summary.update(long_programs=len(long_rows), long_fuel=long_fuel,
                       long_interp_s=round(ti, 2), long_native_first_s=round(tn, 2),
                       long_speedup=round(ti / tn, 1) if tn else None,
                       long_instructions=sum(r["instructions"] for r in long_rows))
    return {"rows": rows, "long": long_rows, "summary": summary}


C_LOOP = ("int a[1024];\nint main(void) {\n  unsigned s = 0;\n"
          "  for (int r = 0; r < 300; r++)\n    for (int i = 0; i < 1024; i++) {\n"
          "      a[i] = a[i] * 31 + (i ^ r);\n      if (a[i] & 1) s += a[i]; else s ^= i;\n"
          "    }\n  return s & 0xff;\n}\n")


def c_loop_section(timeout: float) -> dict:
    """The same C loop (benchmarks/scale.py's) four ways: imported PIR in the interpreter and
    the native engine (first run with compilation, then warm), ``lli-14 -jit-kind=mcjit
    -force-interpreter`` on its clang -O0 IR, and a clang -O0 binary."""
    clang, lli = find_clang(), shutil.which("lli-14") or shutil.which("lli")
    if not clang:
        return {"skipped": "clang not found"}
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "loop.c")
        with open(c, "w") as fh:
            fh.write(C_LOOP)
        module, _ = load_program(c)
        t0 = time.perf_counter()
        a = run_module(module, fuel=10 ** 10)
        t1 = time.perf_counter()
        b = run_module_native(module, fuel=10 ** 10)
        t2 = time.perf_counter()
        b2 = run_module_native(module, fuel=10 ** 10)
        t3 = time.perf_counter()
        out.update(instructions=a.counts["instructions"], exit_status=a.exit_status,
                   interp_s=round(t1 - t0, 3), native_first_s=round(t2 - t1, 4),
                   native_s=round(t3 - t2, 4), engine=b.engine,
                   identical=observable(a) == observable(b) == observable(b2))
        ll, exe = os.path.join(tmp, "loop.ll"), os.path.join(tmp, "loop")
        subprocess.run([clang, "-S", "-emit-llvm", "-O0", "-o", ll, c], capture_output=True)
        subprocess.run([clang, "-O0", "-o", exe, c], capture_output=True)
        if lli:
            out["lli_interpreter_s"] = _timed([lli, "-jit-kind=mcjit", "-force-interpreter", ll],
                                              timeout * 6)
        out["clang_O0_s"] = _timed([exe], timeout)
        # CPU time (the host is shared: wall time is not the program's), best of 3
        cpu, _ = _cpu_best(lambda: run_module(module, fuel=10 ** 10))
        n = a.counts["instructions"]
        out.update(interp_cpu_s=round(cpu, 3), interp_instructions_per_cpu_s=round(n / cpu))
        if lli:
            lcpu = _cpu_timed([lli, "-jit-kind=mcjit", "-force-interpreter", ll], timeout * 6)
            if lcpu:
                out.update(lli_interpreter_cpu_s=lcpu, interp_over_lli_cpu=round(cpu / lcpu, 2),
                           lli_pir_equivalent_instructions_per_cpu_s=round(n / lcpu))
    print(f"C loop: {out}", flush=True)
    return out


def long_run(seed: int, path: str, module, fuel: int, timeout: float) -> dict:
    """One long-running csmith program: interpreter and native engine at ``fuel``; LLVM's
    interpreter and a native build to the program's end (or ``timeout``)."""
    t0 = time.perf_counter()
    a = run_module(module, fuel=fuel)
    t1 = time.perf_counter()
    machine = NativeMachine(module)  # compile time alone (not cached: a fresh machine)
    t2 = time.perf_counter()
    del machine
    native_engine.MACHINES.clear()  # the first run compiles (both variants when fuel runs out)
    b = run_module_native(module, fuel=fuel)
    t3 = time.perf_counter()
    row = {"seed": seed, "fuel": fuel, "instructions": a.counts.get("instructions"),
           "interp_s": round(t1 - t0, 3), "native_compile_s": round(t2 - t1, 3),
           "native_first_s": round(t3 - t2, 3), "engine": b.engine,
           "identical": observable(a) == observable(b),
           "stopped": None if a.error is None else a.error.message[:60]}
    clang, lli = find_clang(), shutil.which("lli-14") or shutil.which("lli")
    if clang:
        with tempfile.TemporaryDirectory() as tmp:
            ll, exe = os.path.join(tmp, "p.ll"), os.path.join(tmp, "p")
            subprocess.run([clang, "-S", "-emit-llvm", "-O0", "-w", "-o", ll, path],
                           capture_output=True)
            subprocess.run([clang, "-O0", "-w", "-o", exe, path], capture_output=True)
            if lli and os.path.exists(ll):
                row["lli_interpreter_s"] = _timed(
                    [lli, "-jit-kind=mcjit", "-force-interpreter", ll], timeout)
            if os.path.exists(exe):
                row["clang_O0_s"] = _timed([exe], timeout)
    row["timeout_s"] = timeout
    print(f"  long seed {seed}: {row}", flush=True)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="30,100,300,1000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--csmith", default="1-50", help="csmith seeds ('' to skip)")
    ap.add_argument("--long-fuel", type=int, default=100_000_000)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--workdir", default="/tmp/pathlogic-corpus")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "runs",
                                                  "bench-interp.json"))
    args = ap.parse_args(argv)
    module = parse_module(PROGRAM, "bench-interp.pir")
    t0 = time.perf_counter()
    Machine(module)
    decode_s = time.perf_counter() - t0
    rows = []
    t0 = time.perf_counter()
    NativeMachine(module)
    compile_s = time.perf_counter() - t0
    run_module_native(module, args=(1,))  # compiled once (cached), then timed per run
    table = StreamTable(["n", "instructions", "seconds", "M instr/s", "native s", "speedup"],
                        [5, 10, 8, 9, 9, 8], "rrrrrr")
    print(table.header(), flush=True)
    for n in (int(s) for s in args.sizes.split(",")):
        best, res, nbest, nres = None, None, None, None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = run_module(module, args=(n,), fuel=10 ** 10)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
            t0 = time.perf_counter()
            nres = run_module_native(module, args=(n,), fuel=10 ** 10)
            dt = time.perf_counter() - t0
            nbest = dt if nbest is None else min(nbest, dt)
        assert res.error is None, res.error
        assert observable(res) == observable(nres) and nres.engine == "native"
        instrs = res.counts["instructions"]
        row = {"n": n, "instructions": instrs, "nullified": res.counts["nullified"],
               "calls": res.counts["calls"], "kinds": res.kinds, "seconds": round(best, 4),
               "instructions_per_second": round(instrs / best), "output": res.prints,
               "native_seconds": round(nbest, 5),
               "native_instructions_per_second": round(instrs / nbest),
               "speedup": round(best / nbest, 1)}
        rows.append(row)
        print(table.row([n, instrs, f"{best:.3f}", f"{instrs / best / 1e6:.2f}",
                         f"{nbest:.4f}", f"{best / nbest:.0f}x"]), flush=True)
    c_loop = c_loop_section(args.timeout)
    csmith = csmith_section(seeds_of(args.csmith), args.workdir, args.long_fuel,
                            args.timeout) if args.csmith else None
    record = {
        "benchmark": "interp",
        "command": command_line("benchmarks.interp", argv),
        "program": "nested loops + predication + load/store + call",
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": {"python": sys.version.split()[0], "implementation":
                    platform.python_implementation(), "platform": platform.platform(),
                    "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count()},
        "python_baseline_ns_per_list_add": round(python_baseline_ns(), 1),
        "decode_seconds": round(decode_s, 5), "native_compile_seconds": round(compile_s, 4),
        "repeat": args.repeat, "results": rows, "c_loop": c_loop, "csmith": csmith,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1)
        fh.write("\n")
    print(f"decode: {decode_s * 1e3:.2f} ms; native compile: {compile_s * 1e3:.1f} ms")
    if csmith:
        print(json.dumps(csmith["summary"]))
    print(f"wrote {os.path.normpath(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
