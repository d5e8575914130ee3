"""benchmarks/limit.py: one program's row of the reuse limit study (PathFinder ch. 8) and the
totals, on a C program whose reuse is known by hand."""
from __future__ import annotations

from benchmarks import limit
from tests.support import needs_clang

TWO_LOOPS = r"""
int A[10];
int main(void) {
    int s = 0;
    for (int i = 0; i < 10; i++) A[i] = i;
    for (int i = 0; i < 10; i++) s += A[i] + A[i];
    return s == 90 ? 0 : 1;
}
"""


@needs_clang
def test_row_and_totals_of_a_program_with_known_reuse(tmp_path):
    """20 loads: the second A[i] of each iteration reuses the first (10), and the first loads
    of A[10-h..9] still sit in the store's history of depth h (loop-level reuse, §8.2): 11, 12,
    13, 14 redundant at h = 1..4. Our PRE removes the 10 second loads: 10/11 of the §8.3
    baseline (intra-procedural, h = 1). At h = 4 the 14 have 10 load sources and 8 store
    sources (the first A[6..9] from the store, the second ones from both)."""
    path = tmp_path / "two.c"
    path.write_text(TWO_LOOPS)
    row = limit.one(("two.c", "c", str(path)), 10 ** 6)
    assert row["status"] == "ok", row
    assert row["loads"] == 20
    assert row["reuse"] == {v: [55.0, 60.0, 65.0, 70.0] for v in ("whole", "intra", "activation")}
    assert row["table81"] == {"reuse": 70.0, "from_loads": round(100 * 10 / 14, 2),
                              "from_stores": round(100 * 8 / 14, 2)}
    assert row["pre"]["verdict"] == "identical"
    assert row["pre"]["removed"] == 10
    assert row["pre"]["complete_intra_h1"] == round(100 * 10 / 11, 2)
    assert row["pre"]["complete_activation_h1"] == round(100 * 10 / 11, 2)
    assert row["pre"]["complete_activation_calls_h1"] == round(100 * 10 / 11, 2)  # no calls
    assert row["same_value"]["loads"] == 0.0  # A[i] = i: no load repeats its previous value
    # the analysis (CMP^r, from the simulated run's edge profile) finds the 10 second loads
    # (block-local reuse) and nothing across iterations (A[i] changes): 10 of 11, 12, 13, 14
    assert row["captured"] == {"lower": 10, "upper": 10, "average": 10.0,
                               "of_intra": [round(100 * 10 / n, 2) for n in (11, 12, 13, 14)],
                               "of_activation_h1": round(100 * 10 / 11, 2)}
    total = limit.totals([row, {"program": "x", "status": "original not run"}])
    assert total["programs"] == 1 and total["reuse"] == row["reuse"]
    assert total["pre"]["complete_whole_h4"] == round(100 * 10 / 14, 2)
    assert total["captured"]["programs"] == 1 and total["captured"]["average"] == 10.0
    assert total["captured"]["of_intra"] == row["captured"]["of_intra"]


@needs_clang
def test_coverage_merges_raw_parts_into_totals_only(tmp_path):
    """``--merge``: raw parts (rows with counts) summed per corpus kind and in all into the
    record's ``coverage`` block; a program in two parts counts once; no per-program rows."""
    import json
    path = tmp_path / "two.c"
    path.write_text(TWO_LOOPS)
    row = limit.one(("two.c", "torture", str(path)), 10 ** 6)
    other = {**json.loads(json.dumps(row)), "program": "three.c", "kind": "csmith"}
    parts = []
    for k, rows in enumerate(([row, other], [row])):
        parts.append(tmp_path / f"part{k}.json")
        parts[-1].write_text(json.dumps({"command": f"part {k}", "programs": rows}))
    record = tmp_path / "limit-x.json"
    record.write_text(json.dumps({"command": "c", "totals": {}, "programs": []}))
    cov = limit.coverage(str(record), [str(p) for p in parts])
    back = json.loads(record.read_text())
    assert back["coverage"] == cov and back["programs"] == []
    assert cov["commands"] == ["part 0", "part 1"]
    assert cov["all"]["programs"] == 2 and cov["all"]["loads"] == 40
    assert cov["all"]["table81"]["reuse"] == 70.0 and cov["all"]["pre"]["removed"] == 20
    assert cov["all"]["captured"]["average"] == 20.0
    assert set(cov["by_kind"]) == {"csmith", "torture"}
    assert cov["by_kind"]["torture"]["loads"] == 20 and cov["all"]["status"] == {"ok": 2}
    assert not any(isinstance(v, list) and v and isinstance(v[0], dict)
                   for block in [cov["all"], *cov["by_kind"].values()] for v in block.values())
