"""Our pass pipelines against LLVM's, on the same programs from the same starting point.

Each C program is prepared ONCE into the LLVM IR the importer reads (``prepare_c``: clang-14 -O0
... then ``opt -passes=mem2reg,lowerswitch``, ``pylogic.ir.llvm.clang.PREPARATION``). From that
one text:

* the original: imported (``import_llvm``);
* each of OUR pipelines (``optimize(original, ["if-convert", ...])``) on the imported module;
* each LLVM pipeline: ``opt-14 -S -passes=P`` on the prepared text, then (by default)
  ``-passes=lowerswitch`` so switches are lowered the same way as in the original, then imported
  the same way.

Every version runs in the reference interpreter on the same cases (``main``, no arguments, fuel
``--fuel``; the ``.pir`` examples have a few cases of their own) and is checked against the
original: ``identical`` only when every run completed and agreed; ``different`` with the first
difference; ``not compared`` when a run hit an interpreter limit, the import was incomplete
(skipped functions or globals), or the pipeline could not run (unknown pass, opt failed, import
failed). Per version (``METRICS``): dynamic instructions, the same without copies (``mov``: what
register coalescing removes), copies, branches, executed conditional branches, loads, stores,
predicate defines and expression evaluations (arithmetic, compares, selects), and the static size
(PIR instructions in defined functions). ``head_to_head``: per pair (our pipeline, LLVM pipeline)
the programs where LLVM executes fewer, as many or more instructions (with and without copies)
and evaluations. Totals per pipeline are summed over the
programs where EVERY version was identical, so every column adds up the same programs.

Timing (issue #28 item 1): each program runs in a worker process of its own and each of our
pipelines in one of its own, forked after an untimed warm-up (``warm_up``: our pipelines once on
the examples), as opt-14 runs once per program and pipeline; ours' CPU is the pipeline's
``optimize`` call, opt-14's its whole process (start, parse, passes, print). Our passes' Datalog
runs on ``--engine`` (default ``auto``: a call of at most 20,000 rows in process on the python
engine, a larger one on the first available engine, clingo without Soufflé; clingo alone until
stop 53: docs/measurements.md, "The python engine"). The program cache
(``$PATHLOGIC_PROGRAM_CACHE``, ``pylogic/user_cache.py``) keeps the clingo translations and the
python engine's compiled plans a child makes for relation sets the warm-up never met
(``engines/clingo_cache.py``): with a fresh cache
the first programs pay them (icbe's 9 median programs: 19 translations, 0.12 s, with the cache
3), with a warm one none does. ``--time-repeat N`` times every pipeline, ours and opt-14's, N
times per program and keeps the least CPU: one run's median ratio moved 1-10% between runs of an
unchanged tree (docs/measurements.md, stop 51).

Pipelines are data: ``--ours if-convert --ours if-convert,sccp --llvm sccp,adce --llvm
'default<O2>'``. An LLVM pipeline may carry extra opt arguments after a space, e.g.
``--llvm 'default<O2> -vectorize-loops=false -vectorize-slp=false'``. A pass our registry does
not know is reported as ``unknown pass`` on its rows.

Corpora: ``--examples``, ``--csmith``, ``--torture``, ``--tree-ssa`` and ``--real`` (the
llvm-test-suite programs vendored in ``benchmarks/real``, ``benchmarks/real_corpus.py``).

``--from O2`` (issue #28 item 3): the pipelines start after clang-14 -O2 without the vectorizers
(``compile_c_o2``), normalised and imported as every LLVM row is (``import_output``). That start
is a version of its own (``start:O2``), checked against the -O0 original like every other; ours
run on its import, LLVM's on its normalised text (by default O2 once more: the control), and each
later version records what it removes beyond the start (``beyond_start``: instructions with and
without ``mov``, loads, stores, executed conditional branches, evaluations), summarised per
pipeline and for the best of ours per program.

``--native N`` (item 4): every version that ran identically is also exported (``pathlogic export
--llvm``), compiled the same way for all (``benchmarks/native_timing.py``) and run natively N
times; its best CPU time and whether its output was the interpreter's go into its row.

    python -m benchmarks.optimize --examples --csmith 1-10 --torture 40 --name harness \\
        --ours if-convert --llvm sccp,adce --llvm 'default<O2>'

Writes ``runs/optimize-<name>.json`` (the summary: per program and version the figures,
``benchmarks/common.py`` ``summary_record``) and the whole output to the git-ignored
``runs/raw/optimize-<name>.json``, and prints one table row per program and version, then the
totals.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fnmatch
import gc
import glob
import hashlib
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter

from benchmarks.common import (children_cpu, command_line, host_python_seconds, machine_info,
                               read_record, write_record)
from benchmarks.corpus import FLOAT_IR, csmith_program, tree_ssa_programs
from benchmarks.drivers import add_driver
from pylogic.analysis.budget import BudgetPool
from pylogic.analysis.optimize import optimize, static_size
from pylogic.engines.budget import Child
from pylogic.errors import PathlogicError
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import (DIFFERENT, IDENTICAL, NOT_COMPARED, compare_runs,
                                         limit_reached)
from pylogic.interp.native import ENGINES, run_with
from pylogic.ir.llvm.clang import O2_FLAGS, PREPARATION, compile_c_o2, prepare_c, run_opt
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.load import load_module
from pylogic.ir.printer import print_module
from pylogic.ir.verify import verify_module
from pylogic.report.table import format_table
from pylogic.transforms.registry import known_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
DEFAULT_WORKDIR = "/tmp/pathlogic-corpus"
TORTURE = "/opt/torture/gcc-12.2.0/gcc/testsuite/gcc.c-torture/execute"
if not os.path.isdir(TORTURE):      # where benchmarks.corpus.torture_programs extracts them
    TORTURE = os.path.join(DEFAULT_WORKDIR, "torture")
FUEL = 20_000_000
#: Fuel of each driver case of a program without main (benchmarks/drivers.py).
DRIVER_FUEL = 1_000_000
#: Normalisation after every LLVM pipeline: the original was prepared with lowerswitch, so LLVM's
#: output gets its switches lowered the same way before the import ("" to import it as is; the
#: importer also reads ``switch``, as a chain of compares).
NORMALISE = "lowerswitch"
#: Cases of the .pir examples that read arguments or inputs (others: main, no args, no inputs).
EXAMPLE_CASES = {
    "pas_fig3b.pir": [((-3,), ()), ((0,), ()), ((20,), ())],
    "loop_call.pir": [((10,), ())],
    "pcp_branchy.pir": [((), (0, 0)), ((), (1, 0)), ((), (0, 1)), ((), (3, 4))],
    "pcp_ifconverted.pir": [((), (0, 0)), ((), (1, 0)), ((), (0, 1)), ((), (3, 4))],
}
#: Dynamic counts per version (``_metrics``): ``instructions`` from RunResult.counts;
#: ``instructions_without_moves`` = instructions - moves; ``expression_evaluations`` = the
#: ``computations`` kind (arithmetic, compares, selects; nullified ones included); the others by
#: kind (``pylogic.interp.machine.KINDS``) but ``conditional_branches`` (executed unguarded cbr,
#: ``pylogic.interp.conditionals``).
METRICS = ("instructions", "instructions_without_moves", "moves", "branches",
           "conditional_branches", "loads", "stores", "predicate_defines",
           "expression_evaluations")
#: The metrics ``head_to_head`` compares per program.
HEAD_TO_HEAD = ("instructions", "instructions_without_moves", "expression_evaluations")
ORIGINAL = "original"
#: Extra clang flags of the preparation (torture programs are old C: warnings off).
PREPARE_FLAGS = ("-w",)
FLOAT_C = re.compile(r"\b(?:float|double|_Complex|__builtin_(?:inf|nan|huge_val)\w*)\b")
#: LLVM pipelines by default. The importer reads scalar code only: O2's loop and SLP vectorizers
#: put ``<4 x i32>`` code into most csmith programs (crc32_gentab), so O2 also runs without them.
DEFAULT_LLVM = ("sccp,adce", "default<O2>", "default<O2> -vectorize-loops=false -vectorize-slp=false")
#: LLVM pipelines by default after a ``--from`` start: O2 once more (the control: what running
#: the classical pipeline again finds).
DEFAULT_LLVM_AFTER_START = ("default<O2> -vectorize-loops=false -vectorize-slp=false",)
VECTOR_TYPE = re.compile(r"<\d+ x (?:i\d+|ptr)")
#: The original's verdict when all its runs completed (what the others are compared with).
REFERENCE = "reference"
#: An LLVM pipeline on a .pir example.
NOT_APPLICABLE = "n/a"
#: Starting points (``--from``): ``prepared``, the import of prepare_c's text (today's); ``O2``,
#: clang-14's own -O2 without the vectorizers (``compile_c_o2``), normalised and imported like
#: an LLVM row (``import_output``), a version of its own (``START``) checked against the
#: original; our pipelines then run on its import and LLVM pipelines on its normalised text.
STARTS = ("prepared", "O2")
START = {"O2": "start:O2"}
#: The figures ``beyond_start`` reports: what a pipeline removes beyond its starting point.
BEYOND = ("instructions", "instructions_without_moves", "loads", "stores",
          "conditional_branches", "expression_evaluations")


def source_state() -> dict:
    """The commit the run used and the files of the package or benchmarks that differed from
    it (a pass under development shows up here)."""
    def git(*args):
        try:
            return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True,
                                  timeout=30).stdout.rstrip("\n")
        except (OSError, subprocess.SubprocessError):
            return ""
    dirty = [line[3:] for line in git("status", "--porcelain", "--", "pylogic", "benchmarks",
                                      "datalog").splitlines() if line]
    return {"commit": git("rev-parse", "HEAD").strip(), "uncommitted": dirty}


def preparation() -> str:
    """The preparation every C program gets once (``prepare_c``), as text for the records."""
    return PREPARATION.replace(" FILE.c", " " + " ".join(PREPARE_FLAGS) + " FILE.c")


def ours_label(pipeline) -> str:
    return "ours:" + ",".join(pipeline)


def llvm_label(spec: str) -> str:
    return "opt:" + spec


# ---------------------------------------------------------------- corpus

def parse_range(text: str) -> list[int]:
    """``"1-10"`` -> [1..10]; ``"3,5,9-11"``; ``"0"`` or "" -> []."""
    out = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part or part == "0":
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def torture_sample(n: str, seed: int = 12, directory: str = TORTURE, max_bytes: int = 1500) -> list[str]:
    """``n`` short torture programs (source at most ``max_bytes``, 0: any size; no floating-point types in
    the source), sampled with ``seed``; ``all``: every top-level program; otherwise
    comma-separated file-name globs (``pr68506.c,2000*``: the programs a run file named)."""
    if not n or n == "0":
        return []
    progs = sorted(glob.glob(os.path.join(directory, "*.c")))
    if not progs:           # never a silently empty sample
        raise SystemExit(f"no torture programs in {directory}: extract them once with "
                         f"python -c \"from benchmarks.corpus import torture_programs; "
                         f"torture_programs('{DEFAULT_WORKDIR}')\" (needs gcc-12-source)")
    if n == "all":
        return progs
    if not n.isdigit():
        pats = [q.strip() for q in n.split(",") if q.strip()]
        return [p for p in progs if any(fnmatch.fnmatch(os.path.basename(p), q) for q in pats)]
    short = [p for p in progs if (not max_bytes or os.path.getsize(p) <= max_bytes)
             and not _uses_float(p)]
    random.Random(seed).shuffle(short)
    return sorted(short[:int(n)])


def _uses_float(path: str) -> bool:
    """Whether a C source mentions floating-point types (the importer skips such functions)."""
    with open(path, errors="replace") as fh:
        return bool(FLOAT_C.search(fh.read()))


def tree_ssa_sample(patterns: str, workdir: str = DEFAULT_WORKDIR) -> list[str]:
    """gcc.dg/tree-ssa programs that match one of the comma-separated ``patterns`` and use no
    floating point: a file-name glob (``ssa-pre-*``), or ``dump:PASS`` for the tests whose
    dg-options dump that GCC pass (``dump:pre``: the PRE tests; ``dump:thread*``)."""
    pats = [q.strip() for q in patterns.split(",") if q.strip()]
    if not pats:
        return []

    def matches(path: str) -> bool:
        for q in pats:
            if q.startswith("dump:"):
                with open(path, errors="replace") as fh:
                    dumps = re.findall(r"-fdump-tree-([\w-]+?)(?:-details|-stats|-all|-blocks)*\b",
                                       fh.read())
                if any(fnmatch.fnmatch(d, q[5:]) for d in dumps):
                    return True
            elif fnmatch.fnmatch(os.path.basename(path), q):
                return True
        return False
    return [p for p in tree_ssa_programs(workdir) if matches(p) and not _uses_float(p)]


def real_sample(patterns: str) -> list[tuple[str, str]]:
    """The vendored llvm-test-suite programs (``benchmarks/real``, ``benchmarks.real_corpus``):
    ``all``, or comma-separated globs over ``Suite/program.c`` (``Shootout/*,Dhrystone/*``);
    ``[(name, path)]``, the name ``Suite-program.c``."""
    from benchmarks.real_corpus import programs
    pats = [q.strip() for q in (patterns or "").split(",") if q.strip() and q.strip() != "0"]
    if not pats:
        return []
    return [(name.replace("/", "-"), path) for name, path in programs()
            if any(q == "all" or fnmatch.fnmatch(name, q) for q in pats)]


def corpus(examples: bool, csmith: str, torture: str, workdir: str, seed: int = 12,
           tree_ssa: str = "", real: str = "", torture_max_bytes: int = 1500) -> list[tuple]:
    """[(program name, kind, path)]"""
    items = []
    if examples:
        items += [(os.path.basename(p), "example", p)
                  for p in sorted(glob.glob(os.path.join(EXAMPLES, "*.pir")))]
    for s in parse_range(csmith):
        p = csmith_program(s, workdir)
        if p is not None:
            items.append((f"csmith-{s}.c", "csmith", p))
    items += [(os.path.basename(p), "torture", p) for p in torture_sample(torture, seed,
                                                                    max_bytes=torture_max_bytes)]
    items += [(os.path.basename(p), "tree-ssa", p) for p in tree_ssa_sample(tree_ssa, workdir)]
    items += [(name, "real", p) for name, p in real_sample(real)]
    return items


# ---------------------------------------------------------------- one version

#: how versions run (``--exec-engine``): auto | interp | native; every engine gives the
#: interpreter's result (``pylogic.interp.native.run_with``)
EXEC_ENGINE = "auto"


#: ``--native N``: every version that ran identically is also exported, compiled and run
#: natively N times (``benchmarks/native_timing.py``); 0: not
NATIVE_REPEAT = 0

#: ``--time-repeat N``: each of our pipelines and each opt-14 pipeline is run N times per program
#: and its CPU time is the least of the N (each run of ours in a forked child of its own, each
#: opt-14 run a process); the outputs of the repeats must be byte-identical to the first's, which
#: is the one compared. 1: one run (the harness's run-to-run spread of the median ratio was 1-10%
#: on an unchanged tree, docs/measurements.md, stop 51)
TIME_REPEAT = 1

#: CPU seconds one of our pipelines may take on one program (``--pass-timeout``; None: no
#: limit; CPU, not wall: the machine is shared); beyond it the row is ``not compared`` with
#: ``pipeline timed out``
PASS_TIMEOUT = None


class PipelineTimeout(BaseException):
    """A BaseException, so that no ``except Exception`` inside a pass swallows it."""


@contextlib.contextmanager
def _time_limit(seconds):
    """Raise PipelineTimeout in this (main) thread after ``seconds`` of this process's CPU time,
    its threads included (ITIMER_PROF, SIGPROF)."""
    if not seconds:
        yield
        return
    def expire(signum, frame):
        raise PipelineTimeout(f"pipeline timed out after {seconds:g} s CPU")
    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _runs(module, cases, fuel):
    return [run_with(EXEC_ENGINE, module, entry="main", args=a, inputs=i, fuel=fuel)
            for a, i in cases]


def _metrics(runs, module) -> dict:
    """``METRICS`` summed over ``runs`` (of ``module``)."""
    out = {k: 0 for k in METRICS}
    for r in runs:
        kinds = r.kinds
        out["instructions"] += int(r.counts.get("instructions", 0))
        for k in ("moves", "branches", "loads", "stores", "predicate_defines"):
            out[k] += int(kinds.get(k, 0))
        out["expression_evaluations"] += int(kinds.get("computations", 0))
        out["conditional_branches"] += conditional_branches(module, r)  # executed cbr (issue #15)
    out["instructions_without_moves"] = out["instructions"] - out["moves"]
    return out


def _version(label, side, module, report, cases, fuel, base_runs) -> dict:
    """Run ``module`` on ``cases`` and compare with the original's runs."""
    rec = {"pipeline": label, "side": side, "verdict": NOT_COMPARED, "detail": ""}
    if report is not None and not report.complete:
        reasons = sorted(report.skipped_by_reason()) + [g["reason"] for g in report.globals_skipped]
        rec["detail"] = "import incomplete: " + "; ".join(reasons)[:200]
        rec["import_skipped"] = {"functions": report.skipped_by_reason(),
                                 "globals": {g["name"]: g["reason"] for g in report.globals_skipped}}
        return rec
    errors = verify_module(module)
    if errors:
        rec["detail"] = f"verify: {errors[0]}"[:200]
        return rec
    rec["static_size"] = static_size(module)
    runs = _runs(module, cases, fuel)
    verdicts = []
    for before, after in zip(base_runs, runs):
        if before is None:  # the original itself: a reference only when it completed
            why = limit_reached(after) or (after.error is not None and
                                           f"stopped on a run-time error: {after.error.message}")
            verdicts.append((NOT_COMPARED, why) if why else (REFERENCE, ""))
        else:
            verdicts.append(compare_runs(before, after, (ORIGINAL, label)))
    for v, d in verdicts:
        if v == DIFFERENT:
            rec.update(verdict=DIFFERENT, detail=d[:200])
            break
    else:
        nc = [d for v, d in verdicts if v == NOT_COMPARED]
        ok = REFERENCE if side == "input" else IDENTICAL
        rec.update(verdict=NOT_COMPARED if nc else ok, detail=(nc[0] if nc else "")[:200])
    if rec["verdict"] in (IDENTICAL, REFERENCE):
        rec.update(_metrics(runs, module))
        if NATIVE_REPEAT and len(cases) == 1 and cases[0] == ((), ()):
            from benchmarks.native_timing import time_module
            ref = base_runs[0] or runs[0]
            rec.update(time_module(module, (ref.stdout_bytes, ref.exit_status), NATIVE_REPEAT))
    rec["_runs"] = runs
    return rec


def tag_origins(module):
    """``module`` with ``#origin=<function>:<n>`` on every instruction: an identity that
    survives our passes (they keep annotations), so constants can be matched across pipelines."""
    functions = []
    for fn in module.functions:
        n = 0
        blocks = []
        for b in fn.blocks:
            instrs = []
            for ins in b.instrs:
                n += 1
                instrs.append(dataclasses.replace(
                    ins, annotations=ins.annotations + (("origin", f"{fn.name}:{n}"),)))
            blocks.append(dataclasses.replace(b, instrs=tuple(instrs)))
        functions.append(dataclasses.replace(fn, blocks=tuple(blocks)))
    return dataclasses.replace(module, functions=tuple(functions))


def constant_keys(record) -> set:
    """``(origin, register, value, kind)`` of every constant a CP pass's rewrite used: operands
    replaced and definitions folded (``sccp`` and ``pcp-*`` records; empty for other passes)."""
    out = set()
    for entry in getattr(record, "applied", ()):
        f = getattr(entry, "rewrite", entry)
        for u in tuple(getattr(f, "constants", ())) + tuple(getattr(f, "folded_definitions", ())):
            if not hasattr(u, "origins"):
                continue
            for o in u.origins:
                out.add((o, u.register, u.value, u.kind))
    return out


#: The paper's claim, checked per program: after if-conversion, the named pipeline finds every
#: constant ``sccp`` finds on the branchy code (matched by instruction origin, register, value).
CLAIM_BASE = ("sccp",)
CLAIM_AFTER = (("if-convert", "pcp-full"), ("if-convert", "pcp-basic"), ("if-convert", "sccp"))


def _claims(constants: dict, converted) -> dict:
    """Per ``if-convert,X`` pipeline: how many of ``sccp``'s constants it recovers; the ones it
    misses, split into those at registers if-conversion removed (a compare folded into a
    predicate define: no longer a register to be constant) and the rest (first ten listed)."""
    base = constants.get(CLAIM_BASE)
    if base is None:
        return {}
    present = set()
    if converted is not None:
        for fn in converted.functions:
            for b in fn.blocks:
                for ins in b.instrs:
                    present.update((fn.name, d) for d in ins.defs())
                    present.update((fn.name, op.name) for op in ins.uses() if hasattr(op, "name"))
    out = {}
    for pipeline in CLAIM_AFTER:
        if pipeline not in constants:
            continue
        found = constants[pipeline]
        missing = sorted(base - found, key=str)
        def kept(m):            # origins are "<function>:<n>"
            return (m[0].rsplit(":", 1)[0], m[1]) in present
        gone = [m for m in missing if not kept(m)]
        rest = [m for m in missing if kept(m)]
        out[",".join(pipeline)] = {
            "sccp_constants": len(base), "recovered": len(base) - len(missing),
            "missing_register_removed": len(gone), "missing": len(rest),
            "missing_first": [list(map(str, m)) for m in rest[:10]],
            "beyond_sccp": len(found - base)}
    return out


def _cpu() -> float:
    """CPU seconds of this process (its threads: clingo, duckdb) and its reaped children."""
    return time.process_time() + children_cpu()


def _error(label, side, detail) -> dict:
    return {"pipeline": label, "side": side, "verdict": NOT_COMPARED, "detail": detail[:200]}


def prepare_program(kind: str, path: str):
    """``(module, import report, prepared LLVM text, driver cases, driven functions)`` of one
    corpus program, prepared once as every version starts from it; None for a C program with
    floating point (excluded). A ``.pir`` example has no report, no LLVM text and no driver."""
    if kind == "example":
        return load_module(path), None, None, (), ()
    ll = prepare_c(path, PREPARE_FLAGS)
    if FLOAT_IR.search(ll):
        return None
    ll, driver_cases, driven = add_driver(ll)   # compile-only tests: a main that calls their
    module, report = import_llvm(ll, path)       # functions (benchmarks/drivers.py)
    return module, report, ll, driver_cases, driven


def import_output(text: str, path: str, normalise: str = NORMALISE):
    """``(module, report, text)`` of LLVM's output ``text``: ``-passes=normalise`` (unless "")
    then ``import_llvm``; how every LLVM row and the ``--from O2`` start are read."""
    if normalise:
        text = run_opt(text, normalise, path)
    module, report = import_llvm(text, path)
    return module, report, text


def start_o2(path: str, normalise: str = NORMALISE):
    """``import_output`` of clang-14 -O2 without the vectorizers (``compile_c_o2``)."""
    return import_output(compile_c_o2(path, PREPARE_FLAGS), path, normalise)


def beyond(start: dict, version: dict) -> dict:
    """Per ``BEYOND`` figure, what ``version`` removes from its starting point's count
    (negative: it executes more)."""
    return {k: start[k] - version[k] for k in BEYOND}


def evaluate(name: str, kind: str, path: str, ours: list, llvm: list, fuel: int = FUEL,
             normalise: str = NORMALISE, engine: str = "clingo", start: str = "prepared") -> dict:
    """One program through every pipeline: a JSON-ready record. ``start``: ``STARTS``."""
    rec = {"program": name, "kind": kind, "status": "ok", "detail": "", "versions": []}
    t0 = time.perf_counter()
    try:
        prepared = prepare_program(kind, path)
        if prepared is None:
            rec.update(status="excluded", detail="floating point")
            return rec
        module, report, ll, driver_cases, driven = prepared
    except PathlogicError as exc:
        rec.update(status="prepare-error", detail=str(exc)[:200])
        return rec
    cases = EXAMPLE_CASES.get(name, [((), ())]) if kind == "example" else [((), ())]
    if ll is not None and driver_cases:
        fuel = min(fuel, DRIVER_FUEL)
        trial = _runs(module, driver_cases, fuel)
        cases = [c for c, r in zip(driver_cases, trial) if r.error is None and not limit_reached(r)]
        rec["driver"] = {"functions": [f.name for f in driven], "cases": len(driver_cases),
                         "completed": len(cases), "fuel": fuel}
        if not cases:
            rec.update(status="original not run", detail="no driver case completed")
            return rec
    rec["cases"] = [[list(a), list(i)] for a, i in cases]
    base = _version(ORIGINAL, "input", module, report, cases, fuel, [None] * len(cases))
    base_runs = base.pop("_runs", None)
    if NATIVE_REPEAT and ll is not None and base["verdict"] == REFERENCE and not driver_cases:
        rec["native_clang_O2"] = _native_c(path, base_runs[0])
    rec["versions"].append(base)
    if base["verdict"] != REFERENCE:  # the original did not complete: nothing to compare with,
        rec.update(status="original not run", detail=base["detail"])  # but the passes are timed
        tagged = tag_origins(module)                                  # (issue #28: speed on
        for p in ours:                                                # every program)
            rec["versions"].append(_timed_only(ours_label(p), "ours", _repeated(
                lambda: _run_ours(tagged, p, name, engine), ours_label(p), "ours")))
        for s in llvm:
            rec["versions"].append(
                _timed_only(llvm_label(s), "llvm", _repeated(
                    lambda: _run_llvm(ll, s, path, normalise), llvm_label(s), "llvm"))
                if ll is not None else _error(llvm_label(s), "llvm", "original not run"))
        rec["seconds"] = round(time.perf_counter() - t0, 2)
        return rec
    start_version = None
    if start != "prepared":
        module, ll, start_version = _start(start, kind, path, cases, fuel, normalise, base_runs,
                                           bool(driver_cases))
        rec["versions"].append(start_version)
        if start_version["verdict"] != IDENTICAL:
            why = f"start {start} not identical: {start_version['detail'] or start_version['verdict']}"
            for p in ours:
                rec["versions"].append(_error(ours_label(p), "ours", why))
            for s in llvm:
                rec["versions"].append(_error(llvm_label(s), "llvm", why))
            rec["seconds"] = round(time.perf_counter() - t0, 2)
            return rec
    tagged = tag_origins(module)
    constants: dict = {}
    converted = None
    for pipeline in ours:
        label = ours_label(pipeline)
        ran = _repeated(lambda: _run_ours(tagged, pipeline, name, engine), label, "ours")
        if "error" in ran:
            rec["versions"].append(ran["error"])
            continue
        result = ran["result"]
        v = _version(label, "ours", result.module, None, cases, fuel, base_runs)
        v.pop("_runs", None)
        v.update(ran["timing"])
        v["passes"] = result.totals
        if v["verdict"] == IDENTICAL and result.totals:
            constants[tuple(pipeline)] = result.constants
        if tuple(pipeline) == ("if-convert",):
            converted = result.module
        rec["versions"].append(v)
    for spec in llvm:
        label = llvm_label(spec)
        if ll is None:
            rec["versions"].append({"pipeline": label, "side": "llvm", "verdict": NOT_APPLICABLE,
                                    "detail": "PIR input: no LLVM IR"})
            continue
        ran = _repeated(lambda: _run_llvm(ll, spec, path, normalise), label, "llvm")
        if "error" in ran:
            rec["versions"].append(ran["error"])
            continue
        out, cpu = ran["result"], ran["timing"]["cpu_seconds"]
        try:
            m2, r2, out = import_output(out, path, "")
        except PathlogicError as exc:
            rec["versions"].append(_error(label, "llvm", f"import error: {exc}"))
            continue
        v = _version(label, "llvm", m2, r2, cases, fuel, base_runs)
        v.pop("_runs", None)
        v["cpu_seconds"] = cpu
        v["vector_types"] = bool(VECTOR_TYPE.search(out))  # vectorizer output (not imported)
        rec["versions"].append(v)
    if start_version is not None:
        for v in rec["versions"]:
            if v["side"] in ("ours", "llvm") and v["verdict"] == IDENTICAL:
                v["beyond_start"] = beyond(start_version, v)
    rec["claim"] = _claims(constants, converted)
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


@dataclasses.dataclass
class OursResult:
    """What the program's worker needs of one of our pipelines' runs: the optimized module, each
    pass's totals (``PassResult.totals``) and the constants its last record used
    (``constant_keys``)."""
    module: object
    totals: list
    constants: set


def _run_ours(tagged, pipeline, name: str, engine: str) -> dict:
    """:func:`_run_ours_here` in a child process of its own (``engines.budget.Child``, forked
    from the program's worker; opt-14 runs each pipeline in a process of its own): what one
    pipeline derived from this program's objects (blocks' derived values, identity and content
    caches) is not there for the next; the result comes back as an :class:`OursResult`."""
    try:
        return Child(_ours_in_worker, (tagged, pipeline, name, engine)).result()
    except PathlogicError as exc:       # the child died without an answer (a crash in C code)
        return {"error": _error(ours_label(pipeline), "ours", f"pass crashed: {exc.message}")}


def _ours_in_worker(tagged, pipeline, name: str, engine: str) -> dict:
    ran = _run_ours_here(tagged, pipeline, name, engine)
    if "result" in ran:
        result = ran["result"]
        ran["result"] = OursResult(result.module, [p.totals() for p in result.passes],
                                   constant_keys(result.passes[-1].record) if result.passes
                                   else set())
    return ran


def _run_ours_here(tagged, pipeline, name: str, engine: str) -> dict:
    """``{"result", "timing"}`` of our ``pipeline`` on ``tagged`` in this process (CPU and wall
    seconds, under ``PASS_TIMEOUT``; the output's sha256, for refactoring checks: byte-identical
    before/after), or ``{"error": row}``."""
    label = ours_label(pipeline)
    unknown = [p for p in pipeline if p not in known_names()]
    if unknown:
        return {"error": _error(label, "ours", f"unknown pass {', '.join(unknown)}")}
    # as in a process of its own: nothing frozen (``Child`` freezes what it inherits; optimize
    # freezes its own modules, collector.heap_frozen, only where nothing was frozen before) and
    # the garbage inherited from the original's runs collected outside the window
    gc.unfreeze()
    gc.collect()
    t1, c1 = time.perf_counter(), _cpu()
    try:
        with _time_limit(PASS_TIMEOUT):
            result = optimize(tagged, list(pipeline), name, engine=engine)
    except PipelineTimeout as exc:
        return {"error": _error(label, "ours", str(exc))}
    except PathlogicError as exc:
        return {"error": _error(label, "ours", f"pass failed: {exc}")}
    except Exception as exc:  # a crashing pass is a finding for its row, not for the run
        return {"error": _error(label, "ours", f"pass crashed: {type(exc).__name__}: {exc}")}
    cpu = _cpu() - c1
    return {"result": result, "timing": {
        "pass_seconds": round(time.perf_counter() - t1, 3), "cpu_seconds": round(cpu, 3),
        "sha256": hashlib.sha256(print_module(result.module).encode()).hexdigest()}}


#: the ``; ModuleID = '...'`` line opt-14 writes first: the path of its temporary input
MODULE_ID = re.compile(r"^; ModuleID = .*\n", re.M)


def _repeated(run_once, label: str, side: str) -> dict:
    """``run_once()`` (a ``{"result", "timing"}`` or ``{"error"}``) ``TIME_REPEAT`` times: the first
    run's result and timing, its ``cpu_seconds`` the least of the runs'. A repeat whose output
    differs from the first's (``sha256`` for ours, opt-14's text but its ModuleID line for
    LLVM's) or that fails makes the row an error: a pipeline that does not give the same output
    twice is a finding."""
    first = run_once()
    if "error" in first or TIME_REPEAT <= 1:
        return first
    if "sha256" in first["timing"]:
        same = lambda r: r["timing"]["sha256"] == first["timing"]["sha256"]  # noqa: E731
    else:                   # opt-14's first line names the run's temporary input file
        text = MODULE_ID.sub("", first["result"], count=1)
        same = lambda r: MODULE_ID.sub("", r["result"], count=1) == text  # noqa: E731
    for _ in range(TIME_REPEAT - 1):
        again = run_once()
        if "error" in again:
            return again
        if not same(again):
            return {"error": _error(label, side, "output differs between repeated runs")}
        first["timing"]["cpu_seconds"] = min(first["timing"]["cpu_seconds"],
                                             again["timing"]["cpu_seconds"])
    return first


def _run_llvm(ll: str, spec: str, path: str, normalise: str) -> dict:
    """``{"result": opt's normalised output, "timing"}`` of the LLVM pipeline ``spec`` on the
    prepared text ``ll`` (CPU seconds of the opt-14 process that runs it: parse, passes, print),
    or ``{"error": row}``."""
    passes, *extra = spec.split()
    try:
        c1 = children_cpu()
        out = run_opt(ll, passes, path, extra_args=extra)
        cpu = children_cpu() - c1
        if normalise:
            out = run_opt(out, normalise, path)
    except PathlogicError as exc:
        return {"error": _error(llvm_label(spec), "llvm", f"opt: {exc}")}
    return {"result": out, "timing": {"cpu_seconds": round(cpu, 3)}}


def _timed_only(label: str, side: str, ran: dict) -> dict:
    """The row of a version whose original did not complete: not compared, but timed."""
    if "error" in ran:
        return ran["error"]
    return {"pipeline": label, "side": side, "verdict": NOT_COMPARED,
            "detail": "original not run", **ran["timing"]}


def _native_c(path: str, ref) -> dict:
    """The native time of the C program compiled by clang-14 with ``O2_FLAGS``' optimization (a
    real binary: C's memory, no counters) -- the scale, not a row of the comparison."""
    import tempfile
    from benchmarks.native_timing import time_binary
    from pylogic.ir.llvm.clang import compile_native
    flags = [f for f in O2_FLAGS if f.startswith("-f") or f.startswith("-O")]
    with tempfile.TemporaryDirectory(prefix="pathlogic-native-") as tmp:
        exe = os.path.join(tmp, "prog")
        try:
            compile_native(path, exe, (*PREPARE_FLAGS, *flags))
        except PathlogicError as exc:
            return {"native_error": str(exc)[:200]}
        return {"flags": flags, **time_binary(exe, (ref.stdout_bytes, ref.exit_status),
                                                NATIVE_REPEAT)}


def _start(start, kind, path, cases, fuel, normalise, base_runs, driven):
    """``(module, LLVM text, version record)`` of the starting point ``start`` of one program:
    imported and checked against the original like any version (the module None when it
    cannot start there)."""
    label = START[start]
    if kind == "example":
        return None, None, _error(label, "start", "PIR input: no C to compile")
    if driven:  # the driver is added to prepare_c's text, which O2 does not start from
        return None, None, _error(label, "start", "program without main (driver): no O2 start")
    try:
        module, report, text = start_o2(path, normalise)
    except PathlogicError as exc:
        return None, None, _error(label, "start", f"clang -O2: {exc}")
    v = _version(label, "start", module, report, cases, fuel, base_runs)
    v.pop("_runs", None)
    v["vector_types"] = bool(VECTOR_TYPE.search(text))
    return module, text, v


# ---------------------------------------------------------------- the whole run

def _safe_evaluate(item, ours, llvm, fuel, normalise, engine, start="prepared"):
    name, kind, path = item
    try:
        return evaluate(name, kind, path, ours, llvm, fuel, normalise, engine, start)
    except Exception as exc:  # an importer or interpreter crash is a finding, not a reason to stop
        return {"program": name, "kind": kind, "status": "crash",
                "detail": f"{type(exc).__name__}: {exc}"[:300], "versions": []}


def warm_up(ours, engine: str = "clingo") -> None:
    """Each of ``ours`` once on every ``examples/*.pir`` program, untimed and discarded, in this
    process, before :func:`run` forks its workers from it: what a pass builds once per process
    (the Datalog programs parsed and translated, lazily imported modules) is then built before
    any program's window, as it was for every program but the first of one long process. A
    pipeline that refuses an example is skipped there (the corpus's rows report refusals)."""
    for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.pir"))):
        module, name = load_module(path), os.path.basename(path)
        for pipeline in ours:
            if any(p not in known_names() for p in pipeline):
                continue
            try:
                optimize(module, list(pipeline), name, engine=engine)
            except Exception:       # noqa: BLE001 -- an untimed warm-up, not a finding
                pass
    gc.collect()


def run(items, ours, llvm, *, fuel=FUEL, normalise=NORMALISE, engine="clingo", jobs=1,
        budget=None, progress=None, start="prepared") -> tuple[list[dict], int]:
    """Evaluate every (name, kind, path); returns (records in corpus order, number not attempted
    for lack of time).

    Each program runs in a worker process of its own, forked from this one (at most ``jobs`` at
    a time), as opt-14 runs once per program: one long process grew from 713 to 1,874 MB over
    csmith 40-49, and its collector's passes and clingo's process-wide symbol table (rehashed
    at each doubling) put up to 5 s into single passes' windows (docs/measurements.md, "the
    harness's outliers"). Call :func:`warm_up` first so that the workers inherit what is built
    once per process."""
    began, records = time.time(), {}
    pending = list(enumerate(items))

    def evaluate_one(task):
        return _safe_evaluate(task[1], ours, llvm, fuel, normalise, engine, start)

    def submit_within_budget(pool):
        if pending and (budget is None or time.time() - began < budget):
            pool.submit(evaluate_one, pending.pop(0), None)

    # program workers start children of their own (a process per pipeline): not daemonic
    with BudgetPool(jobs, daemon=False) as pool:
        for _ in range(max(1, jobs)):
            submit_within_budget(pool)
        for (k, (name, kind, _)), outcome in pool.outcomes():
            records[k] = outcome.value if outcome.ok else {
                "program": name, "kind": kind, "status": "crash",
                "detail": outcome.error[:300], "versions": []}
            if progress:
                progress(records[k])
            submit_within_budget(pool)
    return [records[j] for j in sorted(records)], len(pending)


def run_labels(payload: dict) -> list[str]:
    """The version labels of a run file (``labels_of``'s order): the start's is read off its
    programs' versions (a run file names its pipelines, not its start)."""
    starts = [l for l in START.values() if any(v["pipeline"] == l for r in payload["programs"]
                                               for v in r.get("versions", []))]
    return [ORIGINAL] + starts + payload["pipelines"]["ours"] + payload["pipelines"]["llvm"]


def labels_of(ours, llvm, start: str = "prepared") -> list[str]:
    return ([ORIGINAL] + ([START[start]] if start in START else [])
            + [ours_label(p) for p in ours] + [llvm_label(s) for s in llvm])


def summarise(records: list[dict], labels: list[str]) -> dict:
    """Per pipeline: verdict counts; totals over the programs where every version was identical
    (and over those where the original and all of ours were); pairwise totals (the original vs
    one pipeline, over the programs where that pipeline was identical); why versions were not
    identical, by reason (import skip reasons, or the detail's first words); per LLVM pipeline,
    of the programs whose original ran, how many imported completely / incompletely / failed,
    and how many had vector types in LLVM's output."""
    # A pipeline that ran on no program (an unknown pass) has no versions to compare: it is
    # left out of the intersection (and named), so it does not empty the totals.
    never_run = [l for l in labels if l.startswith("ours:")
                 and any(p not in known_names() for p in l[len("ours:"):].split(","))]
    labels = [l for l in labels if l not in never_run]
    verdicts = {l: Counter() for l in labels}
    problems = {l: {} for l in labels}
    all_identical, ours_identical = [], []
    ours_labels = [l for l in labels if not l.startswith("opt:")]
    for r in records:
        vs = {v["pipeline"]: v for v in r.get("versions", [])}
        for l in labels:
            v = vs.get(l)
            if v is None:  # the program was excluded or could not be prepared: no versions
                continue
            verdicts[l][v["verdict"]] += 1
            if v["verdict"] not in (IDENTICAL, REFERENCE, NOT_APPLICABLE):
                skipped = v.get("import_skipped") or {}
                keys = sorted(set(skipped.get("functions", {}))
                              | {"global: " + why for why in skipped.get("globals", {}).values()})
                for key in keys or [v["detail"].split(":")[0] if v["detail"] else v["verdict"]]:
                    problems[l].setdefault(key, []).append(r["program"])
        if vs and all(vs.get(l, {}).get("verdict") in (IDENTICAL, REFERENCE) for l in labels):
            all_identical.append(r)
        if vs and all(vs.get(l, {}).get("verdict") in (IDENTICAL, REFERENCE) for l in ours_labels):
            ours_identical.append(r)

    def totals(recs, ls):
        out = {}
        for l in ls:
            t = {k: 0 for k in METRICS + ("static_size",)}
            for r in recs:
                v = next(v for v in r["versions"] if v["pipeline"] == l)
                for k in t:
                    t[k] += v.get(k, 0)
            out[l] = t
        return out

    llvm_import = {}
    for l in labels:
        if not l.startswith("opt:"):
            continue
        c = Counter()
        for r in records:
            for v in r.get("versions", []):
                if v["pipeline"] != l or v["detail"] == "original not run" or v["verdict"] == NOT_APPLICABLE:
                    continue
                if "import_skipped" in v:
                    c["incomplete"] += 1
                elif v["detail"].startswith(("opt:", "import error")):
                    c["failed"] += 1
                else:
                    c["complete"] += 1
                c["vector_output"] += bool(v.get("vector_types"))
        llvm_import[l] = dict(c)
    pairwise = {}
    for l in labels[1:]:
        recs = [r for r in records if any(v["pipeline"] == l and v["verdict"] == IDENTICAL
                                          for v in r.get("versions", []))]
        t = totals(recs, [ORIGINAL, l])
        pairwise[l] = {"programs": len(recs), "original": t[ORIGINAL], "pipeline": t[l]}
    return {"verdicts": {l: dict(c) for l, c in verdicts.items()},
            "pipelines_in_totals": labels,
            "pipelines_never_run": never_run,
            "programs_all_identical": len(all_identical),
            "programs_all_identical_names": [r["program"] for r in all_identical],
            "totals_over_all_identical": totals(all_identical, labels),
            "programs_ours_identical": len(ours_identical),
            "totals_over_ours_identical": totals(ours_identical, ours_labels),
            "totals_pairwise": pairwise,
            "llvm_import": llvm_import,
            "not_identical_by_reason": problems,
            "beyond_start": beyond_summary(records, labels),
            "native": native_summary(records, labels),
            "head_to_head": head_to_head(records, [l for l in ours_labels if l.startswith("ours:")],
                                         [l for l in labels if l.startswith("opt:")]),
            "claim": claim_summary(records),
            "parity": parity_summary(records),
            "speed": speed_summary(records, labels)}


#: Each pass's LLVM counterpart for the speed comparison (issue #28 item 1): a pipeline whose
#: passes have one counterpart is compared with it, one that mixes families with default<O2>.
COUNTERPART = {"pre-m": "gvn", "pre-ms": "gvn", "pre-mr": "gvn", "pre-mr-budget": "gvn",
               "pre-r": "gvn", "pre-ms-speculate": "gvn", "pre-mr-split": "gvn",
               "pre-mr-budget-split": "gvn", "pre-r-split": "gvn", "vng-fre": "gvn", "cbe": "jump-threading",
               "icbe": "jump-threading", "sccp": "sccp,adce", "pcp-basic": "sccp,adce",
               "pcp-full": "sccp,adce", "dce": "sccp,adce", "pde": "sink,adce",
               "ppde": "sink,adce", "ppde-keep": "sink,adce"}
#: passes that go with any family (preparation or clean-up) and choose no counterpart
NEUTRAL = ("if-convert", "simplify", "coalesce")
O2 = "default<O2>"


def counterpart(pipeline: list[str]) -> str:
    """The LLVM pipeline (``opt -passes=`` text) our ``pipeline`` is timed against."""
    found = {COUNTERPART.get(p, O2) for p in pipeline if p not in NEUTRAL}
    return found.pop() if len(found) == 1 else O2


def _llvm_label_for(passes: str, labels: list[str]) -> str | None:
    """The run's LLVM label with ``passes`` as its pipeline (O2 without the vectorizers first)."""
    found = [l for l in labels if l.startswith("opt:") and l[4:].split()[0] == passes]
    return max(found, key=lambda l: "-vectorize-loops=false" in l, default=None)


#: CPU seconds beyond which a pipeline's time on one program is listed (issue #28 item 1)
SLOW = 60


def speed_summary(records: list[dict], labels: list[str]) -> dict:
    """Per our pipeline, CPU seconds against its counterpart's (``counterpart``) and against
    default<O2>'s on the same program in the same run: over the programs where both have a time
    (and the same for every other pair), the median of the per-program ratios, the ratio of the
    sums, the largest ratio and the slowest program of ours; the median again over the programs
    whose original ran (``median_ratio_original_ran``, of ``programs_original_ran``: the
    programs every version is checked on; a program whose original exhausts the fuel is timed
    all the same and counts in ``median_ratio``. Ours grows with a program's size and opt-14's
    hardly does, so the two medians differ: csmith 1-50 at stop 56, PRE 14.5x over 50 and 9.3x
    over 44); ``over_60s``: the programs where it
    took more than ``SLOW`` CPU seconds or timed out (``--pass-timeout``). Our time is ``optimize()`` on the
    imported module (clingo and duckdb run in process: process CPU plus children); opt's is the
    opt-14 process (parse, passes, print)."""
    out = {}
    for l in labels:
        if not l.startswith("ours:"):
            continue
        pipeline = l[len("ours:"):].split(",")
        targets = {"counterpart": _llvm_label_for(counterpart(pipeline), labels),
                   "O2": _llvm_label_for(O2, labels)}
        row = {}
        for key, target in targets.items():
            if target is None or (key == "O2" and target == targets["counterpart"]
                                  and "counterpart" in row):
                continue
            pairs = []
            for r in records:
                vs = {v["pipeline"]: v for v in r.get("versions", [])}
                a, b = vs.get(l, {}).get("cpu_seconds"), vs.get(target, {}).get("cpu_seconds")
                if a is not None and b:
                    pairs.append((a / b, a, b, r["program"], r.get("status", "ok") == "ok"))
            if not pairs:
                continue
            ratios = [p[0] for p in pairs]
            ran = [p[0] for p in pairs if p[4]]
            ours_sum, llvm_sum = sum(p[1] for p in pairs), sum(p[2] for p in pairs)
            slowest = max(pairs, key=lambda p: p[1])
            row[key] = {"llvm": target, "programs": len(pairs),
                        "median_ratio": round(statistics.median(ratios), 2),
                        "programs_original_ran": len(ran),
                        "median_ratio_original_ran":
                            round(statistics.median(ran), 2) if ran else None,
                        "sum_ratio": round(ours_sum / llvm_sum, 2),
                        "max_ratio": round(max(ratios), 1),
                        "ours_cpu_sum": round(ours_sum, 2), "llvm_cpu_sum": round(llvm_sum, 3),
                        "ours_slowest": [slowest[3], round(slowest[1], 2)]}
        slow = [[r["program"], v.get("cpu_seconds") or v["detail"]] for r in records
                for v in r.get("versions", []) if v["pipeline"] == l
                and ("timed out" in v.get("detail", "") or (v.get("cpu_seconds") or 0) > SLOW)]
        if slow:    # issue #28: no program over 60 s CPU for any pipeline
            row["over_60s"] = slow
        if row:
            out[l] = row
    return out


def print_speed(speed: dict) -> None:
    rows = [[l, k, p["llvm"][4:], p["programs"], p["median_ratio"],
             f"{p.get('median_ratio_original_ran')} ({p.get('programs_original_ran')})",
             p["sum_ratio"], p["max_ratio"], p["ours_cpu_sum"], p["llvm_cpu_sum"],
             f"{p['ours_slowest'][0]} {p['ours_slowest'][1]}"]
            for l, row in speed.items() for k, p in row.items() if k != "over_60s"]
    if rows:
        print("\nCPU seconds, ours against opt-14 on the same programs in the same run")
        print(format_table(["pipeline", "against", "opt", "programs", "median ratio",
                            "median, original ran (programs)", "sum ratio", "max ratio",
                            "ours s", "opt s", "ours slowest"], rows))
    for l, row in speed.items():
        if row.get("over_60s"):
            print(f"{l} over {SLOW} s CPU: " + ", ".join(f"{p} ({t})" for p, t in row["over_60s"]))


def beyond_summary(records: list[dict], labels: list[str]) -> dict:
    """When the run had a starting point (``START``): per pipeline, over the programs where it
    and the start were identical to the original, the ``BEYOND`` totals of both and, per
    figure, on how many programs the pipeline counts fewer / as many / more than the start (the
    ones with more named); ``best_of_ours``: per program our pipeline with the fewest
    instructions, against the start. Empty without a start."""
    starts = [l for l in labels if l in START.values()]
    if not starts:
        return {}
    start = starts[0]
    out = {"start": start, "pipelines": {}}
    best = {"programs": 0, "fewer": 0, "equal": 0, "more": 0, "more_programs": [],
            "start": {k: 0 for k in BEYOND}, "best": {k: 0 for k in BEYOND}, "chosen": Counter()}
    for l in labels:
        if not l.startswith(("ours:", "opt:")):
            continue
        p = {"programs": 0, "start": {k: 0 for k in BEYOND}, "pipeline": {k: 0 for k in BEYOND},
             **{k: {"fewer": 0, "equal": 0, "more": 0, "more_programs": []} for k in BEYOND}}
        for r in records:
            v = next((v for v in r.get("versions", []) if v["pipeline"] == l), None)
            if not v or "beyond_start" not in v:
                continue
            sv = next(v for v in r["versions"] if v["pipeline"] == start)
            p["programs"] += 1
            for k in BEYOND:
                p["start"][k] += sv[k]
                p["pipeline"][k] += v[k]
                d = v["beyond_start"][k]
                c = p[k]
                c["fewer" if d > 0 else "equal" if d == 0 else "more"] += 1
                if d < 0:
                    c["more_programs"].append(r["program"])
        out["pipelines"][l] = p
    for r in records:
        ours = [v for v in r.get("versions", []) if v["pipeline"].startswith("ours:")
                and "beyond_start" in v]
        if not ours:
            continue
        b = min(ours, key=lambda v: v["instructions"])
        sv = next(v for v in r["versions"] if v["pipeline"] == start)
        best["programs"] += 1
        d = b["beyond_start"]["instructions"]
        best["fewer" if d > 0 else "equal" if d == 0 else "more"] += 1
        if d < 0:
            best["more_programs"].append(r["program"])
        best["chosen"][b["pipeline"]] += 1
        for k in BEYOND:
            best["start"][k] += sv[k]
            best["best"][k] += b[k]
    best["chosen"] = dict(best["chosen"])
    out["best_of_ours"] = best
    return out


def head_to_head(records: list[dict], ours: list[str], llvm: list[str]) -> dict:
    """Per ``"<ours> vs <llvm>"`` and metric of ``HEAD_TO_HEAD``: over the programs where both
    versions were identical to the original, on how many LLVM's version counted fewer
    (``llvm_fewer``), as many (``equal``) or more (``ours_fewer``), and the programs LLVM wins."""
    out = {}
    for o in ours:
        for l in llvm:
            pair = {k: {"programs": 0, "llvm_fewer": 0, "equal": 0, "ours_fewer": 0,
                        "llvm_fewer_programs": []} for k in HEAD_TO_HEAD}
            for r in records:
                vs = {v["pipeline"]: v for v in r.get("versions", [])}
                a, b = vs.get(o), vs.get(l)
                if not (a and b and a["verdict"] == IDENTICAL and b["verdict"] == IDENTICAL):
                    continue
                for k in HEAD_TO_HEAD:
                    if a.get(k) is None or b.get(k) is None:   # a run from before the metric
                        continue
                    p = pair[k]
                    p["programs"] += 1
                    if b[k] < a[k]:
                        p["llvm_fewer"] += 1
                        p["llvm_fewer_programs"].append(r["program"])
                    elif b[k] == a[k]:
                        p["equal"] += 1
                    else:
                        p["ours_fewer"] += 1
            out[f"{o} vs {l}"] = pair
    return out


#: Code-size parity, per program: (ours, LLVM, LLVM's pass alone). When LLVM's output is smaller,
#: the reason is read off the third: if LLVM's sccp alone is not smaller than ours, the difference
#: is its ADCE's (dead cycles and dead code we do not remove); otherwise LLVM's sccp itself.
PARITY = (("ours:sccp", "opt:sccp,adce", "opt:sccp"), ("ours:pcp-full", "opt:sccp,adce", "opt:sccp"))


def parity_of(record: dict, ours: str, llvm: str, llvm_alone: str) -> dict | None:
    """Static sizes of ``ours`` and ``llvm`` on one program (both identical to the original),
    with the verdict smaller/equal/larger and, when larger, the reason (see PARITY)."""
    vs = {v["pipeline"]: v for v in record.get("versions", [])}
    a, b, c = vs.get(ours), vs.get(llvm), vs.get(llvm_alone)
    if not (a and b and a["verdict"] == IDENTICAL and b["verdict"] == IDENTICAL):
        return None
    out = {"ours": a["static_size"], "llvm": b["static_size"]}
    if a["static_size"] < b["static_size"]:
        out["verdict"] = "smaller"
    elif a["static_size"] == b["static_size"]:
        out["verdict"] = "equal"
    else:
        out["verdict"] = "larger"
        if c and c["verdict"] == IDENTICAL:
            out["llvm_alone"] = c["static_size"]
            if c["static_size"] >= a["static_size"]:
                out["reason"] = (f"{llvm[4:]}'s dead code elimination (its {llvm_alone[4:]} alone "
                                 "is not smaller)")
            elif c.get("loads", 0) < a.get("loads", 0):
                out["reason"] = (f"{llvm_alone[4:]} alone is smaller and runs fewer loads: it "
                                 "folds loads from constant globals (ours: every load unknown)")
            else:
                out["reason"] = (f"{llvm_alone[4:]} alone is smaller, same loads: value ranges "
                                 "and other folds (e.g. a/100 >= -999999999 in divcmp-5; not "
                                 "inspected per program)")
        else:
            out["reason"] = f"{llvm_alone} not identical: unexplained"
    return out


def parity_summary(records: list[dict]) -> dict:
    """Per PARITY pair: verdict counts, reasons of the larger ones with the programs."""
    out = {}
    for ours, llvm, alone in PARITY:
        verdicts, reasons = Counter(), {}
        for r in records:
            p = parity_of(r, ours, llvm, alone)
            if p is None:
                continue
            verdicts[p["verdict"]] += 1
            if "reason" in p:
                reasons.setdefault(p["reason"], []).append(
                    [r["program"], p["ours"], p.get("llvm_alone"), p["llvm"]])
        out[f"{ours} vs {llvm}"] = {"verdicts": dict(verdicts),
                                    "larger_by_reason": {k: {"programs": len(v),
                                                             "ours_llvm-alone_llvm": v}
                                                         for k, v in reasons.items()}}
    return out


def claim_summary(records: list[dict]) -> dict:
    """Per ``if-convert,X``: over the programs where sccp and it both ran identically, how many
    programs had every sccp constant recovered, and the constant counts summed."""
    out: dict = {}
    for r in records:
        for pipeline, c in (r.get("claim") or {}).items():
            t = out.setdefault(pipeline, Counter())
            t["programs"] += 1
            t["programs_all_recovered"] += int(c["missing"] == 0 and
                                               c["missing_register_removed"] == 0)
            t["programs_all_recovered_but_removed_registers"] += int(c["missing"] == 0)
            for key in ("sccp_constants", "recovered", "missing_register_removed", "missing",
                        "beyond_sccp"):
                t[key] += c[key]
    return {k: dict(v) for k, v in out.items()}


def table_rows(records: list[dict]) -> list[list]:
    rows = []
    for r in records:
        if not r.get("versions"):
            rows.append([r["program"], "-", r["status"], *[""] * (len(METRICS) + 1),
                         r.get("detail", "")[:60]])
            continue
        for v in r["versions"]:
            rows.append([r["program"], v["pipeline"], v["verdict"],
                         *[v.get(k, "") for k in METRICS], v.get("static_size", ""),
                         v.get("detail", "")[:60]])
    return rows


HEADERS = ["program", "pipeline", "verdict", "instrs", "w/o mov", "movs", "branches", "cbr",
           "loads", "stores", "pdefs", "evals", "static", "detail"]


def header_text(name, ours, llvm, normalise, fuel, start: str = "prepared") -> str:
    return "\n".join([
        f"optimize-{name}: every pipeline starts from the same prepared LLVM IR"
        + ("" if start == "prepared" else
           f" (the original's); from {START[start]}: clang-14 {' '.join(O2_FLAGS)}, normalised"
           " and imported like an LLVM row, checked like every version"),
        f"  preparation: {preparation()}",
        f"  ours: optimize() on the imported module: {', '.join(ours_label(p) for p in ours) or '-'}",
        "  LLVM: opt-14 -S -passes=P on the prepared .ll"
        + (f", then -passes={normalise} (switches lowered like the original's)" if normalise
           else ", imported as is (switch read by the importer)")
        + f", then imported: {', '.join(llvm_label(s) for s in llvm) or '-'}",
        f"  runs: main, no args (examples: their own cases; programs without main: a driver"
        f" main calls each function, benchmarks/drivers.py), fuel {fuel:,}; identical only when"
        " every run completed and agreed with the original"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", action="store_true", help="the .pir examples")
    ap.add_argument("--csmith", default="", help="seeds, e.g. 1-10 or 1,4,7")
    ap.add_argument("--torture", default="0", help="N short programs (sampled), 'all', or file-name globs "
                    "(comma-separated, e.g. 'pr68506.c,2000*')")
    ap.add_argument("--seed", type=int, default=12, help="torture sampling seed")
    ap.add_argument("--torture-max-bytes", type=int, default=1500, metavar="BYTES",
                    help="largest source --torture N samples from (0: any size)")
    ap.add_argument("--tree-ssa", default="", metavar="GLOBS",
                    help="gcc.dg/tree-ssa programs by file-name globs, e.g. 'ssa-pre-*'")
    ap.add_argument("--real", nargs="?", const="all", default="", metavar="GLOBS",
                    help="the llvm-test-suite programs of benchmarks/real (all, or globs over "
                         "Suite/program.c, e.g. 'Shootout/*')")
    ap.add_argument("--ours", action="append", default=None,
                    help="one of our pipelines, passes comma-separated (repeat); default if-convert")
    ap.add_argument("--llvm", action="append", default=None,
                    help="one opt -passes= pipeline, optional extra opt args after a space (repeat);"
                         " default sccp,adce, default<O2>, and default<O2> without the vectorizers")
    ap.add_argument("--normalise", default=NORMALISE, help="opt passes after each LLVM pipeline ('' none)")
    ap.add_argument("--from", dest="start", choices=STARTS, default="prepared",
                    help="where our and LLVM's pipelines start: the prepared -O0 import (default) "
                         "or clang-14 -O2 without the vectorizers (a version of its own, checked "
                         "like the others; the report shows what each pipeline removes beyond it)")
    ap.add_argument("--native", type=int, nargs="?", const=5, default=0, metavar="N",
                    help="also time every version natively, best of N runs (default 5): exported "
                         "(pathlogic export --llvm), opt-14 -passes=sroa, clang-14 -O2 code "
                         "generation without IR passes (benchmarks/native_timing.py)")
    ap.add_argument("--time-repeat", type=int, default=1, metavar="N",
                    help="time each of our and opt-14's pipelines N times per program and keep the "
                         "least CPU (outputs must agree; default 1)")
    ap.add_argument("--pass-timeout", type=float, default=None, metavar="SECONDS",
                    help="CPU seconds one of our pipelines may take on one program")
    ap.add_argument("--name", default="harness")
    ap.add_argument("--fuel", type=int, default=FUEL)
    ap.add_argument("--engine", default="auto",
                    help="our passes' Datalog engine (default auto: a small call in process, "
                         "on 'python', a larger one on the first available engine; clingo "
                         "until stop 53)")
    ap.add_argument("--exec-engine", choices=ENGINES, default="auto",
                    help="how programs run: interp, native (llvmlite) or auto (default)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--budget", type=float, default=None, help="wall-time budget (s)")
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--out", default=None, help="default runs/optimize-<name>.json")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--resummarise", metavar="RUN.json",
                    help="only recompute the summary of an existing run file")
    a = ap.parse_args(argv)
    global EXEC_ENGINE, PASS_TIMEOUT, NATIVE_REPEAT, TIME_REPEAT
    EXEC_ENGINE = a.exec_engine  # inherited by forked --jobs workers
    PASS_TIMEOUT = a.pass_timeout
    NATIVE_REPEAT = a.native
    TIME_REPEAT = max(1, a.time_repeat)
    if a.resummarise:
        return resummarise(a.resummarise)
    ours = [[p.strip() for p in s.split(",") if p.strip()] for s in (a.ours or ["if-convert"])]
    llvm = a.llvm if a.llvm is not None else list(DEFAULT_LLVM if a.start == "prepared"
                                                  else DEFAULT_LLVM_AFTER_START)
    items = corpus(a.examples, a.csmith, a.torture, a.workdir, a.seed, a.tree_ssa, a.real,
                   a.torture_max_bytes)
    labels = labels_of(ours, llvm, a.start)
    source = source_state()     # at the start: the code the workers run (HEAD may move meanwhile)
    t0 = time.time()
    say = (lambda r: None) if a.quiet else (
        lambda r: print(f"  {r['program']}: {r['status']} " + " ".join(
            f"{v['pipeline']}={v['verdict']}" for v in r.get("versions", [])), flush=True))
    warm_up(ours, a.engine)
    host = [host_python_seconds()]      # the host's speed for Python, before and after
    records, left = run(items, ours, llvm, fuel=a.fuel, normalise=a.normalise, engine=a.engine,
                        jobs=a.jobs, budget=a.budget, progress=say, start=a.start)
    host.append(host_python_seconds())
    summary = summarise(records, labels)
    payload = {
        "command": command_line("benchmarks.optimize", argv),
        "machine": {**machine_info(), "python_loop_seconds": host},
        "name": a.name,
        "source": source,
        "preparation": preparation(),
        "start": (a.start if a.start == "prepared" else
                  f"{START[a.start]}: clang-14 {' '.join(O2_FLAGS)} {' '.join(PREPARE_FLAGS)} "
                  f"FILE.c, then as an LLVM row (normalised, imported)"),
        "llvm_normalisation": (f"opt -passes={a.normalise} after every LLVM pipeline"
                               if a.normalise else "none"),
        "settings": {"fuel": a.fuel, "engine": a.engine, "jobs": a.jobs,
                     "pass_timeout": a.pass_timeout, "time_repeat": max(1, a.time_repeat),
                     **({"native": {"repeat": a.native, "compile": native_compile(),
                                    "floor_seconds": native_floor()}} if a.native else {}),
                     "corpus": {"examples": a.examples, "csmith": a.csmith, "torture": a.torture,
                                "torture_seed": a.seed, "torture_max_bytes": a.torture_max_bytes,
                                "tree_ssa": a.tree_ssa, "real": a.real}},
        "pipelines": {"ours": [ours_label(p) for p in ours], "llvm": [llvm_label(s) for s in llvm]},
        "summary": summary,
        "not_attempted": left,
        "wall_seconds": round(time.time() - t0, 1),
        "programs": records,
    }
    out = a.out or os.path.join(ROOT, "runs", f"optimize-{a.name}.json")
    write_record(out, payload)          # the summary; the whole output in raw/ beside it
    print(header_text(a.name, ours, llvm, a.normalise, a.fuel, a.start))
    print(format_table(HEADERS, table_rows(records)))
    print()
    shown = summary["pipelines_in_totals"]
    print(f"totals over the {summary['programs_all_identical']} programs where every version was identical"
          + (f" ({', '.join(summary['pipelines_never_run'])} never ran: unknown pass)"
             if summary["pipelines_never_run"] else ""))
    print(format_table(["pipeline", "identical", "different", "not compared", *METRICS, "static"],
                       [[l, summary["verdicts"][l].get(IDENTICAL, 0) + summary["verdicts"][l].get(REFERENCE, 0),
                         summary["verdicts"][l].get(DIFFERENT, 0),
                         summary["verdicts"][l].get(NOT_COMPARED, 0),
                         *[summary["totals_over_all_identical"][l][k] for k in METRICS],
                         summary["totals_over_all_identical"][l]["static_size"]] for l in shown]))
    print()
    print("pairwise: each pipeline against the original, over the programs where it was identical")
    rows = []
    for l, p in summary["totals_pairwise"].items():
        o, n = p["original"], p["pipeline"]
        rows.append([l, p["programs"], *[f"{o[k]} -> {n[k]}" for k in METRICS],
                     f"{o['static_size']} -> {n['static_size']}"])
    print(format_table(["pipeline", "programs", *METRICS, "static"], rows))
    print_parity(summary["parity"])
    print_head_to_head(summary["head_to_head"])
    print_beyond(records, summary["beyond_start"])
    print_native(summary["native"])
    print_speed(summary["speed"])
    print(f"host: a 10^7-iteration Python loop took {host[0]} s before the programs and {host[1]} s"
          " after (ratios compare only at like readings)")
    print(f"wrote {out} ({len(records)} programs, {left} not attempted, {payload['wall_seconds']} s)")
    return 0


def print_parity(parity: dict) -> None:
    for pair, p in parity.items():
        print(f"\nstatic size, {pair}: " + ", ".join(f"{k} {n}" for k, n in
                                                    sorted(p["verdicts"].items())))
        for reason, r in p["larger_by_reason"].items():
            print(f"  larger, {reason}: {r['programs']}")


def print_beyond(records: list[dict], summary: dict) -> None:
    """Per program and pipeline what it removes beyond the start, then the per-figure counts."""
    if not summary:
        return
    print(f"\nremoved beyond {summary['start']} (start minus pipeline; negative: more)")
    rows = [[r["program"], v["pipeline"], *[v["beyond_start"][k] for k in BEYOND]]
            for r in records for v in r.get("versions", []) if "beyond_start" in v]
    print(format_table(["program", "pipeline", *BEYOND], rows))
    rows = []
    for l, p in summary["pipelines"].items():
        rows.append([l, p["programs"], *[f"{p[k]['fewer']}/{p[k]['equal']}/{p[k]['more']}"
                                         for k in BEYOND],
                     f"{p['start']['instructions']} -> {p['pipeline']['instructions']}"])
    b = summary["best_of_ours"]
    rows.append(["best of ours", b["programs"], f"{b['fewer']}/{b['equal']}/{b['more']}",
                 *[""] * (len(BEYOND) - 1), f"{b['start']['instructions']} -> {b['best']['instructions']}"])
    print("programs with fewer/equal/more than the start")
    print(format_table(["pipeline", "programs", *BEYOND, "instructions"], rows))


def native_compile() -> str:
    from benchmarks.native_timing import COMPILE
    return COMPILE


def native_floor() -> float:
    from benchmarks.native_timing import floor
    return floor(NATIVE_REPEAT)


def native_summary(records: list[dict], labels: list[str]) -> dict:
    """With ``--native``: over the programs where every version has a native time and its
    native output was the interpreter's, the times summed per version (and clang's own -O2
    binary of the C program, the scale); the versions whose native output differed, named."""
    timed = [l for l in labels if any("native_seconds" in v for r in records
                                      for v in r.get("versions", []) if v["pipeline"] == l)]
    if not timed:
        return {}
    programs, totals, different = [], {l: 0.0 for l in timed}, []
    c_total = 0.0
    for r in records:
        vs = {v["pipeline"]: v for v in r.get("versions", [])}
        different += [[r["program"], l] for l, v in vs.items()
                      if v.get("native_output") == DIFFERENT]
        if not all(vs.get(l, {}).get("native_output") == IDENTICAL for l in timed):
            continue
        programs.append(r["program"])
        for l in timed:
            totals[l] += vs[l]["native_seconds"]
        c_total += (r.get("native_clang_O2") or {}).get("native_seconds", 0.0)
    return {"programs": len(programs), "seconds": {l: round(t, 4) for l, t in totals.items()},
            "clang_O2_binary_seconds": round(c_total, 4), "output_different": different}


def print_native(native: dict) -> None:
    if not native:
        return
    print(f"\nnative CPU seconds (best of the runs), summed over {native['programs']} programs;"
          f" clang -O2 binaries of the C programs: {native['clang_O2_binary_seconds']}")
    print(format_table(["version", "seconds"], [[l, t] for l, t in native["seconds"].items()]))
    for program, label in native["output_different"]:
        print(f"  native output DIFFERENT: {program} {label}")


def print_head_to_head(pairs: dict) -> None:
    rows = [[pair, k, p["programs"], p["llvm_fewer"], p["equal"], p["ours_fewer"]]
            for pair, ms in pairs.items() for k, p in ms.items()]
    if rows:
        print("\nper program, ours against LLVM (both identical)")
        print(format_table(["pair", "metric", "programs", "LLVM fewer", "equal", "ours fewer"],
                           rows))


def resummarise(path: str) -> int:
    """Recompute the summary of an existing run file, summary or raw (after a change to the
    summary code)."""
    payload = read_record(path)
    payload["summary"] = summarise(payload["programs"], run_labels(payload))
    write_record(path, payload)
    print_parity(payload["summary"]["parity"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
