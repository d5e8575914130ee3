"""PRE(MR) and PRE(Mr) (issue #14 slice 4, PathFinder §6.3.1.1, §6.3.2.2): restructuring of the
CMP region (Fig. 6.10) followed by pre-m; on the Fig. 6.1 loop [Inference: CFG rebuilt from the
code], the while-do loop, and generated programs, where the identities of §12 item 18 (no node
Prevented after restructuring; no user left partially redundant) and the ordering of item 19
(PRE(M) <= PRE(MS) <= PRE(MR) removals on the profiling input) are checked."""
from __future__ import annotations

import pytest

from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module
from pylogic.ir.synthetic_values import random_module
from tests.transforms.pre.test_pre_m import WHILE_DO

# Fig. 6.1: while (true) { if (O) c+d else if (P) break; if (Q) c+d else { R; S; a+b } }
# [Inference] O, P, Q read inputs; the loop runs until P breaks.
FIG_6_1 = """func main(a, b, c, d) {
En:
    br O
O:
    o = input
    cbr o, CD1, P
CD1:
    x = add c, d
    print x
    br Q
P:
    p = input
    cbr p, Ex, Q
Q:
    q = input
    cbr q, CD2, R
CD2:
    y = add c, d
    print y
    br O
R:
    br S
S:
    z = add a, b
    print z
    br O
Ex:
    ret 0
}
"""
INPUTS = (0, 0, 0) * 4 + (1, 1) + (0, 1)   # 4 x (O P Q false: a+b), O Q true (c+d twice), exit


def evaluations(module, args=(), inputs=()):
    return expression_evaluations(module, run_module(module, args=args, inputs=inputs))[
        "expressions"]


def test_fig_6_1_motion_does_not_hoist_a_plus_b_restructuring_does():
    """§12 item 16: PRE(M) leaves a+b in the loop (the path En,O,P,Ex would be impaired);
    PRE(MR) splits the CMP region and reuses a+b around the loop."""
    module = parse_module(FIG_6_1)
    args, case = (1, 2, 3, 4), [((1, 2, 3, 4), INPUTS)]
    m = optimize(module, ["pre-m"], "t.pir", engine="clingo").module
    mr = optimize(module, ["pre-mr"], "t.pir", engine="clingo")
    for new in (m, mr.module):
        assert verify_module(new) == []
        assert compare_modules(module, new, case).verdict == "identical"
    rows = module_rows(module, "t.pir", relations=["pre_prevented"], engine="clingo")
    prevented = {(b, e) for b, e in rows.function("main")["pre_prevented"]}
    assert ("O", "add(a,b)") in prevented and ("P", "add(a,b)") in prevented
    before, after_m, after_mr = (evaluations(x, args, INPUTS) for x in (module, m, mr.module))
    assert before == 6 and before >= after_m > after_mr
    assert mr.passes[0].record.totals()["blocks_after"] > mr.passes[0].record.totals()[
        "blocks_before"]


def test_while_do_restructured_into_a_do_until():
    """§12 item 17: PRE(MR) duplicates the loop test (minimal do-until conversion)."""
    module = parse_module(WHILE_DO)
    new = optimize(module, ["pre-mr"], "t.pir", engine="clingo").module
    assert compare_modules(module, new, [((1, 2, 5), ()), ((1, 2, 0), ())]).verdict == "identical"
    assert evaluations(module, (1, 2, 5)) - evaluations(new, (1, 2, 5)) == 4


@pytest.mark.slow
def test_identities_and_ordering_on_generated_programs():
    """Item 18: after pre-mr no block is Prevented (where no cap was reached) and M-availability
    equals availability, so pre-m leaves no partial redundancy (Theorem 6.1); item 19: evaluations PRE(MR) <=
    PRE(MS) <= PRE(M) on the profiling input; every version identical."""
    module = random_module(range(2000, 2300))
    args = (1, 2, 3, 4, 5)
    profile = {}
    for fn in module.defined_functions():
        profile.update(run_module(module, fn.name, args).edge_profile)
    m = optimize(module, ["pre-m"], "g.pir", engine="clingo").module
    ms = optimize(module, ["pre-ms"], "g.pir", engine="clingo",
                  options={"pre-ms": {"profile": profile}}).module
    mr_run = optimize(module, ["pre-mr"], "g.pir", engine="clingo")
    assert [p.name for p in mr_run.passes] == ["pre-mr-split", "pre-m"]
    restructured = mr_run.passes[0].module              # pre-mr-split's output, run once
    mr = mr_run.module
    skipped = {a.function for a in mr_run.passes[0].record.applied if a.skipped}
    rows = module_rows(restructured, "g.pir", engine="clingo",
                       relations=["pre_prevented", "pre_avail_in", "pre_m_avail_in"])
    split = 0
    for fn in module.defined_functions():
        if fn.name not in skipped:
            view = rows.function(fn.name)
            assert view["pre_prevented"] == [], fn.name
            # all reuse is removable by motion now (§6.3.1.2): AVAIL^M = AVAIL everywhere
            assert set(view["pre_m_avail_in"]) == set(view["pre_avail_in"]), fn.name
        total = {}
        for label, version in (("orig", module), ("m", m), ("ms", ms), ("mr", mr)):
            check = compare_modules(module, version, [(args, ())], entry=fn.name)
            assert check.verdict == "identical", (label, fn.name, check.first_difference)
            c = expression_evaluations(version, run_module(version, fn.name, args))
            total[label] = c["expressions"] + c["loads"]
        assert total["mr"] <= total["m"] <= total["orig"], (fn.name, total)
        assert total["mr"] <= total["ms"] <= total["m"], (fn.name, total)
        split += total["mr"] < total["m"]
    assert split >= 10
