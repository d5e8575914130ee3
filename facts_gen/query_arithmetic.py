"""Branch queries rewritten through arithmetic (issue #15 part C; PathFinder §7.1.3.1 allows a
richer back-substitution than copies): a query on ``v = add a, K`` (``sub a, K``) asks about
``a``, a query on ``v = sar (shl a, 64-W), 64-W`` (the importer's sign extension from W bits) or
``v = and a, 2^W-1`` (zero extension) asks about ``a``'s low W bits.

A query is ``(rel, c)``: the branch queries ``(v relop c)``, or, made here, a set of values
``("in", "LO..HI,LO..HI")``; either may carry a width ``"s32." / "u8." ...``: then it asks
about ``ext(low W bits of v)`` (sign or zero extension). Rewriting is exact by construction: the
new query's set is the preimage of the old one under the instruction, computed modulo the width
(2^64, or 2^W for a width query), so the width's wrap-around is in the set and can never change
an answer. A width query on a register every definition of which already lies in the width's
range (a sign-extended load, a ``sar``, a constant; not a parameter) is that register's own
query (``ext(low W bits of a) = a`` there).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

from facts_gen.value_sets import _disjoint, _merged, _subset, parse_condition
from pylogic.ir import ops
from pylogic.ir.model import MAX64, MIN64, RELATIONS, BinOp, Cmp, Function, Imm, Load, Mov, Reg

WIDTHS = (8, 16, 32)


def universe(kind: str) -> tuple[int, int]:
    """The values a query of width ``kind`` ("", "s32", "u8", ...) compares."""
    if not kind:
        return MIN64, MAX64
    w = int(kind[1:])
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if kind[0] == "s" else (0, (1 << w) - 1)


def split(rel: str) -> tuple[str, str]:
    """``(kind, base relation)`` of a query relation: ``"s32.lt"`` -> ``("s32", "lt")``."""
    kind, _, base = rel.rpartition(".")
    return kind, base


def _cut(intervals, lo: int, hi: int) -> list[tuple[int, int]]:
    return [(max(a, lo), min(b, hi)) for a, b in intervals if max(a, lo) <= min(b, hi)]


def query_set(rel: str, c) -> list[tuple[int, int]]:
    """The values (within the query's universe) that satisfy the query, as sorted intervals."""
    return list(_query_set(rel, c))


@lru_cache(maxsize=1 << 16)
def _query_set(rel: str, c) -> tuple[tuple[int, int], ...]:
    kind, base = split(rel)
    if base == "in":
        pieces = [p.split("..") for p in str(c).split(",") if p]
        s = [(int(a), int(b)) for a, b in pieces]
    else:
        s = ops.intervals(base, int(c))
    return tuple(_merged(_cut(s, *universe(kind))))


def image(kind: str, intervals) -> list[tuple[int, int]]:
    """``{ext(low W bits of x) : x in intervals}`` (identity for kind "")."""
    if not kind:
        return list(intervals)
    lo, hi = universe(kind)
    m = hi - lo + 1
    out = []
    for a, b in intervals:
        if b - a + 1 >= m:
            return [(lo, hi)]
        a2, b2 = (a - lo) % m + lo, (b - lo) % m + lo
        out.extend([(a2, b2)] if a2 <= b2 else [(a2, hi), (lo, b2)])
    return _merged(out)


def decide_query(cond_set, rel: str, c) -> Optional[str]:
    """TRUE / FALSE / None for an assertion's 64-bit value set against a query."""
    if not cond_set:
        return None
    kind, _ = split(rel)
    s, q = _image(kind, tuple(cond_set)), _query_set(rel, c)
    if _subset(s, q):
        return "TRUE"
    if _disjoint(s, q):
        return "FALSE"
    return None


@lru_cache(maxsize=1 << 12)
def _image(kind: str, intervals: tuple) -> list[tuple[int, int]]:
    """``image``, kept: a module asks its few assertions of every query (issue #28 item 1)."""
    return image(kind, intervals)


def canonical(kind: str, intervals, care: tuple = None, hint=None) -> tuple[str, object]:
    """The query of width ``kind`` whose set is ``intervals`` (within ``care``, the values the
    register can hold; default: the kind's universe): a plain relation when one has exactly
    that set there (so it shares decisions with the branch queries; constant ``hint`` first),
    else ``in``."""
    lo, hi = care or universe(kind)
    s = _merged(_cut(intervals, lo, hi))
    prefix = f"{kind}." if kind else ""
    ends = {e for a, b in s for e in (a - 1, a, b, b + 1)} or {0}
    for c in sorted(ends, key=lambda e: (e != hint, abs(e), e)):
        if not MIN64 <= c <= MAX64:
            continue
        for base in RELATIONS:
            if _cut_is(_query_set(prefix + base, c), lo, hi, s):
                return prefix + base, c
    return prefix + "in", ",".join(f"{a}..{b}" for a, b in s)


def _cut_is(q: tuple, lo: int, hi: int, s: list) -> bool:
    """``_merged(_cut(q, lo, hi)) == s`` for merged intervals ``q`` (a ``_query_set``): cut,
    they stay merged (each gap only widens), so they are compared piece by piece as cut, and
    the first difference answers (issue #28 item 1: ``canonical`` tries up to 40 queries)."""
    k, n = 0, len(s)
    for a, b in q:
        a, b = max(a, lo), min(b, hi)
        if a > b:
            continue
        if k == n or s[k] != (a, b):
            return False
        k += 1
    return k == n


def shifted(kind: str, intervals, k: int) -> list[tuple[int, int]]:
    """``{x in universe : wrap(x + k) in intervals}``, wrap modulo the kind's width."""
    lo, hi = universe(kind)
    m = hi - lo + 1
    out = []
    for a, b in intervals:
        a2, b2 = a - k, b - k
        if b2 - a2 + 1 >= m:
            return [(lo, hi)]
        a3, b3 = (a2 - lo) % m + lo, (b2 - lo) % m + lo
        out.extend([(a3, b3)] if a3 <= b3 else [(a3, hi), (lo, b3)])
    return out


@lru_cache(maxsize=1 << 16)
def rewrite(step: tuple, rel: str, c) -> Optional[tuple[str, object]]:
    """The query on the instruction's operand that ``(rel, c)`` on its result becomes (``step``
    from :func:`arithmetic_steps`), or None."""
    what, arg, in_range = step
    kind, _ = split(rel)
    q = query_set(rel, c)
    hint = None if split(rel)[1] == "in" else int(c)
    if what == "add":
        new_kind, new = kind, shifted(kind, q, arg)
        hint = None if hint is None else hint - arg
    else:                                          # ("sext" | "zext", W): v = ext_W(a)
        w = arg
        mine = f"{'s' if what == 'sext' else 'u'}{w}"
        lo, hi = universe(mine)
        klo, khi = universe(kind)
        if not (klo <= lo and hi <= khi):          # the outer width must keep ext_W(a) whole
            return None
        new_kind, new = mine, q
    if new_kind and new_kind in in_range:          # a's definitions all lie in the width's range
        return canonical("", new, care=universe(new_kind), hint=hint)
    return canonical(new_kind, new, hint=hint)


def arithmetic_steps(fn: Function, range_of) -> list[tuple]:
    """``(block, index, v, a, step)`` per instruction a query on ``v`` may be rewritten through:
    ``step`` = ``("add", K, in_range)`` or ``("sext"|"zext", W, in_range)``; ``in_range``: the
    widths ("s32", ...) every definition of ``a`` in ``fn`` lies within (``range_of(ins)``: the
    assertion text of an instruction's result, or None)."""
    found = []                                   # (block, index, v, a, what, arg)
    for b in fn.blocks:
        for k, ins in enumerate(b.instrs):
            if not isinstance(ins, BinOp) or ins.guard is not None:
                continue
            a, x = ins.a, ins.b
            if ins.op == "add" and isinstance(x, Reg) and isinstance(a, Imm):
                a, x = x, a
            if ins.op in ("add", "sub") and isinstance(a, Reg) and isinstance(x, Imm):
                kk = x.value if ins.op == "add" else -x.value
                found.append((b.label, k, ins.dest, a.name, "add", kk))
            elif ins.op == "and" and isinstance(a, Reg) and isinstance(x, Imm):
                w = _MASKS.get(x.value)
                if w is not None:
                    found.append((b.label, k, ins.dest, a.name, "zext", w))
            elif ins.op == "sar" and isinstance(a, Reg) and isinstance(x, Imm) and 64 - x.value in WIDTHS:
                src = _shl_source(b.instrs, k, a.name, x.value)
                if src is not None:
                    found.append((b.label, k, ins.dest, src, "sext", 64 - x.value))
    if not found:
        return []
    ranges = _in_range(fn, range_of, {a for _, _, _, a, _, _ in found})
    return [(label, k, v, a, (what, arg, ranges.get(a, ()))) for label, k, v, a, what, arg in found]


#: an ``and`` mask -> the width it zero-extends from
_MASKS = {(1 << w) - 1: w for w in WIDTHS}


def _shl_source(instrs, k: int, t: str, s: int) -> Optional[str]:
    """``a`` when ``t``'s last definition before ``k`` is ``t = shl a, s`` (unguarded) and ``a``
    is not redefined between."""
    for j in range(k - 1, -1, -1):
        ins = instrs[j]
        if t not in ins.defs():
            continue
        if isinstance(ins, BinOp) and ins.op == "shl" and ins.guard is None and \
                isinstance(ins.a, Reg) and ins.b == Imm(s) and ins.a.name != t and \
                not any(ins.a.name in later.defs() for later in instrs[j + 1:k]):
            return ins.a.name
        return None
    return None


def _in_range(fn: Function, range_of, wanted=None) -> dict[str, tuple]:
    """register -> the widths ("s8", "u16", ...) all its definitions lie within (parameters
    and guarded definitions lie within none; an unwritten register reads 0); ``wanted``: the
    registers asked about (default every one). A copy lies within what its sources lie within,
    so a register is within a width when it and every register its copies read, transitively,
    are no parameter and have definitions (other than copies) all within it."""
    defs: dict[str, list] = {}                     # register -> its other definitions
    copies: dict[str, set] = {}                    # register -> the registers it copies
    for b in fn.blocks:
        for ins in b.instrs:
            for r in ins.defs():
                if isinstance(ins, Mov) and isinstance(ins.src, Reg) and ins.guard is None:
                    copies.setdefault(r, set()).add(ins.src.name)
                else:
                    defs.setdefault(r, []).append(ins)
    hulls: dict[str, Optional[tuple]] = {}

    def hull(r: str) -> Optional[tuple]:
        """(least, greatest) value of r's definitions (not copies), None: one is unknown."""
        if r not in hulls:
            lo, hi = MAX64 + 1, MIN64 - 1
            for ins in defs[r]:
                rng = range_of(ins) if isinstance(ins, (BinOp, Load, Mov, Cmp)) else None
                if rng is None:
                    hulls[r] = None
                    return None
                for a, b in parse_condition(rng):
                    lo, hi = min(lo, a), max(hi, b)
            hulls[r] = (lo, hi)
        return hulls[r]
    params = set(fn.params)
    out: dict[str, tuple] = {}
    for a in (set(defs) | set(copies)) if wanted is None else wanted:
        seen, work = {a}, [a]
        while work:
            for src in copies.get(work.pop(), ()):
                if src not in seen:
                    seen.add(src)
                    work.append(src)
        if any(r in params or (r not in defs and r not in copies) or
               (r in defs and hull(r) is None) for r in seen):
            continue
        bounds = [hull(r) for r in seen if r in defs]
        lo = min((h[0] for h in bounds), default=MAX64 + 1)
        hi = max((h[1] for h in bounds), default=MIN64 - 1)
        got = tuple(kind for kind in _KINDS if universe(kind)[0] <= lo and hi <= universe(kind)[1])
        if got:
            out[a] = got
    return out


_KINDS = tuple(f"{s}{w}" for w in WIDTHS for s in "su")
