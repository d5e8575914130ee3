"""The registers each instruction of a block reads and writes, derived once per block object.

``simplify``'s rounds rebuild the reaching graph and ``FunctionValues`` of a function whose
blocks a round mostly leaves alone (``_rewrite_each`` and ``_delete_dead`` keep an unchanged
block the same object), and each build walked every instruction's operands again (issue #28
item 1). A block is immutable, so what it reads and writes is kept per block object
(``Block.derived``); the lists are exactly what ``Instr.uses``/``Instr.defs``
and ``reaching.read_registers`` give, in the same order.
"""
from __future__ import annotations

from dataclasses import dataclass

from pylogic.ir.model import TRUE_PREDICATES, Block, Reg, branch_targets

__all__ = ["BlockAccess", "block_access"]


@dataclass(frozen=True)
class BlockAccess:
    """Per instruction of one block (by index): ``reads[k]`` the registers it reads (operands,
    then its guard), ``defs[k]`` its ``defs()``, ``read_registers[k]`` its reads without the
    constant registers (``reaching.read_registers``); ``registers`` every register the block
    writes or reads, the constant ones left out; ``first_exit`` the index of its first
    instruction before the last that may leave it (a side exit), else its length;
    ``side_targets`` the targets of the instructions before the last, in order."""
    reads: tuple
    defs: tuple
    read_registers: tuple
    registers: frozenset
    first_exit: int
    side_targets: tuple


def _access(block: Block) -> BlockAccess:
    reads, defs, nonconstant = [], [], []
    for ins in block.instrs:
        got = [a.name for a in ins.uses() if isinstance(a, Reg)]
        if ins.guard is not None:
            got.append(ins.guard)
        reads.append(tuple(got))
        nonconstant.append(tuple(r for r in got if r not in TRUE_PREDICATES))
        defs.append(tuple(ins.defs()))
    registers = {r for rs in nonconstant for r in rs}
    registers.update(d for ds in defs for d in ds)
    registers.difference_update(TRUE_PREDICATES)
    first_exit = next((k for k, i in enumerate(block.instrs[:-1]) if branch_targets(i)),
                      len(block.instrs))
    side_targets = tuple(t for i in block.instrs[:-1] for t in branch_targets(i))
    return BlockAccess(tuple(reads), tuple(defs), tuple(nonconstant), frozenset(registers),
                       first_exit, side_targets)


def block_access(block: Block) -> BlockAccess:
    """``block``'s ``BlockAccess``, derived once per block object (``Block.derived``: it lives as
    long as the block; an ``IdentityCache`` lookup per block and build cost more than the
    derivation saved)."""
    return block.derived("_access", _access)
