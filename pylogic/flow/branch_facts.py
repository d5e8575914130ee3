"""Compares decided by a dominating branch on the same operands (issue #14, value numbering):
what GVN's propagateEquality does for a branch condition ``a REL b`` -- on the edge where it is
true, ``a REL b`` is 1 and its inverse 0 (and ``a == b`` makes ``a``, ``b`` one value) -- here as a
truth table over the order of the two operands.

A fact is an edge ``B -> T`` that is T's only entry (``sole_entry_edges``), where B ends in
``cbr c, T, F`` (T != F) and c was computed in B by ``c = cmp.REL a, b`` (unguarded, c not
written again before the branch): in every block T dominates, ``a REL b`` is 1 (T is the true
target) or 0 (the false one), provided a and b hold the values they held at the compare. That
is so for *stable* operands (literals, globals' addresses, parameters never written, SSA
registers whose single definition dominates every read): the compare in B follows the
operand's last definition and, T's only entry being from B, every path to a block T dominates
crosses the edge after that definition.

A later ``cmp.REL2 x, y`` whose operands are the same values (``x, y`` = ``a, b`` or ``b, a``)
is then decided when REL2 has one outcome on every order of the two values the fact leaves
possible: the orders are the five (signed, unsigned) pairs of {<, =, >} (equal signed iff equal
unsigned), so ``cmp.lt`` true decides ``cmp.ge`` (0), ``cmp.ne`` (1), ``cmp.le`` (1) but not
``cmp.ltu``.

Example: ``e: c = cmp.eq x, y / cbr c, t, f`` then in t: ``d = cmp.ne x, y`` is 0 (compare-3.c).

References: LLVM 14 GVN.cpp (propagateEquality: "If "A < B" is true then "A >= B" is false"),
InstructionSimplify.cpp (isImpliedCondition).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterator, Optional

from pylogic.flow.block_access import block_access
from pylogic.ir.cfg import block_predecessors
from pylogic.ir.model import Block, Cmp, CondBr, Function, Reg, branch_targets
from pylogic.ir.ops import UNSIGNED_RELS, eval_rel

__all__ = ["ORDERS", "holds", "decide", "BranchFacts", "sole_entry_edges"]

#: (signed order, unsigned order) of two 64-bit values, as signs -1 / 0 / 1
ORDERS = ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1))


def holds(rel: str, order: tuple) -> bool:
    """Does ``a REL b`` hold when a and b are in ``order`` (signed, unsigned)? As ``sign REL 0``
    for the sign of the order REL compares in, REL's signed form for an unsigned relation."""
    if rel in UNSIGNED_RELS:
        return eval_rel(rel[:-1], order[1], 0)
    return eval_rel(rel, order[0], 0)


def decide(fact_rel: str, fact_value: int, swapped: bool, rel: str) -> Optional[int]:
    """The value of ``x REL y`` when ``a FACT_REL b`` is ``fact_value`` and (x, y) is (a, b), or
    (b, a) when ``swapped``; None when the fact leaves both outcomes possible."""
    outcomes = set()
    for order in ORDERS:
        if holds(fact_rel, order) != bool(fact_value):
            continue
        mine = (-order[0], -order[1]) if swapped else order
        outcomes.add(holds(rel, mine))
    if len(outcomes) == 1:
        return int(outcomes.pop())
    return None


def sole_entry_edges(fn: Function) -> Iterator[tuple[Block, CondBr, str, int]]:
    """``(block B, its cbr, target T, 1 or 0)`` for each edge of a ``cbr c, T, F`` (T != F)
    ending B that is T's only way in, so that c is non-zero (1) or zero (0) wherever T
    dominates: T is not the entry (the function's start enters it too), B is its only
    predecessor, and no side exit of B goes to T."""
    preds = block_predecessors(fn)
    entry = fn.blocks[0].label if fn.blocks else None
    for b in fn.blocks:
        br = b.instrs[-1] if b.instrs else None
        if not isinstance(br, CondBr) or br.guard is not None or br.if_true == br.if_false:
            continue
        for target, truth in ((br.if_true, 1), (br.if_false, 0)):
            if target != entry and preds[target] == [b.label] \
                    and target not in block_access(b).side_targets:
                yield b, br, target, truth


class BranchFacts:
    """The facts of one function (module docstring). ``stable(operand)`` says whether an operand
    is stable and ``key(operand)`` gives the value it stands for (e.g. through SSA copies);
    ``dominates(d, n)`` is block dominance; ``value(block, cmp, key)`` answers per compare.

    References: LLVM 14 GVN.cpp (propagateEquality), InstructionSimplify.cpp
    (isImpliedCondition)."""

    def __init__(self, fn: Function, stable: Callable, key: Callable, dominates: Callable):
        self.dominates = dominates
        blocks = fn.block_map()
        # (key a, key b) -> [(block T, rel, value)]
        self.facts: dict = defaultdict(list)
        for b, br, target, value in sole_entry_edges(fn):
            cmp = _condition(b.instrs, br)
            if target in blocks and cmp is not None and stable(cmp.a) and stable(cmp.b):
                self.facts[(key(cmp.a), key(cmp.b))].append((target, cmp.rel, value))

    def value(self, block: str, ins: Cmp, key: Callable) -> Optional[int]:
        """The value of the compare ``ins`` in ``block`` a fact decides, or None (its operands
        must be stable: the caller checks)."""
        a, b = key(ins.a), key(ins.b)
        for pair, swapped in (((a, b), False), ((b, a), True)):
            for target, rel, v in self.facts.get(pair, ()):
                if self.dominates(target, block):
                    got = decide(rel, v, swapped, ins.rel)
                    if got is not None:
                        return got
        return None


def _condition(instrs: tuple, br: CondBr) -> Optional[Cmp]:
    """The unguarded compare that computes the branch's condition in the block, its result not
    written again before the branch (None otherwise)."""
    if not isinstance(br.cond, Reg):
        return None
    c = br.cond.name
    for ins in reversed(instrs[:-1]):
        if c in ins.defs():
            if isinstance(ins, Cmp) and ins.guard is None and c not in (
                    getattr(ins.a, "name", None), getattr(ins.b, "name", None)):
                return ins
            return None
        if branch_targets(ins):
            return None
    return None
