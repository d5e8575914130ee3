"""Known bits and sign bits of 64-bit PIR values (LLVM's ``computeKnownBits`` /
``ComputeNumSignBits``, ValueTracking.cpp), the abstract domain of ``simplify``.

A :class:`Bits` describes a set of 64-bit values: every value of the set has 0 at each bit of
``zero``, 1 at each bit of ``one``, and at least ``sign`` leading bits equal to its bit 63
(1 <= sign <= 64: the value lies in [-2**(64-sign), 2**(64-sign) - 1]). Masks are unsigned
(0 .. 2**64-1); values are signed 64-bit as everywhere in PIR (docs/pir.md: arithmetic wraps, shift
counts are taken mod 64, ``shr`` logical, ``sar`` arithmetic, ``div``/``rem`` signed truncating).

Every transfer function over-approximates: for all a in A, b in B, ``op(a, b)`` is in
``transfer(op, A, B)`` (tests/flow/test_known_bits.py checks it by enumeration against the
interpreter's operators). ``join`` is the union of two sets (fewer known bits).

Example
-------
>>> k = transfer("shr", const(-1), const(40))      # 2**24 - 1
>>> hex(k.zero), k.one == (1 << 24) - 1, k.sign
('0xffffff0000000000', True, 64)
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Optional

from pylogic.flow.lattice import apply
from pylogic.ir.model import RELATIONS, to_signed64
from pylogic.ir.ops import eval_rel

M = (1 << 64) - 1
SIGN = 1 << 63


class Bits(NamedTuple):
    zero: int
    one: int
    sign: int

    @property
    def constant(self) -> Optional[int]:
        """The one value of the set (signed), or None."""
        return to_signed64(self.one) if self.zero | self.one == M else None

    def contains(self, v: int) -> bool:
        u = v & M
        return not (u & self.zero) and (u & self.one) == self.one and sign_bits(v) >= self.sign


def sign_bits(v: int) -> int:
    """Leading bits of the 64-bit ``v`` equal to its bit 63 (1..64)."""
    u = v & M
    if u & SIGN:
        u = ~u & M
    return 64 - u.bit_length()


UNKNOWN = Bits(0, 0, 1)
#: a 0/1 value (cmp, predicate defines)
BOOL = Bits(M & ~1, 0, 63)


@lru_cache(maxsize=4096)     # pure; simplify's rounds ask the same literals again (issue #28)
def const(v: int) -> Bits:
    u = v & M
    return Bits(~u & M, u, sign_bits(v))


def normal(k: Bits) -> Bits:
    """``k`` with ``sign`` raised to what the known top bits say and the top ``sign`` bits known
    when bit 63 is."""
    sign = k.sign
    if k.zero & SIGN:
        sign = max(sign, 64 - (~k.zero & M).bit_length())
    elif k.one & SIGN:
        sign = max(sign, 64 - (~k.one & M).bit_length())
    top = (M << (64 - sign)) & M
    zero, one = k.zero, k.one
    if zero & SIGN:
        zero |= top
    elif one & SIGN:
        one |= top
    return Bits(zero, one, sign)


@lru_cache(maxsize=16384)    # pure; the rounds' fixpoints join the same bits again
def join(a: Bits, b: Bits) -> Bits:
    """The union of two sets (what both have in common)."""
    return normal(Bits(a.zero & b.zero, a.one & b.one, min(a.sign, b.sign)))


def leq(a: Bits, b: Bits) -> bool:
    """Whether ``a`` describes a subset of what ``b`` does (``b`` knows no more than ``a``)."""
    return (b.zero & ~a.zero) == 0 and (b.one & ~a.one) == 0 and b.sign <= a.sign


def signed_range(k: Bits) -> tuple[int, int]:
    """[lo, hi] (signed) containing every value of ``k``."""
    lo, hi = -(1 << (64 - k.sign)), (1 << (64 - k.sign)) - 1
    if k.zero & SIGN:           # non-negative: the unsigned bounds
        lo, hi = max(lo, k.one), min(hi, ~k.zero & M)
    elif k.one & SIGN:
        lo, hi = max(lo, to_signed64(k.one)), min(hi, to_signed64(~k.zero & M))
    return lo, hi


def unsigned_range(k: Bits) -> tuple[int, int]:
    """[lo, hi] (unsigned) containing every value of ``k``."""
    lo, hi = k.one, ~k.zero & M
    if k.zero & SIGN or k.one & SIGN:
        s_lo, s_hi = signed_range(k)
        lo, hi = max(lo, s_lo & M), min(hi, s_hi & M)
    return lo, hi


def _add(a: Bits, b: Bits, carry: int) -> Bits:
    """a + b + carry (carry 0 or 1): LLVM ``KnownBits::computeForAddCarry``."""
    possible_zero = ((~a.zero & M) + (~b.zero & M) + carry) & M
    possible_one = (a.one + b.one + carry) & M
    carry_zero = ~(possible_zero ^ a.zero ^ b.zero) & M
    carry_one = possible_one ^ a.one ^ b.one
    known = (a.zero | a.one) & (b.zero | b.one) & (carry_zero | carry_one)
    # sign bits: a + b stays in range when both have one sign bit to spare (ComputeNumSignBits)
    sign = max(1, min(a.sign, b.sign) - 1)
    return normal(Bits(~possible_zero & known & M, possible_one & known, sign))


def _not(a: Bits) -> Bits:
    return Bits(a.one, a.zero, a.sign)


def _leading_zeros(k: Bits) -> int:
    return 64 - (~k.zero & M).bit_length()


def _trailing_zeros(k: Bits) -> int:
    z = k.zero
    n = 0
    while n < 64 and z >> n & 1:
        n += 1
    return n


def _low(n: int) -> int:
    return (1 << n) - 1


def _mul(a: Bits, b: Bits) -> Bits:
    tz = min(64, _trailing_zeros(a) + _trailing_zeros(b))
    zero = _low(tz)
    if a.zero & SIGN and b.zero & SIGN:     # both non-negative: the product's bit length
        width = (64 - _leading_zeros(a)) + (64 - _leading_zeros(b))
        if width < 64:
            zero |= M & ~_low(width)
    return normal(Bits(zero, 0, 1))


def _shift_const(op: str, a: Bits, n: int) -> Bits:
    if op == "shl":
        return normal(Bits(((a.zero << n) | _low(n)) & M, (a.one << n) & M,
                           a.sign - n if a.sign > n else 1))
    if op == "shr":
        if n == 0:
            return a
        return normal(Bits((a.zero >> n) | (M & ~(M >> n)), a.one >> n, 1))
    # sar
    zero, one = a.zero >> n, a.one >> n
    if a.zero & SIGN:
        zero |= M & ~(M >> n)
    if a.one & SIGN:
        one |= M & ~(M >> n)
    return normal(Bits(zero, one, min(64, a.sign + n)))


def _shift(op: str, a: Bits, b: Bits) -> Bits:
    n = b.constant
    if n is not None:
        return _shift_const(op, a, n % 64)
    if op == "shl":
        return normal(Bits(_low(_trailing_zeros(a)), 0, 1))
    if op == "shr":         # no larger than a (unsigned)
        return normal(Bits(M & ~_low(64 - _leading_zeros(a)), 0, 1))
    # sar keeps a's sign bit and at least its sign bits
    return normal(Bits(a.zero & SIGN, a.one & SIGN, a.sign))


def _division(op: str, a: Bits, b: Bits) -> Bits:
    """``div``/``rem`` when they complete (a zero divisor faults: no value)."""
    non_negative = bool(a.zero & SIGN)
    if op == "rem":
        # |r| <= |a| with a's sign, |r| < |b|
        sign = max(a.sign, b.sign)
        if non_negative:
            return normal(Bits(M & ~_low(64 - _leading_zeros(a)), 0, sign))
        return normal(Bits(0, 0, sign))
    # div by a constant c, |c| >= 2: |q| <= |a| / 2**k with k = floor(log2 |c|), so k more sign
    # bits for c > 0 (ComputeNumSignBits' SDiv), k - 1 for c < 0 (MIN / -2**k = 2**(63-k));
    # a >= 0 and c > 0: q <= max(a) // c
    c = b.constant
    if c is not None and abs(c) >= 2:
        zero = 0
        if non_negative and c > 0:
            zero = M & ~_low((unsigned_range(a)[1] // c).bit_length())
        k = abs(c).bit_length() - 1 - (c < 0)
        return normal(Bits(zero, 0, min(64, a.sign + k)))
    # div: |q| <= |a|, except MIN / -1 = MIN (one sign bit fewer at most)
    if non_negative and b.zero & SIGN:
        return normal(Bits(M & ~_low(64 - _leading_zeros(a)), 0, 1))
    return normal(Bits(0, 0, max(1, a.sign - 1)))


def compare(rel: str, a: Bits, b: Bits) -> Optional[int]:
    """1 / 0 when ``a REL b`` holds for every / no pair of values of the two sets; else None."""
    if rel in ("eq", "ne"):
        differ = (a.one & b.zero) | (a.zero & b.one)
        if not differ:
            lo1, hi1 = signed_range(a)
            lo2, hi2 = signed_range(b)
            if hi1 >= lo2 and hi2 >= lo1:
                ca, cb = a.constant, b.constant
                if ca is not None and ca == cb:
                    return int(rel == "eq")
                return None
        return int(rel == "ne")
    if rel.endswith("u"):
        lo1, hi1 = unsigned_range(a)
        lo2, hi2 = unsigned_range(b)
        rel = rel[:-1]
    else:
        lo1, hi1 = signed_range(a)
        lo2, hi2 = signed_range(b)
    # the pair of values least and most in favour of a REL b
    least, most = ((hi1, lo2), (lo1, hi2)) if rel in ("lt", "le") else ((lo1, hi2), (hi1, lo2))
    return 1 if eval_rel(rel, *least) else 0 if not eval_rel(rel, *most) else None


@lru_cache(maxsize=16384)    # pure; simplify's rounds evaluate the same instructions again
def transfer(op: str, *args: Bits) -> Bits:
    """What ``op`` (a PIR opcode or a compare relation) gives on operands in ``args``."""
    values = [k.constant for k in args]
    if all(v is not None for v in values) and not (op in ("div", "rem") and values[1] == 0):
        return const(apply(op, *values))
    if op in ("add", "sub"):
        a, b = args
        return _add(a, _not(b), 1) if op == "sub" else _add(a, b, 0)
    if op == "neg":
        return _add(const(0), _not(args[0]), 1)
    if op == "not":
        return _not(args[0])
    if op == "mov":
        return args[0]
    if op == "and":
        a, b = args
        return normal(Bits(a.zero | b.zero, a.one & b.one, min(a.sign, b.sign)))
    if op == "or":
        a, b = args
        return normal(Bits(a.zero & b.zero, a.one | b.one, min(a.sign, b.sign)))
    if op == "xor":
        a, b = args
        return normal(Bits((a.zero & b.zero) | (a.one & b.one),
                           (a.zero & b.one) | (a.one & b.zero), min(a.sign, b.sign)))
    if op == "mul":
        return _mul(*args)
    if op in ("shl", "shr", "sar"):
        return _shift(op, *args)
    if op in ("div", "rem"):
        return _division(op, *args)
    if op == "select":
        c, a, b = args
        if c.one:
            return a
        if c.zero == M:
            return b
        return join(a, b)
    if op in RELATIONS:
        decided = compare(op, *args)
        return BOOL if decided is None else const(decided)
    return UNKNOWN


def load(size: int, signed: bool) -> Bits:
    """A ``load.N`` (sign-extending) or ``load.Nu`` result."""
    if size >= 8:
        return UNKNOWN
    if signed:
        return Bits(0, 0, 65 - 8 * size)
    return normal(Bits(M & ~_low(8 * size), 0, 1))


def in_range(lo: int, hi: int) -> Bits:
    """The values lo..hi (signed): the bits and sign bits every one of them shares."""
    if lo >= 0:
        return normal(Bits(M & ~_low(hi.bit_length()), 0, 1))
    sign = min(sign_bits(lo), sign_bits(hi))
    return normal(Bits(0, 0, sign))
