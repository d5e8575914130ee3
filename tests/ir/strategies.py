"""Generators of valid PIR modules (IR.md), for reuse across the test suite.

``modules()`` is a hypothesis strategy; ``random_module(rng)`` builds the same kind of module
from a ``random.Random`` (10x faster, no shrinking: use it for bulk corpora). Both produce a
:class:`~pylogic.ir.model.Module` that ``verify_module`` accepts and that
``print_module``/``parse_module`` round-trip, covering every instruction kind, guards
(``p0``/``true`` included), predicate defines of all 12 deposit types with one or two
destinations, side exits, hyperblocks, annotations, globals of both initialiser forms, extern
(also variadic ``...``) declarations, and awkward but legal names (``%x``, ``@main``, ``%0``,
``$t``, ``.L1``, and registers called ``func``, ``ret``, ``pcmp.eq``...).

Usage::

    from tests.ir.strategies import modules, SAFE_KINDS
    @given(modules(acyclic=True, kinds=SAFE_KINDS, externs=False))
    def test_something(m): ...

With ``acyclic=True`` branches only go forward, the last block returns and calls only go to later
functions, so a run terminates (calls to externs still need interpreter builtins: pass
``externs=False`` to have none). ``kinds`` restricts the instruction kinds (names in
``ALL_KINDS``); ``SAFE_KINDS`` leaves out the ones that can fail at run time (div/rem,
memory, input, calls).
"""
from __future__ import annotations

import functools
import random

from hypothesis import strategies as st

from pylogic.ir.model import (
    BINARY_OPS, DEPOSIT_TYPES, MEMORY_SIZES, RELATIONS, TRUE_PREDICATES, UNARY_OPS, Alloca,
    BinOp, Block, Br, Call, Cmp, CondBr, Function, Global, GlobalAddr, Imm, Input, Load, Module,
    Mov, PredDefine, PredDest, Print, Reg, Ret, Select, Store, UnOp,
)

__all__ = ["modules", "random_module", "ALL_KINDS", "SAFE_KINDS", "TRICKY_NAMES"]

#: Legal identifiers that look like keywords or opcodes: the parser must not be confused.
TRICKY_NAMES = ("func", "global", "extern", "ret", "br", "cbr", "call", "mov", "add",
                "load.4u", "store", "pcmp.eq", "cmp.lt", "ut", "entry", ".L1", "$t", "%x",
                "@main", "_", "input", "print", "select", "%0", "@.str", "p1")

ALL_KINDS = frozenset(("mov", "binop", "divrem", "unop", "cmp", "select", "pcmp", "load",
                       "store", "alloca", "call", "input", "print", "side_exit"))
#: Kinds whose execution never fails at run time (no division, memory, input or calls).
SAFE_KINDS = frozenset(("mov", "binop", "unop", "cmp", "select", "pcmp", "print", "side_exit"))

_NON_DIV_OPS = tuple(op for op in BINARY_OPS if op not in ("div", "rem"))
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_FIRST = _LETTERS + "_.$"
_REST = _LETTERS + "0123456789_.$"
_STRING_CHARS = "ab ;#\"\\\n\t{}xyz09"
_INT64_SPECIAL = (-(1 << 63), (1 << 63) - 1, -1, 0, 255, 256)


# ---------------------------------------------------------------- choice sources

class _Chooser:
    """The few kinds of choice the generator makes; backed by hypothesis or by random."""

    def int(self, lo: int, hi: int) -> int:
        raise NotImplementedError

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def bool(self) -> bool:
        return self.int(0, 1) == 1

    def text(self, alphabet: str, lo: int, hi: int) -> str:
        return "".join(self.pick(alphabet) for _ in range(self.int(lo, hi)))

    def int64(self) -> int:
        kind = self.int(0, 2)
        if kind == 0:
            return self.int(-10, 300)
        if kind == 1:
            return self.pick(_INT64_SPECIAL)
        return self.int(-(1 << 63), (1 << 63) - 1)


@functools.lru_cache(maxsize=None)
def _ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)  # cached: building a strategy per draw is slow


class _DrawChooser(_Chooser):
    def __init__(self, draw):
        self.draw = draw

    def int(self, lo, hi):
        return self.draw(_ints(lo, hi))


class _RandomChooser(_Chooser):
    def __init__(self, rng: random.Random):
        self.rng = rng

    def int(self, lo, hi):
        return self.rng.randint(lo, hi)


# ---------------------------------------------------------------- pieces

def _identifier(c: _Chooser) -> str:
    if c.int(0, 3) == 0:
        return c.pick(TRICKY_NAMES)
    name = c.pick(("", "", "%", "@")) + c.pick(_FIRST) + c.text(_REST, 0, 5)
    return "p1" if name in TRUE_PREDICATES else name


def _unique_identifiers(c: _Chooser, n: int) -> list[str]:
    seen: dict[str, None] = {}
    for _ in range(4 * n):
        seen.setdefault(_identifier(c), None)
        if len(seen) == n:
            break
    names = list(seen)
    i = 0
    while len(names) < n:  # fall back to numbered names (not in the drawn shapes' way)
        if f"n{i}x" not in seen:
            names.append(f"n{i}x")
        i += 1
    return names


def _annotations(c: _Chooser) -> tuple:
    if c.int(0, 3):
        return ()
    return tuple((c.pick(_LETTERS + "_") + c.text(_REST + "-", 0, 4), c.text(_REST + ":/+-", 0, 6))
                 for _ in range(c.int(1, 2)))


def _global(c: _Chooser, name: str) -> Global:
    form = c.int(0, 2)
    if form == 0:
        data = c.text(_STRING_CHARS, 1, 10).encode()
        return Global(name=name, size=len(data) + 1, init=data)
    size = c.int(1, 24)
    if form == 1:
        return Global(name=name, size=size)
    init = bytes(c.pick((0, 1, 255, c.int(0, 255))) for _ in range(c.int(0, size)))
    return Global(name=name, size=size, init=init)


class _Ctx:
    """What one block's instructions may refer to."""

    def __init__(self, c, regs, preds, globals_names, labels, callees, block_index, acyclic,
                 kinds):
        self.c = c
        self.regs = regs
        self.pred_or_true = tuple(preds) + ("p0", "true")
        self.globals = globals_names
        self.labels = labels
        self.callees = callees  # [(name, params)]
        self.block_index = block_index
        self.acyclic = acyclic
        self.kinds = kinds
        self.operand_kinds = ("reg", "imm", "glob") if globals_names else ("reg", "imm")

    def operand(self):
        c = self.c
        kind = c.pick(self.operand_kinds)
        if kind == "reg":
            return Reg(c.pick(self.regs))
        if kind == "imm":
            return Imm(c.int64())
        return GlobalAddr(c.pick(self.globals))

    def can_branch(self) -> bool:
        return not self.acyclic or self.block_index + 1 < len(self.labels)

    def target(self) -> str:
        if self.acyclic:
            return self.c.pick(self.labels[self.block_index + 1:])
        return self.c.pick(self.labels)

    def guard(self, required: bool = False):
        if not required and self.c.int(0, 2):
            return None
        return self.c.pick(self.pred_or_true)


def _terminator(ctx: _Ctx, guard, annots):
    c = ctx.c
    kind = c.pick(("ret", "br", "cbr") if ctx.can_branch() else ("ret",))
    if kind == "br":
        return Br(target=ctx.target(), guard=guard, annotations=annots)
    if kind == "cbr":
        return CondBr(cond=ctx.operand(), if_true=ctx.target(), if_false=ctx.target(),
                      guard=guard, annotations=annots)
    value = ctx.operand() if c.bool() else None
    return Ret(value=value, guard=guard, annotations=annots)


def _instr(ctx: _Ctx):
    c = ctx.c
    kind = c.pick(ctx.kinds)
    annots = _annotations(c)
    if kind == "side_exit":
        if ctx.can_branch():
            return _terminator(ctx, ctx.guard(required=True), annots)
        kind = "print"
    common = {"guard": ctx.guard(), "annotations": annots}
    dest = c.pick(ctx.regs)
    if kind == "mov":
        return Mov(dest=dest, src=ctx.operand(), **common)
    if kind in ("binop", "divrem"):
        op = c.pick(BINARY_OPS if kind == "divrem" else _NON_DIV_OPS)
        return BinOp(op=op, dest=dest, a=ctx.operand(), b=ctx.operand(), **common)
    if kind == "unop":
        return UnOp(op=c.pick(UNARY_OPS), dest=dest, a=ctx.operand(), **common)
    if kind == "cmp":
        return Cmp(rel=c.pick(RELATIONS), dest=dest, a=ctx.operand(), b=ctx.operand(),
                   **common)
    if kind == "select":
        return Select(dest=dest, cond=ctx.operand(), a=ctx.operand(), b=ctx.operand(),
                      **common)
    if kind == "pcmp":
        names = [c.pick(ctx.pred_or_true)]
        if c.bool():
            second = c.pick(ctx.pred_or_true)
            if second != names[0]:
                names.append(second)
        dests = tuple(PredDest(n, c.pick(DEPOSIT_TYPES)) for n in names)
        return PredDefine(rel=c.pick(RELATIONS), dests=dests, a=ctx.operand(),
                          b=ctx.operand(), **common)
    if kind == "load":
        return Load(dest=dest, addr=ctx.operand(), size=c.pick(MEMORY_SIZES),
                    signed=c.bool(), **common)
    if kind == "store":
        return Store(addr=ctx.operand(), value=ctx.operand(), size=c.pick(MEMORY_SIZES),
                     **common)
    if kind == "alloca":
        return Alloca(dest=dest, size=Imm(c.int(0, 64)), **common)
    if kind == "call" and ctx.callees:
        name, params = c.pick(ctx.callees)
        n = len(params)
        if params and params[-1] == "...":
            n = n - 1 + c.int(0, 2)
        args = tuple(ctx.operand() for _ in range(n))
        return Call(dest=dest if c.bool() else None, callee=name, args=args, **common)
    if kind == "input":
        return Input(dest=dest, **common)
    return Print(value=ctx.operand(), **common)


def _function(c, name, params, regs, preds, global_names, callees, max_blocks, max_instrs,
              acyclic, kinds) -> Function:
    labels = tuple(_unique_identifiers(c, c.int(1, max_blocks)))
    blocks = []
    for index, label in enumerate(labels):
        ctx = _Ctx(c, regs, preds, global_names, labels, callees, index, acyclic, kinds)
        instrs = [_instr(ctx) for _ in range(c.int(0, max_instrs))]
        instrs.append(_terminator(ctx, None, _annotations(c)))
        blocks.append([label, instrs, c.bool(), _annotations(c)])
    # Every guard must name a predicate: define the ones no pcmp writes (IR.md).
    defined = {d.name for _, instrs, _, _ in blocks for ins in instrs
               if isinstance(ins, PredDefine) for d in ins.dests}
    used = {ins.guard for _, instrs, _, _ in blocks for ins in instrs if ins.guard is not None}
    missing = sorted(used - defined - TRUE_PREDICATES)
    blocks[0][1][:0] = [PredDefine(rel="eq", dests=(PredDest(p, "ut"),), a=Imm(0), b=Imm(0))
                        for p in missing]
    return Function(name=name, params=params,
                    blocks=tuple(Block(label=l, instrs=tuple(ins), hyperblock=h, annotations=a)
                                 for l, ins, h, a in blocks),
                    annotations=_annotations(c))


def _module(c: _Chooser, max_functions=3, max_blocks=4, max_instrs=5, max_globals=3,
            acyclic=False, kinds=ALL_KINDS, externs=True) -> Module:
    kinds = tuple(sorted(frozenset(kinds) & ALL_KINDS)) or ("print",)
    n_globals = c.int(0, max_globals)
    n_funcs = c.int(1, max_functions)
    n_externs = c.int(0, 2) if externs and "call" in kinds else 0
    total = n_funcs + n_externs
    # Globals, registers and predicates are disjoint (a register named like a global would
    # read as the global's address); function names may coincide with any of them.
    pool = _unique_identifiers(c, n_globals + 8)
    global_names = tuple(pool[:n_globals])
    regs = tuple(pool[n_globals:n_globals + 5])
    preds = tuple(pool[n_globals + 5:])
    names = _unique_identifiers(c, total)
    signatures = []
    for i, name in enumerate(names):
        params = tuple(dict.fromkeys(c.pick(regs) for _ in range(c.int(0, 3))))
        if i >= n_funcs and c.bool():
            params += ("...",)  # variadic extern (extension, see pylogic.ir.verify)
        signatures.append((name, params))
    globals_list = tuple(_global(c, n) for n in global_names)
    functions = []
    for i, (name, params) in enumerate(signatures):
        if i >= n_funcs:
            functions.append(Function(name=name, params=params, extern=True,
                                      annotations=_annotations(c)))
            continue
        callees = [s for j, s in enumerate(signatures) if not acyclic or j > i]
        functions.append(_function(c, name, params, regs, preds, global_names, callees,
                                   max_blocks, max_instrs, acyclic, kinds))
    order = list(range(len(functions)))
    for i in range(len(order) - 1, 0, -1):  # shuffle: externs and definitions interleave
        j = c.int(0, i)
        order[i], order[j] = order[j], order[i]
    return Module(functions=tuple(functions[k] for k in order), globals=globals_list)


# ---------------------------------------------------------------- public generators

@st.composite
def modules(draw, max_functions: int = 3, max_blocks: int = 4, max_instrs: int = 5,
            max_globals: int = 3, acyclic: bool = False, kinds=ALL_KINDS,
            externs: bool = True) -> Module:
    """Hypothesis strategy: a valid PIR module (verifies; round-trips printer -> parser).

    Parameters: size bounds; ``acyclic`` (forward branches only, no recursion: runs
    terminate); ``kinds`` (subset of ALL_KINDS); ``externs`` (also declare extern functions).
    """
    return _module(_DrawChooser(draw), max_functions, max_blocks, max_instrs, max_globals,
                   acyclic, kinds, externs)


def random_module(rng: random.Random, **options) -> Module:
    """Like :func:`modules` (same options) but driven by ``rng``: fast, reproducible from a
    seed, not shrinkable."""
    return _module(_RandomChooser(rng), **options)
