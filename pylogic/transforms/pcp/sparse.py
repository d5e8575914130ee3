"""Wegman–Zadeck SC, the sparse form of ``sccp``'s conditional constant propagation: one lattice
value per SSA name, a CFG-edge worklist and an SSA-edge worklist (Wegman & Zadeck, TOPLAS 1991,
§3.4 "Sparse conditional constant"), giving the fixpoint of the dense CC (``CCAnalysis.run_dense``)
at the cost of the SSA edges instead of sweeps × registers.

Why: the dense CC meets whole states at every join and visits every block once per sweep, and the
sweeps grow with the loops (``benchmarks.optimize_scale``: 0.31 / 0.69 / 2.47 / 21.0 s at 1,095 /
3,467 / 11,533 / 33,885 instructions, 3.6 / 8.9 / 21.3 / 57.1 visits per block, two thirds of the
time in ``state_map.meet``). Here every SSA value is lowered at most twice (⊤ -> constant -> ⊥)
and each lowering re-evaluates its uses once.

- **Segments.** A PIR block may leave before its end (a side exit ``(p) br L``, ``(p) ret``, a
  call with continuations), each exit carrying the state at that point; so the SSA graph's nodes
  are segments: a block cut after every instruction that may transfer control
  (``Instr.is_terminator``). A segment falls through to the next one of its block when its exit
  may be not taken (the dense ``step`` does not stop). The entry segment has a virtual predecessor
  ``START`` carrying the entry state (parameters ⊥, every other register 0), so a loop back to the
  entry meets with it as the dense join does.
- **SSA construction** without dominators: Braun et al.'s on-demand variable lookup (every block
  sealed, the CFG being known), iterative (no recursion on long chains): a read looks back
  through single-predecessor segments and places a φ at a segment with several (trivial φs are
  kept: they evaluate to the value of their one argument, so only cost a node).
- **Loop φs.** A register read and written in one block only (a loop counter) gets one φ at that
  block instead of φs at the joins it is live across: the entry value met with the values of the
  block's exits that lead back to it over executable edges. Those exits are found by strongly
  connected components of the executable graph (``pcp/cycles.py``, each round condensing the
  edges executable since the last), between rounds of the worklists, until no new one loops
  back. Algorithm 1 gives registers mentioned in one hyperblock only the same φ
  (``global_cp._OwnRegisters``).
- **Transfer functions** are the dense ones (``CCAnalysis.step``), applied to the values of the
  SSA names an instruction reads (operands, guard, and the old value of what it writes where the
  write depends on it: a predicate define, a guarded definition). An instruction any of whose
  inputs is still ⊤ is not evaluated (its outputs stay ⊤, its exits unexecuted): the dense CC
  never sees ⊤ in a reached state, and at the fixpoint every name read at an executable point
  has a value (its definition dominates the point).
- **Answers.** ``block_states(label)`` gives, per reached instruction, a mapping register ->
  value: the registers the instruction reads from its SSA names; any other register by a look-up
  (the last definition before the point, else the meet of the values reaching the segment over
  executable edges), as the dense state would hold it.

References: M. N. Wegman, F. K. Zadeck, "Constant propagation with conditional branches", ACM
TOPLAS 13(2), 1991 (SC, §3.4); M. Braun, S. Buchwald, S. Hack, R. Leißa, C. Mallon, A. Zwinkau,
"Simple and efficient construction of static single assignment form", CC 2013 (Alg. 1-2).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from pylogic.flow.lattice import BOT, TOP, meet
from pylogic.ir.model import TRUE_PREDICATES, PredDefine, Reg, branch_targets
from pylogic.transforms.pcp.cycles import Condensation

__all__ = ["SparseCC", "START"]

#: The virtual predecessor of the entry segment (the function's start).
START = -1


class BeforeInstructions:
    """``before[(label, index)]``, the state before each reached instruction, built once from
    ``block_states`` of every executable block (dense ``CCResult`` and sparse ``SparseCC``)."""

    _before: Optional[dict] = None

    @property
    def before(self) -> dict:
        if self._before is None:
            self._before = {(label, k): st for label in self.executable
                            for k, st in enumerate(self.block_states(label))}
        return self._before


class _Node:
    """An instruction (``phi`` False: ``k`` its index in the block, ``reads`` register -> SSA
    id, ``defs`` register -> SSA id; ``plain``: unguarded, no exit, no predicate define, so
    its transfer writes ``computed`` to its definitions and nothing else) or a φ of
    ``register`` (``args``: (pred segment, id))."""
    __slots__ = ("seg", "k", "ins", "reads", "defs", "phi", "register", "args", "id", "loop",
                 "plain")

    def __init__(self, seg, k=None, ins=None, reads=None, defs=None, register=None, id_=None,
                 loop=False):
        self.seg, self.k, self.ins, self.reads, self.defs = seg, k, ins, reads, defs
        self.phi = register is not None
        self.register, self.args, self.id, self.loop = register, [], id_, loop
        self.plain = ins is not None and ins.guard is None and not ins.is_terminator and \
            type(ins) is not PredDefine


class SparseCC(BeforeInstructions):
    """SC on the function of ``an`` (a ``CCAnalysis``); ``solve()`` then answers like
    ``CCResult``: ``executable``, ``reached``, ``incoming``, ``block_states``, ``before``."""

    def __init__(self, an):
        self.an = an
        fn = an.fn
        self.regs = set(an.regs)
        self.params = set(fn.params)
        # ---- segments: (label, start, end) of each block, cut after each exit
        self.segs: list = []
        self.first: dict = {}
        for b in fn.blocks:
            self.first[b.label] = len(self.segs)
            start = 0
            for k, ins in enumerate(b.instrs):
                if ins.is_terminator:
                    self.segs.append((b.label, start, k + 1))
                    start = k + 1
            if start < len(b.instrs) or not b.instrs:
                self.segs.append((b.label, start, len(b.instrs)))
        n = len(self.segs)
        self.succ: list = [[] for _ in range(n)]        # exit targets (first segments)
        preds: list = [dict() for _ in range(n)]
        if n:
            preds[0][START] = None
        for s, (label, start, end) in enumerate(self.segs):
            if end > start:
                for t in branch_targets(an.blocks[label].instrs[end - 1]):
                    if t in self.first and self.first[t] not in self.succ[s]:
                        self.succ[s].append(self.first[t])
                        preds[self.first[t]].setdefault(s, None)
            if s + 1 < n and self.segs[s + 1][0] == label:
                preds[s + 1].setdefault(s, None)
        self.preds = [tuple(p) for p in preds]
        # ---- SSA names: values[id]; the entry value of each register; definitions
        self.values: list = []
        self.init: dict = {}
        self.users: list = []
        self.nodes: list = [[] for _ in range(n)]       # instruction nodes per segment
        self.phis: list = [[] for _ in range(n)]
        self.last_def: list = [dict() for _ in range(n)]
        self.entry: dict = {}                           # (segment, register) -> id at its start
        self._pending: list = []
        self.undefined = self._new(TOP)                 # read on a cycle no path enters
        self._skip = TRUE_PREDICATES | an.address_names  # read as constants, not SSA names
        self._build()

    # ---------------------------------------------------------------- SSA construction
    def _new(self, value=TOP) -> int:
        self.values.append(value)
        self.users.append([])
        return len(self.values) - 1

    def _init_id(self, r: str) -> int:
        got = self.init.get(r)
        if got is None:
            got = self.init[r] = self._new(BOT if r in self.params else 0)
        return got

    def _reads(self, ins) -> list:
        """The registers whose values the dense transfer of ``ins`` reads."""
        out = [op.name for op in ins.uses() if type(op) is Reg]
        if ins.guard is not None:
            out.append(ins.guard)
            out.extend(ins.defs())                      # guarded: the old value may stay
        elif type(ins) is PredDefine:
            out.extend(ins.defs())                      # deposit reads the old value
        skip = self._skip
        return [r for r in dict.fromkeys(out) if r not in skip]

    def _build(self) -> None:
        an, segs, first = self.an, self.segs, self.first
        exposed: set = set()                # registers some block reads before writing them
        written: set = set()
        where: dict = {}                    # register -> the block reading or writing it, or
        many = None                         # ``many``: several blocks do
        new = self._new
        for s, (label, start, end) in enumerate(segs):          # definitions
            last = self.last_def[s]
            if s == first[label]:
                written = set()
            instrs, nodes = an.blocks[label].instrs, self.nodes[s]
            for k in range(start, end):
                ins = instrs[k]
                reads = self._reads(ins)
                for r in reads:
                    if r not in written:
                        exposed.add(r)
                    if where.get(r, label) != label:
                        where[r] = many
                    else:
                        where.setdefault(r, label)
                defs = {}
                for d in ins.defs():
                    if where.get(d, label) != label:
                        where[d] = many
                    else:
                        where.setdefault(d, label)
                    if d not in TRUE_PREDICATES:
                        defs[d] = new()
                written.update(defs)
                last.update(defs)
                nodes.append(_Node(s, k, ins, reads, defs))
        # A register read and written in one block only (a loop counter) gets one "loop φ" at
        # that block: the entry value met with the values of the block's exits that lead back
        # to it over executable edges (``_cycles``). Nothing else reads it, and an ordinary φ
        # at every join it is live across would cost Θ(N) φs per loop counter in a function
        # whose loops overlap (benchmarks.optimize_scale: 180,000 φs at 11,533 instructions
        # with minimal SSA, 9,000 with loop φs).
        self.loop_phis: dict = {}           # block -> its loop φs
        for r in exposed:
            label = where[r]
            if label is not many and any(r in self.last_def[t] for t in self._segments(label)):
                phi = _Node(first[label], register=r, id_=self._new(), loop=True)
                self.phis[first[label]].append(phi)
                self.loop_phis.setdefault(label, []).append(phi)
                self.entry[(first[label], r)] = phi.id
        for s in range(len(segs)):                              # what each instruction reads
            cur: dict = {}
            for node in self.nodes[s]:        # ``reads``: the registers, then their ids
                node.reads = {r: cur[r] if r in cur else self._read_entry(s, r)
                              for r in node.reads}
                for i in node.reads.values():
                    self.users[i].append(node)
                cur.update(node.defs)
        for label, phis in self.loop_phis.items():              # loop φs: entry, exits
            for phi in phis:
                phi.args.append((START, self._init_id(phi.register)))
                phi.args.extend((t, self._read_end(t, phi.register))
                                for t in self._segments(label) if self.succ[t])
                for _, i in phi.args:
                    self.users[i].append(phi)
        while self._pending:                                    # φ arguments (may add φs)
            phi = self._pending.pop()
            for p in self.preds[phi.seg]:
                i = self._read_end(p, phi.register)
                phi.args.append((p, i))
                self.users[i].append(phi)

    def _segments(self, label: str) -> range:
        s = e = self.first[label]
        while e < len(self.segs) and self.segs[e][0] == label:
            e += 1
        return range(s, e)

    def _read_end(self, s: int, r: str) -> int:
        """The SSA id of ``r`` at the end of segment ``s`` (``START``: the entry value)."""
        if s == START:
            return self._init_id(r)
        got = self.last_def[s].get(r)
        return got if got is not None else self._read_entry(s, r)

    def _read_entry(self, s: int, r: str) -> int:
        """The SSA id of ``r`` at the start of segment ``s`` (Braun et al. Alg. 2, every block
        sealed, iterative): single-predecessor chains are followed, a φ is placed where several
        meet (its arguments filled later, ``_pending``); memoised per (segment, register)."""
        got = self.entry.get((s, r))
        if got is not None:
            return got
        stack, on_stack = [s], {s}
        while stack:
            x = stack[-1]
            preds = self.preds[x]
            if len(preds) == 1:
                p = preds[0]
                if p == START:
                    val = self._init_id(r)
                else:
                    val = self.last_def[p].get(r)
                    if val is None:
                        val = self.entry.get((p, r))
                    if val is None:
                        if p not in on_stack:
                            stack.append(p)
                            on_stack.add(p)
                            continue
                        val = self.undefined            # a cycle no path enters
            else:                                       # several (or none: never executable)
                phi = _Node(x, register=r, id_=self._new())
                self.phis[x].append(phi)
                self._pending.append(phi)
                val = phi.id
            self.entry[(x, r)] = val
            stack.pop()
            on_stack.discard(x)
        return self.entry[(s, r)]

    # ---------------------------------------------------------------- propagation
    def solve(self) -> "SparseCC":
        self.exec_edges: set = set()
        self.exec_segs: set = set()
        self.stops: dict = {}
        if not self.segs:
            self._finish()
            return self
        flow = [(START, 0)]
        self._ssa: list = []
        self._flow = flow
        self.cycles: set = set()            # exit segments leading back to their block
        self._graph = Condensation()        # strongly connected segments
        self._new_edges: list = []          # executable edges since the last round
        self._exit_of = {t: label for label, phis in self.loop_phis.items()
                         for t, _ in phis[0].args[1:]}     # exit segment -> its loop φ block
        self._loop_order = {label: k for k, label in enumerate(self.loop_phis)}
        self._waiting: set = set()          # executable exit edges not (yet) looping back
        self.rounds = 0
        while True:
            self._propagate()
            self.rounds += 1
            if not self._cycles():
                break
        self._finish()
        return self

    def _propagate(self) -> None:
        """Both worklists until they are empty."""
        flow = self._flow
        while flow or self._ssa:
            while flow:
                edge = flow.pop()
                if edge in self.exec_edges:
                    continue
                self.exec_edges.add(edge)
                self._new_edges.append(edge)
                s = edge[1]
                for phi in self.phis[s]:
                    self._eval_phi(phi)
                if s not in self.exec_segs:
                    self.exec_segs.add(s)
                    for node in self.nodes[s]:
                        self._eval(node)
            while self._ssa and not flow:
                for node in self.users[self._ssa.pop()]:
                    if node.seg in self.exec_segs:
                        if node.phi:
                            self._eval_phi(node)
                        else:
                            self._eval(node)

    def _cycles(self) -> bool:
        """Mark the exits of blocks with loop φs that now lead back to their block over
        executable edges, re-evaluating those φs; True when any was newly marked. An exit
        loops back when its target is in the block's strongly connected component of the
        executable graph (``pcp/cycles.py``: a round costs the components and the new edges,
        not the function). Only the executable exit edges not yet found looping back are
        looked at (``_waiting``), not every loop φ block each round."""
        if not self.loop_phis:
            return False
        graph, exit_of, waiting = self._graph, self._exit_of, self._waiting
        for u, v in self._new_edges:
            if u != START:
                graph.add(u, v)
                if u in exit_of and v in self.succ[u]:
                    waiting.add((u, v))
        self._new_edges = []
        graph.update()
        marked: dict = {}
        for t, x in list(waiting):
            label = exit_of[t]
            if t in self.cycles:
                waiting.discard((t, x))
            elif graph.same(x, self.first[label]):
                waiting.discard((t, x))
                self.cycles.add(t)
                marked[label] = None
        for label in sorted(marked, key=self._loop_order.__getitem__):
            for phi in self.loop_phis[label]:
                self._eval_phi(phi)
        return bool(marked)

    def _set(self, i: int, v) -> None:
        old = self.values[i]
        if v is not old and not (type(v) is int and type(old) is int and v == old):
            self.values[i] = v
            self._ssa.append(i)

    def _eval_phi(self, phi: _Node) -> None:
        v = TOP
        if phi.loop:                    # the entry value, and the exits that loop back
            for p, i in phi.args:
                if p == START or p in self.cycles:
                    v = meet(v, self.values[i])
        else:
            for p, i in phi.args:
                if (p, phi.seg) in self.exec_edges:
                    v = meet(v, self.values[i])
        self._set(phi.id, v)

    def _eval(self, node: _Node) -> None:
        values = self.values
        state = {r: values[i] for r, i in node.reads.items()}
        if TOP in state.values():                       # (values are ints, ⊤ and ⊥: identity)
            return                                      # not all inputs known yet
        s = node.seg
        if node.plain:                                  # ``step`` on it: its definitions only
            stop = False
            if node.defs:
                v = self.an.computed(state, node.ins)
                for i in node.defs.values():
                    self._set(i, v)
        else:
            an, ins = self.an, node.ins
            out: list = []
            stop = an.step(state, ins, an.guard_value(state, ins), out)
            for d, i in node.defs.items():
                self._set(i, state[d])
            for target, _ in out:
                if target in self.first:
                    self._flow.append((s, self.first[target]))
        if node.k == self.segs[s][2] - 1:               # the segment's last instruction
            self.stops[s] = stop
            if not stop and s + 1 < len(self.segs) and self.segs[s + 1][0] == self.segs[s][0]:
                self._flow.append((s, s + 1))

    def _finish(self) -> None:
        self.executable = {label for label, s in self.first.items() if s in self.exec_segs}
        self.reached = {}
        for label in self.executable:
            s = self.first[label]
            n = len(self.an.blocks[label].instrs)
            while s < len(self.segs) and self.segs[s][0] == label and s in self.exec_segs:
                if self.stops.get(s):
                    n = self.segs[s][2]
                    break
                s += 1
            self.reached[label] = n
        self.incoming = {label: _Point(self, self.first[label], None)
                         for label in self.executable}
        self._before = None

    # ---------------------------------------------------------------- answers
    def block_states(self, label: str) -> list:
        """The state before each reached instruction of executable block ``label``."""
        out, n = [], self.reached[label]
        s = self.first[label]
        while s < len(self.segs) and self.segs[s][0] == label and self.segs[s][1] < n:
            out.extend(_Point(self, s, node) for node in self.nodes[s] if node.k < n)
            s += 1
        return out


    def value_at(self, s: int, node, r: str):
        """The value of ``r`` before ``node`` of segment ``s`` (None: at the segment's start)."""
        if node is not None:
            if r in node.reads:
                return self.values[node.reads[r]]
            for prev in reversed(self.nodes[s][:self.nodes[s].index(node)]):
                if r in prev.defs:
                    return self.values[prev.defs[r]]
        if r not in self.regs:
            raise KeyError(r)
        # the meet of what reaches ``s`` over executable edges: through segments that do not
        # write ``r``, from the definitions (or start) that do
        v, seen, stack = TOP, {s}, [s]
        while stack:
            x = stack.pop()
            for p in self.preds[x]:
                if (p, x) not in self.exec_edges:
                    continue
                if p == START:
                    v = meet(v, BOT if r in self.params else 0)
                    continue
                i = self.last_def[p].get(r)
                if i is not None:
                    v = meet(v, self.values[i])
                elif p not in seen:
                    seen.add(p)
                    stack.append(p)
        return v


class _Point(Mapping):
    """The state before one instruction (``node``; None: the segment's start), register ->
    lattice value, read from the SSA values (see the module docstring)."""
    __slots__ = ("sol", "seg", "node")

    def __init__(self, sol: SparseCC, seg: int, node):
        self.sol, self.seg, self.node = sol, seg, node

    def __getitem__(self, r):
        node = self.node
        if node is not None:                # what the instruction reads: its SSA name's value
            i = node.reads.get(r)
            if i is not None:
                return self.sol.values[i]
        return self.sol.value_at(self.seg, node, r)

    def __iter__(self):
        return iter(self.sol.an.regs)

    def __len__(self) -> int:
        return len(self.sol.an.regs)

    def copy(self) -> dict:
        return dict(self.items())
