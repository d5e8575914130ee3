"""The Soufflé-dialect front end: a lark grammar, the AST (every node carries its SourceLoc), and
``parse_program`` which resolves ``#include`` and rejects constructs outside the supported subset
with a located message naming the construct (DESIGN.md "Datalog: one dialect, two engines")."""
from __future__ import annotations

import re
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import VisitError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from pylogic.engines.preprocess import apply_conditionals
from pylogic.errors import DatalogError, SourceLoc

INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1

# ---- AST -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    name: str
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Wildcard:
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Num:
    value: int
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Str:
    value: str
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class BinOp:
    """Arithmetic ``+ - * / %`` (Soufflé: 32-bit, C semantics for ``/`` and ``%``)."""

    op: str
    left: object
    right: object
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Neg:
    operand: object
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Aggregate:
    """``count : {body}``, ``sum e : {body}``, ``min e : atom`` ... (``target`` is None for count)."""

    op: str
    target: object
    body: object  # Conj | Disj
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Atom:
    rel: str
    args: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Negation:
    inner: object
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Constraint:
    op: str  # = != < <= > >=
    left: object
    right: object
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class BoolLit:
    value: bool
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Conj:
    items: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Disj:
    items: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Clause:
    """``h1, h2 :- body.`` or a fact (``body`` is None)."""

    heads: tuple
    body: object
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Decl:
    name: str
    attrs: tuple  # ((attr_name, type_name), ...)
    qualifiers: tuple
    loc: SourceLoc = field(compare=False)
    doc: str = field(default="", compare=False)  # the // comment lines right above the .decl


@dataclass(frozen=True)
class TypeDecl:
    """``.type T <: base`` (kind "sub") or ``.type T = A | B`` (kind "eq")."""

    name: str
    kind: str
    bases: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class IODirective:
    kind: str  # input | output | printsize
    rel: str
    params: tuple  # ((key, value), ...)
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class PlanHint:
    """A Soufflé ``.plan`` (join order per semi-naive version) after a rule: an evaluation hint
    for Soufflé; clingo chooses its own join order, so the clingo engine ignores it. ``entries``:
    ``((version, (atom, ...), loc), ...)``, atoms numbered from 1."""
    loc: SourceLoc = field(compare=False)
    entries: tuple = ()


# ---- normalized literals (built by semantics.py, read by stratify.py and the engines) ---------


@dataclass(frozen=True)
class NegAtom:
    """``!atom`` after negation is pushed down to atoms."""

    atom: Atom
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class AggLit:
    """``result = op target : { body }`` with the body a conjunction of normalized literals.
    ``tuple_vars`` are the variables whose distinct assignments the aggregate ranges over:
    named local variables plus every wildcard position (Soufflé 2.4.1's behaviour, measured)."""

    result: Var
    op: str
    target: object
    body: tuple
    tuple_vars: tuple
    loc: SourceLoc = field(compare=False)


@dataclass
class Program:
    """A parsed program with its includes resolved (items in file order, includes inlined)."""

    decls: list = field(default_factory=list)
    types: list = field(default_factory=list)
    ios: list = field(default_factory=list)
    clauses: list = field(default_factory=list)
    files: list = field(default_factory=list)  # every file read, main first
    macros: set = field(default_factory=set)  # #define'd names (include guards)
    plans: list = field(default_factory=list)  # (Clause, PlanHint): each .plan and its rule

# ---- grammar ---------------------------------------------------------------------------------


GRAMMAR = r"""
start: _item*
_item: decl | type_decl | io | clause | include | plan

include: INCLUDE
decl: ".decl" _names "(" [attr ("," attr)*] ")" QUALIFIER*
attr: IDENT ":" IDENT
_names: IDENT ("," IDENT)*
type_decl: ".type" IDENT "<:" IDENT              -> subtype
         | ".type" IDENT "=" IDENT ("|" IDENT)*  -> eqtype
         | ".number_type" IDENT                  -> number_type
         | ".symbol_type" IDENT                  -> symbol_type
io: IO_KW _names io_params?
io_params: "(" [kv ("," kv)*] ")"
kv: IDENT "=" (STRING | IDENT | NUMBER)

plan: ".plan" plan_entry ("," plan_entry)*
plan_entry: NUMBER ":" "(" [NUMBER ("," NUMBER)*] ")"

clause: _heads ":-" disj "."   -> rule
      | _heads "."             -> fact
      | atom CMP atom (":-" disj)? "." -> subsumption
_heads: atom ("," atom)*
atom: IDENT "(" [term ("," term)*] ")"

?disj: conj (";" conj)*
?conj: lit ("," lit)*
?lit: atom
    | "!" lit              -> negation
    | "(" disj ")"
    | term CMP term        -> constraint
    | TRUE                 -> true
    | FALSE                -> false

?term: sum
?sum: sum ADDOP prod       -> binop
    | prod
?prod: prod MULOP unary    -> binop
     | unary
?unary: "-" unary          -> neg
      | primary
?primary: IDENT            -> var
        | NUMBER           -> num
        | STRING           -> string
        | "(" term ")"
        | aggregate
aggregate: AGG ":" agg_body
         | AGG term ":" agg_body
?agg_body: atom
         | "{" disj "}"

INCLUDE: /#include[ \t]*"[^"\n]*"/
IO_KW.2: ".input" | ".output" | ".printsize"
QUALIFIER.2: /(brie|btree_delete|btree|eqrel|inline|no_inline|magic|no_magic|overridable)\b/
AGG.2: /(count|sum|min|max|mean)\b/
TRUE.2: /true\b/
FALSE.2: /false\b/
IDENT: /[_?a-zA-Z][_?a-zA-Z0-9]*/
NUMBER: /0x[0-9a-fA-F]+|0b[01]+|[0-9]+/
STRING: /"(\\.|[^"\\\n])*"/
CMP: "!=" | "<=" | "<" | ">=" | ">" | "="
ADDOP: "+" | "-"
MULOP: "*" | "/" | "%"
COMMENT: /\/\/[^\n]*/
BLOCK_COMMENT: /\/\*(.|\n)*?\*\//
%import common.WS
%ignore WS
%ignore COMMENT
%ignore BLOCK_COMMENT
"""


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True,
                maybe_placeholders=True)

# ---- unsupported constructs, found before parsing (comments and strings blanked) ---------------


_UNSUPPORTED = [
    (re.compile(r"^[ \t]*(#[ \t]*(?!include\b)\w+)", re.M), "preprocessor directive '{0}'"),
    (re.compile(r"(\.(comp|init|functor|override|lattice|pragma|limitsize))\b"),
     "'{0}' directive"),
    (re.compile(r"\bchoice-domain\b"), "choice-domain"),
    (re.compile(r"\.type\s+\w+\s*=\s*(\w+\s*\{|\$)"), "algebraic data type (ADT)"),
    (re.compile(r"\["), "record"),
    (re.compile(r"\$"), "ADT branch constructor '$'"),
    (re.compile(r"@\w+"), "user-defined functor '{0}'"),
    (re.compile(r"\bnil\b"), "'nil'"),
    (re.compile(r"\b(cat|strlen|ord|to_number|to_string|to_float|to_unsigned|itof|itou|ftoi|ftou|"
                r"utoi|utof|substr|match|contains|range|autoinc|as|lnot|bnot)\s*\("),
     "functor '{0}'"),
    (re.compile(r"\b(land|lor|lxor|band|bor|bxor|bshl|bshru|bshr)\b"), "bitwise/logical operator '{0}'"),
    (re.compile(r"\^"), "power operator '^'"),
    (re.compile(r"\b\d+\.\d+"), "float constant"),
    (re.compile(r"\b\d+u\b"), "unsigned constant"),
    (re.compile(r":\s*(float|unsigned)\b"), "type '{0}'"),
    (re.compile(r"<:\s*(float|unsigned)\b"), "type '{0}'"),
    (re.compile(r"\bmean\b"), "aggregate 'mean'"),
    (re.compile(r"(\.include)\b"), "'{0}' directive (#include is supported)"),
    (re.compile(r"\b(min|max)\s*\([^():{}]*,"), "binary functor '{0}'"),
]


def _blank_strings_and_comments(text: str) -> str:
    """Same length as ``text``, with string contents and comments replaced by spaces."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _check_unsupported(text: str, filename: str) -> None:
    blanked = _blank_strings_and_comments(text)
    first = None
    for pattern, what in _UNSUPPORTED:
        m = pattern.search(blanked)
        if m and (first is None or m.start() < first[0].start()):
            first = (m, what)
    if first:
        m, what = first
        name = what.format(m.group(1) if m.groups() else m.group(0))
        line, col = _line_col(text, m.start(m.lastindex or 0) if m.groups() else m.start())
        raise DatalogError(f"unsupported construct: {name} (outside the supported Soufflé subset)",
                           SourceLoc(filename, line, col))

# ---- tree -> AST -----------------------------------------------------------------------------


def _unescape(raw: str) -> str:
    # Soufflé keeps a symbol's characters; only \" and \\ (and \t \n) are decoded here
    return re.sub(r'\\(["\\tn])', lambda m: {"t": "\t", "n": "\n"}.get(m.group(1), m.group(1)),
                  raw[1:-1])


def _parse_int(tok: Token, loc: SourceLoc) -> int:
    s = str(tok)
    value = int(s, 16) if s.startswith("0x") else int(s, 2) if s.startswith("0b") else int(s)
    if value > INT32_MAX + 1:  # +1: -2147483648 is written as -(2147483648)
        raise DatalogError(f"number constant {s} is outside the 32-bit range of Soufflé's number", loc)
    return value


class _ToAst(Transformer):
    def __init__(self, filename: str, text: str = ""):
        super().__init__()
        self.filename = filename
        self.lines = text.splitlines()
        self.unnegated: dict = {}     # id(Num) -> Num: 2147483648 not (yet) under a minus

    def _doc(self, line: int) -> str:
        """The block of ``//`` comment lines right above 1-based ``line`` (STYLE.md: one-line
        comment above each declaration), joined with spaces."""
        found, k = [], line - 2
        while 0 <= k < len(self.lines) and self.lines[k].strip().startswith("//"):
            found.insert(0, self.lines[k].strip()[2:].strip())
            k -= 1
        return " ".join(found)

    def _loc(self, meta_or_tok) -> SourceLoc:
        line = getattr(meta_or_tok, "line", 0) or 0
        col = getattr(meta_or_tok, "column", 0) or 0
        return SourceLoc(self.filename, line, col)

    # -- top level
    def start(self, items):
        return items

    @v_args(meta=True)
    def plan(self, meta, children):
        return PlanHint(self._loc(meta), tuple(children))

    @v_args(meta=True)
    def plan_entry(self, meta, children):
        version, *order = children
        return (int(str(version)), tuple(int(str(t)) for t in order if t is not None),
                self._loc(meta))

    @v_args(meta=True)
    def include(self, meta, children):
        raw = str(children[0])
        return ("include", raw[raw.index('"') + 1:-1], self._loc(meta))

    @v_args(meta=True)
    def decl(self, meta, children):
        names, attrs, quals = [], [], []
        for c in children:
            if isinstance(c, Token) and c.type == "IDENT":
                names.append(str(c))
            elif isinstance(c, Token) and c.type == "QUALIFIER":
                quals.append((str(c), self._loc(c)))
            elif c is not None:
                attrs.append(c)
        loc = self._loc(meta)
        return [Decl(n, tuple(attrs), tuple(quals), loc, self._doc(loc.line)) for n in names]

    def attr(self, children):
        return (str(children[0]), str(children[1]))

    @v_args(meta=True)
    def subtype(self, meta, c):
        return TypeDecl(str(c[0]), "sub", (str(c[1]),), self._loc(meta))

    @v_args(meta=True)
    def eqtype(self, meta, c):
        return TypeDecl(str(c[0]), "eq", tuple(str(x) for x in c[1:]), self._loc(meta))

    @v_args(meta=True)
    def number_type(self, meta, c):
        return TypeDecl(str(c[0]), "sub", ("number",), self._loc(meta))

    @v_args(meta=True)
    def symbol_type(self, meta, c):
        return TypeDecl(str(c[0]), "sub", ("symbol",), self._loc(meta))

    @v_args(meta=True)
    def io(self, meta, children):
        kind = str(children[0])[1:]
        names = [str(c) for c in children[1:] if isinstance(c, Token)]
        params = next((c for c in children[1:] if isinstance(c, tuple)), ())
        return [IODirective(kind, n, params, self._loc(meta)) for n in names]

    def io_params(self, children):
        return tuple(c for c in children if c is not None)

    def kv(self, children):
        key, val = str(children[0]), children[1]
        sval = _unescape(str(val)) if val.type == "STRING" else str(val)
        return (key, sval)

    @v_args(meta=True)
    def rule(self, meta, children):
        return Clause(tuple(children[:-1]), children[-1], self._loc(meta))

    @v_args(meta=True)
    def fact(self, meta, children):
        return Clause(tuple(children), None, self._loc(meta))

    @v_args(meta=True)
    def subsumption(self, meta, children):
        if str(children[1]) != "<=":
            raise DatalogError(f"syntax error: unexpected '{children[1]}' after a head atom",
                               self._loc(children[1]))
        raise DatalogError("unsupported construct: subsumptive clause ('<=' head)", self._loc(meta))

    # -- bodies
    @v_args(meta=True)
    def atom(self, meta, children):
        args = tuple(c for c in children[1:] if c is not None)
        if len(children) == 2 and children[1] is None:
            args = ()
        return Atom(str(children[0]), args, self._loc(meta))

    @v_args(meta=True)
    def disj(self, meta, children):
        return Disj(tuple(children), self._loc(meta))

    @v_args(meta=True)
    def conj(self, meta, children):
        return Conj(tuple(children), self._loc(meta))

    @v_args(meta=True)
    def negation(self, meta, children):
        return Negation(children[0], self._loc(meta))

    @v_args(meta=True)
    def constraint(self, meta, children):
        left, op, right = children
        return Constraint(str(op), left, right, self._loc(op))

    @v_args(meta=True)
    def true(self, meta, children):
        return BoolLit(True, self._loc(meta))

    @v_args(meta=True)
    def false(self, meta, children):
        return BoolLit(False, self._loc(meta))

    # -- terms
    @v_args(meta=True)
    def binop(self, meta, children):
        left, op, right = children
        return BinOp(str(op), left, right, self._loc(op))

    @v_args(meta=True)
    def neg(self, meta, children):
        (x,) = children
        if isinstance(x, Num):  # fold so that -2147483648 is a constant
            self.unnegated.pop(id(x), None)
            if -x.value < INT32_MIN:
                raise DatalogError("number constant is outside the 32-bit range", x.loc)
            return Num(-x.value, self._loc(meta))
        return Neg(x, self._loc(meta))

    def var(self, children):
        tok = children[0]
        loc = self._loc(tok)
        return Wildcard(loc) if str(tok) == "_" else Var(str(tok), loc)

    def num(self, children):
        loc = self._loc(children[0])
        value = _parse_int(children[0], loc)
        num = Num(value, loc)
        if value > INT32_MAX:        # only as the operand of a minus (checked after the tree)
            self.unnegated[id(num)] = num
        return num

    def string(self, children):
        return Str(_unescape(str(children[0])), self._loc(children[0]))

    @v_args(meta=True)
    def aggregate(self, meta, children):
        op = str(children[0])
        if len(children) == 2:
            target, body = None, children[1]
        else:
            target, body = children[1], children[2]
        loc = self._loc(meta)
        if op == "count" and target is not None:
            raise DatalogError("'count' takes no target expression (write 'count : { ... }')", loc)
        if op != "count" and target is None:
            raise DatalogError(f"'{op}' needs a target expression (write '{op} x : {{ ... }}')", loc)
        if isinstance(body, Atom):
            body = Conj((body,), body.loc)
        return Aggregate(op, target, body, loc)


_TOKEN_NAMES = {"ADDOP": "'+'/'-'", "MULOP": "'*'/'/'/'%'", "CMP": "a comparison", "COLON": "':'",
                "COMMA": "','", "DOT": "'.'", "RBRACE": "'}'", "LBRACE": "'{'", "RPAR": "')'",
                "LPAR": "'('", "IDENT": "a name", "NUMBER": "a number", "STRING": "a string",
                "AGG": "an aggregate", "MINUS": "'-'", "SEMICOLON": "';'", "IF": "':-'",
                "BANG": "'!'", "TRUE": "true", "FALSE": "false", "QUALIFIER": "a qualifier",
                "INCLUDE": "#include", "IO_KW": "a directive", "VBAR": "'|'", "EQUAL": "'='"}


def _token_name(name: str) -> str:
    if name in _TOKEN_NAMES:
        return _TOKEN_NAMES[name]
    try:
        return repr(_parser().get_terminal(name).pattern.value)
    except (KeyError, AttributeError):
        return name


def _end_loc(text: str, filename: str) -> SourceLoc:
    """Just after the last non-blank character (where the missing token belongs)."""
    end = len(_blank_strings_and_comments(text).rstrip())
    line, col = _line_col(text, end)
    return SourceLoc(filename, line, col)


def _syntax_error(exc: UnexpectedInput, text: str, filename: str) -> DatalogError:
    loc = SourceLoc(filename, getattr(exc, "line", 0) or 0, getattr(exc, "column", 0) or 0)
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            return DatalogError("syntax error: unexpected end of file", _end_loc(text, filename))
        expected = sorted({_token_name(t) for t in exc.expected})[:10]
        return DatalogError(f"syntax error: unexpected '{tok!s:.30}' (expected "
                            f"{', '.join(expected)})", loc)
    if isinstance(exc, UnexpectedCharacters):
        return DatalogError(f"syntax error: unexpected character {text[exc.pos_in_stream]!r}", loc)
    if isinstance(exc, UnexpectedEOF):
        return DatalogError("syntax error: unexpected end of file", _end_loc(text, filename))
    return DatalogError(f"syntax error: {exc}", loc)


def parse_text(text: str, filename: str = "<input>") -> list:
    """Parse one file's text into a flat list of items (Decl, TypeDecl, IODirective, Clause and
    ``("include", path, loc)`` tuples). Raises DatalogError with a location."""
    _check_unsupported(text, filename)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, filename) from None
    to_ast = _ToAst(filename, text)
    try:
        items = to_ast.transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, DatalogError):
            raise exc.orig_exc from None
        raise
    if to_ast.unnegated:
        num = min(to_ast.unnegated.values(), key=lambda n: (n.loc.line, n.loc.col))
        raise DatalogError(f"number constant {num.value} is outside the 32-bit range", num.loc)
    flat = []
    for it in items:
        flat.extend(it if isinstance(it, list) else [it])
    return flat


#: The largest ``.dl`` file (main or included) read; anything bigger is refused, not read.
MAX_SOURCE_BYTES = 16 * 2 ** 20


def read_source(path: Path, include_loc: SourceLoc | None = None) -> str:
    """The text of the Datalog source ``path``, read as UTF-8.

    Raises
    ------
    DatalogError
        At ``include_loc`` (the ``#include`` naming the file) or at the file itself: it cannot
        be read, is not a regular file (a device, a pipe: reading could block or never end), is
        over :data:`MAX_SOURCE_BYTES`; or located at the first byte that is not UTF-8.
    """
    where = include_loc or SourceLoc(str(path))
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise DatalogError(f"cannot read {path}: it is a directory", where)
        if not stat.S_ISREG(st.st_mode):
            raise DatalogError(f"refusing to read {path}: not a regular file (a device, pipe "
                               "or socket)", where)
        if st.st_size > MAX_SOURCE_BYTES:
            raise DatalogError(f"refusing to read {path}: {st.st_size} bytes, over the "
                               f"{MAX_SOURCE_BYTES}-byte limit for a Datalog source", where)
        data = path.read_bytes()
    except OSError as exc:
        raise DatalogError(f"cannot read {path}: {exc.strerror}", where) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        col = len(data[start:exc.start].decode("utf-8", errors="replace")) + 1
        raise DatalogError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})",
                           SourceLoc(str(path), line, col)) from None


def parse_program(path: str | Path, text: str | None = None,
                  include_dirs: tuple = ()) -> Program:
    """Parse ``path`` (or ``text`` named as ``path``) and every file it ``#include``s, relative to
    the including file, else in the first of ``include_dirs`` that has it (Soufflé's ``-I``). An
    include cycle or a missing include is a located DatalogError."""
    program = Program()
    _parse_into(program, Path(path), text, stack=(), include_dirs=tuple(map(Path, include_dirs)))
    return program


def _include_path(including: Path, rel: str, include_dirs: tuple, loc: SourceLoc) -> Path:
    """Where ``#include "rel"`` in ``including`` is read from: beside the including file, else
    the first include directory that has it (as cpp's ``-I``).

    Raises
    ------
    DatalogError
        At the ``#include``, naming every place looked in, when none has the file.
    """
    beside = including.parent / rel
    if beside.exists() or Path(rel).is_absolute() or not include_dirs:
        return beside
    for d in include_dirs:
        if (d / rel).exists():
            return d / rel
    places = ", ".join(str(p) for p in (beside.parent,) + include_dirs)
    raise DatalogError(f'#include "{rel}": no such file (looked in {places})', loc)


def _parse_into(program: Program, path: Path, text: str | None, stack: tuple,
                include_loc: SourceLoc | None = None, include_dirs: tuple = ()) -> None:
    resolved = path.resolve() if text is None else path
    if text is None:
        text = read_source(path, include_loc)
    text = apply_conditionals(text, program.macros, str(path))  # include guards (#ifndef ...)
    if resolved in stack:
        if not _blank_strings_and_comments(text).strip():
            return  # re-included, but its include guard blanked it all
        raise DatalogError(f"#include cycle: {' -> '.join(str(p) for p in stack + (resolved,))}",
                           include_loc)
    program.files.append(str(path))
    previous = None
    for item in parse_text(text, str(path)):
        if isinstance(item, PlanHint):
            if not (isinstance(previous, Clause) and previous.body is not None):
                raise DatalogError(".plan must directly follow a rule", item.loc)
            program.plans.append((previous, item))
            previous = item
            continue
        previous = item
        if isinstance(item, tuple):
            _, rel, loc = item
            _parse_into(program, _include_path(path, rel, include_dirs, loc), None,
                        stack + (resolved,), loc, include_dirs)
        elif isinstance(item, Decl):
            program.decls.append(item)
        elif isinstance(item, TypeDecl):
            program.types.append(item)
        elif isinstance(item, IODirective):
            program.ios.append(item)
        else:
            program.clauses.append(item)
