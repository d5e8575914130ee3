"""PPDE's PPG queries (predicated_pde.md §2.3, test T1): IsDisjoint, IsSubset, LUB_Diff on the
paper's Figure 4 graph, built by ppg.dl from a hyperblock whose defines give p0 = p1 ∪ p2,
p1 = p3 ∪ p4 and p1 = p5 ∪ p6; every answer cross-checked with the PAS BDD (LUB_Diff: the
union of the answer equals p ∧ ¬q exactly)."""
from __future__ import annotations

import pytest

from pylogic.analysis.run import module_rows
from pylogic.ir.parser import parse_module
from pylogic.predicates.network import PAS_RELATIONS
from pylogic.predicates.partition_queries import BlockPredicates
from pylogic.predicates.pas import PredicateAnalysis
from pylogic.predicates.ppg import PPG_RELATIONS, PartitionGraph

FIG4 = """func main(a, g, h) {
entry: !hyperblock
    p1:ut, p2:uf = pcmp.eq a, 0
    (p1) p3:ut, p4:uf = pcmp.eq g, 0
    (p1) p5:ut, p6:uf = pcmp.eq h, 0
    ret 0
}
"""


@pytest.fixture(scope="module")
def fig4():
    module = parse_module(FIG4)
    fn = module.defined_functions()[0]
    rows = module_rows(module, "t.pir", relations=PPG_RELATIONS + PAS_RELATIONS,
                       engine="clingo").function(fn.name)
    preds = BlockPredicates(PartitionGraph(rows, fn), "entry", ["p1", "p2", "p3", "p4", "p5", "p6"])
    return preds, PredicateAnalysis(fn, rows)


def bdd(pas, p):
    return pas.bdd.true if p == "p0" else pas.value((p, "entry"))


def test_t1_paper_queries(fig4):
    q, _ = fig4
    assert q.is_disjoint("p3", "p4") and q.is_disjoint("p4", "p2")
    assert not q.is_disjoint("p4", "p5")
    assert q.is_subset("p3", "p1") and q.is_subset("p3", "p0")
    assert not q.is_subset("p3", "p4")
    assert q.lub_diff("p1", "p3") == {"p4"}
    assert q.lub_diff("p0", "p3") == {"p2", "p4"}
    assert q.lub_diff("p1", "p5") == {"p6"}
    assert q.lub_diff("p0", "p1") == {"p2"}
    assert q.lub_diff("p0", "p5") == {"p2", "p6"}
    assert q.lub_diff("p3", "p5") is None            # p5 is no part of p3


def test_t1_against_the_bdd(fig4):
    q, pas = fig4
    names = ["p0", "p1", "p2", "p3", "p4", "p5", "p6"]
    false = pas.bdd.false
    for a in names:
        for b in names:
            x, y = bdd(pas, a), bdd(pas, b)
            if q.is_disjoint(a, b):
                assert x & y == false, (a, b)
            if q.is_subset(a, b):
                assert x & ~y == false, (a, b)
            if a != b and q.is_subset(b, a):
                got = q.lub_diff(a, b)
                if got is not None:
                    union = false
                    for r in got:
                        union |= bdd(pas, r)
                    assert union == x & ~y, (a, b, got)
