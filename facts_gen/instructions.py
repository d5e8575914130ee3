"""Instruction-level relations: instructions, operands, defs/uses, guards, predicate defines,
comparisons, calls, memory operations, branches and annotations (docs/relations.md)."""
from __future__ import annotations

from pylogic.ir.model import (Alloca, Call, Cmp, Function, GlobalAddr, Imm, Load,
                              PredDefine, Reg, Store, branch_targets)
from facts_gen.naming import instr_id

#: Relations this module writes (datalog/schema.dl, "Instructions, operands, defs and uses").
RELATIONS = ("param", "instr", "guard", "def", "use", "operand", "compare", "pdefine", "branch",
             "call", "memory", "annotation")


def operand_kind(op) -> tuple[str, str]:
    """(kind, text) of an operand: kind is reg | const | global. Constants are text (64-bit)."""
    if isinstance(op, Reg):
        return "reg", op.name
    if isinstance(op, Imm):
        return "const", str(op.value)
    if isinstance(op, GlobalAddr):
        return "global", op.name
    raise TypeError(f"not an operand: {op!r}")


def instruction_facts(f: str, fn: Function, out: dict[str, list[tuple]]) -> None:
    """Append the instruction relations of one defined function to ``out``."""
    out["param"].extend((f, k, p) for k, p in enumerate(fn.params))
    for b in fn.blocks:
        if b.annotations:
            out["annotation"].extend((f, b.label, k, v) for k, v in b.annotations)
        for idx, ins in enumerate(b.instrs):
            i = instr_id(b.label, idx)
            out["instr"].append((f, i, b.label, idx, ins.opcode))
            if ins.guard is not None:
                out["guard"].append((f, i, ins.guard))
            for r in ins.defs():
                out["def"].append((f, i, r))
            for pos, op in enumerate(ins.uses()):
                kind, text = operand_kind(op)
                out["operand"].append((f, i, pos, kind, text))
                if kind == "reg":
                    out["use"].append((f, i, text))
            for t in branch_targets(ins):
                out["branch"].append((f, i, t))
            if isinstance(ins, (Cmp, PredDefine)):
                out["compare"].append((f, i, ins.rel))
            if isinstance(ins, PredDefine):
                out["pdefine"].extend((f, i, slot, d.name, d.dtype)
                                      for slot, d in enumerate(ins.dests))
            elif isinstance(ins, Call):
                out["call"].append((f, i, ins.callee))
            elif isinstance(ins, Load):
                out["memory"].append((f, i, "load", ins.size, "s" if ins.signed else "u"))
            elif isinstance(ins, Store):
                out["memory"].append((f, i, "store", ins.size, "-"))
            elif isinstance(ins, Alloca):
                out["memory"].append((f, i, "alloca", 0, "-"))
            if ins.annotations:
                out["annotation"].extend((f, i, k, v) for k, v in ins.annotations)
