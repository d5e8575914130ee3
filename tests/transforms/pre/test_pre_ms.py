"""PRE(MS) (issue #14 slice 4, PathFinder §6.3.2.1): the CMP region of the estimator running
example (pathfinder.md §5.4, its CFG [Inference] as the spec reconstructs it, with the load of x
written as the expression x+1 and the aliasing store as a redefinition of x), the minimum cut of
§12 item 12, and the pre-ms pipeline validated by the interpreter with its removals
ordered PRE(M) <= PRE(MS) on the profiling input (§12 item 19, first half)."""
from __future__ import annotations

import pytest

from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module
from pylogic.transforms.pre.pre_ms import speculation_cut
from pylogic.ir.synthetic_values import random_module

# §5.4 [Inference] CFG: S->A|B; A->f; f->C|h; C->j; B->g; g->h|k; h->i; i->j|k|D; k->l;
# l->k|m|D; j->m; D->m; m->E. Three-way branches are a side exit plus a cbr.
RUNNING = """func main(x, c1, c2, c3) {
S:
    cbr c1, A, B
A:
    y = add x, 1
    print y
    br f
B:
    br g
f:
    cbr c2, C, h
C:
    y = add x, 1
    print y
    br j
g:
    cbr c2, h, k
h:
    br i
i:
    p:ut = pcmp.eq c3, 0
    (p) br j
    cbr c1, k, D
k:
    br l
l:
    q:ut = pcmp.eq c3, 1
    (q) br k
    cbr c2, m, D
j:
    br m
D:
    x = add x, 5
    br m
m:
    br E
E:
    y = add x, 1
    print y
    ret 0
}
"""


def test_running_example_cmp_region_entries_and_exits():
    """§12 item 11 (CMP part): CMP = {h, i, k, l}; entries (f,h) Must, (g,h), (g,k) No; exits
    (i,j), (l,m) Must, (i,D), (l,D) No; m is May-available and Must-anticipated, not in it."""
    rows = module_rows(parse_module(RUNNING), "t.pir", engine="clingo", relations=[
        "pre_prevented", "pre_cmp_entry", "pre_cmp_exit", "pre_avail_in", "pre_antic_in"]
                       ).function("main")
    assert {b for b, e in rows["pre_prevented"]} == {"h", "i", "k", "l"}
    assert {(a, b, k) for a, b, _, k in rows["pre_cmp_entry"]} == {
        ("f", "h", "must"), ("g", "h", "no"), ("g", "k", "no")}
    assert {(a, b, k) for a, b, _, k in rows["pre_cmp_exit"]} == {
        ("i", "j", "must"), ("l", "m", "must"), ("i", "D", "no"), ("l", "D", "no")}
    assert ("m", "add(1,x)", "may") in set(rows["pre_avail_in"])
    assert ("m", "add(1,x)", "must") in set(rows["pre_antic_in"])


INNER = {("h", "i"): 75, ("i", "k"): 5, ("k", "l"): 45, ("l", "k"): 0}
EXITS = {("i", "j"): 40, ("l", "m"): 20}


def test_min_cut_of_the_running_example():
    """§12 item 12: insert at (g,h) (min cut 30 = (g,h) 10 + exit (l,m) 20, benefit 30)."""
    value, insert, left = speculation_cut({("g", "h"): 10, ("g", "k"): 40}, INNER, EXITS)
    assert (value, insert, left) == (30, [("g", "h")], [("l", "m")])
    assert sum(EXITS.values()) - value == 30


def test_min_cut_with_reversed_availability_uses_the_inner_weak_link():
    """§12 item 12, reversed: (f,h) No -> insert on the inner edge (i,k), benefit 15."""
    value, insert, left = speculation_cut({("f", "h"): 65}, INNER, EXITS)
    assert (value, insert, left) == (45, [("i", "k")], [("i", "j")])
    assert sum(EXITS.values()) - value == 15


def test_simple_speculation_rule_fig_6_18():
    """§12 item 13: exit 100 vs No entries 10 + 100: unprofitable, nothing inserted."""
    value, insert, _ = speculation_cut({("B", "r"): 10, ("C", "r"): 100}, {}, {("r", "Y"): 100})
    assert (value, insert) == (100, [])


@pytest.mark.slow
def test_pre_ms_then_pre_m_on_generated_programs_keeps_behaviour_and_orders_removals():
    """On 120 generated programs, each profiled on the input it is measured on: identical
    output, and evaluations after pre-ms <= after pre-m (item 19, PRE(M) <= PRE(MS))."""
    module = random_module(range(1000, 1120))
    args = (1, 2, 3, 4, 5)
    profile = {}
    for fn in module.defined_functions():
        profile.update(run_module(module, fn.name, args).edge_profile)
    speculated = motion = 0
    m_result = optimize(module, ["pre-m"], "gen.pir", engine="clingo").module
    ms = optimize(module, ["pre-ms"], "gen.pir", engine="clingo",
                  options={"pre-ms": {"profile": profile}})
    ms_result = ms.module
    assert verify_module(ms_result) == []
    for fn in module.defined_functions():
        check = compare_modules(module, ms_result, [(args, ())], entry=fn.name)
        assert check.verdict == "identical", (fn.name, check.first_difference)
        before = expression_evaluations(module, run_module(module, fn.name, args))
        after_m = expression_evaluations(m_result, run_module(m_result, fn.name, args))
        after_ms = expression_evaluations(ms_result, run_module(ms_result, fn.name, args))
        total = lambda c: c["expressions"] + c["loads"]  # noqa: E731
        assert total(after_ms) <= total(after_m) <= total(before), fn.name
        speculated += total(after_m) - total(after_ms)
        motion += total(before) - total(after_m)
    assert motion > 0
    assert ms.passes[0].record.totals()["inserted"] > 0      # the speculation step did act


def test_while_do_invariant_is_speculated_when_the_loop_runs():
    """§12 item 17: in the while-do loop motion is blocked (test_pre_m.py); with a profile
    where the body runs 5 times per entry, PRE(MS) computes a+b before the loop: once."""
    from tests.transforms.pre.test_pre_m import WHILE_DO
    module = parse_module(WHILE_DO)
    result = optimize(module, ["pre-ms"], "t.pir", engine="clingo",
                      options={"pre-ms": {"args": (1, 2, 5)}})
    assert result.passes[0].record.totals() == {"expressions": 1, "inserted": 1, "benefit": 4}
    assert compare_modules(module, result.module, [((1, 2, 5), ()), ((1, 2, 0), ())]
                           ).verdict == "identical"
    count = lambda m: expression_evaluations(m, run_module(m, args=(1, 2, 5)))["expressions"]  # noqa: E731
    assert count(module) - count(result.module) == 4          # 5 evaluations of a+b -> 1


def test_optimize_with_validation_profiles_pre_ms_on_the_first_case(tmp_path):
    """``pathlogic optimize F --passes pre-ms --validate --args ... --input ...``: the
    speculation step profiles the program on the first case (else it has no profile)."""
    from pylogic.analysis.optimize import optimize_files
    from tests.transforms.pre.test_pre_mr import FIG_6_1, INPUTS
    path = tmp_path / "fig61.pir"
    path.write_text(FIG_6_1)
    _, [item] = optimize_files(path, ["pre-ms"], engine="clingo",
                               cases=[((1, 2, 3, 4), INPUTS)])
    assert item.check.verdict == "identical"
    assert item.result.passes[0].record.totals()["inserted"] > 0
