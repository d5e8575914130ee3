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

from collections import Counter

from pylogic.flow.definitions import definitions
from pylogic.identity_cache import IdentityCache
from pylogic.ir.cfg import strongly_connected
from pylogic.ir.model import BinOp, Call, Cmp, Imm, Load, Mov, Reg, Ret


def fits_extension(v, size: int, signed: bool, defs: dict, seen: frozenset = frozenset(),
                   returns=None) -> bool:
    """Whether operand ``v`` always holds a value that ``size`` bytes extended (sign- or
    zero-) give back unchanged, so ``store.size A, v`` then ``load.size A`` reads ``v``:
    a constant in range, or a register every write of which is such a value (a register never
    written reads 0, which fits; a typed parameter's entry value lies in its range,
    ``Definitions.ranges``). Conservative: anything else does not fit. ``defs`` is read, and
    must not change once asked: answers are remembered per ``defs`` and ``returns`` object.

    References: LLVM 14 ValueTracking.cpp (ComputeNumSignBits); docs/pir.md (load extension)."""
    if size >= 8:
        return True
    memo = _MEMOS.get(defs)
    if memo is None or memo.returns is not returns:
        memo = _MEMOS.put(defs, _Memo(returns))
    return _fits(v, size, signed, defs, seen, returns, memo)


class _Memo:
    """Answers of ``_fits`` for one ``defs`` and ``returns``: ``known``, by (register, size,
    signed), of the registers on no cycle of ``_operands`` (``on_cycle``). A register is looked
    up only when not in ``seen``, and ``seen`` holds registers the register reaches and is
    reached from (the path above it), which only a cycle through it can hold; so the answer of a
    register on no cycle does not depend on ``seen`` (csmith's xor/and chains asked the same
    registers again: 87,311 calls for 7,702 questions in four programs' PRE steps, issue #28
    item 1)."""

    __slots__ = ("returns", "known", "cyclic", "done")

    def __init__(self, returns):
        self.returns, self.known = returns, {}
        self.cyclic: set = set()        # registers on a cycle
        self.done: set = set()          # registers whose component is known

    def on_cycle(self, r: str, defs: dict) -> bool:
        """Whether ``r`` is on a cycle of ``_operands``: Tarjan from ``r`` over the registers
        not yet placed (a placed component cannot join a new one: it would have reached it)."""
        if r not in self.done:
            comp = strongly_connected([r], _Unplaced(defs, self.done))
            size = Counter(comp.values())
            for x, c in comp.items():
                if x not in self.done:
                    self.done.add(x)
                    if size[c] > 1:
                        self.cyclic.add(x)
        return r in self.cyclic


class _Unplaced:
    """``_operands`` of the registers not yet placed (``done``: none), as ``succ.get``."""

    __slots__ = ("defs", "done")

    def __init__(self, defs: dict, done: set):
        self.defs, self.done = defs, done

    def get(self, r: str, default=()):
        return () if r in self.done else _operands(self.defs.get(r, ()))


def _operands(writes: list) -> list[str]:
    """The registers ``_fits`` asks about a register written by ``writes``."""
    out = []
    for ins in writes:
        if ins is None or len(ins.defs()) != 1:
            continue
        if isinstance(ins, Mov):
            ops = (ins.src,)
        elif isinstance(ins, BinOp) and ins.op in ("and", "or", "xor"):
            ops = (ins.a, ins.b)
        else:
            continue
        out.extend(x.name for x in ops if isinstance(x, Reg))
    return out


def _fits(v, size: int, signed: bool, defs: dict, seen, returns, memo: _Memo) -> bool:
    """``fits_extension`` (``size`` < 8), its answers kept in ``memo``."""
    bits = 8 * size
    lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    if isinstance(v, Imm):
        return lo <= v.value < hi
    if not isinstance(v, Reg) or v.name in seen or v.name not in defs:
        return False
    keep = not memo.on_cycle(v.name, defs)
    if keep:
        got = memo.known.get((v.name, size, signed))
        if got is not None:
            return got
    seen = seen | {v.name}
    ok = True
    for ins in defs[v.name]:
        if ins is None:                      # a parameter: its type's range, when typed
            rng = getattr(defs, "ranges", {}).get(v.name)
            ok = rng is not None and lo <= rng[0] and rng[1] < hi
        elif len(ins.defs()) != 1:
            ok = False
        elif isinstance(ins, Mov):
            ok = _fits(ins.src, size, signed, defs, seen, returns, memo)
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
            ok = all(_fits(x, size, signed, defs, seen, returns, memo)
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
            break
    if keep:
        memo.known[(v.name, size, signed)] = ok
    return ok


#: defs -> its _Memo (with the ``returns`` asked last)
_MEMOS = IdentityCache(64)


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
                defs = self.defs.get(callee)
                if defs is None:        # (one dict per callee: answers are kept per dict)
                    defs = self.defs[callee] = definitions(fn)
                self.memo[key] = all(
                    ins.value is None or fits_extension(ins.value, size, signed, defs,
                                                        frozenset(), self)
                    for b in fn.blocks for ins in b.instrs if isinstance(ins, Ret))
        return self.memo[key]


#: module -> its ReturnFits
_RETURN_FITS = IdentityCache(16)
