"""LLVM textual IR: a tokenizer, the type grammar, and the x86-64 data layout (sizes, alignments,
struct field offsets).

The importer reads llvmlite's printed text (LLVM 22, opaque pointers), so ``ptr`` is the only
pointer type. Layout follows the x86-64 SysV data layout clang-14 emits
(``e-m:e-i64:64-f80:128-n8:16:32:64-S128``): iN aligned to its store size (capped at 8, i128 at
16), pointers 8, structs padded to field alignment, packed structs ``<{...}>`` unpadded.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


class Unsupported(Exception):
    """A construct the importer does not lower; the enclosing function is skipped with ``reason``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------- tokens

# One token with the whitespace/comments before it (one match per token, not two). One space
# per repetition and comments running to the end of the line keep backtracking linear.
_TOKEN = re.compile(r"""
    (?:\s|;[^\n]*(?![^\n]))*
  (?:
    (?P<cstr>c"[^"]*")
  | (?P<str>"[^"]*")
  | (?P<local>%(?:"[^"]*"|[-A-Za-z$._0-9]+))
  | (?P<glob>@(?:"[^"]*"|[-A-Za-z$._0-9]+))
  | (?P<meta>![-A-Za-z$._0-9]*)
  | (?P<attr>\#[0-9]+)
  | (?P<num>-?(?:0x[0-9A-Fa-f]+|\d+(?:\.\d+(?:e[-+]?\d+)?)?))
  | (?P<word>[A-Za-z_$.][-A-Za-z0-9_$.]*)
  | (?P<ellipsis>\.\.\.)
  | (?P<punct>[\[\]{}()<>,=*:])
  | (?P<end>\Z)
  )""", re.VERBOSE)
_SPACE = re.compile(r"(?:\s+|;[^\n]*)*")


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str


#: Interned tokens by text (a token's text alone decides its kind: the first alternative of
#: _TOKEN that matches it). Tokens are immutable, so sharing them is safe; cleared when large.
_TOK_CACHE: dict[str, Tok] = {}
_TOK_CACHE_MAX = 200_000


#: The same tokens as _TOKEN, in the same order of preference, for ``findall``: a comment is a
#: match of its own (dropped) and any other character one of its own (rejected), so the matches
#: cover the text and tokenize needs no match objects (2.3x faster on csmith modules, #32).
_TOKEN_TEXT = re.compile(r"""c"[^"]*"|"[^"]*"|%(?:"[^"]*"|[-A-Za-z$._0-9]+)"""
                         r"""|@(?:"[^"]*"|[-A-Za-z$._0-9]+)|![-A-Za-z$._0-9]*|\#[0-9]+"""
                         r"""|-?(?:0x[0-9A-Fa-f]+|\d+(?:\.\d+(?:e[-+]?\d+)?)?)"""
                         r"""|[A-Za-z_$.][-A-Za-z0-9_$.]*|\.\.\.|[\[\]{}()<>,=*:]|;[^\n]*|\S""")


class _Unrecognised(Exception):
    pass


def tokenize(text: str) -> list[Tok]:
    """Split one LLVM line (instruction, global, type definition) into tokens."""
    cache = _TOK_CACHE
    if len(cache) > _TOK_CACHE_MAX:
        cache.clear()
    get = cache.get
    try:
        out = [get(s) or _new_token(s) for s in _TOKEN_TEXT.findall(text)]
    except _Unrecognised:
        return _tokenize_matches(text)  # raises Unsupported, naming the place
    if ";" in text:
        out = [t for t in out if t is not _COMMENT]
    return out


_COMMENT = Tok("comment", ";")


def _new_token(s: str) -> Tok:
    """The token of text ``s`` (a findall match of _TOKEN_TEXT), interned; _COMMENT for a
    comment; raises _Unrecognised for a character no token starts with."""
    if s[0] == ";":
        return _COMMENT
    m = _TOKEN.match(s)
    if m is None or m.end() != len(s) or m.lastgroup == "end":
        raise _Unrecognised(s)
    tok = _TOK_CACHE[s] = Tok(m.lastgroup, s)
    return tok


def _tokenize_matches(text: str) -> list[Tok]:
    """tokenize by one _TOKEN match per token: the reference, and the error for text with a
    character no token starts with."""
    out: list[Tok] = []
    append = out.append
    cache = _TOK_CACHE
    covered = 0
    for m in _TOKEN.finditer(text):
        if m.start() != covered:
            break
        covered = m.end()
        kind = m.lastgroup
        if kind == "end":  # only whitespace/comments were left
            break
        s = m.group(kind)
        tok = cache.get(s)
        if tok is None:
            tok = cache[s] = Tok(kind, s)
        append(tok)
    if covered != len(text):
        covered = _SPACE.match(text, covered).end()  # trailing whitespace/comment
        if covered != len(text):
            raise Unsupported(f"unrecognised LLVM text near {text[covered:covered + 20]!r}")
    return out


class Cursor:
    """A position in a token list with small helpers for recursive-descent parsing."""

    def __init__(self, toks: list[Tok]):
        self.toks = toks
        self.i = 0

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        toks = self.toks
        return toks[j] if j < len(toks) else None

    def at(self, text: str) -> bool:
        i, toks = self.i, self.toks
        return i < len(toks) and toks[i].text == text

    def next(self) -> Tok:
        i = self.i
        try:
            t = self.toks[i]
        except IndexError:
            raise Unsupported("unexpected end of LLVM text") from None
        self.i = i + 1
        return t

    def accept(self, text: str) -> bool:
        i, toks = self.i, self.toks
        if i < len(toks) and toks[i].text == text:
            self.i = i + 1
            return True
        return False

    def expect(self, text: str) -> Tok:
        t = self.next()
        if t.text != text:
            raise Unsupported(f"expected {text!r} in LLVM text, found {t.text!r}")
        return t

    def done(self) -> bool:
        return self.i >= len(self.toks)

    def skip_parenthesized(self) -> None:
        """If at ``(``, skip to just past its matching ``)``."""
        if not self.at("("):
            return
        depth = 0
        while True:
            x = self.next().text
            depth += (x == "(") - (x == ")")
            if depth == 0:
                return


# ---------------------------------------------------------------- types

@dataclass(frozen=True)
class IntT:
    bits: int


@dataclass(frozen=True)
class PtrT:
    pass


@dataclass(frozen=True)
class VoidT:
    pass


@dataclass(frozen=True)
class FloatT:
    name: str


@dataclass(frozen=True)
class ArrayT:
    count: int
    elem: object


@dataclass(frozen=True)
class VectorT:
    count: int
    elem: object


@dataclass(frozen=True)
class StructT:
    fields: tuple
    packed: bool = False


@dataclass(frozen=True)
class NamedT:
    name: str


@dataclass(frozen=True)
class OtherT:
    """label, metadata, token, function types: never sized."""
    name: str


PTR = PtrT()
I1, I8, I32, I64 = IntT(1), IntT(8), IntT(32), IntT(64)
FLOAT_NAMES = ("half", "bfloat", "float", "double", "x86_fp80", "fp128", "ppc_fp128", "x86_amx")


#: One-token types by text (types are immutable, so parsed ones can be shared); integer types
#: are added as they are met. Tokens that can extend a one-token type: see parse_type.
_SIMPLE_TYPES: dict[str, object] = {"ptr": PTR, "void": VoidT(), **{n: FloatT(n) for n in FLOAT_NAMES},
                                    **{n: OtherT(n) for n in ("label", "metadata", "token", "x86_mmx")}}
_TYPE_SUFFIXES = frozenset(("addrspace", "*", "("))


def parse_type(c: Cursor, allow_fn: bool = True) -> object:
    """Parse one type. A following ``(ARGS...)`` makes it a function type, returned as
    OtherT('fn') — unless ``allow_fn`` is False (a call's return type), when it is left unread."""
    t = c.next()
    text = t.text
    ty = _SIMPLE_TYPES.get(text)
    if ty is not None:  # fast path: a one-token type not followed by addrspace, '*' or '('
        i, toks = c.i, c.toks
        if i >= len(toks) or toks[i].text not in _TYPE_SUFFIXES:
            return ty
    if text == "ptr":
        ty = PTR
        if c.at("addrspace"):
            c.next(); c.expect("("); c.next(); c.expect(")")
    elif text == "void":
        ty = VoidT()
    elif t.kind == "word" and re.fullmatch(r"i\d+", text):
        ty = IntT(int(text[1:]))
        if len(_SIMPLE_TYPES) < 10_000:
            _SIMPLE_TYPES[text] = ty
    elif text in FLOAT_NAMES:
        ty = FloatT(text)
    elif text in ("label", "metadata", "token", "x86_mmx"):
        ty = OtherT(text)
    elif text == "[":
        n = int(c.next().text); c.expect("x")
        ty = ArrayT(n, parse_type(c)); c.expect("]")
    elif text == "<" and c.at("{"):
        c.next()
        ty = StructT(_parse_fields(c, "}"), packed=True); c.expect(">")
    elif text == "<":
        if c.at("vscale"):
            c.next(); c.expect("x")
        n = int(c.next().text); c.expect("x")
        ty = VectorT(n, parse_type(c)); c.expect(">")
    elif text == "{":
        ty = StructT(_parse_fields(c, "}"))
    elif t.kind == "local":
        ty = NamedT(t.text)
    else:
        raise Unsupported(f"unknown LLVM type {text!r}")
    while c.at("*"):  # typed pointers (only if text was not upgraded)
        c.next(); ty = PTR
    if allow_fn and c.at("("):  # function type: RET (ARGS...)
        c.next()
        depth = 1
        while depth:
            x = c.next().text
            depth += (x == "(") - (x == ")")
        ty = OtherT("fn")
    return ty


def _parse_fields(c: Cursor, close: str) -> tuple:
    fields = []
    if c.accept(close):
        return ()
    while True:
        fields.append(parse_type(c))
        if c.accept(close):
            return tuple(fields)
        c.expect(",")


class DataLayout:
    """x86-64 sizes and alignments; named struct bodies come from the module's type definitions.

    Sizes, alignments and struct layouts are computed once per distinct type (csmith's global
    initialisers ask for the same ones hundreds of thousands of times, #32); a type without a
    layout raises each time it is asked about."""

    def __init__(self, named: dict[str, object]):
        self.named = named  # '%struct.S' -> StructT (or None when opaque)
        self._align: dict = {}
        self._size: dict = {}
        self._layouts: dict = {}
        self._int_forms: dict = {}

    def resolve(self, ty):
        if type(ty) is not NamedT:
            return ty
        seen = 0
        while isinstance(ty, NamedT):
            body = self.named.get(ty.name)
            if body is None:
                raise Unsupported(f"opaque or unknown struct type {ty.name}")
            ty = body
            seen += 1
            if seen > 100:
                raise Unsupported(f"recursive type {ty}")
        return ty

    def align(self, ty) -> int:
        got = self._align.get(ty)
        if got is None:
            got = self._align[ty] = self._compute_align(ty)
        return got

    def _compute_align(self, ty) -> int:
        ty = self.resolve(ty)
        if isinstance(ty, IntT):
            return min(max(1, _pow2_ceil((ty.bits + 7) // 8)), 16 if ty.bits > 64 else 8)
        if isinstance(ty, PtrT):
            return 8
        if isinstance(ty, FloatT):
            return {"half": 2, "bfloat": 2, "float": 4, "double": 8}.get(ty.name, 16)
        if isinstance(ty, ArrayT):
            return self.align(ty.elem)
        if isinstance(ty, VectorT):
            return _pow2_ceil(self.size(ty))
        if isinstance(ty, StructT):
            if ty.packed or not ty.fields:
                return 1
            return max(self.align(f) for f in ty.fields)
        raise Unsupported(f"type without a layout: {ty}")

    def size(self, ty) -> int:
        """Allocation size in bytes (store size rounded up to alignment)."""
        got = self._size.get(ty)
        if got is None:
            got = self._size[ty] = self._compute_size(ty)
        return got

    def _compute_size(self, ty) -> int:
        ty = self.resolve(ty)
        if isinstance(ty, IntT):
            return _round_up((ty.bits + 7) // 8, self.align(ty))
        if isinstance(ty, PtrT):
            return 8
        if isinstance(ty, FloatT):
            return {"half": 2, "bfloat": 2, "float": 4, "double": 8}.get(ty.name, 16)
        if isinstance(ty, ArrayT):
            return ty.count * self.size(ty.elem)
        if isinstance(ty, VectorT):
            return _pow2_ceil(ty.count * self.size(ty.elem))
        if isinstance(ty, StructT):
            offsets, end = self._layout(ty)
            return _round_up(end, self.align(ty))
        raise Unsupported(f"type without a size: {ty}")

    def store_size(self, ty) -> int:
        """Bytes a load/store of ``ty`` touches."""
        ty = self.resolve(ty)
        if isinstance(ty, IntT):
            return (ty.bits + 7) // 8
        return self.size(ty)

    def int_form(self, ty) -> tuple | None:
        """For a type whose scalar leaves are all integers (arrays and structs of them):
        ``(shape, leaves, widths, run)``: ``shape`` the text LLVM prints for a constant of the
        type with every ``iN NUMBER`` element left out (``[2 x i16] [i16 1, i16 -2]`` ->
        ``[, ]``), ``leaves`` the ``(byte offset, bits)`` of those elements in text order,
        ``widths`` their N as text and ``run``, when the leaves are one width of 8, 16, 32 or
        64 bits back to back from offset 0, the ``struct`` format of them all and the mask of
        one, else None; None for other types. Cached per type."""
        if ty in self._int_forms:
            return self._int_forms[ty]
        rt = self.resolve(ty)
        got = None
        if type(rt) is IntT:
            got = ("", ((0, rt.bits),))
        elif type(rt) is ArrayT and rt.count:
            inner = self.int_form(rt.elem)
            if inner is not None:
                step = self.size(rt.elem)
                elem = "" if type(rt.elem) is IntT else f"{type_text(rt.elem)} {inner[0]}"
                got = ("[" + ", ".join([elem] * rt.count) + "]",
                       tuple((k * step + off, bits) for k in range(rt.count) for off, bits in inner[1]))
        elif type(rt) is StructT and rt.fields:
            parts = [self.int_form(f) for f in rt.fields]
            if all(p is not None for p in parts):
                body = ", ".join("" if type(f) is IntT else f"{type_text(f)} {p[0]}"
                                 for f, p in zip(rt.fields, parts))
                got = ("<{ " + body + " }>" if rt.packed else "{ " + body + " }",
                       tuple((base + off, bits) for base, p in zip(self.field_offsets(rt), parts)
                             for off, bits in p[1]))
        if got is not None:
            leaves, run = got[1], None
            bits = leaves[0][1]
            size = bits // 8
            if bits in (8, 16, 32, 64) and all(off == k * size and b == bits
                                               for k, (off, b) in enumerate(leaves)):
                run = (f"<{len(leaves)}{'BHIQ'[size.bit_length() - 1]}", (1 << bits) - 1)
            got = (got[0], leaves, [str(bits) for _, bits in leaves], run)
        self._int_forms[ty] = got
        return got

    def field_offsets(self, ty) -> list[int]:
        return self._layout(self.resolve(ty))[0]

    def _layout(self, st: StructT) -> tuple[list[int], int]:
        got = self._layouts.get(st)
        if got is None:
            off, offsets = 0, []
            for f in st.fields:
                if not st.packed:
                    off = _round_up(off, self.align(f))
                offsets.append(off)
                off += self.size(f)
            got = self._layouts[st] = (offsets, off)
        return got


def type_text(ty) -> str:
    """A type as LLVM prints it (named structs by name)."""
    if type(ty) is IntT:
        return f"i{ty.bits}"
    if type(ty) is NamedT:
        return ty.name
    if type(ty) is ArrayT:
        return f"[{ty.count} x {type_text(ty.elem)}]"
    if type(ty) is VectorT:
        return f"<{ty.count} x {type_text(ty.elem)}>"
    if type(ty) is StructT:
        body = "{ " + ", ".join(map(type_text, ty.fields)) + " }" if ty.fields else "{}"
        return f"<{body}>" if ty.packed else body
    return "ptr" if type(ty) is PtrT else ty.name


def _round_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


#: A line starting with ``%`` and holding `` = type ``, newline first (a pattern opening with a
#: literal is searched for it: 5x faster than splitting a csmith module into lines, #32).
_TYPE_LINE = re.compile(r"\n(%[^\n]* = type [^\n]*)")


def parse_type_definitions(module_text: str) -> dict[str, object]:
    """``%struct.S = type { ... }`` lines of a printed module -> {name: StructT | None(opaque)}."""
    named: dict[str, object] = {}
    for line in _TYPE_LINE.findall("\n" + module_text):
        c = Cursor(tokenize(line))
        name = c.next().text
        c.expect("="); c.expect("type")
        if c.at("opaque"):
            named[name] = None
            continue
        body = parse_type(c)
        named[name] = body
    return named


def contains_float(ty, layout: DataLayout | None = None, _depth: int = 0) -> bool:
    """True when a type mentions floating point or vectors anywhere (unsupported by PIR)."""
    if isinstance(ty, (FloatT, VectorT)):
        return True
    if isinstance(ty, ArrayT):
        return contains_float(ty.elem, layout, _depth)
    if isinstance(ty, StructT):
        return any(contains_float(f, layout, _depth) for f in ty.fields)
    if isinstance(ty, NamedT) and layout is not None and _depth < 50:
        body = layout.named.get(ty.name)
        return body is not None and contains_float(body, layout, _depth + 1)
    return False


#: Aggregates with more scalar leaves than this are not held in registers (see lower.py).
MAX_AGGREGATE_LEAVES = 64


def is_aggregate(ty, layout: DataLayout) -> bool:
    """Whether ``ty`` is a struct or array type (a first-class aggregate when used as a value)."""
    return isinstance(layout.resolve(ty), (StructT, ArrayT))


def aggregate_leaves(ty, layout: DataLayout, path: tuple = (), base: int = 0) -> list:
    """The scalar leaves of an aggregate type in memory order: ``[(index path, byte offset,
    IntT|PtrT)]``. Raises Unsupported for floating point, vectors, integers wider than 64 bits
    and aggregates of more than MAX_AGGREGATE_LEAVES leaves."""
    ty = layout.resolve(ty)
    out: list = []
    if isinstance(ty, StructT):
        for k, (f, off) in enumerate(zip(ty.fields, layout.field_offsets(ty))):
            out += aggregate_leaves(f, layout, path + (k,), base + off)
    elif isinstance(ty, ArrayT):
        step = layout.size(ty.elem)
        if ty.count > MAX_AGGREGATE_LEAVES:
            raise Unsupported("first-class aggregate value (too many elements)")
        for k in range(ty.count):
            out += aggregate_leaves(ty.elem, layout, path + (k,), base + k * step)
    elif isinstance(ty, (FloatT, VectorT)):
        raise Unsupported("floating point or vector")
    elif isinstance(ty, IntT) and ty.bits > 64:
        raise Unsupported(f"integer wider than 64 bits (i{ty.bits})")
    elif isinstance(ty, (IntT, PtrT)):
        out.append((path, base, ty))
    else:
        raise Unsupported(f"aggregate of {ty}")
    if len(out) > MAX_AGGREGATE_LEAVES:
        raise Unsupported("first-class aggregate value (too many elements)")
    return out


def element_type(ty, indices, layout: DataLayout):
    """The type reached from aggregate ``ty`` by ``extractvalue``/``insertvalue`` indices."""
    for i in indices:
        ty = layout.resolve(ty)
        if isinstance(ty, StructT):
            ty = ty.fields[i]
        elif isinstance(ty, ArrayT):
            ty = ty.elem
        else:
            raise Unsupported(f"aggregate index into {ty}")
    return ty
