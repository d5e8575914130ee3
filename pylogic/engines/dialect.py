"""The Soufflé-dialect front end: a lark grammar, the AST (every node carries its SourceLoc), and
``parse_program`` which resolves ``#include`` and rejects constructs outside the supported subset
with a located message naming the construct (DESIGN.md "Datalog: one dialect, two engines")."""
from __future__ import annotations

import io
import re
import stat
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from hashlib import sha256
from pathlib import Path

import lark
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import VisitError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from pylogic.engines import floats
from pylogic.engines.preprocess import apply_conditionals
from pylogic.errors import DatalogError, SourceLoc
from pylogic.user_cache import Cache, program_root

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
    suffix: str = ""     # "u": an unsigned literal (5u); "f": a float, value is its key (floats.py)


@dataclass(frozen=True)
class Str:
    value: str
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class BinOp:
    """Arithmetic ``+ - * / %`` (Soufflé: 32-bit, C semantics for ``/`` and ``%``), ``^`` (power),
    bit operators ``band bor bxor bshl bshr bshru`` and logical ``land lor lxor``."""

    op: str
    left: object
    right: object
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Neg:
    operand: object
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Record:
    """A record ``[t1, t2, ...]`` (a clingo tuple; ``nil`` is the empty record of any type)."""

    args: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class AdtTerm:
    """An ADT value ``$Branch(t1, ...)`` (``$Branch`` for a branch without fields); a clingo
    function term ``adt_Branch(...)``."""

    branch: str
    args: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Nil:
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Call:
    """An intrinsic functor: ``cat(a, b)``, ``strlen(s)``, ``substr(s, i, n)``, ``to_number(s)``,
    ``to_string(n)``, ``min(a, b, ...)``, ``max(...)``, ``range(a, b[, step])`` (one value per
    element), and the unary ``bnot x``, ``lnot x``."""

    name: str
    args: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Test:
    """``match(pattern, text)`` / ``contains(part, text)`` as a body literal; ``negated`` after
    ``!`` (a bad regular expression makes both ``match`` and ``!match`` false, as in Soufflé)."""

    name: str
    args: tuple
    negated: bool
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
    """``.type T <: base`` (kind "sub"), ``.type T = A | B`` (kind "eq"), a record type
    ``.type T = [x: A, y: B]`` (kind "record": ``bases`` are the field types, ``fields`` their
    names) or an ADT ``.type T = A {x: N} | B {}`` (kind "adt": ``fields`` holds
    ``(branch, (field types...))`` per branch, ``bases`` every field type)."""

    name: str
    kind: str
    bases: tuple
    loc: SourceLoc = field(compare=False)
    fields: tuple = ()


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


@dataclass(frozen=True)
class Pragma:
    """``.pragma "key" "value"``: an option of the souffle binary set in the program. Only the
    ones that steer evaluation and leave the result unchanged are accepted; the clingo engine
    ignores them."""
    key: str
    value: str | None
    loc: SourceLoc = field(compare=False)


#: Soufflé options that only steer evaluation (the rows do not change): accepted and ignored.
EVALUATION_PRAGMAS = frozenset({"magic-transform", "magic-transform-exclude", "inline-exclude",
                                "no-warn", "jobs", "index-stats", "verbose"})

@dataclass(frozen=True)
class CompParams:
    names: tuple


@dataclass(frozen=True)
class CompRef:
    """``Name<T1, ...>``: a component with its type arguments (a base or an ``.init``)."""
    name: str
    args: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class CompDecl:
    """``.comp Name<params> : Base<args>, ... { items }`` (expanded away by ``components.py``)."""
    name: str
    params: tuple
    bases: tuple
    items: tuple
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Init:
    """``.init name = Comp<args>``."""
    name: str
    comp: CompRef
    loc: SourceLoc = field(compare=False)


@dataclass(frozen=True)
class Override:
    """``.override Rel`` inside a component: the bases' clauses of Rel are dropped."""
    rel: str
    loc: SourceLoc = field(compare=False)


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


def signed_body_atoms(lits, aggregated: bool | None = None):
    """``(atom, positive)`` for every atom of a normalized rule body, those under negations
    (``positive`` False) and aggregates too: there with their own sign, or ``aggregated`` when
    given (False: an aggregate's atoms bind no variable of the rule)."""
    for lit in lits:
        if isinstance(lit, Atom):
            yield lit, True
        elif isinstance(lit, NegAtom):
            yield lit.atom, False
        elif isinstance(lit, AggLit):
            for atom, positive in signed_body_atoms(lit.body):
                yield atom, positive if aggregated is None else aggregated


def body_atoms(lits):
    """The atoms of a normalized rule body, those under negations and aggregates too."""
    return (atom for atom, _ in signed_body_atoms(lits))


@dataclass
class Program:
    """A parsed program with its includes resolved (items in file order, includes inlined)."""

    decls: list = field(default_factory=list)
    types: list = field(default_factory=list)
    ios: list = field(default_factory=list)
    clauses: list = field(default_factory=list)
    files: list = field(default_factory=list)  # every file read, main first
    macros: dict = field(default_factory=dict)  # #define'd name -> replacement ("" for guards)
    plans: list = field(default_factory=list)  # (Clause, PlanHint): each .plan and its rule
    pragmas: list = field(default_factory=list)  # Pragma, accepted and ignored
    components: list = field(default_factory=list)  # top-level CompDecl and Init, in order

# ---- grammar ---------------------------------------------------------------------------------


GRAMMAR = r"""
start: _item*
_item: decl | type_decl | io | clause | include | plan | pragma | comp | init | override

comp: ".comp" IDENT comp_params? (":" comp_ref ("," comp_ref)*)? "{" _item* "}"
comp_params: "<" IDENT ("," IDENT)* ">"
comp_ref: IDENT ("<" IDENT ("," IDENT)* ">")?
init: ".init" IDENT "=" comp_ref
override: ".override" IDENT

include: INCLUDE
decl: ".decl" _names "(" [attr ("," attr)*] ")" QUALIFIER*
attr: IDENT ":" IDENT
_names: IDENT ("," IDENT)*
type_decl: ".type" IDENT "<:" IDENT              -> subtype
         | ".type" IDENT "=" IDENT ("|" IDENT)*  -> eqtype
         | ".type" IDENT "=" "[" [attr ("," attr)*] "]" -> recordtype
         | ".type" IDENT "=" adt_branch ("|" adt_branch)* -> adttype
         | ".number_type" IDENT                  -> number_type
         | ".symbol_type" IDENT                  -> symbol_type
adt_branch: IDENT "{" [attr ("," attr)*] "}"
io: IO_KW _names io_params?
io_params: "(" [kv ("," kv)*] ")"
kv: IDENT "=" (STRING | IDENT | NUMBER)

pragma: PRAGMA STRING STRING?

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
    | TEST_KW "(" term "," term ")" -> test
    | TRUE                 -> true
    | FALSE                -> false

?term: lor
// Soufflé's precedence (parser.yy), lowest first; ^ is right-associative above unary minus
?lor: lor LOR lxor          -> binop
    | lxor
?lxor: lxor LXOR land       -> binop
     | land
?land: land LAND bor        -> binop
     | bor
?bor: bor BOR bxor          -> binop
    | bxor
?bxor: bxor BXOR band       -> binop
     | band
?band: band BAND shift      -> binop
     | shift
?shift: shift SHIFT sum     -> binop
      | sum
?sum: sum ADDOP prod       -> binop
    | prod
?prod: prod MULOP unary    -> binop
     | unary
?unary: "-" unary          -> neg
      | UNARY_KW unary     -> unary_call
      | power
?power: primary CARET unary -> binop
      | primary
?primary: IDENT            -> var
        | NUMBER           -> num
        | STRING           -> string
        | "(" term ")"
        | FUNCTOR "(" [term ("," term)*] ")" -> call
        | "[" [term ("," term)*] "]" -> record
        | NIL              -> nil
        | "$" IDENT ("(" [term ("," term)*] ")")? -> adt
        | aggregate
aggregate: AGG ":" agg_body
         | AGG term ":" agg_body
?agg_body: atom
         | "{" disj "}"

INCLUDE: /#include[ \t]*"[^"\n]*"/
PRAGMA.2: ".pragma"
IO_KW.2: ".input" | ".output" | ".printsize"
QUALIFIER.2: /(brie|btree_delete|btree|eqrel|inline|no_inline|magic|no_magic|overridable)\b/
AGG.2: /(count|sum|min|max|mean)\b/
FUNCTOR.3: /(cat|strlen|substr|to_number|to_string|to_unsigned|to_float|ord|autoinc|min|max|range)(?=\s*\()/
NIL.2: /nil\b/
TEST_KW.3: /(match|contains)(?=\s*\()/
UNARY_KW.2: /(bnot|lnot)\b/
LOR.2: /lor\b/
LXOR.2: /lxor\b/
LAND.2: /land\b/
BOR.2: /bor\b/
BXOR.2: /bxor\b/
BAND.2: /band\b/
SHIFT.2: /(bshru|bshr|bshl)\b/
CARET: "^"
TRUE.2: /true\b/
FALSE.2: /false\b/
IDENT: /[_?a-zA-Z][_?a-zA-Z0-9]*(\.[_?a-zA-Z][_?a-zA-Z0-9]*)*/
NUMBER: /([0-9]+\.[0-9]+|0x[0-9a-fA-F]+|0b[01]+|[0-9]+u?)(?![0-9A-Za-z_])/
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


#: How the parser is built (with GRAMMAR and lark's and Python's versions: its cache key).
_LARK_OPTIONS = dict(parser="lalr", lexer="contextual", propagate_positions=True,
                     maybe_placeholders=True)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The dialect's LALR parser. Building its tables takes about 0.25 s, more than the rest of a
    small ``pathlogic query``; a copy saved by ``Lark.save`` loads in about 15 ms. The copy is kept
    in the user cache (``pylogic/user_cache.py``, ``program_root``) under the SHA-256
    of what the tables depend on; an unreadable copy is rebuilt and saved again."""
    cache = Cache(program_root())
    key = sha256(repr((GRAMMAR, sorted(_LARK_OPTIONS.items()), lark.__version__,
                       sys.version_info[:2])).encode()).hexdigest()
    saved = cache.get("parsers", key)
    if saved is not None:
        try:
            return Lark.load(io.BytesIO(saved))
        except Exception:  # noqa: BLE001 -- damaged: rebuilt below
            pass
    parser = Lark(GRAMMAR, **_LARK_OPTIONS)
    out = io.BytesIO()
    parser.save(out)
    cache.put("parsers", key, out.getvalue())
    return parser

def pattern_vars(term) -> list:
    """(AST helper) The variables a term binds by matching (a variable, or one inside a record of such)."""
    if isinstance(term, Var):
        return [term]
    if isinstance(term, (Record, AdtTerm)):
        return [v for a in term.args for v in pattern_vars(a)]
    return []


# ---- unsupported constructs, found before parsing (comments and strings blanked) ---------------


_UNSUPPORTED = [
    (re.compile(r"^[ \t]*(#[ \t]*(?!include\b)\w+)", re.M), "preprocessor directive '{0}'"),
    (re.compile(r"(\.(functor|lattice|limitsize))\b"),
     "'{0}' directive"),
    # Soufflé's choice keeps the first tuple its own evaluation order derives per key (measured:
    # choice_colourable's expected answer is a failed colouring); no engine-independent meaning
    (re.compile(r"\bchoice-domain\b"), "choice-domain (Soufflé keeps the first tuple its own "
                                        "evaluation order derives)"),
    (re.compile(r"@\w+"), "user-defined functor '{0}'"),
    (re.compile(r"\b(itof|itou|ftoi|ftou|utoi|utof|as)\s*\("),
     "functor '{0}'"),
    (re.compile(r"(\.include)\b"), "'{0}' directive (#include is supported)"),
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
    if s.endswith("u"):                 # unsigned: 0 .. 2^32-1
        s = s[:-1]
        value = int(s, 16) if s.startswith("0x") else int(s, 2) if s.startswith("0b") else int(s)
        if value > 2 ** 32 - 1:
            raise DatalogError(f"unsigned constant {s}u is outside the 32-bit range", loc)
        return value
    value = int(s, 16) if s.startswith("0x") else int(s, 2) if s.startswith("0b") else int(s)
    if value > 2 ** 32 - 1:   # a number's range (2^31-1; -2^31 as -(2147483648)) is checked
        raise DatalogError(f"number constant {s} is outside the 32-bit range", loc)  # by type
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
    def pragma(self, meta, children):
        key = _unescape(str(children[1]))
        value = _unescape(str(children[2])) if len(children) > 2 else None
        if key not in EVALUATION_PRAGMAS:
            raise DatalogError(f"unsupported construct: .pragma \"{key}\" (only the pragmas "
                               f"that steer evaluation are accepted: "
                               f"{', '.join(sorted(EVALUATION_PRAGMAS))})", self._loc(meta))
        return Pragma(key, value, self._loc(meta))

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
                if "." in str(c):           # Soufflé: a syntax error; instances declare them
                    raise DatalogError(f"qualified name '{c}' in a .decl (relations of a "
                                       "component instance are declared by the component)",
                                       self._loc(c))
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
    def recordtype(self, meta, c):
        fields = tuple(f for f in c[1:] if f is not None)
        return TypeDecl(str(c[0]), "record", tuple(t for _, t in fields), self._loc(meta),
                        tuple(n for n, _ in fields))

    @v_args(meta=True)
    def adttype(self, meta, c):
        branches = tuple(c[1:])
        return TypeDecl(str(c[0]), "adt", tuple(t for _, fs in branches for t in fs),
                        self._loc(meta), branches)

    def adt_branch(self, c):
        return (str(c[0]), tuple(t for f in c[1:] if f is not None for t in [f[1]]))

    @v_args(meta=True)
    def adt(self, meta, children):
        return AdtTerm(str(children[0]), tuple(c for c in children[1:] if c is not None),
                       self._loc(meta))

    @v_args(meta=True)
    def record(self, meta, children):
        return Record(tuple(c for c in children if c is not None), self._loc(meta))

    @v_args(meta=True)
    def nil(self, meta, children):
        return Nil(self._loc(meta))

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
        if isinstance(x, Num) and not x.suffix:  # fold so that -2147483648 is a constant
            self.unnegated.pop(id(x), None)
            if -x.value < INT32_MIN:
                raise DatalogError("number constant is outside the 32-bit range", x.loc)
            return Num(-x.value, self._loc(meta))
        return Neg(x, self._loc(meta))

    @v_args(meta=True)
    def comp(self, meta, children):
        name = str(children[0])
        params, bases, items = (), [], []
        for c in children[1:]:
            if isinstance(c, CompParams):
                params = c.names
            elif isinstance(c, CompRef):
                bases.append(c)
            elif isinstance(c, list):
                items.extend(c)
            elif c is not None:
                items.append(c)
        return CompDecl(name, params, tuple(bases), tuple(items), self._loc(meta))

    def comp_params(self, children):
        return CompParams(tuple(str(c) for c in children))

    @v_args(meta=True)
    def comp_ref(self, meta, children):
        return CompRef(str(children[0]), tuple(str(c) for c in children[1:] if c is not None),
                       self._loc(meta))

    @v_args(meta=True)
    def init(self, meta, children):
        return Init(str(children[0]), children[1], self._loc(meta))

    @v_args(meta=True)
    def override(self, meta, children):
        return Override(str(children[0]), self._loc(meta))

    @v_args(meta=True)
    def call(self, meta, children):
        name = str(children[0])
        args = tuple(c for c in children[1:] if c is not None)
        arity = _FUNCTOR_ARITY[name]
        if not arity[0] <= len(args) <= arity[1]:
            want = str(arity[0]) if arity[0] == arity[1] else \
                f"{arity[0]} or more" if arity[1] > 99 else f"{arity[0]} to {arity[1]}"
            raise DatalogError(f"functor '{name}' takes {want} argument(s), not {len(args)}",
                               self._loc(meta))
        return Call(name, args, self._loc(meta))

    @v_args(meta=True)
    def unary_call(self, meta, children):
        return Call(str(children[0]), (children[1],), self._loc(meta))

    @v_args(meta=True)
    def test(self, meta, children):
        return Test(str(children[0]), (children[1], children[2]), False, self._loc(meta))

    def var(self, children):
        tok = children[0]
        loc = self._loc(tok)
        if "." in str(tok):
            raise DatalogError(f"qualified name '{tok}' used as a variable", loc)
        return Wildcard(loc) if str(tok) == "_" else Var(str(tok), loc)

    def num(self, children):
        loc = self._loc(children[0])
        if "." in str(children[0]):     # a float: its key (floats.py), typed by the checker
            return Num(floats.parse(str(children[0])), loc, "f")
        value = _parse_int(children[0], loc)
        if str(children[0]).endswith("u"):
            return Num(value, loc, "u")
        num = Num(value, loc)
        # above 2^31-1: an unsigned value, or -2147483648 once negated (neg); checked by type
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


#: Argument counts of the intrinsic functors (min, max, cat: one or more).
_FUNCTOR_ARITY = {"to_float": (1, 1), "ord": (1, 1), "autoinc": (0, 0), "cat": (1, 999), "strlen": (1, 1), "substr": (3, 3), "to_number": (1, 1),
                  "to_string": (1, 1), "min": (1, 999), "max": (1, 999), "range": (2, 3),
                  "to_unsigned": (1, 1)}

_TOKEN_NAMES = {"ADDOP": "'+'/'-'", "MULOP": "'*'/'/'/'%'", "CMP": "a comparison", "COLON": "':'",
                "COMMA": "','", "DOT": "'.'", "RBRACE": "'}'", "LBRACE": "'{'", "RPAR": "')'",
                "LPAR": "'('", "IDENT": "a name", "NUMBER": "a number", "STRING": "a string",
                "AGG": "an aggregate", "NIL": "nil", "LSQB": "'['", "RSQB": "']'", "MINUS": "'-'", "SEMICOLON": "';'", "IF": "':-'",
                "BANG": "'!'", "TRUE": "true", "FALSE": "false", "QUALIFIER": "a qualifier",
                "INCLUDE": "#include", "IO_KW": "a directive", "PRAGMA": ".pragma", "VBAR": "'|'", "EQUAL": "'='"}


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
    ``("include", path, loc)`` tuples). Raises DatalogError with a location.

    The items are immutable, so a text parsed before is not parsed again: the shipped programs
    include the same libraries (``lib/dominator_tree.dl`` ...), and the catalog's 17 programs
    made 99 parses of 25 files."""
    return list(_parsed_items(text, filename))


@lru_cache(maxsize=256)
def _parsed_items(text: str, filename: str) -> tuple:
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
    return tuple(flat)


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
    include cycle or a missing include is a located DatalogError. Components stay in
    ``program.components`` (``components.expand_components`` expands them)."""
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
        if isinstance(item, Pragma):
            program.pragmas.append(item)
            continue
        if isinstance(item, (CompDecl, Init)):
            program.components.append(item)
            previous = item
            continue
        if isinstance(item, Override):
            raise DatalogError(".override outside a component", item.loc)
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
