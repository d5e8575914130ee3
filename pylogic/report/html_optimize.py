"""The HTML view of an ``optimize`` run (``optimize --html DIR``): an index of programs and
passes with the driver's counts and the behaviour check, and per program every pass's code
before and after, removed / inserted / moved instructions marked, with the dynamic counts before
and after when the run was validated."""
from __future__ import annotations

from pathlib import Path

from pylogic.analysis.optimize import ProgramOptimization
from pylogic.analysis.optimize_view import pipeline_views
from pylogic.analysis.output import output_directory
from pylogic.report.html import _environment
from pylogic.report.optimize import CHECK_COLUMNS, dynamic, modules_run


def write_optimize_report(items: list[ProgramOptimization], passes: list[str],
                          dest: str | Path) -> dict:
    """Write the pages to ``dest`` (replaced all at once); returns ``{pages, programs}``."""
    env = _environment()
    programs = []
    with output_directory(dest) as tmp:
        (tmp / "p").mkdir()
        for k, item in enumerate(items):
            entry = {"relpath": item.relpath, "error": item.error, "page": f"p/{k}.html",
                     "views": [], "cases": [], "verdict": "not validated"}
            if item.result is not None:
                entry["views"] = pipeline_views(item.result)
            if item.check is not None:
                entry["verdict"] = item.check.verdict
                for c in item.check.comparisons:
                    case = {"args": list(c.args), "inputs": list(c.inputs), "verdict": c.verdict,
                            "detail": c.detail}
                    if c.verdict != "not compared":
                        case.update({side: dynamic(c, side, modules_run(item)[side])
                                     for side in ("before", "after")})
                    entry["cases"].append(case)
            if item.result is not None:
                (tmp / entry["page"]).write_text(env.get_template("optimize_program.html").render(
                    root="../", p=entry, passes=passes, columns=CHECK_COLUMNS), encoding="utf-8")
            programs.append(entry)
        (tmp / "index.html").write_text(env.get_template("optimize.html").render(
            root="", programs=programs, passes=passes), encoding="utf-8")
    return {"pages": 1 + sum(1 for p in programs if p["views"]), "programs": len(programs)}
