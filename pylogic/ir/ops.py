"""PIR operator semantics, in one place (docs/pir.md "Instructions"): what every opcode computes on 64-bit
two's complement values, what every relation means, how relations swap and negate, and the
values a relation with a constant allows.

Each operator is written twice, side by side: as a Python function (``compute``, what ``fold``
and every folder, facts extractor and predicate module use) and as a Python expression template
(``python``, what the interpreter's decoder ``pylogic.interp.decode`` specialises into the code it
runs); ``tests/ir/test_ops.py`` checks the one against the other on 64-bit edge values.
``tests/package/test_ops_owner.py`` fails when another module writes its own fold or relation
table. A fault of the interpreted program (division by zero) is a ``Fault``.

The 64-bit value domain itself (``MIN64``, ``MAX64``, ``MASK64``, ``to_signed64``) and the names
of the operators (``BINARY_OPS``, ``UNARY_OPS``, ``RELATIONS``) live in ``pylogic.ir.model``, where
every literal is normalised to it (``Imm``) and the parser and verifier read the names; this
module gives those names their meaning.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pylogic.ir.model import BINARY_OPS, MASK64, MAX64, MIN64, RELATIONS, UNARY_OPS, to_signed64

#: docs/pir.md: shift counts are taken mod 64, i.e. ``count & SHIFT_MASK``.
SHIFT_MASK = 63


class Fault(Exception):
    """A fault of the interpreted program (division by zero, a bad memory access); the
    interpreter adds the location and makes a RunError."""


def div64(a: int, b: int) -> int:
    """Signed truncating division (C); INT64_MIN / -1 wraps to INT64_MIN. docs/pir.md."""
    if b == 0:
        raise Fault("division by zero")
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return MIN64 if q > MAX64 else q


def rem64(a: int, b: int) -> int:
    """Signed remainder (C): the sign follows the dividend; INT64_MIN % -1 == 0. docs/pir.md."""
    if b == 0:
        raise Fault("division by zero (remainder)")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


# ---------------------------------------------------------------- operators

#: Ranges an operator's ``python`` expression may take before the result is stored:
SIGNED = "signed"        # a signed 64-bit value already
UNSIGNED = "unsigned"    # 0 .. 2**64 - 1: values above MAX64 are reinterpreted (minus 2**64)
WIDE = "wide"            # any integer: wrapped to 64 bits (``to_signed64``)
CONDITION = "condition"  # a Python truth value (relations)

#: Names the ``python`` templates call, for the namespace the generated code runs in.
PYTHON_NAMES = {"DIV": div64, "REM": rem64}


@dataclass(frozen=True)
class Operator:
    """One PIR operator.

    ``compute``: its value on the operands' signed 64-bit values as a Python int (or truth
    value), before the wrap ``value`` calls for. ``python``: the same as a Python expression
    template, over ``{a}``, ``{b}`` (the operands' signed values), ``{ua}``, ``{ub}`` (their
    unsigned values) and ``{n}`` (the shift count, ``b & SHIFT_MASK``), calling ``PYTHON_NAMES``.
    ``value``: the range of both (``SIGNED``, ``UNSIGNED``, ``WIDE``, ``CONDITION``)."""
    compute: Callable
    python: str
    value: str


#: docs/pir.md ``R = OP A, B``: div/rem signed and truncating, shr logical, sar arithmetic.
BINARY = {
    "add": Operator(lambda a, b: a + b, "{a} + {b}", WIDE),
    "sub": Operator(lambda a, b: a - b, "{a} - {b}", WIDE),
    "mul": Operator(lambda a, b: a * b, "{a} * {b}", WIDE),
    "div": Operator(div64, "DIV({a}, {b})", SIGNED),
    "rem": Operator(rem64, "REM({a}, {b})", SIGNED),
    "and": Operator(lambda a, b: a & b, "{a} & {b}", SIGNED),
    "or": Operator(lambda a, b: a | b, "{a} | {b}", SIGNED),
    "xor": Operator(lambda a, b: a ^ b, "{a} ^ {b}", SIGNED),
    "shl": Operator(lambda a, b: a << (b & SHIFT_MASK), "{a} << {n}", WIDE),
    "shr": Operator(lambda a, b: (a & MASK64) >> (b & SHIFT_MASK), "{ua} >> {n}", UNSIGNED),
    "sar": Operator(lambda a, b: a >> (b & SHIFT_MASK), "{a} >> {n}", SIGNED),
}
#: docs/pir.md ``R = neg A`` / ``R = not A``.
UNARY = {
    "neg": Operator(lambda a: -a, "-{a}", WIDE),
    "not": Operator(lambda a: ~a, "~{a}", SIGNED),
}
#: docs/pir.md ``cmp.REL``: eq ne lt le gt ge signed, ltu leu gtu geu unsigned.
RELATION = {
    "eq": Operator(lambda a, b: a == b, "{a} == {b}", CONDITION),
    "ne": Operator(lambda a, b: a != b, "{a} != {b}", CONDITION),
    "lt": Operator(lambda a, b: a < b, "{a} < {b}", CONDITION),
    "le": Operator(lambda a, b: a <= b, "{a} <= {b}", CONDITION),
    "gt": Operator(lambda a, b: a > b, "{a} > {b}", CONDITION),
    "ge": Operator(lambda a, b: a >= b, "{a} >= {b}", CONDITION),
    "ltu": Operator(lambda a, b: a & MASK64 < b & MASK64, "{ua} < {ub}", CONDITION),
    "leu": Operator(lambda a, b: a & MASK64 <= b & MASK64, "{ua} <= {ub}", CONDITION),
    "gtu": Operator(lambda a, b: a & MASK64 > b & MASK64, "{ua} > {ub}", CONDITION),
    "geu": Operator(lambda a, b: a & MASK64 >= b & MASK64, "{ua} >= {ub}", CONDITION),
}
assert tuple(BINARY) == BINARY_OPS and tuple(UNARY) == UNARY_OPS and tuple(RELATION) == RELATIONS

UNSIGNED_RELS = ("ltu", "leu", "gtu", "geu")
SIGNED_RELS = tuple(r for r in RELATIONS if r not in UNSIGNED_RELS)
#: ``K REL x`` == ``x SWAPPED[REL] K``.
SWAPPED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le",
           "ltu": "gtu", "leu": "geu", "gtu": "ltu", "geu": "leu"}
#: ``not (x REL K)`` == ``x NEGATED[REL] K``.
NEGATED = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le",
           "ltu": "geu", "geu": "ltu", "leu": "gtu", "gtu": "leu"}
#: The relations ``x REL x`` satisfies, whatever x is.
REFLEXIVE = frozenset(r for r in RELATIONS if RELATION[r].compute(0, 0))


def eval_rel(rel: str, a: int, b: int) -> bool:
    """Concrete value of ``a REL b`` on 64-bit integers (docs/pir.md: signed and unsigned relations)."""
    return bool(RELATION[rel].compute(a, b))


def fold(op: str, *args: int) -> int:
    """The value of PIR operator ``op`` (a binary or unary opcode, or a relation: 0/1) on
    constant signed 64-bit operands, wrapped to 64 bits. Raises ``Fault`` on a division by
    zero. ``fold("shr", -1, 60) == 15``, ``fold("ltu", -1, 0) == 0``."""
    if op in RELATION:
        return int(RELATION[op].compute(*args))
    return to_signed64((BINARY.get(op) or UNARY[op]).compute(*args))


def intervals(rel: str, c: int) -> list[tuple[int, int]]:
    """The signed 64-bit values x where ``x REL c`` holds, as sorted disjoint, non-adjacent
    intervals ``[lo, hi]`` (an unsigned relation's set is two signed pieces, or one where they
    meet: ``x geu 0`` is every value). References: pas.md §3.3; PathFinder §7.1.3."""
    if rel in UNSIGNED_RELS:
        u = c & MASK64
        lo, hi = {"ltu": (0, u - 1), "leu": (0, u), "gtu": (u + 1, MASK64), "geu": (u, MASK64)}[rel]
        if lo > hi:
            return []
        if (lo, hi) == (0, MASK64):
            return [(MIN64, MAX64)]
        # the unsigned values above MAX64 are the negative signed ones
        negative = [(max(lo, MAX64 + 1) - (1 << 64), hi - (1 << 64))] if hi > MAX64 else []
        return negative + ([(lo, min(hi, MAX64))] if lo <= MAX64 else [])
    pieces = {"eq": [(c, c)], "ne": [(MIN64, c - 1), (c + 1, MAX64)], "lt": [(MIN64, c - 1)],
              "le": [(MIN64, c)], "gt": [(c + 1, MAX64)], "ge": [(c, MAX64)]}[rel]
    return [(lo, hi) for lo, hi in pieces if lo <= hi]


def builtin_name(callee: str) -> str:
    """The builtin a callee name calls: ``@memcpy`` -> ``memcpy``, an LLVM intrinsic by its
    base name (``llvm.memcpy.p0.p0.i64`` -> ``memcpy``)."""
    name = callee.lstrip("@")
    return name.split(".")[1] if name.startswith("llvm.") else name
