"""liveness.dl's live_in_copied (issue #28 item 1: coalesce reads liveness of the registers movs
write or read, not of every register) equals live_in restricted to those registers, on every
engine, on generated functions after pre-m (temporaries and copies) and on predicated code."""
from __future__ import annotations

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.ir.model import Mov, Reg
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module
from tests.support import ENGINES

GUARDED = """
func f(a, b, p) {
e:
    x = add a, b
    y = mov x
    (p) y = mov a
    cbr p, l, m
l:
    z = mov y
    br m
m:
    print z
    ret y
}
"""


def _copied(fn) -> set:
    return {r for b in fn.blocks for ins in b.instrs if isinstance(ins, Mov)
            for r in [ins.dest] + [a.name for a in ins.uses() if isinstance(a, Reg)]}


@pytest.fixture(scope="module")
def modules():
    pre = optimize(random_module(list(range(1, 31))), ["pre-m"], "gen.pir", engine="clingo")
    return [pre.module, parse_module(GUARDED, "g.pir")]


@pytest.mark.parametrize("engine", ENGINES)
def test_live_in_copied_is_live_in_of_the_copied_registers(engine, modules):
    checked = 0
    for module in modules:
        rows = module_rows(module, "gen.pir", relations=["live_in", "live_in_copied"],
                           engine=engine)
        for fn in module.defined_functions():
            copied = _copied(fn)
            view = rows.function(fn.name)
            want = sorted({(b, r) for b, r in view["live_in"] if r in copied})
            assert sorted(set(view["live_in_copied"])) == want, fn.name
            checked += bool(want)
    assert checked >= 10          # copies live across blocks in most functions
