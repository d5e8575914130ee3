"""Long straight-line hyperblocks of predicate defines for the predicate PPG benchmarks (issue #29
item 5): every deposit type on every guard / condition / old-value combination, in groups that
redefine the same two predicate registers again and again, as if-converted code does."""
from __future__ import annotations

import itertools

from pylogic.ir.deposit_types import DEPOSIT_ALIASES

#: The canonical deposit types (IR.md table), in table order.
TYPES = tuple(dict.fromkeys(DEPOSIT_ALIASES.values()))
#: Guard of the group's define: none, or the register the previous group left in q.
GUARDS = ("", "(q) ")
#: Its comparison: one of unknown outcome, or one whose outcome is known (a term is empty).
CONDITIONS = ("lt a, b", "eq a, a")
#: Its old value: what the previous groups left, or a fresh unconditional reset just before.
OLDS = ("kept", "reset")
#: One group per combination (12 types x 2 x 2 x 2 = 96, as the block of the issue).
GROUPS = tuple(itertools.product(TYPES, GUARDS, CONDITIONS, OLDS))


def hyperblock_lines(defines: int, stride: int = 1) -> list[str]:
    """The instructions of a hyperblock with exactly ``defines`` predicate defines: group k is
    ``GROUPS[k * stride % len(GROUPS)]`` (``stride`` coprime with 96 visits every group; 7 visits
    every type within 12 groups), each a define of ``p`` (the group's type) and ``q`` (the type
    five places on) after an optional reset, and an instruction guarded by ``p``; cut short at
    ``defines``."""
    lines: list[str] = []
    n = 0
    for k in itertools.count():
        if n == defines:
            break
        dtype, guard, cond, old = GROUPS[k * stride % len(GROUPS)]
        if old == "reset":
            lines.append("p:ut, q:uf = pcmp.gt a, 0")
            n += 1
            if n == defines:
                break
        other = TYPES[(TYPES.index(dtype) + 5) % len(TYPES)]
        lines.append(f"{guard}p:{dtype}, q:{other} = pcmp.{cond}")
        lines.append(f"(p) x = add x, {k % 7 + 1}")
        n += 1
    return lines


def hyperblock_program(defines: int, name: str = "hyper", stride: int = 1) -> str:
    """The PIR text of function ``name(a, b)``: one ``!hyperblock`` of ``defines`` predicate
    defines (``hyperblock_lines``), returning x."""
    body = "\n".join("    " + line for line in hyperblock_lines(defines, stride))
    return (f"func {name}(a, b) {{\nentry: !hyperblock\n    x = add a, 0\n{body}\n"
            f"    ret x\n}}\n")
