"""Sets of signed 64-bit values as sorted disjoint intervals: what an assertion (``"REL C"``,
``"range LO HI"``) allows (PathFinder §7.1.3's correlation sources, decided in Python: Datalog
integers are 32-bit on both engines); a branch query ``(v relop c)`` allows ``ops.intervals``."""
from __future__ import annotations

from functools import lru_cache

from pylogic.ir.ops import intervals


def _merged(pieces) -> list[tuple[int, int]]:
    """Sorted, with overlapping and adjacent intervals joined (so subset tests are per piece)."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(pieces):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


@lru_cache(maxsize=1 << 16)
def parse_condition(cond: str) -> tuple[tuple[int, int], ...]:
    """The value set of an assertion text: ``"REL C"`` or ``"range LO HI"`` (cached, so a
    tuple: a module decides the same few assertions again and again)."""
    parts = cond.split()
    if parts[0] == "range":
        return ((int(parts[1]), int(parts[2])),)
    return tuple(intervals(parts[0], int(parts[1])))


def _subset(a, b) -> bool:
    """Every piece of ``a`` lies within one of ``b`` (loops, not generators: a module asks
    thousands of these, issue #28 item 1)."""
    for lo, hi in a:
        for lo2, hi2 in b:
            if lo2 <= lo and hi <= hi2:
                break
        else:
            return False
    return True


def _disjoint(a, b) -> bool:
    """No piece of ``a`` meets one of ``b``."""
    for lo, hi in a:
        for lo2, hi2 in b:
            if lo2 <= hi and lo <= hi2:
                return False
    return True
