"""The global component of constant propagation on predicated code: Algorithm 1 of Knoop &
Rüthing (predicated_cp.md §3.8) over a partition of a function into hyperblocks, with the local
component (PSSA + PVG, basic or full) on each.

- Partition: the acyclic single-entry regions of ``transforms.regions`` (loop headers are heads,
  so cycles only run between hyperblocks). A region whose PSSA cannot be built (more than
  ``max_paths`` paths, a construct PSSA does not model) is split into single blocks, which is
  always a legal partition (§3.8); a single block that still cannot be put into PSSA is
  analysed predicate-blind (the Wegman–Zadeck transfer of ``sccp``), and counted.
- Start information ``c_s`` (G6 [INF]): what PIR defines at a function's entry, parameters ⊥
  and every other register 0 (docs/pir.md: a never-written register reads 0), instead of σ⊥.
- ``inf[hb]`` starts at ⊤_F (None here) for every hyperblock but the first; a hyperblock is
  analysed only once something reaches it, so an unreached one stays ⊤_F (T12).
- ``Info[hb@m]`` (G6 [INF]): for each exit, the meet over its paths that are not known false
  (full version; every path in the basic one) of each register's value on the path, the
  component of a super node on that path included. The successor's ``inf`` is met with it.
- A register that one hyperblock only mentions is not carried in ``inf``: it gets a loop φ at
  that hyperblock (``_OwnRegisters``), the same fixpoint without carrying a loop counter's
  every change through every hyperblock (benchmarks.optimize_scale).

The result answers the shared constant rewrite (``sccp.apply_constants``): the state before an
instruction is, for each register it reads, the meet over the feasible paths reaching it.

References: predicated_cp.md §3.1, §3.8, §3.10 (G3, G6, G7); T12, T13.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from pylogic.ir.deposit_types import reads_condition_when_nullified
from pylogic.ir.model import TRUE_PREDICATES, Function, Module, PredDefine, Reg
from pylogic.flow.lattice import BOT, TOP, meet, meet_all
from pylogic.flow.state_map import StateMap
from pylogic.transforms.pcp.pssa import (PSSA, CondRef, PSSAUnsupported, build_pssa, fpp_name,
                                         use_counts)
from pylogic.transforms.pcp.pvg import PVG, _passes, build_pvg, compatible, evaluate
from pylogic.transforms.regions import Region, RegionLimits, select_regions
from pylogic.transforms.pcp.sccp import CCAnalysis
from pylogic.transforms.pcp.cycles import Condensation
from pylogic.transforms.pcp.worklist import Worklist

__all__ = ["GlobalCP", "Hyperblock", "global_constants", "PathState"]


def _meet_states(old: Optional[StateMap], new: StateMap) -> StateMap:
    """``old ⊓ new`` register by register (``old`` itself when unchanged); ``old`` None is
    ⊤_F."""
    return new.copy() if old is None else old.meet(new)


@dataclass
class Hyperblock:
    """One member of the partition: ``region``; ``blind`` when analysed predicate-blind."""
    region: Region
    blind: bool = False
    reason: str = ""

    @property
    def head(self) -> str:
        return self.region.head


class PathState:
    """The lattice state before source instruction ``k`` of ``block``, met over the feasible
    paths reaching it (a read-only mapping over the registers that instruction reads).
    ``executing``: operands are read only where the instruction executes (its guard is 1 on the
    path), which is every instruction's case but a predicate define with a ``disjt``/``disjf``
    destination (those deposit types read the condition under a false guard too, docs/pir.md)."""

    def __init__(self, local: "_Local", key: tuple, executing: bool = True):
        self.local = local
        self.key = key
        self.executing = executing

    def _paths(self):
        return [(p, reads, g) for p, reads, g in self.local.pssa.points[self.key]
                if self.local.feasible(p)]

    def __getitem__(self, register: str):
        paths = self._paths()
        if self.executing and any(g == 1 for _, _, g in paths):
            paths = [e for e in paths if e[2] == 1]
        return meet_all(self.local.value_on(reads[register], p) for p, reads, _ in paths)

    def guard(self):
        return meet_all(g for _, _, g in self._paths())

    def computed(self):
        handles = self.local.pssa.defs.get(self.key, ())
        return meet_all(self.local.value_on(h, p) for p, h in handles if self.local.feasible(p))


@dataclass
class _Local:
    """The local analysis of one hyperblock under entry information ``entry``."""
    pssa: PSSA
    graph: PVG
    entry: dict
    _feasible: dict = field(default_factory=dict)

    def feasible(self, path: tuple) -> bool:
        """Not known false (G1): always in the basic version."""
        if not self.graph.full:
            return True
        ok = self._feasible.get(path)
        if ok is None:
            ok = self._feasible[path] = self.graph.predicate_value(fpp_name(path)) != 0
        return ok

    def value_on(self, handle, path: tuple):
        """The value of ``handle`` (SSA name, constant, folded condition) on ``path``."""
        if isinstance(handle, int):
            return handle
        if isinstance(handle, CondRef):
            node = self.graph.of_instr[handle.index]
            return (node.operands[0] if handle.inner else node).value
        node = self.graph.gen.get(handle)
        if node is None:                                # a live-in never read in the region
            return self.entry.get(self.pssa.versions.get(handle, handle.rsplit(".", 1)[0]), BOT)
        if node.kind != "super":
            return node.value
        return meet_all(c.value for c in node.components
                        if compatible(c.path, path) and (not self.graph.full or _passes(c)))

    def reached(self) -> dict:
        """Executable block -> how many of its leading instructions a feasible path reaches."""
        out: dict = {}
        for (label, k), entries in self.pssa.points.items():
            if any(self.feasible(p) for p, _, _ in entries):
                out[label] = max(out.get(label, 0), k + 1)
        return out

    def exit_info(self) -> dict:
        """target -> state: Info[hb@m] met over the exits to each target. A register the path
        neither writes nor splits on leaves with its live-in value: only the path's own
        registers are looked at (the entry state is shared, ``flow.state_map``)."""
        out: dict = {}
        registers = self.entry.registers
        for path, target, env in self.pssa.exits:
            if target == "ret" or not self.feasible(path):
                continue
            info = self.entry.copy()
            for key in env:
                r = key[1] if isinstance(key, tuple) else key
                if r not in registers:
                    continue
                h = env.get(r)
                if isinstance(h, int):
                    info[r] = h
                elif h is None:                 # not written: the live-in (0 if split false)
                    info[r] = 0 if env.get(("truth", r)) == 0 else self.entry[r]
                else:
                    info[r] = self.value_on(h, path)
            out[target] = _meet_states(out.get(target), info)
        return out


@dataclass
class _Blind:
    """A single block analysed predicate-blind (the ``sccp`` transfer)."""
    label: str
    states: list
    exits: list
    n_reached: int

    def reached(self) -> dict:
        return {self.label: self.n_reached}

    def exit_info(self) -> dict:
        out: dict = {}
        for target, state in self.exits:
            out[target] = _meet_states(out.get(target), state)
        return out


class _OwnRegisters:
    """The registers that one hyperblock only mentions (a loop counter, a block's temporaries),
    kept out of the states Algorithm 1 carries between hyperblocks.

    Such a register's value matters only at its hyperblock ``H`` (no other local analysis reads
    it, ``_mentioned_in``), and every other hyperblock passes it through unchanged, so at ``H``'s
    entry it is ``c_s`` met with what ``H``'s exits to a target ``T`` carried, over the exits
    whose ``T`` leads back to ``H`` over executable edges (the same "loop φ" as ``pcp/sparse.py``
    gives a loop counter; the cycles from ``pcp/cycles.py``, between rounds of the worklist,
    until no exit newly loops back). Every carried state holds ``c_s`` for it instead; ``H`` is
    analysed from ``inf[H]`` with its φs written in. A loop counter that the back edge lowers is
    then not carried through every hyperblock the loop spans, which in a function of
    overlapping loops is Θ(hyperblocks) state changes per loop (benchmarks.optimize_scale:
    398,089 state meets of 9.1 M trie nodes at 33,885 instructions). The fixpoint is the
    dense one: what an exit carried is met in for good once it loops back, as the dense
    ``inf`` keeps every state ever met into it."""

    def __init__(self, gcp: "GlobalCP", start: dict, enabled: bool = True):
        mentioned = {hb.head: gcp._mentioned_in(hb) for hb in gcp.partition} if enabled else {}
        count = Counter(r for regs in mentioned.values() for r in regs)
        index = gcp.registers.index
        self.of: dict = {}                  # head -> its own registers
        for head, regs in mentioned.items():
            own = [r for r in regs if count[r] == 1 and r in index]
            if own:
                self.of[head] = sorted(own, key=index.__getitem__)
        self.start = start
        self.phi: dict = {}                 # head -> {register: its φ where it is not c_s}
        self.out: dict = {}                 # (head, target) -> {register: meet carried}
        self.looping: dict = {}             # head -> targets leading back to it
        self.pending: set = set()           # (head, target) of heads with own registers
        self.edges: set = set()
        self.graph = Condensation()

    def entry(self, head: str, state: StateMap) -> StateMap:
        """The entry information ``head`` is analysed from: ``state`` with its φs."""
        phi = self.phi.get(head)
        if not phi:
            return state
        state = state.copy()
        for r, v in phi.items():
            state[r] = v
        return state

    def leave(self, head: str, target: str, info: StateMap) -> bool:
        """Take ``head``'s own registers out of ``info`` (to ``target``), keeping what they
        carried; True when that lowered what an exit that loops back carried."""
        edge = (head, target)
        if edge not in self.edges:
            self.edges.add(edge)
            self.graph.add(head, target)
            if head in self.of:
                self.out[edge] = {}
                if self.graph.same(head, target):
                    self.looping.setdefault(head, []).append(target)
                else:
                    self.pending.add(edge)
        own = self.of.get(head)
        if not own:
            return False
        carried, start = self.out[edge], self.start
        lowered = False
        for r in own:
            v = info[r]
            old = carried.get(r, TOP)
            new = meet(old, v)
            if new is not old and new != old:
                carried[r] = new
                lowered = True
            if v is not start[r] and v != start[r]:
                info[r] = start[r]
        return lowered and edge not in self.pending

    def update(self, head: str) -> bool:
        """Recompute ``head``'s φs; True when one changed."""
        start, phi = self.start, {}
        for r in self.of[head]:
            v = start[r]
            for target in self.looping.get(head, ()):
                v = meet(v, self.out[(head, target)].get(r, TOP))
            if v is not start[r] and v != start[r]:
                phi[r] = v
        if phi == self.phi.get(head, {}):
            return False
        self.phi[head] = phi
        return True

    def round(self) -> list:
        """The heads whose φs changed as exits newly loop back (the executable edges added
        since the last round condensed into the components)."""
        self.graph.update()
        heads = {}
        for edge in [e for e in self.pending if self.graph.same(*e)]:
            self.pending.discard(edge)
            self.looping.setdefault(edge[0], []).append(edge[1])
            heads[edge[0]] = None
        return [h for h in sorted(heads) if self.update(h)]


class GlobalCP(CCAnalysis):
    """Algorithm 1's result, answering the shared rewrite's questions (``sccp.apply_constants``):
    ``executable``, ``reached``, ``block_states``; ``computed`` and ``guard_value`` read the
    path-sensitive value of an instruction when its state is a :class:`PathState`."""

    def __init__(self, fn: Function, module: Module, order: dict, full: bool):
        super().__init__(fn, module, order)
        self.full = full
        self.partition: list = []
        self.locals: dict = {}          # head -> _Local | _Blind (final analysis)
        self.inf: dict = {}             # head -> entry information (None: ⊤_F); a register
        #                                 only another hyperblock mentions holds c_s (own.out)
        self.own: Optional[_OwnRegisters] = None
        self.analyses = 0
        self.rounds = 0                 # of the worklist, between loop φ updates (_OwnRegisters)
        self.executable: set = set()
        self.reached: dict = {}
        self._owner: dict = {}
        self._uses = use_counts(fn)     # build_pssa's, once per function
        self._mentioned: dict = {}      # head -> registers its region reads or writes

    # ---- answers for the rewrite
    def computed(self, state, ins):
        if isinstance(state, PathState):
            return state.computed()
        return super().computed(state, ins)

    def guard_value(self, state, ins):
        if isinstance(state, PathState):
            if ins.guard is None or ins.guard in TRUE_PREDICATES:
                return 1
            return state.guard()
        return super().guard_value(state, ins)

    def block_states(self, label: str) -> list:
        local = self._owner[label]
        if isinstance(local, _Blind):
            return local.states
        instrs = self.blocks[label].instrs
        return [PathState(local, (label, k), not (isinstance(instrs[k], PredDefine)
                                                 and reads_condition_when_nullified(instrs[k])))
                for k in range(self.reached[label])]

    def path_counts(self) -> tuple[int, int]:
        """(paths, paths known false) over the final local analyses (blind blocks have none)."""
        exits = [(local, p) for local in self.locals.values() if isinstance(local, _Local)
                 for p, _, _ in local.pssa.exits]
        return len(exits), sum(1 for local, p in exits if not local.feasible(p))

    # ---- Algorithm 1
    def _local(self, hb: Hyperblock, entry: dict, max_paths: Optional[int]):
        if hb.blind:
            return self._blind(hb.head, entry)
        pssa = build_pssa(self.fn, hb.region, entry=entry, max_paths=max_paths,
                          uses=self._uses, block_map=self.blocks)
        return _Local(pssa, evaluate(build_pvg(pssa, full=self.full, entry=entry)), entry)

    def _reused(self, hb: Hyperblock, entry) -> Optional[_Local]:
        """The last local analysis of ``hb`` under the new entry information ``entry`` when
        only registers the region never mentions changed: its PSSA and PVG read the entry only
        for registers the region mentions, so they are the same, and what passes through
        (``exit_info``, ``value_on`` of a live-in never read) comes from ``entry``. A loop
        counter's change then costs a re-analysis only where it is used, not in every
        hyperblock it flows through (benchmarks.optimize_scale, pcp-full). Compared register
        by register over the region's few registers (a diff of the whole states costs more
        where many registers change at once: pcp-basic 9.2 -> 11.7 s at 33,885 instructions)."""
        prev = self.locals.get(hb.head)
        if not isinstance(prev, _Local):
            return None
        old = prev.entry
        for r in self._mentioned_in(hb):
            a, b = old.get(r), entry.get(r)
            if a is not b and a != b:
                return None
        prev.entry = entry
        return prev

    def _mentioned_in(self, hb: Hyperblock) -> set:
        """The registers ``hb``'s region reads (operands, guards) or writes: all of the entry
        information its local analysis looks at."""
        mentioned = self._mentioned.get(hb.head)
        if mentioned is None:
            mentioned = set()
            for label in hb.region.blocks:
                for ins in self.blocks[label].instrs:
                    mentioned.update(op.name for op in ins.uses() if isinstance(op, Reg))
                    mentioned.update(ins.defs())
                    if ins.guard is not None:
                        mentioned.add(ins.guard)
            self._mentioned[hb.head] = mentioned
        return mentioned

    def _blind(self, label: str, entry: dict) -> _Blind:
        state = entry.copy()
        block = self.blocks[label]
        states, out_edges = [], []
        n = len(block.instrs)
        for k, ins in enumerate(block.instrs):
            states.append(state.copy())
            if self.step(state, ins, CCAnalysis.guard_value(self, state, ins), out_edges):
                n = k + 1
                break
        return _Blind(label, states[:n], out_edges, n)

    def _partition(self, max_blocks: int, max_paths: int) -> list:
        regions, _ = select_regions(self.fn, RegionLimits(max_blocks=max_blocks, max_instrs=10**9,
                                                          allow_calls=True, allow_memory=True))
        out = []
        for region in regions:
            try:                        # probe with nothing known: the most paths
                build_pssa(self.fn, region, entry={}, max_paths=max_paths, uses=self._uses,
                           block_map=self.blocks)
                out.append(Hyperblock(region))
                continue
            except PSSAUnsupported as exc:
                if len(region.blocks) == 1:
                    out.append(Hyperblock(region, blind=True, reason=str(exc)))
                    continue
            for label in region.blocks:
                single = Region(label, (label,))
                try:
                    build_pssa(self.fn, single, entry={}, max_paths=max_paths,
                               uses=self._uses, block_map=self.blocks)
                    out.append(Hyperblock(single))
                except PSSAUnsupported as exc:
                    out.append(Hyperblock(single, blind=True, reason=str(exc)))
        return out

    def solve(self, max_blocks: int = 16, max_paths: int = 64,
              start: Optional[dict] = None, own_registers: bool = True) -> "GlobalCP":
        """Algorithm 1 (``global_constants``); ``own_registers`` False carries every register
        in the states (the dense form, the reference the tests compare with)."""
        self.partition = self._partition(max_blocks, max_paths)
        by_head = {hb.head: hb for hb in self.partition}
        entry_label = self.fn.blocks[0].label
        if start is None:
            start = {r: 0 for r in self.regs}               # c_s: docs/pir.md entry state
            for p in self.fn.params:
                start[p] = BOT
        else:
            start = {r: start.get(r, BOT) for r in self.regs}
        self.inf = {head: None for head in by_head}         # ⊤_F
        self.inf[entry_label] = self.registers.build(start)
        self.own = own = _OwnRegisters(self, start, own_registers)
        work = Worklist(self.order)
        work.push(entry_label)
        while True:
            while (head := work.pop()) is not None:
                entry = own.entry(head, self.inf[head])
                local = self._reused(by_head[head], entry)
                if local is None:
                    local = self._local(by_head[head], entry, max_paths)
                self.analyses += 1
                self.locals[head] = local
                again = False
                for target, info in local.exit_info().items():
                    if target not in by_head:
                        continue                            # unreachable in the CFG: never
                    again |= own.leave(head, target, info)
                    old = self.inf[target]
                    new = _meet_states(old, info)
                    if new is not old:                      # ⊤_F (None) is not any state
                        self.inf[target] = new
                        work.push(target, fresh=old is None)  # first reached: this sweep
                if again and own.update(head):
                    work.push(head)
            self.rounds += 1
            lowered = own.round()
            if not lowered:
                break
            for head in lowered:
                work.push(head)
        for head, state in self.inf.items():               # with the φs written in
            if state is not None:
                self.inf[head] = own.entry(head, state)
        for local in self.locals.values():
            for label, n in local.reached().items():
                self.executable.add(label)
                self._owner[label] = local
                self.reached[label] = n
        return self


def global_constants(fn: Function, module: Module, order: dict, *, full: bool,
                     max_blocks: int = 16, max_paths: int = 64,
                     start: Optional[dict] = None, own_registers: bool = True) -> GlobalCP:
    """Algorithm 1 on ``fn``: the partition, ``inf`` per hyperblock head and the local
    analyses at the fixpoint. ``order``: block -> reverse-postorder number (worklist order);
    ``start``: ``c_s`` (a register missing from it is ⊥; ``{}`` is σ⊥), by default docs/pir.md's
    entry state; ``own_registers``: see ``_OwnRegisters`` (False: the dense form)."""
    return GlobalCP(fn, module, order, full).solve(max_blocks, max_paths, start, own_registers)
