"""The HTML page of one ``pathlogic run FILE --reuse H --estimate --html DIR`` (issue #31 item 4):
beside their tables, charts of the reuse level against history depth (PathFinder Fig. 8.2),
the share of the ideal reuse each PRE pipeline captures (§8.3, PRE-completeness) and the
estimators' bounds against the exact benefit (ch. 5).

The command computes everything and writes it to ``DIR/run.json``; this module only draws that
document (``write_run_report``), so ``pathlogic report DIR`` can draw it again.
"""
from __future__ import annotations

import json
from pathlib import Path

from markupsafe import Markup

from pylogic.analysis.output import output_directory
from pylogic.report import charts
from pylogic.report.html import _environment

#: The document the command writes and the page is drawn from.
DATA = "run.json"
#: The reuse variants drawn, and how the page names them (``interp.reuse.VARIANTS``).
VARIANT_NAMES = {"whole": "whole program", "intra": "intra-procedural",
                 "activation": "same activation"}


def pct(n, d):
    return None if n is None or not d else round(100 * n / d, 1)


def reuse_levels(reuse: dict) -> dict[str, list]:
    """``{variant name: [% of executed loads redundant at h = 1, 2, ...]}`` (ideal aliasing)."""
    depths = sorted(reuse["reuse"], key=int)
    return {VARIANT_NAMES[v]: [pct(reuse["reuse"][h]["ideal"][v]["redundant"], reuse["loads"])
                               for h in depths] for v in VARIANT_NAMES}


def levels_chart(depths: list[int], levels: dict[str, list]) -> Markup:
    """The reuse level (% of executed loads) of each variant against history depth."""
    return charts.lines("Loads that could reuse an earlier access", depths, levels,
                        x_unit="history depth h (addresses per static load)",
                        y_unit="% of executed loads", top=100)


def reuse_chart(reuse: dict) -> Markup:
    return levels_chart([int(h) for h in sorted(reuse["reuse"], key=int)], reuse_levels(reuse))


#: The row of the share charts that is not a pipeline: what the analysis finds reusable, the
#: average of CMP^r's bounds of the dynamic loads (PathFinder §8.3;
#: ``analysis.estimation.load_estimate``), beside what each pipeline removes.
ANALYSIS_ROW = "analysis: CMPr average"


def shares_chart(names: list[str], shares: dict[str, list]) -> Markup:
    """Per pipeline (a row) its share of each ideal (a series), in %, the axis to 100 at
    least (a pipeline can remove more than the ideal: simplification folds beyond reuse);
    with an ``ANALYSIS_ROW`` it is also what the analysis captures."""
    values = [v for vs in shares.values() for v in vs if v is not None]
    title = ("Share of the ideal reuse the analysis captures and our PRE removes"
             if ANALYSIS_ROW in names else "Share of the ideal reuse our PRE removes")
    return charts.bars(title, names, shares, unit="% of the ideally reusable loads", width=560,
                       top=charts.nice_max(max([100] + values)))


def analysis_row(estimates: dict | None, ideal: dict) -> dict | None:
    """The ``ANALYSIS_ROW`` of a run's capture table from ``--estimate``'s CMP^r load bounds
    (``estimates["loads"]["CMPr"]``) against the run's ideal reuse (``captured["ideal"]``);
    None without them."""
    loads = ((estimates or {}).get("loads") or {}).get("CMPr")
    if not loads:
        return None
    average = (loads["lower"] + loads["upper"]) / 2
    return {"pipeline": ANALYSIS_ROW, "lower": loads["lower"], "upper": loads["upper"],
            "average": average, "share_intra_h1": pct(average, ideal["intra_h1"]),
            "share_activation_h1": pct(average, ideal["activation_h1"])}


def capture_chart(captured: dict, analysis: dict | None = None) -> Markup:
    rows = captured["pipelines"] + ([analysis] if analysis else [])
    return shares_chart([r["pipeline"] for r in rows],
                        {"of intra-procedural reuse, h=1": [r["share_intra_h1"] for r in rows],
                         "of same-activation reuse, h=1": [r["share_activation_h1"]
                                                           for r in rows]})


def estimate_chart(estimates: dict) -> Markup:
    rows = [(name, b["lower"], b["upper"]) for name, b in estimates["estimators"].items()]
    return charts.ranges("Estimator bounds against the exact reuse", rows, estimates["exact"],
                         unit="dynamic evaluations PRE can remove", exact_label="exact")


def write_run_report(data: dict, dest: str | Path) -> dict:
    """Write ``DIR/run.json`` (``data``) and ``DIR/index.html`` (replaced all at once); returns
    ``{pages, charts}``."""
    analysis = (analysis_row(data.get("estimates"), data["captured"]["ideal"])
                if data.get("captured") else None)
    page = {"reuse_chart": reuse_chart(data["reuse"]) if data.get("reuse") else None,
            "capture_chart": capture_chart(data["captured"], analysis) if data.get("captured")
            else None,
            "estimate_chart": estimate_chart(data["estimates"]) if data.get("estimates")
            else None}
    html = _environment().get_template("run.html").render(
        root="", d=data, levels=reuse_levels(data["reuse"]) if data.get("reuse") else {},
        pct=pct, analysis=analysis, **page)
    with output_directory(dest) as tmp:
        (tmp / DATA).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        (tmp / "index.html").write_text(html, encoding="utf-8")
    return {"pages": 1, "charts": sum(v is not None for v in page.values())}
