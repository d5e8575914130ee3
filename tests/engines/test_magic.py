"""The magic-set transformation (``.pragma "magic-transform"``; engines/magic.py) changes no
answer: each program here gives the same rows with and without the pragma, and the rows of an
independent oracle (networkx); where it applies, it makes a goal-directed query feasible."""
from __future__ import annotations

import random

import networkx as nx
import pytest

from pylogic.engines import load_program, run_program

PRAGMA = '.pragma "magic-transform" "*"\n'

PROGRAMS = {
    "reach from a constant": """
.decl e(x: number, y: number)
.input e
.decl r(x: number, y: number)
r(x, y) :- e(x, y).
r(x, z) :- r(x, y), e(y, z).
.decl q(y: number)
.output q
q(y) :- r(3, y).
""",
    "mutual recursion, negation and an aggregate over magic relations": """
.decl e(x: number, y: number)
.input e
.decl odd(x: number, y: number)
.decl even(x: number, y: number)
even(x, x) :- e(x, _).
odd(x, z) :- even(x, y), e(y, z).
even(x, z) :- odd(x, y), e(y, z).
.decl q(y: number, n: number)
.output q
q(y, n) :- odd(1, y), !even(1, y), n = count : { e(y, _) }.
""",
    "bound by an earlier atom, arithmetic argument left free": """
.decl e(x: number, y: number)
.input e
.decl start(x: number)
start(2). start(5).
.decl r(x: number, y: number)
r(x, y) :- e(x, y).
r(x, z) :- r(x, y), r(y, z).
.decl q(x: number, y: number)
.output q
q(x, y) :- start(x), r(x, y), r(y + 0, x).
""",
}


def _edges(seed: int, n: int = 25, m: int = 45):
    rnd = random.Random(seed)
    return sorted({(rnd.randrange(n), rnd.randrange(n)) for _ in range(m)})


def _run(tmp_path, text, edges):
    (tmp_path / "e.facts").write_text("".join(f"{a}\t{b}\n" for a, b in edges))
    prog = tmp_path / "p.dl"
    prog.write_text(text)
    return run_program(prog, tmp_path, "clingo")


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_pragma_changes_no_answer(tmp_path, name, seed):
    edges = _edges(seed)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = _run(tmp_path / "a", PROGRAMS[name], edges)
    magic = _run(tmp_path / "b", PRAGMA + PROGRAMS[name], edges)
    assert magic == plain
    checked = load_program(tmp_path / "b" / "p.dl")
    assert any("#" in rel for rel in checked.relations), "the transformation did not apply"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reach_from_a_constant_against_networkx(tmp_path, seed):
    edges = _edges(seed)
    got = _run(tmp_path, PRAGMA + PROGRAMS["reach from a constant"], edges)
    closure = nx.transitive_closure(nx.DiGraph(edges), reflexive=None)  # paths of length >= 1
    assert got["q"] == sorted((y,) for x, y in closure.edges() if x == 3)


def test_same_generation_over_a_tree_is_goal_directed(tmp_path):
    height = 12                         # 4,095 nodes: ~5.6 M samegen tuples without magic
    nodes = range(1, 2 ** height)
    (tmp_path / "node.facts").write_text("".join(f"{n}\n" for n in nodes))
    # parent(x, p): p is x's parent (heap numbering)
    (tmp_path / "parent.facts").write_text("".join(f"{n}\t{n // 2}\n" for n in nodes if n > 1))
    prog = tmp_path / "p.dl"
    left, right, other = 2 ** (height - 1), 2 ** height - 1, 2 ** (height - 2)
    prog.write_text(PRAGMA + ".decl node(x: number)\n.input node\n"
                    ".decl parent(x: number, y: number)\n.input parent\n"
                    ".decl sg(x: number, y: number)\nsg(x, x) :- node(x).\n"
                    "sg(x, y) :- parent(x, a), sg(a, b), parent(y, b).\n"
                    ".decl q(n: number)\n.output q\n"
                    f"q(1) :- sg({left}, {right}).\nq(2) :- sg({left}, {other}).\n")
    assert run_program(prog, tmp_path, "clingo")["q"] == [(1,)]   # same depth; not


@pytest.mark.parametrize("query", ["sg(16, 31)", "sg(16, 8)", "sg(x, 31), x < 20", "sg(5, x)"])
def test_same_generation_with_and_without_the_pragma(tmp_path, query):
    nodes = range(1, 2 ** 5)
    rows = []
    for sub, pragma in (("a", ""), ("b", PRAGMA)):
        d = tmp_path / sub
        d.mkdir()
        (d / "node.facts").write_text("".join(f"{n}\n" for n in nodes))
        (d / "parent.facts").write_text("".join(f"{n}\t{n // 2}\n" for n in nodes if n > 1))
        (d / "p.dl").write_text(pragma + ".decl node(x: number)\n.input node\n"
                                ".decl parent(x: number, y: number)\n.input parent\n"
                                ".decl sg(x: number, y: number)\nsg(x, x) :- node(x).\n"
                                "sg(x, y) :- parent(x, a), sg(a, b), parent(y, b).\n"
                                ".decl q(x: number)\n.output q\n"
                                f"q(x) :- node(x), {query}.\n")
        rows.append(run_program(d / "p.dl", d, "clingo")["q"])
    depth = {n: n.bit_length() for n in nodes}
    assert rows[0] == rows[1]
    assert rows[0] != [] or query == "sg(16, 8)"
    if query == "sg(16, 31)":
        assert depth[16] == depth[31] and rows[0] == [(n,) for n in nodes]
