"""Issue #30's acceptance: headless Chromium clicks through the report of C inputs with loops and
a ``switch`` (``analyze --html``), of an ``optimize --html`` run with its charts and CFGs and of a
``run --reuse --estimate --html`` page: no page says its explanations stopped, no console error,
every SVG renders, every CFG edge out of a ``cbr`` is labelled true or false
(``benchmarks.report_pages.check_pages``; skipped, with the reason, without a browser).
runs/report-charts.json records the same check on this program with its screenshots."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.report_pages import browser_available, check_pages
from pylogic.cli import main
from tests.support import needs_clang

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="graphviz 'dot' is not installed (apt-get install graphviz)")

#: Loops, a switch LLVM lowers to a compare chain, loads PRE removes (runs/report-charts.json).
PROGRAM = """int A[64];

int classify(int c) {
  switch (c) {
  case 1: return 10;
  case 5: return 20;
  case 9: return 7;
  case 12: return 3;
  default: return 0;
  }
}

int sum(int n, int k) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    s += A[i] * k;
    if (A[i] > 3)
      s += A[i] * k;
  }
  return s;
}

int main(void) {
  for (int i = 0; i < 64; i++)
    A[i] = i % 13;
  int t = 0;
  for (int k = 0; k < 6; k++)
    t += sum(40 + k, k) + classify(A[k * 2]);
  return t & 0xff;
}
"""
PASSES = "simplify,pre-mr,simplify,cbe"


@pytest.fixture
def program(tmp_path) -> Path:
    missing = browser_available()
    if missing:
        pytest.skip(missing)
    src = tmp_path / "src"
    src.mkdir()
    (src / "loops_switch.c").write_text(PROGRAM)
    return src / "loops_switch.c"


def _clean(report: dict, pages: int) -> None:
    assert report["errors"] == []
    assert report["pages"] == pages and report["clicks"] > 0
    assert all(Path(s).stat().st_size > 10_000 for s in report["screenshots"])


@needs_dot
@needs_clang
@pytest.mark.slow
def test_analyze_report_of_loops_and_a_switch(program, tmp_path):
    out = tmp_path / "run"
    assert main(["analyze", str(program.parent), "--out", str(out), "--no-cache", "--quiet",
                 "--html"]) == 0
    report = check_pages(out / "html", tmp_path / "shots-analyze", function_page="f/0.html")
    _clean(report, len(list((out / "html").rglob("*.html"))))
    assert report["cbr_edges"] >= 2 * 5       # the loops' and the switch chain's cbrs, both sides


@needs_dot
@needs_clang
@pytest.mark.slow
def test_optimize_report_charts_and_cfgs(program, tmp_path):
    html = tmp_path / "opt"
    assert main(["optimize", str(program), "--passes", PASSES, "--validate", "--html",
                 str(html)]) == 0
    page = (html / "p" / "0.html").read_text()
    assert page.count('class="side cfg"') >= 2 and page.count('class="chart"') == 6
    report = check_pages(html, tmp_path / "shots-optimize", function_page="p/0.html")
    _clean(report, 2)
    assert report["cbr_edges"] > 0 and len(report["screenshots"]) == 2


@needs_clang
@pytest.mark.slow
def test_run_page_with_reuse_and_estimates(program, tmp_path):
    html = tmp_path / "run"
    status = main(["run", str(program), "--reuse", "4", "--estimate", "--html", str(html)])
    assert status not in (1, 70)        # the program's own status: no bad input, no fault
    assert (html / "index.html").read_text().count('class="chart"') == 3
    report = check_pages(html, tmp_path / "shots-run", function_page="index.html")
    _clean(report, 1)


@needs_dot
@pytest.mark.slow
def test_the_check_sees_an_unlabelled_cbr_edge(tmp_path):
    """The browser check could fail: a CFG whose ``cbr`` edge lost its label, and a page saying
    its explanations stopped, are both reported."""
    from types import SimpleNamespace
    from pylogic.report.graphs import cfg_svg
    missing = browser_available()
    if missing:
        pytest.skip(missing)
    code = {"a": ["c = cmp.lt x, 3", "cbr c, b, d"], "b": ["ret 1"], "d": ["ret 0"]}
    view = SimpleNamespace(blocks=["a", "b", "d"], entry="a", exits=["b", "d"], code=code,
                           instrs=code, rows={},
                           edges=[("a", "b", "true: x < 3"), ("a", "d", "")])
    (tmp_path / "index.html").write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><link rel='icon' href='data:,'>"
        f"<title>t</title></head><body>{cfg_svg(view)}<p>explanations stopped</p></body></html>")
    report = check_pages(tmp_path)
    assert report["cbr_edges"] == 2
    assert len(report["errors"]) == 2
    assert "CFG edge a -> d out of a cbr is labelled '', not false" in report["errors"][1]
    assert "says its explanations stopped" in report["errors"][0]
