"""simplify's known bits over executable blocks only (SCCP's executable edges; GVN's
processFoldableCondBr): a definition behind a branch the known bits decide never runs, so it joins
nothing. Each program is checked on the interpreter for every argument it branches on."""
from __future__ import annotations

from pylogic.interp.differential import compare_modules
from pylogic.ir.printer import print_instr
from tests.transforms.simplify.support import simplified



def _defs(module) -> dict:
    return {i.defs()[0]: i for f in module.defined_functions() for b in f.blocks
            for i in b.instrs if i.defs()}


CONSTANT_BRANCH = """
func main(a) {
entry:
    k = and a, 7
    c = cmp.gtu k, 9
    cbr c, l, r
l:
    x = mov a
    br j
r:
    x = mov 2
    br j
j:
    y = cmp.ne x, 2
    print y
    print x
    ret 0
}
"""


def test_a_phi_behind_a_decided_branch_is_the_value_of_the_taken_edge():
    """``k <= 7`` so ``c`` is 0 and ``l`` never runs: ``x`` is 2 on every executed path."""
    before, after = simplified(CONSTANT_BRANCH)
    d = _defs(after)
    assert print_instr(d["c"]) == "c = mov 0"
    assert print_instr(d["y"]) == "y = mov 0"
    for a in (-9, 0, 5, 9, 1 << 40):
        assert compare_modules(before, after, [((a,), ())]).verdict == "identical"


LATE_EDGE = """
func main(n) {
entry:
    i = mov 0
    x = mov 1
    br head
head:
    c = cmp.eq i, 0
    cbr c, first, later
first:
    x = mov 1
    br next
later:
    x = mov 3
    br next
next:
    y = cmp.eq x, 1
    print y
    i = add i, 1
    d = cmp.lt i, n
    cbr d, head, done
done:
    ret 0
}
"""


def test_an_edge_found_executable_later_in_the_fixpoint_is_followed():
    """At first ``i`` is 0 and only ``first`` looks executable; once ``i = add i, 1`` joins in,
    ``later`` is reached and ``x`` may be 3: ``cmp.eq x, 1`` must stay."""
    before, after = simplified(LATE_EDGE)
    assert "cmp.eq" in print_instr(_defs(after)["y"])
    for n in (0, 1, 2, 5):
        assert compare_modules(before, after, [((n,), ())]).verdict == "identical"


UNWRITTEN_CONDITION = """
func main(a) {
entry:
    cbr a, l, r
l:
    z = mov 1
    br j
r:
    br j
j:
    cbr z, yes, no
yes:
    x = mov 5
    br out
no:
    x = mov 6
    br out
out:
    y = cmp.eq x, 5
    print y
    ret 0
}
"""


def test_a_condition_read_before_it_is_written_on_some_path_keeps_both_edges():
    """``z`` is 0 on the path through r: both ``yes`` and ``no`` run on some input."""
    before, after = simplified(UNWRITTEN_CONDITION)
    assert "cmp.eq" in print_instr(_defs(after)["y"])
    for a in (0, 1):
        assert compare_modules(before, after, [((a,), ())]).verdict == "identical"
