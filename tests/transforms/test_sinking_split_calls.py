"""Sinking passes (pde, ppde, ppde-keep) on modules with exit splitting (README "PIR extensions",
what icbe writes): a split call's continuations are CFG edges. Before they were, pde saw J below
with the single predecessor A, sank A's ``x = add s, 5`` into J, and the path B -> J printed 6
instead of 100 (found by reading the passes' private target lists against ``branch_targets``)."""
from __future__ import annotations

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module

SPLIT = """func f(a) {
entry:
    t = cmp.lt a, 0
    cbr t, neg, pos
neg:
    ret.1 0
pos:
    ret a
}
func main() {
entry:
    s = input
    c = cmp.eq s, 0
    cbr c, A, B
A:
    x = add s, 5
    k = input
    c2 = cmp.eq k, 0
    cbr c2, J, K
B:
    x = add s, 99
    r = call f(s) to J, K
J:
    print x
    ret 0
K:
    print 7
    ret 1
}
"""
# every path: A then J, A then K, B then J (f returns through exit 0), B then K (exit 1)
CASES = [((), (0, 0)), ((), (0, 1)), ((), (1,)), ((), (-1,))]


@pytest.mark.parametrize("passes", [["pde"], ["ppde"], ["ppde-keep"]])
def test_sinking_respects_split_call_continuations(passes):
    module = parse_module(SPLIT)
    new = optimize(module, passes).module
    result = compare_modules(module, new, CASES)
    assert [c.verdict for c in result.comparisons] == ["identical"] * len(CASES), \
        [c.detail for c in result.comparisons]
