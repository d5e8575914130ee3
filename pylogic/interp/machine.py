"""The reference interpreter: runs a PIR module exactly as docs/pir.md says, with counts and profiles.

The machine keeps an explicit frame stack (no Python recursion), so deep PIR recursion ends in a
clear "call depth limit" error. Functions are decoded once per module (``decode.py``), each on its
first call, and the decoded module is cached, so running the same module on many inputs pays
decoding once.

Stack memory (``alloca``) is freed when its call returns; a later access through a saved pointer
is a run-time error ("use of dead memory"), as is any access outside a live object.

Counts by kind of instruction (``RunResult.kinds``) cost nothing while running: they are derived
after the run from the branch counters the decoded code keeps anyway (one per branch site), the
function entries and where the run stopped (``kind_counts``, when ``RunResult.kinds`` is read).
"""
from __future__ import annotations

from functools import partial
from typing import Iterable, Optional

from pylogic.errors import RunError, SourceLoc
from pylogic.identity_cache import IdentityCache
from pylogic.interp.builtins import Builtins, ProgramExit
from pylogic.interp.decode import FunctionCode, FunctionDecoder, resolve_function, unknown_symbol
from pylogic.interp.defaults import (DEFAULT_FUEL, DEFAULT_MAX_DEPTH, DEFAULT_MEMORY_LIMIT,
                                     ERROR_STATUS)
from pylogic.interp.memory import Memory
from pylogic.interp.result import RunResult
from pylogic.ir.model import (
    Alloca, BinOp, Br, Call, Cmp, CondBr, Input, Load, Module, Mov, PredDefine, Print, Ret,
    Select, Store, UnOp, to_signed64)
from pylogic.ir.ops import PYTHON_NAMES, Fault

#: Instruction kinds of ``RunResult.kinds`` (instructions reached, nullified ones included):
#: ``computations`` are the expressions (arithmetic, compares, selects), ``moves`` the copies
#: (``mov``: what register coalescing removes, so instruction counts are reported with and
#: without them; issue #28 item 2).
KINDS = ("branches", "computations", "moves", "loads", "stores", "predicate_defines", "calls",
         "returns", "other")
_FIELD = 64  # bits per kind in the packed kind vectors of ``kind_counts``
_KIND_OF = {Br: 0, CondBr: 0, BinOp: 1, UnOp: 1, Cmp: 1, Select: 1, Mov: 2, Load: 3, Store: 4,
            PredDefine: 5, Call: 6, Ret: 7, Alloca: 8, Input: 8, Print: 8}


class DecodedFunctions(dict):
    """Function name -> ``FunctionCode``, each decoded on its first use (issue #12 item 3:
    decoding every function up front was 96% of a short run of a big module). Only the
    functions a run entered are here, and only they have counts or profiles to report."""

    def __init__(self, machine: "Machine"):
        super().__init__()
        self.machine = machine
        self.order = {f.name: k for k, f in enumerate(machine.module.functions)}

    def __missing__(self, name: str) -> FunctionCode:
        fc = self[name] = self.machine.decode(name)
        return fc

    def in_module_order(self) -> list[FunctionCode]:
        """The decoded functions in the module's order (profiles list them so, as before)."""
        return sorted(self.values(), key=lambda fc: self.order[fc.name])


class CallSites(dict):
    """Call site pc -> (callee's ``FunctionCode``, destination slot), the callee decoded when the
    site is first executed."""

    def __init__(self, code: DecodedFunctions, call_sites: dict):
        super().__init__()
        self.code, self.call_sites = code, call_sites

    def __missing__(self, pc: int) -> tuple:
        name, dest = self.call_sites[pc]
        entry = self[pc] = (self.code[name], dest)
        return entry


class Machine:
    """A decoded module plus the per-run state its decoded code refers to (reset by ``run``)."""

    def __init__(self, module: Module, observer=None, reference: bool = False):
        self.module = module
        self.reference = reference
        self.memory = Memory()
        self.stdout: list = []  # ints from `print`, bytes from builtins, in order
        self.inputs: list = []  # remaining inputs, reversed (pop from the end)
        self.nullified = [0]
        self.calls = [0]
        self.state = [0]  # the fuel budget left when decoded code returns or raises
        # the reference form (tests/interp/test_fused.py): one instruction at a time throughout,
        # every 64-bit wrap written out (the decoded code before the fused functions)
        self.stepping = reference
        self.box = [None]  # call arguments / return value passed to the machine loop
        self.exit_box = [0]  # the exit of the last ``ret.N`` (exit splitting), 0 after ``ret``
        self.allocas: list = []  # segment ids alloca'd by the current frame
        self.busy = False
        self.builtins = Builtins(self.memory, self.stdout)
        self.builtins.frames = self  # llvm.stackrestore frees this frame's allocas
        # docs/pir.md: a global's name is its address; segment i+1 is laid out again on every run.
        self.global_addrs = {g.name: (i + 1) << 32 for i, g in enumerate(module.globals)}
        shared = {
            "SEGS": self.memory.segments, "BAD": self.memory.bad_access, "FROM": int.from_bytes,
            "SO": self.stdout, "NUL": self.nullified, "CALLS": self.calls, "BOX": self.box,
            "XB": self.exit_box,
            "ST": self.state,
            "INPUT": self.read_input, "ALLOCA": self.alloca, **PYTHON_NAMES,
            "SYM": unknown_symbol, "Fault": Fault,
            # segment ids of const globals (docs/pir.md "Extensions"): a store there faults
            "RO": frozenset(i + 1 for i, g in enumerate(module.globals) if g.const),
        }
        if observer is not None:  # hooks in the decoded code (interp/observe.py)
            shared.update(observer.attach(self))
        self.functions = module.function_map()
        self.shared = shared
        self.code = DecodedFunctions(self)

    def decode(self, name: str) -> FunctionCode:
        """``name`` decoded (``DecodedFunctions`` calls this on its first use)."""
        f = self.functions[name]
        if f.extern or not f.blocks:
            raise KeyError(name)
        fc = FunctionDecoder(f, self.functions, self.global_addrs, self.builtins,
                             self.shared, self.reference).decode()
        fc.sites = CallSites(self.code, fc.call_sites)
        return fc

    # ------------------------------------------------------------ helpers used by decoded code

    def read_input(self) -> int:
        if self.inputs:
            return self.inputs.pop()
        raise Fault("input exhausted: the program read more values than were given")

    def alloca(self, size: int, what: str) -> int:
        addr = self.memory.alloc(size, what)
        self.allocas.append(addr >> 32)
        return addr

    # ------------------------------------------------------------ running

    def reset(self, inputs: Iterable[int], memory_limit: int) -> None:
        self.memory.reset(memory_limit)
        self.stdout.clear()
        self.inputs[:] = [to_signed64(int(v)) for v in reversed(list(inputs))]
        self.nullified[0] = 0
        self.calls[0] = 0
        self.box[0] = None
        self.exit_box[0] = 0
        self.allocas = []
        for fc in self.code.values():  # fresh counters: a finished run's stay with its result
            ns = fc.decoder.ns
            fc.edge_counts = ns["EC"] = [0] * len(fc.edge_counts)
            if fc.exit_counts:
                fc.exit_counts = ns["XC"] = [0] * len(fc.exit_counts)
            fc.entries = 0

    def layout_globals(self) -> None:
        for g in self.module.globals:
            addr = self.memory.alloc(max(g.size, len(g.init)), f"global {g.name}")
            self.memory.write(addr, g.init)
            if g.const:
                self.memory.readonly.add(addr >> 32)

    def location_error(self, fc: FunctionCode, pc: int, message: str) -> RunError:
        ins = fc.instrs[pc] if 0 <= pc < len(fc.instrs) else None
        label = fc.labels[pc] if 0 <= pc < len(fc.labels) else "?"
        loc = ins.loc if ins is not None and ins.loc is not None else SourceLoc(self.module.path)
        error = RunError(f"{message} in {fc.name} block {label}", loc)
        error.fault = message  # without the location, for comparing runs of different code
        return error

    def run(self, entry: str = "main", args: Iterable[int] = (), inputs: Iterable[int] = (),
            fuel: int = DEFAULT_FUEL, memory_limit: int = DEFAULT_MEMORY_LIMIT,
            capture_profile: bool = True, max_depth: int = DEFAULT_MAX_DEPTH,
            pause=None, first_slice: int = 0) -> Optional[RunResult]:
        """Run ``entry`` once. Program faults end up in ``RunResult.error``; nothing is raised.

        ``pause``: the run is cut into slices of fuel, the first of ``first_slice``
        instructions; when a slice is spent and fuel is left, ``pause(executed)`` returns the
        next slice's length, or 0 to abandon the run (``run`` then returns None). The slices
        change nothing else (the engine selection's cost model, ``native/select.py``)."""
        self.reset(inputs, memory_limit)
        f = resolve_function(self.functions, entry)
        if f is None:
            return RunResult(error=RunError(f"no function {entry} to run",
                                            SourceLoc(self.module.path)),
                             exit_status=ERROR_STATUS)
        fc = self.code[f.name]
        try:
            self.layout_globals()
        except Fault as exc:
            return RunResult(error=RunError(str(exc), SourceLoc(self.module.path)),
                             exit_status=ERROR_STATUS)

        box, calls, memory, state = self.box, self.calls, self.memory, self.state
        exit_box = self.exit_box
        R = [0] * fc.nregs
        args = [to_signed64(int(v)) for v in args]
        for slot, value in zip(fc.param_slots, args):
            R[slot] = value
        bad = fc.param_checks and fc.bad_argument(args)
        if bad:
            return RunResult(error=RunError(bad, SourceLoc(self.module.path)),
                             exit_status=ERROR_STATUS)
        pc, frames, fast = 0, [], not self.stepping
        cut = None  # where the run stopped in ``fc``, if inside it (``kind_counts``)
        fc.entries += 1
        # Fuel: ``budget`` is what is left; a segment is charged in full before it runs and a
        # taken side exit refunds the rest (``decode.py``). When the budget cannot cover the
        # next segment, the run continues one instruction at a time (exact to the instruction).
        budget, return_value, error = fuel, 0, None
        reserve = 0  # fuel not yet handed to a slice (``pause``)
        if pause is not None and 0 < first_slice < fuel:
            budget, reserve = first_slice, fuel - first_slice
        while True:
            if fast:
                try:
                    pc = fc.run(R, pc, budget)
                except (Fault, ProgramExit) as exc:
                    pc, refund = fc.fault_at(exc)
                    # the faulting instruction counts, the rest charged is refunded
                    budget = state[0] + refund
                    cut = pc + 1
                    if isinstance(exc, ProgramExit):
                        return_value = exc.status
                    else:
                        error = self.location_error(fc, pc, str(exc))
                    break
                budget = state[0]
                if pc >= 0:  # the budget does not cover the segment at pc
                    if reserve:  # a slice is spent: go on, or abandon the run
                        more = min(reserve, pause(fuel - reserve - budget))
                        if more <= 0:
                            return None
                        budget += more
                        reserve -= more
                    else:
                        fast = False
                    continue
            else:
                if budget <= 0:
                    error = self.location_error(
                        fc, pc, f"fuel exhausted: more than {fuel} instructions")
                    cut = pc
                    break
                steps = fc.steps
                try:
                    for i in range(budget):
                        pc = steps[pc](R)
                        if pc < 0:
                            break
                    else:
                        budget = 0
                        continue
                except Fault as exc:
                    budget -= i + 1
                    error = self.location_error(fc, pc, str(exc))
                    cut = pc + 1
                    break
                except ProgramExit as exc:
                    budget -= i + 1
                    return_value = exc.status
                    cut = pc + 1
                    break
                budget -= i + 1
            if pc == -1:  # ret: value in box[0]
                for sid in self.allocas:
                    memory.release(sid, f"its call of {fc.name} returned")
                exit_no = exit_box[0]
                exit_box[0] = 0
                if not frames:
                    return_value = box[0]
                    break
                value = box[0]
                callee = fc
                fc, R, pc, dest, self.allocas = frames.pop()
                if dest >= 0:
                    R[dest] = value
                if exit_no or fc.continuations:
                    conts = fc.continuations.get(pc - 1)
                    if conts is None and not exit_no:
                        pass
                    elif conts is None or exit_no >= len(conts):
                        named = 0 if conts is None else len(conts)
                        error = self.location_error(
                            fc, pc - 1, f"{callee.name} returned through exit {exit_no} but the "
                                        f"call names {named} continuation(s)")
                        cut = pc
                        break
                    else:
                        edge, pc = conts[exit_no]  # the return-point array (PathFinder §7.4)
                        fc.edge_counts[edge] += 1
                        if fc.decoder.fid is not None:   # an observer hears edges
                            self.shared["OE"](fc.decoder.fid, edge)
            else:  # call at site -2 - pc: arguments in box[0]
                site = -2 - pc
                callee, dest = fc.sites[site]
                if len(frames) >= max_depth:
                    error = self.location_error(
                        fc, site, f"call depth limit of {max_depth} frames exceeded "
                                  f"calling {callee.name}")
                    cut = site + 1
                    break
                if callee.param_checks:
                    bad = callee.bad_argument(box[0])
                    if bad:
                        error = self.location_error(fc, site, bad)
                        cut = site + 1
                        break
                frames.append((fc, R, site + 1, dest, self.allocas))
                self.allocas = []
                fc = callee
                pc = 0
                R = [0] * fc.nregs
                for slot, value in zip(fc.param_slots, box[0]):
                    R[slot] = value
                fc.entries += 1
                calls[0] += 1
        steps = fuel - reserve - budget
        kinds_of = None
        if capture_profile:  # what kind_counts needs, kept now, counted when asked for
            kinds_of = partial(
                kind_counts,
                [(c.name, c.kind_table or _kind_table(c), c.entries, c.edge_counts,
                  c.exit_counts) for c in self.code.in_module_order() if c.entries],
                None if cut is None else (fc.name, cut),
                [(f.name, ret_pc) for f, _r, ret_pc, _d, _a in frames
                 if ret_pc - 1 not in f.continuations])
        return self.result(steps, return_value, error, capture_profile, kinds_of)

    def result(self, steps: int, return_value: int, error, capture_profile: bool,
               kinds_of) -> RunResult:
        out = self.stdout
        data = b"".join(x if isinstance(x, bytes) else b"%d\n" % x for x in out)
        nullified = self.nullified[0]
        counts = {
            "instructions": steps, "nullified": nullified, "executed": steps - nullified,
            "branches_taken": sum(sum(fc.edge_counts) for fc in self.code.values())
            - sum(fc.edge_counts[k] for fc in self.code.values()  # returns, not branches
                  for conts in fc.continuations.values() for k, _t in conts),
            "calls": self.calls[0],
        }
        edges, blocks = {}, {}
        if capture_profile:
            for fc in self.code.in_module_order():
                name = fc.name
                if fc.entries:
                    blocks[(name, fc.labels[0])] = fc.entries
                for (src, dst), n in zip(fc.edges, fc.edge_counts):
                    if n:
                        edges[(name, src, dst)] = edges.get((name, src, dst), 0) + n
                        blocks[(name, dst)] = blocks.get((name, dst), 0) + n
        return_value = to_signed64(return_value) if error is None else 0
        return RunResult(
            stdout=data.decode("utf-8", "replace"), stdout_bytes=data,
            prints=[x for x in out if not isinstance(x, bytes)],
            return_value=return_value,
            exit_status=return_value & 0xFF if error is None else ERROR_STATUS,
            error=error, counts=counts, kinds_of=kinds_of, edge_profile=edges, block_profile=blocks,
            peak_memory=self.memory.peak_bytes)


def kind_counts(functions, stop, pending) -> dict:
    """Instructions reached in one run (nullified included), by kind (``KINDS``).

    Parameters: ``functions``: ``(name, _kind_table, entries, edge counts, exit counts)`` of each
    function the run entered; ``stop``: ``(function name, pc)`` when the run ended inside a
    function (fault, ``exit``, fuel, call depth): its instructions from ``pc`` on were not reached;
    None after the entry function returned; ``pending``: ``(function name, return pc)`` of each
    call still on the stack.

    Returns: ``{kind: count}``; the counts add up to ``counts["instructions"]``.

    Flow conservation over segments (``decode.py``): a segment starting a block is entered by the
    branches to it (plus the function's entries at pc 0); one starting at a call's return point
    by the calls that reached the end of the segment before it, minus those still on the stack.
    A side exit taken ``T`` times leaves the rest of its segment unreached ``T`` times. Kind
    vectors are packed into one integer (``_FIELD`` bits per kind): a vector operation is one
    integer operation.
    """
    total = 0
    waiting: dict = {}
    for key in pending:
        waiting[key] = waiting.get(key, 0) + 1
    cut_name, cut = stop if stop is not None else (None, None)
    for name, (segments, packed, targets), entries, counts, exits_taken in functions:
        entered = {0: entries}  # segment start -> times entered (return points: - waiting)
        for k, n in enumerate(counts):
            if n:
                entered[targets[k]] = entered.get(targets[k], 0) + n
        if waiting:
            for (caller, pc), n in waiting.items():
                if caller == name:
                    entered[pc] = -n
        fcut = cut if name == cut_name else -1
        reached = 0  # times the previous segment's last instruction (a call) was reached
        for s, e, is_return, exits in segments:
            n = reached + entered.get(s, 0) if is_return else entered.get(s, 0)
            if n <= 0:
                reached = 0
                continue
            whole = packed[e]
            total += n * whole
            for pc, i, j, x in exits:
                t = exits_taken[x] if x >= 0 else counts[i] + (counts[j] if j >= 0 else 0)
                if t:
                    total -= t * (whole - packed[pc])
                    n -= t
            if s <= fcut <= e:
                total -= whole - (packed[fcut - 1] if fcut > s else 0)
                n -= 1
            reached = n
    mask = (1 << _FIELD) - 1
    return {kind: (total >> (_FIELD * k)) & mask for k, kind in enumerate(KINDS)}


def _kind_table(fc: FunctionCode) -> tuple:
    """Static tables of ``kind_counts`` for one decoded function (built once, kept in
    ``fc.kind_table``; plain data, so a result holding them does not hold the machine): its
    segments in pc order as ``(start, end, starts at a call's return point, side exits)`` with
    side exits ``(pc, edge index, second edge index or -1, exit counter or -1)``; per pc the kinds
    counted from its segment's start through pc, packed (``_FIELD`` bits per kind); per edge the
    pc of its target."""
    side: dict = {}
    for k, pc in enumerate(fc.edge_pcs):
        side.setdefault(pc, []).append(k)
    rets = {pc: x for x, pc in enumerate(fc.exit_pcs)}
    packed: list = [0] * len(fc.instrs)
    segments = []
    for s, length in enumerate(fc.segment_lengths):
        if not length:
            continue
        e = s + length - 1
        row, exits = 0, []
        for pc in range(s, e + 1):
            row += 1 << (_FIELD * _KIND_OF.get(type(fc.instrs[pc]), len(KINDS) - 1))
            packed[pc] = row
            if pc < e and pc in rets:
                exits.append((pc, -1, -1, rets[pc]))
            elif pc < e and pc in side:
                edges = side[pc]  # br: one edge; cbr: one per distinct target
                exits.append((pc, edges[0], edges[1] if len(edges) > 1 else -1, -1))
        segments.append((s, e, s - 1 in fc.call_sites and s - 1 not in fc.continuations,
                         tuple(exits)))
    fc.kind_table = (segments, packed, list(fc.edge_targets))
    return fc.kind_table


# ---------------------------------------------------------------- public entry point

#: module -> its decoded machine (the benchmarks clear it to time decoding).
MACHINES = IdentityCache(16)


def machine_for(module: Module) -> Machine:
    """The decoded machine of ``module`` (cached by identity; a fresh one if the cached is busy)."""
    hit = MACHINES.get(module)
    if hit is not None:
        return hit if not hit.busy else Machine(module)
    return MACHINES.put(module, Machine(module))


def run_module(module: Module, entry: str = "main", args: Iterable[int] = (),
               inputs: Iterable[int] = (), fuel: int = DEFAULT_FUEL,
               memory_limit: int = DEFAULT_MEMORY_LIMIT, capture_profile: bool = True,
               max_depth: int = DEFAULT_MAX_DEPTH, pause=None,
               first_slice: int = 0, observer=None) -> Optional[RunResult]:
    """Run function ``entry`` of ``module`` (``main`` also finds ``@main``) on ``args``/``inputs``.

    Parameters: ``args`` bind the entry's parameters (missing ones 0); ``inputs`` feed ``input``;
    ``fuel`` caps executed instructions (nullified included); ``memory_limit`` caps live bytes;
    ``max_depth`` caps the call stack.
    ``pause``, ``first_slice``: see ``Machine.run`` (None only when ``pause`` abandoned the run).
    ``observer``: an ``interp.observe.Observer`` that hears every executed load, store, call,
    return and computed value; the run then uses a fresh machine decoded with its hooks.
    Returns: a ``RunResult``. Program faults (division by zero, bad address, exhausted input or
    fuel, unknown extern, ...) are reported in ``RunResult.error`` with their location, never
    raised.
    References: docs/pir.md (semantics), PAS Table 1 via ``deposit_types.deposit``.
    """
    machine = machine_for(module) if observer is None else Machine(module, observer)
    machine.busy = True
    try:
        return machine.run(entry, args, inputs, fuel, memory_limit, capture_profile, max_depth,
                           pause, first_slice)
    finally:
        machine.busy = False
