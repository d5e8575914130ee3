"""The report's charts (issues #30 and #31 item 4) show the numbers the commands measured: each
pass's chart in ``optimize --html`` the counts of the pipeline cut after that pass as
``optimize --validate --json`` measures them, its CFGs the blocks of the functions it changed;
``run --reuse H --estimate --html`` the reuse levels of ``run --reuse h --json`` for every h,
what ``optimize --validate --json`` says each PRE pipeline removes, and the bounds of ``run
--estimate --json``; ``pathlogic report DIR`` draws the same page from run.json alone."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pylogic.cli import main
from pylogic.report import charts
from tests.analysis.test_estimation import RUNNING
from tests.transforms.pre.test_pre_mr import FIG_6_1

ROOT = Path(__file__).resolve().parents[2]
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="graphviz 'dot' is not installed (apt-get install graphviz)")

#: A loop with a fully redundant load on one path and a partially redundant one after the join
#: (reused from a load at h = 1), and a store of A[i+2] the load of A[i] reuses at h = 3.
REUSE = """global A[128]
func main(n) {
entry:
    i = mov 0
    s = mov 0
    br loop
loop:
    c = cmp.lt i, n
    cbr c, body, done
body:
    o = shl i, 3
    p = add A, o
    x = load p
    odd = and i, 1
    cbr odd, left, right
left:
    y = load p
    s = add s, y
    br join
right:
    s = add s, x
    br join
join:
    z = load p
    s = add s, z
    q = add p, 16
    store q, i
    i = add i, 1
    br loop
done:
    print s
    ret 0
}
"""
#: pathfinder.md Fig. 6.10's PRE(MR) example (docs/passes.md "pre-mr").
MR = FIG_6_1   # the same program (test_pre_mr)
MR_CASE = ["--args", "1,2,3,4", "--input", "0,0,0,0,0,0,0,0,0,0,0,0,1,1,0,1"]
PIPELINE = ["simplify", "pre-mr-split", "pre-m", "dce"]
TARGETED = {"evaluations": "evaluations", "loads": "loads",
            "conditional_branches": "conditional branches"}


def _titles(svg: str) -> list[str]:
    return [t.replace("&#x27;", "'").replace("&amp;", "&")
            for t in re.findall(r"<title>(.*?)</title>", svg, re.S)]


def test_bars_write_every_value_and_escape_names():
    svg = str(charts.bars("t <b>", ["a&b", "c"], {"before": [1234, 0], "after": [5.25, None]},
                          unit="runs"))
    assert "<b>" not in svg and "t &lt;b&gt;" in svg and "a&amp;b" in svg
    values = re.findall(r'class="value"[^>]*>([^<]*)</text>', svg)
    assert values == ["1,234", "5.2", "0", "-"]
    assert "a&amp;b, before: 1,234 runs" in svg
    assert charts.nice_max(1234) == 2000 and charts.nice_max(0) == 1


def test_ranges_write_bounds_and_exact():
    svg = str(charts.ranges("e", [("PRE", 80, 170), ("CMPf", 100, 100)], 100, unit="evals"))
    assert re.findall(r'class="value"[^>]*>([^<]*)</text>', svg) == ["80 - 170", "100",
                                                                      "exact 100"]


def _json(capsys, argv) -> dict:
    capsys.readouterr()
    main(argv + ["--json"])
    return json.loads(capsys.readouterr().out)


@needs_dot
def test_optimize_pass_charts_show_the_counts_of_each_pipeline_prefix(tmp_path, capsys):
    src = tmp_path / "mr.pir"
    src.write_text(MR)
    html = tmp_path / "html"
    assert main(["optimize", str(src), "--passes", ",".join(PIPELINE), "--validate", *MR_CASE,
                 "--html", str(html)]) == 0
    page = (html / "p" / "0.html").read_text()
    sections = page.split("<h2>Pass ")[1:]
    assert len(sections) == len(PIPELINE)
    before = None
    for k, (name, section) in enumerate(zip(PIPELINE, sections)):
        doc = _json(capsys, ["optimize", str(src), "--passes", ",".join(PIPELINE[:k + 1]),
                             "--validate", *MR_CASE])
        case = doc["programs"][0]["check"]["cases"][0]
        before = before or case["before"]
        after = case["after"]
        svg = section.split('<div class="side chartbox">', 1)[1].split("</svg>", 1)[0]
        titles = _titles(svg)
        for key, label in TARGETED.items():
            assert f"{label}, before: {before[key]:,} executed per run" in titles, (name, key)
            assert f"{label}, after: {after[key]:,} executed per run" in titles, (name, key)
        before = after
    # the restructuring changed main: its CFG before and after, one node per block listed
    mr = sections[1]
    assert "CFG of main before and after pre-mr-split" in mr
    cfgs = re.findall(r'<div class="side cfg"><p>(before|after)</p>(.*?)</svg>', mr, re.S)
    assert [side for side, _ in cfgs] == ["before", "after"]
    for side, svg in cfgs:
        table = mr.split(f'<th colspan="2">{side}</th>', 1)[1].split("</table>", 1)[0]
        blocks = set(re.findall(r"<tr class=\"\w+\"><td>([^<]+)</td>", table))
        assert svg.count('class="node"') == len(blocks) > 0
    assert len(blocks) > 9                   # the CMP region duplicated: more blocks after
    overview = page.split("the pipeline: dynamic counts after each pass", 1)[1]
    assert f"evaluations: {after['evaluations']:,}" in _titles(overview.split("</svg>")[0])[-3]


def test_run_html_charts_show_reuse_capture_and_bounds(tmp_path, capsys, monkeypatch):
    src = tmp_path / "reuse.pir"
    src.write_text(REUSE)
    html = tmp_path / "html"
    assert main(["run", str(src), "--args", "12", "--reuse", "3", "--html", str(html)]) == 0
    page = (html / "index.html").read_text()
    data = json.loads((html / "run.json").read_text())
    chart = page.split("Loads that could reuse an earlier access", 1)[1].split("</svg>", 1)[0]
    titles = _titles(chart)
    levels = []
    for h in (1, 2, 3):
        rep = _json(capsys, ["run", str(src), "--args", "12", "--reuse", str(h)])["reuse"]
        for variant, name in (("whole", "whole program"), ("intra", "intra-procedural"),
                              ("activation", "same activation")):
            level = round(100 * rep["reuse"][str(h)]["ideal"][variant]["redundant"]
                          / rep["loads"], 1)
            assert (f"{name}, history depth h (addresses per static load) {h}: "
                    f"{charts.number(level)} % of executed loads") in titles
            levels.append(level)
    assert len(set(levels)) > 1                  # the store is reused only from h = 3
    # the complete PRE's share: the loads optimize --validate says it removes, over the ideal
    doc = _json(capsys, ["optimize", str(src), "--passes", "simplify,pre-mr,simplify",
                         "--validate", "--args", "12"])
    case = doc["programs"][0]["check"]["cases"][0]
    removed = case["before"]["loads"] - case["after"]["loads"]
    ideal = data["reuse"]["reuse"]["1"]["ideal"]["intra"]["redundant"]
    assert removed > 0 and ideal > 0
    share = charts.number(round(100 * removed / ideal, 2))
    capture = page.split("Share of the ideal reuse our PRE removes", 1)[1].split("</svg>")[0]
    assert (f"simplify,pre-mr,simplify, of intra-procedural reuse, h=1: {share} % of the "
            "ideally reusable loads") in _titles(capture)
    # drawn again from run.json alone: nothing loaded, run or analysed
    from tests.report.test_render_only import _refuse_everything
    _refuse_everything(monkeypatch)
    assert main(["report", str(html), "--out", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "index.html").read_text() == page


def test_run_html_estimator_chart_shows_the_bounds(tmp_path, capsys):
    src = tmp_path / "running.pir"
    src.write_text(RUNNING)
    html = tmp_path / "html"
    assert main(["run", str(src), "--estimate", "--html", str(html)]) == 0
    est = _json(capsys, ["run", str(src), "--estimate"])["estimates"]
    page = (html / "index.html").read_text()
    svg = page.split("Estimator bounds against the exact reuse", 1)[1].split("</svg>")[0]
    values = re.findall(r'class="value"[^>]*>([^<]*)</text>', svg)
    assert values == [charts.span(b["lower"], b["upper"]) for b in est["estimators"].values()] \
        + [f"exact {charts.number(est['exact'])}"]
    assert any(b["lower"] != b["upper"] for b in est["estimators"].values())


def test_run_html_needs_something_to_draw(tmp_path, capsys):
    src = tmp_path / "reuse.pir"
    src.write_text(REUSE)
    assert main(["run", str(src), "--html", str(tmp_path / "h")]) == 1
    err = capsys.readouterr().err
    assert "pathlogic: error: --html draws what --reuse H and --estimate measure" in err
    assert not (tmp_path / "h").exists()


def test_report_of_a_broken_run_json_is_one_line(tmp_path, capsys):
    (tmp_path / "run.json").write_text('{"reuse": {"x": 1}}')
    assert main(["report", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pathlogic: ") and err.count("\n") == 1 and "Traceback" not in err
    assert "run.json: not what run --html writes" in err
    assert not (tmp_path / "index.html").exists()


def test_corpus_pages_draw_the_benchmark_runs(tmp_path, monkeypatch):
    """``report --limit --estimators``: per program of runs/limit-reuse.json its reuse levels
    and PRE-completeness, of runs/estimators.json its bounds, as the documents say; the index
    draws the totals; nothing is run."""
    limit = json.loads((ROOT / "runs" / "limit-reuse.json").read_text())
    est = json.loads((ROOT / "runs" / "estimators.json").read_text())
    both = next(r["program"] for r in limit["programs"]
                if r["status"] == "ok" and r.get("pre", {}).get("verdict") == "identical"
                and any(e["program"] == r["program"] and e.get("estimators")
                        for e in est["programs"]))
    from tests.report.test_render_only import _refuse_everything
    _refuse_everything(monkeypatch)
    out = tmp_path / "html"
    assert main(["report", "--limit", str(ROOT / "runs" / "limit-reuse.json"), "--estimators",
                 str(ROOT / "runs" / "estimators.json"), "--out", str(out)]) == 0
    index = (out / "index.html").read_text()
    page = re.search(rf'<a href="(p/\d+\.html)">{re.escape(both)}</a>', index).group(1)
    text = (out / page).read_text()
    row = next(r for r in limit["programs"] if r["program"] == both)
    e = next(r for r in est["programs"] if r["program"] == both)
    titles = _titles(text.split("Loads that could reuse an earlier access", 1)[1]
                     .split("</svg>")[0])
    for h in range(4):
        assert (f"whole program, history depth h (addresses per static load) {h + 1}: "
                f"{charts.number(row['reuse']['whole'][h])} % of executed loads") in titles
    pre = _titles(text.split("Share of the ideal reuse our PRE removes", 1)[1]
                  .split("</svg>")[0])
    assert (f"{limit['pipeline']}, of intra-procedural reuse, h=1: "
            f"{charts.number(row['pre']['complete_intra_h1'])} % of the ideally reusable "
            "loads") in pre
    svg = text.split("Estimator bounds against the exact reuse", 1)[1].split("</svg>")[0]
    assert re.findall(r'class="value"[^>]*>([^<]*)</text>', svg) == \
        [charts.span(b["lower"], b["upper"]) for b in e["estimators"].values()] \
        + [f"exact {charts.number(e['exact'])}"]
    assert len(list((out / "p").glob("*.html"))) == len(
        {r["program"] for r in limit["programs"]} | {r["program"] for r in est["programs"]})
    assert f"{charts.number(limit['totals']['reuse']['whole'][0])} % of executed loads" in index


def test_corpus_pages_of_the_wrong_document_are_one_line(tmp_path, capsys):
    assert main(["report", "--limit", str(ROOT / "runs" / "estimators.json"), "--out",
                 str(tmp_path / "h")]) == 1
    err = capsys.readouterr().err
    assert "estimators.json: not what benchmarks/limit.py writes" in err
    assert err.count("\n") == 1 and not (tmp_path / "h").exists()


def test_run_html_sets_the_analysis_beside_the_pipelines(tmp_path, capsys):
    """``run --reuse 1 --estimate --html``: the capture table and chart have a row for what the
    analysis captures, CMP^r's load bounds of ``run --estimate`` (19..20 on a while loop,
    tests/analysis/test_estimation.py) averaged, as % of ``run --reuse 1``'s ideal reuse."""
    from tests.analysis.test_estimation import WHILE_LOAD
    src = tmp_path / "while.pir"
    src.write_text(WHILE_LOAD)
    html = tmp_path / "html"
    assert main(["run", str(src), "--reuse", "1", "--estimate", "--html", str(html)]) == 0
    loads = _json(capsys, ["run", str(src), "--estimate"])["estimates"]["loads"]["CMPr"]
    ideal = _json(capsys, ["run", str(src), "--reuse", "1"])["reuse"]["reuse"]["1"]["ideal"]
    assert loads["lower"] < loads["upper"]
    page = (html / "index.html").read_text()
    capture = page.split("Share of the ideal reuse the analysis captures and our PRE removes",
                         1)[1].split("</svg>")[0]
    average = (loads["lower"] + loads["upper"]) / 2
    for variant, label in (("intra", "intra-procedural"), ("activation", "same-activation")):
        share = charts.number(round(100 * average / ideal[variant]["redundant"], 1))
        assert (f"analysis: CMPr average, of {label} reuse, h=1: {share} % of the ideally "
                "reusable loads") in _titles(capture)
    row = page.split("<td>analysis: CMPr average</td>", 1)[1].split("</tr>")[0]
    assert f"{loads['lower']} - {loads['upper']}" in row


def _small_runs(tmp_path) -> tuple[Path, Path, dict, dict]:
    """A small limit run (three rows of runs/limit-cmpr-real.json with the CMP^r load bounds,
    one of them given the note of a program the analysis cannot estimate) and a small
    sensitivity run (three programs of runs/sensitivity-inputs.json, one without loads)."""
    limit = json.loads((ROOT / "runs" / "limit-cmpr-real.json").read_text())
    ok = [r for r in limit["programs"] if r["status"] == "ok"
          and r["captured"].get("average") and r["pre"].get("verdict") == "identical"]
    rows = [next(r for r in ok if r["captured"]["lower"] < r["captured"]["upper"]),
            next(r for r in ok if r["captured"]["lower"] == r["captured"]["upper"] > 0)]
    rows.append({**next(r for r in ok[::-1] if r not in rows),
                 "captured": {"note": "not estimable: a side exit"}})
    limit["programs"] = rows
    sens = json.loads((ROOT / "runs" / "sensitivity-inputs.json").read_text())
    ran = [r for r in sens["programs"] if r["status"] == "ok"]
    sens["programs"] = [next(r for r in ran if r["runs"]["A"]["loads"] == 0),
                        *[r for r in ran if r["runs"]["A"]["pre"]["removed"]][:2]]
    paths = tmp_path / "limit.json", tmp_path / "sensitivity.json"
    for path, doc in zip(paths, (limit, sens)):
        path.write_text(json.dumps(doc))
    return *paths, limit, sens


def _page_of(out: Path, index: str, name: str) -> str:
    return (out / re.search(rf'<a href="(p/\d+\.html)">{re.escape(name)}</a>', index)
            .group(1)).read_text()


def test_corpus_pages_draw_what_the_analysis_captures_and_two_inputs(tmp_path, monkeypatch):
    """``report --limit --sensitivity`` from small run files: per program the CMP^r load bounds
    beside what the pipeline removes (table and a row of the share chart, or the note), and
    each program's figures at its two inputs; the index has the totals of both and the
    sensitivity figure (a chart per measure, a bar pair per program that has the measure)."""
    limit_path, sens_path, limit, sens = _small_runs(tmp_path)
    from tests.report.test_render_only import _refuse_everything
    _refuse_everything(monkeypatch)
    out = tmp_path / "html"
    assert main(["report", "--limit", str(limit_path), "--sensitivity", str(sens_path),
                 "--out", str(out)]) == 0
    index = (out / "index.html").read_text()
    names = {r["program"] for r in limit["programs"]} | {r["program"] for r in sens["programs"]}
    assert len(list((out / "p").glob("*.html"))) == len(names) >= 4
    for row in limit["programs"]:
        page = _page_of(out, index, row["program"])
        shares = _titles(page.split("Share of the ideal reuse", 1)[1].split("</svg>")[0])
        removed = (f"{limit['pipeline']}, of intra-procedural reuse, h=1: "
                   f"{charts.number(row['pre']['complete_intra_h1'])} % of the ideally "
                   "reusable loads")
        assert removed in shares
        c = row["captured"]
        if "note" in c:
            assert "not estimated" in page and c["note"] in page
            assert not any(t.startswith("analysis:") for t in shares)
            continue
        assert f"{c['lower']} - {c['upper']}" in page
        for value, label in ((c["of_intra"][0], "intra-procedural"),
                             (c["of_activation_h1"], "same-activation")):
            assert (f"analysis: CMPr average, of {label} reuse, h=1: {charts.number(value)} % "
                    "of the ideally reusable loads") in shares
    totals = _titles(index.split("Share of the ideal reuse the analysis captures", 1)[1]
                     .split("</svg>")[0])
    assert (f"analysis: CMPr average, of intra-procedural reuse, h=1: "
            f"{charts.number(limit['totals']['captured']['of_intra'][0])} % of the ideally "
            "reusable loads") in totals

    def measures(run):
        est = run["estimates"]
        cmpr, n = est["estimators"]["CMPr"], est["evaluations"]
        return {"reuse level, h=4 (% of loads)": run["table81"]["reuse"],
                "PRE-complete, intra h=1 (%)": run["pre"]["complete_intra_h1"],
                "CMPr average (% of evaluations)":
                    round(100 * (cmpr["lower"] + cmpr["upper"]) / 2 / n, 2) if n else None,
                "exact reuse (% of evaluations)": round(100 * est["exact"] / n, 2) if n else None}
    figure = index.split("<h2>Input sensitivity", 1)[1].split("<h2>Programs")[0]
    assert figure.count("<svg") == 4
    for row in sens["programs"]:
        page = _page_of(out, index, row["program"])
        chart = _titles(page.split("Two inputs: reuse level, PRE-completeness and CMPr", 1)[1]
                        .split("</svg>")[0])
        for key in ("A", "B"):
            given = row["inputs"][key]
            name = f"{key}: " + "; ".join(f"{k} {' '.join(map(str, v))}"
                                          for k, v in given.items() if v)
            for label, value in measures(row["runs"][key]).items():
                assert f"{label}, {name}: {charts.number(value)} %" in chart
                if value is not None:
                    bars = _titles(figure.split(f"At two inputs: {label}", 1)[1]
                                   .split("</svg>")[0])
                    side = "input A" if key == "A" else "input B"
                    assert f"{row['program']}, {side}: {charts.number(value)} %" in bars
        if row["runs"]["A"]["loads"] == 0:       # no loads: no bar in the reuse chart
            reuse = figure.split("At two inputs: reuse level", 1)[1].split("</svg>")[0]
            assert row["program"] not in reuse


def test_corpus_pages_of_a_wrong_sensitivity_document_are_one_line(tmp_path, capsys):
    assert main(["report", "--sensitivity", str(ROOT / "runs" / "limit-cmpr-real.json"),
                 "--out", str(tmp_path / "h")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pathlogic: ") and err.count("\n") == 1 and "Traceback" not in err
    assert "limit-cmpr-real.json: not a benchmarks/limit.py, estimators.py or sensitivity.py" \
        in err
    assert not (tmp_path / "h").exists()
