"""pd_faint (datalog/predicated_deadness.dl): candidates whose values reach no needed instruction,
only other faint candidates, so a dead chain goes in one round instead of one link per round.
Oracle: the path-search def-use chains of test_predicated_deadness (independent of Datalog),
closed backwards from every non-candidate instruction with networkx; pd_faint must be exactly the
candidates outside that closure on branchy programs, and contain pd_dead's candidates."""
from __future__ import annotations

import networkx as nx
import pytest

from pylogic.analysis.run import module_rows
from pylogic.ir.parser import parse_module
from tests.datalog.random_programs import random_program
from tests.datalog.test_predicated_deadness import oracle
from tests.support import ENGINES

RELATIONS = ("pd_faint", "pd_dead", "pd_candidate")

CHAIN = """func main(a) {
entry:
    x = add a, 1
    y = mul x, 3
    z = sub y, x
    w = add a, 2
    c = cmp.gt a, 0
    cbr c, L, R
L:
    print w
    ret 0
R:
    i = mov 0
    br loop
loop:
    i = add i, 1
    t = cmp.lt i, 3
    cbr t, loop, done
done:
    ret 0
}
"""


def faint(module, engine="clingo") -> dict:
    rows = module_rows(module, "t.pir", relations=RELATIONS, engine=engine)
    out = {}
    for fn in module.defined_functions():
        fr = rows.function(fn.name)
        out[fn.name] = ({r[0] for r in fr["pd_faint"]}, {r[0] for r in fr["pd_dead"]},
                        {r[0] for r in fr["pd_candidate"]})
    return out


def oracle_faint(fn, candidates: set) -> set:
    du, _, _ = oracle(fn)
    g = nx.DiGraph()
    ids = [f"{b.label}#{k}" for b in fn.blocks for k in range(len(b.instrs))]
    g.add_nodes_from(ids)
    g.add_edges_from((u, d) for d, _, u in du)             # a reader needs its definitions
    needed = set()
    for i in ids:
        if i not in candidates:
            needed |= {i} | nx.descendants(g, i)
    return candidates - needed


def test_a_dead_chain_and_a_dead_loop_counter_are_faint():
    got, dead, cands = faint(parse_module(CHAIN))["main"]
    # z reads y and x, nothing reads z: the whole chain x, y, z goes; the loop counter i only
    # feeds its own compare and branch condition t, which the branch needs: it stays
    assert {"entry#0", "entry#1", "entry#2"} <= got
    assert dead == {"entry#2"}
    assert "entry#3" not in got and "loop#0" not in got and "R#0" not in got


@pytest.mark.parametrize("seed", range(30))
def test_branchy_random_programs_equal_the_oracle(seed):
    module = parse_module(random_program(seed))
    fn = module.defined_functions()[0]
    got, dead, cands = faint(module)["main"]
    assert got == oracle_faint(fn, cands)
    assert dead & cands <= got


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree(engine):
    """Every registered engine (clingo, duckdb, Soufflé when on PATH) gives clingo's rows."""
    for seed in range(4):
        module = parse_module(random_program(seed))
        assert faint(module, engine) == faint(module, "clingo")
