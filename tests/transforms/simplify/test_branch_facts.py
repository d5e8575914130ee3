"""Compares decided by a dominating branch on the same operands (``transforms.branch_facts``,
GVN's propagateEquality of branch conditions): the truth table checked against the interpreter's
compares on every pair of i8 values, the folds on small programs, and the cases it must leave
alone (a join, a register written twice), checked by the interpreter on every path."""
from __future__ import annotations

import itertools

import pytest

from pylogic.interp.differential import compare_modules
from pylogic.ir.printer import print_instr
from pylogic.transforms.branch_facts import decide
from pylogic.transforms.lattice import apply
from tests.transforms.simplify.support import simplify_result

RELS = ("eq", "ne", "lt", "le", "gt", "ge", "ltu", "leu", "gtu", "geu")
I8 = range(-128, 128)


@pytest.mark.slow
def test_decide_agrees_with_the_interpreter_on_every_i8_pair():
    # what the interpreter's compares say of each pair of i8 values, once per distinct outcome
    outcomes = {tuple(apply(rel, a, b) for rel in RELS) for a in I8 for b in I8}
    index = {rel: k for k, rel in enumerate(RELS)}
    for fact_rel, value, swapped, rel in itertools.product(RELS, (0, 1), (False, True), RELS):
        got = decide(fact_rel, value, swapped, rel)
        seen = set()
        for row in outcomes:
            if row[index[fact_rel]] != value:
                continue
            # y REL x is the swapped relation of x, y: look it up by the mirrored row
            if swapped:
                mirrored = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt",
                            "ge": "le", "ltu": "gtu", "leu": "geu", "gtu": "ltu", "geu": "leu"}
                seen.add(row[index[mirrored[rel]]])
            else:
                seen.add(row[index[rel]])
        if got is not None:
            assert seen == {got}, (fact_rel, value, swapped, rel)
        else:
            assert len(seen) == 2, (fact_rel, value, swapped, rel)   # as precise as can be


def simplified(text: str):
    module, result = simplify_result(text)
    d = {i.defs()[0]: print_instr(i) for f in result.module.defined_functions()
         for b in f.blocks for i in b.instrs if i.defs()}
    return module, result.module, d


def _identical(before, after, args_list):
    for args in args_list:
        check = compare_modules(before, after, [(tuple(args), ())])
        assert check.verdict == "identical", (args, check)


PAIRS = [(x, y) for x in (-2, 0, 3) for y in (-2, 0, 3)]

COMPOSITE = """
func main(x, y) {
e:
    c = cmp.lt x, y
    cbr c, t, f
t:
    d = cmp.gt x, y
    g = cmp.gt y, x
    h = cmp.ltu x, y
    print d
    print g
    print h
    ret 0
f:
    k = cmp.ge x, y
    print k
    ret 1
}
"""


def test_a_branch_decides_the_compares_it_implies_and_no_other():
    before, after, d = simplified(COMPOSITE)
    assert d["d"] == "d = mov 0" and d["g"] == "g = mov 1" and d["k"] == "k = mov 1"
    assert "cmp.ltu" in d["h"]          # signed order says nothing of the unsigned one
    _identical(before, after, PAIRS)


JOIN = """
func main(x, y) {
e:
    c = cmp.eq x, y
    cbr c, t, j
t:
    br j
j:
    d = cmp.ne x, y
    print d
    ret 0
}
"""

REWRITTEN = """
func main(x, y) {
e:
    z = mov x
    c = cmp.eq z, y
    cbr c, t, f
t:
    z = add z, 1
    d = cmp.ne z, y
    print d
    ret 0
f:
    ret 1
}
"""


def test_no_decision_at_a_join_or_on_a_register_written_twice():
    for text in (JOIN, REWRITTEN):
        before, after, d = simplified(text)
        assert "cmp.ne" in d["d"]
        _identical(before, after, PAIRS)


LOOP = """
func main(n) {
e:
    i = mov 0
    br head
head:
    v = add i, 0
    c = cmp.lt v, n
    cbr c, body, out
body:
    d = cmp.ge v, n
    print d
    i = add i, 1
    br head
out:
    ret 0
}
"""


def test_an_ssa_value_redefined_in_a_loop_is_decided_per_iteration():
    """v is SSA but takes a new value each iteration; the edge into body is crossed after each
    definition, so ``cmp.ge v, n`` is 0 there."""
    before, after, d = simplified(LOOP)
    assert d["d"] == "d = mov 0"
    _identical(before, after, [(0,), (3,), (-1,)])


# A branch back to the entry is not its only way in: the function's start enters it too.
BACK_TO_ENTRY = """
func main(a, b) {
entry:
    d = cmp.lt a, b
    print d
    br B
B:
    c = cmp.lt a, b
    cbr c, entry, exit
exit:
    ret 0
}
"""


def test_an_edge_into_the_entry_is_not_its_only_way_in():
    """``cmp.lt a, b`` true on B -> entry decides nothing: the entry also runs first (with
    a >= b the program prints 0 and stops; deciding both compares to 1 looped forever)."""
    module, after, d = simplified(BACK_TO_ENTRY)
    assert d["d"] == "d = cmp.lt a, b" and d["c"] == "c = cmp.lt a, b"
    check = compare_modules(module, after, [((5, 3), ()), ((3, 3), ())], fuel=10_000)
    assert check.verdict == "identical", check
