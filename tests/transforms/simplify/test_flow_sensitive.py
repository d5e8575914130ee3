"""simplify on registers written several times (issue #14, value numbering): each read sees the
definitions that reach it (``flow.reaching``), with the equalities of branch edges.
Checked by the expected folds on small programs, by the interpreter on every path, and by
hypothesis on random acyclic programs of multiply-written registers and branches on them."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.interp.differential import compare_modules
from pylogic.ir.model import Mov
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr
from pylogic.flow.reaching import reaching_definitions
from tests.transforms.simplify.support import simplified



def _defs(module, fn="main") -> dict:
    """Register -> the instructions writing it, in block order."""
    out: dict = {}
    for f in module.defined_functions():
        if f.name == fn:
            for b in f.blocks:
                for i in b.instrs:
                    for d in i.defs():
                        out.setdefault(d, []).append(print_instr(i))
    return out


def _identical(before, after, inputs_list):
    for inputs in inputs_list:
        check = compare_modules(before, after, [((), tuple(inputs))])
        assert check.verdict == "identical", (inputs, check)


# ---------------------------------------------------------------- reaching definitions

EDGE = """
func main() {
e:
    v = input
    c = cmp.ne v, 7
    cbr c, bad, ok
bad:
    v = mov 3
    br ok
ok:
    w = add v, 1
    print w
    ret 0
}
"""


def _reaching_at(text, site, reg):
    fn = parse_module(text, "t.pir").functions[0]
    r = reaching_definitions(fn)
    return sorted((d.kind, d.site, d.value) for d in (r.defs[i] for i in r.at(site, reg)))


def test_an_edge_equality_reaches_the_join_with_the_other_definitions():
    assert _reaching_at(EDGE, ("ok", 0), "v") == [("edge", ("e", "ok"), 7),
                                                  ("instr", ("bad", 0), None)]
    # on the true edge of cmp.ne nothing is known of v; c is 1 there
    fn = parse_module(EDGE, "t.pir").functions[0]
    r = reaching_definitions(fn)
    edge_defs = sorted((d.reg, d.site, d.value) for d in r.defs if d.kind == "edge")
    assert edge_defs == [("c", ("e", "bad"), 1), ("c", ("e", "ok"), 0), ("v", ("e", "ok"), 7)]


NO_EQUALITY = """
func main() {
e:
    v = input
    c = cmp.eq v, 7
    v = input
    cbr c, same, other
same:
    w = add v, 1
    print w
    ret 0
other:
    ret 1
}
"""

GUARDED_AND_SIDE_EXIT = """
func main() {
e:
    x = mov 3
    a = input
    p:ut = pcmp.gt a, 0
    (p) x = mov 4
    (p) br out
    x = mov 5
    br out
out:
    y = add x, 1
    print y
    ret 0
}
"""


def test_no_equality_when_the_compared_register_is_written_before_the_branch():
    assert [k for k, _, _ in _reaching_at(NO_EQUALITY, ("same", 0), "v")] == ["instr"]


def test_a_guarded_write_does_not_kill_and_a_side_exit_passes_its_state():
    got = _reaching_at(GUARDED_AND_SIDE_EXIT, ("out", 0), "x")
    assert got == [("instr", ("e", 0), None), ("instr", ("e", 3), None),
                   ("instr", ("e", 5), None)]


# ---------------------------------------------------------------- folds

TEMPORARY = """
func main() {
e:
    t = mov 5
    a = add t, 1
    print a
    t = mov 7
    b = add t, 1
    print b
    ret 0
}
"""


def test_a_register_written_twice_folds_at_each_read():
    before, after = simplified(TEMPORARY)
    d = _defs(after)
    assert d["a"] == ["a = mov 6"] and d["b"] == ["b = mov 8"]
    _identical(before, after, [()])


def test_the_equality_of_a_branch_edge_folds_what_it_dominates():
    before, after = simplified(EDGE)
    # at ok, v is 7 (edge) or 3 (bad): known bits 0b?11, so w = v + 1 is not one constant
    assert d_kept(after, "w")
    text = EDGE.replace("    v = mov 3\n", "    v = mov 7\n")
    before, after = simplified(text)
    assert _defs(after)["w"] == ["w = mov 8"]
    _identical(before, after, [(v,) for v in (7, 3, 0, -1)])


def d_kept(module, reg):
    return not any(i.startswith(f"{reg} = mov") for i in _defs(module)[reg])


ONLY_EDGE = """
func main() {
e:
    x = input
    v = mov x
    c = cmp.eq v, 40
    cbr c, yes, no
yes:
    a = shl x, 1
    b = add v, 2
    print a
    print b
    ret 0
no:
    n = add v, 2
    print n
    ret 1
}
"""


def test_the_register_copied_into_the_compared_one_is_equal_too():
    before, after = simplified(ONLY_EDGE)
    d = _defs(after)
    assert d["a"] == ["a = mov 80"] and d["b"] == ["b = mov 42"]
    assert d_kept(after, "n")         # the false edge of cmp.eq says nothing of v
    _identical(before, after, [(v,) for v in (40, 41, 0, -40)])


def test_no_fold_when_the_compared_register_changes_before_the_branch():
    before, after = simplified(NO_EQUALITY)
    assert d_kept(after, "w")
    _identical(before, after, [(7, 7), (7, 8), (8, 7), (0, 0)])


LOOP = """
func main() {
e:
    f = mov 0
    br head
head:
    c = cmp.lt f, 3
    cbr c, body, done
body:
    z = cmp.ne f, 0
    cbr z, done, next
next:
    g = add f, 1
    f = mov g
    br head
done:
    print f
    ret 0
}
"""


def test_a_loop_counter_reset_on_the_only_continuing_edge_is_0_or_1():
    """pr58640's shape: the loop continues only when f == 0, so f is 0 or 1 at the header and
    ``cmp.lt f, 3`` is 1 (GVN: equality propagation, then the compare of a phi of constants)."""
    before, after = simplified(LOOP)
    d = _defs(after)
    assert d["g"] == ["g = mov 1"] and d["c"] == ["c = mov 1"]
    _identical(before, after, [()])


# ---------------------------------------------------------------- random programs

REGS = ("r0", "r1", "r2")
KS = (0, 1, 3, 7, -1)


@st.composite
def programs(draw):
    """Acyclic programs: blocks b0..bn, each a few writes of r0..r2 (constants, inputs, add/and/
    shl of registers and constants, copies, writes under a predicate, side exits), ending in a
    branch forward on ``cmp.eq/ne`` of a register and a constant (or on a register itself), the
    last block printing every register."""
    n = draw(st.integers(2, 5))
    blocks = []
    for k in range(n):
        lines = []
        for _ in range(draw(st.integers(0, 4))):
            d = draw(st.sampled_from(REGS))
            kind = draw(st.sampled_from(("mov", "input", "op", "copy", "guarded", "exit")))
            if kind == "guarded":
                lines.append(f"p:ut = pcmp.gt {draw(st.sampled_from(REGS))}, 0")
                lines.append(f"(p) {d} = mov {draw(st.sampled_from(KS))}")
            elif kind == "exit" and k < n - 1:
                lines.append(f"p:ut = pcmp.eq {draw(st.sampled_from(REGS))}, 1")
                lines.append(f"(p) br b{draw(st.integers(k + 1, n - 1))}")
            elif kind == "mov":
                lines.append(f"{d} = mov {draw(st.sampled_from(KS))}")
            elif kind == "input":
                lines.append(f"{d} = input")
            elif kind == "copy":
                lines.append(f"{d} = mov {draw(st.sampled_from(REGS))}")
            else:
                op = draw(st.sampled_from(("add", "and", "shl", "xor", "sub")))
                lines.append(f"{d} = {op} {draw(st.sampled_from(REGS))}, "
                             f"{draw(st.sampled_from(KS))}")
        if k == n - 1:
            lines += [f"print {r}" for r in REGS] + ["ret 0"]
        else:
            t = draw(st.integers(k + 1, n - 1))
            f = draw(st.integers(k + 1, n - 1))
            r = draw(st.sampled_from(REGS))
            rel = draw(st.sampled_from(("eq", "ne", "none")))
            if rel == "none":
                lines.append(f"cbr {r}, b{t}, b{f}")
            else:
                lines.append(f"c = cmp.{rel} {r}, {draw(st.sampled_from(KS))}")
                lines.append(f"cbr c, b{t}, b{f}")
        blocks.append(f"b{k}:\n" + "\n".join(f"    {x}" for x in lines))
    return "func main() {\n" + "\n".join(blocks) + "\n}\n"


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(programs(), st.lists(st.sampled_from(KS + (2, 8)), min_size=12, max_size=12))
def test_random_programs_stay_identical(text, inputs):
    before, after = simplified(text)
    _identical(before, after, [inputs])


COPIES = """
func main() {
e:
    x = input
    y = input
    n = xor x, -1
    t = mov n
    a = xor t, -1
    print a
    u = mov x
    s = add u, y
    u = mov y
    d = sub s, u
    print d
    ret 0
}
"""


def test_rules_follow_a_reaching_copy_of_a_stable_value_and_no_other():
    """``t``'s one reaching definition copies the SSA value n, so ``xor t, -1`` is ``xor (xor x,
    -1), -1`` = x; ``s - u`` is not ``(u + y) - u``: u was written again after s read it."""
    before, after = simplified(COPIES)
    d = _defs(after)
    assert d["a"] == ["a = mov x"]
    assert d["d"] == ["d = sub s, u"]
    _identical(before, after, [(3, 5), (-1, 0), (0, 7)])


DECIDED = """
func main() {
e:
    x = input
    c = mov 1
    cbr c, yes, no
yes:
    x = mov 4
    br join
no:
    x = mov 5
    br join
join:
    y = and x, 7
    print y
    ret 0
}
"""


def test_a_branch_on_a_register_just_set_to_a_constant_goes_one_way():
    before, after = simplified(DECIDED)
    assert _defs(after)["y"] == ["y = mov 4"]
    _identical(before, after, [(3,)])
