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
    total = limit.totals([row, {"program": "x", "status": "original not run"}])
    assert total["programs"] == 1 and total["reuse"] == row["reuse"]
    assert total["pre"]["complete_whole_h4"] == round(100 * 10 / 14, 2)
