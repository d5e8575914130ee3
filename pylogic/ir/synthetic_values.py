"""Seeded generator of PIR programs for the PathFinder PRE tests and benchmarks: random CFGs (forward
branches, loops bounded by counters, diamonds, critical edges) whose blocks compute lexical
expressions over a few registers, redefine operands (kills), load and store a global. Every
program terminates and prints what it computes, so the interpreter can compare versions.
"""
from __future__ import annotations

import dataclasses
import random

from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.model import Module
from pylogic.ir.parser import parse_module

REGS = ("a", "b", "c", "d")
OPS = ("add", "sub", "mul", "xor")


def random_program(seed: int, blocks: int | None = None, name: str = "main",
                   span: int | None = None) -> str:
    """The text of one function ``name(a, b, c, d, s)`` (``s`` seeds its branch decisions);
    ``span``: forward branches go at most that many blocks ahead (most blocks stay reachable)."""
    rnd = random.Random(seed)
    n = blocks or rnd.randint(3, 10)
    exprs = [(rnd.choice(OPS), rnd.choice(REGS), rnd.choice(REGS + ("7",))) for _ in range(4)]
    lines = [f"func {name}(a, b, c, d, s) {{"]
    for i in range(n):
        lines.append(f"B{i}:")
        body = []
        for _ in range(rnd.randint(0, 3)):
            kind = rnd.random()
            if kind < 0.55:
                op, x, y = rnd.choice(exprs)
                dest = rnd.choice(("x", "y", "z")) if rnd.random() < 0.85 else x
                body.append(f"{dest} = {op} {x}, {y}")
                body.append(f"print {dest}")
            elif kind < 0.62:                    # single-definition temporaries (SSA style)
                op, x, y = rnd.choice(exprs)
                u = f"u{i}_{len(body)}"
                body.append(f"{u} = {op} {x}, {y}")
                if rnd.random() < 0.3:
                    body.append(f"{x} = add {x}, 1")  # makes u stale as a name of x
                body.append(f"w = {rnd.choice(OPS)} {u}, {rnd.choice(REGS)}")
                body.append("print w")
            elif kind < 0.7:
                body.append(f"{rnd.choice(REGS)} = add {rnd.choice(REGS)}, 1")
            elif kind < 0.85:
                body.append("v = load.8 g")
                body.append("print v")
            else:
                body.append(f"store.8 g, {rnd.choice(REGS)}")
        lines += ["    " + t for t in body]
        if i == n - 1:
            lines.append("    ret x")
            continue
        last = n - 1 if span is None else min(n - 1, i + span)
        fwd = rnd.randint(i + 1, last)
        r = rnd.random()
        if r < 0.2 and i > 0:                      # a loop back to some earlier block
            back = rnd.randint(0, i)
            lines += [f"    k{i} = add k{i}, 1", f"    t{i} = cmp.lt k{i}, 3",
                      f"    cbr t{i}, B{back}, B{fwd}"]
        elif r < 0.7:
            other = rnd.randint(i + 1, last)
            lines += ["    s = mul s, 1103515245", "    s = add s, 12345",
                      f"    q{i} = shr s, 16", f"    q{i} = and q{i}, 1",
                      f"    cbr q{i}, B{fwd}, B{other}"]
        else:
            lines.append(f"    br B{fwd}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def random_module(seeds, blocks: int | None = None, span: int | None = None) -> Module:
    """One module of ``random_program(seed)`` functions named ``f<seed>`` (blocks the entry does
    not reach dropped), and the global ``g``."""
    module = parse_module("global g[64]\n" + "".join(random_program(s, blocks, f"f{s}", span)
                                                     for s in seeds))
    functions = []
    for fn in module.functions:
        keep = set(reverse_postorder(fn))
        functions.append(dataclasses.replace(
            fn, blocks=tuple(b for b in fn.blocks if b.label in keep)))
    return dataclasses.replace(module, functions=tuple(functions))
