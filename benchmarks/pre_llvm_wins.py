"""Where LLVM's GVN-PRE removes more dynamic evaluations than our PRE(MR), program by program,
and why (issue #14): derived from an optimization-harness run file
(``python -m benchmarks.optimize ... --name pre-all``) that has, besides ``ours:pre-mr,pre-m``
and ``opt:gvn``, the single LLVM passes that isolate each of GVN's mechanisms on the same
prepared programs:

* ``opt:instsimplify``: folds and algebraic simplifications alone (x+0, x*1, x-x, cmp of equal
  operands, select of equal arms, ...); our PRE passes fold nothing;
* ``opt:gvn -enable-pre=false -enable-load-pre=false``: value numbering and full-redundancy
  elimination only (congruence through phis and copies, commutativity, equalities propagated
  from branch conditions, and redundant loads found by memory dependence: store-to-load
  forwarding, stores and calls that cannot alias);
* ``opt:gvn -enable-load-pre=false``: plus scalar PRE (of value numbers, not lexical names);
* ``opt:gvn``: plus load PRE (partially redundant loads, across calls and stores);
* ``opt:dce`` (optional, ``--with`` a second run file that has it): trivially dead instructions
  alone (instsimplify deletes them too: csmith computes many values it never uses);
* ``opt:gvn -enable-pre=false -enable-load-pre=false -aa-pipeline=`` (optional): the same without
  alias analysis (every store and call may write every load, as ours assumes).

Per program where ``opt:gvn`` evaluates fewer expressions + loads than ``ours:pre-mr,pre-m``
(every version identical), the gap is split into measured parts (dynamic evaluations):

* ``dead_code``: of the expression gap, what LLVM's dce alone removes (0 without ``opt:dce``);
* ``simplification``: of the rest, what instsimplify alone removes beyond dce (folds);
* ``scalar_pre``: expressions gvn's scalar PRE removes (gvn-noloadpre vs gvn-nopre): PRE of
  value numbers, operands translated through phis, which a lexical name cannot follow;
* ``value_numbering``: the rest of the expression gap (gvn without PRE already below ours:
  congruences a lexical name cannot see, branch-condition equalities);
* ``dead_loads``: of the load gap, unused loads LLVM's dce alone deletes (ours keeps every
  load: a bad load is a run-time error in the interpreter);
* ``load_pre``: loads gvn's load PRE removes (gvn vs gvn-noloadpre), within the load gap;
* ``alias_analysis``: loads gvn without PRE removes only with alias analysis (a load across
  stores and calls that cannot write it; ours treats every store and call as a kill of every
  load), within the rest of the load gap (0 without the no-AA version);
* ``memory_dependence``: the rest of the load gap (full redundancies through memory that need no
  alias analysis: store-to-load forwarding, loads of the same pointer; or all of them without
  the no-AA version);

and the ``cause`` is the largest part. ``--opcodes N``: for the N programs with the largest gap,
which instructions each LLVM version dropped, statically (opcode counts of the prepared .ll
against opt's output: ``load``, ``zext``, ``icmp``, ...), as ``largest_gaps``. Writes
``llvm_wins`` into the run file (or ``--out``):

    python -m benchmarks.pre_llvm_wins runs/optimize-pre-final2.json --opcodes 20
"""
from __future__ import annotations

import argparse
import os
import re
from collections import Counter

from benchmarks.common import command_line, read_record, store_derived
from benchmarks.corpus import csmith_program
from benchmarks.optimize import DEFAULT_WORKDIR, PREPARE_FLAGS, TORTURE
from pylogic.errors import PathlogicError
from pylogic.ir.llvm.clang import prepare_c, run_opt

OURS = "ours:pre-mr,pre-m"
GVN = "opt:gvn"
INSTSIMPLIFY = "opt:instsimplify"
NO_PRE = "opt:gvn -enable-pre=false -enable-load-pre=false"
NO_LOAD_PRE = "opt:gvn -enable-load-pre=false"
DCE = "opt:dce"
NO_AA = "opt:gvn -enable-pre=false -enable-load-pre=false -aa-pipeline="
NEEDED = ("original", OURS, GVN, INSTSIMPLIFY, NO_PRE, NO_LOAD_PRE)
PARTS = ("dead_code", "simplification", "scalar_pre", "value_numbering", "dead_loads", "load_pre",
         "alias_analysis", "memory_dependence")
OK = ("identical", "reference")


def _counts(v: dict) -> tuple[int, int]:
    return v["expression_evaluations"], v["load_evaluations"]


def classify(record: dict, ours: str = OURS, gvn: str = GVN) -> dict | None:
    """The gap of one program (None: some needed version not identical, or LLVM not ahead)."""
    vs = {v["pipeline"]: v for v in record.get("versions", [])}
    needed = ("original", ours, gvn, INSTSIMPLIFY, NO_PRE, NO_LOAD_PRE)
    if any(vs.get(k, {}).get("verdict") not in OK or "expression_evaluations" not in vs[k]
           for k in needed):
        return None
    (xo, lo), (xm, lm), (xg, lg) = _counts(vs["original"]), _counts(vs[ours]), _counts(vs[gvn])
    (xi, _), (x0, l0), (xl, ll) = (_counts(vs[INSTSIMPLIFY]), _counts(vs[NO_PRE]),
                                   _counts(vs[NO_LOAD_PRE]))
    gap = (xm + lm) - (xg + lg)
    if gap <= 0:
        return None
    xgap, lgap = max(0, xm - xg), max(0, lm - lg)
    dce = vs.get(DCE, {})
    if dce.get("verdict") in OK and "expression_evaluations" in dce:
        xd, ld = _counts(dce)
    else:
        xd, ld = xo, lo                     # no dce version: folds and dead code together
    dead_code = min(xgap, max(0, xo - xd))
    simplification = min(xgap - dead_code, max(0, xd - xi))
    scalar_pre = min(xgap - dead_code - simplification, max(0, x0 - xl))
    value_numbering = xgap - dead_code - simplification - scalar_pre
    dead_loads = min(lgap, max(0, lo - ld))
    load_pre = min(lgap - dead_loads, max(0, ll - lg))
    no_aa = vs.get(NO_AA, {})
    alias = 0
    if no_aa.get("verdict") in OK and "load_evaluations" in no_aa:
        alias = min(lgap - dead_loads - load_pre, max(0, no_aa["load_evaluations"] - l0))
    memory_dependence = lgap - dead_loads - load_pre - alias
    parts = dict(zip(PARTS, (dead_code, simplification, scalar_pre, value_numbering, dead_loads,
                             load_pre, alias, memory_dependence)))
    return {"program": record["program"], "kind": record.get("kind"), "gap": gap,
            "expression_gap": xm - xg, "load_gap": lm - lg, **parts,
            "cause": max(PARTS, key=lambda k: (parts[k], -PARTS.index(k))),
            "evaluations": {k: sum(_counts(vs[k])) for k in vs
                            if vs[k].get("verdict") in OK and "expression_evaluations" in vs[k]},
            "branches": {"original": vs["original"].get("branches"), gvn: vs[gvn].get("branches"),
                         ours: vs[ours].get("branches")}}


def summary(records: list[dict], ours: str = OURS, gvn: str = GVN) -> dict:
    """Per program where ``gvn`` beats ``ours``, the parts and the cause; counts per cause; and
    how the comparison went over every program with all versions identical."""
    rows, verdict = [], Counter()
    for r in records:
        vs = {v["pipeline"]: v for v in r.get("versions", [])}
        if any(vs.get(k, {}).get("verdict") not in OK or "expression_evaluations" not in vs[k]
               for k in ("original", ours, gvn)):
            continue
        a, b = sum(_counts(vs[ours])), sum(_counts(vs[gvn]))
        verdict["ours fewer" if a < b else "equal" if a == b else "llvm fewer"] += 1
        c = classify(r, ours, gvn)
        if c is not None:
            rows.append(c)
        elif a > b:
            verdict["llvm fewer, single-pass versions missing"] += 1
    return {"ours": ours, "llvm": gvn, "programs": dict(verdict),
            "by_cause": dict(Counter(r["cause"] for r in rows)),
            "parts_total": {k: sum(r[k] for r in rows) for k in PARTS},
            "gap_total": sum(r["gap"] for r in rows),
            "per_program": sorted(rows, key=lambda r: -r["gap"])}


OPCODE = re.compile(r"^[ \t]+(?:%[\w.$-]+ = )?(\w+)", re.M)


def source_of(program: str, kind: str, workdir: str = DEFAULT_WORKDIR) -> str | None:
    """The C file a harness record was prepared from."""
    if kind == "csmith":
        return csmith_program(int(program[len("csmith-"):-len(".c")]), workdir)
    folder = {"torture": TORTURE, "tree-ssa": os.path.join(workdir, "tree-ssa")}.get(kind)
    path = os.path.join(folder, program) if folder else None
    return path if path and os.path.isfile(path) else None


def opcode_deltas(program: str, kind: str, specs: tuple = ("gvn", "instsimplify", "dce")) -> dict:
    """Per LLVM pipeline: opcode -> (count in opt's output) - (count in the prepared .ll),
    the opcodes it dropped or added (static)."""
    path = source_of(program, kind)
    if path is None:
        return {}
    try:
        ll = prepare_c(path, PREPARE_FLAGS)
        before = Counter(OPCODE.findall(ll))
        out = {}
        for spec in specs:
            after = Counter(OPCODE.findall(run_opt(ll, spec, path)))
            out[spec] = {op: after[op] - before[op] for op in sorted(set(before) | set(after))
                         if after[op] != before[op] and op not in ("br", "ret", "define")}
        return out
    except PathlogicError as exc:
        return {"error": str(exc)[:200]}


def merged(records: list[dict], extra: list[str]) -> list[dict]:
    """``records`` with the versions of the same programs in the ``extra`` run files added
    (versions already present are kept; the originals must agree on every count)."""
    out = [dict(r, versions=list(r.get("versions", []))) for r in records]
    by_name = {r["program"]: r for r in out}
    for path in extra:
        for r in read_record(path)["programs"]:
            mine = by_name.get(r["program"])
            if mine is None or not r.get("versions"):
                continue
            have = {v["pipeline"]: v for v in mine["versions"]}
            theirs = {v["pipeline"]: v for v in r["versions"]}
            a, b = have.get("original", {}), theirs.get("original", {})
            if any(a.get(k) != b.get(k) for k in ("expression_evaluations",
                                                  "load_evaluations", "instructions")):
                continue                  # not the same runs: keep apart
            mine["versions"] += [v for k, v in theirs.items() if k not in have]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="a run file of benchmarks.optimize")
    ap.add_argument("--with", dest="extra", action="append", default=[],
                    help="another run file on the same programs (e.g. with opt:dce and "
                         "ours:pre-mr,pre-m,dce): its versions are added by program")
    ap.add_argument("--out", help="write here instead of into the run file")
    ap.add_argument("--ours", action="append", default=[],
                    help=f"our pipeline to compare (repeat; default {OURS} and ours:pre-m), e.g. "
                         "'ours:simplify,pre-mr,pre-m' (its gap parts still come from LLVM's "
                         "single passes: a fold both do is not part of its gap)")
    ap.add_argument("--opcodes", type=int, default=0, metavar="N",
                    help="static opcode changes of each LLVM version for the N largest gaps")
    a = ap.parse_args(argv)
    payload = read_record(a.run)
    programs = merged(payload["programs"], a.extra)
    wins = {f"{ours} vs {gvn}": summary(programs, ours, gvn)
            for ours in (a.ours or (OURS, "ours:pre-m")) for gvn in (GVN, "opt:early-cse,gvn")}
    for s in wins.values():
        if a.opcodes:           # kept in the summary (per_program only in the raw output)
            s["largest_gaps"] = [dict(row, static_opcode_changes=opcode_deltas(row["program"],
                                                                               row["kind"]))
                                 for row in s["per_program"][:a.opcodes]]
    for key, s in wins.items():
        print(f"{key}: {s['programs']}; LLVM ahead by cause {s['by_cause']}; "
              f"parts {s['parts_total']} of a gap of {s['gap_total']} evaluations")
    store_derived(a.run, payload, "llvm_wins", wins, a.out,
                  command_line("benchmarks.pre_llvm_wins", argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
