"""simplify's equalities of branch edges (GVN's propagateEquality): in the blocks a ``cbr``
edge dominates (its target has no other way in), the condition is 1 (0) and ``cmp.eq x, C``'s x
(``cmp.ne`` on the false edge) is C. Checked on the interpreter for every argument the programs
branch on; a side exit or a second predecessor into the target keeps everything."""
from __future__ import annotations

from pylogic.interp.differential import compare_modules
from pylogic.ir.printer import print_instr
from tests.transforms.simplify.support import simplified



def _defs(module) -> dict:
    return {i.defs()[0]: i for f in module.defined_functions() for b in f.blocks
            for i in b.instrs if i.defs()}


EQUAL = """
func main(a) {
entry:
    x = add a, 1
    c = cmp.ne x, 7
    cbr c, other, seven
seven:
    y = mul x, 3
    d = cmp.ne x, 7
    print y
    print d
    br out
other:
    z = mul x, 3
    e = xor c, 5
    print z
    print e
    br out
out:
    w = cmp.eq x, 7
    print w
    ret 0
}
"""


def test_the_edge_fixes_the_compared_register_and_the_condition_where_it_dominates():
    before, after = simplified(EQUAL)
    d = _defs(after)
    assert print_instr(d["y"]) == "y = mov 21" and print_instr(d["d"]) == "d = mov 0"
    assert print_instr(d["e"]) == "e = mov 4"            # the condition on its true edge
    assert "mul" in print_instr(d["z"])                 # x is not 7 there: nothing to fold
    assert "cmp.eq" in print_instr(d["w"])              # out has two ways in
    for a in (-1, 5, 6, 7, 1 << 40):
        assert compare_modules(before, after, [((a,), ())]).verdict == "identical"


SIDE_EXIT = """
func main(a, b) {
entry:
    x = add a, 1
    p:ut = pcmp.gt b, 0
    (p) br seven
    c = cmp.eq x, 7
    cbr c, seven, out
seven:
    y = mul x, 3
    print y
    br out
out:
    ret 0
}
"""


def test_a_side_exit_into_the_target_is_another_way_in():
    before, after = simplified(SIDE_EXIT)
    assert "mul" in print_instr(_defs(after)["y"])
    for a, b in ((6, 0), (6, 1), (2, 1), (2, 0)):
        assert compare_modules(before, after, [((a, b), ())]).verdict == "identical"


NOT_BOOLEAN = """
func main(a) {
entry:
    x = and a, 6
    cbr x, some, zero
some:
    y = add x, 1
    print y
    br out
zero:
    z = add x, 1
    w = mov x
    print z
    print w
    br out
out:
    ret 0
}
"""


def test_a_condition_that_is_not_0_or_1_is_only_fixed_on_its_false_edge():
    """On the true edge x is 2, 4 or 6, not 1; on the false edge it is 0 (copies too)."""
    before, after = simplified(NOT_BOOLEAN)
    d = _defs(after)
    assert "add" in print_instr(d["y"])
    assert print_instr(d["z"]) == "z = mov 1" and print_instr(d["w"]) == "w = mov 0"
    for a in range(-8, 9):
        assert compare_modules(before, after, [((a,), ())]).verdict == "identical"
