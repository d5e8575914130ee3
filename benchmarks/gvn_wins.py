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

    python -m benchmarks.gvn_wins RUN.json [--pair ours:P=opt:Q ...] [--out runs/gvn-wins-causes.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict

from benchmarks.common import read_record, write_run
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
MERGE = ("jumps: GVN merges a block into its only predecessor (MergeBlockIntoPredecessor), ours "
         "kept -O0's for.body -> for.inc blocks, one br per iteration; closed: coalesce appends "
         "such blocks to their predecessor (merge_blocks.py)")
CAUSES: dict = {
    **{(GVN, p): MERGE for p in (
        "Shootout-hash.c", "Shootout-lists.c", "Shootout-nestedloop.c", "Shootout-objinst.c",
        "Shootout-sieve.c", "Shootout-strcat.c", "Stanford-Perm.c")},
    (GVN, "BenchmarkGame-fannkuch.c"):
        MERGE + "; left, in ours' favour overall: 2,400 loads of perm1[0] that pre-m inserts on "
        "three loop-exit edges (11,059 executions) where gvn forwards the value the loop "
        "stored (8,659 loads in if.end84): PRE's memory facts (datalog/pre.dl), not in this "
        "helper's files",
    (O2, "Shootout-ackermann.c"): "calls and returns: O2's tail-call elimination turns Ack's "
        "self calls into a loop (interprocedural, out of scope for PRE)",
    (O2, "Shootout-fib2.c"): "calls and returns: O2 turns one of fib's two recursive calls into "
        "a loop with an accumulator (tail-recursion elimination; out of scope)",
    (O2, "Stanford-Treesort.c"): "calls and returns: Insert's recursion made a loop and "
        "CreateNode inlined by O2 (out of scope)",
    (O2, "Shootout-ary3.c"): "compares, conditional branches and jumps, ~150,000 each: O2 "
        "unrolls the loops (x[i] = i + 1 by 8, y[i] += x[i] by 2), so it runs a fraction of "
        "the loop tests (loop unrolling; out of scope)",
    (O2, "Shootout-nestedloop.c"): "the six nested counting loops computed in closed form "
        "(ScalarEvolution, indvars, loop deletion): O2 runs 17 instructions (out of scope)",
    (O2, "Shootout-matrix.c"): "loads +270,270: LICM hoists the row pointers m1[i], m3[i] out "
        "of the inner loops, knowing by type-based alias analysis that the int stores to "
        "m3[i][j] cannot write an int* (PIR has no types); compares and branches: the inner "
        "loop unrolled (out of scope)",
    (O2, "Shootout-sieve.c"): "stores +163,820 and their loop: the flags initialisation loop "
        "becomes a memset call (loop idiom); expressions: loop strength reduction; loop "
        "rotation (out of scope)",
    (O2, "BenchmarkGame-fannkuch.c"): "expressions, loads and stores: the permutation copy "
        "loops become memcpy calls (loop idiom), unrolling and LICM (out of scope)",
    (O2, "BenchmarkGame-nsieve-bits.c"): "udiv/urem i64 by 32 ran as the importer's 64-bit "
        "division sequence (div, mul, sub, shifts: 117,004 times), O2's as one lshr / and; "
        "closed: the importer lowers udiv/urem by a power of two as shr / and "
        "(pylogic/ir/llvm/lower.py)",
    (O2, "Dhrystone-dry.c"): "Proc/Func calls inlined and their constants propagated into "
        "Proc0 (calls, compares, sign extensions), Func1's exits clone of icbe executed "
        "160,000 times (interprocedural; out of scope)",
    (O2, "Stanford-Bubblesort.c"): "loads +248,502: sortlist[i+1] of one iteration is "
        "sortlist[i] of the next and O2 keeps it in a register (loop-carried reuse through "
        "the induction variable, after rotation); expressions: the i32 index's sign "
        "extensions (shl/sar, 250,500 pairs) that indvars widens away",
    (O2, "Shootout-lists.c"): "list_equal's exits clone made by icbe (72,900) against O2's "
        "inlined list functions (out of scope)",
    (O2, "Stanford-Perm.c"): "the clones icbe made of Permute (29,000 instructions) against "
        "O2's version without them; without mov only",
    (O2, "Shootout-objinst.c"): "83 instructions without mov, from O2's inlining in main",
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
    out = {"program": program, "kind": kind,
           "instructions": {"ours": na, "llvm": nb},
           "reproduced": {"ours": na == expect["ours"], "llvm": nb == expect["llvm"]}}
    by_group, by_function = Counter(), Counter()
    rows = []
    for fn in sorted(set(a) | set(b)):
        for op in sorted(set(a[fn]) | set(b[fn])):
            d = a[fn][op] - b[fn][op]
            if d:
                by_group[GROUPS.get(op, "expressions")] += d
                by_function[fn] += d
                rows.append((fn, op, a[fn][op], b[fn][op], d))
    rows.sort(key=lambda r: -abs(r[4]))
    out["gap"] = na - nb
    out["gap_without_moves"] = out["gap"] - by_group["copies"]
    out["by_group"] = dict(sorted(by_group.items(), key=lambda kv: -kv[1]))
    out["by_function"] = dict(sorted(by_function.items(), key=lambda kv: -kv[1])[:8])
    out["largest"] = [{"function": f, "opcode": op, "ours": x, "llvm": y, "ours_minus_llvm": d}
                      for f, op, x, y, d in rows[:12]]
    out["ours_more"] = {g: n for g, n in out["by_group"].items() if n > 0}
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
        for r in records:
            vs = {v["pipeline"]: v for v in r.get("versions", [])}
            if all(vs.get(k, {}).get("verdict") in OK for k in (ours, llvm)):
                compared += 1
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
            "programs_compared": compared,
            "llvm_fewer_instructions": sum(r["llvm_fewer"] for r in rows),
            "llvm_fewer_without_moves": sum(r["llvm_fewer_without_moves"] for r in rows),
            "llvm_ahead_now": sum(r["llvm_ahead_now"] for r in rows),
            "ours_more_by_group": dict(sum((Counter(r["ours_more"]) for r in rows
                                            if r["llvm_ahead_now"]), Counter())),
            "per_program": rows}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", nargs="+", help="run files of benchmarks.optimize")
    ap.add_argument("--pair", action="append", default=None, metavar="OURS=LLVM",
                    help=f"version labels to compare (default {PRE}={GVN} and {COMBINED}={O2})")
    ap.add_argument("--programs", default="", help="only these programs (comma-separated)")
    ap.add_argument("--out", default="gvn-wins-causes.json", help="file name in runs/")
    a = ap.parse_args(argv)
    pairs = [tuple(p.split("=", 1)) for p in a.pair] if a.pair else list(PAIRS)
    only = {p for p in a.programs.split(",") if p}
    records = [r for f in a.run for r in read_record(f)["programs"]
               if not only or r["program"] in only]
    say = lambda r: print(f"{r['program']}: ours-llvm {r['gap']} ({r['gap_without_moves']} "
                          f"without mov) {r['by_group']}", flush=True)
    result = classify(records, pairs, say)
    path = write_run(a.out, {
        "command": "python3 -m benchmarks.gvn_wins " + " ".join(sys.argv[1:] if argv is None
                                                               else argv),
        "runs": a.run, "pairs": [list(p) for p in pairs], "groups": GROUPS,
        "comparisons": result})
    print(json.dumps({k: {x: v[x] for x in v if x != "per_program"} for k, v in result.items()},
                     indent=1))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
