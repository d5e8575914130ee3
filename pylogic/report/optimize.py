"""What ``pathlogic optimize`` prints: one row per pass per program (the driver's account plus
the pass's own totals), and the before/after behaviour check with dynamic counts by kind."""
from __future__ import annotations

from pylogic.analysis.optimize import ProgramOptimization
from pylogic.report.table import format_table

#: Dynamic counts shown by the check, in this order (interp.machine KINDS, grouped).
CHECK_COLUMNS = ("instructions", "branches", "computations", "memory", "predicate_defines")
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


def dynamic(case, side: str) -> dict:
    """Dynamic counts of one run by kind, loads and stores together as ``memory``, expressions
    and copies (``mov``) together as ``computations``."""
    kinds = case.kinds(side)
    return {"instructions": case.counts(side)["instructions"],
            "branches": kinds["branches"], "computations": kinds["computations"] + kinds["moves"],
            "memory": kinds["loads"] + kinds["stores"],
            "predicate_defines": kinds["predicate_defines"]}


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
            before, after = dynamic(case, "before"), dynamic(case, "after")
            rows.append([label, case.verdict]
                        + [f"{before[k]} -> {after[k]}" for k in CHECK_COLUMNS]
                        + [case.detail])
    return format_table(["run", "verdict", *CHECK_COLUMNS, "first difference / reason"], rows)


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
                 **({"before": dynamic(c, "before"), "after": dynamic(c, "after")}
                    if c.verdict != "not compared" else {})}
                for c in item.check.comparisons]}
        out["programs"].append(entry)
    return out
