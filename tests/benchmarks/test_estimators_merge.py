"""benchmarks/estimators.py --merge: the record's programs and other runs' summed into its
``coverage`` block, per corpus kind and in all, a program in two files counted once."""
from __future__ import annotations

import json

from benchmarks import estimators


def _row(program, kind, exact, lower, upper):
    bounds = {"lower": lower, "upper": upper,
              "error": round((upper - lower) / lower, 4) if lower else None}
    return {"program": program, "kind": kind, "exact": exact, "local": 0,
            "estimators": {"PRE": bounds, "CMPr": bounds},
            "pre_removed": {"expressions": exact, "loads": 0}}


def test_coverage_sums_record_and_parts(tmp_path):
    record = tmp_path / "estimators.json"
    record.write_text(json.dumps({"command": "rec", "summary": {}, "programs": [
        _row("a.c", "real", 10, 8, 12), _row("t1.c", "torture", 4, 4, 4)]}))
    part = tmp_path / "part.json"
    part.write_text(json.dumps({"command": "part", "programs": [
        _row("t1.c", "torture", 5, 4, 6),           # replaces the record's t1.c
        _row("c1.c", "csmith", 20, 20, 20),
        {"program": "c2.c", "kind": "csmith", "not_estimated": "timed out"}]}))
    cov = estimators.coverage(str(record), [str(part)])
    assert json.loads(record.read_text())["coverage"] == cov
    assert cov["commands"] == ["rec", "part"]
    assert cov["all"]["programs"] == 4 and cov["all"]["estimated"] == 3
    assert cov["all"]["exact"] == 35 and cov["by_kind"]["torture"]["exact"] == 5
    assert cov["by_kind"]["csmith"]["estimated"] == 1
    assert cov["all"]["estimators"]["CMPr"]["lower"] == 32
    assert cov["all"]["estimators"]["CMPr"]["mean_error"] == round((0.5 + 0.5 + 0) / 3, 4)
