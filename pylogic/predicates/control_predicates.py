"""Control and executing predicates of a cycle-free region's blocks and instructions, as PAS BDDs
(predicated_pde.md §2.2): C-PRED(block) combines every condition under which control reaches the
block from the region's entry (C-PRED(entry) = p0, true); E-PRED(α) = C-PRED(BB_α) when α is
unguarded, else its materialised predicate M-PRED(α), computed in the robust form C-PRED ∧ M-PRED
(§2.2 [INF]: the two agree when M-PRED ⊆ C-PRED, as after if-conversion).

Edge conditions come from the block's own exits in order: a side exit ``(p) br L`` is taken
where control still runs and p holds; ``cbr c, T, F`` splits on ``c != 0``; an unguarded ``br``
takes what is left. Conditions and predicate values are PAS's (``PredicateAnalysis``), so two
C-PREDs can be compared, intersected and checked for disjointness on one canonical BDD.
"""
from __future__ import annotations

from typing import Sequence

from pylogic.ir.model import Br, CondBr, Function, Imm, Reg, Ret


def control_predicates(pa, fn: Function, labels: Sequence[str]) -> dict:
    """``{label: BDD}`` for the region of ``labels`` (a cycle-free region of ``fn`` listed in
    topological order, its entry first); edges from outside the region are not followed."""
    bdd = pa.engine.bdd
    region = set(labels)
    blocks = fn.block_map()
    cpred = {labels[0]: bdd.true}
    incoming: dict = {label: bdd.false for label in labels[1:]}
    for label in labels:
        if label not in cpred:
            cpred[label] = incoming[label]
        for target, cond in _exits(pa, label, blocks[label]):
            if target in region and target != labels[0]:
                incoming[target] = incoming[target] | (cpred[label] & cond)
    return cpred


def executing_predicate(pa, cpred: dict, label: str, index: int):
    """E-PRED of instruction ``index`` of block ``label`` (Eq. 1, robust form)."""
    return cpred[label] & pa.guard(label, index)


def _exits(pa, label: str, block) -> list:
    """[(target, condition relative to the block's entry)] of the block's exits, in order."""
    bdd = pa.engine.bdd
    running, out = bdd.true, []
    for k, ins in enumerate(block.instrs):
        if isinstance(ins, Br):
            if ins.guard is not None:
                taken = running & pa.guard(label, k)
                out.append((ins.target, taken))
                running = running & ~pa.guard(label, k)
            else:
                out.append((ins.target, running))
                return out
        elif isinstance(ins, CondBr):
            if isinstance(ins.cond, Reg):
                cond = pa.condition(ins.cond.name, "ne", 0, at=(label, k))
            elif isinstance(ins.cond, Imm):
                cond = bdd.true if ins.cond.value != 0 else bdd.false
            else:
                cond = bdd.true                   # a global's address is never 0
            out += [(ins.if_true, running & cond), (ins.if_false, running & ~cond)]
            return out
        elif isinstance(ins, Ret) and ins.guard is None:
            return out
    return out
