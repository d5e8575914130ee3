"""The main job against its floor (issue #32 item 1): ``pathlogic analyze`` of a corpus of C
programs beside what a compiler spends on the same files, measured in the same run.

    python -m benchmarks.analyze_floor --csmith 1-40 --examples --before /work/wt-after \\
        --out analyze-floor.json

The corpus: csmith programs with csmith's default options (``benchmarks.corpus``, preset
``default``) and, with ``--examples``, ``examples/*.pir``, copied into one directory. Per run:

- floor: every ``.c`` through ``clang-14 -O0 -Xclang -disable-O0-optnone -emit-llvm -c`` and
  ``opt-14 -O2`` (a compiler optimizing the files), and ``clang-14 -O2 -c`` (to an object);
- ``analyze DIR --no-cache --engine E --jobs 1 --quiet``, each in a fresh process, of the code in
  the current directory and, with ``--before DIR``, of another checkout; ``--all-facts`` too
  (every fact family, what analyze extracted before issue #32).

Every figure is CPU seconds (user + system, the children included: clang, opt, the engine's
worker) and wall seconds; on a loaded machine CPU is the fair one. The sides alternate, after one
warm-up run each (the shipped Datalog programs are parsed into the user cache once per pathlogic
source, and Python writes pathlogic's bytecode unless PYTHONDONTWRITEBYTECODE is set: the run
records which). ``results/`` of every analyze run must be byte-identical to the first.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import children_cpu, command_line, machine_info, write_run

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], cwd=None) -> dict:
    """Run ``cmd`` to completion: its wall and CPU seconds (children included)."""
    c, w = children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    out = {"wall": time.perf_counter() - w, "cpu": children_cpu() - c, "status": proc.returncode}
    if proc.returncode not in (0,):
        out["stderr"] = proc.stderr[-400:]
    return out


def corpus(csmith: str, examples: bool, folder: Path) -> list[Path]:
    from benchmarks.corpus import csmith_program
    from benchmarks.optimize import parse_range
    folder.mkdir(parents=True, exist_ok=True)
    gen = folder.parent / "generated"
    for seed in parse_range(csmith):
        src = csmith_program(seed, str(gen), "default")
        if src is None:
            raise SystemExit("csmith is not installed")
        shutil.copy(src, folder / f"csmith{seed}.c")
    if examples:
        for p in sorted((ROOT / "examples").glob("*.pir")):
            shutil.copy(p, folder / p.name)
    return sorted(folder.iterdir())


def floor(files: list[Path], work: Path) -> dict:
    """The compiler on the same ``.c`` files: -O0 to bitcode then opt -O2; and clang -O2 -c."""
    from pylogic.ir.llvm.clang import CSMITH_INCLUDE
    inc = [f"-I{CSMITH_INCLUDE}"]
    total = {"clang_O0_opt_O2": {"wall": 0.0, "cpu": 0.0}, "clang_O2": {"wall": 0.0, "cpu": 0.0}}
    for f in files:
        if f.suffix != ".c":
            continue
        bc, opt_bc, obj = work / "a.bc", work / "b.bc", work / "a.o"
        steps = {"clang_O0_opt_O2": [
            ["clang-14", "-O0", "-Xclang", "-disable-O0-optnone", "-emit-llvm", "-c", "-w", *inc,
             str(f), "-o", str(bc)],
            ["opt-14", "-O2", str(bc), "-o", str(opt_bc)]],
            "clang_O2": [["clang-14", "-O2", "-c", "-w", *inc, str(f), "-o", str(obj)]]}
        for name, cmds in steps.items():
            for cmd in cmds:
                t = timed(cmd)
                if t["status"] != 0:
                    raise SystemExit(f"floor: {' '.join(cmd)} failed: {t.get('stderr', '')}")
                total[name]["wall"] += t["wall"]
                total[name]["cpu"] += t["cpu"]
    return {k: {m: round(v, 3) for m, v in d.items()} for k, d in total.items()}


def analyze(checkout: Path, target: Path, out: Path, engine: str, extra=()) -> dict:
    cmd = [sys.executable, "-m", "pylogic.cli", "analyze", str(target), "--out", str(out),
           "--no-cache", "--engine", engine, "--jobs", "1", "--quiet", *extra]
    return timed(cmd, cwd=checkout)


def same_results(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a / "results", b / "results")
    if cmp.left_only or cmp.right_only:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a / "results", b / "results", cmp.common_files,
                                           shallow=False)
    return not mismatch and not errors


def run_name(out: str) -> str:
    """``--out`` as ``benchmarks.common.write_run`` takes it: a name under runs/ (``x.json``,
    ``raw/x.json``; ``runs/x.json`` names the same file), or an absolute path -- never a file
    of the current directory."""
    path = Path(out)
    return str(path.relative_to("runs")) if path.parts[:1] == ("runs",) else out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csmith", default="1-40")
    ap.add_argument("--examples", action="store_true")
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--before", metavar="CHECKOUT", help="another checkout to measure beside this one")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-all-facts", action="store_true",
                    help="leave out the --all-facts side (about half the run's time)")
    ap.add_argument("--out", default="raw/analyze-floor.json",
                    help="a file name under runs/ (as the other benchmarks' --out; a leading "
                         "runs/ is the same), or an absolute path")
    a = ap.parse_args(argv)
    from benchmarks.optimize import source_state
    source = source_state()          # the tree must not change while this runs
    work = Path(tempfile.mkdtemp(prefix="pathlogic-floor-"))
    files = corpus(a.csmith, a.examples, work / "corpus")
    sides = {"now": (ROOT, ())}
    if not a.no_all_facts:
        sides["now --all-facts"] = (ROOT, ("--all-facts",))
    if a.before:
        sides["before"] = (Path(a.before).resolve(), ())
    load = [os.getloadavg()[0]]
    for name, (checkout, extra) in sides.items():          # warm-up: the program cache
        analyze(checkout, work / "corpus", work / "warm", a.engine, extra)
    runs: dict[str, list[dict]] = {name: [] for name in sides}
    floors = []
    for k in range(a.repeat):
        floors.append(floor(files, work))
        for name, (checkout, extra) in sides.items():
            out = work / f"out-{len(runs[name])}-{name.replace(' ', '')}"
            runs[name].append({**analyze(checkout, work / "corpus", out, a.engine, extra),
                               "out": out})
        load.append(os.getloadavg()[0])
    first = runs["now"][0]["out"]
    identical = all(same_results(first, r["out"]) for rs in runs.values() for r in rs)
    best_floor = {k: {m: min(f[k][m] for f in floors) for m in ("wall", "cpu")} for k in floors[0]}
    summary = {}
    for name, rs in runs.items():
        cpu, wall = min(r["cpu"] for r in rs), min(r["wall"] for r in rs)
        summary[name] = {"cpu": round(cpu, 2), "wall": round(wall, 2),
                         "status": sorted({r["status"] for r in rs}),
                         "cpu_over_floor": round(cpu / best_floor["clang_O0_opt_O2"]["cpu"], 2),
                         "cpu_over_clang_O2": round(cpu / best_floor["clang_O2"]["cpu"], 2)}
    payload = {
        "machine": machine_info(), "load_average_1min": [round(x, 2) for x in load],
        "command": command_line("benchmarks.analyze_floor", argv),
        "corpus": {"csmith_default": a.csmith, "examples": a.examples,
                   "files": len(files), "c_files": sum(f.suffix == ".c" for f in files)},
        "source": {"start": source, "end": source_state()},
        "engine": a.engine, "floor": best_floor, "analyze": summary,
        "results_identical": identical,
        # an installed pathlogic reads its compiled bytecode; PYTHONDONTWRITEBYTECODE (set in
        # some sandboxes) makes every analyze process compile the source again (12.9% of the
        # analyze process's instructions on csmith 1-8, callgrind, an41)
        "python_bytecode": ("compiled in every process (PYTHONDONTWRITEBYTECODE is set)"
                            if sys.dont_write_bytecode else
                            "written by the warm-up runs and read after, as installed"),
        "note": "CPU seconds (user+system, children included) are the fair figure on a loaded "
                "machine; the best of --repeat runs. floor: clang-14 -O0 -emit-llvm + opt-14 -O2 "
                "per .c file (and clang-14 -O2 -c).",
    }
    out = write_run(run_name(a.out), payload)
    print(f"wrote {out}: floor {best_floor}, analyze {summary}, identical {identical}",
          file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
