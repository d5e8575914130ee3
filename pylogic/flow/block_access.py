"""The registers each instruction of a block reads and writes, derived once per block object.

``simplify``'s rounds rebuild the reaching graph and ``FunctionValues`` of a function whose
blocks a round mostly leaves alone (``_rewrite_each`` and ``_delete_dead`` keep an unchanged
block the same object), and each build walked every instruction's operands again (issue #28
item 1). A block is immutable, so what it reads and writes is kept per block object
(``Block.derived``); the lists are exactly what ``Instr.uses``/``Instr.defs``
and ``reaching.read_registers`` give, in the same order. A block a round rewrote or deleted pure
instructions of derives them from the block it replaces (``derive_access``): most of what a
round reads is in blocks the round before changed.
"""
from __future__ import annotations

from dataclasses import dataclass

from pylogic.ir.model import BRANCHING_CLASSES, TRUE_PREDICATES, Block, Reg, branch_targets

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


def _instr_access(ins) -> tuple:
    """``(reads, defs, read_registers)`` of one instruction (``BlockAccess``'s entries)."""
    got = [a.name for a in ins.uses() if type(a) is Reg]
    if ins.guard is not None:
        got.append(ins.guard)
    got = tuple(got)
    kept = got if not TRUE_PREDICATES.intersection(got) else \
        tuple(r for r in got if r not in TRUE_PREDICATES)
    ds = ins.defs()
    return got, ds if type(ds) is tuple else tuple(ds), kept


def _access(block: Block) -> BlockAccess:
    reads, defs, nonconstant = [], [], []
    registers: set = set()
    first_exit, side_targets = None, []
    last = len(block.instrs) - 1
    for k, ins in enumerate(block.instrs):
        got, ds, kept = _instr_access(ins)
        reads.append(got)
        nonconstant.append(kept)
        registers.update(kept)
        defs.append(ds)
        registers.update(ds)
        if k < last and type(ins) in BRANCHING_CLASSES:
            targets = branch_targets(ins)
            if targets:
                if first_exit is None:
                    first_exit = k
                side_targets.extend(targets)
    registers.difference_update(TRUE_PREDICATES)
    return BlockAccess(tuple(reads), tuple(defs), tuple(nonconstant), frozenset(registers),
                       len(block.instrs) if first_exit is None else first_exit,
                       tuple(side_targets))


def block_access(block: Block) -> BlockAccess:
    """``block``'s ``BlockAccess``, derived once per block object (``Block.derived``: it lives as
    long as the block; an ``IdentityCache`` lookup per block and build cost more than the
    derivation saved)."""
    got = block.__dict__.get("_access")     # ``Block.derived`` without its call when kept
    return block.derived("_access", _access) if got is None else got


def derive_access(old: Block, new: Block, kept: tuple, replaced: tuple = ()) -> BlockAccess:
    """``block_access(new)`` from ``old``'s when ``new``'s instructions are ``old``'s at the
    indices ``kept`` (ascending; those left out have no branch target) and, at the indices
    ``replaced`` of ``new``, instructions with the same branch targets as the ones they replace;
    kept per ``new`` object like ``block_access`` (``simplify``'s rounds rewrite and delete a
    few instructions of large blocks: only those are derived again, issue #28 item 1). Derived
    afresh when ``old``'s last instruction is left out (another one is last: its targets stop
    being side exits)."""
    if not kept or kept[-1] != len(old.instrs) - 1:
        return block_access(new)
    return new.derived("_access", lambda b: _derived(block_access(old), b, kept, replaced))


def _derived(was: BlockAccess, new: Block, kept: tuple, replaced: tuple) -> BlockAccess:
    reads = [was.reads[k] for k in kept]
    defs = [was.defs[k] for k in kept]
    nonconstant = [was.read_registers[k] for k in kept]
    for k in replaced:
        reads[k], defs[k], nonconstant[k] = _instr_access(new.instrs[k])
    registers: set = set()
    for kept_regs, ds in zip(nonconstant, defs):
        registers.update(kept_regs)
        registers.update(ds)
    registers.difference_update(TRUE_PREDICATES)
    first_exit = len(new.instrs)
    if was.first_exit < len(was.reads):         # the same instruction, now at its new index
        first_exit = kept.index(was.first_exit)
    return BlockAccess(tuple(reads), tuple(defs), tuple(nonconstant), frozenset(registers),
                       first_exit, was.side_targets)
