"""Value ranges of a function's registers, for the decoder to leave out 64-bit wraps that cannot
be needed (``decode.py``: ``add``, ``sub``, ``mul``, ``shl``, ``neg`` are computed on Python ints
and wrapped to 64 bits only when the result may leave the signed 64-bit range).

Flow-insensitive intervals: a register's range covers every value any of its definitions can
write and its initial 0 (never-written registers read 0, docs/pir.md), so it holds at every
read, whichever path led there. Only definitions whose values are known exactly contribute a
bound: constants, global addresses, moves, compares and predicate defines (0/1), selects,
loads (their width and signedness), ``and``/``or``/``xor``/shifts/``not`` of bounded operands,
and arithmetic whose exact result stays in range. Parameters, calls' results, ``alloca`` and
``input`` are unbounded (None), and so is anything computed from them but an ``and`` with a
nonnegative bound or a shift right by a constant of a bounded value. Every bounded value is a
signed 64-bit one (results that may leave that range are wrapped), so a register whose range
grows more than ``WIDEN`` times is widened to all of them (the fixpoint then ends), and
``NARROW`` rounds of recomputing each range from its definitions narrow it again (loop
counters: ``i = i + 1`` then a sign extension). Cousot & Cousot 1977, widening/narrowing.
"""
from __future__ import annotations

from typing import Optional

from pylogic.ir.model import (
    MAX64, MIN64, TRUE_PREDICATES, BinOp, Cmp, Function, Imm, Load, Mov,
    PredDefine, Reg, Select, UnOp)
from pylogic.ir.ops import SHIFT_MASK

Range = Optional[tuple]  # (lo, hi) inclusive, or None: unbounded
SIGNED64 = (MIN64, MAX64)
WIDEN = 4  # growths of one register before it is widened to every signed value
NARROW = 3  # rounds of recomputing every range from the widened ones


def register_ranges(function: Function, global_addrs: dict) -> dict:
    """Register name -> ``(lo, hi)`` or None for every register ``function`` defines."""
    instrs = [ins for b in function.blocks for ins in b.instrs]
    defined = set(function.params)
    for ins in instrs:
        defined.update(ins.defs())
    ranges: dict = {r: (0, 0) for r in defined}
    for p in function.params:
        ranges[p] = None

    def of(op) -> Range:
        return operand_range(op, ranges, global_addrs)

    readers: dict = {}  # register -> indices of the instructions reading it
    for i, ins in enumerate(instrs):
        for op in ins.uses():
            if isinstance(op, Reg):
                readers.setdefault(op.name, []).append(i)
    grown = dict.fromkeys(defined, 0)
    widened = False
    work = list(range(len(instrs) - 1, -1, -1))  # a stack, program order first
    queued = set(work)
    while work:  # each register grows at most WIDEN + 1 times: this ends
        i = work.pop()
        queued.discard(i)
        for dest, value in _results(instrs[i], of):
            old = ranges.get(dest, (0, 0))
            if old is None or dest in TRUE_PREDICATES:
                continue
            new = join(old, value)
            if new != old:  # every bounded value is a signed one: widen to all of them
                grown[dest] += 1
                if grown[dest] > WIDEN and new is not None:
                    new, widened = SIGNED64, True
                ranges[dest] = new
                for k in readers.get(dest, ()):
                    if k not in queued:
                        queued.add(k)
                        work.append(k)
    if not widened:  # the least fixpoint already: nothing to narrow
        return ranges
    # narrowing: each register recomputed from its definitions, in place, in program order;
    # from a post-fixpoint, every update leaves one (so the ranges stay sound)
    defs: dict = {}
    for ins in instrs:
        for d in ins.defs():
            if d not in TRUE_PREDICATES and d not in function.params:
                defs.setdefault(d, []).append(ins)
    for _ in range(NARROW):
        changed = False
        for r, sources in defs.items():
            value = (0, 0)
            for ins in sources:
                for dest, v in _results(ins, of):
                    if dest == r:
                        value = join(value, v)
            if value != ranges[r]:
                ranges[r] = value
                changed = True
        if not changed:
            break
    return ranges


def operand_range(op, ranges: dict, global_addrs: dict) -> Range:
    """The range of an operand, given ``ranges`` of the function's defined registers."""
    if isinstance(op, Imm):
        return (op.value, op.value)
    name = op.name
    if isinstance(op, Reg):
        if name in TRUE_PREDICATES:
            return (1, 1)
        if name in ranges:
            return ranges[name]
        if name in global_addrs:
            return (global_addrs[name],) * 2
        return (0, 0)  # never written: reads 0
    if name in global_addrs:
        return (global_addrs[name],) * 2
    return None  # faults when executed (``decode.unknown_symbol``)


def join(a: Range, b: Range) -> Range:
    if a is None or b is None:
        return None
    return (min(a[0], b[0]), max(a[1], b[1]))


def signed(r: Range) -> bool:
    """Whether every value of ``r`` is a signed 64-bit value (no wrap needed)."""
    return r is not None and MIN64 <= r[0] and r[1] <= MAX64


def _results(ins, of) -> list:
    """(destination, range of the value it may write) of one instruction."""
    if isinstance(ins, Mov):
        return [(ins.dest, of(ins.src))]
    if isinstance(ins, (Cmp, PredDefine)):
        return [(d, (0, 1)) for d in ins.defs()]
    if isinstance(ins, Select):
        return [(ins.dest, join(of(ins.a), of(ins.b)))]
    if isinstance(ins, Load):
        n = ins.size
        if n >= 8:  # wider than 8 bytes: a wider value (docs/pir.md ``FROM``)
            return [(ins.dest, SIGNED64 if n == 8 else None)]
        bits = 8 * n
        return [(ins.dest, (-(1 << bits - 1), (1 << bits - 1) - 1) if ins.signed
                 else (0, (1 << bits) - 1))]
    if isinstance(ins, BinOp):
        return [(ins.dest, wrapped(binary(ins.op, of(ins.a), of(ins.b), ins.b)))]
    if isinstance(ins, UnOp):
        return [(ins.dest, wrapped(unary(ins.op, of(ins.a))))]
    return [(d, None) for d in ins.defs()]  # calls, alloca, input


def wrapped(r: Range) -> Range:
    """The range stored: a result that may leave the signed range is wrapped (any signed value)."""
    if r is None:
        return None
    return r if signed(r) else SIGNED64


def _bits(r: tuple) -> int:
    """The least k with ``r`` inside [-2**k, 2**k)."""
    return max(r[0].bit_length() if r[0] >= 0 else (-r[0] - 1).bit_length(),
               r[1].bit_length() if r[1] >= 0 else (-r[1] - 1).bit_length())


def binary(op: str, a: Range, b: Range, b_operand=None) -> Range:
    """The exact (unwrapped) range of ``a OP b``, or None when not bounded."""
    count = b_operand.value & SHIFT_MASK if isinstance(b_operand, Imm) else None
    if op == "and":  # with a nonnegative operand, the result is within it
        cands = [r for r in (a, b) if r is not None and r[0] >= 0]
        if cands:
            return (0, min(r[1] for r in cands))
    if a is None:
        if op == "shr" and count:  # any 64-bit pattern shifted right
            return (0, (1 << 64 - count) - 1)
        return None
    if op in ("sar", "shr") and count is not None:
        if op == "sar" or a[0] >= 0:
            return (a[0] >> count, a[1] >> count)
        return (0, (1 << 64 - count) - 1) if count else None
    if op == "shl" and count is not None:
        return (a[0] << count, a[1] << count)
    if b is None:
        return None
    if op == "add":
        return (a[0] + b[0], a[1] + b[1])
    if op == "sub":
        return (a[0] - b[1], a[1] - b[0])
    if op == "mul":
        corners = [x * y for x in a for y in b]
        return (min(corners), max(corners))
    if op in ("and", "or", "xor"):
        if op != "and" and a[0] >= 0 and b[0] >= 0:
            k = max(_bits(a), _bits(b))
            return (0, (1 << k) - 1)
        k = max(_bits(a), _bits(b))
        return (-(1 << k), (1 << k) - 1)
    return None if op not in ("div", "rem") else SIGNED64


def unary(op: str, a: Range) -> Range:
    if a is None:
        return None
    if op == "neg":
        return (-a[1], -a[0])
    if op == "not":
        return (~a[1], ~a[0])
    return None
