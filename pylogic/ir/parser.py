"""Parser for PIR text (docs/pir.md; its core, docs/pir.md, normative) into ``pylogic.ir.model``.

Hand-written and line oriented: each line is tokenized on its own, then parsed as a top-level
item (``global``, ``func``, ``extern func``), a label line, an instruction or a closing ``}``.
Errors never stop the parse: an error in a function marks that function bad and parsing goes on,
and a missing ``}`` is detected at the next ``func``/``extern func``/``global`` line, so
:class:`~pylogic.errors.ParseErrors` lists every problem and carries a ``partial`` module with
each function and global that parsed cleanly.

Extensions to docs/pir.md (nothing written there changes meaning):
- an instruction may follow ``LABEL:`` (and ``!hyperblock``) on the same line;
- string escapes ``\\n \\t \\r \\\\ \\" \\0 \\xHH`` and ``global NAME[SIZE] = "text"``;
- byte lists may use hex (``0xff``);
- the IA-64 define form with one destination, ``pcmp.eq.unc P1 = A, B`` (P1 gets the first type);
- ``#key`` without ``=value`` is the annotation ``(key, "")``; function annotations go after ``{``;
- LLVM-style numbered names ``%0``, ``@1`` (a digit right after ``%``/``@``);
- integer literals may be written with ``+``; hex up to ``0xFFFFFFFFFFFFFFFF`` wraps to signed.
"""
from __future__ import annotations

import difflib
import re

from pylogic.errors import ParseError, ParseErrors, PathlogicError, SourceLoc
from pylogic.ir.deposit_types import DEPOSIT_ALIASES, IA64_COMPLETERS
from pylogic.ir.model import (
    BINARY_OPS, RELATIONS, UNARY_OPS, Alloca, BinOp, Block, Call, Cmp, CondBr, Function,
    Global, GlobalAddr, Imm, Input, Load, Module, Mov, PredDefine, PredDest, Print, Reg, Ret,
    Select, Store, Br, UnOp, param_type_range, to_signed64,
)

__all__ = ["parse_module", "parse_file", "parse_int", "decode_string", "encode_string",
           "is_string_like", "OPCODE_SPELLINGS"]

# ---------------------------------------------------------------- tokens (docs/pir.md "Lexical")

# A line's tokens are plain strings; the kind follows from the first character (see _is_id,
# _is_num). Columns are computed only when an error is reported (_column), which keeps the
# common path fast. Everything that matches no token rule is a one-character "bad" token.
_TOKEN_RE = re.compile(r"""
    [%@][A-Za-z0-9_.$]+ | [A-Za-z_.$][A-Za-z0-9_.$]*   # identifier (opcodes like cmp.eq too)
  | [+-]?[0-9][A-Za-z0-9_.$]*                          # integer, validated by parse_int
  | [(){}\[\],:=]                                      # punctuation
  | \#[^\s;]*                                          # #key=value annotation
  | ![^\s;]*                                           # !hyperblock
  | "(?:[^"\\\n]|\\.)*"?\\?                            # string literal (maybe unterminated)
  | [\u2228\u2227][A-Za-z0-9_]*                        # Unicode deposit alias: ∨t ∧f
  | ;.*                                                # comment
  | \S                                                 # anything else: a bad character
""", re.VERBOSE)
_STRING_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"\Z')
#: Lines made only of these characters have no string, annotation, attribute or odd character.
_PLAIN_LINE_RE = re.compile(r"[A-Za-z0-9_.$%@(){}\[\],:= \t\r+-]*(?:;.*)?\Z")

_ID_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.$%@")
_NUM_START = frozenset("0123456789+-")
_PUNCT = frozenset("(){}[],:=")


class _LineError(ValueError):
    """An error on the line being parsed, at token index ``at`` (None: end of line) plus
    ``offset`` characters; the parser turns it into a ParseError with file:line:col."""

    def __init__(self, message: str, at=None, offset: int = 0):
        super().__init__(message)
        self.message = message
        self.at = at
        self.offset = offset


def _tokenize(line: str) -> list[str]:
    toks = _TOKEN_RE.findall(line)
    if toks and toks[-1][0] == ";":
        toks.pop()
    return toks


def _column(line: str, at, offset: int) -> int:
    """1-based column of token ``at`` of ``line`` (None or past the end: after the last)."""
    spans = [m.span() for m in _TOKEN_RE.finditer(line) if not m.group().startswith(";")]
    if at is not None and at < len(spans):
        return spans[at][0] + 1 + offset
    return spans[-1][1] + 1 if spans else 1


def _is_id(tok: str) -> bool:
    return tok[0] in _ID_START and (len(tok) > 1 or tok not in "%@")


def _is_num(tok: str) -> bool:
    return tok[0] in _NUM_START and (len(tok) > 1 or tok not in "+-")


def _bad_token_error(toks: list, at: int):
    """The error for token ``at`` if it is malformed (bad character, lone %, open string)."""
    tok = toks[at]
    c = tok[0]
    if c == '"':
        if not _STRING_RE.match(tok):
            return _LineError("unterminated string literal (missing '\"')", at)
        return None
    if len(tok) != 1 or c in _PUNCT or c in "#!" or (c in _ID_START and c not in "%@") \
            or c.isdigit():
        return None
    if c in "%@":
        return _LineError(f"'{c}' must be followed by a name", at)
    if c in "+-":
        return _LineError(f"'{c}' must be followed by a digit", at)
    return _LineError(f"unexpected character {c!r}", at)


def _check_tokens(toks: list) -> None:
    for at in range(len(toks)):
        err = _bad_token_error(toks, at)
        if err is not None:
            raise err


_INT_RE = re.compile(r"([+-]?)(?:0[xX]([0-9a-fA-F]+)|([0-9]+))\Z")
_INT_MIN = -(1 << 63)
_INT_MAX = (1 << 64) - 1  # hex such as 0xFFFFFFFFFFFFFFFF is accepted and wraps to -1

#: Names declared by `global NAME ...` lines; found before parsing so that a global declared
#: after its first use still resolves to GlobalAddr (docs/pir.md: a global's name is its address).
_GLOBAL_NAME_RE = re.compile(r"^[ \t]*(?:const[ \t]+)?global[ \t]+"
                             r"([%@][A-Za-z0-9_.$]+|[A-Za-z_.$][A-Za-z0-9_.$]*)", re.M)

_LOAD_SUFFIX_RE = re.compile(r"([0-9]+)(u?)\Z")
_STORE_SUFFIX_RE = re.compile(r"[0-9]+\Z")

#: Opcode spellings listed in "unknown opcode" messages (docs/pir.md "Instructions").
OPCODE_SPELLINGS = (BINARY_OPS + UNARY_OPS +
                    ("mov", "cmp.REL", "select", "pcmp.REL", "load[.N][u]", "store[.N]",
                     "alloca", "call", "input", "print", "br", "cbr", "ret", "ret.N"))
_VALUE_OPS = frozenset(BINARY_OPS + UNARY_OPS + ("mov", "cmp", "select", "load", "alloca",
                                                 "input"))
_STATEMENT_OPS = frozenset(("store", "print", "br", "cbr", "ret"))
_KNOWN_BASES = _VALUE_OPS | _STATEMENT_OPS | {"call", "pcmp"}
_TOPLEVEL_KEYWORDS = frozenset(("func", "global", "extern", "const"))



def _literal_value(text: str, at=None) -> int:
    """Mathematical value of an integer literal (not wrapped)."""
    m = _INT_RE.match(text)
    if m is None:
        raise _LineError(f"bad integer literal '{text}' (expected decimal such as -8 or hex "
                         f"such as 0x1F)", at)
    sign, hex_digits, dec_digits = m.groups()
    digits = hex_digits if hex_digits is not None else dec_digits
    if len(digits.lstrip("0")) > 40:    # 2**64 has 20 decimal / 16 hex digits; Python's int()
        raise _LineError(f"integer literal '{text[:24]}...' ({len(digits)} digits) does not "
                         f"fit in 64 bits", at)  # refuses > 4300 digits with ValueError
    value = int(hex_digits, 16) if hex_digits is not None else int(dec_digits)
    return -value if sign == "-" else value


def parse_int(text: str, at=None) -> int:
    """Value of a PIR integer literal, wrapped to signed 64-bit (docs/pir.md "Lexical").

    Decimal with optional sign (``-8``) or hex (``0x1F``, ``-0x1F``). Raises ValueError for a
    malformed or wider-than-64-bit literal (``at``: token index, used by the parser).
    """
    value = _literal_value(text, at)
    if not _INT_MIN <= value <= _INT_MAX:
        raise _LineError(f"integer literal '{text}' does not fit in 64 bits", at)
    return to_signed64(value)


_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def decode_string(token: str, at=None) -> bytes:
    """Bytes of a string literal token (quotes included), without the terminating NUL.

    Characters are UTF-8 encoded; escapes ``\\n \\t \\r \\\\ \\" \\0 \\xHH`` (exactly two hex
    digits) are an extension of docs/pir.md.
    """
    body = token[1:-1]
    if "\\" not in body:
        return body.encode("utf-8")
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        esc = body[i + 1] if i + 1 < n else ""
        if esc in _SIMPLE_ESCAPES and esc:
            out.append(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc == "x":
            digits = body[i + 2:i + 4]
            if len(digits) != 2 or not set(digits) <= _HEX_DIGITS:
                raise _LineError("bad escape '\\x' (expected two hex digits, e.g. '\\x1f')",
                                 at, 1 + i)
            out.append(int(digits, 16))
            i += 4
        else:
            raise _LineError(f"unknown escape '\\{esc}' in string (known: \\n \\t \\r \\\\ "
                             f"\\\" \\0 \\xHH)", at, 1 + i)
    return bytes(out)


_PRINTABLE = frozenset(range(0x20, 0x7F))
_ESCAPE_OUT = {10: "\\n", 9: "\\t", 13: "\\r", 0: "\\0", 92: "\\\\", 34: '\\"'}


def is_string_like(data: bytes) -> bool:
    """True when ``data`` reads well as a string literal (printable ASCII, \\n \\t \\r \\0)."""
    return all(b in _PRINTABLE or b in _ESCAPE_OUT for b in data)


def encode_string(data: bytes) -> str:
    """A string literal (quotes included) that :func:`decode_string` maps back to ``data``."""
    parts = ['"']
    for b in data:
        if b in _ESCAPE_OUT:
            parts.append(_ESCAPE_OUT[b])
        elif b in _PRINTABLE:
            parts.append(chr(b))
        else:
            parts.append(f"\\x{b:02x}")
    parts.append('"')
    return "".join(parts)


# ---------------------------------------------------------------- one line's tokens

def _describe(toks: list, at: int) -> str:
    return f"'{toks[at]}'" if at < len(toks) else "end of line"


class _Cursor:
    """Reads the tokens of one line left to right; every failure is a located _LineError."""

    __slots__ = ("toks", "i", "n")

    def __init__(self, toks: list, start: int = 0):
        self.toks = toks
        self.i = start
        self.n = len(toks)

    def peek(self, k: int = 0):
        j = self.i + k
        return self.toks[j] if j < self.n else None

    def next(self, what: str) -> str:
        i = self.i
        if i >= self.n:
            raise _LineError(f"expected {what}, found end of line", None)
        self.i = i + 1
        return self.toks[i]

    def found(self) -> str:
        return _describe(self.toks, self.i)

    def expect(self, ch: str, context: str) -> None:
        i = self.i
        if i >= self.n or self.toks[i] != ch:
            raise _LineError(f"expected '{ch}' {context}, found {self.found()}", i)
        self.i = i + 1

    def ident(self, what: str) -> str:
        i = self.i
        if i >= self.n or not _is_id(self.toks[i]):
            raise _LineError(f"expected {what}, found {self.found()}", i)
        self.i = i + 1
        return self.toks[i]

    def end(self, context: str) -> None:
        if self.i < self.n:
            raise _LineError(f"unexpected {self.found()} {context}", self.i)


def _split_annotations(toks: list) -> tuple[list, tuple]:
    """Strip trailing ``#key=value`` tokens (docs/pir.md "Profiles and annotations")."""
    first = None
    for at, tok in enumerate(toks):
        if tok[0] == "#":
            first = at
            break
    if first is None:
        return toks, ()
    annotations = []
    for at in range(first, len(toks)):
        tok = toks[at]
        if tok[0] != "#":
            raise _LineError(f"unexpected '{tok}' after an annotation (annotations "
                             f"'#key=value' must come at the end of the line)", at)
        key, _, value = tok[1:].partition("=")
        if not key:
            raise _LineError(f"annotation '{tok}' has no key (write '#key=value')", at)
        annotations.append((key, value))
    return toks[:first], tuple(annotations)


def _is_toplevel_start(toks: list) -> bool:
    """``func NAME...``, ``extern func ...`` or ``global NAME...`` (not a register named func)."""
    first = toks[0]
    if first not in _TOPLEVEL_KEYWORDS:
        return False
    if len(toks) == 1:
        return True
    second = toks[1]
    if first == "extern":
        return second == "func"
    if first == "const":        # const global (docs/pir.md "Extensions")
        return second == "global"
    return second != "=" and second != ":"


def _is_define_at(toks: list, i: int) -> bool:
    """Whether tokens from ``i`` start ``D:T , ...`` or ``D:T = pcmp...`` (not ``LABEL: ...``)."""
    n = len(toks)
    if i + 3 >= n or toks[i + 1] != ":":
        return False
    sep = toks[i + 3]
    if sep == ",":
        return True
    return sep == "=" and i + 4 < n and toks[i + 4].startswith("pcmp")


# ---------------------------------------------------------------- module parser

class _FunctionBuilder:
    __slots__ = ("name", "params", "param_types", "annotations", "loc", "blocks", "ok")

    def __init__(self, name, params, annotations, loc, ok, param_types=()):
        self.name = name
        self.params = params
        self.param_types = param_types
        self.annotations = annotations
        self.loc = loc
        self.blocks = []  # [label, instrs, hyperblock, annotations, loc]
        self.ok = ok

    def build(self) -> Function:
        blocks = tuple(Block(label=label, instrs=tuple(instrs), hyperblock=hyper,
                             annotations=annots, loc=loc)
                       for label, instrs, hyper, annots, loc in self.blocks)
        return Function(name=self.name, params=self.params, blocks=blocks,
                        annotations=self.annotations, loc=self.loc, param_types=self.param_types)


class _ModuleParser:
    def __init__(self, text: str, path: str):
        self.text = text
        self.path = path
        self.errors: list[ParseError] = []
        self.functions: list[Function] = []
        self.globals: list[Global] = []
        self.global_names = frozenset(_GLOBAL_NAME_RE.findall(text))
        self.lineno = 0
        self.line = ""
        self.line_cols = None  # token start columns of the current line, computed on demand

    # -- driver

    def parse(self) -> Module:
        fn: _FunctionBuilder | None = None
        skipping = False  # after a stray top-level line, until the next top-level item
        plain = _PLAIN_LINE_RE.match
        for lineno, line in enumerate(self.text.split("\n"), 1):
            stripped = line.lstrip()
            if not stripped or stripped[0] == ";":
                continue
            self.lineno = lineno
            self.line = line
            toks = _tokenize(line)
            if not toks:
                continue
            try:
                if fn is not None:
                    if _is_toplevel_start(toks):
                        self._unterminated(fn)
                        fn = None
                    elif toks[0] == "}":
                        closing, fn = fn, None
                        if len(toks) > 1:
                            closing.ok = False
                            self._finish(closing)
                            raise _LineError(f"unexpected '{toks[1]}' after '}}' closing "
                                             f"function '{closing.name}'", 1)
                        self._finish(closing)
                        continue
                    else:
                        try:
                            self._body_line(fn, toks, plain(line) is not None)
                        except _LineError:
                            fn.ok = False
                            raise
                        continue
                if skipping and not _is_toplevel_start(toks):
                    continue
                skipping = False
                fn, skipping = self._toplevel_line(toks)
            except _LineError as e:
                self._error(e)
        if fn is not None:
            self._unterminated(fn)
        module = Module(functions=tuple(self.functions), globals=tuple(self.globals),
                        path=self.path)
        if self.errors:
            self.errors.sort(key=lambda e: (e.loc.line, e.loc.col))  # stable: file order
            raise ParseErrors(self.errors, module)
        return module

    def _error(self, e: _LineError) -> None:
        col = _column(self.line, e.at, e.offset)
        self.errors.append(ParseError(e.message, SourceLoc(self.path, self.lineno, col)))

    def _loc(self, at: int) -> SourceLoc:
        return SourceLoc(self.path, self.lineno, _column(self.line, at, 0))

    def _finish(self, fn: _FunctionBuilder) -> None:
        if fn.ok:
            self.functions.append(fn.build())

    def _unterminated(self, fn: _FunctionBuilder) -> None:
        self.errors.append(ParseError(f"unterminated function '{fn.name}' (missing '}}')",
                                      fn.loc))

    # -- top level (docs/pir.md "Module")

    def _toplevel_line(self, toks):
        """Returns (function builder now open or None, skipping)."""
        first = toks[0]
        if _is_toplevel_start(toks):
            if first in ("global", "const"):
                self._global(toks)
                return None, False
            return self._func_header(toks, extern=first == "extern"), False
        if first == "}":
            raise _LineError("unmatched '}' at top level", 0)
        err = _bad_token_error(toks, 0)
        if err is None:
            err = _LineError(f"expected 'func', 'extern func' or 'global' at top level, found "
                             f"'{first}'", 0)
        self._error(err)
        return None, True

    def _func_header(self, toks, extern: bool):
        """``func NAME(P, ...) {`` or ``extern func NAME(P, ...)``. A broken header still opens
        the body (so its lines are not misread as top level); the function is then dropped."""
        loc = self._loc(0)
        name = "?"
        cur = _Cursor(toks)
        try:
            _check_tokens(toks)
            toks, annotations = _split_annotations(toks)
            cur = _Cursor(toks, 2 if extern else 1)
            name = cur.ident("a function name after 'func'")
            cur.expect("(", f"after function name '{name}'")
            params, param_types = self._params(cur)
            if extern:
                if cur.peek() == "{":
                    raise _LineError(f"extern function '{name}' cannot have a body (remove "
                                     f"'extern' or the body)", cur.i)
                cur.end(f"after extern function '{name}'")
                self.functions.append(Function(name=name, params=params, extern=True,
                                               annotations=annotations, loc=loc,
                                               param_types=param_types))
                return None
            cur.expect("{", f"at the end of the header of function '{name}'")
            fn = _FunctionBuilder(name, params, annotations, loc, True, param_types)
            if cur.peek() == "}":  # `func f() { }`: empty body on one line
                cur.i += 1
                cur.end(f"after '}}' closing function '{name}'")
                self._finish(fn)
                return None
            cur.end(f"after '{{' opening function '{name}'")
            return fn
        except _LineError as e:
            self._error(e)
            if extern and "{" not in toks:
                return None
            if "}" in toks[cur.i:]:
                return None
            return _FunctionBuilder(name, (), (), loc, False)

    def _params(self, cur: _Cursor) -> tuple[tuple, tuple]:
        """``(names, types)``: ``P`` or ``P:sN``/``P:uN`` (typed parameters, docs/pir.md
        "Extensions"); types is () when no parameter has one."""
        if cur.peek() == ")":
            cur.i += 1
            return (), ()
        params, types = [], []
        while True:
            params.append(cur.ident("a parameter name"))
            types.append("")
            if cur.peek() == ":":
                cur.i += 1
                t = cur.peek()
                if t is None or param_type_range(t) is None:
                    raise _LineError(f"parameter '{params[-1]}' needs a type sN or uN "
                                     f"(1 <= N <= 63) after ':'", cur.i)
                types[-1] = t
                cur.i += 1
            if cur.peek() == ",":
                cur.i += 1
                continue
            cur.expect(")", "after the last parameter")
            return tuple(params), (tuple(types) if any(types) else ())

    def _global(self, toks) -> None:
        """``global NAME[SIZE]``, ``global NAME[SIZE] = {b, ...}``, ``global NAME = "text"``,
        each also as ``const global ...`` (docs/pir.md "Extensions")."""
        _check_tokens(toks)
        loc = self._loc(0)
        const = toks[0] == "const"
        cur = _Cursor(toks, 2 if const else 1)
        name = cur.ident("a global name after 'global'")
        size = None
        if cur.peek() == "[":
            cur.i += 1
            at = cur.i
            tok = cur.next(f"the size of global '{name}'")
            if not _is_num(tok):
                raise _LineError(f"expected the size of global '{name}' (an integer), found "
                                 f"'{tok}'", at)
            size = _literal_value(tok, at)
            if size < 0:
                raise _LineError(f"global '{name}' has negative size {size}", at)
            cur.expect("]", f"after the size of global '{name}'")
        init = b""
        if cur.peek() == "=":
            cur.i += 1
            at = cur.i
            tok = cur.next(f"an initialiser for global '{name}' ('{{b0, b1, ...}}' or "
                           f"'\"text\"')")
            if tok[0] == '"':
                init = decode_string(tok, at) + b"\0"  # docs/pir.md: NUL-terminated
                if size is None:
                    size = len(init)
            elif tok == "{":
                if size is None:
                    raise _LineError(f"global '{name}' with a byte list needs a size: "
                                     f"'global {name}[SIZE] = {{...}}'", at)
                init = self._byte_list(cur, name)
            else:
                raise _LineError(f"expected '{{' or a string after '=' in global '{name}', "
                                 f"found '{tok}'", at)
            if len(init) > size:
                raise _LineError(f"global '{name}' has {len(init)} initial bytes but size "
                                 f"{size}", at)
        elif size is None:
            raise _LineError(f"global '{name}' needs a size ('global {name}[16]') or a string "
                             f"initialiser ('global {name} = \"text\"')", cur.i)
        tok = cur.peek()
        if tok is not None and tok[0] == "#":
            raise _LineError("annotations are not supported on globals", cur.i)
        cur.end(f"after global '{name}'")
        self.globals.append(Global(name=name, size=size, init=init, loc=loc, const=const))

    def _byte_list(self, cur: _Cursor, name: str) -> bytes:
        out = bytearray()
        if cur.peek() == "}":
            cur.i += 1
            return bytes(out)
        while True:
            at = cur.i
            tok = cur.next(f"a byte value in the initialiser of global '{name}'")
            if not _is_num(tok):
                raise _LineError(f"expected a byte value (0..255) in global '{name}', found "
                                 f"'{tok}'", at)
            value = _literal_value(tok, at)
            if not 0 <= value <= 255:
                raise _LineError(f"byte value {tok} in global '{name}' is out of range "
                                 f"0..255", at)
            out.append(value)
            if cur.peek() == ",":
                cur.i += 1
                continue
            cur.expect("}", f"after the last byte of global '{name}'")
            return bytes(out)

    # -- function bodies

    def _body_line(self, fn: _FunctionBuilder, toks, plain: bool) -> None:
        annotations = ()
        if not plain:  # strings, annotations, attributes or odd characters on this line
            _check_tokens(toks)
            toks, annotations = _split_annotations(toks)
            if not toks:
                raise _LineError("an annotation line must follow a label or an instruction "
                                 "(put it at the end of that line)", 0)
        if len(toks) > 1 and toks[1] == ":" and _is_id(toks[0]) and not _is_define_at(toks, 0):
            self._label_line(fn, toks, annotations)
            return
        if not fn.blocks:
            raise _LineError(f"instruction before the first label in function '{fn.name}' "
                             f"(start the body with a label such as 'entry:')", 0)
        fn.blocks[-1][1].append(self._instr(_Cursor(toks), annotations))

    def _label_line(self, fn, toks, annotations) -> None:
        """``LABEL: [!hyperblock] [#k=v ...]`` or, as an extension, ``LABEL: INSTR``."""
        block = [toks[0], [], False, (), self._loc(0)]
        fn.blocks.append(block)
        cur = _Cursor(toks, 2)
        while True:
            tok = cur.peek()
            if tok is None or tok[0] != "!":
                break
            if tok != "!hyperblock":
                raise _LineError(f"unknown block attribute '{tok}' (expected '!hyperblock')",
                                 cur.i)
            if block[2]:
                raise _LineError("'!hyperblock' given twice", cur.i)
            block[2] = True
            cur.i += 1
        if cur.i >= cur.n:
            block[3] = annotations
        else:
            block[1].append(self._instr(cur, annotations))

    def _operand(self, cur: _Cursor, what: str):
        i = cur.i
        if i < cur.n:
            tok = cur.toks[i]
            c = tok[0]
            if c in _ID_START and _is_id(tok):
                cur.i = i + 1
                return GlobalAddr(tok) if tok in self.global_names else Reg(tok)
            if c in _NUM_START and _is_num(tok):
                cur.i = i + 1
                return Imm(parse_int(tok, i))
        raise _LineError(f"expected {what} (a register, an integer or a global), found "
                         f"{cur.found()}", i)

    def _two_operands(self, cur: _Cursor, op: str):
        a = self._operand(cur, f"the first operand of '{op}'")
        if cur.peek() != ",":
            raise _LineError(f"expected ',' after first operand, found {cur.found()} "
                             f"(in '{op}')", cur.i)
        cur.i += 1
        b = self._operand(cur, f"the second operand of '{op}'")
        return a, b

    def _instr(self, cur: _Cursor, annotations):
        """One instruction (docs/pir.md "Instructions"), optionally guarded ``(P) INSTR``."""
        start = cur.i
        guard = None
        if cur.peek() == "(":
            cur.i += 1
            guard = cur.ident("a predicate name in the guard '(P)'")
            cur.expect(")", f"after guard predicate '{guard}'")
        tok = cur.peek()
        if tok is None:
            raise _LineError("expected an instruction after the guard", None)
        if not _is_id(tok):
            raise _LineError(f"expected an instruction, found '{tok}'", cur.i)
        loc = self._loc(start) if start else SourceLoc(self.path, self.lineno,
                                                       len(self.line) - len(self.line.lstrip())
                                                       + 1)
        common = {"guard": guard, "annotations": annotations, "loc": loc}
        second = cur.peek(1)
        if second == "=":
            cur.i += 2
            instr = self._value_instr(cur, tok, common)
        elif second == ":":
            instr = self._native_define(cur, common)
        else:
            instr = self._statement(cur, common)
        if cur.i < cur.n:
            raise _LineError(f"unexpected {cur.found()} after the last operand of "
                             f"'{instr.opcode}'", cur.i)
        return instr

    def _opcode(self, cur: _Cursor) -> tuple[str, str, str, int]:
        at = cur.i
        tok = cur.peek()
        if tok is None or not _is_id(tok):
            raise _LineError(f"expected an opcode, found {cur.found()}", at)
        cur.i = at + 1
        base, _, suffix = tok.partition(".")
        return tok, base, suffix, at

    def _value_instr(self, cur: _Cursor, dest: str, common: dict):
        """``R = OP ...``."""
        op, base, suffix, at = self._opcode(cur)
        if op in BINARY_OPS:
            a, b = self._two_operands(cur, op)
            return BinOp(op=op, dest=dest, a=a, b=b, **common)
        if op == "mov":
            return Mov(dest=dest, src=self._operand(cur, "the operand of 'mov'"), **common)
        if op in UNARY_OPS:
            return UnOp(op=op, dest=dest, a=self._operand(cur, f"the operand of '{op}'"),
                        **common)
        if base == "cmp":
            rel = _relation(op, suffix, at)
            a, b = self._two_operands(cur, op)
            return Cmp(rel=rel, dest=dest, a=a, b=b, **common)
        if op == "select":
            c = self._operand(cur, "the condition of 'select'")
            cur.expect(",", "after the condition of 'select'")
            a = self._operand(cur, "the second operand of 'select'")
            cur.expect(",", "after the second operand of 'select'")
            b = self._operand(cur, "the third operand of 'select'")
            return Select(dest=dest, cond=c, a=a, b=b, **common)
        if base == "load":
            size, signed = _load_suffix(op, suffix, at)
            addr = self._operand(cur, f"the address of '{op}'")
            return Load(dest=dest, addr=addr, size=size, signed=signed, **common)
        if op == "alloca":
            return Alloca(dest=dest, size=self._operand(cur, "the size of 'alloca'"), **common)
        if op == "call":
            callee, args = self._call_rest(cur)
            return Call(dest=dest, callee=callee, args=args,
                        continuations=self._continuations(cur, callee), **common)
        if op == "input":
            return Input(dest=dest, **common)
        if base == "pcmp":
            raise _LineError(f"a predicate define names each destination's deposit type: write "
                             f"'{dest}:ut = {op} A, B' (or the IA-64 form "
                             f"'{op}.unc {dest}, P2 = A, B')", at)
        if base in _STATEMENT_OPS:
            raise _LineError(f"'{op}' produces no value (remove '{dest} =')", at)
        raise _LineError(_unknown_opcode(op), at)

    def _statement(self, cur: _Cursor, common: dict):
        """Instructions without ``R =``: store, print, br, cbr, ret, call, IA-64 pcmp."""
        second = cur.peek(1)
        op, base, suffix, at = self._opcode(cur)
        if base == "store":
            if not suffix:
                size = 8
            elif _STORE_SUFFIX_RE.match(suffix):
                size = int(suffix)
            else:
                raise _LineError(f"bad store size in '{op}' (expected store, store.1, store.2, "
                                 f"store.4 or store.8)", at)
            addr = self._operand(cur, f"the address of '{op}'")
            cur.expect(",", f"after the address of '{op}'")
            value = self._operand(cur, f"the value of '{op}'")
            return Store(addr=addr, value=value, size=size, **common)
        if op == "print":
            return Print(value=self._operand(cur, "the operand of 'print'"), **common)
        if op == "br":
            return Br(target=cur.ident("a label after 'br'"), **common)
        if op == "cbr":
            cond = self._operand(cur, "the condition of 'cbr'")
            cur.expect(",", "after the condition of 'cbr'")
            if_true = cur.ident("the true label of 'cbr'")
            cur.expect(",", "after the true label of 'cbr'")
            if_false = cur.ident("the false label of 'cbr'")
            return CondBr(cond=cond, if_true=if_true, if_false=if_false, **common)
        if base == "ret":
            exit_ = 0
            if suffix:  # ret.N: exit-splitting extension (docs/pir.md "Extensions")
                if not suffix.isdigit():
                    raise _LineError(f"bad return exit in '{op}' (expected ret or ret.N with N "
                                     f"a non-negative decimal number, e.g. ret.1)", at)
                exit_ = int(suffix)
            value = None if cur.i >= cur.n else self._operand(cur, "the return value")
            return Ret(value=value, exit=exit_, **common)
        if op == "call":
            callee, args = self._call_rest(cur)
            return Call(dest=None, callee=callee, args=args,
                        continuations=self._continuations(cur, callee), **common)
        if base == "pcmp":
            return self._ia64_define(cur, op, suffix, at, common)
        if op in _VALUE_OPS or base in ("cmp", "load"):
            raise _LineError(f"'{op}' needs a destination: write 'R = {op} ...'", at)
        if second is not None and second.partition(".")[0] in _KNOWN_BASES:
            raise _LineError(f"expected '=' after destination '{op}'", at + 1)
        raise _LineError(_unknown_opcode(op), at)

    def _continuations(self, cur: _Cursor, callee: str) -> tuple:
        """``to L0, L1, ...`` after a call (exit-splitting extension): the label per exit."""
        if cur.peek() != "to":
            return ()
        cur.i += 1
        labels = [cur.ident(f"a continuation label after 'to' (call to '{callee}')")]
        while cur.peek() == ",":
            cur.i += 1
            labels.append(cur.ident(f"continuation label {len(labels)} after 'to' (call to "
                                    f"'{callee}')"))
        return tuple(labels)

    def _call_rest(self, cur: _Cursor):
        callee = cur.ident("a function name after 'call'")
        cur.expect("(", f"after the callee '{callee}'")
        if cur.peek() == ")":
            cur.i += 1
            return callee, ()
        args = []
        while True:
            args.append(self._operand(cur, f"argument {len(args) + 1} of the call to "
                                           f"'{callee}'"))
            if cur.peek() == ",":
                cur.i += 1
                continue
            cur.expect(")", f"after the last argument of the call to '{callee}'")
            return callee, tuple(args)

    # -- predicate defines (docs/pir.md "Predicate defines")

    def _native_define(self, cur: _Cursor, common: dict) -> PredDefine:
        """``D1:T1 [, D2:T2] = pcmp.REL A, B``."""
        dests = []
        while True:
            name = cur.ident("a predicate destination")
            cur.expect(":", f"after predicate destination '{name}'")
            at = cur.i
            tok = cur.next(f"a deposit type after '{name}:'")
            dests.append(PredDest(name, _deposit_type(tok, at)))
            if cur.peek() == ",":
                if len(dests) == 2:
                    raise _LineError("a predicate define has at most two destinations", cur.i)
                cur.i += 1
                continue
            if cur.peek() != "=":
                raise _LineError(f"expected ',' or '=' after '{name}:{tok}', found "
                                 f"{cur.found()}", cur.i)
            cur.i += 1
            break
        op, base, suffix, at = self._opcode(cur)
        if base != "pcmp":
            raise _LineError(f"predicate destinations ('{dests[0].name}:{dests[0].dtype}') "
                             f"need a 'pcmp.REL' define, found '{op}'", at)
        rel, _, completer = suffix.partition(".")
        rel = _relation(op, rel, at)
        if completer:
            raise _LineError(f"completer '.{completer}' is only allowed in the IA-64 form "
                             f"'pcmp.{rel}.{completer} P1, P2 = A, B'; with deposit types "
                             f"write 'pcmp.{rel}'", at)
        a, b = self._two_operands(cur, op)
        return PredDefine(rel=rel, dests=tuple(dests), a=a, b=b, **common)

    def _ia64_define(self, cur: _Cursor, op: str, suffix: str, at: int,
                     common: dict) -> PredDefine:
        """``pcmp.REL[.COMPLETER] P1[, P2] = A, B`` mapped by IA64_COMPLETERS."""
        rel, _, completer = suffix.partition(".")
        rel = _relation(op, rel, at)
        if completer not in IA64_COMPLETERS:
            known = ", ".join(f"'.{c}'" for c in IA64_COMPLETERS if c)
            raise _LineError(f"unknown IA-64 completer '.{completer}' in '{op}' (expected none "
                             f"or one of: {known})", at)
        types = IA64_COMPLETERS[completer]
        names = [cur.ident(f"a predicate destination after '{op}'")]
        if cur.peek() == ",":
            cur.i += 1
            names.append(cur.ident("the second predicate destination"))
        if cur.peek() == ":":
            raise _LineError(f"the IA-64 form '{op} P1, P2 = A, B' takes no deposit types; "
                             f"write 'P1:T1, P2:T2 = pcmp.{rel} A, B' instead", cur.i)
        cur.expect("=", "after the predicate destinations")
        a, b = self._two_operands(cur, op)
        dests = tuple(PredDest(n, t) for n, t in zip(names, types))
        return PredDefine(rel=rel, dests=dests, a=a, b=b, **common)


def _deposit_type(tok: str, at: int) -> str:
    canonical = DEPOSIT_ALIASES.get(tok)
    if canonical is None:
        known = ", ".join(DEPOSIT_ALIASES)
        raise _LineError(f"unknown deposit type '{tok}' (expected one of: {known})", at)
    return canonical


def _relation(op: str, rel: str, at: int) -> str:
    if rel in RELATIONS:
        return rel
    base = op.partition(".")[0]
    known = ", ".join(RELATIONS)
    if not rel:
        raise _LineError(f"'{base}' needs a relation such as '{base}.eq' (one of: {known})",
                         at)
    raise _LineError(f"unknown relation '{rel}' in '{op}' (expected one of: {known})", at)


def _load_suffix(op: str, suffix: str, at: int) -> tuple[int, bool]:
    if not suffix:
        return 8, True
    m = _LOAD_SUFFIX_RE.match(suffix)
    if m is None:
        raise _LineError(f"bad load size in '{op}' (expected load, load.N or load.Nu with N in "
                         f"1, 2, 4, 8)", at)
    return int(m.group(1)), not m.group(2)


def _unknown_opcode(op: str) -> str:
    message = f"unknown opcode '{op}' (expected one of: {', '.join(OPCODE_SPELLINGS)})"
    close = difflib.get_close_matches(op, [s.split("[")[0].replace(".REL", "")
                                           for s in OPCODE_SPELLINGS], n=1)
    if close:
        message += f"; did you mean '{close[0]}'?"
    return message


# ---------------------------------------------------------------- entry points

def parse_module(text: str, path: str = "<input>") -> Module:
    """Parse PIR text into a :class:`~pylogic.ir.model.Module`.

    Parameters: ``text`` the whole file; ``path`` the name used in locations.
    Returns the module (not verified: see ``pylogic.ir.verify``).
    Raises ParseErrors(errors, partial) listing every error (each with file:line:col) when
    anything is wrong; ``partial`` holds every global and function that parsed cleanly.
    Example: ``parse_module("func f() {\\nentry:\\n    ret 1\\n}\\n")``.
    References: docs/pir.md (normative).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    return _ModuleParser(text, path).parse()


def parse_file(path) -> Module:
    """Read ``path`` (UTF-8) and parse it with :func:`parse_module`.

    Raises PathlogicError naming the path when the file cannot be read (missing, a directory,
    no permission), ParseError at the first bad byte when it is not UTF-8, ParseErrors for
    syntax errors.
    """
    name = str(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise PathlogicError(f"cannot read '{name}': {reason}", SourceLoc(name)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise ParseError(f"file is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
                         SourceLoc(name, line, col)) from None
    return parse_module(text, name)
