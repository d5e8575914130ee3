"""The bytes an access touches: constant offsets of addresses into their root's object, the byte
spans loads read and writes write, the sizes of objects, and whether a write spares an
expression that reads memory (``spares``: its roots and spans, ``address_roots``).

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> fn = parse_module(
...     "func f() {\\ne:\\n p = alloca 8\\n q = add p, 4\\n ret 0\\n}\\n").functions[0]
>>> memory_offsets(fn)
{'p': 0, 'q': 4}

References: LLVM 14 BasicAA (disjoint byte ranges of one underlying object; an access larger than
an object is not to it); pathfinder.md §4.1 (kills); C's object rules.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from pylogic.flow.address_roots import (ANY, ESCAPED, GLOBAL, READONLY, memory_root, may_write,
                                        written_root)
from pylogic.flow.definitions import definitions, single_definitions
from pylogic.flow.memory_writes import clobbers_memory, writes_nothing, written_size
from pylogic.flow.value_names import expression_of, reads_memory
from pylogic.identity_cache import IdentityCache
from pylogic.ir.model import (Alloca, BinOp, Function, GlobalAddr, Imm, Instr, Load, Mov, Reg,
                              Store)


#: Offsets kept in span facts (Souffle numbers are 32-bit): larger ones are unknown.
MAX_OFFSET = 1 << 30


def memory_offsets(fn: Function) -> dict[str, int]:
    """``{register: constant byte offset}``: registers written once, unguarded, as an alloca
    (offset 0) or as a copy of, or a constant added to or subtracted from, a global's address or
    such a register. Combined with its root (``memory_roots``, grown along the same
    definitions), the register points exactly ``offset`` bytes into the root's object. One dict
    per function object, shared by every caller (known bytes, the value-flow inputs, PRE's load
    translation: csmith 11/19/20/24/32/38/44's PRE steps asked 641 times for 367 functions):
    read it, never change it.

    References: LLVM 14 BasicAA (constant offsets from an underlying object)."""
    return _OFFSETS.get_or_compute(fn, lambda: _memory_offsets(fn))


#: function -> its ``memory_offsets``
_OFFSETS = IdentityCache(256)


def _memory_offsets(fn: Function) -> dict[str, int]:
    """``memory_offsets`` computed."""
    single = single_definitions(fn)
    off = {r: 0 for r, ins in single.items() if type(ins) is Alloca}

    def of(a):                          # (the classes have no subclasses)
        kind = type(a)
        if kind is GlobalAddr:
            return 0
        return off.get(a.name) if kind is Reg else None

    def const(a):                       # an immediate, or a register copied from one
        for _depth in range(9):
            if type(a) is Imm:
                return a.value
            ins = single.get(a.name) if type(a) is Reg else None
            if type(ins) is not Mov:
                return None
            a = ins.src
        return None
    # each sweep goes over the definitions in order, as one over every definition would: the
    # others (no copy, add or sub; given an offset already) give none
    todo = [(r, ins) for r, ins in single.items() if r not in off and (
        type(ins) is Mov or type(ins) is BinOp and ins.op in ("add", "sub"))]
    changed = True
    while changed:
        changed = False
        left = []
        for r, ins in todo:
            got = None
            if type(ins) is Mov:
                got = of(ins.src)
            elif ins.op == "add":
                if const(ins.b) is not None and of(ins.a) is not None:
                    got = of(ins.a) + const(ins.b)
                elif const(ins.a) is not None and of(ins.b) is not None:
                    got = of(ins.b) + const(ins.a)
            elif const(ins.b) is not None and of(ins.a) is not None:      # a sub
                got = of(ins.a) - const(ins.b)
            if got is not None and abs(got) < MAX_OFFSET:
                off[r] = got
                changed = True
            else:
                left.append((r, ins))
        todo = left
    return off


def address_offset(addr, roots: dict, offsets: dict) -> Optional[int]:
    """The offset of ``addr`` into its root's object (``memory_offsets``), or None when its
    root or offset is unknown."""
    if isinstance(addr, GlobalAddr):
        return 0
    if isinstance(addr, Reg) and addr.name in roots:
        return offsets.get(addr.name)
    return None


def written_span(ins: Instr, roots: dict, offsets: Optional[dict],
                 defined: frozenset = frozenset()) -> Optional[tuple[int, int]]:
    """``(lo, hi)``: the bytes of its root (``written_root``) a store or a ``MEMORY_WRITERS``
    call of a constant length (``written_size``) writes, when its address's offset is known;
    else None."""
    n = written_size(ins, defined)
    if offsets is None or n is None or not 0 <= n < MAX_OFFSET:
        return None
    lo = address_offset(ins.addr if isinstance(ins, Store) else ins.args[0], roots, offsets)
    return None if lo is None else (lo, lo + n)


def load_spans(fn: Function, names: dict, exprs: dict, roots: dict,
               offsets: dict, defs: Optional[dict] = None) -> dict[str, dict]:
    """``{expression reading memory: {root: frozenset of (lo, hi) byte ranges, or None}}``: the
    bytes of each root (``load_roots``) the expression's loads read, None for a root some load
    reads at an unknown offset. ``defs``: ``definitions(fn)`` when the caller has it.

    References: LLVM 14 BasicAA (byte ranges of one underlying object)."""
    defs = definitions(fn) if defs is None else defs
    # (module-level helpers, not closures calling each other: those held their frames' dicts in
    # reference cycles until the collector's next pass)
    context = _SpanContext(names, defs, roots, offsets, {})
    out: dict[str, dict] = {}
    for b in fn.blocks:
        for ins in b.instrs:
            if ins.guard is not None:
                continue
            found = expression_of(ins, names)
            if found is None or found[0] not in exprs or not reads_memory(found[1], found[2]):
                continue
            _merge_spans(out.setdefault(found[0], {}), _instruction_spans(ins, context))
    return out


class _SpanContext(NamedTuple):
    """What ``load_spans``' helpers read of one function, and their memo."""
    names: dict
    defs: dict
    roots: dict
    offsets: dict
    memo: dict          # register -> the spans its definition's loads read


def _merge_spans(into: dict, got: dict) -> None:
    for r, s in got.items():
        into[r] = None if s is None or into.get(r, ()) is None else \
            frozenset(into.get(r, frozenset()) | s)


def _own_span(ins, context: _SpanContext) -> dict:
    lo = address_offset(ins.addr, context.roots, context.offsets)
    return {memory_root(ins.addr, context.roots):
            None if lo is None else frozenset({(lo, lo + ins.size)})}


def _register_spans(r: str, context: _SpanContext) -> dict:
    memo = context.memo
    if r not in memo:
        memo[r] = {}            # a definition reached again through a cycle adds nothing
        memo[r] = _instruction_spans(context.defs[r][0], context)
    return memo[r]


def _instruction_spans(ins, context: _SpanContext) -> dict:
    """The spans ``ins`` reads through its operands' definitions, and its own when a load."""
    out = _operand_spans(ins, context)
    if isinstance(ins, Load):
        _merge_spans(out, _own_span(ins, context))
    return out


def _operand_spans(ins, context: _SpanContext) -> dict:
    out: dict = {}
    names, defs = context.names, context.defs
    for a in ins.uses():
        if isinstance(a, Reg) and a.name in names and defs.get(a.name, [None])[0] is not None:
            _merge_spans(out, _register_spans(a.name, context))
    return out


def load_roots(fn: Function, names: dict, exprs: dict, roots: dict) -> dict[str, frozenset]:
    """``{expression reading memory: the roots it reads}``: for a load, the root of its address
    (``memory_root``) and those of the loads its address is built on; for an expression built
    on loads (``value_names``), those of the loads its operands are named by. Unioned over the
    occurrences (equal names read the same memory; the union is the safe side). The roots of
    ``load_spans``, whatever the offsets."""
    return roots_of_spans(load_spans(fn, names, exprs, roots, {}))


def roots_of_spans(spans: dict) -> dict[str, frozenset]:
    """``load_roots`` from the ``load_spans`` already computed (its roots, whatever the offsets)."""
    return {e: frozenset(by_root) for e, by_root in spans.items() if by_root}


def object_sizes(fn: Function, global_sizes: dict) -> dict[str, int]:
    """``{root: bytes of its object}`` for the global roots (``&NAME``, ``=NAME``) and the
    allocas of a constant size (``^R`` and ``R``): every access lies inside one object (C's
    object rules; the interpreter's segments), so one larger than an object is not to it."""
    out = {}
    for g, n in global_sizes.items():
        out[GLOBAL + g] = out[READONLY + g] = n
    for r, ins in single_definitions(fn).items():
        if isinstance(ins, Alloca) and isinstance(ins.size, Imm):
            out[r] = out[ESCAPED + r] = ins.size.value
    return out


class WriteSummary(NamedTuple):
    """What ``spares`` asks of a store or call, whatever expression it is asked about."""
    nothing: bool                   # writes_nothing
    clobbers: bool                  # clobbers_memory
    root: object                    # written_root
    span: Optional[tuple]           # written_span (None: unknown, or no offsets given)
    size: int                       # written_size, 0 when unknown


def write_summary(ins: Instr, roots: dict, defined: frozenset = frozenset(),
                  offsets: Optional[dict] = None) -> WriteSummary:
    """``ins``'s part of ``spares``, computed once for the many expressions asked about it."""
    if writes_nothing(ins, defined):
        return WriteSummary(True, False, None, None, 0)
    if not clobbers_memory(ins):
        return WriteSummary(False, False, None, None, 0)
    return WriteSummary(False, True, written_root(ins, roots, defined),
                        written_span(ins, roots, offsets, defined) if offsets is not None
                        else None, written_size(ins, defined) or 0)


def spares(ins: Instr, root, roots: dict, defined: frozenset = frozenset(),
           spans: Optional[dict] = None, offsets: Optional[dict] = None,
           sizes: Optional[dict] = None, write: Optional[WriteSummary] = None) -> bool:
    """Whether the store or call ``ins`` surely leaves an expression reading memory of ``root``
    (a root or a set of roots, ``load_roots``; None: unknown) unchanged. With ``spans`` (the
    expression's ``load_spans``) and ``offsets`` (``memory_offsets``), a write of one of its
    roots at bytes none of its reads of that root touch spares it too, and so does a
    ``memcpy``/``memset`` of 0 bytes (``writes_nothing``); with ``sizes`` (``object_sizes``), a
    write through ``ANY`` of more bytes than a root's object has cannot be to it. ``write``:
    ``write_summary(ins, roots, defined, offsets)`` when the caller keeps it.

    References: pathfinder.md §4.1 (kills); LLVM 14 BasicAA (disjoint ranges, object sizes)."""
    if write is None:
        write = write_summary(ins, roots, defined, offsets)
    if write.nothing:
        return True
    if not root or not write.clobbers:
        return False
    written = write.root
    wspan = write.span if spans else None
    for r in ([root] if isinstance(root, str) else root):
        if not may_write(written, r):
            continue
        if written == r and wspan is not None and spans.get(r) is not None and \
                not any(lo < whi and wlo < hi for lo, hi in spans[r] for wlo, whi in [wspan]):
            continue                                         # disjoint bytes of one object
        if written == ANY and sizes and r in sizes and write.size > sizes[r]:
            continue                                         # too large for the object
        return False
    return True
