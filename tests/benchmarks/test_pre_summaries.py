"""benchmarks/pre_llvm_wins.py and the code-growth summary of benchmarks/pre.py on hand-made run
records: the gap between LLVM's gvn and our pre-mr is split into the parts the single LLVM
passes measure, each within its share of the gap, and the growth of the restructuring step is
read from its own record."""
from __future__ import annotations

from benchmarks.pre import growth_summary
from benchmarks.pre_llvm_wins import (DCE, GVN, INSTSIMPLIFY, NO_AA, NO_LOAD_PRE, NO_PRE, OURS,
                                      classify, summary)


def _v(pipeline, x, l, verdict="identical", **more):
    return {"pipeline": pipeline, "verdict": verdict, "expression_evaluations": x,
            "load_evaluations": l, **more}


def _record(**counts):
    versions = [_v("original", *counts.pop("original"), verdict="reference", static_size=100)]
    versions += [_v(k, *v) for k, v in counts.items()]
    return {"program": "p.c", "kind": "csmith", "versions": versions}


def test_the_gap_is_split_by_what_each_single_pass_removes():
    r = _record(original=(100, 50), **{OURS: (90, 40), GVN: (70, 30), INSTSIMPLIFY: (88, 50),
                                       DCE: (96, 48), NO_PRE: (80, 36), NO_LOAD_PRE: (75, 36),
                                       NO_AA: (80, 37)})
    c = classify(r)
    # expression gap 20: dce 4, folds beyond dce 96-88 = 8, scalar PRE 80-75 = 5, rest 3;
    # load gap 10: dead loads 2, load PRE 36-30 = 6, alias analysis 37-36 = 1, the rest 1
    assert (c["gap"], c["expression_gap"], c["load_gap"]) == (30, 20, 10)
    assert (c["dead_code"], c["simplification"], c["scalar_pre"], c["value_numbering"]) == (4, 8, 5, 3)
    assert (c["dead_loads"], c["load_pre"], c["alias_analysis"], c["memory_dependence"]) == (
        2, 6, 1, 1)
    assert c["cause"] == "simplification"


def test_parts_never_exceed_the_gap_and_ties_or_our_wins_are_not_classified():
    r = _record(original=(100, 50), **{OURS: (90, 40), GVN: (88, 40), INSTSIMPLIFY: (50, 50),
                                       NO_PRE: (88, 40), NO_LOAD_PRE: (88, 40)})
    c = classify(r)
    assert c["simplification"] == 2 and c["gap"] == 2 and c["memory_dependence"] == 0
    even = _record(original=(100, 50), **{OURS: (90, 40), GVN: (95, 40), INSTSIMPLIFY: (90, 50),
                                          NO_PRE: (95, 40), NO_LOAD_PRE: (95, 40)})
    assert classify(even) is None
    s = summary([r, even])
    assert s["programs"] == {"llvm fewer": 1, "ours fewer": 1} and s["by_cause"] == {
        "simplification": 1}
    different = _record(original=(100, 50), **{OURS: (90, 40), GVN: (80, 40)})
    different["versions"][1]["verdict"] = "different"
    assert summary([different])["programs"] == {}


def test_growth_is_read_from_the_restructuring_record():
    r = _record(original=(1, 1), **{"ours:pre-mr,pre-m": (1, 1), "ours:pre-r,pre-m": (1, 1)})
    vs = {v["pipeline"]: v for v in r["versions"]}
    vs["ours:pre-mr,pre-m"]["passes"] = [{"size_before": 40, "size_after": 73,
                                          "irreducible_fixed": 1, "irreducible_left": 0}, {}]
    vs["ours:pre-r,pre-m"]["passes"] = [{"size_before": 60, "size_after": 140}, {}]
    g = growth_summary([r])
    assert g["ours:pre-mr,pre-m"]["growth_percent"] == 33.0
    assert g["ours:pre-mr,pre-m"]["loops_made_single_entry"] == 1
    assert g["ours:pre-r,pre-m"]["growth_percent"] == 80.0
    assert g["ours:pre-r,pre-m"]["thesis_percent"] == 80.0
