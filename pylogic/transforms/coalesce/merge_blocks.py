"""Jumps to a block's only successor removed (issue #28 item 2, ``runs/gvn-wins-causes.json``):
a block B whose only predecessor P ends in an unguarded ``br B`` and has no other successor is
appended to P (P's ``br`` dropped, B's label gone), repeated along chains.

A compiler executes no such jump: LLVM's GVN merges every block into such a predecessor
(``MergeBlockIntoPredecessor``, lib/Transforms/Utils/BasicBlockUtils.cpp, called from
``GVN::runImpl``), and code generation's block placement makes the rest fall-throughs. Without
it, a PIR version that keeps -O0's ``for.body -> for.inc`` blocks executes one ``br`` per
iteration more than GVN's output of the same program (Shootout-sieve: 701,440 of the 701,440
instructions without ``mov`` by which gvn was ahead).

Left alone: the entry block (it has no predecessor to join), hyperblocks and annotated blocks
(their flags and annotations are per block), a block reached by several branches or by a
call's ``ret.N`` continuation, and a predecessor with side exits or a conditional branch.
"""
from __future__ import annotations

import dataclasses
from collections import Counter

from pylogic.ir.model import Br, Function, branch_targets


def _entries(fn: Function) -> Counter:
    """Per label, how many control transfers name it (a ``cbr`` with both arms to one label
    counts twice)."""
    return Counter(t for b in fn.blocks for ins in b.instrs for t in branch_targets(ins))


def merge_blocks(fn: Function) -> tuple[Function, int]:
    """``(fn with each such B appended to its P, how many blocks were merged)``."""
    if not fn.blocks:
        return fn, 0
    entries = _entries(fn)
    blocks = {b.label: b for b in fn.blocks}
    entry = fn.blocks[0].label
    gone: set = set()

    def joinable(p, label):
        b = blocks.get(label)
        return (b is not None and label != p.label and label != entry and label not in gone
                and entries[label] == 1 and not b.hyperblock and not b.annotations)

    for label in [b.label for b in fn.blocks]:
        if label in gone:
            continue
        p = blocks[label]
        while (not p.hyperblock and p.instrs and isinstance(last := p.instrs[-1], Br)
               and last.guard is None and p.successors() == (last.target,)
               and joinable(p, last.target)):
            b = blocks[last.target]
            p = dataclasses.replace(p, instrs=p.instrs[:-1] + b.instrs)
            gone.add(b.label)
        blocks[label] = p
    if not gone:
        return fn, 0
    return dataclasses.replace(fn, blocks=tuple(blocks[b.label] for b in fn.blocks
                                                if b.label not in gone)), len(gone)
