"""PAS (Sias, Hwu, August) worked examples: pas.md §7 "Test cases derivable from this paper".
The CFG structure (order, dominators, loops, liveness) comes from Datalog rows (``pas_of``)."""
import sys
from itertools import product
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "predicates"))
from analysed import group_of, pas_of  # noqa: E402

from pylogic.ir.deposit_types import deposit  # noqa: E402
from pylogic.ir.model import DEPOSIT_TYPES  # noqa: E402
from pylogic.ir.parser import parse_module  # noqa: E402
from pylogic.predicates.conditions import (  # noqa: E402
    domain_bits, finite_domain_cubes, split_segments,
)
from pylogic.predicates.pas import DEPOSIT_ITE, TABLE2_AS_PRINTED, new_manager  # noqa: E402
from tests.papers.fixtures import FIG3B  # noqa: E402


def fn(text, name=None):
    m = parse_module(text, "test.pir")
    return m.function_map()[name] if name else m.functions[0]


FIG3C = """
func fig3c(r1) {
entry: !hyperblock
    p1:ut, p2:uf = pcmp.eq 0, 0
    p1:at, p2:of = pcmp.gt r1, -8
    p1:at, p2:of = pcmp.lt r1, 8
    p4:ut = pcmp.eq r1, 0
    p5:ut = pcmp.le r1, -8
    (p1) print 1
    (p4) print 2
    (p2) print 3
    (p5) print 4
    ret
}
"""
BOTH = ("family", "basic")


def truth_rows(bdd, u, g, c, o):
    out = []
    for gv, cv, ov in product((0, 1), repeat=3):
        r = bdd.let({"g": bool(gv), "c": bool(cv), "o": bool(ov)}, u)
        out.append(((gv, cv, ov), int(r == bdd.true)))
    return out


# 1. Deposit truth tables -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DEPOSIT_TYPES)
def test_1_deposit_ite_matches_table1(dtype):
    bdd = new_manager()
    bdd.declare("g", "c", "o")
    g, c, o = bdd.var("g"), bdd.var("c"), bdd.var("o")
    u = DEPOSIT_ITE[dtype](bdd, g, c, o)
    for (gv, cv, ov), got in truth_rows(bdd, u, g, c, o):
        assert got == deposit(dtype, gv, cv, ov), (dtype, gv, cv, ov)


@pytest.mark.parametrize("dtype", ["ct", "cf"])
def test_1_table2_printed_ct_cf_fail_two_rows(dtype):
    bdd = new_manager()
    bdd.declare("g", "c", "o")
    g, c, o = bdd.var("g"), bdd.var("c"), bdd.var("o")
    u = TABLE2_AS_PRINTED[dtype](bdd, g, c, o)
    wrong = [row for row, got in truth_rows(bdd, u, g, c, o) if got != deposit(dtype, *row)]
    assert len(wrong) == 2


# 2. Finite domain --------------------------------------------------------------------------
def test_2_finite_domain_i5_is_figure4():
    cubes = finite_domain_cubes(5)
    assert domain_bits(5) == 3
    assert cubes == [
        [(1, False), (0, False)],            # I0 = v1'v0'
        [(1, False), (0, True)],             # I1 = v1'v0
        [(1, True), (0, False)],             # I2 = v1v0'
        [(2, False), (1, True), (0, True)],  # I3 = v2'v1v0
        [(2, True), (1, True), (0, True)],   # I4 = v2v1v0
    ]


@pytest.mark.parametrize("i", range(1, 40))
def test_2_finite_domain_general(i):
    bdd = new_manager()
    n = domain_bits(i)
    names = [f"v{j}" for j in range(n)]
    if names:
        bdd.declare(*names)
    nodes = []
    for cube in finite_domain_cubes(i):
        u = bdd.true
        for j, pol in cube:
            u &= bdd.var(names[j]) if pol else ~bdd.var(names[j])
        nodes.append(u)
    assert len(nodes) == i
    acc = bdd.false
    for a in range(i):
        for b in range(a + 1, i):
            assert nodes[a] & nodes[b] == bdd.false
        acc |= nodes[a]
    assert acc == bdd.true
    sizes = [len(c) for c in finite_domain_cubes(i)]
    if i == 1:
        assert n == 0 and sizes == [0]
    else:
        assert sizes.count(n - 1) == 2 ** n - i
        assert sizes.count(n) == 2 * i - 2 ** n


# 3. Intervals of Figure 3(c) ---------------------------------------------------------------
def test_3_intervals_fig3c():
    conds = [("gt", -8), ("lt", 8), ("eq", 0), ("le", -8)]
    segs = split_segments(conds)
    assert [lo for lo, _ in segs][1:] == [-7, 0, 1, 8]
    assert len(segs) == 5
    assert split_segments(conds + [("lt", 0)]) == segs


# 4. Condition nodes ------------------------------------------------------------------------
def test_4_condition_nodes():
    pa = pas_of(fn(FIG3C))
    bdd = pa.bdd
    v0, v1, v2 = (bdd.var(n) for n in pa.engine.family_var_names[("param", "r1")])
    c0 = pa.condition("r1", "gt", -8)
    c2 = pa.condition("r1", "eq", 0)
    assert c0 == v0 | v1
    assert c2 == v1 & ~v0
    assert pa.condition("r1", "lt", 8) == ~(v2 & v1 & v0)
    assert pa.implies(c2, c0) and not pa.implies(c0, c2)
    assert pa.condition("r1", "le", -8) == ~c0


# 5. Intro relations ------------------------------------------------------------------------
INTRO = """
func intro(x) {
entry:
    a:ut = pcmp.eq x, 1
    b:ut = pcmp.gt x, 0
    c:ut = pcmp.eq x, 2
    d:ut = pcmp.gt x, 5
    e:ut = pcmp.le x, 5
    f:ut = pcmp.ge 5, x
    ret
}
"""


def test_5_intro_relations_family():
    pa = pas_of(fn(INTRO), check="sat")
    assert pa.implies("a", "b")
    assert pa.disjoint("a", "c")
    assert pa.implies("c", "b")
    assert pa.covers(["d", "e"]) and pa.covers(["d", "f"])


def test_5_intro_relations_basic():
    pa = pas_of(fn(INTRO), mode="basic", check="sat")
    assert not pa.implies("a", "b") and not pa.disjoint("a", "c")
    assert pa.covers(["d", "e"]) and pa.complementary("d", "e")   # only by opposites
    assert pa.equivalent("e", "f")                                  # 5 >= x is x <= 5


# 6. Figure 3(b), basic mode ----------------------------------------------------------------
@pytest.mark.parametrize("mode", BOTH)
def test_6_fig3b(mode):
    pa = pas_of(fn(FIG3B), mode=mode, check="sat")
    assert pa.ssa_names("p2") == ["p2.0", "p2.1", "p2.2"]
    assert pa.disjoint("p4", "p2.2")
    assert pa.complementary("p3", "p2.2")
    assert pa.implies("p4", "p3") and pa.implies("p3", "p1")
    assert pa.implies("p5", "p2.2")
    assert pa.disjoint("p3", "p5")
    assert pa.covers(["p1", "p2"])          # IR.md: p1 ∨ p2 is always true


# 7. Figure 3(c) ----------------------------------------------------------------------------
def test_7_fig3c_headline():
    fam = pas_of(fn(FIG3C), mode="family", check="sat")
    basic = pas_of(fn(FIG3C), mode="basic", check="sat")
    assert fam.disjoint("p4", "p2.2")
    assert not basic.disjoint("p4", "p2.2")
    for pa in (fam, basic):
        assert pa.complementary("p1.2", "p2.2")
        assert pa.value("p2.1") == ~pa.condition("r1", "gt", -8)
    assert fam.implies("p4", "p1.2")
    assert fam.equivalent("p5", "p2.1")
    assert fam.implies("p5", "p2.2")
    assert fam.disjoint("p5", "p4")


# 8. (b) == (c) in one manager --------------------------------------------------------------
def test_8_fig3b_equals_fig3c():
    b, c = group_of([fn(FIG3B), fn(FIG3C)])
    assert b.bdd is c.bdd
    assert b.value("p4") == c.value("p4")
    assert b.value("p5") == c.value("p5")
    assert b.value("p3") == c.value("p1.2")
    assert b.value("p2.2") == c.value("p2.2")
    assert b.implies(b.value("p3"), c.value("p1.2"))


# 9. Relational scope -----------------------------------------------------------------------
SCOPE = """
func scope(n) {
entry:
    br loop
loop:
    r1 = input
    p1:ut, p2:uf = pcmp.lt r1, 0
    (p1) print 1
    (p2) print 2
    cbr r1, loop, exit
exit:
    ret
}
"""


def test_9_relational_scope():
    pa = pas_of(fn(SCOPE), check="sat")
    assert pa.disjoint("p1", "p2")                       # per iteration (static instance)
    assert pa.complementary("p1", "p2")
    assert not pa.disjoint("p1", "p2", scope="across")   # p2 of another iteration
    assert not pa.complementary("p1", "p2", scope="across")


# 10. Figure 6 merge ------------------------------------------------------------------------
FIG6 = """
func fig6(r1, r2, c) {
entry:
    cbr c, L, R
L:
    p1:ut, p2:uf = pcmp.lt r1, 0
    br M
R:
    p1:ut, p2:uf = pcmp.gt r2, 5
    br M
M:
    (p1) print 1
    (p2) print 2
    ret
}
"""


def test_10_fig6_merge():
    pa = pas_of(fn(FIG6), check="sat")
    assert pa.ssa_names("p1") == ["p1.0", "p1.1", "p1.2"]
    assert pa.complementary("p1.2", "p2.2")
    assert not pa.implies("p1.0", "p1.1") and not pa.disjoint("p1.0", "p1.1")
    for merges in ("independent", "unknown"):
        other = pas_of(fn(FIG6), merges=merges, check="sat")
        assert not other.complementary("p1.2", "p2.2")
        assert not other.disjoint("p1.2", "p2.2")


# 11. Figure 7 loop -------------------------------------------------------------------------
FIG7 = """
func fig7(r1) {
pre:
    p1:ut = pcmp.lt r1, 10
    p2:ut = pcmp.gt r1, 20
    br loop
loop:
    (p1) print 1
    (p2) print 2
    r1 = input
    p1:ut = pcmp.lt r1, 10
    p2:ut = pcmp.gt r1, 20
    cbr r1, loop, exit
exit:
    ret
}
"""


def test_11_fig7_cyclic():
    pa = pas_of(fn(FIG7), lookback=1, check="sat")
    assert pa.disjoint("p1.1", "p2.1")
    assert not pa.has_free_history("p1.1") and not pa.has_free_history("p2.1")
    k0 = pas_of(fn(FIG7), lookback=0, check="sat")
    assert not k0.disjoint("p1.1", "p2.1")
    assert k0.has_free_history("p1.1")


# 12. Figure 8 ------------------------------------------------------------------------------
FIG8 = """
func fig8(r1) {
pre:
    p1:ut = pcmp.lt r1, 10
    br loop
loop:
    p2:ut = pcmp.gt r1, 32
    (p1) print 1
    (p2) print 2
    r1 = add r1, 4
    p1:ut = pcmp.lt r1, 10
    cbr r1, loop, exit
exit:
    ret
}
"""


def test_12_fig8():
    pa = pas_of(fn(FIG8), lookback=1, check="sat")
    assert pa.ssa_names("p2") == ["p2.0"] and pa.ssa_names("p1")[:2] == ["p1.0", "p1.1"]
    assert pa.disjoint("p1.1", "p2.0")
    # p2.0 = ω·a + ω̄·b with a = (r1.0 > 32): same ω as p1.1 = ω·c + ω̄·d, c = (r1.0 < 10)
    omegas = [v for v in pa.support("p2.0") if v.startswith("w_")]
    assert len(omegas) == 1 and omegas[0] in pa.support("p1.1")
    w = omegas[0]
    a = pa.condition("r1", "gt", 32, at=("pre", 0))
    c = pa.condition("r1", "lt", 10, at=("pre", 0))
    assert pa.bdd.let({w: True}, pa.value("p2.0")) == a
    assert pa.bdd.let({w: True}, pa.value("p1.1")) == c
    b = pa.bdd.let({w: False}, pa.value("p2.0"))
    d = pa.bdd.let({w: False}, pa.value("p1.1"))
    assert b != a and pa.disjoint(b, d)


# 13. Or-accumulation keeps p* --------------------------------------------------------------
ACCUM = """
func accum(r2) {
pre:
    p1:uf = pcmp.eq 0, 0
    br loop
loop:
    r3 = input
    p3:ut = pcmp.gt r3, 0
    (p3) p1:ot = pcmp.gt r2, 0
    cbr r3, loop, exit
exit:
    ret
}
"""


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_13_or_accumulation_needs_bound(k):
    pa = pas_of(fn(ACCUM), lookback=k, check="sat")
    mu = pa.ssa_names("p1")[1]                            # p1.1 = μ at the header
    assert pa.net.ssa["p1"][1].kind == "mu"
    assert pa.has_free_history(mu)


# 14. Figure 9 encoding ---------------------------------------------------------------------
def test_14_fig9_arcs():
    bdd = new_manager()
    bdd.declare("x", "y")
    arcs = []
    for cube in finite_domain_cubes(4):
        u = bdd.true
        for j, pol in cube:
            u &= bdd.var("xy"[j]) if pol else ~bdd.var("xy"[j])   # x = v0, y = v1
        arcs.append(u)
    x, y = bdd.var("x"), bdd.var("y")
    assert arcs == [~x & ~y, ~x & y, x & ~y, x & y]          # A=(0,0) B=(0,1) C=(1,0) D=(1,1)
    assert all(arcs[i] & arcs[j] == bdd.false for i in range(4) for j in range(i + 1, 4))
    assert arcs[0] | arcs[1] | arcs[2] | arcs[3] == bdd.true


# 15. Multi-predicate / dead code -----------------------------------------------------------
DEAD = """
func dead(r1, r2) {
entry: !hyperblock
    p1:ut, p2:uf = pcmp.lt r1, r2
    p3:ut = pcmp.eq r2, 7
    (p1) br X
    (p2) br Y
    print 99
    ret
X:
    ret
Y:
    ret
}
"""


@pytest.mark.parametrize("mode", BOTH)
def test_15_side_exits_sum_to_one(mode):
    pa = pas_of(fn(DEAD), mode=mode, check="sat")
    assert pa.sums_to_one(["p1", "p2"])
    assert pa.covers(["p1", "p2"], "p3")
    assert not pa.sums_to_one(["p1", "p3"])


# 16. Figure 2 edom -------------------------------------------------------------------------
FIG2B = """
func fig2b(r1) {
entry:
    p1:ut, p2:uf = pcmp.gt r1, 0
    (p1) r3 = mov 5
    (p2) r4 = add r3, 1
    ret
}
"""
FIG2D = """
func fig2d(r1, r2) {
entry:
    p1:ut = pcmp.gt r1, 0
    (p1) r3 = mov 5
    (p1) p3:ut = pcmp.gt r2, 0
    (p3) r4 = add r3, 1
    ret
}
"""


def test_16_fig2_edom():
    b = pas_of(fn(FIG2B), check="sat")
    assert b.fdom(("entry", 1), ("entry", 2))
    assert not b.superset("p1", "p2") and b.disjoint("p1", "p2")
    assert not b.edom(("entry", 1), ("entry", 2))
    d = pas_of(fn(FIG2D), check="sat")
    assert d.superset("p1", "p3")
    assert d.edom(("entry", 1), ("entry", 3))
    assert not d.edom(("entry", 3), ("entry", 1))           # not even fetch-dominance


# 17. Canonicity ----------------------------------------------------------------------------
CANON = """
func canon(r1, r2) {
entry:
    p1:ut = pcmp.gt r1, 0
    (p1) p2:ut = pcmp.gt r2, 0
    p3:ut = pcmp.gt r2, 0
    p3:at = pcmp.gt r1, 0
    p4:uf = pcmp.gt r2, 0
    (p1) p5:uf = pcmp.le r2, 0
    ret
}
"""


@pytest.mark.parametrize("mode", BOTH)
def test_17_canonicity(mode):
    pa = pas_of(fn(CANON), mode=mode)
    assert pa.value("p2") == pa.value("p3")
    assert pa.value("p5") == pa.value("p2")
    assert pa.value("p4") == ~pa.condition("r2", "gt", 0)
    before = pa.queries
    assert pa.equivalent("p2", "p3") and pa.queries == before + 1


# 18. Guard corner cases --------------------------------------------------------------------
GUARDS = """
func guards(r1) {
entry:
    z:uf = pcmp.eq 0, 0
    o1:ut = pcmp.gt r1, 3
    o2:ut = pcmp.gt r1, 3
    o3:ut = pcmp.gt r1, 3
    (z) u1:ut = pcmp.gt r1, 0
    (z) u2:uf = pcmp.gt r1, 0
    (z) k1:conjt = pcmp.gt r1, 0
    (z) k2:conjf = pcmp.gt r1, 0
    (z) o1:ot = pcmp.gt r1, 0
    (z) o2:at = pcmp.gt r1, 0
    (z) o3:ct = pcmp.gt r1, 0
    (p0) q:ut = pcmp.gt r1, 0
    p0:uf = pcmp.eq 0, 0
    (p0) print 1
    ret
}
"""


def test_18_guard_corner_cases():
    pa = pas_of(fn(GUARDS), check="sat")
    for p in ("u1", "u2", "k1", "k2"):
        assert pa.always_false(p)
    c3 = pa.condition("r1", "gt", 3)
    for p in ("o1", "o2", "o3"):
        assert pa.value(p) == c3                    # o/a/c types leave old
    assert pa.value("q") == pa.condition("r1", "gt", 0)
    assert pa.guard("entry", 13) == pa.bdd.true     # write to p0 ignored
    assert pa.always_true("p0")
