"""Block-local constant folding for branch correlation (issue #15 part B): PathFinder's first
source, "a node assigning a constant to v" (§7.1.3.1), extended to a value computed from
constants -- ``a = mul 924, 2; b = add a, 4`` assigns 1852 to b -- as LLVM's jump threading sees
through its lazy value analysis. An instruction's value is folded when every operand is an
immediate or a register an earlier unguarded instruction of the same block set to a folded value
(nothing in between redefines it), or compares an operand with itself (``cmp.eq @g, @g``: a
global's address is not a constant, but is equal to itself); the arithmetic is docs/pir.md's (64-bit wrapping, shift counts mod
64, ``div``/``rem`` truncating; a division by zero faults and is not folded). The values are
``assert_def`` rows ``eq C`` of the instruction."""
from __future__ import annotations

from typing import Optional

from pylogic.ir.model import BinOp, Block, Cmp, Imm, Mov, Reg, Select, UnOp, to_signed64
from pylogic.ir.ops import REFLEXIVE, fold


def _instruction_value(ins, value) -> Optional[int]:
    if isinstance(ins, Mov):
        return value(ins.src)
    if isinstance(ins, BinOp):
        a, b = value(ins.a), value(ins.b)
        if a is None or b is None or (ins.op in ("div", "rem") and b == 0):
            return None
        return fold(ins.op, a, b)
    if isinstance(ins, UnOp):
        a = value(ins.a)
        return None if a is None else fold(ins.op, a)
    if isinstance(ins, Cmp):
        if ins.a == ins.b and not isinstance(ins.a, Imm):   # one value compared with itself
            return int(ins.rel in REFLEXIVE)
        a, b = value(ins.a), value(ins.b)
        return None if a is None or b is None else fold(ins.rel, a, b)
    if isinstance(ins, Select):
        c = value(ins.cond)
        if c is None:
            return None
        return value(ins.a if c != 0 else ins.b)
    return None


def block_constants(block: Block) -> dict[int, int]:
    """``{index: value}`` of the instructions of ``block`` whose result is a folded constant."""
    known: dict[str, int] = {}
    out: dict[int, int] = {}

    def value(op) -> Optional[int]:
        if isinstance(op, Imm):
            return to_signed64(op.value)
        if isinstance(op, Reg):
            return known.get(op.name)
        return None                     # a global's address is chosen at run time

    for k, ins in enumerate(block.instrs):
        folded = _instruction_value(ins, value) if ins.guard is None else None
        for r in ins.defs():
            known.pop(r, None)
        if folded is not None and len(ins.defs()) == 1:
            known[ins.defs()[0]] = folded
            out[k] = folded
    return out
