"""Where an LLVM pipeline executes fewer dynamic PIR instructions than ours, program by program,
and on what (issue #28 item 2): derived from an optimization-harness run file that has both
versions (``python -m benchmarks.optimize --real --csmith 1-50 --ours P --llvm gvn ...``).

For every pair (``--pair OURS=LLVM``; default our PRE pipeline against ``opt:gvn`` and the
combined pipeline against O2) and every program where both versions are identical to the
original and LLVM's executes fewer instructions, or fewer without ``mov``, both versions are
rebuilt the way the harness builds them (``prepare_program``; ours by ``optimize``, LLVM's by
``run_opt`` then ``import_output``), checked to reproduce the run file's instruction counts, and
run once more on the reference interpreter with its block profile. Per function and opcode the
dynamic count is (executions of a block) x (occurrences of the opcode in it); the program's gap
is split by opcode group (``GROUPS``) and by function, ours minus LLVM's (positive: ours
executes more).

``CAUSES`` is the hand analysis of each remaining gap (read from the two versions' PIR and the
block profiles): the script checks the counts, not the prose.

    python -m benchmarks.gvn_wins RUN.json [--pair ours:P=opt:Q ...] [--out gvn-wins-causes.json]

The output (in ``runs/``) holds one entry per run file analysed: a later call on another run
file adds its entry and its command (``commands``) and keeps the others. Per pair, besides the
programs where LLVM is ahead, ``totals``: the instructions summed over every program where both
versions are identical, and on how many LLVM executes fewer / as many / more.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict

from benchmarks.common import RUNS, command_line, read_record, write_run
from benchmarks.corpus import csmith_program
from benchmarks.optimize import (DEFAULT_WORKDIR, NORMALISE, import_output, prepare_program,
                                 real_sample)
from pylogic.analysis.optimize import optimize
from pylogic.interp.native.select import run_with
from pylogic.ir.llvm.clang import run_opt

PRE = "ours:simplify,pre-mr,pre-m,simplify,coalesce"
COMBINED = "ours:sccp,dce,simplify,pre-mr,pre-m,simplify,icbe,coalesce"
GVN = "opt:gvn"
O2 = "opt:default<O2> -vectorize-loops=false -vectorize-slp=false"
PAIRS = ((PRE, GVN), (COMBINED, O2))
#: Opcode groups the gap is split into (the rest: ``expressions``).
GROUPS = {"mov": "copies", "br": "jumps", "cbr": "conditional branches", "cmp": "compares",
          "load": "loads", "store": "stores", "call": "calls and returns", "ret": "calls and returns",
          "alloca": "allocas", "select": "selects"}
FUEL = 50_000_000
OK = ("identical", "reference")

#: Why LLVM executed fewer: hand analysis (module doc), per (LLVM label, program): the versions'
#: PIR and block profiles read side by side. ``closed``: what removed the cause here.
MERGE = ("jumps: GVN merges a block into its only predecessor, ours ran -O0's for.body -> "
         "for.inc br; closed by coalesce's merge_blocks.py")
CAUSES: dict = {
    **{(GVN, p): MERGE for p in (
        "Shootout-hash.c", "Shootout-lists.c", "Shootout-nestedloop.c", "Shootout-objinst.c",
        "Shootout-sieve.c", "Shootout-strcat.c", "Stanford-Perm.c")},
    (GVN, "BenchmarkGame-fannkuch.c"):
        MERGE + "; left: 2,400 loads pre-m inserts on loop-exit edges where gvn forwards the "
        "stored perm1[0] (datalog/pre.dl)",
    (O2, "Shootout-ackermann.c"): "calls: Ack's tail call made a loop (out of scope)",
    (O2, "Shootout-fib2.c"): "calls: one of fib's recursive calls made a loop (out of scope)",
    (O2, "Stanford-Treesort.c"): "calls: Insert's recursion made a loop, CreateNode inlined "
        "(out of scope)",
    (O2, "Shootout-ary3.c"): "loop tests: loops unrolled by 8 and 2 (out of scope)",
    (O2, "Shootout-nestedloop.c"): "closed form of the nested loops (SCEV, indvars, loop "
        "deletion; out of scope)",
    (O2, "Shootout-matrix.c"): "loads: row pointers hoisted by LICM with type-based alias "
        "analysis (PIR has no types); unrolling",
    (O2, "Shootout-sieve.c"): "stores: loop made a memset (idiom); strength reduction, "
        "rotation (out of scope)",
    (O2, "BenchmarkGame-fannkuch.c"): "copy loops made memcpy/memmove (idiom), unrolling, LICM "
        "(out of scope)",
    (O2, "BenchmarkGame-nsieve-bits.c"): "udiv/urem i64 by 32 ran as the importer's division "
        "sequence, O2's as lshr/and; closed by the importer's lowering (lower.py)",
    (O2, "Dhrystone-dry.c"): "Proc/Func inlined, constants propagated; icbe's Func1 exits "
        "clone (out of scope)",
    (O2, "Stanford-Bubblesort.c"): "loads: sortlist[i+1] kept for the next iteration's "
        "sortlist[i] (loop-carried reuse); i32 index sign extensions widened away",
    (O2, "Shootout-lists.c"): "icbe's list_equal exits clone against O2's inlining",
    (O2, "Stanford-Perm.c"): "icbe's clones of Permute (without mov only)",
    (O2, "Shootout-objinst.c"): "O2's inlining in main (83 without mov)",
}


def source(program: str, kind: str) -> str | None:
    """The C file of a harness record."""
    if kind == "csmith":
        return csmith_program(int(program[len("csmith-"):-len(".c")]), DEFAULT_WORKDIR)
    if kind == "real":
        return dict(real_sample("all")).get(program)
    return None


def dynamic(module) -> tuple[dict, int]:
    """``({function: Counter(opcode -> executed)}, instructions)`` of one interpreter run of
    ``main`` (no arguments, no inputs, as the harness runs a C program)."""
    run = run_with("interp", module, entry="main", fuel=FUEL)
    per: dict = defaultdict(Counter)
    for fn in module.defined_functions():
        for b in fn.blocks:
            n = run.block_profile.get((fn.name, b.label), 0)
            for ins in b.instrs if n else ():
                per[fn.name][ins.opcode] += n
    return per, int(run.counts["instructions"])


def versions(program: str, kind: str, ours: str, llvm: str):
    """The two modules, built as the harness builds them."""
    path = source(program, kind)
    module, _report, ll, _cases, _driven = prepare_program(kind, path)
    mine = optimize(module, ours.removeprefix("ours:").split(","), program).module
    passes, *extra = llvm.removeprefix("opt:").split()
    text = run_opt(run_opt(ll, passes, path, extra_args=extra), NORMALISE, path)
    theirs, _r, _t = import_output(text, path, "")
    return mine, theirs


def gap(program: str, kind: str, ours: str, llvm: str, expect: dict) -> dict:
    """The opcode split of one program's gap (``expect``: the run file's instruction counts of
    both versions, checked)."""
    mine, theirs = versions(program, kind, ours, llvm)
    (a, na), (b, nb) = dynamic(mine), dynamic(theirs)
    out = {"program": program,
           # the run file's counts met again (False: the code changed since the run)
           "reproduced": {"ours": na == expect["ours"], "llvm": nb == expect["llvm"]}}
    by_group = Counter()
    rows = []
    for fn in sorted(set(a) | set(b)):
        for op in sorted(set(a[fn]) | set(b[fn])):
            d = a[fn][op] - b[fn][op]
            if d:
                by_group[GROUPS.get(op, "expressions")] += d
                rows.append((fn, op, a[fn][op], b[fn][op], d))
    rows.sort(key=lambda r: -abs(r[4]))
    out["gap"] = na - nb                # ours minus LLVM's, with this checkout's code
    out["gap_without_moves"] = out["gap"] - by_group["copies"]
    out["by_group"] = dict(sorted(by_group.items(), key=lambda kv: -kv[1]))
    # [function, opcode, ours, LLVM's, ours - LLVM's], the largest differences
    out["largest"] = [[f, op, x, y, d] for f, op, x, y, d in rows[:2]]
    # with the code of this checkout (the run file may be older): is LLVM still ahead?
    out["llvm_ahead_now"] = out["gap"] > 0 or out["gap_without_moves"] > 0
    return out


def llvm_ahead(record: dict, ours: str, llvm: str) -> dict | None:
    """``{"ours": instructions, "llvm": instructions, ...}`` when both versions are identical
    and LLVM's executes fewer instructions or fewer without ``mov``; else None."""
    vs = {v["pipeline"]: v for v in record.get("versions", [])}
    a, b = vs.get(ours), vs.get(llvm)
    if not a or not b or a.get("verdict") not in OK or b.get("verdict") not in OK:
        return None
    fewer = b["instructions"] < a["instructions"]
    fewer_nomov = b["instructions_without_moves"] < a["instructions_without_moves"]
    if not (fewer or fewer_nomov):
        return None
    return {"ours": a["instructions"], "llvm": b["instructions"],
            "ours_without_moves": a["instructions_without_moves"],
            "llvm_without_moves": b["instructions_without_moves"],
            "llvm_fewer": fewer, "llvm_fewer_without_moves": fewer_nomov}


def classify(records: list[dict], pairs, progress=None) -> dict:
    out = {}
    for ours, llvm in pairs:
        rows, compared = [], 0
        totals = {"ours": 0, "llvm": 0, "ours_without_moves": 0, "llvm_without_moves": 0,
                  "llvm_fewer": 0, "equal": 0, "llvm_more": 0}
        for r in records:
            vs = {v["pipeline"]: v for v in r.get("versions", [])}
            if all(vs.get(k, {}).get("verdict") in OK for k in (ours, llvm)):
                compared += 1
                a, b = vs[ours]["instructions"], vs[llvm]["instructions"]
                totals["ours"] += a
                totals["llvm"] += b
                totals["ours_without_moves"] += vs[ours]["instructions_without_moves"]
                totals["llvm_without_moves"] += vs[llvm]["instructions_without_moves"]
                totals["llvm_fewer" if b < a else "equal" if a == b else "llvm_more"] += 1
            ahead = llvm_ahead(r, ours, llvm)
            if ahead is None:
                continue
            row = {**gap(r["program"], r["kind"], ours, llvm, ahead), **ahead}
            row["cause"] = CAUSES.get((llvm, r["program"])) or (
                None if row["llvm_ahead_now"] else "LLVM no longer ahead with this checkout's "
                "code (changes since the run file)")
            rows.append(row)
            if progress:
                progress(row)
        out[f"{ours} vs {llvm}"] = {
            "programs_compared": compared, "totals": totals,
            "llvm_fewer_instructions": sum(r["llvm_fewer"] for r in rows),
            "llvm_fewer_without_moves": sum(r["llvm_fewer_without_moves"] for r in rows),
            "llvm_ahead_now": sum(r["llvm_ahead_now"] for r in rows),
            "ours_more_by_group": dict(sum((Counter({g: n for g, n in r["by_group"].items()
                                                     if n > 0})
                                            for r in rows if r["llvm_ahead_now"]), Counter())),
            "per_program": rows}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", nargs="+", help="run files of benchmarks.optimize")
    ap.add_argument("--pair", action="append", default=None, metavar="OURS=LLVM",
                    help=f"version labels to compare (default {PRE}={GVN} and {COMBINED}={O2})")
    ap.add_argument("--programs", default="", help="only these programs (comma-separated)")
    ap.add_argument("--out", default="gvn-wins-causes.json",
                    help="file name in runs/ (its entries for other run files are kept)")
    a = ap.parse_args(argv)
    pairs = [tuple(p.split("=", 1)) for p in a.pair] if a.pair else list(PAIRS)
    only = {p for p in a.programs.split(",") if p}
    records = [r for f in a.run for r in read_record(f)["programs"]
               if not only or r["program"] in only]
    say = lambda r: print(f"{r['program']}: ours-llvm {r['gap']} ({r['gap_without_moves']} "
                          f"without mov) {r['by_group']}", flush=True)
    result = classify(records, pairs, say)
    command = command_line("benchmarks.gvn_wins", argv)
    previous = RUNS / a.out
    payload = json.loads(previous.read_text()) if previous.is_file() else {}
    key = ", ".join(a.run)
    payload.pop("machine", None)
    payload["commands"] = [c for c in payload.get("commands", []) if c["runs"] != key] + [
        {"runs": key, "command": command}]
    payload["groups"] = GROUPS
    payload["comparisons"] = {**payload.get("comparisons", {}), key: result}
    path = write_run(a.out, payload)
    print(json.dumps({k: {x: v[x] for x in v if x != "per_program"} for k, v in result.items()},
                     indent=1))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
