"""Hyperblock region selection: acyclic single-entry regions grown from a head block.

A region is a head block plus blocks *reached only from within*: every non-head block has all of
its predecessors inside the region, and every edge into it comes from a predecessor's final
terminator (never from a guarded side exit). Grown this way a region is acyclic and laid out in a
topological order (a block is added only after all its predecessors); an edge back to the head is
a loop back edge and stays an exit of the region (IMPACT loop hyperblocks, Mahlke et al. 1992;
predicated_cp.md §2.2). Inner loop headers are never merged (their back edge comes from outside).

Heads are taken in reverse postorder of the function; blocks merged into an earlier region are not
heads again. Growth is greedy: among the blocks that may be added, the first in the function's
text (so the layout follows the source order where the CFG allows).
References: predicated_cp.md §2.2, §3.2; pas.md §2.1.
"""
from __future__ import annotations

from dataclasses import dataclass

from pylogic.ir.cfg import retreating_edges, reverse_postorder
from pylogic.ir.model import (TRUE_PREDICATES, Alloca, Block, Call, Function, Load, PredDefine,
                              Store, branch_targets)
from pylogic.transforms.record import Rejection

__all__ = ["Region", "RegionLimits", "select_regions", "final_targets", "side_exit_targets",
           "block_obstacle", "NOT_PREDICABLE_TYPES"]

#: Deposit types that write even when their guard is 0 (docs/pir.md), so a *guarded* one cannot be put
#: under a further block predicate by conjoining guards. Unguarded ut/uf/conjt/conjf are
#: rewritten (ct/cf/at/af); unguarded disjt/disjf cannot be.
NOT_PREDICABLE_TYPES = frozenset({"ut", "uf", "disjt", "disjf", "conjt", "conjf"})

# Rejection reasons (fixed phrases; records group by them).
TOO_MANY_BLOCKS = "too many blocks"
TOO_MANY_INSTRS = "too many instructions"
HAS_CALL = "contains call"
HAS_MEMORY = "contains memory access"
BAD_DEFINE = "predicate define not predicable"
NOT_SINGLE_ENTRY = "not single-entry"
LOOP_HEADER = "loop header (back edge)"
SIDE_EXIT_TARGET = "target of a side exit"
FUNCTION_ENTRY = "function entry"
SPLIT_CALL = "ends in a call with continuations"   # exit splitting (docs/pir.md "Extensions")


@dataclass(frozen=True)
class RegionLimits:
    """Bounds and exclusions of region growth (the options of ``if_convert``)."""
    max_blocks: int = 16
    max_instrs: int = 128
    allow_calls: bool = False
    allow_memory: bool = True


@dataclass(frozen=True)
class Region:
    """A selected region: ``blocks`` in topological order, ``blocks[0]`` the head."""
    head: str
    blocks: tuple


def final_targets(block: Block) -> tuple:
    """Targets of the block's final (unguarded) terminator."""
    return branch_targets(block.instrs[-1]) if block.instrs else ()


def side_exit_targets(block: Block) -> tuple:
    """Targets of guarded branches before the final terminator (side exits)."""
    return tuple(t for ins in block.instrs[:-1] for t in branch_targets(ins))


def _ends_in_split_call(block: Block) -> bool:
    """A call with continuations ends ``block``: its exits are returns, not predicable edges."""
    return bool(block.instrs) and isinstance(block.instrs[-1], Call) and \
        bool(block.instrs[-1].continuations)


def block_obstacle(block: Block, limits: RegionLimits) -> str | None:
    """Why ``block``'s instructions cannot be put under a block predicate, or None."""
    if _ends_in_split_call(block):
        return SPLIT_CALL
    for ins in block.instrs:
        if isinstance(ins, Call) and not limits.allow_calls:
            return HAS_CALL
        if isinstance(ins, (Load, Store, Alloca)) and not limits.allow_memory:
            return HAS_MEMORY
        if isinstance(ins, PredDefine):
            guarded = ins.guard is not None and ins.guard not in TRUE_PREDICATES
            types = {d.dtype for d in ins.dests}
            if (guarded and types & NOT_PREDICABLE_TYPES) or types & {"disjt", "disjf"}:
                return BAD_DEFINE
    return None


def select_regions(fn: Function, limits: RegionLimits) -> tuple[list, list]:
    """Partition the reachable blocks of ``fn`` into regions (single blocks included).

    Returns ``(regions, rejections)``: every region in head order (a one-block region is a block
    left alone), and for every block on the boundary of a region that could not be merged, a
    :class:`Rejection` naming the head, the block and the first reason that applied.
    """
    bm = fn.block_map()
    rpo, retreating = reverse_postorder(fn), retreating_edges(fn)
    index = {label: k for k, label in enumerate(rpo)}
    textual = {b.label: k for k, b in enumerate(fn.blocks)}
    preds: dict = {label: [] for label in bm}       # (pred, via side exit?)
    for b in fn.blocks:
        for t in dict.fromkeys(final_targets(b)):
            if t in preds:
                preds[t].append((b.label, False))
        for t in dict.fromkeys(side_exit_targets(b)):
            if t in preds:
                preds[t].append((b.label, True))
    entry = fn.blocks[0].label if fn.blocks else None
    obstacles = {label: block_obstacle(b, limits) for label, b in bm.items()}
    consumed: set = set()
    regions, rejections = [], []
    for head in rpo:
        if head in consumed:
            continue
        members, inside = [head], {head}
        size = len(bm[head].instrs)
        consumed.add(head)

        def mergeable(s: str) -> str | None:
            """None if ``s`` can join the region now, else the reason it cannot."""
            if s == entry:
                return FUNCTION_ENTRY
            if any((p, s) in retreating for p, _ in preds[s]):
                return LOOP_HEADER
            if any(side for _, side in preds[s]):
                return SIDE_EXIT_TARGET
            if any(p not in inside for p, _ in preds[s]):
                return NOT_SINGLE_ENTRY
            if obstacles[s] is not None:
                return obstacles[s]
            if len(members) + 1 > limits.max_blocks:
                return TOO_MANY_BLOCKS
            if size + len(bm[s].instrs) > limits.max_instrs:
                return TOO_MANY_INSTRS
            return None

        while True:
            frontier = {t for m in members for t in final_targets(bm[m])
                        if t in index and t not in inside and t not in consumed
                        and not _ends_in_split_call(bm[m])}
            ready = sorted((textual[t], t) for t in frontier if mergeable(t) is None)
            if not ready:
                break
            s = ready[0][1]
            members.append(s)
            inside.add(s)
            consumed.add(s)
            size += len(bm[s].instrs)
        frontier = {t for m in members for t in bm[m].successors()
                    if t in index and t not in inside and t not in consumed}
        for t in sorted(frontier, key=index.get):
            rejections.append(Rejection(fn.name, head, t, mergeable(t) or NOT_SINGLE_ENTRY))
        regions.append(Region(head, tuple(members)))
    return regions, rejections
