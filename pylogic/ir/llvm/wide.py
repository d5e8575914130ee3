"""Integers wider than 64 bits (``i80`` bitfield storage units in csmith, ``__int128``) lowered
exactly to 64-bit PIR words (docs/pir.md: every PIR value is 64-bit two's complement).

Value model (the wide counterpart of lower.py's): an iN with N > 64 lives in k = ceil(N/64)
registers ``x.w0 .. x.w(k-1)``, least significant first; every word but the top one holds its 64
bits as they are; the top word holds the remaining N - 64(k-1) bits SIGN-EXTENDED, like a narrow
iN. So and/or/xor work word by word, unsigned compares need no masking (sign-extension is
monotone for the unsigned order), lshr and zext zero-extend the top word first, and every result
is re-normalised at its top word. Memory holds the N bits in ceil(N/8) little-endian bytes.

Supported: constants, add, sub, mul, and, or, xor, shl, lshr, ashr (constant or variable
amounts), icmp, select, phi, freeze, trunc, zext, sext, bitcast, ptrtoint, inttoptr, load,
store. Division, calls passing or returning a wide value, and wide constant expressions raise
Unsupported with a reason naming them (the function is skipped, as before).
"""
from __future__ import annotations

from pylogic.ir.llvm.types import IntT, Unsupported
from pylogic.ir.model import MASK64, BinOp, Cmp, Imm, Load, Mov, Reg, Select, Store
from pylogic.ir.ops import fold

M32 = (1 << 32) - 1


def is_wide(ty) -> bool:
    return isinstance(ty, IntT) and ty.bits > 64


def nwords(bits: int) -> int:
    return (bits + 63) // 64


def top_bits(bits: int) -> int:
    return bits - 64 * (nwords(bits) - 1)


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def constant_words(value: int, bits: int) -> list[int]:
    """The canonical words of the iN constant ``value``."""
    k = nwords(bits)
    value &= (1 << bits) - 1
    out = [_signed(value >> (64 * i), 64) for i in range(k - 1)]
    return out + [_signed(value >> (64 * (k - 1)), top_bits(bits))]


class WideLowering:
    """Wide-integer instructions for one FunctionLowerer ``lw`` (its emit/tmp/op helpers)."""

    def __init__(self, lw):
        self.lw = lw
        self.regs: dict[str, list[str]] = {}     # PIR name of a wide value -> its word registers

    # ------------------------------------------------------------ values
    def words(self, name: str, bits: int) -> list[str]:
        regs = self.regs.get(name)
        if regs is None:
            regs = [self.lw.regs.fresh(f"{name[1:]}.w{i}") for i in range(nwords(bits))]
            self.regs[name] = regs
        elif len(regs) != nwords(bits):
            raise Unsupported(f"integer wider than 64 bits (i{bits}) used at two widths")
        return regs

    def operands(self, ty, v) -> list:
        bits = ty.bits
        kind = v[0]
        if kind == "local":
            return [Reg(r) for r in self.words(self.lw.regs.get(v[1]), bits)]
        if kind == "int":
            return [Imm(w) for w in constant_words(v[1], bits)]
        if kind == "zero":
            return [Imm(0)] * nwords(bits)
        raise Unsupported(f"integer wider than 64 bits (i{bits} constant expression)")

    # ------------------------------------------------------------ emission helpers
    def _t(self) -> str:
        return self.lw.tmp()

    def _bin(self, op: str, a, b):
        if isinstance(a, Imm) and isinstance(b, Imm) and op not in ("div", "rem"):
            return Imm(fold(op, a.value, b.value))
        t = self._t()
        self.lw.emit(BinOp(op=op, dest=t, a=a, b=b))
        return Reg(t)

    def _cmp(self, rel: str, a, b):
        t = self._t()
        self.lw.emit(Cmp(rel=rel, dest=t, a=a, b=b))
        return Reg(t)

    def _top(self, dest: str, src, bits: int):
        """dest := ``src`` sign-extended from the top word's width."""
        tb = top_bits(bits)
        if tb == 64:
            self.lw.emit(Mov(dest=dest, src=src))
        elif isinstance(src, Imm):
            self.lw.emit(Mov(dest=dest, src=Imm(_signed(src.value, tb))))
        else:
            t = self._bin("shl", src, Imm(64 - tb))
            self.lw.emit(BinOp(op="sar", dest=dest, a=t, b=Imm(64 - tb)))

    def _write(self, dest_words: list[str], values: list, bits: int):
        """dest words := values, the top one re-normalised."""
        for d, v in zip(dest_words[:-1], values[:-1]):
            self.lw.emit(Mov(dest=d, src=v))
        self._top(dest_words[-1], values[len(dest_words) - 1], bits)

    def _zext_top(self, words: list, bits: int) -> list:
        tb = top_bits(bits)
        if tb == 64:
            return list(words)
        return list(words[:-1]) + [self._bin("and", words[-1], Imm((1 << tb) - 1))]

    # ------------------------------------------------------------ arithmetic
    def _add(self, a: list, b: list) -> list:
        out, carry = [], None
        for i, (x, y) in enumerate(zip(a, b)):
            s = self._bin("add", x, y)
            last = i == len(a) - 1
            if carry is None:
                c = None if last else self._cmp("ltu", s, x)
            else:
                s2 = self._bin("add", s, carry)
                c = None if last else self._bin("or", self._cmp("ltu", s, x), self._cmp("ltu", s2, s))
                s = s2
            out.append(s)
            carry = c
        return out

    def _sub(self, a: list, b: list) -> list:
        out, borrow = [], None
        for i, (x, y) in enumerate(zip(a, b)):
            d = self._bin("sub", x, y)
            last = i == len(a) - 1
            if borrow is None:
                nb = None if last else self._cmp("ltu", x, y)
            else:
                d2 = self._bin("sub", d, borrow)
                nb = None if last else self._bin("or", self._cmp("ltu", x, y), self._cmp("ltu", d, borrow))
                d = d2
            out.append(d)
            borrow = nb
        return out

    def _mulhu(self, x, y):
        """High 64 bits of the unsigned 128-bit product x * y, from 32-bit halves."""
        x0, x1 = self._bin("and", x, Imm(M32)), self._bin("shr", x, Imm(32))
        y0, y1 = self._bin("and", y, Imm(M32)), self._bin("shr", y, Imm(32))
        p00, p01 = self._bin("mul", x0, y0), self._bin("mul", x0, y1)
        p10, p11 = self._bin("mul", x1, y0), self._bin("mul", x1, y1)
        mid = self._bin("add", self._bin("add", self._bin("shr", p00, Imm(32)),
                                         self._bin("and", p01, Imm(M32))),
                        self._bin("and", p10, Imm(M32)))
        hi = self._bin("add", p11, self._bin("shr", p01, Imm(32)))
        hi = self._bin("add", hi, self._bin("shr", p10, Imm(32)))
        return self._bin("add", hi, self._bin("shr", mid, Imm(32)))

    def _mul(self, a: list, b: list) -> list:
        k = len(a)
        acc = [Imm(0)] * k
        for i in range(k):
            for j in range(k - i):
                term = [Imm(0)] * k
                term[i + j] = self._bin("mul", a[i], b[j])
                if i + j + 1 < k:
                    term[i + j + 1] = self._mulhu(a[i], b[j])
                acc = self._add(acc, term)
        return acc

    # ------------------------------------------------------------ shifts
    def _funnel_right(self, lo, hi, r):
        """Low 64 bits of (hi:lo) >> r, 0 <= r < 64 (r may be a register)."""
        if isinstance(r, Imm):
            if r.value == 0:
                return lo
            return self._bin("or", self._bin("shr", lo, r), self._bin("shl", hi, Imm(64 - r.value)))
        # (hi << 1) << (63 - r): no shift by 64 when r = 0 (PIR shift counts are taken mod 64)
        up = self._bin("shl", self._bin("shl", hi, Imm(1)), self._bin("sub", Imm(63), r))
        return self._bin("or", self._bin("shr", lo, r), up)

    def _funnel_left(self, hi, lo, r):
        """High 64 bits of (hi:lo) << r, 0 <= r < 64."""
        if isinstance(r, Imm):
            if r.value == 0:
                return hi
            return self._bin("or", self._bin("shl", hi, r), self._bin("shr", lo, Imm(64 - r.value)))
        down = self._bin("shr", self._bin("shr", lo, Imm(1)), self._bin("sub", Imm(63), r))
        return self._bin("or", self._bin("shl", hi, r), down)

    def _shift_by_words(self, opcode: str, a: list, q: int, r) -> list:
        """``a`` shifted by 64q + r bits (r < 64), as k words (before re-normalising)."""
        k = len(a)
        if opcode == "shl":
            def word(i):
                return a[i] if 0 <= i < k else Imm(0)
            return [self._funnel_left(word(j - q), word(j - q - 1), r) for j in range(k)]
        fill = self._bin("sar", a[-1], Imm(63)) if opcode == "ashr" else Imm(0)

        def word(i):
            return a[i] if i < k else fill
        return [self._funnel_right(word(j + q), word(j + q + 1), r) for j in range(k)]

    def _shift(self, opcode: str, a: list, amount, bits: int) -> list:
        k = len(a)
        if opcode == "lshr":
            a = self._zext_top(a, bits)
        if isinstance(amount, Imm):
            s = amount.value & MASK64
            if s >= bits:   # poison in LLVM: any value will do
                s = 0
            return self._shift_by_words(opcode, a, s // 64, Imm(s % 64))
        q = self._bin("shr", amount, Imm(6))
        r = self._bin("and", amount, Imm(63))
        result = self._shift_by_words(opcode, a, 0, r)
        for qq in range(1, k):
            cand = self._shift_by_words(opcode, a, qq, r)
            is_q = self._cmp("eq", q, Imm(qq))
            result = [self._select(is_q, x, y) for x, y in zip(cand, result)]
        return result

    def _select(self, cond, a, b):
        t = self._t()
        self.lw.emit(Select(dest=t, cond=cond, a=a, b=b))
        return Reg(t)

    # ------------------------------------------------------------ instructions
    def binary(self, opcode: str, dest: str, ty, av, bv):
        bits = ty.bits
        a, b = self.operands(ty, av), self.operands(ty, bv)
        out = self.words(dest, bits)
        if opcode in ("and", "or", "xor"):
            for d, x, y in zip(out, a, b):
                self.lw.emit(BinOp(op=opcode, dest=d, a=x, b=y))
            return
        if opcode == "add":
            values = self._add(a, b)
        elif opcode == "sub":
            values = self._sub(a, b)
        elif opcode == "mul":
            values = self._mul(a, b)
        elif opcode in ("shl", "lshr", "ashr"):
            values = self._shift(opcode, a, b[0], bits)
        else:
            raise Unsupported(f"integer wider than 64 bits (i{bits} {opcode})")
        self._write(out, values, bits)

    def icmp(self, pred: str, dest: str, ty, av, bv):
        a, b = self.operands(ty, av), self.operands(ty, bv)
        if pred in ("eq", "ne"):
            diff = None
            for x, y in zip(a, b):
                d = self._bin("xor", x, y)
                diff = d if diff is None else self._bin("or", diff, d)
            self.lw.emit(Cmp(rel=pred, dest=dest, a=diff, b=Imm(0)))
            return
        if pred[1:] in ("gt", "ge"):
            a, b = b, a
            pred = pred[0] + ("lt" if pred[1:] == "gt" else "le")
        strict = pred[1:] == "lt"
        signed = pred[0] == "s"
        # lowest word: the relation itself (unsigned); above it: strictly below, or equal and below
        result = self._cmp("ltu" if strict else "leu", a[0], b[0])
        for i in range(1, len(a)):
            lt = self._cmp("lt" if signed and i == len(a) - 1 else "ltu", a[i], b[i])
            eq = self._cmp("eq", a[i], b[i])
            result = self._bin("or", lt, self._bin("and", eq, result))
        self.lw.emit(Mov(dest=dest, src=result))

    def select(self, dest: str, cond, ty, av, bv):
        out = self.words(dest, ty.bits)
        for d, x, y in zip(out, self.operands(ty, av), self.operands(ty, bv)):
            self.lw.emit(Select(dest=d, cond=cond, a=x, b=y))

    def copy(self, dest: str, ty, v):
        for d, x in zip(self.words(dest, ty.bits), self.operands(ty, v)):
            self.lw.emit(Mov(dest=d, src=x))

    def cast(self, opcode: str, dest: str, st, v, dt):
        """A cast with a wide source or destination (or both)."""
        lw = self.lw
        sbits = st.bits if isinstance(st, IntT) else 64
        dbits = dt.bits if isinstance(dt, IntT) else 64
        if is_wide(st):
            a = self.operands(st, v)
        else:
            a0 = lw.op(st, v)
            if opcode == "sext":
                a0 = lw.sext_op(a0, sbits)
            elif sbits < 64:
                a0 = lw.zext_op(a0, sbits)
            fill = self._bin("sar", a0, Imm(63)) if opcode == "sext" else Imm(0)
            a = [a0] + [fill] * (nwords(dbits) - 1)
            sbits = 64
        if not is_wide(dt):                                      # trunc / ptrtoint to <= 64
            if dbits == 64:
                lw.emit(Mov(dest=dest, src=a[0]))
            else:
                lw.normalise(dest, a[0], dbits)
            return
        k = nwords(dbits)
        if len(a) < k:                                           # zext / sext wide -> wider
            if opcode == "sext":
                fill = self._bin("sar", a[-1], Imm(63))
            else:
                a = self._zext_top(a, sbits)
                fill = Imm(0)
            a = a + [fill] * (k - len(a))
        elif len(a) == k and opcode == "zext" and sbits < dbits:
            a = self._zext_top(a, sbits)
        self._write(self.words(dest, dbits), a[:k], dbits)

    def load(self, dest: str, ty, addr):
        bits = ty.bits
        out = self.words(dest, bits)
        for i, d in enumerate(out[:-1]):
            self.lw.emit(Load(dest=d, addr=self.lw._offset(addr, 8 * i), size=8))
        top_addr = self.lw._offset(addr, 8 * (len(out) - 1))
        tb = top_bits(bits)
        if tb == 1:
            t = self._t()
            self.lw.emit(Load(dest=t, addr=top_addr, size=1, signed=False))
            self._top(out[-1], Reg(t), bits)
        else:
            self.lw.load_scalar(out[-1], IntT(tb), top_addr)

    def store(self, ty, v, addr):
        bits = ty.bits
        words = self.operands(ty, v)
        for i, w in enumerate(words[:-1]):
            self.lw.emit(Store(addr=self.lw._offset(addr, 8 * i), value=w, size=8))
        self.lw.store_scalar(IntT(top_bits(bits)), words[-1],
                             self.lw._offset(addr, 8 * (len(words) - 1)))

