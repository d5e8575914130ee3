"""Known bytes for PRE's facts: the writes whose bytes are known at a known offset into one object
(``alloca``'s zeros, a store of a constant, ``memset``, ``memcpy`` from a read-only global) and the
load names each makes a constant (``KnownBytes.generated``); the contents of read-only and
relocated globals those copies read. The Datalog availability analysis then carries them along
paths (``datalog/pre.dl``); ``flow.known_memory`` is the flow-sensitive analysis simplify uses.

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> fn = parse_module("func f() {\\ne:\\n p = alloca 8\\n store.4 p, 7\\n x = load.4 p\\n"
...                   " ret x\\n}\\n").functions[0]
>>> KnownBytes(fn).generated(fn.blocks[0].instrs[1])
{'load.4s(p)': 7}

References: LLVM 14 GVN.cpp / MemoryDependenceAnalysis (AnalyzeLoadFromClobberingMemInst: a load
from a fresh alloca, a memset or a memcpy from a constant); pathfinder.md §3.4.1.1 (across
``store L, t`` the name ``*L`` becomes ``t``); docs/pir.md (alloca, load, store).
"""
from __future__ import annotations

from typing import Callable, Optional

from pylogic.flow.address_roots import GLOBAL, global_roots, grow_roots
from pylogic.flow.definitions import single_definitions
from pylogic.flow.memory_writes import MEMORY_COPIES, MEMORY_SETS, memory_writer
from pylogic.flow.readonly_globals import readonly_globals, written_globals
from pylogic.flow.spans import memory_offsets
from pylogic.flow.value_names import expression_of, operand_name, value_names
from pylogic.ir.model import (Alloca, BinOp, Call, Function, GlobalAddr, Imm, Instr, Load, Reg, Ret,
                              Store)


#: The importer's function storing relocated addresses into globals, called first in main.
INIT_FUNCTION = "@__pathlogic_init"


def relocated_contents(module) -> dict[str, tuple[int, bytes, dict]]:
    """``{name: (size, bytes, {offset: GlobalAddr or None})}``: globals only
    ``@__pathlogic_init`` writes (the importer's relocations: constant initialisers holding
    addresses, e.g. a ``const`` struct of pointers) -- in it only as store addresses, by
    8-byte stores of constants or global addresses, and it is called once, as main's first
    instruction. What main reads of them after that call: the initial bytes overlaid with the
    stored constants, and at each offset a global's address was stored, that address (None: an
    address plus an offset, which is no operand).

    References: the LLVM importer (``ir/llvm``: relocations of constant initialisers)."""
    fns = {fn.name: fn for fn in module.functions if not fn.extern and fn.blocks}
    init, main = fns.get(INIT_FUNCTION), fns.get("@main") or fns.get("main")
    calls = [i for fn in fns.values() for b in fn.blocks for i in b.instrs
             if isinstance(i, Call) and i.callee == INIT_FUNCTION]
    if init is None or main is None or len(calls) != 1 or len(init.blocks) != 1 or \
            not main.blocks[0].instrs or main.blocks[0].instrs[0] is not calls[0]:
        return {}
    sizes = {g.name: g for g in module.globals}
    derived: dict[str, tuple[str, int]] = {}
    stores: dict[str, list] = {}
    bad: set = set()
    for ins in init.blocks[0].instrs:
        if isinstance(ins, BinOp) and ins.op == "add" and isinstance(ins.a, GlobalAddr) and \
                isinstance(ins.b, Imm) and ins.guard is None:
            derived[ins.dest] = (ins.a.name, ins.b.value)
            continue
        if isinstance(ins, Store) and ins.guard is None and ins.size == 8:
            at = (ins.addr.name, 0) if isinstance(ins.addr, GlobalAddr) else \
                derived.get(ins.addr.name) if isinstance(ins.addr, Reg) else None
            if at is not None:
                v = ins.value
                value = v.value if isinstance(v, Imm) else v if isinstance(v, GlobalAddr) else None
                stores.setdefault(at[0], []).append((at[1], value))
                if isinstance(v, GlobalAddr):
                    bad.add(v.name)                       # its address is stored: it escapes
                elif isinstance(v, Reg) and v.name in derived:
                    bad.add(derived[v.name][0])
                continue
        if not isinstance(ins, Ret):
            return {}
    outside = written_globals(module, frozenset({INIT_FUNCTION}))
    out = {}
    for name, writes in stores.items():
        g = sizes.get(name)
        if g is None or name in outside or name in bad:
            continue
        data, slots = bytearray(g.init.ljust(g.size, b"\0")), {}
        for off, value in writes:
            if not 0 <= off <= g.size - 8:
                break
            if isinstance(value, int):
                data[off:off + 8] = (value & ((1 << 64) - 1)).to_bytes(8, "little")
                slots.pop(off, None)
            else:
                slots[off] = value
        else:
            out[name] = (g.size, bytes(data), slots)
    return out


def readonly_contents(module) -> dict[str, tuple[int, bytes, dict]]:
    """``{name: (size, initial bytes, {})}`` of the ``readonly_globals`` of ``module``: what
    they hold at every point of every run (the format of ``relocated_contents``)."""
    ro = readonly_globals(module)
    return {g.name: (g.size, g.init, {}) for g in module.globals if g.name in ro}


def function_contents(module) -> Callable[[str], dict]:
    """``contents(function name)``: the ``KnownBytes`` contents of globals in that function --
    ``readonly_contents``, and in main also ``relocated_contents``."""
    ro = readonly_contents(module)
    main = {**ro, **relocated_contents(module)}
    return lambda name: main if name in ("@main", "main") else ro


#: Longest write whose bytes ``KnownBytes`` follows.
MAX_KNOWN = 1 << 16


class KnownBytes:
    """Writes whose bytes are known, at a known offset into one object, and the loads they
    determine (store-to-load forwarding across sizes and offsets, as LLVM's GVN does through
    memory dependence): ``alloca N`` (N fresh zeroed bytes, docs/pir.md), a store of a constant,
    ``memset`` of a constant byte and length, ``memcpy``/``memmove`` of a constant length from
    a read-only global (``contents``: ``function_contents``). ``generated(ins)`` maps each load
    name whose
    bytes lie inside what ``ins`` writes to the value it then reads.

    An address qualifies when its value name (``value_names``) has no leaf but constants,
    global addresses and at most one alloca register it is derived from: it is that register's
    current object (or the global) at the offset ``memory_offsets`` gives, wherever it is
    read, so a write and a load with such addresses meet in one object exactly when their
    objects are equal."""

    def __init__(self, fn: Function, names: Optional[dict] = None,
                 defined: frozenset = frozenset(), contents: Optional[dict] = None):
        self.names = value_names(fn) if names is None else names
        self.defined = defined
        self.contents = contents or {}
        single = single_definitions(fn)
        allocas = {r: r for r, ins in single.items() if isinstance(ins, Alloca)}
        self.allocas = set(allocas)
        self.alloca_of = grow_roots(single, allocas)
        self.global_of = global_roots(fn)
        self.offsets = memory_offsets(fn)
        self._memo: dict[int, tuple] = {}          # id(instruction) -> (it, generated)
        self.loads: dict[str, list] = {}         # object -> [(name, lo, size, signed)]
        seen = set()
        for b in fn.blocks:
            for ins in b.instrs:
                if not isinstance(ins, Load) or ins.guard is not None:
                    continue
                name = expression_of(ins, self.names)[0]
                at = self.place(ins.addr)
                if at is not None and name not in seen:
                    seen.add(name)
                    self.loads.setdefault(at[0], []).append((name, at[1], ins.size, ins.signed))

    def place(self, addr) -> Optional[tuple[str, int]]:
        """``(object, offset)`` of a qualifying address (the class doc), else None."""
        if isinstance(addr, GlobalAddr):
            return GLOBAL + addr.name, 0
        if not isinstance(addr, Reg) or addr.name not in self.offsets:
            return None
        off = self.offsets[addr.name]
        leaves = [x for x in operand_name(addr, self.names)[1] if isinstance(x, Reg)]
        if not leaves and addr.name in self.global_of:
            return self.global_of[addr.name], off
        if len(leaves) == 1 and leaves[0].name in self.allocas and \
                self.alloca_of.get(addr.name) == leaves[0].name:
            return leaves[0].name, off
        return None

    def written(self, ins: Instr) -> Optional[tuple[str, int, bytes]]:
        """``(object, offset, bytes)`` an unguarded write of known bytes puts there, or None."""
        if ins.guard is not None:
            return None
        if isinstance(ins, Alloca):
            n = ins.size.value if isinstance(ins.size, Imm) else -1
            return (ins.dest, 0, bytes(n), {}) if ins.dest in self.allocas and \
                0 <= n <= MAX_KNOWN else None
        if isinstance(ins, Store):
            at = self.place(ins.addr)
            if at is None or not isinstance(ins.value, Imm):
                return None
            mask = (1 << (8 * ins.size)) - 1
            return at + ((ins.value.value & mask).to_bytes(ins.size, "little"), {})
        if not (memory_writer(ins, self.defined) and len(ins.args) >= 3 and
                isinstance(ins.args[2], Imm) and 0 < ins.args[2].value <= MAX_KNOWN):
            return None
        n, callee, at = ins.args[2].value, ins.callee.lstrip("@"), self.place(ins.args[0])
        if at is None:
            return None
        if callee in MEMORY_SETS and isinstance(ins.args[1], Imm):
            return at + (bytes((ins.args[1].value & 0xFF,)) * n, {})
        src = self.place(ins.args[1]) if callee in MEMORY_COPIES else None
        if src is not None and src[0].startswith(GLOBAL) and src[0][1:] in self.contents:
            size, init, slots = self.contents[src[0][1:]]
            lo = src[1]
            if 0 <= lo and lo + n <= size:
                return at + (init[lo:lo + n].ljust(n, b"\0"),
                             {o - lo: v for o, v in slots.items() if lo - 8 < o < lo + n})
        return None

    def generated(self, ins: Instr) -> dict:
        """``{load name: the value it reads}`` right after ``ins`` (an int, or a GlobalAddr
        for an 8-byte load of a relocated address), for the loads inside the bytes ``ins``
        writes."""
        key = id(ins)
        if key in self._memo and self._memo[key][0] is ins:
            return self._memo[key][1]
        got = self.written(ins) if self.loads else None
        out = {}
        for name, off, size, signed in self.loads.get(got[0], ()) if got else ():
            v = self.value_in(got, off, size, signed)
            if v is not None:
                out[name] = v
        self._memo[key] = (ins, out)
        return out

    @staticmethod
    def value_in(got: tuple, off: int, size: int, signed: bool):
        """What a load of ``size`` bytes at ``off`` reads after the write ``got`` (``written``):
        an int, a GlobalAddr (a relocated address), or None (not inside, or not known)."""
        _, lo, data, slots = got
        if not (lo <= off and off + size <= lo + len(data)):
            return None
        hit = [o for o in slots if o < off - lo + size and off - lo < o + 8]
        if not hit:
            return int.from_bytes(data[off - lo:off - lo + size], "little", signed=signed)
        if hit == [off - lo] and size == 8 and slots[off - lo] is not None:
            return slots[off - lo]
        return None
