"""benchmarks/sensitivity.py: which programs take input, and one program's figures on two inputs
(PathFinder Table 8.1: the reuse level on two inputs; profile from input A, benefit on input B),
on a C program whose reuse on either input is known by hand."""
from __future__ import annotations

from pathlib import Path

from benchmarks import sensitivity
from tests.support import needs_clang

ROOT = Path(__file__).resolve().parents[2]

#: tests/benchmarks/test_limit.py's two loops, n read from argv[1] as the Shootout programs do.
SIZED = r"""
#include <stdlib.h>
int A[64];
int main(int argc, char *argv[]) {
    int n = ((argc == 2) ? atoi(argv[1]) : SIZE);
    int s = 0;
    for (int i = 0; i < n; i++) A[i] = i;
    for (int i = 0; i < n; i++) s += A[i] + A[i];
    return s == n * (n - 1) ? 0 : 1;
}
"""


def test_size_input_reads_the_default_size():
    real = ROOT / "benchmarks" / "real"
    assert sensitivity.size_input(real / "Shootout" / "ackermann.c") == 6    # a number
    assert sensitivity.size_input(real / "Shootout" / "hash.c") == 5000      # a #define
    assert sensitivity.size_input(real / "Stanford" / "Bubblesort.c") is None  # no argv


def test_every_input_program_is_found():
    """The real programs that read argv[1] (each with its halved size) and the examples with
    more than one case."""
    items = sensitivity.programs("all", True)
    names = {i["program"] for i in items}
    assert {"Shootout-ackermann.c", "Shootout-matrix.c", "pas_fig3b.pir"} <= names
    assert not any("Stanford" in n or "fannkuch" in n for n in names)
    ack = next(i for i in items if i["program"] == "Shootout-ackermann.c")
    assert ack["inputs"] == {"A": {"argv": ["6"]}, "B": {"argv": ["3"]}}


def test_estimate_on_b_by_hand():
    """A's CMPr bounds 40..60 of 100 evaluations (rate 0.4..0.6, midpoint 0.5); B's exact reuse
    30 of 50 (0.6): error |0.5 - 0.6| / 0.6, contained (at the upper bound); the exact rates
    0.5 and 0.6 vary by 20%."""
    a = {"estimates": {"exact": 50, "evaluations": 100,
                       "estimators": {"CMPr": {"lower": 40, "upper": 60}}}}
    b = {"estimates": {"exact": 30, "evaluations": 50,
                       "estimators": {"CMPr": {"lower": 30, "upper": 30}}}}
    got = sensitivity.estimate_on_b(a, b)
    assert got["exact_variation"] == 0.2
    assert got["estimators"]["CMPr"] == {"rate_A": [0.4, 0.6], "error": round(0.1 / 0.6, 4),
                                         "contains": True}
    b["estimates"]["exact"] = 31
    assert not sensitivity.estimate_on_b(a, b)["estimators"]["CMPr"]["contains"]


@needs_clang
def test_two_inputs_of_a_program_with_known_reuse(tmp_path):
    """n = 8 (A, the default) and 4 (B): 2n loads, n + min(n, 4) redundant at h = 4 (the second
    A[i] of each iteration, and the first loads still in the store's history), and the load of
    argv[1], which the start function stored (whole-program reuse from a store): 13/17 and
    9/9 = 100%, a variation of 17/13 - 1 (23.53 points). PRE removes the n second loads:
    n/(n + 1) of the intra-procedural reuse at h = 1 (argv[1]'s is not intra-procedural)."""
    path = tmp_path / "sized.c"
    path.write_text(SIZED.replace("SIZE", "8"))
    item = {"program": "sized.c", "kind": "real", "path": str(path),
            "inputs": {"A": {"argv": ["8"]}, "B": {"argv": [str(sensitivity.size_input(path) // 2)]}}}
    row = sensitivity.one(item, 10 ** 6, "clingo")
    assert row["status"] == "ok", row
    a, b = row["runs"]["A"], row["runs"]["B"]
    assert (a["loads"], b["loads"]) == (17, 9)
    assert (a["table81"]["reuse"], b["table81"]["reuse"]) == (round(100 * 13 / 17, 2), 100.0)
    assert row["reuse_variation"] == round(100 / 76.47 - 1, 4) and row["reuse_points"] == 23.53
    assert a["pre"]["removed"] == 8 and b["pre"]["removed"] == 4
    assert a["pre"]["complete_intra_h1"] == round(100 * 8 / 9, 2)
    assert row["completeness_points"] == round(80.0 - round(100 * 8 / 9, 2), 2)
    est = row["estimate_on_b"]
    for r in (a, b):       # every estimator's bounds hold the exact reuse of its own run
        e = r["estimates"]
        assert all(x["lower"] <= e["exact"] <= x["upper"] for x in e["estimators"].values())
    assert set(est["estimators"]) == {"PRE", "CMP1", "CMPc", "CMPr", "CMPf"}
    assert set(row["pre_ms"]) == {"removed_profile_A", "removed_profile_B", "ratio"}
    total = sensitivity.totals([row, {"program": "x", "status": "not run"}])
    assert total["compared"] == 1 and total["reuse_points"]["within_18pct"] == 0
    assert total["reuse_variation"]["max"] == row["reuse_variation"]
