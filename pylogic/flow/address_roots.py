"""The memory model's roots: the object an address points into -- a private alloca (its register),
an escaped alloca (``^R``), a global (``&NAME``), a read-only global (``=NAME``) or anything but a
private alloca (``ANY``) -- and whether a write of one root may change memory of another.

An address is rooted when it is derived, through registers written once, by copies and by adding
or subtracting offsets (pointer arithmetic stays inside its object), from an ``alloca`` or a
global's address. Distinct roots never overlap.

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> fn = parse_module("global g[8]\\nfunc f() {\\ne:\\n p = alloca 8\\n q = add g, 4\\n"
...                   " store.4 p, 1\\n ret 0\\n}\\n").functions[0]
>>> address_roots(fn), global_roots(fn), may_write("p", "&g")
({'p': 'p'}, {'q': '&g'}, False)

References: C's object rules as LLVM 14's BasicAA uses them (underlying objects, an alloca whose
address does not escape); pathfinder.md §4.1 (kills: "stores that could not be disambiguated");
the interpreter's memory (``interp/memory.py``: one segment per object).
"""
from __future__ import annotations

from typing import Optional

from pylogic.flow.block_access import block_access
from pylogic.flow.definitions import single_definitions
from pylogic.identity_cache import IdentityCache
from pylogic.flow.memory_writes import memory_writer
from pylogic.ir.model import (Alloca, BinOp, Cmp, Function, GlobalAddr, Instr, Load, Mov, Reg,
                              Store)


#: The root of an address that may point anywhere but into a private alloca.
ANY = "*"
#: The root of an address into global NAME is ``&NAME`` (no identifier starts with ``&``).
GLOBAL = "&"
#: The root of an address derived from alloca R whose address escapes is ``^R``.
ESCAPED = "^"
#: The root of an address into a read-only global NAME is ``=NAME`` (``readonly_globals``):
#: nothing writes it, so no store or call changes a load of it.
READONLY = "="


def is_global_root(root: str) -> bool:
    """Whether ``root`` names a global object or an escaped alloca: an object distinct from
    every other root, which an ``ANY`` address and calls may also reach."""
    return root.startswith(GLOBAL) or root.startswith(ESCAPED)


def address_roots(fn: Function, defined: frozenset = frozenset()) -> dict[str, str]:
    """``{register: alloca register}``: registers pointing into a *private* alloca -- one
    written once by ``alloca`` whose address never escapes (it and the registers derived from it
    by ``mov``/``add``/``sub``, each written once, are only load and store addresses, compared,
    derived from, or arguments of ``memcpy``/``memset``-like calls (``MEMORY_WRITERS``, unless
    ``defined`` names them); stored as a value, passed to another call, returned, selected or
    copied into a register written elsewhere, it escapes). Nothing else can point into such
    memory: a call cannot change it, a store through another address cannot either, and a load
    through another
    address cannot read it (the alias facts vf_load_root / vf_store_root; C's object rules, as
    LLVM's BasicAA uses them)."""
    root, escaped = _alloca_roots(fn, defined)
    return {r: a for r, a in root.items() if a not in escaped}


def escaped_alloca_roots(fn: Function, defined: frozenset = frozenset()) -> dict[str, str]:
    """``{register: "^ALLOCA"}``: registers derived (as in ``address_roots``) from an alloca
    whose address escapes. A store or memset through them writes that alloca only (its
    underlying object, as LLVM's BasicAA decides), which other pointers and calls may reach too:
    such a root is like a global's (``is_global_root``)."""
    root, escaped = _alloca_roots(fn, defined)
    return {r: ESCAPED + a for r, a in root.items() if a in escaped}


def _alloca_roots(fn: Function, defined: frozenset) -> tuple[dict[str, str], set]:
    """``({register: the alloca register it is derived from}, {allocas whose address escapes})``
    (``address_roots``)."""
    root = alloca_roots(fn)
    escaped: set = set()
    if not root:
        return root, escaped
    for b in fn.blocks:
        for ins, read in zip(b.instrs, block_access(b).reads):
            if root.keys().isdisjoint(read):    # reads no rooted register (guard included)
                continue
            for pos, a in enumerate(ins.uses()):
                if not (isinstance(a, Reg) and a.name in root):
                    continue
                ok = ins.guard is None and (
                    (isinstance(ins, Load) and pos == 0) or (isinstance(ins, Store) and pos == 0)
                    or isinstance(ins, Cmp) or memory_writer(ins, defined)
                    or (isinstance(ins, (Mov, BinOp)) and ins.defs()[0] in root))
                if not ok:
                    escaped.add(root[a.name])
            if ins.guard in root:
                escaped.add(root[ins.guard])
    return root, escaped


def alloca_roots(fn: Function) -> dict[str, str]:
    """``{register: the alloca register it is derived from}`` (``grow_roots`` from the allocas
    written once, unguarded), escaped or not. One dict per function object, shared by
    ``address_roots``, ``memory_roots`` and ``KnownBytes`` (each grew it alike, issue #28 item 1):
    read it, never change it."""
    def compute():
        single = single_definitions(fn)
        return grow_roots(single, {r: r for r, ins in single.items() if isinstance(ins, Alloca)})
    return _ALLOCA_ROOTS.get_or_compute(fn, compute)


#: function -> its ``alloca_roots``
_ALLOCA_ROOTS = IdentityCache(256)


def grow_roots(single: dict[str, Instr], root: dict[str, str], base=lambda a: None) -> dict:
    """``root`` ({register: root}) extended to the ``single`` definitions that copy a rooted
    value or add/subtract an offset to one (pointer arithmetic stays inside its object);
    ``base``: the root of a non-register operand (a global's address), or None."""
    def of(a):
        return root.get(a.name) if type(a) is Reg else base(a)
    # each sweep goes over the definitions in order, as one over every definition would: the
    # others (no copy, add or sub; rooted already) root nothing (the classes have no subclasses)
    todo = [(r, ins) for r, ins in single.items() if r not in root and (
        type(ins) is Mov or type(ins) is BinOp and ins.op in ("add", "sub"))]
    changed = True
    while changed:
        changed = False
        left = []
        for r, ins in todo:
            if type(ins) is Mov:
                got = of(ins.src)
            else:
                ra, rb = of(ins.a), of(ins.b)
                got = ra if rb is None else rb if ra is None and ins.op == "add" else None
            if got is not None:
                root[r] = got
                changed = True
            else:
                left.append((r, ins))
        todo = left
    return root


def global_roots(fn: Function) -> dict[str, str]:
    """``{register: "&NAME"}``: registers pointing into global NAME -- written once, unguarded,
    by ``mov NAME`` or by ``add``/``sub`` of an offset to such an address (C's object rules, as
    LLVM's BasicAA uses them: pointer arithmetic stays inside its object; the interpreter's
    segments, one per object, fault otherwise). Distinct globals never overlap. Identical
    copies of one definition (blocks pre-mr duplicated) count as one. One dict per function
    object, shared by every caller (``written_globals`` asks for every function of the module,
    and each pass asks for the module's read-only globals): read it, never change it."""
    return _GLOBAL_ROOTS.get_or_compute(fn, lambda: grow_roots(
        single_definitions(fn), {}, lambda a: GLOBAL + a.name if isinstance(a, GlobalAddr)
        else None))


#: function -> its ``global_roots`` (csmith-22 through simplify,pre-mr,pre-m,simplify: 838 calls
#: for 170 function objects)
_GLOBAL_ROOTS = IdentityCache(256)


def memory_roots(fn: Function, defined: frozenset = frozenset(),
                 readonly: frozenset = frozenset()) -> dict[str, str]:
    """``{register: root}``: ``address_roots`` (private allocas), ``escaped_alloca_roots`` and
    ``global_roots`` (``=NAME``
    for the ``readonly`` globals); plus ``{"&NAME": "=NAME"}`` for each of those, which
    ``memory_root`` reads for the global's own name.

    References: LLVM 14 BasicAA (getUnderlyingObject); C's object rules."""
    ro = {GLOBAL + g: READONLY + g for g in readonly}
    groots = {r: ro.get(g, g) for r, g in global_roots(fn).items()}
    root, escaped = _alloca_roots(fn, defined)      # once for both kinds of alloca roots
    return {**ro, **groots, **{r: ESCAPED + a for r, a in root.items() if a in escaped},
            **{r: a for r, a in root.items() if a not in escaped}}


def memory_root(addr, roots: dict) -> str:
    """The root an address points into (``memory_roots``: a private alloca register, or
    ``&NAME`` for global NAME), or ``ANY``."""
    if isinstance(addr, GlobalAddr):
        return roots.get(GLOBAL + addr.name, GLOBAL + addr.name)
    return roots.get(addr.name, ANY) if isinstance(addr, Reg) else ANY


def written_root(ins: Instr, roots: dict, defined: frozenset = frozenset()) -> Optional[str]:
    """The memory root a store or a ``MEMORY_WRITERS`` call writes; None for other calls."""
    if isinstance(ins, Store):
        return memory_root(ins.addr, roots)
    if memory_writer(ins, defined):
        return memory_root(ins.args[0], roots)
    return None


def may_write(written: Optional[str], root: str) -> bool:
    """Whether a write of root ``written`` (None: an arbitrary call) may change memory of
    ``root``: a private alloca only by a write of its own root; a global by a write of its own
    root, through ``ANY`` or by a call; ``ANY`` by anything but a private alloca's write."""
    if written is None:
        return root == ANY or is_global_root(root)
    return written == root or (written == ANY and is_global_root(root)) or (
        root == ANY and is_global_root(written))
