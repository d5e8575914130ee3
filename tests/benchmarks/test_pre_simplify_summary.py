"""benchmarks/pre_simplify.py on hand-made run records: totals over the programs where every
version is identical, the programs where simplify,pre-mr,pre-m is not behind gvn, the gaps."""
from __future__ import annotations

from benchmarks.pre_simplify import GVN, OURS, SIMPLIFIED, compare


def _record(name, verdicts=None, **counts):
    verdicts = verdicts or {}
    return {"program": name, "kind": "torture", "versions": [
        {"pipeline": k, "verdict": verdicts.get(k, "identical"), "expression_evaluations": x,
         "load_evaluations": l} for k, (x, l) in counts.items()]}


def test_totals_and_gaps_count_only_programs_identical_everywhere():
    keys = ("original", OURS, SIMPLIFIED, GVN)
    a = _record("a.c", **dict(zip(keys, ((10, 5), (9, 5), (6, 5), (7, 5)))))
    b = _record("b.c", **dict(zip(keys, ((20, 2), (18, 2), (17, 2), (15, 1)))))
    c = _record("c.c", {SIMPLIFIED: "different"}, **dict(zip(keys, ((9, 9),) * 4)))
    r = compare([a, b, c], keys)
    assert r["programs"] == 2 and r["not_behind_gvn"] == 1
    assert r["totals"] == {"original": 37, OURS: 34, SIMPLIFIED: 30, GVN: 28}
    assert [(x["program"], x["gap"]) for x in r["behind"]] == [("b.c", 3)]
