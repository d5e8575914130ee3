"""Passes on modules with exit splitting (docs/pir.md "Extensions", what icbe writes): a split
call's continuations are CFG edges, for sinking (pde, ppde, ppde-keep) and for PRE's insertions
on edges. Found by reading the passes' private target lists against ``branch_targets``:

- sinking: pde saw J in SPLIT with the single predecessor A, sank A's ``x = add s, 5`` into J,
  and the path B -> J printed 6 instead of 100;
- PRE: pre-m put ``mul s, 3`` in a new block on the edge B -> J but left the call's continuation
  at J, so the new block was unreachable and B -> J printed 0 instead of 3;
- pcp-basic/pcp-full: predicated SSA ended the block at the split call with no exits, so its
  continuations looked unreachable from it: K was deleted and B -> J printed nothing instead of
  3; such a block is now analysed predicate-blind (the sccp transfer follows continuations).

Every registered pass runs on both programs on every path."""
from __future__ import annotations

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module
from pylogic.transforms.registry import PASSES

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
@pytest.mark.slow
def test_sinking_respects_split_call_continuations(passes):
    module = parse_module(SPLIT)
    new = optimize(module, passes).module
    result = compare_modules(module, new, CASES)
    assert [c.verdict for c in result.comparisons] == ["identical"] * len(CASES), \
        [c.detail for c in result.comparisons]


PRE = """func f(a) {
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
    y = mul s, 3
    print y
    br J
B:
    r = call f(s) to J, K
J:
    z = mul s, 3
    print z
    ret 0
K:
    print 7
    ret 1
}
"""


@pytest.mark.parametrize("passes", [["pre-m"], ["pre-mr"], ["pre-ms"], ["pre-r"]])
def test_pre_insertions_on_split_call_edges(passes):
    module = parse_module(PRE)
    new = optimize(module, passes).module
    cases = [((), (0,)), ((), (1,)), ((), (-1,))]
    result = compare_modules(module, new, cases)
    assert [c.verdict for c in result.comparisons] == ["identical"] * len(cases), \
        [c.detail for c in result.comparisons]
    if passes == ["pre-m"]:      # the partial redundancy at J is removed: A -> J evaluates once
        assert result.comparisons[0].after.counts["instructions"] < \
            result.comparisons[0].before.counts["instructions"]


@pytest.mark.parametrize("name", sorted(PASSES))
@pytest.mark.slow
def test_every_pass_keeps_split_call_programs(name):
    for text, cases in ((SPLIT, CASES), (PRE, [((), (0,)), ((), (1,)), ((), (-1,))])):
        module = parse_module(text)
        result = compare_modules(module, optimize(module, [name]).module, cases)
        assert [c.verdict for c in result.comparisons] == ["identical"] * len(cases), \
            (name, [c.detail for c in result.comparisons])
