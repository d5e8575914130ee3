"""What bytes memory holds at each point of a function, so ``simplify`` folds the loads that read
known ones (issue #14:
GVN forwards a load from a fresh alloca, a ``memset`` or a ``memcpy`` from a constant global; e.g.
a bit-field's first read-modify-write of an uninitialised struct, or a struct initialised from a
``__const`` copy).

A forward must-analysis over the CFG: at each point, for each object -- an ``r = alloca N`` site X
(N a literal; the object X allocated last) or a global, of at most ``MAX_BYTES`` -- its bytes, each
a value 0..255 or unknown, or nothing known of it at all. docs/pir.md: an alloca's bytes start zeroed;
a global's are unknown at the function's entry (earlier code may have written it). Then, per
instruction (a write into an object of which nothing is known makes the written bytes known):

* ``r = alloca N`` at X: X's N bytes are 0 (a new object);
* ``store.k A, V`` where A is an object's address plus a literal offset inside it: those k bytes
  become V's
  (its known bits at the store, when one constant; else unknown); a store into an untracked object
  (its address plus an offset below 2**32: the interpreter's objects are segments 2**32 bytes
  apart, so it stays in its object or faults) changes no tracked byte; any other store (its
  address unknown) forgets everything;
* ``call memset(A, C, N)`` / ``memcpy``/``memmove(A, G, N)`` (the interpreter's builtins, their
  ``_chk`` forms, when the module does not define the callee) with A inside an object and N a
  known constant: those N bytes become C's when C is known, G's when G points inside a read-only
  global (``known_bytes.readonly_contents``), else unknown (a copy writes only its destination's
  N bytes, whatever it reads); a builtin
  that writes nothing existing (``malloc``, ``strlen``, ``memcmp``, ...:
  ``memory_writes.NO_WRITE_BUILTINS``) changes nothing; any other call forgets everything (a
  callee may write an object whose address escaped, or free the frame's allocas:
  ``llvm.stackrestore``);
* at a join, a byte is known when it is the same on every incoming edge (not the edge a ``cbr``
  on a literal, or on a register just set to one, never takes: ``reaching.constant_branch``).

Only the objects some load's address resolves to are followed (``_loaded_objects``): the rules
above change each object's bytes apart from the others', and what forgets everything does so
whichever objects are followed.

An address is resolved through the one definition reaching its read
(``FunctionValues.reaching_def``):
copies and ``add`` of a literal back to the alloca, so it is the object X allocated last (X
dominates the chain, which dominates the read: X cannot run again in between). A load of k
bytes at a known offset inside X whose bytes are all known reads them (little-endian, extended as
the load says); it cannot fault (in bounds of a live object), so it becomes ``mov`` of that value.

What each write puts, what a read-only global holds and what a load of bytes reads are
``flow.known_bytes``'s (``memory_write``, ``readonly_contents``, ``load_value``), which also
gives PRE its known-bytes facts; this module is only the propagation along the CFG that simplify
needs (PRE propagates in Datalog instead; ``flow.known_bytes`` says why both exist).

References: LLVM 14 GVN.cpp / MemoryDependenceAnalysis (a load from a fresh alloca, a memset or a
memcpy from a constant: AnalyzeLoadFromClobberingMemInst); docs/pir.md (alloca, load, store).
"""
from __future__ import annotations

import heapq
from typing import Callable, Optional

from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.model import (BRANCHING_CLASSES, Alloca, BinOp, Br, Call, CondBr, Function,
                              GlobalAddr, Imm, Load, Mov, Reg, Store, branch_targets)
from pylogic.flow.known_bytes import contents_bytes, load_value, memory_write
from pylogic.flow.memory_writes import NO_WRITE_BUILTINS, builtin_called
from pylogic.flow.reaching import block_taken

__all__ = ["known_loads", "MAX_BYTES"]

#: allocas larger than this are not tracked
MAX_BYTES = 256
#: an object's offsets: the interpreter's segments are 2**32 bytes apart
OFFSET_LIMIT = 1 << 32
#: no answer kept yet (``_Addresses``)
_MISSING = object()


def known_loads(fn: Function, reaching_def: Callable, constant: Callable,
                readonly: dict, defined: Optional[set],
                global_sizes: Optional[dict] = None, order: Optional[list] = None) -> dict:
    """``{(label, index): value}`` for the loads of ``fn`` that read known bytes of an alloca or a
    global (``global_sizes``: name -> bytes of the module's globals; a global's bytes are unknown
    at the entry and become known by the writes above).

    ``reaching_def(reg, site)``: ``(site, instruction)`` of the one unguarded definition reaching
    that read, or None;
    ``constant(operand, site)``: its value there when known, else None; ``readonly``: the
    contents of the module's read-only globals (``known_bytes.readonly_contents``);
    ``defined``: names of functions the module defines (None: unknown, so no call is taken for
    a builtin); ``order``: ``fn``'s ``reverse_postorder`` when the caller has it.

    References: LLVM 14 GVN.cpp / MemoryDependenceAnalysis (AnalyzeLoadFromClobberingMemInst);
    docs/pir.md (alloca's zeroed bytes, load, store)."""
    blocks = fn.block_map()
    sizes = {g: n for g, n in (global_sizes or {}).items() if 0 < n <= MAX_BYTES}
    for b in fn.blocks:         # alloca site -> bytes (the allocas are among the events)
        for k, ins, _w in b.derived("_memory_events", _events):
            if type(ins) is Alloca and isinstance(ins.size, Imm) \
                    and 0 < ins.size.value <= MAX_BYTES and ins.guard is None:
                sizes[(b.label, k)] = ins.size.value
    if not sizes:
        return {}

    resolve = _Addresses(reaching_def)
    # only the objects some load reads are followed: an object's bytes change independently of
    # the others' (a write into one object; a write that may touch any, or a call, forgets them
    # all whichever are followed), so the loads read the same bytes (most tracked objects are
    # never loaded in the function: 1,551 of 12,918 over simplify,pre-mr,pre-m,simplify on the
    # PRE median csmith programs, issue #28 item 1)
    kept = _loaded_objects(fn, resolve, sizes)
    if not kept:
        return {}

    def written(state: dict, addr, n: int, site):
        """``(object, offset)`` a write of ``n`` bytes at ``addr`` touches when it is a tracked
        alloca, inside it; ``()`` when it touches no tracked object (another object: an address
        within 2**32 bytes past its base stays in its segment, docs/pir.md via the interpreter's
        segmented memory, or faults); None when it may touch any."""
        got = resolve(addr, site)
        if got is None or n is None:
            return None
        base, off = got
        if not 0 <= off <= OFFSET_LIMIT - n:
            return None
        if base not in sizes:
            return ()
        return (base, off) if off + n <= sizes[base] else None

    def global_bytes(a, site, n, depth=0):
        """The ``n`` bytes a read-only global holds at operand ``a`` (read at ``site``), a
        relocated address's bytes unknown; None when ``a`` is not known to point into one."""
        off = 0
        while isinstance(a, Reg) and depth < 16:
            got = reaching_def(a, site)
            if got is None:
                return None
            dsite, ins = got
            if isinstance(ins, Mov):
                a, site = ins.src, dsite
            elif isinstance(ins, BinOp) and ins.op == "add" and isinstance(ins.b, Imm):
                a, site, off = ins.a, dsite, off + ins.b.value
            else:
                return None
            depth += 1
        got = contents_bytes(readonly, a.name, off, n) if isinstance(a, GlobalAddr) else None
        if got is None:
            return None
        data, slots = got
        return tuple(None if any(o <= i < o + 8 for o in slots) else x
                     for i, x in enumerate(data)), {}

    def inside(x, off, n):
        return x is not None and 0 <= off and off + n <= sizes[x]

    def step(state: dict, site, ins, w) -> dict:
        """The state after ``ins`` at ``site`` (``w``: its ``memory_write`` when not a call)."""
        if type(ins) is Call:
            name = builtin_called(ins, defined) if defined is not None else None
            if name in NO_WRITE_BUILTINS:
                return state
            if name is None:
                return {}       # a callee may write any escaped object
            w = memory_write(ins, defined or ())
            if w is None:
                return {}
        elif w is None:
            return state
        if w.kind == "alloca":
            if site in kept:
                state = dict(state)
                state[site] = (0,) * sizes[site]
            return state
        n = constant(w.size, site)
        where = written(state, w.addr, n, site)
        if where is None:
            return {}
        if where == ():
            return state
        x, off = where          # inside x, of at most MAX_BYTES
        if x not in kept:       # ``w.data`` below is None (forget all) only for a negative n:
            return state if n >= 0 else {}      # n is known, 0 <= off and off + n <= sizes[x]
        got = w.data(lambda a: constant(a, site), lambda a, n: global_bytes(a, site, n), sizes[x])
        if got is None:         # a negative length
            return {}
        return _write(state, x, off, got[0], sizes[x])

    if order is None:
        order = reverse_postorder(fn)
    index = {b: i for i, b in enumerate(order)}
    into = {order[0]: {}}
    work, queued = [0], {order[0]}
    taken = {b.label: t for b in fn.blocks if (t := block_taken(b)) is not None}
    # the state before each load at a block's latest visit: that visit started from the block's
    # final ``into`` (each change of it queues the block again), so these are the fixpoint's
    # states and no walk after it is needed (issue #28 item 1)
    before_loads: dict = {}
    while work:
        label = order[heapq.heappop(work)]
        queued.discard(label)
        state = into[label]
        block = blocks[label]
        last = len(block.instrs) - 1
        loads = before_loads[label] = []
        # only these instructions read or change the state or leave the block (``_events``)
        for k, ins, w in block.derived("_memory_events", _events):
            kind = type(ins)
            if kind is Load:
                loads.append((k, ins, state))
            if ins.guard is not None and kind in _MAY_WRITE:
                state = {}      # may or may not run
            else:
                state = step(state, (label, k), ins, w)
            if kind not in BRANCHING_CLASSES:
                continue
            for t in branch_targets(ins):
                if t not in blocks or k == last and taken.get(label, t) != t:
                    continue
                old = into.get(t)
                new = state if old is None else _meet(old, state)
                if old is None or new != old:
                    into[t] = new
                    if t not in queued:
                        queued.add(t)
                        heapq.heappush(work, index[t])
    out = {}
    for label in order:
        for k, ins, state in before_loads.get(label, ()):
            if state:
                got = resolve(ins.addr, (label, k))
                if got is not None and got[0] in state and inside(got[0], got[1], ins.size):
                    data = state[got[0]][got[1]:got[1] + ins.size]
                    if None not in data:
                        out[(label, k)] = load_value(data, ins.signed)
    # compiled (pylogic.compiled_modules), the local functions share one scope object that
    # holds them: a reference cycle, broken here rather than by the collector
    written = global_bytes = inside = step = None
    return out


def _loaded_objects(fn: Function, resolve, sizes: dict) -> set:
    """The tracked objects (keys of ``sizes``) the address of some load of ``fn`` resolves to
    (``_Addresses``; the walk after the fixpoint asks the same ones)."""
    out = set()
    for b in fn.blocks:
        label = b.label
        for k, ins, _w in b.derived("_memory_events", _events):
            if type(ins) is Load:
                got = resolve(ins.addr, (label, k))
                if got is not None and got[0] in sizes:
                    out.add(got[0])
    return out


def _events(block) -> tuple:
    """``(index, instruction, write)`` of the loads, stores, calls, allocas and branches of
    ``block``, ``write`` the ``memory_write`` of a store or an alloca (it does not depend on the
    module's functions, unlike a call's), else None: ``step`` leaves the state as it is at any
    other instruction (``memory_write`` gives it no write and it is no call), which has no
    branch target either, so the walk skips it."""
    return tuple((k, ins, memory_write(ins) if type(ins) in (Store, Alloca) else None)
                 for k, ins in enumerate(block.instrs) if type(ins) in _EVENTS)


#: the classes ``_events`` keeps and those that may write memory (the classes have no
#: subclasses)
_EVENTS = frozenset((Load, Store, Call, Alloca, Br, CondBr))
_MAY_WRITE = frozenset((Store, Call, Alloca))


class _Addresses:
    """``(base, offset)`` of the address operand ``a`` read at ``site`` (``self(a, site)``): base
    an alloca's site or a global's name; None when unknown. A class, not two nested functions
    calling each other: those were a reference cycle that kept each round's ``FunctionValues``
    alive until the collector ran (csmith-46's ``simplify``: 0.41 s of collection after it).

    ``reaching_def``: as ``known_loads``'s."""

    __slots__ = ("reaching_def", "resolved")

    def __init__(self, reaching_def: Callable):
        self.reaching_def = reaching_def
        # (a, site, depth) -> the answer: the fixpoint's visits and the last walk ask the same
        # addresses again (issue #28 item 1)
        self.resolved: dict = {}

    def __call__(self, a, site, depth=0):
        kind = type(a)
        if kind is not Reg:         # ``_afresh`` without a lookup
            return (a.name, 0) if kind is GlobalAddr else None
        key = (a.name, site, depth)     # a register's name: its hash is Python code
        got = self.resolved.get(key, _MISSING)
        if got is _MISSING:
            got = self.resolved[key] = self._afresh(a, site, depth)
        return got

    def _afresh(self, a, site, depth):
        kind = type(a)              # (the classes have no subclasses)
        if kind is GlobalAddr:
            return a.name, 0
        if depth > 16 or kind is not Reg:
            return None
        got = self.reaching_def(a, site)
        if got is None:
            return None
        dsite, ins = got
        kind = type(ins)
        if kind is Alloca:
            return dsite, 0
        if kind is Mov:
            return self(ins.src, dsite, depth + 1)
        if kind is BinOp and ins.op == "add":
            for base, off in ((ins.a, ins.b), (ins.b, ins.a)):
                if type(off) is Imm:
                    got = self(base, dsite, depth + 1)
                    if got is not None:
                        return got[0], got[1] + off.value
        return None

def _write(state: dict, x, off: int, data: tuple, size: int) -> dict:
    state = dict(state)
    old = state.get(x, (None,) * size)
    state[x] = old[:off] + tuple(data) + old[off + len(data):]
    return state


def _meet(a: dict, b: dict) -> dict:
    out = {}
    for x in a.keys() & b.keys():
        if a[x] == b[x]:
            out[x] = a[x]
        else:
            out[x] = tuple(p if p == q else None for p, q in zip(a[x], b[x]))
    return out

