"""Interprocedural conditional branch elimination (``pathlogic optimize --passes icbe``; issue
#15 slice 3, PathFinder §7.2-§7.5): ``cbe``, then **entry splitting**.

A branch on the chain of blocks from a function's entry (which no edge enters), each entered only
from the one before (so it runs once per call), whose query on a parameter is decided at a call
site (``correlation_call``: the caller's argument makes it TRUE or FALSE on every path to that
call) is removed in a clone of the callee where its ``cbr`` is a ``br`` to the decided target;
call sites deciding the same branches the same way share one clone (the original stays for every
other caller), also across rounds: a later round's call sites deciding them so call the clone an
earlier round made when that is sound (``_reusable``), else get a new clone, as long as all the
clones of these decisions stay within ``clone_limit`` (``entry_clones``, keyed by the original
callee and all decided branches; before this, csmith-2 cloned ``@transparent_crc`` twice more
every round). Growth counts against the same budget as ``cbe``.

Then **exit splitting** (``exit_splitting.py``): a branch on a call's result whose callee
returns decide it at some returns is removed on those paths by a clone of the callee returning
through numbered exits (``ret.N``) to one continuation per exit (``call ... to L0, L1``),
pathlogic's extension of docs/pir.md for §7.4's return-points array.

The pass is iterated by the driver (``fixpoint``, whole-module rows each round: PathFinder §7.5
repeats ICBE until no conditional is left to remove) until a round removes nothing; every round
after the first gets ``base_size``, the size the iteration started from, so the growth of all
rounds together stays within ``growth`` of it (what is left of the budget when a round starts is
``base_size * growth`` minus what the module has grown since), and ``lineage`` and
``entry_clones``: ``cbe``'s per-conditional limit then counts every round's copies of a
conditional (§7.5), and so does entry splitting's, so the iteration converges.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Iterable, Optional

from facts_gen.naming import function_id, instr_block, instr_id
from pylogic.ir.cfg import block_predecessors
from pylogic.ir.model import Call, CondBr, Function, Module
from pylogic.transforms.cbe.cbe import (DEFAULT_LIMIT, DEFAULT_MAX_PATH, NEEDS as CBE_NEEDS,
                                    CbeRecord, Decided, Lineage, Threaded, cbe,
                                    decided_br)
from pylogic.transforms.cbe.exit_splitting import NEEDS as EXIT_NEEDS, ExitSplit, split_exits
from pylogic.transforms.driver import rewrite_functions
from pylogic.transforms.record import Rejection

NEEDS = tuple(dict.fromkeys(CBE_NEEDS + ("correlation_call",) + EXIT_NEEDS))
DEFAULT_CLONE_LIMIT = 200   # instructions per clone (PathFinder §7.5: per-conditional limit)
#: growth of the whole iteration, a fraction of the input's size (the thesis bounds only each
#: conditional's duplication, §7.5): two rounds of 0.5 each could reach 1.25
ITERATION_GROWTH = 1.0


@dataclass(frozen=True)
class EntrySplit:
    """``callee``'s entry branch ``branch`` decided ``outcome`` at ``calls`` (``(caller, instr)``):
    they now call ``clone`` (``size`` instructions)."""
    function: str
    branch: str
    outcome: str
    clone: str
    calls: tuple
    duplicated: int


@dataclass(frozen=True)
class Dropped:
    """``function`` (``size`` instructions) was cloned for every call site it had: no call is
    left, so it is removed (PathFinder §7.1.2: code reachable only from fgetc's original entry
    can be deleted if no other call site uses that entry)."""
    function: str
    size: int


@dataclass
class IcbeRecord(CbeRecord):
    transform: str = "icbe"
    rounds: int = 1
    #: the size the iteration started from (its growth budget is a fraction of this)
    base_size: int = 0
    last_changed: bool = False
    #: per round: instructions before and after, branches removed (``Threaded``, ``Decided``,
    #: entry and exit splits), instructions the round may still add when it starts
    round_log: list = field(default_factory=list)
    #: ``(original callee, decided branches) -> (last clone's name, the clone as made or None
    #: when made from a version this iteration had changed (not reusable), instructions cloned
    #: for them in all rounds)``
    entry_clones: dict = field(default_factory=dict)
    #: the functions of the iteration's input (``function_map``)
    start: dict = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        """The last round removed a branch somewhere (the driver runs another)."""
        return self.last_changed

    def next_options(self) -> dict:
        """Options of the next round: the same growth budget, counted from the first input; what
        was duplicated and cloned so far."""
        return {"base_size": self.base_size, "lineage": self.lineage,
                "entry_clones": self.entry_clones, "start": self.start}

    def absorb(self, later: "IcbeRecord") -> None:
        """Fold the record of the next round into this one."""
        self.rounds += 1
        self.last_changed = later.last_changed
        self.applied.extend(later.applied)
        self.rejected.extend(later.rejected)
        self.round_log.extend(later.round_log)
        self.lineage = later.lineage
        self.entry_clones = later.entry_clones
        self.start = later.start

    def totals(self) -> dict:
        threaded = [a for a in self.applied if isinstance(a, Threaded)]
        splits = [a for a in self.applied if isinstance(a, EntrySplit)]
        return {"threaded": len(threaded),
                "decided": sum(isinstance(a, Decided) for a in self.applied),
                "branches": len({(a.function, a.branch) for a in self.applied
                                 if not isinstance(a, (EntrySplit, Dropped))}),
                "entry_splits": len(splits),
                "calls_redirected": sum(len(a.calls) for a in splits),
                "exit_splits": sum(isinstance(a, ExitSplit) for a in self.applied),
                "dropped_functions": sum(isinstance(a, Dropped) for a in self.applied),
                "duplicated": sum(getattr(a, "duplicated", 0) for a in self.applied),
                "rejected": len(self.rejected),
                "rounds": self.rounds}


def icbe(module: Module, rows, *, functions: Optional[Iterable[str]] = None,
         limit: int = DEFAULT_LIMIT, growth: float = ITERATION_GROWTH,
         max_path: int = DEFAULT_MAX_PATH, clone_limit: int = DEFAULT_CLONE_LIMIT,
         exits: bool = True, base_size: Optional[int] = None, lineage: Optional[Lineage] = None,
         entry_clones: Optional[dict] = None,
         start: Optional[dict] = None) -> tuple[Module, IcbeRecord]:
    """``(new module, record)``: one round of ``cbe``, then entry splitting of decided entry
    branches, then exit splitting (``exits=False``: without it). ``base_size``: the size of the
    module the iteration started from (default: this module's); ``lineage``, ``entry_clones``,
    ``start``: the previous round's (``IcbeRecord.next_options``)."""
    size = sum(len(b.instrs) for f in module.defined_functions() for b in f.blocks)
    base = size if base_size is None else base_size
    budget = max(0, int(base * growth) - (size - base))      # left of the whole iteration's
    threaded, inner = cbe(module, rows, functions=functions, limit=limit, growth=growth,
                          max_path=max_path, allowance=budget, lineage=lineage)
    record = IcbeRecord(options={**inner.options, "clone_limit": clone_limit, "exits": exits},
                        applied=list(inner.applied), rejected=list(inner.rejected),
                        base_size=base, lineage=inner.lineage,
                        entry_clones=dict(entry_clones or {}),
                        start=module.function_map() if start is None else start)
    lineage, memo = record.lineage, record.entry_clones
    decided = {name: k[1] for k, (name, _f, _n) in memo.items()}   # clone -> its decisions
    allowance = budget - sum(a.duplicated for a in inner.applied)
    wanted = None if functions is None else set(functions)
    fmap = threaded.function_map()
    relpath = rows.relpath
    ids = {function_id(relpath, fn.name): fn.name for fn in threaded.defined_functions()}
    answers: dict[tuple, set] = {}
    for fn in threaded.defined_functions():
        for i, g, j, a in rows.function(fn.name)["correlation_call"]:
            answers.setdefault((fn.name, i, ids.get(g), j), set()).add(a)
    sites: dict[tuple, tuple] = {}               # (caller, instr) -> (callee, {branch: outcome})
    for (callee, i, caller, j), ans in sorted(answers.items(), key=str):
        if caller is None or len(ans) != 1 or "UNDEF" in ans:
            continue
        if wanted is not None and caller not in wanted:
            continue
        if _entry_chain_branch(fmap[callee], i) is None:
            continue
        sites.setdefault((caller, j), (callee, {}))[1][i] = next(iter(ans))
    groups: dict[tuple, list] = {}               # (callee, decisions) -> call sites sharing a clone
    for site, (callee, decisions) in sorted(sites.items()):
        groups.setdefault((callee, tuple(sorted(decisions.items()))), []).append(site)
    redirect: dict[tuple, str] = {}              # (caller, instr) -> clone
    clones = []
    taken = {f.name for f in threaded.functions}
    for (callee, decisions), calls in sorted(groups.items()):
        fn = fmap[callee]
        key = (lineage.functions.get(callee, callee),
               tuple(sorted({**dict(decided.get(callee, ())), **dict(decisions)}.items())))
        _name, made, paid = memo.get(key, (None, None, 0))
        if made is not None and _reusable(made, fmap):
            for i, outcome in decisions:
                record.applied.append(EntrySplit(callee, i, outcome, made.name, tuple(calls), 0))
            for c in calls:
                redirect[c] = made.name
            continue
        cost = fn.instruction_count()
        if paid + cost > clone_limit or cost > allowance:
            # §7.5's per-conditional limit: clone_limit per clone, and for all the clones of
            # these decisions over all rounds (else a recursive callee is cloned every round)
            record.rejected.append(Rejection(callee, decisions[0][0], None, "duplication limit",
                                             f"clone of {cost} instructions, {paid} before"))
            continue
        name, n = f"{callee}.icbe", 1
        while name in taken:
            n += 1
            name = f"{callee}.icbe{n}"
        taken.add(name)
        lineage.cloned(name, callee)
        decided[name] = key[1]
        blocks = {b.label: b for b in fn.blocks}
        for k, (i, outcome) in enumerate(decisions):
            label = _entry_chain_branch(fn, i)
            blocks[label] = dataclasses.replace(blocks[label], instrs=blocks[label].instrs[:-1] + (
                decided_br(blocks[label].instrs[-1], outcome),))
            record.applied.append(EntrySplit(callee, i, outcome, name, tuple(calls),
                                             cost if k == 0 else 0))
        clones.append(dataclasses.replace(fn, name=name,
                                          blocks=tuple(blocks[b.label] for b in fn.blocks)))
        # reusable only when made from the input's version: valid for every call site copied from
        # the input's calls to it (this iteration may have specialised a later version)
        memo[key] = (name, clones[-1] if fn == record.start.get(callee) else None, paid + cost)
        for c in calls:
            redirect[c] = name
        allowance -= cost

    def redirected(fn: Function) -> tuple[Function, None]:
        mine = {j: clone for (caller, j), clone in redirect.items() if caller == fn.name}
        if not mine:
            return fn, None
        at = {instr_block(j) for j in mine}
        blocks = []
        for b in fn.blocks:
            if b.label not in at:
                blocks.append(b)    # the same object: its facts stay cached (identity_cache)
                continue
            instrs = tuple(dataclasses.replace(ins, callee=mine[instr_id(b.label, k)])
                           if isinstance(ins, Call) and instr_id(b.label, k) in mine else ins
                           for k, ins in enumerate(b.instrs))
            blocks.append(dataclasses.replace(b, instrs=instrs))
        return dataclasses.replace(fn, blocks=tuple(blocks)), None
    entry_split, _ = rewrite_functions(threaded, None, redirected)
    entry_split = dataclasses.replace(entry_split, functions=entry_split.functions + tuple(clones))
    if not exits:
        return _finished(record, size, entry_split, budget)
    origin = {a.clone: a.function for a in record.applied      # this round's clones: no rows yet
              if isinstance(a, EntrySplit) and a.clone not in fmap}
    result, applied, rejected, _added = split_exits(
        entry_split, rows, wanted=wanted, origin=origin, allowance=allowance,
        clone_limit=clone_limit)
    record.applied.extend(applied)
    record.rejected.extend(rejected)
    for a in applied:
        lineage.cloned(a.clone, a.callee)
    cloned = {a.function for a in record.applied if isinstance(a, EntrySplit)} | \
        {a.callee for a in applied} | {c for c in origin.values()}
    before = {f.name for f in module.functions}
    cloned |= {f.name for f in result.functions if f.name not in before}   # clones left uncalled
    result, dropped = _drop_uncalled(result, cloned, _called(module) | (cloned - before))
    record.applied.extend(dropped)
    return _finished(record, size, result, budget)


def _finished(record: IcbeRecord, size: int, result: Module, budget: int):
    """``(result, record)`` with this round logged."""
    removed = sum(not isinstance(a, Dropped) for a in record.applied)
    record.last_changed = removed > 0
    record.round_log.append({"size_before": size, "size_after": sum(
        len(b.instrs) for f in result.defined_functions() for b in f.blocks),
        "removed": removed, "budget": budget})
    return result, record


def _called(module: Module) -> set:
    """Names of the functions some call site of ``module`` calls."""
    return set().union(*(f.callees() for f in module.functions))


def _drop_uncalled(module: Module, cloned: set, called_before: set) -> tuple[Module, list]:
    """Remove functions of ``cloned`` (and what only they called) that had call sites before (or
    are new) and have none now; ``main`` and functions no call site called (external entries)
    stay."""
    functions = list(module.functions)
    dropped = []
    candidates = set(cloned)
    while True:
        called = set().union(*(f.callees() - {f.name} for f in functions))
        gone = [f for f in functions if f.name in candidates and f.name in called_before
                and f.name not in called and f.name.lstrip("@") != "main" and not f.extern]
        if not gone:
            break
        for f in gone:
            functions.remove(f)
            dropped.append(Dropped(f.name, f.instruction_count()))
            candidates |= f.callees()
    return dataclasses.replace(module, functions=tuple(functions)), dropped


def _reusable(clone: Function, fmap: dict) -> bool:
    """Whether a later round may redirect more call sites to ``clone`` (made from the input's
    version of its callee): it is unchanged since it was made (nothing in it was specialised to
    its callers of that round) and calls only extern
    functions (a new caller cannot change the contexts its own call sites, or the functions it
    calls, were decided in: redirecting a call inside recursive ``ack`` to ``ack``'s clone
    did, tests/ir/llvm/c/control.c)."""
    return fmap.get(clone.name) == clone and all(
        fmap.get(ins.callee) is None or fmap[ins.callee].extern
        for b in clone.blocks for ins in b.instrs if isinstance(ins, Call))


def _entry_chain_branch(fn, i: str) -> Optional[str]:
    """The block of branch ``i`` when it still ends in that ``cbr`` and lies on the chain of
    single-predecessor blocks from ``fn``'s unentered entry (what ``correlation_call`` assumed:
    ``cbe`` may have added edges since), else None."""
    label = instr_block(i)
    blocks = fn.block_map()
    b = blocks.get(label)
    if b is None or not isinstance(b.instrs[-1], CondBr) or instr_id(label, len(b.instrs) - 1) != i:
        return None
    preds = block_predecessors(fn)
    entry, seen, at = fn.blocks[0].label, set(), label
    while at != entry:
        if at in seen or len(preds.get(at, ())) != 1:
            return None
        seen.add(at)
        at = preds[at][0]
    return label if not preds.get(entry) else None
