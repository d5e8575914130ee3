"""How pathlogic's cost grows with its input (issue #12 item 6): writes runs/scale.json.

    python benchmarks/scale.py [--sections cfg,corpus,predicates,import,execution]
        [--sizes 1000,10000,30000] [--csmith 40] [--engines clingo,souffle,...] [--quick]

Sections, each with the growth exponent (least-squares slope of log cost on log size) where a
size varies:

* ``cfg``: chains, structured, random and irreducible CFGs (``--kinds``; ``irreducible``: every
  block reachable, local random cross and back edges, so irreducible regions: issue #32) of
  ``--sizes`` blocks; every shipped CFG analysis
  (``cfg_analyses.dl``: reachability, dominator and post-dominator trees, frontiers, control
  dependence, natural loops) on every available engine, and networkx computing the same
  trees, frontiers and control dependence (the independent oracle) -- wall and CPU seconds per
  run, the engine's peak memory (``engine_with_peak``) and rows written;
* ``corpus``: ``pathlogic analyze`` on csmith seeds 1..``--csmith`` (the small programs of
  benchmarks/corpus.py) plus examples/, per engine, phase by phase from summary.json (load,
  analyses, predicate statistics, total), cache off;
* ``predicates``: ``pathlogic predicates`` on the if-converted csmith seed 9005 ``@main``
  (issue #12's 3,321-pair function), whole-command wall time;
* ``import``: a C function of N ``if``s (N = 1,000 .. 8,000): clang -O0 + opt vs our import,
  with seconds per N log N; and the csmith corpus: clang + opt alone vs the whole load, with a
  profile of the load by own time (what dominates);
* ``execution``: a loop-heavy program on the reference interpreter, on the native engine when
  present (``pylogic.interp.native``), on LLVM's interpreter (``lli-14 -jit-kind=mcjit
  -force-interpreter``; plain lli would JIT-compile) and natively (clang -O0).

Nothing here is asserted; the figures are for the README and for watching regressions.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import children_cpu, command_line, fitted_exponent, write_run  # noqa: E402

CSMITH_SMALL = ("--no-float", "--max-funcs", "5", "--max-block-depth", "3",
                "--max-expr-complexity", "5", "--no-packed-struct")


def _run(cmd: list[str], timeout: float, env=None
         ) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, CPU seconds (user + system of the process and its children) and the
    finished process (a loaded machine stretches wall time, not CPU: the figures record both)."""
    t0, c0 = time.perf_counter(), children_cpu()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return time.perf_counter() - t0, children_cpu() - c0, proc


def _pathlogic() -> list[str]:
    return [sys.executable, "-m", "pylogic.cli"]


# ---------------------------------------------------------------- cfg

def make_cfg(kind: str, n: int):
    from pylogic.ir.synthetic import irreducible_cfg, random_cfg, structured_cfg
    if kind == "irreducible":
        return irreducible_cfg(random.Random(n), n)
    if kind == "chain":
        labels = [f"b{i}" for i in range(n)]
        return labels, {b: [labels[i + 1]] if i + 1 < n else [] for i, b in enumerate(labels)}
    if kind == "random":
        labels, succs = random_cfg(random.Random(n), n, edge_factor=1.4, exit_prob=0.05)
        return labels, {b: list(dict.fromkeys(s))[:2] for b, s in succs.items()}
    budget = n
    labels, succs = structured_cfg(random.Random(n), budget)
    while len(labels) < n:
        budget = int(budget * n / max(len(labels), 1)) + 1
        labels, succs = structured_cfg(random.Random(n), budget)
    return labels, succs


def networkx_trees(labels, succs) -> float:
    """Seconds networkx takes for idom, ipdom, frontiers and control dependence."""
    import networkx as nx
    t0 = time.perf_counter()
    g = nx.DiGraph()
    g.add_nodes_from(labels)
    g.add_edges_from((a, b) for a in labels for b in succs[a])
    idom = nx.immediate_dominators(g, labels[0])
    nx.dominance_frontiers(g, labels[0])
    r = g.reverse()
    r.add_node("__exit__")
    r.add_edges_from(("__exit__", b) for b in labels if not succs[b])
    ipdom = nx.immediate_dominators(r, "__exit__")
    cdep = 0
    for a in labels:    # control dependence: from each successor up the post-dominator tree
        stop = ipdom.get(a)
        for b in succs[a]:
            x = b
            while x is not None and x != stop:
                cdep += 1
                nxt = ipdom.get(x)
                x = None if nxt == x else nxt
    del idom, cdep
    return time.perf_counter() - t0


def section_cfg(sizes, engines, timeout, kinds=("chain", "structured", "random")) -> dict:
    from facts_gen.extract import empty_facts, extract_module
    from pylogic.analysis import catalog
    from pylogic.engines import load_program
    from pylogic.ir.model import Module
    from pylogic.ir.synthetic import function_from_cfg
    program = load_program(catalog.datalog_dir() / catalog.BUNDLES["cfg_analyses"])
    out = {"runs": [], "exponents": {}}
    given_up: set = set()   # (kind, engine) that timed out at a smaller size
    for kind in kinds:
        for n in sizes:
            labels, succs = make_cfg(kind, n)
            facts = empty_facts()
            extract_module(Module(functions=(function_from_cfg("@f", labels, succs),)),
                           "scale.pir", facts)
            row = {"kind": kind, "blocks": len(labels), "networkx_s": round(networkx_trees(labels, succs), 4)}
            digests = {}
            for engine in engines:
                if (kind, engine) in given_up:
                    row[f"{engine}_s"] = None
                    row[f"{engine}_error"] = "not run (a smaller size timed out)"
                    continue
                t0 = time.perf_counter()
                c0 = children_cpu()
                try:
                    rows, peak_mb = run_with_timeout(engine_with_peak, timeout, program, engine,
                                                     facts)
                    row[f"{engine}_s"] = round(time.perf_counter() - t0, 4)
                    row[f"{engine}_cpu_s"] = round(children_cpu() - c0, 4)
                    row[f"{engine}_peak_mb"] = peak_mb
                    row[f"{engine}_rows"] = sum(len(v) for v in rows.values())
                    digests[engine] = hashlib.sha256(json.dumps(
                        {r: sorted(map(list, v)) for r, v in sorted(rows.items())}).encode()
                    ).hexdigest()[:16]
                except Exception as exc:  # noqa: BLE001 -- recorded, the run goes on
                    row[f"{engine}_s"] = None
                    row[f"{engine}_error"] = f"{type(exc).__name__}: {exc}"[:200]
                    if "timed out" in str(exc):
                        given_up.add((kind, engine))
            if len(digests) > 1:
                row["rows_agree"] = len(set(digests.values())) == 1
            out["runs"].append(row)
            print(json.dumps(row), flush=True)
        for key in ["networkx_s"] + [f"{e}_s" for e in engines] + [f"{e}_cpu_s" for e in engines]:
            pts = [(r["blocks"], r[key]) for r in out["runs"] if r["kind"] == kind and r.get(key)]
            out["exponents"][f"{kind}:{key}"] = fitted_exponent(pts)
    return out


def _proc_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def engine_with_peak(program, engine: str, facts: dict) -> tuple[dict, float | None]:
    """``run_checked`` in the (forked) worker, with the memory the engine needed: for an engine
    in this process, the growth of the peak resident set over the resident set before the call
    (the peak is reset first: /proc/self/clear_refs, Linux >= 4.0); for ``souffle``, the peak
    resident set of its own process (``souffle_peak_kb``). MB; None where Linux's counters or
    /usr/bin/time are not available."""
    from pylogic.engines import run_checked
    if engine == "souffle":
        rows, peak = souffle_peak_kb(run_checked, program, None, engine, facts)
        return rows, None if peak is None else round(peak / 1024, 1)
    try:
        Path("/proc/self/clear_refs").write_text("5")
        before = _proc_kb("VmRSS")
    except OSError:
        before = None
    rows = run_checked(program, None, engine, facts)
    if before is None:
        return rows, None
    return rows, round((_proc_kb("VmHWM") - before) / 1024, 1)


def souffle_peak_kb(run, *args) -> tuple[object, int | None]:
    """``run(*args)`` with ``souffle`` on PATH replaced by a script that runs it under
    ``/usr/bin/time -f %M``: Soufflé's own peak resident set (kB; the largest of its runs), None
    without /usr/bin/time. Not ``RUSAGE_CHILDREN``'s ``ru_maxrss``: Linux keeps a process's
    peak across ``exec``, so that of a program started by this worker is at least the worker's
    resident set (a 300 MB Python process running ``/bin/true`` reports 314 MB for it; the
    Soufflé figures of runs/scale-souffle.json and runs/dom35-scale-cfg.json were 47-506 MB for
    Soufflé runs of 18-99 MB: runs/clingo38-scale.json)."""
    real, timer = shutil.which("souffle"), shutil.which("time", path="/usr/bin")
    if real is None or timer is None:
        return run(*args), None
    with tempfile.TemporaryDirectory() as tmp:
        peaks = Path(tmp) / "peak_kb"
        wrapper = Path(tmp) / "bin" / "souffle"
        wrapper.parent.mkdir()
        wrapper.write_text(f'#!/bin/sh\nexec {timer} -f %M -a -o {peaks} {real} "$@"\n')
        wrapper.chmod(0o755)
        path = os.environ.get("PATH", "")
        os.environ["PATH"] = f"{wrapper.parent}{os.pathsep}{path}"
        try:
            out = run(*args)
        finally:
            os.environ["PATH"] = path
        kb = [int(line) for line in peaks.read_text().split() if line.isdigit()] \
            if peaks.exists() else []
    return out, max(kb) if kb else None


def run_with_timeout(fn, timeout, *args):
    """``fn(*args)`` in a forked worker with a time budget (pylogic's own budget helper)."""
    from pylogic.analysis.budget import call_with_budget
    outcome = call_with_budget(fn, *args, seconds=timeout)
    if not outcome.ok:
        raise RuntimeError(outcome.error)
    return outcome.value




# ---------------------------------------------------------------- corpus

def csmith_dir(n: int, work: Path) -> Path:
    src = work / f"csmith{n}"
    src.mkdir(parents=True, exist_ok=True)
    for seed in range(1, n + 1):
        path = src / f"seed{seed}.c"
        if not path.exists():
            subprocess.run(["csmith", "--seed", str(seed), *CSMITH_SMALL, "-o", str(path)],
                           check=True, capture_output=True, timeout=60)
    for example in (ROOT / "examples").iterdir():
        shutil.copy(example, src / example.name)
    return src


def section_corpus(n: int, engines, work: Path, timeout: float) -> dict:
    src = csmith_dir(n, work)
    out = {"programs": len(list(src.iterdir())), "runs": []}
    env = {**os.environ, "PATHLOGIC_CACHE": "off", "CPATH": "/usr/include/csmith"}
    for engine in engines:
        dest = work / f"out-{engine}"
        shutil.rmtree(dest, ignore_errors=True)
        wall, cpu, proc = _run(_pathlogic() + ["analyze", str(src), "--out", str(dest), "--engine",
                                          engine, "--quiet"], timeout, env)
        row = {"engine": engine, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
               "exit": proc.returncode}
        try:
            summary = json.loads((dest / "summary.json").read_text())
            row["phases_s"] = summary["seconds"]
            row["functions"] = len(summary["functions"])
            row["rows"] = sum(summary["relations"].values())
        except (OSError, ValueError, KeyError):
            row["error"] = (proc.stderr or proc.stdout)[-300:]
        out["runs"].append(row)
        print(json.dumps(row), flush=True)
    results = [work / f"out-{e}" / "results" for e in engines]
    out["rows_agree"] = all(_same_tree(results[0], r) for r in results[1:]) if len(results) > 1 \
        else None
    return out


def _same_tree(a: Path, b: Path) -> bool:
    fa = {p.relative_to(a): p.read_bytes() for p in a.rglob("*") if p.is_file()}
    fb = {p.relative_to(b): p.read_bytes() for p in b.rglob("*") if p.is_file()}
    return fa == fb


# ---------------------------------------------------------------- predicates

def section_predicates(work: Path, timeout: float) -> dict:
    seed = work / "seed9005.c"
    subprocess.run(["csmith", "--seed", "9005", "-o", str(seed)], check=True, capture_output=True,
                   timeout=60)
    converted = work / "seed9005-ifc.pir"
    wall_ifc, cpu_ifc, proc = _run(_pathlogic() + ["if-convert", str(seed), "--out", str(converted)],
                          timeout, {**os.environ, "CPATH": "/usr/include/csmith"})
    if proc.returncode not in (0, 2) or not converted.exists():
        return {"error": (proc.stderr or proc.stdout)[-300:]}
    wall, cpu, proc = _run(_pathlogic() + ["predicates", str(converted), "--function", "main",
                                      "--json"], timeout)
    row = {"if_convert_s": round(wall_ifc, 2), "if_convert_cpu_s": round(cpu_ifc, 2),
           "predicates_s": round(wall, 2), "predicates_cpu_s": round(cpu, 2),
           "exit": proc.returncode}
    try:
        data = json.loads(proc.stdout)                  # {function: [one row per pair]}
        row["pairs"] = sum(len(v) for v in data.values() if isinstance(v, list))
    except ValueError:
        row["error"] = (proc.stderr or proc.stdout)[-300:]
    return row


# ---------------------------------------------------------------- import

def ifs_program(n: int) -> str:
    body = "\n".join(f"    if (x > {i}) s += {i % 7 + 1}; else s -= 1;" for i in range(n))
    return f"int f(int x) {{\n    int s = 0;\n{body}\n    return s;\n}}\n" \
           "int main(void) { return f(3) & 0xff; }\n"


def section_import(sizes, work: Path, timeout: float) -> dict:
    from pylogic.ir.llvm.clang import PREPARATION, find_clang, find_opt
    out = {"runs": []}
    for n in sizes:
        c = work / f"ifs{n}.c"
        c.write_text(ifs_program(n))
        ll = work / f"ifs{n}.ll"
        t_clang, c_clang, _ = _run([find_clang(), "-S", "-emit-llvm", "-O0", "-Xclang", "-disable-O0-optnone",
                           "-o", str(ll), str(c)], timeout)
        t_opt, c_opt, _ = _run([find_opt(), "-S", "-passes=mem2reg,lowerswitch", str(ll), "-o",
                         str(ll) + ".opt"], timeout)
        t0, c0 = time.perf_counter(), children_cpu()
        from pylogic.ir.load import load_program
        try:
            run_with_timeout(load_program, timeout, str(c))   # a forked worker: children's CPU
            ours = round(time.perf_counter() - t0, 3)
            ours_cpu = round(children_cpu() - c0, 3)
        except RuntimeError as exc:
            ours = ours_cpu = None
            out.setdefault("errors", []).append(f"N={n}: {exc}"[:200])
        row = {"ifs": n, "clang_s": round(t_clang, 3), "opt_s": round(t_opt, 3),
               "pathlogic_import_s": ours, "clang_cpu_s": round(c_clang, 3),
               "opt_cpu_s": round(c_opt, 3), "pathlogic_import_cpu_s": ours_cpu}
        out["runs"].append(row)
        print(json.dumps(row), flush=True)
    del PREPARATION
    out["exponent_pathlogic"] = fitted_exponent([(r["ifs"], r["pathlogic_import_s"])
                                                 for r in out["runs"] if r["pathlogic_import_s"]])
    out["exponent_clang"] = fitted_exponent([(r["ifs"], r["clang_s"]) for r in out["runs"]])
    out["exponent_pathlogic_cpu"] = fitted_exponent([(r["ifs"], r["pathlogic_import_cpu_s"])
                                                     for r in out["runs"]
                                                     if r["pathlogic_import_cpu_s"]])
    out["exponent_clang_cpu"] = fitted_exponent([(r["ifs"], r["clang_cpu_s"])
                                                 for r in out["runs"]])
    # N log N or better: seconds / (N log2 N) must not grow with N.
    out["seconds_per_n_log_n"] = [
        {"ifs": r["ifs"], "us": round(1e6 * r["pathlogic_import_s"] / (r["ifs"] * math.log2(r["ifs"])), 3)}
        for r in out["runs"] if r["pathlogic_import_s"]]
    return out


def section_import_corpus(n: int, work: Path, top: int = 12) -> dict:
    """The csmith corpus: clang -O0 + opt alone vs the whole load (the same two steps plus our
    import and verification), then a profile of the whole load by own time (issue #12 item 3:
    the import may cost at most 2x clang + opt)."""
    import cProfile
    import pstats
    from pylogic.ir.llvm.clang import prepare_c
    from pylogic.ir.load import load_program
    os.environ.setdefault("CPATH", "/usr/include/csmith")
    files = sorted((p for p in csmith_dir(n, work).iterdir() if p.suffix == ".c"),
                   key=lambda p: int(p.stem[4:]))
    t0, c0 = time.perf_counter(), children_cpu()      # clang and opt are child processes
    for path in files:
        prepare_c(str(path))
    prepare_s, prepare_cpu = time.perf_counter() - t0, children_cpu() - c0
    t0, c0, p0 = time.perf_counter(), children_cpu(), time.process_time()
    for path in files:
        load_program(str(path))
    load_s = time.perf_counter() - t0
    load_cpu = children_cpu() - c0 + time.process_time() - p0
    profile = cProfile.Profile()
    profile.enable()
    for path in files:
        load_program(str(path))
    profile.disable()
    stats = pstats.Stats(profile)
    total = sum(v[2] for v in stats.stats.values())  # own time, all functions
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    dominated = [{"function": f"{Path(file).name}:{line}({name})", "own_s": round(v[2], 3),
                  "share": round(v[2] / total, 3)} for (file, line, name), v in rows]
    result = {"programs": len(files), "clang_opt_s": round(prepare_s, 3),
              "load_s": round(load_s, 3), "ratio": round(load_s / prepare_s, 2),
              "clang_opt_cpu_s": round(prepare_cpu, 3), "load_cpu_s": round(load_cpu, 3),
              "ratio_cpu": round(load_cpu / prepare_cpu, 2),
              "profile_top_own_time": dominated}
    print(json.dumps({k: v for k, v in result.items() if k != "profile_top_own_time"}), flush=True)
    return result


# ---------------------------------------------------------------- execution

def section_execution(work: Path, timeout: float) -> dict:
    """The loop-heavy C program of benchmarks/interp.py's kind, four ways."""
    from pylogic.ir.llvm.clang import find_clang
    c = work / "loop.c"
    c.write_text("int a[1024];\nint main(void) {\n  unsigned s = 0;\n"
                 "  for (int r = 0; r < 300; r++)\n    for (int i = 0; i < 1024; i++) {\n"
                 "      a[i] = a[i] * 31 + (i ^ r);\n      if (a[i] & 1) s += a[i]; else s ^= i;\n"
                 "    }\n  return s & 0xff;\n}\n")
    # In process, after one import (a command's start-up and import would hide the engines).
    from pylogic.interp.machine import run_module
    from pylogic.interp.native import run_module_native
    from pylogic.ir.load import load_program
    module, _ = load_program(str(c))
    fuel = 10 ** 9
    t0, c0 = time.perf_counter(), time.process_time()
    ref = run_module(module, fuel=fuel)
    out = {"interpreter_s": round(time.perf_counter() - t0, 3),
           "interpreter_cpu_s": round(time.process_time() - c0, 3),
           "instructions": ref.counts["instructions"]}
    t0, c0 = time.perf_counter(), time.process_time()
    first = run_module_native(module, fuel=fuel)      # compilation included
    out["native_engine_first_s"] = round(time.perf_counter() - t0, 3)
    out["native_engine_first_cpu_s"] = round(time.process_time() - c0, 3)
    t0, c0 = time.perf_counter(), time.process_time()
    warm = run_module_native(module, fuel=fuel)       # compiled code cached per module
    out["native_engine_warm_s"] = round(time.perf_counter() - t0, 4)
    out["native_engine_warm_cpu_s"] = round(time.process_time() - c0, 4)
    out["native_engine_agrees"] = all(
        (r.stdout, r.exit_status, r.counts) == (ref.stdout, ref.exit_status, ref.counts)
        for r in (first, warm))
    out["speedup_first"] = round(out["interpreter_s"] / out["native_engine_first_s"], 1)
    ll = work / "loop.ll"
    subprocess.run([find_clang(), "-S", "-emit-llvm", "-O0", "-o", str(ll), str(c)], check=True,
                   capture_output=True)
    lli = shutil.which("lli-14") or shutil.which("lli")
    if lli:
        t, cpu, _ = _run([lli, "-jit-kind=mcjit", "-force-interpreter", str(ll)], timeout)
        out["lli_interpreter_s"], out["lli_interpreter_cpu_s"] = round(t, 2), round(cpu, 2)
    exe = work / "loop"
    subprocess.run([find_clang(), "-O0", "-o", str(exe), str(c)], check=True, capture_output=True)
    t, cpu, _ = _run([str(exe)], timeout)
    out["native_s"], out["native_cpu_s"] = round(t, 4), round(cpu, 4)
    return out


def main(argv=None) -> int:
    from pylogic.engines import available_engines
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", default="cfg,corpus,predicates,import,execution")
    ap.add_argument("--sizes", default="1000,10000,30000")
    ap.add_argument("--kinds", default="chain,structured,random,irreducible",
                    help="CFG generators of the cfg section (make_cfg)")
    ap.add_argument("--import-sizes", default="1000,2000,4000,8000")
    ap.add_argument("--csmith", type=int, default=40)
    ap.add_argument("--engines", default=",".join(available_engines()))
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--quick", action="store_true", help="sizes 300,1000; csmith 5; ifs 250..1000")
    ap.add_argument("--out", default="scale.json", help="file name under runs/")
    a = ap.parse_args(argv)
    if a.quick:
        a.sizes, a.csmith, a.import_sizes = "300,1000", 5, "250,500,1000"
    sizes = [int(s) for s in a.sizes.split(",")]
    engines = [e for e in a.engines.split(",") if e]
    sections = a.sections.split(",")
    result: dict = {"command": command_line("benchmarks.scale", argv), "sections": sections,
                    "engines": engines}
    work = Path(tempfile.mkdtemp(prefix="pathlogic-scale-"))
    try:
        if "cfg" in sections:
            result["cfg"] = section_cfg(sizes, engines, a.timeout, a.kinds.split(","))
        if "corpus" in sections:
            result["corpus"] = section_corpus(a.csmith, engines, work, a.timeout)
        if "predicates" in sections:
            result["predicates"] = section_predicates(work, a.timeout)
        if "import" in sections:
            result["import"] = section_import([int(s) for s in a.import_sizes.split(",")], work,
                                              a.timeout)
            result["import"]["csmith"] = section_import_corpus(a.csmith, work)
        if "execution" in sections:
            result["execution"] = section_execution(work, a.timeout)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    path = write_run(a.out, result)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
