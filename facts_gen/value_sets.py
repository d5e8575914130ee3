"""Sets of signed 64-bit values as sorted disjoint intervals: what a branch query ``(v relop c)``
or an assertion (``"REL C"``, ``"range LO HI"``) allows (PathFinder §7.1.3's correlation
sources, decided in Python: Datalog integers are 32-bit on both engines)."""
from __future__ import annotations

MIN64, MAX64 = -(1 << 63), (1 << 63) - 1


def _unsigned_to_signed(lo: int, hi: int) -> list[tuple[int, int]]:
    """The unsigned interval [lo, hi] (0 <= lo <= hi < 2^64) as signed intervals."""
    out = []
    if lo <= MAX64:
        out.append((lo, min(hi, MAX64)))
    if hi > MAX64:
        out.append((max(lo, 1 << 63) - (1 << 64), hi - (1 << 64)))
    return out


def condition_set(rel: str, c: int) -> list[tuple[int, int]]:
    """The signed 64-bit values x with ``x rel c``, as disjoint sorted intervals."""
    u = c & ((1 << 64) - 1)
    table = {
        "eq": [(c, c)],
        "ne": [(MIN64, c - 1), (c + 1, MAX64)],
        "lt": [(MIN64, c - 1)], "le": [(MIN64, c)],
        "gt": [(c + 1, MAX64)], "ge": [(c, MAX64)],
        "ltu": _unsigned_to_signed(0, u - 1) if u > 0 else [],
        "leu": _unsigned_to_signed(0, u),
        "gtu": _unsigned_to_signed(u + 1, (1 << 64) - 1) if u < (1 << 64) - 1 else [],
        "geu": _unsigned_to_signed(u, (1 << 64) - 1),
    }[rel]
    return _merged((a, b) for a, b in table if a <= b)


def _merged(intervals) -> list[tuple[int, int]]:
    """Sorted, with overlapping and adjacent intervals joined (so subset tests are per piece)."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def parse_condition(cond: str) -> list[tuple[int, int]]:
    """The value set of an assertion text: ``"REL C"`` or ``"range LO HI"``."""
    parts = cond.split()
    if parts[0] == "range":
        return [(int(parts[1]), int(parts[2]))]
    return condition_set(parts[0], int(parts[1]))


def _subset(a: list, b: list) -> bool:
    return all(any(lo2 <= lo and hi <= hi2 for lo2, hi2 in b) for lo, hi in a)


def _disjoint(a: list, b: list) -> bool:
    return all(hi < lo2 or hi2 < lo for lo, hi in a for lo2, hi2 in b)
