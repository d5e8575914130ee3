"""The native engine: ``run_module_native(module, ...)`` runs PIR as JIT-compiled machine code.

Same signature and result as ``pylogic.interp.run_module``. The module is compiled once
(``compile.py`` -> LLVM IR -> llvmlite MCJIT at -O2; cached by module identity like the
interpreter's decoded machines) and run on a thread with a large stack (deep PIR recursion is
native recursion here).

Exactness: a run that ends normally (the entry function returns) gives the interpreter's output,
return value, counts (``instructions``, ``nullified``, ``executed``, ``branches_taken``,
``calls``), kinds, edge and block profiles and peak memory: the memory is the interpreter's
``Memory`` (the same segment ids in the same order), the C library is the interpreter's
``Builtins``. A run that exhausts its fuel is rerun by a variant compiled to count and check
the fuel before every instruction (``compile_module(precise=True)``), which stops where the
interpreter stops, with its message, location, counts and kinds (``"native (exact fuel)"``).
Any other run that does not end normally -- a run-time error, the call-depth limit,
``exit()``/``abort()`` -- is *replayed in the reference interpreter*, whose result is returned
(``RunResult.engine`` says ``"interp (replay: ...)"``), so errors, their locations and the
counts up to them are the interpreter's by construction. A module the native compiler cannot
handle (LLVM rejects it) runs in the interpreter too, with the reason in ``RunResult.engine``.
"""
from __future__ import annotations

import ctypes
import threading
import time
from typing import Iterable

import llvmlite.binding as llvm

from pylogic.errors import RunError, SourceLoc
from pylogic.identity_cache import IdentityCache
from pylogic.interp.builtins import Builtins
from pylogic.interp.decode import resolve_function
from pylogic.interp.machine import (DEFAULT_FUEL, DEFAULT_MAX_DEPTH, DEFAULT_MEMORY_LIMIT,
                                    ERROR_STATUS, KINDS, run_module)
from pylogic.interp.memory import Memory
from pylogic.interp.native.compile import ABORT_CALLBACK, compile_module
from pylogic.interp.result import RunResult
from pylogic.ir.model import Module, to_signed64, uses_exit_splitting
from pylogic.ir.ops import Fault

#: the interpreter's speed assumed when choosing how to make a fuel exhaustion exact
INTERP_RATE = 4e6  # PIR instructions per second (runs/bench-interp.json: 3.5-7 M/s)
#: compile time of the precise variant relative to the fast one (measured: 1.1-1.3x)
PRECISE_COST = 1.2
STACK_SIZE = 512 << 20
ASTACK = 1 << 20  # live native stack objects at most (more: the run is replayed)
_free = ctypes.CDLL(None).free
_free.argtypes = [ctypes.c_void_p]  # bytes of native stack for a run (10,000 PIR frames of ~50 KB)

_ALLOCA_CB = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)
_FRAME_CB = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64)
_BUILTIN_CB = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64),
                               ctypes.c_int64)
_INPUT_CB = ctypes.CFUNCTYPE(ctypes.c_int64)
_PRINT_CB = ctypes.CFUNCTYPE(None, ctypes.c_int64)
_ENTRY = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.POINTER(ctypes.c_int64))

_INITIALIZED = False
#: LLVM passes run on the generated code (``optimize``) and the code generator's level.
PIPELINE = "cheap"
PRECISE_PIPELINE = "sroa"  # the precise variant runs once, to the fuel: compile it quickly
CODEGEN_OPT = 0


def _target_machine():
    """A fresh target machine: an MCJIT engine takes ownership of (and disposes) its own."""
    global _INITIALIZED
    if not _INITIALIZED:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _INITIALIZED = True
    return llvm.Target.from_default_triple().create_target_machine(opt=CODEGEN_OPT)


def optimize(llmod, tm, pipeline: str) -> None:
    """Run LLVM passes on ``llmod``: ``O2`` (LLVM's -O2), ``cheap`` (inline the address check,
    registers to SSA, instcombine, simplifycfg: most of the speed for a fraction of the
    compile time), ``full`` (cheap + GVN + DSE), ``sroa`` (registers to SSA only)."""
    if pipeline == "O2":
        pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
        pb.getModulePassManager().run(llmod, pb)
        return
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0))
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_always_inliner_pass()
    fpm = llvm.create_new_function_pass_manager()
    fpm.add_sroa_pass()
    if pipeline != "sroa":
        fpm.add_instruction_combine_pass()
        fpm.add_simplify_cfg_pass()
    if pipeline == "full":
        fpm.add_new_gvn_pass()
        fpm.add_dead_store_elimination_pass()
        fpm.add_instruction_combine_pass()
        fpm.add_simplify_cfg_pass()
    mpm.run(llmod, pb)
    for f in llmod.functions:
        if not f.is_declaration:
            fpm.run(f, pb)


class NativeSegment:
    """A stack object allocated by native code, seen by the builtins as a ``bytearray``
    (length, slices, slice assignment of the same length, ``find``)."""

    def __init__(self, base: int, size: int):
        self.base, self.size = base, size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, _ = index.indices(self.size)
            return ctypes.string_at(self.base + start, max(0, stop - start))
        return ctypes.c_uint8.from_address(self.base + index).value

    def __setitem__(self, index, data) -> None:
        start, stop, _ = index.indices(self.size)
        assert len(data) == stop - start
        ctypes.memmove(self.base + start, bytes(data), len(data))

    def find(self, sub, start: int = 0, end=None) -> int:
        data = self[start:end if end is not None else self.size]
        i = data.find(sub if isinstance(sub, bytes) else bytes((sub,)))
        return -1 if i < 0 else i + start


class NativeMemory(Memory):
    """The interpreter's segmented memory, shared with native code.

    The segment table the native code reads has entries ``(segment id, base address, length)``
    (id 0 when free): a direct part for ids below ``direct`` (globals and early objects), then
    a window indexed by ``id & (window - 1)`` for later ids (ids are never reused, so a direct
    table would grow with every ``alloca`` ever made). An allocation whose window slot is held
    by a live object makes the run fall back (native: the run is replayed in the interpreter;
    Python: the window doubles). Objects the builtins allocate (``malloc``, globals) are
    ``bytearray``s pinned while live; native ``alloca`` objects live in C memory and are seen
    through ``NativeSegment``. ``next_id``, ``live_bytes`` and ``peak_bytes`` live in the
    native globals once the engine is bound, so both sides count the same objects."""

    def __init__(self, limit: int = DEFAULT_MEMORY_LIMIT, direct: int = 1024,
                 window: int = 1 << 18):
        self._cells = {name: ctypes.c_int64(0) for name in ("next_id", "live_bytes",
                                                           "peak_bytes", "limit")}
        super().__init__(limit)
        self.direct, self.window = direct, window
        self.table = (ctypes.c_int64 * (3 * (direct + window)))()
        self.pins: dict = {}
        self.on_grow = None  # engine: publish the new table to the native globals

    def bind(self, cells: dict) -> None:
        """Move the counters into the native globals (``name -> c_int64 at its address``)."""
        for name, cell in cells.items():
            cell.value = self._cells[name].value
        self._cells = cells

    next_id = property(lambda self: self._cells["next_id"].value,
                       lambda self, v: setattr(self._cells["next_id"], "value", v))
    live_bytes = property(lambda self: self._cells["live_bytes"].value,
                          lambda self, v: setattr(self._cells["live_bytes"], "value", v))
    peak_bytes = property(lambda self: self._cells["peak_bytes"].value,
                          lambda self, v: setattr(self._cells["peak_bytes"], "value", v))
    limit = property(lambda self: self._cells["limit"].value,
                     lambda self, v: setattr(self._cells["limit"], "value", v))

    def slot(self, sid: int) -> int:
        return 3 * (sid if sid < self.direct else self.direct + (sid & (self.window - 1)))

    def _grow_window(self) -> None:
        old = [(self.table[i], self.table[i + 1], self.table[i + 2])
               for i in range(3 * self.direct, len(self.table), 3) if self.table[i]]
        self.window *= 2
        table = (ctypes.c_int64 * (3 * (self.direct + self.window)))()
        ctypes.memmove(table, self.table, 3 * 8 * self.direct)
        self.table = table
        for sid, base, size in old:
            i = self.slot(sid)
            if table[i]:
                raise Fault("segment table collision")  # the run is replayed
            table[i], table[i + 1], table[i + 2] = sid, base, size
        if self.on_grow is not None:
            self.on_grow()

    def reset(self, limit: int) -> None:
        for sid in self.segments:  # native objects are gone already (release_native_stack)
            i = self.slot(sid)
            self.table[i] = self.table[i + 1] = self.table[i + 2] = 0
        super().reset(limit)
        self.pins.clear()

    def alloc(self, size: int, kind: str) -> int:
        addr = super().alloc(size, kind)
        sid = addr >> 32
        while self.table[self.slot(sid)]:
            if self.window >= 1 << 24:
                raise Fault("segment table collision")
            self._grow_window()
        buf = self.segments[sid]
        i = self.slot(sid)
        if buf:
            pin = (ctypes.c_char * len(buf)).from_buffer(buf)
            self.pins[sid] = pin
            self.table[i + 1] = ctypes.addressof(pin)
        self.table[i] = sid
        self.table[i + 2] = len(buf)
        return addr

    def release(self, sid: int, how: str) -> None:
        super().release(sid, how)
        i = self.slot(sid)
        self.table[i] = self.table[i + 1] = self.table[i + 2] = 0
        self.pins.pop(sid, None)

    def locate(self, addr: int, size: int, access: str):
        sid = addr >> 32
        buf = self.segments.get(sid)
        if buf is None and sid > 0:
            i = self.slot(sid)
            if self.table[i] == sid:
                buf = NativeSegment(self.table[i + 1], self.table[i + 2])
        off = addr & 0xFFFFFFFF
        if buf is None or off + size > len(buf):
            self.bad_access(addr, size, access)
        return buf, off


class NativeUnavailable(Exception):
    """The module cannot run natively (the reason is the message); the interpreter runs it."""


class NativeMachine:
    """A compiled module plus its run-time state (memory, output, callbacks)."""

    def __init__(self, module: Module, precise: bool = False):
        self.module = module
        self.precise = precise
        self.busy = False
        self.memory = NativeMemory(direct=1 << max(10, (len(module.globals) + 256).bit_length()))
        self.stdout: list = []
        self.inputs: list = []
        self.allocas: list = []
        self.frame_stack: list = []
        self.failure = None
        self.builtins = Builtins(self.memory, self.stdout)
        self.builtins.frames = self
        self.functions = module.function_map()
        if uses_exit_splitting(module):
            raise NativeUnavailable("exit splitting (ret.N, call ... to L0, L1) is not compiled "
                                    "natively; the interpreter runs it")
        t0 = time.process_time()  # CPU time: the host may be shared (select.py's cost model)
        try:
            self.compiled = compile_module(module, self.builtins.lookup, precise)
            tm = _target_machine()
            llmod = llvm.parse_assembly(self.compiled.text)
            llmod.verify()
            optimize(llmod, tm, PRECISE_PIPELINE if precise else PIPELINE)
            self.engine = llvm.create_mcjit_compiler(llmod, tm)
            self.engine.finalize_object()
        except Exception as exc:  # LLVM rejected what we generated: say so, run interpreted
            raise NativeUnavailable(f"native compilation failed: {exc}") from exc
        self.llmod = llmod
        self.compile_seconds = time.process_time() - t0
        addr = self.engine.get_global_value_address
        self.g = {name: ctypes.c_int64.from_address(addr("pl_" + name))
                  for name in ("steps", "fuel", "nul", "calls", "depth", "maxdepth", "abort",
                               "segcap", "winmask", "atop", "acap")}
        self.segtab = ctypes.c_void_p.from_address(addr("pl_segtab"))
        self.memory.bind({name: ctypes.c_int64.from_address(addr("pl_" + glob))
                          for name, glob in (("next_id", "nextid"), ("live_bytes", "live"),
                                             ("peak_bytes", "peak"), ("limit", "limit"))})
        self.astack = (ctypes.c_int64 * ASTACK)()
        ctypes.c_void_p.from_address(addr("pl_astack")).value = ctypes.addressof(self.astack)
        self.g["acap"].value = ASTACK
        c = self.compiled
        self.edge_counts = (ctypes.c_int64 * max(1, len(c.edges))).from_address(addr("pl_edges"))
        self.exit_counts = (ctypes.c_int64 * max(1, c.n_exits)).from_address(addr("pl_exits"))
        self.entry_counts = (ctypes.c_int64 * max(1, len(c.functions))).from_address(
            addr("pl_entries"))
        self.kind_counters = (ctypes.c_int64 * len(KINDS)).from_address(addr("pl_kinds"))
        self.stop = ctypes.c_int64.from_address(addr("pl_stop"))
        self.builtin_fns = [self.builtins.lookup(name) for name in c.builtins]
        self.fnames = {info.index: name for name, info in c.functions.items()}
        self.callbacks = {  # kept alive as long as the machine
            "alloca": _ALLOCA_CB(self._alloca), "frame": _FRAME_CB(self._frame),
            "builtin": _BUILTIN_CB(self._builtin), "input": _INPUT_CB(self._input),
            "print": _PRINT_CB(self._print)}
        for name, cb in self.callbacks.items():
            ctypes.c_void_p.from_address(addr("pl_cb_" + name)).value = \
                ctypes.cast(cb, ctypes.c_void_p).value
        self.memory.on_grow = self._publish_table
        self._publish_table()
        self.global_addrs = c.global_addrs

    # ------------------------------------------------------------ callbacks (never raise)

    def _publish_table(self) -> None:
        self.segtab.value = ctypes.addressof(self.memory.table)
        self.g["segcap"].value = self.memory.direct
        self.g["winmask"].value = self.memory.window - 1

    def _fail(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc
        self.g["abort"].value = ABORT_CALLBACK

    def _alloca(self, fid: int, size: int) -> int:
        try:
            addr = self.memory.alloc(size, f"alloca in {self.fnames[fid]}")
            self.allocas.append(addr >> 32)
            return addr
        except BaseException as exc:
            self._fail(exc)
            return 0

    def _frame(self, op: int, fid: int) -> None:
        try:
            if op == 0:
                self.frame_stack.append(self.allocas)
                self.allocas = []
            else:
                how = f"its call of {self.fnames[fid]} returned"
                for sid in self.allocas:
                    self.memory.release(sid, how)
                self.allocas = self.frame_stack.pop()
        except BaseException as exc:
            self._fail(exc)

    def _builtin(self, bid: int, args, n: int) -> int:
        try:
            result = self.builtin_fns[bid](*[args[i] for i in range(n)])
            return to_signed64(int(result or 0))
        except BaseException as exc:
            self._fail(exc)
            return 0

    def _input(self) -> int:
        if self.inputs:
            return self.inputs.pop()
        self._fail(Fault("input exhausted"))
        return 0

    def _print(self, value: int) -> None:
        self.stdout.append(value)

    # ------------------------------------------------------------ running

    def release_native_stack(self) -> None:
        """Free the C memory of native stack objects a run left behind (it stopped early)."""
        top = self.g["atop"].value
        table = self.memory.table
        for k in range(top):
            i = self.memory.slot(self.astack[k])
            if table[i] == self.astack[k] and table[i + 1]:
                _free(table[i + 1])
            table[i] = table[i + 1] = table[i + 2] = 0
        self.g["atop"].value = 0

    def reset(self, inputs, fuel: int, memory_limit: int, max_depth: int) -> None:
        self.release_native_stack()
        self.memory.reset(memory_limit)
        self.stdout.clear()
        self.inputs[:] = [to_signed64(int(v)) for v in reversed(list(inputs))]
        self.allocas = []
        self.frame_stack = []
        self.failure = None
        for name in ("steps", "nul", "calls", "depth", "abort", "atop"):
            self.g[name].value = 0
        self.g["fuel"].value = fuel
        self.g["maxdepth"].value = max_depth + 1
        for arr in (self.edge_counts, self.exit_counts, self.entry_counts, self.kind_counters):
            ctypes.memset(arr, 0, ctypes.sizeof(arr))
        self.stop.value = -1

    def run(self, entry: str, args, inputs, fuel: int, memory_limit: int,
            capture_profile: bool, max_depth: int):
        """A RunResult, or the reason the run must be replayed in the interpreter."""
        f = resolve_function(self.functions, entry)
        if f is None:
            return "no entry function"
        self.reset(inputs, fuel, memory_limit, max_depth)
        try:
            for k, g in enumerate(self.module.globals):
                addr = self.memory.alloc(max(g.size, len(g.init)), f"global {g.name}")
                self.memory.write(addr, g.init)
                if g.const:     # compiled in as segment k + 1 (compile.py @pl_waddr)
                    if addr >> 32 != k + 1:
                        return "global layout fault"
                    self.memory.readonly.add(addr >> 32)
        except Fault:
            return "global layout fault"
        info = self.compiled.functions[f.name]
        argv = (ctypes.c_int64 * max(1, info.nparams))()
        for i, value in zip(range(info.nparams), args):
            argv[i] = to_signed64(int(value))
        fn = _ENTRY(self.engine.get_function_address(f"pl_entry{info.index}"))
        box = {}

        def go():
            box["value"] = fn(argv)

        old = threading.stack_size()
        try:
            threading.stack_size(STACK_SIZE)
            th = threading.Thread(target=go, name="pathlogic-native")
            th.start()
        except (RuntimeError, ValueError, MemoryError) as exc:  # no room for the stack
            return f"native thread: {exc}"
        finally:
            threading.stack_size(old)
        th.join()
        abort = self.g["abort"].value
        if not abort and self.g["steps"].value > fuel:
            abort = 2  # overspent between two fuel checks
        if abort == 2 and self.precise and self.stop.value >= 0 and self.failure is None:
            fname, label, ins = self.compiled.positions[self.stop.value]
            message = f"fuel exhausted: more than {fuel} instructions"
            loc = ins.loc if ins is not None and ins.loc is not None else \
                SourceLoc(self.module.path)
            error = RunError(f"{message} in {fname} block {label}", loc)
            error.fault = message  # as Machine.location_error
            return self.result(0, capture_profile, error)
        if abort or "value" not in box:
            reason = {1: "run-time fault", 2: "fuel", 3: "call depth"}.get(abort)
            if reason is None:
                reason = type(self.failure).__name__ if self.failure is not None else "abort"
            return reason
        # the entry function's own allocas were released by its frame callback (if it has any)
        return self.result(box["value"], capture_profile)

    def result(self, return_value: int, capture_profile: bool, error=None) -> RunResult:
        c = self.compiled
        out = self.stdout
        data = b"".join(x if isinstance(x, bytes) else b"%d\n" % x for x in out)
        steps = self.g["steps"].value
        nullified = self.g["nul"].value
        edge_counts = list(self.edge_counts)[:len(c.edges)]
        counts = {"instructions": steps, "nullified": nullified, "executed": steps - nullified,
                  "branches_taken": sum(edge_counts), "calls": self.g["calls"].value}
        edges, blocks = {}, {}
        entries = list(self.entry_counts)
        exits = list(self.exit_counts)
        kinds_of = None
        if capture_profile:
            for name, info in c.functions.items():
                if entries[info.index]:
                    blocks[(name, info.first_label)] = entries[info.index]
                for k in info.edges:
                    n = edge_counts[k]
                    if n:
                        key = c.edges[k]
                        edges[key] = edges.get(key, 0) + n
                        blocks[key[0], key[2]] = blocks.get((key[0], key[2]), 0) + n
            if self.precise:  # counted per instruction
                kinds = dict(zip(KINDS, list(self.kind_counters)))
                kinds_of = kinds.copy
            else:
                kinds_of = _kinds_closure(c, entries, edge_counts, exits)
        return RunResult(
            stdout=data.decode("utf-8", "replace"), stdout_bytes=data,
            prints=[x for x in out if not isinstance(x, bytes)],
            return_value=to_signed64(return_value) if error is None else 0,
            exit_status=return_value & 0xFF if error is None else ERROR_STATUS,
            error=error, counts=counts, kinds_of=kinds_of, edge_profile=edges,
            block_profile=blocks, peak_memory=self.memory.peak_bytes)


def _kinds_closure(c, entries, edge_counts, exits):
    def kinds() -> dict:
        return kind_counts(c, entries, edge_counts, exits)
    return kinds


def kind_counts(c, entries, edge_counts, exits) -> dict:
    """Instructions reached by kind, for a run that ended normally: each block is entered
    (branches to it, function entries for the first) and runs to its terminator unless a side
    exit is taken, which leaves the rest of the block unreached."""
    total = [0] * len(KINDS)
    for name, info in c.functions.items():
        into: dict = {}
        for k in info.edges:
            n = edge_counts[k]
            if n:
                dst = c.edges[k][2]
                into[dst] = into.get(dst, 0) + n
        seen = set()
        for pos, (label, whole, side, after) in enumerate(info.blocks):
            if label in seen:  # a repeated label: branches go to the first block
                continue
            seen.add(label)
            n = into.get(label, 0) + (entries[info.index] if pos == 0 else 0)
            if not n:
                continue
            for i, w in enumerate(whole):
                total[i] += n * w
            for j, kind, ids in side:
                t = sum(edge_counts[x] for x in ids) if kind == "edge" else exits[ids[0]]
                if t:
                    for i, w in enumerate(after[j]):
                        total[i] -= t * w
    return dict(zip(KINDS, total))


# ---------------------------------------------------------------- public entry point

#: module (tag: precise) -> its compiled machine, or the NativeUnavailable it raised.
MACHINES = IdentityCache(16)


def machine_for(module: Module, precise: bool = False):
    """The compiled machine of ``module`` (cached by identity), or NativeUnavailable."""
    hit = MACHINES.get(module, precise)
    if hit is not None:
        if isinstance(hit, NativeUnavailable):
            raise hit
        return hit if not hit.busy else NativeMachine(module, precise)
    try:
        machine = NativeMachine(module, precise)
    except NativeUnavailable as exc:
        machine = exc
    MACHINES.put(module, machine, precise)
    if isinstance(machine, NativeUnavailable):
        raise machine
    return machine


def run_module_native(module: Module, entry: str = "main", args: Iterable[int] = (),
                      inputs: Iterable[int] = (), fuel: int = DEFAULT_FUEL,
                      memory_limit: int = DEFAULT_MEMORY_LIMIT, capture_profile: bool = True,
                      max_depth: int = DEFAULT_MAX_DEPTH,
                      variants: tuple = (False, True)) -> RunResult:
    """``pylogic.interp.run_module`` on native code: the same parameters and result.

    ``variants``: the compiled variants tried in turn (False: fast, True: precise); ``(True,)``
    compiles only the precise one, which gives the same result on every run that ends
    normally or by fuel (``select.py`` takes it for long runs).

    A run that exhausts its fuel is run again by a variant compiled to count and check the fuel
    before every instruction, which stops exactly where the interpreter does (or by the
    interpreter when that is estimated to be cheaper than compiling the variant:
    ``PRECISE_COST``, ``INTERP_RATE``). Other runs that
    do not end normally, and modules that cannot be compiled, are run by the interpreter (the
    oracle); ``RunResult.engine`` records which engine produced the result.
    """
    args, inputs = tuple(args), tuple(inputs)
    reason = None
    for precise in variants:
        try:
            machine = machine_for(module, precise)
        except NativeUnavailable as exc:
            reason = str(exc)
            break
        machine.busy = True
        try:
            res = machine.run(entry, args, inputs, fuel, memory_limit, capture_profile,
                              max_depth)
        finally:
            machine.busy = False
        if isinstance(res, RunResult):
            res.engine = "native" if not precise else "native (exact fuel)" if \
                res.error is not None else "native (precise variant)"
            return res
        reason = res
        if res != "fuel":  # only fuel exhaustion has a native second chance
            break
        if MACHINES.get(module, True) is None and \
                PRECISE_COST * machine.compile_seconds > fuel / INTERP_RATE:
            reason = "fuel (interpreting is cheaper than compiling the precise variant)"
            break
    res = run_module(module, entry=entry, args=args, inputs=inputs, fuel=fuel,
                     memory_limit=memory_limit, capture_profile=capture_profile,
                     max_depth=max_depth)
    res.engine = f"interp (replay: {reason})"
    return res


__all__ = ["run_module_native", "NativeMachine", "NativeUnavailable", "kind_counts",
           "ERROR_STATUS", "RunError", "SourceLoc"]
