"""Progress of long commands (issue #17 item 4): a live bar on a terminal, one line per finished
stage when stderr is piped; never a line that reads as an error."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from pylogic.cli import main
from pylogic.report.progress import Progress

ROOT = Path(__file__).resolve().parents[2]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_piped_one_line_per_stage():
    out = io.StringIO()
    p = Progress("analyze", stream=out)
    p.stage("load", unit="files")
    p(3, 3)
    p.note("3 loaded")
    p.stage("analyses", unit="engine calls")
    p(1, 2)
    p(2, 2)
    p.close()
    lines = out.getvalue().splitlines()
    assert [ln.split(",")[0] for ln in lines] == ["[analyze] load: 3 files",
                                                 "[analyze] analyses: 2 engine calls"]
    assert "3 loaded" in lines[0] and lines[1].endswith(" s")


def test_terminal_bar_after_the_delay_and_erased():
    term = Terminal()
    p = Progress("analyze", stream=term, delay=0.0)
    p.stage("analyses")
    p(1, 4)
    p(4, 4)
    p.close()
    text = term.getvalue()
    assert "analyze analyses" in text and "/4" in text
    assert "[analyze]" not in text            # no stage lines on a terminal


@pytest.mark.slow
def test_analyze_and_facts_report_their_stages(tmp_path, capsys):
    assert main(["analyze", str(ROOT / "examples"), "--out", str(tmp_path / "o"), "--quiet",
                 "--engine", "clingo"]) == 0
    err = capsys.readouterr().err.splitlines()
    stages = [ln.split(":")[0] for ln in err if ln.startswith("[analyze]")]
    assert stages == ["[analyze] load", "[analyze] analyses", "[analyze] predicate statistics",
                      "[analyze] write"]
    assert not any(ln.startswith("pathlogic:") for ln in err)
    assert main(["facts", str(ROOT / "examples"), "--out", str(tmp_path / "f")]) == 0
    err = capsys.readouterr().err
    assert "[facts] load: 6 files" in err and "[facts] extract: 6 files" in err
