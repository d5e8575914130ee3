"""Issue #30 item 4: the CFG as a picture of decisions. Every edge out of a ``cbr`` is labelled
true or false (with the comparison that set the condition, so a C ``switch`` lowered to
``NodeBlock``/``LeafBlock`` compares shows its case values), each block's code is its node's
SVG ``<title>`` and in a collapsible listing, no hover text is a dot id (``n0``), and the trees
are drawn with their root at the left edge."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pylogic.analysis.decisions import decisions
from pylogic.cli import main
from pylogic.ir.load import load_program
from tests.support import needs_clang

ROOT = Path(__file__).resolve().parents[2]
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="graphviz 'dot' is not installed (apt-get install graphviz)")

SWITCH_C = """int classify(int c) {
  int r;
  switch (c) {
  case 1: r = 10; break;
  case 5: r = 20; break;
  case 9: r = 7; break;
  case 12: r = 3; break;
  default: r = 0;
  }
  return r;
}
"""


def test_cbr_edges_are_true_and_false_with_their_comparison():
    fn = load_program(ROOT / "examples" / "loop_call.pir")[0].function_map()["main"]
    d = decisions(fn)
    assert d["edges"]["head"] == {"body": "true: i <= n", "exit": "false: i > n"}
    assert "entry" not in d["edges"]                 # one unguarded br: no label
    assert d["code"]["head"] == ["more = cmp.le i, n", "cbr more, body, exit"]


def _cbr_edges(svg: str, code: dict) -> list[str]:
    """The titles of the SVG edges leaving a block that ends in a cbr."""
    cbr = {b for b, lines in code.items() if lines and lines[-1].startswith("cbr ")}
    titles = re.findall(r'class="edge">\s*<title>(.*?)</title>', svg, re.S)
    return [t for t in titles if t.split(" -&gt; ")[0] in cbr]


@pytest.mark.slow
@needs_dot
@needs_clang
def test_switch_and_loop_pages_read_as_decisions(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "switch.c").write_text(SWITCH_C)
    (src / "loop.pir").write_bytes((ROOT / "examples" / "loop_call.pir").read_bytes())
    out = tmp_path / "run"
    assert main(["analyze", str(src), "--out", str(out), "--no-cache", "--quiet",
                 "--html"]) == 0
    import json
    code = json.loads((out / "report" / "code.json").read_text())
    pages = [p.read_text() for p in sorted((out / "html" / "f").glob("[0-9]*.html"))
             if "-why" not in p.name]
    seen_cases = set()
    for page in pages:
        name = re.search(r"<h1>(.*?) <small>in (.*?)</small>", page)
        fid = f"{name.group(2)}::{name.group(1)}"
        svg = page.split("<h2>Control-flow graph</h2>", 1)[1].split("<h2>", 1)[0]
        edges = _cbr_edges(svg, code[fid]["code"])
        for title in edges:          # every edge out of a cbr: true or false
            label = title.split(": ", 1)[1]
            assert label.startswith(("true", "false")), title
            seen_cases |= {int(v) for v in re.findall(r"%c == (-?\d+)", label)}
        assert not re.search(r"<title>n\d+(&#45;&gt;n\d+)?</title>", page)   # no dot ids
        for block, lines in code[fid]["code"].items():     # the code: hover and listing
            assert re.search(rf"<title>{re.escape(block)}:\n", svg), block
            for line in lines:
                assert line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") \
                    in page.split("<details>", 1)[1]
        for tree in ("Dominator tree", "Post-dominator tree"):
            part = page.split(f"<h2>{tree}</h2>", 1)[1].split("<h2>", 1)[0]
            xs = [float(x) for x in re.findall(r'<ellipse[^>]* cx="([-\d.]+)"', part)]
            assert xs and xs[0] == min(xs)        # the root (first node) at the left edge
    assert seen_cases == {1, 5, 9, 12}            # the switch's case values on its edges
    assert not any("explanations stopped" in page or "without an explanation" in page
                   for page in pages)
    from benchmarks.report_pages import browser_available, check_pages
    if browser_available() is None:              # every page loads, no console error
        report = check_pages(out / "html")
        assert report["errors"] == [] and report["pages"] == len(list(
            (out / "html").rglob("*.html")))
