"""Bit-manipulation and overflow intrinsics expanded into straight-line PIR (no builtins, so
analyses see plain arithmetic). ``lw`` is the ``FunctionLowerer``; operands are canonical iN
values (lower.py, "Value model"), results are written canonical.

References: LLVM LangRef (llvm.ctpop/cttz/ctlz/bswap/fshl/fshr/*.with.overflow); population count by the
SWAR method (Hacker's Delight 5-1), count-leading-zeros by smearing (Hacker's Delight 5-3).
"""
from __future__ import annotations

from pylogic.ir.model import BinOp, Cmp, Imm, Mov, Reg, Select

_M1, _M2, _M4, _H01 = 0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0101010101010101
#: Stand-in result of llvm.returnaddress (PIR has no code addresses): 0, the value GCC documents
#: for frames it cannot name. (llvm.frameaddress is not lowered: programs compare it with the
#: addresses of locals, which a constant cannot imitate.)
RETURN_ADDRESS = 0


def _imm64(v: int) -> Imm:
    v &= (1 << 64) - 1
    return Imm(v - (1 << 64) if v >> 63 else v)


def popcount(lw, x) -> Reg:
    """Number of set bits of the 64-bit operand ``x``."""
    t = lw.tmp
    a, b, c, d, e, f, g, h, i, j = (t() for _ in range(10))
    lw.emit(BinOp(op="shr", dest=a, a=x, b=Imm(1)))
    lw.emit(BinOp(op="and", dest=b, a=Reg(a), b=Imm(_M1)))
    lw.emit(BinOp(op="sub", dest=c, a=x, b=Reg(b)))
    lw.emit(BinOp(op="and", dest=d, a=Reg(c), b=Imm(_M2)))
    lw.emit(BinOp(op="shr", dest=e, a=Reg(c), b=Imm(2)))
    lw.emit(BinOp(op="and", dest=e, a=Reg(e), b=Imm(_M2)))
    lw.emit(BinOp(op="add", dest=f, a=Reg(d), b=Reg(e)))
    lw.emit(BinOp(op="shr", dest=g, a=Reg(f), b=Imm(4)))
    lw.emit(BinOp(op="add", dest=h, a=Reg(f), b=Reg(g)))
    lw.emit(BinOp(op="and", dest=h, a=Reg(h), b=Imm(_M4)))
    lw.emit(BinOp(op="mul", dest=i, a=Reg(h), b=Imm(_H01)))
    lw.emit(BinOp(op="shr", dest=j, a=Reg(i), b=Imm(56)))
    return Reg(j)


def ctpop(lw, dest: str, x, bits: int) -> None:
    lw.emit(Mov(dest=dest, src=popcount(lw, lw.zext_op(x, bits))))


def cttz(lw, dest: str, x, bits: int) -> None:
    """Trailing zeros; ``bits`` for a zero operand (the defined result, LangRef)."""
    z = lw.zext_op(x, bits)
    if bits < 64:  # a sentinel bit above the value makes cttz(0) = bits
        s = lw.tmp()
        lw.emit(BinOp(op="or", dest=s, a=z, b=_imm64(1 << bits)))
        z = Reg(s)
    n, low, m = lw.tmp(), lw.tmp(), lw.tmp()
    lw.emit(BinOp(op="sub", dest=n, a=Imm(0), b=z))
    lw.emit(BinOp(op="and", dest=low, a=z, b=Reg(n)))  # lowest set bit (0 when z == 0)
    lw.emit(BinOp(op="sub", dest=m, a=Reg(low), b=Imm(1)))  # ones below it (all ones for 0)
    lw.emit(Mov(dest=dest, src=popcount(lw, Reg(m))))


def ctlz(lw, dest: str, x, bits: int) -> None:
    """Leading zeros within ``bits``; ``bits`` for a zero operand."""
    z = lw.zext_op(x, bits)
    for k in (1, 2, 4, 8, 16, 32):
        if k >= bits:
            break
        s, o = lw.tmp(), lw.tmp()
        lw.emit(BinOp(op="shr", dest=s, a=z, b=Imm(k)))
        lw.emit(BinOp(op="or", dest=o, a=z, b=Reg(s)))
        z = Reg(o)
    lw.emit(BinOp(op="sub", dest=dest, a=Imm(bits), b=popcount(lw, z)))


def bswap(lw, dest: str, x, bits: int) -> None:
    """Byte swap of an iN value, N a multiple of 16."""
    z = lw.zext_op(x, bits)
    nbytes = bits // 8
    acc = None
    for k in range(nbytes):
        s, m, p = lw.tmp(), lw.tmp(), lw.tmp()
        lw.emit(BinOp(op="shr", dest=s, a=z, b=Imm(8 * k)))
        lw.emit(BinOp(op="and", dest=m, a=Reg(s), b=Imm(0xFF)))
        lw.emit(BinOp(op="shl", dest=p, a=Reg(m), b=Imm(8 * (nbytes - 1 - k))))
        if acc is None:
            acc = Reg(p)
        else:
            o = lw.tmp()
            lw.emit(BinOp(op="or", dest=o, a=acc, b=Reg(p)))
            acc = Reg(o)
    lw.normalise(dest, acc, bits)


def with_overflow(lw, kind: str, a, b, bits: int) -> tuple:
    """``llvm.{s,u}{add,sub,mul}.with.overflow.iN``: -> (result operand, overflow operand).

    Signed: the exact result differs from its wrapped iN value. Unsigned: the exact result of
    the zero-extended operands leaves [0, 2^N). For N < 64 both are decided in 64 bits (products
    of N <= 32 bit values are exact); 64-bit and 33..63-bit multiplications check by division.
    """
    t = lw.tmp
    signed, op = kind[0] == "s", kind[1:]
    if not signed:
        a, b = lw.zext_op(a, bits), lw.zext_op(b, bits)
    wide, res, ovf = t(), t(), t()
    lw.emit(BinOp(op=op, dest=wide, a=a, b=b))
    lw.normalise(res, Reg(wide), bits)
    if bits < 64 and (op != "mul" or bits <= 32):
        if signed:
            lw.emit(Cmp(rel="ne", dest=ovf, a=Reg(res), b=Reg(wide)))
        else:
            lw.emit(Cmp(rel="gtu", dest=ovf, a=Reg(wide), b=_imm64((1 << bits) - 1)))
        return Reg(res), Reg(ovf)
    if op == "add":
        if signed:  # overflow iff both operands have the sign opposite to the result's
            x1, x2, x3 = t(), t(), t()
            lw.emit(BinOp(op="xor", dest=x1, a=a, b=Reg(res)))
            lw.emit(BinOp(op="xor", dest=x2, a=b, b=Reg(res)))
            lw.emit(BinOp(op="and", dest=x3, a=Reg(x1), b=Reg(x2)))
            lw.emit(Cmp(rel="lt", dest=ovf, a=Reg(x3), b=Imm(0)))
        else:
            lw.emit(Cmp(rel="ltu", dest=ovf, a=Reg(res), b=a))
        return Reg(res), Reg(ovf)
    if op == "sub":
        if signed:  # overflow iff the operands' signs differ and the result's differs from a's
            x1, x2, x3 = t(), t(), t()
            lw.emit(BinOp(op="xor", dest=x1, a=a, b=b))
            lw.emit(BinOp(op="xor", dest=x2, a=a, b=Reg(res)))
            lw.emit(BinOp(op="and", dest=x3, a=Reg(x1), b=Reg(x2)))
            lw.emit(Cmp(rel="lt", dest=ovf, a=Reg(x3), b=Imm(0)))
        else:
            lw.emit(Cmp(rel="ltu", dest=ovf, a=a, b=b))
        return Reg(res), Reg(ovf)
    # mul, 33..64 bits: overflow iff b != 0 and res / b != a (signed: also -1 * MIN)
    if not signed and bits == 64:
        q, nz, bad, bs = t(), t(), t(), t()
        lw.emit(Cmp(rel="ne", dest=nz, a=b, b=Imm(0)))
        lw.emit(Select(dest=bs, cond=Reg(nz), a=b, b=Imm(1)))
        lw._udiv64(q, Reg(res), Reg(bs), False)
        lw.emit(Cmp(rel="ne", dest=bad, a=Reg(q), b=a))
        lw.emit(BinOp(op="and", dest=ovf, a=Reg(bad), b=Reg(nz)))
        return Reg(res), Reg(ovf)
    if not signed:  # 33..63 bits, operands zero-extended: exact product fits iff quotient matches
        q, nz, bad, bs, big = t(), t(), t(), t(), t()
        lw.emit(Cmp(rel="ne", dest=nz, a=b, b=Imm(0)))
        lw.emit(Select(dest=bs, cond=Reg(nz), a=b, b=Imm(1)))
        zr = lw.zext_op(Reg(res), bits)
        lw.emit(BinOp(op="div", dest=q, a=zr, b=Reg(bs)))
        lw.emit(Cmp(rel="ne", dest=bad, a=Reg(q), b=a))
        lw.emit(BinOp(op="and", dest=big, a=Reg(bad), b=Reg(nz)))
        lw.emit(Mov(dest=ovf, src=Reg(big)))
        return Reg(res), Reg(ovf)
    # signed mul, 33..64 bits: check res / b == a on the wrapped iN value (b = -1: a == MIN)
    q, nz, bad, bs, m1, amin, spec, out = t(), t(), t(), t(), t(), t(), t(), t()
    lw.emit(Cmp(rel="ne", dest=nz, a=b, b=Imm(0)))
    lw.emit(Cmp(rel="eq", dest=m1, a=b, b=Imm(-1)))
    lw.emit(Select(dest=bs, cond=Reg(nz), a=b, b=Imm(1)))
    lw.emit(Select(dest=bs, cond=Reg(m1), a=Imm(1), b=Reg(bs)))
    lw.emit(BinOp(op="div", dest=q, a=Reg(res), b=Reg(bs)))
    lw.emit(Cmp(rel="ne", dest=bad, a=Reg(q), b=a))
    lw.emit(BinOp(op="and", dest=bad, a=Reg(bad), b=Reg(nz)))
    lw.emit(Cmp(rel="eq", dest=amin, a=a, b=_imm64(-(1 << (bits - 1)))))
    lw.emit(BinOp(op="and", dest=spec, a=Reg(m1), b=Reg(amin)))
    lw.emit(Select(dest=out, cond=Reg(m1), a=Reg(spec), b=Reg(bad)))
    lw.emit(Mov(dest=ovf, src=Reg(out)))
    return Reg(res), Reg(ovf)


def funnel_shift(lw, dest: str, a, b, s, bits: int, left: bool) -> None:
    """``llvm.fshl``/``llvm.fshr`` on iN (N <= 64): the N-bit ``a:b`` (``a`` the high half)
    rotated by ``s`` modulo N; fshl keeps the high N bits of ``(a:b) << s``, fshr the low N bits
    of ``(a:b) >> s``. A shift of 0 gives ``a`` (fshl) or ``b`` (fshr) (LangRef)."""
    t = lw.tmp
    za, zb, zs = lw.zext_op(a, bits), lw.zext_op(b, bits), lw.zext_op(s, bits)
    k, back, hi, lo, both, zero, res = (t() for _ in range(7))
    if bits & (bits - 1) == 0:
        lw.emit(BinOp(op="and", dest=k, a=zs, b=Imm(bits - 1)))
    else:  # zs is non-negative and below 2**N
        lw.emit(BinOp(op="rem", dest=k, a=zs, b=Imm(bits)))
    lw.emit(BinOp(op="sub", dest=back, a=Imm(bits), b=Reg(k)))
    if left:
        lw.emit(BinOp(op="shl", dest=hi, a=za, b=Reg(k)))
        lw.emit(BinOp(op="shr", dest=lo, a=zb, b=Reg(back)))
    else:
        lw.emit(BinOp(op="shl", dest=hi, a=za, b=Reg(back)))
        lw.emit(BinOp(op="shr", dest=lo, a=zb, b=Reg(k)))
    lw.emit(BinOp(op="or", dest=both, a=Reg(hi), b=Reg(lo)))
    lw.emit(Cmp(rel="eq", dest=zero, a=Reg(k), b=Imm(0)))
    # PIR shift counts are taken mod 64, so a shift by N = 64 is no shift: pick a/b explicitly
    lw.emit(Select(dest=res, cond=Reg(zero), a=a if left else b, b=Reg(both)))
    lw.normalise(dest, Reg(res), bits)
