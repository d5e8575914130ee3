"""What ``pathlogic optimize`` prints: one row per pass per program (the driver's account plus
the pass's own totals), and the before/after behaviour check with dynamic counts by kind."""
from __future__ import annotations

from pylogic.analysis.optimize import ProgramOptimization
from pylogic.report.table import format_table

#: Dynamic counts shown by the check, in this order: what the passes change (issue #30 item 6:
#: icbe removes conditional branches, which a count of all branches hid; PRE and coalescing
#: trade evaluations for copies; load elimination removes loads).
CHECK_COLUMNS = ("instructions", "conditional_branches", "evaluations", "copies", "loads",
                 "stores", "predicate_defines")
ACCOUNT = ("size_before", "size_after", "removed", "added", "moved")


def _own(totals: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in totals.items() if k not in ACCOUNT and v)


def pass_table(items: list[ProgramOptimization]) -> str:
    rows = []
    for item in items:
        if item.error is not None:
            rows.append([item.relpath, "(failed)", "", "", "", "", "", item.error])
            continue
        for p in item.result.passes:
            t = p.totals()
            rows.append([item.relpath, p.name, t["size_before"], t["size_after"], t["removed"],
                         t["added"], t["moved"], _own(t)])
    return format_table(["program", "pass", "size", "after", "removed", "added", "moved",
                         "pass record"], rows)


def dynamic(case, side: str, module) -> dict:
    """Dynamic counts of one run (``side`` of ``case``, a run of ``module``):
    ``analysis.optimize_view.run_counts``."""
    from pylogic.analysis.optimize_view import run_counts
    return run_counts(module, getattr(case, side))


def modules_run(item) -> dict:
    """The module each side of ``item``'s check ran."""
    return {"before": item.result.original, "after": item.result.module}


def check_table(items: list[ProgramOptimization]) -> str:
    rows = []
    for item in items:
        if item.check is None:
            continue
        for case in item.check.comparisons:
            label = f"{item.relpath} args={list(case.args)} input={list(case.inputs)}"
            if case.verdict == "not compared":
                rows.append([label, case.verdict] + [""] * len(CHECK_COLUMNS) + [case.detail])
                continue
            modules = modules_run(item)
            before, after = (dynamic(case, side, modules[side]) for side in ("before", "after"))
            rows.append([label, case.verdict]
                        + [f"{before[k]} -> {after[k]}" for k in CHECK_COLUMNS]
                        + [case.detail])
    return format_table(["run", "verdict", *(c.replace("_", " ") for c in CHECK_COLUMNS),
                         "first difference / reason"], rows)


def to_json(loaded, items: list[ProgramOptimization], passes: list[str]) -> dict:
    out = {"passes": passes, "problems": [p.message for p in loaded.problems], "programs": []}
    for item in items:
        entry = {"program": item.relpath, "error": item.error}
        if item.result is not None:
            entry.update(item.result.to_json())
        if item.check is not None:
            entry["check"] = {"verdict": item.check.verdict, "cases": [
                {"args": list(c.args), "inputs": list(c.inputs), "verdict": c.verdict,
                 "detail": c.detail,
                 **({side: dynamic(c, side, modules_run(item)[side]) for side in ("before", "after")}
                    if c.verdict != "not compared" else {})}
                for c in item.check.comparisons]}
        out["programs"].append(entry)
    return out
