"""Copy coalescing and copy propagation (``pathlogic optimize --passes coalesce``; issue #28
item 2): the ``mov`` copies a compiler's register allocator would not execute are removed, so
that a temporary of PRE costs in dynamic PIR instructions what it costs in a compiler.

One round, per function:

1. **Coalescing** (Chaitin's aggressive coalescing, as LLVM's RegisterCoalescer joins the
   intervals of a COPY's registers): the registers related by copies ``d = mov s`` are joined
   into one name when their live ranges do not interfere; the copies between joined registers
   become ``x = mov x`` and are deleted. Interference is Chaitin's: a register interferes with
   every register live right after one of its definitions, except, at a copy ``d = mov s``, with
   s (they hold the same value there). PIR registers are written many times (not SSA), so the
   function's entry counts as a definition of every parameter and of every register live there
   (a register never written reads 0). Two registers that never interfere hold the same value
   wherever both are live (the last write to either before such a point is a write to one of
   them while the other is live, i.e. an interference, unless it is the copy between them), so
   one name serves both. Liveness is ``datalog/liveness.dl``'s ``live_in_copied``, its ``live_in``
   of the registers movs write or read (issue #28: the liveness of every register was quadratic
   on functions with loop counters live everywhere; predicate-aware: a guard is read, a
   guarded write reads its destination's old value and kills nothing, a predicate define
   always writes), carried through each block here with the same rules.
   Guarded copies are treated like any definition: ``(p) d = mov s`` joins d and s only when
   no interference says otherwise, i.e. when the old d that survives a false guard is dead
   (then the copy is ``(p) x = mov x``, a no-op either way); otherwise it stays. Predicates
   (written only by ``pcmp``, docs/pir.md) are never joined, and a class holds at most one
   parameter (its name is kept).
2. **Copy propagation** (Aho, Sethi, Ullman, "Compilers", §10.7, available copies): a read of
   d where the copy ``d = mov s`` is *available* -- on every path from the entry it executed,
   unguarded, and neither d nor s was written since (a guarded write may write) -- reads s
   instead (through chains of available copies to the last source). Only the reads of copies
   whose every reached read can be rewritten are (so the copy dies; a partial rewrite would only
   lengthen s's live range, which blocks coalescing).
3. **Dead copies**: a ``mov`` whose value no read can see (no read of its destination is
   reached from it before the destination is certainly overwritten) is deleted.
4. **Jumps to a block's only successor** (``merge_blocks.py``): a block whose only predecessor
   ends in ``br`` to it and has no other successor is appended to it, as LLVM's GVN merges
   blocks into their predecessor and block placement makes the rest fall-throughs, so that a
   jump, like a copy, costs what it costs in a compiler.

The driver repeats the round on fresh liveness while it changes something (registry
``fixpoint``). Copies of literals and globals' addresses are constants, not copies: they stay
(constant folding is ``simplify``'s and ``sccp``'s).

Example: after ``simplify,pre-mr``, ``pre.t = add a, b / x = mov pre.t / print x`` becomes
``pre.t = add a, b / print pre.t`` (x and pre.t do not interfere).

References: G. J. Chaitin, "Register allocation & spilling via graph coloring", SIGPLAN '82
(interference at definitions, the copy exception, coalescing); P. Briggs, K. Cooper,
L. Torczon, "Improvements to graph coloring register allocation", TOPLAS 1994 (coalescing
copy-related live ranges); LLVM 14 lib/CodeGen/RegisterCoalescer.cpp (joining a COPY's
intervals when they do not overlap, or overlap only where they hold the same value: the
"value-based" check of joinIntervals); Aho, Sethi, Ullman §10.7 (copy propagation).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Optional

from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.model import (TRUE_PREDICATES, Function, Module, Mov, PredDefine, Reg,
                              branch_targets)
from pylogic.transforms.coalesce.merge_blocks import merge_blocks
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.record import FixpointRecord
from pylogic.union_find import UnionFind

NEEDS = ("live_in_copied",)


@dataclass(frozen=True)
class FunctionCoalesce:
    function: str
    coalesced: int      # copies deleted because their registers were joined
    propagated: int     # copies deleted after their reads were rewritten to their source
    dead: int           # copies deleted because no read sees their value
    joined: int         # registers renamed into another (class members other than the name)
    merged: int = 0     # blocks appended to their only predecessor (merge_blocks)


@dataclass
class CoalesceRecord(FixpointRecord):
    transform: str = "coalesce"

    def totals(self) -> dict:
        t = {"functions": len(self.applied), "rounds": self.rounds}
        for f in ("coalesced", "propagated", "dead", "joined", "merged"):
            t[f] = sum(getattr(a, f) for a in self.applied)
        return t

    def summary(self) -> str:
        t = self.totals()
        return (f"coalesce: {t['coalesced'] + t['propagated'] + t['dead']} copies removed "
                f"({t['coalesced']} coalesced, {t['propagated']} propagated, {t['dead']} dead), "
                f"{t['merged']} blocks merged into their only predecessor")


def coalesce(module: Module, rows, *, functions: Optional[Iterable[str]] = None
             ) -> tuple[Module, CoalesceRecord]:
    """One round: ``(new module, record)``; ``rows`` holds ``live_in_copied`` of ``module``
    (``live_in`` of the registers movs write or read: coalescing reads no other register's).
    ``record.changed``: the round removed a copy."""
    def rewrite(fn):
        live_in: dict = {}
        for label, reg in rows.function(fn.name)["live_in_copied"]:
            live_in.setdefault(label, set()).add(reg)
        return coalesce_function(fn, live_in)
    new, record = run_per_function(module, functions, CoalesceRecord(), rewrite)
    record.last_changed = any(a.coalesced or a.propagated or a.dead or a.merged
                              for a in record.applied)
    return new, record


def coalesce_function(fn: Function, live_in: dict) -> tuple[Function, FunctionCoalesce]:
    """``fn`` after one round (``live_in``: ``{label: registers live at its start}`` of
    ``fn``), and its entry."""
    names = join_copies(fn, live_in)
    blocks, coalesced = [], 0
    for b in fn.blocks:
        instrs = []
        for ins in b.instrs:
            ins = renamed(ins, names, names)
            if isinstance(ins, Mov) and ins.src == Reg(ins.dest):
                coalesced += 1
                continue
            instrs.append(ins)
        blocks.append(dataclasses.replace(b, instrs=tuple(instrs)))
    fn = dataclasses.replace(fn, blocks=tuple(blocks))
    fn, propagated = propagate_copies(fn)
    fn, dead = remove_dead_copies(fn)
    fn, merged = merge_blocks(fn)
    return fn, FunctionCoalesce(fn.name, coalesced, len(dead & propagated),
                                len(dead - propagated), len(names), merged)


# ---------------------------------------------------------------- reads and writes

def _predicates(fn: Function) -> set:
    """Registers some predicate define writes (docs/pir.md: only ``pcmp`` writes them)."""
    return {d.name for b in fn.blocks for ins in b.instrs if isinstance(ins, PredDefine)
            for d in ins.dests}


def _reads(ins) -> list:
    """Registers ``ins`` reads (liveness.dl ``_live_read``): operands, the guard, a predicate
    define's old value for the deposit types that keep it, a guarded write's old value."""
    out = [a.name for a in ins.uses() if isinstance(a, Reg)]
    if ins.guard is not None:
        out.append(ins.guard)
    if isinstance(ins, PredDefine):
        out += [d.name for d in ins.dests if d.dtype not in ("ut", "uf")]
    elif ins.guard is not None:
        out += list(ins.defs())
    return [r for r in out if r not in TRUE_PREDICATES]


def _kills(ins) -> tuple:
    """Registers ``ins`` certainly overwrites (liveness.dl ``_live_kill_at``)."""
    if ins.guard is None or isinstance(ins, PredDefine):
        return tuple(r for r in ins.defs() if r not in TRUE_PREDICATES)
    return ()


def _copy_source(ins) -> Optional[str]:
    """The source register of a register-to-register ``mov``, else None."""
    return ins.src.name if isinstance(ins, Mov) and isinstance(ins.src, Reg) else None


# ---------------------------------------------------------------- coalescing

def join_copies(fn: Function, live_in: dict) -> dict:
    """``{register: the name it takes}`` for the registers joined with another: the
    copy-related registers grouped greedily (copies in block order) into classes without
    interference (Chaitin), each named by its parameter if it has one, else by its first
    member."""
    preds = _predicates(fn) | set(TRUE_PREDICATES)
    copies = [(ins.dest, src) for b in fn.blocks for ins in b.instrs
              if (src := _copy_source(ins)) is not None and src != ins.dest
              and ins.dest not in preds and src not in preds]
    if not copies:
        return {}
    related = {r for pair in copies for r in pair}
    edges = _interference(fn, live_in, related)
    params = set(fn.params)
    classes = UnionFind(related)
    find = classes.find
    # class-level adjacency and members, kept for roots only
    adj = {r: set(edges.get(r, ())) for r in related}
    members = {r: [r] for r in related}
    has_param = {r: r in params for r in related}
    for d, s in copies:
        a, b = find(s), find(d)
        if a == b or b in adj[a] or (has_param[a] and has_param[b]):
            continue
        if has_param[b]:
            a, b = b, a         # the parameter's class gives the name
        classes.union(b, a)
        members[a] += members.pop(b)
        has_param[a] = has_param[a] or has_param.pop(b)
        for n in adj.pop(b):
            adj[n].discard(b)
            adj[n].add(a)
            adj[a].add(n)
    out = {}
    for root, ms in members.items():
        if len(ms) > 1:
            name = next((m for m in ms if m in params), root)
            out.update({m: name for m in ms if m != name})
    return out


def _interference(fn: Function, live_in: dict, related: set) -> dict:
    """``{register: registers it interferes with}`` among ``related``: at every definition
    (and at the entry, which defines the parameters and every register live there) the
    defined register interferes with those live right after, except a copy's source."""
    edges: dict = {}

    def add(x, y):
        edges.setdefault(x, set()).add(y)
        edges.setdefault(y, set()).add(x)
    entry_live = live_in.get(fn.entry.label, set()) & related
    for x in (set(fn.params) & related) | entry_live:
        for y in entry_live:
            if x != y:
                add(x, y)
    for b in fn.blocks:
        live = set()            # related registers live after the current instruction
        for ins in reversed(b.instrs):
            for t in branch_targets(ins):
                live |= live_in.get(t, set()) & related
            defs = [d for d in ins.defs() if d in related]
            src = _copy_source(ins)
            for d in defs:
                for r in live:
                    if r != d and r != src:
                        add(d, r)
            for d in _kills(ins):
                live.discard(d)
            live.update(r for r in _reads(ins) if r in related)
    return edges


def renamed(ins, uses: dict, dests: dict):
    """``ins`` with its register reads renamed by ``uses`` (operands and guard) and its written
    registers by ``dests`` (ordinary destinations; predicate destinations are never renamed)."""
    changes = {}
    for f in dataclasses.fields(ins):
        v = getattr(ins, f.name)
        if f.name == "dest" and isinstance(v, str) and v in dests:
            changes["dest"] = dests[v]
        elif f.name == "guard" and v in uses:
            changes["guard"] = uses[v]
        elif isinstance(v, Reg) and v.name in uses:
            changes[f.name] = Reg(uses[v.name])
        elif f.name == "args" and any(isinstance(a, Reg) and a.name in uses for a in v):
            changes["args"] = tuple(Reg(uses[a.name]) if isinstance(a, Reg) and a.name in uses
                                    else a for a in v)
    return dataclasses.replace(ins, **changes) if changes else ins


# ---------------------------------------------------------------- forward dataflow

class _Copies:
    """Indexes of one function's copies for the forward analyses: each register-to-register
    ``mov`` site, each distinct (destination, source) pair, as bits."""

    def __init__(self, fn: Function, preds: set):
        self.sites: list = []            # (label, index) of every mov
        self.site_bit: dict = {}
        self.dest_sites: dict = {}       # register -> bits of the mov sites writing it
        self.pairs: dict = {}            # (d, s) -> bit
        self.pair_src: dict = {}         # bit index -> s
        self.kill_pairs: dict = {}       # register -> bits of the pairs it is d or s of
        self.pair_of_dest: dict = {}     # register -> bits of the pairs with it as d
        for b in fn.blocks:
            for k, ins in enumerate(b.instrs):
                if not isinstance(ins, Mov) or ins.dest in preds:
                    continue
                bit = 1 << len(self.sites)
                self.sites.append((b.label, k))
                self.site_bit[(b.label, k)] = bit
                self.dest_sites[ins.dest] = self.dest_sites.get(ins.dest, 0) | bit
                src = _copy_source(ins)
                if src is not None and src != ins.dest and ins.guard is None \
                        and (ins.dest, src) not in self.pairs:
                    pbit = 1 << len(self.pairs)
                    self.pairs[(ins.dest, src)] = pbit
                    self.pair_src[pbit] = src
                    for r in (ins.dest, src):
                        self.kill_pairs[r] = self.kill_pairs.get(r, 0) | pbit
                    self.pair_of_dest[ins.dest] = self.pair_of_dest.get(ins.dest, 0) | pbit

    def available_source(self, avail: int, reg: str) -> Optional[str]:
        """The source of the copy into ``reg`` available in ``avail``, if any."""
        hit = avail & self.pair_of_dest.get(reg, 0)
        return self.pair_src[hit & -hit] if hit else None

    def step(self, state: tuple, site: tuple, ins) -> tuple:
        """The state after ``ins``: ``(available pairs, reaching mov sites)``."""
        avail, reach = state
        for d in ins.defs():
            avail &= ~self.kill_pairs.get(d, 0)
        for d in _kills(ins):
            reach &= ~self.dest_sites.get(d, 0)
        bit = self.site_bit.get(site)
        if bit:
            reach |= bit
            src = _copy_source(ins)
            if ins.guard is None and src is not None and src != ins.dest:
                avail |= self.pairs[(ins.dest, src)]
        return avail, reach


def _solve(fn: Function, copies: _Copies) -> dict:
    """``{label: state at its start}`` of the blocks reachable from the entry: available pairs
    (must: every path) and reaching mov sites (may), over every CFG edge (side exits pass on
    the state after the instructions before them)."""
    order = reverse_postorder(fn)
    blocks = fn.block_map()
    rank = {label: k for k, label in enumerate(order)}
    state_in = {fn.entry.label: (0, 0)}
    work = {fn.entry.label}
    while work:
        label = min(work, key=rank.__getitem__)
        work.discard(label)
        state = state_in[label]
        for k, ins in enumerate(blocks[label].instrs):
            state = copies.step(state, (label, k), ins)
            for t in branch_targets(ins):
                old = state_in.get(t)
                new = state if old is None else (old[0] & state[0], old[1] | state[1])
                if new != old:
                    state_in[t] = new
                    work.add(t)
    return state_in


def _walk(fn: Function, copies: _Copies, state_in: dict):
    """``(label, index, instruction, state before it)`` of every reachable instruction."""
    for b in fn.blocks:
        state = state_in.get(b.label)
        if state is None:
            continue
        for k, ins in enumerate(b.instrs):
            yield b.label, k, ins, state
            state = copies.step(state, (b.label, k), ins)


def propagate_copies(fn: Function) -> tuple[Function, set]:
    """``(fn with reads rewritten, the sites (label, index) of the copies whose reads were all
    rewritten)``: available copies
    (Aho-Sethi-Ullman §10.7) propagated for the copies every reached read of which can read
    the source instead."""
    preds = _predicates(fn) | set(TRUE_PREDICATES)
    copies = _Copies(fn, preds)
    if not copies.pairs:
        return fn, set()
    state_in = _solve(fn, copies)
    unguarded = 0
    blocks = fn.block_map()
    for label, k in copies.sites:
        ins = blocks[label].instrs[k]
        if ins.guard is None and _copy_source(ins) not in (None, ins.dest):
            unguarded |= copies.site_bit[(label, k)]
    blocked = 0
    for label, k, ins, (avail, reach) in _walk(fn, copies, state_in):
        operands = [a.name for a in ins.uses() if isinstance(a, Reg)]
        other = list(_reads(ins))       # the guard and old values: never rewritten
        for r in operands:
            other.remove(r)
            if copies.available_source(avail, r) is None:
                blocked |= reach & copies.dest_sites.get(r, 0)
        for r in other:
            blocked |= reach & copies.dest_sites.get(r, 0)
    wanted = unguarded & ~blocked
    if not wanted:
        return fn, set()
    new_instrs = {b.label: list(b.instrs) for b in fn.blocks}
    for label, k, ins, (avail, reach) in _walk(fn, copies, state_in):
        uses = {}
        for a in ins.uses():
            if isinstance(a, Reg) and reach & wanted & copies.dest_sites.get(a.name, 0):
                src, seen = a.name, {a.name}
                while (nxt := copies.available_source(avail, src)) is not None \
                        and nxt not in seen:
                    src = nxt
                    seen.add(src)
                uses[a.name] = src
        if uses:
            new_instrs[label][k] = renamed(ins, uses, {})
    fn = dataclasses.replace(fn, blocks=tuple(dataclasses.replace(b, instrs=tuple(
        new_instrs[b.label])) for b in fn.blocks))
    return fn, {site for site in copies.sites if wanted & copies.site_bit[site]}


def remove_dead_copies(fn: Function) -> tuple[Function, set]:
    """``(fn without the reachable movs no read can see, their sites)``: a mov is dead when no read
    of its destination (operands, guards, old values) is reached from it."""
    preds = _predicates(fn) | set(TRUE_PREDICATES)
    copies = _Copies(fn, preds)
    if not copies.sites:
        return fn, set()
    state_in = _solve(fn, copies)
    seen = 0
    for label, k, ins, (avail, reach) in _walk(fn, copies, state_in):
        for r in _reads(ins):
            seen |= reach & copies.dest_sites.get(r, 0)
    dead = {site for site in copies.sites
            if site[0] in state_in and not seen & copies.site_bit[site]}
    if not dead:
        return fn, set()
    fn = dataclasses.replace(fn, blocks=tuple(dataclasses.replace(b, instrs=tuple(
        ins for k, ins in enumerate(b.instrs) if (b.label, k) not in dead)) for b in fn.blocks))
    return fn, dead
