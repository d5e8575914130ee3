"""ppg_closure.dl's ppg_subset / ppg_disjoint on a long generated hyperblock (issue #29 item 5) obey the
closure laws of ppg.md §4.8 as read from the output rows alone: subset reflexive and
transitive, partition members under their parent, the cover rule; disjoint symmetric, siblings
disjoint, closed downwards under subset, the cover rule. query.dl computes them without joining
through the constant nodes and the empty / full / void ones; a row those products miss breaks
a law here. The block: every deposit type under both guards, both conditions and both old
values (pylogic.ir.synthetic_hyperblock, stride 7 over its 96 groups)."""
from __future__ import annotations

from collections import defaultdict

import pytest

from pylogic.analysis.run import module_rows
from pylogic.ir.load import load_text
from pylogic.ir.synthetic_hyperblock import GROUPS, hyperblock_lines, hyperblock_program
from pylogic.predicates.ppg import PPG_RELATIONS, PartitionGraph
from tests.support import ENGINES

DEFINES = 40
CLOSURE_PAIRS = ("ppg_subset", "ppg_disjoint")     # ppg_closure.dl, on demand


def function_rows(engine: str):
    module = load_text(hyperblock_program(DEFINES, stride=7))
    return module_rows(module, "t.pir", relations=PPG_RELATIONS + CLOSURE_PAIRS,
                       engine=engine).of("t.pir::hyper")


def pred_rows(engine: str) -> dict:
    rows = function_rows(engine)
    pred = {rel: {tuple(r[1:]) for r in rows[rel] if r[0] == "pred"}
            for rel in ("ppg_node", "ppg_subset", "ppg_disjoint", "ppg_partition")}
    return {"nodes": pred["ppg_node"],
            "subset": {((a, ak), (b, bk)) for a, ak, b, bk in pred["ppg_subset"]},
            "disjoint": {((a, ak), (b, bk)) for a, ak, b, bk in pred["ppg_disjoint"]},
            "parts": pred["ppg_partition"]}


def partitions(parts: set) -> dict:
    """(parent, kind, origin) -> its members."""
    out = defaultdict(set)
    for pn, pk, kind, o, cn, ck in parts:
        out[((pn, pk), kind, o)].add((cn, ck))
    return out


def test_the_block_has_every_type_and_empty_and_full_nodes():
    lines = hyperblock_lines(DEFINES, stride=7)
    assert sum("pcmp" in line for line in lines) == DEFINES
    assert {t for t, *_ in GROUPS} <= {d.split(":")[1] for line in lines if "pcmp" in line
                                       for d in line.split("=")[0].replace("(q)", "").split(",")}
    assert len(GROUPS) == 96 and len(set(GROUPS)) == 96


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_closure_laws(engine):
    r = pred_rows(engine)
    nodes, sub, dis = r["nodes"], r["subset"], r["disjoint"]
    false, true = ("false", "const"), ("true", "const")
    up = defaultdict(set)
    for a, b in sub:
        up[a].add(b)
    # the products are there: some node other than false is empty, some other than true full
    assert {a for a in nodes if false in up[a]} - {false}
    assert {b for b in nodes if b in up[true]} - {true}
    assert all((n, n) in sub and (false, n) in sub and (n, true) in sub for n in nodes)
    for a in nodes:                                     # transitive
        for b in up[a]:
            assert up[b] <= up[a], (a, b, sorted(up[b] - up[a])[:3])
    for (a, b) in dis:                                  # symmetric, downward closed
        assert (b, a) in dis
    down = defaultdict(set)
    for a, b in sub:
        down[b].add(a)
    for (a, y) in dis:
        assert all((x, y) in dis for x in down[a]), (a, y)
    for (parent, _, _), members in partitions(r["parts"]).items():
        assert all((m, parent) in sub for m in members)
        for m in members:
            assert all((m, o) in dis for o in members if o != m)
        over = set.intersection(*(up[m] for m in members))      # cover rule, subset
        assert over <= up[parent], (parent, sorted(over - up[parent])[:3])
        apart = set.intersection(*({y for y in nodes if (m, y) in dis} for m in members))
        assert all((parent, y) in dis for y in apart), parent  # cover rule, disjoint


@pytest.mark.slow
def test_partition_graph_answers_as_the_pairs():
    """The predicate layer reads the compact form (core pairs, empty / full / void nodes): on
    this block it answers every subset and disjointness question of the pred graph exactly as
    the pairs of ppg_closure.dl."""
    rows = function_rows("clingo")
    g = PartitionGraph(rows)
    sub = {((a, ak), (b, bk)) for gr, a, ak, b, bk in rows["ppg_subset"] if gr == "pred"}
    dis = {((a, ak), (b, bk)) for gr, a, ak, b, bk in rows["ppg_disjoint"] if gr == "pred"}
    nodes = g.nodes["pred"]
    assert len(sub) > len(g._core["pred"])        # the products are not in the core rows
    for a in nodes:
        for b in nodes:
            assert g.is_subset(a, b, "pred") == ((a, b) in sub), (a, b)
            assert g.is_disjoint(a, b, "pred") == ((a, b) in dis), (a, b)
