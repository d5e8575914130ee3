"""The CFG structure PAS reads from Datalog rows (``cfg_structure``: facts_gen's reverse postorder
and retreating edges, ``idom`` of dominance.dl, natural loops of loops.dl, ``live_in`` of
liveness.dl) equals what the Python algorithms it replaced compute (structure_oracle.py:
networkx dominators, DFS, natural-loop body search, predicate-aware liveness) on every engine:
on the generated define functions of these tests, on random CFGs (irreducible loops, unreachable
blocks, self-loops, side exits, guarded ordinary writes) and on examples/*.pir.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import structure_oracle as oracle
from analysed import RELPATH, distinct, rows_of_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from network_gen import PREDS, defines, functions

from pylogic.ir.model import (
    BinOp, Block, Br, Cmp, CondBr, Function, Imm, Input, Module, Mov, Print, Reg, Ret,
)
from pylogic.ir.parser import parse_file, parse_module
from pylogic.predicates import PAS_RELATIONS, PredicateAnalysis
from pylogic.predicates.network import cfg_structure
from tests.support import ENGINES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REGS = ["r1", "r2", "r3"]


@st.composite
def ordinary(draw):
    """An ordinary instruction, guarded or not (a guarded write reads its destination)."""
    guard = draw(st.sampled_from([None, None, "p0"] + PREDS))
    dest = draw(st.sampled_from(REGS + PREDS[:2]))
    src = Reg(draw(st.sampled_from(REGS + PREDS)))
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return Mov(guard=guard, dest=dest, src=src)
    if kind == 1:
        return BinOp(guard=guard, op="add", dest=dest, a=src, b=Imm(1))
    if kind == 2:
        return Cmp(guard=guard, rel="lt", dest=dest, a=src, b=Imm(0))
    if kind == 3:
        return Input(guard=guard, dest=dest)
    return Print(guard=guard, value=src)


@st.composite
def cfg_functions(draw):
    """A random CFG of 1-7 blocks (any edges: irreducible loops, self-loops, unreachable blocks;
    three or more successors become guarded side exits), blocks full of random instructions."""
    n = draw(st.integers(1, 7))
    labels = [f"b{k}" for k in range(n)]
    blocks = []
    for label in labels:
        succ = list(dict.fromkeys(draw(st.lists(st.sampled_from(labels), max_size=3))))
        body = list(draw(st.lists(st.one_of(ordinary(), defines(REGS, 1).map(tuple)),
                                  max_size=4)))
        body = [i for x in body for i in (x if isinstance(x, tuple) else (x,))]
        if not succ:
            body.append(Ret())
        elif len(succ) == 1:
            body.append(Br(target=succ[0]))
        elif len(succ) == 2:
            body.append(CondBr(cond=Reg(draw(st.sampled_from(REGS))), if_true=succ[0],
                               if_false=succ[1]))
        else:
            for t in succ[:-1]:
                body.append(Br(guard=draw(st.sampled_from(PREDS)), target=t))
            body.append(Br(target=succ[-1]))
        blocks.append(Block(label=label, instrs=tuple(body)))
    return Function(name="cfg", params=("r1", "r2"), blocks=tuple(blocks))


def loops_of(structure) -> dict:
    return {h: (lp.latches, lp.body, lp.reducible) for h, lp in structure.loops.items()}


def check(module: Module, relpath: str, engine: str) -> None:
    rows = rows_of_module(module, relpath, PAS_RELATIONS, engine)
    for fn in module.defined_functions():
        s = cfg_structure(fn, rows.of(f"{relpath}::{fn.name}"))
        rpo, retreating = oracle.dfs(fn)
        assert (s.rpo, s.retreating) == (rpo, retreating), fn.name
        assert s.idom == oracle.immediate_dominators(fn), fn.name
        want = oracle.natural_loops(fn)
        assert loops_of(s) == want and list(s.loops) == list(want), fn.name
        assert s.live_in == oracle.live_in(fn), fn.name


#: 10 examples of 20 functions (200 per engine, as 25 of 8 were): an engine call's fixed cost
#: (DuckDB's above all) paid 10 times, not 25
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@SETTINGS
@given(batch=st.lists(cfg_functions(), min_size=20, max_size=20))
def test_random_cfgs_match_the_oracle(engine, batch):
    check(Module(functions=tuple(distinct(batch)), path=RELPATH), RELPATH, engine)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@SETTINGS
@given(batch=st.lists(functions(), min_size=20, max_size=20))
def test_generated_define_functions_match_the_oracle(engine, batch):
    check(Module(functions=tuple(distinct(batch)), path=RELPATH), RELPATH, engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.pir")), ids=lambda p: p.name)
@pytest.mark.slow
def test_examples_match_the_oracle(engine, path):
    check(parse_file(path), path.name, engine)


IRREGULAR = """
func irr(c, n) {
a:
    p1:ut, p2:uf = pcmp.lt c, 0
    cbr c, b, d
b:
    (p1) p3:ot = pcmp.eq n, 1
    cbr n, d, x
d:
    (p2) p3:af = pcmp.gt n, 2
    cbr c, b, x
x:
    cbr n, x, done
done:
    (p3) print 1
    ret
dead:
    p4:ut = pcmp.eq 0, 0
    br x
}
"""


def test_irreducible_unreachable_and_self_loop():
    """pas.md §3.6: the two-entry cycle b<->d is irreducible (its header b, the target of the
    DFS's retreating edge d->b, gets p* for every name and no copies); the self-loop x is a
    reducible loop whose latch is itself; the unreachable block has no idom and is analysed
    from the initial state."""
    fn = parse_module(IRREGULAR, "irr.pir").functions[0]
    rows = rows_of_module(Module(functions=(fn,), path=RELPATH)).of(f"{RELPATH}::irr")
    s = cfg_structure(fn, rows)
    assert loops_of(s) == oracle.natural_loops(fn)
    assert {h: lp.reducible for h, lp in s.loops.items()} == {"b": False, "x": True}
    assert s.loops["x"].latches == ["x"] and s.loops["x"].body == {"x"}
    assert "dead" not in s.idom and "dead" not in s.rpo
    pa = PredicateAnalysis(fn, rows, check="sat")
    assert pa.net.loops["b"].defined == ["p1", "p2", "p3"]    # every (reachable) name, as p*
    assert pa.net.loop_of["b"] == "b" and pa.net.loop_of["d"] is None
    assert pa.has_free_history(("p3", "d"))
    assert pa.always_true(("p4", "dead")) and pa.disjoint(("p1", "a"), ("p2", "a"))
