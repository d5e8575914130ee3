"""datalog/ppg.dl on small fact sets beside their expected outputs (STYLE.md: Soufflé's test
layout): tests/datalog/ppg/<case>/*.facts and <case>/expected/ppg_*.csv, compared after sorting.
Cases: diamond (ppg.md T1), g8 (T2), fig3b (IR.md's hyperblock), branchy (defines across blocks,
values lost at a merge). The expected files were checked by hand against ppg.md §8 and IR.md."""
from __future__ import annotations

import pytest

from pylogic.engines import load_program, run_program
from pylogic.engines.rows import Rows
from pylogic.predicates.ppg import PPG_RELATIONS, PartitionGraph
from tests.datalog.fact_cases import FactCases
from tests.support import ENGINES

FAMILY = FactCases("ppg", "ppg.dl", also=("ppg_closure.dl",))
PROGRAM = FAMILY.program
CLOSURE = FAMILY.also[0]
CASES_DIR = FAMILY.dir
CASES = FAMILY.names


def expected(case: str) -> dict:
    return FAMILY.expected(case, 'ppg_*.csv')


@pytest.mark.slow
def test_every_public_ppg_relation_is_expected():
    public = {r for p in (PROGRAM, CLOSURE) for r in load_program(p).outputs if r.startswith("ppg_")}
    assert not {"ppg_subset", "ppg_disjoint"} & set(load_program(PROGRAM).outputs)  # opt-in
    for case in CASES:
        assert set(expected(case)) == public, case


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES)
def test_ppg_outputs(case, engine):
    got = run_program(PROGRAM, CASES_DIR / case, engine=engine)
    got.update(run_program(CLOSURE, CASES_DIR / case, engine=engine))
    for rel, rows in expected(case).items():
        assert got[rel] == rows, (case, rel)


def test_hand_checked_rows():
    """A few rows spelled out: T1's Algorithm-5 partition, fig3b's or-partition of p2."""
    t1 = expected("diamond")["ppg_partition"]
    assert ("diamond.pir::t1", "cdg", "A", "-", "branch", "A", "B", "-") in t1
    assert ("diamond.pir::t1", "cdg", "A", "-", "branch", "A", "C", "-") in t1
    fig = expected("fig3b")
    assert ("fig3b.pir::fig3b", "entry", "p2", "entry#2", "v1") in fig["ppg_value"]
    assert ("fig3b.pir::fig3b", "pred", "entry#2", "v1", "or1", "entry#2", "entry#2", "f") in \
        fig["ppg_partition"]
    # p4 (entry#3 v0) and p2 (entry#2 v1) disjoint
    assert ("fig3b.pir::fig3b", "pred", "entry#3", "v0", "entry#2", "v1") in fig["ppg_disjoint"]


@pytest.mark.slow
def test_partition_graph_reads_these_rows():
    """The predicate layer answers from the output rows alone (it runs no Datalog): fig3b's
    p4 and p2 disjoint, p4 ⊆ p3, at the end of the hyperblock."""
    assert set(PPG_RELATIONS) == {r for r in load_program(PROGRAM).outputs if r.startswith("ppg_")}
    got = run_program(PROGRAM, CASES_DIR / "fig3b", engine="clingo")
    g = PartitionGraph(Rows(got).of("fig3b.pir::fig3b"))
    assert g.value("p2", "entry") == ("entry#2", "v1")
    assert g.disjoint(("p4", "entry"), ("p2", "entry"))
    assert g.implies(("p4", "entry"), ("p3", "entry"))


@pytest.mark.parametrize("case", CASES)
def test_compact_form_answers_as_the_pairs(case):
    """PartitionGraph answers from the compact rows (core pairs, empty / full / void nodes)
    exactly as the hand-checked ppg_subset / ppg_disjoint pairs say, for every pair of nodes of
    every graph; below / above list the pairs' ends."""
    rows = expected(case)
    fid = rows["ppg_node"][0][0]
    g = PartitionGraph(Rows({r: rows[r] for r in PPG_RELATIONS}).of(fid))
    for rel, ask in (("ppg_subset", g.is_subset), ("ppg_disjoint", g.is_disjoint)):
        pairs = {(gr, (an, ak), (bn, bk)) for _, gr, an, ak, bn, bk in rows[rel]}
        for gr, nodes in g.nodes.items():
            for a in nodes:
                for b in nodes:
                    assert ask(a, b, gr) == ((gr, a, b) in pairs), (case, rel, gr, a, b)
    sub = {(gr, (an, ak), (bn, bk)) for _, gr, an, ak, bn, bk in rows["ppg_subset"]}
    for gr, nodes in g.nodes.items():
        for a in nodes:
            assert g.above(a, gr) == {b for x, y, b in sub if x == gr and y == a}
            assert g.below(a, gr) == {y for x, y, b in sub if x == gr and b == a}
