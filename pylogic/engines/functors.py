"""Soufflé's intrinsic functors for the embedded engine: clingo calls these Python functions while
grounding (``@sf_cat(X,Y)``; ``to_clingo.functor_name``). Each follows Soufflé 2.5's interpreter
(``src/interpreter/Engine.cpp``): 32-bit two's-complement numbers (``numbers.py``), shifts masked
to 0..31, ``bshl`` on the unsigned pattern, ``^`` through ``std::pow`` cast back to 32 bits,
strings as bytes (``std::string``: ``strlen``, ``substr``, ``contains``, ``match``), ``match``
as ``std::regex_match`` (whole text).

Strings are bytes in Soufflé, so ``substr`` may cut a multi-byte UTF-8 character
(``strlen(substr("é", 0, 1))`` is 1, and the two halves ``cat`` back to ``"é"``). In Python
such a string is held with its undecodable bytes as surrogate escapes (``bytes.decode(...,
"surrogateescape")``: ``as_bytes``/``from_bytes``); clingo holds the bytes themselves (its
C API takes ``char*``; ``string_symbol``/``symbol_text``), and output files get the bytes back,
as Soufflé writes them."""
from __future__ import annotations

import math
import re

from pylogic.engines import floats, numbers
from pylogic.errors import DatalogError, SourceLoc

try:
    import clingo
except ImportError:  # the engine reports itself unavailable
    clingo = None
try:  # clingo's C API through cffi: strings as bytes (the public API is UTF-8 only)
    from clingo._internal import _c_call, _ffi, _lib
    from clingo.symbol import Symbol
except ImportError:
    _c_call = None

_MASK = numbers.MASK
# a functor's refusal, located in the program (``refusal``): "file:line:col: unsupported ..."
_REFUSAL = re.compile(r"(\S+?):(\d+):(\d+): unsupported construct: ([^\n]*)")


def refusal(message: str):
    """The located DatalogError a functor's refusal (``FloatRefusal`` of a float sum, raised
    with its aggregate's location) became in an engine's error ``message``; None if none."""
    m = _REFUSAL.search(message)
    if m is None:
        return None
    return DatalogError(f"unsupported construct: {m.group(4)}",
                        SourceLoc(m.group(1), int(m.group(2)), int(m.group(3))))
_BIAS = 2 ** 31


def as_bytes(text: str) -> bytes:
    """The bytes of a Soufflé string held as Python text."""
    return text.encode("utf-8", "surrogateescape")


def from_bytes(data: bytes) -> str:
    """A Soufflé string (any bytes) as Python text: undecodable bytes as surrogate escapes."""
    return data.decode("utf-8", "surrogateescape")


def string_symbol(text: str):
    """The clingo string symbol holding ``text``'s bytes (``as_bytes``)."""
    if _c_call is None:
        return clingo.String(text)
    return Symbol(_c_call("clingo_symbol_t", _lib.clingo_symbol_create_string, as_bytes(text)))


def symbol_text(sym) -> str:
    """The text of a clingo string symbol, whatever its bytes (``from_bytes``)."""
    if _c_call is None:
        return sym.string
    return from_bytes(_ffi.string(_c_call("char*", _lib.clingo_symbol_string, sym._rep)))


def _text(sym) -> str:
    if sym.type != clingo.SymbolType.String:
        raise RuntimeError(f"expected a symbol, got {sym}")
    return symbol_text(sym)


def _int(sym) -> int:
    if sym.type != clingo.SymbolType.Number:
        raise RuntimeError(f"expected a number, got {sym}")
    return sym.number


def _order_key(sym):   # std::string's order: bytes as unsigned char
    return (0, sym.number) if sym.type == clingo.SymbolType.Number else (1, as_bytes(_text(sym)))


_REGEX: dict[str, re.Pattern | None] = {}

_POSIX = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
          "space": " \\t\\n\\r\\f\\v", "xdigit": "0-9A-Fa-f", "punct": re.escape(
              "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "w": "a-zA-Z0-9_", "d": "0-9",
          "s": " \\t\\n\\r\\f\\v", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f"}
_ESCAPES = set("dDwWsSbBntrfv0") | set("\\.^$*+?()[]{}|/-")


class BadPattern(ValueError):
    """A pattern std::regex (ECMAScript grammar) refuses: ``match`` is then false, as is
    ``!match`` (Soufflé warns "wrong pattern provided")."""


def ecmascript_to_python(pattern: str) -> str:
    """The Python regular expression for an ECMAScript ``pattern`` as std::regex reads it.
    Raises BadPattern where std::regex would throw, RuntimeError for a construct not translated
    (never a guess)."""
    out, i, n, depth = [], 0, len(pattern), 0
    atom = False          # something a quantifier may follow
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise BadPattern("trailing backslash")
            e = pattern[i + 1]
            if e not in _ESCAPES:
                raise RuntimeError(f"match: escape '\\{e}' in {pattern!r} is not supported")
            out.append("\\" + e)
            i += 2
            atom = e not in "bB"
        elif c == "[":
            j = i + 1
            cls = ["["]
            if j < n and pattern[j] == "^":
                cls.append("^")
                j += 1
            first = True
            while j < n and (pattern[j] != "]" or first):
                first = False
                if pattern.startswith("[:", j):
                    k = pattern.find(":]", j + 2)
                    name = pattern[j + 2:k] if k > 0 else None
                    if name not in _POSIX:
                        raise BadPattern(f"character class [:{name}:]")
                    cls.append(_POSIX[name])
                    j = k + 2
                elif pattern[j] == "\\" and j + 1 < n:
                    if pattern[j + 1] not in _ESCAPES:
                        raise RuntimeError(f"match: escape '\\{pattern[j + 1]}' in {pattern!r} "
                                           "is not supported")
                    cls.append(pattern[j:j + 2])
                    j += 2
                elif pattern[j] == "[":
                    cls.append("\\[")
                    j += 1
                else:
                    cls.append(pattern[j])
                    j += 1
            if j >= n:
                raise BadPattern("unterminated [")
            cls.append("]")
            out.append("".join(cls))
            i = j + 1
            atom = True
        elif c == "(":
            if pattern.startswith("(?", i):
                if pattern[i:i + 3] not in ("(?:", "(?=", "(?!"):
                    raise BadPattern("(? group")
                out.append(pattern[i:i + 3])
                i += 3
            else:
                out.append("(")
                i += 1
            depth += 1
            atom = False
        elif c == ")":
            if depth == 0:
                raise BadPattern("unbalanced )")
            depth -= 1
            out.append(")")
            i += 1
            atom = True
        elif c in "*+?":
            if not atom:
                raise BadPattern(f"nothing to repeat at {i}")
            out.append(c)
            i += 1
            if i < n and pattern[i] == "?":
                out.append("?")
                i += 1
            atom = False
        elif c == "{":
            m = re.match(r"\{(\d+)(,(\d*))?\}", pattern[i:])
            if not m or not atom:
                raise BadPattern(f"bad brace at {i}")
            out.append(m.group(0))
            i += len(m.group(0))
            if i < n and pattern[i] == "?":
                out.append("?")
                i += 1
            atom = False
        elif c in "}]":
            out.append("\\" + c)   # a literal in ECMAScript's Annex B (std::regex accepts it)
            i += 1
            atom = True
        elif c in "^$|.":
            out.append(c)
            i += 1
            atom = c == "."
        else:
            out.append(re.escape(c))
            i += 1
            atom = True
    if depth:
        raise BadPattern("unbalanced (")
    return "".join(out)


class Functors:
    """The clingo grounding context: one method per functor (``sf_`` + its name)."""

    # -- strings (Soufflé: std::string, i.e. bytes)
    def sf_cat(self, *args):
        return string_symbol("".join(_text(a) for a in args))

    def sf_strlen(self, s):
        return clingo.Number(len(as_bytes(_text(s))))

    def sf_substr(self, s, idx, length):
        # std::string::substr(size_t, size_t): a negative index is out of range, a negative
        # length takes the rest
        data, i, n = as_bytes(_text(s)), _int(idx) & _MASK, _int(length) & _MASK
        if i > len(data):           # std::out_of_range: Soufflé warns and gives ""
            return string_symbol("")
        return string_symbol(from_bytes(data[i:i + n]))

    def sf_to_string(self, n):
        return clingo.String(str(_int(n)))

    def sf_to_number(self, s):
        text = _text(s)       # std::stoi(text, base 10 / 0x / 0b): leading blanks, a prefix
        m = re.match(r"\s*([+-]?)(0b[01]+|0x[0-9a-fA-F]+|\d+)", text)
        if not m:
            raise RuntimeError(f"wrong string provided by `to_number(\"{text}\")` functor")
        digits = m.group(2)
        value = int(digits, 0) if digits[:2] in ("0b", "0x") else int(digits)
        value = -value if m.group(1) == "-" else value
        if not -(2 ** 31) <= value < 2 ** 31:
            raise RuntimeError(f"wrong string provided by `to_number(\"{text}\")` functor")
        return clingo.Number(value)

    # -- tests: 1 holds, 0 does not, -1 neither (Soufflé: a bad pattern fails match and !match)
    def sf_contains(self, part, text):
        return clingo.Number(1 if as_bytes(_text(part)) in as_bytes(_text(text)) else 0)

    def sf_match(self, pattern, text):
        p = _text(pattern)
        if p not in _REGEX:
            try:
                _REGEX[p] = re.compile(as_bytes(ecmascript_to_python(p)))  # on bytes
            except (BadPattern, re.error):
                _REGEX[p] = None
        rx = _REGEX[p]
        if rx is None:
            return clingo.Number(-1)
        return clingo.Number(1 if rx.fullmatch(as_bytes(_text(text))) else 0)

    # -- numbers
    def sf_min(self, *args):
        return min(args, key=_order_key)

    def sf_max(self, *args):
        return max(args, key=_order_key)

    def sf_scmp(self, a, b):
        """-1, 0 or 1 as symbol ``a`` is before, equal to or after ``b`` in Soufflé's order of
        symbols (its ``<`` on symbols compares the decoded strings, ``std::string``'s order:
        souffle-src src/interpreter/Engine.cpp COMPARE_STRING), for the duckdb engine; clingo
        compares its string symbols the same way natively."""
        ka, kb = _order_key(a), _order_key(b)
        return clingo.Number((ka > kb) - (ka < kb))

    def sf_range(self, a, b, step=None):
        lo, hi = _int(a), _int(b)
        st = (1 if lo <= hi else -1) if step is None else _int(step)
        if st > 0:
            return [clingo.Number(x) for x in range(lo, hi, st)]
        if st < 0:
            return [clingo.Number(x) for x in range(lo, hi, st)]
        return [clingo.Number(lo)] if lo != hi else []

    def sf_power(self, a, b):
        return clingo.Number(numbers.power(_int(a), _int(b)))

    def sf_div(self, a, b):          # [] where undefined: the binding derives nothing
        v = numbers.div(_int(a), _int(b))
        return [] if v is None else clingo.Number(v)

    def sf_mod(self, a, b):
        v = numbers.mod(_int(a), _int(b))
        return [] if v is None else clingo.Number(v)

    def sf_bshl(self, a, b):
        return clingo.Number(numbers.bshl(_int(a), _int(b)))

    def sf_bshr(self, a, b):
        return clingo.Number(numbers.bshr(_int(a), _int(b)))

    def sf_bshru(self, a, b):
        return clingo.Number(numbers.bshru(_int(a), _int(b)))

    def sf_land(self, a, b):
        return clingo.Number(numbers.BINARY["land"](_int(a), _int(b)))

    def sf_lor(self, a, b):
        return clingo.Number(numbers.BINARY["lor"](_int(a), _int(b)))

    def sf_lxor(self, a, b):
        return clingo.Number(numbers.BINARY["lxor"](_int(a), _int(b)))

    def sf_lnot(self, a):
        return clingo.Number(numbers.UNARY["lnot"](_int(a)))

    # -- unsigned (held biased by -2^31: ``unsigned.py``); results modulo 2^32 (RamUnsigned)
    def _u2(self, a, b, fn):
        x, y = _int(a) + _BIAS, _int(b) + _BIAS
        return clingo.Number(((fn(x, y) & _MASK) - _BIAS))

    def sf_uadd(self, a, b):
        return self._u2(a, b, lambda x, y: x + y)

    def sf_usub(self, a, b):
        return self._u2(a, b, lambda x, y: x - y)

    def sf_umul(self, a, b):
        return self._u2(a, b, lambda x, y: x * y)

    def sf_udiv(self, a, b):
        if _int(b) + _BIAS == 0:
            raise RuntimeError("unsigned division by zero")
        return self._u2(a, b, lambda x, y: x // y)

    def sf_umod(self, a, b):
        if _int(b) + _BIAS == 0:
            raise RuntimeError("unsigned modulo by zero")
        return self._u2(a, b, lambda x, y: x % y)

    def sf_upower(self, a, b):    # static_cast<RamUnsigned>(std::pow(x, y)): floats.c_uint32
        x, y = _int(a) + _BIAS, _int(b) + _BIAS
        try:
            v = math.pow(x, y)
        except OverflowError:
            v = math.inf
        return clingo.Number(floats.c_uint32(v) - _BIAS)

    def sf_urange(self, a, b, step=None):
        """``range`` of unsigned values (``runRange``, EvaluatorUtil.h): without a step up by 1
        or down by 1; a step is unsigned, so never negative (0: ``a`` alone if a != b)."""
        lo, hi = _int(a) + _BIAS, _int(b) + _BIAS
        if step is None:
            values = range(lo, hi) if lo <= hi else range(lo, hi, -1)
        else:
            st = _int(step) + _BIAS
            values = range(lo, hi, st) if st else ([lo] if lo != hi else [])
        if len(values) > 10 ** 7:
            raise RuntimeError("a range of more than 10^7 values")
        return [clingo.Number(x - _BIAS) for x in values]

    def sf_uband(self, a, b):
        return self._u2(a, b, lambda x, y: x & y)

    def sf_ubor(self, a, b):
        return self._u2(a, b, lambda x, y: x | y)

    def sf_ubxor(self, a, b):
        return self._u2(a, b, lambda x, y: x ^ y)

    def sf_ubshl(self, a, b):
        return self._u2(a, b, lambda x, y: x << (y & 31))

    def sf_ubshr(self, a, b):
        return self._u2(a, b, lambda x, y: x >> (y & 31))

    def sf_uland(self, a, b):
        return self._u2(a, b, lambda x, y: int(bool(x) and bool(y)))

    def sf_ulor(self, a, b):
        return self._u2(a, b, lambda x, y: int(bool(x) or bool(y)))

    def sf_ulxor(self, a, b):
        return self._u2(a, b, lambda x, y: int(bool(x) != bool(y)))

    def sf_ubnot(self, a):
        return clingo.Number(((~(_int(a) + _BIAS)) & _MASK) - _BIAS)

    def sf_ulnot(self, a):
        return clingo.Number(int(not (_int(a) + _BIAS)) - _BIAS)

    def sf_to_unsigned(self, a):   # static_cast<RamUnsigned>(RamSigned): the bit pattern
        return clingo.Number((_int(a) & _MASK) - _BIAS)

    # -- floats (held as keys: ``floats.py``; the rules rewritten by ``float_rules.py``)
    def _f2(self, a, b, op):
        return clingo.Number(floats.BINARY[op](_int(a), _int(b)))

    def sf_fadd(self, a, b):
        return self._f2(a, b, "+")

    def sf_fsub(self, a, b):
        return self._f2(a, b, "-")

    def sf_fmul(self, a, b):
        return self._f2(a, b, "*")

    def sf_fdiv(self, a, b):
        return self._f2(a, b, "/")

    def sf_fpower(self, a, b):
        return self._f2(a, b, "^")

    def sf_fneg(self, a):
        return clingo.Number(floats.neg(_int(a)))

    def sf_fmin(self, *args):
        return clingo.Number(floats.fmin(*(_int(a) for a in args)))

    def sf_fmax(self, *args):
        return clingo.Number(floats.fmax(*(_int(a) for a in args)))

    def _fcmp(self, a, b, op):
        return clingo.Number(int(floats.COMPARE[op](_int(a), _int(b))))

    def sf_feq(self, a, b):
        return self._fcmp(a, b, "=")

    def sf_fne(self, a, b):
        return self._fcmp(a, b, "!=")

    def sf_flt(self, a, b):
        return self._fcmp(a, b, "<")

    def sf_fle(self, a, b):
        return self._fcmp(a, b, "<=")

    def sf_fgt(self, a, b):
        return self._fcmp(a, b, ">")

    def sf_fge(self, a, b):
        return self._fcmp(a, b, ">=")

    def sf_itof(self, a):
        return clingo.Number(floats.from_int(_int(a)))

    def sf_utof(self, a):
        return clingo.Number(floats.from_int(_int(a) + _BIAS))

    def sf_stof(self, s):         # symbol2numeric<RamFloat>: std::stof
        text = _text(s)
        try:
            return clingo.Number(floats.parse(text))
        except (ValueError, ZeroDivisionError):
            raise RuntimeError(f"wrong string provided by `to_float(\"{text}\")` functor") \
                from None

    def sf_ftoi(self, a):
        return clingo.Number(floats.to_int(_int(a)))

    def sf_ftou(self, a):
        return clingo.Number(floats.to_unsigned(_int(a)) - _BIAS)

    def sf_utoi(self, a):         # static_cast<RamSigned>(RamUnsigned): the bit pattern
        return clingo.Number(numbers.wrap(_int(a) + _BIAS))

    def sf_ftos(self, a):
        return clingo.String(floats.to_string(_int(a)))

    def sf_utos(self, a):
        return clingo.String(str(_int(a) + _BIAS))

    def sf_frange(self, a, b, step=None):
        """``range`` of floats (``runRange`` in EvaluatorUtil.h): x += step in float."""
        lo, hi = _int(a), _int(b)
        if step is None:
            step = floats.key(1.0 if floats.COMPARE["<="](lo, hi) else -1.0)
        else:
            step = _int(step)
        lt, out = floats.COMPARE["<"], []
        zero = floats.key(0.0)
        if not (lt(zero, step) or lt(step, zero)):
            return [clingo.Number(lo)] if floats.COMPARE["!="](lo, hi) else []
        x = lo
        while lt(x, hi) if lt(zero, step) else lt(hi, x):
            out.append(clingo.Number(x))
            nxt = floats.BINARY["+"](x, step)
            if nxt == x:    # the step is absorbed: Soufflé would never finish; clingo may
                return []   # ground this before a comparison of the body excludes it
            if len(out) > 10 ** 7:
                raise RuntimeError("a float range of more than 10^7 values")
            x = nxt
        return out

    def sf_fextreme(self, where, raw, other, clamp):
        """A float ``min``/``max`` aggregate: the extremum's key ``raw`` unless 0.0 and -0.0
        both reach it (``other`` differs: refused, located), clamped as Soufflé's starts from
        +-FLT_MAX (``clamp``: FLT_MAX's key for min, -FLT_MAX's for max)."""
        r, o, c = _int(raw), _int(other), _int(clamp)
        if r != o:
            raise RuntimeError(f"{_text(where)}: unsupported construct: a float min or max "
                               "that both 0.0 and -0.0 reach (Soufflé keeps the first its own "
                               "evaluation order meets)")
        return clingo.Number(min(r, c) if c > 0 else max(r, c))

    # sum and mean of floats: the clingo engine aggregates these four per group (to_clingo.py)
    def sf_fscale(self, a):
        return clingo.Number(floats.scale_exponent(_int(a)))

    def sf_fscaled(self, a, e):
        return clingo.Number(floats.scaled(_int(a), _int(e)))

    def sf_fscaledabs(self, a, e):
        return clingo.Number(abs(floats.scaled(_int(a), _int(e))))

    def sf_fsum_total(self, total, largest, count, e, where):
        return self._ftotal(floats.sum_key, total, largest, count, e, where)

    def sf_fmean_total(self, total, largest, count, e, where):
        return self._ftotal(floats.mean_key, total, largest, count, e, where)

    def _ftotal(self, fn, total, largest, count, e, where):
        n = _int(count)
        if n == 0:
            v = fn(0, 0, 0, 0)
        else:
            try:
                v = fn(_int(total), _int(largest), n, _int(e))
            except floats.FloatRefusal as exc:
                raise RuntimeError(f"{_text(where)}: unsupported construct: {exc}") from None
        return [] if v is None else clingo.Number(v)

    # the duckdb engine's: one list of the group's target keys
    def sf_fsum(self, where, *keys):
        return self._flist(floats.sum_key, where, keys)

    def sf_fmean(self, where, *keys):
        return self._flist(floats.mean_key, where, keys)

    def _flist(self, fn, where, keys):
        try:
            v = fn(*floats.summary(_int(k) for k in keys))
        except floats.FloatRefusal as exc:
            raise RuntimeError(f"{_text(where)}: unsupported construct: {exc}") from None
        return [] if v is None else clingo.Number(v)
