"""Sparse conditional constant propagation (Wegman & Zadeck 1991), predicate-blind, on PIR.

``sccp(module, rows)`` runs Wegman–Zadeck's conditional constant propagation on the CFG of every
defined function (the fixpoint of their algorithm "CC": a lattice value per register per program
point, only *executable* edges carry values; computed sparsely by their algorithm "SC",
``pcp/sparse.py``), then rewrites the function with what it found:

1. register operands whose value is a known constant become literals (every operand position of
   PIR takes a literal, docs/pir.md); a pure definition whose computed value is constant becomes
   ``mov C`` (its guard kept);
2. ``cbr`` with a constant condition becomes ``br``; a side exit ``(p) br L`` / ``(p) ret`` whose
   guard is constant 1 becomes unguarded and the rest of its block (never reached) is dropped;
3. instructions guarded by a constant-0 predicate are removed (guarded-off); a predicate define
   under a constant-0 guard writes by its deposit type (ut/uf/conjt/conjf write 0, disjt/disjf
   write ``old | C`` / ``old | !C``), so it is rewritten as the unguarded define of exactly those
   writes (``pcmp.ne 0, 0`` for the zeros, ``ot``/``of`` for the disjunctions), or removed when
   every destination keeps its old value; a guard that is constant 1 is dropped;
4. blocks that are not executable are dropped (the entry is always executable);
5. then, separately counted (to compare with LLVM's ``-passes=sccp,adce``): pure definitions
   (mov, arithmetic except ``div``/``rem`` by anything but a non-zero literal, neg/not, cmp,
   select, pcmp: no memory, call, input/print or control) whose destination is read nowhere in
   the function (no operand, no guard) are removed, until none is left;
6. a block left holding only ``br L`` (its other instructions folded or removed; not the entry)
   is bypassed: branches to it go to L, and it is dropped (``jumps_forwarded``).

Lattice and transfer functions (docs/pir.md semantics, the interpreter's operators):
- ⊤ (no information yet) / a 64-bit constant / ⊥ (varies). At the entry, parameters are ⊥ and
  every other register is the constant 0 (a never-written register reads 0); ``p0``/``true``
  read 1; a name of a global that the function never writes reads the global's address: ⊥.
- ``input``, ``load``, ``call`` and ``alloca`` results are ⊥; stores and calls change no other
  register (registers are per frame). Arithmetic wraps (``to_signed64``); ``div``/``rem`` are
  signed truncating (``interp.decode.div64``/``rem64``) and never folded for a zero divisor (a
  run-time error); shift counts are taken mod 64, ``shr`` is logical, ``sar`` arithmetic;
  ``cmp``/``pcmp`` relations are signed or unsigned as named. ``select`` with a ⊥ condition is the
  meet of its two values. Operators are strict: any ⊥ operand gives ⊥ (no algebraic absorption
  such as ``mul x, 0``: this is the Wegman–Zadeck baseline).
- Predicated code is treated *predicate-blind* (no relations between predicates): a guard whose
  value is a non-zero constant is an ordinary write, 0 nullifies, ⊥ gives ``meet(old, new)``;
  predicate defines evaluate ``deposit`` (``pylogic.ir.deposit_types``, the single source of
  truth) on the lattice, enumerating 0/1 for each ⊥ input and meeting the results; a side exit
  is an executable edge unless its guard is 0.

Why the fixpoint is Python: the lattice evaluation folds 64-bit arithmetic, which the 32-bit
Datalog engines cannot express (DESIGN.md "Integers are 32-bit in clingo and in Soufflé").
The reachable blocks (``ir.cfg.reverse_postorder``, asked only where blocks are dropped) tell
CFG-unreachable blocks from merely infeasible ones in the record; nothing computes dominators or loops here (the SSA form is built on demand, Braun et al.).
``CCAnalysis.run`` is the sparse SC, a value per SSA name (each lowered at most twice), so the
cost follows the SSA edges; ``run_dense`` is the dense CC (a persistent state per block entry,
``flow/state_map.py``, blocks visited in round-robin sweeps of reverse postorder, ``rpo``,
``pcp/worklist.py``), kept as the reference the tests compare SC with: its sweeps grow with the
loops (57 visits per block at 33,885 instructions of ``benchmarks.optimize_scale``, 21 s).

References: M. N. Wegman, F. K. Zadeck, "Constant propagation with conditional branches", ACM
TOPLAS 13(2), 1991 (algorithms CC and SC); predicated_cp.md §4.2 (what it misses on the branchy
example); docs/pir.md (semantics, deposit types).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from typing import Container, Iterable, Optional

from pylogic.ir.deposit_types import deposit
from pylogic.ir.model import (TRUE_PREDICATES, BinOp, Block, Br, Call, Cmp, CondBr, Function,
                              Imm, Instr, Module, Mov, PredDefine, PredDest, Reg, Ret, Select,
                              UnOp, with_operands)
from pylogic.flow.lattice import BOT, TOP, apply, meet
from pylogic.flow.state_map import Registers
from pylogic.ir.cfg import reverse_postorder
from pylogic.transforms.record import TransformRecord
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.pcp.sparse import BeforeInstructions
from pylogic.transforms.pcp.worklist import Worklist

__all__ = ["sccp", "SccpRecord", "FunctionSccp", "ConstantUse", "NEEDS", "TOP", "BOTTOM",
           "conditional_constants", "apply_constants", "CCAnalysis", "CCResult"]

#: Relations this pass reads: none (the fixpoint is Python, see below; the record's
#: ``unreachable_blocks`` asks ``ir.cfg`` for the reachable blocks of a function that drops
#: some: an engine call for ``reachable`` was 8% of the pass on csmith, issue #28 item 1).
NEEDS = ()


#: No information yet (greatest element) and "not a constant" (least element): the one
#: lattice of constant propagation (``flow.lattice``), shared with ``pcp``.
BOTTOM = BOT


def _known(v) -> bool:
    return v is not TOP and v is not BOTTOM


def _truth(v):
    """A guard or condition value as 0/1 (⊤/⊥ unchanged)."""
    return v if not _known(v) else int(v != 0)


def _deposit(dtype: str, g, c, old):
    """``deposit`` over the lattice: exact on constants, the meet over 0/1 for each ⊥ input."""
    ins = [_truth(g), _truth(c), _truth(old)]
    if any(v is TOP for v in ins):
        return TOP
    choices = [(0, 1) if v is BOTTOM else (v,) for v in ins]
    result = TOP
    for gg, cc, oo in product(*choices):
        result = meet(result, deposit(dtype, gg, cc, oo))
    return result


def _is_pure(ins: Instr) -> bool:
    """No side effect, no memory, no call, no I/O, no control, cannot fault."""
    if isinstance(ins, BinOp) and ins.op in ("div", "rem"):
        return isinstance(ins.b, Imm) and ins.b.value != 0
    return isinstance(ins, (Mov, BinOp, UnOp, Cmp, Select, PredDefine))


# ---------------------------------------------------------------- record

@dataclass(frozen=True)
class ConstantUse:
    """A register operand replaced by its constant: instruction ``index`` (0-based, in the
    *input* function) of ``block`` read ``register``, always equal to ``value`` there."""
    function: str
    block: str
    index: int
    register: str
    value: int
    origins: tuple = ()         # the instruction's ``#origin=`` annotations (benchmarks tag them)
    kind: str = "use"           # "use": an operand replaced; "def": a definition folded


def origins_of(ins: Instr) -> tuple:
    """The values of ``#origin=`` annotations of ``ins`` (instruction identity across passes)."""
    return tuple(v for k, v in ins.annotations if k == "origin")


@dataclass(frozen=True)
class FunctionSccp:
    """What ``sccp`` did in one function (counts; ``constants`` lists every use replaced;
    ``removed_blocks`` the blocks dropped; ``folded_branches`` ``(block, index, target)``)."""
    function: str
    uses_replaced: int
    definitions_folded: int
    branches_folded: int
    side_exits_folded: int
    blocks_removed: int
    unreachable_blocks: int
    guarded_off_removed: int
    guarded_off_rewritten: int
    guards_dropped: int
    unreached_removed: int
    dead_removed: int
    constants: tuple = ()
    removed_blocks: tuple = ()
    folded_branches: tuple = ()
    folded_definitions: tuple = ()      # ConstantUse(kind="def") per definition folded
    jumps_forwarded: int = 0            # step 6: blocks holding only ``br L`` bypassed


@dataclass
class SccpRecord(TransformRecord):
    """``applied``: one :class:`FunctionSccp` per function the pass changed."""
    transform: str = "sccp"

    def totals(self) -> dict:
        def total(key):
            return sum(getattr(f, key) for f in self.applied)
        return {
            "constants_found": total("uses_replaced"),
            "definitions_folded": total("definitions_folded"),
            "branches_folded": total("branches_folded") + total("side_exits_folded"),
            "blocks_removed": total("blocks_removed"),
            "guarded_off_removed": total("guarded_off_removed"),
            "guarded_off_rewritten": total("guarded_off_rewritten"),
            "guards_dropped": total("guards_dropped"),
            "unreached_removed": total("unreached_removed"),
            "dead_removed": total("dead_removed"),
            "jumps_forwarded": total("jumps_forwarded"),
        }

    def summary(self) -> str:
        t = self.totals()
        lines = [f"sccp: {t['constants_found']} constant uses, {t['definitions_folded']} "
                 f"definitions folded, {t['branches_folded']} branches folded, "
                 f"{t['blocks_removed']} blocks removed, {t['guarded_off_removed']} guarded-off "
                 f"removed, {t['dead_removed']} dead removed"]
        for f in self.applied:
            lines.append(f"  {f.function}: {f.uses_replaced} uses, {f.branches_folded} cbr + "
                         f"{f.side_exits_folded} exits folded, {f.blocks_removed} blocks, "
                         f"{f.dead_removed} dead")
        return "\n".join(lines)


# ---------------------------------------------------------------- the analysis

class CCResult(BeforeInstructions):
    """Analysis result of one function: executable blocks, the state at each executable block's
    start (``incoming``), how many leading instructions of each can run (``reached``), and
    ``before[(label, index)]``: the state before a reached instruction (replayed on first use)."""

    def __init__(self, analysis: "CCAnalysis", executable: set, incoming: dict, reached: dict):
        self.analysis = analysis
        self.executable = executable
        self.incoming = incoming
        self.reached = reached
        self._before: Optional[dict] = None

    def block_states(self, label: str) -> list:
        """The state before each reached instruction of executable block ``label``."""
        state = self.incoming[label].copy()
        states = []
        for ins in self.analysis.blocks[label].instrs[:self.reached[label]]:
            states.append(state.copy())
            self.analysis.step(state, ins, self.analysis.guard_value(state, ins), [])
        return states



class CCAnalysis:
    def __init__(self, fn: Function, module: Module, order: dict):
        self.fn = fn
        self.blocks = fn.block_map()
        written = set(fn.params)
        read: set = set()
        for b in fn.blocks:
            for ins in b.instrs:
                written.update(ins.defs())
                read.update(op.name for op in ins.uses() if type(op) is Reg)
                if ins.guard is not None:
                    read.add(ins.guard)
        self.written = written
        globals_ = {g.name for g in module.globals}
        self.address_names = globals_ - written  # reads give a global's address
        regs = written | read
        regs -= TRUE_PREDICATES
        regs -= self.address_names
        self.regs = sorted(regs)
        self.order = order

    @cached_property
    def registers(self) -> Registers:
        """The dense states' persistent maps over ``regs`` (built when a dense form asks)."""
        return Registers(self.regs)

    def value(self, state: dict, op):
        if isinstance(op, Imm):
            return op.value
        if not isinstance(op, Reg):
            return BOTTOM  # GlobalAddr: an address, not folded
        if op.name in TRUE_PREDICATES:
            return 1
        if op.name in self.address_names:
            return BOTTOM
        return state[op.name]

    def guard_value(self, state: dict, ins: Instr):
        if ins.guard is None or ins.guard in TRUE_PREDICATES:
            return 1
        return _truth(self.value(state, Reg(ins.guard)))

    def computed(self, state: dict, ins: Instr):
        """Value an ordinary definition computes when it executes (ignoring its guard)."""
        v = self.value
        if isinstance(ins, Mov):
            return v(state, ins.src)
        if isinstance(ins, BinOp):
            return apply(ins.op, v(state, ins.a), v(state, ins.b))
        if isinstance(ins, UnOp):
            return apply(ins.op, v(state, ins.a))
        if isinstance(ins, Cmp):
            return apply(ins.rel, v(state, ins.a), v(state, ins.b))
        if isinstance(ins, Select):
            c = v(state, ins.cond)
            if c is TOP:
                return TOP
            if c is BOTTOM:
                return meet(v(state, ins.a), v(state, ins.b))
            return v(state, ins.a) if c != 0 else v(state, ins.b)
        return BOTTOM  # load, call, input, alloca

    def run(self):
        """Wegman–Zadeck SC (``pcp/sparse.py``): the fixpoint of :meth:`run_dense`, sparsely
        (a value per SSA name, CFG-edge and SSA-edge worklists); answers as a ``CCResult``."""
        from pylogic.transforms.pcp.sparse import SparseCC
        return SparseCC(self).solve()

    def run_dense(self) -> CCResult:
        """Wegman–Zadeck CC, the dense form: a state per block entry, met at joins, blocks
        visited in sweeps (``pcp/worklist.py``). The reference ``run`` is tested against."""
        fn = self.fn
        entry = fn.blocks[0].label
        init = {r: 0 for r in self.regs}
        for p in fn.params:
            if p in init:
                init[p] = BOTTOM
        incoming: dict = {entry: self.registers.build(init)}
        reached: dict = {}
        executable = set()
        work = Worklist(self.order)
        work.push(entry)
        while (label := work.pop()) is not None:
            executable.add(label)
            state = incoming[label].copy()
            block = self.blocks[label]
            out_edges = []
            n_reached = len(block.instrs)
            for k, ins in enumerate(block.instrs):
                g = self.guard_value(state, ins)
                stop = self.step(state, ins, g, out_edges)
                if stop:
                    n_reached = k + 1
                    break
            reached[label] = n_reached
            for target, edge_state in out_edges:
                old = incoming.get(target)
                if old is None:
                    incoming[target] = edge_state
                    changed = True
                else:               # ⊤ never reaches here: the meet of two values or ⊥
                    incoming[target] = old.meet(edge_state)
                    changed = incoming[target] is not old
                if target not in executable:        # a block reached for the first time
                    work.push(target, fresh=True)
                elif changed:
                    work.push(target)
        return CCResult(self, executable, incoming, reached)

    def step(self, state: dict, ins: Instr, g, out_edges: list) -> bool:
        """Apply ``ins`` to ``state``; append ``(target, state)`` of executable edges; True when
        control never passes this instruction (an unconditional or always-taken exit)."""
        if isinstance(ins, PredDefine):
            c = apply(ins.rel, self.value(state, ins.a), self.value(state, ins.b))
            news = [(d.name, _deposit(d.dtype, g, c, state[d.name])) for d in ins.dests
                    if d.name not in TRUE_PREDICATES]
            for name, v in news:
                state[name] = v
            return False
        if g is TOP or g == 0:
            return False  # nullified (⊤ does not occur at a reached point)
        if isinstance(ins, (Br, CondBr, Ret)):
            if isinstance(ins, Br):
                out_edges.append((ins.target, state.copy()))
            elif isinstance(ins, CondBr):
                c = _truth(self.value(state, ins.cond))
                if c is BOTTOM or c == 1:
                    out_edges.append((ins.if_true, state.copy()))
                if c is BOTTOM or c == 0:
                    out_edges.append((ins.if_false, state.copy()))
            return g is not BOTTOM
        for d in ins.defs():
            if d in TRUE_PREDICATES:
                continue
            new = self.computed(state, ins)
            state[d] = new if g is not BOTTOM else meet(state[d], new)
        if isinstance(ins, Call) and ins.continuations:   # exit splitting: any exit may return
            out_edges.extend((t, state.copy()) for t in ins.continuations)
            return True
        return False


def conditional_constants(fn: Function, module: Module, order: Optional[dict] = None):
    """Wegman–Zadeck constant propagation on ``fn`` (SC, the sparse form): executable blocks,
    the lattice state before each reached instruction (``before[(label, index)]``: register ->
    value) and how many leading instructions of each executable block can run. ``order`` is
    unused (the dense form's worklist priority; kept for callers)."""
    return CCAnalysis(fn, module, order or {}).run()


# ---------------------------------------------------------------- the rewrite

def _replace_operands(ins: Instr, state: dict, an: CCAnalysis, uses: list, where) -> Instr:
    """``ins`` with every register operand of known constant value replaced by a literal
    (``ins`` itself when none is)."""
    def lit(op):
        if type(op) is Reg and op.name not in TRUE_PREDICATES \
                and op.name not in an.address_names:
            v = state[op.name]
            if _known(v):
                uses.append(ConstantUse(an.fn.name, where[0], where[1], op.name, v,
                                        origins_of(ins)))
                return Imm(v)
        return op

    return with_operands(ins, lit)


#: Deposit types under a 0 guard: keep the old value / write 0 / ``old | C`` / ``old | !C``.
_ZERO_GUARD = {"ot": "keep", "of": "keep", "at": "keep", "af": "keep", "ct": "keep",
               "cf": "keep", "ut": "zero", "uf": "zero", "conjt": "zero", "conjf": "zero",
               "disjt": "ot", "disjf": "of"}


def _guarded_off_define(ins: PredDefine) -> list:
    """The unguarded instructions equivalent to ``ins`` under a guard that is always 0."""
    kept = [d for d in ins.dests if d.name not in TRUE_PREDICATES]
    disj = [PredDest(d.name, _ZERO_GUARD[d.dtype]) for d in kept
            if _ZERO_GUARD[d.dtype] in ("ot", "of")]
    zero = [PredDest(d.name, "ut") for d in kept if _ZERO_GUARD[d.dtype] == "zero"]
    out = []
    if disj:  # first: it reads the compare's operands before any zero is written
        out.append(dataclasses.replace(ins, guard=None, dests=tuple(disj)))
    if zero:
        out.append(PredDefine(rel="ne", dests=tuple(zero), a=Imm(0), b=Imm(0),
                              annotations=ins.annotations, loc=ins.loc))
    return out


class _Counts:
    def __init__(self):
        self.uses: list = []
        self.definitions_folded = self.branches_folded = self.side_exits_folded = 0
        self.guarded_off_removed = self.guarded_off_rewritten = self.guards_dropped = 0
        self.unreached_removed = self.dead_removed = 0
        self.folded: list = []
        self.defs: list = []


def _rewrite_block(block: Block, an: CCAnalysis, point: CCResult, c: _Counts) -> Block:
    out = []
    n = point.reached[block.label]
    c.unreached_removed += len(block.instrs) - n
    states = point.block_states(block.label)
    for k, ins in enumerate(block.instrs[:n]):
        state = states[k]
        g = an.guard_value(state, ins)
        if g == 0:
            if isinstance(ins, PredDefine):
                repl = _guarded_off_define(ins)
                if not repl:
                    c.guarded_off_removed += 1
                    continue
                c.guarded_off_rewritten += 1
                out.extend(_replace_operands(r, state, an, c.uses, (block.label, k))
                           for r in repl)
                continue
            c.guarded_off_removed += 1
            continue
        new = _replace_operands(ins, state, an, c.uses, (block.label, k))
        if g == 1 and new.guard is not None and new.guard not in TRUE_PREDICATES:
            new = dataclasses.replace(new, guard=None)
            c.guards_dropped += 1
            if new.is_terminator:
                c.side_exits_folded += 1
        if isinstance(new, CondBr):
            cond = _truth(an.value(state, ins.cond))
            if _known(cond):
                target = new.if_true if cond else new.if_false
                new = Br(target=target, guard=new.guard, annotations=new.annotations,
                         loc=new.loc)
                c.branches_folded += 1
                c.folded.append((block.label, k, target))
        elif isinstance(new, (BinOp, UnOp, Cmp, Select)):
            v = an.computed(state, ins)
            if _known(v):
                new = Mov(dest=new.dest, src=Imm(v), guard=new.guard,
                          annotations=new.annotations, loc=new.loc)
                c.definitions_folded += 1
                c.defs.append(ConstantUse(an.fn.name, block.label, k, new.dest, v,
                                          origins_of(ins), "def"))
        out.append(new)
    return block.with_instrs(out)          # nothing rewritten: the block itself


def _remove_dead(blocks: list) -> tuple[list, int]:
    """Drop pure definitions whose destinations are read nowhere (operands, guards); iterate.
    A removal only lowers read counts, so what goes does not depend on the order: only the pure
    definitions are swept again, until a sweep removes none."""
    reads: dict = {}
    pure: list = []                         # the candidates, in block order
    for b in blocks:
        for ins in b.instrs:
            for op in ins.uses():
                if type(op) is Reg:
                    reads[op.name] = reads.get(op.name, 0) + 1
            if ins.guard is not None:
                reads[ins.guard] = reads.get(ins.guard, 0) + 1
            if _is_pure(ins) and ins.defs():
                pure.append(ins)
    gone: set = set()                       # ids of the removed instructions
    removed = 0                             # (an instruction object may occur twice)
    changed = True
    while changed:
        changed = False
        left = []
        for ins in pure:
            if all(reads.get(d, 0) == 0 for d in ins.defs()):
                for op in ins.uses():
                    if type(op) is Reg:
                        reads[op.name] -= 1
                if ins.guard is not None:
                    reads[ins.guard] -= 1
                gone.add(id(ins))
                removed += 1
                changed = True
            else:
                left.append(ins)
        pure = left
    if not gone:
        return blocks, 0
    out = []
    for b in blocks:
        keep = tuple(ins for ins in b.instrs if id(ins) not in gone)
        out.append(b if len(keep) == len(b.instrs) else dataclasses.replace(b, instrs=keep))
    return out, removed


def _forward_jumps(blocks: list) -> tuple[list, int]:
    """Step 6: bypass every block but the entry whose only instruction is an unguarded
    ``br L``; returns the blocks left and how many were bypassed."""
    jump = {b.label: b.instrs[0].target for b in blocks[1:]
            if len(b.instrs) == 1 and isinstance(b.instrs[0], Br) and b.instrs[0].guard is None
            and b.instrs[0].target != b.label}

    def final(start: str) -> str:
        label, seen = start, set()
        while label in jump:
            if label in seen:                 # a cycle of jumps (an endless loop) stays
                return start
            seen.add(label)
            label = jump[label]
        return label

    target = {label: final(label) for label in jump}
    target = {k: v for k, v in target.items() if v != k}
    if not target:
        return blocks, 0

    def redirect(ins):
        if isinstance(ins, Br) and ins.target in target:
            return dataclasses.replace(ins, target=target[ins.target])
        if isinstance(ins, CondBr) and (ins.if_true in target or ins.if_false in target):
            return dataclasses.replace(ins, if_true=target.get(ins.if_true, ins.if_true),
                                       if_false=target.get(ins.if_false, ins.if_false))
        if isinstance(ins, Call) and any(t in target for t in ins.continuations):
            return dataclasses.replace(ins, continuations=tuple(target.get(t, t)
                                                                for t in ins.continuations))
        return ins

    out = [dataclasses.replace(b, instrs=tuple(redirect(i) for i in b.instrs))
           for b in blocks if b.label not in target or b is blocks[0]]
    return out, len(blocks) - len(out)


def apply_constants(fn: Function, an: "CCAnalysis", point: "CCResult", reachable: Container
                    ) -> tuple[Function, FunctionSccp]:
    """Rewrite ``fn`` with a constant-propagation result (steps 1-5 of the module docstring).

    The rewrite is shared by every constant propagation on PIR: ``an`` answers ``value``,
    ``guard_value`` and ``computed`` on the states ``point.block_states(label)`` returns (one
    mapping register -> lattice value per reached instruction), ``point.executable`` and
    ``point.reached`` say which blocks and instructions can run. ``sccp`` passes its
    Wegman–Zadeck result; ``pcp-basic``/``pcp-full`` their path-sensitive one.
    """
    c = _Counts()
    blocks, dropped = [], []
    for i, b in enumerate(fn.blocks):
        if b.label not in point.executable and i > 0:
            dropped.append(b.label)
            continue
        blocks.append(_rewrite_block(b, an, point, c))
    blocks, dead = _remove_dead(blocks)
    blocks, forwarded = _forward_jumps(blocks)
    info = FunctionSccp(
        function=fn.name, uses_replaced=len(c.uses), definitions_folded=c.definitions_folded,
        branches_folded=c.branches_folded, side_exits_folded=c.side_exits_folded,
        blocks_removed=len(dropped),
        unreachable_blocks=sum(1 for b in dropped if b not in reachable),
        guarded_off_removed=c.guarded_off_removed, guarded_off_rewritten=c.guarded_off_rewritten,
        guards_dropped=c.guards_dropped, unreached_removed=c.unreached_removed,
        dead_removed=dead, constants=tuple(c.uses), removed_blocks=tuple(dropped),
        folded_branches=tuple(c.folded), folded_definitions=tuple(c.defs),
        jumps_forwarded=forwarded)
    if len(blocks) == len(fn.blocks) and all(a is b for a, b in zip(blocks, fn.blocks)):
        return fn, info                     # nothing rewritten: the function itself
    return dataclasses.replace(fn, blocks=tuple(blocks)), info


class _Reachable:
    """The labels of the blocks reachable from ``fn``'s entry, found when first asked (only a
    function with a dropped block asks): ``ir.cfg.reverse_postorder``'s DFS over the CFG edges,
    the blocks ``datalog/reachability.dl``'s ``reachable`` holds (an unknown label has no
    successors, so it leads to no block)."""

    __slots__ = ("fn", "_labels")

    def __init__(self, fn: Function):
        self.fn, self._labels = fn, None

    def __contains__(self, label) -> bool:
        if self._labels is None:
            self._labels = frozenset(reverse_postorder(self.fn))
        return label in self._labels


def _sccp_function(fn: Function, module: Module) -> tuple[Function, FunctionSccp]:
    an = CCAnalysis(fn, module, {})
    return apply_constants(fn, an, an.run(), _Reachable(fn))


def sccp(module: Module, rows, *, functions: Optional[Iterable[str]] = None
         ) -> tuple[Module, SccpRecord]:
    """Sparse conditional constant propagation of ``module``; return ``(new_module, record)``.

    Parameters
    ----------
    module: the input (never modified).
    rows: the module's analysis rows (``Rows``; ``NEEDS`` is empty: unread).
    functions: names of the functions to transform (default: every defined function).

    Returns: the new module and an :class:`SccpRecord` (``totals()``: constants found = uses
    replaced, branches folded, blocks removed, guarded-off and dead instructions removed).

    Raises PathlogicError for an unknown function name.

    Example: on ``B: x = mov 2 / cbr 1, C, D / C: y = add x, 1 / print y``, ``sccp`` prints
    ``print 3`` in C, folds the ``cbr`` to ``br C`` and drops D.
    References: Wegman & Zadeck, TOPLAS 1991 (CC); predicated_cp.md §4.2; docs/pir.md.
    """
    return run_per_function(module, functions, SccpRecord(),
                            lambda fn: _sccp_function(fn, module))
