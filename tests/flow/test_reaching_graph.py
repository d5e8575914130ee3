"""``flow.reaching_graph`` against ``flow.reaching`` (the oracle): every read of every program
reaches, through the graph's merge nodes, exactly the definitions the bit-vector reaching
definitions give it, and ``single`` names the one definition exactly when there is one. Programs:
random ones with guarded writes, predicate defines, side exits, edge equalities, constant
branches, loops and block-local loop counters; ``optimize_scale``'s generator; the examples."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from pylogic.flow.reaching import reaching_definitions
from pylogic.flow.reaching_graph import reaching_graph
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module

REGS = ("a", "x", "y", "z")


def random_text(seed: int, n: int) -> str:
    """A function of ``n`` blocks exercising every kind of definition ``flow.reaching`` has."""
    rnd = random.Random(seed)

    def reg():
        return rnd.choice(REGS)

    def block(j=None):
        return f"L{rnd.randrange(n) if j is None else j}"

    lines = ["func main(a, s) {"]
    for i in range(n):
        lines.append(f"L{i}:")
        for _ in range(rnd.randint(0, 5)):
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
            r = reg()
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


def _agree(fn) -> int:
    """Assert the graph gives every read the oracle's definitions; the reads checked."""
    ref, graph = reaching_definitions(fn), reaching_graph(fn)
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
