"""benchmarks/gvn_wins.py: which programs count as LLVM ahead (fewer instructions, or fewer
without ``mov``), and the totals over the programs where both versions are identical."""
from __future__ import annotations

from benchmarks.gvn_wins import classify, llvm_ahead

OURS, LLVM = "ours:p", "opt:q"


def _record(name, ours, llvm, verdict="identical"):
    def v(label, counts):
        return {"pipeline": label, "verdict": verdict, "instructions": counts[0],
                "instructions_without_moves": counts[1]}
    return {"program": name, "kind": "real",
            "versions": [{"pipeline": "original", "verdict": "reference"}, v(OURS, ours),
                         v(LLVM, llvm)]}


def test_llvm_is_ahead_with_or_without_moves():
    assert llvm_ahead(_record("a", (100, 90), (120, 95)), OURS, LLVM) is None
    fewer_nomov = llvm_ahead(_record("b", (100, 90), (120, 80)), OURS, LLVM)
    assert fewer_nomov["llvm_fewer_without_moves"] and not fewer_nomov["llvm_fewer"]
    assert llvm_ahead(_record("c", (100, 90), (99, 95)), OURS, LLVM)["llvm_fewer"]
    # a version that did not behave like the original is no comparison
    assert llvm_ahead(_record("d", (100, 90), (50, 40), "different"), OURS, LLVM) is None


def test_totals_cover_every_identical_program():
    records = [_record("a", (100, 90), (120, 95)), _record("b", (7, 7), (7, 7)),
               _record("c", (5, 5), (1, 1), "not compared")]
    [(pair, out)] = classify(records, [(OURS, LLVM)]).items()
    assert out["programs_compared"] == 2 and out["per_program"] == []
    assert out["totals"] == {"ours": 107, "llvm": 127, "ours_without_moves": 97,
                             "llvm_without_moves": 102, "llvm_fewer": 0, "equal": 1,
                             "llvm_more": 1}
