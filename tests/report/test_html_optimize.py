"""``optimize --html``: each pass's code before and after, the marks counted as the driver counts
(removed / added / moved of ``--json``), listings as long as the static sizes, the dynamic counts
those of the interpreter check, and the pages load in headless Chromium."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks.report_pages import browser_available, check_pages
from pylogic.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "examples" / "pcp_branchy.pir"
PASSES = "if-convert,pcp-full,dce"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    html = tmp_path_factory.mktemp("opt") / "html"
    argv = ["optimize", str(PROGRAM), "--passes", PASSES, "--validate", "--input", "1,0"]
    assert main(argv + ["--html", str(html)]) == 0
    return html


def test_marks_match_the_driver_counts(run, capsys):
    assert main(["optimize", str(PROGRAM), "--passes", PASSES, "--validate", "--input", "1,0",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["programs"][0]
    page = (run / "p" / "0.html").read_text()
    sections = page.split("<h2>Pass ")[1:]
    assert len(sections) == 3
    for section, p in zip(sections, doc["passes"]):
        t = p["totals"]
        marks = re.findall(r'<tr class="(kept|removed|inserted|moved)">', section)
        assert marks.count("removed") == t["removed"]
        assert marks.count("inserted") == t["added"]
        assert marks.count("moved") == 2 * t["moved"]          # once before, once after
        if t["removed"] + t["added"] + t["moved"]:
            befores = section.split("<th colspan=\"2\">after</th>")[0]
            assert len(re.findall(r'<tr class="\w+">', befores)) == t["size_before"]
            assert len(marks) == t["size_before"] + t["size_after"]
        else:
            assert "no function changed" in section
    case = doc["check"]["cases"][0]
    assert case["verdict"] == "identical"
    for k, v in case["before"].items():
        assert f"{v} &rarr; {case['after'][k]}" in page


@pytest.mark.slow
def test_optimize_pages_load_in_headless_chromium(run, tmp_path):
    missing = browser_available()
    if missing:
        pytest.skip(missing)
    report = check_pages(run, tmp_path / "report-optimize", function_page="p/0.html")
    assert report["errors"] == [] and report["pages"] == 2
    assert len(report["screenshots"]) == 2
