"""PIR -> LLVM IR text for the native engine (``engine.py`` JIT-compiles it with llvmlite).

Each PIR function becomes ``i64 @pf<k>(i64 p0, ...)``; its registers are ``alloca`` slots set to
0 on entry (docs/pir.md: an unwritten register reads 0; LLVM's mem2reg turns them into SSA values), a
guarded instruction is a branch around its body (LLVM's SimplifyCFG makes selects of the cheap
ones), a predicate define computes its deposit type from an 8-entry truth table of
``deposit(dtype, g, c, old)`` (the interpreter's single source of truth).

The generated code keeps the interpreter's counters in globals: ``@pl_steps`` (instructions
reached: a block's length is charged on entry, a taken side exit refunds the rest),
``@pl_nul`` (nullified), ``@pl_calls``, one counter per branch site and target
(``@pl_edges``, the interpreter's edge indices), one per guarded ``ret`` (``@pl_exits``) and
per function entry (``@pl_entries``).

Anything the interpreter would report as a run-time error -- a bad address, division by zero,
exhausted input, an unknown extern, fuel or call depth beyond the limits, ``exit()`` -- sets
``@pl_abort`` and unwinds (every function returns at once). Fuel exhaustion is then made exact
by a second, *precise* compilation (the fuel counted and checked before every instruction, the
stop position recorded in ``@pl_stop``, kinds counted in ``@pl_kinds``); for the other cases
the engine reruns the program in the reference interpreter, which produces the exact error, location and counts; the native
code only has to be exact on runs that end normally. Its fuel and depth tests are conservative
(a block is charged in full before it runs), so a run that completes natively also completes in
the interpreter.

Memory is the interpreter's segmented memory: addresses are ``segment_id << 32 | offset``; the
segment table ``@pl_segtab`` (``id, base, length`` entries: direct for small ids, a window
indexed by ``id & @pl_winmask`` above ``@pl_segcap``; engine.py ``NativeMemory``) is consulted
on every load and store, so an access outside a live object faults exactly where the
interpreter's does; a store (and native ``memmove``/``memset``) goes through ``@pl_waddr``,
which also faults on the segment of a ``const global`` (docs/pir.md "Extensions"; their ids are
fixed at compile time, global k has id k + 1). ``alloca`` allocates natively with the
interpreter's segment ids, live-byte limit and peak (``@pl_alloca``; C memory, freed on return
by ``@pl_release``) except in
functions that use ``stacksave``/``stackrestore``, which call back into Python. The C library
builtins, ``input`` and ``print`` call back into Python (``engine.py``), except
``memcpy``/``memmove``/``memset``, which are done natively after the same bounds checks.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pylogic.ir.ops import builtin_name
from pylogic.interp.decode import resolve_function
from pylogic.interp.machine import KINDS, _KIND_OF
from pylogic.ir.deposit_types import deposit
from pylogic.ir.model import (
    MASK64, TRUE_PREDICATES, Alloca, BinOp, Br, Call, Cmp, CondBr, Function, GlobalAddr, Imm,
    Input, Instr, Load, Module, Mov, PredDefine, Print, Reg, Ret, Select, Store, UnOp,
    to_signed64)

# abort codes (``@pl_abort``)
ABORT_FAULT, ABORT_FUEL, ABORT_DEPTH, ABORT_CALLBACK = 1, 2, 3, 4

_ICMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge",
         "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge"}
_BIN = {"add": "add", "sub": "sub", "mul": "mul", "and": "and", "or": "or", "xor": "xor",
        "shl": "shl", "shr": "lshr", "sar": "ashr"}
#: builtins done natively (the interpreter's ``Builtins`` methods of the same meaning)
NATIVE_BUILTINS = ("memmove", "memset")

_PRELUDE = """\
@pl_steps = global i64 0
@pl_fuel = global i64 0
@pl_nul = global i64 0
@pl_calls = global i64 0
@pl_depth = global i64 0
@pl_maxdepth = global i64 0
@pl_abort = global i64 0
@pl_segtab = global ptr null
@pl_segcap = global i64 0
@pl_winmask = global i64 0
@pl_nextid = global i64 1
@pl_live = global i64 0
@pl_peak = global i64 0
@pl_limit = global i64 0
@pl_astack = global ptr null
@pl_atop = global i64 0
@pl_acap = global i64 0
@pl_cb_alloca = global ptr null
@pl_cb_frame = global ptr null
@pl_cb_builtin = global ptr null
@pl_cb_input = global ptr null
@pl_cb_print = global ptr null

declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define internal i64 @pl_slot(i64 %sid) alwaysinline {
  %d = load i64, ptr @pl_segcap
  %mask = load i64, ptr @pl_winmask
  %isd = icmp ult i64 %sid, %d
  %w = and i64 %sid, %mask
  %wi = add i64 %d, %w
  %idx = select i1 %isd, i64 %sid, i64 %wi
  %i3 = mul i64 %idx, 3
  ret i64 %i3
}

define internal ptr @pl_addr(i64 %a, i64 %n) alwaysinline {
  %sid = lshr i64 %a, 32
  %i3 = call i64 @pl_slot(i64 %sid)
  %tab = load ptr, ptr @pl_segtab
  %pk = getelementptr i64, ptr %tab, i64 %i3
  %key = load i64, ptr %pk
  %live = icmp eq i64 %key, %sid
  br i1 %live, label %look, label %bad
look:
  %pb = getelementptr i64, ptr %pk, i64 1
  %base = load i64, ptr %pb
  %pl = getelementptr i64, ptr %pk, i64 2
  %len = load i64, ptr %pl
  %off = and i64 %a, 4294967295
  %end = add i64 %off, %n
  %fits = icmp ule i64 %end, %len
  br i1 %fits, label %good, label %bad
good:
  %p = add i64 %base, %off
  %pp = inttoptr i64 %p to ptr
  ret ptr %pp
bad:
  store i64 1, ptr @pl_abort
  ret ptr null
}

declare ptr @calloc(i64, i64)
declare void @free(ptr)

define internal i64 @pl_alloca(i64 %size) {
  %neg = icmp slt i64 %size, 0
  %big = icmp sgt i64 %size, 4294967295
  %no = or i1 %neg, %big
  br i1 %no, label %bad, label %c1
c1:
  %live = load i64, ptr @pl_live
  %nl = add i64 %live, %size
  %lim = load i64, ptr @pl_limit
  %over = icmp sgt i64 %nl, %lim
  br i1 %over, label %bad, label %c2
c2:
  %sid = load i64, ptr @pl_nextid
  %i3 = call i64 @pl_slot(i64 %sid)
  %tab = load ptr, ptr @pl_segtab
  %pk = getelementptr i64, ptr %tab, i64 %i3
  %key = load i64, ptr %pk
  %busy = icmp ne i64 %key, 0
  br i1 %busy, label %grow, label %c3
grow:
  %grown = call i64 @pl_grow()
  %again = icmp ne i64 %grown, 0
  br i1 %again, label %c2, label %bad
c3:
  %top = load i64, ptr @pl_atop
  %acap = load i64, ptr @pl_acap
  %full = icmp uge i64 %top, %acap
  br i1 %full, label %bad, label %c4
c4:
  %n1 = add i64 %size, 1
  %p = call ptr @calloc(i64 %n1, i64 1)
  %pn = icmp eq ptr %p, null
  br i1 %pn, label %bad, label %ok
ok:
  store i64 %sid, ptr %pk
  %pb = getelementptr i64, ptr %pk, i64 1
  %base = ptrtoint ptr %p to i64
  store i64 %base, ptr %pb
  %pl = getelementptr i64, ptr %pk, i64 2
  store i64 %size, ptr %pl
  store i64 %nl, ptr @pl_live
  %peak = load i64, ptr @pl_peak
  %up = icmp sgt i64 %nl, %peak
  %np = select i1 %up, i64 %nl, i64 %peak
  store i64 %np, ptr @pl_peak
  %sid1 = add i64 %sid, 1
  store i64 %sid1, ptr @pl_nextid
  %as = load ptr, ptr @pl_astack
  %pa = getelementptr i64, ptr %as, i64 %top
  store i64 %sid, ptr %pa
  %top1 = add i64 %top, 1
  store i64 %top1, ptr @pl_atop
  %addr = shl i64 %sid, 32
  ret i64 %addr
bad:
  store i64 1, ptr @pl_abort
  ret i64 0
}

define internal void @pl_release(i64 %mark) {
entry:
  br label %loop
loop:
  %top = load i64, ptr @pl_atop
  %done = icmp sle i64 %top, %mark
  br i1 %done, label %exit, label %body
body:
  %t1 = sub i64 %top, 1
  %as = load ptr, ptr @pl_astack
  %pa = getelementptr i64, ptr %as, i64 %t1
  %sid = load i64, ptr %pa
  %i3 = call i64 @pl_slot(i64 %sid)
  %tab = load ptr, ptr @pl_segtab
  %pk = getelementptr i64, ptr %tab, i64 %i3
  %pb = getelementptr i64, ptr %pk, i64 1
  %base = load i64, ptr %pb
  %pl = getelementptr i64, ptr %pk, i64 2
  %len = load i64, ptr %pl
  %p = inttoptr i64 %base to ptr
  call void @free(ptr %p)
  store i64 0, ptr %pk
  store i64 0, ptr %pb
  store i64 0, ptr %pl
  %live = load i64, ptr @pl_live
  %nl = sub i64 %live, %len
  store i64 %nl, ptr @pl_live
  store i64 %t1, ptr @pl_atop
  br label %loop
exit:
  ret void
}

define internal i64 @pl_memmove(i64 %d, i64 %s, i64 %n) {
  %z = icmp eq i64 %n, 0
  br i1 %z, label %done, label %check
check:
  %neg = icmp slt i64 %n, 0
  br i1 %neg, label %bad, label %go
go:
  %ps = call ptr @pl_addr(i64 %s, i64 %n)
  %bs = icmp eq ptr %ps, null
  br i1 %bs, label %done, label %go2
go2:
  %pd = call ptr @pl_waddr(i64 %d, i64 %n)
  %bd = icmp eq ptr %pd, null
  br i1 %bd, label %done, label %copy
copy:
  call void @llvm.memmove.p0.p0.i64(ptr %pd, ptr %ps, i64 %n, i1 false)
  br label %done
bad:
  store i64 1, ptr @pl_abort
  br label %done
done:
  ret i64 %d
}

define internal i64 @pl_memset(i64 %d, i64 %c, i64 %n) {
  %z = icmp eq i64 %n, 0
  br i1 %z, label %done, label %check
check:
  %neg = icmp slt i64 %n, 0
  br i1 %neg, label %bad, label %go
go:
  %pd = call ptr @pl_waddr(i64 %d, i64 %n)
  %bd = icmp eq ptr %pd, null
  br i1 %bd, label %done, label %fill
fill:
  %c8 = trunc i64 %c to i8
  call void @llvm.memset.p0.i64(ptr %pd, i8 %c8, i64 %n, i1 false)
  br label %done
bad:
  store i64 1, ptr @pl_abort
  br label %done
done:
  ret i64 %d
}
"""


#: precise mode: one call per instruction (small code, so the variant compiles quickly)
_TICK = """\
define internal i1 @pl_tick(i64 %pos, i64 %kind) noinline {
  %s = load i64, ptr @pl_steps
  %f = load i64, ptr @pl_fuel
  %out = icmp sge i64 %s, %f
  br i1 %out, label %stop, label %go
stop:
  store i64 %pos, ptr @pl_stop
  store i64 2, ptr @pl_abort
  ret i1 false
go:
  %s1 = add i64 %s, 1
  store i64 %s1, ptr @pl_steps
  %pk = getelementptr i64, ptr @pl_kinds, i64 %kind
  %k = load i64, ptr %pk
  %k1 = add i64 %k, 1
  store i64 %k1, ptr %pk
  ret i1 true
}
"""


class _Fault(Exception):
    """The instruction faults whenever it executes (unknown symbol, relation, ...)."""


@dataclass
class FunctionInfo:
    """What the engine needs of one compiled function to rebuild the interpreter's counts."""
    name: str
    index: int
    nparams: int
    first_label: str
    edges: list = field(default_factory=list)  # global edge indices, in the interpreter's order
    # per block: (label, kind vector of the reached prefix, side exits [(position in block,
    # counter kind "edge"|"exit", counter index(es))])
    blocks: list = field(default_factory=list)


#: ``@pl_grow``, called when the window slot of the next segment id is held by a live object:
#: 1 when the segment table was enlarged (try again), 0 to fault. In the engine the run is then
#: replayed in the interpreter (0); an exported program's runtime enlarges its table
#: (``runtime.c`` ``pl_grow``).
_NO_GROW = "define internal i64 @pl_grow() {\n  ret i64 0\n}\n"
_EXTERN_GROW = "declare i64 @pl_grow()\n"


def _write_address(readonly: list) -> str:
    """``@pl_waddr``: ``@pl_addr`` for a write, null (a fault) in the segments ``readonly``
    (the ids of the module's const globals)."""
    if not readonly:
        return ("define internal ptr @pl_waddr(i64 %a, i64 %n) alwaysinline {\n"
                "  %p = call ptr @pl_addr(i64 %a, i64 %n)\n  ret ptr %p\n}\n")
    cases = " ".join(f"i64 {sid}, label %bad" for sid in readonly)
    return ("define internal ptr @pl_waddr(i64 %a, i64 %n) alwaysinline {\n"
            "  %sid = lshr i64 %a, 32\n"
            f"  switch i64 %sid, label %ok [ {cases} ]\n"
            "ok:\n  %p = call ptr @pl_addr(i64 %a, i64 %n)\n  ret ptr %p\n"
            "bad:\n  store i64 1, ptr @pl_abort\n  ret ptr null\n}\n")


@dataclass
class CompiledModule:
    text: str
    functions: dict  # name -> FunctionInfo
    edges: list  # global edge index -> (function name, src label, dst label)
    n_exits: int
    builtins: list  # builtin id -> (name, callable key)
    global_addrs: dict
    positions: list  # precise mode: ``@pl_stop`` value -> (function, block label, Instr|None)


class ModuleCompiler:
    def __init__(self, module: Module, precise: bool = False, export: bool = False):
        self.module = module
        self.precise = precise
        self.export = export
        self.positions: list = []  # precise mode: stop position id -> (function, label, instr)
        self.functions = module.function_map()
        self.global_addrs = {g.name: (i + 1) << 32 for i, g in enumerate(module.globals)}
        self.defined = [f for f in module.functions if not f.extern and f.blocks]
        self.fid = {f.name: k for k, f in enumerate(self.defined)}
        self.edges: list = []
        self.n_exits = 0
        self.builtins: list = []
        self.builtin_ids: dict = {}
        self.out: list = []
        self.infos: dict = {}

    def compile(self, builtin_lookup) -> CompiledModule:
        self.lookup = builtin_lookup
        body = []
        for f in self.defined:
            body.append(FunctionCompiler(self, f).compile())
        n_e, n_x, n_f = max(1, len(self.edges)), max(1, self.n_exits), max(1, len(self.defined))
        head = [_PRELUDE,
                f"@pl_edges = global [{n_e} x i64] zeroinitializer",
                f"@pl_exits = global [{n_x} x i64] zeroinitializer",
                f"@pl_entries = global [{n_f} x i64] zeroinitializer",
                f"@pl_kinds = global [{len(KINDS)} x i64] zeroinitializer",
                "@pl_stop = global i64 -1", _TICK, _EXTERN_GROW if self.export else _NO_GROW,
                _write_address([i + 1 for i, g in enumerate(self.module.globals) if g.const]), ""]
        for f in self.defined:  # entry points taking an argument vector
            k = self.fid[f.name]
            n = len(f.params)
            lines = [f"define i64 @pl_entry{k}(ptr %args) {{"]
            for i in range(n):
                lines.append(f"  %p{i} = getelementptr i64, ptr %args, i64 {i}")
                lines.append(f"  %a{i} = load i64, ptr %p{i}")
            args = ", ".join(f"i64 %a{i}" for i in range(n))
            lines += [f"  %r = call i64 @pf{k}({args})", "  ret i64 %r", "}", ""]
            head.append("\n".join(lines))
        return CompiledModule("\n".join(head + body), self.infos, self.edges, self.n_exits,
                              self.builtins, self.global_addrs, self.positions)

    def builtin_id(self, name: str) -> int:
        k = self.builtin_ids.get(name)
        if k is None:
            k = self.builtin_ids[name] = len(self.builtins)
            self.builtins.append(name)
        return k


def _unguarded(ins: Instr) -> bool:
    return ins.guard is None or ins.guard in TRUE_PREDICATES


def _reads_old(dtype: str) -> bool:
    """Whether a deposit type's new value depends on the destination's old value."""
    try:
        return any(deposit(dtype, g, c, 0) != deposit(dtype, g, c, 1)
                   for g in (0, 1) for c in (0, 1))
    except ValueError:
        return False


def _kind_vector(instrs) -> tuple:
    v = [0] * len(KINDS)
    for ins in instrs:
        v[_KIND_OF.get(type(ins), len(KINDS) - 1)] += 1
    return tuple(v)


class FunctionCompiler:
    def __init__(self, mc: ModuleCompiler, f: Function):
        self.mc = mc
        self.f = f
        self.k = mc.fid[f.name]
        self.lines: list = []
        self.tmp = 0
        self.slots: dict = {}
        defined = set(f.params)
        for b in f.blocks:
            for ins in b.instrs:
                defined.update(ins.defs())
        self.defined = defined
        self.start: dict = {}
        for i, b in enumerate(f.blocks):
            self.start.setdefault(b.label, i)
        self.edge_index: dict = {}
        self.info = FunctionInfo(f.name, self.k, len(f.params),
                                 f.blocks[0].label if f.blocks else "")
        stack_calls = any(isinstance(ins, Call) and (
            ins.callee.lstrip("@").startswith("llvm.stack") or
            ins.callee.lstrip("@") in ("stacksave", "stackrestore"))
            for b in f.blocks for ins in b.instrs)
        allocas = any(isinstance(ins, Alloca) for b in f.blocks for ins in b.instrs)
        # stacksave/stackrestore work on the interpreter's frame list: such functions allocate
        # through the Python callback; the others allocate natively (``@pl_alloca``) and free
        # their stack objects on return (``@pl_release``)
        self.frames = stack_calls
        self.native_frames = allocas and not stack_calls

    # ------------------------------------------------------------ helpers

    def t(self) -> str:
        self.tmp += 1
        return f"%t{self.tmp}"

    def label(self) -> str:
        self.tmp += 1
        return f"L{self.tmp}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def place(self, label: str) -> None:
        self.lines.append(f"{label}:")

    def slot(self, name: str) -> str:
        s = self.slots.get(name)
        if s is None:
            s = self.slots[name] = f"%r{len(self.slots)}"
        return s

    def val(self, op) -> str:
        if isinstance(op, Imm):
            return str(to_signed64(op.value))
        name = op.name
        if isinstance(op, Reg):
            if name in TRUE_PREDICATES:
                return "1"
            if name not in self.defined and name in self.mc.global_addrs:
                return str(self.mc.global_addrs[name])
            r = self.t()
            self.emit(f"{r} = load i64, ptr {self.slot(name)}")
            return r
        if isinstance(op, GlobalAddr) and name in self.mc.global_addrs:
            return str(self.mc.global_addrs[name])
        raise _Fault(name)

    def store(self, dest, value: str) -> None:
        if dest is None or dest in TRUE_PREDICATES:
            return
        self.emit(f"store i64 {value}, ptr {self.slot(dest)}")

    def bump(self, glob: str, by: int = 1, index: int | None = None) -> None:
        ptr = glob
        if index is not None:
            ptr = self.t()
            self.emit(f"{ptr} = getelementptr i64, ptr {glob}, i64 {index}")
        a, b = self.t(), self.t()
        self.emit(f"{a} = load i64, ptr {ptr}")
        self.emit(f"{b} = add i64 {a}, {by}")
        self.emit(f"store i64 {b}, ptr {ptr}")

    def abort(self, code: int) -> None:
        self.emit(f"store i64 {code}, ptr @pl_abort")
        self.emit("br label %unwind")

    def check_abort(self) -> None:
        a, c, nxt = self.t(), self.t(), self.label()
        self.emit(f"{a} = load i64, ptr @pl_abort")
        self.emit(f"{c} = icmp ne i64 {a}, 0")
        self.emit(f"br i1 {c}, label %unwind, label %{nxt}")
        self.place(nxt)

    def truth(self, v: str) -> str:
        c = self.t()
        self.emit(f"{c} = icmp ne i64 {v}, 0")
        return c

    def edge(self, src: str, dst: str, pc: tuple) -> int:
        key = (pc, dst)
        k = self.edge_index.get(key)
        if k is None:
            k = self.edge_index[key] = len(self.mc.edges)
            self.mc.edges.append((self.f.name, src, dst))
            self.info.edges.append(k)
        return k

    # ------------------------------------------------------------ function

    def compile(self) -> str:
        f = self.f
        params = ", ".join(f"i64 %arg{i}" for i in range(len(f.params)))
        self.place("top")
        self.bump("@pl_depth")
        d, c = self.t(), self.t()
        self.emit(f"{d} = load i64, ptr @pl_depth")
        self.emit(f"{c} = load i64, ptr @pl_maxdepth")
        ok, bad = self.label(), self.label()
        x = self.t()
        self.emit(f"{x} = icmp sgt i64 {d}, {c}")
        self.emit(f"br i1 {x}, label %{bad}, label %{ok}")
        self.place(bad)
        self.abort(3)
        self.place(ok)
        # typed parameters (docs/pir.md "Extensions"): an argument outside its range faults
        for k, p in enumerate(f.params):
            lo_hi = f.param_ranges().get(p) if f.param_types else None
            if lo_hi is None:
                continue
            lo, hi = lo_hi
            a, b, c = self.t(), self.t(), self.t()
            self.emit(f"{a} = icmp slt i64 %arg{k}, {lo}")
            self.emit(f"{b} = icmp sgt i64 %arg{k}, {hi}")
            self.emit(f"{c} = or i1 {a}, {b}")
            good, bad_arg = self.label(), self.label()
            self.emit(f"br i1 {c}, label %{bad_arg}, label %{good}")
            self.place(bad_arg)
            self.abort(ABORT_FAULT)
            self.place(good)
        self.bump("@pl_entries", 1, self.k)
        if not self.mc.precise:
            s = self.t()
            self.emit(f"{s} = load i64, ptr @pl_steps")
            self.fuel_check(s)
        if self.frames:
            self.frame(0)
            self.check_abort()
        if self.native_frames:
            self.emit("%mark = load i64, ptr @pl_atop")
        self.emit("br label %B0")
        self.headers = self.loop_headers()
        for i, b in enumerate(f.blocks):
            self.block(i, b)
        self.place("unwind")
        self.emit("ret i64 0")
        # entry block: register slots, zeroed (docs/pir.md), parameters stored
        entry = [f"define internal i64 @pf{self.k}({params}) {{", "entry:"]
        for name, s in self.slots.items():
            entry.append(f"  {s} = alloca i64")
        zero = self.maybe_unwritten()
        for name, s in self.slots.items():
            if name in zero:  # a zero store where none is needed costs SROA a lot of time
                entry.append(f"  store i64 0, ptr {s}")
        for i, p in enumerate(f.params):
            if p in self.slots:
                entry.append(f"  store i64 %arg{i}, ptr {self.slots[p]}")
        entry.append("  %bargs = alloca [16 x i64]")
        entry.append("  br label %top")
        self.lines.append("}")
        self.lines.append("")
        self.mc.infos[f.name] = self.info
        return "\n".join(entry + self.lines)

    def maybe_unwritten(self) -> set:
        """Registers some read of which may come before any write (docs/pir.md: they read 0):
        a must-be-written forward dataflow over the blocks (bit sets), parameters written on
        entry, guarded writes not counting."""
        f = self.f
        bit = {name: 1 << i for i, name in enumerate(self.slots)}
        everything = (1 << len(bit)) - 1
        params = 0
        for p in f.params:
            params |= bit.get(p, 0)
        n = len(f.blocks)
        IN = [everything] * n
        if n:
            IN[0] = params
        need = 0

        def walk(i, record):
            nonlocal need
            cur = IN[i]
            out = []
            for ins in f.blocks[i].instrs:
                reads = [op.name for op in ins.uses() if isinstance(op, Reg)]
                if ins.guard is not None:
                    reads.append(ins.guard)
                if isinstance(ins, PredDefine):
                    reads += [d.name for d in ins.dests if _reads_old(d.dtype)]
                if record:
                    for r in reads:
                        b = bit.get(r, 0)
                        if b and not cur & b:
                            need |= b
                if isinstance(ins, Br):
                    out.append((ins.target, cur))
                elif isinstance(ins, CondBr):
                    out += [(ins.if_true, cur), (ins.if_false, cur)]
                if ins.is_terminator and _unguarded(ins):
                    break
                if _unguarded(ins) or isinstance(ins, PredDefine):
                    for d in ins.defs():
                        cur |= bit.get(d, 0)
            return out

        changed = True
        while changed:
            changed = False
            for i in range(n):
                for target, state in walk(i, False):
                    j = self.start.get(target)
                    if j is not None and IN[j] & state != IN[j]:
                        IN[j] &= state
                        changed = True
        for i in range(n):
            walk(i, True)
        return {name for name, b in bit.items() if need & b}

    def tick(self, label: str, ins) -> None:
        """Precise mode: stop before this instruction when the fuel is spent (``@pl_tick``
        records where), else count it (and its kind)."""
        pos = len(self.mc.positions)
        self.mc.positions.append((self.f.name, label, ins))
        ok, go = self.t(), self.label()
        kind = _KIND_OF.get(type(ins), len(KINDS) - 1)
        self.emit(f"{ok} = call i1 @pl_tick(i64 {pos}, i64 {kind})")
        self.emit(f"br i1 {ok}, label %{go}, label %unwind")
        self.place(go)

    def fuel_check(self, steps: str) -> None:
        f, c = self.t(), self.t()
        self.emit(f"{f} = load i64, ptr @pl_fuel")
        self.emit(f"{c} = icmp sgt i64 {steps}, {f}")
        ok, bad = self.label(), self.label()
        self.emit(f"br i1 {c}, label %{bad}, label %{ok}")
        self.place(bad)
        self.abort(ABORT_FUEL)
        self.place(ok)

    def loop_headers(self) -> set:
        """Blocks entered by a retreating edge of a depth-first search from the entry."""
        succ = []
        for b in self.f.blocks:
            out = []
            for ins in b.instrs:
                if isinstance(ins, Br):
                    out.append(ins.target)
                elif isinstance(ins, CondBr):
                    out += [ins.if_true, ins.if_false]
                if ins.is_terminator and _unguarded(ins):
                    break
            succ.append([self.start[t] for t in out if t in self.start])
        headers, state = set(), {0: 1}
        stack = [(0, iter(succ[0]))] if succ else []
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                headers.add(nxt)
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(succ[nxt])))
        return headers

    def block(self, i: int, b) -> None:
        self.place(f"B{i}")
        instrs = list(b.instrs)
        end = len(instrs)
        for j, ins in enumerate(instrs):
            if ins.is_terminator and _unguarded(ins):
                end = j + 1
                break
        reached = instrs[:end]
        closed = end >= 1 and reached[-1].is_terminator and _unguarded(reached[-1])
        length = len(reached) + (0 if closed else 1)
        exits = []
        after = [()] * len(reached)  # kind vector of the instructions after each one
        acc = [0] * len(KINDS)
        for j in range(len(reached) - 1, -1, -1):
            after[j] = tuple(acc)
            acc[_KIND_OF.get(type(reached[j]), len(KINDS) - 1)] += 1
        self.info.blocks.append((b.label, tuple(acc), exits, after))
        # fuel: charge the block in full; compare with the fuel at loop headers only (and at
        # function entries; the engine compares once more at the end): every cycle of the
        # CFG passes a header, and a completed run is rejected if it overspent.
        precise = self.mc.precise
        if not precise:
            s, n = self.t(), self.t()
            self.emit(f"{s} = load i64, ptr @pl_steps")
            self.emit(f"{n} = add i64 {s}, {length}")
            self.emit(f"store i64 {n}, ptr @pl_steps")
            if i in self.headers:
                self.fuel_check(n)
        for j, ins in enumerate(reached):
            rest = 0 if precise else length - (j + 1)
            if precise:
                self.tick(b.label, ins)
            self.instr(ins, (i, j), b.label, rest, exits, j)
        if not closed:
            if precise:
                self.tick(b.label, None)
            self.abort(ABORT_FAULT)  # control reaches the end of the block

    def instr(self, ins: Instr, pc: tuple, label: str, rest: int, exits: list, j: int) -> None:
        if isinstance(ins, PredDefine) or _unguarded(ins):
            try:
                self.body(ins, pc, label, rest, exits, j, guarded=False)
            except _Fault:
                self.abort(ABORT_FAULT)
                self.place(self.label())
            return
        g = self.val(Reg(ins.guard))
        c = self.truth(g)
        do, skip, nxt = self.label(), self.label(), self.label()
        self.emit(f"br i1 {c}, label %{do}, label %{skip}")
        self.place(skip)
        self.bump("@pl_nul")
        self.emit(f"br label %{nxt}")
        self.place(do)
        try:
            ends = self.body(ins, pc, label, rest, exits, j, guarded=True)
        except _Fault:
            self.abort(ABORT_FAULT)
            ends = True
        if not ends:
            self.emit(f"br label %{nxt}")
        self.place(nxt)

    def refund(self, rest: int) -> None:
        if rest:
            self.bump("@pl_steps", -rest)

    def jump(self, src: str, target: str, pc: tuple) -> None:
        if target not in self.start:
            self.abort(ABORT_FAULT)
            return
        self.bump("@pl_edges", 1, self.edge(src, target, pc))
        self.emit(f"br label %B{self.start[target]}")

    def frame(self, op: int) -> None:
        """Frame callback: 0 on entry, 1 on return (alloca memory of the call is freed)."""
        fp = self.t()
        self.emit(f"{fp} = load ptr, ptr @pl_cb_frame")
        self.emit(f"call void {fp}(i64 {op}, i64 {self.k})")

    def ret(self, value: str) -> None:
        if self.frames:
            self.frame(1)
        if self.native_frames:
            self.emit("call void @pl_release(i64 %mark)")
        self.bump("@pl_depth", -1)
        self.emit(f"ret i64 {value}")

    def body(self, ins, pc, label, rest, exits, j, guarded) -> bool:
        """Emit one instruction; True when it ends control (the block's code after it is dead)."""
        if isinstance(ins, Br):
            if guarded:
                if ins.target in self.start:
                    exits.append((j, "edge", (self.edge(label, ins.target, pc),)))
                self.refund(rest)
            self.jump(label, ins.target, pc)
            return True
        if isinstance(ins, CondBr):
            cond = self.truth(self.val(ins.cond))
            if guarded:
                ks = tuple(self.edge(label, t, pc) for t in dict.fromkeys(
                    (ins.if_true, ins.if_false)) if t in self.start)
                exits.append((j, "edge", ks))
                self.refund(rest)
            lt, lf = self.label(), self.label()
            self.emit(f"br i1 {cond}, label %{lt}, label %{lf}")
            self.place(lt)
            self.jump(label, ins.if_true, pc)
            self.place(lf)
            self.jump(label, ins.if_false, pc)
            return True
        if isinstance(ins, Ret):
            value = self.val(ins.value) if ins.value is not None else "0"
            if guarded:
                x = self.mc.n_exits
                self.mc.n_exits += 1
                exits.append((j, "exit", (x,)))
                self.bump("@pl_exits", 1, x)
                self.refund(rest)
            self.ret(value)
            return True
        if isinstance(ins, Call):
            self.call(ins)
            return False
        self.simple(ins)
        return False

    def call(self, ins: Call) -> None:
        callee = resolve_function(self.mc.functions, ins.callee)
        args = [self.val(a) for a in ins.args]
        if callee is not None:
            k = self.mc.fid[callee.name]
            n = len(callee.params)
            args = (args + ["0"] * n)[:n]
            self.bump("@pl_calls")
            r = self.t()
            self.emit(f"{r} = call i64 @pf{k}({', '.join('i64 ' + a for a in args)})")
            self.check_abort()
            self.store(ins.dest, r)
            return
        name = builtin_name(ins.callee)
        builtin = self.mc.lookup(ins.callee)
        if builtin is None:
            raise _Fault(ins.callee)
        self.bump("@pl_calls")
        key = getattr(builtin, "__name__", "")
        if key in NATIVE_BUILTINS and name in ("memcpy", "memmove", "__memcpy_chk",
                                               "__memmove_chk", "memset", "__memset_chk"):
            a = (args + ["0", "0", "0"])[:3]
            r = self.t()
            self.emit(f"{r} = call i64 @pl_{key}(i64 {a[0]}, i64 {a[1]}, i64 {a[2]})")
            self.check_abort()
            self.store(ins.dest, r)
            return
        bid = self.mc.builtin_id(ins.callee)
        if len(args) > 16:
            raise _Fault(ins.callee)
        for i, a in enumerate(args):
            p = self.t()
            self.emit(f"{p} = getelementptr i64, ptr %bargs, i64 {i}")
            self.emit(f"store i64 {a}, ptr {p}")
        fp, r = self.t(), self.t()
        self.emit(f"{fp} = load ptr, ptr @pl_cb_builtin")
        self.emit(f"{r} = call i64 {fp}(i64 {bid}, ptr %bargs, i64 {len(args)})")
        self.check_abort()
        self.store(ins.dest, r)

    def cmp(self, rel: str, a, b) -> str:
        if rel not in _ICMP:
            raise _Fault(rel)
        va, vb = self.val(a), self.val(b)
        c = self.t()
        self.emit(f"{c} = icmp {_ICMP[rel]} i64 {va}, {vb}")
        return c

    def zext(self, c: str) -> str:
        r = self.t()
        self.emit(f"{r} = zext i1 {c} to i64")
        return r

    def simple(self, ins) -> None:
        if isinstance(ins, Mov):
            self.store(ins.dest, self.val(ins.src))
        elif isinstance(ins, BinOp):
            self.binop(ins)
        elif isinstance(ins, UnOp):
            a = self.val(ins.a)
            r = self.t()
            if ins.op == "neg":
                self.emit(f"{r} = sub i64 0, {a}")
            elif ins.op == "not":
                self.emit(f"{r} = xor i64 {a}, -1")
            else:
                raise _Fault(ins.op)
            self.store(ins.dest, r)
        elif isinstance(ins, Cmp):
            self.store(ins.dest, self.zext(self.cmp(ins.rel, ins.a, ins.b)))
        elif isinstance(ins, Select):
            c = self.truth(self.val(ins.cond))
            a, b = self.val(ins.a), self.val(ins.b)
            r = self.t()
            self.emit(f"{r} = select i1 {c}, i64 {a}, i64 {b}")
            self.store(ins.dest, r)
        elif isinstance(ins, PredDefine):
            self.pred_define(ins)
        elif isinstance(ins, Load):
            a = self.val(ins.addr)
            p = self.address(a, ins.size)
            r = self.t()
            bits = 8 * ins.size
            if bits == 64:
                self.emit(f"{r} = load i64, ptr {p}, align 1")
            else:
                v = self.t()
                self.emit(f"{v} = load i{bits}, ptr {p}, align 1")
                self.emit(f"{r} = {'sext' if ins.signed else 'zext'} i{bits} {v} to i64")
            self.store(ins.dest, r)
        elif isinstance(ins, Store):
            a = self.val(ins.addr)
            v = self.val(ins.value)
            p = self.address(a, ins.size, write=True)
            bits = 8 * ins.size
            if bits != 64:
                w = self.t()
                self.emit(f"{w} = trunc i64 {v} to i{bits}")
                v = w
            self.emit(f"store i{bits} {v}, ptr {p}, align 1")
        elif isinstance(ins, Alloca) and self.native_frames:
            size = self.val(ins.size)
            r = self.t()
            self.emit(f"{r} = call i64 @pl_alloca(i64 {size})")
            self.check_abort()
            self.store(ins.dest, r)
        elif isinstance(ins, Alloca):
            size = self.val(ins.size)
            fp, r = self.t(), self.t()
            self.emit(f"{fp} = load ptr, ptr @pl_cb_alloca")
            self.emit(f"{r} = call i64 {fp}(i64 {self.k}, i64 {size})")
            self.check_abort()
            self.store(ins.dest, r)
        elif isinstance(ins, Input):
            fp, r = self.t(), self.t()
            self.emit(f"{fp} = load ptr, ptr @pl_cb_input")
            self.emit(f"{r} = call i64 {fp}()")
            self.check_abort()
            self.store(ins.dest, r)
        elif isinstance(ins, Print):
            v = self.val(ins.value)
            fp = self.t()
            self.emit(f"{fp} = load ptr, ptr @pl_cb_print")
            self.emit(f"call void {fp}(i64 {v})")
        else:
            raise _Fault(type(ins).__name__)

    def address(self, a: str, size: int, write: bool = False) -> str:
        if size not in (1, 2, 4, 8):
            raise _Fault(f"size {size}")
        p, z = self.t(), self.t()
        self.emit(f"{p} = call ptr @{'pl_waddr' if write else 'pl_addr'}(i64 {a}, i64 {size})")
        self.emit(f"{z} = icmp eq ptr {p}, null")
        ok = self.label()
        self.emit(f"br i1 {z}, label %unwind, label %{ok}")
        self.place(ok)
        return p

    def binop(self, ins: BinOp) -> None:
        op = ins.op
        a, b = self.val(ins.a), self.val(ins.b)
        r = self.t()
        if op in ("add", "sub", "mul", "and", "or", "xor"):
            self.emit(f"{r} = {_BIN[op]} i64 {a}, {b}")
        elif op in ("shl", "shr", "sar"):
            m = self.t()
            self.emit(f"{m} = and i64 {b}, 63")
            self.emit(f"{r} = {_BIN[op]} i64 {a}, {m}")
        elif op in ("div", "rem"):
            z = self.t()
            self.emit(f"{z} = icmp eq i64 {b}, 0")
            ok, bad = self.label(), self.label()
            self.emit(f"br i1 {z}, label %{bad}, label %{ok}")
            self.place(bad)
            self.abort(ABORT_FAULT)
            self.place(ok)
            m1, safe, q, alt = self.t(), self.t(), self.t(), self.t()
            # INT64_MIN / -1 wraps to INT64_MIN, INT64_MIN % -1 is 0 (docs/pir.md; LLVM: undefined)
            self.emit(f"{m1} = icmp eq i64 {b}, -1")
            self.emit(f"{safe} = select i1 {m1}, i64 1, i64 {b}")
            self.emit(f"{q} = {'sdiv' if op == 'div' else 'srem'} i64 {a}, {safe}")
            if op == "div":
                self.emit(f"{alt} = sub i64 0, {a}")
            else:
                self.emit(f"{alt} = add i64 0, 0")
            self.emit(f"{r} = select i1 {m1}, i64 {alt}, i64 {q}")
        else:
            raise _Fault(op)
        self.store(ins.dest, r)

    def pred_define(self, ins: PredDefine) -> None:
        guarded = not _unguarded(ins)
        tables = []
        for d in ins.dests:
            if d.name in TRUE_PREDICATES:
                continue
            try:
                table = sum(deposit(d.dtype, g, c, o) << (g * 4 + c * 2 + o)
                            for g in (0, 1) for c in (0, 1) for o in (0, 1))
            except ValueError:
                raise _Fault(d.dtype)
            tables.append((d.name, table))
        c = self.zext(self.cmp(ins.rel, ins.a, ins.b))
        if guarded:
            g = self.zext(self.truth(self.val(Reg(ins.guard))))
        else:
            g = "1"
        olds = []
        for name, table in tables:  # every old value before any destination is written
            if (table >> 1 & 0x55) == (table & 0x55):  # the new value ignores the old one
                olds.append("0")
            else:
                olds.append(self.zext(self.truth(self.val(Reg(name)))))
        for (name, table), old in zip(tables, olds):
            i1, i2, i3, i4, sh, r = (self.t() for _ in range(6))
            self.emit(f"{i1} = shl i64 {g}, 2")
            self.emit(f"{i2} = shl i64 {c}, 1")
            self.emit(f"{i3} = or i64 {i1}, {i2}")
            self.emit(f"{i4} = or i64 {i3}, {old}")
            self.emit(f"{sh} = lshr i64 {table}, {i4}")
            self.emit(f"{r} = and i64 {sh}, 1")
            self.store(name, r)


def compile_module(module: Module, builtin_lookup, precise: bool = False,
                   export: bool = False) -> CompiledModule:
    """LLVM IR text of ``module`` plus the tables to rebuild the interpreter's counts.

    ``precise``: count and check the fuel before every instruction (and count kinds), so that
    a run that exhausts its fuel stops exactly where the interpreter's does (``@pl_stop``).
    ``export``: for a standalone program (``pylogic/interp/native/export.py``): ``@pl_grow``
    is left to its runtime."""
    return ModuleCompiler(module, precise, export).compile(builtin_lookup)


__all__ = ["compile_module", "CompiledModule", "FunctionInfo", "MASK64"]
