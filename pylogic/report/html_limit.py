"""The HTML view of the corpus runs of PathFinder's evaluation chapters (issue #31 item 4):
``benchmarks/limit.py``'s ``runs/limit-*.json`` (ideal load reuse, PRE-completeness) and
``benchmarks/estimators.py``'s ``runs/estimators.json`` (profile estimators against the exact
reuse), drawn per program as charts beside their tables, with the totals on the index
(``pathlogic report --limit FILE --estimators FILE --out DIR``).

It only draws the two documents: nothing is run.
"""
from __future__ import annotations

from pathlib import Path

from pylogic.analysis.output import output_directory
from pylogic.report.html import _environment
from pylogic.report.html_run import VARIANT_NAMES, estimate_chart, levels_chart, shares_chart

DEPTHS = [1, 2, 3, 4]
#: PRE-completeness columns of a limit row's ``pre`` and how the charts name them.
COMPLETENESS = {"complete_intra_h1": "of intra-procedural reuse, h=1",
                "complete_activation_h1": "of same-activation reuse, h=1",
                "complete_whole_h4": "of whole-program reuse, h=4"}


def _levels(reuse: dict) -> dict[str, list]:
    return {VARIANT_NAMES[v]: reuse[v] for v in VARIANT_NAMES if v in reuse}


def _shares(pipeline: str, pre: dict) -> object:
    return shares_chart([pipeline], {name: [pre.get(k)] for k, name in COMPLETENESS.items()})


def _cells(row: dict | None, est: dict | None) -> list:
    """The index's columns of one program, ``-`` where a document has no value."""
    row, est = row or {}, est or {}
    reuse, pre = row.get("reuse", {}).get("whole") or [None] * 4, row.get("pre", {})
    cmpr = (est.get("estimators") or {}).get("CMPr", {}).get("error")
    values = [row.get("loads"), reuse[0], reuse[3], pre.get("complete_intra_h1"),
              est.get("exact"), cmpr]
    return ["-" if v is None else v for v in values]


def write_limit_report(limit: dict | None, estimators: dict | None, dest: str | Path) -> dict:
    """Write ``index.html`` and one page per program of either document to ``dest`` (replaced
    all at once); returns ``{pages, charts}``."""
    env = _environment()
    limit_rows = {r["program"]: r for r in (limit or {}).get("programs", [])}
    est_rows = {r["program"]: r for r in (estimators or {}).get("programs", [])}
    pipeline = (limit or {}).get("pipeline", "")
    names = list(limit_rows) + [n for n in est_rows if n not in limit_rows]
    stats = {"pages": 1, "charts": 0}
    programs = []
    with output_directory(dest) as tmp:
        (tmp / "p").mkdir()
        for k, name in enumerate(names):
            row, est = limit_rows.get(name), est_rows.get(name)
            page = {"name": name, "page": f"p/{k}.html", "row": row, "est": est, "charts": {},
                    "kind": (row or est).get("kind", ""), "status": (row or {}).get("status", ""),
                    "cells": _cells(row, est)}
            if row is not None and row.get("status") == "ok":
                page["charts"]["reuse"] = levels_chart(DEPTHS, _levels(row["reuse"]))
                if row.get("pre", {}).get("verdict") == "identical":
                    page["charts"]["pre"] = _shares(pipeline, row["pre"])
            if est is not None and est.get("estimators"):
                page["charts"]["estimators"] = estimate_chart(est)
            stats["charts"] += len(page["charts"])
            (tmp / page["page"]).write_text(env.get_template("limit_program.html").render(
                root="../", p=page, pipeline=pipeline, names=COMPLETENESS), encoding="utf-8")
            stats["pages"] += 1
            programs.append(page)
        totals = {}
        if limit:
            t = limit.get("totals", {})
            totals["reuse"] = levels_chart(DEPTHS, _levels(t.get("reuse", {})))
            totals["pre"] = _shares(pipeline, t.get("pre", {}))
        if estimators and estimators.get("summary", {}).get("estimators"):
            s = estimators["summary"]
            totals["estimators"] = estimate_chart({"estimators": s["estimators"],
                                                   "exact": s["exact"]})
        stats["charts"] += len(totals)
        (tmp / "index.html").write_text(env.get_template("limit.html").render(
            root="", limit=limit, estimators=estimators, programs=programs, totals=totals,
            pipeline=pipeline, names=COMPLETENESS), encoding="utf-8")
    return stats
