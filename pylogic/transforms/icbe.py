"""Interprocedural conditional branch elimination (``pathlogic optimize --passes icbe``; issue
#15 slice 3, PathFinder §7.2-§7.5): ``cbe``, then **entry splitting**.

A branch in a function's entry block (which no edge enters, so it runs once per call) whose
query on a parameter is decided at a call site (``correlation_call``: the caller's argument makes
it TRUE or FALSE on every path to that call) is removed in a clone of the callee that starts with
``br`` to the decided target; those call sites call the clone (one clone per callee and outcome;
the original stays for every other caller). Growth counts against the same budget as ``cbe``.

Then **exit splitting** (``exit_splitting.py``): a branch on a call's result whose callee
returns decide it at some returns is removed on those paths by a clone of the callee returning
through numbered exits (``ret.N``) to one continuation per exit (``call ... to L0, L1``),
pathlogic's extension of IR.md for §7.4's return-points array.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Optional

from facts_gen.naming import function_id
from pylogic.ir.model import Br, Call, CondBr, Module
from pylogic.transforms.cbe import (DEFAULT_GROWTH, DEFAULT_LIMIT, DEFAULT_MAX_PATH, NEEDS as CBE_NEEDS,
                                    CbeRecord, Decided, Threaded, cbe)
from pylogic.transforms.exit_splitting import NEEDS as EXIT_NEEDS, ExitSplit, split_exits
from pylogic.transforms.record import Rejection

NEEDS = tuple(dict.fromkeys(CBE_NEEDS + ("correlation_call",) + EXIT_NEEDS))
DEFAULT_CLONE_LIMIT = 200   # instructions per clone (PathFinder §7.5: per-conditional limit)


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


@dataclass
class IcbeRecord(CbeRecord):
    transform: str = "icbe"

    def totals(self) -> dict:
        threaded = [a for a in self.applied if isinstance(a, Threaded)]
        splits = [a for a in self.applied if isinstance(a, EntrySplit)]
        return {"threaded": len(threaded),
                "decided": sum(isinstance(a, Decided) for a in self.applied),
                "branches": len({(a.function, a.branch) for a in self.applied
                                 if not isinstance(a, EntrySplit)}),
                "entry_splits": len(splits),
                "calls_redirected": sum(len(a.calls) for a in splits),
                "exit_splits": sum(isinstance(a, ExitSplit) for a in self.applied),
                "duplicated": sum(a.duplicated for a in self.applied),
                "rejected": len(self.rejected)}


def icbe(module: Module, rows, *, functions: Optional[Iterable[str]] = None,
         limit: int = DEFAULT_LIMIT, growth: float = DEFAULT_GROWTH,
         max_path: int = DEFAULT_MAX_PATH, clone_limit: int = DEFAULT_CLONE_LIMIT,
         exits: bool = True) -> tuple[Module, IcbeRecord]:
    """``(new module, record)``: ``cbe``, then entry splitting of decided entry branches, then
    exit splitting (``exits=False``: without it)."""
    size = sum(len(b.instrs) for f in module.defined_functions() for b in f.blocks)
    threaded, inner = cbe(module, rows, functions=functions, limit=limit, growth=growth,
                          max_path=max_path)
    record = IcbeRecord(options={**inner.options, "clone_limit": clone_limit, "exits": exits},
                        applied=list(inner.applied), rejected=list(inner.rejected))
    allowance = int(size * growth) - sum(a.duplicated for a in inner.applied)
    wanted = None if functions is None else set(functions)
    fmap = threaded.function_map()
    relpath = rows.relpath
    ids = {function_id(relpath, fn.name): fn.name for fn in threaded.defined_functions()}
    decided: dict[tuple, list] = {}              # (callee, branch, outcome) -> [(caller, instr)]
    answers: dict[tuple, set] = {}
    for fn in threaded.defined_functions():
        for i, g, j, a in rows.function(fn.name)["correlation_call"]:
            answers.setdefault((fn.name, i, ids.get(g), j), set()).add(a)
    for (callee, i, caller, j), ans in sorted(answers.items(), key=str):
        if caller is None or len(ans) != 1 or "UNDEF" in ans:
            continue
        if wanted is not None and caller not in wanted:
            continue
        decided.setdefault((callee, i, next(iter(ans))), []).append((caller, j))
    redirect: dict[tuple, str] = {}              # (caller, instr) -> clone
    clones = []
    taken = {f.name for f in threaded.functions}
    for (callee, i, outcome), calls in sorted(decided.items()):
        fn = fmap[callee]
        entry = fn.blocks[0]
        term = entry.instrs[-1]
        cost = sum(len(b.instrs) for b in fn.blocks)
        calls = [c for c in calls if c not in redirect]
        if not calls or not isinstance(term, CondBr) or f"{entry.label}#{len(entry.instrs) - 1}" != i:
            continue
        if cost > clone_limit or cost > allowance:
            record.rejected.append(Rejection(callee, i, None, "duplication limit",
                                             f"clone of {cost} instructions"))
            continue
        name, n = f"{callee}.icbe", 1
        while name in taken:
            n += 1
            name = f"{callee}.icbe{n}"
        taken.add(name)
        target = term.if_true if outcome == "TRUE" else term.if_false
        new_entry = dataclasses.replace(entry, instrs=entry.instrs[:-1] + (
            Br(target=target, annotations=term.annotations, loc=term.loc),))
        clones.append(dataclasses.replace(fn, name=name, blocks=(new_entry,) + fn.blocks[1:]))
        for c in calls:
            redirect[c] = name
        allowance -= cost
        record.applied.append(EntrySplit(callee, i, outcome, name, tuple(calls), cost))
    out = []
    for fn in threaded.functions:
        mine = {j: clone for (caller, j), clone in redirect.items() if caller == fn.name}
        if not mine:
            out.append(fn)
            continue
        blocks = []
        for b in fn.blocks:
            instrs = tuple(dataclasses.replace(ins, callee=mine[f"{b.label}#{k}"])
                           if isinstance(ins, Call) and f"{b.label}#{k}" in mine else ins
                           for k, ins in enumerate(b.instrs))
            blocks.append(dataclasses.replace(b, instrs=instrs))
        out.append(dataclasses.replace(fn, blocks=tuple(blocks)))
    entry_split = dataclasses.replace(threaded, functions=tuple(out) + tuple(clones))
    if not exits:
        return entry_split, record
    origin = {a.clone: a.function for a in record.applied if isinstance(a, EntrySplit)}
    result, applied, rejected, _added = split_exits(
        entry_split, rows, wanted=wanted, origin=origin, allowance=allowance,
        clone_limit=clone_limit)
    record.applied.extend(applied)
    record.rejected.extend(rejected)
    return result, record
