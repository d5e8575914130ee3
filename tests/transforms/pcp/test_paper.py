"""Constant propagation on predicated code: the test cases of predicated_cp.md §7 on the running
example (Table 1 as a branchy hyperblock region) and the digest's soundness cases.
T1 semantics, T2 PSSA (Table 2), T3 basic, T4 full, T5 off-predicated set, T6 Table 3 with D1
corrected, T7 remapping, T8 the literal filter, T10 lattice, T11 match."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pylogic.interp import run_module
from pylogic.ir.parser import parse_module
from pylogic.flow.lattice import BOT, TOP, apply, meet, meet_all
from pylogic.transforms.pcp.pssa import build_pssa, show
from pylogic.transforms.pcp.pvg import (Node, build_pvg, evaluate, false_predicates, match,
                                        off_predicated, simplify, source_constants)
from pylogic.transforms.regions import Region

ROOT = Path(__file__).resolve().parents[3]
BLOCKS = ("A", "B", "C", "D", "E", "F", "G", "H", "J")


@pytest.fixture(scope="module")
def example():
    """pcp_branchy.pir without its prints: exactly the paper's hyperblock (§4.2)."""
    text = (ROOT / "examples" / "pcp_branchy.pir").read_text()
    text = "\n".join(l for l in text.splitlines() if not l.strip().startswith("print"))
    fn = parse_module(text + "\n", "t.pir").function_map()["main"]
    return fn, build_pssa(fn, Region("A", BLOCKS))


TABLE2 = """
(p0) A = OR(TRUE)|(A) a1 = input()|(A) b1 = input()|(A) z1 = mov(3)|(A) cmp.unc BA,CA (gt(a1, 0))
(p0) B = OR(BA)|(p0) C = OR(CA)|(B) x1 = mov(2)|(B) y1 = mov(3)|(C) cmp.unc DCA,ECA (gt(b1, 0))
(p0) D = OR(DCA)|(p0) E = OR(ECA)|(D) x2 = mov(3)|(D) y2 = mov(2)|(E) z2 = mov(2)|(E) x3 = mov(4)
(E) y3 = mov(1)|(BA) FBA = OR(TRUE)|(DCA) FDCA = OR(TRUE)|(ECA) FECA = OR(TRUE)
(p0) F = OR(FBA, FDCA, FECA)|(FBA) cmp.unc GFBA,HFBA (ne(and(z1, 1), 0))
(FDCA) cmp.unc GFDCA,HFDCA (ne(and(z1, 1), 0))|(FECA) cmp.unc GFECA,HFECA (ne(and(z2, 1), 0))
(p0) G = OR(GFBA, GFDCA, GFECA)|(p0) H = OR(HFBA, HFDCA, HFECA)|(GFBA) w1 = rem(z1, 2)
(GFDCA) w1 = rem(z1, 2)|(GFECA) w1 = rem(z2, 2)|(G) u1 = mov(5)|(G) v1 = mov(7)
(HFBA) w2 = mov(x1)|(HFDCA) w2 = mov(x2)|(HFECA) w2 = mov(x3)|(H) u2 = mov(7)|(H) v2 = mov(5)
(GFBA) JGFBA = OR(TRUE)|(GFDCA) JGFDCA = OR(TRUE)|(GFECA) JGFECA = OR(TRUE)
(HFBA) JHFBA = OR(TRUE)|(HFDCA) JHFDCA = OR(TRUE)|(HFECA) JHFECA = OR(TRUE)
(p0) J = OR(JGFBA, JGFDCA, JGFECA, JHFBA, JHFDCA, JHFECA)
(JGFBA) s1 = add(x1, u1)|(JGFBA) t1 = add(y1, v1)|(JGFDCA) s1 = add(x2, u1)|(JGFDCA) t1 = add(y2, v1)
(JGFECA) s1 = add(x3, u1)|(JGFECA) t1 = add(y3, v1)|(JHFBA) s1 = add(x1, u2)|(JHFBA) t1 = add(y1, v2)
(JHFDCA) s1 = add(x2, u2)|(JHFDCA) t1 = add(y2, v2)|(JHFECA) s1 = add(x3, u2)|(JHFECA) t1 = add(y3, v2)
(J) z3 = add(s1, t1)"""


def lines(text: str) -> Counter:
    return Counter(x.strip() for row in text.strip().splitlines() for x in row.split("|"))


def test_t1_semantics_on_the_three_feasible_paths():
    m = parse_module((ROOT / "examples" / "pcp_branchy.pir").read_text(), "b.pir")
    expected = {(1, 0): [2, 3, 5, 7, 1, 7, 10, 17], (0, 1): [3, 2, 5, 7, 1, 8, 9, 17],
                (0, 0): [4, 1, 7, 5, 4, 11, 6, 17]}
    for inputs, printed in expected.items():
        assert [int(x) for x in run_module(m, inputs=inputs).stdout.split()] == printed


def test_t2_pssa_is_table2(example):
    _, pssa = example
    assert len(pssa.instrs) == 56
    assert Counter(show(i) for i in pssa.instrs) == lines(TABLE2)   # a multiset: order is free


def test_t3_basic(example):
    _, pssa = example
    g = evaluate(build_pvg(pssa, full=False))
    assert g.value_of("z.3") == 17
    for name in ("w.1", "w.2", "s.1", "t.1"):
        assert g.value_of(name) is BOT
    s_components = {"".join(reversed(c.path)): c.value for c in g.gen["s.1"].components}
    assert s_components == {"JGFBA": 7, "JGFDCA": 8, "JGFECA": 9, "JHFBA": 9, "JHFDCA": 10,
                            "JHFECA": 11}
    w1 = sorted(c.value for c in g.gen["w.1"].components)
    assert w1 == [0, 1, 1]
    assert off_predicated(g) == []


@pytest.mark.parametrize("model", ["C", "A"])
def test_t4_full(example, model):
    _, pssa = example
    g = evaluate(build_pvg(pssa, full=True, model=model))
    assert (g.value_of("z.3"), g.value_of("w.1"), g.value_of("w.2")) == (17, 1, 4)
    assert g.value_of("s.1") is BOT and g.value_of("t.1") is BOT
    assert false_predicates(g) == {"GFECA", "HFBA", "HFDCA", "JGFECA", "JHFBA", "JHFDCA"}


def test_t5_off_predicated(example):
    _, pssa = example
    g = evaluate(build_pvg(pssa, full=True))
    off = Counter(show(pssa.instrs[k]) for k in off_predicated(g))
    assert off == lines("""(GFECA) w1 = rem(z2, 2)|(HFBA) w2 = mov(x1)|(HFDCA) w2 = mov(x2)
        (GFECA) JGFECA = OR(TRUE)|(HFBA) JHFBA = OR(TRUE)|(HFDCA) JHFDCA = OR(TRUE)
        (JGFECA) s1 = add(x3, u1)|(JHFBA) s1 = add(x1, u2)|(JHFDCA) s1 = add(x2, u2)
        (JGFECA) t1 = add(y3, v1)|(JHFBA) t1 = add(y1, v2)|(JHFDCA) t1 = add(y2, v2)""")


def test_t6_table3_with_d1_corrected(example):
    _, pssa = example
    out = Counter(show(i) for i in simplify(evaluate(build_pvg(pssa, full=True))))
    assert sum(out.values()) == 43
    for line in ("(p0) G = OR(GFBA, GFDCA)", "(p0) H = OR(HFECA)",
                 "(p0) J = OR(JGFBA, JGFDCA, JHFECA)", "(FBA) cmp.unc GFBA,HFBA (TRUE)",
                 "(FDCA) cmp.unc GFDCA,HFDCA (TRUE)", "(FECA) cmp.unc GFECA,HFECA (FALSE)",
                 "(G) w1 = mov(1)", "(HFECA) w2 = mov(4)", "(JGFBA) s1 = mov(7)",
                 "(JGFBA) t1 = mov(10)", "(JGFDCA) s1 = mov(8)", "(JGFDCA) t1 = mov(9)",
                 "(JHFECA) s1 = mov(11)", "(JHFECA) t1 = mov(6)", "(J) z3 = mov(17)",
                 "(A) a1 = input()", "(E) x3 = mov(4)"):
        assert out[line] == 1, line


def test_t7_remapping(example):
    fn, pssa = example
    basic = source_constants(evaluate(build_pvg(pssa, full=False)))
    full = source_constants(evaluate(build_pvg(pssa, full=True)))
    j = [b.label for b in fn.blocks].index("J")
    assert basic == {("J", 2): 17}                       # z = s + t (Fig. 3(b))
    assert full == {("J", 2): 17, ("G", 2): 1, ("H", 2): 4}   # and w in G and H (Fig. 3(c))
    assert fn.blocks[j].instrs[2].dest == "z"


T8 = """func main() {
A:
    a = input
    x = mov 1
    c = cmp.gt a, 0
    cbr c, B, C
B:
    x = mov 2
    br C
C:
    y = add x, 1
    z = add y, 0
    ret z
}
"""


def test_t8_literal_filter_would_be_unsound():
    fn = parse_module(T8, "t8.pir").function_map()["main"]
    pssa = build_pssa(fn, Region("A", ("A", "B", "C")))
    shown = {show(i) for i in pssa.instrs}
    assert {"(CA) y1 = add(x1, 1)", "(CBA) y1 = add(x2, 1)", "(C) z1 = add(y1, 0)",
            "(BA) CBA = OR(TRUE)"} <= shown
    g = evaluate(build_pvg(pssa, full=True))
    assert g.value_of("y.1") is BOT and g.value_of("z.1") is BOT
    assert off_predicated(g) == []


def test_t10_lattice():
    assert apply("add", BOT, TOP) is BOT and apply("add", TOP, 3) is TOP
    assert apply("add", 2, 3) == 5 and apply("rem", 5, 0) is BOT
    assert apply("add", (1 << 63) - 1, 1) == -(1 << 63)          # 64-bit wrap (IR.md)
    assert meet(TOP, 5) == 5 and meet(5, 5) == 5 and meet(5, 6) is BOT and meet_all([]) is TOP


def test_t11_match():
    s_jgfba = Node("op", path=("A", "B", "F", "G", "J"))
    t_jgfba = Node("op", path=("A", "B", "F", "G", "J"))
    t_jgfdca = Node("op", path=("A", "C", "D", "F", "G", "J"))
    plain = Node("op")
    assert match(s_jgfba, t_jgfba) and not match(s_jgfba, t_jgfdca)
    assert match(s_jgfba, plain) and match(plain, plain)
    assert match(Node("op", path=("A", "B")), s_jgfba)        # prefix-compatible (G4)
