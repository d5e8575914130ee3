"""The pre-m pass (issue #14 slice 3, PathFinder §6.3.1.2): insertion points from
datalog/pre.dl (equal to lazy code motion: test_value_flow_analysis.py), rewriting checked by
the interpreter -- same output and status -- and by counting evaluations of expressions and
loads, which never grow on any run and shrink in total."""
from __future__ import annotations

import pytest

from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_function
from pylogic.ir.verify import verify_module
from pylogic.ir.synthetic_values import random_module

DIAMOND = """func main(a, b, c) {
entry:
    cbr c, left, right
left:
    x = add a, b
    print x
    br join
right:
    br join
join:
    y = add b, a
    print y
    ret 0
}
"""
# pathfinder.md §6.1 / §12 item 17 [Inference for the CFG]: a+b in a do-until loop is hoisted
# by code motion; in the while-do loop the hoist would put it on the free path entry->exit.
DO_UNTIL = """func main(a, b, n) {
entry:
    br body
body:
    x = add a, b
    print x
    n = sub n, 1
    t = cmp.gt n, 0
    cbr t, body, exit
exit:
    ret 0
}
"""
WHILE_DO = """func main(a, b, n) {
entry:
    br head
head:
    t = cmp.gt n, 0
    cbr t, body, exit
body:
    x = add a, b
    print x
    n = sub n, 1
    br head
exit:
    ret 0
}
"""


def pre_m(text: str):
    module = parse_module(text)
    result = optimize(module, ["pre-m"], "t.pir", engine="clingo")
    assert verify_module(result.module) == []
    return module, result.module


def evaluations(module, args):
    return expression_evaluations(module, run_module(module, args=args))["expressions"]


def test_diamond_inserts_on_the_free_edge_and_reuses_at_the_join():
    module, new = pre_m(DIAMOND)
    text = print_function(new.functions[0])
    assert "right:\n    pre.t = add a, b\n    br join" in text
    assert "join:\n    print pre.t" in text       # the copies y = pre.t, x = pre.t propagated
    for c in (0, 1):
        assert compare_modules(module, new, [((3, 4, c), ())]).verdict == "identical"
        assert evaluations(new, (3, 4, c)) == 1                 # 2 -> 1 on the c path
    assert evaluations(module, (3, 4, 1)) == 2


def test_value_names_substitute_single_definitions_only_where_exact():
    from pylogic.flow.value_names import value_names
    fn = parse_module("func main(a, b) {\ne:\n u = add a, 1\n v = mul u, 2\n print v\n"
                      " s = add a, 1\n a = add a, 1\n w = mul s, 2\n print w\n ret 0\n}\n"
                      ).functions[0]
    names = value_names(fn)
    assert names["v"][0] == "mul(2,add(1,a))"        # read before a changes: exact
    assert "s" not in names and "w" in names          # s read after a changed: a leaf
    assert names["w"][0] == "mul(2,s)"


def test_values_under_different_registers_are_one_name():
    module, new = pre_m("func main(a, b) {\ne:\n t1 = mul a, 4\n x = add b, t1\n"
                        " t2 = mul a, 4\n y = add b, t2\n print x\n print y\n ret 0\n}\n")
    assert compare_modules(module, new, [((3, 5), ())]).verdict == "identical"
    assert evaluations(module, (3, 5)) == 4 and evaluations(new, (3, 5)) == 2


def test_do_until_invariant_is_hoisted_by_motion():
    module, new = pre_m(DO_UNTIL)
    assert compare_modules(module, new, [((1, 2, 5), ())]).verdict == "identical"
    # add a,b once (the loop's sub and cmp still run 5 times each)
    assert evaluations(module, (1, 2, 5)) == 15 and evaluations(new, (1, 2, 5)) == 11


def test_while_do_invariant_is_not_hoisted_by_motion():
    module, new = pre_m(WHILE_DO)
    assert compare_modules(module, new, [((1, 2, 5), ())]).verdict == "identical"
    assert evaluations(new, (1, 2, 5)) == evaluations(module, (1, 2, 5))   # motion blocked


@pytest.fixture(scope="module")
def generated():
    module = random_module(range(3000, 3150))
    return module, optimize(module, ["pre-m"], "gen.pir", engine="clingo").module


@pytest.mark.slow
def test_generated_programs_keep_their_behaviour_and_never_evaluate_more(generated):
    module, new = generated
    assert verify_module(new) == []
    before_total = after_total = 0
    for fn in module.defined_functions():
        for args in ((9, -3, 0, 7, 12345),):
            check = compare_modules(module, new, [(args, ())], entry=fn.name)
            assert check.verdict == "identical", (fn.name, check.first_difference)
            before = expression_evaluations(module, run_module(module, fn.name, args))
            after = expression_evaluations(new, run_module(new, fn.name, args))
            assert after["expressions"] <= before["expressions"], fn.name
            assert after["loads"] <= before["loads"], fn.name
            before_total += before["expressions"] + before["loads"]
            after_total += after["expressions"] + after["loads"]
    assert after_total < before_total
