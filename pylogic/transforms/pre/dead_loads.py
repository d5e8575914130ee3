"""Dead loads that cannot fault (issue #14: GVN deletes a load whose value nobody reads; PIR's
interpreter stops on a bad address, so only a load proven safe may go).

A load is *safe* when it reads inside a global object: its address is the global's address, or
a register written once, unguarded, earlier in the same block by ``mov G`` / ``add G, C`` /
``add C, G`` (so it holds that address when the load runs), and ``0 <= C`` and
``C + size <= the global's size`` (docs/pir.md: every global is a segment of its size; a load inside
it reads initialised bytes). A safe load whose destination no instruction of the function reads
is removed: it has no other effect.

Example: ``q = load @Timer_Queue`` with q unused (gcc torture pr25737) is removed.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Optional

from pylogic.ir.model import BinOp, Block, Function, GlobalAddr, Imm, Load, Mov, Reg


def _global_offset(ins, globals_: dict) -> Optional[tuple[str, int]]:
    """``(global, offset)`` an unguarded ``mov G`` / ``add G, C`` writes, else None."""
    if ins.guard is not None:
        return None
    if isinstance(ins, Mov) and isinstance(ins.src, GlobalAddr):
        return ins.src.name, 0
    if isinstance(ins, BinOp) and ins.op == "add":
        for g, c in ((ins.a, ins.b), (ins.b, ins.a)):
            if isinstance(g, GlobalAddr) and isinstance(c, Imm):
                return g.name, c.value
    return None


def safe_loads(block: Block, globals_: dict, count: Counter) -> set[int]:
    """Indexes of the loads of ``block`` that read inside a global (the module doc);
    ``globals_``: {name: size}; ``count``: how often each register is written in the function."""
    held: dict[str, tuple[str, int]] = {}       # register -> (global, offset) it now holds
    out = set()
    for k, ins in enumerate(block.instrs):
        if isinstance(ins, Load) and ins.guard is None:
            if isinstance(ins.addr, GlobalAddr):
                at = (ins.addr.name, 0)
            else:
                at = held.get(ins.addr.name) if isinstance(ins.addr, Reg) else None
            if at is not None and at[0] in globals_ and 0 <= at[1] and \
                    at[1] + ins.size <= globals_[at[0]]:
                out.add(k)
        for r in ins.defs():
            held.pop(r, None)
        got = _global_offset(ins, globals_)
        if got is not None and count[ins.defs()[0]] == 1:
            held[ins.defs()[0]] = got
    return out


def drop_dead_safe_loads(fn: Function, globals_: dict) -> tuple[Function, int]:
    """``fn`` without its safe loads whose destination is never read; and how many went."""
    read = {a.name for b in fn.blocks for i in b.instrs for a in i.uses() if isinstance(a, Reg)}
    read |= {i.guard for b in fn.blocks for i in b.instrs if i.guard is not None}
    read |= set(fn.params)
    count = None
    blocks, dropped = [], 0
    for b in fn.blocks:
        if not any(isinstance(i, Load) and i.dest not in read for i in b.instrs):
            blocks.append(b)            # no load nobody reads (most blocks)
            continue
        if count is None:
            count = Counter(r for c in fn.blocks for i in c.instrs for r in i.defs())
        gone = {k for k in safe_loads(b, globals_, count) if b.instrs[k].dest not in read}
        dropped += len(gone)
        blocks.append(dataclasses.replace(
            b, instrs=tuple(i for k, i in enumerate(b.instrs) if k not in gone)) if gone else b)
    return (dataclasses.replace(fn, blocks=tuple(blocks)) if dropped else fn), dropped
