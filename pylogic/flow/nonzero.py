"""Values known to be non-zero at a point of a function (LLVM's isKnownNonZero, and what GVN's
propagateEquality learns from a branch), for ``simplify``.

Sources, each sound on the interpreter's memory model (``interp/memory.py``: every object is a
segment at ``id << 32`` with ids from 1, so address 0 is never inside an object):

- a global's address, and an ``alloca``'s result (a fresh object; the correlation analysis'
  source 4 uses the same fact, ``facts_gen/interprocedural.py``);
- a register with a known one bit (known bits);
- a register p an unguarded ``load``/``store`` dereferenced before, with no write of p since
  (PathFinder source 4, ``datalog/correlation.dl``: a dereference of 0 is a run-time error);
- on a ``cbr c`` edge whose target has no other way in: c on the true edge, x of ``cmp.ne x, 0``
  on the true edge and of ``cmp.eq x, 0`` on the false edge (x one value everywhere);
- ``and x, m`` of a non-zero x whose value is fixed by the low bits m keeps (x has s sign bits
  and m keeps its low 65 - s bits: the importer's zero-extension of a sign-extended iN).

``NonZero(values).at(a, block, index)`` answers for an operand read at that instruction.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Optional

from pylogic.ir.cfg import block_predecessors
from pylogic.ir.model import Alloca, BinOp, Cmp, GlobalAddr, Imm, Load, Reg, Store
from pylogic.flow.branch_facts import sole_entry_edges
from pylogic.flow.stable import stable_operand
from pylogic.ir.ops import SWAPPED, eval_rel

#: Most single-predecessor blocks walked back from a read to the dereference before it.
MAX_CHAIN = 32


class NonZero:
    """Non-zero facts of one solved ``flow.function_values.FunctionValues`` (its function,
    dominator intervals, SSA values and known bits); ``at(a, block, index)`` answers per read.

    References: LLVM 14 ValueTracking.cpp (isKnownNonZero), GVN.cpp (propagateEquality);
    pathfinder.md (correlation source 4: a dereferenced pointer is non-zero)."""

    def __init__(self, values):
        self.values = values
        fn = values.fn
        self.preds = block_predecessors(fn)
        self.edges = self._edge_facts()
        # register -> [(block, index)] of unguarded loads/stores through it
        self.derefs = defaultdict(list)
        for b in fn.blocks:
            for k, ins in enumerate(b.instrs):
                if isinstance(ins, (Load, Store)) and ins.guard is None \
                        and isinstance(ins.addr, Reg):
                    self.derefs[ins.addr.name].append((b.label, k))

    # ------------------------------------------------------------ branch edges
    def _edge_facts(self) -> list[tuple[str, str]]:
        """``(block E, register x)``: x != 0 wherever E dominates (``sole_entry_edges``)."""
        values, out = self.values, []
        for b, ins, target, truth in sole_entry_edges(values.fn):
            c = values.leader(ins.cond)
            if target not in values.pre or not (isinstance(c, Reg) and values.is_value(c.name)):
                continue
            if truth:
                out.append((target, c.name))
            cmp = values.ssa.get(c.name)
            if isinstance(cmp, Cmp) and (cmp.rel == "ne") == bool(truth) \
                    and cmp.rel in ("eq", "ne"):
                for x, k in ((cmp.a, cmp.b), (cmp.b, cmp.a)):
                    x = values.leader(x)
                    if k == Imm(0) and isinstance(x, Reg) and values.is_value(x.name):
                        out.append((target, x.name))
        return out

    # ------------------------------------------------------------ dereferences
    def _unwritten_between(self, r: str, b: str, i: int, ub: str, uk: int) -> bool:
        """Instruction (b, i) reaches (ub, uk) only through instructions that do not write r:
        the same block, or ub reached from b through blocks of one predecessor each, with
        (b, i) before b's first side exit; (b, i) itself must not write r."""
        defs = self.values.defs.get(r, ())
        if b == ub:
            return i < uk and not any(db == b and i <= dk < uk for db, dk, _ in defs)
        if i >= self.values.first_exit[b]:
            return False
        chain, cur = [], ub
        for _ in range(MAX_CHAIN):
            ps = self.preds[cur]
            if len(ps) != 1 or cur == self.values.fn.blocks[0].label:
                return False
            cur = ps[0]
            if cur == b:
                break
            chain.append(cur)
        else:
            return False
        return not any((db == b and dk >= i) or db in chain or (db == ub and dk < uk)
                       for db, dk, _ in defs)

    def _dereferenced(self, r: str, ub: str, uk: int) -> bool:
        values = self.values
        for b, i in self.derefs.get(r, ()):
            if b not in values.pre or ub not in values.pre:
                continue
            if values.is_value(r) and values._dominates(b, i, ub, uk):
                return True
            if self._unwritten_between(r, b, i, ub, uk):
                return True
        return False

    # ------------------------------------------------------------ queries
    def at(self, a, block: str, index: int, depth: int = 0) -> bool:
        """Operand ``a``, read by instruction ``index`` of ``block``, is non-zero there."""
        values = self.values
        if isinstance(a, GlobalAddr):
            return True
        if isinstance(a, Imm):
            return a.value != 0
        if not isinstance(a, Reg):
            return False
        if values.operand(a).one:
            return True
        if self._dereferenced(a.name, block, index):
            return True
        x = values.leader(a)
        if isinstance(x, GlobalAddr):
            return True
        if not isinstance(x, Reg):
            return isinstance(x, Imm) and x.value != 0
        if x != a and (values.operand(x).one or self._dereferenced(x.name, block, index)):
            return True
        pre, post = values.pre, values.post
        if block in pre and any(r == x.name and pre[e] <= pre[block] and post[block] <= post[e]
                                for e, r in self.edges):
            return True
        d = values.ssa.get(x.name)
        if isinstance(d, Alloca):
            return True
        if isinstance(d, BinOp) and d.op == "and" and depth < 4:
            for y, m in ((d.a, d.b), (d.b, d.a)):
                if isinstance(m, Imm) and keeps_value(values.operand(y).sign, m.value) \
                        and stable_operand(values, y) and self.at(y, block, index, depth + 1):
                    return True
        return False


def keeps_value(sign: int, mask: int) -> bool:
    """A value with ``sign`` sign bits is 0 when its low 65 - sign bits are (they fix the rest);
    ``mask`` keeps all of them."""
    low = (1 << min(64, 65 - sign)) - 1
    return mask & low == low


def equal_values(values, a, b) -> bool:
    """``a`` and ``b`` hold the same value wherever both are read: the same operand through SSA
    copies, or SSA registers defined by the same operation (``BinOp``) of the same stable
    operands (GVN's value numbering, one level)."""
    if values.same(a, b):
        return True
    da, db = values.ssa_def(a), values.ssa_def(b)
    if not (isinstance(da, BinOp) and isinstance(db, BinOp) and da.op == db.op):
        return False
    return all(stable_operand(values, x) and values.same(x, y)
               for x, y in ((da.a, db.a), (da.b, db.b)))


def nonzero_fold(ins, values, nz: NonZero, block: str, index: int) -> Optional[int]:
    """The constant a pure instruction folds to by non-zero facts, or None: ``cmp.eq/ne x, 0``
    (and ``cmp.gtu x, 0``, ``cmp.leu x, 0``) of a non-zero x; ``div x, x`` = 1 and ``rem x, x``
    = 0 for a non-zero x (the only fault, a zero divisor, cannot happen)."""
    if isinstance(ins, Cmp):
        for x, z, rel in ((ins.a, ins.b, ins.rel), (ins.b, ins.a, SWAPPED[ins.rel])):
            if z == Imm(0) and rel in _VS_ZERO and nz.at(x, block, index):
                return _VS_ZERO[rel]
        return None
    if isinstance(ins, BinOp) and ins.op in ("div", "rem") and equal_values(values, ins.a, ins.b) \
            and nz.at(ins.b, block, index):
        return 1 if ins.op == "div" else 0
    return None


#: x REL 0 for x != 0, the relations it decides (unsigned: x > 0)
_VS_ZERO = {rel: int(eval_rel(rel, 1, 0)) for rel in ("eq", "ne", "gtu", "leu")}
