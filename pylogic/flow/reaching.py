"""Reaching definitions of one PIR function, with the equalities its branches establish: the
flow-sensitive view of registers that ``simplify`` folds with (issue #14, value numbering).

PIR registers may be written many times (phis lowered to copies, PRE's temporaries, forwarded
loads), so one value per register is the join of all its definitions. Here every read of a
register at an instruction gets the *definitions that reach it* (the classic bit-vector problem,
forward, may), of three kinds:

* an instruction writing the register (:class:`Def` ``kind="instr"``); a guarded write or a
  predicate define does not kill the earlier ones (it may leave the old value);
* the function's entry (``kind="entry"``): a parameter's argument, otherwise 0 (docs/pir.md: a
  register never written reads 0);
* an edge's equality (``kind="edge"``, LLVM GVN's propagateEquality, PredicateInfo's copies on
  branch edges): ``cbr c, T, F`` whose condition was just computed in its block by ``c = cmp.eq
  r, K`` / ``cmp.ne r, K`` (K a literal, neither c nor r written between the compare and the
  branch) establishes c = 1 on T and c = 0 on F (c is 0/1), and r = K on the edge where the
  compare says so (eq: T, ne: F), for r and for the register r was copied from just before
  (``r = mov q`` in the block, q not written after). Any other condition establishes c = 0 on F.
  An edge definition kills the register's other definitions on that edge only; at a join the
  other predecessors' definitions reach as well. ``cbr c, L, L`` establishes nothing.

A block's side exits (``(p) br L``, a split call's continuations) pass on the state after the
instructions before them. A ``cbr`` on a literal, or on a register just set to one by a ``mov``
(what ``simplify`` leaves of a decided compare), passes it on one edge only (GVN's
processFoldableCondBr: the other target's phi inputs from it are dead). Blocks not reachable from
the entry have no states (``at`` answers None there).

Example: in ``e: v = load x / c = cmp.ne v, 7 / cbr c, bad, ok`` the read of ``v`` in ``ok``
(only predecessor e) is reached by one definition, the edge's ``v = 7``.

``flow.reaching_graph`` gives the same sets as a graph with one node per merge point (what
``simplify`` reads, issue #28 item 1); this bit-vector form is its reference
(tests/flow/test_reaching_graph.py). Both number the definitions with ``number_definitions`` and
follow the edges of ``block_exits``.

References: Aho, Sethi, Ullman, "Compilers", §10.5 (reaching definitions); LLVM 14
GVN.cpp (propagateEquality), PredicateInfo.cpp.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple, Optional

from pylogic.flow.block_access import block_access
from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.model import (BRANCHING_CLASSES, TRUE_PREDICATES, Block, Cmp, CondBr, Function,
                              Imm, Instr, Mov, PredDefine, Reg, branch_targets)

__all__ = ["Def", "Reaching", "reaching_definitions", "number_definitions", "numbered_writes",
           "block_equalities", "exit_targets",
           "block_writes", "block_exits",
           "read_registers", "writes_kill", "block_taken"]

#: registers that always read 1 and are never defined
_CONSTANT_REGS = TRUE_PREDICATES


class Def(NamedTuple):
    """One definition of ``reg``: ``kind`` "instr" (``site`` = (label, index) of the writing
    instruction), "entry" (the value at the function's entry) or "edge" (``site`` = (from, to),
    ``value`` the literal the register equals on that edge). A named tuple: ``simplify``'s rounds
    number every function's definitions again each round, and a frozen dataclass's construction
    cost several times a tuple's (issue #28 item 1)."""
    kind: str
    reg: str
    site: Optional[tuple] = None
    value: Optional[int] = None


@dataclass
class Reaching:
    """``defs[i]`` is definition i; ``reads[(label, index)][reg]`` the ids of the definitions of
    ``reg`` that reach that instruction's read of it (operands and guard)."""
    defs: list
    reads: dict

    def at(self, site: tuple, reg: str) -> Optional[tuple]:
        """Ids of the definitions of ``reg`` reaching the instruction at ``site``; None when the
        instruction does not read ``reg`` or is unreachable."""
        return self.reads.get(site, {}).get(reg)


def writes_kill(ins: Instr) -> bool:
    """Does the instruction certainly overwrite its destinations?"""
    return ins.guard is None and not isinstance(ins, PredDefine)


def read_registers(ins: Instr) -> list:
    """The registers ``ins`` reads (operands, then its guard), constant ones left out."""
    out = [a.name for a in ins.uses() if isinstance(a, Reg) and a.name not in _CONSTANT_REGS]
    if ins.guard is not None and ins.guard not in _CONSTANT_REGS:
        out.append(ins.guard)
    return out


def edge_equalities(instrs: tuple) -> dict:
    """``{target: [(reg, value), ...]}``: what the block's final ``cbr`` establishes on each of
    its edges (module docstring); empty when it establishes nothing."""
    if not instrs or not isinstance(instrs[-1], CondBr) or instrs[-1].guard is not None:
        return {}
    br = instrs[-1]
    if br.if_true == br.if_false or not isinstance(br.cond, Reg) \
            or br.cond.name in _CONSTANT_REGS:
        return {}
    c = br.cond.name
    out = {br.if_true: [], br.if_false: [(c, 0)]}
    written: set = set()        # registers written after the current position
    for k in range(len(instrs) - 2, -1, -1):
        ins = instrs[k]
        if c in ins.defs():
            if not (isinstance(ins, Cmp) and ins.guard is None):
                return out
            out[br.if_true].append((c, 1))
            if ins.rel not in ("eq", "ne"):
                return out
            r, v = ins.a, ins.b
            if isinstance(r, Imm):
                r, v = v, r
            if not (isinstance(r, Reg) and isinstance(v, Imm)) or r.name in _CONSTANT_REGS \
                    or r.name in written or r.name == c:
                return out
            edge = br.if_true if ins.rel == "eq" else br.if_false
            out[edge].append((r.name, v.value))
            written.add(c)
            # r = mov q just before (q not written since): q equals K on that edge too
            for j in range(k - 1, -1, -1):
                prev = instrs[j]
                if r.name in prev.defs():
                    if isinstance(prev, Mov) and prev.guard is None and isinstance(prev.src, Reg) \
                            and prev.src.name not in _CONSTANT_REGS \
                            and prev.src.name not in written and prev.src.name != r.name:
                        out[edge].append((prev.src.name, v.value))
                    break
                written.update(prev.defs())
            return out
        written.update(ins.defs())
        if branch_targets(ins):
            return out          # a side exit in between: keep to the block's last stretch
    return out


def constant_branch(instrs: tuple) -> Optional[str]:
    """The one target of the block's final ``cbr`` when its condition is a literal or was set to
    one by an unguarded ``mov`` after any other write of it in the block; else None."""
    if not instrs or not isinstance(instrs[-1], CondBr) or instrs[-1].guard is not None:
        return None
    br = instrs[-1]
    cond = br.cond
    if isinstance(cond, Reg) and cond.name not in _CONSTANT_REGS:
        for ins in reversed(instrs[:-1]):
            if branch_targets(ins):
                return None
            if cond.name in ins.defs():
                cond = ins.src if isinstance(ins, Mov) and ins.guard is None else None
                break
    elif isinstance(cond, Reg):
        cond = Imm(1)
    if not isinstance(cond, Imm):
        return None
    return br.if_true if cond.value != 0 else br.if_false


def number_definitions(fn: Function, reachable: set) -> tuple[list, dict, dict]:
    """The definitions of ``fn`` (module docstring), numbered: every register's entry value (in
    name order), then the writes of the ``reachable`` blocks (block order), then the edge
    equalities of their final ``cbr``s. Returns ``(defs, instr_ids, edge_ids)``:
    ``instr_ids[(label, index, register)]`` the id of that write, ``edge_ids[(from, to)]`` the
    ``[(register, id)]`` that edge establishes. ``reaching_definitions`` and
    ``flow.reaching_graph`` share the numbering (``numbered_writes``)."""
    defs, _registers, first, edge_ids = numbered_writes(fn, reachable)
    instr_ids: dict = {}
    for b in fn.blocks:
        if b.label in first:
            keys = block_writes(b)[0]
            instr_ids.update(zip(keys, range(first[b.label], first[b.label] + len(keys))))
    return defs, instr_ids, edge_ids


def numbered_writes(fn: Function, reachable: set) -> tuple[list, list, dict, dict]:
    """``number_definitions``' numbering as ``(defs, registers, first, edge_ids)``: the entry
    definitions are ``registers`` (sorted) in order, ``first[label]`` the id of the first write
    of a ``reachable`` block (the writes of ``block_writes(block)[0]`` are numbered from it in
    order); no dict of every write (``flow.reaching_graph`` numbers them in its walk, issue #28
    item 1)."""
    defs: list = []
    regs = set(fn.params)
    for b in fn.blocks:
        regs.update(block_access(b).registers)
    regs.difference_update(_CONSTANT_REGS)
    registers = sorted(regs)
    defs.extend(map(_entry_def, registers))
    first: dict = {}
    for b in fn.blocks:
        if b.label not in reachable:
            continue
        first[b.label] = len(defs)
        defs.extend(block_writes(b)[1])
    edge_ids: dict = {}
    for b in fn.blocks:
        if b.label not in reachable:
            continue
        for t, eqs in block_equalities(b).items():
            ids = []
            for r, v in eqs:
                ids.append((r, len(defs)))
                defs.append(_new_def(Def, ("edge", r, (b.label, t), v)))
            edge_ids[(b.label, t)] = ids
    return defs, registers, first, edge_ids


def block_writes(block: Block) -> tuple:
    """``(keys, defs)`` of ``block``'s writes (``_block_writes``), kept per block object."""
    return block.derived("_writes", _block_writes)


#: ``Def`` from its four fields without the named tuple's ``__new__`` (a Python function: half
#: the cost of numbering a new block's writes, issue #28 item 1)
_new_def = tuple.__new__


@lru_cache(maxsize=65536)      # immutable; every round numbers each register's entry again
def _entry_def(r: str) -> Def:
    """The ``Def`` of register ``r``'s value at the function's entry."""
    return Def("entry", r)


def _block_writes(block: Block) -> tuple:
    """``(keys, defs)``: ``(label, index, register)`` and the ``Def`` of each write of ``block``
    (constant registers left out), in order; kept per block object (``Block.derived``:
    ``simplify``'s rounds number the blocks they left alone again, issue #28 item 1)."""
    keys, defs = [], []
    label = block.label
    for k, ds in enumerate(block_access(block).defs):
        for d in ds:
            if d not in _CONSTANT_REGS:
                keys.append((label, k, d))
                defs.append(_new_def(Def, ("instr", d, (label, k), None)))
    return tuple(keys), tuple(defs)


def block_taken(block: Block) -> Optional[str]:
    """``constant_branch`` of the block's instructions, kept per block object (``Block.derived``:
    ``known_memory`` asks it of every block each round, issue #28 item 1)."""
    return block.derived("_taken", _taken)[0]


def _taken(block: Block) -> tuple:
    return (constant_branch(block.instrs),)      # a tuple: None is "not derived yet"


def block_equalities(block: Block) -> dict:
    """``edge_equalities`` of ``block``'s instructions (target -> [(register, value)]), kept per
    block object (read-only)."""
    return block.derived("_edge_equalities", _block_equalities)


def exit_targets(block: Block) -> list:
    """The targets of ``block``'s exits in order (``block_exits`` before targets outside the
    function are left out, without the instructions' indices), kept per block object."""
    return [targets for _k, targets in block.derived("_exits", _block_edges)]


def _block_equalities(block: Block) -> dict:
    """``edge_equalities`` of the block's instructions (``block_equalities`` keeps it)."""
    return edge_equalities(block.instrs)


def block_exits(blocks: dict, label: str) -> dict:
    """``{index: [target, ...]}``: the edges along which block ``label``'s state flows, by the
    instruction leaving there (side exits mid-block; the final instruction's targets, one only
    when it is a ``cbr`` going one way, ``constant_branch``); ``blocks``: label -> block (the
    function's ``block_map``), targets outside it left out."""
    out: dict = {}
    for k, targets in blocks[label].derived("_exits", _block_edges):
        ts = [t for t in targets if t in blocks]
        if ts:
            out[k] = ts
    return out


def _block_edges(block: Block) -> tuple:
    """``((index, targets), ...)``: ``block_exits`` before targets outside the function are left
    out; kept per block object (``Block.derived``): ``simplify``'s rounds ask again for the
    blocks they left alone (issue #28 item 1)."""
    instrs = block.instrs
    taken = block_taken(block)
    out = []
    for k, ins in enumerate(instrs):
        if type(ins) not in BRANCHING_CLASSES:     # no targets (``branch_targets``)
            continue
        ts = tuple(t for t in branch_targets(ins)
                   if k < len(instrs) - 1 or taken is None or t == taken)
        if ts:
            out.append((k, ts))
    return tuple(out)


def reaching_definitions(fn: Function) -> Reaching:
    """Reaching definitions (module docstring) of ``fn``: for each reachable instruction, the
    definitions of each register it reads that reach that read, with the equalities of branch
    edges.

    Parameters
    ----------
    fn : the ``Function`` (unreachable blocks get no states).

    Returns
    -------
    Reaching : ``defs`` (every ``Def``) and ``reads``; ``at(site, reg)`` answers per read.

    References: Aho, Sethi, Ullman, "Compilers", §10.5; LLVM 14 GVN.cpp (propagateEquality),
    PredicateInfo.cpp.
    """
    blocks = fn.block_map()
    entry = fn.blocks[0].label
    order = reverse_postorder(fn)
    defs, instr_id, edge_ids = number_definitions(fn, set(order))
    mask: dict = {}             # register -> bits of all its definitions
    for i, d in enumerate(defs):
        mask[d.reg] = mask.get(d.reg, 0) | 1 << i
    instr_bit = {key: 1 << i for key, i in instr_id.items()}   # (label, index, register) -> bit
    edges = {e: [(r, 1 << i) for r, i in ids] for e, ids in edge_ids.items()}
    exits = {label: block_exits(blocks, label) for label in order}
    start = sum(1 << i for i, d in enumerate(defs) if d.kind == "entry")

    def walk(label: str, state: int, visit, send) -> None:
        """Run the block from ``state``: ``visit(index, instr, state before it)`` per
        instruction, ``send(target, state)`` per edge."""
        instrs = blocks[label].instrs
        for k, ins in enumerate(instrs):
            visit(k, ins, state)
            for d in ins.defs():
                bit = instr_bit.get((label, k, d))
                if bit is None:
                    continue
                if writes_kill(ins):
                    state &= ~mask[d]
                state |= bit
            for t in exits[label].get(k, ()):
                out = state
                if k == len(instrs) - 1:
                    for r, bit in edges.get((label, t), ()):
                        out = (out & ~mask[r]) | bit
                send(t, out)

    into = {entry: start}
    index = {b: i for i, b in enumerate(order)}
    work, queued = [0], {entry}         # block indices in reverse postorder

    def propagate(t: str, s: int) -> None:
        old = into.get(t)
        if old is None or s | old != old:
            into[t] = s if old is None else old | s
            if t not in queued:
                queued.add(t)
                heapq.heappush(work, index[t])

    while work:
        label = order[heapq.heappop(work)]
        queued.discard(label)
        walk(label, into[label], lambda k, ins, s: None, propagate)
    reads: dict = {}
    for label in order:
        if label not in into:
            continue

        def visit(k, ins, state, label=label):
            regs_read = read_registers(ins)
            if regs_read:
                reads[(label, k)] = {r: _bits(state & mask.get(r, 0)) for r in regs_read}

        walk(label, into[label], visit, lambda t, s: None)
    return Reaching(defs, reads)


def _bits(x: int) -> tuple:
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return tuple(out)

