"""Exit splitting for ICBE (PathFinder §7.2-§7.4, spec items 21, 24, 27), the step of ``icbe``
after entry splitting.

A caller's branch on the result of a call in its own block (``correlation_branch_call``) whose
callee returns a value that decides the branch at some of its returns (``correlation_return``:
the summary's answers per return) gets a clone of the callee in which each return is numbered by
its outcome (``ret.N``, pathlogic's extension of docs/pir.md); the call names one continuation per exit
(``call F'(...) to L0, L1``), and the continuation of a decided exit ends in ``br`` to the
decided target: the branch is gone on those paths. A return that passes on the result of another
call (``correlation_return_call``) is split in turn by splitting that callee's exits (fgetc's
``return fillbuf(fp)``, spec §7.1.2), up to ``MAX_DEPTH`` calls deep. A return whose block is
entered from blocks that decide it differently (``correlation_return_edge``: C's single
``return`` block after ``retval = 1`` / ``retval = 0``) is tail-duplicated: one copy per decided
outcome, entered from the blocks that decide it so.

A callee whose summary is transparent (``correlation_return_trans``: some path returns the
caller's argument, whose answer is the caller's) or that already has numbered or guarded returns
is not split.

Exit numbers: undecided returns (if any) keep exit 0, then TRUE, then FALSE; each exit N >= 1
costs one load per return in the interpreter's counts (the return-points array of §7.4).
Growth (clones and duplicated instructions) counts against the caller's allowance; a clone that
replaces its callee's only call site counts only what it adds (``icbe`` drops the original).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from facts_gen.naming import function_id, instr_block, instr_id, instr_site
from pylogic.ir.model import Call, CondBr, Function, Module, Ret, branch_targets, retargeted
from pylogic.transforms.cbe.cbe import decided_br
from pylogic.transforms.driver import rewrite_functions
from pylogic.transforms.naming import LazyFreshNames
from pylogic.transforms.record import Rejection

NEEDS = ("correlation_return", "correlation_return_edge", "correlation_return_trans",
         "correlation_branch_call", "correlation_return_call", "branch_compare")
MAX_DEPTH = 4   # calls deep a return may pass on another call's split exits
_ORDER = ("UNDEF", "TRUE", "FALSE")


@dataclass(frozen=True)
class ExitSplit:
    """Branch ``branch`` of ``function`` (block ``block``) tests the result of a call to
    ``callee``: the call now calls ``clone`` and continues per exit, ``exits[N]`` the outcome of
    exit N (UNDEF: the branch is still evaluated there). ``duplicated`` instructions added."""
    function: str
    branch: str
    block: str
    callee: str
    clone: str
    exits: tuple
    duplicated: int


@dataclass
class _Plan:
    clone: Function
    exits: tuple        # outcome per exit number
    size: int           # instructions of the clone and of the clones it calls (new ones only)


def _pure(answers: set) -> Optional[str]:
    return next(iter(answers)) if answers in ({"TRUE"}, {"FALSE"}) else None


class _Splitter:
    def __init__(self, module: Module, rows, origin: dict, allowance: int, clone_limit: int):
        self.module = module
        self.rows = rows
        self.origin = origin
        self.allowance = allowance
        self.clone_limit = clone_limit
        self.fmap = module.function_map()
        self.ids = {function_id(rows.relpath, f.name): f.name for f in module.defined_functions()}
        self.taken = {f.name for f in module.functions}
        self.plans: dict = {}        # (function, rel, c) -> _Plan or None
        self.sites: dict = {}        # function -> its call sites in ``module``
        for f in module.functions:
            for b in f.blocks:
                for ins in b.instrs:
                    if isinstance(ins, Call):
                        self.sites[ins.callee] = self.sites.get(ins.callee, 0) + 1
        self.new: list = []          # clones made, in order

    def view(self, name: str):
        return self.rows.function(self.origin.get(name, name))

    def fresh_function(self, base: str) -> str:
        name, n = f"{base}.exits", 1
        while name in self.taken:
            n += 1
            name = f"{base}.exits{n}"
        self.taken.add(name)
        return name

    def callee_of(self, block, j: str, expected: Optional[str]) -> Optional[tuple]:
        """``(index, Call)`` of plain call ``j`` in ``block`` still calling ``expected`` (or a
        clone of it), else None."""
        site = instr_site(j)
        if site is None:
            return None
        label, k = site
        if label != block.label or k >= len(block.instrs) - 1:
            return None
        ins = block.instrs[k]
        if not isinstance(ins, Call) or ins.continuations or ins.dest is None:
            return None
        if expected is not None and self.origin.get(ins.callee, ins.callee) != expected:
            return None
        callee = self.fmap.get(ins.callee)
        if callee is None or callee.extern or not callee.blocks:
            return None
        return k, ins

    def plan(self, name: str, rel: str, c: str, depth: int = 0) -> Optional[_Plan]:
        """The exit-split clone of ``name`` for the query ``(result rel c)``, or None."""
        key = (name, rel, c)
        if key in self.plans:
            return self.plans[key]
        self.plans[key] = None   # in progress: a recursive use is not split
        fn = self.fmap[name]
        view = self.view(name)
        if (rel, c) in set(view["correlation_return_trans"]):
            return None          # a path returns the caller's own argument: no per-return answer
        if any(isinstance(ins, Ret) and (ins.exit or ins.guard is not None)
               for b in fn.blocks for ins in b.instrs):
            return None          # already split, or side-exit returns: their exits are not ours
        answers: dict = {}
        for jr, r, cc, a in view["correlation_return"]:
            if r == rel and cc == c:
                answers.setdefault(jr, set()).add(a)
        passes_on = {jr: (j, self.ids.get(g)) for jr, j, g in view["correlation_return_call"]}
        edge_answers: dict = {}
        for m, n, r, cc, a in view["correlation_return_edge"]:
            if r == rel and cc == c:
                edge_answers.setdefault((m, n), set()).add(a)
        preds: dict = {}
        for b in fn.blocks:
            for t in dict.fromkeys(branch_targets(b.instrs[-1])):
                preds.setdefault(t, []).append(b.label)
            for ins in b.instrs[:-1]:          # side exits: their targets are not duplicated
                for t in branch_targets(ins):
                    preds.setdefault(t, []).append(None)
        per_return: dict = {}    # label -> outcome or (call index, Call, sub plan)
        for b in fn.blocks:
            term = b.instrs[-1]
            if not isinstance(term, Ret) or term.exit or term.guard is not None:
                continue
            if any(isinstance(ins, Ret) for ins in b.instrs[:-1]):
                continue
            jr = instr_id(b.label, len(b.instrs) - 1)
            outcome = _pure(answers.get(jr, {"UNDEF"}))
            if outcome is None and jr in passes_on and depth < MAX_DEPTH:
                j, g = passes_on[jr]
                found = self.callee_of(b, j, g) if g is not None else None
                if found is not None:
                    sub = self.plan(found[1].callee, rel, c, depth + 1)
                    if sub is not None:
                        per_return[b.label] = (found[0], found[1], sub)
                        continue
            if outcome is None and b.label in preds and None not in preds[b.label] and \
                    b.label != fn.blocks[0].label and \
                    all(ins.guard is None for ins in b.instrs):
                by_pred = {m: _pure(edge_answers.get((m, b.label), {"UNDEF"})) or "UNDEF"
                           for m in preds[b.label]}
                if set(by_pred.values()) & {"TRUE", "FALSE"}:
                    per_return[b.label] = by_pred   # tail duplication per deciding predecessor
                    continue
            per_return[b.label] = outcome or "UNDEF"
        present = set()
        for v in per_return.values():
            if isinstance(v, dict):
                present.update(v.values())
            else:
                present.update(v[2].exits if isinstance(v, tuple) else (v,))
        if not present & {"TRUE", "FALSE"} or len(present) < 2:
            return None
        exits = tuple(o for o in _ORDER if o in present)
        number = {o: k for k, o in enumerate(exits)}
        clone_name = self.fresh_function(name)
        labels = LazyFreshNames(fn, self.module)
        blocks, size = [], sum(p.size for p in {id(v[2]): v[2] for v in per_return.values()
                                                if isinstance(v, tuple)}.values())
        retarget: dict = {}                 # (pred, return block) -> its copy
        for b in fn.blocks:
            v = per_return.get(b.label)
            term = b.instrs[-1]
            if v is None:
                blocks.append(b)
            elif isinstance(v, dict):           # tail duplication
                for o in _ORDER:
                    ms = [m for m, x in v.items() if x == o]
                    if not ms:
                        continue
                    label = b.label if o == "UNDEF" else labels.fresh(f"{b.label}.{o.lower()}")
                    blocks.append(dataclasses.replace(b, label=label, instrs=b.instrs[:-1] + (
                        dataclasses.replace(term, exit=number[o]),)))
                    retarget.update({(m, b.label): label for m in ms if label != b.label})
            elif not isinstance(v, tuple):
                blocks.append(dataclasses.replace(b, instrs=b.instrs[:-1] + (
                    dataclasses.replace(term, exit=number[v]),)))
            else:                # return fillbuf(fp): one continuation per exit of the callee
                k, call, sub = v
                conts = tuple(labels.fresh(f"{b.label}.x{e}") for e in range(len(sub.exits)))
                blocks.append(dataclasses.replace(b, instrs=b.instrs[:k] + (
                    dataclasses.replace(call, callee=sub.clone.name, continuations=conts),)))
                for label, o in zip(conts, sub.exits):
                    blocks.append(dataclasses.replace(b, label=label, instrs=b.instrs[k + 1:-1] + (
                        dataclasses.replace(term, exit=number[o]),)))
        if retarget:
            blocks = [dataclasses.replace(b, instrs=b.instrs[:-1] + (
                retargeted(b.instrs[-1], {o: n for (m, o), n in retarget.items()
                                         if m == b.label}),)) for b in blocks]
        clone = dataclasses.replace(fn, name=clone_name, blocks=tuple(blocks))
        size += clone.instruction_count()
        if size > self.clone_limit:
            self.taken.discard(clone_name)
            return None
        plan = _Plan(clone, exits, size)
        self.plans[key] = plan
        return plan


def split_exits(module: Module, rows, *, wanted, origin: dict, allowance: int,
                clone_limit: int) -> tuple[Module, list, list, int]:
    """``(new module, applied ExitSplits, rejections, instructions added)``."""
    sp = _Splitter(module, rows, origin, allowance, clone_limit)
    applied, rejected, added = [], [], 0
    paid: set = set()

    def rewrite(fn: Function) -> tuple[Function, None]:
        nonlocal added
        view = sp.view(fn.name)
        compares = {i: (rel, c) for i, _v, rel, c in view["branch_compare"]}
        blocks = {b.label: b for b in fn.blocks}
        order = [b.label for b in fn.blocks]
        labels = LazyFreshNames(fn, module)
        for i, j, h in sorted(view["correlation_branch_call"]):
            label = instr_block(i)
            b = blocks.get(label)
            if b is None or i not in compares or instr_id(label, len(b.instrs) - 1) != i \
                    or not isinstance(b.instrs[-1], CondBr) or b.instrs[-1].guard is not None:
                continue
            found = sp.callee_of(b, j, sp.ids.get(h))
            if found is None:
                continue
            k, call = found
            rel, c = compares[i]
            plan = sp.plan(call.callee, rel, c)
            if plan is None:
                continue
            term = b.instrs[-1]
            mid = b.instrs[k + 1:-1]
            cost = (0 if plan.clone.name in paid else plan.size) + \
                (len(plan.exits) - 1) * (len(mid) + 1)
            if sp.sites.get(call.callee) == 1 and call.callee.lstrip("@") != "main":
                # its only call: the original is dropped (icbe), the clone replaces it
                cost = max(0, cost - sum(len(x.instrs) for x in sp.fmap[call.callee].blocks))
            if cost > sp.allowance:
                rejected.append(Rejection(fn.name, i, label, "duplication limit",
                                          f"exit split of {call.callee}: {cost} instructions"))
                continue
            sp.allowance -= cost
            added += cost
            paid.add(plan.clone.name)
            conts = tuple(labels.fresh(f"{label}.x{e}") for e in range(len(plan.exits)))
            blocks[label] = dataclasses.replace(b, instrs=b.instrs[:k] + (
                dataclasses.replace(call, callee=plan.clone.name, continuations=conts),))
            for cont, o in zip(conts, plan.exits):
                last = term if o == "UNDEF" else decided_br(term, o)
                blocks[cont] = dataclasses.replace(b, label=cont, instrs=mid + (last,))
                order.insert(order.index(label) + 1 + conts.index(cont), cont)
            applied.append(ExitSplit(fn.name, i, label, call.callee, plan.clone.name, plan.exits,
                                     cost))
        return dataclasses.replace(fn, blocks=tuple(blocks[x] for x in order)), None
    split, _ = rewrite_functions(module, wanted, rewrite)
    called = set().union(*(f.callees() for f in split.functions))
    clones = [p.clone for p in sp.plans.values() if p is not None]
    used = _closure(called, clones)
    return (dataclasses.replace(split, functions=split.functions + tuple(
        c for c in clones if c.name in used)), applied, rejected, added)


def _closure(called: set, clones: list) -> set:
    """Clone names reachable from ``called`` (clones call the clones they split into)."""
    by_name = {c.name: c for c in clones}
    seen, stack = set(), [n for n in called if n in by_name]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        for b in by_name[n].blocks:
            for ins in b.instrs:
                if isinstance(ins, Call) and ins.callee in by_name:
                    stack.append(ins.callee)
    return seen
