"""Loads through a join, translated into its predecessors (LLVM GVN's PHI translation of a load
address and MemoryDependence's walk up each predecessor; issue #14 load PRE): a load at the top
of a block B with several predecessors whose address depends on registers the predecessors set
(PIR's phis are copies at their ends) reads, on the edge from P, the load of the address with
those registers replaced by what P copies into them. When, for every predecessor, a walk up from
its end (through blocks with a single predecessor) finds that translated load's value -- an
earlier load of the same name, a store of a value that fits (``store_generated``), or a write of
known bytes (``KnownBytes``) -- before anything that may change it, B's load becomes a copy of a
fresh register each predecessor sets from that value at its end. No path evaluates more (only
copies are added), and the load was executed on every path through B, so no fault is lost on a
path that reaches it... and none is added: nothing is loaded any more.

Example (gcc.dg/tree-ssa ssa-pre-25): ``store a, 1; store b, 2; if (x) p = a else p = b;
v = load p`` becomes ``... if (x) {p = a; t = 1} else {p = b; t = 2}; v = t``.

Soundness: the translated name is built with the value names of ``value_names`` (exact
wherever their registers are read) over B's pure prefix, so it names the loaded value at P's
end as long as no leaf of it is written between the value's source and P's end (checked on the
walk, as are memory writes: ``flow.spans.spares`` with the address's root and byte range).
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Optional

from pylogic.flow.address_roots import ANY, memory_roots
from pylogic.flow.definitions import definitions
from pylogic.flow.known_bytes import KnownBytes
from pylogic.flow.memory_writes import clobbers_memory
from pylogic.flow.spans import address_offset, memory_offsets, spares
from pylogic.flow.value_names import (MEMORY, compose_name, expression_of, load_op, op_and_args,
                                      operand_name, store_generated, value_names)
from pylogic.ir.cfg import block_predecessors
from pylogic.ir.model import (BinOp, Br, Cmp, CondBr, Function, GlobalAddr, Imm, Load, Mov, Reg,
                              Select, UnOp, branch_targets)

#: Blocks walked up from a predecessor's end looking for the translated load's value.
MAX_WALK = 8
_PURE = (Mov, BinOp, UnOp, Cmp, Select)


def _pure(ins) -> bool:
    return isinstance(ins, _PURE) and ins.guard is None and not (
        isinstance(ins, BinOp) and ins.op in ("div", "rem"))


class _Translator:
    def __init__(self, fn: Function, defined: frozenset, contents: Optional[dict],
                 readonly: frozenset, returns=None, blocks=None, preds=None, inputs=None):
        self.fn = fn
        if inputs is not None:          # fn's FunctionInputs under the same module inputs
            self.names, self.roots, self.offsets = inputs.names, inputs.roots, inputs.offsets
            self.known, self.defs = inputs.known, inputs.defs
        else:
            self.names = value_names(fn)
            self.roots = memory_roots(fn, defined, readonly)
            self.offsets = memory_offsets(fn)
            self.known = KnownBytes(fn, self.names, defined, contents)
            self.defs = definitions(fn)
        self.defined, self.returns = defined, returns
        self.blocks = fn.block_map() if blocks is None else blocks
        self.preds = block_predecessors(fn) if preds is None else preds

    # -- values at the end of a predecessor -------------------------------------------------

    def _at_end(self, p, r: str):
        """``(operand P leaves in r, index of its copy or None)``, or None when unknown."""
        block = self.blocks[p]
        last = max((k for k, ins in enumerate(block.instrs) if r in ins.defs()), default=None)
        if last is None:
            return Reg(r), None
        ins = block.instrs[last]
        if not isinstance(ins, Mov) or ins.guard is not None:
            return None
        return ins.src, last

    def _source(self, p, a):
        """``(name, leaves), (root, offset), operand`` of operand ``a`` of B's prefix at P's
        end (the operand holding its value there)."""
        if isinstance(a, (Imm, GlobalAddr)):
            name = operand_name(a, self.names)
        else:
            got = self._at_end(p, a.name)
            if got is None:
                return None
            a, k = got
            name = operand_name(a, self.names)
            if k is not None and not self._unchanged_after(p, k, name[1]):
                return None
        if isinstance(a, GlobalAddr):
            root = self.roots.get("&" + a.name, "&" + a.name), 0
        elif isinstance(a, Reg) and a.name in self.roots:
            root = self.roots[a.name], address_offset(a, self.roots, self.offsets)
        else:
            root = None
        return name, root, a

    def _unchanged_after(self, p, k: int, leaves) -> bool:
        """Nothing after index k of P writes a leaf of a name (memory for ``MEMORY``)."""
        regs = {x.name for x in leaves if isinstance(x, Reg)}
        for ins in self.blocks[p].instrs[k + 1:]:
            if regs & set(ins.defs()) or (MEMORY in leaves and clobbers_memory(ins)):
                return False
        return True

    def translate(self, b, k: int, p):
        """``(load name, leaves, root, offset, address operand at P's end or None)`` of B's load
        at index k on the edge from P."""
        env, renv, ops = {}, {}, {}
        for ins in self.blocks[b].instrs[:k + 1]:
            args = op_and_args(ins)[1] if not isinstance(ins, Mov) else [ins.src]
            parts, rts, operands = [], [], []
            for a in args:
                if isinstance(a, Reg) and a.name in env:
                    parts.append(env[a.name])
                    rts.append(renv[a.name])
                    operands.append(ops.get(a.name))
                    continue
                got = self._source(p, a)
                if got is None:
                    return None
                parts.append(got[0])
                rts.append(got[1])
                operands.append(got[2])
            if isinstance(ins, Load):
                name, leaves = compose_name(load_op(ins.size, ins.signed), parts)
                root, off = rts[0] if rts[0] is not None else (ANY, None)
                return name, leaves, root, off, operands[0]
            dest = ins.defs()[0]
            if isinstance(ins, Mov):
                env[dest], renv[dest], ops[dest] = parts[0], rts[0], operands[0]
                continue
            env[dest] = compose_name(op_and_args(ins)[0], parts)
            renv[dest] = None
            if isinstance(ins, BinOp) and ins.op in ("add", "sub"):
                (ra, rb) = rts
                if ra is not None and rb is None and isinstance(ins.b, Imm):
                    off = None if ra[1] is None else \
                        ra[1] + (ins.b.value if ins.op == "add" else -ins.b.value)
                    renv[dest] = (ra[0], off)
                elif ra is not None and rb is None:
                    renv[dest] = (ra[0], None)
                elif ra is None and rb is not None and ins.op == "add":
                    off = None if rb[1] is None or not isinstance(ins.a, Imm) else \
                        rb[1] + ins.a.value
                    renv[dest] = (rb[0], off)
                elif ra is not None or rb is not None:
                    renv[dest] = (ANY, None)
        return None

    # -- the walk up from a predecessor -----------------------------------------------------

    def value(self, b, load, p, tname, leaves, root, off, _operand=None):
        """The operand holding the translated load's value at P's end, or None."""
        regs = {x.name for x in leaves if isinstance(x, Reg)}
        spans = {root: None if off is None else frozenset({(off, off + load.size)})}
        place = self._place(root, off, leaves)
        later: set = set()
        cur, steps = p, 0
        while True:
            block = self.blocks[cur]
            instrs = block.instrs[:-1] if cur == p else block.instrs
            for ins in reversed(instrs):
                found = self._generates(ins, tname, place, load)
                # (p = load p read the old p's cell, not the load of the new p)
                if found is not None and not (isinstance(ins, Load) and ins.dest in regs):
                    ok = not (isinstance(found, Reg) and found.name in later)
                    return found if ok else None
                if regs & set(ins.defs()) or (clobbers_memory(ins) and (
                        MEMORY in leaves or not spares(ins, {root}, self.roots, self.defined,
                                                       spans, self.offsets))):
                    return None
                later |= set(ins.defs())
            ps = self.preds[cur]
            steps += 1
            if len(ps) != 1 or cur == self.fn.blocks[0].label or steps > MAX_WALK or ps[0] == b:
                return None
            cur = ps[0]

    def _place(self, root, off, leaves):
        """The ``KnownBytes`` object and offset the translated address points into, or None."""
        if off is None or root == ANY:
            return None
        regs = [x.name for x in leaves if isinstance(x, Reg)]
        if root[0] in "&=":
            return ("&" + root[1:], off) if not regs else None
        obj = root.lstrip("^")
        return (obj, off) if regs == [obj] and obj in self.known.allocas else None

    def _generates(self, ins, tname, place, load):
        """The value ``ins`` gives the translated load, or None."""
        if ins.guard is not None:
            return None
        if isinstance(ins, Load):
            found = expression_of(ins, self.names)
            return Reg(ins.dest) if found is not None and found[0] == tname else None
        if tname in store_generated(ins, self.names, self.defs, self.returns):
            return ins.value
        if place is not None:
            got = self.known.written(ins)
            if got is not None and got[0] == place[0]:
                v = self.known.value_in(got, place[1], load.size, load.signed)
                if v is not None:
                    return Imm(v) if isinstance(v, int) else v
        return None


#: Rounds of ``phi_translated_loads`` (each replaces at most the first load of a join block).
MAX_ROUNDS = 4


def phi_translated_loads(fn: Function, fresh, defined: frozenset = frozenset(),
                         contents: Optional[dict] = None, readonly: frozenset = frozenset(),
                         returns=None, inputs_of=None) -> tuple[Function, int]:
    """``fn`` with the loads at the top of join blocks whose value every predecessor provides
    (the module doc) replaced by copies, round by round (a replaced load's copy is pure, so
    the next load of the block may follow); and how many loads were replaced.
    ``inputs_of``: function -> its ``FunctionInputs`` under these module inputs, whose value
    names, roots, offsets, known bytes and definitions the translation reads (shared with the
    facts of the step and of the next one, which ask the same function object)."""
    total = 0
    for _ in range(MAX_ROUNDS):
        fn, n = _one_round(fn, fresh, defined, contents, readonly, returns, inputs_of)
        total += n
        if not n:
            break
    return fn, total


def _one_round(fn: Function, fresh, defined, contents, readonly, returns, inputs_of=None):
    tr = None
    plans = {}
    entry = fn.blocks[0].label
    blocks = preds = None
    for b in fn.blocks:
        k = next((k for k, ins in enumerate(b.instrs) if not _pure(ins)), None)
        if k is None or not isinstance(b.instrs[k], Load) or b.instrs[k].guard is not None \
                or b.label == entry:
            continue
        if preds is None:
            blocks, preds = fn.block_map(), block_predecessors(fn)
        ps = preds[b.label]
        if len(ps) < 2 or any(not _plain_end(blocks[p]) or p == b.label for p in ps):
            continue
        # the value names, roots and known bytes only for a join it may translate into
        # (csmith 19/24/32/44's PRE steps: 7 of 25 functions had none; issue #28 item 1)
        tr = tr or _Translator(fn, defined, contents, readonly, returns, blocks, preds,
                               inputs_of(fn) if inputs_of is not None else None)
        values, missing = {}, []
        for p in sorted(set(ps)):
            got = tr.translate(b.label, k, p)
            v = None if got is None else tr.value(b.label, b.instrs[k], p, *got)
            if v is not None:
                values[p] = v
            elif got is not None and got[4] is not None and tr.blocks[p].successors() == (b.label,):
                missing.append((p, got[4]))       # GVN's load PRE: one predecessor loads
            else:
                break
        else:
            if values and len(missing) <= 1:
                load = b.instrs[k]
                t = fresh.fresh("phi.t")
                for p, addr in missing:           # B's load ran right after, on this edge
                    values[p] = dataclasses.replace(load, dest=t, addr=addr, annotations=())
                plans[b.label] = (k, values, t)
    if not plans:
        return fn, 0
    at_end = defaultdict(list)
    for label, (k, values, t) in plans.items():
        for p, v in values.items():
            at_end[p].append(v if isinstance(v, Load) else Mov(dest=t, src=v))
    blocks = []
    for b in fn.blocks:
        if b.label not in plans and b.label not in at_end:
            blocks.append(b)            # kept: what is derived per block object stays
            continue
        instrs = list(b.instrs)
        if b.label in plans:
            k, _, t = plans[b.label]
            load = instrs[k]
            instrs[k] = Mov(dest=load.dest, src=Reg(t), annotations=load.annotations,
                            loc=load.loc)
        if b.label in at_end:
            instrs[-1:-1] = at_end[b.label]
        blocks.append(dataclasses.replace(b, instrs=tuple(instrs)))
    return dataclasses.replace(fn, blocks=tuple(blocks)), len(plans)


def _plain_end(block) -> bool:
    """The block ends in its only branch, a ``br`` or ``cbr`` (copies go before it)."""
    return bool(block.instrs) and isinstance(block.instrs[-1], (Br, CondBr)) and \
        block.instrs[-1].guard is None and not any(branch_targets(i) for i in block.instrs[:-1])
