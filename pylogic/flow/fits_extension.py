"""Values that survive a narrow store and the load back: ``fits_extension`` (an operand always
holds a value ``size`` bytes sign- or zero-extended give back) and ``ReturnFits`` (the same of
what a module's function returns), what store-to-load forwarding across sizes needs.

Example
-------
>>> from pylogic.ir.model import Imm
>>> fits_extension(Imm(200), 1, False, {}), fits_extension(Imm(200), 1, True, {})
(True, False)

References: LLVM 14 ValueTracking.cpp (ComputeNumSignBits, the question GVN's load forwarding
asks of a narrower store); pathfinder.md §3.4.1.1 (across ``store L, t`` the name ``*L`` becomes
``t``); docs/pir.md (``load``/``store`` sizes and extension).
"""
from __future__ import annotations

from pylogic.flow.definitions import definitions
from pylogic.identity_cache import IdentityCache
from pylogic.ir.model import BinOp, Call, Cmp, Imm, Load, Mov, Reg, Ret


def fits_extension(v, size: int, signed: bool, defs: dict, seen: frozenset = frozenset(),
                   returns=None) -> bool:
    """Whether operand ``v`` always holds a value that ``size`` bytes extended (sign- or
    zero-) give back unchanged, so ``store.size A, v`` then ``load.size A`` reads ``v``:
    a constant in range, or a register every write of which is such a value (a register never
    written reads 0, which fits; a typed parameter's entry value lies in its range,
    ``Definitions.ranges``). Conservative: anything else does not fit.

    References: LLVM 14 ValueTracking.cpp (ComputeNumSignBits); docs/pir.md (load extension)."""
    if size >= 8:
        return True
    bits = 8 * size
    lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    if isinstance(v, Imm):
        return lo <= v.value < hi
    if not isinstance(v, Reg) or v.name in seen or v.name not in defs:
        return False
    seen = seen | {v.name}
    for ins in defs[v.name]:
        if ins is None:                      # a parameter: its type's range, when typed
            rng = getattr(defs, "ranges", {}).get(v.name)
            if rng is None or not (lo <= rng[0] and rng[1] < hi):
                return False
            continue
        if len(ins.defs()) != 1:
            return False
        if isinstance(ins, Mov):
            ok = fits_extension(ins.src, size, signed, defs, seen, returns)
        elif isinstance(ins, Cmp):
            ok = True                                             # 0 or 1
        elif isinstance(ins, Call) and returns is not None:       # what the callee returns
            ok = returns(ins.callee, size, signed)
        elif isinstance(ins, Load):      # sign-extended from M bytes fits M..8 signed only
            ok = (ins.size < size and (not ins.signed or signed)) or \
                (ins.size == size and ins.signed == signed)
        elif isinstance(ins, BinOp) and ins.op in ("and", "or", "xor"):
            # bitwise: the bits above N stay copies of bit N-1 (sign) or zero (zero extension)
            # when they are in both operands; and with a constant in [0, c] fits too
            ok = all(fits_extension(x, size, signed, defs, seen, returns)
                     for x in (ins.a, ins.b)) or (
                ins.op == "and" and any(isinstance(c, Imm) and 0 <= c.value < hi
                                        for c in (ins.a, ins.b)))
        elif isinstance(ins, BinOp) and ins.op in ("sar", "shr") and isinstance(ins.b, Imm):
            k = ins.b.value % 64                                   # shift counts mod 64
            if ins.op == "sar":                                    # in [-2^(63-k), 2^(63-k))
                ok = signed and k >= 64 - bits
            else:                                                  # in [0, 2^(64-k))
                ok = k > 0 and k >= 64 - bits + (1 if signed else 0)
        else:
            ok = False
        if not ok:
            return False
    return True


def return_fits(module) -> "ReturnFits":
    """``ReturnFits(module)``, one per module object: a PRE step's facts and its rewrite ask the
    same questions of the same module (issue #28 item 1)."""
    return _RETURN_FITS.get_or_compute(module, lambda: ReturnFits(module))


class ReturnFits:
    """``returns(callee, size, signed)``: whether every value the module's function ``callee``
    returns fits ``size`` bytes so extended (``fits_extension`` of each ``ret`` operand; a bare
    ``ret`` returns 0), so storing a call's result and loading it back reads the result
    (struct returns: gcc torture pr45070's ``rv.ucs``). Unknown callees and recursion: no."""

    def __init__(self, module):
        self.functions = {fn.name: fn for fn in module.functions if not fn.extern and fn.blocks}
        self.memo: dict = {}
        self.defs: dict = {}

    def __call__(self, callee: str, size: int, signed: bool) -> bool:
        key = (callee, size, signed)
        if key not in self.memo:
            fn = self.functions.get(callee)
            self.memo[key] = False              # while in progress (recursion): no
            if fn is not None:
                defs = self.defs.setdefault(callee, definitions(fn))
                self.memo[key] = all(
                    ins.value is None or fits_extension(ins.value, size, signed, defs,
                                                        frozenset(), self)
                    for b in fn.blocks for ins in b.instrs if isinstance(ins, Ret))
        return self.memo[key]


#: module -> its ReturnFits
_RETURN_FITS = IdentityCache(16)
