"""Known bytes: the one owner of what memory holds when it is known -- a global's contents at
every point (``readonly_contents``, in main also ``relocated_contents``), the bytes one write
puts (``memory_write`` and ``Write.data``: ``alloca``'s zeros, a store of a constant, ``memset``,
a copy of known contents) and the value a load of known bytes reads (``load_value``) -- and the
known-bytes facts of PRE (``KnownBytes``).

Two analyses ask "which bytes does memory hold here?", with different engines, on these same
facts:

* ``KnownBytes`` (this module), for PRE: per write, the load *names* (``flow.value_names``) whose
  bytes lie inside it and the value each then reads (``KnownBytes.generated``, the
  ``vf_store_gen`` facts); addresses are resolved flow-insensitively, by value name. Carrying
  them along paths, and killing them, is PRE's path-sensitive availability (``datalog/pre.dl``,
  pathfinder.md §3.4.1.1: across ``store L, t`` the name ``*L`` becomes ``t``), so this module
  propagates nothing.
* ``flow.known_memory.known_loads``, for simplify (which runs without the Datalog engine, to a
  fixpoint of its own rounds): a forward must-dataflow over the CFG of each object's bytes, with
  addresses resolved through the definitions reaching each read and values through known bits
  (``flow.function_values.FunctionValues``). It takes every write's bytes from ``memory_write``
  here and a
  read-only global's from ``readonly_contents``.

References
----------
LLVM 14: ``ConstantFoldLoadFromConstPtr`` (Analysis/ConstantFolding.cpp: a load from a
``constant`` global reads its initialiser; here ``readonly_contents``); VNCoercion.cpp
(``getStoreValueForLoad``, ``getMemInstValueForLoad``: the value a load reads from a clobbering
store, ``memset`` or ``memcpy`` from a constant; here ``Write.data`` and ``load_value``); GVN.cpp /
MemoryDependenceAnalysis (``AnalyzeLoadFromClobberingMemInst``, finding that write: PRE's
Datalog, or ``known_memory``'s dataflow); docs/pir.md (alloca, load, store).

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> fn = parse_module("func f() {\\ne:\\n p = alloca 8\\n store.4 p, 7\\n x = load.4 p\\n"
...                   " ret x\\n}\\n").functions[0]
>>> KnownBytes(fn).generated(fn.blocks[0].instrs[1])
{'load.4s(p)': 7}
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Optional

from pylogic.flow.address_roots import GLOBAL, alloca_roots, global_roots
from pylogic.identity_cache import IdentityCache
from pylogic.flow.memory_writes import MEMORY_COPIES, MEMORY_SETS, builtin_called
from pylogic.flow.readonly_globals import readonly_globals, written_globals
from pylogic.flow.spans import memory_offsets
from pylogic.flow.value_names import expression_of, operand_name, value_names
from pylogic.ir.model import (Alloca, BinOp, Call, Function, GlobalAddr, Imm, Instr, Load, Operand,
                              Reg, Ret, Store)


# ---------------------------------------------------------------- bytes: written, held, read

class Write(NamedTuple):
    """A write whose bytes ``data`` may know (``memory_write``): ``kind`` is ``alloca`` (fresh
    zeroed bytes, docs/pir.md), ``store``, ``set`` (``memset``) or ``copy`` (``memcpy``,
    ``memmove``); ``addr`` the address written (an alloca's: its own register); ``value`` the
    stored value, the byte set, or the copy's source; ``size`` the number of bytes."""
    kind: str
    addr: Operand
    value: Optional[Operand]
    size: Operand

    def data(self, constant: Callable, source: Callable,
             limit: int) -> Optional[tuple[tuple, dict]]:
        """``(bytes, slots)`` it writes: each byte 0..255 or None (unknown), and the
        ``relocated_contents`` slots a copy carries; None when the number of bytes is unknown
        or above ``limit``. ``constant(operand)``: its value when known, else None;
        ``source(operand, n)``: ``(bytes, slots)`` of the ``n`` bytes a copy's source holds
        (``contents_bytes``), else None."""
        n = constant(self.size)
        if n is None or not 0 <= n <= limit:
            return None
        if self.kind == "alloca":
            return (0,) * n, {}
        if self.kind == "copy":
            return source(self.value, n) or ((None,) * n, {})
        v = constant(self.value)
        if v is None:
            return (None,) * n, {}
        if self.kind == "store":        # little-endian, truncated (docs/pir.md ``store.N``)
            return tuple(((v & ((1 << (8 * n)) - 1)) >> (8 * i)) & 0xFF for i in range(n)), {}
        return (v & 0xFF,) * n, {}      # memset stores ``(unsigned char) c``


def memory_write(ins: Instr, defined=frozenset()) -> Optional[Write]:
    """The ``Write`` of ``ins`` -- an ``alloca``, a ``store``, a ``MEMORY_SETS`` or
    ``MEMORY_COPIES`` builtin (``memory_writes.builtin_called``: not defined in the module) --
    else None. Its guard is the caller's: a guarded write may or may not happen."""
    if isinstance(ins, Alloca):
        return Write("alloca", Reg(ins.dest), None, ins.size)
    if isinstance(ins, Store):
        return Write("store", ins.addr, ins.value, Imm(ins.size))
    name = builtin_called(ins, defined)
    if name is None or len(ins.args) < 3:
        return None
    kind = "set" if name in MEMORY_SETS else "copy" if name in MEMORY_COPIES else None
    return Write(kind, *ins.args[:3]) if kind else None


def contents_bytes(contents: dict, name: str, off: int, n: int) -> Optional[tuple[tuple, dict]]:
    """``(bytes, slots)`` of the ``n`` bytes at offset ``off`` of global ``name`` in
    ``contents`` (``readonly_contents``, ``relocated_contents``; slots re-based to ``off``,
    those overlapping the range), or None when it has no contents there."""
    got = contents.get(name)
    if got is None:
        return None
    size, init, slots = got
    if not (0 <= off and off + n <= size):
        return None
    return (tuple(init[off:off + n].ljust(n, b"\0")),
            {o - off: v for o, v in slots.items() if off - 8 < o < off + n})


def load_value(data, signed: bool) -> int:
    """What a load of the bytes ``data`` reads: little-endian, sign-extended, or zero-extended
    for ``load.Nu`` but for 8 bytes, a signed 64-bit value (docs/pir.md)."""
    return int.from_bytes(bytes(data), "little", signed=signed or len(data) == 8)


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
    # the blocks calling it found by their callees (``Block.callees``, kept per block: every
    # step of a pipeline asks for a module that keeps most blocks of the last)
    calls = [i for fn in fns.values() for b in fn.blocks if INIT_FUNCTION in b.callees()
             for i in b.instrs if isinstance(i, Call) and i.callee == INIT_FUNCTION]
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
    """``{name: (size, initial bytes, {})}`` of the ``flow.readonly_globals`` of ``module``:
    what they hold at every point of every run (the format of ``relocated_contents``; LLVM's
    ``ConstantFoldLoadFromConstPtr`` reads a ``constant`` global's initialiser the same way).
    The one source of those bytes for PRE (``function_contents``) and simplify."""
    ro = readonly_globals(module)
    return {g.name: (g.size, g.init, {}) for g in module.globals if g.name in ro}


def function_contents(module) -> Callable[[str], dict]:
    """``contents(function name)``: the ``KnownBytes`` contents of globals in that function --
    ``readonly_contents``, and in main also ``relocated_contents``. One per module object (read
    it, never change it): a PRE step's facts and rewrite share it, and with it their
    ``value_flow_inputs``."""
    def compute():
        ro = readonly_contents(module)
        main = {**ro, **relocated_contents(module)}
        return lambda name: main if name in ("@main", "main") else ro
    return _CONTENTS.get_or_compute(module, compute)


#: module -> its function_contents
_CONTENTS = IdentityCache(16)


#: Longest write whose bytes ``KnownBytes`` follows.
MAX_KNOWN = 1 << 16


#: the classes of the instructions ``memory_write`` can find a write in (``generated`` of any
#: other is empty)
WRITERS = (Alloca, Store, Call)


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
        self.alloca_of = alloca_roots(fn)
        self.allocas = {r for r, a in self.alloca_of.items() if r == a}
        self.global_of = global_roots(fn)
        self.offsets = memory_offsets(fn)
        self._memo = IdentityCache()             # instruction -> generated
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

    def written(self, ins: Instr) -> Optional[tuple[str, int, bytes, dict]]:
        """``(object, offset, bytes, slots)`` an unguarded write of known bytes
        (``memory_write``) puts there, or None."""
        w = memory_write(ins, self.defined) if ins.guard is None else None
        if w is None or w.kind == "alloca" and ins.dest not in self.allocas:
            return None
        at = (ins.dest, 0) if w.kind == "alloca" else self.place(w.addr)
        if at is None:
            return None

        def source(a, n):
            src = self.place(a)
            if src is None or not src[0].startswith(GLOBAL):
                return None
            return contents_bytes(self.contents, src[0][len(GLOBAL):], src[1], n)
        got = w.data(lambda a: a.value if isinstance(a, Imm) else None, source, MAX_KNOWN)
        if got is None or None in got[0] or (w.kind in ("set", "copy") and not got[0]):
            return None
        return at + (bytes(got[0]), got[1])

    def generated(self, ins: Instr) -> dict:
        """``{load name: the value it reads}`` right after ``ins`` (an int, or a GlobalAddr
        for an 8-byte load of a relocated address), for the loads inside the bytes ``ins``
        writes."""
        if not isinstance(ins, WRITERS):
            return {}           # no write (``memory_write``): asked of every instruction
        got = self._memo.get(ins)
        if got is not None:
            return got
        got = self.written(ins) if self.loads else None
        out = {}
        for name, off, size, signed in self.loads.get(got[0], ()) if got else ():
            v = self.value_in(got, off, size, signed)
            if v is not None:
                out[name] = v
        return self._memo.put(ins, out)

    @staticmethod
    def value_in(got: tuple, off: int, size: int, signed: bool):
        """What a load of ``size`` bytes at ``off`` reads after the write ``got`` (``written``):
        an int, a GlobalAddr (a relocated address), or None (not inside, or not known)."""
        _, lo, data, slots = got
        if not (lo <= off and off + size <= lo + len(data)):
            return None
        hit = [o for o in slots if o < off - lo + size and off - lo < o + 8]
        if not hit:
            return load_value(data[off - lo:off - lo + size], signed)
        if hit == [off - lo] and size == 8 and slots[off - lo] is not None:
            return slots[off - lo]
        return None
