"""The PIR data model (docs/pir.md). Immutable: transformations build new modules.

Equality ignores source locations, so ``parse(print(m)) == m`` is meaningful.
Register, predicate, label, global and function names are plain ``str`` and keep
their ``%``/``@`` prefix. Integer literals are normalised to signed 64-bit.
"""
from __future__ import annotations

import re
from dataclasses import MISSING, dataclass, field, fields, is_dataclass, replace
from typing import Any, Callable, Optional, Union

from pylogic.errors import SourceLoc

#: The 64-bit two's complement value domain (docs/pir.md "Lexical"); operators: ``pylogic.ir.ops``.
MASK64 = (1 << 64) - 1
MIN64 = -(1 << 63)
MAX64 = (1 << 63) - 1

#: Predicate names that always read 1; writes to them are discarded (docs/pir.md).
TRUE_PREDICATES = frozenset({"p0", "true"})

BINARY_OPS = ("add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "sar")
UNARY_OPS = ("neg", "not")
RELATIONS = ("eq", "ne", "lt", "le", "gt", "ge", "ltu", "leu", "gtu", "geu")
#: Canonical deposit type names (PAS Table 1). Aliases live in deposit_types.py.
DEPOSIT_TYPES = ("ut", "uf", "ot", "of", "at", "af", "ct", "cf",
                 "disjt", "disjf", "conjt", "conjf")
MEMORY_SIZES = (1, 2, 4, 8)


def to_signed64(value: int) -> int:
    """Wrap an integer to 64-bit two's complement."""
    value &= MASK64
    return value - (1 << 64) if value >> 63 else value


# ---------------------------------------------------------------- operands

@dataclass(frozen=True)
class Reg:
    """A register (or predicate register) read."""
    name: str

    def __str__(self) -> str:
        return self.name

    # the dataclass's own ``__eq__`` (the same test) is a Python function; this one is compiled
    # (pylogic.compiled_modules): operands are compared by every ``in`` test of a tuple of
    # leaves (``value_names``: 1% of the PRE pipeline on csmith, issue #28 item 1); ``__hash__``
    # stays the dataclass's
    def __eq__(self, other):
        return self.name == other.name if other.__class__ is Reg else NotImplemented


@dataclass(frozen=True)
class Imm:
    """An integer literal (signed 64-bit)."""
    value: int

    def __post_init__(self):
        value = self.value
        if type(value) is not int or not MIN64 <= value <= MAX64:   # else already as wrapped
            object.__setattr__(self, "value", to_signed64(value))

    def __str__(self) -> str:
        return str(self.value)

    def __eq__(self, other):        # compiled, as ``Reg.__eq__``
        return self.value == other.value if other.__class__ is Imm else NotImplemented


@dataclass(frozen=True)
class GlobalAddr:
    """A global's name used as an operand: evaluates to its address."""
    name: str

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other):        # compiled, as ``Reg.__eq__``
        return self.name == other.name if other.__class__ is GlobalAddr else NotImplemented


Operand = Union[Reg, Imm, GlobalAddr]

Annotations = tuple  # tuple[tuple[str, str], ...] of `#key=value`, in source order


# ---------------------------------------------------------------- instructions

@dataclass(frozen=True, kw_only=True)
class Instr:
    """Base of every instruction. ``guard`` is a predicate name or None (unguarded)."""
    guard: Optional[str] = None
    annotations: Annotations = ()
    loc: Optional[SourceLoc] = field(default=None, compare=False, repr=False)

    # Subclasses override these to describe themselves uniformly (facts, interpreter, verifier).
    def defs(self) -> tuple[str, ...]:
        """Registers written (predicate destinations included)."""
        return ()

    def uses(self) -> tuple[Operand, ...]:
        """Operands read, guard excluded."""
        return ()

    @property
    def is_terminator(self) -> bool:
        return False

    @property
    def opcode(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class Mov(Instr):
    dest: str
    src: Operand
    opcode = "mov"

    def defs(self): return (self.dest,)
    def uses(self): return (self.src,)


@dataclass(frozen=True, kw_only=True)
class BinOp(Instr):
    op: str  # one of BINARY_OPS
    dest: str
    a: Operand
    b: Operand

    @property
    def opcode(self): return self.op
    def defs(self): return (self.dest,)
    def uses(self): return (self.a, self.b)


@dataclass(frozen=True, kw_only=True)
class UnOp(Instr):
    op: str  # neg | not
    dest: str
    a: Operand

    @property
    def opcode(self): return self.op
    def defs(self): return (self.dest,)
    def uses(self): return (self.a,)


@dataclass(frozen=True, kw_only=True)
class Cmp(Instr):
    """``R = cmp.REL A, B``: 0/1 into an ordinary register."""
    rel: str
    dest: str
    a: Operand
    b: Operand
    opcode = "cmp"

    def defs(self): return (self.dest,)
    def uses(self): return (self.a, self.b)


@dataclass(frozen=True, kw_only=True)
class Select(Instr):
    dest: str
    cond: Operand
    a: Operand
    b: Operand
    opcode = "select"

    def defs(self): return (self.dest,)
    def uses(self): return (self.cond, self.a, self.b)


@dataclass(frozen=True)
class PredDest:
    """One destination of a predicate define and its deposit type (canonical name)."""
    name: str
    dtype: str


@dataclass(frozen=True, kw_only=True)
class PredDefine(Instr):
    """``(G) D1:T1 [, D2:T2] = pcmp.REL A, B`` (IMPACT EPIC predicate define)."""
    rel: str
    dests: tuple  # tuple[PredDest, ...], one or two
    a: Operand
    b: Operand
    opcode = "pcmp"

    def defs(self): return tuple(d.name for d in self.dests)
    def uses(self): return (self.a, self.b)


@dataclass(frozen=True, kw_only=True)
class Load(Instr):
    dest: str
    addr: Operand
    size: int = 8
    signed: bool = True
    opcode = "load"

    def defs(self): return (self.dest,)
    def uses(self): return (self.addr,)


@dataclass(frozen=True, kw_only=True)
class Store(Instr):
    addr: Operand
    value: Operand
    size: int = 8
    opcode = "store"

    def uses(self): return (self.addr, self.value)


@dataclass(frozen=True, kw_only=True)
class Alloca(Instr):
    dest: str
    size: Operand
    opcode = "alloca"

    def defs(self): return (self.dest,)
    def uses(self): return (self.size,)


@dataclass(frozen=True, kw_only=True)
class Call(Instr):
    """``[R =] call F(A, ...)``; with ``to L0, L1, ...`` (pathlogic's exit-splitting extension
    of docs/pir.md, PathFinder §7.4) the call ends its block and continues at ``continuations[k]``
    when the callee returns through ``ret.k``."""
    dest: Optional[str]
    callee: str
    args: tuple = ()  # tuple[Operand, ...]
    continuations: tuple = ()  # tuple[str, ...]: labels per exit number; () = an ordinary call
    opcode = "call"

    def defs(self): return (self.dest,) if self.dest is not None else ()
    def uses(self): return tuple(self.args)

    @property
    def is_terminator(self): return bool(self.continuations)


@dataclass(frozen=True, kw_only=True)
class Input(Instr):
    dest: str
    opcode = "input"

    def defs(self): return (self.dest,)


@dataclass(frozen=True, kw_only=True)
class Print(Instr):
    value: Operand
    opcode = "print"

    def uses(self): return (self.value,)


@dataclass(frozen=True, kw_only=True)
class Br(Instr):
    """``br L``; guarded it is a side exit."""
    target: str
    opcode = "br"

    @property
    def is_terminator(self): return True


@dataclass(frozen=True, kw_only=True)
class CondBr(Instr):
    cond: Operand
    if_true: str
    if_false: str
    opcode = "cbr"

    def uses(self): return (self.cond,)

    @property
    def is_terminator(self): return True


@dataclass(frozen=True, kw_only=True)
class Ret(Instr):
    """``ret [A]``; ``ret.N [A]`` (N >= 1, pathlogic's exit-splitting extension) returns through
    exit N: the caller's call continues at its N-th continuation label. Exit N >= 1 costs one
    load (the return-points array of PathFinder §7.4); ``ret`` is exit 0."""
    value: Optional[Operand] = None
    exit: int = 0
    opcode = "ret"

    def uses(self): return (self.value,) if self.value is not None else ()

    @property
    def is_terminator(self): return True


def branch_targets(instr: Instr) -> tuple[str, ...]:
    """Labels an instruction may transfer control to."""
    kind = type(instr)          # the classes have no subclasses: one test for most instructions
    if kind not in BRANCHING_CLASSES:
        return ()
    if kind is Br:
        return (instr.target,)
    if kind is CondBr:
        return (instr.if_true, instr.if_false)
    return instr.continuations


#: the instruction classes ``branch_targets`` may give labels for (for per-class dispatch)
BRANCHING = (Br, CondBr, Call)
#: the same as a set, for ``type(ins) in`` tests (the classes have no subclasses)
BRANCHING_CLASSES = frozenset(BRANCHING)


def retargeted(instr: Instr, where: dict) -> Instr:
    """``instr`` with the labels it may transfer control to renamed by ``where`` (old label ->
    new label); ``instr`` itself when it names none of them."""
    if not any(t in where for t in branch_targets(instr)):
        return instr
    if isinstance(instr, Br):
        return replace(instr, target=where.get(instr.target, instr.target))
    if isinstance(instr, CondBr):
        return replace(instr, if_true=where.get(instr.if_true, instr.if_true),
                       if_false=where.get(instr.if_false, instr.if_false))
    return replace(instr, continuations=tuple(where.get(t, t) for t in instr.continuations))



#: the fields holding each instruction class's operands, in ``uses()`` order (``Call``: its
#: ``args``; ``Ret``'s ``value`` may be None)
_OPERAND_FIELDS = {Mov: ("src",), BinOp: ("a", "b"), UnOp: ("a",), Cmp: ("a", "b"),
                   Select: ("cond", "a", "b"), PredDefine: ("a", "b"), Load: ("addr",),
                   Store: ("addr", "value"), Alloca: ("size",), Print: ("value",),
                   CondBr: ("cond",), Ret: ("value",)}


def with_operands(instr: Instr, f: Callable) -> Instr:
    """``instr`` with each operand ``a`` it reads (``uses()``: the guard is not an operand)
    replaced by ``f(a)``, called in ``uses()`` order; ``instr`` itself when ``f`` gives every
    operand back itself (``retargeted``'s twin for labels)."""
    if isinstance(instr, Call):
        args = tuple(f(a) for a in instr.args)
        if type(instr.args) is tuple and all(x is y for x, y in zip(args, instr.args)):
            return instr
        return replace(instr, args=args)
    changes = {}
    for name in _OPERAND_FIELDS.get(type(instr), ()):
        a = getattr(instr, name)
        if a is not None:
            b = f(a)
            if b is not a:
                changes[name] = b
    return replace(instr, **changes) if changes else instr

# ---------------------------------------------------------------- containers

@dataclass(frozen=True, kw_only=True)
class Block:
    label: str
    instrs: tuple = ()  # tuple[Instr, ...]
    hyperblock: bool = False
    annotations: Annotations = ()
    loc: Optional[SourceLoc] = field(default=None, compare=False, repr=False)

    def derived(self, name: str, compute: Callable[["Block"], Any]) -> Any:
        """``compute(self)``, computed once per block object and kept in its ``__dict__`` under
        ``name`` (outside the fields, so equality, hashing and printing ignore it): a block is
        immutable, so what is derived from it alone stays true as long as it lives, and the
        passes' rounds ask again for the blocks they left alone (issue #28 item 1)."""
        got = self.__dict__.get(name)
        if got is None:
            got = self.__dict__[name] = compute(self)
        return got

    def with_instrs(self, instrs) -> "Block":
        """This block holding ``instrs``: the block itself when they are its own instructions,
        so what is derived from it (``derived``) stays with an unchanged block."""
        if len(instrs) == len(self.instrs) and all(a is b for a, b in zip(instrs, self.instrs)):
            return self
        return replace(self, instrs=tuple(instrs))

    def successors(self) -> tuple[str, ...]:
        """CFG successors in order, side exits included, without duplicates (``derived``: every
        CFG walk asks again)."""
        got = self.__dict__.get("_successors")     # ``derived`` inlined: the most asked
        if got is None:
            got = self.__dict__["_successors"] = _successors(self)
        return got

    def callees(self) -> frozenset:
        """The functions this block's calls name (``derived``: the passes' rounds ask for the
        blocks they left alone again)."""
        return self.derived("_callees", _callees)


def _callees(block: Block) -> frozenset:
    return frozenset(ins.callee for ins in block.instrs if isinstance(ins, Call))


def _successors(block: Block) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for ins in block.instrs:
        for t in branch_targets(ins):
            seen.setdefault(t, None)
    return tuple(seen)


#: ``sN`` / ``uN`` (1 <= N <= 63): a typed parameter (docs/pir.md "Extensions").
_PARAM_TYPE = re.compile(r"([su])([1-9][0-9]?)\Z")


def param_type_range(ptype: str) -> Optional[tuple[int, int]]:
    """``(lo, hi)``: the values a parameter of type ``sN`` (sign-extended N-bit: -2**(N-1) ..
    2**(N-1)-1) or ``uN`` (zero-extended: 0 .. 2**N-1) may hold; None for an untyped (``""``)
    or malformed type."""
    m = _PARAM_TYPE.match(ptype)
    if not m or int(m.group(2)) > 63:
        return None
    n = int(m.group(2))
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if m.group(1) == "s" else (0, (1 << n) - 1)


@dataclass(frozen=True, kw_only=True)
class Function:
    name: str
    params: tuple = ()  # tuple[str, ...]
    blocks: tuple = ()  # tuple[Block, ...]; empty for extern
    extern: bool = False
    annotations: Annotations = ()
    loc: Optional[SourceLoc] = field(default=None, compare=False, repr=False)
    #: () or one type per parameter: "" (any 64-bit value) or "sN"/"uN" (``param_type_range``);
    #: a call whose argument lies outside its parameter's range is a run-time error
    param_types: tuple = ()

    def param_ranges(self) -> dict[str, tuple[int, int]]:
        """``{parameter: (lo, hi)}`` for the typed parameters."""
        out = {}
        for p, t in zip(self.params, self.param_types):
            r = param_type_range(t) if t else None
            if r is not None:
                out[p] = r
        return out

    @property
    def entry(self) -> Optional[Block]:
        return self.blocks[0] if self.blocks else None

    def block_map(self) -> dict[str, Block]:
        return {b.label: b for b in self.blocks}

    def callees(self) -> frozenset:
        """The functions this function's calls name (its blocks' ``callees``)."""
        return frozenset().union(*(b.callees() for b in self.blocks))

    def instruction_count(self) -> int:
        """Static size: the instructions of every block (the passes' growth limits count it)."""
        return sum(len(b.instrs) for b in self.blocks)

    def edges(self) -> list[tuple[str, str]]:
        """CFG edges (side exits included), each once, in block order."""
        return [(b.label, s) for b in self.blocks for s in b.successors()]


@dataclass(frozen=True, kw_only=True)
class Global:
    """``global NAME[SIZE]`` with initial bytes ``init`` (shorter than SIZE; rest zero);
    ``const``: ``const global ...``, its bytes never change (a store into it is a run-time error;
    docs/pir.md "Extensions")."""
    name: str
    size: int
    init: bytes = b""
    loc: Optional[SourceLoc] = field(default=None, compare=False, repr=False)
    const: bool = False

    def __post_init__(self):
        object.__setattr__(self, "init", bytes(self.init).rstrip(b"\0"))


@dataclass(frozen=True, kw_only=True)
class Module:
    functions: tuple = ()  # tuple[Function, ...]
    globals: tuple = ()  # tuple[Global, ...]
    path: str = field(default="<input>", compare=False)

    def function_map(self) -> dict[str, Function]:
        return {f.name: f for f in self.functions}

    def global_map(self) -> dict[str, Global]:
        return {g.name: g for g in self.globals}

    def defined_functions(self) -> list[Function]:
        return [f for f in self.functions if not f.extern]


def uses_exit_splitting(module: Module) -> bool:
    """Whether ``module`` uses pathlogic's exit-splitting extension (``ret.N`` with N >= 1 or a
    call with continuations; docs/pir.md "Extensions")."""
    return any((isinstance(ins, Ret) and ins.exit) or (isinstance(ins, Call) and ins.continuations)
               for fn in module.functions for b in fn.blocks for ins in b.instrs)


# ---------------------------------------------------------------- construction

def _dict_init(cls) -> None:
    """Give the frozen dataclass ``cls`` an ``__init__`` with the generated one's signature,
    defaults, field order and ``__post_init__`` call that stores the fields into the instance's
    ``__dict__`` directly. The generated one assigns each field through ``object.__setattr__``
    (frozen: Python's dataclasses.py, ``_field_init``), a call per field: about half of building
    an instruction, 236k of them in the LLVM import of csmith 1-40 (#32)."""
    params, kw_only, body, env = ["self"], False, [], {}
    for f in fields(cls):
        if not f.init:
            raise TypeError(f"{cls.__name__}.{f.name}: only init fields are supported")
        if f.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: no default factories")
        if f.kw_only and not kw_only:
            params.append("*")
            kw_only = True
        if f.default is MISSING:
            params.append(f.name)
        else:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        body.append(f"    d[{f.name!r}] = {f.name}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    text = f"def __init__({', '.join(params)}):\n    d = self.__dict__\n" + "\n".join(body)
    exec(text, env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    cls.__init__ = init


for _cls in [c for c in list(globals().values())
             if isinstance(c, type) and is_dataclass(c) and c.__module__ == __name__]:
    _dict_init(_cls)
del _cls
