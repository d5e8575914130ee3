"""Instruction simplification (``pathlogic optimize --passes simplify``; issue #14 part C): what
LLVM's InstSimplify does (and GVN calls on every instruction it numbers), on PIR.

Per function, to a fixpoint:

1. **known bits** of every register (``flow.known_bits``: known zero/one bits and sign bits,
   LLVM's computeKnownBits / ComputeNumSignBits), computed optimistically over the whole
   function and flow-sensitively: each read of a register joins what the definitions *reaching*
   it compute (``flow.reaching``, joined once per merge point through ``flow.reaching_graph``:
   the entry's value, 0 for a register not yet written (docs/pir.md),
   a typed parameter's range, unknown for another parameter; the equalities of the branch edges
   on the way, GVN's propagateEquality), so PRE's temporaries and phis lowered to copies fold at
   each read and are followed through loops with no depth limit; a register's own set (for rules
   about SSA values) is the union of what all its definitions compute; only definitions in
   blocks found executable count (a ``cbr`` whose condition is known leaves by one edge: SCCP's
   executable edges, GVN's processFoldableCondBr), so a definition behind a decided branch joins
   nothing;
2. each pure instruction (arithmetic, ``neg``/``not``, ``cmp``, ``select``) is rewritten in place
   (its guard kept) to ``mov C`` when its value is one constant (constant folding with the
   interpreter's operators, ``flow.lattice.apply``; ``div``/``rem`` only when the divisor
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
   a compare a dominating branch on the same stable operands decides folds too
   (``flow.branch_facts``); the operands of a rule are followed through the one definition
   reaching them (a dominating unguarded write, through it a copy of a stable value);
4. a load from a *read-only* global (``flow.readonly_globals``: a ``const global``, docs/pir.md
   "Extensions", or one whose address, through the registers derived from it, is only ever
   loaded from, compared or a builtin ``memcpy``'s source) at a constant offset inside it
   becomes ``mov`` of the bytes it reads (``known_bytes.readonly_contents``; it cannot fault;
   LLVM folds loads from ``constant`` globals), and has their value in step 1's known bits, so
   what is computed from it folds in the same round; so does a load of bytes known at that
   point (``flow.known_memory``: a fresh alloca's zeros, constant stores, memset, memcpy
   of a read-only global; GVN forwards these);
5. when no rule above applies, in rounds of their own: demanded low bits (an operand
   re-normalised from y, ``sar (shl y, j), j`` or ``and y, m``, is replaced by y when only the
   low bits it keeps are ever read: InstCombine's SimplifyDemandedBits), then equalities of
   branch edges (in the blocks a ``cbr`` edge dominates, its 0/1 condition and the x of
   ``cmp.eq x, C`` are constants: GVN's propagateEquality), then non-zero facts
   (``flow.nonzero``: a dereferenced pointer, a global's or ``alloca``'s address, x on
   the edge of ``cmp.ne x, 0``) decide compares with 0 and make ``div x, x`` 1;
6. across calls: functions are simplified callees first, and a call of a defined function has
   the known bits of what its executed ``ret``s return; a typed parameter (docs/pir.md
   "Extensions") nothing writes has its type's known bits;
7. pure instructions whose result nothing reads are deleted (LLVM deletes trivially dead
   instructions the same way). Loads, stores, calls, ``input``, ``print``, ``alloca``, branches
   and ``div``/``rem`` that may fault are never deleted or moved: a bad load is a run-time error in
   the interpreter.

A later round starts from the last one (``INCREMENTAL``): the known bits are solved again only
in the forward cone of the instructions it rewrote (and of the reads whose edge equalities or
joins changed), the other instructions keeping their results (``FunctionValues.solve`` with a
``Seed``: 87% of the sites of the later rounds on csmith 32, 8, 30, 38); the rules are asked
again only at the sites where something they read may have changed (``_retry_sites``: the
instructions rewritten, the readers of what they define, of registers whose bits, leaders or
SSA status changed, and one level further through the SSA view; elsewhere they answer as they
did, nothing). The same output as every round from scratch.

Nothing moves and no block changes (constant branches are left to ``sccp``); every rewrite
replaces an instruction's operation by a copy, a constant or an equal operation at the same
place, and keeps its guard.

Example: in ``t = and x, 4294967295 / u = shr t, 8 / v = shl u, 32 / w = sar v, 32 / y = and w,
16777215`` (csmith's crc32_byte after import), ``w`` becomes ``mov u`` (u < 2**56 has 33+ sign
bits), ``y`` becomes ``mov w`` (bits 24..63 of w are known zero) and ``v`` is deleted.

References: LLVM 14 InstructionSimplify.cpp (SimplifyAndInst, SimplifyICmpInst, ...),
ValueTracking.cpp (computeKnownBits, ComputeNumSignBits); docs/pir.md (semantics).
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import chain
from dataclasses import dataclass, field
from typing import Iterable, Optional

from pylogic.collector import collector_paused
from pylogic.flow import known_bits as kb
from pylogic.flow.block_access import block_access, derive_access
from pylogic.flow.branch_facts import sole_entry_edges
from pylogic.flow.function_values import FunctionValues, Seed
from pylogic.flow.reaching import block_equalities, exit_targets
from pylogic.flow.known_bits import Bits
from pylogic.flow.known_bytes import readonly_contents
from pylogic.flow.nonzero import NonZero, nonzero_fold
from pylogic.flow.stable import stable_operand
from pylogic.identity_cache import IdentityCache
from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.model import (RELATIONS, BinOp, Cmp, CondBr, Function, Imm, Instr,
                              Load, Module, Mov, PredDefine, Reg, Ret, Select, UnOp,
                              to_signed64, with_operands)
from pylogic.ir.ops import REFLEXIVE, SWAPPED
from pylogic.transforms.record import TransformRecord
from pylogic.transforms.driver import run_per_function

__all__ = ["simplify", "SimplifyRecord", "FunctionSimplify", "NEEDS"]

#: The dominator tree decides which registers are SSA values.
NEEDS = ("idom",)

#: Most rounds (analysis + rewrites + deletion) per function.
MAX_ROUNDS = 8

#: A later round starts from the last one: the known bits solved again only where they may
#: change (``FunctionValues.solve`` with a ``Seed``), the rules asked only where they may answer
#: otherwise (``_retry_sites``). False: every round from scratch (the oracle of
#: tests/transforms/simplify/test_incremental_rounds.py).
INCREMENTAL = True

#: x OP c = x
_RIGHT_IDENTITY = {"add": 0, "sub": 0, "mul": 1, "div": 1, "xor": 0, "or": 0, "and": -1,
                   "shl": 0, "shr": 0, "sar": 0}
_LEFT_IDENTITY = {"add": 0, "mul": 1, "xor": 0, "or": 0, "and": -1}
#: x OP x
_SAME_OPERANDS = {"and": "x", "or": "x", "sub": 0, "xor": 0} | {
    rel: int(rel in REFLEXIVE) for rel in RELATIONS}


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

#: the classes of pure instructions (``_is_pure``; the classes have no subclasses)
_PURE = frozenset((Mov, BinOp, UnOp, Cmp, Select, PredDefine))


def _is_pure(ins: Instr) -> bool:
    """No side effect and cannot fault (``div``/``rem`` only by a non-zero literal)."""
    kind = type(ins)
    if kind is BinOp and ins.op in ("div", "rem"):
        return isinstance(ins.b, Imm) and ins.b.value != 0
    return kind in _PURE


# ---------------------------------------------------------------- rewriting

def _stable_since(values: FunctionValues, x, inner) -> bool:
    """``x`` has the same value where the SSA register ``inner`` is defined (read there) and at
    the instruction being rewritten (``values.here``): ``stable_operand``, or both in one block
    with no write of x between them."""
    if stable_operand(values, x):
        return True
    r, here = values.leader(inner), values.here
    if not (isinstance(x, Reg) and isinstance(r, Reg) and r.name in values.ssa and here):
        return False
    b, i, _ = values.defs[r.name][0]
    return b == here[0] and i < here[1] and not any(
        db == b and i < dk < here[1] for db, dk, _ in values.defs.get(x.name, ()))


def _binop(ins: BinOp, op: str, a, b, rule: str) -> tuple[Instr, str]:
    return BinOp(op=op, dest=ins.dest, a=a, b=b, guard=ins.guard, annotations=ins.annotations,
                 loc=ins.loc), rule


def _decided_by_branch(ins: Cmp, values) -> Optional[int]:
    """The value a dominating branch on the same stable operands gives the compare ``ins``
    (``flow.branch_facts``), or None."""
    site = getattr(values, "site", None)
    if site is None or not (values.stable(ins.a) and values.stable(ins.b)):
        return None
    return values.branch_facts().value(site[0], ins, values.leader)


def _mov(ins: Instr, src, rule: str) -> tuple[Instr, str]:
    """``ins`` rewritten to ``mov src`` (its destination, guard, annotations and place kept)."""
    return Mov(dest=ins.dest, src=src, guard=ins.guard, annotations=ins.annotations,
               loc=ins.loc), rule


def _rewrite(ins: Instr, values: FunctionValues) -> Optional[tuple[Instr, str]]:
    """``(replacement, rule)`` for a pure instruction that simplifies, or None: the rules of
    its class (``_RULES``: one table lookup instead of a chain of isinstance tests per
    instruction, issue #28 item 1; the classes have no subclasses)."""
    rules = _RULES.get(type(ins))
    return None if rules is None else rules(ins, values)


def _rewrite_load(ins: Load, values) -> Optional[tuple[Instr, str]]:
    v = values.readonly_load(ins, values.site) if values.readonly else None
    rule = "load-constant-global"
    if v is None and getattr(values, "site", None) is not None:
        v, rule = values.known_loads().get(values.site), "load-known-bytes"
    return None if v is None else _mov(ins, Imm(v), rule)


def _rewrite_select(ins: Select, values) -> Optional[tuple[Instr, str]]:
    result = values.evaluate(ins)
    if result is not None and result.constant is not None:
        return _mov(ins, Imm(result.constant), "constant")
    c = values.operand(ins.cond)
    if c.one:
        return _mov(ins, ins.a, "select-constant-condition")
    if c.zero == kb.M:
        return _mov(ins, ins.b, "select-constant-condition")
    if values.same(ins.a, ins.b):
        return _mov(ins, ins.a, "select-equal-arms")
    return None


def _rewrite_unop(ins: UnOp, values) -> Optional[tuple[Instr, str]]:
    result = values.evaluate(ins)
    if result is not None and result.constant is not None:
        return _mov(ins, Imm(result.constant), "constant")
    inner = values.ssa_def(ins.a)
    if isinstance(inner, UnOp) and inner.op == ins.op and stable_operand(values, inner.a):
        return _mov(ins, inner.a, f"{ins.op}-{ins.op}")
    return None


#: a 0/1 value compared with 0 or 1 is itself: cmp.ne x, 0 / cmp.eq x, 1 / cmp.gtu x, 0
_BOOL_COMPARES = frozenset((("ne", 0), ("eq", 1), ("gtu", 0), ("geu", 1), ("gt", 0), ("ge", 1)))


def _constant_or_same(ins, op: str, values) -> tuple[Optional[tuple[Instr, str]], tuple]:
    """The first rules of a two-operand instruction (``Cmp``, ``BinOp``; ``op`` its relation or
    operation): ``(rewrite, None)`` when its result is a constant or its operands are the same
    value (``_SAME_OPERANDS``), else ``(None, its operands' known bits)``, as ``operand`` gives
    them: ``evaluated``'s when it had them all."""
    result, ops = values.evaluated(ins)
    if result is not None and result.constant is not None:
        return _mov(ins, Imm(result.constant), "constant"), None
    a, b = ins.a, ins.b
    if op in _SAME_OPERANDS and values.same(a, b):      # the cheap test first
        same = _SAME_OPERANDS[op]
        return (_mov(ins, a, f"{op}-same") if same == "x" else
                _mov(ins, Imm(same), f"{op}-same")), None
    return None, ops if ops is not None else (values.operand(a), values.operand(b))


def _rewrite_cmp(ins: Cmp, values) -> Optional[tuple[Instr, str]]:
    op, a, b = ins.rel, ins.a, ins.b
    got, bits = _constant_or_same(ins, op, values)
    if got is not None:
        return got
    ka, kbits = bits
    decided = _decided_by_branch(ins, values)
    if decided is not None:
        return _mov(ins, Imm(decided), "cmp-dominating-branch")
    for x, kx, c, rel in ((a, ka, kbits, op), (b, kbits, ka, SWAPPED[op])):
        if kx.zero | 1 == kb.M and (rel, c.constant) in _BOOL_COMPARES:
            return _mov(ins, x, "cmp-bool")
    return None


def _rewrite_binop(ins: BinOp, values) -> Optional[tuple[Instr, str]]:
    op, a, b = ins.op, ins.a, ins.b
    if op in ("div", "rem"):
        if not values.operand(b).one:     # may be 0: a run-time error, left to happen
            return None
    got, bits = _constant_or_same(ins, op, values)
    if got is not None:
        return got
    ka, kbits = bits
    cb, ca = kbits.constant, ka.constant
    if cb is not None and op in _RIGHT_IDENTITY and (
            cb == _RIGHT_IDENTITY[op] or (op in ("shl", "shr", "sar") and cb % 64 == 0)):
        return _mov(ins, a, f"{op}-identity")
    if ca is not None and _LEFT_IDENTITY.get(op) == ca:
        return _mov(ins, b, f"{op}-identity")
    if op == "and":
        for x, kx, m in ((a, ka, kbits), (b, kbits, ka)):
            if (~m.one & ~kx.zero & kb.M) == 0:
                return _mov(ins, x, "and-known-bits")     # every bit m may clear is zero in x
    if op == "or":
        for x, kx, m in ((a, ka, kbits), (b, kbits, ka)):
            if (~m.zero & ~kx.one & kb.M) == 0:
                return _mov(ins, x, "or-known-bits")      # every bit m may set is one in x
    # the SSA definitions of a and b, each asked once (the rules below asked ``ssa_def(a)`` up
    # to three times: 38% of the calls were repeats, issue #28 item 1)
    inner_a = inner_b = _UNASKED
    if op in ("add", "sub"):
        inner_a, inner_b = values.ssa_def(a), values.ssa_def(b)
        # (x + y) - x = y, (x + y) - y = x, (x - y) + y = x, x - (x - y) = y: SSA values
        for outer, inner_op, cands in (("sub", "add", ((a, b, 0), (a, b, 1))),
                                       ("add", "sub", ((a, b, 0), (b, a, 0))),
                                       ("sub", "sub", ((b, a, 2),))):
            if op != outer:
                continue
            for into, other, pos in cands:
                inner = inner_a if into is a else inner_b
                if not (isinstance(inner, BinOp) and inner.op == inner_op):
                    continue
                here = (_stable_since(values, inner.a, into)
                        and _stable_since(values, inner.b, into))
                if pos == 0 and values.same(inner.b, other) and here:
                    return _mov(ins, inner.a, f"{op}-{inner_op}")
                if pos == 1 and values.same(inner.a, other) and here:
                    return _mov(ins, inner.b, f"{op}-{inner_op}")
                if pos == 2 and values.same(inner.a, other) and here:
                    return _mov(ins, inner.b, f"{op}-{inner_op}")
    if cb is not None and op in ("and", "or", "xor", "add", "sub", "shl"):
        # constants combined through an SSA value (InstCombine's reassociation of constants):
        # the inner instruction may then die; never more evaluations than before. Through its
        # definition as this round rewrote it (``values.rewritten``), so a chain x1 = x0 + c1,
        # x2 = x1 + c2, ... reaches x0 in one round, not one round per halving of its links
        inner = inner_a = values.ssa_def(a) if inner_a is _UNASKED else inner_a
        if type(inner) is BinOp:
            inner = values.rewritten.get(values.leader(a).name, inner)
        if isinstance(inner, BinOp) and isinstance(inner.b, Imm) \
                and _stable_since(values, inner.a, a) and inner.guard is None:
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
            return _mov(ins, a, "rem-range")
        inner = inner_a = values.ssa_def(a) if inner_a is _UNASKED else inner_a
        if isinstance(inner, BinOp) and inner.op == "rem" and isinstance(inner.b, Imm) \
                and 0 < abs(inner.b.value) <= abs(cb):
            return _mov(ins, a, "rem-rem")
    if op in ("sar", "shr", "shl") and cb is not None:
        k = cb % 64
        inner = values.ssa_def(a) if inner_a is _UNASKED else inner_a
        if isinstance(inner, BinOp) and isinstance(inner.b, Imm) and inner.b.value % 64 == k \
                and stable_operand(values, inner.a):
            x = values.operand(inner.a)
            if op == "sar" and inner.op == "shl" and x.sign > k:
                return _mov(ins, inner.a, "sar-shl")
            if op == "shr" and inner.op == "shl" and (x.zero >> (64 - k)) == kb._low(k):
                return _mov(ins, inner.a, "shr-shl")
            if op == "shl" and inner.op in ("shr", "sar") and x.zero & kb._low(k) == kb._low(k):
                return _mov(ins, inner.a, f"shl-{inner.op}")
    return _sub_of_sum(ins, values, inner_b)


#: an operand's SSA definition not asked yet (``_rewrite_binop``)
_UNASKED = object()


def _sub_of_sum(ins: Instr, values: FunctionValues,
                inner=_UNASKED) -> Optional[tuple[Instr, str]]:
    """``x - (x + c)`` = ``x - (c + x)`` = -c (SSA values; InstSimplify's X - (X + Y));
    ``inner``: ``values.ssa_def(ins.b)`` when the caller asked it."""
    if not (isinstance(ins, BinOp) and ins.op == "sub"):
        return None
    if inner is _UNASKED:
        inner = values.ssa_def(ins.b)
    if not (isinstance(inner, BinOp) and inner.op == "add"):
        return None
    for x, c in ((inner.a, inner.b), (inner.b, inner.a)):
        if isinstance(c, Imm) and values.same(x, ins.a) and _stable_since(values, x, ins.b):
            return Mov(dest=ins.dest, src=Imm(to_signed64(-c.value)), guard=ins.guard,
                       annotations=ins.annotations, loc=ins.loc), "sub-add-constant"
    return None


#: instruction class -> its rules (``_rewrite``); any other class is never rewritten
_RULES = {Load: _rewrite_load, Select: _rewrite_select, UnOp: _rewrite_unop, Cmp: _rewrite_cmp,
          BinOp: _rewrite_binop}


# ---------------------------------------------------------------- demanded low bits

#: the low L bits of ``op a, b`` depend only on the low L bits of a and b (``shl`` by a constant:
#: of a)
_LOW_BITS_CLOSED = ("add", "sub", "mul", "and", "or", "xor", "shl")


def _demanded_shift(values: FunctionValues, r: str) -> Optional[int]:
    """The smallest k such that every read of ``r`` is ``shl r, k'`` with k' >= k (only r's low
    64 - k bits matter anywhere: the importer's ``shl 64-N; sar 64-N`` re-normalisation of an
    iN result), or None."""
    if not values.reads.get(r):
        return None
    at = values.instr_at()
    k = 64
    for b, i in values.reads[r]:
        ins = at[b, i]
        if not (isinstance(ins, BinOp) and ins.op == "shl" and ins.a == Reg(r)
                and isinstance(ins.b, Imm) and 0 < ins.b.value % 64 and ins.guard != r):
            return None
        k = min(k, ins.b.value % 64)
    return k


def _low_source(values: FunctionValues, a, keep: int):
    """An operand equal to ``a`` in its low ``keep`` bits that ``a`` was normalised from:
    y of ``sar (shl y, j), j`` with 64 - j >= keep, or of ``and y, m`` with m's low keep bits
    set (SSA values, y stable); None when ``a`` is neither."""
    inner = values.ssa_def(a)
    if not isinstance(inner, BinOp) or not isinstance(inner.b, Imm):
        return None
    low = kb._low(keep)
    if inner.op == "and" and inner.b.value & low == low and stable_operand(values, inner.a):
        return inner.a
    if inner.op == "sar" and 64 - inner.b.value % 64 >= keep:
        shl = values.ssa_def(inner.a)
        if isinstance(shl, BinOp) and shl.op == "shl" and isinstance(shl.b, Imm) \
                and shl.b.value % 64 == inner.b.value % 64 and stable_operand(values, shl.a):
            return shl.a
    return None


def _demanded_rewrite(ins: Instr, values: FunctionValues) -> Optional[tuple[Instr, str]]:
    """InstCombine's SimplifyDemandedBits for sign-extensions: when only the low L bits of
    ``d = op a, b`` are ever read (``_demanded_shift``) and op's low bits depend only on its
    operands' low bits, an operand re-normalised from y (``sar (shl y, j), j``, ``and y, m``)
    that keeps those L bits is replaced by y; d's low L bits stay the same, so every read
    does. Then ``(x + 8) - 8`` in i32 arithmetic cancels like 64-bit arithmetic."""
    if not isinstance(ins, BinOp) or ins.op not in _LOW_BITS_CLOSED:
        return None
    if ins.op == "shl" and not isinstance(ins.b, Imm):
        return None
    k = _demanded_shift(values, ins.dest)
    if k is None:
        return None
    keep = 64 - k
    a = _low_source(values, ins.a, keep) if ins.a != Reg(ins.dest) else None
    b = None
    if ins.op != "shl" and ins.b != Reg(ins.dest):
        b = _low_source(values, ins.b, keep)
    if a is None and b is None:
        return None
    return _binop(ins, ins.op, a if a is not None else ins.a, b if b is not None else ins.b,
                  "demanded-bits")


def _demanded_round(fn: Function, values: FunctionValues, rules: Counter,
                    sites: Optional[list] = None) -> tuple[Function, int]:
    """``_demanded_rewrite`` everywhere, in a round of its own (when no other rule applies):
    it changes the high bits of what it rewrites, which the other rules' known bits of this
    round would not see."""
    return _rewrite_each(fn, lambda label, k, ins: _demanded_rewrite(ins, values), rules,
                         _BINOP, sites)


# ---------------------------------------------------------------- equalities of branch edges

def _edge_facts(fn: Function, values: FunctionValues) -> list[tuple[str, str, int]]:
    """``(block E, register x, constant C)``: x == C wherever E dominates (GVN's
    propagateEquality): E's only way in is the edge of ``cbr c`` on which ``c`` (an SSA value)
    is non-zero (0) (``branch_facts.sole_entry_edges``), so c == 1 (0) there when c is a 0/1
    value, and when ``c = cmp.eq x, C`` (``cmp.ne``) on its true (false) edge, x == C (x one
    value everywhere: ``is_value``)."""
    out = []
    for b, ins, target, truth in sole_entry_edges(fn):
        c = values.leader(ins.cond)
        if target not in values.pre or not (isinstance(c, Reg) and values.is_value(c.name)):
            continue
        if truth == 0 or values.operand(c).zero | 1 == kb.M:
            out.append((target, c.name, truth))     # non-zero is 1 only for a 0/1 value
        cmp = values.ssa.get(c.name)
        if isinstance(cmp, Cmp) and cmp.rel in ("eq", "ne") and (cmp.rel == "eq") == bool(truth):
            for x, k in ((cmp.a, cmp.b), (cmp.b, cmp.a)):
                x = values.leader(x)
                if isinstance(k, Imm) and isinstance(x, Reg) and values.is_value(x.name):
                    out.append((target, x.name, k.value))
    return out


def _equality_round(fn: Function, values: FunctionValues, rules: Counter,
                    sites: Optional[list] = None) -> tuple[Function, int]:
    """Every operand (and ``cbr`` condition) that is, through SSA copies, a register
    ``_edge_facts`` fixes in a block dominating the read becomes that constant; in a round of
    its own, like ``_demanded_round``. Definitions are never rewritten, only reads."""
    facts = _edge_facts(fn, values)
    if not facts:
        return fn, 0
    pre, post = values.pre, values.post
    known: dict = {}            # label -> {register: constant} of the facts dominating it

    def rewrite(label, k, ins):
        if label not in known:
            known[label] = {}
            for e, x, v in facts:
                if label in pre and pre[e] <= pre[label] and post[label] <= post[e]:
                    known[label].setdefault(x, v)
        new = _replace_reads(ins, known[label], values) if known[label] else None
        return None if new is None else (new, "edge-equality")
    return _rewrite_each(fn, rewrite, rules, _READS_REPLACED, sites)


def _replace_reads(ins: Instr, known: dict, values: FunctionValues) -> Optional[Instr]:
    """``ins`` with every operand whose leader is a register of ``known`` replaced by its
    constant (copies, pure instructions and ``cbr`` only), or None."""
    def sub(a):
        r = values.leader(a)
        if isinstance(a, Reg) and isinstance(r, Reg) and r.name in known:
            return Imm(known[r.name])
        return a
    if type(ins) not in _READS_REPLACED:
        return None
    new = with_operands(ins, sub)
    return None if new is ins else new


def _nonzero_round(fn: Function, values: FunctionValues, rules: Counter,
                   sites: Optional[list] = None) -> tuple[Function, int]:
    """Compares with 0 and ``div``/``rem x, x`` decided by non-zero facts
    (``flow.nonzero``: dereferenced pointers, global and ``alloca`` addresses, branch
    edges), in a round of its own; rewritten to ``mov C``, guard kept."""
    nz = _NonZeroWhenAsked(values)

    def rewrite(label, k, ins):
        v = nonzero_fold(ins, values, nz, label, k) if label in values.executable else None
        return None if v is None else (Mov(dest=ins.dest, src=Imm(v), guard=ins.guard,
                                           annotations=ins.annotations, loc=ins.loc), "non-zero")
    return _rewrite_each(fn, rewrite, rules, _NONZERO_FOLDED, sites)


#: the classes each round asks about (the classes have no subclasses): ``_demanded_rewrite``
#: rewrites a ``BinOp`` only, ``_replace_reads`` these, ``nonzero_fold`` compares and
#: ``div``/``rem``
_BINOP = frozenset((BinOp,))
_READS_REPLACED = frozenset((CondBr, Mov, BinOp, Cmp, UnOp, Select))
_NONZERO_FOLDED = frozenset((Cmp, BinOp))


class _NonZeroWhenAsked:
    """``NonZero(values)``, built when ``nonzero_fold`` first asks ``at`` (most final rounds
    have no compare with 0 and no ``div``/``rem``, and building it walks the function)."""
    __slots__ = ("values", "nz")

    def __init__(self, values: FunctionValues):
        self.values, self.nz = values, None

    def at(self, *args) -> bool:
        if self.nz is None:
            self.nz = NonZero(self.values)
        return self.nz.at(*args)


#: the instruction classes ``_rewrite`` may rewrite (it gives None for any other): the round
#: asks it, and makes the instruction's view (``FunctionValues.at``), for these only
_REWRITTEN = frozenset(_RULES)


def _rewrite_round(fn: Function, values: FunctionValues, rules: Counter,
                   retry: Optional[set] = None, sites: Optional[list] = None
                   ) -> tuple[Function, int]:
    """``_rewrite`` at every instruction (``retry``: at these sites only, ``_retry_sites``: the
    others give None as in the last round); the sites rewritten appended to ``sites``."""
    view = values.at(None)      # one view, moved from instruction to instruction
    ssa, rewritten = values.ssa, values.rewritten

    def rewrite(label, k, ins):     # ``_rewrite(ins, view.to(site))``: only its classes asked
        values.here = site = (label, k)
        got = _RULES[type(ins)](ins, view.to(site))
        if got is not None and type(got[0]) is BinOp and ssa.get(ins.dest) is ins:
            rewritten[ins.dest] = got[0]    # an SSA value's definition, rewritten to an equal one
        return got
    return _rewrite_each(fn, rewrite, rules, _REWRITTEN, sites, retry)


def _rewrite_each(fn: Function, rewrite, rules: Counter, kinds: frozenset,
                  sites: Optional[list] = None, retry: Optional[set] = None
                  ) -> tuple[Function, int]:
    """``fn`` with each instruction of a class in ``kinds`` replaced by ``rewrite(label, index,
    ins)`` when that gives ``(new instruction, rule)`` other than ``ins`` (``rewrite`` gives None
    for any other class: it is not asked; nor at a site outside ``retry`` when given); and the
    number replaced. ``fn`` itself when none is (its identity keys the caches of the passes
    after: ``_SIMPLIFIED``, value names). The sites replaced are appended to ``sites``."""
    blocks, n = [], 0
    for b in fn.blocks:
        label, new, changed = b.label, None, []
        for k, ins in enumerate(b.instrs):
            if type(ins) not in kinds or (retry is not None and (label, k) not in retry):
                continue
            got = rewrite(label, k, ins)
            if got is not None and got[0] != ins:
                if new is None:
                    new = list(b.instrs)
                new[k] = got[0]
                changed.append(k)
                rules[got[1]] += 1
                n += 1
                if sites is not None:
                    sites.append((label, k))
        # a block left alone stays the same object (what it computed once per block is kept);
        # a rewritten one derives what it reads and writes from it (no rule changes a target)
        if new is None:
            blocks.append(b)
        else:
            blocks.append(dataclasses.replace(b, instrs=tuple(new)))
            derive_access(b, blocks[-1], tuple(range(len(new))), tuple(changed))
    return (dataclasses.replace(fn, blocks=tuple(blocks)) if n else fn), n


def _delete_dead(fn: Function, kept_at: Optional[dict] = None) -> tuple[Function, int]:
    """Pure definitions whose destinations nothing reads, deleted until none is left: read
    counts per register, a definition deleted when none of its destinations is read, its reads
    uncounted (deletion is monotone, so any order reaches the rounds' result; one pass instead
    of one per round of deletions, issue #28 item 1). ``kept_at``: filled with label -> the
    indices kept, for each block that lost some."""
    blocks = fn.blocks
    reads: Counter = Counter()          # register -> how many reads of it are left
    for b in blocks:                    # ``block_access``: what each instruction reads, writes
        reads.update(chain.from_iterable(block_access(b).reads))
    work = []                           # the pure definitions none of whose registers is read
    for bi, b in enumerate(blocks):
        for k, ds in enumerate(block_access(b).defs):
            if ds:
                for d in ds:
                    if reads.get(d):
                        break
                else:
                    if _is_pure(b.instrs[k]):
                        work.append((bi, k, ds))
    if not work:                # most later rounds: nothing dead, no writers needed
        return fn, 0
    writers: dict = {}                  # register -> [(block, index, its defs)] of pure definitions
    for bi, b in enumerate(blocks):
        for k, (ins, ds) in enumerate(zip(b.instrs, block_access(b).defs)):
            if ds and _is_pure(ins):
                site = (bi, k, ds)
                for d in ds:
                    got = writers.get(d)
                    if got is None:
                        writers[d] = [site]
                    else:
                        got.append(site)
    dead: set = set()
    while work:
        bi, k, ds = work.pop()
        site = (bi, k)
        if site in dead or any(reads.get(d) for d in ds):
            continue
        dead.add(site)
        for r in block_access(blocks[bi]).reads[k]:
            reads[r] -= 1
            if not reads[r]:
                work.extend(writers.get(r, ()))
    if not dead:
        return fn, 0
    out = []
    for bi, b in enumerate(blocks):
        kept = tuple(k for k in range(len(b.instrs)) if (bi, k) not in dead)
        if len(kept) == len(b.instrs):
            out.append(b)
            continue
        if kept_at is not None:
            kept_at[b.label] = kept
        out.append(dataclasses.replace(b, instrs=tuple(b.instrs[k] for k in kept)))
        derive_access(b, out[-1], kept)     # pure instructions deleted: no branch among them
    return dataclasses.replace(fn, blocks=tuple(out)), len(dead)


def return_bits(values: FunctionValues) -> Bits:
    """The known bits of what the function of ``values`` (solved) returns: the join over its
    ``ret``s in executable blocks (a missing value returns 0)."""
    out = None
    for b in values.fn.blocks:
        if b.label not in values.executable:
            continue
        for k, ins in enumerate(b.instrs):
            if isinstance(ins, Ret):
                v = kb.const(0) if ins.value is None \
                    else values.operand(ins.value, (b.label, k))
                out = v if out is None else kb.join(out, v)
    return kb.UNKNOWN if out is None else out


#: ``simplify_function``'s ``settled`` when its caller did not look it up
_LOOK_UP = object()


def simplify_function(fn: Function, idom, readonly: Optional[dict] = None,
                      returns: Optional[dict] = None, defined: Optional[set] = None,
                      global_sizes: Optional[dict] = None, settled=_LOOK_UP
                      ) -> tuple[Function, FunctionSimplify]:
    """``fn`` simplified to a fixpoint (``idom``: node -> immediate dominator, or a function
    giving it, asked only when fn is not settled; the CFG does not change, so it holds for every
    round; ``readonly``: ``known_bytes.readonly_contents`` of its module;
    ``returns``: known bits of what defined functions return, ``return_bits``: the result of a
    call of one is one of them -- fn's own is added to it); ``defined``: names of its defined
    functions; ``global_sizes``: its globals' sizes; ``settled``: fn's ``_SIMPLIFIED`` entry
    as the caller found it (None: none), else looked up here)."""
    size = fn.instruction_count()
    reads = None
    if returns is not None and fn.blocks:
        reads = _reads(fn, readonly, returns, defined, global_sizes)
        if settled is _LOOK_UP:
            settled = _SIMPLIFIED.get(fn)
        if settled is not None and settled[0] == reads:
            returns[fn.name] = settled[1]
            return fn, FunctionSimplify(fn.name, size, 0, 0, 1, {})
    if callable(idom):
        idom = idom()
    rules: Counter = Counter()
    rewritten = removed = rounds = 0
    values = last = None
    order = reverse_postorder(fn)       # no round changes a branch target (or the entry)
    while rounds < MAX_ROUNDS:
        rounds += 1
        values = FunctionValues(fn, idom, readonly, returns, defined, global_sizes, order)
        seed = None if last is None else _seed(last, fn)
        values.solve(seed)
        retry = None if seed is None else _retry_sites(last, seed, values)
        sites: list = []
        fn, n = _rewrite_round(fn, values, rules, retry, sites)
        if not n:
            fn, n = _demanded_round(fn, values, rules, sites)
        if not n:
            fn, n = _equality_round(fn, values, rules, sites)
        if not n:
            fn, n = _nonzero_round(fn, values, rules, sites)
        # a later round that rewrote nothing has the last round's ``_delete_dead`` output,
        # which has nothing dead left (it deletes to a fixpoint)
        kept: dict = {}
        rewritten_fn = fn
        fn, dead = _delete_dead(fn, kept) if n or rounds == 1 else (fn, 0)
        rewritten += n
        removed += dead
        if not n and not dead:
            break
        if INCREMENTAL:
            last = _Round(values, rewritten_fn, frozenset(sites), kept)
        values = None
    if reads is not None:
        if values is None:          # the last round changed fn
            values = FunctionValues(fn, idom, readonly, returns, defined, global_sizes, order)
            values.solve()
        else:                       # a round changed nothing: fn is its own fixpoint
            _SIMPLIFIED.put(fn, (reads, return_bits(values)))
        returns[fn.name] = return_bits(values)
    return fn, FunctionSimplify(fn.name, size, rewritten, removed, rounds, dict(rules))


@dataclass
class _Round:
    """What one round of ``simplify_function`` saw and did: its ``values`` (solved, of the
    function it started from), the function ``after`` its rewrites (before ``_delete_dead``),
    the ``sites`` rewritten and ``kept``, label -> the indices ``_delete_dead`` kept of a block
    that lost some."""
    values: FunctionValues
    after: Function
    sites: frozenset
    kept: dict


def _seed(last: _Round, fn: Function) -> Seed:
    """What ``fn``'s known bits may start from after ``last``'s round (``Seed``)."""
    registers: set = set()
    edges = False
    old_blocks = last.values.fn_blocks
    for b in fn.blocks:
        ob = old_blocks[b.label]
        if ob is b:
            continue
        if not edges and exit_targets(b) != exit_targets(ob):
            edges = True
        eqs, old_eqs = block_equalities(b), block_equalities(ob)
        if eqs != old_eqs:
            for t in eqs.keys() | old_eqs.keys():
                registers.update(r for r, _v in set(eqs.get(t, ())) ^ set(old_eqs.get(t, ())))
    return Seed(last.values, last.sites, last.kept, registers, edges)


def _retry_sites(last: _Round, seed: Seed, values: FunctionValues) -> Optional[set]:
    """The sites of ``values.fn`` (the function after ``last``'s round, ``seed`` what changed
    in its edges, solved) where
    ``_rewrite`` may answer otherwise than in that round, where it gave None everywhere but at
    ``last.sites`` (now new instructions, asked again); None (every site) when the executable
    blocks differ.

    What a rule at a site reads: its operands' known bits there; through the SSA view
    (``leader``, ``ssa_def``, ``stable``, ``reaching_def``, ``same``) its operands' definitions
    and what those read (their operands' leaders, SSA status and bits, one level: ``stable.py``,
    the rules' inner definitions); for a compare the dominating branches (``branch_facts``), for
    a load the known memory (``known_loads``), both compared whole with the last round's. A
    register's bits at a read are unchanged when its definitions evaluate as before, none was
    added or removed, its edge equalities are the same and no edge left the reaching
    definitions (a branch decided in its block: then every read is compared). So the
    registers that may be seen otherwise are those whose definitions' bits changed, whose
    definition was rewritten to or from a copy (its leader), whose SSA status changed, or
    which are no SSA value and lost or gained a read (may it be read unwritten); a site reading
    one is asked, and so is one reading what it writes (a copy or an address step, ``add`` of a
    literal as ``known_memory`` walks it, passes the change on as it is). A register defined
    again alike (another operation, the same bits, no copy before or after) has its readers
    asked, through copies and address steps."""
    old = last.values
    if values.executable != old.executable:
        return None
    old_blocks, mid_blocks = old.fn_blocks, last.after.block_map()
    old_results, old_offset = old.bits.fill.results, old._site_index
    new_results, new_offset = values.bits.fill.results, values._site_index
    changed = set(seed.registers)   # registers that may read otherwise (edge equalities first)
    retry: set = set()
    rewritten = last.sites
    loads: list = []                # (new site, old site) of every load
    reread: set = set()             # registers some of whose reads were deleted or rewritten
    direct: set = set()             # registers defined again alike: their readers asked again
    for b in values.fn.blocks:
        label = b.label
        ob = old_blocks[label]
        no, nn = old_offset[label], new_offset[label]
        defs = block_access(b).defs
        if ob is b:                 # the same instructions at the same places
            for k, ds in enumerate(defs):
                if ds and old_results[no + k] != new_results[nn + k]:
                    changed.update(ds)
            loads.extend(((label, k), (label, k)) for k in _load_indices(b))
            continue
        kept = last.kept.get(label)
        old_reads = block_access(ob).reads
        if kept is not None:
            gone = set(range(len(ob.instrs))).difference(kept)
            for k in gone:
                reread.update(old_reads[k])
        mid_reads = block_access(mid_blocks[label]).reads
        loads.extend(((label, k2), (label, k2 if kept is None else kept[k2]))
                     for k2 in _load_indices(b))
        for k2, ds in enumerate(defs):
            k = k2 if kept is None else kept[k2]
            if (label, k) in rewritten:
                retry.add((label, k2))
                reread.update(old_reads[k])
                reread.update(mid_reads[k])
                if old_results[no + k] != new_results[nn + k2] or \
                        type(ob.instrs[k]) is Mov or type(b.instrs[k2]) is Mov:
                    changed.update(ds)      # other bits, or another leader through the copy
                else:
                    direct.update(ds)       # another definition: its readers see it
            elif ds and old_results[no + k] != new_results[nn + k2]:
                changed.update(ds)
    # a branch decided in its block: the known memory and the dominating branches follow edges
    cmps_all = loads_all = seed.edges
    if seed.edges:
        changed.update(r for _label, _k, r in values.moved_reads(old, last.kept))
    new_ssa, old_ssa = values.ssa, old.ssa
    for r, ins in new_ssa.items():
        if old_ssa.get(r) is not ins and (r not in direct or r not in old_ssa):
            changed.add(r)
    changed.update(r for r in old_ssa if r not in new_ssa)
    # other reads change a register's SSA status (above) and, of one that is no SSA value,
    # whether it may be read unwritten (its bits where no definition reaches)
    changed.update(r for r in reread if r not in new_ssa)
    # the sites reading a changed register, and what the rules see of the registers they
    # write: a copy or an address step (``add`` of a literal, which ``ssa_def``,
    # ``reaching_def`` and ``known_memory`` follow) passes the change on as it is, another
    # definition one level further, and rules look one level past an operand's definition (its
    # operands' leaders, SSA status and bits); a register defined again alike starts a level on
    # (its readers see its new definition, theirs only through copies and address steps)
    reads, instr_at = values.reads, values.instr_at()
    level = dict.fromkeys(direct, 1)
    level.update(dict.fromkeys(changed, 0))
    work = list(level)
    while work:
        r = work.pop()
        d = level[r]
        for site in reads.get(r, ()):
            retry.add(site)
            ins = instr_at[site]
            kind = type(ins)
            if kind is CondBr:
                cmps_all = True
            elif kind not in _PURE:
                loads_all = True
            step = d if kind is Mov or (kind is BinOp and ins.op == "add" and (
                type(ins.a) is Imm or type(ins.b) is Imm)) else d + 1
            if step > 1:
                continue
            for w in ins.defs():
                if level.get(w, 2) > step:
                    level[w] = step
                    work.append(w)
    # what a compare reads of the dominating branches (compared with the last round's when it
    # asked them), what a load reads of the known memory (a branch or a memory access reads a
    # changed register, or a load was rewritten: every load asked, each asking cheaply)
    if cmps_all:
        was = getattr(old, "_branch_facts", None)
        if was is None or values.branch_facts().facts != was.facts:
            retry.update(site for site, ins in instr_at.items() if type(ins) is Cmp)
    if loads_all or any(type(old_blocks[b].instrs[k]) is Load for b, k in rewritten):
        retry.update(site for site, _at in loads)
    return retry


def _load_indices(block) -> list:
    """The indices of ``block``'s loads."""
    return [k for k, ins in enumerate(block.instrs) if type(ins) is Load]


#: a function a round of ``simplify_function`` left unchanged -> (``_reads`` then, the known
#: bits of what it returns): with the same reads, simplifying it again changes nothing and
#: takes one round (the last ``simplify`` of ``simplify,pre-mr,pre-m,simplify`` on the
#: functions PRE left alone; issue #28 item 1)
_SIMPLIFIED = IdentityCache(256)


def _reads(fn: Function, readonly, returns: dict, defined, global_sizes) -> tuple:
    """Everything ``simplify_function`` reads besides ``fn`` and its dominator tree (which
    ``fn``'s blocks decide: the same function object, the same ``idom`` rows): its arguments,
    of ``returns`` only the callees' bits (``FunctionValues.evaluate`` of a call)."""
    callees = sorted(fn.callees())
    return (readonly or {}, tuple((c, returns.get(c)) for c in callees), defined,
            global_sizes or {})


#: ``_settled``'s bits of a callee it does not find settled: equal to no bits ``_reads`` holds
_AFRESH = object()


def _settled(module: Module, kept: dict, readonly: dict, defined: set, global_sizes: dict
             ) -> set:
    """Names of the defined functions ``simplify`` will find settled on ``module``, whose
    ``_SIMPLIFIED`` entries are ``kept`` (name -> entry): in its order (callees first), each
    with an entry of equal ``_reads``, the bits of a callee before it those of its entry when
    it is settled; a callee simplified afresh may return other bits, so its callers are not
    counted (a subset of what ``simplify_function`` finds: its callees' bits are then those
    entries' exactly)."""
    returns: dict = {}
    out = set()
    for fn in _callees_first(module):
        if not fn.blocks:
            continue
        got = kept.get(fn.name)
        if got is not None and got[0] == _reads(fn, readonly, returns, defined, global_sizes):
            out.add(fn.name)
            returns[fn.name] = got[1]
        else:
            returns[fn.name] = _AFRESH
    return out


def _module_reads(module: Module) -> tuple[dict, dict, set, dict]:
    """``(kept, readonly, defined, global_sizes)`` of ``simplify`` on ``module``: its defined
    functions' ``_SIMPLIFIED`` entries now (name -> entry; taken before any is simplified, so
    none is evicted in between) and the module inputs of ``simplify_function``."""
    kept = {}
    for fn in module.defined_functions():
        got = _SIMPLIFIED.get(fn)
        if got is not None:
            kept[fn.name] = got
    return (kept, readonly_contents(module),
            {f.name.lstrip("@") for f in module.defined_functions()},
            {g.name: g.size for g in module.globals})


def rows_for(module: Module, functions: Optional[Iterable[str]] = None) -> Optional[list]:
    """The functions whose ``idom`` ``simplify(module, rows)`` reads (``registry.Pass``): the
    defined functions it will not find settled (``_settled``; the last ``simplify`` of
    ``simplify,pre-mr,pre-m,simplify`` asked the dominators of every function, 223 of 251
    settled on csmith 24, 29, 4, 11, 19, 44, 38, 43, 32; issue #28 item 1); None (every
    function) when none is settled or ``functions`` names some."""
    if functions is not None:
        return None
    settled = _settled(module, *_module_reads(module))
    if not settled:
        return None
    return [fn.name for fn in module.defined_functions() if fn.name not in settled]


def _callees_first(module: Module) -> list:
    """The defined functions, each after the ones it calls (post-order of the call graph; a
    cycle is entered at its first function, whose callers then see no bits for it yet)."""
    fns = {f.name: f for f in module.defined_functions()}

    def callees(name):
        return iter(sorted(c for c in fns[name].callees() if c in fns))
    order, seen = [], set()
    for root in fns:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, callees(root))]
        while stack:
            name, it = stack[-1]
            nxt = next((c for c in it if c not in seen), None)
            if nxt is None:
                stack.pop()
                order.append(fns[name])
            else:
                seen.add(nxt)
                stack.append((nxt, callees(nxt)))
    return order


def simplify(module: Module, rows, *, functions: Optional[Iterable[str]] = None
             ) -> tuple[Module, SimplifyRecord]:
    """``(new module, record)``: every (or each named) defined function simplified; ``rows``
    holds ``idom`` (``Rows`` of the module: of the functions ``rows_for`` names, at least)."""
    kept, readonly, defined, global_sizes = _module_reads(module)
    returns: dict = {}              # what each function returns, filled callees first
    with collector_paused():
        return run_per_function(module, functions, SimplifyRecord(), lambda fn: simplify_function(
            fn, _idom_of(rows, fn.name), readonly, returns, defined, global_sizes,
            kept.get(fn.name)), order=_callees_first(module))


def _idom_of(rows, name: str):
    """``name``'s immediate dominators, read when called: asked only of a function not settled,
    as ``rows`` may lack the others (``rows_for``)."""
    return lambda: {n: d for d, n in rows.function(name)["idom"]}
