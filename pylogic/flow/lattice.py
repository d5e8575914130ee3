"""The constant-propagation lattice D = D' ∪ {⊥, ⊤} (predicated_cp.md §2.3, checklist §6).

Values are Python ints (64-bit two's complement, docs/pir.md; Booleans are 0/1), ``TOP`` (no
information yet) and ``BOT`` (not constant). The meet is flat and ``⊓∅ = ⊤``; operators are
strict, ⊥ winning over ⊤ (T10).

Example
-------
>>> meet(TOP, 5), meet(5, 6) is BOT, apply("add", 2, 3), apply("add", BOT, TOP) is BOT
(5, True, 5, True)
"""
from __future__ import annotations

from typing import Iterable

from pylogic.ir.model import MAX64, MIN64, RELATIONS
from pylogic.ir.ops import SWAPPED, fold, intervals


class _Mark:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


TOP = _Mark("⊤")
BOT = _Mark("⊥")


def meet(a, b):
    """Flat meet: ⊤ ⊓ x = x, c ⊓ c = c, otherwise ⊥."""
    if a is TOP:
        return b
    if b is TOP or a == b:
        return a
    return BOT


def meet_all(values: Iterable):
    """⊓ of a set of values; ⊓∅ = ⊤."""
    out = TOP
    for v in values:
        out = meet(out, v)
        if out is BOT:
            return BOT
    return out


#: Operations whose result is never a compile-time constant (memory, calls, input; a store has
#: no result at all, but appears as a node of the predicated value graph).
OPAQUE = frozenset({"load", "store", "call", "alloca", "input"})


#: Absorbing operands: ``x and 0``, ``x mul 0``, ``x or -1`` have that value whatever x is
#: (as in LLVM's SCCP, which keeps them constant when the other operand is overdefined).
ABSORBING = {"and": 0, "mul": 0, "or": -1}


def _decided_compares() -> dict:
    """Compares decided by one operand at the end of its range, whatever the other is (LLVM's
    SCCP gets these from constant ranges): ``(relation, operand position, value) -> result``
    wherever ``x REL value`` (position 1) or ``value REL x`` (position 0, ``x SWAPPED[REL]
    value``) holds for every x or for none."""
    decided = {}
    for value in (0, -1, MIN64, MAX64):
        for rel in RELATIONS:
            for position, as_right in ((1, rel), (0, SWAPPED[rel])):
                holds = intervals(as_right, value)
                if holds in ([], [(MIN64, MAX64)]):
                    decided[rel, position, value] = int(bool(holds))
    return decided


DECIDED = _decided_compares()


def apply(op: str, *args):
    """``op`` (a PIR opcode, or a relation giving 0/1) on lattice values, strict in ⊥ and ⊤
    except for an absorbing operand (``ABSORBING``) or a compare one operand decides
    (``DECIDED``). Division by a constant 0 is ⊥: the
    instruction faults at run time, it has no value."""
    if op in OPAQUE:
        return BOT
    if op in ABSORBING and ABSORBING[op] in [a for a in args if a is not BOT and a is not TOP]:
        return ABSORBING[op]
    if op in RELATIONS:
        for k, a in enumerate(args):
            if a is not BOT and a is not TOP and (op, k, a) in DECIDED:
                return DECIDED[op, k, a]
    if any(a is BOT for a in args):
        return BOT
    if any(a is TOP for a in args):
        return TOP
    if op in ("div", "rem") and args[1] == 0:
        return BOT
    if op == "select":
        return args[1] if args[0] != 0 else args[2]
    if op == "mov":
        return args[0]
    return fold(op, *args)
