"""Pre-decoding of PIR functions into generated, specialised Python functions.

Register names are resolved to slots of the frame's register list ``R``; literals and global
addresses are inlined; guard tests and the 64-bit wrap are written out. A function is cut into
*segments*: straight-line runs of instructions from a block start (or a call's return point) to
the next unconditional terminator or call, side exits included. The whole function becomes one
Python function ``run(R, pc, budget)`` (``compile_function``): registers are its locals, the
segments are dispatched inside one loop and charged to the fuel ``budget`` as they start; it
returns events for the machine (``machine.py``): ``pc >= 0`` the budget does not cover the
segment at ``pc``, ``-1`` return (value in ``BOX[0]``), ``-2 - pc`` call at ``pc`` (arguments in
``BOX[0]``). A function runs in two tiers behind the same ``run``: segment by segment first
(``FunctionDecoder.warm``: each segment a small function on the list ``R``, compiled when first
reached), fused once it has run long (compiling the fused function costs more than most short
runs do; issue #32 item 5). A one-function-per-instruction form (``steps``, on the list ``R``)
is compiled on demand for exact stepping when fuel runs out; it is also the reference the fused
form is checked against (tests/interp/test_fused.py). Faults raise ``ops.Fault``; the machine
finds the faulting instruction from the traceback's line number.

Semantics are docs/pir.md's: every operator's Python expression and the wrap its value needs come from
``pylogic.ir.ops`` (64-bit two's complement, C division, shift counts mod 64); guards nullify
(counted in ``NUL``) except on predicate defines where the guard is an input of the deposit type
(``pylogic.ir.deposit_types.deposit``), writes to ``p0``/``true`` discarded and reads of them
give 1, never-written registers read 0.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from typing import Optional

from pylogic.identity_cache import IdentityCache
from pylogic.ir.deposit_types import deposit
from pylogic.ir.model import (
    MASK64, MAX64, MIN64, TRUE_PREDICATES, Alloca, BinOp, Br, Call, Cmp, CondBr, Function, Imm,
    Input, Instr, Load, Mov, PredDefine, Print, Reg, Ret, Select, Store, UnOp, to_signed64)
from pylogic.ir.ops import BINARY, RELATION, SHIFT_MASK, SIGNED, UNARY, UNSIGNED, Fault
from pylogic.interp.ranges import binary, operand_range, register_ranges, signed, unary

#: Store ``{v}`` wrapped to 64 bits (``to_signed64``, written out)
_WRAP = (f"if not {MIN64} <= {{v}} <= {MAX64}: "
         f"{{v}} = (({{v}} & {MASK64}) ^ {1 << 63}) - {1 << 63}")


#: little-endian loads and stores of 2, 4 and 8 bytes by ``struct`` (about 4x faster than
#: slicing with ``int.from_bytes``/``int.to_bytes``; the bounds check comes first, as before):
#: ``LD{n}{s|u}(buffer, offset)[0]``, ``ST{n}(buffer, offset, unsigned value)``, ``ST8S`` for a
#: value in the signed range
_STRUCTS = {}
for _n, _c in ((2, "h"), (4, "i"), (8, "q")):
    _STRUCTS[f"LD{_n}s"] = struct.Struct("<" + _c).unpack_from
    _STRUCTS[f"LD{_n}u"] = struct.Struct("<" + _c.upper()).unpack_from
    _STRUCTS[f"ST{_n}"] = struct.Struct("<" + _c.upper()).pack_into
_STRUCTS["ST8S"] = struct.Struct("<q").pack_into


def unknown_symbol(name: str):
    raise Fault(f"unknown global or function address {name}")


@dataclass
class FunctionCode:
    """A decoded function plus what the machine needs around it.

    ``run(R, pc, budget) -> event`` runs from the segment starting at ``pc`` (a block start or a
    call's return point; ``segment_lengths[pc]`` instructions, 0 elsewhere) until an event;
    ``steps`` (compiled on first use) runs exactly one instruction."""
    function: Function
    nregs: int
    param_slots: tuple
    run: object  # ``run(R, pc, budget) -> event``: ``FunctionDecoder.warm`` until promoted
    segment_lengths: list
    decoder: "FunctionDecoder"
    instrs: list  # pc -> Instr (None for the end-of-block sentinel)
    labels: list  # pc -> block label
    edges: list  # edge index -> (src label, dst label); one edge per branch site and target
    edge_counts: list  # edge index -> times taken (a fresh list per run: ``Machine.reset``)
    edge_pcs: list  # edge index -> pc of its branch
    edge_targets: list  # edge index -> pc of its target block
    exit_pcs: list  # exit counter index -> pc of a guarded ``ret`` (a side exit)
    exit_counts: list  # exit counter index -> times taken (a fresh list per run)
    call_sites: dict  # pc -> (callee name, dest slot or -1); resolved by the machine
    continuations: dict  # pc of a call with continuations -> ((edge index, target pc), ...) per exit
    sites: dict = field(default_factory=dict)  # pc -> (FunctionCode, dest slot or -1)
    entries: int = 0
    kind_table: Optional[tuple] = None  # machine._kind_table, built on first use
    _steps: Optional[list] = None
    #: typed parameters (docs/pir.md "Extensions"): (position, lo, hi, type) each
    param_checks: tuple = ()

    def bad_argument(self, args) -> Optional[str]:
        """The run-time error of calling this function with ``args`` (an argument outside its
        typed parameter's range), or None."""
        for k, lo, hi, t in self.param_checks:
            v = args[k] if k < len(args) else 0
            if not lo <= v <= hi:
                return f"argument {k + 1} of {self.name} ({v}) is outside its type {t}"
        return None

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def steps(self) -> list:
        if self._steps is None:
            self._steps = self.decoder.compile_steps()
        return self._steps

    def fault_at(self, exc: BaseException) -> tuple:
        """(pc, instructions charged but not reached) of the instruction that raised ``exc``
        in ``run`` (from its traceback)."""
        at, tb, files = None, exc.__traceback__, self.decoder.fault_lines
        while tb is not None:
            lines = files.get(tb.tb_frame.f_code.co_filename)
            if lines is not None:
                at = lines[0][tb.tb_lineno], lines[1][tb.tb_lineno]
            tb = tb.tb_next
        return at


def resolve_function(functions: dict, name: str) -> Optional[Function]:
    """A defined function by name, tolerating a missing or extra ``@`` (docs/pir.md: main/@main)."""
    for candidate in (name, name[1:] if name.startswith("@") else "@" + name):
        f = functions.get(candidate)
        if f is not None and not f.extern and f.blocks:
            return f
    return None


#: ``register_ranges`` of a function (frozen) under a module's global addresses: every Machine
#: of one module decodes its functions anew (a differential check runs several, the fused
#: tiers of tests/interp/test_fused.py ten per program), the ranges are the same each time
#: (read only here)
_RANGES = IdentityCache(256)


class FunctionDecoder:
    """Generates the Python source for one function and compiles it in ``namespace``."""

    def __init__(self, function: Function, functions: dict, global_addrs: dict,
                 builtins, shared: dict, reference: bool = False):
        self.f = function
        # the reference form (``Machine(reference=True)``): every wrap written out as before
        self.ranges = None if reference else _RANGES.get_or_compute(
            function, lambda: register_ranges(function, global_addrs),
            tag=tuple(global_addrs.items()))
        self.functions = functions
        self.global_addrs = global_addrs
        self.builtins = builtins
        self.ns = dict(shared)
        self.ns.update(_STRUCTS)
        self.ns["OUT"] = Out
        self.ns["WRAP"] = to_signed64
        self.observer = shared.get("OBSERVE")  # an observer's register (interp/observe.py)
        # an observer of taken edges (``Observer.edge``): this function's number for it
        self.fid = shared["OFN"](function.name) if "OE" in shared else None
        self.ns["REF"] = [0]  # a taken side exit's refund (``warm``)
        self.code: Optional[FunctionCode] = None
        self.ns["EC"] = self.edge_counts = []
        self.ns["XC"] = self.exit_counts = []
        self.edges: list = []
        self.edge_pcs: list = []
        self.edge_targets: list = []
        self.exit_pcs: list = []
        self.edge_index: dict = {}
        self.call_sites: dict = {}
        self.continuations: dict = {}
        defined = set(function.params)
        for b in function.blocks:
            for ins in b.instrs:
                defined.update(ins.defs())
        self.defined = defined
        self.slots: dict[str, int] = {}
        for p in function.params:
            self.slot(p)

    # ------------------------------------------------------------ names and operands

    def slot(self, name: str) -> int:
        s = self.slots.get(name)
        if s is None:
            s = self.slots[name] = len(self.slots)
        return s

    def val(self, op) -> str:
        """Python expression for an operand's signed value."""
        if isinstance(op, Imm):
            return str(op.value)
        name = op.name
        if isinstance(op, Reg):
            if name in TRUE_PREDICATES:
                return "1"
            if name not in self.defined and name in self.global_addrs:
                return str(self.global_addrs[name])  # docs/pir.md: a global's name is its address
            return f"R[{self.slot(name)}]"
        if name in self.global_addrs:
            return str(self.global_addrs[name])
        return f"SYM({name!r})"

    def uval(self, op) -> str:
        """Python expression for an operand as unsigned 64-bit."""
        if isinstance(op, Imm):
            return str(op.value & MASK64)
        v = self.val(op)
        return str(int(v) & MASK64) if v.lstrip("-").isdigit() else f"({v} & {MASK64})"

    def dest(self, name: str) -> str:
        if name in TRUE_PREDICATES:
            return "R[JUNK]"  # docs/pir.md: writes to p0/true are discarded
        return f"R[{self.slot(name)}]"

    def edge(self, src: str, dst: str, pc: int) -> int:
        """Counter of the branch at ``pc`` to ``dst``: per site, so that a side exit's count is
        known apart from other branches between the same blocks (``machine.kind_counts``)."""
        k = self.edge_index.get((pc, dst))
        if k is None:
            k = self.edge_index[(pc, dst)] = len(self.edges)
            self.edges.append((src, dst))
            self.edge_counts.append(0)
            self.edge_pcs.append(pc)
            self.edge_targets.append(self.start[dst])
        return k

    # ------------------------------------------------------------ decoding

    def decode(self) -> FunctionCode:
        start: dict[str, int] = {}
        pc = 0
        layout = []
        for b in self.f.blocks:
            start.setdefault(b.label, pc)
            last = b.instrs[-1] if b.instrs else None
            closed = last is not None and last.is_terminator and _unguarded(last)
            layout.append((b, closed))
            pc += len(b.instrs) + (0 if closed else 1) + sum(
                1 for ins in b.instrs if isinstance(ins, Ret) and ins.exit)
        self.start = start
        # pc -> (instruction or None, label, body lines, kind); kind: straight | exit | call
        items = []
        for b, closed in layout:
            for ins in b.instrs:
                if isinstance(ins, Ret) and ins.exit:
                    # ret.N: one load of the return point first (PathFinder §7.4, item 27)
                    fetch = Load(dest="\0return-point", addr=Imm(0), guard=ins.guard,
                                 loc=ins.loc)
                    items.append((fetch, b.label, [f"XB[0] = {ins.exit}"], "straight"))
                lines, kind = self.body(ins, len(items), b.label)
                if self.observer is not None:
                    lines = self.observed(ins, len(items), lines, kind)
                items.append((ins, b.label, lines, kind))
            if not closed:  # docs/pir.md: every block ends with an unguarded terminator
                msg = f"control reaches the end of block {b.label} without a terminator"
                items.append((None, b.label, [f"raise Fault({msg!r})"], "exit"))
        self.items = items
        self.ns["JUNK"] = self.slot("\0junk")
        for item in items:  # a guard never written gets its slot now, before the count
            self.guard_of(item[0])
        seg_lengths = self.lengths = self.segment_bounds(set(start.values()))
        # generated file -> (line -> pc, line -> instructions charged but not reached there)
        self.fault_lines: dict = {}
        self.segments: list = [None] * len(items)  # pc -> segment function (``warm``)
        self.warmth = [0]  # instructions charged in ``warm`` (all runs)
        self.fused = None
        self.code = FunctionCode(
            function=self.f, nregs=len(self.slots),
            param_slots=tuple(self.slots[p] for p in self.f.params),
            run=self.warm, segment_lengths=seg_lengths, instrs=[it[0] for it in items],
            labels=[it[1] for it in items], edges=self.edges, edge_counts=self.edge_counts,
            edge_pcs=self.edge_pcs, edge_targets=self.edge_targets, exit_pcs=self.exit_pcs,
            exit_counts=self.exit_counts, call_sites=self.call_sites,
            continuations=self.continuations, decoder=self,
            param_checks=tuple((k, *self.f.param_ranges()[p], t) for k, (p, t) in
                               enumerate(zip(self.f.params, self.f.param_types)) if t))
        return self.code

    # ------------------------------------------------------------ tiers (issue #32 item 5)

    def warm(self, R, pc: int, budget: int) -> int:
        """``run`` until the function has run long: each segment compiled on its first use, on
        the list ``R``, dispatched here (compiling the fused function costs about 1,000-4,000
        of its executed instructions per instruction; a function entered once and run briefly, as
        most of a csmith program is, never pays it). Once ``PROMOTE_MIN + PROMOTE_PER *
        instructions`` were charged here, the fused function (``compile_function``) takes over,
        from this segment on and in later calls. Fuel, events, ``ST`` and faults as
        ``compile_function`` has them (a segment is charged before it runs; a taken side exit
        refunds the rest in ``REF[0]``)."""
        lengths, segments, ns, warmth = self.lengths, self.segments, self.ns, self.warmth
        ref, state = ns["REF"], ns["ST"]
        limit = PROMOTE_MIN + PROMOTE_PER * len(lengths)
        while True:
            if warmth[0] >= limit:
                return self.promote()(R, pc, budget)
            n = lengths[pc]
            if budget < n:
                state[0] = budget
                return pc
            budget -= n
            warmth[0] += n
            seg = segments[pc]
            if seg is None:
                seg = self.compile_segment(pc)
            try:
                pc = seg(R)
            except BaseException:
                state[0] = budget
                raise
            if ref[0]:
                budget += ref[0]
                ref[0] = 0
            if pc < 0:
                state[0] = budget
                return pc

    def promote(self):
        """The fused function, compiled on first use; it is ``run`` from now on."""
        if self.fused is None:
            self.fused = self.compile_function(self.lengths)
            if self.code is not None:
                self.code.run = self.fused
        return self.fused

    @property
    def source(self) -> str:
        """The fused function's source (compiled for it, if not yet)."""
        self.promote()
        return self.fused_source

    def compile_segment(self, s: int):
        """Segment ``s`` as one function ``_g(R) -> next pc or event`` (``warm``)."""
        out = ["def _g(R):"]
        line_pc, line_refund = [-1, s], [0, 0]
        end = s + self.lengths[s] - 1
        for pc in range(s, end + 1):
            ins, _label, lines, kind = self.items[pc]
            guard = self.guard_of(ins)
            refund = end - pc
            ind = "    "
            if guard is not None:
                out.append(f"    if {guard}:")
                ind = "        "
            for line in lines:
                body = line.lstrip(" ")
                if refund and _RETURN.fullmatch(body):  # a taken side exit
                    out.append(ind + line[:len(line) - len(body)] + f"REF[0] = {refund}")
                out.append(ind + line)
            if guard is not None:
                out += ["    else:", "        NUL[0] += 1"]
                if kind == "call":
                    out.append(f"        return {pc + 1}")
            line_pc += [pc] * (len(out) + 1 - len(line_pc))  # lines are 1-based
            line_refund += [refund] * (len(out) + 1 - len(line_refund))
        name = f"<pir {self.f.name} {s}>"
        self.fault_lines[name] = (line_pc, line_refund)
        ns = self.ns
        exec(compile("\n".join(out) + "\n", name, "exec"), ns)
        seg = self.segments[s] = ns["_g"]
        return seg

    def body(self, ins: Instr, pc: int, label: str) -> tuple[list[str], str]:
        """Python lines of one instruction without its guard test, and how it ends control:
        ``straight`` (never returns), ``exit`` (br/cbr/ret: always returns) or ``call``."""
        if isinstance(ins, PredDefine):
            guard = None if _unguarded(ins) else self.val(Reg(ins.guard))
            return self.pred_define(ins, guard), "straight"
        if isinstance(ins, Br):
            return self.jump(label, ins.target, pc), "exit"
        if isinstance(ins, CondBr):
            return [f"if {self.val(ins.cond)}:", *("    " + s for s in
                    self.jump(label, ins.if_true, pc))] + self.jump(label, ins.if_false, pc), \
                "exit"
        if isinstance(ins, Ret):
            value = self.val(ins.value) if ins.value is not None else "0"
            count = []
            if not _unguarded(ins):  # a side exit: counted like a taken branch (kind counts)
                count = [f"XC[{len(self.exit_pcs)}] += 1"]
                self.exit_pcs.append(pc)
                self.exit_counts.append(0)
            return count + [f"BOX[0] = {value}", "return -1"], "exit"
        if isinstance(ins, Call):
            return self.call(ins, pc, label)
        return self.simple(ins), "straight"

    def observed(self, ins: Instr, pc: int, lines: list, kind: str) -> list[str]:
        """``lines`` with the observer's hooks (``pylogic/interp/observe.py``): decoded only for
        a machine that has an observer, so the default code stays as it is."""
        if isinstance(ins, (Br, CondBr)) or (lines and lines[0].startswith("raise ")):
            return lines
        sid = self.observer(self.f.name, pc, ins)
        if isinstance(ins, Load):
            return lines + [f"OL({sid}, a, {ins.size}, {self.dest(ins.dest)})"]
        if isinstance(ins, Store):
            return lines + [f"OS({sid}, a, {ins.size})"]
        if isinstance(ins, Ret):
            return lines[:-1] + [f"ORET({sid}, BOX[0])", lines[-1]]
        if isinstance(ins, Call):
            lines = [f"OK({1 if kind == 'call' else 0}, {sid})"] + lines  # 1: a new activation
            if kind == "call" or ins.dest is None or ins.dest in TRUE_PREDICATES:
                return lines
            return lines + [f"OV({sid}, {self.dest(ins.dest)})"]
        dests = [d for d in ins.defs() if d not in TRUE_PREDICATES]
        if not dests:
            return lines
        packed = " + ".join(f"{self.dest(d)}" if i == 0 else f"({self.dest(d)} << {i})"
                            for i, d in enumerate(dests))
        return lines + [f"OV({sid}, {packed})"]

    def guard_of(self, ins) -> Optional[str]:
        """The guard expression of an instruction that a 0 guard nullifies, else None."""
        if ins is None or _unguarded(ins) or isinstance(ins, PredDefine):
            return None
        return self.val(Reg(ins.guard))

    def compile_steps(self) -> list:
        """One function per instruction (exact stepping, used when fuel is nearly out)."""
        sources = []
        for pc, (ins, _label, lines, kind) in enumerate(self.items):
            guard = self.guard_of(ins)
            out = [f"def _s{pc}(R):"]
            if guard is not None:
                out += [f"    if not {guard}:", "        NUL[0] += 1", f"        return {pc + 1}"]
            out += ["    " + line for line in lines]
            if kind == "straight":
                out.append(f"    return {pc + 1}")
            sources.append("\n".join(out) + "\n")
        sources.append(f"STEPS = [{', '.join(f'_s{i}' for i in range(len(self.items)))}]\n")
        exec(compile("".join(sources), f"<pir-step {self.f.name}>", "exec"), self.ns)
        return self.ns["STEPS"]

    def segment_bounds(self, block_starts: set) -> list:
        """``lengths[pc]``: the instructions of the straight-line segment starting at ``pc`` (a
        block start or a call's return point) up to its next unconditional terminator or call,
        guarded ones (side exits) included; 0 where no segment starts."""
        n = len(self.items)
        starts = sorted(block_starts | {pc + 1 for pc, it in enumerate(self.items)
                                        if it[3] == "call" and pc + 1 < n})
        lengths = [0] * n
        for s in starts:
            end = s  # the segment is s..end inclusive
            while self.items[end][3] == "straight" or (
                    self.items[end][3] == "exit" and self.guard_of(self.items[end][0])):
                end += 1
            lengths[s] = end - s + 1
        return lengths

    def compile_function(self, lengths: list):
        """The whole function as one Python function ``RUN(R, pc, budget) -> event``, registers
        as its locals (loaded from the frame list ``R`` on entry, stored back before the machine
        needs them), segments dispatched by a binary test tree on ``pc`` inside one loop (a
        jump is ``pc = target; continue``; a segment that jumps to itself loops in place).

        Fuel: each segment is charged in full before it runs (``budget``; a chain of segments
        joined by unconditional jumps at once, at its head) and a taken side exit refunds the
        rest; a budget that cannot cover a charge ends the run here (the machine steps on,
        exact to the instruction). Events: ``pc >= 0``: the segment at ``pc`` costs more than
        ``budget`` (registers stored); ``-1``: a return (value in ``BOX[0]``); ``-2 - pc``: a
        call at ``pc`` (registers stored, arguments in ``BOX[0]``). The budget left is in
        ``ST[0]`` after any event or exception; ``fault_lines`` gives the instruction of a
        generated line and what a fault there refunds."""
        nregs = len(self.slots)
        regs = ", ".join(f"r{k}" for k in range(nregs))
        live = self.live_registers()
        # leaving for a budget exit: ``OUT`` (raised with ``pc`` set to the event) stores the
        # registers bound (a register not bound is not live: it was not loaded on entry, as
        # not live there, nor written since)
        self.ns["SLOTS"] = tuple((f"r{k}", k) for k in range(nregs))
        out: list = []
        # generated source line (1-based) -> pc; the instructions charged but not reached when
        # an instruction faults there (the rest of its segment, and of its chain)
        line_pc, line_refund = [-1], [0]

        sink: list = []  # where ``emit`` writes: (text, pc, refund)

        def emit(text: str, pc: int = -1, refund: int = 0):
            sink.append((text, pc, refund))

        def flush():
            for text, pc, refund in sink:
                out.append(text)
                line_pc.append(pc)
                line_refund.append(refund)
            sink.clear()

        emit("def RUN(R, pc, budget):")
        # on entry, the registers live there: a function's start and its return points load
        # only theirs (found by a test tree), other entries (after a budget exit) all; a
        # function with few registers loads them all
        entries = [0] + sorted({pc + 1 for pc, it in enumerate(self.items) if it[3] == "call"
                                and pc + 1 < len(self.items)})

        def entry_leaf(lo: int, hi: int, ind: str):
            for k in range(lo, hi):
                emit(f"{ind}{'if' if k == lo else 'elif'} pc == {entries[k]}:")
                emit(f"{ind}    {_moves(live[entries[k]], 'r{k}', 'R[{k}]')}")
            emit(f"{ind}else:")
            emit(f"{ind}    every = True")

        def entry(lo: int, hi: int, ind: str):
            _bisect(emit, entries, lo, hi, ind, 2, entry_leaf)

        if nregs <= LOAD_ALL:
            emit(f"    {regs}, = R")
        else:
            emit("    every = False")
            entry(0, len(entries), "    ")
            emit("    if every:")
            emit(f"        {regs}, = R")
        emit("    ec = EC")  # the branch counters of this run (``Machine.reset``), a local
        emit("    try:")
        emit("        while True:")
        starts = [s for s in range(len(lengths)) if lengths[s]]

        room = [INLINE_FUNCTION + INLINE_FACTOR * len(self.items)]  # inlined instructions left
        # loop headers: targets of backward jumps -> the last pc jumping back (the loop's end,
        # in layout order); their leaves inline only what lies inside
        back: dict = {}
        for pc, it in enumerate(self.items):
            for m in map(_RETURN.fullmatch, (x.strip() for x in it[2])):
                if m and 0 <= int(m.group(1)) <= pc:
                    back[int(m.group(1))] = max(back.get(int(m.group(1)), 0), pc)

        def inside(root: int, t: int) -> bool:
            return root not in back or root <= t <= back[root]

        def segment(s: int, ind: str, root: int, path: frozenset, left: list,
                    tail: int = -1, chain: tuple = ()):
            """Segment ``s`` at indentation ``ind`` inside the loop of the leaf of ``root``;
            jump targets not on ``path`` are inlined while ``left`` (instructions) allows.
            A chain of segments joined by unconditional jumps (all but the last without side
            exits) is charged at once at its head; ``tail`` (-1 at a head): the instructions
            charged after ``s``, ``chain``: the members still to come."""
            length = lengths[s]
            if tail < 0:  # a head: charge its chain
                chain = self.chain(s, root, path, min(left[0], room[0]), lengths,
                                   lambda t: inside(root, t))
                for t in chain:
                    left[0] -= lengths[t]
                    room[0] -= lengths[t]
                tail = sum(lengths[t] for t in chain)
                emit(f"{ind}if budget < {length + tail}:", s)
                if s == root:
                    emit(f"{ind}    pc = {s}", s)
                    emit(f"{ind}    raise OUT", s)
                else:  # an inlined copy: its own leaf's head (the same test) stores them
                    emit(f"{ind}    pc = {s}", s)
                    emit(f"{ind}    break", s)
                emit(f"{ind}budget -= {length + tail}", s)
            for pc in range(s, s + length):
                ins, _label, lines, kind = self.items[pc]
                refund = length - (pc - s + 1) + tail  # a fault here: charged, not reached
                guard = self.guard_of(ins)
                at = ind
                if guard is not None:
                    emit(f"{ind}if {self.local(guard)}:", pc, refund)
                    at = ind + "    "
                    if kind == "exit" and refund:  # only a chain's last member has these
                        emit(f"{at}budget += {refund}", pc, refund)
                for line in lines:
                    body = line.lstrip(" ")
                    here = at + line[:len(line) - len(body)]
                    m = _RETURN.fullmatch(body)
                    if m is None:
                        if body.startswith("EC["):
                            body = "ec" + body[2:]
                        emit(here + self.local(body), pc, refund)
                        continue
                    target = int(m.group(1))
                    if target == -1:  # ret: the frame is dropped, its registers not stored
                        emit(f"{here}ST[0] = budget", pc, refund)
                        emit(f"{here}return -1", pc, refund)
                    elif target < -1:  # a call: store the registers live after it
                        after = 0
                        for succ in [pc + 1] + [t for _e, t in self.continuations.get(pc, ())]:
                            if succ < len(live):
                                after |= live[succ]
                        emit(here + _moves(after, "R[{k}]", "r{k}"), pc, refund)
                        emit(f"{here}ST[0] = budget", pc, refund)
                        emit(here + body, pc, refund)
                    elif chain and target == chain[0]:  # the chain goes on, charged already
                        segment(target, here, root, path | {target}, left,
                                tail - lengths[target], chain[1:])
                    else:
                        jump(target, here, pc, refund, root, path, left)
                if guard is not None:
                    emit(f"{ind}else:", pc, refund)
                    emit(f"{ind}    NUL[0] += 1", pc, refund)
                    if kind == "call":
                        jump(pc + 1, ind + "    ", pc, refund, root, path, left)

        def jump(target: int, ind: str, pc: int, refund: int, root: int, path: frozenset,
                 left: list):
            if target == root:
                emit(f"{ind}continue", pc, refund)
            elif target not in path and lengths[target] <= min(left[0], room[0]) and \
                    inside(root, target):
                left[0] -= lengths[target]
                room[0] -= lengths[target]
                segment(target, ind, root, path | {target}, left)
            else:
                emit(f"{ind}pc = {target}", pc, refund)
                emit(f"{ind}break", pc, refund)

        def leaf(s: int) -> list:
            """The code entered at segment ``s``: a loop, so that a jump back to ``s`` is a
            ``continue`` (no dispatch), around ``s`` and the segments it reaches by jumps,
            inlined (duplicated: each is also a leaf of its own) up to ``INLINE_LOOP``
            instructions for a loop header, ``INLINE_LEAF`` for another segment, no segment
            twice on one path."""
            emit("while True:", s)
            segment(s, "    ", s, frozenset((s,)), [INLINE_LOOP if s in back else INLINE_LEAF])
            body = list(sink)
            sink.clear()
            if not any(text.strip() == "continue" for text, _pc, _s in body):
                # no jump back to s: no loop; a jump is the dispatch loop's ``continue``
                body = [(text[4:] if text.strip() != "break" else text[4:-5] + "continue",
                         pc, seg) for text, pc, seg in body[1:]]
            return body

        flush()  # the lines so far (the function's head) before the leaves are made
        # loop headers, innermost (shortest) loops first: the inlining room goes to them
        leaves = {s: leaf(s) for s in sorted(starts, key=lambda s: (
            s not in back, back.get(s, s) - s, s))}

        def tree_leaf(lo: int, hi: int, ind: str):
            for k in range(lo, hi):
                if k < hi - 1:
                    emit(f"{ind}{'if' if k == lo else 'elif'} pc == {starts[k]}:")
                else:
                    emit(f"{ind}else:" if hi - lo > 1 else f"{ind}if True:")
                for text, pc, seg in leaves[starts[k]]:
                    emit(ind + "    " + text, pc, seg)

        def tree(lo: int, hi: int, ind: str):
            """Dispatch to ``starts[lo:hi]`` (``pc`` is one of them)."""
            _bisect(emit, starts, lo, hi, ind, 3, tree_leaf)

        tree(0, len(starts), "            ")
        emit("    except OUT:")
        emit("        bound = locals()")
        emit("        for name, k in SLOTS:")
        emit("            if name in bound:")
        emit("                R[k] = bound[name]")
        emit("        ST[0] = budget")
        emit("        return pc")
        emit("    except BaseException:")
        emit("        ST[0] = budget")
        emit("        raise")
        flush()
        run_file = f"<pir {self.f.name}>"
        self.fused_source = "\n".join(out) + "\n"
        exec(compile(self.fused_source, run_file, "exec"), self.ns)
        self.fault_lines[run_file] = (line_pc, line_refund)
        return self.ns["RUN"]

    def chain(self, s: int, root: int, path: frozenset, room: int, lengths: list,
              inside) -> tuple:
        """The segments after ``s`` that run whenever ``s`` runs to its end: while a segment
        has no side exit and ends in an unconditional ``br`` to a segment that may be inlined
        here (not the root, not on the path, within ``room`` instructions, ``inside``)."""
        out: list = []
        while True:
            end = s + lengths[s] - 1
            if any(self.items[pc][3] == "exit" and self.guard_of(self.items[pc][0]) is not None
                   for pc in range(s, end)):
                break
            ins, _label, lines, _kind = self.items[end]
            targets = [int(m.group(1)) for m in map(_RETURN.fullmatch, (x.strip() for x in lines))
                       if m]
            if not isinstance(ins, Br) or self.guard_of(ins) is not None or len(targets) != 1:
                break
            t = targets[0]
            if t < 0 or t == root or t in path or t in out or lengths[t] > room or \
                    not inside(t):
                break
            room -= lengths[t]
            out.append(t)
            s = t
        return tuple(out)

    def live_registers(self) -> list:
        """pc -> the registers live before it (bit k: slot k): read on some path from there
        before being written unconditionally. Read off the generated lines (every ``R[k]``
        in them is a read, but the destination of an unguarded instruction's top-level
        ``R[k] = ...``, a write), so it covers whatever the lines do."""
        n = len(self.items)
        uses, kills, succs = [0] * n, [0] * n, [()] * n
        for pc, (ins, _label, lines, kind) in enumerate(self.items):
            guard = self.guard_of(ins)
            use, kill = 0, 0
            for line in reversed(lines):
                body = line.lstrip(" ")
                m = _DEF.match(line)
                if m and guard is None:
                    bit = 1 << int(m.group(1))
                    kill |= bit
                    use &= ~bit
                    body = body[m.end():]
                for k in _SLOT.findall(body):
                    use |= 1 << int(k)
            if guard is not None:
                use |= 1 << int(_SLOT.search(guard).group(1)) if _SLOT.search(guard) else 0
            uses[pc], kills[pc] = use, kill
            nxt = [int(m.group(1)) for m in map(_RETURN.fullmatch, (x.strip() for x in lines))
                   if m and int(m.group(1)) >= 0] if kind == "exit" else [pc + 1]
            if kind != "exit" or guard is not None:
                nxt.append(pc + 1)
            nxt += [t for _e, t in self.continuations.get(pc, ())]
            succs[pc] = tuple(t for t in nxt if t < n)
        live = [0] * (n + 1)
        changed = True
        while changed:
            changed = False
            for pc in range(n - 1, -1, -1):
                out = 0
                for t in succs[pc]:
                    out |= live[t]
                value = uses[pc] | (out & ~kills[pc])
                if value != live[pc]:
                    live[pc] = value
                    changed = True
        return live

    def local(self, text: str) -> str:
        """``text`` with each register ``R[k]`` (``R[JUNK]``: writes to p0/true) as the local
        ``rk``; string literals (messages, names) untouched."""
        junk = f"r{self.ns['JUNK']}"
        return _REGISTER.sub(lambda m: m.group(0) if m.group(1) is None else
                             junk if m.group(1) == "JUNK" else f"r{m.group(1)}", text)

    def jump(self, src: str, target: str, pc: int) -> list[str]:
        if target not in self.start:
            return [f"raise Fault({f'branch to unknown label {target}'!r})"]
        k = self.edge(src, target, pc)
        if self.fid is not None:
            return [f"EC[{k}] += 1", f"OE({self.fid}, {k})", f"return {self.start[target]}"]
        return [f"EC[{k}] += 1", f"return {self.start[target]}"]

    def call(self, ins: Call, pc: int, label: str = "") -> tuple[list[str], str]:
        args = ", ".join(self.val(a) for a in ins.args)
        callee = resolve_function(self.functions, ins.callee)
        dest = self.slot(ins.dest) if ins.dest is not None else -1
        if ins.dest is not None and ins.dest in TRUE_PREDICATES:
            dest = -1
        if ins.continuations:  # exit splitting: the machine continues at the exit's label
            if callee is None or any(t not in self.start for t in ins.continuations):
                return [f"raise Fault({f'call to {ins.callee} with continuations it cannot take'!r})"], \
                    "straight"
            self.continuations[pc] = tuple((self.edge(label, t, pc), self.start[t])
                                           for t in ins.continuations)
        if callee is not None:
            self.call_sites[pc] = (callee.name, dest)
            return [f"BOX[0] = ({args}{',' if ins.args else ''})", f"return {-2 - pc}"], "call"
        builtin = self.builtins.lookup(ins.callee)
        if builtin is None:
            return [f"raise Fault({f'call to unknown external function {ins.callee}'!r})"], \
                "straight"
        fn = f"BI_{pc}"
        self.ns[fn] = builtin
        target = f"{self.dest(ins.dest)} = " if ins.dest is not None else ""
        return ["CALLS[0] += 1", f"{target}{fn}({args})"], "straight"

    def simple(self, ins: Instr) -> list[str]:
        v = self.val
        if isinstance(ins, Mov):
            return [f"{self.dest(ins.dest)} = {v(ins.src)}"]
        if isinstance(ins, BinOp):
            return self.binop(ins)
        if isinstance(ins, UnOp):
            return self.operator(UNARY, ins.op, ins.dest, ins.a)
        if isinstance(ins, Cmp):
            return [f"{self.dest(ins.dest)} = 1 if {self.condition(ins.rel, ins.a, ins.b)} else 0"]
        if isinstance(ins, Select):
            return [f"{self.dest(ins.dest)} = {v(ins.a)} if {v(ins.cond)} else {v(ins.b)}"]
        if isinstance(ins, Load):
            return self.load(ins)
        if isinstance(ins, Store):
            return self.store(ins)
        if isinstance(ins, Alloca):
            what = f"alloca in {self.f.name}"
            return [f"{self.dest(ins.dest)} = ALLOCA({v(ins.size)}, {what!r})"]
        if isinstance(ins, Input):
            return [f"{self.dest(ins.dest)} = INPUT()"]
        if isinstance(ins, Print):
            return [f"SO.append({v(ins.value)})"]
        return [f"raise Fault({f'cannot execute {type(ins).__name__}'!r})"]

    def expression(self, template: str, a, b=None) -> str:
        """An ``ops`` Python template with the operands ``a``, ``b`` filled in."""
        if b is None:
            return template.format(a=self.val(a), ua=self.uval(a))
        count = str(b.value & SHIFT_MASK) if isinstance(b, Imm) else \
            f"({self.val(b)} & {SHIFT_MASK})"
        return template.format(a=self.val(a), b=self.val(b), ua=self.uval(a), ub=self.uval(b),
                               n=count)

    def condition(self, rel: str, a, b) -> str:
        if rel in RELATION:
            return self.expression(RELATION[rel].python, a, b)
        return f"SYM({f'relation {rel}'!r})"

    def binop(self, ins: BinOp) -> list[str]:
        return self.operator(BINARY, ins.op, ins.dest, ins.a, ins.b)

    def operator(self, table: dict, op: str, dest: str, a, b=None) -> list[str]:
        """``dest = op a[, b]`` from the ``ops`` table: its expression, then the wrap its range
        calls for."""
        if op not in table:
            return [f"raise Fault({f'unknown operator {op}'!r})"]
        d, value = self.dest(dest), table[op].value
        expr = self.expression(table[op].python, a, b)
        if value == SIGNED or self.ranges is not None and signed(
                binary(op, self.range(a), self.range(b), b) if b is not None else
                unary(op, self.range(a))):  # ranges.py: no wrap can be needed
            return [f"{d} = {expr}"]
        if value == UNSIGNED:  # reinterpret as signed
            return [f"v = {expr}", f"if v > {MAX64}: v -= {1 << 64}", f"{d} = v"]
        if self.ranges is not None:  # the destination written once, wrapped in place
            return [f"{d} = {expr}", f"if not {MIN64} <= {d} <= {MAX64}: {d} = WRAP({d})"]
        return [f"v = {expr}", _WRAP.format(v="v"), f"{d} = v"]

    def range(self, op):
        return operand_range(op, self.ranges, self.global_addrs)

    def load(self, ins: Load) -> list[str]:
        n = ins.size
        lines = [f"a = {self.val(ins.addr)}", "b = SEGS.get(a >> 32)", "o = a & 4294967295",
                 f"if b is None or o + {n} > len(b): BAD(a, {n}, 'load')"]
        d = self.dest(ins.dest)
        if n == 1:
            lines.append(f"{d} = (b[o] ^ 128) - 128" if ins.signed else f"{d} = b[o]")
        elif n in (2, 4, 8):
            lines.append(f"{d} = LD{n}{'s' if ins.signed or n == 8 else 'u'}(b, o)[0]")
        else:
            # docs/pir.md: every value is 64-bit two's complement, so load.8u reads the same value as
            # load.8 (zero-extending 8 bytes leaves no bit to extend into)
            lines.append(f"{d} = FROM(b[o:o + {n}], 'little', signed={ins.signed or n == 8})")
        return lines

    def store(self, ins: Store) -> list[str]:
        n = ins.size
        lines = [f"a = {self.val(ins.addr)}", "b = SEGS.get(a >> 32)", "o = a & 4294967295",
                 f"if b is None or o + {n} > len(b): BAD(a, {n}, 'store')"]
        if self.ns.get("RO"):       # const globals: a store into one faults
            lines.append(f"if a >> 32 in RO: BAD(a, {n}, 'store')")
        if n == 1:
            lines.append(f"b[o] = {self.val(ins.value)} & 255")
        elif n == 8:  # registers hold signed 64-bit values; anything else is masked
            lines += [f"v = {self.val(ins.value)}",
                      f"if {MIN64} <= v <= {MAX64}: ST8S(b, o, v)",
                      f"else: ST8(b, o, v & {MASK64})"]
        elif n in (2, 4):
            lines.append(f"ST{n}(b, o, {self.val(ins.value)} & {(1 << 8 * n) - 1})")
        else:
            lines.append(f"b[o:o + {n}] = ({self.val(ins.value)} & {(1 << 8 * n) - 1})"
                         f".to_bytes({n}, 'little')")
        return lines

    def pred_define(self, ins: PredDefine, guard: Optional[str]) -> list[str]:
        """docs/pir.md predicate define: C once, each destination by its deposit type from g, C, old."""
        lines = [f"c = 1 if {self.condition(ins.rel, ins.a, ins.b)} else 0"]
        if guard is not None:
            lines.append(f"g = 1 if {guard} else 0")
        dests = [d for d in ins.dests if d.name not in TRUE_PREDICATES]
        for i, d in enumerate(dests):  # read every old value before writing any destination
            lines.append(f"o{i} = 1 if {self.dest(d.name)} else 0")
        for i, d in enumerate(dests):
            lines.append(f"{self.dest(d.name)} = {self.deposit_expr(d.dtype, guard, f'o{i}')}")
        return lines

    def deposit_expr(self, dtype: str, guard: Optional[str], old: str) -> str:
        """Expression for the new value, specialised from ``deposit`` (the single source of truth)."""
        try:
            if guard is None:
                table = [deposit(dtype, 1, c, o) for c in (0, 1) for o in (0, 1)]
                if table[0] == table[1] and table[2] == table[3]:
                    return {(0, 0): "0", (1, 1): "1", (0, 1): "c", (1, 0): "1 - c"}[
                        (table[0], table[2])]
                return f"{tuple(table)}[c * 2 + {old}]"
            table = [deposit(dtype, g, c, o) for g in (0, 1) for c in (0, 1) for o in (0, 1)]
        except ValueError:
            return f"SYM({f'deposit type {dtype}'!r})"
        return f"{tuple(table)}[g * 4 + c * 2 + {old}]"


#: inlining in ``compile_function``: instructions of jump targets inlined into one leaf, and in
#: all the function (a constant plus a factor of its instructions): bounded compile time (it
#: is part of every run: decoding is lazy, per function, but not cached across modules)
INLINE_LOOP, INLINE_LEAF = 64, 4  # into a loop header's leaf; into any other leaf
INLINE_FUNCTION, INLINE_FACTOR = 64, 0.25
#: tiers (``FunctionDecoder.warm``): a function runs segment by segment until it was charged
#: this many instructions, plus so many per instruction of it, then as one fused function
#: (segment by segment is ~1.5x slower; compiling the fused function costs ~1,000-4,000 of its
#: executed instructions per instruction. Measured on csmith 2-10 and Stanford: 5,000 + 1,000 n
#: within 3% of the best of 0 + 0, 2,000 + 50 n, 5,000 + 200 n, 20,000 + 2,000 n on each)
PROMOTE_MIN, PROMOTE_PER = 5_000, 1_000
#: functions with at most this many registers load them all on entry (cheaper than a test)
LOAD_ALL = 24


class Out(Exception):
    """Leaves a fused function with its registers stored (``compile_function``)."""

#: a register of the list form in generated lines, or a string literal (left alone)
_REGISTER = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\bR\[(\d+|JUNK)\]")
#: a register in list form (``R[JUNK]``, never read, left out), and an unconditional write
_SLOT = re.compile(r"\bR\[(\d+)\]")
_DEF = re.compile(r"R\[(\d+)\] = ")


def _bisect(emit, keys: list, lo: int, hi: int, ind: str, width: int, leaf) -> None:
    """Emit a binary search on ``pc`` over ``keys[lo:hi]`` (sorted), halving down to ``width``
    keys, where ``leaf(lo, hi, ind)`` writes the tests of the keys left."""
    if hi - lo <= width:
        leaf(lo, hi, ind)
        return
    mid = (lo + hi) // 2
    emit(f"{ind}if pc < {keys[mid]}:")
    _bisect(emit, keys, lo, mid, ind + "    ", width, leaf)
    emit(f"{ind}else:")
    _bisect(emit, keys, mid, hi, ind + "    ", width, leaf)


def _moves(bits: int, dest: str, src: str) -> str:
    """One Python statement copying the registers of ``bits`` (``{k}`` in the templates)."""
    ks = [k for k in range(bits.bit_length()) if bits >> k & 1]
    if not ks:
        return "pass"
    return (", ".join(dest.format(k=k) for k in ks) + " = " +
            ", ".join(src.format(k=k) for k in ks))


#: control leaving a segment in the lines of ``items``: a jump, ``ret`` (-1) or a call (< -1)
_RETURN = re.compile(r"return (-?\d+)")


def _unguarded(ins: Instr) -> bool:
    return ins.guard is None or ins.guard in TRUE_PREDICATES
