"""Classical partial dead code elimination (``pathlogic optimize --passes pde``; issue #13 item 3):
assignment sinking plus dead-assignment elimination, iterated to a fixpoint (Knoop, Rüthing,
Steffen, PLDI'94), on unpredicated code. One application is one round; the driver repeats the
pass on the rows of its own output until a round changes nothing (``Pass.fixpoint``).

A round reads ``datalog/predicated_deadness.dl`` (per-definition deadness) and liveness at block
entries (``pylogic/flow/liveness.py`` from ``liveness.dl``'s block summaries):

- every fully dead candidate (``pd_dead`` and ``pd_candidate``, unguarded) is deleted;
- in each block that lost nothing, the last partially dead candidate ``v = π``
  (``pd_partially_dead``) that can leave its block is sunk: nothing after it in the block reads
  or writes ``v`` or writes an operand of ``π`` (DEP, predicated_pde.md §2.4), the block ends in
  ``br``/``cbr`` not reading ``v``, and every successor where ``v`` is live has the block as its
  only predecessor. It is removed and a copy is placed at the top of each successor where ``v``
  is live-in, none where it is dead. Critical edges are not split (a split would add a jump on
  its path), so no path executes more instructions than before.

Example: ``x = add a, 1`` before ``cbr c, L, R`` with ``x`` read only in ``L`` (single
predecessor) moves to the top of ``L``; the path through ``R`` runs one instruction less.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Optional

from facts_gen.naming import instr_block, instr_id
from pylogic.flow.liveness import LIVENESS, Liveness
from pylogic.ir.cfg import block_predecessors
from pylogic.ir.model import TRUE_PREDICATES, Br, CondBr, Function, Module, Reg, branch_targets
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.record import FixpointRecord

NEEDS = ("pd_dead", "pd_faint", "pd_partially_dead", "pd_candidate") + LIVENESS


@dataclass(frozen=True)
class FunctionPde:
    function: str
    deleted: int
    sunk: int
    copies: int
    rounds: int = 1


@dataclass
class PdeRecord(FixpointRecord):
    transform: str = "pde"

    def totals(self) -> dict:
        return {"functions": len(self.applied), "rounds": self.rounds,
                "deleted": sum(a.deleted for a in self.applied),
                "sunk": sum(a.sunk for a in self.applied),
                "copies": sum(a.copies for a in self.applied)}

    def summary(self) -> str:
        t = self.totals()
        return (f"{self.transform}: {t['deleted']} deleted, {t['sunk']} sunk into {t['copies']} "
                f"copies in {t['rounds']} rounds")


def _guarded(ins) -> bool:
    return ins.guard is not None and ins.guard not in TRUE_PREDICATES


def _reads(ins) -> set:
    out = {op.name for op in ins.uses() if isinstance(op, Reg)}
    if _guarded(ins):
        out.add(ins.guard)
    return out


def sink_target(fn, block, k: int, live: Liveness, preds: dict) -> Optional[list]:
    """The successors that receive instruction ``k`` of ``block`` when it sinks out of it, or
    None when it cannot leave (a dependence in the block, a side exit, a ret, a shared live
    successor). ``live``: (label, register) pairs live at block entries."""
    d = block.instrs[k]
    (v,) = d.defs()
    operands = _reads(d)
    for ins in block.instrs[k + 1:-1]:
        if v in _reads(ins) or v in ins.defs() or operands & set(ins.defs()) or branch_targets(ins):
            return None
    term = block.instrs[-1]
    if not isinstance(term, (Br, CondBr)) or _guarded(term) or v in _reads(term):
        return None
    succs = list(dict.fromkeys(branch_targets(term)))
    if block.label in succs:
        return None
    out = [s for s in succs if (s, v) in live]
    if any(preds[s] != [block.label] for s in out):
        return None
    return out


def pde(module: Module, rows, *, functions: Optional[Iterable[str]] = None
        ) -> tuple[Module, PdeRecord]:
    """One round of partial dead code elimination: ``(new module, record)``; ``rows`` holds
    ``NEEDS`` of ``module``. ``record.changed``: the round changed something."""
    new, record = run_per_function(module, functions, PdeRecord(),
                                   lambda fn: pde_function(fn, rows.function(fn.name)))
    record.last_changed = any(a.deleted or a.sunk for a in record.applied)
    return new, record


def pde_function(fn: Function, fr) -> tuple[Function, FunctionPde]:
    """One round of PDE on ``fn`` (``fr``: its rows), and its entry."""
    candidates = {r[0] for r in fr["pd_candidate"]}
    # pd_faint ⊇ pd_dead: whole dead chains at once (one round, not one per link)
    dead = {r[0] for r in fr["pd_dead"] + fr["pd_faint"]} & candidates
    partial = {r[0] for r in fr["pd_partially_dead"]} & candidates
    # the blocks holding such instructions (ids "label#k", facts_gen.naming.instr_id): the
    # others are skipped, and liveness is solved only when a candidate may sink
    dead_in = {instr_block(i) for i in dead}
    partial_in = {instr_block(i) for i in partial}
    live = preds = None
    instrs = {b.label: list(b.instrs) for b in fn.blocks}
    arriving = defaultdict(list)
    deleted = sunk = copies = 0
    for b in fn.blocks:
        gone = {k for k, ins in enumerate(b.instrs)
                if instr_id(b.label, k) in dead and not _guarded(ins)} if b.label in dead_in else ()
        if gone:
            instrs[b.label] = [ins for k, ins in enumerate(b.instrs) if k not in gone]
            deleted += len(gone)
            continue
        for k in range(len(b.instrs) - 1, -1, -1) if b.label in partial_in else ():
            ins = b.instrs[k]
            if instr_id(b.label, k) not in partial or _guarded(ins) or len(ins.defs()) != 1:
                continue
            if live is None:
                live, preds = Liveness.from_rows(fn, fr), block_predecessors(fn)
            targets = sink_target(fn, b, k, live, preds)
            if targets is None:
                continue
            instrs[b.label] = list(b.instrs[:k] + b.instrs[k + 1:])
            for s in targets:
                arriving[s].append(ins)
            sunk += 1
            copies += len(targets)
            break
    entry = FunctionPde(fn.name, deleted, sunk, copies, 1 if (deleted or sunk) else 0)
    if not (deleted or sunk):
        return fn, entry
    # unchanged blocks kept as they are: the facts of a body are kept by its blocks' identity
    # (facts_gen.extract._BODY_ROWS)
    blocks = []
    for b in fn.blocks:
        body = tuple(arriving[b.label] + instrs[b.label])
        blocks.append(b if body == b.instrs else dataclasses.replace(b, instrs=body))
    return dataclasses.replace(fn, blocks=tuple(blocks)), entry
