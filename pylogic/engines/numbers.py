"""Soufflé 2.5's signed ``number`` in Python: ``RamSigned`` is ``int32_t`` and every operator
of its interpreter (``src/interpreter/Engine.cpp``, ``IntrinsicOperator``) computes in it, so a
value wraps modulo 2^32 after every operation. The engines that do not evaluate in C++ use
these functions: the clingo engine's functors (``functors.py``) and its constant folding
(``to_clingo.py``), the explainer (``explain.py``) and the in-process rules of ``indexed.py``;
``wrap_expr`` is the same wrap as SQL (and Python) text for ``to_sql.py`` and ``indexed.py``.

Where Soufflé's C++ is undefined (a division by zero, which kills Soufflé with SIGFPE) the
value is ``None``: the binding derives nothing, as in the duckdb engine. ``-2147483648 / -1``
(also SIGFPE in Soufflé) wraps to ``-2147483648``, as in the duckdb engine."""
from __future__ import annotations

import math

MASK = 0xFFFFFFFF
INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1


def wrap_const(value: int) -> int:
    """A value wrapped to the signed 32-bit range (two's complement): the parser folds
    ``-(-2147483648)`` to 2147483648, which clingo wraps to -2147483648 (measured)."""
    return (value + 2 ** 31) % 2 ** 32 - 2 ** 31


wrap = wrap_const


def wrap_expr(expr: str) -> str:
    """``expr`` (BIGINT) wrapped to the signed 32-bit range, as text: valid SQL (``to_sql.py``)
    and a valid Python expression (``indexed.py``'s compiled rules)."""
    return f"((({expr}) + 2147483648) & 4294967295) - 2147483648"


def div(a: int, b: int) -> int | None:
    """C's ``/``: truncation toward zero."""
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return wrap(q if (a < 0) == (b < 0) else -q)


def mod(a: int, b: int) -> int | None:
    """C's ``%``: the sign of the dividend."""
    if b == 0:
        return None
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def power(a: int, b: int) -> int:
    """``static_cast<RamSigned>(std::pow(a, b))``: a double converted back; out of range (and
    NaN) gives x86's 'integer indefinite' -2^31."""
    try:
        v = math.pow(a, b)
    except (OverflowError, ValueError, ZeroDivisionError):
        v = math.inf
    if math.isnan(v) or not INT_MIN <= v <= INT_MAX:
        return INT_MIN
    return int(v)


def bshl(a: int, b: int) -> int:
    """``<<`` on the unsigned pattern, the shift masked to 0..31 (RAM_BIT_SHIFT_MASK)."""
    return wrap((a & MASK) << (b & 31))


def bshr(a: int, b: int) -> int:
    """``>>`` with sign extension, the shift masked to 0..31."""
    return wrap(a) >> (b & 31)


def bshru(a: int, b: int) -> int:
    """``>>`` on the unsigned pattern, the shift masked to 0..31."""
    return wrap((a & MASK) >> (b & 31))


#: Soufflé's binary number operators (dialect names) -> their value, None where undefined.
BINARY = {
    "+": lambda a, b: wrap(a + b),
    "-": lambda a, b: wrap(a - b),
    "*": lambda a, b: wrap(a * b),
    "/": div,
    "%": mod,
    "^": power,
    "band": lambda a, b: wrap(a & b),
    "bor": lambda a, b: wrap(a | b),
    "bxor": lambda a, b: wrap(a ^ b),
    "bshl": bshl,
    "bshr": bshr,
    "bshru": bshru,
    "land": lambda a, b: int(bool(a) and bool(b)),
    "lor": lambda a, b: int(bool(a) or bool(b)),
    "lxor": lambda a, b: int(bool(a) != bool(b)),
}


def binary(op: str, a: int, b: int) -> int:
    """``BINARY[op](a, b)``, raising ZeroDivisionError where it is undefined (``/`` and ``%`` by
    zero: the rule instance derives nothing): the form of ``indexed.py``'s compiled rules and of
    the explainer."""
    value = BINARY[op](a, b)
    if value is None:
        raise ZeroDivisionError
    return value

#: Unary operators: ``-`` (``NEG``), ``bnot``, ``lnot``.
UNARY = {
    "-": lambda a: wrap(-a),
    "bnot": lambda a: wrap(~a),
    "lnot": lambda a: int(not a),
}
