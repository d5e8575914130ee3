"""Dead code elimination (``pathlogic optimize --passes dce``; issue #13 item 3): remove every
instruction ``datalog/dce.dl`` marks dead -- pure instructions nothing useful reads, dead cycles
included (the marking step of aggressive DCE; branches are kept). Guards, predicate defines and
guarded writes are read as docs/pir.md defines them, so it is sound on predicated code too.

Example: ``x = add x, 1`` in a loop whose ``x`` nothing else reads is removed with its ``mov``
initialisation; ``print`` and stores are never removed.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Optional

from facts_gen.naming import instr_id
from pylogic.ir.model import Function, Module
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.record import TransformRecord

NEEDS = ("dce_dead",)


@dataclass(frozen=True)
class FunctionDce:
    function: str
    removed: int
    instructions: int


@dataclass
class DceRecord(TransformRecord):
    transform: str = "dce"

    def totals(self) -> dict:
        return {"functions": len(self.applied),
                "removed": sum(a.removed for a in self.applied),
                "instructions_before": sum(a.instructions for a in self.applied)}

    def summary(self) -> str:
        t = self.totals()
        return f"dce: {t['removed']} of {t['instructions_before']} instructions removed"


def dce(module: Module, rows, *, functions: Optional[Iterable[str]] = None
        ) -> tuple[Module, DceRecord]:
    """``(new module, record)``: the dead instructions of every (or each named) function
    removed; ``rows`` holds ``dce_dead`` (``Rows`` of the module)."""
    return run_per_function(module, functions, DceRecord(), lambda fn: dce_function(
        fn, {row[0] for row in rows.function(fn.name)["dce_dead"]}))


def dce_function(fn: Function, dead: set) -> tuple[Function, FunctionDce]:
    """``fn`` without the instructions ``dead`` names (``block#index``), and its entry
    (``fn`` itself when ``dead`` is empty)."""
    if not dead:
        return fn, FunctionDce(fn.name, 0, sum(len(b.instrs) for b in fn.blocks))
    blocks, removed, total = [], 0, 0
    for b in fn.blocks:
        keep = [ins for k, ins in enumerate(b.instrs) if instr_id(b.label, k) not in dead]
        removed += len(b.instrs) - len(keep)
        total += len(b.instrs)
        blocks.append(dataclasses.replace(b, instrs=tuple(keep)))
    return dataclasses.replace(fn, blocks=tuple(blocks)), FunctionDce(fn.name, removed, total)
