"""facts_gen/constant_folding.py against the interpreter: random straight-line blocks over edge
values; every register a folded instruction writes holds, when the block runs, the folded value
(and an instruction that faults -- a division by zero -- is never folded)."""
from __future__ import annotations

import random

import pytest

from facts_gen.constant_folding import block_constants
from pylogic.interp import run_module
from pylogic.ir.model import BINARY_OPS, RELATIONS
from pylogic.ir.parser import parse_module

VALUES = (0, 1, -1, 2, 7, 31, 32, 63, 64, 65, 255, -(1 << 63), (1 << 63) - 1, 1 << 32, -924)
REGS = ("a", "b", "c", "d")


def random_block(rng: random.Random) -> list[str]:
    def op():
        return rng.choice(REGS) if rng.random() < 0.5 else str(rng.choice(VALUES))
    lines = []
    for _ in range(rng.randint(1, 8)):
        d, kind = rng.choice(REGS), rng.random()
        if kind < 0.5:
            lines.append(f"{d} = {rng.choice(BINARY_OPS)} {op()}, {op()}")
        elif kind < 0.6:
            lines.append(f"{d} = {rng.choice(['neg', 'not'])} {op()}")
        elif kind < 0.7:
            lines.append(f"{d} = cmp.{rng.choice(RELATIONS)} {op()}, {op()}")
        elif kind < 0.75:
            x = rng.choice(REGS)
            lines.append(f"{d} = cmp.{rng.choice(RELATIONS)} {x}, {x}")
        elif kind < 0.85:
            lines.append(f"{d} = select {op()}, {op()}, {op()}")
        elif kind < 0.93:
            lines.append(f"{d} = mov {op()}")
        else:
            lines.append(f"{d} = input")
    return lines


@pytest.mark.parametrize("seed", range(300))
def test_folded_values_are_what_the_interpreter_computes(seed):
    rng = random.Random(seed)
    lines = random_block(rng)
    params = ", ".join(REGS)
    body = "\n".join(f"    {x}" for x in lines)
    module = parse_module(f"func main({params}) {{\nentry:\n{body}\n    ret 0\n}}\n")
    folded = block_constants(module.function_map()["main"].blocks[0])
    # print each folded destination right after its instruction (a print defines nothing)
    out = []
    for k, line in enumerate(lines):
        out.append(f"    {line}")
        if k in folded:
            out.append(f"    print {line.split()[0]}")
    text = f"func main({params}) {{\nentry:\n" + "\n".join(out) + "\n    ret 0\n}\n"
    args = tuple(rng.choice(VALUES) for _ in REGS)       # parameters: never folded
    run = run_module(parse_module(text), args=args, inputs=(5, 6, 7, 8, 9, 10, 11, 12))
    want = [folded[k] for k in sorted(folded)]
    if run.error:                                        # a fault: only after the folded prints
        assert "division" in str(run.error) and run.prints == want[:len(run.prints)]
    else:
        assert run.prints == want


def test_folding_covers_chains_and_stops_at_unknowns():
    text = """func main(x) {
entry:
    a = mul 924, 2
    b = add a, 4
    c = sub b, 8
    d = div c, 2
    e = add x, 1
    f = cmp.ne d, 922
    g = div 1, 0
    i = cmp.le x, x
    a = input
    h = add a, 1
    ret 0
}
"""
    got = block_constants(parse_module(text).function_map()["main"].blocks[0])
    assert got == {0: 1848, 1: 1852, 2: 1844, 3: 922, 5: 0, 7: 1}


@pytest.mark.parametrize("seed", range(200))
def test_opcode_ranges_hold_on_the_interpreter(seed):
    """``_range_of``'s signed narrow loads and ``or`` with a negative mask: the value the
    interpreter computes lies in the asserted range."""
    from facts_gen.interprocedural import _range_of
    from facts_gen.value_sets import parse_condition
    rng = random.Random(seed)
    size = rng.choice((1, 2, 4))
    byte_values = [rng.randrange(256) for _ in range(8)]
    mask = -rng.randrange(1, 1 << rng.choice((2, 8, 40)))
    x = rng.choice(VALUES)
    text = (f"global m[8] = {{{', '.join(map(str, byte_values))}}}\nfunc main(x) {{\nentry:\n"
            f"    a = load.{size} m\n    b = or x, {mask}\n    print a\n    print b\n    ret 0\n}}\n")
    module = parse_module(text)
    block = module.function_map()["main"].blocks[0]
    got = run_module(module, args=(x,)).prints
    for ins, value in zip(block.instrs[:2], got):
        (lo, hi), = parse_condition(_range_of(ins))
        assert lo <= value <= hi, (ins, value)
