"""Instruction simplification (``pathlogic optimize --passes simplify``; issue #14 part C): what
LLVM's InstSimplify does (and GVN calls on every instruction it numbers), on PIR.

Per function, to a fixpoint:

1. **known bits** of every register (``transforms.known_bits``: known zero/one bits and sign bits,
   LLVM's computeKnownBits / ComputeNumSignBits), computed optimistically over the whole
   function: a register's set is the union of what its definitions compute (plus 0 when it may be
   read before it is written, by definite assignment over the CFG: IR.md, an unwritten register
   reads 0; unknown for parameters), so phis lowered to copies are followed through loops with
   no depth limit;
2. each pure instruction (arithmetic, ``neg``/``not``, ``cmp``, ``select``) is rewritten in place
   (its guard kept) to ``mov C`` when its value is one constant (constant folding with the
   interpreter's operators, ``transforms.lattice.apply``; ``div``/``rem`` only when the divisor
   cannot be 0: a zero divisor is a run-time error, left to happen), or to ``mov X`` of one of
   its operands by an identity: ``x+0``, ``x-0``, ``x*1``, ``x/1``, ``x^0``, ``x|0``, ``x&-1``,
   shifts by 0, ``x&x``, ``x|x``, ``select c, x, x``, ``select`` on a constant condition, ``and x,
   m`` when the bits ``m`` clears are known zero in x, ``or x, m`` when the bits ``m`` sets are known
   one; ``x-x``, ``x^x``, compares of equal operands and compares the operands' ranges decide
   (``cmp.ltu`` of a zero-extended byte and 256, ``cmp.lt`` of it and 0, ``cmp.eq x, c`` when a
   known bit contradicts c) fold to constants;
3. cast chains through SSA values (a register written once, unguarded, whose definition
   dominates every read; equalities between SSA values hold wherever both are read, as in LLVM):
   ``sar (shl x, k), k`` = x when x has more than k sign bits (trunc of a value already in range,
   the importer's re-normalisation after ``add``/``lshr``/``trunc`` of iN), ``shr (shl x, k), k`` =
   x when x's top k bits are known zero, ``shl (shr|sar x, k), k`` = x when x's low k bits are
   known zero; operands compared for equality through SSA copies; ``(x+y)-y``, ``(x+y)-x``,
   ``(x-y)+y``, ``x-(x-y)`` cancelled; constants combined (``and (and x, c1), c2`` = ``and x,
   c1&c2``, likewise ``or``/``xor``/``add``/``sub``; ``shl (and x, m), k`` = ``shl x, k`` when m
   keeps every bit the shift keeps), so the inner instruction may die (InstCombine's share);
4. a load from a *read-only* global (``readonly_globals``: its address is only ever a load
   address) at a constant offset inside it becomes ``mov`` of the bytes it reads (it cannot
   fault; LLVM folds loads from ``constant`` globals);
5. pure instructions whose result nothing reads are deleted (LLVM deletes trivially dead
   instructions the same way). Loads, stores, calls, ``input``, ``print``, ``alloca``, branches
   and ``div``/``rem`` that may fault are never deleted or moved: a bad load is a run-time error in
   the interpreter.

Nothing moves and no block changes (constant branches are left to ``sccp``); every rewrite
replaces an instruction's operation by a copy, a constant or an equal operation at the same
place, and keeps its guard.

Example: in ``t = and x, 4294967295 / u = shr t, 8 / v = shl u, 32 / w = sar v, 32 / y = and w,
16777215`` (csmith's crc32_byte after import), ``w`` becomes ``mov u`` (u < 2**56 has 33+ sign
bits), ``y`` becomes ``mov w`` (bits 24..63 of w are known zero) and ``v`` is deleted.

References: LLVM 14 InstructionSimplify.cpp (SimplifyAndInst, SimplifyICmpInst, ...),
ValueTracking.cpp (computeKnownBits, ComputeNumSignBits); IR.md (semantics).
"""
from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Optional

from facts_gen.value_flow import readonly_globals as readonly_by_roots
from pylogic.ir.model import (BinOp, Cmp, Function, GlobalAddr, Imm, Instr, Load, Module, Mov,
                              PredDefine, Reg, Select, UnOp, branch_targets)
from pylogic.transforms import known_bits as kb
from pylogic.transforms.known_bits import Bits
from pylogic.transforms.record import TransformRecord
from pylogic.transforms.selection import rewrites, wanted_functions

__all__ = ["simplify", "SimplifyRecord", "FunctionSimplify", "NEEDS"]

#: The dominator tree decides which registers are SSA values.
NEEDS = ("idom",)

#: Most rounds (analysis + rewrites + deletion) per function.
MAX_ROUNDS = 8
#: Most evaluations of one instruction in the known-bits fixpoint before it is given up (unknown).
MAX_VISITS = 200

#: x OP c = x
_RIGHT_IDENTITY = {"add": 0, "sub": 0, "mul": 1, "div": 1, "xor": 0, "or": 0, "and": -1,
                   "shl": 0, "shr": 0, "sar": 0}
_LEFT_IDENTITY = {"add": 0, "mul": 1, "xor": 0, "or": 0, "and": -1}
#: a REL b == b SWAPPED[REL] a
_SWAPPED = {"eq": "eq", "ne": "ne", "lt": "gt", "gt": "lt", "le": "ge", "ge": "le",
            "ltu": "gtu", "gtu": "ltu", "leu": "geu", "geu": "leu"}
#: x OP x
_SAME_OPERANDS = {"and": "x", "or": "x", "sub": 0, "xor": 0, "eq": 1, "ne": 0, "lt": 0, "gt": 0,
                  "le": 1, "ge": 1, "ltu": 0, "gtu": 0, "leu": 1, "geu": 1}


@dataclass(frozen=True)
class FunctionSimplify:
    """What ``simplify`` did in one function: ``rules`` counts rewrites by rule, ``removed`` the
    dead pure instructions deleted, ``rounds`` the rounds run."""
    function: str
    instructions: int
    rewritten: int
    removed: int
    rounds: int
    rules: dict = field(default_factory=dict)


@dataclass
class SimplifyRecord(TransformRecord):
    transform: str = "simplify"

    def totals(self) -> dict:
        rules = Counter()
        for a in self.applied:
            rules.update(a.rules)
        return {"functions": len(self.applied),
                "instructions_before": sum(a.instructions for a in self.applied),
                "rewritten": sum(a.rewritten for a in self.applied),
                "dead_removed": sum(a.removed for a in self.applied),
                "rules": dict(rules.most_common())}

    def summary(self) -> str:
        t = self.totals()
        return (f"simplify: {t['rewritten']} instructions rewritten, {t['removed']} dead removed "
                f"of {t['instructions_before']}")


# ---------------------------------------------------------------- the function's values

def readonly_globals(module: Module) -> dict:
    """``{name: Global}``: globals no instruction can write -- their address is only a load
    address, directly or through registers written once by ``add G, C`` that are only load
    addresses (stored, passed to a call, compared or copied, it escapes). PIR offers no other
    way to reach a global but forging its address from an integer: C's object rules, which
    LLVM's ``constant`` globals and BasicAA rely on too."""
    gmap = module.global_map()
    escaped, derived = set(), {}
    for fn in module.defined_functions():
        count = Counter(d for b in fn.blocks for i in b.instrs for d in i.defs())
        for b in fn.blocks:
            for ins in b.instrs:
                if isinstance(ins, BinOp) and ins.op == "add" and ins.guard is None:
                    g, c = ins.a, ins.b
                    if isinstance(c, GlobalAddr):
                        g, c = c, g
                    if isinstance(g, GlobalAddr) and isinstance(c, Imm):
                        if count[ins.dest] == 1 and ins.dest not in fn.params:
                            derived[(fn.name, ins.dest)] = g.name
                            continue
        for b in fn.blocks:
            for ins in b.instrs:
                if isinstance(ins, BinOp) and (fn.name, ins.dest) in derived:
                    continue
                for k, a in enumerate(ins.uses()):
                    if isinstance(ins, Load) and k == 0:
                        continue
                    if isinstance(a, GlobalAddr):
                        escaped.add(a.name)
                    elif isinstance(a, Reg) and (fn.name, a.name) in derived:
                        escaped.add(derived[fn.name, a.name])
                if ins.guard is not None and (fn.name, ins.guard) in derived:
                    escaped.add(derived[fn.name, ins.guard])
    # value_flow's analysis also follows addresses with variable offsets (a table indexed by a
    # loop counter, gcc torture ashldi-1's ``data``), compares and memcpy sources
    never_written = readonly_by_roots(module)
    return {n: g for n, g in gmap.items() if n not in escaped or n in never_written}


def _is_pure(ins: Instr) -> bool:
    """No side effect and cannot fault (``div``/``rem`` only by a non-zero literal)."""
    if isinstance(ins, BinOp) and ins.op in ("div", "rem"):
        return isinstance(ins.b, Imm) and ins.b.value != 0
    return isinstance(ins, (Mov, BinOp, UnOp, Cmp, Select, PredDefine))


class _Values:
    """Definitions, SSA values and known bits of one function."""

    def __init__(self, fn: Function, idom: dict[str, str], readonly: Optional[dict] = None):
        self.fn = fn
        self.readonly = readonly or {}
        entry = fn.blocks[0].label
        children = defaultdict(list)
        for n, d in idom.items():
            children[d].append(n)
        # dominator-tree intervals: d dominates n iff pre[d] <= pre[n] and post[n] <= post[d]
        self.pre, self.post = {}, {}
        clock, stack = 0, [(entry, False)]
        while stack:
            b, done = stack.pop()
            if done:
                self.post[b] = clock
            else:
                self.pre[b] = clock
                stack.append((b, True))
                stack.extend((c, False) for c in sorted(children[b]))
            clock += 1
        self.defs: dict[str, list] = defaultdict(list)    # register -> [(block, index, instr)]
        self.reads: dict[str, list] = defaultdict(list)   # register -> [(block, index)]
        for b in fn.blocks:
            for k, ins in enumerate(b.instrs):
                for d in ins.defs():
                    self.defs[d].append((b.label, k, ins))
                for a in ins.uses():
                    if isinstance(a, Reg):
                        self.reads[a.name].append((b.label, k))
                if ins.guard is not None:
                    self.reads[ins.guard].append((b.label, k))
        # a block may be left before its end by a side exit (hyperblocks): a definition after
        # one does not reach the other blocks on every path through its block
        self.first_exit = {b.label: next((k for k, i in enumerate(b.instrs[:-1])
                                          if branch_targets(i)), len(b.instrs))
                           for b in fn.blocks}
        params = set(fn.params)
        self.params = params
        self.ssa: dict[str, Instr] = {}
        for r, ds in self.defs.items():
            if r in params or len(ds) != 1:
                continue
            b, k, ins = ds[0]
            if ins.guard is None and b in self.pre and not isinstance(ins, PredDefine) and all(
                    self._dominates(b, k, ub, uk) for ub, uk in self.reads[r] if ub in self.pre):
                self.ssa[r] = ins
        self.unwritten = self._maybe_unwritten()
        self.bits: dict[str, Bits] = {}

    def _maybe_unwritten(self) -> set:
        """Registers (not SSA values, not parameters) some read of which may come before any
        write (it then reads 0): definite assignment, a forward must-problem over the CFG;
        a block with a side exit passes on only what it writes before its first one."""
        fn = self.fn
        regs = [r for r in self.defs if r not in self.ssa and r not in self.params]
        bit = {r: 1 << i for i, r in enumerate(regs)}
        every = (1 << len(regs)) - 1
        gen, preds = {}, defaultdict(list)
        for b in fn.blocks:
            g = 0
            for ins in b.instrs[:self.first_exit[b.label] + 1]:
                if ins.guard is None and not isinstance(ins, PredDefine):
                    for d in ins.defs():
                        g |= bit.get(d, 0)
            gen[b.label] = g
        for a, b in fn.edges():
            if a in self.pre:
                preds[b].append(a)
        entry = fn.blocks[0].label
        live = [b.label for b in fn.blocks if b.label in self.pre]
        into = {b: (0 if b == entry else every) for b in live}
        changed = True
        while changed:
            changed = False
            for b in live:
                if b == entry:
                    continue
                new = every
                for p in preds[b]:
                    new &= into[p] | gen[p]
                if new != into[b]:
                    into[b], changed = new, True
        out = set()
        for b in fn.blocks:
            if b.label not in self.pre:
                continue
            written = into[b.label]
            for ins in b.instrs:
                reads = [a.name for a in ins.uses() if isinstance(a, Reg)]
                if ins.guard is not None:
                    reads.append(ins.guard)
                for r in reads:
                    if r in bit and not written & bit[r]:
                        out.add(r)
                if ins.guard is None and not isinstance(ins, PredDefine):
                    for d in ins.defs():
                        written |= bit.get(d, 0)
        return out

    def _dominates(self, b: str, k: int, ub: str, uk: int) -> bool:
        if b == ub:
            return k < uk
        return k < self.first_exit[b] and self.pre[b] <= self.pre[ub] \
            and self.post[ub] <= self.post[b]

    # ------------------------------------------------------------ known bits
    def operand(self, a) -> Bits:
        if isinstance(a, Imm):
            return kb.const(a.value)
        if isinstance(a, Reg):
            if a.name in ("p0", "true"):
                return kb.const(1)
            if a.name not in self.defs and a.name not in self.params:
                return kb.const(0)      # never written: reads 0 (IR.md)
            return self.bits.get(a.name, kb.UNKNOWN)
        return kb.UNKNOWN       # a global's address

    def evaluate(self, ins: Instr) -> Optional[Bits]:
        """Known bits of what ``ins`` writes (its single destination); None: an operand has no
        value yet (optimistic start)."""
        args = list(ins.uses())
        for a in args:
            if isinstance(a, Reg) and a.name not in self.bits and a.name not in ("p0", "true") \
                    and a.name in self.defs and a.name not in self.params:
                return None
        ops = [self.operand(a) for a in args]
        if isinstance(ins, Mov):
            return ops[0]
        if isinstance(ins, BinOp):
            return kb.transfer(ins.op, *ops)
        if isinstance(ins, UnOp):
            return kb.transfer(ins.op, *ops)
        if isinstance(ins, Cmp):
            return kb.transfer(ins.rel, *ops)
        if isinstance(ins, Select):
            return kb.transfer("select", *ops)
        if isinstance(ins, PredDefine):
            return kb.BOOL
        if isinstance(ins, Load):
            return kb.load(ins.size, ins.signed)
        return kb.UNKNOWN

    def _register_bits(self, r: str, results: dict) -> Optional[Bits]:
        if r in self.params:
            return kb.UNKNOWN
        out = kb.const(0) if r in self.unwritten else None
        for b, k, ins in self.defs[r]:
            v = results.get((b, k))
            if v is None:
                continue
            if isinstance(ins, PredDefine) or len(ins.defs()) > 1:
                v = kb.UNKNOWN if not isinstance(ins, PredDefine) else kb.BOOL
            out = v if out is None else kb.join(out, v)
        return out

    def solve(self) -> None:
        """The known bits of every register: the optimistic fixpoint (a worklist over reads)."""
        results: dict[tuple, Bits] = {}
        visits: Counter = Counter()
        users = defaultdict(set)
        for r, rs in self.reads.items():
            for b, k in rs:
                users[r].add((b, k))
        instr = {(b.label, k): ins for b in self.fn.blocks for k, ins in enumerate(b.instrs)}
        for r in self.params:
            self.bits[r] = kb.UNKNOWN
        for r in self.unwritten:
            self.bits[r] = kb.const(0)      # may be read before it is written
        work = [key for key, ins in instr.items() if ins.defs()]
        pending = set(work)
        while work:
            key = work.pop()
            pending.discard(key)
            ins = instr[key]
            new = self.evaluate(ins)
            if new is None:
                continue
            visits[key] += 1
            old = results.get(key)
            if old is not None:
                new = kb.join(old, new)
                if visits[key] > MAX_VISITS:
                    new = kb.UNKNOWN
                if new == old:
                    continue
            results[key] = new
            for r in ins.defs():
                bits = self._register_bits(r, results)
                if bits is None or bits == self.bits.get(r):
                    continue
                self.bits[r] = bits
                for u in users[r]:
                    if u not in pending and instr[u].defs():
                        pending.add(u)
                        work.append(u)
        for r in self.defs:     # anything never evaluated (unreachable cycles): unknown
            self.bits.setdefault(r, kb.UNKNOWN)

    # ------------------------------------------------------------ SSA values
    def leader(self, a):
        """The operand ``a`` is a copy of, through SSA copies (itself otherwise)."""
        seen = 0
        while isinstance(a, Reg) and a.name in self.ssa and isinstance(self.ssa[a.name], Mov) \
                and seen < 64:
            src = self.ssa[a.name].src
            if isinstance(src, Reg) and src.name not in self.ssa:
                break
            a, seen = src, seen + 1
        return a

    def same(self, a, b) -> bool:
        return a == b or self.leader(a) == self.leader(b)

    def ssa_def(self, a) -> Optional[Instr]:
        """The defining instruction of an SSA register (through copies), or None."""
        a = self.leader(a)
        if isinstance(a, Reg):
            return self.ssa.get(a.name)
        return None


# ---------------------------------------------------------------- rewriting

def _stable(values: _Values, a) -> bool:
    """``a`` has the same value wherever an SSA value built on it is read (a literal, a global's
    address, or an SSA register)."""
    a = values.leader(a)
    return not isinstance(a, Reg) or a.name in values.ssa


def _constant_load(ins: Load, values: _Values) -> Optional[int]:
    """The value ``ins`` reads when it reads a read-only global inside its bounds (so it cannot
    fault either), else None."""
    addr, off = values.leader(ins.addr), 0
    inner = values.ssa_def(addr)
    if isinstance(inner, BinOp) and inner.op == "add" and inner.guard is None:
        g, c = (inner.a, inner.b) if isinstance(inner.a, GlobalAddr) else (inner.b, inner.a)
        if isinstance(g, GlobalAddr) and isinstance(c, Imm):
            addr, off = g, c.value
    if not isinstance(addr, GlobalAddr) or addr.name not in values.readonly:
        return None
    g = values.readonly[addr.name]
    if off < 0 or off + ins.size > g.size:
        return None
    data = g.init[off:off + ins.size].ljust(ins.size, b"\0")
    return int.from_bytes(data, "little", signed=ins.signed)


def _binop(ins: BinOp, op: str, a, b, rule: str) -> tuple[Instr, str]:
    return BinOp(op=op, dest=ins.dest, a=a, b=b, guard=ins.guard, annotations=ins.annotations,
                 loc=ins.loc), rule


def _rewrite(ins: Instr, values: _Values) -> Optional[tuple[Instr, str]]:
    """``(replacement, rule)`` for a pure instruction that simplifies, or None."""
    if isinstance(ins, Load) and values.readonly:
        v = _constant_load(ins, values)
        if v is not None:
            return Mov(dest=ins.dest, src=Imm(v), guard=ins.guard, annotations=ins.annotations,
                       loc=ins.loc), "load-constant-global"
        return None
    if not isinstance(ins, (BinOp, UnOp, Cmp, Select)):
        return None
    dest = ins.dest

    def mov(src, rule):
        return Mov(dest=dest, src=src, guard=ins.guard, annotations=ins.annotations,
                   loc=ins.loc), rule

    if isinstance(ins, BinOp) and ins.op in ("div", "rem"):
        if not values.operand(ins.b).one:     # may be 0: a run-time error, left to happen
            return None
    result = values.evaluate(ins)
    if result is not None and result.constant is not None:
        return mov(Imm(result.constant), "constant")
    if isinstance(ins, Select):
        c = values.operand(ins.cond)
        if c.one:
            return mov(ins.a, "select-constant-condition")
        if c.zero == kb.M:
            return mov(ins.b, "select-constant-condition")
        if values.same(ins.a, ins.b):
            return mov(ins.a, "select-equal-arms")
        return None
    if isinstance(ins, UnOp):
        inner = values.ssa_def(ins.a)
        if isinstance(inner, UnOp) and inner.op == ins.op and _stable(values, inner.a):
            return mov(inner.a, f"{ins.op}-{ins.op}")
        return None
    op = ins.rel if isinstance(ins, Cmp) else ins.op
    a, b = ins.a, ins.b
    if values.same(a, b) and op in _SAME_OPERANDS:
        same = _SAME_OPERANDS[op]
        return mov(a, f"{op}-same") if same == "x" else mov(Imm(same), f"{op}-same")
    ka, kbits = values.operand(a), values.operand(b)
    if isinstance(ins, Cmp):
        # a 0/1 value compared with 0 or 1 is itself: cmp.ne x, 0 / cmp.eq x, 1 / cmp.gtu x, 0
        for x, kx, c, rel in ((a, ka, kbits, op), (b, kbits, ka, _SWAPPED[op])):
            if kx.zero | 1 == kb.M and (rel, c.constant) in (("ne", 0), ("eq", 1), ("gtu", 0),
                                                              ("geu", 1), ("gt", 0), ("ge", 1)):
                return mov(x, "cmp-bool")
        return None
    cb, ca = kbits.constant, ka.constant
    if cb is not None and op in _RIGHT_IDENTITY and (
            cb == _RIGHT_IDENTITY[op] or (op in ("shl", "shr", "sar") and cb % 64 == 0)):
        return mov(a, f"{op}-identity")
    if ca is not None and _LEFT_IDENTITY.get(op) == ca:
        return mov(b, f"{op}-identity")
    if op == "and":
        for x, kx, m in ((a, ka, kbits), (b, kbits, ka)):
            if (~m.one & ~kx.zero & kb.M) == 0:
                return mov(x, "and-known-bits")     # every bit m may clear is zero in x
    if op == "or":
        for x, kx, m in ((a, ka, kbits), (b, kbits, ka)):
            if (~m.zero & ~kx.one & kb.M) == 0:
                return mov(x, "or-known-bits")      # every bit m may set is one in x
    if op in ("add", "sub"):
        # (x + y) - x = y, (x + y) - y = x, (x - y) + y = x, x - (x - y) = y: SSA values
        for outer, inner_op, cands in (("sub", "add", ((a, b, 0), (a, b, 1))),
                                       ("add", "sub", ((a, b, 0), (b, a, 0))),
                                       ("sub", "sub", ((b, a, 2),))):
            if op != outer:
                continue
            for into, other, pos in cands:
                inner = values.ssa_def(into)
                if not (isinstance(inner, BinOp) and inner.op == inner_op):
                    continue
                if pos == 0 and values.same(inner.b, other) and _stable(values, inner.a) \
                        and _stable(values, inner.b):
                    return mov(inner.a, f"{op}-{inner_op}")
                if pos == 1 and values.same(inner.a, other) and _stable(values, inner.b) \
                        and _stable(values, inner.a):
                    return mov(inner.b, f"{op}-{inner_op}")
                if pos == 2 and values.same(inner.a, other) and _stable(values, inner.b) \
                        and _stable(values, inner.a):
                    return mov(inner.b, f"{op}-{inner_op}")
    if cb is not None and op in ("and", "or", "xor", "add", "sub", "shl"):
        # constants combined through an SSA value (InstCombine's reassociation of constants):
        # the inner instruction may then die; never more evaluations than before
        inner = values.ssa_def(a)
        if isinstance(inner, BinOp) and isinstance(inner.b, Imm) and _stable(values, inner.a) \
                and inner.guard is None:
            c1, x = inner.b.value, inner.a
            if op == "shl" and inner.op == "and" \
                    and c1 & (kb.M >> (cb % 64)) == kb.M >> (cb % 64):
                return _binop(ins, "shl", x, Imm(cb), "shl-and")   # the mask keeps what survives
            if op == inner.op and op in ("and", "or", "xor"):
                c = {"and": c1 & cb, "or": c1 | cb, "xor": c1 ^ cb}[op]
                return _binop(ins, op, x, Imm(c), f"{op}-{op}")
            if op in ("add", "sub") and inner.op in ("add", "sub"):
                c = (c1 if inner.op == "add" else -c1) + (cb if op == "add" else -cb)
                return _binop(ins, "add", x, Imm(c), "add-constants")
    if op == "rem" and cb is not None:
        # |x| < |c|: x rem c = x (PIR rem: the sign follows the dividend); rem (rem x, c1), c2
        # with |c1| <= |c2| likewise
        lo, hi = kb.signed_range(ka)
        if -abs(cb) < lo and hi < abs(cb):
            return mov(a, "rem-range")
        inner = values.ssa_def(a)
        if isinstance(inner, BinOp) and inner.op == "rem" and isinstance(inner.b, Imm) \
                and 0 < abs(inner.b.value) <= abs(cb):
            return mov(a, "rem-rem")
    if op in ("sar", "shr", "shl") and cb is not None:
        k = cb % 64
        inner = values.ssa_def(a)
        if isinstance(inner, BinOp) and isinstance(inner.b, Imm) and inner.b.value % 64 == k \
                and _stable(values, inner.a):
            x = values.operand(inner.a)
            if op == "sar" and inner.op == "shl" and x.sign > k:
                return mov(inner.a, "sar-shl")
            if op == "shr" and inner.op == "shl" and (x.zero >> (64 - k)) == kb._low(k):
                return mov(inner.a, "shr-shl")
            if op == "shl" and inner.op in ("shr", "sar") and x.zero & kb._low(k) == kb._low(k):
                return mov(inner.a, f"shl-{inner.op}")
    return None


def _rewrite_round(fn: Function, values: _Values, rules: Counter) -> tuple[Function, int]:
    blocks, n = [], 0
    for b in fn.blocks:
        instrs = []
        for ins in b.instrs:
            got = _rewrite(ins, values)
            if got is not None and got[0] != ins:
                instrs.append(got[0])
                rules[got[1]] += 1
                n += 1
            else:
                instrs.append(ins)
        blocks.append(dataclasses.replace(b, instrs=tuple(instrs)))
    return dataclasses.replace(fn, blocks=tuple(blocks)), n


def _delete_dead(fn: Function) -> tuple[Function, int]:
    """Pure definitions whose destinations nothing reads, deleted until none is left."""
    removed = 0
    while True:
        read = set()
        for b in fn.blocks:
            for ins in b.instrs:
                read.update(a.name for a in ins.uses() if isinstance(a, Reg))
                if ins.guard is not None:
                    read.add(ins.guard)
        blocks, n = [], 0
        for b in fn.blocks:
            keep = tuple(i for i in b.instrs
                         if not (_is_pure(i) and i.defs() and not any(d in read for d in i.defs())))
            n += len(b.instrs) - len(keep)
            blocks.append(dataclasses.replace(b, instrs=keep))
        if not n:
            return fn, removed
        removed += n
        fn = dataclasses.replace(fn, blocks=tuple(blocks))


def simplify_function(fn: Function, idom: dict[str, str], readonly: Optional[dict] = None
                      ) -> tuple[Function, FunctionSimplify]:
    """``fn`` simplified to a fixpoint (``idom``: node -> immediate dominator; the CFG does not
    change, so it holds for every round; ``readonly``: ``readonly_globals`` of its module)."""
    size = sum(len(b.instrs) for b in fn.blocks)
    rules: Counter = Counter()
    rewritten = removed = rounds = 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        values = _Values(fn, idom, readonly)
        values.solve()
        fn, n = _rewrite_round(fn, values, rules)
        fn, dead = _delete_dead(fn)
        rewritten += n
        removed += dead
        if not n and not dead:
            break
    return fn, FunctionSimplify(fn.name, size, rewritten, removed, rounds, dict(rules))


def simplify(module: Module, rows, *, functions: Optional[Iterable[str]] = None
             ) -> tuple[Module, SimplifyRecord]:
    """``(new module, record)``: every (or each named) defined function simplified; ``rows``
    holds ``idom`` (``Rows`` of the module)."""
    wanted = wanted_functions(module, functions, "simplify")
    record = SimplifyRecord(options={"functions": None if wanted is None else sorted(wanted)})
    out = []
    readonly = readonly_globals(module)
    for fn in module.functions:
        if not rewrites(fn, wanted):
            out.append(fn)
            continue
        idom = {n: d for d, n in rows.function(fn.name)["idom"]}
        new, info = simplify_function(fn, idom, readonly)
        out.append(new)
        record.applied.append(info)
    return dataclasses.replace(module, functions=tuple(out)), record
