"""The HTML view of the corpus runs of PathFinder's evaluation chapters (issue #31 item 4):
``benchmarks/limit.py``'s ``runs/limit-*.json`` (ideal load reuse, PRE-completeness and what the
analysis captures: CMP^r's load bounds), ``benchmarks/estimators.py``'s ``runs/estimators.json``
(profile estimators against the exact reuse) and ``benchmarks/sensitivity.py``'s
``runs/sensitivity-*.json`` (the same on two inputs), drawn per program as charts beside their
tables, with the totals on the index
(``pathlogic report --limit FILE --estimators FILE --sensitivity FILE --out DIR``).

It only draws the documents: nothing is run.
"""
from __future__ import annotations

from pathlib import Path

from pylogic.analysis.output import output_directory
from pylogic.report import charts
from pylogic.report.html import _environment
from pylogic.report.html_run import (ANALYSIS_ROW, VARIANT_NAMES, estimate_chart, levels_chart,
                                     shares_chart)

DEPTHS = [1, 2, 3, 4]
#: PRE-completeness columns of a limit row's ``pre`` and how the charts name them.
COMPLETENESS = {"complete_intra_h1": "of intra-procedural reuse, h=1",
                "complete_activation_h1": "of same-activation reuse, h=1",
                "complete_whole_h4": "of whole-program reuse, h=4"}
#: The measures of the input-sensitivity figure (PathFinder Table 8.1, §8.2: two inputs per
#: program), each a % read from one input's run of ``benchmarks/sensitivity.py``.
SENSITIVITY = {"reuse": "reuse level, h=4 (% of loads)",
               "complete": "PRE-complete, intra h=1 (%)",
               "cmpr": "CMPr average (% of evaluations)",
               "exact": "exact reuse (% of evaluations)"}


def _levels(reuse: dict) -> dict[str, list]:
    return {VARIANT_NAMES[v]: reuse[v] for v in VARIANT_NAMES if v in reuse}


def _captured_shares(captured: dict | None) -> dict | None:
    """A limit row's (or the totals') ``captured`` block as the shares ``COMPLETENESS`` names:
    the CMP^r average as % of the same ideals (no whole-program figure: None); None when the
    analysis did not estimate the program."""
    if not captured or captured.get("average") is None:
        return None
    return {"complete_intra_h1": captured["of_intra"][0],
            "complete_activation_h1": captured["of_activation_h1"], "complete_whole_h4": None}


def _shares(pipeline: str, pre: dict | None, captured: dict | None = None) -> object:
    """What ``pipeline`` removes (``pre``, when its output ran identically) and what the analysis
    captures (``captured``), each as its share of the ideals: one row each."""
    rows = ([(pipeline, pre)] if pre else []) + [(ANALYSIS_ROW, s) for s in
                                                 [_captured_shares(captured)] if s]
    return shares_chart([name for name, _ in rows],
                        {label: [r.get(k) for _, r in rows] for k, label in COMPLETENESS.items()})


def _input_name(key: str, given: dict) -> str:
    """``A: argv 300`` / ``B: args 20``: an input of a sensitivity row as the charts name it."""
    parts = [f"{k} {' '.join(map(str, v))}" for k, v in given.items() if v]
    return f"{key}: {'; '.join(parts) or 'no input'}"


def _on_input(run: dict) -> dict:
    """One input's run of a sensitivity row as the ``SENSITIVITY`` measures, in %."""
    est = run.get("estimates") or {}
    cmpr = (est.get("estimators") or {}).get("CMPr")
    evaluations = est.get("evaluations")

    def rate(n):
        return None if n is None or not evaluations else round(100 * n / evaluations, 2)
    return {"reuse": run["table81"]["reuse"], "complete": run["pre"].get("complete_intra_h1"),
            "cmpr": rate((cmpr["lower"] + cmpr["upper"]) / 2) if cmpr else None,
            "exact": rate(est.get("exact"))}


def _two_inputs(row: dict) -> dict[str, dict]:
    """``{input name: measures}`` of a sensitivity row that ran on both inputs."""
    return {_input_name(k, row["inputs"][k]): _on_input(row["runs"][k]) for k in ("A", "B")}


def sensitivity_chart(row: dict) -> object:
    """One program's measures at its two inputs (bars side by side), the axis to 100 at least
    (PRE can remove more than the ideal)."""
    inputs = _two_inputs(row)
    values = [m[k] for m in inputs.values() for k in SENSITIVITY if m[k] is not None]
    return charts.bars("Two inputs: reuse level, PRE-completeness and CMPr",
                       list(SENSITIVITY.values()),
                       {name: [m[k] for k in SENSITIVITY] for name, m in inputs.items()},
                       unit="%", width=560, top=charts.nice_max(max(values + [100])))


def sensitivity_figure(rows: list[dict]) -> list:
    """The index's figure: per measure a chart of every program (that has the measure) at input
    A and at input B."""
    ok = [(r["program"], [_on_input(r["runs"][k]) for k in ("A", "B")])
          for r in rows if r.get("status") == "ok"]
    out = []
    for k, label in SENSITIVITY.items():
        have = [(name, ms) for name, ms in ok if any(m[k] is not None for m in ms)]
        if have:
            values = [m[k] for _, ms in have for m in ms if m[k] is not None]
            out.append(charts.bars(f"At two inputs: {label}", [n for n, _ in have],
                                   {"input A": [ms[0][k] for _, ms in have],
                                    "input B": [ms[1][k] for _, ms in have]},
                                   unit="%", width=560, top=charts.nice_max(max(values + [1]))))
    return out


def _cells(row: dict | None, est: dict | None, sens: dict | None) -> list:
    """The index's columns of one program, ``-`` where a document has no value."""
    row, est, sens = row or {}, est or {}, sens or {}
    reuse, pre = row.get("reuse", {}).get("whole") or [None] * 4, row.get("pre", {})
    captured = _captured_shares(row.get("captured")) or {}
    cmpr = (est.get("estimators") or {}).get("CMPr", {}).get("error")
    variation = sens.get("reuse_variation")
    values = [row.get("loads"), reuse[0], reuse[3], pre.get("complete_intra_h1"),
              captured.get("complete_intra_h1"), est.get("exact"), cmpr,
              None if variation is None else round(100 * variation, 2)]
    return ["-" if v is None else v for v in values]


def write_limit_report(limit: dict | None, estimators: dict | None, dest: str | Path,
                       sensitivity: dict | None = None) -> dict:
    """Write ``index.html`` and one page per program of any document to ``dest`` (replaced
    all at once); returns ``{pages, charts}``."""
    env = _environment()
    limit_rows = {r["program"]: r for r in (limit or {}).get("programs", [])}
    est_rows = {r["program"]: r for r in (estimators or {}).get("programs", [])}
    sens_rows = {r["program"]: r for r in (sensitivity or {}).get("programs", [])}
    pipeline = (limit or {}).get("pipeline", "")
    names = list(dict.fromkeys([*limit_rows, *est_rows, *sens_rows]))
    stats = {"pages": 1, "charts": 0}
    programs = []
    with output_directory(dest) as tmp:
        (tmp / "p").mkdir()
        for k, name in enumerate(names):
            row, est, sens = limit_rows.get(name), est_rows.get(name), sens_rows.get(name)
            page = {"name": name, "page": f"p/{k}.html", "row": row, "est": est, "sens": sens,
                    "charts": {}, "kind": (row or est or sens).get("kind", ""),
                    "status": (row or {}).get("status", ""), "cells": _cells(row, est, sens),
                    "captured": _captured_shares((row or {}).get("captured"))}
            if row is not None and row.get("status") == "ok":
                page["charts"]["reuse"] = levels_chart(DEPTHS, _levels(row["reuse"]))
                pre = row["pre"] if row.get("pre", {}).get("verdict") == "identical" else None
                if pre or page["captured"]:
                    page["charts"]["pre"] = _shares(pipeline, pre, row.get("captured"))
            if est is not None and est.get("estimators"):
                page["charts"]["estimators"] = estimate_chart(est)
            if sens is not None and sens.get("status") == "ok":
                page["inputs"] = _two_inputs(sens)
                page["charts"]["sensitivity"] = sensitivity_chart(sens)
            stats["charts"] += len(page["charts"])
            (tmp / page["page"]).write_text(env.get_template("limit_program.html").render(
                root="../", p=page, pipeline=pipeline, names=COMPLETENESS, analysis=ANALYSIS_ROW,
                measures=SENSITIVITY), encoding="utf-8")
            stats["pages"] += 1
            programs.append(page)
        totals = {}
        if limit:
            t = limit.get("totals", {})
            totals["reuse"] = levels_chart(DEPTHS, _levels(t.get("reuse", {})))
            totals["pre"] = _shares(pipeline, t.get("pre"), t.get("captured"))
        if estimators and estimators.get("summary", {}).get("estimators"):
            s = estimators["summary"]
            totals["estimators"] = estimate_chart({"estimators": s["estimators"],
                                                   "exact": s["exact"]})
        figure = sensitivity_figure(list(sens_rows.values())) if sensitivity else []
        stats["charts"] += len(totals) + len(figure)
        (tmp / "index.html").write_text(env.get_template("limit.html").render(
            root="", limit=limit, estimators=estimators, sensitivity=sensitivity,
            programs=programs, totals=totals, figure=figure, pipeline=pipeline,
            names=COMPLETENESS, analysis=ANALYSIS_ROW,
            captured=_captured_shares((limit or {}).get("totals", {}).get("captured"))),
            encoding="utf-8")
    return stats
