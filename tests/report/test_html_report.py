"""``pathlogic report`` / ``analyze --html`` (issue #17 item 1): the pictures match the program
(nodes, edges, back edges against networkx), every shown row links to a derivation, hostile
names are escaped, and the pages load in headless Chromium without console errors with every
SVG rendered (skipped, with the reason, when no browser can be driven)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import networkx as nx
import pytest

from benchmarks.report_pages import browser_available, check_pages
from pylogic.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="graphviz 'dot' is not installed (apt-get install graphviz)")

HOSTILE_FILE = '<script>alert("x")</script> \'q\' é✓.pir'
HOSTILE_PIR = """func main(n) {
entry:
    c = cmp.lt n, 2
    cbr c, loop, done
loop:
    n = sub n, 1
    c = cmp.gt n, 0
    cbr c, loop, done
done:
    ret n
dead:
    ret 0
}
"""


@pytest.fixture(scope="module")
def examples_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run") / "examples"
    assert main(["analyze", str(EXAMPLES), "--out", str(out), "--no-cache", "--quiet",
                 "--html"]) == 0
    return out / "html"


def _page(html: Path, fid_name: str, file: str) -> str:
    index = (html / "index.html").read_text()
    block = index.split(f"<h3>{file}</h3>", 1)[1]
    href = re.search(rf'<a href="(f/\d+\.html)">{re.escape(fid_name)}</a>', block).group(1)
    return (html / href).read_text()


def _graph_of(pir: Path, function: str) -> tuple[nx.DiGraph, str]:
    """The CFG of ``function`` read from the .pir text itself (labels, cbr/br/fall-through)."""
    text = pir.read_text().split(f"func {function}(", 1)[1].split("\n}", 1)[0]
    g, current, entry, fall = nx.DiGraph(), None, None, False
    for line in text.splitlines()[1:]:
        line = line.split(";")[0].strip()
        m = re.match(r"^([A-Za-z_.$][\w.$]*):", line)
        if m:
            if fall and current:
                g.add_edge(current, m.group(1))
            current = m.group(1)
            g.add_node(current)
            entry = entry or current
            fall = True
            continue
        words = line.replace(",", " ").split()
        if not words:
            continue
        op = words[2] if len(words) > 2 and words[1] == "=" else words[0]
        if op == "br":
            g.add_edge(current, words[-1])
            fall = False
        elif op == "cbr":
            g.add_edge(current, words[-2])
            g.add_edge(current, words[-1])
            fall = False
        elif op == "ret":
            fall = False
    return g, entry


@pytest.mark.slow
@needs_dot
@pytest.mark.parametrize("file,function", [("loop_call.pir", "main"),
                                           ("pcp_branchy.pir", "main"),
                                           ("strings_printf.pir", "main")])
def test_cfg_picture_matches_the_program(examples_report, file, function):
    page = _page(examples_report, function, file)
    svg = page.split("<h2>Control-flow graph</h2>", 1)[1].split("<h2>", 1)[0]
    g, entry = _graph_of(EXAMPLES / file, function)
    assert svg.count('class="node"') == g.number_of_nodes()
    assert svg.count('class="edge"') == g.number_of_edges()
    dom = nx.immediate_dominators(g, entry)

    def dominates(a, b):
        while b != a and dom.get(b, b) != b:
            b = dom[b]
        return a == b
    back = [(t, h) for t, h in g.edges if t in dom and dominates(h, t)]
    assert svg.count('<path fill="none" stroke="#c00000"') == len(back)   # back edges red
    assert len(re.findall(r">back edge(?::[^<]*)?</text>", svg)) == len(back)
    # every shown row has its derivation, and the linked anchor exists
    links = re.findall(r'href="(\d+-why(?:-\d+)?\.html)#([\w-]+)"', page)
    assert links and "pathlogic explain" not in page
    why = (examples_report / "f" / links[0][0]).read_text()
    assert all(f'id="{anchor}"' in why for _, anchor in links)
    assert "[input fact]" in why


@needs_dot
def test_matrix_page_shows_bdd_sat_and_ppg(examples_report):
    page = _page(examples_report, "fig3b", "pas_fig3b.pir")
    table = page.split("Predicate relations: BDD / SAT / PPG", 1)[1]
    rows = table.count("<tr>") - 1
    assert rows == 10      # 5 predicates: 10 pairs, as summary.json's "pairs"
    assert 'class="disagree"' not in table     # SAT agrees with the BDD; the PPG claims no more


@needs_dot
@pytest.mark.slow
def test_hostile_names_are_escaped(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / HOSTILE_FILE).parent.mkdir()          # the relative path holds "</script>"
    (src / HOSTILE_FILE).write_text(HOSTILE_PIR, encoding="utf-8")
    (src / '<img src=x onerror="alert(1)">.pir').write_text("func f( {\n", encoding="utf-8")   # a parse error
    out = tmp_path / "run"
    assert main(["analyze", str(src), "--out", str(out), "--no-cache", "--quiet"]) == 1
    assert main(["report", str(out)]) == 0
    pages = {p: p.read_text(encoding="utf-8") for p in (out / "html").rglob("*.html")}
    assert len(pages) == 3
    for path, text in pages.items():
        assert "<script" not in text.lower(), path
        assert "<img" not in text.lower(), path
    index = pages[out / "html" / "index.html"]
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &#39;q&#39; é✓.pir" in index
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;.pir" in index      # the failure listed
    function = pages[out / "html" / "f" / "0.html"]
    assert "grey" in function and 'fill="#dddddd"' in function               # dead: unreachable
    if browser_available() is None:
        report = check_pages(out / "html")
        assert report["errors"] == [] and report["svgs"] == 3


def test_report_of_a_directory_that_is_not_a_run(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "not an analyze output directory (no summary.json)" in err and "Traceback" not in err


@pytest.mark.slow
@needs_dot
def test_pages_load_in_headless_chromium(examples_report, tmp_path):
    missing = browser_available()
    if missing:
        pytest.skip(missing)
    shots = tmp_path / "report-examples"     # runs/'s screenshots come from benchmarks.report_pages
    index = (examples_report / "index.html").read_text()
    block = index.split("<h3>pcp_branchy.pir</h3>", 1)[1]
    page = re.search(r'<a href="(f/\d+\.html)">main</a>', block).group(1)
    report = check_pages(examples_report, shots, function_page=page)
    assert report["errors"] == []
    pages = sorted(examples_report.rglob("*.html"))   # every page written was loaded
    assert report["pages"] == len(pages) >= 17
    assert report["svgs"] == sum(p.read_text().count("<svg") for p in pages) >= 24
    for shot in report["screenshots"]:
        assert Path(shot).stat().st_size > 10_000
    assert len(report["screenshots"]) == 2


@pytest.mark.slow
def test_derivation_pages_fold_library_steps_and_keep_a_size_budget(tmp_path, monkeypatch):
    """Issue #30 item 5: a derivation shows the dominator-tree walk as one step naming
    lib/dominator_tree.dl (no _dt_* lines), rule locations relative to datalog/; a function's
    derivations are split over pages of at most WHY_PAGE_BYTES of text, and every row of the
    function page still links to an anchor that exists (nothing is left unexplained)."""
    from pylogic.analysis.catalog import datalog_dir
    from pylogic.report import html as report_html
    out = tmp_path / "run"
    assert main(["analyze", str(EXAMPLES / "loop_call.pir"), "--out", str(out), "--no-cache",
                 "--quiet", "--report-data"]) == 0
    budget = 3_000
    monkeypatch.setattr(report_html, "WHY_PAGE_BYTES", budget)
    assert main(["report", str(out)]) == 0
    f = out / "html" / "f"
    whys = {p.name: p.read_text(encoding="utf-8") for p in f.glob("*-why*.html")}
    text = "".join(whys.values())
    assert "rule set lib/dominator_tree.dl" in text and "_dt_walk" not in text
    assert str(datalog_dir()) not in text and "[rule dominance.dl:" in text
    assert any("-why-2.html" in name for name in whys)          # split
    for name, page in whys.items():
        entries = re.findall(r"<pre>(.*?)</pre>", page, re.S)
        assert entries
        assert len(entries) == 1 or sum(len(e.encode()) for e in entries) <= budget, name
    for page in (p for p in f.glob("*.html") if "-why" not in p.name):
        body = page.read_text(encoding="utf-8")
        assert "pathlogic explain" not in body and "explanations stopped" not in body
        for target, anchor in re.findall(r'href="(\d+-why(?:-\d+)?\.html)#([\w-]+)"', body):
            assert f'id="{anchor}"' in whys[target]
