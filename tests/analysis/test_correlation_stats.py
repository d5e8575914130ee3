"""``pathlogic analyze --correlation`` (issue #15 item 4): per function, conditional branches,
analyzable ones, correlated intra- and interprocedurally, fully correlated, node-query pairs."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pylogic.analysis.correlation_stats import module_statistics
from pylogic.ir.parser import parse_module
from tests.papers.test_pathfinder_correlation import STDIO


def test_stdio_model_statistics():
    rows = {r["function"].split("::")[1]: r for r in
            module_statistics(parse_module(STDIO), "s.pir", engine="clingo")}
    # fgetc's fp test and main's EOF test are decided only through calls
    fgetc = rows["fgetc"]
    assert [fgetc[k] for k in ("conditional", "analyzable", "correlated_intra", "correlated_inter",
                               "full_intra", "full_inter")] == [1, 1, 0, 1, 0, 1]
    assert (rows["main"]["conditional"], rows["main"]["correlated_intra"],
            rows["main"]["correlated_inter"], rows["main"]["full_inter"]) == (2, 0, 1, 1)
    # the count is read from memory: the global cnt is a memory cell, 5 at main's entry (FALSE
    # on the first call) and stored from a computed value after (UNDEF): partial, through calls
    assert (rows["fillbuf"]["correlated_inter"], rows["fillbuf"]["full_inter"]) == (1, 0)
    assert all(r["pairs"] > 0 for r in rows.values())


@pytest.mark.slow
def test_analyze_prints_and_records_the_table(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "s.pir").write_text(STDIO)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "pylogic.cli", "analyze", str(tmp_path / "in"),
                           "--out", str(out), "--correlation", "--no-cache", "--engine", "clingo"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "corr inter" in proc.stdout and "node-query pairs" in proc.stdout
    totals = json.loads((out / "summary.json").read_text())["correlation"]["totals"]
    assert (totals["conditional"], totals["analyzable"], totals["correlated_intra"],
            totals["correlated_inter"]) == (4, 4, 0, 3)
