"""The static HTML report of an ``analyze`` output directory (issue #17 item 1): ``index.html``
(files, functions with their statistics, failures, predicate statistics) and per function a page
with its CFG, dominator and post-dominator trees as SVG, loops, control dependences, dominance
frontiers, the BDD / SAT / PPG relation matrix, and every shown row linked to its derivation.

jinja2 with autoescaping renders every name; the SVGs come from graphviz (which escapes the
labels it is given); the pages load nothing from the network.

Example
-------
>>> write_report(read_run("runs/examples"), "runs/examples/html")   # doctest: +SKIP
{'pages': 17, 'svgs': 24, 'explanations': 111, 'graph_errors': []}
"""
from __future__ import annotations

from pathlib import Path

from jinja2 import DictLoader, Environment, select_autoescape
from markupsafe import Markup, escape

from pylogic.analysis.catalog import get as catalog_get
from pylogic.analysis.output import output_directory
from pylogic.analysis.report_data import EXPLAINED_BY, SHOWN, RunView, explain_command
from pylogic.predicates.relation_matrix import describe
from pylogic.report.explain import derivation_text
from pylogic.report.graphs import GraphError, cfg_svg, tree_svg
from pylogic.report.html_templates import TEMPLATES

TITLES = {"back_edge": "Back edges (t -> h)", "loop_block": "Loop bodies (header h, block b)",
          "loop_header": "Loop headers", "cdep": "Control dependences (n on edge b -> s)",
          "df": "Dominance frontiers (n in DF(d))", "idom": "Immediate dominators",
          "ipdom": "Immediate post-dominators", "unreachable": "Unreachable blocks",
          "loop_depth": "Loop depth of each block"}
#: Tables on a function page, in order.
TABLES = ("back_edge", "loop_header", "loop_block", "unreachable", "cdep", "df", "idom", "ipdom")
#: Derivation text per "why" page: a function's derivations go on as many pages as this takes
#: (issue #30 item 5: 2.7 MB for one function of tests/ir/llvm/c/indirect_calls.c before the
#: library rule sets were folded, 271 kB after; every row keeps its link).
WHY_PAGE_BYTES = 100_000


def _environment() -> Environment:
    return Environment(loader=DictLoader(TEMPLATES), autoescape=select_autoescape(default=True),
                       keep_trailing_newline=True)


def _graph(result) -> Markup:
    """An SVG, or the reason there is none, for the page."""
    if isinstance(result, GraphError):
        return Markup('<p class="note">no picture: ') + escape(str(result)) + Markup("</p>")
    return Markup('<div class="graph">') + Markup(result) + Markup("</div>")


def _svg(draw, errors: list):
    try:
        return draw()
    except GraphError as exc:
        errors.append(str(exc))
        return exc


def _matrix_rows(matrix: list[dict]) -> list[dict]:
    out = []
    for m in matrix:
        bdd, sat, ppg = m["bdd"], m.get("sat"), m.get("ppg")
        sat_class = "disagree" if sat is not None and sat != bdd else ""
        ppg_class = ""
        if ppg is not None:
            if any(ppg[k] and not bdd[k] for k in bdd):
                ppg_class = "disagree"
            elif any(bdd[k] and not ppg[k] for k in bdd):
                ppg_class = "weaker"
        out.append({"a": m["a"], "b": m["b"], "bdd": describe(bdd),
                    "sat": describe(sat) if sat is not None else "not checked",
                    "ppg": describe(ppg), "sat_class": sat_class, "ppg_class": ppg_class})
    return out


def write_report(view: RunView, dest: str | Path) -> dict:
    """Write the report of ``view`` to ``dest`` (replaced all at once).

    Returns
    -------
    dict
        ``pages``, ``svgs``, ``explanations`` written and ``graph_errors`` (why a picture is
        missing, e.g. no graphviz).
    """
    env = _environment()
    stats = {"pages": 0, "svgs": 0, "explanations": 0, "graph_errors": []}
    pages = {f.fid: f"f/{k}.html" for k, f in enumerate(view.functions)}
    with output_directory(dest) as tmp:
        (tmp / "f").mkdir()
        for k, f in enumerate(view.functions):
            why_pages = [[]]            # each page's entries, up to WHY_PAGE_BYTES of text
            used = 0
            tables = []
            for rel in TABLES:
                rows = []
                for j, row in enumerate(f.rows.get(rel, [])):
                    tree = f.explanations.get((rel, row))
                    entry = {"cells": row}
                    if tree is not None:
                        anchor = f"{rel}-{j}"
                        text = derivation_text(tree)
                        size = len(str(escape(text)).encode())      # as written on the page
                        if used and used + size > WHY_PAGE_BYTES:
                            why_pages.append([])
                            used = 0
                        used += size
                        why_pages[-1].append({"anchor": anchor, "atom": tree["atom"],
                                              "text": text})
                        entry["link"] = f"{_why_name(k, len(why_pages) - 1)}#{anchor}"
                    else:
                        entry["command"] = explain_command(
                            str(catalog_get(EXPLAINED_BY[rel]).path), rel, f.fid, row, view.out)
                    rows.append(entry)
                tables.append({"title": TITLES[rel], "columns": SHOWN[rel], "rows": rows})
            errors = stats["graph_errors"]
            svgs = {"cfg": _svg(lambda: cfg_svg(f), errors),
                    "domtree": _svg(lambda: tree_svg(f.rows.get("idom", []), f.entry, f.code),
                                    errors),
                    "pdomtree": _svg(lambda: tree_svg(f.rows.get("ipdom", []), "__exit__",
                                                      f.code), errors)}
            stats["svgs"] += sum(not isinstance(s, GraphError) for s in svgs.values())
            html = env.get_template("function.html").render(
                root="../", f=f, tables=tables, graph=_graph,
                matrix=_matrix_rows(f.matrix) if f.matrix else [], **svgs)
            (tmp / pages[f.fid]).write_text(html, encoding="utf-8")
            names = [_why_name(k, n) for n in range(len(why_pages))]
            for n, entries in enumerate(why_pages):
                (tmp / "f" / names[n]).write_text(env.get_template("explain.html").render(
                    root="../", f=f, entries=entries, back=f"{k}.html", part=n + 1,
                    parts=names), encoding="utf-8")
                stats["explanations"] += len(entries)
            stats["pages"] += 1 + len(why_pages)
        by_file: dict[str, list] = {}
        for f in view.functions:
            by_file.setdefault(f.file, []).append({"name": f.name, "stats": f.stats,
                                                   "page": pages[f.fid]})
        failures = list(view.summary.get("failures") or [])
        failures += [x for x in view.summary.get("files_failed") or [] if x not in failures]
        (tmp / "index.html").write_text(env.get_template("index.html").render(
            root="", summary=view.summary, functions=view.functions, pages=pages,
            by_file=sorted(by_file.items()), failures=[_failure(x) for x in failures]),
            encoding="utf-8")
        stats["pages"] += 1
    return stats


def _why_name(k: int, part: int) -> str:
    """The file of part ``part`` (from 0) of function ``k``'s derivations."""
    return f"{k}-why.html" if part == 0 else f"{k}-why-{part + 1}.html"


def _failure(item) -> str:
    if isinstance(item, dict):
        return ": ".join(str(v) for v in item.values())
    return str(item)
