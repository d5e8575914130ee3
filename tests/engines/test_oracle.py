"""Random small graphs: transitive closure, a negation query and a count, against Python."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.engines import load_program, run_checked

PROGRAM = """
.decl edge(a: number, b: number)
.input edge
.decl node(n: number)
.input node
.decl reach(a: number, b: number)
.output reach
reach(x, y) :- edge(x, y).
reach(x, z) :- reach(x, y), edge(y, z).
// nodes neither on a cycle nor reached from node 0
.decl on_cycle(n: number)
on_cycle(n) :- reach(n, n).
.decl lonely(n: number)
.output lonely
lonely(n) :- node(n), !(reach(0, n) ; on_cycle(n)).
.decl outdeg(n: number, d: number)
.output outdeg
outdeg(n, d) :- node(n), d = count : { edge(n, _) }.
.decl far(n: number, m: number)
.output far
far(n, m) :- node(n), m = max y - x : { reach(x, y), x = n }.
// a variable of the target is the aggregate's own (Soufflé 2.5 renames it: one overall maximum)
.decl spread(n: number, m: number)
.output spread
spread(n, m) :- node(n), m = max y - n : { reach(n, y) }.
"""

edges = st.lists(st.tuples(st.integers(-3, 5), st.integers(-3, 5)), max_size=18)


def oracle(edge_set, nodes):
    reach = set(edge_set)
    while True:
        new = {(a, d) for (a, b) in reach for (c, d) in edge_set if b == c} - reach
        if not new:
            break
        reach |= new
    lonely = {n for n in nodes if (0, n) not in reach and (n, n) not in reach}
    outdeg = {(n, sum(1 for (a, _) in edge_set if a == n)) for n in nodes}
    far = {(n, max(y - n for (a, y) in reach if a == n)) for n in nodes
           if any(a == n for (a, _) in reach)}
    spread = {(n, max(y - a for (a, y) in reach)) for n in nodes if reach}
    return {"reach": sorted(reach), "lonely": sorted((n,) for n in lonely),
            "outdeg": sorted(outdeg), "far": sorted(far), "spread": sorted(spread)}


_checked = {}


def checked(tmp: Path):
    if "p" not in _checked:
        path = tmp / "graph.dl"
        path.write_text(PROGRAM)
        _checked["p"] = load_program(path)
    return _checked["p"]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])   # both embedded engines
@settings(max_examples=40, deadline=None)
@given(edges)
def test_graph_queries_match_python(tmp_path_factory, engine, edge_list):
    edge_set = set(edge_list)
    nodes = {x for e in edge_set for x in e} | {0}
    prog = checked(tmp_path_factory.mktemp("oracle"))
    got = run_checked(prog, None, engine,
                      facts={"edge": edge_list, "node": [(n,) for n in nodes]})
    assert got == oracle(edge_set, nodes)
