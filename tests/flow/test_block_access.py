"""``flow.block_access`` against the instructions themselves (the oracle): per instruction the
registers ``uses()`` and the guard read, ``defs()``, ``reaching.read_registers``; the block's
registers, first side exit and side exits' targets as ``FunctionValues`` used to derive them; and a block object
gives the same answer again while a rewritten block gives its own (random programs of
tests/flow/test_reaching_graph.py and the examples)."""
from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from pylogic.flow.block_access import _access, block_access, derive_access
from pylogic.flow.reaching import read_registers
from pylogic.ir.model import Reg, branch_targets
from pylogic.ir.parser import parse_module
from tests.flow.test_reaching_graph import random_text


def _check(fn) -> int:
    n = 0
    for b in fn.blocks:
        access = block_access(b)
        assert block_access(b) is access
        regs = set()
        for k, ins in enumerate(b.instrs):
            reads = [a.name for a in ins.uses() if isinstance(a, Reg)]
            if ins.guard is not None:
                reads.append(ins.guard)
            assert list(access.reads[k]) == reads
            assert list(access.defs[k]) == list(ins.defs())
            assert list(access.read_registers[k]) == read_registers(ins)
            regs.update(ins.defs())
            regs.update(read_registers(ins))
            n += 1
        assert access.registers == regs - {"p0", "true"}
        assert access.first_exit == next((k for k, i in enumerate(b.instrs[:-1])
                                           if branch_targets(i)), len(b.instrs))
        assert list(access.side_targets) == [t for i in b.instrs[:-1] for t in branch_targets(i)]
        shorter = dataclasses.replace(b, instrs=b.instrs[1:])
        assert len(block_access(shorter).reads) == len(b.instrs) - 1
    return n


@pytest.mark.parametrize("seed", range(20))
def test_random_programs(seed):
    text = random_text(seed, 8)
    assert _check(parse_module(text, "t.pir").functions[0]) > 0, text


def test_examples():
    root = Path(__file__).resolve().parents[2] / "examples"
    n = 0
    for path in sorted(root.glob("*.pir")):
        for fn in parse_module(path.read_text(), str(path)).defined_functions():
            n += _check(fn)
    assert n > 100


def _derived_agree(fn, rng) -> int:
    """``derive_access`` of each block with random instructions deleted (no branch, not the last)
    and replaced (by another of the function's instructions without a branch target) equals the
    new block's own ``BlockAccess``."""
    plain = [i for b in fn.blocks for i in b.instrs if not branch_targets(i)]
    n = 0
    for b in fn.blocks:
        last = len(b.instrs) - 1
        kept = tuple(k for k, i in enumerate(b.instrs)
                     if k == last or branch_targets(i) or rng.random() < 0.7)
        instrs = [b.instrs[k] for k in kept]
        replaced = tuple(j for j, k in enumerate(kept)
                         if not branch_targets(instrs[j]) and rng.random() < 0.3)
        for j in replaced:
            instrs[j] = rng.choice(plain)
        new = dataclasses.replace(b, instrs=tuple(instrs))
        got = derive_access(b, new, kept, replaced)
        assert got == _access(dataclasses.replace(b, instrs=tuple(instrs)))
        assert block_access(new) is got
        n += len(replaced) + len(b.instrs) - len(kept)
    return n


@pytest.mark.parametrize("seed", range(20))
def test_derived_after_rewrites_and_deletions(seed):
    rng = random.Random(seed)
    text = random_text(seed, 8)
    assert _derived_agree(parse_module(text, "t.pir").functions[0], rng) > 0, text
