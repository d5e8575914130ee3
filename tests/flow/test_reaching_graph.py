"""``flow.reaching_graph`` against ``flow.reaching`` (the oracle): every read of every program
reaches, through the graph's merge nodes, exactly the definitions the bit-vector reaching
definitions give it, and ``single`` names the one definition exactly when there is one. Programs:
random ones with guarded writes, predicate defines, side exits, edge equalities, constant
branches, loops and block-local loop counters; ``optimize_scale``'s generator; the examples. With
``FunctionValues``' SSA values (read as their definition, no merge nodes), on random programs
with registers written once and read in other blocks, dominators from networkx."""
from __future__ import annotations

import random
from pathlib import Path

import networkx as nx
import pytest

from pylogic.flow.function_values import FunctionValues
from pylogic.flow.reaching import reaching_definitions
from pylogic.flow.reaching_graph import reaching_graph
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module

REGS = ("a", "x", "y", "z")


def random_text(seed: int, n: int, values: bool = False) -> str:
    """A function of ``n`` blocks exercising every kind of definition ``flow.reaching`` has;
    ``values``: also registers ``v<i>`` written once (in block i) and read anywhere, SSA values
    where block i dominates their reads, and compared on a branch edge now and then."""
    rnd = random.Random(seed)

    def reg():
        return rnd.choice(REGS)

    def block(j=None):
        return f"L{rnd.randrange(n) if j is None else j}"

    lines = ["func main(a, s) {"]
    for i in range(n):
        lines.append(f"L{i}:")
        if values and rnd.random() < 0.8:
            lines.append(f"    v{i} = add {reg()}, {i}")
        for _ in range(rnd.randint(0, 5)):
            if values and rnd.random() < 0.5:       # mostly an earlier block's
                lines.append(f"    {reg()} = add v{rnd.randrange(i + 1)}, 1")
            kind = rnd.random()
            if kind < 0.3:
                lines.append(f"    {reg()} = add {reg()}, {rnd.randint(0, 3)}")
            elif kind < 0.45:
                lines.append(f"    (p) {reg()} = mov {reg()}")
            elif kind < 0.55:
                lines.append(f"    {'(q) ' if rnd.random() < 0.5 else ''}p:ut, q:uf = "
                             f"pcmp.gt {reg()}, {rnd.randint(0, 3)}")
            elif kind < 0.65:
                lines.append(f"    (p) br {block()}")
            elif kind < 0.75:
                lines.append(f"    k{i} = add k{i}, 1")       # a block-local counter
            else:
                lines.append(f"    print {reg()}")
        kind = rnd.random()
        if kind < 0.1 or i == n - 1:
            lines.append(f"    ret {reg()}")
        elif kind < 0.3:
            lines.append(f"    br {block()}")
        elif kind < 0.7:
            r = f"v{rnd.randrange(n)}" if values and rnd.random() < 0.2 else reg()
            if rnd.random() < 0.3:
                lines.append(f"    {r} = mov {reg()}")         # r equals K: so does the source
            lines.append(f"    c = cmp.{rnd.choice(('eq', 'ne', 'lt'))} {r}, {rnd.randint(0, 3)}")
            lines.append(f"    cbr c, {block()}, {block()}")
        elif kind < 0.8:
            lines.append(f"    c = mov {rnd.randint(0, 1)}")     # one way only
            lines.append(f"    cbr c, {block()}, {block()}")
        elif kind < 0.9:
            t = block()
            lines.append(f"    c = cmp.eq {reg()}, 2")
            lines.append(f"    cbr c, {t}, {t}")
        else:
            lines.append(f"    cbr {reg()}, {block(min(n - 1, i + 1))}, {block()}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _agree(fn, graph=None) -> int:
    """Assert the graph (default: built without SSA values) gives every read the oracle's
    definitions; the reads checked."""
    ref = reaching_definitions(fn)
    graph = reaching_graph(fn) if graph is None else graph
    assert graph.defs == ref.defs
    assert set(graph.reads) == set(ref.reads)
    for site, regs in ref.reads.items():
        assert set(graph.reads[site]) == set(regs), site
        for r, ids in regs.items():
            node = graph.at(site, r)
            assert graph.leaves(node) == set(ids), (site, r)
            assert graph.single(node) == (ids[0] if len(ids) == 1 else None), (site, r)
    return sum(len(regs) for regs in ref.reads.values())


@pytest.mark.parametrize("seed", range(60))
def test_random_programs(seed):
    text = random_text(seed, 3 + seed % 17)
    assert _agree(parse_module(text, "t.pir").functions[0]) > 0, text


@pytest.mark.parametrize("seed", range(4))
def test_optimize_scale_programs(seed):
    module = random_module([seed], blocks=60, span=8)
    assert _agree(module.functions[0]) > 0


def test_examples():
    root = Path(__file__).resolve().parents[2] / "examples"
    checked = 0
    for path in sorted(root.glob("*.pir")):
        for fn in parse_module(path.read_text(), str(path)).defined_functions():
            if fn.blocks:
                checked += _agree(fn)
    assert checked > 0


#: an SSA value compared on a branch edge: the read behind the edge reaches the edge's equality
EDGE_EQUALITY = """func main(a) {
L0:
    v = add a, 1
    c = cmp.eq v, 2
    cbr c, L1, L2
L1:
    print v
    ret v
L2:
    ret 0
}
"""


def test_ssa_values_read_as_their_definition():
    """``FunctionValues`` builds the graph with its SSA values read as their definitions: the
    same definitions reach every read; and some SSA value was read in a block its definition
    dominates without a merge node (what the option saves)."""
    direct = 0
    texts = [EDGE_EQUALITY] + [random_text(seed, 3 + seed % 17, values=True)
                               for seed in range(80)]
    for text in texts:
        fn = parse_module(text, "t.pir").functions[0]
        g = nx.DiGraph()
        g.add_nodes_from(b.label for b in fn.blocks)
        g.add_edges_from((b.label, t) for b in fn.blocks for t in b.successors())
        entry = fn.blocks[0].label
        idom = {n: d for n, d in nx.immediate_dominators(g, entry).items() if n != entry}
        values = FunctionValues(fn, idom)
        graph = values.reaching
        assert _agree(fn, graph) > 0
        home = {r: b for r, ((b, _k, _ins),) in ((r, values.defs[r]) for r in values.ssa)}
        direct += sum(1 for (label, _k), regs in graph.reads.items() for r, node in regs.items()
                      if r in home and home[r] != label and node < len(graph.defs))
    assert direct > 50
