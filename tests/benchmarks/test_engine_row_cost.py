"""benchmarks/engine_row_cost.py: its programs derive the rows it divides by (checked by counting
them on the embedded engines), and its run file holds a per-row figure per engine."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import engine_row_cost as erc

N = 500


@pytest.mark.parametrize("name", sorted(erc.PROGRAMS))
def test_programs_derive_the_rows_counted(tmp_path, name):
    from pylogic.engines import load_program, run_checked
    rules, derived = erc.PROGRAMS[name]
    text = erc.DECLS.replace("\n.decl done", "\n.output c\n.output d\n.decl done") + rules
    path = tmp_path / "rows.dl"
    path.write_text(text)
    checked = load_program(path)
    facts = {"e": [("f", "cfg", i, i + 1) for i in range(N)]}
    for engine in ("clingo", "duckdb"):
        rows = run_checked(checked, None, engine, facts)
        assert rows["done"] == [(1,)]
        assert len(rows["c"]) + len(rows["d"]) == derived(N), (engine, name)


def test_run_file_has_a_figure_per_engine(tmp_path):
    out = tmp_path / "cost.json"
    assert erc.main(["--rows", str(N), "--engines", "clingo,duckdb", "--out", str(out)]) == 0
    payload = json.loads(Path(out).read_text())
    assert payload["command"].startswith("python3 -m benchmarks.engine_row_cost")
    for engine in ("clingo", "duckdb"):
        assert set(payload["peak_mb"][engine]) == set(erc.PROGRAMS)
