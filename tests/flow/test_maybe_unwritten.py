"""``function_values._maybe_unwritten`` (definite assignment over the writes and reads of the
registers that are no SSA value, issue #28 item 1) against a walk of every instruction with
sets of registers: the registers some read of which may come before any write. Random
functions of tests/flow/test_reaching_graph.py (loops, guarded writes, predicate defines, side
exits) and the examples."""
from __future__ import annotations

from pathlib import Path

from pylogic.flow.block_access import block_access
from pylogic.flow.function_values import FunctionValues, _maybe_unwritten
from pylogic.ir.cfg import block_predecessors
from pylogic.ir.model import PredDefine
from pylogic.ir.parser import parse_module
from tests.flow.test_function_values_solve import idom_of
from tests.flow.test_reaching_graph import random_text


def walked(fn, values: FunctionValues) -> set:
    """The oracle: per block, the registers written on every path to its entry (a must
    problem iterated to its greatest fixpoint with sets), then each instruction in order."""
    regs = {r for r in values.defs if r not in values.ssa and r not in values.params}
    live = [b for b in fn.blocks if b.label in values.pre]

    def writes(b, upto):
        return {d for ins, ds in zip(b.instrs[:upto], block_access(b).defs)
                if ins.guard is None and not isinstance(ins, PredDefine) for d in ds}
    leaving = {b.label: writes(b, block_access(b).first_exit + 1) for b in live}
    preds = block_predecessors(fn)
    entry = fn.blocks[0].label
    into = {b.label: (set() if b.label == entry else set(regs)) for b in live}
    changed = True
    while changed:
        changed = False
        for b in live:
            if b.label == entry:
                continue
            new = set(regs)
            for p in preds[b.label]:
                if p in into:
                    new &= into[p] | leaving[p]
            if new != into[b.label]:
                into[b.label], changed = new, True
    out = set()
    for b in live:
        for k, rs in enumerate(block_access(b).reads):
            done = into[b.label] | writes(b, k)
            out.update(r for r in rs if r in regs and r not in done)
    return out


def _compare(fn) -> int:
    values = FunctionValues(fn, idom_of(fn))
    got = _maybe_unwritten(fn, values.defs, values.reads, values.ssa, values.params,
                           values.pre, values.first_exit)
    assert got == walked(fn, values), fn.name
    return len(got)


def test_random_functions():
    found = sum(_compare(parse_module(random_text(seed, 8), "t.pir").functions[0])
                for seed in range(80))
    assert found > 20       # the comparison saw registers read before a write


def test_examples():
    root = Path(__file__).resolve().parents[2] / "examples"
    for path in sorted(root.rglob("*.pir")):
        for fn in parse_module(path.read_text(), str(path)).functions:
            if fn.blocks and not fn.extern:
                _compare(fn)
