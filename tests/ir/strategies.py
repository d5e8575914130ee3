"""Hypothesis strategies generating valid PIR modules (IR.md), for reuse across the test suite.

``modules()`` draws a :class:`~pylogic.ir.model.Module` that ``verify_module`` accepts and that
``print_module``/``parse_module`` round-trip: every instruction kind, guards (``p0``/``true``
included), predicate defines of all 12 deposit types with one or two destinations, side exits,
hyperblocks, annotations, globals of both initialiser forms, extern (also variadic ``...``)
declarations, and awkward but legal names (``%x``, ``@main``, ``$t``, ``.L1``, ``func``,
``ret``, ``pcmp.eq`` as a register...).

Usage::

    from tests.ir.strategies import modules
    @given(modules(acyclic=True, kinds=SAFE_KINDS))
    def test_something(m): ...

With ``acyclic=True`` branches only go forward, the last block returns and calls only go to later
functions or externs, so a run terminates (calls to externs still need interpreter builtins).
``kinds`` restricts the instruction kinds drawn (names in ``ALL_KINDS``); ``SAFE_KINDS`` leaves out
those that can fail at run time (div/rem by zero excluded by construction: only BinOps whose op is
not div/rem are drawn when ``"divrem"`` is absent; memory, input and calls are left out).
"""
from __future__ import annotations

from hypothesis import strategies as st

from pylogic.ir.model import (
    BINARY_OPS, DEPOSIT_TYPES, MEMORY_SIZES, RELATIONS, TRUE_PREDICATES, UNARY_OPS, Alloca,
    BinOp, Block, Br, Call, Cmp, CondBr, Function, Global, GlobalAddr, Imm, Input, Load, Module,
    Mov, PredDefine, PredDest, Print, Reg, Ret, Select, Store, UnOp,
)

#: Legal identifiers that look like keywords or opcodes: the parser must not be confused.
TRICKY_NAMES = ("func", "global", "extern", "ret", "br", "cbr", "call", "mov", "add",
                "load.4u", "store", "pcmp.eq", "cmp.lt", "ut", "entry", ".L1", "$t", "%x", "@main",
                "_", "input", "print", "select", "%0", "@.str", "p1", "...")

ALL_KINDS = frozenset(("mov", "binop", "divrem", "unop", "cmp", "select", "pcmp", "load",
                       "store", "alloca", "call", "input", "print", "side_exit"))
#: Kinds whose execution never fails at run time (no division, memory, input or calls).
SAFE_KINDS = frozenset(("mov", "binop", "unop", "cmp", "select", "pcmp", "print", "side_exit"))

_NON_DIV_OPS = tuple(op for op in BINARY_OPS if op not in ("div", "rem"))


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_FIRST = _LETTERS + "_.$"
_REST = _LETTERS + "0123456789_.$"


def identifiers() -> st.SearchStrategy[str]:
    """IR.md identifiers (optional %/@ prefix), biased towards tricky ones; never p0/true."""
    plain = st.builds(lambda prefix, head, tail: prefix + head + tail,
                      st.sampled_from(("", "", "%", "@")), st.sampled_from(_FIRST),
                      st.text(alphabet=_REST, max_size=5))
    return st.one_of(plain, st.sampled_from(TRICKY_NAMES)).filter(
        lambda s: s not in TRUE_PREDICATES)


def annotations() -> st.SearchStrategy[tuple]:
    """``#key=value`` annotations (usually none)."""
    key = st.builds(lambda head, tail: head + tail, st.sampled_from(_LETTERS + "_"),
                    st.text(alphabet=_REST + "-", max_size=4))
    value = st.text(alphabet=_REST + ":/+-", max_size=6)
    return st.one_of(st.just(()), st.just(()),
                     st.lists(st.tuples(key, value), max_size=2).map(tuple))


def int64() -> st.SearchStrategy[int]:
    return st.one_of(st.integers(-10, 300),
                     st.integers(-(1 << 63), (1 << 63) - 1),
                     st.sampled_from((-(1 << 63), (1 << 63) - 1, -1, 0, 255, 256)))


@st.composite
def globals_(draw, name: str) -> Global:
    """A global named ``name``: zeroed, byte list, or string-like (printed as ``"..."``)."""
    form = draw(st.sampled_from(("zero", "bytes", "string")))
    if form == "string":
        text = draw(st.text(alphabet="ab ;#\"\\\n\t{}xyz09", min_size=1, max_size=10))
        data = text.encode()
        return Global(name=name, size=len(data) + 1, init=data)
    size = draw(st.integers(1, 24))
    if form == "zero":
        return Global(name=name, size=size)
    init = draw(st.binary(max_size=size))
    return Global(name=name, size=size, init=init)


class _Ctx:
    """What one function body may refer to."""

    def __init__(self, regs, preds, globals_names, labels, callees, block_index, acyclic, kinds):
        self.regs = regs
        self.preds = preds
        self.globals = globals_names
        self.labels = labels
        self.callees = callees  # [(name, params)]
        self.block_index = block_index
        self.acyclic = acyclic
        self.kinds = kinds


def _operand(draw, ctx: _Ctx):
    choices = ["reg", "imm"] + (["glob"] if ctx.globals else [])
    kind = draw(st.sampled_from(choices))
    if kind == "reg":
        return Reg(draw(st.sampled_from(ctx.regs)))
    if kind == "imm":
        return Imm(draw(int64()))
    return GlobalAddr(draw(st.sampled_from(ctx.globals)))


def _target(draw, ctx: _Ctx) -> str:
    if ctx.acyclic:
        later = ctx.labels[ctx.block_index + 1:]
        return draw(st.sampled_from(later))
    return draw(st.sampled_from(ctx.labels))


def _guard(draw, ctx: _Ctx, required: bool = False):
    if not required and draw(st.integers(0, 2)):
        return None
    return draw(st.sampled_from(ctx.preds + ("p0", "true")))


def _terminator(draw, ctx: _Ctx, guard, annots):
    can_branch = not ctx.acyclic or ctx.block_index + 1 < len(ctx.labels)
    kind = draw(st.sampled_from(("br", "cbr", "ret") if can_branch else ("ret",)))
    if kind == "br":
        return Br(target=_target(draw, ctx), guard=guard, annotations=annots)
    if kind == "cbr":
        return CondBr(cond=_operand(draw, ctx), if_true=_target(draw, ctx),
                      if_false=_target(draw, ctx), guard=guard, annotations=annots)
    value = draw(st.one_of(st.none(), st.just(True)))
    return Ret(value=_operand(draw, ctx) if value else None, guard=guard, annotations=annots)


def _instr(draw, ctx: _Ctx):
    kind = draw(st.sampled_from(sorted(ctx.kinds)))
    annots = draw(annotations())
    if kind == "side_exit":
        if ctx.acyclic and ctx.block_index + 1 >= len(ctx.labels):
            kind = "print"
        else:
            return _terminator(draw, ctx, _guard(draw, ctx, required=True), annots)
    guard = _guard(draw, ctx)
    common = {"guard": guard, "annotations": annots}
    dest = draw(st.sampled_from(ctx.regs))
    if kind == "mov":
        return Mov(dest=dest, src=_operand(draw, ctx), **common)
    if kind in ("binop", "divrem"):
        ops = BINARY_OPS if kind == "divrem" else _NON_DIV_OPS
        return BinOp(op=draw(st.sampled_from(ops)), dest=dest, a=_operand(draw, ctx),
                     b=_operand(draw, ctx), **common)
    if kind == "unop":
        return UnOp(op=draw(st.sampled_from(UNARY_OPS)), dest=dest, a=_operand(draw, ctx),
                    **common)
    if kind == "cmp":
        return Cmp(rel=draw(st.sampled_from(RELATIONS)), dest=dest, a=_operand(draw, ctx),
                   b=_operand(draw, ctx), **common)
    if kind == "select":
        return Select(dest=dest, cond=_operand(draw, ctx), a=_operand(draw, ctx),
                      b=_operand(draw, ctx), **common)
    if kind == "pcmp":
        names = draw(st.lists(st.sampled_from(ctx.preds + ("p0", "true")), min_size=1,
                              max_size=2, unique=True))
        dests = tuple(PredDest(n, draw(st.sampled_from(DEPOSIT_TYPES))) for n in names)
        return PredDefine(rel=draw(st.sampled_from(RELATIONS)), dests=dests,
                          a=_operand(draw, ctx), b=_operand(draw, ctx), **common)
    if kind == "load":
        return Load(dest=dest, addr=_operand(draw, ctx), size=draw(st.sampled_from(MEMORY_SIZES)),
                    signed=draw(st.booleans()), **common)
    if kind == "store":
        return Store(addr=_operand(draw, ctx), value=_operand(draw, ctx),
                     size=draw(st.sampled_from(MEMORY_SIZES)), **common)
    if kind == "alloca":
        return Alloca(dest=dest, size=Imm(draw(st.integers(0, 64))), **common)
    if kind == "call" and ctx.callees:
        name, params = draw(st.sampled_from(ctx.callees))
        n = len(params)
        if params and params[-1] == "...":
            n = n - 1 + draw(st.integers(0, 2))
        args = tuple(_operand(draw, ctx) for _ in range(n))
        return Call(dest=draw(st.one_of(st.none(), st.just(dest))), callee=name, args=args,
                    **common)
    if kind == "input":
        return Input(dest=dest, **common)
    return Print(value=_operand(draw, ctx), **common)


@st.composite
def modules(draw, max_functions: int = 3, max_blocks: int = 4, max_instrs: int = 5,
            max_globals: int = 3, acyclic: bool = False, kinds=ALL_KINDS,
            externs: bool = True) -> Module:
    """A valid PIR module (passes verify_module; round-trips through the printer and parser).

    Parameters: size bounds; ``acyclic`` (forward branches only, no recursion: runs terminate);
    ``kinds`` (subset of ALL_KINDS); ``externs`` (also draw extern declarations).
    """
    kinds = frozenset(kinds) & ALL_KINDS or frozenset(("print",))
    pool = draw(st.lists(identifiers(), min_size=14, max_size=18, unique=True))
    pool = [n for n in pool if n != "..."]
    n_globals = draw(st.integers(0, max_globals))
    global_names = pool[:n_globals]
    regs = tuple(pool[n_globals:n_globals + 5])
    preds = tuple(pool[n_globals + 5:n_globals + 8])
    spare = pool[n_globals + 8:]
    n_funcs = draw(st.integers(1, max_functions))
    n_externs = draw(st.integers(0, 2)) if externs and "call" in kinds else 0
    names = (spare + [f"f.{i}" for i in range(n_funcs + n_externs)])[:n_funcs + n_externs]
    if len(set(names)) != len(names):  # spare names and fallbacks may collide
        names = [f"f.{i}" for i in range(n_funcs + n_externs)]
    signatures = []
    for i, name in enumerate(names):
        params = tuple(draw(st.lists(st.sampled_from(regs), max_size=3, unique=True)))
        if i >= n_funcs and draw(st.booleans()):
            params += ("...",)  # variadic extern (extension)
        signatures.append((name, params))
    globals_list = tuple(draw(globals_(n)) for n in global_names)

    functions = []
    for i, (name, params) in enumerate(signatures):
        if i >= n_funcs:
            functions.append(Function(name=name, params=params, extern=True,
                                      annotations=draw(annotations())))
            continue
        callees = [s for j, s in enumerate(signatures) if not acyclic or j > i]
        functions.append(_function(draw, name, params, regs, preds, global_names, callees,
                                   max_blocks, max_instrs, acyclic, kinds))
    order = draw(st.permutations(range(len(functions))))
    return Module(functions=tuple(functions[k] for k in order), globals=globals_list)


def _function(draw, name, params, regs, preds, global_names, callees, max_blocks, max_instrs,
              acyclic, kinds) -> Function:
    labels = tuple(draw(st.lists(identifiers(), min_size=1, max_size=max_blocks, unique=True)))
    blocks = []
    for index, label in enumerate(labels):
        ctx = _Ctx(regs, preds, global_names, labels, callees, index, acyclic, kinds)
        instrs = [_instr(draw, ctx) for _ in range(draw(st.integers(0, max_instrs)))]
        instrs.append(_terminator(draw, ctx, None, draw(annotations())))
        blocks.append([label, instrs, draw(st.booleans()), draw(annotations())])
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
                    annotations=draw(annotations()))
