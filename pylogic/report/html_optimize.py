"""The HTML view of an ``optimize`` run (``optimize --html DIR``): an index of programs and
passes with the driver's counts and the behaviour check, and per program every pass's code
before and after, removed / inserted / moved instructions marked, with the dynamic counts before
and after when the run was validated; per pass a chart of the dynamic counts it targets
(evaluations, loads, conditional branches) before and after it, and the CFG before and after of
each function it changed (issue #30).

It renders what the command computed (``analysis.optimize_view.report_data``): no program is
run and no engine is asked here.
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from markupsafe import Markup

from pylogic.analysis.optimize_view import TARGETED
from pylogic.analysis.output import output_directory
from pylogic.report import charts
from pylogic.report.graphs import GraphError, cfg_svg
from pylogic.report.html import _environment, _graph
from pylogic.report.optimize import CHECK_COLUMNS

#: How the charts name the counts of ``TARGETED``.
NAMES = {"evaluations": "evaluations", "loads": "loads",
         "conditional_branches": "conditional branches"}


def pass_chart(before: dict | None, after: dict | None, name: str) -> Markup | None:
    """The counts a pass targets before and after it, on one run; None when a side did not
    run to the end."""
    if before is None or after is None:
        return None
    return charts.bars(f"{name}: dynamic counts", [NAMES[k] for k in TARGETED],
                       {"before": [before[k] for k in TARGETED],
                        "after": [after[k] for k in TARGETED]}, unit="executed per run",
                       width=360)


def pipeline_chart(by_pass: list, names: list[str]) -> Markup:
    """The counts of ``TARGETED`` after each step of the pipeline (input first)."""
    stages = ["input"] + [f"{k}. {n}" for k, n in enumerate(names, 1)]
    kept = [(s, c) for s, c in zip(stages, by_pass) if c is not None]
    return charts.bars("the pipeline: dynamic counts after each pass", [s for s, _ in kept],
                       {NAMES[k]: [c[k] for _, c in kept] for k in TARGETED},
                       unit="executed per run", width=480)


def _cfg(data: dict | None):
    if data is None:
        return Markup('<p class="note">not in this module</p>')
    try:
        return _graph(cfg_svg(SimpleNamespace(**data)))
    except GraphError as exc:
        return _graph(exc)


def write_optimize_report(programs: list[dict], passes: list[str], dest: str | Path) -> dict:
    """Write the pages of ``programs`` (``report_data`` of each) to ``dest`` (replaced all at
    once); returns ``{pages, programs, charts, cfgs}``."""
    env = _environment()
    stats = {"pages": 1, "programs": len(programs), "charts": 0, "cfgs": 0}
    with output_directory(dest) as tmp:
        (tmp / "p").mkdir()
        for k, p in enumerate(programs):
            p["page"] = f"p/{k}.html"
            if not p["views"]:
                continue
            shown = [c for c in p["cases"] if c.get("by_pass")]
            for c in shown:
                c["chart"] = pipeline_chart(c["by_pass"], [v["name"] for v in p["views"]])
                stats["charts"] += 1
            for j, v in enumerate(p["views"]):
                v["charts"] = [ch for ch in (pass_chart(c["by_pass"][j], c["by_pass"][j + 1],
                                                        v["name"]) for c in shown) if ch]
                stats["charts"] += len(v["charts"])
                for g in v.get("cfgs", []):
                    if "note" not in g:
                        g["svg_before"], g["svg_after"] = _cfg(g["before"]), _cfg(g["after"])
                        stats["cfgs"] += 2
            (tmp / p["page"]).write_text(env.get_template("optimize_program.html").render(
                root="../", p=p, passes=passes, columns=CHECK_COLUMNS), encoding="utf-8")
            stats["pages"] += 1
        (tmp / "index.html").write_text(env.get_template("optimize.html").render(
            root="", programs=programs, passes=passes), encoding="utf-8")
    return stats
