"""Partial dead code elimination on predicated code (``pathlogic optimize --passes ppde``;
issue #13 item 2; Xue, Cai, Gao, predicated_pde.md §3): sink partially dead instructions along
the implicit branches of predicated code, splitting them into copies under existing, mutually
disjoint predicates and merging copies whose predicates partition a join predicate, without
adding a compare or a predicate, and delete what becomes fully dead.

Per round (the driver repeats the pass on fresh rows of the functions it changed until nothing
changes), two phases:

- inside each block (a hyperblock, or a basic block with guarded code): line 7, the candidates
  ``datalog/predicated_deadness.dl`` proves fully dead (``pd_dead``) or faint (``pd_faint``) go;
  every other candidate of the block, last first (reverse order of data dependences inside a
  block), runs through Sink (Figure 8) with its four cases, the compensation copies of Case 2 at
  LUB_Diff (Figure 13, line 81: next to δ with a materialised predicate) and the merge forest F
  of Case 3 (AddInst, lines 63-75), F kept per original candidate (§3.6 item 8). A copy all of
  whose executions leave by a branch (a side exit under its own predicate, or the final branch
  under p0 or the exact fall-through predicate) with its register live there is exported;
- across blocks (``regions.py``, ``cross_block=True``): the exported copies, then the
  candidates of the blocks the first phase left unchanged, move through the cycle-free SEME
  region into successors, merge at joins, and leave the region into interface blocks
  (``interface="paid"``: only where that lengthens no path; ``"keep"``: the paper's setting;
  ``main_exit="SRC->TARGET"`` lays the other interface blocks out in the parent region).

Predicates are compared through the PPG of ``ppg.dl`` (``predicates.partition_queries``). A
predicate whose value the PPG does not model in the block, or that is written more than once in
it, is "overlapping" with everything (Case 4): conservative, never unsafe. A branch δ uses v when
v is live at its target (``flow/liveness.py``); when the scan passes the block's end, or a side
exit under α's own predicate, with v used nowhere, the copy is fully dead and is deleted.
"""
from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Optional

from facts_gen.naming import instr_id, instr_site
from pylogic.flow.liveness import LIVENESS, Liveness
from pylogic.ir.model import Call, Function, Module, PredDefine, Ret, branch_targets
from pylogic.ir.printer import print_instr
from pylogic.predicates.partition_queries import BlockPredicates
from pylogic.predicates.ppg import PPG_RELATIONS, PartitionGraph
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.ppde.regions import INTERFACE, PAID, CrossBlock, _guard, _reads
from pylogic.transforms.record import FixpointRecord

NEEDS = ("pd_dead", "pd_faint", "pd_candidate", "idom") + LIVENESS + PPG_RELATIONS


@dataclass(frozen=True)
class FunctionPpde:
    function: str
    deleted: int            # fully dead at line 7 or in Sink (Case 1 / 3(a) / dead at the end)
    split: int              # Case 2 applications (partially dead: narrowed to q and LUB_Diff)
    copies: int             # copies inserted (θ, compensation, merged)
    merged: int             # Case 3 merges
    swaps: int              # Case 1 moves past an independent instruction
    encountered: int        # δ examined (Table IV's V)
    candidates: int         # candidates processed (Table IV's C, copies included)
    reverted: int = 0       # blocks kept as they were: a path through them would run longer
    undone: int = 0         # candidates whose motion was undone for the same reason
    sunk_out: int = 0       # candidates moved out of their block (regions.py)
    copies_out: int = 0     # their copies in other blocks
    merged_out: int = 0     # joins where copies merged
    interface: int = 0      # interface / split blocks kept
    emptied: int = 0        # blocks emptied by the motion and deleted


@dataclass
class PpdeRecord(FixpointRecord):
    transform: str = "ppde"
    #: per original candidate (function, block, text): the guards of its copies at the end of
    #: the round, for the Definition 1 checks (copies disjoint, within the original)
    copies_of: dict = field(default_factory=dict)
    #: per candidate moved out of its block in the round (function, block, instruction text):
    #: the blocks its copies went to (regions.py)
    blocks_of: dict = field(default_factory=dict)

    def totals(self) -> dict:
        keys = [f.name for f in dataclasses.fields(FunctionPpde)[1:]]
        return {"functions": len(self.applied), "rounds": self.rounds,
                **{k: sum(getattr(a, k) for a in self.applied) for k in keys}}

    def summary(self) -> str:
        t = self.totals()
        return (f"ppde: {t['deleted']} deleted, {t['split']} split, {t['merged']} merged, "
                f"{t['copies']} copies in {t['rounds']} rounds")


class _Copy:
    """One instruction of the block being rewritten; copies of a candidate share ``origin``."""
    __slots__ = ("ins", "origin")

    def __init__(self, ins, origin=None):
        self.ins = ins
        self.origin = origin


class _BlockPpde:
    """PPDE on one block (Figures 7, 8, 13 with the block as the region)."""

    def __init__(self, label, instrs, preds: BlockPredicates, live, candidates: set,
                 single_def: dict, exporting: bool = False):
        self.label = label
        #: Case 1 at a branch across blocks (regions.py): a copy whose executions all leave
        #: by a branch δ with its register live there is exported: it waits just before δ and
        #: the cross-block phase moves it into δ's targets. copy -> δ
        self.exporting = exporting
        self.exported: dict = {}
        self.items = [_Copy(ins) for ins in instrs]
        self.preds = preds
        self.live = live
        self.single_def = single_def        # predicate -> index of its one define, or None
        self.stats = defaultdict(int)
        for k, item in enumerate(self.items):
            if k in candidates:
                item.origin = item
        self.forest: dict = {}              # origin -> {δ item: [arrived copies]}

    # ---------------------------------------------------------------- predicates
    def _usable(self, p: str, before: Optional[_Copy] = None) -> bool:
        """The PPG models p here and its one define (if any) precedes ``before``."""
        if p == "p0":
            return True
        if not self.preds.known(p) or p not in self.single_def:
            return False
        k = self.single_def[p]
        return k is None or before is None or any(
            it.ins is self.define_ins.get(p) for it in self.items[:self.items.index(before)])

    def _relation(self, p: str, q: str, delta: _Copy) -> str:
        if not (self._usable(p) and self._usable(q, delta)):
            return "overlap"
        if self.preds.is_disjoint(p, q):
            return "disjoint"
        sub, sup = self.preds.is_subset(q, p), self.preds.is_subset(p, q)
        if sub and sup:
            return "equal"
        if sub:
            return "q<p"
        if sup:
            return "p<q"
        return "overlap"

    # ---------------------------------------------------------------- dependences (§2.4)
    def _uses(self, v: str, delta) -> bool:
        if isinstance(delta, Ret):
            return v in _reads(delta)
        return v in _reads(delta) or any((t, v) in self.live for t in branch_targets(delta))

    def _dep(self, alpha, delta) -> tuple[bool, bool]:
        """(DEP(α, δ), DEFINED-BUT-NOT-USED(α, δ))."""
        (v,) = alpha.defs()
        defined = v in delta.defs()
        used = self._uses(v, delta)
        killed = bool(_reads(alpha) & set(delta.defs()))
        return defined or used or killed, defined and not used

    # ---------------------------------------------------------------- the worklist (Fig. 7)
    def run(self) -> list:
        self.define_ins = {}
        for k, it in enumerate(self.items):
            for d in it.ins.defs() if isinstance(it.ins, PredDefine) else ():
                self.define_ins[d] = it.ins
        work = [it for it in reversed(self.items) if it.origin is it]
        snapshot = None
        while work:
            alpha = work.pop(0)
            if alpha.origin is alpha:
                snapshot = self._settle(snapshot)
            if alpha not in self.items:
                continue
            self.stats["candidates"] += 1
            if not self._usable(_guard(alpha.ins), alpha):
                continue
            for new in self._sink(alpha):
                work.insert(0, new)
        self._settle(snapshot)
        return [it.ins for it in self.items]

    def _settle(self, snapshot):
        """The previous original candidate and all its copies are done: undo them if a path
        through the block now runs longer (copies left side by side in one hyperblock issue
        more instructions than the original) or if they only moved; a snapshot for the next
        original."""
        before = None if snapshot is None else [it.ins for it in snapshot[0]]
        after = [it.ins for it in self.items]
        exported = {id(it.ins): id(d.ins) for it, d in self.exported.items()}
        if before is not None and (
                not _no_exit_longer(before, snapshot[4], after, exported)
                or not exported and len(after) > len(before)
                or (exported == snapshot[4]
                    and Counter(map(repr, before)) == Counter(map(repr, after)))):
            # a longer path, or a mere reordering (kept, it would let two independent
            # candidates swap places on every round: the pass would never reach its fixpoint)
            self.items = snapshot[0]
            self.forest = snapshot[1]
            self.stats = snapshot[2]
            self.exported = snapshot[3]
            if before != after:
                self.stats["undone"] += 1
        return (list(self.items), {o: {d: list(a) for d, a in f.items()}
                                   for o, f in self.forest.items()}, defaultdict(int, self.stats),
                dict(self.exported),
                {id(it.ins): id(d.ins) for it, d in self.exported.items()})

    def _delete(self, item: _Copy) -> None:
        self.items.remove(item)
        self.exported.pop(item, None)
        for arrivals in self.forest.get(item.origin, {}).values():
            if item in arrivals:
                arrivals.remove(item)             # §3.6 item 2: no stale F entries

    def _insert_before(self, delta: _Copy, ins, origin) -> _Copy:
        new = _Copy(ins, origin)
        self.items.insert(self.items.index(delta), new)
        self.stats["copies"] += 1
        return new

    def _sink(self, alpha: _Copy) -> list:
        """Sink (Figure 8) from the instruction after α to the block's end; the new copies."""
        p = _guard(alpha.ins)
        (v,) = alpha.ins.defs()
        k = self.items.index(alpha) + 1
        while k < len(self.items):
            delta = self.items[k]
            self.stats["encountered"] += 1
            q = _guard(delta.ins)
            rel = self._relation(p, q, delta)
            dep, dbnu = self._dep(alpha.ins, delta.ins)
            leaves = self._leaves_by(alpha, delta, rel) if self.exporting else None
            if leaves == "dead":                                      # dead wherever it goes
                self._delete(alpha)
                self.stats["deleted"] += 1
                return []
            if leaves:
                self.items.remove(alpha)                              # Case 1 at a branch:
                self.items.insert(self.items.index(delta), alpha)     # out by δ (regions.py)
                self.exported[alpha] = delta
                for arrivals in self.forest.get(alpha.origin, {}).values():
                    if alpha in arrivals:
                        arrivals.remove(alpha)                    # it leaves: no merge here
                return []
            if rel == "disjoint":
                if dep and isinstance(delta.ins, PredDefine):
                    return []             # a define writes its destinations whatever its guard
                k += 1
                continue
            if rel == "equal":                                        # Case 1
                if dep:
                    if dbnu:
                        self._delete(alpha)
                        self.stats["deleted"] += 1
                    return []
                if branch_targets(delta.ins) or isinstance(delta.ins, Ret):
                    # all of α's executions leave here and v is dead there
                    self._delete(alpha)
                    self.stats["deleted"] += 1
                    return []
                self.items.remove(alpha)                              # swap past δ
                self.items.insert(self.items.index(delta) + 1, alpha)
                self.stats["swaps"] += 1
                k = self.items.index(alpha) + 1
                continue
            if rel == "q<p":                                          # Case 2
                rest = self.preds.lub_diff(p, q)
                if rest is None or not all(self._usable(r, delta) for r in rest):
                    if dep:
                        return []
                    k += 1
                    continue
                made = []
                if not dbnu:
                    made.append(self._insert_before(delta, _with_guard(alpha.ins, q), alpha.origin))
                for r in sorted(rest):                                # CompensationInsert
                    made.append(self._insert_before(delta, _with_guard(alpha.ins, r),
                                                    alpha.origin))
                self._delete(alpha)
                self.stats["split"] += 1
                return made
            if rel == "p<q":                                          # Case 3
                if dep and dbnu:
                    self._delete(alpha)
                    self.stats["deleted"] += 1
                    return []
                merged = self._add_inst(alpha, delta, q)
                if merged is not None:
                    return [merged]
                if dep:
                    return []
                k += 1
                continue
            if dep:                                                   # Case 4
                return []
            k += 1
        if not any((t, v) in self.live for t in _successors(self.items)):
            self._delete(alpha)                                       # dead past the block
            self.stats["deleted"] += 1
        return []

    def _leaves_by(self, alpha: _Copy, delta: _Copy, rel: str) -> Optional[str]:
        """"export" when all executions of α leave the block by branch δ, which does not read
        α's register, with the register live at a target (§3.3 Case 1, Fig. 9): δ is a side
        exit under α's own predicate, or the final branch and α's predicate is the block's
        (p0) or exactly the fall-through one (§3.6 item 4); "dead" when it is dead at every
        target of δ; else None."""
        ins = delta.ins
        if not branch_targets(ins) or _guard(ins) == "p0" and delta is not self.items[-1]:
            return None
        if isinstance(ins, Call):
            return None                          # a split call (exit splitting) is not a branch
        (v,) = alpha.ins.defs()
        if v in _reads(ins):
            return None
        g = _guard(alpha.ins)
        if delta is not self.items[-1]:
            ok = rel == "equal" and g != "p0"
        elif _guard(ins) != "p0":
            ok = False
        elif g == "p0":
            ok = not any(branch_targets(it.ins) for it in self.items[self.items.index(alpha) + 1:-1])
        else:
            ok = self.fallthrough(g)
        if not ok:
            return None
        return "export" if any((t, v) in self.live for t in branch_targets(ins)) else "dead"

    def fallthrough(self, g: str) -> bool:
        """g holds exactly when control reaches the block's final branch: disjoint from every
        side exit's guard and, with them, a partition of the block's p0 (PPG)."""
        sides = {_guard(it.ins) for it in self.items[:-1] if branch_targets(it.ins)}
        if "p0" in sides or not self._usable(g) or not all(self._usable(x) for x in sides):
            return False
        return all(self.preds.is_disjoint(g, x) for x in sides) and \
            self._partitioned("p0", {g, *sides})

    def _add_inst(self, alpha: _Copy, delta: _Copy, q: str) -> Optional[_Copy]:
        """AddInst (lines 63-75): record α's arrival at δ; when the arrived copies' predicates
        partition E-PRED(δ), replace them by one copy under M-PRED(δ) before δ."""
        arrivals = self.forest.setdefault(alpha.origin, {}).setdefault(delta, [])
        if alpha in arrivals:
            return None
        arrivals.append(alpha)
        names = {_guard(a.ins) for a in arrivals}
        if not self._partitioned(q, names):
            return None
        for a in list(arrivals):
            self._delete(a)
        self.forest[alpha.origin].pop(delta, None)
        self.stats["merged"] += 1
        return self._insert_before(delta, _with_guard(alpha.ins, q), alpha.origin)

    def _partitioned(self, q: str, names: set) -> bool:
        """The predicates ``names`` (mutually disjoint copies) cover q: q is one of them, or
        every member of some partition of q is (recursively), in the PPG."""
        ppg = self.preds.ppg
        name_nodes = {self.preds.node[n] for n in names if self.preds.known(n)}
        eq = lambda n: set(ppg._equivalents("pred", n))        # noqa: E731
        targets = set().union(*(eq(n) for n in name_nodes)) if name_nodes else set()

        memo: dict = {}

        def covered(node) -> bool:
            # memoised (once per PPG node; a node on the current path counts as uncovered):
            # without it the walk is exponential in the partitions under TRUE of a big function
            if node in targets:
                return True
            if node not in memo:
                memo[node] = False
                memo[node] = any(all(covered(kid) for kid in kids)
                                 for x in eq(node) for kids in ppg._by_parent["pred"].get(x, ()))
            return memo[node]
        return self.preds.known(q) and covered(self.preds.node[q])


def _exit_costs(instrs: list, exported: dict) -> list:
    """Per exit of the block (each branch or ret, in order): the instructions issued before it
    on the path leaving there; an exported copy (id -> id of its branch) counts only on the
    path of its own branch (it will sit in that branch's target)."""
    costs, issued = [], 0
    pending = defaultdict(int)
    for ins in instrs:
        if id(ins) in exported:
            pending[exported[id(ins)]] += 1
            continue
        if branch_targets(ins) or isinstance(ins, Ret):
            costs.append(issued + pending[id(ins)])
        issued += 1
    return costs


def _no_exit_longer(before: list, before_exported: dict, after: list, exported: dict) -> bool:
    """No path through the block issues more instructions than before (Definition 1)."""
    a, b = _exit_costs(before, before_exported), _exit_costs(after, exported)
    return len(a) == len(b) and all(y <= x for x, y in zip(a, b))


def _no_path_longer(before: list, after: list) -> bool:
    """Every exit of the block (each branch or ret, in order; they are never moved) is reached
    after no more instructions than before, so no path through the block runs longer."""
    def prefixes(instrs):
        return [k for k, ins in enumerate(instrs) if branch_targets(ins) or isinstance(ins, Ret)]
    a, b = prefixes(before), prefixes(after)
    return len(a) == len(b) and all(y <= x for x, y in zip(a, b)) and len(after) <= len(before)


def _successors(items) -> set:
    return {t for it in items for t in branch_targets(it.ins)}


def _with_guard(ins, p: str):
    return dataclasses.replace(ins, guard=None if p == "p0" else p)


def ppde(module: Module, rows, *, functions: Optional[Iterable[str]] = None,
         cross_block: bool = True, interface: str = PAID, main_exit: Optional[str] = None
         ) -> tuple[Module, PpdeRecord]:
    """One round of PPDE on every block of every (or each named) function:
    ``(new module, record)``; ``rows`` holds ``NEEDS`` of ``module``. ``cross_block``: then
    move candidates out of their blocks across the SEME regions (``regions.py``), in the
    blocks the in-block phase left unchanged; ``interface``/``main_exit``: see there."""
    record = PpdeRecord()
    return run_per_function(module, functions, record, lambda fn: _ppde_function(
        fn, rows.function(fn.name), record, cross_block, interface, main_exit))


def _ppde_function(fn: Function, fr, record: PpdeRecord, cross_block: bool, interface: str,
                   main_exit: Optional[str]) -> tuple[Function, FunctionPpde]:
    """One round of PPDE on ``fn`` (``fr``: its rows), and its entry."""
    candidates = {r[0] for r in fr["pd_candidate"]}
    dead = {r[0] for r in fr["pd_dead"] + fr["pd_faint"]} & candidates
    live = Liveness.from_rows(fn, fr)
    ppg = PartitionGraph(fr, fn)
    stats = defaultdict(int)
    blocks = []
    inblock = {}
    exports = []
    fallbacks = {}
    fell_back = {}                  # label -> the in-block work used instead (no exports)
    for b in fn.blocks:
        keep = [(k, ins) for k, ins in enumerate(b.instrs) if instr_id(b.label, k) not in dead]
        stats["deleted"] += len(b.instrs) - len(keep)
        instrs = [ins for _, ins in keep]
        cands = {j for j, (k, ins) in enumerate(keep) if instr_id(b.label, k) in candidates
                 and len(ins.defs()) == 1}
        defines = defaultdict(list)
        for j, ins in enumerate(instrs):
            for d in ins.defs():
                defines[d].append((j, isinstance(ins, PredDefine)))
        guards = {_guard(i) for i in instrs} - {"p0"}
        names = {d for d, ws in defines.items() if any(pd for _, pd in ws)} | guards
        single = {}
        for name in names:
            ws = defines.get(name, [])
            if not ws:
                single[name] = None
            elif len(ws) == 1 and ws[0][1]:
                single[name] = ws[0][0]
        if not cands or not guards and not any(branch_targets(i) for i in instrs[:-1]):
            # no predicated code here: nothing for Sink to split (pde's job)
            blocks.append(dataclasses.replace(b, instrs=tuple(instrs)))
            continue
        make = lambda exporting, b=b, instrs=instrs, names=names, cands=cands, \
            single=single: _BlockPpde(b.label, instrs, BlockPredicates(ppg, b.label, names),
                                      live, cands, single, exporting=exporting)  # noqa: E731
        fallbacks[b.label] = lambda make=make, instrs=instrs: _plain(
            make(False), instrs, fell_back)
        work = make(cross_block)
        result = work.run()
        inblock[b.label] = work
        exported = {id(it.ins): id(d.ins) for it, d in work.exported.items()}
        if not _no_exit_longer(instrs, {}, result, exported) or \
                not exported and len(result) > len(instrs):
            # Definition 1: no path's dynamic count may grow (in a hyperblock every issued
            # instruction counts, nullified or not): keep the block as it was
            stats["reverted"] += 1
            blocks.append(dataclasses.replace(b, instrs=tuple(instrs)))
            continue
        for key, n in work.stats.items():
            stats[key] += n
        for it in work.items:
            if it.origin is not None and it.origin is not it:
                record.copies_of.setdefault(
                    (fn.name, b.label, id(it.origin), _guard(it.origin.ins)), []
                ).append(_guard(it.ins))
        blocks.append(dataclasses.replace(b, instrs=tuple(result)))
        for it, d in work.exported.items():
            if it in work.items:
                exports.append((b.label, it.ins, d.ins))
    if cross_block:
        blocks = _cross_block(fn, blocks, fr, candidates, live, stats, interface, main_exit,
                              _fallthrough(inblock), exports, fallbacks, record)
    for label, used in fell_back.items():          # count what the block really got
        for key, n in inblock[label].stats.items():
            stats[key] -= n
        for key, n in used.stats.items():
            stats[key] += n
    new_fn = dataclasses.replace(fn, blocks=tuple(blocks))
    record.last_changed = record.last_changed or new_fn != fn
    return new_fn, FunctionPpde(fn.name, stats["deleted"], stats["split"], stats["copies"],
                                stats["merged"], stats["swaps"], stats["encountered"],
                                stats["candidates"], stats["reverted"], stats["undone"],
                                stats["sunk_out"], stats["copies_out"], stats["merged_out"],
                                stats["interface"], stats["emptied"])


def _plain(work: "_BlockPpde", instrs: list, used: dict) -> list:
    """The in-block result of ``work`` (not exporting), or ``instrs`` if a path would grow;
    ``used[label]``: that work (its statistics replace the exporting run's)."""
    result = work.run()
    used[work.label] = work
    return result if _no_exit_longer(instrs, {}, result, {}) and len(result) <= len(instrs) \
        else instrs


def _fallthrough(inblock: dict):
    """``test(label, g, side_guards)``: the PPG proves that g holds exactly when control
    reaches the final branch of ``label`` (g disjoint from every side exit's guard, and g with
    them partitions the block's p0): a copy under g leaves by that branch alone (§3.6 item 4)."""
    def test(label: str, g: str, sides) -> bool:
        work = inblock.get(label)
        if work is None or not work._usable(g) or not all(work._usable(s) for s in sides):
            return False
        return work.fallthrough(g)
    return test


def _cross_block(fn, blocks, fr, candidates, live, stats, interface, main_exit,
                 fallthrough, exports=(), fallbacks=None, record=None) -> list:
    """The block-boundary motion (``regions.py``) on the blocks the in-block phase left as
    they were (their candidate ids still name them)."""
    from pylogic.ir.model import Block
    claimed = {b.label for b, new in zip(fn.blocks, blocks) if b.instrs != new.instrs}
    claimed |= {label for label, _, _ in exports}
    cands = set()
    for ident in candidates:
        site = instr_site(ident)
        if site is not None and site[0] not in claimed:
            cands.add(site)
    bm = fn.block_map()
    cands = {(b, k) for b, k in cands if b in bm and k < len(bm[b].instrs)
             and len(bm[b].instrs[k].defs()) == 1}
    if not cands and not exports:
        return blocks
    idom = {n: d for d, n in fr["idom"]}
    work = CrossBlock(fn, {b.label: b.instrs for b in blocks}, claimed, cands, live, idom,
                      interface, main_exit, fallthrough)
    body = work.run(exports, lambda label: fallbacks[label]())
    for key, value in (("sunk_out", work.stats.sunk), ("copies_out", work.stats.copies),
                       ("merged_out", work.stats.merged), ("interface", work.stats.interface),
                       ("emptied", work.stats.emptied)):
        stats[key] += value
    stats["deleted"] += work.stats.deleted
    if record is not None:
        for label, alpha, dests in work.moves:
            record.blocks_of[(fn.name, label, print_instr(alpha).strip())] = dests
    old = {b.label: b for b in blocks}
    return [dataclasses.replace(old[label], instrs=instrs) if label in old
            else Block(label=label, instrs=instrs, annotations=(INTERFACE,))
            for label, instrs in body.items()]


def ppde_keep(module: Module, rows, **options) -> tuple[Module, PpdeRecord]:
    """``ppde`` with ``interface="keep"`` (the paper's setting, predicated_pde.md §2.1): an
    interface block that receives code stays, and its ``br`` runs on the paths through it."""
    module, record = ppde(module, rows, **{"interface": "keep", **options})
    record.transform = "ppde-keep"
    return module, record
