"""PPDE across blocks (predicated_pde.md §2.1, §3.4; Figures 7, 8, 13): cycle-free SEME regions
of basic blocks and hyperblocks, interface blocks on region exits, split critical edges, and the
motion of a candidate out of its block into its successors, merging the copies at joins.

Regions (§2.1): blocks in reverse postorder; a block joins the region of its predecessors when
all of them are in one region and none of its incoming edges is retreating; otherwise it heads a
region (the entry, loop headers, joins of several regions). So every region is single-entry and
cycle-free, back edges excluded. The region tree: a region's parent is the region of its head's
immediate dominator (``idom`` of dominance.dl).

Block-level predicates (§2.2): with critical edges split, the control predicate of a block with
several outgoing edges is partitioned by its successors' (C-PRED(B) = ∪ C-PRED(S)), and a join's
by its predecessors'. On this partition graph the four cases of Sink (Figure 8) at a block
boundary read:

- Case 1 at a branch: a candidate whose executing predicate is its block's (unguarded, E-PRED =
  C-PRED(B), Eq. 1), with nothing after it in the block that it depends on, moves before the
  branch and on into the successors (lines 33-35, 15-19);
- Case 2: at a block with several successors, its copies go to the successors where its register
  is live (θ before δ, line 42; CompensationInsert at the entry of the successor with C-PRED r,
  lines 83-86), none where it is dead (partially dead, Case 2(a)). A side exit whose guard is the
  candidate's own predicate takes all its executions (Case 1 at a branch);
- Case 3: copies arriving at a join are recorded per incoming edge (AddInst); when one arrived
  on every incoming edge (their predicates partition C-PRED(J)) they merge into one copy at the
  join's entry, which moves on (lines 63-75); otherwise each stays at the end of its block;
- Case 4 / DEP: a copy that meets an instruction it depends on stays at the top of that block.

A copy that leaves the region goes into the interface block of that exit edge (line 2), a block
of its own holding the copy and ``br`` to the exit target; a critical edge gets a split block the
same way. Inside a hyperblock the in-block Sink (``ppde.py``) then splits and merges copies under
materialised predicates in the next round.

Finalisation (lines 20-21): a block the motion leaves holding only its ``br`` is deleted (edges to
it go to its target), an interface or split block that stayed empty is never created; the
interface block of the region's main exit is laid out after its source block, the others are
moved to the parent region (after its last block). ``interface="paid"`` (the default) keeps an
interface or split block only when the motion also empties its source block, which is then
deleted: the new block's ``br`` replaces the deleted one's, so no path executes more instructions
(Definition 1); ``interface="keep"`` is the paper's setting, where each interface block that
receives code adds its ``br`` to the paths through it.

Every motion is one original candidate with all its copies, planned first and applied whole,
candidates last first (reverse topological order of blocks, then of instructions), so a chain of
dependent candidates moves in one round. Liveness at block entries comes from
``flow/liveness.py``; after each motion, what its copies read is made live in every block it
touched (an over-approximation: more copies, fewer deletions, never a wrong one); the next round
has fresh rows. Blocks the in-block phase changed keep their code (their candidate ids are stale)
but may receive copies.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Optional

from pylogic.ir.cfg import block_predecessors, retreating_edges, reverse_postorder
from pylogic.ir.model import (TRUE_PREDICATES, Br, Call, Function, PredDefine, Reg, Ret,
                              branch_targets, retargeted)

KEEP, PAID = "keep", "paid"
#: the annotation of an interface (or split) block: it is the exit, code in it stays there
INTERFACE = ("ppde", "interface")


@dataclass(frozen=True)
class SemeRegion:
    """A cycle-free SEME region: ``blocks`` in topological order, ``blocks[0]`` the head."""
    head: str
    blocks: tuple
    parent: Optional[str]        # head of the parent region (region tree), None for the root


def seme_regions(fn: Function, idom: dict) -> list[SemeRegion]:
    """The leaf regions of ``fn`` (reachable blocks only), heads in reverse postorder.
    ``idom``: block -> its immediate dominator."""
    rpo = reverse_postorder(fn)
    retreating = retreating_edges(fn)
    preds = block_predecessors(fn)
    region_of: dict = {}
    members = defaultdict(list)
    entry = fn.blocks[0].label
    for b in rpo:
        ps = preds[b]
        owners = {region_of.get(p) for p in ps}
        if b == entry or not ps or any((p, b) in retreating for p in ps) \
                or None in owners or len(owners) != 1:
            region_of[b] = b
        else:
            region_of[b] = owners.pop()
        members[region_of[b]].append(b)
    return [SemeRegion(h, tuple(bs), region_of.get(idom[h]) if h in idom else None)
            for h, bs in members.items()]


def _guard(ins) -> str:
    return "p0" if ins.guard is None or ins.guard in TRUE_PREDICATES else ins.guard


def _reads(ins) -> set:
    out = {op.name for op in ins.uses() if isinstance(op, Reg)}
    if ins.guard is not None and ins.guard not in TRUE_PREDICATES:
        out.add(ins.guard)
    if isinstance(ins, PredDefine):
        out |= {d.name for d in ins.dests if d.dtype not in ("ut", "uf")}
    return out


def _targets(ins) -> tuple:
    return tuple(dict.fromkeys(branch_targets(ins)))


@dataclass
class CrossBlockStats:
    sunk: int = 0            # original candidates moved out of their block
    copies: int = 0          # copies placed in other blocks
    merged: int = 0          # joins where copies merged (Case 3, AddInst)
    interface: int = 0       # interface or split blocks kept (holding code)
    emptied: int = 0         # blocks left empty by the motion and deleted (line 20)
    waited: int = 0          # motions left for the next round (into an emptied block)
    unpaid: int = 0          # motions not made: an interface block would lengthen a path
    deleted: int = 0         # copies dead on every edge they leave by (past their block)
    export_failed: int = 0   # blocks whose exports could move in the dry run but not after


@dataclass
class _Plan:
    """One candidate's motion: where its copies go."""
    tops: dict = field(default_factory=dict)        # block -> copy at its top
    parked: dict = field(default_factory=dict)      # block -> copy before its final branch
    edges: list = field(default_factory=list)       # (source, instr index, target): new blocks
    touched: set = field(default_factory=set)
    merged: int = 0


class CrossBlock:
    """The block-boundary motion of one round on one function (see the module docstring)."""

    def __init__(self, fn: Function, body: dict, claimed: set, candidates: set, live: set,
                 idom: dict, interface: str = PAID, main_exit: Optional[str] = None,
                 fallthrough=None):
        self.fn = fn
        self.body = {label: list(instrs) for label, instrs in body.items()}
        self.claimed = set(claimed)             # blocks the in-block phase changed
        self.topo = self.topo_of(fn)            # once: a reverse postorder per candidate was
        #: quadratic (3,467 instructions: 160 of ppde's 196 profiled seconds, issue #28)
        #: candidates of the unchanged blocks, as (label, instruction): indices shift as code moves
        self.candidates = [(label, self.body[label][k]) for label, k in sorted(
            candidates, key=lambda lk: (-self.topo.get(lk[0], 0), -lk[1]))
            if label not in self.claimed and label in self.body]
        self.live = live.copy()
        self.interface = interface
        self.fallthrough = fallthrough or (lambda label, g, sides: False)
        self.main_exit = main_exit
        self.regions = seme_regions(fn, idom)
        self.region_of = {b: r for r in self.regions for b in r.blocks}
        self.preds = defaultdict(list)          # target -> incoming edges (source, index)
        for label, instrs in self.body.items():
            for k, ins in enumerate(instrs):
                for t in _targets(ins):
                    self.preds[t].append((label, k))
        self.new_blocks: dict = {}              # (source, branch, target) -> [copies]
        self.exits = {b.label for b in fn.blocks if INTERFACE in b.annotations}
        self.emptied: set = set()
        self.stats = CrossBlockStats()
        #: (label, candidate, destinations): a block label, or an edge (source, branch, target)
        #: for a new block
        self.moves: list = []

    @staticmethod
    def topo_of(fn: Function) -> dict:
        return {b: k for k, b in enumerate(reverse_postorder(fn))}

    # ------------------------------------------------------------------ one block boundary
    def _leave(self, label: str, start: int, ins) -> Optional[list]:
        """The edges (index, target) along which ``ins``, placed before index ``start`` of
        ``label``, leaves the block with its register live at the target; None when it cannot
        leave (a dependence, a guard that is not the block's, a ret)."""
        if label in self.exits:
            return None                                        # an interface block: the exit
        instrs = self.body[label]
        (v,) = ins.defs()
        reads, g = _reads(ins), _guard(ins)
        for k in range(start, len(instrs)):
            d = instrs[k]
            last = k == len(instrs) - 1
            if isinstance(d, Ret) or isinstance(d, Call) and d.continuations:
                return None                                    # a ret or a split call
            if v in d.defs() or v in _reads(d) or reads & set(d.defs()):
                return None                                    # DEP (§2.4)
            if not _targets(d):
                continue
            live = [t for t in _targets(d) if (t, v) in self.live]
            if not last:                                       # a side exit
                if not live:
                    continue                                   # dead there: Case 2(a)
                if g != "p0" and _guard(d) == g:
                    return [(k, t) for t in live]              # Case 1 at a branch
                return None
            if _guard(d) != "p0":
                return None
            if g != "p0":
                sides = {_guard(i) for i in instrs[:-1] if _targets(i)}
                if "p0" in sides or not self.fallthrough(label, g, sides):
                    return None
            return [(k, t) for t in live]
        return None

    def _single_entry(self, target: str, region: SemeRegion) -> bool:
        """``target`` is in ``region``, not its head, and has one incoming edge."""
        return self.region_of.get(target) is region and target != region.head and \
            len(self.preds[target]) == 1

    def _plan(self, label: str, k: int) -> Optional[_Plan]:
        """Where the candidate at index k of ``label`` and its copies go, or None."""
        alpha = self.body[label][k]
        out = self._leave(label, k + 1, alpha)
        if out is None:
            return None
        if not out:
            plan = _Plan(touched={label})
            plan.touched |= {t for i in self.body[label][k + 1:] for t in _targets(i)}
            return plan                                  # dead on every exit: deleted
        return self._propagate(label, out, dataclasses.replace(alpha, guard=None))

    def _propagate(self, label: str, out: list, copy) -> Optional[_Plan]:
        """The copies of ``copy`` leaving ``label`` by the edges ``out`` (index, target), moved
        on through the region in topological order (Cases 1-3 at block boundaries)."""
        region = self.region_of[label]
        plan = _Plan(touched={label})
        arrivals = defaultdict(list)            # join -> [(source, index)]

        def send(src, edges):
            for idx, t in edges:
                plan.touched.add(t)
                if self._single_entry(t, region):
                    plan.tops[t] = copy                          # Case 2 / Case 1 into t
                elif self.region_of.get(t) is region and t != region.head and \
                        all(self.region_of.get(s) is region for s, _ in self.preds[t]):
                    arrivals[t].append((src, idx))               # Case 3: AddInst
                else:
                    plan.edges.append((src, self.body[src][idx], t))   # interface block

        send(label, out)
        for b in sorted(region.blocks, key=lambda b: self.topo.get(b, 0)):
            if b in arrivals:
                edges = arrivals.pop(b)
                if sorted(edges) == sorted(self.preds[b]):
                    plan.tops[b] = copy                          # merged (lines 67-74)
                    plan.merged += 1
                else:
                    for src, idx in edges:
                        term = self.body[src][idx]
                        if idx == len(self.body[src]) - 1 and len(_targets(term)) == 1 \
                                and (src != label or _guard(term) == "p0"):
                            plan.parked[src] = copy              # stays at its block's end
                            plan.touched.add(src)
                        else:
                            plan.edges.append((src, term, b))    # split critical edge
                    continue
            if b in plan.tops and b != label:
                nxt = self._leave(b, 0, copy)
                if nxt is not None:
                    del plan.tops[b]
                    send(b, nxt)
        if not plan.tops and not plan.edges and plan.parked and set(plan.parked) <= {label}:
            return None                                          # nothing would move
        return plan

    # ------------------------------------------------------------------ applying a plan
    def _emptied_by(self, plan: _Plan, label: str, gone) -> set:
        """Blocks the plan leaves holding only an unguarded ``br`` (to be deleted)."""
        out = set()
        for b in plan.touched:
            if b not in self.body or b == self.fn.blocks[0].label:
                continue
            instrs = [i for i in self.body[b] if not (b == label and i is gone)]
            if b in plan.tops or b in plan.parked:
                continue
            if len(instrs) == 1 and isinstance(instrs[0], Br) and instrs[0].guard is None \
                    and len(self.body[b]) > 1 and instrs[0].target != b:
                out.add(b)
        return out

    def run(self, exports=(), fallback=None) -> dict:
        """Every motion of the round; the new block bodies (new blocks included, in layout).
        ``exports``: (label, copy, branch) the in-block phase left just before ``branch``, all
        of whose executions leave by it (Case 1 at a branch); the in-block phase counted them
        on their branch's path only, so they move all or none: if one cannot, the block gets
        ``fallback(label)``, its in-block result without exports."""
        by_block = defaultdict(list)
        for label, copy, branch in exports:
            by_block[label].append((copy, branch))
        # first which blocks can export everything (a dry run each, on the state before any
        # motion), then their in-block results without exports for the others, then the
        # exports: a fallback never overwrites copies another motion put into its block
        movable = {label for label, items in by_block.items() if self._export_all(label, items,
                                                                                  dry=True)}
        for label in by_block:
            if label not in movable and fallback is not None:
                self.body[label] = list(fallback(label))     # in-block result without exports
                self.stats.unpaid += 1
        for label in movable:
            self._export_all(label, by_block[label])
        for label, alpha in self.candidates:            # last first (reverse topological)
            if label not in self.region_of:
                continue
            k = next((j for j, i in enumerate(self.body[label]) if i is alpha), None)
            if k is None:
                continue
            plan = self._plan(label, k)
            if plan is not None:
                self._commit(label, alpha, plan)
        return self._finish()

    def _export_all(self, label: str, items: list, dry: bool = False) -> bool:
        """Move every exported copy of ``label``; on the first that cannot move, undo them
        (``dry``: undo them in any case)."""
        saved = ({b: list(i) for b, i in self.body.items()}, set(self.claimed),
                 {e: list(c) for e, c in self.new_blocks.items()}, set(self.emptied),
                 dataclasses.replace(self.stats), list(self.moves), self.live.copy())
        for copy, branch in items:
            (v,) = copy.defs()
            j = next(j for j, i in enumerate(self.body[label]) if i is branch)
            out = [(j, t) for t in _targets(branch) if (t, v) in self.live]
            plan = self._propagate(label, out, dataclasses.replace(copy, guard=None)) \
                if label in self.region_of else None
            if plan is not None:
                plan.touched.discard(label)             # the in-block phase changed it already
            if plan is None or not self._commit(label, copy, plan):
                (self.body, self.claimed, self.new_blocks, self.emptied, self.stats,
                 self.moves, self.live) = saved
                if not dry:
                    self.stats.export_failed += 1    # the copies stay before their branches
                return False
        if dry:
            (self.body, self.claimed, self.new_blocks, self.emptied, self.stats,
             self.moves, self.live) = saved
        return True

    def _commit(self, label: str, alpha, plan: _Plan) -> bool:
        """Apply ``plan`` for ``alpha`` of ``label`` unless it puts code into a block another
        motion emptied or (paid)
        would keep an interface block that lengthens a path."""
        if (set(plan.tops) | set(plan.parked)) & self.emptied:
            self.stats.waited += 1              # a block another motion emptied stays empty
            return False
        emptied = self._emptied_by(plan, label, alpha)
        if self.interface == PAID:
            sources = {s for s, _, _ in plan.edges}
            if not sources <= emptied or any(e in self.new_blocks for e in plan.edges):
                self.stats.unpaid += 1
                return False
        self._apply(label, alpha, plan, emptied)
        return True

    def _apply(self, label: str, alpha, plan: _Plan, emptied: set) -> None:
        instrs = self.body[label]
        instrs.pop(next(j for j, i in enumerate(instrs) if i is alpha))
        copy = dataclasses.replace(alpha, guard=None)
        for b, c in plan.parked.items():
            self.body[b].insert(len(self.body[b]) - 1, c)
        for b, c in plan.tops.items():
            self.body[b].insert(0, c)
        for edge in plan.edges:
            self.new_blocks.setdefault(edge, []).insert(0, copy)   # earlier code goes first
        # what the copies read is live where they went (an over-approximation: more copies,
        # fewer deletions, never a wrong one), for the motions after this one in the round
        self.live |= {(b, r) for b in plan.touched for r in _reads(alpha)}
        self.emptied |= emptied
        if not (plan.tops or plan.parked or plan.edges):
            self.stats.deleted += 1
            return
        self.stats.sunk += 1
        self.moves.append((label, alpha, [*plan.tops, *plan.parked, *(e for e in plan.edges)]))
        self.stats.copies += len(plan.tops) + len(plan.parked) + len(plan.edges)
        self.stats.merged += plan.merged

    def _finish(self) -> dict:
        """New blocks on their edges, emptied blocks deleted, the layout (line 21)."""
        labels = set(self.body)
        names = {}
        for (src, branch, t), copies in self.new_blocks.items():
            n, name = 0, f"{src}.ppde"
            while name in labels:
                n += 1
                name = f"{src}.ppde{n}"
            labels.add(name)
            names[(src, branch, t)] = name
            self.body[name] = copies + [Br(target=t)]
            self.stats.interface += 1
        current = {}                                     # (src, original branch) -> index
        for (src, branch, t), name in names.items():
            j = current.get((src, id(branch)))
            if j is None:
                j = next(j for j, ins in enumerate(self.body[src]) if ins is branch)
                current[(src, id(branch))] = j
            self.body[src][j] = retargeted(self.body[src][j], {t: name})
        redirect = {b: self.body[b][0].target for b in self.emptied}
        for b in list(redirect):
            t, seen = redirect[b], {b}
            while t in redirect and t not in seen:
                seen.add(t)
                t = redirect[t]
            redirect[b] = t
        for b in redirect:
            del self.body[b]
            self.stats.emptied += 1
        if redirect:
            for instrs in self.body.values():
                for j, ins in enumerate(instrs):
                    for t in _targets(ins):
                        if t in redirect:
                            instrs[j] = ins = retargeted(ins, {t: redirect[t]})
        layout = [b.label for b in self.fn.blocks]
        for (src, branch, t), name in names.items():
            anchor = src
            region = self.region_of.get(src)
            if self.main_exit is not None and self.main_exit not in (t, f"{src}->{t}") \
                    and region is not None and self.region_of.get(t) is not region:
                # a non-main exit: into the parent region, after its last block (line 21);
                # the root region's parent is the function's end
                parent = [r for r in self.regions if r.head == region.parent]
                inside = [b for b in layout if parent and b in parent[0].blocks]
                anchor = inside[-1] if inside else layout[-1]
            layout.insert(layout.index(anchor) + 1, name)
        self.moves = [(label, alpha, [names[d] if d in names else d for d in dests])
                      for label, alpha, dests in self.moves]
        return {b: tuple(self.body[b]) for b in layout if b in self.body}
