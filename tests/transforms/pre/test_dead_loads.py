"""Dead loads removed by pre-m when they cannot fault (``pylogic/transforms/pre/dead_loads.py``).

Oracle: generated programs with unused loads of globals at offsets inside, at the edge of and
outside each global, through the global's address or a register: the interpreter's run of the
optimized program prints the same and stops with the same error as the original's (a removed
load never faulted), and exactly the in-bounds unused loads are gone."""
from __future__ import annotations

import random

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module
from pylogic.transforms.pre.dead_loads import drop_dead_safe_loads

HEADER = "global @g[8]\nglobal @h[3] = {1, 2, 3}\n"


def _loads(module) -> int:
    return sum(1 for fn in module.defined_functions() for b in fn.blocks for i in b.instrs
               if i.opcode == "load")


def test_only_unused_loads_inside_a_global_go():
    m = parse_module(HEADER + "func main(a) {\ne:\n x = load @g\n g4 = add @g, 4\n"
                     " y = load.4 g4\n z = load.4 @h\n w = load.1 @h\n u = load.2 @h\n"
                     " v = load g4\n print u\n br f\nf:\n t = load.4 g4\n ret 0\n}\n")
    fn, dropped = drop_dead_safe_loads(m.functions[0], {"@g": 8, "@h": 3})
    left = [str(i.dest) for b in fn.blocks for i in b.instrs if i.opcode == "load"]
    # x, y, w go; z (4 bytes of a 3-byte global), v (8 bytes at offset 4), t (g4 from another
    # block) and u (printed) stay
    assert dropped == 3 and left == ["z", "u", "v", "t"]


def dead_load_program(seed: int) -> str:
    rnd = random.Random(seed)
    lines = ["func main(a) {", "e:"]
    for j in range(rnd.randint(2, 8)):
        g, size = rnd.choice((("@g", 8), ("@h", 3)))
        off = rnd.choice((0, 1, 2, 4, 7, 8, -1))
        n = rnd.choice((1, 2, 4, 8))
        if rnd.random() < 0.5:
            lines += [f" r{j} = add {g}, {off}", f" d{j} = load.{n} r{j}"]
        else:
            lines.append(f" d{j} = load.{n} {g}")
        if rnd.random() < 0.3:
            lines.append(f" print d{j}")
        if rnd.random() < 0.3:
            lines.append(f" store.1 @g, {j}")
    lines += [" ret 0", "}"]
    return HEADER + "\n".join(lines) + "\n"


@pytest.mark.slow
def test_removed_loads_never_fault_and_in_bounds_dead_ones_all_go():
    removed = 0
    for seed in range(150):
        m = parse_module(dead_load_program(seed))
        new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
        before, after = run_module(m, "main", args=[0]), run_module(new, "main", args=[0])
        assert after.prints == before.prints, seed
        assert str(after.error) == str(before.error), seed
        removed += _loads(m) - _loads(new)
        fn, _ = drop_dead_safe_loads(new.functions[0], {"@g": 8, "@h": 3})
        assert fn == new.functions[0]          # nothing safe and unused left
    assert removed > 100
