"""PIR operator semantics, in one place (IR.md "Semantics"): what every opcode computes on 64-bit
two's complement values, what every relation means, and how relations swap and negate.

The interpreter decodes from here, and every folder, facts extractor and predicate module
imports from here; ``tests/package/test_layers.py`` fails when another module writes its own
copy. A fault of the interpreted program (division by zero) is a ``Fault``.
"""
from __future__ import annotations

MIN64 = -(1 << 63)
MAX64 = (1 << 63) - 1
MASK64 = (1 << 64) - 1

SIGNED_RELS = ("eq", "ne", "lt", "le", "gt", "ge")
UNSIGNED_RELS = ("ltu", "leu", "gtu", "geu")

#: ``K REL x`` == ``x SWAPPED[REL] K``.
SWAPPED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le",
           "ltu": "gtu", "leu": "geu", "gtu": "ltu", "geu": "leu"}
#: ``not (x REL K)`` == ``x NEGATED[REL] K``.
NEGATED = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le",
           "ltu": "geu", "geu": "ltu", "leu": "gtu", "gtu": "leu"}


class Fault(Exception):
    """A fault of the interpreted program (division by zero, a bad memory access); the
    interpreter adds the location and makes a RunError."""


def div64(a: int, b: int) -> int:
    """Signed truncating division (C); INT64_MIN / -1 wraps to INT64_MIN. IR.md."""
    if b == 0:
        raise Fault("division by zero")
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return MIN64 if q > MAX64 else q


def rem64(a: int, b: int) -> int:
    """Signed remainder (C): the sign follows the dividend; INT64_MIN % -1 == 0. IR.md."""
    if b == 0:
        raise Fault("division by zero (remainder)")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def eval_rel(rel: str, a: int, b: int) -> bool:
    """Concrete value of ``a REL b`` on 64-bit integers (IR.md: signed and unsigned relations)."""
    if rel in UNSIGNED_RELS:
        a, b = a & MASK64, b & MASK64
        rel = rel[:-1]
    if rel == "eq":
        return a == b
    if rel == "ne":
        return a != b
    if rel == "lt":
        return a < b
    if rel == "le":
        return a <= b
    if rel == "gt":
        return a > b
    if rel == "ge":
        return a >= b
    raise ValueError(f"unknown relation {rel!r}")


def builtin_name(callee: str) -> str:
    """The builtin a callee name calls: ``@memcpy`` -> ``memcpy``, an LLVM intrinsic by its
    base name (``llvm.memcpy.p0.p0.i64`` -> ``memcpy``)."""
    name = callee.lstrip("@")
    return name.split(".")[1] if name.startswith("llvm.") else name
