"""ppg.md §8 test cases (T1-T13) on the Datalog PPG (datalog/ppg.dl), plus the predicated running
example of IR.md (Figure 3(b) of the PAS paper) on the predicate-define PPG.

Graphs are written as in ppg.md: S = START, E = END, vSE = the split START->END edge (Variant B),
v<a>_<b> = the virtual node splitting the critical edge a->b. All graphs run in ONE engine call.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "predicates"))
from analysed import ppg_of  # noqa: E402
from ppg_cfgs import cfg_function, module_of, node  # noqa: E402

from pylogic.ir.load import load_text  # noqa: E402
from tests.papers.fixtures import FIG3B

G8 = [("S", "1"), ("1", "2"), ("1", "3"), ("2", "4"), ("3", "5"), ("3", "7"), ("7", "4"),
      ("4", "6"), ("5", "6"), ("6", "E")]
GRAPHS = {
    "t1": [("S", "A"), ("A", "B"), ("A", "C"), ("B", "D"), ("C", "D"), ("D", "E")],
    "t2": G8,
    "t2split": [e for e in G8 if e[0] != "7" and e[1] != "7"] + [("3", "4")],
    "t3": [("S", "A"), ("A", "B"), ("A", "C"), ("B", "X"), ("C", "D"), ("C", "F"), ("D", "X"),
           ("X", "E"), ("F", "E")],
    "t4": [("S", "1"), ("1", "2"), ("1", "3"), ("2", "4"), ("3", "5"), ("3", "7"), ("7", "4"),
           ("4", "8"), ("4", "9"), ("8", "10"), ("5", "10"), ("9", "E"), ("10", "E")],
    "t5": [("S", "1"), ("1", "2"), ("2", "3"), ("3", "E")],
    "t6": [("S", "1"), ("1", "2"), ("1", "3"), ("1", "4"), ("1", "E"), ("2", "4"), ("3", "5"),
           ("4", "5"), ("5", "E")],
    "t7": [("S", "1"), ("1", "2"), ("1", "4"), ("2", "3"), ("2", "4"), ("2", "5"), ("3", "5"),
           ("4", "E"), ("5", "E")],
    "t8": [e for e in G8 if e != ("4", "6")] + [("4", "8"), ("8", "6")],
    "t10": [("S", "1"), ("1", "2"), ("2", "3"), ("3", "4"), ("3", "5"), ("4", "6"), ("5", "6"),
            ("6", "2"), ("6", "7"), ("7", "E")],
    "t13": [("S", "1"), ("1", "2"), ("1", "E"), ("2", "E")],
}
IRREDUCIBLE = """
func irr(c) {
a:
    cbr c, b, d
b:
    cbr c, d, x
d:
    cbr c, b, x
x:
    ret
}
"""


@pytest.fixture(scope="module")
def ppg():
    fns = [cfg_function(name, edges) for name, edges in GRAPHS.items()]
    extra = load_text(IRREDUCIBLE + FIG3B, "extra.pir").functions
    return ppg_of(module_of(*fns, *extra), "ppg.pir")


def parts(graph, g):
    """{(parent, frozenset(children))} of PPG g, in ppg.md names."""
    return {(p, frozenset(kids)) for p, kids in graph.partitions[g].values()}


def P(parent, *kids):
    return (node(parent), frozenset(node(k) for k in kids))


def classes(graph):
    out = {}
    for v, r in graph.reps.items():
        out.setdefault(r, set()).add(v)
    return {frozenset(c) for c in out.values()}


def C(*names):
    return frozenset(node(x) for x in names)


def test_t1_diamond(ppg):
    g = ppg["t1"]
    assert classes(g) == {C("S", "E"), C("A", "D"), C("B"), C("C"), C("vSE")}
    assert parts(g, "cdg") == {P("A", "B", "C"), P("S", "A", "vSE")}
    assert parts(g, "cfg") == {P("A", "B", "C"), P("S", "A", "vSE")}     # deduplicated
    assert len(g.partitions["cfg"]) == 2
    assert g.disjoint(node("B"), node("C"), "cdg")
    for x in ("A", "B", "C"):
        assert g.disjoint(node("vSE"), node(x), "cdg")
    assert g.implies(node("B"), node("A"), "cdg") and not g.implies(node("A"), node("B"), "cdg")


def test_t2_g8_algorithm5_and_queries(ppg):
    g = ppg["t2"]
    assert classes(g) == {C("S", "E"), C("1", "6")} | {C(x) for x in "23457"} | {C("vSE")}
    cdg = {(a[0], b[0], c[0]) for a, ak, b, bk, c, ck in
           [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in g.cdg] if ak == bk == ck == "-"}
    assert {("1", "2", "2"), ("1", "4", "2"), ("1", "3", "3"), ("3", "5", "5"), ("3", "7", "7"),
            ("3", "4", "7")} <= cdg
    assert parts(g, "cdg") == {P("1", "2", "3"), P("3", "5", "7"), P("4", "2", "7"),
                               P("1", "4", "5"), P("S", "1", "vSE")}
    strict = {("1", x) for x in "23457"} | {("3", "5"), ("3", "7"), ("4", "2"), ("4", "7")}
    disjoint = {frozenset(p) for p in ("23", "25", "27", "45", "57")}
    for a in "1234567":
        for b in "1234567":
            na, nb = node(a), node(b)
            if a == "6" or b == "6":
                continue
            assert g.implies(nb, na, "cdg") == (a == b or (a, b) in strict), (a, b)
            assert g.disjoint(na, nb, "cdg") == (frozenset((a, b)) in disjoint), (a, b)
    # p3 vs p4: neither nested nor disjoint (they share S13746E)
    assert not g.disjoint(node("3"), node("4"), "cdg")
    assert not g.implies(node("3"), node("4"), "cdg") and not g.implies(node("4"), node("3"), "cdg")
    assert g.violations == [] and g.dummies == []


def test_t2_splitting_creates_one_virtual_node(ppg):
    g = ppg["t2split"]
    virtual = {n for e in g.edges for n in e if n[1] != "-"}
    assert virtual == {("3", "4"), ("__start__", "__exit__")}
    assert (node("3"), node("4")) not in g.edges
    assert {(node("3"), ("3", "4")), (("3", "4"), node("4"))} <= set(g.edges)


def test_t3_fig10(ppg):
    g = ppg["t3"]
    assert parts(g, "cdg") == {P("A", "B", "C"), P("C", "D", "F"), P("X", "B", "D"),
                               P("A", "X", "F"), P("S", "A", "vSE")}
    assert parts(g, "cfg") == {P("A", "B", "C"), P("C", "D", "F"), P("X", "B", "D"),
                               P("S", "X", "F", "vSE"), P("S", "A", "vSE")}
    for a, b in ("BC", "BD", "BF", "DF", "XF"):
        assert g.disjoint(node(a), node(b), "cdg") and g.disjoint(node(a), node(b), "cfg")


def test_t4_algorithm1_needs_a_dummy_algorithm5_does_not(ppg):
    g = ppg["t4"]
    branch_merge = {P("1", "2", "3"), P("3", "5", "7"), P("4", "2", "7"), P("4", "8", "9"),
                    P("10", "5", "8")}
    assert parts(g, "cdg") == branch_merge | {P("1", "4", "5"), P("1", "10", "9"),
                                              P("S", "1", "vSE")}
    assert parts(g, "cfg") == branch_merge | {P("S", "10", "9", "vSE"), P("S", "1", "vSE")}
    assert g.dummies == [(node("1"), node("4"))]                 # p1 = p4 | p*
    assert g.violations == []


def test_t5_chain_variant_b(ppg):
    g = ppg["t5"]
    assert classes(g) == {C("S", "E"), C("1", "2", "3"), C("vSE")}
    assert parts(g, "cdg") == {P("S", "1", "vSE")} == parts(g, "cfg")


def test_t6_cover_rule_makes_subset_complete(ppg):
    g = ppg["t6"]
    assert parts(g, "cdg") == {P("1", "2", "3", "v1_4", "v1_E"), P("4", "2", "v1_4"),
                               P("5", "2", "3", "v1_4"), P("1", "3", "4", "v1_E"),
                               P("1", "5", "v1_E"), P("S", "1", "vSE")}
    assert g.implies(node("4"), node("5"), "cdg")                  # 5 post-dominates 4
    assert not g.implies(node("5"), node("4"), "cdg")
    # a plain PPG path from p5 down to p4 does not exist
    edges = {(p, k) for p, kids in g.partitions["cdg"].values() for k in kids}
    reach, todo = set(), [node("5")]
    while todo:
        x = todo.pop()
        for p, k in edges:
            if p == x and k not in reach:
                reach.add(k)
                todo.append(k)
    assert node("4") not in reach
    assert P("5", "3", "4") in parts(g, "cfg")


def test_t7_cover_rule_makes_disjointness_complete(ppg):
    g = ppg["t7"]
    assert parts(g, "cdg") == {P("1", "2", "v1_4"), P("2", "3", "v2_4", "v2_5"),
                               P("4", "v1_4", "v2_4"), P("5", "3", "v2_5"),
                               P("1", "3", "4", "v2_5"), P("2", "5", "v2_4"), P("S", "1", "vSE")}
    assert g.disjoint(node("4"), node("5"), "cdg")


def test_t8_no_self_partition(ppg):
    g, g2 = ppg["t8"], ppg["t2"]
    assert g.reps[node("8")] == node("4")
    assert g.violations == []
    assert parts(g, "cdg") == parts(g2, "cdg")


def test_t9_psi_reduction_and_projection(ppg):
    """Ψ(p?a, q?b, q̄?c) -> Ψ(q?b, q̄?c) when r = q | q̄ and p ⊆ r (T9), here with the diamond:
    r = A, q = B, q̄ = C, p = D (≡ A): some partition of a superset of p has all its members
    among the later arguments. Projection drops an argument disjoint from the use."""
    g = ppg["t1"]
    p, later = node("D"), {node("B"), node("C")}
    g_rep = g.reps[p]
    removable = any(set(kids) <= later and g.implies(p, parent, "cdg")
                    for parent, kids in g.partitions["cdg"].values()) or g_rep in later
    assert removable
    assert g.disjoint(node("B"), node("C"), "cdg")               # projection under use C


def test_t10_loop_per_iteration(ppg):
    """Back edges redirected to END (per-iteration predicates; see ppg/cfg.dl), one graph
    instead of ppg.md's forest: 2∼3∼6 (and, in the single graph, 1), p2 = p4 | p5 within one
    iteration, p2 = p7 | pv6_E (leave the loop or take the back edge, T10's region PPG)."""
    g = ppg["t10"]
    assert g.reps[node("3")] == g.reps[node("6")] == g.reps[node("2")] == node("1")
    assert g.disjoint(node("4"), node("5"), "cdg")
    assert parts(g, "cdg") == {P("1", "4", "5"), P("1", "7", "v6_E"), P("S", "1", "vSE")}
    assert g.violations == []


def test_t10_irreducible_gets_no_block_ppg(ppg):
    g = ppg["irr"]
    assert not g.nodes["cdg"] and not g.partitions["cdg"]


def test_t12_no_critical_edge_left(ppg):
    for name in GRAPHS:
        g = ppg[name]
        outs, ins = {}, {}
        for a, b in g.edges:
            outs[a] = outs.get(a, 0) + 1
            ins[b] = ins.get(b, 0) + 1
        assert not [(a, b) for a, b in g.edges if outs[a] > 1 and ins[b] > 1], name


def test_t13_start_edge_case(ppg):
    g = ppg["t13"]
    assert parts(g, "cdg") == {P("S", "1", "vSE"), P("1", "2", "v1_E")}
    assert g.violations == []


def test_fig3b_predicate_defines(ppg):
    """IR.md example: p4, p2 disjoint; p4 ⇒ p3; p5 ⇒ p2; p1 ∨ p2 = 1."""
    g = ppg["fig3b"]
    assert g.disjoint("p4", "p2")
    assert g.implies("p4", "p3") and not g.implies("p3", "p4")
    assert g.implies("p5", "p2")
    assert g.covers("p1", "p2")
    assert not g.covers("p1", "p3") and not g.disjoint("p1", "p3")
