"""``FunctionValues.solve`` reaches a fixpoint: every write in a block found executable has bits
that contain what its instruction computes from the final bits of its operands (the worklist
evaluated it again after each change of what it reads; issue #28 item 1 numbers the
instructions and compiles their operands once per round, and skips instructions writing
nothing). Random functions of tests/flow/test_reaching_graph.py (loops, guarded writes,
predicate defines, side exits, branch equalities) and the examples."""
from __future__ import annotations

from pathlib import Path

from pylogic.flow import known_bits as kb
from pylogic.flow.function_values import FunctionValues
from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.model import PredDefine
from pylogic.ir.parser import parse_module
from tests.flow.test_reaching_graph import random_text


def idom_of(fn) -> dict:
    """``{block: immediate dominator}`` of the blocks reachable from the entry (Cooper, Harvey,
    Kennedy 2001), the entry left out, as ``simplify`` reads the ``idom`` rows."""
    order = reverse_postorder(fn)
    index = {b: i for i, b in enumerate(order)}
    preds: dict = {b: [] for b in order}
    for b in fn.blocks:
        if b.label in index:
            for t in b.successors():
                if t in index:
                    preds[t].append(b.label)
    idom = {order[0]: order[0]}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            new = None
            for p in preds[b]:
                if p not in idom:
                    continue
                if new is None:
                    new = p
                    continue
                x, y = p, new
                while x != y:
                    while index[x] > index[y]:
                        x = idom[x]
                    while index[y] > index[x]:
                        y = idom[y]
                new = x
            if idom.get(b) != new:
                idom[b], changed = new, True
    del idom[order[0]]
    return idom


def _check(fn) -> tuple[int, int]:
    """(writes checked, of them with some known bit)."""
    values = FunctionValues(fn, idom_of(fn))
    values.solve()
    checked = known = 0
    for b in fn.blocks:
        if b.label not in values.executable:
            continue
        for k, ins in enumerate(b.instrs):
            ds = ins.defs()
            if len(ds) != 1 or isinstance(ins, PredDefine) or ds[0] in values.params:
                continue
            got = values.evaluate(ins, (b.label, k))
            if got is None:
                continue
            have = values.bits[ds[0]]
            assert kb.join(have, got) == have, (b.label, k, ins, have, got)
            checked += 1
            known += have != kb.UNKNOWN
    return checked, known


def test_random_functions():
    checked = known = 0
    for seed in range(60):
        got = _check(parse_module(random_text(seed, 8), "t.pir").functions[0])
        checked, known = checked + got[0], known + got[1]
    assert checked > 300 and known > 100, (checked, known)


def test_examples_and_some_bits_known():
    root = Path(__file__).resolve().parents[2] / "examples"
    checked = known = 0
    for path in sorted(root.glob("*.pir")):
        for fn in parse_module(path.read_text(), str(path)).defined_functions():
            got = _check(fn)
            checked, known = checked + got[0], known + got[1]
    assert checked > 60 and known > 30, (checked, known)


def _operands_agree(fn) -> int:
    """``evaluated``'s operand bits are ``operand``'s at every instruction (solved or not: the
    registers with no reaching node read their bits after ``solve``), so ``simplify``'s rules
    read them from it; the number of instructions compared."""
    values = FunctionValues(fn, idom_of(fn))
    n = 0
    for solved in (False, True):
        if solved:
            values.solve()
        for b in fn.blocks:
            for k, ins in enumerate(b.instrs):
                got, ops = values.evaluated(ins, (b.label, k))
                assert got == values.evaluate(ins, (b.label, k))
                if ops is None:
                    assert got is None
                    continue
                assert ops == [values.operand(a, (b.label, k)) for a in ins.uses()], (b.label, k)
                n += 1
    return n


def test_evaluated_operands_are_operand():
    n = sum(_operands_agree(parse_module(random_text(seed, 8), "t.pir").functions[0])
            for seed in range(40))
    root = Path(__file__).resolve().parents[2] / "examples"
    for path in sorted(root.glob("*.pir")):
        for fn in parse_module(path.read_text(), str(path)).defined_functions():
            n += _operands_agree(fn)
    assert n > 500, n
