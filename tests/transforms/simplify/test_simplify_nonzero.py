"""simplify's non-zero facts (``flow.nonzero``; LLVM's isKnownNonZero as GVN uses it):
a dereferenced pointer, a global's or an ``alloca``'s address compare unequal to 0, and
``div x, x`` is 1 where x is non-zero on a branch edge. Checked on the interpreter for every
argument the programs branch on; the cases the facts do not cover keep their instruction (a
zero divisor is a run-time error left to happen)."""
from __future__ import annotations

from pylogic.interp.differential import compare_modules
from pylogic.ir.printer import print_instr
from tests.transforms.simplify.support import simplified



def _defs(module) -> dict:
    return {(f.name, i.defs()[0]): print_instr(i) for f in module.defined_functions()
            for b in f.blocks for i in b.instrs if i.defs()}


def _same_runs(before, after, args) -> None:
    for a in args:
        assert compare_modules(before, after, [(a, ())]).verdict == "identical", a


DIVIDE = """
func main(a:s32, b) {
entry:
    c = cmp.eq a, 0
    cbr c, zero, nonzero
nonzero:
    t1 = and a, 4294967295
    t2 = and a, 4294967295
    q = div t1, t2
    r = rem t1, t2
    u1 = and b, 4294967295
    v = cmp.ne b, 0
    print q
    print r
    cbr v, b_nonzero, out
b_nonzero:
    w = div b, b
    u2 = and b, 4294967295
    y = div u1, u2
    print w
    print y
    br out
zero:
    z = div a, a
    print z
    br out
out:
    k = div a, a
    print k
    ret 0
}
"""


def test_div_of_equal_values_is_one_only_where_the_divisor_is_non_zero():
    before, after = simplified(DIVIDE)
    d = _defs(after)
    assert d["main", "q"] == "q = mov 1" and d["main", "r"] == "r = mov 0"
    assert d["main", "w"] == "w = mov 1"     # b != 0 on the true edge of cmp.ne b, 0
    # b is not typed: its low 32 bits may be 0 although b is not (b = 2**32)
    assert "div" in d["main", "y"]
    assert "div" in d["main", "z"] and "div" in d["main", "k"]   # a may be 0 there
    _same_runs(before, after, [(a, b) for a in (-3, 1, 7, -(1 << 31)) for b in (-1, 0, 5)])
    # a = 0 faults at z, b = 2**32 at y, on both sides (a zero divisor is left to happen)
    for args in ((0, 3), (1, 1 << 32)):
        assert compare_modules(before, after, [(args, ())]).verdict == "not compared"


POINTERS = """
global g[8]

func f(p, n) {
entry:
    v = load p
    c = cmp.eq p, 0
    d = cmp.ne 0, p
    q = mov p
    store q, n
    q = add q, n
    e = cmp.eq q, 0
    w:ut = pcmp.gt n, 100
    (w) store p, 1
    s = alloca 4
    h = cmp.eq s, 0
    print c
    print d
    print e
    print h
    br loop
loop:
    x = load.1 q
    i = cmp.eq x, 0
    cbr i, done, next
next:
    j = cmp.eq q, 0
    print j
    q = add q, -1
    k = cmp.eq q, 0
    print k
    br done
done:
    ret v
}

func main(a) {
entry:
    n = and a, 7
    m = call f(g, n)
    gz = cmp.ne g, 0
    print gz
    ret m
}
"""


def test_dereferenced_pointers_global_and_alloca_addresses_are_not_zero():
    before, after = simplified(POINTERS)
    d = _defs(after)
    assert d["f", "c"] == "c = mov 0" and d["f", "d"] == "d = mov 1"
    assert d["f", "h"] == "h = mov 0" and d["main", "gz"] == "gz = mov 1"
    assert "cmp" in d["f", "e"]          # q written after its dereference
    assert d["f", "j"] == "j = mov 0"    # q dereferenced in loop, next's only way in
    assert "cmp" in d["f", "k"]          # q written since
    # n = 0 leaves q in bounds; other n move it past g's 8 bytes: both sides fault alike
    _same_runs(before, after, [(0,), (8,)])
    assert compare_modules(before, after, [((3,), ())]).verdict != "different"
