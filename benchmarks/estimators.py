"""Profile estimators against the exact reuse (issue #31 item 1; PathFinder ch. 5, §5.6):
writes runs/estimators.json.

    python -m benchmarks.estimators [--real all] [--csmith 1-20] [--torture 60]
        [--engine clingo] [--timeout 300] [--fuel N] [--out estimators.json]
    python -m benchmarks.estimators --merge runs/estimators.json runs/raw/estimators-PART.json ...

Per program (run as the optimization harness runs it: ``main``, no arguments): for each estimator
(PRE, CMP¹, CMP^c, CMP^r, CMP^f; ``pylogic.flow.estimators``) the lower and upper bound of the
dynamic reuse from the interpreter's edge profile, summed over every expression of every function,
and their relative error (U - L)/L; the exact reuse of the run's block paths
(``pylogic.interp.paths``), reuse inside blocks counted apart (``local``); and the evaluations
(expressions + loads) that PRE(MR) (``pre-mr,pre-m``) really removes on the same input. Totals
and the mean relative error per estimator, beside the thesis' (§5.6: PRE 15%, CMP^r 5%, CMP^c
about 6.5%). Programs with side exits or whose run fails are listed as not estimated, with the
reason. Every bound is checked to contain the exact value (a violation stops the program with
an error, recorded). ``--merge`` sums the record's programs and those of other runs' files
(``--out raw/...``: whole corpora, csmith 1-50 and every torture program) into the record's
``coverage`` block, per corpus kind and in all: summaries only.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import children_cpu, command_line, write_run  # noqa: E402
from benchmarks.optimize import DEFAULT_WORKDIR, corpus  # noqa: E402

#: §5.6 / §5.8 (pathfinder.md): average relative error of the bounds.
THESIS = {"PRE": 0.15, "CMPc": 0.065, "CMPr": 0.05}


def estimate_one(path: str, engine: str, fuel: int) -> dict:
    from pylogic.analysis.estimation import program_estimates
    from pylogic.ir.load import load_program
    module, _ = load_program(path)
    report = program_estimates(module, engine=engine, fuel=fuel)
    report.pop("functions")
    return report


def summary(rows: list[dict]) -> dict:
    done = [r for r in rows if "estimators" in r]
    out = {"programs": len(rows), "estimated": len(done),
           "with_reuse": sum(1 for r in done if r["exact"]),
           "exact": sum(r["exact"] for r in done), "local": sum(r["local"] for r in done)}
    pre = [r for r in done if r.get("pre_removed")]
    out["pre_removed"] = sum(sum(r["pre_removed"].values()) for r in pre)
    out["exact_where_pre_measured"] = sum(r["exact"] for r in pre)
    per = {}
    for name in done[0]["estimators"] if done else ():
        lower = sum(r["estimators"][name]["lower"] for r in done)
        upper = sum(r["estimators"][name]["upper"] for r in done)
        errors = [r["estimators"][name]["error"] for r in done
                  if r["exact"] and r["estimators"][name]["error"] is not None]
        per[name] = {"lower": lower, "upper": upper,
                     "error_of_totals": round((upper - lower) / lower, 4) if lower else None,
                     "mean_error": round(sum(errors) / len(errors), 4) if errors else None,
                     "programs_exact_bounds": sum(
                         1 for r in done if r["estimators"][name]["lower"]
                         == r["estimators"][name]["upper"]),
                     "thesis_mean_error": THESIS.get(name)}
    out["estimators"] = per
    return out


def coverage(record: str, parts: list[str]) -> dict:
    """The ``coverage`` block of ``record`` (summaries over its programs and those of ``parts``,
    a program in several files counted once, the later file's row): written into ``record``."""
    import json

    from benchmarks.common import run_text
    with open(record) as fh:
        data = json.load(fh)
    rows = {(r["kind"], r["program"]): r for r in data["programs"]}
    commands = [data["command"]]
    for path in parts:
        with open(path) as fh:
            part = json.load(fh)
        commands.append(part["command"])
        rows.update({(r["kind"], r["program"]): r for r in part["programs"]})
    rows = list(rows.values())
    kinds = sorted({r["kind"] for r in rows})
    data["coverage"] = {"commands": commands,
                        "merge": command_line("benchmarks.estimators",
                                              ["--merge", record, *parts]),
                        "all": summary(rows),
                        "by_kind": {k: summary([r for r in rows if r["kind"] == k])
                                    for k in kinds}}
    with open(record, "w") as fh:
        fh.write(run_text(data) + "\n")
    return data["coverage"]


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--merge"]:       # --merge RECORD PART...
        cov = coverage(argv[1], argv[2:])
        print({k: {n: e["mean_error"] for n, e in v["estimators"].items()}
               for k, v in cov["by_kind"].items()})
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", default="", help="globs over benchmarks/real (all)")
    ap.add_argument("--csmith", default="", help="csmith seeds, e.g. 1-20")
    ap.add_argument("--torture", default="0", help="size of the gcc torture sample")
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--fuel", type=int, default=100_000_000,
                    help="instructions a profiling run may execute")
    ap.add_argument("--out", default="estimators.json")
    a = ap.parse_args(argv)
    from pylogic.analysis.budget import call_with_budget
    items = corpus(False, a.csmith, a.torture, a.workdir, real=a.real)
    rows = []
    for name, kind, path in items:
        t0, c0 = time.perf_counter(), children_cpu()
        outcome = call_with_budget(estimate_one, path, a.engine, a.fuel, seconds=a.timeout)
        row = {"program": name, "kind": kind, "seconds": round(time.perf_counter() - t0, 2),
               "cpu": round(children_cpu() - c0, 2)}
        if outcome.ok:
            row.update(outcome.value)
        else:
            row["not_estimated"] = str(outcome.error)[:300]
        rows.append(row)
        print(name, row.get("exact"), row.get("not_estimated", ""), flush=True)
    payload = {"command": command_line("benchmarks.estimators", argv),
               "summary": summary(rows), "programs": rows}
    print(write_run(a.out, payload))
    return 0


if __name__ == "__main__":
    sys.exit(main())
