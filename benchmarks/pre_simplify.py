"""``simplify`` before our PRE against LLVM's GVN (issue #14 part C), from a run file of the
optimization harness that has ``ours:pre-mr,pre-m``, ``ours:simplify,pre-mr,pre-m`` and
``opt:gvn`` (and ``opt:instsimplify``) on the same programs:

    python -m benchmarks.optimize --csmith ... --torture ... --tree-ssa ... \\
        --ours pre-mr,pre-m --ours simplify,pre-mr,pre-m --llvm gvn --llvm instsimplify \\
        --name pre-simplify --jobs 1
    python -m benchmarks.pre_simplify runs/optimize-pre-simplify.json

Over the programs where every version is identical: totals of dynamic evaluations (expressions +
loads) per version; on how many ``simplify,pre-mr,pre-m`` evaluates no more than ``gvn``; and for
each program where it still evaluates more, the gap, the static opcode changes of ``opt
-passes=gvn`` and ``-passes=instsimplify`` (``pre_llvm_wins.opcode_deltas``) and what
instsimplify still does that ``simplify`` does not, measured: the evaluations of ``simplify`` on
the original against ``simplify`` on instsimplify's output (``residual``: > 0 where LLVM's folds
find something ours miss; the rest of the gap is GVN's value numbering, memory dependence and
PRE). Writes ``simplify_vs_gvn`` into the run file (or ``--out``).
"""
from __future__ import annotations

import argparse

from benchmarks.common import command_line, read_record, store_derived
from benchmarks.optimize import PREPARE_FLAGS
from benchmarks.pre_llvm_wins import opcode_deltas, source_of
from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.errors import PathlogicError
from pylogic.interp.machine import run_module
from pylogic.ir.llvm.clang import prepare_c, run_opt
from pylogic.ir.llvm.importer import import_llvm

OURS = "ours:pre-mr,pre-m"
SIMPLIFIED = "ours:simplify,pre-mr,pre-m"
GVN = "opt:gvn"
OK = ("identical", "reference")
FUEL = 20_000_000


def _evaluations(v: dict) -> int:
    return v["expression_evaluations"] + v["load_evaluations"]


def residual(program: str, kind: str) -> dict:
    """Evaluations of ``simplify`` on the original and on ``opt -passes=instsimplify``'s output
    (both imported as the harness imports them; main, no arguments)."""
    path = source_of(program, kind)
    if path is None:
        return {}
    try:
        ll = prepare_c(path, PREPARE_FLAGS)
        out = {}
        for key, text in (("simplify", ll),
                          ("instsimplify,simplify", run_opt(run_opt(ll, "instsimplify", path),
                                                            "lowerswitch", path))):
            module, _ = import_llvm(text, path)
            module = optimize(module, ["simplify"], program, engine="clingo").module
            e = expression_evaluations(module, run_module(module, fuel=FUEL))
            out[key] = None if e is None else e["expressions"] + e["loads"]
        if None not in out.values():
            out["residual"] = out["simplify"] - out["instsimplify,simplify"]
        return out
    except PathlogicError as exc:
        return {"error": str(exc)[:200]}


def compare(records: list[dict], pipelines: tuple) -> dict:
    totals = dict.fromkeys(pipelines, 0)
    behind, programs, not_behind = [], 0, 0
    for r in records:
        vs = {v["pipeline"]: v for v in r.get("versions", [])}
        if any(vs.get(k, {}).get("verdict") not in OK or "expression_evaluations" not in vs[k]
               for k in pipelines):
            continue
        programs += 1
        e = {k: _evaluations(vs[k]) for k in pipelines}
        for k in pipelines:
            totals[k] += e[k]
        if e[SIMPLIFIED] <= e[GVN]:
            not_behind += 1
        else:
            behind.append({"program": r["program"], "kind": r.get("kind"),
                           "gap": e[SIMPLIFIED] - e[GVN], **e})
    return {"programs": programs, "not_behind_gvn": not_behind, "totals": totals,
            "behind": sorted(behind, key=lambda b: -b["gap"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="a run file of benchmarks.optimize")
    ap.add_argument("--out", help="write here instead of into the run file")
    ap.add_argument("--details", type=int, default=1000, metavar="N",
                    help="opcode changes and residual for the N largest gaps")
    a = ap.parse_args(argv)
    payload = read_record(a.run)
    names = {v["pipeline"] for r in payload["programs"] for v in r.get("versions", [])}
    pipelines = tuple(k for k in ("original", OURS, SIMPLIFIED, "ours:simplify", GVN,
                                  "opt:instsimplify") if k in names)
    result = compare(payload["programs"], pipelines)
    for row in result["behind"][:a.details]:
        row["static_opcode_changes"] = opcode_deltas(row["program"], row["kind"],
                                                     ("gvn", "instsimplify"))
        row["instsimplify_residual"] = residual(row["program"], row["kind"])
    print(f"{result['programs']} programs identical in every version; {SIMPLIFIED} evaluates "
          f"no more than {GVN} on {result['not_behind_gvn']}; totals {result['totals']}")
    for row in result["behind"]:
        print(f"  {row['program']}: +{row['gap']} (residual of instsimplify: "
              f"{row.get('instsimplify_residual', {}).get('residual')})")
    store_derived(a.run, payload, "simplify_vs_gvn", result, a.out,
                  command_line("benchmarks.pre_simplify", argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
