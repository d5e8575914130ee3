"""Soufflé 2.5's ``float`` in Python. Its default build has 32-bit values (``RAM_DOMAIN_SIZE``
32, ``include/souffle/RamTypes.h``), so ``RamFloat`` is IEEE single precision: every operator of
its interpreter (``src/interpreter/Engine.cpp``) computes in ``float`` and rounds to nearest.
A double computed from two singles and rounded to single is the single result for ``+ - * /``
(53 >= 2 * 24 + 2 bits), so Python's double arithmetic rounded by ``round32`` is exact here.

The engines hold a float as an integer, its **key**: the IEEE bit pattern b if the sign bit is
clear, else -(b & 0x7fffffff) - 1. Keys are 32-bit, distinct for distinct bit patterns (so a
join is Soufflé's bit equality: ``0.0`` and ``-0.0`` are two values, as in Soufflé's relations)
and ordered as the floats are (``-0.0`` just below ``0.0``), so ``min``/``max`` aggregates are
the engines' own integer ones. Comparisons are the functors ``flt``.. (``-0.0 = 0.0`` holds,
``float_equality`` in Soufflé's suite). Printing is Soufflé's: ``std::setprecision(9)``
(``max_digits10``, ``WriteStreamCSV.h``), i.e. ``%.9g``; ``to_string`` is ``std::to_string``
(``%f``). A NaN is x86's: 0/0 gives the negative default NaN, printed ``-nan``.

``sum`` and ``mean`` add in Soufflé's own iteration order (``FSUM``, ``MEAN`` in
``Engine.cpp``), and float addition is not associative: they are computed only where every
order gives the same float (``sum_total``), else refused with the aggregate's location."""
from __future__ import annotations

import math
import struct
from fractions import Fraction

FLT_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
_DEFAULT_NAN_BITS = 0xFFC00000        # x86's default NaN (0/0, inf - inf)


class FloatRefusal(RuntimeError):
    """A float aggregate whose value would depend on Soufflé's evaluation order."""


# -- representation
def key_of_bits(b: int) -> int:
    return b if b < 0x80000000 else -(b & 0x7FFFFFFF) - 1


def bits_of_key(k: int) -> int:
    return k if k >= 0 else (-k - 1) | 0x80000000


def round32(x: float) -> float:
    """``x`` rounded to the nearest single (C's ``(float)x``), infinite beyond its range."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def key(x: float) -> int:
    """The key of the single nearest to ``x``."""
    if math.isnan(x):
        b = struct.unpack("<I", struct.pack("<f", x))[0]
    else:
        b = struct.unpack("<I", struct.pack("<f", round32(x)))[0]
    return key_of_bits(b)


def value(k: int) -> float:
    """The float whose key is ``k``."""
    return struct.unpack("<f", struct.pack("<I", bits_of_key(k)))[0]


_NAN = key_of_bits(_DEFAULT_NAN_BITS)


def round_fraction(q: Fraction) -> float:
    """The single nearest to the rational ``q`` (ties to even), as ``strtof`` rounds."""
    if q == 0:
        return 0.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if (Fraction(2) ** e) > a:
        e -= 1                               # 2^e <= a < 2^(e+1)
    e = max(e, -126)                         # subnormals: a fixed exponent
    m = round(a / Fraction(2) ** (e - 23))   # 24 bits, ties to even
    v = math.ldexp(m, e - 23)
    if v > FLT_MAX:
        v = math.inf
    return -v if q < 0 else v


def parse(text: str) -> int:
    """The key of a float written in a program or a facts file (``std::stof``: correctly
    rounded); raises ValueError for text that is no float."""
    s = text.strip()
    low = s.lower().lstrip("+-")
    if low in ("inf", "infinity", "nan"):
        return key(float(s))
    x = round_fraction(Fraction(s))
    return key(-0.0 if x == 0 and s.startswith("-") else x)     # "-0" is -0.0


def text(k: int) -> str:
    """The float of key ``k`` as Soufflé prints it (``%.9g``; ``-nan`` for a negative NaN)."""
    x = value(k)
    if math.isnan(x):
        return "-nan" if bits_of_key(k) & 0x80000000 else "nan"
    return "%.9g" % x


def to_string(k: int) -> str:
    """``to_string`` of a float: ``std::to_string``, i.e. ``%f``."""
    x = value(k)
    if math.isnan(x):
        return "-nan" if bits_of_key(k) & 0x80000000 else "nan"
    return "%f" % x


# -- arithmetic (FADD.. in Engine.cpp)
def _quotient(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _pow(a: float, b: float) -> float:     # std::pow(float, float)
    try:
        return math.pow(a, b)
    except ValueError:                       # a negative base, a fractional exponent
        return math.nan
    except OverflowError:
        odd = b == int(b) and int(b) % 2 == 1
        return -math.inf if a < 0 and odd else math.inf


def _result(x: float) -> int:
    return _NAN if math.isnan(x) else key(x)


BINARY = {
    "+": lambda a, b: _result(value(a) + value(b)),
    "-": lambda a, b: _result(value(a) - value(b)),
    "*": lambda a, b: _result(value(a) * value(b)),
    "/": lambda a, b: _result(_quotient(value(a), value(b))),
    "^": lambda a, b: _result(_pow(value(a), value(b))),
}

COMPARE = {
    "=": lambda a, b: value(a) == value(b),
    "!=": lambda a, b: value(a) != value(b),
    "<": lambda a, b: value(a) < value(b),
    "<=": lambda a, b: value(a) <= value(b),
    ">": lambda a, b: value(a) > value(b),
    ">=": lambda a, b: value(a) >= value(b),
}


def neg(a: int) -> int:
    return key_of_bits(bits_of_key(a) ^ 0x80000000)


def fmin(*args: int) -> int:
    """``min`` of floats: ``std::min`` folded left, ``(b < a) ? b : a``."""
    out = args[0]
    for b in args[1:]:
        if value(b) < value(out):
            out = b
    return out


def fmax(*args: int) -> int:
    """``max``: ``std::max`` folded left, ``(a < b) ? b : a``."""
    out = args[0]
    for b in args[1:]:
        if value(out) < value(b):
            out = b
    return out


# -- conversions (static_cast in C++, x86-64 code)
def from_int(n: int) -> int:
    """``to_float`` of a number or an unsigned value (its plain value)."""
    return key(float(n))


def to_int(k: int) -> int:
    """``to_number`` of a float: truncation; out of range (and NaN) x86's -2^31."""
    x = value(k)
    if math.isnan(x) or not -2 ** 31 <= math.trunc(x) < 2 ** 31:
        return -2 ** 31
    return math.trunc(x)


def c_uint32(x: float) -> int:
    """``static_cast<uint32_t>`` of a float or double as gcc compiles it on x86-64: through a
    64-bit signed integer (``cvttsd2si``), keeping the low 32 bits; out of that range (and NaN)
    0. Measured: ``to_unsigned(-3.3)`` is 4294967293, unsigned ``2^32 - 5`` is 4294967291
    (Soufflé's suite, indexed_inequalities)."""
    if math.isnan(x) or math.isinf(x) or not -2 ** 63 <= math.trunc(x) < 2 ** 63:
        return 0
    return math.trunc(x) & 0xFFFFFFFF


def to_unsigned(k: int) -> int:
    """``to_unsigned`` of a float (``c_uint32``)."""
    return c_uint32(value(k))


# -- sum and mean
_ZERO_EXP = 1 << 20    # the scale exponent of 0: above every other
_NONFINITE_EXP = -(1 << 20)   # of an infinity or a NaN: below every other (the sum is refused)


def scale_exponent(k: int) -> int:
    """The exponent of the lowest set bit of float ``k`` (its value is an odd multiple of
    2^e); ``_ZERO_EXP`` for a zero, ``_NONFINITE_EXP`` for an infinity or a NaN."""
    x = value(k)
    if not math.isfinite(x):
        return _NONFINITE_EXP
    if x == 0:
        return _ZERO_EXP
    m, e = math.frexp(x)               # x = m * 2^e, 0.5 <= |m| < 1, 24 significant bits
    n = int(m * 2 ** 24)
    e -= 24
    while n % 2 == 0:
        n //= 2
        e += 1
    return e


def scaled(k: int, e: int) -> int:
    """Float ``k`` / 2^e, an integer when ``e`` <= its ``scale_exponent``; clamped to
    +-2^24 (the sum is then refused, ``sum_total``)."""
    x = value(k)
    if x == 0 or e == _NONFINITE_EXP or not math.isfinite(x):
        return 0
    n = math.ldexp(x, -e)
    return int(max(-2 ** 24, min(2 ** 24, n)))


def sum_total(total: int, largest: int, count: int, e: int) -> Fraction:
    """The exact sum of ``count`` floats that are integers times 2^e, of scaled sum ``total``
    and largest scaled magnitude ``largest``. Every partial sum then has magnitude below
    count * largest * 2^e, so if that is below 2^(24+e) each one is a single and every
    addition order gives the exact sum (Soufflé's ``FSUM`` and ``MEAN``); else refused."""
    if e == _NONFINITE_EXP:
        raise FloatRefusal("a float sum or mean over an infinite or NaN value")
    if count == 0:
        return Fraction(0)
    if largest * count >= 2 ** 24:
        raise FloatRefusal("a float sum or mean whose value depends on the order of the "
                           "additions (Soufflé adds in its own evaluation order)")
    if total == 0:
        return Fraction(0)
    return Fraction(total) * Fraction(2) ** e


def sum_key(total: int, largest: int, count: int, e: int) -> int:
    """``sum`` of floats (0.0 for no value, as Soufflé)."""
    return key(round_fraction(sum_total(total, largest, count, e)))


def mean_key(total: int, largest: int, count: int, e: int) -> int | None:
    """``mean`` of floats: the exact sum over the count, rounded once as Soufflé's float
    division does; None for no value (Soufflé derives nothing)."""
    if count == 0:
        return None
    return key(round_fraction(sum_total(total, largest, count, e) / count))


def summary(keys) -> tuple[int, int, int, int]:
    """(total, largest, count, e) of a list of float keys, as ``sum_total`` takes them (the
    clingo engine computes the same four with aggregates)."""
    keys = list(keys)
    if not keys:
        return 0, 0, 0, _ZERO_EXP
    e = min(scale_exponent(k) for k in keys)
    parts = [scaled(k, e) for k in keys]
    return sum(parts), max(abs(p) for p in parts), len(parts), e
